#!/usr/bin/env python3
"""startup_bench.py — what a test program pays at start for the libraries
libtattle makes it load.

Starts a test program (one linked with the shared libtattle) RUNS times
with `--list` and, interleaved in the same run, the same program with
libxml2 preloaded (LD_PRELOAD), which is what every test program loaded
when libtattle linked libxml2 (and, behind it, ICU and libstdc++). Prints
the wall time, the CPU time and the page faults per start of both, and
their difference: the cost a test program no longer pays. With
--before DIR (a directory holding an older libtattle.so.0), the program
is also started against that library (LD_LIBRARY_PATH), the measured
before of a real build.

Usage: bench/startup/startup_bench.py PROGRAM [RUNS] [--before DIR]
e.g.   bench/startup/startup_bench.py build/examples/queue_tests 500
"""
import argparse
import os
import resource
import subprocess
import sys
import time


def libxml2_path():
    """Where the dynamic loader finds libxml2.so.2, or None."""
    out = subprocess.run(["ldconfig", "-p"], capture_output=True,
                         text=True).stdout
    for line in out.splitlines():
        if line.strip().startswith("libxml2.so.2 ") and "x86-64" in line:
            return line.rsplit("=>", 1)[1].strip()
    return None


def start_once(argv, env):
    """Wall seconds, CPU seconds and minor faults of one start."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime -
                                                before.ru_stime)
    return wall, cpu, after.ru_minflt - before.ru_minflt


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("program")
    parser.add_argument("runs", nargs="?", type=int, default=300)
    parser.add_argument("--before", help="directory of an older libtattle.so.0")
    options = parser.parse_args()
    if options.runs < 1:
        print("startup_bench: RUNS must be positive", file=sys.stderr)
        return 2
    xml = libxml2_path()
    if not xml:
        print("startup_bench: libxml2.so.2 is not installed", file=sys.stderr)
        return 2
    argv = [os.path.abspath(options.program), "--list"]
    plain = dict(os.environ)
    plain.pop("LD_PRELOAD", None)
    variants = [("as built", plain),
                ("libxml2 preloaded", dict(plain, LD_PRELOAD=xml))]
    if options.before:
        variants.append(("--before library", dict(
            plain, LD_LIBRARY_PATH=os.path.abspath(options.before))))
    totals = {name: [0.0, 0.0, 0] for name, _ in variants}
    for name, env in variants:  # warm the page cache
        start_once(argv, env)
    for _ in range(options.runs):
        for name, env in variants:
            wall, cpu, faults = start_once(argv, env)
            totals[name][0] += wall
            totals[name][1] += cpu
            totals[name][2] += faults
    runs = options.runs
    print("%d starts of %s --list each, interleaved:" % (runs, argv[0]))
    for name, _ in variants:
        wall, cpu, faults = totals[name]
        print("  %-18s %7.3f ms wall  %7.3f ms CPU  %6.0f page faults"
              " per start" % (name, 1e3 * wall / runs, 1e3 * cpu / runs,
                              faults / runs))
    base = totals["as built"]
    for name, _ in variants[1:]:
        other = totals[name]
        print("  %s costs %+.3f ms wall, %+.3f ms CPU, %+.0f page faults"
              " per start (%.2fx the wall time as built)"
              % (name, 1e3 * (other[0] - base[0]) / runs,
                 1e3 * (other[1] - base[1]) / runs,
                 (other[2] - base[2]) / runs, other[0] / base[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main())

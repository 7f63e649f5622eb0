#!/usr/bin/env python3
"""What a test program loads at start: the shared library libtattle must
not need libxml2 (and ICU and libstdc++ behind it, ~30 MB mapped by every
test program at start). Only the `tattle` command reads XML (the JUnit
reports of `tattle run --junit-in`), so only it may link libxml2; this
checks both sides on the built files with readelf (binutils).

Usage: test_library_needs.py LIBTATTLE_SO TATTLE_COMMAND
Exits 0 when libtattle needs no XML library and the command does, 1
naming what is wrong, 77 (skip) without readelf.
"""
import shutil
import subprocess
import sys

UNWANTED = ("libxml2", "libicu", "libstdc++")


def needed(path):
    """The DT_NEEDED entries of the ELF file at `path`."""
    out = subprocess.run(["readelf", "-d", path], check=True,
                         capture_output=True, text=True).stdout
    return [line.split("[", 1)[1].split("]", 1)[0]
            for line in out.splitlines() if "(NEEDED)" in line]


def main():
    if len(sys.argv) != 3:
        print("usage: test_library_needs.py LIBTATTLE_SO TATTLE_COMMAND")
        return 2
    if not shutil.which("readelf"):
        print("skipped: readelf (binutils) is not installed")
        return 77
    library, command = sys.argv[1:]
    problems = []
    library_needs = needed(library)
    for name in library_needs:
        if name.startswith(UNWANTED):
            problems.append("%s needs %s: every test program would load it"
                            % (library, name))
    if not any(name.startswith("libxml2") for name in needed(command)):
        problems.append("%s does not need libxml2: who reads --junit-in?"
                        % command)
    for problem in problems:
        print("FAILED: " + problem)
    if problems:
        return 1
    print("ok: libtattle needs %s" % ", ".join(library_needs))
    return 0


if __name__ == "__main__":
    sys.exit(main())

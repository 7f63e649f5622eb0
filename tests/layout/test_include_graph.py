#!/usr/bin/env python3
"""The house's one-way rule, checked on the code: every project include
("dir/file.h") in a module's sources must name a module the module may
use. Data flows runner -> tracer -> results -> reporters, base/ below all:

    base      -> base
    results   -> results, base
    tracer    -> tracer, base
    reporter  -> reporter, results, base
    runner    -> runner, tracer, results, reporter, base
    cli       -> cli, runner, results, reporter, base

The cli is the top: it may reach into the runner (it hands `tattle run`
the JUnit reader only it links), and nothing includes the cli.

Public headers (<tattle/...>) may be included anywhere. Exits 0 when every
include keeps the rule, 1 listing each that does not (file:line: include).
"""
import os
import re
import sys

ALLOWED = {
    "base": {"base"},
    "results": {"results", "base"},
    "tracer": {"tracer", "base"},
    "reporter": {"reporter", "results", "base"},
    "runner": {"runner", "tracer", "results", "reporter", "base"},
    "cli": {"cli", "runner", "results", "reporter", "base"},
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def check(root):
    problems = []
    checked = 0
    for module, allowed in ALLOWED.items():
        top = os.path.join(root, module)
        for directory, _, files in os.walk(top):
            for name in sorted(files):
                if not name.endswith((".c", ".h")):
                    continue
                path = os.path.join(directory, name)
                with open(path, encoding="utf-8") as f:
                    for number, line in enumerate(f, 1):
                        match = INCLUDE.match(line)
                        if not match:
                            continue
                        checked += 1
                        target = match.group(1).split("/")[0]
                        if "/" not in match.group(1):
                            problems.append("%s:%d: \"%s\" is not a module path"
                                            % (os.path.relpath(path, root), number,
                                               match.group(1)))
                        elif target not in allowed:
                            problems.append("%s:%d: %s may not include \"%s\""
                                            % (os.path.relpath(path, root), number,
                                               module, match.group(1)))
    return checked, problems


def main():
    root = os.environ.get("TATTLE_SOURCE_DIR") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..")
    checked, problems = check(os.path.abspath(root))
    for problem in problems:
        print("FAILED: " + problem)
    if checked == 0:
        print("FAILED: no include was found: is TATTLE_SOURCE_DIR right?")
        return 1
    if problems:
        return 1
    print("ok: %d includes keep the one-way rule" % checked)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Normalizes a tattle report, stream or compact report for golden files:
values that change from run to run (times, durations, process ids,
addresses, seeds, absolute paths) are replaced by fixed placeholders, and
the result is printed as indented JSON (a stream or compact report becomes
an array of its lines), keys in the order the tool wrote them.

    normalize.py FILE     prints the normalized text
"""
import json
import os
import re
import sys

VOLATILE_NUMBERS = {"duration_us", "t_us", "pid", "tid"}


def _paths():
    paths = []
    for var, name in (("TATTLE_BINARY_DIR", "<build>"), ("TATTLE_SOURCE_DIR", "<source>")):
        value = os.environ.get(var)
        if value:
            paths.append((os.path.realpath(value), name))
            paths.append((value.rstrip("/"), name))
    return paths


def replace_paths(text, paths=None):
    """Replaces the build and source directories in text by <build> and
    <source>, each only where it stands as a whole path: at a path
    boundary on both sides, so a source directory such as `/t` leaves
    `/tmp/x` and `/opt/t2` alone. The build directory comes first: it is
    often inside the source directory."""
    paths = _paths() if paths is None else paths
    for prefix, name in paths:
        if not prefix or prefix == "/":
            continue
        pattern = r"(?<![\w.\-/])" + re.escape(prefix) + r"(?![\w.\-])"
        text = re.sub(pattern, lambda _match: name, text)
    return text


def _string(value, paths):
    value = replace_paths(value, paths)
    return re.sub(r"0x[0-9a-f]{6,}", "0x<address>", value)


def normalize(value, paths=None, key=None):
    paths = _paths() if paths is None else paths
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k in VOLATILE_NUMBERS and isinstance(v, int):
                out[k] = 0
            elif k == "started_at" and isinstance(v, str):
                out[k] = "<time>"
            elif k == "seed" and isinstance(v, int):
                out[k] = 0
            else:
                out[k] = normalize(v, paths, k)
        return out
    if isinstance(value, list):
        return [normalize(v, paths, key) for v in value]
    if isinstance(value, str):
        return _string(value, paths)
    return value


def load(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        return json.loads(text)
    except ValueError:
        return [json.loads(line) for line in text.splitlines()]


def normalized_text(path):
    return json.dumps(normalize(load(path)), indent=1, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    sys.stdout.write(normalized_text(sys.argv[1]))

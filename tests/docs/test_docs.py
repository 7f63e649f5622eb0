#!/usr/bin/env python3
"""The documentation, checked against the code it describes, so that no
example or list in README.md and docs/*.md can rot.

    test_docs.py CASE --build-dir DIR --ctest CTEST --examples PATH --tattle PATH
                 --tattle-main PATH --cc CC --cxx CXX [--sanitize KIND]

Every fenced block of README.md and docs/*.md says how it is checked, in
an HTML comment on the line before it (invisible on GitHub):

    <!-- doc-test: compile NAME [c11|c++17|c++20] [with FILE...] [-I DIR...] -->
        C or C++ compiled as a user would (-Wall -Wextra -Wpedantic
        -Werror) with FILE... and linked with tattle::main into ./NAME
    <!-- doc-test: run -->
        shell commands, each run and required to exit 0
    <!-- doc-test: output COMMAND -->
        what COMMAND prints: each line of the block is found, in order, in
        its output (times, seeds and the source directory normalized; a
        `...` line skips lines, `...` in a line matches any text)
    <!-- doc-test: file NAME -->
        written to ./NAME for the blocks after it in the same page
    <!-- doc-test: excerpt FILE -->
        lines of FILE (a real, built and tested file), in order; `...`
        lines stand for the lines left out
    <!-- doc-test: run-by TEST ... -->
        run by the CTest test TEST (which must exist), not here
    <!-- doc-test: picture -->
        a drawing, not a command or an output
    ```sh jq-recipe
        run by report_e2e_agents_md_jq_recipes_work against a real report

The pages run in one scratch directory, README.md first, where ./tests
is the example suite (docs/AGENTS.md calls a test program ./tests) and
the programs compiled from the pages sit beside it. Exits 0 when every
check held, 1 otherwise, printing each broken check.
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys

SOURCE_DIR = os.path.abspath(os.environ.get(
    "TATTLE_SOURCE_DIR",
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")))
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "tools"))
import driver  # noqa: E402


SANITIZER_FLAGS = {
    "": [],
    "address": ["-fsanitize=address,undefined", "-fno-omit-frame-pointer"],
    "thread": ["-fsanitize=thread"],
}

FENCE = re.compile(r"^```(\S*)(.*)$")
MARKER = re.compile(r"^<!--\s*doc-test:\s*(.*?)\s*-->\s*$")


def pages():
    """README.md, then docs/*.md, as (relative path, text)."""
    names = ["README.md"] + sorted(
        os.path.join("docs", n) for n in os.listdir(os.path.join(SOURCE_DIR, "docs"))
        if n.endswith(".md"))
    for name in names:
        with open(os.path.join(SOURCE_DIR, name), encoding="utf-8") as f:
            yield name, f.read()


class Block:
    def __init__(self, page, line, language, info, marker, text):
        self.page, self.line = page, line
        self.language, self.info = language, info
        self.marker, self.text = marker, text

    def where(self):
        return "%s:%d" % (self.page, self.line)


def blocks(page, text):
    """The fenced blocks of a page with the marker before each."""
    lines = text.split("\n")
    found, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        start = i
        end = i + 1
        while end < len(lines) and lines[end].rstrip() != "```":
            end += 1
        previous = start - 1
        while previous >= 0 and not lines[previous].strip():
            previous -= 1
        marker = MARKER.match(lines[previous]) if previous >= 0 else None
        found.append(Block(page, start + 1, m.group(1), m.group(2).strip(),
                           marker.group(1) if marker else None,
                           "\n".join(lines[start + 1:end]) + "\n"))
        i = end + 1
    return found


def normalize(line, workspace=None):
    """What differs from run to run, or from machine to machine, replaced."""
    line = line.replace(SOURCE_DIR + "/", "")
    if workspace:
        line = line.replace(workspace + "/", "")
    line = re.sub(r"\b\d+(\.\d+)? ?(us|ms|s)\b", "<time>", line)
    line = re.sub(r'"duration_us":\d+', '"duration_us":<n>', line)
    line = re.sub(r'("seed":|seed )\d+', r"\1<n>", line)
    return " ".join(line.split())


def line_matches(doc_line, actual):
    if "..." not in doc_line:
        return doc_line == actual
    pattern = ".*".join(re.escape(part) for part in doc_line.split("..."))
    return re.fullmatch(pattern, actual) is not None


def missing_lines(doc_text, output, workspace):
    """The lines of the block not found, in order, in the output."""
    actual = [normalize(l, workspace) for l in output.split("\n")]
    actual = [l for l in actual if l]
    position, missing = 0, []
    for doc_line in (normalize(l) for l in doc_text.split("\n")):
        if not doc_line or doc_line == "...":
            continue
        for j in range(position, len(actual)):
            if line_matches(doc_line, actual[j]):
                position = j + 1
                break
        else:
            missing.append(doc_line)
    return missing


def code_line(line):
    """A source line without its trailing comment and outer spaces."""
    line = re.sub(r"/\*.*?\*/\s*$", "", line)
    line = re.sub(r"\s#\s.*$", "", line)
    return " ".join(line.split())


REGISTERED_TESTS = []


def registered_tests(options):
    """The names of the tests CTest has in the build directory (each
    driver's cases are registered from its --list, so the CMake files do
    not name them)."""
    if not REGISTERED_TESTS:
        p = subprocess.run([options.ctest or "ctest", "--show-only=json-v1"],
                           cwd=options.build_dir, stdout=subprocess.PIPE,
                           check=True)
        REGISTERED_TESTS.extend(t["name"] for t in json.loads(p.stdout)["tests"])
    return set(REGISTERED_TESTS)


class Case(driver.Checks):
    def __init__(self, options):
        super().__init__("tattle-docs-")
        self.options = options
        self.workspace = os.path.join(self.scratch, "workspace")
        os.mkdir(self.workspace)
        os.symlink(os.path.abspath(options.examples),
                   os.path.join(self.workspace, "tests"))
        self.env = driver.clean_env()
        self.env["TERM"] = "dumb"

    def shell(self, command, timeout=120):
        return subprocess.run(["bash", "-c", command], cwd=self.workspace,
                              env=self.env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=timeout)

    def program(self, *args, stdin=None):
        p = subprocess.run([os.path.join(self.workspace, "tests")] + list(args),
                           cwd=self.workspace, env=self.env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=120)
        return p.returncode, p.stdout.decode("utf-8", "replace"), \
            p.stderr.decode("utf-8", "replace")

    # ---- the kinds of block ----

    def compile(self, block, words):
        name, words = words[0], words[1:]
        standard = "c++17" if block.language == "cpp" else "c11"
        sources, includes, i = [], [], 0
        while i < len(words):
            if re.fullmatch(r"c\d\d|c\+\+\d\d", words[i]):
                standard = words[i]
            elif words[i] == "with":
                pass
            elif words[i] == "-I":
                i += 1
                includes += ["-I", os.path.join(SOURCE_DIR, words[i])]
            else:
                sources.append(os.path.join(SOURCE_DIR, words[i]))
            i += 1
        cplusplus = standard.startswith("c++")
        compiler = self.options.cxx if cplusplus else self.options.cc
        sanitize = SANITIZER_FLAGS[self.options.sanitize or ""]
        extension = ".cpp" if cplusplus else ".c"
        source = os.path.join(self.scratch, name + extension)
        driver.write(source, block.text)
        objects = []
        for path, strict in [(source, True)] + [(s, False) for s in sources]:
            obj = os.path.join(self.scratch, os.path.basename(path) + ".o")
            flags = (["-std=" + standard, "-Wall", "-Wextra", "-Wpedantic", "-Werror"]
                     if strict else ["-std=gnu11", "-Wall", "-Wextra", "-Werror"])
            p = subprocess.run(
                [compiler if strict else self.options.cc] + flags + sanitize +
                ["-I", os.path.join(SOURCE_DIR, "include")] + includes +
                ["-c", path, "-o", obj], stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT)
            self.require(p.returncode == 0 and not p.stdout,
                         "%s: %s does not compile cleanly (%s -std=%s):\n%s"
                         % (block.where(), os.path.basename(path), compiler,
                            standard, p.stdout.decode("utf-8", "replace")[-3000:]))
            objects.append(obj)
        library_dir = os.path.dirname(os.path.abspath(self.options.tattle))
        p = subprocess.run(
            [compiler] + sanitize + objects +
            [self.options.tattle_main, self.options.tattle, "-pthread",
             "-Wl,-rpath," + library_dir, "-o", os.path.join(self.workspace, name)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.require(p.returncode == 0, "%s: %s does not link:\n%s" % (
            block.where(), name, p.stdout.decode("utf-8", "replace")[-3000:]))

    def run(self, block):
        commands = [l for l in block.text.split("\n")
                    if l.strip() and not l.strip().startswith("#")]
        self.expect(commands, "%s: a run block without commands" % block.where())
        for command in commands:
            p = self.shell(command)
            self.expect(p.returncode == 0, "%s: `%s` exits %d:\n%s" % (
                block.where(), command.strip(), p.returncode,
                p.stdout.decode("utf-8", "replace")[-2000:]))

    def output(self, block, command):
        p = self.shell(command)
        self.expect(p.returncode in (0, 1), "%s: `%s` exits %d" % (
            block.where(), command, p.returncode))
        text = p.stdout.decode("utf-8", "replace")
        missing = missing_lines(block.text, text, self.workspace)
        self.expect(not missing, "%s: `%s` does not print, in this order:\n  %s\n"
                    "it printed:\n%s" % (block.where(), command,
                                         "\n  ".join(missing), text[-4000:]))

    def excerpt(self, block, path):
        full = os.path.join(SOURCE_DIR, path)
        self.require(os.path.isfile(full), "%s: no file %s" % (block.where(), path))
        with open(full, encoding="utf-8") as f:
            source = [code_line(l) for l in f.read().split("\n")]
        position = 0
        for doc_line in block.text.split("\n"):
            wanted = code_line(doc_line)
            if not wanted or wanted == "...":
                continue
            try:
                position = source.index(wanted, position) + 1
            except ValueError:
                self.expect(False, "%s: %r is not a line of %s (after line %d)"
                            % (block.where(), doc_line.strip(), path, position))

    def check_block(self, block, created):
        if block.info == "jq-recipe":
            self.expect("report_e2e_agents_md_jq_recipes_work"
                        in registered_tests(self.options),
                        "%s: the jq recipe test is gone" % block.where())
            return
        if block.marker is None:
            self.expect(False, "%s: a ```%s block with no <!-- doc-test: ... --> "
                        "marker: say how it is checked" % (block.where(), block.language))
            return
        kind, _, rest = block.marker.partition(" ")
        words = shlex.split(rest) if kind not in ("output", "run-by") else []
        if kind == "compile":
            self.compile(block, words)
        elif kind == "run":
            self.run(block)
        elif kind == "output":
            self.output(block, rest)
        elif kind == "file":
            path = os.path.join(self.workspace, words[0])
            driver.write(path, block.text)
            created.append(path)
        elif kind == "excerpt":
            self.excerpt(block, words[0])
        elif kind == "run-by":
            test = rest.split()[0] if rest.split() else ""
            registered = registered_tests(self.options)
            # The install tests exist in the normal build only (a sanitized
            # build registers none); that build checks their names.
            install_elsewhere = test.startswith("install_") and not any(
                t.startswith("install_") for t in registered)
            self.expect(test in registered or install_elsewhere,
                        "%s: run-by names no registered test: %r" % (block.where(), test))
        elif kind == "picture":
            pass
        else:
            self.expect(False, "%s: unknown doc-test kind %r" % (block.where(), kind))


CASES = driver.Cases()


@CASES("docs_examples_compile_run_and_print_as_written")
def examples(c):
    """Every fenced block of every page, checked as its marker says."""
    count = 0
    for page, text in pages():
        created = []
        for block in blocks(page, text):
            count += 1
            try:
                c.check_block(block, created)
            except driver.CheckFailed:
                pass
        for path in created:
            os.remove(path)
    c.expect(count >= 15, "the pages hold %d blocks; were they found?" % count)


@CASES("docs_agents_table_commands_run_on_the_examples")
def table_commands(c):
    """The commands of docs/AGENTS.md's tables that name no placeholder run
    on the example suite as the table says: they are accepted (exit 0 or
    1), and what they send to stdout as JSON is JSON."""
    text = dict(pages())[os.path.join("docs", "AGENTS.md")]
    commands = [s for s in inline_code(text) if s.startswith("./tests ")]
    runnable = [s for s in commands
                if "[" not in s and not re.search(r"\b[A-Z]{2,}\b", s)]
    c.expect(len(runnable) >= 8, "AGENTS.md has runnable commands: %s" % runnable)
    for command in runnable:
        p = c.shell(command + " 2>/dev/null")
        c.expect(p.returncode in (0, 1), "`%s` exits %d" % (command, p.returncode))
        out = p.stdout.decode("utf-8", "replace")
        if "--json -" in command or "--list --json" in command:
            try:
                for line in ([out] if "--compact" not in command else out.splitlines()):
                    json.loads(line)
            except ValueError as e:
                c.expect(False, "`%s` prints no JSON: %s: %r" % (command, e, out[:300]))


def reference():
    return dict(pages())[os.path.join("docs", "REFERENCE.md")]


def inline_code(text):
    """The `code spans` of a page's prose (fenced blocks left out)."""
    prose = re.sub(r"^```.*?^```$", "", text, flags=re.S | re.M)
    return [" ".join(span.split()) for span in re.findall(r"`([^`]+)`", prose)]


def table_after(text, heading):
    """The first column of the first table after `heading`, row by row."""
    section = text.split(heading, 1)[1]
    rows = []
    for line in section.split("\n"):
        if line.startswith("|"):
            rows.append([cell.strip() for cell in
                         re.split(r"(?<!\\)\|", line.strip().strip("|"))])
        elif rows:
            break
    return rows[2:]  # past the header and the ---


@CASES("docs_reference_lists_exactly_the_flags_of_help")
def flags(c):
    """The flags of REFERENCE.md are exactly those of --help."""
    status, out, _ = c.program("--help")
    c.require(status == 0, "--help exits %d" % status)
    helped = set()
    for line in out.split("\n"):
        m = re.match(r"^\s+(?:(-\w), )?(--[\w-]+)", line)
        if m:
            helped.update(f for f in m.groups() if f)
    documented = set()
    for row in table_after(reference(), "## The command line"):
        documented.update(re.findall(r"(?<![\w-])(--[a-z][\w-]*|-[a-z])\b", row[0]))
    c.expect(len(helped) >= 30, "--help lists flags: %s" % sorted(helped))
    c.expect_eq(sorted(documented - helped), [], "documented flags --help lacks")
    c.expect_eq(sorted(helped - documented), [], "flags of --help REFERENCE.md lacks")


def source_files():
    for area in ("base", "results", "runner", "tracer", "reporter", "cli", "include"):
        for root, _, files in os.walk(os.path.join(SOURCE_DIR, area)):
            for name in files:
                if name.endswith((".c", ".h")):
                    with open(os.path.join(root, name), encoding="utf-8") as f:
                        yield f.read()


@CASES("docs_reference_lists_every_environment_variable_read")
def environment(c):
    """Every variable the sources read with getenv() is in REFERENCE.md,
    and every variable it lists is named in the sources."""
    read, literals = set(), set()
    for text in source_files():
        # getenv("X") and the runner's wrapper variable("X") read one name
        # each; the sharding protocols are a table of name pairs.
        read.update(re.findall(r'(?:getenv|variable)\("([A-Z_][A-Z0-9_]*)"\)', text))
        for pair in re.findall(r'\{"([A-Z_]+_SHARDS)", "([A-Z_]+_INDEX)"\}', text):
            read.update(pair)
        literals.update(re.findall(r'"([A-Z_][A-Z0-9_]*)"', text))
    documented = set()
    for row in table_after(reference(), "## Environment variables"):
        documented.update(re.findall(r"`([A-Z_][A-Z0-9_]*)`", row[0]))
    c.expect(len(read) >= 8, "the sources read variables: %s" % sorted(read))
    c.expect_eq(sorted(read - documented), [], "variables read but not documented")
    c.expect_eq(sorted(documented - literals), [],
                "documented variables no source names")


def yaml_for(key, value):
    parts = key.split(".")
    text, indent = "", ""
    for part in parts[:-1]:
        text += "%s%s:\n" % (indent, part)
        indent += "  "
    return text + "%s%s: %s\n" % (indent, parts[-1], value)


@CASES("docs_reference_config_keys_and_ranges_hold")
def config_keys(c):
    """Each tattle.yml key of REFERENCE.md is accepted with a value of its
    kind and at both ends of its range, refused (exit 2, naming the file
    and line) one past them; keys the configuration reader knows but the
    page does not list are refused; an unknown key is refused."""
    rows = table_after(reference(), "## `tattle.yml`")
    documented = {}
    for row in rows:
        key = re.findall(r"`([a-z_.]+)`", row[0])
        c.require(key, "a tattle.yml row without a key: %s" % row)
        documented[key[0]] = row[1]
    c.expect(len(documented) >= 10, "keys documented: %s" % sorted(documented))
    config_path = os.path.join(c.workspace, "tattle.yml")

    def load(key, value):
        driver.write(config_path, yaml_for(key, value))
        try:
            return c.program("--list")
        finally:
            os.remove(config_path)

    def accepted(key, value):
        status, _, err = load(key, value)
        c.expect(status == 0, "%s: %s is refused (exit %d): %s"
                 % (key, value, status, err.strip()))

    def refused(key, value):
        status, _, err = load(key, value)
        c.expect(status == 2 and re.search(r"tattle\.yml:\d+:\d+", err),
                 "%s: %s is not refused with file:line:column (exit %d): %s"
                 % (key, value, status, err.strip()))

    for key, meaning in documented.items():
        bounded = re.search(r"(\d+) to (\d+)", meaning)
        at_least = re.search(r"(\d+) or more", meaning)
        if bounded:
            low, high = int(bounded.group(1)), int(bounded.group(2))
            accepted(key, low)
            accepted(key, high)
            refused(key, low - 1)
            refused(key, high + 1)
        elif at_least:
            low = int(at_least.group(1))
            accepted(key, low)
            accepted(key, 86400000)
            refused(key, low - 1)
        elif "`true`" in meaning:
            accepted(key, "true")
            accepted(key, "false")
            refused(key, "perhaps")
        elif "to this file" in meaning:
            accepted(key, "out.json")
        elif key == "reports.plugins":
            accepted(key, "[./libmine.so, {path: lib/x.so, file: out.md}]")
            refused(key, "[mine]")
            refused(key, "[{file: out.md}]")
        elif key == "exclude":
            accepted(key, "[slow, area:net]")
            refused(key, "slow")
        elif key == "tags":
            accepted(key, '[{match: "queue/*", add: [smoke]}]')
            refused(key, '[{match: "queue/*"}]')
        else:
            c.expect(False, "%s: no check for a key described as %r" % (key, meaning))
    refused("no_such_key", 1)
    # The keys the reader's tables name (`{"key", read_...}`) but the page
    # does not: a user cannot use them.
    known = set()
    for root, _, files in os.walk(os.path.join(SOURCE_DIR, "runner")):
        for name in files:
            if name.endswith(".c"):
                with open(os.path.join(root, name), encoding="utf-8") as f:
                    known.update(re.findall(r'\{"([a-z_]+)",\s*read_\w+\}', f.read()))
    c.expect(known, "no configuration key table found in runner/")
    leaves = {k.split(".")[-1] for k in documented} | {k.split(".")[0] for k in documented}
    for key in sorted(known - leaves):
        for parent in ("", "reports.", "trace."):
            for value in ("x.json", "true", "1", "[smoke]"):
                status, _, _ = load(parent + key, value)
                c.expect(status == 2, "%s%s: %s is accepted, and the key is not "
                         "documented" % (parent, key, value))


def schema_properties(node, found):
    if isinstance(node, dict):
        for name, value in node.get("properties", {}).items():
            found.add(name)
            schema_properties(value, found)
        for key, value in node.items():
            if key != "properties":
                schema_properties(value, found)
    elif isinstance(node, list):
        for value in node:
            schema_properties(value, found)


@CASES("docs_name_every_field_of_the_schemas")
def report_fields(c):
    """Every property of every schema is named in docs/AGENTS.md or
    docs/REFERENCE.md."""
    text = dict(pages())
    words = set()
    for page in (os.path.join("docs", "AGENTS.md"), os.path.join("docs", "REFERENCE.md")):
        for span in inline_code(text[page]):
            words.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", span))
    schemas = os.path.join(SOURCE_DIR, "schemas")
    for name in sorted(os.listdir(schemas)):
        if not name.endswith(".schema.json"):
            continue
        with open(os.path.join(schemas, name), encoding="utf-8") as f:
            found = set()
            schema_properties(json.load(f), found)
        c.expect(found, "%s has properties" % name)
        c.expect_eq(sorted(found - words), [], "fields of %s the docs do not name" % name)


@CASES("docs_stand_alone_and_links_resolve")
def stand_alone(c):
    """The pages point at nothing outside the repository (no SPEC.md or
    ../shared), and their relative links lead to files that exist."""
    for page, text in pages():
        for bad in ("SPEC.md", "../shared", "STYLE.md"):
            c.expect(bad not in text, "%s names %s, outside the repository" % (page, bad))
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if re.match(r"\w+://", target):
                continue
            path = os.path.normpath(os.path.join(SOURCE_DIR, os.path.dirname(page), target))
            c.expect(os.path.exists(path), "%s links to %s, which does not exist"
                     % (page, target))
    readme = dict(pages())["README.md"]
    first = blocks("README.md", readme)[0]
    c.expect_eq(first.text.split("\n")[:2],
                ["scripts/run-examples.sh   # build everything, run the example suite, write build/examples/report.json and report.html",
                 "scripts/run-tests.sh      # build and run tattle's own tests with CTest (also under ASan+UBSan and TSan)"],
                "the README's first block: the two commands")
    c.expect_eq(len([l for l in first.text.split("\n") if l.strip()]), 2,
                "the README's first block holds two commands only")
    c.expect("## Install" in readme and "Linux only" in readme,
             "the README has an install section and says tattle is Linux only")


def main():
    CASES.list_if_asked()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("case", choices=sorted(CASES))
    for name in ("build-dir", "ctest", "examples", "tattle", "tattle-main", "cc",
                 "cxx", "sanitize"):
        parser.add_argument("--" + name, default="")
    options = parser.parse_args()
    return driver.run_case(CASES[options.case], Case(options), options.case)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The HTML report, read as a document and in a real browser, and the
Mermaid diagrams of `tattle show --mermaid`, read by Mermaid's parser.

    test_html.py CASE --tattle TATTLE --fixture HTML_FIXTURE
                 --calls-fixture HTML_CALLS_FIXTURE --profile PROFILE_FIXTURE
                 --artifacts DIR [--examples TATTLE_EXAMPLES]

html_fixture (fixture_html.c) puts `</script>`, an `<img onerror>`,
quotes, invalid UTF-8 and control bytes into test ids, values, messages,
output, actor names, labels, payloads and pending messages; its JSON
report (validated against the schema) says what each string is, and the
page must show exactly that as text. The browser cases open the page in
headless Chromium (Debian's chromium, driven by npm's playwright-core:
tests/consumers/check_html_page.mjs), abort and record every request,
and keep their screenshots under DIR. html_calls_fixture
(fixture_html_calls.c) is a `trace_calls` test whose thread names itself
with invalid UTF-8 and an <img onerror>, so the flame graph is checked on
a name that came through the tracer. Cases that need Chromium, node or
the npm packages exit 77 (skipped) naming what is missing.
"""
import argparse
import collections
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CONSUMERS = os.path.join(HERE, "..", "consumers")
sys.path.insert(0, os.path.join(HERE, "..", "tools"))

import driver  # noqa: E402
import validate_json  # noqa: E402

CASES = driver.Cases()
SKIP_STATUS = 77
FLAME_WIDTH, FLAME_ROW = 1100, 18  # reporter/html.c
HOSTILE_PARTS = ("</script><script>window.pwned=1</script>",
                 "<img src=x onerror=\"window.pwned=2\">",
                 "\"double\" 'single' `back` &amp; &lt;")


class Skip(Exception):
    """The case cannot run here; the message says why."""


def visible(text):
    """How the page shows a report string: control characters other than
    tab and newline (and DEL, and the C1 controls) as `\\u001b`."""
    return re.sub(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]",
                  lambda m: "\\u%04x" % ord(m.group(0)), text)


def require_node_package(package):
    if not shutil.which("node"):
        raise Skip("node is not installed")
    if not os.path.exists(os.path.join(CONSUMERS, "node_modules", package,
                                       "package.json")):
        raise Skip("the npm package %s is not installed in tests/consumers "
                   "(scripts/install-npm-deps.sh installs it)" % package)


def require_browser():
    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    if not os.access(chromium, os.X_OK):
        raise Skip("Chromium is not installed at %s (scripts/install-deps.sh "
                   "installs Debian's chromium)" % chromium)
    require_node_package("playwright-core")


def node(script, *arguments):
    process = subprocess.run(["node", os.path.join(CONSUMERS, script)]
                             + list(arguments), capture_output=True,
                             timeout=240 * driver.wait_scale())
    if process.returncode != 0:
        raise AssertionError("%s failed (%d): %s" % (
            script, process.returncode, process.stderr.decode(errors="replace")))
    return json.loads(process.stdout)


class Tags(html.parser.HTMLParser):
    """The elements of a page, and the text of each test's id and of the
    embedded data."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.elements = []
        self.attributes = []
        self.ids = []
        self.data = ""
        self.inside = None

    def handle_starttag(self, tag, attrs):
        self.elements.append(tag)
        self.attributes.extend(name for name, _ in attrs)
        classes = dict(attrs).get("class") or ""
        if tag == "span" and classes == "id":
            self.inside = "id"
            self.ids.append("")
        elif tag == "script" and dict(attrs).get("id") == "tattle-data":
            self.inside = "data"

    def handle_endtag(self, tag):
        if tag in ("span", "script"):
            self.inside = None

    def handle_data(self, data):
        if self.inside == "id":
            self.ids[-1] += data
        elif self.inside == "data":
            self.data += data


class Case(driver.Checks):
    def __init__(self, options):
        super().__init__("tattle-html-")
        self.options = options

    def run(self, binary, arguments):
        directory = self.new_dir()
        process = subprocess.run([binary] + arguments, cwd=directory,
                                 capture_output=True,
                                 timeout=300 * driver.wait_scale())
        return directory, process

    def report(self, binary):
        """Runs BINARY with --json and --html; (directory, JSON report)."""
        directory, process = self.run(binary, ["--json", "report.json",
                                               "--html", "report.html"])
        self.require(process.returncode == 1, "the run fails as designed "
                     "(status %d): %s" % (process.returncode, process.stderr[-400:]))
        path = os.path.join(directory, "report.json")
        problems = validate_json.check_file(path, kind="report", complete=True)
        self.require(not problems, "the JSON report is valid: %s" % problems[:3])
        with open(path, encoding="utf-8") as f:
            return directory, json.load(f)

    def artifacts(self, name):
        path = os.path.join(self.options.artifacts, name)
        shutil.rmtree(path, ignore_errors=True)
        os.makedirs(path)
        return path


def matched_messages(trace):
    """The arrows the diagram must draw for delivered messages, counted
    here independently of the C code: one per receive of a captured
    message whose send (named by its "match") is in the trace, one per
    send no receive names whose own "match" names a receive in the trace
    (a receive that took several sends' bytes names only the first), then
    each send joined to a later receive without "match" of the same
    message (the same mailbox, label and payload), each receive taken
    once."""
    events = trace.get("events", [])
    sends = {e["seq"] for e in events if e["kind"] == "send"}
    recvs = {e["seq"] for e in events if e["kind"] == "recv"}
    count = sum(1 for e in events
                if e["kind"] == "recv" and e.get("match") in sends)
    taken = set()
    for i, send in enumerate(events):
        if send["kind"] != "send" or any(
                e["kind"] == "recv" and e.get("match") == send["seq"]
                for e in events):
            continue
        if send.get("match") in recvs:
            count += 1
            continue
        for j in range(i + 1, min(len(events), i + 4096)):
            recv = events[j]
            if (j not in taken and recv["kind"] == "recv"
                    and "match" not in recv
                    and recv.get("from") == send.get("to")
                    and recv.get("label") == send.get("label")
                    and recv.get("msg") == send.get("msg")):
                taken.add(j)
                count += 1
                break
    return count


@CASES("html_report_escapes_hostile_strings")
def html_report_escapes_hostile_strings(c):
    """The page as a document: only the reporter's own elements (no <img>,
    no <iframe>, three <script> elements: the passed tests' deferred
    details, the data and the script) and no
    event-handler attribute, whatever the tests' strings held; every test
    id shown as the text it is; the embedded data a JSON document that
    reads back the failed ids; a Content-Security-Policy forbidding every
    fetch and no URL but the SVG namespace; and `tattle convert --to html`
    of the JSON report writes the same page."""
    directory, report = c.report(c.options.fixture)
    with open(os.path.join(directory, "report.html"), "rb") as f:
        page = f.read()
    c.require(page.startswith(b"<!DOCTYPE html>"), "the page is HTML")
    text = page.decode("utf-8")  # raises on invalid UTF-8
    tags = Tags()
    tags.feed(text)
    tags.close()
    c.expect_eq(sorted(set(tags.elements) & {"img", "iframe", "object", "embed",
                                             "link", "base", "meta", "script"}),
                ["meta", "script"], "elements that could fetch or run")
    c.expect_eq(tags.elements.count("script"), 3, "<script> elements")
    c.expect(not [a for a in tags.attributes if a.startswith("on")],
             "no event-handler attribute")
    c.expect_eq(tags.ids, [visible(t["id"]) for t in report["tests"]],
                "test ids shown as text")
    for part in HOSTILE_PARTS:
        c.expect(any(part in i for i in tags.ids),
                 "an id holding %r is shown as it is" % part)
    data = json.loads(tags.data)
    failed = [t["id"] for t in report["tests"]
              if t["state"] in ("failed", "invalid")]
    c.expect_eq(data["failed"], failed, "the embedded data's failed ids")
    c.expect_eq(data["summary"]["total"], report["summary"]["total"],
                "the embedded summary")
    block = re.search(r'<script type="text/x-tattle-deferred" '
                      r'id="tattle-deferred">(.*?)</script>', text, re.S)
    c.require(block, "the passed tests' deferred details are in one block")
    rows = text[:block.start()]
    c.expect("a quiet pass" in block.group(1) and "a quiet pass" not in rows,
             "a passed test's output is deferred, not in the page's rows")
    c.expect("stdout &lt;/script&gt;&lt;script&gt;" in rows,
             "a failed test's output is in the page's rows")
    c.expect("default-src 'none'" in text, "the CSP forbids every fetch")
    urls = set(re.findall(r"(?:https?|ftp)://[^\s\"'<>]*", text))
    c.expect_eq(urls, {"http://www.w3.org/2000/svg"}, "URLs in the page")
    converted = os.path.join(directory, "converted.html")
    process = subprocess.run([c.options.tattle, "convert", "report.json",
                              "--to", "html", "-o", converted], cwd=directory,
                             capture_output=True, timeout=60)
    c.expect_eq(process.returncode, 0, "tattle convert --to html")
    with open(converted, "rb") as f:
        c.expect(f.read() == page, "convert writes the page the run wrote")


@CASES("html_report_unwritable_destination_is_an_error")
def html_report_unwritable_destination_is_an_error(c):
    """--html into a directory that does not exist: exit status 2, one
    line naming the file, and no report file; an existing report is left
    as it was by a run that cannot write it."""
    directory, process = c.run(c.options.fixture,
                               ["--html", "missing/report.html", "html/*"])
    c.expect_eq(process.returncode, 2, "exit status")
    err = process.stderr.decode(errors="replace")
    c.expect("missing/report.html" in err, "the error names the file: %r" % err)
    c.expect(not os.path.exists(os.path.join(directory, "missing")),
             "nothing created")


@CASES("html_report_in_chromium_hostile_strings_are_text")
def html_report_in_chromium_hostile_strings_are_text(c):
    """Headless Chromium opens the fixture's page: no script of a test ran
    (window.pwned unset), no element was injected (no <img>, no
    on-attribute), nothing was requested, no console error; the ids,
    messages, values and output read back as the JSON report's strings;
    the traced crash's diagram has its lifelines' hostile names, its
    pending mailbox contents and the crash on it."""
    directory, report = c.report(c.options.fixture)
    page = node("check_html_page.mjs", os.path.join(directory, "report.html"),
                c.artifacts("hostile"), "hostile", "a quiet pass")
    c.expect(page["ready"], "the page's script ran to its end")
    c.expect_eq(page["requests"], [], "requests made")
    c.expect_eq(page["console_errors"] + page["page_errors"], [], "errors")
    c.expect_eq(page["pwned"], None, "no test string ran as script")
    at_load = page["at_load"]
    c.expect(at_load["open"] >= 1 and at_load["toggled"] >= at_load["open"],
             "failed tests open at load, each toggled: %s" % at_load)
    c.expect_eq(at_load["unpacked"], 0,
                "opening the failed tests at load parses no deferred detail")
    c.expect_eq(page["unpacked_after_search"], 1,
                "the text filter parses the deferred details once")
    c.expect_eq(page["injected"], {"img": 0, "iframe": 0, "object": 0,
                                   "embed": 0, "script": 3, "json_script": 1,
                                   "on_attributes": 0}, "elements")
    shown = {t["id"]: t for t in page["tests"]}
    c.expect_eq(list(shown), [visible(t["id"]) for t in report["tests"]],
                "ids as text")
    by_id = {t["id"]: t for t in report["tests"]}
    hostile = shown["html/hostile_failure"]
    failures = by_id["html/hostile_failure"]["failures"]
    c.expect_eq(hostile["messages"], [visible(f["message"]) for f in failures],
                "failure messages as text")
    c.expect(visible(failures[0]["assertion"]["left"]) in hostile["values"],
             "the left value as text")
    c.expect(any(visible(by_id["html/hostile_failure"]["output"]["stdout"]) == o
                 for o in hostile["output"]), "stdout as text")
    crash = shown["html/traced_crash"]
    c.expect(crash["svg"], "the traced crash has its diagram")
    c.expect(any("boss </script>" in t for t in crash["svg_text"]),
             "an actor named with </script> shown as text: %s" % crash["svg_text"][:4])
    c.expect(any(t.startswith("crash: SIGSEGV") for t in crash["ending"]),
             "the crash marked on the diagram: %s" % crash["ending"])
    c.expect(any("<img src=x" in t for t in crash["pending"]),
             "the pending message shown as text: %s" % crash["pending"])
    c.expect_eq(crash["arrows"]["matched"],
                matched_messages(by_id["html/traced_crash"]["trace"]),
                "arrows of matched messages")
    c.expect(crash["arrows"]["unmatched"] >= 1, "the lost send is marked")
    tagged = sorted(visible(t["id"]) for t in report["tests"]
                    if "hostile" in t.get("tags", {}))
    c.expect_eq(sorted(page["tag_filter"]["visible"]), tagged,
                "filtering to the tag `hostile`")
    passed = [t for t in report["tests"] if t["state"] == "passed"]
    c.expect_eq(sorted(page["search"]["deferred"]),
                sorted(visible(t["id"]) for t in passed),
                "the passed tests' details wait to be rendered")
    quiet = by_id["html/passes_with_tags"]
    c.expect_eq(page["search"]["visible"], ["html/passes_with_tags"],
                "the text filter finds a passed test by its deferred output")
    opened = page.get("opened") or {}
    c.expect_eq(opened.get("id"), "html/passes_with_tags", "the test opened")
    c.expect(not opened.get("deferred_after"), "opening renders its details")
    c.expect_eq(opened.get("output"), [quiet["output"]["stdout"]],
                "its output, rendered on opening")
    c.expect_eq(opened.get("rerun"), quiet["rerun"], "its rerun command")
    c.expect(opened.get("copy_shown"), "its copy button works")
    keyboard = page.get("keyboard_opened") or {}
    c.expect(keyboard.get("focusable"), "a passed test's row is a Tab stop")
    c.expect(keyboard.get("open") and keyboard.get("rendered"),
             "Enter opens a passed test's row and renders its details: %s"
             % keyboard)


@CASES("html_report_in_chromium_blocks_of_tests_filter_whole")
def html_report_in_chromium_blocks_of_tests_filter_whole(c):
    """A report of 250 results (the fixture's, its passed tests repeated
    under new names, one failure tagged `lone`) is drawn in blocks of 100
    tests: every test is on the page once, in the report's order, in
    blocks of 100, 100 and 50; filtering to the tag `lone` leaves that
    test alone, and every block without it hidden."""
    directory, report = c.report(c.options.fixture)
    passed = [t for t in report["tests"] if t["state"] == "passed"]
    failed = [t for t in report["tests"] if t["state"] == "failed"]
    c.require(passed and failed, "the fixture has passed and failed tests")
    tests = []
    while len(tests) < 249:
        copy = json.loads(json.dumps(passed[len(tests) % len(passed)]))
        copy["name"] = "copy_%03d" % len(tests)
        copy["id"] = "%s/%s" % (copy["suite"], copy["name"])
        copy["tags"] = {}
        tests.append(copy)
    lone = json.loads(json.dumps(failed[0]))
    lone["tags"] = {"lone": True}
    tests.insert(160, lone)
    report["tests"] = tests
    summary = report["summary"]
    summary.update(total=250, passed=249, failed=1, skipped=0)
    for key in ("errored", "timed_out", "crashed", "flaky"):
        if key in summary:
            summary[key] = 0
    page = node("check_html_page.mjs",
                convert_to_html(c, report, directory, "blocks"),
                c.artifacts("blocks"), "lone")
    c.expect_eq(page["console_errors"] + page["page_errors"], [], "errors")
    c.expect_eq([t["id"] for t in page["tests"]],
                [visible(t["id"]) for t in tests], "every test, in order")
    blocks = page["tag_filter"]["blocks"]
    c.expect_eq(blocks["sizes"], [100, 100, 50], "tests per block")
    c.expect_eq(page["tag_filter"]["visible"], [visible(lone["id"])],
                "filtering to the tag `lone`")
    c.expect_eq(blocks["hidden"], [True, False, True],
                "the blocks without the tagged test are hidden")


DEFERRED_HOSTILE = "html/passes_with_hostile_output"  # fixture_html.c


def deferred_block(text):
    """The inert block of the passed tests' deferred details, as the HTML
    tokenizer ends it: at the first `</script`, whatever came before."""
    opening = '<script type="text/x-tattle-deferred" id="tattle-deferred">'
    start = text.index(opening) + len(opening)
    return text[start:text.index("</script", start)]


@CASES("html_report_deferred_block_holds_hostile_output_inert")
def html_report_deferred_block_holds_hostile_output_inert(c):
    """A passed test printed `</script>`, `<!--`, `<script>` and invalid
    UTF-8: its details are in the inert block, whose text holds none of
    them raw (a `<!--<script>` there would make the tokenizer pass the
    block's end), and the block runs to the details of every passed test
    (its end is the reporter's, not the test's)."""
    directory, report = c.report(c.options.fixture)
    with open(os.path.join(directory, "report.html"), "rb") as f:
        text = f.read().decode("utf-8")
    passed = [t["id"] for t in report["tests"] if t["state"] == "passed"]
    c.require(DEFERRED_HOSTILE in passed, "the fixture's hostile pass passed")
    block = deferred_block(text)
    for raw in ("<!--", "<script", "-->"):
        c.expect(raw not in block, "no raw %r in the block" % raw)
    c.expect("deferred-hostile &lt;/script&gt;&lt;script&gt;" in block,
             "the hostile output is in the block, escaped")
    c.expect_eq(block.count("<div data-test="), len(passed),
                "the block holds every passed test's details")
    c.expect(text.rstrip().endswith("</html>"), "the page is whole")


@CASES("html_report_in_chromium_deferred_hostile_output_is_text")
def html_report_in_chromium_deferred_hostile_output_is_text(c):
    """In headless Chromium, the passed test whose output holds
    `</script>`, `<!--`, `<script>` and invalid UTF-8: found by the text
    filter while its details still wait in the inert block, opened, its
    output rendered as the JSON report's text; nothing ran (window.pwned
    unset, three <script> elements), no console error, and every test
    still on the page after it."""
    directory, report = c.report(c.options.fixture)
    page = node("check_html_page.mjs", os.path.join(directory, "report.html"),
                c.artifacts("deferred-hostile"), "", "deferred-hostile")
    c.expect(page["ready"], "the page's script ran to its end")
    c.expect_eq(page["console_errors"] + page["page_errors"], [], "errors")
    c.expect_eq(page["pwned"], None, "no test string ran as script")
    c.expect_eq(page["injected"]["script"], 3, "<script> elements")
    c.expect_eq([t["id"] for t in page["tests"]],
                [visible(t["id"]) for t in report["tests"]],
                "every test on the page, in order")
    c.expect(DEFERRED_HOSTILE in page["search"]["deferred"],
             "its details waited in the block")
    c.expect_eq(page["search"]["visible"], [DEFERRED_HOSTILE],
                "the text filter finds it by its deferred output")
    test = next(t for t in report["tests"] if t["id"] == DEFERRED_HOSTILE)
    opened = page.get("opened") or {}
    c.expect_eq(opened.get("id"), DEFERRED_HOSTILE, "the test opened")
    c.expect(not opened.get("deferred_after"), "opening renders its details")
    c.expect_eq(opened.get("output"),
                [visible(test["output"]["stdout"]),
                 visible(test["output"]["stderr"])],
                "its output, rendered as text")


@CASES("html_report_in_chromium_examples", needs=("examples",))
def html_report_in_chromium_examples(c):
    """The examples' report in headless Chromium: every failed test is
    there and open, each traced failure has its diagram with one arrow per
    matched message (counted from the JSON report), filtering to the tag
    trace_messages leaves exactly those tests, the page makes no request
    and logs no error, the keyboard reaches the filters and the tests, a
    reader who prefers dark gets the dark scheme; the screenshots stay in
    the build tree."""
    directory, report = c.report(c.options.examples)
    page = node("check_html_page.mjs", os.path.join(directory, "report.html"),
                c.artifacts("examples"), "trace_messages")
    c.expect_eq(page["requests"], [], "requests made")
    c.expect_eq(page["console_errors"] + page["page_errors"], [], "errors")
    shown = {t["id"]: t for t in page["tests"]}
    failed = [t for t in report["tests"] if t["state"] == "failed"]
    c.require(failed, "the examples have failures")
    for test in failed:
        got = shown.get(test["id"])
        if not c.expect(got is not None, "%s is on the page" % test["id"]):
            continue
        c.expect(got["open"], "%s is open" % test["id"])
        c.expect_eq(len(got["messages"]), len(test["failures"]),
                    "%s: failures" % test["id"])
        c.expect_eq(got["rerun"], test["rerun"], "%s: rerun" % test["id"])
        if test.get("trace"):
            c.expect(got["svg"], "%s has its diagram" % test["id"])
            c.expect_eq(got["arrows"]["matched"],
                        matched_messages(test["trace"]),
                        "%s: arrows of matched messages" % test["id"])
    traced = sorted(t["id"] for t in report["tests"]
                    if "trace_messages" in t.get("tags", {}))
    c.expect_eq(sorted(page["tag_filter"]["visible"]), traced,
                "filtering to the tag trace_messages")
    c.expect("select" in page["focused"] and "summary" in page["focused"],
             "the keyboard reaches the filters and the tests: %s"
             % page["focused"])
    c.expect_eq(page["dark_background"], "rgb(13, 17, 23)",
                "the dark colour scheme when the reader prefers it")
    for shot in page["screenshots"]:
        c.expect(os.path.getsize(shot) > 1000, "screenshot %s" % shot)


@CASES("cli_show_mermaid_parses")
def cli_show_mermaid_parses(c):
    """`tattle show R.json ID --mermaid` of every test with a trace (the
    fixture's hostile names and the examples' traces) is a
    sequenceDiagram Mermaid's own parser (npm's mermaid) accepts, and a
    crash is noted on one actor, not across the diagram."""
    binaries = [c.options.fixture] + ([c.options.examples]
                                      if c.options.examples else [])
    files = []
    for binary in binaries:
        directory, report = c.report(binary)
        for test in report["tests"]:
            process = subprocess.run(
                [c.options.tattle, "show", "report.json", test["id"],
                 "--mermaid"], cwd=directory, capture_output=True, timeout=60)
            c.expect_eq(process.returncode, 0, "show %r" % test["id"])
            if not test.get("trace"):
                continue
            if test["id"] == "html/traced_crash":
                notes = [l for l in process.stdout.decode().split("\n")
                         if l.strip().startswith("Note over") and "crash" in l]
                c.expect(len(notes) == 1 and "," not in notes[0].split(":")[0],
                         "the crash is one note on the dying actor: %s" % notes)
            path = os.path.join(directory, "diagram-%d.mmd" % len(files))
            with open(path, "wb") as f:
                f.write(process.stdout)
            files.append(path)
    c.require(len(files) >= 2, "diagrams to parse: %d" % len(files))
    for result in node("mermaid_parse.mjs", *files):
        c.expect(result["ok"] and result["type"] == "sequence",
                 "%s parses as a sequence diagram: %s" % (
                     result["file"], result.get("error")))


# ---- The flame graph of `trace_calls` tests ------------------------------

FLAME_HOSTILE = HOSTILE_PARTS[0] + " " + HOSTILE_PARTS[1]


class Flames(html.parser.HTMLParser):
    """The flame graphs of a page by test id: each one's caption, total
    time and frames (class, title, rect x/y/width and label)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.by_test = {}
        self.test = None
        self.figure = None
        self.frame = None
        self.inside = None
        self.stack = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        classes = (attributes.get("class") or "").split()
        if tag == "span" and classes == ["id"]:
            self.inside, self.test = "id", ""
        elif tag == "figure" and "flame" in classes:
            self.figure = {"caption": "", "frames": [], "total_us": None}
            self.by_test[self.test] = self.figure
        elif self.figure is not None:
            if tag == "figcaption":
                self.inside = "caption"
            elif tag == "svg":
                self.figure["total_us"] = int(attributes["data-total-us"])
                self.figure["height"] = float(attributes["height"])
            elif tag == "g" and "frame" in classes:
                self.frame = {"classes": classes, "title": "", "label": None}
                self.figure["frames"].append(self.frame)
            elif tag == "title" and self.frame is not None:
                self.inside = "title"
            elif tag == "text" and self.frame is not None:
                self.inside, self.frame["label"] = "label", ""
            elif tag == "rect" and self.frame is not None:
                for name in ("x", "y", "width"):
                    self.frame[name] = float(attributes[name])
            elif tag == "button" and self.inside == "caption":
                self.inside = None

    def handle_endtag(self, tag):
        if tag in ("span", "title", "text") and self.inside != "caption":
            self.inside = None
        elif tag == "figcaption":
            self.inside = None
        elif tag == "g":
            self.frame = None
        elif tag == "figure":
            self.figure = None

    def handle_data(self, data):
        if self.inside == "id":
            self.test += data
        elif self.inside == "caption":
            self.figure["caption"] += data
        elif self.inside == "title":
            self.frame["title"] += data
        elif self.inside == "label":
            self.frame["label"] += data


def read_flames(path):
    parser = Flames()
    with open(path, encoding="utf-8") as f:
        parser.feed(f.read())
    parser.close()
    return parser.by_test


def flame_paths(c, test_id, figure):
    """{(thread, function, ...): [frame, ...]} of a drawn flame graph: a
    frame's path is read from the picture alone, the frame of the row
    above whose span holds it, up to the thread's frame on top."""
    rows = collections.defaultdict(list)
    for frame in figure["frames"]:
        frame["name"] = frame["title"].split("\n")[0]
        frame["total_us"] = int(re.search(r"total (\d+) \u00b5s",
                                          frame["title"]).group(1))
        rows[round(frame["y"] / FLAME_ROW)].append(frame)
    paths = collections.defaultdict(list)
    for row in sorted(rows):
        for frame in rows[row]:
            if row == 0:
                c.expect("thread" in frame["classes"],
                         "%s: the top row holds threads" % test_id)
                frame["path"] = (frame["name"],)
            else:
                holders = [p for p in rows.get(row - 1, [])
                           if p["x"] - 0.02 <= frame["x"] and frame["x"]
                           + frame["width"] <= p["x"] + p["width"] + 0.02]
                if not c.expect(len(holders) == 1, "%s: %r sits under one "
                                "frame, not %d" % (test_id, frame["name"],
                                                   len(holders))):
                    continue
                frame["path"] = holders[0]["path"] + (frame["name"],)
            paths[frame["path"]].append(frame)
    return paths


def folded_totals(path, test_id):
    """{(function, ...): total us} of one test in a collapsed-stacks
    file: each stack's weight added to it and every stack it lies in."""
    totals = collections.Counter()
    with open(path, encoding="utf-8") as f:
        for line in f:
            stack, weight = line.rstrip("\n").rsplit(" ", 1)
            frames = stack.split(";")
            if frames[0] != test_id:
                continue
            for depth in range(1, len(frames)):
                totals[tuple(frames[1:depth + 1])] += int(weight)
    return totals


def craft_calls(report, test_id, calls):
    """Replaces the calls of `test_id` in a report by `calls`, (t_us,
    actor, kind, function, file) each."""
    trace = next(t for t in report["tests"] if t["id"] == test_id)["trace"]
    template = trace["calls"][0]
    trace["calls"] = [dict(template, seq=number, t_us=t_us, actor=actor,
                           kind=kind, function=function, file=file, line=7,
                           depth=0)
                      for number, (t_us, actor, kind, function, file)
                      in enumerate(calls, 1)]
    trace["calls_recorded"] = len(calls)
    trace["call_cap"] = max(trace["call_cap"], len(calls))
    trace["stacks"] = []


def convert_to_html(c, report, directory, name):
    """The page `tattle convert --to html` writes from `report`."""
    crafted = os.path.join(directory, name + ".json")
    with open(crafted, "w", encoding="utf-8") as f:
        json.dump(report, f)
    page = os.path.join(directory, name + ".html")
    process = subprocess.run([c.options.tattle, "convert", crafted, "--to",
                              "html", "-o", page], cwd=directory,
                             capture_output=True, timeout=120 * driver.wait_scale())
    c.require(process.returncode == 0, "tattle convert --to html: %r"
              % process.stderr[-2000:])
    return page


@CASES("html_flame_graph_matches_folded_stacks")
def html_flame_graph_matches_folded_stacks(c):
    """profile_fixture's `trace_calls` tests (one thread; two threads and
    a mailbox; two threads named alike) run with --html and --flamegraph:
    each has a flame graph whose frames, read from the picture alone
    (a frame under the frame whose span holds it, threads on top), are
    the stacks of the collapsed-stacks file with the same times (the file
    adds the threads together, the picture draws them apart); each frame
    is as wide as its share of the test's time; its threads are the
    report's actors. The HTML fixture's tests, one traced without calls,
    have no flame graph."""
    process, report, directory = c.run_for_report(
        [c.options.profile, "--html", "report.html", "--flamegraph",
         "report.folded"])
    c.expect_eq(process.returncode, 1, "exit status (profile/threads fails "
                "on purpose)")
    flames = read_flames(os.path.join(directory, "report.html"))
    traced = [t for t in report["tests"] if (t.get("trace") or {}).get("calls")]
    c.require(len(traced) >= 3, "the profile tests carry calls")
    for test in traced:
        test_id = test["id"]
        figure = flames.get(test_id)
        if not c.expect(figure is not None, "%s has a flame graph" % test_id):
            continue
        total = figure["total_us"]
        paths = flame_paths(c, test_id, figure)
        drawn = collections.Counter()
        threads = set()
        for path, frames in paths.items():
            for frame in frames:
                c.expect(abs(frame["width"] - FLAME_WIDTH * frame["total_us"]
                             / total) < 0.02, "%s: %r is %.2f wide for %d of "
                         "%d us" % (test_id, path, frame["width"],
                                    frame["total_us"], total))
            if len(path) == 1:
                threads.add(path[0])
                continue
            drawn[path[1:]] += sum(f["total_us"] for f in frames)
        folded = folded_totals(os.path.join(directory, "report.folded"),
                               test_id)
        c.expect_eq(total, sum(w for p, w in folded.items() if len(p) == 1),
                    "%s: the time in calls" % test_id)
        wide = {p: w for p, w in folded.items() if w >= total * 0.002}
        c.expect_eq({p: w for p, w in drawn.items() if p in wide}, wide,
                    "%s: the frames of at least 0.2%% of the time" % test_id)
        c.expect(set(drawn) <= set(folded), "%s: frames not in the folded "
                 "stacks: %s" % (test_id, set(drawn) - set(folded)))
        actors = {call["actor"] for call in test["trace"]["calls"]}
        c.expect(threads <= actors and len(threads) >= 1,
                 "%s: threads %s of the actors %s" % (test_id, threads, actors))
    c.expect(len([p for p in flame_paths(c, "profile/threads",
                                         flames["profile/threads"])
                  if len(p) == 1]) == 2, "profile/threads draws two threads")
    html_directory, _ = c.report(c.options.fixture)
    c.expect_eq(read_flames(os.path.join(html_directory, "report.html")), {},
                "flame graphs of tests without calls")


@CASES("html_flame_graph_hostile_names_are_text")
def html_flame_graph_hostile_names_are_text(c):
    """A report whose calls name a function, its file and its thread with
    `</script>`, an `<img onerror>`, quotes and control bytes: the page
    holds only its own elements (three scripts, no <img>, no on-attribute)
    and the frames' titles and labels read back the names as text."""
    _, report, directory = c.run_for_report([c.options.profile,
                                                    "--trace-passed"])
    function = FLAME_HOSTILE + " \x01 fn"
    calls = [(0, FLAME_HOSTILE, "enter", function, HOSTILE_PARTS[2]),
             (50, FLAME_HOSTILE, "enter", "inner " + HOSTILE_PARTS[1], None),
             (80, FLAME_HOSTILE, "exit", "inner " + HOSTILE_PARTS[1], None),
             (100, FLAME_HOSTILE, "exit", function, HOSTILE_PARTS[2])]
    craft_calls(report, "profile/weighted", calls)
    page = convert_to_html(c, report, directory, "hostile")
    with open(page, encoding="utf-8") as f:
        text = f.read()
    tags = Tags()
    tags.feed(text)
    tags.close()
    c.expect_eq(sorted(set(tags.elements) & {"img", "iframe", "object", "embed",
                                             "script"}), ["script"],
                "elements that could fetch or run")
    c.expect_eq(tags.elements.count("script"), 3, "<script> elements")
    c.expect(not [a for a in tags.attributes if a.startswith("on")],
             "no event-handler attribute")
    figure = read_flames(page).get("profile/weighted")
    c.require(figure, "the crafted test has a flame graph")
    titles = [f["title"] for f in figure["frames"]]
    c.expect_eq([t.split("\n")[0] for t in titles],
                [FLAME_HOSTILE, visible(function),
                 "inner " + HOSTILE_PARTS[1]], "the frames' names as text")
    c.expect(titles[1].split("\n")[1] == HOSTILE_PARTS[2] + ":7",
             "the place as text: %r" % titles[1])
    c.expect(any(f["label"] and f["label"].startswith(FLAME_HOSTILE[:20])
                 for f in figure["frames"]), "a label as text")


@CASES("html_flame_graph_bounded")
def html_flame_graph_bounded(c):
    """One thread recursing 5,000 calls deep with its time at the bottom,
    then calling 100,000 distinct functions of a microsecond each; another
    calling 500 functions each 10 calls deep, each chain 0.13% of the
    time: the test's part of the page stays small (2,000 frames at most,
    100 calls deep at most, none narrower than 0.1% of the width), and
    the caption counts the frames left out."""
    _, report, directory = c.run_for_report([c.options.profile,
                                                    "--trace-passed"])
    depth, leaves, fans, chain = 5000, 100000, 500, 10
    calls = [(t, "main", "enter", "recurse", None) for t in range(depth)]
    start = depth + 1000000
    calls += [(start, "main", "exit", "recurse", None) for _ in range(depth)]
    for leaf in range(leaves):
        calls.append((start + leaf, "main", "enter", "leaf%d" % leaf, None))
        calls.append((start + leaf + 1, "main", "exit", "leaf%d" % leaf, None))
    for fan in range(fans):
        names = ["fan%d.%d" % (fan, k) for k in range(chain)]
        calls += [(fan * 4000, "fan", "enter", n, None) for n in names]
        calls += [((fan + 1) * 4000, "fan", "exit", n, None)
                  for n in reversed(names)]
    craft_calls(report, "profile/weighted", calls)
    page = convert_to_html(c, report, directory, "deep")
    with open(page, encoding="utf-8") as f:
        text = f.read()
    start = text.index('<span class="id">profile/weighted</span>')
    section = re.search(r'<figure class="flame">.*?</figure>',
                        text[start:], re.S).group(0)
    c.expect(len(section) < 600000, "the flame graph takes %d bytes"
             % len(section))
    figure = read_flames(page)["profile/weighted"]
    frames = [f for f in figure["frames"] if "thread" not in f["classes"]]
    c.expect_eq(len(figure["frames"]) - len(frames), 2, "threads drawn")
    c.expect_eq(len(frames), 2000, "frames drawn")
    c.expect_eq(max(f["y"] for f in frames), 100 * FLAME_ROW,
                "the deepest row drawn")
    c.expect(min(f["width"] for f in frames) >= FLAME_WIDTH * 0.001 - 0.01,
             "the narrowest frame: %.3f" % min(f["width"] for f in frames))
    nodes = depth + leaves + fans * chain
    match = re.search(r"(\d+) of (\d+) frames not drawn", figure["caption"])
    if c.expect(match, "the caption says what was left out: %r"
                % figure["caption"]):
        c.expect_eq((int(match.group(1)), int(match.group(2))),
                    (nodes - len(frames), nodes), "frames not drawn, of all")


@CASES("html_flame_graph_stays_inside_with_hostile_times")
def html_flame_graph_stays_inside_with_hostile_times(c):
    """Two threads each in calls for 2^64-1 us (their sum saturates) and a
    function named with 2,000 characters: every frame lies inside the
    picture and under the frame above it, and a tooltip keeps at most 500
    characters of a name."""
    _, report, directory = c.run_for_report([c.options.profile,
                                                    "--trace-passed"])
    most = 2**64 - 1
    long_name = "n" * 2000
    calls = [(0, "one", "enter", "outer", None),
             (0, "one", "enter", long_name, None),
             (most // 2, "one", "exit", long_name, None),
             (most // 2, "one", "enter", "second", None),
             (most, "one", "exit", "second", None),
             (most, "one", "exit", "outer", None),
             (0, "two", "enter", "other", None),
             (most, "two", "exit", "other", None)]
    craft_calls(report, "profile/weighted", calls)
    page = convert_to_html(c, report, directory, "saturated")
    figure = read_flames(page).get("profile/weighted")
    c.require(figure and figure["frames"], "the crafted test has a flame "
              "graph")
    for frame in figure["frames"]:
        c.expect(frame["x"] >= 0 and frame["x"] + frame["width"]
                 <= FLAME_WIDTH + 0.02, "%r lies outside the picture: x %.2f "
                 "width %.2f" % (frame["title"][:40], frame["x"],
                                 frame["width"]))
    paths = flame_paths(c, "profile/weighted", figure)
    c.expect(("one", "outer", "second") in paths,
             "the second callee under its caller: %r" % sorted(
                 p[:3] for p in paths))
    names = [f["title"].split("\n")[0] for f in figure["frames"]]
    c.expect("n" * 500 + "\u2026" in names,
             "the long name cut to 500 characters: %r" % [
                 n[:20] + "...(%d)" % len(n) for n in names])


def flame_in_chromium(c, page, artifacts, test_id):
    """check_html_flame.mjs's reading of `page`, zooming in `test_id`'s
    flame graph, after checking that nothing was requested, nothing went
    wrong, no test string ran as script and no <img> was added."""
    result = node("check_html_flame.mjs", page, c.artifacts(artifacts),
                  test_id)
    c.expect_eq(result["requests"], [], "requests made")
    c.expect_eq(result["console_errors"] + result["page_errors"], [], "errors")
    c.expect_eq(result["pwned"], None, "no test string ran as script")
    c.expect_eq(result["img"], 0, "no <img> added")
    return result


@CASES("html_flame_graph_in_chromium")
def html_flame_graph_in_chromium(c):
    """The profile report with one test's calls named with hostile
    strings, in headless Chromium: no test string ran or added an element,
    nothing was requested, no error; a click on a frame with callers and
    callees zooms to it (it and its callers span the width, its callees
    fill it in proportion, every frame related to it by neither is
    hidden), the reset button restores every frame, Tab reaches a frame
    and Enter zooms to it; screenshots of a flame graph in the light and
    dark schemes stay in the build tree."""
    _, report, directory = c.run_for_report([c.options.profile,
                                                    "--trace-passed"])
    calls = [(0, FLAME_HOSTILE, "enter", FLAME_HOSTILE, HOSTILE_PARTS[2]),
             (50, FLAME_HOSTILE, "exit", FLAME_HOSTILE, HOSTILE_PARTS[2])]
    craft_calls(report, "profile/weighted", calls)
    page = convert_to_html(c, report, directory, "flames")
    result = flame_in_chromium(c, page, "flame", "profile/threads")
    c.expect_eq(result["names"].get("profile/weighted"),
                [FLAME_HOSTILE, FLAME_HOSTILE], "the hostile names as text")
    zoom = result["zoom"]
    c.expect_eq(zoom["zoomed"], zoom["target"], "the figure says what it "
                "zoomed to")
    c.expect(abs(zoom["target_width"] - FLAME_WIDTH) < 0.5 and
             abs(zoom["target_x"]) < 0.5, "the frame spans the width: %s"
             % zoom)
    c.expect(zoom["callers"] >= 1 and zoom["callers_full"],
             "its callers stay drawn across the width: %s" % zoom)
    c.expect(zoom["callees"] >= 1 and zoom["callees_fill"],
             "its callees fill it, stretched with it: %s" % zoom)
    c.expect(zoom["unrelated"] >= 1 and zoom["unrelated_hidden"],
             "the frames neither calling it nor called by it are hidden: "
             "%s" % zoom)
    c.expect_eq(zoom["after_reset"], zoom["before"], "reset restores them")
    c.expect(zoom["keyboard_focus"], "Tab reaches a frame")
    c.expect(zoom["keyboard_zoomed"], "Enter zooms to the focused frame")
    c.expect_eq(result["dark_fill"] != result["light_fill"], True,
                "the frames change colour with the scheme: %s %s"
                % (result["light_fill"], result["dark_fill"]))
    for shot in result["screenshots"]:
        c.expect(os.path.getsize(shot) > 1000, "screenshot %s" % shot)


# fixture_html_calls.c's thread name, as the test passes it to
# tattle_actor_name(): two ill-formed bytes and an element.
HOSTILE_ACTOR = b"\xfe\xff<img src=x onerror=pwned=3>"


def hostile_thread_page(c):
    """Runs html_calls_fixture with --trace-passed and --html; (page
    path, the thread's name as a reader must see it: each ill-formed
    byte as U+FFFD)."""
    process, report, directory = c.run_for_report(
        [c.options.calls_fixture, "--trace-passed", "--html",
         "report.html"])
    c.require(process.returncode == 0, "the run passes (status %d): %r"
              % (process.returncode, process.stderr[-400:]))
    expected = visible(HOSTILE_ACTOR.decode("utf-8", errors="replace"))
    c.require(expected.startswith("\ufffd\ufffd<img"), "the expected name")
    actors = {call["actor"] for test in report["tests"]
              for call in (test.get("trace") or {}).get("calls", [])}
    c.expect_eq(actors, {expected}, "the JSON report's actor of the calls")
    return os.path.join(directory, "report.html"), expected


@CASES("html_flame_graph_thread_named_with_invalid_utf8_is_text")
def html_flame_graph_thread_named_with_invalid_utf8_is_text(c):
    """A `trace_calls` test names its thread with two ill-formed bytes
    and an <img onerror> (through the tracer, not a crafted report): the
    page is UTF-8 with no element but its own, and the flame graph's
    thread frame, read as a document, names the thread as text with
    U+FFFD for each ill-formed byte, its calls under it."""
    page, expected = hostile_thread_page(c)
    with open(page, "rb") as f:
        text = f.read().decode("utf-8")  # raises on invalid UTF-8
    tags = Tags()
    tags.feed(text)
    tags.close()
    c.expect_eq(sorted(set(tags.elements) & {"img", "iframe", "object",
                                             "embed", "script"}),
                ["script"], "elements that could fetch or run")
    c.expect(not [a for a in tags.attributes if a.startswith("on")],
             "no event-handler attribute")
    figure = read_flames(page).get("html_calls/hostile_thread")
    c.require(figure and figure["frames"], "the test has a flame graph")
    threads = [f["title"].split("\n")[0] for f in figure["frames"]
               if "thread" in f["classes"]]
    c.expect_eq(threads, [expected], "the thread's frame names it as text")
    paths = flame_paths(c, "html_calls/hostile_thread", figure)
    c.expect(any(p[0] == expected and p[-2:] == ("outer", "inner")
                 for p in paths), "outer and inner under the thread: %r"
             % sorted(paths))


@CASES("html_flame_graph_in_chromium_thread_named_with_invalid_utf8")
def html_flame_graph_in_chromium_thread_named_with_invalid_utf8(c):
    """The same page in headless Chromium: the thread's frame reads back
    the name with U+FFFD for each ill-formed byte, no <img> was added and
    no script ran, nothing was requested, no error."""
    page, expected = hostile_thread_page(c)
    result = flame_in_chromium(c, page, "flame-utf8",
                               "html_calls/hostile_thread")
    names = result["names"].get("html_calls/hostile_thread") or []
    c.expect(names[:1] == [expected], "the thread's frame as text: %r"
             % names[:3])


def main():
    CASES.list_if_asked()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("case", choices=sorted(CASES))
    parser.add_argument("--tattle", required=True)
    parser.add_argument("--fixture", required=True)
    parser.add_argument("--artifacts", required=True)
    parser.add_argument("--examples")
    parser.add_argument("--profile", required=True)
    parser.add_argument("--calls-fixture", required=True)
    options = parser.parse_args()
    for name in ("tattle", "fixture", "examples", "artifacts", "profile",
                 "calls_fixture"):
        if getattr(options, name):
            setattr(options, name, os.path.abspath(getattr(options, name)))
    try:
        if "chromium" in options.case:
            require_browser()
        if "mermaid" in options.case:
            require_node_package("mermaid")
    except Skip as reason:
        print("SKIPPED: %s" % reason)
        return SKIP_STATUS
    return driver.run_case(CASES[options.case], Case(options), options.case)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""End-to-end tests of message capture across exec through the runner.

Runs the trace_exec fixture (traced tests that start exec_helper, a
program that is not a tattle test, and talk to it over a pipe and a
socketpair) and `tattle run --trace -- exec_helper pair`, validates every
report and stream, and checks that the helper's side is in the test's
trace: a named actor, its sends and receives matched with the test's; that
a hand-down the environment gets wrong leaves the helper untraced and
working; that nothing is handed down outside traced tests; and that
reuse_helper's files, timers, signals and watches on numbers its pipes had
are no messages.

    test_exec_e2e.py CASE --exec BIN --helper BIN [--tattle TATTLE]

CASE is one behaviour, named by its CTest test (`--list` prints them).
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
sys.path.insert(0, HERE)
import driver  # noqa: E402
import test_capture_e2e as capture  # noqa: E402
import test_trace_e2e as e2e  # noqa: E402
from test_trace_e2e import check  # noqa: E402

CASES = driver.Cases()

# exec_exchange.h's bytes.
REQUEST, REPLY, BYE = "request:ping", "reply:pong", "bye"


def traced_test(args, test_id, extra_env=None):
    out = e2e.new_dir()
    run = e2e.Run(args.exec, "--trace-passed", test_id, cwd=out,
                  expect_status=0, extra_env=extra_env)
    test = run.test(test_id)
    check(test.get("state") == "passed", "%s passes: %s"
          % (test_id, test.get("failures")))
    trace = test.get("trace") or {"events": []}
    if check(test.get("trace") is not None, "%s has a trace" % test_id):
        e2e.trace_is_consistent(trace, test_id)
    return test, trace


def parties(trace):
    names = set()
    for e in trace["events"]:
        names.update(n for n in (e.get("from"), e.get("to")) if n)
    return names


def check_exchange(trace, client, server, where):
    """The exchange of exec_exchange.h, both sides recorded: each send of
    one end matched by the other end's receive of the same bytes."""
    events = [e for e in trace["events"]
              if server in (e.get("from"), e.get("to"))]
    by_seq = {e["seq"]: e for e in events}
    for msg, sender, receiver, label in ((REQUEST, client, server, "write"),
                                         (REPLY, server, client, "write"),
                                         (BYE, client, server, "write")):
        sends = [e for e in events if e["kind"] == "send" and e.get("msg") == msg]
        recvs = [e for e in events if e["kind"] == "recv" and e.get("msg") == msg]
        if not check(len(sends) == 1 and len(recvs) == 1,
                     "%s: one send and one recv of %r: %s"
                     % (where, msg, sends + recvs)):
            continue
        send, recv = sends[0], recvs[0]
        check(send.get("from") == sender and send.get("to") == receiver and
              send.get("label") == label,
              "%s: %r is a %s from %s to %s: %s"
              % (where, msg, label, sender, receiver, send))
        check(recv.get("from") == sender and recv.get("to") == receiver and
              recv.get("label") == "read",
              "%s: %r is read by %s from %s: %s"
              % (where, msg, receiver, sender, recv))
        check(recv.get("match") == send["seq"] and
              by_seq.get(recv.get("match")) is send,
              "%s: the read of %r matches its write (seq %d): %s"
              % (where, msg, send["seq"], recv))
    spawns = [e for e in events if e["kind"] == "spawn"
              and server in (e.get("from"), e.get("to"))]
    check(len(spawns) == 1, "%s: %s's start is one spawn event: %s"
          % (where, server, spawns))


@CASES("exec_e2e_spawned_helper_traced_both_sides")
def case_spawned_helper(args):
    """A traced test that starts exec_helper with posix_spawn: the helper
    is an actor named after its program, and the request over the pipe,
    the reply and the goodbye over the socketpair are matched pairs."""
    _, trace = traced_test(args, "exec/spawned_helper")
    check_exchange(trace, "main", "exec_helper", "exec/spawned_helper")


@CASES("exec_e2e_asan_built_helper_starts_and_is_traced")
def case_asan_helper(args):
    """A traced test that starts exec_helper built with -fsanitize=address:
    the preload library first in LD_PRELOAD does not stop it (ASan's
    link-order check is turned off in the hand-down), and it is traced."""
    asan = os.path.join(os.path.dirname(args.helper), "exec_helper_asan")
    if not os.access(asan, os.X_OK):
        print("SKIP: the compiler does not build -fsanitize=address programs")
        sys.exit(77)
    _, trace = traced_test(args, "exec/asan_helper")
    check_exchange(trace, "main", "exec_helper_asan", "exec/asan_helper")


@CASES("exec_e2e_system_helper_traced_through_the_shell")
def case_system_helper(args):
    """system() runs /bin/sh, which runs exec_helper: both record into the
    test's trace, and the helper's exchange with the test is matched."""
    _, trace = traced_test(args, "exec/system_helper")
    check("sh" in parties(trace) or "dash" in parties(trace),
          "the shell is an actor: %s" % sorted(parties(trace)))
    check_exchange(trace, "main", "exec_helper", "exec/system_helper")


@CASES("exec_e2e_preload_forgets_numbers_reused_by_fortified_open_and_others")
def case_reuse_helper(args):
    """reuse_helper, built fortified (it calls __open_2 and its forms) and
    started by a traced test, puts files, a timer, a signal and watches
    on numbers its pipes had (reused_numbers.h): through the preload
    library, its pipes' messages are all the trace holds of it."""
    helper = os.path.join(os.path.dirname(args.helper), "reuse_helper")
    capture.check_calls_fortified_opens(helper)
    _, trace = traced_test(args, "exec/reuse_helper")
    events = [e for e in trace["events"]
              if "reuse_helper" in (e.get("from"), e.get("to"))]
    check(all(e.get("from") == e.get("to") == "reuse_helper"
              for e in events if e["kind"] in ("send", "recv")),
          "the messages are the helper's own: %s" % events)
    capture.check_only_pipe_messages(events, 11, "exec/reuse_helper")
    labels = [e.get("label") for e in events if e["kind"] == "event"]
    check(labels.count("freopen") == 1,
          "freopen's close of the pipe's end is one event: %s" % labels)


@CASES("exec_e2e_hostile_hand_down_leaves_helper_untraced")
def case_hostile(args):
    """The same helper started with a hand-down that is wrong (a bad
    descriptor, a regular file, a wrong size, another generation, text
    that is no hand-down) does its exchange untraced; only the control
    started with the real one is in the trace."""
    _, trace = traced_test(args, "exec/hostile_hand_down")
    names = parties(trace)
    check("helper-control" in names,
          "the control is traced: %s" % sorted(names))
    check_exchange(trace, "main", "helper-control", "exec/hostile_hand_down")
    for name in ("helper-badfd", "helper-file", "helper-big", "helper-small",
                 "helper-generation", "helper-garbage"):
        check(name not in names, "%s is not traced: %s" % (name, sorted(names)))


@CASES("exec_e2e_untraced_test_hands_nothing_down")
def case_untraced(args):
    """A run started with a hand-down in its environment (a runner inside a
    traced test) passes none of it to an untraced test's programs; a
    traced test's programs get its own."""
    stale = {"LD_PRELOAD": "/nowhere/libtattle_preload.so",
             "TATTLE_TRACE_ARENA": "3:65536:12:1"}
    out = e2e.new_dir()
    run = e2e.Run(args.exec, "exec/untraced_hands_nothing_down",
                  "exec/traced_hands_down", cwd=out, expect_status=0,
                  extra_env=stale)
    for test_id in ("exec/untraced_hands_nothing_down", "exec/traced_hands_down"):
        test = run.test(test_id)
        check(test.get("state") == "passed", "%s passes: %s %s"
              % (test_id, test.get("failures"), test.get("stdout")))
    traced = run.test("exec/traced_hands_down").get("stdout", "")
    check("/nowhere/" not in traced,
          "the stale preload is not handed down: %s" % traced)


def tattle_run_trace(args, options, label):
    """Runs `tattle run --trace OPTIONS -- exec_helper pair` and checks
    that the command and the echo server it starts are actors of its
    one test's trace, their exchange matched."""
    if not args.tattle:
        print("skipped: no tattle command")
        sys.exit(77)
    out = e2e.new_dir()
    run = e2e.Run(args.tattle, "--trace", *options, "--", args.helper, "pair",
                  command=["run"], cwd=out, expect_status=0)
    tests = run.report["tests"] if run.report else []
    if not check(len(tests) == 1, "one test: %s" % [t["id"] for t in tests]):
        return
    trace = tests[0].get("trace")
    if not check(trace is not None, "the command's test has a trace"):
        return
    e2e.trace_is_consistent(trace, label)
    check_exchange(trace, "exec_helper", "echo-server", label)


@CASES("exec_e2e_tattle_run_trace_records_the_command")
def case_tattle_run(args):
    """`tattle run --trace -- exec_helper pair`: the command and the
    server it starts with posix_spawn are actors of the run's trace, their
    exchange matched."""
    tattle_run_trace(args, [], "tattle run")


@CASES("exec_e2e_tattle_run_trace_keeps_its_preload_over_env")
def case_tattle_run_env(args):
    """`tattle run --trace --env LD_PRELOAD= --env ASAN_OPTIONS=...`: the
    variables the command is given do not take the preload library (nor,
    under ASan, the option that lets it load) from the trace: the
    command's exchange is still recorded."""
    tattle_run_trace(args, ["--env", "LD_PRELOAD=", "--env",
                            "ASAN_OPTIONS=detect_leaks=0"],
                     "tattle run --env")


def main():
    CASES.list_if_asked()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("case", choices=sorted(CASES))
    parser.add_argument("--exec", required=True)
    parser.add_argument("--helper", required=True)
    parser.add_argument("--tattle", help="the tattle command (tattle run)")
    return e2e.run_case(CASES, parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())

"""The common end of the Python test drivers: run one case, collect the
checks that did not hold, print them, and turn them into an exit status
(0 all held, 1 otherwise), so every driver reports the same way to CTest.

A case object has `problems` (a list of strings) and `cleanup()`; a case
function raises `stop` (the driver's own exception class) to end early.
"""
import traceback


def run_case(function, case, name, stop):
    try:
        function(case)
    except stop:
        pass
    except Exception:
        case.problems.append("the driver failed:\n" + traceback.format_exc())
    finally:
        case.cleanup()
    for p in case.problems:
        print("FAILED: %s" % p)
    if case.problems:
        return 1
    print("ok: %s" % name)
    return 0

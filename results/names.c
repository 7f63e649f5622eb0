/*
 * names.c — the names reports use for states, failure kinds and trace
 * event kinds (declared in include/tattle/reporter.h).
 */
#include <tattle/reporter.h>

const char *tattle_state_name(enum tattle_state state)
{
    switch (state) {
    case TATTLE_STATE_PASSED:
        return "passed";
    case TATTLE_STATE_FAILED:
        return "failed";
    case TATTLE_STATE_SKIPPED:
        return "skipped";
    case TATTLE_STATE_EXCLUDED:
        return "excluded";
    case TATTLE_STATE_INVALID:
        return "invalid";
    }
    return "invalid";
}

const char *tattle_failure_kind_name(enum tattle_failure_kind kind)
{
    switch (kind) {
    case TATTLE_FAILURE_ASSERTION:
        return "assertion";
    case TATTLE_FAILURE_CRASH:
        return "crash";
    case TATTLE_FAILURE_TIMEOUT:
        return "timeout";
    case TATTLE_FAILURE_EXIT:
        return "exit";
    case TATTLE_FAILURE_ERROR:
        return "error";
    }
    return "error";
}

const char *tattle_trace_event_kind_name(enum tattle_trace_event_kind kind)
{
    switch (kind) {
    case TATTLE_TRACE_SEND:
        return "send";
    case TATTLE_TRACE_RECV:
        return "recv";
    case TATTLE_TRACE_EVENT:
        return "event";
    case TATTLE_TRACE_SPAWN:
        return "spawn";
    case TATTLE_TRACE_EXIT:
        return "exit";
    }
    return "event";
}

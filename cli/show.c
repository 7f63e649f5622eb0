/*
 * show.c — `tattle show REPORT [ID]`: one test in full.
 *
 * Its state and place, every failure with its values and stack, the tail
 * of its output, its trace as a text sequence chart with the messages
 * still pending, and the command that reruns it; with --mermaid only the
 * trace, as a Mermaid sequenceDiagram. Without ID, the first failed test.
 * The report is read test by test until the one wanted: memory holds one
 * test whatever the report's size.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/sequence.h"
#include "results/model.h"
#include "results/read.h"

static const char help[] =
    "usage: tattle show REPORT [ID] [--mermaid] [--lines N]\n"
    "\n"
    "Prints one test of a report or stream ('-' reads stdin) in full: its\n"
    "failures with their values, stacks and places, the last lines of its\n"
    "output, its trace as a sequence chart (a column per actor, an arrow per\n"
    "message, the messages still pending at the bottom) and its rerun "
    "command.\n"
    "Without ID, the first failed test.\n"
    "\n"
    "  --mermaid   print the trace as a Mermaid sequenceDiagram instead\n"
    "              (GitHub renders it in Markdown inside ```mermaid)\n"
    "  --lines N   output lines shown per stream (default 20, 0: all)\n"
    "\n"
    "exit status: 0 shown, 2 usage error, bad input or no such test.\n";

enum { FRAMES_SHOWN = 32 };

static void append_field(struct tattle__buffer *out, const char *name,
                         const char *value)
{
    if (!value)
        return;
    tattle__buffer_printf(out, "    %-7s ", name);
    tattle__cli_append_printable(out, value, strlen(value), false, 0);
    tattle__buffer_append_string(out, "\n");
}

static void append_failure(struct tattle__buffer *out,
                           const struct tattle_result *result, size_t index)
{
    const struct tattle_failure *failure = &result->failures[index];
    int line;
    const char *file = tattle__cli_failure_place(result, failure, &line);
    tattle__buffer_printf(out, "failure %zu of %zu: %s", index + 1,
                          result->failure_count,
                          tattle_failure_kind_name(failure->kind));
    if (file) {
        tattle__buffer_append_string(out, " at ");
        tattle__cli_append_printable(out, file, strlen(file), false, 0);
        tattle__buffer_printf(out, ":%d", line);
    }
    if (failure->filtered)
        tattle__buffer_append_string(out, " (filtered)");
    tattle__buffer_append_string(out, "\n");
    switch (failure->kind) {
    case TATTLE_FAILURE_ASSERTION:
        if (failure->macro || failure->expr) {
            tattle__buffer_append_string(out, "    ");
            if (failure->macro)
                tattle__cli_append_printable(out, failure->macro,
                                             strlen(failure->macro), false, 0);
            tattle__buffer_append_string(out, "(");
            if (failure->expr)
                tattle__cli_append_printable(out, failure->expr,
                                             strlen(failure->expr), false, 0);
            tattle__buffer_append_string(out, ")\n");
        }
        append_field(out, "left:", failure->left);
        append_field(out, "right:", failure->right);
        break;
    case TATTLE_FAILURE_CRASH:
    case TATTLE_FAILURE_TIMEOUT:
    case TATTLE_FAILURE_EXIT:
    case TATTLE_FAILURE_ERROR:
        break;
    }
    const char *message = failure->message ? failure->message : "";
    tattle__buffer_append_string(out, "    ");
    struct tattle__buffer text = {0};
    tattle__cli_append_printable(&text, message, strlen(message), true, 0);
    for (size_t i = 0; i < text.length; i++) {
        tattle__buffer_append(out, &text.data[i], 1);
        if (text.data[i] == '\n' && i + 1 < text.length)
            tattle__buffer_append_string(out, "    ");
    }
    tattle__buffer_release(&text);
    tattle__buffer_append_string(out, "\n");
    if (failure->frame_count) {
        tattle__buffer_append_string(out, "    stack:\n");
        for (size_t i = 0; i < failure->frame_count && i < FRAMES_SHOWN; i++) {
            const struct tattle_frame *frame = &failure->frames[i];
            tattle__buffer_printf(out, "      #%-2zu 0x%" PRIxPTR " ", i,
                                  frame->address);
            const char *function = frame->function ? frame->function : "??";
            tattle__cli_append_printable(out, function, strlen(function), false,
                                         0);
            if (frame->file) {
                tattle__buffer_append_string(out, " at ");
                tattle__cli_append_printable(out, frame->file,
                                             strlen(frame->file), false, 0);
                tattle__buffer_printf(out, ":%d", frame->line);
            }
            tattle__buffer_append_string(out, "\n");
        }
        if (failure->frame_count > FRAMES_SHOWN)
            tattle__buffer_printf(out, "      ... %zu more frames\n",
                                  failure->frame_count - FRAMES_SHOWN);
    }
}

static void append_output(struct tattle__buffer *out, const char *name,
                          const struct tattle_output *output, size_t lines)
{
    if (!output->length && !output->bytes)
        return;
    const char *text = output->text ? output->text : "";
    size_t length = output->length;
    /* The tail: the last `lines` lines. */
    size_t start = length, seen = 0;
    if (length && text[length - 1] == '\n')
        start--;
    while (start > 0 && (lines == 0 || seen < lines)) {
        if (text[start - 1] == '\n' && ++seen == lines)
            break;
        start--;
    }
    if (lines == 0)
        start = 0;
    tattle__buffer_printf(out, "%s (%" PRIu64 " bytes written%s%s):\n", name,
                          output->bytes,
                          output->truncated ? ", kept head and tail" : "",
                          start > 0 ? ", last lines" : "");
    struct tattle__buffer shown = {0};
    tattle__cli_append_printable(&shown, text + start, length - start, true, 0);
    tattle__buffer_append_string(out, "  | ");
    for (size_t i = 0; i < shown.length; i++) {
        tattle__buffer_append(out, &shown.data[i], 1);
        if (shown.data[i] == '\n' && i + 1 < shown.length)
            tattle__buffer_append_string(out, "  | ");
    }
    if (!shown.length || shown.data[shown.length - 1] != '\n')
        tattle__buffer_append_string(out, "\n");
    tattle__buffer_release(&shown);
}

/* A `trace_calls` test's calls, briefly: how many, the last few indented
 * by depth, and where each thread still inside calls was at the end. */
enum { CALLS_SHOWN = 12 };

/* A name the test controls (actor, symbol, file), unable to drive a
 * terminal. */
static void append_name(struct tattle__buffer *out, const char *name,
                        const char *missing)
{
    const char *text = name ? name : missing;
    tattle__cli_append_printable(out, text, strlen(text), false, 200);
}

static void append_calls(struct tattle__buffer *out,
                         const struct tattle_trace *trace)
{
    if (!trace || !trace->calls_traced)
        return;
    size_t first =
        trace->call_count > CALLS_SHOWN ? trace->call_count - CALLS_SHOWN : 0;
    tattle__buffer_printf(
        out, "calls: %" PRIu64 " recorded (cap %" PRIu64 "), the last %zu:\n",
        trace->calls_recorded, trace->call_cap, trace->call_count - first);
    for (size_t i = first; i < trace->call_count; i++) {
        const struct tattle_trace_call *call = &trace->calls[i];
        unsigned indent = call->depth < 16 ? call->depth : 16;
        tattle__buffer_printf(out, "  %9" PRIu64 "us  ", call->t_us);
        append_name(out, call->actor, "?");
        tattle__buffer_printf(out, " %*s%s ", (int)(2 * indent), "",
                              call->kind == TATTLE_TRACE_CALL_ENTER ? "->"
                                                                    : "<-");
        append_name(out, call->function, "?");
        tattle__buffer_append_string(out, "\n");
    }
    for (size_t s = 0; s < trace->stack_count; s++) {
        const struct tattle_trace_stack *stack = &trace->stacks[s];
        if (stack->depth == 0)
            continue;
        append_name(out, stack->actor, "?");
        tattle__buffer_printf(out, " was inside %u call%s at the end:\n",
                              stack->depth, stack->depth == 1 ? "" : "s");
        for (size_t f = 0; f < stack->frame_count; f++) {
            const struct tattle_frame *frame = &stack->frames[f];
            tattle__buffer_printf(out, "  #%-2zu ", f);
            append_name(out, frame->function, "??");
            if (frame->file) {
                tattle__buffer_append_string(out, " at ");
                append_name(out, frame->file, "");
                tattle__buffer_printf(out, ":%d", frame->line);
            }
            tattle__buffer_append_string(out, "\n");
        }
    }
}

static void append_test(struct tattle__buffer *out,
                        const struct tattle_result *result, size_t lines)
{
    const struct tattle_test_info *test = result->test;
    tattle__cli_append_printable(out, test->id, strlen(test->id), false, 0);
    tattle__buffer_printf(out, "  %s  %.3f ms, %u attempt%s%s\n",
                          tattle_state_name(result->state),
                          (double)result->duration_us / 1000.0,
                          result->attempts, result->attempts == 1 ? "" : "s",
                          result->flaky ? ", flaky" : "");
    if (test->file) {
        tattle__buffer_append_string(out, "declared at ");
        tattle__cli_append_printable(out, test->file, strlen(test->file), false,
                                     0);
        tattle__buffer_printf(out, ":%d\n", test->line);
    }
    if (test->tag_count) {
        tattle__buffer_append_string(out, "tags:");
        for (size_t i = 0; i < test->tag_count; i++) {
            tattle__buffer_append_string(out, " ");
            const char *name = test->tags[i].name ? test->tags[i].name : "";
            tattle__cli_append_printable(out, name, strlen(name), false, 0);
            if (test->tags[i].value) {
                tattle__buffer_append_string(out, ":");
                tattle__cli_append_printable(out, test->tags[i].value,
                                             strlen(test->tags[i].value), false,
                                             0);
            }
        }
        tattle__buffer_append_string(out, "\n");
    }
    if (result->skip_reason) {
        tattle__buffer_append_string(out, "reason: ");
        tattle__cli_append_printable(out, result->skip_reason,
                                     strlen(result->skip_reason), false, 0);
        tattle__buffer_append_string(out, "\n");
    }
    for (size_t i = 0; i < result->failure_count; i++)
        append_failure(out, result, i);
    append_output(out, "stdout", &result->stdout_output, lines);
    append_output(out, "stderr", &result->stderr_output, lines);
    tattle__sequence_text(out, result, "", stdout);
    append_calls(out, result->trace);
    if (result->rerun) {
        tattle__buffer_append_string(out, "rerun: ");
        tattle__cli_append_printable(out, result->rerun, strlen(result->rerun),
                                     false, 0);
        tattle__buffer_append_string(out, "\n");
    }
}

int tattle__cli_show(int argc, char **argv)
{
    const char *input = NULL, *wanted = NULL;
    bool mermaid = false;
    size_t lines = 20;
    for (int i = 1; i < argc; i++) {
        const char *value;
        bool missing;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(help, stdout);
            return TATTLE__EXIT_OK;
        }
        if (strcmp(argv[i], "--mermaid") == 0)
            mermaid = true;
        else if (tattle__cli_option(argc, argv, &i, "--lines", NULL, &value,
                                    &missing)) {
            char *end;
            unsigned long long n = missing ? 0 : strtoull(value, &end, 10);
            if (missing || *value == '-' || *end || end == value)
                return tattle__cli_fail("show",
                                        "--lines needs a count of lines");
            lines = (size_t)n;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0' && !input)
            return tattle__cli_fail(
                "show", "unknown option '%s' (tattle show --help)", argv[i]);
        else if (!input)
            input = argv[i];
        else if (!wanted)
            wanted = argv[i];
        else
            return tattle__cli_fail(
                "show", "usage: tattle show REPORT [ID] [--mermaid]");
    }
    if (!input)
        return tattle__cli_fail("show",
                                "usage: tattle show REPORT [ID] [--mermaid]");

    struct tattle__reader *reader = tattle__cli_open_report("show", input);
    if (!reader)
        return TATTLE__EXIT_BAD_INPUT;
    struct tattle__read_result result;
    int rc;
    bool found = false;
    while (!found && (rc = tattle__reader_next(reader, &result)) > 0) {
        const struct tattle_result *r = &result.record.result;
        found = wanted ? strcmp(result.test.id, wanted) == 0
                       : tattle__result_failed(r);
        if (!found)
            tattle__read_result_release(&result);
    }
    /* The rest is read too: a report that is broken after the test shown
     * is refused like any other bad input. */
    if (found) {
        struct tattle__read_result rest;
        while ((rc = tattle__reader_next(reader, &rest)) > 0)
            tattle__read_result_release(&rest);
        if (rc < 0) {
            tattle__read_result_release(&result);
            found = false;
        }
    }
    int status = TATTLE__EXIT_OK;
    if (!found && rc < 0)
        status = tattle__cli_fail("show", "%s", tattle__reader_error(reader));
    else if (!found && wanted)
        status = tattle__cli_fail("show", "%s: no test has the id '%s'",
                                  tattle__reader_path(reader), wanted);
    else if (!found)
        printf("%s: no test failed; name one: tattle show REPORT ID\n",
               tattle__reader_path(reader));
    else {
        struct tattle__buffer out = {0};
        if (mermaid)
            tattle__sequence_mermaid(&out, &result.record.result);
        else
            append_test(&out, &result.record.result, lines);
        fwrite(out.data, 1, out.length, stdout);
        tattle__buffer_release(&out);
        tattle__read_result_release(&result);
    }
    tattle__reader_close(reader);
    return status;
}

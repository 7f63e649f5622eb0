/*
 * console.c — the human report on a terminal.
 *
 * One line per finished test (only failures with --quiet), and for each
 * failure the location, the assertion with both values and the message, a
 * crash's signal and top frames, the tail of the test's output, the last
 * messages of its trace, and the command that reruns it. The run ends with
 * a line of the other counts and then, alone on the last line,
 * `N passed, N failed, N skipped`. Colours only when wanted (decided by
 * the runner from --color, the terminal and NO_COLOR).
 *
 * Every string that came from a test (ids, messages, values, output, trace
 * names and payloads, the rerun command) reaches the terminal through one
 * escaping writer, print_escaped(): a test can print anything, and an
 * escape sequence in its output must not recolour, move or retitle the
 * user's terminal.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <unistd.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reporter/builtin.h"
#include "reporter/sequence_diagram.h"
#include "results/model.h"
#include "base/utf8.h"

enum {
    OUTPUT_TAIL_LINES = 12,
    OUTPUT_TAIL_BYTES = 2048,
    TRACE_EVENTS_SHOWN = 12,
    FRAMES_SHOWN = 8,
    THREADS_SHOWN = 16,      /* of a timeout's stacks */
    THREAD_FRAMES_SHOWN = 6, /* top frames of each */
    SUMMARY_MESSAGE_BYTES = 160
};

struct console {
    FILE *stream;
    bool color;
    bool quiet;
    bool trace_passed; /* --trace-passed: passed tests' traces shown too */
    bool stop_workflow_commands; /* --reporter github: see print_stopped() */
    uint64_t planned;
    bool wrapped; /* a wrapped command's run: its test count said at the end */
    char *wrapped_id; /* the wrapped command's own result's id */
    /* The wrapped command's inner tests' results, and its own result
     * reported beside them: the counts at the end are the inner tests',
     * the command's counted only as the failure when none of theirs is. */
    uint64_t inner_count;
    bool inner_failed;
    bool command_result_seen;
    enum tattle_state command_state;
    uint64_t seed;
    char **failed_lines; /* one summary line per failed test */
    size_t failed_count;
};

static const char *paint(const struct console *console, const char *code)
{
    return console->color ? code : "";
}

#define RED "\033[31m"
#define GREEN "\033[32m"
#define YELLOW "\033[33m"
#define DIM "\033[2m"
#define BOLD "\033[1m"
#define RESET "\033[0m"

/* The console writes through its own buffered stream on a duplicate of
 * the terminal's descriptor, flushed after every callback: the process's
 * stdout can stay unbuffered (as test processes need) without a write per
 * fprintf, and nothing is pending in a buffer when the runner forks. */
static FILE *open_private_stream(FILE *shared)
{
    fflush(shared);
    int fd = fcntl(fileno(shared), F_DUPFD_CLOEXEC, 3);
    if (fd < 0)
        return NULL;
    FILE *stream = fdopen(fd, "w");
    if (!stream)
        close(fd);
    return stream;
}

static int console_create(void **self, const char *destination,
                          const struct tattle_report_options *options)
{
    struct console *console = calloc(1, sizeof *console);
    if (!console)
        return -ENOMEM;
    bool to_stderr = destination && strcmp(destination, "stderr") == 0;
    bool to_stdout = !destination || strcmp(destination, "stdout") == 0 ||
                     strcmp(destination, "-") == 0;
    if (to_stdout || to_stderr)
        console->stream = open_private_stream(to_stderr ? stderr : stdout);
    else
        console->stream = fopen(destination, "we");
    if (!console->stream) {
        int error = -errno;
        free(console);
        return error ? error : -EIO;
    }
    console->color = options->color && (to_stdout || to_stderr);
    console->quiet = options->quiet;
    console->trace_passed = options->trace_passed;
    console->stop_workflow_commands = options->stop_workflow_commands;
    *self = console;
    return 0;
}

static size_t print_escaped(FILE *stream, const char *text, size_t length,
                            const char *indent);

static void print_header(void *self, const struct tattle_run_info *run)
{
    struct console *console = self;
    console->planned = run->planned;
    console->wrapped = run->wrapped_command != NULL;
    console->wrapped_id = run->wrapped_id ? strdup(run->wrapped_id) : NULL;
    console->seed = run->seed;
    if (console->quiet)
        return;
    fprintf(console->stream, "%stattle %s%s: ", paint(console, BOLD),
            TATTLE_VERSION, paint(console, RESET));
    if (run->wrapped_command) {
        /* How many tests it holds is known only when it ends. */
        fputs("running ", console->stream);
        print_escaped(console->stream, run->wrapped_command,
                      strlen(run->wrapped_command), NULL);
    } else {
        fprintf(console->stream, "%" PRIu64 " tests", run->planned);
    }
    fprintf(console->stream, ", %u job%s, seed %" PRIu64, run->jobs,
            run->jobs == 1 ? "" : "s", run->seed);
    if (run->sharded)
        fprintf(console->stream, ", shard %u/%u", run->shard_index,
                run->shard_total);
    fputc('\n', console->stream);
}

static void console_test_started(void *self,
                                 const struct tattle_test_info *test)
{
    (void)self, (void)test;
}

/* Writes `text[0..length)`, which came from a test, so that it cannot
 * drive the terminal: printable ASCII and well-formed UTF-8 pass as they
 * are; control bytes (ESC among them), DEL, C1 control characters and
 * every byte of ill-formed UTF-8 are shown as \xNN. With an `indent`, a newline
 * starts a new line so indented (a newline ending the text is left to the
 * caller); without one it is shown as \x0a, keeping a one-line field on one
 * line. Returns the number of characters shown, for padding. */
static size_t print_escaped(FILE *stream, const char *text, size_t length,
                            const char *indent)
{
    size_t shown = 0;
    for (size_t i = 0; i < length;) {
        unsigned char byte = (unsigned char)text[i];
        if (byte == '\n' && indent) {
            if (i + 1 < length) {
                fputc('\n', stream);
                fputs(indent, stream);
            }
            i++;
            continue;
        }
        size_t n = tattle__utf8_printable_length(text + i, length - i);
        if (n > 0) {
            fwrite(text + i, 1, n, stream);
            shown++;
            i += n;
        } else {
            fprintf(stream, "\\x%02x", byte);
            shown += 4;
            i++;
        }
    }
    return shown;
}

/* A NUL-terminated string through print_escaped(); NULL prints `absent`. */
static void print_string(FILE *stream, const char *text, const char *absent)
{
    if (!text)
        text = absent;
    print_escaped(stream, text, strlen(text), NULL);
}

/* Like print_string(), then spaces up to `width` characters. */
static void print_padded(FILE *stream, const char *text, const char *absent,
                         size_t width)
{
    if (!text)
        text = absent;
    for (size_t shown = print_escaped(stream, text, strlen(text), NULL);
         shown < width; shown++)
        fputc(' ', stream);
}

/* Prints `text` with every line indented, escaped as print_escaped() does. */
static void print_indented(FILE *stream, const char *indent, const char *text,
                           size_t length)
{
    fputs(indent, stream);
    print_escaped(stream, text, length, indent);
    fputc('\n', stream);
}

/* The length of the longest prefix of `text[0..length)` that fits in
 * `limit` bytes and does not end inside a UTF-8 character. */
static size_t prefix_at_character(const char *text, size_t length, size_t limit)
{
    size_t end = 0;
    while (end < length) {
        size_t n = tattle__utf8_sequence_length(text + end, length - end);
        if (n == 0)
            n = 1;
        if (end + n > limit)
            break;
        end += n;
    }
    return end;
}

static void print_output_tail(const struct console *console, const char *name,
                              const struct tattle_output *output)
{
    if (output->bytes == 0)
        return;
    size_t start = output->length > OUTPUT_TAIL_BYTES
                       ? output->length - OUTPUT_TAIL_BYTES
                       : 0;
    size_t lines = 0;
    size_t end = output->length;
    if (end > 0 && output->text[end - 1] == '\n')
        end--;
    size_t i = end;
    while (i > start) {
        if (output->text[i - 1] == '\n' && ++lines == OUTPUT_TAIL_LINES)
            break;
        i--;
    }
    fprintf(console->stream, "  %s%s (%" PRIu64 " bytes%s%s):%s\n",
            paint(console, DIM), name, output->bytes,
            i > 0 ? ", last lines" : "", output->truncated ? ", truncated" : "",
            paint(console, RESET));
    print_indented(console->stream, "    ", output->text + i,
                   output->length - i);
}

/* The top frames of a stack, one `#N function at file:line` a line. */
static void print_frames(FILE *out, const struct tattle_frame *frames,
                         size_t count, const char *indent)
{
    for (size_t f = 0; f < count && f < FRAMES_SHOWN; f++) {
        const struct tattle_frame *frame = &frames[f];
        fprintf(out, "%s#%zu ", indent, f);
        print_string(out, frame->function, "??");
        if (frame->file) {
            fputs(" at ", out);
            print_string(out, frame->file, "");
            fprintf(out, ":%d", frame->line);
        } else
            fprintf(out, " (0x%" PRIxPTR ")", frame->address);
        fputc('\n', out);
    }
}

/* A timeout's threads, each with its top frames: where each one was. */
static void print_thread_stacks(FILE *out, const struct tattle_failure *failure)
{
    for (size_t i = 0; i < failure->stack_count && i < THREADS_SHOWN; i++) {
        const struct tattle_thread_stack *thread = &failure->stacks[i];
        fprintf(out, "    thread %d of %d (", thread->tid, thread->pid);
        print_string(out, thread->actor, "?");
        fputs(", state ", out);
        print_string(out, thread->state, "?");
        fputs("):\n", out);
        size_t shown = thread->frame_count < THREAD_FRAMES_SHOWN
                           ? thread->frame_count
                           : THREAD_FRAMES_SHOWN;
        print_frames(out, thread->frames, shown, "      ");
        if (shown < thread->frame_count)
            fprintf(out, "      ... %zu more frames\n",
                    thread->frame_count - shown);
    }
    if (failure->stack_count > THREADS_SHOWN)
        fprintf(out, "    ... %zu more threads (all in the JSON report)\n",
                failure->stack_count - THREADS_SHOWN);
}

static void print_failure(const struct console *console,
                          const struct tattle_failure *failure)
{
    FILE *out = console->stream;
    switch (failure->kind) {
    case TATTLE_FAILURE_ASSERTION:
        fputs("  ", out);
        print_string(out, failure->file, "?");
        fprintf(out, ":%d: %s", failure->line, paint(console, BOLD));
        print_string(out, failure->macro, "");
        fputc('(', out);
        print_string(out, failure->expr, "");
        fprintf(out, ")%s\n", paint(console, RESET));
        print_indented(out, "    ", failure->message, strlen(failure->message));
        if (failure->left && failure->right) {
            fputs("    left:  ", out);
            print_string(out, failure->left, "");
            fputs("\n    right: ", out);
            print_string(out, failure->right, "");
            fputc('\n', out);
        }
        break;
    case TATTLE_FAILURE_CRASH:
    case TATTLE_FAILURE_TIMEOUT:
    case TATTLE_FAILURE_EXIT:
    case TATTLE_FAILURE_ERROR:
        fputs("  ", out);
        if (failure->file) {
            print_string(out, failure->file, "?");
            fprintf(out, ":%d: ", failure->line);
        }
        fprintf(out, "%s%s:%s ", paint(console, BOLD),
                tattle_failure_kind_name(failure->kind), paint(console, RESET));
        print_string(out, failure->message, "");
        fputc('\n', out);
        print_frames(out, failure->frames, failure->frame_count, "    ");
        print_thread_stacks(out, failure);
        break;
    }
    if (failure->fixture) {
        fputs("    in the ", out);
        print_string(out, failure->fixture, "");
        fputc('\n', out);
    }
}

/* A `trace_calls` test's last calls, indented by depth, and the shadow
 * stack of each thread that was still inside calls at the end. */
static void print_calls(const struct console *console,
                        const struct tattle_trace *trace)
{
    FILE *out = console->stream;
    size_t first = trace->call_count > TRACE_EVENTS_SHOWN
                       ? trace->call_count - TRACE_EVENTS_SHOWN
                       : 0;
    fprintf(out, "  %scalls: %" PRIu64 " recorded", paint(console, DIM),
            trace->calls_recorded);
    if ((uint64_t)(trace->call_count - first) < trace->calls_recorded)
        fprintf(out, "; showing the last %zu", trace->call_count - first);
    fprintf(out, ":%s\n", paint(console, RESET));
    for (size_t i = first; i < trace->call_count; i++) {
        const struct tattle_trace_call *call = &trace->calls[i];
        fprintf(out, "    %9" PRIu64 "us  ", call->t_us);
        print_padded(out, call->actor, "-", 10);
        unsigned indent = call->depth < 16 ? call->depth : 16;
        fprintf(out, " %*s%s ", (int)(2 * indent), "",
                call->kind == TATTLE_TRACE_CALL_ENTER ? "->" : "<-");
        print_string(out, call->function, "?");
        fputc('\n', out);
    }
    for (size_t s = 0; s < trace->stack_count; s++) {
        const struct tattle_trace_stack *stack = &trace->stacks[s];
        if (stack->depth == 0)
            continue;
        fprintf(out, "  %sinside %u call%s at the end: ", paint(console, DIM),
                stack->depth, stack->depth == 1 ? "" : "s");
        print_string(out, stack->actor, "?");
        fprintf(out, "%s\n", paint(console, RESET));
        print_frames(out, stack->frames, stack->frame_count, "    ");
    }
}

static void print_trace(const struct console *console,
                        const struct tattle_trace *trace)
{
    FILE *out = console->stream;
    size_t first = trace->event_count > TRACE_EVENTS_SHOWN
                       ? trace->event_count - TRACE_EVENTS_SHOWN
                       : 0;
    size_t shown = trace->event_count - first;
    fprintf(out,
            "  %slast messages (%" PRIu64 " recorded, %" PRIu64 " dropped%s",
            paint(console, DIM), trace->recorded, trace->dropped,
            trace->overflow ? ", budget exhausted" : "");
    /* Fewer lines than events recorded: say which ones these are. */
    if ((uint64_t)shown < trace->recorded)
        fprintf(out, "; showing the last %zu", shown);
    fprintf(out, "):%s\n", paint(console, RESET));
    for (size_t i = first; i < trace->event_count; i++) {
        const struct tattle_trace_event *e = &trace->events[i];
        fprintf(out, "    %9" PRIu64 "us  ", e->t_us);
        print_padded(out, e->from, "-", 10);
        fputs(" -> ", out);
        print_padded(out, e->to, "-", 10);
        fprintf(out, " %-5s ", tattle_trace_event_kind_name(e->kind));
        print_padded(out, e->label, "", 10);
        fputc(' ', out);
        print_string(out, e->msg, "");
        fputc('\n', out);
    }
    for (size_t m = 0; m < trace->mailbox_count; m++) {
        const struct tattle_trace_mailbox *box = &trace->mailboxes[m];
        fprintf(out, "  %smailbox ", paint(console, DIM));
        print_string(out, box->name, "");
        fputs(" (owner ", out);
        print_string(out, box->owner, "?");
        fprintf(out, "%s): %" PRIu64 " pending%s%s\n",
                box->alive ? "" : ", gone", box->pending,
                box->approx ? ", approximate" : "", paint(console, RESET));
        for (size_t k = 0; k < box->message_count; k++) {
            fprintf(out, "    [%zu] ", k);
            print_string(out, box->messages[k], "");
            fputc('\n', out);
        }
    }
    for (size_t p = 0; p < trace->endpoint_count; p++) {
        const struct tattle_trace_endpoint *endpoint = &trace->endpoints[p];
        fprintf(out, "  %sendpoint ", paint(console, DIM));
        print_string(out, endpoint->name, "");
        fprintf(out, " (%s, owner ", endpoint->kind ? endpoint->kind : "?");
        print_string(out, endpoint->owner, "?");
        fprintf(out, "): %" PRIu64 " bytes unread", endpoint->pending_bytes);
        if (endpoint->pending_messages)
            fprintf(out, " in %" PRIu64 " messages",
                    endpoint->pending_messages);
        fprintf(out, "%s%s\n", endpoint->complete ? "" : ", incomplete",
                paint(console, RESET));
        if (endpoint->kernel_peeked) {
            struct tattle__buffer kernel = {0};
            tattle__sequence_kernel_summary(&kernel, endpoint);
            fputs("    ", out);
            print_escaped(out, kernel.data ? kernel.data : "", kernel.length,
                          NULL);
            fputc('\n', out);
            tattle__buffer_release(&kernel);
        }
        for (size_t k = 0; k < endpoint->message_count; k++) {
            const struct tattle_trace_pending_send *send =
                &endpoint->messages[k];
            fprintf(out, "    [%zu] send #%" PRIu64 ", %" PRIu64 " bytes: ", k,
                    send->send, send->bytes);
            print_string(out, send->msg, "");
            fputc('\n', out);
        }
    }
    if (trace->calls_traced)
        print_calls(console, trace);
}

/* Keeps the line the end of the run lists for a failed test: its id, the
 * first failure's location and the first line of its message, cut to
 * SUMMARY_MESSAGE_BYTES on a character boundary. The line is kept escaped,
 * ready to print. */
static void remember_failure(struct console *console,
                             const struct tattle_result *result)
{
    char *line = NULL;
    size_t size = 0;
    FILE *stream = open_memstream(&line, &size);
    if (!stream)
        return;
    const struct tattle_failure *first =
        result->failure_count ? &result->failures[0] : NULL;
    const char *message = first && first->message ? first->message : "";
    size_t message_length = strcspn(message, "\n");
    size_t shown =
        prefix_at_character(message, message_length, SUMMARY_MESSAGE_BYTES);
    print_string(stream, result->test->id, "");
    if (first && first->file) {
        fputs("  ", stream);
        print_string(stream, first->file, "");
        fprintf(stream, ":%d", first->line);
    }
    fputs("  ", stream);
    print_escaped(stream, message, shown, NULL);
    if (shown < message_length)
        fputs("...", stream);
    if (fclose(stream) != 0) {
        free(line);
        return;
    }
    char **lines =
        realloc(console->failed_lines,
                (console->failed_count + 1) * sizeof *console->failed_lines);
    if (!lines) {
        free(line);
        return;
    }
    console->failed_lines = lines;
    console->failed_lines[console->failed_count++] = line;
}

/* Returns whether anything was printed. */
static bool print_result(void *self, const struct tattle_result *result)
{
    struct console *console = self;
    FILE *out = console->stream;
    bool failed = tattle__result_failed(result);
    if (result->state == TATTLE_STATE_EXCLUDED)
        return false;
    if (console->quiet && !failed)
        return false;
    const char *label = "PASS", *color = GREEN;
    switch (result->state) {
    case TATTLE_STATE_PASSED:
        if (result->flaky)
            label = "FLAKY", color = YELLOW;
        break;
    case TATTLE_STATE_FAILED:
        label = "FAIL", color = RED;
        break;
    case TATTLE_STATE_INVALID:
        label = "INVALID", color = RED;
        break;
    case TATTLE_STATE_SKIPPED:
        label = "SKIP", color = YELLOW;
        break;
    case TATTLE_STATE_EXCLUDED:
        break;
    }
    fprintf(out, "%s%-5s%s ", paint(console, color), label,
            paint(console, RESET));
    print_string(out, result->test->id, "");
    fprintf(out, "  %s(%.1f ms", paint(console, DIM),
            (double)result->duration_us / 1000.0);
    if (result->attempts > 1)
        fprintf(out, ", %u attempts", result->attempts);
    fprintf(out, ")%s", paint(console, RESET));
    if (result->state == TATTLE_STATE_SKIPPED && result->skip_reason) {
        fputs("  ", out);
        print_string(out, result->skip_reason, "");
    }
    fputc('\n', out);
    if (!failed && !result->flaky) {
        if (console->trace_passed && result->trace)
            print_trace(console, result->trace);
        return true;
    }
    for (size_t i = 0; i < result->failure_count; i++)
        print_failure(console, &result->failures[i]);
    print_output_tail(console, "stdout", &result->stdout_output);
    print_output_tail(console, "stderr", &result->stderr_output);
    if (result->trace)
        print_trace(console, result->trace);
    if (result->rerun) {
        fprintf(out, "  %srerun: ", paint(console, DIM));
        print_string(out, result->rerun, "");
        fprintf(out, "%s\n", paint(console, RESET));
    }
    if (failed)
        remember_failure(console, result);
    return true;
}

static void console_begin(void *self, const struct tattle_run_info *run)
{
    struct console *console = self;
    print_header(console, run);
    fflush(console->stream);
}

/* A test's result for a job log that GitHub Actions reads for workflow
 * commands: printed into memory first, then its status line as it is
 * (tattle's label first, the id escaped onto that one line) and the rest,
 * which copies text from the test (messages, values, output, trace),
 * between `::stop-commands::TOKEN` and `::TOKEN::` with a token drawn
 * for it, so that no line a test wrote can issue a command. */
static bool print_stopped(struct console *console,
                          const struct tattle_result *result)
{
    char *text = NULL;
    size_t length = 0;
    FILE *memory = open_memstream(&text, &length);
    if (!memory)
        return false;
    FILE *stream = console->stream;
    console->stream = memory;
    bool printed = print_result(console, result);
    console->stream = stream;
    if (fclose(memory) != 0) {
        free(text);
        return false;
    }
    const char *newline = memchr(text, '\n', length);
    size_t first = newline ? (size_t)(newline - text) + 1 : length;
    fwrite(text, 1, first, stream);
    if (first < length) {
        char token[TATTLE__GITHUB_TOKEN_LENGTH + 1];
        const char *texts[] = {text};
        tattle__github_stop_token(token, texts, &length, 1);
        fprintf(stream, "::stop-commands::%s\n", token);
        fwrite(text + first, 1, length - first, stream);
        fprintf(stream, "::%s::\n", token);
    }
    free(text);
    return printed;
}

static void console_test_finished(void *self,
                                  const struct tattle_result *result)
{
    struct console *console = self;
    if (console->wrapped_id &&
        strcmp(result->test->id, console->wrapped_id) == 0) {
        console->command_result_seen = true;
        console->command_state = result->state;
    } else {
        console->inner_count++;
        if (result->state == TATTLE_STATE_FAILED ||
            result->state == TATTLE_STATE_INVALID)
            console->inner_failed = true;
    }
    /* Flushing an empty stream still writes its lock: skip it when
     * nothing was printed (--quiet and a passing test). */
    if (console->stop_workflow_commands ? print_stopped(console, result)
                                        : print_result(console, result))
        fflush(console->stream);
}

/* Takes one result of `state` out of `summary`'s counts. */
static void leave_out(struct tattle_summary *summary, enum tattle_state state)
{
    uint64_t *count = state == TATTLE_STATE_PASSED    ? &summary->passed
                      : state == TATTLE_STATE_FAILED  ? &summary->failed
                      : state == TATTLE_STATE_SKIPPED ? &summary->skipped
                      : state == TATTLE_STATE_INVALID ? &summary->invalid
                                                      : NULL;
    if (count && *count > 0)
        (*count)--;
}

static int console_end(void *self, const struct tattle_summary *summary)
{
    struct console *console = self;
    FILE *out = console->stream;
    if (console->failed_count > 0) {
        fprintf(out, "\n%sFailed tests:%s\n", paint(console, BOLD),
                paint(console, RESET));
        /* Ids and messages come from tests: stopped like print_stopped(). */
        char token[TATTLE__GITHUB_TOKEN_LENGTH + 1];
        if (console->stop_workflow_commands) {
            size_t *lengths = calloc(console->failed_count, sizeof *lengths);
            for (size_t i = 0; lengths && i < console->failed_count; i++)
                lengths[i] = strlen(console->failed_lines[i]);
            tattle__github_stop_token(
                token, (const char *const *)console->failed_lines, lengths,
                lengths ? console->failed_count : 0);
            free(lengths);
            fprintf(out, "::stop-commands::%s\n", token);
        }
        for (size_t i = 0; i < console->failed_count; i++)
            fprintf(out, "  %s\n", console->failed_lines[i]);
        if (console->stop_workflow_commands)
            fprintf(out, "::%s::\n", token);
    }
    fputc('\n', out);
    struct tattle_summary counted = *summary;
    bool beside_inner =
        console->command_result_seen && console->inner_count > 0;
    if (beside_inner && console->inner_failed)
        leave_out(&counted, console->command_state);
    summary = &counted;
    if (beside_inner)
        fprintf(out,
                "%" PRIu64 " tests ran, and the command's own result %s "
                "(%s%s); ",
                console->inner_count, console->wrapped_id,
                tattle_state_name(console->command_state),
                console->inner_failed ? ", not counted" : "");
    else if (console->wrapped)
        fprintf(out, "%" PRIu64 " tests ran; ",
                summary->passed + summary->failed + summary->skipped +
                    summary->invalid);
    fprintf(out,
            "%" PRIu64 " excluded, %" PRIu64 " invalid, %" PRIu64
            " flaky; %.2f s; seed %" PRIu64 "%s\n",
            summary->excluded, summary->invalid, summary->flaky,
            (double)summary->duration_us / 1e6, console->seed,
            summary->interrupted ? "; INTERRUPTED" : "");
    /* The last line, alone, in the form CI systems read. Invalid tests are
     * failures there. */
    fprintf(
        out, "%" PRIu64 " passed, %" PRIu64 " failed, %" PRIu64 " skipped\n",
        summary->passed, summary->failed + summary->invalid, summary->skipped);
    if (fflush(out) != 0 && errno != EPIPE)
        return -errno;
    return 0;
}

static void console_destroy(void *self)
{
    struct console *console = self;
    for (size_t i = 0; i < console->failed_count; i++)
        free(console->failed_lines[i]);
    free(console->failed_lines);
    free(console->wrapped_id);
    fclose(console->stream);
    free(console);
}

const struct tattle_reporter_type tattle__reporter_console = {
    .name = "console",
    .create = console_create,
    .begin = console_begin,
    .test_started = console_test_started,
    .test_finished = console_test_finished,
    .end = console_end,
    .destroy = console_destroy,
};

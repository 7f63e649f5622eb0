/*
 * github.c — the "github" reporter (see github.h for what it writes).
 *
 * Every line is put together in a buffer through one escaping function,
 * whose mode says where the bytes go (a command's message or property, a
 * line of a log group, a Markdown cell or code fence), and then written
 * whole; stdout is written as each test finishes, so the annotations of a
 * long run appear while it runs. The job summary is kept in memory (a row
 * per failed test, at most SUMMARY_ROWS of them) and appended to the file
 * GITHUB_STEP_SUMMARY names at the end, in one write.
 */
#include "reporter/github.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "base/report_file.h"
#include "base/utf8.h"
#include "reporter/plain_text.h"
#include "reporter/report_output.h"
#include "results/model.h"

enum { SUMMARY_ROWS = 100 };

/* Where escaped bytes go. */
enum escape_mode {
    ESCAPE_DATA,     /* a command's message: % CR LF */
    ESCAPE_PROPERTY, /* a command's property: also : and , */
    ESCAPE_LOG,      /* a line of a log group: LF kept, each line indented */
    ESCAPE_CELL,     /* a Markdown table cell: punctuation escaped */
    ESCAPE_FENCE     /* a Markdown code fence: LF kept */
};

struct github_reporter {
    struct tattle__report_output output;
    char *executable;
    const char *workspace; /* GITHUB_WORKSPACE, or NULL */
    size_t workspace_length;
    struct tattle__buffer line; /* what is written next */
    struct tattle__buffer text; /* raw text before escaping */
    struct tattle__buffer rows; /* the summary's failure table rows */
    struct tattle__buffer rerun_commands;
    size_t longest_backtick_run; /* in rerun_commands */
    size_t failed_rows, flaky;
    int error; /* the first error, returned by end */
};

/* ---- Escaping --------------------------------------------------------- */

static bool is_ascii_punctuation(unsigned char byte)
{
    return (byte >= 0x21 && byte <= 0x2f) || (byte >= 0x3a && byte <= 0x40) ||
           (byte >= 0x5b && byte <= 0x60) || (byte >= 0x7b && byte <= 0x7e);
}

/* One ASCII byte in `mode`. */
static void escape_ascii(struct tattle__buffer *out, unsigned char byte,
                         enum escape_mode mode)
{
    bool command = mode == ESCAPE_DATA || mode == ESCAPE_PROPERTY;
    if (command && byte == '%')
        tattle__buffer_append_string(out, "%25");
    else if (command && byte == '\r')
        tattle__buffer_append_string(out, "%0D");
    else if (command && byte == '\n')
        tattle__buffer_append_string(out, "%0A");
    else if (mode == ESCAPE_PROPERTY && byte == ':')
        tattle__buffer_append_string(out, "%3A");
    else if (mode == ESCAPE_PROPERTY && byte == ',')
        tattle__buffer_append_string(out, "%2C");
    else if (byte == '\n' && mode == ESCAPE_LOG)
        tattle__buffer_append_string(out, "\n  ");
    else if (byte == '\n' && mode == ESCAPE_FENCE)
        tattle__buffer_append_string(out, "\n");
    else if (byte == '\t' && mode == ESCAPE_CELL)
        tattle__buffer_append_string(out, " ");
    else if (byte == '\t')
        tattle__buffer_append_string(out, "\t");
    else if (byte < 0x20 || byte == 0x7f)
        tattle__buffer_append_u_escape(out, byte);
    else if (mode == ESCAPE_CELL && is_ascii_punctuation(byte)) {
        char escaped[2] = {'\\', (char)byte};
        tattle__buffer_append(out, escaped, 2);
    } else
        tattle__buffer_append(out, &byte, 1);
}

/* Appends `bytes[0..length)` escaped for `mode`: invalid UTF-8 as U+FFFD,
 * control characters visible, and the mode's own rules. */
static void escape(struct tattle__buffer *out, const char *bytes, size_t length,
                   enum escape_mode mode)
{
    const unsigned char *p = (const unsigned char *)bytes;
    size_t i = 0;
    while (i < length) {
        if (p[i] < 0x80) {
            escape_ascii(out, p[i], mode);
            i++;
            continue;
        }
        size_t n = tattle__utf8_sequence_length(bytes + i, length - i);
        if (n == 0) {
            tattle__buffer_append_string(out, "\xEF\xBF\xBD");
            i += tattle__utf8_ill_formed_length(bytes + i, length - i);
        } else if (tattle__utf8_printable_length(bytes + i, length - i) == 0) {
            /* A C1 control character: U+0080 to U+009F, two bytes. */
            tattle__buffer_append_u_escape(out, ((p[i] & 0x1fu) << 6) |
                                                    (p[i + 1] & 0x3fu));
            i += n;
        } else {
            tattle__buffer_append(out, bytes + i, n);
            i += n;
        }
    }
}

static void escape_string(struct tattle__buffer *out, const char *text,
                          enum escape_mode mode)
{
    if (text)
        escape(out, text, strlen(text), mode);
}

/* ---- Workflow commands ------------------------------------------------ */

/* Writes self->line out (and to stdout now, when it goes there). */
static void write_line(struct github_reporter *self)
{
    tattle__remember_error(&self->error, tattle__sink_write(&self->output.sink,
                                                            self->line.data,
                                                            self->line.length));
    tattle__buffer_clear(&self->line);
}

/* A source path as the repository names it. */
static const char *repository_path(const struct github_reporter *self,
                                   const char *file)
{
    if (file && self->workspace &&
        strncmp(file, self->workspace, self->workspace_length) == 0 &&
        file[self->workspace_length] == '/')
        return file + self->workspace_length + 1;
    return file;
}

/* `::COMMAND file=F,line=L,title=TITLE SUFFIX::` into self->line. */
static void command_start(struct github_reporter *self, const char *command,
                          const char *file, int line, const char *title,
                          const char *title_suffix)
{
    struct tattle__buffer *out = &self->line;
    tattle__buffer_append_string(out, "::");
    tattle__buffer_append_string(out, command);
    tattle__buffer_append_string(out, " ");
    if (file) {
        tattle__buffer_append_string(out, "file=");
        escape_string(out, repository_path(self, file), ESCAPE_PROPERTY);
        if (line > 0) {
            tattle__buffer_append_string(out, ",line=");
            tattle__text_uint(out, (unsigned long long)line);
        }
        tattle__buffer_append_string(out, ",");
    }
    tattle__buffer_append_string(out, "title=");
    escape_string(out, title, ESCAPE_PROPERTY);
    escape_string(out, title_suffix, ESCAPE_PROPERTY);
    tattle__buffer_append_string(out, "::");
}

/* The message of a failure's annotation, into self->text: what
 * plain_text.h says of the failure, then how to rerun the test. */
static void annotation_text(struct github_reporter *self,
                            const struct tattle_result *result,
                            const struct tattle_failure *failure,
                            const char *preface)
{
    tattle__buffer_clear(&self->text);
    if (preface)
        tattle__buffer_append_string(&self->text, preface);
    if (failure)
        tattle__text_failure(&self->text, failure);
    if (result->rerun) {
        tattle__buffer_append_string(&self->text, "rerun: ");
        tattle__buffer_append_string(&self->text, result->rerun);
    }
    while (self->text.length && self->text.data[self->text.length - 1] == '\n')
        self->text.length--;
    self->text.data[self->text.length] = '\0';
}

static void annotate(struct github_reporter *self,
                     const struct tattle_result *result,
                     const struct tattle_failure *failure, const char *command,
                     const char *title_suffix, const char *preface)
{
    const char *file;
    int line;
    tattle__text_location(result, failure, &file, &line);
    command_start(self, command, file, line, result->test->id, title_suffix);
    annotation_text(self, result, failure, preface);
    escape(&self->line, self->text.data, self->text.length, ESCAPE_DATA);
    tattle__buffer_append_string(&self->line, "\n");
    write_line(self);
}

void tattle__github_stop_token(char *token, const char *const *texts,
                               const size_t *lengths, size_t count)
{
    static const char hex[] = "0123456789abcdef";
    enum { BYTES = TATTLE__GITHUB_TOKEN_LENGTH / 2 };
    for (;;) {
        unsigned char random[BYTES];
        if (getrandom(random, sizeof random, 0) != (ssize_t)sizeof random) {
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            unsigned long long seed = (unsigned long long)now.tv_nsec ^
                                      ((unsigned long long)getpid() << 32) ^
                                      (unsigned long long)(uintptr_t)token;
            for (size_t i = 0; i < sizeof random; i++) {
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                random[i] = (unsigned char)(seed >> 56);
            }
        }
        for (size_t i = 0; i < BYTES; i++) {
            token[2 * i] = hex[random[i] >> 4];
            token[2 * i + 1] = hex[random[i] & 15];
        }
        token[TATTLE__GITHUB_TOKEN_LENGTH] = '\0';
        bool found = false;
        for (size_t i = 0; i < count && !found; i++)
            found = texts[i] && memmem(texts[i], lengths[i], token,
                                       TATTLE__GITHUB_TOKEN_LENGTH) != NULL;
        if (!found)
            return;
    }
}

static void log_section(struct github_reporter *self, const char *heading,
                        const char *bytes, size_t length)
{
    if (!length)
        return;
    tattle__buffer_append_string(&self->line, heading);
    tattle__buffer_append_string(&self->line, "\n  ");
    if (bytes[length - 1] == '\n')
        length--;
    escape(&self->line, bytes, length, ESCAPE_LOG);
    tattle__buffer_append_string(&self->line, "\n");
}

/* A failed test's output and trace in a log group, with workflow commands
 * stopped while they are written. */
static void output_group(struct github_reporter *self,
                         const struct tattle_result *result)
{
    tattle__buffer_clear(&self->text);
    if (result->trace)
        tattle__text_trace(&self->text, result->trace);
    if (!result->stdout_output.length && !result->stderr_output.length &&
        !self->text.length)
        return;
    char token[TATTLE__GITHUB_TOKEN_LENGTH + 1];
    const char *texts[] = {result->stdout_output.text,
                           result->stderr_output.text, self->text.data};
    size_t lengths[] = {result->stdout_output.length,
                        result->stderr_output.length, self->text.length};
    tattle__github_stop_token(token, texts, lengths, 3);
    tattle__buffer_append_string(&self->line, "::group::");
    escape_string(&self->line, result->test->id, ESCAPE_DATA);
    tattle__buffer_append_string(&self->line, " output\n::stop-commands::");
    tattle__buffer_append_string(&self->line, token);
    tattle__buffer_append_string(&self->line, "\n");
    log_section(self, "stdout:", result->stdout_output.text,
                result->stdout_output.length);
    log_section(self, "stderr:", result->stderr_output.text,
                result->stderr_output.length);
    log_section(self, "trace:", self->text.data, self->text.length);
    tattle__buffer_append_string(&self->line, "::");
    tattle__buffer_append_string(&self->line, token);
    tattle__buffer_append_string(&self->line, "::\n::endgroup::\n");
    write_line(self);
}

/* ---- The job summary -------------------------------------------------- */

static void summary_row(struct github_reporter *self,
                        const struct tattle_result *result)
{
    if (self->failed_rows++ >= SUMMARY_ROWS)
        return;
    const struct tattle_failure *failure =
        result->failure_count ? &result->failures[0] : NULL;
    struct tattle__buffer *out = &self->rows;
    tattle__buffer_append_string(out, "| ");
    escape_string(out, result->test->id, ESCAPE_CELL);
    tattle__buffer_append_string(out, " | ");
    const char *file;
    int line;
    tattle__text_location(result, failure, &file, &line);
    if (file) {
        escape_string(out, repository_path(self, file), ESCAPE_CELL);
        if (line > 0) {
            tattle__buffer_append_string(out, "\\:");
            tattle__text_uint(out, (unsigned long long)line);
        }
    }
    tattle__buffer_append_string(out, " | ");
    const char *message =
        failure ? failure->message : tattle_state_name(result->state);
    if (message)
        escape(out, message, strcspn(message, "\n"), ESCAPE_CELL);
    tattle__buffer_append_string(out, " |\n");

    if (!result->rerun)
        return;
    size_t run = 0;
    for (const char *p = result->rerun; *p; p++) {
        run = *p == '`' ? run + 1 : 0;
        if (run > self->longest_backtick_run)
            self->longest_backtick_run = run;
    }
    escape_string(&self->rerun_commands, result->rerun, ESCAPE_FENCE);
    tattle__buffer_append_string(&self->rerun_commands, "\n");
}

static void append_count(struct tattle__buffer *out, uint64_t count)
{
    tattle__buffer_append_string(out, " ");
    tattle__text_uint(out, count);
    tattle__buffer_append_string(out, " |");
}

static void append_fence(struct tattle__buffer *out, size_t length)
{
    for (size_t i = 0; i < length; i++)
        tattle__buffer_append_string(out, "`");
}

static int write_summary(struct github_reporter *self,
                         const struct tattle_summary *summary)
{
    const char *path = getenv("GITHUB_STEP_SUMMARY");
    if (!path || !*path)
        return 0;
    struct tattle__buffer out = {0};
    const char *name = strrchr(self->executable, '/');
    name = name ? name + 1 : self->executable;
    tattle__buffer_append_string(&out, "### ");
    escape_string(&out, name, ESCAPE_CELL);
    bool failed = summary->failed + summary->invalid > 0;
    tattle__buffer_append_string(&out, failed ? ": tests failed\n\n"
                                              : ": tests passed\n\n");
    if (summary->interrupted)
        tattle__buffer_append_string(
            &out, "The run was interrupted: tests that did not run are "
                  "counted as skipped.\n\n");
    tattle__buffer_append_string(
        &out, "| total | passed | failed | invalid | skipped | excluded | "
              "flaky | seconds |\n|---:|---:|---:|---:|---:|---:|---:|---:|"
              "\n|");
    append_count(&out, summary->total);
    append_count(&out, summary->passed);
    append_count(&out, summary->failed);
    append_count(&out, summary->invalid);
    append_count(&out, summary->skipped);
    append_count(&out, summary->excluded);
    append_count(&out, summary->flaky);
    tattle__buffer_printf(&out, " %.3f |\n",
                          (double)summary->duration_us / 1e6);
    if (self->failed_rows) {
        tattle__buffer_append_string(
            &out, "\n| failed test | where | first failure |\n"
                  "|---|---|---|\n");
        tattle__buffer_append(&out, self->rows.data, self->rows.length);
        if (self->failed_rows > SUMMARY_ROWS)
            tattle__buffer_printf(&out, "\nand %zu more failed tests.\n",
                                  self->failed_rows - SUMMARY_ROWS);
    }
    if (self->rerun_commands.length) {
        size_t fence = self->longest_backtick_run >= 3
                           ? self->longest_backtick_run + 1
                           : 3;
        tattle__buffer_append_string(&out, "\nRerun the failed tests:\n\n");
        append_fence(&out, fence);
        tattle__buffer_append_string(&out, "sh\n");
        tattle__buffer_append(&out, self->rerun_commands.data,
                              self->rerun_commands.length);
        append_fence(&out, fence);
        tattle__buffer_append_string(&out, "\n");
    }
    tattle__buffer_append_string(&out, "\n");
    int error = 0;
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0)
        error = -errno;
    else {
        error = tattle__write_all(fd, out.data, out.length);
        if (close(fd) != 0 && !error)
            error = -errno;
    }
    tattle__buffer_release(&out);
    return error;
}

/* ---- Callbacks -------------------------------------------------------- */

static void github_destroy(void *opaque);

static int github_create(void **out, const char *destination,
                         const struct tattle_report_options *options)
{
    (void)options;
    struct github_reporter *self = tattle__calloc(1, sizeof *self);
    int error = tattle__report_output_open(&self->output, destination, true);
    if (error) {
        free(self);
        return error;
    }
    const char *workspace = getenv("GITHUB_WORKSPACE");
    if (workspace && *workspace) {
        self->workspace = workspace;
        self->workspace_length = strlen(workspace);
        while (self->workspace_length > 1 &&
               workspace[self->workspace_length - 1] == '/')
            self->workspace_length--;
    }
    *out = self;
    return 0;
}

static void github_begin(void *opaque, const struct tattle_run_info *run)
{
    struct github_reporter *self = opaque;
    self->executable =
        tattle__strdup(run->executable ? run->executable : "tattle");
}

static void github_test_started(void *opaque,
                                const struct tattle_test_info *test)
{
    (void)opaque;
    (void)test;
}

static void github_test_finished(void *opaque,
                                 const struct tattle_result *result)
{
    struct github_reporter *self = opaque;
    bool failed = result->state == TATTLE_STATE_FAILED ||
                  result->state == TATTLE_STATE_INVALID;
    if (failed) {
        for (size_t i = 0; i < result->failure_count; i++)
            annotate(self, result, &result->failures[i], "error", NULL, NULL);
        if (!result->failure_count)
            annotate(self, result, NULL, "error", NULL,
                     result->state == TATTLE_STATE_INVALID
                         ? "the test is invalid\n"
                         : "the test failed\n");
        output_group(self, result);
        summary_row(self, result);
    } else if (result->flaky) {
        self->flaky++;
        char preface[96];
        snprintf(preface, sizeof preface,
                 "flaky: attempt %u failed, attempt %u passed\n",
                 tattle__shown_attempt(result), result->attempts);
        for (size_t i = 0; i < result->failure_count; i++)
            annotate(self, result, &result->failures[i], "warning", " (flaky)",
                     preface);
    } else
        return;
    tattle__remember_error(&self->error,
                           tattle__report_output_flush(&self->output));
}

static int github_end(void *opaque, const struct tattle_summary *summary)
{
    struct github_reporter *self = opaque;
    if (!self->executable)
        self->executable = tattle__strdup("tattle");
    int error = self->error;
    int summary_error = write_summary(self, summary);
    if (!error)
        error = summary_error;
    if (!error)
        error = tattle__report_output_commit(&self->output);
    return error;
}

static void github_destroy(void *opaque)
{
    struct github_reporter *self = opaque;
    if (!self)
        return;
    tattle__report_output_discard(&self->output);
    free(self->executable);
    tattle__buffer_release(&self->line);
    tattle__buffer_release(&self->text);
    tattle__buffer_release(&self->rows);
    tattle__buffer_release(&self->rerun_commands);
    free(self);
}

const struct tattle_reporter_type tattle__reporter_github = {
    .name = "github",
    .create = github_create,
    .begin = github_begin,
    .test_started = github_test_started,
    .test_finished = github_test_finished,
    .end = github_end,
    .destroy = github_destroy,
};

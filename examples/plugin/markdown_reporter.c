/*
 * markdown_reporter.c — a reporter plugin: the run as a Markdown summary.
 *
 * Built as a shared object (a CMake MODULE library) and loaded by any
 * tattle test binary with `--reporter ./libtattle_markdown.so[=FILE]` or
 * `reports: {plugins: [{path: ..., file: ...}]}` in tattle.yml. It writes
 * a heading, the counts, and a table with one row per failed test (id,
 * kind, place, first line of the message): what a pull-request comment or
 * GitHub's job summary ($GITHUB_STEP_SUMMARY) shows.
 *
 * It uses only the types of <tattle/reporter.h> and links no tattle
 * library. It runs in the runner process only, so plain stdio is safe
 * here: no test process is forked after it has buffered anything. A file
 * is written beside its destination and renamed over it at the end, so a
 * run that fails leaves an earlier summary as it was.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tattle/reporter.h>

struct markdown_failure {
    char *id;
    char *kind;
    char *place;
    char *message;
};

struct markdown_reporter {
    FILE *stream;
    char *path;      /* the destination; NULL for stdout */
    char *temp_path; /* written, then renamed onto path */
    char *program;
    struct markdown_failure *failures;
    size_t failure_count;
};

static const char *const failure_kinds[] = {"assertion", "crash", "timeout",
                                            "exit", "error"};

static char *copy_text(const char *text)
{
    return strdup(text ? text : "");
}

static int markdown_create(void **out, const char *destination,
                           const struct tattle_report_options *options)
{
    (void)options;
    struct markdown_reporter *self = calloc(1, sizeof *self);
    if (!self)
        return -ENOMEM;
    if (!destination || strcmp(destination, "-") == 0) {
        self->stream = stdout;
    } else {
        size_t length = strlen(destination) + 32;
        self->path = strdup(destination);
        self->temp_path = malloc(length);
        if (!self->path || !self->temp_path) {
            free(self->path);
            free(self->temp_path);
            free(self);
            return -ENOMEM;
        }
        snprintf(self->temp_path, length, "%s.%ld.tmp", destination,
                 (long)getpid());
        self->stream = fopen(self->temp_path, "wx");
        if (!self->stream) {
            int error = -errno;
            free(self->path);
            free(self->temp_path);
            free(self);
            return error;
        }
    }
    *out = self;
    return 0;
}

static void markdown_begin(void *opaque, const struct tattle_run_info *run)
{
    struct markdown_reporter *self = opaque;
    const char *slash = run->executable ? strrchr(run->executable, '/') : NULL;
    self->program = copy_text(slash ? slash + 1 : run->executable);
}

static void markdown_test_finished(void *opaque,
                                   const struct tattle_result *result)
{
    struct markdown_reporter *self = opaque;
    if (result->state != TATTLE_STATE_FAILED &&
        result->state != TATTLE_STATE_INVALID)
        return;
    struct markdown_failure *grown = realloc(
        self->failures, (self->failure_count + 1) * sizeof *self->failures);
    if (!grown)
        return;
    self->failures = grown;
    struct markdown_failure *row = &self->failures[self->failure_count++];
    const struct tattle_failure *first =
        result->failure_count > 0 ? &result->failures[0] : NULL;
    char place[512] = "";
    const char *file = first && first->file ? first->file : result->test->file;
    int line = first && first->file ? first->line : result->test->line;
    if (file)
        snprintf(place, sizeof place, "%s:%d", file, line);
    row->id = copy_text(result->test->id);
    row->kind = copy_text(first && (unsigned)first->kind < 5
                              ? failure_kinds[first->kind]
                              : "invalid");
    row->place = copy_text(place);
    row->message = copy_text(first ? first->message : result->skip_reason);
}

/* A table cell: the first line of `text`, with '|' and '`' escaped and
 * control bytes shown as '?', so no test output can break the table. */
static void write_cell(FILE *stream, const char *text)
{
    for (const char *c = text; *c && *c != '\n'; c++) {
        if (*c == '|' || *c == '`' || *c == '\\' || *c == '<')
            fputc('\\', stream);
        fputc((unsigned char)*c < 0x20 || *c == 0x7f ? '?' : *c, stream);
    }
}

static int markdown_end(void *opaque, const struct tattle_summary *summary)
{
    struct markdown_reporter *self = opaque;
    FILE *out = self->stream;
    fprintf(out, "## tattle: %s\n\n", self->program ? self->program : "");
    fprintf(out,
            "**%llu passed, %llu failed, %llu skipped** of %llu tests "
            "in %.2f s%s\n",
            (unsigned long long)summary->passed,
            (unsigned long long)(summary->failed + summary->invalid),
            (unsigned long long)summary->skipped,
            (unsigned long long)summary->total,
            (double)summary->duration_us / 1e6,
            summary->interrupted ? " (interrupted)" : "");
    if (self->failure_count > 0) {
        fputs("\n| test | kind | where | message |\n|---|---|---|---|\n", out);
        for (size_t i = 0; i < self->failure_count; i++) {
            const struct markdown_failure *row = &self->failures[i];
            fputs("| ", out);
            write_cell(out, row->id);
            fputs(" | ", out);
            write_cell(out, row->kind);
            fputs(" | ", out);
            write_cell(out, row->place);
            fputs(" | ", out);
            write_cell(out, row->message);
            fputs(" |\n", out);
        }
    }
    if (!self->path)
        return fflush(out) == 0 ? 0 : -errno;
    bool written = !ferror(out);
    int rc = fclose(out);
    self->stream = NULL;
    if (!written || rc != 0 || rename(self->temp_path, self->path) != 0) {
        int error = errno ? -errno : -EIO;
        unlink(self->temp_path);
        return error;
    }
    free(self->temp_path);
    self->temp_path = NULL;
    return 0;
}

static void markdown_destroy(void *opaque)
{
    struct markdown_reporter *self = opaque;
    if (self->path && self->stream) {
        fclose(self->stream);
        unlink(self->temp_path);
    }
    for (size_t i = 0; i < self->failure_count; i++) {
        free(self->failures[i].id);
        free(self->failures[i].kind);
        free(self->failures[i].place);
        free(self->failures[i].message);
    }
    free(self->failures);
    free(self->program);
    free(self->path);
    free(self->temp_path);
    free(self);
}

static const struct tattle_reporter_type markdown_reporter_type = {
    .name = "markdown",
    .create = markdown_create,
    .begin = markdown_begin,
    .test_finished = markdown_test_finished,
    .end = markdown_end,
    .destroy = markdown_destroy,
};

TATTLE_REPORTER_PLUGIN(markdown_reporter_type)

/*
 * jsonl.c — the "jsonl" reporter (see jsonl.h for the stream it writes).
 *
 * Each event is printed into a reused buffer (a test's lines, started and
 * finished, written straight in with results/json.h and json_writer.h, the
 * run's with cJSON), a newline
 * appended, and written with one write(2) call, so a line is either in the
 * file whole or not at all when the runner is killed between events. A
 * write that fails or falls short (a full disk) is undone: the file is cut
 * back to the end of the last whole line, and the stream stops there (a
 * later, shorter line could still fit, and a reader would take the missing
 * one for a test still running); end() returns the error.
 */
#include "reporter/jsonl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/report_file.h"
#include "results/json.h"
#include "results/json_writer.h"

struct jsonl_reporter {
    struct tattle_report_options options;
    int fd;
    bool owns_fd;
    struct tattle__buffer printed;
    /* Where the last whole line ends in a file of its own (counting):
     * only this reporter writes to it (it is opened after the fork server
     * started, so no forked test holds it), and asking the kernel before
     * each line cost a system call per event. A standard stream is asked
     * each time, since others write to it too (a report opened as
     * descriptor 1 or 2, when the runner started without them, is one).
     * -1 when counting: the file cannot be cut back (a pipe, a terminal). */
    bool counting;
    off_t end_of_lines;
    int error; /* the first error; nothing is written after it */
};

static int jsonl_create(void **out, const char *destination,
                        const struct tattle_report_options *options)
{
    struct jsonl_reporter *self = calloc(1, sizeof *self);
    if (!self)
        return -ENOMEM;
    if (options)
        self->options = *options;
    if (!destination || strcmp(destination, "-") == 0)
        self->fd = STDOUT_FILENO;
    else {
        self->fd =
            open(destination, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        if (self->fd < 0) {
            int error = -errno;
            free(self);
            return error;
        }
        self->owns_fd = true;
    }
    self->counting = self->owns_fd && self->fd > STDERR_FILENO;
    self->end_of_lines = self->counting ? lseek(self->fd, 0, SEEK_CUR) : -1;
    *out = self;
    return 0;
}

/* Writes `length` bytes of whole lines, or nothing: after a failed or
 * short write the file is cut back to where it ended before (a pipe or a
 * terminal cannot be, and a write there is whole up to PIPE_BUF anyway). */
static int write_whole(struct jsonl_reporter *self, const char *bytes,
                       size_t length)
{
    off_t end_of_lines =
        self->counting ? self->end_of_lines : lseek(self->fd, 0, SEEK_CUR);
    int error = tattle__write_all(self->fd, bytes, length);
    if (!error && self->counting && end_of_lines >= 0)
        self->end_of_lines = end_of_lines + (off_t)length;
    if (error && end_of_lines >= 0 && ftruncate(self->fd, end_of_lines) == 0)
        lseek(self->fd, end_of_lines, SEEK_SET);
    return error;
}

/* Writes the printed line, ended here, to the stream. */
static void write_line(struct jsonl_reporter *self)
{
    tattle__buffer_append(&self->printed, "\n", 1);
    if (self->fd == STDOUT_FILENO)
        fflush(stdout);
    int error = write_whole(self, self->printed.data, self->printed.length);
    if (error && !self->error)
        self->error = error;
}

/* Prints `line` (and deletes it) as one line of the stream. */
static void emit(struct jsonl_reporter *self, cJSON *line, bool ok)
{
    if (self->error) {
        cJSON_Delete(line);
        return;
    }
    if (!line || !ok) {
        cJSON_Delete(line);
        if (!self->error)
            self->error = -ENOMEM;
        return;
    }
    bool printed = tattle__json_print(line, &self->printed);
    cJSON_Delete(line);
    if (!printed) {
        self->error = -ENOMEM;
        return;
    }
    write_line(self);
}

static cJSON *event(const char *name)
{
    cJSON *line = cJSON_CreateObject();
    if (line && !cJSON_AddItemToObjectCS(line, "event",
                                         cJSON_CreateStringReference(name))) {
        cJSON_Delete(line);
        return NULL;
    }
    return line;
}

static bool add_owned(cJSON *line, const char *key, cJSON *item)
{
    if (item && cJSON_AddItemToObjectCS(line, key, item))
        return true;
    cJSON_Delete(item);
    return false;
}

static void jsonl_begin(void *opaque, const struct tattle_run_info *run)
{
    struct jsonl_reporter *self = opaque;
    cJSON *line = event("run_started");
    bool ok = line != NULL;
    ok = ok &&
         cJSON_AddNumberToObject(line, "version", TATTLE__JSON_SCHEMA_VERSION);
    ok = ok && add_owned(line, "tool", tattle__json_tool());
    ok = ok && add_owned(line, "run", tattle__json_run(run, NULL));
    ok = ok && tattle__json_add_uint(line, "planned", run->planned);
    emit(self, line, ok);
}

/* Written straight into the buffer, as test_finished is: the line of every
 * test, which cJSON built and freed again with four allocations. */
static void jsonl_test_started(void *opaque,
                               const struct tattle_test_info *test)
{
    struct jsonl_reporter *self = opaque;
    if (self->error)
        return;
    tattle__buffer_clear(&self->printed);
    TATTLE__JSON_WRITE_LITERAL(&self->printed,
                               "{\"event\":\"test_started\",\"id\":");
    tattle__json_write_text(&self->printed, test->id ? test->id : "");
    TATTLE__JSON_WRITE_LITERAL(&self->printed, "}");
    write_line(self);
}

static void jsonl_test_finished(void *opaque,
                                const struct tattle_result *result)
{
    struct jsonl_reporter *self = opaque;
    if (self->error)
        return;
    tattle__buffer_clear(&self->printed);
    TATTLE__JSON_WRITE_LITERAL(&self->printed,
                               "{\"event\":\"test_finished\",\"test\":");
    tattle__json_write_test(&self->printed, result, &self->options);
    TATTLE__JSON_WRITE_LITERAL(&self->printed, "}");
    write_line(self);
}

static int jsonl_end(void *opaque, const struct tattle_summary *summary)
{
    struct jsonl_reporter *self = opaque;
    cJSON *line = event("run_finished");
    bool ok = line && add_owned(line, "summary", tattle__json_summary(summary));
    ok = ok && cJSON_AddBoolToObject(line, "interrupted", summary->interrupted);
    emit(self, line, ok);
    if (self->owns_fd) {
        if (close(self->fd) != 0 && !self->error)
            self->error = -errno;
        self->owns_fd = false;
        self->fd = -1;
    }
    return self->error;
}

static void jsonl_destroy(void *opaque)
{
    struct jsonl_reporter *self = opaque;
    if (!self)
        return;
    if (self->owns_fd)
        close(self->fd);
    tattle__buffer_release(&self->printed);
    free(self);
}

const struct tattle_reporter_type tattle__reporter_jsonl = {
    .name = "jsonl",
    .create = jsonl_create,
    .begin = jsonl_begin,
    .test_started = jsonl_test_started,
    .test_finished = jsonl_test_finished,
    .end = jsonl_end,
    .destroy = jsonl_destroy,
};

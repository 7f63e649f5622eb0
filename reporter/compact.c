/*
 * compact.c — the "compact" reporter (see compact.h).
 */
#include "reporter/compact.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/report_file.h"
#include "reporter/report_output.h"
#include "results/error_groups.h"
#include "results/json.h"
#include "results/model.h"

struct compact_reporter {
    struct tattle_report_options options;
    bool to_stdout;
    char *destination;
    struct tattle__atomic_file file;
    bool anonymous; /* file.fd has no name until the end */
    struct tattle__sink output;
    struct tattle__report_selection selection;
    struct tattle__error_groups groups;
    struct tattle__buffer printed;
    int error; /* the first error met, returned by end */
};

/* "file:line" of where a failure happened: its own place, else its
 * innermost frame with a source location, else the test's declaration. */
static cJSON *create_location(const struct tattle_result *result,
                              const struct tattle_failure *failure)
{
    const char *file = failure->file;
    int line = failure->line;
    for (size_t i = 0; !file && i < failure->frame_count; i++) {
        file = failure->frames[i].file;
        line = failure->frames[i].line;
    }
    if (!file) {
        file = result->test->file;
        line = result->test->line;
    }
    if (!file)
        return cJSON_CreateNull();
    struct tattle__buffer text = {0};
    tattle__buffer_printf(&text, "%s:%d", file, line);
    cJSON *item = tattle__json_bytes(text.data, text.length);
    tattle__buffer_release(&text);
    return item;
}

/* {"id","s","f","e"} of one test. */
static cJSON *create_line(const struct tattle_result *result,
                          const struct tattle_report_options *options)
{
    cJSON *line = cJSON_CreateObject();
    if (!line)
        return NULL;
    bool ok = tattle__json_add_text(line, "id",
                                    result->test->id ? result->test->id : "");
    ok = cJSON_AddStringToObject(line, "s", tattle_state_name(result->state)) &&
         ok;
    const struct tattle_failure *failure =
        tattle__first_failure(result, options);
    bool filtered = false;
    if (!failure && result->failure_count) {
        failure = &result->failures[0];
        filtered = true;
    }
    const char *explanation = failure ? failure->message : result->skip_reason;
    if (failure) {
        cJSON *location = create_location(result, failure);
        ok = location && cJSON_AddItemToObject(line, "f", location) && ok;
    }
    if (explanation) {
        char *first = tattle__first_line(explanation);
        struct tattle__buffer e = {0};
        tattle__buffer_append_string(&e, first ? first : "");
        /* A message of the user's own hides the values: keep them. */
        if (failure && failure->left && failure->right && first &&
            !(strstr(first, failure->left) && strstr(first, failure->right)))
            tattle__buffer_printf(&e, " (left: %s, right: %s)", failure->left,
                                  failure->right);
        ok = first && tattle__json_add_bytes(line, "e", e.data, e.length) && ok;
        tattle__buffer_release(&e);
        free(first);
    }
    if (filtered)
        ok = cJSON_AddTrueToObject(line, "filtered") && ok;
    if (!ok) {
        cJSON_Delete(line);
        return NULL;
    }
    return line;
}

static void write_line(struct compact_reporter *self, const cJSON *line)
{
    if (!line || !tattle__json_print(line, &self->printed)) {
        tattle__remember_error(&self->error, -ENOMEM);
        return;
    }
    tattle__buffer_append(&self->printed, "\n", 1);
    tattle__sink_write(&self->output, self->printed.data, self->printed.length);
    if (self->to_stdout)
        tattle__sink_flush(&self->output);
    tattle__remember_error(&self->error, self->output.error);
}

static void compact_destroy(void *opaque);

static int compact_create(void **out, const char *destination,
                          const struct tattle_report_options *options)
{
    struct compact_reporter *self = tattle__calloc(1, sizeof *self);
    self->file.fd = -1;
    if (options)
        self->options = *options;
    if (self->options.group_by_error && self->options.error_groups_read)
        tattle__error_groups_seed(&self->groups,
                                  self->options.error_groups_read);
    self->to_stdout = !destination || strcmp(destination, "-") == 0;
    self->destination = tattle__strdup(self->to_stdout ? "-" : destination);
    int error = 0;
    if (self->to_stdout) {
        self->output.fd = STDOUT_FILENO;
    } else {
        char *directory = tattle__path_directory(destination);
        int fd = directory ? tattle__anonymous_open(directory) : -ENOMEM;
        free(directory);
        if (fd >= 0) {
            self->file.fd = fd;
            self->anonymous = true;
        } else if (fd == -EOPNOTSUPP) {
            error = tattle__atomic_open(&self->file, destination);
        } else {
            error = fd;
        }
        self->output.fd = self->file.fd;
    }
    if (error) {
        compact_destroy(self);
        return error;
    }
    *out = self;
    return 0;
}

static void compact_begin(void *opaque, const struct tattle_run_info *run)
{
    (void)opaque;
    (void)run;
}

static void compact_test_finished(void *opaque,
                                  const struct tattle_result *result)
{
    struct compact_reporter *self = opaque;
    if (self->options.group_by_error)
        tattle__error_groups_add(&self->groups, result, &self->options);
    if (self->error || !tattle__report_selection_keeps(&self->selection,
                                                       &self->options, result))
        return;
    cJSON *line = create_line(result, &self->options);
    write_line(self, line);
    cJSON_Delete(line);
}

static int compact_end(void *opaque, const struct tattle_summary *summary)
{
    struct compact_reporter *self = opaque;
    cJSON *line = cJSON_CreateObject();
    cJSON *summary_object = tattle__json_summary(summary);
    bool ok = line && summary_object &&
              cJSON_AddItemToObject(line, "summary", summary_object);
    if (!ok && summary_object && line &&
        !cJSON_GetObjectItemCaseSensitive(line, "summary"))
        cJSON_Delete(summary_object);
    if (ok && self->options.group_by_error) {
        cJSON *groups = tattle__error_groups_json(&self->groups);
        ok = groups && cJSON_AddItemToObject(line, "error_groups", groups);
        if (!ok)
            cJSON_Delete(groups);
    }
    if (!self->error) {
        if (ok)
            write_line(self, line);
        else
            tattle__remember_error(&self->error, -ENOMEM);
    }
    cJSON_Delete(line);
    tattle__remember_error(&self->error, tattle__sink_flush(&self->output));
    if (self->error || self->to_stdout)
        return self->error;
    int error;
    if (self->anonymous) {
        error = tattle__anonymous_commit(self->file.fd, self->destination);
        close(self->file.fd);
        self->file.fd = -1;
    } else {
        error = tattle__atomic_commit(&self->file);
    }
    self->output.fd = -1;
    return error;
}

static void compact_destroy(void *opaque)
{
    struct compact_reporter *self = opaque;
    if (!self->to_stdout && self->file.fd >= 0) {
        if (self->anonymous)
            close(self->file.fd);
        else
            tattle__atomic_discard(&self->file);
    }
    tattle__sink_release(&self->output);
    tattle__error_groups_release(&self->groups);
    tattle__buffer_release(&self->printed);
    free(self->destination);
    free(self);
}

const struct tattle_reporter_type tattle__reporter_compact = {
    .name = "compact",
    .create = compact_create,
    .begin = compact_begin,
    .test_finished = compact_test_finished,
    .end = compact_end,
    .destroy = compact_destroy,
};

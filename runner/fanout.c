/*
 * fanout.c — opening the reporters and passing each event to all of them.
 *
 * A destination is checked the way the reporter will use it: a report is
 * written beside its file and renamed over it, so the file must not be a
 * directory and its directory must exist and be writable. The reporters
 * are kept in a growable array: no number of them is refused or dropped.
 */
#include "runner/fanout.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fcntl.h>
#include <sys/random.h>

#include "base/timestamp.h"
#include "runner/environment.h"

/* A reporter asked for, and where it writes (NULL: its default). */
struct reporter_wanted {
    const char *name;
    const char *destination;
    const char *named_at; /* "FILE:LINE:COLUMN" in tattle.yml, or NULL */
};

/* Starts an error about a wanted reporter with the place in tattle.yml
 * that asked for it, when one did. */
static void append_named_at(struct tattle__buffer *error,
                            const struct reporter_wanted *wanted)
{
    if (wanted->named_at)
        tattle__buffer_printf(error, "%s: ", wanted->named_at);
}

/* Where a reporter is told to write a stream rather than a file: "-"
 * (standard output); the console also takes "stdout" and "stderr". To
 * every other reporter those two are file names, as any other word. */
static bool is_standard_stream(const char *reporter, const char *path)
{
    if (strcmp(path, "-") == 0)
        return true;
    return strcmp(reporter, "console") == 0 &&
           (strcmp(path, "stdout") == 0 || strcmp(path, "stderr") == 0);
}

/* Where a requested reporter writes: its destination, or "-" (standard
 * output) when it has none, said explicitly for the GitHub Actions
 * workflow commands, which the runner of a workflow reads from the
 * step's output; NULL leaves the choice to the reporter, which is
 * standard output too (writes_report_to_stdout). */
static const char *
request_destination(const struct tattle__reporter_request *request)
{
    if (!request->destination && strcmp(request->name, "github") == 0)
        return "-";
    return request->destination;
}

/* A reporter other than the console writes a report to stdout when given
 * no destination or "-": the console then goes to stderr, so that stdout
 * holds that report alone. */
static bool writes_report_to_stdout(const struct tattle__options *options,
                                    size_t i)
{
    const char *destination = options->reporters[i].destination;
    return strcmp(options->reporters[i].name, "console") != 0 &&
           (!destination || strcmp(destination, "-") == 0);
}

bool tattle__fanout_takes_stdout(const struct tattle__options *options)
{
    for (size_t i = 0; i < options->reporter_count; i++)
        if (writes_report_to_stdout(options, i))
            return true;
    return false;
}

/* A report file can be written: not a directory, and its directory exists
 * and is writable (the report is written beside it, then renamed). */
static int check_destination_writable(const struct reporter_wanted *wanted,
                                      struct tattle__buffer *error)
{
    const char *reporter = wanted->name;
    const char *path = wanted->destination;
    if (!path || is_standard_stream(reporter, path))
        return 0;
    struct stat status;
    if (stat(path, &status) == 0 && S_ISDIR(status.st_mode)) {
        append_named_at(error, wanted);
        tattle__buffer_printf(error, "the %s report '%s' is a directory",
                              reporter, path);
        return -EINVAL;
    }
    const char *slash = strrchr(path, '/');
    char *directory =
        slash ? strndup(path, (size_t)(slash - path) + (slash == path))
              : tattle__strdup(".");
    int rc = 0;
    if (!directory || access(directory, W_OK | X_OK) != 0) {
        append_named_at(error, wanted);
        tattle__buffer_printf(error, "cannot write the %s report '%s': %s: %s",
                              reporter, path, directory ? directory : path,
                              strerror(errno));
        rc = -EINVAL;
    } else if (access(path, F_OK) == 0 && access(path, W_OK) != 0) {
        append_named_at(error, wanted);
        tattle__buffer_printf(error, "cannot write the %s report '%s': %s",
                              reporter, path, strerror(errno));
        rc = -EINVAL;
    }
    free(directory);
    return rc;
}

/* Where the console goes when not told: stdout, unless a report takes it. */
static const char *console_place(bool stdout_taken)
{
    return stdout_taken ? "stderr" : "stdout";
}

/* The console first unless it was asked for (then where it was asked),
 * then the requested reporters in order; `wanted` has room for one more
 * than the requests. Returns how many. */
static size_t list_wanted(const struct tattle__options *options,
                          bool stdout_taken, struct reporter_wanted *wanted)
{
    size_t count = 0;
    bool console_requested = false;
    for (size_t i = 0; i < options->reporter_count; i++)
        console_requested |= strcmp(options->reporters[i].name, "console") == 0;
    if (!console_requested)
        wanted[count++] = (struct reporter_wanted){
            "console", console_place(stdout_taken), NULL};
    for (size_t i = 0; i < options->reporter_count; i++) {
        const char *name = options->reporters[i].name;
        const char *destination = request_destination(&options->reporters[i]);
        /* --compact: the JSON report in its compact form. */
        if (options->compact && strcmp(name, "json") == 0)
            name = "compact";
        if (strcmp(name, "console") == 0 && !destination)
            destination = console_place(stdout_taken);
        wanted[count++] = (struct reporter_wanted){
            name, destination, options->reporters[i].named_at};
    }
    return count;
}

/* Makes `path` a directory if it is none yet (its parents too). */
static int make_directories(const char *path)
{
    char *partial = tattle__strdup(path);
    int rc = 0;
    for (char *slash = partial + 1; rc == 0; slash++) {
        if (*slash != '/' && *slash != '\0')
            continue;
        char kept = *slash;
        *slash = '\0';
        if (mkdir(partial, 0777) != 0 && errno != EEXIST)
            rc = -errno;
        *slash = kept;
        if (kept == '\0')
            break;
    }
    free(partial);
    return rc;
}

/* Creates DIR/PROGRAM-PID-RANDOM.jsonl, empty, with O_EXCL (a name taken
 * by another run is never opened: another random part is drawn), and
 * stores its path in fanout->report_dir_stream. */
static int create_report_dir_stream(struct tattle__fanout *fanout,
                                    const char *directory,
                                    struct tattle__buffer *error)
{
    struct stat status;
    int rc = make_directories(directory);
    if (rc == 0 && (stat(directory, &status) != 0 || !S_ISDIR(status.st_mode)))
        rc = -ENOTDIR;
    if (rc != 0) {
        tattle__buffer_printf(error, "--report-dir '%s': %s", directory,
                              strerror(-rc));
        return -EINVAL;
    }
    const char *program = program_invocation_short_name;
    struct tattle__buffer path = {0};
    for (int attempt = 0; attempt < 100; attempt++) {
        uint64_t random_part = 0;
        if (getrandom(&random_part, sizeof random_part, GRND_NONBLOCK) !=
            (ssize_t)sizeof random_part)
            random_part = (uint64_t)tattle__now_us() * 0x9e3779b97f4a7c15u +
                          (uint64_t)attempt;
        path.length = 0;
        tattle__buffer_printf(
            &path, "%s/%s-%ld-%012llx.jsonl", directory,
            program && *program ? program : "tattle", (long)getpid(),
            (unsigned long long)(random_part & 0xffffffffffffu));
        int fd = open(path.data, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            close(fd);
            fanout->report_dir_stream = tattle__buffer_take(&path);
            return 0;
        }
        if (errno != EEXIST) {
            tattle__buffer_printf(error,
                                  "--report-dir '%s': cannot create %s: %s",
                                  directory, path.data, strerror(errno));
            tattle__buffer_release(&path);
            return -EINVAL;
        }
    }
    tattle__buffer_printf(error, "--report-dir '%s': no free file name",
                          directory);
    tattle__buffer_release(&path);
    return -EINVAL;
}

static int check_wanted(const struct reporter_wanted *wanted, size_t count,
                        struct tattle__buffer *error)
{
    for (size_t i = 0; i < count; i++) {
        if (!tattle_reporter_find(wanted[i].name)) {
            tattle__options_describe_unknown_reporter(error, wanted[i].name);
            return -EINVAL;
        }
        if (check_destination_writable(&wanted[i], error) != 0)
            return -EINVAL;
    }
    return 0;
}

static void add_open_reporter(struct tattle__fanout *fanout,
                              const struct tattle_reporter_type *type,
                              void *self)
{
    if (fanout->count == fanout->capacity) {
        fanout->capacity = fanout->capacity ? fanout->capacity * 2 : 4;
        fanout->reporters = tattle__realloc(
            fanout->reporters, fanout->capacity * sizeof *fanout->reporters);
    }
    fanout->reporters[fanout->count++] =
        (struct tattle__open_reporter){type, self};
}

static int open_wanted(struct tattle__fanout *fanout,
                       const struct reporter_wanted *wanted, size_t count,
                       struct tattle__buffer *error)
{
    for (size_t i = 0; i < count; i++) {
        const struct tattle_reporter_type *type =
            tattle_reporter_find(wanted[i].name);
        void *self = NULL;
        int rc = type->create(&self, wanted[i].destination, &fanout->options);
        if (rc != 0) {
            append_named_at(error, &wanted[i]);
            tattle__buffer_printf(
                error, "cannot open the %s report '%s': %s", wanted[i].name,
                wanted[i].destination ? wanted[i].destination : "",
                strerror(-rc));
            return rc;
        }
        add_open_reporter(fanout, type, self);
    }
    return 0;
}

int tattle__fanout_open(struct tattle__fanout *fanout,
                        const struct tattle__options *options,
                        struct tattle__buffer *error)
{
    bool stdout_taken = false, console_on_stdout = false;
    for (size_t i = 0; i < options->reporter_count; i++) {
        const char *destination = options->reporters[i].destination;
        if (strcmp(options->reporters[i].name, "console") == 0 && destination &&
            (strcmp(destination, "stdout") == 0 ||
             strcmp(destination, "-") == 0))
            console_on_stdout = true;
        if (!writes_report_to_stdout(options, i))
            continue;
        if (stdout_taken) {
            tattle__buffer_printf(error,
                                  "only one report can go to standard output "
                                  "('-', or a --reporter without =FILE)");
            return -EINVAL;
        }
        stdout_taken = true;
    }
    if (stdout_taken && console_on_stdout) {
        tattle__buffer_printf(error,
                              "the console cannot go to standard output: a "
                              "report goes there ('-', or a --reporter "
                              "without =FILE)");
        return -EINVAL;
    }
    fanout->options = (struct tattle_report_options){
        .failures_only = options->failures_only,
        .summary_only = options->summary_only,
        .first_failure = options->first_failure,
        .group_by_error = options->group_by_error,
        .compact = options->compact,
        .quiet = options->quiet,
        .trace_passed = options->trace_passed,
        .color = tattle__environment_color_wanted(
            options->color, stdout_taken ? stderr : stdout),
        .filter_out = (const char *const *)options->filter_out.items,
        .filter_out_count = options->filter_out.count,
    };
    for (size_t i = 0; i < options->reporter_count; i++)
        if (strcmp(options->reporters[i].name, "github") == 0)
            fanout->options.stop_workflow_commands = true;
    struct reporter_wanted *wanted =
        tattle__calloc(options->reporter_count + 2, sizeof *wanted);
    size_t count = list_wanted(options, stdout_taken, wanted);
    int rc = check_wanted(wanted, count, error);
    if (rc == 0 && options->report_dir) {
        rc = create_report_dir_stream(fanout, options->report_dir, error);
        wanted[count++] =
            (struct reporter_wanted){"jsonl", fanout->report_dir_stream, NULL};
    }
    if (rc == 0)
        rc = open_wanted(fanout, wanted, count, error);
    if (rc != 0 && fanout->report_dir_stream)
        unlink(fanout->report_dir_stream);
    free(wanted);
    return rc;
}

void tattle__fanout_begin(struct tattle__fanout *fanout,
                          const struct tattle_run_info *run)
{
    for (size_t i = 0; i < fanout->count; i++)
        fanout->reporters[i].type->begin(fanout->reporters[i].self, run);
}

void tattle__fanout_test_started(struct tattle__fanout *fanout,
                                 const struct tattle_test_info *test)
{
    for (size_t i = 0; i < fanout->count; i++)
        if (fanout->reporters[i].type->test_started)
            fanout->reporters[i].type->test_started(fanout->reporters[i].self,
                                                    test);
}

void tattle__fanout_test_finished(struct tattle__fanout *fanout,
                                  const struct tattle_result *result)
{
    for (size_t i = 0; i < fanout->count; i++)
        fanout->reporters[i].type->test_finished(fanout->reporters[i].self,
                                                 result);
}

bool tattle__fanout_end(struct tattle__fanout *fanout,
                        const struct tattle_summary *summary,
                        const char *program)
{
    bool all_written = true;
    for (size_t i = 0; i < fanout->count; i++) {
        const struct tattle__open_reporter *reporter = &fanout->reporters[i];
        int rc = reporter->type->end(reporter->self, summary);
        if (rc != 0) {
            fprintf(stderr, "%s: the %s report could not be written: %s\n",
                    program, reporter->type->name, strerror(-rc));
            all_written = false;
        }
    }
    return all_written;
}

void tattle__fanout_close(struct tattle__fanout *fanout)
{
    for (size_t i = 0; i < fanout->count; i++)
        fanout->reporters[i].type->destroy(fanout->reporters[i].self);
    free(fanout->reporters);
    free(fanout->report_dir_stream);
    fanout->report_dir_stream = NULL;
    fanout->reporters = NULL;
    fanout->count = fanout->capacity = 0;
}

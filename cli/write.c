/*
 * write.c — the subcommands' output: a registered reporter writing into a
 * temporary file that takes the destination's name at the end.
 *
 * Every reporter a test binary uses can write what the command reads back,
 * but not every reporter writes atomically (a stream is written in place),
 * and a bad input may only be found after some tests were written. So the
 * reporter is given a temporary file beside the destination (in $TMPDIR
 * for stdout); the file replaces the destination, or is copied to stdout,
 * only after the reporter's end succeeded. On a bad input, an error or a
 * signal (SIGINT, SIGTERM, SIGHUP, SIGPIPE) the temporary file is removed:
 * no partial output is ever left under the destination's name.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/report_file.h"
#include "cli/cli.h"
#include "reporter/registry.h"
#include "results/model.h"

/* The temporary file of the writer in use, for the signal handler. */
static char *volatile temp_path_in_use;

static void remove_temp_and_die(int signal_number)
{
    char *path = temp_path_in_use;
    if (path)
        unlink(path);
    signal(signal_number, SIG_DFL);
    raise(signal_number);
}

static void guard_temp_path(char *path)
{
    temp_path_in_use = path;
    static bool installed;
    if (installed || !path)
        return;
    installed = true;
    struct sigaction action = {.sa_handler = remove_temp_and_die};
    sigemptyset(&action.sa_mask);
    int signals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
    for (size_t i = 0; i < sizeof signals / sizeof *signals; i++)
        sigaction(signals[i], &action, NULL);
}

int tattle__cli_writer_open(struct tattle__cli_writer *writer,
                            const char *command, const char *format,
                            const char *destination,
                            const struct tattle_report_options *options)
{
    *writer = (struct tattle__cli_writer){0};
    writer->type = tattle_reporter_find(format);
    if (!writer->type) {
        struct tattle__buffer names = {0};
        tattle__reporter_append_names(&names);
        tattle__cli_fail(command, "no format named '%s' (formats: %s)", format,
                         names.data);
        tattle__buffer_release(&names);
        return TATTLE__EXIT_BAD_INPUT;
    }
    bool to_stdout = !destination || strcmp(destination, "-") == 0;
    struct tattle__buffer beside = {0};
    if (to_stdout) {
        const char *tmp = getenv("TMPDIR");
        tattle__buffer_printf(&beside, "%s/tattle-output",
                              tmp && *tmp ? tmp : "/tmp");
    } else
        tattle__buffer_append_string(&beside, destination);
    struct tattle__atomic_file file;
    int rc = tattle__atomic_open(&file, beside.data);
    tattle__buffer_release(&beside);
    if (rc != 0)
        return tattle__cli_fail(command, "%s: cannot write there: %s",
                                to_stdout ? "a temporary file" : destination,
                                strerror(-rc));
    close(file.fd);
    writer->temp_path = file.temp_path;
    free(file.path);
    writer->destination = to_stdout ? NULL : tattle__strdup(destination);
    guard_temp_path(writer->temp_path);
    rc = writer->type->create(&writer->self, writer->temp_path, options);
    if (rc != 0) {
        tattle__cli_writer_abort(writer);
        return tattle__cli_fail(command, "%s: cannot write the %s report: %s",
                                destination ? destination : "stdout", format,
                                strerror(-rc));
    }
    return TATTLE__EXIT_OK;
}

void tattle__cli_writer_begin(struct tattle__cli_writer *writer,
                              const struct tattle_run_info *run)
{
    writer->type->begin(writer->self, run);
    writer->begun = true;
}

void tattle__cli_writer_test(struct tattle__cli_writer *writer,
                             const struct tattle_result *result)
{
    /* The runner announces the tests it runs; not-run ones (excluded,
     * skipped or invalid by declaration) have no attempt. */
    if (result->attempts > 0 && writer->type->test_started)
        writer->type->test_started(writer->self, result->test);
    writer->type->test_finished(writer->self, result);
}

static void release(struct tattle__cli_writer *writer)
{
    if (writer->temp_path)
        unlink(writer->temp_path);
    guard_temp_path(NULL);
    free(writer->temp_path);
    free(writer->destination);
    *writer = (struct tattle__cli_writer){0};
}

void tattle__cli_writer_abort(struct tattle__cli_writer *writer)
{
    if (writer->self)
        writer->type->destroy(writer->self);
    writer->self = NULL;
    release(writer);
}

static int copy_to_stdout(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    off_t size = lseek(fd, 0, SEEK_END);
    int rc = size < 0 ? -errno
                      : tattle__copy_fd(fd, 0, (uint64_t)size, STDOUT_FILENO);
    close(fd);
    return rc;
}

int tattle__cli_writer_end(struct tattle__cli_writer *writer,
                           const char *command,
                           const struct tattle_summary *summary)
{
    int rc = writer->type->end(writer->self, summary);
    writer->type->destroy(writer->self);
    writer->self = NULL;
    if (rc == 0) {
        if (!writer->destination)
            rc = copy_to_stdout(writer->temp_path);
        else if ((rc = tattle__commit_path(writer->temp_path,
                                           writer->destination)) == 0) {
            free(writer->temp_path);
            writer->temp_path = NULL;
        }
    }
    const char *where = writer->destination ? writer->destination : "stdout";
    char *shown = tattle__strdup(where);
    release(writer);
    if (rc != 0) {
        tattle__cli_fail(command, "%s: cannot write: %s", shown, strerror(-rc));
        free(shown);
        return TATTLE__EXIT_BAD_INPUT;
    }
    free(shown);
    return TATTLE__EXIT_OK;
}

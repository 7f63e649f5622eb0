/*
 * report_output.c — anonymous until complete (see report_output.h).
 */
#include "reporter/report_output.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int tattle__report_output_open(struct tattle__report_output *output,
                               const char *destination, bool live_stdout)
{
    *output = (struct tattle__report_output){.file.fd = -1, .sink.fd = -1};
    output->to_stdout = !destination || strcmp(destination, "-") == 0;
    int error = 0;
    if (output->to_stdout) {
        const char *tmp = getenv("TMPDIR");
        output->directory = tattle__strdup(tmp && *tmp ? tmp : "/tmp");
        output->live = live_stdout;
        if (output->live)
            output->sink.fd = STDOUT_FILENO;
        else if ((output->sink.fd = tattle__scratch_open(output->directory)) <
                 0)
            error = output->sink.fd;
    } else {
        output->destination = tattle__strdup(destination);
        output->directory = tattle__path_directory(destination);
        if (!output->directory)
            error = -ENOMEM;
        int fd = error ? error : tattle__anonymous_open(output->directory);
        if (fd >= 0) {
            output->sink.fd = fd;
            output->anonymous = true;
        } else if (fd == -EOPNOTSUPP) {
            error = tattle__atomic_open(&output->file, destination);
            output->sink.fd = output->file.fd;
        } else
            error = fd;
    }
    if (error) {
        output->sink.fd = -1;
        tattle__report_output_discard(output);
    }
    return error;
}

int tattle__report_output_flush(struct tattle__report_output *output)
{
    return tattle__sink_flush(&output->sink);
}

int tattle__report_output_commit(struct tattle__report_output *output)
{
    int error = tattle__sink_flush(&output->sink);
    if (error || output->live)
        return error;
    if (output->to_stdout)
        return tattle__copy_fd(output->sink.fd, 0, output->sink.written,
                               STDOUT_FILENO);
    if (output->anonymous)
        return tattle__anonymous_commit(output->sink.fd, output->destination);
    output->sink.fd = -1; /* closed by the commit */
    return tattle__atomic_commit(&output->file);
}

void tattle__report_output_discard(struct tattle__report_output *output)
{
    if (output->file.path)
        tattle__atomic_discard(&output->file);
    else if (output->sink.fd >= 0 && !output->live)
        close(output->sink.fd);
    output->sink.fd = -1;
    tattle__sink_release(&output->sink);
    free(output->destination);
    free(output->directory);
    output->destination = output->directory = NULL;
}

void tattle__remember_error(int *first, int error)
{
    if (error && !*first)
        *first = error;
}

/*
 * buffering_plugin.c — a reporter plugin that keeps bytes in stdout's
 * stdio buffer while tests run: a line at begin and one per finished
 * test, written with printf and never flushed until the process exits.
 * If a test process shared that buffer, a test that flushes every stream
 * (fflush(NULL), exit()) would write the plugin's lines a second time;
 * test_plugin.py counts them on stdout.
 */
#include <stdio.h>

#include <tattle/reporter.h>

static int buffering_create(void **self, const char *destination,
                            const struct tattle_report_options *options)
{
    (void)destination, (void)options;
    *self = NULL;
    return 0;
}

static void buffering_begin(void *self, const struct tattle_run_info *run)
{
    (void)self, (void)run;
    printf("buffering-plugin: begin\n");
}

static void buffering_test_finished(void *self,
                                    const struct tattle_result *result)
{
    (void)self;
    printf("buffering-plugin: finished %s\n", result->test->id);
}

static int buffering_end(void *self, const struct tattle_summary *summary)
{
    (void)self, (void)summary;
    printf("buffering-plugin: end\n");
    return 0;
}

static void buffering_destroy(void *self)
{
    (void)self;
}

static const struct tattle_reporter_type buffering_type = {
    .name = "buffering",
    .create = buffering_create,
    .begin = buffering_begin,
    .test_finished = buffering_test_finished,
    .end = buffering_end,
    .destroy = buffering_destroy,
};

TATTLE_REPORTER_PLUGIN(buffering_type)

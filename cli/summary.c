/*
 * summary.c — `tattle summary REPORT`: the triage digest.
 *
 * What a person or an agent reads first, in few lines: the counts, the
 * error groups (failed tests grouped by the first line of their first
 * failure), then one line per failure, `id  kind  file:line  message`,
 * each failed test followed by the command that reruns it. Every string
 * from a test is escaped for the terminal. Exits 1 when the report holds
 * failures (or its run was interrupted), 0 when not.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "results/error_groups.h"
#include "results/model.h"
#include "results/read.h"

static const char help[] =
    "usage: tattle summary REPORT\n"
    "\n"
    "Prints the triage digest of a report or stream ('-' reads stdin): the\n"
    "counts, the error groups, one line per failure\n"
    "    id  kind  file:line  first line of its message\n"
    "and under each failed test the command that reruns it.\n"
    "\n"
    "exit status: 0 nothing failed, 1 a test failed or was invalid (or the "
    "run\n"
    "was interrupted), 2 usage error or bad input.\n";

enum { GROUP_IDS_SHOWN = 5, MESSAGE_CHARS = 200 };

static void append_failures(struct tattle__buffer *out,
                            const struct tattle_result *result)
{
    const char *id = result->test->id;
    for (size_t i = 0; i < result->failure_count; i++) {
        const struct tattle_failure *failure = &result->failures[i];
        int line;
        const char *file = tattle__cli_failure_place(result, failure, &line);
        char *first = tattle__first_line(failure->message);
        tattle__cli_append_printable(out, id, strlen(id), false, 0);
        tattle__buffer_printf(out, "  %s  ",
                              tattle_failure_kind_name(failure->kind));
        if (file) {
            tattle__cli_append_printable(out, file, strlen(file), false, 0);
            tattle__buffer_printf(out, ":%d", line);
        } else
            tattle__buffer_append_string(out, "?");
        tattle__buffer_append_string(out, "  ");
        tattle__cli_append_printable(out, first ? first : "",
                                     first ? strlen(first) : 0, false,
                                     MESSAGE_CHARS);
        if (failure->filtered)
            tattle__buffer_append_string(out, "  (filtered)");
        tattle__buffer_append_string(out, "\n");
        free(first);
    }
    if (result->failure_count == 0) {
        tattle__cli_append_printable(out, id, strlen(id), false, 0);
        tattle__buffer_printf(out, "  %s\n", tattle_state_name(result->state));
    }
    if (result->rerun) {
        tattle__buffer_append_string(out, "  rerun: ");
        tattle__cli_append_printable(out, result->rerun, strlen(result->rerun),
                                     false, 0);
        tattle__buffer_append_string(out, "\n");
    }
}

static void print_groups(const cJSON *groups)
{
    if (!cJSON_GetArraySize(groups))
        return;
    printf("error groups:\n");
    for (const cJSON *group = groups->child; group; group = group->next) {
        const cJSON *pattern =
            cJSON_GetObjectItemCaseSensitive(group, "pattern");
        const cJSON *tests = cJSON_GetObjectItemCaseSensitive(group, "tests");
        const cJSON *location =
            cJSON_GetObjectItemCaseSensitive(group, "location");
        const cJSON *patterns =
            cJSON_GetObjectItemCaseSensitive(group, "patterns");
        const char *text = cJSON_IsString(pattern) ? pattern->valuestring : "";
        struct tattle__buffer line = {0};
        tattle__buffer_printf(&line, "  %d  ", cJSON_GetArraySize(tests));
        if (cJSON_IsString(location)) {
            tattle__cli_append_printable(&line, location->valuestring,
                                         strlen(location->valuestring), false,
                                         MESSAGE_CHARS);
            tattle__buffer_append_string(&line, "  ");
        }
        /* One location failing with several messages: each on its line,
         * with its count. */
        int pattern_count = cJSON_GetArraySize(patterns);
        if (pattern_count <= 1)
            tattle__cli_append_printable(&line, text, strlen(text), false,
                                         MESSAGE_CHARS);
        else
            tattle__buffer_printf(&line, "(%d messages)", pattern_count);
        for (const cJSON *each = pattern_count > 1 ? patterns->child : NULL;
             each; each = each->next) {
            const cJSON *each_pattern =
                cJSON_GetObjectItemCaseSensitive(each, "pattern");
            const cJSON *each_tests =
                cJSON_GetObjectItemCaseSensitive(each, "tests");
            const char *each_text =
                cJSON_IsString(each_pattern) ? each_pattern->valuestring : "";
            tattle__buffer_printf(&line, "\n       %d  ",
                                  cJSON_GetArraySize(each_tests));
            tattle__cli_append_printable(&line, each_text, strlen(each_text),
                                         false, MESSAGE_CHARS);
        }
        tattle__buffer_append_string(&line, "\n     ");
        int shown = 0, count = cJSON_GetArraySize(tests);
        for (const cJSON *id = tests ? tests->child : NULL;
             id && shown < GROUP_IDS_SHOWN; id = id->next, shown++) {
            const char *value = cJSON_IsString(id) ? id->valuestring : "?";
            if (shown)
                tattle__buffer_append_string(&line, ", ");
            tattle__cli_append_printable(&line, value, strlen(value), false, 0);
        }
        if (count > shown)
            tattle__buffer_printf(&line, " and %d more", count - shown);
        fputs(line.data, stdout);
        fputs("\n", stdout);
        tattle__buffer_release(&line);
    }
}

int tattle__cli_summary(int argc, char **argv)
{
    const char *input = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(help, stdout);
            return TATTLE__EXIT_OK;
        }
        if (argv[i][0] == '-' && argv[i][1] != '\0')
            return tattle__cli_fail(
                "summary", "unknown option '%s' (tattle summary --help)",
                argv[i]);
        if (input)
            return tattle__cli_fail("summary", "one REPORT at a time");
        input = argv[i];
    }
    if (!input)
        return tattle__cli_fail("summary", "usage: tattle summary REPORT");

    struct tattle__reader *reader = tattle__cli_open_report("summary", input);
    if (!reader)
        return TATTLE__EXIT_BAD_INPUT;
    struct tattle_summary counted = {0};
    struct tattle__error_groups groups = {0};
    struct tattle__buffer failures = {0};
    struct tattle__read_result result;
    size_t running = 0;
    int rc;
    while ((rc = tattle__reader_next(reader, &result)) > 0) {
        const struct tattle_result *r = &result.record.result;
        tattle__summary_count(&counted, r);
        tattle__error_groups_add(&groups, r, NULL);
        if (tattle__result_failed(r))
            append_failures(&failures, r);
        if (tattle__reader_cut_short(reader))
            running++;
        tattle__read_result_release(&result);
    }
    if (rc < 0) {
        tattle__cli_fail("summary", "%s", tattle__reader_error(reader));
        tattle__error_groups_release(&groups);
        tattle__buffer_release(&failures);
        tattle__reader_close(reader);
        return TATTLE__EXIT_BAD_INPUT;
    }
    const struct tattle_summary *summary =
        tattle__cli_report_summary(reader, &counted);
    bool failed = summary->failed || summary->invalid || summary->interrupted;
    struct tattle__buffer head = {0};
    const char *path = tattle__reader_path(reader);
    tattle__cli_append_printable(&head, path, strlen(path), false, 0);
    tattle__buffer_printf(
        &head,
        ": %s: %" PRIu64 " tests: %" PRIu64 " passed, %" PRIu64
        " failed, %" PRIu64 " skipped, %" PRIu64 " excluded, %" PRIu64
        " invalid, %" PRIu64 " flaky; %.3f s\n",
        failed ? "failed" : "passed", summary->total, summary->passed,
        summary->failed, summary->skipped, summary->excluded, summary->invalid,
        summary->flaky, (double)summary->duration_us / 1e6);
    fputs(head.data, stdout);
    tattle__buffer_release(&head);
    if (tattle__reader_cut_short(reader))
        printf("interrupted: the stream ends before run_finished (the runner "
               "was killed); "
               "%zu test%s running then %s reported failed\n",
               running, running == 1 ? " was" : "s were",
               running == 1 ? "is" : "are");
    else if (summary->interrupted)
        printf("interrupted: the run was stopped before every test ran\n");
    if (!tattle__reader_has_tests(reader))
        printf("(a --summary-only report: it lists no tests)\n");
    const cJSON *input_groups = tattle__reader_error_groups(reader);
    cJSON *computed = NULL;
    if (input_groups && !tattle__reader_has_tests(reader))
        print_groups(input_groups);
    else {
        computed = tattle__error_groups_json(&groups);
        if (computed)
            print_groups(computed);
    }
    if (failures.length) {
        printf("failures:\n");
        fputs(failures.data, stdout);
    }
    cJSON_Delete(computed);
    tattle__error_groups_release(&groups);
    tattle__buffer_release(&failures);
    tattle__reader_close(reader);
    return failed ? TATTLE__EXIT_FAILED : TATTLE__EXIT_OK;
}

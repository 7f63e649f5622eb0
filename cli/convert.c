/*
 * convert.c — `tattle convert REPORT --to FORMAT [-o FILE]`: one report or
 * stream written again by any registered reporter.
 *
 * The input's run and summary are handed over as they are (a stream cut
 * short gets a summary counted from its tests, interrupted), and the
 * report's own shape is kept: a report without tests stays without, and
 * one with error groups keeps them. So `convert R.json --to json` writes
 * R.json again, byte for byte.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "results/model.h"
#include "results/read.h"

static const char help[] =
    "usage: tattle convert REPORT --to FORMAT [-o FILE]\n"
    "\n"
    "Writes a report or stream (REPORT; '-' reads stdin) again in FORMAT: any\n"
    "reporter the test binaries have (json, jsonl, compact, console, and the\n"
    "formats added since: an unknown FORMAT lists them). Without -o the "
    "output\n"
    "goes to stdout; with -o FILE, FILE is replaced only when the whole input\n"
    "was read and written. A stream cut short by a killed runner keeps its\n"
    "finished tests; its running tests are reported failed.\n"
    "\n"
    "  --to FORMAT       the reporter to write with\n"
    "  -o, --output FILE where to write (default: stdout)\n"
    "\n"
    "exit status: 0 written, 2 usage error or bad input (nothing written).\n";

int tattle__cli_convert(int argc, char **argv)
{
    const char *input = NULL, *format = NULL, *output = NULL;
    for (int i = 1; i < argc; i++) {
        const char *value;
        bool missing;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(help, stdout);
            return TATTLE__EXIT_OK;
        }
        if (tattle__cli_option(argc, argv, &i, "--to", NULL, &value,
                               &missing)) {
            if (missing)
                return tattle__cli_fail("convert", "--to needs a FORMAT");
            format = value;
        } else if (tattle__cli_option(argc, argv, &i, "--output", "-o", &value,
                                      &missing)) {
            if (missing)
                return tattle__cli_fail("convert", "-o needs a FILE");
            output = value;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0')
            return tattle__cli_fail(
                "convert", "unknown option '%s' (tattle convert --help)",
                argv[i]);
        else if (input)
            return tattle__cli_fail("convert",
                                    "one REPORT at a time (tattle merge joins "
                                    "several)");
        else
            input = argv[i];
    }
    if (!input || !format)
        return tattle__cli_fail(
            "convert", "usage: tattle convert REPORT --to FORMAT [-o FILE]");

    struct tattle__reader *reader = tattle__cli_open_report("convert", input);
    if (!reader)
        return TATTLE__EXIT_BAD_INPUT;
    struct tattle_report_options options = {
        .summary_only = !tattle__reader_has_tests(reader),
        .group_by_error = tattle__reader_error_groups(reader) != NULL,
        /* Without its tests a report's groups cannot be computed again:
         * they are carried over as read. */
        .error_groups_read = tattle__reader_has_tests(reader)
                                 ? NULL
                                 : tattle__reader_error_groups(reader),
    };
    struct tattle__cli_writer writer;
    int status =
        tattle__cli_writer_open(&writer, "convert", format, output, &options);
    if (status != TATTLE__EXIT_OK) {
        tattle__reader_close(reader);
        return status;
    }
    tattle__cli_writer_begin(&writer, tattle__reader_run(reader));
    struct tattle_summary counted = {0};
    struct tattle__read_result result;
    int rc;
    while ((rc = tattle__reader_next(reader, &result)) > 0) {
        tattle__summary_count(&counted, &result.record.result);
        tattle__cli_writer_test(&writer, &result.record.result);
        tattle__read_result_release(&result);
    }
    if (rc < 0) {
        tattle__cli_writer_abort(&writer);
        tattle__cli_fail("convert", "%s", tattle__reader_error(reader));
        tattle__reader_close(reader);
        return TATTLE__EXIT_BAD_INPUT;
    }
    const struct tattle_summary *summary =
        tattle__cli_report_summary(reader, &counted);
    status = tattle__cli_writer_end(&writer, "convert", summary);
    tattle__reader_close(reader);
    return status;
}

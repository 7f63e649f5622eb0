/*
 * model.c — the predicates every reader of results shares (model.h).
 */
#include "results/model.h"

#include <string.h>

#include "base/text.h"
#include "base/utf8.h"

bool tattle__failure_filtered(const struct tattle_failure *failure,
                              const struct tattle_report_options *options)
{
    if (failure->filtered)
        return true;
    if (!options || !failure->message)
        return false;
    for (size_t i = 0; i < options->filter_out_count; i++)
        if (options->filter_out[i] && *options->filter_out[i] &&
            strstr(failure->message, options->filter_out[i]))
            return true;
    return false;
}

const struct tattle_failure *
tattle__first_failure(const struct tattle_result *result,
                      const struct tattle_report_options *options)
{
    for (size_t i = 0; i < result->failure_count; i++)
        if (!tattle__failure_filtered(&result->failures[i], options))
            return &result->failures[i];
    return NULL;
}

char *tattle__rerun_command(const char *program, const char *id)
{
    struct tattle__buffer command = {0};
    tattle__buffer_append_shell_quoted(&command, program);
    tattle__buffer_append_string(&command, " --id=");
    tattle__buffer_append_shell_quoted(&command, id);
    return tattle__buffer_take(&command);
}

char *tattle__first_line(const char *text)
{
    if (!text)
        text = "";
    size_t length = strcspn(text, "\n");
    if (length && text[length - 1] == '\r')
        length--;
    return tattle__utf8_sanitize(text, length, NULL);
}

bool tattle__report_selection_keeps(struct tattle__report_selection *selection,
                                    const struct tattle_report_options *options,
                                    const struct tattle_result *result)
{
    if (options->summary_only)
        return false;
    bool failed = tattle__result_failed(result);
    if (options->first_failure) {
        if (!failed || selection->first_failure_seen)
            return false;
        selection->first_failure_seen = true;
        return true;
    }
    return !options->failures_only || failed;
}

unsigned tattle__shown_attempt(const struct tattle_result *result)
{
    return result->flaky && result->attempts > 1 ? result->attempts - 1
                                                 : result->attempts;
}

unsigned tattle__failed_attempts(const struct tattle_result *result)
{
    bool shown_failed = tattle__result_failed(result) || result->flaky;
    return (unsigned)result->earlier_attempt_count + (shown_failed ? 1u : 0u);
}

unsigned tattle__earlier_attempt_number(const struct tattle_result *result,
                                        size_t index)
{
    unsigned own = result->earlier_attempts[index].attempts;
    if (own > 0)
        return own;
    size_t before_shown = result->earlier_attempt_count - index;
    unsigned shown = tattle__shown_attempt(result);
    return shown > before_shown ? shown - (unsigned)before_shown : 1;
}

void tattle__summary_count(struct tattle_summary *summary,
                           const struct tattle_result *result)
{
    summary->total++;
    switch (result->state) {
    case TATTLE_STATE_PASSED:
        summary->passed++;
        break;
    case TATTLE_STATE_FAILED:
        summary->failed++;
        break;
    case TATTLE_STATE_SKIPPED:
        summary->skipped++;
        break;
    case TATTLE_STATE_EXCLUDED:
        summary->excluded++;
        break;
    case TATTLE_STATE_INVALID:
        summary->invalid++;
        break;
    }
    if (result->flaky)
        summary->flaky++;
}

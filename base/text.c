/*
 * text.c — shell quoting and signal names.
 */
#include "base/text.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

void tattle__buffer_append_shell_quoted(struct tattle__buffer *buffer,
                                        const char *text)
{
    if (*text && strspn(text, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTU"
                              "VWXYZ0123456789_-./:=@%+,") == strlen(text)) {
        tattle__buffer_append_string(buffer, text);
        return;
    }
    tattle__buffer_append(buffer, "'", 1);
    for (const char *p = text; *p; p++) {
        if (*p == '\'')
            tattle__buffer_append_string(buffer, "'\\''");
        else
            tattle__buffer_append(buffer, p, 1);
    }
    tattle__buffer_append(buffer, "'", 1);
}

const char *tattle__signal_name(int signal_number, char scratch[16])
{
    const char *abbreviation = sigabbrev_np(signal_number);
    if (abbreviation) {
        snprintf(scratch, 16, "SIG%s", abbreviation);
        return scratch;
    }
    snprintf(scratch, 16, "SIG%d", signal_number);
    return scratch;
}

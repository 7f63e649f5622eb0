/*
 * text.c — shell quoting and signal names.
 */
#include "base/text.h"

#include <signal.h>
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
    /* No snprintf: a crash handler and the capture's wait wrappers call
     * this from signal handlers. */
    memcpy(scratch, "SIG", 3);
    size_t length = 3;
    const char *abbreviation = sigabbrev_np(signal_number);
    if (abbreviation) {
        for (size_t i = 0; abbreviation[i] != '\0' && length < 15; i++)
            scratch[length++] = abbreviation[i];
    } else {
        unsigned value = signal_number < 0 ? 0u - (unsigned)signal_number
                                           : (unsigned)signal_number;
        char digits[12];
        size_t count = 0;
        do {
            digits[count++] = (char)('0' + value % 10);
            value /= 10;
        } while (value != 0);
        if (signal_number < 0)
            digits[count++] = '-';
        while (count > 0 && length < 15)
            scratch[length++] = digits[--count];
    }
    scratch[length] = '\0';
    return scratch;
}

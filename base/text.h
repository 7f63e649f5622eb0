/*
 * text.h — small text helpers of the reports: shell quoting for rerun
 * commands and the names of signals.
 */
#ifndef TATTLE_BASE_TEXT_H
#define TATTLE_BASE_TEXT_H

#include "base/buffer.h"

/** Appends `text` quoted for a POSIX shell (single quotes when needed). */
void tattle__buffer_append_shell_quoted(struct tattle__buffer *buffer,
                                        const char *text);

/** "SIGSEGV" for SIGSEGV; "SIG42" for a number without a name. Returns a
 * pointer into `scratch`. Async-signal-safe (signal handlers call it). */
const char *tattle__signal_name(int signal_number, char scratch[16]);

#endif /* TATTLE_BASE_TEXT_H */

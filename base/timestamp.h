/*
 * timestamp.h — the clocks of the reports: monotonic microseconds for
 * durations, and the RFC 3339 UTC time a run started at.
 */
#ifndef TATTLE_BASE_TIMESTAMP_H
#define TATTLE_BASE_TIMESTAMP_H

/** Microseconds on the monotonic clock. */
unsigned long long tattle__now_us(void);

/** Writes the current time as RFC 3339 UTC with milliseconds
 * ("2026-11-23T07:27:01.123Z") into `out` and returns it. */
char *tattle__timestamp_utc(char out[32]);

#endif /* TATTLE_BASE_TIMESTAMP_H */

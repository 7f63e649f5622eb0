/*
 * timestamp.c — monotonic microseconds and RFC 3339 timestamps.
 */
#include "base/timestamp.h"

#include <stdio.h>
#include <time.h>

unsigned long long tattle__now_us(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (unsigned long long)now.tv_sec * 1000000ull +
           (unsigned long long)now.tv_nsec / 1000ull;
}

char *tattle__timestamp_utc(char out[32])
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    struct tm utc;
    gmtime_r(&now.tv_sec, &utc);
    char date[24];
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &utc);
    snprintf(out, 32, "%s.%03dZ", date, (int)(now.tv_nsec / 1000000));
    return out;
}

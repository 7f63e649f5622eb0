/*
 * error.c — names and messages of error codes, from the table in
 * base/error.h.
 */
#include "base/error.h"

#include <tattle/tattle.h>

const char *tattle_error_name(int code)
{
    switch (code) {
    case 0:
        return "OK";
#define TATTLE__ERROR_NAME(name, message)                                      \
    case TATTLE__##name:                                                       \
        return #name;
        TATTLE__ERROR_MAP(TATTLE__ERROR_NAME)
#undef TATTLE__ERROR_NAME
    }
    return "UNKNOWN";
}

const char *tattle_error_message(int code)
{
    switch (code) {
    case 0:
        return "success";
#define TATTLE__ERROR_MESSAGE(name, message)                                   \
    case TATTLE__##name:                                                       \
        return message;
        TATTLE__ERROR_MAP(TATTLE__ERROR_MESSAGE)
#undef TATTLE__ERROR_MESSAGE
    }
    return "unknown error";
}

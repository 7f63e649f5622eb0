/*
 * hash.c — FNV-1a with a final mix (see hash.h).
 */
#include "base/hash.h"

uint64_t tattle__hash_add(uint64_t hash, const char *text)
{
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        hash = (hash ^ *p) * UINT64_C(1099511628211);
    return hash;
}

uint64_t tattle__hash_text(const char *text)
{
    uint64_t hash = tattle__hash_add(TATTLE__HASH_START, text);
    /* FNV's low bits, which pick the slot, depend on few of the bytes
     * alone: the finaliser of MurmurHash3 spreads the high ones down. */
    hash ^= hash >> 33;
    hash *= UINT64_C(0xff51afd7ed558ccd);
    hash ^= hash >> 33;
    return hash;
}

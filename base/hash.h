/*
 * hash.h — the one string hash of the project: FNV-1a over the bytes of a
 * NUL-terminated text, for the open-addressing tables that find a suite,
 * a test id or a name in constant time. The tables pick a slot with the
 * low bits, so tattle__hash_text() ends with a mix that makes every bit
 * of the result depend on every byte.
 */
#ifndef TATTLE_BASE_HASH_H
#define TATTLE_BASE_HASH_H

#include <stdint.h>

/** Where an FNV-1a hash starts (its offset basis). */
#define TATTLE__HASH_START UINT64_C(14695981039346656037)

/** `hash` continued over the bytes of `text` (FNV-1a), for a hash of
 * several texts; start from TATTLE__HASH_START. */
uint64_t tattle__hash_add(uint64_t hash, const char *text);

/** The hash of `text`, fit to pick the slot of a power-of-two table. */
uint64_t tattle__hash_text(const char *text);

#endif /* TATTLE_BASE_HASH_H */

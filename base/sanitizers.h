/*
 * sanitizers.h — which sanitizer this translation unit is built with, as
 * 0/1 macros that read the same under gcc (__SANITIZE_ADDRESS__,
 * __SANITIZE_THREAD__) and clang (__has_feature). Code that must behave
 * differently under a sanitizer (a larger time budget, libc calls its
 * interceptors see, heap memory its leak checker scans) asks here.
 */
#ifndef TATTLE_BASE_SANITIZERS_H
#define TATTLE_BASE_SANITIZERS_H

#if defined(__has_feature)
#define TATTLE__HAS_FEATURE(feature) __has_feature(feature)
#else
#define TATTLE__HAS_FEATURE(feature) 0
#endif

#if defined(__SANITIZE_ADDRESS__) || TATTLE__HAS_FEATURE(address_sanitizer)
#define TATTLE__ADDRESS_SANITIZER 1
#else
#define TATTLE__ADDRESS_SANITIZER 0
#endif

#if defined(__SANITIZE_THREAD__) || TATTLE__HAS_FEATURE(thread_sanitizer)
#define TATTLE__THREAD_SANITIZER 1
#else
#define TATTLE__THREAD_SANITIZER 0
#endif

/* LeakSanitizer runs inside AddressSanitizer or on its own. */
#if TATTLE__ADDRESS_SANITIZER || TATTLE__HAS_FEATURE(leak_sanitizer)
#define TATTLE__LEAK_SANITIZER 1
#else
#define TATTLE__LEAK_SANITIZER 0
#endif

/* Any sanitizer that intercepts libc calls and keeps its own view of
 * the process (descriptors, signal masks, memory). */
#define TATTLE__SANITIZED                                                      \
    (TATTLE__ADDRESS_SANITIZER || TATTLE__THREAD_SANITIZER)

#endif

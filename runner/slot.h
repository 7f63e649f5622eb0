/*
 * slot.h — a test's result slot: what the test process tells the runner.
 *
 * The runner maps one slot per job in shared memory before forking, so the
 * test process (its threads and forked children too) writes failures, a
 * skip and crash frames into memory the runner still reads after the
 * process died. Records are claimed atomically (never past the end: a
 * record that does not fit is only counted, or let go when it is the crash
 * of a process the test forked) and committed by writing
 * their type last, so a writer killed mid-record leaves a record the
 * reader skips or stops at, never one read half-written. Strings longer
 * than 16 KiB are cut, with a note of how much was left out.
 *
 * The test's processes can write every byte of the slot, so the runner
 * reads it as untrusted input: its size comes from the runner's own
 * memory, never from the slot; every record is checked against what an
 * honest writer leaves (sizes inside the claimed space, strings ending
 * where their lengths say, known kinds); and the first impossible one ends
 * the reading with a note of what was wrong. Resetting a slot gives its
 * pages back to the kernel, so nothing a test wrote anywhere survives into
 * the next test.
 */
#ifndef TATTLE_RUNNER_SLOT_H
#define TATTLE_RUNNER_SLOT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <tattle/reporter.h>

enum tattle__phase {
    TATTLE__PHASE_STARTING = 0,
    TATTLE__PHASE_SETUP,
    TATTLE__PHASE_BODY,
    TATTLE__PHASE_TEARDOWN,
    TATTLE__PHASE_ON_EXIT,
    TATTLE__PHASE_DONE
};

/* Which fixture a test process is running, or ran last: names the
 * fixture when one fails. */
enum tattle__fixture_role {
    TATTLE__FIXTURE_NONE = 0,
    TATTLE__FIXTURE_SUITE_SETUP,
    TATTLE__FIXTURE_TEST_SETUP,
    TATTLE__FIXTURE_TEST_TEARDOWN,
    TATTLE__FIXTURE_SUITE_TEARDOWN
};

enum { TATTLE__MAX_FRAMES = 64 };

struct tattle__slot {
    _Atomic uint32_t reserved;         /* bytes of records claimed, never
                                          more than capacity */
    uint32_t capacity;                 /* bytes available for records */
    _Atomic uint32_t phase;            /* enum tattle__phase */
    _Atomic uint32_t failures_dropped; /* the owner's records, and
                                          failures, that did not fit */
    _Atomic uint32_t setup_failed;     /* a fixture before the body failed */
    _Atomic uint32_t fixture;          /* enum tattle__fixture_role */
    /* The crash doorbell of a forked test: set by the runner before the
     * fork, rung by the crash handler (runner/test_process/crash.c). */
    _Atomic int32_t doorbell_pid;      /* the runner to signal; 0: none */
    _Atomic int32_t doorbell_signal;   /* the signal it waits for */
    _Atomic uint32_t doorbell_wait_ms; /* how long the handler waits */
    _Atomic uint32_t crash_stop;       /* enum tattle__crash_stop */
    _Atomic int32_t crash_tid;         /* the thread that crashed */
    /* The process the slot was handed to (the test process, or the suite
     * server running a fixture): room for its crash record is kept at the
     * end, which the processes it forks cannot claim. 0: none named. */
    _Atomic int32_t owner_pid;
    _Alignas(8) unsigned char records[];
};

/* Where a test's crash is between the handler and the runner: the
 * handler rings (RUNG) and waits on the word (a futex); the runner reads
 * the process's maps and, when the test is traced, takes every thread's
 * stack, and answers (TAKEN). */
enum tattle__crash_stop {
    TATTLE__CRASH_STOP_NONE = 0,
    TATTLE__CRASH_STOP_RUNG = 1,
    TATTLE__CRASH_STOP_TAKEN = 2
};

/* The records, as the writer (runner/test_process/slot_write.c) lays them
 * out and the reader (runner/slot.c) checks them: a header {size, type},
 * then the payload, 8-byte aligned; the type is stored last, on commit. */
enum tattle__slot_record_type {
    TATTLE__RECORD_UNCOMMITTED = 0,
    TATTLE__RECORD_FAILURE = 1,
    TATTLE__RECORD_SKIP = 2,
    TATTLE__RECORD_CRASH = 3
};

struct tattle__slot_record_header {
    uint32_t size;
    _Atomic uint32_t type;
};

enum {
    TATTLE__SLOT_STRING_FIELDS = 6,
    TATTLE__SLOT_FIELD_BYTES_MAX = 16 * 1024
};

struct tattle__slot_strings_payload {
    int32_t kind;
    int32_t line;
    uint32_t present; /* bit i: string i is not NULL */
    uint32_t lengths[TATTLE__SLOT_STRING_FIELDS];
    /* then the strings, each NUL-terminated */
};

struct tattle__slot_crash_payload {
    int32_t signal_number;
    int32_t frame_count;
    int32_t pid; /* the process that crashed; 0: whichever died */
    int32_t unused_;
    uint64_t frames[TATTLE__MAX_FRAMES];
};

/** One failure, as written by the test process. Strings may be NULL. */
struct tattle__slot_failure {
    enum tattle_failure_kind kind;
    const char *message, *file, *macro, *expr, *left, *right;
    int line;
};

/** Maps a slot of `size` bytes (a multiple of the page size) shared with
 * processes forked later. Returns NULL on failure (errno set). */
struct tattle__slot *tattle__slot_create(size_t size);
/** Unmaps a slot of `size` bytes (the size the runner keeps). */
void tattle__slot_destroy(struct tattle__slot *slot, size_t size);
/** Empties the slot of `size` bytes for the next test. */
void tattle__slot_reset(struct tattle__slot *slot, size_t size);
/** The same for a slot only this process wrote (--no-fork): zeroes what
 * its records reserved, and the end mark after them, by hand, with no
 * system call. What the slot says is trusted no further than its size. */
void tattle__slot_reset_own(struct tattle__slot *slot, size_t size);

/** What the runner reads back from a slot after the test ended. Strings
 * point into `storage`, owned by the reading. */
struct tattle__slot_reading {
    struct tattle__slot_failure *failures;
    size_t failure_count;
    bool skipped;
    const char *skip_reason;
    const char *skip_file;
    int skip_line;
    bool crashed; /* a crash record of the process read for */
    int crash_signal;
    uintptr_t crash_frames[TATTLE__MAX_FRAMES];
    int crash_frame_count;
    uint32_t crash_records; /* the crash records of the process read for
                               (or naming none): the first is the one above */
    uint32_t failures_dropped;
    bool setup_failed;
    enum tattle__phase phase;
    enum tattle__fixture_role fixture;
    const char *corruption; /* NULL, or what in the slot was impossible
                               (the records before it are kept) */
};

/** Reads a slot of `size` bytes (the size the runner keeps). */
void tattle__slot_read(const struct tattle__slot *slot, size_t size,
                       struct tattle__slot_reading *reading);
/** The same, for the death of process `pid`: `crashed`, the crash's
 * signal and frames and crash_records come from the crash records of that
 * process (or of none named), never from a crash of a process the test
 * forked or vforked. */
void tattle__slot_read_of(const struct tattle__slot *slot, size_t size,
                          pid_t pid, struct tattle__slot_reading *reading);
/** Whether the process read for recorded nothing that fails it: no
 * failure (or one dropped), skip or crash of its own, and no corruption.
 * A crash of a process it forked is no failure of its own. */
bool tattle__slot_reading_is_clean(const struct tattle__slot_reading *reading);
void tattle__slot_reading_release(struct tattle__slot_reading *reading);

#endif /* TATTLE_RUNNER_SLOT_H */

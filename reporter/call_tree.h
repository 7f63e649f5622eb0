/*
 * call_tree.h — a test's recorded calls replayed thread by thread: which
 * stack each thread was in at every call, and how long it stayed there.
 * The one reading of `trace.calls` behind the flame graph and the Chrome
 * trace.
 *
 * The stacks of a test form a tree (node 0, the root, is "no call"); a
 * node is found from its parent and function name through a hash table,
 * so replaying N calls costs O(N) whatever their depth. Each thread (an
 * actor of the trace) keeps the node it is in and when it got there;
 * an entry moves it to a child node, an exit back to the parent (an exit
 * seen at the root, whose entry fell out of the recorder's window, is
 * passed over). The time between two calls of a thread is the innermost
 * function's own time: it is added to the node the thread was in.
 *
 * The threads' stacks are added together (one node for `main;run` on
 * every thread that was there), as the flame graph file wants them; a
 * tree made `per_thread` keeps them apart (each thread's outermost calls
 * hang from the root as nodes of their own), as the HTML report draws
 * them, a lane per thread.
 */
#ifndef TATTLE_REPORTER_CALL_TREE_H
#define TATTLE_REPORTER_CALL_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <tattle/reporter.h>

#include "base/buffer.h"
#include "base/name_index.h"

/* How deep a node's `outer` ancestor is: the flame graph writes the
 * outermost and the innermost this many frames of a deeper stack. */
enum { TATTLE__CALL_TREE_OUTER_DEPTH = 64 };

struct tattle__call_node {
    size_t parent;
    size_t depth; /* the calls on its stack: 1 for a thread's first */
    size_t outer; /* its ancestor (or itself) at OUTER_DEPTH; 0: shallower */
    const char *function; /* the trace's string; "?" when unknown */
    const char *file;     /* of its first entry: the trace's, or NULL */
    int line;
    size_t thread;    /* with per_thread: the thread whose stack it is */
    uint64_t self_us; /* time threads spent in it and not deeper (at most
                         UINT64_MAX: the sum saturates) */
};

struct tattle__call_thread {
    size_t node;      /* where the thread is: 0 outside every call */
    uint64_t last_us; /* when it got there */
};

struct tattle__call_tree {
    bool per_thread; /* set before the first reset; kept by a reset */
    struct tattle__name_index keys; /* "parent\x1f" function: node - 1 */
    struct tattle__call_node *nodes;
    size_t node_count, node_capacity;
    struct tattle__name_index actors;
    struct tattle__call_thread *threads;
    size_t thread_capacity;
    struct tattle__buffer key;
};

/** Empties `tree` for another test, keeping its memory. */
void tattle__call_tree_reset(struct tattle__call_tree *tree);

/** The thread of `actor` (NULL reads "?"), added when new. */
size_t tattle__call_tree_thread(struct tattle__call_tree *tree,
                                const char *actor);

/** Replays one call on its thread: the time since the thread's previous
 * call goes to the node it was in, then it enters or leaves. Returns the
 * node the thread was in before (an exit's) or is in after (an entry's),
 * and 0 for an exit passed over. */
size_t tattle__call_tree_step(struct tattle__call_tree *tree,
                              const struct tattle_trace_call *call);

/** Ends every thread still inside calls at `end_us` (the test's end):
 * their time until then goes to the node they are in. */
void tattle__call_tree_finish(struct tattle__call_tree *tree, uint64_t end_us);

void tattle__call_tree_release(struct tattle__call_tree *tree);

#endif /* TATTLE_REPORTER_CALL_TREE_H */

/*
 * flamegraph.c — the "flamegraph" reporter (see flamegraph.h for what it
 * writes): each finished `trace_calls` test's calls are replayed into a
 * tree of stacks (call_tree.h) and every node with time of its own is
 * written as one line.
 */
#include "reporter/flamegraph.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <stdlib.h>

#include "reporter/call_tree.h"
#include "reporter/report_output.h"

/* The frames kept at each end of a deeper stack (call_tree.h). */
#define KEPT_FRAMES ((size_t)TATTLE__CALL_TREE_OUTER_DEPTH)

struct flame_reporter {
    struct tattle__report_output output;
    struct tattle__call_tree tree;
    struct tattle__buffer line;
    size_t path[2 * KEPT_FRAMES]; /* innermost first: its inner frames,
                                     then its outer ones */
    int error;                    /* the first error, returned by end */
};

/* Appends a frame's name so that the line still splits at `;` and at its
 * last space: `;` reads `:`, a space `_` (flamegraph.pl would read a name
 * ending in " NUMBER" as a second count), line breaks and other control
 * characters `?`. */
static void append_frame(struct tattle__buffer *line, const char *name)
{
    char *at = tattle__buffer_reserve(line, strlen(name));
    for (; *name; name++)
        *at++ = *name == ';'                                   ? ':'
                : *name == ' '                                 ? '_'
                : (unsigned char)*name < 0x20 || *name == 0x7f ? '?'
                                                               : *name;
    line->length = (size_t)(at - line->data);
    *at = '\0';
}

/* Stores up to `count` nodes from `node` outwards into `into`, innermost
 * first; returns how many. */
static size_t walk_out(const struct tattle__call_tree *tree, size_t node,
                       size_t count, size_t *into)
{
    size_t stored = 0;
    for (; node != 0 && stored < count; node = tree->nodes[node].parent)
        into[stored++] = node;
    return stored;
}

/* One line: the test's id, the stack from its outermost frame in (a stack
 * deeper than 2 * KEPT_FRAMES keeps the outermost and the innermost
 * KEPT_FRAMES with one `[... N frames]` frame for the rest between, so a
 * line is bounded whatever the recursion), its self time. */
static void write_node(struct flame_reporter *self, const char *test_id,
                       size_t node)
{
    const struct tattle__call_tree *tree = &self->tree;
    size_t depth = tree->nodes[node].depth;
    bool elided = depth > 2 * KEPT_FRAMES;
    size_t inner =
        walk_out(tree, node, elided ? KEPT_FRAMES : depth, self->path);
    size_t outer = elided ? walk_out(tree, tree->nodes[node].outer, KEPT_FRAMES,
                                     self->path + KEPT_FRAMES)
                          : 0;
    tattle__buffer_clear(&self->line);
    append_frame(&self->line, test_id);
    while (outer > 0) {
        tattle__buffer_append(&self->line, ";", 1);
        append_frame(&self->line,
                     tree->nodes[self->path[KEPT_FRAMES + --outer]].function);
    }
    if (elided)
        tattle__buffer_printf(&self->line, ";[... %zu frames]",
                              depth - 2 * KEPT_FRAMES);
    while (inner > 0) {
        tattle__buffer_append(&self->line, ";", 1);
        append_frame(&self->line, tree->nodes[self->path[--inner]].function);
    }
    tattle__buffer_printf(&self->line, " %llu\n",
                          (unsigned long long)tree->nodes[node].self_us);
    tattle__remember_error(&self->error, tattle__sink_write(&self->output.sink,
                                                            self->line.data,
                                                            self->line.length));
}

static int flame_create(void **out, const char *destination,
                        const struct tattle_report_options *options)
{
    (void)options;
    struct flame_reporter *self = tattle__calloc(1, sizeof *self);
    int error = tattle__report_output_open(&self->output, destination, false);
    if (error) {
        free(self);
        return error;
    }
    *out = self;
    return 0;
}

static void flame_begin(void *opaque, const struct tattle_run_info *run)
{
    (void)opaque;
    (void)run;
}

static void flame_test_started(void *opaque,
                               const struct tattle_test_info *test)
{
    (void)opaque;
    (void)test;
}

static void flame_test_finished(void *opaque,
                                const struct tattle_result *result)
{
    struct flame_reporter *self = opaque;
    const struct tattle_trace *trace = result->trace;
    if (self->error || !trace || !trace->calls_traced || !trace->call_count)
        return;
    struct tattle__call_tree *tree = &self->tree;
    tattle__call_tree_reset(tree);
    uint64_t end_us = result->duration_us;
    for (size_t i = 0; i < trace->call_count; i++) {
        tattle__call_tree_step(tree, &trace->calls[i]);
        if (trace->calls[i].t_us > end_us)
            end_us = trace->calls[i].t_us;
    }
    tattle__call_tree_finish(tree, end_us);
    for (size_t node = 1; node < tree->node_count; node++)
        if (tree->nodes[node].self_us > 0)
            write_node(self, result->test->id, node);
}

static int flame_end(void *opaque, const struct tattle_summary *summary)
{
    (void)summary;
    struct flame_reporter *self = opaque;
    if (self->error)
        return self->error;
    return tattle__report_output_commit(&self->output);
}

static void flame_destroy(void *opaque)
{
    struct flame_reporter *self = opaque;
    if (!self)
        return;
    tattle__report_output_discard(&self->output);
    tattle__call_tree_release(&self->tree);
    tattle__buffer_release(&self->line);
    free(self);
}

const struct tattle_reporter_type tattle__reporter_flamegraph = {
    .name = "flamegraph",
    .create = flame_create,
    .begin = flame_begin,
    .test_started = flame_test_started,
    .test_finished = flame_test_finished,
    .end = flame_end,
    .destroy = flame_destroy,
};

/*
 * call_tree.c — a test's recorded calls replayed thread by thread into a
 * tree of stacks (see call_tree.h).
 */
#include "reporter/call_tree.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void tattle__call_tree_reset(struct tattle__call_tree *tree)
{
    tattle__name_index_release(&tree->keys);
    tattle__name_index_release(&tree->actors);
    if (!tree->nodes) {
        tree->node_capacity = 64;
        tree->nodes = tattle__calloc(tree->node_capacity, sizeof *tree->nodes);
    }
    tree->nodes[0] = (struct tattle__call_node){.function = ""};
    tree->node_count = 1;
}

size_t tattle__call_tree_thread(struct tattle__call_tree *tree,
                                const char *actor)
{
    bool added;
    size_t thread =
        tattle__name_index_add(&tree->actors, actor ? actor : "?", &added);
    if (thread >= tree->thread_capacity) {
        size_t capacity = tree->thread_capacity ? tree->thread_capacity * 2 : 8;
        tree->threads =
            tattle__realloc(tree->threads, capacity * sizeof *tree->threads);
        tree->thread_capacity = capacity;
    }
    if (added)
        tree->threads[thread] = (struct tattle__call_thread){0, 0};
    return thread;
}

/* The child of `parent` named `function`, added when new; a per_thread
 * tree keys a thread's outermost calls by the thread ("tN"), which no
 * parent's number spells. */
static size_t child_node(struct tattle__call_tree *tree, size_t thread,
                         size_t parent, const struct tattle_trace_call *call)
{
    const char *function = call->function ? call->function : "?";
    tattle__buffer_clear(&tree->key);
    if (tree->per_thread && parent == 0)
        tattle__buffer_printf(&tree->key, "t%zu\x1f%s", thread, function);
    else
        tattle__buffer_printf(&tree->key, "%zu\x1f%s", parent, function);
    bool added;
    size_t node =
        tattle__name_index_add(&tree->keys, tree->key.data, &added) + 1;
    if (!added)
        return node;
    if (node >= tree->node_capacity) {
        tree->node_capacity *= 2;
        tree->nodes = tattle__realloc(tree->nodes, tree->node_capacity *
                                                       sizeof *tree->nodes);
    }
    size_t depth = tree->nodes[parent].depth + 1;
    tree->nodes[node] = (struct tattle__call_node){
        .parent = parent,
        .depth = depth,
        .outer = depth == TATTLE__CALL_TREE_OUTER_DEPTH
                     ? node
                     : tree->nodes[parent].outer,
        .function = function,
        .file = call->file,
        .line = call->line,
        .thread = parent == 0 ? thread : tree->nodes[parent].thread,
    };
    tree->node_count = node + 1;
    return node;
}

/* Adds the thread's time in its node until `now_us` (a clock that went
 * back adds nothing). */
static void account(struct tattle__call_tree *tree,
                    struct tattle__call_thread *thread, uint64_t now_us)
{
    if (thread->node != 0 && now_us > thread->last_us) {
        /* Saturates: threads of a hostile report may add up past 2^64. */
        uint64_t *self_us = &tree->nodes[thread->node].self_us;
        uint64_t added = now_us - thread->last_us;
        *self_us =
            *self_us > UINT64_MAX - added ? UINT64_MAX : *self_us + added;
    }
    if (now_us > thread->last_us || thread->node == 0)
        thread->last_us = now_us;
}

size_t tattle__call_tree_step(struct tattle__call_tree *tree,
                              const struct tattle_trace_call *call)
{
    /* The thread's number first: finding it may move the array. */
    size_t number = tattle__call_tree_thread(tree, call->actor);
    struct tattle__call_thread *thread = &tree->threads[number];
    account(tree, thread, call->t_us);
    if (call->kind == TATTLE_TRACE_CALL_ENTER) {
        thread->node = child_node(tree, number, thread->node, call);
        return thread->node;
    }
    size_t left = thread->node;
    if (left != 0)
        thread->node = tree->nodes[left].parent;
    return left;
}

void tattle__call_tree_finish(struct tattle__call_tree *tree, uint64_t end_us)
{
    for (size_t i = 0; i < tree->actors.count; i++) {
        account(tree, &tree->threads[i], end_us);
        tree->threads[i].node = 0;
    }
}

void tattle__call_tree_release(struct tattle__call_tree *tree)
{
    tattle__name_index_release(&tree->keys);
    tattle__name_index_release(&tree->actors);
    free(tree->nodes);
    free(tree->threads);
    tattle__buffer_release(&tree->key);
    memset(tree, 0, sizeof *tree);
}

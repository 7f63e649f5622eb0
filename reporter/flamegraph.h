/*
 * flamegraph.h — the "flamegraph" reporter (`--flamegraph FILE`): the
 * calls of every `trace_calls` test as collapsed stacks, the input of
 * flamegraph.pl and speedscope (SPEC section 5b).
 *
 *   calls/nested;tattle__body__calls__nested;outer;middle 120
 *   calls/nested;tattle__body__calls__nested;outer;middle;inner 830
 *
 * One line per distinct stack of a test: the test's id, then the
 * functions from the outermost in, then the microseconds spent in the
 * innermost itself (its self time: the time of its calls minus that of
 * the calls they made). So the weights of a test add up to the time its
 * threads spent inside instrumented functions; the stacks of all its
 * threads are added together. A call still open when the test ended (a
 * timeout, a crash, a thread never joined) counts until the test's end.
 * Only the calls the recorder kept are seen: when a test made more than
 * `cap`, the time before the first kept one is not counted, and an exit
 * whose entry was not kept is passed over. Stacks of no whole
 * microsecond are left out. A `;` in a name reads `:`, a space `_` and
 * a control character `?`, so every line splits the same way. A stack
 * deeper than 128 calls (a deep recursion) is written as its outermost
 * 64 frames, one `[... N frames]` frame and its innermost 64.
 *
 * The file is written beside its destination and gets its name at the
 * end (report_output.h). Tests are written in the order they finish,
 * stacks in the order they were first entered. Replaying the calls is
 * linear in their number (a stack is a node of a tree found by hashing);
 * each line written is at most 129 frames long, found from its node
 * through at most 128 parents (a node knows its ancestor at depth 64).
 */
#ifndef TATTLE_REPORTER_FLAMEGRAPH_H
#define TATTLE_REPORTER_FLAMEGRAPH_H

#include <tattle/reporter.h>

extern const struct tattle_reporter_type tattle__reporter_flamegraph;

#endif /* TATTLE_REPORTER_FLAMEGRAPH_H */

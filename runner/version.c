/*
 * version.c — the text of `--version` (runner/version.h). The call
 * tracing figures are measured when asked for, in this process, which is
 * not a traced test: a million calls of each hook, well under a second.
 */
#include "runner/version.h"

#include <errno.h>
#include <string.h>

#include <tattle/tattle.h>
#include <tattle/trace.h>

void tattle__version_print(FILE *out, bool verbose)
{
    fprintf(out, "tattle %s\n", TATTLE_VERSION);
    if (!verbose)
        return;
    errno = 0;
    struct tattle_trace_overhead cost = tattle_trace_overhead(0);
    if (cost.enter_ns == 0 && cost.exit_ns == 0 && cost.untraced_ns == 0) {
        fprintf(out, "call tracing: not measured (%s)\n",
                strerror(errno != 0 ? errno : EIO));
        return;
    }
    fprintf(out,
            "call tracing: traced %.1f ns per enter+exit pair (enter %.1f, "
            "exit %.1f), untraced %.2f ns per call, measured now on this "
            "machine\n",
            cost.enter_ns + cost.exit_ns, cost.enter_ns, cost.exit_ns,
            cost.untraced_ns);
}

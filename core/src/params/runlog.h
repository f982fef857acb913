/* One log per run: the messages of the plugins (the log service of the
 * ABI's host table, nsdyn_host.log, with the log as its ctx) and of the
 * host (a failure, a possible missed impact), kept with the run instead
 * of printed: a scenario owns one, a run's result a copy (run_result.h),
 * the run folder gets it as run.log, a sweep row its count and first
 * warning. Nothing in the library prints a run's messages; the command
 * line prints the log (nsd_runlog_print). Runs in threads each write
 * their own log, so their messages never mix.
 *
 * Lines are "level: message" (info, warning, error; debug messages are
 * counted, not kept). The text is bounded (NSD_RUNLOG_MAX_BYTES): a
 * plugin that logs every step cannot exhaust memory; what does not fit
 * is counted in `dropped` and said at the end of the text. */
#ifndef NSD_RUNLOG_H
#define NSD_RUNLOG_H

#include <stdio.h>

#include "nsdyn/plugin.h"

#define NSD_RUNLOG_MAX_BYTES (256u * 1024u)

/* A reader of a plugin's messages as they come (the command line's
 * printer); called from the thread that runs the plugin. */
typedef void (*nsd_runlog_echo_fn)(void *ctx, nsdyn_log_level level, const char *message);

/* A reader of a run's progress (the command line's progress line): the
 * run labelled `label` (NULL: none) has reached t_s of [t_start_s,
 * t_end_s] [s]; done = 1 once, when the run ends (the line is cleared).
 * Called from the thread that runs, at most every 0.25 s of wall time. */
typedef void (*nsd_runlog_progress_fn)(void *ctx, const char *label, double t_s, double t_start_s,
                                       double t_end_s, int done);

typedef struct nsd_runlog {
    char *text;        /* the kept lines, NUL-terminated (NULL: none yet) */
    size_t len, cap;   /* bytes of text, of its storage */
    size_t n;          /* messages kept */
    size_t n_warnings; /* of all messages (kept or not), warnings and errors */
    size_t dropped;    /* messages past NSD_RUNLOG_MAX_BYTES, and debug ones */
    char first[256];   /* the first warning or error ("" when none) */
    /* Set by a single-threaded command: every plugin message (info and
     * up, through nsd_runlog_sink) is handed to it as it comes too, as
     * `nsdyn run` shows them. Not copied (nsd_runlog_copy); a scenario
     * derived from one that has it gets it (scenario.c). */
    nsd_runlog_echo_fn echo;
    void *echo_ctx;
    /* The same for the run's progress ([run] progress): nothing is
     * printed by the library; NULL: no progress shown. */
    nsd_runlog_progress_fn progress;
} nsd_runlog;

/* A place in a log to come back to (nsd_runlog_rewind). */
typedef struct nsd_runlog_mark {
    size_t len, n, n_warnings, dropped;
    int had_first;
} nsd_runlog_mark;

void nsd_runlog_add(nsd_runlog *log, nsdyn_log_level level, const char *message);
void nsd_runlog_addf(nsd_runlog *log, nsdyn_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The ABI's log service: ctx is an nsd_runlog. */
void nsd_runlog_sink(void *ctx, nsdyn_log_level level, const char *message);
/* The host table handing a plugin's messages to log. */
nsdyn_host nsd_runlog_host(nsd_runlog *log);

nsd_runlog_mark nsd_runlog_mark_now(const nsd_runlog *log);
/* Nothing was added between two marks of one log. */
static inline int nsd_runlog_same_mark(nsd_runlog_mark a, nsd_runlog_mark b) {
    return a.len == b.len && a.n == b.n && a.n_warnings == b.n_warnings && a.dropped == b.dropped;
}
/* Forget what came after mark (a new run keeps its create's messages). */
void nsd_runlog_rewind(nsd_runlog *log, nsd_runlog_mark mark);
/* dst = src (deep); dst is overwritten, not freed first. */
void nsd_runlog_copy(nsd_runlog *dst, const nsd_runlog *src);
void nsd_runlog_free(nsd_runlog *log);

/* The text (with a last line naming the dropped messages, if any). */
void nsd_runlog_print(FILE *out, const nsd_runlog *log);
/* The same into a file at path (replaced). 0, or -1 with err. */
int nsd_runlog_write(const char *path, const nsd_runlog *log, char *err, size_t err_len);

#endif

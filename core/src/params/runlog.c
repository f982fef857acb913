/* One log per run (runlog.h). */
#define _GNU_SOURCE
#include "runlog.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *level_name(nsdyn_log_level level) {
    static const char *const names[] = {"debug", "info", "warning", "error"};
    return names[level <= NSDYN_LOG_ERROR ? level : NSDYN_LOG_ERROR];
}

void nsd_runlog_add(nsd_runlog *log, nsdyn_log_level level, const char *message) {
    if (!log) return;
    if (!message) message = "(no message)";
    if (level >= NSDYN_LOG_WARNING) {
        if (!log->n_warnings) snprintf(log->first, sizeof log->first, "%s", message);
        log->n_warnings++;
    }
    const char *name = level_name(level);
    size_t need = strlen(name) + 2 + strlen(message) + 2;
    if (level < NSDYN_LOG_INFO || log->len + need > NSD_RUNLOG_MAX_BYTES) {
        log->dropped++;
        return;
    }
    if (log->len + need > log->cap) {
        size_t cap = log->cap ? log->cap : 512;
        while (cap < log->len + need) cap *= 2;
        char *p = realloc(log->text, cap);
        if (!p) { /* best effort: the count says a message is missing */
            log->dropped++;
            return;
        }
        log->text = p;
        log->cap = cap;
    }
    log->len +=
        (size_t)snprintf(log->text + log->len, log->cap - log->len, "%s: %s\n", name, message);
    log->n++;
}

void nsd_runlog_addf(nsd_runlog *log, nsdyn_log_level level, const char *fmt, ...) {
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    nsd_runlog_add(log, level, msg);
}

void nsd_runlog_sink(void *ctx, nsdyn_log_level level, const char *message) {
    nsd_runlog *log = ctx;
    nsd_runlog_add(log, level, message);
    if (log && log->echo && level >= NSDYN_LOG_INFO)
        log->echo(log->echo_ctx, level, message ? message : "(no message)");
}

nsdyn_host nsd_runlog_host(nsd_runlog *log) {
    return (nsdyn_host){sizeof(nsdyn_host), log, nsd_runlog_sink};
}

nsd_runlog_mark nsd_runlog_mark_now(const nsd_runlog *log) {
    return (nsd_runlog_mark){log->len, log->n, log->n_warnings, log->dropped, log->first[0] != 0};
}

void nsd_runlog_rewind(nsd_runlog *log, nsd_runlog_mark mark) {
    if (mark.len > log->len) return; /* not a mark of this log */
    log->len = mark.len;
    if (log->text) log->text[log->len] = '\0';
    log->n = mark.n;
    log->n_warnings = mark.n_warnings;
    log->dropped = mark.dropped;
    if (!mark.had_first) log->first[0] = '\0';
}

void nsd_runlog_copy(nsd_runlog *dst, const nsd_runlog *src) {
    *dst = *src;
    dst->text = NULL;
    dst->cap = 0;
    dst->echo = NULL;
    dst->echo_ctx = NULL;
    dst->progress = NULL;
    if (!src->len) {
        dst->len = 0;
        return;
    }
    dst->text = malloc(src->len + 1);
    if (!dst->text) abort();
    memcpy(dst->text, src->text, src->len + 1);
    dst->cap = src->len + 1;
}

void nsd_runlog_free(nsd_runlog *log) {
    free(log->text);
    memset(log, 0, sizeof *log);
}

void nsd_runlog_print(FILE *out, const nsd_runlog *log) {
    if (log->len) fputs(log->text, out);
    if (log->dropped)
        fprintf(out, "info: %zu more message%s not kept (debug messages, or past %u bytes)\n",
                log->dropped, log->dropped == 1 ? "" : "s", NSD_RUNLOG_MAX_BYTES);
}

int nsd_runlog_write(const char *path, const nsd_runlog *log, char *err, size_t err_len) {
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, err_len, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    nsd_runlog_print(f, log);
    if (fclose(f) != 0) {
        snprintf(err, err_len, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* Running a sweep's runs: one run (derive, create, run, summarize), the
 * worker threads with one writer, the tally and the progress line
 * (sweep.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "interrupt.h"
#include "output.h"
#include "run_watch.h"
#include "sweep.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void nsd_sweep_fill_axes(const nsd_sweep_def *def, uint64_t run, nsd_sweep_row *row) {
    for (size_t a = 0; a < def->n_axes; ++a) {
        const char *t = nsd_sweep_value(def, run, a, &row->axis_num[a]);
        snprintf(row->axis_text[a], NSD_SWEEP_TEXT, "%s", t ? t : "");
        if (t) row->axis_num[a] = NAN;
    }
}

void nsd_sweep_failed_row(const nsd_sweep_def *def, uint64_t run, double wall, nsd_sweep_row *row) {
    row->run = run;
    row->status = NSD_SWEEP_FAILED;
    memcpy(row->config_hash, def->config_hash, sizeof row->config_hash);
    row->log_warnings = 0;
    row->log_first[0] = '\0';
    row->n_points = 0;
    row->sim_wall = 0;
    row->wall = wall;
    nsd_sweep_fill_axes(def, run, row);
    for (size_t k = 0; k < def->n_sums; ++k) {
        row->sum_num[k] = NAN;
        row->sum_text[k][0] = '\0';
        if (def->sums[k].kind == NSD_SUM_STOP) snprintf(row->sum_text[k], 8, "failed");
    }
}

/* Derive run `run` from the study's base and create it (the derive lock
 * when an axis names a plugin id). The number of errors (in diag). */
static size_t derive(const nsd_sweep_worker_ctx *ctx, uint64_t run, nsd_scenario *s,
                     nsd_diag *diag) {
    nsd_overrides over;
    nsd_sweep_overrides(ctx->def, run, &over);
    if (ctx->lock) ctx->lock(1);
    size_t errors = nsd_scenario_override(s, ctx->base, &over, diag);
    if (ctx->lock) ctx->lock(0);
    nsd_overrides_free(&over);
    s->no_graphs = 1;
    if (!errors)
        errors = ctx->shared ? nsd_scenario_create_on(s, ctx->shared, diag)
                             : nsd_scenario_create(s, diag);
    if (!errors) s->app.cfg.settings.progress = 0;
    return errors;
}

/* Run `run` in the worker's slot: its scenario on the shared model with
 * the run's values (nsd_scenario_set_params), created on the first run.
 * The errors (in diag); *s is the slot's scenario. */
static size_t derive_in(const nsd_sweep_worker_ctx *ctx, nsd_sweep_slot *slot, uint64_t run,
                        nsd_diag *diag) {
    nsd_overrides over;
    nsd_sweep_overrides(ctx->def, run, &over);
    size_t errors = nsd_scenario_point(&slot->s, &slot->ready, ctx->base, ctx->shared, &over, diag);
    nsd_overrides_free(&over);
    if (!errors) slot->s.app.cfg.settings.progress = 0;
    return errors;
}

void nsd_sweep_slot_free(nsd_sweep_slot *slot) {
    if (slot->ready) nsd_scenario_destroy(&slot->s);
    slot->ready = 0;
}

/* Does the keep setting name this row? */
static int kept(const nsd_sweep_worker_ctx *ctx, const nsd_sweep_row *row) {
    nsd_sweep_keep k = ctx->keep_dir ? ctx->def->keep : NSD_KEEP_NONE;
    return k == NSD_KEEP_ALL || (k == NSD_KEEP_FAILED && row->status != NSD_SWEEP_OK) ||
           (k == NSD_KEEP_FILTER && nsd_sweep_filter_holds(&ctx->def->keep_filter, row));
}

/* The outputs of a run the keep setting names: data and run.toml, no
 * graphs (PLplot is for one thread). A run that sampled only some
 * channels (nsd_sweep_sampled_channels) runs again sampling every channel: a run's
 * trajectory does not depend on what it samples (test_sweep
 * states_only_sampling_same_summaries), so the outputs are the row's run. */
static void keep_outputs(const nsd_sweep_worker_ctx *ctx, nsd_scenario *s, nsd_sweep_row *row) {
    if (!kept(ctx, row)) return;
    char dir[PATH_MAX], err[PATH_MAX + 512] = "";
    snprintf(dir, sizeof dir, "%s/run-%08llu", ctx->keep_dir, (unsigned long long)row->run);
    nsd_scenario again;
    nsd_diag diag = {0};
    int rerun = s->res.series.sampled != NULL, ok = 1;
    if (rerun) {
        ok =
            derive(ctx, row->run, &again, &diag) == 0 && nsd_scenario_run(&again, NULL, &diag) == 0;
        if (!ok)
            snprintf(err, sizeof err, "%s", diag.n ? diag.lines[0] : "the run was refused again");
        else if (again.res.outcome != s->res.outcome || again.res.series.rows != s->res.series.rows)
            snprintf(err, sizeof err,
                     "run again to sample every channel, it ended otherwise (a "
                     "plugin keeps state from run to run)");
        ok = ok && !err[0];
        s = &again;
    }
    char **written = NULL;
    size_t n = 0;
    if (!ok ||
        nsd_scenario_write_into(s, dir, 0, "nsdyn sweep", &written, &n, err, sizeof err) < 0) {
        size_t used = strlen(row->message);
        snprintf(row->message + used, sizeof row->message - used, "%sthe outputs were not kept: %s",
                 used ? "; " : "", err);
    }
    nsd_paths_free(written, n);
    if (rerun) nsd_scenario_destroy(&again);
    nsd_diag_free(&diag);
}

int nsd_sweep_filter_holds(const nsd_sweep_filter *f, const nsd_sweep_row *row) {
    if (f->is_text) {
        int eq = !strcmp(row->sum_text[f->summary], f->text);
        return f->op == 0 ? eq : !eq;
    }
    double v = row->sum_num[f->summary];
    switch (f->op) { /* NaN (no value) holds for none but != */
        case 0: return v == f->num;
        case 1: return !(v == f->num);
        case 2: return v < f->num;
        case 3: return v <= f->num;
        case 4: return v > f->num;
        case 5: return v >= f->num;
    }
    return 0;
}

/* The row of a run that ran (or was refused: errors, diag). */
static void summarize_run(const nsd_sweep_worker_ctx *ctx, nsd_scenario *sp, size_t errors,
                          const nsd_diag *diag, nsd_sweep_row *row) {
    const nsd_sweep_def *def = ctx->def;
    if (errors) {
        row->status = NSD_SWEEP_REFUSED;
        snprintf(row->message, sizeof row->message, "%s",
                 diag->n ? diag->lines[0] : "the run's config was refused");
    } else if (sp->res.outcome == NSD_RUN_FAILED) {
        row->status = NSD_SWEEP_FAILED;
        snprintf(row->message, sizeof row->message, "%.511s", sp->res.message);
        for (size_t k = 0; k < def->n_sums; ++k)
            if (def->sums[k].kind == NSD_SUM_STOP) snprintf(row->sum_text[k], 8, "failed");
    } else if (nsd_sweep_summarize(def, sp, row) != 0) {
        row->status = NSD_SWEEP_NO_SUMMARY;
    } else if (sp->res.open_projections) { /* data, but say it (run.h) */
        snprintf(row->message, sizeof row->message,
                 "warning: %llu open contact%s found penetrating (deepest %.3g m) and projected "
                 "out: a possible missed impact",
                 (unsigned long long)sp->res.open_projections,
                 sp->res.open_projections == 1 ? "" : "s", sp->res.deepest_open);
    }
    if (!errors) keep_outputs(ctx, sp, row);
}

void nsd_sweep_run_one(const nsd_sweep_worker_ctx *ctx, uint64_t run, nsd_sweep_row *row) {
    nsd_sweep_run_in(ctx, NULL, run, row);
}

void nsd_sweep_run_in(const nsd_sweep_worker_ctx *ctx, nsd_sweep_slot *slot, uint64_t run,
                      nsd_sweep_row *row) {
    const nsd_sweep_def *def = ctx->def;
    double w0 = now_s();
    row->run = run;
    row->status = NSD_SWEEP_OK;
    row->message[0] = '\0';
    /* the study's key, hashed once (the run's own: its axis values) */
    memcpy(row->config_hash, def->config_hash, sizeof row->config_hash);
    row->log_warnings = 0;
    row->log_first[0] = '\0';
    row->sim_wall = 0;
    row->n_points = 0;
    nsd_sweep_fill_axes(def, run, row);
    for (size_t k = 0; k < def->n_sums; ++k) {
        row->sum_num[k] = NAN;
        row->sum_text[k][0] = '\0';
    }
    nsd_scenario own, *sp = &own;
    nsd_diag diag = {0};
    int in_slot = slot && ctx->shared;
    size_t errors;
    if (in_slot)
        errors = derive_in(ctx, slot, run, &diag), sp = &slot->s;
    else
        errors = derive(ctx, run, &own, &diag);
    if (!errors) {
        /* only what the summaries read (nsd_sweep_sampled_channels); a run
         * that keep = "failed" or a filter names runs again (keep_outputs) */
        unsigned char *want =
            nsd_sweep_sampled_channels(def, &sp->model, ctx->keep_dir && def->keep == NSD_KEEP_ALL);
        sp->app.cfg.settings.sample_channels = want;
        errors = nsd_scenario_run(sp, NULL, &diag);
        sp->app.cfg.settings.sample_channels = NULL;
        free(want);
        row->sim_wall = sp->res.wall_seconds;
        /* the run's own log: threads never share one, nothing on stderr */
        row->log_warnings = (uint32_t)sp->res.log.n_warnings;
        snprintf(row->log_first, sizeof row->log_first, "%s", sp->res.log.first);
    }
    summarize_run(ctx, sp, errors, &diag, row);
    if (!in_slot || !slot->ready) nsd_scenario_destroy(sp);
    nsd_diag_free(&diag);
    row->wall = now_s() - w0;
}

nsd_scenario *nsd_sweep_shared_model(const nsd_sweep_def *def, const nsd_scenario *base) {
    /* an initial state is the run's data, not the model's (create_on
     * lays [initial] over the data's start) */
    static const char *const parts[] = {"system", "contact", "friction", "integrator", "initial"};
    for (size_t a = 0; a < def->n_axes; ++a) {
        const nsd_sweep_axis *ax = &def->axes[a];
        int plugin_param = strcmp(ax->param, "id") != 0;
        size_t k = 0;
        while (k < 5 && strcmp(ax->section, parts[k]) != 0) k++;
        if (k == 5 || !plugin_param) return NULL;
    }
    nsd_scenario *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    nsd_overrides none = {0};
    nsd_diag diag = {0};
    s->no_graphs = 1;
    size_t errors = nsd_scenario_override(s, base, &none, &diag);
    s->no_graphs = 1;
    if (!errors) errors = nsd_scenario_create(s, &diag);
    nsd_diag_free(&diag);
    if (!errors && s->data) return s;
    nsd_scenario_destroy(s);
    free(s);
    return NULL;
}

/* Do two results of one run agree (status, summaries, points)? */
static int same_result(const nsd_sweep_def *def, const nsd_sweep_row *a, const nsd_sweep_row *b) {
    return a->status == b->status && a->n_points == b->n_points &&
           !memcmp(a->sum_num, b->sum_num, def->n_sums * sizeof *a->sum_num) &&
           !memcmp(a->sum_text, b->sum_text, def->n_sums * sizeof *a->sum_text) &&
           !memcmp(a->points, b->points, a->n_points * sizeof *a->points);
}

/* The plugins of the study, by section, for a warning: "system 'x'
 * (path), ...". */
static void plugin_names(const nsd_config *cfg, char *buf, size_t len) {
    const nsd_section *sec[] = {&cfg->system, &cfg->contact, &cfg->friction, &cfg->integrator};
    const char *kind[] = {"system", "contact law", "friction law", "integrator"};
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < 4 && n < len; ++i) {
        const nsd_plugin *p = sec[i]->plugin;
        if (!p) continue;
        int k = snprintf(buf + n, len - n, "%s%s '%s' (%s)", n ? ", " : "", kind[i], p->info->id,
                         p->path ? p->path : "built in");
        n += k > 0 ? (size_t)k : 0;
    }
}

/* The worker's first finished run, run once more before its row is kept
 * (a crash or a time limit in the repeat is that run's): sweep.h. */
void nsd_sweep_probe_global_state(const nsd_sweep_worker_ctx *ctx, uint64_t run,
                                  const nsd_sweep_row *first, const char *worker) {
    if (first->status != NSD_SWEEP_OK) return;
    nsd_sweep_row *again = nsd_sweep_row_new(ctx->def);
    nsd_sweep_run_one(ctx, run, again);
    if (!nsd_interrupt_signal() && !same_result(ctx->def, first, again)) {
        char names[1024];
        plugin_names(&ctx->base->app.cfg, names, sizeof names);
        fprintf(stderr,
                "warning: run %llu gave a different result when run again in its %s: a plugin "
                "keeps state from run to run (mutable global state), so the rows depend on which "
                "worker ran which run and in what order; the plugins: %s; fix the plugin, or "
                "compare with -j 1 (docs/sweep.md)\n",
                (unsigned long long)run, worker, names);
    }
    nsd_sweep_row_free(again);
}

/* ---- tally and progress ---- */

static const char *const status_names[] = {"ok", "failed", "refused", "no summary"};

/* A failure's reason: its message without the state (from "; state",
 * "; last") and with every number as N (times and states differ from run
 * to run), so runs that failed the same way count together. */
static void reason_of(const nsd_sweep_row *row, char *buf, size_t len) {
    char msg[sizeof row->message];
    snprintf(msg, sizeof msg, "%s", row->message);
    static const char *const cuts[] = {"; state", "; last", " (axis '"};
    for (size_t k = 0; k < 3; ++k) {
        char *c = strstr(msg, cuts[k]);
        if (c) *c = '\0';
    }
    size_t n = (size_t)snprintf(buf, len, "%s: ", status_names[row->status & 3]);
    for (const char *p = msg; *p && n + 2 < len;) {
        int digit = *p >= '0' && *p <= '9';
        int starts = digit || ((*p == '-' || *p == '.') && p[1] >= '0' && p[1] <= '9');
        if (starts && (p == msg || !((p[-1] | 32) >= 'a' && (p[-1] | 32) <= 'z'))) {
            buf[n++] = 'N';
            p++;
            while ((*p >= '0' && *p <= '9') || *p == '.' ||
                   ((*p == 'e' || *p == 'E') &&
                    (p[1] == '-' || p[1] == '+' || (p[1] >= '0' && p[1] <= '9'))) ||
                   ((*p == '-' || *p == '+') && (p[-1] == 'e' || p[-1] == 'E')))
                p++;
            continue;
        }
        buf[n++] = *p++;
    }
    buf[n] = '\0';
}

void nsd_sweep_tally_add(nsd_sweep_tally *t, const nsd_sweep_row *row) {
    t->done++;
    t->by_status[row->status & 3]++;
    t->wall += row->wall;
    t->sim_wall += row->sim_wall;
    if (row->status == NSD_SWEEP_OK) {
        t->warned += !strncmp(row->message, "warning:", 8);
        return;
    }
    char why[160];
    reason_of(row, why, sizeof why);
    for (size_t i = 0; i < t->n_reasons; ++i)
        if (!strcmp(t->reason[i], why)) {
            t->reason_n[i]++;
            return;
        }
    if (t->n_reasons < 8) {
        snprintf(t->reason[t->n_reasons], sizeof t->reason[0], "%s", why);
        t->reason_n[t->n_reasons++] = 1;
    }
}

void nsd_sweep_tally_print(FILE *out, const nsd_sweep_tally *t) {
    size_t bad = t->done - t->by_status[NSD_SWEEP_OK];
    fprintf(out, "sweep: %zu runs done (%zu skipped as finished before), %zu ok, %zu failed",
            t->done, t->skipped, t->by_status[NSD_SWEEP_OK], bad);
    if (bad)
        fprintf(out, " (%zu simulation failed, %zu refused, %zu without summary)",
                t->by_status[NSD_SWEEP_FAILED], t->by_status[NSD_SWEEP_REFUSED],
                t->by_status[NSD_SWEEP_NO_SUMMARY]);
    fputc('\n', out);
    if (t->warned)
        fprintf(out,
                "sweep: warning: %zu ok run%s projected an open contact out of a penetration (a "
                "possible missed impact; their message column says how deep)\n",
                t->warned, t->warned == 1 ? "" : "s");
    if (t->done && t->elapsed > 0)
        fprintf(out,
                "sweep: %.1f s wall, %.1f runs/s; per run %.3f ms (simulation %.3f ms, set-up and "
                "summaries %.3f ms); database %.2f s in the writer\n",
                t->elapsed, (double)t->done / t->elapsed, 1e3 * t->wall / (double)t->done,
                1e3 * t->sim_wall / (double)t->done,
                1e3 * (t->wall - t->sim_wall) / (double)t->done, t->db_wall);
    for (size_t i = 0; i < t->n_reasons; ++i)
        fprintf(out, "  %6zu x %s\n", t->reason_n[i], t->reason[i]);
}

void nsd_sweep_progress_start(nsd_sweep_progress *p, size_t total, int quiet) {
    p->t0 = p->last = now_s();
    p->tty = isatty(STDERR_FILENO);
    p->quiet = quiet;
    p->total = total;
}

void nsd_sweep_progress_show(nsd_sweep_progress *p, const nsd_sweep_tally *t, int final) {
    double w = now_s();
    if (p->quiet || (!final && w - p->last < (p->tty ? 0.25 : 5.0))) return;
    p->last = w;
    double rate = w > p->t0 ? (double)t->done / (w - p->t0) : 0;
    double eta = rate > 0 ? (double)(p->total - t->done) / rate : 0;
    fprintf(stderr, "%ssweep: %zu/%zu runs, %zu failed, %.1f runs/s, ETA %.0f s%s",
            p->tty ? "\r" : "", t->done, p->total, t->done - t->by_status[NSD_SWEEP_OK], rate, eta,
            p->tty && !final ? "   " : "\n");
}

/* ---- threads ---- */

typedef struct queue {
    pthread_mutex_t mu;
    pthread_cond_t ready, room;
    nsd_sweep_row **rows; /* finished, waiting for the writer */
    size_t n, cap;
    size_t next;      /* next pending run to take */
    size_t n_pending; /* pending[] */
    uint64_t *pending;
    int workers_left;
} queue;

/* A worker thread. Its run in flight (busy: since t_start) and whether it
 * has ended are under the queue's lock; stop tells the writer whether it
 * is stuck in a plugin callback after a signal (runner/run_watch.h). */
typedef struct worker {
    queue *q;
    nsd_sweep_worker_ctx ctx;
    nsd_sweep_slot slot; /* its scenario on the shared model, run to run */
    pthread_t th;
    nsd_stop_watch stop;
    uint64_t in_flight;
    double t_start;
    int busy, ended;
} worker;

static pthread_mutex_t derive_mu = PTHREAD_MUTEX_INITIALIZER;
void nsd_sweep_derive_lock(int on) {
    if (on)
        pthread_mutex_lock(&derive_mu);
    else
        pthread_mutex_unlock(&derive_mu);
}

static void *worker_main(void *arg) {
    worker *w = arg;
    queue *q = w->q;
    int probed = 0;
    nsd_stop_watch_attach(&w->stop);
    for (;;) {
        pthread_mutex_lock(&q->mu);
        size_t i = q->next < q->n_pending && !nsd_interrupt_signal() ? q->next++ : SIZE_MAX;
        if (i != SIZE_MAX) w->in_flight = q->pending[i], w->busy = 1, w->t_start = now_s();
        pthread_mutex_unlock(&q->mu);
        if (i == SIZE_MAX) break;
        nsd_sweep_row *row = nsd_sweep_row_new(w->ctx.def);
        nsd_sweep_run_in(&w->ctx, &w->slot, q->pending[i], row);
        if (!probed) nsd_sweep_probe_global_state(&w->ctx, q->pending[i], row, "worker thread");
        probed = 1;
        if (nsd_interrupt_signal()) { /* cut short: not a finished run */
            nsd_sweep_row_free(row);
            break;
        }
        pthread_mutex_lock(&q->mu);
        while (q->n == q->cap) pthread_cond_wait(&q->room, &q->mu);
        q->rows[q->n++] = row;
        w->busy = 0;
        pthread_cond_signal(&q->ready);
        pthread_mutex_unlock(&q->mu);
    }
    nsd_stop_watch_attach(NULL);
    nsd_sweep_slot_free(&w->slot);
    pthread_mutex_lock(&q->mu);
    w->busy = 0;
    w->ended = 1;
    q->workers_left--;
    pthread_cond_signal(&q->ready);
    pthread_mutex_unlock(&q->mu);
    return NULL;
}

/* After a signal: are the workers still running all stuck in a plugin
 * callback (none has looked at the signal for NSD_STOP_GRACE_S)? Then
 * their runs are failed with the reason (the study keeps them as done;
 * --retry-crashed runs them again), the threads counted in
 * tally->abandoned, and 1 returned (-1: the database refused a row). */
static int abandon_stuck(queue *q, worker *w, int threads, nsd_sweep_db *db, nsd_sweep_tally *tally,
                         char *err, size_t len) {
    int running = 0, moving = 0, rc = 0;
    pthread_mutex_lock(&q->mu);
    for (int i = 0; i < threads; ++i)
        if (!w[i].ended) running++, moving |= !nsd_stop_watch_stuck(&w[i].stop);
    if (!running || moving) {
        pthread_mutex_unlock(&q->mu);
        return 0;
    }
    nsd_sweep_row *row = nsd_sweep_row_new(w[0].ctx.def);
    for (int i = 0; i < threads; ++i) {
        if (w[i].ended || !w[i].busy) continue;
        nsd_sweep_failed_row(w[i].ctx.def, w[i].in_flight, now_s() - w[i].t_start, row);
        snprintf(
            row->message, sizeof row->message,
            "crashed: interrupted by signal %d inside a plugin callback: the run did not reach "
            "a step boundary within %g s of the signal (a callback that does not return) and "
            "was left running when the sweep ended; --retry-crashed runs it again",
            nsd_interrupt_signal(), NSD_STOP_GRACE_S);
        if (rc == 0 && nsd_sweep_db_put(db, row, err, len) != 0) rc = -1;
        nsd_sweep_tally_add(tally, row);
    }
    nsd_sweep_row_free(row);
    tally->abandoned += (size_t)running;
    pthread_mutex_unlock(&q->mu);
    return rc == 0 ? 1 : -1;
}

/* The writer: rows into the database, a commit every second; after a
 * signal, the runs stuck in a plugin callback failed (abandon_stuck). */
static int write_rows(queue *q, worker *w, int threads, nsd_sweep_db *db, nsd_sweep_tally *tally,
                      nsd_sweep_progress *prog) {
    char err[512];
    int rc = 0;
    double last_commit = now_s();
    if (nsd_sweep_db_begin(db, err, sizeof err) != 0) rc = -1;
    nsd_sweep_row **batch = calloc(q->cap, sizeof *batch);
    if (!batch) abort();
    for (;;) {
        pthread_mutex_lock(&q->mu);
        while (q->n == 0 && q->workers_left > 0) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 250000000;
            if (ts.tv_nsec >= 1000000000) ts.tv_sec++, ts.tv_nsec -= 1000000000;
            if (pthread_cond_timedwait(&q->ready, &q->mu, &ts) == ETIMEDOUT) break;
        }
        size_t n = q->n;
        memcpy(batch, q->rows, n * sizeof *batch);
        q->n = 0;
        int finished = q->workers_left == 0 && n == 0;
        pthread_cond_broadcast(&q->room);
        pthread_mutex_unlock(&q->mu);
        double w_db = now_s();
        for (size_t i = 0; i < n; ++i) {
            if (rc == 0 && nsd_sweep_db_put(db, batch[i], err, sizeof err) != 0) {
                rc = -1; /* the workers take no more runs */
                pthread_mutex_lock(&q->mu);
                q->next = q->n_pending;
                pthread_mutex_unlock(&q->mu);
            }
            nsd_sweep_tally_add(tally, batch[i]);
            nsd_sweep_row_free(batch[i]);
        }
        if (!finished && n == 0 && nsd_interrupt_signal()) {
            int a = abandon_stuck(q, w, threads, db, tally, err, sizeof err);
            if (a < 0) rc = -1;
            finished = a != 0;
        }
        if (rc == 0 && now_s() - last_commit > 1.0) {
            if (nsd_sweep_db_commit(db, err, sizeof err) != 0 ||
                nsd_sweep_db_begin(db, err, sizeof err) != 0)
                rc = -1;
            last_commit = now_s();
        }
        tally->db_wall += now_s() - w_db;
        nsd_sweep_progress_show(prog, tally, 0);
        if (finished) break;
    }
    free(batch);
    if (rc == 0 && nsd_sweep_db_commit(db, err, sizeof err) != 0) rc = -1;
    if (rc != 0) fprintf(stderr, "error: sweep database: %s\n", err);
    return rc;
}

int nsd_sweep_exec_threads(const nsd_sweep_def *def, const nsd_scenario *base, nsd_sweep_db *db,
                           const uint8_t *done, const nsd_sweep_opts *opts,
                           nsd_sweep_tally *tally) {
    /* on the heap: after an abandon the stuck threads still hold the
     * queue and their worker (the process then ends; cmd_sweep.c) */
    queue *q = calloc(1, sizeof *q);
    int threads = opts->threads > 0 ? opts->threads : 1;
    worker *w = calloc((size_t)threads, sizeof *w);
    char *ok = calloc((size_t)threads, 1);
    if (!q || !w || !ok) abort();
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->ready, NULL);
    pthread_cond_init(&q->room, NULL);
    q->pending = malloc((def->n_runs ? def->n_runs : 1) * sizeof *q->pending);
    q->cap = 64 * (size_t)threads;
    q->rows = calloc(q->cap, sizeof *q->rows);
    if (!q->pending || !q->rows) abort();
    for (size_t r = 0; r < def->n_runs; ++r)
        if (!(done && (done[r / 8] >> (r % 8) & 1))) q->pending[q->n_pending++] = r;
    tally->skipped = def->n_runs - q->n_pending;
    nsd_sweep_progress prog;
    nsd_sweep_progress_start(&prog, q->n_pending, opts->quiet);
    int started = 0;
    q->workers_left = threads;
    /* one model for all the threads when the axes allow it (leaked, like
     * q and w, after an abandon: the stuck threads still read it) */
    nsd_scenario *shared = nsd_sweep_shared_model(def, base);
    for (int i = 0; i < threads; ++i) {
        w[i] = (worker){.q = q,
                        .ctx = {def, base, opts->keep_dir,
                                def->derive_locked ? nsd_sweep_derive_lock : NULL, shared}};
        nsd_stop_watch_init(&w[i].stop);
        ok[i] = pthread_create(&w[i].th, NULL, worker_main, &w[i]) == 0;
        started += ok[i];
        if (!ok[i]) {
            pthread_mutex_lock(&q->mu);
            q->workers_left--;
            w[i].ended = 1;
            pthread_mutex_unlock(&q->mu);
        }
    }
    int rc = started ? write_rows(q, w, threads, db, tally, &prog) : -1;
    for (int i = 0; i < threads; ++i)
        if (ok[i] && (!tally->abandoned || w[i].ended)) pthread_join(w[i].th, NULL);
    free(ok);
    nsd_sweep_progress_show(&prog, tally, 1);
    tally->elapsed = now_s() - prog.t0;
    if (tally->abandoned) return rc; /* q, w, shared stay: the stuck threads hold them */
    if (shared) nsd_scenario_destroy(shared);
    free(shared);
    free(q->pending);
    free(q->rows);
    pthread_mutex_destroy(&q->mu);
    pthread_cond_destroy(&q->ready);
    pthread_cond_destroy(&q->room);
    free(q);
    free(w);
    return rc;
}

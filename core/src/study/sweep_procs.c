/* Running a sweep's runs in worker processes (sweep.h
 * nsd_sweep_exec_procs): a pool of opts->threads children forked from the
 * writer, each taking run numbers over a pipe and sending back finished
 * rows over another. A child that dies during a run (a plugin's SIGSEGV,
 * abort(), exit(), a memory limit) or outlives [sweep] run_timeout fails
 * that row with the reason ("crashed: ..."), a fresh child takes its
 * place and the study goes on; the writer stays the only process that
 * touches the database. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "interrupt.h"
#include "sweep.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int write_all(int fd, const void *buf, size_t n) {
    const char *p = buf;
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        p += k, n -= (size_t)k;
    }
    return 0;
}

static int read_all(int fd, void *buf, size_t n) {
    char *p = buf;
    while (n) {
        ssize_t k = read(fd, p, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        p += k, n -= (size_t)k;
    }
    return 0;
}

/* A row on the wire: the fixed part, then the arrays the def sizes. */
typedef struct wire {
    uint64_t run;
    int32_t status;
    uint32_t n_points;
    double wall, sim_wall;
    char message[512];
    char config_hash[65];
    uint32_t log_warnings;
    char log_first[256];
} wire;

static int send_row(int fd, const nsd_sweep_def *def, const nsd_sweep_row *r) {
    wire w = {r->run, r->status, r->n_points, r->wall, r->sim_wall, {0}, {0}, r->log_warnings, {0}};
    memcpy(w.message, r->message, sizeof w.message);
    memcpy(w.log_first, r->log_first, sizeof w.log_first);
    memcpy(w.config_hash, r->config_hash, sizeof w.config_hash);
    size_t na = def->n_axes, ns = def->n_sums;
    return write_all(fd, &w, sizeof w) || write_all(fd, r->axis_num, na * sizeof(double)) ||
           write_all(fd, r->axis_text, na * NSD_SWEEP_TEXT) ||
           write_all(fd, r->sum_num, ns * sizeof(double)) ||
           write_all(fd, r->sum_text, ns * NSD_SWEEP_TEXT) ||
           write_all(fd, r->points, r->n_points * sizeof(double));
}

static int recv_row(int fd, const nsd_sweep_def *def, nsd_sweep_row *r) {
    wire w;
    size_t na = def->n_axes, ns = def->n_sums;
    if (read_all(fd, &w, sizeof w) || w.n_points > NSD_SWEEP_POINTS) return -1;
    r->run = w.run, r->status = w.status, r->n_points = w.n_points;
    r->wall = w.wall, r->sim_wall = w.sim_wall;
    memcpy(r->message, w.message, sizeof r->message);
    r->message[sizeof r->message - 1] = '\0';
    memcpy(r->config_hash, w.config_hash, sizeof r->config_hash);
    r->config_hash[64] = '\0';
    r->log_warnings = w.log_warnings;
    memcpy(r->log_first, w.log_first, sizeof r->log_first);
    r->log_first[sizeof r->log_first - 1] = '\0';
    return read_all(fd, r->axis_num, na * sizeof(double)) ||
           read_all(fd, r->axis_text, na * NSD_SWEEP_TEXT) ||
           read_all(fd, r->sum_num, ns * sizeof(double)) ||
           read_all(fd, r->sum_text, ns * NSD_SWEEP_TEXT) ||
           read_all(fd, r->points, r->n_points * sizeof(double));
}

/* Most runs a child has queued in its task pipe beyond the one it runs.
 * With one, a child went idle whenever the writer was not scheduled within
 * one run (~1.7 ms on the full grid): on two cores the writer competes with
 * the children it feeds (issue 25 item 1). Short runs get more queued, up
 * to QUEUE_S of work (queue_depth); the runs queued to a child that dies go
 * to the others, nothing is lost. */
#define QUEUED 8
#define QUEUE_S 0.02

typedef struct child {
    pid_t pid;
    int task, result;         /* the writer's ends */
    int busy;                 /* runs sent and not answered, 0 .. QUEUED + 1 */
    uint64_t run[QUEUED + 1]; /* in the order sent; run[0] is running, since t_start */
    double t_start;
} child;

/* The child: runs until its task pipe closes; never returns. */
static void child_main(const nsd_sweep_worker_ctx *ctx, int task, int result, double max_mb) {
    if (max_mb > 0) {
        struct rlimit rl = {(rlim_t)(max_mb * 1048576.0), (rlim_t)(max_mb * 1048576.0)};
        setrlimit(RLIMIT_AS, &rl);
    }
    nsd_sweep_row *row = nsd_sweep_row_new(ctx->def);
    uint64_t run;
    int probed = 0;
    /* the child's runs share one model when the axes allow it (freed by
     * the process's end) */
    nsd_sweep_worker_ctx own = *ctx;
    own.shared = nsd_sweep_shared_model(ctx->def, ctx->base);
    ctx = &own;
    nsd_sweep_slot slot = {0}; /* its scenario, run to run (freed by the process's end) */
    while (!nsd_interrupt_signal() && read_all(task, &run, sizeof run) == 0) {
        nsd_sweep_run_in(ctx, &slot, run, row);
        if (!probed) nsd_sweep_probe_global_state(ctx, run, row, "worker process"), probed = 1;
        if (nsd_interrupt_signal() || send_row(result, ctx->def, row) != 0) break;
    }
    _exit(0); /* no atexit handlers, no stdio flush of the writer's buffers */
}

static int spawn(child *c, const nsd_sweep_worker_ctx *ctx, double max_mb, child *all,
                 size_t n_all) {
    int tp[2], rp[2];
    if (pipe2(tp, O_CLOEXEC) != 0) return -1;
    if (pipe2(rp, O_CLOEXEC) != 0) {
        close(tp[0]), close(tp[1]);
        return -1;
    }
    fflush(stdout), fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        close(tp[0]), close(tp[1]), close(rp[0]), close(rp[1]);
        return -1;
    }
    if (pid == 0) {
        close(tp[1]), close(rp[0]);
        for (size_t i = 0; i < n_all; ++i) /* the other children's pipes */
            if (all[i].pid > 0) close(all[i].task), close(all[i].result);
        child_main(ctx, tp[0], rp[1], max_mb);
    }
    close(tp[0]), close(rp[1]);
    *c = (child){.pid = pid, .task = tp[1], .result = rp[0]};
    return 0;
}

/* Why the child of a row died, for the row's message. */
static void death_reason(int st, int timed_out, double timeout, double max_mb, char *buf,
                         size_t len) {
    if (timed_out)
        snprintf(buf, len,
                 "crashed: the run took longer than [sweep] run_timeout = %g s and was killed",
                 timeout);
    else if (WIFSIGNALED(st))
        snprintf(buf, len, "crashed: the run's process was killed by signal %d (%s)%s",
                 WTERMSIG(st), strsignal(WTERMSIG(st)),
                 max_mb > 0 ? " (with [sweep] run_max_memory set, a refused allocation can end "
                              "a run this way)"
                            : "");
    else if (WIFEXITED(st))
        snprintf(buf, len,
                 "crashed: the run's process exited with status %d in the middle of the run (a "
                 "plugin called exit()?)",
                 WEXITSTATUS(st));
    else
        snprintf(buf, len, "crashed: the run's process ended without a result");
}

/* The row of a run whose process died: its axes, no summaries, the reason. */
static void crashed_row(const nsd_sweep_def *def, const child *c, int st, int timed_out,
                        double timeout, nsd_sweep_row *row) {
    nsd_sweep_failed_row(def, c->run[0], now_s() - c->t_start, row);
    death_reason(st, timed_out, timeout, def->run_max_memory_mb, row->message, sizeof row->message);
}

typedef struct pool {
    const nsd_sweep_def *def;
    nsd_sweep_worker_ctx ctx;
    const nsd_sweep_opts *opts;
    child *c;
    size_t n;
    nsd_sweep_row *row;
    nsd_sweep_db *db;
    nsd_sweep_tally *tally;
    double last_commit;
    int db_failed;
    const uint64_t *pending; /* the runs to do, taken from next on */
    size_t n_pending, next;
    uint64_t *again; /* runs sent to a child that died before it began them */
    size_t n_again;
} pool;

/* Runs to keep sent to a child (the running one and the queued): enough
 * for QUEUE_S of the mean run so far, at least 2, and one queued for long
 * runs, whose tail would else be uneven across the children. */
static int queue_depth(const pool *p) {
    const nsd_sweep_tally *t = p->tally;
    if (t->done == 0 || !(t->wall > 0)) return 2;
    double mean_s = t->wall / (double)t->done;
    double q = QUEUE_S / mean_s;
    return q >= QUEUED ? QUEUED + 1 : q < 1 ? 2 : 1 + (int)ceil(q);
}

static void put_row(pool *p) {
    char err[512];
    double w = now_s();
    if (!p->db_failed && nsd_sweep_db_put(p->db, p->row, err, sizeof err) != 0) {
        fprintf(stderr, "error: sweep database: %s\n", err);
        p->db_failed = 1;
    }
    nsd_sweep_tally_add(p->tally, p->row);
    if (!p->db_failed && w - p->last_commit > 1.0) {
        if (nsd_sweep_db_commit(p->db, err, sizeof err) != 0 ||
            nsd_sweep_db_begin(p->db, err, sizeof err) != 0) {
            fprintf(stderr, "error: sweep database: %s\n", err);
            p->db_failed = 1;
        }
        p->last_commit = now_s();
    }
    p->tally->db_wall += now_s() - w;
}

/* Child i ended (EOF on its result pipe, or killed for its time): reap it,
 * fail its run unless a signal stopped the sweep, start another. */
static void replace(pool *p, size_t i, int timed_out) {
    child *c = &p->c[i];
    if (timed_out) kill(c->pid, SIGKILL);
    int st = 0;
    while (waitpid(c->pid, &st, 0) < 0 && errno == EINTR) {}
    /* The rows it finished before it died may wait unread in its result
     * pipe (the writer learns of a death from a failed task write, too):
     * they are results, and the run it died in is the first one after. */
    while (c->busy && recv_row(c->result, p->def, p->row) == 0) {
        memmove(c->run, c->run + 1, (size_t)QUEUED * sizeof *c->run);
        c->busy--;
        put_row(p);
    }
    close(c->task), close(c->result);
    c->pid = -1;
    if (c->busy && !nsd_interrupt_signal()) {
        crashed_row(p->def, c, st, timed_out, p->def->run_timeout_s, p->row);
        put_row(p);
    }
    for (int k = 1; k < c->busy; ++k) p->again[p->n_again++] = c->run[k];
    c->busy = 0;
    if (!nsd_interrupt_signal() && spawn(c, &p->ctx, p->def->run_max_memory_mb, p->c, p->n) != 0)
        c->pid = -1;
}

/* Wait for results (up to 250 ms), take them, kill the runs past their
 * time. */
static void collect(pool *p) {
    struct pollfd fds[1024];
    size_t idx[1024], nf = 0;
    for (size_t i = 0; i < p->n && nf < 1024; ++i)
        if (p->c[i].pid > 0 && p->c[i].busy) {
            fds[nf] = (struct pollfd){p->c[i].result, POLLIN, 0};
            idx[nf++] = i;
        }
    if (!nf) return;
    int r = poll(fds, nf, 250);
    for (size_t k = 0; r > 0 && k < nf; ++k) {
        if (!fds[k].revents) continue;
        child *c = &p->c[idx[k]];
        if (recv_row(c->result, p->def, p->row) == 0) {
            memmove(c->run, c->run + 1, (size_t)QUEUED * sizeof *c->run);
            c->busy--;
            c->t_start = now_s();
            put_row(p);
        } else {
            replace(p, idx[k], 0);
        }
    }
    double timeout = p->def->run_timeout_s, t = now_s();
    for (size_t i = 0; timeout > 0 && i < p->n; ++i)
        if (p->c[i].pid > 0 && p->c[i].busy && t - p->c[i].t_start > timeout) replace(p, i, 1);
}

/* The end: close the task pipes (the children exit), on a signal pass it
 * on and give the runs a moment to stop, then reap every child. */
static void shut_down(pool *p) {
    for (size_t i = 0; i < p->n; ++i) {
        if (p->c[i].pid <= 0) continue;
        close(p->c[i].task);
        if (nsd_interrupt_signal() && p->c[i].busy) kill(p->c[i].pid, SIGTERM);
    }
    double t0 = now_s();
    for (size_t i = 0; i < p->n; ++i) {
        if (p->c[i].pid <= 0) continue;
        int st;
        while (waitpid(p->c[i].pid, &st, WNOHANG) == 0) {
            if (now_s() - t0 > 2.0) kill(p->c[i].pid, SIGKILL);
            struct timespec ts = {0, 10000000};
            nanosleep(&ts, NULL);
        }
        close(p->c[i].result);
    }
}

int nsd_sweep_exec_procs(const nsd_sweep_def *def, const nsd_scenario *base, nsd_sweep_db *db,
                         const uint8_t *done, const nsd_sweep_opts *opts, nsd_sweep_tally *tally) {
    size_t n = opts->threads > 0 ? (size_t)opts->threads : 1, n_pending = 0;
    uint64_t *pending = malloc((def->n_runs ? def->n_runs : 1) * sizeof *pending);
    pool p = {.def = def,
              .ctx = {def, base, opts->keep_dir, NULL},
              .opts = opts,
              .c = calloc(n, sizeof(child)),
              .n = n,
              .row = nsd_sweep_row_new(def),
              .db = db,
              .tally = tally,
              .last_commit = now_s(),
              .pending = pending,
              .again = calloc((QUEUED + 1) * n + 1, sizeof(uint64_t))};
    if (!pending || !p.c || !p.again) abort();
    for (size_t r = 0; r < def->n_runs; ++r)
        if (!(done && (done[r / 8] >> (r % 8) & 1))) pending[n_pending++] = r;
    tally->skipped = def->n_runs - n_pending;
    p.n_pending = n_pending;
    nsd_sweep_progress prog;
    nsd_sweep_progress_start(&prog, n_pending, opts->quiet);
    char err[512];
    if (nsd_sweep_db_begin(db, err, sizeof err) != 0) {
        fprintf(stderr, "error: sweep database: %s\n", err);
        p.db_failed = 1;
    }
    signal(SIGPIPE, SIG_IGN); /* a dead child's task pipe: write() fails instead */
    size_t alive = 0;
    for (size_t i = 0; i < n; ++i) {
        p.c[i].pid = -1;
        alive += spawn(&p.c[i], &p.ctx, def->run_max_memory_mb, p.c, n) == 0;
    }
    for (;;) {
        int any_busy = 0;
        int depth = queue_depth(&p);
        for (size_t i = 0; i < n; ++i) {
            child *c = &p.c[i];
            while (c->pid > 0 && c->busy < depth && (p.n_again || p.next < p.n_pending) &&
                   !p.db_failed && !nsd_interrupt_signal()) {
                uint64_t run = p.n_again ? p.again[--p.n_again] : p.pending[p.next++];
                if (write_all(c->task, &run, sizeof run) != 0) {
                    p.again[p.n_again++] = run;
                    replace(&p, i, 0); /* it died: its runs are failed or go to another */
                    continue;
                }
                if (!c->busy) c->t_start = now_s();
                c->run[c->busy++] = run;
            }
            any_busy |= c->pid > 0 && c->busy;
        }
        if (!any_busy) break;
        collect(&p);
        nsd_sweep_progress_show(&prog, tally, 0);
    }
    shut_down(&p);
    int rc = p.db_failed ? -1 : 0;
    if ((p.next < n_pending || p.n_again) && !p.db_failed && !nsd_interrupt_signal()) {
        fprintf(stderr,
                "error: sweep: no worker process could be started (%zu started at first); %zu "
                "runs not run: the same command goes on with them\n",
                alive, n_pending - p.next + p.n_again);
        rc = -1;
    }
    if (!p.db_failed && nsd_sweep_db_commit(db, err, sizeof err) != 0) {
        fprintf(stderr, "error: sweep database: %s\n", err);
        rc = -1;
    }
    nsd_sweep_progress_show(&prog, tally, 1);
    tally->elapsed = now_s() - prog.t0;
    nsd_sweep_row_free(p.row);
    free(p.c);
    free(p.again);
    free(pending);
    return rc;
}

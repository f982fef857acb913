/* nsdyn sweep across MPI ranks (-DNSDYN_MPI=ON; docs/sweep.md).
 *
 * Rank 0 hands out runs and writes the database; ranks 1.. run them. Load
 * balancing is dynamic: a worker asks for runs with the rows of its last
 * chunk, and gets the next chunk (smaller as the sweep nears its end, so
 * the ranks finish together) or an empty one (stop). A row's values
 * follow from its run number alone (sweep_design.c), so the database
 * holds the same bits as a single-process sweep. With -j N each worker
 * rank runs its chunk on N threads (one machine's cores: `mpirun -n 3
 * nsdyn sweep ... -j 8` on two 8-core nodes); only the main thread calls
 * MPI (MPI_THREAD_FUNNELED). Rank 0 waits with
 * MPI_Iprobe and a short sleep instead of a blocking receive, which in
 * OpenMPI spins and would take a core from the workers. */
#define _GNU_SOURCE
#include <mpi.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "interrupt.h"
#include "sweep_modules.h"

enum { TAG_ROWS = 1, TAG_WORK = 2 };
#define CHUNK 64 /* most runs in one message */

/* Under mpirun (the launcher sets these), MPI; otherwise not at all: a
 * plain `nsdyn sweep` runs its threads without starting MPI. */
static int launched_by_mpi(void) {
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK");
}

static int mpi_on;
static int mpi_funneled; /* threads may run beside MPI (only the main thread calls it) */

int nsd_sweep_mpi_init(int *argc, char ***argv, int *rank, int *size) {
    *rank = 0;
    *size = 1;
    if (!launched_by_mpi()) return 0;
    int provided = MPI_THREAD_SINGLE;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "error: MPI_Init_thread failed\n");
        return -1;
    }
    mpi_on = 1;
    mpi_funneled = provided >= MPI_THREAD_FUNNELED;
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    return 0;
}

void nsd_sweep_mpi_finalize(void) {
    if (mpi_on) MPI_Finalize();
    mpi_on = 0;
}

/* Every rank's ok (1) or not (0): the least of them. */
int nsd_sweep_mpi_agree(int ok) {
    if (!mpi_on) return ok;
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- rank 0 ---- */

typedef struct master {
    const nsd_sweep_def *def;
    nsd_sweep_db *db;
    nsd_sweep_tally *tally;
    uint64_t *pending;
    size_t n_pending, next;
    int workers;
    size_t threads; /* per worker rank (-j) */
    size_t row_size;
    unsigned char *buf;
    size_t buf_cap;
    nsd_sweep_row *row;
    int rc;
} master;

/* The rows of a message into the database. */
static void store_rows(master *m, const unsigned char *buf, int bytes, double *w_db) {
    int n = 0;
    memcpy(&n, buf, sizeof n);
    if (n < 0 || (size_t)bytes < sizeof n + (size_t)n * m->row_size) return;
    double w0 = now_s();
    char err[512];
    for (int i = 0; i < n; ++i) {
        nsd_sweep_row_unpack(m->def, buf + sizeof n + (size_t)i * m->row_size, m->row);
        if (m->rc == 0 && nsd_sweep_db_put(m->db, m->row, err, sizeof err) != 0) {
            fprintf(stderr, "error: sweep database: %s\n", err);
            m->rc = -1;
            m->next = m->n_pending; /* no more runs */
        }
        nsd_sweep_tally_add(m->tally, m->row);
    }
    *w_db += now_s() - w0;
}

/* The next chunk for a worker: a quarter of its share of what is left,
 * at least one run per thread of a worker, at most CHUNK runs. */
static size_t next_chunk(master *m, uint64_t *out) {
    if (nsd_interrupt_signal()) m->next = m->n_pending;
    size_t left = m->n_pending - m->next;
    size_t n = left / (4 * (size_t)m->workers);
    if (n < m->threads) n = m->threads;
    if (n > CHUNK) n = CHUNK;
    if (n > left) n = left;
    memcpy(out, m->pending + m->next, n * sizeof *out);
    m->next += n;
    return n;
}

static int run_master(master *m, nsd_sweep_progress *prog) {
    char err[512];
    int active = m->workers;
    double last_commit = now_s();
    if (nsd_sweep_db_begin(m->db, err, sizeof err) != 0) m->rc = -1;
    uint64_t chunk[CHUNK];
    while (active > 0) {
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, TAG_ROWS, MPI_COMM_WORLD, &flag, &st);
        if (!flag) {
            nsd_sweep_progress_show(prog, m->tally, 0);
            struct timespec ts = {0, 200000}; /* 0.2 ms */
            nanosleep(&ts, NULL);
            continue;
        }
        int bytes = 0;
        MPI_Get_count(&st, MPI_BYTE, &bytes);
        if ((size_t)bytes > m->buf_cap) {
            m->buf_cap = (size_t)bytes;
            m->buf = realloc(m->buf, m->buf_cap);
            if (!m->buf) abort();
        }
        MPI_Recv(m->buf, bytes, MPI_BYTE, st.MPI_SOURCE, TAG_ROWS, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        store_rows(m, m->buf, bytes, &m->tally->db_wall);
        size_t n = next_chunk(m, chunk);
        MPI_Send(chunk, (int)n, MPI_UINT64_T, st.MPI_SOURCE, TAG_WORK, MPI_COMM_WORLD);
        if (n == 0) active--;
        if (m->rc == 0 && now_s() - last_commit > 1.0) {
            if (nsd_sweep_db_commit(m->db, err, sizeof err) != 0 ||
                nsd_sweep_db_begin(m->db, err, sizeof err) != 0)
                m->rc = -1;
            last_commit = now_s();
        }
    }
    if (m->rc == 0 && nsd_sweep_db_commit(m->db, err, sizeof err) != 0) m->rc = -1;
    if (m->rc != 0 && err[0]) fprintf(stderr, "error: sweep database: %s\n", err);
    return m->rc;
}

/* ---- ranks 1.. ---- */

/* One chunk run by a worker rank's threads: each takes the next run of
 * it and packs its row into the run's slot of the message. */
typedef struct chunk_job {
    const nsd_sweep_worker_ctx *ctx;
    const uint64_t *runs;
    int n, next;
    unsigned char *slots; /* n rows of row_size bytes */
    size_t row_size;
    unsigned char finished[CHUNK]; /* slot i holds a finished row */
    pthread_mutex_t mu;
} chunk_job;

static void *chunk_thread(void *arg) {
    chunk_job *j = arg;
    nsd_sweep_row *row = nsd_sweep_row_new(j->ctx->def);
    nsd_sweep_slot slot = {0}; /* this thread's scenario, run to run */
    for (;;) {
        pthread_mutex_lock(&j->mu);
        int i = j->next < j->n && !nsd_interrupt_signal() ? j->next++ : -1;
        pthread_mutex_unlock(&j->mu);
        if (i < 0) break;
        nsd_sweep_run_in(j->ctx, &slot, j->runs[i], row);
        if (nsd_interrupt_signal()) break; /* cut short: not finished */
        nsd_sweep_row_pack(j->ctx->def, row, j->slots + (size_t)i * j->row_size);
        j->finished[i] = 1;
    }
    nsd_sweep_slot_free(&slot);
    nsd_sweep_row_free(row);
    return NULL;
}

/* The chunk's runs on `threads` threads (this one among them); the
 * finished rows packed to the front of slots. Returns their count. */
static int run_chunk(chunk_job *j, size_t threads) {
    pthread_t th[CHUNK];
    size_t started = 0;
    j->next = 0;
    memset(j->finished, 0, sizeof j->finished);
    for (size_t t = 1; t < threads && (int)t < j->n; ++t)
        started += pthread_create(&th[started], NULL, chunk_thread, j) == 0;
    chunk_thread(j);
    for (size_t t = 0; t < started; ++t) pthread_join(th[t], NULL);
    int n = 0;
    for (int i = 0; i < j->n; ++i) {
        if (!j->finished[i]) continue;
        if (n != i)
            memmove(j->slots + (size_t)n * j->row_size, j->slots + (size_t)i * j->row_size,
                    j->row_size);
        n++;
    }
    return n;
}

static void run_worker(const nsd_sweep_def *def, const nsd_scenario *base,
                       const nsd_sweep_opts *opts) {
    size_t row_size = nsd_sweep_row_packed_size(def);
    unsigned char *buf = calloc(1, sizeof(int) + CHUNK * row_size);
    if (!buf) abort();
    size_t threads = opts->threads > 1 ? (size_t)opts->threads : 1;
    if (threads > 1 && !mpi_funneled) {
        fprintf(stderr,
                "warning: this MPI library gives no MPI_THREAD_FUNNELED: one thread per rank, "
                "not -j %zu\n",
                threads);
        threads = 1;
    }
    /* the rank's runs share one model when the axes allow it */
    nsd_scenario *shared = nsd_sweep_shared_model(def, base);
    nsd_sweep_worker_ctx ctx = {def, base, opts->keep_dir,
                                threads > 1 && def->derive_locked ? nsd_sweep_derive_lock : NULL,
                                shared};
    uint64_t chunk[CHUNK];
    chunk_job job = {.ctx = &ctx,
                     .runs = chunk,
                     .slots = buf + sizeof(int),
                     .row_size = row_size,
                     .mu = PTHREAD_MUTEX_INITIALIZER};
    int n = 0; /* the first message asks for work */
    for (;;) {
        memcpy(buf, &n, sizeof n);
        MPI_Send(buf, (int)(sizeof n + (size_t)n * row_size), MPI_BYTE, 0, TAG_ROWS,
                 MPI_COMM_WORLD);
        MPI_Status st;
        MPI_Recv(chunk, CHUNK, MPI_UINT64_T, 0, TAG_WORK, MPI_COMM_WORLD, &st);
        int got = 0;
        MPI_Get_count(&st, MPI_UINT64_T, &got);
        if (got == 0) break;
        job.n = got;
        n = run_chunk(&job, threads);
    }
    free(buf);
    if (shared) nsd_scenario_destroy(shared);
    free(shared);
}

int nsd_sweep_exec_mpi(const nsd_sweep_def *def, const nsd_scenario *base, nsd_sweep_db *db,
                       const uint8_t *done, const nsd_sweep_opts *opts, nsd_sweep_tally *tally,
                       int rank, int size) {
    if (rank != 0) {
        run_worker(def, base, opts);
        return 0;
    }
    master m = {.def = def,
                .db = db,
                .tally = tally,
                .workers = size - 1,
                .threads = opts->threads > 1 ? (size_t)opts->threads : 1};
    m.row_size = nsd_sweep_row_packed_size(def);
    m.pending = malloc((def->n_runs ? def->n_runs : 1) * sizeof *m.pending);
    m.row = nsd_sweep_row_new(def);
    if (!m.pending) abort();
    for (size_t r = 0; r < def->n_runs; ++r)
        if (!(done && (done[r / 8] >> (r % 8) & 1))) m.pending[m.n_pending++] = r;
    tally->skipped = def->n_runs - m.n_pending;
    nsd_sweep_progress prog;
    nsd_sweep_progress_start(&prog, m.n_pending, opts->quiet);
    int rc = run_master(&m, &prog);
    nsd_sweep_progress_show(&prog, tally, 1);
    tally->elapsed = now_s() - prog.t0;
    free(m.pending);
    free(m.buf);
    nsd_sweep_row_free(m.row);
    return rc;
}

/* The MPI module's one export (sweep_modules.h): this file is
 * libnsdyn_mpi.so, reached through libnsdyn's sweep_modules.c. */
__attribute__((visibility("default")))
const nsd_mpi_table nsd_module_table = {{"mpi", NSD_MODULE_ABI_MPI},
                                        nsd_sweep_mpi_init,
                                        nsd_sweep_mpi_finalize,
                                        nsd_sweep_mpi_agree,
                                        nsd_sweep_exec_mpi};

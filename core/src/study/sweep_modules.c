/* sweep.h's database and the MPI entry points (sweep_modules.h) in
 * libnsdyn: forwarded to their modules. A database handle exists only once
 * the SQLite module made it, so the calls on a handle find it loaded. */
#define _POSIX_C_SOURCE 200809L /* PATH_MAX (outdir.h) */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "sweep_modules.h"

static const nsd_sqlite_table *sqlite_module(char *err, size_t err_len) {
    return nsd_module_get("sqlite", NSD_MODULE_ABI_SQLITE, "a study's database", err, err_len);
}

nsd_sweep_db *nsd_sweep_db_open(const char *path, const nsd_sweep_def *def, const char *config,
                                uint8_t **done, size_t *n_done, char *err, size_t err_len) {
    const nsd_sqlite_table *t = sqlite_module(err, err_len);
    return t ? t->open(path, def, config, done, n_done, err, err_len) : NULL;
}

int nsd_sweep_db_check_plugins(nsd_sweep_db *db, const char *fingerprint, int accept, char *err,
                               size_t err_len) {
    return sqlite_module(err, err_len)->check_plugins(db, fingerprint, accept, err, err_len);
}

int nsd_sweep_db_begin(nsd_sweep_db *db, char *err, size_t err_len) {
    return sqlite_module(err, err_len)->begin(db, err, err_len);
}

int nsd_sweep_db_put(nsd_sweep_db *db, const nsd_sweep_row *row, char *err, size_t err_len) {
    return sqlite_module(err, err_len)->put(db, row, err, err_len);
}

int nsd_sweep_db_commit(nsd_sweep_db *db, char *err, size_t err_len) {
    return sqlite_module(err, err_len)->commit(db, err, err_len);
}

int nsd_sweep_db_csv(nsd_sweep_db *db, const char *path, char *err, size_t err_len) {
    return sqlite_module(err, err_len)->csv(db, path, err, err_len);
}

int nsd_sweep_db_scan(nsd_sweep_db *db, nsd_sweep_row_fn fn, void *ctx, char *err, size_t err_len) {
    return sqlite_module(err, err_len)->scan(db, fn, ctx, err, err_len);
}

void nsd_sweep_db_close(nsd_sweep_db *db) {
    if (db) sqlite_module(NULL, 0)->close(db);
}

#ifdef NSDYN_MPI
/* Under mpirun (the launcher sets these); otherwise MPI is neither started
 * nor loaded: a plain `nsdyn sweep` runs its threads. */
static int launched_by_mpi(void) {
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK");
}

int nsd_sweep_mpi_init(int *argc, char ***argv, int *rank, int *size) {
    *rank = 0;
    *size = 1;
    if (!launched_by_mpi()) return 0;
    char err[1024];
    const nsd_mpi_table *t =
        nsd_module_get("mpi", NSD_MODULE_ABI_MPI, "a sweep under mpirun", err, sizeof err);
    if (!t) {
        fprintf(stderr, "error: %s\n", err);
        return -1;
    }
    return t->init(argc, argv, rank, size);
}

void nsd_sweep_mpi_finalize(void) {
    const nsd_mpi_table *t = nsd_module_loaded("mpi");
    if (t) t->finalize();
}

int nsd_sweep_mpi_agree(int ok) {
    const nsd_mpi_table *t = nsd_module_loaded("mpi");
    return t ? t->agree(ok) : ok;
}

int nsd_sweep_exec_mpi(const nsd_sweep_def *def, const nsd_scenario *base, nsd_sweep_db *db,
                       const uint8_t *done, const nsd_sweep_opts *opts, nsd_sweep_tally *tally,
                       int rank, int size) {
    /* size > 1: init loaded the module */
    const nsd_mpi_table *t = nsd_module_loaded("mpi");
    return t ? t->exec(def, base, db, done, opts, tally, rank, size) : -1;
}
#endif

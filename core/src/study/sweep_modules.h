/* The sweep's two modules (module/module.h): the database in SQLite
 * (libnsdyn_sqlite.so: sweep_db.c) and the ranks over MPI
 * (libnsdyn_mpi.so: sweep_mpi.c, -DNSDYN_MPI=ON). libnsdyn forwards
 * sweep.h's database functions and the MPI entry points below to them
 * (sweep_modules.c), so only a study maps SQLite, and only a sweep started
 * by mpirun maps OpenMPI. */
#ifndef NSD_SWEEP_MODULES_H
#define NSD_SWEEP_MODULES_H

#include "module.h"
#include "sweep.h"

#define NSD_MODULE_ABI_SQLITE 1u
#define NSD_MODULE_ABI_MPI 1u

typedef struct {
    nsd_module_head head; /* {"sqlite", NSD_MODULE_ABI_SQLITE} */
    nsd_sweep_db *(*open)(const char *path, const nsd_sweep_def *def, const char *config,
                          uint8_t **done, size_t *n_done, char *err, size_t err_len);
    int (*check_plugins)(nsd_sweep_db *db, const char *fingerprint, int accept, char *err,
                         size_t err_len);
    int (*begin)(nsd_sweep_db *db, char *err, size_t err_len);
    int (*put)(nsd_sweep_db *db, const nsd_sweep_row *row, char *err, size_t err_len);
    int (*commit)(nsd_sweep_db *db, char *err, size_t err_len);
    int (*csv)(nsd_sweep_db *db, const char *path, char *err, size_t err_len);
    int (*scan)(nsd_sweep_db *db, nsd_sweep_row_fn fn, void *ctx, char *err, size_t err_len);
    void (*close)(nsd_sweep_db *db);
} nsd_sqlite_table;

/* MPI (docs/sweep.md): init starts MPI only under mpirun (rank 0, size 1
 * otherwise, and then the module is not even loaded); agree is every
 * rank's ok (1) or not (0), the least of them; exec runs the sweep over the
 * ranks. */
int nsd_sweep_mpi_init(int *argc, char ***argv, int *rank, int *size);
void nsd_sweep_mpi_finalize(void);
int nsd_sweep_mpi_agree(int ok);
int nsd_sweep_exec_mpi(const nsd_sweep_def *def, const nsd_scenario *base, nsd_sweep_db *db,
                       const uint8_t *done, const nsd_sweep_opts *opts, nsd_sweep_tally *tally,
                       int rank, int size);

typedef struct {
    nsd_module_head head; /* {"mpi", NSD_MODULE_ABI_MPI} */
    int (*init)(int *argc, char ***argv, int *rank, int *size);
    void (*finalize)(void);
    int (*agree)(int ok);
    int (*exec)(const nsd_sweep_def *def, const nsd_scenario *base, nsd_sweep_db *db,
                const uint8_t *done, const nsd_sweep_opts *opts, nsd_sweep_tally *tally, int rank,
                int size);
} nsd_mpi_table;

#endif

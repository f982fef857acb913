/* Output writers, one of each used by every command: CSV data with units
 * in the header, and the run record (resolved config plus provenance). */
#ifndef NSD_OUTPUT_H
#define NSD_OUTPUT_H

#include "config.h"
#include "model.h"
#include "run.h"
#include "modes.h"

/* Write to path via path.tmp and rename, so a reader never sees half a
 * file. Return 0, or -1 with a reason in err. */
int nsd_write_csv(const char *path, const nsd_channel *channels, const nsd_series *s, char *err,
                  size_t err_len);
/* The contact event log of an event-driven run (modes.h), one row per
 * event: time, contact, kind, local velocities before and after, impulse,
 * slip direction, limit-direction check. */
int nsd_write_event_log(const char *path, const nsd_model *m, const nsd_event_log *log, char *err,
                        size_t err_len);
/* The run record's text (run.toml) onto f. */
void nsd_print_run_record(FILE *f, const nsd_config *cfg, const nsd_model *m,
                          const nsd_run_result *r, const char *command_line);
int nsd_write_run_record(const char *path, const nsd_config *cfg, const nsd_model *m,
                         const nsd_run_result *r, const char *command_line, char *err,
                         size_t err_len);
/* mkdir -p */
int nsd_make_dirs(const char *path, char *err, size_t err_len);
/* Write a TOML basic string with escapes. */
void nsd_toml_write_string(FILE *out, const char *s);
/* Open path.tmp for writing; nsd_commit_file syncs it and renames it into
 * place. Inside an output folder's temporary folder (staging.h) path itself
 * is written and nsd_commit_file neither syncs nor renames: the folder is
 * synced as a whole before it replaces anything (outdir.c). */
FILE *nsd_open_tmp(const char *path, char *err, size_t err_len);
int nsd_commit_file(FILE *f, const char *path, char *err, size_t err_len);
/* How a run ended, in words: the one source of these texts. RECORD for
 * run.toml and the summary line ("failed (data incomplete)"), TABLE for a
 * column of the comparison tables ("FAILED"), WORD inside a sentence
 * ("failed"). */
typedef enum nsd_outcome_style {
    NSD_OUTCOME_RECORD,
    NSD_OUTCOME_TABLE,
    NSD_OUTCOME_WORD
} nsd_outcome_style;
const char *nsd_outcome_text(nsd_run_outcome o, nsd_outcome_style style);

/* Append a copy of path to the list *paths of *n (the files a command
 * wrote). Returns 0, or -1 with err when out of memory (the list is
 * unchanged). */
int nsd_paths_push(char ***paths, size_t *n, const char *path, char *err, size_t err_len);
/* Free the list and its paths. */
void nsd_paths_free(char **paths, size_t n);

#endif

/* The host API's parameter study (nsdyn/host.h nsdyn_data_sweep): the
 * [sweep] of the data's config parsed and checked as `nsdyn sweep` does
 * (study/sweep.h), its runs made one by one in the calling thread (so the
 * data's stop request and SIGINT reach them), each row put into the
 * command's database, and the database's finished rows read back into
 * memory: the rows in memory are the rows in the file. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host_internal.h"
#include "interrupt.h"
#include "plugin_record.h"
#include "plugin_trust.h"
#include "sweep.h"

static const char *const status_names[] = {"ok", "failed", "refused", "no summary"};

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The table's columns, as the database's runs table has them. */
static int table_columns(struct nsd_host_table *t, const nsd_sweep_def *def) {
    static const char *const tail[] = {"status",      "message",      "wall",
                                       "config_hash", "log_warnings", "log_first"};
    size_t n_tail = sizeof tail / sizeof *tail;
    t->n_columns = 1 + def->n_axes + def->n_sums + n_tail;
    t->columns = calloc(t->n_columns, sizeof *t->columns);
    if (!t->columns) return -1;
    size_t c = 0;
    t->columns[c++] = strdup("run");
    for (size_t a = 0; a < def->n_axes; ++a) t->columns[c++] = strdup(def->axes[a].name);
    for (size_t s = 0; s < def->n_sums; ++s) t->columns[c++] = strdup(def->sums[s].name);
    for (size_t k = 0; k < n_tail; ++k) t->columns[c++] = strdup(tail[k]);
    for (size_t i = 0; i < c; ++i)
        if (!t->columns[i]) return -1;
    return 0;
}

typedef struct reader {
    struct nsd_host_table *t;
    const nsd_sweep_def *def;
    size_t cap, failed;
    int oom;
} reader;

/* Cell c of the row being added: a text or a number, as the database
 * holds it (sweep_db.c: an axis or summary is a text when its text is not
 * empty, a number otherwise; status, message, config_hash, log_first
 * always texts). */
static void cell(reader *rd, size_t c, double num, const char *text, int always_text) {
    struct nsd_host_table *t = rd->t;
    size_t at = t->n_rows * t->n_columns + c;
    int is_text = text && (text[0] || always_text);
    t->num[at] = is_text ? NAN : num;
    t->text[at] = is_text ? strdup(text) : NULL;
    if (is_text && !t->text[at]) rd->oom = 1;
}

/* One finished row of the database (nsd_sweep_db_scan) into the table. */
static void add_row(void *ctx, const nsd_sweep_row *row) {
    reader *rd = ctx;
    struct nsd_host_table *t = rd->t;
    if (rd->oom) return;
    if (t->n_rows == rd->cap) {
        size_t cap = rd->cap ? 2 * rd->cap : 64, n = cap * t->n_columns;
        double *num = realloc(t->num, n * sizeof *num);
        if (num) t->num = num;
        char **text = num ? realloc(t->text, n * sizeof *text) : NULL;
        if (!text) {
            rd->oom = 1;
            return;
        }
        t->text = text;
        rd->cap = cap;
    }
    const nsd_sweep_def *def = rd->def;
    size_t c = 0;
    cell(rd, c++, (double)row->run, NULL, 0);
    for (size_t a = 0; a < def->n_axes; ++a) cell(rd, c++, row->axis_num[a], row->axis_text[a], 0);
    for (size_t s = 0; s < def->n_sums; ++s) cell(rd, c++, row->sum_num[s], row->sum_text[s], 0);
    cell(rd, c++, NAN, status_names[row->status & 3], 1);
    cell(rd, c++, NAN, row->message, 1);
    cell(rd, c++, row->wall, NULL, 0);
    cell(rd, c++, NAN, row->config_hash, 1);
    cell(rd, c++, (double)row->log_warnings, NULL, 0);
    cell(rd, c++, NAN, row->log_first, 1);
    rd->failed += row->status != NSD_SWEEP_OK;
    t->n_rows++;
}

/* The runs not in the database yet, into it: transactions committed
 * every second, as the command's writer does. 0; -1 with err (the
 * database); 1 when a stop request cut the study short. */
static int run_pending(const nsd_sweep_def *def, const nsd_scenario *base, nsd_sweep_db *db,
                       const uint8_t *done, char *err, size_t len) {
    nsd_scenario *shared = nsd_sweep_shared_model(def, base); /* one model when the axes allow */
    nsd_sweep_worker_ctx ctx = {def, base, NULL, NULL, shared};
    nsd_sweep_row *row = nsd_sweep_row_new(def);
    nsd_sweep_slot slot = {0}; /* one scenario on the shared model, run to run */
    int rc = nsd_sweep_db_begin(db, err, len);
    double last_commit = now_s();
    for (uint64_t r = 0; rc == 0 && r < def->n_runs; ++r) {
        if (done && (done[r / 8] >> (r % 8) & 1)) continue;
        nsd_sweep_run_in(&ctx, &slot, r, row);
        if (nsd_interrupt_signal()) { /* cut short: not a finished run */
            rc = 1;
            break;
        }
        rc = nsd_sweep_db_put(db, row, err, len);
        if (rc == 0 && now_s() - last_commit > 1.0) {
            rc = nsd_sweep_db_commit(db, err, len);
            if (rc == 0) rc = nsd_sweep_db_begin(db, err, len);
            last_commit = now_s();
        }
    }
    nsd_sweep_row_free(row);
    nsd_sweep_slot_free(&slot);
    if (shared) nsd_scenario_destroy(shared);
    free(shared);
    if (rc >= 0 && nsd_sweep_db_commit(db, err, len) != 0) rc = -1;
    return rc;
}

/* The study's base: the data's scenario (its config with the data's
 * overrides, created) seen with the model's [sweep] table, which a derived
 * config leaves out (config.h nsd_config_derive). A shallow view: it owns
 * nothing but *items (free it), and lives no longer than d's scenario. */
static int study_view(const nsdyn_data *d, nsd_scenario *view, nsd_toml_node **items) {
    *view = *d->s;
    *items = NULL;
    const nsd_toml_node *root = &d->s->app.cfg.root;
    const nsd_toml_node *sw = nsd_toml_get(&d->model->base.app.cfg.root, "sweep");
    if (!sw) return 0; /* nsd_sweep_parse says what is missing */
    *items = malloc((root->n_items + 1) * sizeof **items);
    if (!*items) return -1;
    memcpy(*items, root->items, root->n_items * sizeof **items);
    (*items)[root->n_items] = *sw;
    view->app.cfg.root.items = *items;
    view->app.cfg.root.n_items = root->n_items + 1;
    return 0;
}

/* Parse and check [sweep] on the study's base; the database opened and
 * its plugins checked. Returns a status (the messages in d->err). */
static nsdyn_host_status open_study(nsdyn_data *d, const nsd_scenario *base, const char *db_path,
                                    nsd_sweep_def *def, nsd_sweep_db **db, uint8_t **done,
                                    size_t *n_done) {
    nsd_diag diag = {0};
    size_t errors = nsd_sweep_parse(def, base, &diag);
    if (!errors) errors = nsd_sweep_check_values(def, base, &diag);
    if (errors) return nsd_host_fail_diag(d, &diag, NSDYN_HOST_ERR_CONFIG);
    nsd_diag_free(&diag);
    const char *path = db_path ? db_path : ":memory:";
    char err[2048] = "";
    *db = nsd_sweep_db_open(path, def, nsdyn_model_path(d->model), done, n_done, err, sizeof err);
    if (!*db) return nsd_host_fail(d, NSDYN_HOST_ERR_IO, "%s", err);
    char *fingerprint = nsd_plugin_fingerprint(&d->s->app.cfg);
    int rc =
        nsd_sweep_db_check_plugins(*db, fingerprint, nsd_plugin_change_accepted(), err, sizeof err);
    free(fingerprint);
    if (rc != 0) return nsd_host_fail(d, NSDYN_HOST_ERR_IO, "database %s: %s", path, err);
    return NSDYN_HOST_OK;
}

nsdyn_host_status nsdyn_data_sweep(nsdyn_data *d, const char *db_path, nsdyn_host_sweep *out) {
    if (!d || !out) return NSDYN_HOST_ERR_ARGUMENT;
    memset(out, 0, sizeof *out);
    nsdyn_host_status st = nsd_host_prepare(d, NULL);
    if (st != NSDYN_HOST_OK) return st;
    nsd_host_end_run(d);
    nsd_host_sweep_free(d);
    nsd_sweep_def def = {0};
    nsd_sweep_db *db = NULL;
    uint8_t *done = NULL;
    size_t n_done = 0;
    nsd_scenario base;
    nsd_toml_node *items;
    if (study_view(d, &base, &items) != 0)
        return nsd_host_fail(d, NSDYN_HOST_ERR_MEMORY, "out of memory");
    st = open_study(d, &base, db_path, &def, &db, &done, &n_done);
    char err[2048] = "";
    if (st == NSDYN_HOST_OK) {
        nsd_host_call c;
        nsd_host_call_begin(d, &c);
        int rc = run_pending(&def, &base, db, done, err, sizeof err);
        nsd_host_call_end(d, &c);
        if (rc < 0)
            st = nsd_host_fail(d, NSDYN_HOST_ERR_IO, "sweep database %s: %s",
                               db_path ? db_path : ":memory:", err);
        else if (rc > 0)
            st = nsd_host_fail(d, NSDYN_HOST_ERR_INTERRUPTED,
                               "sweep interrupted by signal %d: the finished runs are in %s",
                               atomic_load(&d->stop), db_path ? db_path : "the table");
    }
    reader rd = {&d->sweep, &def, 0, 0, 0};
    if (db && (st == NSDYN_HOST_OK || st == NSDYN_HOST_ERR_INTERRUPTED)) {
        if (table_columns(&d->sweep, &def) != 0 ||
            nsd_sweep_db_scan(db, add_row, &rd, err, sizeof err) != 0 || rd.oom) {
            nsd_host_sweep_free(d);
            st = nsd_host_fail(d, rd.oom ? NSDYN_HOST_ERR_MEMORY : NSDYN_HOST_ERR_IO,
                               "reading the sweep's rows back: %s", rd.oom ? "out of memory" : err);
        }
    }
    *out = (nsdyn_host_sweep){
        .n_runs = def.n_runs,
        .n_rows = d->sweep.n_rows,
        .n_done_before = n_done,
        .n_failed = rd.failed,
        .n_columns = d->sweep.n_columns,
        .columns = (const char *const *)d->sweep.columns,
        .num = d->sweep.num,
        .text = (const char *const *)d->sweep.text,
    };
    nsd_sweep_db_close(db);
    free(done);
    nsd_sweep_def_free(&def);
    free(items);
    return st;
}

/* The host API's periodic orbit (nsdyn/host.h nsdyn_data_periodic): the
 * shooting of `nsdyn periodic` (analysis/periodic.h, docs/periodic.md) on
 * the data's config, its [periodic] section, the orbit and multipliers in
 * memory. No continuation, no repeat check, no files. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "host_internal.h"
#include "interrupt.h"
#include "periodic_arc.h"
#include "periodic_branch.h"
#include "periodic_config.h"

/* Solve from the model's initial state, as nsdyn periodic does: the
 * shooting runs sample only their ends. s's settings and y0 are put back. */
static int solve(nsdyn_data *d, const nsd_periodic_config *pc, nsd_diag *diag) {
    nsd_scenario *s = d->s;
    size_t n = s->model.n;
    nsd_run_settings saved = s->app.cfg.settings;
    s->app.cfg.settings.output_dt = saved.t_end - saved.t_start;
    double *y0 = malloc(n * sizeof *y0), *y1 = malloc(n * sizeof *y1), T;
    int rc = -1;
    char why[1536] = "out of memory";
    if (y0 && y1) {
        memcpy(y0, s->data->y0, n * sizeof *y0);
        nsd_host_call c;
        nsd_host_call_begin(d, &c);
        /* the guess must reach the section (the CLI's check) */
        rc = nsd_periodic_map(s, &pc->spec, y0, y1, &T, why, sizeof why);
        if (rc != 0) {
            nsd_diag_at(diag, pc->section_node,
                        "[periodic] key 'section': from the initial state (the guess), %s", why);
            rc = -2;
        } else {
            rc = nsd_periodic_solve(s, &pc->spec, y0, &d->periodic, NULL);
        }
        nsd_host_call_end(d, &c);
        memcpy(s->data->y0, y0, n * sizeof *y0);
    }
    free(y0);
    free(y1);
    s->app.cfg.settings = saved;
    return rc;
}

/* [periodic] of the data's config into pc (free it in any case), the
 * run in progress and the last orbit gone. */
static nsdyn_host_status read_periodic(nsdyn_data *d, nsd_periodic_config *pc) {
    memset(pc, 0, sizeof *pc);
    nsdyn_host_status st = nsd_host_prepare(d, NULL);
    if (st != NSDYN_HOST_OK) return st;
    nsd_host_end_run(d); /* the shooting runs replace a run in progress */
    nsd_host_periodic_free(d);
    nsd_diag diag = {0};
    if (nsd_periodic_read(&d->s->app.cfg, &d->s->model, pc, &diag) != 0)
        return nsd_host_fail_diag(d, &diag, NSDYN_HOST_ERR_CONFIG);
    nsd_diag_free(&diag);
    return NSDYN_HOST_OK;
}

/* The orbit from the initial state (nsdyn_data_periodic) into d->periodic
 * and *out. */
static nsdyn_host_status shoot(nsdyn_data *d, const nsd_periodic_config *pc,
                               nsdyn_host_periodic *out) {
    const nsd_periodic_spec *sp = &pc->spec;
    d->periodic_free = malloc((sp->n_free + 1) * sizeof *d->periodic_free);
    if (!d->periodic_free || nsd_periodic_result_init(&d->periodic, d->s->model.n, sp->n_free))
        return nsd_host_fail(d, NSDYN_HOST_ERR_MEMORY, "out of memory");
    d->have_periodic = 1;
    for (size_t i = 0; i < sp->n_free; ++i) d->periodic_free[i] = sp->free[i];
    nsd_diag diag = {0};
    int rc = solve(d, pc, &diag);
    d->ran = 0; /* the shooting runs replaced the last run's results */
    const nsd_periodic_result *r = &d->periodic;
    *out = (nsdyn_host_periodic){
        .converged = rc == 0,
        .stable = rc == 0 && r->stable,
        .iterations = r->iterations,
        .residual = r->residual,
        .period = r->period,
        .n_state = d->s->model.n,
        .state = r->y,
        .n_free = sp->n_free,
        .free = d->periodic_free,
        .mult_re = r->mult_re,
        .mult_im = r->mult_im,
        .jacobian = r->J,
        .mult_error = r->mult_error,
        .map_evals = r->map_evals,
        .message = r->message,
    };
    if (rc == -2) return nsd_host_fail_diag(d, &diag, NSDYN_HOST_ERR_CONFIG);
    nsd_diag_free(&diag);
    if (rc == 0) return NSDYN_HOST_OK;
    snprintf(d->err, sizeof d->err, "%s", r->message);
    return atomic_load(&d->stop) ? NSDYN_HOST_ERR_INTERRUPTED : NSDYN_HOST_ERR_RUN_FAILED;
}

nsdyn_host_status nsdyn_data_periodic(nsdyn_data *d, nsdyn_host_periodic *out) {
    if (!d || !out) return NSDYN_HOST_ERR_ARGUMENT;
    memset(out, 0, sizeof *out);
    nsd_periodic_config pc;
    nsdyn_host_status st = read_periodic(d, &pc);
    if (st == NSDYN_HOST_OK) st = shoot(d, &pc, out);
    nsd_periodic_config_free(&pc);
    return st;
}

/* The branch from the converged orbit, with the shooting settings `nsdyn
 * periodic` gives it, into the data's table. */
static nsdyn_host_status branch(nsdyn_data *d, const nsd_periodic_config *pc) {
    nsd_scenario *s = d->s;
    nsd_run_settings saved = s->app.cfg.settings;
    s->app.cfg.settings.output_dt = saved.t_end - saved.t_start;
    nsd_branch_summary sum;
    memset(&sum, 0, sizeof sum);
    char err[1024] = "";
    nsd_host_call c;
    nsd_host_call_begin(d, &c);
    int converged = nsd_periodic_branch(s, pc, &d->periodic, NULL, NULL, &sum, err, sizeof err);
    nsd_host_call_end(d, &c);
    s->app.cfg.settings = saved;
    nsdyn_host_status st = converged < 0 ? nsd_host_fail(d, NSDYN_HOST_ERR_MEMORY, "%s", err)
                                         : nsd_host_branch_table(d, pc, &sum);
    nsd_branch_summary_free(&sum);
    if (st == NSDYN_HOST_OK && atomic_load(&d->stop))
        st = nsd_host_fail(d, NSDYN_HOST_ERR_INTERRUPTED,
                           "the continuation was interrupted by signal %d: the points so far are "
                           "kept",
                           atomic_load(&d->stop));
    return st;
}

nsdyn_host_status nsdyn_data_continuation(nsdyn_data *d, nsdyn_host_periodic *orbit,
                                          nsdyn_host_branch *out) {
    if (!d || !orbit || !out) return NSDYN_HOST_ERR_ARGUMENT;
    memset(orbit, 0, sizeof *orbit);
    memset(out, 0, sizeof *out);
    nsd_host_branch_free(d);
    nsd_periodic_config pc;
    nsdyn_host_status st = read_periodic(d, &pc);
    nsd_diag diag = {0};
    if (st == NSDYN_HOST_OK && !pc.cont) {
        nsd_diag_at(&diag, pc.section_node,
                    "[periodic] has no [periodic.continuation] table: nothing to continue along");
        st = nsd_host_fail_diag(d, &diag, NSDYN_HOST_ERR_CONFIG);
    } else if (st == NSDYN_HOST_OK && nsd_arc_wanted(&pc)) {
        nsd_diag_at(&diag, pc.cont,
                    "[periodic.continuation] method = \"arclength\": the host API continues "
                    "natural branches only (nsdyn periodic follows arclength branches)");
        st = nsd_host_fail_diag(d, &diag, NSDYN_HOST_ERR_CONFIG);
    }
    if (st == NSDYN_HOST_OK) st = shoot(d, &pc, orbit);
    if (st == NSDYN_HOST_OK) st = branch(d, &pc);
    nsd_periodic_config_free(&pc);
    const struct nsd_host_branch *b = &d->branch;
    *out = (nsdyn_host_branch){
        .n_rows = b->n_rows,
        .n_columns = b->n_columns,
        .columns = (const char *const *)b->columns,
        .values = b->values,
        .event = (const char *const *)b->event,
        .n_converged = b->n_converged,
    };
    return st;
}

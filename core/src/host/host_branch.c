/* The host API's branch in memory (nsdyn/host.h nsdyn_data_continuation):
 * a continuation's points (analysis/periodic_branch.h) as the table
 * continuation.csv prints, the same columns and rows, at full precision. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_internal.h"

/* continuation.csv's header, without its last column (event). */
static int branch_columns(struct nsd_host_branch *b, const nsd_model *m,
                          const nsd_periodic_config *pc) {
    static const char *const fixed[] = {"converged", "stable",          "period [s]",
                                        "residual",  "mu error (h/2h)", "max |mu|"};
    size_t k = pc->spec.n_free, c = 0;
    b->n_columns = pc->n_par + 6 + pc->n_report + 3 * k;
    b->columns = calloc(b->n_columns, sizeof *b->columns);
    if (!b->columns) return -1;
    int bad = 0;
    for (size_t j = 0; j < pc->n_par; ++j)
        bad |= asprintf(&b->columns[c++], "%s.%s", pc->cont_section[j], pc->cont_key[j]) < 0;
    for (size_t j = 0; j < 6; ++j) bad |= !(b->columns[c++] = strdup(fixed[j]));
    for (size_t j = 0; j < pc->n_report; ++j)
        bad |= asprintf(&b->columns[c++], "%s [%s]", m->channels[pc->report[j]].name,
                        m->channels[pc->report[j]].unit) < 0;
    for (size_t j = 0; j < k; ++j)
        bad |= asprintf(&b->columns[c++], "%s [%s]", m->channels[1 + pc->spec.free[j]].name,
                        m->channels[1 + pc->spec.free[j]].unit) < 0;
    for (size_t j = 0; j < k; ++j) {
        bad |= asprintf(&b->columns[c++], "mu%zu re", j + 1) < 0;
        bad |= asprintf(&b->columns[c++], "mu%zu im", j + 1) < 0;
    }
    return bad ? -1 : 0;
}

/* Point i of sum as row r: the values continuation.csv prints. */
static void branch_row(struct nsd_host_branch *b, size_t r, const nsd_periodic_config *pc,
                       const nsd_branch_summary *sum, size_t i) {
    double *v = b->values + r * b->n_columns;
    size_t k = sum->k, nr = sum->nr;
    int conv = sum->converged[i];
    for (size_t j = 0; j < pc->n_par; ++j) *v++ = sum->par[i * pc->n_par + j];
    *v++ = conv;
    *v++ = sum->stable_raw[i];
    *v++ = sum->period_raw[i];
    *v++ = sum->residual[i];
    *v++ = sum->mu_error[i];
    *v++ = conv ? hypot(sum->mu_re[i * k], sum->mu_im[i * k]) : NAN;
    for (size_t j = 0; j < nr; ++j) *v++ = conv ? sum->rep[i * nr + j] : NAN;
    for (size_t j = 0; j < k; ++j) *v++ = sum->x[i * k + j];
    for (size_t j = 0; j < k; ++j) {
        *v++ = sum->mu_re[i * k + j];
        *v++ = sum->mu_im[i * k + j];
    }
    b->n_converged += conv != 0;
}

nsdyn_host_status nsd_host_branch_table(nsdyn_data *d, const nsd_periodic_config *pc,
                                        const nsd_branch_summary *sum) {
    struct nsd_host_branch *b = &d->branch;
    size_t rows = 0;
    for (size_t i = 0; i < sum->np; ++i) rows += sum->solved[i] != 0;
    if (branch_columns(b, &d->s->model, pc) != 0) goto oom;
    b->values = calloc(rows * b->n_columns + 1, sizeof *b->values);
    b->event = calloc(rows + 1, sizeof *b->event);
    if (!b->values || !b->event) goto oom;
    for (size_t i = 0; i < sum->np; ++i) {
        if (!sum->solved[i]) continue;
        branch_row(b, b->n_rows, pc, sum, i);
        if (!(b->event[b->n_rows++] = strdup(sum->mark[i]))) goto oom;
    }
    return NSDYN_HOST_OK;
oom:
    nsd_host_branch_free(d);
    return nsd_host_fail(d, NSDYN_HOST_ERR_MEMORY, "out of memory for the branch");
}

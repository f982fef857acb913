#include "affine.h"

static double dot(const double *a, const double *b, size_t n) {
    double s = 0.0;
    for (size_t i = 0; i < n; ++i) s += a[i] * b[i];
    return s;
}

nsdyn_status nsd_affine_base(const nsd_model *m, nsd_data *data, double t, const double *q,
                             const double *v) {
    nsdyn_status st = m->sys->derivatives(data->sys_inst, t, q, v, data->lambda, NULL, data->a0);
    return st > NSDYN_WARNING ? nsd_model_fail(m, data, st, t, "system derivatives()") : NSDYN_OK;
}

nsdyn_status nsd_affine_columns(const nsd_model *m, nsd_data *data, double t, const double *q,
                                const double *v, size_t n, const size_t *comp,
                                nsd_affine_probe probe, double *cols) {
    size_t nv = m->nv;
    for (size_t j = 0; j < n; ++j) {
        double *slot = probe ? NULL : &data->lambda[comp ? comp[j] : j];
        double saved = slot ? *slot : 0.0;
        if (probe)
            probe(m, data, j, 1.0);
        else
            *slot = saved + 1.0;
        nsdyn_status st =
            m->sys->derivatives(data->sys_inst, t, q, v, data->lambda, NULL, data->vdot_unit);
        if (probe)
            probe(m, data, j, -1.0);
        else
            *slot = saved;
        if (st > NSDYN_WARNING) return nsd_model_fail(m, data, st, t, "system derivatives()");
        for (size_t i = 0; i < nv; ++i) cols[j * nv + i] = data->vdot_unit[i] - data->a0[i];
    }
    return NSDYN_OK;
}

double nsd_affine_entry(const nsd_model *m, nsd_data *data, size_t comp, const double *col) {
    return dot(nsd_affine_row(m, data, comp), col, m->nv);
}

double nsd_affine_local_acc(const nsd_model *m, nsd_data *data, size_t comp, const double *vdot) {
    return dot(nsd_affine_row(m, data, comp), vdot, m->nv) + data->ce[comp / 3].drift[comp % 3];
}

void nsd_affine_block(const nsd_model *m, nsd_data *data, const size_t *rows, size_t nr,
                      const double *cols, size_t nk, double *A) {
    for (size_t r = 0; r < nr; ++r)
        for (size_t k = 0; k < nk; ++k)
            A[r * nk + k] = nsd_affine_entry(m, data, rows[r], cols + k * m->nv);
}

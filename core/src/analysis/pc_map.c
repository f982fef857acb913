/* The Percussion-Centre half-plane from geometry and the affine response
 * (pc_map.h). */
#include "pc_map.h"

#include <math.h>
#include <string.h>

#include "affine.h"

/* The rigid planar motion of the four local velocity changes du (rows
 * n_f, t_f, n_b, t_b) in the map frame: its PC, 0; or -1 if it does not
 * rotate. */
static int pc_of_du(const nsd_pc_analysis *a, const double du[4], nsd_pc_point *J) {
    /* map frame: t forward = x, n = y at both contacts (same ground line) */
    const double vf[2] = {du[1], du[0]}, vb[2] = {du[3], du[2]};
    const double d[2] = {a->Qb.x - a->Qf.x, a->Qb.y - a->Qf.y}, dd = d[0] * d[0] + d[1] * d[1];
    const double zd[2] = {-d[1], d[0]}; /* z x d */
    double dw = ((vb[0] - vf[0]) * zd[0] + (vb[1] - vf[1]) * zd[1]) / dd;
    double scale = fabs(vf[0]) + fabs(vf[1]) + fabs(vb[0]) + fabs(vb[1]);
    if (!(fabs(dw) * a->scale > 1e-12 * scale)) return -1;
    J->x = a->Qf.x - vf[1] / dw; /* J = Q_f + z x v_f / dw, z x v = (-v_y, v_x) */
    J->y = a->Qf.y + vf[0] / dw;
    return 0;
}

int nsd_pc_of_impulse(const nsd_pc_analysis *a, double kappa, nsd_pc_point *J) {
    double du[4];
    for (int i = 0; i < 4; ++i) du[i] = a->D[4 * i] + kappa * a->D[4 * i + 1];
    return pc_of_du(a, du, J);
}

/* Intersection of the line P + s u with the lambda-line at distance d
 * ((J - G).e_f = -d); -1 if parallel. */
static int on_lambda_line(const nsd_pc_analysis *a, double d, nsd_pc_point P, const double u[2],
                          nsd_pc_point *J) {
    double den = u[0] * a->ef[0] + u[1] * a->ef[1];
    if (fabs(den) < 1e-14) return -1;
    double s = (-d - (P.x * a->ef[0] + P.y * a->ef[1])) / den;
    J->x = P.x + s * u[0];
    J->y = P.y + s * u[1];
    return 0;
}

int nsd_pc_conjugate(const nsd_pc_analysis *a, double d, nsd_pc_point *J) {
    const nsd_pc_point O = {0, 0};
    nsd_pc_point C;
    const double along[2] = {1, 0};
    if (on_lambda_line(a, d, (nsd_pc_point){0, a->ground_y}, along, &C) != 0) return -1;
    /* forward mu-line through G and C: J - G parallel to (-1, -mu) */
    if (!(C.x < 0)) return -1;
    double mu = C.y / C.x;
    const double back[2] = {-1, mu}; /* backward sliding: P = (mu, 1) */
    return on_lambda_line(a, d, O, back, J);
}

void nsd_pc_critical_at(const nsd_pc_analysis *a, double d, double *mu_c, double *mu_dp,
                        double *mu_i) {
    const double vert[2] = {0, 1}, horiz[2] = {1, 0};
    nsd_pc_point C, B, E;
    *mu_c = *mu_dp = *mu_i = NAN;
    /* forward mu-line: J - G parallel to (-1, -mu), so mu = y / x */
    if (on_lambda_line(a, d, (nsd_pc_point){0, a->ground_y}, horiz, &C) == 0 && C.x < 0)
        *mu_c = C.y / C.x;
    if (on_lambda_line(a, d, a->Qb, vert, &B) == 0 && B.y < 0) *mu_dp = B.y / B.x;
    if (on_lambda_line(a, d, a->Qf, vert, &E) == 0 && E.y > 0) *mu_i = E.y / E.x;
    if (!(*mu_c >= 0)) *mu_c = NAN;
    if (!(*mu_dp >= 0)) *mu_dp = NAN;
    if (!(*mu_i >= 0)) *mu_i = NAN;
}

static double ratio(double num, double den) { return den != 0.0 ? num / den : NAN; }

/* Pick the two planar unilateral candidates with the smallest gaps. */
static int pick_pair(const nsd_model *m, const nsd_data *data, size_t *f, size_t *b, char *err,
                     size_t len) {
    size_t i1 = m->nc, i2 = m->nc;
    for (size_t c = 0; c < m->nc; ++c) {
        const nsdyn_contact_decl *d = &m->layout.contacts[c];
        if (d->type != NSDYN_CONTACT_UNILATERAL || d->tangent_dim != 1) continue;
        if (i1 == m->nc || data->ce[c].gap < data->ce[i1].gap) {
            i2 = i1;
            i1 = c;
        } else if (i2 == m->nc || data->ce[c].gap < data->ce[i2].gap)
            i2 = c;
    }
    if (i2 == m->nc) {
        snprintf(err, len,
                 "system '%s' has %s planar unilateral contact candidate%s: the PC map needs two "
                 "(Q_f and Q_b)",
                 m->sys->info.id, i1 == m->nc ? "no" : "one", i1 == m->nc ? "s" : "");
        return -1;
    }
    *f = i1;
    *b = i2;
    return 0;
}

/* Delassus of the rows (n_f, t_f, n_b, t_b) by the affine response. */
static int delassus4(const nsd_model *m, nsd_data *data, double t, const double *y, size_t f,
                     size_t b, double *D, char *err, size_t len) {
    memset(data->lambda, 0, 3 * m->nc * sizeof *data->lambda);
    const size_t comp[4] = {3 * f, 3 * f + 1, 3 * b, 3 * b + 1};
    double cols[4 * 64];
    if (m->nv > 64) {
        snprintf(err, len, "the PC map handles systems with at most 64 velocities");
        return -1;
    }
    if (nsd_affine_base(m, data, t, y, y + m->nq) > NSDYN_WARNING ||
        nsd_affine_columns(m, data, t, y, y + m->nq, 4, comp, NULL, cols) > NSDYN_WARNING) {
        snprintf(err, len, "%s", data->failure);
        return -1;
    }
    nsd_affine_block(m, data, comp, 4, cols, 4, D);
    return 0;
}

int nsd_pc_analyse(const nsd_model *m, nsd_data *data, double t, const double *y,
                   nsd_pc_analysis *out, char *err, size_t err_len) {
    memset(out, 0, sizeof *out);
    nsd_model_ask_contacts(m, data, NSD_ROWS_ALL);
    if (nsd_contacts_evaluate(m->sys, data->sys_inst, t, y, y + m->nq, m->nc, 1, data->jac,
                              data->ce) > NSDYN_WARNING) {
        snprintf(err, err_len, "the system's contacts() failed at the initial state");
        return -1;
    }
    size_t f, b;
    if (pick_pair(m, data, &f, &b, err, err_len) != 0) return -1;
    const nsdyn_contact_eval *ef = &data->ce[f], *eb = &data->ce[b];
    /* Q_f approaches faster; at a tie, the one ahead along f's tangent. */
    double tf[2] = {ef->normal[1], -ef->normal[0]}; /* t = n rotated by -90 deg (curb_wheel, ...) */
    double ahead = (ef->point[0] - eb->point[0]) * tf[0] + (ef->point[1] - eb->point[1]) * tf[1];
    if (eb->u[0] < ef->u[0] || (eb->u[0] == ef->u[0] && ahead < 0)) {
        size_t k = f;
        f = b;
        b = k;
    }
    out->f = f;
    out->b = b;
    double D[16];
    if (delassus4(m, data, t, y, f, b, D, err, err_len) != 0) return -1;
    /* Map frame: x along the forward ground direction, y along n_f. */
    const double *n = data->ce[f].normal, *pf = data->ce[f].point, *pb = data->ce[b].point;
    double ex[2] = {n[1], -n[0]};
    double sgn = ((pf[0] - pb[0]) * ex[0] + (pf[1] - pb[1]) * ex[1]) >= 0 ? 1.0 : -1.0;
    /* the local tangent is +-ex; flip its rows/cols so that t is forward.
     * Which sign the system uses is found from rigidity below. */
    for (int pass = 0; pass < 2; ++pass) {
        double s = pass == 0 ? sgn : -sgn, fl[4] = {1, s, 1, s};
        for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 4; ++j) out->D[4 * i + j] = fl[i] * fl[j] * D[4 * i + j];
        double fx[2] = {sgn * ex[0], sgn * ex[1]};
        out->Qf = (nsd_pc_point){pf[0] * fx[0] + pf[1] * fx[1], pf[0] * n[0] + pf[1] * n[1]};
        out->Qb = (nsd_pc_point){pb[0] * fx[0] + pb[1] * fx[1], pb[0] * n[0] + pb[1] * n[1]};
        out->scale = hypot(out->Qf.x - out->Qb.x, out->Qf.y - out->Qb.y);
        /* G: the PC of a couple, +n at Q_f and -n at Q_b (parallel normals
         * assumed: one ground line) */
        double du[4];
        for (int i = 0; i < 4; ++i) du[i] = out->D[4 * i] - out->D[4 * i + 2];
        nsd_pc_point G;
        if (pc_of_du(out, du, &G) != 0) continue;
        /* rigidity: the relative velocity of the two points of a rigid
         * body is normal to the segment joining them; and G lies on the
         * body's side of the ground (which fixes the tangent's sign: with
         * the wrong one G comes out mirrored below the ground line) */
        double dvx = (out->D[4 * 3] - out->D[4 * 1]), dvy = (out->D[4 * 2] - out->D[0]);
        double dx = out->Qb.x - out->Qf.x, dy = out->Qb.y - out->Qf.y;
        if (fabs(dvx * dx + dvy * dy) > 1e-9 * (fabs(dvx) + fabs(dvy)) * out->scale) continue;
        if (!(G.y > out->Qf.y)) continue;
        out->Qf.x -= G.x, out->Qf.y -= G.y, out->Qb.x -= G.x, out->Qb.y -= G.y;
        out->G = (nsd_pc_point){0, 0};
        out->scale = hypot(out->Qf.x, out->Qf.y);
        out->ef[0] = out->Qf.x / out->scale;
        out->ef[1] = out->Qf.y / out->scale;
        out->ground_y = out->Qf.y;
        const double *Dd = out->D;
        out->mu_c = ratio(Dd[4 * 1 + 0], Dd[4 * 1 + 1]);
        out->mu_i = ratio(Dd[0], Dd[1]);
        out->mu_dp = ratio(Dd[4 * 2 + 0], Dd[4 * 2 + 1]);
        out->mu_dpb = -out->mu_dp;
        if (!(out->mu_c >= 0)) out->mu_c = NAN;
        if (!(out->mu_i >= 0)) out->mu_i = NAN;
        if (!(out->mu_dp >= 0)) out->mu_dp = NAN;
        if (out->mu_dpb < 0) out->mu_dpb = 0.0; /* DP for every mu */
        nsd_pc_point A;
        if (nsd_pc_of_impulse(out, 0.0, &A) != 0) {
            snprintf(err, err_len, "an impulse at Q_f does not rotate the body");
            return -1;
        }
        out->A = A;
        out->lambda_eff = -(A.x * out->ef[0] + A.y * out->ef[1]) / out->scale;
        const double d = out->lambda_eff * out->scale, vert[2] = {0, 1}, horiz[2] = {1, 0};
        if (on_lambda_line(out, d, out->Qb, vert, &out->B) != 0) out->B.x = out->B.y = NAN;
        on_lambda_line(out, d, (nsd_pc_point){0, out->ground_y}, horiz, &out->pc_c);
        if (nsd_pc_conjugate(out, d, &out->pc_c_conj) != 0) out->pc_c_conj.x = NAN;
        /* mu at which the forward impulse (1, -mu) passes through G */
        double w0 = Dd[4 * 2] - Dd[0], w1 = (Dd[4 * 2] - Dd[4 * 2 + 1]) - (Dd[0] - Dd[1]);
        out->mu_inf = w1 != w0 ? w0 / (w0 - w1) : NAN;
        if (!(out->mu_inf > 0)) out->mu_inf = NAN;
        nsd_pc_point far;
        out->asymptote_y = nsd_pc_conjugate(out, 1e7 * out->scale, &far) == 0 ? far.y : NAN;
        return 0;
    }
    snprintf(err, err_len,
             "contacts '%s' and '%s': their local frames do not describe one planar rigid body "
             "with the tangent along the ground (n rotated by -90 deg or +90 deg) on one ground "
             "line",
             m->layout.contacts[f].name, m->layout.contacts[b].name);
    return -1;
}

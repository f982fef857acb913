/* Event-driven rigid contact: the resolution at events (impacts, the
 * accumulation rule, the choice of modes, the velocity projection) and
 * the drift correction of sustained contacts (modes.h; the method is in
 * docs/event-driven.md, the notation in modes.c). */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "affine.h"
#include "modes_phase.h"
#include "nsdyn_numeric.h"
#include "slip_flow.h"

/* ---- resolution at events ------------------------------------------- */

/* M^-1 W^T rows of every component of every contact at (t, y), into w->B
 * (exact: v' is affine in the contact forces). Needs all Jacobian rows. */
static nsdyn_status contact_response(const nsd_model *m, nsd_data *data, double t,
                                     const double *y) {
    nsd_modes_work *w = data->ed.work;
    const double *q = y, *v = y + m->nq;
    memset(data->lambda, 0, 3 * m->nc * sizeof *data->lambda);
    nsdyn_status st = nsd_affine_base(m, data, t, q, v);
    if (st > NSDYN_WARNING) return st;
    st = nsd_affine_columns(m, data, t, q, v, 3 * m->nc, NULL, NULL, w->B);
    if (st > NSDYN_WARNING) return st;
    for (size_t c = 0; c < m->nc; ++c) w->an[c] = nsd_affine_local_acc(m, data, 3 * c, data->a0);
    return NSDYN_OK;
}

/* Delassus entry between component a of contact c and component b of d. */
static double delassus(const nsd_model *m, nsd_data *data, size_t c, size_t a, size_t d, size_t b) {
    return nsd_affine_entry(m, data, 3 * c + a, data->ed.work->B + (3 * d + b) * m->nv);
}

/* v += M^-1 W^T P for impulse P (3 per contact of the set). */
static void apply_impulse(const nsd_model *m, nsd_data *data, double *v, const size_t *set,
                          size_t k, const double *P) {
    for (size_t j = 0; j < k; ++j)
        for (size_t b = 0; b < 3; ++b) {
            double p = P[3 * j + b];
            if (p == 0.0) continue;
            const double *col = data->ed.work->B + (3 * set[j] + b) * m->nv;
            for (size_t i = 0; i < m->nv; ++i) v[i] += col[i] * p;
        }
}

static int touching(const nsd_model *m, nsd_data *data, size_t c) {
    return is_unilateral(m, c) && !is_compliant(m, c) && data->ce[c].active &&
           (data->ed.mode[c].closed || data->ce[c].gap <= m->ed.contact_tolerance);
}

/* The impact of the touching contacts when one approaches faster than
 * rest_velocity: one multi-contact problem on the coupled Delassus
 * operator (contact.h). Returns 1 if an impact was applied. */
static int impact(const nsd_model *m, nsd_data *data, double t, double *y, nsd_event_log *log,
                  nsdyn_status *st) {
    nsd_modes_work *w = data->ed.work;
    size_t k = 0;
    int approaching = 0;
    for (size_t c = 0; c < m->nc; ++c) {
        if (!touching(m, data, c)) continue;
        w->set[k++] = c;
        if (data->ce[c].u[0] < -rest_speed(m, data, c, t)) approaching = 1;
    }
    *st = NSDYN_OK;
    if (!approaching || !m->contact || !m->contact->impact) return 0;
    uint32_t tdim = 1;
    for (size_t j = 0; j < k; ++j)
        if (m->layout.contacts[w->set[j]].tangent_dim == 2) tdim = 2;
    size_t n3 = 3 * k;
    for (size_t i = 0; i < k; ++i)
        for (size_t a = 0; a < 3; ++a) {
            w->u_minus[3 * i + a] = data->ce[w->set[i]].u[a];
            for (size_t j = 0; j < k; ++j)
                for (size_t b = 0; b < 3; ++b)
                    w->D[(3 * i + a) * n3 + 3 * j + b] =
                        delassus(m, data, w->set[i], a, w->set[j], b);
        }
    for (size_t i = 0; i < k; ++i) {
        w->mu_s[i] = m->mu_static;
        w->mu_k[i] = m->mu_kinetic;
        w->gaps[i] = data->ce[w->set[i]].gap;
    }
    w->law_log[0] = '\0';
    nsdyn_impact_problem p = {
        .struct_size = sizeof p,
        .n_contacts = k,
        .tangent_dim = tdim,
        .delassus = w->D,
        .u_minus = w->u_minus,
        .mu_static = w->mu_s,
        .mu_kinetic = w->mu_k,
        .gaps = w->gaps,
        .phase_log = w->law_log,
        .phase_log_len = sizeof w->law_log,
    };
    memset(w->impulse, 0, n3 * sizeof *w->impulse);
    nsdyn_status ls = m->contact->impact(m->contact_inst, &p, w->impulse, w->u_plus);
    if (ls > NSDYN_WARNING) {
        char which[160] = "";
        for (size_t j = 0; j < k; ++j) {
            size_t used = strlen(which);
            snprintf(which + used, sizeof which - used, "%s%s (u = %.6g, %.6g m/s)", j ? ", " : "",
                     m->layout.contacts[w->set[j]].name, w->u_minus[3 * j], w->u_minus[3 * j + 1]);
        }
        snprintf(data->failure, sizeof data->failure,
                 "impact law '%s' failed at t = %.9g s on contact(s) %s%s%s", m->contact->info.id,
                 t, which, w->law_log[0] ? ": " : "", w->law_log);
        *st = NSDYN_ERROR;
        return 0;
    }
    apply_impulse(m, data, y + m->nq, w->set, k, w->impulse);
    for (size_t j = 0; j < k; ++j) {
        nsd_contact_mode *md = &data->ed.mode[w->set[j]];
        md->v_scale = fmax(md->v_scale, -w->u_minus[3 * j]);
        const double *P = w->impulse + 3 * j;
        if (P[0] == 0.0 && P[1] == 0.0 && P[2] == 0.0) continue;
        nsd_event_record *r = nsd_modes_log_add(log, t, w->set[j], NSD_EVENT_IMPACT);
        if (!r) continue;
        for (size_t a = 0; a < 3; ++a) {
            r->u_before[a] = w->u_minus[3 * j + a];
            r->u_after[a] = w->u_plus[3 * j + a];
            r->impulse[a] = P[a];
        }
        size_t nl = strnlen(w->law_log, sizeof r->law_log - 1); /* truncated, NUL-ended */
        memcpy(r->law_log, w->law_log, nl);
        r->law_log[nl] = '\0';
    }
    return 1;
}

/* Tangential 2x2 (or 1x1) Delassus block of contact c into G[4]. */
static void tangent_block(const nsd_model *m, nsd_data *data, size_t c, double *G) {
    G[0] = delassus(m, data, c, 1, c, 1);
    G[1] = delassus(m, data, c, 1, c, 2);
    G[2] = delassus(m, data, c, 2, c, 1);
    G[3] = delassus(m, data, c, 2, c, 2);
}

/* The 2-D slip start's root search (nsn_angle_roots): V(phi) of the
 * contact's slip flow; among its roots with R > 0, the one nearest phi0. */
typedef struct slip_start {
    const double *a, *G;
    double F, phi0, best;
    double *d;
} slip_start;

static double slip_V(void *ctx, double phi) {
    const slip_start *s = ctx;
    return nsd_slip_flow_V(s->a, s->G, s->F, phi);
}

static int slip_root(void *ctx, double root) {
    slip_start *s = ctx;
    double closeness = cos(root - s->phi0);
    if (nsd_slip_flow_R(s->a, s->G, s->F, root) > 0 && closeness > s->best) {
        s->best = closeness;
        s->d[0] = cos(root);
        s->d[1] = sin(root);
    }
    return 0;
}

/* Direction a sticking contact starts to slip in when its stick force F
 * leaves the cone. 1-D: against F. 2-D: a root of V of the limit-direction
 * functions (slip_flow.h) with R > 0 (the slip grows), built from
 * the contact's own tangential Delassus block G with the other forces held
 * (so the free tangential acceleration is -G F); the root nearest -F/|F|,
 * which is exact for an isotropic block. */
static void start_direction(const nsd_model *m, nsd_data *data, size_t c, const double *F,
                            double F_kinetic, double *d) {
    double mag = hypot(F[0], F[1]);
    d[0] = mag > 0 ? -F[0] / mag : 1.0;
    d[1] = mag > 0 ? -F[1] / mag : 0.0;
    if (m->layout.contacts[c].tangent_dim == 1) {
        d[0] = F[0] > 0 ? -1.0 : 1.0;
        d[1] = 0.0;
        return;
    }
    double G[4], a[2];
    tangent_block(m, data, c, G);
    a[0] = -(G[0] * F[0] + G[1] * F[1]);
    a[1] = -(G[2] * F[0] + G[3] * F[1]);
    slip_start sc = {.a = a, .G = G, .F = F_kinetic, .phi0 = atan2(d[1], d[0]), .best = -2.0,
                     .d = d};
    nsn_angle_roots(slip_V, &sc, 0.0, 2.0 * NSDYN_PI, 720, 1, 60, 0.0, slip_root, &sc);
}

/* A compliant contact whose slip has just stopped cannot always stick: a
 * rigid body on two contacts whose tangent rows coincide (the rimless
 * wheel's two tips at the same height, theta = 0) has the difference of
 * their tangential accelerations fixed by the motion (the drift), which
 * no force changes; with the other contact sticking, the stick rows are
 * inconsistent. Then its slip goes on, in the direction its tangential
 * acceleration takes it (1-D: reversed, the slip velocity crossed zero).
 * Returns 1 with that contact released to slip (and w->acc solved), 0 if
 * there is none or the modes stay singular. Rigid and persistent
 * contacts keep their own rule (the trial fails, another closed set is
 * tried). */
static int release_stick(const nsd_model *m, nsd_data *data, double t, const double *y) {
    nsd_modes_work *w = data->ed.work;
    size_t c = 0;
    while (c < m->nc &&
           !(is_compliant(m, c) && tangent_held(m, data, c) && data->ed.mode[c].stick == 1 &&
             w->prev[c].closed && w->prev[c].stick == 0))
        ++c;
    if (c == m->nc) return 0;
    nsd_contact_mode *md = &data->ed.mode[c];
    md->stick = 0;
    md->dir[0] = w->prev[c].dir[0];
    md->dir[1] = w->prev[c].dir[1];
    if (nsd_modes_solve_current(m, data, t, y, w->acc) > NSDYN_WARNING) return 0;
    double a[2] = {nsd_affine_local_acc(m, data, 3 * c + 1, w->acc),
                   nsd_affine_local_acc(m, data, 3 * c + 2, w->acc)};
    if (m->layout.contacts[c].tangent_dim == 1) {
        if (a[0] * md->dir[0] >= 0.0) return 1;
        md->dir[0] = -md->dir[0];
    } else {
        double s = hypot(a[0], a[1]);
        if (!(s > 0.0)) return 1;
        md->dir[0] = a[0] / s;
        md->dir[1] = a[1] / s;
    }
    return nsd_modes_solve_current(m, data, t, y, w->acc) <= NSDYN_WARNING;
}

/* Whether the stick force of contact c, whose stick event fired, is now
 * well inside its cone (below NSD_LEAVING_RATIO of mu_s N): the event fired
 * on the force of the previous modes, and the new ones changed it. Two
 * corners of a block at rest on compliant springs, one slipping (its slip
 * speed pinned at rounding by the other's stick: rigid kinematics at
 * theta ~ 0) and the other sticking against its kinetic force, sit on the
 * cone's edge, +-mu N, a self-equilibrated pair; when the sticking one's
 * event fires (rounding) and the slipping one, now slower than
 * rest_velocity, is tried sticking too, the least-norm forces are 0 (both
 * inside): forcing the fired contact to slip regardless swapped the
 * roles and kept the pair at +-mu N for ever (tests/test_resting_forces.c
 * case 5). The event's force was on the cone to 1e-12 of the force scale
 * (set_event_offsets); 1e-6 below it is far above that rounding, so a
 * force the new modes leave on the cone is still forced to slip. */
#define NSD_LEAVING_RATIO (1.0 - 1e-6)
static int leaving_inside(const nsd_model *m, nsd_data *data, size_t c) {
    const double *lam = data->lambda + 3 * c;
    double bound = 0.0, kinetic = 0.0;
    if (nsd_modes_bounds(m, data, fmax(lam[0], 0.0), &bound, &kinetic) > NSDYN_WARNING) return -1;
    return hypot(lam[1], lam[2]) < NSD_LEAVING_RATIO * bound;
}

/* Forces for the trial modes with friction resolved: sticking contacts
 * whose force leaves the cone start to slip, one at a time (the largest
 * violation first). Returns 1 with consistent friction, 0 if the modes are
 * singular or do not settle. */
static int resolve_friction(const nsd_model *m, nsd_data *data, double t, const double *y,
                            size_t leaving) {
    nsd_modes_work *w = data->ed.work;
    for (size_t it = 0; it <= 2 * m->nc + 2; ++it) {
        if (nsd_modes_solve_current(m, data, t, y, w->acc) > NSDYN_WARNING) {
            if (release_stick(m, data, t, y)) continue;
            return 0;
        }
        size_t worst = m->nc;
        double worst_ratio = 1.0;
        /* the contact whose stick event fired: its force is on the cone,
         * unless the new modes moved it inside (leaving_inside) */
        int inside =
            leaving < m->nc && data->ed.mode[leaving].stick && tangent_held(m, data, leaving)
                ? leaving_inside(m, data, leaving)
                : 1;
        if (inside < 0) return 0; /* the friction law failed: data->failure */
        if (!inside) {
            worst = leaving;
            worst_ratio = INFINITY;
        }
        for (size_t c = 0; c < m->nc; ++c) {
            if (!tangent_held(m, data, c) || !data->ed.mode[c].stick) continue;
            const double *lam = data->lambda + 3 * c;
            double bound = 0.0, kinetic = 0.0;
            if (nsd_modes_bounds(m, data, fmax(lam[0], 0.0), &bound, &kinetic) > NSDYN_WARNING)
                return 0;
            double F = hypot(lam[1], lam[2]);
            double ratio = F / (bound + 1e-300);
            if (F > bound * (1.0 + 1e-9) + 1e-12 && ratio > worst_ratio) {
                worst = c;
                worst_ratio = ratio;
            }
        }
        if (worst == m->nc) return 1;
        const double *lam = data->lambda + 3 * worst;
        double bound = 0.0, kinetic = 0.0;
        if (nsd_modes_bounds(m, data, fmax(lam[0], 0.0), &bound, &kinetic) > NSDYN_WARNING)
            return 0;
        data->ed.mode[worst].stick = 0;
        start_direction(m, data, worst, lam + 1, kinetic, data->ed.mode[worst].dir);
    }
    return 0;
}

/* Acceptance of trial modes: closed normal forces >= 0 and, for touching
 * contacts left open, normal accelerations >= 0 (the complementarity
 * 0 <= N _|_ u_n' >= 0), to a tolerance relative to the problem's scale. */
static int modes_consistent(const nsd_model *m, nsd_data *data, size_t n_set) {
    nsd_modes_work *w = data->ed.work;
    double fscale = 1.0, ascale = 1.0;
    for (size_t k = 0; k < 3 * m->nc; ++k) fscale = fmax(fscale, fabs(data->lambda[k]));
    for (size_t i = 0; i < m->nv; ++i) ascale = fmax(ascale, fabs(w->acc[i]));
    for (size_t c = 0; c < m->nc; ++c)
        if (is_unilateral(m, c) && data->ed.mode[c].closed && data->lambda[3 * c] < -1e-9 * fscale)
            return 0;
    for (size_t j = 0; j < n_set; ++j) {
        size_t c = w->set[j];
        if (data->ed.mode[c].closed) continue;
        if (nsd_affine_local_acc(m, data, 3 * c, w->acc) < -1e-9 * ascale) return 0;
    }
    return 1;
}

/* Initial friction mode of a held contact: stick when it does not slip. */
static void init_friction_mode(const nsd_model *m, nsd_data *data, size_t c) {
    const nsdyn_contact_eval *e = &data->ce[c];
    nsd_contact_mode *md = &data->ed.mode[c];
    double s = m->layout.contacts[c].tangent_dim == 2 ? hypot(e->u[1], e->u[2]) : fabs(e->u[1]);
    md->stick = s <= m->ed.rest_velocity;
    if (!md->stick) nsd_modes_slip_direction(m, data, c, md->dir);
}

/* Solve w->A x = w->x (nr rows) in place; a wedge (two contacts that press the body against
 * each other with fewer freedoms than rows) makes it singular: then the
 * least-squares solution of the Tikhonov-regularised system (1e-12 of its
 * scale) moves the body least. So does a system singular to rounding (a
 * pivot below 1e-12 of max |A_ij|): two rows equal but for ~1e-13 (one
 * contact point carried by two candidates, docs/event-driven.md) passed
 * the old absolute pivot test (1e-300), and their right-hand sides, which
 * differed by 2e-12 m/s, became impulses of 1e13 N s whose rounding made a
 * sphere roll 3x faster. The regularised solution never adds kinetic
 * energy (x = -(A + eps I)^-1 u: dT = u.x + x.A x/2 <= -u.(A + eps I)^-1 u/2). */
static int solve_regularized(nsd_modes_work *w, size_t nr) {
    double scale = 0.0;
    for (size_t r = 0; r < nr; ++r) scale = fmax(scale, w->A[r * nr + r]);
    memcpy(w->D, w->A, nr * nr * sizeof *w->A);
    memcpy(w->u_minus, w->x, nr * sizeof *w->x);
    if (nsn_lu_solve(nr, w->A, nr, w->x, 1e-12, 1e-300) == NSN_OK) return 0;
    for (size_t r = 0; r < nr; ++r) w->D[r * nr + r] += 1e-12 * scale + 1e-300;
    memcpy(w->x, w->u_minus, nr * sizeof *w->x);
    return nsd_solve_small(w->D, w->x, nr);
}

/* Project the velocities onto the constraints of the chosen modes (closed
 * normals, sticking tangents): v+ = v - M^-1 W^T (W M^-1 W^T)^-1 u, the
 * M-orthogonal projection, which never adds kinetic energy. The velocities
 * it removes are below rest_velocity by construction. */
static nsdyn_status project_velocity(const nsd_model *m, nsd_data *data, double t, double *y) {
    nsd_modes_work *w = data->ed.work;
    size_t nr = 0;
    for (size_t c = 0; c < m->nc; ++c) {
        if (!data->ce[c].active) continue;
        /* closed contacts, and touching ones left open that still creep
         * in (slower than the rest speed, or the impact would have taken
         * them): their approach stops too, plastically */
        if (is_unilateral(m, c) && !is_compliant(m, c) &&
            (data->ed.mode[c].closed || (touching(m, data, c) && data->ce[c].u[0] < 0.0))) {
            w->unk[nr++] = 3 * c;
        }
        if (tangent_held(m, data, c) && data->ed.mode[c].stick)
            for (size_t j = 0; j < m->layout.contacts[c].tangent_dim; ++j) {
                w->unk[nr++] = 3 * c + 1 + j;
            }
    }
    if (!nr) return NSDYN_OK;
    for (size_t r = 0; r < nr; ++r) {
        for (size_t k = 0; k < nr; ++k)
            w->A[r * nr + k] = nsd_affine_entry(m, data, w->unk[r], w->B + w->unk[k] * m->nv);
        w->x[r] = -data->ce[w->unk[r] / 3].u[w->unk[r] % 3];
    }
    if (solve_regularized(w, nr) != 0) {
        snprintf(data->failure, sizeof data->failure,
                 "the contact constraints chosen at t = %.9g s are singular (redundant contacts)",
                 t);
        return NSDYN_ERROR;
    }
    double *v = y + m->nq;
    for (size_t k = 0; k < nr; ++k) {
        const double *col = w->B + w->unk[k] * m->nv;
        for (size_t i = 0; i < m->nv; ++i) v[i] += col[i] * w->x[k];
    }
    return NSDYN_OK;
}

/* ---- drift of sustained contacts ------------------------------------ */

/* A closed contact's gap is held at the acceleration level (u_n' = 0), so
 * it drifts by the integration error (a sphere pivoting over an edge:
 * ~5e-9 m/s at rtol 1e-10). Once a closed gap leaves half the touching
 * band, the positions are projected back: Gauss-Newton steps on the
 * closed gaps in the metric of M (dq = N(q) M^-1 W^T x, W M^-1 W^T x = -g,
 * the position analogue of project_velocity), then the velocities onto
 * the constraints. Returns 1 if y changed, 0 if not, -1 on failure. */
#define NSD_DRIFT_ITER 4

/* A contact out of place: closed and off the surface by more than band,
 * or open and penetrating deeper than twice the tolerance (an impact is
 * located where the gap falls through -tolerance, a hair beyond; a contact
 * that ends an impact or a lift-off deeper could never be seen approaching
 * again). */
static int out_of_band(const nsd_model *m, nsd_data *data, size_t c, double band) {
    if (!is_unilateral(m, c) || is_compliant(m, c) || !data->ce[c].active) return 0;
    return data->ed.mode[c].closed ? fabs(data->ce[c].gap) > band
                                   : data->ce[c].gap < -2.0 * m->ed.contact_tolerance;
}

static int gaps_drifted(const nsd_model *m, nsd_data *data, double band) {
    for (size_t c = 0; c < m->nc; ++c)
        if (out_of_band(m, data, c, band)) return 1;
    return 0;
}

static nsdyn_status drift_step(const nsd_model *m, nsd_data *data, double t, double *y) {
    nsd_modes_work *w = data->ed.work;
    size_t nr = 0, nv = m->nv;
    for (size_t c = 0; c < m->nc; ++c)
        if (is_unilateral(m, c) && !is_compliant(m, c) && data->ce[c].active &&
            (data->ed.mode[c].closed || out_of_band(m, data, c, 0.0)))
            w->set[nr++] = c;
    for (size_t r = 0; r < nr; ++r) {
        for (size_t k = 0; k < nr; ++k)
            w->A[r * nr + k] = delassus(m, data, w->set[r], 0, w->set[k], 0);
        w->x[r] = -data->ce[w->set[r]].gap;
    }
    if (solve_regularized(w, nr) != 0) return NSDYN_OK; /* nothing to move */
    memset(w->acc, 0, nv * sizeof *w->acc);
    for (size_t k = 0; k < nr; ++k)
        for (size_t i = 0; i < nv; ++i) w->acc[i] += w->B[3 * w->set[k] * nv + i] * w->x[k];
    /* dq = N(q) dv = qdot(q, dv) - qdot(q, 0) (q' is affine in v) */
    memset(data->lambda, 0, 3 * m->nc * sizeof *data->lambda);
    double *dq = w->ytmp, *q0dot = w->ytmp + m->nq;
    nsdyn_status st = m->sys->derivatives(m->sys_inst, t, y, w->acc, data->lambda, dq, NULL);
    if (st <= NSDYN_WARNING) {
        memset(w->acc, 0, nv * sizeof *w->acc);
        st = m->sys->derivatives(m->sys_inst, t, y, w->acc, data->lambda, q0dot, NULL);
    }
    if (st > NSDYN_WARNING) return nsd_model_fail(m, data, st, t, "system derivatives()");
    for (size_t i = 0; i < m->nq; ++i) y[i] += dq[i] - q0dot[i];
    return NSDYN_OK;
}

int nsd_modes_correct_drift(const nsd_model *m, nsd_data *data, double t, double *y,
                            double *deepest_open) {
    double band = 0.5 * m->ed.contact_tolerance;
    *deepest_open = 0.0;
    if (nsd_modes_eval_contacts(m, data, t, y, 1) > NSDYN_WARNING) return -1;
    if (!gaps_drifted(m, data, band)) return 0;
    for (size_t c = 0; c < m->nc; ++c) /* open contacts found penetrating */
        if (!data->ed.mode[c].closed && out_of_band(m, data, c, band))
            *deepest_open = fmin(*deepest_open, data->ce[c].gap);
    for (int it = 0; it < NSD_DRIFT_ITER; ++it) {
        if (contact_response(m, data, t, y) > NSDYN_WARNING ||
            drift_step(m, data, t, y) > NSDYN_WARNING)
            return -1;
        if (nsd_modes_eval_contacts(m, data, t, y, 1) > NSDYN_WARNING) return -1;
        if (!gaps_drifted(m, data, 0.01 * band)) break;
    }
    if (contact_response(m, data, t, y) > NSDYN_WARNING ||
        project_velocity(m, data, t, y) > NSDYN_WARNING)
        return -1;
    return 1;
}

static void describe_touching(const nsd_model *m, nsd_data *data, char *buf, size_t len) {
    buf[0] = '\0';
    for (size_t c = 0, k = 0; c < m->nc; ++c) {
        if (!touching(m, data, c)) continue;
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%s (gap %.3g m, u_n %.3g m/s)", k++ ? ", " : "",
                 m->layout.contacts[c].name, data->ce[c].gap, data->ce[c].u[0]);
    }
}

/* The model's switch check (model.h; the limit-direction test of the
 * towed-wheel paper's (3), analysis/) at a switch of a persistent 2-D
 * contact, on the state with that contact's slip projected to zero: 1 if
 * it agrees with the force test, 0 if not, -1 not checked. */
static int switch_check(const nsd_model *m, nsd_data *data, double t, const double *y, size_t c) {
    nsd_modes_work *w = data->ed.work;
    if (!m->ed.switch_check || is_unilateral(m, c) || m->layout.contacts[c].tangent_dim != 2)
        return -1;
    memcpy(w->ytmp, y, m->n * sizeof *w->ytmp);
    double G[4], u[2] = {-data->ce[c].u[1], -data->ce[c].u[2]};
    tangent_block(m, data, c, G);
    if (nsd_solve_small(G, u, 2) != 0) return -1;
    size_t idx[1] = {c};
    double P[3] = {0.0, u[0], u[1]};
    apply_impulse(m, data, w->ytmp + m->nq, idx, 1, P);
    return m->ed.switch_check(m, data, t, w->ytmp, c);
}

/* 1. Impacts, until no touching contact approaches (a multi-contact law
 *    leaves none approaching; the bound guards against one that does).
 *    Keeps the velocities before them in w->u_prev; *impacted: one was
 *    applied. */
static nsdyn_status apply_impacts(const nsd_model *m, nsd_data *data, double t, double *y,
                                  nsd_event_log *log, int *impacted) {
    nsd_modes_work *w = data->ed.work;
    nsdyn_status st;
    *impacted = 0;
    for (int pass = 0;; ++pass) {
        st = nsd_modes_eval_contacts(m, data, t, y, 1);
        if (st > NSDYN_WARNING) return st;
        if (pass == 0) {
            for (size_t c = 0; c < m->nc; ++c)
                memcpy(w->u_prev + 3 * c, data->ce[c].u, sizeof data->ce[c].u);
            st = contact_response(m, data, t, y);
            if (st > NSDYN_WARNING) return st;
        }
        if (pass == 4) {
            snprintf(data->failure, sizeof data->failure,
                     "impact law '%s' left a contact approaching after 4 impacts at t = %.9g s",
                     m->contact ? m->contact->info.id : "", t);
            return NSDYN_ERROR;
        }
        if (!impact(m, data, t, y, log, &st)) break;
        *impacted = 1;
    }
    return st;
}

/* 2. The touching set into w->set (*k contacts): contacts at zero gap not
 *    separating faster than rest_velocity. A slower approach lands here
 *    too and is closed plastically by the projection: the accumulation
 *    rule. */
static nsdyn_status touching_set(const nsd_model *m, nsd_data *data, double t, size_t *k) {
    nsd_modes_work *w = data->ed.work;
    *k = 0;
    for (size_t c = 0; c < m->nc; ++c)
        if (touching(m, data, c) && data->ce[c].u[0] <= rest_speed(m, data, c, t))
            w->set[(*k)++] = c;
    if (*k <= NSD_MAX_TOUCHING) return NSDYN_OK;
    snprintf(data->failure, sizeof data->failure,
             "%zu contacts touch at once at t = %.9g s; the event-driven runner enumerates at "
             "most %d",
             *k, t, NSD_MAX_TOUCHING);
    return NSDYN_ERROR;
}

/* A compliant contact is closed while it penetrates. At its own gap event
 * (fired 2 c: the step guard's touch-down, or the integrator's lift-off)
 * the gap sits at the threshold, within the root finder's tolerance of it
 * on either side: the mode flips there. */
static int compliant_closed(const nsd_data *data, size_t c, int fired) {
    const nsdyn_contact_eval *e = &data->ce[c];
    if (!e->active) return 0;
    if (fired >= 0 && (size_t)fired == 2 * c) return !data->ed.work->prev[c].closed;
    return e->gap < 0.0 || (e->gap == 0.0 && e->u[0] < 0.0);
}

/* One trial of choose_modes(, ->d): the touching contacts of mask (bits over
 * w->set, k of them) closed, the other unilateral ones open; friction
 * resolved (leaving: the contact whose stick event fired, or nc).
 * Returns 1 if the modes are consistent. */
static int try_modes(const nsd_model *m, nsd_data *data, double t, const double *y, size_t k,
                     unsigned long mask, int fired, size_t leaving) {
    nsd_modes_work *w = data->ed.work;
    for (size_t c = 0; c < m->nc; ++c)
        if (is_unilateral(m, c))
            data->ed.mode[c].closed = is_compliant(m, c) ? compliant_closed(data, c, fired) : 0;
    for (size_t j = 0; j < k; ++j)
        if (mask & (1ul << j)) data->ed.mode[w->set[j]].closed = 1;
    for (size_t c = 0; c < m->nc; ++c)
        if (tangent_held(m, data, c)) init_friction_mode(m, data, c);
    /* rows for every contact: open touching ones are tested too */
    for (size_t c = 0; c < m->nc; ++c) data->jac[c] = data->W + c * 3 * m->nv;
    return resolve_friction(m, data, t, y, leaving) && modes_consistent(m, data, k);
}

/* 3. Closed subsets of the touching set (k contacts in w->set), largest
 *    first; friction resolved inside each trial. The contact whose event
 *    fired sits on the boundary of its mode (zero normal force, stick
 *    force on the cone): the first round makes it leave the mode it is
 *    leaving, so the phase after the event is not the one before it; the
 *    second round lets it stay if nothing else is consistent. After a
 *    system's reset (fired = NSD_FIRED_KEEP) the open/closed statuses the
 *    system was told of are tried first: with friction the
 *    acceleration-level problem can have two consistent answers (a
 *    sphere given backspin just as it leaves a convex edge may also stay
 *    on it, slipping), and the reset, not the host, decided the phase. */
static nsdyn_status choose_modes(const nsd_model *m, nsd_data *data, double t, const double *y,
                                 size_t k, int fired) {
    nsd_modes_work *w = data->ed.work;
    size_t fc = fired >= 0 ? (size_t)fired / 2 : m->nc;
    int force_open = fired >= 0 && fired % 2 == 0 && w->prev[fc].closed && is_unilateral(m, fc) &&
                     !is_compliant(m, fc);
    int force_slip = fired >= 0 && fired % 2 == 1 && w->prev[fc].stick;
    int accepted = 0;
    if (fired == NSD_FIRED_KEEP) {
        unsigned long keep = 0;
        for (size_t j = 0; j < k; ++j)
            if (w->prev[w->set[j]].closed) keep |= 1ul << j;
        accepted = try_modes(m, data, t, y, k, keep, fired, m->nc);
    }
    for (int round = force_open || force_slip ? 0 : 1; round < 2 && !accepted; ++round)
        for (size_t size = k + 1; size-- > 0 && !accepted;) {
            for (unsigned long mask = 0; mask < (1ul << k) && !accepted; ++mask) {
                if ((size_t)__builtin_popcountl(mask) != size) continue;
                if (round == 0 && force_open) {
                    int has_fc = 0;
                    for (size_t j = 0; j < k; ++j)
                        if ((mask & (1ul << j)) && w->set[j] == fc) has_fc = 1;
                    if (has_fc) continue;
                }
                accepted =
                    try_modes(m, data, t, y, k, mask, fired, round == 0 && force_slip ? fc : m->nc);
            }
        }
    if (accepted) return NSDYN_OK;
    char which[400];
    describe_touching(m, data, which, sizeof which);
    snprintf(data->failure, sizeof data->failure,
             "no consistent contact mode at t = %.9g s for the touching contacts %s (the "
             "acceleration-level problem with Coulomb friction has no solution here: a "
             "Painleve-type inconsistency, or redundant contacts)",
             t, which);
    return NSDYN_ERROR;
}

/* 5. The log: what changed, with the velocities before and after (the
 *    contacts evaluated after the projection); then the switch checks,
 *    which evaluate the model elsewhere, once the log of this resolution
 *    is complete. */
static nsdyn_status log_changes(const nsd_model *m, nsd_data *data, double t, const double *y,
                                nsd_event_log *log, int impacted, size_t first_record) {
    nsd_modes_work *w = data->ed.work;
    for (size_t c = 0; c < m->nc; ++c) {
        const nsd_contact_mode *was = &w->prev[c], *now = &data->ed.mode[c];
        nsd_event_kind kinds[2];
        size_t nk = 0;
        if (is_unilateral(m, c) && !was->closed && now->closed)
            kinds[nk++] = w->u_prev[3 * c] < 0 && !impacted && !is_compliant(m, c)
                              ? NSD_EVENT_REST
                              : NSD_EVENT_CLOSE;
        if (is_unilateral(m, c) && was->closed && !now->closed) kinds[nk++] = NSD_EVENT_OPEN;
        if (tangent_held(m, data, c)) {
            int was_held = was->closed || !is_unilateral(m, c);
            if (was->stick < 0)
                kinds[nk++] = now->stick ? NSD_EVENT_STICK : NSD_EVENT_SLIP;
            else if (now->stick && (!was_held || !was->stick))
                kinds[nk++] = NSD_EVENT_STICK;
            else if (!now->stick && was_held && was->stick)
                kinds[nk++] = NSD_EVENT_SLIP;
        }
        for (size_t i = 0; i < nk; ++i) {
            nsd_event_record *r = nsd_modes_log_add(log, t, c, kinds[i]);
            if (!r) continue;
            memcpy(r->u_before, w->u_prev + 3 * c, sizeof r->u_before);
            memcpy(r->u_after, data->ce[c].u, sizeof r->u_after);
            r->slip_dir[0] = now->dir[0];
            r->slip_dir[1] = now->dir[1];
        }
    }
    for (size_t i = first_record; log && i < log->n; ++i) {
        nsd_event_record *r = &log->rec[i];
        if (r->kind == NSD_EVENT_STICK || r->kind == NSD_EVENT_SLIP) {
            nsdyn_status st = nsd_modes_eval_contacts(m, data, t, y, 1);
            if (st > NSDYN_WARNING) return st;
            r->limit_check = switch_check(m, data, t, y, r->contact);
        }
    }
    return NSDYN_OK;
}

/* 6. Event offsets: each function starts strictly above its trigger. */
static nsdyn_status set_event_offsets(const nsd_model *m, nsd_data *data, double t,
                                      const double *y) {
    nsdyn_status st = nsd_modes_forces(m, data, t, y, data->ed.work->acc);
    if (st > NSDYN_WARNING) return st;
    for (size_t c = 0; c < m->nc; ++c) {
        double raw[2];
        if (nsd_modes_raw_events(m, data, c, raw) > NSDYN_WARNING) return NSDYN_ERROR;
        double fscale = 1.0 + fabs(data->lambda[3 * c]);
        double delta[2] = {1e-3 * m->ed.contact_tolerance,
                           tangent_held(m, data, c) && data->ed.mode[c].stick
                               ? 1e-12 * fscale
                               : 1e-3 * m->ed.rest_velocity};
        if (is_unilateral(m, c) && !is_compliant(m, c) && data->ed.mode[c].closed)
            delta[0] = 1e-12 * fscale;
        for (int i = 0; i < 2; ++i)
            data->ed.mode[c].g_ref[i] = raw[i] > 0.0 ? 0.0 : raw[i] - delta[i];
        /* an open gap's threshold is fixed: impacts where the gap falls
         * through 0, or through -contact_tolerance for a contact that
         * starts the phase touching (it has just bounced or lifted off) */
        if (is_unilateral(m, c) && !data->ed.mode[c].closed)
            data->ed.mode[c].g_ref[0] = data->ce[c].gap > 0.0 ? 0.0 : -m->ed.contact_tolerance;
        /* 2-D slip speed: its own threshold, no offset (see raw_events) */
        if (tangent_held(m, data, c) && !data->ed.mode[c].stick &&
            m->layout.contacts[c].tangent_dim == 2)
            data->ed.mode[c].g_ref[1] = 0.0;
    }
    return NSDYN_OK;
}

nsdyn_status nsd_modes_resolve(const nsd_model *m, nsd_data *data, double t, double *y,
                               nsd_event_log *log, int fired) {
    nsd_modes_work *w = data->ed.work;
    memcpy(w->prev, data->ed.mode, m->nc * sizeof *w->prev);
    size_t first_record = log ? log->n : 0, k = 0;
    int impacted = 0;
    nsdyn_status st = apply_impacts(m, data, t, y, log, &impacted);
    if (st <= NSDYN_WARNING) st = touching_set(m, data, t, &k);
    if (st <= NSDYN_WARNING) st = choose_modes(m, data, t, y, k, fired);
    /* 4. Velocities onto the constraints of the new modes. */
    if (st <= NSDYN_WARNING) st = project_velocity(m, data, t, y);
    if (st <= NSDYN_WARNING) st = nsd_modes_eval_contacts(m, data, t, y, 1);
    if (st <= NSDYN_WARNING) st = log_changes(m, data, t, y, log, impacted, first_record);
    if (st <= NSDYN_WARNING) st = set_event_offsets(m, data, t, y);
    return st > NSDYN_WARNING ? st : NSDYN_OK;
}

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
                        nsd_modes_delassus(m, data, w->set[i], a, w->set[j], b);
        }
    for (size_t i = 0; i < k; ++i) {
        w->mu_s[i] = data->mu_static;
        w->mu_k[i] = data->mu_kinetic;
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
    nsdyn_status ls = m->contact->impact(data->contact_inst, &p, w->impulse, w->u_plus);
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

nsdyn_status nsd_modes_project(const nsd_model *m, nsd_data *data, double t, double *y) {
    nsdyn_status st = nsd_modes_eval_contacts(m, data, t, y, 1);
    if (st <= NSDYN_WARNING) st = contact_response(m, data, t, y);
    if (st <= NSDYN_WARNING) st = project_velocity(m, data, t, y);
    return st > NSDYN_WARNING ? st : NSDYN_OK;
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
            w->A[r * nr + k] = nsd_modes_delassus(m, data, w->set[r], 0, w->set[k], 0);
        w->x[r] = -data->ce[w->set[r]].gap;
    }
    if (solve_regularized(w, nr) != 0) return NSDYN_OK; /* nothing to move */
    memset(w->acc, 0, nv * sizeof *w->acc);
    for (size_t k = 0; k < nr; ++k)
        for (size_t i = 0; i < nv; ++i) w->acc[i] += w->B[3 * w->set[k] * nv + i] * w->x[k];
    /* dq = N(q) dv = qdot(q, dv) - qdot(q, 0) (q' is affine in v) */
    memset(data->lambda, 0, 3 * m->nc * sizeof *data->lambda);
    double *dq = w->ytmp, *q0dot = w->ytmp + m->nq;
    nsdyn_status st = m->sys->derivatives(data->sys_inst, t, y, w->acc, data->lambda, dq, NULL);
    if (st <= NSDYN_WARNING) {
        memset(w->acc, 0, nv * sizeof *w->acc);
        st = m->sys->derivatives(data->sys_inst, t, y, w->acc, data->lambda, q0dot, NULL);
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
    nsd_modes_tangent_block(m, data, c, G);
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

/* 3. The new modes (modes_choose.c), or the failure. */
static nsdyn_status choose_modes(const nsd_model *m, nsd_data *data, double t, const double *y,
                                 size_t k, int fired) {
    if (nsd_modes_choose(m, data, t, y, k, fired)) return NSDYN_OK;
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
    w->t_resolved = t;
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

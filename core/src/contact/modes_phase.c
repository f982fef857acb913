/* Event-driven rigid contact: modes, forces, events and their resolution
 * (modes.h; the method and its rules are in docs/event-driven.md).
 *
 * Notation. Local contact velocity u = W v + w per contact (normal, t1, t2)
 * [m/s]; local acceleration u' = W v' + drift. The system's v' is affine
 * in the local contact forces lambda (system.h), so
 *   v' = a0 + sum_k C_k x_k
 * for the unknown force components x_k, with C_k = v'(unit x_k) - a0, exact.
 * Sustained contact (Pfeiffer & Glocker, "Multibody Dynamics with
 * Unilateral Contacts" (1996), Ch. 7; the curb-wheel paper's staged
 * method): closed contacts impose u_n' = 0, sticking contacts u_t' = 0,
 * slipping contacts carry F_t = -mu_k N d; one linear solve per
 * right-hand side. The mode of each contact changes only at events. */
#define _DEFAULT_SOURCE
#include "modes_phase.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "affine.h"
#include "nsdyn_numeric.h"
#include "plugin_calls.h"
#include "rate_hold.h"

static const char *const kind_names[NSD_EVENT_KIND_COUNT] = {
    [NSD_EVENT_IMPACT] = "impact",
    [NSD_EVENT_REST] = "rest",
    [NSD_EVENT_CLOSE] = "close",
    [NSD_EVENT_OPEN] = "open",
    [NSD_EVENT_STICK] = "stick",
    [NSD_EVENT_SLIP] = "slip",
    [NSD_EVENT_SYSTEM_RESET] = "system_reset",
};

const char *nsd_event_kind_name(nsd_event_kind kind) {
    return kind < NSD_EVENT_KIND_COUNT ? kind_names[kind] : "?";
}

void nsd_event_log_free(nsd_event_log *log) {
    free(log->rec);
    memset(log, 0, sizeof *log);
}

nsd_event_record *nsd_modes_log_add(nsd_event_log *log, double t, size_t c, nsd_event_kind kind) {
    if (!log) return NULL;
    if (log->n == log->cap) {
        log->cap = log->cap ? 2 * log->cap : 64;
        nsd_event_record *r = realloc(log->rec, log->cap * sizeof *r);
        if (!r) abort();
        log->rec = r;
    }
    nsd_event_record *r = &log->rec[log->n++];
    memset(r, 0, sizeof *r);
    r->t = t;
    r->contact = c;
    r->kind = kind;
    r->limit_check = -1;
    return r;
}

static void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size);
    if (!p) abort();
    return p;
}

void nsd_modes_reset(const nsd_model *m, nsd_data *d) {
    nsd_contact_mode *mode = d->ed.mode;
    for (size_t c = 0; c < m->nc; ++c) {
        mode[c] = (nsd_contact_mode){0};
        mode[c].closed = m->layout.contacts[c].type == NSDYN_CONTACT_PERSISTENT;
        mode[c].stick = -1; /* not known before the first resolution */
        mode[c].dir[0] = 1.0;
        mode[c].g_ref[0] = mode[c].g_ref[1] = -INFINITY;
    }
}

void nsd_modes_alloc(const nsd_model *m, nsd_data *d) {
    size_t nc = m->nc, nv = m->nv, n3 = 3 * (nc ? nc : 1);
    nsd_modes_work *w = xcalloc(1, sizeof *w);
    w->unk = xcalloc(n3, sizeof *w->unk);
    w->C = xcalloc(n3 * nv, sizeof *w->C);
    w->A = xcalloc(n3 * n3, sizeof *w->A);
    w->x = xcalloc(n3, sizeof *w->x);
    w->slip_dir = xcalloc(2 * nc, sizeof *w->slip_dir);
    w->fric = xcalloc(2 * nc, sizeof *w->fric);
    w->B = xcalloc(n3 * nv, sizeof *w->B);
    w->D = xcalloc(n3 * n3, sizeof *w->D);
    w->u_minus = xcalloc(n3, sizeof *w->u_minus);
    w->impulse = xcalloc(n3, sizeof *w->impulse);
    w->u_plus = xcalloc(n3, sizeof *w->u_plus);
    w->mu_s = xcalloc(nc, sizeof *w->mu_s);
    w->mu_k = xcalloc(nc, sizeof *w->mu_k);
    w->gaps = xcalloc(nc, sizeof *w->gaps);
    w->set = xcalloc(nc, sizeof *w->set);
    w->prev = xcalloc(nc, sizeof *w->prev);
    w->u_prev = xcalloc(n3, sizeof *w->u_prev);
    w->ytmp = xcalloc(m->n + m->nq, sizeof *w->ytmp); /* n, or 2 nq in drift_step */
    w->acc = xcalloc(nv, sizeof *w->acc);
    w->an = xcalloc(nc, sizeof *w->an);
    w->cm_old = xcalloc(nc, sizeof *w->cm_old);
    w->cm_new = xcalloc(nc, sizeof *w->cm_new);
    w->v_hook = xcalloc(nv, sizeof *w->v_hook);
    w->slip_try = xcalloc(nc, sizeof *w->slip_try);
    w->ln_len = nsn_least_norm_work(n3);
    w->ln_work = xcalloc(w->ln_len, sizeof *w->ln_work);
    w->ln_jpvt = xcalloc(n3, sizeof *w->ln_jpvt);
    w->adm_len = n3 * n3 + nsn_null_space_work(n3);
    w->adm_work = xcalloc(w->adm_len, sizeof *w->adm_work);
    w->adm_Z = xcalloc(n3 * n3, sizeof *w->adm_Z);
    w->adm_x0 = xcalloc(5 * n3, sizeof *w->adm_x0);
    w->adm_xk = w->adm_x0 + n3, w->adm_p = w->adm_x0 + 2 * n3;
    w->adm_q = w->adm_x0 + 3 * n3, w->adm_y = w->adm_x0 + 4 * n3;
    d->ed.work = w;
    d->ed.mode = xcalloc(nc, sizeof *d->ed.mode);
    nsd_modes_reset(m, d);
}

void nsd_modes_init(nsd_model *m, double rest_ratio, double rest_velocity,
                    double contact_tolerance) {
    m->ed.rest_velocity = rest_velocity;
    m->ed.rest_ratio = rest_ratio;
    m->ed.contact_tolerance = contact_tolerance;
}

void nsd_modes_free(nsd_data *d) {
    nsd_modes_work *w = d->ed.work;
    if (w) {
        free(w->unk);
        free(w->C);
        free(w->A);
        free(w->x);
        free(w->slip_dir);
        free(w->fric);
        free(w->B);
        free(w->D);
        free(w->u_minus);
        free(w->impulse);
        free(w->u_plus);
        free(w->mu_s);
        free(w->mu_k);
        free(w->gaps);
        free(w->set);
        free(w->prev);
        free(w->u_prev);
        free(w->ytmp);
        free(w->acc);
        free(w->an);
        free(w->cm_old);
        free(w->cm_new);
        free(w->v_hook);
        free(w->slip_try);
        free(w->ln_work);
        free(w->ln_jpvt);
        free(w->adm_work);
        free(w->adm_Z);
        free(w->adm_x0);
        free(w);
    }
    free(d->ed.mode);
    d->ed.work = NULL;
    d->ed.mode = NULL;
}

/* contacts() with Jacobian rows for the contacts that need them (closed,
 * persistent) or for all (all_rows). */
nsdyn_status nsd_modes_eval_contacts(const nsd_model *m, nsd_data *data, double t, const double *y,
                                     int all_rows) {
    nsd_model_ask_contacts(m, data, all_rows ? NSD_ROWS_ALL : NSD_ROWS_NONE);
    for (size_t c = 0; c < m->nc && !all_rows; ++c)
        if (data->ed.mode[c].closed) data->jac[c] = data->W + c * 3 * m->nv;
    nsdyn_status st = nsd_model_contacts_now(m, data, t, y, y + m->nq);
    if (st > NSDYN_WARNING) return nsd_model_fail(m, data, st, t, "system contacts()");
    return nsd_model_check_contacts(m, data, t);
}

/* Slip direction of contact c now: the slip velocity's, or the mode's when
 * the slip is too small for its direction to mean anything (it has just
 * started from stick). The threshold is far below the stick event's
 * (rest_velocity), so it never puts a kink where a phase ends. */
void nsd_modes_slip_direction(const nsd_model *m, nsd_data *data, size_t c, double *d) {
    const nsdyn_contact_eval *e = &data->ce[c];
    double tiny = 1e-3 * m->ed.rest_velocity;
    if (m->layout.contacts[c].tangent_dim == 2) {
        double s = hypot(e->u[1], e->u[2]);
        if (s > tiny) {
            d[0] = e->u[1] / s;
            d[1] = e->u[2] / s;
        } else {
            d[0] = data->ed.mode[c].dir[0];
            d[1] = data->ed.mode[c].dir[1];
        }
    } else {
        d[0] = fabs(e->u[1]) > tiny ? (e->u[1] > 0 ? 1.0 : -1.0) : data->ed.mode[c].dir[0];
        d[1] = 0.0;
    }
}

/* Friction force per unit normal force of slipping contact c, from the
 * friction law's force() (velocity-dependent laws such as stribeck change
 * the motion): at the slip velocity, or along the slip direction d at the
 * zero-slip threshold when the slip has just started. The laws' force is
 * proportional to N (friction.h), so the unknown N carries it. */
static nsdyn_status slip_friction(const nsd_model *m, nsd_data *data, size_t c, const double *d,
                                  double t) {
    const nsdyn_contact_eval *e = &data->ce[c];
    uint32_t dim = m->layout.contacts[c].tangent_dim;
    double s = dim == 2 ? hypot(e->u[1], e->u[2]) : fabs(e->u[1]);
    double floor_speed = 1e-3 * m->ed.rest_velocity;
    nsdyn_friction_input in = {.dim = dim, .normal_force = 1.0, .state = NULL};
    in.slip[0] = s > floor_speed ? e->u[1] : floor_speed * d[0];
    /* 1-D: never against the phase's direction d (see solve_current) */
    if (dim == 1 && e->u[1] * d[0] <= floor_speed) in.slip[0] = floor_speed * d[0];
    in.slip[1] = dim == 2 ? (s > floor_speed ? e->u[2] : floor_speed * d[1]) : 0.0;
    double *f = data->ed.work->fric + 2 * c;
    f[0] = f[1] = 0.0;
    nsdyn_status st = m->friction->force(data->friction_inst, &in, f, NULL);
    return st > NSDYN_WARNING ? nsd_model_fail(m, data, st, t, "friction force()") : NSDYN_OK;
}

/* Unit pattern of unknown k added (sign +1) or removed (-1) in lambda. */
static void apply_unknown(const nsd_model *m, nsd_data *data, size_t k, double amount) {
    nsd_modes_work *w = data->ed.work;
    size_t c = w->unk[k] / 3, comp = w->unk[k] % 3;
    double *lam = data->lambda + 3 * c;
    lam[comp] += amount;
    if (comp == 0 && m->friction && !data->ed.mode[c].stick) {
        /* a slipping closed contact: its friction follows its normal force */
        lam[1] += amount * w->fric[2 * c];
        lam[2] += amount * w->fric[2 * c + 1];
    }
}

/* Forces of the current modes and v' at (t, y): contacts must have been
 * evaluated (eval_contacts) at (t, y) with rows for the closed ones. */
nsdyn_status nsd_modes_solve_current(const nsd_model *m, nsd_data *data, double t, const double *y,
                                     double *vdot) {
    nsd_modes_work *w = data->ed.work;
    const double *q = y, *v = y + m->nq;
    size_t nv = m->nv, nu = 0;
    for (size_t c = 0; c < m->nc; ++c) {
        double *lam = data->lambda + 3 * c;
        lam[0] = lam[1] = lam[2] = 0.0;
        const nsdyn_contact_eval *e = &data->ce[c];
        if (!e->active || !data->ed.mode[c].closed) continue;
        int persistent = !is_unilateral(m, c), compliant = is_compliant(m, c);
        int held = compliant && data->hold.held && data->hold.held[c];
        double N = persistent ? e->normal_load : 0.0;
        if (compliant && !held) {
            /* the law's force at the current gap and rate, like a
             * persistent contact's given load (it changes along the
             * motion, and friction follows it) */
            nsdyn_status ns = m->contact->normal_force(
                data->contact_inst, e->gap, nsd_hold_law_rate(&data->hold, c, e->u[0]), &N);
            if (ns > NSDYN_WARNING)
                return nsd_model_fail(m, data, ns, t, "contact law normal_force()");
            N = fmax(N, 0.0);
        }
        lam[0] = N;
        /* a compliant contact held at gap_rate = 0 (rate_hold.h): its
         * normal force holds u_n' = 0, as a closed rigid contact's */
        if ((!persistent && !compliant) || held) {
            w->unk[nu++] = 3 * c;
        }
        if (!m->friction) continue;
        if (data->ed.mode[c].stick) {
            for (size_t j = 0; j < m->layout.contacts[c].tangent_dim; ++j) {
                w->unk[nu++] = 3 * c + 1 + j;
            }
        } else if (m->layout.contacts[c].tangent_dim == 1) {
            /* 1-D: the mode's direction for the whole phase. The phase ends
             * when u_t d falls through its offset (-1e-3 rest_velocity after
             * a start from stick), which is where nsd_modes_slip_direction
             * would flip the friction: the force would jump at the event
             * itself, and the integrator rejected every step across it
             * without locating it (a walker whose stance foot stopped
             * slipping took 1e6 steps at t = 0.0945 s). */
            w->slip_dir[2 * c] = data->ed.mode[c].dir[0];
            w->slip_dir[2 * c + 1] = 0.0;
            nsdyn_status fs = slip_friction(m, data, c, w->slip_dir + 2 * c, t);
            if (fs > NSDYN_WARNING) return fs;
            lam[1] = N * w->fric[2 * c];
            lam[2] = N * w->fric[2 * c + 1];
        } else {
            nsd_modes_slip_direction(m, data, c, w->slip_dir + 2 * c);
            nsdyn_status fs = slip_friction(m, data, c, w->slip_dir + 2 * c, t);
            if (fs > NSDYN_WARNING) return fs;
            lam[1] = N * w->fric[2 * c];
            lam[2] = N * w->fric[2 * c + 1];
        }
    }
    w->n_unknown = nu;
    nsdyn_status st = nsd_affine_base(m, data, t, q, v);
    if (st > NSDYN_WARNING) return st;
    if (nu == 0) {
        memcpy(vdot, data->a0, nv * sizeof *vdot);
        return NSDYN_OK;
    }
    st = nsd_affine_columns(m, data, t, q, v, nu, NULL, apply_unknown, w->C);
    if (st > NSDYN_WARNING) return st;
    nsd_affine_block(m, data, w->unk, nu, w->C, nu, w->A);
    for (size_t r = 0; r < nu; ++r) w->x[r] = -nsd_affine_local_acc(m, data, w->unk[r], data->a0);
    if (nsd_modes_solve_forces(m, data, nu) != 0) {
        snprintf(data->failure, sizeof data->failure,
                 "the contact constraints of the current modes are singular at t = %.9g s "
                 "(redundant contacts: the forces are not determined)",
                 t);
        return NSDYN_ERROR;
    }
    memcpy(vdot, data->a0, nv * sizeof *vdot);
    for (size_t k = 0; k < nu; ++k) {
        apply_unknown(m, data, k, w->x[k]);
        for (size_t i = 0; i < nv; ++i) vdot[i] += w->C[k * nv + i] * w->x[k];
    }
    return data->hold.n_held ? nsd_rate_hold_alphas(m, data, t) : NSDYN_OK;
}

nsdyn_status nsd_modes_forces(const nsd_model *m, nsd_data *data, double t, const double *y,
                              double *vdot) {
    nsdyn_status st = nsd_modes_eval_contacts(m, data, t, y, 0);
    if (st > NSDYN_WARNING) return st;
    return nsd_modes_solve_current(m, data, t, y, vdot);
}

nsdyn_status nsd_modes_bounds(const nsd_model *m, nsd_data *data, double N, double *bound,
                              double *kinetic) {
    return nsd_friction_bounds(m->friction, data->friction_inst, N, bound, kinetic, data->failure,
                               sizeof data->failure);
}

/* Raw event values (before the offsets) of contact c, from the last solve. */
nsdyn_status nsd_modes_raw_events(const nsd_model *m, nsd_data *data, size_t c, double *g) {
    const nsdyn_contact_eval *e = &data->ce[c];
    const nsd_contact_mode *md = &data->ed.mode[c];
    const double *lam = data->lambda + 3 * c;
    g[0] = g[1] = 1.0;
    if (!e->active) return NSDYN_OK;
    /* an open contact's gap is the step guard's (step_guard.h), compliant
     * or not: the guard also finds a dip through the surface and back
     * within one step, which would otherwise pass through the floor (an
     * open contact carries no force); a closed compliant contact opens
     * where its gap rises through 0 */
    if (is_compliant(m, c)) {
        if (md->closed) g[0] = -e->gap;
    } else if (is_unilateral(m, c) && md->closed)
        g[0] = lam[0];
    if (!tangent_held(m, data, c)) return NSDYN_OK;
    if (md->stick) {
        double bound = 0.0, kinetic = 0.0;
        if (nsd_modes_bounds(m, data, lam[0], &bound, &kinetic) > NSDYN_WARNING) return NSDYN_ERROR;
        g[1] = bound - hypot(lam[1], lam[2]);
    } else if (m->layout.contacts[c].tangent_dim == 1) {
        g[1] = e->u[1] * md->dir[0]; /* 1-D slip stops by changing sign */
    } else {
        /* 2-D slip reaches zero without a sign change (Sigma has
         * codimension 2, and near it the slip direction turns fast, which
         * stalls an error-controlled integrator): the event is the slip
         * speed falling through the rest velocity; the projection removes
         * the rest. A slip that starts from stick starts below it, and the
         * rising crossing does not count (falling events only). */
        g[1] = hypot(e->u[1], e->u[2]) - m->ed.rest_velocity;
    }
    return NSDYN_OK;
}

nsdyn_status nsd_modes_events(const nsd_model *m, nsd_data *data, double t, const double *y,
                              double *g) {
    nsdyn_status st = nsd_modes_forces(m, data, t, y, data->ed.work->acc);
    if (st > NSDYN_WARNING) return st;
    for (size_t c = 0; c < m->nc; ++c) {
        double raw[2];
        if (nsd_modes_raw_events(m, data, c, raw) > NSDYN_WARNING) return NSDYN_ERROR;
        g[2 * c] = raw[0] - data->ed.mode[c].g_ref[0];
        g[2 * c + 1] = raw[1] - data->ed.mode[c].g_ref[1];
    }
    return NSDYN_OK;
}

nsdyn_status nsd_modes_gaps(const nsd_model *m, nsd_data *data, double t, const double *y,
                            double *f, double *df) {
    nsd_model_ask_contacts(m, data, NSD_ROWS_NONE);
    nsdyn_status st = nsd_model_contacts_now(m, data, t, y, y + m->nq);
    if (st > NSDYN_WARNING) return nsd_model_fail(m, data, st, t, "system contacts()");
    if (nsd_model_check_contacts(m, data, t) > NSDYN_WARNING) return NSDYN_ERROR;
    for (size_t c = 0; c < m->nc; ++c) {
        int open = is_unilateral(m, c) && data->ce[c].active && !data->ed.mode[c].closed;
        f[c] = open ? data->ce[c].gap - data->ed.mode[c].g_ref[0] : INFINITY;
        df[c] = data->ce[c].u[0];
    }
    return NSDYN_OK;
}

/* A rebound of speed v under a normal acceleration a rises v^2 / (2 |a|);
 * one that stays inside the touching band (contact_tolerance) never leaves
 * contact in the runner's own terms: it counts as rest. So does one no
 * faster than a rebound the integrator was seen not to resolve. */
double nsd_modes_rest_speed(const nsd_model *m, nsd_data *data, size_t c, double t,
                            double normal_acc) {
    (void)t;
    double band_speed = sqrt(2.0 * fabs(normal_acc) * m->ed.contact_tolerance);
    return fmax(fmax(m->ed.rest_ratio * data->ed.mode[c].v_scale, band_speed),
                data->ed.mode[c].v_unresolved);
}

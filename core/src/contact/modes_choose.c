/* Event-driven modes: the choice of modes at an event (modes_work.h
 * nsd_modes_choose): closed subsets of the touching set, friction resolved
 * inside each trial (stick where the force stays in the cone, else slip),
 * and at a rate event of a rate-discontinuous compliant law the combined
 * choice of that contact's normal force (held at gap_rate = 0, or one
 * side's force) with the friction modes (docs/event-driven.md
 * "Bi-stiffness at rest"). The method is in docs/event-driven.md, the
 * notation in modes_phase.c. */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "affine.h"
#include "modes_phase.h"
#include "nsdyn_numeric.h"
#include "rate_hold.h"
#include "slip_flow.h"

/* Tangential 2x2 (or 1x1) Delassus block of contact c into G[4]. */
void nsd_modes_tangent_block(const nsd_model *m, nsd_data *data, size_t c, double *G) {
    G[0] = nsd_modes_delassus(m, data, c, 1, c, 1);
    G[1] = nsd_modes_delassus(m, data, c, 1, c, 2);
    G[2] = nsd_modes_delassus(m, data, c, 2, c, 1);
    G[3] = nsd_modes_delassus(m, data, c, 2, c, 2);
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
    nsd_modes_tangent_block(m, data, c, G);
    a[0] = -(G[0] * F[0] + G[1] * F[1]);
    a[1] = -(G[2] * F[0] + G[3] * F[1]);
    slip_start sc = {
        .a = a, .G = G, .F = F_kinetic, .phi0 = atan2(d[1], d[0]), .best = -2.0, .d = d};
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
    /* slips the combined choice tries (choose_combined) */
    for (size_t c = 0; c < m->nc; ++c)
        if (w->slip_try[c] && tangent_held(m, data, c)) {
            data->ed.mode[c].stick = 0;
            data->ed.mode[c].dir[0] = (double)w->slip_try[c];
            data->ed.mode[c].dir[1] = 0.0;
        }
    /* rows for every contact: open touching ones are tested too */
    for (size_t c = 0; c < m->nc; ++c) data->jac[c] = data->W + c * 3 * m->nv;
    return resolve_friction(m, data, t, y, leaving) && modes_consistent(m, data, k);
}

/* Closed subsets of the touching set (k contacts in w->set), largest
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
static int choose_friction(const nsd_model *m, nsd_data *data, double t, const double *y, size_t k,
                           int fired) {
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
    return accepted;
}

/* ---- the combined choice with held contacts ----------------------------- */

/* At most this many undecided contacts in the combined choice (3^5 = 243
 * trials of a few small solves each, at an event). */
#define NSD_MAX_UNDECIDED 5

/* The undecided contacts of a combined choice: normal[i] != 0 for a
 * normal force to choose (held, or one side's), else a 1-D friction mode
 * (stick or slip either way). */
typedef struct undecided {
    size_t n, c[NSD_MAX_UNDECIDED];
    int normal[NSD_MAX_UNDECIDED], option0[NSD_MAX_UNDECIDED];
    double u_n[NSD_MAX_UNDECIDED], u_ref0[NSD_MAX_UNDECIDED];
} undecided;

static const int normal_options[3] = {NSD_HOLD_HELD, 1, -1};
static const int slip_options[3] = {0, 1, -1}; /* 0: as friction resolves it */

/* Whether the trial's forces (data->lambda) and accelerations (w->acc)
 * agree with the options of the undecided contacts: a held contact's
 * force strictly inside the law's band (0 < alpha < 1, the hold's own
 * entry test); a side (+1 expansion, -1 compression), its gap rate
 * accelerating into that side (s u_n' >= 0: Filippov, that side's field
 * leaves the surface on its own side); and every 1-D slip slower than
 * rest_velocity accelerating along its direction. A slip against its own
 * acceleration reverses at once: on the old code its event fired again
 * 1e-10 .. 1e-9 s later, 1000 times, until no mode was left (the Section 5
 * rimless wheel at t = 0.6152 s). Tolerance 1e-9 of the largest
 * acceleration, as modes_consistent's. */
static int undecided_consistent(const nsd_model *m, nsd_data *data, const undecided *u,
                                const int *option) {
    nsd_modes_work *w = data->ed.work;
    double tol = 1.0;
    for (size_t i = 0; i < m->nv; ++i) tol = fmax(tol, fabs(w->acc[i]));
    tol *= 1e-9;
    for (size_t i = 0; i < u->n; ++i) {
        size_t c = u->c[i];
        if (!u->normal[i]) continue;
        if (option[i] == NSD_HOLD_HELD) {
            double a = data->hold.alpha[c];
            if (!(a > 0.0 && a < 1.0)) return 0;
        } else if (option[i] * nsd_affine_local_acc(m, data, 3 * c, w->acc) < -tol)
            return 0;
    }
    for (size_t c = 0; c < m->nc; ++c) {
        const nsd_contact_mode *md = &data->ed.mode[c];
        if (!tangent_held(m, data, c) || md->stick || m->layout.contacts[c].tangent_dim != 1 ||
            fabs(data->ce[c].u[1]) > m->ed.rest_velocity)
            continue;
        if (nsd_affine_local_acc(m, data, 3 * c + 1, w->acc) * md->dir[0] < -tol) return 0;
    }
    return 1;
}

/* Trial `code` (base-3 digits, one per undecided contact): the options
 * set, the modes chosen; 1 if they are consistent, options into option. */
static int undecided_trial(const nsd_model *m, nsd_data *data, double t, const double *y, size_t k,
                           int fired, const undecided *u, unsigned code, int *option) {
    nsd_modes_work *w = data->ed.work;
    for (size_t i = 0; i < u->n; ++i, code /= 3) {
        option[i] = (u->normal[i] ? normal_options : slip_options)[code % 3];
        if (u->normal[i])
            nsd_rate_hold_option(&data->hold, u->c[i], option[i], u->u_n[i]);
        else
            w->slip_try[u->c[i]] = (signed char)option[i];
    }
    int ok = choose_friction(m, data, t, y, k, fired);
    for (size_t i = 0; i < u->n; ++i) w->slip_try[u->c[i]] = 0;
    return ok && undecided_consistent(m, data, u, option);
}

/* The undecided contacts at (t, y), contacts evaluated: every held
 * contact, the one whose rate event fired (rc, or nc) and any other on
 * its surface (|u_n| <= at_surface [m/s]: one tip reaching gap_rate = 0
 * just as the other's stick/slip event fires; left to its own rate event
 * the integrator restarts 1e-14 m/s before a jump of the force and its
 * steps collapse), each with its normal force to choose; every
 * penetrating 1-D compliant contact slower than rest_velocity, with its
 * friction mode to choose. 0 if there are more than NSD_MAX_UNDECIDED. */
static int find_undecided(const nsd_model *m, nsd_data *data, size_t rc, double at_surface,
                          undecided *u) {
    const nsd_hold_view *h = &data->hold;
    u->n = 0;
    for (int normal = 1; normal >= 0; --normal)
        for (size_t c = 0; c < m->nc; ++c) {
            const nsdyn_contact_eval *e = &data->ce[c];
            if (!is_compliant(m, c) || !e->active || !(e->gap < 0.0)) continue;
            if (normal
                    ? !h->held[c] && c != rc && !(fabs(e->u[0]) <= at_surface)
                    : m->layout.contacts[c].tangent_dim != 1 || fabs(e->u[1]) > m->ed.rest_velocity)
                continue;
            if (u->n == NSD_MAX_UNDECIDED) return 0;
            u->c[u->n] = c;
            u->normal[u->n] = normal;
            u->option0[u->n] = h->held[c] ? NSD_HOLD_HELD : h->side[c];
            u->u_n[u->n] = e->u[0];
            u->u_ref0[u->n++] = h->u_ref[c];
        }
    return 1;
}

/* The modes at an event with a rate-discontinuous compliant law in play
 * (a contact held at gap_rate = 0, or the rate event of one): the held
 * contacts' normal forces and the friction modes are one problem. The
 * hold's own test (rate_hold.c nsd_rate_hold_event) judged the two sides
 * with the friction modes of before the event, and those change with the
 * normal force: a tip whose stick holds under the compression force
 * leaves the cone under the expansion force or a held one (mu_s N jumps
 * with N), and a slip started against the stick force can accelerate the
 * other way once the held force follows it. So every combination of the
 * undecided contacts' options (find_undecided: held, expansion or
 * compression side; stick or slip either way) is tried with the other
 * modes resolved for it and must be consistent (undecided_consistent). Of
 * the consistent ones, the least norm of the contact forces (the rule of
 * redundant contacts; Filippov's solution where only one is). None, or
 * too many undecided: the choice of before (the hold test's side, the
 * friction resolved). At a rate event off the surface (|u_n| above 1e-9
 * of the acceleration scale: a touch-down that starts the penetration)
 * the hold test's choice stands. Returns 1 with the modes set. */
static int choose_combined(const nsd_model *m, nsd_data *data, double t, const double *y, size_t k,
                           int fired) {
    nsd_modes_work *w = data->ed.work;
    size_t rc = fired <= NSD_FIRED_RATE(0) ? NSD_FIRED_RATE_CONTACT(fired) : m->nc;
    if (rc < m->nc) fired = -1;
    int accepted = choose_friction(m, data, t, y, k, fired);
    double scale = 1.0;
    for (size_t i = 0; accepted && i < m->nv; ++i) scale = fmax(scale, fabs(w->acc[i]));
    undecided u;
    if (rc < m->nc && !(fabs(data->ce[rc].u[0]) <= 1e-9 * scale)) return accepted;
    if (!find_undecided(m, data, rc, 1e-9 * scale, &u)) return accepted;
    int has_normal = 0, option[NSD_MAX_UNDECIDED];
    for (size_t i = 0; i < u.n; ++i) has_normal |= u.normal[i];
    if (!has_normal) return accepted;
    unsigned trials = 1, best_code = 0;
    for (size_t i = 0; i < u.n; ++i) trials *= 3;
    double best = INFINITY;
    for (unsigned code = 0; code < trials; ++code) {
        if (!undecided_trial(m, data, t, y, k, fired, &u, code, option)) continue;
        double norm = 0.0;
        for (size_t j = 0; j < 3 * m->nc; ++j) norm += data->lambda[j] * data->lambda[j];
        if (norm < best) {
            best = norm;
            best_code = code;
        }
    }
    if (best < INFINITY) { /* consistent when tried: the same trial again sets its modes */
        undecided_trial(m, data, t, y, k, fired, &u, best_code, option);
        return 1;
    }
    for (size_t i = 0; i < u.n; ++i)
        if (u.normal[i]) {
            nsd_rate_hold_option(&data->hold, u.c[i], u.option0[i], u.u_n[i]);
            data->hold.u_ref[u.c[i]] = u.u_ref0[i];
        }
    return choose_friction(m, data, t, y, k, fired);
}

int nsd_modes_choose(const nsd_model *m, nsd_data *data, double t, const double *y, size_t k,
                     int fired) {
    if (data->hold.held && m->friction && (data->hold.n_held || fired <= NSD_FIRED_RATE(0)))
        return choose_combined(m, data, t, y, k, fired);
    return choose_friction(m, data, t, y, k, fired <= NSD_FIRED_RATE(0) ? -1 : fired);
}

/* ---- a slip stalled below rest_velocity -------------------------------- */

/* Whether contact c (1-D, compliant, penetrating, slipping) has stalled:
 * slower than rest_velocity v_r, with the current modes chosen at least
 * dt = t - t_resolved ago, no less than v_r / a_scale (the time forces of
 * the motion's scale a_scale [m/s^2], the largest acceleration, take to
 * bring a slip to v_r), and at its present rate of change (u_t' d
 * [m/s^2]) its speed neither reaching zero nor leaving v_r within as long
 * again. A slip that decelerates to a stop ends by its own event (u_t d
 * through 0); one that starts from stick accelerates past v_r. */
static int slip_stalled(const nsd_model *m, nsd_data *data, size_t c, double dt) {
    nsd_modes_work *w = data->ed.work;
    const nsd_contact_mode *md = &data->ed.mode[c];
    double s = data->ce[c].u[1] * md->dir[0], v_r = m->ed.rest_velocity, a_scale = 0.0;
    for (size_t i = 0; i < m->nv; ++i) a_scale = fmax(a_scale, fabs(w->acc[i]));
    if (!(fabs(s) <= v_r) || !(dt * a_scale >= v_r)) return 0;
    double a = nsd_affine_local_acc(m, data, 3 * c + 1, w->acc) * md->dir[0];
    return s + a * dt > 0.0 && s + a * dt < v_r;
}

int nsd_modes_slip_stalled(const nsd_model *m, nsd_data *data, double t, const double *y) {
    nsd_modes_work *w = data->ed.work;
    /* with a contact held at gap_rate = 0 the combined choice decides at
     * every event (choose_combined; its undecided slips include these) */
    if (!m->ed.compliant || !m->friction || data->hold.n_held) return 0;
    int any = 0;
    for (size_t c = 0; c < m->nc && !any; ++c)
        any = is_compliant(m, c) && data->ed.mode[c].closed && data->ed.mode[c].stick == 0 &&
              m->layout.contacts[c].tangent_dim == 1;
    if (!any) return 0;
    /* every row of the contacts: the at-rest test reads their gaps and
     * velocities, the solve below their Jacobians */
    if (nsd_modes_eval_contacts(m, data, t, y, 1) > NSDYN_WARNING) return -1;
    /* only at rest: every penetrating contact slower than rest_velocity,
     * normally and tangentially (a body still rocking on its springs at
     * theta ~ 0 has tangent rows that nearly coincide, and the projection
     * onto a stick there moved the normal velocity 4000 times the slip it
     * removed: the Section 5 wheels of tests/test_bistiffness_tips.c).
     * Tested before the solve: a slipping contact not at rest (every step
     * end of its slip) is ruled out without solving the current modes. */
    for (size_t c = 0; c < m->nc; ++c) {
        const nsdyn_contact_eval *e = &data->ce[c];
        if (is_compliant(m, c) && e->active && e->gap < 0.0 &&
            !(fabs(e->u[0]) <= m->ed.rest_velocity &&
              hypot(e->u[1], e->u[2]) <= m->ed.rest_velocity))
            return 0;
    }
    /* the forces and accelerations of the current modes */
    if (nsd_modes_solve_current(m, data, t, y, w->acc) > NSDYN_WARNING) return -1;
    size_t stalled = m->nc;
    for (size_t c = 0; c < m->nc && stalled == m->nc; ++c)
        if (is_compliant(m, c) && tangent_held(m, data, c) && data->ed.mode[c].stick == 0 &&
            m->layout.contacts[c].tangent_dim == 1 && slip_stalled(m, data, c, t - w->t_resolved))
            stalled = c;
    if (stalled == m->nc) return 0;
    /* trial: the modes chosen afresh (a slip this slow starts in stick);
     * the current modes restored whatever it finds */
    memcpy(w->prev, data->ed.mode, m->nc * sizeof *w->prev);
    int sticks = choose_friction(m, data, t, y, 0, -1) && data->ed.mode[stalled].stick == 1 &&
                 leaving_inside(m, data, stalled);
    memcpy(data->ed.mode, w->prev, m->nc * sizeof *w->prev);
    return sticks;
}

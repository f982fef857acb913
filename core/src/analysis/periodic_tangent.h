/* The linearisation of a run: the variational equations along its smooth
 * phases composed with the saltation matrices of its jumps (issue 27
 * item 4; docs/periodic.md "Variational Jacobian").
 *
 * Installed as the model's run observer (model.h nsd_run_observer), it
 * carries the fundamental matrix Phi (n x n, all states) along one run:
 *
 *  - Smooth phases: Phi' = A(t) Phi with A = df/dy of the model's
 *    right-hand side in the phase's contact and system modes, A by central
 *    differences of the right-hand side (2 n evaluations; the ABI has no
 *    state Jacobian), over each accepted integrator step by the fourth-order
 *    Magnus method with two Gauss points (Iserles & Norsett 1999; Blanes,
 *    Casas, Oteo & Ros, Phys. Rep. 470 (2009), sec. 5):
 *    Phi <- expm(h/2 (A1 + A2) + sqrt(3)/12 h^2 [A2, A1])
 *    Phi, A1, A2 at the Gauss points of the step (states from the
 *    integrator's dense output). expm of a stiff phase's Omega stays
 *    bounded, so stiff compliant contacts need no smaller steps than the
 *    integrator took.
 *
 *  - Jumps (an impact, a system switch with its reset map, a stick/slip
 *    transition, a gap-rate restart) at an event h(t, y) = 0 with jump
 *    y+ = g(t, y-): the saltation matrix (Mueller, Arch. Appl. Mech. 65
 *    (1995); Leine & Nijmeijer, Dynamics and Bifurcations of Non-Smooth
 *    Mechanical Systems (2004) ch. 3; di Bernardo et al., Piecewise-smooth
 *    Dynamical Systems (2008) ch. 2)
 *        S = G + (f+ - G f- - g_t) grad(h)^T / (h_t + grad(h) . f-)
 *    with G = dg/dy and g_t by central differences of the jump, f- before
 *    it (old modes), f+ after it (new modes), grad(h) and h_t by central
 *    differences of the event function in the old modes. At the section
 *    (model.h section_switch) the map ends at the perturbed crossing, so
 *    the f+ term drops out there: S = G - (G f- + g_t) grad(h)^T / h', the
 *    projection onto the section. The jump g is
 *    the system's switch_map (system.h, ABI 2.3) at a switch, the contact
 *    law's own impulse at one approaching rigid contact
 *    (v+ = v- + M^-1 W^T P, P from the law's impulse at one contact,
 *    plugin_calls.h), the runner's velocity projection onto the new modes'
 *    constraints at a stick/slip event (modes.h nsd_modes_project,
 *    reproduced and differenced once the modes are chosen), identity
 *    otherwise; at every jump the runner's own state after it must equal
 *    g(y-) to 1e-8 (scaled), or the run fails and says why (several
 *    events at one instant, an accumulation of impacts, a reset the system
 *    does not expose): never a silently wrong Phi.
 *
 * What it does not cover, refused rather than approximated: integrators
 * that do not locate events (the runner refuses the observer), drift
 * corrections of sustained rigid contacts (the caller checks the run's
 * drift_corrections), an event crossed tangentially (|h_t + grad h . f-|
 * below 1e-12 of its scale: the saltation matrix is unbounded there). */
#ifndef NSD_PERIODIC_TANGENT_H
#define NSD_PERIODIC_TANGENT_H

#include <stddef.h>

#include "model.h"

typedef struct nsd_tangent nsd_tangent;

/* For model m (its n states) and the data d of the runs it observes
 * (their observer, set by nsd_tangent_begin); scale: n typical magnitudes of the states
 * (difference steps relative to max(|y_i|, scale_i)), or NULL for 1;
 * substeps: Magnus steps per integrator step (>= 1). NULL when out of
 * memory. */
nsd_tangent *nsd_tangent_new(const nsd_model *m, nsd_data *d, const double *scale, int substeps);
void nsd_tangent_free(nsd_tangent *tg);

/* Magnus steps per integrator step from now on (>= 1). */
void nsd_tangent_set_substeps(nsd_tangent *tg, int substeps);

/* Phi = I and tg installed as d's observer; nsd_tangent_end removes it. */
void nsd_tangent_begin(nsd_tangent *tg);
void nsd_tangent_end(nsd_tangent *tg);

/* Phi (n x n row-major) after the run: d y(t_end) / d y(t_start). */
const double *nsd_tangent_matrix(const nsd_tangent *tg);
/* Right-hand sides and event functions evaluated for Phi since new(). */
unsigned long long nsd_tangent_rhs_evals(const nsd_tangent *tg);
/* Jumps composed since new(). */
size_t nsd_tangent_jumps(const nsd_tangent *tg);
/* Entries of the rhs Jacobian that straddled a non-smooth point at every
 * step and were taken one-sided (periodic_tangent.c jacobian()). */
unsigned long long nsd_tangent_one_sided(const nsd_tangent *tg);

#endif

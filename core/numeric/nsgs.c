/* The non-smooth (block) Gauss-Seidel driver (nsdyn_numeric.h): Moreau
 * 1994, "Some numerical methods in multibody dynamics: application to
 * granular materials", Eur. J. Mech. A 13:93-114; M. Jean, "The non-smooth
 * contact dynamics method", CMAME 177 (1999) 235-257. Sweep over the
 * contacts and solve each one-contact problem exactly (the caller's
 * callback) with the others' impulses frozen. The stopping rule is the
 * caller's (check): the moreau integrator measures a sweep by the change
 * of the local velocities, the impact laws by the change of the impulses
 * and watch them for divergence. */
#include <math.h>
#include <string.h>

#include "nsdyn_numeric.h"

/* A_c and b_c = q_c + sum_{e != c} D_ce P_e of contact c (3 rows). */
static void nsgs_block(const nsn_nsgs_problem *p, const double *P, size_t c, double A[9],
                          double b[3]) {
    const size_t m = p->m, n3 = 3 * m;
    for (int i = 0; i < 3; ++i) {
        const double *row = p->D + (3 * c + (size_t)i) * n3;
        double s = p->q[3 * c + (size_t)i];
        for (size_t e = 0; e < m; ++e) {
            if (e == c) continue;
            s += row[3 * e] * P[3 * e] + row[3 * e + 1] * P[3 * e + 1] +
                 row[3 * e + 2] * P[3 * e + 2];
        }
        b[i] = s;
        A[3 * i + 0] = row[3 * c + 0];
        A[3 * i + 1] = row[3 * c + 1];
        A[3 * i + 2] = row[3 * c + 2];
    }
}

/* Account for contact c's update old -> r in the sweep's record. The
 * impulse change and size skip a contact whose solve failed. */
static void record(const nsn_nsgs_problem *p, size_t c, const double A[9], const double old[3],
                   const double r[3], int failed, double *worst2, nsn_sweep *s) {
    double d2 = 0.0;
    for (int i = 0; i < 3; ++i) {
        const double dv = A[3 * i] * (r[0] - old[0]) + A[3 * i + 1] * (r[1] - old[1]) +
                          A[3 * i + 2] * (r[2] - old[2]);
        d2 += dv * dv;
    }
    if (d2 > *worst2) {
        *worst2 = d2;
        s->worst = c;
    }
    s->change2 += d2;
    s->moved |= old[0] != r[0] || old[1] != r[1] || old[2] != r[2];
    if (failed) return;
    const int dim2 = p->tdim == NULL || p->tdim[c] == 2;
    const double gd = fmax(A[0], fmax(A[4], dim2 ? A[8] : 0.0));
    for (int k = 0; k < 3; ++k) {
        s->change = fmax(s->change, gd * fabs(r[k] - old[k]));
        s->size = fmax(s->size, gd * fabs(r[k]));
    }
}

int nsn_nsgs(const nsn_nsgs_problem *p, double *P, double omega, int max_sweeps,
             nsn_sweep_check_fn check, void *check_ctx, int *sweeps) {
    for (int it = 0; it < max_sweeps; ++it) {
        nsn_sweep s;
        memset(&s, 0, sizeof s);
        double worst2 = -1.0;
        for (size_t c = 0; c < p->m; ++c) {
            double A[9], b[3], *Pc = P + 3 * c;
            nsgs_block(p, P, c, A, b);
            const double old[3] = {Pc[0], Pc[1], Pc[2]};
            double r[3] = {Pc[0], Pc[1], Pc[2]};
            const int bad = p->local(p->ctx, c, A, b, r) != 0;
            if (bad) s.failed = (int)c + 1;
            record(p, c, A, old, r, bad, &worst2, &s);
            if (omega < 1.0)
                for (int k = 0; k < 3; ++k) r[k] = old[k] + omega * (r[k] - old[k]);
            memcpy(Pc, r, sizeof r);
        }
        s.sweep = ++*sweeps;
        const int verdict = check(check_ctx, &s, P);
        if (verdict != 0) return verdict;
    }
    return 0;
}

#define _DEFAULT_SOURCE
#include "limit_directions.h"

#include <math.h>
#include <string.h>

#include "nsdyn_numeric.h"
#include "plugin_calls.h"
#include "slip_flow.h"

double nsd_limit_R(const nsd_limit_analysis *la, double phi) {
    return nsd_slip_flow_R(la->a, la->G, la->F_kinetic, phi);
}

double nsd_limit_V(const nsd_limit_analysis *la, double phi) {
    return nsd_slip_flow_V(la->a, la->G, la->F_kinetic, phi);
}

static double limit_V(void *ctx, double phi) { return nsd_limit_V(ctx, phi); }

/* A root of V: a limit direction, unless it repeats one (a zero on a grid
 * point is reported by both intervals next to it). Stops the scan when the
 * table is full. */
static int add_direction(void *ctx, double root) {
    nsd_limit_analysis *out = ctx;
    root = fmod(root, 2.0 * NSDYN_PI);
    for (size_t k = 0; k < out->n_dirs; ++k) {
        double gap = fabs(out->dirs[k].phi - root);
        if (gap < 1e-9 || 2.0 * NSDYN_PI - gap < 1e-9) return 0;
    }
    nsd_limit_dir *d = &out->dirs[out->n_dirs++];
    d->phi = root;
    d->R = nsd_limit_R(out, d->phi);
    d->attracting = d->R < 0;
    return out->n_dirs >= NSD_MAX_LIMIT_DIRS;
}

int nsd_limit_analyse(const nsd_model *m, nsd_data *data, double t, const double *y,
                      nsd_limit_analysis *out, char *err, size_t err_len) {
    memset(out, 0, sizeof *out);
    size_t c = m->nc, first = 0;
    for (size_t i = 0, k = 0; i < m->nc; ++i) {
        const nsdyn_contact_decl *d = &m->layout.contacts[i];
        if (d->type == NSDYN_CONTACT_PERSISTENT && d->tangent_dim == 2 && c == m->nc) {
            c = i;
            first = k;
        }
        if (d->type == NSDYN_CONTACT_PERSISTENT) k += d->tangent_dim;
    }
    if (c == m->nc) {
        snprintf(err, err_len, "system '%s' has no persistent contact with 2-D slip",
                 m->sys->info.id);
        return -1;
    }
    if (!m->friction) {
        snprintf(err, err_len, "limit directions need a friction law");
        return -1;
    }
    if (nsd_model_tangent_response(m, data, t, y) > NSDYN_WARNING) {
        snprintf(err, err_len, "%s", data->failure);
        return -1;
    }
    const nsdyn_contact_eval *e = &data->ce[c];
    if (hypot(e->u[1], e->u[2]) > 1e-12) {
        snprintf(err, err_len,
                 "the state is not on Sigma: contact '%s' slips at (%g, %g) m/s; set its "
                 "tangential velocities to zero",
                 m->layout.contacts[c].name, e->u[1], e->u[2]);
        return -1;
    }
    out->contact = c;
    size_t ms = m->stick.m;
    out->a[0] = data->stick.rhs[first];
    out->a[1] = data->stick.rhs[first + 1];
    out->G[0] = data->stick.G[first * ms + first];
    out->G[1] = data->stick.G[first * ms + first + 1];
    out->G[2] = data->stick.G[(first + 1) * ms + first];
    out->G[3] = data->stick.G[(first + 1) * ms + first + 1];
    if (nsd_friction_bounds(m->friction, data->friction_inst, e->normal_load, &out->F_static,
                            &out->F_kinetic, err, err_len) > NSDYN_WARNING)
        return -1;

    /* Stick force: G F = -a. */
    double A[4] = {out->G[0], out->G[1], out->G[2], out->G[3]}, b[2] = {-out->a[0], -out->a[1]};
    if (nsd_solve_small(A, b, 2) == 0) {
        out->stick_force[0] = b[0];
        out->stick_force[1] = b[1];
        double mag = hypot(b[0], b[1]);
        out->stick_ratio = out->F_static > 0 ? mag / out->F_static : INFINITY;
        out->rolling_by_force = mag <= out->F_static;
    }
    /* Roots of V on a fine grid, refined by bisection to machine level. */
    nsn_angle_roots(limit_V, out, 0.0, 2.0 * NSDYN_PI, 7200, 1, 80, 0.0, add_direction, out);
    out->rolling_by_directions = out->n_dirs > 0;
    for (size_t i = 0; i < out->n_dirs; ++i)
        if (!out->dirs[i].attracting) out->rolling_by_directions = 0;
    return 0;
}

int nsd_limit_switch_check(const nsd_model *m, nsd_data *data, double t, const double *y,
                           size_t contact) {
    (void)contact; /* the analysis takes the first persistent 2-D contact */
    nsd_limit_analysis la;
    char err[256];
    if (nsd_limit_analyse(m, data, t, y, &la, err, sizeof err) != 0) return -1;
    return la.rolling_by_force == la.rolling_by_directions;
}

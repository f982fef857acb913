/* mjcf: a picture of the model, its geoms projected on the world x-z
 * plane (the drawing plane of nsdyn's strobe pictures): planes as lines,
 * spheres and capsules as circles and outlines, boxes as their 12 edges.
 * Other shapes are drawn as their centre. */
#include <stddef.h>
#include <stdlib.h>

#include "mjcf.h"

static void box_edges(const mjData *d, const double *size, int g, const nsdyn_canvas *cv) {
    const double *xm = d->geom_xmat + 9 * g, *xp = d->geom_xpos + 3 * g;
    double cx[8], cz[8];
    for (int e = 0; e < 8; ++e) {
        double l[3];
        for (int i = 0; i < 3; ++i) l[i] = (e >> i & 1) ? size[i] : -size[i];
        cx[e] = xp[0] + xm[0] * l[0] + xm[1] * l[1] + xm[2] * l[2];
        cz[e] = xp[2] + xm[6] * l[0] + xm[7] * l[1] + xm[8] * l[2];
    }
    for (int a = 0; a < 8; ++a)
        for (int i = 0; i < 3; ++i) {
            int b = a | 1 << i;
            if (b != a) cv->line(cv->ctx, cx[a], cz[a], cx[b], cz[b]);
        }
}

nsdyn_status mjcf_draw(void *inst, double t, const double *q, const nsdyn_canvas *cv) {
    (void)t;
    mjcf_inst *s = inst;
    mjcf_sync(s, q, NULL, 0);
    const mjModel *m = s->m;
    const mjData *d = s->d;
    for (int g = 0; g < m->ngeom; ++g) {
        const double *xp = d->geom_xpos + 3 * g, *xm = d->geom_xmat + 9 * g;
        const double *size = m->geom_size + 3 * g;
        switch (m->geom_type[g]) {
            case mjGEOM_PLANE: {
                /* the plane's trace in the x-z plane (direction n x y), as
                 * long as its MJCF size (rendering only: planes are
                 * infinite), 1 m if that is 0 */
                double dx = xm[8], dz = -xm[2], half = size[0] > 0 ? size[0] : 1.0;
                if (cv->pen) cv->pen(cv->ctx, NSDYN_PEN_GROUND);
                cv->line(cv->ctx, xp[0] - half * dx, xp[2] - half * dz, xp[0] + half * dx,
                         xp[2] + half * dz);
                break;
            }
            case mjGEOM_SPHERE:
                if (cv->pen) cv->pen(cv->ctx, NSDYN_PEN_STRUCTURE);
                cv->circle(cv->ctx, xp[0], xp[2], size[0]);
                break;
            case mjGEOM_CAPSULE: {
                double ax = xm[2] * size[1], az = xm[8] * size[1];
                if (cv->pen) cv->pen(cv->ctx, NSDYN_PEN_STRUCTURE);
                cv->circle(cv->ctx, xp[0] - ax, xp[2] - az, size[0]);
                cv->circle(cv->ctx, xp[0] + ax, xp[2] + az, size[0]);
                cv->line(cv->ctx, xp[0] - ax, xp[2] - az, xp[0] + ax, xp[2] + az);
                break;
            }
            case mjGEOM_BOX:
                if (cv->pen) cv->pen(cv->ctx, NSDYN_PEN_STRUCTURE);
                box_edges(d, size, g, cv);
                break;
            default:
                if (cv->pen) cv->pen(cv->ctx, NSDYN_PEN_STRUCTURE);
                cv->circle(cv->ctx, xp[0], xp[2], 0.01);
                break;
        }
    }
    /* the terrain profile: its vertices, and its end segments drawn as
     * long as the segment next to them (they extend indefinitely) */
    const mjcf_terrain *T = &s->terrain;
    if (T->n_vert && cv->pen) cv->pen(cv->ctx, NSDYN_PEN_GROUND);
    for (size_t i = 0; i + 1 < T->n_vert; ++i) {
        double x0 = T->x[i], z0 = T->z[i], x1 = T->x[i + 1], z1 = T->z[i + 1];
        if (i == 0) x0 -= T->len[0] * T->t[0], z0 -= T->len[0] * T->t[1];
        if (i + 2 == T->n_vert) x1 += T->len[i] * T->t[2 * i], z1 += T->len[i] * T->t[2 * i + 1];
        cv->line(cv->ctx, x0, z0, x1, z1);
    }
    if (cv->pen) cv->pen(cv->ctx, NSDYN_PEN_HIGHLIGHT);
    for (int k = 0; k < m->nsite; ++k)
        cv->circle(cv->ctx, d->site_xpos[3 * k], d->site_xpos[3 * k + 2], 0.01);
    return NSDYN_OK;
}

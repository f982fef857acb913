/* mjcf: contacts against a terrain profile (keys `profile_x`, `profile_z`):
 * a polyline of vertices P_0..P_n in the world x-z plane, extruded along
 * y, the first and last segments extended indefinitely (as sphere_planes'
 * terrain = "profile", plugins/systems/sphere_planes_terrain.c, whose
 * geometry this follows). Each contact feature (a point, or a sphere of
 * centre C and radius r) gets one candidate per segment i (from P_i to
 * P_{i+1}, unit tangent t_i, normal n_i = y x t_i out of the ground):
 *   face   the foot point s = t_i.(C - P_i) inside the segment: gap
 *          g = n_i.(C - P_i) - r, local frame (nu, t1, t2) = (n_i, t_i, y);
 *   end    s beyond an end vertex E (a line along y): d = (C - E) in x-z,
 *          gap = sg |d| - r, nu = sg d/|d|, t1 = y x nu... = (nu_z, 0, -nu_x),
 *          t2 = y, sg = +1 with C on the air side of the segment's plane,
 *          -1 behind it (only in the ground, never in a valid state). g is
 *          C1 across face/end (there d = h n_i).
 * The Jacobian rows are W = R J_p(X) at X = C - r nu, MuJoCo's exact mj_jac
 * (mjcf_contacts.c). At an end the frame turns with C: nu' = phi' t1,
 * t1' = -phi' nu, phi' = kappa (t1.v_C), kappa = sg/|d|, so the drift
 * gains R' v_X + R (omega x (X - C))' = phi' (t1.v_X, -nu.v_X, 0)
 * - r phi' R (omega x t1) over the plane's (mjcf_contacts.c drift()).
 *
 * Convex vertices (the terrain turns down or goes straight on, the turn
 * at most 90 degrees either way: refused beyond) are shared: in the wedge
 * between the two face normals both segments clamp to the same vertex E
 * and would carry the same contact twice. As in sphere_planes, one of
 * them owns E per feature, a discrete mode; the other is off (`active`
 * cleared) while it clamps to E. The owner changes at a system switch
 * "own_FEATURE_vK" (both directions): m.(C - E) crossing 0, m the unit
 * bisector of t_A and t_B, that is where C crosses the ray bisecting the
 * wedge (in the air; its other half is in the ground). There both
 * candidates clamp to E with the same gap, frame, velocity and drift, so
 * the force moves from one to the other without a jump, and the runner
 * re-resolves the contact modes at the switch with the new candidate.
 * Before the first switch of a run the owner follows the side of C
 * (which cannot change without a switch). Concave vertices need nothing:
 * near them in the air each face's foot point lies inside its face. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mjcf.h"

int mjcf_terrain_build(mjcf_inst *s, const nsdyn_value *px, const nsdyn_value *pz, char *err,
                       size_t err_len) {
    mjcf_terrain *T = &s->terrain;
    if (!px->len && !pz->len) return 0;
    if (px->len != pz->len || px->len < 2) {
        snprintf(err, err_len,
                 "keys 'profile_x', 'profile_z': expected two arrays of the same length >= 2 (the "
                 "vertices [m]), found %zu and %zu",
                 px->len, pz->len);
        return -1;
    }
    size_t n = px->len;
    T->n_vert = n;
    T->x = calloc(n, sizeof *T->x);
    T->z = calloc(n, sizeof *T->z);
    T->t = calloc(2 * (n - 1), sizeof *T->t);
    T->len = calloc(n - 1, sizeof *T->len);
    T->convex = calloc(n, sizeof *T->convex);
    if (!T->x || !T->z || !T->t || !T->len || !T->convex) abort();
    for (size_t i = 0; i < n; ++i) {
        T->x[i] = px->arr[i];
        T->z[i] = pz->arr[i];
    }
    for (size_t i = 0; i + 1 < n; ++i) {
        double dx = T->x[i + 1] - T->x[i], dz = T->z[i + 1] - T->z[i];
        T->len[i] = hypot(dx, dz);
        if (!(dx > 0) || !isfinite(T->len[i])) {
            snprintf(err, err_len,
                     "key 'profile_x': vertex %zu at x = %g m does not lie beyond vertex %zu at "
                     "x = %g m (the profile is a graph over x, x strictly increasing)",
                     i + 1, T->x[i + 1], i, T->x[i]);
            return -1;
        }
        T->t[2 * i] = dx / T->len[i];
        T->t[2 * i + 1] = dz / T->len[i];
    }
    for (size_t k = 1; k + 1 < n; ++k) {
        const double *a = T->t + 2 * (k - 1), *b = T->t + 2 * k;
        double turn = atan2(a[0] * b[1] - a[1] * b[0], a[0] * b[0] + a[1] * b[1]);
        T->convex[k] = turn <= 0.0; /* down or straight on */
        if (!(fabs(turn) < 0.5 * M_PI)) {
            snprintf(err, err_len,
                     "keys 'profile_x', 'profile_z': the profile turns by %g deg at vertex %zu; "
                     "turns of 90 degrees or more are not supported (a face would be seen from "
                     "behind)",
                     turn * 180.0 / M_PI, k);
            return -1;
        }
    }
    return 0;
}

void mjcf_terrain_free(mjcf_terrain *T) {
    free(T->x);
    free(T->z);
    free(T->t);
    free(T->len);
    free(T->convex);
    free(T->owner);
    free(T->sw_feature);
    free(T->sw_vertex);
    free(T->sw_names);
    free(T->sw_name_ptr);
}

/* Where the foot point of C on segment i lies: 0 inside, 1 clamped to
 * its start vertex, 2 to its end vertex. */
static int clamp_of(const mjcf_terrain *T, size_t i, const double *c) {
    const double *t = T->t + 2 * i;
    double s = t[0] * (c[0] - T->x[i]) + t[1] * (c[2] - T->z[i]);
    if (i > 0 && s < 0) return 1;
    if (i + 2 < T->n_vert && s > T->len[i]) return 2;
    return 0;
}

/* m.(C - E) at convex vertex k: > 0 on the side of the segment after it. */
static double bisector_side(const mjcf_terrain *T, size_t k, const double *c) {
    const double *a = T->t + 2 * (k - 1), *b = T->t + 2 * k;
    double mx = a[0] + b[0], mz = a[1] + b[1], mn = hypot(mx, mz);
    return (mx * (c[0] - T->x[k]) + mz * (c[2] - T->z[k])) / mn;
}

void mjcf_terrain_geometry(const mjcf_inst *s, const mjcf_candidate *k, mjcf_geo *g) {
    const mjcf_terrain *T = &s->terrain;
    size_t i = (size_t)k->segment;
    const double *t = T->t + 2 * i;
    double nx = -t[1], nz = t[0];
    int cl = clamp_of(T, i, g->c);
    double h = nx * (g->c[0] - T->x[i]) + nz * (g->c[2] - T->z[i]);
    double nu[2] = {nx, nz};
    g->kappa = 0.0;
    g->gap = h - k->radius_m;
    g->clamped = cl;
    if (cl) {
        size_t e = cl == 1 ? i : i + 1;
        double dx = g->c[0] - T->x[e], dz = g->c[2] - T->z[e], dist = hypot(dx, dz);
        double sg = h >= 0 ? 1.0 : -1.0;
        if (dist > 0) {
            nu[0] = sg * dx / dist;
            nu[1] = sg * dz / dist;
            g->gap = sg * dist - k->radius_m;
            g->kappa = sg / dist;
        }
    }
    double R[3][3] = {{nu[0], 0, nu[1]}, {nu[1], 0, -nu[0]}, {0, 1, 0}};
    memcpy(g->r, R, sizeof R);
    for (int a = 0; a < 3; ++a) g->x[a] = g->c[a] - k->radius_m * g->r[0][a];
}

/* Is the owner of vertex v for feature f the segment after it? */
static int owner_after(const mjcf_inst *s, int f, size_t v, const double *c) {
    const mjcf_terrain *T = &s->terrain;
    int o = T->owner[(size_t)f * T->n_vert + v];
    return o >= 0 ? o : bisector_side(T, v, c) >= 0;
}

int mjcf_terrain_active(const mjcf_inst *s, const mjcf_candidate *k, const mjcf_geo *g) {
    const mjcf_terrain *T = &s->terrain;
    size_t i = (size_t)k->segment;
    if (g->clamped == 1 && T->convex[i]) return owner_after(s, k->feat_index, i, g->c);
    if (g->clamped == 2 && T->convex[i + 1]) return !owner_after(s, k->feat_index, i + 1, g->c);
    return 1;
}

int mjcf_terrain_switches_build(mjcf_inst *s, int n_features, const char (*feature_names)[64]) {
    mjcf_terrain *T = &s->terrain;
    if (!T->n_vert) return 0;
    size_t n = 0;
    for (size_t v = 1; v + 1 < T->n_vert; ++v) n += T->convex[v] != 0;
    n *= (size_t)n_features;
    T->owner = malloc((size_t)n_features * T->n_vert * sizeof *T->owner);
    T->sw_feature = calloc(n + 1, sizeof *T->sw_feature);
    T->sw_vertex = calloc(n + 1, sizeof *T->sw_vertex);
    T->sw_names = calloc(n + 1, sizeof *T->sw_names);
    T->sw_name_ptr = calloc(n + 1, sizeof *T->sw_name_ptr);
    if (!T->owner || !T->sw_feature || !T->sw_vertex || !T->sw_names || !T->sw_name_ptr) abort();
    T->n_features = n_features;
    size_t k = 0;
    for (int f = 0; f < n_features; ++f)
        for (size_t v = 1; v + 1 < T->n_vert; ++v) {
            if (!T->convex[v]) continue;
            T->sw_feature[k] = f;
            T->sw_vertex[k] = v;
            snprintf(T->sw_names[k], sizeof T->sw_names[k], "own_%.30s_v%zu", feature_names[f], v);
            T->sw_name_ptr[k] = T->sw_names[k];
            ++k;
        }
    T->n_sw = n;
    mjcf_terrain_reset(s);
    return 0;
}

void mjcf_terrain_reset(mjcf_inst *s) {
    mjcf_terrain *T = &s->terrain;
    for (size_t i = 0; T->owner && i < (size_t)T->n_features * T->n_vert; ++i) T->owner[i] = -1;
}

/* The centre of feature f (its first candidate) at the positions mjData
 * holds. */
static void feature_centre(const mjcf_inst *s, int f, double *c) {
    for (size_t j = 0; j < s->nc; ++j)
        if (s->cand[j].feat_index == f) {
            mjcf_candidate_centre(s, &s->cand[j], c);
            return;
        }
}

nsdyn_status mjcf_terrain_switches(mjcf_inst *s, const double *q, double *g) {
    const mjcf_terrain *T = &s->terrain;
    if (!T->n_sw) return NSDYN_OK;
    mjcf_sync(s, q, NULL, 0);
    for (size_t k = 0; k < T->n_sw; ++k) {
        double c[3];
        feature_centre(s, T->sw_feature[k], c);
        g[k] = bisector_side(T, T->sw_vertex[k], c);
    }
    return NSDYN_OK;
}

/* Switch k fired: the owner is the segment C moves towards (v_C from
 * MuJoCo's data at (q, v)). */
nsdyn_status mjcf_terrain_handover(mjcf_inst *s, size_t k, const double *q, const double *v) {
    mjcf_terrain *T = &s->terrain;
    if (k >= T->n_sw) return NSDYN_ERROR;
    int f = T->sw_feature[k];
    size_t vx = T->sw_vertex[k];
    double c[3], vc[3];
    mjcf_sync(s, q, v, 1);
    feature_centre(s, f, c);
    for (size_t j = 0; j < s->nc; ++j)
        if (s->cand[j].feat_index == f) {
            mjcf_candidate_velocity(s, &s->cand[j], c, vc);
            break;
        }
    const double *a = T->t + 2 * (vx - 1), *b = T->t + 2 * vx;
    double rate = (a[0] + b[0]) * vc[0] + (a[1] + b[1]) * vc[2];
    T->owner[(size_t)f * T->n_vert + vx] = rate >= 0;
    return NSDYN_OK;
}

/* mjcf: contact candidates of a MuJoCo model against its plane geoms.
 *
 * A candidate is a point X of a body against a plane of the world body
 * (MuJoCo planes are infinite): a site or a box corner (X fixed to the
 * body), or a sphere (a sphere geom, a capsule end) of centre C and radius
 * r, whose contact point X = C - r n moves over the sphere. The plane's
 * frame gives the local axes: n its z axis, t1 its x axis, t2 its y axis
 * (R = [n; t1; t2], constant). Then
 *   gap    g = n.(C - P0) - r                       [m]
 *   u      = R v_X,  v_X = Jp(X) v                   (MuJoCo's mj_jac at X)
 *   W      = R Jp(X)                                 (exact, 3 x nv)
 *   drift  = R (a_C + alpha x (X - C))  at v' = 0    (derived below)
 * For a body-fixed point C with the body's spatial velocity (omega, v_O)
 * and spatial acceleration (alpha, a_O), both at MuJoCo's com-based
 * reference point O (mjData.subtree_com of the body's root), the classical
 * acceleration is a_C = a_O + alpha x (C - O) + omega x v_C, with v_C = v_O +
 * omega x (C - O) (Featherstone, Rigid Body Dynamics Algorithms, eq. 2.43).
 * The part of (alpha, a_O) that does not depend on v' is the bias
 * acceleration sum over the chain of cdof_dot v (mjData.cdof_dot), the
 * recursion MuJoCo's own mj_rne runs with qacc = 0 and no gravity. For a
 * sphere, n and r are constant, so u' = R (a_C + omega' x (X - C)): no
 * centripetal term of the moving contact point (rolling). For a site the
 * same formula holds with X = C. docs/mjcf.md has the derivation and
 * tests/test_mjcf.c checks it against central differences of u. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mjcf.h"

typedef mjcf_geo geo;

static void cross3(double *out, const double *a, const double *b) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static double dot3(const double *a, const double *b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Centre C, contact point X, frame R and gap of candidate k at the
 * positions mjData holds: against a plane here, against a terrain
 * segment in mjcf_terrain.c. */
static void geometry(const mjcf_inst *s, const mjcf_candidate *k, geo *g) {
    mjcf_candidate_centre(s, k, g->c);
    if (k->segment >= 0) {
        mjcf_terrain_geometry(s, k, g);
        return;
    }
    const mjData *d = s->d;
    const double *pm = d->geom_xmat + 9 * k->plane, *p0 = d->geom_xpos + 3 * k->plane;
    for (int i = 0; i < 3; ++i) {
        g->r[0][i] = pm[3 * i + 2]; /* z column: normal */
        g->r[1][i] = pm[3 * i + 0]; /* x column: t1 */
        g->r[2][i] = pm[3 * i + 1]; /* y column: t2 */
    }
    double rel[3] = {g->c[0] - p0[0], g->c[1] - p0[1], g->c[2] - p0[2]};
    g->gap = dot3(g->r[0], rel) - k->radius_m;
    g->kappa = 0.0;
    g->clamped = 0;
    for (int i = 0; i < 3; ++i) g->x[i] = g->c[i] - k->radius_m * g->r[0][i];
}

/* The bodies' spatial accelerations at v' = 0 (see the head comment). */
static void bias_accelerations(mjcf_inst *s) {
    const mjModel *m = s->m;
    const mjData *d = s->d;
    memset(s->cacc_bias, 0, 6 * sizeof(double));
    for (int b = 1; b < m->nbody; ++b) {
        double *acc = s->cacc_bias + 6 * b;
        memcpy(acc, s->cacc_bias + 6 * m->body_parentid[b], 6 * sizeof(double));
        for (int k = 0; k < m->body_dofnum[b]; ++k) {
            int dof = m->body_dofadr[b] + k;
            for (int i = 0; i < 6; ++i) acc[i] += d->cdof_dot[6 * dof + i] * d->qvel[dof];
        }
    }
    s->valid_bias = 1;
}

/* Local drift R (a_C + alpha x (X - C)) of candidate k. */
static void drift(const mjcf_inst *s, const mjcf_candidate *k, const geo *g, double *out) {
    const mjModel *m = s->m;
    const double *o = s->d->subtree_com + 3 * m->body_rootid[k->body];
    const double *w = s->d->cvel + 6 * k->body, *vo = w + 3;
    const double *al = s->cacc_bias + 6 * k->body, *ao = al + 3;
    double rc[3] = {g->c[0] - o[0], g->c[1] - o[1], g->c[2] - o[2]}, t[3], vc[3], a[3];
    cross3(t, w, rc);
    for (int i = 0; i < 3; ++i) vc[i] = vo[i] + t[i];
    cross3(a, al, rc);
    cross3(t, w, vc);
    for (int i = 0; i < 3; ++i) a[i] += ao[i] + t[i];
    double xc[3] = {g->x[0] - g->c[0], g->x[1] - g->c[1], g->x[2] - g->c[2]};
    cross3(t, al, xc);
    for (int i = 0; i < 3; ++i) a[i] += t[i];
    for (int r = 0; r < 3; ++r) out[r] = dot3(g->r[r], a);
    if (g->kappa == 0.0) return;
    /* a frame turning about a terrain vertex (mjcf_terrain.c): R' v_X and
     * R (omega x (X - C))' with (X - C)' = -r phi' t1 */
    double vx[3], wt[3], phi;
    cross3(t, w, xc);
    for (int i = 0; i < 3; ++i) vx[i] = vc[i] + t[i];
    phi = g->kappa * dot3(g->r[1], vc);
    out[0] += phi * dot3(g->r[1], vx);
    out[1] -= phi * dot3(g->r[0], vx);
    cross3(wt, w, g->r[1]);
    for (int r = 0; r < 3; ++r) out[r] -= k->radius_m * phi * dot3(g->r[r], wt);
}

nsdyn_status mjcf_contacts(void *inst, double t, const double *q, const double *v,
                           const nsdyn_contact_request *request, nsdyn_contact_eval *out) {
    (void)t;
    mjcf_inst *s = inst;
    mjcf_sync(s, q, v, 1);
    size_t nv = s->nv;
    for (size_t c = 0; c < s->nc; ++c) {
        const mjcf_candidate *k = &s->cand[c];
        geo g;
        geometry(s, k, &g);
        out[c].gap = g.gap;
        if (s->armed && !s->armed[c]) out[c].active = 0; /* disarmed (mjcf_arming.c) */
        if (k->segment >= 0 && !mjcf_terrain_active(s, k, &g)) out[c].active = 0;
        mj_jac(s->m, s->d, s->jacp, s->jacr, g.x, k->body);
        double *jac = nsdyn_contact_jacobian(request, c);
        for (int r = 0; r < 3; ++r) {
            double u = 0;
            for (size_t j = 0; j < nv; ++j) {
                double wj = g.r[r][0] * s->jacp[j] + g.r[r][1] * s->jacp[nv + j] +
                            g.r[r][2] * s->jacp[2 * nv + j];
                u += wj * v[j];
                if (jac) jac[r * nv + j] = wj;
            }
            out[c].u[r] = u;
        }
        if (jac) {
            if (!s->valid_bias) bias_accelerations(s);
            drift(s, k, &g, out[c].drift);
        }
        if (request && request->want_geometry) {
            memcpy(out[c].point, g.x, sizeof g.x);
            memcpy(out[c].normal, g.r[0], sizeof out[c].normal);
        }
    }
    return NSDYN_OK;
}

void mjcf_gaps(mjcf_inst *s, const double *q, double *gap) {
    mjcf_sync(s, q, NULL, 0);
    for (size_t c = 0; c < s->nc; ++c) {
        geo g;
        geometry(s, &s->cand[c], &g);
        gap[c] = g.gap;
    }
}

int mjcf_check_planar(mjcf_inst *s, char *err, size_t err_len) {
    mjcf_sync(s, s->q0, s->v0, 1);
    for (size_t c = 0; c < s->nc; ++c) {
        geo g;
        geometry(s, &s->cand[c], &g);
        mj_jac(s->m, s->d, s->jacp, s->jacr, g.x, s->cand[c].body);
        for (size_t j = 0; j < s->nv; ++j) {
            double w = g.r[2][0] * s->jacp[j] + g.r[2][1] * s->jacp[s->nv + j] +
                       g.r[2][2] * s->jacp[2 * s->nv + j];
            if (fabs(w) > 1e-12) {
                snprintf(err, err_len,
                         "key 'planar': contact '%s' can move along its plane's y axis (degree of "
                         "freedom %zu), so its 2-D slip would be cut to 1-D: the model is not "
                         "planar in the plane's x-z (set planar = false)",
                         s->cand[c].name, j);
                return -1;
            }
        }
    }
    return 0;
}

void mjcf_contact_forces(mjcf_inst *s, const double *lambda) {
    size_t nv = s->nv;
    for (size_t c = 0; c < s->nc; ++c) {
        const double *l = lambda + 3 * c;
        double l2 = s->planar ? 0.0 : l[2];
        if (l[0] == 0 && l[1] == 0 && l2 == 0) continue;
        geo g;
        geometry(s, &s->cand[c], &g);
        double f[3];
        for (int i = 0; i < 3; ++i) f[i] = l[0] * g.r[0][i] + l[1] * g.r[1][i] + l2 * g.r[2][i];
        mj_jac(s->m, s->d, s->jacp, s->jacr, g.x, s->cand[c].body);
        for (size_t j = 0; j < nv; ++j)
            s->force[j] += s->jacp[j] * f[0] + s->jacp[nv + j] * f[1] + s->jacp[2 * nv + j] * f[2];
    }
}

/* ---- building the candidate list ---------------------------------------- */

static void append_names(const mjModel *m, int type, int count, const char *what, int geoms_only,
                         char *out, size_t len) {
    size_t used = strlen(out);
    snprintf(out + used, len - used, "%s%s:", used ? "; " : "", what);
    int any = 0;
    for (int i = 0; i < count; ++i) {
        const char *n = mj_id2name(m, type, i);
        if (!n || !*n) continue;
        if (type == mjOBJ_BODY && i == 0) continue;
        if (geoms_only) {
            int t = m->geom_type[i];
            if (t != mjGEOM_SPHERE && t != mjGEOM_CAPSULE && t != mjGEOM_BOX) continue;
        }
        used = strlen(out);
        snprintf(out + used, len - used, " %s", n);
        any = 1;
    }
    if (!any) {
        used = strlen(out);
        snprintf(out + used, len - used, " none");
    }
}

void mjcf_inventory(const mjModel *m, char *out, size_t len) {
    out[0] = '\0';
    append_names(m, mjOBJ_SITE, m->nsite, "sites", 0, out, len);
    append_names(m, mjOBJ_GEOM, m->ngeom, "sphere/capsule/box geoms", 1, out, len);
    append_names(m, mjOBJ_BODY, m->nbody, "bodies", 0, out, len);
}

typedef struct feature {
    char name[MJCF_NAME_LEN];
    mjcf_feature kind;
    int site, geom, body;
    double local[3], radius_m;
} feature;

static int add_geom(const mjModel *m, int g, const char *name, feature *out, int room, char *err,
                    size_t err_len) {
    const double *size = m->geom_size + 3 * g;
    feature base = {.kind = MJCF_SPHERE, .site = -1, .geom = g, .body = m->geom_bodyid[g]};
    switch (m->geom_type[g]) {
        case mjGEOM_SPHERE:
            if (room < 1) break;
            out[0] = base;
            out[0].radius_m = size[0];
            snprintf(out[0].name, MJCF_NAME_LEN, "%s", name);
            return 1;
        case mjGEOM_CAPSULE:
            if (room < 2) break;
            for (int e = 0; e < 2; ++e) {
                out[e] = base;
                out[e].radius_m = size[0];
                out[e].local[2] = e ? size[1] : -size[1];
                snprintf(out[e].name, MJCF_NAME_LEN, "%.50s_%s", name, e ? "b" : "a");
            }
            return 2;
        case mjGEOM_BOX:
            if (room < 8) break;
            for (int e = 0; e < 8; ++e) {
                out[e] = base;
                out[e].kind = MJCF_POINT;
                for (int i = 0; i < 3; ++i) out[e].local[i] = (e >> i & 1) ? size[i] : -size[i];
                snprintf(out[e].name, MJCF_NAME_LEN, "%.50s_c%d", name, e);
            }
            return 8;
        default:
            snprintf(err, err_len,
                     "key 'contacts': geom '%s' is of a shape the mjcf system cannot use as a "
                     "contact (supported: sphere, capsule ends, box corners, sites)",
                     name);
            return -1;
    }
    snprintf(err, err_len, "key 'contacts': too many contact candidates");
    return -1;
}

/* The features one name of `contacts` stands for. */
static int resolve_name(const mjModel *m, const char *tok, feature *out, int room, char *err,
                        size_t err_len) {
    int id = mj_name2id(m, mjOBJ_SITE, tok);
    if (id >= 0) {
        if (room < 1) return -1;
        out[0] = (feature){.kind = MJCF_POINT, .site = id, .geom = -1, .body = m->site_bodyid[id]};
        snprintf(out[0].name, MJCF_NAME_LEN, "%s", tok);
        return 1;
    }
    id = mj_name2id(m, mjOBJ_GEOM, tok);
    if (id >= 0) return add_geom(m, id, tok, out, room, err, err_len);
    id = mj_name2id(m, mjOBJ_BODY, tok);
    if (id >= 0) {
        int n = 0;
        for (int g = 0; g < m->ngeom; ++g) {
            if (m->geom_bodyid[g] != id) continue;
            int t = m->geom_type[g];
            if (t != mjGEOM_SPHERE && t != mjGEOM_CAPSULE && t != mjGEOM_BOX) continue;
            const char *gn = mj_id2name(m, mjOBJ_GEOM, g);
            char name[MJCF_NAME_LEN];
            snprintf(name, sizeof name, "%.40s_g%d", tok, g);
            int k = add_geom(m, g, gn && *gn ? gn : name, out + n, room - n, err, err_len);
            if (k < 0) return -1;
            n += k;
        }
        if (!n)
            snprintf(err, err_len,
                     "key 'contacts': body '%s' has no sphere, capsule or box geom to touch with",
                     tok);
        return n ? n : -1;
    }
    const char *near = mjcf_nearest_name(m, mjOBJ_SITE, m->nsite, tok);
    if (!near) near = mjcf_nearest_name(m, mjOBJ_GEOM, m->ngeom, tok);
    if (!near) near = mjcf_nearest_name(m, mjOBJ_BODY, m->nbody, tok);
    if (near) {
        snprintf(err, err_len,
                 "key 'contacts': the model has no site, geom or body '%s' (did you "
                 "mean '%s'?)",
                 tok, near);
        return -1;
    }
    char list[400];
    mjcf_inventory(m, list, sizeof list);
    snprintf(err, err_len, "key 'contacts': the model has no site, geom or body '%s' (%s)", tok,
             list);
    return -1;
}

/* The plane geoms named in `planes`, or every plane of the world body. */
static int resolve_planes(const mjModel *m, const char *planes, int *ids, int room, char *err,
                          size_t err_len) {
    int n = 0;
    if (!planes[0]) {
        for (int g = 0; g < m->ngeom && n < room; ++g)
            if (m->geom_type[g] == mjGEOM_PLANE && m->geom_bodyid[g] == 0) ids[n++] = g;
        if (!n)
            snprintf(err, err_len,
                     "the model has no plane geom in its <worldbody> (and the config no terrain "
                     "profile: keys profile_x, profile_z)");
        return n ? n : -1;
    }
    char buf[512];
    snprintf(buf, sizeof buf, "%s", planes);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ", \t", &save); tok && n < room;
         tok = strtok_r(NULL, ", \t", &save)) {
        int g = mj_name2id(m, mjOBJ_GEOM, tok);
        if (g < 0 || m->geom_type[g] != mjGEOM_PLANE || m->geom_bodyid[g] != 0) {
            const char *near = g < 0 ? mjcf_nearest_name(m, mjOBJ_GEOM, m->ngeom, tok) : NULL;
            snprintf(err, err_len, "key 'planes': '%s' is %s%s%s%s", tok,
                     g < 0 ? "not a geom of the model" : "not a plane geom of the world body",
                     near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
            return -1;
        }
        ids[n++] = g;
    }
    return n;
}

int mjcf_contacts_build(mjcf_inst *s, const char *spec, const char *planes, char *err,
                        size_t err_len) {
    enum { MAX_FEATURES = 256, MAX_PLANES = 16 };
    const mjModel *m = s->m;
    feature *feat = calloc(MAX_FEATURES, sizeof *feat);
    int plane[MAX_PLANES], np = 0, nf = 0;
    char buf[1024];
    if (!feat) abort();
    snprintf(buf, sizeof buf, "%s", spec);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
        int k = resolve_name(m, tok, feat + nf, MAX_FEATURES - nf, err, err_len);
        if (k < 0) {
            free(feat);
            return -1;
        }
        nf += k;
    }
    /* with a terrain profile, planes only where named */
    size_t nseg = s->terrain.n_vert ? s->terrain.n_vert - 1 : 0;
    if (nf && (planes[0] || !nseg)) np = resolve_planes(m, planes, plane, MAX_PLANES, err, err_len);
    for (int f = 0; f < nf && np >= 0; ++f)
        if (feat[f].body == 0) {
            snprintf(err, err_len,
                     "key 'contacts': '%s' belongs to the world body (it cannot move)",
                     feat[f].name);
            np = -1;
        }
    if (np < 0) {
        free(feat);
        return -1;
    }
    size_t per = (size_t)np + nseg;
    s->nc = (size_t)nf * per;
    s->cand = calloc(s->nc ? s->nc : 1, sizeof *s->cand);
    s->decl = calloc(s->nc ? s->nc : 1, sizeof *s->decl);
    char(*names)[64] = calloc(nf ? (size_t)nf : 1, sizeof *names);
    if (!s->cand || !s->decl || !names) abort();
    for (int f = 0; f < nf; ++f) {
        snprintf(names[f], sizeof names[f], "%s", feat[f].name);
        for (size_t p = 0; p < per; ++p) {
            mjcf_candidate *k = &s->cand[(size_t)f * per + p];
            int is_plane = p < (size_t)np;
            const char *pn = is_plane ? mj_id2name(m, mjOBJ_GEOM, plane[p]) : NULL;
            if (per == 1)
                snprintf(k->name, MJCF_NAME_LEN, "%s", feat[f].name);
            else if (is_plane)
                snprintf(k->name, MJCF_NAME_LEN, "%.40s_%.20s", feat[f].name,
                         pn && *pn ? pn : "plane");
            else
                snprintf(k->name, MJCF_NAME_LEN, "%.40s_seg%zu", feat[f].name, p - np + 1);
            k->feat_index = f;
            snprintf(k->feat_name, sizeof k->feat_name, "%s", feat[f].name);
            k->site = feat[f].site;
            k->geom = feat[f].geom;
            k->body = feat[f].body;
            memcpy(k->local, feat[f].local, sizeof k->local);
            k->radius_m = feat[f].radius_m;
            k->plane = is_plane ? plane[p] : -1;
            k->segment = is_plane ? -1 : (int)(p - np);
            s->decl[(size_t)f * per + p] = (nsdyn_contact_decl){.name = k->name,
                                                                .type = NSDYN_CONTACT_UNILATERAL,
                                                                .tangent_dim = s->planar ? 1 : 2};
        }
    }
    mjcf_terrain_switches_build(s, nf, (const char(*)[64])names);
    free(names);
    free(feat);
    return 0;
}

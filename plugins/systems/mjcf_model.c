/* mjcf: reading a MuJoCo model file and applying the config's settings
 * (masses, joint damping, gravity). Everything MuJoCo would do that nsdyn
 * does not model is refused here, before any run, rather than ignored:
 * equality constraints, tendons, actuators, joint limits and friction
 * loss are MuJoCo constraint-solver features, and with MuJoCo's solver off
 * (nsdyn decides every contact) they would silently vanish. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mjcf.h"

static const char *const joint_kind[] = {"free", "ball", "slide", "hinge"};

/* Edit distance, capped (names are short). */
static size_t edit_distance(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63) return 99;
    size_t row[64];
    for (size_t j = 0; j <= lb; ++j) row[j] = j;
    for (size_t i = 1; i <= la; ++i) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; ++j) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (row[j] + 1 < best) best = row[j] + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

const char *mjcf_nearest_name(const mjModel *m, int obj_type, int count, const char *name) {
    const char *best = NULL;
    size_t best_d = strlen(name) / 2 + 2;
    for (int i = 0; i < count; ++i) {
        const char *n = mj_id2name(m, obj_type, i);
        if (!n || !*n) continue;
        size_t dist = edit_distance(name, n);
        if (dist < best_d) {
            best_d = dist;
            best = n;
        }
    }
    return best;
}

/* The first MuJoCo feature nsdyn cannot honour, as a sentence, or NULL. */
static int unsupported(const mjModel *m, char *err, size_t err_len) {
    if (m->neq) {
        snprintf(
            err, err_len,
            "the model has %d equality constraint(s); the mjcf system supports tree-structured "
            "mechanisms only (remove <equality>, or model the loop as a contact)",
            m->neq);
        return 1;
    }
    if (m->ntendon) {
        snprintf(err, err_len, "the model has %d tendon(s); tendons are not supported", m->ntendon);
        return 1;
    }
    if (m->nu) {
        snprintf(err, err_len,
                 "the model has %d actuator(s); the mjcf system runs passive mechanisms only "
                 "(remove <actuator>)",
                 m->nu);
        return 1;
    }
    if (m->nmocap) {
        snprintf(err, err_len, "the model has mocap bodies; they are not supported");
        return 1;
    }
    for (int j = 0; j < m->njnt; ++j) {
        const char *jn = mj_id2name(m, mjOBJ_JOINT, j);
        if (m->jnt_limited[j]) {
            snprintf(err, err_len,
                     "joint '%s' (%s) is limited; joint limits are MuJoCo solver constraints, not "
                     "supported (remove limited/range, or make the stop a contact)",
                     jn ? jn : "?", joint_kind[m->jnt_type[j]]);
            return 1;
        }
    }
    for (int k = 0; k < m->nv; ++k)
        if (m->dof_frictionloss[k] != 0) {
            snprintf(err, err_len,
                     "degree of freedom %d has frictionloss %g; dry joint friction is a MuJoCo "
                     "solver constraint, not supported",
                     k, m->dof_frictionloss[k]);
            return 1;
        }
    return 0;
}

/* "name=value, name=value" against objects of one type; set(m, id, value)
 * applies each. Returns 0, or -1 with err. */
typedef int (*mjcf_setter)(mjModel *m, int id, double value, char *err, size_t err_len);

static int apply_list(mjModel *m, const char *key, const char *text, int obj_type, int count,
                      const char *what, mjcf_setter set, char *err, size_t err_len) {
    char buf[1024];
    if (strlen(text) >= sizeof buf) {
        snprintf(err, err_len, "key '%s': the list is too long", key);
        return -1;
    }
    snprintf(buf, sizeof buf, "%s", text);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
        char *eq = strchr(tok, '=');
        char *end = NULL;
        double value = eq ? strtod(eq + 1, &end) : NAN;
        if (!eq || end == eq + 1 || *end || !isfinite(value)) {
            snprintf(err, err_len, "key '%s': expected NAME=NUMBER items, found \"%s\"", key, tok);
            return -1;
        }
        *eq = '\0';
        int id = mj_name2id(m, obj_type, tok);
        if (id < 0) {
            const char *near = mjcf_nearest_name(m, obj_type, count, tok);
            snprintf(err, err_len, "key '%s': the model has no %s '%s'%s%s%s", key, what, tok,
                     near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
            return -1;
        }
        if (set(m, id, value, err, err_len)) return -1;
    }
    return 0;
}

/* A new mass keeps the body's shape: its inertia scales with the mass. */
static int set_mass(mjModel *m, int id, double mass_kg, char *err, size_t err_len) {
    if (id == 0 || !(mass_kg > 0)) {
        snprintf(err, err_len,
                 "key 'body_mass': body '%s' cannot take mass %g (expected > 0, "
                 "and not the world body)",
                 mj_id2name(m, mjOBJ_BODY, id), mass_kg);
        return -1;
    }
    double ratio = m->body_mass[id] > 0 ? mass_kg / m->body_mass[id] : 1.0;
    m->body_mass[id] = mass_kg;
    for (int k = 0; k < 3; ++k) m->body_inertia[3 * id + k] *= ratio;
    return 0;
}

static int set_damping(mjModel *m, int id, double c, char *err, size_t err_len) {
    if (!(c >= 0)) {
        snprintf(err, err_len, "key 'joint_damping': joint '%s' cannot take damping %g (>= 0)",
                 mj_id2name(m, mjOBJ_JOINT, id), c);
        return -1;
    }
    static const int ndof[] = {6, 3, 1, 1};
    for (int k = 0; k < ndof[m->jnt_type[id]]; ++k) m->dof_damping[m->jnt_dofadr[id] + k] = c;
    return 0;
}

/* Parameters in declaration order (mjcf_system.c): model, contacts, planes,
 * planar, gravity, body_mass, joint_damping, engine. */
static int configure(mjModel *m, const nsdyn_value *p, char *err, size_t err_len) {
    if (p[4].len && p[4].len != 3) {
        snprintf(err, err_len, "key 'gravity': expected 3 components [m/s^2], found %zu", p[4].len);
        return -1;
    }
    for (size_t k = 0; k < p[4].len; ++k) m->opt.gravity[k] = p[4].arr[k];
    if (apply_list(m, "body_mass", nsdyn_value_text(&p[5]), mjOBJ_BODY, m->nbody, "body", set_mass,
                   err, err_len))
        return -1;
    if (apply_list(m, "joint_damping", nsdyn_value_text(&p[6]), mjOBJ_JOINT, m->njnt, "joint",
                   set_damping, err, err_len))
        return -1;
    /* MuJoCo's own contact and constraint solver are off: nsdyn's laws
     * decide every contact (engine = "nsdyn"; "mujoco" keeps them, it is
     * MuJoCo's own simulation). Energy is computed for the output channel. */
    if (p[7].num == 0) m->opt.disableflags |= mjDSBL_CONTACT | mjDSBL_CONSTRAINT;
    m->opt.enableflags |= mjENBL_ENERGY;
    return 0;
}

static void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size);
    if (!p) abort();
    return p;
}

/* The model of an empty `model` key: a pendulum (hinge, capsule rod) with a
 * ball bob over a floor, so `nsdyn check` and `describe` exercise the
 * plugin without a file. */
static const char mjcf_demo_xml[] =
    "<mujoco model='demo'><worldbody><geom name='floor' type='plane' size='2 2 0.1'/>"
    "<body name='rod' pos='0 0 1'><joint name='swing' type='hinge' axis='0 1 0' damping='0.01'/>"
    "<geom name='rod' type='capsule' fromto='0 0 0 0.5 0 0' size='0.02' mass='0.1'/>"
    "<body name='bob' pos='0.5 0 0'><joint name='spin' type='hinge' axis='0 1 0'/>"
    "<geom name='bob' type='sphere' size='0.1' mass='1'/></body></body></worldbody></mujoco>";

static mjModel *load_demo(char *mj_err, size_t len) {
    mjVFS *vfs = calloc(1, sizeof *vfs);
    if (!vfs) abort();
    mj_defaultVFS(vfs);
    mjModel *m = NULL;
    if (mj_makeEmptyFileVFS(vfs, "demo.xml", (int)sizeof mjcf_demo_xml - 1) == 0) {
        memcpy(vfs->filedata[vfs->nfile - 1], mjcf_demo_xml, sizeof mjcf_demo_xml - 1);
        m = mj_loadXML("demo.xml", vfs, mj_err, (int)len);
    }
    mj_deleteVFS(vfs);
    free(vfs);
    return m;
}

mjcf_inst *mjcf_model_open(const nsdyn_value *params, char *err, size_t err_len) {
    const char *path = nsdyn_value_text(&params[0]);
    char mj_err[1000] = "";
    mjModel *m =
        path[0] ? mj_loadXML(path, NULL, mj_err, sizeof mj_err) : load_demo(mj_err, sizeof mj_err);
    if (!m) {
        snprintf(err, err_len, "key 'model': MuJoCo cannot load %s: %s", path,
                 mj_err[0] ? mj_err : "(no message)");
        return NULL;
    }
    if (unsupported(m, err, err_len) || configure(m, params, err, err_len)) {
        mj_deleteModel(m);
        return NULL;
    }
    mjcf_inst *s = xcalloc(1, sizeof *s);
    s->m = m;
    s->d = mj_makeData(m);
    if (!s->d) {
        snprintf(err, err_len, "MuJoCo could not allocate its data for %s", path);
        mjcf_model_close(s);
        return NULL;
    }
    mj_setConst(m, s->d); /* derived constants after the mass changes */
    s->nq = (size_t)m->nq;
    s->nv = (size_t)m->nv;
    s->q_now = xcalloc(s->nq, sizeof(double));
    s->v_now = xcalloc(s->nv, sizeof(double));
    s->q0 = xcalloc(s->nq, sizeof(double));
    s->v0 = xcalloc(s->nv, sizeof(double));
    s->cacc_bias = xcalloc(6 * (size_t)m->nbody, sizeof(double));
    s->jacp = xcalloc(3 * s->nv, sizeof(double));
    s->jacr = xcalloc(3 * s->nv, sizeof(double));
    s->force = xcalloc(s->nv, sizeof(double));
    s->solved = xcalloc(s->nv, sizeof(double));
    if (m->nkey)
        mj_resetDataKeyframe(m, s->d, 0);
    else
        mj_resetData(m, s->d);
    memcpy(s->q0, s->d->qpos, s->nq * sizeof(double));
    memcpy(s->v0, s->d->qvel, s->nv * sizeof(double));
    return s;
}

void mjcf_model_close(mjcf_inst *s) {
    if (!s) return;
    if (s->d) mj_deleteData(s->d);
    if (s->m) mj_deleteModel(s->m);
    free(s->q_now);
    free(s->v_now);
    free(s->q0);
    free(s->v0);
    free(s->cacc_bias);
    free(s->jacp);
    free(s->jacr);
    free(s->force);
    free(s->solved);
    free(s->q_ch);
    free(s->v_ch);
    free(s->ch_names);
    free(s->ch_labels);
    free(s->out_ch);
    free(s->out_names);
    free(s->out_labels);
    free(s->cand);
    free(s->decl);
    free(s->rules);
    free(s->armed);
    free(s->rule_of);
    free(s->gap_scratch);
    free(s->switch_names);
    free(s->switch_dirs);
    free(s);
}

/* MuJoCo's data at (q, v): positions (quaternions normalized) and, when
 * asked, velocities, each pass only when its input changed (mjcf.h). */
void mjcf_sync(mjcf_inst *s, const double *q, const double *v, int with_velocity) {
    const mjModel *m = s->m;
    mjData *d = s->d;
    if (!s->valid_pos || memcmp(q, s->q_now, s->nq * sizeof *q) != 0) {
        memcpy(s->q_now, q, s->nq * sizeof *q);
        memcpy(d->qpos, q, s->nq * sizeof *q);
        for (int j = 0; j < m->njnt; ++j)
            if (m->jnt_type[j] == mjJNT_FREE || m->jnt_type[j] == mjJNT_BALL)
                mju_normalize4(d->qpos + m->jnt_qposadr[j] +
                               (m->jnt_type[j] == mjJNT_FREE ? 3 : 0));
        mj_fwdPosition(m, d);
        s->valid_pos = 1;
        s->valid_vel = 0;
    }
    if (with_velocity && (!s->valid_vel || memcmp(v, s->v_now, s->nv * sizeof *v) != 0)) {
        memcpy(s->v_now, v, s->nv * sizeof *v);
        memcpy(d->qvel, v, s->nv * sizeof *v);
        mj_fwdVelocity(m, d);
        s->valid_vel = 1;
        s->valid_bias = 0;
    }
}

void mjcf_candidate_centre(const mjcf_inst *s, const mjcf_candidate *k, double *c) {
    const mjData *d = s->d;
    if (k->site >= 0) {
        memcpy(c, d->site_xpos + 3 * k->site, 3 * sizeof *c);
        return;
    }
    const double *gm = d->geom_xmat + 9 * k->geom, *gp = d->geom_xpos + 3 * k->geom;
    for (int i = 0; i < 3; ++i)
        c[i] = gp[i] + gm[3 * i] * k->local[0] + gm[3 * i + 1] * k->local[1] +
               gm[3 * i + 2] * k->local[2];
}

void mjcf_candidate_velocity(mjcf_inst *s, const mjcf_candidate *k, const double *c, double *vc) {
    mj_jac(s->m, s->d, s->jacp, NULL, c, k->body);
    for (int i = 0; i < 3; ++i) {
        vc[i] = 0.0;
        for (size_t j = 0; j < s->nv; ++j) vc[i] += s->jacp[i * s->nv + j] * s->d->qvel[j];
    }
}

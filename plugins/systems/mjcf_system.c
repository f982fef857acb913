/* The mjcf system: a mechanism read from a MuJoCo model file (MJCF) through
 * libmujoco, with its contacts decided by nsdyn's contact and friction laws
 * on every path (event-driven, compliant, time-stepping). MuJoCo's own
 * contact and constraint solver is switched off (mjcf_model.c).
 *
 * State: MuJoCo's generalized coordinates q = qpos (nq) and velocities v =
 * qvel (nv). A free joint has q = (position [m], unit quaternion) and v =
 * (linear velocity in the world frame [m/s], angular velocity in the body
 * frame [rad/s]); a ball joint q = quaternion, v = body-frame angular
 * velocity. So nq != nv and q' = N(q) v with, per quaternion Q and body
 * angular velocity w, Q' = (1/2) Q (x) (0, w) (quaternion product); hinges
 * and slides have q' = v.
 *
 * Dynamics: M(q) v' = f_passive(q, v) - c(q, v) + sum_c W_c^T lambda_c, with
 * MuJoCo's joint-space inertia M (mj_crb, factorized by mj_factorM), its
 * bias c (gravity, Coriolis, centrifugal: mj_rne with qacc = 0) and its
 * passive forces (joint springs and dampers: mj_passive). v' = M^-1 (...)
 * by mj_solveM, affine in the contact forces lambda as the ABI requires.
 *
 * Contacts: mjcf_contacts.c. Loading and checks: mjcf_model.c.
 * Derivations and the list of ignored MuJoCo features: docs/mjcf.md. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mjcf.h"

static const char *const engines[] = {"nsdyn", "mujoco", NULL};

static const nsdyn_param_decl params[] = {
    NSDYN_STRING_F("model", NSDYN_PARAM_PATH,
                   "MJCF file, relative to the config's folder (empty: a built-in pendulum demo)"),
    NSDYN_STRING_F(
        "contacts", 0u,
        "contact features: site, sphere/capsule/box geom or body names, comma separated"),
    NSDYN_STRING_F("planes", 0u, "plane geoms of the world body to touch (empty: every plane)"),
    NSDYN_BOOL("planar", 0, "contacts slip in 1-D along the plane's x axis (planar models)"),
    {.name = "gravity",
     .type = NSDYN_PARAM_REAL_ARRAY,
     .unit = "m/s^2",
     .min = -HUGE_VAL,
     .max = HUGE_VAL,
     .help = "gravity vector [gx, gy, gz] (empty: the file's)",
     .default_array = NULL,
     .default_array_len = 0},
    NSDYN_STRING_F("body_mass", 0u, "body masses, \"body=kg, ...\" (inertia scales along)"),
    NSDYN_STRING_F("joint_damping", 0u, "joint damping, \"joint=N m s/rad, ...\""),
    NSDYN_CHOICE("engine", 0, engines,
                 "nsdyn: nsdyn's contact laws decide; mujoco: MuJoCo's own mj_step (comparison)"),
    NSDYN_STRING_F(
        "arm", 0u,
        "contacts armed by a rule of joint coordinates, \"CONTACT: th2 - th1 > rad; "
        "...\": armed at the start, off once above its surface while the rule fails, on again "
        "when it holds (docs/mjcf.md 3b)"),
    NSDYN_REAL_F("arm_clearance", "m", 1e-6, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
                 "an armed contact whose rule fails is disarmed this far above its surface"),
    {.name = "profile_x",
     .type = NSDYN_PARAM_REAL_ARRAY,
     .unit = "m",
     .min = -HUGE_VAL,
     .max = HUGE_VAL,
     .help = "terrain profile: world x of its vertices, increasing (empty: no profile)",
     .default_array = NULL,
     .default_array_len = 0},
    {.name = "profile_z",
     .type = NSDYN_PARAM_REAL_ARRAY,
     .unit = "m",
     .min = -HUGE_VAL,
     .max = HUGE_VAL,
     .help = "terrain profile: world z of its vertices (extruded along y; the end segments "
             "extend indefinitely)",
     .default_array = NULL,
     .default_array_len = 0},
};

static const nsdyn_channel outputs_ch[] = {
    {"energy", "J", "mechanical energy (kinetic + potential)"},
    {"kinetic", "J", "kinetic energy"},
    {"potential", "J", "potential energy (gravity and joint springs)"},
};

/* State and contact names become [A-Za-z0-9_]+ (anything else in a MuJoCo
 * name becomes _): a state is a key of [initial], where a dot would make a
 * dotted TOML key, and a contact's channels append ".N". */
static void clean_name(char *s) {
    for (; *s; ++s)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_'))
            *s = '_';
}

static void set_channel(mjcf_inst *s, nsdyn_channel *ch, size_t slot, const char *joint,
                        const char *suffix, const char *unit, const char *what) {
    snprintf(s->ch_names[slot], MJCF_NAME_LEN, "%.50s%s", joint, suffix);
    clean_name(s->ch_names[slot]);
    /* "x position of joint box", "angle of joint theta" */
    snprintf(s->ch_labels[slot], 2 * MJCF_NAME_LEN, "%s%s%s of joint %.50s",
             suffix[0] && strcmp(suffix, "_dot") ? suffix + 1 : "",
             suffix[0] && strcmp(suffix, "_dot") ? " " : "", what, joint);
    ch->name = s->ch_names[slot];
    ch->unit = unit;
    ch->label = s->ch_labels[slot];
}

/* q and v channels from the joints, in MuJoCo's qpos / qvel order. */
static void name_states(mjcf_inst *s) {
    const mjModel *m = s->m;
    s->q_ch = calloc(s->nq ? s->nq : 1, sizeof *s->q_ch);
    s->v_ch = calloc(s->nv ? s->nv : 1, sizeof *s->v_ch);
    s->ch_names = calloc(s->nq + s->nv + 1, sizeof *s->ch_names);
    s->ch_labels = calloc(s->nq + s->nv + 1, sizeof *s->ch_labels);
    if (!s->q_ch || !s->v_ch || !s->ch_names || !s->ch_labels) abort();
    static const char *const fq[] = {"_x", "_y", "_z", "_qw", "_qx", "_qy", "_qz"};
    static const char *const fv[] = {"_vx", "_vy", "_vz", "_wx", "_wy", "_wz"};
    static const char *const fq_unit[] = {"m", "m", "m", "1", "1", "1", "1"};
    static const char *const fv_unit[] = {"m/s", "m/s", "m/s", "rad/s", "rad/s", "rad/s"};
    for (int j = 0; j < m->njnt; ++j) {
        char jn[MJCF_NAME_LEN];
        const char *name = mj_id2name(m, mjOBJ_JOINT, j);
        snprintf(jn, sizeof jn, "%s", name && *name ? name : "");
        if (!jn[0]) snprintf(jn, sizeof jn, "j%d", j);
        size_t qa = (size_t)m->jnt_qposadr[j], va = (size_t)m->jnt_dofadr[j];
        switch (m->jnt_type[j]) {
            case mjJNT_FREE:
            case mjJNT_BALL: {
                int off = m->jnt_type[j] == mjJNT_FREE ? 0 : 3, nq = 7 - off, nv = 6 - off;
                for (int k = 0; k < nq; ++k)
                    set_channel(s, &s->q_ch[qa + k], qa + k, jn, fq[off + k], fq_unit[off + k],
                                k + off < 3 ? "position" : "orientation quaternion");
                for (int k = 0; k < nv; ++k)
                    set_channel(
                        s, &s->v_ch[va + k], s->nq + va + k, jn, fv[off + k], fv_unit[off + k],
                        k + off < 3 ? "velocity (world frame)" : "angular velocity (body frame)");
                break;
            }
            case mjJNT_SLIDE:
                set_channel(s, &s->q_ch[qa], qa, jn, "", "m", "position");
                set_channel(s, &s->v_ch[va], s->nq + va, jn, "_dot", "m/s", "speed");
                break;
            default:
                set_channel(s, &s->q_ch[qa], qa, jn, "", "rad", "angle");
                set_channel(s, &s->v_ch[va], s->nq + va, jn, "_dot", "rad/s", "rate");
                break;
        }
    }
}

/* Output channels: the energies, then the position of every body's frame
 * and every site, so a model's bodies and sites are plot channels (and
 * listed by `nsdyn describe` / `keys`). */
static void name_outputs(mjcf_inst *s) {
    const mjModel *m = s->m;
    size_t n = NSDYN_COUNT(outputs_ch) + 3 * (size_t)(m->nbody - 1 + m->nsite);
    s->out_ch = calloc(n, sizeof *s->out_ch);
    s->out_names = calloc(n, sizeof *s->out_names);
    s->out_labels = calloc(n, sizeof *s->out_labels);
    if (!s->out_ch || !s->out_names || !s->out_labels) abort();
    memcpy(s->out_ch, outputs_ch, sizeof outputs_ch);
    size_t k = NSDYN_COUNT(outputs_ch);
    static const char axis[] = "xyz";
    for (int pass = 0; pass < 2; ++pass) {
        int count = pass ? m->nsite : m->nbody, type = pass ? mjOBJ_SITE : mjOBJ_BODY;
        for (int i = pass ? 0 : 1; i < count; ++i) {
            const char *name = mj_id2name(m, type, i);
            char nm[MJCF_NAME_LEN];
            snprintf(nm, sizeof nm, "%s", name && *name ? name : "");
            if (!nm[0]) snprintf(nm, sizeof nm, "%d", i);
            for (int a = 0; a < 3; ++a, ++k) {
                snprintf(s->out_names[k], MJCF_NAME_LEN, "%s_%.50s_%c", pass ? "site" : "body", nm,
                         axis[a]);
                clean_name(s->out_names[k]);
                snprintf(s->out_labels[k], 2 * MJCF_NAME_LEN, "%c position of %s %.50s", axis[a],
                         pass ? "site" : "body", nm);
                s->out_ch[k] = (nsdyn_channel){s->out_names[k], "m", s->out_labels[k]};
            }
        }
    }
    s->n_out = k;
}

static void close_instance(mjcf_inst *s) {
    if (s) mjcf_terrain_free(&s->terrain);
    mjcf_model_close(s);
}

/* The switch list: arm, disarm (rules), then the terrain's handovers. */
static void list_switches(mjcf_inst *s) {
    size_t nr = s->n_rules ? 2 : 0, n = nr + s->terrain.n_sw;
    s->switch_names = calloc(n + 1, sizeof *s->switch_names);
    s->switch_dirs = calloc(n + 1, sizeof *s->switch_dirs);
    if (!s->switch_names || !s->switch_dirs) abort();
    static const char *const arming[] = {"arm", "disarm"};
    for (size_t k = 0; k < nr; ++k) {
        s->switch_names[k] = arming[k];
        s->switch_dirs[k] = 1;
    }
    for (size_t k = 0; k < s->terrain.n_sw; ++k) {
        s->switch_names[nr + k] = s->terrain.sw_name_ptr[k];
        s->switch_dirs[nr + k] = 0;
    }
    s->n_switches = n;
}

static void *create(const nsdyn_value *p, const nsdyn_host *host, char *err, size_t err_len) {
    (void)host;
    mjcf_inst *s = mjcf_model_open(p, err, err_len);
    if (!s) return NULL;
    s->planar = p[3].num != 0;
    s->engine_mujoco = p[7].num != 0;
    name_states(s);
    name_outputs(s);
    /* the built-in demo's bob touches the floor unless told otherwise */
    const char *names = nsdyn_value_text(&p[1]);
    if (!nsdyn_value_text(&p[0])[0] && !names[0]) names = "bob";
    if (mjcf_terrain_build(s, &p[10], &p[11], err, err_len) ||
        mjcf_contacts_build(s, names, nsdyn_value_text(&p[2]), err, err_len)) {
        close_instance(s);
        return NULL;
    }
    for (size_t c = 0; c < s->nc; ++c) clean_name(s->cand[c].name);
    s->gap_scratch = calloc(s->nc ? s->nc : 1, sizeof *s->gap_scratch);
    if (!s->gap_scratch) abort();
    if (mjcf_rules_build(s, nsdyn_value_text(&p[8]), p[9].num, err, err_len) ||
        (s->planar && mjcf_check_planar(s, err, err_len))) {
        close_instance(s);
        return NULL;
    }
    list_switches(s);
    if (s->engine_mujoco) s->nc = 0; /* MuJoCo's own contact; the names were checked */
    return s;
}

static void destroy(void *inst) { close_instance(inst); }

static void reset(void *inst) {
    mjcf_inst *s = inst;
    if (s->engine_mujoco) mjcf_mujoco_restart(s);
    mjcf_rules_reset(s);
    mjcf_terrain_reset(s);
    s->valid_pos = s->valid_vel = 0;
}

/* q' = N(q) v: quaternions Q' = Q (x) (0, w) / 2, the rest q' = v. */
static void position_rates(const mjcf_inst *s, const double *q, const double *v, double *qdot) {
    const mjModel *m = s->m;
    for (int j = 0; j < m->njnt; ++j) {
        int qa = m->jnt_qposadr[j], va = m->jnt_dofadr[j];
        int type = m->jnt_type[j];
        if (type == mjJNT_FREE) {
            for (int k = 0; k < 3; ++k) qdot[qa + k] = v[va + k];
            qa += 3; /* the rotation part is a ball joint's */
            va += 3;
        }
        switch (type) {
            case mjJNT_FREE:
            case mjJNT_BALL: {
                const double *Q = q + qa, *w = v + va;
                qdot[qa] = -0.5 * (Q[1] * w[0] + Q[2] * w[1] + Q[3] * w[2]);
                qdot[qa + 1] = 0.5 * (Q[0] * w[0] + Q[2] * w[2] - Q[3] * w[1]);
                qdot[qa + 2] = 0.5 * (Q[0] * w[1] + Q[3] * w[0] - Q[1] * w[2]);
                qdot[qa + 3] = 0.5 * (Q[0] * w[2] + Q[1] * w[1] - Q[2] * w[0]);
                break;
            }
            default: qdot[qa] = v[va]; break;
        }
    }
}

static nsdyn_status derivatives(void *inst, double t, const double *q, const double *v,
                                const double *lambda, double *qdot, double *vdot) {
    (void)t;
    mjcf_inst *s = inst;
    if (s->engine_mujoco) { /* held between MuJoCo's steps */
        if (qdot) memset(qdot, 0, s->nq * sizeof *qdot);
        if (vdot) memset(vdot, 0, s->nv * sizeof *vdot);
        return NSDYN_OK;
    }
    if (qdot) position_rates(s, q, v, qdot);
    if (!vdot) return NSDYN_OK;
    mjcf_sync(s, q, v, 1);
    for (size_t j = 0; j < s->nv; ++j) s->force[j] = s->d->qfrc_passive[j] - s->d->qfrc_bias[j];
    if (lambda) mjcf_contact_forces(s, lambda);
    mj_solveM(s->m, s->d, vdot, s->force, 1);
    for (size_t j = 0; j < s->nv; ++j)
        if (!isfinite(vdot[j])) return NSDYN_REJECT_STEP;
    return NSDYN_OK;
}

static nsdyn_status outputs(void *inst, double t, const double *q, const double *v,
                            const double *lambda, double *out) {
    (void)t;
    (void)lambda;
    mjcf_inst *s = inst;
    mjcf_sync(s, q, v, 1);
    mj_energyPos(s->m, s->d);
    mj_energyVel(s->m, s->d);
    out[1] = s->d->energy[1];
    out[2] = s->d->energy[0];
    out[0] = out[1] + out[2];
    const mjModel *m = s->m;
    size_t k = NSDYN_COUNT(outputs_ch);
    memcpy(out + k, s->d->xpos + 3, 3 * (size_t)(m->nbody - 1) * sizeof *out);
    memcpy(out + k + 3 * (size_t)(m->nbody - 1), s->d->site_xpos,
           3 * (size_t)m->nsite * sizeof *out);
    return NSDYN_OK;
}

static nsdyn_status layout(void *inst, nsdyn_system_layout *L) {
    mjcf_inst *s = inst;
    static const char *const series[] = {"energy", NULL};
    static const char *const ticks[] = {"mujoco_step"};
    static const int rising[] = {1};
    *L = (nsdyn_system_layout){.struct_size = sizeof *L,
                               .nq = s->nq,
                               .nv = s->nv,
                               .q = s->q_ch,
                               .v = s->v_ch,
                               .n_contacts = s->nc,
                               .contacts = s->decl,
                               .n_outputs = s->n_out,
                               .outputs = s->out_ch,
                               .plot_series = series,
                               .draw_x_label = "x [m]",
                               .draw_y_label = "z [m]",
                               .energy_output = "energy"};
    if (s->engine_mujoco) {
        L->n_switches = 1;
        L->switches = ticks;
        L->switch_direction = rising;
    } else {
        L->n_switches = s->n_switches;
        L->switches = s->switch_names;
        L->switch_direction = s->switch_dirs;
    }
    return NSDYN_OK;
}

static nsdyn_status initial_state(void *inst, double *q, double *v) {
    mjcf_inst *s = inst;
    memcpy(q, s->q0, s->nq * sizeof *q);
    memcpy(v, s->v0, s->nv * sizeof *v);
    return NSDYN_OK;
}

static nsdyn_status switches(void *inst, double t, const double *q, const double *v,
                             const double *lambda, double *g) {
    mjcf_inst *s = inst;
    if (s->engine_mujoco) return mjcf_mujoco_switches(inst, t, q, v, lambda, g);
    size_t nr = s->n_rules ? 2 : 0;
    if (nr) mjcf_rules_switches(s, q, g);
    return mjcf_terrain_switches(s, q, g + nr);
}

static nsdyn_status on_switch(void *inst, size_t index, double t, double *q, double *v) {
    mjcf_inst *s = inst;
    if (s->engine_mujoco) return mjcf_mujoco_step(inst, index, t, q, v);
    size_t nr = s->n_rules ? 2 : 0;
    if (index < nr) return mjcf_rules_apply(s, index, q);
    return mjcf_terrain_handover(s, index - nr, q, v);
}

static const nsdyn_system mjcf = {
    .info = NSDYN_SYSTEM_INFO(.id = "mjcf", .version = "1.0.0",
                              .summary = "a mechanism from a MuJoCo model file (MJCF), its "
                                         "contacts decided by nsdyn's laws",
                              NSDYN_PARAMS(params),
                              .provides = NSDYN_CAP_UNILATERAL_CONTACTS | NSDYN_CAP_TANGENT_2D |
                                          NSDYN_CAP_DRAWS,
                              .create = create, .destroy = destroy, .reset = reset),
    .layout = layout,
    .initial_state = initial_state,
    .derivatives = derivatives,
    .contacts = mjcf_contacts,
    .outputs = outputs,
    .draw = mjcf_draw,
    .switches = switches,
    .on_switch = on_switch,
};

NSDYN_EXPORT const nsdyn_plugin_info *NSDYN_PLUGIN_ENTRY(uint32_t host_abi_major, uint32_t index) {
    if (host_abi_major != NSDYN_ABI_MAJOR || index > 0) return NULL;
    return &mjcf.info;
}

/* The mjcf system (plugins/systems/mjcf*.c): a MuJoCo model through the
 * system ABI, checked against MuJoCo itself and against calculus, at random
 * states of tests/mjcf/kinematics.xml (every joint type: free, ball, hinge,
 * slide; every contact feature: site, box corner, sphere, capsule end;
 * a level and a tilted plane; springs, dampers, a sideways gravity).
 *
 *  (a) q' = N(q) v: against central differences of MuJoCo's own
 *      mj_integratePos (quaternion joints: nq != nv, q' is not v).
 *  (b) the free acceleration v' (no contact force) equals MuJoCo's qacc of
 *      mj_forward with its contacts off; the response to a unit local
 *      contact force satisfies M dv' = W^T e with M from mj_fullM (MuJoCo's
 *      mass matrix) and W the plugin's Jacobian rows: affine, exact.
 *  (c) u = W v; the gap rate is u_n; u' = W v' + drift, by central
 *      differences of u along the free trajectory (RK4 steps of h = 1e-4 s
 *      and h/2 forward and back, Richardson-extrapolated): this checks the
 *      derived drift terms (docs/mjcf.md) for points and rolling spheres.
 *      The plain central difference's error h^2 u'''/6 reaches 1e-4 here
 *      (light spring-loaded links, jerks ~1e5 m/s^3); extrapolated it is
 *      O(h^4) ~ 1e-9, so the tolerance 1e-6 (1 + |u'|) is far above it and
 *      far below any missing term (omega x v, omega' x r: O(1) here).
 *  (d) bad input, before any run: a missing model file (looked-for path at
 *      the key's file:line:col), an invalid MJCF (MuJoCo's message), an
 *      unknown site with a did-you-mean, unsupported shapes, tendons,
 *      equality constraints, joint limits, actuators; the config's folder
 *      is the base of a relative model path; masses, damping and gravity
 *      set from the config change the dynamics as MuJoCo says. */
#define _GNU_SOURCE
#include <math.h>
#include <mujoco/mujoco.h>
#include <sys/stat.h>

#include "test_util.h"

#define KIN_XML NSDYN_TEST_SOURCE_DIR "/tests/mjcf/kinematics.xml"
#define KIN_CONTACTS "nose, toe, chest, head, arm, bead, thigh, calf"

static char kin_toml[2048];

/* A compliant law: the model's toe starts 5 cm into the floor, which a
 * rigid law refuses before any run (initial penetration, docs/checks.md);
 * these tests evaluate the kinematics at random states, not a run. */
static void load_kin(run *R, const char *extra) {
    snprintf(kin_toml, sizeof kin_toml,
             "[system]\nid = \"mjcf\"\nmodel = \"%s\"\ncontacts = \"%s\"\n%s\n"
             "[contact]\nid = \"hunt_crossley\"\nk = 4e6\nc = 3e5\n[friction]\nid = \"coulomb\"\n"
             "mu_s = 0.5\nmu_k = 0.5\n[integrator]\nid = \"dopri5\"\n[run]\nt_end = 0.1\n",
             KIN_XML, KIN_CONTACTS, extra ? extra : "");
    test_load(kin_toml, R);
}

static double urand(unsigned *seed, double lo, double hi) {
    return lo + (hi - lo) * (double)rand_r(seed) / RAND_MAX;
}

static void unit_quat(unsigned *seed, double *q) {
    double n = 0;
    for (int k = 0; k < 4; ++k) {
        q[k] = urand(seed, -1, 1);
        n += q[k] * q[k];
    }
    for (int k = 0; k < 4; ++k) q[k] /= sqrt(n);
}

/* A random state of the kinematics model (q: root 7, hip 4, knee, rail). */
static void random_state(unsigned *seed, const mjModel *mm, double *q, double *v) {
    q[0] = urand(seed, -1, 1);
    q[1] = urand(seed, -1, 1);
    q[2] = urand(seed, 0.5, 1.5);
    unit_quat(seed, q + 3);
    unit_quat(seed, q + 7);
    for (int k = 11; k < mm->nq; ++k) q[k] = urand(seed, -1, 1);
    for (int k = 0; k < mm->nv; ++k) v[k] = urand(seed, -2, 2);
}

START_TEST(test_position_rates) {
    run R = {0};
    load_kin(&R, NULL);
    char err[256];
    mjModel *mm = mj_loadXML(KIN_XML, NULL, err, sizeof err);
    ck_assert_ptr_nonnull(mm);
    ck_assert_int_eq((int)R.model.nq, mm->nq);
    ck_assert_int_eq((int)R.model.nv, mm->nv);
    ck_assert_int_ne(mm->nq, mm->nv);
    unsigned seed = 7;
    double q[32], v[32], qd[32], qp[32], qm[32];
    for (int trial = 0; trial < 50; ++trial) {
        random_state(&seed, mm, q, v);
        ck_assert_int_eq(R.model.sys->derivatives(R.data->sys_inst, 0, q, v, NULL, qd, NULL),
                         NSDYN_OK);
        const double h = 1e-5;
        memcpy(qp, q, sizeof q);
        memcpy(qm, q, sizeof q);
        mj_integratePos(mm, qp, v, h);
        mj_integratePos(mm, qm, v, -h);
        for (int k = 0; k < mm->nq; ++k)
            ck_assert_msg(fabs((qp[k] - qm[k]) / (2 * h) - qd[k]) < 1e-8,
                          "trial %d q'[%d] = %.12g, MuJoCo's %.12g", trial, k, qd[k],
                          (qp[k] - qm[k]) / (2 * h));
    }
    mj_deleteModel(mm);
    test_unload(&R);
}
END_TEST

START_TEST(test_dynamics_against_mujoco) {
    run R = {0};
    load_kin(&R, NULL);
    char err[256];
    mjModel *mm = mj_loadXML(KIN_XML, NULL, err, sizeof err);
    mjData *dd = mj_makeData(mm);
    mm->opt.disableflags |= mjDSBL_CONTACT;
    mm->opt.enableflags |= mjENBL_ENERGY;
    size_t nv = (size_t)mm->nv, nc = R.model.nc;
    double q[32], v[32], a0[32], a1[32], M[32 * 32];
    double *lambda = calloc(3 * nc, sizeof *lambda), *jac = calloc(3 * nc * nv, sizeof *jac);
    double **bufs = calloc(nc, sizeof *bufs);
    nsdyn_contact_eval *ce = calloc(nc, sizeof *ce);
    for (size_t c = 0; c < nc; ++c) bufs[c] = jac + 3 * nv * c;
    nsdyn_contact_request req = {sizeof req, 0, bufs, NULL};
    unsigned seed = 11;
    for (int trial = 0; trial < 30; ++trial) {
        random_state(&seed, mm, q, v);
        memcpy(dd->qpos, q, mm->nq * sizeof *q);
        memcpy(dd->qvel, v, nv * sizeof *v);
        mj_forward(mm, dd);
        mj_fullM(mm, M, dd->qM);
        void *S = R.data->sys_inst;
        memset(lambda, 0, 3 * nc * sizeof *lambda);
        ck_assert_int_eq(R.model.sys->derivatives(S, 0, q, v, lambda, NULL, a0), NSDYN_OK);
        for (size_t j = 0; j < nv; ++j)
            ck_assert_msg(fabs(a0[j] - dd->qacc[j]) < 1e-9 * (1 + fabs(dd->qacc[j])),
                          "v'[%zu] = %.12g, MuJoCo's qacc %.12g", j, a0[j], dd->qacc[j]);
        ck_assert_int_eq(R.model.sys->contacts(S, 0, q, v, &req, ce), NSDYN_OK);
        /* outputs: energies, then every body's and site's position (MuJoCo's) */
        double out[128];
        ck_assert_uint_le(R.model.layout.n_outputs, 128);
        ck_assert_int_eq(R.model.sys->outputs(S, 0, q, v, lambda, out), NSDYN_OK);
        ck_assert_uint_eq(R.model.layout.n_outputs, 3 + 3 * (size_t)(mm->nbody - 1 + mm->nsite));
        ck_assert_double_eq_tol(out[0], dd->energy[0] + dd->energy[1], 1e-9);
        for (int k = 0; k < 3 * (mm->nbody - 1); ++k)
            ck_assert_double_eq_tol(out[3 + k], dd->xpos[3 + k], 1e-12);
        for (int k = 0; k < 3 * mm->nsite; ++k)
            ck_assert_double_eq_tol(out[3 + 3 * (mm->nbody - 1) + k], dd->site_xpos[k], 1e-12);
        size_t c = (size_t)trial % nc;
        int dir = trial % 3;
        lambda[3 * c + (size_t)dir] = 1.0;
        ck_assert_int_eq(R.model.sys->derivatives(S, 0, q, v, lambda, NULL, a1), NSDYN_OK);
        for (size_t i = 0; i < nv; ++i) {
            double lhs = 0;
            for (size_t j = 0; j < nv; ++j) lhs += M[i * nv + j] * (a1[j] - a0[j]);
            double rhs = bufs[c][(size_t)dir * nv + i];
            ck_assert_msg(fabs(lhs - rhs) < 1e-9,
                          "contact %s dir %d: (M dv')[%zu] = %.12g, "
                          "W^T e = %.12g",
                          R.model.layout.contacts[c].name, dir, i, lhs, rhs);
        }
    }
    free(lambda);
    free(jac);
    free(bufs);
    free(ce);
    mj_deleteData(dd);
    mj_deleteModel(mm);
    test_unload(&R);
}
END_TEST

/* One RK4 step of the free motion (no contact force). */
static void rk4(const run *R, double *q, double *v, double h) {
    size_t nq = R->model.nq, nv = R->model.nv;
    double kq[4][32], kv[4][32], qs[32], vs[32];
    for (int s = 0; s < 4; ++s) {
        double c = s == 0 ? 0 : s == 3 ? h : h / 2;
        for (size_t k = 0; k < nq; ++k) qs[k] = q[k] + (s ? c * kq[s - 1][k] : 0);
        for (size_t k = 0; k < nv; ++k) vs[k] = v[k] + (s ? c * kv[s - 1][k] : 0);
        R->model.sys->derivatives(R->data->sys_inst, 0, qs, vs, NULL, kq[s], kv[s]);
    }
    for (size_t k = 0; k < nq; ++k)
        q[k] += h / 6 * (kq[0][k] + 2 * kq[1][k] + 2 * kq[2][k] + kq[3][k]);
    for (size_t k = 0; k < nv; ++k)
        v[k] += h / 6 * (kv[0][k] + 2 * kv[1][k] + 2 * kv[2][k] + kv[3][k]);
}

START_TEST(test_drift_central_differences) {
    run R = {0};
    load_kin(&R, NULL);
    char err[256];
    mjModel *mm = mj_loadXML(KIN_XML, NULL, err, sizeof err);
    size_t nq = R.model.nq, nv = R.model.nv, nc = R.model.nc;
    ck_assert_uint_eq(nc, 36); /* 18 features x 2 planes */
    double q[32], v[32], a[32], qp[32], vp[32], qm[32], vm[32], fd[2][36][4];
    double *jac = calloc(3 * nc * nv, sizeof *jac);
    double **bufs = calloc(nc, sizeof *bufs);
    nsdyn_contact_eval *ce = calloc(nc, sizeof *ce), *cp = calloc(nc, sizeof *cp),
                       *cm = calloc(nc, sizeof *cm);
    for (size_t c = 0; c < nc; ++c) bufs[c] = jac + 3 * nv * c;
    nsdyn_contact_request req = {sizeof req, 1, bufs, NULL};
    const nsdyn_system *S = R.model.sys;
    void *I = R.data->sys_inst;
    unsigned seed = 5;
    const double h = 1e-4;
    for (int trial = 0; trial < 40; ++trial) {
        random_state(&seed, mm, q, v);
        S->derivatives(I, 0, q, v, NULL, NULL, a);
        S->contacts(I, 0, q, v, &req, ce);
        /* central differences at h and h/2, Richardson-extrapolated: O(h^4) */
        for (int half = 0; half < 2; ++half) {
            double hh = half ? h / 2 : h;
            memcpy(qp, q, sizeof q), memcpy(vp, v, sizeof v);
            memcpy(qm, q, sizeof q), memcpy(vm, v, sizeof v);
            rk4(&R, qp, vp, hh);
            rk4(&R, qm, vm, -hh);
            S->contacts(I, 0, qp, vp, NULL, cp);
            S->contacts(I, 0, qm, vm, NULL, cm);
            for (size_t c = 0; c < nc; ++c) {
                fd[half][c][0] = (cp[c].gap - cm[c].gap) / (2 * hh);
                for (int r = 0; r < 3; ++r)
                    fd[half][c][r + 1] = (cp[c].u[r] - cm[c].u[r]) / (2 * hh);
            }
        }
        for (size_t c = 0; c < nc; ++c) {
            double gdot = (4 * fd[1][c][0] - fd[0][c][0]) / 3;
            ck_assert_msg(fabs(gdot - ce[c].u[0]) < 1e-6 * (1 + fabs(gdot)),
                          "%s: gap rate %.10g, u_n %.10g", R.model.layout.contacts[c].name, gdot,
                          ce[c].u[0]);
            for (int r = 0; r < 3; ++r) {
                double wv = 0, wa = 0;
                for (size_t j = 0; j < nv; ++j) {
                    wv += bufs[c][(size_t)r * nv + j] * v[j];
                    wa += bufs[c][(size_t)r * nv + j] * a[j];
                }
                ck_assert_msg(fabs(wv - ce[c].u[r]) < 1e-12 * (1 + fabs(wv)), "u != W v");
                double diff = (4 * fd[1][c][r + 1] - fd[0][c][r + 1]) / 3;
                double mine = wa + ce[c].drift[r];
                ck_assert_msg(fabs(diff - mine) < 1e-6 * (1 + fabs(diff)),
                              "trial %d %s row %d: u' by differences %.10g, W v' + drift %.10g "
                              "(drift %.10g)",
                              trial, R.model.layout.contacts[c].name, r, diff, mine,
                              ce[c].drift[r]);
            }
        }
    }
    (void)nq;
    free(jac), free(bufs), free(ce), free(cp), free(cm);
    mj_deleteModel(mm);
    test_unload(&R);
}
END_TEST

/* ---- (d) bad input and config settings ------------------------------------ */

static char tmpdir[64];

static void write_file(const char *name, const char *text) { test_write_at(tmpdir, name, text); }

/* Load tmpdir/NAME (test_util.h test_load_at). */
static size_t load_at(const char *name, run *R, char *all, size_t len) {
    return test_load_at(tmpdir, name, R, all, len);
}

static const char *ball_xml =
    "<mujoco><worldbody><geom name='floor' type='plane' size='1 1 1'/>"
    "<body name='ball' pos='0 0 1'><freejoint name='ball'/>"
    "<geom name='ball' type='sphere' size='0.1' mass='1'/><site name='nose' pos='0 0 0.1'/>"
    "<geom name='can' type='cylinder' size='0.1 0.1' pos='0.3 0 0' mass='1'/>"
    "</body></worldbody></mujoco>";

static void config_for(const char *toml_name, const char *model, const char *contacts,
                       const char *extra) {
    char text[1024];
    snprintf(text, sizeof text,
             "[system]\nid = \"mjcf\"\nmodel = \"%s\"\ncontacts = \"%s\"\n%s\n[contact]\n"
             "id = \"newton\"\ne = 0.5\n[integrator]\nid = \"dopri5\"\n[run]\nt_end = 0.1\n",
             model, contacts, extra ? extra : "");
    write_file(toml_name, text);
}

static void expect_refusal(const char *model_text, const char *contacts, const char *extra,
                           const char *want1, const char *want2) {
    if (model_text) write_file("m.xml", model_text);
    config_for("c.toml", "m.xml", contacts, extra);
    run R = {0};
    char all[4096];
    size_t errors = load_at("c.toml", &R, all, sizeof all);
    ck_assert_msg(errors > 0, "loaded, but should refuse (%s)", want1);
    ck_assert_msg(strstr(all, want1) && (!want2 || strstr(all, want2)),
                  "message lacks \"%s\"/\"%s\": %s", want1, want2 ? want2 : "", all);
    ck_assert_msg(strstr(all, "c.toml:"), "no config location: %s", all);
    test_unload(&R);
}

START_TEST(test_bad_input) {
    snprintf(tmpdir, sizeof tmpdir, "/tmp/nsdyn-mjcf-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
    /* missing file: the key's location and the path looked for */
    config_for("c.toml", "nowhere.xml", "ball", NULL);
    run R = {0};
    char all[4096], want[256];
    ck_assert_uint_gt(load_at("c.toml", &R, all, sizeof all), 0);
    snprintf(want, sizeof want, "looked for %s/nowhere.xml", tmpdir);
    ck_assert_msg(strstr(all, want) && strstr(all, "c.toml:3:"), "%s", all);
    test_unload(&R);
    /* a text key given a number: the host's type check, at the key */
    write_file("m.xml", ball_xml);
    write_file("c.toml", "[system]\nid = \"mjcf\"\nmodel = \"m.xml\"\ncontacts = 3\n[contact]\n"
                         "id = \"newton\"\n[integrator]\nid = \"dopri5\"\n[run]\nt_end = 0.1\n");
    ck_assert_uint_gt(load_at("c.toml", &R, all, sizeof all), 0);
    ck_assert_msg(strstr(all, "c.toml:4:1: [system] (mjcf) key 'contacts': expected a string, "
                              "found an integer (3)"),
                  "%s", all);
    test_unload(&R);
    /* invalid XML: MuJoCo's own message */
    expect_refusal("<mujoco><worldbody><body></mujoco>", "ball", NULL, "MuJoCo cannot load", "XML");
    expect_refusal("<mujoco><worldbody><geom type='sphere' size='-1'/></worldbody></mujoco>",
                   "ball", NULL, "MuJoCo cannot load", NULL);
    /* names: did-you-mean */
    expect_refusal(ball_xml, "nos", NULL, "no site, geom or body 'nos'", "did you mean 'nose'");
    expect_refusal(ball_xml, "qqqqqqq", NULL, "no site, geom or body 'qqqqqqq'",
                   "(sites: nose; sphere/capsule/box geoms: ball; bodies: ball)");
    expect_refusal(ball_xml, "ball", "planes = \"flor\"", "'flor'", "did you mean 'floor'");
    expect_refusal(ball_xml, "ball", "body_mass = \"bal=2\"", "no body 'bal'",
                   "did you mean 'ball'");
    expect_refusal(ball_xml, "ball", "planar = true", "key 'planar': contact 'ball' can move",
                   "not planar");
    expect_refusal(ball_xml, "can", NULL, "geom 'can' is of a shape", "sphere, capsule");
    expect_refusal(ball_xml, "floor", NULL, "geom 'floor' is of a shape", NULL);
    expect_refusal(ball_xml, "ball", "gravity = [0.0, -9.81]", "3 components", NULL);
    /* MuJoCo features nsdyn does not model */
    expect_refusal("<mujoco><worldbody><geom type='plane' size='1 1 1'/><body name='a'>"
                   "<joint name='j' type='hinge' limited='true' range='-1 1'/>"
                   "<geom name='ball' type='sphere' size='0.1'/></body></worldbody></mujoco>",
                   "ball", NULL, "joint 'j' (hinge) is limited", NULL);
    expect_refusal("<mujoco><worldbody><geom type='plane' size='1 1 1'/><body name='a'>"
                   "<joint name='j' type='hinge'/><geom name='ball' type='sphere' size='0.1'/>"
                   "</body></worldbody><actuator><motor joint='j'/></actuator></mujoco>",
                   "ball", NULL, "actuator", NULL);
    expect_refusal("<mujoco><worldbody><geom type='plane' size='1 1 1'/><body name='a'>"
                   "<joint name='j' type='hinge'/><geom name='ball' type='sphere' size='0.1'/>"
                   "</body></worldbody><equality><joint joint1='j'/></equality></mujoco>",
                   "ball", NULL, "equality constraint", NULL);
    expect_refusal("<mujoco><worldbody><geom type='plane' size='1 1 1'/><body name='a'>"
                   "<joint name='j' type='hinge'/><geom name='ball' type='sphere' size='0.1'/>"
                   "</body></worldbody><tendon><fixed name='t'><joint joint='j' coef='1'/>"
                   "</fixed></tendon></mujoco>",
                   "ball", NULL, "tendon", NULL);
}
END_TEST

/* A relative model path starts at the config's folder, not the working
 * folder; gravity, masses and damping from the config reach the dynamics. */
START_TEST(test_relative_path_and_settings) {
    snprintf(tmpdir, sizeof tmpdir, "/tmp/nsdyn-mjcf-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
    char sub[128];
    snprintf(sub, sizeof sub, "%s/models", tmpdir);
    ck_assert_int_eq(mkdir(sub, 0700), 0);
    write_file("models/b.xml",
               "<mujoco><worldbody><geom name='floor' type='plane' size='1 1 1'/>"
               "<body name='ball' pos='0 0 1'><freejoint name='ball'/><site name='nose'/>"
               "<geom name='ball' type='sphere' size='0.1' mass='1'/></body></worldbody></mujoco>");
    config_for("c.toml", "models/b.xml", "ball, nose",
               "gravity = [0.0, 0.0, -2.0]\nbody_mass = \"ball=4\"");
    ck_assert_int_eq(chdir("/"), 0);
    run R = {0};
    char all[4096];
    ck_assert_msg(load_at("c.toml", &R, all, sizeof all) == 0, "%s", all);
    ck_assert_uint_eq(R.model.nc, 2);
    double q[7] = {0, 0, 1, 1, 0, 0, 0}, v[6] = {0}, a0[6], a1[6], lambda[6] = {0};
    R.model.sys->derivatives(R.data->sys_inst, 0, q, v, lambda, NULL, a0);
    ck_assert_double_eq_tol(a0[2], -2.0, 1e-12);
    lambda[0] = 1.0; /* 1 N up at the ball's lowest point, through its centre: a = F / m */
    R.model.sys->derivatives(R.data->sys_inst, 0, q, v, lambda, NULL, a1);
    ck_assert_double_eq_tol(a1[2] - a0[2], 1.0 / 4.0, 1e-12);
    test_unload(&R);
    /* a path given by --set starts at the working folder */
    char path[256], all2[4096] = "";
    snprintf(path, sizeof path, "%s/c.toml", tmpdir);
    const char *sets[] = {"system.model=\"models/b.xml\""};
    nsd_diag diag = {0};
    run S = {0};
    S.no_graphs = 1;
    ck_assert_uint_gt(nsd_scenario_load(&S, path, sets, 1, &diag), 0); /* from "/" */
    for (size_t i = 0; i < diag.n; ++i)
        strncat(all2, diag.lines[i], sizeof all2 - strlen(all2) - 1);
    ck_assert_msg(strstr(all2, "from --set start at the working folder"), "%s", all2);
    nsd_diag_free(&diag);
    test_unload(&S);
    ck_assert_int_eq(chdir(tmpdir), 0);
    run T = {0};
    T.no_graphs = 1;
    ck_assert_uint_eq(nsd_scenario_load(&T, path, sets, 1, &diag), 0);
    nsd_diag_free(&diag);
    test_unload(&T);
}
END_TEST

/* nsdyn keys lists the model's states (joints), its bodies and sites (as
 * output channels) and the contact candidates. */
START_TEST(test_keys_lists_the_model) {
    char cmd[1024], text[16384] = "";
    snprintf(cmd, sizeof cmd, "%s keys %s/configs/mjcf_rocking_block.toml", NSDYN_TEST_BINARY,
             NSDYN_TEST_SOURCE_DIR);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    size_t n = fread(text, 1, sizeof text - 1, p);
    text[n] = '\0';
    ck_assert_int_eq(pclose(p), 0);
    const char *want[] = {"theta_dot = 0", "body_block_x [m]", "site_left_z [m]",
                          "left (unilateral, 1-D slip)", "right (unilateral, 1-D slip)"};
    for (size_t i = 0; i < sizeof want / sizeof *want; ++i)
        ck_assert_msg(strstr(text, want[i]), "keys lacks \"%s\":\n%s", want[i], text);
}
END_TEST

int main(void) {
    Suite *s = suite_create("mjcf");
    TCase *tc = tcase_create("mjcf");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_position_rates);
    tcase_add_test(tc, test_dynamics_against_mujoco);
    tcase_add_test(tc, test_drift_central_differences);
    tcase_add_test(tc, test_bad_input);
    tcase_add_test(tc, test_relative_path_and_settings);
    tcase_add_test(tc, test_keys_lists_the_model);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}

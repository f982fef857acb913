/* The mjcf system's terrain profiles (plugins/systems/mjcf_terrain.c) and
 * arming rules (mjcf_arming.c), against closed forms and calculus:
 *
 *  (a) a solid sphere rolling over a floor -> 20 degree incline profile
 *      (configs/mjcf_sphere_profile.toml), event-driven, sticking: on the
 *      floor at its initial speed, over the convex edge on a circle of
 *      radius r about it, down the incline at (5/7) g sin 20 deg, the
 *      rolling energy (7/10) v^2 + g z per unit mass conserved throughout,
 *      rolling (|v| = r |theta'|) everywhere; the edge handed from one
 *      segment's candidate to the other's at one switch, no impact, no
 *      slip. The run's precheck (nsdyn check's kinematic checks at four
 *      states around the start, docs/checks.md) is on and passes.
 *  (b) u = W v, the gap rate is u_n and u' = W v' + drift, by
 *      Richardson-extrapolated central differences along free motions
 *      from 60 random 3-D states of a body with a site, a sphere and a
 *      capsule against a five-vertex profile (convex and concave
 *      vertices): faces and ends, where the frame turns with the centre
 *      (the drift's curvature terms). Candidates whose foot point changes
 *      between face and end within the differences' stretch are skipped
 *      (u' jumps there: the curvature starts).
 *  (c) bad input: a profile not a graph over x, arrays of unequal length,
 *      a turn of 90 degrees; rules naming an unknown contact or joint
 *      (with a did-you-mean), a ball joint, or malformed.
 * Tolerances: (a) dopri5 at rtol 1e-11 with the contact held at the
 * acceleration level: the energy and the pivot radius drift by about
 * 3e-9 over the run, so 1e-8; the incline's acceleration from two samples
 * 1.5 s apart, 1e-8 relative. (b) as tests/test_mjcf.c (c): the
 * extrapolated differences' error is O(h^4) ~ 1e-9, the tolerance 1e-6
 * (1 + |u'|) far below a missing term (O(1)). */
#define _GNU_SOURCE
#include <math.h>
#include <sys/stat.h>

#include "test_util.h"

#define G 9.81
#define DEG (M_PI / 180.0)

START_TEST(sphere_rolls_over_floor_incline_profile) {
    run R = {0};
    test_run_file(&R, "mjcf_sphere_profile.toml", NULL, 0, NSD_RUN_COMPLETE);
    const double r = 0.1, v0 = 0.5, th = 20 * DEG, a = 5.0 / 7.0 * G * sin(th);
    const nsd_series *s = &R.res.series;
    double e0 = 0.7 * v0 * v0 + G * r, t_in = -1, v_in = 0, t_last = 0, v_last = 0;
    size_t on_floor = 0, on_edge = 0, on_incline = 0;
    for (size_t k = 0; k < s->rows; ++k) {
        double t = nsd_series_at(s, k, 0), x = at(&R, k, "x"), z = at(&R, k, "z");
        double vx = at(&R, k, "x_dot"), vz = at(&R, k, "z_dot"), w = at(&R, k, "theta_dot");
        double speed = hypot(vx, vz), e = 0.7 * speed * speed + G * z;
        ck_assert_msg(fabs(e - e0) < 1e-8 * e0, "t = %g s: rolling energy %.12g, start %.12g", t, e,
                      e0);
        ck_assert_msg(fabs(speed - r * w) < 1e-8, "t = %g s: slips (|v| %g, r w %g)", t, speed,
                      r * w);
        if (x < 0) { /* floor */
            ck_assert_msg(fabs(vx - v0) < 1e-9 && fabs(z - r) < 1e-9, "floor, t = %g s", t);
            on_floor++;
        } else if (x <= r * sin(th)) { /* pivoting about the edge (0, 0) */
            ck_assert_msg(fabs(hypot(x, z) - r) < 1e-8, "edge, t = %g s: |C - E| = %.12g", t,
                          hypot(x, z));
            on_edge++;
        } else if (x > r * sin(th) + 1e-3) { /* incline: distance r from its line */
            ck_assert_msg(fabs(x * sin(th) + z * cos(th) - r) < 1e-8, "incline, t = %g s", t);
            if (t_in < 0) t_in = t, v_in = speed;
            t_last = t, v_last = speed;
            on_incline++;
        }
    }
    ck_assert_msg(on_floor > 100 && on_edge >= 3 && on_incline > 100, "%zu %zu %zu", on_floor,
                  on_edge, on_incline);
    double a_meas = (v_last - v_in) / (t_last - t_in);
    ck_assert_msg(fabs(a_meas - a) < 1e-8 * a, "incline: a = %.12g, (5/7) g sin = %.12g", a_meas,
                  a);
    ck_assert_uint_eq(R.res.n_switches, 1);
    ck_assert_uint_eq(test_count_kind(&R, NSD_EVENT_IMPACT), 0);
    ck_assert_uint_eq(test_count_kind(&R, NSD_EVENT_SLIP), 0);
    test_unload(&R);
}
END_TEST

/* ---- (b) Jacobian rows and drift against differences ----------------------- */

static char tmpdir[64];

static void write_file(const char *name, const char *text) { test_write_at(tmpdir, name, text); }

/* Load tmpdir/NAME (test_util.h test_load_at). */
static size_t load_at(const char *name, run *R, char *all, size_t len) {
    return test_load_at(tmpdir, name, R, all, len);
}

static void make_tmpdir(void) {
    snprintf(tmpdir, sizeof tmpdir, "/tmp/nsdyn-mjcft-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

/* A free body with a site, a sphere and a capsule, a spring-loaded arm. */
static const char *body_xml =
    "<mujoco><option gravity='0.3 -0.2 -9.81'/><worldbody><body name='b' pos='0 0 0.5'>"
    "<freejoint name='root'/><geom name='ball' type='sphere' size='0.08' mass='1'/>"
    "<site name='nose' pos='0.12 0.03 -0.05'/>"
    "<body name='arm' pos='0.1 0 0'><joint name='hinge' type='hinge' axis='0 1 0' "
    "stiffness='3'/><geom name='stick' type='capsule' fromto='0 0 0 0.2 0 -0.1' size='0.03' "
    "mass='0.3'/></body></body></worldbody></mujoco>";

/* Vertices: a convex edge (-0.4), a concave one (0), a straight one (0.3),
 * a convex one (0.6). */
static const char *profile_keys = "profile_x = [-0.8, -0.4, 0.0, 0.3, 0.6]\n"
                                  "profile_z = [0.3, 0.25, -0.1, 0.2, 0.5]\n";

static double urand(unsigned *seed, double lo, double hi) {
    return lo + (hi - lo) * (double)rand_r(seed) / RAND_MAX;
}

/* One RK4 step of the free motion (no contact force). */
static void rk4(const run *R, double *q, double *v, double h) {
    size_t nq = R->model.nq, nv = R->model.nv;
    double kq[4][16], kv[4][16], qs[16], vs[16];
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

/* Is candidate c's normal its segment's face normal (foot point inside)? */
static int on_face(const nsdyn_contact_eval *e, int seg) {
    static const double px[] = {-0.8, -0.4, 0.0, 0.3, 0.6}, pz[] = {0.3, 0.25, -0.1, 0.2, 0.5};
    double dx = px[seg + 1] - px[seg], dz = pz[seg + 1] - pz[seg], l = hypot(dx, dz);
    return fabs(e->normal[0] + dz / l) < 1e-12 && fabs(e->normal[2] - dx / l) < 1e-12;
}

START_TEST(terrain_rows_and_drift) {
    make_tmpdir();
    write_file("m.xml", body_xml);
    char text[1024], all[2048];
    snprintf(text, sizeof text,
             "[system]\nid = \"mjcf\"\nmodel = \"m.xml\"\ncontacts = \"nose, ball, stick\"\n%s"
             "[contact]\nid = \"hunt_crossley\"\nk = 1e5\nc = 1e3\n[integrator]\nid = \"dopri5\"\n"
             "[run]\nt_end = 0.1\nprecheck = false\n",
             profile_keys);
    write_file("c.toml", text);
    run R;
    ck_assert_msg(load_at("c.toml", &R, all, sizeof all) == 0, "%s", all);
    size_t nv = R.model.nv, nc = R.model.nc;
    ck_assert_uint_eq(nc, 16); /* 4 features (site, sphere, two capsule ends) x 4 segments */
    double q[16], v[16], acc[16], qp[16], vp[16], qm[16], vm[16], fd[2][16][4];
    double *jac = calloc(3 * nc * nv, sizeof *jac);
    double **bufs = calloc(nc, sizeof *bufs);
    nsdyn_contact_eval ce[16], cp[16], cm[16], cp2[16], cm2[16];
    for (size_t c = 0; c < nc; ++c) bufs[c] = jac + 3 * nv * c;
    nsdyn_contact_request req = {sizeof req, 1, bufs, NULL}, geo = {sizeof geo, 1, NULL, NULL};
    const nsdyn_system *S = R.model.sys;
    void *I = R.data->sys_inst;
    unsigned seed = 11;
    const double h = 1e-4;
    size_t checked_end = 0, checked_face = 0;
    for (int trial = 0; trial < 60; ++trial) {
        q[0] = urand(&seed, -1.0, 0.9), q[1] = urand(&seed, -0.2, 0.2);
        q[2] = urand(&seed, -0.1, 0.7);
        double n = 0;
        for (int k = 3; k < 7; ++k) q[k] = urand(&seed, -1, 1), n += q[k] * q[k];
        for (int k = 3; k < 7; ++k) q[k] /= sqrt(n);
        q[7] = urand(&seed, -1, 1);
        for (size_t k = 0; k < nv; ++k) v[k] = urand(&seed, -2, 2);
        S->derivatives(I, 0, q, v, NULL, NULL, acc);
        S->contacts(I, 0, q, v, &req, ce);
        for (int half = 0; half < 2; ++half) {
            double hh = half ? h / 2 : h;
            memcpy(qp, q, sizeof q), memcpy(vp, v, sizeof v);
            memcpy(qm, q, sizeof q), memcpy(vm, v, sizeof v);
            rk4(&R, qp, vp, hh);
            rk4(&R, qm, vm, -hh);
            S->contacts(I, 0, qp, vp, &geo, half ? cp2 : cp);
            S->contacts(I, 0, qm, vm, &geo, half ? cm2 : cm);
            nsdyn_contact_eval *a = half ? cp2 : cp, *b = half ? cm2 : cm;
            for (size_t c = 0; c < nc; ++c) {
                fd[half][c][0] = (a[c].gap - b[c].gap) / (2 * hh);
                for (int r = 0; r < 3; ++r) fd[half][c][r + 1] = (a[c].u[r] - b[c].u[r]) / (2 * hh);
            }
        }
        for (size_t c = 0; c < nc; ++c) {
            int seg = (int)(c % 4), face = on_face(&ce[c], seg);
            if (on_face(&cp[c], seg) != face || on_face(&cm[c], seg) != face) continue;
            checked_face += face, checked_end += !face;
            const char *name = R.model.layout.contacts[c].name;
            double gdot = (4 * fd[1][c][0] - fd[0][c][0]) / 3;
            ck_assert_msg(fabs(gdot - ce[c].u[0]) < 1e-6 * (1 + fabs(gdot)),
                          "%s: gap rate %.10g, u_n %.10g", name, gdot, ce[c].u[0]);
            for (int r = 0; r < 3; ++r) {
                double wv = 0, wa = 0;
                for (size_t j = 0; j < nv; ++j) {
                    wv += bufs[c][(size_t)r * nv + j] * v[j];
                    wa += bufs[c][(size_t)r * nv + j] * acc[j];
                }
                ck_assert_msg(fabs(wv - ce[c].u[r]) < 1e-12 * (1 + fabs(wv)), "u != W v");
                double diff = (4 * fd[1][c][r + 1] - fd[0][c][r + 1]) / 3,
                       mine = wa + ce[c].drift[r];
                ck_assert_msg(fabs(diff - mine) < 1e-6 * (1 + fabs(diff)),
                              "trial %d %s (%s) row %d: u' by differences %.10g, W v' + drift "
                              "%.10g (drift %.10g)",
                              trial, name, face ? "face" : "end", r, diff, mine, ce[c].drift[r]);
            }
        }
    }
    ck_assert_msg(checked_end > 100 && checked_face > 100, "ends %zu, faces %zu", checked_end,
                  checked_face);
    free(jac), free(bufs);
    test_unload(&R);
}
END_TEST

/* ---- (c) bad input ----------------------------------------------------------- */

static void expect_refusal(const char *extra, const char *want1, const char *want2) {
    char text[1024], all[4096];
    snprintf(text, sizeof text,
             "[system]\nid = \"mjcf\"\nmodel = \"m.xml\"\ncontacts = \"nose, ball\"\n%s\n%s"
             "[contact]\nid = \"newton\"\n[integrator]\nid = \"dopri5\"\n[run]\nt_end = 0.1\n",
             extra, strstr(extra, "profile") ? "" : profile_keys);
    write_file("c.toml", text);
    run R;
    size_t errors = load_at("c.toml", &R, all, sizeof all);
    ck_assert_msg(errors > 0, "loaded, but should refuse (%s)", want1);
    ck_assert_msg(strstr(all, want1) && (!want2 || strstr(all, want2)),
                  "message lacks \"%s\"/\"%s\": %s", want1, want2 ? want2 : "", all);
    ck_assert_msg(strstr(all, "c.toml:"), "no config location: %s", all);
    test_unload(&R);
}

START_TEST(bad_profiles_and_rules) {
    make_tmpdir();
    write_file("m.xml", body_xml);
    expect_refusal("profile_x = [0.0, 1.0, 0.5]\nprofile_z = [0.0, 0.0, 0.0]",
                   "does not lie beyond vertex 1", "x strictly increasing");
    expect_refusal("profile_x = [0.0, 1.0]\nprofile_z = [0.0]", "same length", NULL);
    expect_refusal("profile_x = [0.0, 1.0, 2.0]\nprofile_z = [0.0, -1.0, 0.2]", "turns by",
                   "90 degrees");
    expect_refusal("arm = \"nos: hinge > 0.1\"", "'nos' is not one of the contacts",
                   "nose_seg1, nose_seg2");
    expect_refusal("arm = \"nose: hinj > 0.1\"", "no joint 'hinj'", "did you mean 'hinge'");
    expect_refusal("arm = \"nose: root > 0.1\"", "free or ball joint", NULL);
    expect_refusal("arm = \"nose hinge > 0.1\"", "expected \"CONTACT: JOINT - JOINT > VALUE\"",
                   NULL);
    expect_refusal("arm = \"nose: hinge > x\"", "expected a number after '>'", NULL);
    expect_refusal("arm = \"nose: 2 hinge > 0\"", "expected NUMBER * JOINT", NULL);
    expect_refusal("arm = \"nose: hinge > 0; nose: -hinge > 0\"", "'nose_seg1' has two rules",
                   NULL);
}
END_TEST

int main(void) {
    Suite *s = suite_create("mjcf_terrain");
    TCase *tc = tcase_create("terrain");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, sphere_rolls_over_floor_incline_profile);
    tcase_add_test(tc, terrain_rows_and_drift);
    tcase_add_test(tc, bad_profiles_and_rules);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}

/* bench_mjcf: the cost of the mjcf system (bench/README.md).
 *
 *  1. rocking block (configs/mjcf_rocking_block.toml, 2 s): nsdyn's exact
 *     event-driven run (dopri5, rtol 1e-10, rigid plastic impacts,
 *     Coulomb friction) against MuJoCo's own mj_step loop on the same file
 *     (its soft contact, 2 ms steps, same initial tilt), per simulated
 *     second and per step;
 *  2. the mjcf plugin against a hand-written system on the same physics:
 *     a ball dropped 1 m at Newton e = 0.75 for 2 s, mjcf
 *     (configs/mjcf_ball_drop.toml, free joint, 3-D) against point_mass
 *     (configs/bouncing_ball_newton.toml set to the same ball), per run and
 *     per right-hand side (derivatives() + contacts() with Jacobians, as
 *     the event-driven runner calls them, at alternating states so no
 *     cache helps);
 *  3. the compass walker (configs/mjcf_compass_walker.toml, 3 s, six
 *     heel strikes): nsdyn's exact run against MuJoCo's mj_step loop on
 *     the same file from the same state (its soft contact and 2 ms steps;
 *     MuJoCo's walker has no stepping-stone rule, so its swing foot
 *     scuffs and it does not walk the same gait: this is the cost of
 *     stepping the same model, not of the same motion);
 *  4. the MJCF walker against the hand-written walker_impact on the same
 *     gait (configs/walker_impact_periodic.toml started at its fixed
 *     point), per run and per right-hand side.
 * Thread CPU time; the variants interleave (A B A B ...) over REPS
 * repetitions after a warm-up; min / median / max are printed. The runs
 * are checked (complete, the same number of impacts) before timing. */
#define _GNU_SOURCE
#include <math.h>
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scenario.h"

#define REPS 9

static double cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void spread(const char *what, double *v, int n, double scale, const char *unit) {
    qsort(v, (size_t)n, sizeof *v, cmp);
    printf("  %-44s min %10.4g  median %10.4g  max %10.4g %s\n", what, v[0] * scale,
           v[n / 2] * scale, v[n - 1] * scale, unit);
}

/* One nsdyn run of a config; returns CPU seconds of the run alone. */
static double nsdyn_run(const char *path, const char *const *sets, size_t n_sets,
                        nsdyn_integrator_stats *st, size_t *impacts) {
    nsd_scenario s = {0};
    nsd_diag diag = {0};
    s.no_graphs = 1;
    if (nsd_scenario_load(&s, path, sets, n_sets, &diag)) {
        nsd_diag_print(&diag, stderr);
        exit(1);
    }
    double t0 = cpu_now();
    nsd_scenario_run(&s, NULL, &diag);
    double t = cpu_now() - t0;
    if (s.res.outcome != NSD_RUN_COMPLETE) {
        fprintf(stderr, "%s: %s\n", path, s.res.message);
        exit(1);
    }
    *st = s.res.stats;
    *impacts = 0;
    for (size_t i = 0; i < s.res.contact_log.n; ++i)
        *impacts += s.res.contact_log.rec[i].kind == NSD_EVENT_IMPACT;
    nsd_scenario_destroy(&s);
    nsd_diag_free(&diag);
    return t;
}

/* MuJoCo's own loop over t_end seconds from (q0, v0) (v0 may be NULL). */
static double mujoco_run(const char *xml, const double *q0, const double *v0, double t_end,
                         long *steps) {
    char err[512];
    mjModel *m = mj_loadXML(xml, NULL, err, sizeof err);
    if (!m) {
        fprintf(stderr, "%s: %s\n", xml, err);
        exit(1);
    }
    mjData *d = mj_makeData(m);
    memcpy(d->qpos, q0, (size_t)m->nq * sizeof *q0);
    if (v0) memcpy(d->qvel, v0, (size_t)m->nv * sizeof *v0);
    *steps = lround(t_end / m->opt.timestep);
    double t0 = cpu_now();
    for (long k = 0; k < *steps; ++k) mj_step(m, d);
    double t = cpu_now() - t0;
    mj_deleteData(d);
    mj_deleteModel(m);
    return t;
}

static void bench_rocking(void) {
    const char *cfg = NSDYN_SOURCE_DIR "/configs/mjcf_rocking_block.toml";
    const double b = 0.1, h = 0.3, th = 0.15,
                 q0[3] = {b - (b * cos(th) - h * sin(th)), b * sin(th) + h * cos(th), th};
    double a[REPS], bm[REPS], ratio[REPS], a_step[REPS], b_step[REPS];
    nsdyn_integrator_stats st;
    size_t impacts;
    long steps;
    nsdyn_run(cfg, NULL, 0, &st, &impacts); /* warm-up */
    mujoco_run(NSDYN_SOURCE_DIR "/configs/mjcf/rocking_block.xml", q0, NULL, 2.0, &steps);
    for (int r = 0; r < REPS; ++r) {
        a[r] = nsdyn_run(cfg, NULL, 0, &st, &impacts);
        bm[r] =
            mujoco_run(NSDYN_SOURCE_DIR "/configs/mjcf/rocking_block.xml", q0, NULL, 2.0, &steps);
        ratio[r] = a[r] / bm[r];
        a_step[r] = a[r] / (double)st.steps;
        b_step[r] = bm[r] / (double)steps;
    }
    printf("\n1. rocking block, 2 s simulated (nsdyn: %llu steps, %llu rhs, %zu impacts; "
           "MuJoCo: %ld steps of %g ms)\n",
           (unsigned long long)st.steps, (unsigned long long)st.rhs_evals, impacts, steps,
           2000.0 / (double)steps);
    spread("nsdyn exact, per simulated second", a, REPS, 1e3 / 2.0, "ms");
    spread("MuJoCo mj_step loop, per simulated second", bm, REPS, 1e3 / 2.0, "ms");
    spread("ratio nsdyn / MuJoCo (same simulated time)", ratio, REPS, 1.0, "");
    spread("nsdyn, per integrator step", a_step, REPS, 1e6, "us");
    spread("MuJoCo, per mj_step", b_step, REPS, 1e6, "us");
}

/* Per right-hand side: derivatives() then contacts() with Jacobians, at
 * two alternating states. */
static double rhs_cost(const char *path, const char *const *sets, size_t n_sets, int calls) {
    nsd_scenario s = {0};
    nsd_diag diag = {0};
    s.no_graphs = 1;
    if (nsd_scenario_load(&s, path, sets, n_sets, &diag)) exit(1);
    const nsd_model *m = &s.model;
    size_t nq = m->nq, nv = m->nv, nc = m->nc;
    double q[2][16] = {{0}}, v[2][16] = {{0}}, qd[16], vd[16], lam[48] = {0}, jac[3 * 16 * 4];
    double *bufs[4] = {jac, jac + 48, jac + 96, jac + 144};
    nsdyn_contact_eval ce[4];
    nsdyn_contact_request req = {sizeof req, 0, bufs, NULL};
    for (int k = 0; k < 2; ++k) {
        memcpy(q[k], m->y0, nq * sizeof(double));
        q[k][0] += 1e-3 * k; /* both halves of the state change between calls */
        for (size_t j = 0; j < nv; ++j) v[k][j] = 0.1 * (double)(k + 1) * (double)(j + 1);
    }
    double t0 = cpu_now();
    for (int i = 0; i < calls; ++i) {
        int k = i & 1;
        m->sys->derivatives(s.data->sys_inst, 0, q[k], v[k], lam, qd, vd);
        m->sys->contacts(s.data->sys_inst, 0, q[k], v[k], &req, ce);
    }
    double t = cpu_now() - t0;
    (void)nc;
    nsd_scenario_destroy(&s);
    nsd_diag_free(&diag);
    return t / calls;
}

static void bench_handwritten(void) {
    const char *mj = NSDYN_SOURCE_DIR "/configs/mjcf_ball_drop.toml";
    const char *pm = NSDYN_SOURCE_DIR "/configs/bouncing_ball_newton.toml";
    const char *pm_sets[] = {"contact.e=0.75", "initial.vx=0"};
    double a[REPS], bm[REPS], ratio[REPS], ra[REPS], rb[REPS], rr[REPS];
    nsdyn_integrator_stats sa, sb;
    size_t ia, ib;
    nsdyn_run(mj, NULL, 0, &sa, &ia);
    nsdyn_run(pm, pm_sets, 2, &sb, &ib);
    if (ia != ib) {
        fprintf(stderr, "mjcf and point_mass differ: %zu and %zu impacts\n", ia, ib);
        exit(1);
    }
    for (int r = 0; r < REPS; ++r) {
        a[r] = nsdyn_run(mj, NULL, 0, &sa, &ia);
        bm[r] = nsdyn_run(pm, pm_sets, 2, &sb, &ib);
        ratio[r] = a[r] / bm[r];
        ra[r] = rhs_cost(mj, NULL, 0, 20000);
        rb[r] = rhs_cost(pm, pm_sets, 2, 20000);
        rr[r] = ra[r] / rb[r];
    }
    printf("\n2. ball dropped 1 m, e = 0.75, 2 s: mjcf (free joint, nq = 7, nv = 6; %llu rhs) vs "
           "point_mass (hand-written, nq = nv = 2; %llu rhs), %zu impacts each\n",
           (unsigned long long)sa.rhs_evals, (unsigned long long)sb.rhs_evals, ia);
    spread("mjcf run", a, REPS, 1e3, "ms");
    spread("point_mass run", bm, REPS, 1e3, "ms");
    spread("ratio mjcf / point_mass (run)", ratio, REPS, 1.0, "");
    spread("mjcf derivatives+contacts", ra, REPS, 1e6, "us");
    spread("point_mass derivatives+contacts", rb, REPS, 1e6, "us");
    spread("ratio mjcf / point_mass (per rhs)", rr, REPS, 1.0, "");
}

/* The walker's state (x, z, th1, th2 | x', z', th1', th2') at
 * walker_impact's fixed point, as configs/mjcf_compass_walker.toml has it. */
static const double walker_q0[4] = {0.0, 0.402685014950516, 0.266795, -0.266795};
static const double walker_v0[4] = {0.7879108157078225, 0.16935410710980328, -1.956643, -1.289630};

static void bench_walker_mujoco(void) {
    const char *cfg = NSDYN_SOURCE_DIR "/configs/mjcf_compass_walker.toml";
    const char *xml = NSDYN_SOURCE_DIR "/configs/mjcf/compass_walker.xml";
    double a[REPS], bm[REPS], ratio[REPS], a_step[REPS], b_step[REPS];
    nsdyn_integrator_stats st;
    size_t impacts;
    long steps;
    nsdyn_run(cfg, NULL, 0, &st, &impacts); /* warm-up */
    mujoco_run(xml, walker_q0, walker_v0, 3.0, &steps);
    for (int r = 0; r < REPS; ++r) {
        a[r] = nsdyn_run(cfg, NULL, 0, &st, &impacts);
        bm[r] = mujoco_run(xml, walker_q0, walker_v0, 3.0, &steps);
        ratio[r] = a[r] / bm[r];
        a_step[r] = a[r] / (double)st.steps;
        b_step[r] = bm[r] / (double)steps;
    }
    printf("\n3. compass walker, 3 s simulated (nsdyn: %llu steps, %llu rhs, %zu heel strikes; "
           "MuJoCo: %ld steps of %g ms, its own contact)\n",
           (unsigned long long)st.steps, (unsigned long long)st.rhs_evals, impacts, steps,
           3000.0 / (double)steps);
    spread("nsdyn exact, per simulated second", a, REPS, 1e3 / 3.0, "ms");
    spread("MuJoCo mj_step loop, per simulated second", bm, REPS, 1e3 / 3.0, "ms");
    spread("ratio nsdyn / MuJoCo (same simulated time)", ratio, REPS, 1.0, "");
    spread("nsdyn, per integrator step", a_step, REPS, 1e6, "us");
    spread("MuJoCo, per mj_step", b_step, REPS, 1e6, "us");
}

static void bench_walker_handwritten(void) {
    const char *mj = NSDYN_SOURCE_DIR "/configs/mjcf_compass_walker.toml";
    const char *wi = NSDYN_SOURCE_DIR "/configs/walker_impact_periodic.toml";
    const char *wi_sets[] = {"system.theta_st0=0.266795",
                             "system.theta_sw0=-0.266795",
                             "system.omega_st0=-1.956643",
                             "system.omega_sw0=-1.289630",
                             "run.t_end=3.0",
                             "run.output_dt=2e-3"};
    double a[REPS], bm[REPS], ratio[REPS], ra[REPS], rb[REPS], rr[REPS];
    nsdyn_integrator_stats sa, sb;
    size_t ia, ib;
    nsdyn_run(mj, NULL, 0, &sa, &ia);
    nsdyn_run(wi, wi_sets, 6, &sb, &ib);
    for (int r = 0; r < REPS; ++r) {
        a[r] = nsdyn_run(mj, NULL, 0, &sa, &ia);
        bm[r] = nsdyn_run(wi, wi_sets, 6, &sb, &ib);
        ratio[r] = a[r] / bm[r];
        ra[r] = rhs_cost(mj, NULL, 0, 20000);
        rb[r] = rhs_cost(wi, wi_sets, 6, 20000);
        rr[r] = ra[r] / rb[r];
    }
    printf("\n4. the same gait, 3 s: MJCF walker (nq = nv = 4, two foot contacts, rigid; %llu "
           "steps, %llu rhs, %zu heel strikes) vs walker_impact (hand-written, nq = 3, nv = 2, "
           "rolling built in; %llu steps, %llu rhs)\n",
           (unsigned long long)sa.steps, (unsigned long long)sa.rhs_evals, ia,
           (unsigned long long)sb.steps, (unsigned long long)sb.rhs_evals);
    spread("MJCF walker run", a, REPS, 1e3, "ms");
    spread("walker_impact run", bm, REPS, 1e3, "ms");
    spread("ratio MJCF / walker_impact (run)", ratio, REPS, 1.0, "");
    spread("MJCF walker derivatives+contacts", ra, REPS, 1e6, "us");
    spread("walker_impact derivatives+contacts", rb, REPS, 1e6, "us");
    spread("ratio MJCF / walker_impact (per rhs)", rr, REPS, 1.0, "");
}

int main(void) {
    printf("bench_mjcf: thread CPU time, %d interleaved repetitions after a warm-up; MuJoCo %s\n",
           REPS, mj_versionString());
    FILE *la = fopen("/proc/loadavg", "r");
    char load[128] = "?";
    if (la && fgets(load, sizeof load, la)) load[strcspn(load, "\n")] = '\0';
    if (la) fclose(la);
    printf("machine load (/proc/loadavg) at the start: %s\n", load);
    bench_rocking();
    bench_handwritten();
    bench_walker_mujoco();
    bench_walker_handwritten();
    return 0;
}

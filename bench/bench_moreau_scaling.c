/* Benchmark (not a test): the cost of a moreau step against the number of
 * contact candidates (issue 14: 0.23 -> 18.1 us/step from 1 to 64 planes).
 *
 * Problem: sphere_planes on a level profile cut into N planes of equal
 * length (N = 1, 2, 4, ..., 64 candidates; the sphere touches one at a
 * time), newton e = 0.8, coulomb mu = 0.3, moreau h = 1e-3 s, 2000 steps.
 * Two scenarios:
 *   bounce  thrown from z = 3 m at 3 m/s: mostly in the air, a few
 *           impacts (the index set is empty in most steps);
 *   roll    rolling on the ground at 3 m/s (one contact closed in every
 *           step).
 * The config is loaded with nsd_app_load + nsd_model_create (as `nsdyn
 * run`); the host's nsdyn_ode (with its mechanics view) is handed to the
 * moreau plugin and only ig->step() is timed, from t = 0 to 2 s.
 *
 * Before and after in one run: with a folder argument, the
 * nsdyn_integrator_moreau.so found there (an older build) is opened too and
 * driven on the same host model; the two alternate, repetition by
 * repetition, so both see the same machine load. Reported per N: the
 * median us/step over the repetitions and the spread (min - max).
 *
 * Usage: bench_moreau_scaling [before_plugin_dir] [repetitions (default 7)]
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app.h"
#include "model.h"
#include "nsdyn/nsdyn.h"
#include "param_fields.h"

#define MAX_REPS 31
#define T_END 2.0

static const char *const scenario_names[2] = {"bounce", "roll"};

/* The config of N planes: a level profile of 1000 m. */
static void write_config(FILE *f, int n_planes, int roll) {
    fprintf(f, "[system]\nid = \"sphere_planes\"\nterrain = \"profile\"\nangles = [");
    for (int i = 0; i < n_planes; ++i) fprintf(f, "%s0.0", i ? ", " : "");
    fprintf(f, "]\nlengths = [");
    for (int i = 0; i < n_planes; ++i) fprintf(f, "%s%.17g", i ? ", " : "", 1000.0 / n_planes);
    fprintf(f,
            "]\nx_start = -10.0\nz_start = 0.0\nb = 1.0\nm = 1.0\nj_over_m = 0.4\n"
            "g = 9.81\nx0 = 0.0\nv0 = 3.0\nrolling0 = %s\n",
            roll ? "true" : "false");
    fprintf(f, "[contact]\nid = \"newton\"\ne = 0.8\n[friction]\nid = \"coulomb\"\nmu_s = 0.3\n"
               "mu_k = 0.3\n[integrator]\nid = \"moreau\"\nh = 1e-3\n");
    if (!roll) fprintf(f, "[initial]\nz = 3.0\n");
    fprintf(f, "[run]\nt_end = %g\noutput_dt = 0.01\nprogress = false\n", T_END);
}

typedef struct loaded {
    nsd_app app;
    nsd_model m;
    nsd_data *d; /* the runs' data */
    nsdyn_ode ode;
    nsdyn_mechanics mech;
} loaded;

static int load(loaded *L, int n_planes, int roll) {
    char path[] = "/tmp/nsdyn-bench-scaling-XXXXXX.toml";
    int fd = mkstemps(path, 5);
    if (fd < 0) return -1;
    FILE *f = fdopen(fd, "w");
    write_config(f, n_planes, roll);
    fclose(f);
    nsd_diag diag = {0};
    size_t errors = nsd_app_load(&L->app, path, NULL, 0, &diag);
    if (!errors) errors = nsd_model_create(&L->m, &L->app.cfg, &diag);
    for (size_t i = 0; i < diag.n; ++i) fprintf(stderr, "%s\n", diag.lines[i]);
    nsd_diag_free(&diag);
    remove(path);
    if (errors) return -1;
    L->d = nsd_data_create(&L->m, &L->app.host, NULL, 0);
    if (!L->d) return -1;
    nsd_model_ode(&L->m, L->d, &L->ode);
    nsd_model_mechanics(&L->m, L->d, &L->mech); /* as core/src/runner/run.c for moreau */
    L->ode.mech = &L->mech;
    L->ode.n_events = 0; /* moreau locates no events */
    return 0;
}

/* One run of ig from t = 0 to T_END: ns per step, or a negative value. */
static double time_run(const nsdyn_integrator *ig, loaded *L, size_t *m_closed_steps) {
    char err[512] = "";
    void *inst = nsd_plugin_create(&ig->info, L->app.cfg.integrator.params.values, &L->app.host,
                                   err, sizeof err);
    if (!inst) {
        fprintf(stderr, "bench: moreau create failed: %s\n", err);
        return -1.0;
    }
    if (ig->setup(inst, &L->ode, 0.0, L->m.y0, T_END) > NSDYN_WARNING) {
        fprintf(stderr, "bench: setup failed: %s\n", ig->message(inst));
        ig->info.destroy(inst);
        return -1.0;
    }
    struct timespec a, b;
    nsdyn_step_report rep;
    uint64_t steps = 0;
    size_t closed = 0;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a); /* not the time other processes run */
    for (double t = 0.0; t < T_END;) {
        if (ig->step(inst, T_END, &rep) > NSDYN_WARNING) {
            fprintf(stderr, "bench: step failed: %s\n", ig->message(inst));
            ig->info.destroy(inst);
            return -1.0;
        }
        t = rep.t;
        ++steps;
        if (rep.contact_impulse) /* steps with an impulse (not timed apart) */
            for (size_t c = 0; c < L->d->mech.n; ++c)
                if (rep.contact_impulse[3 * c] != 0.0) {
                    ++closed;
                    break;
                }
    }
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
    ig->info.destroy(inst);
    if (m_closed_steps) *m_closed_steps = closed;
    return ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / (double)steps;
}

static int cmp_d(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Median and spread of t[0..n) [ns] as "median (min - max)" in us. */
static void show(double *t, int n) {
    qsort(t, (size_t)n, sizeof *t, cmp_d);
    printf(" %7.2f (%6.2f - %6.2f)", t[n / 2] * 1e-3, t[0] * 1e-3, t[n - 1] * 1e-3);
}

static const nsdyn_integrator *open_before(const char *dir) {
    char so[4096];
    snprintf(so, sizeof so, "%s/nsdyn_integrator_moreau.so", dir);
    void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "bench: %s\n", dlerror());
        return NULL;
    }
    const nsdyn_plugin_info *(*entry)(uint32_t, uint32_t);
    void *sym = dlsym(h, "nsdyn_plugin_entry");
    if (!sym) return NULL;
    memcpy(&entry, &sym, sizeof entry);
    return (const nsdyn_integrator *)entry(NSDYN_ABI_MAJOR, 0);
}

int main(int argc, char **argv) {
    const nsdyn_integrator *before = argc > 1 ? open_before(argv[1]) : NULL;
    if (argc > 1 && !before) return 1;
    int reps = argc > 2 ? atoi(argv[2]) : 7;
    if (reps < 1 || reps > MAX_REPS) reps = 7;
    printf("moreau, sphere_planes on N level planes, h = 1e-3 s, %g s; us/step (thread CPU time), "
           "median "
           "(min - max) of %d runs\n",
           T_END, reps);
    for (int roll = 0; roll <= 1; ++roll) {
        printf("\n%s\n%5s %12s %28s", scenario_names[roll], "N", "impulse steps",
               before ? "before" : "");
        printf(" %28s\n", "after");
        for (int n = 1; n <= 64; n *= 2) {
            loaded L;
            memset(&L, 0, sizeof L);
            if (load(&L, n, roll) != 0) return 1;
            const nsdyn_integrator *after =
                (const nsdyn_integrator *)L.app.cfg.integrator.plugin->info;
            double tb[MAX_REPS], ta[MAX_REPS];
            size_t closed = 0;
            for (int r = 0; r < reps; ++r) {
                if (before && (tb[r] = time_run(before, &L, NULL)) < 0) return 1;
                if ((ta[r] = time_run(after, &L, &closed)) < 0) return 1;
            }
            printf("%5d %12zu ", n, closed);
            if (before)
                show(tb, reps);
            else
                printf(" %28s", "");
            show(ta, reps);
            printf("\n");
            nsd_data_destroy(&L.m, L.d);
            nsd_model_destroy(&L.m);
            nsd_app_free(&L.app);
        }
    }
    return 0;
}

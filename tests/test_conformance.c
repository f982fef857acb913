/* Conformance: every plugin built with nsdyn loads through the registry and
 * honours the ABI contract (descriptor fields, parameter declarations,
 * create/destroy with defaults, kind-specific invariants); and the loader
 * reports each broken plugin with one clear line. */
#define _GNU_SOURCE
#include <math.h>

#include "params.h"
#include "registry.h"
#include "test_util.h"

static nsd_registry reg;

static void load_builtin(void) {
    unsetenv("NSDYN_PLUGIN_PATH");
    nsd_diag diag = {0};
    const char *dir = nsd_builtin_plugin_dir();
    size_t problems = nsd_registry_scan(&reg, &dir, 1, &diag);
    for (size_t i = 0; i < diag.n; ++i) fprintf(stderr, "%s\n", diag.lines[i]);
    ck_assert_uint_eq(problems, 0);
    nsd_diag_free(&diag);
}

static nsdyn_value *defaults(const nsdyn_plugin_info *p) {
    nsdyn_value *v = calloc(p->n_params + 1, sizeof *v);
    for (size_t i = 0; i < p->n_params; ++i) {
        v[i].num = p->params[i].default_value;
        v[i].arr = p->params[i].default_array;
        v[i].len = p->params[i].default_array_len;
    }
    return v;
}

static const nsdyn_host host = {sizeof(nsdyn_host), NULL, NULL};

/* A rigid law's local_impulse() with u_free = u_start = u- is its impact()
 * for that one contact (contact.h): the event-driven runner and
 * time-stepping run the same law. Random positive definite blocks and
 * velocities, approaching and not; both must give the same impulse. */
static void rigid_paths_agree(const char *id, const nsdyn_contact_law *c, void *inst) {
    ck_assert_msg(c->coefficients != NULL, "%s: local_impulse() without coefficients()", id);
    nsdyn_rigid_coefficients co = {sizeof co, 0, -1.0};
    c->coefficients(inst, &co);
    ck_assert(co.kind >= NSDYN_RESTITUTION_NEWTON && co.kind <= NSDYN_RESTITUTION_OTHER);
    ck_assert(co.restitution >= 0.0);
    unsigned seed = 12345u;
    for (int trial = 0; trial < 200; ++trial) {
        double L[9] = {0}, G[9], u[3];
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j <= i; ++j) L[3 * i + j] = (i == j ? 1.0 : 0.0) + 0.5 * ((rand_r(&seed) % 2001) / 1000.0 - 1.0);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                G[3 * i + j] = 0.0;
                for (int k = 0; k < 3; ++k) G[3 * i + j] += L[3 * i + k] * L[3 * j + k];
            }
        for (int i = 0; i < 3; ++i) u[i] = 2.0 * ((rand_r(&seed) % 2001) / 1000.0 - 1.0);
        uint32_t dim = 1 + (uint32_t)(trial % 2);
        double mu_s = 0.5, mu_k = 0.4, gap = 0.0, P_imp[3] = {0}, up[3], P_loc[3] = {0};
        nsdyn_impact_problem pr = {sizeof pr, 1, dim, G, u, &mu_s, &mu_k, &gap, NULL, 0};
        nsdyn_local_impact lp = {sizeof lp, dim, G, u, u, mu_s, mu_k};
        nsdyn_status a = c->impact(inst, &pr, P_imp, up), b = c->local_impulse(inst, &lp, P_loc);
        ck_assert_msg((a > NSDYN_WARNING) == (b > NSDYN_WARNING), "%s: trial %d: impact %d, local %d", id, trial, (int)a, (int)b);
        if (a > NSDYN_WARNING) continue;
        for (int i = 0; i < 3; ++i)
            ck_assert_msg(P_imp[i] == P_loc[i], "%s: trial %d: impulse %d: impact %.17g, local %.17g", id, trial, i, P_imp[i], P_loc[i]);
    }
}

START_TEST(every_builtin_plugin_conforms) {
    load_builtin();
    const char *expected[] = {"towed_wheel",   "point_mass", "coulomb",       "coulomb_regularized",
                              "lugre",         "stribeck",   "hunt_crossley", "hertz",
                              "spring_damper", "bistiffness", "rk4",          "dopri5",
                              "bdf"};
    size_t n_expected = sizeof expected / sizeof expected[0];
    ck_assert_uint_ge(reg.n, n_expected);
    for (size_t i = 0; i < n_expected; ++i)
        ck_assert_msg(nsd_registry_find(&reg, expected[i]), "missing %s", expected[i]);
    for (size_t i = 0; i < reg.n; ++i) {
        const nsdyn_plugin_info *p = reg.plugins[i].info;
        printf("checking %-22s %s\n", p->id, nsd_kind_name(p->kind));
        ck_assert_uint_eq(p->abi_major, NSDYN_ABI_MAJOR);
        ck_assert_msg(p->version && *p->version, "%s: no version", p->id);
        ck_assert_msg(p->summary && *p->summary && strlen(p->summary) < 110, "%s: summary missing or not one line", p->id);
        nsd_diag diag = {0};
        ck_assert_msg(nsd_params_check_decls(p->params, p->n_params, p->id, &diag) == 0, "%s: %s", p->id,
                      diag.n ? diag.lines[0] : "");
        nsd_diag_free(&diag);
        nsdyn_value *v = defaults(p);
        char err[256] = "";
        int required = 0;
        for (size_t k = 0; k < p->n_params; ++k) required |= (p->params[k].flags & NSDYN_PARAM_REQUIRED) != 0;
        switch (p->kind) {
        case NSDYN_KIND_SYSTEM: {
            const nsdyn_system *s = (const nsdyn_system *)p;
            ck_assert(s->create && s->destroy && s->layout && s->derivatives && s->contacts);
            if (required) break;
            void *inst = s->create(v, &host, err, sizeof err);
            ck_assert_msg(inst, "%s: create with defaults failed: %s", p->id, err);
            nsdyn_system_layout L = {.struct_size = sizeof L};
            ck_assert_int_le(s->layout(inst, &L), NSDYN_WARNING);
            ck_assert_uint_gt(L.nq + L.nv, 0);
            for (size_t k = 0; k < L.nq; ++k) ck_assert(L.q[k].name && L.q[k].unit && *L.q[k].unit);
            for (size_t k = 0; k < L.nv; ++k) ck_assert(L.v[k].name && L.v[k].unit && *L.v[k].unit);
            for (size_t k = 0; k < L.n_outputs; ++k) ck_assert(L.outputs[k].name && L.outputs[k].unit);
            for (size_t k = 0; k < L.n_contacts; ++k) {
                ck_assert(L.contacts[k].name);
                ck_assert(L.contacts[k].tangent_dim == 1 || L.contacts[k].tangent_dim == 2);
                /* Declared capabilities match the layout. */
                if (L.contacts[k].type == NSDYN_CONTACT_PERSISTENT) ck_assert(p->provides & NSDYN_CAP_PERSISTENT_CONTACTS);
                if (L.contacts[k].type == NSDYN_CONTACT_UNILATERAL) ck_assert(p->provides & NSDYN_CAP_UNILATERAL_CONTACTS);
                if (L.contacts[k].tangent_dim == 2) ck_assert(p->provides & NSDYN_CAP_TANGENT_2D);
            }
            ck_assert(!(p->provides & NSDYN_CAP_DRAWS) || s->draw);
            ck_assert(L.n_stops == 0 || s->stops);
            /* derivatives() must be affine in the contact forces: check on a
             * random state with two force vectors and their mean. */
            double q[64] = {0}, vv[64] = {0}, f0[48] = {0}, f1[48], fm[48], a0[64], a1[64], am[64];
            ck_assert(L.nq <= 64 && L.nv <= 64 && 3 * L.n_contacts <= 48);
            s->initial_state(inst, q, vv);
            for (size_t k = 0; k < L.nv; ++k) vv[k] += 0.1 * (double)(k + 1);
            for (size_t k = 0; k < 3 * L.n_contacts; ++k) {
                f1[k] = 10.0 + 3.0 * (double)k;
                fm[k] = 0.5 * f1[k];
            }
            ck_assert_int_le(s->derivatives(inst, 0.1, q, vv, f0, NULL, a0), NSDYN_WARNING);
            ck_assert_int_le(s->derivatives(inst, 0.1, q, vv, f1, NULL, a1), NSDYN_WARNING);
            ck_assert_int_le(s->derivatives(inst, 0.1, q, vv, fm, NULL, am), NSDYN_WARNING);
            for (size_t k = 0; k < L.nv; ++k)
                ck_assert_double_eq_tol(am[k], 0.5 * (a0[k] + a1[k]), 1e-9 * (1 + fabs(a1[k])));
            /* Asking for both halves gives what asking for each gives. */
            double qd[64], qd_only[64], ab[64];
            ck_assert_int_le(s->derivatives(inst, 0.1, q, vv, f1, qd, ab), NSDYN_WARNING);
            ck_assert_int_le(s->derivatives(inst, 0.1, q, vv, f1, qd_only, NULL), NSDYN_WARNING);
            for (size_t k = 0; k < L.nq; ++k) ck_assert_double_eq(qd[k], qd_only[k]);
            for (size_t k = 0; k < L.nv; ++k) ck_assert_double_eq(ab[k], a1[k]);
            s->destroy(inst);
            break;
        }
        case NSDYN_KIND_FRICTION: {
            const nsdyn_friction_law *f = (const nsdyn_friction_law *)p;
            ck_assert(f->create && f->destroy && f->n_states && f->force && f->bounds);
            void *inst = f->create(v, &host, err, sizeof err);
            ck_assert_msg(inst, "%s: create with defaults failed: %s", p->id, err);
            double Fs, Fk;
            f->bounds(inst, 100.0, &Fs, &Fk);
            ck_assert(Fs >= 0 && Fk >= 0);
            if (f->n_states(inst, 2) == 0) {
                /* Dissipative and bounded on a ring of slip directions. */
                for (int k = 0; k < 36; ++k) {
                    double a = k * M_PI / 18, s = 0.2 * (1 + k % 4);
                    nsdyn_friction_input in = {2, {s * cos(a), s * sin(a)}, 100.0, NULL};
                    double F[2];
                    ck_assert_int_le(f->force(inst, &in, F, NULL), NSDYN_WARNING);
                    ck_assert_double_le(F[0] * in.slip[0] + F[1] * in.slip[1], 0.0);
                    ck_assert_double_le(hypot(F[0], F[1]), Fk * (1 + 1e-12));
                }
            }
            if (f->n_states(inst, 2) == 0) {
                /* Proportional to N (friction.h): rigid contact evaluates
                 * force() at N = 1 and scales it by the unknown N. */
                nsdyn_friction_input one = {2, {0.3, -0.4}, 1.0, NULL}, big = one;
                big.normal_force = 250.0;
                double F1[2], Fb[2];
                ck_assert_int_le(f->force(inst, &one, F1, NULL), NSDYN_WARNING);
                ck_assert_int_le(f->force(inst, &big, Fb, NULL), NSDYN_WARNING);
                for (int k = 0; k < 2; ++k) ck_assert_double_eq_tol(Fb[k], 250.0 * F1[k], 1e-12 * (1 + fabs(Fb[k])));
            }
            f->destroy(inst);
            break;
        }
        case NSDYN_KIND_INTEGRATOR: {
            const nsdyn_integrator *g = (const nsdyn_integrator *)p;
            ck_assert(g->create && g->destroy && g->setup && g->step && g->restart && g->stats && g->message);
            ck_assert(!(p->provides & NSDYN_CAP_DENSE_OUTPUT) || g->dense);
            void *inst = g->create(v, &host, err, sizeof err);
            ck_assert_msg(inst, "%s: create with defaults failed: %s", p->id, err);
            nsdyn_integrator_stats st = {.struct_size = sizeof st};
            g->stats(inst, &st);
            ck_assert_uint_eq(st.steps, 0);
            g->destroy(inst);
            break;
        }
        case NSDYN_KIND_CONTACT: {
            const nsdyn_contact_law *c = (const nsdyn_contact_law *)p;
            ck_assert(c->create && c->destroy);
            ck_assert(!(p->provides & NSDYN_CAP_COMPLIANT_NORMAL) || c->normal_force);
            ck_assert(!(p->provides & NSDYN_CAP_RIGID_IMPACT) || c->impact);
            void *inst = c->create(v, &host, err, sizeof err);
            ck_assert_msg(inst, "%s: create with defaults failed: %s", p->id, err);
            if (c->local_impulse) rigid_paths_agree(p->id, c, inst);
            if (c->normal_force) {
                /* Never pulls; nothing while separated; finite while penetrating. */
                const double gaps[] = {1e-3, 0.0, -1e-5, -1e-3}, rates[] = {-1.0, 0.0, 1.0};
                for (size_t a = 0; a < 4; ++a)
                    for (size_t b = 0; b < 3; ++b) {
                        double N = -1.0;
                        ck_assert_int_le(c->normal_force(inst, gaps[a], rates[b], &N), NSDYN_WARNING);
                        ck_assert_msg(isfinite(N) && N >= 0.0, "%s: N = %g", p->id, N);
                        if (gaps[a] >= 0.0) ck_assert_double_eq(N, 0.0);
                    }
            }
            c->destroy(inst);
            break;
        }
        }
        free(v);
    }
    nsd_registry_close(&reg);
}
END_TEST

/* Scan one fixture folder and return its single diagnostic line. */
static char *scan_fixture(const char *name) {
    char dir[512];
    snprintf(dir, sizeof dir, "%s/%s", NSDYN_TEST_FIXTURE_DIR, name);
    nsd_registry r = {0};
    nsd_diag diag = {0};
    const char *d = dir;
    size_t problems = nsd_registry_scan(&r, &d, 1, &diag);
    ck_assert_uint_eq(problems, 1);
    ck_assert_uint_eq(diag.n, 1);
    char *line = strdup(diag.lines[0]);
    nsd_diag_free(&diag);
    nsd_registry_close(&r);
    return line;
}

static void expect_line(const char *fixture, const char *file, const char *message) {
    char *line = scan_fixture(fixture), want[1024];
    snprintf(want, sizeof want, "%s/%s/%s: %s", NSDYN_TEST_FIXTURE_DIR, fixture, file, message);
    ck_assert_str_eq(line, want);
    free(line);
}

START_TEST(loader_missing_entry_point) {
    expect_line("no_entry", "nsdyn_fixture_no_entry.so", "no entry point 'nsdyn_plugin_entry' (not an nsdyn plugin?)");
}
END_TEST

START_TEST(loader_abi_mismatch) {
    expect_line("abi", "nsdyn_fixture_abi.so",
                "ABI mismatch: plugin 'fixture_friction' was built for nsdyn ABI 99.0, this host speaks 2.0");
}
END_TEST

START_TEST(loader_unknown_kind) {
    expect_line("kind", "nsdyn_fixture_kind.so", "plugin 'fixture_friction' declares unknown kind 9");
}
END_TEST

START_TEST(loader_descriptor_too_small) {
    char msg[256];
    snprintf(msg, sizeof msg, "plugin 'fixture_friction': friction law descriptor is 40 bytes, ABI 2.0 needs at least %zu",
             offsetof(nsdyn_friction_law, bounds) + sizeof(void *));
    expect_line("size", "nsdyn_fixture_size.so", msg);
}
END_TEST

START_TEST(loader_duplicate_id) {
    char *line = scan_fixture("duplicate"), want[1024];
    snprintf(want, sizeof want, "duplicate plugin id 'twin_friction': %s/duplicate/nsdyn_fixture_dup_a.so and %s/duplicate/nsdyn_fixture_dup_b.so",
             NSDYN_TEST_FIXTURE_DIR, NSDYN_TEST_FIXTURE_DIR);
    ck_assert_str_eq(line, want);
    free(line);
}
END_TEST

START_TEST(loader_unreadable_file) {
    char dir[] = "/tmp/nsdyn-badso-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[600];
    snprintf(path, sizeof path, "%s/garbage.so", dir);
    FILE *f = fopen(path, "w");
    fputs("not an ELF file\n", f);
    fclose(f);
    nsd_registry r = {0};
    nsd_diag diag = {0};
    const char *d = dir;
    ck_assert_uint_eq(nsd_registry_scan(&r, &d, 1, &diag), 1);
    char prefix[700];
    snprintf(prefix, sizeof prefix, "%s: cannot load plugin: ", path);
    ck_assert_msg(strncmp(diag.lines[0], prefix, strlen(prefix)) == 0, "%s", diag.lines[0]);
    ck_assert_ptr_null(strchr(diag.lines[0], '\n'));
    nsd_diag_free(&diag);
    nsd_registry_close(&r);
    remove(path);
    rmdir(dir);
}
END_TEST

int main(void) {
    Suite *s = suite_create("conformance");
    TCase *tc = tcase_create("plugins");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, every_builtin_plugin_conforms);
    tcase_add_test(tc, loader_missing_entry_point);
    tcase_add_test(tc, loader_abi_mismatch);
    tcase_add_test(tc, loader_unknown_kind);
    tcase_add_test(tc, loader_descriptor_too_small);
    tcase_add_test(tc, loader_duplicate_id);
    tcase_add_test(tc, loader_unreadable_file);
    suite_add_tcase(s, tc);
    int failed = test_run_suite(s);
    return failed;
}

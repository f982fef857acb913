#define _GNU_SOURCE
/* ABI 2.6 (docs/plugin-guide.md §15): parameters filled by the host into a
 * plugin's own struct from the offsets its NSDYN_EXT_PARAM_FIELDS table
 * declares (core/src/plugins/param_fields.c).
 *
 * 1. A table the host cannot fill is refused when the plugin is loaded,
 *    with an exact message: a member past the struct's end, two members
 *    overlapping, a member whose C type the declared type does not convert
 *    to, a misaligned member, entries out of declaration order, an int
 *    member for a range beyond int's, a member size that is not its type's,
 *    an array's count member on another member (fixtures/field_mistakes.c,
 *    `nsdyn check`). The same table done right passes.
 * 2. Random offsets: one member of the correct table moved to a random
 *    offset; the host's check accepts it exactly when an independent map
 *    of the struct's bytes says every member is inside, aligned and alone.
 * 3. Random valid values over the fixture's declarations (every member
 *    type): the struct create() receives holds each value as its C type.
 * 4. Every shipped plugin with a table: its table passes the check, and
 *    for random valid values the filled struct holds each value at its
 *    member and nothing elsewhere; for the 13 laws of `oracles`, the
 *    instance create() makes equals, byte for byte, the one their create()
 *    unpacked by hand before ABI 2.6 (the old code, kept here as the
 *    oracle), and both refuse the same values. Swapping two members of one
 *    law's table (lugre's sigma1 and sigma2) fails this test.
 * 5. A value an int or _Bool member cannot hold exactly (a fraction, out of
 *    the declared range or list), from a caller that bypassed the host's
 *    resolver, is refused by nsd_plugin_create(), never truncated. */
#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <sys/wait.h>

#include "param_fields.h"
#include "test_util.h"

#define FIELDS NSDYN_TEST_FIXTURE_DIR "/fields/"

/* ---- random numbers (a fixed seed: a failure repeats) --------------- */

static uint64_t rng = 0x9e3779b97f4a7c15u;
static double uniform(void) { /* [0, 1) */
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) * 0x1.0p-53;
}
static size_t below(size_t n) { return (size_t)(uniform() * (double)n); }

/* ---- opening a plugin file ------------------------------------------ */

static const nsdyn_plugin_info *descriptor(void *handle, uint32_t i) {
    nsdyn_plugin_entry_fn entry;
    *(void **)&entry = dlsym(handle, NSDYN_PLUGIN_ENTRY_NAME);
    return entry ? entry(NSDYN_ABI_MAJOR, i) : NULL;
}

static const nsdyn_plugin_info *open_first(const char *file, void **handle) {
    *handle = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    ck_assert_msg(*handle, "%s: %s", file, dlerror());
    const nsdyn_plugin_info *info = descriptor(*handle, 0);
    ck_assert_ptr_nonnull(info);
    return info;
}

/* ---- 1. the loader's refusals ---------------------------------------- */

static int check_file(const char *file, char *out, size_t len) {
    char args[4096];
    snprintf(args, sizeof args, "check --timeout 2 '%s'", file);
    return test_nsdyn(args, out, len);
}

static const struct mistake {
    const char *name, *message;
} mistakes[] = {
    {"beyond", "parameter 'mu_k': member at offset 72 (8 bytes) ends past the struct's 72 bytes"},
    {"overlap", "parameter 'mu_k' (bytes 0 to 7) overlaps parameter 'mu_s' (bytes 0 to 7)"},
    {"type", "parameter 'mu_k' is declared REAL, but its member's C type is int"},
    {"unaligned",
     "parameter 'mu_k': member at offset 12 is not aligned for its type double (8 bytes)"},
    {"order", "entry 1 names 'mu_k', but declared parameter 1 is 'mu_s' (one entry per "
              "parameter, in declaration order)"},
    {"int_range", "parameter 'terms' is an int member, but its declared range [0, 1e+12] "
                  "exceeds int's [-2147483648, 2147483647]"},
    {"size", "parameter 'mu_k': its double member is 4 bytes, a double is 8"},
    {"count", "parameter 'weights' count (bytes 24 to 31) overlaps parameter 'shape' (bytes 24 "
              "to 27)"},
};

START_TEST(each_mistake_is_refused_with_its_message) {
    static char out[1 << 14];
    const struct mistake *m = &mistakes[_i];
    char file[1024], want[2048];
    snprintf(file, sizeof file, FIELDS "nsdyn_friction_fields_%s.so", m->name);
    snprintf(want, sizeof want, "error: %s: plugin 'fields_%s': %s: %s\n", file, m->name,
             NSDYN_EXT_PARAM_FIELDS, m->message);
    int st = check_file(file, out, sizeof out);
    ck_assert_msg(st != 0, "%s: exit 0\n%s", m->name, out);
    ck_assert_msg(strstr(out, want), "%s: wanted\n%sgot\n%s", m->name, want, out);
    /* the host's create refuses the table too, for a caller that opened
     * the plugin itself, before the plugin's create() sees a byte */
    void *h;
    const nsdyn_plugin_info *info = open_first(file, &h);
    char err[512] = "";
    nsdyn_value v[16] = {{0}};
    ck_assert_ptr_null(nsd_plugin_create(info, v, NULL, err, sizeof err));
    ck_assert_msg(strstr(err, m->message), "%s", err);
    dlclose(h);
}
END_TEST

START_TEST(the_table_done_right_passes) {
    static char out[1 << 14];
    ck_assert_int_eq(check_file(FIELDS "nsdyn_friction_fields_none.so", out, sizeof out), 0);
    ck_assert_msg(strstr(out, "fields_none            ok"), "%s", out);
}
END_TEST

/* ---- 2. random offsets against a map of the struct's bytes ----------- */

static size_t align_of(nsdyn_field_type t) {
    switch (t) {
        case NSDYN_FIELD_DOUBLE: return _Alignof(double);
        case NSDYN_FIELD_INT: return _Alignof(int);
        case NSDYN_FIELD_BOOL: return _Alignof(bool);
        default: return _Alignof(void *);
    }
}

/* Independent of the host: every member (and array count) inside the
 * struct, aligned, and no byte claimed twice. */
static bool layout_fits(const nsdyn_param_fields *f) {
    unsigned char owner[512] = {0};
    if (f->size > sizeof owner) return false;
    for (size_t i = 0; i < f->n; ++i) {
        const nsdyn_param_field *x = &f->field[i];
        size_t at[2] = {x->offset, x->count_offset}, sz[2] = {x->size, x->count_size};
        size_t al[2] = {align_of(x->type), _Alignof(size_t)};
        for (int k = 0; k < (x->type == NSDYN_FIELD_ARRAY ? 2 : 1); ++k) {
            if (at[k] + sz[k] > f->size || at[k] % al[k]) return false;
            for (size_t b = at[k]; b < at[k] + sz[k]; ++b)
                if (owner[b]++) return false;
        }
    }
    return true;
}

START_TEST(random_offsets_are_refused_exactly_when_they_do_not_fit) {
    void *h;
    const nsdyn_plugin_info *info = open_first(FIELDS "nsdyn_friction_fields_none.so", &h);
    const nsdyn_param_fields *right = nsd_plugin_param_fields(info);
    ck_assert_ptr_nonnull(right);
    ck_assert(layout_fits(right));
    nsdyn_param_field field[16];
    ck_assert_int_le(right->n, 16);
    size_t refused = 0, trials = 3000;
    for (size_t t = 0; t < trials; ++t) {
        memcpy(field, right->field, right->n * sizeof *field);
        nsdyn_param_fields f = *right;
        f.field = field;
        size_t i = below(f.n);
        size_t moved = below(f.size + 16);
        if (field[i].type == NSDYN_FIELD_ARRAY && uniform() < 0.5)
            field[i].count_offset = moved;
        else
            field[i].offset = moved;
        char why[512] = "";
        int st = nsd_param_fields_check(&f, info->params, info->n_params, why, sizeof why);
        bool fits = layout_fits(&f);
        ck_assert_msg((st == 0) == fits, "entry %zu at %zu: host %s, map %s (%s)", i, moved,
                      st ? "refuses" : "accepts", fits ? "fits" : "does not fit", why);
        refused += st != 0;
    }
    /* most moves collide: the refusals are exercised, not just acceptance */
    ck_assert_uint_gt(refused, trials / 2);
    ck_assert_uint_lt(refused, trials);
    dlclose(h);
}
END_TEST

/* ---- random valid values ---------------------------------------------- */

static double aligned_texts[4][4];
static double arrays[8][6];

/* A value the declaration admits, drawn at random. */
static nsdyn_value random_value(const nsdyn_param_decl *d, size_t slot) {
    nsdyn_value v = {0};
    double lo = isfinite(d->min) ? d->min : -1e6, hi = isfinite(d->max) ? d->max : 1e6;
    if (lo < -1e6) lo = -1e6;
    if (hi > lo + 2e6) hi = lo + 2e6;
    switch (d->type) {
        case NSDYN_PARAM_REAL:
            do v.num = lo + (hi - lo) * uniform();
            while (!nsd_params_admits(d, v.num));
            break;
        case NSDYN_PARAM_INT:
            do v.num = ceil(lo) + (double)below((size_t)(floor(hi) - ceil(lo)) + 1);
            while (!nsd_params_admits(d, v.num));
            break;
        case NSDYN_PARAM_BOOL: v.num = (double)below(2); break;
        case NSDYN_PARAM_CHOICE: {
            size_t n = 0;
            while (d->choices[n]) ++n;
            v.num = (double)below(n);
            break;
        }
        case NSDYN_PARAM_STRING: {
            char *t = (char *)(void *)aligned_texts[slot % 4];
            snprintf(t, sizeof aligned_texts[0], "text%zu", below(1000));
            v.arr = aligned_texts[slot % 4];
            v.len = strlen(t);
            break;
        }
        case NSDYN_PARAM_REAL_ARRAY: {
            double *a = arrays[slot % 8];
            v.len = below(7);
            for (size_t k = 0; k < v.len; ++k) a[k] = lo + (hi - lo) * uniform();
            v.arr = v.len ? a : NULL;
            break;
        }
    }
    return v;
}

/* Each member of block holds its value (plugin.h's conversions); every
 * other byte is still 0. */
static void expect_filled(const nsdyn_plugin_info *info, const nsdyn_param_fields *f,
                          const nsdyn_value *v, const unsigned char *block) {
    unsigned char *mine = calloc(1, f->size);
    for (size_t i = 0; i < f->n; ++i) {
        const nsdyn_param_field *x = &f->field[i];
        const unsigned char *at = block + x->offset;
        const char *name = info->params[i].name;
        memset(mine + x->offset, 1, x->size);
        switch (x->type) {
            case NSDYN_FIELD_DOUBLE: {
                double d;
                memcpy(&d, at, sizeof d);
                ck_assert_msg(d == v[i].num, "%s.%s: %g, not %g", info->id, name, d, v[i].num);
                break;
            }
            case NSDYN_FIELD_INT: {
                int k;
                memcpy(&k, at, sizeof k);
                ck_assert_msg((double)k == v[i].num, "%s.%s: %d", info->id, name, k);
                break;
            }
            case NSDYN_FIELD_BOOL: {
                bool b;
                memcpy(&b, at, sizeof b);
                ck_assert_msg(b == (v[i].num != 0), "%s.%s", info->id, name);
                break;
            }
            case NSDYN_FIELD_TEXT: {
                const char *t;
                memcpy(&t, at, sizeof t);
                ck_assert_str_eq(t, nsdyn_value_text(&v[i]));
                break;
            }
            case NSDYN_FIELD_ARRAY: {
                const double *a;
                size_t n;
                memcpy(&a, at, sizeof a);
                memcpy(&n, block + x->count_offset, sizeof n);
                memset(mine + x->count_offset, 1, sizeof n);
                ck_assert_msg(a == v[i].arr && n == v[i].len, "%s.%s", info->id, name);
                break;
            }
            default: ck_abort_msg("%s.%s: type %d", info->id, name, (int)x->type);
        }
    }
    for (size_t b = 0; b < f->size; ++b)
        ck_assert_msg(mine[b] || !block[b], "%s: byte %zu outside every member is %d", info->id, b,
                      block[b]);
    free(mine);
}

/* ---- 3. the fixture: every member type, through create() ------------ */

START_TEST(random_values_reach_create_as_their_c_types) {
    void *h;
    const nsdyn_plugin_info *info = open_first(FIELDS "nsdyn_friction_fields_none.so", &h);
    const nsdyn_param_fields *f = nsd_plugin_param_fields(info);
    for (int t = 0; t < 200; ++t) {
        nsdyn_value v[16];
        for (size_t i = 0; i < info->n_params; ++i) v[i] = random_value(&info->params[i], i);
        char err[256] = "";
        void *inst = nsd_plugin_create(info, v, NULL, err, sizeof err);
        ck_assert_msg(inst, "%s", err);
        expect_filled(info, f, v, inst); /* the fixture's instance is the struct */
        ((const nsdyn_friction_law *)(const void *)info)->info.destroy(inst);
    }
    dlclose(h);
}
END_TEST

/* ---- 4. every shipped plugin with a table ----------------------------- */

/* The old hand unpacking (each plugin's create() before ABI 2.6, from
 * main), into copies of the plugins' structs: the oracle. Each returns 0,
 * or -1 where the old create() refused. */
typedef struct o_coulomb {
    double mu_s, mu_k, eps;
    int shape;
} o_coulomb;
typedef struct o_stribeck {
    double mu_s, mu_k, v_s, delta, eps, sigma2;
} o_stribeck;
typedef struct o_lugre {
    double sigma0, sigma1, sigma2, mu_s, mu_k, v_s;
} o_lugre;
typedef struct o_compliant {
    int kind; /* law_kind */
    double k, c, n, p, q, alpha, mu_n, k_comp, k_exp;
} o_compliant;
typedef struct o_impact {
    int kind; /* law_kind */
    double e;
    nsdyn_host host;
    int have_host;
} o_impact;
typedef struct o_one {
    double x; /* pc_impact's e, bistiffness_limit's mu_n */
    nsdyn_host host;
    int have_host;
} o_one;

static int old_coulomb(const nsdyn_value *p, void *out, int regularized) {
    o_coulomb *c = out;
    if (p[1].num > p[0].num) return -1;
    c->mu_s = p[0].num, c->mu_k = p[1].num;
    if (regularized) c->eps = p[2].num, c->shape = (int)p[3].num;
    return 0;
}
static int old_coulomb_sv(const nsdyn_value *p, void *out) { return old_coulomb(p, out, 0); }
static int old_coulomb_reg(const nsdyn_value *p, void *out) { return old_coulomb(p, out, 1); }
static int old_stribeck(const nsdyn_value *p, void *out) {
    o_stribeck *s = out;
    if (p[1].num > p[0].num) return -1;
    s->mu_s = p[0].num, s->mu_k = p[1].num, s->v_s = p[2].num;
    s->delta = p[3].num, s->eps = p[4].num, s->sigma2 = p[5].num;
    return 0;
}
static int old_lugre(const nsdyn_value *p, void *out) {
    o_lugre *l = out;
    if (p[4].num > p[3].num) return -1;
    l->sigma0 = p[0].num, l->sigma1 = p[1].num, l->sigma2 = p[2].num;
    l->mu_s = p[3].num, l->mu_k = p[4].num, l->v_s = p[5].num;
    return 0;
}
static int old_hunt_crossley(const nsdyn_value *v, void *out) {
    o_compliant *law = out;
    double k = v[0].num, c = v[1].num, n = v[2].num, p = v[3].num, q = v[4].num;
    if (c > 0 && p == 0 && q == 0) return -1;
    law->kind = 0, law->k = k, law->c = c, law->n = n, law->p = p, law->q = q;
    return 0;
}
static int old_hertz(const nsdyn_value *v, void *out) {
    o_compliant *law = out;
    law->kind = 1, law->k = v[0].num;
    law->alpha = v[1].num; /* new: the declared alpha kept beside c */
    law->c = 1.5 * v[1].num * law->k;
    law->n = law->p = 1.5, law->q = 1.0;
    return 0;
}
static int old_spring_damper(const nsdyn_value *v, void *out) {
    o_compliant *law = out;
    law->kind = 2, law->k = v[0].num, law->c = v[1].num;
    law->n = law->q = 1.0, law->p = 0.0;
    return 0;
}
static int old_bistiffness(const nsdyn_value *v, void *out) {
    o_compliant *law = out;
    double k = v[0].num, mu_n = v[1].num;
    law->kind = 3, law->k = k;
    law->mu_n = mu_n; /* new: the declared mu_n kept beside k_comp, k_exp */
    law->k_comp = k * (1.0 + mu_n), law->k_exp = k * (1.0 - mu_n);
    return 0;
}
static int old_impact(const nsdyn_value *v, void *out, int kind) {
    o_impact *law = out;
    law->kind = kind, law->e = v[0].num;
    return 0;
}
static int old_newton(const nsdyn_value *v, void *out) { return old_impact(v, out, 0); }
static int old_kane(const nsdyn_value *v, void *out) { return old_impact(v, out, 1); }
static int old_poisson(const nsdyn_value *v, void *out) { return old_impact(v, out, 2); }
static int old_one(const nsdyn_value *v, void *out) {
    ((o_one *)out)->x = v[0].num;
    return 0;
}

static const struct oracle {
    const char *id;
    size_t size;
    int (*unpack)(const nsdyn_value *p, void *out);
} oracles[] = {
    {"coulomb", sizeof(o_coulomb), old_coulomb_sv},
    {"coulomb_regularized", sizeof(o_coulomb), old_coulomb_reg},
    {"stribeck", sizeof(o_stribeck), old_stribeck},
    {"lugre", sizeof(o_lugre), old_lugre},
    {"hunt_crossley", sizeof(o_compliant), old_hunt_crossley},
    {"hertz", sizeof(o_compliant), old_hertz},
    {"spring_damper", sizeof(o_compliant), old_spring_damper},
    {"bistiffness", sizeof(o_compliant), old_bistiffness},
    {"newton", sizeof(o_impact), old_newton},
    {"kane_impulse", sizeof(o_impact), old_kane},
    {"poisson", sizeof(o_impact), old_poisson},
    {"pc_impact", sizeof(o_one), old_one},
    {"bistiffness_limit", sizeof(o_one), old_one},
};

/* The instance create() made from v, against the old unpacking of v: both
 * refuse, or both give the same bytes (the instance is the struct). */
static void expect_oracle(const nsdyn_plugin_info *info, const struct oracle *o,
                          const nsdyn_value *v) {
    unsigned char want[256] = {0};
    ck_assert_uint_le(o->size, sizeof want);
    int old = o->unpack(v, want);
    char err[512] = "";
    void *inst = nsd_plugin_create(info, v, NULL, err, sizeof err);
    if (old != 0) {
        ck_assert_msg(!inst, "%s: the old create() refused, the new one accepts", info->id);
        return;
    }
    ck_assert_msg(inst, "%s: %s", info->id, err);
    ck_assert_msg(memcmp(inst, want, o->size) == 0,
                  "%s: the instance differs from the old unpacking", info->id);
    info->destroy(inst);
}

START_TEST(shipped_tables_fill_what_the_old_unpacking_did) {
    DIR *dir = opendir(NSDYN_TEST_PLUGIN_DIR);
    ck_assert_ptr_nonnull(dir);
    size_t with_table = 0, with_oracle = 0;
    for (struct dirent *e; (e = readdir(dir));) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 3, ".so")) continue;
        char file[4096];
        snprintf(file, sizeof file, "%s/%s", NSDYN_TEST_PLUGIN_DIR, e->d_name);
        void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
        if (!h) continue; /* (a system whose library is missing here) */
        for (uint32_t d = 0;; ++d) {
            const nsdyn_plugin_info *info = descriptor(h, d);
            if (!info) break;
            const nsdyn_param_fields *f = nsd_plugin_param_fields(info);
            if (!f) continue;
            ++with_table;
            char why[512] = "";
            ck_assert_msg(!nsd_param_fields_check(f, info->params, info->n_params, why, sizeof why),
                          "%s: %s", info->id, why);
            const struct oracle *o = NULL;
            for (size_t k = 0; k < sizeof oracles / sizeof oracles[0]; ++k)
                if (!strcmp(oracles[k].id, info->id)) o = &oracles[k];
            with_oracle += o != NULL;
            for (int t = 0; t < 100; ++t) {
                nsdyn_value v[64];
                ck_assert_uint_le(info->n_params, 64);
                for (size_t i = 0; i < info->n_params; ++i)
                    v[i] = random_value(&info->params[i], i);
                unsigned char *block = calloc(1, f->size);
                ck_assert_int_eq(nsd_param_fields_fill(f, info->params, v, info->n_params, block,
                                                       why, sizeof why),
                                 0);
                expect_filled(info, f, v, block);
                free(block);
                if (o) expect_oracle(info, o, v);
            }
        }
        dlclose(h);
    }
    closedir(dir);
    /* the migrated plugins: 4 friction laws, 9 contact laws, 4 integrators,
     * 7 systems (point_mass, impact and belt oscillators, rimless_hub,
     * towed_wheel, curb_wheel, rimless_wheel) */
    ck_assert_uint_ge(with_table, 24);
    ck_assert_uint_eq(with_oracle, sizeof oracles / sizeof oracles[0]);
}
END_TEST

/* A value an int or _Bool member cannot hold exactly (a caller that
 * bypassed the host's resolver) is refused, never truncated. */
START_TEST(a_value_an_int_member_cannot_hold_is_refused) {
    void *h;
    const nsdyn_plugin_info *info = open_first(FIELDS "nsdyn_friction_fields_none.so", &h);
    nsdyn_value v[16];
    for (size_t i = 0; i < info->n_params; ++i) v[i] = random_value(&info->params[i], i);
    const double bad[][2] = {{4, 2.5}, {4, 51}, {3, 3}, {3, -1}, {5, 0.5}, {4, NAN}};
    const char *want[] = {"terms = 2.5 is not a value its int member holds exactly",
                          "terms = 51 is not",
                          "shape = 3 is not",
                          "shape = -1 is not",
                          "smooth = 0.5 is not a value its _Bool member",
                          "terms = nan is not"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        nsdyn_value w[16];
        memcpy(w, v, sizeof w);
        w[(size_t)bad[k][0]].num = bad[k][1];
        char err[512] = "";
        ck_assert_ptr_null(nsd_plugin_create(info, w, NULL, err, sizeof err));
        ck_assert_msg(strstr(err, want[k]), "%s", err);
    }
    char err[512] = "";
    ck_assert_ptr_null(nsd_plugin_create(info, NULL, NULL, err, sizeof err));
    ck_assert_str_eq(err, "plugin 'fields_none': no parameter values given");
    dlclose(h);
}
END_TEST

int main(void) {
    Suite *s = suite_create("param_fields");
    TCase *tc = tcase_create("fields");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, each_mistake_is_refused_with_its_message, 0,
                        (int)(sizeof mistakes / sizeof mistakes[0]));
    tcase_add_test(tc, the_table_done_right_passes);
    tcase_add_test(tc, random_offsets_are_refused_exactly_when_they_do_not_fit);
    tcase_add_test(tc, random_values_reach_create_as_their_c_types);
    tcase_add_test(tc, shipped_tables_fill_what_the_old_unpacking_did);
    tcase_add_test(tc, a_value_an_int_member_cannot_hold_is_refused);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

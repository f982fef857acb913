/* A run's values: from its number alone (grid: mixed radix, the last
 * dimension fastest; random and Latin-hypercube designs: a counter-based
 * generator of the seed, the run and the dimension), so the results do
 * not depend on which thread or rank ran what (sweep.h). */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host_keys.h"
#include "interrupt.h"
#include "sweep.h"

/* SplitMix64 (Steele, Lea, Flood 2014): a bijective mixer, used as a
 * counter-based generator. */
static uint64_t mix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* A uniform double in [0, 1) from (seed, a, b). */
static double unit3(uint64_t seed, uint64_t a, uint64_t b) {
    uint64_t h = mix64(seed ^ mix64(a ^ mix64(b + 0x632be59bd9b4e019ull)));
    return (double)(h >> 11) * 0x1.0p-53;
}

void nsd_sweep_design_init(nsd_sweep_def *def) {
    if (def->design != NSD_DESIGN_LHS) return;
    size_t n = def->samples;
    def->lhs = calloc(def->n_dims * n + 1, sizeof *def->lhs);
    if (!def->lhs) abort();
    for (size_t d = 0; d < def->n_dims; ++d) {
        uint32_t *p = def->lhs + d * n;
        for (size_t i = 0; i < n; ++i) p[i] = (uint32_t)i;
        for (size_t i = n; i > 1; --i) { /* Fisher-Yates */
            size_t j = (size_t)(unit3(def->seed, 1000003u + d, i) * (double)i);
            uint32_t t = p[i - 1];
            p[i - 1] = p[j];
            p[j] = t;
        }
    }
}

/* Where an axis stands in a run: grid index i, or u in [0, 1]. */
typedef struct pos {
    int by_u;
    size_t i;
    double u;
} pos;

static void run_positions(const nsd_sweep_def *def, uint64_t run, pos *dims) {
    if (def->design == NSD_DESIGN_GRID) {
        uint64_t r = run;
        for (size_t d = def->n_dims; d-- > 0;) {
            dims[d] = (pos){0, (size_t)(r % def->dim_len[d]), 0};
            r /= def->dim_len[d];
        }
        return;
    }
    for (size_t d = 0; d < def->n_dims; ++d) {
        double u = unit3(def->seed, run, d);
        if (def->design == NSD_DESIGN_LHS)
            u = ((double)def->lhs[d * def->samples + run] + u) / (double)def->samples;
        dims[d] = (pos){1, 0, u};
    }
}

/* A decimal value for a linear grid point: 12 significant digits, so
 * 0.6 + 0.01 k is 0.61, not 0.6100000000000001. */
static double snap(double x) {
    char buf[40];
    snprintf(buf, sizeof buf, "%.12g", x);
    return strtod(buf, NULL);
}

/* Axis value at p: a list item (returned), or a number in *num. */
static const nsd_toml_node *axis_pick(const nsd_sweep_axis *ax, pos p, double *num) {
    if (!ax->is_range) {
        size_t i = p.by_u ? (size_t)(p.u * (double)ax->n) : p.i;
        if (i >= ax->n) i = ax->n - 1;
        const nsd_toml_node *v = &ax->values[i];
        *num = v->type == NSD_TOML_BOOLEAN  ? v->boolean
               : v->type == NSD_TOML_STRING ? NAN
                                            : v->real;
        return v;
    }
    double f = p.by_u ? p.u : ax->n > 1 ? (double)p.i / (double)(ax->n - 1) : 0.0;
    if (ax->log)
        *num = ax->start * pow(ax->stop / ax->start, f);
    else
        *num = p.by_u ? ax->start + f * (ax->stop - ax->start)
                      : snap(ax->start + f * (ax->stop - ax->start));
    if (!p.by_u && p.i == 0) *num = ax->start;
    if (!p.by_u && ax->n > 1 && p.i == ax->n - 1) *num = ax->stop;
    return NULL;
}

const char *nsd_sweep_axis_value(const nsd_sweep_axis *ax, size_t i, double *num) {
    const nsd_toml_node *v = axis_pick(ax, (pos){0, i, 0}, num);
    return v && v->type == NSD_TOML_STRING ? v->str : NULL;
}

const char *nsd_sweep_value(const nsd_sweep_def *def, uint64_t run, size_t a, double *num) {
    pos dims[64];
    run_positions(def, run, dims);
    const nsd_toml_node *v = axis_pick(&def->axes[a], dims[def->axes[a].dim], num);
    return v && v->type == NSD_TOML_STRING ? v->str : NULL;
}

/* The overrides for axis positions dims (each at its axis's key, for
 * messages); axis `only` at position p when only < n_axes. */
static void build_overrides(const nsd_sweep_def *def, const pos *dims, size_t only, pos p,
                            nsd_overrides *over) {
    memset(over, 0, sizeof *over);
    double nums[256];
    const nsd_toml_node *items[256];
    for (size_t a = 0; a < def->n_axes && a < 256; ++a)
        items[a] = axis_pick(&def->axes[a], a == only ? p : dims[def->axes[a].dim], &nums[a]);
    char err[256];
    for (size_t a = 0; a < def->n_axes && a < 256; ++a) {
        const nsd_sweep_axis *ax = &def->axes[a];
        nsd_where at = nsd_where_of(nsd_toml_get(ax->at, "key"));
        /* The section and the kind of value were checked when the axis was
         * read (sweep_parse.c): these cannot be refused. A value of a list
         * is placed at its item, a range's at the axis's key. */
        if (items[a] && !ax->per_key) {
            nsd_overrides_set_node(over, ax->section, ax->param, items[a], nsd_where_of(items[a]),
                                   err, sizeof err);
        } else if (ax->per_key) {
            double per = ax->per_axis >= 0 ? nums[ax->per_axis] : ax->per_config;
            nsd_overrides_set_real(over, ax->section, ax->param, nums[a] * pow(per, ax->per_power),
                                   at, err, sizeof err);
        } else if (ax->is_int && nums[a] == floor(nums[a])) {
            nsd_overrides_set_int(over, ax->section, ax->param, (int64_t)nums[a], at, err,
                                  sizeof err);
        } else {
            nsd_overrides_set_real(over, ax->section, ax->param, nums[a], at, err, sizeof err);
        }
    }
}

void nsd_sweep_overrides(const nsd_sweep_def *def, uint64_t run, nsd_overrides *over) {
    pos dims[64];
    run_positions(def, run, dims);
    build_overrides(def, dims, (size_t)-1, (pos){0}, over);
}

/* Values per axis checked by creating them (the ends and evenly spread
 * ones between), in one scenario whose values each sets
 * (nsd_scenario_point): a check costs about 0.1 ms, so every value of a
 * 10^7-value axis would take minutes. */
#define NSD_SWEEP_CHECK_CREATED 1000

/* The declaration of an axis's key when it is a number of [run] or of a
 * plugin's section (else NULL): every value is checked against it. */
static const nsdyn_param_decl *axis_decl(const nsd_scenario *base, const nsd_sweep_axis *ax,
                                         char *label, size_t len) {
    const nsd_config *cfg = &base->app.cfg;
    const nsdyn_param_decl *d = NULL;
    size_t n = 0;
    snprintf(label, len, "[%s]", ax->section);
    if (!strcmp(ax->section, "run")) {
        d = nsd_run_decls;
        n = nsd_n_run_decls;
    } else {
        const nsd_section *sec = !strcmp(ax->section, "system")       ? &cfg->system
                                 : !strcmp(ax->section, "contact")    ? &cfg->contact
                                 : !strcmp(ax->section, "friction")   ? &cfg->friction
                                 : !strcmp(ax->section, "integrator") ? &cfg->integrator
                                                                      : NULL;
        if (!sec || !sec->plugin) return NULL;
        d = sec->plugin->info->params;
        n = sec->plugin->info->n_params;
        snprintf(label, len, "[%s] (%s)", ax->section, sec->plugin->info->id);
    }
    int i = nsd_params_index(d, n, ax->param);
    if (i < 0 || (d[i].type != NSDYN_PARAM_REAL && d[i].type != NSDYN_PARAM_INT)) return NULL;
    return &d[i];
}

/* The number axis a writes at position p (other axes at dims), or NAN for
 * a text or boolean item. */
static double written_value(const nsd_sweep_def *def, size_t a, const pos *dims, pos p) {
    const nsd_sweep_axis *ax = &def->axes[a];
    double num;
    const nsd_toml_node *it = axis_pick(ax, p, &num);
    if (it && it->type != NSD_TOML_INTEGER && it->type != NSD_TOML_FLOAT) return NAN;
    if (!ax->per_key) return num;
    double per = ax->per_config;
    if (ax->per_axis >= 0) {
        const nsd_sweep_axis *pa = &def->axes[ax->per_axis];
        axis_pick(pa, dims[pa->dim], &per);
    }
    return num * pow(per, ax->per_power);
}

/* Signal during the check: one error saying how far it got. */
static size_t check_interrupted(const nsd_sweep_axis *ax, size_t k, size_t n, nsd_diag *diag) {
    nsd_diag_add(diag,
                 "interrupted by signal %d during the value check of axis '%s' (%zu of %zu "
                 "values checked): nothing was run",
                 nsd_interrupt_signal(), ax->name, k, n);
    return 1;
}

/* Every value of axis a against its key's declaration (when it has one):
 * a number the declaration refuses is an error at the axis, with the
 * value and its position. */
static size_t check_ranges(const nsd_sweep_def *def, const nsd_scenario *base, size_t a,
                           const pos *dims, nsd_diag *diag) {
    const nsd_sweep_axis *ax = &def->axes[a];
    char label[200];
    const nsdyn_param_decl *d = axis_decl(base, ax, label, sizeof label);
    if (!d || def->design != NSD_DESIGN_GRID) return 0;
    for (size_t k = 0; k < ax->n; ++k) {
        if ((k & 4095) == 0 && nsd_interrupt_signal()) return check_interrupted(ax, k, ax->n, diag);
        double x = written_value(def, a, dims, (pos){0, k, 0});
        if (isnan(x) && !ax->is_range) continue; /* a text item: created below */
        if (nsd_params_admits(d, x) && (d->type != NSDYN_PARAM_INT || x == floor(x))) continue;
        char range[120];
        nsd_params_range_text(d, range, sizeof range);
        /* worded as the config's own check words it (params.c) */
        int unit = *d->unit && strcmp(d->unit, "1") != 0;
        nsd_diag_at(diag, nsd_toml_get(ax->at, "key"),
                    "%s key '%s' = %.12g is out of range: expected %s%s%s%s (axis '%s', value "
                    "%.12g)",
                    label, ax->param, x, d->type == NSDYN_PARAM_INT ? "an integer in " : "", range,
                    unit ? " " : "", unit ? d->unit : "", ax->name, x);
        return 1;
    }
    return 0;
}

/* Every axis's values (its ranges, then by creating them), the other axes
 * at dims. The errors, in diag. */
static size_t check_axes(const nsd_sweep_def *def, const nsd_scenario *base, const pos *dims,
                         nsd_diag *diag) {
    nsd_scenario pt;
    int ready = 0;
    size_t errors = 0;
    for (size_t a = 0; a < def->n_axes; ++a) {
        const nsd_sweep_axis *ax = &def->axes[a];
        int by_u = def->design != NSD_DESIGN_GRID && ax->is_range;
        size_t n = by_u ? 2 : ax->n;
        size_t e = check_ranges(def, base, a, dims, diag);
        if (e && nsd_interrupt_signal()) {
            errors += e;
            break;
        }
        errors += e;
        if (e) continue;
        /* by creating the model: every value, or the ends and evenly spread ones */
        size_t m = n > NSD_SWEEP_CHECK_CREATED ? NSD_SWEEP_CHECK_CREATED : n;
        for (size_t j = 0; j < m; ++j) {
            if (nsd_interrupt_signal()) {
                e = check_interrupted(ax, j, m, diag);
                break;
            }
            size_t k = m == n ? j : (size_t)((double)j * (double)(n - 1) / (double)(m - 1) + 0.5);
            pos p = {by_u, k, (double)k};
            nsd_overrides over;
            build_overrides(def, dims, a, p, &over);
            size_t first = diag->n;
            e = nsd_scenario_point(&pt, &ready, base, base, &over, diag);
            nsd_overrides_free(&over);
            if (!e) continue;
            double num;
            const nsd_toml_node *it = axis_pick(ax, p, &num);
            char what[200];
            if (it && it->type == NSD_TOML_STRING)
                snprintf(what, sizeof what, " (axis '%s', value \"%s\")", ax->name, it->str);
            else
                snprintf(what, sizeof what, " (axis '%s', value %.12g)", ax->name, num);
            nsd_diag_suffix(diag, first, what);
            break; /* one value per axis is enough to say what is wrong */
        }
        errors += e;
        if (e && nsd_interrupt_signal()) break;
    }
    if (ready) nsd_scenario_destroy(&pt);
    return errors;
}

size_t nsd_sweep_check_values(const nsd_sweep_def *def, const nsd_scenario *base, nsd_diag *diag) {
    pos dims[64];
    run_positions(def, 0, dims);
    size_t errors = check_axes(def, base, dims, diag);
    if (errors && nsd_interrupt_signal()) return errors;
    if (def->n_runs == 0) {
        nsd_diag_at(diag, def->at, "[sweep]: the sweep has no runs");
        errors++;
    }
    return errors;
}

/* ---- rows ---- */

nsd_sweep_row *nsd_sweep_row_new(const nsd_sweep_def *def) {
    nsd_sweep_row *r = calloc(1, sizeof *r);
    if (!r) abort();
    size_t na = def->n_axes ? def->n_axes : 1, ns = def->n_sums ? def->n_sums : 1;
    r->axis_num = calloc(na, sizeof *r->axis_num);
    r->axis_text = calloc(na, sizeof *r->axis_text);
    r->sum_num = calloc(ns, sizeof *r->sum_num);
    r->sum_text = calloc(ns, sizeof *r->sum_text);
    r->points = calloc(NSD_SWEEP_POINTS, sizeof *r->points);
    if (!r->axis_num || !r->axis_text || !r->sum_num || !r->sum_text || !r->points) abort();
    return r;
}

void nsd_sweep_row_free(nsd_sweep_row *r) {
    if (!r) return;
    free(r->axis_num);
    free(r->axis_text);
    free(r->sum_num);
    free(r->sum_text);
    free(r->points);
    free(r);
}

size_t nsd_sweep_row_packed_size(const nsd_sweep_def *def) {
    return sizeof(uint64_t) + sizeof(int) + 2 * sizeof(double) +
           (def->n_axes + def->n_sums) * (sizeof(double) + NSD_SWEEP_TEXT) + 512 + 65 +
           sizeof(uint32_t) + 256 + sizeof(uint32_t) + NSD_SWEEP_POINTS * sizeof(double);
}

#define PUT(p, src, len) (memcpy((p), (src), (len)), (p) += (len))
#define GET(p, dst, len) (memcpy((dst), (p), (len)), (p) += (len))

void nsd_sweep_row_pack(const nsd_sweep_def *def, const nsd_sweep_row *r, unsigned char *p) {
    PUT(p, &r->run, sizeof r->run);
    PUT(p, &r->status, sizeof r->status);
    PUT(p, &r->wall, sizeof r->wall);
    PUT(p, &r->sim_wall, sizeof r->sim_wall);
    PUT(p, r->axis_num, def->n_axes * sizeof *r->axis_num);
    PUT(p, r->axis_text, def->n_axes * sizeof *r->axis_text);
    PUT(p, r->sum_num, def->n_sums * sizeof *r->sum_num);
    PUT(p, r->sum_text, def->n_sums * sizeof *r->sum_text);
    PUT(p, r->message, sizeof r->message);
    PUT(p, r->config_hash, sizeof r->config_hash);
    PUT(p, &r->log_warnings, sizeof r->log_warnings);
    PUT(p, r->log_first, sizeof r->log_first);
    PUT(p, &r->n_points, sizeof r->n_points);
    PUT(p, r->points, r->n_points * sizeof *r->points);
}

void nsd_sweep_row_unpack(const nsd_sweep_def *def, const unsigned char *p, nsd_sweep_row *r) {
    GET(p, &r->run, sizeof r->run);
    GET(p, &r->status, sizeof r->status);
    GET(p, &r->wall, sizeof r->wall);
    GET(p, &r->sim_wall, sizeof r->sim_wall);
    GET(p, r->axis_num, def->n_axes * sizeof *r->axis_num);
    GET(p, r->axis_text, def->n_axes * sizeof *r->axis_text);
    GET(p, r->sum_num, def->n_sums * sizeof *r->sum_num);
    GET(p, r->sum_text, def->n_sums * sizeof *r->sum_text);
    GET(p, r->message, sizeof r->message);
    GET(p, r->config_hash, sizeof r->config_hash);
    GET(p, &r->log_warnings, sizeof r->log_warnings);
    GET(p, r->log_first, sizeof r->log_first);
    r->log_first[sizeof r->log_first - 1] = '\0';
    GET(p, &r->n_points, sizeof r->n_points);
    if (r->n_points > NSD_SWEEP_POINTS) r->n_points = 0; /* not from a row_pack */
    GET(p, r->points, r->n_points * sizeof *r->points);
}

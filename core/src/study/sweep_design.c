/* A run's values: from its number alone (grid: mixed radix, the last
 * dimension fastest; random and Latin-hypercube designs: a counter-based
 * generator of the seed, the run and the dimension), so the results do
 * not depend on which thread or rank ran what (sweep.h). */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

static nsd_toml_node *section_of(nsd_toml_node *table, const char *name, const nsd_toml_node *at) {
    for (size_t i = 0; i < table->n_items; ++i)
        if (!strcmp(table->items[i].key, name)) return &table->items[i];
    nsd_toml_node empty = {
        .type = NSD_TOML_TABLE, .source = at->source, .line = at->line, .column = at->column};
    nsd_toml_table_set(table, name, &empty);
    return &table->items[table->n_items - 1];
}

/* The variant table for axis positions dims; override axis `only` at
 * position p when only < n_axes. */
static void build_variant(const nsd_sweep_def *def, const pos *dims, size_t only, pos p,
                          nsd_toml_node *table) {
    memset(table, 0, sizeof *table);
    table->type = NSD_TOML_TABLE;
    double nums[256];
    const nsd_toml_node *items[256];
    for (size_t a = 0; a < def->n_axes && a < 256; ++a)
        items[a] = axis_pick(&def->axes[a], a == only ? p : dims[def->axes[a].dim], &nums[a]);
    for (size_t a = 0; a < def->n_axes && a < 256; ++a) {
        const nsd_sweep_axis *ax = &def->axes[a];
        const nsd_toml_node *key = nsd_toml_get(ax->at, "key");
        nsd_toml_node v = {.type = NSD_TOML_FLOAT,
                           .source = key->source,
                           .line = key->line,
                           .column = key->column,
                           .real = nums[a]};
        if (items[a] && !ax->per_key) {
            v = *items[a];
            v.key = NULL;
        } else if (ax->per_key) {
            double per = ax->per_axis >= 0 ? nums[ax->per_axis] : ax->per_config;
            v.real = nums[a] * pow(per, ax->per_power);
        } else if (ax->is_int && nums[a] == floor(nums[a])) {
            v.type = NSD_TOML_INTEGER;
            v.integer = (int64_t)nums[a];
        }
        nsd_toml_node *sec = section_of(table, ax->section, key);
        nsd_toml_table_set(sec, ax->param, &v);
    }
}

void nsd_sweep_variant(const nsd_sweep_def *def, uint64_t run, nsd_toml_node *table) {
    pos dims[64];
    run_positions(def, run, dims);
    build_variant(def, dims, (size_t)-1, (pos){0}, table);
}

/* Derive and create a scenario of base with the variant; errors in diag. */
static size_t try_variant(const nsd_scenario *base, const nsd_toml_node *var, nsd_diag *diag) {
    nsd_scenario s;
    size_t errors = nsd_scenario_derive(&s, base, var, diag);
    s.no_graphs = 1;
    if (!errors) errors = nsd_scenario_create(&s, diag);
    nsd_scenario_destroy(&s);
    return errors;
}

size_t nsd_sweep_check_values(const nsd_sweep_def *def, const nsd_scenario *base, nsd_diag *diag) {
    pos dims[64];
    run_positions(def, 0, dims);
    size_t errors = 0;
    for (size_t a = 0; a < def->n_axes; ++a) {
        const nsd_sweep_axis *ax = &def->axes[a];
        int by_u = def->design != NSD_DESIGN_GRID && ax->is_range;
        size_t n = by_u ? 2 : ax->n;
        for (size_t k = 0; k < n; ++k) {
            nsd_toml_node var;
            build_variant(def, dims, a, (pos){by_u, k, (double)k}, &var);
            size_t first = diag->n;
            size_t e = try_variant(base, &var, diag);
            nsd_toml_node_clear(&var);
            if (!e) continue;
            double num;
            const nsd_toml_node *it = axis_pick(ax, (pos){by_u, k, (double)k}, &num);
            char what[200];
            if (it && it->type == NSD_TOML_STRING)
                snprintf(what, sizeof what, " (axis '%s', value \"%s\")", ax->name, it->str);
            else
                snprintf(what, sizeof what, " (axis '%s', value %.12g)", ax->name, num);
            nsd_diag_suffix(diag, first, what);
            errors += e;
            break; /* one value per axis is enough to say what is wrong */
        }
    }
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
           sizeof(uint32_t) + NSD_SWEEP_POINTS * sizeof(double);
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
    GET(p, &r->n_points, sizeof r->n_points);
    if (r->n_points > NSD_SWEEP_POINTS) r->n_points = 0; /* not from a row_pack */
    GET(p, r->points, r->n_points * sizeof *r->points);
}

/* A study that grows (docs/sweep.md, "Growing a study"): the finished runs
 * of an earlier definition placed in a new one by their axis values, not
 * their numbers. A row of the earlier definition is contained in the new
 * one when, for every new axis, its value on that key (its own axis's
 * value, or the config's value when the earlier definition did not sweep
 * the key) is one of the new axis's values, and when every key the earlier
 * definition swept but the new one does not held the config's value.
 * Values match bit for bit (a refined range gives the same doubles at its
 * old points: sweep_design.c rounds grid points to 12 digits). Only grid
 * designs grow: a random design's values follow from its seed and count. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sweep.h"

typedef struct value {
    double num; /* NaN for a text value */
    char text[NSD_SWEEP_TEXT];
    int known; /* 0: the config's value of this key is not a plain value */
} value;

typedef struct slot { /* one value of a new axis and its grid index */
    double num;
    const char *text;
    size_t i;
} slot;

struct nsd_sweep_grow {
    const nsd_sweep_def *def;
    size_t n_old;
    long *src;     /* per new axis: the old axis on its key, or -1 */
    value *fixed;  /* per new axis without src: the config's value */
    long *gone;    /* old axes whose key the new definition does not sweep */
    value *gone_v; /* their config values */
    size_t n_gone;
    slot **slots; /* per new axis: its values, sorted */
};

/* The config's value at section.param: as written, or the plugin's or
 * [run]'s resolved default. */
static value config_value(const nsd_config *cfg, const char *section, const char *param) {
    value v = {NAN, "", 0};
    const nsd_toml_node *n = nsd_toml_get(nsd_toml_get(&cfg->root, section), param);
    if (n && n->type == NSD_TOML_STRING) {
        snprintf(v.text, sizeof v.text, "%s", n->str);
        v.known = 1;
    } else if (n && (n->type == NSD_TOML_FLOAT || n->type == NSD_TOML_INTEGER ||
                     n->type == NSD_TOML_BOOLEAN)) {
        v.num = n->type == NSD_TOML_FLOAT     ? n->real
                : n->type == NSD_TOML_INTEGER ? (double)n->integer
                                              : n->boolean;
        v.known = 1;
    } else if (!n) {
        const nsd_section *sec[] = {&cfg->system, &cfg->contact, &cfg->friction, &cfg->integrator};
        const nsd_params *p = !strcmp(section, "run") ? &cfg->run : NULL;
        for (size_t k = 0; !p && k < 4; ++k)
            if (sec[k]->plugin && !strcmp(nsd_kind_section(sec[k]->kind), section))
                p = &sec[k]->params;
        int i = p ? nsd_params_index(p->decls, p->n, param) : -1;
        if (i >= 0 && p->decls[i].type >= NSDYN_PARAM_REAL &&
            p->decls[i].type <= NSDYN_PARAM_BOOL) {
            v.num = p->values[i].num;
            v.known = 1;
        }
    }
    return v;
}

static int slot_cmp(const void *a, const void *b) {
    const slot *x = a, *y = b;
    if (x->text || y->text) return strcmp(x->text ? x->text : "", y->text ? y->text : "");
    return x->num < y->num ? -1 : x->num > y->num;
}

static int same(double a, const char *at, double b, const char *bt) {
    if (at[0] || bt[0]) return !strcmp(at, bt);
    return a == b; /* NaN never matches */
}

nsd_sweep_grow *nsd_sweep_grow_new(const nsd_sweep_def *def, size_t n_old,
                                   const char *const *old_keys, const char *const *old_per) {
    nsd_sweep_grow *g = calloc(1, sizeof *g);
    if (!g) abort();
    size_t na = def->n_axes;
    g->def = def;
    g->n_old = n_old;
    g->src = calloc(na + 1, sizeof *g->src);
    g->fixed = calloc(na + 1, sizeof *g->fixed);
    g->gone = calloc(n_old + 1, sizeof *g->gone);
    g->gone_v = calloc(n_old + 1, sizeof *g->gone_v);
    g->slots = calloc(na + 1, sizeof *g->slots);
    if (!g->src || !g->fixed || !g->gone || !g->gone_v || !g->slots) abort();
    char key[160], per[200];
    for (size_t a = 0; a < na; ++a) {
        const nsd_sweep_axis *ax = &def->axes[a];
        snprintf(key, sizeof key, "%s.%s", ax->section, ax->param);
        snprintf(per, sizeof per, "%s^%.17g", ax->per_key ? ax->per_key : "", ax->per_power);
        g->src[a] = -1;
        for (size_t o = 0; o < n_old; ++o)
            if (!strcmp(old_keys[o], key)) g->src[a] = (long)o;
        /* the same key written per another value means other values */
        if (g->src[a] >= 0 && strcmp(old_per[g->src[a]], per) != 0) g->src[a] = -2;
        if (g->src[a] == -1)
            g->fixed[a] =
                ax->per_key ? (value){NAN, "", 0} : config_value(def->cfg, ax->section, ax->param);
        g->slots[a] = calloc(ax->n + 1, sizeof **g->slots);
        if (!g->slots[a]) abort();
        for (size_t i = 0; i < ax->n; ++i) {
            slot *s = &g->slots[a][i];
            s->text = nsd_sweep_axis_value(ax, i, &s->num);
            s->i = i;
        }
        qsort(g->slots[a], ax->n, sizeof **g->slots, slot_cmp);
    }
    for (size_t o = 0; o < n_old; ++o) {
        int kept = 0;
        for (size_t a = 0; a < na; ++a) kept |= g->src[a] == (long)o;
        if (kept) continue;
        const char *dot = strchr(old_keys[o], '.');
        char section[160];
        snprintf(section, sizeof section, "%.*s", dot ? (int)(dot - old_keys[o]) : 0, old_keys[o]);
        g->gone[g->n_gone] = (long)o;
        g->gone_v[g->n_gone++] = dot && old_per[o][0] == '^'
                                     ? config_value(def->cfg, section, dot + 1)
                                     : (value){NAN, "", 0};
    }
    return g;
}

int nsd_sweep_grow_place(const nsd_sweep_grow *g, const double *old_num,
                         const char (*old_text)[NSD_SWEEP_TEXT], nsd_sweep_row *row) {
    const nsd_sweep_def *def = g->def;
    for (size_t k = 0; k < g->n_gone; ++k) {
        long o = g->gone[k];
        if (!g->gone_v[k].known ||
            !same(old_num[o], old_text[o], g->gone_v[k].num, g->gone_v[k].text))
            return -1;
    }
    size_t idx[64];
    for (size_t d = 0; d < def->n_dims && d < 64; ++d) idx[d] = (size_t)-1;
    for (size_t a = 0; a < def->n_axes; ++a) {
        if (g->src[a] == -2 || (g->src[a] == -1 && !g->fixed[a].known)) return -1;
        slot want = {NAN, NULL, 0};
        if (g->src[a] >= 0) {
            want.num = old_num[g->src[a]];
            want.text = old_text[g->src[a]][0] ? old_text[g->src[a]] : NULL;
        } else {
            want.num = g->fixed[a].num;
            want.text = g->fixed[a].text[0] ? g->fixed[a].text : NULL;
        }
        const nsd_sweep_axis *ax = &def->axes[a];
        if (!want.text && isnan(want.num)) return -1;
        if (!!want.text != !!ax->is_text) return -1;
        const slot *hit = bsearch(&want, g->slots[a], ax->n, sizeof want, slot_cmp);
        if (!hit) return -1;
        if (idx[ax->dim] != (size_t)-1 && idx[ax->dim] != hit->i) return -1; /* zipped */
        idx[ax->dim] = hit->i;
    }
    uint64_t run = 0;
    for (size_t d = 0; d < def->n_dims; ++d) run = run * def->dim_len[d] + idx[d];
    row->run = run;
    for (size_t a = 0; a < def->n_axes; ++a) {
        const char *t = nsd_sweep_value(def, run, a, &row->axis_num[a]);
        snprintf(row->axis_text[a], NSD_SWEEP_TEXT, "%s", t ? t : "");
        if (t) row->axis_num[a] = NAN;
    }
    /* the new definition's own values must be the row's (not only near) */
    for (size_t a = 0; a < def->n_axes; ++a) {
        const char *t = g->src[a] >= 0 ? old_text[g->src[a]] : g->fixed[a].text;
        double x = g->src[a] >= 0 ? old_num[g->src[a]] : g->fixed[a].num;
        if (!same(row->axis_num[a], row->axis_text[a], x, t)) return -1;
    }
    return 0;
}

void nsd_sweep_grow_free(nsd_sweep_grow *g) {
    if (!g) return;
    for (size_t a = 0; a < g->def->n_axes; ++a) free(g->slots[a]);
    free(g->slots);
    free(g->src);
    free(g->fixed);
    free(g->gone);
    free(g->gone_v);
    free(g);
}

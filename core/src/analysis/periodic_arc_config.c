/* The arclength keys of [periodic.continuation] (periodic_arc.h,
 * docs/configs.md). */
#define _GNU_SOURCE
#include <math.h>
#include <string.h>

#include "periodic_arc.h"

int nsd_arc_wanted(const nsd_periodic_config *pc) {
    const nsd_toml_node *m = pc->cont ? nsd_toml_get(pc->cont, "method") : NULL;
    return m && m->type == NSD_TOML_STRING && !strcmp(m->str, "arclength");
}

/* A number key in (lo, hi), default def; an error at the key otherwise. */
static size_t num(const nsd_toml_node *t, const char *key, double def, double lo, double hi,
                  double *out, nsd_diag *diag) {
    const nsd_toml_node *e = nsd_toml_get(t, key);
    *out = def;
    if (!e) return 0;
    if (nsd_toml_is_number(e) && isfinite(e->real) && e->real > lo && e->real < hi) {
        *out = e->real;
        return 0;
    }
    if (nsd_toml_is_number(e))
        nsd_diag_at(diag, e,
                    "[periodic.continuation] key '%s': expected a number in (%g, %g), found %g",
                    key, lo, hi, e->real);
    else
        nsd_diag_at(diag, e, "[periodic.continuation] key '%s': expected a number, found %s", key,
                    nsd_toml_type_name(e->type));
    return 1;
}

static size_t integer(const nsd_toml_node *t, const char *key, int def, int lo, int hi, int *out,
                      nsd_diag *diag) {
    const nsd_toml_node *e = nsd_toml_get(t, key);
    *out = def;
    if (!e) return 0;
    if (e->type == NSD_TOML_INTEGER && e->integer >= lo && e->integer <= hi) {
        *out = (int)e->integer;
        return 0;
    }
    nsd_diag_at(diag, e, "[periodic.continuation] key '%s': expected an integer in [%d, %d]", key,
                lo, hi);
    return 1;
}

/* brute_force = [values, transient periods, recorded periods]. */
static size_t brute(const nsd_toml_node *t, nsd_arc_config *ac, nsd_diag *diag) {
    const nsd_toml_node *e = nsd_toml_get(t, "brute_force");
    if (!e) return 0;
    int lim[3] = {2000, 100000, 1000};
    if (e->type == NSD_TOML_ARRAY && e->n_items == 3) {
        int v[3], ok = 1;
        for (int i = 0; i < 3; ++i) {
            const nsd_toml_node *x = &e->items[i];
            ok &= x->type == NSD_TOML_INTEGER && x->integer >= (i == 1 ? 0 : 1) &&
                  x->integer <= lim[i];
            v[i] = ok ? (int)x->integer : 0;
        }
        if (ok) {
            ac->brute_n = v[0], ac->brute_transient = v[1], ac->brute_record = v[2];
            return 0;
        }
    }
    nsd_diag_at(diag, e,
                "[periodic.continuation] key 'brute_force': expected [values, transient periods, "
                "recorded periods], integers in [1, 2000], [0, 100000], [1, 1000]");
    return 1;
}

size_t nsd_arc_read(const nsd_periodic_config *pc, nsd_arc_config *ac, nsd_diag *diag) {
    const nsd_toml_node *c = pc->cont;
    memset(ac, 0, sizeof *ac);
    size_t errors = 0;
    if (pc->n_par != 1) {
        nsd_diag_at(diag, c,
                    "[periodic.continuation]: method = \"arclength\" continues in one parameter, "
                    "found %zu",
                    pc->n_par);
        errors++;
    }
    const nsd_toml_node *from = nsd_toml_get(c, "from"), *to = nsd_toml_get(c, "to");
    if (!nsd_toml_is_number(from) || !nsd_toml_is_number(to) || !isfinite(from->real) ||
        !isfinite(to->real) || from->real == to->real) {
        nsd_diag_at(diag, (from && !nsd_toml_is_number(from)) ? from : c,
                    "[periodic.continuation]: method = \"arclength\" needs 'from' and 'to', two "
                    "different finite numbers: the parameter's range");
        return errors + 1;
    }
    ac->from = from->real, ac->to = to->real;
    double span = fabs(ac->to - ac->from);
    errors += num(c, "ds", 0.02, 0.0, 1.0, &ac->ds, diag);
    errors += num(c, "ds_min", 1e-5 * ac->ds, 0.0, 1.0, &ac->ds_min, diag);
    errors += num(c, "ds_max", 5.0 * ac->ds, 0.0, 10.0, &ac->ds_max, diag);
    errors += num(c, "locate_tol", 1e-7 * span, 0.0, span, &ac->locate_tol, diag);
    errors += integer(c, "max_points", 200, 2, 100000, &ac->max_points, diag);
    errors += integer(c, "doublings", 0, 0, NSD_ARC_MAX_BRANCHES - 2, &ac->doublings, diag);
    errors += brute(c, ac, diag);
    if (!errors && (ac->ds_min > ac->ds || ac->ds > ac->ds_max)) {
        nsd_diag_at(diag, c,
                    "[periodic.continuation]: expected ds_min <= ds <= ds_max, found %g, %g, %g",
                    ac->ds_min, ac->ds, ac->ds_max);
        errors++;
    }
    const nsd_toml_node *st = nsd_toml_get(c, "steps"), *v = nsd_toml_get(c, "values");
    if (st || v) {
        nsd_diag_at(diag, st ? st : v,
                    "[periodic.continuation] key '%s': not used by method = \"arclength\" (the "
                    "steps are ds along the branch)",
                    st ? "steps" : "values");
        errors++;
    }
    return errors;
}

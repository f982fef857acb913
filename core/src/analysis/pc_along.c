/* The PC map's critical coefficients along a parameter (pc_along.h). */
#define _DEFAULT_SOURCE
#include <limits.h>
#include "pc_along.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pc_map.h"

size_t nsd_pc_along_read(const nsd_scenario *s, nsd_pc_along *a, nsd_diag *diag) {
    static const char *const keys[] = {"along", "from", "to", "steps"};
    memset(a, 0, sizeof *a);
    const nsd_toml_node *t = nsd_toml_get(&s->app.cfg.root, "pcmap");
    if (!t) return 0;
    if (t->type != NSD_TOML_TABLE) {
        nsd_diag_at(diag, t, "key 'pcmap': expected a table, found %s",
                    nsd_toml_type_name(t->type));
        return 1;
    }
    size_t errors = nsd_diag_unknown_keys(diag, t, "[pcmap]", keys, 4);
    const nsd_toml_node *al = nsd_toml_get(t, "along"), *f = nsd_toml_get(t, "from"),
                        *to = nsd_toml_get(t, "to"), *st = nsd_toml_get(t, "steps");
    if (!al || al->type != NSD_TOML_STRING ||
        nsd_config_real_param(&s->app.cfg, al->str, a->section, sizeof a->section, a->key,
                              sizeof a->key) != 0) {
        nsd_diag_at(diag, al ? al : t,
                    "[pcmap] key 'along': expected \"SECTION.KEY\" naming a real parameter of "
                    "the config's system, contact or friction law (e.g. \"system.beta\")%s%s",
                    al && al->type == NSD_TOML_STRING ? ", found " : "",
                    al && al->type == NSD_TOML_STRING ? al->str : "");
        errors++;
    }
    const nsd_toml_node *need[2] = {f, to};
    const char *names[2] = {"from", "to"};
    for (int i = 0; i < 2; ++i)
        if (!nsd_toml_is_number(need[i]) || !isfinite(need[i]->real)) {
            nsd_diag_at(diag, need[i] ? need[i] : t, "[pcmap] key '%s': expected a finite number",
                        names[i]);
            errors++;
        }
    if (!st || st->type != NSD_TOML_INTEGER || st->integer < 2 || st->integer > 10001) {
        nsd_diag_at(diag, st ? st : t, "[pcmap] key 'steps': expected an integer 2 .. 10001");
        errors++;
    }
    if (errors) return errors;
    if (f->real == to->real) {
        nsd_diag_at(diag, to, "[pcmap] key 'to': expected a value other than 'from' (%g)", f->real);
        return 1;
    }
    a->from = f->real;
    a->to = to->real;
    a->n = (size_t)st->integer;
    return 0;
}

typedef struct sample {
    double lambda, mu_dp, mu_c, mu_inf, mu_i;
} sample;

/* The scenario the samples run in: s's model, one data whose parameter
 * is set for each sample (nsd_scenario_set_params), made at the first. */
typedef struct along_point {
    const nsd_scenario *s;
    nsd_scenario d;
    int ready;
} along_point;

/* The analysis of the config with the parameter at p. 0, or -1 with the
 * reason in why. */
static int sample_at(along_point *pt, const nsd_pc_along *a, double p, sample *out, char *why,
                     size_t why_len) {
    nsd_overrides over = {0};
    nsd_scenario *d = &pt->d;
    nsd_diag diag = {0};
    int rc = -1;
    /* a->section names a real parameter (nsd_config_real_param) */
    nsd_overrides_set_real(&over, a->section, a->key, p, (nsd_where){"[pcmap]", 0, 0}, why,
                           why_len);
    size_t errors = nsd_scenario_point(d, &pt->ready, pt->s, pt->s, &over, &diag);
    nsd_overrides_free(&over);
    nsd_pc_analysis an;
    if (errors) {
        const char *msg = diag.n ? diag.lines[0] : "the config refuses this value";
        if (!strncmp(msg, "[pcmap]: ", 9)) msg += 9; /* the derived node's own "where" */
        snprintf(why, why_len, "%s", msg);
    } else if (nsd_pc_analyse(&d->model, d->data, d->app.cfg.settings.t_start, d->data->y0, &an,
                              why, why_len) == 0) {
        *out = (sample){an.lambda_eff, an.mu_dp, an.mu_c, an.mu_inf, an.mu_i};
        rc = 0;
    }
    nsd_diag_free(&diag);
    return rc;
}

/* Signs whose change marks a threshold: 0 mu_DP exists, 1 mu_DP > mu_c. */
static int mark_sign(const sample *x, int which) {
    return which == 0 ? isfinite(x->mu_dp) : isfinite(x->mu_dp) && x->mu_dp > x->mu_c;
}

/* Bisect the change of mark_sign(which) between p0 and p1 and record it. */
static void refine(along_point *pt, nsd_pc_along *a, double p0, double p1, sample x0, int which) {
    char why[512];
    const int s0 = mark_sign(&x0, which);
    double lo = p0, hi = p1, tol = 1e-12 * fabs(a->to - a->from);
    sample xm = x0;
    while (fabs(hi - lo) > tol) {
        double mid = 0.5 * (lo + hi);
        if (sample_at(pt, a, mid, &xm, why, sizeof why) != 0) return; /* a gap: no mark */
        if (mark_sign(&xm, which) == s0)
            lo = mid;
        else
            hi = mid;
    }
    if (a->n_marks >= NSD_PC_ALONG_MAX_MARKS) return;
    const char *what = which == 1 ? "mu_DP = mu_c" : s0 ? "mu_DP vanishes" : "mu_DP appears";
    sample at;
    double mu =
        which == 1 && sample_at(pt, a, 0.5 * (lo + hi), &at, why, sizeof why) == 0 ? at.mu_c : 0.0;
    a->marks[a->n_marks].what = what;
    a->marks[a->n_marks].at = 0.5 * (lo + hi);
    a->marks[a->n_marks++].mu = mu;
}

size_t nsd_pc_along_compute(const nsd_scenario *s, nsd_pc_along *a, nsd_diag *diag) {
    const size_t n = a->n;
    double *buf = calloc(6 * n, sizeof *buf);
    if (!buf) {
        nsd_diag_add(diag, "nsdyn pcmap: out of memory for %zu samples", n);
        return 1;
    }
    a->par = buf, a->lambda = buf + n, a->mu_dp = buf + 2 * n, a->mu_c = buf + 3 * n;
    a->mu_inf = buf + 4 * n, a->mu_i = buf + 5 * n;
    sample prev = {0};
    char why[512];
    along_point pt = {.s = s};
    size_t errors = 0;
    for (size_t i = 0; i < n && !errors; ++i) {
        double p = i + 1 == n ? a->to : a->from + (a->to - a->from) * (double)i / (double)(n - 1);
        sample x;
        if (sample_at(&pt, a, p, &x, why, sizeof why) != 0) {
            const nsd_toml_node *t = nsd_toml_get(&s->app.cfg.root, "pcmap");
            nsd_diag_at(diag,
                        nsd_toml_get(t, i == 0       ? "from"
                                        : i + 1 == n ? "to"
                                                     : "along"),
                        "[pcmap]: %s.%s = %g: %s", a->section, a->key, p, why);
            errors = 1;
            break;
        }
        a->par[i] = p, a->lambda[i] = x.lambda, a->mu_dp[i] = x.mu_dp, a->mu_c[i] = x.mu_c;
        a->mu_inf[i] = x.mu_inf, a->mu_i[i] = x.mu_i;
        for (int w = 0; i > 0 && w < 2; ++w)
            if (mark_sign(&prev, w) != mark_sign(&x, w)) refine(&pt, a, a->par[i - 1], p, prev, w);
        prev = x;
    }
    if (pt.ready) nsd_scenario_destroy(&pt.d);
    return errors;
}

void nsd_pc_along_free(nsd_pc_along *a) {
    free(a->par);
    memset(a, 0, sizeof *a);
}

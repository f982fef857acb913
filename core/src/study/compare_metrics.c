/* nsdyn compare: the metrics of each variant against the reference.
 *
 * Errors are taken on a common time base without interpolation where the
 * two runs share output samples (every variant of one config samples the
 * same grid t0 + k output_dt; fixed-step integrators sample at step ends
 * that land on it), so the reference against itself is exactly 0 and a
 * floor of interpolation noise cannot appear. An impact located a little
 * earlier or later in one run than in the other makes a velocity differ by
 * the whole jump for the time between the two impacts: that is an error
 * of the event time, reported as such, and the samples between the two
 * event times (one sample interval either side) are left out of the
 * channel's max and RMS (max_all keeps them). */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "modes.h"

/* Samples closer than this many output intervals are the same instant:
 * the grid's own rounding (t0 + k dt against step ends summed k times) is
 * ~1e-15 relative, the next grid point a whole interval away. */
#define SAME_TIME 1e-6

static double series_t(const nsd_series *s, size_t r) { return nsd_series_at(s, r, 0); }

/* The mean sample interval of a series [s] (0 with fewer than 2 rows). */
static double mean_interval(const nsd_series *s) {
    return s->rows >= 2 ? (series_t(s, s->rows - 1) - series_t(s, 0)) / (double)(s->rows - 1) : 0.0;
}

/* For each reference row, the variant row with the same time (match[r],
 * or -1). Returns the number of matches. */
static size_t match_rows(const nsd_series *ref, const nsd_series *var, double tol, long *match) {
    size_t j = 0, n = 0;
    for (size_t r = 0; r < ref->rows; ++r) {
        double t = series_t(ref, r);
        while (j < var->rows && series_t(var, j) < t - tol) j++;
        match[r] = j < var->rows && fabs(series_t(var, j) - t) <= tol ? (long)j : -1;
        n += match[r] >= 0;
    }
    return n;
}

/* The variant's channel cv interpolated linearly at time t (NaN outside
 * its range); *j walks forward. */
static double interpolate(const nsd_series *var, size_t cv, double t, double tol, size_t *j) {
    if (!var->rows || t < series_t(var, 0) - tol || t > series_t(var, var->rows - 1) + tol)
        return NAN;
    while (*j + 1 < var->rows && series_t(var, *j + 1) < t) (*j)++;
    if (*j + 1 >= var->rows) return nsd_series_at(var, *j, cv);
    double t0 = series_t(var, *j), t1 = series_t(var, *j + 1);
    double s = t1 > t0 ? fmin(1.0, fmax(0.0, (t - t0) / (t1 - t0))) : 0.0;
    return nsd_series_at(var, *j, cv) +
           s * (nsd_series_at(var, *j + 1, cv) - nsd_series_at(var, *j, cv));
}

/* ---- events ---------------------------------------------------------------- */

/* Event class: a contact-log kind and contact, or the system's own events (kind
 * NSD_EVENT_KIND_COUNT: mode switches such as a walker's heel strikes, and stops). The
 * k-th time of class (kind, contact) in a run; NAN when it has fewer. */
static double event_time(const nsd_run_result *res, int kind, size_t contact, size_t k) {
    for (size_t i = 0; i < res->contact_log.n; ++i) {
        const nsd_event_record *e = &res->contact_log.rec[i];
        if ((int)e->kind == kind && e->contact == contact && k-- == 0) return e->t;
    }
    return NAN;
}

static size_t event_count(const nsd_run_result *res, int kind, size_t contact) {
    size_t n = 0;
    for (size_t i = 0; i < res->contact_log.n; ++i)
        n +=
            (int)res->contact_log.rec[i].kind == kind && res->contact_log.rec[i].contact == contact;
    return n;
}

/* Mark the reference rows with a time in [a, b] (sorted times). */
static void mask_window(const nsd_series *ref, double a, double b, unsigned char *mask) {
    size_t lo = 0, hi = ref->rows;
    while (lo < hi) { /* first row with t >= a */
        size_t mid = lo + (hi - lo) / 2;
        if (series_t(ref, mid) < a)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t r = lo; r < ref->rows && series_t(ref, r) <= b; ++r) mask[r] = 1;
}

/* Match the events of the variant with the reference's, fill the event
 * metrics and mask the rows between matched times (pad: one sample
 * interval either side, the sample that straddles a jump). A run without a
 * contact log against one with (time-stepping against event-driven)
 * resolves an impact within its step: the rows within one of its mean
 * steps of the logged run's impacts are masked instead. */
static void match_events(const nsd_scenario *rs, const nsd_scenario *vs, double pad,
                         unsigned char *mask, nsd_variant_metrics *m) {
    const nsd_run_result *r = &rs->res, *v = &vs->res;
    size_t nc = rs->model.nc > vs->model.nc ? rs->model.nc : vs->model.nc;
    double sum2 = 0.0;
    m->event_dt_max = NAN;
    /* res->event_times: the located switches and stops (the runner's handle_event; contact
       events are in the contact log) */
    const double *sr = r->event_times, *sv = v->event_times;
    size_t nsr = r->n_events, nsv = v->n_events;
    for (int kind = 0; kind <= NSD_EVENT_KIND_COUNT; ++kind)
        for (size_t c = 0; c < (kind == NSD_EVENT_KIND_COUNT ? 1 : nc); ++c) {
            int sys = kind == NSD_EVENT_KIND_COUNT;
            size_t nr = sys ? nsr : event_count(r, kind, c);
            size_t nvv = sys ? nsv : event_count(v, kind, c);
            size_t n = nr < nvv ? nr : nvv;
            m->n_unmatched += nr > nvv ? nr - nvv : nvv - nr;
            for (size_t k = 0; k < n; ++k) {
                double a = sys ? sr[k] : event_time(r, kind, c, k);
                double b = sys ? sv[k] : event_time(v, kind, c, k);
                double dt = fabs(b - a);
                m->n_matched++;
                sum2 += dt * dt;
                if (!(dt <= m->event_dt_max)) m->event_dt_max = dt;
                /* the state may jump at either time (an impact, a switch's reset map) */
                mask_window(&r->series, fmin(a, b) - pad, fmax(a, b) + pad, mask);
            }
        }
    m->event_dt_rms = m->n_matched ? sqrt(sum2 / (double)m->n_matched) : NAN;
    /* one run located its contact events, the other did not */
    const nsd_scenario *logged =
        r->contact_log.n && !v->contact_log.n && !vs->model.regime->logs_events   ? rs
        : v->contact_log.n && !r->contact_log.n && !rs->model.regime->logs_events ? vs
                                                                                  : NULL;
    if (!logged) return;
    const nsd_run_result *other = logged == rs ? v : r;
    double h = other->stats.steps
                   ? (other->t_reached - series_t(&other->series, 0)) / (double)other->stats.steps
                   : 0.0;
    for (size_t i = 0; i < logged->res.contact_log.n; ++i) {
        const nsd_event_record *e = &logged->res.contact_log.rec[i];
        if (e->kind == NSD_EVENT_IMPACT || e->kind == NSD_EVENT_REST ||
            e->kind == NSD_EVENT_CLOSE || e->kind == NSD_EVENT_OPEN)
            mask_window(&r->series, e->t - h - pad, e->t + h + pad, mask);
    }
}

/* The first rest event of a run, its stop time, its energy at the start
 * and the end. */
static void run_facts(const nsd_scenario *s, nsd_variant_metrics *m) {
    const nsd_run_result *res = &s->res;
    m->t_rest = m->t_stop = m->energy_start = m->energy_end = NAN;
    for (size_t i = 0; i < res->contact_log.n && isnan(m->t_rest); ++i)
        if (res->contact_log.rec[i].kind == NSD_EVENT_REST) m->t_rest = res->contact_log.rec[i].t;
    if (res->outcome == NSD_RUN_STOPPED) m->t_stop = res->t_reached;
    const char *en = s->model.layout.energy_output;
    int ce = en ? nsd_model_channel(&s->model, en) : -1;
    if (ce >= 0 && res->series.rows) {
        m->energy_start = nsd_series_at(&res->series, 0, (size_t)ce);
        m->energy_end = nsd_series_at(&res->series, res->series.rows - 1, (size_t)ce);
    }
}

/* One line: each plugin's id and resolved parameters. */
static void config_line(const nsd_config *cfg, char *buf, size_t len) {
    FILE *f = fmemopen(buf, len, "w");
    if (!f) {
        snprintf(buf, len, "?");
        return;
    }
    const nsd_section *secs[] = {&cfg->system, &cfg->contact, &cfg->friction, &cfg->integrator};
    static const char *const names[] = {"system", "contact", "friction", "integrator"};
    int first = 1;
    for (size_t k = 0; k < 4; ++k) {
        if (!secs[k]->plugin) continue;
        fprintf(f, "%s%s=%s(", first ? "" : "; ", names[k], secs[k]->plugin->info->id);
        nsd_params_write_inline(f, &secs[k]->params);
        fputc(')', f);
        first = 0;
    }
    fclose(f); /* fmemopen truncates at len - 1 and terminates */
    buf[len - 1] = '\0';
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void wall_stats(const double *w, size_t n, nsd_variant_metrics *m) {
    double s[NSD_COMPARE_MAX_REPEAT];
    n = n < NSD_COMPARE_MAX_REPEAT ? n : NSD_COMPARE_MAX_REPEAT;
    memcpy(s, w, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    m->repeats = n;
    m->wall_min = n ? s[0] : NAN;
    m->wall_max = n ? s[n - 1] : NAN;
    m->wall_median = !n ? NAN : n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

/* Errors of channel k over the time base (match, or interpolation). */
static void channel_errors(const nsd_series *rs, size_t cr, const nsd_series *vs, size_t cv,
                           const long *match, double tol, const unsigned char *mask, double *dev,
                           nsd_channel_error *e) {
    double sum2 = 0.0;
    size_t j = 0, n_out = 0;
    *e = (nsd_channel_error){0.0, NAN, NAN, NAN, 0, 0};
    e->max = e->max_all = -1.0;
    for (size_t r = 0; r < rs->rows; ++r) {
        double x = match ? (match[r] >= 0 ? nsd_series_at(vs, (size_t)match[r], cv) : NAN)
                         : interpolate(vs, cv, series_t(rs, r), tol, &j);
        dev[r] = fabs(x - nsd_series_at(rs, r, cr));
        if (isnan(x)) continue;
        e->n++;
        if (!(dev[r] <= e->max_all)) e->max_all = dev[r];
        if (r + 1 == rs->rows) e->final = dev[r];
        if (mask[r]) {
            e->n_masked++;
            continue;
        }
        n_out++;
        sum2 += dev[r] * dev[r];
        if (!(dev[r] <= e->max)) e->max = dev[r];
    }
    if (!e->n) e->max_all = NAN;
    if (!n_out) e->max = NAN;
    e->rms = n_out ? sqrt(sum2 / (double)n_out) : NAN;
}

/* Variant i against the reference. -1 when out of memory. */
static int variant_metrics(const variant *vars, size_t ref, size_t i, const char *const *names,
                           size_t nn, long *match, unsigned char *mask, nsd_variant_metrics *m) {
    const nsd_scenario *rsc = &vars[ref].sc, *vsc = &vars[i].sc;
    const nsd_series *rs = &rsc->res.series, *vs = &vsc->res.series;
    size_t rows = rs->rows;
    m->err = calloc(nn ? nn : 1, sizeof *m->err);
    m->dev = malloc((nn * rows > 0 ? nn * rows : 1) * sizeof *m->dev);
    if (!m->err || !m->dev) return -1;
    for (size_t k = 0; k < nn * rows; ++k) m->dev[k] = NAN;
    for (size_t k = 0; k < nn; ++k) m->err[k] = (nsd_channel_error){NAN, NAN, NAN, NAN, 0, 0};
    m->event_dt_max = m->event_dt_rms = NAN;
    run_facts(vsc, m);
    config_line(&vsc->app.cfg, m->config, sizeof m->config);
    m->valid = vsc->res.outcome != NSD_RUN_FAILED;
    if (!m->valid || !rows || !vs->rows) return 0;
    double dt = fmax(mean_interval(rs), mean_interval(vs));
    double tol = SAME_TIME * (dt > 0 ? dt : 1.0);
    size_t n_match = match_rows(rs, vs, tol, match);
    size_t fewer = rows < vs->rows ? rows : vs->rows;
    m->time_base_interpolated = !(n_match >= 2 && 2 * n_match >= fewer);
    memset(mask, 0, rows);
    match_events(rsc, vsc, dt, mask, m);
    for (size_t k = 0; k < nn; ++k) {
        int cr = nsd_model_channel(&rsc->model, names[k]);
        int cv = nsd_model_channel(&vsc->model, names[k]);
        if (cr < 0 || cv < 0) continue;
        channel_errors(rs, (size_t)cr, vs, (size_t)cv, m->time_base_interpolated ? NULL : match,
                       tol, mask, &m->dev[k * rows], &m->err[k]);
    }
    return 0;
}

int nsd_compare_metrics(const variant *vars, size_t nv, size_t ref, const char *const *names,
                        size_t nn, const double *walls, size_t repeats, nsd_variant_metrics *m) {
    size_t rows = vars[ref].sc.res.series.rows;
    long *match = malloc((rows ? rows : 1) * sizeof *match);
    unsigned char *mask = malloc(rows ? rows : 1);
    int rc = match && mask ? 0 : -1;
    for (size_t i = 0; i < nv && rc == 0; ++i) {
        memset(&m[i], 0, sizeof m[i]);
        rc = variant_metrics(vars, ref, i, names, nn, match, mask, &m[i]);
        wall_stats(&walls[i * repeats], repeats, &m[i]);
    }
    free(match);
    free(mask);
    return rc;
}

void nsd_compare_metrics_free(nsd_variant_metrics *m, size_t nv) {
    for (size_t i = 0; m && i < nv; ++i) {
        free(m[i].err);
        free(m[i].dev);
    }
}

/* Two resolved parameter values are the same (arrays element by element). */
static int same_value(const nsdyn_value *a, const nsdyn_value *b) {
    if (a->num != b->num || a->len != b->len) return 0;
    return a->len == 0 || memcmp(a->arr, b->arr, a->len * sizeof *a->arr) == 0;
}

/* The same plugin (by id: scenarios opened apart hold their own copies). */
static int same_plugin(const nsd_plugin *a, const nsd_plugin *b) {
    return a == b || (a && b && strcmp(a->info->id, b->info->id) == 0);
}

/* The variants differ in numerics only: the same system, contact and
 * friction laws with the same parameters and initial state, and at least
 * one integrator setting differs. Only then is accuracy against cost a
 * meaningful graph (a model comparison has no "accurate" variant). */
int nsd_compare_numerics_only(const variant *vars, size_t nv, size_t ref) {
    const nsd_config *rc = &vars[ref].sc.app.cfg;
    int integrators_differ = 0;
    for (size_t i = 0; i < nv; ++i) {
        const nsd_config *c = &vars[i].sc.app.cfg;
        const nsd_section *a[] = {&rc->system, &rc->contact, &rc->friction};
        const nsd_section *b[] = {&c->system, &c->contact, &c->friction};
        for (size_t k = 0; k < 3; ++k) {
            if (!same_plugin(a[k]->plugin, b[k]->plugin)) return 0;
            for (size_t p = 0; a[k]->plugin && p < a[k]->params.n; ++p)
                if (!same_value(&a[k]->params.values[p], &b[k]->params.values[p])) return 0;
        }
        const nsd_model *mr = &vars[ref].sc.model, *mv = &vars[i].sc.model;
        if (mr->n != mv->n || memcmp(mr->y0, mv->y0, mr->n * sizeof *mr->y0) != 0) return 0;
        if (!same_plugin(rc->integrator.plugin, c->integrator.plugin))
            integrators_differ = 1;
        else
            for (size_t p = 0; p < rc->integrator.params.n; ++p)
                integrators_differ |=
                    !same_value(&rc->integrator.params.values[p], &c->integrator.params.values[p]);
    }
    return integrators_differ;
}

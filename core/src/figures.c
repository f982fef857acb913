#define _GNU_SOURCE
#include "figures.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "plot.h"

static size_t check_name(const nsd_model *m, const char *name, const nsd_toml_node *where,
                         const char *key, nsd_diag *diag) {
    if (nsd_model_channel(m, name) >= 0) return 0;
    const char **names = malloc(m->n_channels * sizeof *names);
    if (!names) abort();
    for (size_t i = 0; i < m->n_channels; ++i) names[i] = m->channels[i].name;
    const char *near = nsd_did_you_mean(name, names, m->n_channels);
    nsd_diag_at(diag, where, "[plot] key '%s': '%s' is not a channel of system '%s'%s%s%s", key,
                name, m->sys->info.id, near ? " (did you mean '" : "", near ? near : "",
                near ? "'?)" : "");
    free(names);
    return 1;
}

size_t nsd_figures_check(const nsd_config *cfg, const nsd_model *m, nsd_diag *diag) {
    const nsd_toml_node *plot = nsd_toml_get(&cfg->root, "plot");
    size_t errors = 0;
    for (size_t i = 0; i < cfg->n_series; ++i)
        errors += check_name(m, cfg->series[i], nsd_toml_get(plot, "series"), "series", diag);
    for (size_t i = 0; i < cfg->n_highlight; ++i)
        errors +=
            check_name(m, cfg->highlight[i], nsd_toml_get(plot, "highlight"), "highlight", diag);
    for (size_t i = 0; i < cfg->n_phase; ++i) {
        char pair[160];
        snprintf(pair, sizeof pair, "%s", cfg->phase[i]);
        char *colon = strchr(pair, ':');
        if (!colon) continue; /* reported by the config check */
        *colon = '\0';
        errors += check_name(m, pair, nsd_toml_get(plot, "phase"), "phase", diag);
        errors += check_name(m, colon + 1, nsd_toml_get(plot, "phase"), "phase", diag);
    }
    return errors;
}

/* A copy of y with NaN (a gap) wherever channel `mark` is zero, so the
 * curve shows only the marked stretches; NULL without a mark. */
static double *marked(const nsd_series *s, const double *y, int mark) {
    if (mark < 0) return NULL;
    double *out = malloc((s->rows ? s->rows : 1) * sizeof *out);
    if (!out) abort();
    for (size_t r = 0; r < s->rows; ++r)
        out[r] = nsd_series_at(s, r, (size_t)mark) != 0.0 ? y[r] : NAN;
    return out;
}

size_t nsd_figures_series(const nsd_config *cfg, const nsd_model *m, const char ***names) {
    if (cfg->have_series) {
        *names = (const char **)cfg->series;
        return cfg->n_series;
    }
    size_t n = 0;
    if (m->layout.plot_series)
        while (m->layout.plot_series[n]) n++;
    *names = (const char **)m->layout.plot_series;
    return n;
}

static void axis_label(const nsd_channel *c, char *buf, size_t len) {
    if (strcmp(c->unit, "1") == 0)
        snprintf(buf, len, "%s", c->label);
    else
        snprintf(buf, len, "%s [%s]", c->label, c->unit);
}

/* Column c of a series, copied out (curves take plain arrays). */
static double *column(const nsd_series *s, size_t c) {
    double *x = malloc((s->rows ? s->rows : 1) * sizeof *x);
    if (!x) abort();
    for (size_t r = 0; r < s->rows; ++r) x[r] = nsd_series_at(s, r, c);
    return x;
}

typedef struct strobe {
    nsd_model *model;
    const nsd_series *s;
    size_t n_snapshots;
    size_t first, last; /* rows of the time window */
} strobe;

static void draw_strobe(void *ctx, const nsdyn_canvas *canvas) {
    strobe *st = ctx;
    const nsd_series *s = st->s;
    if (!s->rows || !st->model->sys->draw || st->last < st->first) return;
    size_t span = st->last - st->first;
    size_t n = st->n_snapshots < span + 1 ? st->n_snapshots : span + 1;
    for (size_t k = 0; k < n; ++k) {
        size_t r = st->first + (n > 1 ? k * span / (n - 1) : 0);
        const double *row = s->data + r * s->n_channels;
        st->model->sys->draw(st->model->sys_inst, row[0], row + 1, canvas);
    }
}

static int timeseries(const char *path, nsd_plot_format fmt, const char *fig_title,
                      const nsd_figure_run *runs, size_t n_runs, const char **names, size_t n_names,
                      char *err, size_t err_len) {
    nsd_panel *panels = calloc(n_names ? n_names : 1, sizeof *panels);
    nsd_curve *curves = calloc((n_names ? n_names : 1) * n_runs, sizeof *curves);
    double **cols = calloc((n_names ? n_names : 1) * n_runs * 2, sizeof *cols);
    char(*labels)[160] = calloc(n_names ? n_names : 1, sizeof *labels);
    if (!panels || !curves || !cols || !labels) abort();
    size_t np = 0, nc = 0, ncol = 0;
    /* Contact events as thin lines, while they stay few enough to read
     * (the full list is events.csv and the event chart). */
    const nsd_event_log *log = &runs[0].result->contact_log;
    double *event_lines = NULL;
    size_t n_event_lines = 0;
    if (n_runs == 1 && log->n && log->n <= 60) {
        event_lines = malloc((log->n + runs[0].result->n_events) * sizeof *event_lines);
        if (!event_lines) abort();
        for (size_t i = 0; i < log->n; ++i) event_lines[n_event_lines++] = log->rec[i].t;
        for (size_t i = 0; i < runs[0].result->n_events; ++i)
            event_lines[n_event_lines++] = runs[0].result->event_times[i];
    }
    for (size_t i = 0; i < n_names; ++i) {
        int c0 = nsd_model_channel(runs[0].model, names[i]);
        if (c0 < 0) continue;
        nsd_panel *p = &panels[np];
        axis_label(&runs[0].model->channels[c0], labels[np], sizeof labels[np]);
        p->xlabel = "time t [s]";
        p->ylabel = labels[np];
        p->xmin = p->xmax = p->ymin = p->ymax = NAN;
        p->curves = &curves[nc];
        p->vlines = n_runs == 1 ? runs[0].result->event_times : NULL;
        p->n_vlines = n_runs == 1 ? runs[0].result->n_events : 0;
        if (n_runs == 1 && event_lines) {
            p->vlines = event_lines;
            p->n_vlines = n_event_lines;
        }
        p->legend_position = 4;
        for (size_t k = 0; k < n_runs; ++k) {
            int c = nsd_model_channel(runs[k].model, names[i]);
            if (c < 0) continue;
            nsd_curve *cv = &curves[nc++];
            cols[ncol] = column(&runs[k].result->series, 0);
            cols[ncol + 1] = column(&runs[k].result->series, (size_t)c);
            cv->x = cols[ncol];
            cv->y = cols[ncol + 1];
            ncol += 2;
            cv->n = runs[k].result->series.rows;
            cv->legend = n_runs > 1 && np == 0 ? runs[k].name : NULL;
            cv->color = (int)k;
            cv->dashed = n_runs > 1 && k > 0 ? (int)(k % 3) : 0;
            p->n_curves++;
        }
        if (n_runs == 1) p->legend_position = 0;
        np++;
    }
    int rc = 0;
    if (np) {
        nsd_figure fig = {fig_title, panels, np, 1, 0, 0};
        rc = nsd_plot_write(path, fmt, &fig, err, err_len);
    }
    for (size_t i = 0; i < ncol; ++i) free(cols[i]);
    free(event_lines);
    free(cols);
    free(curves);
    free(panels);
    free(labels);
    return np ? rc : 1;
}

static int phase(const char *path, nsd_plot_format fmt, const nsd_config *cfg,
                 const char *fig_title, const nsd_figure_run *runs, size_t n_runs, char *err,
                 size_t err_len) {
    const char *const *pairs =
        cfg->have_phase ? (const char *const *)cfg->phase : runs[0].model->layout.phase_pairs;
    size_t n_pairs = 0;
    if (cfg->have_phase)
        n_pairs = cfg->n_phase;
    else if (pairs)
        while (pairs[n_pairs]) n_pairs++;
    if (!n_pairs) return 1;
    /* Highlights (single runs): each marked channel's stretches drawn thick. */
    size_t n_marks = n_runs == 1 ? cfg->n_highlight : 0;
    nsd_panel *panels = calloc(n_pairs, sizeof *panels);
    nsd_curve *curves = calloc(n_pairs * (n_runs + n_marks), sizeof *curves);
    double **cols = calloc(n_pairs * (n_runs + n_marks) * 2, sizeof *cols);
    char(*labels)[2][160] = calloc(n_pairs, sizeof *labels);
    if (!panels || !curves || !cols || !labels) abort();
    size_t np = 0, nc = 0, ncol = 0;
    for (size_t i = 0; i < n_pairs; ++i) {
        char xname[64], yname[64];
        const char *colon = strchr(pairs[i], ':');
        if (!colon) continue;
        snprintf(xname, sizeof xname, "%.*s", (int)(colon - pairs[i]), pairs[i]);
        snprintf(yname, sizeof yname, "%s", colon + 1);
        int cx = nsd_model_channel(runs[0].model, xname),
            cy = nsd_model_channel(runs[0].model, yname);
        if (cx < 0 || cy < 0) continue;
        nsd_panel *p = &panels[np];
        axis_label(&runs[0].model->channels[cx], labels[np][0], sizeof labels[np][0]);
        axis_label(&runs[0].model->channels[cy], labels[np][1], sizeof labels[np][1]);
        p->xlabel = labels[np][0];
        p->ylabel = labels[np][1];
        p->xmin = p->xmax = p->ymin = p->ymax = NAN;
        p->curves = &curves[nc];
        p->legend_position = 0;
        for (size_t k = 0; k < n_runs; ++k) {
            int kx = nsd_model_channel(runs[k].model, xname),
                ky = nsd_model_channel(runs[k].model, yname);
            if (kx < 0 || ky < 0) continue;
            nsd_curve *cv = &curves[nc++];
            cols[ncol] = column(&runs[k].result->series, (size_t)kx);
            cols[ncol + 1] = column(&runs[k].result->series, (size_t)ky);
            cv->x = cols[ncol];
            cv->y = cols[ncol + 1];
            ncol += 2;
            cv->n = runs[k].result->series.rows;
            cv->legend = n_runs > 1 && np == 0 ? runs[k].name : NULL;
            cv->color = (int)k;
            cv->width = n_runs > 1 ? 1.2 : 1.5;
            p->n_curves++;
        }
        const double *run_x = cols[ncol - 2], *run_y = cols[ncol - 1];
        for (size_t h = 0; h < n_marks; ++h) {
            const nsd_series *ser = &runs[0].result->series;
            int mark = nsd_model_channel(runs[0].model, cfg->highlight[h]);
            if (mark < 0) continue;
            nsd_curve *cv = &curves[nc++];
            cols[ncol] = marked(ser, run_x, mark);
            cols[ncol + 1] = marked(ser, run_y, mark);
            *cv = (nsd_curve){cols[ncol],   cols[ncol + 1],
                              ser->rows,    runs[0].model->channels[mark].label,
                              (int)(1 + h), 0,
                              4.0,          0};
            ncol += 2;
            p->n_curves++;
        }
        np++;
    }
    int rc = 1;
    if (np) {
        char title[300];
        snprintf(title, sizeof title, "%s: phase portraits", fig_title);
        nsd_figure fig = {title, panels, np, np > 1 ? 2 : 1, 0, 0};
        rc = nsd_plot_write(path, fmt, &fig, err, err_len);
    }
    for (size_t i = 0; i < ncol; ++i) free(cols[i]);
    free(cols);
    free(curves);
    free(panels);
    free(labels);
    return rc;
}

/* The contact events of one event-driven run: time against contact, one
 * marker series per kind of event (modes.h). */
static int event_chart(const char *path, nsd_plot_format fmt, const char *fig_title,
                       const nsd_model *m, const nsd_event_log *log, char *err, size_t err_len) {
    nsd_curve curves[NSD_EVENT_KIND_COUNT];
    double *xs = malloc((log->n + 1) * NSD_EVENT_KIND_COUNT * sizeof *xs);
    double *ys = malloc((log->n + 1) * NSD_EVENT_KIND_COUNT * sizeof *ys);
    if (!xs || !ys) abort();
    size_t nc = 0;
    for (int k = 0; k < NSD_EVENT_KIND_COUNT; ++k) {
        double *x = xs + (size_t)k * (log->n + 1), *y = ys + (size_t)k * (log->n + 1);
        size_t n = 0;
        for (size_t i = 0; i < log->n; ++i)
            if (log->rec[i].kind == (nsd_event_kind)k) {
                x[n] = log->rec[i].t;
                y[n++] = (double)log->rec[i].contact + 1.0 + 0.1 * (k - 2.5) / 2.5;
            }
        if (!n) continue;
        curves[nc++] = (nsd_curve){x, y, n, nsd_event_kind_name((nsd_event_kind)k), k, 0, 0, 1};
    }
    char ylabel[400] = "contact:";
    for (size_t c = 0; c < m->nc; ++c) {
        size_t used = strlen(ylabel);
        snprintf(ylabel + used, sizeof ylabel - used, " %zu %s", c + 1, m->layout.contacts[c].name);
    }
    nsd_panel panel = {0};
    char title[700];
    snprintf(title, sizeof title, "%s: %zu contact events", fig_title, log->n);
    panel.title = title;
    panel.xlabel = "time t [s]";
    panel.ylabel = ylabel;
    panel.curves = curves;
    panel.n_curves = nc;
    panel.xmin = panel.xmax = NAN;
    panel.ymin = 0.5;
    panel.ymax = (double)m->nc + 0.5;
    panel.legend_position = 4;
    nsd_figure fig = {NULL, &panel, 1, 1, 1400, 400 + 40 * (int)(m->nc > 4 ? m->nc - 4 : 0)};
    int rc = nsd_plot_write(path, fmt, &fig, err, err_len);
    free(xs);
    free(ys);
    return rc;
}

int nsd_figures_write(const char *dir, const nsd_config *cfg, const char *title,
                      nsd_model *draw_model, const nsd_figure_run *runs, size_t n_runs,
                      char ***written, size_t *n_written, char *err, size_t err_len) {
    nsd_plot_format fmt = (nsd_plot_format)(int)nsd_plot_num(cfg, "format");
    const char *ext = nsd_plot_format_ext(fmt);
    char path[PATH_MAX];
    const char **names;
    size_t n_names = nsd_figures_series(cfg, runs[0].model, &names);
    snprintf(path, sizeof path, "%s/timeseries.%s", dir, ext);
    int rc = timeseries(path, fmt, title, runs, n_runs, names, n_names, err, err_len);
    if (rc < 0) return -1;
    if (rc == 0 && nsd_paths_push(written, n_written, path, err, err_len) != 0) return -1;
    snprintf(path, sizeof path, "%s/phase.%s", dir, ext);
    rc = phase(path, fmt, cfg, title, runs, n_runs, err, err_len);
    if (rc < 0) return -1;
    if (rc == 0 && nsd_paths_push(written, n_written, path, err, err_len) != 0) return -1;

    const nsd_event_log *log = &runs[0].result->contact_log;
    if (n_runs == 1 && runs[0].model->ed.on && log->n) {
        snprintf(path, sizeof path, "%s/events.%s", dir, ext);
        if (event_chart(path, fmt, title, runs[0].model, log, err, err_len) != 0 ||
            nsd_paths_push(written, n_written, path, err, err_len) != 0)
            return -1;
    }

    size_t snaps = (size_t)nsd_plot_num(cfg, "snapshots");
    if (n_runs == 1 && snaps && draw_model && draw_model->sys->draw &&
        runs[0].result->series.rows) {
        const nsd_series *ser = &runs[0].result->series;
        strobe st = {draw_model, ser, snaps, 0, ser->rows - 1};
        const nsdyn_value *win =
            &cfg->plot
                 .values[nsd_params_index(nsd_plot_decls, nsd_n_plot_decls, "snapshot_window")];
        if (win->len == 2) {
            while (st.first < ser->rows && nsd_series_at(ser, st.first, 0) < win->arr[0])
                st.first++;
            while (st.last > st.first && nsd_series_at(ser, st.last, 0) > win->arr[1]) st.last--;
        }
        /* Trace of the contact point under the pictures when there is one. */
        nsd_panel panel = {0};
        char snap_title[700];
        snprintf(snap_title, sizeof snap_title, "%s: %zu snapshots, t = %.4g to %.4g s", title,
                 snaps, st.first < ser->rows ? nsd_series_at(ser, st.first, 0) : NAN,
                 nsd_series_at(ser, st.last, 0));
        panel.title = snap_title;
        panel.xlabel = draw_model->layout.draw_x_label ? draw_model->layout.draw_x_label : "x [m]";
        panel.ylabel = draw_model->layout.draw_y_label ? draw_model->layout.draw_y_label : "y [m]";
        panel.xmin = panel.xmax = panel.ymin = panel.ymax = NAN;
        panel.equal_aspect = 1;
        panel.draw = draw_strobe;
        panel.draw_ctx = &st;
        nsd_figure fig = {NULL, &panel, 1, 1, 1600, 600};
        snprintf(path, sizeof path, "%s/snapshots.%s", dir, ext);
        if (nsd_plot_write(path, fmt, &fig, err, err_len) != 0 ||
            nsd_paths_push(written, n_written, path, err, err_len) != 0)
            return -1;
    }
    return 0;
}

#define _GNU_SOURCE
#include "figures.h"
#include "animate.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "plot.h"
#include "plugin_calls.h"

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
    for (size_t i = 0; i < cfg->n_limits; ++i) {
        const nsd_toml_node *lim = nsd_toml_get(plot, "limits");
        errors += check_name(m, cfg->limit_names[i], nsd_toml_get(lim, cfg->limit_names[i]),
                             "limits", diag);
    }
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

const char *nsd_figures_key_unit(const nsd_config *c, const char *section, const char *key) {
    const nsd_section *sec[] = {&c->system, &c->contact, &c->friction, &c->integrator};
    for (size_t k = 0; k < 4; ++k) {
        if (!sec[k]->plugin || strcmp(nsd_kind_section(sec[k]->kind), section)) continue;
        for (size_t i = 0; i < sec[k]->params.n; ++i)
            if (!strcmp(sec[k]->params.decls[i].name, key))
                return sec[k]->params.decls[i].unit ? sec[k]->params.decls[i].unit : "1";
    }
    if (!strcmp(section, "run"))
        for (size_t i = 0; i < nsd_n_run_decls; ++i)
            if (!strcmp(nsd_run_decls[i].name, key)) return nsd_run_decls[i].unit;
    return "1";
}

void nsd_figures_axis_label(const nsd_channel *c, char *buf, size_t len) {
    snprintf(buf, len, "%s [%s]", c->label[0] ? c->label : c->name, c->unit[0] ? c->unit : "1");
}

int nsd_figures_legend(const nsd_config *cfg) {
    static const int pos[] = {5, 4, 6};
    int k = (int)nsd_plot_num(cfg, "legend");
    return k >= 0 && k < 3 ? pos[k] : 5;
}

int nsd_figures_stack_legend(const nsd_config *cfg) {
    int pos = nsd_figures_legend(cfg);
    return pos == 5 ? 7 : pos;
}

int nsd_figures_limits(const nsd_config *cfg, const char *channel, double *lo, double *hi) {
    for (size_t i = 0; i < cfg->n_limits; ++i)
        if (strcmp(cfg->limit_names[i], channel) == 0) {
            *lo = cfg->limits[i][0];
            *hi = cfg->limits[i][1];
            return 1;
        }
    return 0;
}

/* Column c of a series, copied out (curves take plain arrays). */
static double *column(const nsd_series *s, size_t c) {
    double *x = malloc((s->rows ? s->rows : 1) * sizeof *x);
    if (!x) abort();
    for (size_t r = 0; r < s->rows; ++r) x[r] = nsd_series_at(s, r, c);
    return x;
}

typedef struct strobe {
    const nsd_data *draw; /* the run's data: its model and its system instance draw */
    const nsd_series *s;
    size_t n_snapshots;
    size_t first, last; /* rows of the time window */
} strobe;

/* The snapshots, oldest faintest (opacity 0.25 to 1), each labelled with its time where the
 * label has room (plot.h nsd_plot_canvas_begin/end). */
static void draw_strobe(void *ctx, const nsdyn_canvas *canvas) {
    strobe *st = ctx;
    const nsd_series *s = st->s;
    if (!s->rows || !st->draw->model->sys->draw || st->last < st->first) return;
    size_t span = st->last - st->first;
    size_t n = st->n_snapshots < span + 1 ? st->n_snapshots : span + 1;
    for (size_t k = 0; k < n; ++k) {
        size_t r = st->first + (n > 1 ? k * span / (n - 1) : 0);
        const double *row = s->data + r * s->n_channels;
        char label[64];
        snprintf(label, sizeof label, "%.3g s", row[0]);
        nsd_plot_canvas_begin(canvas, n > 1 ? 0.25 + 0.75 * (double)k / (double)(n - 1) : 1.0);
        /* a snapshot the system refuses to draw (ABI 2.5 status) is left out */
        (void)nsd_system_draw(st->draw->model->sys, st->draw->sys_inst, row[0], row + 1, canvas);
        /* the last always, the others where there is room */
        nsd_plot_canvas_end(canvas, label);
    }
}

/* Which pens a system's picture uses (a mask of 1 << nsdyn_pen), from one drawing. */
static void pen_seen(void *ctx, int pen) {
    if (pen >= 0 && pen < 8) *(unsigned *)ctx |= 1u << pen;
}
static void no_line(void *ctx, double a, double b, double c, double d) {
    (void)ctx, (void)a, (void)b, (void)c, (void)d;
}
static void no_circle(void *ctx, double a, double b, double c) {
    (void)ctx, (void)a, (void)b, (void)c;
}
static void no_polygon(void *ctx, size_t n, const double *x, const double *y, int f) {
    (void)ctx, (void)n, (void)x, (void)y, (void)f;
}
static unsigned pens_used(const strobe *st) {
    unsigned mask = 1u << NSDYN_PEN_STRUCTURE;
    nsdyn_canvas cv = {sizeof cv, &mask, no_line, no_circle, no_polygon, pen_seen};
    const double *row = st->s->data + st->last * st->s->n_channels;
    (void)nsd_system_draw(st->draw->model->sys, st->draw->sys_inst, row[0], row + 1, &cv);
    return mask;
}

/* Overlaid runs are told apart by colour and dash pattern together (8 colours, 4 patterns:
 * readable in grey print as well). */
static int run_dash(size_t k, size_t n_runs) { return n_runs > 1 ? (int)(k % 4) : 0; }

/* The event lines of a single run's time series: every located event (the contact log's
 * and, without it, the stops and switches), while few enough to read. */
static const char *event_lines_of(const nsd_figure_run *run, double **lines, size_t *n) {
    const nsd_event_log *log = &run->result->contact_log;
    *lines = NULL;
    *n = 0;
    size_t total = log->n + run->result->n_events;
    if (!total || total > 60) return NULL;
    *lines = malloc(total * sizeof **lines);
    if (!*lines) abort();
    for (size_t i = 0; i < log->n; ++i) (*lines)[(*n)++] = log->rec[i].t;
    for (size_t i = 0; i < run->result->n_events; ++i)
        (*lines)[(*n)++] = run->result->event_times[i];
    return log->n ? "grey lines: contact events, switches, stops (events.csv)"
                  : "grey lines: located events (switches, stops)";
}

static int timeseries(const char *path, nsd_plot_format fmt, const nsd_config *cfg,
                      const char *fig_title, const nsd_figure_run *runs, size_t n_runs,
                      const char **names, size_t n_names, char *err, size_t err_len) {
    nsd_panel *panels = calloc(n_names ? n_names : 1, sizeof *panels);
    nsd_curve *curves = calloc((n_names ? n_names : 1) * n_runs, sizeof *curves);
    double **cols = calloc((n_names ? n_names : 1) * n_runs * 2, sizeof *cols);
    char(*labels)[160] = calloc(n_names ? n_names : 1, sizeof *labels);
    char(*names_k)[200] = calloc(n_runs, sizeof *names_k);
    if (!panels || !curves || !cols || !labels || !names_k) abort();
    /* a failed run's curves stop early: the legend says where */
    for (size_t k = 0; k < n_runs; ++k) {
        if (runs[k].result->outcome == NSD_RUN_FAILED)
            snprintf(names_k[k], sizeof names_k[k], "%s (FAILED at t = %.4g s)",
                     runs[k].name ? runs[k].name : "", runs[k].result->t_reached);
        else
            snprintf(names_k[k], sizeof names_k[k], "%s", runs[k].name ? runs[k].name : "");
    }
    size_t np = 0, nc = 0, ncol = 0;
    double *event_lines = NULL;
    size_t n_event_lines = 0;
    const char *lines_legend =
        n_runs == 1 ? event_lines_of(&runs[0], &event_lines, &n_event_lines) : NULL;
    for (size_t i = 0; i < n_names; ++i) {
        int c0 = nsd_model_channel(runs[0].model, names[i]);
        if (c0 < 0) continue;
        nsd_panel *p = &panels[np];
        nsd_figures_axis_label(&runs[0].model->channels[c0], labels[np], sizeof labels[np]);
        p->xlabel = "time t [s]";
        p->ylabel = labels[np];
        p->xmin = p->xmax = p->ymin = p->ymax = NAN;
        nsd_figures_limits(cfg, names[i], &p->ymin, &p->ymax);
        p->curves = &curves[nc];
        p->vlines = event_lines;
        p->n_vlines = n_event_lines;
        p->vlines_legend = np == 0 ? lines_legend : NULL;
        /* one legend for the whole figure: above the first panel */
        p->legend_position = nsd_figures_stack_legend(cfg);
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
            cv->legend = n_runs > 1 && np == 0 ? names_k[k] : NULL;
            cv->color = (int)(k % NSD_PLOT_PALETTE_SIZE);
            cv->dashed = run_dash(k, n_runs);
            p->n_curves++;
        }
        np++;
    }
    /* one time axis for the stack: tick labels and "time t [s]" under the last panel only */
    for (size_t i = 0; i + 1 < np; ++i) panels[i].shared_x = 1;
    int rc = 0;
    if (np) {
        nsd_figure fig = {.title = fig_title, .panels = panels, .n_panels = np, .columns = 1};
        rc = nsd_figure_write(cfg, path, fmt, &fig, err, err_len);
    }
    for (size_t i = 0; i < ncol; ++i) free(cols[i]);
    free(event_lines);
    free(cols);
    free(curves);
    free(panels);
    free(labels);
    free(names_k);
    return np ? rc : 1;
}

/* The legend of a highlighted channel: its label up to a note of its values ("double
 * support (1) or single (0)" -> "double support"). */
static void highlight_legend(const nsd_channel *ch, char *buf, size_t len) {
    snprintf(buf, len, "%s", ch->label[0] ? ch->label : ch->name);
    char *note = strstr(buf, " (1)");
    if (note && note != buf) *note = '\0';
}

/* One phase panel's curves: the runs, then (one run) the highlighted stretches as wide
 * translucent bands under a patch in the legend. */
typedef struct phase_buf {
    nsd_curve *curves;
    double **cols;
    char (*legends)[160];
    size_t nc, ncol, nleg;
} phase_buf;

static void phase_curves(phase_buf *B, nsd_panel *p, const nsd_config *cfg,
                         const nsd_figure_run *runs, size_t n_runs, const char *xname,
                         const char *yname, int first) {
    nsd_curve *mine = &B->curves[B->nc];
    p->curves = mine;
    const double *run_x = NULL, *run_y = NULL;
    for (size_t k = 0; k < n_runs; ++k) {
        int kx = nsd_model_channel(runs[k].model, xname),
            ky = nsd_model_channel(runs[k].model, yname);
        if (kx < 0 || ky < 0) continue;
        nsd_curve *cv = &B->curves[B->nc++];
        B->cols[B->ncol] = column(&runs[k].result->series, (size_t)kx);
        B->cols[B->ncol + 1] = column(&runs[k].result->series, (size_t)ky);
        *cv = (nsd_curve){.x = B->cols[B->ncol],
                          .y = B->cols[B->ncol + 1],
                          .n = runs[k].result->series.rows,
                          .legend = n_runs > 1 && first ? runs[k].name : NULL,
                          .color = (int)(k % NSD_PLOT_PALETTE_SIZE),
                          .dashed = run_dash(k, n_runs),
                          .width = n_runs > 1 ? 1.2 : 1.5};
        run_x = cv->x;
        run_y = cv->y;
        B->ncol += 2;
        p->n_curves++;
    }
    size_t n_marks = n_runs == 1 && run_x ? cfg->n_highlight : 0;
    for (size_t h = 0; h < n_marks; ++h) {
        const nsd_series *ser = &runs[0].result->series;
        int mark = nsd_model_channel(runs[0].model, cfg->highlight[h]);
        if (mark < 0) continue;
        highlight_legend(&runs[0].model->channels[mark], B->legends[B->nleg],
                         sizeof B->legends[B->nleg]);
        B->cols[B->ncol] = marked(ser, run_x, mark);
        B->cols[B->ncol + 1] = marked(ser, run_y, mark);
        /* drawn first: under the trajectory */
        memmove(mine + 1, mine, p->n_curves * sizeof *mine);
        mine[0] = (nsd_curve){.x = B->cols[B->ncol],
                              .y = B->cols[B->ncol + 1],
                              .n = ser->rows,
                              .legend = B->legends[B->nleg++],
                              .color = (int)(1 + h),
                              .width = 7.0,
                              .opacity = 0.45,
                              .legend_patch = 1};
        B->nc++;
        B->ncol += 2;
        p->n_curves++;
    }
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
    size_t per = n_runs + cfg->n_highlight;
    nsd_panel *panels = calloc(n_pairs, sizeof *panels);
    phase_buf B = {calloc(n_pairs * per, sizeof *B.curves),
                   calloc(n_pairs * per * 2, sizeof *B.cols),
                   calloc(n_pairs * (cfg->n_highlight + 1), sizeof *B.legends),
                   0,
                   0,
                   0};
    char(*labels)[2][160] = calloc(n_pairs, sizeof *labels);
    if (!panels || !B.curves || !B.cols || !B.legends || !labels) abort();
    size_t np = 0;
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
        nsd_figures_axis_label(&runs[0].model->channels[cx], labels[np][0], sizeof labels[np][0]);
        nsd_figures_axis_label(&runs[0].model->channels[cy], labels[np][1], sizeof labels[np][1]);
        p->xlabel = labels[np][0];
        p->ylabel = labels[np][1];
        p->xmin = p->xmax = p->ymin = p->ymax = NAN;
        nsd_figures_limits(cfg, xname, &p->xmin, &p->xmax);
        nsd_figures_limits(cfg, yname, &p->ymin, &p->ymax);
        p->legend_position = nsd_figures_legend(cfg);
        phase_curves(&B, p, cfg, runs, n_runs, xname, yname, np == 0 || n_runs == 1);
        np++;
    }
    int rc = 1;
    if (np) {
        char title[300];
        snprintf(title, sizeof title, "%s: phase portraits", fig_title);
        nsd_figure fig = {
            .title = title, .panels = panels, .n_panels = np, .columns = np > 1 ? 2 : 1};
        rc = nsd_figure_write(cfg, path, fmt, &fig, err, err_len);
    }
    for (size_t i = 0; i < B.ncol; ++i) free(B.cols[i]);
    free(B.cols);
    free(B.curves);
    free(B.legends);
    free(panels);
    free(labels);
    return rc;
}

/* The contact events of one event-driven run as a lane chart: one lane per contact (named
 * on the axis), the kinds of event told apart by colour and by their row in the lane. */
static int event_chart(const char *path, nsd_plot_format fmt, const nsd_config *cfg,
                       const char *fig_title, const nsd_model *m, const nsd_event_log *log,
                       char *err, size_t err_len) {
    nsd_curve curves[NSD_EVENT_KIND_COUNT];
    const char **lanes = calloc(m->nc ? m->nc : 1, sizeof *lanes);
    double *xs = malloc((log->n + 1) * NSD_EVENT_KIND_COUNT * sizeof *xs);
    double *ys = malloc((log->n + 1) * NSD_EVENT_KIND_COUNT * sizeof *ys);
    if (!xs || !ys || !lanes) abort();
    for (size_t c = 0; c < m->nc; ++c) lanes[c] = m->layout.contacts[c].name;
    size_t nc = 0;
    for (int k = 0; k < NSD_EVENT_KIND_COUNT; ++k) {
        double *x = xs + (size_t)k * (log->n + 1), *y = ys + (size_t)k * (log->n + 1);
        size_t n = 0;
        for (size_t i = 0; i < log->n; ++i)
            if (log->rec[i].kind == (nsd_event_kind)k) {
                x[n] = log->rec[i].t;
                /* rows of the lane, top to bottom in the order of the kinds */
                y[n++] = (double)log->rec[i].contact + 1.0 +
                         0.3 * (1.0 - 2.0 * k / (NSD_EVENT_KIND_COUNT - 1.0));
            }
        if (!n) continue;
        curves[nc++] = (nsd_curve){.x = x,
                                   .y = y,
                                   .n = n,
                                   .legend = nsd_event_kind_name((nsd_event_kind)k),
                                   .color = k,
                                   .marker = 1};
    }
    nsd_panel panel = {0};
    char title[700];
    snprintf(title, sizeof title, "%s: %zu contact events", fig_title, log->n);
    panel.xlabel = "time t [s]";
    panel.ylabel = "contact";
    panel.curves = curves;
    panel.n_curves = nc;
    panel.xmin = panel.xmax = panel.ymin = panel.ymax = NAN;
    panel.y_categories = lanes;
    panel.n_y_categories = m->nc;
    panel.legend_position = nsd_figures_legend(cfg) == 6 ? 6 : 4;
    nsd_figure fig = {.title = title,
                      .panels = &panel,
                      .n_panels = 1,
                      .columns = 1,
                      .width_px = 1400,
                      .height_px = 260 + 50 * (int)(m->nc < 30 ? m->nc : 30)};
    int rc = nsd_figure_write(cfg, path, fmt, &fig, err, err_len);
    free(xs);
    free(ys);
    free(lanes);
    return rc;
}

/* snapshots.<fmt>: the strobe picture of one run, with what its colours mean. */
static int snapshots(const char *path, nsd_plot_format fmt, const nsd_config *cfg,
                     const char *title, const nsd_data *draw, const nsd_series *ser, size_t snaps,
                     char *err, size_t err_len) {
    strobe st = {draw, ser, snaps, 0, ser->rows - 1};
    const nsdyn_value *win =
        &cfg->plot.values[nsd_params_index(nsd_plot_decls, nsd_n_plot_decls, "snapshot_window")];
    if (win->len == 2) {
        while (st.first < ser->rows && nsd_series_at(ser, st.first, 0) < win->arr[0]) st.first++;
        while (st.last > st.first && nsd_series_at(ser, st.last, 0) > win->arr[1]) st.last--;
    }
    /* legend entries (no data) for the pens the picture uses besides the bodies */
    unsigned pens = pens_used(&st);
    nsd_curve keys[2];
    size_t nk = 0;
    if (pens & (1u << NSDYN_PEN_HIGHLIGHT))
        keys[nk++] = (nsd_curve){
            .legend = "vermilion: contact points, highlights", .color = 1, .width = 2.5};
    if (pens & (1u << NSDYN_PEN_TRACE))
        keys[nk++] = (nsd_curve){
            .legend = "blue: paths and forces the system draws", .color = 0, .width = 1.2};
    nsd_panel panel = {0};
    char snap_title[700];
    snprintf(snap_title, sizeof snap_title,
             "%s: %zu snapshots, t = %.4g to %.4g s (earlier ones fainter)", title, snaps,
             st.first < ser->rows ? nsd_series_at(ser, st.first, 0) : NAN,
             nsd_series_at(ser, st.last, 0));
    const nsdyn_system_layout *lay = &draw->model->layout;
    panel.xlabel = lay->draw_x_label ? lay->draw_x_label : "x [m]";
    panel.ylabel = lay->draw_y_label ? lay->draw_y_label : "y [m]";
    panel.xmin = panel.xmax = panel.ymin = panel.ymax = NAN;
    panel.equal_aspect = 1;
    panel.draw = draw_strobe;
    panel.draw_ctx = &st;
    panel.curves = keys;
    panel.n_curves = nk;
    panel.legend_position = nsd_figures_legend(cfg) == 6 ? 6 : 4;
    nsd_figure fig = {.title = snap_title,
                      .panels = &panel,
                      .n_panels = 1,
                      .columns = 1,
                      .width_px = 1600,
                      .height_px = 600};
    return nsd_figure_write(cfg, path, fmt, &fig, err, err_len);
}

int nsd_figures_write(const char *dir, const nsd_config *cfg, const char *title,
                      const nsd_data *draw, const nsd_figure_run *runs, size_t n_runs,
                      char ***written, size_t *n_written, char *err, size_t err_len) {
    nsd_plot_format fmt = (nsd_plot_format)(int)nsd_plot_num(cfg, "format");
    const char *ext = nsd_plot_format_ext(fmt);
    char path[PATH_MAX];
    const char **names;
    size_t n_names = nsd_figures_series(cfg, runs[0].model, &names);
    snprintf(path, sizeof path, "%s/timeseries.%s", dir, ext);
    int rc = timeseries(path, fmt, cfg, title, runs, n_runs, names, n_names, err, err_len);
    if (rc < 0) return -1;
    if (rc == 0 && nsd_paths_push(written, n_written, path, err, err_len) != 0) return -1;
    snprintf(path, sizeof path, "%s/phase.%s", dir, ext);
    rc = phase(path, fmt, cfg, title, runs, n_runs, err, err_len);
    if (rc < 0) return -1;
    if (rc == 0 && nsd_paths_push(written, n_written, path, err, err_len) != 0) return -1;

    const nsd_event_log *log = &runs[0].result->contact_log;
    if (n_runs == 1 && runs[0].model->regime->logs_events && log->n) {
        snprintf(path, sizeof path, "%s/events.%s", dir, ext);
        if (event_chart(path, fmt, cfg, title, runs[0].model, log, err, err_len) != 0 ||
            nsd_paths_push(written, n_written, path, err, err_len) != 0)
            return -1;
    }

    size_t snaps = (size_t)nsd_plot_num(cfg, "snapshots");
    const nsd_series *ser = &runs[0].result->series;
    if (n_runs == 1 && snaps && draw && draw->model->sys->draw && ser->rows) {
        snprintf(path, sizeof path, "%s/snapshots.%s", dir, ext);
        if (snapshots(path, fmt, cfg, title, draw, ser, snaps, err, err_len) != 0 ||
            nsd_paths_push(written, n_written, path, err, err_len) != 0)
            return -1;
    }
    int anim = (int)nsd_plot_num(cfg, "animate"); /* 0 none, 1 mp4, 2 gif */
    if (anim && n_runs == 1 && draw && draw->model->sys->draw && ser->rows) {
        nsd_anim_opts o = {.format = anim == 2 ? NSD_ANIM_GIF : NSD_ANIM_MP4,
                           .fps = nsd_plot_num(cfg, "animate_fps"),
                           .slow = nsd_plot_num(cfg, "animate_slow"),
                           .trails = (int)nsd_plot_num(cfg, "animate_trails"),
                           .title = title};
        snprintf(path, sizeof path, "%s/animation.%s", dir, anim == 2 ? "gif" : "mp4");
        if (nsd_anim_write(path, draw, ser, &o, err, err_len) != 0 ||
            nsd_paths_push(written, n_written, path, err, err_len) != 0)
            return -1;
    }
    return 0;
}

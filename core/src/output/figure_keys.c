/* nsd_figure_write (figures.h): every figure a command draws goes through here, so the
 * [plot] size preset and the [plot.figure.NAME] overrides (config/plot_figures.c,
 * docs/figures.md) reach every figure type alike. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "figure_keys.h"

/* Journal widths [mm]: a single column and a full page width (Elsevier: 90 / 190 mm,
 * Springer: 84 / 174 mm, IEEE: 88 / 181 mm; the preset takes 88 and 180). */
static const double preset_mm[3] = {0.0, 88.0, 180.0};

/* The figure's name: its file name without directory and extension. */
static void figure_name(const char *path, char *buf, size_t len) {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    snprintf(buf, len, "%s", base);
    char *dot = strrchr(buf, '.');
    if (dot && dot != buf) *dot = '\0';
}

/* The [plot] figure style (docs/figures.md) laid over f: width and height (the other in
 * proportion when one is set), font_scale and line_width; svg and pdf figures default to
 * a two-column journal width, 504 pt, with about 8 pt text. */
static void apply_style(const nsd_config *cfg, nsd_plot_format fmt, nsd_figure *f) {
    int vector = fmt != NSD_PLOT_PNG;
    size_t cols = f->columns ? f->columns : 1;
    if (cols > f->n_panels) cols = f->n_panels ? f->n_panels : 1;
    size_t rows = f->n_panels ? (f->n_panels + cols - 1) / cols : 1;
    double w0 = f->width_px ? f->width_px : 1200.0;
    double h0 = f->height_px ? f->height_px : fmin(400.0 * (double)rows, 2400.0);
    double w = nsd_plot_num(cfg, "width"), h = nsd_plot_num(cfg, "height");
    if (!(w > 0) && vector) w = 504.0; /* 7 in: a two-column figure at 1:1 */
    if (w > 0 && !(h > 0)) h = h0 * w / w0;
    if (h > 0 && !(w > 0)) w = w0 * h / h0;
    if (w > 0) {
        f->width_px = (int)fmin(10000.0, fmax(100.0, round(w)));
        f->height_px = (int)fmin(10000.0, fmax(100.0, round(h)));
    }
    int i_font = nsd_params_index(nsd_plot_decls, nsd_n_plot_decls, "font_scale");
    double fs = nsd_plot_num(cfg, "font_scale");
    /* at 504 pt the text of the automatic scale is 7.15 pt: 8 pt is what journals ask */
    if (vector && !(nsd_plot_num(cfg, "width") > 0) && !cfg->plot.from[i_font]) fs = 1.12;
    f->font_scale = fs;
    f->line_scale = nsd_plot_num(cfg, "line_width");
}

/* size = "column" | "double-column": the width in pixels at `dpi` (points for svg and
 * pdf), the height in proportion to the figure's own, the text in points. */
static void apply_preset(const nsd_config *cfg, nsd_plot_format fmt, nsd_figure *f) {
    int k = (int)nsd_plot_num(cfg, "size");
    if (k < 1 || k > 2) return;
    int vector = fmt != NSD_PLOT_PNG;
    double per_in = vector ? 72.0 : nsd_plot_num(cfg, "dpi"); /* page units per inch */
    size_t cols = f->columns ? f->columns : 1;
    if (cols > f->n_panels) cols = f->n_panels;
    size_t rows = (f->n_panels + cols - 1) / cols;
    double w0 = f->width_px ? f->width_px : 1200.0;
    double h0 = f->height_px ? f->height_px : fmin(400.0 * (double)rows, 2400.0);
    double w = preset_mm[k] / 25.4 * per_in;
    f->text_size = nsd_plot_num(cfg, "font_pt") / 72.0 * per_in;
    /* in proportion, but text of a fixed size needs room: a row of panels at least 10 ems
       (its margins take about 6), a title 3 more */
    double em = f->text_size * nsd_plot_num(cfg, "font_scale");
    double h_min = 10.0 * em * (double)rows + (f->title && f->title[0] ? 3.0 * em : 0.0);
    f->width_px = (int)fmin(10000.0, fmax(100.0, round(w)));
    f->height_px = (int)fmin(10000.0, fmax(100.0, round(fmax(h0 * w / w0, h_min))));
    f->font_scale = nsd_plot_num(cfg, "font_scale");
}

static const char *text_key(const nsd_plot_figure *o, const char *key) {
    int i = nsd_params_index(nsd_plot_figure_decls, nsd_n_plot_figure_decls, key);
    const char *t = nsdyn_value_text(&o->keys.values[i]);
    return o->keys.from[i] && t[0] ? t : NULL;
}

static const double *range_key(const nsd_plot_figure *o, const char *key) {
    int i = nsd_params_index(nsd_plot_figure_decls, nsd_n_plot_figure_decls, key);
    return o->keys.from[i] && o->keys.values[i].len == 2 ? o->keys.values[i].arr : NULL;
}

/* One table's keys laid over panel p. */
static void override_panel(const nsd_plot_figure *o, nsd_panel *p) {
    const char *xl = text_key(o, "xlabel"), *yl = text_key(o, "ylabel");
    const double *xr = range_key(o, "xlim"), *yr = range_key(o, "ylim");
    if (xl) p->xlabel = xl;
    if (yl) p->ylabel = yl;
    if (xr) p->xmin = xr[0], p->xmax = xr[1];
    if (yr) p->ymin = yr[0], p->ymax = yr[1];
}

/* One table laid over the figure (panels: the copy of fig's panels). */
static void override_figure(const nsd_plot_figure *o, nsd_figure *f, nsd_panel *panels,
                            const char *name) {
    const char *title = text_key(o, "title");
    if (o->panel > f->n_panels) {
        char where[256];
        fprintf(stderr, "warning: %s: [plot.figure.\"%s.%zu\"]: figure %s has %zu panel%s\n",
                nsd_node_where(o->where, where, sizeof where), o->name, o->panel, name, f->n_panels,
                f->n_panels == 1 ? "" : "s");
        return;
    }
    if (o->panel) {
        if (title) panels[o->panel - 1].title = title;
        override_panel(o, &panels[o->panel - 1]);
        return;
    }
    if (title && (f->title || f->n_panels > 1))
        f->title = title;
    else if (title)
        panels[0].title = title; /* one panel, its title the figure's */
    for (size_t i = 0; i < f->n_panels; ++i) override_panel(o, &panels[i]);
    int iw = nsd_params_index(nsd_plot_figure_decls, nsd_n_plot_figure_decls, "width");
    int ih = nsd_params_index(nsd_plot_figure_decls, nsd_n_plot_figure_decls, "height");
    double w = o->keys.from[iw] ? o->keys.values[iw].num : 0.0;
    double h = o->keys.from[ih] ? o->keys.values[ih].num : 0.0;
    double w0 = f->width_px ? f->width_px : 1200.0, h0 = f->height_px ? f->height_px : 400.0;
    if (w > 0 && !(h > 0)) h = h0 * w / w0;
    if (h > 0 && !(w > 0)) w = w0 * h / h0;
    if (w > 0) {
        f->width_px = (int)fmin(10000.0, fmax(100.0, round(w)));
        f->height_px = (int)fmin(10000.0, fmax(100.0, round(h)));
    }
    if (o->keys.from[ih]) f->fit_height = 0;
}

int nsd_figure_write(const nsd_config *cfg, const char *path, nsd_plot_format fmt,
                     const nsd_figure *fig, char *err, size_t err_len) {
    if (cfg == NULL || fig == NULL || fig->n_panels == 0 || fig->panels == NULL)
        return nsd_plot_write(path, fmt, fig, err, err_len);
    nsd_figure f = *fig;
    nsd_panel *panels = malloc(fig->n_panels * sizeof *panels);
    if (panels == NULL) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    memcpy(panels, fig->panels, fig->n_panels * sizeof *panels);
    f.panels = panels;
    char name[256];
    figure_name(path, name, sizeof name);
    apply_style(cfg, fmt, &f);
    apply_preset(cfg, fmt, &f);
    /* a height of its own choosing may grow to what the rows' text needs; one the user set
       is kept (the margins shrink to fit it) */
    f.fit_height = !(nsd_plot_num(cfg, "height") > 0);
    /* the whole figure first, then its panels' tables, in the config's order */
    for (int pass = 0; pass < 2; ++pass)
        for (size_t i = 0; i < cfg->n_figures; ++i) {
            const nsd_plot_figure *o = &cfg->figures[i];
            if ((o->panel != 0) == (pass == 1) && !strcmp(o->name, name))
                override_figure(o, &f, panels, name);
        }
    /* [plot] dpi declared in the PNG (pHYs), with or without a size preset */
    int rc = nsd_plot_write_dpi(path, fmt, &f, nsd_plot_num(cfg, "dpi"), err, err_len);
    free(panels);
    return rc;
}

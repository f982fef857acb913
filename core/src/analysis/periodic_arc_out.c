/* Arclength continuation, the outputs (periodic_arc.h): branches.csv,
 * special.csv, and bifurcation.<fmt> with a brute-force diagram (the
 * section values of plain runs over the range) overlaid. */
#define _GNU_SOURCE
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "params.h"
#include "periodic_arc_core.h"
#include "plot.h"
#include "figures.h"

static const char *const kind_label[NSD_ARC_KIND_COUNT] = {
    "fold", "period doubling", "Neimark-Sacker", "non-smooth (grazing, sticking, sliding)",
    "collapse onto the branch below"};

static int write_branches(const arc_ctx *c, const char *dir, char *err, size_t len) {
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/branches.csv", dir);
    FILE *f = nsd_open_tmp(path, err, len);
    if (!f) return -1;
    const nsd_model *m = &c->s->model;
    fprintf(f, "branch,crossings,parent,%s.%s,stable,period [s],max |mu|", c->pc->cont_section[0],
            c->pc->cont_key[0]);
    for (size_t j = 0; j < c->k; ++j)
        fprintf(f, ",%s [%s]", m->channels[1 + c->spec.free[j]].name,
                m->channels[1 + c->spec.free[j]].unit);
    for (size_t j = 0; j < c->k; ++j) fprintf(f, ",mu%zu re,mu%zu im", j + 1, j + 1);
    for (int e = 0; e < NSD_EVENT_KIND_COUNT; ++e)
        fprintf(f, ",%s per period", nsd_event_kind_name((nsd_event_kind)e));
    fprintf(f, ",boundary,event sequence\n");
    for (size_t b = 0; b < c->nbr; ++b)
        for (size_t i = 0; i < c->br[b].np; ++i) {
            const arc_point *pt = &c->br[b].pt[i];
            fprintf(f, "%zu,%zu,%d,%.12g,%d,%.12g,%.9g", b, c->br[b].crossings, c->br[b].parent,
                    arc_p(c, pt->u), pt->stable, pt->period, hypot(pt->re[0], pt->im[0]));
            for (size_t j = 0; j < c->k; ++j) fprintf(f, ",%.12g", pt->u[j] * c->sx[j]);
            for (size_t j = 0; j < c->k; ++j) fprintf(f, ",%.9g,%.9g", pt->re[j], pt->im[j]);
            for (int e = 0; e < NSD_EVENT_KIND_COUNT; ++e) fprintf(f, ",%zu", pt->ev[e]);
            char seq[512];
            arc_seq_text(c, &pt->seq, seq, sizeof seq);
            fprintf(f, ",%d,\"%s\"\n", pt->at_boundary, seq); /* 1: the located end of a sequence */
        }
    return nsd_commit_file(f, path, err, len);
}

static int write_special(const arc_ctx *c, const char *dir, char *err, size_t len) {
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/special.csv", dir);
    FILE *f = nsd_open_tmp(path, err, len);
    if (!f) return -1;
    const nsd_arc_outcome *o = c->out;
    fprintf(f, "kind,branch,crossings,%s.%s,+-,x,mu re,mu im,what\n", c->pc->cont_section[0],
            c->pc->cont_key[0]);
    for (size_t i = 0; i < o->n_special; ++i) {
        const nsd_arc_special *sp = &o->special[i];
        fprintf(f, "%s,%d,%zu,%.12g,%.2e,%.12g,%.9g,%.9g,\"%s\"\n", kind_label[sp->kind],
                sp->branch, sp->crossings, sp->p, sp->p_err, sp->x, sp->mu_re, sp->mu_im, sp->text);
    }
    fprintf(f, "# complete,%d\n", o->complete);
    if (!o->complete) fprintf(f, "# INCOMPLETE: \"%s\"\n", o->why);
    if (isfinite(o->feigenbaum))
        fprintf(f, "# feigenbaum ratio,%.6g,accumulation,%.10g\n", o->feigenbaum, o->p_inf);
    return nsd_commit_file(f, path, err, len);
}

/* The brute-force diagram: for each of brute_n values over the range,
 * brute_transient periods from the last state (the attractor followed),
 * then the first free state at brute_record section crossings into
 * (P, X). Runs that fail or stop on a condition of the system are left
 * out (counted in *left_out). Returns the number of points. */
static size_t brute_force(arc_ctx *c, double *P, double *X, size_t *left_out) {
    const nsd_arc_config *ac = c->ac;
    size_t np = 0;
    nsd_periodic_spec one = c->pc->spec;
    one.crossings = 1, one.n_swap = 0;
    double *y = malloc(2 * c->n * sizeof *y), T;
    if (!y) return 0;
    double *y1 = y + c->n;
    memcpy(y, c->base, c->n * sizeof *y);
    for (int i = 0; i < ac->brute_n; ++i) {
        double p = ac->from + (ac->to - ac->from) * (ac->brute_n > 1 ? i / (ac->brute_n - 1.0) : 0);
        nsd_scenario *d = arc_scenario_at(c, p);
        nsd_periodic_spec tr = one;
        tr.crossings = (size_t)ac->brute_transient;
        int ok = d != NULL;
        if (ok && ac->brute_transient) { /* [run] t_end bounds one period: the transient's runs */
            nsd_run_settings *rs = &d->app.cfg.settings, keep = *rs;
            rs->t_end = rs->t_start + (keep.t_end - keep.t_start) * (ac->brute_transient + 1.0);
            rs->output_dt = rs->t_end - rs->t_start;
            ok = nsd_periodic_map(d, &tr, y, y1, &T, c->why, sizeof c->why) == 0;
            *rs = keep;
        }
        if (ok && ac->brute_transient) memcpy(y, y1, c->n * sizeof *y);
        for (int r = 0; ok && r < ac->brute_record; ++r) {
            ok = nsd_periodic_map(d, &one, y, y1, &T, c->why, sizeof c->why) == 0;
            if (!ok) break;
            memcpy(y, y1, c->n * sizeof *y);
            P[np] = p, X[np++] = y[c->spec.free[0]];
        }
        if (!ok) {
            ++*left_out;
            memcpy(y, c->base, c->n * sizeof *y); /* start afresh */
        }
    }
    free(y);
    return np;
}

/* The continued parameter's unit, from its plugin's declaration. */
static const char *arc_param_unit(const arc_ctx *c) {
    const nsd_config *cfg = &c->s->app.cfg;
    const char *sec = c->pc->cont_section[0];
    const nsd_params *P = !strcmp(sec, "system")    ? &cfg->system.params
                          : !strcmp(sec, "contact") ? &cfg->contact.params
                                                    : &cfg->friction.params;
    int i = nsd_params_index(P->decls, P->n, c->pc->cont_key[0]);
    return i >= 0 && P->decls[i].unit ? P->decls[i].unit : "?";
}

/* One curve per branch and iterate, stable (solid) and unstable (dashed)
 * pieces, into P, X (NaN gaps) and cv. */
static size_t branch_curves(const arc_ctx *c, double *buf, nsd_curve *cv, size_t *used) {
    size_t nc = 0;
    for (size_t b = 0; b < c->nbr; ++b) {
        const arc_branch *br = &c->br[b];
        for (size_t j = 0; j < br->crossings; ++j)
            for (int st = 1; st >= 0; --st) {
                double *P = buf + *used, *X = P + br->np;
                *used += 2 * br->np;
                for (size_t i = 0; i < br->np; ++i) {
                    const arc_point *pt = &br->pt[i];
                    /* a point joins a piece when it or a neighbour has that stability */
                    int in = pt->stable == st || (i > 0 && br->pt[i - 1].stable == st) ||
                             (i + 1 < br->np && br->pt[i + 1].stable == st);
                    P[i] = in ? arc_p(c, pt->u) : NAN;
                    X[i] = in ? pt->iter[j] : NAN;
                }
                int first = j == 0 && b == 0;
                cv[nc++] = (nsd_curve){P,
                                       X,
                                       br->np,
                                       first ? (st ? "stable" : "unstable") : NULL,
                                       (int)(b % 6),
                                       st ? 0 : 1,
                                       2.0,
                                       0,
                                       0,
                                       0};
            }
    }
    return nc;
}

int arc_write(arc_ctx *c, const char *dir, char *err, size_t len) {
    if (write_branches(c, dir, err, len) != 0 || write_special(c, dir, err, len) != 0) return -1;
    size_t npts = 0, ncv = 0;
    for (size_t b = 0; b < c->nbr; ++b) {
        npts += c->br[b].np * (2 * c->br[b].crossings + 2);
        ncv += 2 * c->br[b].crossings + 1;
    }
    size_t nbf = (size_t)c->ac->brute_n * (size_t)c->ac->brute_record;
    double *buf =
        calloc(2 * npts + 2 * nbf + 2 * NSD_ARC_MAX_SPECIAL * NSD_ARC_KIND_COUNT + 8, sizeof *buf);
    nsd_curve *cv = calloc(ncv + NSD_ARC_KIND_COUNT + 4, sizeof *cv);
    if (!buf || !cv) {
        free(buf), free(cv);
        snprintf(err, len, "out of memory");
        return -1;
    }
    size_t used = 0, n = 0, left_out = 0;
    double *BP = buf, *BX = BP + nbf;
    size_t nb = brute_force(c, BP, BX, &left_out);
    used = 2 * nbf;
    char bf_leg[96];
    snprintf(bf_leg, sizeof bf_leg, "brute force (%d periods each)", c->ac->brute_record);
    if (nb) cv[n++] = (nsd_curve){BP, BX, nb, bf_leg, 7, 0, 1.0, 1, 0.35, 0};
    n += branch_curves(c, buf, cv + n, &used);
    for (int kd = 0; kd < NSD_ARC_KIND_COUNT; ++kd) {
        double *P = buf + used, *X = P + NSD_ARC_MAX_SPECIAL;
        size_t m = 0;
        for (size_t i = 0; i < c->out->n_special; ++i)
            if ((int)c->out->special[i].kind == kd)
                P[m] = c->out->special[i].p, X[m++] = c->out->special[i].x;
        used += 2 * NSD_ARC_MAX_SPECIAL;
        if (m) cv[n++] = (nsd_curve){P, X, m, kind_label[kd], 8 + kd, 0, 3.0, 1, 0, 0};
    }
    const nsd_model *m = &c->s->model;
    char xl[260], yl[160], title[700], psym[64], xsym[64];
    nsd_plot_symbol(c->pc->cont_key[0], psym, sizeof psym); /* "gamma": γ */
    nsd_plot_symbol(m->channels[1 + c->spec.free[0]].name, xsym, sizeof xsym);
    snprintf(xl, sizeof xl, "%s (%s.%s) [%s]", psym, c->pc->cont_section[0], c->pc->cont_key[0],
             arc_param_unit(c));
    snprintf(yl, sizeof yl, "%s at the section [%s]", xsym, m->channels[1 + c->spec.free[0]].unit);
    snprintf(title, sizeof title, "%s%s%s", c->s->app.cfg.title, /* x label names the parameter */
             c->out->complete ? "" : " (INCOMPLETE: a branch ended on a failure)",
             left_out ? " (brute force: runs that failed or stopped left out)" : "");
    nsd_panel panel = {.title = "periodic orbits: branches (solid stable, dashed unstable), "
                                "located points",
                       .xlabel = xl,
                       .ylabel = yl,
                       .curves = cv,
                       .n_curves = n,
                       .xmin = NAN,
                       .xmax = NAN,
                       .ymin = NAN,
                       .ymax = NAN,
                       .legend_position = 4}; /* outside right */
    nsd_figure fig = {title, &panel, 1, 1, 1600, 900, 0, 0, 0, 0};
    nsd_plot_format fmt = (nsd_plot_format)(int)nsd_plot_num(&c->s->app.cfg, "format");
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/bifurcation.%s", dir, nsd_plot_format_ext(fmt));
    int rc = nsd_figure_write(&c->s->app.cfg, path, fmt, &fig, err, len);
    free(buf), free(cv);
    return rc;
}

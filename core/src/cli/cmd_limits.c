/* nsdyn limits CONFIG: limit directions R(phi), V(phi) of a 2-D Coulomb
 * contact at the config's initial state on Sigma, the stick-force test, and
 * the u1-u2 phase portrait of the slipping flow around the point (the
 * analogue of Figure 2 of the towed-wheel paper). */
#define _DEFAULT_SOURCE
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "numfmt.h"
#include "limit_directions.h"
#include "outdir.h"
#include "regime.h"
#include "output.h"
#include "plot.h"
#include "scenario.h"
#include "figures.h"
#include "integrator_calls.h"
#include "param_fields.h"

enum { N_START = 24, MAX_POINTS = 4000, NSD_WHY_LEN = 512 };

typedef struct portrait {
    const nsd_model *m;
    nsd_data *d;
    size_t contact;
    double sign;        /* +1 forward in time, -1 backward */
    double r_in, r_out; /* stop radii in the u_t plane [m/s] */
    int events_dir[2];
} portrait;

static void slip_of(portrait *p, double t, const double *y, double *u1, double *u2) {
    const nsd_model *m = p->m;
    nsd_data *d = p->d;
    for (size_t c = 0; c < m->nc; ++c) {
        d->jac[c] = NULL;
        d->ce[c].active = 1;
    }
    nsd_contacts_evaluate(m->sys, d->sys_inst, t, y, y + m->nq, m->nc, 0, d->jac, d->ce);
    *u1 = d->ce[p->contact].u[1];
    *u2 = d->ce[p->contact].u[2];
}

static nsdyn_status portrait_rhs(void *ctx, double t, const double *y, double *ydot) {
    portrait *p = ctx;
    nsdyn_status st = nsd_model_rhs(p->m, p->d, p->sign * t, y, ydot);
    for (size_t i = 0; i < p->m->n; ++i) ydot[i] *= p->sign;
    return st;
}

static nsdyn_status portrait_events(void *ctx, double t, const double *y, double *g) {
    portrait *p = ctx;
    double u1, u2;
    slip_of(p, p->sign * t, y, &u1, &u2);
    double r = hypot(u1, u2);
    g[0] = r - p->r_in;  /* reached Sigma */
    g[1] = p->r_out - r; /* left the picture */
    return NSDYN_OK;
}

/* Integrate one trajectory and append its u-plane points to xs/ys. */
static size_t trace(const nsd_config *cfg, const nsdyn_host *host, portrait *p, const double *y0,
                    double t_span, double *xs, double *ys, char *why, size_t why_len) {
    const nsdyn_integrator *ig = (const nsdyn_integrator *)cfg->integrator.plugin->info;
    char err[256] = "";
    void *inst = nsd_plugin_create(&ig->info, cfg->integrator.params.values, host, err, sizeof err);
    if (!inst) {
        snprintf(why, why_len, "%s", err);
        return 0;
    }
    nsdyn_ode ode = {sizeof ode,      p->m->n,       2,    p,   portrait_rhs,
                     portrait_events, p->events_dir, NULL, NULL};
    size_t n = 0;
    double *y = malloc(p->m->n * sizeof *y);
    nsd_ig_call call;
    nsd_ig_bind(&call, ig, inst);
    if (!y)
        snprintf(why, why_len, "out of memory");
    else if (nsd_ig_setup(&call, &ode, 0.0, y0, t_span) > NSDYN_WARNING)
        snprintf(why, why_len, "%s",
                 *nsd_ig_message(&call) ? nsd_ig_message(&call) : "the integrator did not start");
    else {
        slip_of(p, 0.0, y0, &xs[n], &ys[n]);
        n++;
        double t = 0.0;
        int dense = ig->dense && (ig->info.provides & NSDYN_CAP_DENSE_OUTPUT);
        while (t < t_span && n + 12 < MAX_POINTS) {
            nsdyn_step_report rep = {0};
            rep.event = -1;
            double t_prev = t;
            if (nsd_ig_step(&call, t_span, &rep) > NSDYN_WARNING) break;
            if (dense)
                for (int k = 1; k < 8; ++k)
                    if (nsd_ig_dense(&call, t_prev + (rep.t - t_prev) * k / 8.0, y) <=
                        NSDYN_WARNING) {
                        slip_of(p, p->sign * (t_prev + (rep.t - t_prev) * k / 8.0), y, &xs[n],
                                &ys[n]);
                        n++;
                    }
            slip_of(p, p->sign * rep.t, rep.y, &xs[n], &ys[n]);
            n++;
            t = rep.t;
            if (rep.event >= 0) break;
        }
    }
    free(y);
    ig->info.destroy(inst);
    return n;
}

/* The analysis refused the config (nsd_limit_analyse's `err`): report it
 * at the place in the config it is about, as file:line:col like every
 * config error. It needs a system with a persistent contact with 2-D slip
 * ([system]), a friction law, and an initial state on Sigma ([initial]:
 * the key of a speed that makes the contact slip). */
static void report_refusal(nsd_diag *diag, const nsd_config *cfg, const nsd_model *m, nsd_data *d,
                           double t0, const char *err) {
    const nsd_toml_node *sys = cfg->system.table, *sys_id = nsd_toml_get(sys, "id");
    const char *id = m->sys->info.id;
    size_t c = m->nc;
    for (size_t i = 0; i < m->nc && c == m->nc; ++i)
        if (m->layout.contacts[i].type == NSDYN_CONTACT_PERSISTENT &&
            m->layout.contacts[i].tangent_dim == 2)
            c = i;
    if (c == m->nc) {
        nsd_diag_at(diag, sys_id ? sys_id : sys,
                    "[system] (%s): nsdyn limits needs a persistent contact with 2-D slip (a "
                    "rolling contact, like towed_wheel's); this system has none",
                    id);
        return;
    }
    const char *cname = m->layout.contacts[c].name;
    if (!m->friction) {
        nsd_diag_at(diag, sys,
                    "[system] (%s): contact '%s' has no friction law: nsdyn limits needs a "
                    "[friction] section",
                    id, cname);
        return;
    }
    if (nsd_model_tangent_response(m, d, t0, m->y0) > NSDYN_WARNING) {
        nsd_diag_at(diag, sys, "[system] (%s): at the initial state: %s", id, err);
        return;
    }
    const nsdyn_contact_eval *e = &d->ce[c];
    const nsd_toml_node *initial = nsd_toml_get(&cfg->root, "initial");
    if (hypot(e->u[1], e->u[2]) > 1e-12 && initial && initial->type == NSD_TOML_TABLE) {
        /* The [initial] entry of a speed that enters the contact's slip. */
        const double *W1 = d->W + c * 3 * m->nv + m->nv, *W2 = W1 + m->nv;
        for (size_t k = 0; k < initial->n_items; ++k) {
            const nsd_toml_node *v = &initial->items[k];
            for (size_t i = m->nq; i < m->nq + m->nv; ++i)
                if (strcmp(m->channels[1 + i].name, v->key) == 0 && m->y0[i] != 0.0 &&
                    (W1[i - m->nq] != 0.0 || W2[i - m->nq] != 0.0)) {
                    nsd_diag_at(diag, v, "[initial] key '%s': %s", v->key, err);
                    return;
                }
        }
        nsd_diag_at(diag, initial, "[initial]: %s", err);
        return;
    }
    nsd_diag_at(diag, sys, "[system] (%s): at the initial state: %s", id, err);
}

static void print_analysis(const char *cname, const nsd_limit_analysis *la) {
    printf("limit directions at the initial state (contact '%s', Sigma: u_t = 0)\n", cname);
    printf("  free tangential acceleration a = (%.6g, %.6g) m/s^2\n", la->a[0], la->a[1]);
    printf("  G = [[%.6g, %.6g], [%.6g, %.6g]] 1/kg, kinetic bound %.6g N, static bound %.6g N\n",
           la->G[0], la->G[1], la->G[2], la->G[3], la->F_kinetic, la->F_static);
    printf("  %-12s %-12s %-14s %s\n", "phi [rad]", "phi [deg]", "R [m/s^2]", "type");
    for (size_t i = 0; i < la->n_dirs; ++i)
        printf("  %-12.6f %-12.3f %-14.6g %s\n", la->dirs[i].phi,
               la->dirs[i].phi * 180.0 / NSDYN_PI, la->dirs[i].R,
               la->dirs[i].attracting ? "attracting" : "repelling");
    printf("  stick force (%.6g, %.6g) N, |F|/static bound = %.6g\n", la->stick_force[0],
           la->stick_force[1], la->stick_ratio);
    printf("  force test: %s; limit-direction test: %s; %s\n",
           la->rolling_by_force ? "stick holds (rolling persists)"
                                : "stick fails (slipping starts)",
           la->rolling_by_directions ? "all attracting (rolling persists)"
                                     : "a repelling direction (slipping starts)",
           la->rolling_by_force == la->rolling_by_directions ? "the tests agree"
                                                             : "THE TESTS DISAGREE");
}

/* R(phi) and V(phi) sampled over a full turn, in degrees for the graph. */
enum { NPHI = 721 };
typedef struct limit_functions {
    double phi_deg[NPHI], R[NPHI], V[NPHI]; /* [deg], [m/s^2], [m/s^2] */
} limit_functions;

/* limit_functions.csv and limit_directions.csv into dir. 0, or -1 with err. */
static int write_tables(const char *dir, const nsd_limit_analysis *la, limit_functions *lf,
                        char *err, size_t err_len) {
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/limit_functions.csv", dir);
    FILE *f = nsd_open_tmp(path, err, err_len);
    if (!f) return -1;
    fprintf(f, "phi [rad],R [m/s^2],V [m/s^2]\n");
    for (int i = 0; i < NPHI; ++i) {
        double phi = 2.0 * NSDYN_PI * i / (NPHI - 1);
        lf->phi_deg[i] = phi * 180.0 / NSDYN_PI;
        lf->R[i] = nsd_limit_R(la, phi);
        lf->V[i] = nsd_limit_V(la, phi);
        nsd_num_put(f, phi), fputc(',', f), nsd_num_put(f, lf->R[i]), fputc(',', f);
        nsd_num_put(f, lf->V[i]), fputc('\n', f);
    }
    if (nsd_commit_file(f, path, err, err_len) != 0) return -1;
    snprintf(path, sizeof path, "%s/limit_directions.csv", dir);
    f = nsd_open_tmp(path, err, err_len);
    if (!f) return -1;
    fprintf(f, "phi [rad],R [m/s^2],attracting\n");
    for (size_t i = 0; i < la->n_dirs; ++i) {
        nsd_num_put(f, la->dirs[i].phi), fputc(',', f), nsd_num_put(f, la->dirs[i].R);
        fprintf(f, ",%d\n", la->dirs[i].attracting);
    }
    return nsd_commit_file(f, path, err, err_len);
}

/* The u1-u2 picture: trajectories of the slipping flow and the limit
 * directions as rays; the curves point into xs, ys and the rays. */
typedef struct picture {
    double r; /* radius of the circle the trajectories start from [m/s] */
    nsd_curve *curves;
    size_t nc;
    double *xs, *ys, *y0;
    double ray_x[NSD_MAX_LIMIT_DIRS][2], ray_y[NSD_MAX_LIMIT_DIRS][2];
} picture;

static void picture_free(picture *P) {
    free(P->curves);
    free(P->xs);
    free(P->ys);
    free(P->y0);
}

/* Trajectories of the slipping flow from a circle around the point,
 * forward and backward in time. They stop short of Sigma (r_in), so the
 * friction law is evaluated off its set-valued point only, whatever
 * run.hold_stick says. 0, or -1 when out of memory. */
static int trace_portrait(nsd_scenario *s, const nsd_limit_analysis *la, double t0, picture *P) {
    nsd_model *m = &s->model;
    nsd_regime_release_stick(m);
    const double *G = la->G;
    double gnorm = fmax(fmax(fabs(G[0]), fabs(G[1])), fmax(fabs(G[2]), fabs(G[3])));
    double speed = la->F_kinetic * gnorm + hypot(la->a[0], la->a[1]); /* [m/s^2] */
    double r = P->r = 1e-3;                                           /* [m/s] */
    double t_span = 4.0 * r / (speed > 0 ? speed : 1.0);
    portrait pf = {m, s->data, la->contact, 1.0, r / 200.0, 1.6 * r, {-1, -1}};
    portrait pb = pf;
    pb.sign = -1.0;
    /* v changes that move u_t to r (cos th, sin th): dv = W_t^T (W_t W_t^T)^-1 du. */
    nsd_model_tangent_response(m, s->data, t0, m->y0);
    const double *W1 = s->data->W + la->contact * 3 * m->nv + m->nv, *W2 = W1 + m->nv;
    double A[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < m->nv; ++i) {
        A[0] += W1[i] * W1[i];
        A[1] += W1[i] * W2[i];
        A[3] += W2[i] * W2[i];
    }
    A[2] = A[1];
    P->curves = calloc(2 * N_START + NSD_MAX_LIMIT_DIRS + 2, sizeof *P->curves);
    P->xs = malloc((2 * N_START) * MAX_POINTS * sizeof *P->xs);
    P->ys = malloc((2 * N_START) * MAX_POINTS * sizeof *P->ys);
    P->y0 = malloc(m->n * sizeof *P->y0);
    if (!P->curves || !P->xs || !P->ys || !P->y0) return -1;
    int legend_traj = 0;
    char why[NSD_WHY_LEN] = "";
    for (int k = 0; k < N_START; ++k) {
        double th = 2.0 * NSDYN_PI * (k + 0.5) / N_START;
        double AA[4] = {A[0], A[1], A[2], A[3]}, b[2] = {r * cos(th), r * sin(th)};
        if (nsd_solve_small(AA, b, 2) != 0) break;
        memcpy(P->y0, m->y0, m->n * sizeof *P->y0);
        for (size_t i = 0; i < m->nv; ++i) P->y0[m->nq + i] += W1[i] * b[0] + W2[i] * b[1];
        for (int dir = 0; dir < 2; ++dir) {
            double *X = P->xs + (2 * k + dir) * MAX_POINTS, *Y = P->ys + (2 * k + dir) * MAX_POINTS;
            size_t n = trace(&s->app.cfg, &s->app.host, dir ? &pb : &pf, P->y0, t_span, X, Y, why,
                             sizeof why);
            if (n < 2) continue;
            P->curves[P->nc++] = (nsd_curve){
                X, Y, n, legend_traj++ ? NULL : "slipping trajectories (sliding motion)", 5, 0, 0.9,
                0, 0, 0};
        }
    }
    /* A trajectory the integrator refused to start (rk4 with h longer than
     * the span of a trajectory) is missing from the picture: say why. */
    if (!legend_traj && why[0])
        fprintf(
            stderr,
            "warning: the phase portrait has no trajectories: %s (the trajectories span %.3g s)\n",
            why, t_span);
    return 0;
}

/* The limit directions as rays from the point, attracting or repelling. */
static void add_rays(const nsd_limit_analysis *la, picture *P) {
    int legend_att = 0, legend_rep = 0;
    for (size_t i = 0; i < la->n_dirs; ++i) {
        P->ray_x[i][0] = P->ray_y[i][0] = 0.0;
        P->ray_x[i][1] = 1.5 * P->r * cos(la->dirs[i].phi);
        P->ray_y[i][1] = 1.5 * P->r * sin(la->dirs[i].phi);
        int att = la->dirs[i].attracting;
        const char *legend = att ? (legend_att++ ? NULL : "attracting limit direction")
                                 : (legend_rep++ ? NULL : "repelling limit direction");
        P->curves[P->nc++] =
            (nsd_curve){P->ray_x[i], P->ray_y[i], 2, legend, att ? 0 : 1, 0, 4.0, 0, 0, 0};
    }
}

/* limit_directions.<fmt>: the functions R, V, and the u1-u2 picture. */
static int write_figure(const char *dir, const nsd_config *cfg, const char *cname,
                        const nsd_limit_analysis *la, limit_functions *lf, picture *P,
                        nsd_plot_format fmt, char *err, size_t err_len) {
    char xl[160], yl[160], title[400], path[PATH_MAX + 64];
    double r = P->r;
    snprintf(xl, sizeof xl, "%s tangential velocity 1 [m/s]", cname);
    snprintf(yl, sizeof yl, "%s tangential velocity 2 [m/s]", cname);
    snprintf(title, sizeof title, "%s: %s, |stick force| = %.3g x bound", cfg->title,
             la->rolling_by_directions ? "rolling persists" : "slipping starts", la->stick_ratio);
    double root_x[NSD_MAX_LIMIT_DIRS], root_y[NSD_MAX_LIMIT_DIRS];
    for (size_t i = 0; i < la->n_dirs; ++i) {
        root_x[i] = la->dirs[i].phi * 180.0 / NSDYN_PI;
        root_y[i] = 0.0;
    }
    nsd_curve fcurves[3] = {
        {lf->phi_deg, lf->R, NPHI, "R(φ), radial", 0, 0, 2.0, 0, 0, 0},
        {lf->phi_deg, lf->V, NPHI, "V(φ), angular", 2, 1, 2.0, 0, 0, 0},
        {root_x, root_y, la->n_dirs, "limit directions: V = 0", 1, 0, 1.0, 1, 0, 0},
    };
    nsd_panel panels[2] = {
        {"limit-direction functions R and V", "angle φ [deg]", "R, V [m/s^2]", fcurves, 3, NULL,
         0, 0, 360, NAN, NAN, 0, 0, 0, NULL, NULL, 5, NULL, NULL, 0, 0, NULL},
        {"u₁–u₂ projection of the phase portrait", xl, yl, P->curves, P->nc, NULL, 0, -1.6 * r,
         1.6 * r, -1.6 * r, 1.6 * r, 1, 0, 0, NULL, NULL, 5, NULL, NULL, 0, 0, NULL},
    };
    snprintf(path, sizeof path, "%s/limit_directions.%s", dir, nsd_plot_format_ext(fmt));
    nsd_figure fig = {title, panels, 2, 2, 1600, 700, 0, 0, 0, 0};
    return nsd_figure_write(cfg, path, fmt, &fig, err, err_len);
}

/* The tables, the portrait and the figure into od, then od in place.
 * Returns the exit status. */
static int write_outputs(nsd_scenario *s, nsd_limit_analysis *la, double t0, nsd_outdir *od) {
    char err[1024];
    const char *cname = s->model.layout.contacts[la->contact].name;
    nsd_plot_format fmt = (nsd_plot_format)(int)nsd_plot_num(&s->app.cfg, "format");
    limit_functions *lf = malloc(sizeof *lf);
    picture P;
    memset(&P, 0, sizeof P);
    int rc = -1;
    if (!lf)
        snprintf(err, sizeof err, "out of memory");
    else if (write_tables(od->tmp, la, lf, err, sizeof err) == 0) {
        if (trace_portrait(s, la, t0, &P) != 0)
            snprintf(err, sizeof err, "out of memory for the phase portrait");
        else {
            add_rays(la, &P);
            rc = write_figure(od->tmp, &s->app.cfg, cname, la, lf, &P, fmt, err, sizeof err);
        }
    }
    picture_free(&P);
    free(lf);
    if (rc != 0) {
        fprintf(stderr, "error: %s\n", err);
        return NSD_EXIT_OUTPUT;
    }
    if (!nsd_outdir_finish(od, 1, 1, NULL, 0)) return NSD_EXIT_OUTPUT;
    printf("wrote %s/limit_functions.csv, limit_directions.csv, limit_directions.%s\n", od->target,
           nsd_plot_format_ext(fmt));
    return NSD_EXIT_OK;
}

int nsd_cmd_limits(const nsd_cli *cli) {
    nsd_diag diag = {0};
    nsd_scenario s;
    nsd_outdir od = {0};
    int status = NSD_EXIT_USAGE;
    /* The run's graphs are not drawn: this command draws its own. */
    if (nsd_cli_load(cli, &s, 1, &diag) != 0) goto out;
    nsd_limit_analysis la;
    char err[1024];
    double t0 = s.app.cfg.settings.t_start;
    if (nsd_limit_analyse(&s.model, s.data, t0, s.model.y0, &la, err, sizeof err) != 0) {
        report_refusal(&diag, &s.app.cfg, &s.model, s.data, t0, err);
        nsd_diag_print(&diag, stderr);
        goto out;
    }
    if (nsd_cli_open_outdir(cli, &od) != 0) goto out;
    print_analysis(s.model.layout.contacts[la.contact].name, &la);
    status = write_outputs(&s, &la, t0, &od);
out:
    nsd_outdir_discard(&od); /* if still open: nothing complete to keep */
    nsd_scenario_destroy(&s);
    nsd_diag_free(&diag);
    return status;
}

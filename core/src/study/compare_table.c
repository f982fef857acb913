/* nsdyn compare: the metrics as files and as the printed table.
 *
 * metrics.csv has every column (one row per variant, its configuration
 * included); the compact table (cost, event-time error, each channel's max
 * and RMS error, dissipated energy) is printed and written as Markdown
 * (metrics.md) and LaTeX (metrics.tex, booktabs). Names are never cut. */
#define _GNU_SOURCE
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "numfmt.h"
#include "modes.h"
#include "output.h"

/* ---- metrics.csv ------------------------------------------------------------ */

static void csv_string(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; ++s) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* A number, or an empty field for NaN (not applicable). */
static void csv_num(FILE *f, double x) {
    if (isnan(x))
        fputc(',', f);
    else
        fputc(',', f), nsd_num_put(f, x);
}

static const char *channel_unit(const variant *r, const char *name) {
    int c = nsd_model_channel(&r->sc.model, name);
    return c >= 0 ? r->sc.model.channels[c].unit : "?";
}

static void csv_header(FILE *f, const variant *r, const char *const *names, size_t nn) {
    fprintf(f, "variant,outcome,t_reached [s],wall_median [s],wall_min [s],wall_max [s],repeats,"
               "steps,rhs_evals,rejected_steps");
    /* the contact kinds; a system's resets (system_reset) are in run.toml and events.csv */
    for (int k = 0; k < NSD_EVENT_SYSTEM_RESET; ++k)
        fprintf(f, ",%ss", nsd_event_kind_name((nsd_event_kind)k));
    fprintf(f, ",switches,stops,unlogged_roots,events_matched,events_unmatched,"
               "event_dt_max [s],event_dt_rms [s],t_rest [s],dt_rest [s],t_stop [s],dt_stop [s],"
               "energy_start [J],energy_end [J],energy_dissipated [J],time_base");
    for (size_t k = 0; k < nn; ++k) {
        const char *u = channel_unit(r, names[k]);
        fprintf(f, ",rms_%s [%s],max_%s [%s],max_incl_events_%s [%s],final_%s [%s]", names[k], u,
                names[k], u, names[k], u, names[k], u);
    }
    fprintf(f, ",configuration\n");
}

static void csv_row(FILE *f, const variant *v, const nsd_variant_metrics *m,
                    const nsd_variant_metrics *mr, size_t nn) {
    const nsd_run_result *res = &v->sc.res;
    csv_string(f, v->name);
    fprintf(f, ",%s", nsd_outcome_text(res->outcome, NSD_OUTCOME_WORD));
    csv_num(f, res->t_reached);
    csv_num(f, m->wall_median);
    csv_num(f, m->wall_min);
    csv_num(f, m->wall_max);
    fprintf(f, ",%zu,%llu,%llu,%llu", m->repeats, (unsigned long long)res->stats.steps,
            (unsigned long long)res->stats.rhs_evals,
            (unsigned long long)res->stats.rejected_steps);
    nsd_event_counts c;
    nsd_run_count_events(res, &c);
    for (int k = 0; k < NSD_EVENT_SYSTEM_RESET; ++k) fprintf(f, ",%zu", c.contact[k]);
    fprintf(f, ",%zu,%zu,%llu,%zu,%zu", c.switches, c.stops,
            (unsigned long long)res->unlogged_roots, m->n_matched, m->n_unmatched);
    double facts[] = {m->event_dt_max,        m->event_dt_rms, m->t_rest,
                      m->t_rest - mr->t_rest, m->t_stop,       m->t_stop - mr->t_stop,
                      m->energy_start,        m->energy_end,   m->energy_start - m->energy_end};
    for (size_t k = 0; k < NSDYN_COUNT(facts); ++k) csv_num(f, facts[k]);
    fprintf(f, ",%s",
            !m->valid                   ? "none (failed)"
            : m->time_base_interpolated ? "interpolated"
                                        : "common samples");
    for (size_t k = 0; k < nn; ++k) {
        csv_num(f, m->err[k].rms);
        csv_num(f, m->err[k].max);
        csv_num(f, m->err[k].max_all);
        csv_num(f, m->err[k].final);
    }
    fputc(',', f);
    csv_string(f, m->config);
    fputc('\n', f);
}

/* ---- the compact table ----------------------------------------------------- */

enum { MAX_COLS = 64 };

typedef struct table {
    size_t rows, cols; /* row 0: the header */
    char (*cell)[MAX_COLS][96];
} table;

static void cell(table *T, size_t r, size_t c, const char *fmt, double x) {
    if (c >= MAX_COLS) return;
    if (isnan(x))
        snprintf(T->cell[r][c], sizeof T->cell[r][c], "–");
    else
        snprintf(T->cell[r][c], sizeof T->cell[r][c], fmt, x);
}

static void head(table *T, size_t c, const char *text) {
    if (c < MAX_COLS) snprintf(T->cell[0][c], sizeof T->cell[0][c], "%s", text);
}

/* Build the compact table; names go into the first column separately (of
 * any length). */
static void build_table(table *T, const variant *vars, size_t nv, size_t ref,
                        const char *const *names, size_t nn, const nsd_variant_metrics *m) {
    int energy = 0, events = 0;
    for (size_t i = 0; i < nv; ++i) {
        energy |= !isnan(m[i].energy_start);
        events |= m[i].n_matched > 0;
    }
    size_t c = 1;
    head(T, c++, "outcome");
    head(T, c++, "wall [ms] median (min–max)");
    head(T, c++, "steps");
    if (events) head(T, c++, "max |Δt event| [s]");
    for (size_t k = 0; k < nn; ++k) {
        char h[96];
        const char *u = channel_unit(&vars[ref], names[k]);
        snprintf(h, sizeof h, "max |Δ%s| [%s]", names[k], u);
        head(T, c++, h);
        snprintf(h, sizeof h, "RMS Δ%s [%s]", names[k], u);
        head(T, c++, h);
    }
    if (energy) head(T, c++, "E dissipated [J]");
    T->cols = c < MAX_COLS ? c : MAX_COLS;
    for (size_t i = 0; i < nv; ++i) {
        size_t r = i + 1;
        const nsd_run_result *res = &vars[i].sc.res;
        c = 1;
        snprintf(T->cell[r][c++], 96, "%s", nsd_outcome_text(res->outcome, NSD_OUTCOME_WORD));
        if (m[i].repeats > 1)
            snprintf(T->cell[r][c++], 96, "%.3g (%.3g–%.3g)", 1e3 * m[i].wall_median,
                     1e3 * m[i].wall_min, 1e3 * m[i].wall_max);
        else
            cell(T, r, c++, "%.3g", 1e3 * m[i].wall_median);
        snprintf(T->cell[r][c++], 96, "%llu", (unsigned long long)res->stats.steps);
        if (events) cell(T, r, c++, "%.3g", m[i].event_dt_max);
        for (size_t k = 0; k < nn; ++k) {
            if (!m[i].valid) {
                snprintf(T->cell[r][c++], 96, "failed");
                snprintf(T->cell[r][c++], 96, "failed");
                continue;
            }
            cell(T, r, c++, "%.3g", m[i].err[k].max);
            cell(T, r, c++, "%.3g", m[i].err[k].rms);
        }
        if (energy) cell(T, r, c++, "%.4g", m[i].energy_start - m[i].energy_end);
    }
}

/* Display width of UTF-8 text (code points). */
static size_t text_width(const char *s) {
    size_t n = 0;
    for (; *s; ++s) n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

static void pad(FILE *f, const char *s, size_t w, int right) {
    size_t n = text_width(s);
    if (right)
        for (; n < w; ++n) fputc(' ', f);
    fputs(s, f);
    if (!right)
        for (; n < w; ++n) fputc(' ', f);
}

static void print_table(FILE *f, const table *T, const variant *vars, size_t ref) {
    size_t w[MAX_COLS] = {0};
    w[0] = strlen("variant");
    for (size_t r = 1; r < T->rows; ++r)
        if (text_width(vars[r - 1].name) > w[0]) w[0] = text_width(vars[r - 1].name);
    for (size_t c = 1; c < T->cols; ++c)
        for (size_t r = 0; r < T->rows; ++r)
            if (text_width(T->cell[r][c]) > w[c]) w[c] = text_width(T->cell[r][c]);
    fprintf(f, "\nreference: %s\n", vars[ref].name);
    for (size_t r = 0; r < T->rows; ++r) {
        pad(f, r ? vars[r - 1].name : "variant", w[0], 0);
        for (size_t c = 1; c < T->cols; ++c) {
            fputs("  ", f);
            pad(f, T->cell[r][c], w[c], c > 1);
        }
        fputc('\n', f);
    }
}

/* Markdown cell text: '|' would end the cell. */
static void md(FILE *f, const char *s) {
    for (; *s; ++s) {
        if (*s == '|') fputc('\\', f);
        fputc(*s, f);
    }
}

static void markdown(FILE *f, const table *T, const variant *vars, size_t ref,
                     const nsd_variant_metrics *m) {
    fprintf(f,
            "Reference: **%s**. Errors on the common samples, outside the windows of "
            "matched events; wall time over %zu run%s.\n\n| variant |",
            vars[ref].name, m[ref].repeats, m[ref].repeats == 1 ? "" : "s");
    for (size_t c = 1; c < T->cols; ++c) {
        fputc(' ', f);
        md(f, T->cell[0][c]);
        fputs(" |", f);
    }
    fprintf(f, "\n|---|");
    for (size_t c = 1; c < T->cols; ++c) fprintf(f, "%s", c == 1 ? "---|" : "---:|");
    for (size_t r = 1; r < T->rows; ++r) {
        fputs("\n| ", f);
        md(f, vars[r - 1].name);
        fputs(" |", f);
        for (size_t c = 1; c < T->cols; ++c) {
            fputc(' ', f);
            md(f, T->cell[r][c]);
            fputs(" |", f);
        }
    }
    fprintf(f, "\n\nConfigurations:\n\n");
    for (size_t i = 0; i + 1 < T->rows; ++i)
        fprintf(f, "- **%s**: `%s`\n", vars[i].name, m[i].config);
}

/* LaTeX text: specials escaped, Δ and – as math/text commands. */
static void tex(FILE *f, const char *s) {
    for (; *s; ++s) {
        if (strncmp(s, "Δ", strlen("Δ")) == 0) {
            fputs("$\\Delta$", f);
            s += strlen("Δ") - 1;
        } else if (strncmp(s, "–", strlen("–")) == 0) {
            fputs("--", f);
            s += strlen("–") - 1;
        } else if (strchr("&%$#_{}", *s)) {
            fprintf(f, "\\%c", *s);
        } else if (*s == '~' || *s == '^' || *s == '\\' || *s == '|') {
            fprintf(f, "%s",
                    *s == '~'   ? "\\textasciitilde{}"
                    : *s == '^' ? "\\textasciicircum{}"
                    : *s == '|' ? "\\textbar{}"
                                : "\\textbackslash{}");
        } else
            fputc(*s, f);
    }
}

static void latex(FILE *f, const table *T, const variant *vars, size_t ref) {
    fprintf(f, "%% nsdyn compare: metrics against the reference \"");
    tex(f, vars[ref].name);
    fprintf(f, "\" (needs \\usepackage{booktabs})\n\\begin{tabular}{l");
    for (size_t c = 1; c < T->cols; ++c) fputc(c == 1 ? 'l' : 'r', f);
    fprintf(f, "}\n\\toprule\nvariant");
    for (size_t c = 1; c < T->cols; ++c) {
        fputs(" & ", f);
        tex(f, T->cell[0][c]);
    }
    fprintf(f, " \\\\\n\\midrule\n");
    for (size_t r = 1; r < T->rows; ++r) {
        tex(f, vars[r - 1].name);
        for (size_t c = 1; c < T->cols; ++c) {
            fputs(" & ", f);
            tex(f, T->cell[r][c]);
        }
        fprintf(f, " \\\\\n");
    }
    fprintf(f, "\\bottomrule\n\\end{tabular}\n");
}

/* ---- the files -------------------------------------------------------------- */

static int commit(FILE *f, const char *path, char ***written, size_t *n_written, char *err,
                  size_t err_len) {
    if (nsd_commit_file(f, path, err, err_len) != 0) return -1;
    return nsd_paths_push(written, n_written, path, err, err_len);
}

int nsd_compare_write_tables(const char *dir, const variant *vars, size_t nv, size_t ref,
                             const char *const *names, size_t nn, const nsd_variant_metrics *m,
                             int quiet, char ***written, size_t *n_written, char *err,
                             size_t err_len) {
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/metrics.csv", dir);
    FILE *f = nsd_open_tmp(path, err, err_len);
    if (!f) return -1;
    csv_header(f, &vars[ref], names, nn);
    for (size_t i = 0; i < nv; ++i) csv_row(f, &vars[i], &m[i], &m[ref], nn);
    if (commit(f, path, written, n_written, err, err_len) != 0) return -1;

    table T = {nv + 1, 0, calloc(nv + 1, sizeof *T.cell)};
    if (!T.cell) {
        snprintf(err, err_len, "out of memory for the metrics table");
        return -1;
    }
    build_table(&T, vars, nv, ref, names, nn, m);
    if (!quiet) print_table(stdout, &T, vars, ref);
    int rc = 0;
    for (int fmt = 0; fmt < 2 && rc == 0; ++fmt) {
        snprintf(path, sizeof path, "%s/metrics.%s", dir, fmt ? "tex" : "md");
        f = nsd_open_tmp(path, err, err_len);
        if (!f) {
            rc = -1;
            break;
        }
        if (fmt)
            latex(f, &T, vars, ref);
        else
            markdown(f, &T, vars, ref, m);
        rc = commit(f, path, written, n_written, err, err_len);
    }
    free(T.cell);
    return rc;
}

/* A run's summaries, computed in process from its samples, its event log
 * and the system's own summary values (sweep.h, docs/sweep.md). */
#define _GNU_SOURCE
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"
#include "sha256.h"
#include "sweep.h"
#include "figures.h"
#include "scenario.h"

/* A column name: [A-Za-z_][A-Za-z0-9_]*, not a reserved column. */
int nsd_sweep_valid_column(const char *s) {
    static const char *const reserved[] = {"run", "status", "message", "wall", "config_hash"};
    if (!s || !*s || !(s[0] == '_' || ((s[0] | 32) >= 'a' && (s[0] | 32) <= 'z'))) return 0;
    for (const char *p = s; *p; ++p)
        if (!(*p == '_' || (*p >= '0' && *p <= '9') || ((*p | 32) >= 'a' && (*p | 32) <= 'z')))
            return 0;
    for (size_t i = 0; i < NSDYN_COUNT(reserved); ++i)
        if (!strcmp(s, reserved[i])) return 0;
    return strlen(s) < 64;
}

/* Event kinds a summary may name: the contact log's, then the system's
 * switches and stops, then every event. */
enum { EV_SWITCH = NSD_EVENT_KIND_COUNT, EV_STOP, EV_ALL, EV_N };

static const char *event_name(int k) {
    if (k < NSD_EVENT_KIND_COUNT) return nsd_event_kind_name((nsd_event_kind)k);
    return k == EV_SWITCH ? "switch" : k == EV_STOP ? "stop" : "event";
}

static const struct {
    const char *fn;
    nsd_summary_kind kind;
    int args; /* 1: (channel), 2: (event, channel), 3: (event), 4: (channel, time) */
} forms[] = {
    {"max", NSD_SUM_MAX, 1},
    {"min", NSD_SUM_MIN, 1},
    {"final", NSD_SUM_FINAL, 1},
    {"mean", NSD_SUM_MEAN, 1},
    {"time_of_max", NSD_SUM_TIME_OF_MAX, 1},
    {"time_of_min", NSD_SUM_TIME_OF_MIN, 1},
    {"at_first", NSD_SUM_AT_FIRST, 2},
    {"time_of_first", NSD_SUM_TIME_OF_FIRST, 3},
    {"count", NSD_SUM_COUNT, 3},
    {"maxima", NSD_SUM_MAXIMA, 4},
    {"maxima_with_stopped", NSD_SUM_MAXIMA, 4}, /* stopped runs' maxima kept (issue 27) */
};

const nsdyn_system_summaries *nsd_sweep_system_summaries(const nsdyn_system *sys) {
    size_t has = offsetof(nsdyn_system, summaries) + sizeof sys->summaries;
    if (!sys || sys->info.struct_size < has || !sys->summaries) return NULL;
    const nsdyn_system_summaries *s = sys->summaries;
    if (s->struct_size < sizeof *s || !s->update || !s->values) return NULL;
    return s;
}

static char *dup_str(const char *s) {
    char *d = strdup(s ? s : "");
    if (!d) abort();
    return d;
}

static int find_event(const char *name) {
    for (int k = 0; k < EV_N; ++k)
        if (!strcmp(name, event_name(k))) return k;
    return -1;
}

/* Trim spaces in place. */
static char *trim(char *s) {
    while (*s == ' ') s++;
    size_t n = strlen(s);
    while (n && s[n - 1] == ' ') s[--n] = '\0';
    return s;
}

/* One "fn(args)" / "stop" / "t_reached" / "system.NAME" into sum. */
/* stick and slip are events of set-valued friction only (docs/event-driven.md):
 * with a smooth law (coulomb_regularized, stribeck, lugre) or none, no run
 * ever logs one, and time_of_first(slip) would be NULL in every row, count(slip)
 * 0, with nothing to say why. Refused before any run (issue 22). */
static int no_stick_slip(const nsd_sweep_summary *sum, const nsd_model *m, nsd_diag *diag) {
    if (sum->event != NSD_EVENT_STICK && sum->event != NSD_EVENT_SLIP) return 0;
    if (m->friction && (m->friction->info.provides & NSDYN_CAP_FRICTION_SET_VALUED)) return 0;
    nsd_diag_at(diag, sum->at,
                "[sweep.summary] %s = \"%s\": no run logs '%s' events: %s%s%s, and stick and "
                "slip are events of a set-valued friction law (coulomb) only; a smooth law "
                "has no stick phase to start or end",
                sum->name, sum->expr, event_name(sum->event),
                m->friction ? "the friction law '" : "the config has no [friction]",
                m->friction ? m->friction->info.id : "",
                m->friction ? "' is smooth (single-valued at zero slip)" : "");
    return 1;
}

static size_t parse_expr(nsd_sweep_summary *sum, const nsd_model *m, nsd_diag *diag) {
    const char *e = sum->expr;
    if (!strcmp(e, "stop")) return sum->kind = NSD_SUM_STOP, 0;
    if (!strcmp(e, "t_reached")) return sum->kind = NSD_SUM_T_REACHED, 0;
    if (!strncmp(e, "system.", 7)) {
        sum->kind = NSD_SUM_SYSTEM;
        sum->channel = dup_str(e + 7);
        const nsdyn_system_summaries *ss = nsd_sweep_system_summaries(m->sys);
        char list[400] = "";
        for (size_t i = 0; ss && i < ss->n; ++i) {
            if (!strcmp(ss->values[i].name, sum->channel)) return 0;
            size_t u = strlen(list);
            snprintf(list + u, sizeof list - u, "%s%s", u ? ", " : "", ss->values[i].name);
        }
        nsd_diag_at(diag, sum->at, "[sweep.summary] %s = \"%s\": system '%s' declares %s%s",
                    sum->name, e, m->sys->info.id, list[0] ? "the summary values " : "none", list);
        return 1;
    }
    char buf[256];
    snprintf(buf, sizeof buf, "%s", e);
    char *open = strchr(buf, '('), *close = strrchr(buf, ')');
    size_t f = NSDYN_COUNT(forms);
    if (open && close && close > open && !close[1]) {
        *open = *close = '\0';
        for (f = 0; f < NSDYN_COUNT(forms) && strcmp(trim(buf), forms[f].fn); ++f) {}
    }
    if (f == NSDYN_COUNT(forms)) {
        nsd_diag_at(diag, sum->at,
                    "[sweep.summary] %s = \"%s\": expected max(CH), min(CH), final(CH), "
                    "mean(CH), time_of_max(CH), time_of_min(CH), at_first(EVENT, CH), "
                    "time_of_first(EVENT), count(EVENT), stop, t_reached or system.NAME",
                    sum->name, e);
        return 1;
    }
    sum->kind = forms[f].kind;
    sum->with_stopped = !strcmp(forms[f].fn, "maxima_with_stopped");
    char *args = open + 1, *comma = strchr(args, ',');
    char *ev = forms[f].args == 1 || forms[f].args == 4 ? NULL : args;
    char *ch = forms[f].args == 3 ? NULL : args;
    if (forms[f].args == 4) { /* maxima(CHANNEL, T) */
        char *end = NULL;
        sum->after = comma ? strtod(comma + 1, &end) : NAN;
        if (!comma || end == comma + 1 || *trim(end) || !isfinite(sum->after)) {
            nsd_diag_at(diag, sum->at,
                        "[sweep.summary] %s = \"%s\": expected maxima(CHANNEL, T), T the time [s] "
                        "after which local maxima count",
                        sum->name, e);
            return 1;
        }
        *comma = '\0';
    }
    if (forms[f].args == 2) {
        if (!comma) {
            nsd_diag_at(diag, sum->at, "[sweep.summary] %s = \"%s\": expected %s(EVENT, CHANNEL)",
                        sum->name, e, forms[f].fn);
            return 1;
        }
        *comma = '\0';
        ch = comma + 1;
    }
    if (ev) {
        sum->event = find_event(trim(ev));
        int contact_only = sum->kind != NSD_SUM_COUNT;
        if (sum->event < 0 || (contact_only && sum->event >= NSD_EVENT_KIND_COUNT)) {
            nsd_diag_at(diag, sum->at,
                        "[sweep.summary] %s = \"%s\": unknown event '%s' (known: impact, rest, "
                        "close, open, stick, slip%s)",
                        sum->name, e, trim(ev), contact_only ? "" : ", switch, stop, event");
            return 1;
        }
        if (no_stick_slip(sum, m, diag)) return 1;
    }
    if (ch) {
        sum->channel = dup_str(trim(ch));
        if (nsd_model_channel(m, sum->channel) < 0) {
            const char *names[512];
            size_t n = m->n_channels < 512 ? m->n_channels : 512;
            for (size_t i = 0; i < n; ++i) names[i] = m->channels[i].name;
            const char *near = nsd_did_you_mean(sum->channel, names, n);
            nsd_diag_at(diag, sum->at, "[sweep.summary] %s = \"%s\": unknown channel '%s'%s%s%s",
                        sum->name, e, sum->channel, near ? " (did you mean '" : "",
                        near ? near : "", near ? "'?)" : "");
            return 1;
        }
    }
    return 0;
}

size_t nsd_sweep_parse_summaries(nsd_sweep_def *def, const nsd_toml_node *t,
                                 const nsd_scenario *base, nsd_diag *diag) {
    if (!t) return 0;
    if (t->type != NSD_TOML_TABLE) {
        nsd_diag_at(diag, t, "[sweep.summary]: expected a table of name = \"expression\"");
        return 1;
    }
    size_t errors = 0;
    def->sums = calloc(t->n_items ? t->n_items : 1, sizeof *def->sums);
    if (!def->sums) abort();
    def->n_sums = t->n_items;
    for (size_t i = 0; i < t->n_items; ++i) {
        const nsd_toml_node *e = &t->items[i];
        nsd_sweep_summary *s = &def->sums[i];
        s->at = e;
        s->name = dup_str(e->key);
        s->expr = dup_str(e->type == NSD_TOML_STRING ? e->str : "");
        if (e->type != NSD_TOML_STRING) {
            nsd_diag_at(diag, e, "[sweep.summary] %s: expected a string, found %s", e->key,
                        nsd_toml_type_name(e->type));
            errors++;
            continue;
        }
        if (!nsd_sweep_valid_column(e->key)) {
            nsd_diag_at(diag, e, "[sweep.summary] '%s': not a column name (letters, digits, _)",
                        e->key);
            errors++;
            continue;
        }
        for (size_t a = 0; a < def->n_axes; ++a)
            if (!strcmp(def->axes[a].name, e->key)) {
                nsd_diag_at(diag, e, "[sweep.summary] '%s': an axis has that name", e->key);
                errors++;
            }
        errors += parse_expr(s, &base->model, diag);
        if (s->kind == NSD_SUM_MAXIMA && def->points_sum >= 0) {
            nsd_diag_at(diag, e, "[sweep.summary] %s: one maxima() summary per sweep (%s is one)",
                        e->key, def->sums[def->points_sum].name);
            errors++;
        } else if (s->kind == NSD_SUM_MAXIMA) {
            def->points_sum = (long)i;
        }
    }
    return errors;
}

/* ---- computing ---- */

/* The local maxima of channel c at or after t0 into row->points: a
 * sample above its predecessor and not below its successor, refined by
 * the parabola through the three samples (its vertex; error O(h^3) for a
 * smooth peak, sample step h). Returns the count (all of them). */
static double local_maxima(const nsd_series *se, int c, double t0, nsd_sweep_row *row) {
    size_t count = 0;
    row->n_points = 0;
    for (size_t r = 1; r + 1 < se->rows; ++r) {
        double y0 = nsd_series_at(se, r - 1, (size_t)c), y1 = nsd_series_at(se, r, (size_t)c);
        double y2 = nsd_series_at(se, r + 1, (size_t)c);
        if (nsd_series_at(se, r, 0) < t0 || !(y1 > y0 && y1 >= y2)) continue;
        double den = y0 - 2 * y1 + y2; /* < 0 at a strict peak */
        double peak = den < 0 ? y1 - 0.125 * (y2 - y0) * (y2 - y0) / den : y1;
        if (row->n_points < NSD_SWEEP_POINTS) row->points[row->n_points++] = peak;
        count++;
    }
    return (double)count;
}

static double channel_reduce(const nsd_series *se, int c, nsd_summary_kind kind) {
    if (se->rows == 0) return NAN;
    if (kind == NSD_SUM_FINAL) return nsd_series_at(se, se->rows - 1, (size_t)c);
    if (kind == NSD_SUM_MEAN) {
        /* time average, trapezoid rule over the samples */
        double area = 0, t0 = nsd_series_at(se, 0, 0), t1 = nsd_series_at(se, se->rows - 1, 0);
        if (se->rows == 1 || !(t1 > t0)) return nsd_series_at(se, 0, (size_t)c);
        for (size_t r = 1; r < se->rows; ++r)
            area += 0.5 * (nsd_series_at(se, r, (size_t)c) + nsd_series_at(se, r - 1, (size_t)c)) *
                    (nsd_series_at(se, r, 0) - nsd_series_at(se, r - 1, 0));
        return area / (t1 - t0);
    }
    int want_max = kind == NSD_SUM_MAX || kind == NSD_SUM_TIME_OF_MAX;
    double best = NAN, t_best = NAN;
    for (size_t r = 0; r < se->rows; ++r) {
        double x = nsd_series_at(se, r, (size_t)c);
        if (isnan(x)) continue;
        if (isnan(best) || (want_max ? x > best : x < best)) {
            best = x;
            t_best = nsd_series_at(se, r, 0);
        }
    }
    return kind == NSD_SUM_MAX || kind == NSD_SUM_MIN ? best : t_best;
}

static double first_event_time(const nsd_run_result *res, int kind) {
    for (size_t i = 0; i < res->contact_log.n; ++i)
        if ((int)res->contact_log.rec[i].kind == kind) return res->contact_log.rec[i].t;
    return NAN;
}

/* The first sample at or after t (the post-event state at sample
 * resolution), or NaN. */
static double sample_after(const nsd_series *se, int c, double t) {
    for (size_t r = 0; r < se->rows; ++r)
        if (nsd_series_at(se, r, 0) >= t) return nsd_series_at(se, r, (size_t)c);
    return NAN;
}

static double event_count(const nsd_run_result *res, int kind) {
    nsd_event_counts n;
    nsd_run_count_events(res, &n);
    if (kind < NSD_EVENT_KIND_COUNT) return (double)n.contact[kind];
    return (double)(kind == EV_SWITCH ? n.switches : kind == EV_STOP ? n.stops : n.total);
}

/* The system's values over every sample into out (n values). */
static int system_values(const nsd_scenario *s, const nsdyn_system_summaries *ss, double *out) {
    const nsd_series *se = &s->res.series;
    const nsd_model *m = &s->model;
    for (size_t i = 0; i < ss->n; ++i) out[i] = NAN;
    for (size_t r = 0; r < se->rows; ++r) {
        const double *row = se->data + r * se->n_channels;
        if (ss->update(s->data->sys_inst, row[0], row + 1, row + 1 + m->nq, r == 0, out) >
            NSDYN_WARNING)
            return -1;
    }
    return 0;
}

static void stop_text(const nsd_scenario *s, char *buf) {
    const nsd_run_result *res = &s->res;
    const char *t = res->outcome == NSD_RUN_COMPLETE ? "complete" : "failed";
    if (res->outcome == NSD_RUN_STOPPED && res->stop_index >= 0 &&
        (size_t)res->stop_index < s->model.layout.n_stops)
        t = s->model.layout.stops[res->stop_index];
    snprintf(buf, NSD_SWEEP_TEXT, "%s", t);
}

unsigned char *nsd_sweep_sampled_channels(const nsd_sweep_def *def, const nsd_model *m, int every) {
    if (every) return NULL;
    unsigned char *want = calloc(m->n_channels ? m->n_channels : 1, 1);
    if (!want) return NULL; /* every channel: slower, not wrong */
    memset(want, 1, 1 + m->n);
    for (size_t k = 0; k < def->n_sums; ++k) {
        const nsd_sweep_summary *sum = &def->sums[k];
        if (!sum->channel || sum->kind == NSD_SUM_SYSTEM) continue;
        int c = nsd_model_channel(m, sum->channel);
        if (c >= 0) want[c] = 1; /* unknown: nsd_sweep_summarize says so */
    }
    return want;
}

int nsd_sweep_summarize(const nsd_sweep_def *def, const nsd_scenario *s, nsd_sweep_row *row) {
    const nsd_run_result *res = &s->res;
    const nsdyn_system_summaries *ss = nsd_sweep_system_summaries(s->model.sys);
    double sysv[64];
    int have_sys = 0;
    for (size_t k = 0; k < def->n_sums; ++k) {
        const nsd_sweep_summary *sum = &def->sums[k];
        row->sum_text[k][0] = '\0';
        row->sum_num[k] = NAN;
        int c = sum->channel && sum->kind != NSD_SUM_SYSTEM
                    ? nsd_model_channel(&s->model, sum->channel)
                    : 0;
        if (c < 0) {
            snprintf(row->message, sizeof row->message,
                     "summary %s: this run's model has no channel '%s'", sum->name, sum->channel);
            return -1;
        }
        if (res->series.sampled && !res->series.sampled[c]) { /* NaN there: no value */
            snprintf(row->message, sizeof row->message,
                     "summary %s reads channel '%s', which this run did not sample (a host "
                     "error: the channels sampled are chosen from the summaries)",
                     sum->name, sum->channel);
            return -1;
        }
        switch (sum->kind) {
            case NSD_SUM_STOP: stop_text(s, row->sum_text[k]); break;
            case NSD_SUM_T_REACHED: row->sum_num[k] = res->t_reached; break;
            case NSD_SUM_TIME_OF_FIRST: row->sum_num[k] = first_event_time(res, sum->event); break;
            case NSD_SUM_AT_FIRST:
                row->sum_num[k] = sample_after(&res->series, c, first_event_time(res, sum->event));
                break;
            case NSD_SUM_COUNT: row->sum_num[k] = event_count(res, sum->event); break;
            case NSD_SUM_SYSTEM: {
                size_t i = 0;
                while (ss && i < ss->n && strcmp(ss->values[i].name, sum->channel)) i++;
                if (!ss || i == ss->n || ss->n > 64) {
                    snprintf(row->message, sizeof row->message,
                             "summary %s: system '%s' declares no summary value '%s'", sum->name,
                             s->model.sys->info.id, sum->channel);
                    return -1;
                }
                if (!have_sys && system_values(s, ss, sysv) != 0) {
                    snprintf(row->message, sizeof row->message,
                             "summary %s: the system's summary update returned an error",
                             sum->name);
                    return -1;
                }
                have_sys = 1;
                row->sum_num[k] = sysv[i];
                break;
            }
            case NSD_SUM_MAXIMA:
                if (res->outcome == NSD_RUN_STOPPED && !sum->with_stopped) {
                    /* a run ended by a stop condition (a fall) is no motion on an
                     * attractor: its maxima stay out of the diagram */
                    row->n_points = 0;
                    snprintf(row->message, sizeof row->message,
                             "stopped: its maxima are left out of %s (maxima_with_stopped() "
                             "keeps them)",
                             sum->name);
                    break; /* the summary stays NaN */
                }
                row->sum_num[k] = local_maxima(&res->series, c, sum->after, row);
                break;
            default: row->sum_num[k] = channel_reduce(&res->series, c, sum->kind); break;
        }
    }
    return 0;
}

/* ---- canonical text and the resolved config's hash ---- */

void nsd_sweep_node_text(FILE *out, const nsd_toml_node *n) {
    if (n->key) fprintf(out, "%s=", n->key);
    switch (n->type) {
        case NSD_TOML_TABLE:
        case NSD_TOML_ARRAY:
            fputc(n->type == NSD_TOML_TABLE ? '{' : '[', out);
            for (size_t i = 0; i < n->n_items; ++i) nsd_sweep_node_text(out, &n->items[i]);
            fputc(n->type == NSD_TOML_TABLE ? '}' : ']', out);
            break;
        case NSD_TOML_STRING:
        case NSD_TOML_DATETIME: fprintf(out, "\"%s\"", n->str ? n->str : ""); break;
        case NSD_TOML_INTEGER: fprintf(out, "%lld", (long long)n->integer); break;
        case NSD_TOML_FLOAT: fprintf(out, "%.17g", n->real); break;
        case NSD_TOML_BOOLEAN: fprintf(out, "%s", n->boolean ? "true" : "false"); break;
    }
    fputc(';', out);
}

/* Does an axis of def sweep section.param (param NULL: any key of the
 * section's plugin, i.e. its id)? */
static int swept(const nsd_sweep_def *def, const char *section, const char *param) {
    for (size_t a = 0; a < def->n_axes; ++a)
        if (!strcmp(def->axes[a].section, section) &&
            (param ? !strcmp(def->axes[a].param, param) : !strcmp(def->axes[a].param, "id")))
            return 1;
    return 0;
}

/* Resolved parameters as "key = value  # ..." lines (params.c), the lines
 * of swept keys left out. */
static void unswept_params(FILE *f, const nsd_sweep_def *def, const char *section,
                           const nsd_params *p) {
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m) abort();
    nsd_params_write_toml(m, p);
    fclose(m);
    for (char *l = text, *next; l && *l; l = next) {
        next = strchr(l, '\n');
        if (next) *next++ = '\0';
        char key[128];
        snprintf(key, sizeof key, "%.*s", (int)strcspn(l, " ="), l);
        if (!swept(def, section, key)) fprintf(f, "%s\n", l);
    }
    free(text);
}

/* The nodes of a table as canonical text, the swept keys of `section`
 * left out. */
static void unswept_nodes(FILE *f, const nsd_sweep_def *def, const char *section,
                          const nsd_toml_node *const *nodes, size_t n) {
    fprintf(f, "%s={", section);
    for (size_t i = 0; i < n; ++i)
        if (!nodes[i]->key || !swept(def, section, nodes[i]->key)) nsd_sweep_node_text(f, nodes[i]);
    fprintf(f, "};\n");
}

void nsd_sweep_study_config(nsd_sweep_def *def) {
    const nsd_config *cfg = def->cfg;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) abort();
    fprintf(f, "nsdyn sweep study config, swept keys left out:");
    for (size_t a = 0; a < def->n_axes; ++a)
        fprintf(f, " %s.%s", def->axes[a].section, def->axes[a].param);
    fputc('\n', f);
    const nsd_section *secs[] = {&cfg->system, &cfg->contact, &cfg->friction, &cfg->integrator};
    for (size_t i = 0; i < 4; ++i) {
        const nsd_plugin *p = secs[i]->plugin;
        const char *name = nsd_kind_section(secs[i]->kind);
        if (!p) continue;
        if (swept(def, name, NULL)) {
            /* the plugin varies with the run, so do its declarations and
             * defaults: the section's keys as written stand for it */
            const nsd_toml_node *t = nsd_toml_get(&cfg->root, name);
            const nsd_toml_node **nodes = calloc(t ? t->n_items + 1 : 1, sizeof *nodes);
            if (!nodes) abort();
            for (size_t k = 0; t && k < t->n_items; ++k) nodes[k] = &t->items[k];
            unswept_nodes(f, def, name, nodes, t ? t->n_items : 0);
            free(nodes);
            continue;
        }
        fprintf(f, "[%s] id=%s version=%s\n", name, p->info->id,
                p->info->version ? p->info->version : "");
        unswept_params(f, def, name, &secs[i]->params);
    }
    fprintf(f, "[run]\n");
    unswept_params(f, def, "run", &cfg->run);
    if (cfg->has_initial) unswept_nodes(f, def, "initial", cfg->initial, cfg->n_initial);
    fclose(f);
    nsd_sha256_hex(text, len, def->config_hash);
    free(def->config_resolved);
    def->config_resolved = text;
}

/* The unit of a swept axis and of a summary column (labels, runs.csv). */
const char *nsd_sweep_axis_unit(const nsd_scenario *base, const nsd_sweep_axis *ax) {
    if (!strcmp(ax->section, "initial")) {
        int ch = nsd_model_channel(&base->model, ax->param);
        return ch >= 0 ? base->model.channels[ch].unit : "1";
    }
    return nsd_figures_key_unit(&base->app.cfg, ax->section, ax->param);
}

const char *nsd_sweep_summary_unit(const nsd_scenario *base, const nsd_sweep_summary *sum) {
    switch (sum->kind) {
        case NSD_SUM_TIME_OF_MAX:
        case NSD_SUM_TIME_OF_MIN:
        case NSD_SUM_TIME_OF_FIRST:
        case NSD_SUM_T_REACHED: return "s";
        case NSD_SUM_COUNT:
        case NSD_SUM_STOP:
        case NSD_SUM_KIND_COUNT: return "1";
        case NSD_SUM_SYSTEM: { /* the unit the system declares with the value */
            const nsdyn_system_summaries *ss = nsd_sweep_system_summaries(base->model.sys);
            for (size_t i = 0; ss && sum->channel && i < ss->n; ++i)
                if (!strcmp(ss->values[i].name, sum->channel))
                    return ss->values[i].unit && ss->values[i].unit[0] ? ss->values[i].unit : "1";
            return "1";
        }
        default: break;
    }
    int ch = sum->channel ? nsd_model_channel(&base->model, sum->channel) : -1;
    return ch >= 0 ? base->model.channels[ch].unit : "1";
}

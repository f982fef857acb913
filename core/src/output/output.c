#define _GNU_SOURCE
#include "output.h"
#include "numfmt.h"
#include "run_audit.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "nsdyn_build_config.h"
#include "sha256_cache.h"
#include "staging.h"

const char *nsd_outcome_text(nsd_run_outcome o, nsd_outcome_style style) {
    static const char *const failed[] = {"failed (data incomplete)", "FAILED", "failed"};
    switch (o) {
        case NSD_RUN_COMPLETE: return "complete";
        case NSD_RUN_STOPPED: return "stopped";
        case NSD_RUN_FAILED: return failed[style];
    }
    return "?";
}

int nsd_paths_push(char ***paths, size_t *n, const char *path, char *err, size_t err_len) {
    char *copy = strdup(path);
    char **grown = copy ? realloc(*paths, (*n + 1) * sizeof *grown) : NULL;
    if (!grown) {
        free(copy);
        snprintf(err, err_len, "out of memory while listing %s", path);
        return -1;
    }
    *paths = grown;
    grown[(*n)++] = copy;
    return 0;
}

void nsd_paths_free(char **paths, size_t n) {
    for (size_t i = 0; i < n; ++i) free(paths[i]);
    free(paths);
}

int nsd_make_dirs(const char *path, char *err, size_t err_len) {
    char buf[PATH_MAX];
    if (!path[0]) {
        snprintf(err, err_len, "cannot create a directory with an empty name");
        return -1;
    }
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; ++p) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
            snprintf(err, err_len, "cannot create directory %s: %s", buf, strerror(errno));
            return -1;
        }
        *p = '/';
    }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
        snprintf(err, err_len, "cannot create directory %s: %s", buf, strerror(errno));
        return -1;
    }
    return 0;
}

/* A file of a staged folder (staging.h: an output folder's temporary
 * folder, which only this process writes and no one sees yet) is written
 * under its own name, created exclusively and without following links;
 * one written twice replaces the first, which no one saw either. */
static int open_staged(const char *path) {
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0 && errno == EEXIST && unlink(path) == 0)
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    return fd;
}

FILE *nsd_open_tmp(const char *path, char *err, size_t err_len) {
    char tmp[PATH_MAX];
    int staged = nsd_stage_holds(path);
    if (snprintf(tmp, sizeof tmp, "%s%s", path, staged ? "" : ".tmp") >= (int)sizeof tmp) {
        snprintf(err, err_len, "cannot write %s: the path is too long", path);
        return NULL;
    }
    /* A leftover or planted path.tmp, a symbolic link included, is removed
     * (unlink never follows a link); the new file is created exclusively and
     * without following links, so nothing is written through a link. */
    if (!staged && unlink(tmp) != 0 && errno != ENOENT) {
        snprintf(err, err_len, "cannot write %s: %s", tmp, strerror(errno));
        return NULL;
    }
    int fd = staged ? open_staged(tmp)
                    : open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0) {
        snprintf(err, err_len, "cannot write %s: %s", tmp, strerror(errno));
        return NULL;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        snprintf(err, err_len, "cannot write %s: %s", tmp, strerror(errno));
        close(fd);
        unlink(tmp);
    }
    return f;
}

int nsd_commit_file(FILE *f, const char *path, char *err, size_t err_len) {
    char tmp[PATH_MAX];
    int staged = nsd_stage_holds(path);
    snprintf(tmp, sizeof tmp, "%s%s", path, staged ? "" : ".tmp");
    /* Every write error counts, a full disk's included: the ones stdio
     * kept, the last buffer's, and the ones the file system reports only
     * when the data reach the disk (fsync; for a staged folder's file,
     * nsd_stage_sync's fdatasync before the folder replaces anything). */
    int bad = ferror(f), e = 0;
    if (bad) /* errno still says why, if it is one of the write errors */
        e = errno == ENOSPC || errno == EFBIG || errno == EDQUOT || errno == EIO ? errno : EIO;
    if (!bad && fflush(f) != 0) bad = 1, e = errno;
    if (!bad && !staged && fsync(fileno(f)) != 0 && errno != EINVAL && errno != EROFS)
        bad = 1, e = errno;
    if (fclose(f) != 0 && !bad) bad = 1, e = errno;
    if (bad) {
        snprintf(err, err_len, "cannot write %s: %s", tmp, strerror(e));
        unlink(tmp);
        return -1;
    }
    if (!staged && rename(tmp, path) != 0) {
        snprintf(err, err_len, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

int nsd_write_csv(const char *path, const nsd_channel *channels, const nsd_series *s, char *err,
                  size_t err_len) {
    FILE *f = nsd_open_tmp(path, err, err_len);
    if (!f) return -1;
    for (size_t c = 0; c < s->n_channels; ++c)
        fprintf(f, "%s%s [%s]", c ? "," : "", channels[c].name, channels[c].unit);
    fputc('\n', f);
    /* Rows into a 64 KiB buffer, one fwrite (one write(2), past stdio's
     * 4 KiB buffer) each time it fills: 5 system calls instead of 80 for
     * a 320 kB file (bench/bench_startup.py). The numbers are written
     * exactly (numfmt.h) at a fraction of fprintf's cost, which dominated
     * a run with output every step (issue 26). */
    enum { CHUNK = 1 << 16 };
    char small[4096], *buf = malloc(CHUNK);
    size_t cap = buf ? CHUNK : sizeof small, n = 0;
    if (!buf) buf = small;
    /* A channel that keeps its value from one row to the next (a
     * parameter, a force that stays zero, a free-flight constant) is
     * copied from its text in the row before, still in buf, instead of
     * formatted again: one comparison of the bits and a fixed-length copy
     * (bench/README.md, start-up). `at` = SIZE_MAX: not in buf. */
    struct last {
        uint64_t bits;
        size_t at, len;
    } *last = calloc(s->n_channels ? s->n_channels : 1, sizeof *last);
    for (size_t c = 0; last && c < s->n_channels; ++c) last[c].at = SIZE_MAX;
    for (size_t r = 0; r < s->rows; ++r) {
        const double *row = s->data + r * s->n_channels;
        for (size_t c = 0; c < s->n_channels; ++c) {
            if (n + NSD_NUM_CHARS + 2 > cap) {
                fwrite(buf, 1, n, f), n = 0;
                for (size_t k = 0; last && k < s->n_channels; ++k) last[k].at = SIZE_MAX;
            }
            if (c) buf[n++] = ',';
            uint64_t bits;
            memcpy(&bits, &row[c], sizeof bits);
            if (!last) {
                n += nsd_num_format(buf + n, row[c]);
            } else if (last[c].at != SIZE_MAX && last[c].bits == bits &&
                       n - last[c].at >= NSD_NUM_CHARS) { /* the copy does not overlap */
                memcpy(buf + n, buf + last[c].at, NSD_NUM_CHARS);
                last[c].at = n;
                n += last[c].len;
            } else {
                last[c] = (struct last){bits, n, nsd_num_format(buf + n, row[c])};
                n += last[c].len;
            }
        }
        buf[n++] = '\n';
    }
    fwrite(buf, 1, n, f);
    free(last);
    if (buf != small) free(buf);
    return nsd_commit_file(f, path, err, err_len);
}

int nsd_write_event_log(const char *path, const nsd_model *m, const nsd_event_log *log, char *err,
                        size_t err_len) {
    FILE *f = nsd_open_tmp(path, err, err_len);
    if (!f) return -1;
    fputs("t [s],contact,kind,u_n_before [m/s],u_t1_before [m/s],u_t2_before [m/s],"
          "u_n_after [m/s],u_t1_after [m/s],u_t2_after [m/s],P_n [N s],P_t1 [N s],P_t2 [N s],"
          "slip_dir1 [1],slip_dir2 [1],limit_directions_agree,impact_phases\n",
          f);
    for (size_t i = 0; i < log->n; ++i) {
        const nsd_event_record *r = &log->rec[i];
        nsd_num_put(f, r->t);
        fprintf(f, ",%s,%s", m->layout.contacts[r->contact].name, nsd_event_kind_name(r->kind));
        int slip = r->kind == NSD_EVENT_SLIP;
        const double num[11] = {r->u_before[0],
                                r->u_before[1],
                                r->u_before[2],
                                r->u_after[0],
                                r->u_after[1],
                                r->u_after[2],
                                r->impulse[0] + 0.0,
                                r->impulse[1] + 0.0, /* no "-0" */
                                r->impulse[2] + 0.0,
                                slip ? r->slip_dir[0] : 0.0,
                                slip ? r->slip_dir[1] : 0.0};
        for (int a = 0; a < 11; ++a) fputc(',', f), nsd_num_put(f, num[a]);
        fprintf(f, ",%s,", r->limit_check < 0 ? "" : r->limit_check ? "yes" : "no");
        /* the impact law's phase log, quoted (it may hold commas); '"' doubled */
        if (r->kind == NSD_EVENT_IMPACT && r->law_log[0]) {
            fputc('"', f);
            for (const char *ch = r->law_log; *ch; ++ch) {
                if (*ch == '"') fputc('"', f);
                fputc(*ch, f);
            }
            fputc('"', f);
        }
        fputc('\n', f);
    }
    return nsd_commit_file(f, path, err, err_len);
}

void nsd_toml_write_string(FILE *out, const char *s) {
    fputc('"', out);
    for (; s && *s; ++s) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(out, "\\%c", ch);
        else if (ch == '\n')
            fputs("\\n", out);
        else if (ch < 0x20 || ch == 0x7f)
            fprintf(out, "\\u%04x", ch);
        else
            fputc(ch, out);
    }
    fputc('"', out);
}

/* Resolved values as `key = value` lines. An array left at an empty
 * default (plot.snapshot_window: the whole run) has no value the loader
 * would take back, so it is named in a comment instead: the record stays
 * a config that runs. */
static void write_params(FILE *f, const nsd_params *p) {
    size_t n = 0;
    for (size_t i = 0; i < p->n; ++i)
        n += !(p->decls[i].type == NSDYN_PARAM_REAL_ARRAY && p->values[i].len == 0 && !p->from[i]);
    if (n == p->n) {
        nsd_params_write_toml(f, p);
        return;
    }
    nsdyn_param_decl *decls = calloc(n ? n : 1, sizeof *decls);
    nsdyn_value *values = calloc(n ? n : 1, sizeof *values);
    const nsd_toml_node **from = calloc(n ? n : 1, sizeof *from);
    if (!decls || !values || !from) abort();
    nsd_params kept = *p;
    size_t k = 0;
    for (size_t i = 0; i < p->n; ++i) {
        if (p->decls[i].type == NSDYN_PARAM_REAL_ARRAY && p->values[i].len == 0 && !p->from[i])
            continue;
        decls[k] = p->decls[i];
        values[k] = p->values[i];
        from[k++] = p->from[i];
    }
    kept.decls = decls;
    kept.values = values;
    kept.from = from;
    kept.n = n;
    nsd_params_write_toml(f, &kept);
    for (size_t i = 0; i < p->n; ++i)
        if (p->decls[i].type == NSDYN_PARAM_REAL_ARRAY && p->values[i].len == 0 && !p->from[i])
            fprintf(f, "# %s: not set (default)\n", p->decls[i].name);
    free(decls);
    free(values);
    free(from);
}

static void write_section(FILE *f, const nsd_section *s) {
    if (!s->plugin) return;
    fprintf(f, "\n[%s]\nid = ", nsd_kind_section(s->kind));
    nsd_toml_write_string(f, s->plugin->info->id);
    fputc('\n', f);
    write_params(f, &s->params);
}

/* Each plugin: id, version, ABI, its shared object (absolute) and that
 * file's SHA-256, so a record says which build made the run. */
static void write_plugin_provenance(FILE *f, const nsd_section *s) {
    if (!s->plugin) return;
    fprintf(f, "%s = { id = ", nsd_kind_section(s->kind));
    nsd_toml_write_string(f, s->plugin->info->id);
    fprintf(f, ", version = ");
    nsd_toml_write_string(f, s->plugin->info->version);
    fprintf(f, ", abi = \"%u.%u\", file = ", s->plugin->info->abi_major,
            s->plugin->info->abi_minor);
    char real[PATH_MAX], hash[65];
    /* the registry's realpath of the file: no readlink per path component */
    const char *file = s->plugin->real && s->plugin->real[0] == '/'         ? s->plugin->real
                       : s->plugin->path && realpath(s->plugin->path, real) ? real
                                                                            : s->plugin->path;
    nsd_toml_write_string(f, file);
    fprintf(f, ", sha256 = ");
    nsd_toml_write_string(f, s->plugin->path && nsd_sha256_file_cached(s->plugin->path, hash) == 0
                                 ? hash
                                 : "unreadable");
    fprintf(f, " }\n");
}

/* The config's plugin_path, each folder made absolute (relative ones start
 * at the config's folder, as the loader reads them), so the record runs
 * from anywhere. */
static void write_plugin_path(FILE *f, const nsd_config *cfg) {
    const nsd_toml_node *pp = nsd_toml_get(&cfg->root, "plugin_path");
    if (!pp) return;
    char base[PATH_MAX];
    snprintf(base, sizeof base, "%s", cfg->path ? cfg->path : ".");
    char *slash = strrchr(base, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(base, sizeof base, ".");
    const nsd_toml_node *items = pp->type == NSD_TOML_ARRAY ? pp->items : pp;
    size_t count = pp->type == NSD_TOML_ARRAY ? pp->n_items : 1, k = 0;
    fprintf(f, "plugin_path = [");
    for (size_t i = 0; i < count; ++i) {
        if (items[i].type != NSD_TOML_STRING) continue;
        char dir[2 * PATH_MAX + 2], real[PATH_MAX];
        if (items[i].str[0] == '/')
            snprintf(dir, sizeof dir, "%s", items[i].str);
        else
            snprintf(dir, sizeof dir, "%s/%s", base, items[i].str);
        fprintf(f, "%s", k++ ? ", " : "");
        nsd_toml_write_string(f, realpath(dir, real) ? real : dir);
    }
    fprintf(f, "]  # the config's, made absolute\n");
}

/* The events of a run by kind: `events` is their total; every kind is
 * written, zero or not, so readers find the same keys in every record. */
static void write_event_counts(FILE *f, const nsd_run_result *r) {
    nsd_event_counts c;
    nsd_run_count_events(r, &c);
    fprintf(f, "events = %zu  # the sum of the events_* counts\n", c.total);
    for (int k = 0; k < NSD_EVENT_KIND_COUNT; ++k)
        fprintf(f, "events_%s = %zu\n", nsd_event_kind_name((nsd_event_kind)k), c.contact[k]);
    fprintf(f, "events_switch = %zu\nevents_stop = %zu\n", c.switches, c.stops);
    fprintf(
        f,
        "root_returns = %llu  # event-function returns of the integrator\n"
        "unlogged_roots = %llu  # of those, the ones that changed nothing\n"
        "drift_corrections = %llu  # sustained contacts projected back into the touching band\n",
        (unsigned long long)r->root_returns, (unsigned long long)r->unlogged_roots,
        (unsigned long long)r->drift_corrections);
    fprintf(f, "rate_restarts = %llu  # integrator restarts at gap_rate = 0 (bi-stiffness)\n",
            (unsigned long long)r->rate_restarts);
    fprintf(f, "rate_holds = %llu  # holds entered at gap_rate = 0 (bi-stiffness at rest)\n",
            (unsigned long long)r->rate_holds);
    fprintf(f,
            "open_projections = %llu  # open contacts found penetrating and projected out (a "
            "possible missed impact)\ndeepest_open_projection = %.6g  # [m]\n",
            (unsigned long long)r->open_projections, r->deepest_open);
    fprintf(f,
            "guard_evaluations = %llu  # the step guard's evaluations of every contact's gap\n"
            "guard_evaluations_some = %llu  # of the gaps of the contacts it follows\n"
            "guard_gaps = %llu  # contact gaps evaluated over both\n"
            "guard_hits = %llu  # impacts the step guard located\n",
            (unsigned long long)r->guard_evaluations, (unsigned long long)r->guard_evaluations_some,
            (unsigned long long)r->guard_gaps, (unsigned long long)r->guard_hits);
    fprintf(f,
            "system_reset_energy = %.9g  # [J] energy changed by the system's resets "
            "(events_system_reset; the energy audit's floor rose by their rises)\n",
            r->reset_energy);
    fprintf(
        f,
        "energy_checked = %llu  # step ends the energy audit judged (docs/checks.md)\n"
        "energy_rises = %llu  # of those, above the allowed rise (run.energy_audit = \"warn\")\n"
        "energy_worst = %.9g  # [J] the largest rise above the lowest energy before it\n",
        (unsigned long long)r->energy_checked, (unsigned long long)r->energy_rises,
        r->energy_worst);
    nsd_run_audit_write_toml(f, r); /* time-stepping: penetration, energy balance (issue 28) */
}

/* [status]: how the run ended and what it cost. */
static void write_status(FILE *f, const nsd_run_result *r) {
    fprintf(f, "\n[status]\noutcome = ");
    nsd_toml_write_string(f, nsd_outcome_text(r->outcome, NSD_OUTCOME_RECORD));
    fprintf(f, "\nmessage = ");
    nsd_toml_write_string(f, r->message);
    fprintf(f, "\nt_reached = %.12g  # [s]\nwall_time = %.6g  # [s]\nsamples = %zu\n", r->t_reached,
            r->wall_seconds, r->series.rows);
    fprintf(f, "steps = %llu\nrhs_evals = %llu\nrejected_steps = %llu\njacobian_evals = %llu\n",
            (unsigned long long)r->stats.steps, (unsigned long long)r->stats.rhs_evals,
            (unsigned long long)r->stats.rejected_steps,
            (unsigned long long)r->stats.jacobian_evals);
    write_event_counts(f, r);
}

static void write_string_list(FILE *f, const char *key, char *const *items, size_t n) {
    fprintf(f, "%s = [", key);
    for (size_t i = 0; i < n; ++i) {
        fprintf(f, "%s", i ? ", " : "");
        nsd_toml_write_string(f, items[i]);
    }
    fprintf(f, "]\n");
}

void nsd_print_run_record(FILE *f, const nsd_config *cfg, const nsd_model *m,
                          const nsd_run_result *r, const char *command_line) {
    char when[64];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    fprintf(f, "# Record of an nsdyn run: the configuration as resolved (every value, defaults\n"
               "# included) and how the run was made. Run it again with: nsdyn run run.toml\n\n");
    fprintf(f, "title = ");
    nsd_toml_write_string(f, cfg->title);
    fputc('\n', f);
    write_plugin_path(f, cfg);
    fprintf(f, "\n[provenance]\nhost = \"nsdyn %s\"\nabi = \"%u.%u\"\nconfig = ", NSDYN_VERSION,
            NSDYN_ABI_MAJOR, NSDYN_ABI_MINOR);
    nsd_toml_write_string(f, cfg->path);
    fprintf(f, "\ncommand = ");
    nsd_toml_write_string(f, command_line ? command_line : "");
    fprintf(f, "\ndate = \"%s\"\n", when);
    write_plugin_provenance(f, &cfg->system);
    write_plugin_provenance(f, &cfg->contact);
    write_plugin_provenance(f, &cfg->friction);
    write_plugin_provenance(f, &cfg->integrator);
    if (r) write_status(f, r);
    write_section(f, &cfg->system);
    write_section(f, &cfg->contact);
    write_section(f, &cfg->friction);
    write_section(f, &cfg->integrator);
    fprintf(f, "\n[initial]\n");
    for (size_t i = 0; i < m->nq + m->nv; ++i) {
        /* %.17g reads back as the same double; -0 would read as the TOML
         * integer 0, so a negative zero is written as a float. */
        double y = r && r->y0 ? r->y0[i] : m->y0[i];
        if (y == 0 && signbit(y))
            fprintf(f, "%s = -0.0", m->channels[1 + i].name);
        else
            fprintf(f, "%s = %.17g", m->channels[1 + i].name, y);
        fprintf(f, "  # [%s]\n", m->channels[1 + i].unit);
    }
    fprintf(f, "\n[run]\n");
    write_params(f, &cfg->run);
    fprintf(f, "\n[plot]\n");
    write_params(f, &cfg->plot);
    if (cfg->have_series) write_string_list(f, "series", cfg->series, cfg->n_series);
    if (cfg->have_phase) write_string_list(f, "phase", cfg->phase, cfg->n_phase);
    if (cfg->have_highlight) write_string_list(f, "highlight", cfg->highlight, cfg->n_highlight);
    if (cfg->n_limits) { /* keys quoted: channel names such as "ground.N" hold dots */
        fprintf(f, "limits = {");
        for (size_t i = 0; i < cfg->n_limits; ++i) {
            fprintf(f, "%s", i ? ", " : " ");
            nsd_toml_write_string(f, cfg->limit_names[i]);
            fprintf(f, " = [%.17g, %.17g]", cfg->limits[i][0], cfg->limits[i][1]);
        }
        fprintf(f, " }\n");
    }
    for (size_t i = 0; i < cfg->n_figures; ++i) { /* [plot.figure.NAME]: after [plot]'s keys */
        const nsd_plot_figure *o = &cfg->figures[i];
        char key[300];
        if (o->panel)
            snprintf(key, sizeof key, "%s.%zu", o->name, o->panel);
        else
            snprintf(key, sizeof key, "%s", o->name);
        fprintf(f, "\n[plot.figure.");
        nsd_toml_write_string(f, key);
        fprintf(f, "]\n");
        write_params(f, &o->keys);
    }
}

int nsd_write_run_record(const char *path, const nsd_config *cfg, const nsd_model *m,
                         const nsd_run_result *r, const char *command_line, char *err,
                         size_t err_len) {
    FILE *f = nsd_open_tmp(path, err, err_len);
    if (!f) return -1;
    nsd_print_run_record(f, cfg, m, r, command_line);
    return nsd_commit_file(f, path, err, err_len);
}

/* nsdyn animate RUN_DIR: the run's mechanism moving, from its record
 * (run.toml, which rebuilds the model that draws it) and its data
 * (timeseries.csv), to an MP4 or GIF (animate.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animate.h"
#include "cli.h"
#include "cli_args.h"
#include "help.h"
#include "scenario.h"

typedef struct anim_args {
    const char *out;
    nsd_anim_opts o;
    int quiet;
} anim_args;

static int on_option(void *ctx, int key, const char *v) {
    anim_args *a = ctx;
    long n = 0;
    char *end = NULL;
    switch (key) {
        case 'o': a->out = v; return 0;
        case 'q': a->quiet = 1; return 0;
        case NSD_OPT_FORMAT:
            if (nsd_anim_format_parse(v, &a->o.format) == 0) return 0;
            fprintf(stderr, "error: --format '%s': expected mp4 or gif\n", v);
            return -1;
        case NSD_OPT_FPS:
            if (nsd_cli_whole("--fps", v, 1, 60, &n) != 0) return -1;
            a->o.fps = (double)n;
            return 0;
        case NSD_OPT_TRAILS:
            if (nsd_cli_whole("--trails", v, 0, 50, &n) != 0) return -1;
            a->o.trails = (int)n;
            return 0;
        case NSD_OPT_SLOW:
            a->o.slow = strtod(v, &end);
            if (end != v && !*end && a->o.slow >= 1e-3 && a->o.slow <= 1e6) return 0;
            fprintf(stderr, "error: --slow '%s': expected a number from 0.001 to 1e6\n", v);
            return -1;
        default: return -1;
    }
}

/* timeseries.csv of the run into s; its header must name m's channels. */
static int read_series(const char *path, const nsd_model *m, nsd_series *s) {
    FILE *f = fopen(path, "r");
    if (!f) return fprintf(stderr, "error: cannot read %s: %s\n", path, strerror(errno)), -1;
    size_t cap = 0, len = 0;
    char *line = NULL;
    ssize_t got = getline(&line, &cap, f);
    char want[128];
    const char *p = got > 0 ? line : "";
    int ok = got > 0;
    for (size_t c = 0; ok && c < m->n_channels; ++c) {
        snprintf(want, sizeof want, "%s%s [%s]", c ? "," : "", m->channels[c].name,
                 m->channels[c].unit);
        len = strlen(want);
        ok = !strncmp(p, want, len);
        p += ok ? len : 0;
    }
    if (!ok || (*p != '\n' && *p != '\0')) {
        fprintf(stderr, "error: %s:1: the columns are not those of the run's model (%s...)\n", path,
                m->n_channels ? m->channels[0].name : "");
        free(line), fclose(f);
        return -1;
    }
    *s = (nsd_series){.n_channels = m->n_channels};
    for (size_t row = 2; (got = getline(&line, &cap, f)) > 0; ++row) {
        if (s->rows == s->cap) {
            s->cap = s->cap ? 2 * s->cap : 1024;
            s->data = realloc(s->data, s->cap * s->n_channels * sizeof *s->data);
            if (!s->data) abort();
        }
        char *q = line;
        for (size_t c = 0; c < s->n_channels; ++c) {
            char *end;
            double x = strtod(q, &end);
            if (end == q || (*end != ',' && c + 1 < s->n_channels)) {
                fprintf(stderr, "error: %s:%zu: column %zu is not a number\n", path, row, c + 1);
                free(line), fclose(f);
                return -1;
            }
            s->data[s->rows * s->n_channels + c] = x;
            q = end + 1;
        }
        s->rows++;
    }
    free(line);
    fclose(f);
    return 0;
}

static int animate(const char *run_dir, anim_args *a) {
    char cfg_path[PATH_MAX + 32], csv[PATH_MAX + 32], out[PATH_MAX + 32], err[PATH_MAX + 512];
    snprintf(cfg_path, sizeof cfg_path, "%s/run.toml", run_dir);
    snprintf(csv, sizeof csv, "%s/timeseries.csv", run_dir);
    if (nsd_cli_check_file("run record", cfg_path) || nsd_cli_check_file("run data", csv))
        return NSD_EXIT_USAGE;
    nsd_scenario sc;
    nsd_diag diag = {0};
    nsd_series ser = {0};
    int status = NSD_EXIT_USAGE;
    sc.no_graphs = 1;
    if (nsd_scenario_load(&sc, cfg_path, NULL, 0, &diag) != 0) {
        nsd_diag_print(&diag, stderr);
        goto done;
    }
    if (read_series(csv, &sc.model, &ser) != 0) goto done;
    snprintf(out, sizeof out, "%s", a->out ? a->out : "");
    if (!a->out)
        snprintf(out, sizeof out, "%s/animation.%s", run_dir,
                 a->o.format == NSD_ANIM_GIF ? "gif" : "mp4");
    a->o.title = sc.app.cfg.title;
    if (nsd_anim_write(out, sc.data, &ser, &a->o, err, sizeof err) != 0) {
        fprintf(stderr, "error: %s\n", err);
        status = 4;
        goto done;
    }
    status = NSD_EXIT_OK;
    if (!a->quiet)
        printf("wrote %s (%zu frames at %g per second)\n", out,
               nsd_anim_frames(ser.data[0], ser.data[(ser.rows - 1) * ser.n_channels], &a->o),
               a->o.fps);
done:
    free(ser.data);
    nsd_scenario_destroy(&sc);
    nsd_diag_free(&diag);
    return status;
}

int nsd_cmd_animate(int argc, char **argv) {
    anim_args a = {.o = {.format = NSD_ANIM_MP4, .fps = 25, .slow = 1}};
    char **ops = NULL;
    int n = 0, rc = nsd_cli_parse("animate", argc - 1, argv + 1, on_option, &a, &ops, &n);
    if (rc == NSD_CLI_HELP) nsd_help_print_command(stdout, nsd_help_find("animate"));
    if (rc != NSD_CLI_OK) return rc == NSD_CLI_HELP ? NSD_EXIT_OK : NSD_EXIT_USAGE;
    if (n != 1) {
        fprintf(stderr, "error: usage: nsdyn animate RUN_DIR [options]\n");
        return NSD_EXIT_USAGE;
    }
    if (a.out) { /* the file name says the format */
        const char *dot = strrchr(a.out, '.');
        if (!dot || nsd_anim_format_parse(dot + 1, &a.o.format) != 0) {
            fprintf(stderr, "error: -o '%s': expected a file name ending in .mp4 or .gif\n", a.out);
            return NSD_EXIT_USAGE;
        }
    }
    return animate(ops[0], &a);
}

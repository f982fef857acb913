/* Entry points shared by the libFuzzer targets and the corpus replay test.
 *
 * Each input goes through what `nsdyn run` / `nsdyn compare` do before the
 * first step (core/src/config/app.c nsd_app_load, cmd_run.c, cmd_compare.c):
 * nsd_config_read (TOML parse, --set overrides), nsd_config_search_path,
 * nsd_config_resolve, nsd_compose_check, nsd_model_create (the plugins'
 * create() with the config's values, [initial]), nsd_figures_check and, for
 * [[variant]]s, nsd_config_derive and the same checks per variant plus
 * [compare] x / summary. Nothing is simulated and nothing is written.
 *
 * One difference from nsd_app_load: the plugin registry is scanned once per
 * process (the host's own directory and NSDYN_PLUGIN_PATH), not per input.
 * A config's plugin_path is still turned into a search path (realpath and
 * all) but never scanned: a fuzzer must not dlopen whatever directory a
 * mutated config names. */
#define _GNU_SOURCE
#include "fuzz_entry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "app.h"
#include "compare.h"
#include "compose.h"
#include "config.h"
#include "figures.h"
#include "model.h"
#include "registry.h"

#ifndef NSDYN_FUZZ_CONFIG_DIR
#error "NSDYN_FUZZ_CONFIG_DIR (the source tree's configs/) must be defined"
#endif

#define MAX_SETS 32      /* --set lines taken from one input */
#define MAX_SET_LEN 4096 /* longer lines are cut (the CLI has no limit) */

static nsd_registry reg;
static int ready;
static FILE *devnull;
static int mem_fd = -1;
static char mem_path[64];

/* The configs --set inputs are applied to ("@N" picks one). */
static const char *const bases[] = {
    "towed_wheel_unstable.toml",          /* 0: towed wheel, regularized Coulomb, bdf, plot keys */
    "bouncing_ball_newton.toml",          /* 1: rigid contact, event-driven */
    "walker2_gait.toml",                  /* 2: compliant contact, LuGre, [initial] */
    "curb_wheel_poisson_up.toml",         /* 3: two-contact corners, Poisson */
    "sphere_rebound_incline.toml",        /* 4: 2-D slip */
    "towed_wheel_compare.toml",           /* 5: [[variant]]s */
    "walker2_com_sweep.toml",             /* 6: [compare] x / summary */
    "bouncing_ball_moreau_vs_event.toml", /* 7: moreau time-stepping */
};
const size_t nsd_fuzz_n_bases = sizeof bases / sizeof bases[0];
const char *nsd_fuzz_base_name(size_t i) { return i < nsd_fuzz_n_bases ? bases[i] : NULL; }

int nsd_fuzz_init(void) {
    static int status = -1;
    if (ready) return status;
    ready = 1;
    devnull = fopen("/dev/null", "w");
    nsd_diag diag = {0};
    nsd_app_scan_default(&reg, &diag);
    if (diag.n) nsd_diag_print(&diag, stderr);
    nsd_diag_free(&diag);
    mem_fd = memfd_create("nsdyn-fuzz-config", MFD_CLOEXEC);
    if (mem_fd >= 0) snprintf(mem_path, sizeof mem_path, "/proc/self/fd/%d", mem_fd);
    if (!reg.n) fprintf(stderr, "nsd_fuzz_init: no plugin found in %s\n", nsd_builtin_plugin_dir());
    int bases_ok = 1;
    for (size_t i = 0; i < nsd_fuzz_n_bases; ++i) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", NSDYN_FUZZ_CONFIG_DIR, bases[i]);
        if (access(path, R_OK) != 0) {
            fprintf(stderr,
                    "nsd_fuzz_init: base config %s is gone (update bases[] in fuzz_entry.c)\n",
                    path);
            bases_ok = 0;
        }
    }
    status = reg.n && bases_ok ? 0 : -1;
    return status;
}

static FILE *report_out;
void nsd_fuzz_report_to(FILE *out) { report_out = out; }

static void report(nsd_diag *diag) {
    FILE *out = report_out ? report_out : devnull;
    if (out) nsd_diag_print(diag, out);
}

static int string_array(const nsd_toml_node *e, int nonempty) {
    int ok = e && e->type == NSD_TOML_ARRAY && (!nonempty || e->n_items > 0);
    for (size_t k = 0; ok && k < e->n_items; ++k) ok = e->items[k].type == NSD_TOML_STRING;
    return ok;
}

/* What cmd_compare.c does with the variants once the base config loads:
 * the form of [compare] is checked there (static), so only what it would
 * accept is carried on here. */
static size_t check_variants(nsd_config *base, nsd_diag *diag) {
    const nsd_toml_node *vt = nsd_toml_get(&base->root, "variant");
    if (!vt || vt->type != NSD_TOML_ARRAY || vt->n_items == 0) return 0;
    for (size_t i = 0; i < vt->n_items; ++i) {
        const nsd_toml_node *t = &vt->items[i];
        const nsd_toml_node *name = t->type == NSD_TOML_TABLE ? nsd_toml_get(t, "name") : NULL;
        if (!name || name->type != NSD_TOML_STRING || !name->str[0]) return 1;
    }
    const nsd_toml_node *cmp = nsd_toml_get(&base->root, "compare");
    const nsd_toml_node *x = NULL, *summary = NULL;
    if (cmp && cmp->type == NSD_TOML_TABLE) {
        x = nsd_toml_get(cmp, "x");
        summary = nsd_toml_get(cmp, "summary");
        if (!x || x->type != NSD_TOML_STRING || !string_array(summary, 1)) x = summary = NULL;
    }
    size_t nv = vt->n_items, errors = 0;
    variant *vars = calloc(nv, sizeof *vars);
    if (!vars) abort();
    for (size_t i = 0; i < nv; ++i) {
        variant *v = &vars[i];
        v->name = nsd_toml_get(&vt->items[i], "name")->str;
        nsd_config_derive(&v->sc.app.cfg, base, &vt->items[i], NULL);
        size_t e = nsd_config_resolve(&v->sc.app.cfg, &reg, diag);
        if (!e) e = nsd_compose_check(&v->sc.app.cfg, &reg, diag);
        if (!e) e = nsd_model_create(&v->sc.model, &v->sc.app.cfg, diag);
        if (!e) e = nsd_figures_check(&v->sc.app.cfg, &v->sc.model, diag);
        errors += e;
    }
    if (!errors && x) {
        for (size_t i = 0; i < nv && !errors; ++i) {
            const nsd_params *p = NULL;
            int index = -1;
            errors += nsd_compare_resolve_x(x, &vars[i].sc.app.cfg, &p, &index, diag);
            if (!errors) (void)p->values[index].num;
        }
        if (!errors)
            errors += nsd_compare_check_summary(summary, &vars[0].sc.model, vars[0].name, diag);
    }
    for (size_t i = 0; i < nv; ++i) {
        nsd_model_destroy(&vars[i].sc.model);
        nsd_config_free(&vars[i].sc.app.cfg);
    }
    free(vars);
    return errors;
}

/* nsd_app_load from its step 1 on, with the registry scanned once, then
 * cmd_run's checks before the simulation, then the variants. */
static size_t load_and_check(const char *path, const char *const *sets, size_t n_sets) {
    nsd_diag diag = {0};
    nsd_config cfg;
    size_t errors = 0;
    if (nsd_config_read(&cfg, path, sets, n_sets, &diag) != 0) {
        errors = diag.n ? diag.n : 1;
        goto out;
    }
    char **dirs = NULL;
    size_t n = nsd_config_search_path(&cfg, &dirs, &diag);
    for (size_t i = 0; i < n; ++i) free(dirs[i]);
    free(dirs);
    errors = diag.n;
    if (errors) goto out;
    errors += nsd_config_resolve(&cfg, &reg, &diag);
    if (!errors) errors += nsd_compose_check(&cfg, &reg, &diag);
    if (!errors) {
        nsd_model model = {0};
        errors += nsd_model_create(&model, &cfg, &diag);
        if (!errors) errors += nsd_figures_check(&cfg, &model, &diag);
        nsd_model_destroy(&model);
    }
    if (!errors) errors += check_variants(&cfg, &diag);
out:
    report(&diag);
    nsd_diag_free(&diag);
    nsd_config_free(&cfg);
    return errors;
}

/* The input as a file the loader can open: a memfd when the kernel has
 * them (nothing touches the disk), else a temporary file. */
static const char *input_file(const uint8_t *data, size_t size) {
    if (mem_fd < 0) {
        static char tmp[] = "/tmp/nsdyn-fuzz-XXXXXX";
        static int fd = -1;
        if (fd < 0) fd = mkstemp(tmp);
        if (fd < 0) return NULL;
        mem_fd = fd;
        snprintf(mem_path, sizeof mem_path, "%s", tmp);
    }
    if (ftruncate(mem_fd, 0) != 0) return NULL;
    size_t done = 0;
    while (done < size) {
        ssize_t w = pwrite(mem_fd, data + done, size - done, (off_t)done);
        if (w <= 0) return NULL;
        done += (size_t)w;
    }
    return mem_path;
}

size_t nsd_fuzz_config(const uint8_t *data, size_t size) {
    if (!ready) nsd_fuzz_init();
    const char *path = input_file(data, size);
    if (!path) return 0;
    return load_and_check(path, NULL, 0);
}

size_t nsd_fuzz_set(const uint8_t *data, size_t size) {
    if (!ready) nsd_fuzz_init();
    /* Split into arguments: a newline ends one, a backslash-newline is a
     * newline inside one (a value over several lines), and a NUL ends one
     * too (an argv string cannot hold it). */
    char *text = malloc(size + 1);
    if (!text) abort();
    size_t len = 0;
    for (size_t i = 0; i < size; ++i) {
        if (data[i] == '\\' && i + 1 < size && data[i + 1] == '\n') {
            text[len++] = '\n';
            i++;
        } else
            text[len++] = data[i] == '\n' ? '\0' : (char)data[i];
    }
    text[len] = '\0';
    const char *sets[MAX_SETS];
    size_t n_sets = 0, base = 0;
    int first = 1;
    for (char *p = text; p <= text + len && n_sets < MAX_SETS; first = 0) {
        size_t n = strlen(p);
        char *next = p + n + 1;
        if (n > MAX_SET_LEN) p[MAX_SET_LEN] = '\0';
        if (first && p[0] == '@')
            base = strtoul(p + 1, NULL, 10) % nsd_fuzz_n_bases;
        else if (!(n == 0 && next > text + len))
            sets[n_sets++] = p; /* no empty last one */
        p = next;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", NSDYN_FUZZ_CONFIG_DIR, bases[base]);
    size_t errors = load_and_check(path, sets, n_sets);
    free(text);
    return errors;
}

/* A record's plugins against the files that resolve now (plugin_record.h). */
#define _GNU_SOURCE
#include "plugin_record.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin_trust.h"
#include "registry.h"
#include "sha256_cache.h"

static const nsd_section *config_section(const nsd_config *cfg, const char *name) {
    const nsd_section *all[] = {&cfg->system, &cfg->contact, &cfg->friction, &cfg->integrator};
    for (size_t i = 0; i < 4; ++i)
        if (all[i]->plugin && strcmp(nsd_kind_section(all[i]->kind), name) == 0) return all[i];
    return NULL;
}

/* One [provenance] entry against the plugin that resolved. 0 or 1. */
static size_t check_one(const nsd_config *cfg, const nsd_toml_node *e, nsd_diag *diag) {
    const nsd_toml_node *want = nsd_toml_get(e, "sha256"), *file = nsd_toml_get(e, "file");
    const nsd_section *sec = config_section(cfg, e->key);
    if (!sec || !want || want->type != NSD_TOML_STRING || strlen(want->str) != 64) return 0;
    char hash[65];
    if (nsd_sha256_file_cached(sec->plugin->path, hash) != 0)
        snprintf(hash, sizeof hash, "unreadable");
    if (strcmp(hash, want->str) == 0) return 0;
    const char *recorded = file && file->type == NSD_TOML_STRING ? file->str : "?";
    if (nsd_plugin_change_accepted()) {
        fprintf(stderr,
                "warning: [%s] plugin '%s': %s has SHA-256 %s, the record was made with %s (%s): "
                "accepted (--accept-plugin-change); the new record names the new file\n",
                e->key, sec->plugin->info->id, sec->plugin->path, hash, want->str, recorded);
        return 0;
    }
    nsd_diag_at(diag, want,
                "provenance.%s: plugin '%s' resolves to %s, whose SHA-256 is %s, but the record "
                "was made with %s (%s): the plugin changed since, so this run would not repeat "
                "the recorded one; rebuild the recorded version, or pass --accept-plugin-change "
                "(NSDYN_ACCEPT_PLUGIN_CHANGE=1)",
                e->key, sec->plugin->info->id, sec->plugin->path, hash, want->str, recorded);
    return 1;
}

size_t nsd_plugin_check_record(const nsd_config *cfg, nsd_diag *diag) {
    const nsd_toml_node *prov = nsd_toml_get(&cfg->root, "provenance");
    if (!prov || prov->type != NSD_TOML_TABLE) return 0;
    size_t errors = 0;
    for (size_t i = 0; i < prov->n_items; ++i)
        if (prov->items[i].type == NSD_TOML_TABLE) errors += check_one(cfg, &prov->items[i], diag);
    return errors;
}

char *nsd_plugin_fingerprint(const nsd_config *cfg) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) abort();
    const nsd_section *all[] = {&cfg->system, &cfg->contact, &cfg->friction, &cfg->integrator};
    for (size_t i = 0; i < 4; ++i) {
        if (!all[i]->plugin) continue;
        char hash[65], real[PATH_MAX];
        const char *path = all[i]->plugin->path;
        if (nsd_sha256_file_cached(path, hash) != 0) snprintf(hash, sizeof hash, "unreadable");
        fprintf(f, "%s %s %s %s\n", nsd_kind_section(all[i]->kind), all[i]->plugin->info->id,
                realpath(path, real) ? real : path, hash);
    }
    fclose(f);
    return text;
}

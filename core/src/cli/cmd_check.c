/* nsdyn check [--timeout S] PLUGIN.so...: the conformance checks on any
 * plugin file, each plugin in a child process (conformance_isolate.c). */
#define _GNU_SOURCE
#include <stdio.h>

#include "cli.h"
#include "conformance.h"
#include "registry.h"

int nsd_cmd_check(int n_files, char **files, const nsd_alloc_probe *probe, double timeout_s) {
    nsd_registry reg = {0};
    nsd_diag diag = {0};
    size_t problems = 0;
    for (int i = 0; i < n_files; ++i) problems += nsd_registry_add_path(&reg, files[i], &diag);
    nsd_diag_print(&diag, stderr);
    nsd_diag_free(&diag);
    for (size_t i = 0; i < reg.n; ++i) {
        const nsdyn_plugin_info *p = reg.plugins[i].info;
        nsd_diag found = {0};
        nsd_conformance r = nsd_conformance_isolated(p, probe, &found, timeout_s);
        printf("%-12s %-22s %s%s%s\n", nsd_kind_name(p->kind), p->id, r.findings ? "FAILED" : "ok",
               r.instance_checked || r.ended_early
                   ? ""
                   : " (declarations only: a parameter is required)",
               r.instance_checked && !r.allocs_checked ? " (allocations not checked)" : "");
        for (size_t k = 0; k < found.n; ++k) printf("  %s\n", found.lines[k]);
        problems += r.findings;
        nsd_diag_free(&found);
    }
    if (!probe)
        printf("note: this nsdyn has no allocation probe (a sanitizer build): the hot paths' "
               "allocations were not checked\n");
    nsd_registry_close(&reg);
    return problems ? NSD_EXIT_USAGE : NSD_EXIT_OK;
}

/* Parameter parsing, one mechanism for every table of a config: plugin
 * sections are checked against the plugin's declarations, the host's own
 * [run] and [plot] sections against the host's. */
#ifndef NSD_PARAMS_H
#define NSD_PARAMS_H

#include <stdio.h>

#include "diag.h"
#include "nsdyn/plugin.h"
#include "toml_adapter.h"

typedef struct nsd_params {
    const nsdyn_param_decl *decls;
    size_t n;
    nsdyn_value *values;        /* n, in declaration order */
    double **arrays;            /* storage for REAL_ARRAY values */
    const nsd_toml_node **from; /* node each value came from; NULL = default */
    /* Warnings, "file:line:col: ..." (a key set by a former name, plugin.h
     * NSDYN_EXT_PARAM_ALIASES); the scenario puts them into the run's log. */
    nsd_diag notes;
} nsd_params;

/* Check `table` (may be NULL: all defaults) against `decls`. Keys listed in
 * `skip` (NULL-terminated, may be NULL) are left to the caller. `section`
 * names the table in messages, e.g. "[integrator] (dopri5)". Returns the
 * number of errors added to diag. */
size_t nsd_params_resolve(nsd_params *out, const nsdyn_param_decl *decls, size_t n,
                          const nsd_toml_node *table, const char *section, const char *const *skip,
                          nsd_diag *diag);
/* The same with `over` (n_over leaf entries, each with its key) laid over
 * `table`: an entry of over stands in for the table's entry of the same
 * key and is checked the same way, with the same messages at its own
 * position (config/overrides.h). A missing required key is reported at
 * the table, or at over[0] when there is no table. */
size_t nsd_params_resolve_over(nsd_params *out, const nsdyn_param_decl *decls, size_t n,
                               const nsd_toml_node *table, const nsd_toml_node *const *over,
                               size_t n_over, const char *section, const char *const *skip,
                               nsd_diag *diag);
/* The same, where a key may be a former name (aliases, n_aliases; plugin.h
 * nsdyn_param_alias): it sets the parameter it names, with a warning in
 * out->notes at the key; setting both names is an error, and an override
 * of either name replaces the file's entry of the other. */
size_t nsd_params_resolve_aliased(nsd_params *out, const nsdyn_param_decl *decls, size_t n,
                                  const nsdyn_param_alias *aliases, size_t n_aliases,
                                  const nsd_toml_node *table, const nsd_toml_node *const *over,
                                  size_t n_over, const char *section, const char *const *skip,
                                  nsd_diag *diag);
void nsd_params_free(nsd_params *p);

/* Index of a declared name, or -1. */
int nsd_params_index(const nsdyn_param_decl *decls, size_t n, const char *name);
double nsd_params_num(const nsd_params *p, const char *name);

/* "(0, 1]", "> 0", "any" */
void nsd_params_range_text(const nsdyn_param_decl *d, char *buf, size_t len);
/* 1 when the declaration admits x as its value (finite unless it allows
 * +-inf, inside its range), else 0. */
int nsd_params_admits(const nsdyn_param_decl *d, double x);
/* Resolved values on one line, "key=value key=value" (declaration order;
 * the variant configuration column of nsdyn compare's metrics). */
void nsd_params_write_inline(FILE *out, const nsd_params *p);
/* Human-readable help table (nsdyn describe). */
void nsd_params_print_help(FILE *out, const nsdyn_param_decl *decls, size_t n);
/* Resolved values as TOML key = value lines, with unit comments. */
void nsd_params_write_toml(FILE *out, const nsd_params *p);
/* Check the declarations themselves (conformance): returns problems. */
size_t nsd_params_check_decls(const nsdyn_param_decl *decls, size_t n, const char *owner,
                              nsd_diag *diag);

#endif

/* A plugin's parameters filled into its own struct by the host (ABI 2.6,
 * plugin.h NSDYN_EXT_PARAM_FIELDS): the table checked against the
 * declarations when the plugin is loaded, the struct filled from the
 * resolved values, and the one call that creates an instance of any
 * plugin, through that table or through info.create. */
#ifndef NSD_PARAM_FIELDS_H
#define NSD_PARAM_FIELDS_H

#include "nsdyn/nsdyn.h"

/* The plugin's parameter struct table, or NULL when it offers none (or
 * was built before ABI 2.4, without extension()). */
const nsdyn_param_fields *nsd_plugin_param_fields(const nsdyn_plugin_info *info);

/* 0 when table `f` describes a struct the host can fill for the n
 * declarations decls; else -1 and the problem, one line without the
 * plugin's name, in why (why_len bytes). The checks: the table whole
 * (struct_size, entries, create()), the struct's size and alignment, one
 * entry per declared parameter in declaration order, each member of a C
 * type its parameter converts to and of that type's size, inside the
 * struct, aligned for its type, overlapping no other member, and an int
 * member's declared range inside int's. */
int nsd_param_fields_check(const nsdyn_param_fields *f, const nsdyn_param_decl *decls, size_t n,
                           char *why, size_t why_len);

/* Write the values (n, declaration order, as the host passes them to
 * create()) into `block` (f->size bytes, zeroed by the caller) at the
 * members of a table that passed nsd_param_fields_check() for decls.
 * 0, or -1 with the reason in why when a value bound for an int or _Bool
 * member is not one it holds exactly (a fraction, outside the declared
 * range or list: from a caller that bypassed the host's checks). */
int nsd_param_fields_fill(const nsdyn_param_fields *f, const nsdyn_param_decl *decls,
                          const nsdyn_value *values, size_t n, void *block, char *why,
                          size_t why_len);

/* An instance of the plugin from its resolved values (declaration order):
 * with a parameter struct table, its create() given the filled struct,
 * else info->create(). NULL with the reason in err on refusal. Every
 * host caller of a plugin's create() comes through here. */
void *nsd_plugin_create(const nsdyn_plugin_info *info, const nsdyn_value *values,
                        const nsdyn_host *host, char *err, size_t err_len);

#endif

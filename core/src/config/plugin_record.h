/* A re-run from a record and a resumed sweep check that the plugin files
 * are the ones that made the record (docs/plugin-guide.md, section 8). */
#ifndef NSD_PLUGIN_RECORD_H
#define NSD_PLUGIN_RECORD_H

#include "config.h"

/* A re-run from a record (run.toml): every plugin the [provenance] table
 * names with a sha256 must resolve to a file of that hash. A mismatch is
 * an error naming the file and both hashes unless the change is
 * accepted (then a warning on stderr). Returns the errors added. */
size_t nsd_plugin_check_record(const nsd_config *cfg, nsd_diag *diag);

/* The config's plugins, one "section id file sha256" line each (the
 * sweep database keeps it, sweep_db.c). Caller frees. */
char *nsd_plugin_fingerprint(const nsd_config *cfg);

#endif

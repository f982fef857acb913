/* Plugins opened only by choice (docs/plugin-guide.md, section 8): a
 * config's plugin_path names shared objects whose code runs when they are
 * opened, so the host searches it only when the user says so, never
 * because the config says so; and a re-run from a record, or a resumed
 * sweep, checks that the plugin files are the ones that made the record. */
#ifndef NSD_PLUGIN_TRUST_H
#define NSD_PLUGIN_TRUST_H

#include "diag.h"
#include "toml_adapter.h"

/* A read-only command (nsdyn keys) never searches a config's plugin_path,
 * trusted or not: call before loading the config. `command` names it in
 * the message. */
void nsd_plugin_trust_read_only(const char *command);

/* May the config's plugin_path folder `real` (a realpath) be searched?
 * Yes with --trust-config-plugins (NSDYN_TRUST_CONFIG_PLUGINS=1) or when
 * it is at or under a folder of the user's allow-list
 * ($XDG_CONFIG_HOME/nsdyn/trusted-plugin-paths, else
 * ~/.config/nsdyn/trusted-plugin-paths: one absolute folder a line, the
 * file owned by the user and writable by no one else); never for a folder
 * anyone may write to. Returns 0, or 1 with the reason at `at`. */
size_t nsd_plugin_trust_dir(const char *real, const nsd_toml_node *at, nsd_diag *diag);

/* A NSDYN_PLUGIN_PATH folder: 1 to search it, 0 (with a warning on
 * stderr) for a folder anyone may write to. */
int nsd_plugin_env_dir_ok(const char *dir);

/* --accept-plugin-change (NSDYN_ACCEPT_PLUGIN_CHANGE=1) was given. */
int nsd_plugin_change_accepted(void);

#endif

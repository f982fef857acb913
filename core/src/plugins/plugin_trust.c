#define _GNU_SOURCE
#include "plugin_trust.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "registry.h"

/* Set once by a read-only command's main path, before any config is read
 * (the host process, not a plugin). */
static const char *read_only_command;

void nsd_plugin_trust_read_only(const char *command) { read_only_command = command; }

static int env_flag(const char *name) {
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

int nsd_plugin_change_accepted(void) { return env_flag("NSDYN_ACCEPT_PLUGIN_CHANGE"); }

/* Anyone may write to the folder (no sticky-bit excuse: a sticky /tmp
 * still lets anyone add a file). */
static int world_writable(const char *dir) {
    struct stat st;
    return stat(dir, &st) == 0 && (st.st_mode & S_IWOTH);
}

static void allow_list_path(char *buf, size_t len) {
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    if (xdg && *xdg == '/')
        snprintf(buf, len, "%s/nsdyn/trusted-plugin-paths", xdg);
    else if (home && *home)
        snprintf(buf, len, "%s/.config/nsdyn/trusted-plugin-paths", home);
    else
        buf[0] = '\0';
}

/* `real` at or under `top` (both without a trailing slash but "/"). */
static int under(const char *real, const char *top) {
    size_t n = strlen(top);
    if (n == 1 && top[0] == '/') return 1;
    return strncmp(real, top, n) == 0 && (real[n] == '\0' || real[n] == '/');
}

/* 1: the allow-list names `real` or a folder above it; 0: no (or the
 * list is unsafe: *why set). */
static int allow_listed(const char *real, const char *list, const char **why) {
    struct stat st;
    if (!list[0] || stat(list, &st) != 0) return 0;
    if (st.st_uid != getuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) {
        *why = "the allow-list is ignored: it must be owned by you and writable by no one else";
        return 0;
    }
    FILE *f = fopen(list, "r");
    if (!f) return 0;
    char line[PATH_MAX + 2];
    int ok = 0;
    while (!ok && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        char top[PATH_MAX];
        if (line[0] == '/' && realpath(line, top)) ok = under(real, top);
    }
    fclose(f);
    return ok;
}

size_t nsd_plugin_trust_dir(const char *real, const nsd_toml_node *at, nsd_diag *diag) {
    if (read_only_command) {
        nsd_diag_at(diag, at,
                    "plugin_path: not searched by `nsdyn %s`: a read-only command never opens the "
                    "shared objects a config names (opening one runs its code); it sees the "
                    "plugins of NSDYN_PLUGIN_PATH and the installed ones",
                    read_only_command);
        return 1;
    }
    if (world_writable(real)) {
        nsd_diag_at(diag, at,
                    "plugin_path: folder '%s' is writable by everyone: refused (anyone could put "
                    "code in it that nsdyn would run)",
                    real);
        return 1;
    }
    char list[PATH_MAX];
    allow_list_path(list, sizeof list);
    const char *why = NULL;
    if (env_flag("NSDYN_TRUST_CONFIG_PLUGINS") || allow_listed(real, list, &why)) return 0;
    nsd_diag_at(diag, at,
                "plugin_path: folder '%s' is not trusted: a config's plugin_path loads and runs "
                "the shared objects in it, so nsdyn searches it only when you say so: pass "
                "--trust-config-plugins (NSDYN_TRUST_CONFIG_PLUGINS=1), or add the folder to %s "
                "(one folder a line), or put it in NSDYN_PLUGIN_PATH%s%s",
                real, list[0] ? list : "~/.config/nsdyn/trusted-plugin-paths", why ? "; " : "",
                why ? why : "");
    return 1;
}

int nsd_plugin_env_dir_ok(const char *dir) {
    if (!world_writable(dir)) return 1;
    fprintf(stderr,
            "warning: NSDYN_PLUGIN_PATH folder '%s' is writable by everyone: not searched (anyone "
            "could put code in it that nsdyn would run)\n",
            dir);
    return 0;
}

/* Output folders replaced as a whole (outdir.h). */
#define _GNU_SOURCE
#include "outdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "interrupt.h"
#include "output.h"
#include "staging.h"

/* ---- what nsdyn writes into an output folder ------------------------- */

static int is_output_file(const char *name) {
    static const char *const files[] = {"timeseries.csv",
                                        "timeseries.INCOMPLETE.csv",
                                        "timeseries.h5", /* run.data_format */
                                        "timeseries.INCOMPLETE.h5",
                                        "run.toml",
                                        "run.log",
                                        "events.csv",
                                        "metrics.csv",
                                        "metrics.md",
                                        "metrics.tex",
                                        "summary.csv",
                                        "limit_functions.csv",
                                        "limit_directions.csv",
                                        "pcmap.csv", /* nsdyn pcmap */
                                        "pcmap_critical.csv",
                                        "pcmap_along.csv", /* pcmap with [pcmap] */
                                        "pcmap_marks.csv",
                                        "orbit.csv", /* nsdyn periodic */
                                        "multipliers.csv",
                                        "newton.csv",
                                        "continuation.csv",
                                        "periodic_summary.csv",
                                        "branches.csv", /* periodic, arclength */
                                        "special.csv",
                                        "lyapunov.csv",  /* periodic, [periodic.lyapunov] */
                                        "animation.mp4", /* [plot] animate */
                                        "animation.gif"};
    static const char *const graphs[] = {
        "timeseries",  "phase",        "snapshots",        "events",
        "deviation",   "summary",      "limit_directions", "pcmap",
        "multipliers", "continuation", "periodic_summary", "bifurcation",
        "lyapunov"};
    static const char *const exts[] = {"png", "svg", "pdf"};
    char base[NAME_MAX + 1];
    snprintf(base, sizeof base, "%s", name);
    size_t len = strlen(base);
    if (len > 4 && strcmp(base + len - 4, ".tmp") == 0)
        base[len - 4] = '\0'; /* a writer's leftover */
    for (size_t i = 0; i < sizeof files / sizeof *files; ++i)
        if (strcmp(base, files[i]) == 0) return 1;
    const char *dot = strrchr(base, '.');
    if (!dot) return 0;
    for (size_t i = 0; i < sizeof graphs / sizeof *graphs; ++i)
        if (strlen(graphs[i]) == (size_t)(dot - base) &&
            strncmp(base, graphs[i], (size_t)(dot - base)) == 0)
            for (size_t k = 0; k < sizeof exts / sizeof *exts; ++k)
                if (strcmp(dot + 1, exts[k]) == 0) return 1;
    return 0;
}

/* variant-NN: a comparison's per-variant folder. */
static int is_variant_dir(const char *name) {
    if (strncmp(name, "variant-", 8) != 0) return 0;
    size_t digits = strspn(name + 8, "0123456789");
    return digits >= 2 && name[8 + digits] == '\0';
}

/* Append `name` (with a slash for a folder) to the list of foreign entries. */
static void note_foreign(char *list, size_t len, size_t *count, const char *prefix,
                         const char *name, int dir) {
    if (++*count > 3) return;
    size_t at = strlen(list);
    snprintf(list + at, len - at, "%s%s%s%s", at ? ", " : "", prefix, name, dir ? "/" : "");
}

/* The entries of `path` that nsdyn did not write: 0 if none, else their
 * count with the first few names in `list`; -1 if the folder cannot be read. */
static int foreign_entries(const char *path, const char *prefix, int depth, char *list, size_t len,
                           size_t *count) {
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return -1;
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return -1;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue; /* gone meanwhile */
        int is_dir = S_ISDIR(st.st_mode);
        if (is_dir && depth == 0 && is_variant_dir(e->d_name)) {
            char sub[PATH_MAX], subprefix[NAME_MAX + 2];
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            snprintf(subprefix, sizeof subprefix, "%s/", e->d_name);
            if (foreign_entries(sub, subprefix, 1, list, len, count) < 0)
                note_foreign(list, len, count, prefix, e->d_name, 1);
        } else if (is_dir || (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) ||
                   !is_output_file(e->d_name)) {
            note_foreign(list, len, count, prefix, e->d_name, is_dir);
        }
    }
    closedir(d);
    return 0;
}

/* `path` may become (or stop being) an output folder: absent, or a real
 * folder that holds only what nsdyn writes. */
static int check_slot(const char *path, const char *what, char *err, size_t err_len) {
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT) return 0;
        if (errno == ENOTDIR)
            snprintf(err, err_len, "output folder %s: a part of the path is a file, not a folder",
                     path);
        else
            snprintf(err, err_len, "output folder %s: %s", path, strerror(errno));
        return -1;
    }
    if (S_ISLNK(st.st_mode)) {
        char to[PATH_MAX];
        ssize_t n = readlink(path, to, sizeof to - 1);
        to[n > 0 ? n : 0] = '\0';
        snprintf(
            err, err_len,
            "%s %s is a symbolic link (to %s): nsdyn replaces its output folder as a whole and "
            "does not follow links; give the folder itself with -o",
            what, path, to[0] ? to : "?");
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, err_len, "%s %s is an existing file, not a folder: give another path with -o",
                 what, path);
        return -1;
    }
    char list[512] = "";
    size_t count = 0;
    if (foreign_entries(path, "", 0, list, sizeof list, &count) < 0) {
        snprintf(err, err_len, "%s %s cannot be read: %s", what, path, strerror(errno));
        return -1;
    }
    if (count) {
        snprintf(
            err, err_len,
            "%s %s holds %zu file%s that nsdyn did not write (%s%s): nsdyn replaces its output "
            "folder as a whole and will not delete them; give a new folder with -o, or move them",
            what, path, count, count == 1 ? "" : "s", list, count > 3 ? ", ..." : "");
        return -1;
    }
    return 0;
}

/* ---- removing without following links ---------------------------------- */

static int remove_at(int dir, const char *name, int depth) {
    if (unlinkat(dir, name, 0) == 0 || errno == ENOENT) return 0;
    if (errno != EISDIR && errno != EPERM) return -1;
    if (depth > 64) {
        errno = ELOOP;
        return -1;
    }
    int rc = 0;
    /* A pass may miss entries removed under readdir: repeat until empty. */
    for (int pass = 0; pass < 4; ++pass) {
        int fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) return errno == ENOENT ? 0 : -1;
        DIR *d = fdopendir(fd);
        if (!d) {
            close(fd);
            return -1;
        }
        struct dirent *e;
        rc = 0;
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
                remove_at(dirfd(d), e->d_name, depth + 1) != 0)
                rc = -1;
        closedir(d);
        if (unlinkat(dir, name, AT_REMOVEDIR) == 0 || errno == ENOENT) return 0;
        if (errno != ENOTEMPTY && errno != EEXIST) return -1;
    }
    return rc ? rc : -1;
}

int nsd_remove_tree(const char *path) { return remove_at(AT_FDCWD, path, 0); }

/* ---- the temporary folder and the replace ------------------------------- */

/* parent folder and last component of o->target */
static void split(const char *target, char *parent, size_t plen, const char **name) {
    const char *slash = strrchr(target, '/');
    if (!slash) {
        snprintf(parent, plen, ".");
        *name = target;
    } else if (slash == target) {
        snprintf(parent, plen, "/");
        *name = slash + 1;
    } else {
        snprintf(parent, plen, "%.*s", (int)(slash - target), target);
        *name = slash + 1;
    }
}

/* A fresh, empty folder <parent>/.<name>.<tag>-XXXXXX. */
static int make_hidden(const char *target, const char *tag, char *out, size_t len) {
    char parent[PATH_MAX];
    const char *name;
    split(target, parent, sizeof parent, &name);
    int n = snprintf(out, len, "%s/.%s.%s-XXXXXX", parent, name, tag);
    if (n < 0 || (size_t)n >= len) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return mkdtemp(out) ? 0 : -1;
}

int nsd_outdir_open(nsd_outdir *o, const char *target, char *err, size_t err_len) {
    memset(o, 0, sizeof *o);
    if (!target || !target[0]) {
        snprintf(err, err_len, "the output folder is an empty path: give a folder with -o DIR");
        return -1;
    }
    size_t len = strlen(target);
    while (len > 1 && target[len - 1] == '/') len--;
    if (len + sizeof ".INCOMPLETE" > sizeof o->target) {
        snprintf(err, err_len, "the output folder's path is too long (%zu characters)", len);
        return -1;
    }
    memcpy(o->target, target, len);
    o->target[len] = '\0';
    char parent[PATH_MAX];
    const char *name;
    split(o->target, parent, sizeof parent, &name);
    if (!name[0] || !strcmp(name, ".") || !strcmp(name, "..")) {
        snprintf(err, err_len,
                 "output folder '%s': nsdyn writes its outputs to a folder of their own, which it "
                 "replaces as a whole; name one, e.g. -o out/run1",
                 target);
        return -1;
    }
    if (strlen(name) + sizeof ".INCOMPLETE" > NAME_MAX ||
        strlen(name) + sizeof "..tmp-XXXXXX" > NAME_MAX) {
        snprintf(err, err_len, "output folder %s: the name is too long", o->target);
        return -1;
    }
    memcpy(o->incomplete, o->target, len);
    memcpy(o->incomplete + len, ".INCOMPLETE", sizeof ".INCOMPLETE");
    if (check_slot(o->target, "output folder", err, err_len) != 0) return -1;
    if (check_slot(o->incomplete, "the folder of incomplete outputs", err, err_len) != 0) return -1;
    char why[PATH_MAX + 128];
    if (nsd_make_dirs(parent, why, sizeof why) != 0) {
        snprintf(err, err_len, "output folder %s: %s", o->target, why);
        return -1;
    }
    struct stat st;
    if (stat(parent, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, err_len, "output folder %s: %s is not a folder", o->target, parent);
        return -1;
    }
    if (make_hidden(o->target, "tmp", o->tmp, sizeof o->tmp) != 0) {
        int e = errno;
        if (e == EACCES || e == EPERM || e == EROFS)
            snprintf(err, err_len,
                     "output folder %s: no permission to create a folder in %s (%s); nsdyn writes "
                     "the outputs to a new folder there first",
                     o->target, parent, strerror(e));
        else
            snprintf(err, err_len, "output folder %s: cannot create a folder in %s: %s", o->target,
                     parent, strerror(e));
        o->tmp[0] = '\0';
        return -1;
    }
    o->open = 1;
    nsd_stage_add(o->tmp); /* if the table is full: files written the per-file way */
    return 0;
}

/* Rename `from` (ours, complete) to `to`, replacing a folder there in one
 * step where the system allows, else in two with the old one kept aside. */
static int replace(const char *from, const char *to, char *err, size_t err_len) {
#ifdef RENAME_EXCHANGE
    if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0) return 0;
    if (errno == EEXIST) {
        if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_EXCHANGE) == 0) {
            nsd_remove_tree(from); /* now the old folder */
            return 0;
        }
    }
    if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP && errno != EEXIST) {
        snprintf(err, err_len, "cannot rename %s to %s: %s", from, to, strerror(errno));
        return -1;
    }
#endif
    struct stat st;
    if (lstat(to, &st) != 0 && errno == ENOENT) {
        if (rename(from, to) == 0) return 0;
        snprintf(err, err_len, "cannot rename %s to %s: %s", from, to, strerror(errno));
        return -1;
    }
    char aside[PATH_MAX];
    if (make_hidden(to, "old", aside, sizeof aside) != 0) {
        snprintf(err, err_len, "cannot make room for %s: %s", to, strerror(errno));
        return -1;
    }
    if (rename(to, aside) != 0) { /* onto the empty folder made for it */
        snprintf(err, err_len, "cannot move %s aside: %s", to, strerror(errno));
        rmdir(aside);
        return -1;
    }
    if (rename(from, to) != 0) {
        snprintf(err, err_len, "cannot rename %s to %s: %s", from, to, strerror(errno));
        rename(aside, to); /* put the old one back */
        return -1;
    }
    nsd_remove_tree(aside);
    return 0;
}

/* Remove a folder of outputs: renamed aside first, so that it is whole or
 * gone, never half-removed under its name. */
static void retire(const char *path) {
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode)) return;
    char aside[PATH_MAX];
    if (make_hidden(path, "old", aside, sizeof aside) == 0) {
        if (rename(path, aside) == 0)
            path = aside;
        else
            rmdir(aside);
    }
    nsd_remove_tree(path);
}

int nsd_outdir_commit(nsd_outdir *o, int complete, char *err, size_t err_len) {
    if (!o->open) {
        snprintf(err, err_len, "no output folder to commit");
        return -1;
    }
    nsd_stage_remove(o->tmp); /* nothing more is written into it */
    const char *to = complete ? o->target : o->incomplete;
    char why[3 * PATH_MAX];
    /* The place may have changed while the simulation ran. */
    if (check_slot(to, complete ? "output folder" : "the folder of incomplete outputs", why,
                   sizeof why) != 0) {
        snprintf(err, err_len, "%s; the outputs are left in %s", why, o->tmp);
        return -1;
    }
    /* mkdtemp made it 0700: the permissions of a folder made with mkdir. */
    mode_t mask = umask(0);
    umask(mask);
    chmod(o->tmp, 0777 & ~mask);
    /* Every file and folder of the new result on the disk before the
     * rename publishes it and the earlier result is removed: one pass
     * (staging.h) instead of an fsync per file as it was written. */
    if (nsd_stage_sync(o->tmp, why, sizeof why) != 0) {
        snprintf(err, err_len, "%s; nothing was replaced (%s, if it exists, is untouched)", why,
                 to);
        nsd_remove_tree(o->tmp);
        o->open = 0;
        return -1;
    }
    if (replace(o->tmp, to, why, sizeof why) != 0) {
        snprintf(err, err_len, "%s; the outputs are left in %s", why, o->tmp);
        return -1;
    }
    o->open = 0;
    if (complete) retire(o->incomplete); /* an earlier attempt's */
    return 0;
}

void nsd_outdir_discard(nsd_outdir *o) {
    if (!o->open) return;
    nsd_stage_remove(o->tmp);
    nsd_remove_tree(o->tmp);
    o->open = 0;
}

void nsd_outdir_relocate(const nsd_outdir *o, int complete, char **paths, size_t n) {
    const char *to = complete ? o->target : o->incomplete;
    size_t k = strlen(o->tmp);
    for (size_t i = 0; i < n; ++i) {
        if (!paths[i] || strncmp(paths[i], o->tmp, k) != 0 || (paths[i][k] && paths[i][k] != '/'))
            continue;
        char *p = malloc(strlen(to) + strlen(paths[i] + k) + 1);
        if (!p) continue;
        strcpy(p, to);
        strcat(p, paths[i] + k);
        free(paths[i]);
        paths[i] = p;
    }
}

int nsd_outdir_finish(nsd_outdir *o, int written_ok, int complete, char **paths, size_t n) {
    if (!written_ok) {
        fprintf(stderr,
                "error: the outputs could not be written; nothing was replaced (%s, if it exists, "
                "is untouched)\n",
                o->target);
        nsd_outdir_discard(o);
        return 0;
    }
    char err[PATH_MAX + 1024];
    if (nsd_outdir_commit(o, complete, err, sizeof err) != 0) {
        fprintf(stderr, "error: %s\n", err);
        o->open = 0; /* kept where the message says */
        return 0;
    }
    nsd_outdir_relocate(o, complete, paths, n);
    return 1;
}

int nsd_exit_status(int outputs_ok, int failed) {
    int sig = nsd_interrupt_signal();
    if (sig) return NSD_EXIT_SIGNAL_BASE + sig;
    if (!outputs_ok) return NSD_EXIT_OUTPUT;
    return failed ? NSD_EXIT_FAILED : NSD_EXIT_OK;
}

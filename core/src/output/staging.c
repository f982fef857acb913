/* Folders written before anyone sees them (staging.h). */
#define _GNU_SOURCE /* sync_file_range */
#include "staging.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A command stages one folder (compare one, a periodic job one each):
 * a handful at a time at most. */
enum { MAX_STAGED = 32, MAX_DEPTH = 64 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char *staged[MAX_STAGED];

int nsd_stage_add(const char *dir) {
    char *copy = strdup(dir);
    if (!copy) return -1;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < MAX_STAGED; ++i)
        if (!staged[i]) {
            staged[i] = copy;
            pthread_mutex_unlock(&lock);
            return 0;
        }
    pthread_mutex_unlock(&lock);
    free(copy);
    return -1;
}

void nsd_stage_remove(const char *dir) {
    pthread_mutex_lock(&lock);
    for (int i = 0; i < MAX_STAGED; ++i)
        if (staged[i] && strcmp(staged[i], dir) == 0) {
            free(staged[i]);
            staged[i] = NULL;
        }
    pthread_mutex_unlock(&lock);
}

int nsd_stage_holds(const char *path) {
    int found = 0;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < MAX_STAGED && !found; ++i) {
        if (!staged[i]) continue;
        size_t n = strlen(staged[i]);
        found = strncmp(path, staged[i], n) == 0 && path[n] == '/' && path[n + 1];
    }
    pthread_mutex_unlock(&lock);
    return found;
}

/* ---- the tree on the disk ---------------------------------------------- */

/* Descriptors open at once: the writeback of up to this many files runs
 * together; a larger tree is synced in batches (the descriptor limit is
 * often 1024). The order does not matter: nothing of the folder is seen
 * before the rename that follows the sync. */
enum { BATCH = 256 };

typedef struct opened {
    int fd[BATCH], is_dir[BATCH];
    char *name[BATCH]; /* relative to the staged folder, for messages */
    size_t n;
    const char *dir;
    char *err;
    size_t err_len;
    int rc;
} opened;

/* Sync and close what is open: the files (fdatasync: data and size), then
 * the folders (fsync: their names). EINVAL, EROFS: a file system without
 * fsync, taken as nsd_commit_file takes it. */
static void drain(opened *o) {
    for (int pass = 0; pass < 2; ++pass)
        for (size_t i = 0; i < o->n && o->rc == 0; ++i) {
            if (o->is_dir[i] != pass) continue;
            int bad = (pass ? fsync(o->fd[i]) : fdatasync(o->fd[i])) != 0;
            if (bad && errno != EINVAL && errno != EROFS) {
                snprintf(o->err, o->err_len, "cannot write %s/%s: %s", o->dir, o->name[i],
                         strerror(errno));
                o->rc = -1;
            }
        }
    for (size_t i = 0; i < o->n; ++i) {
        close(o->fd[i]);
        free(o->name[i]);
    }
    o->n = 0;
}

/* Keep fd (closed by drain, or here on failure). */
static void keep(opened *o, int fd, const char *name, int is_dir) {
    if (o->n == BATCH) drain(o);
    if (o->rc != 0 || !(o->name[o->n] = strdup(name))) {
        if (o->rc == 0) snprintf(o->err, o->err_len, "cannot sync %s: out of memory", o->dir);
        o->rc = -1;
        close(fd);
        return;
    }
    o->fd[o->n] = fd;
    o->is_dir[o->n++] = is_dir;
}

/* Every file under the folder `fd` (named `rel`) opened, its writeback
 * started, and kept; each folder kept after what it holds. */
static void collect(opened *o, int fd, const char *rel, int depth) {
    int dup_fd = depth > MAX_DEPTH ? -1 : dup(fd);
    DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
    if (!d) {
        snprintf(o->err, o->err_len, "cannot read %s/%s: %s", o->dir, rel,
                 depth > MAX_DEPTH ? "too deep" : strerror(errno));
        o->rc = -1;
        if (dup_fd >= 0) close(dup_fd);
        return;
    }
    struct dirent *e;
    while (o->rc == 0 && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char name[4096];
        snprintf(name, sizeof name, "%s%s%s", rel, rel[0] ? "/" : "", e->d_name);
        int sub = openat(fd, e->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
        struct stat st;
        /* a link (not followed); gone meanwhile; a file made unreadable by a
         * umask that takes the owner's read bit, which cannot be synced here
         * (as before, when a folder that could not be opened was not synced) */
        if (sub < 0 && (errno == ELOOP || errno == ENOENT || errno == EACCES)) continue;
        if (sub < 0 || fstat(sub, &st) != 0) {
            snprintf(o->err, o->err_len, "cannot open %s/%s: %s", o->dir, name, strerror(errno));
            o->rc = -1;
            if (sub >= 0) close(sub);
        } else if (S_ISDIR(st.st_mode)) {
            collect(o, sub, name, depth + 1);
            keep(o, sub, name, 1);
        } else if (S_ISREG(st.st_mode)) {
#ifdef SYNC_FILE_RANGE_WRITE
            sync_file_range(sub, 0, 0, SYNC_FILE_RANGE_WRITE); /* started; waited for in drain */
#endif
            keep(o, sub, name, 0);
        } else {
            close(sub);
        }
    }
    closedir(d);
}

int nsd_stage_sync(const char *dir, char *err, size_t err_len) {
    opened *o = calloc(1, sizeof *o);
    if (!o) {
        snprintf(err, err_len, "cannot sync %s: out of memory", dir);
        return -1;
    }
    *o = (opened){.dir = dir, .err = err, .err_len = err_len};
    int top = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (top < 0 && errno == EACCES) { /* see collect */
        free(o);
        return 0;
    }
    if (top < 0) {
        snprintf(err, err_len, "cannot open %s: %s", dir, strerror(errno));
        o->rc = -1;
    } else {
        collect(o, top, "", 0);
        keep(o, top, ".", 1);
    }
    drain(o);
    int rc = o->rc;
    free(o);
    return rc;
}

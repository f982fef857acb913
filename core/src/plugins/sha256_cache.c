/* The SHA-256 of plugin files, cached (sha256_cache.h). */
#define _GNU_SOURCE
#include "sha256_cache.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sha256.h"

#define MAX_ENTRIES 512 /* lines kept: the newest, one per path */

/* What must not change for a cached hash to hold. */
typedef struct file_key {
    unsigned long long dev, ino, size;
    long long mtime_s, mtime_ns, ctime_s, ctime_ns;
} file_key;

static int key_of(const char *path, file_key *k) {
    struct stat st;
    if (stat(path, &st) != 0) return -1;
    *k = (file_key){(unsigned long long)st.st_dev,  (unsigned long long)st.st_ino,
                    (unsigned long long)st.st_size, (long long)st.st_mtim.tv_sec,
                    (long long)st.st_mtim.tv_nsec,  (long long)st.st_ctim.tv_sec,
                    (long long)st.st_ctim.tv_nsec};
    return 0;
}

static int cache_file(char *buf, size_t len) {
    const char *off = getenv("NSDYN_NO_HASH_CACHE");
    if (off && off[0] && strcmp(off, "0") != 0) return -1;
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    if (xdg && xdg[0] == '/')
        n = snprintf(buf, len, "%s/nsdyn/plugin-sha256", xdg);
    else if (home && home[0] == '/')
        n = snprintf(buf, len, "%s/.cache/nsdyn/plugin-sha256", home);
    else
        return -1;
    return n > 0 && (size_t)n < len ? 0 : -1;
}

/* A decimal field and the character after it: 0, or -1. No sscanf: a
 * start reads the cache (bench/README.md, start-up); strtoull and
 * strtoll take no locale of their own for digits. */
static int field_u(char **p, unsigned long long *v, char end) {
    char *q;
    if (!isdigit((unsigned char)**p)) return -1;
    errno = 0;
    *v = strtoull(*p, &q, 10);
    if (errno || *q != end) return -1;
    *p = q + 1;
    return 0;
}

static int field_s(char **p, long long *v, char end) {
    char *q;
    if (!isdigit((unsigned char)**p) && **p != '-') return -1;
    errno = 0;
    *v = strtoll(*p, &q, 10);
    if (errno || *q != end) return -1;
    *p = q + 1;
    return 0;
}

/* One cache line (its newline removed) into its key, hash and path; 0, or
 * -1 when malformed. */
static int parse_line(char *line, file_key *k, char hex[65], char **path) {
    char *p = line;
    if (field_u(&p, &k->dev, ' ') || field_u(&p, &k->ino, ' ') || field_u(&p, &k->size, ' ') ||
        field_s(&p, &k->mtime_s, '.') || field_s(&p, &k->mtime_ns, ' ') ||
        field_s(&p, &k->ctime_s, '.') || field_s(&p, &k->ctime_ns, ' '))
        return -1;
    for (int i = 0; i < 64; ++i)
        if (!isxdigit((unsigned char)p[i]) || isupper((unsigned char)p[i])) return -1;
    if (p[64] != ' ') return -1;
    memcpy(hex, p, 64);
    hex[64] = '\0';
    *path = p + 65;
    return **path == '/' ? 0 : -1;
}

/* ---- the cache as read once per process ---------------------------------
 * A process names the same few plugins several times (run.toml, the
 * record's check, a sweep's fingerprint): the file is read and parsed at
 * the first lookup and kept, with the lines this process adds. A line is
 * found by the file's key alone (device and inode say which file, size and
 * the two times that it is unchanged: a hard link to it has the same
 * bytes), so a hit needs one stat and no realpath. */
typedef struct entry {
    file_key key;
    char hex[65];
} entry;

static pthread_mutex_t memo_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    int loaded;
    entry *e;
    size_t n, cap;
} memo;

static void memo_add(const file_key *k, const char *hex) {
    if (memo.n == memo.cap) {
        size_t cap = memo.cap ? 2 * memo.cap : 16;
        entry *e = realloc(memo.e, cap * sizeof *e);
        if (!e) return; /* only a shortcut */
        memo.e = e, memo.cap = cap;
    }
    memo.e[memo.n].key = *k;
    memcpy(memo.e[memo.n++].hex, hex, 65);
}

/* The whole file in one read; the memo filled from its lines. */
static void memo_load(const char *cache) {
    memo.loaded = 1;
    int fd = open(cache, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0) return;
    char *text = fstat(fd, &st) == 0 && st.st_size > 0 && st.st_size < (1 << 24)
                     ? malloc((size_t)st.st_size + 1)
                     : NULL;
    ssize_t got = text ? read(fd, text, (size_t)st.st_size) : -1;
    close(fd);
    if (got <= 0) {
        free(text);
        return;
    }
    text[got] = '\0';
    for (char *line = text, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        file_key k;
        char hex[65], *p;
        if (parse_line(line, &k, hex, &p) == 0) memo_add(&k, hex);
    }
    free(text);
}

static int lookup(const char *cache, const file_key *want, char hex[65]) {
    int found = -1;
    pthread_mutex_lock(&memo_lock);
    if (!memo.loaded) memo_load(cache);
    for (size_t i = 0; i < memo.n && found; ++i)
        if (!memcmp(&memo.e[i].key, want, sizeof *want)) {
            memcpy(hex, memo.e[i].hex, 65);
            found = 0;
        }
    pthread_mutex_unlock(&memo_lock);
    return found;
}

static void write_line(FILE *out, const file_key *k, const char *hex, const char *path) {
    fprintf(out, "%llu %llu %llu %lld.%09lld %lld.%09lld %s %s\n", k->dev, k->ino, k->size,
            k->mtime_s, k->mtime_ns, k->ctime_s, k->ctime_ns, hex, path);
}

/* The cache rewritten with this file's line first and the other paths'
 * lines after it (a new file renamed into place: readers never see half
 * a cache). Failures are silent: the cache is only a shortcut. */
static void store(const char *cache, const char *path, const file_key *k, const char *hex) {
    char dir[PATH_MAX], tmp[PATH_MAX + 16];
    snprintf(dir, sizeof dir, "%s", cache);
    char *slash = strrchr(dir, '/');
    *slash = '\0';
    char *parent = strrchr(dir, '/');
    if (parent && parent != dir) {
        *parent = '\0';
        mkdir(dir, 0700); /* ~/.cache */
        *parent = '/';
    }
    mkdir(dir, 0700);
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", cache);
    int fd = mkstemp(tmp);
    FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!out) {
        if (fd >= 0) close(fd), unlink(tmp);
        return;
    }
    write_line(out, k, hex, path);
    FILE *in = fopen(cache, "r");
    char line[PATH_MAX + 256], h[65], *p;
    file_key other;
    for (int n = 1; in && n < MAX_ENTRIES && fgets(line, sizeof line, in);) {
        line[strcspn(line, "\n")] = '\0';
        if (parse_line(line, &other, h, &p) == 0 && strcmp(p, path) != 0)
            write_line(out, &other, h, p), n++;
    }
    if (in) fclose(in);
    if (fclose(out) != 0 || rename(tmp, cache) != 0) unlink(tmp);
}

int nsd_sha256_file_cached(const char *path, char hex[65]) {
    char cache[PATH_MAX], real[PATH_MAX];
    file_key before, after;
    if (cache_file(cache, sizeof cache) != 0 || key_of(path, &before) != 0)
        return nsd_sha256_file(path, hex);
    if (lookup(cache, &before, hex) == 0) return 0;
    if (!realpath(path, real) || key_of(real, &after) != 0 || memcmp(&before, &after, sizeof after))
        return nsd_sha256_file(path, hex); /* moved or changed meanwhile: not cached */
    if (nsd_sha256_file(real, hex) != 0) return -1;
    /* cached only when the file did not change while it was read */
    if (key_of(real, &after) == 0 && !memcmp(&before, &after, sizeof before)) {
        store(cache, real, &before, hex);
        pthread_mutex_lock(&memo_lock);
        memo_add(&before, hex);
        pthread_mutex_unlock(&memo_lock);
    }
    return 0;
}

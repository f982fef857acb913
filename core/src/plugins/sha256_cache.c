/* The SHA-256 of plugin files, cached (sha256_cache.h). */
#define _GNU_SOURCE
#include "sha256_cache.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
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

/* One cache line into its key, hash and path; 0, or -1 when malformed. */
static int parse_line(char *line, file_key *k, char hex[65], char **path) {
    int used = 0;
    if (sscanf(line, "%llu %llu %llu %lld.%lld %lld.%lld %64s %n", &k->dev, &k->ino, &k->size,
               &k->mtime_s, &k->mtime_ns, &k->ctime_s, &k->ctime_ns, hex, &used) != 8 ||
        !used)
        return -1;
    for (int i = 0; i < 64; ++i)
        if (!isxdigit((unsigned char)hex[i]) || isupper((unsigned char)hex[i])) return -1;
    if (hex[64]) return -1;
    *path = line + used;
    (*path)[strcspn(*path, "\n")] = '\0';
    return **path == '/' ? 0 : -1;
}

static int lookup(const char *cache, const char *path, const file_key *want, char hex[65]) {
    FILE *f = fopen(cache, "r");
    if (!f) return -1;
    char line[PATH_MAX + 256], h[65], *p;
    int found = -1;
    file_key k;
    while (found && fgets(line, sizeof line, f))
        if (parse_line(line, &k, h, &p) == 0 && !strcmp(p, path) && !memcmp(&k, want, sizeof k)) {
            memcpy(hex, h, 65);
            found = 0;
        }
    fclose(f);
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
    for (int n = 1; in && n < MAX_ENTRIES && fgets(line, sizeof line, in);)
        if (parse_line(line, &other, h, &p) == 0 && strcmp(p, path) != 0)
            write_line(out, &other, h, p), n++;
    if (in) fclose(in);
    if (fclose(out) != 0 || rename(tmp, cache) != 0) unlink(tmp);
}

int nsd_sha256_file_cached(const char *path, char hex[65]) {
    char cache[PATH_MAX], real[PATH_MAX];
    file_key before, after;
    if (cache_file(cache, sizeof cache) != 0 || !realpath(path, real) || key_of(real, &before) != 0)
        return nsd_sha256_file(path, hex);
    if (lookup(cache, real, &before, hex) == 0) return 0;
    if (nsd_sha256_file(real, hex) != 0) return -1;
    /* cached only when the file did not change while it was read */
    if (key_of(real, &after) == 0 && !memcmp(&before, &after, sizeof before))
        store(cache, real, &before, hex);
    return 0;
}

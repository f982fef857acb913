/* The SHA-256 of plugin files, cached (issue 28): every run record names
 * its plugins' shared objects by their hashes (output.c), and a re-run or
 * a resumed sweep checks them (plugin_record.c), so `nsdyn run` would hash
 * about a megabyte of shared objects at every start. The hashes are kept
 * in the user's cache, $XDG_CACHE_HOME/nsdyn/plugin-sha256 (else
 * ~/.cache/nsdyn/plugin-sha256), one line per file:
 *
 *   DEV INODE SIZE MTIME_S.NS CTIME_S.NS HEX PATH
 *
 * A hash is taken from there only when the file's device, inode, size,
 * modification and status-change times all match (the status-change time
 * cannot be set back by a user, so a file rewritten in place with its old
 * size and mtime is hashed again). NSDYN_NO_HASH_CACHE=1, an unwritable
 * cache or a malformed line: the file is hashed as before. The file is
 * read once per process, by hand (no sscanf), and a line found by the key
 * alone, so a cached hash costs one stat (bench/README.md). The plugin
 * index next to a shared object is not used: installed plugin folders are
 * not writable by the user. */
#ifndef NSD_SHA256_CACHE_H
#define NSD_SHA256_CACHE_H

/* As nsd_sha256_file (sha256.h), through the cache: 0, or -1 (errno). */
int nsd_sha256_file_cached(const char *path, char hex[65]);

#endif

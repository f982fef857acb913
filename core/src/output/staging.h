/* Folders that no one else sees yet: an output folder's temporary folder
 * (outdir.h) between its creation and the rename that publishes it.
 *
 * A file written into such a folder needs neither a path.tmp of its own nor
 * a rename: the folder as a whole is the unit that replaces the earlier
 * result. Nor does each file need its own fsync before the next is written:
 * what must be on the disk before the earlier result is removed is every
 * file and folder of the new one, and nsd_stage_sync() writes them back
 * together just before the rename (first all files' writeback started,
 * then each waited for, then the folders), instead of one fsync per file
 * as it was closed (docs/configs.md, "Where the outputs go";
 * bench/README.md, start-up). */
#ifndef NSD_STAGING_H
#define NSD_STAGING_H

#include <stddef.h>

/* Register `dir` (a fresh folder only this process writes) as staged; 0,
 * or -1 when the table is full (then its files are written the per-file
 * way: path.tmp, fsync, rename; still correct). Thread-safe. */
int nsd_stage_add(const char *dir);

/* The folder is published or discarded: files under it are written the
 * per-file way again. */
void nsd_stage_remove(const char *dir);

/* Is `path` inside a staged folder (that folder, a slash, then more)? */
int nsd_stage_holds(const char *path);

/* Every regular file and every folder of the tree `dir` on the disk:
 * fdatasync of each file (after starting the writeback of all of them),
 * then fsync of each folder, the deepest first. Symbolic links are not
 * followed; what this process cannot open (a umask without the owner's
 * read bit) is left to the kernel's writeback, as a folder that could not
 * be opened was before. 0, or -1 with the file and the reason in err (a
 * write error the file system reports only now: a full disk, EIO). */
int nsd_stage_sync(const char *dir, char *err, size_t err_len);

#endif

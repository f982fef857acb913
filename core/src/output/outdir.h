/* Output folders that are replaced as a whole, never half-written
 * (docs/configs.md, "Where the outputs go").
 *
 * A command that writes a result folder <out> (run, compare) first checks
 * the place, before any simulation: the path is not empty, <out> and
 * <out>.INCOMPLETE are each absent or a real folder (not a symbolic link,
 * not a file) holding nothing but files nsdyn writes, and the parent
 * folder takes a new folder. It then creates a fresh temporary folder next
 * to <out>, <parent>/.<name>.tmp-XXXXXX (mkdtemp: created exclusively, mode
 * 0700, a planted name or link makes it pick another), and everything is
 * written there, each file under its own name (staging.h: no path.tmp, no
 * fsync per file). At the end every file and folder of it is synced to the
 * disk in one pass (nsd_stage_sync; a write error found there leaves the
 * earlier result untouched and removes the new folder), then one rename
 * puts the folder in place:
 *
 *   - a complete result replaces <out> (renameat2 RENAME_EXCHANGE swaps the
 *     two folders in one step; where the file system lacks it, the old
 *     <out> is first renamed aside to .<name>.old-XXXXXX, then the new one
 *     renamed in), the old folder is removed, and so is <out>.INCOMPLETE, if
 *     any (it belonged to an earlier attempt);
 *   - a failed or interrupted run replaces <out>.INCOMPLETE the same way
 *     and leaves <out>, the last complete result, untouched.
 *
 * Removing a folder never follows a symbolic link (openat O_NOFOLLOW,
 * unlinkat). */
#ifndef NSD_OUTDIR_H
#define NSD_OUTDIR_H

#include <limits.h>
#include <stddef.h>

/* The exit statuses of a command: 0 success, 2 usage or config error, 3
 * the simulation failed (data kept, marked incomplete), 4 the outputs could
 * not be written (the earlier result is untouched), and 128 + N after
 * signal N (SIGINT 130, SIGTERM 143), as a shell reports a command that a
 * signal ended. */
enum {
    NSD_EXIT_OK = 0,
    NSD_EXIT_USAGE = 2,
    NSD_EXIT_FAILED = 3,
    NSD_EXIT_OUTPUT = 4,
    NSD_EXIT_SIGNAL_BASE = 128
};

typedef struct nsd_outdir {
    char target[PATH_MAX];     /* <out>, trailing slashes removed */
    char incomplete[PATH_MAX]; /* <out>.INCOMPLETE */
    char tmp[PATH_MAX];        /* the temporary folder this command writes into */
    int open;                  /* tmp exists and belongs to this command */
} nsd_outdir;

/* Check `target` and create the temporary folder. Returns 0, or -1 with a
 * message in err (a usage error: exit status 2, nothing written). */
int nsd_outdir_open(nsd_outdir *o, const char *target, char *err, size_t err_len);

/* Put the temporary folder in place: at <out> when `complete`, else at
 * <out>.INCOMPLETE. Returns 0, or -1 with err; then the outputs stay in
 * o->tmp (the message says so) and nothing else changed. */
int nsd_outdir_commit(nsd_outdir *o, int complete, char *err, size_t err_len);

/* Remove the temporary folder (nothing to keep). */
void nsd_outdir_discard(nsd_outdir *o);

/* After a commit: rewrite the paths that start with the temporary folder
 * to start with the folder it became. */
void nsd_outdir_relocate(const nsd_outdir *o, int complete, char **paths, size_t n);

/* The end of a command that wrote into o->tmp. When !written_ok: say that
 * nothing was replaced and remove the folder. Else commit it (at <out>
 * when `complete`, else at <out>.INCOMPLETE) and rewrite `paths` to where
 * it went; a commit that fails is reported and leaves the folder where the
 * message says. Messages go to stderr. Returns 1 when the outputs are in
 * place, 0 when not. */
int nsd_outdir_finish(nsd_outdir *o, int written_ok, int complete, char **paths, size_t n);

/* The exit status of a command that ran simulations: 128 + N after signal
 * N (whatever else went wrong), else 4 when the outputs could not be
 * written, else 3 when `failed`, else 0. */
int nsd_exit_status(int outputs_ok, int failed);

/* Remove a file or a folder tree without following symbolic links: a link
 * is removed, not what it points to. 0, or -1 (errno set). */
int nsd_remove_tree(const char *path);

#endif

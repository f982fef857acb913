/* Staged output folders (core/src/output/staging.h): a file written into an
 * output folder's temporary folder goes under its own name (no path.tmp,
 * no rename) and is put on the disk by one pass over the folder before the
 * folder replaces anything (outdir.c); elsewhere the per-file protocol
 * (path.tmp, fsync, rename) is unchanged.
 *  - the writer: inside a staged folder no path.tmp exists at any time and
 *    a file written twice holds the second text; outside one, path.tmp is
 *    what is open and path appears only at the commit;
 *  - which paths a staged folder holds (prefix edge cases), a full table;
 *  - the sync over random trees (depth, width, file sizes drawn) and over
 *    one of 300 files (more than one batch of descriptors): 0, the files
 *    intact, a symbolic link neither followed nor synced through; a
 *    missing folder is an error that names it.
 * Random trees: a fixed-seed xorshift, so runs are reproducible. */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outdir.h"
#include "output.h"
#include "staging.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}

static int exists(const char *path) {
    struct stat st;
    return lstat(path, &st) == 0;
}

static char *slurp(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void write_through(const char *path, const char *text, int staged) {
    char err[512], tmp[4200];
    int had = exists(path);
    FILE *f = nsd_open_tmp(path, err, sizeof err);
    ck_assert_msg(f != NULL, "%s", err);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    ck_assert_int_eq(exists(tmp), !staged);        /* what is open: path.tmp only when not staged */
    ck_assert_int_eq(exists(path), staged || had); /* the earlier version, until the rename */
    fputs(text, f);
    ck_assert_msg(nsd_commit_file(f, path, err, sizeof err) == 0, "%s", err);
    ck_assert(!exists(tmp));
    ck_assert_str_eq(slurp(path), text);
}

START_TEST(writer_in_and_out_of_a_staged_folder) {
    char dir[] = "/tmp/nsdyn_staging_XXXXXX", path[4096];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/timeseries.csv", dir);
    write_through(path, "t [s]\n0\n", 0); /* not staged: the per-file protocol */
    write_through(path, "t [s]\n1\n", 0); /* replaces */
    ck_assert_int_eq(nsd_stage_add(dir), 0);
    write_through(path, "t [s]\n2\n", 1); /* staged: in place, the earlier text replaced */
    snprintf(path, sizeof path, "%s/events.csv", dir);
    write_through(path, "time [s],kind\n", 1);
    nsd_stage_remove(dir);
    ck_assert(!nsd_stage_holds(path));
    char err[512];
    ck_assert_msg(nsd_stage_sync(dir, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(nsd_remove_tree(dir), 0);
}
END_TEST

START_TEST(which_paths_a_folder_holds) {
    ck_assert_int_eq(nsd_stage_add("/x/.out.tmp-AAAAAA"), 0);
    ck_assert(nsd_stage_holds("/x/.out.tmp-AAAAAA/run.toml"));
    ck_assert(nsd_stage_holds("/x/.out.tmp-AAAAAA/variant-01/timeseries.csv"));
    ck_assert(!nsd_stage_holds("/x/.out.tmp-AAAAAA"));
    ck_assert(!nsd_stage_holds("/x/.out.tmp-AAAAAA/"));
    ck_assert(!nsd_stage_holds("/x/.out.tmp-AAAAAAB/run.toml"));
    ck_assert(!nsd_stage_holds("/x/.out.tmp-AAAAA/run.toml"));
    ck_assert(!nsd_stage_holds("x/.out.tmp-AAAAAA/run.toml"));
    nsd_stage_remove("/x/.out.tmp-AAAAAA");
    ck_assert(!nsd_stage_holds("/x/.out.tmp-AAAAAA/run.toml"));
    /* a full table refuses (its files then take the per-file way) */
    char names[40][64];
    int added = 0;
    for (int i = 0; i < 40; ++i) {
        snprintf(names[i], sizeof names[i], "/y/.d%02d.tmp-XXXXXX", i);
        added += nsd_stage_add(names[i]) == 0;
    }
    ck_assert_int_lt(added, 40);
    ck_assert_int_gt(added, 0);
    for (int i = 0; i < 40; ++i) nsd_stage_remove(names[i]);
    ck_assert_int_eq(nsd_stage_add(names[39]), 0);
    nsd_stage_remove(names[39]);
}
END_TEST

/* A random tree under dir; returns the number of files. */
static int grow(const char *dir, int depth) {
    int files = 0, n = 1 + (int)(next() % 12), subs = depth < 2 ? (int)(next() % 4) : 0;
    for (int i = 0; i < n; ++i) {
        char path[4096];
        snprintf(path, sizeof path, "%s/f%03d.csv", dir, i);
        FILE *f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        for (uint64_t k = next() % 3000; k > 0; --k) fputc('0' + (int)(k % 10), f);
        fclose(f);
        files++;
    }
    for (int i = 0; i < subs; ++i) {
        char path[4096];
        snprintf(path, sizeof path, "%s/variant-%02d", dir, i);
        ck_assert_int_eq(mkdir(path, 0755), 0);
        files += grow(path, depth + 1);
    }
    return files;
}

START_TEST(sync_random_trees) {
    char outside[] = "/tmp/nsdyn_staging_out_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(outside));
    int total = 0;
    for (int trial = 0; trial < 12; ++trial) {
        char dir[] = "/tmp/nsdyn_staging_XXXXXX", link[4096], err[512];
        ck_assert_ptr_nonnull(mkdtemp(dir));
        total += grow(dir, 0);
        snprintf(link, sizeof link, "%s/elsewhere", dir);
        ck_assert_int_eq(symlink(outside, link), 0);
        struct stat before, after;
        ck_assert_int_eq(stat(outside, &before), 0);
        ck_assert_msg(nsd_stage_sync(dir, err, sizeof err) == 0, "%s", err);
        ck_assert_int_eq(stat(outside, &after), 0);
        ck_assert_int_eq(before.st_ctim.tv_nsec, after.st_ctim.tv_nsec);
        ck_assert(exists(link));
        ck_assert_int_eq(nsd_remove_tree(dir), 0);
        ck_assert(exists(outside)); /* the link removed, not what it points to */
    }
    ck_assert_int_gt(total, 12);
    /* one tree larger than a batch by itself */
    char dir[] = "/tmp/nsdyn_staging_XXXXXX", err[512];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    for (int i = 0; i < 300; ++i) {
        char path[4096];
        snprintf(path, sizeof path, "%s/f%03d", dir, i);
        FILE *f = fopen(path, "w");
        fprintf(f, "%d\n", i);
        fclose(f);
    }
    ck_assert_msg(nsd_stage_sync(dir, err, sizeof err) == 0, "%s", err);
    char path[4096];
    snprintf(path, sizeof path, "%s/f299", dir);
    ck_assert_str_eq(slurp(path), "299\n");
    ck_assert_int_eq(nsd_remove_tree(dir), 0);
    ck_assert_int_eq(rmdir(outside), 0);
    /* a folder that is not there: an error that names it */
    ck_assert_int_eq(nsd_stage_sync("/tmp/nsdyn_staging_absent/x", err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "/tmp/nsdyn_staging_absent/x"));
}
END_TEST

int main(void) {
    Suite *s = suite_create("staging");
    TCase *tc = tcase_create("staged folders");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, writer_in_and_out_of_a_staged_folder);
    tcase_add_test(tc, which_paths_a_folder_holds);
    tcase_add_test(tc, sync_random_trees);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

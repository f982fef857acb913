/* Helpers of the sweep tests (test_sweep.c, test_sweep_grow.c): nsdyn
 * sweep run through the CLI in a temporary folder as a user runs it, and
 * its SQLite database read back. */
#ifndef NSD_SWEEP_TEST_UTIL_H
#define NSD_SWEEP_TEST_UTIL_H

#include <check.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#ifndef NSDYN_TEST_BINARY
#error "NSDYN_TEST_BINARY must be defined"
#endif

static char tmp[256];

static inline void make_tmp(void) {
    snprintf(tmp, sizeof tmp, "/tmp/nsdyn_test_sweep_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmp));
}

static inline void remove_tmp(void) {
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    ck_assert_int_eq(system(cmd), 0);
}

/* Run `nsdyn sweep ARGS` with stderr into tmp/err.txt; the exit status. */
static inline int sweep(const char *fmt, ...) {
    char args[2048], cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "cd '%s' && %s sweep %s 2> err.txt", tmp, NSDYN_TEST_BINARY, args);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static inline char *slurp(const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmp, name);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot read %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *s = calloc((size_t)n + 1, 1);
    ck_assert_int_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    return s;
}

static inline void write_file(const char *name, const char *text) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmp, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static inline sqlite3 *open_db(const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmp, name);
    sqlite3 *db = NULL;
    ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
    return db;
}

static inline void exec_sql(sqlite3 *db, const char *sql) {
    ck_assert_msg(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK, "%s: %s", sql,
                  sqlite3_errmsg(db));
}

/* A query's rows as text (doubles as %a: every bit), without the column
 * named skip (NULL: none). */
static inline char *query_text(const char *db_name, const char *sql, const char *skip) {
    sqlite3 *db = open_db(db_name);
    sqlite3_stmt *st = NULL;
    ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    int nc = sqlite3_column_count(st);
    while (sqlite3_step(st) == SQLITE_ROW) {
        for (int c = 0; c < nc; ++c) {
            if (skip && !strcmp(sqlite3_column_name(st, c), skip)) continue;
            if (sqlite3_column_type(st, c) == SQLITE_FLOAT)
                fprintf(f, "%a|", sqlite3_column_double(st, c)); /* every bit */
            else
                fprintf(f, "%s|", (const char *)sqlite3_column_text(st, c));
        }
        fputc('\n', f);
    }
    fclose(f);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return text;
}

/* The runs table without the wall column, as text, in run order. */
static inline char *runs_text(const char *db_name) {
    return query_text(db_name, "SELECT * FROM runs ORDER BY run", "wall");
}

static const char *ball = "[system]\nid = \"point_mass\"\nm = 0.1\nr = 0.05\ng = 9.81\n"
                          "[contact]\nid = \"newton\"\ne = 0.5\n"
                          "[integrator]\nid = \"dopri5\"\nrtol = 1e-10\natol = 1e-12\n"
                          "[initial]\ny = 1.05\nvx = 0.2\n"
                          "[run]\nt_end = 2.0\noutput_dt = 1e-3\n";

/* The first integer of a query's first row. */
static inline long query_long(const char *db_name, const char *sql) {
    sqlite3 *db = open_db(db_name);
    sqlite3_stmt *st = NULL;
    ck_assert_msg(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK, "%s: %s", sql,
                  sqlite3_errmsg(db));
    ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
    long n = (long)sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return n;
}

#endif

/* The sweep's SQLite database (sweep.h, docs/sweep.md):
 *   sweep(key, value)     the definition: its hash, the config, the design,
 *                         the run count, the host's version;
 *   axes(pos, name, key, kind, n, start, stop, scale, zip_dim, per)
 *   summaries(pos, name, expr)
 *   runs(run, <axes>, <summaries>, status, message, wall, config_hash,
 *        log_warnings, log_first)
 *                         one row per finished run (log_: the count of the
 *                         warnings and errors in the run's log, the first);
 *   points(run, k, value) the local maxima of a maxima() summary, when the
 *                         sweep has one (a bifurcation diagram).
 * Rows are written in transactions by one thread; a run is finished once
 * its row is committed, so a sweep run again on the same database skips
 * it. WAL journal: a killed sweep loses only the uncommitted rows. */
#define _GNU_SOURCE
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "numfmt.h"
#include "nsdyn_build_config.h"
#include "output.h"
#include "sweep_modules.h"

struct nsd_sweep_db {
    sqlite3 *db;
    sqlite3_stmt *put;
    sqlite3_stmt *put_clear, *put_point, *get_points; /* maxima() points, or NULL */
    const nsd_sweep_def *def;
};

static const char *const status_text[] = {"ok", "failed", "refused", "no summary"};

static int fail(nsd_sweep_db *d, const char *what, char *err, size_t len) {
    snprintf(err, len, "%s: %s", what, d->db ? sqlite3_errmsg(d->db) : "cannot open");
    return -1;
}

static int exec(nsd_sweep_db *d, const char *sql, char *err, size_t len) {
    char *msg = NULL;
    if (sqlite3_exec(d->db, sql, NULL, NULL, &msg) == SQLITE_OK) return 0;
    snprintf(err, len, "%s (%s)", msg ? msg : "error", sql);
    sqlite3_free(msg);
    return -1;
}

/* The definition hash stored in an existing database, or "" (new). */
static int stored_hash(nsd_sweep_db *d, char out[65], char *err, size_t len) {
    out[0] = '\0';
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(d->db,
                           "SELECT value FROM sweep WHERE key = 'definition' AND EXISTS "
                           "(SELECT 1 FROM sqlite_master WHERE name = 'runs')",
                           -1, &st, NULL) != SQLITE_OK) {
        /* no table sweep: a new database, or not one of ours */
        int n = 0;
        sqlite3_stmt *cnt = NULL;
        if (sqlite3_prepare_v2(d->db, "SELECT count(*) FROM sqlite_master", -1, &cnt, NULL) ==
                SQLITE_OK &&
            sqlite3_step(cnt) == SQLITE_ROW)
            n = sqlite3_column_int(cnt, 0);
        sqlite3_finalize(cnt);
        if (n == 0) return 0;
        snprintf(err, len, "it holds tables but no sweep definition: not a sweep database");
        return -1;
    }
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
        snprintf(out, 65, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return 0;
}

static char *quote_ident(const char *s) { return sqlite3_mprintf("\"%w\"", s); }

/* The SQLite type of an axis's column: TEXT for strings, INTEGER for an
 * integer range or a list of integers or booleans, REAL otherwise. */
static const char *axis_type(const nsd_sweep_axis *ax) {
    if (ax->is_text) return "TEXT";
    if (ax->per_key) return "REAL";
    if (ax->is_range) return ax->is_int ? "INTEGER" : "REAL";
    for (size_t i = 0; i < ax->n; ++i)
        if (ax->values[i].type != NSD_TOML_INTEGER && ax->values[i].type != NSD_TOML_BOOLEAN)
            return "REAL";
    return "INTEGER";
}

static const char *summary_type(const nsd_sweep_summary *sum) {
    return sum->kind == NSD_SUM_STOP                                   ? "TEXT"
           : sum->kind == NSD_SUM_COUNT || sum->kind == NSD_SUM_MAXIMA ? "INTEGER"
                                                                       : "REAL";
}

/* A whole small file as text ("" when it cannot be read: the config may
 * come from a pipe), for the database's record of what was run. */
static char *slurp(const char *path) {
    FILE *f = path ? fopen(path, "rb") : NULL;
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m) abort();
    char buf[4096];
    size_t n;
    while (f && (n = fread(buf, 1, sizeof buf, f)) > 0) fwrite(buf, 1, n, m);
    if (f) fclose(f);
    fclose(m);
    return text;
}

/* The schema and the definition (the caller holds the transaction).
 * earlier: when the study grows, the table the earlier runs were moved
 * to, else NULL. */
static int create_schema(nsd_sweep_db *d, const char *config, const char *earlier, char *err,
                         size_t len) {
    const nsd_sweep_def *def = d->def;
    char *text = slurp(config);
    char *sql = sqlite3_mprintf(
        "CREATE TABLE IF NOT EXISTS sweep(key TEXT PRIMARY KEY, value TEXT);"
        "CREATE TABLE IF NOT EXISTS definitions(k INTEGER PRIMARY KEY, definition TEXT, "
        "n_runs INTEGER, kept INTEGER, config_text TEXT, earlier_runs TEXT);"
        "CREATE TABLE axes(pos INTEGER PRIMARY KEY, name TEXT, key TEXT, kind TEXT, n INTEGER, "
        "start REAL, stop REAL, scale TEXT, zip_dim INTEGER, per TEXT, per_power REAL);"
        "CREATE TABLE summaries(pos INTEGER PRIMARY KEY, name TEXT, expr TEXT);"
        "CREATE TABLE units(name TEXT PRIMARY KEY, unit TEXT, kind TEXT);"
        "INSERT INTO units VALUES('wall', 's', 'cost');"
        "INSERT INTO units VALUES('log_warnings', '1', 'log');"
        "INSERT OR REPLACE INTO sweep VALUES('definition', %Q), ('config', %Q), ('design', %Q), "
        "('seed', %lld), ('samples', %lld), ('n_runs', %lld), ('nsdyn', %Q), ('study', %Q), "
        "('config_text', %Q), ('config_tree', %Q), ('config_hash', %Q), ('config_resolved', %Q);"
        "INSERT INTO definitions(definition, n_runs, config_text, earlier_runs) "
        "VALUES(%Q, %lld, %Q, %Q);",
        def->hash, config,
        def->design == NSD_DESIGN_GRID     ? "grid"
        : def->design == NSD_DESIGN_RANDOM ? "random"
                                           : "lhs",
        (long long)def->seed, (long long)def->samples, (long long)def->n_runs, NSDYN_VERSION,
        def->study_hash, text, def->config_tree, def->config_hash, def->config_resolved, def->hash,
        (long long)def->n_runs, text, earlier);
    free(text);
    int rc = exec(d, sql, err, len);
    sqlite3_free(sql);
    char *runs = sqlite3_mprintf("CREATE TABLE runs(run INTEGER PRIMARY KEY");
    for (size_t a = 0; rc == 0 && a < def->n_axes; ++a) {
        const nsd_sweep_axis *ax = &def->axes[a];
        char key[160];
        snprintf(key, sizeof key, "%s.%s", ax->section, ax->param);
        sql = sqlite3_mprintf(
            "INSERT INTO axes VALUES(%d, %Q, %Q, %Q, %lld, %.17g, %.17g, %Q, %d, %Q, %.17g);",
            (int)a, ax->name, key, ax->is_range ? "range" : "list", (long long)ax->n, ax->start,
            ax->stop, ax->log ? "log" : "linear", (int)ax->dim, ax->per_key, ax->per_power);
        if (!ax->is_text)
            sql = sqlite3_mprintf("%z INSERT INTO units VALUES(%Q, %Q, 'axis');", sql, ax->name,
                                  ax->unit);
        rc = exec(d, sql, err, len);
        sqlite3_free(sql);
        char *q = quote_ident(ax->name),
             *next = sqlite3_mprintf("%z, %s %s", runs, q, axis_type(ax));
        sqlite3_free(q);
        runs = next;
    }
    for (size_t s = 0; rc == 0 && s < def->n_sums; ++s) {
        const nsd_sweep_summary *sum = &def->sums[s];
        sql = sqlite3_mprintf("INSERT INTO summaries VALUES(%d, %Q, %Q);", (int)s, sum->name,
                              sum->expr);
        if (sum->kind != NSD_SUM_STOP)
            sql = sqlite3_mprintf("%z INSERT INTO units VALUES(%Q, %Q, 'summary');", sql, sum->name,
                                  sum->unit);
        rc = exec(d, sql, err, len);
        sqlite3_free(sql);
        char *q = quote_ident(sum->name),
             *next = sqlite3_mprintf("%z, %s %s", runs, q, summary_type(sum));
        sqlite3_free(q);
        runs = next;
    }
    sql = sqlite3_mprintf("%z, status TEXT, message TEXT, wall REAL, config_hash TEXT, "
                          "log_warnings INTEGER, log_first TEXT); %s",
                          runs,
                          def->points_sum >= 0 ? "CREATE TABLE points(run INTEGER, k INTEGER, "
                                                 "value REAL, PRIMARY KEY(run, k));"
                                               : "");
    if (rc == 0) rc = exec(d, sql, err, len);
    sqlite3_free(sql);
    return rc;
}

/* A database begun before runs carried their log (issue 21) gets its two
 * columns (NULL in the rows it holds), so the study goes on in it. */
static int add_log_columns(nsd_sweep_db *d, char *err, size_t len) {
    sqlite3_stmt *st = NULL;
    int have = sqlite3_prepare_v2(d->db, "SELECT log_warnings, log_first FROM runs LIMIT 0", -1,
                                  &st, NULL) == SQLITE_OK;
    sqlite3_finalize(st);
    if (have) return 0;
    return exec(d,
                "ALTER TABLE runs ADD COLUMN log_warnings INTEGER; "
                "ALTER TABLE runs ADD COLUMN log_first TEXT;",
                err, len);
}

static int prepare_put(nsd_sweep_db *d, char *err, size_t len) {
    size_t n = 1 + d->def->n_axes + d->def->n_sums + 6;
    char *sql = sqlite3_mprintf("INSERT OR REPLACE INTO runs VALUES(?");
    for (size_t i = 1; i < n; ++i) sql = sqlite3_mprintf("%z, ?", sql);
    sql = sqlite3_mprintf("%z)", sql);
    int rc = sqlite3_prepare_v2(d->db, sql, -1, &d->put, NULL);
    sqlite3_free(sql);
    if (rc == SQLITE_OK && d->def->points_sum >= 0) {
        rc = sqlite3_prepare_v2(d->db, "DELETE FROM points WHERE run = ?", -1, &d->put_clear, NULL);
        if (rc == SQLITE_OK)
            rc = sqlite3_prepare_v2(d->db, "INSERT INTO points VALUES(?, ?, ?)", -1, &d->put_point,
                                    NULL);
        if (rc == SQLITE_OK)
            rc = sqlite3_prepare_v2(d->db, "SELECT value FROM points WHERE run = ? ORDER BY k", -1,
                                    &d->get_points, NULL);
    }
    return rc == SQLITE_OK ? 0 : fail(d, "prepare", err, len);
}

/* Rows whose status is none of ours or whose wall time is not a number:
 * a resume would count them as finished runs. 0, or -1 naming one. */
static int bogus_rows(nsd_sweep_db *d, char *err, size_t len) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(d->db,
                           "SELECT run, quote(status), quote(wall) FROM runs WHERE status NOT IN "
                           "('ok', 'failed', 'refused', 'no summary') OR status IS NULL OR "
                           "typeof(wall) NOT IN ('real', 'integer') LIMIT 1",
                           -1, &st, NULL) != SQLITE_OK)
        return fail(d, "checking the finished runs", err, len);
    int rc = 0;
    if (sqlite3_step(st) == SQLITE_ROW) {
        snprintf(err, len,
                 "row run = %lld holds status %s and wall %s, which nsdyn sweep never writes: the "
                 "database was changed outside nsdyn sweep; delete that row or use another "
                 "database (--db)",
                 (long long)sqlite3_column_int64(st, 0), (const char *)sqlite3_column_text(st, 1),
                 (const char *)sqlite3_column_text(st, 2));
        rc = -1;
    }
    sqlite3_finalize(st);
    return rc;
}

static int read_done(nsd_sweep_db *d, uint8_t **done, size_t *n_done, char *err, size_t len) {
    size_t n = d->def->n_runs;
    *done = calloc(n / 8 + 1, 1);
    if (!*done) abort();
    *n_done = 0;
    sqlite3_stmt *st = NULL;
    /* a run whose process died stays done unless --retry-crashed */
    const char *retry = getenv("NSDYN_SWEEP_RETRY_CRASHED");
    const char *sql = retry && *retry && strcmp(retry, "0") != 0
                          ? "SELECT run FROM runs WHERE message IS NULL OR message NOT LIKE "
                            "'crashed:%'"
                          : "SELECT run FROM runs";
    if (sqlite3_prepare_v2(d->db, sql, -1, &st, NULL) != SQLITE_OK)
        return fail(d, "reading the finished runs", err, len);
    while (sqlite3_step(st) == SQLITE_ROW) {
        sqlite3_int64 r = sqlite3_column_int64(st, 0);
        if (r < 0 || (size_t)r >= n) { /* not ours: written by something else */
            snprintf(err, len,
                     "row run = %lld is not a run of this sweep (0 to %zu): the database was "
                     "changed outside nsdyn sweep; delete that row or use another database (--db)",
                     (long long)r, n ? n - 1 : 0);
            sqlite3_finalize(st);
            return -1;
        }
        if ((*done)[r / 8] >> (r % 8) & 1) continue;
        (*done)[r / 8] |= (uint8_t)(1u << (r % 8));
        (*n_done)++;
    }
    sqlite3_finalize(st);
    return bogus_rows(d, err, len);
}

/* A value of the sweep table, or NULL (caller frees). */
static char *sweep_value(nsd_sweep_db *d, const char *key) {
    sqlite3_stmt *st = NULL;
    char *out = NULL;
    if (sqlite3_prepare_v2(d->db, "SELECT value FROM sweep WHERE key = ?", -1, &st, NULL) ==
        SQLITE_OK) {
        sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
            out = strdup((const char *)sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
    return out;
}

/* The earlier definition's axes: keys and per ("key^power"). */
static size_t earlier_axes(nsd_sweep_db *d, char ***keys, char ***pers) {
    sqlite3_stmt *st = NULL;
    size_t n = 0;
    *keys = calloc(256, sizeof **keys);
    *pers = calloc(256, sizeof **pers);
    if (!*keys || !*pers) abort();
    if (sqlite3_prepare_v2(d->db, "SELECT key, coalesce(per, ''), per_power FROM axes ORDER BY pos",
                           -1, &st, NULL) == SQLITE_OK)
        while (n < 256 && sqlite3_step(st) == SQLITE_ROW) {
            (*keys)[n] = strdup((const char *)sqlite3_column_text(st, 0));
            char per[200];
            snprintf(per, sizeof per, "%s^%.17g", (const char *)sqlite3_column_text(st, 1),
                     sqlite3_column_double(st, 2));
            (*pers)[n++] = strdup(per);
        }
    sqlite3_finalize(st);
    return n;
}

static void column_value(sqlite3_stmt *st, int c, double *num, char *text);

/* The first column of a query's first row as an integer (0: none). */
static int count_of(nsd_sweep_db *d, const char *sql) {
    sqlite3_stmt *st = NULL;
    int n =
        sqlite3_prepare_v2(d->db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW
            ? sqlite3_column_int(st, 0)
            : 0;
    sqlite3_finalize(st);
    return n;
}

/* A database begun before rows were keyed by the study's config hash
 * (each row held its own run's resolved-config hash, computed per run)
 * is keyed once: its rows copied whole to runs_v<k>, then given the
 * study's hash, so old and new rows read alike (sweep.h). */
static int rekey_rows(nsd_sweep_db *d, char *err, size_t len) {
    char *have = sweep_value(d, "config_hash");
    free(have);
    if (have) return 0;
    int k = 1 + count_of(d, "SELECT count(*) FROM sqlite_master WHERE name GLOB 'runs_v*'");
    int rows = count_of(d, "SELECT count(*) FROM runs");
    char *archive = rows ? sqlite3_mprintf("CREATE TABLE runs_v%d AS SELECT * FROM runs; UPDATE "
                                           "runs SET config_hash = %Q; INSERT OR REPLACE INTO "
                                           "sweep VALUES('rekeyed', 'runs_v%d');",
                                           k, d->def->config_hash, k)
                         : NULL;
    char *sql =
        sqlite3_mprintf("BEGIN; %s INSERT OR REPLACE INTO sweep VALUES('config_hash', %Q), "
                        "('config_resolved', %Q); COMMIT;",
                        archive ? archive : "", d->def->config_hash, d->def->config_resolved);
    int rc = exec(d, sql, err, len);
    sqlite3_free(archive);
    sqlite3_free(sql);
    if (rc != 0) sqlite3_exec(d->db, "ROLLBACK", NULL, NULL, NULL);
    if (rc == 0 && rows)
        fprintf(stderr,
                "sweep: the database's %d rows keyed by the study's config hash (they held each "
                "run's own; kept as they were in table runs_v%d)\n",
                rows, k);
    return rc;
}

/* A runs row's summaries, status, message and wall from column c on into
 * row; the next column. */
static int row_results(sqlite3_stmt *st, int c, const nsd_sweep_def *def, nsd_sweep_row *row) {
    for (size_t s = 0; s < def->n_sums; ++s, ++c)
        column_value(st, c, &row->sum_num[s], row->sum_text[s]);
    const char *status = (const char *)sqlite3_column_text(st, c++);
    row->status = NSD_SWEEP_FAILED;
    for (int k = 0; k < 4; ++k)
        if (status && !strcmp(status, status_text[k])) row->status = k;
    const char *msg = (const char *)sqlite3_column_text(st, c++);
    snprintf(row->message, sizeof row->message, "%s", msg ? msg : "");
    row->wall = sqlite3_column_double(st, c++);
    return c;
}

/* After row_results: the config hash and, where the table has them (a
 * database begun before runs carried their log has not), the log columns. */
static void row_tail(sqlite3_stmt *st, int c, nsd_sweep_row *row) {
    const char *h = (const char *)sqlite3_column_text(st, c++);
    snprintf(row->config_hash, sizeof row->config_hash, "%s", h ? h : "");
    row->log_warnings = 0;
    row->log_first[0] = '\0';
    if (c + 1 < sqlite3_column_count(st)) {
        row->log_warnings = (uint32_t)sqlite3_column_int64(st, c++);
        const char *f = (const char *)sqlite3_column_text(st, c++);
        snprintf(row->log_first, sizeof row->log_first, "%s", f ? f : "");
    }
}

/* Copy the earlier definition's rows (table `from`, n_old axes) that the
 * new one contains, renumbered; *kept, *out counted. */
static int place_rows(nsd_sweep_db *d, const char *from, nsd_sweep_grow *g, size_t n_old,
                      size_t *kept, size_t *out, char *err, size_t len) {
    char *sql = sqlite3_mprintf("SELECT * FROM \"%w\" ORDER BY run", from);
    sqlite3_stmt *st = NULL, *pts = NULL;
    int rc = sqlite3_prepare_v2(d->db, sql, -1, &st, NULL);
    sqlite3_free(sql);
    if (rc == SQLITE_OK && d->def->points_sum >= 0) {
        sql = sqlite3_mprintf("SELECT value FROM \"points%w\" WHERE run = ? ORDER BY k", from + 4);
        rc = sqlite3_prepare_v2(d->db, sql, -1, &pts, NULL);
        sqlite3_free(sql);
    }
    if (rc != SQLITE_OK) {
        sqlite3_finalize(st);
        return fail(d, "reading the earlier runs", err, len);
    }
    size_t n_cols = (size_t)sqlite3_column_count(st), n_fixed = 1 + n_old + d->def->n_sums;
    if (n_cols != n_fixed + 4 && n_cols != n_fixed + 6) { /* without, with the log columns */
        snprintf(err, len,
                 "the earlier runs (table %s) have %d columns, not the %zu its axes and "
                 "summaries give: the database was changed outside nsdyn sweep; use another "
                 "database (--db)",
                 from, sqlite3_column_count(st), n_fixed + 6);
        sqlite3_finalize(st);
        sqlite3_finalize(pts);
        return -1;
    }
    nsd_sweep_row *row = nsd_sweep_row_new(d->def);
    double num[256];
    char(*text)[NSD_SWEEP_TEXT] = calloc(n_old + 1, NSD_SWEEP_TEXT);
    if (!text) abort();
    while (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
        int c = 0;
        sqlite3_int64 was = sqlite3_column_int64(st, c++);
        for (size_t o = 0; o < n_old; ++o, ++c) column_value(st, c, &num[o], text[o]);
        if (nsd_sweep_grow_place(g, num, (const char(*)[NSD_SWEEP_TEXT])text, row) != 0) {
            (*out)++;
            continue;
        }
        c = row_results(st, c, d->def, row);
        row_tail(st, c, row);
        /* the row is a run of the new definition: its key (sweep.h) */
        memcpy(row->config_hash, d->def->config_hash, sizeof row->config_hash);
        row->n_points = 0;
        if (pts) {
            sqlite3_reset(pts);
            sqlite3_bind_int64(pts, 1, was);
            while (sqlite3_step(pts) == SQLITE_ROW && row->n_points < NSD_SWEEP_POINTS)
                row->points[row->n_points++] = sqlite3_column_double(pts, 0);
        }
        if (nsd_sweep_db_put(d, row, err, len) != 0) rc = SQLITE_ERROR;
        (*kept)++;
    }
    free(text);
    nsd_sweep_row_free(row);
    sqlite3_finalize(st);
    sqlite3_finalize(pts);
    return rc == SQLITE_OK ? 0 : -1;
}

/* The study grew (same config, design and summaries; other axes): the
 * earlier runs move to runs_v<k> (kept whole), the new definition's
 * tables are made, and every earlier row it contains is placed by its
 * values (sweep_grow.c). One transaction: a failure leaves the database
 * as it was. */
static int grow(nsd_sweep_db *d, const char *config, char *err, size_t len) {
    if (d->def->design != NSD_DESIGN_GRID) {
        snprintf(err, len,
                 "the sweep's axes changed and only a grid study grows (a random or lhs "
                 "design's values follow from its seed and sample count); use another database "
                 "(--db)");
        return -1;
    }
    char **keys, **pers;
    size_t n_old = earlier_axes(d, &keys, &pers), kept = 0, out = 0;
    int k = 1 + count_of(d, "SELECT count(*) FROM sqlite_master WHERE name GLOB 'runs_v*'");
    char from[32];
    snprintf(from, sizeof from, "runs_v%d", k);
    char *sql = sqlite3_mprintf("BEGIN; ALTER TABLE runs RENAME TO %s; DROP TABLE axes; "
                                "DROP TABLE summaries; DROP TABLE IF EXISTS units;",
                                from);
    if (d->def->points_sum >= 0)
        sql = sqlite3_mprintf("%z ALTER TABLE points RENAME TO points_v%d;", sql, k);
    int rc = exec(d, sql, err, len);
    sqlite3_free(sql);
    nsd_sweep_grow *g = rc == 0 ? nsd_sweep_grow_new(d->def, n_old, (const char *const *)keys,
                                                     (const char *const *)pers)
                                : NULL;
    if (rc == 0) rc = create_schema(d, config, from, err, len);
    if (rc == 0) rc = prepare_put(d, err, len);
    if (rc == 0) rc = place_rows(d, from, g, n_old, &kept, &out, err, len);
    if (rc == 0) {
        sql = sqlite3_mprintf("UPDATE definitions SET kept = %lld WHERE k = "
                              "(SELECT max(k) FROM definitions); COMMIT;",
                              (long long)kept);
        rc = exec(d, sql, err, len);
        sqlite3_free(sql);
    }
    if (rc != 0)
        sqlite3_exec(d->db, "ROLLBACK", NULL, NULL, NULL);
    else
        fprintf(stderr,
                "sweep: the study grew (other axes, same config and summaries): %zu finished "
                "runs placed by their values, %zu outside the new definition (kept in table %s)\n",
                kept, out, from);
    nsd_sweep_grow_free(g);
    for (size_t o = 0; o < n_old; ++o) free(keys[o]), free(pers[o]);
    free(keys);
    free(pers);
    return rc;
}

/* A stored definition other than def's: the same study grows, another
 * is refused. */
static int other_definition(nsd_sweep_db *d, const char *path, const char *hash, const char *config,
                            char *err, size_t len) {
    char *study = sweep_value(d, "study");
    int same = study && !strcmp(study, d->def->study_hash);
    free(study);
    if (same) return grow(d, config, err, len);
    snprintf(err, len,
             "database %s was written by another sweep definition (its hash %.12s..., this "
             "config's %.12s...): the config, its --set values, the design or the summaries "
             "changed (a study grows only by its axes); use another database (--db) or remove "
             "this one",
             path, hash, d->def->hash);
    return -1;
}

nsd_sweep_db *nsd_sweep_db_open(const char *path, const nsd_sweep_def *def, const char *config,
                                uint8_t **done, size_t *n_done, char *err, size_t len) {
    nsd_sweep_db *d = calloc(1, sizeof *d);
    if (!d) abort();
    d->def = def;
    *done = NULL;
    char hash[65];
    int rc = -1;
    if (sqlite3_open_v2(path, &d->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
        SQLITE_OK) {
        fail(d, path, err, len);
    } else if (sqlite3_busy_timeout(d->db, 10000), stored_hash(d, hash, err, len) != 0) {
        char why[400];
        snprintf(why, sizeof why, "%s", err);
        snprintf(err, len, "database %s: %s", path, why);
    } else if (exec(d, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;", err, len) != 0) {
    } else if (hash[0] && strcmp(hash, def->hash) != 0) {
        if (other_definition(d, path, hash, config, err, len) == 0 &&
            read_done(d, done, n_done, err, len) == 0)
            rc = 0;
    } else if ((hash[0] ? add_log_columns(d, err, len) == 0 && rekey_rows(d, err, len) == 0
                        : (exec(d, "BEGIN", err, len) == 0 &&
                           create_schema(d, config, NULL, err, len) == 0 &&
                           exec(d, "COMMIT", err, len) == 0)) &&
               prepare_put(d, err, len) == 0 && read_done(d, done, n_done, err, len) == 0) {
        rc = 0;
    }
    if (rc == 0) return d;
    if (strncmp(err, "database ", 9) != 0) { /* say which */
        char why[1024];
        snprintf(why, sizeof why, "%s", err);
        snprintf(err, len, "database %s: %s", path, why);
    }
    free(*done);
    *done = NULL;
    nsd_sweep_db_close(d);
    return NULL;
}

/* The line of `text` that starts like `line` up to its file (section and
 * id), or NULL. */
static const char *same_plugin(const char *text, const char *line) {
    const char *sp = strchr(line, ' ');
    sp = sp ? strchr(sp + 1, ' ') : NULL;
    size_t n = sp ? (size_t)(sp - line) + 1 : 0;
    for (const char *l = text; n && l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
        if (strncmp(l, line, n) == 0) return l;
    return NULL;
}

int nsd_sweep_db_check_plugins(nsd_sweep_db *d, const char *now, int accept, char *err,
                               size_t len) {
    sqlite3_stmt *st = NULL;
    char *before = NULL;
    if (sqlite3_prepare_v2(d->db, "SELECT value FROM sweep WHERE key = 'plugins'", -1, &st, NULL) !=
        SQLITE_OK)
        return fail(d, "reading the recorded plugins", err, len);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
        before = strdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    int rc = 0;
    if (!before || strcmp(before, now) != 0) {
        /* the first plugin whose file or hash differs from the record */
        const char *l = now;
        while (*l) {
            size_t n = strcspn(l, "\n");
            const char *old = before ? same_plugin(before, l) : NULL;
            if (before && (!old || strncmp(old, l, n + 1) != 0)) {
                size_t m = old ? strcspn(old, "\n") : 0;
                snprintf(err, len,
                         "the plugins changed since this database was written: now '%.*s', "
                         "recorded '%.*s' (section id file sha256): its rows and new ones would "
                         "come from two builds; rebuild the recorded plugin, use another "
                         "database (--db), or pass --accept-plugin-change to go on and record "
                         "both",
                         (int)n, l, (int)m, old ? old : "(none)");
                break;
            }
            l += n + (l[n] == '\n');
        }
        if (before && !accept && err[0]) rc = -1;
        if (rc == 0) {
            if (before) fprintf(stderr, "warning: %s: accepted\n", err);
            err[0] = '\0';
            char *sql = sqlite3_mprintf(
                "INSERT OR REPLACE INTO sweep VALUES('plugins', %Q);"
                "INSERT OR REPLACE INTO sweep VALUES('plugins_before', "
                "coalesce((SELECT value FROM sweep WHERE key = 'plugins_before'), '') || %Q);",
                now, before ? before : "");
            rc = exec(d, sql, err, len);
            sqlite3_free(sql);
        }
    }
    free(before);
    return rc;
}

int nsd_sweep_db_begin(nsd_sweep_db *d, char *err, size_t len) {
    return exec(d, "BEGIN", err, len);
}

int nsd_sweep_db_commit(nsd_sweep_db *d, char *err, size_t len) {
    return exec(d, "COMMIT", err, len);
}

static void bind_value(sqlite3_stmt *st, int i, double num, const char *text) {
    if (text && text[0])
        sqlite3_bind_text(st, i, text, -1, SQLITE_TRANSIENT);
    else if (isnan(num))
        sqlite3_bind_null(st, i);
    else
        sqlite3_bind_double(st, i, num);
}

int nsd_sweep_db_put(nsd_sweep_db *d, const nsd_sweep_row *row, char *err, size_t len) {
    sqlite3_stmt *st = d->put;
    int i = 1;
    sqlite3_reset(st);
    sqlite3_bind_int64(st, i++, (sqlite3_int64)row->run);
    for (size_t a = 0; a < d->def->n_axes; ++a)
        bind_value(st, i++, row->axis_num[a], row->axis_text[a]);
    for (size_t s = 0; s < d->def->n_sums; ++s)
        bind_value(st, i++, row->sum_num[s], row->sum_text[s]);
    sqlite3_bind_text(st, i++, status_text[row->status & 3], -1, SQLITE_STATIC);
    sqlite3_bind_text(st, i++, row->message, -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(st, i++, row->wall);
    sqlite3_bind_text(st, i++, row->config_hash, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, i++, (sqlite3_int64)row->log_warnings);
    sqlite3_bind_text(st, i++, row->log_first, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(st) != SQLITE_DONE) return fail(d, "writing a run", err, len);
    if (!d->put_clear) return 0;
    sqlite3_reset(d->put_clear);
    sqlite3_bind_int64(d->put_clear, 1, (sqlite3_int64)row->run);
    if (sqlite3_step(d->put_clear) != SQLITE_DONE) return fail(d, "writing points", err, len);
    for (uint32_t k = 0; k < row->n_points; ++k) {
        sqlite3_reset(d->put_point);
        sqlite3_bind_int64(d->put_point, 1, (sqlite3_int64)row->run);
        sqlite3_bind_int(d->put_point, 2, (int)k);
        sqlite3_bind_double(d->put_point, 3, row->points[k]);
        if (sqlite3_step(d->put_point) != SQLITE_DONE) return fail(d, "writing points", err, len);
    }
    return 0;
}

/* A CSV field: numbers as the shortest text that reads back exactly,
 * text quoted when it holds a comma, quote or line break. */
static void csv_field(FILE *f, sqlite3_stmt *st, int c) {
    switch (sqlite3_column_type(st, c)) {
        case SQLITE_NULL: break;
        case SQLITE_INTEGER: fprintf(f, "%lld", (long long)sqlite3_column_int64(st, c)); break;
        case SQLITE_FLOAT: nsd_num_put(f, sqlite3_column_double(st, c)); break;
        default: {
            const char *s = (const char *)sqlite3_column_text(st, c);
            if (!s) break;
            if (!strpbrk(s, ",\"\n\r")) {
                fputs(s, f);
                break;
            }
            fputc('"', f);
            for (; *s; ++s) {
                if (*s == '"') fputc('"', f);
                fputc(*s, f);
            }
            fputc('"', f);
        }
    }
}

/* The header: every number's column with its unit ("e [1]", "C [N s/m]",
 * "wall [s]"); text columns by name. */
static void csv_header(FILE *f, const nsd_sweep_def *def) {
    fputs("run", f);
    for (size_t a = 0; a < def->n_axes; ++a)
        if (def->axes[a].is_text)
            fprintf(f, ",%s", def->axes[a].name);
        else
            fprintf(f, ",%s [%s]", def->axes[a].name, def->axes[a].unit);
    for (size_t s = 0; s < def->n_sums; ++s)
        if (def->sums[s].kind == NSD_SUM_STOP)
            fprintf(f, ",%s", def->sums[s].name);
        else
            fprintf(f, ",%s [%s]", def->sums[s].name, def->sums[s].unit);
    fputs(",status,message,wall [s],config_hash,log_warnings [1],log_first\n", f);
}

int nsd_sweep_db_csv(nsd_sweep_db *d, const char *path, char *err, size_t len) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(d->db, "SELECT * FROM runs ORDER BY run", -1, &st, NULL) != SQLITE_OK)
        return fail(d, "reading the runs", err, len);
    /* path.tmp created exclusively, never through a link; renamed into
     * place only when every write succeeded (output.h) */
    FILE *f = nsd_open_tmp(path, err, len);
    if (!f) {
        sqlite3_finalize(st);
        return -1;
    }
    int nc = sqlite3_column_count(st);
    csv_header(f, d->def);
    while (sqlite3_step(st) == SQLITE_ROW) {
        for (int c = 0; c < nc; ++c) {
            if (c) fputc(',', f);
            csv_field(f, st, c);
        }
        fputc('\n', f);
    }
    sqlite3_finalize(st);
    return nsd_commit_file(f, path, err, len);
}

static void column_value(sqlite3_stmt *st, int c, double *num, char *text) {
    text[0] = '\0';
    *num = NAN;
    int t = sqlite3_column_type(st, c);
    if (t == SQLITE_INTEGER || t == SQLITE_FLOAT)
        *num = sqlite3_column_double(st, c);
    else if (t == SQLITE_TEXT)
        snprintf(text, NSD_SWEEP_TEXT, "%s", (const char *)sqlite3_column_text(st, c));
}

int nsd_sweep_db_scan(nsd_sweep_db *d, nsd_sweep_row_fn fn, void *ctx, char *err, size_t len) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(d->db, "SELECT * FROM runs ORDER BY run", -1, &st, NULL) != SQLITE_OK)
        return fail(d, "reading the runs", err, len);
    nsd_sweep_row *row = nsd_sweep_row_new(d->def);
    size_t na = d->def->n_axes;
    while (sqlite3_step(st) == SQLITE_ROW) {
        int c = 0;
        row->run = (uint64_t)sqlite3_column_int64(st, c++);
        for (size_t a = 0; a < na; ++a, ++c)
            column_value(st, c, &row->axis_num[a], row->axis_text[a]);
        c = row_results(st, c, d->def, row);
        row_tail(st, c, row);
        row->n_points = 0;
        if (d->get_points) {
            sqlite3_reset(d->get_points);
            sqlite3_bind_int64(d->get_points, 1, (sqlite3_int64)row->run);
            while (sqlite3_step(d->get_points) == SQLITE_ROW && row->n_points < NSD_SWEEP_POINTS)
                row->points[row->n_points++] = sqlite3_column_double(d->get_points, 0);
        }
        fn(ctx, row);
    }
    sqlite3_finalize(st);
    nsd_sweep_row_free(row);
    return 0;
}

void nsd_sweep_db_close(nsd_sweep_db *d) {
    if (!d) return;
    sqlite3_finalize(d->put);
    sqlite3_finalize(d->put_clear);
    sqlite3_finalize(d->put_point);
    sqlite3_finalize(d->get_points);
    sqlite3_close(d->db);
    free(d);
}

/* The SQLite module's one export (sweep_modules.h): this file is
 * libnsdyn_sqlite.so, reached through libnsdyn's sweep_modules.c. */
__attribute__((visibility("default")))
const nsd_sqlite_table nsd_module_table = {{"sqlite", NSD_MODULE_ABI_SQLITE},
                                           nsd_sweep_db_open,
                                           nsd_sweep_db_check_plugins,
                                           nsd_sweep_db_begin,
                                           nsd_sweep_db_put,
                                           nsd_sweep_db_commit,
                                           nsd_sweep_db_csv,
                                           nsd_sweep_db_scan,
                                           nsd_sweep_db_close};

/* End to end through the nsdyn command: a run, a comparison, a failed run,
 * and the informational commands; checks the files and graphs exist and
 * hold sane numbers. Then the outputs (issue 10): every shipped config
 * re-runs from its run.toml byte for byte; output-folder problems are
 * found before the simulation (exit 2); a planted link is not followed; a
 * full disk, SIGINT and SIGTERM leave the earlier result untouched and
 * keep what was computed in <out>.INCOMPLETE. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <math.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "sha256.h"
#include "test_util.h"

extern char **environ;
static char tmp_root[] = "/tmp/nsdyn-e2e-XXXXXX";
static char out_text[1 << 16], err_text[1 << 16];

/* How the child runs: as is; with files limited to 64 kB (a full disk:
 * writes fail with EFBIG); as the user nobody (when the tests run as root,
 * for whom every folder is writable). */
enum { CHILD_PLAIN, CHILD_SMALL_FILES, CHILD_NOBODY };

/* Start the CLI with args, stdout and stderr to files. */
static pid_t nsdyn_start(const char *const *args, int how) {
    const char *argv[48] = {NSDYN_TEST_BINARY};
    size_t n = 1;
    for (; args[n - 1]; ++n) argv[n] = args[n - 1];
    argv[n] = NULL;
    char out_path[256], err_path[256];
    snprintf(out_path, sizeof out_path, "%s/stdout", tmp_root);
    snprintf(err_path, sizeof err_path, "%s/stderr", tmp_root);
    int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    ck_assert(out >= 0 && err >= 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        dup2(out, 1);
        dup2(err, 2);
        if (how == CHILD_SMALL_FILES) {
            struct rlimit rl = {64 << 10, 64 << 10};
            signal(SIGXFSZ, SIG_IGN); /* a write past the limit fails instead */
            if (setrlimit(RLIMIT_FSIZE, &rl) != 0) _exit(126);
        }
        if (how == CHILD_NOBODY &&
            (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0))
            _exit(126);
        execve(argv[0], (char *const *)argv, environ);
        _exit(127);
    }
    close(out);
    close(err);
    return pid;
}

/* Wait for it; capture stdout and stderr; return the exit status (-1 if
 * a signal ended it). */
static int nsdyn_finish(pid_t pid) {
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    char path[256];
    snprintf(path, sizeof path, "%s/stdout", tmp_root);
    FILE *f = fopen(path, "r");
    size_t k = fread(out_text, 1, sizeof out_text - 1, f);
    out_text[k] = '\0';
    fclose(f);
    snprintf(path, sizeof path, "%s/stderr", tmp_root);
    f = fopen(path, "r");
    k = fread(err_text, 1, sizeof err_text - 1, f);
    err_text[k] = '\0';
    fclose(f);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Run the CLI with args; capture stdout and stderr; return exit status. */
static int nsdyn(const char *const *args) { return nsdyn_finish(nsdyn_start(args, CHILD_PLAIN)); }

static void path_in(char *buf, size_t len, const char *dir, const char *name) {
    snprintf(buf, len, "%s/%s", dir, name);
}

static int exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* The whole of a small text file (run records). */
static void read_text(const char *path, char *buf, size_t len) {
    FILE *f = fopen(path, "r");
    ck_assert_msg(f, "missing %s", path);
    size_t k = fread(buf, 1, len - 1, f);
    buf[k] = '\0';
    fclose(f);
}

/* A PNG graph: the signature and enough bytes to hold a real plot. */
/* A graph in the default format (svg-text, issue 26): a whole SVG document with its text
 * as <text> elements (not glyph outlines), of some size. */
static void assert_graph(const char *dir, const char *name) {
    char path[512];
    path_in(path, sizeof path, dir, name);
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f, "missing graph %s", path);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    ck_assert_msg(size > 5000, "%s: %ld bytes", path, size);
    char *text = malloc((size_t)size + 1);
    ck_assert_ptr_nonnull(text);
    size_t n = fread(text, 1, (size_t)size, f);
    text[n] = '\0';
    fclose(f);
    ck_assert_msg(strstr(text, "<svg") && strstr(text, "<text"), "%s: no <svg> with <text>", path);
    ck_assert_msg(strstr(text, "</svg>"), "%s: cut short", path);
    free(text);
}

/* Read a CSV of numbers: header into `header`, values row-major. */
typedef struct csv {
    char header[2048];
    size_t cols, rows;
    double *v;
} csv;

static void read_csv(const char *path, csv *c) {
    FILE *f = fopen(path, "r");
    ck_assert_msg(f, "missing %s", path);
    ck_assert_ptr_nonnull(fgets(c->header, sizeof c->header, f));
    c->cols = 1;
    for (const char *p = c->header; *p; ++p) c->cols += *p == ',';
    size_t cap = 1024;
    c->v = malloc(cap * c->cols * sizeof(double));
    c->rows = 0;
    char line[8192];
    while (fgets(line, sizeof line, f)) {
        if (c->rows == cap) c->v = realloc(c->v, (cap *= 2) * c->cols * sizeof(double));
        char *p = line;
        for (size_t k = 0; k < c->cols; ++k) {
            c->v[c->rows * c->cols + k] = strtod(p, &p);
            if (*p == ',') p++;
        }
        c->rows++;
    }
    fclose(f);
}

static int column(const csv *c, const char *name) {
    char copy[2048];
    snprintf(copy, sizeof copy, "%s", c->header);
    int k = 0;
    for (char *tok = strtok(copy, ",\n"); tok; tok = strtok(NULL, ",\n"), ++k)
        if (strncmp(tok, name, strlen(name)) == 0 && tok[strlen(name)] == ' ') return k;
    return -1;
}

/* Event kinds as run.toml's [status] names them (events_<kind>), with the
 * number of rows of each kind in events.csv (third field). */
enum { N_KINDS = 6 };
static const char *const kinds[N_KINDS] = {"impact", "rest", "close", "open", "stick", "slip"};

static size_t count_event_rows(const char *path, size_t counts[N_KINDS]) {
    FILE *f = fopen(path, "r");
    ck_assert_msg(f, "missing %s", path);
    char line[4096];
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f)); /* header */
    size_t rows = 0;
    for (size_t k = 0; k < N_KINDS; ++k) counts[k] = 0;
    while (fgets(line, sizeof line, f)) {
        char *p = strchr(line, ',');
        ck_assert_ptr_nonnull(p);
        p = strchr(p + 1, ',');
        ck_assert_ptr_nonnull(p);
        size_t len = strcspn(p + 1, ",\n"), k = 0;
        while (k < N_KINDS && !(strlen(kinds[k]) == len && strncmp(p + 1, kinds[k], len) == 0)) k++;
        ck_assert_msg(k < N_KINDS, "unknown event kind in %s: %s", path, line);
        counts[k]++;
        rows++;
    }
    fclose(f);
    return rows;
}

/* The integer value of "key = N" in a run record. */
static unsigned long long record_count(const char *rec, const char *key) {
    char pat[96];
    snprintf(pat, sizeof pat, "\n%s = ", key);
    const char *p = strstr(rec, pat);
    ck_assert_msg(p, "run.toml has no %s", key);
    return strtoull(p + strlen(pat), NULL, 10);
}

/* Index of the field named exactly `name` in a CSV header line. */
static int field_index(const char *header, const char *name) {
    int k = 0;
    for (const char *p = header; *p; ++k) {
        size_t len = strcspn(p, ",\n");
        if (len == strlen(name) && strncmp(p, name, len) == 0) return k;
        p += len;
        if (*p == ',')
            p++;
        else
            break;
    }
    return -1;
}

START_TEST(run_writes_data_record_and_graphs) {
    char out[256], path[512];
    path_in(out, sizeof out, tmp_root, "unstable");
    const char *args[] = {"run", NSDYN_TEST_SOURCE_DIR "/configs/towed_wheel_unstable.toml", "-o",
                          out, NULL};
    ck_assert_int_eq(nsdyn(args), 0);
    path_in(path, sizeof path, out, "timeseries.csv");
    csv c;
    read_csv(path, &c);
    ck_assert_str_eq(strtok(c.header, "\n"),
                     "t [s],psi [rad],w [m],Omega [rad/s],u1 [m/s],u2 [m/s],wheel.N [N],"
                     "wheel.Ft1 [N],wheel.Ft2 [N],slip [m/s],F_ratio [1]");
    free(c.v);
    read_csv(path, &c);               /* strtok mangled the header copy: read again */
    ck_assert_uint_eq(c.rows, 10001); /* 20 s at output_dt = 2 ms, both ends */
    int psi = column(&c, "psi"), slip = column(&c, "slip"), ratio = column(&c, "F_ratio");
    double late_amp = 0, early_slip = 0, late_slip = 0, max_ratio = 0;
    for (size_t r = 0; r < c.rows; ++r) {
        const double *row = c.v + r * c.cols;
        for (size_t k = 0; k < c.cols; ++k) ck_assert(isfinite(row[k]));
        if (row[0] >= 18) late_amp = fmax(late_amp, fabs(row[psi]));
        if (row[0] <= 5) early_slip = fmax(early_slip, row[slip]);
        if (row[0] >= 15) late_slip = fmax(late_slip, row[slip]);
        max_ratio = fmax(max_ratio, row[ratio]);
    }
    /* Rolling first (creep of order eps = 1e-3 m/s), then the stick-slip
     * cycle: shimmy amplitude bounded by slipping, friction within C. */
    ck_assert_double_lt(early_slip, 1e-3);
    ck_assert_double_gt(late_slip, 0.1);
    ck_assert_double_gt(late_amp, 0.05);
    ck_assert_double_lt(late_amp, 0.3);
    ck_assert_double_le(max_ratio, 1.0 + 1e-12);
    free(c.v);
    path_in(path, sizeof path, out, "run.toml");
    char rec[16384];
    read_text(path, rec, sizeof rec);
    ck_assert_ptr_nonnull(strstr(rec, "[provenance]\nhost = \"nsdyn "));
    ck_assert_ptr_nonnull(strstr(rec, "system = { id = \"towed_wheel\", version = \"1.0.0\""));
    ck_assert_ptr_nonnull(strstr(rec, "outcome = \"complete\""));
    ck_assert_ptr_nonnull(strstr(rec, "B2 = 0.8  # set"));
    assert_graph(out, "timeseries.svg");
    assert_graph(out, "phase.svg");
    assert_graph(out, "snapshots.svg");
    ck_assert_ptr_nonnull(strstr(out_text, "complete: t = 20 s"));

    /* The record is itself a config that reproduces the run exactly. */
    char again[256], a[512], b[512];
    path_in(again, sizeof again, tmp_root, "again");
    const char *args2[] = {"run", path, "-o", again, "-q", NULL};
    ck_assert_int_eq(nsdyn(args2), 0);
    path_in(a, sizeof a, out, "timeseries.csv");
    path_in(b, sizeof b, again, "timeseries.csv");
    csv ca, cb;
    read_csv(a, &ca);
    read_csv(b, &cb);
    ck_assert_uint_eq(ca.rows, cb.rows);
    ck_assert_mem_eq(ca.v, cb.v, ca.rows * ca.cols * sizeof(double));
    free(ca.v);
    free(cb.v);
}
END_TEST

START_TEST(compare_tabulates_and_overlays) {
    char out[256], path[512];
    path_in(out, sizeof out, tmp_root, "compare");
    const char *args[] = {"compare", NSDYN_TEST_SOURCE_DIR "/configs/towed_wheel_compare.toml",
                          "-o", out, NULL};
    ck_assert_int_eq(nsdyn(args), 0);
    path_in(path, sizeof path, out, "metrics.csv");
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char line[2048];
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    ck_assert_ptr_nonnull(strstr(line, "variant,outcome,t_reached [s],wall_median [s],wall_min [s],"
                                       "wall_max [s],repeats,steps,rhs_evals,rejected_steps,"
                                       "impacts,rests,closes,opens,sticks,slips,switches,stops,"
                                       "unlogged_roots,"));
    int col = field_index(line, "max_psi [rad]");
    ck_assert_int_gt(col, 0);
    ck_assert_int_eq(field_index(line, "configuration"), field_index(line, "final_u2 [m/s]") + 1);
    /* max_psi per variant name. */
    double dev[16];
    char names[16][64];
    size_t n = 0;
    while (n < 16 && fgets(line, sizeof line, f)) {
        char *q = strchr(line + 1, '"');
        ck_assert_ptr_nonnull(q);
        snprintf(names[n], sizeof names[n], "%.*s", (int)(q - line - 1), line + 1);
        ck_assert_ptr_nonnull(strstr(q, ",complete,"));
        ck_assert_ptr_nonnull(strstr(q, "integrator=")); /* the configuration */
        char *p = q;
        for (int comma = 0; comma < col; ++comma) p = strchr(p + 1, ',');
        dev[n++] = strtod(p + 1, NULL);
    }
    fclose(f);
    ck_assert_uint_eq(n, 8);
    ck_assert_str_eq(names[0], "bdf rtol 1e-10, eps 1e-4");
    ck_assert_double_eq(dev[0], 0.0); /* the reference against itself: exactly */
    /* Regularization converges: the deviation from eps = 1e-4 shrinks with
     * eps (variants 5, 6, 7: eps 1e-2, 1e-3, 1e-4 at the same tolerance). */
    ck_assert_str_eq(names[4], "bdf rtol 1e-8, eps 1e-2");
    ck_assert_double_gt(dev[4], 3 * dev[5]);
    ck_assert_double_gt(dev[5], 30 * dev[6]);
    /* The three integrators agree at the same eps = 1e-3 to within 1e-4 rad
     * of each other: the regularization, not the integrator, sets the error. */
    ck_assert_double_lt(fabs(dev[1] - dev[2]), 1e-4);
    ck_assert_double_lt(fabs(dev[2] - dev[3]), 1e-4);
    assert_graph(out, "timeseries.svg");
    assert_graph(out, "phase.svg");
    assert_graph(out, "deviation.svg");
    /* The compact tables name every variant in full. */
    char md[16384], tex[16384];
    path_in(path, sizeof path, out, "metrics.md");
    read_text(path, md, sizeof md);
    path_in(path, sizeof path, out, "metrics.tex");
    read_text(path, tex, sizeof tex);
    ck_assert_ptr_nonnull(strstr(tex, "\\toprule"));
    for (size_t i = 0; i < n; ++i) {
        char row[160];
        snprintf(row, sizeof row, "| %.64s |", names[i]);
        ck_assert_msg(strstr(md, row), "metrics.md lacks %s", row);
        ck_assert_msg(strstr(out_text, names[i]), "printed table lacks %s", names[i]);
    }
    for (int i = 1; i <= 8; ++i) {
        char sub[64];
        snprintf(sub, sizeof sub, "variant-%02d/timeseries.csv", i);
        path_in(path, sizeof path, out, sub);
        ck_assert_msg(exists(path), "missing %s", path);
    }
}
END_TEST

START_TEST(compare_summary_against_parameter) {
    /* The CoM sweep (Table 8): the gait metrics at the end of each run
     * against b, with L#6 falling (a result, not an error). */
    char out[256], path[512];
    path_in(out, sizeof out, tmp_root, "com_sweep");
    const char *args[] = {"compare", NSDYN_TEST_SOURCE_DIR "/configs/walker2_com_sweep.toml", "-o",
                          out, NULL};
    ck_assert_int_eq(nsdyn(args), 0);
    ck_assert_ptr_nonnull(
        strstr(out_text, "summary: value at the end of each run, against system.b [m]"));
    path_in(path, sizeof path, out, "summary.csv");
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char line[2048];
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    ck_assert_str_eq(
        line, "variant,system.b [m],outcome,step_length [m],step_period [s],hip_velocity [m/s]\n");
    /* Table 8's six CoM positions from a common start, then L#6 again from
     * a start on its own (weakly stable) gait. */
    static const char *const names[7] = {
        "L#1", "L#2", "L#3", "L#4", "L#5", "L#6", "L#6 on its gait"};
    static const double b[7] = {0.1356, 0.1547, 0.1739, 0.1930, 0.2122, 0.2313, 0.2313};
    double L[7], T[7], V[7];
    for (int i = 0; i < 7; ++i) {
        ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
        char name[32], outcome[16];
        snprintf(name, sizeof name, "\"%s\",", names[i]);
        ck_assert_msg(strncmp(line, name, strlen(name)) == 0, "row %d: %s", i + 1, line);
        char *p = line + strlen(name);
        ck_assert_double_eq_tol(strtod(p, &p), b[i], 1e-12);
        ck_assert_int_eq(*p++, ',');
        size_t k = strcspn(p, ",");
        snprintf(outcome, sizeof outcome, "%.*s", (int)k, p);
        p += k + 1;
        L[i] = strtod(p, &p);
        T[i] = strtod(p + 1, &p);
        V[i] = strtod(p + 1, &p);
        /* All walk on but L#6 from the common start, which falls. */
        ck_assert_str_eq(outcome, i == 5 ? "stopped" : "complete");
        if (i != 5) {
            ck_assert_double_gt(L[i], 0.15);
            ck_assert_double_lt(L[i], 0.20);
            ck_assert_double_gt(T[i], 0.45);
            ck_assert_double_lt(T[i], 0.55);
            ck_assert_double_gt(V[i], 0.35);
            ck_assert_double_lt(V[i], 0.48);
        }
    }
    ck_assert_ptr_null(fgets(line, sizeof line, f));
    fclose(f);
    /* The trends of the paper's Figure 13: the step shortens and the walker
     * slows as the CoM moves down the leg; L#4 as in docs/walker.md. */
    L[5] = L[6], V[5] = V[6];
    for (int i = 1; i < 6; ++i) {
        ck_assert_double_lt(L[i], L[i - 1]);
        ck_assert_double_lt(V[i], V[i - 1] + 1e-3);
    }
    ck_assert_double_eq_tol(L[3], 0.1661, 1e-4);
    ck_assert_double_eq_tol(T[3], 0.4907, 1e-4);
    ck_assert_double_eq_tol(V[3], 0.4282, 1e-4);
    assert_graph(out, "summary.svg");
    assert_graph(out, "timeseries.svg");
    path_in(path, sizeof path, out, "metrics.csv");
    ck_assert_msg(exists(path), "missing %s", path);
    path_in(path, sizeof path, out, "variant-06/run.toml");
    char rec[16384];
    read_text(path, rec, sizeof rec);
    ck_assert_ptr_nonnull(strstr(rec, "outcome = \"stopped\""));
    ck_assert_ptr_nonnull(strstr(rec, "stop condition 'fall'"));
}
END_TEST

START_TEST(run_counts_events_by_kind) {
    /* The bouncing ball: every impact and mode change is counted by kind in
     * run.toml and the summary line, as many as events.csv lists. */
    char out[256], path[512];
    path_in(out, sizeof out, tmp_root, "ball");
    const char *args[] = {"run",   NSDYN_TEST_SOURCE_DIR "/configs/bouncing_ball_newton.toml",
                          "-o",    out,
                          "--set", "plot.enabled=false",
                          NULL};
    ck_assert_int_eq(nsdyn(args), 0);
    size_t counts[N_KINDS];
    path_in(path, sizeof path, out, "events.csv");
    size_t rows = count_event_rows(path, counts);
    ck_assert_uint_gt(counts[0], 0); /* impacts */
    path_in(path, sizeof path, out, "run.toml");
    char rec[16384];
    read_text(path, rec, sizeof rec);
    for (size_t k = 0; k < N_KINDS; ++k) {
        char key[64];
        snprintf(key, sizeof key, "events_%s", kinds[k]);
        ck_assert_msg(record_count(rec, key) == counts[k], "%s: run.toml %llu, events.csv %zu", key,
                      record_count(rec, key), counts[k]);
    }
    unsigned long long switches = record_count(rec, "events_switch"),
                       stops = record_count(rec, "events_stop");
    ck_assert_uint_eq(record_count(rec, "events"), rows + switches + stops);
    ck_assert_uint_le(record_count(rec, "unlogged_roots"), record_count(rec, "root_returns"));
    char expect[64];
    snprintf(expect, sizeof expect, "; events: %zu impacts", counts[0]);
    ck_assert_msg(strstr(out_text, expect), "summary line without \"%s\": %s", expect, out_text);
    /* The counts do not stop the record from being a config. */
    char again[256];
    path_in(again, sizeof again, tmp_root, "ball-again");
    const char *args2[] = {"run", path, "-o", again, "-q", NULL};
    ck_assert_int_eq(nsdyn(args2), 0);
}
END_TEST

START_TEST(compare_counts_events_by_kind) {
    /* Event-driven against Moreau-Jean: the impacts column of metrics.csv
     * is the event-driven variant's impacts in its events.csv, and 0 for
     * time-stepping, which logs none. */
    char out[256], path[512];
    path_in(out, sizeof out, tmp_root, "ball_compare");
    const char *args[] = {
        "compare", NSDYN_TEST_SOURCE_DIR "/configs/bouncing_ball_moreau_vs_event.toml",
        "-o",      out,
        "--set",   "plot.enabled=false",
        NULL};
    ck_assert_int_eq(nsdyn(args), 0);
    size_t counts[N_KINDS];
    path_in(path, sizeof path, out, "variant-01/events.csv");
    count_event_rows(path, counts);
    ck_assert_uint_gt(counts[0], 0);
    path_in(path, sizeof path, out, "metrics.csv");
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char line[2048];
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    int col = field_index(line, "impacts");
    ck_assert_int_eq(col, 10);
    ck_assert_int_eq(field_index(line, "unlogged_roots"), 18);
    for (int i = 0; fgets(line, sizeof line, f); ++i) {
        char *p = strchr(line + 1, '"'); /* past the quoted name */
        ck_assert_ptr_nonnull(p);
        for (int c = 0; c < col; ++c) p = strchr(p + 1, ',');
        ck_assert_ptr_nonnull(p);
        unsigned long long impacts = strtoull(p + 1, NULL, 10);
        ck_assert_uint_eq(impacts, i == 0 ? counts[0] : 0);
    }
    fclose(f);
    ck_assert_ptr_nonnull(strstr(out_text, "max |Δt event| [s]")); /* the printed table */
}
END_TEST

START_TEST(failed_run_keeps_incomplete_data) {
    /* The data of a failed run go to <out>.INCOMPLETE; <out> is not made. */
    char out[256], path[512], incomplete[256];
    path_in(out, sizeof out, tmp_root, "failed");
    path_in(incomplete, sizeof incomplete, tmp_root, "failed.INCOMPLETE");
    const char *args[] = {"run",   NSDYN_TEST_SOURCE_DIR "/configs/towed_wheel_unstable.toml",
                          "-o",    out,
                          "--set", "integrator.max_steps=5000",
                          NULL};
    ck_assert_int_eq(nsdyn(args), 3);
    ck_assert_ptr_nonnull(strstr(err_text, "error: the simulation failed at t = "));
    ck_assert_ptr_nonnull(strstr(err_text, "max_steps = 5000"));
    ck_assert_ptr_nonnull(strstr(err_text, "last good state: psi = "));
    ck_assert_ptr_nonnull(strstr(err_text, "failed.INCOMPLETE/timeseries.INCOMPLETE.csv"));
    ck_assert(!exists(out));
    path_in(path, sizeof path, incomplete, "timeseries.csv");
    ck_assert(!exists(path));
    path_in(path, sizeof path, incomplete, "timeseries.INCOMPLETE.csv");
    csv c;
    read_csv(path, &c);
    ck_assert_uint_gt(c.rows, 100);
    double t_last = c.v[(c.rows - 1) * c.cols];
    ck_assert_double_gt(t_last, 1.0);
    ck_assert_double_lt(t_last, 20.0);
    free(c.v);
    path_in(path, sizeof path, incomplete, "run.toml");
    char rec[16384];
    read_text(path, rec, sizeof rec);
    ck_assert_ptr_nonnull(strstr(rec, "outcome = \"failed (data incomplete)\""));
    assert_graph(incomplete, "timeseries.svg"); /* titled INCOMPLETE */
}
END_TEST

START_TEST(informational_commands) {
    const char *version[] = {"--version", NULL};
    ck_assert_int_eq(nsdyn(version), 0);
    ck_assert_ptr_nonnull(strstr(out_text, "nsdyn 0.1.0 (plugin ABI 2.6)"));
    const char *plugins[] = {"plugins", NULL};
    ck_assert_int_eq(nsdyn(plugins), 0);
    ck_assert_ptr_nonnull(strstr(out_text, "  towed_wheel "));
    ck_assert_ptr_nonnull(strstr(out_text, "  bdf "));
    const char *describe[] = {"describe", "dopri5", NULL};
    ck_assert_int_eq(nsdyn(describe), 0);
    ck_assert_ptr_nonnull(strstr(out_text, "  rtol "));
    const char *describe_bad[] = {"describe", "dopri", NULL};
    ck_assert_int_eq(nsdyn(describe_bad), 2);
    ck_assert_ptr_nonnull(
        strstr(err_text, "error: no plugin 'dopri' in the search path; did you mean 'dopri5'?"));
    const char *unknown[] = {"simulate", "x.toml", NULL};
    ck_assert_int_eq(nsdyn(unknown), 2);
    const char *no_config[] = {"run", NULL};
    ck_assert_int_eq(nsdyn(no_config), 2);
    const char *help[] = {"--help", NULL};
    ck_assert_int_eq(nsdyn(help), 0);
    ck_assert_ptr_nonnull(strstr(out_text, "exit status: 0 success; 2 usage or config error"));
    ck_assert_ptr_nonnull(strstr(out_text, "3 the simulation failed"));
}
END_TEST

START_TEST(svg_graphs_on_request) {
    char out[256], path[512];
    path_in(out, sizeof out, tmp_root, "svg");
    const char *args[] = {"run",
                          NSDYN_TEST_SOURCE_DIR "/configs/towed_wheel_stable.toml",
                          "-o",
                          out,
                          "-q",
                          "--set",
                          "plot.format=\"svg\"",
                          NULL};
    ck_assert_int_eq(nsdyn(args), 0);
    path_in(path, sizeof path, out, "timeseries.svg");
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char head[512];
    size_t k = fread(head, 1, sizeof head - 1, f);
    head[k] = '\0';
    fclose(f);
    ck_assert_ptr_nonnull(strstr(head, "<svg"));
}
END_TEST

/* ---- outputs that never destroy a good result (issue 10) ---------------- */

/* The whole of a file; *len its size (caller frees). NULL if unreadable. */
static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0, k;
    char *buf = malloc(cap + 1);
    while ((k = fread(buf + n, 1, cap - n, f)) > 0)
        if ((n += k) == cap) buf = realloc(buf, (cap *= 2) + 1);
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

static void assert_same_file(const char *a, const char *b) {
    size_t na, nb;
    char *x = slurp(a, &na), *y = slurp(b, &nb);
    ck_assert_msg(x && y, "missing %s or %s", a, b);
    ck_assert_msg(na == nb && memcmp(x, y, na) == 0, "%s and %s differ (%zu and %zu bytes)", a, b,
                  na, nb);
    free(x);
    free(y);
}

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    ck_assert_msg(f, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

static void shell(const char *fmt, const char *a, const char *b) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd, fmt, a, b);
    ck_assert_msg(system(cmd) == 0, "failed: %s", cmd);
}

/* Entries of `parent` named .<name>.* (this run's temporary folders). */
static size_t hidden_entries(const char *parent, const char *name) {
    char prefix[300];
    snprintf(prefix, sizeof prefix, ".%s.", name);
    DIR *d = opendir(parent);
    ck_assert_ptr_nonnull(d);
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d));) n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return n;
}

/* A complete earlier result in <dir>/<name>, copied to <dir>/<name>.golden. */
static void earlier_result(const char *dir, const char *name, char *out, size_t len) {
    snprintf(out, len, "%s/%s", dir, name);
    const char *args[] = {"run",         NSDYN_TEST_SOURCE_DIR "/configs/towed_wheel_unstable.toml",
                          "-o",          out,
                          "-q",          "--set",
                          "run.t_end=1", NULL};
    ck_assert_int_eq(nsdyn(args), 0);
    shell("cp -a '%s' '%s.golden'", out, out);
}

/* The earlier result is untouched: the same files, byte for byte. */
static void assert_untouched(const char *out) {
    char golden[600];
    snprintf(golden, sizeof golden, "%s.golden", out);
    shell("diff -r '%s' '%s' > /dev/null", golden, out);
}

START_TEST(sha256_matches_the_standard) {
    /* FIPS 180-4's examples (and the usual long one), whole and in pieces
     * across the 64-byte blocks; a plugin's file against sha256sum(1). */
    char hex[65];
    nsd_sha256_hex("abc", 3, hex);
    ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    nsd_sha256_hex("", 0, hex);
    ck_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    nsd_sha256_hex(two, strlen(two), hex);
    ck_assert_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    char *million = malloc(1000000);
    memset(million, 'a', 1000000);
    nsd_sha256_hex(million, 1000000, hex);
    ck_assert_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    nsd_sha256 c;
    unsigned char digest[32];
    nsd_sha256_init(&c);
    for (size_t at = 0, step = 1; at < 1000000; at += step, step = step % 127 + 1)
        nsd_sha256_update(&c, million + at, at + step <= 1000000 ? step : 1000000 - at);
    nsd_sha256_final(&c, digest);
    ck_assert_uint_eq(digest[0], 0xcd);
    ck_assert_uint_eq(digest[31], 0xd0);
    free(million);
    const char *so = NSDYN_TEST_BINARY; /* any file will do */
    ck_assert_int_eq(nsd_sha256_file(so, hex), 0);
    char cmd[600], line[200];
    snprintf(cmd, sizeof cmd, "sha256sum '%s'", so);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    ck_assert_ptr_nonnull(fgets(line, sizeof line, p));
    pclose(p);
    ck_assert_int_eq(strncmp(line, hex, 64), 0);
}
END_TEST

START_TEST(every_config_reruns_from_its_record) {
    /* Each shipped single-run config (not the [[variant]] ones: those are
     * compare configs) and the run of its run.toml give the same CSV, byte
     * for byte: the record is runnable and faithful. */
    char dir[256];
    path_in(dir, sizeof dir, tmp_root, "records");
    mkdir(dir, 0777);
    DIR *d = opendir(NSDYN_TEST_SOURCE_DIR "/configs");
    ck_assert_ptr_nonnull(d);
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".toml") != 0) continue;
        char cfg[512], first[512], again[600], a[700], b[700], text[1 << 16];
        snprintf(cfg, sizeof cfg, "%s/configs/%s", NSDYN_TEST_SOURCE_DIR, e->d_name);
        read_text(cfg, text, sizeof text);
        if (strstr(text, "\n[[variant]]")) continue;
        snprintf(first, sizeof first, "%s/%.*s", dir, (int)(len - 5), e->d_name);
        snprintf(again, sizeof again, "%s-again", first);
        const char *args[] = {"run", cfg, "-o", first, "-q", "--set", "plot.enabled=false", NULL};
        ck_assert_msg(nsdyn(args) == 0, "%s: %s", e->d_name, err_text);
        path_in(a, sizeof a, first, "run.toml");
        read_text(a, text, sizeof text);
        ck_assert_msg(!strstr(text, "= []"), "%s: run.toml writes an empty array", e->d_name);
        const char *args2[] = {"run", a, "-o", again, "-q", NULL};
        ck_assert_msg(nsdyn(args2) == 0, "%s: its run.toml does not run: %s", e->d_name, err_text);
        path_in(a, sizeof a, first, "timeseries.csv");
        path_in(b, sizeof b, again, "timeseries.csv");
        assert_same_file(a, b);
        path_in(a, sizeof a, first, "events.csv");
        path_in(b, sizeof b, again, "events.csv");
        if (exists(a)) assert_same_file(a, b);
        n++;
    }
    closedir(d);
    ck_assert_uint_ge(n, 13);
}
END_TEST

START_TEST(record_keeps_plugin_path_and_hashes) {
    /* A config with a relative plugin_path: the record names the folder
     * absolutely, so it runs from anywhere, and gives each plugin's file
     * with its SHA-256 (as sha256sum computes it). */
    char dir[256], cfg[512], link[512], out[512], elsewhere[512], rec_path[600], again[600];
    path_in(dir, sizeof dir, tmp_root, "pp");
    mkdir(dir, 0777);
    char plugins[PATH_MAX + 16], bin[PATH_MAX];
    ck_assert_ptr_nonnull(realpath(NSDYN_TEST_BINARY, bin));
    *strrchr(bin, '/') = '\0'; /* <build>/core */
    *strrchr(bin, '/') = '\0'; /* <build> */
    snprintf(plugins, sizeof plugins, "%s/nsdyn-plugins", bin);
    path_in(link, sizeof link, dir, "plugins");
    ck_assert_int_eq(symlink(plugins, link), 0);
    char text[(1 << 16) + 64], body[1 << 16];
    read_text(NSDYN_TEST_SOURCE_DIR "/configs/towed_wheel_stable.toml", body, sizeof body);
    snprintf(text, sizeof text, "plugin_path = [\"plugins\"]\n%s", body);
    path_in(cfg, sizeof cfg, dir, "with_path.toml");
    write_text(cfg, text);
    path_in(out, sizeof out, dir, "out");
    const char *args[] = {"run", cfg, "-o", out, "-q", "--set", "plot.enabled=false", NULL};
    ck_assert_msg(nsdyn(args) == 0, "%s", err_text);
    path_in(rec_path, sizeof rec_path, out, "run.toml");
    read_text(rec_path, text, sizeof text);
    char real[PATH_MAX], want[PATH_MAX + 32];
    ck_assert_ptr_nonnull(realpath(plugins, real));
    snprintf(want, sizeof want, "\nplugin_path = [\"%s\"]", real);
    ck_assert_msg(strstr(text, want), "run.toml lacks %s:\n%s", want, text);
    size_t hashes = 0;
    for (const char *p = strstr(text, ", file = \""); p; p = strstr(p + 1, ", file = \"")) {
        char file[PATH_MAX], hex[65];
        const char *q = p + strlen(", file = \"");
        size_t len = strcspn(q, "\"");
        snprintf(file, sizeof file, "%.*s", (int)len, q);
        ck_assert_msg(file[0] == '/', "not absolute: %s", file);
        const char *h = strstr(q, "\", sha256 = \"");
        ck_assert_ptr_nonnull(h);
        snprintf(hex, sizeof hex, "%.64s", h + strlen("\", sha256 = \""));
        char cmd[PATH_MAX + 32], line[200];
        snprintf(cmd, sizeof cmd, "sha256sum '%s'", file);
        FILE *sp = popen(cmd, "r");
        ck_assert_ptr_nonnull(fgets(line, sizeof line, sp));
        pclose(sp);
        ck_assert_msg(strncmp(line, hex, 64) == 0, "%s: recorded %s, sha256sum %s", file, hex,
                      line);
        hashes++;
    }
    ck_assert_uint_eq(hashes, 3); /* system, friction, integrator */
    /* The record, moved to another folder, still runs, with the same data. */
    path_in(elsewhere, sizeof elsewhere, tmp_root, "pp-elsewhere");
    mkdir(elsewhere, 0777);
    char moved[600];
    path_in(moved, sizeof moved, elsewhere, "run.toml");
    shell("cp '%s' '%s'", rec_path, moved);
    path_in(again, sizeof again, elsewhere, "out");
    const char *args2[] = {"run", moved, "-o", again, "-q", NULL};
    ck_assert_msg(nsdyn(args2) == 0, "%s", err_text);
    char a[700], b[700];
    path_in(a, sizeof a, out, "timeseries.csv");
    path_in(b, sizeof b, again, "timeseries.csv");
    assert_same_file(a, b);
}
END_TEST

/* A long run (20 000 s of the unstable wheel, some 10^8 steps): had it
 * started, it would not end within the test's time. */
#define LONG_RUN                                                                            \
    NSDYN_TEST_SOURCE_DIR "/configs/towed_wheel_unstable.toml", "--set", "run.t_end=20000", \
        "--set", "run.output_dt=0.5", "--set", "integrator.max_steps=1000000000", "--set",  \
        "plot.enabled=false"

/* Exit 2 with `message` in stderr, and no simulation (no summary line). */
static void assert_refused(const char *out, const char *message) {
    const char *args[] = {"run", LONG_RUN, "-o", out, NULL};
    ck_assert_msg(nsdyn(args) == 2, "-o '%s': exit status not 2; stderr: %s", out, err_text);
    ck_assert_msg(strstr(err_text, message), "-o '%s': no \"%s\" in stderr: %s", out, message,
                  err_text);
    ck_assert_msg(!out_text[0], "-o '%s': something ran: %s", out, out_text);
}

START_TEST(output_folder_problems_exit_2_before_the_run) {
    char dir[256], path[600], file[512], sub[600];
    path_in(dir, sizeof dir, tmp_root, "problems");
    mkdir(dir, 0777);
    /* -o "": once read uninitialised memory. */
    assert_refused("", "error: the output folder is an empty path");
    /* An existing file: kept as it was. */
    path_in(file, sizeof file, dir, "a_file");
    write_text(file, "keep me\n");
    assert_refused(file, "is an existing file, not a folder");
    snprintf(sub, sizeof sub, "%s/below", file);
    assert_refused(sub, "a part of the path is a file, not a folder");
    char text[64];
    read_text(file, text, sizeof text);
    ck_assert_str_eq(text, "keep me\n");
    /* A symbolic link to a folder (planted, or not): not followed. */
    char target[512], link[512];
    path_in(target, sizeof target, dir, "target");
    mkdir(target, 0777);
    path_in(path, sizeof path, target, "timeseries.csv");
    write_text(path, "t [s]\n0\n");
    path_in(link, sizeof link, dir, "link");
    ck_assert_int_eq(symlink(target, link), 0);
    assert_refused(link, "is a symbolic link");
    read_text(path, text, sizeof text);
    ck_assert_str_eq(text, "t [s]\n0\n");
    /* <out>.INCOMPLETE as a link: refused too. */
    char out[512], inc[600];
    path_in(out, sizeof out, dir, "out");
    snprintf(inc, sizeof inc, "%s.INCOMPLETE", out);
    ck_assert_int_eq(symlink(target, inc), 0);
    assert_refused(out, "is a symbolic link");
    unlink(inc);
    /* A folder with files nsdyn did not write: it would replace them all. */
    char mine[512];
    path_in(mine, sizeof mine, dir, "mine");
    mkdir(mine, 0777);
    path_in(path, sizeof path, mine, "notes.txt");
    write_text(path, "my notes\n");
    assert_refused(mine, "holds 1 file that nsdyn did not write (notes.txt)");
    read_text(path, text, sizeof text);
    ck_assert_str_eq(text, "my notes\n");
    /* "." names no folder of its own. */
    assert_refused(".", "nsdyn writes its outputs to a folder of their own");
    /* compare checks the same, before any variant runs. */
    const char *cmp[] = {"compare", NSDYN_TEST_SOURCE_DIR "/configs/towed_wheel_compare.toml", "-o",
                         file, NULL};
    ck_assert_int_eq(nsdyn(cmp), 2);
    ck_assert_ptr_nonnull(strstr(err_text, "is an existing file, not a folder"));
    ck_assert_ptr_null(strstr(out_text, "[1/"));
    /* Nothing was left behind. */
    ck_assert_uint_eq(hidden_entries(dir, "out"), 0);
    ck_assert_uint_eq(hidden_entries(dir, "a_file"), 0);
    ck_assert(!exists(out));
}
END_TEST

/* limits wrote in place and returned exit 3 for output-folder problems;
 * now it takes the same path as run: problems exit 2 before anything is
 * computed, a result replaces the folder whole, an earlier one survives. */
START_TEST(limits_uses_the_output_folder_rules) {
    char dir[256], file[512], out[512];
    path_in(dir, sizeof dir, tmp_root, "limits");
    mkdir(dir, 0777);
    const char *cfg = NSDYN_TEST_SOURCE_DIR "/configs/towed_wheel_limits_rolling.toml";
    const char *empty[] = {"limits", cfg, "-o", "", NULL};
    ck_assert_int_eq(nsdyn(empty), 2);
    ck_assert_ptr_nonnull(strstr(err_text, "the output folder is an empty path"));
    path_in(file, sizeof file, dir, "a_file");
    write_text(file, "keep me\n");
    const char *onfile[] = {"limits", cfg, "-o", file, NULL};
    ck_assert_int_eq(nsdyn(onfile), 2);
    ck_assert_ptr_nonnull(strstr(err_text, "is an existing file, not a folder"));
    ck_assert_ptr_null(strstr(out_text, "limit directions at"));
    path_in(out, sizeof out, dir, "ok");
    const char *good[] = {"limits", cfg, "-o", out, NULL};
    ck_assert_int_eq(nsdyn(good), 0);
    char path[700];
    snprintf(path, sizeof path, "%s/limit_functions.csv", out);
    ck_assert(exists(path));
    assert_graph(out, "limit_directions.svg");
    ck_assert_uint_eq(hidden_entries(dir, "ok"), 0); /* no temporary folder left */
}
END_TEST

START_TEST(output_folder_without_permission_exits_2) {
    /* A parent folder nsdyn may not write in. Root may write anywhere, so
     * as root the command runs as the user nobody. */
    char parent[] = "/tmp/nsdyn-e2e-ro-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(parent));
    int root = geteuid() == 0;
    ck_assert_int_eq(chmod(parent, root ? 0755 : 0555), 0);
    char out[128];
    snprintf(out, sizeof out, "%s/out", parent);
    const char *args[] = {"run", LONG_RUN, "-o", out, NULL};
    int status = nsdyn_finish(nsdyn_start(args, root ? CHILD_NOBODY : CHILD_PLAIN));
    chmod(parent, 0755);
    int left = exists(out);
    shell("rm -rf '%s'%s", parent, "");
    ck_assert_msg(status == 2, "exit status %d; stderr: %s", status, err_text);
    ck_assert_msg(strstr(err_text, "no permission to create a folder in"), "%s", err_text);
    ck_assert(!out_text[0]);
    ck_assert(!left);
}
END_TEST

START_TEST(planted_tmp_link_is_not_followed) {
    /* A link planted where a writer once put its temporary file: the run
     * replaces the folder and the link's target keeps its content. */
    char out[512], path[600], victim[512], text[64];
    earlier_result(tmp_root, "planted", out, sizeof out);
    path_in(victim, sizeof victim, tmp_root, "victim");
    write_text(victim, "victim\n");
    path_in(path, sizeof path, out, "timeseries.csv.tmp");
    ck_assert_int_eq(symlink(victim, path), 0);
    path_in(path, sizeof path, out, "run.toml.tmp");
    ck_assert_int_eq(symlink(victim, path), 0);
    const char *args[] = {"run",
                          NSDYN_TEST_SOURCE_DIR "/configs/towed_wheel_stable.toml",
                          "-o",
                          out,
                          "-q",
                          "--set",
                          "plot.enabled=false",
                          NULL};
    ck_assert_msg(nsdyn(args) == 0, "%s", err_text);
    read_text(victim, text, sizeof text);
    ck_assert_str_eq(text, "victim\n");
    path_in(path, sizeof path, out, "timeseries.csv.tmp");
    ck_assert(!exists(path));
    path_in(path, sizeof path, out, "run.toml");
    char rec[16384];
    read_text(path, rec, sizeof rec);
    ck_assert_ptr_nonnull(strstr(rec, "towed wheel, stable"));
    path_in(path, sizeof path, out,
            "timeseries.svg"); /* the earlier run's graphs went with its folder */
    ck_assert(!exists(path));
    ck_assert_uint_eq(hidden_entries(tmp_root, "planted"), 0);
}
END_TEST

START_TEST(full_disk_keeps_the_earlier_result) {
    /* Writes fail (files limited to 64 kB, as on a full disk) once the
     * simulation is done: exit 4, nothing replaced, nothing left over. */
    char out[512], inc[600];
    earlier_result(tmp_root, "fulldisk", out, sizeof out);
    const char *args[] = {"run",   NSDYN_TEST_SOURCE_DIR "/configs/towed_wheel_unstable.toml",
                          "-o",    out,
                          "--set", "run.t_end=3",
                          NULL};
    int status = nsdyn_finish(nsdyn_start(args, CHILD_SMALL_FILES));
    ck_assert_msg(status == 4, "exit status %d; stderr: %s", status, err_text);
    ck_assert_msg(strstr(err_text, "cannot write "), "%s", err_text);
    ck_assert_msg(strstr(err_text, "nothing was replaced"), "%s", err_text);
    assert_untouched(out);
    snprintf(inc, sizeof inc, "%s.INCOMPLETE", out);
    ck_assert(!exists(inc));
    ck_assert_uint_eq(hidden_entries(tmp_root, "fulldisk"), 0);
    /* The data fit, a graph does not: once a run.toml said "complete"
     * beside missing graphs; then nothing was kept; now the data and the
     * record go to DIR.INCOMPLETE, the record saying the graphs failed
     * (issue 28), and DIR is untouched. */
    const char *args2[] = {"run",   NSDYN_TEST_SOURCE_DIR "/configs/towed_wheel_unstable.toml",
                           "-o",    out,
                           "--set", "run.t_end=0.5",
                           "--set", "plot.format=\"png\"", /* a graph larger than 64 kB */
                           NULL};
    status = nsdyn_finish(nsdyn_start(args2, CHILD_SMALL_FILES));
    ck_assert_msg(status == 4, "exit status %d; stderr: %s", status, err_text);
    ck_assert_msg(strstr(err_text, "timeseries.png"), "%s", err_text);
    assert_untouched(out);
    char kept[700], rec[1 << 14];
    snprintf(kept, sizeof kept, "%s/timeseries.INCOMPLETE.csv", inc);
    ck_assert_msg(exists(kept), "%s", err_text);
    snprintf(kept, sizeof kept, "%s/run.toml", inc);
    read_text(kept, rec, sizeof rec);
    ck_assert_msg(strstr(rec, "the graphs could not be written"), "%s", rec);
    ck_assert_uint_eq(hidden_entries(tmp_root, "fulldisk"), 0);
}
END_TEST

/* Start `args` (writing to <parent>/<name>), wait until its own folder
 * exists (the simulation is about to start), let it run `ms`, then send
 * `sig`; return the exit status. */
static int interrupt_after(const char *const *args, const char *parent, const char *name, int sig,
                           long ms) {
    pid_t pid = nsdyn_start(args, CHILD_PLAIN);
    for (int i = 0; i < 3000 && hidden_entries(parent, name) == 0; ++i) {
        if (waitpid(pid, NULL, WNOHANG) == pid)
            ck_abort_msg("nsdyn ended before it started writing");
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
    nanosleep(&(struct timespec){ms / 1000, (ms % 1000) * 1000000}, NULL);
    ck_assert_int_eq(kill(pid, sig), 0);
    return nsdyn_finish(pid);
}

START_TEST(sigint_keeps_incomplete_data_and_the_earlier_result) {
    /* Ctrl-C during a long run: exit 130; the data computed so far and the
     * record, in <out>.INCOMPLETE; the earlier result untouched. Then a
     * complete run replaces <out> and removes <out>.INCOMPLETE. */
    char out[512], inc[600], path[700];
    earlier_result(tmp_root, "sigint", out, sizeof out);
    const char *args[] = {"run", LONG_RUN, "-o", out, NULL};
    int status = interrupt_after(args, tmp_root, "sigint", SIGINT, 300);
    ck_assert_msg(status == 130, "exit status %d; stderr: %s", status, err_text);
    ck_assert_ptr_nonnull(strstr(err_text, "error: interrupted by signal 2 at t = "));
    ck_assert_ptr_nonnull(strstr(err_text, "sigint.INCOMPLETE/timeseries.INCOMPLETE.csv"));
    assert_untouched(out);
    snprintf(inc, sizeof inc, "%s.INCOMPLETE", out);
    path_in(path, sizeof path, inc, "timeseries.INCOMPLETE.csv");
    csv c;
    read_csv(path, &c);
    ck_assert_uint_ge(c.rows, 1);
    ck_assert_double_lt(c.v[(c.rows - 1) * c.cols], 20000);
    free(c.v);
    path_in(path, sizeof path, inc, "timeseries.csv");
    ck_assert(!exists(path));
    path_in(path, sizeof path, inc, "run.toml");
    char rec[16384];
    read_text(path, rec, sizeof rec);
    ck_assert_ptr_nonnull(strstr(rec, "outcome = \"failed (data incomplete)\""));
    ck_assert_ptr_nonnull(strstr(rec, "message = \"interrupted by signal 2 at t = "));
    ck_assert_uint_eq(hidden_entries(tmp_root, "sigint"), 0);
    /* A complete run: <out> replaced, the stale INCOMPLETE removed. */
    const char *args2[] = {"run",
                           NSDYN_TEST_SOURCE_DIR "/configs/towed_wheel_stable.toml",
                           "-o",
                           out,
                           "-q",
                           "--set",
                           "plot.enabled=false",
                           NULL};
    ck_assert_int_eq(nsdyn(args2), 0);
    ck_assert(!exists(inc));
    path_in(path, sizeof path, out, "run.toml");
    read_text(path, rec, sizeof rec);
    ck_assert_ptr_nonnull(strstr(rec, "towed wheel, stable"));
    ck_assert_uint_eq(hidden_entries(tmp_root, "sigint"), 0);
}
END_TEST

START_TEST(sigterm_stops_a_comparison) {
    /* SIGTERM during a comparison: exit 143; the variant that ran, with its
     * incomplete data and record, in <out>.INCOMPLETE/variant-01; the
     * earlier result untouched. */
    char out[512], path[700];
    earlier_result(tmp_root, "sigterm", out, sizeof out);
    const char *args[] = {"compare", NSDYN_TEST_SOURCE_DIR "/configs/towed_wheel_compare.toml",
                          "-o",      out,
                          "--set",   "run.t_end=20000",
                          "--set",   "run.output_dt=0.5",
                          "--set",   "integrator.max_steps=1000000000",
                          "--set",   "plot.enabled=false",
                          NULL};
    int status = interrupt_after(args, tmp_root, "sigterm", SIGTERM, 300);
    ck_assert_msg(status == 143, "exit status %d; stderr: %s", status, err_text);
    ck_assert_ptr_nonnull(
        strstr(err_text, "error: interrupted by signal 15 after 1 of 8 variants"));
    assert_untouched(out);
    snprintf(path, sizeof path, "%s.INCOMPLETE/variant-01/timeseries.INCOMPLETE.csv", out);
    ck_assert_msg(exists(path), "missing %s", path);
    snprintf(path, sizeof path, "%s.INCOMPLETE/variant-01/run.toml", out);
    char rec[16384];
    read_text(path, rec, sizeof rec);
    ck_assert_ptr_nonnull(strstr(rec, "message = \"interrupted by signal 15 at t = "));
    snprintf(path, sizeof path, "%s.INCOMPLETE/variant-02", out);
    ck_assert(!exists(path));
    snprintf(path, sizeof path, "%s.INCOMPLETE/metrics.csv", out);
    ck_assert(!exists(path));
    ck_assert_uint_eq(hidden_entries(tmp_root, "sigterm"), 0);
}
END_TEST

int main(void) {
    if (!mkdtemp(tmp_root)) return 1;
    unsetenv("NSDYN_PLUGIN_PATH");
    Suite *s = suite_create("end_to_end");
    TCase *tc = tcase_create("cli");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, run_writes_data_record_and_graphs);
    tcase_add_test(tc, compare_tabulates_and_overlays);
    tcase_add_test(tc, compare_summary_against_parameter);
    tcase_add_test(tc, run_counts_events_by_kind);
    tcase_add_test(tc, compare_counts_events_by_kind);
    tcase_add_test(tc, failed_run_keeps_incomplete_data);
    tcase_add_test(tc, informational_commands);
    tcase_add_test(tc, svg_graphs_on_request);
    tcase_add_test(tc, sha256_matches_the_standard);
    tcase_add_test(tc, every_config_reruns_from_its_record);
    tcase_add_test(tc, record_keeps_plugin_path_and_hashes);
    tcase_add_test(tc, output_folder_problems_exit_2_before_the_run);
    tcase_add_test(tc, limits_uses_the_output_folder_rules);
    tcase_add_test(tc, output_folder_without_permission_exits_2);
    tcase_add_test(tc, planted_tmp_link_is_not_followed);
    tcase_add_test(tc, full_disk_keeps_the_earlier_result);
    tcase_add_test(tc, sigint_keeps_incomplete_data_and_the_earlier_result);
    tcase_add_test(tc, sigterm_stops_a_comparison);
    suite_add_tcase(s, tc);
    int failed = test_run_suite(s);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
    if (!failed && system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmp_root);
    return failed;
}

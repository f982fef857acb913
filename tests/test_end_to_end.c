/* End to end through the nsdyn command: a run, a comparison, a failed run,
 * and the informational commands; checks the files and graphs exist and
 * hold sane numbers. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "test_util.h"

extern char **environ;
static char tmp_root[] = "/tmp/nsdyn-e2e-XXXXXX";
static char out_text[1 << 16], err_text[1 << 16];

/* Run the CLI with args; capture stdout and stderr; return exit status. */
static int nsdyn(const char *const *args) {
    const char *argv[32] = {NSDYN_TEST_BINARY};
    size_t n = 1;
    for (; args[n - 1]; ++n) argv[n] = args[n - 1];
    argv[n] = NULL;
    char out_path[256], err_path[256];
    snprintf(out_path, sizeof out_path, "%s/stdout", tmp_root);
    snprintf(err_path, sizeof err_path, "%s/stderr", tmp_root);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid;
    ck_assert_int_eq(posix_spawn(&pid, argv[0], &fa, NULL, (char *const *)argv, environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    int status;
    waitpid(pid, &status, 0);
    FILE *f = fopen(out_path, "r");
    size_t k = fread(out_text, 1, sizeof out_text - 1, f);
    out_text[k] = '\0';
    fclose(f);
    f = fopen(err_path, "r");
    k = fread(err_text, 1, sizeof err_text - 1, f);
    err_text[k] = '\0';
    fclose(f);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

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
static void assert_png(const char *dir, const char *name) {
    char path[512];
    path_in(path, sizeof path, dir, name);
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f, "missing graph %s", path);
    unsigned char sig[8];
    ck_assert_uint_eq(fread(sig, 1, 8, f), 8);
    ck_assert_mem_eq(sig, "\x89PNG\r\n\x1a\n", 8);
    fseek(f, 0, SEEK_END);
    ck_assert_int_gt(ftell(f), 20000);
    fclose(f);
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
        if (*p == ',') p++;
        else break;
    }
    return -1;
}

START_TEST(run_writes_data_record_and_graphs) {
    char out[256], path[512];
    path_in(out, sizeof out, tmp_root, "unstable");
    const char *args[] = {"run", NSDYN_TEST_SOURCE_DIR "/configs/towed_wheel_unstable.toml", "-o", out, NULL};
    ck_assert_int_eq(nsdyn(args), 0);
    path_in(path, sizeof path, out, "timeseries.csv");
    csv c;
    read_csv(path, &c);
    ck_assert_str_eq(strtok(c.header, "\n"), "t [s],psi [rad],w [m],Omega [rad/s],u1 [m/s],u2 [m/s],wheel.N [N],"
                                             "wheel.Ft1 [N],wheel.Ft2 [N],slip [m/s],F_ratio [1]");
    free(c.v);
    read_csv(path, &c); /* strtok mangled the header copy: read again */
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
    assert_png(out, "timeseries.png");
    assert_png(out, "phase.png");
    assert_png(out, "snapshots.png");
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
    const char *args[] = {"compare", NSDYN_TEST_SOURCE_DIR "/configs/towed_wheel_compare.toml", "-o", out, NULL};
    ck_assert_int_eq(nsdyn(args), 0);
    path_in(path, sizeof path, out, "metrics.csv");
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char line[2048];
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    ck_assert_ptr_nonnull(strstr(line, "variant,outcome,t_reached [s],wall_time [s],steps,rhs_evals,rejected_steps,"
                                       "impacts,rests,closes,opens,sticks,slips,switches,stops,unlogged_roots,"
                                       "max_dev_psi [rad]"));
    /* dev_psi per variant name. */
    double dev[16];
    char names[16][64];
    size_t n = 0;
    while (n < 16 && fgets(line, sizeof line, f)) {
        char *q = strchr(line + 1, '"');
        ck_assert_ptr_nonnull(q);
        snprintf(names[n], sizeof names[n], "%.*s", (int)(q - line - 1), line + 1);
        ck_assert_ptr_nonnull(strstr(q, ",complete,"));
        char *p = q;
        for (int comma = 0; comma < 16; ++comma) p = strchr(p + 1, ',');
        dev[n++] = strtod(p + 1, NULL);
    }
    fclose(f);
    ck_assert_uint_eq(n, 8);
    ck_assert_str_eq(names[0], "bdf rtol 1e-10, eps 1e-4");
    ck_assert_double_lt(dev[0], 1e-12); /* the reference against itself */
    /* Regularization converges: the deviation from eps = 1e-4 shrinks with
     * eps (variants 5, 6, 7: eps 1e-2, 1e-3, 1e-4 at the same tolerance). */
    ck_assert_str_eq(names[4], "bdf rtol 1e-8, eps 1e-2");
    ck_assert_double_gt(dev[4], 3 * dev[5]);
    ck_assert_double_gt(dev[5], 30 * dev[6]);
    /* The three integrators agree at the same eps = 1e-3 to within 1e-4 rad
     * of each other: the regularization, not the integrator, sets the error. */
    ck_assert_double_lt(fabs(dev[1] - dev[2]), 1e-4);
    ck_assert_double_lt(fabs(dev[2] - dev[3]), 1e-4);
    assert_png(out, "timeseries.png");
    assert_png(out, "phase.png");
    assert_png(out, "deviation.png");
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
    const char *args[] = {"compare", NSDYN_TEST_SOURCE_DIR "/configs/walker2_com_sweep.toml", "-o", out, NULL};
    ck_assert_int_eq(nsdyn(args), 0);
    ck_assert_ptr_nonnull(strstr(out_text, "summary: value at the end of each run, against system.b [m]"));
    path_in(path, sizeof path, out, "summary.csv");
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char line[2048];
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    ck_assert_str_eq(line, "variant,system.b [m],outcome,step_length [m],step_period [s],hip_velocity [m/s]\n");
    /* Table 8's six CoM positions from a common start, then L#6 again from
     * a start on its own (weakly stable) gait. */
    static const char *const names[7] = {"L#1", "L#2", "L#3", "L#4", "L#5", "L#6", "L#6 on its gait"};
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
    assert_png(out, "summary.png");
    assert_png(out, "timeseries.png");
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
    const char *args[] = {"run", NSDYN_TEST_SOURCE_DIR "/configs/bouncing_ball_newton.toml", "-o", out,
                          "--set", "plot.enabled=false", NULL};
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
    unsigned long long switches = record_count(rec, "events_switch"), stops = record_count(rec, "events_stop");
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
    const char *args[] = {"compare", NSDYN_TEST_SOURCE_DIR "/configs/bouncing_ball_moreau_vs_event.toml", "-o", out,
                          "--set", "plot.enabled=false", NULL};
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
    ck_assert_int_eq(col, 7);
    ck_assert_int_eq(field_index(line, "unlogged_roots"), 15);
    for (int i = 0; fgets(line, sizeof line, f); ++i) {
        char *p = strchr(line + 1, '"'); /* past the quoted name */
        ck_assert_ptr_nonnull(p);
        for (int c = 0; c < col; ++c) p = strchr(p + 1, ',');
        ck_assert_ptr_nonnull(p);
        unsigned long long impacts = strtoull(p + 1, NULL, 10);
        ck_assert_uint_eq(impacts, i == 0 ? counts[0] : 0);
    }
    fclose(f);
    ck_assert_ptr_nonnull(strstr(out_text, " rejected impacts ")); /* the printed table */
}
END_TEST

START_TEST(failed_run_keeps_incomplete_data) {
    char out[256], path[512];
    path_in(out, sizeof out, tmp_root, "failed");
    const char *args[] = {"run", NSDYN_TEST_SOURCE_DIR "/configs/towed_wheel_unstable.toml", "-o", out,
                          "--set", "integrator.max_steps=5000", NULL};
    ck_assert_int_eq(nsdyn(args), 3);
    ck_assert_ptr_nonnull(strstr(err_text, "error: the simulation failed at t = "));
    ck_assert_ptr_nonnull(strstr(err_text, "max_steps = 5000"));
    ck_assert_ptr_nonnull(strstr(err_text, "last good state: psi = "));
    path_in(path, sizeof path, out, "timeseries.csv");
    ck_assert(!exists(path));
    path_in(path, sizeof path, out, "timeseries.INCOMPLETE.csv");
    csv c;
    read_csv(path, &c);
    ck_assert_uint_gt(c.rows, 100);
    double t_last = c.v[(c.rows - 1) * c.cols];
    ck_assert_double_gt(t_last, 1.0);
    ck_assert_double_lt(t_last, 20.0);
    free(c.v);
    path_in(path, sizeof path, out, "run.toml");
    char rec[16384];
    read_text(path, rec, sizeof rec);
    ck_assert_ptr_nonnull(strstr(rec, "outcome = \"failed (data incomplete)\""));
}
END_TEST

START_TEST(informational_commands) {
    const char *version[] = {"--version", NULL};
    ck_assert_int_eq(nsdyn(version), 0);
    ck_assert_ptr_nonnull(strstr(out_text, "nsdyn 0.1.0 (plugin ABI 2.0)"));
    const char *plugins[] = {"plugins", NULL};
    ck_assert_int_eq(nsdyn(plugins), 0);
    ck_assert_ptr_nonnull(strstr(out_text, "  towed_wheel "));
    ck_assert_ptr_nonnull(strstr(out_text, "  bdf "));
    const char *describe[] = {"describe", "dopri5", NULL};
    ck_assert_int_eq(nsdyn(describe), 0);
    ck_assert_ptr_nonnull(strstr(out_text, "  rtol "));
    const char *describe_bad[] = {"describe", "dopri", NULL};
    ck_assert_int_eq(nsdyn(describe_bad), 2);
    ck_assert_ptr_nonnull(strstr(err_text, "error: no plugin 'dopri' in the search path; did you mean 'dopri5'?"));
    const char *unknown[] = {"simulate", "x.toml", NULL};
    ck_assert_int_eq(nsdyn(unknown), 2);
    const char *no_config[] = {"run", NULL};
    ck_assert_int_eq(nsdyn(no_config), 2);
    const char *help[] = {"--help", NULL};
    ck_assert_int_eq(nsdyn(help), 0);
    ck_assert_ptr_nonnull(strstr(out_text, "exit status: 0 success, 2 usage or config error, 3 the simulation failed"));
}
END_TEST

START_TEST(svg_graphs_on_request) {
    char out[256], path[512];
    path_in(out, sizeof out, tmp_root, "svg");
    const char *args[] = {"run", NSDYN_TEST_SOURCE_DIR "/configs/towed_wheel_stable.toml", "-o", out, "-q",
                          "--set", "plot.format=\"svg\"", NULL};
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
    suite_add_tcase(s, tc);
    int failed = test_run_suite(s);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
    if (!failed && system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmp_root);
    return failed;
}

/* The number writer of every CSV (numfmt.h, output.c): each number written
 * must read back with strtod as the identical double, bit for bit, and be
 * the shortest such decimal.
 *  - 4 million random bit patterns (every exponent equally likely, so
 *    subnormals, the largest finite values and tiny/huge numbers are all
 *    drawn), random integers up to 2^53 and random short decimals k / 10^j
 *    (the values a config holds), plus a fixed list of edge cases: +-0,
 *    the smallest subnormal, DBL_MIN and its neighbours, DBL_MAX, powers of
 *    ten, 2^53 +- 1, infinities;
 *  - shortest: for a random subset, no decimal with one digit fewer reads
 *    back as the same double (printf's correctly rounded %.*e of d - 1
 *    digits is the nearest such decimal, so if it fails, every one does);
 *  - the text is what a CSV reader expects: only [-+.0-9e], or inf/-inf/nan;
 *  - nsd_write_csv end to end: a wide series (rows longer than its line
 *    buffer) written to a file and read back field by field; series whose
 *    channels repeat their values (the writer copies the text of the row
 *    before) give the same text as formatting every field.
 * Random numbers: a fixed-seed xorshift, so runs are reproducible. */
#define _GNU_SOURCE /* mkstemp */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "numfmt.h"
#include "output.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;
static uint64_t next_u64(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static uint64_t bits_of(double x) {
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}
static double of_bits(uint64_t b) {
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
}

static int n_digits(const char *s) { /* significant digits: first to last non-zero */
    int n = 0, first = -1, last = -1;
    for (; *s && *s != 'e'; ++s) {
        if (*s < '0' || *s > '9') continue;
        if (*s != '0') last = n, first = first < 0 ? n : first;
        ++n;
    }
    return first < 0 ? 0 : last - first + 1;
}

/* Check one value; shortest also checks that one digit fewer cannot do.
 * Plain tests in the loops: check's assertions cost a system call each. */
static void check_one(double x, int shortest) {
    char buf[NSD_NUM_CHARS + 8];
    memset(buf, 'X', sizeof buf);
    size_t n = nsd_num_format(buf, x);
    if (n >= NSD_NUM_CHARS || buf[n] != '\0' || strlen(buf) != n)
        ck_abort_msg("%a: length %zu, text '%.*s'", x, n, NSD_NUM_CHARS, buf);
    if (isnan(x)) {
        if (strcmp(buf, "nan")) ck_abort_msg("NaN written as '%s'", buf);
        return;
    }
    if (strspn(buf, "-+.0123456789e") != n && strcmp(buf, "inf") && strcmp(buf, "-inf"))
        ck_abort_msg("unexpected text '%s'", buf);
    char *end;
    double y = strtod(buf, &end);
    if (*end != '\0') ck_abort_msg("'%s' not read whole", buf);
    if (bits_of(y) != bits_of(x)) ck_abort_msg("%a written as '%s' reads back as %a", x, buf, y);
    if (!shortest || !isfinite(x) || x == 0.0) return;
    int d = n_digits(buf);
    if (d <= 1) return;
    char fewer[64];
    snprintf(fewer, sizeof fewer, "%.*e", d - 2, x); /* d - 1 significant digits */
    if (strtod(fewer, NULL) == x) ck_abort_msg("%a: '%s' is shorter than '%s'", x, fewer, buf);
}

START_TEST(random_bit_patterns) {
    for (long i = 0; i < 4000000; ++i) {
        double x = of_bits(next_u64());
        check_one(x, i % 16 == 0);
    }
}
END_TEST

START_TEST(integers_and_short_decimals) {
    for (long i = 0; i < 1000000; ++i) {
        uint64_t u = next_u64();
        double k = (double)(u >> 11);                        /* integer < 2^53 */
        double small = (double)(int64_t)(u % 2000001) - 1e6; /* |k| <= 1e6 */
        check_one(k, i % 8 == 0);
        check_one(-k, 0);
        check_one(small / pow(10.0, (double)(u >> 59)), i % 8 == 0); /* k / 10^0..31 */
    }
}
END_TEST

START_TEST(edge_cases) {
    const double fixed[] = {0.0,
                            -0.0,
                            1.0,
                            -1.0,
                            0.1,
                            0.2,
                            0.3,
                            1.0 / 3.0,
                            2.0 / 3.0,
                            DBL_TRUE_MIN,
                            2 * DBL_TRUE_MIN,
                            DBL_MIN,
                            DBL_MIN - DBL_TRUE_MIN,
                            nextafter(DBL_MIN, 1.0),
                            DBL_MAX,
                            nextafter(DBL_MAX, 0.0),
                            DBL_EPSILON,
                            1.0 + DBL_EPSILON,
                            9007199254740992.0,
                            9007199254740993.0,
                            9007199254740991.0,
                            5e-324,
                            1.7976931348623157e308,
                            123456789012345678.0,
                            1e15,
                            1e16,
                            1e-4,
                            1e-5,
                            9.999999999999999e15,
                            HUGE_VAL,
                            -HUGE_VAL,
                            NAN};
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; ++i) {
        check_one(fixed[i], 1);
        check_one(-fixed[i], 1);
    }
    for (int e = -324; e <= 308; ++e) { /* powers of ten and their neighbours */
        char s[16];
        snprintf(s, sizeof s, "1e%d", e);
        double p = strtod(s, NULL);
        check_one(p, 1);
        check_one(nextafter(p, 0.0), 1);
        check_one(nextafter(p, HUGE_VAL), 1);
    }
    char buf[NSD_NUM_CHARS];
    nsd_num_format(buf, -0.0);
    ck_assert_str_eq(buf, "-0");
    nsd_num_format(buf, 0.1);
    ck_assert_str_eq(buf, "0.1");
    nsd_num_format(buf, 1e-5);
    ck_assert_str_eq(buf, "1e-05");
    nsd_num_format(buf, 0.0001);
    ck_assert_str_eq(buf, "0.0001");
    nsd_num_format(buf, 1e16);
    ck_assert_str_eq(buf, "1e+16");
    nsd_num_format(buf, 100.0);
    ck_assert_str_eq(buf, "100");
    nsd_num_format(buf, DBL_TRUE_MIN);
    ck_assert_str_eq(buf, "5e-324");
    nsd_num_format(buf, 2 * DBL_TRUE_MIN);
    ck_assert_str_eq(buf, "1e-323");
    nsd_num_format(buf, -HUGE_VAL);
    ck_assert_str_eq(buf, "-inf");
}
END_TEST

/* nsd_write_csv: 300 channels of random doubles (rows of ~7 kB, longer than
 * the writer's 4 kB line buffer), read back field by field. */
START_TEST(write_csv_reads_back) {
    enum { NC = 300, NR = 40 };
    static nsd_channel ch[NC];
    static double data[NC * NR];
    for (int c = 0; c < NC; ++c)
        snprintf(ch[c].name, sizeof ch[c].name, "c%d", c),
            snprintf(ch[c].unit, sizeof ch[c].unit, "m");
    for (int i = 0; i < NC * NR; ++i) {
        uint64_t u = next_u64();
        data[i] = (u & 3) ? of_bits(u >> 2 | (uint64_t)(u & 1) << 63) : -0.0;
        if (isnan(data[i])) data[i] = 1.5;
    }
    nsd_series s = {.n_channels = NC, .rows = NR, .cap = NR, .data = data};
    char path[] = "/tmp/nsdyn-numfmt-XXXXXX", err[256] = "";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    ck_assert_msg(nsd_write_csv(path, ch, &s, err, sizeof err) == 0, "%s", err);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    static char line[NC * 40];
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f)); /* header */
    ck_assert(!strncmp(line, "c0 [m],c1 [m]", 13));
    for (int r = 0; r < NR; ++r) {
        ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
        char *p = line;
        for (int c = 0; c < NC; ++c) {
            char *end;
            double y = strtod(p, &end);
            if (bits_of(y) != bits_of(data[r * NC + c]) || *end != (c + 1 < NC ? ',' : '\n'))
                ck_abort_msg("row %d col %d: %a read as %a before '%c'", r, c, data[r * NC + c], y,
                             *end);
            p = end + 1;
        }
    }
    ck_assert_ptr_null(fgets(line, sizeof line, f));
    fclose(f);
    unlink(path);
}
END_TEST

/* The writer copies a channel's text from the row before when its value is
 * the same (output.c): random shapes (1 to 40 channels) with columns that
 * are constant, switch once, alternate between two values, alternate 0 and
 * -0 (same value, other bits, other text) or are random, over more rows
 * than one 64 KiB chunk holds, must give byte for byte the text of
 * nsd_num_format field by field. */
START_TEST(write_csv_repeated_values) {
    static const int widths[] = {1, 2, 3, 7, 40};
    for (int trial = 0; trial < 10; ++trial) {
        int nc = widths[trial % 5], nr = 200000 / (nc * 12) + 50;
        nsd_channel *ch = calloc((size_t)nc, sizeof *ch);
        double *data = malloc(sizeof *data * (size_t)(nc * nr));
        ck_assert(ch && data);
        for (int c = 0; c < nc; ++c) {
            snprintf(ch[c].name, sizeof ch[c].name, "c%d", c);
            snprintf(ch[c].unit, sizeof ch[c].unit, "N");
            int kind = (int)(next_u64() % 5), at = (int)(next_u64() % (uint64_t)nr);
            double a = of_bits(next_u64() >> 2), b = (double)(next_u64() % 1000) / 8;
            for (int r = 0; r < nr; ++r) {
                double v = kind == 0   ? a
                           : kind == 1 ? (r < at ? a : b)
                           : kind == 2 ? (r % 2 ? a : b)
                           : kind == 3 ? (r % 3 ? 0.0 : -0.0)
                                       : of_bits(next_u64() >> 2);
                data[r * nc + c] = isnan(v) ? 2.5 : v;
            }
        }
        nsd_series s = {
            .n_channels = (size_t)nc, .rows = (size_t)nr, .cap = (size_t)nr, .data = data};
        char path[] = "/tmp/nsdyn-numfmt-XXXXXX", err[256] = "";
        int fd = mkstemp(path);
        ck_assert_int_ge(fd, 0);
        close(fd);
        ck_assert_msg(nsd_write_csv(path, ch, &s, err, sizeof err) == 0, "%s", err);
        FILE *f = fopen(path, "r");
        ck_assert_ptr_nonnull(f);
        static char line[40 * 40], want[40 * 40];
        ck_assert_ptr_nonnull(fgets(line, sizeof line, f)); /* header */
        for (int r = 0; r < nr; ++r) {
            size_t n = 0;
            for (int c = 0; c < nc; ++c) {
                if (c) want[n++] = ',';
                n += nsd_num_format(want + n, data[r * nc + c]);
            }
            want[n++] = '\n', want[n] = '\0';
            ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
            if (strcmp(line, want) != 0)
                ck_abort_msg("%d channels, row %d: '%s', want '%s'", nc, r, line, want);
        }
        ck_assert_ptr_null(fgets(line, sizeof line, f));
        fclose(f);
        unlink(path);
        free(ch);
        free(data);
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("numfmt");
    TCase *tc = tcase_create("round trip");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, random_bit_patterns);
    tcase_add_test(tc, integers_and_short_decimals);
    tcase_add_test(tc, edge_cases);
    tcase_add_test(tc, write_csv_reads_back);
    tcase_add_test(tc, write_csv_repeated_values);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

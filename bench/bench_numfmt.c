/* What one number of a CSV costs: the previous writer (fprintf "%.12g",
 * what output.c did until issue 26, and "%.17g", the shortest printf
 * format that always round-trips) against numfmt.h (shortest round-trip,
 * double-conversion), each into a FILE on /dev/null, and numfmt into a
 * buffer alone (what nsd_write_csv does per number before its one fwrite
 * per row).
 *
 *     build/bench/bench_numfmt [reps]      (default 15)
 *
 * The values are what a run writes: a time grid k * 1e-3 s and state-like
 * values (random in [-10, 10], full precision), one third / two thirds.
 * The variants run in turn in every repetition (interleaved), each over
 * the same 10^6 numbers; thread CPU time per number, min / median / max
 * over the repetitions. The benchmark states whether libquadmath is mapped
 * (its printf hooks put every printf of a number on glibc's slow path),
 * and exits 1 if a numfmt number does not read back as the same double. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "numfmt.h"

enum { N = 1000000 };
static double vals[N];

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int quadmath_mapped(void) {
    FILE *m = fopen("/proc/self/maps", "r");
    char line[512];
    int found = 0;
    while (m && fgets(line, sizeof line, m)) found |= strstr(line, "libquadmath") != NULL;
    if (m) fclose(m);
    return found;
}

static FILE *sink;
static char sinkbuf[1 << 16];
static size_t sink_n; /* so the buffer-only loop is not optimised away */

static void v_printf12(void) {
    for (int i = 0; i < N; ++i) fprintf(sink, ",%.12g", vals[i]);
}
static void v_printf17(void) {
    for (int i = 0; i < N; ++i) fprintf(sink, ",%.17g", vals[i]);
}
static void v_numfmt_put(void) {
    for (int i = 0; i < N; ++i) fputc_unlocked(',', sink), nsd_num_put(sink, vals[i]);
}
static void v_numfmt_buf(void) {
    size_t n = 0;
    for (int i = 0; i < N; ++i) {
        if (n > sizeof sinkbuf - NSD_NUM_CHARS - 1) sink_n += n, n = 0;
        sinkbuf[n++] = ',';
        n += nsd_num_format(sinkbuf + n, vals[i]);
    }
    sink_n += n;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    int reps = argc > 1 ? atoi(argv[1]) : 15;
    if (reps < 1 || reps > 1000) reps = 15;
    uint64_t s = 88172645463325252ull;
    for (int i = 0; i < N; ++i) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        vals[i] = i % 3 == 0 ? (i / 3) * 1e-3 : ((double)(s >> 11) / 9007199254740992.0 - 0.5) * 20;
    }
    for (int i = 0; i < N; ++i) { /* correctness first */
        char b[NSD_NUM_CHARS];
        nsd_num_format(b, vals[i]);
        if (strtod(b, NULL) != vals[i]) {
            fprintf(stderr, "FAIL: %.17g written as %s\n", vals[i], b);
            return 1;
        }
    }
    sink = fopen("/dev/null", "w");
    if (!sink) return 1;
    struct {
        const char *name;
        void (*fn)(void);
        double t[1000];
    } v[] = {{"fprintf %.12g (previous)", v_printf12, {0}},
             {"fprintf %.17g", v_printf17, {0}},
             {"numfmt into FILE (nsd_num_put)", v_numfmt_put, {0}},
             {"numfmt into a buffer (nsd_write_csv)", v_numfmt_buf, {0}}};
    enum { NV = sizeof v / sizeof *v };
    for (int k = 0; k < NV; ++k) v[k].fn(); /* warm-up */
    for (int r = 0; r < reps; ++r)
        for (int k = 0; k < NV; ++k) {
            double t0 = now_ns();
            v[k].fn();
            v[k].t[r] = (now_ns() - t0) / N;
        }
    printf("libquadmath mapped: %s\n", quadmath_mapped() ? "yes" : "no");
    printf("%-40s %8s %8s %8s  (ns per number, thread CPU, %d reps)\n", "variant", "min", "median",
           "max", reps);
    for (int k = 0; k < NV; ++k) {
        qsort(v[k].t, reps, sizeof(double), cmp);
        printf("%-40s %8.1f %8.1f %8.1f  x%.1f\n", v[k].name, v[k].t[0], v[k].t[reps / 2],
               v[k].t[reps - 1], v[0].t[reps / 2] / v[k].t[reps / 2]);
    }
    fclose(sink);
    return sink_n == 0;
}

/* Benchmark (not a test): what passing a double through memory adds to a
 * chain of dependent floating-point operations on this machine.
 *
 * bench_towed_wheel_rk4's composed run hands the slip velocity from plugin
 * to plugin through memory (rk4's stage vector -> the system's contacts()
 * -> the host's friction input -> the friction law -> lambda -> the
 * system's derivatives() -> rk4's k vector); the fused loop keeps it in
 * registers. Each hand-off is a store followed by a load of the same
 * address, which the CPU serves from its store buffer ("store-to-load
 * forwarding"). This program measures how many nanoseconds one such hop
 * adds to a latency-bound chain, so bench/README.md can account for the
 * composed/fused ratio with this machine's number rather than another's.
 *
 * The chain is x = x * a + b (one multiply and one add per iteration, each
 * waiting for the previous). Variants add, per iteration:
 *   fp hop        x stored as a double and loaded back (movsd / movsd);
 *   two fp hops   stored, loaded, stored elsewhere, loaded (a copy between
 *                 two buffers, as a host that copies a plugin's output into
 *                 another plugin's input);
 *   copy as bits  the same copy, the middle load and store done as a
 *                 64-bit integer (memcpy through uint64_t), as rhs.c copies
 *                 the slip.
 * An empty asm statement with a "memory" clobber keeps the compiler from
 * forwarding the value in a register itself. Times are the thread's CPU
 * time, best of 5.
 *
 * Usage: bench_store_forward [iterations, default 1e8]
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BARRIER() __asm__ volatile("" ::: "memory")

static double cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return 1e9 * (double)ts.tv_sec + (double)ts.tv_nsec;
}

typedef enum { V_REG, V_HOP, V_TWO_HOPS, V_BITS, N_VARIANTS } variant;

static const char *const names[N_VARIANTS] = {
    "registers only (the chain itself)",
    "+ one fp store -> load",
    "+ fp copy between two buffers",
    "+ the same copy as 64-bit integer",
};

/* ns per iteration of the chain in variant v; buf is laundered so the
 * compiler cannot keep it in registers across the barriers. */
static double run(variant v, long n, double *buf) {
    const double a = 0.999999, b = 1e-7;
    double x = 1.0;
    __asm__ volatile("" : "+r"(buf));
    double t0 = cpu_ns();
    for (long i = 0; i < n; ++i) {
        x = x * a + b;
        if (v == V_HOP) {
            buf[0] = x;
            BARRIER();
            x = buf[0];
        } else if (v == V_TWO_HOPS) {
            buf[0] = x;
            BARRIER();
            buf[1] = buf[0];
            BARRIER();
            x = buf[1];
        } else if (v == V_BITS) {
            buf[0] = x;
            BARRIER();
            uint64_t bits;
            memcpy(&bits, &buf[0], sizeof bits);
            memcpy(&buf[1], &bits, sizeof bits);
            BARRIER();
            x = buf[1];
        }
    }
    double t1 = cpu_ns();
    buf[2] = x; /* keep the result */
    return (t1 - t0) / (double)n;
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 100000000L;
    if (n < 1000) n = 1000;
    double buf[4] = {0};
    double best[N_VARIANTS];
    for (int v = 0; v < N_VARIANTS; ++v) best[v] = 1e300;
    for (int rep = 0; rep < 5; ++rep) /* interleaved, so drift hits all alike */
        for (int v = 0; v < N_VARIANTS; ++v) {
            double t = run((variant)v, n, buf);
            if (t < best[v]) best[v] = t;
        }
    /* The chain is a multiply and an add: 2 x 3 cycles on current x86
     * cores (GCC at -O2 emits mulsd + addsd), which gives the clock. */
    double ghz = 6.0 / best[V_REG];
    printf("dependent chain x = x*a + b, %ld iterations, best of 5 (thread CPU time)\n", n);
    printf("%-40s %10s %12s %14s\n", "variant", "ns/iter", "added [ns]", "added [cycles]");
    for (int v = 0; v < N_VARIANTS; ++v) {
        double add = best[v] - best[V_REG];
        printf("%-40s %10.3f %12.3f %14.1f\n", names[v], best[v], add, add * ghz);
    }
    printf("(cycles assume the chain costs 6 cycles per iteration: clock ~ %.2f GHz)\n", ghz);
    return buf[2] == 12345.0; /* never: uses the result */
}

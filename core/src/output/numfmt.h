/* Numbers as text for every data file nsdyn writes (CSV): the shortest
 * decimal that strtod reads back as the same double, bit for bit (-0 stays
 * "-0", infinities are "inf"/"-inf", any NaN is "nan").
 *
 * The digits come from Schubfach (numfmt.c): exact, with no fallback. It
 * costs a fraction of printf's "%.12g" (bench/bench_numfmt.c), which also
 * goes through glibc's slow path once libquadmath's printf hooks are
 * registered (LAPACKE pulls libquadmath in); numfmt uses no printf. */
#ifndef NSD_NUMFMT_H
#define NSD_NUMFMT_H

#include <stddef.h>
#include <stdio.h>

/* Enough for any double: sign, 17 digits, point, "e-324", NUL. */
#define NSD_NUM_CHARS 32

/* Write x into buf (at least NSD_NUM_CHARS bytes) with a NUL; return the
 * length. Plain notation for 1e-4 <= |x| < 1e16 (0.0001, 123.5, 100000),
 * scientific otherwise (1e-05, 1.5e+16), as %g writes them. */
size_t nsd_num_format(char *buf, double x);

/* fputs of nsd_num_format(x), without stdio's lock: f must not be written
 * by two threads at once. Stream errors stay in the stream (ferror), as
 * for fprintf. */
void nsd_num_put(FILE *f, double x);

#endif

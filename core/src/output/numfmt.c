/* The shortest round-trip decimal of a double (numfmt.h), by Schubfach:
 * R. Giulietti, "The Schubfach way to render doubles" (2020; the algorithm
 * of Java 19's Double.toString). With v = c 2^q, the rounding interval
 * [vl, vr] of v (the reals that read back as v) is scaled by 10^-k, chosen
 * so the scaled interval holds one or two integers of the shortest length;
 * the scaled bounds come from one 126-bit table entry of 10^-k
 * (numfmt_table.h) with "round to odd", which keeps every comparison exact
 * (paper, sections 8-10). Among the decimals in the interval the one with
 * the fewest digits is chosen, ties to the one nearest v, exact ties to
 * even: the decimal strtod reads back as v.
 *
 * Cost: three 64 x 128-bit products and a few comparisons, then the
 * digits two at a time. No locale, no allocation, no global state. */
#define _GNU_SOURCE /* fwrite_unlocked */
#include "numfmt.h"

#include <stdint.h>
#include <string.h>

#include "numfmt_table.h"

enum { K_MIN = -324, Q_MIN = -1074 };
#define C_MIN (UINT64_C(1) << 52) /* the hidden bit */
#define MASK_63 ((UINT64_C(1) << 63) - 1)

typedef unsigned __int128 u128;

static inline uint64_t mul_high(uint64_t a, uint64_t b) { return (uint64_t)(((u128)a * b) >> 64); }

/* floor(e log10 2), floor(log10(3/4 2^e)) and floor(e log2 10), exact for
 * |e| within the double range (paper, section 6).
 * The right shifts of negative values are arithmetic (GCC, Clang). */
static inline int flog10pow2(int e) { return (int)((int64_t)e * 661971961083 >> 41); }
static inline int flog10_three_quarters_pow2(int e) {
    return (int)(((int64_t)e * 661971961083 - 274743187321) >> 41);
}
static inline int flog2pow10(int e) { return (int)((int64_t)e * 913124641741 >> 38); }

/* cp g 2^-127 rounded to odd: the low bit says "not exact" (paper, 9). */
static inline uint64_t round_odd(uint64_t g1, uint64_t g0, uint64_t cp) {
    uint64_t x1 = mul_high(g0, cp);
    u128 y = (u128)g1 * cp;
    uint64_t y0 = (uint64_t)y, y1 = (uint64_t)(y >> 64);
    uint64_t z = (y0 >> 1) + x1;
    uint64_t vbp = y1 + (z >> 63);
    return vbp | (((z & MASK_63) + MASK_63) >> 63);
}

/* The shortest decimal f 10^e of c 2^q; dk: -1 when c was scaled by 10. */
static void to_decimal(int q, uint64_t c, int dk, uint64_t *f, int *e) {
    uint64_t out = c & 1, cb = c << 2, cbr = cb + 2, cbl;
    int k;
    if (c != C_MIN || q == Q_MIN) {
        cbl = cb - 2;
        k = flog10pow2(q);
    } else { /* at a power of two the interval below is half as wide */
        cbl = cb - 1;
        k = flog10_three_quarters_pow2(q);
    }
    int h = q + flog2pow10(-k) + 2; /* 1 .. 4 */
    uint64_t g1 = numfmt_g[k - K_MIN][0], g0 = numfmt_g[k - K_MIN][1];
    uint64_t vb = round_odd(g1, g0, cb << h), vbl = round_odd(g1, g0, cbl << h),
             vbr = round_odd(g1, g0, cbr << h);
    uint64_t s = vb >> 2;
    *e = k + dk;
    /* One digit fewer: s rounded down/up to a multiple of 10. The paper
     * (and Java) tries it from s >= 100 only, as Java prints at least two
     * digits; from 10 on, the subnormals whose shortest decimal has one
     * digit get it (9.9e-323 becomes 1e-322). s / 10 = mul_high exactly
     * for s < 2^63. */
    if (s >= 10) {
        uint64_t sp10 = 10 * mul_high(s, UINT64_C(115292150460684698) << 4), tp10 = sp10 + 10;
        int upin = vbl + out <= sp10 << 2, wpin = (tp10 << 2) + out <= vbr;
        if (upin != wpin) {
            *f = upin ? sp10 : tp10;
            return;
        }
    }
    uint64_t t = s + 1;
    int uin = vbl + out <= s << 2, win = (t << 2) + out <= vbr;
    if (uin != win) {
        *f = uin ? s : t;
        return;
    }
    /* both in the interval: the nearer to v, ties to even */
    int64_t cmp = (int64_t)(vb - ((s + t) << 1));
    *f = cmp < 0 || (cmp == 0 && (s & 1) == 0) ? s : t;
}

static const char two_digits[201] = "00010203040506070809101112131415161718192021222324"
                                    "25262728293031323334353637383940414243444546474849"
                                    "50515253545556575859606162636465666768697071727374"
                                    "75767778798081828384858687888990919293949596979899";

/* The digits of f (no leading zeros) into d; returns their count. */
static int digits(uint64_t f, char d[20]) {
    char tmp[20];
    int n = 20;
    while (f >= 100) {
        uint64_t r = f % 100;
        f /= 100;
        n -= 2;
        memcpy(tmp + n, two_digits + 2 * r, 2);
    }
    if (f >= 10) {
        n -= 2;
        memcpy(tmp + n, two_digits + 2 * f, 2);
    } else {
        tmp[--n] = (char)('0' + f);
    }
    memcpy(d, tmp + n, (size_t)(20 - n));
    return 20 - n;
}

/* f 10^e laid out as %g would: plain for 1e-4 <= |x| < 1e16. */
static size_t layout(char *buf, size_t n, uint64_t f, int e) {
    while (f % 10 == 0) f /= 10, ++e; /* f > 0 here */
    char d[20];
    int nd = digits(f, d), x = e + nd - 1; /* x: the exponent of the first digit */
    if (x < -4 || x >= 16) {
        buf[n++] = d[0];
        if (nd > 1) {
            buf[n++] = '.';
            memcpy(buf + n, d + 1, (size_t)nd - 1), n += (size_t)nd - 1;
        }
        buf[n++] = 'e';
        buf[n++] = x < 0 ? '-' : '+';
        unsigned ax = (unsigned)(x < 0 ? -x : x);
        if (ax >= 100) buf[n++] = (char)('0' + ax / 100), ax %= 100;
        memcpy(buf + n, two_digits + 2 * ax, 2), n += 2;
    } else if (x >= 0) {
        if (nd <= x + 1) {
            memcpy(buf + n, d, (size_t)nd), n += (size_t)nd;
            memset(buf + n, '0', (size_t)(x + 1 - nd)), n += (size_t)(x + 1 - nd);
        } else {
            memcpy(buf + n, d, (size_t)x + 1), n += (size_t)x + 1;
            buf[n++] = '.';
            memcpy(buf + n, d + x + 1, (size_t)(nd - x - 1)), n += (size_t)(nd - x - 1);
        }
    } else {
        buf[n++] = '0', buf[n++] = '.';
        memset(buf + n, '0', (size_t)(-x - 1)), n += (size_t)(-x - 1);
        memcpy(buf + n, d, (size_t)nd), n += (size_t)nd;
    }
    buf[n] = '\0';
    return n;
}

size_t nsd_num_format(char *buf, double x) {
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    uint64_t t = bits & (C_MIN - 1);
    int bq = (int)(bits >> 52 & 0x7ff);
    size_t n = 0;
    if (bq == 0x7ff) {
        const char *word = t ? "nan" : bits >> 63 ? "-inf" : "inf";
        size_t len = strlen(word);
        memcpy(buf, word, len + 1);
        return len;
    }
    if (bits >> 63) buf[n++] = '-';
    uint64_t f;
    int e;
    if (bq != 0) {
        int mq = 1075 - bq; /* v = c 2^-mq */
        uint64_t c = C_MIN | t;
        if (mq > 0 && mq < 53 && ((c >> mq) << mq) == c) /* an integer below 2^53 */
            return layout(buf, n, c >> mq, 0);
        to_decimal(-mq, c, 0, &f, &e);
    } else if (t != 0) { /* subnormal: the two smallest scaled by 10 (paper, section 10) */
        if (t < 3)
            to_decimal(Q_MIN, 10 * t, -1, &f, &e);
        else
            to_decimal(Q_MIN, t, 0, &f, &e);
    } else {
        buf[n++] = '0', buf[n] = '\0';
        return n;
    }
    return layout(buf, n, f, e);
}

/* Unlocked: a stream written by one thread at a time (every CSV writer);
 * the lock of fwrite costs as much as the digits. */
void nsd_num_put(FILE *f, double x) {
    char buf[NSD_NUM_CHARS];
    fwrite_unlocked(buf, 1, nsd_num_format(buf, x), f);
}

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

static const uint64_t pow10_u64[18] = {1,
                                       10,
                                       100,
                                       1000,
                                       10000,
                                       100000,
                                       1000000,
                                       10000000,
                                       100000000,
                                       1000000000,
                                       10000000000,
                                       100000000000,
                                       1000000000000,
                                       10000000000000,
                                       100000000000000,
                                       1000000000000000,
                                       10000000000000000,
                                       100000000000000000};

/* The number of decimal digits of 0 < f < 10^17: floor(log10 f) + 1 from
 * the bit length (1233 / 4096 ~ log10 2), corrected by one comparison. */
static inline int count_digits(uint64_t f) {
    int t = ((64 - __builtin_clzll(f)) * 1233) >> 12;
    return t + 1 - (f < pow10_u64[t]);
}

/* Digit i of a number's digits goes to s[i + (i > x)]: the point comes
 * after digit x (x >= the count: no point among them). Two at a time. */
static inline void put_pair(char *s, int i, int x, uint32_t r) {
    const char *two = two_digits + 2 * r;
    if (i == x) {
        s[i] = two[0], s[i + 2] = two[1];
    } else {
        memcpy(s + i + (i > x), two, 2);
    }
}

/* The nd digits of f (no leading zeros) into s around the point after
 * digit x, from the last: the low eight by 32-bit arithmetic, then the rest
 * (f < 10^17: below 10^9). Written where they stay, never copied: a copy
 * would load the bytes just stored, which stalls the CPU until the stores
 * retire (bench/bench_numfmt.c). */
static void put_digits(uint64_t f, char *s, int nd, int x) {
    int i = nd;
    if (f >= 100000000) {
        uint64_t hi = f / 100000000;
        uint32_t lo = (uint32_t)(f - 100000000 * hi);
        for (int k = 0; k < 4; ++k) {
            uint32_t q = lo / 100;
            i -= 2;
            put_pair(s, i, x, lo - 100 * q);
            lo = q;
        }
        f = hi;
    }
    uint32_t u = (uint32_t)f;
    for (; u >= 100; u /= 100) {
        i -= 2;
        put_pair(s, i, x, u % 100);
    }
    if (u >= 10) {
        put_pair(s, i - 2, x, u);
    } else {
        --i;
        s[i + (i > x)] = (char)('0' + u);
    }
}

/* f 10^e laid out as %g would: plain for 1e-4 <= |x| < 1e16. s holds
 * NSD_NUM_CHARS; the text ends with a NUL at the returned length. */
static size_t layout(char *s, size_t n, uint64_t f, int e) {
    /* f > 0 here; its trailing zeros into e, eight, four, two, one at a time */
    while (f % 100000000 == 0) f /= 100000000, e += 8;
    if (f % 10000 == 0) f /= 10000, e += 4;
    if (f % 100 == 0) f /= 100, e += 2;
    if (f % 10 == 0) f /= 10, e += 1;
    int nd = count_digits(f), x = e + nd - 1; /* x: the exponent of the first digit */
    if (x < -4 || x >= 16) {                  /* d.ddde+XX */
        put_digits(f, s + n, nd, 0);
        if (nd > 1) s[n + 1] = '.';
        n += (size_t)nd + (nd > 1);
        s[n++] = 'e';
        s[n++] = x < 0 ? '-' : '+';
        unsigned ax = (unsigned)(x < 0 ? -x : x);
        if (ax >= 100) s[n++] = (char)('0' + ax / 100), ax %= 100;
        memcpy(s + n, two_digits + 2 * ax, 2), n += 2;
    } else if (x >= nd - 1) { /* an integer: zeros after the digits */
        put_digits(f, s + n, nd, nd);
        memset(s + n + nd, '0', (size_t)(x + 1 - nd));
        n += (size_t)x + 1;
    } else if (x >= 0) { /* the point after x + 1 digits */
        put_digits(f, s + n, nd, x);
        s[n + (size_t)x + 1] = '.';
        n += (size_t)nd + 1;
    } else { /* 0.000ddd: at most three zeros after the point */
        memcpy(s + n, "0.000", 5);
        n += (size_t)(1 - x);
        put_digits(f, s + n, nd, nd);
        n += (size_t)nd;
    }
    s[n] = '\0';
    return n;
}

size_t nsd_num_format(char *s, double x) {
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    uint64_t t = bits & (C_MIN - 1);
    int bq = (int)(bits >> 52 & 0x7ff);
    size_t n = 0;
    if (bq == 0x7ff) {
        const char *word = t ? "nan" : bits >> 63 ? "-inf" : "inf";
        size_t len = strlen(word);
        memcpy(s, word, len + 1);
        return len;
    }
    if (bits >> 63) s[n++] = '-';
    uint64_t f;
    int e;
    if (bq != 0) {
        int mq = 1075 - bq; /* v = c 2^-mq */
        uint64_t c = C_MIN | t;
        if (mq > 0 && mq < 53 && ((c >> mq) << mq) == c) /* an integer below 2^53 */
            return layout(s, n, c >> mq, 0);
        to_decimal(-mq, c, 0, &f, &e);
    } else if (t != 0) { /* subnormal: the two smallest scaled by 10 (paper, section 10) */
        if (t < 3)
            to_decimal(Q_MIN, 10 * t, -1, &f, &e);
        else
            to_decimal(Q_MIN, t, 0, &f, &e);
    } else {
        s[n++] = '0', s[n] = '\0';
        return n;
    }
    return layout(s, n, f, e);
}

/* Unlocked: a stream written by one thread at a time (every CSV writer);
 * the lock of fwrite costs as much as the digits. */
void nsd_num_put(FILE *f, double x) {
    char buf[NSD_NUM_CHARS];
    fwrite_unlocked(buf, 1, nsd_num_format(buf, x), f);
}

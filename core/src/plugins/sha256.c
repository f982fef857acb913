/* SHA-256 from FIPS 180-4 (sha256.h). Section numbers refer to the standard;
 * tests/test_end_to_end.c checks its example messages and sha256sum(1). */
#define _POSIX_C_SOURCE 200809L
#include "sha256.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* 4.2.2: the first 32 bits of the fractional parts of the cube roots of
 * the first 64 primes. */
static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t rotr(uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); }

/* 6.2.2: one 512-bit block. */
static void compress(uint32_t h[8], const unsigned char *p) {
    uint32_t w[64];
    for (int t = 0; t < 16; ++t)
        w[t] = (uint32_t)p[4 * t] << 24 | (uint32_t)p[4 * t + 1] << 16 |
               (uint32_t)p[4 * t + 2] << 8 | (uint32_t)p[4 * t + 3];
    for (int t = 16; t < 64; ++t) {
        uint32_t s0 =
            rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);          /* sigma0 (4.6) */
        uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10); /* sigma1 (4.7) */
        w[t] = s1 + w[t - 7] + s0 + w[t - 16];
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
    for (int t = 0; t < 64; ++t) {
        uint32_t S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25); /* Sigma1 (4.5) */
        uint32_t ch = (e & f) ^ (~e & g);                     /* Ch (4.2) */
        uint32_t t1 = k + S1 + ch + K[t] + w[t];
        uint32_t S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22); /* Sigma0 (4.4) */
        uint32_t maj = (a & b) ^ (a & c) ^ (b & c);           /* Maj (4.3) */
        uint32_t t2 = S0 + maj;
        k = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += k;
}

void nsd_sha256_init(nsd_sha256 *c) {
    /* 5.3.3: the first 32 bits of the fractional parts of the square roots
     * of the first 8 primes. */
    static const uint32_t H0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(c->h, H0, sizeof H0);
    c->bits = 0;
    c->fill = 0;
}

void nsd_sha256_update(nsd_sha256 *c, const void *data, size_t len) {
    const unsigned char *p = data;
    c->bits += (uint64_t)len * 8;
    while (len) {
        size_t take = 64 - c->fill < len ? 64 - c->fill : len;
        memcpy(c->block + c->fill, p, take);
        c->fill += take;
        p += take;
        len -= take;
        if (c->fill == 64) {
            compress(c->h, c->block);
            c->fill = 0;
        }
    }
}

void nsd_sha256_final(nsd_sha256 *c, unsigned char digest[32]) {
    /* 5.1.1: a 1 bit, zeros to 448 mod 512, then the length as 64 bits. */
    uint64_t bits = c->bits;
    c->block[c->fill++] = 0x80;
    if (c->fill > 56) {
        memset(c->block + c->fill, 0, 64 - c->fill);
        compress(c->h, c->block);
        c->fill = 0;
    }
    memset(c->block + c->fill, 0, 56 - c->fill);
    for (int i = 0; i < 8; ++i) c->block[56 + i] = (unsigned char)(bits >> (56 - 8 * i));
    compress(c->h, c->block);
    for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 4; ++j) digest[4 * i + j] = (unsigned char)(c->h[i] >> (24 - 8 * j));
    memset(c, 0, sizeof *c);
}

static void to_hex(const unsigned char digest[32], char hex[65]) {
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < 32; ++i) {
        hex[2 * i] = digits[digest[i] >> 4];
        hex[2 * i + 1] = digits[digest[i] & 15];
    }
    hex[64] = '\0';
}

void nsd_sha256_hex(const void *data, size_t len, char hex[65]) {
    nsd_sha256 c;
    unsigned char digest[32];
    nsd_sha256_init(&c);
    nsd_sha256_update(&c, data, len);
    nsd_sha256_final(&c, digest);
    to_hex(digest, hex);
}

int nsd_sha256_file(const char *path, char hex[65]) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    nsd_sha256 c;
    nsd_sha256_init(&c);
    unsigned char buf[1 << 15];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) nsd_sha256_update(&c, buf, n);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        errno = EIO;
        return -1;
    }
    unsigned char digest[32];
    nsd_sha256_final(&c, digest);
    to_hex(digest, hex);
    return 0;
}

/* The PNG's physical resolution: a pHYs chunk (PNG 1.2, section 4.2.4.2)
 * put into the file cairo wrote, which has none, so that a journal's
 * system or an image editor reads the figure at [plot] dpi instead of its
 * 72 dpi default (issue 26). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot_internal.h"

/* CRC-32 of PNG chunks (ISO 3309, polynomial 0xEDB88320, as PNG 1.2 section
 * 3.4 and its annex D give it), bit by bit: 21 bytes per figure. */
static uint32_t crc32_png(const unsigned char *p, size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; ++i) {
        c ^= p[i];
        for (int k = 0; k < 8; ++k) c = c & 1u ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    }
    return c ^ 0xFFFFFFFFu;
}

static void put_be32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)(v >> 24), p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8), p[3] = (unsigned char)v;
}

static uint32_t get_be32(const unsigned char *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static unsigned char *read_all(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    long sz = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    unsigned char *buf = sz > 0 && fseek(f, 0, SEEK_SET) == 0 ? malloc((size_t)sz) : NULL;
    if (buf && fread(buf, 1, (size_t)sz, f) != (size_t)sz) free(buf), buf = NULL;
    fclose(f);
    *n = buf ? (size_t)sz : 0;
    return buf;
}

int png_set_dpi(const char *path, double dpi, char *err, size_t err_len) {
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    size_t n = 0;
    unsigned char *png = read_all(path, &n);
    /* the signature, then IHDR first (13 bytes of data): the chunk goes after it */
    const size_t at = 8 + 8 + 13 + 4;
    if (!png || n < at || memcmp(png, sig, 8) != 0 || get_be32(png + 8) != 13 ||
        memcmp(png + 12, "IHDR", 4) != 0) {
        free(png);
        set_err(err, err_len, "plot: '%s' is not a PNG cairo wrote (no IHDR)", path);
        return -1;
    }
    /* pixels per metre, the only unit PNG has: 300 dpi = 11811 px/m (rounded;
     * read back as 299.9994 dpi, which every reader rounds to 300) */
    uint32_t ppm = (uint32_t)lround(dpi / 0.0254);
    unsigned char chunk[4 + 4 + 9 + 4];
    put_be32(chunk, 9);
    memcpy(chunk + 4, "pHYs", 4);
    put_be32(chunk + 8, ppm);
    put_be32(chunk + 12, ppm);
    chunk[16] = 1; /* unit: the metre */
    put_be32(chunk + 17, crc32_png(chunk + 4, 4 + 9));
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(png, 1, at, f) == at &&
             fwrite(chunk, 1, sizeof chunk, f) == sizeof chunk &&
             fwrite(png + at, 1, n - at, f) == n - at;
    if (f && fclose(f) != 0) ok = 0;
    free(png);
    if (!ok) set_err(err, err_len, "plot: cannot write the resolution into '%s'", path);
    return ok ? 0 : -1;
}

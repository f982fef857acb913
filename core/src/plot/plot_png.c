/* The PNG file of a figure: PLplot's memcairo device draws into an RGB buffer
 * (plot_write.c), and this file encodes it with libpng (issue 26).
 *
 * Why not pngcairo: cairo writes its PNGs through libpng at zlib's default level with
 * every filter tried on every row, and has no setting for either; that was 55 % of a
 * short run with its default graphs (bench/bench_startup.py). A figure is mostly
 * flat colour: the "up" filter (PNG 1.2, section 6.3: each byte minus the one above)
 * turns every row that repeats the one above into zeros, and zlib's fastest level (1)
 * compresses those. The pixels are cairo's, unchanged; the files are about 30 % larger;
 * bench_startup.py's run with its three default graphs takes 0.6 of the CPU time it took
 * with pngcairo (bench/README.md, "Graphs through memcairo").
 *
 * The physical resolution: a pHYs chunk (PNG 1.2, section 4.2.4.2) at [plot] dpi, so
 * that a journal's system or an image editor reads the figure at that dpi instead of
 * its 72 dpi default. */
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>
#include <zlib.h>

#include "plot_internal.h"

/* libpng's errors: the message straight into the caller's err (nothing of
 * png_write_rgb's frame changes between its setjmp and the longjmp), then back to that
 * setjmp (libpng's own jump buffer, png_jmpbuf). */
typedef struct png_failure {
    char *err;
    size_t err_len;
} png_failure;

static void on_png_error(png_structp p, png_const_charp msg) {
    const png_failure *fail = png_get_error_ptr(p);
    set_err(fail->err, fail->err_len, "plot: PNG encoding failed: %s", msg ? msg : "?");
    png_longjmp(p, 1);
}

static void on_png_warning(png_structp p, png_const_charp msg) {
    (void)p;
    (void)msg; /* nothing a figure's writer could act on */
}

int png_write_rgb(FILE *f, const unsigned char *rgb, int width_px, int height_px, double dpi,
                  char *err, size_t err_len) {
    png_failure fail = {err, err_len};
    png_structp p =
        png_create_write_struct(PNG_LIBPNG_VER_STRING, &fail, on_png_error, on_png_warning);
    png_infop info = p ? png_create_info_struct(p) : NULL;
    if (info == NULL) {
        png_destroy_write_struct(&p, NULL);
        set_err(err, err_len, "plot: out of memory for the PNG encoder");
        return -1;
    }
    if (setjmp(png_jmpbuf(p))) {
        png_destroy_write_struct(&p, &info); /* err: set by on_png_error */
        return -1;
    }
    png_init_io(p, f);
    png_set_IHDR(p, info, (png_uint_32)width_px, (png_uint_32)height_px, 8, PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (dpi > 0) {
        /* pixels per metre, the only unit PNG has: 300 dpi = 11811 px/m (rounded; read
         * back as 299.9994 dpi, which every reader rounds to 300) */
        png_uint_32 ppm = (png_uint_32)lround(dpi / 0.0254);
        png_set_pHYs(p, info, ppm, ppm, PNG_RESOLUTION_METER);
    }
    png_set_filter(p, PNG_FILTER_TYPE_BASE, PNG_FILTER_UP);
    png_set_compression_level(p, Z_BEST_SPEED);
    png_write_info(p, info);
    for (int y = 0; y < height_px; ++y)
        png_write_row(p, rgb + (size_t)y * (size_t)width_px * 3); /* memcairo: rows top first */
    png_write_end(p, info);
    png_destroy_write_struct(&p, &info);
    return 0;
}

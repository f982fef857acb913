/* nsdyn plotting module: nsd_plot_write. Checks the figure, draws it on a fresh PLplot
 * stream into path + ".tmp", checks the output and renames it into place.
 *
 *  - Every figure gets a fresh PLplot stream (plmkstrm); the caller's current
 *    stream is restored afterwards. The output file is opened here and handed
 *    to PLplot with plsfile (PLplot closes it in plend1), so PLplot never runs
 *    its interactive "Enter graphics output file name" / device prompts. A PNG
 *    is drawn into memory instead (memcairo, plsmem) and the file written here
 *    (plot_png.c), so the file stays this module's.
 *  - PLplot reports recoverable errors through plabort (captured with plsError
 *    into a buffer instead of stderr) and fatal ones through plexit, which
 *    calls exit(). The exit handler installed here longjmps back into
 *    nsd_plot_write, which cleans up and returns -1. PLplot's handler
 *    signature carries no user pointer, so the jump target has to be reachable
 *    from file scope: `active_guard` is the single piece of module state,
 *    non-NULL only while nsd_plot_write runs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot_internal.h"

/* Lives on the heap (not an automatic object of nsd_plot_write), so what the
 * handlers and PLplot write into it is well defined after a longjmp. */
typedef struct plot_guard {
    jmp_buf jb;
    char fatal_msg[256];
    int fatal;
    char abort_msg[256];
    int aborted;
    PLINT pl_errcode;     /* plsError: set by plabort */
    char pl_errmsg[4096]; /* plsError: plabort sprintf()s here, unbounded: keep it large */
    /* What the cleanup after a longjmp needs: here rather than in automatic (volatile)
       variables of nsd_plot_write, so the steps of nsd_plot_write can be functions. */
    FILE *fp;                 /* the output file while this module still owns it */
    PLINT old_strm;           /* the caller's current stream; -1 before it is known */
    int stream_made;          /* 0 none, 1 our stream exists, 2 cleaning it up */
    int file_owned_by_plplot; /* plinit succeeded with fp handed to PLplot: plend1 closes it */
    int initialised;          /* plinit succeeded */
    unsigned char *pixels;    /* PNG: the RGB image memcairo draws into (3 bytes a pixel) */
    int width_px, height_px;  /* its size */
    /* The layout report (NSDYN_PLOT_LAYOUT): written into memory while drawing, appended
       to the file only when the figure was written. */
    FILE *report;
    char *report_buf;
    size_t report_len;
} plot_guard;

/* The only module state: see the implementation notes at the top. */
static plot_guard *active_guard;

static void copy_msg(char *dst, size_t len, const char *src) {
    snprintf(dst, len, "%s", src ? src : "");
    for (char *p = dst; *p; ++p)
        if (*p == '\n' || *p == '\r') *p = ' ';
}

static int on_plplot_exit(const char *msg) {
    plot_guard *g = active_guard;
    if (g == NULL) return 1; /* not ours: PLplot exits as usual */
    if (!g->fatal) copy_msg(g->fatal_msg, sizeof g->fatal_msg, msg); /* keep the first reason */
    g->fatal = 1;
    longjmp(g->jb, 1);
}

static void on_plplot_abort(const char *msg) {
    plot_guard *g = active_guard;
    if (g == NULL || g->aborted) return;
    copy_msg(g->abort_msg, sizeof g->abort_msg, msg);
    g->aborted = 1;
}

static int device_available(const char *dev) {
    enum { MAXDEV = 128 };
    const char *menu[MAXDEV], *names[MAXDEV];
    const char **pm = menu, **pn = names;
    int ndev = MAXDEV;
    plgDevs(&pm, &pn, &ndev);
    for (int i = 0; i < ndev && i < MAXDEV; ++i)
        if (names[i] != NULL && strcmp(names[i], dev) == 0) return 1;
    return 0;
}

/* The checks of one panel (index i, for the message). */
static int validate_panel(const nsd_panel *p, size_t i, char *err, size_t err_len) {
    if (p->n_curves > 0 && p->curves == NULL) {
        set_err(err, err_len, "plot: panel %zu: %zu curves but no curve array", i, p->n_curves);
        return -1;
    }
    if (p->n_vlines > 0 && p->vlines == NULL) {
        set_err(err, err_len, "plot: panel %zu: %zu event lines but no array", i, p->n_vlines);
        return -1;
    }
    if (p->legend_position < 0 || p->legend_position > 7) {
        set_err(err, err_len, "plot: panel %zu: legend_position %d not in 0..7", i,
                p->legend_position);
        return -1;
    }
    if (p->n_y_categories > 0 && p->y_categories == NULL) {
        set_err(err, err_len, "plot: panel %zu: %zu y categories but no names", i,
                p->n_y_categories);
        return -1;
    }
    if (map_validate(p->map, i, err, err_len) != 0) return -1;
    for (size_t c = 0; c < p->n_curves; ++c) {
        const nsd_curve *cv = &p->curves[c];
        if (cv->n > 0 && (cv->x == NULL || cv->y == NULL)) {
            set_err(err, err_len, "plot: panel %zu curve %zu: %zu points but no data", i, c, cv->n);
            return -1;
        }
        if (cv->n > ((size_t)1 << 40)) {
            set_err(err, err_len, "plot: panel %zu curve %zu: too many points", i, c);
            return -1;
        }
        if (cv->dashed < 0 || cv->dashed > 3 || cv->marker < 0 || cv->marker > 3) {
            set_err(err, err_len, "plot: panel %zu curve %zu: dashed must be 0..3, marker 0..3", i,
                    c);
            return -1;
        }
    }
    return 0;
}

static int validate(const char *path, nsd_plot_format format, const nsd_figure *fig, char *err,
                    size_t err_len) {
    if (path == NULL || path[0] == '\0') {
        set_err(err, err_len, "plot: empty output path");
        return -1;
    }
    if (format_device(format) == NULL) {
        set_err(err, err_len, "plot: unknown output format %d", (int)format);
        return -1;
    }
    if (fig == NULL) {
        set_err(err, err_len, "plot: no figure");
        return -1;
    }
    if (fig->n_panels == 0 || fig->panels == NULL) {
        set_err(err, err_len, "plot: figure has no panels");
        return -1;
    }
    if (fig->n_panels > MAX_PANELS) {
        set_err(err, err_len, "plot: too many panels (%zu, at most %d)", fig->n_panels, MAX_PANELS);
        return -1;
    }
    if ((fig->width_px != 0 && (fig->width_px < MIN_SIZE_PX || fig->width_px > MAX_SIZE_PX)) ||
        (fig->height_px != 0 && (fig->height_px < MIN_SIZE_PX || fig->height_px > MAX_SIZE_PX))) {
        set_err(err, err_len, "plot: figure size %d x %d out of range (%d..%d, 0 = default)",
                fig->width_px, fig->height_px, MIN_SIZE_PX, MAX_SIZE_PX);
        return -1;
    }
    if (format == NSD_PLOT_PNG && fig->width_px != 0 && fig->height_px != 0 &&
        (double)fig->width_px * (double)fig->height_px > MAX_PNG_PIXELS) {
        set_err(err, err_len, "plot: PNG of %d x %d pixels is too large (at most %.0f Mpx)",
                fig->width_px, fig->height_px, MAX_PNG_PIXELS / 1e6);
        return -1;
    }
    for (size_t i = 0; i < fig->n_panels; ++i)
        if (validate_panel(&fig->panels[i], i, err, err_len) != 0) return -1;
    return 0;
}

static long file_size(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return -1;
    long sz = -1;
    if (fseek(f, 0, SEEK_END) == 0) sz = ftell(f);
    fclose(f);
    return sz;
}

/* PLplot ignores write errors of its drivers (a full disk gives a truncated
 * file): check that the file ends the way a complete one does. */
static int output_complete(const char *path, nsd_plot_format format) {
    static const unsigned char png_end[8] = {'I', 'E', 'N', 'D', 0xAE, 0x42, 0x60, 0x82};
    unsigned char tail[256];
    FILE *f = fopen(path, "rb");
    if (f == NULL) return 0;
    long sz = -1;
    if (fseek(f, 0, SEEK_END) == 0) sz = ftell(f);
    size_t n = 0;
    if (sz > 0) {
        long from = sz > (long)sizeof tail ? sz - (long)sizeof tail : 0;
        if (fseek(f, from, SEEK_SET) == 0) n = fread(tail, 1, sizeof tail, f);
    }
    fclose(f);
    if (n < 8) return 0;
    const char *needle = NULL;
    switch (format) {
        case NSD_PLOT_PNG: return memcmp(tail + n - 8, png_end, 8) == 0;
        case NSD_PLOT_SVG:
        case NSD_PLOT_SVG_TEXT: needle = "</svg>"; break;
        case NSD_PLOT_PDF: needle = "%%EOF"; break;
    }
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= n; ++i)
        if (memcmp(tail + i, needle, k) == 0) return 1;
    return 0;
}

static void release_handlers(void) {
    plsexit(NULL);
    plsabort(NULL);
    active_guard = NULL;
}

/* Grid of the figure and its size in pixels (points for SVG and PDF), defaults applied. */
static void figure_grid(const nsd_figure *fig, size_t *cols, size_t *rows, int *width_px,
                        int *height_px) {
    *cols = fig->columns == 0 ? 1 : fig->columns;
    if (*cols > fig->n_panels) *cols = fig->n_panels;
    *rows = (fig->n_panels + *cols - 1) / *cols;
    *width_px = fig->width_px ? fig->width_px : DEFAULT_WIDTH_PX;
    *height_px = fig->height_px;
    if (*height_px == 0) {
        size_t h = *rows * DEFAULT_ROW_PX;
        *height_px = (int)(h > DEFAULT_MAX_HEIGHT_PX ? DEFAULT_MAX_HEIGHT_PX : h);
    }
}

/* After PLplot called plexit: clean up what can be cleaned up. A second fatal error during
 * the cleanup (in plend1) lands here again with stream_made == 2 and gives up on the
 * stream, which stays allocated. The handlers and the files are the caller's. */
static void recover_from_fatal(plot_guard *g) {
    if (g->stream_made == 1) {
        g->stream_made = 2; /* cleaning up */
        PLINT level = 0;
        plglevel(&level);
        if (g->fp != NULL && g->pixels != NULL) { /* never PLplot's */
            fclose(g->fp);
        } else if (level == 0 && g->fp != NULL && !g->file_owned_by_plplot) {
            plsfile(NULL);
            fclose(g->fp);
        }
        g->fp = NULL;
        plend1();
    } else if (g->stream_made == 2) {
        /* plend1 failed: the stream stays allocated; detach our buffers */
        plsError(NULL, NULL);
    } else if (g->fp != NULL && !g->file_owned_by_plplot) {
        fclose(g->fp);
        g->fp = NULL;
    }
    if (g->old_strm >= 0) plsstrm(g->old_strm);
}

/* Check the device, create the file tmp and a fresh PLplot stream, made current. On
 * failure: everything undone (handlers released), err set, -1. */
static int open_stream(plot_guard *g, const char *tmp, const char *dev, char *err, size_t err_len) {
    if (!device_available(dev)) {
        release_handlers();
        set_err(err, err_len,
                "plot: PLplot device '%s' is not available (is plplot-driver-cairo installed?)",
                dev);
        return -1;
    }

    g->fp = fopen(tmp, "wb");
    if (g->fp == NULL) {
        int e = errno;
        release_handlers();
        set_err(err, err_len, "plot: cannot create '%s': %s", tmp, strerror(e));
        return -1;
    }

    PLINT cur = 0;
    plgstrm(&cur);
    g->old_strm = cur;
    PLINT strm = -1;
    plmkstrm(&strm); /* makes the new stream current */
    if (strm < 0) {
        fclose(g->fp);
        g->fp = NULL;
        remove(tmp);
        plsstrm(g->old_strm);
        release_handlers();
        set_err(err, err_len, "plot: PLplot cannot create another stream");
        return -1;
    }
    g->stream_made = 1;
    return 0;
}

/* Draw the figure on the stream open_stream made, end the stream, restore the caller's and
 * release the handlers. Returns draw_figure's result (0 when nothing was drawn). */
static int draw_on_stream(plot_guard *g, const char *dev, const nsd_figure *fig, size_t cols,
                          size_t rows, int width_px, int height_px, const char *path,
                          int *grow_px) {
    int draw_rc = 0;
    plsError(&g->pl_errcode, g->pl_errmsg);
    plsdev(dev);
    if (g->pixels)
        plsmem(width_px, height_px, g->pixels); /* the page is the buffer's size */
    else
        plsfile(g->fp); /* PLplot closes it in plend1 once plinit succeeded */
    plspage(0.0, 0.0, width_px, height_px, 0, 0);
    set_colors();
    plinit();
    PLINT level = 0;
    plglevel(&level);
    g->initialised = level > 0;
    if (g->initialised && !g->pixels) g->file_owned_by_plplot = 1;
    if (g->initialised && g->pl_errcode == 0)
        draw_rc = draw_figure(fig, cols, rows, width_px, height_px, path, g->report, grow_px);
    if (!g->file_owned_by_plplot && !g->pixels) {
        plsfile(NULL);
        fclose(g->fp);
        g->fp = NULL;
    }
    if (!g->pixels) g->fp = NULL;
    plend1(); /* memcairo: copies the picture into g->pixels */
    g->stream_made = 0;
    plsstrm(g->old_strm);
    release_handlers();
    return draw_rc;
}

/* The outcome of a drawing that ran to its end: 0 with tmp renamed to path, or -1 with err
 * set (tmp is left to the caller). */
static int finish_output(plot_guard *g, int draw_rc, const char *dev, const char *tmp,
                         const char *path, nsd_plot_format format, double dpi, char *err,
                         size_t err_len) {
    if (!g->initialised) {
        set_err(err, err_len, "plot: PLplot could not initialise device '%s'%s%s", dev,
                g->aborted ? ": " : "", g->aborted ? g->abort_msg : "");
        return -1;
    }
    if (draw_rc != 0) {
        set_err(err, err_len, "plot: out of memory while drawing");
        return -1;
    }
    if (g->pl_errcode != 0 || g->aborted) {
        set_err(err, err_len, "plot: PLplot error: %s", g->aborted ? g->abort_msg : g->pl_errmsg);
        return -1;
    }
    if (g->pixels) { /* the picture memcairo drew, into the file (plot_png.c) */
        char why[200];
        int bad = png_write_rgb(g->fp, g->pixels, g->width_px, g->height_px, dpi, why, sizeof why);
        int write_failed = ferror(g->fp); /* stdio's: libpng says only "Write Error" */
        if ((fclose(g->fp) != 0 && !bad) || (bad && write_failed)) {
            set_err(err, err_len, "plot: incomplete output in '%s' (disk full?)", tmp);
            bad = 1;
        } else if (bad) {
            set_err(err, err_len, "%s ('%s')", why, tmp);
        }
        g->fp = NULL;
        if (bad) return -1;
    }
    if (file_size(tmp) <= 0 || !output_complete(tmp, format)) {
        set_err(err, err_len, "plot: incomplete output in '%s' (disk full?)", tmp);
        return -1;
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        set_err(err, err_len, "plot: cannot rename '%s' to '%s': %s", tmp, path, strerror(e));
        return -1;
    }
    return 0;
}

/* The layout report into memory when NSDYN_PLOT_LAYOUT is set (plot_report.c). */
static void report_open(plot_guard *g) {
    const char *file = getenv("NSDYN_PLOT_LAYOUT");
    if (file && file[0]) g->report = open_memstream(&g->report_buf, &g->report_len);
}

/* Append the report of a figure that was written (ok) to the file; drop it otherwise. */
static void report_close(plot_guard *g, int ok) {
    if (!g->report) return;
    fclose(g->report);
    g->report = NULL;
    const char *file = getenv("NSDYN_PLOT_LAYOUT");
    FILE *f = ok && file ? fopen(file, "a") : NULL;
    if (f) {
        fwrite(g->report_buf, 1, g->report_len, f);
        fclose(f);
    }
    free(g->report_buf);
    g->report_buf = NULL;
}

/* The RGB picture memcairo draws a PNG into, white (COL_BG, which memcairo draws over);
 * any earlier one freed. 0, or -1 with err set. */
static int png_canvas(plot_guard *g, int width_px, int height_px, char *err, size_t err_len) {
    free(g->pixels);
    g->width_px = width_px, g->height_px = height_px;
    g->pixels = malloc((size_t)width_px * (size_t)height_px * 3);
    if (g->pixels == NULL) {
        set_err(err, err_len, "plot: out of memory for a %d x %d PNG", width_px, height_px);
        return -1;
    }
    memset(g->pixels, 0xFF, (size_t)width_px * (size_t)height_px * 3);
    return 0;
}

int nsd_plot_write(const char *path, nsd_plot_format format, const nsd_figure *fig, char *err,
                   size_t err_len) {
    return nsd_plot_write_dpi(path, format, fig, 0.0, err, err_len);
}

int nsd_plot_write_dpi(const char *path, nsd_plot_format format, const nsd_figure *fig, double dpi,
                       char *err, size_t err_len) {
    if (err != NULL && err_len > 0) err[0] = '\0';
    if (active_guard != NULL) {
        set_err(err, err_len, "plot: nsd_plot_write is not re-entrant");
        return -1;
    }
    if (validate(path, format, fig, err, err_len) != 0) return -1;

    size_t cols, rows;
    int width_px, height_px;
    figure_grid(fig, &cols, &rows, &width_px, &height_px);
    const char *dev = format_device(format);

    size_t plen = strlen(path);
    char *tmp = malloc(plen + 5);
    plot_guard *guard = calloc(1, sizeof *guard);
    if (tmp == NULL || guard == NULL) {
        free(tmp);
        free(guard);
        set_err(err, err_len, "plot: out of memory");
        return -1;
    }
    memcpy(tmp, path, plen);
    memcpy(tmp + plen, ".tmp", 5);
    guard->old_strm = -1;
    if (format == NSD_PLOT_PNG && png_canvas(guard, width_px, height_px, err, err_len) != 0) {
        free(tmp);
        free(guard);
        return -1;
    }

    active_guard = guard;
    plsexit(on_plplot_exit);
    plsabort(on_plplot_abort);

    /* Nothing automatic here changes after setjmp: the state the cleanup reads is in *guard. */
    report_open(guard);
    if (setjmp(guard->jb) != 0) {
        recover_from_fatal(guard);
        report_close(guard, 0);
        release_handlers();
        remove(tmp);
        set_err(err, err_len, "plot: PLplot fatal error: %s", guard->fatal_msg);
        free(guard->pixels);
        free(tmp);
        free(guard);
        return -1;
    }

    int rc = open_stream(guard, tmp, dev, err, err_len), drawn = 0, draw_rc = 0;
    if (rc == 0 && fig->fit_height) { /* a page too short for its rows: once more, taller */
        int grow_px = 0;
        draw_rc = draw_on_stream(guard, dev, fig, cols, rows, width_px, height_px, path, &grow_px);
        drawn = grow_px <= height_px;
        if (!drawn) {
            height_px = grow_px;
            if (guard->fp) fclose(guard->fp); /* PNG: the first page is not written */
            guard->fp = NULL;
            report_close(guard, 0);
            report_open(guard);
            guard->initialised = guard->file_owned_by_plplot = 0;
            rc = format == NSD_PLOT_PNG ? png_canvas(guard, width_px, height_px, err, err_len) : 0;
            active_guard = guard;
            plsexit(on_plplot_exit);
            plsabort(on_plplot_abort);
            if (rc == 0)
                rc = open_stream(guard, tmp, dev, err, err_len);
            else
                release_handlers();
        }
    }
    if (rc == 0) {
        if (!drawn)
            draw_rc = draw_on_stream(guard, dev, fig, cols, rows, width_px, height_px, path, NULL);
        rc = finish_output(guard, draw_rc, dev, tmp, path, format, dpi, err, err_len);
        if (guard->fp) fclose(guard->fp); /* PNG: not written after a PLplot error */
        if (rc != 0) remove(tmp);
    }
    report_close(guard, rc == 0);
    free(guard->pixels);
    free(tmp);
    free(guard);
    return rc;
}

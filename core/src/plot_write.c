/* nsdyn plotting module: nsd_plot_write. Checks the figure, draws it on a fresh PLplot
 * stream into path + ".tmp", checks the output and renames it into place.
 *
 *  - Every figure gets a fresh PLplot stream (plmkstrm); the caller's current
 *    stream is restored afterwards. The output file is opened here and handed
 *    to PLplot with plsfile (PLplot closes it in plend1), so PLplot never runs
 *    its interactive "Enter graphics output file name" / device prompts.
 *  - PLplot reports recoverable errors through plabort (captured with plsError
 *    into a buffer instead of stderr) and fatal ones through plexit, which
 *    calls exit(). The exit handler installed here longjmps back into
 *    nsd_plot_write, which cleans up and returns -1. PLplot's handler
 *    signature carries no user pointer, so the jump target has to be reachable
 *    from file scope: `active_guard` is the single piece of module state,
 *    non-NULL only while nsd_plot_write runs.
 */
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
    for (size_t i = 0; i < fig->n_panels; ++i) {
        const nsd_panel *p = &fig->panels[i];
        if (p->n_curves > 0 && p->curves == NULL) {
            set_err(err, err_len, "plot: panel %zu: %zu curves but no curve array", i, p->n_curves);
            return -1;
        }
        if (p->n_vlines > 0 && p->vlines == NULL) {
            set_err(err, err_len, "plot: panel %zu: %zu event lines but no array", i, p->n_vlines);
            return -1;
        }
        if (p->legend_position < 0 || p->legend_position > 4) {
            set_err(err, err_len, "plot: panel %zu: legend_position %d not in 0..4", i,
                    p->legend_position);
            return -1;
        }
        for (size_t c = 0; c < p->n_curves; ++c) {
            const nsd_curve *cv = &p->curves[c];
            if (cv->n > 0 && (cv->x == NULL || cv->y == NULL)) {
                set_err(err, err_len, "plot: panel %zu curve %zu: %zu points but no data", i, c,
                        cv->n);
                return -1;
            }
            if (cv->n > ((size_t)1 << 40)) {
                set_err(err, err_len, "plot: panel %zu curve %zu: too many points", i, c);
                return -1;
            }
            if (cv->dashed < 0 || cv->dashed > 2 || cv->marker < 0 || cv->marker > 2) {
                set_err(err, err_len, "plot: panel %zu curve %zu: dashed must be 0..2, marker 0..2",
                        i, c);
                return -1;
            }
        }
    }
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
        case NSD_PLOT_SVG: needle = "</svg>"; break;
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

int nsd_plot_write(const char *path, nsd_plot_format format, const nsd_figure *fig, char *err,
                   size_t err_len) {
    if (err != NULL && err_len > 0) err[0] = '\0';
    if (active_guard != NULL) {
        set_err(err, err_len, "plot: nsd_plot_write is not re-entrant");
        return -1;
    }
    if (validate(path, format, fig, err, err_len) != 0) return -1;

    size_t cols = fig->columns == 0 ? 1 : fig->columns;
    if (cols > fig->n_panels) cols = fig->n_panels;
    size_t rows = (fig->n_panels + cols - 1) / cols;
    int width_px = fig->width_px ? fig->width_px : DEFAULT_WIDTH_PX;
    int height_px = fig->height_px;
    if (height_px == 0) {
        size_t h = rows * DEFAULT_ROW_PX;
        height_px = (int)(h > DEFAULT_MAX_HEIGHT_PX ? DEFAULT_MAX_HEIGHT_PX : h);
    }
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

    /* Automatic variables changed after setjmp and read after a longjmp must
       be volatile. */
    FILE *volatile fp = NULL;
    volatile PLINT old_strm = -1;
    volatile int stream_made = 0;
    volatile int file_owned_by_plplot = 0;
    volatile int draw_rc = 0;

    active_guard = guard;
    plsexit(on_plplot_exit);
    plsabort(on_plplot_abort);

    if (setjmp(guard->jb) != 0) {
        /* PLplot called plexit. Clean up what can be cleaned up; a second
           fatal error during the cleanup (in plend1) lands here again with
           stream_made == 2 and gives up on the stream, which stays allocated. */
        if (stream_made == 1) {
            stream_made = 2; /* cleaning up */
            PLINT level = 0;
            plglevel(&level);
            if (level == 0 && fp != NULL && !file_owned_by_plplot) {
                plsfile(NULL);
                fclose(fp);
            }
            fp = NULL;
            plend1();
        } else if (stream_made == 2) {
            /* plend1 failed: the stream stays allocated; detach our buffers */
            plsError(NULL, NULL);
        } else if (fp != NULL && !file_owned_by_plplot) {
            fclose(fp);
            fp = NULL;
        }
        if (old_strm >= 0) plsstrm(old_strm);
        release_handlers();
        remove(tmp);
        set_err(err, err_len, "plot: PLplot fatal error: %s", guard->fatal_msg);
        free(tmp);
        free(guard);
        return -1;
    }

    if (!device_available(dev)) {
        release_handlers();
        set_err(err, err_len,
                "plot: PLplot device '%s' is not available (is plplot-driver-cairo installed?)",
                dev);
        free(tmp);
        free(guard);
        return -1;
    }

    fp = fopen(tmp, "wb");
    if (fp == NULL) {
        int e = errno;
        release_handlers();
        set_err(err, err_len, "plot: cannot create '%s': %s", tmp, strerror(e));
        free(tmp);
        free(guard);
        return -1;
    }

    PLINT cur = 0;
    plgstrm(&cur);
    old_strm = cur;
    PLINT strm = -1;
    plmkstrm(&strm); /* makes the new stream current */
    if (strm < 0) {
        fclose(fp);
        fp = NULL;
        remove(tmp);
        plsstrm(old_strm);
        release_handlers();
        set_err(err, err_len, "plot: PLplot cannot create another stream");
        free(tmp);
        free(guard);
        return -1;
    }
    stream_made = 1;
    plsError(&guard->pl_errcode, guard->pl_errmsg);
    plsdev(dev);
    plsfile(fp); /* PLplot closes it in plend1 once plinit succeeded */
    plspage(0.0, 0.0, width_px, height_px, 0, 0);
    set_colors();
    plinit();
    PLINT level = 0;
    plglevel(&level);
    if (level > 0) file_owned_by_plplot = 1;
    if (file_owned_by_plplot && guard->pl_errcode == 0)
        draw_rc = draw_figure(fig, cols, rows, width_px, height_px);
    if (!file_owned_by_plplot) {
        plsfile(NULL);
        fclose(fp);
    }
    fp = NULL;
    plend1();
    stream_made = 0;
    plsstrm(old_strm);
    release_handlers();

    int rc = 0;
    if (!file_owned_by_plplot) {
        set_err(err, err_len, "plot: PLplot could not initialise device '%s'%s%s", dev,
                guard->aborted ? ": " : "", guard->aborted ? guard->abort_msg : "");
        rc = -1;
    } else if (draw_rc != 0) {
        set_err(err, err_len, "plot: out of memory while drawing");
        rc = -1;
    } else if (guard->pl_errcode != 0 || guard->aborted) {
        set_err(err, err_len, "plot: PLplot error: %s",
                guard->aborted ? guard->abort_msg : guard->pl_errmsg);
        rc = -1;
    } else if (file_size(tmp) <= 0 || !output_complete(tmp, format)) {
        set_err(err, err_len, "plot: incomplete output in '%s' (disk full?)", tmp);
        rc = -1;
    } else if (rename(tmp, path) != 0) {
        int e = errno;
        set_err(err, err_len, "plot: cannot rename '%s' to '%s': %s", tmp, path, strerror(e));
        rc = -1;
    }
    if (rc != 0) remove(tmp);
    free(tmp);
    free(guard);
    return rc;
}

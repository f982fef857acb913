/* nsdyn animate and [plot] animate (animate.h). */
#define _GNU_SOURCE
#include "animate.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plot.h"
#include "plugin_calls.h"

extern char **environ;

int nsd_anim_format_parse(const char *name, nsd_anim_format *out) {
    if (!name) return -1;
    if (!strcasecmp(name, "mp4")) return *out = NSD_ANIM_MP4, 0;
    if (!strcasecmp(name, "gif")) return *out = NSD_ANIM_GIF, 0;
    return -1;
}

size_t nsd_anim_frames(double t0, double t1, const nsd_anim_opts *o) {
    double n = floor((t1 - t0) * o->slow * o->fps * (1 + 1e-12)) + 1; /* t1 itself when exact */
    return isfinite(n) && n >= 1 ? (size_t)n : 1;
}

/* The bounding box of the drawings of every frame (a canvas that records). */
typedef struct box {
    double x0, x1, y0, y1;
} box;
static void grow(box *b, double x, double y) {
    if (!isfinite(x) || !isfinite(y)) return;
    b->x0 = fmin(b->x0, x), b->x1 = fmax(b->x1, x), b->y0 = fmin(b->y0, y), b->y1 = fmax(b->y1, y);
}
static void box_line(void *ctx, double x0, double y0, double x1, double y1) {
    grow(ctx, x0, y0), grow(ctx, x1, y1);
}
static void box_circle(void *ctx, double x, double y, double r) {
    grow(ctx, x - r, y - r), grow(ctx, x + r, y + r);
}
static void box_polygon(void *ctx, size_t n, const double *x, const double *y, int filled) {
    (void)filled;
    for (size_t i = 0; i < n; ++i) grow(ctx, x[i], y[i]);
}
static void box_pen(void *ctx, int pen) { (void)ctx, (void)pen; }

typedef struct frame {
    const nsd_data *draw; /* its model and its system instance draw */
    const nsd_series *s;
    const size_t *rows; /* the sample row of every frame */
    size_t k;           /* this frame */
    int trails;
} frame;

/* The trails (earlier frames, fainter the older) and the current state. */
static void draw_frame(void *ctx, const nsdyn_canvas *canvas) {
    const frame *f = ctx;
    size_t first = f->k > (size_t)f->trails ? f->k - (size_t)f->trails : 0;
    for (size_t j = first; j <= f->k; ++j) {
        const double *row = f->s->data + f->rows[j] * f->s->n_channels;
        double age = (double)(f->k - j) / (double)(f->trails + 1); /* 0 now .. < 1 */
        nsd_plot_canvas_begin(canvas, j == f->k ? 1.0 : 0.15 + 0.45 * (1.0 - age));
        /* a state the system refuses to draw (ABI 2.5 status) leaves the frame without it */
        (void)nsd_system_draw(f->draw->model->sys, f->draw->sys_inst, row[0], row + 1, canvas);
        nsd_plot_canvas_end(canvas, NULL);
    }
}

/* Run ffmpeg on the frames; 0 or -1 with err. */
static int encode(const char *frames_dir, const char *out, const nsd_anim_opts *o, char *err,
                  size_t err_len) {
    char pattern[PATH_MAX + 64], rate[32];
    snprintf(pattern, sizeof pattern, "%s/frame_%%06d.png", frames_dir);
    snprintf(rate, sizeof rate, "%.17g", o->fps);
    /* H.264 needs even sizes; a GIF gets its own palette (better colours). */
    const char *filter = o->format == NSD_ANIM_MP4
                             ? "pad=ceil(iw/2)*2:ceil(ih/2)*2:color=white"
                             : "split[a][b];[a]palettegen=stats_mode=full[p];[b][p]paletteuse";
    const char *fmt = o->format == NSD_ANIM_MP4 ? "mp4" : "gif";
    char *argv[] = {"ffmpeg",
                    "-nostdin",
                    "-y",
                    "-loglevel",
                    "error",
                    "-framerate",
                    rate,
                    "-i",
                    pattern,
                    "-vf",
                    (char *)filter,
                    "-r",
                    rate,
                    "-f",
                    (char *)fmt,
                    o->format == NSD_ANIM_MP4 ? "-pix_fmt" : "-loop",
                    o->format == NSD_ANIM_MP4 ? "yuv420p" : "0",
                    (char *)out,
                    NULL};
    pid_t pid;
    int rc = posix_spawnp(&pid, "ffmpeg", NULL, NULL, argv, environ);
    if (rc != 0) {
        snprintf(err, err_len,
                 "cannot run ffmpeg (%s): install it (Debian: apt-get install ffmpeg)",
                 strerror(rc));
        return -1;
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        snprintf(err, err_len, "ffmpeg failed (exit status %d) encoding %s",
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1, out);
        return -1;
    }
    return 0;
}

/* Draw frame k into path. */
static int write_frame(const char *path, frame *f, const box *b, const nsd_anim_opts *o, char *err,
                       size_t err_len) {
    char title[400];
    double t = nsd_series_at(f->s, f->rows[f->k], 0);
    snprintf(title, sizeof title, "%s%st = %.3f s", o->title ? o->title : "",
             o->title && o->title[0] ? "    " : "", t);
    nsd_panel panel = {0};
    const nsdyn_system_layout *lay = &f->draw->model->layout;
    panel.xlabel = lay->draw_x_label ? lay->draw_x_label : "x [m]";
    panel.ylabel = lay->draw_y_label ? lay->draw_y_label : "y [m]";
    panel.xmin = b->x0, panel.xmax = b->x1, panel.ymin = b->y0, panel.ymax = b->y1;
    panel.equal_aspect = 1;
    panel.draw = draw_frame;
    panel.draw_ctx = f;
    panel.legend_position = 6;
    nsd_figure fig = {.title = title,
                      .panels = &panel,
                      .n_panels = 1,
                      .columns = 1,
                      .width_px = o->width_px ? o->width_px : 960,
                      .height_px = o->height_px ? o->height_px : 540};
    return nsd_plot_write(path, NSD_PLOT_PNG, &fig, err, err_len);
}

static void remove_frames(const char *dir, size_t n) {
    char p[PATH_MAX + 64];
    for (size_t k = 0; k < n; ++k) {
        snprintf(p, sizeof p, "%s/frame_%06zu.png", dir, k);
        unlink(p);
    }
    rmdir(dir);
}

int nsd_anim_write(const char *path, const nsd_data *draw, const nsd_series *s,
                   const nsd_anim_opts *o, char *err, size_t err_len) {
    const nsd_model *m = draw->model;
    if (!m->sys->draw)
        return snprintf(err, err_len, "system '%s' draws nothing", m->sys->info.id), -1;
    if (!s->rows) return snprintf(err, err_len, "no samples to animate"), -1;
    double t0 = nsd_series_at(s, 0, 0), t1 = nsd_series_at(s, s->rows - 1, 0);
    size_t n = nsd_anim_frames(t0, t1, o);
    size_t *rows = malloc(n * sizeof *rows);
    if (!rows) return snprintf(err, err_len, "out of memory"), -1;
    box b = {HUGE_VAL, -HUGE_VAL, HUGE_VAL, -HUGE_VAL}, *fb = malloc(n * sizeof *fb);
    if (!fb) return free(rows), snprintf(err, err_len, "out of memory"), -1;
    double w_frame = 0;                     /* the widest single drawing */
    for (size_t k = 0, r = 0; k < n; ++k) { /* the last sample at or before the frame's time */
        double tk = t0 + (double)k / (o->fps * o->slow);
        while (r + 1 < s->rows && nsd_series_at(s, r + 1, 0) <= tk * (1 + 1e-12) + 1e-300) r++;
        rows[k] = r;
        const double *row = s->data + r * s->n_channels;
        fb[k] = (box){HUGE_VAL, -HUGE_VAL, HUGE_VAL, -HUGE_VAL};
        nsdyn_canvas cv = {sizeof cv, &fb[k], box_line, box_circle, box_polygon, box_pen};
        (void)nsd_system_draw(m->sys, draw->sys_inst, row[0], row + 1, &cv); /* refused: empty */
        if (fb[k].x1 >= fb[k].x0)
            grow(&b, fb[k].x0, fb[k].y0), grow(&b, fb[k].x1, fb[k].y1),
                w_frame = fmax(w_frame, fb[k].x1 - fb[k].x0);
    }
    if (!(b.x1 >= b.x0) || !(b.y1 >= b.y0)) {
        free(rows), free(fb);
        return snprintf(err, err_len, "the system's drawing is empty"), -1;
    }
    /* A mechanism that travels far (a rolling or walking system) is
     * followed: a window 3 drawings wide, centred on the frame's drawing
     * (within the whole motion), instead of the whole path at a tiny scale. */
    double h = b.y1 - b.y0, win = fmax(3 * w_frame, 2 * h);
    for (size_t k = 0; k < n; ++k) {
        box *w = &fb[k];
        if (b.x1 - b.x0 <= 1.5 * win || !(w->x1 >= w->x0)) {
            *w = b;
        } else {
            double c = fmin(fmax(0.5 * (w->x0 + w->x1), b.x0 + 0.5 * win), b.x1 - 0.5 * win);
            *w = (box){c - 0.5 * win, c + 0.5 * win, b.y0, b.y1};
        }
        double mx = 0.05 * fmax(w->x1 - w->x0, w->y1 - w->y0) + 1e-9; /* a margin */
        w->x0 -= mx, w->x1 += mx, w->y0 -= mx, w->y1 += mx;
    }
    char dir[PATH_MAX + 32], tmp[PATH_MAX + 32], fp[PATH_MAX + 64];
    snprintf(dir, sizeof dir, "%s.frames.XXXXXX", path);
    if (!mkdtemp(dir)) {
        free(rows), free(fb);
        return snprintf(err, err_len, "cannot make %s: %s", dir, strerror(errno)), -1;
    }
    int rc = 0;
    size_t done = 0;
    frame f = {draw, s, rows, 0, o->trails};
    for (; rc == 0 && done < n; ++done) {
        f.k = done;
        snprintf(fp, sizeof fp, "%s/frame_%06zu.png", dir, done);
        rc = write_frame(fp, &f, &fb[done], o, err, err_len);
    }
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    if (rc == 0) rc = encode(dir, tmp, o, err, err_len);
    if (rc == 0 && rename(tmp, path) != 0) {
        snprintf(err, err_len, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
        rc = -1;
    }
    if (rc != 0) unlink(tmp);
    remove_frames(dir, done);
    free(rows);
    free(fb);
    return rc;
}

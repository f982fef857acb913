/* Animations of a run (issue 26): the system's own drawing (the one the
 * strobe picture snapshots.png uses, nsdyn_system.draw) at successive
 * times, encoded to MP4 (H.264) or GIF by Debian's ffmpeg, which is run as
 * a separate program (no library is linked). */
#ifndef NSD_ANIMATE_H
#define NSD_ANIMATE_H

#include <stddef.h>

#include "model.h"
#include "run.h"

typedef enum nsd_anim_format { NSD_ANIM_MP4, NSD_ANIM_GIF } nsd_anim_format;

typedef struct nsd_anim_opts {
    nsd_anim_format format;
    double fps;  /* frames per second of the video (1 .. 60) */
    double slow; /* video seconds per simulated second (1: recorded time scale) */
    int trails;  /* earlier frames drawn faded behind the current one (0 .. 50) */
    int width_px, height_px;
    const char *title; /* above every frame, before the time stamp */
} nsd_anim_opts;

/* The number of frames of a run from t0 to t1 s: one per 1/fps s of video,
 * the last at or before t1: floor((t1 - t0) slow fps) + 1 (at least 1). */
size_t nsd_anim_frames(double t0, double t1, const nsd_anim_opts *o);

/* Write the animation of series s (columns: t, then the states) drawn by
 * the system of the run's data `draw` (its model's system, its own
 * instance) into path (its extension is not checked). Frame k shows the last
 * sample at or before t0 + k / (fps slow), stamped with that sample's time.
 * The frames go to a temporary folder beside path, removed afterwards; the
 * video to path.tmp, renamed at the end. 0, or -1 with err (ffmpeg missing
 * or failing, the system draws nothing, a write error). */
int nsd_anim_write(const char *path, const nsd_data *draw, const nsd_series *s,
                   const nsd_anim_opts *o, char *err, size_t err_len);

/* "mp4" | "gif" (case-insensitive): 0, or -1. */
int nsd_anim_format_parse(const char *name, nsd_anim_format *out);

#endif

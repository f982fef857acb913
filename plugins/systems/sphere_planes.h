/* sphere_planes: what the plugin's two files share. The model is
 * described at the top of sphere_planes.c, the terrain and its contact
 * geometry at the top of sphere_planes_terrain.c. */
#ifndef NSD_SPHERE_PLANES_H
#define NSD_SPHERE_PLANES_H

#include <stddef.h>

#include "nsdyn/nsdyn.h"

#define DEG (NSDYN_PI / 180.0)
#define MAX_SEG 64
/* crossed fires this far past the last vertex, in units of b (the header's
 * Stops: keeps the stop off the root of the edge handover there). */
#define CROSS_MARGIN 1e-6
/* model = "thesis": a concave corner's plane switch fires this far (in
 * units of b) before the corner's bisector, so that the plane being left
 * is off before the entered plane's gap closes there (a single-plane
 * impact, as the thesis's plane models apply it). Far above the switch's
 * location error (about 1e-11 m), far below anything physical. */
#define THESIS_MARGIN 1e-7

typedef struct segment {
    double x, z;      /* start vertex P_i [m] */
    double c, s;      /* cos, sin of the slope angle: t = (c, s), n = (-s, c) in (x, z) */
    double lo, hi;    /* extent of the along-slope coordinate [m]: [0, length], open at the ends */
    int convex_start; /* the start vertex is a convex (or straight) edge */
    double mx, mz;    /* there: unit bisector of the two slopes (handover()) */
} segment;

typedef struct sphere {
    double b, m, J, g;
    double x0, v0;
    int rolling0;
    int backspin0; /* start with wy = -v0/b (Sec. 4.2 as printed) */
    int thesis;    /* model = "thesis": concave corners switch plane models */
    int spin_flip; /* reading F: wy reversed at every change between Ch. 2 and Ch. 3 */
    int ch3;       /* run state of spin_flip: 1 while a contact is closed (Ch. 3) */
    size_t n;      /* segments */
    segment seg[MAX_SEG];
    double xv[MAX_SEG + 1], zv[MAX_SEG + 1]; /* vertices P_0..P_n [m] */
    double x_cross;                          /* last vertex x (far rim edge) [m] */
    double x_stop;       /* crossed fires where x rises through it: x_cross + CROSS_MARGIN b [m] */
    double x_low, z_low; /* last lowest interior vertex [m] */
    int has_cross, has_low;
    char names[MAX_SEG][16];
    nsdyn_contact_decl decl[MAX_SEG];
    const char *series[12];
    /* Mode: owner of the convex edge at vertex k (1..n-1): 1 if segment k
     * (after it) carries it, 0 if segment k-1 (before it) does. */
    int owner_next[MAX_SEG];
    int owner0[MAX_SEG]; /* the initial modes, from the start position */
    /* Switches: two per convex vertex (see the header). */
    size_t n_sw;
    size_t sw_vertex[2 * MAX_SEG];
    int sw_to_next[2 * MAX_SEG];
    int sw_dir[2 * MAX_SEG];
    char sw_names[2 * MAX_SEG][40];
    const char *sw_ptr[2 * MAX_SEG];
} sphere;

/* Contact candidate i at the centre (x, z): gap, unit normal nu in the x-z
 * plane, terrain point, and the signed curvature of the gap's level sets (0
 * on a face; +-1/|c - E| at an end). *ground caches in_ground() over the
 * candidates of one evaluation (-1: not computed yet). */
typedef struct feature {
    double gap;    /* [m] */
    double nx, nz; /* nu */
    double px, pz; /* contact point on the terrain [m] */
    double kappa;  /* curvature of the gap's level sets [1/m] */
    int active;
} feature;

/* Append a segment of slope angle_deg [deg] and along-slope length [m] at
 * the current last vertex; -1 past MAX_SEG. */
int sp_add_segment(sphere *S, double angle_deg, double length, const char *name);

/* After the segments: open the end segments, classify the vertices
 * (convex or concave), declare the contacts, place the stops' vertices,
 * name the handover switches and set the initial edge owners. */
void sp_finish_terrain(sphere *S);

/* Handover function of convex vertex k towards segment k (to_next) or
 * k - 1, at the centre (x, z). */
double sp_handover(const sphere *S, size_t k, int to_next, double x, double z);

/* Candidate i at the centre (x, z); *ground caches in_ground() over one
 * evaluation (start it at -1). */
feature sp_nearest(const sphere *S, size_t i, double x, double z, int *ground);

/* Height of the centre at x resting on the terrain (lowered from above);
 * -HUGE_VAL where only vertical walls are under x. */
double sp_rest_height(const sphere *S, double x);

/* The edge owners at the start position (x0 resting on the terrain). */
void sp_init_modes(sphere *S);

#endif

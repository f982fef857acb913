/* sphere_planes: the terrain of planes and the contact geometry of each
 * segment (sphere_planes.h).
 *
 * Terrain. A 2.5-D profile in the x-z plane extruded along y: a chain of
 * planar segments i = 0..n-1, segment i from vertex P_i to P_{i+1}, slope
 * angle alpha_i (positive rising with x), unit tangent t_i = (cos a, 0,
 * sin a) and unit normal n_i = (-sin a, 0, cos a) (out of the ground). The
 * first segment extends to x -> -inf and the last to +inf (the terrain does
 * not end; their lengths only place the vertices and the drawing). Two ways
 * to give it (parameter `terrain`):
 *   valley   the thesis's [beta, theta, dh, pl] (Sec. 4.2, Fig. 4.1): a level
 *            near rim (z = 0, ending at x = 0), a decline at beta down to
 *            z = dh < 0, a level floor of length pl, an incline at theta back
 *            up to z = 0 and a level far rim. Contacts rim_near, decline,
 *            floor, incline, rim_far. The decline and incline frames are the
 *            thesis's a- and c-frames, (2.256) and (2.170).
 *   profile  angles[] [deg] and along-slope lengths[] [m] of each segment
 *            from the start vertex (x_start, z_start); contacts seg1..segN.
 *
 * Contacts. One unilateral candidate per segment, tangent_dim 2. The gap is
 * the distance from the centre c to the nearest point of the CLOSED segment
 * (the foot point clamped to the segment) minus b:
 *   face     foot point inside the segment, h = n_i.(c - P_i): gap = h - b,
 *            normal nu = n_i, the foot point is the contact point; except
 *            for a centre behind the plane (h < 0) but in the air: gap =
 *            -h - b = |h| - b, nu = -n_i (from the foot point to the centre).
 *            That happens past a rise followed by a steep drop (a convex
 *            turn of more than 90 degrees, over one vertex or several): the
 *            face's perpendicular strip reaches behind the terrain into the
 *            air beyond. The line from such a centre to the foot point
 *            crosses the ground, so another feature is strictly nearer and
 *            this one never carries the contact; its gap, the distance to
 *            the face, is larger than the sphere's clearance and positive
 *            in any valid state. (h - b there, the plane's distance, was a
 *            gap of metres below zero for a sphere in the air: bogus
 *            impacts, projections and failed starts.) A centre behind the
 *            plane in the ground (sunk through this face, or elsewhere)
 *            keeps h - b. So in the air and behind the plane, gap = sg |c -
 *            foot| - b with sg as for ends. Seen from behind, the face is
 *            off while a neighbour owns a convex edge at either of its ends
 *            (below): near such an edge that neighbour's face or the edge is
 *            the feature there, and the flag does not change where the
 *            centre crosses the face's normal at the edge (clamped to the
 *            edge, off too);
 *   end      foot point beyond an end vertex E (a line along y): gap =
 *            sg |c - E| - b, nu = sg (c - E)/|c - E| (in the x-z plane),
 *            contact point E, with sg = +1 for a centre above the terrain
 *            and -1 below it (sunk by more than b: never in a valid run). The
 *            gap is C1 across the switch (there c - E = h n_i and
 *            sg |c - E| = sg |h|, the face's value in the air and behind
 *            its plane; only a centre in the ground on the air side of the
 *            plane, sunk through another face, sees a jump), so the normal
 *            velocity is continuous; and a centre that an overlong
 *            integration step carried through the terrain past a segment's
 *            end still has a negative gap for it (with +|c - E| the gap
 *            would be positive again once the centre is b past the end, and
 *            the crossing would go unseen). sg flips only where the centre
 *            itself crosses the terrain surface. On a face a change of sg
 *            moves the gap only where h != 0, that is, where the centre
 *            crosses the terrain elsewhere, sunk by more than b. So within a
 *            candidate's ownership (its `active` flag, below) the gap is
 *            continuous (C1 off the segment) in the air, and u_n = d gap/dt
 *            everywhere.
 * The contact point and normal for drawing are in world coordinates (x, y,
 * z); the drawing plane is (x, z) = (point[0], point[2]).
 * Concave corners (the terrain turns up: decline -> floor, floor -> incline)
 * need nothing more: each plane's foot point is inside its face whenever the
 * centre is near the corner in the air, so a sphere in the corner has two
 * contacts with zero gap and distinct normals (both segments clamp to the
 * corner only for a centre behind both planes: in the ground, or far beyond
 * a drop, seeing the corner through the ground, never the nearest feature).
 * Convex edges (the rims; the terrain turns down or
 * goes straight on) are shared: in the wedge between the two face normals
 * BOTH segments clamp to the same edge and would report the same contact
 * twice (twice the force with a compliant law, a singular Delassus with a
 * rigid one). So a convex edge E between segments A (before it) and B
 * (after it) is carried by ONE of them, its owner, a discrete mode of the
 * instance: the other clears `active` while its foot point is clamped to E
 * (there its gap is |c - E| - b, never less than the owner's, so no contact
 * is lost); so is its face seen from behind (see face, above), whose
 * nearest feature there is the owner's. The owner changes at located events
 * (system switches, both rising; handover() has the functions):
 *   edge<k>_to_<B>:  min(t_B.(c - E), m.(c - E)) rises through 0: the
 *                    centre crosses the ray of B's normal at E, from the
 *                    wedge into B's quadrant (between that ray and B's
 *                    face);
 *   edge<k>_to_<A>:  min(-t_A.(c - E), -m.(c - E)) rises through 0: into
 *                    A's quadrant;
 * m the unit bisector of t_A and t_B. In the air each is zero only on its
 * normal's ray. The plain +-t.(c - E) is zero on the whole normal line, and
 * where the terrain turns down by more than 90 degrees the line's other
 * half lies in the air, over the other face: that handover fired while the
 * centre rolled up A towards E (from 3.66 b before it at a 105 degree
 * turn), and both candidates carried E when the contact got there. The
 * min() moves the other half into the ground, onto the bisector of the
 * ground's wedge under E, and does not drop it: an overlong step through
 * the ground must not see the function rise and fall again in one step.
 * In a quadrant the owner is therefore that face's segment; in the wedge
 * between the two face normals, whichever was last. Where the owner changes, c - E
 * is along the new owner's face normal, so both candidates give the same
 * gap, normal and local velocity: the total force is continuous, no force is
 * ever counted twice (a compliant contact that also kept the edge just past
 * the handover would push twice over the ~sqrt(2 b delta) where both
 * penetrate), and the rigid runner re-resolves the contact modes at the
 * switch (core/src/run.c) with one closed candidate in place of the other.
 * The initial owners follow the start position (x0 resting on the terrain:
 * B where its handover function is positive, else A); reset() restores
 * them. [initial] overrides of x, z are not seen by the
 * system: a start in a face region whose edge is owned by the other
 * segment counts that edge twice only within ~sqrt(2 b delta) of the
 * handover line, until the first switch there. A straight vertex (equal
 * slopes) is treated as convex; its wedge is a ray, and on that ray (at
 * the switch itself) the segment handing it over is off (straight_lost()).
 *
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sphere_planes.h"

/* ---- geometry ------------------------------------------------------------ */

/* Is (x, z) below the terrain? The profile is a graph over x (angles in
 * [-90, 90], so the vertices' x never decrease; the first and last segments
 * extend indefinitely): compare with the height of the non-vertical segment
 * spanning x, the first segment i (i < n - 1) with x <= x_{i+1} that is not
 * a vertical wall, else the last. Since xv is sorted, the first i with
 * x <= x_{i+1} is found by bisection (O(log n)); from there on that holds
 * for every later i, so the scan after it only steps over vertical walls
 * (c = 0, zero extent in x). Stateless (no cached index): the instance stays read-only
 * during evaluations. */
static int in_ground(const sphere *S, double x, double z) {
    /* Bisection only past 8 segments: on the thesis's 5-segment valley the
     * scan from 0 stops within a few steps and costs fewer instructions
     * (callgrind, issue 25). */
    size_t lo = 0, hi = S->n > 8 ? S->n - 1 : 0; /* the answer is in [lo, n - 1] */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (x <= S->xv[mid + 1])
            hi = mid;
        else
            lo = mid + 1;
    }
    size_t i = lo;
    while (i + 1 < S->n && !(S->seg[i].c > 0.0 && x <= S->xv[i + 1])) ++i;
    const segment *g = &S->seg[i];
    if (!(g->c > 0.0)) return 0; /* only vertical walls there: call it air */
    return z < g->z + (x - g->x) * g->s / g->c;
}

/* Handover function of convex vertex k (E = P_k, between A = segment k - 1
 * and B = segment k) towards B (to_next) or A, at the centre (x, z), with
 * d = c - E and m = (cos, sin) of the mean slope angle (alpha_A +
 * alpha_B)/2, the unit bisector of t_A and t_B:
 *   to B:  min( t_B.d,  m.d),      to A:  min(-t_A.d, -m.d).
 * To B it is zero on the ray of B's normal at E (into the air) and on the
 * ray of -n_m (n_m = (-m_z, m_x)), the bisector of the ground's wedge under
 * E, and positive between them on B's side: B's quadrant (between B's
 * normal and B's face) and the half of the ground's wedge under B; to A
 * likewise on A's side. Both are negative in the wedge between the two
 * face normals. Continuous, piecewise linear. For a straight vertex m = t_B
 * = t_A and they are the plain along-slope coordinates +-t.d, zero on the
 * whole normal line, as for any edge whose terrain turns down by less than
 * 90 degrees as far as the air near E goes (the other half of the normal
 * line lies in the ground). Past 90 degrees that other half is in the air,
 * above the other segment's face: firing there gave the edge to B while
 * the centre rolled on A towards E (both candidates then carried E at the
 * pivot, a duplicated contact and a bogus impulse). The second zero is kept
 * inside the ground's wedge rather than dropped (say -|d| behind B's
 * plane): an overlong step carried through the ground would see the
 * function rise and fall again across B's face, and lose the handover. */
double sp_handover(const sphere *S, size_t k, int to_next, double x, double z) {
    const segment *a = &S->seg[k - 1], *b = &S->seg[k];
    double dx = x - b->x, dz = z - b->z, md = b->mx * dx + b->mz * dz;
    /* A concave corner (model = "thesis"): m.d is the signed distance from
     * the bisector of the air's wedge, positive on B's side; the entered
     * plane takes over THESIS_MARGIN b before the bisector. */
    if (!b->convex_start) return (to_next ? md : -md) + THESIS_MARGIN * S->b;
    if (to_next) return fmin(b->c * dx + b->s * dz, md);
    return fmin(-(a->c * dx + a->s * dz), -md);
}

/* Has segment i handed its start (end) vertex, a convex edge, to the
 * neighbour? */
static int own_start_lost(const sphere *S, size_t i) {
    return i > 0 && S->seg[i].convex_start && !S->owner_next[i];
}
static int own_end_lost(const sphere *S, size_t i) {
    return i + 1 < S->n && S->seg[i + 1].convex_start && S->owner_next[i + 1];
}
/* model = "thesis": has segment i handed a concave corner at either end to
 * the neighbour? Then the whole candidate is off: one plane model at a
 * time near the corner (docs/tumbleweed.md). On the owner's side of the
 * bisector the owner's plane is the nearer of the two, so no contact with
 * the other is missed. */
static int corner_lost(const sphere *S, size_t i) {
    if (!S->thesis) return 0;
    if (i > 0 && !S->seg[i].convex_start && !S->owner_next[i]) return 1;
    return i + 1 < S->n && !S->seg[i + 1].convex_start && S->owner_next[i + 1];
}

/* A straight vertex k (segments k - 1 and k at the same slope: one plane
 * on both sides). Its wedge is a ray: where the owner changes, the centre
 * is on the common normal line, and there (to rounding: the two segments'
 * along-slope coordinates come from different start points) the segment
 * handing the vertex over still has its foot point on its face, at the
 * same point, gap and normal as the new owner's: the one contact twice (a
 * sphere rolling over it was resolved with both closed, the constraint
 * rows identical). So a segment whose straight end vertex the neighbour
 * owns is off wherever the centre is on the owner's side of the handover
 * line or on it, by the switch function's own arithmetic; off it, on its
 * own side, the foot point is on its face and the owner's is clamped to
 * the vertex, which this changes nothing about. */
static int straight_lost(const sphere *S, size_t i, double x, double z) {
    if (own_start_lost(S, i) && S->seg[i].c == S->seg[i - 1].c && S->seg[i].s == S->seg[i - 1].s &&
        sp_handover(S, i, 0, x, z) >= 0.0)
        return 1;
    return own_end_lost(S, i) && S->seg[i + 1].c == S->seg[i].c && S->seg[i + 1].s == S->seg[i].s &&
           sp_handover(S, i + 1, 1, x, z) >= 0.0;
}

feature sp_nearest(const sphere *S, size_t i, double x, double z, int *ground) {
    const segment *g = &S->seg[i];
    double dx = x - g->x, dz = z - g->z;
    double sa = g->c * dx + g->s * dz; /* along-slope coordinate of the foot point */
    feature f;
    f.active = !corner_lost(S, i);
    /* model = "thesis": past a concave corner it owns, a segment is its
     * plane (the thesis's plane model), not clamped to the corner: on its
     * side of the bisector the plane is nearer than the other plane, and
     * the corner point is farther than both (a centre there touching the
     * corner would already have sunk into the neighbour's plane). */
    int past_lo = sa < g->lo && !(S->thesis && i > 0 && !g->convex_start);
    int past_hi = sa > g->hi && !(S->thesis && i + 1 < S->n && !S->seg[i + 1].convex_start);
    if (!past_lo && !past_hi) { /* face */
        /* The foot point is the segment's nearest point, at |h| from the
         * centre. On the air side (h >= 0) the gap is h - b. Behind the
         * plane (h < 0) the centre is either in the ground (it sank through
         * this face, or through the terrain elsewhere): h - b, continuing the
         * air side; or in the air beyond another part of the terrain (a rise
         * and then a steep drop: the line from the centre to the foot point
         * crosses the ground, so some other feature is nearer): then the gap
         * is the distance to the segment, -h - b, and the normal points from
         * the foot point to the centre, -n_i. With this the gap is sg |c -
         * foot| - b, sg = -1 only in the ground, as at the ends: continuous
         * (C1) across the face/end switch on both sides of the plane. */
        double h = -g->s * dx + g->c * dz, sg = 1.0;
        if (h < 0.0) {
            if (*ground < 0) *ground = in_ground(S, x, z);
            if (!*ground) sg = -1.0;
        }
        f.nx = -sg * g->s;
        f.nz = sg * g->c;
        f.gap = sg * h - S->b;
        /* The back of the face, seen through the ground from the air beyond
         * a convex edge at either end that the neighbour owns: the
         * neighbour's face or that edge is the sphere's feature there, and
         * this candidate is off, as where it clamps to that edge (so its
         * flag does not change across its normal line at that edge). */
        if (sg < 0.0 && (own_start_lost(S, i) || own_end_lost(S, i))) f.active = 0;
        if (straight_lost(S, i, x, z)) f.active = 0;
        f.px = g->x + sa * g->c;
        f.pz = g->z + sa * g->s;
        f.kappa = 0.0;
        return f;
    }
    /* End vertex E (a line along y). The distance |c - E| carries the sign
     * of the side of the terrain the centre is on: -|c - E| below it, which
     * continues the face's h - b < -b where the foot point leaves the face,
     * and keeps the gap negative for a centre that has sunk past the end (a
     * long step through the terrain then still shows a sign change). */
    double ex = sa < g->lo ? g->x : g->x + g->hi * g->c;
    double ez = sa < g->lo ? g->z : g->z + g->hi * g->s;
    /* sqrt(rx^2 + rz^2), not hypot (twice the cost in the profile): rx, rz
     * are the centre's offset from a vertex in metres, far from the 1e154 m
     * where a square overflows or the 1e-154 m where it underflows (there
     * rho <= 1e-12 b takes the branch below either way); a diverging run
     * whose centre reaches 1e154 m gets gap = inf, which the host's
     * finiteness check reports. */
    double rx = x - ex, rz = z - ez, rho = sqrt(rx * rx + rz * rz);
    if (*ground < 0) *ground = in_ground(S, x, z);
    double sg = *ground ? -1.0 : 1.0;
    f.px = ex;
    f.pz = ez;
    f.gap = sg * rho - S->b;
    if (rho > 1e-12 * S->b) {
        f.nx = sg * rx / rho;
        f.nz = sg * rz / rho;
        f.kappa = sg / rho;
    } else { /* centre on the edge line: penetration b, no direction; use the face normal */
        f.nx = -g->s;
        f.nz = g->c;
        f.kappa = 0.0;
    }
    /* Clamped to a convex edge that the neighbour owns: off. */
    if (sa < g->lo ? own_start_lost(S, i) : own_end_lost(S, i)) f.active = 0;
    return f;
}

int sp_add_segment(sphere *S, double angle_deg, double length, const char *name) {
    size_t i = S->n;
    if (i >= MAX_SEG) return -1;
    segment *g = &S->seg[i];
    g->x = S->xv[i];
    g->z = S->zv[i];
    g->c = cos(angle_deg * DEG);
    g->s = sin(angle_deg * DEG);
    if (fabs(angle_deg) == 90.0) g->c = 0.0; /* exact vertical walls */
    g->lo = 0.0;
    g->hi = length;
    g->convex_start = 0;
    S->xv[i + 1] = g->x + length * g->c;
    S->zv[i + 1] = g->z + length * g->s;
    snprintf(S->names[i], sizeof S->names[i], "%s", name);
    S->n++;
    return 0;
}

void sp_finish_terrain(sphere *S) {
    double b = S->b;
    size_t n = S->n;
    S->seg[0].lo = -HUGE_VAL;
    S->seg[n - 1].hi = HUGE_VAL;
    for (size_t i = 1; i < n; ++i) {
        /* Turning down (or straight on) along +x: a convex edge. With angles
         * in [-90, 90] the turn is alpha_i - alpha_{i-1} exactly. */
        double turn = atan2(S->seg[i].s, S->seg[i].c) - atan2(S->seg[i - 1].s, S->seg[i - 1].c);
        S->seg[i].convex_start = turn <= 0.0;
        double mean =
            0.5 * (atan2(S->seg[i].s, S->seg[i].c) + atan2(S->seg[i - 1].s, S->seg[i - 1].c));
        S->seg[i].mx = cos(mean);
        S->seg[i].mz = sin(mean);
    }
    for (size_t i = 0; i < n; ++i)
        S->decl[i] = (nsdyn_contact_decl){S->names[i], NSDYN_CONTACT_UNILATERAL, 2};
    /* "crossed" is reaching the far rim: the last vertex must be the top
     * of a rise, an edge where the profile turns down. Where it turns up
     * (floor -> incline) passing it is getting onto the incline, not over
     * it: no crossed stop (it fired there while the body still bounced on
     * the incline, issue 22). */
    double last_turn =
        n >= 2 ? atan2(S->seg[n - 1].s, S->seg[n - 1].c) - atan2(S->seg[n - 2].s, S->seg[n - 2].c)
               : 0.0;
    S->has_cross = n >= 2 && last_turn < 0.0;
    S->x_cross = n >= 2 ? S->xv[n - 1] : 0.0;
    S->x_stop = S->x_cross + CROSS_MARGIN * b;
    S->has_low = n >= 2;
    S->z_low = n >= 2 ? HUGE_VAL : S->zv[0];
    for (size_t k = 1; k < n; ++k)
        if (S->zv[k] <= S->z_low + 1e-12 * (1.0 + fabs(S->z_low))) {
            S->z_low = fmin(S->z_low, S->zv[k]);
            S->x_low = S->xv[k];
        }
    for (size_t v = 1; v < n; ++v) {
        if (!S->seg[v].convex_start && !S->thesis) continue;
        for (int to_next = 1; to_next >= 0; --to_next) {
            size_t j = S->n_sw++;
            S->sw_vertex[j] = v;
            S->sw_to_next[j] = to_next;
            S->sw_dir[j] = +1;
            /* a local copy: GCC (-Wrestrict, sanitizer builds) cannot tell
             * that two arrays of S do not overlap */
            char seg_name[sizeof S->names[0]];
            memcpy(seg_name, S->names[to_next ? v : v - 1], sizeof seg_name);
            snprintf(S->sw_names[j], sizeof S->sw_names[j], "%s%u_to_%.15s",
                     S->seg[v].convex_start ? "edge" : "corner", (unsigned)v, seg_name);
            S->sw_ptr[j] = S->sw_names[j];
        }
    }
    sp_init_modes(S);
}

/* Height at which a sphere centred above x first touches segment i when
 * lowered from above (-HUGE_VAL if it cannot touch it there). */
static double touch_height(const sphere *S, size_t i, double x) {
    const segment *g = &S->seg[i];
    double zt = -HUGE_VAL, b = S->b;
    if (g->c > 0.0) { /* face: the centre b above the plane along its normal */
        double z = g->z + (x - g->x) * g->s / g->c + b / g->c;
        double sa = g->c * (x - g->x) + g->s * (z - g->z);
        if (sa >= g->lo && sa <= g->hi) zt = z;
    }
    for (int end = 0; end < 2; ++end) {
        double t = end ? g->hi : g->lo;
        if (!isfinite(t)) continue;
        double ex = g->x + t * g->c, ez = g->z + t * g->s, dx = x - ex;
        if (fabs(dx) <= b) zt = fmax(zt, ez + sqrt(b * b - dx * dx));
    }
    return zt;
}

/* Height of the centre at x resting on the terrain (lowered from above). */
double sp_rest_height(const sphere *S, double x) {
    double z = -HUGE_VAL;
    for (size_t i = 0; i < S->n; ++i) z = fmax(z, touch_height(S, i, x));
    return z;
}

/* Edge owners at the start position: the segment after a convex vertex
 * owns it when the centre is in its quadrant there (its handover function
 * is positive: past the ray of its normal at the edge, on the air side of
 * its plane), else the segment before it. */
void sp_init_modes(sphere *S) {
    double x = S->x0, z = sp_rest_height(S, x);
    for (size_t v = 0; v < MAX_SEG; ++v) S->owner0[v] = 0;
    for (size_t v = 1; v < S->n && isfinite(z); ++v)
        S->owner0[v] = (S->seg[v].convex_start || S->thesis) && sp_handover(S, v, 1, x, z) > 0.0;
    memcpy(S->owner_next, S->owner0, sizeof S->owner_next);
}

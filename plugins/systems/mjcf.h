/* The mjcf system: a mechanism from a MuJoCo model file (MJCF), driven by
 * nsdyn's contact and friction laws. Shared by mjcf_system.c (the system ABI),
 * mjcf_contacts.c (contact candidates, gaps, Jacobians, drift) and
 * mjcf_model.c (loading, checking and configuring the model).
 * docs/mjcf.md has the derivations. */
#ifndef NSDYN_PLUGIN_MJCF_H
#define NSDYN_PLUGIN_MJCF_H

#include <mujoco/mujoco.h>

#include "nsdyn/system.h"

#define MJCF_NAME_LEN 64

/* What a contact candidate's point is on its body. */
typedef enum mjcf_feature {
    MJCF_POINT = 0, /* a body-fixed point: a site or a box corner */
    MJCF_SPHERE = 1 /* a sphere's centre (a sphere geom, a capsule end) and radius */
} mjcf_feature;

typedef struct mjcf_candidate {
    char name[MJCF_NAME_LEN];
    mjcf_feature feature;
    int site;                      /* site id, or -1 (then geom) */
    int geom;                      /* geom id when site < 0 */
    int body;                      /* body the point is fixed to */
    double local[3];               /* offset in the geom frame [m] (box corner, capsule end) */
    double radius_m;               /* sphere radius, 0 for points */
    int plane;                     /* plane geom id (world body), or -1 (then segment) */
    int segment;                   /* terrain profile segment, or -1 */
    char feat_name[MJCF_NAME_LEN]; /* the feature's name (a rule may name it) */
    int feat_index;                /* index of the feature (shared by its planes and segments) */
} mjcf_candidate;

/* A candidate's geometry at the positions mjData holds: centre C, contact
 * point X, local frame R = [n; t1; t2] (rows), gap; kappa = sg/|C - E|
 * where the frame turns with C about a terrain vertex E (else 0), clamped
 * 0/1/2 (the foot point inside its segment / at its start / end). */
typedef struct mjcf_geo {
    double c[3], x[3], r[3][3], gap, kappa;
    int clamped;
} mjcf_geo;

/* The terrain profile (mjcf_terrain.c): n_vert vertices (x, z) [m], per
 * segment its unit tangent t (x, z) and length [m], per vertex convex;
 * owner[f n_vert + v]: the segment after vertex v owns it for feature f
 * (1), the one before (0), not yet decided (-1); one switch per feature
 * and convex vertex. */
typedef struct mjcf_terrain {
    size_t n_vert;
    double *x, *z, *t, *len;
    int *convex;
    int n_features;
    int *owner;
    size_t n_sw;
    int *sw_feature;
    size_t *sw_vertex;
    char (*sw_names)[64];
    const char **sw_name_ptr;
} mjcf_terrain;

/* A rule that arms a contact (key `arm`, mjcf_arming.c): r(q) = sign
 * (sum coef_k q[qadr_k] - value), the rule holds where r > 0. */
#define MJCF_RULE_TERMS 4
typedef struct mjcf_rule {
    int n_terms;
    int qadr[MJCF_RULE_TERMS];
    double coef[MJCF_RULE_TERMS];
    double value, sign; /* sign +1 for '>', -1 for '<' */
} mjcf_rule;

typedef struct mjcf_inst {
    mjModel *m;
    mjData *d;
    int planar;        /* contacts with 1-D slip along the plane's x axis */
    int engine_mujoco; /* engine = "mujoco": MuJoCo's own steps (mjcf_mujoco.c) */
    long long ticks;   /* MuJoCo steps taken since the start */
    size_t nq, nv, nc;
    nsdyn_channel *q_ch, *v_ch;
    char (*ch_names)[MJCF_NAME_LEN]; /* storage of q_ch, v_ch names: nq + nv */
    char (*ch_labels)[2 * MJCF_NAME_LEN];
    /* outputs: energies, then the frame origin (x, y, z) of every body
     * (body_NAME_x ...) and of every site (site_NAME_x ...) [m] */
    size_t n_out;
    nsdyn_channel *out_ch;
    char (*out_names)[MJCF_NAME_LEN];
    char (*out_labels)[2 * MJCF_NAME_LEN];
    mjcf_candidate *cand;
    nsdyn_contact_decl *decl;
    /* The state mjData holds (valid_pos: positions and everything of them;
     * valid_vel: also velocities and the bias accelerations). */
    double *q_now, *v_now;
    int valid_pos, valid_vel, valid_bias;
    double *cacc_bias;      /* nbody x 6: the bodies' spatial accelerations at v' = 0 */
    double *jacp, *jacr;    /* 3 x nv each */
    double *force, *solved; /* nv each */
    double *q0, *v0;        /* the initial state (keyframe 0 or qpos0) */
    /* arming rules (mjcf_arming.c): armed[c] is candidate c's discrete
     * mode (1 armed), rule_of[c] its rule or -1 */
    mjcf_rule *rules;
    size_t n_rules;
    int *armed, *rule_of;
    double clearance_m;  /* disarm once this far above the surface [m] */
    double *gap_scratch; /* nc gaps */
    mjcf_terrain terrain;
    /* the system's switches (not engine = "mujoco"): arm, disarm when there
     * are rules, then the terrain's handovers */
    size_t n_switches;
    const char **switch_names;
    int *switch_dirs;
} mjcf_inst;

/* mjcf_model.c: read the model file and apply the config's settings;
 * NULL on refusal with the reason in err. */
mjcf_inst *mjcf_model_open(const nsdyn_value *params, char *err, size_t err_len);
void mjcf_model_close(mjcf_inst *s);
/* The did-you-mean of a name among the objects of one type, or NULL. */
const char *mjcf_nearest_name(const mjModel *m, int obj_type, int count, const char *name);

/* mjcf_contacts.c: the candidates named by `spec` (comma or space
 * separated site, geom or body names) against the planes named by
 * `planes` (empty: every plane geom of the world body). 0, or -1 with err. */
int mjcf_contacts_build(mjcf_inst *s, const char *spec, const char *planes, char *err,
                        size_t err_len);
/* What the model offers as contact features, one line: "sites: a b; ...". */
void mjcf_inventory(const mjModel *m, char *out, size_t len);
nsdyn_status mjcf_contacts(void *inst, double t, const double *q, const double *v,
                           const nsdyn_contact_request *request, nsdyn_contact_eval *out);
/* planar = true is honest only where no candidate can move along its
 * plane's y axis (checked at the initial state): 0, or -1 with err. */
int mjcf_check_planar(mjcf_inst *s, char *err, size_t err_len);
/* Add W_c^T lambda_c of every contact to s->force (nv), at the state in d. */
void mjcf_contact_forces(mjcf_inst *s, const double *lambda);

/* The gaps of every candidate at positions q (nc entries) [m]. */
void mjcf_gaps(mjcf_inst *s, const double *q, double *gap);

/* mjcf_arming.c: the rules of key `arm` ("CONTACT: SUM > VALUE; ...") for
 * the candidates built; 0, or -1 with err. */
int mjcf_rules_build(mjcf_inst *s, const char *text, double clearance_m, char *err, size_t err_len);
void mjcf_rules_reset(mjcf_inst *s);
/* The switches "arm" (g[0]) and "disarm" (g[1]) at positions q. */
nsdyn_status mjcf_rules_switches(mjcf_inst *s, const double *q, double *g);
/* Switch `index` (0 arm, 1 disarm) fired at positions q. */
nsdyn_status mjcf_rules_apply(mjcf_inst *s, size_t index, const double *q);

/* mjcf_terrain.c: the profile of keys profile_x, profile_z (both empty:
 * none); 0, or -1 with err. */
int mjcf_terrain_build(mjcf_inst *s, const nsdyn_value *px, const nsdyn_value *pz, char *err,
                       size_t err_len);
void mjcf_terrain_free(mjcf_terrain *T);
/* The handover switches of n_features features named feature_names. */
int mjcf_terrain_switches_build(mjcf_inst *s, int n_features, const char (*feature_names)[64]);
void mjcf_terrain_reset(mjcf_inst *s);
/* g->c set: the rest of g for terrain candidate k. */
void mjcf_terrain_geometry(const mjcf_inst *s, const mjcf_candidate *k, mjcf_geo *g);
/* Is terrain candidate k on (not a convex vertex another segment owns)? */
int mjcf_terrain_active(const mjcf_inst *s, const mjcf_candidate *k, const mjcf_geo *g);
nsdyn_status mjcf_terrain_switches(mjcf_inst *s, const double *q, double *g);
nsdyn_status mjcf_terrain_handover(mjcf_inst *s, size_t k, const double *q, const double *v);

/* mjcf_model.c: candidate k's centre C (world, at the positions mjData
 * holds), and its velocity v_C (needs the velocities synced). */
void mjcf_candidate_centre(const mjcf_inst *s, const mjcf_candidate *k, double *c);
void mjcf_candidate_velocity(mjcf_inst *s, const mjcf_candidate *k, const double *c, double *vc);

/* mjcf_model.c: bring mjData to (q, v): positions always, velocity stages when
 * with_velocity. Quaternions are normalized in the copy MuJoCo reads. */
void mjcf_sync(mjcf_inst *s, const double *q, const double *v, int with_velocity);

/* mjcf_mujoco.c: engine = "mujoco", MuJoCo's mj_step as a switch's reset
 * map at every tick k h. */
void mjcf_mujoco_restart(mjcf_inst *s);
nsdyn_status mjcf_mujoco_switches(void *inst, double t, const double *q, const double *v,
                                  const double *lambda, double *g);
nsdyn_status mjcf_mujoco_step(void *inst, size_t index, double t, double *q, double *v);

/* mjcf_draw.c: the x-z projection of the model's geoms and contacts. */
nsdyn_status mjcf_draw(void *inst, double t, const double *q, const nsdyn_canvas *canvas);

#endif

/* Example out-of-tree plugin: viscous friction with saturation,
 *   F = -c u_t,  capped at |F| <= F_max (0 = no cap),
 * in 1-D or 2-D slip. A smooth law: no internal states. The force does not
 * scale with the normal force, so it declares NSDYN_CAP_FRICTION_LOAD_FREE:
 * fine on the towed wheel's persistent contact, refused with rigid contact
 * (which scales force() at N = 1 by N; `nsdyn check` verifies the rest).
 * Walk-through in docs/plugin-guide.md of the nsdyn source tree. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <nsdyn/nsdyn.h>

enum { P_C, P_F_MAX };

static const nsdyn_param_decl params[] = {
    NSDYN_REAL("c", "N s/m", 50.0, 0.0, HUGE_VAL, "viscous coefficient: force per unit slip speed"),
    NSDYN_REAL("F_max", "N", 0.0, 0.0, HUGE_VAL, "largest force magnitude (0 = unbounded)"),
};

typedef struct viscous {
    double c, F_max;
} viscous;

static void *create(const nsdyn_value *p, const nsdyn_host *host, char *err, size_t len) {
    (void)host;
    viscous *v = malloc(sizeof *v);
    if (!v) {
        snprintf(err, len, "out of memory");
        return NULL;
    }
    v->c = p[P_C].num;
    v->F_max = p[P_F_MAX].num;
    return v;
}

static void destroy(void *inst) { free(inst); }

static size_t n_states(void *inst, uint32_t dim) {
    (void)inst;
    (void)dim;
    return 0;
}

static nsdyn_status force(void *inst, const nsdyn_friction_input *in, double *f, double *rate) {
    (void)rate;
    const viscous *v = inst;
    double s = in->dim == 2 ? hypot(in->slip[0], in->slip[1]) : fabs(in->slip[0]);
    double gain = v->c;
    if (v->F_max > 0 && gain * s > v->F_max) gain = v->F_max / s;
    f[0] = -gain * in->slip[0];
    if (in->dim == 2) f[1] = -gain * in->slip[1];
    return NSDYN_OK;
}

static nsdyn_status bounds(void *inst, double normal_force, double *static_bound,
                           double *kinetic_bound) {
    (void)normal_force;
    const viscous *v = inst;
    *static_bound = 0.0; /* no stick: any slip is resisted, none is held */
    *kinetic_bound = v->F_max > 0 ? v->F_max : HUGE_VAL;
    return NSDYN_OK;
}

static const nsdyn_friction_law viscous_law = {
    .info =
        NSDYN_FRICTION_INFO(.id = "viscous", .version = "1.0.0",
                            .summary =
                                "example plugin: viscous friction -c u with an optional cap F_max",
                            NSDYN_PARAMS(params),
                            .provides = NSDYN_CAP_FRICTION_SMOOTH | NSDYN_CAP_FRICTION_2D |
                                        NSDYN_CAP_FRICTION_LOAD_FREE,
                            .create = create, .destroy = destroy),
    .n_states = n_states,
    .force = force,
    .bounds = bounds,
};

NSDYN_EXPORT const nsdyn_plugin_info *NSDYN_PLUGIN_ENTRY(uint32_t host_abi_major, uint32_t index) {
    return host_abi_major == NSDYN_ABI_MAJOR && index == 0 ? &viscous_law.info : NULL;
}

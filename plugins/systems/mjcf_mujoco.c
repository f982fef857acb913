/* mjcf, engine = "mujoco": MuJoCo's own simulation of the same file, for a
 * side-by-side with nsdyn's exact contact (`nsdyn compare`, docs/mjcf.md).
 *
 * MuJoCo is a discrete-time simulator: its soft contact (solref, solimp),
 * its constraint solver and its integrator (the file's <option> timestep
 * and integrator) make one map (q, v) -> (q, v) per step, mj_step. The
 * system ABI carries a map exactly as a mode switch with a reset map: the
 * switch "mujoco_step" rises at every t_k = k h (h = the file's timestep),
 * and on_switch() applies mj_step to q and v in place. Between ticks the
 * state is held (q' = 0, v' = 0), so any event-locating integrator runs it
 * and the samples are MuJoCo's states (a zero-order hold of its steps: a
 * sample at a tick time shows the state before that tick). Nothing of the
 * host's contact laws takes part: the system exposes no contact candidates.
 * The tick count, not a sum of steps, gives t_k (no drift over 1e6 steps). */
#include <string.h>

#include "mjcf.h"

void mjcf_mujoco_restart(mjcf_inst *s) {
    s->ticks = 0;
    mj_resetData(s->m, s->d); /* forget the solver's warm start */
    s->valid_pos = s->valid_vel = 0;
}

nsdyn_status mjcf_mujoco_switches(void *inst, double t, const double *q, const double *v,
                                  const double *lambda, double *g) {
    (void)q, (void)v, (void)lambda;
    const mjcf_inst *s = inst;
    g[0] = t - (double)(s->ticks + 1) * s->m->opt.timestep;
    return NSDYN_OK;
}

nsdyn_status mjcf_mujoco_step(void *inst, size_t index, double t, double *q, double *v) {
    (void)index;
    mjcf_inst *s = inst;
    mjData *d = s->d;
    memcpy(d->qpos, q, s->nq * sizeof *q);
    memcpy(d->qvel, v, s->nv * sizeof *v);
    d->time = t;
    /* MuJoCo resets its state silently where the state or acceleration is
     * bad (mj_checkPos/Vel/Acc): a run must stop there instead. */
    static const int bad[] = {mjWARN_BADQPOS, mjWARN_BADQVEL, mjWARN_BADQACC};
    int before[3];
    for (int k = 0; k < 3; ++k) before[k] = d->warning[bad[k]].number;
    mj_step(s->m, d);
    for (int k = 0; k < 3; ++k)
        if (d->warning[bad[k]].number != before[k]) return NSDYN_ERROR;
    memcpy(q, d->qpos, s->nq * sizeof *q);
    memcpy(v, d->qvel, s->nv * sizeof *v);
    s->ticks++;
    s->valid_pos = s->valid_vel = 0;
    return NSDYN_OK;
}

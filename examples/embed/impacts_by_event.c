/* Embedding nsdyn (docs/host-api.md): a run a step at a time.
 *
 * The ball of configs/bouncing_ball_newton.toml (radius r, dropped from
 * h = 1 m above its resting height) is run from impact to impact with
 * nsdyn_data_run_to_event, and each impact's time and rebound speed are
 * checked against the closed form of a rigid ball under Newton's law:
 * the first impact at t1 = sqrt(2 h / g) with speed v0 = sqrt(2 g h), the
 * k-th rebound leaving at e^k v0, the next impact 2 e^k v0 / g later.
 * Between two impacts the run goes on to the apex time with
 * nsdyn_data_run_until and reads the state there (the clock is at the end
 * of the step that passed the apex: y within (e^k v0)^2 / (2 g) of rest).
 *
 *   impacts_by_event CONFIG [N]      (N impacts, default 6)
 *
 * Exit 0 when every impact matches the closed form (1e-8 relative: the
 * config's dopri5 at rtol 1e-10 locates each impact). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nsdyn/host.h"

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: impacts_by_event CONFIG [N]\n");
        return 2;
    }
    int n = argc > 2 ? atoi(argv[2]) : 6;
    const char *sets[] = {"run.t_end=3"};
    nsdyn_model *m;
    nsdyn_data *d;
    nsdyn_errors *errors;
    if (nsdyn_model_open(argv[1], sets, 1, &m, &errors) != NSDYN_HOST_OK ||
        nsdyn_data_create(m, &d, &errors) != NSDYN_HOST_OK) {
        fprintf(stderr, "error: %s\n", nsdyn_errors_at(errors, 0));
        return 1;
    }
    double g, e, r, y0;
    nsdyn_data_get_param(d, "system.g", &g);
    nsdyn_data_get_param(d, "contact.e", &e);
    nsdyn_data_get_param(d, "system.r", &r);
    nsdyn_data_get_state(d, "y", &y0);
    double h = y0 - r, v0 = sqrt(2 * g * h), t_expect = sqrt(2 * h / g), u = v0;
    int bad = 0, k = 0;
    nsdyn_host_event ev;
    printf("impact   t [s]           expected        rebound [m/s]   expected\n");
    while (k < n && nsdyn_data_run_to_event(d, &ev) == NSDYN_HOST_OK) {
        if (strcmp(ev.kind, "impact") != 0) continue;
        double rebound = ev.u_after[0];
        u *= e;
        printf("%-8d %-15.10f %-15.10f %-15.10f %-15.10f\n", ++k, ev.t, t_expect, rebound, u);
        bad += fabs(ev.t - t_expect) > 1e-8 * t_expect || fabs(rebound - u) > 1e-8 * u;
        /* to the apex of this flight, and the state there */
        double t_apex = ev.t + u / g, t, y;
        if (nsdyn_data_run_until(d, t_apex) != NSDYN_HOST_OK) break;
        nsdyn_data_time(d, &t);
        nsdyn_data_get_state(d, "y", &y);
        bad += !(t >= t_apex && y - r <= u * u / (2 * g) * (1 + 1e-9));
        t_expect += 2 * u / g;
    }
    if (k < n)
        fprintf(stderr, "error: %d impacts, %d expected: %s\n", k, n, nsdyn_data_last_error(d));
    nsdyn_data_free(d);
    nsdyn_model_free(m);
    printf("%s\n", bad || k < n ? "MISMATCH" : "every impact matches the closed form");
    return bad || k < n;
}

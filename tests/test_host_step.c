/* The host API's run a step at a time (issue 24, nsdyn/host.h 1.1),
 * through the public header and libnsdyn_host only:
 *   - a run advanced in random parts (single steps, run_until to random
 *     times, run_to_event), with the state and the results read between
 *     them, is the whole run bit for bit: every sample, every event, the
 *     counters, the summary, the final state; on event-driven, compliant,
 *     switching, stopping and time-stepping configs;
 *   - between the parts, the samples so far are a prefix of the whole
 *     run's, the clock has reached the time asked for, and get_state reads
 *     the state at the clock;
 *   - run_to_event returns the whole run's events, each once, in time
 *     order, then ENDED;
 *   - bad input: a time past run.t_end or NaN, stepping past the end,
 *     writing a run not at its end: clear errors, nothing lost; a failed
 *     run by steps keeps its data; a parameter set mid-run ends the run.
 * The random sequences come from a seed printed on failure
 * (NSDYN_TEST_SEED repeats one). */
#define _GNU_SOURCE
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host_test_util.h"

#define CFG(name) NSDYN_TEST_SOURCE_DIR "/configs/" name

static unsigned seed;

static const char moreau_ball[] = "title = \"ball, moreau\"\n"
                                  "[system]\nid = \"point_mass\"\nm = 0.1\nr = 0.05\n"
                                  "[contact]\nid = \"newton\"\ne = 0.5\n"
                                  "[integrator]\nid = \"moreau\"\nh = 1e-4\n"
                                  "[initial]\ny = 1.05\n"
                                  "[run]\nt_end = 1.5\noutput_dt = 1e-3\n"
                                  "[plot]\nenabled = false\n";

/* Configs of every kind of run: path (NULL: moreau_ball) and t_end. */
static const struct {
    const char *config, *t_end;
} cases[] = {
    {CFG("bouncing_ball_newton.toml"), "run.t_end=2"},        /* impacts, rest */
    {CFG("bouncing_ball_hunt_crossley.toml"), "run.t_end=1"}, /* compliant, bdf */
    {CFG("towed_wheel_rolling.toml"), "run.t_end=3"},         /* stick / slip */
    {CFG("sphere_rebound_incline.toml"), "run.t_end=1.5"},    /* 3-D impacts */
    {CFG("rimless_wheel_walk.toml"), "run.t_end=4"},          /* switches */
    {CFG("impact_oscillator.toml"), "run.t_end=8"},           /* forced impacts */
    {NULL, "run.t_end=1"},                                    /* time-stepping */
};

static nsdyn_model *open_case(int i) {
    nsdyn_model *m = NULL;
    nsdyn_errors *e = NULL;
    const char *set = cases[i].t_end;
    nsdyn_host_status st =
        cases[i].config ? nsdyn_model_open(cases[i].config, &set, 1, &m, &e)
                        : nsdyn_model_open_string(moreau_ball, "moreau.toml", &set, 1, &m, &e);
    if (st != NSDYN_HOST_OK) ck_abort_msg("case %d: %s", i, nsdyn_errors_at(e, 0));
    return m;
}

static double uniform(void) { return (double)rand() / ((double)RAND_MAX + 1.0); }

static int same_event(const nsdyn_host_event *a, const nsdyn_host_event *b) {
    return memcmp(&a->t, &b->t, sizeof a->t) == 0 && !strcmp(a->kind, b->kind) &&
           !strcmp(a->contact, b->contact) &&
           !memcmp(a->u_before, b->u_before, sizeof a->u_before) &&
           !memcmp(a->u_after, b->u_after, sizeof a->u_after) &&
           !memcmp(a->impulse, b->impulse, sizeof a->impulse);
}

/* The samples and events of part so far are a prefix of whole's. */
static void check_prefix(nsdyn_data *whole, nsdyn_data *part, const char *what) {
    const double *w, *p;
    size_t rw, rp, nc = nsdyn_data_channel_count(whole);
    ck_assert_int_eq(nsdyn_data_samples(whole, &w, &rw), NSDYN_HOST_OK);
    ck_assert_int_eq(nsdyn_data_samples(part, &p, &rp), NSDYN_HOST_OK);
    ck_assert_msg(rp <= rw && memcmp(w, p, rp * nc * sizeof *w) == 0,
                  "%s (seed %u): the %zu samples so far are not the whole run's first", what, seed,
                  rp);
    ck_assert_uint_le(nsdyn_data_event_count(part), nsdyn_data_event_count(whole));
}

/* The summary line without its wall time (", 0.004 s wall"), into buf. */
static const char *no_wall(const char *line, char buf[1024]) {
    snprintf(buf, 1024, "%s", line);
    char *w = strstr(buf, " s wall"), *from = w;
    while (from && from > buf && from[-1] != ',') from--;
    if (w && from > buf) memmove(from - 1, w + 7, strlen(w + 7) + 1);
    return buf;
}

/* part has ended: the same run as whole, bit for bit. */
static void check_same(nsdyn_data *whole, nsdyn_data *part, const char *what) {
    const double *w, *p;
    size_t rw, rp, nc = nsdyn_data_channel_count(whole);
    ck_assert_int_eq(nsdyn_data_samples(whole, &w, &rw), NSDYN_HOST_OK);
    ck_assert_int_eq(nsdyn_data_samples(part, &p, &rp), NSDYN_HOST_OK);
    ck_assert_msg(rw == rp, "%s (seed %u): %zu samples by steps, %zu in one run", what, seed, rp,
                  rw);
    for (size_t i = 0; i < rw * nc; ++i)
        ck_assert_msg(memcmp(&w[i], &p[i], sizeof *w) == 0,
                      "%s (seed %u): row %zu channel %zu: %.17g by steps, %.17g in one run", what,
                      seed, i / nc, i % nc, p[i], w[i]);
    size_t ne = nsdyn_data_event_count(whole);
    ck_assert_uint_eq(nsdyn_data_event_count(part), ne);
    for (size_t i = 0; i < ne; ++i) {
        nsdyn_host_event a, b;
        ck_assert_int_eq(nsdyn_data_event(whole, i, &a), NSDYN_HOST_OK);
        ck_assert_int_eq(nsdyn_data_event(part, i, &b), NSDYN_HOST_OK);
        ck_assert_msg(same_event(&a, &b), "%s (seed %u): event %zu differs", what, seed, i);
    }
    nsdyn_host_summary a, b;
    char w_line[1024], p_line[1024];
    ck_assert_int_eq(nsdyn_data_summary(whole, &a), NSDYN_HOST_OK);
    ck_assert_int_eq(nsdyn_data_summary(part, &b), NSDYN_HOST_OK);
    ck_assert_int_eq(a.outcome, b.outcome);
    ck_assert_int_eq(a.incomplete, b.incomplete);
    ck_assert(memcmp(&a.t_reached, &b.t_reached, sizeof a.t_reached) == 0);
    ck_assert_uint_eq(a.steps, b.steps);
    ck_assert_uint_eq(a.rhs_evals, b.rhs_evals);
    ck_assert_uint_eq(a.rejected_steps, b.rejected_steps);
    ck_assert_uint_eq(a.n_events, b.n_events);
    ck_assert_str_eq(a.message, b.message);
    ck_assert_str_eq(no_wall(nsdyn_data_summary_line(whole), w_line),
                     no_wall(nsdyn_data_summary_line(part), p_line));
    double sw, sp;
    ck_assert_int_eq(nsdyn_data_get_state(whole, nsdyn_data_channel_name(whole, 1), &sw),
                     NSDYN_HOST_OK);
    ck_assert_int_eq(nsdyn_data_get_state(part, nsdyn_data_channel_name(part, 1), &sp),
                     NSDYN_HOST_OK);
    ck_assert(memcmp(&sw, &sp, sizeof sw) == 0);
}

/* One random part: a few steps, a run to a random time ahead, or a run
 * to the next event. Returns the status. */
static nsdyn_host_status random_part(nsdyn_data *d, double t_end, const char *what) {
    double t0, t1, y;
    ck_assert_int_eq(nsdyn_data_time(d, &t0), NSDYN_HOST_OK);
    double u = uniform();
    nsdyn_host_status st;
    if (u < 0.3) {
        int n = 1 + rand() % 20;
        st = NSDYN_HOST_OK;
        for (int k = 0; k < n && st == NSDYN_HOST_OK && (k == 0 || nsdyn_data_running(d)); ++k)
            st = nsdyn_data_step(d);
    } else if (u < 0.7) {
        double t = t0 + uniform() * 0.2 * t_end;
        st = nsdyn_data_run_until(d, fmin(t, t_end));
        ck_assert_int_eq(nsdyn_data_time(d, &t1), NSDYN_HOST_OK);
        ck_assert_msg(st != NSDYN_HOST_OK || t1 >= fmin(t, t_end) || !nsdyn_data_running(d),
                      "%s (seed %u): run_until(%.17g) returned at %.17g", what, seed, t, t1);
    } else {
        nsdyn_host_event e;
        st = nsdyn_data_run_to_event(d, &e);
        ck_assert_int_eq(nsdyn_data_time(d, &t1), NSDYN_HOST_OK);
        if (st == NSDYN_HOST_OK) ck_assert(e.t <= t1 && e.kind && e.contact);
    }
    ck_assert_int_eq(nsdyn_data_time(d, &t1), NSDYN_HOST_OK);
    ck_assert_msg(t1 >= t0, "%s: the clock went back from %.17g to %.17g", what, t0, t1);
    /* the state at the clock reads back, and is finite */
    ck_assert_int_eq(nsdyn_data_get_state(d, nsdyn_data_channel_name(d, 1), &y), NSDYN_HOST_OK);
    ck_assert(isfinite(y));
    return st;
}

START_TEST(parts_equal_whole) {
    nsdyn_model *m = open_case(_i);
    nsdyn_data *whole = host_data(m), *part = host_data(m);
    const char *what = cases[_i].config ? cases[_i].config : "moreau ball";
    nsdyn_host_status whole_st = nsdyn_data_run(whole, 0);
    ck_assert_msg(whole_st == NSDYN_HOST_OK, "%s: %s", what, nsdyn_data_last_error(whole));
    double t_end;
    ck_assert_int_eq(nsdyn_data_get_param(whole, "run.t_end", &t_end), NSDYN_HOST_OK);
    for (int rep = 0; rep < 2; ++rep) {
        ck_assert_int_eq(nsdyn_data_start(part), NSDYN_HOST_OK);
        ck_assert_int_eq(nsdyn_data_running(part), 1);
        nsdyn_host_summary s;
        ck_assert_int_eq(nsdyn_data_summary(part, &s), NSDYN_HOST_OK);
        ck_assert_int_eq(s.outcome, NSDYN_HOST_RUN_GOING);
        int parts = 0;
        nsdyn_host_status st = NSDYN_HOST_OK;
        while (nsdyn_data_running(part) && parts < 100000) {
            st = random_part(part, t_end, what);
            ck_assert_msg(st == NSDYN_HOST_OK || st == NSDYN_HOST_ENDED, "%s (seed %u): %s", what,
                          seed, nsdyn_data_last_error(part));
            check_prefix(whole, part, what);
            parts++;
        }
        ck_assert_int_eq(nsdyn_data_running(part), 0);
        /* nothing more: ENDED, nothing changed */
        ck_assert_int_eq(nsdyn_data_step(part), NSDYN_HOST_ENDED);
        ck_assert_int_eq(nsdyn_data_run_until(part, t_end), NSDYN_HOST_ENDED);
        check_same(whole, part, what);
    }
    nsdyn_data_free(part);
    nsdyn_data_free(whole);
    nsdyn_model_free(m);
}
END_TEST

/* run_to_event from the start: the whole run's events, contact events and
 * switches/stops merged by time (contact events first at one instant). */
START_TEST(events_one_by_one) {
    nsdyn_model *m = open_case(_i);
    nsdyn_data *whole = host_data(m), *part = host_data(m);
    ck_assert_int_eq(nsdyn_data_run(whole, 0), NSDYN_HOST_OK);
    size_t ne = nsdyn_data_event_count(whole), nc = 0;
    nsdyn_host_event *ev = calloc(ne + 1, sizeof *ev);
    for (size_t i = 0; i < ne; ++i) {
        ck_assert_int_eq(nsdyn_data_event(whole, i, &ev[i]), NSDYN_HOST_OK);
        nc += ev[i].contact[0] != '\0';
    }
    size_t ic = 0, io = nc, got = 0;
    nsdyn_host_event e;
    nsdyn_host_status st;
    while ((st = nsdyn_data_run_to_event(part, &e)) == NSDYN_HOST_OK) {
        const nsdyn_host_event *want =
            ic < nc && (io >= ne || ev[ic].t <= ev[io].t) ? &ev[ic++] : &ev[io++];
        ck_assert_msg(got < ne && same_event(&e, want),
                      "event %zu: %s at %.17g, expected %s at %.17g", got, e.kind, e.t, want->kind,
                      want->t);
        double t;
        ck_assert_int_eq(nsdyn_data_time(part, &t), NSDYN_HOST_OK);
        ck_assert(t >= e.t);
        got++;
    }
    ck_assert_int_eq(st, NSDYN_HOST_ENDED);
    ck_assert_uint_eq(got, ne);
    ck_assert_int_eq(nsdyn_data_run_to_event(part, &e), NSDYN_HOST_ENDED);
    check_same(whole, part, "run_to_event");
    free(ev);
    nsdyn_data_free(part);
    nsdyn_data_free(whole);
    nsdyn_model_free(m);
}
END_TEST

/* An event where a step (or run_until) ended is still to come for
 * run_to_event; those before the clock are passed. Every impact of the
 * Newton ball ends a step (the step guard cuts it there). */
START_TEST(event_at_step_end) {
    const char *set = "run.t_end=1.3";
    nsdyn_model *m = host_open(CFG("bouncing_ball_newton.toml"), &set, 1);
    nsdyn_data *d = host_data(m);
    size_t seen = 0, returned = 0;
    while (nsdyn_data_step(d) == NSDYN_HOST_OK) {
        size_t n = nsdyn_data_event_count(d);
        if (n == seen) continue;
        nsdyn_host_event last, e;
        double t, t_after;
        ck_assert_int_eq(nsdyn_data_event(d, n - 1, &last), NSDYN_HOST_OK);
        ck_assert_int_eq(nsdyn_data_time(d, &t), NSDYN_HOST_OK);
        ck_assert(last.t == t);
        ck_assert_int_eq(nsdyn_data_run_to_event(d, &e), NSDYN_HOST_OK);
        ck_assert_int_eq(nsdyn_data_time(d, &t_after), NSDYN_HOST_OK);
        ck_assert(t_after == t && e.t == t); /* no step taken */
        seen = n;
        returned++;
    }
    ck_assert_uint_ge(returned, 3);
    nsdyn_data_free(d);
    nsdyn_model_free(m);
}
END_TEST

START_TEST(bad_input) {
    const char *set = "run.t_end=1";
    nsdyn_model *m = NULL;
    nsdyn_errors *e = NULL;
    ck_assert_int_eq(nsdyn_model_open(CFG("bouncing_ball_newton.toml"), &set, 1, &m, &e),
                     NSDYN_HOST_OK);
    nsdyn_data *d = host_data(m);
    ck_assert_int_eq(nsdyn_data_run_until(d, 2.0), NSDYN_HOST_ERR_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(nsdyn_data_last_error(d), "past the run's end, run.t_end = 1"));
    ck_assert_int_eq(nsdyn_data_run_until(d, NAN), NSDYN_HOST_ERR_ARGUMENT);
    ck_assert_int_eq(nsdyn_data_running(d), 0); /* nothing started */
    ck_assert_int_eq(nsdyn_data_run_until(d, 0.3), NSDYN_HOST_OK);
    ck_assert_int_eq(nsdyn_data_running(d), 1);
    /* a run not at its end has no outputs yet */
    ck_assert_int_eq(nsdyn_data_write(d, "/tmp/nsdyn-never-written"), NSDYN_HOST_ERR_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(nsdyn_data_last_error(d), "still going"));
    char *text = NULL;
    ck_assert_int_eq(nsdyn_data_record(d, &text), NSDYN_HOST_ERR_ARGUMENT);
    ck_assert_ptr_null(text);
    /* the state at the clock: the ball falls from 1.05 m */
    double y, t;
    ck_assert_int_eq(nsdyn_data_get_state(d, "y", &y), NSDYN_HOST_OK);
    ck_assert_int_eq(nsdyn_data_time(d, &t), NSDYN_HOST_OK);
    ck_assert_msg(t >= 0.3 && t <= sqrt(2.0 / 9.81) + 1e-9 &&
                      fabs(y - (1.05 - 0.5 * 9.81 * t * t)) < 1e-9,
                  "t = %.17g s, y = %.17g m", t, y);
    /* a parameter set mid-run ends it; the next step starts a new one */
    ck_assert_int_eq(nsdyn_data_set_param(d, "contact.e", 0.7), NSDYN_HOST_OK);
    ck_assert_int_eq(nsdyn_data_running(d), 0);
    ck_assert_int_eq(nsdyn_data_step(d), NSDYN_HOST_OK);
    ck_assert_int_eq(nsdyn_data_running(d), 1);
    ck_assert_int_eq(nsdyn_data_time(d, &t), NSDYN_HOST_OK);
    ck_assert(t > 0 && t < 0.3);
    /* a whole run ends the stepped one */
    ck_assert_int_eq(nsdyn_data_run(d, 0), NSDYN_HOST_OK);
    ck_assert_int_eq(nsdyn_data_running(d), 0);
    /* a run abandoned before its end (here by a sweep, refused: no
     * [sweep]) is not offered as a result that looks complete */
    ck_assert_int_eq(nsdyn_data_run_until(d, 0.2), NSDYN_HOST_OK);
    nsdyn_host_sweep table;
    ck_assert_int_eq(nsdyn_data_sweep(d, NULL, &table), NSDYN_HOST_ERR_CONFIG);
    ck_assert_int_eq(nsdyn_data_running(d), 0);
    nsdyn_host_summary sum;
    ck_assert_int_eq(nsdyn_data_summary(d, &sum), NSDYN_HOST_ERR_NO_RUN);
    ck_assert_uint_eq(nsdyn_data_event_count(d), 0);
    nsdyn_data_free(d);
    nsdyn_model_free(m);
    /* a run that fails by steps keeps its data, marked incomplete, as
     * nsdyn_data_run's failure does */
    const char *sets[] = {"run.max_events=5", "run.t_end=2"};
    ck_assert_int_eq(nsdyn_model_open(CFG("bouncing_ball_newton.toml"), sets, 2, &m, &e),
                     NSDYN_HOST_OK);
    nsdyn_data *whole = host_data(m);
    d = host_data(m);
    ck_assert_int_eq(nsdyn_data_run(whole, 0), NSDYN_HOST_ERR_RUN_FAILED);
    nsdyn_host_status st;
    t = 0.0;
    while ((st = nsdyn_data_run_until(d, 0.05 + 0.05 * floor(t / 0.05))) == NSDYN_HOST_OK)
        ck_assert_int_eq(nsdyn_data_time(d, &t), NSDYN_HOST_OK);
    ck_assert_int_eq(st, NSDYN_HOST_ERR_RUN_FAILED);
    ck_assert_str_eq(nsdyn_data_last_error(d), nsdyn_data_last_error(whole));
    ck_assert_int_eq(nsdyn_data_running(d), 0);
    check_same(whole, d, "failed run");
    ck_assert_int_eq(nsdyn_data_step(d), NSDYN_HOST_ENDED);
    /* start again: a new run from the initial state */
    ck_assert_int_eq(nsdyn_data_start(d), NSDYN_HOST_OK);
    ck_assert_int_eq(nsdyn_data_time(d, &t), NSDYN_HOST_OK);
    ck_assert(t == 0.0);
    nsdyn_data_free(d);
    nsdyn_data_free(whole);
    nsdyn_model_free(m);
    /* a run the integrator refuses to start (h longer than the run): the
     * config error of nsdyn_data_run, at every try */
    const char *long_h[] = {"integrator.h=1", "run.t_end=0.5"};
    ck_assert_int_eq(nsdyn_model_open_string(moreau_ball, "moreau.toml", long_h, 2, &m, &e),
                     NSDYN_HOST_OK);
    whole = host_data(m);
    d = host_data(m);
    ck_assert_int_eq(nsdyn_data_run(whole, 0), NSDYN_HOST_ERR_CONFIG);
    ck_assert_ptr_nonnull(strstr(nsdyn_data_last_error(whole), "longer than the run"));
    for (int k = 0; k < 2; ++k) {
        ck_assert_int_eq(nsdyn_data_step(d), NSDYN_HOST_ERR_CONFIG);
        ck_assert_str_eq(nsdyn_data_last_error(d), nsdyn_data_last_error(whole));
        ck_assert_int_eq(nsdyn_data_running(d), 0);
    }
    nsdyn_data_free(d);
    nsdyn_data_free(whole);
    nsdyn_model_free(m);
}
END_TEST

int main(void) {
    const char *env = getenv("NSDYN_TEST_SEED");
    seed = env ? (unsigned)strtoul(env, NULL, 10) : (unsigned)time(NULL);
    srand(seed);
    printf("test_host_step: seed %u\n", seed);
    Suite *s = suite_create("host_step");
    TCase *tc = tcase_create("host_step");
    tcase_set_timeout(tc, 120);
    int n = (int)(sizeof cases / sizeof cases[0]);
    tcase_add_loop_test(tc, parts_equal_whole, 0, n);
    tcase_add_loop_test(tc, events_one_by_one, 0, n);
    tcase_add_test(tc, event_at_step_end);
    tcase_add_test(tc, bad_input);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

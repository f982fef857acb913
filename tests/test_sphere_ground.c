/* sphere_planes' in_ground() (plugins/systems/sphere_planes_terrain.c)
 * finds the segment under x by bisection over the sorted vertices past 8
 * segments (issue 25). Randomized profiles of 1 to 64 segments with
 * vertical walls (+-90 degrees, zero extent in x) and equal vertices,
 * against the linear scan it replaced, at points on both sides of the
 * surface, at vertices and beyond both ends. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "../plugins/systems/sphere_planes_terrain.c"

static double uniform(void) { return rand() / (RAND_MAX + 1.0); }

/* The scan before issue 25. */
static int in_ground_scan(const sphere *S, double x, double z) {
    size_t i = 0;
    while (i + 1 < S->n && !(S->seg[i].c > 0.0 && x <= S->xv[i + 1])) ++i;
    const segment *g = &S->seg[i];
    if (!(g->c > 0.0)) return 0;
    return z < g->z + (x - g->x) * g->s / g->c;
}

START_TEST(bisection_agrees_with_the_scan) {
    static sphere S; /* large: not on the stack */
    srand(2502);
    long checked = 0;
    for (int trial = 0; trial < 400; ++trial) {
        S = (sphere){.b = 0.1, .m = 1.0, .J = 0.004, .g = 9.81};
        size_t n = 1 + (size_t)(rand() % MAX_SEG);
        for (size_t i = 0; i < n; ++i) {
            double r = uniform(), angle = r < 0.15  ? 90.0
                                          : r < 0.3 ? -90.0
                                                    : 170.0 * uniform() - 85.0;
            double length = uniform() < 0.1 ? 0.0 : 0.05 + 2.0 * uniform();
            ck_assert_int_eq(sp_add_segment(&S, angle, length, "s"), 0);
        }
        sp_finish_terrain(&S);
        for (int p = 0; p < 200; ++p) {
            double x0 = S.xv[0] - 1.0, x1 = S.xv[n] + 1.0;
            double x = p % 4 == 0 ? S.xv[rand() % (n + 1)] : x0 + (x1 - x0) * uniform();
            double z = -10.0 + 20.0 * uniform();
            ck_assert_int_eq(in_ground(&S, x, z), in_ground_scan(&S, x, z));
            ++checked;
        }
    }
    ck_assert_int_eq(checked, 400 * 200);
}
END_TEST

int main(void) {
    Suite *s = suite_create("sphere_ground");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, bisection_agrees_with_the_scan);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

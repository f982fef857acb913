/* mjcf: contacts armed by a rule of the joint coordinates (key `arm`), the
 * MJCF counterpart of walker_impact's stepping-stone rule (Koop & Wu 2013,
 * Sec. 2.3; plugins/systems/walker_impact.c): a compass walker's swing foot
 * passes through the ramp at mid-stance, and its contact counts only once
 * the swing leg leads the stance leg by more than alpha0.
 *
 * A rule "CONTACT: c1 JOINT1 + c2 JOINT2 ... > VALUE" (or "<"; hinge angles
 * in rad, slides in m; "foot2: th2 - th1 > 0.1745") gives a contact
 * candidate (or each candidate of a feature: foot2 against every plane
 * and terrain segment) a discrete mode of its own, armed or disarmed; a disarmed candidate is
 * off (its `active` flag cleared: no force, no impact, its gap unseen).
 * With r(q) = (sum c_j q_j) - VALUE (sign flipped for "<") and gap g(q):
 *   disarmed -> armed  where min(r, g) rises through 0: the rule holds with
 *                      the feature above the surface (walker_impact: the
 *                      lead exceeds alpha0; if the foot is still below the
 *                      ramp then, it arms when it comes out, as the
 *                      walker's heel-strike function's falling direction
 *                      lets such a foot rise through the ramp unseen);
 *   armed -> disarmed  where min(-r, g - clearance) rises through 0: the
 *                      rule fails and the feature has left the surface by
 *                      `arm_clearance` (walker_impact: the old stance foot
 *                      lifts off at the heel strike). Above the surface no
 *                      law gives a force, so disarming there changes
 *                      nothing but what comes later; a closed contact's
 *                      gap stays within the runner's drift band (1e-9 m),
 *                      far below the clearance (default 1e-6 m), so a
 *                      stance foot is never disarmed.
 * Two system switches carry these: "arm" = the largest min(r, g) over the
 * disarmed candidates, "disarm" = the largest min(-r, g - clearance) over
 * the armed ones with a rule (-1 where there are none), both rising. One
 * switch for all candidates makes a walker's step one crossing of "arm"
 * (the section of `nsdyn periodic`). Each function is continuous between
 * its switches; where a candidate changes sets its value there is below 0
 * in its new set, so no change is a crossing. A run starts with every
 * candidate armed (reset()): start a walker just after a heel strike, both
 * feet on the ramp (a trailing foot that starts above arm_clearance is not
 * disarmed until it has touched and left the ramp: no crossing). docs/mjcf.md section 6. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mjcf.h"

static void trim(char *s) {
    size_t n = strlen(s), a = 0;
    while (a < n && (s[a] == ' ' || s[a] == '\t')) ++a;
    while (n > a && (s[n - 1] == ' ' || s[n - 1] == '\t')) --n;
    memmove(s, s + a, n - a);
    s[n - a] = '\0';
}

/* The scalar joint named at *p (a hinge or slide), its qpos address, or -1
 * with err. Advances *p past the name. */
static int joint_at(const mjModel *m, const char **p, char *err, size_t err_len) {
    char name[MJCF_NAME_LEN];
    size_t n = 0;
    while (**p && !strchr(" \t+-*", **p) && n + 1 < sizeof name) name[n++] = *(*p)++;
    name[n] = '\0';
    int j = n ? mj_name2id(m, mjOBJ_JOINT, name) : -1;
    if (j < 0) {
        const char *near = n ? mjcf_nearest_name(m, mjOBJ_JOINT, m->njnt, name) : NULL;
        snprintf(err, err_len, "key 'arm': the model has no joint '%s'%s%s%s", name,
                 near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
        return -1;
    }
    if (m->jnt_type[j] != mjJNT_HINGE && m->jnt_type[j] != mjJNT_SLIDE) {
        snprintf(err, err_len,
                 "key 'arm': joint '%s' is a free or ball joint; a rule takes hinge and slide "
                 "coordinates only",
                 name);
        return -1;
    }
    return m->jnt_qposadr[j];
}

/* "c1 J1 + c2 J2 - J3 ..." into the rule's terms; 0, or -1 with err. */
static int parse_sum(const mjModel *m, const char *text, mjcf_rule *r, char *err, size_t len) {
    const char *p = text;
    r->n_terms = 0;
    for (;;) {
        while (*p == ' ' || *p == '\t') ++p;
        if (!*p) break;
        double sign = 1.0, coef = 1.0;
        if (*p == '+' || *p == '-') {
            sign = *p == '-' ? -1.0 : 1.0;
            ++p;
            while (*p == ' ' || *p == '\t') ++p;
        } else if (r->n_terms) {
            snprintf(err, len, "key 'arm': expected + or - before \"%s\"", p);
            return -1;
        }
        char *end = NULL;
        double c = strtod(p, &end);
        if (end != p) {
            while (*end == ' ' || *end == '\t') ++end;
            if (*end != '*' || !isfinite(c)) {
                snprintf(err, len, "key 'arm': expected NUMBER * JOINT, found \"%s\"", p);
                return -1;
            }
            coef = c;
            p = end + 1;
            while (*p == ' ' || *p == '\t') ++p;
        }
        if (r->n_terms == MJCF_RULE_TERMS) {
            snprintf(err, len, "key 'arm': at most %d joints in a rule", MJCF_RULE_TERMS);
            return -1;
        }
        int adr = joint_at(m, &p, err, len);
        if (adr < 0) return -1;
        r->qadr[r->n_terms] = adr;
        r->coef[r->n_terms++] = sign * coef;
    }
    if (!r->n_terms) {
        snprintf(err, len, "key 'arm': a rule needs at least one joint coordinate");
        return -1;
    }
    return 0;
}

/* One rule "CONTACT: SUM > VALUE" (CONTACT a candidate or a feature: all
 * its candidates), as rule number `index`; 0, or -1 with err. */
static int parse_rule(mjcf_inst *s, char *text, mjcf_rule *r, int index, char *err, size_t len) {
    char *colon = strchr(text, ':');
    char *cmp = strpbrk(text, "<>");
    if (!colon || !cmp || cmp < colon) {
        snprintf(err, len,
                 "key 'arm': expected \"CONTACT: JOINT - JOINT > VALUE\" items separated by ';', "
                 "found \"%s\"",
                 text);
        return -1;
    }
    *colon = '\0';
    trim(text);
    int found = 0;
    for (size_t c = 0; c < s->nc; ++c) {
        if (strcmp(s->cand[c].name, text) && strcmp(s->cand[c].feat_name, text)) continue;
        if (s->rule_of[c] >= 0) {
            snprintf(err, len, "key 'arm': contact '%s' has two rules", s->cand[c].name);
            return -1;
        }
        s->rule_of[c] = index;
        found = 1;
    }
    if (!found) {
        snprintf(err, len, "key 'arm': '%s' is not one of the contacts (", text);
        for (size_t c = 0; c < s->nc; ++c) {
            size_t used = strlen(err);
            snprintf(err + used, len - used, "%s%s", c ? ", " : "", s->cand[c].name);
        }
        size_t used = strlen(err);
        snprintf(err + used, len - used, ")");
        return -1;
    }
    r->sign = *cmp == '>' ? 1.0 : -1.0;
    *cmp = '\0';
    char *end = NULL;
    r->value = strtod(cmp + 1, &end);
    while (end && (*end == ' ' || *end == '\t')) ++end;
    if (!end || end == cmp + 1 || *end || !isfinite(r->value)) {
        snprintf(err, len, "key 'arm': expected a number after '%c' in the rule for '%s'",
                 r->sign > 0 ? '>' : '<', text);
        return -1;
    }
    return parse_sum(s->m, colon + 1, r, err, len);
}

int mjcf_rules_build(mjcf_inst *s, const char *text, double clearance_m, char *err,
                     size_t err_len) {
    s->armed = calloc(s->nc ? s->nc : 1, sizeof *s->armed);
    s->rule_of = calloc(s->nc ? s->nc : 1, sizeof *s->rule_of);
    if (!s->armed || !s->rule_of) abort();
    for (size_t c = 0; c < s->nc; ++c) s->rule_of[c] = -1;
    s->clearance_m = clearance_m;
    size_t n = 0;
    for (const char *p = text; *p; ++p) n += *p == ';';
    char *buf = strdup(text);
    s->rules = calloc(n + 1, sizeof *s->rules);
    if (!buf || !s->rules) abort();
    char *save = NULL;
    for (char *tok = strtok_r(buf, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
        trim(tok);
        if (!*tok) continue;
        if (parse_rule(s, tok, &s->rules[s->n_rules], (int)s->n_rules, err, err_len)) {
            free(buf);
            return -1;
        }
        s->n_rules++;
    }
    free(buf);
    mjcf_rules_reset(s);
    return 0;
}

void mjcf_rules_reset(mjcf_inst *s) {
    for (size_t c = 0; c < s->nc; ++c) s->armed[c] = 1;
}

static double rule_value(const mjcf_rule *r, const double *q) {
    double v = 0.0;
    for (int k = 0; k < r->n_terms; ++k) v += r->coef[k] * q[r->qadr[k]];
    return r->sign * (v - r->value);
}

/* Both functions of the head comment at (q); gap[c] from mjcf_gaps(). */
static void rule_functions(const mjcf_inst *s, const double *q, const double *gap, double g[2]) {
    g[0] = g[1] = -1.0;
    for (size_t c = 0; c < s->nc; ++c) {
        if (s->rule_of[c] < 0) continue;
        double rv = rule_value(&s->rules[s->rule_of[c]], q);
        if (s->armed[c])
            g[1] = fmax(g[1], fmin(-rv, gap[c] - s->clearance_m));
        else
            g[0] = fmax(g[0], fmin(rv, gap[c]));
    }
}

nsdyn_status mjcf_rules_switches(mjcf_inst *s, const double *q, double *g) {
    mjcf_gaps(s, q, s->gap_scratch);
    rule_functions(s, q, s->gap_scratch, g);
    return NSDYN_OK;
}

nsdyn_status mjcf_rules_apply(mjcf_inst *s, size_t index, const double *q) {
    mjcf_gaps(s, q, s->gap_scratch);
    /* the switch function is a largest value: its argument is the one
     * whose crossing was located */
    int best = -1;
    double best_v = -HUGE_VAL;
    for (size_t c = 0; c < s->nc; ++c) {
        if (s->rule_of[c] < 0 || (index == 0) == s->armed[c]) continue;
        double rv = rule_value(&s->rules[s->rule_of[c]], q), gc = s->gap_scratch[c];
        double v = index == 0 ? fmin(rv, gc) : fmin(-rv, gc - s->clearance_m);
        if (v > best_v) {
            best_v = v;
            best = (int)c;
        }
    }
    if (best >= 0) s->armed[best] = index == 0;
    return NSDYN_OK;
}

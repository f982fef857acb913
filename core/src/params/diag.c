#include "diag.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static void push(nsd_diag *d, char *line) {
    if (d->n == d->cap) {
        d->cap = d->cap ? 2 * d->cap : 8;
        char **lines = realloc(d->lines, d->cap * sizeof *lines);
        if (!lines) abort();
        d->lines = lines;
    }
    d->lines[d->n++] = line;
}

static char *vformat(const char *prefix, const char *fmt, va_list ap) {
    char body[1024];
    vsnprintf(body, sizeof body, fmt, ap);
    size_t len = strlen(prefix) + strlen(body) + 1;
    char *line = malloc(len);
    if (!line) abort();
    snprintf(line, len, "%s%s", prefix, body);
    return line;
}

const char *nsd_node_where(const nsd_toml_node *node, char *buf, size_t len) {
    if (!node || !node->source)
        snprintf(buf, len, "config");
    else if (node->line > 0)
        snprintf(buf, len, "%s:%d:%d", node->source, node->line, node->column);
    else
        snprintf(buf, len, "%s", node->source);
    return buf;
}

void nsd_diag_at(nsd_diag *d, const nsd_toml_node *where, const char *fmt, ...) {
    char prefix[512], pos[480];
    snprintf(prefix, sizeof prefix, "%s: ", nsd_node_where(where, pos, sizeof pos));
    va_list ap;
    va_start(ap, fmt);
    push(d, vformat(prefix, fmt, ap));
    va_end(ap);
}

void nsd_diag_add(nsd_diag *d, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    push(d, vformat("", fmt, ap));
    va_end(ap);
}

void nsd_diag_suffix(nsd_diag *d, size_t first, const char *suffix) {
    for (size_t i = first; i < d->n; ++i) {
        size_t len = strlen(d->lines[i]) + strlen(suffix) + 1;
        char *line = realloc(d->lines[i], len);
        if (!line) abort();
        strcat(line, suffix);
        d->lines[i] = line;
    }
}

/* The message without its "source:line:col: " prefix (identical mistakes
 * at many places compare equal). */
static const char *body_of(const char *line) {
    for (const char *p = line; *p; ++p) {
        if (*p != ':' || !isdigit((unsigned char)p[1])) continue;
        const char *q = p + 1;
        while (isdigit((unsigned char)*q)) q++;
        if (*q == ':' && isdigit((unsigned char)q[1])) {
            q++;
            while (isdigit((unsigned char)*q)) q++;
        }
        if (q[0] == ':' && q[1] == ' ') return q + 2;
    }
    return line;
}

/* At most a screenful (NSD_DIAG_SHOWN distinct messages): one mistake
 * found at many places, or many values refused the same way, is one line
 * with "(and N more like it)"; past the limit "and N more errors". */
void nsd_diag_print(const nsd_diag *d, FILE *out) {
    enum { NSD_DIAG_SHOWN = 20 };
    size_t first[NSD_DIAG_SHOWN], same[NSD_DIAG_SHOWN], n_shown = 0, hidden = 0;
    for (size_t i = 0; i < d->n; ++i) {
        const char *b = body_of(d->lines[i]);
        size_t k = 0;
        while (k < n_shown && strcmp(body_of(d->lines[first[k]]), b) != 0) k++;
        if (k < n_shown) {
            same[k]++;
        } else if (n_shown < NSD_DIAG_SHOWN) {
            first[n_shown] = i;
            same[n_shown++] = 0;
        } else {
            hidden++;
        }
    }
    for (size_t k = 0; k < n_shown; ++k) {
        fprintf(out, "error: %s", d->lines[first[k]]);
        if (same[k]) fprintf(out, " (and %zu more like it elsewhere)", same[k]);
        fputc('\n', out);
    }
    if (hidden)
        fprintf(out, "error: ... and %zu more error%s (not shown: correct the ones above first)\n",
                hidden, hidden == 1 ? "" : "s");
}

void nsd_diag_free(nsd_diag *d) {
    for (size_t i = 0; i < d->n; ++i) free(d->lines[i]);
    free(d->lines);
    memset(d, 0, sizeof *d);
}

/* Levenshtein distance, bounded to short identifiers. */
static size_t edit_distance(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63) return (size_t)-1;
    size_t row[64];
    for (size_t j = 0; j <= lb; ++j) row[j] = j;
    for (size_t i = 1; i <= la; ++i) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; ++j) {
            size_t up = row[j];
            size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            size_t best = diag + cost;
            if (row[j] + 1 < best) best = row[j] + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

const char *nsd_did_you_mean(const char *word, const char *const *candidates, size_t n) {
    const char *best = NULL;
    size_t best_d = (size_t)-1;
    size_t limit = strlen(word) / 3 + 1;
    if (limit < 2) limit = 2;
    for (size_t i = 0; i < n; ++i) {
        size_t dist = edit_distance(word, candidates[i]);
        if (dist < best_d) {
            best_d = dist;
            best = candidates[i];
        }
    }
    return best_d <= limit ? best : NULL;
}

size_t nsd_diag_unknown_keys(nsd_diag *d, const nsd_toml_node *table, const char *what,
                             const char *const *known, size_t n) {
    size_t errors = 0;
    for (size_t i = 0; i < table->n_items; ++i) {
        const nsd_toml_node *e = &table->items[i];
        size_t k = 0;
        while (k < n && strcmp(e->key, known[k]) != 0) k++;
        if (k < n) continue;
        const char *near = nsd_did_you_mean(e->key, known, n);
        nsd_diag_at(d, e, "%s: unknown key '%s'%s%s%s", what, e->key,
                    near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
        errors++;
    }
    return errors;
}

/* Plot names without PLplot: PLplot's escaping of literal text and the output format
 * names. Compiled into libnsdyn (config reads `[plot] format` without loading the plot
 * module, plot/plot_module.c) and into the plot module itself (libnsdyn_plot.so). */
#include <string.h>

#include "plot.h"

size_t utf8_seq_len(const unsigned char *p); /* plot_internal.h, without PLplot's header */

static int ascii_lower(int c) { return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c; }

static int ascii_ieq(const char *a, const char *b) {
    for (; *a && *b; ++a, ++b)
        if (ascii_lower((unsigned char)*a) != ascii_lower((unsigned char)*b)) return 0;
    return *a == *b;
}

/* Length of the valid UTF-8 sequence at p, 0 if invalid. */
size_t utf8_seq_len(const unsigned char *p) {
    unsigned c = p[0];
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) return (p[1] & 0xC0) == 0x80 ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        if ((p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80) return 0;
        if (c == 0xE0 && p[1] < 0xA0) return 0;  /* overlong */
        if (c == 0xED && p[1] >= 0xA0) return 0; /* surrogate */
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if ((p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80 || (p[3] & 0xC0) != 0x80) return 0;
        if (c == 0xF0 && p[1] < 0x90) return 0;
        if (c == 0xF4 && p[1] >= 0x90) return 0;
        return 4;
    }
    return 0;
}

/* A power written in ASCII, "^2" in "m/s^2" or "^-1" in "s^-1", as the superscript
 * characters of Unicode ("m/s²", "s⁻¹"): the exponents -3..3 units and labels use. Only a
 * whole exponent (no digit after it), so "2^10" and PLplot-like "^{...}" stay as written.
 * Returns the bytes of `in` read (0: none) and the superscript in sup. */
static size_t superscript(const unsigned char *p, const char **sup) {
    static const char *const plus[4] = {NULL, NULL, "²", "³"}; /* "^0", "^1" left as is */
    static const char *const minus[4] = {"⁻⁰", "⁻¹", "⁻²", "⁻³"};
    if (p[0] != '^') return 0;
    int neg = p[1] == '-';
    unsigned d = p[1 + neg];
    if (d < '0' || d > '3' || (p[2 + neg] >= '0' && p[2 + neg] <= '9')) return 0;
    *sup = neg ? minus[d - '0'] : plus[d - '0'];
    return *sup ? 2 + (size_t)neg : 0;
}

size_t nsd_plot_escape_text(const char *in, char *out, size_t out_len) {
    if (out == NULL || out_len == 0) return 0;
    size_t o = 0;
    const unsigned char *p = (const unsigned char *)(in ? in : "");
    while (*p) {
        char piece[8];
        size_t k;
        unsigned c = *p;
        const char *sup = NULL;
        size_t skip = superscript(p, &sup);
        if (skip) {
            k = strlen(sup);
            memcpy(piece, sup, k);
            p += skip;
        } else if (c == '#') {
            piece[0] = '#';
            piece[1] = '#';
            k = 2;
            p++;
        } else if (c < 0x20 || c == 0x7F) {
            piece[0] = ' ';
            k = 1;
            p++;
        } else if (c < 0x80) {
            piece[0] = (char)c;
            k = 1;
            p++;
        } else {
            size_t n = utf8_seq_len(p);
            if (n == 0) {
                piece[0] = '?';
                k = 1;
                p++;
            } else if (n == 2 && c == 0xC2 && p[1] < 0xA0) {
                piece[0] = ' '; /* C1 control character */
                k = 1;
                p += 2;
            } else {
                memcpy(piece, p, n);
                k = n;
                p += n;
            }
        }
        if (o + k >= out_len) break;
        memcpy(out + o, piece, k);
        o += k;
    }
    out[o] = '\0';
    return o;
}

/* The Greek letters spelled out in ASCII names, lower case then capital (Unicode's Greek
 * block); omicron, which looks like o, is not among them. */
static const char *const greek[][3] = {
    {"alpha", "α", "Α"},   {"beta", "β", "Β"},  {"gamma", "γ", "Γ"},   {"delta", "δ", "Δ"},
    {"epsilon", "ε", "Ε"}, {"zeta", "ζ", "Ζ"},  {"eta", "η", "Η"},     {"theta", "θ", "Θ"},
    {"iota", "ι", "Ι"},    {"kappa", "κ", "Κ"}, {"lambda", "λ", "Λ"},  {"mu", "μ", "Μ"},
    {"nu", "ν", "Ν"},      {"xi", "ξ", "Ξ"},    {"pi", "π", "Π"},      {"rho", "ρ", "Ρ"},
    {"sigma", "σ", "Σ"},   {"tau", "τ", "Τ"},   {"upsilon", "υ", "Υ"}, {"phi", "φ", "Φ"},
    {"chi", "χ", "Χ"},     {"psi", "ψ", "Ψ"},   {"omega", "ω", "Ω"},
};

/* The letter a token [p, p + n) of a name begins with: a Greek word (all lower case, or
 * capitalised for the capital letter) or one ASCII letter. Returns its length in the
 * name (0: none) and the letter's UTF-8 in *sym. */
static size_t symbol_letter(const char *p, size_t n, const char **sym, char one[2]) {
    for (size_t g = 0; g < sizeof greek / sizeof greek[0]; ++g) {
        size_t k = strlen(greek[g][0]);
        if (k > n || ascii_lower((unsigned char)p[0]) != greek[g][0][0] ||
            strncmp(p + 1, greek[g][0] + 1, k - 1) != 0)
            continue;
        *sym = greek[g][p[0] == greek[g][0][0] ? 1 : 2];
        return k;
    }
    if (n && ((p[0] >= 'a' && p[0] <= 'z') || (p[0] >= 'A' && p[0] <= 'Z'))) {
        one[0] = p[0], one[1] = '\0';
        *sym = one;
        return 1;
    }
    return 0;
}

/* One part of a name (ASCII letters and digits) as a symbol: a letter (above), then digits,
 * then "dot" or "ddot" (a time derivative), and nothing else: "theta1" is θ₁, "phidot" φ̇,
 * "xdot" ẋ, "Omega" Ω. A lone ASCII letter stays as it is. Returns the bytes written to
 * out (0: not a symbol, nothing written). */
static size_t symbol_token(const char *p, size_t n, char *out, size_t cap) {
    static const char *const sub[10] = {"₀", "₁", "₂", "₃", "₄", "₅", "₆", "₇", "₈", "₉"};
    const char *letter = NULL;
    char one[2];
    size_t k = symbol_letter(p, n, &letter, one), d = k;
    if (k == 0) return 0;
    while (d < n && p[d] >= '0' && p[d] <= '9') d++;
    const char *mark = "";
    if (n - d == 4 && strncmp(p + d, "ddot", 4) == 0)
        mark = "\xCC\x88"; /* U+0308 combining diaeresis: a second derivative */
    else if (n - d == 3 && strncmp(p + d, "dot", 3) == 0)
        mark = "\xCC\x87"; /* U+0307 combining dot above: a first derivative */
    else if (d != n)
        return 0;
    if (letter == one && !mark[0] && d == k) return 0; /* "x": as it is */
    size_t o = 0, len = strlen(letter) + strlen(mark) + 3 * (d - k);
    if (len >= cap) return 0;
    memcpy(out, letter, strlen(letter)), o += strlen(letter);
    memcpy(out + o, mark, strlen(mark)), o += strlen(mark);
    for (size_t i = k; i < d; ++i) memcpy(out + o, sub[p[i] - '0'], 3), o += 3;
    return o;
}

static int ascii_alnum(int c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

size_t nsd_plot_symbol(const char *name, char *out, size_t out_len) {
    if (out == NULL || out_len == 0) return 0;
    size_t o = 0;
    const char *p = name ? name : "";
    while (*p && o + 1 < out_len) {
        size_t n = 0;
        while (ascii_alnum((unsigned char)p[n])) n++;
        size_t u = utf8_seq_len((const unsigned char *)p);
        size_t adv = n ? n : (u ? u : 1); /* a part, or one character between parts */
        size_t w = n ? symbol_token(p, n, out + o, out_len - o) : 0;
        if (w == 0) { /* as written */
            w = adv;
            if (o + w >= out_len) break;
            memcpy(out + o, p, w);
        }
        p += adv;
        o += w;
    }
    out[o] = '\0';
    return o;
}

int nsd_plot_format_parse(const char *name, nsd_plot_format *out) {
    if (name == NULL) return -1;
    nsd_plot_format f;
    if (ascii_ieq(name, "png"))
        f = NSD_PLOT_PNG;
    else if (ascii_ieq(name, "svg"))
        f = NSD_PLOT_SVG;
    else if (ascii_ieq(name, "pdf"))
        f = NSD_PLOT_PDF;
    else if (ascii_ieq(name, "svg-text"))
        f = NSD_PLOT_SVG_TEXT;
    else
        return -1;
    if (out) *out = f;
    return 0;
}

const char *nsd_plot_format_ext(nsd_plot_format f) {
    switch (f) {
        case NSD_PLOT_PNG: return "png";
        case NSD_PLOT_SVG: return "svg";
        case NSD_PLOT_PDF: return "pdf";
        case NSD_PLOT_SVG_TEXT: return "svg";
    }
    return "";
}

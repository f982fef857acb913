/* nsdyn plotting module: text widths measured with FreeType where the driver cannot measure
 * them (issue 26). PLplot's own svg driver ("svg-text": no cairo, no Pango, text as <text>)
 * has no string lengths, so the layout estimated them from per-character averages. Here the
 * width is the sum of the advances of the glyphs of DejaVu Sans, the face fontconfig gives
 * for "sans-serif" on Debian (fonts-dejavu-core), which is the family the driver writes, at
 * the sizes the driver writes (drivers/svg.c: font-size = (int)(1.34 chrht 72 / 25.4) pt, a
 * superscript or subscript level (#u, #d) 0.75 of the size around it, also truncated), bold
 * when the stream's font is. Advances unhinted, with the face's kerning pairs, as a browser
 * or librsvg lays SVG text out (a bold title was 2 % wider than its ink without kerning).
 * The glyph index and advance of the first 256 code points are kept per face (a run's
 * figures measure a few hundred strings of them). libfreetype is already loaded with libplplot, so
 * this adds no library; the faces are opened on first use and kept for the next figures (a
 * run draws three or more: opened once, not each time), closed when the module is unloaded or
 * the process ends (ftext_release). A viewer without DejaVu Sans substitutes its sans-serif
 * (Arial, Helvetica: a few percent narrower), so the layout holds there too. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <ft2build.h>
#include FT_FREETYPE_H
#include FT_ADVANCES_H

#include "plot_internal.h"

#ifndef NSD_SANS_FONT_DIR
#define NSD_SANS_FONT_DIR "/usr/share/fonts/truetype/dejavu"
#endif

#define SVG_FONT_SIZE_RATIO 1.34 /* drivers/svg.c, FONT_SIZE_RATIO */
#define SCRIPT_SCALE 0.75        /* src/plsym.c, plP_script_scale */

typedef struct ftext_glyph {
    FT_UInt index; /* in its face; 0: none */
    double adv_em; /* advance [em]; < 0: not looked up yet */
} ftext_glyph;

typedef struct ftext_faces {
    FT_Library lib;
    FT_Face face[2];           /* regular, bold; NULL: missing */
    ftext_glyph latin[2][256]; /* code points 0..255 of each face, looked up once */
} ftext_faces;

/* The faces: opened by the first measurement (nsd_plot_write, which is not re-entrant, is
 * the only caller), read only afterwards. */
static ftext_faces *faces;
static int faces_failed; /* the library or the regular face could not be opened: not retried */

static int ftext_open(void) {
    if (faces) return 0;
    if (faces_failed) return -1;
    static const char *const file[2] = {NSD_SANS_FONT_DIR "/DejaVuSans.ttf",
                                        NSD_SANS_FONT_DIR "/DejaVuSans-Bold.ttf"};
    faces = calloc(1, sizeof *faces);
    if (faces == NULL || FT_Init_FreeType(&faces->lib) != 0) {
        free(faces);
        faces = NULL;
        faces_failed = 1;
        return -1;
    }
    for (int i = 0; i < 2; ++i) {
        if (FT_New_Face(faces->lib, file[i], 0, &faces->face[i]) != 0) faces->face[i] = NULL;
        for (int c = 0; c < 256; ++c) faces->latin[i][c] = (ftext_glyph){0, -1.0};
    }
    if (faces->face[0] == NULL) {
        ftext_release();
        faces_failed = 1;
        return -1;
    }
    return 0;
}

__attribute__((destructor)) void ftext_release(void) {
    if (faces) {
        for (int i = 0; i < 2; ++i)
            if (faces->face[i]) FT_Done_Face(faces->face[i]);
        FT_Done_FreeType(faces->lib);
        free(faces);
    }
    faces = NULL;
}

/* The next code point of UTF-8 text at *p (advanced past it); '?' for an invalid byte. */
static unsigned long next_code(const unsigned char **p) {
    const unsigned char *s = *p;
    size_t n = utf8_seq_len(s);
    if (n == 0) {
        *p = s + 1;
        return '?';
    }
    unsigned long c = n == 1 ? s[0] : s[0] & (0x7F >> n);
    for (size_t i = 1; i < n; ++i) c = (c << 6) | (s[i] & 0x3F);
    *p = s + n;
    return c;
}

/* Glyph and advance of code point c in face k [em]. */
static ftext_glyph glyph_of(int k, unsigned long c) {
    if (c < 256 && faces->latin[k][c].adv_em >= 0.0) return faces->latin[k][c];
    FT_Face f = faces->face[k];
    ftext_glyph g = {FT_Get_Char_Index(f, c), 0.55}; /* an average glyph, if it has none */
    FT_Fixed adv = 0;
    if (FT_Get_Advance(f, g.index, FT_LOAD_NO_SCALE, &adv) == 0)
        g.adv_em = (double)adv / (double)f->units_per_EM;
    if (c < 256) faces->latin[k][c] = g;
    return g;
}

double ftext_string_mm(const char *s) {
    if (ftext_open() != 0) return -1.0;
    PLFLT def = 0.0, ht = 0.0;
    plgchr(&def, &ht);
    PLUNICODE fci = 0;
    plgfci(&fci);
    /* the FCI's weight nibble (plplot.h: PL_FCI_WEIGHT, 1 = bold) */
    int bold = ((fci >> (4 * PL_FCI_WEIGHT)) & 0xF) == PL_FCI_BOLD;
    int k = bold && faces->face[1] ? 1 : 0;
    FT_Face f = faces->face[k];
    double size_pt = SVG_FONT_SIZE_RATIO * ht * 72.0 / 25.4, scale = 1.0, w_pt = 0.0;
    int level = 0; /* of superscripts (> 0) or subscripts (< 0) */
    const unsigned char *p = (const unsigned char *)s;
    FT_UInt prev = 0; /* the glyph before, for the face's kerning (librsvg/Pango apply it) */
    while (*p) {
        if (p[0] == '#' && (p[1] == 'u' || p[1] == 'd')) { /* plP_script_scale: away from the */
            int up = p[1] == 'u';                          /* base line smaller, back larger */
            int away = up ? level >= 0 : level <= 0;
            scale = away ? scale * SCRIPT_SCALE : scale / SCRIPT_SCALE;
            level += up ? 1 : -1;
            p += 2;
            continue;
        }
        if (p[0] == '#' && p[1] == '#') p++; /* a literal '#' */
        unsigned long c = next_code(&p);
        double em_pt = floor(size_pt * scale); /* the driver's (int) size */
        ftext_glyph g = glyph_of(k, c);
        FT_Vector kern = {0, 0};
        if (prev && g.index && FT_HAS_KERNING(f) &&
            FT_Get_Kerning(f, prev, g.index, FT_KERNING_UNSCALED, &kern) == 0)
            w_pt += (double)kern.x / (double)f->units_per_EM * em_pt;
        prev = g.index;
        w_pt += g.adv_em * em_pt;
    }
    return w_pt * 25.4 / 72.0;
}

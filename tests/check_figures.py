#!/usr/bin/env python3
"""Visual test of every kind of figure nsdyn draws (issue 13): render them and check the
layout the plot module reports (NSDYN_PLOT_LAYOUT, core/src/plot/plot_report.c) against rules,
instead of only "a PNG was written":

  1. every text (titles, axis labels, tick labels, legend texts, snapshot labels) lies
     inside the page;
  2. a legend inside a plot area covers no data (no point, segment, event line or picture:
     the module counts them on the box it drew), lies inside that plot area, and a legend
     outside lies outside every plot area;
  3. no title, axis label or legend text overlaps another text, or another panel's plot
     area;
  4. every axis label names a unit ("[...]") and writes Greek letters as such ("ψ", not
     "psi"), and no text cites an equation number "(17)";
  5. no tick label is longer than 9 characters (an axis autoscaled onto rounding: 0.0499999995).

Text boxes have the widths the driver measures (plot_text.c), so overlaps are judged on
boxes shrunk by only 3 % of their size, and "inside the page" with 0.5 mm of slack. The PNGs
themselves are checked too (check_pixels, check_map): nothing on the page's edge, each
figure title's ink within its box, a map's colours those of its colour bar; so are the SVGs
of PLplot's own svg driver (svg-text), rendered by librsvg. A figure with a
deliberately clipped title must be reported (CLIPPED).

Usage: check_figures.py NSDYN_BINARY SOURCE_DIR
"""
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
import zlib

RUNS = [
    # (command, config, extra options): one run of each kind of figure
    ("run", "bouncing_ball_newton.toml", []),  # timeseries, phase, events, snapshots
    ("run", "curb_wheel_poisson_up.toml", []),  # 4 lanes of events, a long title
    ("run", "walker2_gait.toml", ["--set", "run.t_end=2"]),  # highlight band, event lines
    ("run", "towed_wheel_exact.toml", ["--set", "plot.format=pdf"]),  # journal defaults
    ("compare", "bouncing_ball_moreau_vs_event.toml", []),  # deviation + accuracy/cost
    ("compare", "towed_wheel_compare.toml", ["--set", "run.t_end=4"]),  # 8 overlaid runs
    ("limits", "towed_wheel_limits_rolling.toml", []),  # limit directions
]
# summary graphs: the CoM sweep (7 walker runs) shortened
RUNS.append(("compare", "walker2_com_sweep.toml", ["--set", "run.t_end=3"]))
# issue 26: the other commands' figures too
RUNS += [
    ("pcmap", "rimless_pcmap_fig23.toml", []),  # the Percussion-Centre half-plane
    ("periodic", "rimless_hub_periodic.toml", []),  # continuation, multipliers
    # issue 27: the bifurcation diagram (branches, located points, brute force) and the
    # Lyapunov exponents' convergence
    ("periodic", "impact_oscillator_cascade.toml", []),
    ("periodic", "impact_oscillator_lyapunov.toml", []),
    # every kind of sweep graph on 9 short runs: summary by group, bifurcation, heat map
    ("sweep", "../tests/fixtures/sweep_figures.toml", []),
    # the [plot] figure keys: a column-wide figure at 8 pt, overridden title, labels, ranges
    ("run", "../tests/fixtures/figure_keys.toml", []),
    ("run", "towed_wheel_exact.toml", ["--set", "plot.size=\"column\""]),
    ("pcmap", "rimless_pcmap_fig23.toml", ["--set", "plot.size=\"double-column\"",
                                            "--set", "plot.format=\"pdf\""]),
    # [plot] dpi written into every PNG (pHYs): a dpi other than the default 300
    ("run", "bouncing_ball_newton.toml", ["--set", "plot.dpi=150", "--set", "plot.format=\"png\""]),
    # a shared time axis with a ×10^k factor (1 ms: ×10^−3): once, under the lowest panel
    ("run", "impact_oscillator.toml",
     ["--set", "run.t_end=0.001", "--set", "run.output_dt=1e-5"]),
]
# issue 26, round 7: svg-text (PLplot's own svg driver, text as <text> with widths measured
# by FreeType, core/src/plot/plot_ftext.c) is the default format, so every run above draws
# it (rendered by librsvg, rsvg-convert, for the pixel checks); each command's figures once
# more as PNG (memcairo and the module's own PNG writer, plot_png.c)
PNG = ["--set", "plot.format=\"png\""]
RUNS += [
    ("run", "bouncing_ball_newton.toml", PNG),
    ("run", "towed_wheel_exact.toml", PNG),
    ("compare", "bouncing_ball_moreau_vs_event.toml", PNG),
    ("limits", "towed_wheel_limits_rolling.toml", PNG),
    ("pcmap", "rimless_pcmap_fig23.toml", PNG),
    ("periodic", "rimless_hub_periodic.toml", PNG),
    ("sweep", "../tests/fixtures/sweep_figures.toml", PNG),
]
# The test of the test: a figure whose title is clipped (too long even at the smallest size
# a title is set in) must be reported, from its measured box and from the pixels.
CLIPPED = ("run", "../tests/fixtures/clipped_title.toml", [])

SLACK = 0.5  # mm
SHRINK = 0.03
MAP_TOL = 12  # grey levels of 255: a node's colour against its colour bar's (128 shades of
#              about 1.4 levels each, antialiasing of the bar's edge)
TITLE_TOL = 0.25  # of the text height: a title's ink against its measured box (the side
#                   bearings of its first and last glyph, antialiasing)


def shrink(b):
    dx, dy = SHRINK * (b["x1"] - b["x0"]), SHRINK * (b["y1"] - b["y0"])
    return (b["x0"] + dx, b["y0"] + dy, b["x1"] - dx, b["y1"] - dy)


def overlap(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def inside(b, box, slack):
    return (b["x0"] >= box[0] - slack and b["x1"] <= box[2] + slack and
            b["y0"] >= box[1] - slack and b["y1"] <= box[3] + slack)


def is_tick(t):
    """A tick label: a number or a power of ten (not the ×10^k factor of an axis)."""
    return re.fullmatch(r"[−\-+0-9.,^{}e ]+", t["text"]) is not None


def check_figure(fig, problems):
    name = os.path.basename(fig["file"])
    page = (0.0, 0.0, fig["page_w"], fig["page_h"])
    boxes = fig["boxes"][1:]
    plots = {b["panel"]: (b["x0"], b["y0"], b["x1"], b["y1"]) for b in boxes
             if b["kind"] == "plot"}
    texts = [b for b in boxes if b["kind"] in ("text", "axis")]
    for t in texts:
        if not inside(t, page, SLACK):
            problems.append(f"{name}: text '{t['text']}' leaves the page: "
                            f"({t['x0']:.1f}, {t['y0']:.1f})-({t['x1']:.1f}, {t['y1']:.1f}) "
                            f"on {fig['page_w']:.1f} x {fig['page_h']:.1f} mm")
    for lg in (b for b in boxes if b["kind"] == "legend"):
        own = plots.get(lg["panel"])
        box = (lg["x0"], lg["y0"], lg["x1"], lg["y1"])
        if not inside(lg, page, SLACK):
            problems.append(f"{name}: legend of panel {lg['panel']} leaves the page")
        if own and inside(lg, own, 0.0):
            if lg.get("covered", 0):
                problems.append(f"{name}: legend of panel {lg['panel']} covers "
                                f"{lg['covered']} data points or segments")
        else:
            for p, pb in plots.items():
                if overlap(shrink(lg), pb):
                    problems.append(f"{name}: legend of panel {lg['panel']} is partly over "
                                    f"the plot area of panel {p}")
    labels = [t for t in texts if not is_tick(t)]
    for i, a in enumerate(labels):
        for b in labels[i + 1:]:
            if overlap(shrink(a), shrink(b)):
                problems.append(f"{name}: texts overlap: '{a['text']}' and '{b['text']}'")
        for p, pb in plots.items():
            if p != a["panel"] and overlap(shrink(a), pb):
                problems.append(f"{name}: text '{a['text']}' is over panel {p}")
    return len(texts)


def check_labels(fig, problems):
    """Axis labels: every one of a plot's labels with a unit, no equation numbers."""
    name = os.path.basename(fig["file"])
    for t in fig["boxes"][1:]:
        if t["kind"] not in ("text", "axis") or is_tick(t):
            continue
        if re.search(r"\(\d+[a-z]?\)\s*(\[|$)", t["text"]):
            problems.append(f"{name}: '{t['text']}' cites an equation number")
    # axis labels: an x label is one box; a y label (written upwards: taller than wide) may
    # take two lines, outer first
    labels = {}
    plots = {b["panel"]: b for b in fig["boxes"][1:] if b["kind"] == "plot"}
    for t in fig["boxes"][1:]:
        if t["kind"] == "axis":
            vertical = t["y1"] - t["y0"] > t["x1"] - t["x0"]
            # a vertical label left of the plot (y, on one or two lines) or right of it (a
            # map's colour bar)
            right = vertical and t["panel"] in plots and t["x0"] > plots[t["panel"]]["x1"]
            labels.setdefault((t["panel"], vertical, right, None if vertical else id(t)),
                              []).append(t)
    for parts in labels.values():
        text = " ".join(p["text"] for p in sorted(parts, key=lambda p: p["x0"]))
        if not re.search(r"\[[^\]]+\]", text) and text != "contact":  # event lanes
            problems.append(f"{name}: axis label '{text}' has no unit")
        for m in GREEK_WORD.finditer(text):
            problems.append(f"{name}: axis label '{text}' spells out '{m.group(0)}' (the "
                            "symbol: nsd_plot_symbol)")
    for t in fig["boxes"][1:]:
        if t["kind"] == "text" and is_tick(t) and len(t["text"]) > 9:
            problems.append(f"{name}: tick label '{t['text']}' (an axis on rounding?)")


# A Greek letter spelled out in ASCII as a word of its own, digits or "dot" after it
# allowed ("psi", "gamma", "theta1", "phidot"), as channel_labels.py finds them in the
# channel labels (issue 26). A part of a name ("psi_max", a study's metric) or of a dotted
# config key ("system.gamma") is a name, not a symbol, and is not reported.
GREEK_WORD = re.compile(r"(?<![\w.])(" + "|".join(
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi pi rho sigma "
    "tau upsilon phi chi psi omega".split()) + r")\d*(d?dot)?(?![\w.])", re.I)


INK = bytes(1 if v < 153 else 0 for v in range(256))  # dark: text, frames, curves


STACKS = ("timeseries", "deviation", "continuation", "periodic_summary")


def check_shared_x(fig, problems):
    """Stacked panels over one x axis (the stacks of STACKS) share it: in each column of
    panels an x label is written once, under the lowest panel that uses it, and the panels
    above it have neither the label nor x tick labels nor their ×10^k factor of their own
    (issue 26)."""
    name = os.path.basename(fig["file"])
    if not re.sub(r"\.\w+$", "", name) in STACKS:
        return
    boxes = fig["boxes"][1:]
    plots = {b["panel"]: b for b in boxes if b["kind"] == "plot"}
    columns = {}
    for p, b in plots.items():
        columns.setdefault(round(b["x0"]), []).append(p)
    for members in columns.values():
        seen = {}
        for t in boxes:
            if t["kind"] == "axis" and t["panel"] in members and \
                    t["x1"] - t["x0"] > t["y1"] - t["y0"]:
                seen.setdefault(t["text"], []).append(t["panel"])
        labelled = {p for panels in seen.values() for p in panels}
        for text, panels in seen.items():
            if len(panels) > 1:
                problems.append(f"{name}: x label '{text}' repeated under panels {panels}: "
                                "the stack should share one x axis")
                continue
            lowest = plots[panels[0]]
            for p in members:  # the unlabelled panels above share it: no x tick labels
                b = plots[p]
                if p in labelled or b["y0"] <= lowest["y0"] or abs(b["x1"] - lowest["x1"]) > 0.5:
                    continue
                under = [t for t in boxes if t["kind"] == "text" and t["panel"] == p and
                         (is_tick(t) or t["text"].startswith("×10")) and
                         t["y1"] <= b["y0"] + 0.1]
                if under:
                    problems.append(f"{name}: panel {p} has x tick labels or their ×10^k "
                                    "factor under it although its stack shares the x axis of "
                                    f"panel {panels[0]}")


def read_png_ink(path, grey=False):
    """The image as (width, height, bytes with 1 for a dark pixel, row-major; or the grey
    levels themselves), decoded to 8-bit grey by ffmpeg (a dependency already: nsdyn
    animate). An SVG is rendered first by librsvg (rsvg-convert) at 2 px per point, on white."""
    if path.endswith(".svg"):
        png = path + ".render.png"
        r = subprocess.run(["rsvg-convert", "-z", "2", "-b", "white", "-o", png, path],
                           capture_output=True)
        if r.returncode != 0:
            return None
        path = png
    r = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt",
                        "gray", "-"], capture_output=True)
    if r.returncode != 0:
        return None
    with open(path, "rb") as f:  # the size from the PNG's IHDR chunk
        w, h = struct.unpack(">II", f.read(24)[16:24])
    return w, h, r.stdout if grey else r.stdout.translate(INK)


def staged(path):
    """A file drawn into the output's staging directory (.NAME.tmp-XXXXXX), renamed to NAME
    after the command."""
    return re.sub(r"(^|/)\.([^/]+)\.tmp-[^/]+/", r"\1\2/", path)


SEAM_STEP = 6  # grey levels: a pixel lighter than both its neighbours 2 px away by more
#               is a hairline (a seam between two fill polygons that only touch, which
#               vector viewers antialias each on its own); viridis varies by about 1 level
#               per pixel at most across a map drawn at 2 px per point


def check_seams(name, grey, w, h, px, plot, inset, problems):
    """Across every fifth row of the map's plot area (clear of the frame): the share of
    pixels that stand out lighter than both neighbours. 0 with overlapping shades, about
    10 % with the seams (plot_map.c, fill_overlapping); pixels near dark ink (a contour,
    a marker) are skipped."""
    x0, x1 = int((plot["x0"] + inset) * px), int((plot["x1"] - inset) * px)
    y0, y1 = int(h - (plot["y1"] - inset) * px), int(h - (plot["y0"] + inset) * px)
    seams = n = 0
    for y in range(max(y0, 0), min(y1, h), 5):
        row = grey[y * w:(y + 1) * w]
        for x in range(max(x0, 2), min(x1, w - 2)):
            a, b, c = row[x - 2], row[x], row[x + 2]
            if min(a, b, c) < 40:
                continue
            n += 1
            seams += b > a + SEAM_STEP and b > c + SEAM_STEP
    if n and seams > 0.005 * n:
        problems.append(f"{name}: {seams} of {n} map pixels are light hairlines (seams "
                        f"between its shades)")


def check_map(fig, problems):
    """A sweep map against its colour bar: the grid's node values (the plotted CSV) have
    the grey level of the bar at the same value (viridis is monotone in lightness), so the
    scale is neither reversed nor shifted. The map fills its plot (the grid's extent)."""
    path = staged(fig["file"])
    name = os.path.basename(path)
    if not name.endswith(("_map.png", "_map.svg")) or not os.path.exists(path):
        return
    sums = {}
    with open(path[:-4] + ".csv") as f:
        next(f)
        for line in f:
            x, y, v = line.strip().split(",", 2)
            try:
                sums.setdefault((float(x), float(y)), []).append(float(v))
            except ValueError:
                continue  # a category (stop name, failed run): a marker
    if not sums:
        return
    node = {k: sum(v) / len(v) for k, v in sums.items()}
    xs, ys, zs = [k[0] for k in node], [k[1] for k in node], list(node.values())
    plot = next(b for b in fig["boxes"] if b["kind"] == "plot")
    bar = next(b for b in fig["boxes"] if b["kind"] == "legend" and b["x0"] > plot["x1"])
    w, h, grey = read_png_ink(path, grey=True)
    px = w / fig["page_w"]

    def at(xmm, ymm, r=2):  # the median grey of a small square, clear of thin lines
        cx, cy = int(xmm * px), int(h - ymm * px)
        v = sorted(grey[yy * w + xx] for yy in range(cy - r, cy + r + 1)
                   for xx in range(cx - r, cx + r + 1) if 0 <= xx < w and 0 <= yy < h)
        return v[len(v) // 2], v[0]

    inset = 4 / px  # clear of the frame
    check_seams(name, grey, w, h, px, plot, inset, problems)
    zlo, zhi = min(zs), max(zs)
    for (x, y), z in node.items():
        fx = (x - min(xs)) / (max(xs) - min(xs))
        fy = (y - min(ys)) / (max(ys) - min(ys))
        xm = min(max(plot["x0"] + fx * (plot["x1"] - plot["x0"]), plot["x0"] + inset),
                 plot["x1"] - inset)
        ym = min(max(plot["y0"] + fy * (plot["y1"] - plot["y0"]), plot["y0"] + inset),
                 plot["y1"] - inset)
        g_map, darkest = at(xm, ym)
        if darkest < 15:  # a contour line or marker there: not the map's colour
            continue
        fz = (z - zlo) / (zhi - zlo) if zhi > zlo else 0.5
        zm = min(max(plot["y0"] + fz * (plot["y1"] - plot["y0"]), plot["y0"] + inset),
                 plot["y1"] - inset)
        g_bar, _ = at(bar["x0"] + 3 * inset / 4, zm, 1)
        if abs(g_map - g_bar) > MAP_TOL:
            problems.append(f"{name}: the map at ({x:g}, {y:g}) = {z:g} has grey {g_map}, "
                            f"its colour bar at {z:g} has {g_bar}")
    # the bar's tick labels where their values lie on the scale
    n_ticks = 0
    for t in fig["boxes"]:
        if t["kind"] != "text" or not is_tick(t) or t["x0"] < bar["x0"]:
            continue
        v = float(t["text"].replace("\u2212", "-"))
        want = plot["y0"] + (v - zlo) / (zhi - zlo) * (plot["y1"] - plot["y0"])
        n_ticks += 1
        if abs(0.5 * (t["y0"] + t["y1"]) - want) > 0.5:
            problems.append(f"{name}: colour bar label {t['text']} at y = "
                            f"{0.5 * (t['y0'] + t['y1']):.1f} mm, its value at {want:.1f} mm")
    if n_ticks < 2:
        problems.append(f"{name}: the colour bar has {n_ticks} tick labels")


def check_pixels(fig, problems):
    """The measured text boxes against the rendered PNG: nothing is drawn on the page's
    outermost pixels (a clipped text touches them), and the figure title's ink lies within
    its reported box, whose ends it reaches (the box is the measured width, not an
    estimate: a box too narrow lets a clipped title pass, one too wide hides overlaps)."""
    name = os.path.basename(fig["file"])
    path = staged(fig["file"])
    if not path.endswith((".png", ".svg")) or not os.path.exists(path):
        return 0
    img = read_png_ink(path)
    if img is None:
        problems.append(f"{name}: cannot decode {path}")
        return 0
    w, h, ink = img
    if 1 in ink[:w] or 1 in ink[(h - 1) * w:] or 1 in ink[0::w] or 1 in ink[w - 1::w]:
        problems.append(f"{name}: something is drawn on the page's edge (clipped?)")
    px_per_mm = w / fig["page_w"]
    for t in fig["boxes"][1:]:
        if t["kind"] != "text" or t["panel"] != -1:
            continue
        r0 = max(0, int(h - t["y1"] * px_per_mm))
        r1 = min(h, int(h - t["y0"] * px_per_mm) + 1)
        rows = [ink[y * w:(y + 1) * w] for y in range(r0, r1)]
        lefts = [r.find(1) for r in rows if 1 in r]
        if not lefts:
            problems.append(f"{name}: title '{t['text']}' not found in the image")
            continue
        left = min(lefts) / px_per_mm
        right = (max(r.rfind(1) for r in rows) + 1) / px_per_mm
        tol = TITLE_TOL * (t["y1"] - t["y0"])  # side bearings: a fraction of the text size
        if abs(left - t["x0"]) > tol or abs(right - t["x1"]) > tol:
            problems.append(f"{name}: title '{t['text']}' drawn over {left:.1f}..{right:.1f} mm, "
                            f"reported {t['x0']:.1f}..{t['x1']:.1f} mm")
    return 1


def png_dpi(path):
    """The resolution a PNG declares (its pHYs chunk, in pixels per metre: PNG 1.2
    section 4.2.4.2) in pixels per inch, or None without one."""
    with open(path, "rb") as f:
        data = f.read()
    at = 8
    while at + 8 <= len(data):
        n, kind = struct.unpack(">I4s", data[at:at + 8])
        if kind == b"pHYs":
            x, y, unit = struct.unpack(">IIB", data[at + 8:at + 17])
            crc = struct.unpack(">I", data[at + 17:at + 21])[0]
            if unit != 1 or x != y or crc != zlib.crc32(data[at + 4:at + 17]):
                return -1.0  # no metre, not square, or a broken chunk
            return x * 0.0254
        if kind == b"IDAT":
            return None  # pHYs must come before the image data
        at += 12 + n
    return None


def check_dpi(fig, problems, runs):
    """Each PNG declares the dpi of its run's [plot] dpi key (300 unless set), to the
    rounding of pixels per metre (300 dpi = 11811 px/m = 299.9994 dpi)."""
    path = staged(fig["file"])
    if not path.endswith(".png") or not os.path.exists(path):
        return
    k = re.search(r"/\.?out(\d+)[/.]", fig["file"])
    if not k:
        return
    extra = runs[int(k.group(1))][2]
    want = next((float(v.split("=")[1]) for v in extra if v.startswith("plot.dpi=")), 300.0)
    got = png_dpi(path)
    if got is None or abs(got - want) > 0.0254 / 2 + 1e-9:
        problems.append(f"{os.path.basename(path)}: declares {got} dpi, [plot] dpi = {want:g}")


def render(binary, source, runs, tmp, tag, problems):
    """Run every command of `runs` with the layout report on; the report's figures."""
    layout = os.path.join(tmp, f"layout-{tag}.jsonl")
    # sanitizer builds: fontconfig (under cairo) keeps process-lifetime caches that
    # LeakSanitizer reports (as tests/test_plot.c suppresses them)
    supp = os.path.join(tmp, "lsan.supp")
    with open(supp, "w") as f:
        f.write("leak:libfontconfig.so\n")
    env = dict(os.environ, NSDYN_PLOT_LAYOUT=layout,
               LSAN_OPTIONS=f"suppressions={supp}:print_suppressions=0")
    for k, (cmd, cfg, extra) in enumerate(runs):
        out = os.path.join(tmp, f"{tag}{k}")
        args = [binary, cmd, os.path.join(source, "configs", cfg), "-o", out, "-q"] + extra
        r = subprocess.run(args, env=env, capture_output=True, text=True)
        if r.returncode not in (0, 3):
            problems.append(f"{cmd} {cfg}: exit {r.returncode}: {r.stderr.strip()[:300]}")
    if not os.path.exists(layout):
        return []
    with open(layout) as f:
        return [json.loads(line) for line in f]


def check_ticks(fig, problems):
    """svg-text: each x tick label of a plot has a tick mark under it. The frame and its ticks
    are one polyline a side (core/src/plot/plot_frame.c, at the positions of PLplot's
    c_plaxes) while plbox writes the labels: a tick off its label, or a label without a
    tick, shows here. A vertex of a black polyline on the plot's bottom edge within 0.1 mm of
    the label's centre, and one a tick's length above it."""
    path = staged(fig["file"])
    if not path.endswith(".svg") or not os.path.exists(path):
        return
    with open(path) as f:
        svg = f.read()
    if "<text" not in svg:  # cairo's svg: glyph outlines, no labels as text
        return
    mm = 25.4 / 72.0
    verts = set()
    for m in re.finditer(r'<polyline[^>]*?stroke="#000000"[^>]*?points="([^"]*)"', svg, re.S):
        for p in m.group(1).split():
            x, y = p.split(",")
            verts.add((round(float(x) * mm, 1), float(y) * mm))
    by_x = {}
    for x, y in verts:
        by_x.setdefault(x, []).append(y)
    name = os.path.basename(fig["file"])
    boxes = fig["boxes"][1:]
    for b in boxes:
        if b["kind"] != "plot":
            continue
        for t in boxes:
            if t["kind"] != "text" or not is_tick(t) or t["panel"] != b["panel"]:
                continue
            cx = 0.5 * (t["x0"] + t["x1"])
            if not (t["y1"] <= b["y0"] and b["x0"] - 1 <= cx <= b["x1"] + 1):
                continue  # not an x tick label of this plot
            ys = [y for k in (-0.1, 0.0, 0.1) for y in by_x.get(round(cx + k, 1), [])]
            base = [y for y in ys if abs(y - b["y0"]) < 0.1]
            up = [y for y in ys if 0.3 < y - b["y0"] < 5.0]
            if not base or not up:
                problems.append(f"{name}: x tick label {t['text']} at {cx:.1f} mm has no tick "
                                f"mark on the frame under it")


def check_all(fig, problems):
    """Every rule on one figure; the number of text boxes and of images checked."""
    n_texts = check_figure(fig, problems)
    check_labels(fig, problems)
    check_shared_x(fig, problems)
    n_images = check_pixels(fig, problems)
    check_map(fig, problems)
    check_ticks(fig, problems)
    return n_texts, n_images


def main():
    binary, source = sys.argv[1], sys.argv[2]
    problems, n_figs, n_texts, n_images = [], 0, 0, 0
    kinds = set()
    with tempfile.TemporaryDirectory() as tmp:
        for fig in render(binary, source, RUNS, tmp, "out", problems):
            n_figs += 1
            kinds.add(re.sub(r"\.\w+$", "", os.path.basename(fig["file"])))
            t, i = check_all(fig, problems)
            check_dpi(fig, problems, RUNS)
            n_texts, n_images = n_texts + t, n_images + i
        caught = []
        for fig in render(binary, source, [CLIPPED], tmp, "clipped", problems):
            if os.path.basename(fig["file"]).startswith("timeseries"):
                check_all(fig, caught)
        if not any("leaves the page" in c for c in caught) or \
                not any("page's edge" in c for c in caught):
            problems.append("a deliberately clipped title (tests/fixtures/clipped_title.toml) "
                            f"was not reported: {caught}")
    want = {"timeseries", "phase", "events", "snapshots", "deviation", "summary",
            "limit_directions", "pcmap", "continuation", "multipliers", "psi_max_vs_B2",
            "psi_maxima_vs_B2", "psi_max_map", "bifurcation", "lyapunov"}
    if not want <= kinds:
        problems.append(f"figure kinds not rendered: {sorted(want - kinds)}")
    for p in problems:
        print("FAIL:", p)
    print(f"{n_figs} figures, {n_texts} text boxes, {n_images} images checked; "
          f"kinds: {sorted(kinds)}; the clipped title caught ({len(caught)} problems); "
          f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

/* The host's own keys, [run] and [plot], declared like a plugin's
 * parameters (name, type, unit, default, range, help) so that one
 * mechanism (params.c) reads, checks, documents and lists them
 * (`nsdyn keys`). config.c resolves them; config.h names them. */
#include "host_keys.h"

#include <math.h>
#include <stddef.h>

static const char *const audit_choices[] = {"error", "warn", "off", NULL};
static const char *const data_formats[] = {"csv", "csv+hdf5", NULL}; /* nsd_run_settings.hdf5 */
const nsdyn_param_decl nsd_run_decls[NSD_RUN_KEY_COUNT] = {
    [NSD_RUN_T_END] = {"t_end", NSDYN_PARAM_REAL, "s", 0, 0, HUGE_VAL,
                       NSDYN_PARAM_REQUIRED | NSDYN_PARAM_MIN_EXCLUSIVE,
                       "end time of the simulation", NULL, NULL, 0},
    [NSD_RUN_T_START] = {"t_start", NSDYN_PARAM_REAL, "s", 0, -HUGE_VAL, HUGE_VAL, 0, "start time",
                         NULL, NULL, 0},
    [NSD_RUN_OUTPUT_DT] = {"output_dt", NSDYN_PARAM_REAL, "s", 0, 0, HUGE_VAL, 0,
                           "sampling interval of the written data; 0 = (t_end - t_start)/2000",
                           NULL, NULL, 0},
    [NSD_RUN_MAX_SAMPLES] =
        {"max_samples", NSDYN_PARAM_INT, "1", 1e7, 1, 1e9, 0,
         "most samples of the output grid, (t_end - t_start)/output_dt: a larger grid is refused "
         "before the run (each sample holds every channel, 8 bytes each, in memory)",
         NULL, NULL, 0},
    [NSD_RUN_HOLD_STICK] =
        {"hold_stick", NSDYN_PARAM_BOOL, "1", 0, 0, 1, 0,
         "hold every persistent contact in stick (rolling) and report the force that does it", NULL,
         NULL, 0},
    [NSD_RUN_PROGRESS] = {"progress", NSDYN_PARAM_BOOL, "1", 1, 0, 1, 0,
                          "show progress on a terminal", NULL, NULL, 0},
    /* Event-driven contact (core/src/contact/modes_phase.c). */
    [NSD_RUN_REST_RATIO] =
        {"rest_ratio", NSDYN_PARAM_REAL, "1", 1e-6, 0, 0.1, NSDYN_PARAM_MIN_EXCLUSIVE,
         "event-driven contact, the accumulation rule: an approach or rebound slower than this "
         "fraction of the contact's largest impact speed closes it plastically (a bouncing ball "
         "comes to rest; the time to rest is off by at most this fraction of the accumulation's "
         "duration, divided by e)",
         NULL, NULL, 0},
    [NSD_RUN_REST_VELOCITY] =
        {"rest_velocity", NSDYN_PARAM_REAL, "m/s", 1e-5, 0, 1, NSDYN_PARAM_MIN_EXCLUSIVE,
         "event-driven contact: a slip slower than this counts as zero (stick at the start, the "
         "end of 2-D slip)",
         NULL, NULL, 0},
    [NSD_RUN_CONTACT_TOLERANCE] =
        {"contact_tolerance", NSDYN_PARAM_REAL, "m", 1e-9, 0, 1e-3, NSDYN_PARAM_MIN_EXCLUSIVE,
         "event-driven contact: a gap at most this small counts as touching. It is an error in "
         "every contact position: a body comes to rest anywhere in this band above the surface "
         "(1 m let a ball rest 1 m up in the air), so at most 1 mm, and far below the model's "
         "own lengths",
         NULL, NULL, 0},
    [NSD_RUN_MAX_EVENTS] = {"max_events", NSDYN_PARAM_INT, "1", 1000000, 1, 1e9, 0,
                            "event-driven contact: the run fails after this many contact events",
                            NULL, NULL, 0},
    /* The energy audit (core/src/runner/run.c). */
    [NSD_RUN_ENERGY_AUDIT] =
        {"energy_audit", NSDYN_PARAM_CHOICE, "1", 0, -HUGE_VAL, HUGE_VAL, 0,
         "a conservative system with dissipative contact and friction laws must never gain energy: "
         "\"error\" ends the run when it does, \"warn\" counts it in run.toml, \"off\"",
         audit_choices, NULL, 0},
    [NSD_RUN_ENERGY_TOLERANCE] =
        {"energy_tolerance", NSDYN_PARAM_REAL, "1", 1e-4, 0, 1, NSDYN_PARAM_MIN_EXCLUSIVE,
         "energy audit: the rise allowed, relative to the largest |energy| seen (at least 1e-9 J); "
         "the default is 100 times the integrators' default rtol",
         NULL, NULL, 0},
    /* Friction states of open contacts (core/src/model/rhs.c). */
    [NSD_RUN_FRICTION_STATES_OPEN] =
        {"friction_states_open", NSDYN_PARAM_BOOL, "1", 0, 0, 1, 0,
         "integrate a friction law's internal states (LuGre's bristle deflection) while their "
         "contact carries no normal force, from the contact's slip velocity, as the walker paper "
         "does through the swing; false: hold them until the contact closes",
         NULL, NULL, 0},
    /* The kinematic checks of `nsdyn check` before a run (conformance.h). */
    [NSD_RUN_PRECHECK] =
        {"precheck", NSDYN_PARAM_BOOL, "1", 1, 0, 1, 0,
         "before the run, check the system's contact kinematics at a few states around the initial "
         "one, as `nsdyn check` does (Jacobian rows against the gap rate, drift, counts): a "
         "mistake is a config error; false: skip",
         NULL, NULL, 0},
    /* The penetration audit of time-stepping runs (runner/run_audit.c). */
    [NSD_RUN_PENETRATION_AUDIT] =
        {"penetration_audit", NSDYN_PARAM_CHOICE, "1", 0, -HUGE_VAL, HUGE_VAL, 0,
         "time-stepping (moreau): a rigid contact penetrating deeper than penetration_tolerance "
         "is an error of the step size: \"error\" ends the run there, \"warn\" completes it and "
         "says so on the summary line and in run.toml, \"off\" only records the depth",
         audit_choices, NULL, 0},
    [NSD_RUN_PENETRATION_TOLERANCE] =
        {"penetration_tolerance", NSDYN_PARAM_REAL, "m", 1e-2, 0, HUGE_VAL,
         NSDYN_PARAM_MIN_EXCLUSIVE,
         "time-stepping (moreau): the deepest penetration of a rigid contact allowed. Moreau-Jean "
         "resolves an impact within the step it falls in, so a contact penetrates by up to about "
         "h |v_n| per impact and the depth accumulates over a bounce sequence (the shipped ball, "
         "e = 0.5 from 1 m: 3.2 mm at h = 1e-3 s, 6.5 mm at 4e-3 s, 0.35 m at 0.1 s)",
         NULL, NULL, 0},
    [NSD_RUN_TIMEOUT] = {"timeout", NSDYN_PARAM_REAL, "s", 0, 0, 1e7, 0,
                         "wall time of `nsdyn run`'s simulation (0: none): past it the run stops "
                         "between two steps and keeps its data, as after Ctrl-C; a plugin callback "
                         "that does not return within 0.5 s more is abandoned, its data so far "
                         "kept; compare: per variant (that variant fails, the next one runs; a "
                         "callback stuck 2 s more ends compare, the finished variants kept)",
                         NULL, NULL, 0},
    [NSD_RUN_MAX_MEMORY] = {"max_memory", NSDYN_PARAM_REAL, "MiB", 0, 0, 1e9, 0,
                            "address space of `nsdyn run` (RLIMIT_AS; 0: none): an allocation "
                            "past it is refused, so a leaking plugin ends with a message naming "
                            "this key instead of taking the machine's memory",
                            NULL, NULL, 0},
    [NSD_RUN_DATA_FORMAT] =
        {"data_format", NSDYN_PARAM_CHOICE, "1", 0, -HUGE_VAL, HUGE_VAL, 0,
         "the files of a run's samples: \"csv\" (timeseries.csv), \"csv+hdf5\" (also "
         "timeseries.h5: one float64 dataset per channel with its unit, and the run record, "
         "docs/configs.md); in a study's config, every variant's",
         data_formats, NULL, 0},
};
const size_t nsd_n_run_decls = NSDYN_COUNT(nsd_run_decls);

/* in the order of nsd_plot_format (plot.h) */
static const char *const formats[] = {"png", "svg", "pdf", "svg-text", NULL};
static const char *const legend_choices[] = {"best", "outside", "none", NULL};
static const char *const animate_choices[] = {"none", "mp4", "gif", NULL};
static const char *const size_choices[] = {"auto", "column", "double-column", NULL};
const nsdyn_param_decl nsd_plot_decls[] = {
    {"enabled", NSDYN_PARAM_BOOL, "1", 1, 0, 1, 0, "write graphs", NULL, NULL, 0},
    /* svg-text by default (issue 26, round 7): a vector figure with editable text, what a
       journal takes as it is, and the one format cheap enough for a short run's graphs to
       cost at most as much as the run (PNG's rasterizing and zlib: 17x; bench/README.md) */
    {"format", NSDYN_PARAM_CHOICE, "1", 3, -HUGE_VAL, HUGE_VAL, 0,
     "graph file format; \"svg-text\" (the default): svg with editable <text> (PLplot's svg "
     "driver); \"svg\" has glyph outlines; \"png\" at [plot] dpi",
     formats, NULL, 0},
    {"snapshots", NSDYN_PARAM_INT, "1", 12, 0, 200, 0,
     "number of pictures of the system in the strobe graph (0 = none)", NULL, NULL, 0},
    {"snapshot_window", NSDYN_PARAM_REAL_ARRAY, "s", 0, -HUGE_VAL, HUGE_VAL, 0,
     "[t0, t1]: time window of the strobe graph (default: the whole run)", NULL, NULL, 0},
    /* The figure style (docs/figures.md). */
    {"width", NSDYN_PARAM_INT, "1", 0, 0, 10000, 0,
     "figure width: pixels for png, points (1/72 in) for svg and pdf; 0 = automatic (png: "
     "1200 px; svg/pdf: 504 pt, a two-column journal figure)",
     NULL, NULL, 0},
    {"height", NSDYN_PARAM_INT, "1", 0, 0, 10000, 0,
     "figure height in the unit of width; 0 = automatic (in proportion to width)", NULL, NULL, 0},
    {"font_scale", NSDYN_PARAM_REAL, "1", 1.0, 0.25, 4.0, 0,
     "text size relative to the default (svg/pdf default: 8 pt text at the automatic width)", NULL,
     NULL, 0},
    {"line_width", NSDYN_PARAM_REAL, "1", 1.0, 0.1, 10.0, 0, "line widths relative to the default",
     NULL, NULL, 0},
    {"legend", NSDYN_PARAM_CHOICE, "1", 0, -HUGE_VAL, HUGE_VAL, 0,
     "where legends go: \"best\" (an inside corner that covers no data, else outside), "
     "\"outside\" (right of the plot), \"none\"",
     legend_choices, NULL, 0},
    /* Journal size presets (docs/figures.md): every figure this width, its height in
       proportion, the text in points. */
    {"size", NSDYN_PARAM_CHOICE, "1", 0, -HUGE_VAL, HUGE_VAL, 0,
     "a journal width for every figure: \"column\" (88 mm), \"double-column\" (180 mm) or "
     "\"auto\" (width, height); the height in proportion",
     size_choices, NULL, 0},
    {"dpi", NSDYN_PARAM_INT, "1/in", 300, 72, 1200, 0,
     "png pixels per inch: written into every png (its pHYs chunk), and the pixels of a size "
     "preset's width (svg and pdf are in points)",
     NULL, NULL, 0},
    {"font_pt", NSDYN_PARAM_REAL, "pt", 8.0, 4.0, 24.0, 0,
     "text size in points with a size preset (times font_scale)", NULL, NULL, 0},
    /* The run's animation (animate.h, nsdyn animate). */
    {"animate", NSDYN_PARAM_CHOICE, "1", 0, -HUGE_VAL, HUGE_VAL, 0,
     "a video of the mechanism moving beside the graphs: \"mp4\", \"gif\" or \"none\" "
     "(needs ffmpeg; nsdyn animate RUN_DIR makes one later)",
     animate_choices, NULL, 0},
    {"animate_slow", NSDYN_PARAM_REAL, "1", 1.0, 1e-3, 1e6, 0,
     "video seconds per simulated second (1: the recorded time scale)", NULL, NULL, 0},
    {"animate_fps", NSDYN_PARAM_INT, "1", 25, 1, 60, 0, "frames per second of the video", NULL,
     NULL, 0},
    {"animate_trails", NSDYN_PARAM_INT, "1", 0, 0, 50, 0,
     "earlier frames drawn fainter behind the current one", NULL, NULL, 0},
};
const size_t nsd_n_plot_decls = NSDYN_COUNT(nsd_plot_decls);

/* [plot.figure.NAME] and [plot.figure."NAME.K"]: one figure's (or its K-th panel's)
 * overrides (plot_figures.c, output/figure_keys.c). Strings set to "" keep the figure's own. */
const nsdyn_param_decl nsd_plot_figure_decls[] = {
    {"title", NSDYN_PARAM_STRING, "1", 0, 0, 0, 0,
     "the figure's title (NAME.K: panel K's title; a figure of one panel without an overall "
     "title: its panel's)",
     NULL, NULL, 0},
    {"xlabel", NSDYN_PARAM_STRING, "1", 0, 0, 0, 0,
     "x axis label of every panel (NAME.K: of panel K), with its unit", NULL, NULL, 0},
    {"ylabel", NSDYN_PARAM_STRING, "1", 0, 0, 0, 0,
     "y axis label of every panel (NAME.K: of panel K), with its unit", NULL, NULL, 0},
    {"xlim", NSDYN_PARAM_REAL_ARRAY, "1", 0, -HUGE_VAL, HUGE_VAL, 0,
     "[lo, hi]: the x range, in the axis' unit", NULL, NULL, 0},
    {"ylim", NSDYN_PARAM_REAL_ARRAY, "1", 0, -HUGE_VAL, HUGE_VAL, 0,
     "[lo, hi]: the y range, in the axis' unit", NULL, NULL, 0},
    {"width", NSDYN_PARAM_INT, "1", 0, 0, 10000, 0,
     "the figure's width (px for png, pt for svg and pdf; 0 = as [plot]); not per panel", NULL,
     NULL, 0},
    {"height", NSDYN_PARAM_INT, "1", 0, 0, 10000, 0,
     "the figure's height in the unit of width (0 = in proportion); not per panel", NULL, NULL, 0},
};
const size_t nsd_n_plot_figure_decls = NSDYN_COUNT(nsd_plot_figure_decls);

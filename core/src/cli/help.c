/* The command line's documentation (help.h): one table, four printers. */
#include "help.h"

#include <string.h>

#include "nsdyn/plugin.h"
#include "nsdyn_build_config.h"

static const nsd_command_help commands[] = {
    {"run", "CONFIG [options]", "run one simulation",
     "Runs the simulation a config describes and writes into DIR (default\n"
     "out/<config name>): timeseries.csv (units in the header), events.csv for\n"
     "event-driven runs, run.toml (the resolved config with provenance, itself a\n"
     "runnable config) and the graphs of [plot]. The outputs are written into a\n"
     "fresh folder that replaces DIR in one rename when everything is written;\n"
     "a run that fails keeps what it computed in DIR.INCOMPLETE/ and leaves DIR\n"
     "untouched.\n"
     "\n"
     "The summary line gives the outcome, the time reached, the cost (steps,\n"
     "right-hand sides) and the events by kind.",
     1},
    {"compare", "CONFIG [options] [--repeat N]", "run variants of a config side by side",
     "Runs the config's [[variant]] tables, each laid over the base config (a\n"
     "section whose plugin changes is replaced, other keys merge), overlays\n"
     "their graphs and tabulates against the reference variant, per channel,\n"
     "the RMS, largest and final-time errors at the reference's samples, the\n"
     "event-time errors of matched events, rest and stop times, energy and its\n"
     "dissipation, and the cost (steps; wall time as the median and range of\n"
     "--repeat N runs, 1 to 100), with each variant's plugins and parameters:\n"
     "metrics.csv, metrics.md, metrics.tex ([compare] reference, channels, x,\n"
     "summary; docs/configs.md, docs/figures.md).",
     1},
    {"limits", "CONFIG [options]", "limit directions of a 2-D Coulomb contact",
     "At the config's initial state, on the discontinuity set of a persistent\n"
     "contact with 2-D slip: the limit-direction functions R(phi) and V(phi) of\n"
     "the towed-wheel paper's (3), their roots (attracting or repelling), the\n"
     "stick-force test, and the u1-u2 phase portrait; writes\n"
     "limit_directions.csv, limit_functions.csv and the graphs.",
     1},
    {"periodic", "CONFIG [options]", "periodic orbits: shooting, Floquet multipliers, continuation",
     "Finds a periodic orbit through the config's [periodic] section (a system\n"
     "switch as the Poincare section, the free states, states swapped after a\n"
     "step) by Newton shooting on the section map with a finite-difference\n"
     "Jacobian; reports the fixed point, the period, the Floquet multipliers and\n"
     "stability, checks that the orbit repeats under plain simulation, and\n"
     "continues it along parameters with the multipliers along the branch\n"
     "(method = \"arclength\": round folds, bifurcations and grazing located,\n"
     "branch switching at period doubling; branches.csv, special.csv,\n"
     "bifurcation.png). [periodic.lyapunov]: the Lyapunov exponents of the\n"
     "trajectory instead (docs/periodic.md). A Newton iteration that does not\n"
     "converge prints its residual history (exit 3).",
     1},
    {"pcmap", "CONFIG [options]", "the Percussion-Centre half-plane of two planar contacts",
     "At the config's initial state, for the two planar unilateral contact\n"
     "candidates nearest the ground (Barjau & Batlle 2022): the critical\n"
     "friction coefficients mu_DP, mu_c, mu_inf, mu_i from the contact geometry\n"
     "and the affine response, the PC half-plane's lines and points (lambda-\n"
     "and mu-lines, the hyperbola (4.2)), the domains of a first phase shaded\n"
     "(DP, jamb, SP-DP, sliding grows, reversal), and the critical values\n"
     "against lambda; with a [pcmap] table (along = \"system.beta\", from, to,\n"
     "steps) also along that parameter, where mu_DP appears or vanishes and\n"
     "equals mu_c bisected; writes pcmap.csv, pcmap_critical.csv,\n"
     "pcmap_along.csv, pcmap_marks.csv and pcmap.png (docs/rimless-wheel.md).",
     1},
    {"sweep",
     "CONFIG [-j N] [-o DIR] [--db FILE] [--csv FILE] [--set ...] [-q] [--in-process] "
     "[--retry-crashed]",
     "a parameter study: the config's [sweep] runs in worker processes, into SQLite",
     "Runs every combination of the [sweep] axes' values (or a seeded random or\n"
     "Latin-hypercube design) in N worker processes (-j N; a run that crashes\n"
     "or outlives [sweep] run_timeout is a failed row, not retried on resume\n"
     "without --retry-crashed; --in-process: N threads, no isolation; under\n"
     "mpirun in an MPI build, across ranks), and keeps one row of summaries per run in\n"
     "DIR/sweep.sqlite (default DIR out/<config name>). The same command on the\n"
     "same database goes on where it stopped; a database of another definition\n"
     "is refused. Then writes runs.csv (--csv FILE elsewhere, --no-csv none)\n"
     "and the [[sweep.graph]]s (--no-graphs none). Every axis value is checked\n"
     "before the first run. Exit status 0 when the runs were done (failed runs\n"
     "are rows with their message), 2 config error, 4 an output could not be\n"
     "written (docs/sweep.md).",
     0},
    {"animate", "RUN_DIR [options]", "a video of the mechanism moving, from a run's folder",
     "Draws the system (its own drawing, as in snapshots.png) at the samples of\n"
     "RUN_DIR/timeseries.csv, rebuilt from RUN_DIR/run.toml, one frame per\n"
     "1/fps s of video, stamped with the simulated time; --slow X plays X video\n"
     "seconds per simulated second (default 1, the recorded time scale);\n"
     "--trails N draws the N frames before fainter. Encoded by ffmpeg (Debian's\n"
     "ffmpeg) to MP4 (H.264) or GIF. A run writes one itself with [plot] animate\n"
     "= \"mp4\" or \"gif\" (docs/figures.md). Exit status 4 when ffmpeg is\n"
     "missing or fails.",
     0},
    {"keys", "CONFIG [--set section.key=value]... [--names]",
     "the keys a config accepts, with values, units and ranges",
     "Lists every key of the config's sections: [run] and [plot] (the host's)\n"
     "and [system], [contact], [friction], [integrator] (their plugins'), with\n"
     "the value the config resolves to, its unit, range and help: what --set\n"
     "can change. --names prints only section.key= (for shell completion).",
     0},
    {"plugins", "[--ids]", "list the plugins on the search path",
     "Opens and checks every shared object on the plugin search path and\n"
     "lists its plugins by kind (id, version, summary); also reports what a run\n"
     "would meet (stale or missing indexes). Exit status 2 if one is broken.\n"
     "--ids prints only the ids, one per line, from the indexes (nothing is\n"
     "opened).",
     0},
    {"describe", "ID", "a plugin's parameters, and a system's layout",
     "Prints a plugin's kind, version, file, capabilities and parameters\n"
     "(units, defaults, ranges, help). For a system, also what it declares\n"
     "with its default parameters: states (for [initial]), outputs (for\n"
     "plot.series and compare channels), contacts, stop conditions and\n"
     "switches. For a friction law, its internal states.",
     0},
    {"check", "PLUGIN.so...", "run the conformance checks on plugin files",
     "Checks every plugin in the files the way the host's own are checked:\n"
     "descriptors and parameter declarations well formed; create() and\n"
     "destroy() with the defaults; a system's derivatives() affine in the\n"
     "contact forces and consistent when asked for one half; at 24 random\n"
     "states: nothing written or read past the layout's counts, every value\n"
     "finite, each contact's Jacobian rows against its velocity, its gap rate\n"
     "and its drift (finite differences along the motion), the contact\n"
     "forces' work against the rows, a CONSERVATIVE system's energy in free\n"
     "flight, energy_output and plot names; friction laws finite, dissipative,\n"
     "inside the cone and proportional to the normal force; compliant laws\n"
     "never pulling; a rigid law's impact() dissipative, inside the cone and\n"
     "honouring the problem's restitution_scale (ABI 2.4; before, equal to its\n"
     "local_impulse() for one contact); the same inputs give the\n"
     "same outputs; and, in builds without sanitizers, no allocation in the\n"
     "hot-path callbacks. Each plugin runs in a child process limited to\n"
     "--timeout seconds (default 60): a crash, abort, exit() or endless loop\n"
     "is a finding naming the callback. One line per finding; exit status 2\n"
     "if any.",
     0},
    {"index", "PLUGIN.so...", "check plugins and write their index",
     "Checks the plugins in each file and writes PLUGIN.so.nsdyn-index next\n"
     "to it, which runs read instead of opening the file (they open it only\n"
     "for the ids it lists). nsdyn_add_plugin runs it when it builds a plugin.",
     0},
    {"help", "[COMMAND | --man | --bash-completion | --zsh-completion | --fish-completion]",
     "help on a command",
     "Without an argument, the overview. With a command, its help (as\n"
     "`nsdyn COMMAND --help`). --man prints the man page nsdyn(1) in roff;\n"
     "--bash-completion, --zsh-completion and --fish-completion a completion\n"
     "script for that shell, each option offered only to the commands that take\n"
     "it (installed as share/bash-completion/completions/nsdyn,\n"
     "share/zsh/vendor-completions/_nsdyn and\n"
     "share/fish/vendor_completions.d/nsdyn.fish).",
     0},
    {"--version", "", "the host's version and plugin ABI", "", 0},
};

/* Every option of every command: the getopt_long tables (cli_args.c), the
 * help, the man page and the completions are all made from it. */
static const nsd_option_help options[] = {
    {'o', "output", "DIR", "write into DIR (default out/<config name>)",
     " run compare limits periodic pcmap sweep "},
    {'o', "output", "FILE", "write the video to FILE, .mp4 or .gif (default RUN_DIR/animation.mp4)",
     " animate "},
    {NSD_OPT_SET, "set", "section.key=value",
     "override one value (repeat it); `nsdyn keys CONFIG` lists them",
     " run compare limits periodic pcmap keys sweep "},
    {'q', "quiet", NULL, "no progress line, no list of the files written",
     " run compare limits periodic pcmap sweep animate "},
    {NSD_OPT_NO_CONFIG_PLUGINS, "no-config-plugins", NULL,
     "refuse the config's plugin_path (NSDYN_NO_CONFIG_PLUGINS=1)",
     " run compare limits periodic pcmap keys sweep "},
    {NSD_OPT_TRUST_CONFIG_PLUGINS, "trust-config-plugins", NULL,
     "search the config's plugin_path (NSDYN_TRUST_CONFIG_PLUGINS=1); without it only folders of "
     "~/.config/nsdyn/trusted-plugin-paths are (never by keys)",
     " run compare limits periodic pcmap keys sweep "},
    {NSD_OPT_ACCEPT_PLUGIN_CHANGE, "accept-plugin-change", NULL,
     "re-run a record or resume a study whose plugin files changed (NSDYN_ACCEPT_PLUGIN_CHANGE=1)",
     " run compare limits periodic pcmap sweep "},
    {NSD_OPT_IN_PROCESS, "in-process", NULL,
     "run in threads of this process, not in worker processes (faster; a crashing plugin ends "
     "the study)",
     " sweep "},
    {NSD_OPT_RETRY_CRASHED, "retry-crashed", NULL,
     "on resume, run again the rows that crashed (NSDYN_SWEEP_RETRY_CRASHED=1)", " sweep "},
    {NSD_OPT_REPEAT, "repeat", "N", "runs of each variant for the wall-time median (1 to 100)",
     " compare "},
    {NSD_OPT_NAMES, "names", NULL, "only section.key= (for shell completion)", " keys "},
    {'j', "jobs", "N",
     "worker processes (threads with --in-process; under mpirun, threads per worker rank), 1 to "
     "1024",
     " sweep "},
    {NSD_OPT_DB, "db", "FILE", "the results database (default DIR/sweep.sqlite)", " sweep "},
    {NSD_OPT_CSV, "csv", "FILE", "write runs.csv to FILE instead", " sweep "},
    {NSD_OPT_NO_CSV, "no-csv", NULL, "write no runs.csv", " sweep "},
    {NSD_OPT_NO_GRAPHS, "no-graphs", NULL, "draw no [[sweep.graph]]", " sweep "},
    {NSD_OPT_FORMAT, "format", "FORMAT", "mp4 (H.264) or gif (default mp4)", " animate "},
    {NSD_OPT_FPS, "fps", "N", "frames per second of the video (1 to 60, default 25)", " animate "},
    {NSD_OPT_SLOW, "slow", "X",
     "video seconds per simulated second (default 1: the recorded time scale)", " animate "},
    {NSD_OPT_TIMEOUT, "timeout", "S",
     "seconds per plugin file before a callback that never returns is a finding (default 60)",
     " check "},
    {NSD_OPT_TRAILS, "trails", "N", "earlier frames drawn fainter behind the current one (0 to 50)",
     " animate "},
    {NSD_OPT_IDS, "ids", NULL, "only the ids, one a line, from the indexes", " plugins "},
    {NSD_OPT_MAN, "man", NULL, "the man page nsdyn(1) in roff", " help "},
    {NSD_OPT_BASH, "bash-completion", NULL, "a bash completion script", " help "},
    {NSD_OPT_ZSH, "zsh-completion", NULL, "a zsh completion script", " help "},
    {NSD_OPT_FISH, "fish-completion", NULL, "a fish completion script", " help "},
    {'h', "help", NULL, "this command's help", "*"},
};

static const char search_path_text[] =
    "The plugin search path: the config's plugin_path, then NSDYN_PLUGIN_PATH\n"
    "(colon-separated), then the host's own plugin directory. A run opens only\n"
    "the shared objects that hold the plugins its config names, found by their\n"
    "index or their name nsdyn_<kind>_<id>.so; a config's plugin_path is code\n"
    "that runs: it is searched only with --trust-config-plugins or for folders\n"
    "listed in ~/.config/nsdyn/trusted-plugin-paths, never by `nsdyn keys`.";

static const char exit_text[] =
    "0 success; 2 usage or config error (file:line:col: message, nothing\n"
    "written); 3 the simulation failed (time and state reported, the data so\n"
    "far in DIR.INCOMPLETE/, DIR untouched); 4 the outputs could not be\n"
    "written; 128+N stopped by signal N (130 for Ctrl-C; data kept as for 3).";

const nsd_option_help *nsd_help_options(size_t *n) {
    *n = NSDYN_COUNT(options);
    return options;
}

int nsd_help_option_of(const nsd_option_help *o, const char *command) {
    if (!strcmp(o->commands, "*")) return 1;
    char word[40];
    snprintf(word, sizeof word, " %s ", command);
    return strstr(o->commands, word) != NULL;
}

/* "-o, --output DIR" / "--set section.key=value" */
static void option_flags(const nsd_option_help *o, char *buf, size_t len) {
    if (o->key < 128)
        snprintf(buf, len, "-%c, --%s%s%s", o->key, o->name, o->arg ? " " : "",
                 o->arg ? o->arg : "");
    else
        snprintf(buf, len, "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
}

const nsd_command_help *nsd_help_commands(size_t *n) {
    *n = NSDYN_COUNT(commands);
    return commands;
}

const nsd_command_help *nsd_help_find(const char *name) {
    for (size_t i = 0; i < NSDYN_COUNT(commands); ++i)
        if (strcmp(commands[i].name, name) == 0) return &commands[i];
    return NULL;
}

/* text with every line indented by `indent` spaces. */
static void print_indented(FILE *out, const char *text, int indent) {
    for (const char *s = text; *s;) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        if (len) fprintf(out, "%*s%.*s", indent, "", (int)len, s);
        fputc('\n', out);
        s += len + (nl != NULL);
    }
}

static void print_options(FILE *out, const char *command) {
    for (size_t i = 0; i < NSDYN_COUNT(options); ++i) {
        if (!nsd_help_option_of(&options[i], command)) continue;
        char flags[64];
        option_flags(&options[i], flags, sizeof flags);
        fprintf(out, "  %-26s %s\n", flags, options[i].text);
    }
}

void nsd_help_print_overview(FILE *out) {
    fprintf(out, "usage: nsdyn COMMAND [ARGS]\n\ncommands:\n");
    for (size_t i = 0; i < NSDYN_COUNT(commands); ++i) {
        char head[80];
        snprintf(head, sizeof head, "%s %s", commands[i].name, commands[i].args);
        if (strlen(head) > 36)
            fprintf(out, "  %s\n  %-36s %s\n", head, "", commands[i].summary);
        else
            fprintf(out, "  %-36s %s\n", head, commands[i].summary);
    }
    fprintf(out, "\noptions of run, compare, limits, periodic, pcmap (CONFIG commands):\n");
    print_options(out, "run");
    fprintf(out, "\nnsdyn help COMMAND (or nsdyn COMMAND --help) says more; man nsdyn.\n\n");
    fprintf(out, "%s\n\nexit status: %s\n", search_path_text, exit_text);
}

void nsd_help_print_command(FILE *out, const nsd_command_help *h) {
    fprintf(out, "usage: nsdyn %s %s\n\n%s.\n", h->name, h->args, h->summary);
    if (h->text[0]) {
        fputc('\n', out);
        print_indented(out, h->text, 0);
    }
    fprintf(out, "\noptions:\n");
    print_options(out, h->name);
    if (h->config_options) fprintf(out, "\nexit status: %s\n", exit_text);
}

/* roff text: a backslash doubled, a hyphen as \-, a leading . or ' escaped. */
static void roff(FILE *out, const char *s) {
    int bol = 1;
    for (; *s; ++s) {
        if (bol && (*s == '.' || *s == '\'')) fputs("\\&", out);
        if (*s == '\\')
            fputs("\\e", out);
        else if (*s == '-')
            fputs("\\-", out);
        else
            fputc(*s, out);
        bol = *s == '\n';
    }
}

/* A text's paragraphs as roff: a blank line starts a new paragraph
 * (`para`: .PP at the top level, .IP inside a command's entry). */
static void roff_paragraphs(FILE *out, const char *text, const char *para) {
    for (const char *s = text; *s;) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)len, s);
        if (!len)
            fprintf(out, "%s\n", para);
        else {
            roff(out, line);
            fputc('\n', out);
        }
        s += len + (nl != NULL);
    }
}

void nsd_help_print_man(FILE *out) {
    fprintf(out, ".TH NSDYN 1 \"\" \"nsdyn %s\" \"User Commands\"\n", NSDYN_VERSION);
    fputs(".SH NAME\nnsdyn \\- simulate and compare non\\-smooth mechanical systems\n"
          ".SH SYNOPSIS\n.B nsdyn\n.I COMMAND\n[\\fIARGS\\fR]\n.SH DESCRIPTION\n",
          out);
    roff(out, "nsdyn loads four kinds of plugin (systems, contact laws, friction laws,\n"
              "integrators), each a shared object named in a TOML config, composes them,\n"
              "runs simulations and comparisons, and writes data and graphs.\n");
    fputs(".SH COMMANDS\n", out);
    for (size_t i = 0; i < NSDYN_COUNT(commands); ++i) {
        fputs(".TP\n.B ", out);
        roff(out, commands[i].name);
        fputs(" ", out);
        roff(out, commands[i].args);
        fputs("\n", out);
        roff(out, commands[i].summary);
        fputs(".\n", out);
        if (commands[i].text[0]) {
            fputs(".br\n", out);
            roff_paragraphs(out, commands[i].text, ".IP");
        }
    }
    fputs(".SH OPTIONS\n", out);
    for (size_t i = 0; i < NSDYN_COUNT(options); ++i) {
        char flags[64];
        option_flags(&options[i], flags, sizeof flags);
        fputs(".TP\n.B ", out);
        roff(out, flags);
        fputs("\n", out);
        roff(out, options[i].text);
        if (!strcmp(options[i].commands, "*")) {
            fputs(" (every command)\n", out);
        } else {
            char list[160];
            snprintf(list, sizeof list, "%s", options[i].commands + 1);
            list[strlen(list) - 1] = '\0'; /* the list's trailing space */
            fputs(" (", out);
            roff(out, list);
            fputs(")\n", out);
        }
    }
    fputs(".SH ENVIRONMENT\n.TP\n.B NSDYN_PLUGIN_PATH\n", out);
    roff(out, "colon-separated folders searched for plugins after the config's plugin_path\n");
    fputs(".TP\n.B NSDYN_NO_CONFIG_PLUGINS\n", out);
    roff(out, "1: refuse a config's plugin_path\n");
    fputs(".SH PLUGIN SEARCH PATH\n", out);
    roff_paragraphs(out, search_path_text, ".PP");
    fputs("\n.SH EXIT STATUS\n", out);
    roff_paragraphs(out, exit_text, ".PP");
    fputs("\n.SH SEE ALSO\nThe project's docs/configs.md (config sections and --set),\n"
          "docs/plugin\\-guide.md (writing plugins), docs/architecture.md.\n",
          out);
}

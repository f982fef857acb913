#!/usr/bin/env python3
"""Every file a command writes into its output folder is one nsdyn knows as its
own (core/src/output/outdir.c is_output_file), so the command can be re-run into
that folder (issue 28: pcmap's two files were forgotten; issue 27's bifurcation
and Lyapunov files and issue 26's animation were too, until this test).

Reads the sources for the names written as "%s/NAME.csv" or "%s/NAME.%s" (a graph:
png, svg or pdf; a table: md, tex; a video: mp4, gif), and checks each against the lists in
outdir.c. Folders of their own (a sweep's runs/, its database and runs.csv) are
not replaced as a whole and are left out.

Usage: owned_files.py SOURCE_DIR"""
import pathlib
import re
import sys

src = pathlib.Path(sys.argv[1]) / "core" / "src"
outdir = (src / "output" / "outdir.c").read_text()
start = outdir.index("static int is_output_file")
body = outdir[start:outdir.index("\n}\n", start)]
files_block = body[body.index("files[] = {"):body.index("};", body.index("files[] = {"))]
graphs_block = body[body.index("graphs[] = {"):body.index("};", body.index("graphs[] = {"))]
files = set(re.findall(r'"([^"]+)"', files_block))
graphs = set(re.findall(r'"([^"]+)"', graphs_block))
SWEEP_OWN = {"runs", "runs.csv", "sweep.sqlite", "boundary.csv"}  # a study's folder: resumed, not replaced

written = set()
for path in src.rglob("*.c"):
    for name in re.findall(r'"%s/([A-Za-z_.]+(?:\.%s)?)"', path.read_text()):
        written.add((name, path.relative_to(src)))

problems = []
for name, where in sorted(written):
    if name in SWEEP_OWN:
        continue
    if name.endswith(".%s"):
        stem = name[:-3]
        # a graph (png, svg, pdf), or a text table / video whose extensions outdir.c lists
        others = {f for f in files if f.startswith(stem + ".") and not f.endswith(".csv")}
        if stem not in graphs and not others:
            problems.append(f"{where}: writes graph '{stem}.*', not in outdir.c graphs[]")
    elif name not in files:
        problems.append(f"{where}: writes '{name}', not in outdir.c files[]")
for p in problems:
    print(p)
print(f"{len(written)} written names checked; {len(problems)} problem(s)")
sys.exit(1 if problems else 0)

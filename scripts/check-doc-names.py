#!/usr/bin/env python3
"""Every function the docs name exists in the code.

    python3 scripts/check-doc-names.py [ROOT]

Reads README.md and docs/*.md, takes every `name()` in backticks (a
function or callback the text points the reader to) and looks for `name`
as an identifier in the code of the project's C sources and headers
(comments and strings do not count). Names of the C
library and of the libraries nsdyn uses (PLplot pl*, SUNDIALS CV*/SUN*,
LAPACK, SQLite, MPI) are not the project's and are skipped. Exit 1 with
the list of names no source defines or uses (a doc describing a function
that was renamed or removed, such as kinematics()/dynamics() after the ABI
gave systems derivatives()). A line that says the name was removed (is
gone, deleted) tells history and is skipped."""
import pathlib, re, sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
EXTERNAL = re.compile(r"^(pl|CV|SUN|N_V|LAPACKE_|dget|sqlite3_|MPI_|ck_|srunner_|dl|pthread_)")
LIBC = set("""malloc calloc realloc free abort exit sqrt hypot sin cos tan atan2 exp log pow fabs
fmod floor ceil round isfinite isnan memcpy memset strcmp strlen printf fprintf snprintf sprintf
fopen fclose fread fwrite rename renameat2 mkdtemp getenv setenv qsort realpath remainder sincos
tanh fmin fmax signal raise system popen atexit rand rand_r clock_gettime fsync sigaction
nextafter strtod frexp ldexp cbrt copysign trunc lround asin acos atan cosh sinh erf""".split())

def identifiers():
    ids = set()
    for ext in ("*.c", "*.h", "*.cpp"):
        for f in root.rglob(ext):
            if any(p in ("build", "build-asan", ".git") or p.startswith("build") for p in f.relative_to(root).parts):
                continue
            text = f.read_text(errors="replace")
            if f.suffix in (".c", ".h", ".cpp"):  # code only: a name in a comment is no definition
                text = re.sub(r"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\])*\"", " ", text, flags=re.S)
            ids.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))
    return ids

def main():
    ids = identifiers()
    missing = {}
    docs = [root / "README.md"] + sorted((root / "docs").glob("*.md"))
    for doc in docs:
        for n, line in enumerate(doc.read_text().splitlines(), 1):
            for name in re.findall(r"`(?:[A-Za-z_][A-Za-z0-9_]*(?:->|\.))*([A-Za-z_][A-Za-z0-9_]*)\(\)`", line):
                if name in LIBC or EXTERNAL.match(name) or name in ids:
                    continue
                if re.search(r"\b(removed|is gone|deleted)\b", line):  # history, said as such
                    continue
                missing.setdefault(name, []).append(f"{doc.relative_to(root)}:{n}")
    for name, where in sorted(missing.items()):
        print(f"{name}(): named in {', '.join(where[:4])}{' ...' if len(where) > 4 else ''}, defined nowhere")
    print(f"{len(missing)} name(s) in the docs that the code lacks" if missing else "every function the docs name exists")
    return 1 if missing else 0

sys.exit(main())

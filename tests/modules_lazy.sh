#!/usr/bin/env bash
# Heavy libraries load only where used (issue 26; core/src/module/module.h):
# the executable, libnsdyn and the embedding library (libnsdyn_host) need
# none of PLplot, SQLite, OpenMPI, LAPACK/BLAS; a run without graphs opens
# no module and maps none of them; a run with graphs opens the plot module
# only; a missing or wrong module is a clear error, and the run's data are
# kept. usage: modules_lazy.sh NSDYN CONFIG_DIR
set -uo pipefail
nsdyn=$1 configs=$2
core=$(dirname "$nsdyn")
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
heavy='libplplot|libcairo|libpango|libsqlite3|libmpi|libopen-pal|liblapack|libblas|libopenblas|libgfortran|libquadmath|libhdf5'

for lib in "$nsdyn" "$core/libnsdyn.so" "$core/libnsdyn_host.so"; do
    got=$(ldd "$lib" | grep -E -o "$heavy" | sort -u | tr '\n' ' ')
    [[ -z $got ]] || fail "$(basename "$lib") needs $got"
done

ball=$configs/bouncing_ball_newton.toml
opened() { # the shared objects the loader opened during a command, heavy ones and modules
    LD_DEBUG=files "$@" 2>&1 >/dev/null | grep -E -o "file=[^ ]*($heavy|libnsdyn_[a-z]+\.so)" |
        sed 's|.*/||; s|file=||' | sort -u | tr '\n' ' '
}

# Without graphs: nothing heavy, no module, even with no module to be found.
got=$(opened "$nsdyn" run "$ball" -o "$tmp/a" -q --set run.t_end=0.2 --set plot.enabled=false)
[[ -z $got ]] || fail "run without graphs opened: $got"
mkdir "$tmp/none"
NSDYN_MODULE_DIR=$tmp/none "$nsdyn" run "$ball" -o "$tmp/b" -q --set run.t_end=0.2 \
    --set plot.enabled=false || fail "run without graphs needs a module"

# With graphs: the plot module and PLplot, nothing of SQLite, MPI or LAPACK.
got=$(opened "$nsdyn" run "$ball" -o "$tmp/c" -q --set run.t_end=0.2)
[[ $got == *libnsdyn_plot.so* && $got == *libplplot* ]] || fail "run with graphs opened: $got"
[[ $got != *libsqlite3* && $got != *libmpi* && $got != *liblapack* ]] ||
    fail "run with graphs opened more than PLplot: $got"
ls "$tmp/c"/*.svg > /dev/null 2>&1 || fail "run with graphs wrote no SVG (the default format)"

# The embedding library through the Python package: a model run maps no
# module and nothing heavy (skipped, said so, without python3's numpy).
root=$(cd "$configs/.." && pwd)
py=/usr/bin/python3 # Debian's, with python3-numpy (docs/python.md)
[[ -x $py ]] || py=python3
# grep reads all of ldd: with pipefail, grep -q quitting early could kill ldd
# by SIGPIPE and make the test take the Python branch in a sanitizer build.
if ldd "$core/libnsdyn_host.so" | grep libasan > /dev/null; then
    echo "modules_lazy: a sanitizer build, the Python check skipped (python3 is not built with it)"
elif "$py" -c "import numpy" 2> /dev/null; then
    got=$(NSDYN_HOST_LIB=$core/libnsdyn_host.so PYTHONPATH=$root/python "$py" -c "
import re
def mapped():  # numpy itself maps BLAS and LAPACK: only what nsdyn adds counts
    pat = r'($heavy|libnsdyn_(plot|lapack|sqlite|mpi)[.]so)'
    return {m[0] for m in re.findall(pat, open('/proc/self/maps').read())}
import numpy
before = mapped()
import nsdyn
nsdyn.load('$ball').run(0.2)
print(' '.join(sorted(mapped() - before)))
") || fail "python: a model run failed"
    [[ -z $got ]] || fail "python: a model run mapped $got"
else
    echo "modules_lazy: no numpy for $py, the Python check skipped"
fi

# A missing module: the reason, the file, what needed it; exit non-zero;
# the data kept.
NSDYN_MODULE_DIR=$tmp/none "$nsdyn" run "$ball" -o "$tmp/d" -q --set run.t_end=0.2 \
    2> "$tmp/err" && fail "a run with graphs but no plot module succeeded"
grep -q "module 'plot' (needed for graphs) cannot be loaded: $tmp/none/libnsdyn_plot.so" \
    "$tmp/err" || fail "missing module: $(cat "$tmp/err")"
compgen -G "$tmp/d.INCOMPLETE/timeseries*.csv" > /dev/null || fail "missing module: the data were not kept"

# A file that is another module: refused by its table, not called.
mkdir "$tmp/wrong"
cp "$core/libnsdyn_sqlite.so" "$tmp/wrong/libnsdyn_plot.so"
NSDYN_MODULE_DIR=$tmp/wrong "$nsdyn" run "$ball" -o "$tmp/e" -q --set run.t_end=0.2 \
    2> "$tmp/err" && fail "a run with the wrong plot module succeeded"
grep -Eq "expected module 'plot' ABI [0-9]+, found 'sqlite' ABI [0-9]+" "$tmp/err" ||
    fail "wrong module: $(cat "$tmp/err")"

[[ $fails == 0 ]] && echo "modules_lazy: all passed"
exit $((fails > 0))

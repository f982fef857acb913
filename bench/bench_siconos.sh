#!/usr/bin/env bash
# nsdyn against Siconos 4.4 (Debian's libsiconos-kernel-dev, optional: apt-get install
# libsiconos-kernel-dev) as whole processes, a sample written every step: the bouncing
# ball (bench/bouncing_ball_every_step.toml) and the sliding block
# (bench/sliding_block_every_step.toml), Moreau-Jean theta = 0.5, h = 1e-4 s, 30 s,
# 300 000 steps; Siconos' side is bench/siconos_every_step.cpp, built here with g++ -O2.
# The four processes in turn (A B C D A B C D ...), each also without output (nsdyn:
# output_dt = t_end; Siconos: OUT_FILE "-"), CPU time (user + sys) and wall time from
# /usr/bin/time, min / median / max, the load beside them, and the CPU ratio Siconos / nsdyn
# pair by pair. Per step = CPU / 300 000.
#
#   bench/bench_siconos.sh NSDYN [runs]        (default 7 runs)
set -euo pipefail
nsdyn=$1 runs=${2:-7}
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -f /usr/include/siconos/kernel/SiconosKernel.hpp ]; then
    echo "Siconos' kernel is not installed (apt-get install libsiconos-kernel-dev)" >&2
    exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
g++ -O2 -std=c++17 -I/usr/include/siconos -I/usr/include/siconos/kernel \
    -I/usr/include/siconos/numerics -o "$work/siconos_every_step" "$here/siconos_every_step.cpp" \
    -lsiconos_kernel -lsiconos_numerics
sic=$work/siconos_every_step
echo "load before: $(uptime)"
timed() { # label command...: appends "cpu wall" to $work/label
    local label=$1
    shift
    rm -rf "$work/out" "$work/out.dat"
    /usr/bin/time -f "%U %S %e" -o "$work/t" "$@" > /dev/null
    awk '{printf "%.3f %.3f\n", $1 + $2, $3}' "$work/t" >> "$work/$label"
}
cfg_ball=$here/bouncing_ball_every_step.toml cfg_block=$here/sliding_block_every_step.toml
for ((i = 0; i < runs; i++)); do
    timed nsdyn_ball "$nsdyn" run "$cfg_ball" -o "$work/out" -q
    timed siconos_ball "$sic" ball "$work/out.dat"
    timed nsdyn_block "$nsdyn" run "$cfg_block" -o "$work/out" -q
    timed siconos_block "$sic" block "$work/out.dat"
    timed nsdyn_ball_nooutput "$nsdyn" run "$cfg_ball" -o "$work/out" -q --set run.output_dt=30
    timed siconos_ball_nooutput "$sic" ball -
    timed nsdyn_block_nooutput "$nsdyn" run "$cfg_block" -o "$work/out" -q --set run.output_dt=30
    timed siconos_block_nooutput "$sic" block -
done
echo "load after:  $(uptime)"
stats() { # file column -> min median max
    cut -d' ' -f"$2" "$1" | sort -g | awk '{v[NR] = $1} END {printf "%7.3f %7.3f %7.3f", v[1], v[int((NR + 1) / 2)], v[NR]}'
}
printf "%-26s %23s   %23s   %s\n" "seconds per process" "CPU min / median / max" \
    "wall min / median / max" "CPU per step (median)"
for label in nsdyn_ball siconos_ball nsdyn_block siconos_block nsdyn_ball_nooutput \
    siconos_ball_nooutput nsdyn_block_nooutput siconos_block_nooutput; do
    med=$(cut -d' ' -f1 "$work/$label" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')
    printf "%-26s %23s   %23s   %.2f us\n" "$label" "$(stats "$work/$label" 1)" \
        "$(stats "$work/$label" 2)" "$(awk -v c="$med" 'BEGIN {print c / 300000 * 1e6}')"
done
for p in ball block ball_nooutput block_nooutput; do
    paste -d' ' "$work/siconos_$p" "$work/nsdyn_$p" | awk '{printf "%.4f\n", $1 / ($3 > 0 ? $3 : 0.001)}' |
        sort -g | awk -v p="$p" '{v[NR] = $1} END {printf "CPU ratio Siconos / nsdyn, %s, pair by pair: min %.1f median %.1f max %.1f\n",
                                  p, v[1], v[int((NR + 1) / 2)], v[NR]}'
done

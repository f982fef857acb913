#!/usr/bin/env bash
# Set up, build, and run the main demo: the towed wheel's unstable rolling,
# the comparison of integrators and regularization widths, and the limit
# directions at a rolling and a slipping point, and the passive walker's gait.
# Prints where the graphs are.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/setup-debian.sh"
bash "$root/scripts/build.sh" > /dev/null
nsdyn="$root/build/core/nsdyn"
out="$root/out"
cd "$root"
"$nsdyn" run configs/towed_wheel_unstable.toml -o "$out/towed_wheel_unstable"
"$nsdyn" run configs/towed_wheel_stable.toml -o "$out/towed_wheel_stable" -q
"$nsdyn" run configs/towed_wheel_rolling.toml -o "$out/towed_wheel_rolling" -q
"$nsdyn" compare configs/towed_wheel_compare.toml -o "$out/towed_wheel_compare"
"$nsdyn" limits configs/towed_wheel_limits_rolling.toml -o "$out/limits_rolling" -q > /dev/null
"$nsdyn" limits configs/towed_wheel_limits_slipping.toml -o "$out/limits_slipping"
"$nsdyn" run configs/walker2_gait.toml -o "$out/walker2_gait" -q
# Rigid contact: event-driven runs and Moreau-Jean time-stepping.
"$nsdyn" run configs/towed_wheel_exact.toml -o "$out/towed_wheel_exact" -q
"$nsdyn" run configs/bouncing_ball_newton.toml -o "$out/bouncing_ball_newton" -q
for cfg in configs/curb_wheel_plastic_up.toml configs/curb_wheel_poisson_up.toml; do
    "$nsdyn" run "$cfg" -o "$out/$(basename "$cfg" .toml)" -q
done
"$nsdyn" compare configs/curb_wheel_tasks.toml -o "$out/curb_wheel_tasks" -q
"$nsdyn" compare configs/bouncing_ball_moreau_vs_event.toml -o "$out/bouncing_ball_moreau_vs_event" -q
echo
echo "graphs:"
find "$out" -maxdepth 2 -name '*.png' | sort | sed 's/^/  /'

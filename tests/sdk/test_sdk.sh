#!/usr/bin/env bash
# SDK test: install nsdyn into a temporary prefix, build the example plugin
# from a separate folder against it (CMake package and pkg-config), and run
# a config that uses the plugin with the installed nsdyn.
# Usage: test_sdk.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
test -x "$work/prefix/bin/nsdyn"
test -f "$work/prefix/include/nsdyn/plugin.h"

# 1. find_package(nsdyn) + nsdyn_add_plugin, from a copy outside the tree.
cp -r "$src/examples/plugin-sdk" "$work/plugin"
cmake -S "$work/plugin" -B "$work/plugin/build" -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/configure.log"
cmake --build "$work/plugin/build" > "$work/build.log"
test -f "$work/plugin/build/nsdyn_friction_viscous.so"
# The build checked it with the installed host and wrote its index; the
# install carries the indexes of the host's own plugins.
grep -q "^friction viscous 0x" "$work/plugin/build/nsdyn_friction_viscous.so.nsdyn-index"
test -f "$work/prefix/lib/nsdyn/plugins/nsdyn_integrators_explicit.so.nsdyn-index"

# 2. pkg-config: the same plugin with a plain compiler command.
export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig:${PKG_CONFIG_PATH:-}"
mkdir -p "$work/pc"
cc -std=c17 -Wall -Wextra -Werror -shared -fPIC $(pkg-config --cflags nsdyn) \
   -o "$work/pc/nsdyn_friction_viscous.so" "$work/plugin/viscous.c" -lm
test "$(realpath "$(pkg-config --variable=plugindir nsdyn)")" = "$(realpath "$work/prefix/lib/nsdyn/plugins")"

# 3. The installed host finds its own plugins and the out-of-tree one.
export NSDYN_PLUGIN_PATH="$work/plugin/build"
"$work/prefix/bin/nsdyn" describe viscous | grep "N s/m" > /dev/null
"$work/prefix/bin/nsdyn" plugins | grep "towed_wheel" > /dev/null
"$work/prefix/bin/nsdyn" run "$work/plugin/viscous_wheel.toml" -o "$work/out" -q
head -1 "$work/out/timeseries.csv" | grep "^t \[s\],psi \[rad\]" > /dev/null
rows=$(wc -l < "$work/out/timeseries.csv")
test "$rows" -gt 100
grep -q 'friction = { id = "viscous"' "$work/out/run.toml"

# The example system plugin: a pendulum into a wall (swing.c). Newton's
# e = 0.5 leaves e^2 of the kinetic energy at the first impact:
# E1 = E_w + e^2 (E0 - E_w), E0 = m g L (1 - cos 1) released at theta0 = -1,
# E_w = m g L (1 - cos asin((d - r)/L)) the potential at the wall.
test -f "$work/plugin/build/nsdyn_system_swing.so"
"$work/prefix/bin/nsdyn" describe swing | grep "^  wall  *unilateral" > /dev/null
"$work/prefix/bin/nsdyn" run "$work/plugin/swing_wall.toml" -o "$work/swing" -q
awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) if ($i ~ /^energy /) col = i; next }
         NR == 2 { e0 = $col } $col < e0 - 1e-3 { e1 = $col; exit }
         END { ew = 9.81 * (1 - sqrt(1 - 0.45 ^ 2)); want = ew + 0.25 * (e0 - ew)
               if (!(e1 > 0) || (e1 - want) ^ 2 > (1e-6 * want) ^ 2) {
                   printf "swing: energy after the first impact %.9g, closed form %.9g\n", e1, want
                   exit 1 } }' "$work/swing/timeseries.csv"
# The installed nsdyn checks out-of-tree plugins against the contract.
"$work/prefix/bin/nsdyn" check "$work/plugin/build/nsdyn_system_swing.so" \
    "$work/plugin/build/nsdyn_friction_viscous.so" > "$work/check.log"
grep -q "system       swing  *ok" "$work/check.log"
grep -q "friction law viscous  *ok" "$work/check.log"

# A load-free law (viscous declares it) is refused with rigid contact.
printf '[system]\nid = "point_mass"\n[contact]\nid = "newton"\n[friction]\nid = "viscous"\n[integrator]\nid = "dopri5"\n[run]\nt_end = 1.0\n' \
    > "$work/viscous_rigid.toml"
if "$work/prefix/bin/nsdyn" run "$work/viscous_rigid.toml" -o "$work/vr" -q 2> "$work/vr.err"; then
  echo "sdk test: a load-free friction law ran with rigid contact" >&2; exit 1
fi
grep -q "does not scale with the normal force; rigid contact (newton)" "$work/vr.err"

# The pkg-config build works too (the same id from another folder): no
# index, but its name nsdyn_friction_viscous.so says what it holds.
NSDYN_PLUGIN_PATH="$work/pc" "$work/prefix/bin/nsdyn" run "$work/plugin/viscous_wheel.toml" -o "$work/out2" -q

# Under any other name and without an index, runs never open it, until
# `nsdyn index` writes its index.
mkdir -p "$work/anon"
cp "$work/pc/nsdyn_friction_viscous.so" "$work/anon/my_law.so"
if NSDYN_PLUGIN_PATH="$work/anon" "$work/prefix/bin/nsdyn" run "$work/plugin/viscous_wheel.toml" -o "$work/out3" -q \
     2> "$work/anon.err"; then
  echo "sdk test: a run opened an unindexed plugin" >&2; exit 1
fi
grep -q "no friction law 'viscous'" "$work/anon.err"
grep -q "my_law.so: not opened: it has no index" "$work/anon.err"
"$work/prefix/bin/nsdyn" index "$work/anon/my_law.so"
NSDYN_PLUGIN_PATH="$work/anon" "$work/prefix/bin/nsdyn" run "$work/plugin/viscous_wheel.toml" -o "$work/out3" -q
echo "sdk test: install, find_package (with its index), pkg-config and out-of-tree plugin runs all passed"

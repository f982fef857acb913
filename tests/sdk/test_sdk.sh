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
"$work/prefix/bin/nsdyn" describe viscous | grep -q "N s/m"
"$work/prefix/bin/nsdyn" plugins | grep -q "towed_wheel"
"$work/prefix/bin/nsdyn" run "$work/plugin/viscous_wheel.toml" -o "$work/out" -q
head -1 "$work/out/timeseries.csv" | grep -q "^t \[s\],psi \[rad\]"
rows=$(wc -l < "$work/out/timeseries.csv")
test "$rows" -gt 100
grep -q 'friction = { id = "viscous"' "$work/out/run.toml"

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

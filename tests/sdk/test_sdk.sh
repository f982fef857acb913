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

# The pkg-config build works too (the same id from another folder).
NSDYN_PLUGIN_PATH="$work/pc" "$work/prefix/bin/nsdyn" run "$work/plugin/viscous_wheel.toml" -o "$work/out2" -q
echo "sdk test: install, find_package, pkg-config and an out-of-tree plugin run all passed"

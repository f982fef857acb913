#!/usr/bin/env bash
# Make `import nsdyn` work for Debian's python3 (docs/python.md): a .pth
# file in the user's site-packages names this tree's python/ folder (an
# editable install: no pip, no copy) and the build folder whose
# libnsdyn_host.so the package loads. Called by scripts/build.sh; run it
# again after moving the tree. NSDYN_HOST_LIB, when set, still wins.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${NSDYN_BUILD_DIR:-$root/build}}
py=/usr/bin/python3
[ -x "$py" ] || py=python3
site=$("$py" -m site --user-site 2>/dev/null) || { echo "install-python: no user site for $py"; exit 0; }
mkdir -p "$site"
{
  echo "$root/python"
  echo "import os; os.environ.setdefault('NSDYN_PYTHON_BUILD_DIR', '$build')"
} > "$site/nsdyn-dev.pth"
echo "install-python: $site/nsdyn-dev.pth -> $root/python (library from $build/core)"

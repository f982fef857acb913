#!/usr/bin/env bash
# Build the libFuzzer targets with clang and run each one briefly: first every
# seed and regression input once, then NSDYN_FUZZ_SECONDS (default 60) of
# fuzzing per target. Exit 77 (ctest: skipped) when clang or libFuzzer is
# missing. A crash, hang (> 5 s), leak or sanitizer report fails the run; the
# input is left in BUILD/fuzz/artifacts/. docs/fuzzing.md.
# Usage: fuzz/run-short.sh [BUILD]        (default BUILD: build-fuzz/)
# Env:   NSDYN_FUZZ_SECONDS  fuzzing time per target (0: replay only)
#        NSDYN_FUZZ_SEED     libFuzzer -seed (default 1: the same run each time)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-fuzz}
seconds=${NSDYN_FUZZ_SECONDS:-60}
seed=${NSDYN_FUZZ_SEED:-1}

for tool in clang clang++; do
  command -v "$tool" > /dev/null || { echo "fuzz: no $tool (scripts/setup-debian.sh installs it); skipped"; exit 77; }
done
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' > "$probe/p.c"
clang -fsanitize=fuzzer "$probe/p.c" -o "$probe/p" 2> "$probe/log" || {
  echo "fuzz: clang cannot link libFuzzer (package libclang-rt-14-dev); skipped"; cat "$probe/log"; exit 77; }

mkdir -p "$build"
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNSDYN_FUZZ=ON \
  -DNSDYN_BUILD_TESTS=OFF -DNSDYN_BUILD_BENCH=OFF > "$build.configure.log" 2>&1 \
  || { cat "$build.configure.log"; exit 1; }
cmake --build "$build" -j"$(nproc)" --target fuzz_config fuzz_set > "$build.build.log" 2>&1 \
  || { tail -50 "$build.build.log"; exit 1; }

corpus=$build/fuzz/corpus
bash "$root/fuzz/make-corpus.sh" "$corpus"
artifacts=$build/fuzz/artifacts
mkdir -p "$artifacts"
export LSAN_OPTIONS=suppressions=$root/scripts/lsan.supp
export UBSAN_OPTIONS=print_stacktrace=1
status=0
for target in config set; do
  fuzzer=$build/fuzz/fuzz_$target
  work=$build/fuzz/work/$target     # inputs libFuzzer finds (kept between runs)
  mkdir -p "$work"
  common=(-timeout=5 -rss_limit_mb=2048 -malloc_limit_mb=1024 -artifact_prefix="$artifacts/$target-"
          -dict="$root/fuzz/nsdyn.dict" -print_final_stats=1)
  echo "== fuzz_$target: replay of $(ls "$corpus/$target" | wc -l) seeds and $(ls "$root/fuzz/regressions/$target" | wc -l) regressions"
  "$fuzzer" "${common[@]}" -runs=0 "$corpus/$target" "$root/fuzz/regressions/$target" > "$build/fuzz/$target.replay.log" 2>&1 \
    || { tail -60 "$build/fuzz/$target.replay.log"; status=1; continue; }
  if [ "$seconds" -gt 0 ]; then
    echo "== fuzz_$target: ${seconds} s of fuzzing, seed $seed"
    if "$fuzzer" "${common[@]}" -seed="$seed" -max_total_time="$seconds" \
         "$work" "$corpus/$target" "$root/fuzz/regressions/$target" > "$build/fuzz/$target.fuzz.log" 2>&1; then
      grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' \
        "$build/fuzz/$target.fuzz.log" | tr '\n' ' '; echo
    else
      tail -80 "$build/fuzz/$target.fuzz.log"
      echo "fuzz_$target FAILED: the input is in $artifacts (replay: $fuzzer FILE)"
      status=1
    fi
  fi
done
exit $status

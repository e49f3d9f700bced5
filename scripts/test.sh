#!/usr/bin/env bash
# Builds socsim and runs every test: Release with -Werror, then the same suite under ASan+UBSan,
# then a short fuzz of every input parser (scripts/fuzz.sh; 5 s per target here, 60+ s documented).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DSOCSIM_WERROR=ON
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"

# Each GoogleTest binary runs as 8 shards here (tests/CMakeLists.txt, SOCSIM_TEST_SHARDS): a
# sanitized test process takes 0.35 s to start, and one per case was a third of this suite's time.
# Precompiled headers as in the Release build (checked: a sanitized build with them compiled
# without a warning and its suite found nothing; this was CI's longest step, 24 min without).
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DSOCSIM_SANITIZE=ON -DSOCSIM_WERROR=ON -DSOCSIM_BUILD_BENCHMARKS=OFF -DSOCSIM_BUILD_PYTHON=OFF \
  -DSOCSIM_TEST_SHARDS=8
cmake --build build-asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j"$jobs"

scripts/fuzz.sh --seconds 5

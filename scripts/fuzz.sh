#!/usr/bin/env bash
# Builds the libFuzzer targets of socsim's input parsers (tests/fuzz, clang) and runs each for a
# while, seeded with the repository's own files. A crash, hang, leak or sanitizer report stops
# the run with the reproducer in build-fuzz/artifacts/ (turn it into a regression test).
#
#   scripts/fuzz.sh                 # 60 s per target
#   scripts/fuzz.sh --seconds 600   # the longer run
#   scripts/fuzz.sh --seconds 10 --only soc_yaml
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=60
only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "fuzz.sh: unknown option '$1' (expected --seconds N or --only TARGET)" >&2; exit 2 ;;
  esac
done
command -v clang++ >/dev/null || { echo "fuzz.sh: clang++ not found (Debian package clang)" >&2; exit 2; }

build=build-fuzz
CXX=clang++ cmake -S . -B "$build" -DSOCSIM_FUZZ=ON -DSOCSIM_WERROR=ON >/dev/null
cmake --build "$build" -j"$(nproc 2>/dev/null || echo 2)" >/dev/null

# target -> seed files from the repository
declare -A seeds=(
  [soc_yaml]="soc_configs/*.yaml tests/data/config/*.yaml"
  [set_override]="tests/fuzz/corpus/set_override/*"
  [model_config]="models/*.json"
  [workload_yaml]="workloads/*.yaml"
  [claims_yaml]="tests/data/validation/*.yaml ../shared/calibration/claims.yaml"
  [safetensors]="tests/fuzz/corpus/safetensors/*"
  [sweep_spec]="workloads/sweeps/*.yaml tests/regression/matrix.yaml"
  [llms_trace]="tests/fuzz/corpus/llms_trace/*"
  [llms_datasets]="workloads/llms/*.yaml"
  [importance_file]="models/shadowattn/*.importance.json"
)
mkdir -p "$build/artifacts"
# The targets that parse files write each input to a temporary file: keep those in a folder of
# this run's own, removed however the run ends (a crashing target leaves its file behind).
export TMPDIR="$(mktemp -d "${TMPDIR:-/tmp}/socsim-fuzz.XXXXXX")"
trap 'rm -rf "$TMPDIR"' EXIT
status=0
for exe in "$build"/tests/fuzz/fuzz_*; do
  [ -x "$exe" ] || continue
  target=$(basename "$exe"); target=${target#fuzz_}
  [ -z "$only" ] || [ "$only" = "$target" ] || continue
  corpus="$build/corpus/$target"
  mkdir -p "$corpus"
  for f in ${seeds[$target]:-}; do [ -f "$f" ] && cp "$f" "$corpus/" ; done
  echo "fuzz_$target: ${seconds}s, $(ls "$corpus" | wc -l) inputs in the corpus"
  # -rss_limit_mb: a parser must not need more than this for a few-KB file.
  if ! "$exe" "$corpus" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
        -artifact_prefix="$build/artifacts/${target}-" -print_final_stats=1 >"$build/fuzz_$target.log" 2>&1; then
    echo "fuzz_$target FAILED: see $build/fuzz_$target.log and $build/artifacts/" >&2
    tail -40 "$build/fuzz_$target.log" >&2
    status=1
  else
    grep -E "stat::number_of_executed_units|cov:" "$build/fuzz_$target.log" | tail -2 | sed 's/^/  /'
  fi
done
exit $status

#!/usr/bin/env bash
# llm.npu's ablation (paper Figure 19) on the simulator: prefill speed (tokens/s) of
#   cpu-only (llama.cpp-like) | naive NPU (npu-naive) | + chunk sharing | + shadow outliers | + out-of-order
# for each model and prompt length. Every cell is one `socsim run`; nothing is tuned per cell.
#
#   scripts/llm-npu-ablation.sh [--soc S] [--models "qwen1.5-1.8b gemma-2b"] [--prompts "64 256 1024"]
set -euo pipefail
cd "$(dirname "$0")/.."
soc=snapdragon-8gen3
models="qwen1.5-1.8b gemma-2b"
prompts="64 256 1024"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --soc) soc="$2"; shift 2 ;;
    --models) models="$2"; shift 2 ;;
    --prompts) prompts="$2"; shift 2 ;;
    *) echo "usage: $0 [--soc S] [--models \"M ...\"] [--prompts \"P ...\"]" >&2; exit 2 ;;
  esac
done
bin=build/socsim
[[ -x $bin ]] || { echo "build first: cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j2" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

rate() {  # system, then --set arguments; prints prefill tokens/s
  local system=$1; shift
  rm -f "$tmp/r.json"  # a run that fails must not show the previous run's rate
  if ! "$bin" run --soc "$soc" --model "$model" --system "$system" --prompt "$prompt" --decode 0 "$@" --json "$tmp/r.json" >/dev/null 2>"$tmp/err"; then
    printf -- "-"  # e.g. the naive NPU cannot map a 7B model's weights (the reason: $tmp/err)
    return 0
  fi
  grep -o '"prefill_tokens_per_s": [0-9.e+-]*' "$tmp/r.json" | awk '{printf "%.1f", $2}'
}

printf "%-14s %6s %10s %10s %10s %10s %10s %8s\n" model prompt cpu-only naive-npu +chunk +outlier +ooe speedup
for model in $models; do
  for prompt in $prompts; do
    cpu=$(rate cpu-only)
    naive=$(rate npu-naive)
    chunk=$(rate llm-npu --set llm_npu.shadow_outliers=false --set llm_npu.ooe=false)
    outlier=$(rate llm-npu --set llm_npu.ooe=false)
    ooe=$(rate llm-npu)
    printf "%-14s %6s %10s %10s %10s %10s %10s %7.1fx\n" "$model" "$prompt" "$cpu" "$naive" "$chunk" "$outlier" "$ooe" \
      "$(awk -v a="$ooe" -v b="$cpu" 'BEGIN{print a/b}')"
  done
done

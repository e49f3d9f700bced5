#!/usr/bin/env bash
# LLMS's evaluation on the simulator (../shared/papers/llms.md), every cell one `socsim serve`:
#   1. Figure 9: mean context-switching latency (ms) against active contexts, for each policy
#      (llms, lmk, swap, vllm-s, vllm-sq), context-selection pattern, device and model
#   2. Figure 13: the ablation, llms with each technique removed (lifecycle = AoT swap-out +
#      LCTRU, compression = tolerance-aware compression, pipeline = swap/recompute pipeline)
#   3. Figure 10: maximum active contexts (of at most 16) whose mean switch latency stays within
#      10 ms and 25 ms, per memory budget
#   4. Figure 14: llms's mean switch latency against chunk size (8 contexts)
#   5. Figure 15b: mean switch latency against the mean request interval (16 contexts)
# Devices: snapdragon-8gen3 (UFS 4.0), jetson-orin-nx (NVMe), jetson-tx2 (SATA HDD). Traces: a
# Poisson call every 5 minutes on average over 72 hours, delta lengths of workloads/llms/datasets.yaml.
#
#   scripts/llms-eval.sh [--socs "snapdragon-8gen3 jetson-orin-nx jetson-tx2"] [--models "llama-2-7b opt-6.7b"]
#       [--patterns "random markov gaussian"] [--contexts "2 4 6 8 12 16"] [--hours 72]
#       [--memory-budget 2GiB] [--budgets "2GiB 3GiB"] [--chunks "4 8 16 32 64 128"]
#       [--rates "1/1min 1/5min 1/15min 1/30min"] [--seed 0] [--set k=v]...
set -euo pipefail
cd "$(dirname "$0")/.."
socs="snapdragon-8gen3 jetson-orin-nx jetson-tx2"
models="llama-2-7b opt-6.7b"
patterns="random markov gaussian"
contexts="2 4 6 8 12 16"
hours=72
budget=2GiB
budgets="2GiB 3GiB"
chunks="4 8 16 32 64 128"
rates="1/1min 1/5min 1/15min 1/30min"
seed=0
sets=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --socs) socs="$2"; shift 2 ;;
    --models) models="$2"; shift 2 ;;
    --patterns) patterns="$2"; shift 2 ;;
    --contexts) contexts="$2"; shift 2 ;;
    --hours) hours="$2"; shift 2 ;;
    --memory-budget) budget="$2"; shift 2 ;;
    --budgets) budgets="$2"; shift 2 ;;
    --chunks) chunks="$2"; shift 2 ;;
    --rates) rates="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --set) sets+=(--set "$2"); shift 2 ;;
    *) echo "usage: $0 [--socs \"S ...\"] [--models \"M ...\"] [--patterns \"P ...\"] [--contexts \"N ...\"] [--hours H] [--memory-budget B] [--budgets \"B ...\"] [--chunks \"T ...\"] [--rates \"R ...\"] [--seed N] [--set k=v]..." >&2; exit 2 ;;
  esac
done
bin=${SOCSIM:-build/socsim}  # SOCSIM=path runs another binary
[[ -x $bin ]] || { echo "build first: cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j2" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
policies="llms lmk swap vllm-s vllm-sq"

# First (top-level) value of a key in the last report; "-" when the run failed.
key() { local v; v=$(grep -o "\"$1\": [0-9.e+-]*" "$tmp/r.json" | head -1 | awk -v f="$2" '{printf f, $2}' || true); echo "${v:--}"; }
serve() {  # arguments of `socsim serve` after the common ones; a failed run leaves "{}"
  rm -f "$tmp/r.json"
  "$bin" serve --soc "$soc" --model "$model" --hours "$hours" --seed "$seed" ${sets[@]+"${sets[@]}"} "$@" \
    --json "$tmp/r.json" >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; echo "{}" >"$tmp/r.json"; }
}
header() { printf "%-22s" "$1"; for n in $contexts; do printf " %10s" "$n ctx"; done; printf "\n"; }

for soc in $socs; do
  for model in $models; do
    echo "== $soc, $model, memory budget $budget: mean switch latency, ms (Figure 9) =="
    for pattern in $patterns; do
      header "pattern $pattern"
      for policy in $policies; do
        printf "%-22s" "$policy"
        for n in $contexts; do
          serve --policy "$policy" --contexts "$n" --pattern "$pattern" --memory-budget "$budget"
          printf " %10s" "$(key mean_switch_ms %.1f)"
        done
        printf "\n"
      done
    done
    echo "-- ablation, pattern random (Figure 13) --"
    header "llms variant"
    for variant in "full:" "no-lifecycle:llms.lifecycle=false" "no-compression:llms.compression=false" \
                   "no-pipeline:llms.recompute_pipeline=false"; do
      name=${variant%%:*}; set_arg=${variant#*:}
      printf "%-22s" "$name"
      for n in $contexts; do
        if [[ -n $set_arg ]]; then serve --policy llms --contexts "$n" --memory-budget "$budget" --set "$set_arg"
        else serve --policy llms --contexts "$n" --memory-budget "$budget"; fi
        printf " %10s" "$(key mean_switch_ms %.1f)"
      done
      printf "\n"
    done
    echo "-- max active contexts (of 16), pattern random, mean switch <= 10 ms / 25 ms (Figure 10) --"
    printf "%-22s" "policy"; for b in $budgets; do printf " %14s" "$b"; done; printf "\n"
    for policy in $policies; do
      printf "%-22s" "$policy"
      for b in $budgets; do
        serve --policy "$policy" --contexts 16 --memory-budget "$b" --latency-bound 10ms; a=$(key max_active_contexts %d)
        serve --policy "$policy" --contexts 16 --memory-budget "$b" --latency-bound 25ms; c=$(key max_active_contexts %d)
        printf " %14s" "$a / $c"
      done
      printf "\n"
    done
    echo "-- chunk size, llms, 8 contexts, pattern random: mean switch ms (Figure 14) --"
    printf "%-22s" "chunk tokens"; for t in $chunks; do printf " %9s" "$t"; done; printf "\n%-22s" "llms"
    for t in $chunks; do
      serve --policy llms --contexts 8 --memory-budget "$budget" --set llms.chunk_tokens="$t"
      printf " %9s" "$(key mean_switch_ms %.1f)"
    done
    printf "\n"
    echo "-- request interval, 16 contexts, pattern random: mean switch ms (Figure 15b) --"
    printf "%-22s" "calls per"; for rate in $rates; do printf " %10s" "$rate"; done; printf "\n"
    for policy in $policies; do
      printf "%-22s" "$policy"
      for rate in $rates; do
        serve --policy "$policy" --contexts 16 --memory-budget "$budget" --rate "$rate"
        printf " %10s" "$(key mean_switch_ms %.1f)"
      done
      printf "\n"
    done
    echo
  done
done

#!/usr/bin/env bash
# HeteroLLM's evaluation on the simulator (paper Figures 13, 15, 16, 17 and the decode bandwidth):
# for each model and prompt length, prefill and decode tokens/s of
#   gpu-only | hetero-layer | hetero-tensor, each with fast sync (fast) and without (std)
# and the decode DRAM bandwidth (GB/s) of gpu-only against hetero-tensor. With --misaligned, also
# the prefill latency (ms) at arbitrary lengths of npu-only's three shape policies against
# hetero-tensor (Figure 14). With --interference FRAME (GPU time per frame, e.g. 6ms), the
# prefill speed at 256 tokens of gpu-only, hetero-layer and hetero-tensor alone and beside a 60 FPS
# GPU render load, and the frames that missed their deadline (Figure 18). Always last: energy and
# average power of a 256-token prefill (Figure 19). Every cell is one `socsim run`; nothing is
# tuned per cell.
#
#   scripts/heterollm-eval.sh [--soc S] [--models "llama-3-8b ..."] [--prompts "64 256 1024"]
#                             [--decode 8] [--misaligned "135 300 525 600 1000"] [--misaligned-model llama-3-8b]
#                             [--interference 6ms]
set -euo pipefail
cd "$(dirname "$0")/.."
soc=snapdragon-8gen3
models="llama-3-8b llama-2-7b llama-3.2-3b internlm2-1.8b"
prompts="64 256 1024"
decode=8
misaligned=""
mis_model=llama-3-8b
interference=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --soc) soc="$2"; shift 2 ;;
    --models) models="$2"; shift 2 ;;
    --prompts) prompts="$2"; shift 2 ;;
    --decode) decode="$2"; shift 2 ;;
    --misaligned) misaligned="$2"; shift 2 ;;
    --misaligned-model) mis_model="$2"; shift 2 ;;
    --interference) interference="$2"; shift 2 ;;
    *) echo "usage: $0 [--soc S] [--models \"M ...\"] [--prompts \"P ...\"] [--decode N] [--misaligned \"L ...\"] [--misaligned-model M] [--interference FRAME]" >&2; exit 2 ;;
  esac
done
bin=build/socsim
[[ -x $bin ]] || { echo "build first: cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j2" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

field() { grep -o "\"$1\": [0-9.e+-]*" "$tmp/r.json" | head -1 | awk -v f="$2" '{printf f, $2}'; }
run() {  # model prompt decode system [--set ...]
  local model=$1 prompt=$2 dec=$3 system=$4; shift 4
  "$bin" run --soc "$soc" --model "$model" --system "$system" --prompt "$prompt" --decode "$dec" "$@" --json "$tmp/r.json" >/dev/null
}

echo "prefill tokens/s | decode tokens/s (decode $decode tokens after the prompt) | decode DRAM GB/s"
printf "%-15s %6s | %8s %8s %8s %8s %8s | %7s %7s %7s %7s %7s | %6s %6s\n" model prompt \
  gpu layer layer-std tensor tensor-std gpu layer layer-std tensor tensor-std gpu tensor
for model in $models; do
  for prompt in $prompts; do
    pre=() dec=() bw=()
    for cfg in "gpu-only" "hetero-layer" "hetero-layer --set heterollm.fast_sync=false" \
               "hetero-tensor" "hetero-tensor --set heterollm.fast_sync=false"; do
      # shellcheck disable=SC2086
      run "$model" "$prompt" "$decode" $cfg
      pre+=("$(field prefill_tokens_per_s %.1f)")
      dec+=("$(field decode_tokens_per_s %.2f)")
      bw+=("$(field decode_dram_gbps %.1f)")
    done
    printf "%-15s %6s | %8s %8s %8s %8s %8s | %7s %7s %7s %7s %7s | %6s %6s\n" "$model" "$prompt" \
      "${pre[@]}" "${dec[@]}" "${bw[0]}" "${bw[3]}"
  done
done

if [[ -n $misaligned ]]; then
  echo
  echo "$mis_model prefill latency (ms) at misaligned lengths"
  printf "%7s %15s %9s %9s %13s %14s\n" prompt online-prepare padding pipe hetero-layer hetero-tensor
  for prompt in $misaligned; do
    row=()
    for policy in online-prepare padding pipe; do
      run "$mis_model" "$prompt" 0 npu-only --set npu.shape_policy=$policy
      row+=("$(field prefill_ms %.1f)")
    done
    for system in hetero-layer hetero-tensor; do
      run "$mis_model" "$prompt" 0 "$system"
      row+=("$(field prefill_ms %.1f)")
    done
    printf "%7s %15s %9s %9s %13s %14s\n" "$prompt" "${row[@]}"
  done
fi

if [[ -n $interference ]]; then
  echo
  echo "$mis_model prefill at 256 tokens beside a 60 FPS GPU render load of $interference per frame"
  printf "%-14s %12s %12s %9s %8s %15s\n" system alone "with-render" slowdown missed "worst-frame-ms"
  for system in gpu-only hetero-layer hetero-tensor; do
    run "$mis_model" 256 0 "$system"
    alone=$(field prefill_tokens_per_s %.1f)
    run "$mis_model" 256 0 "$system" --set workload.gpu_background="$interference"
    with=$(field prefill_tokens_per_s %.1f)
    missed="$(field missed %d)/$(field frames %d)"
    printf "%-14s %12s %12s %8.2fx %8s %15s\n" "$system" "$alone" "$with" "$(awk -v a="$alone" -v b="$with" 'BEGIN{print a/b}')" \
      "$missed" "$(field worst_frame_ms %.1f)"
  done
fi

echo
echo "$mis_model prefill of 256 tokens: energy (Figure 19)"
printf "%-14s %10s %12s %10s\n" system energy-J avg-power-W prefill-ms
for system in gpu-only hetero-layer hetero-tensor; do
  run "$mis_model" 256 0 "$system"
  printf "%-14s %10s %12s %10s\n" "$system" "$(field energy_j %.2f)" "$(field average_power_w %.2f)" "$(field prefill_ms %.1f)"
done

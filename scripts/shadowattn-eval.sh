#!/usr/bin/env bash
# shadowAttn's evaluation on the simulator (../shared/papers/shadowattn.md):
#   1. attention kernel (Figure 10): prefill attention time (attention_ms, all layers; the
#      attention module only) of cg-full, cg-sparse, cg-block-sparse, npu-full and shadowattn at
#      prompts 1024/2048/4096, and shadowattn's attention energy (attention_energy_j) beside it
#   2. end to end (Figure 11): total time (prefill + decode) for the ArxivSum, DroidCall and Octopus
#      lengths (workloads/arxiv-sum.yaml, droidcall.yaml, octopus.yaml)
# for each model, SoC and CPU budget core class (shadowattn.core_class; Figure 15). Every cell is
# one `socsim run`; llm.npu's non-attention prefill and the CPU decode are the same in all five.
#   3. ablation (Figure 16) on the first SoC, model and core class, Octopus lengths: the pipeline,
#      the buckets, the per-head ratios and the sparsity removed cumulatively
#   4. the pipeline planner: best (default) vs the paper's Algorithm 1 alone vs heads in index
#      order, planned and simulated, at 256 tokens (one llm.npu chunk) and the prompts above
#   5. sensitivity (Figures 13 and 14) on the first SoC, model and core class at 1024 tokens, in
#      functional mode (the first --sens-layers layers computed, 4 by default): the global kept
#      ratio against latency, top-k recall and attention error; the bucket count and step against
#      launches, latency and recall
#   6. resources (Figure 12) on the first SoC and model: shadowattn on one core of the first class
#      vs full attention as llm.npu runs it natively, on 4 CPU cores (4 mid: a budget is one core
#      class here, the paper's is 1 prime + 3 mid) or on the GPU; attention time and energy
#   7. energy of the attention kernel (Table 8) on the last SoC (the paper's K60 is an 8 Gen 2) at
#      1024 tokens, all five systems, per layer and over the prefill
#
#   scripts/shadowattn-eval.sh [--socs "snapdragon-8gen3 snapdragon-8gen2"]
#       [--models "qwen2-0.5b qwen2-1.5b phonelm-0.5b phonelm-1.5b"] [--prompts "1024 2048 4096"]
#       [--cores "mid prime little"] [--workloads "arxiv-sum droidcall octopus"] [--sens-layers N]
#       [--set k=v]...
set -euo pipefail
cd "$(dirname "$0")/.."
socs="snapdragon-8gen3 snapdragon-8gen2"
models="qwen2-0.5b qwen2-1.5b phonelm-0.5b phonelm-1.5b"
prompts="1024 2048 4096"
cores="mid prime little"
workloads="arxiv-sum droidcall octopus"
sens_layers=4
sets=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --socs) socs="$2"; shift 2 ;;
    --models) models="$2"; shift 2 ;;
    --prompts) prompts="$2"; shift 2 ;;
    --cores) cores="$2"; shift 2 ;;
    --workloads) workloads="$2"; shift 2 ;;
    --sens-layers) sens_layers="$2"; shift 2 ;;
    --set) sets+=(--set "$2"); shift 2 ;;
    *) echo "usage: $0 [--socs \"S ...\"] [--models \"M ...\"] [--prompts \"P ...\"] [--cores \"C ...\"] [--workloads \"W ...\"] [--sens-layers N] [--set k=v]..." >&2; exit 2 ;;
  esac
done
bin=build/socsim
[[ -x $bin ]] || { echo "build first: cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j2" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
systems="cg-full cg-sparse cg-block-sparse npu-full shadowattn"

key() { local v; v=$(grep -o "\"$1\": [0-9.e+-]*" "$tmp/r.json" | head -1 | awk '{printf "%.1f", $2}' || true); echo "${v:--}"; }
stretched=""  # "*" after a cell whose lengths exceed the model's trained window
run() {  # system, then arguments of `socsim run`; a failed run clears the result (its cell prints "-").
  # The paper runs PhoneLM (trained for 2048 tokens) on 3840/4096-token prompts: a length beyond
  # the model's window is run again with the window stretched (model.max_position_embeddings), and
  # its cell is marked "*".
  local system=$1; shift
  rm -f "$tmp/r.json"
  stretched=""
  local args=(run --soc "$soc" --model "$model" --system "$system" --set shadowattn.core_class="$core" ${sets[@]+"${sets[@]}"} "$@" --json "$tmp/r.json")
  if ! "$bin" "${args[@]}" >/dev/null 2>"$tmp/err"; then
    if grep -q "context of" "$tmp/err" && "$bin" "${args[@]}" --set model.max_position_embeddings=$((1 << 16)) >/dev/null 2>"$tmp/err"; then
      stretched="*"
    else
      echo "{}" >"$tmp/r.json"
    fi
  fi
  return 0
}

for soc in $socs; do
  for core in $cores; do
    echo "== $soc, CPU budget: 1 $core core =="
    echo "-- attention kernel: prefill attention ms (all layers) --"
    printf "%-13s %6s" model prompt
    for s in $systems; do printf " %15s" "$s"; done
    printf " %12s %10s\n" "speedup/full" "shadow_mJ"
    for model in $models; do
      for prompt in $prompts; do
        printf "%-13s %6s" "$model" "$prompt"
        full=0
        for s in $systems; do
          run "$s" --prompt "$prompt" --decode 0
          ms=$(key attention_ms)
          [[ $s == cg-full ]] && full=$ms
          printf " %15s" "$ms$stretched"
        done
        mj=$(grep -o '"attention_energy_j": [0-9.e+-]*' "$tmp/r.json" | awk '{printf "%.1f", $2 * 1000}' || true)
        if [[ $ms == - || $full == - ]]; then printf " %12s %10s\n" - -; else
          printf " %11.1fx %10s\n" "$(awk -v a="$full" -v b="$ms" 'BEGIN{print a/b}')" "${mj:--}"; fi
      done
    done
    echo "-- end to end: total ms (prefill + decode) --"
    printf "%-13s %-10s" model workload
    for s in $systems; do printf " %15s" "$s"; done
    printf "\n"
    for model in $models; do
      for w in $workloads; do
        printf "%-13s %-10s" "$model" "$w"
        for s in $systems; do
          run "$s" --workload "$w"
          printf " %15s" "$(key total_ms)$stretched"
        done
        printf "\n"
      done
    done
    echo "-- note: a value marked * is beyond the model's trained context window, run with it stretched as the paper runs PhoneLM (--set model.max_position_embeddings=N) --"
  done
done

soc=${socs%% *} model=${models%% *} core=${cores%% *}
value() { local v; v=$(grep -o "\"$1\": [0-9.e+-]*" "$tmp/r.json" | head -1 | awk '{printf "%.1f", $2}' || true); echo "${v:--}"; }
echo "== ablation (Figure 16): $model, octopus, $soc, 1 $core core; parts removed cumulatively =="
printf "%-28s %14s %12s %10s\n" removed attention_ms prefill_ms total_ms
ablate=()
for step in none pipeline buckets per-head-ratio sparsity; do
  system=shadowattn
  case $step in
    pipeline) ablate+=(--set shadowattn.pipeline=false) ;;
    buckets) ablate+=(--set shadowattn.buckets_enabled=false) ;;
    per-head-ratio) ablate+=(--set shadowattn.per_head_ratio=false) ;;
    sparsity) system=npu-full; ablate=() ;;
  esac
  run "$system" --workload octopus ${ablate[@]+"${ablate[@]}"}
  label=$step; [[ $step == sparsity ]] && label="sparsity(npu-full)"
  printf "%-28s %14s %12s %10s\n" "$label" "$(value attention_ms)" "$(value prefill_ms)" "$(value total_ms)"
done
echo "== pipeline planner: $model, $soc, 1 $core core; prefill attention ms simulated (planned) and prefill ms =="
printf "%-8s" prompt
for p in best paper in-order; do printf " %28s" "$p"; done
printf "\n"
for prompt in 256 $prompts; do
  printf "%-8s" "$prompt"
  for p in best paper in-order; do
    if [[ $p == in-order ]]; then run shadowattn --prompt "$prompt" --decode 0 --set shadowattn.reorder=false
    else run shadowattn --prompt "$prompt" --decode 0 --set shadowattn.planner=$p; fi
    printf " %28s" "$(value attention_ms)($(value planned_pipeline_ms))/$(value prefill_ms)"
  done
  printf "\n"
done

# 5. Sensitivity: one functional run per row gives the timing and the accuracy of the same plan.
acc() { local v; v=$(grep -o "\"$1\": [0-9.e+-]*" "$tmp/r.json" | head -1 | awk '{printf "%.4f", $2}' || true); echo "${v:--}"; }
fun=(--prompt 1024 --decode 1 --mode functional --functional-layers "$sens_layers")
echo "== sensitivity: $model, $soc, 1 $core core, 1024 tokens; functional mode on the first $sens_layers layers =="
echo "-- global kept ratio (Figure 13) --"
printf "%-9s %14s %12s %20s\n" sparsity attention_ms topk_recall attention_rel_error
for r in 0.2 0.4 0.6 0.8; do
  run shadowattn "${fun[@]}" --set shadowattn.sparsity=$r
  printf "%-9s %14s %12s %20s\n" "$r" "$(value attention_ms)" "$(acc topk_recall)" "$(acc attention_rel_error)"
done
echo "-- scale buckets and step (Figure 14) --"
printf "%-8s %-6s %14s %10s %16s %12s %20s %14s\n" buckets step attention_ms launches heads_per_launch topk_recall attention_rel_error centre_share
for bs in "5 0.5" "9 0.5" "25 0.5" "9 0.05" "9 0.005"; do
  set -- $bs
  run shadowattn "${fun[@]}" --set shadowattn.buckets=$1 --set shadowattn.step=$2
  printf "%-8s %-6s %14s %10s %16s %12s %20s %14s\n" "$1" "$2" "$(value attention_ms)" "$(value estimation_launches)" \
    "$(value heads_per_launch)" "$(acc topk_recall)" "$(acc attention_rel_error)" "$(acc centre_bucket_share)"
done

# 6. Resources: the same attention module on different budgets.
mj() { local v; v=$(grep -o '"attention_energy_j": [0-9.e+-]*' "$tmp/r.json" | awk '{printf "%.1f", $2 * 1000}' || true); echo "${v:--}"; }
echo "== resources (Figure 12): $model, $soc; shadowattn on 1 $core core vs full attention on 4 mid cores or the GPU =="
printf "%-8s %16s %16s %16s %16s %16s %16s\n" prompt "shadow-1$core-ms" "shadow-1$core-mJ" full-4mid-ms full-4mid-mJ full-gpu-ms full-gpu-mJ
for prompt in $prompts; do
  printf "%-8s" "$prompt"
  run shadowattn --prompt "$prompt" --decode 0
  printf " %16s %16s" "$(value attention_ms)$stretched" "$(mj)"
  budget=$core core=mid
  run cg-full --prompt "$prompt" --decode 0 --set shadowattn.cpu_cores=4
  core=$budget
  printf " %16s %16s" "$(value attention_ms)$stretched" "$(mj)"
  run cg-full --prompt "$prompt" --decode 0 --set shadowattn.float_unit=gpu
  printf " %16s %16s\n" "$(value attention_ms)$stretched" "$(mj)"
done

# 7. Energy of one attention kernel: the module's energy over the prefill, and per layer.
soc=${socs##* }
layers=$(grep -o '"num_hidden_layers": *[0-9]*' "models/$model.json" | grep -o '[0-9]*$')
echo "== attention energy (Table 8): $model, $soc, 1 $core core, 1024 tokens; mJ per layer (prefill total) =="
printf "%-16s %14s %16s %14s\n" system attention_ms mJ_per_layer mJ_prefill
for s in $systems; do
  run "$s" --prompt 1024 --decode 0
  e=$(mj)
  per=$([[ $e == - ]] && echo - || awk -v e="$e" -v l="$layers" 'BEGIN{printf "%.2f", e / l}')
  printf "%-16s %14s %16s %14s\n" "$s" "$(value attention_ms)" "$per" "$e"
done

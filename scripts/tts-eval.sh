#!/usr/bin/env bash
# The test-time-scaling NPU system's evaluation on the simulator (../shared/papers/tts-npu.md):
#   1. batched decode (Figures 11, 12): decode tokens/s of tts-npu and gpu-only for each batch
#      (= parallel samples), model and SoC; tts-npu's share of decode time in lm_head on the CPU
#      (op_time_ms.cpu.matmul: lm_head is its only CPU matmul; the prefill's head is one row per
#      sample like a decode step's, so per step = cpu matmul / (decode + 1)); energy per generated
#      token = (energy of prompt + decode - energy of the prompt alone) / (batch x decode).
#      A cell is "-" when the run fails: a model whose weights and KV caches exceed the NPU's
#      address space (8 Gen 2: 2 GiB) cannot run there.
#   2. dequantization GEMV ablation (Figure 15): `socsim microbench` of the W4A16 kernel, one row,
#      for each model's q_proj, o_proj, gate/up and down (Q8_0) shapes under
#      kernel.w4a16.layout = baseline | hmx-layout | coalesced | none.
#   3. softmax ablation (Figure 14): `socsim microbench --op softmax` on the NPU, rows = query
#      length x the model's heads, columns = KV length, exp fp32 | fp16 | lut.
#   4. Best-of-N and step-level beam search (Figure 10's cost axis): generation at batch N plus
#      the reward model's scoring (models/skywork-prm-1.5b.json, tts.role=reward, on the NPU):
#      Best-of-N scores the N finished paths once; beam search scores all live paths after every
#      step of --step tokens (re-scoring each path in full: the PRM's own KV cache is not reused,
#      an upper bound).
#
#   scripts/tts-eval.sh [--socs "snapdragon-8gen2 snapdragon-8gen3 snapdragon-8elite"]
#       [--models "qwen2.5-1.5b qwen2.5-3b llama-3.2-1b llama-3.2-3b"] [--batches "1 2 4 8 16"]
#       [--prompt 512] [--decode 16] [--search-decode 128] [--step 32] [--n 16] [--set k=v]...
set -euo pipefail
cd "$(dirname "$0")/.."
socs="snapdragon-8gen2 snapdragon-8gen3 snapdragon-8elite"
models="qwen2.5-1.5b qwen2.5-3b llama-3.2-1b llama-3.2-3b"
batches="1 2 4 8 16"
prompt=512
decode=16
search_decode=128
step=32
n=16
sets=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --socs) socs="$2"; shift 2 ;;
    --models) models="$2"; shift 2 ;;
    --batches) batches="$2"; shift 2 ;;
    --prompt) prompt="$2"; shift 2 ;;
    --decode) decode="$2"; shift 2 ;;
    --search-decode) search_decode="$2"; shift 2 ;;
    --step) step="$2"; shift 2 ;;
    --n) n="$2"; shift 2 ;;
    --set) sets+=(--set "$2"); shift 2 ;;
    *) echo "usage: $0 [--socs \"S ...\"] [--models \"M ...\"] [--batches \"B ...\"] [--prompt P] [--decode D] [--search-decode D] [--step S] [--n N] [--set k=v]..." >&2; exit 2 ;;
  esac
done
bin=${SOCSIM_BIN:-build/socsim}  # SOCSIM_BIN: a copy of the binary, so a rebuild mid-run cannot fail cells
[[ -x $bin ]] || { echo "build first: cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j2" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

num() { grep -o "\"$1\": [0-9.e+-]*" "$2" | head -1 | awk '{print $2}' || true; }
# op_time_ms.cpu.matmul of a report (pretty-printed JSON), 0 when absent.
cpu_matmul() {
  awk '/"op_time_ms"/{o=1} o&&/"cpu": \{/{c=1} c&&/"matmul"/{gsub(/[",]/,"");print $2; exit} c&&/\}/{exit}' "$1" | grep . || echo 0
}
run() {  # out file, then arguments of `socsim run`; an empty file when the run fails
  local out=$1; shift
  "$bin" run ${sets[@]+"${sets[@]}"} "$@" --json "$out" >/dev/null 2>"$tmp/err" || echo "{}" >"$out"
}
# Latency in microseconds of one `socsim microbench` (its arguments).
bench_us() { "$bin" microbench "$@" --json "$tmp/m.json" >/dev/null && awk -v v="$(num latency_ms "$tmp/m.json")" 'BEGIN{print v * 1000}'; }
cfg() { grep -o "\"$2\": [0-9]*" "models/$1.json" | head -1 | awk '{print $2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{print a / b}'; }
fmt() { [[ -z $1 ]] && echo - || awk -v v="$1" -v f="$2" 'BEGIN{printf f, v}'; }

echo "== 1. batched decode: prompt $prompt, $decode decode steps =="
printf "%-18s %-13s %5s %10s %10s %9s %10s %10s %10s\n" soc model batch tts_tok/s gpu_tok/s tts/gpu lm_head% tts_mJ/tok gpu_mJ/tok
for soc in $socs; do
  for model in $models; do
    for b in $batches; do
      for s in tts-npu gpu-only; do
        run "$tmp/$s.json" --soc "$soc" --model "$model" --system "$s" --prompt "$prompt" --decode "$decode" --batch "$b"
        run "$tmp/$s.p.json" --soc "$soc" --model "$model" --system "$s" --prompt "$prompt" --decode 0 --batch "$b"
      done
      t=$(num decode_tokens_per_s "$tmp/tts-npu.json"); g=$(num decode_tokens_per_s "$tmp/gpu-only.json")
      share=""; e_t=""; e_g=""
      if [[ -n $t ]]; then
        share=$(awk -v c="$(cpu_matmul "$tmp/tts-npu.json")" -v d="$decode" -v s="$(num decode_ms_per_token "$tmp/tts-npu.json")" 'BEGIN{print 100 * c / (d + 1) / s}')
        e_t=$(awk -v a="$(num energy_j "$tmp/tts-npu.json")" -v p="$(num energy_j "$tmp/tts-npu.p.json")" -v b="$b" -v d="$decode" 'BEGIN{print 1000 * (a - p) / (b * d)}')
      fi
      [[ -n $g ]] && e_g=$(awk -v a="$(num energy_j "$tmp/gpu-only.json")" -v p="$(num energy_j "$tmp/gpu-only.p.json")" -v b="$b" -v d="$decode" 'BEGIN{print 1000 * (a - p) / (b * d)}')
      ratio=""; [[ -n $t && -n $g ]] && ratio=$(ratio "$t" "$g")
      printf "%-18s %-13s %5s %10s %10s %9s %10s %10s %10s\n" "$soc" "$model" "$b" "$(fmt "$t" %.1f)" "$(fmt "$g" %.1f)" \
        "$(fmt "$ratio" %.2fx)" "$(fmt "$share" %.1f)" "$(fmt "$e_t" %.1f)" "$(fmt "$e_g" %.1f)"
    done
  done
done

soc3=snapdragon-8gen3
echo
echo "== 2. dequantization GEMV ablation ($soc3, one row, microseconds) =="
printf "%-13s %-9s %6s %6s %-5s %10s %10s %10s %10s %9s\n" model matrix k n fmt baseline hmx-layout coalesced none base/coal
for model in $models; do
  h=$(cfg "$model" hidden_size); f=$(cfg "$model" intermediate_size)
  for shape in "q_proj $h $h q4_0" "o_proj $h $h q4_0" "gate|up $h $f q4_0" "down $f $h q8_0"; do
    read -r name k nn fm <<<"$shape"
    printf "%-13s %-9s %6s %6s %-5s" "$model" "$name" "$k" "$nn" "$fm"
    base=""; coal=""
    for l in baseline hmx-layout coalesced none; do
      us=$(bench_us --soc "$soc3" --op matmul --unit npu --dtype w4a16 --m 1 --k "$k" --n "$nn" \
        --set kernel.w4a16.format="$fm" --set kernel.w4a16.layout="$l")
      [[ $l == baseline ]] && base=$us
      [[ $l == coalesced ]] && coal=$us
      printf " %10.1f" "$us"
    done
    printf " %8.1fx\n" "$(ratio "$base" "$coal")"
  done
done

echo
echo "== 3. softmax ablation (NPU HVX, microseconds; rows = query length x heads) =="
printf "%-18s %-13s %4s %6s %10s %10s %10s %9s\n" soc model q kv fp32 fp16 lut fp16/lut
for soc in $socs; do
  for model in $models; do
    heads=$(cfg "$model" num_attention_heads)
    for q in 1 4 16; do
      for kv in 1024 4096 16384; do
        printf "%-18s %-13s %4s %6s" "$soc" "$model" "$q" "$kv"
        for e in fp32 fp16 lut; do
          v=$(bench_us --soc "$soc" --op softmax --unit npu --m $((q * heads)) --n "$kv" --exp "$e")
          [[ $e == fp16 ]] && p=$v
          printf " %10.2f" "$v"
        done
        printf " %8.2fx\n" "$(ratio "$p" "$v")"
      done
    done
  done
done

echo
echo "== 4. Best-of-N and beam search: N = $n paths, prompt $prompt, $search_decode tokens per path, beam step $step; PRM skywork-prm-1.5b on the NPU (ms) =="
printf "%-18s %-13s %12s %12s %12s %12s %12s\n" soc model generate bestofn_score bestofn_total beam_score beam_total
for soc in $socs; do
  for model in $models; do
    run "$tmp/g.json" --soc "$soc" --model "$model" --system tts-npu --prompt "$prompt" --decode "$search_decode" --batch "$n"
    gen=$(num total_ms "$tmp/g.json")
    run "$tmp/o.json" --soc "$soc" --model skywork-prm-1.5b --system tts-npu --set tts.role=reward --prompt $((prompt + search_decode)) --decode 0 --batch "$n"
    orm=$(num total_ms "$tmp/o.json")
    prm=0
    for ((j = step; j <= search_decode; j += step)); do
      run "$tmp/b.json" --soc "$soc" --model skywork-prm-1.5b --system tts-npu --set tts.role=reward --prompt $((prompt + j)) --decode 0 --batch "$n"
      v=$(num total_ms "$tmp/b.json"); [[ -z $v ]] && { prm=""; break; }
      prm=$(awk -v a="$prm" -v b="$v" 'BEGIN{print a + b}')
    done
    tb=""; tbeam=""
    [[ -n $gen && -n $orm ]] && tb=$(awk -v a="$gen" -v b="$orm" 'BEGIN{print a + b}')
    [[ -n $gen && -n $prm ]] && tbeam=$(awk -v a="$gen" -v b="$prm" 'BEGIN{print a + b}')
    printf "%-18s %-13s %12s %12s %12s %12s %12s\n" "$soc" "$model" "$(fmt "$gen" %.0f)" "$(fmt "$orm" %.0f)" "$(fmt "$tb" %.0f)" \
      "$(fmt "$prm" %.0f)" "$(fmt "$tbeam" %.0f)"
  done
done

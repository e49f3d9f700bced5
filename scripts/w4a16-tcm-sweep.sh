#!/usr/bin/env bash
# The TTS W4A16 kernel's TCM what-if on a fine grid (README, "W4A16 kernel and TCM"): for each SoC
# and GEMM shape, `socsim microbench` at npu.tcm = 512 KiB .. 16 MiB in 256 KiB steps, then 32 and
# 64 MiB; prints the first and last latency (us) and the largest growth from one size to the next.
# About 8 minutes on one core.
#   scripts/w4a16-tcm-sweep.sh [--socs "snapdragon-8gen2 snapdragon-8gen3 snapdragon-8elite"]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${SOCSIM_BIN:-build/socsim}
socs="snapdragon-8gen2 snapdragon-8gen3 snapdragon-8elite"
if [[ $# -ge 2 && "$1" == --socs ]]; then socs="$2"; shift 2; fi
if [[ $# -gt 0 ]]; then echo "usage: $0 [--socs \"SOC...\"]" >&2; exit 2; fi
shapes=("1 896 4864" "16 1536 8960" "1 1536 8960" "128 4096 4096" "512 2048 2048" "1024 8960 1536"
        "1024 1536 1536" "1024 1536 256" "4 3072 8192" "100 1000 3000")
for soc in $socs; do
  for shape in "${shapes[@]}"; do
    read -r m k n <<< "$shape"
    values=()
    for kib in $(seq 512 256 16384) 32768 65536; do
      v=$("$bin" microbench --soc "$soc" --op matmul --unit npu --dtype w4a16 --m "$m" --k "$k" --n "$n" --set "npu.tcm=${kib}KiB" |
          awk '/latency_us/ {print $2}') || { echo "error: $soc ${m}x${k}x${n} at ${kib} KiB" >&2; exit 1; }
      values+=("$kib:$v")
    done
    printf '%s\n' "${values[@]}" | awk -v soc="$soc" -v shape="${m}x${k}x${n}" -F: '
      NR == 1 { first = $2 }
      NR > 1 && $2 / prev - 1 > worst { worst = $2 / prev - 1; at = $1 " KiB " prev " -> " $2 }
      { prev = $2 }
      END { printf "%s %-16s first %s last %s worst %+.2f%% %s\n", soc, shape, first, prev, 100 * worst, at }'
  done
done

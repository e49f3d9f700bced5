#!/usr/bin/env bash
# Regenerates shadowAttn's committed offline importance calibrations,
# models/shadowattn/<model>.importance.json, with `socsim calibrate` (every layer, seed 1, the
# default options). Needed only when the calibration method or a model's config changes; the
# files are what `socsim run --system shadowattn` reads by default. Takes about 40 minutes on two
# cores for the paper's four models (qwen2-0.5b about 4 minutes; cost ~ heads x layers^2).
#   scripts/shadowattn-calibrate.sh [--models "qwen2-0.5b qwen2-1.5b phonelm-0.5b phonelm-1.5b"]
set -euo pipefail
cd "$(dirname "$0")/.."
models="qwen2-0.5b qwen2-1.5b phonelm-0.5b phonelm-1.5b"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --models) models="$2"; shift 2 ;;
    *) echo "usage: $0 [--models \"M ...\"]" >&2; exit 2 ;;
  esac
done
bin=build/socsim
[[ -x $bin ]] || { echo "build first: cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j2" >&2; exit 2; }
for m in $models; do
  "$bin" calibrate --system shadowattn --model "$m" --out "models/shadowattn/$m.importance.json"
done

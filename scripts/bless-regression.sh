#!/usr/bin/env bash
# Re-bless the regression goldens: simulate every case of tests/regression/matrix.yaml and
# write the results to tests/regression/golden.json. Do this deliberately, when a model change is
# intended, and say in the commit which metrics moved and why (git diff shows them).
#   scripts/bless-regression.sh [--build DIR]      (default build dir: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
if [[ "${1:-}" == "--build" ]]; then build="$2"; fi
socsim="$build/socsim"
[[ -x "$socsim" ]] || { echo "error: $socsim not found; build first (cmake --build $build)" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$socsim" sweep --spec tests/regression/matrix.yaml --out "$out" >/dev/null
cp "$out/results.json" tests/regression/golden.json
echo "blessed tests/regression/golden.json ($(grep -c '"run":' tests/regression/golden.json) cases)"
git --no-pager diff --stat -- tests/regression/golden.json || true

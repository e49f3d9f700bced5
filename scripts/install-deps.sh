#!/usr/bin/env bash
# Installs the Debian packages socsim builds with. Safe to re-run; uses sudo when not root.
#   scripts/install-deps.sh          what building and running socsim needs
#   scripts/install-deps.sh --test   also what the whole test suite needs (scripts/test.sh, CI)
set -euo pipefail
with_tests=0
case "${1:-}" in
  "") ;;
  --test) with_tests=1 ;;
  *) echo "install-deps.sh: unknown option '$1' (expected nothing or --test)" >&2; exit 2 ;;
esac
packages=(
  cmake g++ make
  libyaml-cpp-dev        # SoC/workload/claims YAML
  libspdlog-dev libfmt-dev
  libboost-dev libboost-program-options-dev
  nlohmann-json3-dev     # JSON reports and HF config.json (Boost 1.74 in Debian 12 has no Boost.JSON)
  libgtest-dev libgmock-dev
  libbenchmark-dev
  libopenblas-dev        # the GEMM benchmark's reference (cblas_sgemm in tests/benchmarks/gemm_benchmark.cpp)
  pybind11-dev python3-dev  # the Python module (sim/python/, `import socsim`)
)
test_packages=(
  clang libclang-rt-14-dev  # libFuzzer targets of the input parsers (tests/fuzz, scripts/fuzz.sh)
  chromium                  # renders report.html headless (tests/cli/cli_report_render_test.cpp)
  slurm-wlm munge           # the Slurm recipe on a single-node Slurm (tests/cluster/slurm_sweep_test.sh)
  parallel                  # the GNU parallel recipe (tests/cluster/parallel_sweep_test.sh)
  python3-pandas python3-matplotlib  # the Python module's tests and example (tests/python/, scripts/plot_sweep.py)
)
[ "$with_tests" -eq 0 ] || packages+=("${test_packages[@]}")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

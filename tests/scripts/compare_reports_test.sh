#!/usr/bin/env bash
# scripts/compare-reports.sh finds what it is for: a binary compared with itself is the same on every
# line (a run that fails on both sides alike, a report folder); a "new" binary whose report gains a
# byte, whose run fails where the base's did not, or whose folder lacks a file is a difference.
#   compare_reports_test.sh SOCSIM
set -euo pipefail
socsim=$(realpath "$1")
script=$(cd "$(dirname "$0")/../../scripts" && pwd)/compare-reports.sh
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cat > "$t/cases.txt" <<'CASES'
# comment, then a blank line

run --soc snapdragon-8gen3 --model qwen2-0.5b --system cpu-only --prompt 16 --decode 2
run --soc snapdragon-8gen3 --model qwen2-0.5b --system nosuch --prompt 16 --decode 2
run --soc snapdragon-8gen3 --model qwen2-0.5b --system gpu-only --prompt 16 --decode 3 --report-dir {dir}
CASES

# 1. The binary against itself: 3 of 3 the same, exit 0.
out=$(bash "$script" -j 2 "$socsim" "$socsim" "$t/cases.txt" 2> /dev/null) || fail "itself: exit $? ($out)"
grep -qx "3 of 3 the same, 0 differ" <<< "$out" || fail "itself: $out"

# A stand-in "new" binary: $2 runs before socsim (it may exit), $3 after it, with $json and $dir
# set to the run's --json file and --report-dir folder.
wrapper() {
  {
    echo '#!/usr/bin/env bash'
    echo "$2"
    echo "\"$socsim\" \"\$@\" || exit \$?"
    echo 'json=""; dir=""'
    echo 'for ((i = 1; i < $#; i++)); do j=$((i + 1)); case "${!i}" in --json) json=${!j} ;; --report-dir) dir=${!j} ;; esac; done'
    echo "$3"
  } > "$t/$1"
  chmod +x "$t/$1"
}

# 2. A new binary whose JSON reports gain a byte: the first line differs (report.json of the folder
# too), the failing line stays the same.
wrapper appends ":" '[[ -n "$json" ]] && echo >> "$json"; [[ -n "$dir" ]] && echo >> "$dir/report.json"; exit 0'
rc=0; out=$(bash "$script" "$socsim" "$t/appends" "$t/cases.txt" 2> /dev/null) || rc=$?
[[ $rc == 1 ]] || fail "appended byte: exit $rc, expected 1 ($out)"
grep -qx "1 of 3 the same, 2 differ" <<< "$out" || fail "appended byte: $out"
grep -q "differ: report.json: cmp: EOF on report.json after byte " <<< "$out" || fail "appended byte: no byte named: $out"

# 3. A new binary that fails where the base ran, fails otherwise where both fail, and writes one
# file fewer.
wrapper fails '[[ " $* " == *" cpu-only "* ]] && { echo "Error: made to fail" >&2; exit 3; }
[[ " $* " == *" nosuch "* ]] && { echo "Error: another message" >&2; exit 2; }' '[[ -n "$dir" ]] && rm "$dir/report.html"; exit 0'
rc=0; out=$(bash "$script" "$socsim" "$t/fails" "$t/cases.txt" 2> /dev/null) || rc=$?
[[ $rc == 1 ]] || fail "fails: exit $rc, expected 1 ($out)"
grep -qx "0 of 3 the same, 3 differ" <<< "$out" || fail "fails: $out"
grep -q "exit status 0 (base) vs 3 (new): Error: made to fail" <<< "$out" || fail "fails: one-sided failure not named: $out"
grep -q "both exit 2, with different errors" <<< "$out" || fail "fails: different errors not named: $out"
grep -q "the runs wrote different files" <<< "$out" || fail "fails: missing file not named: $out"

# 4. Bad usage exits 2.
rc=0; bash "$script" "$socsim" 2> /dev/null || rc=$?; [[ $rc == 2 ]] || fail "one binary: exit $rc"
rc=0; bash "$script" -j 0 "$socsim" "$socsim" 2> /dev/null || rc=$?; [[ $rc == 2 ]] || fail "-j 0: exit $rc"
rc=0; bash "$script" "$socsim" "$t/none" 2> /dev/null || rc=$?; [[ $rc == 2 ]] || fail "missing binary: exit $rc"
: > "$t/empty.txt"
rc=0; bash "$script" "$socsim" "$socsim" "$t/empty.txt" 2> /dev/null || rc=$?; [[ $rc == 2 ]] || fail "no lines: exit $rc"
echo "compare-reports: all checks passed"

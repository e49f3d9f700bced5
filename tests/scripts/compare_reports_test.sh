#!/usr/bin/env bash
# scripts/compare-reports.sh finds what it is for: a binary compared with itself is the same on every
# line (runs that fail alike, a report folder, an error naming the run's own folder, a CRLF line); a
# "new" binary whose report gains a byte or has one changed, whose run fails where the base's did not
# or with another error, whose folder lacks a file, who writes no file, prints more, hangs or
# crashes, is a difference; progress lines are not; a TERM stops every run and cleans up.
#   compare_reports_test.sh SOCSIM
set -euo pipefail
socsim=$(realpath "$1")
script=$(cd "$(dirname "$0")/../../scripts" && pwd)/compare-reports.sh
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# Runs the script; sets $out (standard output) and $rc.
compare() { rc=0; out=$(bash "$script" "$@" 2> "$t/err") || rc=$?; }
expect() {  # RC SUMMARY [PATTERN...]: the exit status, the summary line, patterns of the output
  local want_rc=$1 summary=$2; shift 2
  [[ $rc == "$want_rc" ]] || fail "exit $rc, expected $want_rc: $out $(cat "$t/err")"
  grep -qxF "$summary" <<< "$out" || fail "summary: expected '$summary' in: $out"
  for p in "$@"; do grep -qF -- "$p" <<< "$out" || fail "expected '$p' in: $out"; done
}

printf '%s\n' '# comment, then a blank line' '' \
  'run --soc snapdragon-8gen3 --model qwen2-0.5b --system cpu-only --prompt 16 --decode 2' \
  'run --soc snapdragon-8gen3 --model qwen2-0.5b --system nosuch --prompt 16 --decode 2' \
  'run --soc snapdragon-8gen3 --model qwen2-0.5b --system gpu-only --prompt 16 --decode 3 --report-dir {dir}' \
  'run --soc snapdragon-8gen3 --model qwen2-0.5b --system gpu-only --prompt 16 --decode 2 --json {dir}' > "$t/cases.txt"
printf 'run --soc snapdragon-8gen3 --model qwen2-0.5b --system cpu-only --prompt 8 --decode 1\r\n' >> "$t/cases.txt"

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

# 1. The binary against itself (the fourth line's error names the run's own folder; the fifth ends
# in CRLF).
compare -j 2 "$socsim" "$socsim" "$t/cases.txt"
expect 0 "5 of 5 the same (2 of them failed on both sides alike), 0 differ"

# The cases file and binaries named relative to the caller's folder, not the checkout's root.
# (Not in a subshell: compare sets $rc and $out here.)
cd "$t"
compare "$socsim" "$socsim" cases.txt
cd - > /dev/null
expect 0 "5 of 5 the same (2 of them failed on both sides alike), 0 differ"

# 2. A byte appended to each report, and one changed in place in trace.json.
wrapper appends : '[[ -n "$json" ]] && echo >> "$json"; [[ -n "$dir" ]] && echo >> "$dir/report.json"; exit 0'
compare "$socsim" "$t/appends" "$t/cases.txt"
expect 1 "2 of 5 the same (2 of them failed on both sides alike), 3 differ" \
  "differ: report.json: cmp: EOF on report.json after byte "
wrapper changes : '[[ -n "$dir" ]] && printf X | dd of="$dir/trace.json" bs=1 seek=1 conv=notrunc status=none; exit 0'
compare "$socsim" "$t/changes" "$t/cases.txt"
expect 1 "4 of 5 the same (2 of them failed on both sides alike), 1 differ" "differ: trace.json: trace.json " "differ: byte 2, line 1"

# 3. Fails where the base ran, fails with another error where both fail, writes one file fewer.
wrapper fails '[[ " $* " == *" cpu-only "* ]] && { echo "Error: made to fail" >&2; exit 3; }
[[ " $* " == *" nosuch "* ]] && { echo "Error: another message" >&2; exit 2; }' '[[ -n "$dir" ]] && rm "$dir/report.html"; exit 0'
compare "$socsim" "$t/fails" "$t/cases.txt"
expect 1 "1 of 5 the same (1 of them failed on both sides alike), 4 differ" \
  "exit status 0 (base) vs 3 (new): Error: made to fail" "differ: standard error, both exit 2: < error: command line: --system: unknown system" \
  "the runs wrote different files"

# 4. More on standard error or output is a difference; a progress line (elapsed wall time) is not.
wrapper warns 'echo "[warning] something new" >&2' ':'
compare "$socsim" "$t/warns" "$t/cases.txt"
expect 1 "0 of 5 the same (0 of them failed on both sides alike), 5 differ" "> [warning] something new"
wrapper says ':' 'echo "one more line"'
compare "$socsim" "$t/says" "$t/cases.txt"
expect 1 "2 of 5 the same (2 of them failed on both sides alike), 3 differ" "differ: standard output: > one more line"
wrapper progress 'echo "socsim: 3/10 runs  1.$RANDOM s, ~2.0 s left" >&2' ':'
compare "$socsim" "$t/progress" "$t/cases.txt"
expect 0 "5 of 5 the same (2 of them failed on both sides alike), 0 differ"

# 5. Exit 0 without writing a file, a signal, a run past -t: differences even when both sides do it.
head -n 3 "$t/cases.txt" > "$t/one.txt"
printf '#!/usr/bin/env bash\nexit 0\n' > "$t/silent"; chmod +x "$t/silent"
compare "$t/silent" "$t/silent" "$t/one.txt"
expect 1 "0 of 1 the same (0 of them failed on both sides alike), 1 differ" "exit 0 without writing a file"
printf '#!/usr/bin/env bash\nkill -SEGV $$\n' > "$t/crashes"; chmod +x "$t/crashes"
compare "$t/crashes" "$t/crashes" "$t/one.txt"
expect 1 "0 of 1 the same (0 of them failed on both sides alike), 1 differ" "killed by a signal (exit 139 base, 139 new)"
printf '#!/usr/bin/env bash\nsleep 30\n' > "$t/hangs"; chmod +x "$t/hangs"
compare -t 1 "$t/silent" "$t/hangs" "$t/one.txt"
expect 1 "0 of 1 the same (0 of them failed on both sides alike), 1 differ" "a run passed 1 s (exit 0 base, 124 new)"

# 6. SIGTERM while runs go on: exit 130 at once, no run left, the temporary folder removed.
mkdir "$t/tmp"
printf '#!/usr/bin/env bash\nexec sleep 1000%s\n' "$$" > "$t/slow"; chmod +x "$t/slow"
TMPDIR="$t/tmp" bash "$script" -j 2 "$t/slow" "$t/slow" "$t/cases.txt" > /dev/null 2>&1 &
pid=$!
sleep 1
kill -TERM "$pid"
rc=0; wait "$pid" || rc=$?
[[ $rc == 130 ]] || fail "TERM: exit $rc, expected 130"
sleep 0.5
# (Through /proc: pgrep is not on every machine.)
left=$(grep -lsa "[s]leep.1000$$" /proc/[0-9]*/cmdline || true)
if [[ -n "$left" ]]; then
  for f in $left; do p=${f#/proc/}; kill "${p%/cmdline}" 2> /dev/null || true; done
  fail "TERM: a run was left running"
fi
[[ -z "$(ls -A "$t/tmp")" ]] || fail "TERM: left $(ls -A "$t/tmp")"

# 7. Bad usage exits 2.
for args in "$socsim" "-j 0 $socsim $socsim" "-j 65 $socsim $socsim" "-t x $socsim $socsim" "$socsim $t/none"; do
  rc=0; read -r -a a <<< "$args"; bash "$script" "${a[@]}" > /dev/null 2>&1 || rc=$?
  [[ $rc == 2 ]] || fail "'$args': exit $rc, expected 2"
done
: > "$t/empty.txt"
rc=0; bash "$script" "$socsim" "$socsim" "$t/empty.txt" 2> /dev/null || rc=$?; [[ $rc == 2 ]] || fail "no lines: exit $rc"
echo "compare-reports: all checks passed"

#!/usr/bin/env bash
# Do two socsim binaries give byte-identical reports? The check a speed change must pass before it
# lands: build the base commit's binary once, keep it, and compare it with the new build over a list
# of runs that covers every system, the option sets that change their planning, windowed decodes,
# workloads, `serve` and report folders.
#
#   scripts/compare-reports.sh [-j N] BASE_SOCSIM NEW_SOCSIM [CASES_FILE]
#
# CASES_FILE (default scripts/compare-reports-cases.txt) has one socsim command line per line, without
# the program's name (`run --soc ... --decode 8`); blank lines and lines starting with # are skipped.
# A line is run by both binaries from the checkout's root (socsim finds soc_configs/ there) with
# `--json FILE` appended, unless it names `{dir}`: then `{dir}` becomes an empty folder of each run's
# own and every file the run writes there is compared (e.g. `--report-dir {dir}`: report.json,
# trace.json, report.html). Two runs that both fail count as the same when they exit with the same
# status and print the same error; a run that fails on one side only is a difference.
#
# Prints each differing line (with the first differing byte) and a summary; exit 0 when every line is
# the same, 1 when one differs, 2 for bad usage. -j N runs N lines at a time (default 1: a speed
# comparison should not share the machine with itself).
set -euo pipefail

usage() { echo "usage: $0 [-j N] BASE_SOCSIM NEW_SOCSIM [CASES_FILE]" >&2; exit 2; }

jobs=1
if [[ "${1:-}" == "-j" ]]; then
  [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || { echo "$0: -j: expected a positive whole number, got '${2:-}'" >&2; exit 2; }
  jobs=$2; shift 2
fi
[[ $# -eq 2 || $# -eq 3 ]] || usage
root=$(cd "$(dirname "$0")/.." && pwd)
cases=${3:-$root/scripts/compare-reports-cases.txt}
for b in "$1" "$2"; do
  [[ -f "$b" && -x "$b" ]] || { echo "$0: $b: not an executable file" >&2; exit 2; }
done
[[ -f "$cases" && -r "$cases" ]] || { echo "$0: $cases: no such readable file" >&2; exit 2; }
base=$(realpath "$1"); new=$(realpath "$2")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One line, both binaries; prints "same", or "differ: reason", on standard output.
compare_one() {
  local index=$1 line=$2 side out rc
  local -a words
  for side in base new; do
    out="$work/$index/$side"
    mkdir -p "$out/dir"
    if [[ "$line" == *"{dir}"* ]]; then
      read -r -a words <<< "${line//\{dir\}/$out/dir}"
    else
      read -r -a words <<< "$line"
      words+=(--json "$out/dir/report.json")
    fi
    local bin=$base; [[ $side == new ]] && bin=$new
    rc=0
    (cd "$root" && "$bin" "${words[@]}" > /dev/null 2> "$out/stderr") || rc=$?
    echo "$rc" > "$out/rc"
  done
  local a="$work/$index/base" b="$work/$index/new"
  local rca rcb; rca=$(cat "$a/rc"); rcb=$(cat "$b/rc")
  if [[ "$rca" != "$rcb" ]]; then
    echo "differ: exit status $rca (base) vs $rcb (new): $(tail -n 1 "$b/stderr")"
  elif [[ "$rca" != 0 ]]; then
    # The error text names the binary's own inputs the same way on both sides; paths of the
    # per-side folders are the only part that may differ.
    if diff -q <(sed "s#$a/dir#DIR#g" "$a/stderr") <(sed "s#$b/dir#DIR#g" "$b/stderr") > /dev/null; then
      echo "same"
    else
      echo "differ: both exit $rca, with different errors: $(tail -n 1 "$b/stderr")"
    fi
  else
    local files_a files_b f
    files_a=$(cd "$a/dir" && find . -type f -printf "%P\n" | LC_ALL=C sort)
    files_b=$(cd "$b/dir" && find . -type f -printf "%P\n" | LC_ALL=C sort)
    if [[ "$files_a" != "$files_b" ]]; then
      echo "differ: the runs wrote different files: [$(echo $files_a)] vs [$(echo $files_b)]"
      return
    fi
    for f in $files_a; do
      if ! cmp -s "$a/dir/$f" "$b/dir/$f"; then
        echo "differ: $f: $(cmp "$a/dir/$f" "$b/dir/$f" 2>&1 | head -n 1 | sed "s#$a/dir/##; s#$b/dir/##")"
        return
      fi
    done
    echo "same"
  fi
  rm -rf "${work:?}/$index"
}

mapfile -t lines < <(grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$cases")
total=${#lines[@]}
(( total > 0 )) || { echo "$0: $cases: no command lines" >&2; exit 2; }
echo "comparing $total runs: $base (base) vs $new (new), $jobs at a time" >&2

same=0 differ=0 done=0
declare -a pids=() indices=()
finish() {  # wait for the oldest running line and print its verdict
  wait "${pids[0]}" || true
  local i=${indices[0]} verdict
  verdict=$(cat "$work/verdict.$i")
  pids=("${pids[@]:1}"); indices=("${indices[@]:1}")
  done=$((done + 1))
  if [[ "$verdict" == same ]]; then
    same=$((same + 1))
  else
    differ=$((differ + 1))
    echo "line: ${lines[$i]}"
    echo "  $verdict"
  fi
  if (( done % 25 == 0 || done == total )); then echo "  ... $done of $total" >&2; fi
}
for i in "${!lines[@]}"; do
  (( ${#pids[@]} < jobs )) || finish
  compare_one "$i" "${lines[$i]}" > "$work/verdict.$i" &
  pids+=($!); indices+=("$i")
done
while (( ${#pids[@]} > 0 )); do finish; done

echo "$same of $total the same, $differ differ"
(( differ == 0 ))

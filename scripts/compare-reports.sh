#!/usr/bin/env bash
# Do two socsim binaries give byte-identical answers? The check a speed change or a refactoring must
# pass before it lands: build the base commit's binary once, keep it, and compare it with the new
# build over a list of runs that covers every system, the option sets that change their planning,
# windowed decodes, workloads, `serve` and report folders.
#
#   scripts/compare-reports.sh [-j N] [-t SECONDS] BASE_SOCSIM NEW_SOCSIM [CASES_FILE]
#
# CASES_FILE (default scripts/compare-reports-cases.txt) has one socsim command line per line, without
# the program's name (`run --soc ... --decode 8`), split at blanks (no quoting); blank lines and lines
# starting with # are skipped. A line is run by both binaries from the checkout's root (both read
# that checkout's soc_configs/, models/ and workloads/: a change to those files is not what this
# compares) with `--json FILE` appended, unless it names `{dir}`: then `{dir}` becomes an empty folder
# of each run's own and every file the run writes there is compared (e.g. `--report-dir {dir}`:
# report.json, trace.json, report.html). Each run's standard output and error are compared too, with
# its own folder's path replaced and progress lines (elapsed wall time) left out.
#
# A line is the same when both runs exit 0 with the same outputs, or both exit with the same error
# status and the same messages (the summary counts these: a line that fails on both sides checks only
# its error). A run that writes no file, is killed by a signal or passes -t SECONDS (default 600) is
# a difference. Prints each differing line with the first difference and a summary; exit 0 when every
# line is the same, 1 when one differs, 2 for bad usage, 3 when the script itself failed.
# -j N (1..64) runs N lines at a time (default 1: a speed comparison should not share the machine
# with itself). Ctrl-C or SIGTERM stops every run and removes the temporary folder.
set -Eeuo pipefail
trap 'echo "$0: internal error at line $LINENO" >&2; exit 3' ERR

usage() { echo "usage: $0 [-j N] [-t SECONDS] BASE_SOCSIM NEW_SOCSIM [CASES_FILE]" >&2; exit 2; }

jobs=1 limit=600
while [[ "${1:-}" == -j || "${1:-}" == -t ]]; do
  case "$1" in
    -j) [[ "${2:-}" =~ ^[1-9][0-9]?$ && "${2:-}" -le 64 ]] || { echo "$0: -j: expected a whole number from 1 to 64, got '${2:-}'" >&2; exit 2; }
        jobs=$2 ;;
    -t) [[ "${2:-}" =~ ^[1-9][0-9]{0,5}$ ]] || { echo "$0: -t: expected a whole number of seconds from 1 to 999999, got '${2:-}'" >&2; exit 2; }
        limit=$2 ;;
  esac
  shift 2
done
[[ $# -eq 2 || $# -eq 3 ]] || usage
root=$(cd -- "$(dirname -- "$0")/.." > /dev/null && pwd)
cases=${3:-$root/scripts/compare-reports-cases.txt}
for b in "$1" "$2"; do
  [[ -f "$b" && -x "$b" ]] || { echo "$0: $b: not an executable file" >&2; exit 2; }
done
[[ -f "$cases" && -r "$cases" ]] || { echo "$0: $cases: no such readable file" >&2; exit 2; }
# (Absolute: the runs start from the checkout's root, whatever the caller's folder.)
base=$(realpath -- "$1"); new=$(realpath -- "$2"); cases=$(realpath -- "$cases")

work=$(mktemp -d)
declare -a pids=() indices=()
on_signal() {
  trap - INT TERM ERR
  # The lines' subshells stop their runs (below) and end.
  for p in "${pids[@]}"; do kill -TERM "$p" 2> /dev/null || true; done
  wait 2> /dev/null || true
  rm -rf -- "$work"
  exit 130
}
trap on_signal INT TERM
trap 'rm -rf -- "$work"' EXIT
cd -- "$root"

# A run's text output with its own folder's path replaced (a literal replacement: no pattern
# characters in the path can change what is compared) and progress lines left out.
normalized() {  # FILE FOLDER
  local line
  while IFS= read -r line || [[ -n "$line" ]]; do
    [[ "$line" =~ ^socsim:\ [0-9]+/[0-9]+\  ]] && continue
    printf '%s\n' "${line//"$2"/DIR}"
  done < "$1"
}

# One line, both binaries; prints "same", "same, failed", or "differ: reason".
compare_one() {
  local index=$1 line=$2 side out rc bin child
  local -a words
  child=
  trap '[[ -n "$child" ]] && kill -TERM "$child" 2> /dev/null; exit 143' TERM
  for side in base new; do
    out="$work/$index/$side"
    mkdir -p -- "$out/dir"
    if [[ "$line" == *"{dir}"* ]]; then
      read -r -a words <<< "${line//"{dir}"/"$out/dir"}"
    else
      read -r -a words <<< "$line"
      words+=(--json "$out/dir/report.json")
    fi
    bin=$base; [[ $side == new ]] && bin=$new
    rc=0
    timeout "$limit" "$bin" "${words[@]}" > "$out/stdout" 2> "$out/stderr" < /dev/null &
    child=$!
    wait "$child" || rc=$?
    child=
    echo "$rc" > "$out/rc"
    normalized "$out/stdout" "$out/dir" > "$out/stdout.n"
    normalized "$out/stderr" "$out/dir" > "$out/stderr.n"
  done
  local a="$work/$index/base" b="$work/$index/new" rca rcb
  rca=$(< "$a/rc"); rcb=$(< "$b/rc")
  last() { tail -n 1 "$1/stderr.n"; }
  if [[ "$rca" == 124 || "$rcb" == 124 ]]; then
    echo "differ: a run passed $limit s (exit $rca base, $rcb new)"
  elif (( rca > 128 || rcb > 128 )); then
    echo "differ: a run was killed by a signal (exit $rca base, $rcb new): $(last "$b")"
  elif [[ "$rca" != "$rcb" ]]; then
    local failing=$a; [[ "$rcb" != 0 ]] && failing=$b
    echo "differ: exit status $rca (base) vs $rcb (new): $(last "$failing")"
  elif ! cmp -s "$a/stderr.n" "$b/stderr.n"; then
    echo "differ: standard error, both exit $rca: $(diff "$a/stderr.n" "$b/stderr.n" | grep -a -m 1 '^[<>]' || true)"
  elif ! cmp -s "$a/stdout.n" "$b/stdout.n"; then
    echo "differ: standard output: $(diff "$a/stdout.n" "$b/stdout.n" | grep -a -m 1 '^[<>]' || true)"
  elif [[ "$rca" != 0 ]]; then
    echo "same, failed"
  else
    local files_a files_b f
    files_a=$(cd -- "$a/dir" && find . -type f -printf "%P\n" | LC_ALL=C sort)
    files_b=$(cd -- "$b/dir" && find . -type f -printf "%P\n" | LC_ALL=C sort)
    if [[ -z "$files_a" ]]; then
      echo "differ: exit 0 without writing a file (the line's output is not compared)"
    elif [[ "$files_a" != "$files_b" ]]; then
      echo "differ: the runs wrote different files: [$(echo $files_a)] vs [$(echo $files_b)]"
    else
      local verdict=same
      while IFS= read -r f; do
        if ! cmp -s -- "$a/dir/$f" "$b/dir/$f"; then
          verdict=$(cd -- "$a/dir" && cmp -- "$f" "$b/dir/$f" 2>&1 | head -n 1 || true)
          verdict="differ: $f: ${verdict//"$b/dir/"/}"
          break
        fi
      done <<< "$files_a"
      echo "$verdict"
    fi
  fi
  rm -rf -- "${work:?}/$index"
}

mapfile -t lines < <(grep -a -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' -- "$cases" | tr -d '\r')
total=${#lines[@]}
(( total > 0 )) || { echo "$0: $cases: no command lines" >&2; exit 2; }
echo "comparing $total lines: $base (base) vs $new (new), $jobs at a time" >&2

same=0 failed_alike=0 differ=0 done=0 broken=0
finish() {  # wait for the oldest running line and print its verdict
  wait "${pids[0]}" || true
  local i=${indices[0]} verdict=""
  [[ -f "$work/verdict.$i" ]] && verdict=$(< "$work/verdict.$i")
  pids=("${pids[@]:1}"); indices=("${indices[@]:1}")
  done=$((done + 1))
  case "$verdict" in
    same) same=$((same + 1)) ;;
    "same, failed") same=$((same + 1)); failed_alike=$((failed_alike + 1)) ;;
    differ:*) differ=$((differ + 1)); printf 'line: %s\n  %s\n' "${lines[$i]}" "$verdict" ;;
    *) broken=$((broken + 1)); printf 'line: %s\n  the comparison itself failed\n' "${lines[$i]}" ;;
  esac
  if (( done % 25 == 0 || done == total )); then echo "  ... $done of $total" >&2; fi
}
for i in "${!lines[@]}"; do
  (( ${#pids[@]} < jobs )) || finish
  compare_one "$i" "${lines[$i]}" > "$work/verdict.$i" &
  pids+=($!); indices+=("$i")
done
while (( ${#pids[@]} > 0 )); do finish; done

echo "$same of $total the same ($failed_alike of them failed on both sides alike), $differ differ"
if (( broken > 0 )); then echo "$0: $broken lines could not be compared" >&2; exit 3; fi
if (( differ > 0 )); then exit 1; fi

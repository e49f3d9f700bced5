#!/usr/bin/env bash
# Runs a socsim sweep as N shards with GNU parallel (on this machine, or over ssh hosts with
# -S host1,host2 and a folder they all see), then merges them into OUT.
#
#   scripts/sweep-parallel.sh SPEC OUT [N] [--socsim PATH] [-- PARALLEL_ARGS...]
#   scripts/sweep-parallel.sh --shard I[,J...] SPEC OUT N [...]   run shards again, then merge
#
# SPEC is a spec file or an id (workloads/sweeps/<id>.yaml); SPEC, OUT and socsim (default: this
# repository's build/socsim) become absolute paths and every shard starts in this folder (--wd),
# so it runs from any folder and, over ssh, on hosts that mount the same folders at the same paths.
# N defaults to the number of hosts given with -S/--sshlogin (1 without). Each host runs one shard
# at a time (-j 1; pass -j to change) and each shard simulates as many runs at once as its host has
# cores. Shards write OUT/shards/<i>/ with --resume (a shard run again continues where it stopped);
# the merge then runs however they ended and refuses when a shard did not finish, naming the shards
# to run again. Exit status: the merge's (0: merged; 2: runs missing or bad arguments; 3: some runs
# failed). Arguments after -- go to GNU parallel (e.g. -S host1,host2 --sshdelay 0.1).
set -euo pipefail

prog=sweep-parallel.sh
usage() { sed -n '5,6p' "$0" | sed 's/^#   /usage: /' >&2; echo "($prog --help for more)" >&2; exit 2; }
die() { echo "$prog: $*" >&2; exit 2; }

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
self="$script_dir/$(basename "${BASH_SOURCE[0]}")"

# resolve_socsim_and_spec, merge_shards SOCSIM OUT N RERUN_PREFIX RERUN_SUFFIX
# shellcheck source=sweep-shards-lib.sh
source "$script_dir/sweep-shards-lib.sh"

# --- arguments ---
socsim="" shards="" pos=() parallel_extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    --socsim) [ $# -ge 2 ] || die "--socsim needs a path"; socsim=$2; shift 2 ;;
    --socsim=*) socsim=${1#*=}; shift ;;
    --shard) [ $# -ge 2 ] || die "--shard needs I or I,J,..."; shards=$2; shift 2 ;;
    --shard=*) shards=${1#*=}; shift ;;
    --) shift; parallel_extra=("$@"); break ;;
    -*) echo "$prog: unknown option '$1'" >&2; usage ;;
    *) pos+=("$1"); shift ;;
  esac
done
[ ${#pos[@]} -ge 2 ] && [ ${#pos[@]} -le 3 ] || usage
spec_arg=${pos[0]} out_arg=${pos[1]} n=${pos[2]:-}
[ -n "$spec_arg" ] && [ -n "$out_arg" ] || usage
[[ -z "$n" || "$n" =~ ^[1-9][0-9]*$ ]] || die "N must be a positive number of shards, got '$n'"
shard_list=()
if [ -n "$shards" ]; then
  [ -n "$n" ] || die "--shard needs N, the number of shards of the first run"
  [[ "$shards" =~ ^[0-9]+(,[0-9]+)*$ ]] || die "--shard takes I or I,J,... (shard numbers), got '$shards'"
  IFS=, read -r -a shard_list <<<"$shards"
  for i in "${shard_list[@]}"; do
    [ "$((10#$i))" -lt "$n" ] || die "--shard $i: shards are numbered 0 to $((n - 1))"
  done
fi

parallel --version 2>/dev/null | grep -q 'GNU parallel' ||
  die "GNU parallel not found (Debian: apt-get install parallel; moreutils' parallel is another program)"

resolve_socsim_and_spec "run"  # sets socsim, spec (absolute) and runs

if [ -z "$n" ]; then  # one shard per host named with -S/--sshlogin (':' is this machine)
  n=0
  for ((k = 0; k < ${#parallel_extra[@]}; k++)); do
    case "${parallel_extra[k]}" in
      -S|--sshlogin) hosts=${parallel_extra[k + 1]:-} ;;
      --sshlogin=*) hosts=${parallel_extra[k]#*=} ;;
      -S?*) hosts=${parallel_extra[k]#-S} ;;
      *) continue ;;
    esac
    IFS=, read -r -a host_list <<<"$hosts"
    n=$((n + ${#host_list[@]}))
  done
  [ "$n" -ge 1 ] || n=1
fi
[ "$n" -le "$runs" ] || echo "$prog: note: $n shards for $runs runs: some shards have no run" >&2

mkdir -p "$out_arg/shards" || die "cannot create '$out_arg'"
out="$(cd "$out_arg" && pwd -P)"

q() { printf '%q' "$1"; }
rerun_prefix="$(q "$self")"
[ "$socsim" = "$(cd "$script_dir/.." 2>/dev/null && pwd -P)/build/socsim" ] || rerun_prefix+=" --socsim $(q "$socsim")"
rerun_prefix+=" --shard"
rerun_suffix=" $(q "$spec") $(q "$out") $n"
[ ${#parallel_extra[@]} -eq 0 ] || rerun_suffix+=" --$(printf ' %q' "${parallel_extra[@]}")"

[ ${#shard_list[@]} -gt 0 ] || mapfile -t shard_list < <(seq 0 $((n - 1)))
echo "sweep $spec: $runs runs in $n shards, running shard(s) $(IFS=,; echo "${shard_list[*]}"), into $out"
# -q: the command's words reach the shell (local or remote) quoted, so paths may hold spaces.
shards_rc=0
parallel -q -j 1 --wd "$PWD" --tagstring "shard {}/$n" --joblog "$out/parallel-joblog.txt" \
  "${parallel_extra[@]}" \
  "$socsim" sweep --spec "$spec" --shard "{}/$n" --resume --out "$out/shards/{}" \
  ::: "${shard_list[@]}" || shards_rc=$?
[ "$shards_rc" -eq 0 ] || echo "$prog: GNU parallel exited with status $shards_rc (the number of shards that failed; see $out/parallel-joblog.txt); merging what finished" >&2

rc=0
merge_shards "$socsim" "$out" "$n" "$rerun_prefix" "$rerun_suffix" || rc=$?
exit "$rc"

#!/usr/bin/env bash
# Runs a socsim sweep on a Slurm cluster: a job array of N shards, then a merge job that waits for
# every shard (afterany) and joins them into OUT (results.csv, results.json, report.html).
#
#   scripts/sweep-slurm.sh SPEC OUT [N] [--wait] [--socsim PATH] [--cpus C] [-- SBATCH_ARGS...]
#   scripts/sweep-slurm.sh --shard I[,J...] SPEC OUT N [...]    resubmit shards (and merge again)
#
# SPEC is a spec file or an id (workloads/sweeps/<id>.yaml); SPEC, OUT and socsim (default: this
# repository's build/socsim) become absolute paths, so it runs from any folder; OUT must be on a
# folder every node sees. N (default: the number of nodes) shards run as array tasks, each with
# --cpus-per-task and `socsim sweep --jobs` set to the fewest CPUs of a node (sinfo; nproc without
# it; --cpus C sets it) and writing OUT/shards/<i>/ with --resume (a requeued or resubmitted task
# continues where it stopped). The merge job runs however the shards ended; when a shard did not
# finish it refuses, naming the shards to resubmit. Logs and job scripts: OUT/slurm/.
# --wait blocks until the merge job ends and exits with its status (0: merged; 2: runs missing;
# 3: some runs failed). Arguments after -- go to both sbatch calls (e.g. -p PART -t 2:00:00).
# Exit 2 on bad arguments or when sbatch is missing.
set -euo pipefail

prog=sweep-slurm.sh
usage() { sed -n '5,6p' "$0" | sed 's/^#   /usage: /' >&2; echo "($prog --help for more)" >&2; exit 2; }
die() { echo "$prog: $*" >&2; exit 2; }

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
self="$script_dir/$(basename "${BASH_SOURCE[0]}")"

# resolve_socsim_and_spec, merge_shards SOCSIM OUT N RERUN_PREFIX RERUN_SUFFIX (the merge job script carries it: declare -f)
# shellcheck source=sweep-shards-lib.sh
source "$script_dir/sweep-shards-lib.sh"

# --- arguments ---
wait_merge=0 socsim="" cpus="" shards="" pos=() sbatch_extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    --wait) wait_merge=1; shift ;;
    --socsim) [ $# -ge 2 ] || die "--socsim needs a path"; socsim=$2; shift 2 ;;
    --socsim=*) socsim=${1#*=}; shift ;;
    --cpus) [ $# -ge 2 ] || die "--cpus needs a number"; cpus=$2; shift 2 ;;
    --cpus=*) cpus=${1#*=}; shift ;;
    --shard) [ $# -ge 2 ] || die "--shard needs I or I,J,..."; shards=$2; shift 2 ;;
    --shard=*) shards=${1#*=}; shift ;;
    --) shift; sbatch_extra=("$@"); break ;;
    -*) echo "$prog: unknown option '$1'" >&2; usage ;;
    *) pos+=("$1"); shift ;;
  esac
done
[ ${#pos[@]} -ge 2 ] && [ ${#pos[@]} -le 3 ] || usage
spec_arg=${pos[0]} out_arg=${pos[1]} n=${pos[2]:-}
[ -n "$spec_arg" ] && [ -n "$out_arg" ] || usage
[[ -z "$n" || "$n" =~ ^[1-9][0-9]*$ ]] || die "N must be a positive number of shards, got '$n'"
[[ -z "$cpus" || "$cpus" =~ ^[1-9][0-9]*$ ]] || die "--cpus must be a positive number, got '$cpus'"
if [ -n "$shards" ]; then
  [ -n "$n" ] || die "--shard needs N, the number of shards of the first submission"
  [[ "$shards" =~ ^[0-9]+(,[0-9]+)*$ ]] || die "--shard takes I or I,J,... (shard numbers), got '$shards'"
  IFS=, read -r -a shard_list <<<"$shards"
  for i in "${shard_list[@]}"; do
    [ "$((10#$i))" -lt "$n" ] || die "--shard $i: shards are numbered 0 to $((n - 1))"
  done
fi

command -v sbatch >/dev/null 2>&1 ||
  die "sbatch not found: run this on a Slurm submit host (or install Slurm's client commands)"

resolve_socsim_and_spec "submitted"  # sets socsim, spec (absolute) and runs

# The partition, if the extra sbatch arguments name one, for sinfo.
partition=${SBATCH_PARTITION:-}
for ((k = 0; k < ${#sbatch_extra[@]}; k++)); do
  case "${sbatch_extra[k]}" in
    -p|--partition) partition=${sbatch_extra[k + 1]:-} ;;
    --partition=*) partition=${sbatch_extra[k]#*=} ;;
    -p?*) partition=${sbatch_extra[k]#-p} ;;
  esac
done
sinfo_args=(-h -N)
[ -z "$partition" ] || sinfo_args+=(-p "$partition")

if [ -z "$cpus" ]; then
  cpus=$(sinfo "${sinfo_args[@]}" -o %c 2>/dev/null | tr -cd '0-9\n' | grep . | sort -n | head -1 || true)
  if [ -z "$cpus" ]; then
    cpus=$(nproc)
    echo "$prog: sinfo gave no CPU count; using this host's ($cpus)" >&2
  fi
fi
if [ -z "$n" ]; then
  n=$(sinfo "${sinfo_args[@]}" -o %N 2>/dev/null | sort -u | grep -c . || true)
  [ "${n:-0}" -ge 1 ] || n=1
fi
[ "$n" -le "$runs" ] || echo "$prog: note: $n shards for $runs runs: some shards have no run" >&2

mkdir -p "$out_arg/shards" "$out_arg/slurm" || die "cannot create '$out_arg'"
out="$(cd "$out_arg" && pwd -P)"

# The command that resubmits shards, as printed for the user and by the merge job.
q() { printf '%q' "$1"; }
rerun_prefix="$(q "$self")"
[ "$socsim" = "$(cd "$script_dir/.." 2>/dev/null && pwd -P)/build/socsim" ] || rerun_prefix+=" --socsim $(q "$socsim")"
rerun_prefix+=" --shard"
rerun_suffix=" $(q "$spec") $(q "$out") $n"
[ ${#sbatch_extra[@]} -eq 0 ] || rerun_suffix+=" --$(printf ' %q' "${sbatch_extra[@]}")"

# Job scripts (kept in OUT/slurm/ for the record; sbatch copies them when submitting).
shard_script="$out/slurm/shard.sbatch"
cat >"$shard_script" <<EOF
#!/bin/bash
# One shard of a socsim sweep, written by $prog: run as an array task, task id = shard number.
socsim=$(q "$socsim") spec=$(q "$spec") out=$(q "$out") n=$n
i=\${SLURM_ARRAY_TASK_ID:?run this as a Slurm array task}
jobs=\${SLURM_CPUS_PER_TASK:-$cpus}
echo "shard \$i/\$n on \$(hostname), \$jobs CPUs"
exec "\$socsim" sweep --spec "\$spec" --jobs "\$jobs" --shard "\$i/\$n" --resume --out "\$out/shards/\$i"
EOF
merge_script="$out/slurm/merge.sbatch"
{
  echo "#!/bin/bash"
  echo "# Merges the shards of a socsim sweep, written by $prog."
  declare -f merge_shards
  echo "merge_shards $(q "$socsim") $(q "$out") $n $(q "$rerun_prefix") $(q "$rerun_suffix")"
} >"$merge_script"

common=(--parsable --chdir="$PWD")
if [ -n "$shards" ]; then array=$shards; else array="0-$((n - 1))"; fi
array_id=$(sbatch "${common[@]}" --job-name=socsim-sweep --array="$array" --cpus-per-task="$cpus" \
  --output="$out/slurm/shard-%A_%a.out" "${sbatch_extra[@]}" "$shard_script") ||
  die "sbatch refused the shard array; nothing submitted"
array_id=${array_id%%;*}
merge_id=$(sbatch "${common[@]}" --job-name=socsim-merge --cpus-per-task=1 \
  --dependency="afterany:$array_id" --output="$out/slurm/merge-%j.out" "${sbatch_extra[@]}" "$merge_script") ||
  { echo "$prog: sbatch refused the merge job (the shards, job $array_id, are queued)" >&2; exit 1; }
merge_id=${merge_id%%;*}

echo "sweep $spec: $runs runs in $n shards, $cpus CPUs each, into $out"
echo "  shards $array of $n: job array $array_id (logs $out/slurm/shard-${array_id}_<i>.out)"
echo "  merge: job $merge_id, after every shard ends (log $out/slurm/merge-$merge_id.out)"
echo "  if a shard fails, resubmit it (and merge again): $rerun_prefix I$rerun_suffix"

[ "$wait_merge" -eq 1 ] || exit 0

# --wait: poll the merge job until it ends; its exit code is ours.
poll=${SWEEP_SLURM_POLL_SECONDS:-3}
last="" misses=0
while :; do
  info=$(scontrol show job -o "$merge_id" 2>/dev/null || true)
  if [ -z "$info" ]; then  # slurmctld busy or restarting, or the job long purged
    misses=$((misses + 1))
    if [ "$misses" -ge 10 ]; then
      echo "$prog: Slurm no longer answers about job $merge_id (see $out/slurm/merge-$merge_id.out)" >&2
      exit 1
    fi
    sleep "$poll"
    continue
  fi
  misses=0
  state=$(grep -o 'JobState=[A-Z_]*' <<<"$info" | cut -d= -f2)
  reason=$(grep -o 'Reason=[^ ]*' <<<"$info" | cut -d= -f2)
  if [ "$state $reason" != "$last" ]; then
    echo "  merge job $merge_id: $state ($reason)"
    last="$state $reason"
  fi
  case "$state" in
    PENDING|RUNNING|CONFIGURING|COMPLETING|REQUEUED|RESIZING|SUSPENDED|"") sleep "$poll" ;;
    *) break ;;
  esac
done
code=$(grep -o 'ExitCode=[0-9]*:[0-9]*' <<<"$info" | cut -d= -f2)
status=${code%%:*} signal=${code##*:}
[ "${signal:-0}" -eq 0 ] || status=$((128 + signal))
[ -f "$out/slurm/merge-$merge_id.out" ] && sed 's/^/  | /' "$out/slurm/merge-$merge_id.out"
if [ "$state" != COMPLETED ] && [ "${status:-0}" -eq 0 ]; then status=1; fi
echo "merge job $merge_id: $state, exit status ${status:-?}"
exit "${status:-1}"

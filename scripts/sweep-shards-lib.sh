# What scripts/sweep-slurm.sh and scripts/sweep-parallel.sh share (sourced by both): resolving
# socsim and the spec, and the merge step (the Slurm merge job carries it with `declare -f`).
# shellcheck shell=bash

# Makes $socsim (default: this repository's build/socsim) and $spec_arg absolute into $socsim and
# $spec, checks the spec loads (socsim's errors, then exit 2 through die) and sets $runs. Uses the
# caller's script_dir and die; $1 is the verb for the refusal ("submitted", "run").
# shellcheck disable=SC2154  # socsim, spec_arg, script_dir: the caller's
resolve_socsim_and_spec() {
  local dry
  [ -n "$socsim" ] || socsim="$script_dir/../build/socsim"
  [ -f "$socsim" ] && [ -x "$socsim" ] ||
    die "socsim binary '$socsim' not found or not executable (build it: cmake --build build; or pass --socsim PATH)"
  socsim="$(cd "$(dirname "$socsim")" && pwd -P)/$(basename "$socsim")"
  # SPEC: a file, or an id looked up as socsim does (./workloads/sweeps, then this repository's).
  if [ -f "$spec_arg" ]; then
    spec="$(cd "$(dirname "$spec_arg")" && pwd -P)/$(basename "$spec_arg")"
  elif [[ "$spec_arg" == */* || "$spec_arg" == *.yaml ]]; then
    die "spec file '$spec_arg' not found"
  elif [ -f "workloads/sweeps/$spec_arg.yaml" ]; then
    spec="$PWD/workloads/sweeps/$spec_arg.yaml"
  elif [ -f "$script_dir/../workloads/sweeps/$spec_arg.yaml" ]; then
    spec="$(cd "$script_dir/.." && pwd -P)/workloads/sweeps/$spec_arg.yaml"
  else
    spec=$spec_arg  # socsim's --dry-run below names the known ids
  fi
  # The spec must be valid here before anything is queued (its errors exit 2 too).
  if ! dry=$("$socsim" sweep --spec "$spec" --dry-run 2>&1); then
    echo "$dry" >&2
    die "the spec does not load; nothing $1"
  fi
  runs=$(grep -c '^[0-9]' <<<"$dry" || true)
}

# Merges OUT/shards/0..N-1 into OUT. A shard without results.json (failed, cancelled, never ran)
# is left out so that `socsim sweep merge` names the runs and shards missing; the command to
# run them again is printed. Returns the merge's status, 3 when the merged runs hold failed ones.
merge_shards() {  # SOCSIM OUT N RERUN_PREFIX RERUN_SUFFIX: the rerun command is PREFIX LIST SUFFIX
  local socsim=$1 out=$2 n=$3 prefix=$4 suffix=$5 i rc list
  local present=() missing=() failed=()
  for ((i = 0; i < n; i++)); do
    if [ -f "$out/shards/$i/results.json" ]; then
      present+=("$out/shards/$i")
      if grep -Eq '"failed_runs": *[1-9]' "$out/shards/$i/results.json"; then failed+=("$i"); fi
    else
      missing+=("$i")
    fi
  done
  if [ ${#present[@]} -eq 0 ]; then
    echo "error: merge: no shard of $n finished (no $out/shards/<i>/results.json)" >&2
    rc=2
  else
    rc=0
    "$socsim" sweep merge --out "$out" "${present[@]}" || rc=$?
  fi
  if [ "$rc" -ne 0 ] && [ ${#missing[@]} -gt 0 ]; then
    list=$(IFS=,; echo "${missing[*]}")
    echo "merge refused: shard(s) $list of $n did not finish (no results.json in $out/shards/<i>/)." >&2
    echo "run them again (then it merges again): $prefix $list$suffix" >&2
  elif { [ "$rc" -eq 0 ] || [ "$rc" -eq 3 ]; } && [ ${#failed[@]} -gt 0 ]; then
    list=$(IFS=,; echo "${failed[*]}")
    echo "merged, but some runs failed (error column of $out/results.csv), in shard(s) $list;" \
      "if the cause was transient, retry them: $prefix $list$suffix" >&2
    rc=3
  fi
  return "$rc"
}

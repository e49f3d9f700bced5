# The merge step of scripts/sweep-slurm.sh and scripts/sweep-parallel.sh (sourced by both; the
# Slurm merge job carries it with `declare -f`).
# shellcheck shell=bash
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

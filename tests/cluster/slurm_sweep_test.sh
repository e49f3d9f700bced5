#!/usr/bin/env bash
# The Slurm recipe (scripts/sweep-slurm.sh) on a real single-node Slurm: starts munged, slurmctld
# and slurmd on localhost with every file under a temporary folder, submits the recipe from another
# folder with relative paths, waits, and compares the merged results with a one-machine sweep of
# the same spec byte for byte. Then a shard that fails: the merge (afterany) must run and refuse,
# naming the shard; the shard is resubmitted and the merge must then match again. The daemons are
# stopped by their PIDs at the end, however the test ends.
#
#   tests/cluster/slurm_sweep_test.sh [SOCSIM]     (default: build/socsim; ctest -L cluster)
#
# Skipped (exit 77) without slurm-wlm and munge (scripts/install-deps.sh --test) or without root
# (slurmd runs jobs as their user).
set -euo pipefail
PATH=$PATH:/usr/sbin:/sbin
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
repo=$(cd "$here/../.." && pwd -P)
socsim=${1:-$repo/build/socsim}
start=$SECONDS
log() { printf '[%3ds] %s\n' $((SECONDS - start)) "$*"; }
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }

[ -x "$socsim" ] || fail "socsim binary '$socsim' not found"
socsim="$(cd "$(dirname "$socsim")" && pwd -P)/$(basename "$socsim")"
for tool in munged munge unmunge slurmctld slurmd sbatch sinfo scontrol squeue scancel; do
  command -v "$tool" >/dev/null 2>&1 || skip "$tool not found (install slurm-wlm and munge: scripts/install-deps.sh --test)"
done
[ "$(id -u)" -eq 0 ] || skip "needs root to start slurmd"

# Slurm's environment of an enclosing job must not leak into ours.
for v in $(compgen -e | grep -E '^(SLURM|SBATCH|SQUEUE|SINFO|SCONTROL)_' || true); do unset "$v"; done

T=$(mktemp -d /tmp/socsim-slurm-test.XXXXXX)  # short: the munge socket path must fit sun_path
T=$(cd "$T" && pwd -P)
chmod 700 "$T"
pids=() child=""
cleanup() {
  local rc=$? p k
  trap - EXIT
  [ -z "$child" ] || kill -TERM "$child" 2>/dev/null || true  # a recipe still waiting
  if [ -n "${SLURM_CONF:-}" ] && [ ${#pids[@]} -ge 2 ]; then  # jobs of this test's cluster only
    squeue -h -o %A 2>/dev/null | xargs -r scancel 2>/dev/null || true
    # scancel is asynchronous: let the steps end before slurmd goes (10 s at most), so nothing
    # keeps writing into $T while it is removed.
    for _ in $(seq 50); do [ -z "$(squeue -h -o %A 2>/dev/null)" ] && break; sleep 0.2; done
  fi
  for ((k = ${#pids[@]} - 1; k >= 0; k--)); do  # slurmd, slurmctld, then munged
    p=${pids[k]}
    kill -TERM "$p" 2>/dev/null || continue
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ]; then
    for f in "$T"/log/*; do [ -f "$f" ] && { echo "--- $f (last lines)"; tail -n 25 "$f"; }; done
  fi
  rm -rf "$T"
  log "daemons stopped, $T removed (exit $rc)"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Waits up to $1 seconds for the command after it to succeed.
wait_for() {
  local limit=$1 t0=$SECONDS; shift
  until "$@" >/dev/null 2>&1; do
    [ $((SECONDS - t0)) -lt "$limit" ] || return 1
    sleep 0.5
  done
}
# Runs the recipe (scripts/sweep-slurm.sh ARGS) in DIR, its output in $T/log/NAME.out and shown
# indented; sets rc. In the background so that a signal stops the test at once; time-limited so
# that the whole test ends within 270 s (ctest's limit is 300).
recipe() {  # NAME DIR ARGS...
  local name=$1 dir=$2 limit=$((270 - (SECONDS - start)))
  shift 2
  [ "$limit" -le 90 ] || limit=90
  [ "$limit" -ge 5 ] || fail "out of time before $name"
  rc=0
  (cd "$dir" && exec timeout "$limit" "$repo/scripts/sweep-slurm.sh" "$@") >"$T/log/$name.out" 2>&1 &
  child=$!
  wait "$child" || rc=$?
  child=""
  sed 's/^/    /' "$T/log/$name.out"
  [ "$rc" -ne 124 ] || fail "$name: no result within $limit s"
}
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# The results of a merged sweep must be the one-machine sweep's: results.csv byte for byte;
# results.json and report.html too, except the line naming the shard ("0/1" vs "merged").
same_results() {  # REF OUT
  cmp "$1/results.csv" "$2/results.csv" || fail "$2/results.csv differs from the one-machine sweep's"
  diff <(grep -v '^  "shard": ' "$1/results.json") <(grep -v '^  "shard": ' "$2/results.json") ||
    fail "$2/results.json differs from the one-machine sweep's (beyond its shard field)"
  diff <(sed 's/(shard [^)]*)//' "$1/report.html") <(sed 's/(shard [^)]*)//' "$2/report.html") ||
    fail "$2/report.html differs from the one-machine sweep's (beyond naming the shard)"
}

mkdir -p "$T/work" "$T/log" "$T/munge" "$T/state" "$T/spool"
cp "$here/tiny-sweep.yaml" "$T/work/"
spec="$T/work/tiny-sweep.yaml"
script="$repo/scripts/sweep-slurm.sh"
socsim_arg=()
[ "$socsim" = "$repo/build/socsim" ] || socsim_arg=(--socsim "$socsim")  # else the script's default

log "bad arguments are refused with exit 2"
expect_2() {
  local rc=0
  (cd "$T/work" && "$@") >"$T/log/bad-args.out" 2>&1 || rc=$?
  [ "$rc" -eq 2 ] || { cat "$T/log/bad-args.out"; fail "expected exit 2 from: $*, got $rc"; }
}
expect_2 "$script"
expect_2 "$script" tiny-sweep.yaml out 0
expect_2 "$script" no-such-spec.yaml out 2
expect_2 "$script" --shard 3 tiny-sweep.yaml out 3
expect_2 "$script" tiny-sweep.yaml out 2 --socsim "$T/no-such-socsim"
mkdir -p "$T/bin-without-sbatch"  # what the script runs before it looks for sbatch
for tool in dirname basename; do ln -s "$(command -v "$tool")" "$T/bin-without-sbatch/"; done
expect_2 env PATH="$T/bin-without-sbatch" "$BASH" "$script" tiny-sweep.yaml out 2
grep -q 'sbatch not found' "$T/log/bad-args.out" || fail "no 'sbatch not found' message"

log "one-machine sweep (the reference)"
(cd "$T/work" && "$socsim" sweep --spec "$spec" --out "$T/ref") >"$T/log/ref.out" 2>&1 ||
  fail "the reference sweep failed: $(tail -n 1 "$T/log/ref.out")"

log "starting munged"
dd if=/dev/urandom of="$T/munge/munge.key" bs=1024 count=1 status=none
chmod 700 "$T/munge"
chmod 400 "$T/munge/munge.key"
sock="$T/munge/munge.sock"
munged -F -f --socket="$sock" --key-file="$T/munge/munge.key" --pid-file="$T/munge/munged.pid" \
  --log-file="$T/log/munged.log" --seed-file="$T/munge/munged.seed" >"$T/log/munged.out" 2>&1 &
pids+=($!)
wait_for 10 bash -c "munge -S '$sock' -n | unmunge -S '$sock'" || fail "munged did not start"

port=0
for _ in $(seq 50); do
  p=$((20000 + RANDOM % 30000))
  if port_free "$p" && port_free $((p + 1)); then port=$p; break; fi
done
[ "$port" -ne 0 ] || fail "no free ports for slurmctld and slurmd"
node=$(hostname -s)
cpus=$(nproc)
export SLURM_CONF="$T/slurm.conf"
cat >"$SLURM_CONF" <<EOF
ClusterName=socsimtest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=$(id -un)
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
MinJobAge=600
MailProg=/bin/true
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=500 State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
export SWEEP_SLURM_POLL_SECONDS=1  # how often --wait asks about the merge job
export MUNGE_SOCKET="$sock"  # for munge's own tools; Slurm takes it from AuthInfo
log "starting slurmctld and slurmd (node $node, $cpus CPUs, ports $port-$((port + 1)))"
slurmctld -D -i -f "$SLURM_CONF" >"$T/log/slurmctld.out" 2>&1 &
pids+=($!)
wait_for 20 scontrol ping || fail "slurmctld did not answer"
slurmd -D -N "$node" -f "$SLURM_CONF" >"$T/log/slurmd.out" 2>&1 &
pids+=($!)
wait_for 30 bash -c '[ "$(sinfo -h -N -o %t)" = idle ]' || { sinfo -N || true; fail "node not idle in 30 s"; }
log "cluster up: $(sinfo -h -N -o '%N %t %c CPUs')"

# 1. The recipe as documented, from another folder with relative paths: shards, merge, compare.
log "submitting the recipe: 3 shards and a merge (--wait)"
recipe recipe "$T/work" "${socsim_arg[@]}" tiny-sweep.yaml out 3 --wait
[ "$rc" -eq 0 ] || fail "sweep-slurm.sh --wait exited with $rc"
same_results "$T/ref" "$T/work/out"
grep -q "shard 0/3 on .*, $cpus CPUs" "$T"/work/out/slurm/shard-*_0.out ||
  fail "the shards did not get the node's $cpus CPUs"
log "merged results match the one-machine sweep"

# 2. A shard that fails: the merge runs anyway (afterany), refuses and names it; resubmit it.
cat >"$T/failing-socsim" <<EOF
#!/bin/bash
# socsim, except that array task 1 fails (leaving its output folder empty, as a crash would).
if [ "\${SLURM_ARRAY_TASK_ID:-}" = 1 ] && [ "\$1 \$2" != "sweep merge" ]; then
  while [ \$# -gt 0 ]; do [ "\$1" = --out ] && mkdir -p "\$2"; shift; done
  echo "failing-socsim: shard 1 fails on purpose" >&2
  exit 1
fi
exec $(printf '%q' "$socsim") "\$@"
EOF
chmod +x "$T/failing-socsim"
log "submitting with shard 1 failing (output folder with a space)"
recipe failing "$T/work" --socsim "$T/failing-socsim" tiny-sweep.yaml "out fail" 3 --wait
[ "$rc" -eq 2 ] || fail "expected the merge to refuse (exit 2), got $rc"
grep -q 'missing shards: run `socsim sweep` with --shard 1/3' "$T/log/failing.out" ||
  fail "the merge did not name shard 1/3 as missing"
grep -q "sweep-slurm.sh .*--shard 1 " "$T/log/failing.out" || fail "no command to resubmit shard 1"
[ ! -e "$T/work/out fail/results.csv" ] || fail "a refused merge wrote results.csv"
log "merge refused as expected; resubmitting shard 1"
recipe resubmit "$T/work" "${socsim_arg[@]}" --shard 1 tiny-sweep.yaml "out fail" 3 --wait
[ "$rc" -eq 0 ] || fail "the resubmitted shard and merge exited with $rc"
same_results "$T/ref" "$T/work/out fail"
log "after the resubmission the merged results match the one-machine sweep"

# 3. Without N: one shard per node (one here); absolute paths, submitted from /.
log "submitting with the defaults (N = the number of nodes)"
recipe default / "${socsim_arg[@]}" "$spec" "$T/work/out default" --wait
[ "$rc" -eq 0 ] || fail "sweep-slurm.sh without N exited with $rc"
grep -q "in 1 shards, $cpus CPUs each" "$T/log/default.out" || fail "expected 1 shard of $cpus CPUs"
same_results "$T/ref" "$T/work/out default"
log "PASS"

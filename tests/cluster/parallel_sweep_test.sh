#!/usr/bin/env bash
# The GNU parallel recipe (scripts/sweep-parallel.sh): run from another folder with relative paths,
# its merged results must equal a one-machine sweep of the same spec byte for byte; a shard that
# fails makes the merge refuse, naming it, and running that shard again completes the sweep. Then
# the same over ssh (-S) to localhost, through an sshd the test starts on a free port with its keys
# and configuration in a temporary folder (skipped, with a message, when sshd cannot be started).
#
#   tests/cluster/parallel_sweep_test.sh [SOCSIM]     (default: build/socsim; ctest -L cluster)
#
# Skipped (exit 77) without GNU parallel (scripts/install-deps.sh --test).
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
parallel --version 2>/dev/null | grep -q 'GNU parallel' ||
  skip "GNU parallel not found (install parallel: scripts/install-deps.sh --test)"

T=$(mktemp -d /tmp/socsim-parallel-test.XXXXXX)
T=$(cd "$T" && pwd -P)
chmod 700 "$T"
sshd_pid="" made_privsep_dir="" child=""
cleanup() {
  local rc=$?
  trap - EXIT
  [ -z "$child" ] || kill -TERM "$child" 2>/dev/null || true  # a recipe still running
  if [ -n "$sshd_pid" ]; then
    kill -TERM "$sshd_pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$sshd_pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$sshd_pid" 2>/dev/null || true
    wait "$sshd_pid" 2>/dev/null || true
  fi
  [ -z "$made_privsep_dir" ] || rmdir "$made_privsep_dir" 2>/dev/null || true
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ] && [ -f "$T/sshd.log" ]; then
    echo "--- sshd log"; tail -n 20 "$T/sshd.log"
  fi
  rm -rf "$T"
  log "cleaned up (exit $rc)"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# As in slurm_sweep_test.sh: results.csv byte for byte; results.json and report.html except the
# line naming the shard ("0/1" for one sweep, "merged" for a merge).
same_results() {  # REF OUT
  cmp "$1/results.csv" "$2/results.csv" || fail "$2/results.csv differs from the one-machine sweep's"
  diff <(grep -v '^  "shard": ' "$1/results.json") <(grep -v '^  "shard": ' "$2/results.json") ||
    fail "$2/results.json differs from the one-machine sweep's (beyond its shard field)"
  diff <(sed 's/(shard [^)]*)//' "$1/report.html") <(sed 's/(shard [^)]*)//' "$2/report.html") ||
    fail "$2/report.html differs from the one-machine sweep's (beyond naming the shard)"
}
# Runs the recipe (scripts/sweep-parallel.sh ARGS) in $T/work, its output in $T/recipe.out and
# shown indented; sets rc. In the background so that a signal stops the test at once; time-limited
# so that the whole test ends within 270 s (ctest's limit is 300).
recipe() {
  local limit=$((270 - (SECONDS - start)))
  [ "$limit" -le 60 ] || limit=60
  [ "$limit" -ge 5 ] || fail "out of time"
  rc=0
  (cd "$T/work" && exec timeout "$limit" "$repo/scripts/sweep-parallel.sh" "$@") >"$T/recipe.out" 2>&1 &
  child=$!
  wait "$child" || rc=$?
  child=""
  sed 's/^/    /' "$T/recipe.out"
  [ "$rc" -ne 124 ] || fail "sweep-parallel.sh $*: no result within $limit s"
}

mkdir -p "$T/work"
cp "$here/tiny-sweep.yaml" "$T/work/"
spec="$T/work/tiny-sweep.yaml"
socsim_arg=()
[ "$socsim" = "$repo/build/socsim" ] || socsim_arg=(--socsim "$socsim")

log "bad arguments are refused with exit 2"
for bad in "" "tiny-sweep.yaml out 0" "no-such-spec.yaml out 2" "--shard 3 tiny-sweep.yaml out 3"; do
  # shellcheck disable=SC2086  # split on purpose
  recipe $bad
  [ "$rc" -eq 2 ] || fail "expected exit 2 from sweep-parallel.sh $bad, got $rc"
done

log "one-machine sweep (the reference)"
(cd "$T/work" && "$socsim" sweep --spec "$spec" --out "$T/ref") >"$T/ref.out" 2>&1 ||
  fail "the reference sweep failed: $(tail -n 1 "$T/ref.out")"

# 1. Locally: 3 shards, merge, compare.
log "GNU parallel, locally: 3 shards and the merge"
recipe "${socsim_arg[@]}" tiny-sweep.yaml out 3
[ "$rc" -eq 0 ] || fail "sweep-parallel.sh exited with $rc"
same_results "$T/ref" "$T/work/out"
log "merged results match the one-machine sweep"

# 2. A shard that fails: the merge refuses naming it; running it again completes the sweep.
cat >"$T/failing-socsim" <<EOF
#!/bin/bash
# socsim, except that shard 1/3 fails (leaving its output folder empty, as a crash would).
for a in "\$@"; do
  if [ "\$a" = 1/3 ]; then
    while [ \$# -gt 0 ]; do [ "\$1" = --out ] && mkdir -p "\$2"; shift; done
    echo "failing-socsim: shard 1 fails on purpose" >&2
    exit 1
  fi
done
exec $(printf '%q' "$socsim") "\$@"
EOF
chmod +x "$T/failing-socsim"
log "GNU parallel with shard 1 failing (output folder with a space)"
recipe --socsim "$T/failing-socsim" tiny-sweep.yaml "out fail" 3
[ "$rc" -eq 2 ] || fail "expected the merge to refuse (exit 2), got $rc"
grep -q 'missing shards: run `socsim sweep` with --shard 1/3' "$T/recipe.out" ||
  fail "the merge did not name shard 1/3 as missing"
grep -q "sweep-parallel.sh .*--shard 1 " "$T/recipe.out" || fail "no command to run shard 1 again"
[ ! -e "$T/work/out fail/results.csv" ] || fail "a refused merge wrote results.csv"
log "merge refused as expected; running shard 1 again"
recipe "${socsim_arg[@]}" --shard 1 tiny-sweep.yaml "out fail" 3
[ "$rc" -eq 0 ] || fail "running shard 1 again exited with $rc"
same_results "$T/ref" "$T/work/out fail"
log "after running shard 1 again the merged results match the one-machine sweep"

# 3. Over ssh to localhost (-S), if an sshd can be started here without a password or a prompt.
ssh_skip() { log "ssh part skipped: $*"; log "PASS (local part)"; exit 0; }
sshd_bin=$(command -v sshd || true)
[ -n "$sshd_bin" ] || ssh_skip "sshd not found (openssh-server)"
command -v ssh >/dev/null && command -v ssh-keygen >/dev/null || ssh_skip "ssh or ssh-keygen not found"
port=0
for _ in $(seq 50); do
  p=$((20000 + RANDOM % 30000))
  if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then port=$p; break; fi
done
[ "$port" -ne 0 ] || ssh_skip "no free port"
ssh-keygen -q -t ed25519 -N '' -f "$T/host_key" && ssh-keygen -q -t ed25519 -N '' -f "$T/id" ||
  ssh_skip "ssh-keygen failed"
cp "$T/id.pub" "$T/authorized_keys"
chmod 600 "$T/authorized_keys"
cat >"$T/sshd_config" <<EOF
Port $port
ListenAddress 127.0.0.1
HostKey $T/host_key
PidFile $T/sshd.pid
AuthorizedKeysFile $T/authorized_keys
AllowUsers $(id -un)
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
EOF
cat >"$T/ssh_config" <<EOF
Host socsim-test-host
  HostName 127.0.0.1
  Port $port
  User $(id -un)
  IdentityFile $T/id
  IdentitiesOnly yes
  BatchMode yes
  StrictHostKeyChecking no
  UserKnownHostsFile $T/known_hosts
  LogLevel ERROR
EOF
if ! "$sshd_bin" -t -f "$T/sshd_config" >"$T/sshd.log" 2>&1; then
  if grep -q 'privilege separation directory' "$T/sshd.log" && [ "$(id -u)" -eq 0 ] && [ ! -e /run/sshd ]; then
    mkdir -m 755 /run/sshd && made_privsep_dir=/run/sshd  # what Debian's ssh service creates; removed after
  fi
  "$sshd_bin" -t -f "$T/sshd_config" >"$T/sshd.log" 2>&1 || ssh_skip "sshd refuses its configuration: $(tail -n 1 "$T/sshd.log")"
fi
log "starting sshd on 127.0.0.1:$port"
"$sshd_bin" -D -e -f "$T/sshd_config" >>"$T/sshd.log" 2>&1 &
sshd_pid=$!
ssh_ok=0
for _ in $(seq 10); do
  if timeout 5 ssh -F "$T/ssh_config" socsim-test-host true 2>/dev/null; then ssh_ok=1; break; fi
  kill -0 "$sshd_pid" 2>/dev/null || break
  sleep 0.5
done
[ "$ssh_ok" -eq 1 ] || ssh_skip "cannot log in over ssh to localhost: $(tail -n 1 "$T/sshd.log")"

log "GNU parallel over ssh (-S socsim-test-host): 3 shards and the merge"
recipe "${socsim_arg[@]}" tiny-sweep.yaml "out ssh" 3 -- --ssh "ssh -F $T/ssh_config" -S socsim-test-host
[ "$rc" -eq 0 ] || fail "sweep-parallel.sh over ssh exited with $rc"
[ "$(awk -F'\t' 'NR > 1 && $2 == "socsim-test-host"' "$T/work/out ssh/parallel-joblog.txt" | wc -l)" -eq 3 ] ||
  fail "the shards did not all run over ssh (joblog: $(cat "$T/work/out ssh/parallel-joblog.txt"))"
same_results "$T/ref" "$T/work/out ssh"
log "merged results over ssh match the one-machine sweep"
log "PASS"

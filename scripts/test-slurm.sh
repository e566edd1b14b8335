#!/usr/bin/env bash
# The sweep on a real Slurm: starts munge, slurmctld and slurmd on this
# machine (a one-node cluster in a temporary folder), submits
# configs/sweeps/mesh4x4-routers.toml as a job array of 4 shards with
# scripts/slurm-sweep.sh, waits for the merge job, and compares its
# sweep.csv and sweep.jsonl byte for byte with one unsharded run on this
# machine; then two papers' experiments as arrays, a cancelled sweep task
# (stopped cleanly) and a cancelled experiment task (resumed). Stops the
# daemons it started, whatever happens.
#
#   scripts/test-slurm.sh [WORMCAST]
#
# Needs root (the daemons run as root, munged as munge) and Debian's
# slurm-wlm and munge (.ci/run installs them). Exit status 0 when the
# merged results equal the single-machine run; 1 otherwise, or when Slurm
# cannot be started (the reason is printed).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
wormcast="$(realpath "${1:-$root/target/release/wormcast}")"
sweep="$root/configs/sweeps/mesh4x4-routers.toml"
for t in munged slurmctld slurmd sbatch squeue sinfo; do
    command -v "$t" >/dev/null 2>&1 || { echo "FAIL: $t is not installed (apt-get install slurm-wlm munge)"; exit 1; }
done
[ -x "$wormcast" ] || { echo "FAIL: no wormcast at $wormcast (cargo build --release)"; exit 1; }
[ "$(id -u)" = 0 ] || { echo "FAIL: the test starts Slurm's daemons and needs root"; exit 1; }

work="$(mktemp -d "${TMPDIR:-/tmp}/wormcast-slurm.XXXXXX")"
chmod 755 "$work"
mkdir -p "$work/state" "$work/spool" "$work/log" "$work/munge"
chown munge:munge "$work/munge"
host="$(hostname -s)"
export SLURM_CONF="$work/slurm.conf"
cat >"$SLURM_CONF" <<EOF
ClusterName=wormcast-test
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge/munge.socket.2
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
SlurmctldPort=16817
SlurmdPort=16818
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

started=()
stop() {
    for p in "${started[@]}"; do
        [ -f "$p" ] && kill "$(cat "$p")" 2>/dev/null || true
    done
    sleep 1
    rm -rf "$work"
}
trap stop EXIT
fail() {
    echo "FAIL: $1"
    for f in "$work"/log/*.log "$work"/munge/munged.log; do
        [ -f "$f" ] && { echo "--- $f"; tail -n 20 "$f"; }
    done
    exit 1
}
# Waits up to 300 s for the queue to empty; else fails, naming $1.
drain() {
    for _ in $(seq 300); do
        [ -z "$(squeue -h 2>/dev/null)" ] && return
        sleep 1
    done
    fail "$1 did not finish within 300 s: $(squeue -h)"
}

# munge: its own socket, key and logs under $work, run as the munge user.
munge_key=/etc/munge/munge.key
[ -r "$munge_key" ] || fail "no munge key at $munge_key (the munge package creates it)"
runuser -u munge -- munged --socket="$work/munge/munge.socket.2" \
    --pid-file="$work/munge/munged.pid" --log-file="$work/munge/munged.log" \
    --seed-file="$work/munge/munged.seed" --key-file="$munge_key" \
    || fail "munged did not start"
started+=("$work/munge/munged.pid")
munge --socket="$work/munge/munge.socket.2" -n | unmunge --socket="$work/munge/munge.socket.2" >/dev/null \
    || fail "munge does not encode and decode a credential"

slurmctld || fail "slurmctld did not start"
started+=("$work/slurmctld.pid")
slurmd || fail "slurmd did not start"
started+=("$work/slurmd.pid")
for _ in $(seq 60); do
    state="$(sinfo -h -o %T 2>/dev/null || true)"
    [ "$state" = idle ] && break
    sleep 1
done
[ "$state" = idle ] || fail "the node did not come up idle (sinfo says '$state')"
echo "Slurm: $(sinfo -h -o '%P %D node(s) %T') ($(slurmctld -V))"

# The single-machine run.
"$wormcast" sweep run "$sweep" --out "$work/one" --quiet >/dev/null
# The job array and its merge.
ids="$("$here/slurm-sweep.sh" "$sweep" "$work/slurm" 4 "$wormcast")"
echo "$ids"
merge="$(awk '/^merge /{print $2}' <<<"$ids")"
drain "the jobs"
shards=("$work"/slurm/journal.shard-*-of-4.jsonl)
[ "${#shards[@]}" = 4 ] || fail "expected 4 shard journals, found ${#shards[@]}: ${shards[*]}"
[ -f "$work/slurm/sweep.csv" ] || fail "the merge job $merge wrote no sweep.csv: $(cat "$work"/slurm/wormcast-merge-*.out 2>/dev/null)"
for f in sweep.csv sweep.jsonl; do
    cmp "$work/one/$f" "$work/slurm/$f" || fail "$f of the job array differs from the single-machine run"
done
jobs=$(($(wc -l <"$work/one/sweep.csv") - 1))
echo "ok   Slurm job array of 4 shards, merged: sweep.csv and sweep.jsonl ($jobs jobs) equal to the single-machine run, byte for byte"

# A stepped array (tasks 1, 3, 5, 7) runs the same 4 shards; an array that
# is not evenly spaced (tasks 1, 2, 5) is refused by every task.
array=$(sbatch --parsable --array=1-7:2 --chdir="$work" --output="$work/stepped-%a.out" \
    "$here/sweep.sbatch" "$sweep" "$work/stepped" "$wormcast")
uneven=$(sbatch --parsable --array=1,2,5 --chdir="$work" --output="$work/uneven-%a.out" \
    "$here/sweep.sbatch" "$sweep" "$work/uneven" "$wormcast")
drain "the arrays ${array%%;*} and ${uneven%%;*}"
"$wormcast" sweep merge --out "$work/stepped" "$work"/stepped/journal.shard-{0,1,2,3}-of-4.jsonl >/dev/null \
    || fail "the stepped array's journals do not merge: $(cat "$work"/stepped-*.out)"
for f in sweep.csv sweep.jsonl; do
    cmp "$work/one/$f" "$work/stepped/$f" || fail "$f of the stepped array differs from the single-machine run"
done
for t in 1 2 5; do
    grep -q "evenly spaced" "$work/uneven-$t.out" \
        || fail "task $t of --array=1,2,5 was not refused: $(cat "$work/uneven-$t.out")"
done
[ -z "$(ls "$work"/uneven/journal.* 2>/dev/null)" ] || fail "the uneven array wrote journals: $(ls "$work"/uneven)"
echo "ok   Slurm job array --array=1-7:2 runs shards 0 to 3 (merged, equal byte for byte); --array=1,2,5 is refused by each task"

# A paper's experiment as a job array (docs/reproduction.md's sbatch line):
# each task takes its shard with --slurm; merged, the files of one run.
"$wormcast" experiment run --figure fig22 --quick --out "$work/exp-one" --quiet >/dev/null
exp=$(sbatch --parsable --array=0-2 --chdir="$work" --output="$work/exp-%a.out" \
    --wrap "'$wormcast' experiment run --figure fig22 --quick --slurm --out '$work/exp-parts' --quiet")
drain "the experiment's array ${exp%%;*}"
"$wormcast" experiment merge --out "$work/exp-merged" "$work"/exp-parts/fig22.raw.shard-{0,1,2}-of-3.csv >/dev/null \
    || fail "the experiment's shards do not merge: $(cat "$work"/exp-*.out)"
for f in fig22.raw.csv fig22.csv fig22.svg; do
    cmp "$work/exp-one/$f" "$work/exp-merged/$f" || fail "$f of the experiment's array differs from the single-machine run"
done
echo "ok   Slurm job array of a paper's experiment (fig22, --slurm, 3 tasks), merged: equal to the single-machine run, byte for byte"

# Seed 002's sweep the same way: `mesh3d experiment --slurm` writes each
# task's points; `mesh3d merge` writes the files of one run.
"$wormcast" mesh3d experiment --quick --out "$work/mesh-one" >/dev/null
mesh=$(sbatch --parsable --array=0-3 --chdir="$work" --output="$work/mesh-%a.out" \
    --wrap "'$wormcast' mesh3d experiment --quick --slurm --out '$work/mesh-parts'")
drain "the mesh sweep's array ${mesh%%;*}"
"$wormcast" mesh3d merge --out "$work/mesh-merged" "$work"/mesh-parts/mesh_load.shard-{0,1,2,3}-of-4.points >/dev/null \
    || fail "the mesh sweep's shards do not merge: $(cat "$work"/mesh-*.out)"
for f in mesh_load.csv mesh_dests.csv mesh_load.svg mesh_dests.svg; do
    cmp "$work/mesh-one/$f" "$work/mesh-merged/$f" || fail "$f of the mesh sweep's array differs from the single-machine run"
done
echo "ok   Slurm job array of seed 002's sweep (mesh3d experiment --slurm, 4 tasks), merged: equal to the single-machine run, byte for byte"

# A task's memory (sbatch --mem, in megabytes) is its sweep's budget: a
# job asking for 1 MB has its sweep's first job (a 64x64 mesh, reckoned at
# 24 MB) refused by that figure, named, before any runs.
cat >"$work/mesh64.toml" <<EOF
[network]
topology = "mesh:64x64"
[stats]
cycles = 100
warmup = 0
[sweep]
"traffic.load" = [0.01, 0.02]
EOF
small=$(sbatch --parsable --array=0-1 --mem=1 --chdir="$work" --output="$work/small-%a.out" \
    "$here/sweep.sbatch" "$work/mesh64.toml" "$work/small" "$wormcast")
drain "the array ${small%%;*}"
for t in 0 1; do
    grep -q "its network is reckoned at .* more than the 1.05 MB of the Slurm job's memory (SLURM_MEM_PER_NODE=1)" \
        "$work/small-$t.out" \
        || fail "task $t of a 1 MB job was not refused by its memory: $(cat "$work/small-$t.out")"
done
[ -z "$(ls "$work"/small/journal.* 2>/dev/null)" ] || fail "the 1 MB array wrote journals: $(ls "$work"/small)"
echo "ok   Slurm job array with --mem=1: each task's sweep refused by the job's memory, named: $(grep -o "its network is reckoned.*" "$work/small-0.out")"

# A task cut short (scancel, or its time limit: Slurm sends SIGTERM either
# way, KillWait seconds before SIGKILL) stops at its next cycle, keeps the
# jobs it finished whole in its journal and says how many are left. On one
# thread, jobs 0 and 1 finish and job 2 would run for hours.
cat >"$work/long.toml" <<EOF
[network]
topology = "mesh:8x8"
[traffic]
pattern = "uniform"
packet = 20
load = 0.1
[stats]
warmup = 0
[sweep]
"stats.cycles" = [2000, 3000, 500000000, 4000]
EOF
long=$(sbatch --parsable --array=0 --chdir="$work" --output="$work/long-%a.out" \
    "$here/sweep.sbatch" "$work/long.toml" "$work/long" "$wormcast")
journal="$work/long/journal.jsonl"
for _ in $(seq 1200); do
    [ "$(cat "$journal" 2>/dev/null | wc -l)" -ge 2 ] && break
    sleep 0.1
done
[ "$(wc -l <"$journal")" = 2 ] || fail "the array ${long%%;*} did not finish its first two jobs in 120 s: $(cat "$work/long-0.out")"
scancel "${long%%;*}"
drain "the cancelled array ${long%%;*}"
want="stopped by SIGTERM with 2 of the sweep's 4 jobs in the journal $journal: \`sweep run\` again runs the other 2"
grep -qF "$want" "$work/long-0.out" || fail "the cancelled task did not stop cleanly: $(cat "$work/long-0.out")"
[ "$(wc -l <"$journal")" = 2 ] && [ -z "$(tail -c1 "$journal" | tr -d '\n')" ] \
    || fail "the cancelled task's journal is not two whole lines: $(cat "$journal")"
echo "ok   Slurm task cancelled (SIGTERM): its sweep stopped cleanly: $want"

# A paper's experiment cut short the same way keeps the jobs it finished
# in its journal (<raw file>.part); the same job submitted again runs the
# others and writes the files of one uninterrupted run.
"$wormcast" experiment run --figure fig26 --quick --out "$work/fig26-one" --quiet >/dev/null
submit_fig26() {
    sbatch --parsable --array=0 --chdir="$work" --output="$work/fig26-$1-%a.out" \
        --wrap "'$wormcast' experiment run --figure fig26 --quick --slurm --threads 1 --out '$work/fig26' --quiet"
}
cut=$(submit_fig26 cut)
part="$work/fig26/fig26.raw.csv.part"
for _ in $(seq 1200); do
    [ "$(cat "$part" 2>/dev/null | wc -l)" -ge 11 ] && break
    sleep 0.1
done
[ "$(wc -l <"$part")" -ge 11 ] || fail "the experiment's task ${cut%%;*} did not finish three jobs in 120 s: $(cat "$work"/fig26-cut-0.out)"
scancel "${cut%%;*}"
drain "the cancelled experiment ${cut%%;*}"
grep -qE "stopped by SIGTERM with [0-9]+ of fig26's 64 jobs in $part: the same \`experiment run\` again runs the other [0-9]+" \
    "$work/fig26-cut-0.out" || fail "the cancelled experiment did not stop cleanly: $(cat "$work"/fig26-cut-0.out)"
kept=$(grep -oE "with [0-9]+ of" "$work/fig26-cut-0.out" | tr -dc 0-9)
[ -f "$work/fig26/fig26.raw.csv" ] && fail "the cancelled experiment wrote its raw file"
again=$(submit_fig26 again)
drain "the experiment submitted again ${again%%;*}"
grep -qF "note: fig26: $kept of its 64 jobs were in $part already (the journal of a run stopped part way); $((64 - kept)) ran" \
    "$work/fig26-again-0.out" || fail "the experiment submitted again did not resume its journal: $(cat "$work"/fig26-again-0.out)"
for f in fig26.raw.csv fig26.csv fig26.svg; do
    cmp "$work/fig26-one/$f" "$work/fig26/$f" || fail "$f of the resumed experiment differs from one uninterrupted run"
done
[ -e "$part" ] && fail "the resumed experiment left its journal"
echo "ok   Slurm task of an experiment cancelled (SIGTERM) with $kept of 64 jobs done, submitted again: resumed, equal to one uninterrupted run, byte for byte"

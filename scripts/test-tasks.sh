#!/usr/bin/env bash
# Where no thread can be started: inside a control group whose tasks are
# limited to one (a container's or a cluster job's pids limit, at its
# tightest), the tools run on their one thread with the same results, or
# say plainly which thread or process they could not start. Before
# December 8 every command that builds a network panicked in rayon ("The
# global thread pool has not been initialized"), and `wave diff` panicked
# on starting its reader's thread.
#
#   scripts/test-tasks.sh target/release/wormcast
#
# Needs to make a control group with the pids controller (root, cgroup v1
# or v2). Where it cannot, it says "skip tasks: <why>" and exits 0: it
# never reports "ok" for what it did not run. Prints "ok tasks: ..." on
# success; any failure exits non-zero.
set -euo pipefail
bin=$(realpath "${1:?usage: $0 path/to/wormcast}")

skip() { echo "skip tasks: $*"; exit 0; }
fail() { echo "FAIL tasks: $*" >&2; exit 1; }
# How a thread or process that cannot be started is told (EAGAIN).
again="Resource temporarily unavailable (os error 11)"

[ "$(id -u)" = 0 ] || skip "not root: cannot make a control group"

# The group to make one under: the v1 pids hierarchy's, else the v2
# (unified) one's, each where /proc/self/mountinfo mounts it.
v1_mount=$(awk '$0 ~ / - cgroup / && $NF ~ /(^|,)pids(,|$)/ {print $5; exit}' /proc/self/mountinfo)
v2_mount=$(awk '$0 ~ / - cgroup2 / {print $5; exit}' /proc/self/mountinfo)
if [ -n "$v1_mount" ]; then
    rel=$(awk -F: '$2 ~ /(^|,)pids(,|$)/ {print $3; exit}' /proc/self/cgroup)
    root=$(awk '$0 ~ / - cgroup / && $NF ~ /(^|,)pids(,|$)/ {print $4; exit}' /proc/self/mountinfo)
elif [ -n "$v2_mount" ]; then
    rel=$(awk -F: '$1 == 0 {print $3; exit}' /proc/self/cgroup)
    root=$(awk '$0 ~ / - cgroup2 / {print $4; exit}' /proc/self/mountinfo)
else
    skip "no control group hierarchy with the pids controller is mounted"
fi
[ "$root" = / ] && root=""
parent="${v1_mount:-$v2_mount}${rel#"$root"}"
if [ -z "$v1_mount" ]; then
    grep -qw pids "$parent/cgroup.subtree_control" 2>/dev/null ||
        echo +pids > "$parent/cgroup.subtree_control" 2>/dev/null ||
        skip "the pids controller is not enabled below $parent"
fi
group="$parent/wormcast-tasks.$$"
mkdir "$group" 2>/dev/null || skip "cannot make $group"
work=$(mktemp -d)
trap 'rmdir "$group" 2>/dev/null || true; rm -rf "$work"' EXIT
echo 1 > "$group/pids.max" 2>/dev/null || skip "cannot set $group/pids.max"

# Runs a command in the group (one task: this one), in $work/$1, its
# standard output in $work/$1.out; its exit status in $status and its
# standard error in $err. A panic anywhere is a failure.
try_in_group() {
    local name=$1
    shift
    mkdir -p "$work/$name"
    set +e
    (cd "$work/$name" && RUST_BACKTRACE=0 sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' \
        sh "$group" "$@" > "$work/$name.out" 2> "$work/$name.err")
    status=$?
    set -e
    err=$(cat "$work/$name.err")
    case "$err" in *panicked*) fail "$name panicked with one task: $err" ;; esac
}

# The same outside the group.
try_free() {
    local name=$1
    shift
    mkdir -p "$work/$name"
    (cd "$work/$name" && "$@" > "$work/$name.out" 2> "$work/$name.err") ||
        fail "$name failed outside the group: $(cat "$work/$name.err")"
}

# That one task is all the group allows: a second is refused.
set +e
sh -c 'echo $$ > "$1/cgroup.procs" && exec sh -c "true & wait"' sh "$group" 2> /dev/null
probe=$?
set -e
[ "$probe" != 0 ] || skip "the group's pids.max of 1 did not stop a second task"

# A network built (its routing tables, in parallel where threads can be
# started) and run, traced to FST and to VCD: the same report and the
# same waveform bytes as outside the group.
run=(run --topology irregular:switches=64,ports=8,nodes=256 --load 0.01 --cycles 2000 --warmup 0)
for w in fst vcd; do
    try_in_group "tasks-$w" "$bin" "${run[@]}" --vcd "$work/tasks.$w"
    [ "$status" = 0 ] || fail "a run traced to $w with one task ended with status $status: $err"
    try_free "free-$w" "$bin" "${run[@]}" --vcd "$work/free.$w"
    cmp -s "$work/tasks.$w" "$work/free.$w" || fail "the $w waveform written with one task differs from the one written outside the group"
    diff <(grep -v "^wall time" "$work/tasks-$w.out") <(grep -v "^wall time" "$work/free-$w.out") > /dev/null ||
        fail "the report of a run traced to $w with one task differs from the one outside the group"
done

# The main demo: its files as outside the group.
try_in_group demo "$bin" demo
[ "$status" = 0 ] || fail "the demo with one task ended with status $status: $err"
try_free demo-free "$bin" demo
diff -r "$work/demo" "$work/demo-free" > /dev/null ||
    fail "the demo's files with one task differ from those written outside the group"
# Its network shown (its routing summary built in parallel where it can be).
try_in_group topo "$bin" topo show "$work/demo/wormcast-demo/net.toml"
[ "$status" = 0 ] || fail "topo show with one task ended with status $status: $err"
try_free topo-free "$bin" topo show "$work/demo/wormcast-demo/net.toml"
cmp -s "$work/topo.out" "$work/topo-free.out" ||
    fail "topo show with one task printed other than outside the group"

# A sweep: its worker threads cannot start, so its jobs run one at a time
# on the one thread, a note saying so; its results as outside the group.
sweep=(sweep run "$(realpath "$(dirname "$0")/../configs/sweeps/mesh4x4-routers.toml")")
try_in_group sweep "$bin" "${sweep[@]}" --out "$work/sweep-tasks"
[ "$status" = 0 ] || fail "a sweep with one task ended with status $status: $err"
case "$err" in
    *"note: the worker threads could not be started ($again): the jobs run one at a time on this thread"*) ;;
    *) fail "a sweep with one task did not say its jobs ran on one thread: $err" ;;
esac
try_free sweep-free "$bin" "${sweep[@]}" --out "$work/sweep-free"
for f in sweep.csv sweep.jsonl; do
    cmp -s "$work/sweep-tasks/$f" "$work/sweep-free/$f" || fail "the sweep's $f with one task differs from the one outside the group"
done
# A paper's experiment runs its points through the same worker pool.
try_in_group tree "$bin" tree experiment --quick --out "$work/tree-tasks"
[ "$status" = 0 ] || fail "tree experiment with one task ended with status $status: $err"
case "$err" in
    *"note: the worker threads could not be started ($again)"*) ;;
    *) fail "tree experiment with one task did not say its points ran on one thread: $err" ;;
esac
try_free tree-free "$bin" tree experiment --quick --out "$work/tree-free"
cmp -s "$work/tree-tasks/tree_load.csv" "$work/tree-free/tree_load.csv" ||
    fail "tree experiment's CSV with one task differs from the one outside the group"

# What needs a second thread says which: a simulation asked to run on two
# threads, and a waveform read (each file is read on a thread of its own).
# `refused NAME WANT WHAT COMMAND...` runs COMMAND in the group: it must
# end with status 2 and standard error WANT.
refused() {
    local name=$1 want=$2 what=$3
    shift 3
    try_in_group "$name" "$@"
    [ "$status" = 2 ] || fail "$what with one task ended with status $status, not 2: $err"
    [ "$err" = "$want" ] || fail "$what with one task did not say what it could not start: $err"
}
refused threads "error: configuration: threads = 2: cannot start a thread: $again" "a run on two threads" \
    "$bin" run --topology irregular:switches=1024,ports=8,nodes=4096 --load 0.0015 --cycles 200 \
    --warmup 0 --threads 2
refused diff "error: $work/free.vcd: cannot start the reader's thread: $again" "a waveform compare" \
    "$bin" wave diff "$work/free.vcd" "$work/free.fst"
ghw=""
if command -v ghdl > /dev/null; then
    # A GHW file is read by a process of its own (docs/cosim.md).
    cat > "$work/t.vhd" << 'EOF'
library ieee; use ieee.std_logic_1164.all;
entity t is end;
architecture a of t is signal clk : std_logic := '0'; begin
  clk <= not clk after 5 ns when now < 100 ns;
end;
EOF
    (cd "$work" && ghdl -a t.vhd && ghdl -e t && ghdl -r t --wave=t.ghw) > /dev/null 2>&1 ||
        fail "GHDL could not write a GHW waveform"
    refused ghw "error: $work/t.ghw: cannot start the GHW reader's process ($bin): $again" \
        "a GHW compare" "$bin" wave diff "$work/t.ghw" "$work/t.ghw"
    ghw=", and a GHW read's process"
else
    echo "skip tasks: the GHW check (GHDL is not installed to write a GHW waveform)"
fi

echo "ok tasks: with one task, runs traced to FST and VCD, the demo, topo show, a sweep and tree experiment gave the same bytes as outside the group; a run on two threads, a waveform's reader thread$ghw refused by name"

#!/usr/bin/env bash
# A run inside a memory control group (as a Slurm job with --mem, or a
# container, runs) is refused by the group's limit, naming it, rather than
# killed by the kernel when the group fills; a run that fits still runs;
# a run whose sources' queues grow past saturation is stopped, naming them
# (seed 000's system and the engine both);
# and a sweep whose jobs fit the group one at a time but not two at once
# runs them one at a time, with the results of a sweep run outside it.
#
#   scripts/test-cgroup.sh target/release/wormcast
#
# Needs to make a control group (root, with the memory controller mounted,
# cgroup v1 or v2). Where it cannot, it says "skip cgroup: <why>" and
# exits 0: it never reports "ok" for what it did not run. Prints
# "ok cgroup: ..." on success; any failure exits non-zero.
set -euo pipefail
bin=$(realpath "${1:?usage: $0 path/to/wormcast}")
limit=$((1536 * 1024 * 1024))

skip() { echo "skip cgroup: $*"; exit 0; }
fail() { echo "FAIL cgroup: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || skip "not root: cannot make a control group"

# The group to make one under: the v1 memory hierarchy's, else the v2
# (unified) one's, each where /proc/self/mountinfo mounts it.
v1_mount=$(awk '$0 ~ / - cgroup / && $NF ~ /(^|,)memory(,|$)/ {print $5; exit}' /proc/self/mountinfo)
v2_mount=$(awk '$0 ~ / - cgroup2 / {print $5; exit}' /proc/self/mountinfo)
parent=""
if [ -n "$v1_mount" ]; then
    rel=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ {print $3; exit}' /proc/self/cgroup)
    root=$(awk '$0 ~ / - cgroup / && $NF ~ /(^|,)memory(,|$)/ {print $4; exit}' /proc/self/mountinfo)
    [ "$root" = / ] && root=""
    parent="$v1_mount${rel#"$root"}"
    limit_file=memory.limit_in_bytes
elif [ -n "$v2_mount" ]; then
    rel=$(awk -F: '$1 == 0 {print $3; exit}' /proc/self/cgroup)
    root=$(awk '$0 ~ / - cgroup2 / {print $4; exit}' /proc/self/mountinfo)
    [ "$root" = / ] && root=""
    parent="$v2_mount${rel#"$root"}"
    limit_file=memory.max
    grep -qw memory "$parent/cgroup.subtree_control" 2>/dev/null ||
        echo +memory > "$parent/cgroup.subtree_control" 2>/dev/null ||
        skip "the memory controller is not enabled below $parent (cgroup v2 lets a group with processes in it enable none)"
else
    skip "no memory control group hierarchy is mounted"
fi
group="$parent/wormcast-test.$$"
mkdir "$group" 2>/dev/null || skip "cannot make $group"
errs=$(mktemp)
work=$(mktemp -d)
trap 'rmdir "$group" 2>/dev/null || true; rm -rf "$errs" "$work"' EXIT
echo "$limit" > "$group/$limit_file" 2>/dev/null || skip "cannot set $group/$limit_file"

in_group() {
    sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$group" "$@"
}

# Runs a command in the group, its output dropped: its exit status in
# $status and its standard error in $err.
try_in_group() {
    set +e
    in_group "$@" > /dev/null 2> "$errs"
    status=$?
    set -e
    err=$(cat "$errs")
}

# 2,250,000 tree routers, reckoned at about 13.7 GB (the machine may have
# that free; the group does not): refused with exit status 2, naming the
# memory the group leaves, and the note that names the group.
try_in_group "$bin" run --topology mesh:1500x1500 --router tree --cycles 10 --warmup 0 \
    --load 0.001
[ "$status" = 2 ] || fail "a network past the group's limit ended with status $status (137 is the kernel's kill): $err"
case "$err" in
    *"is reckoned at 13680 MB, more than the "*" MB of memory available"*) ;;
    *) fail "the refusal does not name the memory: $err" ;;
esac
case "$err" in
    *"note: this process's control group ($group) limits its memory to $((limit / 1000000)) MB, less than the machine's "*) ;;
    *) fail "the refusal does not name the group's limit: $err" ;;
esac
left=$(printf '%s\n' "$err" | sed -n 's/.*more than the \([0-9]*\) MB of memory available.*/\1/p')
[ "$left" -le $((limit / 1000000)) ] || fail "the group leaves at most $((limit / 1000000)) MB, the refusal says $left"

# A network that fits the group runs, with the group's limit in force.
in_group "$bin" run --topology mesh:16x16 --router tree --cycles 2000 --warmup 0 \
    --load 0.01 --json > /dev/null || fail "a 16x16 mesh did not run inside the group"

# A run far past saturation (256 switches, 1,024 nodes at 0.9): its
# sources' queues grow by about 225 packets a cycle, up to 65,536 a node,
# more than the group holds. Stopped with status 2, naming the queues,
# before the group fills (before December 2 the kernel killed it).
"$bin" topo gen --switches 256 --ports 8 --nodes 1024 -o "$work/t256.toml"
try_in_group "$bin" run --topology "$work/t256.toml" --load 0.9 --packet 4 --cycles 400000 \
    --warmup 1000 -q
[ "$status" = 2 ] || fail "a run past saturation ended with status $status (137 is the kernel's kill): $err"
case "$err" in
    *" packets wait at their sources and "*" are in the network, and the run has grown by "*"the network is past saturation"*) ;;
    *) fail "the run past saturation was not stopped by its queues: $err" ;;
esac

# A large network at a high load queues fast: 16,384 nodes at 0.9 queue
# about 3,700 packets a cycle, 15 million in 4,096 cycles, so counting the
# queues every 4,096 cycles let them fill a 512 MiB group between two
# counts (killed after 5.7 s before December 2). They are counted as often
# as the load needs (here every 4 cycles), and the run is stopped.
"$bin" topo gen --switches 4096 --ports 8 --nodes 16384 -o "$work/t4096.toml"
echo $((512 * 1024 * 1024)) > "$group/$limit_file"
try_in_group "$bin" run --topology "$work/t4096.toml" --load 0.9 --packet 4 --cycles 20000 \
    --warmup 100 -q
echo "$limit" > "$group/$limit_file"
[ "$status" = 2 ] || fail "a large network past saturation in 512 MiB ended with status $status (137 is the kernel's kill): $err"
case "$err" in
    *" packets wait at their sources and "*" are in the network, and the run has grown by "*"the network is past saturation"*) ;;
    *) fail "the large network past saturation was not stopped by its queues: $err" ;;
esac

# The same through the engine: a 300x300 mesh of wormhole routers at 0.5
# (the network about 0.2 GB) holds up to 64 messages a node outstanding,
# about 1.8 GB past saturation. Stopped with status 2 by its backlog
# (before December 2 the kernel killed it after about a minute).
try_in_group "$bin" run --topology mesh:300x300 --router wormhole --traffic uniform --load 0.5 \
    --packet 20 --cycles 3000 --warmup 0 -q
[ "$status" = 2 ] || fail "an engine run past saturation ended with status $status (137 is the kernel's kill): $err"
case "$err" in
    *"messages wait at their sources or are in flight and the run has grown by "*"the network is past saturation"*) ;;
    *) fail "the engine run past saturation was not stopped by its backlog: $err" ;;
esac

# Two jobs of 20,000 switches, each reckoned at 1,209 MB (their routing
# tables 800 MB of it) and each about 1 GB at its peak: one fits the
# group, two at once do not (before December 2 they ran at once and the
# kernel killed the sweep).
cat > "$work/sweep.toml" <<'EOF'
[network]
topology = "irregular:switches=20000,ports=8,nodes=80000"
[traffic]
packet = 20
[stats]
cycles = 20
warmup = 0
[sweep]
"network.topology" = ["irregular:switches=20000,ports=8,nodes=80000,seed=1", "irregular:switches=20000,ports=8,nodes=80000,seed=2"]
EOF
try_in_group "$bin" sweep run "$work/sweep.toml" --out "$work/in" --threads 2 -q
[ "$status" = 0 ] || fail "a sweep of two jobs that fit the group one at a time ended with status $status (137 is the kernel's kill): $err"
case "$err" in
    # One job or both, each counted once: which of the two waits while
    # the networks are checked and which as they run is a matter of timing.
    *": 1 job waited for others to finish before their memory fitted (at most 1209 MB reckoned at once, of "*) ;;
    *": 2 jobs waited for others to finish before their memory fitted (at most 1209 MB reckoned at once, of "*) ;;
    *) fail "the sweep does not say its jobs waited for memory: $err" ;;
esac
"$bin" sweep run "$work/sweep.toml" --out "$work/out" --threads 2 --memory 100G -q > /dev/null 2>&1 ||
    fail "the sweep did not run outside the group"
cmp -s "$work/in/sweep.jsonl" "$work/out/sweep.jsonl" ||
    fail "the sweep's results in the group differ from those outside it"

# Generating 1,000,000 switches took 486 MB (the file's 190 MB of text
# held twice) and the kernel killed it in a 128 MiB group. The text is
# written as it goes (186 MB), and a generation past the memory available
# is refused before anything is drawn, naming it.
echo $((128 * 1024 * 1024)) > "$group/$limit_file"
try_in_group "$bin" topo gen --switches 1000000 --ports 8 --nodes 1000000 -o "$work/t1m.toml"
echo "$limit" > "$group/$limit_file"
[ "$status" = 2 ] || fail "topo gen of 1,000,000 switches in 128 MiB ended with status $status, not 2 (137 is the kernel's kill): $err"
case "$err" in
    *"cannot generate the topology: 1000000 switches of 8 ports and 1000000 nodes take about 240 MB to generate, more than the "*" MB of memory available"*) ;;
    *) fail "topo gen past the group's memory was not refused by it: $err" ;;
esac

# A topology file of 200,000 switches is 50 MB of TOML, which took 2.85
# GB to parse: the kernel killed `topo show` in the 1,536 MiB group
# before the file's routing tables could be refused. A file whose parse
# is reckoned past the memory available is refused before it is parsed.
"$bin" topo gen --switches 200000 --ports 8 --nodes 800000 -o "$work/t200k.toml"
try_in_group "$bin" topo show "$work/t200k.toml"
[ "$status" = 2 ] || fail "topo show of a 50 MB topology in the group ended with status $status, not 2 (137 is the kernel's kill): $err"
case "$err" in
    *"t200k.toml: parsing 50 MB of TOML takes about 3226 MB (64 bytes a byte of text), more than the "*" MB of memory available"*) ;;
    *) fail "the 50 MB topology was not refused by the memory its parse takes: $err" ;;
esac
rm "$work/t200k.toml"

# Two FST waveforms of 19 MB each (400,000 cycles of an 8x8 mesh):
# `wave diff`'s fast path took 227 MB to compare them in memory, and
# the kernel killed it in a 160 MiB group; it now takes what half the
# memory available allows and leaves the rest to the streaming diff
# (45 MB), which answers as it does outside the group.
for s in 1 2; do
    "$bin" run --topology mesh:8x8 --load 0.05 --cycles 400000 --seed "$s" \
        --vcd "$work/m$s.fst" -q > /dev/null 2>&1 || fail "the mesh's waveform $s was not written"
done
set +e
"$bin" wave diff "$work/m1.fst" "$work/m2.fst" > "$work/diff.out" 2> /dev/null
outside=$?
set -e
[ "$outside" = 1 ] || fail "the two meshes' waveforms compared with status $outside outside the group, not 1 (they differ)"
echo $((160 * 1024 * 1024)) > "$group/$limit_file"
set +e
in_group "$bin" wave diff "$work/m1.fst" "$work/m2.fst" > "$work/diff.in" 2> "$errs"
status=$?
set -e
err=$(cat "$errs")
echo "$limit" > "$group/$limit_file"
[ "$status" = 1 ] || fail "wave diff in a 160 MiB group ended with status $status, not 1 (137 is the kernel's kill): $err"
cmp -s "$work/diff.in" "$work/diff.out" ||
    fail "wave diff in a 160 MiB group reported otherwise than outside it"

# An FST from a pipe is read whole: in a 16 MiB group the 19 MB file
# filled the group and the kernel killed the reader. It is read only
# within three quarters of the memory available, and refused past it.
echo $((16 * 1024 * 1024)) > "$group/$limit_file"
try_in_group "$bin" wave to-vcd - < "$work/m1.fst"
echo "$limit" > "$group/$limit_file"
[ "$status" = 2 ] || fail "an FST from a pipe in a 16 MiB group ended with status $status, not 2 (137 is the kernel's kill): $err"
case "$err" in
    *"standard input: an FST waveform that is not a regular file is read into memory whole, and this one is longer than "*" MB, three quarters of the "*" MB of memory available: write it to a file"*) ;;
    *) fail "the FST from a pipe was not refused by the memory available: $err" ;;
esac

# A GHW waveform is read by a child process under bounds of its own (of
# address space and CPU time). In a group with less memory than the
# reader needs (48 MiB, for a 40 MB file) the kernel kills the child,
# which was reported as stopped "under its bounds of 3483 MiB ... (a
# malformed file, or one too large for them)"; it is reported as killed
# within them, by the kernel when memory ran out. Each bound ends the
# child otherwise: an allocation that fails, SIGXCPU.
ghw=""
if command -v ghdl > /dev/null 2>&1; then
    (
        cd "$work"
        printf '%s\n' "library ieee; use ieee.std_logic_1164.all;" "entity many is end;" \
            "architecture a of many is signal clk : std_logic := '0'; begin" \
            "g: for i in 0 to 19999 generate signal x : std_logic := '0'; begin x <= clk; end generate;" \
            "clk <= not clk after 5 ns; end;" > many.vhd
        ghdl -a many.vhd && ghdl -e many && ghdl -r many --wave=many.ghw --stop-time=5us
    ) > /dev/null 2>&1 || fail "GHDL did not write the GHW waveform"
    "$bin" wave diff "$work/many.ghw" "$work/many.ghw" > /dev/null 2> "$errs" ||
        fail "the GHW waveform (20,000 signals) was not read outside the group: $(cat "$errs")"
    echo $((48 * 1024 * 1024)) > "$group/$limit_file"
    try_in_group "$bin" wave diff "$work/many.ghw" "$work/many.ghw"
    echo "$limit" > "$group/$limit_file"
    [ "$status" = 2 ] || fail "a GHW read in a 48 MiB group ended with status $status, not 2: $err"
    case "$err" in
        *"many.ghw: GHW not read: its reader was killed (signal 9) within its bounds of "*" MiB of memory and "*" CPU seconds: by the kernel when memory ran out (the limit of a control group, such as a Slurm job's or a container's, or the machine's), or by a user"*) ;;
        *) fail "the GHW reader killed in a 48 MiB group was not reported as killed within its bounds: $err" ;;
    esac
    # (The shell's own line for a child stopped by a signal goes to
    # /dev/null with the group's.)
    mem=$({ "$bin" wave to-vcd --max-memory-mib 48 "$work/many.ghw" > /dev/null 2> "$errs"
        echo $?; } 2> /dev/null)
    cpu=$({ "$bin" wave to-vcd --max-cpu-seconds 1 "$work/many.ghw" -o /dev/null 2> /dev/null
        echo $?; } 2> /dev/null)
    [ "$mem" = 134 ] && grep -q "memory allocation of" "$errs" ||
        fail "the GHW reader past --max-memory-mib 48 ended with status $mem, not 134 (SIGABRT) after an allocation failed"
    [ "$cpu" = 152 ] || fail "the GHW reader past --max-cpu-seconds 1 ended with status $cpu, not 152 (SIGXCPU)"
    ghw="; a GHW reader killed in 48 MiB reported so, and its own bounds ending it otherwise"
else
    echo "skip cgroup: the GHW checks (GHDL is not installed to write a GHW waveform)"
fi

echo "ok cgroup: a network past the group's $((limit >> 20)) MiB limit refused (the group leaves $left MB), one within it run; runs past saturation stopped by their queues (one of 16,384 nodes in 512 MiB), and one through the engine by its backlog; a sweep of two 1,209 MB jobs run one at a time in it, with the results of one outside it; two 19 MB waveforms compared in 160 MiB as outside it, and one from a pipe refused in 16 MiB; a generation of 1,000,000 switches refused in 128 MiB, and a 50 MB topology's parse in $((limit >> 20)) MiB$ghw"

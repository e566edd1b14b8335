#!/usr/bin/env bash
# Instructions a simulated cycle of a `wormcast run`, counted by callgrind:
# the command is run twice from a cold start (`--warmup 0`), for --from
# and --to cycles, and the count is the difference of the two totals over
# the difference of the lengths, so that building the network and the
# report drop out. This is how docs/performance.md takes its counts,
# which do not move with the machine's load as wall time does.
#
#   scripts/instructions.sh target/dist/wormcast run \
#       --topology benches/anynet8x4.toml --traffic uniform --load 0.1 --packet 20
#   scripts/instructions.sh --from 2000 --to 8000 target/release/wormcast run ...
#
# Each thread is counted apart (`--separate-threads=yes`): the report gives
# the whole process and each thread at 10 instructions a cycle or more
# (saying how many others it leaves out). A traced
# run (`--vcd`) ends by compressing the waveform's last block on the
# simulation's thread, work whose size grows with the run; its inclusive
# count (`finish_trace_hierarchy`) is taken out of that thread's totals
# first, or the slope would count it as every cycle's. The waveform is
# written, twice, where `--vcd` says. A run whose helper threads are seen
# in the counts (from `--threads` or a configuration file) counts their
# spinning as they wait for each other (valgrind runs one thread at a
# time), and the report says so; `--threads` above 1 with no helper seen
# (a network too small to cut) is reported as such.
#
# Setup's parallel work (on rayon's pool: the routing tables, among
# others) runs on one worker here (RAYON_NUM_THREADS=1; the simulation's
# own threads are not rayon's): with more, how the work is stolen and how
# long idle workers spin depend on the scheduling, and two runs of an
# idle network, 4,000 cycles apart, once counted 40,000 instructions
# fewer for the longer (-10 a cycle). What is left between identical
# runs is a few thousand instructions, and in some runs an idle worker's
# spin of about 13,000: under 4 a cycle over a span of 4,000 cycles,
# under 1 over the default.
#
# Needs valgrind (callgrind and callgrind_annotate) and python3. Prints
# the counts on standard output; exits 2, saying why, on bad arguments
# or a missing tool, and 1 when a run fails.
set -euo pipefail

from=10000
to=40000
usage() {
    echo "usage: $0 [--from N] [--to M] path/to/wormcast run ARGS... (without --cycles or --warmup)" >&2
    exit 2
}
while [ $# -gt 0 ]; do
    case "$1" in
        --from) [ $# -ge 2 ] || usage; from=$2; shift 2 ;;
        --to) [ $# -ge 2 ] || usage; to=$2; shift 2 ;;
        -h | --help) usage ;;
        *) break ;;
    esac
done
[ $# -ge 2 ] || usage
bin=$1
shift
[ "$1" = run ] || { echo "instructions: counts a \`run\` command, not \`$1\`" >&2; exit 2; }
[ -f "$bin" ] && [ -x "$bin" ] || { echo "instructions: $bin is not an executable" >&2; exit 2; }
for n in "$from" "$to"; do
    case "$n" in
        '' | *[!0-9]* | ?????????????*)
            echo "instructions: --from and --to are cycle counts of at most 12 digits, not '$from' and '$to'" >&2
            exit 2
            ;;
    esac
done
[ "$from" -gt 0 ] && [ "$to" -gt "$from" ] \
    || { echo "instructions: --to ($to) must be more than --from ($from), both above 0" >&2; exit 2; }
for a in "$@"; do
    case "$a" in
        --cycles | --cycles=* | --warmup | --warmup=*)
            echo "instructions: leave $a out: the runs are of --from and --to cycles after no warm-up" >&2
            exit 2
            ;;
    esac
done
traced=0
threads=1
prev=
for a in "$@"; do
    case "$a" in
        --vcd | --vcd=*) traced=1 ;;
        --threads=*) threads=${a#--threads=} ;;
    esac
    [ "$prev" = --threads ] && threads=$a
    prev=$a
done
for t in valgrind callgrind_annotate python3; do
    command -v "$t" > /dev/null || { echo "instructions: $t is not installed (valgrind's package has the first two)" >&2; exit 2; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for n in "$from" "$to"; do
    RAYON_NUM_THREADS=1 valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$work/cg.$n" \
        --log-file="$work/valgrind.$n" \
        "$bin" "$@" --warmup 0 --cycles "$n" > "$work/run.$n.out" 2> "$work/run.$n.err" \
        || { echo "instructions: the run of $n cycles failed:" >&2; tail -5 "$work/run.$n.err" >&2; exit 1; }
done

python3 - "$work" "$from" "$to" "$traced" "$threads" << 'EOF'
import glob, re, signal, subprocess, sys

# A reader that stops early (`| head -1`) ends the report quietly.
signal.signal(signal.SIGPIPE, signal.SIG_DFL)

work, lo, hi, traced = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
asked = sys.argv[5] not in ("1", "")
helpers = False


def threads(n):
    """Each thread's total and the inclusive count of the last block's
    compression, by callgrind's thread number."""
    global helpers
    out = {}
    for f in glob.glob(f"{work}/cg.{n}-*"):
        text = open(f).read()
        # A helper of the ranges' crew (docs/engine.md): a thread other
        # than the first that ran the crew's code.
        if not f.endswith("-01") and ("rtl/crew.rs" in text or "crew::" in text):
            helpers = True
        m = re.search(r"^totals:\s+(\d+)", text, re.M) or re.search(r"^summary:\s+(\d+)", text, re.M)
        if not m:
            sys.exit(f"instructions: no totals in callgrind's {f}")
        total = int(m.group(1))
        last = 0
        if traced and "finish_trace_hierarchy" in text:
            ann = subprocess.run(
                ["callgrind_annotate", "--inclusive=yes", "--threshold=100", f],
                capture_output=True, text=True, check=True,
            ).stdout
            for line in ann.splitlines():
                if "finish_trace_hierarchy" in line:
                    c = re.match(r"\s*([\d,]+)", line)
                    if c:
                        last = max(last, int(c.group(1).replace(",", "")))
        out[int(f.rsplit("-", 1)[1])] = (total, last)
    if not out:
        sys.exit(f"instructions: callgrind wrote nothing for the run of {n} cycles")
    return out


def whole_number(x):
    """`x` rounded, with thousands' commas (and no "-0")."""
    return f"{round(x):,}"


a, b = threads(lo), threads(hi)
span = hi - lo
whole = (sum(t for t, _ in b.values()) - sum(t for t, _ in a.values())) / span
print(f"instructions a cycle, {lo} to {hi} cycles: {whole_number(whole)} (the whole process)")
hidden = 0
for k in sorted(set(a) | set(b)):
    ta, la = a.get(k, (0, 0))
    tb, lb = b.get(k, (0, 0))
    raw = (tb - ta) / span
    if abs(raw) < 10:
        hidden += 1
        continue
    line = f"  thread {k}: {whole_number(raw)}"
    if traced and (la or lb):
        line += f", {whole_number(((tb - lb) - (ta - la)) / span)} without the waveform's last block"
    print(line)
if hidden:
    print(f"  ({hidden} more thread{'s' if hidden > 1 else ''} under 10 a cycle, not shown)")
if helpers:
    print(
        "  (several threads: a thread waiting for the others spins a while before it parks,"
        " and valgrind runs one thread at a time, so these counts include spinning;"
        " count a range's own work by its functions, with callgrind_annotate)"
    )
elif asked:
    # Too small a network runs on one thread whatever is asked; a build
    # without symbols hides the helpers' code.
    print(
        "  (--threads above 1 asked, and no helper thread seen: if helpers ran,"
        " these counts include their spinning)"
    )
EOF

#!/usr/bin/env bash
# scripts/instructions.sh counts what it says: a network with nothing to
# do skips its cycles (no instructions a cycle), anynet8x4's busy
# cycle is thousands, a traced run's simulation thread counts more than
# an untraced one's with the waveform's last block taken out, its
# encoder's thread is counted apart, a run on two threads is said to
# count their spinning, a reader that closes the pipe early ends the
# report quietly, and bad arguments and failed runs are refused with the
# reason.
#
#   scripts/test-instructions.sh target/release/wormcast
#
# Prints "ok instructions: ..." on success; anything else prints
# "FAIL instructions: ..." and exits non-zero. Needs valgrind.
set -euo pipefail
bin=$(realpath "${1:?usage: $0 path/to/wormcast}")
cd "$(dirname "$0")/.."

fail() { echo "FAIL instructions: $*" >&2; exit 1; }
command -v valgrind > /dev/null || fail "valgrind is not installed"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
count() { scripts/instructions.sh --from 2000 --to 6000 "$bin" run "$@"; }
# The number on the line that starts with $1 (commas dropped), or the
# number after $2 on it.
field() {
    python3 -c '
import re, sys
start, after, text = sys.argv[1], sys.argv[2], sys.stdin.read()
for line in text.splitlines():
    s = line.strip()
    if s.startswith(start):
        tail = s.split(after, 1)[1] if after else s.split(":", 1)[1]
        print(int(re.search(r"-?[\d,]+", tail).group(0).replace(",", "")))
        break
else:
    sys.exit(1)
' "$1" "${2:-}"
}

# An idle network: every cycle skipped, so over 200,000 cycles setup's
# noise between runs (tens of thousands of instructions at most) rounds
# to 0 a cycle, and any work a cycle (half an instruction or more) fails.
out=$(scripts/instructions.sh --from 2000 --to 202000 "$bin" run \
    --topology irregular:switches=64,ports=8,nodes=256 --load 0) || fail "the idle run failed"
idle=$(field "instructions a cycle" <<< "$out") || fail "no count for the idle run: $out"
[ "$idle" -eq 0 ] || fail "an idle network counted $idle instructions a cycle, not 0: $out"

# A reader that has gone before the report is written (`| true` closes
# the pipe at once; the counts take seconds): the report ends quietly,
# with no traceback. (Its exit status is a closed pipe's, as `yes | true`
# gives.)
set +o pipefail
scripts/instructions.sh --from 200 --to 600 "$bin" run \
    --topology irregular:switches=64,ports=8,nodes=256 --load 0 2> "$work/pipe.err" | true
set -o pipefail
[ ! -s "$work/pipe.err" ] || fail "a closed pipe was not quiet: $(cat "$work/pipe.err")"

# anynet8x4's busy cycle, on one thread.
anynet=benches/anynet8x4.toml
out=$(count --topology "$anynet" --traffic uniform --load 0.1 --packet 20) || fail "the anynet8x4 run failed"
busy_out=$out
busy=$(field "instructions a cycle" <<< "$out") || fail "no count for anynet8x4: $out"
one=$(field "thread 1" <<< "$out") || fail "no thread 1 for anynet8x4: $out"
[ "$busy" -ge 2000 ] && [ "$busy" -le 8000 ] \
    || fail "anynet8x4 at 0.1 counted $busy instructions a cycle, outside 2,000 - 8,000: $out"
[ $(((busy - one) * 100)) -le "$busy" ] && [ $(((one - busy) * 100)) -le "$busy" ] \
    || fail "anynet8x4's one thread counted $one against the process's $busy: $out"
[ "$(grep -c "^  thread" <<< "$out")" -eq 1 ] || fail "an untraced one-thread run showed other busy threads: $out"
grep -q "waveform" <<< "$out" && fail "an untraced run spoke of a waveform: $out"

# The same traced to an FST: the simulation's thread without the last
# block, and the encoder's thread.
out=$(count --topology "$anynet" --traffic uniform --load 0.1 --packet 20 --vcd "$work/w.fst") \
    || fail "the traced run failed"
raw=$(field "thread 1" <<< "$out") || fail "no thread 1 for the traced run: $out"
net=$(field "thread 1" ", " <<< "$out") || fail "no count without the last block: $out"
[ "$net" -lt "$raw" ] || fail "the last block's compression was not taken out ($net of $raw): $out"
[ "$net" -gt "$busy" ] || fail "tracing cost the simulation's thread nothing ($net against $busy): $out"
enc=$(grep "^  thread" <<< "$out" | grep -v "^  thread 1:" | head -1 | field "thread") \
    || fail "the encoder's thread was not counted: $out"
[ "$enc" -ge 1000 ] || fail "the encoder's thread counted $enc instructions a cycle: $out"
[ -s "$work/w.fst" ] || fail "the traced run wrote no waveform"

# Two threads, asked for in a configuration file rather than with
# --threads: the helper is seen, and the report says its counts include
# spinning (and an untraced one-thread run above did not).
grep -q "spins" <<< "$busy_out" && fail "a one-thread run was said to spin: $busy_out"
"$bin" run --topology mesh:8x16 --router tree --load 0.03 --threads 2 --print-config \
    > "$work/two.toml" 2> /dev/null || fail "--print-config failed"
out=$(scripts/instructions.sh --from 200 --to 600 "$bin" run --config "$work/two.toml") \
    || fail "the two-thread run failed"
grep -q "counts include spinning" <<< "$out" \
    || fail "a run on two threads was not said to count spinning: $out"
# Two threads asked of a network too small to cut (anynet8x4's 8
# switches run on one): not said to spin, but said to have no helper.
out=$(scripts/instructions.sh --from 200 --to 600 "$bin" run --topology "$anynet" --load 0.1 --threads 2) \
    || fail "the small two-thread run failed"
grep -q "counts include spinning" <<< "$out" && fail "a run without helpers was said to spin: $out"
grep -q "no helper thread seen" <<< "$out" || fail "a run asked for two threads did not say none was seen: $out"

# Refusals.
refused() {
    local want=$1 code=$2
    shift 2
    set +e
    msg=$(scripts/instructions.sh "$@" 2>&1 > /dev/null)
    got=$?
    set -e
    [ "$got" -eq "$code" ] || fail "'$*' exited $got, not $code: $msg"
    grep -q -- "$want" <<< "$msg" || fail "'$*' did not say '$want': $msg"
}
refused "leave --cycles out" 2 "$bin" run --topology "$anynet" --cycles 100
refused "must be more than --from" 2 --from 500 --to 500 "$bin" run --topology "$anynet"
refused "cycle counts" 2 --from ten "$bin" run --topology "$anynet"
refused "cycle counts" 2 --from "" "$bin" run --topology "$anynet"
refused "not \`sweep\`" 2 "$bin" sweep x.toml
refused "topology = $work/missing.toml: no such file" 1 --from 10 --to 20 "$bin" run --topology "$work/missing.toml"

echo "ok instructions: idle $idle, anynet8x4 $busy, traced $net ($raw with the last block) instructions a cycle; two threads named as spinning, none where none ran; a closed pipe quiet; 6 refusals"

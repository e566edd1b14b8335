#!/usr/bin/env bash
# The profile-guided build (scripts/pgo-build.sh) gives the same model as
# a plain build: it is built, and each of a set of runs (unicast and
# multicast on anynet8x4, meshes of wormhole and tree routers on one and
# two threads, waveforms as FST and VCD) gives the same report, its
# timings aside, and the same waveform bytes from both binaries.
#
#   scripts/test-pgo.sh target/release/wormcast
#
# Prints "ok pgo: ..." on success; any difference or failure prints
# "FAIL pgo: ..." and exits non-zero.
set -euo pipefail
plain=$(realpath "${1:?usage: $0 path/to/wormcast}")
cd "$(dirname "$0")/.."

fail() { echo "FAIL pgo: $*" >&2; exit 1; }

scripts/pgo-build.sh || fail "scripts/pgo-build.sh failed"
pgo=$PWD/target/pgo/wormcast
[ -x "$pgo" ] || fail "no target/pgo/wormcast after the build"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A report without the figures that time the run.
untimed() {
    python3 -c '
import json, sys
def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items()
                if k not in ("wall_seconds", "cycles_per_second", "setup_seconds")}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v
json.dump(strip(json.load(sys.stdin)), sys.stdout, indent=1, sort_keys=True)
'
}

anynet=benches/anynet8x4.toml
n=0
same() {
    local name=$1
    shift
    for b in plain pgo; do
        local bin=$plain
        [ "$b" = pgo ] && bin=$pgo
        "$bin" "$@" --json 2> "$work/$name.$b.err" | untimed > "$work/$name.$b.json" \
            || fail "$name: the $b build's run failed: $(tail -3 "$work/$name.$b.err")"
    done
    cmp -s "$work/$name.plain.json" "$work/$name.pgo.json" \
        || fail "$name: the reports differ: $(diff "$work/$name.plain.json" "$work/$name.pgo.json" | head -5)"
    n=$((n + 1))
}
same unicast run --topology "$anynet" --traffic uniform --load 0.1 --packet 20 --warmup 1000 --cycles 20000
same short run --topology "$anynet" --traffic uniform --load 0.1 --packet 1 --warmup 1000 --cycles 20000
same multicast run --topology "$anynet" --traffic multicast --worm bit-string --degree 4 --payload 16 \
    --load 0.02 --warmup 1000 --cycles 20000
same wormhole run --topology mesh:8x8 --router wormhole --traffic uniform --load 0.1 --packet 20 \
    --warmup 1000 --cycles 10000
same tree2 run --topology mesh:16x16 --router tree --traffic uniform --load 0.03 --packet 20 \
    --warmup 1000 --cycles 5000 --threads 2

waves=0
for ext in fst vcd; do
    for b in plain pgo; do
        bin=$plain
        [ "$b" = pgo ] && bin=$pgo
        "$bin" run --topology "$anynet" --traffic uniform --load 0.1 --packet 20 --warmup 0 \
            --cycles 3000 --vcd "$work/$b.$ext" --quiet > /dev/null 2> "$work/wave.$b.err" \
            || fail "the $b build's traced run failed: $(tail -3 "$work/wave.$b.err")"
    done
    [ -s "$work/plain.$ext" ] || fail "the traced run wrote no $ext"
    cmp -s "$work/plain.$ext" "$work/pgo.$ext" || fail "the two builds' ${ext^^} waveforms differ"
    waves=$((waves + 1))
done
echo "ok pgo: the profile-guided build gives the plain build's $n reports and $waves waveforms byte for byte"

#!/usr/bin/env bash
# Builds the command-line tool with profile-guided optimisation: an
# instrumented build runs a set of typical simulations (unicast and
# multicast traffic on anynet8x4, meshes of tree and wormhole routers, a
# traced run, two threads), LLVM merges what they counted, and a second
# build lays out and inlines the code by those counts. The model is the
# same; only the machine code differs (scripts/test-pgo.sh checks that
# the two builds give the same reports and waveforms byte for byte).
#
#   scripts/pgo-build.sh            # target/pgo/wormcast, the dist profile
#   PGO_PROFILE=release scripts/pgo-build.sh   # quicker to build, slower
#
# Needs rustup's llvm-tools component (llvm-profdata matching rustc's
# LLVM); it is added when missing. Work goes under target/pgo/ (two
# target folders and the profiles); the binary is target/pgo/wormcast.
# Figures: docs/performance.md, "Profile-guided builds".
set -euo pipefail
cd "$(dirname "$0")/.."
profile=${PGO_PROFILE:-dist}
out=$PWD/target/pgo
case "$profile" in
    dev) dir=debug ;;
    *) dir=$profile ;;
esac

sysroot=$(rustc --print sysroot)
host=$(rustc -vV | sed -n 's/^host: //p')
profdata=$sysroot/lib/rustlib/$host/bin/llvm-profdata
if [ ! -x "$profdata" ] && command -v rustup > /dev/null; then
    rustup component add llvm-tools || true
fi
[ -x "$profdata" ] || {
    echo "pgo-build: no llvm-profdata matching rustc at $profdata (rustup component add llvm-tools)" >&2
    exit 1
}

flags=${RUSTFLAGS:-}
rm -rf "$out/data" "$out/merged.profdata"
mkdir -p "$out"
echo "pgo-build: instrumented build ($profile profile)" >&2
RUSTFLAGS="$flags -Cprofile-generate=$out/data" CARGO_TARGET_DIR="$out/gen" \
    cargo build --profile "$profile" --bin wormcast

gen=$out/gen/$dir/wormcast
anynet=benches/anynet8x4.toml
train() {
    "$gen" "$@" --quiet > /dev/null 2> "$out/train.log" \
        || { echo "pgo-build: a training run failed: $*" >&2; cat "$out/train.log" >&2; exit 1; }
}
echo "pgo-build: training runs" >&2
train run --topology "$anynet" --traffic uniform --load 0.1 --packet 20 --warmup 0 --cycles 200000
train run --topology "$anynet" --traffic uniform --load 0.1 --packet 1 --warmup 0 --cycles 100000
train run --topology "$anynet" --traffic uniform --load 0.2 --packet 20 --warmup 0 --cycles 50000
train run --topology "$anynet" --traffic multicast --worm bit-string --degree 4 --payload 16 \
    --load 0.02 --warmup 0 --cycles 50000
train run --topology mesh:8x8 --router tree --traffic uniform --load 0.1 --packet 20 --warmup 0 --cycles 50000
train run --topology mesh:8x8 --router wormhole --traffic uniform --load 0.1 --packet 20 --warmup 0 --cycles 30000
train run --topology mesh:32x32 --router tree --traffic uniform --load 0.03 --packet 20 --warmup 0 \
    --cycles 5000 --threads 2
train run --topology "$anynet" --traffic uniform --load 0.1 --packet 20 --warmup 0 --cycles 20000 \
    --vcd "$out/train.fst"
rm -f "$out"/train.*

"$profdata" merge -o "$out/merged.profdata" "$out/data"
echo "pgo-build: optimised build" >&2
RUSTFLAGS="$flags -Cprofile-use=$out/merged.profdata" CARGO_TARGET_DIR="$out/use" \
    cargo build --profile "$profile" --bin wormcast
cp "$out/use/$dir/wormcast" "$out/wormcast"
echo "pgo-build: built target/pgo/wormcast" >&2

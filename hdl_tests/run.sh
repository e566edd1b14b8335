#!/usr/bin/env bash
# Builds and runs every testbench under Icarus Verilog and Verilator, for
# both implementations of every unit: the twin (hdl_tests/rtl/, Verilog
# 2005) and the second implementation written from the unit's contract
# (hdl_tests/alt/, SystemVerilog); checks each waveform against the model
# with `wormcast cosim --expect-cycles`; then synthesizes every twin with
# Yosys (generic gates), which shows the Verilog is synthesizable.
#
#   hdl_tests/run.sh [--sim iverilog|verilator|all] [--impl rtl|alt|all]
#                    [--cycles N] [--seed S] [--out DIR]
#
# Exit status 0 when every run of every unit reports no mismatch and every
# unit synthesizes. A tool that is not installed is skipped with a message,
# except when CI=true, where it is a failure.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
sims=(iverilog verilator)
impls=(rtl alt)
cycles=5000
seed=7
out="${TMPDIR:-/tmp}/wormcast-hdl"
while [ $# -gt 0 ]; do
    case "$1" in
        --sim) shift; [ "$1" = all ] || sims=("$1") ;;
        --impl) shift; [ "$1" = all ] || impls=("$1") ;;
        --cycles) shift; cycles="$1" ;;
        --seed) shift; seed="$1" ;;
        --out) shift; out="$1" ;;
        *) echo "usage: $0 [--sim iverilog|verilator|all] [--impl rtl|alt|all] [--cycles N] [--seed S] [--out DIR]" >&2; exit 2 ;;
    esac
    shift
done

cargo build --release --quiet --manifest-path "$root/Cargo.toml"
wormcast="$root/target/release/wormcast"

# unit name, Verilog module, sizes for `wormcast vectors`, and the
# parameters cosim cannot tell from the port widths
units=(
    "bitstring-decode bitstring_decode --nodes 16 --ports 6"
    "ssr-md-decode ssr_md_decode --ports 6 --switches 8"
    "repl-buffer repl_buffer --chunks 12 --chunk-flits 4 --ports 3"
)
cosim_params() {
    case "$1" in
        repl-buffer) echo "--param C=12 --param K=4" ;;
        *) echo "" ;;
    esac
}

failed=0
# True when tool $1 is installed; otherwise says so (a failure under CI).
have() {
    if command -v "$1" >/dev/null 2>&1; then
        return 0
    fi
    if [ "${CI:-}" = true ]; then
        echo "FAIL: $1 is not installed (CI=true: a missing tool is a failure)"
        failed=1
    else
        echo "skip: $1 is not installed"
    fi
    return 1
}
for sim in "${sims[@]}"; do
    have "$sim" || continue
    for impl in "${impls[@]}"; do
    for u in "${units[@]}"; do
        read -r unit module sizes <<<"$u"
        dir="$out/$sim/$impl/$unit"
        rm -rf "$dir"
        mkdir -p "$dir"
        # shellcheck disable=SC2086
        "$wormcast" vectors --unit "$unit" --cycles "$cycles" --seed "$seed" $sizes -o "$dir/vec.hex" 2>/dev/null
        tb="$here/tb/tb_$module.v"
        case "$impl" in
            rtl) src="$here/rtl/$module.v"; std=-g2005 ;;
            alt) src="$here/alt/$module.sv"; std=-g2012 ;;
        esac
        case "$sim" in
            iverilog)
                iverilog "$std" -Wall -Wno-timescale -I "$dir" -I "$here/tb" -o "$dir/tb.vvp" "$tb" "$src"
                (cd "$dir" && vvp -n tb.vvp +vcd=tb.vcd >/dev/null)
                ;;
            verilator)
                verilator --binary --trace -Wno-fatal -Wno-lint -Wno-style --build-jobs 2 \
                    -I"$dir" -I"$here/tb" --top-module tb -Mdir "$dir/obj" -o vtb "$tb" "$src" >"$dir/build.log" 2>&1 \
                    || { cat "$dir/build.log"; exit 1; }
                (cd "$dir" && ./obj/vtb +vcd=tb.vcd >/dev/null)
                ;;
        esac
        # shellcheck disable=SC2046
        if result=$("$wormcast" cosim --vcd "$dir/tb.vcd" --unit "$unit" --scope tb.dut \
                --expect-cycles "$cycles" $(cosim_params "$unit")); then
            echo "$sim $impl $unit: $result"
        else
            echo "$sim $impl $unit: $result"
            failed=1
        fi
    done
    done
done
if have yosys; then
    for u in "${units[@]}"; do
        read -r unit module _ <<<"$u"
        log="$out/yosys-$module.log"
        mkdir -p "$out"
        if yosys -q -l "$log" -p "read_verilog $here/rtl/$module.v; synth -top $module; stat" >/dev/null 2>&1; then
            cells=$(grep -m1 "Number of cells" "$log" | awk '{print $NF}')
            echo "yosys $unit: synthesized, $cells cells"
        else
            echo "yosys $unit: FAILED (see $log)"
            failed=1
        fi
    done
fi
exit "$failed"

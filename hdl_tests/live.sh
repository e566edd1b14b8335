#!/usr/bin/env bash
# The model inside testbenches, checked live (docs/cosim.md):
#  1. builds the Python package (PyO3, maturin) into a virtual environment
#     with the pinned tools of hdl_tests/requirements-live.txt, and runs
#     pytest on its API (python/tests);
#  2. runs the cocotb scoreboard of every Verilog twin under Icarus Verilog
#     and Verilator, each twin clean and each with its planted bug
#     (hdl_tests/cocotb/run.py);
#  3. builds the C ABI (capi/), compiles the C example against its header
#     and checks its deliveries against the command line's;
#  4. runs the SystemVerilog DPI-C scoreboard of every twin under
#     Verilator (hdl_tests/dpi/), clean and with its planted bug, and the
#     network calls through DPI, whose deliveries must equal the command
#     line's.
#
#   hdl_tests/live.sh [--out DIR] [--cycles N]
#
# Exit status 0 only when every part ran and passed and every planted bug
# was reported with its signal and cycle; 1 when something failed; 3 when
# a tool is missing (a part not run is never a pass; with CI=true a
# missing tool is a failure, 1).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
out="${TMPDIR:-/tmp}/wormcast-live"
cycles=3000
while [ $# -gt 0 ]; do
    case "$1" in
        --out) shift; out="$1" ;;
        --cycles) shift; cycles="$1" ;;
        *) echo "usage: $0 [--out DIR] [--cycles N]" >&2; exit 2 ;;
    esac
    shift
done
mkdir -p "$out"
out="$(cd "$out" && pwd)"

failed=0
missing=0
summary=()
say() { summary+=("$1"); echo "$1"; }
for tool in python3 iverilog verilator cc make; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        if [ "${CI:-}" = true ]; then
            say "FAIL $tool is not installed (CI=true: a missing tool is a failure)"
            failed=1
        else
            say "skip everything: $tool is not installed"
            missing=1
        fi
    fi
done
if [ "$failed" = 1 ]; then exit 1; fi
if [ "$missing" = 1 ]; then exit 3; fi

cd "$root"
cargo build --release --quiet -p wormcast -p wormcast-capi
wormcast="$root/target/release/wormcast"
lib="$root/target/release/libwormcast_capi.a"

# 1. The Python package and its API tests.
venv="$out/venv"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements-live.txt"
rm -rf "$out/wheels"
"$venv/bin/maturin" build --release --quiet -m "$root/python/Cargo.toml" -o "$out/wheels"
"$venv/bin/pip" install --quiet --disable-pip-version-check --force-reinstall --no-deps "$out"/wheels/wormcast-*.whl
if WORMCAST="$wormcast" "$venv/bin/python" -m pytest -q -p no:cacheprovider "$root/python/tests" \
        >"$out/pytest.log" 2>&1; then
    say "ok   pytest: $(tail -n 1 "$out/pytest.log")"
else
    cat "$out/pytest.log"
    say "FAIL pytest: $(tail -n 1 "$out/pytest.log")"
    failed=1
fi

# 2. cocotb under both simulators.
if "$venv/bin/python" "$here/cocotb/run.py" --sim all --cycles "$cycles" --out "$out/cocotb" \
        >"$out/cocotb.log" 2>&1; then
    status=ok
else
    status=FAIL
    failed=1
fi
while IFS= read -r line; do say "$line"; done < <(grep -E '^(ok|FAIL|skip) ' "$out/cocotb.log")
if [ "$status" = FAIL ] && ! grep -q '^FAIL ' "$out/cocotb.log"; then
    tail -n 40 "$out/cocotb.log"
    say "FAIL cocotb: the runner stopped (see $out/cocotb.log)"
fi

# The command line's deliveries of the reference multicast, for 3 and 4.
printf '0,3,4;7;20;31,20\n' >"$out/one.csv"
"$wormcast" run --topology irregular:switches=8,ports=8,nodes=32,seed=1 --trace "$out/one.csv" \
    --json >"$out/one.json"
expected=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print("\n".join(sorted(f"DELIVERY {m} {n} {c}" for m, n, c in r["deliveries"])))' "$out/one.json")
deliveries_match() { # $1: what, $2: its output
    local got
    got=$(grep '^DELIVERY ' <<<"$2" | sort)
    if [ -n "$got" ] && [ "$got" = "$expected" ]; then
        say "ok   $1: $(wc -l <<<"$got") deliveries, the command line's nodes and cycles"
    else
        say "FAIL $1: deliveries differ from the command line's: got [$got] expected [$expected]"
        failed=1
    fi
}

# 3. The C example against the generated header.
cc -std=c11 -Wall -Wextra -Werror -I "$root/capi/include" "$root/capi/examples/multicast.c" \
    "$lib" -lpthread -ldl -lm -o "$out/multicast"
c_out=$("$out/multicast")
deliveries_match "C ABI example" "$c_out"
if grep -q '^REFUSED bitstring-decode: dests is 8 bits wide' <<<"$c_out"; then
    say "ok   C ABI example: a value wider than its port comes back as WC_EINVAL with its message"
else
    say "FAIL C ABI example: the too-wide value was not refused by name"
    failed=1
fi

# 4. DPI-C under Verilator.
vbuild() { # $1 dir, $2 top, rest: sources
    local dir="$1" top="$2"
    shift 2
    verilator --binary -Wno-fatal -Wno-lint -Wno-style --build-jobs 2 -I"$dir" -I"$here/dpi" -I"$here/tb" \
        --top-module "$top" -Mdir "$dir/obj" -o vtb "$here/dpi/wormcast_dpi.sv" "$@" \
        -LDFLAGS "$lib -lpthread -ldl -lm" >"$dir/build.log" 2>&1 \
        || { cat "$dir/build.log"; return 1; }
}
units=(
    "bitstring-decode bitstring_decode --nodes 16 --ports 6"
    "ssr-md-decode ssr_md_decode --ports 6 --switches 8"
    "repl-buffer repl_buffer --chunks 12 --chunk-flits 4 --ports 3"
)
for u in "${units[@]}"; do
    read -r unit module sizes <<<"$u"
    for impl in twin mutant; do
        dir="$out/dpi/$unit/$impl"
        rm -rf "$dir"
        mkdir -p "$dir"
        # shellcheck disable=SC2086
        "$wormcast" vectors --unit "$unit" --cycles "$cycles" --seed 7 $sizes -o "$dir/vec.hex" 2>/dev/null
        src="$here/rtl/$module.v"
        what=""
        if [ "$impl" = mutant ]; then
            what=$(cd "$here/cocotb" && python3 -c 'import sys; from mutants import plant; print(plant(sys.argv[1], sys.argv[2])[1])' "$unit" "$dir")
            src="$dir/$module.v"
        fi
        vbuild "$dir" tb "$here/dpi/tb_dpi_$module.sv" "$src"
        log=$(cd "$dir" && ./obj/vtb 2>&1) && rc=0 || rc=$?
        if [ "$impl" = twin ]; then
            if [ "$rc" = 0 ] && grep -q '^DPI SCOREBOARD OK' <<<"$log"; then
                say "ok   verilator dpi $unit: $(grep -o '[0-9]* cycles, [0-9]* output values' <<<"$log") equal to the model's"
            else
                say "FAIL verilator dpi $unit (exit $rc): $(grep -m1 'DPI SCOREBOARD' <<<"$log")"
                failed=1
            fi
        else
            caught=$(grep -o -m1 'DPI SCOREBOARD FAIL cycle [0-9]*: [a-z_]* = [^ ]* but the model registers [^ ]*' <<<"$log" || true)
            if [ "$rc" != 0 ] && [ -n "$caught" ]; then
                say "ok   verilator dpi $unit, planted bug ($what): ${caught#DPI SCOREBOARD FAIL }"
            else
                say "FAIL verilator dpi $unit, planted bug ($what): not caught (exit $rc)"
                failed=1
            fi
        fi
    done
done
dir="$out/dpi/network"
rm -rf "$dir"
mkdir -p "$dir"
vbuild "$dir" tb_network "$here/dpi/tb_dpi_network.sv"
net_out=$(cd "$dir" && ./obj/vtb 2>&1) || { echo "$net_out"; failed=1; }
deliveries_match "verilator dpi network" "$net_out"
if grep -q '^REFUSED node 40 does not exist' <<<"$net_out"; then
    say "ok   verilator dpi network: a node that does not exist comes back as WC_EINVAL with its message"
else
    say "FAIL verilator dpi network: node 40 was not refused by name"
    failed=1
fi

echo
echo "live.sh summary:"
printf '  %s\n' "${summary[@]}"
exit "$failed"

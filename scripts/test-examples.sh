#!/usr/bin/env bash
# The examples (`cargo run --release --example NAME`) meet bad input and a
# closed pipe as the command-line tool does: an argument an example would
# ignore, or cannot read, is refused by name (exit status 1, one line on
# standard error, nothing on standard output), and output to a pipe already
# closed ends the example quietly (nothing on standard error). The examples
# are built here first, so that what runs is the checkout's.
#
#   scripts/test-examples.sh
#
# Prints "ok examples: ..." on success; a failure prints
# "FAIL examples: ..." and exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() { echo "FAIL examples: $*" >&2; exit 1; }

cargo build --release --examples --quiet || fail "cargo build --release --examples failed"
bin=target/release/examples

refused=0
refuse() {
    local want=$1; shift
    local out err status=0
    out=$(mktemp); err=$(mktemp)
    "$bin/$1" "${@:2}" >"$out" 2>"$err" || status=$?
    [ "$status" = 1 ] || fail "$*: exit status $status, not 1 ($(head -c 300 "$err"))"
    [ ! -s "$out" ] || fail "$*: printed on standard output: $(head -c 300 "$out")"
    [ "$(cat "$err")" = "$want" ] || fail "$*: said '$(cat "$err")', not '$want'"
    rm -f "$out" "$err"
    refused=$((refused + 1))
}
refuse "error: configuration: arguments = 1000000: this example takes none (\`cargo run --release --example speed\`)" speed 1000000
refuse "error: configuration: arguments = mesh:8x8: this example takes none (\`cargo run --release --example saturation\`)" saturation mesh:8x8
refuse "error: configuration: arguments = 4: one argument at most, a count of pairs" threads 3 4
refuse "error: configuration: pairs = 0: a count of pairs from 1 to 1,000" threads 0
refuse "error: configuration: arguments = fst: one argument at most, a number of signals" wave_scale 10 fst
refuse "error: configuration: signals = many: a number of signals from 1 to 10,000,000" wave_scale many
refuse "error: configuration: switches = lots: a number of switches" scale 8 lots

# Each example with its standard output a pipe whose reading end is closed
# before it starts: the first print ends it, by SIGPIPE, and it says
# nothing (a Rust program that ignores SIGPIPE fails the print and panics).
quiet=0
closed_pipe() {
    python3 - "$bin/$1" "${@:2}" <<'PY' || fail "$* to a closed pipe"
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
p = subprocess.run(sys.argv[1:], stdout=w, stderr=subprocess.PIPE, timeout=300)
os.close(w)
err = p.stderr.decode(errors="replace")
if p.returncode not in (0, -13) or err:
    print(f"exit status {p.returncode}, standard error: {err[:300]!r}", file=sys.stderr)
    sys.exit(1)
PY
    quiet=$((quiet + 1))
}
closed_pipe speed
closed_pipe saturation
closed_pipe threads 1
closed_pipe wave_scale 1000
closed_pipe scale 8

echo "ok examples: $refused arguments refused by name, $quiet examples quiet on a closed pipe"

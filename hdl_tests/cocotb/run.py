#!/usr/bin/env python3
"""Runs the cocotb scoreboard (scoreboard.py) of every Verilog twin under
Icarus Verilog and Verilator with cocotb's Python runner: each twin must
agree with the wormcast model at every cycle, and each planted bug
(mutants.py) must be caught, with the signal and cycle of its first
difference.

    python hdl_tests/cocotb/run.py [--sim icarus|verilator|all] [--cycles N] [--seed S] [--out DIR]

Exit status 0 only when every twin passes and every planted bug is
reported. A simulator that is not installed is a skip, said so, except
with CI=true, where it is a failure.
"""

import argparse
import json
import os
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from cocotb.runner import get_runner, get_results  # noqa: E402

from mutants import MUTANTS, plant  # noqa: E402

# unit: (Verilog parameters, the Python constructor's arguments), the sizes
# hdl_tests/run.sh uses
UNITS = {
    "bitstring-decode": ({"N": 16, "P": 6}, {"nodes": 16, "ports": 6}),
    "ssr-md-decode": ({"P": 6, "S": 8}, {"ports": 6, "switches": 8}),
    "repl-buffer": ({"C": 12, "K": 4, "P": 3}, {"chunks": 12, "chunk_flits": 4, "ports": 3}),
}
TOOLS = {"icarus": "iverilog", "verilator": "verilator"}


def one(sim, unit, source, out, cycles, seed):
    """Builds `source` under `sim` and runs the scoreboard; returns
    (tests, failed, first difference or None)."""
    params, args = UNITS[unit]
    module = MUTANTS[unit][0]
    build = out / "build"
    shutil.rmtree(build, ignore_errors=True)
    report = out / "difference.json"
    report.unlink(missing_ok=True)
    runner = get_runner(sim)
    build_args = ["-Wno-fatal", "-Wno-lint", "-Wno-style"] if sim == "verilator" else []
    runner.build(
        verilog_sources=[source],
        hdl_toplevel=module,
        parameters=params,
        build_args=build_args,
        build_dir=build,
        always=True,
    )
    results = runner.test(
        hdl_toplevel=module,
        test_module="scoreboard",
        extra_env={
            "WORMCAST_UNIT": unit,
            "WORMCAST_PARAMS": json.dumps(args),
            "WORMCAST_CYCLES": str(cycles),
            "WORMCAST_SEED": str(seed),
            "WORMCAST_REPORT": str(report),
            "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]),
        },
        build_dir=build,
        test_dir=out,
    )
    tests, failed = get_results(Path(results))
    diff = json.loads(report.read_text()) if report.exists() else None
    return tests, failed, diff


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sim", default="all", choices=["icarus", "verilator", "all"])
    ap.add_argument("--cycles", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "wormcast-cocotb"))
    a = ap.parse_args()
    sims = ["icarus", "verilator"] if a.sim == "all" else [a.sim]
    ci = os.environ.get("CI") == "true"
    lines, ok = [], True
    for sim in sims:
        if shutil.which(TOOLS[sim]) is None:
            if ci:
                lines.append(f"FAIL {sim}: {TOOLS[sim]} is not installed (CI=true: a missing tool is a failure)")
                ok = False
            else:
                lines.append(f"skip {sim}: {TOOLS[sim]} is not installed")
            continue
        for unit in UNITS:
            module = MUTANTS[unit][0]
            out = Path(a.out) / sim / unit
            tests, failed, diff = one(
                sim, unit, HERE.parent / "rtl" / f"{module}.v", out / "twin", a.cycles, a.seed
            )
            if tests == 1 and failed == 0 and diff is None:
                lines.append(f"ok   {sim} {unit}: {a.cycles} cycles, every output equal to the model's")
            else:
                ok = False
                why = f"first difference {diff}" if diff else f"no difference recorded: the log in {out / 'twin'} says why"
                lines.append(f"FAIL {sim} {unit}: {failed} of {tests} tests failed, {why}")
            source, what = plant(unit, out / "mutant")
            tests, failed, diff = one(sim, unit, source, out / "mutant", a.cycles, a.seed)
            if failed == 1 and diff is not None:
                lines.append(
                    f"ok   {sim} {unit}, planted bug ({what}): caught at cycle "
                    f"{diff['cycle']} on {diff['signal']} (device {diff['device']}, model {diff['model']})"
                )
            else:
                ok = False
                lines.append(f"FAIL {sim} {unit}, planted bug ({what}): not caught ({failed} of {tests} failed)")
    print("\n".join(lines))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""cocotb scoreboard of a Verilog twin against the wormcast model.

The device under test is one of the units in hdl_tests/rtl (or its planted
bug, see mutants.py); the Python model is the same unit of the wormcast
package with the same parameters. Every cycle the same inputs go to both:
they are driven half a cycle before a rising edge, the model takes its
edge with them, and after the edge every output of the device is compared
with what the model registered. The first difference fails the test with
the signal, the cycle and both values.

Stimulus: the random and corner-case vectors the Verilog testbenches use
(``Unit.stimulus``: switches of random networks, headers to every case of
the contract, resets), then blocks of uniformly random values on every
input (rare resets), then every input all ones and all zeros.

Set by the runner (run.py): WORMCAST_UNIT (``bitstring-decode``, ...),
WORMCAST_PARAMS (JSON of the constructor's arguments), WORMCAST_CYCLES,
WORMCAST_SEED; WORMCAST_REPORT names a file that receives the first
difference as JSON (signal, cycle, device, model), for the runner.
"""

import json
import os
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge

import wormcast

MODELS = {
    "bitstring-decode": wormcast.BitStringDecode,
    "ssr-md-decode": wormcast.SsrMdDecode,
    "repl-buffer": wormcast.ReplBuffer,
}


def stimulus(model, cycles, seed):
    """The vectors of one run: the testbenches' stimulus for the first half,
    uniformly random values, then the extremes."""
    rng = random.Random(seed)
    widths = {name: width for name, d, width in model.ports if d == "in"}
    first = max(1, cycles // 2)
    vectors = model.stimulus(first, seed)
    while len(vectors) < cycles - 2:
        v = {name: rng.getrandbits(w) for name, w in widths.items()}
        v["rst"] = int(rng.random() < 0.01)
        vectors.append(v)
    vectors.append({name: (1 << w) - 1 for name, w in widths.items()} | {"rst": 0})
    vectors.append({name: 0 for name in widths})
    return vectors[:cycles]


def show(value, width):
    return f"0x{value:0{(width + 3) // 4}x}"


def difference(cycle, name, got, want, width, inputs):
    """Records the first difference for the runner and fails the test."""
    text = (
        f"cycle {cycle}: {name} = {got} but the model registers {show(want, width)}; "
        f"inputs {inputs}"
    )
    report = os.environ.get("WORMCAST_REPORT")
    if report:
        with open(report, "w") as f:
            json.dump({"signal": name, "cycle": cycle, "device": got, "model": show(want, width)}, f)
    raise AssertionError(text)


@cocotb.test()
async def scoreboard(dut):
    """Every output of the device equals the model's at every rising edge."""
    unit = os.environ["WORMCAST_UNIT"]
    params = json.loads(os.environ.get("WORMCAST_PARAMS", "{}"))
    cycles = int(os.environ.get("WORMCAST_CYCLES", "3000"))
    seed = int(os.environ.get("WORMCAST_SEED", "7"))
    model = MODELS[unit](**params)
    widths = {name: width for name, _, width in model.ports}
    outputs = model.outputs
    # Every port the model has must be on the device: a missing one is a
    # failure here, never a signal left out of the comparison.
    handles = {name: getattr(dut, name) for name in widths}
    for name in model.inputs:
        handles[name].value = 0
    # In simulator steps: the twins declare no timescale.
    cocotb.start_soon(Clock(dut.clk, 2, units="step").start(start_high=False))
    compared = 0
    for c, v in enumerate(stimulus(model, cycles, seed)):
        for name, x in v.items():
            handles[name].value = x
        want = model.step(**v)
        await RisingEdge(dut.clk)
        await ReadOnly()
        for name in outputs:
            got = handles[name].value
            if not got.is_resolvable:
                difference(c, name, got.binstr, want[name], widths[name], v)
            if got.integer != want[name]:
                difference(c, name, show(got.integer, widths[name]), want[name], widths[name], v)
            compared += 1
        await FallingEdge(dut.clk)
    assert compared == cycles * len(outputs)
    dut._log.info(
        "%s: %d cycles, %d outputs compared every cycle, no difference",
        unit, cycles, len(outputs),
    )

"""The units with Verilog twins, stepped from Python by their port names."""

import re
from pathlib import Path

import pytest

import wormcast

ROOT = Path(__file__).resolve().parents[2]


def clog2(x):
    return max(0, (int(x) - 1).bit_length())


def evaluate(expr, env):
    """A Verilog constant expression of the twins (+, -, *, /, <=, >, ?:,
    $clog2) with the parameters in env."""
    expr = expr.strip().replace("$clog2", "clog2").replace("/", "//")
    m = re.fullmatch(r"\((.*)\)\s*\?\s*(.*?)\s*:\s*(.*)", expr)
    if m:
        expr = f"(({m.group(2)}) if ({m.group(1)}) else ({m.group(3)}))"
    return eval(expr, {"clog2": clog2}, dict(env))


def verilog_ports(module, params):
    """(name, direction, width) of every port but clk of
    hdl_tests/rtl/<module>.v, its widths evaluated with the parameters
    given and the module's localparams."""
    text = (ROOT / "hdl_tests" / "rtl" / f"{module}.v").read_text()
    env = dict(params)
    for m in re.finditer(r"^\s*localparam\s+(\w+)\s*=\s*([^;]+);", text, re.M):
        env[m.group(1)] = evaluate(m.group(2), env)
    ports = []
    decl = r"^\s*(input|output)\s+(?:wire|reg)?\s*(?:\[([^\]]+):0\])?\s*(\w+)\s*[,;)]?"
    for m in re.finditer(decl, text, re.M):
        direction, msb, name = m.groups()
        if name in ("clk", "integer"):
            continue
        width = 1 if msb is None else evaluate(msb, env) + 1
        ports.append((name, "in" if direction == "input" else "out", width))
    return ports


@pytest.mark.parametrize(
    "unit",
    [
        wormcast.BitStringDecode(nodes=16, ports=6),
        wormcast.BitStringDecode(nodes=40, ports=5),
        wormcast.SsrMdDecode(ports=6, switches=8),
        wormcast.ReplBuffer(chunks=12, chunk_flits=4, ports=3),
    ],
    ids=repr,
)
def test_port_names_and_widths_are_the_verilog_modules(unit):
    assert unit.ports == verilog_ports(unit.module, unit.parameters)
    assert unit.name in wormcast.units()


def test_the_bit_string_unit_decodes_each_case_as_its_contract_says():
    u = wormcast.BitStringDecode(nodes=8, ports=3)
    # Port 0 goes up; ports 1 and 2 reach nodes 0-3 and 4-5 going down.
    restricted = (0b00001111 << 8) | (0b00110000 << 16)
    u.set(total=0b00111111, restricted=restricted, up_ports=0b001)
    out = u.step(hdr_valid=1, ud_in=0, dests=0b00010010)
    assert out == {
        "valid": 1,
        "err": 0,
        "ud_out": 0,
        "replicate": 0b110,
        "choice": 0,
        "hdr_out": (0b00000010 << 8) | (0b00010000 << 16),
    }
    # A destination beyond the switch's reach with the up-down bit set:
    # up, unchanged.
    out = u.step(ud_in=1, dests=0b10000001)
    assert (out["ud_out"], out["choice"], out["replicate"], out["err"]) == (1, 0b001, 0, 0)
    # The same going down: error 2, every other output but valid 0.
    out = u.step(ud_in=0)
    assert out == {"valid": 1, "err": 2, "ud_out": 0, "replicate": 0, "choice": 0, "hdr_out": 0}
    # No destination: error 1.
    assert u.step(dests=0)["err"] == 1
    # Reset wins over everything.
    assert u.step(rst=1, dests=0b1)["valid"] == 0
    assert u.cycle == 5
    assert u.get("dests") == 1 and u.get("err") == 0


@pytest.mark.parametrize(
    "make",
    [
        lambda: wormcast.BitStringDecode(nodes=16, ports=6),
        lambda: wormcast.SsrMdDecode(ports=6, switches=8),
        lambda: wormcast.ReplBuffer(chunks=12, chunk_flits=4, ports=3),
    ],
)
def test_step_and_the_batch_calls_agree_on_the_testbench_stimulus(make):
    one, batch, packed = make(), make(), make()
    vectors = one.stimulus(600, seed=5)
    assert len(vectors) == 600 and set(vectors[0]) == set(one.inputs)
    stepped = [one.step(**v) for v in vectors]
    columns = {k: [v[k] for v in vectors] for k in batch.inputs}
    ran = batch.run(**columns)
    assert list(ran) == batch.outputs
    for k in batch.outputs:
        assert ran[k] == [s[k] for s in stepped], k
    widths = {name: w for name, _, w in packed.ports}
    as_bytes = {
        k: b"".join(x.to_bytes((widths[k] + 7) // 8, "little") for x in col)
        for k, col in columns.items()
    }
    got = packed.run(as_bytes=True, **as_bytes)
    for k in packed.outputs:
        per = (widths[k] + 7) // 8
        values = [int.from_bytes(got[k][i : i + per], "little") for i in range(0, len(got[k]), per)]
        assert values == ran[k], k
    # Each input holds its last value after a batch.
    assert all(batch.get(k) == vectors[-1][k] for k in batch.inputs)
    assert one.cycle == batch.cycle == packed.cycle == 600


def test_constant_inputs_hold_in_a_batch():
    u = wormcast.BitStringDecode(nodes=8, ports=3)
    out = u.run(total=0xFF, restricted=(1 << 24) - 1, up_ports=0, hdr_valid=1, dests=[1, 2, 0])
    assert out["replicate"] == [0b111, 0b111, 0]
    assert out["err"] == [0, 0, 1]
    assert u.run(3, hdr_valid=0)["valid"] == [0, 0, 0]


def test_bad_names_widths_and_values_are_refused_with_what_is_wrong():
    u = wormcast.BitStringDecode(nodes=16, ports=6)
    ins = "its inputs are rst, hdr_valid, ud_in, dests, total, restricted, up_ports"
    # Every refusal of a unit's port or value names the unit first.
    cases = [
        (lambda: u.step(dest=1), ValueError, f"bitstring-decode: no port `dest`; {ins}"),
        (lambda: u.step(valid=1), ValueError, f"bitstring-decode: `valid` is an output; {ins}"),
        # The value's own length, in the driver (a value of 64 bits or
        # fewer) and in the package (a wider int) alike.
        (lambda: u.step(dests=1 << 16), ValueError,
         "bitstring-decode: dests is 16 bits wide; the value given needs 17 bits"),
        (lambda: u.step(restricted=1 << 96), ValueError,
         "bitstring-decode: restricted is 96 bits wide; the value given needs 97 bits"),
        (lambda: u.step(restricted=1 << 200), ValueError,
         "bitstring-decode: restricted is 96 bits wide; the value given needs 201 bits"),
        (lambda: u.step(rst=2), ValueError, "bitstring-decode: rst is 1 bit wide; the value given needs 2 bits"),
        (lambda: u.step(dests=-1), ValueError, "bitstring-decode: dests = -1: a port value is not negative"),
        (lambda: u.step(dests="1"), TypeError, "bitstring-decode: dests: a port value is an int, not str"),
        (lambda: u.get("nothing"), ValueError,
         "bitstring-decode: no port `nothing`; its outputs are valid, err, ud_out, replicate, choice, hdr_out"),
        (lambda: u.get(3), TypeError, "name: a str, not int"),
        (lambda: u.run(dests=[1, 2], hdr_valid=[1]), ValueError,
         "bitstring-decode: hdr_valid has 1 value for 2 cycles (as many as dests has)"),
        (lambda: u.run(dests=[1], hdr_valid=[1, 0]), ValueError,
         "bitstring-decode: hdr_valid has 2 values for 1 cycle (as many as dests has)"),
        (lambda: u.run(dests=b"\x01"), ValueError,
         "bitstring-decode: dests: 1 byte is not a whole number of 2-byte values"),
        (lambda: u.run(dests=b"\x01\x00\x02\x00\x03"), ValueError,
         "bitstring-decode: dests: 5 bytes is not a whole number of 2-byte values"),
        (lambda: u.run(hdr_valid=1), ValueError,
         "bitstring-decode: give the number of cycles, or an input with one value per cycle"),
        (lambda: u.run(dests=[1, 1 << 16]), ValueError,
         "bitstring-decode: cycle 1: dests is 16 bits wide; the value given needs 17 bits"),
        (lambda: u.run(dests=3.5), TypeError,
         "bitstring-decode: dests: give an int, a sequence of ints or bytes, not float"),
        (lambda: u.run(2, as_bytes=None), TypeError, "as_bytes: a bool, not NoneType"),
        (lambda: u.run(2, as_bytes=1), TypeError, "as_bytes: a bool, not int"),
        # Every output of every cycle is held: 10^10 cycles asked for 80 GB
        # at once and ended the process.
        (lambda: u.run(10**10), ValueError,
         "bitstring-decode: cycles = 10000000000: at most 100,000,000 cycles a call (every output of every "
         "cycle is held in a list); call run again for more"),
        (lambda: wormcast.BitStringDecode(nodes=0), ValueError, "nodes = 0: must be 1 to 1024"),
        (lambda: wormcast.SsrMdDecode(switches=65), ValueError, "switches = 65: must be 2 to 64"),
        (lambda: wormcast.ReplBuffer(ports=17), ValueError, "ports = 17: must be 1 to 16 readers"),
        (lambda: wormcast.BitStringDecode(nodes=2**40), ValueError,
         "nodes = 1099511627776: must be a whole number from 0 to 4294967295"),
        (lambda: wormcast.ReplBuffer(chunk_flits=-1), ValueError,
         "chunk_flits = -1: must be a whole number from 0 to 4294967295"),
        (lambda: u.stimulus(-1), ValueError, "cycles = -1: must be a whole number"),
        (lambda: u.stimulus(3, seed=-1), ValueError, "seed = -1: must be a whole number from 0 to 18446744073709551615"),
        (lambda: u.run(-2, hdr_valid=1), ValueError, "cycles = -2: must be a whole number"),
    ]
    for call, kind, text in cases:
        with pytest.raises(kind) as e:
            call()
        # The whole message, or its start where the rest is a range.
        got = str(e.value)
        assert got == text or (text.endswith("whole number") and got.startswith(text)), (text, got)
    # A refused batch changes nothing.
    assert u.cycle == 0 and u.get("dests") == 0


def test_the_type_stubs_declare_exactly_what_the_module_has():
    import ast

    stubs = ast.parse((ROOT / "python" / "wormcast" / "_wormcast.pyi").read_text())
    declared = {}
    for node in stubs.body:
        if isinstance(node, ast.ClassDef):
            names = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
            declared[node.name] = names - {"__init__", "__enter__", "__exit__"}
        elif isinstance(node, ast.FunctionDef):
            declared[node.name] = None
    module = wormcast._wormcast
    public = {k for k in dir(module) if not k.startswith("_")}
    assert public == set(declared), (public ^ set(declared))
    for name, members in declared.items():
        if members is None:
            continue
        cls = getattr(module, name)
        base = set(dir(Exception)) if issubclass(cls, Exception) else set(dir(object))
        own = {k for k in dir(cls) if not k.startswith("_")} - base
        if cls.__bases__[0] is not object and cls.__bases__[0].__module__ == cls.__module__:
            own -= set(dir(cls.__bases__[0]))
        assert own == members, (name, own ^ members)

"""The network model from Python: messages in, copies out, the same cycles as
the Rust API and the command-line tool report."""

import json
import os
import signal
import subprocess
import warnings
from pathlib import Path

import pytest

import wormcast

ROOT = Path(__file__).resolve().parents[2]
IRREGULAR = "irregular:switches=8,ports=8,nodes=32,seed=1"


def wormcast_bin():
    path = Path(os.environ.get("WORMCAST", ROOT / "target" / "release" / "wormcast"))
    if not path.exists():
        pytest.fail(f"the wormcast command is not built at {path} (cargo build --release)")
    return str(path)


def run_json(*args):
    out = subprocess.run([wormcast_bin(), *args], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def test_forgotten_deliveries_leave_the_list_and_stay_counted():
    net = wormcast.Network(IRREGULAR)
    seen = []
    for r in range(3):
        ids = [net.send(s, [(s + 1 + r) % 32], flits=4) for s in range(8)]
        while not all(net.done(i) for i in ids):
            seen += net.step()
        assert len(net.deliveries()) == 8, "only the copies not forgotten"
        assert net.forget_deliveries() == 8
        assert net.deliveries() == [] and net.forget_deliveries() == 0
        assert net.stats()["delivered"] == 8 * (r + 1)
    assert sorted(d.msg for d in seen) == list(range(24)), "each copy returned by step once"
    net.send(0, [9], flits=4)
    net.drain()
    assert net.forget_deliveries() == 0, "a copy step has not returned is kept"
    assert [d.msg for d in net.step()] == [24]
    assert net.forget_deliveries() == 1


def test_a_bit_string_multicast_reaches_every_destination_once_at_the_cycles_rust_reports(tmp_path):
    dests = [4, 7, 20, 31]
    net = wormcast.Network(IRREGULAR)
    assert (net.router, net.routing, net.scheme, net.nodes) == ("cut-through", "updown", "bit-string", 32)
    msg = net.send(3, dests, flits=20)
    assert msg == 0 and net.in_flight == 4
    end = net.drain()
    got = net.deliveries()
    assert sorted(d.node for d in got) == dests, "every destination exactly once"
    assert all(d.msg == 0 and d.src == 3 and d.created == 0 for d in got)
    assert end == max(d.cycle for d in got) and net.done(0) and net.in_flight == 0

    # The Rust API through the command line: the same message as a trace.
    trace = tmp_path / "one.csv"
    trace.write_text("0,3,4;7;20;31,20\n")
    r = run_json("run", "--topology", IRREGULAR, "--trace", str(trace), "--json")
    assert sorted((node, cycle) for _, node, cycle in r["deliveries"]) == sorted(d.key() for d in got)

    # And seed 000's system driven directly (a bit-string worm of the same
    # length: a 1-flit unicast header, so 19 payload flits), on the same
    # network written as a topology file.
    net_file = tmp_path / "net.toml"
    subprocess.run(
        [wormcast_bin(), "topo", "gen", "--switches", "8", "--ports", "8", "--nodes", "32",
         "--connectivity", "0.8", "--seed", "1", "-o", str(net_file)],
        check=True, capture_output=True,
    )
    worms = run_json("run", "--topology", str(net_file), "--traffic", "worm", "--worm", "bit-string",
                     "--src", "3", "--dests", "4,7,20,31", "--payload", "19", "--json")
    assert sorted((w["dst"], w["arrive"]) for w in worms) == sorted(d.key() for d in got)
    assert {w["len"] for w in worms} == {d.flits for d in got} == {24}


def test_hand_built_worms_arrive_as_the_command_line_sends_them(tmp_path):
    net_file = tmp_path / "net.toml"
    subprocess.run(
        [wormcast_bin(), "topo", "gen", "--switches", "8", "--ports", "8", "--nodes", "32",
         "--connectivity", "0.8", "--seed", "1", "-o", str(net_file)],
        check=True, capture_output=True,
    )
    for kind, dests, path in [("multi-drop", [29, 21], [7, 5]), ("ssr", [4, 5], None), ("bit-string", [4, 7, 20], None)]:
        net = wormcast.Network(str(net_file))
        net.send_worm(3, kind, dests, path=path, payload=16)
        net.drain()
        args = ["run", "--topology", str(net_file), "--traffic", "worm", "--worm", kind, "--src", "3",
                "--dests", ",".join(map(str, dests)), "--payload", "16", "--json"]
        if path:
            args += ["--path", ",".join(map(str, path))]
        worms = run_json(*args)
        assert sorted((w["dst"], w["arrive"]) for w in worms) == sorted(d.key() for d in net.deliveries()), kind
    net = wormcast.Network(str(net_file))
    with pytest.raises(ValueError) as e:
        net.send_worm(3, "multi-drop", [29])
    assert "needs a path" in str(e.value)
    with pytest.raises(ValueError) as e:
        wormcast.Network("mesh:4x4").send_worm(0, "bit-string", [5])
    assert "only the cut-through switch" in str(e.value)
    # Half a million switches' routing tables take 500 GB.
    with pytest.raises(MemoryError) as e:
        wormcast.Network("irregular:switches=500000,ports=8,nodes=500000")
    assert str(e.value).startswith(
        "the routing tables of 500000 switches take 500000 MB (2 x switches² port masks) and the rest"
    ), str(e.value)
    # So do 16,777,216 wormhole routers of a 24-cube (442,918 MB
    # reckoned), and a 4096x4096 mesh of tree routers: a direct network
    # is refused before it is built, as a MemoryError too (a ValueError
    # before December 2).
    for topology, want in [
        ("hypercube:24", "16777216 wormhole routers (419430400 ports) is reckoned at 442918 MB"),
        ("mesh:4096x4096", "16777216 tree routers (83886080 ports) is reckoned at 102005 MB"),
    ]:
        with pytest.raises(MemoryError) as e:
            wormcast.Network(topology)
        assert f"topology = {topology}: a simulation of its {want}, more than the" in str(
            e.value
        ), str(e.value)


@pytest.mark.parametrize(
    "topology,router,scheme,src,dests",
    [
        ("mesh:4x4", "tree", "tree", 5, [0, 3, 12, 15, 6]),
        ("mesh:4x4", "tree", "pseudo", 5, [0, 3, 12, 15, 6]),
        ("torus:4x4", "tree", "tree", 0, [5, 10, 15]),
        ("hypercube:4", "wormhole", "path", 0, [3, 5, 9, 15]),
        ("mesh:3x3x3", "cut-through", "multi-drop", 0, [26, 13, 8]),
        ("mesh:3x3x3", "cut-through", "ssr", 0, [26, 13, 8]),
    ],
)
def test_every_router_model_delivers_each_copy_once(topology, router, scheme, src, dests):
    net = wormcast.Network(topology, router=router, scheme=scheme)
    assert net.scheme == scheme
    # 5 flits: a tree multicast's data must fit the 4-flit auxiliary buffers.
    net.send(src, dests, flits=5)
    copies = []
    while net.in_flight:
        copies += net.step(7)
        assert net.cycle < 10_000
    assert sorted(c.node for c in copies) == sorted(dests)
    assert copies == net.deliveries()
    s = net.stats()
    assert (s["messages"], s["delivered"], s["in_flight"]) == (1, len(dests), 0)
    assert s["latency"]["max"] == max(c.cycle for c in copies)


def _cycles_stamped(vcd_text):
    """The time stamps of a VCD's text in cycles of 5 ns (a falling edge
    halfway through one)."""
    unit_ps = {"1ps": 1, "10ps": 10, "100ps": 100, "1ns": 1000}[
        vcd_text.split("$timescale")[1].split("$end")[0].replace(" ", "")
    ]
    return [int(line[1:]) * unit_ps / 5000 for line in vcd_text.splitlines() if line.startswith("#")]


def test_a_run_configuration_builds_the_network_and_its_waveform(tmp_path):
    vcd = tmp_path / "w.vcd"
    cfg = tmp_path / "exp.toml"
    cfg.write_text(
        '[network]\ntopology = "mesh:4x4"\nrouter = "wormhole"\n'
        f'[output]\nvcd = "{vcd}"\ntrace_from = 2\ntrace_to = 10\ntrace_scope = ["top.r5"]\n'
    )
    with wormcast.Network(config=cfg) as net:
        assert (net.router, net.topology) == ("wormhole", "mesh:4x4")
        net.send(5, [10], flits=6)
        net.drain()
    text = vcd.read_text()
    assert "$scope module r5 $end" in text and "$scope module r6 $end" not in text
    assert vcd.with_suffix(".gtkw").exists() and vcd.with_suffix(".sucl").exists()
    # The window's first cycle opens the file, the rising edge after its
    # last closes it.
    stamps = _cycles_stamped(text)
    assert min(stamps) == 2 and max(stamps) == 11


def test_arguments_beside_a_run_configuration_narrow_its_waveform(tmp_path):
    # As the command line's options do: a window argument narrows the
    # file's waveform without vcd given again, and vcd moves the waveform
    # and keeps the file's window.
    vcd, moved = tmp_path / "w.vcd", tmp_path / "moved.vcd"
    cfg = tmp_path / "exp.toml"
    cfg.write_text(
        '[network]\ntopology = "mesh:4x4"\nrouter = "wormhole"\n'
        f'[output]\nvcd = "{vcd}"\ntrace_from = 2\ntrace_scope = ["top.r5"]\n'
    )
    for args, path, first, last, scopes in [
        # trace_to alone: the file's vcd, first cycle and scope, ended at 7.
        ({"trace_to": 7}, vcd, 2, 8, ["r5"]),
        # trace_scope alone: the file's window, the scope given.
        ({"trace_scope": ["top.r6"]}, vcd, 2, None, ["r6"]),
        # vcd alone: written there, with the file's window.
        ({"vcd": moved}, moved, 2, None, ["r5"]),
    ]:
        for p in (vcd, moved):
            p.unlink(missing_ok=True)
        with wormcast.Network(config=cfg, **args) as net:
            net.send(5, [10], flits=6)
            net.drain()
            end = net.cycle
        text = path.read_text()
        stamps = _cycles_stamped(text)
        lo, hi = min(stamps), max(stamps)
        # Without a last cycle the waveform ends as a whole run's does: its
        # last cycle is the network's cycle at close, closed one later.
        assert (lo, hi) == (first, end + 1 if last is None else last), (args, lo, hi, end)
        for r in ["r5", "r6"]:
            assert (f"$scope module {r} $end" in text) == (r in scopes), (args, r)
        assert not (moved if path == vcd else vcd).exists(), args


def test_a_save_file_a_user_wrote_is_kept_with_a_warning(tmp_path):
    vcd = tmp_path / "k.vcd"
    gtkw = vcd.with_suffix(".gtkw")

    def run():
        net = wormcast.Network("mesh:2x2", vcd=str(vcd))
        net.send(0, [3], flits=4)
        net.drain()
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            assert str(net.close()) == str(vcd)
        return [str(w.message) for w in said if w.category is UserWarning]

    assert run() == []
    assert gtkw.read_text().startswith("[*] GTKWave save file written by wormcast")
    saved = '[dumpfile] "k.vcd"\n[savefile] "k.gtkw"\n'
    gtkw.write_text(saved)
    assert run() == [
        f"{gtkw} was left as it was: it is a save file wormcast did not write "
        "(remove it for wormcast's view)"
    ]
    assert gtkw.read_text() == saved


def test_bad_networks_and_messages_are_refused_with_what_is_wrong(tmp_path):
    net = wormcast.Network("mesh:4x4")
    cases = [
        (lambda: net.send(0, [16]), ValueError, "node 16 does not exist"),
        (lambda: net.send(0, [0]), ValueError, "the source 0 is among its own destinations"),
        (lambda: net.send(0, [3, 3]), ValueError, "node 3 is listed twice"),
        (lambda: net.send(0, [3], flits=1), ValueError, "a packet holds its 1-flit header"),
        (lambda: net.send(0, "x"), TypeError, "dests: a node (int) or a sequence of nodes"),
        (lambda: net.done(0), ValueError, "message 0 was not sent: none has been sent yet"),
        # An int out of an argument's range names the argument (Python's
        # OverflowError named none, and a node past 2**32 was "not an int").
        (lambda: net.send(-1, 3), ValueError, "src = -1: must be a whole number from 0 to 4294967295"),
        (lambda: net.send(0, 2**40), ValueError, "dests: node 1099511627776 must be a whole number from 0 to 4294967295"),
        (lambda: net.send(0, [1, -2]), ValueError, "dests: node -2 must be a whole number"),
        (lambda: net.send(0, [1, 2.0]), TypeError, "dests: a node is an int, not float"),
        (lambda: net.send(0, 3, flits=2**40), ValueError, "flits = 1099511627776: must be a whole number from 0 to 4294967295"),
        (lambda: net.send(0, 3, flits=2.5), TypeError, "flits: an int, not float"),
        (lambda: net.step(-1), ValueError, "cycles = -1: must be a whole number from 0 to 18446744073709551615"),
        (lambda: net.drain(-5), ValueError, "max_cycles = -5: must be a whole number"),
        (lambda: net.done(-1), ValueError, "msg = -1: must be a whole number"),
        (lambda: net.send_worm(0, "ssr", [1], path=[1, -1]), ValueError, "path: node -1 must be a whole number"),
        (lambda: net.send_worm(0, "ssr", [1], payload=-3), ValueError, "payload = -3: must be a whole number"),
        (lambda: wormcast.Network("mesh:4x4", seed=-1), ValueError, "seed = -1: must be a whole number"),
        (lambda: wormcast.Network("mesh:4x4", vcd=tmp_path / "w.vcd", trace_from=-1), ValueError,
         "trace_from = -1: must be a whole number"),
        (lambda: wormcast.Network("mesh:4x4", vcd=tmp_path / "w.vcd", trace_to=2**64), ValueError,
         "trace_to = 18446744073709551616: must be a whole number"),
        (lambda: wormcast.Network("mesh:0x4"), ValueError, "mesh"),
        (lambda: wormcast.Network("ring:8"), ValueError, "ring:8"),
        (lambda: wormcast.Network("torus:4x4", router="wormhole"), ValueError,
         "the router models there are tree, cut-through"),
        (lambda: wormcast.Network("mesh:4x4", scheme="path"), ValueError, "multicasts by tree, pseudo"),
        (lambda: wormcast.Network(config=tmp_path / "none.toml"), OSError, "none.toml"),
        (lambda: wormcast.Network("mesh:4x4", vcd=tmp_path / "x.vcd", trace_scope=["top.r99"]),
         ValueError, "top.r99"),
        # A string argument of another type names the argument in its
        # message (PyO3's own named it only in a note).
        (lambda: wormcast.Network(7), TypeError, "topology: a str, not int"),
        (lambda: wormcast.Network("mesh:4x4", router=3), TypeError, "router: a str, not int"),
        (lambda: wormcast.Network("mesh:4x4", routing=b"dor"), TypeError, "routing: a str, not bytes"),
        (lambda: wormcast.Network("mesh:4x4", scheme=["tree"]), TypeError, "scheme: a str, not list"),
        (lambda: wormcast.Network("mesh:4x4", vcd=tmp_path / "x.vcd", trace_scope="top.r1"), TypeError,
         'trace_scope: a sequence of scope paths (str), as ["top.r0"]'),
        (lambda: wormcast.Network("mesh:4x4", vcd=tmp_path / "x.vcd", trace_scope=["top.r1", 3]), TypeError,
         "trace_scope: a scope path is a str, not int"),
        (lambda: wormcast.Network(IRREGULAR).send_worm(0, 2, [1]), TypeError, "kind: a str, not int"),
    ]
    # What a configuration file says is not given beside it: the topology
    # and the seed were dropped without a word (the network was the file's
    # 4x4 mesh, not the torus asked for), as a window without a waveform.
    cfg = tmp_path / "c.toml"
    cfg.write_text('[network]\ntopology = "mesh:4x4"\nrouter = "wormhole"\n')
    for given in [{"topology": "torus:8x8"}, {"seed": 5}, {"router": "tree"}]:
        (name,) = given
        args = dict(given)
        topology = args.pop("topology", None)
        call = (lambda t=topology, a=args: wormcast.Network(t, config=cfg, **a))
        cases.append((call, ValueError,
                       f"{name}: give it in the configuration file {cfg} ([network] or [traffic])"))
    # A window where no waveform is written, refused as the command line
    # refuses it: no vcd given, nor in the file.
    for name in ["trace_from", "trace_to", "trace_scope"]:
        value, shown = (["top.r1", "top.r2"], "top.r1,top.r2") if name == "trace_scope" else (5, "5")
        cases.append((lambda n=name, v=value: wormcast.Network("mesh:4x4", **{n: v}), ValueError,
                      f"{name} = {shown}: limits a waveform, and none is written (no vcd is given)"))
        cases.append((lambda n=name, v=value: wormcast.Network(config=cfg, **{n: v}), ValueError,
                      f"{name} = {shown}: limits a waveform, and none is written (no output.vcd is given)"))
    # An empty list of scopes would write every scope, as None does.
    for call in [lambda: wormcast.Network("mesh:4x4", vcd=tmp_path / "e.vcd", trace_scope=[]),
                 lambda: wormcast.Network(config=cfg, vcd=tmp_path / "e.vcd", trace_scope=())]:
        cases.append((call, ValueError, "trace_scope = []: names no scope; give None to write every scope"))
    for call, kind, text in cases:
        with pytest.raises(kind) as e:
            call()
        assert text in str(e.value), (text, str(e.value))
    assert net.in_flight == 0 and net.stats()["messages"] == 0


def test_a_window_refusal_names_the_argument_given(tmp_path):
    # The package's own argument names, not the command line's options
    # (trace-from, --trace-from) nor the file's keys where the arguments
    # stand in for them.
    vcd = tmp_path / "w.vcd"
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'[network]\ntopology = "mesh:4x4"\n[output]\nvcd = "{vcd}"\ntrace_from = 5\ntrace_to = 3\n')
    for call, text in [
        (lambda: wormcast.Network("mesh:4x4", vcd=vcd, trace_from=900, trace_to=800),
         "configuration: trace_to = 800: before trace_from = 900; the window is empty"),
        (lambda: wormcast.Network(config=cfg, vcd=vcd, trace_from=900, trace_to=800),
         "configuration: trace_to = 800: before trace_from = 900; the window is empty"),
        (lambda: wormcast.Network(config=cfg),
         "configuration: output.trace_to = 3: before output.trace_from = 5; the window is empty"),
    ]:
        with pytest.raises(ValueError) as e:
            call()
        assert str(e.value) == text
    with pytest.raises(ValueError) as e:
        wormcast.Network("mesh:4x4", vcd=vcd, trace_scope=["top.nothere"])
    assert str(e.value).startswith(
        "configuration: trace_scope = top.nothere: no scope or signal of the waveform has that path; top holds r0, r1")
    net = wormcast.Network("mesh:4x4", vcd=vcd, trace_from=900)
    net.step(10)
    with pytest.raises(ValueError) as e:
        net.close()
    assert str(e.value) == "configuration: trace_from = 900: past the run's last cycle, 10: the waveform holds nothing"
    assert not vcd.exists()
    # A multi-drop worm's missing path is the argument `path`.
    with pytest.raises(ValueError) as e:
        wormcast.Network(IRREGULAR).send_worm(0, "multi-drop", [5])
    assert str(e.value) == "bad packet: a multi-drop worm needs a path, the switches it visits"


def test_a_waveform_is_not_written_over_the_files_the_network_is_built_from(tmp_path):
    topo = tmp_path / "net.toml"
    topo.write_text(
        "[[switch]]\nid = 0\nports = 4\n[[switch]]\nid = 1\nports = 4\n"
        "[[link]]\na = [0, 1]\nb = [1, 0]\n"
        "[[node]]\nid = 0\nat = [0, 2]\n[[node]]\nid = 1\nat = [1, 2]\n"
    )
    cfg = tmp_path / "run.toml"
    cfg.write_text(f'[network]\ntopology = "{topo}"\n')
    before = (topo.read_bytes(), cfg.read_bytes())
    for call, name in [
        (lambda: wormcast.Network(str(topo), vcd=topo), "net.toml"),
        (lambda: wormcast.Network(str(topo), vcd=tmp_path / "." / "net.toml"), "net.toml"),
        (lambda: wormcast.Network(config=cfg, vcd=cfg), "run.toml"),
        (lambda: wormcast.Network(config=cfg, vcd=topo), "net.toml"),
    ]:
        with pytest.raises(ValueError) as e:
            call()
        assert "which this command reads" in str(e.value) and name in str(e.value), str(e.value)
    assert (topo.read_bytes(), cfg.read_bytes()) == before
    # The file's own vcd naming the file is refused by its key, the
    # argument by its name.
    own = tmp_path / "own.toml"
    own.write_text(f'[network]\ntopology = "{topo}"\n[output]\nvcd = "{own}"\n')
    for call, name in [(lambda: wormcast.Network(config=own), "output.vcd"),
                       (lambda: wormcast.Network(config=cfg, vcd=cfg), "vcd")]:
        with pytest.raises(ValueError) as e:
            call()
        assert str(e.value).startswith(f"configuration: {name} = "), str(e.value)
    with wormcast.Network(str(topo), vcd=tmp_path / "w.vcd") as net:
        net.send(0, [1], flits=4)
        net.drain()
    assert (tmp_path / "w.vcd").read_text().startswith("$version")


def test_a_true_deadlock_is_raised_with_its_cycle(tmp_path):
    # Seed 003 Fig. 6: two tree multicasts that wait for each other when
    # pruning is off.
    cfg = tmp_path / "fig6.toml"
    cfg.write_text(
        '[network]\ntopology = "mesh:8x8"\nrouter = "tree"\n'
        "[tree]\nbuffer_flits = 6\naux_flits = 6\npruning = false\n"
    )
    net = wormcast.Network(config=cfg)
    a = [3 + 8 * 0, 0 + 8 * 5, 3 + 8 * 7]
    b = [3 + 8 * 6, 1 + 8 * 2, 3 + 8 * 1]
    # 6 data flits and the header, as `wormcast tree send --data 6 --aux 6`.
    net.send(6 + 8 * 5, a, flits=7)
    net.send(6 + 8 * 2, b, flits=7)
    with pytest.raises(wormcast.DeadlockError) as e:
        net.drain(100_000)
    assert "cycle" in str(e.value)
    assert isinstance(e.value, wormcast.WormcastError)


def test_a_drain_that_runs_out_says_so():
    net = wormcast.Network("mesh:4x4")
    m = net.send(0, [15], flits=200)
    with pytest.raises(wormcast.NotDrainedError) as e:
        net.drain(10)
    assert "did not drain within 10 cycles" in str(e.value)
    assert not net.done(m)
    # An id never sent is refused: waiting for it would never end.
    with pytest.raises(ValueError) as e:
        net.done(m + 1)
    assert str(e.value) == f"message {m + 1} was not sent: the ids sent run from 0 to {m}"
    net.drain()
    assert net.done(m)


def test_a_long_step_or_drain_is_interrupted_by_a_signal():
    # 3,000 packets of 2,000 flits through one injection channel keep the
    # network busy for 6,000,000 cycles: a SIGALRM whose handler raises
    # KeyboardInterrupt (as Ctrl-C's does) ends each call early; before,
    # the signal waited for the call to end.
    def interrupt(*_):
        raise KeyboardInterrupt
    old = signal.signal(signal.SIGALRM, interrupt)
    try:
        net = wormcast.Network("mesh:4x4")
        for _ in range(3000):
            net.send(0, [15], flits=2000)
        for call in [lambda: net.step(6_000_000), lambda: net.drain(10_000_000)]:
            signal.setitimer(signal.ITIMER_REAL, 0.02)
            with pytest.raises(KeyboardInterrupt):
                call()
            assert 0 < net.cycle < 6_000_000 and net.in_flight > 0, (net.cycle, net.in_flight)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def test_a_long_drain_runs_in_slices_and_reports_its_whole_limit():
    # 600 packets of 200 flits through one injection channel take more
    # than 120,000 cycles; the drain runs in slices of 65,536 cycles (so
    # that Ctrl-C is seen), and the one that runs out names the call's limit.
    net = wormcast.Network("mesh:4x4")
    ids = [net.send(0, [15], flits=200) for _ in range(600)]
    with pytest.raises(wormcast.NotDrainedError) as e:
        net.drain(100_000)
    assert "did not drain within 100000 cycles" in str(e.value), str(e.value)
    assert net.cycle == 100_000
    end = net.drain(100_000)
    assert all(net.done(m) for m in ids)
    assert 120_000 < end < 200_000 and net.cycle == end


def test_a_step_past_the_limit_is_refused_and_quiet_cycles_are_skipped():
    net = wormcast.Network("mesh:4x4")
    # Past 10^12 cycles a call is refused, before any cycle runs.
    with pytest.raises(ValueError) as e:
        net.step(10**12 + 1)
    assert str(e.value) == (
        "configuration: cycles = 1000000000001: a call simulates at most 1000000000000 cycles"
    )
    assert net.cycle == 0
    # A long step goes through the cycles in which nothing can happen in
    # one go (it stepped them one at a time: 10^9 engine steps), and
    # returns what arrived on the way.
    m = net.send(0, [15], flits=20)
    copies = net.step(10**9)
    assert [(c.msg, c.node) for c in copies] == [(m, 15)]
    assert net.cycle == 10**9
    assert copies == net.deliveries()

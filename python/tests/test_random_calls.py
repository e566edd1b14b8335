"""Random calls into the package, good and bad, as a script or a cocotb
scoreboard might make them. Every call returns or raises an ``Exception``
whose message names what was wrong (never a ``PanicException``, which is
not an ``Exception``, nor an empty message), and every message a network
accepted reaches exactly its destinations."""

import random

import pytest

import wormcast

# Values of every kind an argument might be given by mistake.
ANY = [0, 1, 2, 3, 8, 64, -1, 2**32, 2**64, 10**30, 1.5, float("nan"), True, None, "3", b"\x01", [1, 2], {}]
TOPOLOGIES = ["mesh:4x4", "torus:4x4", "hypercube:4", "irregular:switches=8,ports=8,nodes=32,seed=1",
              "mesh:2x2x2", "mesh:0x4", "ring:8", "", 5]
UNITS = [wormcast.BitStringDecode, wormcast.SsrMdDecode, wormcast.ReplBuffer]


class Calls:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.made = 0
        self.refused = 0

    def __call__(self, what, f, *args, **kwargs):
        """f(*args, **kwargs), or None if it was refused as it should be."""
        self.made += 1
        try:
            return f(*args, **kwargs)
        except Exception as e:  # noqa: BLE001 - every refusal is checked below
            self.refused += 1
            text = str(e)
            assert text.strip(), f"{what}: {type(e).__name__} with no message"
            assert not isinstance(e, wormcast.ModelFault), f"{what}: {text}"
            assert "panicked" not in text, f"{what}: {text}"
            if isinstance(e, TypeError):
                # A type refused names the argument or port it was given as.
                named = [a for a in ("src", "dests", "flits", "cycles", "max_cycles", "msg", "seed", "name",
                                     "nodes", "ports", "switches", "chunks", "chunk_flits", "payload", "path",
                                     "kind", "topology", "router", "as_bytes")
                         if text.startswith(a + ":")]
                unit = text.split(":")[0] in wormcast.units()
                positional = "positional argument" in text
                assert named or unit or positional, f"{what}: {text}"
            return None
        except BaseException as e:
            if isinstance(e, KeyboardInterrupt):
                raise
            pytest.fail(f"{what}: {type(e).__name__} is not an Exception: {e}")

    def value(self):
        return self.rng.choice(ANY)


def a_unit(call):
    rng = call.rng
    cls = rng.choice(UNITS)
    args = [rng.choice([call.value(), rng.choice([1, 2, 6, 16])]) for _ in range(rng.randint(0, 3))]
    u = call(f"{cls.__name__}{tuple(args)}", cls, *args)
    if u is None:
        return
    names = [p[0] for p in u.ports] + ["nope", 3]
    for _ in range(rng.randint(1, 8)):
        name = rng.choice(names)
        v = rng.choice([call.value(), rng.getrandbits(rng.choice([1, 8, 64, 200])),
                        [rng.randint(0, 300) for _ in range(rng.randint(0, 4))], bytes(rng.randint(0, 9))])
        op = rng.randrange(5)
        if op == 0 and isinstance(name, str):
            call(f"set {name}={v!r}", u.set, **{name: v})
        elif op == 1:
            call(f"get {name!r}", u.get, name)
        elif op == 2 and isinstance(name, str):
            call(f"step {name}={v!r}", u.step, **{name: v})
        elif op == 3 and isinstance(name, str):
            cycles = rng.choice([None, 0, 1, 5, -1, 1.5])
            call(f"run {cycles!r} {name}={v!r}", u.run, cycles, as_bytes=rng.choice([False, True, None]),
                 **{name: v})
        else:
            call("stimulus", u.stimulus, rng.choice([0, 1, 7, -1, 1.5]), rng.choice([1, -1, 2**64]))


def a_network(call):
    rng = call.rng
    topology = rng.choice(TOPOLOGIES)
    kwargs = {}
    if rng.random() < 0.2:
        kwargs["router"] = rng.choice(["tree", "wormhole", "cut-through", "junk", 3])
    if rng.random() < 0.2:
        kwargs["seed"] = rng.choice([0, 7, -1, 1.5])
    net = call(f"Network({topology!r}, {kwargs})", wormcast.Network, topology, **kwargs)
    if net is None:
        return 0
    n = net.nodes
    asked = {}
    for _ in range(rng.randint(1, 20)):
        op = rng.randrange(6)
        if op <= 2:
            # A message the network should take, but for its length on
            # the tree router (a multicast of at most its buffer's flits).
            src = rng.randrange(n)
            dests = rng.sample([x for x in range(n) if x != src], min(n - 1, rng.choice([1, 1, 2, 3, 8])))
            flits = rng.choice([3, 4, 5, 20])
            m = call(f"send({src}, {dests}, {flits})", net.send, src, dests, flits)
            if m is not None:
                asked[m] = sorted(dests)
        elif op == 3:
            src = rng.choice([rng.randrange(n), n, -1, 1.5, None])
            dests = rng.choice([[n], [-1], [], [0, 0], "1", [1.5], None, 2**40])
            call(f"send({src!r}, {dests!r})", net.send, src, dests, rng.choice([20, 0, -1, 2**32]))
        elif op == 4:
            cycles = rng.choice([0, 1, 10, 100, -1, 1.5, None])
            call(f"step({cycles!r})", net.step, cycles)
        else:
            call("done", net.done, rng.choice(list(asked) + [-1, 10**6, 2**64, None]))
    assert net.drain(200_000) == net.cycle
    got = {}
    for d in net.deliveries():
        got.setdefault(d.msg, []).append(d.node)
    assert {m: sorted(d) for m, d in got.items()} == asked, (topology, kwargs)
    return len(asked)


@pytest.mark.parametrize("seed", range(8))
def test_random_calls_are_refused_by_name_or_deliver_exactly(seed):
    call = Calls(seed)
    delivered = 0
    for _ in range(60):
        if call.rng.random() < 0.4:
            a_unit(call)
        else:
            delivered += a_network(call)
    # The seeds make calls of both kinds, and send messages that arrive.
    assert call.refused > 0 and call.made > call.refused
    assert delivered > 0

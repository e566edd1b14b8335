"""Cycles per second of the bit-string decode unit from Python (16 nodes, 6
ports), conversions in and out included: the batch call with lists of
ints, the batch call with packed bytes, and one `step` per cycle.

    python python/benches/batch.py [--cycles N] [--repeat R]

Prints the best of R runs of each, as cycles per second.
"""

import argparse
import random
import time

import wormcast


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cycles", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    rng = random.Random(1)
    n = a.cycles
    # A switch's configuration held, headers that change every cycle.
    fixed = dict(total=0xFFFF, restricted=(1 << 96) - 1 - (1 << 40), up_ports=0b000001)
    dests = [rng.getrandbits(16) for _ in range(n)]
    valid = [rng.getrandbits(1) for _ in range(n)]
    ud = [rng.getrandbits(1) for _ in range(n)]
    packed = {
        "dests": b"".join(x.to_bytes(2, "little") for x in dests),
        "hdr_valid": bytes(valid),
        "ud_in": bytes(ud),
    }

    def best(f, cycles):
        t = []
        for _ in range(a.repeat):
            u = wormcast.BitStringDecode(nodes=16, ports=6)
            u.set(**fixed)
            t0 = time.perf_counter()
            f(u)
            t.append(time.perf_counter() - t0)
        return cycles / min(t)

    lists = best(lambda u: u.run(dests=dests, hdr_valid=valid, ud_in=ud), n)
    as_bytes = best(lambda u: u.run(as_bytes=True, **packed), n)
    k = min(n, 200_000)

    def steps(u):
        for i in range(k):
            u.step(dests=dests[i], hdr_valid=valid[i], ud_in=ud[i])

    step = best(steps, k)
    print(f"run, lists of ints:  {lists:,.0f} cycles/s")
    print(f"run, packed bytes:   {as_bytes:,.0f} cycles/s")
    print(f"step, one per cycle: {step:,.0f} cycles/s")


if __name__ == "__main__":
    main()

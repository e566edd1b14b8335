//! The tree router's registers as a waveform (seed 003's router, traced the
//! way every unit of wormcast is): per router `top.r<node>`, per input
//! virtual channel its FIFO count, open message, branch mask, replay flag,
//! auxiliary buffer and stall counter, per output its owner, credits and
//! link register, and the router's `wanted` request register (selective
//! pruning).

use super::*;

/// `px0`, `mx1`, ... for a port and virtual channel; `inj`/`ej` for the
/// internal channels.
fn short_name(t: &Tables, i: usize, internal: &str) -> String {
    if i == t.ej {
        return internal.into();
    }
    let p = i / t.vcs;
    let sign = if p.is_multiple_of(2) { 'p' } else { 'm' };
    format!("{sign}{}{}", ['x', 'y', 'z'][p / 2], i % t.vcs)
}

const OWNER_BITS: u32 = 4;

pub(super) fn declare_router(t: &Tables, depth: u32, s: &mut ScopeBuilder<'_>) {
    s.signal("wanted", t.n_in as u32);
    for i in 0..t.n_in {
        s.scope(&format!("in_{}", short_name(t, i, "inj")), |s| {
            s.signal("count", bits_for(depth));
            s.signal("msg", 32);
            s.signal("branches", t.n_in as u32);
            s.signal("replay", 1);
            s.signal("aux", 16);
            s.signal("stall", 16);
        });
    }
    for o in 0..t.n_in {
        s.scope(&format!("out_{}", short_name(t, o, "ej")), |s| {
            s.signal("owner", OWNER_BITS);
            s.signal("credits", bits_for(depth));
            s.signal("valid", 1);
            s.signal("flit", 32);
            s.signal("msg", 32);
            s.signal("close", 1);
        });
    }
}

pub(super) fn sample_all(t: &Tables, routers: &[TreeRouter], tr: &mut TreeTracing) {
    for r in 0..routers.len() {
        sample_router(t, routers, tr, r, u128::MAX);
    }
}

/// Samples the routers in `tr.sample` that the sink writes, in index
/// order, and empties it; `whole`: every unit of each.
pub(super) fn sample_some(t: &Tables, routers: &[TreeRouter], tr: &mut TreeTracing, whole: bool) {
    for w in 0..tr.sample.len() {
        // The routers the sink writes (all of them with `full`).
        let wanted = if tr.full { u64::MAX } else { tr.wanted[w] };
        for b in crate::rtl::PortIter(std::mem::take(&mut tr.sample[w]) & wanted) {
            let r = w << 6 | b;
            // With the units the cycle marked, the inputs active now: the
            // edge pushed a flit into them, or an interface injected one.
            let units = std::mem::take(&mut tr.units[r]) | routers[r].active as u128;
            let units = if whole { u128::MAX } else { units };
            sample_router(t, routers, tr, r, units);
        }
    }
}

/// Signals of one input or output virtual channel, in declaration order.
const VC_SIGNALS: usize = 6;

/// Samples router `r`'s registers: its `wanted` register and the inputs
/// and outputs in `units`; the others keep their values.
fn sample_router(t: &Tables, routers: &[TreeRouter], tr: &mut TreeTracing, r: usize, units: u128) {
    let router = &routers[r];
    let n_in = t.n_in;
    let all = (1u64 << n_in) - 1;
    let mut s = tr.state.sampler(tr.first[r], tr.count[r]);
    s.value(router.wanted_next as u64);
    for i in crate::rtl::PortIter(units as u64 & all) {
        let iv = &router.ins[i];
        let mut u = s.run_at::<VC_SIGNALS>((1 + VC_SIGNALS * i) as u32);
        u.value(iv.fifo.len() as u64);
        u.value(iv.msg as u64);
        u.value(iv.branches as u64);
        u.bit(iv.replay_out != NONE8);
        u.value(iv.aux as u64);
        u.value(iv.stall.min(0xffff) as u64);
        u.finish();
    }
    for o in crate::rtl::PortIter((units >> 64) as u64 & all) {
        let out = &router.outs[o];
        let k = r * n_in + o;
        let f = tr.links[k];
        let mut u = s.run_at::<VC_SIGNALS>((1 + VC_SIGNALS * (n_in + o)) as u32);
        u.value(if out.owner == NONE8 {
            (1 << OWNER_BITS) - 1
        } else {
            out.owner as u64
        });
        u.value(if o == t.ej { 0 } else { out.credits as u64 });
        u.bit(f.is_some());
        u.value(f.map_or(0, |f| f.word as u64));
        u.value(f.map_or(0, |f| f.msg as u64));
        u.bit(tr.closes[k]);
        u.finish();
    }
    s.seek((1 + 2 * VC_SIGNALS * n_in) as u32);
    s.finish();
}

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
        sample_router(t, routers, tr, r);
    }
}

/// Samples the routers in `tr.sample`, in index order, and empties it.
pub(super) fn sample_some(t: &Tables, routers: &[TreeRouter], tr: &mut TreeTracing) {
    for w in 0..tr.sample.len() {
        for b in crate::rtl::PortIter(std::mem::take(&mut tr.sample[w])) {
            sample_router(t, routers, tr, w << 6 | b);
        }
    }
}

/// Samples router `r`'s registers.
fn sample_router(t: &Tables, routers: &[TreeRouter], tr: &mut TreeTracing, r: usize) {
    let router = &routers[r];
    let mut s = tr.state.sampler(tr.first[r], tr.count[r]);
    s.value(router.wanted_next as u64);
    // Each channel's six signals as one run (declared in this order).
    for iv in &router.ins {
        let mut u = s.run::<6>();
        u.value(iv.fifo.len() as u64);
        u.value(iv.msg as u64);
        u.value(iv.branches as u64);
        u.bit(iv.replay_out != NONE8);
        u.value(iv.aux as u64);
        u.value(iv.stall.min(0xffff) as u64);
        u.finish();
    }
    for (o, out) in router.outs.iter().enumerate() {
        let k = r * t.n_in + o;
        let f = tr.links[k];
        let mut u = s.run::<6>();
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
    s.finish();
}

//! Multicast latency against effective applied load (seed 000 section
//! 6.5): every node starts multicasts of one degree to random destinations
//! at exponentially distributed intervals, so that the effective applied
//! load `m B_i` (flits a node's multicasts would deliver per cycle) is the
//! job's x. Latency is measured, from the call to the last destination's
//! host, over the multicasts created after the warm-up and before the end
//! of the run; the run then goes on, without new multicasts, for half its
//! length so that they can finish. A run is saturated when fewer than
//! [`COMPLETED_SHARE`](super::COMPLETED_SHARE) of them completed, or when
//! the latency kept growing over the window (those created in its last
//! quarter took more than twice as long as those of its first quarter,
//! the engine's rule).

use super::single::{config, network};
use super::{Figure, Job, Options, Row, Setting, mix};
use crate::mcast::{PlanScheme, Planner};
use crate::net::Network;
use crate::sim::{System, Traffic};
use crate::{Error, Result};
use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;
use rand::seq::SliceRandom;
use rand_distr::{Distribution, Exp};

/// A source whose host has more than this many messages queued refuses
/// new multicasts (they count as created and never completed): past
/// saturation this bounds the run's memory.
const BACKLOG: usize = 32;

pub(super) fn run_job(fig: Figure, s: &Setting, j: &Job, o: &Options) -> Result<Vec<Row>> {
    let net = network(s, o, j.topology)?;
    let planner = Planner::new(&net);
    o.schemes
        .iter()
        .enumerate()
        .map(|(k, &scheme)| {
            let seed = mix(&[
                o.seed,
                fig as u64,
                j.setting as u64,
                j.x.to_bits(),
                j.topology as u64,
                k as u64,
            ]);
            run_scheme(&net, &planner, s, j, o, scheme, seed)
        })
        .collect()
}

fn run_scheme(
    net: &Network,
    planner: &Planner,
    s: &Setting,
    j: &Job,
    o: &Options,
    scheme: PlanScheme,
    seed: u64,
) -> Result<Row> {
    let n = net.num_nodes() as u32;
    let degree = s.degree.min(n - 1) as usize;
    let mut sys = System::new(net, &config(s, o.seed), &Traffic::Idle)?;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    // Multicasts per cycle per node: B_i / message length, B_i = x / m.
    let rate = j.x / degree as f64 / s.message_flits as f64;
    let gap = Exp::new(rate).map_err(|_| Error::Config {
        field: "load",
        value: j.x.to_string(),
        reason: "the load must be positive".into(),
    })?;
    let mut next: Vec<f64> = (0..n).map(|_| gap.sample(&mut rng)).collect();
    // (group, created, phases) of the multicasts created in the window.
    let mut started: Vec<(u64, u64, u32)> = Vec::new();
    let mut refused = 0u64;
    let packets = s.packets();
    let mut others: Vec<u32> = Vec::with_capacity(n as usize);
    loop {
        let (src, at) = next
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(b.1))
            .map(|(i, &t)| (i as u32, t.ceil() as u64))
            .expect("nodes");
        if at >= o.cycles {
            break;
        }
        sys.run(at.saturating_sub(sys.cycle()))?;
        next[src as usize] += gap.sample(&mut rng);
        let now = sys.cycle();
        let busy = sys.ni(src).expect("NI nodes").host_backlog() > BACKLOG;
        if busy {
            refused += (now >= o.warmup) as u64;
            continue;
        }
        others.clear();
        others.extend((0..n).filter(|&x| x != src));
        others.shuffle(&mut rng);
        let plan = planner.plan(scheme, src, &others[..degree], packets)?;
        let id = sys.multicast_plan(&plan)?;
        if now >= o.warmup {
            started.push((id, now, plan.phases));
        }
    }
    // No new multicasts from here; the run goes on for half as long again
    // so that those created near its end can finish (past saturation
    // they do not, and the point is marked saturated).
    sys.run(o.cycles + o.cycles / 2 - sys.cycle())?;
    // Deliveries per group: how many, and the last.
    let groups = started.last().map_or(0, |x| x.0 as usize + 1);
    let mut got = vec![(0usize, 0u64); groups];
    for x in 0..n {
        for d in sys.ni(x).expect("NI nodes").deliveries() {
            if let Some(g) = d.group
                && (g as usize) < groups
            {
                let e = &mut got[g as usize];
                e.0 += 1;
                e.1 = e.1.max(d.cycle);
            }
        }
    }
    let (mut sum, mut done, mut phases) = (0u64, 0u64, 0u64);
    // Latency sums and counts of the multicasts created in the first and
    // the last quarter of the window.
    let quarter = (o.cycles - o.warmup.min(o.cycles)).div_ceil(4).max(1);
    let (mut first, mut last_q) = ((0u64, 0u64), (0u64, 0u64));
    for &(g, created, p) in &started {
        phases += p as u64;
        let (count, last) = got[g as usize];
        if count == degree {
            done += 1;
            sum += last - created;
            match (created - o.warmup) / quarter {
                0 => first = (first.0 + last - created, first.1 + 1),
                3 => last_q = (last_q.0 + last - created, last_q.1 + 1),
                _ => {}
            }
        }
    }
    let mean = |(s, n): (u64, u64)| s as f64 / n.max(1) as f64;
    let growing = first.1 > 0 && last_q.1 > 0 && mean(last_q) > 2.0 * mean(first);
    Ok(Row {
        job: j.index,
        scheme,
        latency: if done > 0 {
            sum as f64 / done as f64
        } else {
            0.0
        },
        phases: if started.is_empty() {
            0.0
        } else {
            phases as f64 / started.len() as f64
        },
        generated: started.len() as u64 + refused,
        completed: done,
        growing,
    })
}

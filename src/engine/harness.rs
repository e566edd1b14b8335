//! The harness: open-loop traffic into any [`Engine`], statistics out.
//!
//! Every node generates packets as a Bernoulli process of `load / packet`
//! packets per cycle (drawn as geometric gaps), each to the destination its
//! [`Pattern`] gives. A node keeps at most `source_queue` messages
//! outstanding (sent, not yet delivered); a packet generated beyond that is
//! refused and counted, which bounds memory past saturation. Messages
//! created during the warm-up are not measured. A point is **saturated**
//! when the accepted throughput is below 95% of the offered load or a
//! source refused a packet: its latency is that of a growing queue, not a
//! result.

use super::stats::{Collector, Interval, Summary};
use super::{Arrival, Engine, Pattern, RouterModel, TopoSpec};
use crate::direct::PortModel;
use crate::sim::SimConfig;
use crate::{Error, Result};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// What to run, besides the network and router.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Where packets go.
    pub pattern: Pattern,
    /// Offered load, flits per node per cycle.
    pub load: f64,
    /// Packet length in flits, header included.
    pub packet: u32,
    /// Cycles of warm-up, not measured.
    pub warmup: u64,
    /// Cycles measured after the warm-up (with a stop rule: the most).
    pub cycles: u64,
    /// Seed of the traffic.
    pub seed: u64,
    /// Batches the measured cycles are cut into (at least 2); with a stop
    /// rule, the fewest batches before it may stop.
    pub batches: u32,
    /// Cycles per batch (default: the measured cycles over `batches`).
    pub batch_cycles: Option<u64>,
    /// Stop once the latency's 95% half-width is under this fraction of
    /// its mean (seed 002 uses 0.05), checked after every batch.
    pub stop_rule: Option<f64>,
    /// Messages a node may have outstanding before it refuses new ones.
    pub source_queue: u32,
    /// Hardware parameters of the cut-through switch network.
    pub sim: SimConfig,
    /// Injection and consumption channels of a wormhole router.
    pub ports: PortModel,
    /// Input buffer of a wormhole router, in flits.
    pub wormhole_buffer: u32,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            pattern: Pattern::Uniform,
            load: 0.05,
            packet: 20,
            warmup: 10_000,
            cycles: 100_000,
            seed: 1,
            batches: 10,
            batch_cycles: None,
            stop_rule: None,
            source_queue: 64,
            sim: SimConfig::default(),
            ports: PortModel::OnePort,
            wormhole_buffer: 2,
        }
    }
}

/// What a run gave.
#[derive(Clone, Debug, Serialize)]
pub struct RunResult {
    /// The network.
    pub topology: String,
    /// The router model.
    pub router: &'static str,
    /// Its routing function.
    pub routing: &'static str,
    /// The traffic pattern.
    pub pattern: String,
    /// Nodes.
    pub nodes: u32,
    /// Packet length, flits.
    pub packet: u32,
    /// Warm-up cycles.
    pub warmup: u64,
    /// Cycles measured.
    pub measured_cycles: u64,
    /// Traffic seed.
    pub seed: u64,
    /// Flits generated per node per cycle in the window, those refused at
    /// a full source included.
    pub offered_load: f64,
    /// Flits delivered per node per cycle in the window (each copy).
    pub accepted_throughput: f64,
    /// Latency of the copies of messages created in the window (creation
    /// to tail).
    pub latency: Summary,
    /// Network latency (first flit in the network to tail), where the
    /// router model records injection.
    pub network_latency: Option<Summary>,
    /// 95% confidence interval of the mean latency, from batch means.
    pub interval: Interval,
    /// Packets generated in the window and taken by their sources.
    pub generated: u64,
    /// Of those, delivered by the end.
    pub delivered: u64,
    /// Packets refused at a full source (whole run).
    pub refused: u64,
    /// Messages outstanding at the end.
    pub in_flight: u64,
    /// Accepted below 95% of offered, or a source refused a packet.
    pub saturated: bool,
    /// The stop rule was met (with one).
    pub stop_rule_met: Option<bool>,
}

/// Runs `o` on `router` (default: the topology's) over `topo`.
pub fn run(
    topo: &TopoSpec,
    router: Option<RouterModel>,
    routing: Option<&str>,
    o: &RunOptions,
) -> Result<RunResult> {
    let bad = |field: &'static str, value: String, reason: &str| Error::Config {
        field,
        value,
        reason: reason.into(),
    };
    if !(o.load > 0.0 && o.load <= 1.0) {
        return Err(bad(
            "load",
            o.load.to_string(),
            "an offered load is above 0 and at most 1 flit/node/cycle",
        ));
    }
    if o.batches < 2 {
        return Err(bad(
            "batches",
            o.batches.to_string(),
            "an interval needs at least 2 batches",
        ));
    }
    if o.cycles < o.batches as u64 {
        return Err(bad(
            "cycles",
            o.cycles.to_string(),
            "fewer measured cycles than batches",
        ));
    }
    if o.source_queue == 0 {
        return Err(bad(
            "source_queue",
            "0".into(),
            "a source must be able to hold a message",
        ));
    }
    let (mut e, router, routing) = super::build(topo, router, routing, o)?;
    let nodes = e.nodes();
    let sides = topo.sides();
    o.pattern.check(nodes, sides.as_deref())?;
    if o.packet <= e.header_flits() {
        return Err(Error::Config {
            field: "packet",
            value: o.packet.to_string(),
            reason: format!(
                "a packet holds its {}-flit header and at least one more flit",
                e.header_flits()
            ),
        });
    }
    let rate = o.load / o.packet as f64;
    if rate > 1.0 {
        return Err(bad(
            "load",
            o.load.to_string(),
            "more than one packet per node per cycle",
        ));
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(o.seed);
    let gap = |rng: &mut Xoshiro256PlusPlus| -> u64 {
        // Geometric: cycles until the next success of a Bernoulli(rate).
        if rate >= 1.0 {
            return 1;
        }
        let u: f64 = rng.random_range(f64::EPSILON..1.0);
        1 + (u.ln() / (1.0 - rate).ln()).floor() as u64
    };
    let mut next: BinaryHeap<Reverse<(u64, u32)>> = (0..nodes)
        .map(|n| Reverse((gap(&mut rng) - 1, n)))
        .collect();
    let mut outstanding = vec![0u32; nodes as usize];
    let batch_len = o.batch_cycles.unwrap_or(o.cycles / o.batches as u64);
    if batch_len == 0 || batch_len > o.cycles {
        return Err(bad(
            "batch_cycles",
            batch_len.to_string(),
            "a batch is 1 cycle to the whole measured run",
        ));
    }
    let mut col = Collector::new(o.warmup, batch_len);
    let mut buf: Vec<Arrival> = Vec::new();
    let (mut generated, mut gen_flits, mut refused) = (0u64, 0u64, 0u64);
    let mut window_flits = 0u64;
    let end_max = o.warmup + o.cycles;
    let mut end = end_max;
    let mut rule_met = None;
    let mut cycle = 0u64;
    let mut next_msg = 0u64;
    let drain = |e: &mut Box<dyn Engine>,
                 col: &mut Collector,
                 outstanding: &mut [u32],
                 window_flits: &mut u64,
                 buf: &mut Vec<Arrival>| {
        e.arrivals(buf);
        for a in buf.drain(..) {
            outstanding[a.src as usize] -= 1;
            if a.arrived >= o.warmup {
                *window_flits += a.flits as u64;
            }
            col.add(&a);
        }
    };
    while cycle < end {
        while let Some(&Reverse((t, n))) = next.peek() {
            if t > cycle {
                break;
            }
            next.pop();
            if let Some(d) = o.pattern.dest(n, nodes, sides.as_deref(), &mut rng) {
                if cycle >= o.warmup {
                    gen_flits += o.packet as u64;
                }
                if outstanding[n as usize] >= o.source_queue {
                    refused += 1;
                } else {
                    e.send(next_msg, n, &[d], o.packet)?;
                    next_msg += 1;
                    outstanding[n as usize] += 1;
                    if cycle >= o.warmup {
                        generated += 1;
                    }
                }
            }
            next.push(Reverse((cycle + gap(&mut rng), n)));
        }
        e.step()?;
        cycle += 1;
        if cycle.is_multiple_of(64) {
            drain(
                &mut e,
                &mut col,
                &mut outstanding,
                &mut window_flits,
                &mut buf,
            );
        }
        if let Some(target) = o.stop_rule
            && cycle > o.warmup
            && (cycle - o.warmup).is_multiple_of(batch_len)
        {
            // Batches whose messages have had a batch's time to arrive.
            let done = ((cycle - o.warmup) / batch_len).saturating_sub(1) as usize;
            let i = col.interval(done);
            let met = done >= o.batches as usize && i.relative <= target;
            rule_met = Some(met);
            if met {
                end = cycle;
            }
        }
    }
    drain(
        &mut e,
        &mut col,
        &mut outstanding,
        &mut window_flits,
        &mut buf,
    );
    let measured = end - o.warmup;
    let per = (nodes as u64 * measured).max(1) as f64;
    let (latency, network_latency) = col.summaries();
    let offered = gen_flits as f64 / per;
    let accepted = window_flits as f64 / per;
    let full = (measured / batch_len) as usize;
    Ok(RunResult {
        topology: topo.to_string(),
        router: router.name(),
        routing,
        pattern: o.pattern.to_string(),
        nodes,
        packet: o.packet,
        warmup: o.warmup,
        measured_cycles: measured,
        seed: o.seed,
        offered_load: offered,
        accepted_throughput: accepted,
        interval: col.interval(full.saturating_sub(1).max(1)),
        delivered: col.copies(),
        generated,
        refused,
        in_flight: outstanding.iter().map(|&x| x as u64).sum(),
        saturated: refused > 0 || accepted < 0.95 * offered,
        latency,
        network_latency,
        stop_rule_met: rule_met,
    })
}

//! Multicast latency against effective applied load (seed 000 section
//! 6.5), as random multicast traffic through the one engine
//! ([`crate::engine::run`]): seed 000's cut-through switches with hosts and
//! network interfaces (`node_model = "ni"`), every node starting multicasts
//! of one degree to random other nodes by the scheme under test, at a rate
//! that makes the effective applied load `m B_i` (flits a node's
//! multicasts would deliver per cycle) the job's x. Latency is the
//! engine's multicast latency, from the call to the last destination's
//! host, over the multicasts created after the warm-up; after the window
//! the run goes on without new multicasts for up to half its length so
//! that the last ones can arrive (past saturation some do not). A run is
//! saturated when the engine's rule (docs/engine.md) finds the latency or
//! the backlog growing or a source refusing multicasts, or when fewer than
//! [`COMPLETED_SHARE`](super::COMPLETED_SHARE) of the window's multicasts
//! completed. The completed share takes the place of the rule's
//! accepted-throughput clause: a window holds a few hundred multicasts of
//! 5,000 to 20,000 cycles each, and those in flight at its two ends move
//! the copies accepted within it by 10% at the lightest loads; once the
//! window's multicasts have had time to finish, the share of them that did
//! is the same test without that edge.

use super::single::{config, spec};
use super::{Figure, Job, Options, Row, Setting, mix};
use crate::engine::{self, RouterModel, RunOptions};
use crate::mcast::PlanScheme;
use crate::{Error, Result};

/// A source with this many multicasts outstanding refuses new ones (they
/// count as created and never completed): past saturation this bounds the
/// run's memory.
const BACKLOG: u32 = 32;

pub(super) fn run_job(fig: Figure, s: &Setting, j: &Job, o: &Options) -> Result<Vec<Row>> {
    let topo = spec(s, o, j.topology);
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
            run_scheme(&topo, s, j, o, scheme, seed)
        })
        .collect()
}

fn run_scheme(
    topo: &engine::TopoSpec,
    s: &Setting,
    j: &Job,
    o: &Options,
    scheme: PlanScheme,
    seed: u64,
) -> Result<Row> {
    let degree = s.degree.min(s.nodes - 1);
    let ro = RunOptions {
        multicast: Some((degree, degree)),
        // Flits a node's multicasts inject per cycle, each counted once:
        // B_i = x / m.
        load: j.x / degree as f64,
        packet: s.message_flits,
        warmup: o.warmup,
        cycles: o.cycles - o.warmup,
        seed,
        source_queue: BACKLOG,
        scheme: Some(scheme.name().into()),
        finish: Some(o.cycles / 2),
        sim: config(s, o.seed),
        ..RunOptions::default()
    };
    let r = match engine::run(topo, Some(RouterModel::CutThrough), None, &ro) {
        Ok(r) => r,
        // Smart NIs forward from their receive queues, and with finite NI
        // memory that deadlocks under overload (docs/ni.md): the point is
        // saturated, with no latency.
        Err(Error::Deadlock(_)) => {
            return Ok(Row {
                job: j.index,
                scheme,
                latency: 0.0,
                phases: 0.0,
                generated: 1,
                completed: 0,
                saturated: true,
            });
        }
        Err(e) => return Err(e),
    };
    let count = |k: &str| r.events.get(k).copied().unwrap_or(0);
    let multicasts = count("multicasts");
    Ok(Row {
        job: j.index,
        scheme,
        latency: r.message_latency.mean,
        phases: if multicasts == 0 {
            0.0
        } else {
            count("phases") as f64 / multicasts as f64
        },
        generated: r.generated + r.refused,
        completed: r.message_latency.count,
        saturated: r.latency_growing || r.backlog_growing || r.refused > 0,
    })
}

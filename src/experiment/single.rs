//! Single multicasts on an idle network (seed 000 section 6.4): one
//! multicast at a time, every scheme on the same source and destinations,
//! each sent through the engine's live session ([`Session`]) on seed 000's
//! cut-through switches with hosts and network interfaces.

use super::{Figure, Job, Options, Row, Setting, mix};
use crate::engine::{RouterModel, RunOptions, Session, TopoSpec};
use crate::net::IrregularParams;
use crate::sim::{NodeModel, SimConfig};
use crate::{Error, Result};
use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;
use rand::seq::SliceRandom;

/// The network of a setting's topology `t` (seeds `seed + t`), at the
/// paper's 80% connectivity.
pub(crate) fn spec(s: &Setting, o: &Options, t: u32) -> TopoSpec {
    TopoSpec::Irregular(IrregularParams {
        switches: s.switches,
        ports: s.ports,
        nodes: s.nodes,
        connectivity: 0.8,
        seed: o.seed + t as u64,
    })
}

/// The configuration of a setting: hosts with NIs. Past saturation a
/// packet may wait behind many others for one slow interface, each taking
/// the NI and host overheads, so the watchdog waits for 256 times those
/// (at least its default) before it calls a deadlock.
pub(crate) fn config(s: &Setting, seed: u64) -> SimConfig {
    let d = SimConfig::default();
    let t_hs = s.ni.t_hs;
    let t_ns = (t_hs as f64 / s.ni.r).round() as u64;
    SimConfig {
        node_model: NodeModel::Ni,
        ni: s.ni.clone(),
        seed,
        watchdog_cycles: d.watchdog_cycles.max(256 * 2 * (t_hs + t_ns)),
        ..d
    }
}

pub(super) fn run_job(fig: Figure, s: &Setting, j: &Job, o: &Options) -> Result<Vec<Row>> {
    let topo = spec(s, o, j.topology);
    let n = s.nodes;
    let d = j.x as u32;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(mix(&[
        o.seed,
        fig as u64,
        j.setting as u64,
        j.topology as u64,
        d as u64,
        j.set as u64,
    ]));
    let mut nodes: Vec<u32> = (0..n).collect();
    nodes.shuffle(&mut rng);
    let (src, dests) = (nodes[0], &nodes[1..=d as usize]);
    let mut rows = Vec::with_capacity(o.schemes.len());
    for &scheme in &o.schemes {
        let ro = RunOptions {
            scheme: Some(scheme.name().into()),
            sim: config(s, o.seed),
            ..RunOptions::default()
        };
        let mut session = Session::new(&topo, Some(RouterModel::CutThrough), None, &ro)?;
        session.send(src, dests, s.message_flits)?;
        session.drain(50_000_000).map_err(|e| match e {
            // A stop asked for is the run's, not the job's fault.
            e @ Error::Interrupted { .. } => e,
            e => Error::Fault {
                cycle: session.cycle(),
                what: format!(
                    "{} job {} ({}, {scheme}, {d} destinations): {e}",
                    fig.name(),
                    j.index,
                    s.label
                ),
            },
        })?;
        let last = session.arrivals().iter().map(|a| a.arrived).max();
        let phases = session
            .events()
            .iter()
            .find(|e| e.0 == "phases")
            .map_or(1, |e| e.1);
        rows.push(Row {
            job: j.index,
            scheme,
            latency: last.expect("every destination has it") as f64,
            phases: phases as f64,
            generated: 1,
            completed: 1,
            saturated: false,
        });
    }
    Ok(rows)
}

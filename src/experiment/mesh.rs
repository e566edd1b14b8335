//! The experiments of seed 002 ("Simulations"): Two-Phase, Six-Phase and
//! the GTDMPM baseline on an all-port 5x5x5 mesh, run through the one
//! engine ([`crate::engine`]: `mesh:5x5x5`, the wormhole router, the
//! Hamiltonian routing function R, schemes `tp`, `sp`, `gtdmpm`).
//!
//! - **load**: latency against the injection rate, 12 destinations (about
//!   10 % of the nodes), messages of 1, 100 and 1,000 flits, start-up
//!   latency `beta` of 10 and 100 cycles (Figs. 5 and 6);
//! - **dests**: latency against the number of destinations (20 to 100) at
//!   a fixed mean interarrival time per node, 100 and 1,000 flits, both
//!   betas (Figs. 7 and 8).
//!
//! Every node starts multicasts at random (geometric gaps) to uniformly
//! drawn destinations; the source pays `beta` per worm, one worm at a time.
//! Each point runs until the 95% confidence interval of the mean network
//! latency is under 5% of the mean (the paper's stop rule; batches sized
//! to hold about 25 multicasts, at least 10 of them, at most 100), then
//! stops the sources and drains the network. Every latency reading is
//! kept: per copy (the paper's "network latency": the head of the copy's
//! worm entering the network to the tail at the destination, start-up
//! excluded), per multicast (its longest copy), the multicast's span in
//! the network (first worm in to last tail) and the latency from creation
//! (start-ups and source queueing included). A point is a **result** only
//! when it is not saturated (the engine's rule: accepted below 95% of
//! offered, a source refused a multicast, or the latency kept growing; or
//! the drain did not finish)
//! and the stop rule was met.

use super::{Panel, PointJournal, Series, SweepOptions, write_plots};
use crate::direct::PortModel;
use crate::engine::stats::Metric;
use crate::engine::{RouterModel, RunOptions, TopoSpec};
use crate::{Error, Result};
use serde::Serialize;
use std::path::Path;

/// The options of the seed 002 sweeps: `cycles` is the most cycles a point
/// measures (its batches shrink to fit 11 in it), `warmup` the least
/// warm-up (a point warms up for at least one batch).
pub type MeshOptions = SweepOptions;

/// The defaults: at most 8,000,000 measured cycles per point after at least
/// 40,000 of warm-up, or 30,000 and 2,000 when `quick`.
pub fn options(quick: bool) -> MeshOptions {
    SweepOptions::new(quick, (8_000_000, 40_000), (30_000, 2_000))
}

/// One simulated point.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct MeshPoint {
    /// `load` or `dests`.
    #[serde(deserialize_with = "experiment_name")]
    pub experiment: super::Name,
    /// Start-up latency per worm.
    pub beta: u64,
    /// Message length in flits (data; the worms add their headers).
    pub length: u32,
    /// `tp`, `sp` or `gtdmpm`.
    #[serde(deserialize_with = "algo_name")]
    pub algo: super::Name,
    /// Destinations per multicast.
    pub dests: u32,
    /// Multicasts started per node per cycle.
    pub rate: f64,
    /// Cycles measured (the stop rule may end a point early).
    pub cycles: u64,
    /// Multicasts created in the measured window and taken by the source.
    pub generated: u64,
    /// Multicasts refused at full sources.
    pub refused: u64,
    /// Multicasts of the window that completed.
    pub measured: u64,
    /// Mean network latency per copy (the paper's metric).
    pub network_latency: f64,
    /// 95% half-width of `network_latency` over its mean.
    pub relative_half_width: f64,
    /// Mean network latency per multicast: its longest copy.
    pub multicast_network_latency: f64,
    /// Mean span per multicast: first worm in to last tail.
    pub span: f64,
    /// Mean latency per multicast from creation to the last tail,
    /// start-ups and source queueing included.
    pub latency: f64,
    /// Largest `latency`.
    pub max_latency: u64,
    /// The stop rule was met within `cycles`.
    pub converged: bool,
    /// See the module's documentation.
    pub saturated: bool,
}

fn experiment_name<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<&'static str, D::Error> {
    super::known_name(d, ["load", "dests"])
}

fn algo_name<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<&'static str, D::Error> {
    super::known_name(d, ALGOS)
}

impl MeshPoint {
    /// Not saturated and converged: a point that may be plotted.
    pub fn is_result(&self) -> bool {
        self.converged && !self.saturated
    }
}

#[derive(Clone, Copy, Debug)]
struct Job {
    experiment: &'static str,
    beta: u64,
    length: u32,
    algo: &'static str,
    dests: u32,
    rate: f64,
}

const BETAS: [u64; 2] = [10, 100];

/// The schemes compared, in the order the files list them.
pub const ALGOS: [&str; 3] = ["tp", "sp", "gtdmpm"];

/// Injection rates (multicasts per node per cycle) swept for a message
/// length: a light-load point (a twentieth of the base rate), then up to
/// eight times the base rate, past saturation for the schemes that
/// saturate first.
fn rates(length: u32, quick: bool) -> Vec<f64> {
    let base = match length {
        1 => 0.0005,
        100 => 0.00002,
        _ => 0.000003,
    };
    let steps: &[f64] = if quick {
        &[0.25, 2.0]
    } else {
        &[0.05, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0]
    };
    steps.iter().map(|s| s * base).collect()
}

/// The mean interarrival time per node of the `dests` experiment, in
/// cycles, for a message length: 100,000 for 100 flits, 1,000,000 for
/// 1,000 flits (at 100,000, 1,000-flit multicasts saturate the mesh from
/// 20 destinations on; docs/reproduction.md).
pub fn dests_interarrival(length: u32) -> f64 {
    if length >= 1000 {
        1_000_000.0
    } else {
        100_000.0
    }
}

fn jobs(quick: bool) -> Vec<Job> {
    let mut v = Vec::new();
    for beta in BETAS {
        for length in [1u32, 100, 1000] {
            for rate in rates(length, quick) {
                for algo in ALGOS {
                    v.push(Job {
                        experiment: "load",
                        beta,
                        length,
                        algo,
                        dests: 12,
                        rate,
                    });
                }
            }
        }
        for length in [100u32, 1000] {
            let ds: &[u32] = if quick {
                &[20, 100]
            } else {
                &[20, 40, 60, 80, 100]
            };
            for &dests in ds {
                for algo in ALGOS {
                    v.push(Job {
                        experiment: "dests",
                        beta,
                        length,
                        algo,
                        dests,
                        rate: 1.0 / dests_interarrival(length),
                    });
                }
            }
        }
    }
    v
}

/// Nodes of the 5x5x5 mesh.
const NODES: f64 = 125.0;

/// The engine's options for a job: batches of about 25 multicasts.
fn run_options(j: &Job, o: &MeshOptions) -> RunOptions {
    let packet = j.length + 2; // the unicast header: type and one address flit
    let per_cycle = j.rate * NODES;
    // Ten batches to fill, one more for their multicasts to arrive.
    let batch = ((25.0 / per_cycle).ceil() as u64)
        .max(5_000)
        .min((o.cycles / 11).max(1));
    RunOptions {
        multicast: Some((j.dests, j.dests)),
        load: j.rate * packet as f64,
        packet,
        warmup: o.warmup.max(batch),
        cycles: (100 * batch).min(o.cycles.max(11 * batch)),
        batches: 10,
        batch_cycles: Some(batch),
        stop_rule: Some(0.05),
        stop_metric: Metric::Network,
        scheme: Some(j.algo.into()),
        seed: o.seed,
        ports: PortModel::AllPort,
        wormhole_startup: j.beta,
        drain: Some(20 * batch),
        ..RunOptions::default()
    }
}

fn run_job(j: Job, o: &MeshOptions) -> Result<MeshPoint> {
    let topo = TopoSpec::parse("mesh:5x5x5")?;
    let ro = run_options(&j, o);
    let point = |r: Option<&crate::engine::RunResult>| {
        let mean = |s: &Option<crate::engine::stats::Summary>| s.as_ref().map_or(0.0, |s| s.mean);
        MeshPoint {
            experiment: j.experiment,
            beta: j.beta,
            length: j.length,
            algo: j.algo,
            dests: j.dests,
            rate: j.rate,
            cycles: r.map_or(ro.cycles, |r| r.measured_cycles),
            generated: r.map_or(0, |r| r.generated),
            refused: r.map_or(0, |r| r.refused),
            measured: r.map_or(0, |r| r.message_latency.count),
            network_latency: r.map_or(0.0, |r| mean(&r.network_latency)),
            relative_half_width: r.map_or(f64::INFINITY, |r| r.interval.relative),
            multicast_network_latency: r.map_or(0.0, |r| mean(&r.message_network_latency)),
            span: r.map_or(0.0, |r| mean(&r.message_span)),
            latency: r.map_or(0.0, |r| r.message_latency.mean),
            max_latency: r.map_or(0, |r| r.message_latency.max),
            converged: r.is_some_and(|r| r.stop_rule_met == Some(true)),
            saturated: r.is_none_or(|r| r.saturated),
        }
    };
    match crate::engine::run(&topo, Some(RouterModel::Wormhole), Some("hamiltonian"), &ro) {
        Ok(r) => Ok(point(Some(&r))),
        // The network did not drain: saturated, no latency to report.
        Err(Error::NotDrained { .. }) => Ok(point(None)),
        Err(e) => Err(e),
    }
}

/// One point of the `load` sweep, outside the sweep: `beta` cycles of
/// start-up per worm, `length`-flit messages of scheme `algo` (`tp`, `sp`
/// or `gtdmpm`) to `dests` destinations, `rate` multicasts per node per
/// cycle, run as the sweep runs its points under `o`.
pub fn point(
    beta: u64,
    length: u32,
    algo: &str,
    dests: u32,
    rate: f64,
    o: &MeshOptions,
) -> Result<MeshPoint> {
    let algo = ALGOS
        .iter()
        .copied()
        .find(|a| *a == algo)
        .ok_or_else(|| Error::Config {
            field: "algo",
            value: algo.into(),
            reason: format!("the schemes are {}", ALGOS.join(", ")),
        })?;
    check(o)?;
    run_job(
        Job {
            experiment: "load",
            beta,
            length,
            algo,
            dests,
            rate,
        },
        o,
    )
}

/// Runs every point on all cores, in a fixed order.
pub fn run(o: &MeshOptions, progress: &(dyn Fn() + Sync)) -> Result<Vec<MeshPoint>> {
    check(o)?;
    super::run_parallel(jobs(o.quick), |j| run_job(j, o), progress)
}

/// [`run`], resumable through `journal` (see [`PointJournal`]): the points
/// it holds are not run again, and only those of its shard run. Returns
/// the shard's points and how many came from the journal.
pub fn run_in(
    o: &MeshOptions,
    journal: &PointJournal,
    progress: &(dyn Fn() + Sync),
) -> Result<(Vec<MeshPoint>, usize)> {
    check(o)?;
    super::run_parallel_in(jobs(o.quick), |j| run_job(j, o), journal, progress)
}

/// The most cycles a point measures must hold its 11 batches (ten
/// measured, one for their multicasts to arrive) of a cycle or more: with
/// fewer, a point would run past it.
fn check(o: &MeshOptions) -> Result<()> {
    if o.cycles < 11 {
        return Err(Error::Config {
            field: "cycles",
            value: o.cycles.to_string(),
            reason: "a point measures 11 batches of at least a cycle: give 11 or more".into(),
        });
    }
    Ok(())
}

/// Number of points a sweep runs.
pub fn points(quick: bool) -> usize {
    jobs(quick).len()
}

/// Writes `mesh_load.csv`, `mesh_dests.csv` and their plots (SVG, PNG).
pub fn write_outputs(points: &[MeshPoint], dir: &Path) -> Result<()> {
    crate::make_dir(dir)?;
    for exp in ["load", "dests"] {
        let mut csv = String::from(
            "beta,length,algo,dests,rate,cycles,generated,refused,measured,network_latency,relative_half_width,multicast_network_latency,span,latency,max_latency,converged,saturated\n",
        );
        for p in points.iter().filter(|p| p.experiment == exp) {
            csv.push_str(&format!(
                "{},{},{},{},{:.3e},{},{},{},{},{:.1},{:.4},{:.1},{:.1},{:.1},{},{},{}\n",
                p.beta,
                p.length,
                p.algo,
                p.dests,
                p.rate,
                p.cycles,
                p.generated,
                p.refused,
                p.measured,
                p.network_latency,
                p.relative_half_width,
                p.multicast_network_latency,
                p.span,
                p.latency,
                p.max_latency,
                p.converged,
                p.saturated
            ));
        }
        let path = dir.join(format!("mesh_{exp}.csv"));
        crate::error::write_bytes(&path, csv)?;
        let mut panels = Vec::new();
        for beta in BETAS {
            let lengths: &[u32] = if exp == "load" {
                &[1, 100, 1000]
            } else {
                &[100, 1000]
            };
            for &length in lengths {
                let series = ALGOS
                    .iter()
                    .map(|&a| {
                        let mine: Vec<&MeshPoint> = points
                            .iter()
                            .filter(|p| {
                                p.experiment == exp
                                    && p.beta == beta
                                    && p.length == length
                                    && p.algo == a
                            })
                            .collect();
                        let x = |p: &MeshPoint| {
                            if exp == "load" {
                                p.rate * 1e6
                            } else {
                                p.dests as f64
                            }
                        };
                        Series {
                            name: a.to_uppercase(),
                            color: match a {
                                "tp" => (0, 90, 200),
                                "sp" => (200, 30, 30),
                                _ => (40, 150, 40),
                            },
                            points: mine
                                .iter()
                                .filter(|p| p.is_result())
                                .map(|p| (x(p), p.network_latency))
                                .collect(),
                            spread: Vec::new(),
                            saturated: mine
                                .iter()
                                .filter(|p| !p.is_result())
                                .map(|p| x(p))
                                .collect(),
                        }
                    })
                    .collect();
                panels.push(Panel {
                    label: format!("beta = {beta}, {length} flit(s)"),
                    x_desc: if exp == "load" {
                        "Injection rate (multicasts / node / 10^6 cycles)".into()
                    } else {
                        "Number of destinations".into()
                    },
                    y_desc: "Average network latency (cycles)".into(),
                    series,
                });
            }
        }
        let title = if exp == "load" {
            "5x5x5 mesh, 12 destinations: network latency against load (seed 002 Figs. 5, 6)"
        } else {
            "5x5x5 mesh: network latency against destinations (seed 002 Figs. 7, 8)"
        };
        write_plots(
            title,
            "Points: mean network latency per copy (head of its worm into the network to \
             tail at the destination, start-ups excluded), run to a 95% interval under 5% of \
             the mean. x on the axis: not a result (saturated, or the stop rule not met).",
            &panels,
            &dir.join(format!("mesh_{exp}")),
        )?;
    }
    Ok(())
}

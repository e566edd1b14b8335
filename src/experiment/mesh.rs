//! The experiments of seed 002 ("Simulations"): Two-Phase against Six-Phase
//! multicast on an all-port 5x5x5 mesh.
//!
//! - **load**: average multicast latency against the injection rate, 12
//!   destinations (about 10 % of the nodes), messages of 1, 100 and 1,000
//!   flits, startup latency `beta` of 10 and 100 cycles (Figs. 5 and 6);
//! - **dests**: latency against the number of destinations (20 to 100) at a
//!   fixed mean interarrival time per node, 100 and 1,000 flits, both betas
//!   (Figs. 7 and 8).
//!
//! Every node starts multicasts at random (Bernoulli per cycle) to uniformly
//! drawn destinations; TP or SP prepares the worms; the source pays `beta`
//! per worm, one worm at a time. Latency is from a multicast's creation to
//! its last destination's tail, over multicasts created after the warm-up;
//! after the run the traffic stops and the network drains. A point is
//! *saturated* when sources refused more than 1 % of the multicasts (their
//! queues of 24 worms were full) or the drain did not finish. GTDMPM, the
//! paper's third scheme, is not specified in enough detail to build
//! (docs/reproduction.md).

use super::{Panel, Series, SweepOptions, write_plots};
use crate::direct::mesh::{Mesh, MeshFabric};
use crate::direct::{DirectConfig, DirectSystem, DirectTraffic, PortModel};
use crate::mcast::hamilton::{HamAlgo, prepare};
use crate::{Error, Result};
use serde::Serialize;
use std::path::Path;
use std::sync::Arc;

/// The options of the seed 002 sweeps.
pub type MeshOptions = SweepOptions;

/// The defaults: 200,000 cycles with a 40,000-cycle warm-up, or 20,000 and
/// 5,000 when `quick`.
pub fn options(quick: bool) -> MeshOptions {
    SweepOptions::new(quick, (200_000, 40_000), (20_000, 5_000))
}

/// One simulated point.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MeshPoint {
    /// `load` or `dests`.
    pub experiment: &'static str,
    /// Startup latency per worm.
    pub beta: u64,
    /// Message length in flits.
    pub length: u32,
    /// `tp` or `sp`.
    pub algo: &'static str,
    /// Destinations per multicast.
    pub dests: u32,
    /// Multicasts started per node per cycle.
    pub rate: f64,
    /// Multicasts created (after warm-up: measured ones only count latency).
    pub created: u64,
    /// Multicasts refused at full source queues.
    pub refused: u64,
    /// Multicasts measured.
    pub measured: u64,
    /// Mean latency of the measured multicasts.
    pub mean_latency: f64,
    /// Largest.
    pub max_latency: u64,
    /// Worms in flight when the warm-up ended.
    pub backlog_warm: usize,
    /// Worms in flight when the traffic stopped.
    pub backlog_end: usize,
    /// See the module's documentation.
    pub saturated: bool,
}

#[derive(Clone, Copy, Debug)]
struct Job {
    experiment: &'static str,
    beta: u64,
    length: u32,
    algo: HamAlgo,
    dests: u32,
    rate: f64,
}

const BETAS: [u64; 2] = [10, 100];

/// Injection rates (multicasts per node per cycle) swept for a message
/// length.
fn rates(length: u32, quick: bool) -> Vec<f64> {
    let base = match length {
        1 => 0.0005,
        100 => 0.00002,
        _ => 0.000003,
    };
    let steps: &[f64] = if quick {
        &[1.0, 4.0]
    } else {
        &[1.0, 2.0, 3.0, 4.0, 6.0, 8.0]
    };
    steps.iter().map(|s| s * base).collect()
}

/// The mean interarrival time of the `dests` experiment, in cycles.
pub const DESTS_INTERARRIVAL: f64 = 100_000.0;

fn jobs(quick: bool) -> Vec<Job> {
    let mut v = Vec::new();
    for beta in BETAS {
        for length in [1u32, 100, 1000] {
            for rate in rates(length, quick) {
                for algo in [HamAlgo::Tp, HamAlgo::Sp] {
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
                for algo in [HamAlgo::Tp, HamAlgo::Sp] {
                    v.push(Job {
                        experiment: "dests",
                        beta,
                        length,
                        algo,
                        dests,
                        rate: 1.0 / DESTS_INTERARRIVAL,
                    });
                }
            }
        }
    }
    v
}

fn run_job(mesh: &Mesh, j: Job, o: &MeshOptions) -> Result<MeshPoint> {
    let cfg = DirectConfig {
        ports: PortModel::AllPort,
        startup: j.beta,
        keep_worms: false,
        seed: o.seed,
        ..Default::default()
    };
    let mut s = DirectSystem::new(Arc::new(MeshFabric { mesh: mesh.clone() }), &cfg)?;
    let m2 = mesh.clone();
    let algo = j.algo;
    s.set_planner(Arc::new(move |src, dests: &[u32]| {
        prepare(&m2, src, dests, algo)
            .map(|ws| ws.into_iter().map(|w| w.list).collect())
            .unwrap_or_default()
    }));
    s.set_traffic(DirectTraffic {
        rate: j.rate,
        min_dests: j.dests,
        max_dests: j.dests,
        payload: j.length,
        queue_cap: 24,
    })?;
    s.measure_from(o.warmup);
    s.run(o.warmup.min(o.cycles))?;
    let backlog_warm = s.in_flight();
    s.run(o.cycles - o.warmup.min(o.cycles))?;
    let backlog_end = s.in_flight();
    s.stop_traffic();
    let drained = match s.run_until_delivered(o.cycles * 4) {
        Ok(_) => true,
        Err(Error::BadPacket(_)) => false,
        Err(e) => return Err(e),
    };
    let st = s.stats();
    Ok(MeshPoint {
        experiment: j.experiment,
        beta: j.beta,
        length: j.length,
        algo: j.algo.name(),
        dests: j.dests,
        rate: j.rate,
        created: st.created,
        refused: st.refused,
        measured: st.measured,
        mean_latency: st.mean_latency(),
        max_latency: st.latency_max,
        backlog_warm,
        backlog_end,
        saturated: !drained
            || st.refused * 100 > st.created + st.refused
            || backlog_end > 2 * backlog_warm + 8,
    })
}

/// Runs every point on all cores, in a fixed order.
pub fn run(o: &MeshOptions, progress: &(dyn Fn() + Sync)) -> Result<Vec<MeshPoint>> {
    let mesh = Mesh::new(5, 5, 5)?;
    super::run_parallel(jobs(o.quick), |j| run_job(&mesh, j, o), progress)
}

/// Number of points a sweep runs.
pub fn points(quick: bool) -> usize {
    jobs(quick).len()
}

/// Writes `mesh_load.csv`, `mesh_dests.csv` and their plots (SVG, PNG).
pub fn write_outputs(points: &[MeshPoint], dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    for exp in ["load", "dests"] {
        let mut csv = String::from(
            "beta,length,algo,dests,rate,created,refused,measured,mean_latency,max_latency,backlog_warm,backlog_end,saturated\n",
        );
        for p in points.iter().filter(|p| p.experiment == exp) {
            csv.push_str(&format!(
                "{},{},{},{},{:.2e},{},{},{},{:.1},{},{},{},{}\n",
                p.beta,
                p.length,
                p.algo,
                p.dests,
                p.rate,
                p.created,
                p.refused,
                p.measured,
                p.mean_latency,
                p.max_latency,
                p.backlog_warm,
                p.backlog_end,
                p.saturated
            ));
        }
        let path = dir.join(format!("mesh_{exp}.csv"));
        std::fs::write(&path, csv).map_err(|e| Error::io(&path, e))?;
        let mut panels = Vec::new();
        for beta in BETAS {
            let lengths: &[u32] = if exp == "load" {
                &[1, 100, 1000]
            } else {
                &[100, 1000]
            };
            for &length in lengths {
                let series = ["tp", "sp"]
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
                            name: if a == "tp" { "TP".into() } else { "SP".into() },
                            color: if a == "tp" {
                                (0, 90, 200)
                            } else {
                                (200, 30, 30)
                            },
                            points: mine
                                .iter()
                                .filter(|p| !p.saturated)
                                .map(|p| (x(p), p.mean_latency))
                                .collect(),
                            spread: Vec::new(),
                            saturated: mine.iter().filter(|p| p.saturated).map(|p| x(p)).collect(),
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
                    y_desc: "Average latency (cycles)".into(),
                    series,
                });
            }
        }
        let title = if exp == "load" {
            "5x5x5 mesh, 12 destinations: latency against load (seed 002 Figs. 5, 6)"
        } else {
            "5x5x5 mesh: latency against destinations (seed 002 Figs. 7, 8)"
        };
        write_plots(
            title,
            "Points: mean latency of the multicasts created after the warm-up. \
             x on the axis: saturated (sources refused more than 1% of the multicasts, \
             or the network did not drain), no latency drawn.",
            &panels,
            &dir.join(format!("mesh_{exp}")),
        )?;
    }
    Ok(())
}

//! The experiments of seed 003 section 3.4: tree-based multicast with
//! pruning against pseudo-multicast (one unicast per destination) on an 8x8
//! mesh, an 8x8 torus and an 8x8x8 torus, with dimension-order routing (two
//! virtual channels per physical channel on the tori).
//!
//! Every point runs through the one engine ([`crate::engine`]: the `tree`
//! router model, scheme `tree` or `pseudo`). All traffic is multicast:
//! every node starts multicasts at random (geometric gaps, a probability
//! per cycle), each with one data flit and
//! 4, 12 or 25 distinct random destinations (the paper's range is 4 to 25;
//! the three settings are its ends and a middle). The load axis is the
//! *copy rate*: copies a node receives per cycle on average (rate x
//! destinations), so a copy rate of 0.5 fills every consumption channel
//! (a copy is two flits). Latency is from a multicast's creation to its
//! last copy's data flit, over multicasts created after the warm-up; after
//! the run the traffic stops and the network drains. A point is
//! *saturated* under the engine's rule (a source refused a multicast, 64
//! of its own being outstanding, fewer copies arrived than 95% of those
//! offered, or the latency kept growing) or when the drain did not finish.

use super::{Panel, PointJournal, Series, SweepOptions, write_plots};
use crate::direct::{Grid, Pruning, Release, Scheme};
use crate::engine::{RouterModel, RunOptions, RunResult, TopoSpec};
use crate::{Error, Result};
use serde::Serialize;
use std::path::Path;

/// The options of the seed 003 sweep.
pub type TreeOptions = SweepOptions;

/// The defaults: 30,000 cycles with a 6,000-cycle warm-up, or 6,000 and
/// 1,500 when `quick`.
pub fn options(quick: bool) -> TreeOptions {
    SweepOptions::new(quick, (30_000, 6_000), (6_000, 1_500))
}

/// The topologies of the paper's figures.
pub const TOPOLOGIES: [&str; 3] = ["mesh:8x8", "torus:8x8", "torus:8x8x8"];

/// Destinations per multicast in the sweeps.
pub const DESTS: [u32; 3] = [4, 12, 25];

/// One simulated point.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct TreePoint {
    /// The reading of the open choices ([`BASE`] in the load sweep).
    #[serde(deserialize_with = "variant_name")]
    pub variant: super::Name,
    /// Mean latency per copy (creation to that copy's data flit).
    pub copy_latency: f64,
    /// `mesh:8x8`, ...
    #[serde(deserialize_with = "topology_name")]
    pub topology: super::Name,
    /// `tree` or `pseudo`.
    #[serde(deserialize_with = "scheme_name")]
    pub scheme: super::Name,
    /// Destinations per multicast.
    pub dests: u32,
    /// Offered copies per node per cycle.
    pub copy_rate: f64,
    /// Multicasts started per node per cycle.
    pub rate: f64,
    /// Multicasts created in the measured window and taken by their
    /// sources.
    pub created: u64,
    /// Multicasts refused at full source queues (the whole run).
    pub refused: u64,
    /// Multicasts measured.
    pub measured: u64,
    /// Mean latency of the measured multicasts.
    pub mean_latency: f64,
    /// Largest.
    pub max_latency: u64,
    /// Prunes in the measured window per multicast created in it.
    pub prunes_per_mcast: f64,
    /// Flits over external channels per copy delivered.
    pub link_flits_per_copy: f64,
    /// See the module's documentation.
    pub saturated: bool,
}

fn variant_name<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<&'static str, D::Error> {
    super::known_name(d, VARIANTS.iter().map(|v| v.name))
}

fn topology_name<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<&'static str, D::Error> {
    super::known_name(d, TOPOLOGIES)
}

fn scheme_name<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<&'static str, D::Error> {
    super::known_name(d, [Scheme::Tree.name(), Scheme::Pseudo.name()])
}

#[derive(Clone, Copy, Debug)]
struct Job {
    topology: &'static str,
    scheme: Scheme,
    dests: u32,
    copy_rate: f64,
    variant: Variant,
}

/// One reading of a choice seed 003 leaves open (section 3.4 gives none of
/// these): the router's depths, when a stalled branch is pruned, and
/// whether "N destinations" is a fixed count or an average.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Variant {
    /// Its name in `tree_variants.csv`.
    pub name: &'static str,
    /// Cycles an input may stall before it prunes.
    pub stall_limit: u32,
    /// Flits per input virtual channel FIFO.
    pub buffer_flits: usize,
    /// Destinations drawn uniformly from 1 to `2N - 1` (mean `N`) instead
    /// of exactly `N`.
    pub spread: bool,
    /// Start-up cycles per worm at the source (pseudo-multicast pays it
    /// per unicast).
    pub startup: u64,
    /// Selective pruning: cut only the branches another message waits for
    /// (the paper's proposed future work).
    pub selective: bool,
    /// When a branch releases its output virtual channel.
    pub release: Release,
}

/// The model's own choices (docs/tree.md): prune after 1 stalled cycle,
/// 2-flit FIFOs, exactly `N` destinations.
pub const BASE: Variant = Variant {
    name: "base",
    stall_limit: 1,
    buffer_flits: 2,
    spread: false,
    startup: 0,
    selective: false,
    release: Release::AtEnd,
};

/// The readings `tree variants` compares.
pub const VARIANTS: [Variant; 8] = [
    BASE,
    Variant {
        name: "stall-4",
        stall_limit: 4,
        ..BASE
    },
    Variant {
        name: "stall-16",
        stall_limit: 16,
        ..BASE
    },
    Variant {
        name: "buffer-8",
        buffer_flits: 8,
        ..BASE
    },
    Variant {
        name: "spread",
        spread: true,
        ..BASE
    },
    Variant {
        name: "startup-10",
        startup: 10,
        ..BASE
    },
    Variant {
        name: "selective",
        selective: true,
        ..BASE
    },
    Variant {
        name: "release-turn",
        release: Release::OnTurn,
        ..BASE
    },
];

/// Copy rates swept on a topology: fine steps up to past the saturation of
/// both schemes; `quick` takes a light load and one far past saturation.
pub fn copy_rates(topology: &str, quick: bool) -> Vec<f64> {
    if quick {
        return vec![0.015, 0.3];
    }
    match topology {
        "mesh:8x8" => vec![0.005, 0.015, 0.03, 0.045, 0.06, 0.08, 0.1, 0.12, 0.15],
        _ => vec![0.005, 0.015, 0.03, 0.05, 0.07, 0.09, 0.12, 0.15, 0.2],
    }
}

/// Every job of a grid: per topology, destinations, copy rate (the
/// topology's) and variant, both schemes.
fn grid(
    tops: &[&'static str],
    dests: &[u32],
    rates: impl Fn(&str) -> Vec<f64>,
    variants: &[Variant],
) -> Vec<Job> {
    let mut v = Vec::new();
    for &topology in tops {
        for &dests in dests {
            for copy_rate in rates(topology) {
                for &variant in variants {
                    for scheme in [Scheme::Tree, Scheme::Pseudo] {
                        v.push(Job {
                            topology,
                            scheme,
                            dests,
                            copy_rate,
                            variant,
                        });
                    }
                }
            }
        }
    }
    v
}

fn jobs(quick: bool, variant: Variant) -> Vec<Job> {
    let tops: &[&'static str] = if quick { &TOPOLOGIES[..2] } else { &TOPOLOGIES };
    let ds: &[u32] = if quick { &[4, 25] } else { &DESTS };
    grid(tops, ds, |t| copy_rates(t, quick), &[variant])
}

fn run_job(j: Job, o: &TreeOptions) -> Result<TreePoint> {
    let topo = TopoSpec::parse(j.topology)?;
    let rate = j.copy_rate / j.dests as f64;
    let packet = 2; // the header and one data flit
    let degrees = if j.variant.spread {
        (1, 2 * j.dests - 1)
    } else {
        (j.dests, j.dests)
    };
    let ro = RunOptions {
        multicast: Some(degrees),
        load: rate * packet as f64,
        tree: crate::direct::TreeConfig {
            buffer_flits: j.variant.buffer_flits,
            pruning: if j.variant.selective {
                Pruning::Selective {
                    stall_limit: j.variant.stall_limit,
                }
            } else {
                Pruning::On {
                    stall_limit: j.variant.stall_limit,
                }
            },
            startup: j.variant.startup,
            release: j.variant.release,
            ..crate::direct::TreeConfig::default()
        },
        packet,
        warmup: o.warmup.min(o.cycles),
        cycles: o.cycles - o.warmup.min(o.cycles),
        seed: o.seed,
        scheme: Some(j.scheme.name().into()),
        drain: Some(o.cycles * 4),
        ..RunOptions::default()
    };
    let point = |r: Option<&RunResult>| TreePoint {
        variant: j.variant.name,
        copy_latency: r.map_or(0.0, |r| r.latency.mean),
        topology: j.topology,
        scheme: j.scheme.name(),
        dests: j.dests,
        copy_rate: j.copy_rate,
        rate,
        created: r.map_or(0, |r| r.generated),
        refused: r.map_or(0, |r| r.refused),
        measured: r.map_or(0, |r| r.message_latency.count),
        mean_latency: r.map_or(0.0, |r| r.message_latency.mean),
        max_latency: r.map_or(0, |r| r.message_latency.max),
        prunes_per_mcast: r.map_or(0.0, |r| {
            r.events.get("prunes").copied().unwrap_or(0) as f64 / r.generated.max(1) as f64
        }),
        link_flits_per_copy: r.map_or(0.0, |r| {
            r.links.flits_between_routers as f64 / r.delivered.max(1) as f64
        }),
        saturated: r.is_none_or(|r| r.saturated),
    };
    match crate::engine::run(&topo, Some(RouterModel::Tree), None, &ro) {
        Ok(r) => Ok(point(Some(&r))),
        // The network did not drain: saturated, no latency to report.
        Err(Error::NotDrained { .. }) => Ok(point(None)),
        Err(e) => Err(e),
    }
}

/// Runs every point on all cores, in a fixed order.
pub fn run(o: &TreeOptions, progress: &(dyn Fn() + Sync)) -> Result<Vec<TreePoint>> {
    run_variant(o, BASE, progress)
}

/// The load sweep under another reading of the open choices (see
/// [`VARIANTS`]).
pub fn run_variant(
    o: &TreeOptions,
    variant: Variant,
    progress: &(dyn Fn() + Sync),
) -> Result<Vec<TreePoint>> {
    check(o)?;
    super::run_parallel(jobs(o.quick, variant), |j| run_job(j, o), progress)
}

/// [`run_variant`], resumable through `journal` (see [`PointJournal`]):
/// the points it holds are not run again, and only those of its shard
/// run. Returns the shard's points and how many came from the journal.
pub fn run_variant_in(
    o: &TreeOptions,
    variant: Variant,
    journal: &PointJournal,
    progress: &(dyn Fn() + Sync),
) -> Result<(Vec<TreePoint>, usize)> {
    check(o)?;
    super::run_parallel_in(jobs(o.quick, variant), |j| run_job(j, o), journal, progress)
}

/// A point's warm-up is part of its cycles: it must leave some to measure.
fn check(o: &TreeOptions) -> Result<()> {
    if o.warmup >= o.cycles {
        return Err(crate::Error::Config {
            field: "warmup",
            value: o.warmup.to_string(),
            reason: format!(
                "not shorter than the {} cycles of a point, which include it",
                o.cycles
            ),
        });
    }
    Ok(())
}

/// The variant named `name` (`base`, `stall-4`, ...), or an error naming
/// the valid ones.
pub fn variant(name: &str) -> Result<Variant> {
    VARIANTS
        .iter()
        .find(|v| v.name == name)
        .copied()
        .ok_or_else(|| Error::Config {
            field: "variant",
            value: name.into(),
            reason: format!(
                "one of {}",
                VARIANTS
                    .iter()
                    .map(|v| v.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        })
}

/// Number of points a sweep runs.
pub fn points(quick: bool) -> usize {
    jobs(quick, BASE).len()
}

/// The copy rates of the variants sweep: light, moderate, and the two the
/// paper's "near saturation" claim is about.
const VARIANT_RATES: [f64; 4] = [0.005, 0.015, 0.03, 0.06];

fn variant_jobs(quick: bool) -> Vec<Job> {
    let tops: &[&'static str] = if quick {
        &TOPOLOGIES[..1]
    } else {
        &TOPOLOGIES[..2]
    };
    let rates: &[f64] = if quick {
        &VARIANT_RATES[..2]
    } else {
        &VARIANT_RATES
    };
    grid(tops, &DESTS, |_| rates.to_vec(), &VARIANTS)
}

/// Runs the variants sweep ([`VARIANTS`] on the 8x8 mesh and 8x8 torus;
/// `quick`: the mesh, two loads).
pub fn run_variants(o: &TreeOptions, progress: &(dyn Fn() + Sync)) -> Result<Vec<TreePoint>> {
    check(o)?;
    super::run_parallel(variant_jobs(o.quick), |j| run_job(j, o), progress)
}

/// [`run_variants`], resumable through `journal` (see [`PointJournal`]),
/// as [`run_variant_in`] is.
pub fn run_variants_in(
    o: &TreeOptions,
    journal: &PointJournal,
    progress: &(dyn Fn() + Sync),
) -> Result<(Vec<TreePoint>, usize)> {
    check(o)?;
    super::run_parallel_in(variant_jobs(o.quick), |j| run_job(j, o), journal, progress)
}

/// Number of points the variants sweep runs.
pub fn variant_points(quick: bool) -> usize {
    variant_jobs(quick).len()
}

/// The tree's gain over pseudo-multicast, `1 - tree / pseudo`, per
/// multicast and per copy, of two points of one setting (`None` when either
/// is saturated).
pub fn gain(tree: &TreePoint, pseudo: &TreePoint) -> Option<(f64, f64)> {
    (!tree.saturated && !pseudo.saturated).then(|| {
        (
            1.0 - tree.mean_latency / pseudo.mean_latency,
            1.0 - tree.copy_latency / pseudo.copy_latency,
        )
    })
}

/// Writes `tree_variants.csv`: per topology, destinations, load and
/// variant, both schemes' latencies per multicast and per copy and the
/// tree's gains (empty where a point is saturated).
pub fn write_variants(points: &[TreePoint], dir: &Path) -> Result<()> {
    crate::make_dir(dir)?;
    let mut csv = String::from(
        "topology,dests,copy_rate,variant,tree_latency,pseudo_latency,gain,tree_copy_latency,pseudo_copy_latency,copy_gain,tree_prunes_per_mcast,saturated\n",
    );
    for t in points.iter().filter(|p| p.scheme == "tree") {
        let Some(p) = points.iter().find(|p| {
            p.scheme == "pseudo"
                && p.topology == t.topology
                && p.dests == t.dests
                && p.copy_rate == t.copy_rate
                && p.variant == t.variant
        }) else {
            continue;
        };
        let g = gain(t, p);
        csv.push_str(&format!(
            "{},{},{},{},{:.1},{:.1},{},{:.1},{:.1},{},{:.3},{}\n",
            t.topology,
            t.dests,
            t.copy_rate,
            t.variant,
            t.mean_latency,
            p.mean_latency,
            g.map_or(String::new(), |g| format!("{:.3}", g.0)),
            t.copy_latency,
            p.copy_latency,
            g.map_or(String::new(), |g| format!("{:.3}", g.1)),
            t.prunes_per_mcast,
            t.saturated || p.saturated
        ));
    }
    let path = dir.join("tree_variants.csv");
    crate::error::write_bytes(&path, csv)
}

/// Writes `tree_load.csv` and its plot (SVG, PNG): one panel per topology
/// and destination count, tree against pseudo, unsaturated points only.
pub fn write_outputs(points: &[TreePoint], dir: &Path) -> Result<()> {
    crate::make_dir(dir)?;
    let variant = points.first().map_or(BASE.name, |p| p.variant);
    let stem = load_stem(variant);
    let mut csv = String::from(
        "topology,scheme,dests,copy_rate,rate,created,refused,measured,mean_latency,copy_latency,max_latency,prunes_per_mcast,link_flits_per_copy,saturated\n",
    );
    for p in points {
        csv.push_str(&format!(
            "{},{},{},{:.4},{:.6},{},{},{},{:.1},{:.1},{},{:.3},{:.2},{}\n",
            p.topology,
            p.scheme,
            p.dests,
            p.copy_rate,
            p.rate,
            p.created,
            p.refused,
            p.measured,
            p.mean_latency,
            p.copy_latency,
            p.max_latency,
            p.prunes_per_mcast,
            p.link_flits_per_copy,
            p.saturated
        ));
    }
    let path = dir.join(format!("{stem}.csv"));
    crate::error::write_bytes(&path, csv)?;
    let mut panels = Vec::new();
    for topology in TOPOLOGIES {
        for dests in DESTS {
            let series: Vec<Series> = [
                ("tree", "tree with pruning", (0, 90, 200)),
                ("pseudo", "pseudo-multicast", (200, 30, 30)),
            ]
            .iter()
            .map(|&(s, name, color)| {
                let mine = || {
                    points.iter().filter(move |p| {
                        p.topology == topology && p.dests == dests && p.scheme == s
                    })
                };
                Series {
                    name: name.into(),
                    color,
                    points: mine()
                        .filter(|p| !p.saturated)
                        .map(|p| (p.copy_rate, p.mean_latency))
                        .collect(),
                    spread: Vec::new(),
                    saturated: mine()
                        .filter(|p| p.saturated)
                        .map(|p| p.copy_rate)
                        .collect(),
                }
            })
            .collect();
            if series
                .iter()
                .all(|s| s.points.is_empty() && s.saturated.is_empty())
            {
                continue;
            }
            let g = Grid::parse(topology)?;
            panels.push(Panel {
                label: format!("{g}, {dests} destinations"),
                x_desc: "Copies per node per cycle".into(),
                y_desc: "Average multicast latency (cycles)".into(),
                series,
            });
        }
    }
    let mut title =
        "Tree multicast with pruning vs pseudo-multicast, 1 data flit (seed 003 section 3.4)"
            .to_string();
    if variant != BASE.name {
        title.push_str(&format!(", variant {variant}"));
    }
    write_plots(
        &title,
        "Points: mean latency of the multicasts created after the warm-up. \
         x on the axis: saturated (sources refused more than 1% of the multicasts, \
         the backlog kept growing, or the network did not drain), no latency drawn.",
        &panels,
        &dir.join(&stem),
    )?;
    Ok(())
}

/// The file name (without extension) of the load sweep under `variant`:
/// `tree_load` for the base reading, `tree_load-<variant>` otherwise.
pub fn load_stem(variant: &str) -> String {
    if variant == BASE.name {
        "tree_load".into()
    } else {
        format!("tree_load-{variant}")
    }
}

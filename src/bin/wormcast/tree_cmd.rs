//! `wormcast tree`: tree-based multicast with pruning and pseudo-multicast
//! on meshes and tori (seed 003).

use clap::{Args, Subcommand};
use serde::Serialize;
use std::path::PathBuf;
use wormcast::direct::{Grid, Pruning, Release, Scheme, TreeConfig, TreeNet, TreeStats};
use wormcast::experiment::tree::{options, points, write_outputs};
use wormcast::{Error, Result};

#[derive(Subcommand)]
pub enum TreeCmd {
    /// Sends multicasts on an idle mesh or torus at cycle 0 and reports
    /// every copy's cycle and route, the prunes, or the deadlock.
    Send(SendArgs),
    /// Latency against load, tree with pruning against pseudo-multicast, on
    /// the 8x8 mesh, 8x8 torus and 8x8x8 torus (seed 003 section 3.4).
    #[command(after_help = crate::mesh_exp::defaults_help(options))]
    Experiment(ExperimentArgs),
    /// The tree's gain over pseudo-multicast under other readings of the
    /// choices seed 003 leaves open (pruning delay, FIFO depth, a fixed or
    /// an average number of destinations, a start-up per worm, selective
    /// pruning, releasing a branch on a turn) on the 8x8 mesh and torus:
    /// tree_variants.csv (docs/reproduction.md).
    #[command(after_help = crate::mesh_exp::defaults_help(options))]
    Variants(crate::mesh_exp::SweepArgs),
    /// Combine the points of every shard of one `tree experiment --shard
    /// I/N` or `tree variants --shard I/N` into the CSV file and plots one
    /// run writes, byte for byte.
    Merge(crate::mesh_exp::MergeArgs),
}

#[derive(Args)]
pub struct ExperimentArgs {
    #[command(flatten)]
    sweep: crate::mesh_exp::SweepArgs,
    /// The reading of the open choices: base, stall-4, stall-16, buffer-8,
    /// spread, startup-10, selective or release-turn (files
    /// tree_load-<variant>.csv/.png; base writes tree_load).
    #[arg(long, default_value = "base")]
    variant: String,
}

#[derive(Args)]
// The waveform a window (`TraceArgs`) limits.
#[command(group(clap::ArgGroup::new("waveform").args(["vcd"]).multiple(true)))]
pub struct SendArgs {
    /// mesh:KXxKY[xKZ] or torus:KXxKY[xKZ].
    #[arg(long, default_value = "mesh:8x8")]
    topo: String,
    /// A multicast as SOURCE>DEST;DEST;... with nodes as x,y[,z], e.g.
    /// "6,5>3,0;0,5;3,7" (repeat for several).
    #[arg(long = "send", required = true)]
    sends: Vec<String>,
    /// tree or pseudo.
    #[arg(long, default_value = "tree")]
    scheme: String,
    /// Data flits per message.
    #[arg(long, default_value_t = 1)]
    data: u16,
    /// Data flits every auxiliary buffer holds.
    #[arg(long, default_value_t = 4)]
    aux: usize,
    /// Flits per input FIFO.
    #[arg(long, default_value_t = 2)]
    buffer: usize,
    /// No pruning (a blocked tree can deadlock).
    #[arg(long)]
    no_prune: bool,
    /// Write every router's registers to this waveform (`.fst` for FST,
    /// else VCD), with a GTKWave `.gtkw` and a Surfer `.sucl` beside it;
    /// `-` writes VCD to standard output and the report to standard error.
    #[arg(long)]
    vcd: Option<PathBuf>,
    #[command(flatten)]
    window: crate::TraceArgs,
    /// Cycles an input may be stalled before it prunes.
    #[arg(long, default_value_t = 1)]
    stall_limit: u32,
    /// Prune selectively: only the branches another message waits for.
    #[arg(long)]
    selective_prune: bool,
    /// When a branch releases its channel: `end` or `turn`.
    #[arg(long, default_value = "end", value_parser = ["end", "turn"])]
    release: String,
    /// Print one JSON object: every copy's cycle and route, the prunes,
    /// the counters, and the deadlock if there was one.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct CopyOut {
    mcast: u32,
    source: String,
    node: String,
    cycle: u64,
    route: Vec<String>,
}

#[derive(Serialize)]
struct SendOut {
    topology: String,
    scheme: &'static str,
    /// Cycle by which every copy was delivered (`None` after a deadlock).
    cycles: Option<u64>,
    /// The deadlock the watchdog found, with its waiting cycle.
    deadlock: Option<wormcast::direct::TreeWaitReport>,
    copies: Vec<CopyOut>,
    prunes: Vec<String>,
    stats: TreeStats,
}

fn node(g: &Grid, text: &str) -> Result<u32> {
    let bad = |reason: String| Error::Config {
        field: "node",
        value: text.into(),
        reason,
    };
    let c: Vec<u32> = text
        .split(',')
        .map(|s| s.trim().parse::<u32>())
        .collect::<std::result::Result<_, _>>()
        .map_err(|_| bad("a node is x,y or x,y,z".into()))?;
    let k = g.sides();
    let want = if k[2] == 1 { 2 } else { 3 };
    if c.len() != want {
        return Err(bad(format!("the {g} names a node with {want} coordinates")));
    }
    let c3 = [c[0], c[1], c.get(2).copied().unwrap_or(0)];
    if (0..3).any(|d| c3[d] >= k[d]) {
        return Err(bad(format!("outside the {g}")));
    }
    Ok(g.id(c3))
}

/// The library's check of a destination list, its faults named in the
/// coordinates `--send` gives (node numbers read as coordinates here:
/// `dests = 9,9` for `1,1;1,1`).
fn check_send(g: &Grid, text: &str, src: u32, dests: &[u32]) -> Result<()> {
    let nodes = g.sides().iter().product();
    wormcast::dests::check_named(nodes, src, dests, |x| g.node_name(x)).map_err(|e| match e {
        Error::BadDests(reason) => Error::Config {
            field: "send",
            value: text.into(),
            reason,
        },
        e => e,
    })
}

fn send(a: &SendArgs) -> Result<bool> {
    let g = Grid::parse(&a.topo)?;
    let scheme = match a.scheme.as_str() {
        "tree" => Scheme::Tree,
        "pseudo" => Scheme::Pseudo,
        s => {
            return Err(Error::Config {
                field: "scheme",
                value: s.into(),
                reason: "tree or pseudo".into(),
            });
        }
    };
    let cfg = TreeConfig {
        buffer_flits: a.buffer,
        aux_flits: a.aux,
        pruning: if a.no_prune {
            Pruning::Off
        } else if a.selective_prune {
            Pruning::Selective {
                stall_limit: a.stall_limit,
            }
        } else {
            Pruning::On {
                stall_limit: a.stall_limit,
            }
        },
        release: if a.release == "turn" {
            Release::OnTurn
        } else {
            Release::AtEnd
        },
        keep_routes: true,
        keep_deliveries: true,
        keep_prunes: true,
        ..TreeConfig::default()
    };
    // A bad buffer is named as such; then a grid too large for the
    // machine's memory is refused before its routers are built, as a run
    // refuses it.
    cfg.validate()?;
    wormcast::engine::check_direct_memory(
        &wormcast::engine::TopoSpec::parse(&a.topo)?,
        wormcast::engine::RouterModel::Tree,
        &wormcast::engine::RunOptions {
            tree: cfg.clone(),
            ..Default::default()
        },
    )?;
    let mut net = TreeNet::new(g, cfg)?;
    if let Some(v) = &a.vcd {
        net.attach_tracer(a.window.open(v, "wormcast tree send")?, 5_000)?;
    }
    for s in &a.sends {
        let (src, dests) = s.split_once('>').ok_or_else(|| Error::Config {
            field: "send",
            value: s.clone(),
            reason: "expected SOURCE>DEST;DEST;...".into(),
        })?;
        let src = node(&g, src)?;
        let dests = dests
            .split(';')
            .map(|d| node(&g, d))
            .collect::<Result<Vec<u32>>>()?;
        check_send(&g, s, src, &dests)?;
        net.send(src, &dests, a.data, scheme)?;
    }
    let cycles = net.run_until_delivered(1_000_000);
    let h = crate::after_report(net.finish_trace_hierarchy())?;
    crate::direct::finish_views(a.vcd.as_deref(), h, &a.window)?;
    let (cycles, deadlock) = match cycles {
        Ok(c) => (Some(c), None),
        Err(Error::TreeDeadlock(r)) => (None, Some(*r)),
        Err(e) => return Err(e),
    };
    let copies: Vec<CopyOut> = net
        .deliveries()
        .iter()
        .map(|d| CopyOut {
            mcast: d.mcast,
            source: g.node_name(d.src),
            node: g.node_name(d.node),
            cycle: d.cycle,
            route: net
                .route_of(d.mcast, d.node)
                .unwrap_or(&[])
                .iter()
                .map(|&(r, h)| g.channel_name(r, h))
                .collect(),
        })
        .collect();
    let prunes: Vec<String> = net
        .prunes()
        .iter()
        .map(|p| {
            format!(
                "cycle {}: multicast {} cut {} branch(es) at {}",
                p.cycle,
                p.mcast,
                p.cut,
                g.node_name(p.node)
            )
        })
        .collect();
    let out = SendOut {
        topology: g.to_string(),
        scheme: scheme.name(),
        cycles,
        deadlock,
        copies,
        prunes,
        stats: net.stats().clone(),
    };
    // A deadlock is what the run found, not a failure to run: exit status 1.
    let finished = out.deadlock.is_none();
    if a.json {
        say!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(finished);
    }
    match (&out.cycles, &out.deadlock) {
        (Some(c), _) => say!(
            "{} multicast on the {}: all copies delivered by cycle {c}",
            out.scheme,
            out.topology
        ),
        (None, _) => say!(
            "{} multicast on the {}: deadlocked; the copies delivered before:",
            out.scheme,
            out.topology
        ),
    }
    for c in &out.copies {
        say!(
            "  multicast {} {} -> {} at cycle {}: {}",
            c.mcast,
            c.source,
            c.node,
            c.cycle,
            c.route.join(" ")
        );
    }
    for p in &out.prunes {
        say!("  prune: {p}");
    }
    let s = &out.stats;
    say!(
        "  {} flits over external channels, {} data flits replayed, {} prunes cutting {} branches, {} branches released early",
        s.link_flits,
        s.replayed,
        s.prunes,
        s.branches_cut,
        s.early_releases
    );
    if let Some(d) = &out.deadlock {
        say!("{d}");
    }
    Ok(finished)
}

fn experiment(a: &ExperimentArgs) -> Result<()> {
    let v = wormcast::experiment::tree::variant(&a.variant)?;
    let stem = wormcast::experiment::tree::load_stem(v.name);
    a.sweep.sweep(
        options,
        points,
        &format!("tree experiment --variant {}", v.name),
        |o, j, p| wormcast::experiment::tree::run_variant_in(o, v, j, p),
        write_outputs,
        &[&stem],
        "tree merge",
    )
}

/// `wormcast tree merge`: the shards of `tree experiment` (any variant) or
/// of `tree variants`.
fn merge(a: &crate::mesh_exp::MergeArgs) -> Result<()> {
    let is_ours = |s: &str| s == "tree variants" || s.starts_with("tree experiment --variant ");
    let files = a.read(
        is_ours,
        "tree merge",
        "the shards of `tree experiment` and `tree variants`",
    )?;
    let sweep = files.first().map_or("", |f| f.sweep.as_str());
    match sweep.strip_prefix("tree experiment --variant ") {
        Some(name) => {
            let v = wormcast::experiment::tree::variant(name)?;
            let stem = wormcast::experiment::tree::load_stem(v.name);
            a.merge(&files, points, write_outputs, &[&stem])
        }
        None => a.merge(
            &files,
            wormcast::experiment::tree::variant_points,
            wormcast::experiment::tree::write_variants,
            &["tree_variants"],
        ),
    }
}

/// Ok(false) when a multicast deadlocked (exit status 1).
pub fn run(cmd: TreeCmd) -> Result<bool> {
    match cmd {
        TreeCmd::Send(a) => send(&a),
        TreeCmd::Experiment(a) => experiment(&a).map(|()| true),
        TreeCmd::Variants(a) => a
            .sweep(
                options,
                wormcast::experiment::tree::variant_points,
                "tree variants",
                wormcast::experiment::tree::run_variants_in,
                wormcast::experiment::tree::write_variants,
                &["tree_variants"],
                "tree merge",
            )
            .map(|()| true),
        TreeCmd::Merge(a) => merge(&a).map(|()| true),
    }
}

//! `wormcast hypercube ...`: path counting and multicasts on wormhole
//! hypercubes (seed 001).

use clap::{Args, Subcommand};
use serde::Serialize;
use std::path::PathBuf;
use std::sync::Arc;
use wormcast::direct::count::{
    ClosedForms, PathCounts, TABLE1, closed_forms, count_paths, ud_path_average,
};
use wormcast::direct::cube::natural_list;
use wormcast::direct::{
    CubeFabric, DirectConfig, DirectSystem, Hypercube, PortModel, Routing, WormInfo, format_list,
    multicast_paths,
};
use wormcast::{Error, Result};

#[derive(Subcommand)]
pub enum CubeCmd {
    /// Average number of legal shortest paths at distances 1..=k under
    /// Restriction 2, counted by enumeration, beside seed 001 Table 1 and
    /// its closed forms (equations 4.1-4.12).
    Paths {
        /// Largest distance (1 to 12).
        #[arg(long, default_value_t = 10)]
        max_distance: u32,
        /// Routing function: ecube, r1, r2 or minimal.
        #[arg(long, default_value = "r2")]
        routing: String,
        /// Print one JSON object: per distance, the counted and the
        /// closed-form path counts.
        #[arg(long)]
        json: bool,
    },
    /// Sends one multicast worm on an idle hypercube and reports its route and
    /// deliveries; with --paths, lists every multicast path the routers may
    /// give the list.
    Multicast(CubeMcastArgs),
}

#[derive(Args)]
// The waveform a window (`TraceArgs`) limits.
#[command(group(clap::ArgGroup::new("waveform").args(["vcd"]).multiple(true)))]
pub struct CubeMcastArgs {
    /// Dimensions of the cube.
    #[arg(long, default_value_t = 3)]
    dims: u32,
    /// Routing function: ecube, r1, r2 or minimal.
    #[arg(long, default_value = "r2")]
    routing: String,
    /// Internal channel pairs: one, all or a number.
    #[arg(long, default_value = "one")]
    ports: String,
    /// Flits per input buffer.
    #[arg(long, default_value_t = 2)]
    buffer: u32,
    /// The source node.
    #[arg(long)]
    src: u32,
    /// Destinations in the order given (the multicast list), comma-separated.
    #[arg(long, value_delimiter = ',', required = true)]
    list: Vec<u32>,
    /// Sort the destinations into the natural list first.
    #[arg(long)]
    natural: bool,
    /// Data flits.
    #[arg(long, default_value_t = 8)]
    payload: u32,
    /// List every multicast path instead of simulating.
    #[arg(long)]
    paths: bool,
    /// Write every register to this waveform (`.fst` for FST, else VCD),
    /// with a GTKWave `.gtkw` and a Surfer `.sucl` beside it; `-` writes
    /// VCD to standard output and the report to standard error.
    #[arg(long)]
    vcd: Option<PathBuf>,
    #[command(flatten)]
    window: crate::TraceArgs,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct PathRow {
    k: u32,
    counted: PathCounts,
    unicast_average: f64,
    natural_lower: f64,
    natural_upper: f64,
    closed_forms: ClosedForms,
    ud_path: f64,
    table1_ud_path: f64,
    table1_lower: f64,
    table1_upper: f64,
}

pub fn run(cmd: CubeCmd) -> Result<()> {
    match cmd {
        CubeCmd::Paths {
            max_distance,
            routing,
            json,
        } => paths(max_distance, Routing::parse(&routing)?, json),
        CubeCmd::Multicast(a) => multicast(&a),
    }
}

/// A figure of Table 1 with two decimals, or `-` past the table's last
/// distance.
fn printed(x: f64) -> String {
    if x.is_nan() {
        "-".into()
    } else {
        format!("{x:.2}")
    }
}

fn paths(max: u32, routing: Routing, json: bool) -> Result<()> {
    if !(1..=12).contains(&max) {
        return Err(Error::Config {
            field: "max-distance",
            value: max.to_string(),
            reason: "counting by enumeration goes to distance 12".into(),
        });
    }
    let rows: Vec<PathRow> = (1..=max)
        .map(|k| {
            let c = count_paths(routing, k);
            let t = TABLE1
                .get(k as usize - 1)
                .copied()
                .unwrap_or((f64::NAN, f64::NAN, f64::NAN));
            PathRow {
                k,
                unicast_average: c.unicast_average(),
                natural_lower: c.natural_lower(),
                natural_upper: c.natural_upper(),
                counted: c,
                closed_forms: closed_forms(k),
                ud_path: ud_path_average(k),
                table1_ud_path: t.0,
                table1_lower: t.1,
                table1_upper: t.2,
            }
        })
        .collect();
    if json {
        #[derive(Serialize)]
        struct Out<'a> {
            routing: &'a str,
            rows: &'a [PathRow],
        }
        say!(
            "{}",
            serde_json::to_string_pretty(&Out {
                routing: routing.name(),
                rows: &rows
            })?
        );
        return Ok(());
    }
    say!("average number of legal shortest paths under {routing}, counted by enumeration");
    say!("(natural list: between consecutive destinations; lower bound = first channel positive)");
    say!(
        "{:>2} | {:>12} {:>12} | {:>12} {:>12} | {:>12} {:>12} | {:>10} {:>10}",
        "k",
        "unicast",
        "(k+1)!/2^k",
        "nat. lower",
        "Table 1",
        "nat. upper",
        "Table 1",
        "UD-path",
        "Table 1"
    );
    for r in &rows {
        say!(
            "{:>2} | {:>12.2} {:>12.2} | {:>12.2} {:>12} | {:>12.2} {:>12} | {:>10.2} {:>10}",
            r.k,
            r.unicast_average,
            r.closed_forms.lower,
            r.natural_lower,
            printed(r.table1_lower),
            r.natural_upper,
            printed(r.table1_upper),
            r.ud_path,
            printed(r.table1_ud_path)
        );
    }
    say!();
    say!("path totals, counted / closed form:");
    say!(
        "{:>2} | {:>21} {:>21} {:>19} {:>21} | {:>21} {:>21} {:>21}",
        "k",
        "t_k (4.1)",
        "t+_k",
        "t-_k",
        "tN_k (4.7)",
        "t'_k (4.3)",
        "t'P_k (4.10)",
        "t'N_k (4.9)"
    );
    for r in &rows {
        let (c, f) = (&r.counted, &r.closed_forms);
        let pair = |a: u128, b: u128| format!("{a}/{b}");
        say!(
            "{:>2} | {:>21} {:>21} {:>19} {:>21} | {:>21} {:>21} {:>21}",
            r.k,
            pair(c.t, f.t),
            pair(c.t_plus, f.t_plus),
            pair(c.t_minus, f.t_minus),
            pair(c.t_first_negative, f.t_first_negative),
            pair(c.t_natural, f.t_natural),
            pair(c.t_natural_first_positive, f.t_natural_first_positive),
            pair(c.t_natural_first_negative, f.t_natural_first_negative),
        );
    }
    Ok(())
}

#[derive(Serialize)]
struct McastOut<'a> {
    list: String,
    routing: &'a str,
    worm: &'a WormInfo,
    channels: Vec<String>,
    cycles: u64,
}

/// Refuses, before its routers are built, a network of wormhole routers
/// configured by `cfg` that is too large for the machine's memory, as a
/// run refuses it.
fn check_memory(topo: wormcast::engine::TopoSpec, cfg: &DirectConfig) -> Result<()> {
    wormcast::engine::check_direct_memory(
        &topo,
        wormcast::engine::RouterModel::Wormhole,
        &wormcast::engine::RunOptions {
            ports: cfg.ports,
            wormhole_buffer: cfg.buffer_flits,
            ..Default::default()
        },
    )
}

fn multicast(a: &CubeMcastArgs) -> Result<()> {
    let routing = Routing::parse(&a.routing)?;
    let cube = Hypercube::new(a.dims)?;
    let fabric = Arc::new(CubeFabric { cube, routing });
    let list = if a.natural {
        natural_list(&a.list)
    } else {
        a.list.clone()
    };
    if a.paths {
        let p = multicast_paths(fabric.as_ref(), a.src, &list, 100_000)?;
        if a.json {
            say!("{}", serde_json::to_string_pretty(&p)?);
        } else {
            say!(
                "{} under {routing}: {}",
                format_list(a.src, &list),
                wormcast::counted(p.len() as u64, "multicast paths")
            );
            for path in p {
                let s: Vec<String> = path.iter().map(u32::to_string).collect();
                say!("  {}", s.join(" -> "));
            }
        }
        return Ok(());
    }
    let cfg = DirectConfig {
        ports: PortModel::parse(&a.ports)?,
        buffer_flits: a.buffer,
        ..Default::default()
    };
    check_memory(wormcast::engine::TopoSpec::Hypercube(a.dims), &cfg)?;
    let mut sys = DirectSystem::new(fabric, &cfg)?;
    if let Some(v) = &a.vcd {
        sys.attach_tracer(a.window.open(v, "wormcast hypercube multicast")?, 5_000)?;
    }
    sys.send(a.src, &list, a.payload)?;
    let end = sys.run_until_delivered(10_000_000);
    let h = crate::after_report(sys.finish_trace_hierarchy())?;
    finish_views(a.vcd.as_deref(), h, &a.window)?;
    let end = end?;
    let w = &sys.finished()[0];
    let channels: Vec<String> = w
        .route
        .windows(2)
        .map(|p| cube.channel_name(p[0], (p[0] ^ p[1]).trailing_zeros()))
        .collect();
    if a.json {
        let out = McastOut {
            list: format_list(a.src, &list),
            routing: routing.name(),
            worm: w,
            channels,
            cycles: end,
        };
        say!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    say!(
        "{} under {routing}, {} data flits",
        format_list(a.src, &list),
        a.payload
    );
    let route: Vec<String> = w.route.iter().map(u32::to_string).collect();
    say!("route: {}", route.join(" -> "));
    say!("channels: {}", channels.join(", "));
    for d in &w.deliveries {
        say!(
            "  node {:>4}: head at cycle {:>6}, tail at cycle {:>6}",
            d.node,
            d.head,
            d.tail
        );
    }
    if let Some(v) = &a.vcd {
        say!("waveform: {}", v.display());
    }
    Ok(())
}

#[derive(Subcommand)]
pub enum MeshCmd {
    /// Prepares a TP, SP or GTDMPM multicast, runs its worms on an idle all-port mesh
    /// and reports each worm's list, route, high- and low-subnetwork channels
    /// and the largest source-to-destination distance.
    Plan(MeshPlanArgs),
    /// Network latency against injection rate and against the number of
    /// destinations, TP, SP and GTDMPM through the engine, each point run
    /// to the paper's stop rule (seed 002 Figs. 5-8): CSV and plots.
    #[command(after_help = crate::mesh_exp::defaults_help(wormcast::experiment::mesh::options))]
    Experiment(crate::mesh_exp::SweepArgs),
    /// Combine the points of every shard of one `mesh3d experiment
    /// --shard I/N` into the CSV files and plots one run writes, byte for
    /// byte.
    Merge(crate::mesh_exp::MergeArgs),
}

#[derive(Args)]
// The waveform a window (`TraceArgs`) limits.
#[command(group(clap::ArgGroup::new("waveform").args(["vcd"]).multiple(true)))]
pub struct MeshPlanArgs {
    /// Rows x columns x layers (y x x x z), e.g. 4x4x4; MxN for 2-D.
    #[arg(long)]
    dims: String,
    /// The source's coordinates x,y,z.
    #[arg(long)]
    source: String,
    /// Destination labels, comma-separated.
    #[arg(long, value_delimiter = ',', required = true)]
    dests: Vec<u32>,
    /// tp, sp or gtdmpm (the paper's baseline as reconstructed:
    /// docs/reproduction.md).
    #[arg(long, default_value = "tp")]
    algo: String,
    /// Data flits per worm.
    #[arg(long, default_value_t = 16)]
    payload: u32,
    /// Startup latency per worm, in cycles.
    #[arg(long, default_value_t = 0)]
    beta: u64,
    /// Write every register to this waveform (`.fst` for FST, else VCD),
    /// with a GTKWave `.gtkw` and a Surfer `.sucl` beside it; `-` writes
    /// VCD to standard output and the report to standard error.
    #[arg(long)]
    vcd: Option<PathBuf>,
    #[command(flatten)]
    window: crate::TraceArgs,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct PlannedWormOut {
    set: &'static str,
    subnetwork: &'static str,
    list: Vec<u32>,
    list_coords: Vec<String>,
    route: Vec<u32>,
    hops: usize,
    high_channels: usize,
    low_channels: usize,
    deliveries: Vec<wormcast::direct::Delivery>,
}

#[derive(Serialize)]
struct MeshPlanOut {
    dims: String,
    source: u32,
    algo: &'static str,
    worms: Vec<PlannedWormOut>,
    high_channels: usize,
    low_channels: usize,
    channels: usize,
    distinct_channels: usize,
    max_distance: usize,
    last_tail: u64,
}

pub fn run_mesh(cmd: MeshCmd) -> Result<()> {
    match cmd {
        MeshCmd::Plan(a) => mesh_plan(&a),
        MeshCmd::Experiment(a) => crate::mesh_exp::run(&a),
        MeshCmd::Merge(a) => crate::mesh_exp::merge(&a),
    }
}

/// The most cycles `mesh3d plan` runs its multicast for.
const PLAN_CYCLES: u64 = 100_000_000;

fn mesh_plan(a: &MeshPlanArgs) -> Result<()> {
    use wormcast::direct::mesh::{Mesh, MeshFabric};
    use wormcast::mcast::hamilton::{HamAlgo, parse_coord, prepare};
    let mesh = Mesh::parse(&a.dims)?;
    let cfg = DirectConfig {
        ports: PortModel::AllPort,
        startup: a.beta,
        ..Default::default()
    };
    let (m, n, r) = mesh.dims();
    check_memory(wormcast::engine::TopoSpec::Mesh([n, m, r]), &cfg)?;
    let algo = HamAlgo::parse(&a.algo)?;
    let src = mesh.label(parse_coord(&a.source)?)?;
    let worms = prepare(&mesh, src, &a.dests, algo)?;
    // The source starts its worms one after another, each after its
    // start-up: a run that cannot end within the bound is refused now,
    // not after stepping to it.
    let startups = (worms.len() as u64).saturating_mul(a.beta);
    if startups >= PLAN_CYCLES {
        return Err(Error::Config {
            field: "beta",
            value: a.beta.to_string(),
            reason: format!(
                "{} x {} of start-up: not fewer than the {PLAN_CYCLES} \
                 cycles a plan's run may take",
                wormcast::counted(worms.len() as u64, "worms"),
                wormcast::counted(a.beta, "cycles")
            ),
        });
    }
    let mut sys = DirectSystem::new(Arc::new(MeshFabric { mesh: mesh.clone() }), &cfg)?;
    if let Some(v) = &a.vcd {
        sys.attach_tracer(a.window.open(v, "wormcast mesh3d plan")?, 5_000)?;
    }
    let lists: Vec<Vec<u32>> = worms.iter().map(|w| w.list.clone()).collect();
    sys.send_multicast(src, &lists, a.payload)?;
    let last_tail = sys.run_until_delivered(PLAN_CYCLES);
    let h = crate::after_report(sys.finish_trace_hierarchy())?;
    finish_views(a.vcd.as_deref(), h, &a.window)?;
    let last_tail = last_tail?;
    let mut out = MeshPlanOut {
        dims: a.dims.clone(),
        source: src,
        algo: algo.name(),
        worms: Vec::new(),
        high_channels: 0,
        low_channels: 0,
        channels: 0,
        distinct_channels: 0,
        max_distance: 0,
        last_tail,
    };
    let mut distinct = std::collections::BTreeSet::new();
    for pw in &worms {
        let w = sys
            .finished()
            .iter()
            .find(|w| w.list == pw.list)
            .expect("every worm finished");
        let high = w.route.windows(2).filter(|p| p[1] > p[0]).count();
        let low = w.route.len() - 1 - high;
        distinct.extend(w.route.windows(2).map(|p| (p[0], p[1])));
        for d in &w.list {
            let at = w.route.iter().position(|x| x == d).expect("visited");
            out.max_distance = out.max_distance.max(at);
        }
        out.high_channels += high;
        out.low_channels += low;
        out.worms.push(PlannedWormOut {
            set: pw.set,
            subnetwork: if pw.high { "high" } else { "low" },
            list: w.list.clone(),
            list_coords: w.list.iter().map(|&l| mesh.coord(l).to_string()).collect(),
            route: w.route.clone(),
            hops: w.route.len() - 1,
            high_channels: high,
            low_channels: low,
            deliveries: w.deliveries.clone(),
        });
    }
    out.channels = out.high_channels + out.low_channels;
    out.distinct_channels = distinct.len();
    if a.json {
        say!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    say!(
        "{} mesh, source {} = label {src}, {} destinations, {}",
        a.dims,
        mesh.coord(src),
        a.dests.len(),
        algo.name().to_uppercase()
    );
    for w in &out.worms {
        let list: Vec<String> = w.list.iter().map(u32::to_string).collect();
        let route: Vec<String> = w.route.iter().map(u32::to_string).collect();
        say!(
            "{:<4} ({} subnetwork) {{{}}}: {} hops: {}",
            w.set,
            w.subnetwork,
            list.join(", "),
            w.hops,
            route.join(" -> ")
        );
    }
    say!(
        "channels: {} high + {} low = {} ({} distinct); largest source-to-destination distance {} hops; last tail at cycle {}",
        out.high_channels,
        out.low_channels,
        out.channels,
        out.distinct_channels,
        out.max_distance,
        out.last_tail
    );
    Ok(())
}

/// Writes the GTKWave and Surfer views beside a waveform being written.
pub fn finish_views(
    wave: Option<&std::path::Path>,
    h: Option<wormcast::rtl::trace::Hierarchy>,
    limits: &crate::TraceArgs,
) -> Result<()> {
    if let (Some(w), Some(h)) = (wave, h) {
        limits.views(w, &h)?;
    }
    Ok(())
}

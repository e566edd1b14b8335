//! The `wormcast` command-line tool.

#[path = "wormcast/direct.rs"]
mod direct;
#[path = "wormcast/engine_cmd.rs"]
mod engine_cmd;
#[path = "wormcast/mesh_exp.rs"]
mod mesh_exp;
#[path = "wormcast/tree_cmd.rs"]
mod tree_cmd;

use clap::parser::ValueSource;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};
use wormcast::engine::{Pattern, TopoSpec};
use wormcast::experiment::{Panel, Series};
use wormcast::header::Kind;
use wormcast::mcast::{
    Discipline, PlanScheme, Planner, Tree, hex, log2_ceil, optimal_k, poc_order,
};
use wormcast::net::summary::summarize;
use wormcast::net::{IrregularParams, Network};
use wormcast::net::{Reachability, UpDown};
use wormcast::ni::{NiTiming, Scheme};
use wormcast::rtl::trace::{Hierarchy, WaveSink};
use wormcast::sim::{Delivery, NodeModel, RunReport, SimConfig, System, Traffic, WormSpec};
use wormcast::switch::twin::{Params, Unit, trace, write_vectors};
use wormcast::wave::{
    CompareReport, CosimOptions, DiffOptions, SignalMap, TraceLimits, WaveReader, cosim,
    write_views,
};
use wormcast::{Error, Result};

#[derive(Parser)]
#[command(
    name = "wormcast",
    version,
    about = "Cycle-level RTL models of multicast interconnection networks"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Topologies: generate and inspect.
    Topo {
        #[command(subcommand)]
        cmd: TopoCmd,
    },
    /// Simulate traffic on a network.
    Run(Box<RunArgs>),
    /// Print the bit-string reachability strings of every switch (seed 000
    /// Fig. 18): its level, total string and every down port's restricted
    /// string, node 0 first.
    Reach {
        /// The topology file.
        file: PathBuf,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Write stimulus for a unit's Verilog testbench (`$readmemh` file and
    /// a `.vh` of defines beside it).
    Vectors(VectorArgs),
    /// Check a unit's VCD from a Verilog simulation against the model,
    /// cycle by cycle. Exit status 1 on a mismatch.
    Cosim(CosimArgs),
    /// One multicast through smart or conventional network interfaces
    /// (seed 000 section 4): the tree, when each destination's host had
    /// the message, the timing model's prediction and the paper's step
    /// model.
    Multicast(McastArgs),
    /// The optimal k-binomial tree for a multicast (seed 000 section 4.3):
    /// optimal k, L1, total steps L1 + (M-1)k, and the steps of the binomial
    /// and linear trees.
    Kbinomial {
        /// n: nodes of the multicast set, the source included.
        #[arg(long)]
        nodes: u64,
        /// M: packets of the message.
        #[arg(long, default_value_t = 1)]
        packets: u32,
        /// Print the precomputed table of optimal k for 2..=nodes and
        /// 1..=packets instead.
        #[arg(long)]
        table: bool,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Plan a multicast by any scheme of seed 000 (sections 4, 5.2, 5.3):
    /// the worms of each phase with their senders, destinations, switches
    /// and encoded headers. With --run, also simulate it with hosts and
    /// network interfaces.
    Plan(PlanArgs),
    /// The experiments of seed 000 section 6 (Figs. 19-28): CSV files and
    /// plots (docs/reproduction.md).
    Experiment {
        #[command(subcommand)]
        cmd: ExpCmd,
    },
    /// Waveform tools.
    Wave {
        #[command(subcommand)]
        cmd: WaveCmd,
    },
    /// Wormhole hypercubes with path-based multicast (seed 001): path
    /// counts, multicast routes and paths.
    Hypercube {
        #[command(subcommand)]
        cmd: direct::CubeCmd,
    },
    /// All-port meshes with Hamiltonian-path multicast (seed 002): TP and SP
    /// plans and experiments.
    Mesh3d {
        #[command(subcommand)]
        cmd: direct::MeshCmd,
    },
    /// Tree-based multicast with pruning against pseudo-multicast on meshes
    /// and tori with dimension-order routing (seed 003): single multicasts
    /// and experiments.
    Tree {
        #[command(subcommand)]
        cmd: tree_cmd::TreeCmd,
    },
    /// The main demo: the paper's default 32-node network under uniform
    /// traffic, with a waveform of the first cycles.
    Demo {
        /// Where to write the demo's VCD and GTKWave save file.
        #[arg(long, default_value = "wormcast-demo")]
        out: PathBuf,
    },
}

#[derive(Subcommand)]
enum TopoCmd {
    /// Generate a random irregular topology (seed 000 section 6.3).
    Gen {
        /// Number of switches.
        #[arg(long, default_value_t = 8)]
        switches: u32,
        /// Ports per switch.
        #[arg(long, default_value_t = 8)]
        ports: u32,
        /// Number of nodes.
        #[arg(long, default_value_t = 32)]
        nodes: u32,
        /// Fraction of the non-node ports wired to other switches.
        #[arg(long, default_value_t = 0.8)]
        connectivity: f64,
        /// Generator seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Output file (standard output if absent).
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Show levels, up/down link ends and a routing summary.
    Show {
        /// The topology file.
        file: PathBuf,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum UnitArg {
    /// The bit-string decode unit.
    BitstringDecode,
    /// The SSR / multi-drop decode unit.
    SsrMdDecode,
    /// The input buffer with chunk reference counts.
    ReplBuffer,
}

impl UnitArg {
    fn unit(self) -> Unit {
        match self {
            UnitArg::BitstringDecode => Unit::BitStringDecode,
            UnitArg::SsrMdDecode => Unit::SsrMdDecode,
            UnitArg::ReplBuffer => Unit::ReplBuffer,
        }
    }
}

#[derive(clap::Args)]
struct VectorArgs {
    /// The unit.
    #[arg(long, value_enum)]
    unit: UnitArg,
    /// Clock edges of stimulus (1 to 2^31 - 1; written as they are made,
    /// so any number takes constant memory).
    #[arg(long, default_value_t = 5000)]
    cycles: u64,
    /// Seed of the stimulus.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// N: nodes (bit-string decode).
    #[arg(long, default_value_t = 16)]
    nodes: u32,
    /// P: ports (decode units) or readers (buffer).
    #[arg(long, default_value_t = 6)]
    ports: u32,
    /// S: switches (SSR / multi-drop decode).
    #[arg(long, default_value_t = 8)]
    switches: u32,
    /// C: chunks (buffer).
    #[arg(long, default_value_t = 16)]
    chunks: u32,
    /// K: flits per chunk (buffer).
    #[arg(long, default_value_t = 4)]
    chunk_flits: u32,
    /// Output file (`.hex`); the defines go to the same name with `.vh`.
    #[arg(short, long)]
    output: PathBuf,
    /// Also write the model's own waveform of these vectors (scope
    /// `tb.dut`, a 10 ns clock) and a `.gtkw` beside it: what the Verilog's
    /// dump should show.
    #[arg(long)]
    model_vcd: Option<PathBuf>,
}

#[derive(clap::Args)]
struct CosimArgs {
    /// The testbench's waveform (VCD, FST or GHW).
    #[arg(long, visible_alias = "wave")]
    vcd: PathBuf,
    /// The unit.
    #[arg(long, value_enum)]
    unit: UnitArg,
    /// The unit instance's scope (a unique suffix is enough).
    #[arg(long)]
    scope: String,
    /// The clock (default: `clk` in the scope or the nearest scope above).
    #[arg(long)]
    clock: Option<String>,
    /// Foreign signal names and bit orders (TOML).
    #[arg(long)]
    map: Option<PathBuf>,
    /// A unit parameter, NAME=VALUE (for sizes the port widths do not
    /// tell, such as the buffer's C and K).
    #[arg(long = "param", value_parser = parse_param)]
    params: Vec<(String, u32)>,
    /// Fail (exit 1) if the waveform yields fewer compared cycles than
    /// this: a dump cut short.
    #[arg(long)]
    expect_cycles: Option<u64>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

#[derive(Subcommand)]
enum WaveCmd {
    /// Write a waveform of any format (VCD, FST or GHW) as VCD, to standard
    /// output or a file: the scopes, variables and values wormcast reads
    /// from it.
    ToVcd {
        /// The waveform.
        file: PathBuf,
        /// Write here instead of standard output.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Stop with an error past this much memory (MiB): for files from
        /// elsewhere (wormcast reads GHW files this way).
        #[arg(long)]
        max_memory_mib: Option<u64>,
        /// Stop past this much processor time (seconds).
        #[arg(long)]
        max_cpu_seconds: Option<u64>,
    },
    /// Compare two waveforms (VCD, FST or GHW, in any mix) signal by
    /// signal, on times or on clock edges. Every signal is accounted for: a
    /// signal in one waveform only is a difference unless --ignore names
    /// it. Exit status 1 on a difference.
    Diff {
        /// The reference waveform.
        a: PathBuf,
        /// The waveform to check.
        b: PathBuf,
        /// Compare on the rising edges of this clock (each file's own) and
        /// report cycles; without it, compare at every time either changes.
        #[arg(long)]
        clock: Option<String>,
        /// Leave these signals out (comma-separated relative names; `*`
        /// matches any text).
        #[arg(long, value_delimiter = ',')]
        ignore: Vec<String>,
        /// Compare the signals under this scope of `a` (names relative to it).
        #[arg(long)]
        scope: Option<String>,
        /// The scope in `b` (default: `--scope`; "" for the whole file).
        #[arg(long)]
        scope_b: Option<String>,
        /// Names in `b` that differ from `a`'s, and reversed bit orders.
        #[arg(long)]
        map: Option<PathBuf>,
        /// Only these signals (comma-separated, relative names in `a`).
        #[arg(long, value_delimiter = ',')]
        signals: Vec<String>,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
}

fn parse_param(s: &str) -> std::result::Result<(String, u32), String> {
    let (n, v) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` is not NAME=VALUE"))?;
    let v = v
        .parse()
        .map_err(|_| format!("`{v}` is not a whole number"))?;
    Ok((n.to_string(), v))
}

/// Limits of a waveform: a window of cycles and some scopes.
#[derive(clap::Args, Clone, Debug, Default)]
struct TraceArgs {
    /// First cycle written to the waveform; the values during it are the
    /// file's initial values.
    #[arg(long, value_name = "CYCLE", requires = "vcd")]
    trace_from: Option<u64>,
    /// Last cycle written to the waveform.
    #[arg(long, value_name = "CYCLE", requires = "vcd")]
    trace_to: Option<u64>,
    /// Write only these scopes or signals (dotted paths such as top.sw3 or
    /// top.sw3.in2.buf_count), comma-separated or repeated; the root and
    /// its clock are always written.
    #[arg(long, value_name = "PATH", value_delimiter = ',', requires = "vcd")]
    trace_scope: Vec<String>,
}

impl TraceArgs {
    fn limits(&self) -> TraceLimits {
        TraceLimits {
            from: self.trace_from.unwrap_or(0),
            to: self.trace_to,
            scopes: self.trace_scope.clone(),
        }
    }

    /// A waveform writer for `path` (FST or VCD by its name) within these
    /// limits.
    fn open(&self, path: &Path, comment: &str) -> Result<Box<dyn WaveSink>> {
        let l = self.limits();
        l.check()?;
        l.wrap(wormcast::wave::create(path, comment)?)
    }

    /// The GTKWave and Surfer views of the waveform at `path`, with the
    /// signals these limits keep.
    fn views(&self, path: &Path, h: &Hierarchy) -> Result<()> {
        write_views(path, &self.limits().view(h)?)?;
        Ok(())
    }
}

/// What `run --traffic` names: a load of packets to a pattern's
/// destinations (uniform, transpose, ...), or one of the others.
#[derive(Clone, Copy, PartialEq, Eq)]
enum TrafficKind {
    /// Packets at a given load to a pattern's destinations.
    Uniform,
    /// One packet from --src to --dst, run until delivered.
    Single,
    /// Random worms of --worm to --degree destinations at a given load.
    Multicast,
    /// One worm of --worm from --src to --dests (multi-drop: along the
    /// switches of --path), run until delivered.
    Worm,
}

#[derive(Clone, Copy, ValueEnum)]
enum WormKind {
    /// Unicast header (one destination).
    Unicast,
    /// Single switch replication: destinations all on one switch.
    Ssr,
    /// Path-based multi-drop along a list of switches.
    MultiDrop,
    /// Bit-string: any destinations.
    BitString,
}

impl TrafficKind {
    fn name(self) -> &'static str {
        match self {
            TrafficKind::Uniform => "uniform",
            TrafficKind::Single => "single",
            TrafficKind::Multicast => "multicast",
            TrafficKind::Worm => "worm",
        }
    }
}

impl WormKind {
    fn kind(self) -> Kind {
        match self {
            WormKind::Unicast => Kind::Unicast,
            WormKind::Ssr => Kind::Ssr,
            WormKind::MultiDrop => Kind::MultiDrop,
            WormKind::BitString => Kind::BitString,
        }
    }
}

#[derive(clap::Args)]
struct RunArgs {
    /// The network: a topology file, or mesh:KXxKY[xKZ], torus:KXxKY[xKZ],
    /// hypercube:N, irregular:switches=S,ports=K,nodes=P[,seed=N].
    #[arg(long, required_unless_present = "config")]
    topology: Option<String>,
    /// A run configuration (TOML: [network], [traffic], [stats], [output],
    /// [switch], [wormhole]; configs/ has one per paper), or a file of the
    /// switch's fields alone; options given here override it.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Print the run configuration these options make (TOML, for
    /// --config) and run nothing.
    #[arg(long)]
    print_config: bool,
    /// Closed loop: a node creates its next message only once its previous
    /// one has fully arrived, a think time drawn from --load later.
    #[arg(long)]
    closed_loop: bool,
    /// After the run, stop the sources and wait at most this many cycles
    /// for every message to arrive (an error if one does not).
    #[arg(long)]
    drain: Option<u64>,
    /// Injection and consumption channels of the wormhole router:
    /// one-port or all-port (default one-port).
    #[arg(long)]
    ports: Option<String>,
    /// Traffic: packets at --load to the destinations of a pattern
    /// (uniform, transpose, bit-complement, bit-reverse, shuffle, tornado,
    /// neighbour, hotspot:NODES@FRACTION, permutation:FILE); single (one
    /// packet from --src to --dst); multicast (random worms of --worm to
    /// --degree destinations at --load); worm (one worm of --worm from --src
    /// to --dests).
    #[arg(long, default_value = "uniform")]
    traffic: String,
    /// Router model: cut-through (seed 000's switch; any topology),
    /// wormhole (seeds 001/002; hypercube, mesh) or tree (seed 003; mesh,
    /// torus). Default: tree on meshes and tori, wormhole on hypercubes,
    /// cut-through otherwise.
    #[arg(long)]
    router: Option<String>,
    /// Routing function: updown (cut-through), ecube, r1, r2 or minimal
    /// (wormhole on a hypercube), dor (wormhole on a mesh, tree). Default:
    /// the first.
    #[arg(long)]
    routing: Option<String>,
    /// Stop once the mean latency's 95% confidence half-width is under this
    /// fraction of the mean (e.g. 0.05), checked after every batch; --cycles
    /// is then the most measured.
    #[arg(long)]
    stop_rule: Option<f64>,
    /// Batches the measured cycles are cut into, for the confidence
    /// interval (with --stop-rule: the fewest before it may stop).
    #[arg(long, default_value_t = 10)]
    batches: u32,
    /// Cycles per batch (default: the measured cycles over --batches).
    #[arg(long)]
    batch_cycles: Option<u64>,
    /// Messages a node may have outstanding before it refuses new ones
    /// (a topology spec, --router or a pattern other than uniform).
    #[arg(long, default_value_t = 64)]
    source_queue: u32,
    /// Bimodal lengths, LEN@SHARE (e.g. 4@0.8): that share of the packets
    /// is LEN flits long instead of --packet (a topology spec or --router).
    #[arg(long)]
    packet_alt: Option<String>,
    /// Replay this trace (CSV or JSON lines: cycle, source, destinations,
    /// flits, optional earlier message waited for; docs/engine.md) until
    /// every copy has arrived, at most --cycles cycles.
    #[arg(long)]
    trace: Option<PathBuf>,
    /// Offered load, flits/node/cycle (uniform, multicast: flits injected,
    /// a worm counted once).
    #[arg(long, default_value_t = 0.05)]
    load: f64,
    /// Packet length in flits, header included.
    #[arg(long, default_value_t = 128)]
    packet: u32,
    /// Source node (single).
    #[arg(long, default_value_t = 0)]
    src: u32,
    /// Destination node (single).
    #[arg(long, default_value_t = 1)]
    dst: u32,
    /// Header encoding of the worms (multicast, worm).
    #[arg(long, value_enum, default_value = "bit-string")]
    worm: WormKind,
    /// Destinations of the worm, comma-separated (worm).
    #[arg(long, value_delimiter = ',')]
    dests: Vec<u32>,
    /// Switches a multi-drop worm visits, in order, comma-separated (worm).
    #[arg(long, value_delimiter = ',')]
    path: Vec<u32>,
    /// Destinations per worm (multicast). An SSR worm draws them among the
    /// nodes of one switch and a multi-drop worm among those along one
    /// route, so they may reach fewer; the run reports the mean reached.
    #[arg(long, default_value_t = 4)]
    degree: u32,
    /// With a topology spec or --router: draw each multicast's number of
    /// destinations uniformly from --degree to this.
    #[arg(long)]
    degree_max: Option<u32>,
    /// Flits after a worm's header (multicast, worm).
    #[arg(long, default_value_t = 16)]
    payload: u32,
    /// Cycles to simulate, warm-up included (single: the most to wait).
    #[arg(long, default_value_t = 200_000)]
    cycles: u64,
    /// Cycles before measurement starts.
    #[arg(long, default_value_t = 50_000)]
    warmup: u64,
    /// Traffic seed (overrides the configuration file).
    #[arg(long)]
    seed: Option<u64>,
    /// Input buffer per switch port, flits.
    #[arg(long)]
    buffer: Option<u32>,
    /// Chunk size, flits.
    #[arg(long)]
    chunk: Option<u32>,
    /// Write every register to this waveform (`.fst` for FST, else VCD),
    /// with a GTKWave `.gtkw` and a Surfer `.sucl` beside it.
    #[arg(long)]
    vcd: Option<PathBuf>,
    #[command(flatten)]
    window: TraceArgs,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum SchemeArg {
    /// Smart NIs, first packet first served.
    Fpfs,
    /// Smart NIs, first child first served.
    Fcfs,
    /// Every hop through the hosts.
    Conventional,
}

#[derive(Clone, Copy, ValueEnum)]
enum TreeArg {
    /// The k-binomial tree of the optimal k for the set size and --packets
    /// (Theorem 3).
    Optimal,
    /// The k-binomial tree of --k.
    Kbinomial,
    /// The binomial tree.
    Binomial,
    /// The linear chain.
    Linear,
}

#[derive(Clone, Copy, ValueEnum)]
enum OrderArg {
    /// The POC ordering of section 4.3.4 (fewer contending copies).
    Poc,
    /// --src, then --dests as given.
    Given,
}

#[derive(clap::Args)]
struct McastArgs {
    /// The topology file (default: the paper's 32-node network).
    #[arg(long)]
    topology: Option<PathBuf>,
    /// A configuration file (TOML, fields of `SimConfig`; its `[ni]` table
    /// sets the host and NI parameters).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Source node.
    #[arg(long, default_value_t = 0)]
    src: u32,
    /// Destinations, comma-separated (default: every other node).
    #[arg(long, value_delimiter = ',')]
    dests: Vec<u32>,
    /// Packets of the message.
    #[arg(long, default_value_t = 1)]
    packets: u32,
    /// How the multicast is carried out.
    #[arg(long, value_enum, default_value = "fpfs")]
    scheme: SchemeArg,
    /// The multicast tree.
    #[arg(long, value_enum, default_value = "optimal")]
    tree: TreeArg,
    /// k of --tree kbinomial.
    #[arg(long)]
    k: Option<u32>,
    /// The ordering the tree is built on.
    #[arg(long, value_enum, default_value = "poc")]
    order: OrderArg,
    /// Host send overhead t_hs, cycles (overrides the configuration).
    #[arg(long)]
    t_hs: Option<u64>,
    /// R = t_hs / t_ns (overrides the configuration; t_ns follows).
    #[arg(long)]
    r: Option<f64>,
    /// Write every register to this waveform (`.fst` for FST, else VCD),
    /// with a GTKWave `.gtkw` and a Surfer `.sucl` beside it.
    #[arg(long)]
    vcd: Option<PathBuf>,
    #[command(flatten)]
    window: TraceArgs,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

#[derive(Subcommand)]
enum ExpCmd {
    /// Run figures (all jobs, or one shard of them) in parallel. Writes
    /// <fig>.raw.csv, the summary <fig>.csv and plots <fig>.svg and
    /// <fig>.png into --out; a shard writes only its raw rows, to be
    /// combined by `experiment merge`.
    Run {
        /// Figures: fig19 ... fig28, comma-separated, or all.
        #[arg(long, value_delimiter = ',', default_value = "all")]
        figure: Vec<String>,
        /// The small version (what CI runs): fewer topologies, sets,
        /// points and cycles.
        #[arg(long)]
        quick: bool,
        /// Run only slice I of N (0-based) of every figure's jobs.
        #[arg(long)]
        shard: Option<String>,
        /// Output directory.
        #[arg(long, default_value = "experiments")]
        out: PathBuf,
        /// Random topologies per setting (default 10, quick 2).
        #[arg(long)]
        topologies: Option<u32>,
        /// Destination sets per point and topology (default 10, quick 2).
        #[arg(long)]
        sets: Option<u32>,
        /// Cycles of each load run (default 1,000,000).
        #[arg(long)]
        cycles: Option<u64>,
        /// Warm-up of each load run (default 500,000).
        #[arg(long)]
        warmup: Option<u64>,
        /// Schemes, comma-separated (default ni-kbinomial,path-lg,tree).
        #[arg(long, value_delimiter = ',')]
        schemes: Vec<String>,
        /// Seed (default 1).
        #[arg(long)]
        seed: Option<u64>,
        /// Worker threads (default: every core).
        #[arg(long)]
        threads: Option<usize>,
        /// No progress bar.
        #[arg(long, short)]
        quiet: bool,
    },
    /// Combine the raw CSVs of the shards of one figure into the same raw
    /// file, summary and plots one unsharded run writes.
    Merge {
        /// Output directory.
        #[arg(long, default_value = "experiments")]
        out: PathBuf,
        /// The shards' raw CSV files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}

#[derive(clap::Args)]
struct PlanArgs {
    /// The topology file (default: the paper's 32-node network).
    #[arg(long)]
    topology: Option<PathBuf>,
    /// A configuration file for --run (TOML, fields of `SimConfig`).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Source node.
    #[arg(long, default_value_t = 0)]
    source: u32,
    /// Destinations, comma-separated (default: every other node).
    #[arg(long, value_delimiter = ',')]
    dests: Vec<u32>,
    /// ssr-g, ssr-lg, path-g, path-lg, tree, ni-kbinomial or binomial.
    #[arg(long, default_value = "path-lg")]
    scheme: String,
    /// Packets of the message.
    #[arg(long, default_value_t = 1)]
    packets: u32,
    /// Simulate the multicast and print when each host had the message.
    #[arg(long)]
    run: bool,
    /// With --run: write every register to this waveform (`.fst` for FST,
    /// else VCD), with GTKWave and Surfer views beside it.
    #[arg(long, requires = "run")]
    vcd: Option<PathBuf>,
    #[command(flatten)]
    window: TraceArgs,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct PlanWormOut<'a> {
    #[serde(flatten)]
    worm: &'a wormcast::mcast::PlannedWorm,
    header_hex: String,
}

#[derive(Serialize)]
struct PlanOutput<'a> {
    scheme: wormcast::mcast::PlanScheme,
    source: u32,
    destinations: &'a [u32],
    packets: u32,
    phases: u32,
    k: Option<u32>,
    worms: Vec<PlanWormOut<'a>>,
    /// With --run: latency and (node, cycle) of each host's delivery.
    latency: Option<u64>,
    deliveries: Option<Vec<(u32, u64)>>,
}

#[derive(Serialize)]
struct McastDest {
    node: u32,
    /// Cycle its host had the whole message.
    cycle: u64,
    /// The timing model's cycle on the idle network.
    predicted: u64,
    /// Its step in the step model, last packet.
    step: u32,
}

#[derive(Serialize)]
struct McastOutput {
    source: u32,
    packets: u32,
    scheme: Scheme,
    order: Vec<u32>,
    /// Each vertex's node and its children's nodes, in serving order.
    tree: Vec<(u32, Vec<u32>)>,
    k: u32,
    ni: NiTiming,
    destinations: Vec<McastDest>,
    latency: u64,
    predicted_latency: u64,
    /// The step model: L1, total steps, and t_step = t_ns + the longest
    /// copy's network time + t_nr.
    l1: u32,
    steps: u32,
    t_step: u64,
    /// t_hs + steps t_step + t_hr (smart NIs) or L1 (t_hs + t_step + t_hr)
    /// (conventional, one packet; section 4.1 has no multi-packet form).
    step_model_latency: Option<u64>,
    /// The largest receive queue at any NI, bytes.
    max_recv_queue_bytes: u32,
    /// The longest a packet stayed between its read and its last send.
    max_forwarding_cycles: u64,
}

#[derive(Serialize)]
struct RunOutput<'a> {
    topology: String,
    traffic: &'a Traffic,
    config: &'a SimConfig,
    #[serde(flatten)]
    report: &'a RunReport,
    wall_seconds: f64,
    cycles_per_second: f64,
}

/// Exit status 0: done (no difference); 1: a comparison found a difference;
/// 2: an error.
fn main() -> ExitCode {
    // Output to a closed pipe (`wormcast reach net.toml | head -1`) ends
    // the process quietly, as other command-line tools do, instead of
    // failing a print.
    #[cfg(unix)]
    // SAFETY: restores the default action of one signal before any thread
    // starts; nothing else is touched.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let matches = Cli::command().get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(c) => c,
        Err(e) => e.exit(),
    };
    // The options given on the command line, for commands that refuse an
    // option that does not apply rather than ignore it.
    let given: Vec<String> = matches
        .subcommand()
        .map(|(_, m)| {
            m.ids()
                .filter(|id| m.value_source(id.as_str()) == Some(ValueSource::CommandLine))
                .map(|id| id.as_str().to_string())
                .collect()
        })
        .unwrap_or_default();
    match run(cli, &given) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        // Output to a closed pipe (`| head`) ends quietly.
        Err(Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::BrokenPipe => {
            ExitCode::SUCCESS
        }
        // A deadlock is what a simulation found, as a difference is what a
        // comparison found: exit status 1.
        Err(e @ (Error::Deadlock(_) | Error::DirectDeadlock(_) | Error::TreeDeadlock(_))) => {
            eprintln!("{e}");
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// Ok(false) when a comparison found a difference.
fn run(cli: Cli, given: &[String]) -> Result<bool> {
    match cli.cmd {
        Cmd::Vectors(a) => vectors(&a).map(|()| true),
        Cmd::Cosim(a) => cosim_cmd(&a),
        Cmd::Wave { cmd } => wave(cmd),
        Cmd::Kbinomial {
            nodes,
            packets,
            table,
            json,
        } => kbinomial(nodes, packets, table, json).map(|()| true),
        Cmd::Topo { cmd } => topo(cmd).map(|()| true),
        Cmd::Run(args) => simulate(*args, given).map(|()| true),
        Cmd::Multicast(args) => multicast(&args).map(|()| true),
        Cmd::Plan(args) => plan(&args).map(|()| true),
        Cmd::Experiment { cmd } => experiment(cmd).map(|()| true),
        Cmd::Reach { file, json } => reach(&file, json).map(|()| true),
        Cmd::Hypercube { cmd } => direct::run(cmd).map(|()| true),
        Cmd::Mesh3d { cmd } => direct::run_mesh(cmd).map(|()| true),
        Cmd::Tree { cmd } => tree_cmd::run(cmd),
        Cmd::Demo { out } => demo(&out).map(|()| true),
    }
}

fn topo(cmd: TopoCmd) -> Result<()> {
    match cmd {
        TopoCmd::Gen {
            switches,
            ports,
            nodes,
            connectivity,
            seed,
            output,
        } => {
            let p = IrregularParams {
                switches,
                ports,
                nodes,
                connectivity,
                seed,
            };
            let t = p.generate()?;
            let comment = format!(
                "wormcast topo gen --switches {switches} --ports {ports} --nodes {nodes} --connectivity {connectivity} --seed {seed}\n\
                 {} switches, {} nodes, {} links",
                t.switches.len(),
                t.nodes.len(),
                t.links.len()
            );
            match output {
                Some(path) => t.save(&path, &comment),
                None => {
                    for l in comment.lines() {
                        println!("# {l}");
                    }
                    print!("\n{}", t.to_toml_string());
                    Ok(())
                }
            }
        }
        TopoCmd::Show { file, json } => {
            let net = Network::load(&file)?;
            let s = summarize(&net);
            if json {
                println!("{}", serde_json::to_string_pretty(&s)?);
            } else {
                print!("{}", s.to_text());
            }
            Ok(())
        }
    }
}

/// A progress bar that appears only on a terminal, only after a second,
/// and never with `quiet`.
struct Progress {
    bar: ProgressBar,
    start: Instant,
    shown: bool,
    enabled: bool,
}

impl Progress {
    fn new(total: u64, quiet: bool) -> Self {
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} cycles ({per_sec}, eta {eta})")
                .expect("valid template"),
        );
        Progress {
            bar,
            start: Instant::now(),
            shown: false,
            enabled: !quiet && std::io::stderr().is_terminal(),
        }
    }

    fn set(&mut self, pos: u64) {
        if self.enabled && !self.shown && self.start.elapsed() > Duration::from_secs(1) {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
            self.shown = true;
        }
        self.bar.set_position(pos);
    }

    fn done(&self) {
        self.bar.finish_and_clear();
    }
}

/// The options of `run` that only some traffic patterns use, with the
/// patterns that use them.
const TRAFFIC_OPTIONS: [(&str, &str, &[TrafficKind]); 10] = [
    (
        "load",
        "--load",
        &[TrafficKind::Uniform, TrafficKind::Multicast],
    ),
    (
        "packet",
        "--packet",
        &[TrafficKind::Uniform, TrafficKind::Single],
    ),
    ("src", "--src", &[TrafficKind::Single, TrafficKind::Worm]),
    ("dst", "--dst", &[TrafficKind::Single]),
    (
        "worm",
        "--worm",
        &[TrafficKind::Multicast, TrafficKind::Worm],
    ),
    ("dests", "--dests", &[TrafficKind::Worm]),
    ("path", "--path", &[TrafficKind::Worm]),
    ("degree", "--degree", &[TrafficKind::Multicast]),
    (
        "payload",
        "--payload",
        &[TrafficKind::Multicast, TrafficKind::Worm],
    ),
    (
        "warmup",
        "--warmup",
        &[TrafficKind::Uniform, TrafficKind::Multicast],
    ),
];

/// `--traffic`: its kind, and the pattern of a load of packets.
fn traffic_kind(s: &str) -> Result<(TrafficKind, Option<Pattern>)> {
    Ok(match s {
        "single" => (TrafficKind::Single, None),
        "multicast" => (TrafficKind::Multicast, None),
        "worm" => (TrafficKind::Worm, None),
        p => (TrafficKind::Uniform, Some(Pattern::parse(p)?)),
    })
}

/// Refuses a `run` option given for a traffic pattern that does not use it.
fn check_run_options(a: &RunArgs, kind: TrafficKind, given: &[String]) -> Result<()> {
    for (id, flag, uses) in TRAFFIC_OPTIONS {
        if given.iter().any(|g| g == id) && !uses.contains(&kind) {
            let names: Vec<&str> = uses.iter().map(|t| t.name()).collect();
            return Err(Error::Config {
                field: "traffic",
                value: a.traffic.clone(),
                reason: format!(
                    "{flag} does not apply to --traffic {} (it is for --traffic {})",
                    a.traffic,
                    names.join(" or ")
                ),
            });
        }
    }
    if !a.path.is_empty() && !matches!(a.worm, WormKind::MultiDrop) {
        return Err(Error::Config {
            field: "path",
            value: join(&a.path),
            reason: "--path is for --worm multi-drop".into(),
        });
    }
    Ok(())
}

fn join(v: &[u32]) -> String {
    v.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
}

/// What `run --config` names.
enum Loaded {
    /// A run configuration.
    Run(Box<wormcast::engine::RunConfig>),
    /// The switch's fields alone.
    Switch(SimConfig),
}

/// Reads `run --config`: a file whose every key is a field of `SimConfig`
/// is the switch's configuration (as before run configurations), anything
/// else a run configuration, whose errors name its fields.
fn load_config(p: &Path) -> Result<Loaded> {
    let text = std::fs::read_to_string(p).map_err(|e| Error::io(p, e))?;
    let switch_keys: Vec<String> = toml::Table::try_from(SimConfig::default())
        .map(|t| t.keys().cloned().collect())
        .unwrap_or_default();
    let is_switch = text
        .parse::<toml::Table>()
        .is_ok_and(|t| !t.is_empty() && t.keys().all(|k| switch_keys.contains(k)));
    Ok(if is_switch {
        Loaded::Switch(SimConfig::load(p)?)
    } else {
        Loaded::Run(Box::new(wormcast::engine::RunConfig::load(p)?))
    })
}

/// The switch network's configuration: `--config`, then `--seed`,
/// `--buffer` and `--chunk` over it.
fn sim_config(a: &RunArgs) -> Result<SimConfig> {
    let mut cfg = match &a.config {
        Some(p) => SimConfig::load(p)?,
        None => SimConfig::default(),
    };
    if let Some(s) = a.seed {
        cfg.seed = s;
    }
    if let Some(b) = a.buffer {
        cfg.buffer_flits = b;
    }
    if let Some(c) = a.chunk {
        cfg.chunk_flits = c;
    }
    Ok(cfg)
}

fn simulate(a: RunArgs, given: &[String]) -> Result<()> {
    // A run configuration runs on the engine; a file of the switch's
    // fields alone sets its hardware, as before.
    let mut switch_file = None;
    if let Some(p) = &a.config {
        match load_config(p)? {
            Loaded::Run(c) => {
                let c = engine_cmd::config_of(&a, Some(*c), given)?;
                return engine_cmd::run_engine(&c, a.print_config);
            }
            Loaded::Switch(s) => switch_file = Some(s),
        }
    }
    let (kind, pattern) = traffic_kind(&a.traffic)?;
    let topology = a.topology.clone().ok_or_else(|| Error::Config {
        field: "topology",
        value: String::new(),
        reason: "missing: --config names a switch configuration (its fields alone), not a \
                 network; give --topology, or a run configuration with [network]"
            .into(),
    })?;
    let spec = TopoSpec::parse(&topology)?;
    let engine_only = [
        "print_config",
        "closed_loop",
        "drain",
        "ports",
        "router",
        "routing",
        "stop_rule",
        "batches",
        "batch_cycles",
        "source_queue",
        "trace",
        "degree_max",
        "packet_alt",
    ];
    let wants_engine = !matches!(spec, TopoSpec::File(_))
        || given.iter().any(|g| engine_only.contains(&g.as_str()))
        || pattern.as_ref().is_some_and(|p| *p != Pattern::Uniform);
    if wants_engine {
        let file = switch_file.map(|s| wormcast::engine::RunConfig {
            switch: SimConfig {
                seed: SimConfig::default().seed,
                ..s
            },
            ..Default::default()
        });
        let mut c = engine_cmd::config_of(&a, file, given)?;
        if !given.iter().any(|g| g == "topology") {
            c.network.topology = topology;
        }
        return engine_cmd::run_engine(&c, a.print_config);
    }
    check_run_options(&a, kind, given)?;
    let net = Network::load(&topology)?;
    let mut cfg = sim_config(&a)?;
    let single = matches!(kind, TrafficKind::Single | TrafficKind::Worm);
    cfg.record_deliveries |= single;
    let traffic = match kind {
        TrafficKind::Uniform => Traffic::uniform(a.load, a.packet),
        TrafficKind::Multicast => Traffic::multicast(a.load, a.payload, a.degree, a.worm.kind()),
        TrafficKind::Single | TrafficKind::Worm => Traffic::Idle,
    };
    if a.warmup > a.cycles && !single {
        return Err(Error::Config {
            field: "warmup",
            value: a.warmup.to_string(),
            reason: format!("longer than the run of {} cycles", a.cycles),
        });
    }
    let mut sys = System::new(&net, &cfg, &traffic)?;
    if let Some(v) = &a.vcd {
        let w = a
            .window
            .open(v, &format!("wormcast run, seed {}", cfg.seed))?;
        sys.attach_tracer(w)?;
    }
    if !a.json {
        eprintln!("config: {}", serde_json::to_string(&cfg)?);
        eprintln!("traffic: {}", serde_json::to_string(&traffic)?);
    }
    let t0 = Instant::now();
    let mut bar = Progress::new(a.cycles, a.quiet || a.json);
    if single {
        match kind {
            TrafficKind::Worm => {
                let spec = worm_spec(&net, &a)?;
                sys.inject_worm(a.src, &spec, a.payload)?
            }
            _ => sys.inject(a.src, a.dst, a.packet)?,
        };
        sys.drain(a.cycles)?;
    } else {
        sys.run_with_progress(a.warmup, |c| bar.set(c))?;
        sys.start_window();
        let w = a.warmup;
        sys.run_with_progress(a.cycles - a.warmup, |c| bar.set(w + c))?;
    }
    bar.done();
    let wall = t0.elapsed().as_secs_f64();
    if let Some(v) = &a.vcd {
        let h = sys.trace_hierarchy().cloned();
        sys.finish_trace()?;
        if let Some(h) = h {
            a.window.views(v, &h)?;
        }
    }
    let report = sys.report();
    if single {
        return print_deliveries(&sys.deliveries(), a.json, sys.cycle());
    }
    let out = RunOutput {
        topology: topology.clone(),
        traffic: &traffic,
        config: &cfg,
        report: &report,
        wall_seconds: wall,
        cycles_per_second: report.cycles as f64 / wall.max(1e-9),
    };
    if a.json {
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        println!("{report}");
        println!(
            "wall time {:.3} s ({:.0} cycles/s)",
            wall,
            report.cycles as f64 / wall.max(1e-9)
        );
    }
    Ok(())
}

fn experiment(cmd: ExpCmd) -> Result<()> {
    use wormcast::experiment as ex;
    match cmd {
        ExpCmd::Run {
            figure,
            quick,
            shard,
            out,
            topologies,
            sets,
            cycles,
            warmup,
            schemes,
            seed,
            threads,
            quiet,
        } => {
            let figs: Vec<ex::Figure> = if figure.iter().any(|f| f == "all") {
                ex::Figure::ALL.to_vec()
            } else {
                figure
                    .iter()
                    .map(|f| ex::Figure::parse(f))
                    .collect::<Result<_>>()?
            };
            let mut o = ex::Options::new(quick);
            if let Some(t) = topologies {
                o.topologies = t;
            }
            if let Some(x) = sets {
                o.sets = x;
            }
            if let Some(c) = cycles {
                o.cycles = c;
            }
            if let Some(w) = warmup {
                o.warmup = w;
            }
            if !schemes.is_empty() {
                o.schemes = schemes
                    .iter()
                    .map(|s| PlanScheme::parse(s))
                    .collect::<Result<_>>()?;
            }
            if let Some(s) = seed {
                o.seed = s;
            }
            o.validate()?;
            let shard = match shard {
                Some(s) => ex::Shard::parse(&s)?,
                None => ex::Shard::ALL,
            };
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads.unwrap_or(0))
                .build()
                .map_err(|e| Error::Config {
                    field: "threads",
                    value: threads.map_or_else(|| "every core".into(), |t| t.to_string()),
                    reason: e.to_string(),
                })?;
            for fig in figs {
                let total = ex::jobs(fig, &o)
                    .iter()
                    .filter(|j| shard.has(j.index))
                    .count() as u64;
                let bar = ProgressBar::with_draw_target(
                    Some(total),
                    if !quiet && std::io::stderr().is_terminal() {
                        ProgressDrawTarget::stderr()
                    } else {
                        ProgressDrawTarget::hidden()
                    },
                );
                bar.set_style(
                    ProgressStyle::with_template(&format!(
                        "{} {{bar:40}} {{pos}}/{{len}} jobs (eta {{eta}})",
                        fig.name()
                    ))
                    .expect("valid template"),
                );
                let rows = pool.install(|| ex::run(fig, &o, shard, &|| bar.inc(1)))?;
                bar.finish_and_clear();
                for f in ex::write_outputs(&out, fig, &o, shard, &rows)? {
                    println!("{}", f.display());
                }
            }
            Ok(())
        }
        ExpCmd::Merge { out, files } => {
            let mut parts = Vec::new();
            for f in &files {
                let text = std::fs::read_to_string(f).map_err(|e| Error::io(f, e))?;
                parts.push(ex::parse_raw(&text, &f.display().to_string())?);
            }
            let (fig, o, rows) = ex::merge(&parts)?;
            for f in ex::write_outputs(&out, fig, &o, ex::Shard::ALL, &rows)? {
                println!("{}", f.display());
            }
            Ok(())
        }
    }
}

fn plan(a: &PlanArgs) -> Result<()> {
    let net = match &a.topology {
        Some(p) => Network::load(p)?,
        None => Network::new(&IrregularParams::default().generate()?)?,
    };
    let scheme = PlanScheme::parse(&a.scheme)?;
    let n = net.num_nodes() as u32;
    if a.source >= n {
        return Err(Error::UnknownNode {
            node: a.source as u64,
            nodes: n,
        });
    }
    let dests: Vec<u32> = if a.dests.is_empty() {
        (0..n).filter(|&x| x != a.source).collect()
    } else {
        a.dests.clone()
    };
    let p = Planner::new(&net).plan(scheme, a.source, &dests, a.packets)?;
    let mut run = None;
    if a.run {
        let mut cfg = match &a.config {
            Some(p) => SimConfig::load(p)?,
            None => SimConfig::default(),
        };
        cfg.node_model = NodeModel::Ni;
        let mut sys = System::new(&net, &cfg, &Traffic::Idle)?;
        if let Some(v) = &a.vcd {
            sys.attach_tracer(a.window.open(v, "wormcast plan --run")?)?;
        }
        let id = sys.multicast_plan(&p)?;
        let r = sys.finish_multicast(id, 100_000_000);
        if let Some(v) = &a.vcd {
            let h = sys.trace_hierarchy().cloned();
            sys.finish_trace()?;
            if let Some(h) = h {
                a.window.views(v, &h)?;
            }
        }
        run = Some(r?);
    }
    if a.json {
        let out = PlanOutput {
            scheme,
            source: p.source,
            destinations: &p.dests,
            packets: p.packets,
            phases: p.phases,
            k: p.k,
            worms: p
                .worms
                .iter()
                .map(|w| PlanWormOut {
                    worm: w,
                    header_hex: hex(&w.header),
                })
                .collect(),
            latency: run.as_ref().and_then(|r| r.latency),
            deliveries: run.map(|r| r.deliveries),
        };
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        print!("{}", p.to_text());
        if let Some(r) = run {
            println!(
                "simulated: latency {} cycles; each host had the message at cycle: {}",
                r.latency.unwrap_or(0),
                r.deliveries
                    .iter()
                    .map(|(n, c)| format!("node {n} {c}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }
    Ok(())
}

fn multicast(a: &McastArgs) -> Result<()> {
    let net = match &a.topology {
        Some(p) => Network::load(p)?,
        None => Network::new(&IrregularParams::default().generate()?)?,
    };
    let mut cfg = match &a.config {
        Some(p) => SimConfig::load(p)?,
        None => SimConfig::default(),
    };
    cfg.node_model = NodeModel::Ni;
    if let Some(t) = a.t_hs {
        cfg.ni.t_hs = t;
    }
    if let Some(r) = a.r {
        cfg.ni.r = r;
        cfg.ni.t_ns = None;
    }
    let n = net.num_nodes() as u32;
    let dests: Vec<u32> = if a.dests.is_empty() {
        (0..n).filter(|&x| x != a.src).collect()
    } else {
        a.dests.clone()
    };
    let order = match a.order {
        OrderArg::Poc => poc_order(&net, &UpDown::new(&net), a.src, &dests)?.order,
        OrderArg::Given => std::iter::once(a.src)
            .chain(dests.iter().copied())
            .collect(),
    };
    let size = order.len() as u64;
    let k = match (a.tree, a.k) {
        (TreeArg::Kbinomial, Some(k)) => k,
        (TreeArg::Kbinomial, None) => {
            return Err(Error::Config {
                field: "k",
                value: "none".into(),
                reason: "--tree kbinomial needs --k".into(),
            });
        }
        (_, Some(k)) => {
            return Err(Error::Config {
                field: "k",
                value: k.to_string(),
                reason: "--k goes with --tree kbinomial".into(),
            });
        }
        (TreeArg::Optimal, None) => optimal_k(size, a.packets)?.k,
        (TreeArg::Binomial, None) => log2_ceil(size).max(1),
        (TreeArg::Linear, None) => 1,
    };
    let tree = Tree::kbinomial(&order, k)?;
    let scheme = match a.scheme {
        SchemeArg::Fpfs => Scheme::SmartNi(Discipline::Fpfs),
        SchemeArg::Fcfs => Scheme::SmartNi(Discipline::Fcfs),
        SchemeArg::Conventional => Scheme::Conventional,
    };
    let mut sys = System::new(&net, &cfg, &Traffic::Idle)?;
    if let Some(v) = &a.vcd {
        sys.attach_tracer(a.window.open(v, "wormcast multicast")?)?;
    }
    let pred = sys.predict_multicast(&tree, a.packets, scheme)?;
    let id = sys.multicast(tree.clone(), a.packets, scheme)?;
    // Generous: every packet through every vertex one after the other.
    let t = sys.ni_timing().expect("NI node model");
    let bound = 10 * (t.t_hs + t.t_hr + (t.t_ns + t.t_nr + 1_000) * a.packets as u64) * size;
    let result = sys.finish_multicast(id, bound)?;
    if let Some(v) = &a.vcd {
        let h = sys.trace_hierarchy().cloned();
        sys.finish_trace()?;
        if let Some(h) = h {
            a.window.views(v, &h)?;
        }
    }
    let disc = match scheme {
        Scheme::SmartNi(d) => d,
        Scheme::Conventional | Scheme::Worms => Discipline::Fpfs,
    };
    let steps = tree.steps(a.packets, disc);
    let hop = (1..tree.len())
        .map(|v| {
            sys.idle_latency(
                tree.node(tree.parent(v).expect("not the root")),
                tree.node(v),
                t.packet,
            )
        })
        .max()
        .unwrap_or(0);
    let t_step = t.t_ns + hop + t.t_nr;
    let step_model_latency = match scheme {
        Scheme::SmartNi(_) => Some(t.t_hs + steps.total as u64 * t_step + t.t_hr),
        Scheme::Conventional if a.packets == 1 => {
            Some(steps.first as u64 * (t.t_hs + t_step + t.t_hr))
        }
        Scheme::Conventional | Scheme::Worms => None,
    };
    let mut destinations: Vec<McastDest> = result
        .deliveries
        .iter()
        .map(|&(node, cycle)| {
            let v = tree.vertex_of(node).expect("a member");
            McastDest {
                node,
                cycle,
                predicted: pred.delivered[v].expect("a destination"),
                step: *steps.received[v].last().expect("packets"),
            }
        })
        .collect();
    destinations.sort_by_key(|d| (d.cycle, d.node));
    let nis = (0..n).filter_map(|x| sys.ni(x));
    let max_recv_queue_bytes = nis
        .clone()
        .map(|x| x.stats().max_recv_queue)
        .max()
        .unwrap_or(0);
    let max_forwarding_cycles = nis
        .flat_map(|x| {
            x.stats()
                .holdings
                .iter()
                .filter_map(|h| h.forwarding_time())
        })
        .max()
        .unwrap_or(0);
    let out = McastOutput {
        source: a.src,
        packets: a.packets,
        scheme,
        tree: (0..tree.len())
            .map(|v| {
                (
                    tree.node(v),
                    tree.children(v).iter().map(|&c| tree.node(c)).collect(),
                )
            })
            .collect(),
        order,
        k,
        ni: t,
        destinations,
        latency: result.latency.expect("finished"),
        predicted_latency: pred.latency,
        l1: steps.first,
        steps: steps.total,
        t_step,
        step_model_latency,
        max_recv_queue_bytes,
        max_forwarding_cycles,
    };
    if a.json {
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    println!(
        "multicast of {} packet(s) from node {} to {} destinations, scheme {}, k = {k} (max degree {})",
        a.packets,
        a.src,
        out.destinations.len(),
        scheme,
        tree.max_degree()
    );
    for (x, kids) in out.tree.iter().filter(|(_, c)| !c.is_empty()) {
        let kids: Vec<String> = kids.iter().map(u32::to_string).collect();
        println!("  node {x:>4} -> {}", kids.join(", "));
    }
    for d in &out.destinations {
        println!(
            "node {:>4}: cycle {:>8} (model {:>8}, step {:>3})",
            d.node, d.cycle, d.predicted, d.step
        );
    }
    let step_model = match out.step_model_latency {
        Some(l) => format!(
            "step model {l} (L1 = {}, {} steps of t_step = {})",
            out.l1, out.steps, out.t_step
        ),
        None => "no step model for conventional multi-packet messages".into(),
    };
    println!(
        "latency {} cycles; timing model {}; {step_model}",
        out.latency, out.predicted_latency
    );
    println!(
        "largest receive queue {} bytes; longest forwarding hold {} cycles",
        out.max_recv_queue_bytes, out.max_forwarding_cycles
    );
    Ok(())
}

fn kbinomial(nodes: u64, packets: u32, table: bool, json: bool) -> Result<()> {
    if table {
        let t = wormcast::mcast::OptimalKTable::new(nodes, packets)?;
        if json {
            println!("{}", serde_json::to_string_pretty(&t)?);
            return Ok(());
        }
        println!(
            "optimal k for n = 2..={nodes} nodes (source included), m = 1..={packets} packets: \
             \"from m: k\" runs, {} entries",
            t.entries()
        );
        for (i, row) in t.rows.iter().enumerate() {
            let runs: Vec<String> = row.iter().map(|(m, k)| format!("{m}: {k}")).collect();
            println!("n = {:>4}  {}", i + 2, runs.join(", "));
        }
        return Ok(());
    }
    let r = wormcast::mcast::optimal_k(nodes, packets)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&r)?);
    } else {
        println!(
            "n = {} nodes (source included), m = {} packets: optimal k = {}, L1 = {}, \
             steps L1 + (m-1)k = {}; binomial tree {} steps, linear tree {} steps",
            r.nodes, r.packets, r.k, r.l1, r.steps, r.binomial_steps, r.linear_steps
        );
    }
    Ok(())
}

fn vectors(a: &VectorArgs) -> Result<()> {
    let unit = a.unit.unit();
    let p = Params {
        nodes: a.nodes,
        ports: a.ports,
        switches: a.switches,
        chunks: a.chunks,
        chunk_flits: a.chunk_flits,
    };
    let cycles = wormcast::switch::twin::check_cycles(a.cycles)?;
    let mut twin = unit.build(&p)?;
    let n = write_vectors(
        &a.output,
        twin.as_ref(),
        &unit.verilog_params(&p),
        unit.stimulus(&p, a.seed)?.take(cycles),
    )?;
    if let Some(path) = &a.model_vcd {
        let mut w = wormcast::wave::create(
            path,
            &format!(
                "wormcast model of the {} unit, {n} vectors, seed {}",
                unit.name(),
                a.seed
            ),
        )?;
        trace(
            twin.as_mut(),
            unit.stimulus(&p, a.seed)?.take(cycles),
            10_000,
            w.as_mut(),
        )?;
        drop(w);
        let h = wormcast::switch::twin::hierarchy(twin.as_ref());
        write_views(path, &h)?;
    }
    eprintln!(
        "{n} vectors for the {} unit ({}) written to {} and {}",
        unit.name(),
        unit.verilog_params(&p)
            .iter()
            .map(|(n, v)| format!("{n} = {v}"))
            .collect::<Vec<_>>()
            .join(", "),
        a.output.display(),
        a.output.with_extension("vh").display()
    );
    Ok(())
}

fn report(r: &CompareReport, json: bool) -> Result<bool> {
    if json {
        println!("{}", serde_json::to_string_pretty(r)?);
    } else {
        println!("{r}");
    }
    Ok(r.ok())
}

fn cosim_cmd(a: &CosimArgs) -> Result<bool> {
    let map = match &a.map {
        Some(p) => SignalMap::load(p)?,
        None => SignalMap::identity(),
    };
    let o = CosimOptions {
        unit: a.unit.unit(),
        scope: a.scope.clone(),
        clock: a.clock.clone(),
        map,
        params: a.params.clone(),
        expect_cycles: a.expect_cycles,
    };
    let mut r = open_wave(&a.vcd)?;
    let rep = cosim(&mut r, &o).map_err(|e| match e {
        e @ wormcast::Error::InFile { .. } => e,
        e => e.in_file(&a.vcd),
    })?;
    report(&rep, a.json)
}

/// Bounds this process's memory and processor time (Unix only: elsewhere
/// asking for a bound is an error).
fn limit_self(mib: Option<u64>, seconds: Option<u64>) -> Result<()> {
    #[cfg(unix)]
    {
        let fail = |name: &'static str, v: u64| Error::Config {
            field: name,
            value: v.to_string(),
            reason: std::io::Error::last_os_error().to_string(),
        };
        let lim = |v: u64| libc::rlimit {
            rlim_cur: v as libc::rlim_t,
            rlim_max: v as libc::rlim_t,
        };
        if let Some(m) = mib {
            // SAFETY: setrlimit reads the struct given and changes only
            // this process's limits.
            if unsafe { libc::setrlimit(libc::RLIMIT_AS, &lim(m.saturating_mul(1 << 20))) } != 0 {
                return Err(fail("max-memory-mib", m));
            }
        }
        if let Some(s) = seconds {
            // SAFETY: as above.
            if unsafe { libc::setrlimit(libc::RLIMIT_CPU, &lim(s)) } != 0 {
                return Err(fail("max-cpu-seconds", s));
            }
        }
        Ok(())
    }
    #[cfg(not(unix))]
    {
        if mib.is_some() || seconds.is_some() {
            return Err(Error::Config {
                field: "max-memory-mib",
                value: String::new(),
                reason: "process limits are only set on Unix".into(),
            });
        }
        Ok(())
    }
}

/// A waveform of any format; GHW files are read in a child process (see
/// `wormcast::wave::open_isolated`), so that no file can crash this one.
fn open_wave(path: &Path) -> Result<WaveReader> {
    match std::env::current_exe() {
        Ok(exe) => wormcast::wave::open_isolated(path, &exe),
        Err(_) => WaveReader::open(path),
    }
}

fn wave(cmd: WaveCmd) -> Result<bool> {
    match cmd {
        WaveCmd::ToVcd {
            file,
            output,
            max_memory_mib,
            max_cpu_seconds,
        } => {
            limit_self(max_memory_mib, max_cpu_seconds)?;
            let mut r = WaveReader::open(&file)?;
            match output {
                Some(o) => {
                    let f = std::fs::File::create(&o).map_err(|e| Error::io(&o, e))?;
                    wormcast::wave::write_vcd(&mut r, &mut std::io::BufWriter::new(f))?;
                }
                None => {
                    let out = std::io::stdout();
                    wormcast::wave::write_vcd(&mut r, &mut std::io::BufWriter::new(out.lock()))?;
                }
            }
            Ok(true)
        }
        WaveCmd::Diff {
            a,
            b,
            scope,
            scope_b,
            map,
            signals,
            clock,
            ignore,
            json,
        } => {
            let map = match &map {
                Some(p) => SignalMap::load(p)?,
                None => SignalMap::identity(),
            };
            let o = DiffOptions {
                scope_a: scope,
                scope_b,
                map,
                signals,
                ignore,
                clock,
            };
            let rep = wormcast::wave::diff_files(&a, &b, &o, open_wave)?;
            report(&rep, json)
        }
    }
}

/// The worm `wormcast run --traffic worm` asks for.
fn worm_spec(net: &Network, a: &RunArgs) -> Result<WormSpec> {
    let bad = |m: String| Err(Error::BadPacket(m));
    if a.dests.is_empty() {
        return bad("--traffic worm needs --dests".into());
    }
    for &d in &a.dests {
        if d as usize >= net.num_nodes() {
            return Err(Error::UnknownNode {
                node: d as u64,
                nodes: net.num_nodes() as u32,
            });
        }
    }
    let on = |d: u32| net.node_port(d).switch;
    Ok(match a.worm {
        WormKind::Unicast => {
            if a.dests.len() != 1 {
                return bad(format!(
                    "a unicast worm has one destination, not {}",
                    a.dests.len()
                ));
            }
            WormSpec::Unicast { dest: a.dests[0] }
        }
        WormKind::Ssr => WormSpec::Ssr {
            switch: on(a.dests[0]),
            dests: a.dests.clone(),
        },
        WormKind::BitString => WormSpec::BitString {
            dests: a.dests.clone(),
        },
        WormKind::MultiDrop => {
            if a.path.is_empty() {
                return bad("a multi-drop worm needs --path, the switches it visits".into());
            }
            if let Some(&d) = a.dests.iter().find(|&&d| !a.path.contains(&on(d))) {
                return bad(format!(
                    "node {d} is on switch {}, which is not on --path",
                    on(d)
                ));
            }
            let path = a
                .path
                .iter()
                .map(|&s| {
                    (
                        s,
                        a.dests
                            .iter()
                            .copied()
                            .filter(|&d| on(d) == s)
                            .collect::<Vec<_>>(),
                    )
                })
                .filter(|(_, d)| !d.is_empty())
                .collect();
            WormSpec::MultiDrop { path }
        }
    })
}

/// Prints what a single packet or worm delivered, per destination.
fn print_deliveries(d: &[Delivery], json: bool, cycle: u64) -> Result<()> {
    if d.is_empty() {
        return Err(Error::Fault {
            cycle,
            what: "nothing was delivered".into(),
        });
    }
    let mut d = d.to_vec();
    d.sort_by_key(|x| x.dst);
    if json {
        println!("{}", serde_json::to_string_pretty(&d)?);
        return Ok(());
    }
    let f = &d[0];
    println!(
        "{} from node {}: generated at cycle {}, first flit sent at {}",
        f.kind, f.src, f.created, f.inject
    );
    for x in &d {
        println!(
            "  node {:>4}: {} flits, tail arrived at cycle {} (latency {} cycles)",
            x.dst,
            x.len,
            x.arrive,
            x.arrive - x.created
        );
    }
    Ok(())
}

fn reach(file: &Path, json: bool) -> Result<()> {
    let net = Network::load(file)?;
    let ud = UpDown::new(&net);
    let r = Reachability::new(&net, &ud).summary(&ud);
    if json {
        println!("{}", serde_json::to_string_pretty(&r)?);
        return Ok(());
    }
    println!("strings are node 0 first");
    for s in &r {
        println!("switch {} (level {}): total {}", s.switch, s.level, s.total);
        for p in &s.down_ports {
            println!("  down port {:>2}: {}", p.port, p.restricted);
        }
    }
    Ok(())
}

fn demo(out: &Path) -> Result<()> {
    std::fs::create_dir_all(out).map_err(|source| Error::Io {
        path: out.to_path_buf(),
        source,
    })?;
    let params = IrregularParams::default();
    let topo = params.generate()?;
    let topo_path = out.join("net.toml");
    topo.save(
        &topo_path,
        "the default network: 8 switches of 8 ports, 32 nodes, 80% connectivity, seed 1",
    )?;
    let net = Network::new(&topo)?;
    println!("== network ({})", topo_path.display());
    print!("{}", summarize(&net).to_text());

    // A traced run of the first 2,000 cycles.
    let cfg = SimConfig::default();
    let traffic = Traffic::uniform(0.05, 20);
    let mut sys = System::new(&net, &cfg, &traffic)?;
    let vcd = out.join("demo.vcd");
    sys.attach_tracer(wormcast::wave::create(&vcd, "wormcast demo, seed 1")?)?;
    sys.run(2_000)?;
    let h = sys.trace_hierarchy().cloned().expect("tracing is on");
    sys.finish_trace()?;
    let (gtkw, sucl) = write_views(&vcd, &h)?;
    println!(
        "\n== waveform: {} ({} signals); open it with: gtkwave {} (or surfer -c {})",
        vcd.display(),
        h.signals.len(),
        gtkw.display(),
        sucl.display()
    );

    // Latency and throughput against load, untraced.
    println!("\n== uniform traffic, 128-flit packets, 200,000 cycles after 50,000 of warm-up");
    println!(
        "{:>6} {:>10} {:>10} {:>12} {:>10}",
        "load", "offered", "accepted", "avg latency", "max"
    );
    let (mut latency, mut accepted) = (Series::default(), Series::default());
    latency.name = "uniform, 128-flit packets".into();
    latency.color = (0, 90, 200);
    accepted.name = latency.name.clone();
    accepted.color = latency.color;
    for load in [0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3] {
        let mut sys = System::new(&net, &cfg, &Traffic::uniform(load, 128))?;
        sys.run(50_000)?;
        sys.start_window();
        sys.run(200_000)?;
        let r = sys.report();
        // Saturated: the network delivers clearly less than is offered, and
        // the latency measured is that of a growing queue.
        let saturated = r.accepted_throughput < 0.95 * r.offered_load;
        println!(
            "{:>6.2} {:>10.4} {:>10.4} {:>12.1} {:>10}{}",
            load,
            r.offered_load,
            r.accepted_throughput,
            r.avg_latency,
            r.max_latency,
            if saturated { "  saturated" } else { "" }
        );
        if saturated {
            latency.saturated.push(r.offered_load);
        } else {
            latency.points.push((r.offered_load, r.avg_latency));
        }
        accepted
            .points
            .push((r.offered_load, r.accepted_throughput));
    }
    let panels = [
        Panel {
            label: "Latency".into(),
            x_desc: "Offered load (flits/node/cycle)".into(),
            y_desc: "Average latency (cycles)".into(),
            series: vec![latency],
        },
        Panel {
            label: "Throughput".into(),
            x_desc: "Offered load (flits/node/cycle)".into(),
            y_desc: "Accepted throughput (flits/node/cycle)".into(),
            series: vec![accepted],
        },
    ];
    let plots = wormcast::experiment::write_plots(
        "The default 32-node network under uniform traffic",
        "Points: one 200,000-cycle run each, after 50,000 cycles of warm-up. \
         x on the axis: saturated (accepted below 95% of offered), no latency drawn.",
        &panels,
        &out.join("demo_load"),
    )?;
    for p in &plots {
        println!("plot: {}", p.display());
    }

    // One multicast from node 0 to the 31 others through the NIs.
    println!("\n== multicast from node 0 to all 31 others (hosts and NIs, seed 000 section 4)");
    println!(
        "{:>7} {:>30} {:>10} {:>12}",
        "packets", "tree and scheme", "latency", "timing model"
    );
    let ni_cfg = SimConfig {
        node_model: NodeModel::Ni,
        ..SimConfig::default()
    };
    let dests: Vec<u32> = (1..32).collect();
    let order = poc_order(&net, &UpDown::new(&net), 0, &dests)?.order;
    for m in [1u32, 4] {
        let best = optimal_k(32, m)?.k;
        for (name, k, scheme) in [
            ("binomial, conventional", 5, Scheme::Conventional),
            (
                "binomial, smart NI FPFS",
                5,
                Scheme::SmartNi(Discipline::Fpfs),
            ),
            (
                "optimal k-binomial, FPFS",
                best,
                Scheme::SmartNi(Discipline::Fpfs),
            ),
        ] {
            let tree = Tree::kbinomial(&order, k)?;
            let mut sys = System::new(&net, &ni_cfg, &Traffic::Idle)?;
            let pred = sys.predict_multicast(&tree, m, scheme)?.latency;
            let id = sys.multicast(tree, m, scheme)?;
            let lat = sys
                .finish_multicast(id, 1_000_000)?
                .latency
                .expect("finished");
            let label = if name.starts_with("optimal") {
                format!("{name} (k={k})")
            } else {
                name.to_string()
            };
            println!("{m:>7} {label:>30} {lat:>10} {pred:>12}");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every command and every option says what it is for: an option
    /// without help text shows only its name in `--help`.
    #[test]
    fn every_command_and_option_has_help_text() {
        fn walk(c: &clap::Command, path: &str, missing: &mut Vec<String>) {
            if c.get_about().is_none() && !path.is_empty() {
                missing.push(format!("command `{path}`"));
            }
            for a in c.get_arguments() {
                let id = a.get_id().as_str();
                if id == "help" || id == "version" {
                    continue;
                }
                if a.get_help().is_none() {
                    missing.push(format!("`{path} --{id}`"));
                }
            }
            for s in c.get_subcommands() {
                if s.get_name() == "help" {
                    continue;
                }
                let p = format!("{path} {}", s.get_name()).trim().to_string();
                walk(s, &p, missing);
            }
        }
        let mut missing = Vec::new();
        walk(&Cli::command(), "", &mut missing);
        assert!(missing.is_empty(), "no help text: {}", missing.join(", "));
    }

    /// The help of `kbinomial` and `multicast` describes each its own
    /// command (they were once swapped).
    #[test]
    fn kbinomial_and_multicast_describe_themselves() {
        let c = Cli::command();
        let about = |n: &str| {
            c.find_subcommand(n)
                .and_then(|s| s.get_about())
                .map(|a| a.to_string())
                .unwrap_or_default()
        };
        assert!(about("kbinomial").starts_with("The optimal k-binomial tree"));
        assert!(about("multicast").starts_with("One multicast through"));
    }
}

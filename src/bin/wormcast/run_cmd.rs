//! `wormcast run`: traffic on seed 000's switch network from a topology file, or
//! on the one engine (`engine_cmd`) for topology specs, router models,
//! patterns, traces and run configurations.

use super::*;

#[path = "run_cmd/engine_cmd.rs"]
mod engine_cmd;

/// What `run --traffic` names: a load of packets to a pattern's
/// destinations (uniform, transpose, ...), or one of the others.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum TrafficKind {
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

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum WormKind {
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
    /// The name `WormSpec::from_request` takes.
    fn name(self) -> &'static str {
        match self {
            WormKind::Unicast => "unicast",
            WormKind::Ssr => "ssr",
            WormKind::MultiDrop => "multi-drop",
            WormKind::BitString => "bit-string",
        }
    }

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
// The waveform a window (`TraceArgs`) limits: --vcd, or a configuration's
// output.vcd (checked when the file is read).
#[command(group(clap::ArgGroup::new("waveform").args(["vcd", "config"]).multiple(true)))]
pub(crate) struct RunArgs {
    /// The network: a topology file, or mesh:KXxKY[xKZ], torus:KXxKY[xKZ],
    /// hypercube:N, irregular:switches=S,ports=K,nodes=P[,seed=N].
    #[arg(long, required_unless_present = "config")]
    pub(crate) topology: Option<String>,
    /// A run configuration (TOML: [network], [traffic], [stats], [output],
    /// [switch], [wormhole]; configs/ has one per paper), or a file of the
    /// switch's fields alone; options given here override it.
    #[arg(long)]
    pub(crate) config: Option<PathBuf>,
    /// Print the run configuration these options make (TOML, for
    /// --config) and run nothing.
    #[arg(long)]
    pub(crate) print_config: bool,
    /// What sits at each node with the cut-through router: endpoint
    /// (traffic endpoints, default) or ni (seed 000's hosts with network
    /// interfaces: a message is split into packets, hosts and NIs pay
    /// their overheads, and multicast members forward).
    #[arg(long, value_parser = ["endpoint", "ni"])]
    pub(crate) node_model: Option<String>,
    /// Multicast scheme on the engine: bit-string, ssr, multi-drop or
    /// unicast (cut-through); with --node-model ni tree, path-lg, path-g,
    /// ssr-lg, ssr-g, ni-kbinomial, binomial or unicast; unicast, path (hypercube), tp, sp or gtdmpm
    /// (mesh with --routing hamiltonian) for wormhole; tree or pseudo (tree). Default:
    /// the first.
    #[arg(long)]
    pub(crate) scheme: Option<String>,
    /// Start-up latency a source pays per worm, one worm at a time (seed
    /// 002's beta; wormhole and tree routers), in cycles (default 0).
    #[arg(long)]
    pub(crate) startup: Option<u64>,
    /// The tree router never prunes (it can then deadlock: seed 003
    /// Fig. 6).
    #[arg(long)]
    pub(crate) no_prune: bool,
    /// Cycles a tree router's input may be stalled before it prunes
    /// (default 1).
    #[arg(long)]
    pub(crate) stall_limit: Option<u32>,
    /// The tree router prunes selectively: only the branches another
    /// message waits for (seed 003's proposed selective pruning).
    #[arg(long)]
    pub(crate) selective_prune: bool,
    /// When a tree branch releases its channel: `end` (when the message
    /// ends at the input, default) or `turn` (also when a later header
    /// leaves by another output).
    #[arg(long, value_parser = ["end", "turn"])]
    pub(crate) release: Option<String>,
    /// Threads that evaluate the network (default 1): the routers or the
    /// cut-through switches are cut into ranges of 64 or more, and the
    /// results and the waveforms are the same for any count given. A run
    /// given it goes through the engine (docs/engine.md), whose traffic
    /// differs from a topology file's uniform run without it.
    #[arg(long)]
    pub(crate) threads: Option<usize>,
    /// With --threads: which cycles are handed to the other threads, `busy`
    /// (those that hold enough work; the calling thread runs the others
    /// alone, default) or `always` (every cycle, slower at light loads).
    /// The results and the waveforms are the same either way.
    #[arg(long, value_parser = ["busy", "always"])]
    pub(crate) hand_over: Option<String>,
    /// Print every link's utilisation over the measured cycles, busiest
    /// first (the engine; without it, the mean and the busiest).
    #[arg(long)]
    pub(crate) links: bool,
    /// Closed loop: a node creates its next message only once its previous
    /// one has fully arrived, a think time drawn from --load later.
    #[arg(long)]
    pub(crate) closed_loop: bool,
    /// After the run, stop the sources and wait at most this many cycles
    /// for every message to arrive (an error if one does not).
    #[arg(long)]
    pub(crate) drain: Option<u64>,
    /// Injection and consumption channels of the wormhole router:
    /// one-port or all-port (default one-port).
    #[arg(long)]
    pub(crate) ports: Option<String>,
    /// Traffic: packets at --load to the destinations of a pattern
    /// (uniform, transpose, bit-complement, bit-reverse, shuffle, tornado,
    /// neighbour, hotspot:NODES@FRACTION, permutation:FILE); single (one
    /// packet from --src to --dst); multicast (random worms of --worm to
    /// --degree destinations at --load); worm (one worm of --worm from --src
    /// to --dests).
    #[arg(long, default_value = "uniform")]
    pub(crate) traffic: String,
    /// Router model: cut-through (seed 000's switch; any topology),
    /// wormhole (seeds 001/002; hypercube, mesh) or tree (seed 003; mesh,
    /// torus). Default: tree on meshes and tori, wormhole on hypercubes,
    /// cut-through otherwise.
    #[arg(long)]
    pub(crate) router: Option<String>,
    /// Routing function: updown (cut-through), ecube, r1, r2 or minimal
    /// (wormhole on a hypercube), dor (wormhole on a mesh, tree). Default:
    /// the first.
    #[arg(long)]
    pub(crate) routing: Option<String>,
    /// Stop once the mean latency's 95% confidence half-width is under this
    /// fraction of the mean (e.g. 0.05), checked after every batch; --cycles
    /// is then the most measured.
    #[arg(long)]
    pub(crate) stop_rule: Option<f64>,
    /// The latency of the confidence interval and the stop rule: latency
    /// (per copy, creation to tail) or network-latency (first flit in the
    /// network to tail, start-up excluded).
    #[arg(long)]
    pub(crate) stop_metric: Option<String>,
    /// Batches the measured cycles are cut into, for the confidence
    /// interval (with --stop-rule: the fewest before it may stop).
    #[arg(long, default_value_t = 10)]
    pub(crate) batches: u32,
    /// Cycles per batch (default: the measured cycles over --batches; with
    /// --stop-rule, over 10 times --batches, so that the rule can end the
    /// run early).
    #[arg(long)]
    pub(crate) batch_cycles: Option<u64>,
    /// Messages a node may have outstanding before it refuses new ones
    /// (a topology spec, --router or a pattern other than uniform).
    #[arg(long, default_value_t = 64)]
    pub(crate) source_queue: u32,
    /// Bimodal lengths, LEN@SHARE (e.g. 4@0.8): that share of the packets
    /// is LEN flits long instead of --packet (a topology spec or --router).
    #[arg(long)]
    pub(crate) packet_alt: Option<String>,
    /// Replay this trace (CSV or JSON lines: cycle, source, destinations,
    /// flits, optional earlier message waited for; docs/engine.md) until
    /// every copy has arrived, at most --cycles cycles.
    #[arg(long)]
    pub(crate) trace: Option<PathBuf>,
    /// Offered load, flits/node/cycle, 0 to 1 (uniform, multicast: flits
    /// injected, a worm counted once; 0 runs the network idle).
    #[arg(long, default_value_t = 0.05)]
    pub(crate) load: f64,
    /// Packet length in flits, header included.
    #[arg(long, default_value_t = 128)]
    pub(crate) packet: u32,
    /// Source node (single).
    #[arg(long, default_value_t = 0)]
    pub(crate) src: u32,
    /// Destination node (single).
    #[arg(long, default_value_t = 1)]
    pub(crate) dst: u32,
    /// Header encoding of the worms (multicast, worm).
    #[arg(long, value_enum, default_value = "bit-string")]
    pub(crate) worm: WormKind,
    /// Destinations of the worm, comma-separated (worm).
    #[arg(long, value_delimiter = ',')]
    pub(crate) dests: Vec<u32>,
    /// Switches a multi-drop worm visits, in order, comma-separated (worm).
    #[arg(long, value_delimiter = ',')]
    pub(crate) path: Vec<u32>,
    /// Destinations per worm (multicast). An SSR worm draws them among the
    /// nodes of one switch and a multi-drop worm among those along one
    /// route, so they may reach fewer; the run reports the mean reached.
    #[arg(long, default_value_t = 4)]
    pub(crate) degree: u32,
    /// With a topology spec or --router: draw each multicast's number of
    /// destinations uniformly from --degree to this.
    #[arg(long)]
    pub(crate) degree_max: Option<u32>,
    /// Flits after a worm's header (multicast, worm).
    #[arg(long, default_value_t = 16)]
    pub(crate) payload: u32,
    /// Cycles to simulate, warm-up included (single: the most to wait).
    #[arg(long, default_value_t = 200_000)]
    pub(crate) cycles: u64,
    /// Cycles before measurement starts.
    #[arg(long, default_value_t = 50_000)]
    pub(crate) warmup: u64,
    /// Traffic seed (overrides the configuration file).
    #[arg(long)]
    pub(crate) seed: Option<u64>,
    /// Input buffer per switch port, flits.
    #[arg(long)]
    pub(crate) buffer: Option<u32>,
    /// Chunk size, flits.
    #[arg(long)]
    pub(crate) chunk: Option<u32>,
    /// Write every register to this waveform (`.fst` for FST, else VCD),
    /// with a GTKWave `.gtkw` and a Surfer `.sucl` beside it; `-` writes
    /// VCD to standard output and the report to standard error.
    #[arg(long)]
    pub(crate) vcd: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) window: TraceArgs,
    /// Print one JSON object.
    #[arg(long)]
    pub(crate) json: bool,
    /// No progress bar.
    #[arg(long, short)]
    pub(crate) quiet: bool,
}

#[derive(Serialize)]
pub(crate) struct RunOutput<'a> {
    pub(crate) topology: String,
    pub(crate) traffic: &'a Traffic,
    pub(crate) config: &'a SimConfig,
    #[serde(flatten)]
    pub(crate) report: &'a RunReport,
    /// The run's wall time, from its first cycle to its last (the
    /// waveform finished).
    pub(crate) wall_seconds: f64,
    /// Simulated cycles over `wall_seconds`.
    pub(crate) cycles_per_second: f64,
    /// Loading the network and building its switches, routing tables and
    /// endpoints before the run.
    pub(crate) setup_seconds: f64,
    /// The build of wormcast that ran it (`wormcast --version`): reports
    /// gathered from several machines say which model made each.
    pub(crate) build: &'static str,
}

/// The options of `run` that only some traffic patterns use, with the
/// patterns that use them.
pub(crate) const TRAFFIC_OPTIONS: [(&str, &str, &[TrafficKind]); 10] = [
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
pub(crate) fn traffic_kind(s: &str) -> Result<(TrafficKind, Option<Pattern>)> {
    Ok(match s {
        "single" => (TrafficKind::Single, None),
        "multicast" => (TrafficKind::Multicast, None),
        "worm" => (TrafficKind::Worm, None),
        p => (TrafficKind::Uniform, Some(Pattern::parse(p)?)),
    })
}

/// Refuses a `run` option given for a traffic pattern that does not use it.
pub(crate) fn check_run_options(a: &RunArgs, kind: TrafficKind, given: &[String]) -> Result<()> {
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

pub(crate) fn join(v: &[u32]) -> String {
    v.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
}

/// What `run --config` names.
pub(crate) enum Loaded {
    /// A run configuration.
    Run(Box<wormcast::engine::RunConfig>),
    /// The switch's fields alone.
    Switch(SimConfig),
}

/// Reads `run --config`: a file whose every key is a field of `SimConfig`
/// is the switch's configuration (as before run configurations), anything
/// else a run configuration, whose errors name its fields.
pub(crate) fn load_config(p: &Path) -> Result<Loaded> {
    let text = wormcast::read_text(p)?;
    let is_switch = SimConfig::is_own_file(&text).map_err(|e| e.in_file(p))?;
    Ok(if is_switch {
        Loaded::Switch(SimConfig::load(p)?)
    } else {
        Loaded::Run(Box::new(wormcast::engine::RunConfig::load(p)?))
    })
}

/// The switch network's configuration: `--config`, then `--seed`,
/// `--buffer` and `--chunk` over it.
pub(crate) fn sim_config(a: &RunArgs) -> Result<SimConfig> {
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

pub(crate) fn simulate(a: RunArgs, given: &[String]) -> Result<()> {
    // A run configuration runs on the engine; a file of the switch's
    // fields alone sets its hardware, as before.
    let mut switch_file = None;
    if let Some(v) = &a.vcd {
        let topology = a.topology.as_deref().map(Path::new);
        let inputs = a.config.as_deref().into_iter().chain(topology);
        wormcast::wave::check_not_input("vcd", v, inputs.chain(a.trace.as_deref()))?;
    }
    if let Some(p) = &a.config {
        match load_config(p)? {
            Loaded::Run(c) => {
                if let Some(v) = &c.output.vcd {
                    wormcast::wave::check_not_input("output.vcd", v, [p.as_path()])?;
                }
                let why = format!("a run configuration ({})", p.display());
                let c = engine_cmd::config_of(&a, Some(*c), given, &why)?;
                engine_cmd::check_router_options(&c, given)?;
                return engine_cmd::run_engine(&c, a.print_config);
            }
            Loaded::Switch(s) => {
                // Such a file writes no waveform; a window given with it
                // and no --vcd would limit nothing.
                a.window.limits().check_written(a.vcd.is_some())?;
                switch_file = Some(s);
            }
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
        "startup",
        "no_prune",
        "stall_limit",
        "selective_prune",
        "release",
        "threads",
        "hand_over",
        "scheme",
        "links",
        "closed_loop",
        "drain",
        "ports",
        "router",
        "routing",
        "stop_rule",
        "stop_metric",
        "batches",
        "batch_cycles",
        "source_queue",
        "trace",
        "degree_max",
        "packet_alt",
        "node_model",
    ];
    // What makes the run the engine's, if anything: the topology, an
    // option of the engine's, or the traffic.
    let engine_option = given.iter().find(|g| engine_only.contains(&g.as_str()));
    let why = if !matches!(spec, TopoSpec::File(_)) {
        Some(format!("topology {topology}"))
    } else if let Some(g) = engine_option {
        Some(format!("a run with --{}", g.replace('_', "-")))
    } else if pattern.as_ref().is_some_and(|p| *p != Pattern::Uniform) {
        Some(format!("traffic {}", a.traffic))
    } else {
        None
    };
    if let Some(why) = why {
        let file = switch_file.map(|s| wormcast::engine::RunConfig {
            switch: SimConfig {
                seed: SimConfig::default().seed,
                ..s
            },
            ..Default::default()
        });
        let mut c = engine_cmd::config_of(&a, file, given, &why)?;
        if !given.iter().any(|g| g == "topology") {
            c.network.topology = topology;
        }
        engine_cmd::check_router_options(&c, given)?;
        return engine_cmd::run_engine(&c, a.print_config);
    }
    spec.check_file()?;
    check_run_options(&a, kind, given)?;
    let t_setup = Instant::now();
    let net = Network::load(&topology)?;
    let mut cfg = sim_config(&a)?;
    let single = matches!(kind, TrafficKind::Single | TrafficKind::Worm);
    cfg.record_deliveries |= single;
    let traffic = match kind {
        TrafficKind::Uniform => Traffic::uniform(a.load, a.packet),
        TrafficKind::Multicast => Traffic::multicast(a.load, a.payload, a.degree, a.worm.kind()),
        TrafficKind::Single | TrafficKind::Worm => Traffic::Idle,
    };
    // A run of more cycles than any run may take (the engine's bound).
    if a.cycles > wormcast::engine::MAX_RUN_CYCLES {
        return Err(Error::Config {
            field: "cycles",
            value: a.cycles.to_string(),
            reason: format!(
                "a run has at most {} cycles",
                wormcast::engine::MAX_RUN_CYCLES
            ),
        });
    }
    if a.cycles == 0 && !single {
        return Err(Error::Config {
            field: "cycles",
            value: "0".into(),
            reason: "a run has at least 1 cycle past its warm-up to measure".into(),
        });
    }
    // A warm-up as long as the run leaves no cycle to measure.
    if a.warmup >= a.cycles && !single {
        return Err(Error::Config {
            field: "warmup",
            value: a.warmup.to_string(),
            reason: format!(
                "not shorter than the run of {}{}",
                wormcast::counted(a.cycles, "cycles"),
                if given.iter().any(|g| g == "warmup") {
                    ""
                } else {
                    " (the default warm-up: give a shorter one, --warmup)"
                }
            ),
        });
    }
    let mut sys = System::new(&net, &cfg, &traffic)?;
    let setup = t_setup.elapsed().as_secs_f64();
    crate::stop_cleanly_from_here();
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
    let ran = (|| {
        if single {
            match kind {
                TrafficKind::Worm => {
                    let spec = worm_spec(&net, &a)?;
                    sys.inject_worm(a.src, &spec, a.payload)?
                }
                _ => sys.inject(a.src, a.dst, a.packet)?,
            };
            sys.drain(a.cycles).map(|_| ())
        } else {
            sys.run_with_progress(a.warmup, |c| bar.set(c))?;
            sys.start_window();
            let w = a.warmup;
            sys.run_with_progress(a.cycles - a.warmup, |c| bar.set(w + c))
                .map(|_| ())
        }
    })();
    if let Err(e) = ran {
        // A run that stops (a deadlock, a packet that never arrives, a
        // fault) ends its waveform where it stopped, views beside it.
        bar.done();
        if let (Some(v), Ok(Some(h))) = (&a.vcd, sys.finish_trace_hierarchy()) {
            let _ = a.window.views(v, &h);
        }
        return Err(e);
    }
    bar.done();
    // The waveform's last block is written as it finishes: part of the run.
    let h = crate::after_report(sys.finish_trace_hierarchy())?;
    let wall = t0.elapsed().as_secs_f64();
    if let (Some(v), Some(h)) = (&a.vcd, h) {
        a.window.views(v, &h)?;
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
        setup_seconds: setup,
        build: wormcast::BUILD,
    };
    if a.json {
        say!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        say!("{report}");
        say!(
            "wall time {:.3} s ({:.0} cycles/s), after {setup:.3} s building the network",
            wall,
            report.cycles as f64 / wall.max(1e-9)
        );
    }
    Ok(())
}

/// The worm `wormcast run --traffic worm` asks for. A multi-drop worm's
/// missing path is named by this command's option; the library's refusal
/// names the argument `path`.
pub(crate) fn worm_spec(net: &Network, a: &RunArgs) -> Result<WormSpec> {
    if matches!(a.worm, WormKind::MultiDrop) && a.path.is_empty() && !a.dests.is_empty() {
        return Err(Error::BadPacket(
            "a multi-drop worm needs --path, the switches it visits in order".into(),
        ));
    }
    WormSpec::from_request(net, a.worm.name(), &a.dests, &a.path)
}

/// Prints what a single packet or worm delivered, per destination.
pub(crate) fn print_deliveries(d: &[Delivery], json: bool, cycle: u64) -> Result<()> {
    if d.is_empty() {
        return Err(Error::Fault {
            cycle,
            what: "nothing was delivered".into(),
        });
    }
    let mut d = d.to_vec();
    d.sort_by_key(|x| x.dst);
    if json {
        say!("{}", serde_json::to_string_pretty(&d)?);
        return Ok(());
    }
    let f = &d[0];
    say!(
        "{} from node {}: generated at cycle {}, first flit sent at {}",
        f.kind,
        f.src,
        f.created,
        f.inject
    );
    for x in &d {
        say!(
            "  node {:>4}: {} flits, tail arrived at cycle {} (latency {} cycles)",
            x.dst,
            x.len,
            x.arrive,
            x.arrive - x.created
        );
    }
    Ok(())
}

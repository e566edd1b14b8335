//! `wormcast plan`: the Greedy and Less Greedy worm plans of seed 000
//! section 5, optionally run on the network.

use super::*;

#[derive(clap::Args)]
// The waveform a window (`TraceArgs`) limits.
#[command(group(clap::ArgGroup::new("waveform").args(["vcd"]).multiple(true)))]
pub(crate) struct PlanArgs {
    /// The topology file (default: the paper's 32-node network).
    #[arg(long)]
    pub(crate) topology: Option<PathBuf>,
    /// A configuration file for --run (TOML, fields of `SimConfig`).
    #[arg(long)]
    pub(crate) config: Option<PathBuf>,
    /// Source node.
    #[arg(long, default_value_t = 0)]
    pub(crate) source: u32,
    /// Destinations, comma-separated (default: every other node).
    #[arg(long, value_delimiter = ',')]
    pub(crate) dests: Vec<u32>,
    /// ssr-g, ssr-lg, path-g, path-lg, tree, ni-kbinomial or binomial.
    #[arg(long, default_value = "path-lg")]
    pub(crate) scheme: String,
    /// Packets of the message.
    #[arg(long, default_value_t = 1)]
    pub(crate) packets: u32,
    /// Simulate the multicast and print when each host had the message.
    #[arg(long)]
    pub(crate) run: bool,
    /// With --run: write every register to this waveform (`.fst` for FST,
    /// else VCD), with GTKWave and Surfer views beside it; `-` writes VCD
    /// to standard output and the report to standard error.
    #[arg(long, requires = "run")]
    pub(crate) vcd: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) window: TraceArgs,
    /// Print one JSON object.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Serialize)]
pub(crate) struct PlanWormOut<'a> {
    #[serde(flatten)]
    pub(crate) worm: &'a wormcast::mcast::PlannedWorm,
    pub(crate) header_hex: String,
}

#[derive(Serialize)]
pub(crate) struct PlanOutput<'a> {
    pub(crate) scheme: wormcast::mcast::PlanScheme,
    pub(crate) source: u32,
    pub(crate) destinations: &'a [u32],
    pub(crate) packets: u32,
    pub(crate) phases: u32,
    pub(crate) k: Option<u32>,
    pub(crate) worms: Vec<PlanWormOut<'a>>,
    /// With --run: latency and (node, cycle) of each host's delivery.
    pub(crate) latency: Option<u64>,
    pub(crate) deliveries: Option<Vec<(u32, u64)>>,
}

pub(crate) fn plan(a: &PlanArgs) -> Result<()> {
    if let Some(v) = &a.vcd {
        let inputs = a.topology.as_deref().into_iter();
        wormcast::wave::check_not_input("vcd", v, inputs.chain(a.config.as_deref()))?;
    }
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
    // The plan is of a message the network interfaces could carry, run
    // or not.
    wormcast::ni::message_packets(a.packets)?;
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
            let h = crate::after_report(sys.finish_trace_hierarchy())?;
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
        say!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        say_part!("{}", p.to_text());
        if let Some(r) = run {
            say!(
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

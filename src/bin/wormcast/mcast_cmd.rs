//! `wormcast multicast` and `wormcast kbinomial`: multicast through smart
//! network interfaces over k-binomial trees (seed 000 sections 3-4).

use super::*;

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum SchemeArg {
    /// Smart NIs, first packet first served.
    Fpfs,
    /// Smart NIs, first child first served.
    Fcfs,
    /// Every hop through the hosts.
    Conventional,
}

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum TreeArg {
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
pub(crate) enum OrderArg {
    /// The POC ordering of section 4.3.4 (fewer contending copies).
    Poc,
    /// --src, then --dests as given.
    Given,
}

#[derive(clap::Args)]
// The waveform a window (`TraceArgs`) limits.
#[command(group(clap::ArgGroup::new("waveform").args(["vcd"]).multiple(true)))]
pub(crate) struct McastArgs {
    /// The topology file (default: the paper's 32-node network).
    #[arg(long)]
    pub(crate) topology: Option<PathBuf>,
    /// A configuration file (TOML, fields of `SimConfig`; its `[ni]` table
    /// sets the host and NI parameters).
    #[arg(long)]
    pub(crate) config: Option<PathBuf>,
    /// Source node.
    #[arg(long, default_value_t = 0)]
    pub(crate) src: u32,
    /// Destinations, comma-separated (default: every other node).
    #[arg(long, value_delimiter = ',')]
    pub(crate) dests: Vec<u32>,
    /// Packets of the message.
    #[arg(long, default_value_t = 1)]
    pub(crate) packets: u32,
    /// How the multicast is carried out.
    #[arg(long, value_enum, default_value = "fpfs")]
    pub(crate) scheme: SchemeArg,
    /// The multicast tree.
    #[arg(long, value_enum, default_value = "optimal")]
    pub(crate) tree: TreeArg,
    /// k of --tree kbinomial.
    #[arg(long)]
    pub(crate) k: Option<u32>,
    /// The ordering the tree is built on.
    #[arg(long, value_enum, default_value = "poc")]
    pub(crate) order: OrderArg,
    /// Host send overhead t_hs, cycles (overrides the configuration).
    #[arg(long)]
    pub(crate) t_hs: Option<u64>,
    /// R = t_hs / t_ns (overrides the configuration; t_ns follows).
    #[arg(long)]
    pub(crate) r: Option<f64>,
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
}

#[derive(Serialize)]
pub(crate) struct McastDest {
    pub(crate) node: u32,
    /// Cycle its host had the whole message.
    pub(crate) cycle: u64,
    /// The timing model's cycle on the idle network.
    pub(crate) predicted: u64,
    /// Its step in the step model, last packet.
    pub(crate) step: u32,
}

#[derive(Serialize)]
pub(crate) struct McastOutput {
    pub(crate) source: u32,
    pub(crate) packets: u32,
    pub(crate) scheme: Scheme,
    pub(crate) order: Vec<u32>,
    /// Each vertex's node and its children's nodes, in serving order.
    pub(crate) tree: Vec<(u32, Vec<u32>)>,
    pub(crate) k: u32,
    pub(crate) ni: NiTiming,
    pub(crate) destinations: Vec<McastDest>,
    pub(crate) latency: u64,
    pub(crate) predicted_latency: u64,
    /// The step model: L1, total steps, and t_step = t_ns + the longest
    /// copy's network time + t_nr.
    pub(crate) l1: u32,
    pub(crate) steps: u32,
    pub(crate) t_step: u64,
    /// t_hs + steps t_step + t_hr (smart NIs) or L1 (t_hs + t_step + t_hr)
    /// (conventional, one packet; section 4.1 has no multi-packet form).
    pub(crate) step_model_latency: Option<u64>,
    /// The largest receive queue at any NI, bytes.
    pub(crate) max_recv_queue_bytes: u32,
    /// The longest a packet stayed between its read and its last send.
    pub(crate) max_forwarding_cycles: u64,
}

pub(crate) fn multicast(a: &McastArgs) -> Result<()> {
    if let Some(v) = &a.vcd {
        let inputs = a.topology.as_deref().into_iter();
        wormcast::wave::check_not_input("vcd", v, inputs.chain(a.config.as_deref()))?;
    }
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
    let bound = (t.t_ns + t.t_nr + 1_000)
        .saturating_mul(a.packets as u64)
        .saturating_add(t.t_hs + t.t_hr)
        .saturating_mul(10 * size);
    // A multicast that does not finish ends its waveform there too.
    let result = sys.finish_multicast(id, bound);
    if let Some(v) = &a.vcd {
        let h = crate::after_report(sys.finish_trace_hierarchy())?;
        if let Some(h) = h {
            a.window.views(v, &h)?;
        }
    }
    let result = result?;
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
        say!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    say!(
        "multicast of {} from node {} to {}, scheme {}, k = {k} (max degree {})",
        wormcast::counted(a.packets as u64, "packets"),
        a.src,
        wormcast::counted(out.destinations.len() as u64, "destinations"),
        scheme,
        tree.max_degree()
    );
    for (x, kids) in out.tree.iter().filter(|(_, c)| !c.is_empty()) {
        let kids: Vec<String> = kids.iter().map(u32::to_string).collect();
        say!("  node {x:>4} -> {}", kids.join(", "));
    }
    for d in &out.destinations {
        say!(
            "node {:>4}: cycle {:>8} (model {:>8}, step {:>3})",
            d.node,
            d.cycle,
            d.predicted,
            d.step
        );
    }
    let step_model = match out.step_model_latency {
        Some(l) => format!(
            "step model {l} (L1 = {}, {} steps of t_step = {})",
            out.l1, out.steps, out.t_step
        ),
        None => "no step model for conventional multi-packet messages".into(),
    };
    say!(
        "latency {} cycles; timing model {}; {step_model}",
        out.latency,
        out.predicted_latency
    );
    say!(
        "largest receive queue {} bytes; longest forwarding hold {} cycles",
        out.max_recv_queue_bytes,
        out.max_forwarding_cycles
    );
    Ok(())
}

pub(crate) fn kbinomial(nodes: u64, packets: u32, table: bool, json: bool) -> Result<()> {
    if table {
        let t = wormcast::mcast::OptimalKTable::new(nodes, packets)?;
        if json {
            say!("{}", serde_json::to_string_pretty(&t)?);
            return Ok(());
        }
        say!(
            "optimal k for n = 2..={nodes} nodes (source included), m = 1..={packets} packets: \
             \"from m: k\" runs, {} entries",
            t.entries()
        );
        for (i, row) in t.rows.iter().enumerate() {
            let runs: Vec<String> = row.iter().map(|(m, k)| format!("{m}: {k}")).collect();
            say!("n = {:>4}  {}", i + 2, runs.join(", "));
        }
        return Ok(());
    }
    let r = wormcast::mcast::optimal_k(nodes, packets)?;
    if json {
        say!("{}", serde_json::to_string_pretty(&r)?);
    } else {
        say!(
            "n = {} nodes (source included), m = {} packets: optimal k = {}, L1 = {}, \
             steps L1 + (m-1)k = {}; binomial tree {} steps, linear tree {} steps",
            r.nodes,
            r.packets,
            r.k,
            r.l1,
            r.steps,
            r.binomial_steps,
            r.linear_steps
        );
    }
    Ok(())
}

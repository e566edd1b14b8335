//! One harness for every network: a topology spec ([`TopoSpec`]), a router
//! model ([`RouterModel`]) with its routing function, a traffic pattern
//! ([`Pattern`]) and one statistics module ([`stats`]), the way network
//! simulators let configuration choose network, router, routing and
//! traffic, but with the register-transfer-level models of the four seed
//! papers underneath:
//!
//! | router model | paper | topologies | routing |
//! |---|---|---|---|
//! | `cut-through` | seed 000: the multicast switch, chunk buffers, decode units | any (a direct network as one switch per node) | up*/down* |
//! | `wormhole` | seeds 001/002: the path-based router, one-port or all-port | hypercube, mesh | e-cube, R1, R2, minimal (hypercube); dimension order (mesh) |
//! | `tree` | seed 003: the virtual-channel tree router with pruning | mesh, torus | dimension order, dateline VCs on tori |
//!
//! A combination that makes no sense is refused with the valid ones named.
//! Each model sits behind the [`Engine`] trait: messages in, copies out
//! with their creation, injection and arrival cycles; the harness
//! ([`run`]) generates open-loop traffic, and every latency is computed by
//! [`stats`] from those cycles, so a latency means the same on every model.

pub mod bound;
pub mod config;
mod harness;
pub mod live;
pub mod pattern;
pub mod spec;
pub mod stats;
pub mod trace;

pub use config::RunConfig;
pub use harness::{
    ACCEPTED_SHARE, BACKLOG_SLACK, LinkLoad, LinkSummary, MAX_RUN_CYCLES, Prepared, RunOptions,
    RunResult, STOP_RULE_SPAN, prepare, run, run_traced,
};
pub use live::Session;
pub use pattern::Pattern;
pub use spec::TopoSpec;
pub use stats::Arrival;

use crate::direct::{
    Coord, CubeFabric, DirectConfig, DirectSystem, DorMesh, Grid, Hypercube, Mesh, MeshFabric,
    PortModel, Routing, Scheme, TreeConfig, TreeDelivery, TreeNet,
};
use crate::mcast::hamilton::{self, HamAlgo};
use crate::mcast::{Plan, PlanScheme, PlanScratch, path_covers};
use crate::net::Network;
use crate::net::UpDown;
use crate::ni::HostDelivery;
use crate::rtl::SeqMap;
use crate::rtl::trace::{Hierarchy, WaveSink};
use crate::sim::{Delivery, NodeModel, SimConfig, System, Traffic, WormSpec};
use crate::{Error, Result};
use rustc_hash::FxHashMap;
use std::fmt;
use std::sync::Arc;

/// The router models.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RouterModel {
    /// Seed 000's input-buffered cut-through multicast switch.
    CutThrough,
    /// Seeds 001/002's wormhole path router.
    Wormhole,
    /// Seed 003's virtual-channel tree router.
    Tree,
}

impl RouterModel {
    /// Parses `cut-through`, `wormhole` or `tree`.
    pub fn parse(s: &str) -> Result<RouterModel> {
        match s {
            "cut-through" => Ok(RouterModel::CutThrough),
            "wormhole" => Ok(RouterModel::Wormhole),
            "tree" => Ok(RouterModel::Tree),
            _ => Err(Error::Config {
                field: "router",
                value: s.into(),
                reason: "expected cut-through, wormhole or tree".into(),
            }),
        }
    }

    /// The name as the command line takes it.
    pub fn name(self) -> &'static str {
        match self {
            RouterModel::CutThrough => "cut-through",
            RouterModel::Wormhole => "wormhole",
            RouterModel::Tree => "tree",
        }
    }

    /// The router models that run on `t`, the default first.
    pub fn for_topology(t: &TopoSpec) -> &'static [RouterModel] {
        use RouterModel::*;
        match t {
            TopoSpec::File(_) | TopoSpec::Irregular(_) => &[CutThrough],
            TopoSpec::Hypercube(_) => &[Wormhole, CutThrough],
            TopoSpec::Mesh(_) => &[Tree, Wormhole, CutThrough],
            TopoSpec::Torus(_) => &[Tree, CutThrough],
        }
    }

    /// The routing functions of this model on `t`, the default first.
    pub fn routings(self, t: &TopoSpec) -> &'static [&'static str] {
        match (self, t) {
            (RouterModel::CutThrough, _) => &["updown"],
            (RouterModel::Wormhole, TopoSpec::Hypercube(_)) => &["ecube", "r1", "r2", "minimal"],
            (RouterModel::Wormhole, _) => &["dor", "hamiltonian"],
            (RouterModel::Tree, _) => &["dor"],
        }
    }

    /// The multicast schemes of this model with `routing` on `t`, the
    /// default first:
    /// - cut-through: `bit-string` (one worm, any set), `ssr` (one
    ///   single-switch-replication worm per destination switch, all from
    ///   the source), `multi-drop` (seed 000 section 5.2.4's path-based
    ///   covers: one multi-drop worm per partial ordered chain of the
    ///   destination switches, an SSR worm where a chain has one switch,
    ///   all from the source), `unicast` (one packet per destination);
    /// - wormhole: `unicast` (one worm per destination); on a hypercube
    ///   `path` (the natural list cut greedily into lists legal under the
    ///   routing, one path-based worm each, seed 001); under `hamiltonian`
    ///   `tp` and `sp` (seed 002's Two- and Six-Phase worms) and `gtdmpm`
    ///   (the paper's baseline as reconstructed in
    ///   [`hamilton`]: a worm per mesh row and side);
    /// - tree: `tree` (seed 003's tree with pruning) and `pseudo` (one
    ///   unicast per destination).
    pub fn schemes(self, t: &TopoSpec, routing: &str) -> &'static [&'static str] {
        match (self, t) {
            (RouterModel::CutThrough, _) => &["bit-string", "ssr", "multi-drop", "unicast"],
            (RouterModel::Wormhole, TopoSpec::Hypercube(_)) => &["unicast", "path"],
            (RouterModel::Wormhole, _) if routing == "hamiltonian" => {
                &["unicast", "tp", "sp", "gtdmpm"]
            }
            (RouterModel::Wormhole, _) => &["unicast"],
            (RouterModel::Tree, _) => &["tree", "pseudo"],
        }
    }
}

/// The multicast schemes of seed 000's hosts with network interfaces
/// (`node_model = "ni"`) on the cut-through switch, the default first:
/// `tree` (one bit-string worm from the source's NI), the multi-phase
/// schemes of section 5 whose members forward (`path-lg`, `path-g`:
/// multi-drop worms; `ssr-lg`, `ssr-g`: single-switch-replication worms; a
/// Less Greedy or Greedy schedule, each member's host sending its worms
/// once it has the message), `ni-kbinomial` (smart NIs forwarding each
/// packet over the optimal k-binomial tree, first packet first served),
/// `binomial` (hosts forwarding whole messages over the binomial tree) and
/// `unicast` (one message per destination).
pub const NI_SCHEMES: &[&str] = &[
    "tree",
    "path-lg",
    "path-g",
    "ssr-lg",
    "ssr-g",
    "ni-kbinomial",
    "binomial",
    "unicast",
];

impl fmt::Display for RouterModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A network under one router model, as the harness drives it.
pub trait Engine {
    /// Number of nodes.
    fn nodes(&self) -> u32;
    /// Threads that evaluate the network (those asked for, or fewer on a
    /// network too small to cut into that many ranges).
    fn threads(&self) -> usize {
        1
    }
    /// The current cycle.
    fn cycle(&self) -> u64;
    /// Queues message `msg` from `src` to `dests`, created now: a packet of
    /// `flits` flits (header included) to one destination, or a multicast
    /// carrying the payload such a packet would (`flits` less a unicast
    /// header): a bit-string worm (cut-through), one worm per destination
    /// (wormhole), a tree message (tree).
    fn send(&mut self, msg: u64, src: u32, dests: &[u32], flits: u32) -> Result<()>;
    /// Queues message `msg`, a hand-built worm of `kind` (`unicast`,
    /// `ssr`, `multi-drop` along the switches of `path`, or `bit-string`;
    /// [`WormSpec::from_request`]) from `src` to `dests` carrying `payload`
    /// flits, created now; returns its copies. Only seed 000's cut-through
    /// switch takes hand-built worms; the other models refuse them.
    fn send_worm(
        &mut self,
        msg: u64,
        src: u32,
        kind: &str,
        dests: &[u32],
        path: &[u32],
        payload: u32,
    ) -> Result<u32> {
        let _ = (msg, src, dests, path, payload);
        Err(Error::Config {
            field: "worm",
            value: kind.into(),
            reason: "only the cut-through switch (seed 000) takes hand-built worms; \
                     send messages, which go by the router model's scheme"
                .into(),
        })
    }
    /// Refuses, before a run, traffic the model cannot carry: messages of
    /// up to `flits` flits (as [`Engine::send`] takes them) to up to
    /// `most_dests` destinations. The cut-through switch needs input
    /// buffers larger than the longest packet such a message makes under
    /// its scheme (seed 000 section 3.4.2); the other models take any.
    fn check_messages(&self, flits: u32, most_dests: u32) -> Result<()> {
        let _ = (flits, most_dests);
        Ok(())
    }
    /// Simulates one cycle. A deadlock is an error with its waiting cycle.
    fn step(&mut self) -> Result<()>;
    /// Simulates one cycle, as [`Engine::step`], but may leave the last of
    /// its clock edge for the next cycle to finish (the tree router on
    /// several threads leaves the writes that cross between two threads'
    /// routers to the receiving threads; it and the wormhole router may
    /// return while the other threads still run the cycle, and check the
    /// cycle's hops and copies while they run the next). Between such
    /// steps only [`Engine::arrivals`] (which finishes the cycle first),
    /// [`Engine::send`] and [`Engine::quiet`] (0 while anything is left to
    /// finish) may be used; [`Engine::settle`] finishes the cycle and the
    /// edge, and reports a fault found in them, before anything else (the
    /// counters, the link counts) reads the model or the run ends.
    fn step_batched(&mut self) -> Result<()> {
        self.step()
    }
    /// Finishes what [`Engine::step_batched`] left of the last clock edge
    /// (nothing for a model that leaves nothing).
    fn settle(&mut self) -> Result<()> {
        Ok(())
    }
    /// Cycles from now, up to `horizon`, in which stepping would change
    /// nothing but the clock (no traffic in the network, nothing scheduled,
    /// nothing traced); 0 when unknown. A model that does not know answers
    /// 0 and is stepped every cycle.
    fn quiet(&self, _horizon: u64) -> u64 {
        0
    }
    /// Advances `cycles` cycles at most [`Engine::quiet`]: the same as as
    /// many steps.
    fn skip(&mut self, cycles: u64) -> Result<()> {
        for _ in 0..cycles {
            self.step()?;
        }
        Ok(())
    }
    /// Moves the copies delivered since the last call to `out`.
    fn arrivals(&mut self, out: &mut Vec<Arrival>);
    /// Header flits of a unicast packet.
    fn header_flits(&self) -> u32;
    /// Every link of the network (between routers, and each node's
    /// injection and ejection channels) with the flits it has carried
    /// since cycle 0, in a fixed order.
    fn link_flits(&self) -> Vec<(String, u64)>;
    /// The flits each link has carried since cycle 0 in
    /// [`Engine::link_flits`]'s order, each with whether the link joins two
    /// routers (not a node's injection or ejection channel): the counts
    /// without their names, which a run reads at the end of its warm-up
    /// and at its end. The default names every link to find out; the
    /// router models answer without naming any.
    fn link_counts(&self) -> Vec<(u64, bool)> {
        self.link_flits()
            .into_iter()
            .map(|(name, c)| (c, !node_channel(&name)))
            .collect()
    }
    /// The name of link `i` in [`Engine::link_flits`]'s order (`None` past
    /// the last link). The default names every link to find it.
    fn link_name(&self, i: usize) -> Option<String> {
        self.link_flits().into_iter().nth(i).map(|(name, _)| name)
    }
    /// Counts of the model's own events since cycle 0 (none by default).
    fn events(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }
    /// Starts writing every register to `sink` (before the first cycle),
    /// at the clock period of `cycle_ps` picoseconds.
    fn attach_tracer(&mut self, sink: Box<dyn WaveSink>, cycle_ps: u64) -> Result<()>;
    /// Ends tracing and returns the hierarchy written, if any.
    fn finish_trace(&mut self) -> Result<Option<Hierarchy>>;
}

/// A link named as a node's channel (injection or ejection) by one of the
/// router models: `node 4 -> sw1.p0`, `IN[3] 0`, `(1,2) ejection`.
fn node_channel(name: &str) -> bool {
    name.contains("node ")
        || name.contains("IN[")
        || name.contains("OUT[")
        || name.ends_with("injection")
        || name.ends_with("ejection")
}

/// The scheme `asked` names (or the default) among `router`'s on `topo`
/// under `routing`; the name as the model lists it.
fn scheme_of(router: RouterModel, topo: &TopoSpec, routing: &str, o: &RunOptions) -> &'static str {
    let asked = o.scheme.as_deref();
    let s = schemes_of(router, topo, routing, o);
    asked
        .and_then(|a| s.iter().find(|&&x| x == a))
        .copied()
        .unwrap_or(s[0])
}

/// The schemes of `router` with `routing` on `topo` under the nodes `o`
/// asks for.
fn schemes_of(
    router: RouterModel,
    topo: &TopoSpec,
    routing: &str,
    o: &RunOptions,
) -> &'static [&'static str] {
    if router == RouterModel::CutThrough && o.sim.node_model == NodeModel::Ni {
        NI_SCHEMES
    } else {
        router.schemes(topo, routing)
    }
}

/// Bytes a port of a wormhole or tree router is reckoned to take besides
/// its buffers (its units, channels, interfaces and the router's share of
/// the run), about twice what was measured (docs/performance-log.md,
/// "Direct networks past 65,536 nodes").
pub const DIRECT_PORT_BYTES: u64 = 1_024;

/// The bytes a simulation of `router` on the mesh, torus or hypercube
/// `topo` is reckoned to take, with its routers and their ports (every
/// external channel and the internal ones); `None` for other networks.
/// A port holds [`DIRECT_PORT_BYTES`] and its buffers: a wormhole
/// router's FIFO at 16 bytes a flit of its depth rounded up to a power of
/// two, a tree router's two virtual channels' FIFOs and auxiliary buffers
/// at 32 bytes a flit (about twice the measured bytes a flit).
pub fn direct_reckoning(
    topo: &TopoSpec,
    router: RouterModel,
    o: &RunOptions,
) -> Option<(u64, u64, u128)> {
    let (routers, links) = match topo {
        TopoSpec::Mesh(k) | TopoSpec::Torus(k) => (
            k.iter().map(|&s| s as u64).product::<u64>(),
            2 * k.iter().filter(|&&s| s > 1).count() as u64,
        ),
        TopoSpec::Hypercube(n) => (1u64 << n, *n as u64),
        _ => return None,
    };
    let (internal, per_port) = match router {
        RouterModel::Wormhole => (
            match o.ports {
                PortModel::OnePort => 1,
                PortModel::AllPort => links,
                PortModel::Ports(p) => p as u64,
            },
            DIRECT_PORT_BYTES + 16 * (o.wormhole_buffer as u64).next_power_of_two(),
        ),
        RouterModel::Tree => (
            1,
            DIRECT_PORT_BYTES
                + 32 * ((o.tree.buffer_flits as u64).next_power_of_two() + o.tree.aux_flits as u64),
        ),
        RouterModel::CutThrough => return None,
    };
    let ports = routers * (links + internal);
    Some((routers, ports, ports as u128 * per_port as u128))
}

/// Bytes a run of `topo` with `router` (None: the topology's default, as
/// [`run`] takes it) is reckoned to take, as the memory checks reckon it
/// before they build anything: [`direct_reckoning`] for wormhole and tree
/// routers, [`Network::reckoned_bytes`] for the cut-through switch's
/// network (a topology file is read for it). What a sweep holds for a job
/// while it runs, so that jobs on several cores do not together take more
/// than the machine has.
pub fn reckoned_bytes(
    topo: &TopoSpec,
    router: Option<RouterModel>,
    o: &RunOptions,
) -> Result<u128> {
    let router = router.unwrap_or(RouterModel::for_topology(topo)[0]);
    if let Some((_, _, bytes)) = direct_reckoning(topo, router, o) {
        return Ok(bytes);
    }
    let shape = |switches: u64, widest: u32| {
        crate::net::shape_bytes(
            switches as usize,
            widest,
            switches as u128 * widest as u128,
            switches as usize,
        )
    };
    Ok(match topo {
        TopoSpec::Mesh(k) | TopoSpec::Torus(k) => {
            let dims = k.iter().filter(|&&s| s > 1).count() as u32;
            shape(k.iter().map(|&s| s as u64).product(), 1 + 2 * dims.max(1))
        }
        TopoSpec::Hypercube(n) => shape(1u64 << n, 1 + n),
        TopoSpec::Irregular(p) => crate::net::shape_bytes(
            p.switches as usize,
            p.ports,
            p.switches as u128 * p.ports as u128,
            p.nodes as usize,
        ),
        TopoSpec::File(path) => {
            topo.check_file()?;
            crate::net::reckoned_bytes(&crate::net::Topology::load(path)?)
        }
    })
}

/// Refuses, before anything is built, a wormhole or tree network whose
/// reckoning ([`direct_reckoning`]) exceeds the memory available, naming
/// both: for a caller that builds such a network itself (`wormcast
/// mesh3d plan`, `hypercube multicast`, `tree send`); [`run`] and
/// [`prepare`] ask this first. A buffer out of its model's range is
/// refused as such first, not by the memory it would take.
pub fn check_direct_memory(topo: &TopoSpec, router: RouterModel, o: &RunOptions) -> Result<()> {
    // A buffer out of its range is named as such, not by the memory it
    // would take.
    match router {
        RouterModel::Tree => o.tree.validate()?,
        RouterModel::Wormhole => crate::direct::wormhole::check_buffer_flits(o.wormhole_buffer)?,
        RouterModel::CutThrough => {}
    }
    match crate::memory::available() {
        Some(available) if router != RouterModel::CutThrough => {
            direct_fits(topo, router, o, available)
        }
        _ => Ok(()),
    }
}

/// Refuses a wormhole or tree network whose reckoning
/// ([`direct_reckoning`]) exceeds `available` bytes, naming both, before
/// anything is built: such a run would otherwise be stopped by the
/// kernel once the machine's memory ran out.
fn direct_fits(topo: &TopoSpec, router: RouterModel, o: &RunOptions, available: u64) -> Result<()> {
    match direct_reckoning(topo, router, o) {
        Some((routers, ports, bytes)) if bytes > available as u128 => Err(Error::DirectTooLarge {
            topology: topo.to_string(),
            router: router.name(),
            routers,
            ports,
            bytes,
            available,
        }),
        _ => Ok(()),
    }
}

/// Seeds 001/002's routers and processors on `topo` (a hypercube or a
/// mesh) with `routing`, multicasting by `scheme`.
fn wormhole(
    topo: &TopoSpec,
    routing: &str,
    o: &RunOptions,
    scheme: &'static str,
) -> Result<Wormhole> {
    match topo {
        TopoSpec::Hypercube(n) => {
            let fabric = CubeFabric {
                cube: Hypercube::new(*n)?,
                routing: Routing::parse(routing)?,
            };
            Wormhole::new(Arc::new(fabric), o, scheme, None)
        }
        TopoSpec::Mesh(k) if routing == "hamiltonian" => {
            // Rows are y, columns x, layers z; the engine numbers node
            // x + KX (y + KY z), the routers by their Hamiltonian label.
            let mesh = Mesh::new(k[1], k[0], k[2])?;
            let label: Vec<u32> = (0..k[0] * k[1] * k[2])
                .map(|i| {
                    mesh.label(Coord {
                        x: i % k[0],
                        y: i / k[0] % k[1],
                        z: i / (k[0] * k[1]),
                    })
                })
                .collect::<Result<_>>()?;
            let fabric = Arc::new(MeshFabric { mesh: mesh.clone() });
            Wormhole::new(fabric, o, scheme, Some((mesh, label)))
        }
        TopoSpec::Mesh(k) => {
            Wormhole::new(Arc::new(DorMesh::new(k[0], k[1], k[2])?), o, scheme, None)
        }
        _ => Err(Error::Config {
            field: "router",
            value: "wormhole".into(),
            reason: format!("it does not run on {topo}"),
        }),
    }
}

/// Builds `router` (default: the topology's first) with `routing`
/// (default: the model's first) on `topo`.
pub fn build(
    topo: &TopoSpec,
    router: Option<RouterModel>,
    routing: Option<&str>,
    o: &RunOptions,
) -> Result<(Box<dyn Engine>, RouterModel, &'static str)> {
    topo.check_file()?;
    let models = RouterModel::for_topology(topo);
    let router = router.unwrap_or(models[0]);
    if !models.contains(&router) {
        let names: Vec<&str> = models.iter().map(|m| m.name()).collect();
        return Err(Error::Config {
            field: "router",
            value: router.name().into(),
            reason: format!(
                "it does not run on {topo}; the router models there are {}",
                names.join(", ")
            ),
        });
    }
    let routings = router.routings(topo);
    let routing = match routing {
        None => routings[0],
        Some(r) => *routings
            .iter()
            .find(|&&x| x == r)
            .ok_or_else(|| Error::Config {
                field: "routing",
                value: r.into(),
                reason: format!(
                    "the {router} router on {topo} routes by {}",
                    routings.join(", ")
                ),
            })?,
    };
    if o.sim.node_model == NodeModel::Ni && router != RouterModel::CutThrough {
        return Err(Error::Config {
            field: "node_model",
            value: "ni".into(),
            reason: format!(
                "hosts with network interfaces are seed 000's nodes, on the cut-through \
                 switch; the {router} router has its own processors"
            ),
        });
    }
    if o.sim.node_model == NodeModel::Ni && o.stop_metric == stats::Metric::Network {
        // A host's message has no first flit into the network of its own
        // (its packets go host to host through the interfaces): its batch
        // means would be creation-to-tail latencies under another name.
        return Err(Error::Config {
            field: "stop_metric",
            value: "network-latency".into(),
            reason: "hosts with network interfaces measure no network latency (a message goes \
                     host to host): use the latency, creation to tail"
                .into(),
        });
    }
    let schemes = schemes_of(router, topo, routing, o);
    let scheme = match &o.scheme {
        None => schemes[0],
        Some(x) => *schemes
            .iter()
            .find(|&&s| s == x)
            .ok_or_else(|| Error::Config {
                field: "scheme",
                value: x.clone(),
                reason: format!(
                    "the {router} router with {routing} routing on {topo} multicasts by {}",
                    schemes.join(", ")
                ),
            })?,
    };
    check_direct_memory(topo, router, o)?;
    let engine: Box<dyn Engine> = match (router, topo) {
        (RouterModel::CutThrough, _) => {
            let net = Network::new(&topo.topology()?)?;
            let cfg = SimConfig {
                record_deliveries: true,
                seed: o.seed,
                ..o.sim.clone()
            };
            let ni = (cfg.node_model == NodeModel::Ni).then(|| Hosts {
                scheme: PlanScheme::parse(scheme).ok(),
                packet: cfg.ni.packet_flits,
                groups: FxHashMap::default(),
                msgs: FxHashMap::default(),
                buf: Vec::new(),
                multicasts: 0,
                phases: 0,
            });
            let mut sys = System::new(&net, &cfg, &Traffic::Idle)?;
            // The harness reads the network only as a batched step allows.
            sys.set_overlap(true)?;
            Box::new(CutThrough {
                sys,
                buf: Vec::new(),
                ids: FxHashMap::default(),
                scheme,
                switch_of: (0..net.num_nodes() as u32)
                    .map(|n| net.node_port(n).switch)
                    .collect(),
                plans: (scheme == "multi-drop" || ni.is_some())
                    .then(|| PlanScratch::new(&net, &UpDown::new(&net))),
                ni,
                net,
            })
        }
        (RouterModel::Wormhole, _) => Box::new(wormhole(topo, routing, o, scheme)?),
        (RouterModel::Tree, TopoSpec::Mesh(k)) | (RouterModel::Tree, TopoSpec::Torus(k)) => {
            let g = if matches!(topo, TopoSpec::Mesh(_)) {
                Grid::mesh(k[0], k[1], k[2])?
            } else {
                Grid::torus(k[0], k[1], k[2])?
            };
            let cfg = TreeConfig {
                keep_deliveries: true,
                seed: o.seed,
                ..o.tree.clone()
            };
            let mut net = TreeNet::new(g, cfg)?;
            // The harness reads the network between batched steps only as
            // `Engine::step_batched` allows: the ranges of a cycle may run
            // on while it works between cycles.
            net.set_overlap(true);
            Box::new(TreeRouter {
                net,
                ids: SeqMap::new(0),
                pseudo: scheme == "pseudo",
                buf: Vec::new(),
            })
        }
        _ => unreachable!("for_topology lists only the combinations built here"),
    };
    Ok((engine, router, routing))
}

/// Seed 000's switches with traffic endpoints.
struct CutThrough {
    sys: System,
    buf: Vec<Delivery>,
    /// (source, sequence number) of each packet or worm: its message and
    /// the copies still to arrive.
    ids: FxHashMap<(u32, u64), (u64, u32)>,
    /// The multicast scheme.
    scheme: &'static str,
    /// Each node's switch.
    switch_of: Vec<u32>,
    /// The network, and what its multicasts are planned in under
    /// up*/down* routing (the POC ordering of multi-drop covers and of the
    /// NIs' plans, and their worms' path checks), kept between multicasts.
    net: Network,
    plans: Option<PlanScratch>,
    /// With hosts and network interfaces at the nodes: their messages.
    ni: Option<Hosts>,
}

/// A host's message as the engine sent it: (message, length in flits,
/// creation cycle).
type HostMsg = (u64, u32, u64);

/// The messages of seed 000's hosts with network interfaces, as the engine
/// sends them: a message of `flits` flits is `flits / packet_flits`
/// packets (rounded up), a multicast one group planned by the scheme.
struct Hosts {
    /// The scheme (`None`: one message per destination).
    scheme: Option<PlanScheme>,
    /// Packet length, flits.
    packet: u32,
    /// Each multicast's (message, length, creation cycle) and the copies
    /// still to arrive, by the system's multicast number.
    groups: FxHashMap<u64, (HostMsg, u32)>,
    /// The same for each message to one destination, by (source, message
    /// number at the source).
    msgs: FxHashMap<(u32, u16), (HostMsg, u32)>,
    buf: Vec<(u32, HostDelivery)>,
    /// Multicasts started, and the phases of their plans.
    multicasts: u64,
    phases: u64,
}

impl CutThrough {
    /// Sends message `msg` through the hosts and NIs.
    fn send_ni(&mut self, msg: u64, src: u32, dests: &[u32], flits: u32) -> Result<()> {
        crate::dests::check(self.nodes(), src, dests)?;
        let h = self.ni.as_mut().expect("NI nodes");
        let packets = flits.div_ceil(h.packet).max(1);
        let now = self.sys.cycle();
        match h.scheme {
            Some(scheme) if dests.len() > 1 => {
                let plans = self.plans.as_mut().expect("built with NIs");
                let plan = Plan::ordered_by(
                    plans,
                    &self.net,
                    self.sys.worms(),
                    scheme,
                    src,
                    dests,
                    packets,
                )?;
                let id = self.sys.multicast_plan(&plan)?;
                h.multicasts += 1;
                h.phases += plan.phases as u64;
                h.groups.insert(id, ((msg, flits, now), dests.len() as u32));
            }
            _ => {
                for &d in dests {
                    let id = self.sys.send_message(src, d, packets)?;
                    h.msgs.insert((src, id), ((msg, flits, now), 1));
                }
            }
        }
        Ok(())
    }
}

impl Engine for CutThrough {
    fn nodes(&self) -> u32 {
        self.sys.num_nodes()
    }
    fn threads(&self) -> usize {
        self.sys.threads()
    }
    fn cycle(&self) -> u64 {
        self.sys.cycle()
    }
    fn check_messages(&self, flits: u32, most_dests: u32) -> Result<()> {
        if self.ni.is_some() {
            // Messages are cut into packets the hosts' configuration sizes.
            return Ok(());
        }
        let f = self.sys.formats();
        let payload = flits.saturating_sub(self.header_flits()) as usize;
        // The longest header `send` builds for as many destinations.
        let header = if most_dests <= 1 || self.scheme == "unicast" {
            f.unicast().flits()
        } else if self.scheme == "ssr" {
            f.ssr_len()
        } else if self.plans.is_some() {
            let pairs = (most_dests as usize).min(crate::header::MAX_PAIRS);
            f.ssr_len().max(f.multidrop_len(pairs))
        } else {
            f.bitstring_len()
        };
        let longest = (header + payload).max(flits as usize);
        self.sys
            .config()
            .check_packet(u32::try_from(longest).unwrap_or(u32::MAX))
    }
    fn send(&mut self, msg: u64, src: u32, dests: &[u32], flits: u32) -> Result<()> {
        if self.ni.is_some() {
            return self.send_ni(msg, src, dests, flits);
        }
        let payload = flits.saturating_sub(self.header_flits());
        if dests.len() == 1 || self.scheme == "unicast" {
            crate::dests::check(self.nodes(), src, dests)?;
            for &d in dests {
                let id = self.sys.inject(src, d, flits)?;
                self.ids.insert((id.src, id.seq), (msg, 1));
            }
            return Ok(());
        }
        if self.scheme == "ssr" {
            crate::dests::check(self.nodes(), src, dests)?;
            // One worm per destination switch, in the order first named.
            let mut groups: Vec<(u32, Vec<u32>)> = Vec::new();
            for &d in dests {
                let sw = self.switch_of[d as usize];
                match groups.iter_mut().find(|g| g.0 == sw) {
                    Some(g) => g.1.push(d),
                    None => groups.push((sw, vec![d])),
                }
            }
            for (switch, dests) in groups {
                let n = dests.len() as u32;
                let id = self
                    .sys
                    .inject_worm(src, &WormSpec::Ssr { switch, dests }, payload)?;
                self.ids.insert((id.src, id.seq), (msg, n));
            }
            return Ok(());
        }
        if let Some(plans) = &mut self.plans {
            let order = plans.orderer().order(src, dests)?;
            for c in path_covers(&self.net, &order.chains, src, dests) {
                let n = c.dests().len() as u32;
                let spec = match c.stops.as_slice() {
                    [(switch, d)] => WormSpec::Ssr {
                        switch: *switch,
                        dests: d.clone(),
                    },
                    _ => WormSpec::MultiDrop { path: c.stops },
                };
                let id = self.sys.inject_worm(src, &spec, payload)?;
                self.ids.insert((id.src, id.seq), (msg, n));
            }
            return Ok(());
        }
        let id = self.sys.inject_worm(
            src,
            &WormSpec::BitString {
                dests: dests.to_vec(),
            },
            payload,
        )?;
        self.ids.insert((id.src, id.seq), (msg, dests.len() as u32));
        Ok(())
    }
    fn send_worm(
        &mut self,
        msg: u64,
        src: u32,
        kind: &str,
        dests: &[u32],
        path: &[u32],
        payload: u32,
    ) -> Result<u32> {
        crate::dests::check(self.nodes(), src, dests)?;
        let spec = WormSpec::from_request(&self.net, kind, dests, path)?;
        let n = spec.dests() as u32;
        let id = self.sys.inject_worm(src, &spec, payload)?;
        self.ids.insert((id.src, id.seq), (msg, n));
        Ok(n)
    }
    fn step(&mut self) -> Result<()> {
        self.sys.tick()
    }
    fn step_batched(&mut self) -> Result<()> {
        self.sys.step_batched()
    }
    fn settle(&mut self) -> Result<()> {
        self.sys.settle()
    }
    fn quiet(&self, horizon: u64) -> u64 {
        self.sys.quiet_cycles(horizon)
    }
    fn skip(&mut self, cycles: u64) -> Result<()> {
        self.sys.settle()?;
        self.sys.skip(cycles);
        Ok(())
    }
    fn arrivals(&mut self, out: &mut Vec<Arrival>) {
        if let Some(h) = &mut self.ni {
            self.sys.take_host_deliveries(&mut h.buf);
            for (node, d) in h.buf.drain(..) {
                let (msg, flits, created) = match d.group {
                    Some(g) => copy_arrived(&mut h.groups, g),
                    None => copy_arrived(&mut h.msgs, (d.origin, d.msg)),
                };
                out.push(Arrival {
                    msg,
                    src: d.origin,
                    node,
                    created,
                    injected: None,
                    arrived: d.cycle,
                    flits,
                });
            }
            return;
        }
        self.sys.take_deliveries(&mut self.buf);
        let ids = &mut self.ids;
        out.extend(self.buf.drain(..).map(|d| Arrival {
            msg: copy_arrived(ids, (d.src, d.seq)),
            src: d.src,
            node: d.dst,
            created: d.created,
            injected: Some(d.inject),
            arrived: d.arrive,
            flits: d.len as u32,
        }));
    }
    fn header_flits(&self) -> u32 {
        self.sys.formats().unicast().flits() as u32
    }
    fn link_flits(&self) -> Vec<(String, u64)> {
        self.sys.link_flits()
    }
    fn link_counts(&self) -> Vec<(u64, bool)> {
        self.sys.link_counts()
    }
    fn link_name(&self, i: usize) -> Option<String> {
        self.sys.link_name(i)
    }
    fn events(&self) -> Vec<(&'static str, u64)> {
        match &self.ni {
            Some(h) => vec![("multicasts", h.multicasts), ("phases", h.phases)],
            None => Vec::new(),
        }
    }
    fn attach_tracer(&mut self, sink: Box<dyn WaveSink>, _cycle_ps: u64) -> Result<()> {
        // The switch network's clock is its configuration's cycle_ns.
        self.sys.attach_tracer(sink)
    }
    fn finish_trace(&mut self) -> Result<Option<Hierarchy>> {
        self.sys.finish_trace_hierarchy()
    }
}

/// A book of the messages with copies still to arrive, by engine id:
/// each id's message (its number; on hosts also its length and creation
/// cycle) and its copies to come.
trait CopyBook<K, V> {
    /// The entry of id `k`.
    fn entry(&mut self, k: K) -> Option<&mut (V, u32)>;
    /// Forgets id `k`.
    fn forget(&mut self, k: K);
}

impl<K: std::hash::Hash + Eq, V> CopyBook<K, V> for FxHashMap<K, (V, u32)> {
    fn entry(&mut self, k: K) -> Option<&mut (V, u32)> {
        self.get_mut(&k)
    }
    fn forget(&mut self, k: K) {
        self.remove(&k);
    }
}

impl<V> CopyBook<u32, V> for SeqMap<u32, (V, u32)> {
    fn entry(&mut self, k: u32) -> Option<&mut (V, u32)> {
        self.get_mut(k)
    }
    fn forget(&mut self, k: u32) {
        self.remove(k);
    }
}

/// What is kept of the message of a copy that arrived under engine id
/// `k`; the id is forgotten with its last copy.
fn copy_arrived<K: Copy, V: Copy>(ids: &mut impl CopyBook<K, V>, k: K) -> V {
    let e = ids.entry(k).expect("a message the harness sent");
    let v = e.0;
    e.1 -= 1;
    if e.1 == 0 {
        ids.forget(k);
    }
    v
}

/// Seeds 001/002's wormhole routers and processors.
struct Wormhole {
    sys: DirectSystem,
    addr: u32,
    /// Each worm's message.
    ids: SeqMap<u32, u64>,
    /// The multicast scheme.
    scheme: &'static str,
    /// Under Hamiltonian routing: the mesh, each node's label, and each
    /// label's node.
    labels: Option<(Mesh, Vec<u32>, Vec<u32>)>,
    /// A path multicast's destinations in the order its worms visit them,
    /// kept between multicasts.
    order: Vec<u32>,
}

impl Wormhole {
    fn new(
        fabric: Arc<dyn crate::direct::Fabric>,
        o: &RunOptions,
        scheme: &'static str,
        labels: Option<(Mesh, Vec<u32>)>,
    ) -> Result<Wormhole> {
        let addr = fabric.address_flits() as u32;
        let cfg = DirectConfig {
            ports: o.ports,
            buffer_flits: o.wormhole_buffer,
            startup: o.wormhole_startup,
            threads: o.wormhole_threads,
            hand_over: o.wormhole_hand_over,
            keep_worms: true,
            // The harness reads each worm's deliveries, never its route.
            keep_routes: false,
            seed: o.seed,
            ..DirectConfig::default()
        };
        let labels = labels.map(|(mesh, label)| {
            let mut node = vec![0; label.len()];
            for (n, &l) in label.iter().enumerate() {
                node[l as usize] = n as u32;
            }
            (mesh, label, node)
        });
        let mut sys = DirectSystem::new(fabric, &cfg)?;
        // The harness reads the system between batched steps only as
        // `Engine::step_batched` allows: the ranges of a cycle may run on
        // while it works between cycles.
        sys.set_overlap(true);
        Ok(Wormhole {
            sys,
            addr,
            ids: SeqMap::new(0),
            scheme,
            labels,
            order: Vec::new(),
        })
    }

    /// The one list [`lists`](Self::lists) gives a message to `dst` alone,
    /// without building the lists: `None` where a Hamiltonian scheme plans
    /// the worm.
    fn unicast_list(&self, dst: u32) -> Option<u32> {
        match (self.scheme, &self.labels) {
            ("tp" | "sp" | "gtdmpm", Some(_)) => None,
            ("path", _) | (_, None) => Some(dst),
            (_, Some((_, label, _))) => Some(label[dst as usize]),
        }
    }

    /// Whether [`lists`](Self::lists) may put several destinations on one
    /// worm (a Hamiltonian scheme's worms, or a hypercube's path worms);
    /// otherwise each worm lists one.
    fn several_per_worm(&self) -> bool {
        matches!(
            (self.scheme, &self.labels),
            ("tp" | "sp" | "gtdmpm", Some(_)) | ("path", _)
        )
    }

    /// The destination lists of a multicast's worms, in router ids. (A
    /// path multicast of several destinations is cut into its worms as it
    /// is sent, [`DirectSystem::send_cut`]; to one destination it is the
    /// one list of it, as here.)
    fn lists(&self, src: u32, dests: &[u32]) -> Result<Vec<Vec<u32>>> {
        Ok(match (self.scheme, &self.labels) {
            ("tp" | "sp" | "gtdmpm", Some((mesh, label, _))) => {
                let algo = HamAlgo::parse(self.scheme)?;
                let d: Vec<u32> = dests.iter().map(|&d| label[d as usize]).collect();
                hamilton::prepare(mesh, label[src as usize], &d, algo)?
                    .into_iter()
                    .map(|w| w.list)
                    .collect()
            }
            (_, Some((_, label, _))) => dests.iter().map(|&d| vec![label[d as usize]]).collect(),
            _ => dests.iter().map(|&d| vec![d]).collect(),
        })
    }
}

impl Engine for Wormhole {
    fn nodes(&self) -> u32 {
        self.sys.fabric().nodes()
    }
    /// A worm has at most 65,535 flits, its header of one flit and an
    /// address per node of its list included; a scheme that builds lists
    /// of several nodes ([`Wormhole::several_per_worm`]) may list every
    /// destination.
    fn check_messages(&self, flits: u32, most_dests: u32) -> Result<()> {
        let list = if self.several_per_worm() {
            most_dests.max(1)
        } else {
            1
        };
        let payload = u64::from(flits.saturating_sub(self.header_flits()));
        let longest = 1 + u64::from(list) * u64::from(self.addr) + payload;
        if longest > u64::from(u16::MAX) {
            return Err(Error::BadPacket(format!(
                "{flits} flits{}: worms of up to {longest} flits; a worm has at most 65,535",
                if list > 1 {
                    format!(" to up to {list} destinations on one worm")
                } else {
                    String::new()
                }
            )));
        }
        Ok(())
    }
    fn threads(&self) -> usize {
        self.sys.threads()
    }
    fn cycle(&self) -> u64 {
        self.sys.cycle()
    }
    fn send(&mut self, msg: u64, src: u32, dests: &[u32], flits: u32) -> Result<()> {
        crate::dests::check(self.nodes(), src, dests)?;
        let payload = flits.saturating_sub(self.header_flits());
        let from = match &self.labels {
            Some((_, label, _)) => label[src as usize],
            None => src,
        };
        if let [dst] = *dests
            && let Some(to) = self.unicast_list(dst)
        {
            let tag = self.sys.send(from, &[to], payload)?;
            self.ids.insert(tag, msg);
            return Ok(());
        }
        if self.scheme == "path" && self.labels.is_none() {
            // The natural list (seed 001 section 3.2), cut where the next
            // destination would make it illegal under the routing.
            let mut order = std::mem::take(&mut self.order);
            order.clear();
            order.extend_from_slice(dests);
            order.sort_unstable();
            let ids = &mut self.ids;
            let r = self.sys.send_cut(src, &order, payload, |tag| {
                ids.insert(tag, msg);
            });
            self.order = order;
            return r;
        }
        for list in self.lists(src, dests)? {
            let tag = self.sys.send(from, &list, payload)?;
            self.ids.insert(tag, msg);
        }
        Ok(())
    }
    fn step(&mut self) -> Result<()> {
        self.sys.step()
    }
    fn step_batched(&mut self) -> Result<()> {
        self.sys.step_batched()
    }
    fn settle(&mut self) -> Result<()> {
        self.sys.settle()
    }
    fn quiet(&self, horizon: u64) -> u64 {
        self.sys.quiet_cycles(horizon)
    }
    fn skip(&mut self, cycles: u64) -> Result<()> {
        self.sys.skip(cycles)
    }
    fn arrivals(&mut self, out: &mut Vec<Arrival>) {
        let (ids, labels, addr) = (&mut self.ids, &self.labels, self.addr);
        self.sys.visit_finished(|w| {
            let flits = 1 + w.list.len() as u32 * addr;
            let msg = ids.remove(w.tag).expect("a worm the harness sent");
            let node = |l: u32| match labels {
                Some((_, _, node)) => node[l as usize],
                None => l,
            };
            for d in &w.deliveries {
                out.push(Arrival {
                    msg,
                    src: node(w.src),
                    node: node(d.node),
                    created: w.created,
                    injected: w.injected,
                    arrived: d.tail,
                    flits: flits + w.payload,
                });
            }
        });
    }
    fn header_flits(&self) -> u32 {
        1 + self.addr
    }
    fn link_flits(&self) -> Vec<(String, u64)> {
        self.sys.link_flits()
    }
    fn link_counts(&self) -> Vec<(u64, bool)> {
        self.sys.link_counts()
    }
    fn link_name(&self, i: usize) -> Option<String> {
        self.sys.link_name(i)
    }
    fn attach_tracer(&mut self, sink: Box<dyn WaveSink>, cycle_ps: u64) -> Result<()> {
        self.sys.attach_tracer(sink, cycle_ps)
    }
    fn finish_trace(&mut self) -> Result<Option<Hierarchy>> {
        self.sys.finish_trace_hierarchy()
    }
}

/// The data flits of a tree message of `flits` flits, its `header` flits
/// included: at most 65,535, what a message's length field counts.
fn tree_data(flits: u32, header: u32) -> Result<u16> {
    u16::try_from(flits.saturating_sub(header)).map_err(|_| {
        Error::BadPacket(format!(
            "{flits} flits; a tree message carries at most 65,535 data flits behind its \
             {header}-flit header ({} flits in all)",
            65_535 + header
        ))
    })
}

/// Seed 003's tree routers.
struct TreeRouter {
    net: TreeNet,
    /// Each multicast's message, and its copies still to arrive.
    ids: SeqMap<u32, (u64, u32)>,
    /// Pseudo-multicast: one unicast per destination.
    pseudo: bool,
    /// The deliveries taken from the network, kept from cycle to cycle.
    buf: Vec<TreeDelivery>,
}

impl Engine for TreeRouter {
    fn nodes(&self) -> u32 {
        self.net.grid().nodes()
    }
    fn threads(&self) -> usize {
        self.net.threads()
    }
    fn cycle(&self) -> u64 {
        self.net.cycle()
    }
    fn check_messages(&self, flits: u32, most_dests: u32) -> Result<()> {
        let data = tree_data(flits, self.header_flits())?;
        // A tree multicast's every input channel holds all its data flits
        // (seed 003 section 3.3); refused here, before the run, rather than
        // at the first multicast with a waveform half written.
        let aux = self.net.aux_flits();
        if most_dests > 1 && !self.pseudo && usize::from(data) > aux {
            return Err(Error::BadPacket(format!(
                "{flits} flits to several destinations: a tree multicast keeps its {data} data \
                 flits in the auxiliary buffer of every input channel it crosses, which holds \
                 {aux} (seed 003 section 3.3): send at most {} flits, enlarge the buffers \
                 ([tree] aux_flits) or use the pseudo scheme (one unicast per destination)",
                aux as u64 + u64::from(self.header_flits())
            )));
        }
        Ok(())
    }
    fn send(&mut self, msg: u64, src: u32, dests: &[u32], flits: u32) -> Result<()> {
        let data = tree_data(flits, self.header_flits())?;
        let scheme = if dests.len() == 1 || self.pseudo {
            Scheme::Pseudo
        } else {
            Scheme::Tree
        };
        let id = self.net.send(src, dests, data, scheme)?;
        self.ids.insert(id, (msg, dests.len() as u32));
        Ok(())
    }
    fn step(&mut self) -> Result<()> {
        self.net.step()
    }
    fn step_batched(&mut self) -> Result<()> {
        self.net.step_batched()
    }
    fn settle(&mut self) -> Result<()> {
        self.net.settle()
    }
    fn quiet(&self, horizon: u64) -> u64 {
        self.net.quiet_cycles(horizon)
    }
    fn skip(&mut self, cycles: u64) -> Result<()> {
        self.net.skip(cycles);
        Ok(())
    }
    fn arrivals(&mut self, out: &mut Vec<Arrival>) {
        self.net.take_deliveries_into(&mut self.buf);
        for d in self.buf.drain(..) {
            let msg = copy_arrived(&mut self.ids, d.mcast);
            out.push(Arrival {
                msg,
                src: d.src,
                node: d.node,
                created: d.created,
                injected: Some(d.injected),
                arrived: d.cycle,
                flits: 1 + d.data as u32,
            });
        }
    }
    fn header_flits(&self) -> u32 {
        1
    }
    fn link_flits(&self) -> Vec<(String, u64)> {
        self.net.link_flits()
    }
    fn link_counts(&self) -> Vec<(u64, bool)> {
        self.net.link_counts()
    }
    fn link_name(&self, i: usize) -> Option<String> {
        self.net.link_name(i)
    }
    fn events(&self) -> Vec<(&'static str, u64)> {
        let s = self.net.stats();
        vec![
            ("prunes", s.prunes),
            ("branches_cut", s.branches_cut),
            ("worms", s.worms),
            ("replayed", s.replayed),
            ("early_releases", s.early_releases),
        ]
    }
    fn attach_tracer(&mut self, sink: Box<dyn WaveSink>, cycle_ps: u64) -> Result<()> {
        self.net.attach_tracer(sink, cycle_ps)
    }
    fn finish_trace(&mut self) -> Result<Option<Hierarchy>> {
        self.net.finish_trace_hierarchy()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A wormhole or tree network is reckoned by its routers' ports and
    /// buffers, and refused when the reckoning passes the memory given,
    /// with both named; the cut-through switch and topology files are
    /// reckoned elsewhere (`Network::reckoned_bytes`).
    #[test]
    fn direct_networks_are_reckoned_and_refused_past_memory() {
        let spec = |t: &str| TopoSpec::parse(t).unwrap();
        let o = RunOptions::default();
        // A router has an external port a side of 2 or more, each way, and
        // one internal pair (a side of 1 adds none: 8x1x4 has 4 and 1).
        assert_eq!(
            direct_reckoning(&spec("mesh:512x512"), RouterModel::Tree, &o),
            Some((262_144, 262_144 * 5, 262_144 * 5 * (1_024 + 32 * (2 + 4))))
        );
        assert_eq!(
            direct_reckoning(&spec("mesh:8x1x4"), RouterModel::Wormhole, &o),
            Some((32, 32 * 5, 32 * 5 * (1_024 + 16 * 2)))
        );
        let all = RunOptions {
            ports: PortModel::AllPort,
            wormhole_buffer: 5,
            ..RunOptions::default()
        };
        assert_eq!(
            direct_reckoning(&spec("hypercube:16"), RouterModel::Wormhole, &all),
            Some((65_536, 65_536 * 32, 65_536 * 32 * (1_024 + 16 * 8)))
        );
        assert_eq!(
            direct_reckoning(&spec("mesh:4x4"), RouterModel::CutThrough, &o),
            None
        );
        assert_eq!(
            direct_reckoning(
                &spec("irregular:switches=8,ports=8,nodes=16"),
                RouterModel::Tree,
                &o
            ),
            None
        );
        let need = 262_144u64 * 5 * (1_024 + 32 * 6);
        let topo = spec("mesh:512x512");
        assert!(direct_fits(&topo, RouterModel::Tree, &o, need).is_ok());
        assert_eq!(
            direct_fits(&topo, RouterModel::Tree, &o, need - 1)
                .unwrap_err()
                .to_string(),
            "configuration: topology = mesh:512x512: a simulation of its 262144 tree routers \
             (1310720 ports) is reckoned at 1593 MB, more than the 1593 MB of memory available"
        );
    }

    /// The cut-through switch takes its own section's thread count (the
    /// other models' counts are theirs), runs on as many ranges as its
    /// switches allow, and refuses a count out of range by name.
    #[test]
    fn the_cut_through_switch_takes_its_own_thread_count() {
        let topo = TopoSpec::parse("irregular:switches=128,ports=8,nodes=256").unwrap();
        let with = |switch: usize, other: usize| {
            let o = RunOptions {
                sim: SimConfig {
                    threads: switch,
                    ..SimConfig::default()
                },
                tree: TreeConfig {
                    threads: other,
                    ..TreeConfig::default()
                },
                wormhole_threads: other,
                ..RunOptions::default()
            };
            build(&topo, Some(RouterModel::CutThrough), None, &o).map(|(e, ..)| e.threads())
        };
        assert_eq!(with(1, 3).unwrap(), 1);
        assert_eq!(with(2, 1).unwrap(), 2);
        assert_eq!(with(8, 1).unwrap(), 2, "two ranges of 64 switches at most");
        for bad in [0, 257] {
            let Err(Error::Config { field, value, .. }) = with(bad, 1) else {
                panic!("{bad} threads taken");
            };
            assert_eq!((field, value), ("threads", bad.to_string()));
        }
    }

    /// A message to one node goes as the one list the general path would
    /// build, under every wormhole topology, routing and scheme that lists
    /// without a Hamiltonian plan; the schemes that plan take the general
    /// path.
    #[test]
    fn a_message_to_one_node_lists_it_as_the_general_path_does() {
        let o = RunOptions::default();
        let cases = [
            (TopoSpec::Hypercube(4), "r2"),
            (TopoSpec::Hypercube(3), "r1"),
            (TopoSpec::Mesh([4, 3, 1]), "dor"),
            (TopoSpec::Mesh([3, 3, 2]), "hamiltonian"),
        ];
        let mut planned = 0;
        for (topo, routing) in cases {
            for &scheme in RouterModel::Wormhole.schemes(&topo, routing) {
                let w = wormhole(&topo, routing, &o, scheme).unwrap();
                let n = w.sys.fabric().nodes();
                for src in 0..n {
                    for dst in (0..n).filter(|&d| d != src) {
                        let general = w.lists(src, &[dst]).unwrap();
                        match w.unicast_list(dst) {
                            Some(to) => assert_eq!(
                                general,
                                vec![vec![to]],
                                "{topo} {routing} {scheme}: {src} -> {dst}"
                            ),
                            None => planned += 1,
                        }
                    }
                }
            }
        }
        // tp, sp and gtdmpm on the 18-node mesh, every pair.
        assert_eq!(planned, 3 * 18 * 17);
    }
}

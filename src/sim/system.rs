//! A whole network as one clocked system.

use super::active::{Active, Bits};
use super::config::{NodeModel, SimConfig, Traffic};
use super::endpoint::{Endpoint, EndpointStats};
use super::par::{Job, Parts, Range, evaluate, owns};
use super::report::RunReport;
use super::terminal::Terminal;
use crate::deadlock::{DeadlockReport, LongWait, PacketInfo, StallReport};
use crate::header::{Formats, Kind};
use crate::link::{Delivery, EndpointWiring, NO_GROUP, PacketId, PacketLog, PacketTable};
use crate::link::{Worm, WormBuilder, WormScratch, WormSpec};
use crate::mcast::Tree;
use crate::net::{Network, PortConn, Reachability, RoutingTables, UpDown};
use crate::ni::{Group, HostDelivery, NiNode, NiTiming, Scheme};
use crate::rtl::HandOver;
use crate::rtl::crew::{COUNT_TO, Crew, CrewJob, Shift, threads_used};
use crate::rtl::trace::{Hierarchy, TraceState, Traced, WaveSink, Window, out_unit};
use crate::rtl::waitfor::WaitGraph;
use crate::rtl::{ChannelId, PortIter, Sink, Wheel};
use crate::switch::{
    Channels, Cross, Decoder, Fault, PortWiring, Stall, StallAt, Switch, SwitchParams, WaitOn,
};
use crate::{Error, Result};
use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;
use std::sync::Arc;

/// How often (in cycles) the watchdog looks for stalled packets.
const WATCHDOG_PERIOD: u64 = 1024;

/// The order in which components are evaluated within a cycle. It never
/// changes a result; `Shuffled` exists to test exactly that.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EvalOrder {
    /// Component index order: switches, then endpoints.
    Natural,
    /// A fresh random permutation of all active components every cycle.
    Shuffled {
        /// Seed of the permutations.
        seed: u64,
    },
}

struct Tracing {
    /// Sample every component every cycle instead of those that may have
    /// changed (slow; used to check the selective sampling).
    every: bool,
    hier: Hierarchy,
    state: TraceState,
    sink: Box<dyn WaveSink>,
    first: Vec<u32>,
    count: Vec<u32>,
    /// Per component, the units to sample this cycle (see
    /// [`Traced::sample_units`]); zero for a component not marked.
    units: Vec<u128>,
    /// The components with units to sample this cycle, a bit each: taken
    /// in component order, as the waveform's change order needs.
    marked: Vec<u64>,
    /// Per flit channel, the unit its change marks: its driver's output
    /// unit.
    flit_marks: Vec<Mark>,
    /// Per credit counter, the unit its change marks: the output unit
    /// that reads it. (The port that returns the credits wrote the counter
    /// in a cycle it ran, and is sampled for that.)
    credit_marks: Vec<Mark>,
    /// The components evaluated this cycle, a bit each (the active set as
    /// the cycle began).
    ran: Vec<u64>,
    /// The cycles the sink writes ([`WaveSink::wants`]): outside them
    /// nothing is sampled (but with `every`).
    window: Window,
    /// The components with a signal the sink writes, a bit each: the
    /// others are not sampled (but with `every`).
    wanted: Vec<u64>,
}

/// A unit of a component to sample ([`Traced::sample_units`]).
#[derive(Clone, Copy)]
struct Mark {
    component: u32,
    units: u128,
}

#[derive(Clone, Debug)]
struct McastStart {
    start: u64,
    packets: u8,
    /// The destinations (the tree's nodes but its root).
    dests: Box<[u32]>,
    /// (destination, cycle its host had it) in the order they did.
    got: Vec<(u32, u64)>,
}

/// The multicast groups in NI memory, by slot: a packet names its group's
/// slot in two control bytes, and a slot is reused once every destination's
/// host has the multicast.
#[derive(Default)]
struct Groups {
    slots: Vec<Group>,
    /// Hosts each slot's multicast still owes (0: free).
    owed: Vec<u32>,
    free: Vec<u16>,
    /// Messages hosts received whole this cycle: (node, slot).
    log: Vec<(u32, u16)>,
    /// Nodes whose hosts received messages not yet taken, and a flag per
    /// node that it is listed.
    unread: Vec<u32>,
    listed: Vec<bool>,
}

impl Groups {
    /// A slot for `g`, which owes its tree's members but the root.
    fn take(&mut self, g: Group) -> Result<u16> {
        let owed = g.tree.len() as u32 - 1;
        let slot = match self.free.pop() {
            Some(s) => {
                self.slots[s as usize] = g;
                s
            }
            None if self.slots.len() >= NO_GROUP as u16 as usize => {
                return Err(Error::BadTree(format!(
                    "{} multicasts in flight already: a packet names its group in 16 bits, \
                     and a group's slot is free again once every destination's host has it",
                    self.slots.len()
                )));
            }
            None => {
                self.slots.push(g);
                self.owed.push(0);
                (self.slots.len() - 1) as u16
            }
        };
        self.owed[slot as usize] = owed;
        Ok(slot)
    }

    /// Counts the messages hosts received this cycle: a slot whose last
    /// destination has its multicast is free from the next cycle.
    fn settle(&mut self, nodes: u32, cycle: u64, mcasts: &mut [McastStart]) {
        if self.listed.is_empty() {
            self.listed = vec![false; nodes as usize];
        }
        for (x, slot) in self.log.drain(..) {
            if slot != NO_GROUP as u16 {
                mcasts[self.slots[slot as usize].id as usize]
                    .got
                    .push((x, cycle));
                let o = &mut self.owed[slot as usize];
                *o -= 1;
                if *o == 0 {
                    self.free.push(slot);
                }
            }
            if !self.listed[x as usize] {
                self.listed[x as usize] = true;
                self.unread.push(x);
            }
        }
    }
}

/// What a multicast did.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct McastResult {
    /// Cycle the source's host started.
    pub start: u64,
    /// Packets of the message.
    pub packets: u32,
    /// (destination, cycle its host had the message), by destination.
    pub deliveries: Vec<(u32, u64)>,
    /// From the start to the last delivery, once every destination has it.
    pub latency: Option<u64>,
}

/// Packets kept past which a run first asks whether memory holds what
/// they grow to ([`System::check_queues`]).
pub const QUEUE_CHECK_FIRST: u64 = 1 << 16;

/// Cycles between counts of the packets queued at `nodes` sources of
/// `traffic`: a source makes at most `load` packets a cycle (a packet has
/// a flit at least), so in that many cycles they queue at most
/// [`QUEUE_CHECK_FIRST`] more; at least 1, at most 4,096. A count walks
/// every source, so it costs about what a cycle's work at that load
/// already does.
fn queue_count_every(nodes: u64, traffic: &Traffic) -> u64 {
    let load = match *traffic {
        Traffic::Idle => 0.0,
        Traffic::Uniform { load, .. } | Traffic::Multicast { load, .. } => load,
    };
    let per_cycle = (nodes as f64 * load).max(1.0);
    ((QUEUE_CHECK_FIRST as f64 / per_cycle) as u64).clamp(1, 4096)
}

/// A network of switches and traffic endpoints, ticked one clock at a time.
///
/// Components are numbered switches first (`0..S`), then endpoints
/// (`S..S+N`, node `n` is component `S + n`).
///
/// ```
/// use wormcast::net::{IrregularParams, Network};
/// use wormcast::sim::{SimConfig, System, Traffic};
///
/// let net = Network::new(&IrregularParams::default().generate()?)?;
/// let mut sys = System::new(&net, &SimConfig::default(), &Traffic::uniform(0.05, 16))?;
/// sys.run(2_000)?;
/// let r = sys.report();
/// assert!(r.packets_delivered > 0);
/// # Ok::<(), wormcast::Error>(())
/// ```
pub struct System {
    cfg: SimConfig,
    nodes: u32,
    n_sw: usize,
    formats: Formats,
    worms: Arc<WormBuilder>,
    /// The path checks' marks, kept between worms: those users inject and
    /// those a multicast plan sends.
    worm_scratch: WormScratch,
    switches: Vec<Switch>,
    endpoints: Vec<Terminal>,
    groups: Groups,
    /// Traffic endpoints with deliveries not yet taken
    /// ([`System::take_deliveries`]).
    delivered: Vec<u32>,
    mcasts: Vec<McastStart>,
    ni_timing: Option<NiTiming>,
    routes: Arc<RoutingTables>,
    /// The channels, their inboxes, the components to evaluate this cycle
    /// and next, and their wake-ups: on one thread. On several, each range
    /// keeps its own ([`Range`]) for the cycles handed to the ranges'
    /// threads, and these hold the network's state only while light
    /// cycles run as one thread's ([`Par::here`]).
    ch: Channels,
    inbox: Vec<u64>,
    active: Active,
    wheel: Wheel,
    packets: PacketTable,
    /// What a cycle on one thread logged of the packets: the packets
    /// started, the copies received whole and the tags released.
    log: PacketLog,
    retired: Vec<u32>,
    faults: Vec<Fault>,
    cycle: u64,
    window: u64,
    order: Option<(Xoshiro256PlusPlus, Vec<u32>)>,
    /// Boxed: a cycle takes it out and puts it back, a pointer's move.
    tracing: Option<Box<Tracing>>,
    receiver_chunks: Vec<Vec<u16>>,
    longest_wait: Option<LongWait>,
    /// The watchdog's list of the components it visits, kept from check
    /// to check so that a check allocates nothing while no packet waits
    /// long.
    watched: Vec<u32>,
    /// The watch on what the run keeps past saturation: the packets queued
    /// at the sources and those in the network ([`System::check_queues`]).
    growth: crate::memory::Growth,
    /// Cycles between counts of the packets queued: few enough that the
    /// sources cannot queue more than [`QUEUE_CHECK_FIRST`] packets in
    /// between, at most 4,096 ([`queue_count_every`]).
    queue_every: u64,
    /// The cycle at which the packets queued are next counted.
    queue_count_at: u64,
    /// The ranges and threads, when several threads evaluate the network.
    par: Option<Par>,
    /// On several threads, the channels gathered from the ranges' copies
    /// since the last cycle ([`System::channels`]).
    gathered: std::cell::OnceCell<Channels>,
    /// Batched steps may leave their cycle running on the helpers
    /// ([`System::set_overlap`]).
    overlap: bool,
    /// The last batched step left its cycle running on the helpers.
    left_running: bool,
    /// A fault found while finishing a cycle for a reader that could not
    /// return it: the next step's (or settle's) to return.
    pending_err: Option<Error>,
    /// Packets and worms sent while a cycle ran on the helpers, for their
    /// sources once it is finished.
    stage: Vec<Staged>,
    /// With overlap on, per node: the sequence number its next packet
    /// gets, and at least as many packets as its source queue holds.
    shadow: Vec<Shadow>,
}

/// A packet or worm sent while a cycle ran on the helpers, as
/// [`System::enqueue`] takes it.
struct Staged {
    src: u32,
    dst: u32,
    payload: u16,
    worm: Option<Box<Worm>>,
    now: u64,
}

/// What the system knows of a source queue without reading its endpoint
/// (which may be running on a helper): the sequence number of its next
/// packet, which only the system's sends move, and a count of the
/// packets queued that is never below the queue's (a source only takes
/// packets from its queue while it runs).
#[derive(Clone, Copy, Debug, Default)]
struct Shadow {
    seq: u64,
    queued_at_most: u32,
}

/// The ranges of a system evaluated on several threads, and the helper
/// threads (see [`super::par`]).
struct Par {
    crew: Crew<Job>,
    ranges: Vec<Range>,
    cross: Vec<Cross>,
    /// Whether a cycle is handed to the helpers or run here.
    shift: Shift,
    /// The network's state (channels, live set, wake-ups, inboxes) is in
    /// the system's own, for cycles run as one thread's (the last cycle
    /// was light), rather than in the ranges'.
    here: bool,
    /// The ranges' switches in turn, then their nodes, as runs of
    /// components ([`Bits::count_runs`]), and a count for each run: what
    /// each range would have left live, counted on the system's live set.
    runs: Vec<usize>,
    run_counts: Vec<usize>,
}

/// The range holding component `c`, among `ranges` ranges cut at `runs`
/// ([`Par::runs`]: the ranges' switches in turn, then their nodes).
fn holder(runs: &[usize], ranges: usize, c: u32) -> usize {
    (runs.partition_point(|&b| b <= c as usize) - 1) % ranges
}

impl Par {
    /// The range holding component `c`.
    fn holder(&self, c: u32) -> usize {
        holder(&self.runs, self.ranges.len(), c)
    }
}

impl System {
    /// Builds the system of `net` with the routing tables its up*/down*
    /// directions give.
    pub fn new(net: &Network, cfg: &SimConfig, traffic: &Traffic) -> Result<System> {
        let (ud, rt) = RoutingTables::for_network(net);
        System::with_routing(net, &ud, rt, cfg, traffic)
    }

    /// Builds the system with given routing tables (for what-if studies and
    /// for tests of the model's own route checks).
    pub fn with_routing(
        net: &Network,
        ud: &UpDown,
        routes: RoutingTables,
        cfg: &SimConfig,
        traffic: &Traffic,
    ) -> Result<System> {
        cfg.validate()?;
        routes.check_network(net, ud)?;
        routes.check_ports()?;
        let nodes = net.num_nodes();
        let n_sw = net.num_switches();
        let formats = Formats::new(nodes as u32, n_sw as u32, net.max_ports());
        traffic.validate(&formats)?;
        if let Traffic::Multicast {
            degree,
            worm: Kind::Ssr,
            ..
        } = *traffic
        {
            // An SSR worm's destinations share one switch.
            let most = (0..n_sw as u32)
                .map(|s| net.nodes_of(s).len() as u32)
                .max()
                .unwrap_or(0);
            if degree > most {
                return Err(Error::Config {
                    field: "degree",
                    value: degree.to_string(),
                    reason: format!(
                        "an SSR worm's destinations are on one switch, and no switch has more than {}",
                        crate::counted(most as u64, "nodes")
                    ),
                });
            }
        }
        if !matches!(traffic, Traffic::Idle) {
            cfg.check_packet(traffic.max_packet_flits(&formats))?;
        }
        let sw_chunks = (cfg.buffer_flits / cfg.chunk_flits) as u16;
        let ni_timing = match cfg.node_model {
            NodeModel::Endpoint => None,
            NodeModel::Ni => {
                if !matches!(traffic, Traffic::Idle) {
                    return Err(Error::Config {
                        field: "node_model",
                        value: "ni".into(),
                        reason: "generated traffic needs traffic endpoints; with network interfaces send messages and multicasts (System::send_message, System::multicast)".into(),
                    });
                }
                let t = cfg.ni.timing(
                    cfg.cycle_ps(),
                    formats.unicast().flits() as u32,
                    cfg.chunk_flits,
                )?;
                cfg.check_packet(t.packet)?;
                Some(t)
            }
        };
        // A node's receive buffer: the endpoint's, or the NI's receive queue.
        let ep_chunks = match ni_timing {
            None => (cfg.endpoint_buffer_flits / cfg.chunk_flits) as u16,
            Some(t) => (t.recv_queue / cfg.chunk_flits).min(u16::MAX as u32 - 1) as u16,
        };
        let mut ch = Channels::default();
        let ep = |n: u32| Sink {
            component: (n_sw as u32) + n,
            port: 0,
        };
        let sw = |s: u32, p: u32| Sink {
            component: s,
            port: p as u16,
        };
        // Per direction x -> y: a flit link, and y's credit counter for x.
        let mut connect = |x: Sink, y: Sink| -> (ChannelId, ChannelId) {
            (ch.flits.add(x, y), ch.credits.add(y, x))
        };
        let mut wiring: Vec<Vec<Option<PortWiring>>> = (0..n_sw as u32)
            .map(|s| vec![None; net.num_ports(s) as usize])
            .collect();
        let mut ep_wiring: Vec<Option<EndpointWiring>> = vec![None; nodes];
        let mut receiver_chunks: Vec<Vec<u16>> = (0..n_sw as u32)
            .map(|s| vec![0; net.num_ports(s) as usize])
            .collect();
        for s in 0..n_sw as u32 {
            for (p, c) in net.ports_of(s) {
                match c {
                    PortConn::Open => {}
                    PortConn::Link { peer, .. } => {
                        // Only the direction out of (s, p) here; the peer
                        // creates the other one.
                        let (f, c) = connect(sw(s, p), sw(peer.switch, peer.port));
                        receiver_chunks[s as usize][p as usize] = sw_chunks;
                        let w = wiring[s as usize][p as usize].get_or_insert(blank_wiring());
                        w.link_out = f;
                        w.credit_in = c;
                        w.receiver_chunks = sw_chunks;
                        w.goes_up = ud.goes_up(s, p);
                        let pw = wiring[peer.switch as usize][peer.port as usize]
                            .get_or_insert(blank_wiring());
                        pw.link_in = f;
                        pw.credit_out = c;
                        pw.arrived_down = ud.arrived_down(peer.switch, peer.port);
                    }
                    PortConn::Node(n) => {
                        let (down, down_credit) = connect(sw(s, p), ep(n));
                        let (up, up_credit) = connect(ep(n), sw(s, p));
                        receiver_chunks[s as usize][p as usize] = ep_chunks;
                        wiring[s as usize][p as usize] = Some(PortWiring {
                            link_in: up,
                            credit_out: up_credit,
                            link_out: down,
                            credit_in: down_credit,
                            receiver_chunks: ep_chunks,
                            goes_up: false,
                            arrived_down: false,
                        });
                        ep_wiring[n as usize] = Some(EndpointWiring {
                            tx: up,
                            credit_in: up_credit,
                            rx: down,
                            credit_out: down_credit,
                            switch_chunks: sw_chunks,
                            at: (s, p),
                        });
                    }
                }
            }
        }
        let params = SwitchParams {
            buffer_flits: cfg.buffer_flits,
            chunk_flits: cfg.chunk_flits,
            check_updown: cfg.check_updown,
        };
        // The reachability strings take switches x ports x nodes bits; a
        // network whose bit-string headers do not fit its buffers can never
        // carry a bit-string worm, and is built without them.
        let reach = (formats.bitstring_len() < cfg.buffer_flits as usize)
            .then(|| Reachability::new(net, ud));
        let routes = Arc::new(routes);
        let switches: Vec<Switch> = (0..n_sw as u32)
            .map(|s| {
                let dec = Decoder::of_switch(net, ud, &routes, reach.as_ref(), formats, s);
                Switch::new(s, params, dec, &wiring[s as usize])
            })
            .collect();
        let worms = Arc::new(WormBuilder::new(net, routes.clone(), formats));
        let endpoints: Vec<Terminal> = ep_wiring
            .into_iter()
            .enumerate()
            .map(|(n, w)| {
                let w = w.expect("every node is on a port");
                match ni_timing {
                    None => Terminal::Endpoint(Endpoint::new(
                        n as u32,
                        w,
                        cfg.chunk_flits as u16,
                        worms.clone(),
                        cfg.seed,
                        cfg.source_queue_packets as usize,
                        cfg.record_deliveries,
                    )),
                    Some(t) => Terminal::Ni(Box::new(NiNode::new(
                        n as u32,
                        formats,
                        w,
                        cfg.chunk_flits as u16,
                        t,
                    ))),
                }
            })
            .collect();
        let total = n_sw + nodes;
        let node_switch: Vec<u32> = (0..nodes as u32).map(|n| net.node_port(n).switch).collect();
        let par = Self::ranges(n_sw, &node_switch, cfg.threads, cfg.hand_over, &ch)?;
        let mut sys = System {
            cfg: cfg.clone(),
            nodes: nodes as u32,
            n_sw,
            formats,
            worms,
            worm_scratch: WormScratch::default(),
            switches,
            endpoints,
            groups: Groups::default(),
            delivered: Vec::new(),
            mcasts: Vec::new(),
            ni_timing,
            routes,
            ch,
            inbox: vec![0; total],
            active: Active::new(total),
            wheel: Wheel::new(total),
            packets: PacketTable::new(nodes),
            log: PacketLog::default(),
            retired: Vec::new(),
            faults: Vec::new(),
            cycle: 0,
            window: 0,
            order: None,
            tracing: None,
            receiver_chunks,
            longest_wait: None,
            watched: Vec::new(),
            // What the run grows by is counted from the network built.
            growth: crate::memory::Growth::new(
                QUEUE_CHECK_FIRST,
                u64::MAX,
                crate::memory::resident(),
            ),
            queue_every: queue_count_every(nodes as u64, traffic),
            queue_count_at: 0,
            par,
            gathered: std::cell::OnceCell::new(),
            overlap: false,
            left_running: false,
            pending_err: None,
            stage: Vec::new(),
            shadow: Vec::new(),
        };
        let start = match *traffic {
            Traffic::Idle => None,
            Traffic::Uniform { load, packet_flits } => Some((
                load,
                Kind::Unicast,
                packet_flits - formats.unicast().flits() as u32,
                1,
            )),
            Traffic::Multicast {
                load,
                payload_flits,
                degree,
                worm,
            } => Some((load, worm, payload_flits, degree)),
        };
        if let Some((load, kind, payload, degree)) = start {
            for n in 0..nodes {
                if kind != Kind::Unicast {
                    sys.packets.sends_worms(n as u32);
                }
                let ep = &mut sys.endpoints[n];
                if let Some(first) = ep
                    .endpoint_mut()
                    .and_then(|e| e.start_traffic(load, kind, payload as u16, degree as u16, 0))
                {
                    sys.wake_at((n_sw + n) as u32, first);
                }
            }
        }
        Ok(sys)
    }

    /// The ranges of `n_sw` switches for `threads` threads (none for
    /// one): whole words of 64 switches each, as even as they go, each with
    /// the nodes on its switches (`node_switch`: each node's switch) when
    /// the nodes are numbered in their switches' order, or an even share
    /// of the nodes when they are not.
    fn ranges(
        n_sw: usize,
        node_switch: &[u32],
        threads: usize,
        hand_over: HandOver,
        ch: &Channels,
    ) -> Result<Option<Par>> {
        let parts = threads_used(n_sw as u32, threads);
        if parts == 1 {
            return Ok(None);
        }
        let (words, nodes) = (n_sw.div_ceil(64), node_switch.len());
        let sw_cut = |k: usize| (k * words / parts * 64).min(n_sw) as u32;
        let in_order = node_switch.is_sorted();
        let node_cut = |k: usize| {
            if k == parts {
                nodes as u32
            } else if in_order {
                node_switch.partition_point(|&s| s < sw_cut(k)) as u32
            } else {
                (k * nodes / parts) as u32
            }
        };
        let total = n_sw + nodes;
        let runs: Vec<usize> = (0..parts)
            .map(|k| sw_cut(k) as usize)
            .chain((0..=parts).map(|k| n_sw + node_cut(k) as usize))
            .collect();
        let ranges = (0..parts)
            .map(|k| Range {
                sw: sw_cut(k)..sw_cut(k + 1),
                nodes: node_cut(k)..node_cut(k + 1),
                ch: ch.clone(),
                active: Bits::new(total),
                wheel: Wheel::new(total),
                inbox: vec![0; total],
                faults: Vec::new(),
                node_faults: 0,
                log: PacketLog::default(),
                hosts: Vec::new(),
                delivered: Vec::new(),
                ran: Vec::new(),
                work: 0,
            })
            .collect();
        let crew = Crew::new(parts - 1, threads, "wormcast-switch")?;
        Ok(Some(Par {
            crew,
            ranges,
            cross: (0..parts).map(|_| Cross::default()).collect(),
            shift: Shift::new(hand_over),
            here: false,
            run_counts: vec![0; runs.len() - 1],
            runs,
        }))
    }

    /// Threads that evaluate the switches and nodes: the count asked for
    /// ([`SimConfig::threads`]), or fewer on a network too small to cut
    /// into that many ranges of 64 switches.
    pub fn threads(&self) -> usize {
        self.par.as_ref().map_or(1, |p| p.ranges.len())
    }

    /// The configuration.
    pub fn config(&self) -> &SimConfig {
        &self.cfg
    }

    /// The current cycle (the number of cycles simulated).
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// Number of nodes.
    pub fn num_nodes(&self) -> u32 {
        self.nodes
    }

    /// The switches.
    pub fn switches(&self) -> &[Switch] {
        &self.switches
    }

    /// The channels. On several threads, each range holds a copy of them;
    /// this gathers them, as one thread would hold them (each channel as
    /// its reader's range sees it), once per cycle asked.
    pub fn channels(&self) -> &Channels {
        debug_assert!(!self.left_running, "read while a cycle runs on the helpers");
        match self.ranges_hold() {
            None => &self.ch,
            Some(p) => self.gathered.get_or_init(|| {
                let copies: Vec<&Channels> = p.ranges.iter().map(|r| &r.ch).collect();
                Channels::gather(&copies, |s| p.holder(s.component))
            }),
        }
    }

    /// Every flit link, named `sw3.p2 -> sw5.p1`, `node 4 -> sw1.p0` or
    /// `sw1.p0 -> node 4`, with the flits it has carried since cycle 0.
    pub fn link_flits(&self) -> Vec<(String, u64)> {
        let f = &self.channels().flits;
        (0..f.len())
            .map(|i| {
                (
                    self.link_name(i).expect("a link"),
                    f.carried(ChannelId(i as u32)),
                )
            })
            .collect()
    }

    /// [`link_flits`](Self::link_flits)'s counts without the names, each
    /// with whether the link joins two switches.
    pub fn link_counts(&self) -> Vec<(u64, bool)> {
        self.channels().flits.carried_between(self.n_sw as u32)
    }

    /// The name of flit link `i` (in [`link_flits`](Self::link_flits)'s
    /// order), or `None` past the last.
    pub fn link_name(&self, i: usize) -> Option<String> {
        let f = &self.ch.flits;
        if i >= f.len() {
            return None;
        }
        let n_sw = self.n_sw as u32;
        let name = |s: Sink| {
            if s.component < n_sw {
                format!("sw{}.p{}", s.component, s.port)
            } else {
                format!("node {}", s.component - n_sw)
            }
        };
        let id = ChannelId(i as u32);
        Some(format!("{} -> {}", name(f.source(id)), name(f.sink(id))))
    }

    /// Sets the evaluation order. A shuffled order takes one thread: on
    /// several, it is refused.
    pub fn set_eval_order(&mut self, order: EvalOrder) -> Result<()> {
        self.land()?;
        self.order = match order {
            EvalOrder::Natural => None,
            EvalOrder::Shuffled { .. } if self.par.is_some() => {
                return Err(Error::Config {
                    field: "threads",
                    value: self.threads().to_string(),
                    reason: "a shuffled order of evaluation takes one thread".into(),
                });
            }
            EvalOrder::Shuffled { seed } => {
                Some((Xoshiro256PlusPlus::seed_from_u64(seed), Vec::new()))
            }
        };
        Ok(())
    }

    /// Starts the measurement window at the current cycle: latency counts
    /// packets generated from now on, throughput counts flits arriving from
    /// now on.
    pub fn start_window(&mut self) {
        self.land_for_reader();
        self.window = self.cycle;
        for e in self.endpoints.iter_mut() {
            if let Some(e) = e.endpoint_mut() {
                e.reset_window();
            }
        }
    }

    /// Stops the traffic generators.
    pub fn stop_traffic(&mut self) {
        self.land_for_reader();
        for e in self.endpoints.iter_mut() {
            if let Some(e) = e.endpoint_mut() {
                e.stop();
            }
        }
    }

    fn check_node(&self, n: u32) -> Result<()> {
        if n >= self.nodes {
            return Err(Error::UnknownNode {
                node: n as u64,
                nodes: self.nodes,
            });
        }
        Ok(())
    }

    /// Queues one packet of `len` flits (header included) from node `src` to
    /// node `dst`, generated now. A packet to its own source is carried as
    /// the hardware carries it: up to its switch and back down.
    pub fn inject(&mut self, src: u32, dst: u32, len: u32) -> Result<PacketId> {
        self.check_node(src)?;
        self.check_node(dst)?;
        let hdr = self.formats.unicast().flits() as u32;
        if len < hdr {
            return Err(Error::BadPacket(format!(
                "{} cannot hold the {hdr}-flit header",
                crate::counted(len.into(), "flits")
            )));
        }
        self.cfg.check_packet(len)?;
        self.enqueue(src, dst, (len - hdr) as u16, None)
    }

    /// Queues one worm from node `src` with `payload` flits after its
    /// header, generated now. The worm is checked first: every node and
    /// switch it names must exist, SSR and multi-drop destinations must be
    /// on the switches named, a multi-drop path must be routable in order,
    /// and the whole worm must fit the input buffers.
    pub fn inject_worm(&mut self, src: u32, spec: &WormSpec, payload: u32) -> Result<PacketId> {
        self.check_node(src)?;
        let worm = self.worms.build_in(src, spec, &mut self.worm_scratch)?;
        let len = (worm.header.len() as u32).saturating_add(payload);
        self.cfg.check_packet(len)?;
        self.enqueue(src, u32::MAX, payload as u16, Some(Box::new(worm)))
    }

    fn enqueue(
        &mut self,
        src: u32,
        dst: u32,
        payload: u16,
        worm: Option<Box<Worm>>,
    ) -> Result<PacketId> {
        let now = self.cycle;
        if self.left_running {
            // The source may be running on a helper: the packet waits for
            // the cycle to finish, unless its queue may be full, which
            // only the finished cycle can tell.
            let limit = self.cfg.source_queue_packets;
            let sh = &mut self.shadow[src as usize];
            if sh.queued_at_most < limit {
                let seq = sh.seq;
                sh.seq += 1;
                sh.queued_at_most += 1;
                self.stage.push(Staged {
                    src,
                    dst,
                    payload,
                    worm,
                    now,
                });
                return Ok(PacketId { src, seq });
            }
            self.land()?;
        }
        if self.endpoints[src as usize].endpoint().is_none() {
            return Err(Self::needs_endpoints("packets and worms"));
        }
        match self.enqueue_now(src, dst, payload, worm, now) {
            Some(seq) => Ok(PacketId { src, seq }),
            None => Err(Error::BadPacket(format!(
                "node {src}'s source queue is full ({})",
                crate::counted(self.cfg.source_queue_packets as u64, "packets")
            ))),
        }
    }

    /// Puts a packet (or worm) into endpoint `src`'s source queue, created
    /// at `now`, and wakes it: its sequence number, or `None` when the
    /// queue is full.
    fn enqueue_now(
        &mut self,
        src: u32,
        dst: u32,
        payload: u16,
        worm: Option<Box<Worm>>,
        now: u64,
    ) -> Option<u64> {
        if worm.is_some() {
            self.packets.sends_worms(src);
        }
        let e = self.endpoints[src as usize].endpoint_mut()?;
        let seq = e.enqueue(dst, payload, worm, now);
        if let Some(sh) = self.shadow.get_mut(src as usize) {
            *sh = Shadow {
                seq: e.next_seq(),
                queued_at_most: e.queued() as u32,
            };
        }
        seq?;
        self.wake_now((self.n_sw + src as usize) as u32);
        seq
    }

    /// The arrivals of packet `id` so far, as (destination, cycle its tail
    /// was in the destination's memory), in destination order. Needs
    /// [`SimConfig::record_deliveries`].
    pub fn arrivals(&self, id: PacketId) -> Vec<(u32, u64)> {
        let mut v: Vec<(u32, u64)> = self
            .endpoints
            .iter()
            .filter_map(Terminal::endpoint)
            .flat_map(|e| e.deliveries().iter())
            .filter(|d| d.id() == id)
            .map(|d| (d.dst, d.arrive))
            .collect();
        v.sort_unstable();
        v
    }

    /// Makes node `n` stop returning receive-buffer credits until cycle
    /// `until` (as a slow receiver would): the switch output that feeds it
    /// runs dry of credits and every worm branch toward it waits, while the
    /// other branches go on.
    pub fn hold_node(&mut self, n: u32, until: u64) -> Result<()> {
        self.land()?;
        self.check_node(n)?;
        let Some(e) = self.endpoints[n as usize].endpoint_mut() else {
            return Err(Self::needs_endpoints("holding a node"));
        };
        e.hold(until);
        self.wake_at((self.n_sw + n as usize) as u32, until);
        Ok(())
    }

    /// The header encodings of this network.
    pub fn formats(&self) -> Formats {
        self.formats
    }

    /// The worm encoder of this network.
    pub fn worms(&self) -> &WormBuilder {
        &self.worms
    }

    /// The ranges, when they hold the network's state (on several
    /// threads, after a cycle handed to them).
    fn ranges_hold(&self) -> Option<&Par> {
        self.par.as_ref().filter(|p| !p.here)
    }

    /// The range that holds component `c`, when the ranges hold the
    /// network's state.
    fn range_of(&mut self, c: u32) -> Option<&mut Range> {
        let p = self.par.as_mut().filter(|p| !p.here)?;
        let k = p.holder(c);
        Some(&mut p.ranges[k])
    }

    fn wake_now(&mut self, c: u32) {
        match self.range_of(c) {
            Some(r) => r.active.insert(c),
            None => self.active.wake_now(c),
        }
    }

    fn wake_at(&mut self, c: u32, when: u64) {
        let now = self.cycle;
        if when <= now {
            self.wake_now(c);
        } else {
            match self.range_of(c) {
                Some(r) => r.wheel.schedule(now, c, when),
                None => self.wheel.schedule(now, c, when),
            }
        }
    }

    fn traced(&self, c: usize) -> &dyn Traced<Env = Channels> {
        if c < self.n_sw {
            &self.switches[c]
        } else {
            &self.endpoints[c - self.n_sw]
        }
    }

    fn name(&self, c: usize) -> String {
        if c < self.n_sw {
            format!("sw{c}")
        } else {
            match self.endpoints[c - self.n_sw] {
                Terminal::Endpoint(_) => format!("ep{}", c - self.n_sw),
                Terminal::Ni(_) => format!("ni{}", c - self.n_sw),
            }
        }
    }

    /// Attaches a waveform sink; every signal of every component is traced
    /// from now on, or what the sink wants of them ([`WaveSink::wants`]:
    /// a window of cycles, some components), the rest left unsampled.
    /// Only before the first cycle.
    pub fn attach_tracer(&mut self, sink: Box<dyn WaveSink>) -> Result<()> {
        self.land()?;
        if self.cycle != 0 {
            return Err(Error::Config {
                field: "tracing",
                value: format!("cycle {}", self.cycle),
                reason: "a tracer must be attached before the first cycle".into(),
            });
        }
        let total = self.n_sw + self.nodes as usize;
        let mut hier = Hierarchy::new("top");
        let mut first = Vec::with_capacity(total);
        let mut count = Vec::with_capacity(total);
        {
            let mut root = hier.root();
            for c in 0..total {
                let before = root.signal_count();
                root.scope(&self.name(c), |s| self.traced(c).declare(s));
                first.push(before);
                count.push(root.signal_count() - before);
            }
        }
        hier.check_room()?;
        let mut t = Box::new(Tracing {
            every: false,
            state: TraceState::new(&hier),
            hier,
            sink,
            first,
            count,
            units: vec![0; total],
            marked: vec![0; total.div_ceil(64)],
            ran: Vec::with_capacity(total.div_ceil(64)),
            window: Window::default(),
            wanted: Vec::new(),
            flit_marks: (0..self.ch.flits.len())
                .map(|i| {
                    let s = self.ch.flits.source(ChannelId(i as u32));
                    Mark {
                        component: s.component,
                        units: out_unit(s.port),
                    }
                })
                .collect(),
            credit_marks: (0..self.ch.credits.len())
                .map(|i| {
                    let k = self.ch.credits.sink(ChannelId(i as u32));
                    Mark {
                        component: k.component,
                        units: out_unit(k.port),
                    }
                })
                .collect(),
        });
        for c in 0..total {
            self.sample(&mut t, c, None);
        }
        t.sink.begin(&t.hier, self.cfg.cycle_ps(), &t.state)?;
        t.state.clear_changes();
        let wants = t.sink.wants();
        (t.window, t.wanted) = (wants.window, wants.components(&t.first, &t.count));
        self.ch.flits.set_track_changes(true);
        self.ch.credits.set_track_changes(true);
        // On several threads, the ranges' copies tell the credit counters
        // they drove by their changes ([`LevelBank::follow`]).
        for r in self.par.iter_mut().flat_map(|p| &mut p.ranges) {
            r.ch.credits.set_track_changes(true);
        }
        self.tracing = Some(t);
        // The trace's state is not what the run keeps past saturation.
        self.growth.restart(crate::memory::resident());
        Ok(())
    }

    /// Samples component `c`: the units in `units`
    /// ([`Traced::sample_units`]), or everything for `None`. Switches and
    /// terminals are called directly, without a dynamic call: this is
    /// every traced cycle's path.
    #[inline(always)]
    fn sample(&self, t: &mut Tracing, c: usize, units: Option<u128>) {
        let mut s = t.state.sampler(t.first[c], t.count[c]);
        match (self.switches.get(c), units) {
            (Some(sw), Some(u)) => sw.sample_units(&self.ch, u, &mut s),
            (Some(sw), None) => sw.sample(&self.ch, &mut s),
            (None, Some(u)) => self.endpoints[c - self.n_sw].sample_units(&self.ch, u, &mut s),
            (None, None) => self.endpoints[c - self.n_sw].sample(&self.ch, &mut s),
        }
        s.finish();
    }

    /// Samples every component after every edge, instead of only those that
    /// may have changed. The waveform is the same, only slower to make; this
    /// exists to check exactly that.
    pub fn trace_every_component(&mut self, on: bool) {
        if let Some(t) = &mut self.tracing {
            t.every = on;
        }
    }

    /// The hierarchy of traced signals, when tracing.
    pub fn trace_hierarchy(&self) -> Option<&Hierarchy> {
        self.tracing.as_ref().map(|t| &t.hier)
    }

    /// Ends tracing: flushes the sink and returns it.
    pub fn finish_trace(&mut self) -> Result<Option<Box<dyn WaveSink>>> {
        Ok(self.end_trace()?.map(|t| t.sink))
    }

    /// Ends tracing as [`finish_trace`](Self::finish_trace) does and
    /// returns the hierarchy traced, without a copy of it (a million
    /// signals at 4,096 switches).
    pub fn finish_trace_hierarchy(&mut self) -> Result<Option<Hierarchy>> {
        Ok(self.end_trace()?.map(|t| t.hier))
    }

    /// Ends tracing, returning what traced.
    fn end_trace(&mut self) -> Result<Option<Box<Tracing>>> {
        self.land()?;
        self.ch.flits.set_track_changes(false);
        self.ch.credits.set_track_changes(false);
        for r in self.par.iter_mut().flat_map(|p| &mut p.ranges) {
            r.ch.credits.set_track_changes(false);
        }
        match self.tracing.take() {
            Some(mut t) => {
                t.sink.finish_logged(self.cycle, &mut t.state)?;
                Ok(Some(t))
            }
            None => Ok(None),
        }
    }

    /// Simulates one clock cycle.
    pub fn tick(&mut self) -> Result<()> {
        if let Some(e) = self.pending_err.take() {
            return Err(e);
        }
        self.tick_as(None)
    }

    /// Simulates one cycle, as [`tick`](Self::tick), but with
    /// [`set_overlap`](Self::set_overlap) on several threads may return
    /// while the helpers still run it: the calling thread runs its own
    /// range, and its work until the next step (the harness's sends and
    /// bookkeeping) runs beside the other ranges instead of after them.
    /// The next step (or [`settle`](Self::settle)) first waits for them
    /// and finishes the cycle as `tick` would have (its logs, its faults,
    /// the watchdog), then hands the sends made in between to their
    /// sources, in the order made. A cycle after which the watchdog looks,
    /// run as one thread's (a light cycle), or that leaves the calling
    /// thread's range with nothing live (the network may be quiet, which
    /// only a finished cycle can tell) is finished before it returns.
    ///
    /// Between such steps only [`inject`](Self::inject) and
    /// [`inject_worm`](Self::inject_worm) (their sequence numbers and
    /// full-queue refusals are those of one thread: a send to a source
    /// whose queue may be full finishes the cycle first),
    /// [`quiet_cycles`](Self::quiet_cycles) (0),
    /// [`take_deliveries`](Self::take_deliveries) and `settle` (which
    /// finish the cycle first) may be used. A fault or a deadlock is the
    /// same, found at the same cycle, as on one thread; after it the
    /// system is not to be stepped again.
    pub(crate) fn step_batched(&mut self) -> Result<()> {
        if let Some(e) = self.pending_err.take() {
            return Err(e);
        }
        self.land()?;
        if !self.overlap || self.par.is_none() || self.tracing.is_some() {
            return self.tick_as(None);
        }
        self.gathered = std::cell::OnceCell::new();
        let par = self.par.as_mut().expect("ranges");
        if !par.shift.hand_over(par.ranges.iter().map(|r| r.work)) {
            return self.tick_as(Some(false));
        }
        self.hand_to_ranges();
        let jobs = self.jobs();
        let crew = &mut self.par.as_mut().expect("ranges").crew;
        crew.start(&jobs);
        // Waits for the helpers if anything below panics.
        let running = crew.pending();
        self.left_running = true;
        self.cycle += 1;
        // SAFETY: the first range is this thread's alone for the cycle,
        // and the pointers are fresh (nothing moved the vectors since
        // `jobs`).
        unsafe { jobs[0].run() };
        std::mem::forget(running);
        // SAFETY: the first range is this thread's, and its job is done
        // (the helpers touch only their own).
        let mine = unsafe { &*self.par.as_ref().expect("ranges").ranges.as_ptr() };
        if self.cycle.is_multiple_of(WATCHDOG_PERIOD) || mine.work == 0 {
            return self.land();
        }
        Ok(())
    }

    /// Lets [`step_batched`](Self::step_batched) leave its cycles running
    /// on the helpers (the one engine's harness, which reads the system
    /// only as a batched step allows). Only a system of traffic endpoints
    /// with no generated traffic overlaps: its sends are the only ones
    /// that fill the source queues. Turning it on finishes a cycle left
    /// running.
    pub(crate) fn set_overlap(&mut self, on: bool) -> Result<()> {
        self.land()?;
        let endpoints = self.endpoints.iter().all(|t| t.endpoint().is_some());
        let generating = self
            .endpoints
            .iter()
            .filter_map(Terminal::endpoint)
            .any(Endpoint::generating);
        self.overlap = on && self.par.is_some() && endpoints && !generating;
        self.shadow = if self.overlap {
            self.endpoints
                .iter()
                .filter_map(Terminal::endpoint)
                .map(|e| Shadow {
                    seq: e.next_seq(),
                    queued_at_most: e.queued() as u32,
                })
                .collect()
        } else {
            Vec::new()
        };
        Ok(())
    }

    /// Finishes a cycle a batched step left running, and returns a fault
    /// found by finishing one earlier: after it the system reads as after
    /// [`tick`](Self::tick).
    pub(crate) fn settle(&mut self) -> Result<()> {
        if let Some(e) = self.pending_err.take() {
            return Err(e);
        }
        self.land()
    }

    /// Waits for the helpers of a cycle a batched step left running,
    /// finishes that cycle as [`tick`](Self::tick) would have, and hands
    /// the packets sent since to their sources.
    #[inline]
    fn land(&mut self) -> Result<()> {
        if !self.left_running {
            return Ok(());
        }
        self.land_running()
    }

    /// [`land`](Self::land) once a cycle was left running: out of line, so
    /// that one thread's cycle carries only the test.
    #[inline(never)]
    fn land_running(&mut self) -> Result<()> {
        self.par.as_mut().expect("ranges").crew.wait();
        self.left_running = false;
        self.collect_ranges();
        let next = self.cycle;
        if let Err(e) = self.close(next - 1) {
            self.stage.clear();
            return Err(e);
        }
        if next.is_multiple_of(WATCHDOG_PERIOD)
            && let Err(e) = self.watchdog()
        {
            self.stage.clear();
            return Err(e);
        }
        let mut stage = std::mem::take(&mut self.stage);
        for s in stage.drain(..) {
            let seq = self.enqueue_now(s.src, s.dst, s.payload, s.worm, s.now);
            debug_assert!(seq.is_some(), "a staged packet refused");
        }
        self.stage = stage;
        Ok(())
    }

    /// [`land`](Self::land) for a reader that cannot return a fault: one
    /// found is the next step's (or `settle`'s) to return.
    fn land_for_reader(&mut self) {
        if let Err(e) = self.land() {
            self.pending_err.get_or_insert(e);
        }
    }

    /// [`tick`](Self::tick); on several threads, `hand` says whether the
    /// cycle goes to the ranges' threads or runs as one thread's (`None`:
    /// as the [`Shift`] rule says).
    fn tick_as(&mut self, hand: Option<bool>) -> Result<()> {
        self.land()?;
        let cycle = self.cycle;
        let next = cycle + 1;
        if self.par.is_some() {
            self.eval_ranges(hand);
        } else {
            self.eval_all();
        }
        self.close(cycle)?;
        if self.tracing.is_some() {
            self.trace_cycle(next)?;
        }
        self.cycle = next;
        if next.is_multiple_of(WATCHDOG_PERIOD) {
            self.watchdog()?;
        }
        Ok(())
    }

    /// Finishes cycle `cycle` once its components have run: takes what
    /// the cycle logged of the packets and the hosts' messages, and
    /// returns the first fault it found.
    #[inline(always)]
    fn close(&mut self, cycle: u64) -> Result<()> {
        let Self {
            packets,
            log,
            retired,
            ..
        } = self;
        packets.settle(log, retired);
        if !retired.is_empty() {
            retired.sort_unstable();
            for &tag in retired.iter() {
                packets.free(tag);
            }
            retired.clear();
        }
        if !self.groups.log.is_empty() {
            self.groups.settle(self.nodes, cycle, &mut self.mcasts);
        }
        if !self.faults.is_empty() {
            let more = self.faults.len() - 1;
            let f = self.faults.remove(0);
            let what = if more > 0 {
                format!("{} (and {more} more)", f.what)
            } else {
                f.what
            };
            return Err(Error::Fault {
                cycle: f.cycle,
                what,
            });
        }
        Ok(())
    }

    /// Evaluates the live switches and nodes and clocks the channels, on
    /// this thread.
    fn eval_all(&mut self) {
        let cycle = self.cycle;
        let n_sw = self.n_sw as u32;
        let Self {
            switches,
            endpoints,
            groups,
            delivered,
            ch,
            inbox,
            active,
            wheel,
            packets,
            log,
            faults,
            window,
            order,
            nodes,
            tracing,
            ..
        } = self;
        wheel.due(cycle, |c| active.wake_now(c));
        if let Some(t) = tracing {
            // The components evaluated this cycle, for the tracer: the set
            // changes as they run and at the edge.
            t.ran.clear();
            t.ran.extend_from_slice(active.now().words());
        }
        evaluate::<false>(Parts {
            cycle,
            n_sw,
            sw: 0..n_sw,
            nodes: 0..*nodes,
            switches,
            endpoints,
            ch,
            active: active.set_mut(),
            wheel,
            inbox,
            faults,
            node_faults: None,
            packets: packets.view(log),
            window: *window,
            groups: &groups.slots,
            hosts: &mut groups.log,
            delivered,
            order: order.as_mut(),
            cross: None,
        });
    }

    /// Evaluates a cycle of a network cut into ranges: on the ranges'
    /// threads, taking what they produced in range order (the switches'
    /// faults of every range, then the nodes', as one thread finds them),
    /// or, when the cycle is light, as one thread's cycle on the system's
    /// own state ([`System::eval_all`]), which is the same cycle. `hand`
    /// chooses (tests); `None` leaves it to the [`Shift`] rule, by the
    /// components each range left live at the end of the last cycle.
    fn eval_ranges(&mut self, hand: Option<bool>) {
        self.gathered = std::cell::OnceCell::new();
        let par = self.par.as_mut().expect("ranges");
        let hand = hand.unwrap_or_else(|| par.shift.hand_over(par.ranges.iter().map(|r| r.work)));
        if !hand {
            self.bring_here();
            self.eval_all();
            // What each range would have left live, for the next cycles'
            // choice (every few cycles: `Shift::count_due`).
            let p = self.par.as_mut().expect("ranges");
            if !p.shift.count_due() {
                return;
            }
            p.run_counts.fill(0);
            self.active.now().count_runs(&p.runs, &mut p.run_counts);
            let k = p.ranges.len();
            for (i, r) in p.ranges.iter_mut().enumerate() {
                r.work = (p.run_counts[i] + p.run_counts[k + i]).min(COUNT_TO);
            }
            return;
        }
        self.hand_to_ranges();
        let jobs = self.jobs();
        self.par.as_mut().expect("ranges").crew.run(&jobs);
        self.collect_ranges();
    }

    /// The ranges' jobs of the cycle the clock reads (the network's state
    /// handed to the ranges).
    fn jobs(&mut self) -> smallvec::SmallVec<[Job; 4]> {
        let par = self.par.as_mut().expect("ranges");
        let (ranges, cross, n_ranges) = (
            par.ranges.as_mut_ptr(),
            par.cross.as_mut_ptr(),
            par.ranges.len(),
        );
        let job = |k| Job {
            cycle: self.cycle,
            window: self.window,
            n_sw: self.n_sw as u32,
            switches: self.switches.as_mut_ptr(),
            endpoints: self.endpoints.as_mut_ptr(),
            packets: &self.packets,
            groups: self.groups.slots.as_slice(),
            ranges,
            cross,
            n_ranges,
            k,
            traced: self.tracing.is_some(),
        };
        (0..n_ranges).map(job).collect()
    }

    /// Takes what the ranges' finished cycle produced, in range order
    /// (the switches' faults of every range, then the nodes', as one
    /// thread finds them), and, when traced, the channels and components
    /// the tracer samples.
    fn collect_ranges(&mut self) {
        let par = self.par.as_mut().expect("ranges");
        for r in &mut par.ranges {
            self.faults.extend(r.faults.drain(..r.node_faults));
        }
        for r in &mut par.ranges {
            self.faults.append(&mut r.faults);
            self.packets.settle(&mut r.log, &mut self.retired);
            self.groups.log.append(&mut r.hosts);
            self.delivered.append(&mut r.delivered);
        }
        if let Some(t) = &mut self.tracing {
            // The tracer samples one set of channels, as one thread's
            // edge leaves it, and the components the ranges ran.
            let copies: smallvec::SmallVec<[&Channels; 4]> =
                par.ranges.iter().map(|r| &r.ch).collect();
            self.ch.follow(&copies);
            t.ran.clear();
            t.ran.resize(self.active.now().words().len(), 0);
            for r in &par.ranges {
                for (w, &v) in t.ran.iter_mut().zip(&r.ran) {
                    *w |= v;
                }
            }
        }
    }

    /// Brings the network's state from the ranges into the system's own
    /// channels, live set, wheel and inboxes, for cycles run as one
    /// thread's (nothing to do when it is there). Between cycles: the
    /// writes the ranges' last edges handed to other ranges are put into
    /// their readers' copies first (and their readers woken), as the
    /// readers' next cycle would; each channel is then taken from its
    /// reader's copy, with what every copy counted it carried.
    fn bring_here(&mut self) {
        let (n_sw, cycle) = (self.n_sw as u32, self.cycle);
        let p = self.par.as_mut().expect("ranges");
        if p.here {
            return;
        }
        let (cross, n_ranges) = (p.cross.as_ptr(), p.ranges.len());
        for (k, r) in p.ranges.iter_mut().enumerate() {
            // SAFETY: no helper runs (the last cycle was waited for), and
            // the lists are only read.
            unsafe { r.take_crossings(cross, n_ranges, k, cycle, n_sw) };
        }
        {
            let p = &*p;
            let copies: smallvec::SmallVec<[&Channels; 4]> =
                p.ranges.iter().map(|r| &r.ch).collect();
            self.ch.gather_from(&copies, |s| p.holder(s.component));
        }
        for r in &mut p.ranges {
            self.active.set_mut().union_with(&r.active);
            r.active.clear();
            r.wheel.move_to(cycle, &mut [&mut self.wheel], |_| 0);
            for c in r.components(n_sw).into_iter().flatten() {
                self.inbox[c as usize] = std::mem::take(&mut r.inbox[c as usize]);
            }
        }
        p.here = true;
    }

    /// Hands the network's state from the system's own channels, live
    /// set, wheel and inboxes to the ranges, for cycles run on their
    /// threads (nothing to do when it is there): each range's copy of the
    /// channels shows them all, and counts as carried what its components
    /// drive.
    fn hand_to_ranges(&mut self) {
        let (n_sw, cycle) = (self.n_sw as u32, self.cycle);
        let p = self.par.as_mut().expect("ranges");
        if !p.here {
            return;
        }
        for r in &mut p.ranges {
            let (sw, nodes) = (r.sw.clone(), r.nodes.clone());
            r.ch.split_from(&self.ch, |s| owns(&sw, &nodes, n_sw, s.component));
            for c in r.components(n_sw).into_iter().flatten() {
                r.inbox[c as usize] = std::mem::take(&mut self.inbox[c as usize]);
            }
        }
        for c in self.active.now().iter() {
            let k = p.holder(c);
            p.ranges[k].active.insert(c);
        }
        self.active.set_mut().clear();
        let Par { runs, ranges, .. } = p;
        let n_ranges = ranges.len();
        let mut wheels: smallvec::SmallVec<[&mut Wheel; 4]> =
            ranges.iter_mut().map(|r| &mut r.wheel).collect();
        self.wheel
            .move_to(cycle, &mut wheels, |c| holder(runs, n_ranges, c));
        p.here = false;
    }

    /// Samples the units that may have changed at the edge into `next`: the
    /// ports a switch worked on ([`Switch::take_touched`]), every other
    /// component evaluated, and the units that show a channel which
    /// changed with no writer running: a flit channel's driver (for a
    /// channel that went idle) and a credit counter's reader (a counter
    /// wakes no one).
    fn trace_cycle(&mut self, next: u64) -> Result<()> {
        let t = self.tracing.as_deref().expect("checked by the caller");
        if !(t.every || t.window.holds(next)) {
            // Outside the sink's window: nothing is sampled, and the sink
            // is not called (it takes no cycle there).
            return Ok(());
        }
        let mut t = self.tracing.take().expect("checked by the caller");
        if t.every {
            for c in 0..self.n_sw + self.nodes as usize {
                self.sample(&mut t, c, None);
            }
        } else if next == t.window.from {
            // The window's first cycle after cycles left unsampled: every
            // unit of every component the sink writes, so that it gets
            // every change since its first values. (The switches' touched
            // units keep adding up until the next cycle takes them: more
            // than that cycle needs, never less.)
            for w in 0..t.wanted.len() {
                for b in PortIter(t.wanted[w]) {
                    self.sample(&mut t, w << 6 | b, None);
                }
            }
        } else {
            let Tracing {
                units,
                marked,
                flit_marks,
                credit_marks,
                wanted,
                ..
            } = &mut *t;
            let mut mark = |c: u32, bits: u128| {
                let (w, b) = ((c >> 6) as usize, 1 << (c & 63));
                if wanted[w] & b != 0 {
                    units[c as usize] |= bits;
                    marked[w] |= b;
                }
            };
            // A flit channel driven before the edge was driven by a
            // component that ran, and sampling a component that ran covers
            // what it drove (a switch's output unit is touched in every
            // cycle it holds a grant, the only cycles it sends): only the
            // channels live before the edge and not driven again, which
            // went back to idle with no one running, are marked.
            for &i in self.ch.flits.were_live() {
                if self.ch.flits.is_live(ChannelId(i)) {
                    continue;
                }
                let m = flit_marks[i as usize];
                mark(m.component, m.units);
            }
            // A credit counter changes only when the port returning the
            // credits writes it, in a cycle its component ran: only the
            // reader is marked.
            for &i in self.ch.credits.changed() {
                let m = credit_marks[i as usize];
                mark(m.component, m.units);
            }
            // The components evaluated, with those the channels marked, in
            // component order: an evaluated switch's units are the ports it
            // worked on, every unit of any other component evaluated.
            for w in 0..t.marked.len() {
                let ran = t.ran.get(w).copied().unwrap_or(0) & t.wanted[w];
                let word = std::mem::take(&mut t.marked[w]) | ran;
                for b in PortIter(word) {
                    let c = w << 6 | b;
                    let mut units = std::mem::take(&mut t.units[c]);
                    if ran >> b & 1 == 1 {
                        units |= match self.switches.get_mut(c) {
                            Some(sw) => sw.take_touched(),
                            None => u128::MAX,
                        };
                    }
                    if units != 0 {
                        self.sample(&mut t, c, Some(units));
                    }
                }
            }
        }
        let r = t.sink.cycle_logged(next, &mut t.state);
        self.tracing = Some(t);
        r
    }

    /// Simulates `cycles` more cycles.
    pub fn run(&mut self, cycles: u64) -> Result<()> {
        self.run_with_progress(cycles, |_| {})
    }

    /// Simulates `cycles` more cycles, calling `progress` with the number
    /// done every 4096 cycles. Cycles in which nothing can happen are
    /// skipped ([`System::quiet_cycles`]). A stop asked for
    /// ([`crate::interrupt`]) ends it after the cycle it came in, with
    /// [`Error::Interrupted`].
    pub fn run_with_progress(&mut self, cycles: u64, mut progress: impl FnMut(u64)) -> Result<()> {
        let mut i = 0;
        while i < cycles {
            let k = self.advance(cycles - i)?;
            crate::interrupt::check(self.cycle)?;
            if (i + k) >> 12 != i >> 12 {
                progress((i + k) & !4095);
            }
            if self.cycle >= self.queue_count_at {
                self.queue_count_at = self.cycle.saturating_add(self.queue_every);
                self.check_queues()?;
            }
            i += k;
        }
        progress(cycles);
        Ok(())
    }

    /// Stops a run past saturation whose packets would outgrow the memory
    /// available, naming them, rather than let the kernel end the process
    /// ([`crate::memory::Growth`]): past saturation a source queues what
    /// it generates and cannot send, up to `source_queue_packets` (65,536)
    /// a node, and the packets in the network fill its buffers (640 flits
    /// a port by default, grown as they fill), which for a large network
    /// is more than a machine holds. The count looked at is the packets
    /// queued and in the network, first at [`QUEUE_CHECK_FIRST`]; they are
    /// counted every 4,096 cycles, or more often where the sources could
    /// make more than [`QUEUE_CHECK_FIRST`] in that time (16,384 nodes at
    /// 0.9: every 4 cycles).
    fn check_queues(&mut self) -> Result<()> {
        let in_flight = self.packets.live();
        let queued = self.queued();
        if queued.saturating_add(in_flight) < self.growth.mark {
            return Ok(());
        }
        self.check_queues_against(
            queued,
            in_flight,
            crate::memory::available,
            crate::memory::resident,
        )
    }

    /// [`System::check_queues`] of `queued` and `in_flight` packets (past
    /// the mark), `available` and `resident` giving the memory available
    /// and the process's resident bytes.
    fn check_queues_against(
        &mut self,
        queued: u64,
        in_flight: u64,
        available: impl FnOnce() -> Option<u64>,
        resident: impl FnOnce() -> Option<u64>,
    ) -> Result<()> {
        let cycle = self.cycle;
        self.growth
            .look(queued.saturating_add(in_flight), available, resident)
            .map_err(|s| Error::QueuesTooLarge {
                cycle,
                packets: queued,
                in_flight,
                grown: s.grown,
                more: s.more,
                available: s.available,
            })
    }

    /// Packets queued at the sources.
    fn queued(&self) -> u64 {
        self.endpoints
            .iter()
            .filter_map(Terminal::endpoint)
            .map(|e| e.queued() as u64)
            .sum()
    }

    /// Moves on by at most `horizon` (at least 1) cycles: skips the quiet
    /// ones ([`System::quiet_cycles`]) in one step, or else ticks once.
    /// Returns the cycles it moved.
    fn advance(&mut self, horizon: u64) -> Result<u64> {
        match self.quiet_cycles(horizon) {
            q if q > 1 => {
                self.skip(q);
                Ok(q)
            }
            _ => self.tick().map(|()| 1),
        }
    }

    /// Cycles from now in which nothing can happen, up to `horizon`: no
    /// component is due to run, no packet is in flight, no cycle a
    /// waveform samples is passed ([`Window::skippable`]), until a
    /// component's next scheduled wake-up. 0 while anything is active.
    pub fn quiet_cycles(&self, horizon: u64) -> u64 {
        if self.left_running {
            // Only a finished cycle can tell.
            return 0;
        }
        // A traced network skips only cycles its waveform leaves unsampled.
        let horizon = match self.tracing.as_deref() {
            None => horizon,
            Some(t) if t.every => 0,
            Some(t) => horizon.min(t.window.skippable(self.cycle)),
        };
        if horizon == 0 || !self.faults.is_empty() || self.packets.live() != 0 || !self.is_idle() {
            return 0;
        }
        let last = self.cycle.wrapping_sub(1);
        let due = match self.ranges_hold() {
            // A write left to cross to another range keeps the network
            // from being quiet (the ranges take it in the next cycle).
            Some(p) if p.cross.iter().any(|c| c.pending(last)) => return 0,
            Some(p) => p
                .ranges
                .iter()
                .filter_map(|r| r.wheel.next_due(self.cycle, horizon))
                .min(),
            None => self.wheel.next_due(self.cycle, horizon),
        };
        match due {
            Some(t) => (t - self.cycle).min(horizon),
            None => horizon,
        }
    }

    /// No component is to be evaluated this cycle (on any thread).
    fn is_idle(&self) -> bool {
        match self.ranges_hold() {
            None => self.active.is_empty(),
            Some(p) => p.ranges.iter().all(|r| r.active.is_empty()),
        }
    }

    /// The components to evaluate this cycle, in index order, into `v`.
    fn active_components(&self, v: &mut Vec<u32>) {
        v.clear();
        match self.ranges_hold() {
            None => v.extend(self.active.now().iter()),
            Some(p) => {
                v.extend(p.ranges.iter().flat_map(|r| r.active.iter()));
                v.sort_unstable();
            }
        }
    }

    /// Advances the clock by `cycles` cycles in which nothing can happen
    /// (at most [`System::quiet_cycles`]): what as many ticks would do, in
    /// one step.
    pub fn skip(&mut self, cycles: u64) {
        self.land_for_reader();
        debug_assert_eq!(
            self.quiet_cycles(cycles),
            cycles,
            "skipping an active network"
        );
        self.cycle += cycles;
    }

    /// Stops the traffic and runs until every packet is delivered; returns
    /// the cycles it took, or an error after `max_cycles`.
    pub fn drain(&mut self, max_cycles: u64) -> Result<u64> {
        self.stop_traffic();
        let start = self.cycle;
        while !self.is_drained() {
            if self.cycle - start >= max_cycles {
                return Err(Error::NotDrained {
                    cycle: self.cycle,
                    limit: max_cycles,
                    // In flight, and queued at their sources (a packet
                    // is in the table once its source starts sending it).
                    outstanding: self.packets.live()
                        + self
                            .endpoints
                            .iter()
                            .filter_map(|e| e.endpoint())
                            .map(|e| e.queued() as u64)
                            .sum::<u64>(),
                    what: "packets",
                });
            }
            self.tick()?;
            crate::interrupt::check(self.cycle)?;
        }
        Ok(self.cycle - start)
    }

    /// True when no packet is queued or in flight and no component has
    /// anything left to do.
    pub fn is_drained(&self) -> bool {
        self.packets.live() == 0 && self.is_idle() && self.endpoints.iter().all(|e| e.is_idle())
    }

    /// Checks that a drained network is back in its reset state: every input
    /// buffer chunk free, every credit returned, no packet in flight.
    pub fn check_quiescent(&self) -> Result<()> {
        let fault = |what: String| {
            Err(Error::Fault {
                cycle: self.cycle,
                what,
            })
        };
        if self.packets.live() != 0 {
            return fault(format!(
                "{} still in flight",
                crate::counted(self.packets.live(), "packets")
            ));
        }
        let sw_chunks = (self.cfg.buffer_flits / self.cfg.chunk_flits) as usize;
        for s in &self.switches {
            for p in 0..s.num_ports() {
                let max = self.receiver_chunks[s.id() as usize][p] as u32;
                if max == 0 {
                    continue;
                }
                if s.free_chunks(p) != sw_chunks || s.buffered_flits(p) != 0 {
                    return fault(format!(
                        "switch {} input port {p} holds {}, {} of {sw_chunks} chunks free",
                        s.id(),
                        crate::counted(s.buffered_flits(p) as u64, "flits"),
                        s.free_chunks(p)
                    ));
                }
                if s.credits(p, self.channels()) != max {
                    return fault(format!(
                        "switch {} output port {p} has {} of {max} credits",
                        s.id(),
                        s.credits(p, self.channels())
                    ));
                }
            }
            if !s.is_empty() {
                return fault(format!("switch {} still holds a packet", s.id()));
            }
        }
        for e in &self.endpoints {
            if let Some(c) = Some(e.credits(self.channels())).filter(|&(have, max)| have != max) {
                return fault(format!("node {} has {} of {} credits", e.node(), c.0, c.1));
            }
        }
        Ok(())
    }

    /// Looks for places with no progress for longer than the bound and, if
    /// there are any, builds their wait-for graph ([`crate::rtl::waitfor`]): a
    /// set of places that wait only on each other is a deadlock, reported
    /// with its cycle; places that only wait long (a saturated network) are
    /// noted as the longest wait and the run goes on.
    fn watchdog(&mut self) -> Result<()> {
        let bound = self.cfg.watchdog_cycles;
        let now = self.cycle;
        let n_sw = self.n_sw as u32;
        // Each stall with its place: (component, unit), switches first.
        // Only a component in the active set can wait: a switch sleeps only
        // when it holds no packet and has granted no output, a node only
        // when it has nothing to send, and whatever gives either work wakes
        // it. So the check visits the busy components alone, not the whole
        // of a large network (debug builds check the others are idle).
        let mut stalls: Vec<(Stall, (u32, StallAt))> = Vec::new();
        let mut active = std::mem::take(&mut self.watched);
        self.active_components(&mut active);
        for &c in &active {
            if c < n_sw {
                let s = &self.switches[c as usize];
                stalls.extend(s.stalls(now, bound).into_iter().map(|st| {
                    let at = (s.id(), st.at);
                    (st, at)
                }));
            } else if let Some(st) = self.endpoints[(c - n_sw) as usize].stall(now, bound) {
                stalls.push((st, (c, StallAt::Node)));
            }
        }
        #[cfg(debug_assertions)]
        for c in 0..n_sw + self.endpoints.len() as u32 {
            if active.binary_search(&c).is_err() {
                let idle = if c < n_sw {
                    self.switches[c as usize].is_empty()
                } else {
                    self.endpoints[(c - n_sw) as usize]
                        .stall(u64::MAX, 0)
                        .is_none()
                };
                debug_assert!(idle, "component {c} waits outside the active set");
            }
        }
        self.watched = active;
        if stalls.is_empty() {
            return Ok(());
        }
        let index: std::collections::HashMap<(u32, StallAt), usize> = stalls
            .iter()
            .enumerate()
            .map(|(i, (_, at))| (*at, i))
            .collect();
        let place = |c: u32, at: StallAt| index.get(&(c, at)).copied();
        let mut waits = WaitGraph::new();
        for (st, (c, _)) in &stalls {
            waits.place(st.waits_on.iter().map(|w| match *w {
                WaitOn::Flits(ch) => {
                    let from = self.ch.flits.source(ch);
                    if from.component < n_sw {
                        place(from.component, StallAt::Output(from.port))
                    } else {
                        place(from.component, StallAt::Node)
                    }
                }
                // A node's receive side keeps consuming (live),
                // but for an NI whose receive queue holds only
                // packets it has still to forward: that waits on
                // its send engine.
                WaitOn::Credits(ch) => {
                    let to = self.ch.flits.sink(ch);
                    if to.component < n_sw {
                        place(to.component, StallAt::Input(to.port))
                    } else {
                        let e = &self.endpoints[(to.component - n_sw) as usize];
                        e.ni()
                            .is_some_and(NiNode::receive_waits_on_send)
                            .then(|| place(to.component, StallAt::Node))?
                    }
                }
                WaitOn::Output(o) => place(*c, StallAt::Output(o)),
            }));
        }
        let dead = waits.dead();
        let cycle = waits.cycle(&dead);
        let report = |s: &Stall| StallReport {
            packet: s.tag.and_then(|t| {
                self.packets.get(t).map(|r| PacketInfo {
                    src: self.packets.src_of(t),
                    dst: (r.dst != u32::MAX).then_some(r.dst),
                    len: r.len,
                    generated: r.created,
                })
            }),
            location: s.location.clone(),
            waiting: s.waiting.clone(),
            since: s.since,
        };
        if cycle.is_empty() {
            // The oldest packet (an output's wait is told by its input).
            let (oldest, _) = stalls
                .iter()
                .min_by_key(|(s, _)| (matches!(s.at, StallAt::Output(_)), s.since))
                .expect("not empty");
            let waited = now - oldest.since;
            if self.longest_wait.as_ref().is_none_or(|w| waited > w.waited) {
                self.longest_wait = Some(LongWait {
                    cycle: now,
                    waited,
                    stall: report(oldest),
                });
            }
            return Ok(());
        }
        // The packets: input units and nodes (an output's wait is also told
        // by the input whose copy it sends).
        let mut stuck: Vec<StallReport> = stalls
            .iter()
            .zip(&dead)
            .filter(|((s, _), d)| **d && !matches!(s.at, StallAt::Output(_)))
            .map(|((s, _), _)| report(s))
            .collect();
        stuck.sort_by_key(|s| s.since);
        Err(Error::Deadlock(Box::new(DeadlockReport {
            cycle: now,
            bound,
            wait_cycle: cycle
                .iter()
                .map(|&i| stalls[i].0.location.clone())
                .collect(),
            stalls: stuck,
        })))
    }

    /// The longest wait the watchdog saw that was not a deadlock (the
    /// oldest stalled packet at a check, when its waits lead to places
    /// that still move): a sign of saturation, not an error.
    pub fn longest_wait(&self) -> Option<&LongWait> {
        self.longest_wait.as_ref()
    }

    /// Counters of node `n`'s traffic endpoint (`None` with network
    /// interfaces).
    pub fn endpoint_stats(&self, n: u32) -> Option<&EndpointStats> {
        self.endpoints[n as usize].endpoint().map(Endpoint::stats)
    }

    /// Every delivered packet, by destination then arrival, when
    /// `record_deliveries` is on (traffic endpoints).
    pub fn deliveries(&self) -> Vec<Delivery> {
        debug_assert!(!self.left_running, "read while a cycle runs on the helpers");
        self.endpoints
            .iter()
            .filter_map(Terminal::endpoint)
            .flat_map(|e| e.deliveries().iter().copied())
            .collect()
    }

    /// Moves every delivery recorded so far (with `record_deliveries`) to
    /// the end of `out`, by destination, leaving none: a long run's harness
    /// reads them as they come.
    pub fn take_deliveries(&mut self, out: &mut Vec<Delivery>) {
        self.land_for_reader();
        // Only the endpoints that recorded one, in node order (the order
        // of a scan of every endpoint, which a large network cannot afford
        // at every look).
        self.delivered.sort_unstable();
        self.delivered.dedup();
        for &x in &self.delivered {
            if let Some(e) = self.endpoints[x as usize].endpoint_mut() {
                e.take_deliveries(out);
            }
        }
        self.delivered.clear();
    }

    /// Flits sent on any link so far (node to switch, switch to switch,
    /// switch to node).
    pub fn flit_hops(&self) -> u64 {
        let packet = self.ni_timing.map_or(0, |t| t.packet as u64);
        self.switches.iter().map(|s| s.flit_hops()).sum::<u64>()
            + self
                .endpoints
                .iter()
                .map(|e| match e {
                    Terminal::Endpoint(e) => e.stats().injected_flits,
                    Terminal::Ni(n) => n.stats().packets_sent * packet,
                })
                .sum::<u64>()
    }

    fn needs_endpoints(what: &str) -> Error {
        Error::Config {
            field: "node_model",
            value: "ni".into(),
            reason: format!("{what} need traffic endpoints (node_model = \"endpoint\")"),
        }
    }

    fn needs_ni(what: &str) -> Error {
        Error::Config {
            field: "node_model",
            value: "endpoint".into(),
            reason: format!("{what} need hosts with network interfaces (node_model = \"ni\")"),
        }
    }

    /// The host and network interface of node `n` (`None` with traffic
    /// endpoints).
    pub fn ni(&self, n: u32) -> Option<&NiNode> {
        self.endpoints.get(n as usize)?.ni()
    }

    /// The timing of the hosts and network interfaces, if the nodes have
    /// them.
    pub fn ni_timing(&self) -> Option<NiTiming> {
        self.ni_timing
    }

    /// The host of node `src` starts sending a message of `packets` packets
    /// to node `dst` now. Returns the message's number at `src`.
    pub fn send_message(&mut self, src: u32, dst: u32, packets: u32) -> Result<u16> {
        self.check_node(src)?;
        self.check_node(dst)?;
        let m = crate::ni::message_packets(packets)?;
        let now = self.cycle;
        let Some(ni) = self.endpoints[src as usize].ni_mut() else {
            return Err(Self::needs_ni("messages"));
        };
        let id = ni.send(now, m, dst, None);
        self.wake_now((self.n_sw + src as usize) as u32);
        Ok(id)
    }

    /// The host of the tree's root starts a multicast of `packets` packets
    /// to every other node of `tree` now, by `scheme`. The tree is set up
    /// in the memory of every member's NI first (no time is charged for
    /// that). Returns the multicast's id for [`System::multicast_result`].
    pub fn multicast(&mut self, tree: Tree, packets: u32, scheme: Scheme) -> Result<u64> {
        tree.check_nodes(self.nodes)?;
        if tree.is_empty() {
            return Err(Error::BadTree(
                "a multicast needs at least one destination".into(),
            ));
        }
        let m = crate::ni::message_packets(packets)?;
        if self.ni_timing.is_none() {
            return Err(Self::needs_ni("multicasts"));
        }
        self.start_group(
            Group {
                id: 0,
                tree,
                scheme,
                sends: Vec::new(),
            },
            m,
        )
    }

    /// The host of the plan's source starts the multicast `plan` describes
    /// now, with messages of `plan.packets` packets: the NI-based schemes
    /// as [`System::multicast`] does (FPFS smart NIs, or conventional), the
    /// switch-based ones with [`Scheme::Worms`]: every member's worms are
    /// set up in its NI's memory first (no time is charged for that), and
    /// each member's host sends its worms, one message each, once it has
    /// the whole message. Returns the multicast's id.
    pub fn multicast_plan(&mut self, plan: &crate::mcast::Plan) -> Result<u64> {
        use crate::mcast::PlanScheme;
        let tree = plan.tree()?;
        match plan.scheme {
            PlanScheme::NiKbinomial => {
                return self.multicast(
                    tree,
                    plan.packets,
                    Scheme::SmartNi(crate::mcast::Discipline::Fpfs),
                );
            }
            PlanScheme::Binomial => {
                return self.multicast(tree, plan.packets, Scheme::Conventional);
            }
            _ => {}
        }
        tree.check_nodes(self.nodes)?;
        let m = crate::ni::message_packets(plan.packets)?;
        let Some(t) = self.ni_timing else {
            return Err(Self::needs_ni("multicasts"));
        };
        let mut sends: Vec<Vec<crate::sim::Worm>> = vec![Vec::new(); tree.len()];
        for w in &plan.worms {
            let v = tree.vertex_of(w.sender).expect("senders are in the tree");
            let worm = self
                .worms
                .build_in(w.sender, &w.spec, &mut self.worm_scratch)?;
            let need = worm.header.len() as u32 + crate::ni::CONTROL_BYTES + 1;
            if need > t.packet {
                return Err(Error::BadPacket(format!(
                    "the {}-flit {} header of the worm from node {} does not fit a {}-flit packet with its {} control bytes and data: \
                     give the network interfaces packets of at least {need} flits (packet_flits, in [ni] of a plan's --config, \
                     [switch.ni] of a run's)",
                    worm.header.len(),
                    worm.kind,
                    w.sender,
                    t.packet,
                    crate::ni::CONTROL_BYTES
                )));
            }
            sends[v].push(worm);
        }
        self.start_group(
            Group {
                id: 0,
                tree,
                scheme: Scheme::Worms,
                sends,
            },
            m,
        )
    }

    fn start_group(&mut self, mut g: Group, m: u8) -> Result<u64> {
        let id = self.mcasts.len() as u64;
        g.id = id;
        let src = g.tree.root();
        let dests: Box<[u32]> = g.tree.nodes()[1..].into();
        // The nodes that send the group's worms (a tree vertex with worms
        // to send) keep a destination set ready for them.
        for (v, sends) in g.sends.iter().enumerate() {
            if !sends.is_empty() {
                self.packets.sends_worms(g.tree.node(v));
            }
        }
        let slot = self.groups.take(g)?;
        let now = self.cycle;
        let ni = self.endpoints[src as usize]
            .ni_mut()
            .expect("checked: NI nodes");
        ni.send(now, m, src, Some((slot, &self.groups.slots[slot as usize])));
        self.mcasts.push(McastStart {
            start: now,
            packets: m,
            dests,
            got: Vec::new(),
        });
        self.wake_now((self.n_sw + src as usize) as u32);
        Ok(id)
    }

    /// Moves the messages hosts have received whole since the last call to
    /// `out`, as (node, delivery), nodes in the order they first received
    /// one. The NIs keep them too ([`NiNode::deliveries`]).
    pub fn take_host_deliveries(&mut self, out: &mut Vec<(u32, HostDelivery)>) {
        self.land_for_reader();
        for x in self.groups.unread.drain(..) {
            self.groups.listed[x as usize] = false;
            if let Some(ni) = self.endpoints[x as usize].ni_mut() {
                out.extend(ni.take_new_deliveries().iter().map(|&d| (x, d)));
            }
        }
    }

    /// Cycles from the first flit of a `flits`-flit packet leaving node `a`
    /// to its tail in node `b`'s memory on an idle network:
    /// `flits + h (H + 2) + 1` for a route through `h` switches (docs/timing.md).
    ///
    /// # Panics
    ///
    /// If `a` or `b` is not a node of the network.
    pub fn idle_latency(&self, a: u32, b: u32, flits: u32) -> u64 {
        let (sa, sb) = (self.routes.node_switch(a), self.routes.node_switch(b));
        let hops = self
            .routes
            .distance(sa, sb, crate::net::Phase::Up)
            .expect("the network is connected");
        let h = self.formats.unicast().flits() as u64;
        flits as u64 + (hops as u64 + 1) * (h + 2) + 1
    }

    /// The timing model's prediction of a multicast of `packets` packets
    /// over `tree` by `scheme` on this idle network, started at cycle 0
    /// ([`crate::ni::predict`]).
    pub fn predict_multicast(
        &self,
        tree: &Tree,
        packets: u32,
        scheme: Scheme,
    ) -> Result<crate::ni::Prediction> {
        let Some(t) = self.ni_timing else {
            return Err(Self::needs_ni("predictions of multicasts"));
        };
        tree.check_nodes(self.nodes)?;
        let net = |a: u32, b: u32, _: usize| self.idle_latency(a, b, t.packet);
        crate::ni::predict(tree, packets, scheme, &t, &net)
    }

    /// When multicast `id` reached each destination's host (after its
    /// `t_hr`), and its latency from the call to the last one.
    pub fn multicast_result(&self, id: u64) -> Option<McastResult> {
        let mc = self.mcasts.get(usize::try_from(id).ok()?)?;
        let start = mc.start;
        let mut deliveries = mc.got.clone();
        deliveries.sort_unstable();
        let done = deliveries.len() == mc.dests.len();
        let latency = done.then(|| deliveries.iter().map(|d| d.1).max().unwrap_or(start) - start);
        Some(McastResult {
            start,
            packets: mc.packets as u32,
            deliveries,
            latency,
        })
    }

    /// Runs until multicast `id` has reached every destination's host, for
    /// at most `max_cycles` more cycles, and returns its result. Cycles in
    /// which nothing can happen (a host paying a long overhead) are
    /// skipped, as [`System::run`] skips them.
    pub fn finish_multicast(&mut self, id: u64, max_cycles: u64) -> Result<McastResult> {
        let start = self.cycle;
        let Some(i) = usize::try_from(id).ok().filter(|&i| i < self.mcasts.len()) else {
            return Err(Error::BadTree(format!("no multicast {id} was started")));
        };
        let total = self.mcasts[i].dests.len();
        loop {
            let got = self.mcasts[i].got.len();
            if got == total {
                return Ok(self.multicast_result(id).expect("started"));
            }
            let spent = self.cycle - start;
            if spent >= max_cycles {
                return Err(Error::Fault {
                    cycle: self.cycle,
                    what: format!(
                        "multicast {id} did not finish within {} ({got} of {total} destinations)",
                        crate::error::counted(max_cycles, "cycles")
                    ),
                });
            }
            self.advance(max_cycles - spent)?;
        }
    }

    /// The statistics of the run so far.
    pub fn report(&self) -> RunReport {
        debug_assert!(!self.left_running, "read while a cycle runs on the helpers");
        let mut t = EndpointStats::default();
        let mut queued = 0u64;
        for e in self.endpoints.iter().filter_map(Terminal::endpoint) {
            let s = e.stats();
            t.window_generated += s.window_generated;
            t.window_generated_flits += s.window_generated_flits;
            t.window_generated_dests += s.window_generated_dests;
            t.window_generated_copy_flits += s.window_generated_copy_flits;
            t.window_delivered += s.window_delivered;
            t.window_latency_sum += s.window_latency_sum;
            t.window_latency_max = t.window_latency_max.max(s.window_latency_max);
            t.window_net_latency_sum += s.window_net_latency_sum;
            t.window_flits += s.window_flits;
            t.refused += s.refused;
            queued += e.queued() as u64;
        }
        let measured = self.cycle - self.window;
        let per_node_cycle = (self.nodes as u64 * measured).max(1) as f64;
        let avg = |sum: u64| {
            if t.window_delivered > 0 {
                sum as f64 / t.window_delivered as f64
            } else {
                0.0
            }
        };
        RunReport {
            cycles: self.cycle,
            warmup: self.window,
            measured_cycles: measured,
            nodes: self.nodes,
            seed: self.cfg.seed,
            cycle_ns: self.cfg.cycle_ns,
            offered_load: t.window_generated_flits as f64 / per_node_cycle,
            offered_copy_load: t.window_generated_copy_flits as f64 / per_node_cycle,
            dests_per_packet: if t.window_generated > 0 {
                t.window_generated_dests as f64 / t.window_generated as f64
            } else {
                0.0
            },
            accepted_throughput: t.window_flits as f64 / per_node_cycle,
            packets_generated: t.window_generated,
            packets_delivered: t.window_delivered,
            flits_delivered: t.window_flits,
            avg_latency: avg(t.window_latency_sum),
            max_latency: t.window_latency_max,
            avg_network_latency: avg(t.window_net_latency_sum),
            packets_in_flight: self.packets.live(),
            packets_queued: queued,
            packets_refused: t.refused,
            flit_hops: self.flit_hops(),
            longest_wait: self.longest_wait.clone(),
        }
    }
}

impl Drop for System {
    fn drop(&mut self) {
        // No helper may still be working on the network as it goes.
        if let Some(p) = &self.par {
            p.crew.settle_quietly();
        }
        if let Some(t) = &mut self.tracing {
            let _ = t.sink.finish_logged(self.cycle, &mut t.state);
        }
    }
}

fn blank_wiring() -> PortWiring {
    let none = ChannelId(u32::MAX);
    PortWiring {
        link_in: none,
        credit_out: none,
        link_out: none,
        credit_in: none,
        receiver_chunks: 0,
        goes_up: false,
        arrived_down: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::IrregularParams;
    use crate::switch::Flit;

    /// A generated network of 8-port switches.
    fn irregular(switches: u32, nodes: u32) -> Network {
        let p = IrregularParams {
            switches,
            ports: 8,
            nodes,
            ..IrregularParams::default()
        };
        Network::new(&p.generate().unwrap()).unwrap()
    }

    /// 256 switches and 1,024 nodes on two threads, every cycle handed
    /// to the ranges (a light cycle would run as one thread's, on the
    /// system's own state, and these tests look at the ranges').
    fn two_ranges() -> System {
        let net = irregular(256, 1024);
        let cfg = SimConfig {
            threads: 2,
            hand_over: crate::rtl::HandOver::Always,
            ..SimConfig::default()
        };
        let s = System::new(&net, &cfg, &Traffic::Idle).unwrap();
        assert_eq!(s.threads(), 2);
        s
    }

    /// What a run of `cycles` cycles sent and delivered, driven as the
    /// harness drives a system: each cycle a few random sources send a
    /// packet or a worm, then the system steps (`batched`: by
    /// [`System::step_batched`], with overlap on), and every 64 cycles the
    /// deliveries are taken. Returns each send's answer, the deliveries,
    /// the report, and how many sends were staged beside a running cycle
    /// and how many had to finish it first (a queue that may be full).
    #[allow(clippy::type_complexity)]
    fn harness_run(
        s: &mut System,
        batched: bool,
        cycles: u64,
    ) -> (
        Vec<Result<PacketId, String>>,
        Vec<Delivery>,
        RunReport,
        u32,
        u32,
    ) {
        use rand::RngExt;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        let nodes = s.num_nodes();
        let (mut sent, mut got) = (Vec::new(), Vec::new());
        let (mut staged, mut landed) = (0, 0);
        for c in 0..cycles {
            // Bursts that fill 2-packet queues, and quiet stretches.
            let k = if c % 400 < 150 {
                rng.random_range(0..8)
            } else {
                0
            };
            for _ in 0..k {
                let src = rng.random_range(0..nodes / 4);
                let dst = rng.random_range(0..nodes);
                let running = s.left_running;
                let before = s.stage.len();
                let r = if rng.random_bool(0.03) {
                    let dests = vec![dst, (dst + 1) % nodes, (dst + 77) % nodes];
                    s.inject_worm(src, &WormSpec::BitString { dests }, 6)
                } else {
                    s.inject(src, dst, 12)
                };
                if running && s.stage.len() > before {
                    staged += 1;
                }
                if running && !s.left_running {
                    landed += 1;
                }
                sent.push(r.map_err(|e| e.to_string()));
            }
            if batched {
                s.step_batched().unwrap();
            } else {
                s.tick().unwrap();
            }
            if c % 64 == 63 {
                s.take_deliveries(&mut got);
            }
        }
        if batched {
            s.settle().unwrap();
        }
        s.take_deliveries(&mut got);
        (sent, got, s.report(), staged, landed)
    }

    /// Batched steps on two threads, with the harness's sends made while
    /// the helpers run the cycle, give one thread's run: the same sequence
    /// numbers, the same refusals of a full source queue (each at the
    /// cycle it came), the same deliveries and the same report.
    #[test]
    fn batched_steps_with_sends_beside_them_give_one_threads_run() {
        let net = irregular(128, 512);
        let cfg = |threads| SimConfig {
            threads,
            hand_over: crate::rtl::HandOver::Always,
            source_queue_packets: 2,
            record_deliveries: true,
            ..SimConfig::default()
        };
        let cycles = 3 * WATCHDOG_PERIOD + 100;
        let mut one = System::new(&net, &cfg(1), &Traffic::Idle).unwrap();
        let want = harness_run(&mut one, false, cycles);
        let mut two = System::new(&net, &cfg(2), &Traffic::Idle).unwrap();
        two.set_overlap(true).unwrap();
        assert!(two.overlap);
        let got = harness_run(&mut two, true, cycles);
        assert_eq!(got.0, want.0, "the sends' answers");
        assert_eq!(got.1, want.1, "the deliveries");
        assert_eq!(got.2, want.2, "the reports");
        let refused = want.0.iter().filter(|r| r.is_err()).count();
        assert!(
            refused > 20 && want.1.len() > 1000,
            "{refused} refused, {} delivered",
            want.1.len()
        );
        // Sends did go beside running cycles, and some had to wait for
        // them: queues that may have been full.
        let (staged, landed) = (got.3, got.4);
        assert!(
            staged > 1000 && landed > 50,
            "{staged} staged, {landed} landed"
        );
    }

    /// The sources cannot queue more than the first mark between two
    /// counts: a large network at a high load is counted more often.
    #[test]
    fn queues_are_counted_before_they_can_pass_the_mark_unseen() {
        let every = |nodes, load| queue_count_every(nodes, &Traffic::uniform(load, 4));
        assert_eq!(every(32, 0.1), 4096);
        assert_eq!(every(1024, 0.9), 71);
        assert_eq!(every(16_384, 0.9), 4);
        assert_eq!(every(4_000_000, 1.0), 1);
        assert_eq!(queue_count_every(1 << 30, &Traffic::Idle), 4096);
        for (nodes, load) in [(1024, 0.9), (16_384, 0.9), (65_536, 0.5), (300, 1.0)] {
            let n = every(nodes, load);
            assert!(n as f64 * nodes as f64 * load <= QUEUE_CHECK_FIRST as f64);
        }
        // A run counts them that often: at its first cycle's end, then
        // every `queue_every` cycles (here at cycles 1, 11 and 21).
        let net = irregular(8, 32);
        let mut s = System::new(&net, &SimConfig::default(), &Traffic::uniform(0.9, 4)).unwrap();
        s.queue_every = 10;
        s.growth = crate::memory::Growth::new(1, u64::MAX, None);
        s.run(25).unwrap();
        assert_eq!(s.queue_count_at, 31);
        // Each count past the mark moved it to twice what it counted.
        assert!(s.growth.mark > 1);
    }

    /// Past saturation the sources' queues grow and the network fills;
    /// each time the packets kept double past the mark, memory must hold
    /// twice them, at the rate the run grew so far, and half as much
    /// again, or the run stops, naming them.
    #[test]
    fn packets_that_would_outgrow_memory_stop_the_run() {
        const MB: u64 = 1 << 20;
        let net = irregular(8, 32);
        let mut s = System::new(&net, &SimConfig::default(), &Traffic::uniform(0.9, 4)).unwrap();
        s.run(3000).unwrap();
        let queued = s.queued();
        let in_flight = s.packets.live();
        assert!(
            queued > 10_000 && in_flight > 100,
            "0.9 flits a node a cycle saturates 8 switches: {queued} queued, {in_flight} in the network"
        );
        let kept = queued + in_flight;
        // Grown by 40 MB: twice the packets take 40 MB more, 60 MB with
        // the margin. With 60 MB the run goes on and looks next at twice.
        s.growth = crate::memory::Growth::new(1000, u64::MAX, Some(100 * MB));
        s.check_queues_against(queued, in_flight, || Some(60 * MB), || Some(140 * MB))
            .unwrap();
        assert_eq!(s.growth.mark, 2 * kept);
        // Below the mark memory is not asked.
        s.check_queues().unwrap();
        assert_eq!(s.growth.mark, 2 * kept);
        // With less: stopped, with the figures.
        s.growth = crate::memory::Growth::new(1000, u64::MAX, Some(100 * MB));
        let e = s
            .check_queues_against(queued, in_flight, || Some(60 * MB - 1), || Some(140 * MB))
            .unwrap_err();
        assert!(
            matches!(
                e,
                Error::QueuesTooLarge { cycle: 3000, packets, in_flight: f, grown, more, available }
                    if packets == queued && f == in_flight && grown == 40 * MB && more == 40 * MB && available == 60 * MB - 1
            ),
            "{e}"
        );
        assert!(e.to_string().starts_with(&format!(
            "cycle 3000: {queued} packets wait at their sources and {in_flight} are in the network, and the run has grown by 41 MB"
        )));
    }

    /// A write one range hands another is taken by the receiving range in
    /// the next cycle: while it waits the network is not quiet, even with
    /// no packet in flight and nothing to evaluate (skipping then would
    /// lose it). By the switches' timing a crossing credit total always
    /// has a packet in flight beside it; this checks the guard that does
    /// not rely on that, with a credit total handed over by hand.
    #[test]
    fn a_write_handed_between_ranges_keeps_the_network_from_skipping() {
        let mut s = two_ranges();
        s.run(10).unwrap();
        assert_eq!(s.quiet_cycles(u64::MAX), u64::MAX, "an idle network");
        let n_sw = s.n_sw as u32;
        // A credit counter a switch of the first range writes and one of
        // the second reads.
        let c = (0..s.ch.credits.len() as u32)
            .map(ChannelId)
            .find(|&c| {
                s.ch.credits.source(c).component < 128
                    && (128..n_sw).contains(&s.ch.credits.sink(c).component)
            })
            .expect("a credit counter between the ranges");
        let list = &mut s.par.as_mut().unwrap().cross[0].0[1];
        list.cycle = 9;
        list.credits.push((c.0, 1));
        assert_eq!(s.quiet_cycles(u64::MAX), 0);
        s.tick().unwrap();
        assert_eq!(s.par.as_ref().unwrap().ranges[1].ch.credits.q(c), 1);
        assert_eq!(s.quiet_cycles(u64::MAX), u64::MAX, "taken");
    }

    /// Cycles moved at random between the ranges' threads and one
    /// thread's evaluation on the system's own state ([`System::bring_here`],
    /// [`System::hand_to_ranges`]), in runs of random length, with packets,
    /// worms, credits, wake-ups and writes handed between ranges in flight
    /// at the moves: the same run as one thread's (deliveries cycle for
    /// cycle, report, links' counts, waveform), untraced and traced, at a
    /// light and a heavy load and with multicast worms.
    #[test]
    fn cycles_moved_between_ranges_and_one_thread_give_one_threads_run() {
        use crate::rtl::trace::MemorySink;
        use rand::{RngExt, SeedableRng};
        let net = irregular(256, 1024);
        for traffic in [
            Traffic::uniform(0.01, 16),
            Traffic::uniform(0.1, 16),
            Traffic::multicast(0.01, 6, 4, Kind::BitString),
        ] {
            for traced in [false, true] {
                let go = |threads: usize| {
                    let cfg = SimConfig {
                        threads,
                        record_deliveries: true,
                        ..SimConfig::default()
                    };
                    let mut s = System::new(&net, &cfg, &traffic).unwrap();
                    let wave = MemorySink::new();
                    if traced {
                        s.attach_tracer(Box::new(wave.clone())).unwrap();
                    }
                    let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
                    let (mut here, mut moves, mut crossing) = (true, 0, 0);
                    for i in 0..2_000 {
                        if i == 1_000 {
                            s.stop_traffic();
                        }
                        if threads == 1 {
                            s.tick().unwrap();
                            continue;
                        }
                        if rng.random_bool(0.1) {
                            here = !here;
                            moves += 1;
                            let last = s.cycle.wrapping_sub(1);
                            let p = s.par.as_ref().unwrap();
                            crossing += (here && p.cross.iter().any(|c| c.pending(last))) as u32;
                        }
                        s.tick_as(Some(!here)).unwrap();
                        assert_eq!(s.par.as_ref().unwrap().here, here);
                    }
                    s.drain(100_000).unwrap();
                    s.check_quiescent().unwrap();
                    s.finish_trace().unwrap();
                    let mut d = Vec::new();
                    s.take_deliveries(&mut d);
                    d.sort_by_key(|d| (d.src, d.seq, d.dst));
                    let out = format!(
                        "{d:?}\n{}\n{:?}\n{}\n{:?}",
                        s.report(),
                        s.link_flits(),
                        s.cycle(),
                        wave.changes()
                    );
                    (out, d.len(), moves, crossing)
                };
                let (one, delivered, _, _) = go(1);
                let (two, _, moves, crossing) = go(2);
                assert!(two == one, "{traffic:?}, traced {traced}: another run");
                assert!(delivered > 250, "{delivered} delivered");
                assert!(moves > 150, "{moves} moves");
                // Moves to one thread's evaluation with writes handed
                // between the ranges still to be taken.
                assert!(crossing > 20, "{crossing} of {moves}");
            }
        }
    }

    /// A switch keeps room for a header other than unicast's only once it
    /// has decoded one, and then as much as that header: sized to the
    /// longest header of the formats from the start, it took a bit-string
    /// header's `nodes / 8` bytes in every switch, which made a network of
    /// 100,000 switches exhaust 24 GB.
    #[test]
    fn a_switch_keeps_room_only_for_the_headers_it_decodes() {
        let net = irregular(16, 64);
        let mut s = System::new(&net, &SimConfig::default(), &Traffic::Idle).unwrap();
        let room = |s: &System| {
            s.switches
                .iter()
                .map(Switch::header_room)
                .collect::<Vec<_>>()
        };
        assert_eq!(room(&s), vec![0; 16]);
        s.inject(0, 63, 20).unwrap();
        s.drain(10_000).unwrap();
        assert_eq!(room(&s), vec![0; 16], "unicast headers are read as a word");
        let spec = crate::link::WormSpec::BitString {
            dests: vec![9, 40, 63],
        };
        s.inject_worm(0, &spec, 4).unwrap();
        s.drain(10_000).unwrap();
        let hdr = s.formats.bitstring_len();
        let r = room(&s);
        assert!(r.iter().all(|&b| b == 0 || b == hdr), "{r:?}, header {hdr}");
        assert!(r.contains(&hdr), "{r:?}");
    }

    /// A range's list of crossing writes is taken in the next cycle only:
    /// after a skip, the list of the cycle before it (of the parity the
    /// next cycle reads) is not taken again.
    #[test]
    fn a_list_of_crossing_writes_is_taken_once() {
        let mut s = two_ranges();
        let n_sw = s.n_sw as u32;
        // A link from a switch of the first range to one of the second.
        let (link, sink) = (0..s.ch.flits.len() as u32)
            .map(ChannelId)
            .map(|c| (c, s.ch.flits.source(c), s.ch.flits.sink(c)))
            .find(|(_, a, b)| a.component < 128 && (128..n_sw).contains(&b.component))
            .map(|(c, _, b)| (c, b))
            .expect("a link between the ranges");
        let list = &mut s.par.as_mut().unwrap().cross[0].0[1];
        list.cycle = 5;
        list.flits.push((link.0, Flit::new(7, 0, 3, 1)));
        // Cycle 8 reads the lists of odd cycles, and takes those of 7.
        s.cycle = 8;
        s.tick().unwrap();
        let at =
            |s: &System| s.switches[sink.component as usize].buffered_flits(sink.port as usize);
        assert_eq!(at(&s), 0, "an old flit taken");
        // The same list as of cycle 9 is taken in cycle 10.
        s.par.as_mut().unwrap().cross[0].0[1].cycle = 9;
        s.cycle = 10;
        let _ = s.tick();
        assert_eq!(at(&s), 1, "the flit not taken");
    }
}

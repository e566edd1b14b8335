//! A direct network as one clocked system: a [`Router`] and a processor per
//! node, registered links between them (1 flit per cycle, 1 cycle), per-flit
//! credits, path-based multicast worms, random traffic, exact delivery
//! bookkeeping, hop checks and the deadlock watchdog (seed 001 sections 2.2,
//! 2.3 and 3).
//!
//! Every grant of an external channel is checked by the system against the
//! routing rules ([`Fabric::check_hop`]) and against the worm's own history:
//! its head must be where the last hop left it, on the shortest way to its
//! current destination, and a consumption channel may only be taken at the
//! destination the list names next. Every copy a processor receives is
//! checked: a destination of the worm, not yet served, every data byte as
//! sent, the header's count of destinations left right.
//!
//! The watchdog looks every 256 cycles for inputs whose worm has not moved
//! for `watchdog` cycles. It then builds the waiting graph: a worm whose head
//! asks for channels all held by other worms waits for those worms. A cycle
//! in it is a deadlock, reported with the channels it goes through: for each
//! worm, the channel it waits for and the channels it holds from there to its
//! own blocked head (seed 001 Fig. 3(b)/(d)).
//!
//! Only components with something to do are evaluated: a router while it
//! holds a worm or a flit, or a flit arrives on one of its inputs; a
//! processor while it sends a worm, or when a flit arrives or its next
//! worm's start-up ends. The others would leave every register as it is.
//! A cycle in which nothing is evaluated, no traffic is drawn and nothing
//! is traced can be skipped ([`DirectSystem::quiet_cycles`]), which is what
//! makes a lightly loaded network, or one whose sources wait out long
//! start-ups, cheap to run.

use super::par::{Job, Parts, Range, evaluate};
use super::processor::{Arrival, Header, InternalPair, Outgoing, Processor};
use super::router::{Hop, Router, RouterPort};
use crate::deadlock::{WaitReport, WaitStep};
use crate::direct::{Fabric, LegalMemo, ListWalk, check_list, check_list_in, format_list};
use crate::direct::{MAX_THREADS, threads_used};
use crate::rtl::HandOver;
use crate::rtl::crew::{COUNT_TO, Crew, CrewJob, Shift};
use crate::rtl::trace::{Hierarchy, TraceState, Traced, WaveSink, in_unit, out_unit};
use crate::rtl::waitfor::WaitGraph;
use crate::rtl::{Bits, ChannelId, PortIter, SeqMap, Sink};
use crate::switch::Channels;
use crate::switch::Cross;
use crate::{Error, Result};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use rustc_hash::FxHashMap;
use serde::Serialize;
use smallvec::SmallVec;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::sync::Arc;

/// How often the watchdog looks.
const WATCHDOG_PERIOD: u64 = 256;

/// Internal channel pairs per node (seed 001 section 2.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PortModel {
    /// One injection and one consumption channel.
    OnePort,
    /// As many as external channels.
    AllPort,
    /// A given number (1 to the number of external channels).
    Ports(u8),
}

impl PortModel {
    fn pairs(self, ext: usize) -> usize {
        match self {
            PortModel::OnePort => 1,
            PortModel::AllPort => ext,
            PortModel::Ports(p) => p as usize,
        }
    }

    /// Parses `one`, `all` or a number.
    pub fn parse(s: &str) -> Result<PortModel> {
        match s {
            "one" | "one-port" => Ok(PortModel::OnePort),
            "all" | "all-port" => Ok(PortModel::AllPort),
            n => n
                .parse::<u8>()
                .ok()
                .filter(|&p| p >= 1)
                .map(PortModel::Ports)
                .ok_or_else(|| Error::Config {
                    field: "ports",
                    value: s.into(),
                    reason: "expected one, all or a number of internal channel pairs".into(),
                }),
        }
    }
}

/// Parameters of a direct-network system.
#[derive(Clone, Debug, PartialEq)]
pub struct DirectConfig {
    /// Internal channels per node.
    pub ports: PortModel,
    /// Flits in every router input buffer (default 2).
    pub buffer_flits: u32,
    /// Cycles an input may hold a worm without progress before the watchdog
    /// looks for a waiting cycle (default 2,000).
    pub watchdog: u64,
    /// Startup latency: cycles between a worm's creation and the earliest
    /// injection of its first flit (default 0).
    pub startup: u64,
    /// Keep every finished worm's route and deliveries (tests, small runs).
    pub keep_worms: bool,
    /// With `keep_worms`, record each worm's route (default true); without,
    /// [`WormInfo::route`] is empty. Every hop is checked either way.
    pub keep_routes: bool,
    /// Seed of the traffic generator.
    pub seed: u64,
    /// Threads that evaluate the routers and processors (1): the routers
    /// are cut into ranges of 64 or more, and the results are the same
    /// for any count, and so is a traced system's waveform.
    pub threads: usize,
    /// On several threads, which cycles are handed to the other threads
    /// ([`HandOver::Busy`]: those that hold enough work; the calling
    /// thread runs the others alone). The results are the same either way.
    pub hand_over: HandOver,
}

impl Default for DirectConfig {
    fn default() -> Self {
        DirectConfig {
            ports: PortModel::OnePort,
            buffer_flits: 2,
            watchdog: 2_000,
            startup: 0,
            keep_worms: true,
            keep_routes: true,
            seed: 1,
            threads: 1,
            hand_over: HandOver::Busy,
        }
    }
}

/// Random multicast traffic: every node starts a multicast with probability
/// `rate` each cycle, to a uniformly drawn number of distinct random
/// destinations, ordered by `order`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DirectTraffic {
    /// Multicasts per node per cycle.
    pub rate: f64,
    /// Fewest destinations.
    pub min_dests: u32,
    /// Most destinations.
    pub max_dests: u32,
    /// Data flits per worm.
    pub payload: u32,
    /// A node with this many worms queued refuses new ones (counted).
    pub queue_cap: usize,
}

/// A copy of a worm received by a destination's processor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Delivery {
    /// The destination.
    pub node: u32,
    /// Cycle its head reached the processor.
    pub head: u64,
    /// Cycle its tail reached the processor.
    pub tail: u64,
}

/// A worm and what became of it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct WormInfo {
    /// Its tag.
    pub tag: u32,
    /// The source.
    pub src: u32,
    /// The destination list, in order.
    pub list: Vec<u32>,
    /// Data flits.
    pub payload: u32,
    /// Cycle it was created.
    pub created: u64,
    /// Cycle its first flit left the processor.
    pub injected: Option<u64>,
    /// The nodes its head went through, source first (empty unless
    /// [`DirectConfig::keep_routes`]).
    pub route: Vec<u32>,
    /// Copies received, in order.
    pub deliveries: Vec<Delivery>,
}

#[derive(Clone, Debug)]
struct WormState {
    info: WormInfo,
    /// Where the head is.
    at: u32,
    /// Port it arrived on there.
    arrived: Option<usize>,
    /// Next list position to reach.
    idx: usize,
    /// A consumption channel may be taken at `at` (a destination reached).
    local_due: bool,
    /// Destinations served.
    served: u32,
    /// The multicast it is one of several worms of (`None`: a multicast
    /// of this worm alone, created with it).
    group: Option<u32>,
}

#[derive(Clone, Copy, Debug)]
struct Group {
    created: u64,
    worms_left: u32,
}

/// Splits a multicast from a source to a set of destinations into the
/// destination lists of its worms (random traffic uses it).
pub type Planner = Arc<dyn Fn(u32, &[u32]) -> Vec<Vec<u32>> + Send + Sync>;

/// Totals of a run. A multicast is one or more worms (TP and SP send
/// several); latencies are counted over the multicasts created at or after
/// [`DirectSystem::measure_from`] (all of them by default).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TrafficStats {
    /// Multicasts created.
    pub created: u64,
    /// Worms created.
    pub worms: u64,
    /// Multicasts refused because the source's queue was full.
    pub refused: u64,
    /// Multicasts whose every destination received its copy.
    pub completed: u64,
    /// Completed multicasts counted in the latencies.
    pub measured: u64,
    /// Copies received.
    pub copies: u64,
    /// Data flits received.
    pub data_flits: u64,
    /// Sum over measured multicasts of (last tail - creation).
    pub latency_sum: u64,
    /// Largest such latency.
    pub latency_max: u64,
}

impl TrafficStats {
    /// Mean latency of measured multicasts (creation to the last tail), or 0.
    pub fn mean_latency(&self) -> f64 {
        if self.measured == 0 {
            0.0
        } else {
            self.latency_sum as f64 / self.measured as f64
        }
    }
}

struct Tracing {
    hier: Hierarchy,
    state: TraceState,
    sink: Box<dyn WaveSink>,
    first: Vec<u32>,
    count: Vec<u32>,
    /// Routers to sample at the end of the cycle: those evaluated, those
    /// whose outgoing link changed at the edge (driven, or back to idle)
    /// and those whose credit input changed. No other router's registers
    /// can have changed.
    routers: Bits,
    /// Per router, the units whose channels changed at the edge (outputs
    /// whose link or credit input changed, inputs that published
    /// credits): with its busy inputs and granted outputs, the units
    /// ([`Traced::sample_units`]) to sample.
    units: Vec<u128>,
    /// Processors to sample: those evaluated (a processor shows no
    /// channel).
    procs: Bits,
    /// Sample every component in every cycle (the tests compare).
    full: bool,
    /// The cycles the sink writes ([`WaveSink::wants`]): outside them
    /// nothing is sampled (but with `full`).
    window: crate::rtl::trace::Window,
    /// The components (routers, then processors) with a signal the sink
    /// writes, a bit each: the others are not sampled (but with `full`).
    wanted: Vec<u64>,
}

/// The ranges of a system evaluated on several threads, and the helper
/// threads (see [`super::par`]).
struct Par {
    crew: Crew<Job>,
    ranges: Vec<Range>,
    cross: Vec<Cross>,
    /// One past each range's last router, apart from the ranges (which
    /// their threads hold while a cycle runs on).
    his: Vec<u32>,
    /// Per range, the worms sent while a step left the range running
    /// ([`DirectSystem::step_batched`]): its processors take them before
    /// the range's next cycle, in the order they were sent.
    stage: Vec<Vec<(u32, Outgoing)>>,
    /// Whether a cycle is handed to the helpers or run here.
    shift: Shift,
    /// The network's state is in the system's own live sets, inboxes and
    /// channels, and its cycles run as one thread's
    /// ([`DirectSystem::eval_all`]): the cycles [`shift`](Self::shift)
    /// keeps on the calling thread. Otherwise it is in the ranges.
    here: bool,
}

impl Par {
    /// Whether the cycle about to run is handed to the helpers
    /// ([`Shift`]), by the routers and processors each range left live at
    /// the end of the last cycle; asked once a cycle.
    fn hand_over(&mut self) -> bool {
        self.shift.hand_over(self.ranges.iter().map(|r| r.work))
    }

    /// The range that holds router (and processor) `x`.
    fn range_of(&self, x: u32) -> usize {
        self.his.partition_point(|&hi| hi <= x)
    }
}

/// Routers and processors of a direct network, ticked together.
pub struct DirectSystem {
    fabric: Arc<dyn Fabric>,
    cfg: DirectConfig,
    ext: usize,
    pairs: usize,
    routers: Vec<Router>,
    procs: Vec<Processor>,
    ch: Channels,
    cycle: u64,
    next_tag: u32,
    worms: SeqMap<u32, WormState>,
    /// Flits of an address in a header (the fabric's, kept at hand).
    addr_flits: u8,
    finished: Vec<WormInfo>,
    /// The emptied buffers of worms done with, for the next worms' lists,
    /// routes and deliveries (so a long run does not allocate per worm).
    spare: Vec<WormInfo>,
    stats: TrafficStats,
    hops: Vec<Hop>,
    arrivals: Vec<Arrival>,
    injected: Vec<(u32, u64)>,
    faults: Vec<String>,
    last_move: u64,
    traffic: Option<DirectTraffic>,
    planner: Planner,
    groups: FxHashMap<u32, Group>,
    next_group: u32,
    startup_free: Vec<u64>,
    measure_from: u64,
    rng: Xoshiro256PlusPlus,
    tracing: Option<Tracing>,
    /// Routers a cycle evaluates: those holding a worm or a flit, and
    /// those a flit arrives at.
    live_routers: Bits,
    /// Per router, the inputs the last clock edge delivered a flit to.
    inbox: Vec<u64>,
    /// Processors a cycle evaluates: those sending a worm, those a flit
    /// arrives at, and those whose queued worm may start.
    live_procs: Bits,
    /// Processors whose next worm waits out its start-up, by the cycle it
    /// may start.
    wakes: BinaryHeap<Reverse<(u64, u32)>>,
    /// The cycle each processor is in `wakes` for (`u64::MAX`: none).
    wake_at: Vec<u64>,
    /// A cycle's faults found by the processors (after the routers', in
    /// `faults`) and processors that went to sleep until a cycle, for
    /// `faults` and `wakes`.
    proc_faults: Vec<String>,
    woke: Vec<(u64, u32)>,
    /// Evaluate and sample every component in every cycle and never skip
    /// one (what the system did before it kept its live sets; the unit
    /// tests compare the two).
    every_cycle: bool,
    /// The unicast lists [`send`](Self::send) has found legal, a bit per
    /// (source, destination) pair: the fabric never changes, so a pair
    /// checked once is legal for good. Kept for networks of at most
    /// [`UNICAST_MEMO_NODES`] nodes (every list is checked in full on
    /// larger ones).
    unicast_legal: LegalMemo,
    /// The room the sends' list checks walk in ([`check_list_in`]).
    walk: ListWalk,
    /// Where [`send_cut`](Self::send_cut) cuts its order, kept between
    /// calls.
    cuts: Vec<(usize, bool)>,
    /// The ranges and threads, when several threads evaluate the routers
    /// and processors: each range keeps its own live sets, inboxes and
    /// copy of the channels, and `live_routers`, `live_procs`, `inbox`
    /// and `ch` (but its wiring, and what a traced run samples) are not
    /// used, except while the cycles run on the calling thread as one
    /// thread's ([`Par::here`]).
    par: Option<Par>,
    /// The header hops [`check_hop`](Self::check_hop) has found legal, a
    /// bit per (router, destination, arrival port, output): as for
    /// `unicast_legal`, a hop checked once is legal for good. Kept while
    /// the bits number at most [`HOP_MEMO_BITS`].
    hop_legal: LegalMemo,
    /// Steps may return while the other ranges still run the cycle
    /// ([`set_overlap`](Self::set_overlap)).
    overlap: bool,
    /// A step returned with the other ranges still running its cycle,
    /// whose end is left to the next step (or to [`settle`](Self::settle)).
    left_running: bool,
    /// A fault found by finishing a cycle for a caller that cannot return
    /// it ([`visit_finished`](Self::visit_finished)): the next step's, or
    /// `settle`'s, to return.
    pending_err: Option<Error>,
}

impl Drop for DirectSystem {
    fn drop(&mut self) {
        // No helper may still be working on the routers as they go.
        if let Some(p) = &self.par {
            p.crew.settle_quietly();
        }
        // A waveform not finished (the run stopped on an error) ends here,
        // so that an FST is readable up to the cycle reached, as the
        // cut-through switch's network ends its own.
        let _ = self.finish_trace_hierarchy();
    }
}

/// Nodes a worm's route has room for from the start.
const ROUTE_ROOM: usize = 16;

/// The largest network whose legal unicast pairs [`DirectSystem::send`]
/// remembers (2 MB of bits at this size).
const UNICAST_MEMO_NODES: u32 = 4096;

/// The most bits the memo of legal header hops takes (512 kB; a 16x16
/// mesh needs 1.3 M bits, a 32x32 mesh 21 M, which is not kept).
const HOP_MEMO_BITS: usize = 1 << 22;

/// Keeps the buffers of `w`, emptied, in `spare` for a next worm.
fn recycle(spare: &mut Vec<WormInfo>, mut w: WormInfo) {
    empty(&mut w);
    spare.push(w);
}

/// Empties the buffers of `w`, keeping their memory for a next worm.
fn empty(w: &mut WormInfo) {
    w.list.clear();
    w.route.clear();
    w.deliveries.clear();
}

/// The number of the question "is the hop out of router `node` by
/// external port `out` toward `target` legal for a worm that arrived on
/// `arrived` (`None`: from the router's processor)?" among the
/// `n * n * (ext + 1) * ext` of a network of `n` nodes with `ext` external
/// ports.
#[inline]
fn hop_question(
    n: usize,
    ext: usize,
    node: u32,
    target: u32,
    arrived: Option<usize>,
    out: usize,
) -> usize {
    ((node as usize * n + target as usize) * (ext + 1) + arrived.unwrap_or(ext)) * ext + out
}

/// Refuses a wormhole router's input buffer of `flits` out of its range
/// (1 to 4,096 flits), naming the field.
pub fn check_buffer_flits(flits: u32) -> Result<()> {
    if !(1..=4096).contains(&flits) {
        return Err(Error::Config {
            field: "buffer_flits",
            value: flits.to_string(),
            reason: "an input buffer holds 1 to 4,096 flits".into(),
        });
    }
    Ok(())
}

impl DirectSystem {
    /// Builds the routers, processors and channels of `fabric`.
    pub fn new(fabric: Arc<dyn Fabric>, cfg: &DirectConfig) -> Result<DirectSystem> {
        let ext = fabric.external_ports();
        let pairs = cfg.ports.pairs(ext);
        if pairs == 0 || pairs > ext.max(1) {
            return Err(Error::Config {
                field: "ports",
                value: pairs.to_string(),
                reason: format!("a node has 1 to {ext} internal channel pairs"),
            });
        }
        if ext + pairs > 64 {
            return Err(Error::Config {
                field: "ports",
                value: (ext + pairs).to_string(),
                reason: "a router has at most 64 ports".into(),
            });
        }
        check_buffer_flits(cfg.buffer_flits)?;
        if fabric.address_flits() as usize * 2 + 1 > super::router::MAX_LATCH {
            return Err(Error::Config {
                field: "nodes",
                value: fabric.nodes().to_string(),
                reason: "addresses longer than 3 flits".into(),
            });
        }
        if !(1..=MAX_THREADS).contains(&cfg.threads) {
            return Err(Error::Config {
                field: "threads",
                value: cfg.threads.to_string(),
                reason: format!("1 to {MAX_THREADS} threads"),
            });
        }
        let n = fabric.nodes() as usize;
        let mut ch = Channels::default();
        let nports = ext + pairs;
        let mut ports = vec![vec![RouterPort::default(); nports]; n];
        let proc_id = |x: usize| (n + x) as u32;
        // External links: node x port p -> neighbour's input `back`.
        for (x, rp) in ports.iter_mut().enumerate() {
            for (p, port) in rp.iter_mut().enumerate().take(ext) {
                if let Some((nb, back)) = fabric.neighbor(x as u32, p) {
                    let link = ch.flits.add(
                        Sink {
                            component: x as u32,
                            port: p as u16,
                        },
                        Sink {
                            component: nb,
                            port: back as u16,
                        },
                    );
                    let credit = ch.credits.add(
                        Sink {
                            component: nb,
                            port: back as u16,
                        },
                        Sink {
                            component: x as u32,
                            port: p as u16,
                        },
                    );
                    port.link_out = Some(link);
                    port.credit_in = Some(credit);
                    port.receiver_slots = cfg.buffer_flits;
                }
            }
        }
        // Inputs: the link and credit the neighbour's output uses.
        for x in 0..n {
            for p in 0..ext {
                if let Some((nb, back)) = fabric.neighbor(x as u32, p) {
                    let out = ports[x][p];
                    let inp = &mut ports[nb as usize][back];
                    inp.link_in = out.link_out;
                    inp.credit_out = out.credit_in;
                }
            }
        }
        let mut pair_wiring: Vec<Vec<InternalPair>> = vec![Vec::new(); n];
        for x in 0..n {
            for j in 0..pairs {
                let p = ext + j;
                let r = Sink {
                    component: x as u32,
                    port: p as u16,
                };
                let q = Sink {
                    component: proc_id(x),
                    port: j as u16,
                };
                let inject = ch.flits.add(q, r);
                let inject_credit = ch.credits.add(r, q);
                let consume = ch.flits.add(r, q);
                let consume_credit = ch.credits.add(q, r);
                let port = &mut ports[x][p];
                port.link_in = Some(inject);
                port.credit_out = Some(inject_credit);
                port.link_out = Some(consume);
                port.credit_in = Some(consume_credit);
                port.receiver_slots = cfg.buffer_flits;
                pair_wiring[x].push(InternalPair {
                    inject,
                    inject_credit,
                    router_slots: cfg.buffer_flits,
                    consume,
                    consume_credit,
                });
            }
        }
        let routers = (0..n)
            .map(|x| Router::new(x as u32, ext, fabric.clone(), &ports[x], cfg.buffer_flits))
            .collect();
        let addr = fabric.address_flits();
        let procs = (0..n)
            .map(|x| Processor::new(x as u32, addr, &pair_wiring[x]))
            .collect();
        let addr_flits = fabric.address_flits();
        let par = Self::ranges(n, cfg.threads, cfg.hand_over, &ch)?;
        Ok(DirectSystem {
            fabric,
            cfg: cfg.clone(),
            ext,
            pairs,
            routers,
            procs,
            ch,
            cycle: 0,
            next_tag: 0,
            worms: SeqMap::new(0),
            addr_flits,
            finished: Vec::new(),
            spare: Vec::new(),
            stats: TrafficStats::default(),
            hops: Vec::new(),
            arrivals: Vec::new(),
            injected: Vec::new(),
            faults: Vec::new(),
            last_move: 0,
            traffic: None,
            planner: Arc::new(|_, dests: &[u32]| {
                let mut l = dests.to_vec();
                l.sort_unstable();
                vec![l]
            }),
            groups: FxHashMap::default(),
            next_group: 0,
            startup_free: vec![0; n],
            measure_from: 0,
            rng: Xoshiro256PlusPlus::seed_from_u64(cfg.seed),
            tracing: None,
            live_routers: Bits::new(n),
            inbox: vec![0; n],
            live_procs: Bits::new(n),
            wakes: BinaryHeap::new(),
            wake_at: vec![u64::MAX; n],
            proc_faults: Vec::new(),
            woke: Vec::new(),
            every_cycle: false,
            unicast_legal: LegalMemo::new(
                n.checked_mul(n),
                UNICAST_MEMO_NODES as usize * UNICAST_MEMO_NODES as usize,
            ),
            hop_legal: LegalMemo::new(
                n.checked_mul(n)
                    .and_then(|x| x.checked_mul((ext + 1) * ext)),
                HOP_MEMO_BITS,
            ),
            walk: ListWalk::default(),
            cuts: Vec::new(),
            par,
            overlap: false,
            left_running: false,
            pending_err: None,
        })
    }

    /// The ranges of `n` routers for `threads` threads (none for one):
    /// whole words of 64 routers each, as even as they go.
    fn ranges(n: usize, threads: usize, hand_over: HandOver, ch: &Channels) -> Result<Option<Par>> {
        let parts = threads_used(n as u32, threads);
        if parts == 1 {
            return Ok(None);
        }
        let words = n.div_ceil(64);
        let ranges: Vec<Range> = (0..parts)
            .map(|k| Range {
                lo: (k * words / parts * 64) as u32,
                hi: ((k + 1) * words / parts * 64).min(n) as u32,
                ch: ch.clone(),
                live_routers: Bits::new(n),
                live_procs: Bits::new(n),
                inbox: vec![0; n],
                hops: Vec::new(),
                arrivals: Vec::new(),
                injected: Vec::new(),
                router_faults: Vec::new(),
                proc_faults: Vec::new(),
                moved: false,
                work: 0,
                wakes: Vec::new(),
                ran_routers: Bits::new(n),
                ran_procs: Bits::new(n),
            })
            .collect();
        let crew = Crew::new(parts - 1, threads, "wormcast-wormhole")?;
        Ok(Some(Par {
            crew,
            his: ranges.iter().map(|r| r.hi).collect(),
            ranges,
            cross: (0..parts).map(|_| Cross::default()).collect(),
            stage: (0..parts).map(|_| Vec::new()).collect(),
            shift: Shift::new(hand_over),
            here: true,
        }))
    }

    /// Threads that evaluate the routers and processors: the count asked
    /// for, or fewer on a network too small to cut into that many ranges
    /// of 64 routers.
    pub fn threads(&self) -> usize {
        self.par.as_ref().map_or(1, |p| p.ranges.len())
    }

    /// The set of live routers and processors that holds router (and
    /// processor) `x`: the system's, or its range's.
    fn live_sets(&mut self, x: u32) -> (&mut Bits, &mut Bits) {
        match &mut self.par {
            Some(p) if !p.here => {
                let k = p.range_of(x);
                let r = &mut p.ranges[k];
                (&mut r.live_routers, &mut r.live_procs)
            }
            _ => (&mut self.live_routers, &mut self.live_procs),
        }
    }

    /// The current cycle.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// The fabric.
    pub fn fabric(&self) -> &Arc<dyn Fabric> {
        &self.fabric
    }

    /// Every flit link with the flits it has carried since cycle 0: the
    /// channels between routers by the paper's names (`c[3->7 d2+]`), and
    /// `IN[x]`/`OUT[x]` with their pair number for the channels between a
    /// processor and its router.
    pub fn link_flits(&self) -> Vec<(String, u64)> {
        self.link_counts()
            .into_iter()
            .enumerate()
            .map(|(i, (carried, _))| (self.link_name(i).expect("a link"), carried))
            .collect()
    }

    /// [`link_flits`](Self::link_flits)'s counts without the names, each
    /// with whether the link joins two routers.
    pub fn link_counts(&self) -> Vec<(u64, bool)> {
        let n = self.fabric.nodes();
        let Some(p) = self.par.as_ref().filter(|p| !p.here) else {
            return self.ch.flits.carried_between(n);
        };
        // On several threads, a link's writer's copy of it counts (the
        // system's own set only follows the copies, when traced).
        let mut counts = p.ranges[0].ch.flits.carried_between(n);
        for r in &p.ranges[1..] {
            for (c, (k, _)) in counts.iter_mut().zip(r.ch.flits.carried_between(n)) {
                c.0 += k;
            }
        }
        counts
    }

    /// The name of flit link `i` (in [`link_flits`](Self::link_flits)'s
    /// order), or `None` past the last.
    pub fn link_name(&self, i: usize) -> Option<String> {
        let f = &self.ch.flits;
        if i >= f.len() {
            return None;
        }
        let n = self.fabric.nodes();
        let ext = self.fabric.external_ports();
        let id = crate::rtl::ChannelId(i as u32);
        let (src, dst) = (f.source(id), f.sink(id));
        Some(if src.component < n && dst.component < n {
            self.fabric.channel_name(src.component, src.port as usize)
        } else if src.component < n {
            format!("OUT[{}] {}", src.component, src.port as usize - ext)
        } else {
            format!("IN[{}] {}", dst.component, dst.port as usize - ext)
        })
    }

    /// The routers.
    pub fn routers(&self) -> &[Router] {
        &self.routers
    }

    /// Totals so far.
    pub fn stats(&self) -> &TrafficStats {
        &self.stats
    }

    /// Worms in flight (created, not every copy received).
    pub fn in_flight(&self) -> usize {
        self.worms.len()
    }

    /// Finished worms, in order of completion (when `keep_worms`).
    pub fn finished(&self) -> &[WormInfo] {
        &self.finished
    }

    /// Takes the finished worms kept so far (when `keep_worms`), leaving
    /// none: a long run's harness reads them as they come. The list keeps
    /// its room for the worms that finish next.
    pub fn drain_finished(&mut self) -> std::vec::Drain<'_, WormInfo> {
        self.land_for_reader();
        self.finished.drain(..)
    }

    /// Shows `f` each finished worm kept so far (when `keep_worms`), in
    /// order of completion, and forgets them: what
    /// [`drain_finished`](Self::drain_finished) gives, but the worms'
    /// buffers are kept for the next worms, so a long run reading its
    /// worms as they come allocates none for them.
    pub fn visit_finished(&mut self, mut f: impl FnMut(&WormInfo)) {
        self.land_for_reader();
        // Emptied where they lie, then the shorter list of records is
        // moved to the end of the longer in one copy (which list the
        // spares are taken from changes nothing but which buffers a next
        // worm reuses).
        for w in self.finished.iter_mut() {
            f(w);
            empty(w);
        }
        if self.spare.len() < self.finished.len() {
            std::mem::swap(&mut self.spare, &mut self.finished);
        }
        self.spare.append(&mut self.finished);
    }

    /// A worm in flight.
    pub fn worm(&self, tag: u32) -> Option<&WormInfo> {
        self.worms.get(tag).map(|w| &w.info)
    }

    /// Queues a multicast worm from `src` along `list` with `payload` data
    /// flits; it is injected after the startup latency, once an injection
    /// channel of `src` is free. The list is checked first: nodes that exist,
    /// none twice, not the source, and legal under the routing function.
    pub fn send(&mut self, src: u32, list: &[u32], payload: u32) -> Result<u32> {
        match *list {
            [dst] => self.check_unicast(src, dst)?,
            _ => check_list_in(self.fabric.as_ref(), src, list, &mut self.walk)?,
        }
        self.send_legal(src, list, payload)
    }

    /// Sends path worms from `src` to the destinations `order` (distinct
    /// nodes other than `src`), visited in that order: the order is cut
    /// into consecutive lists where the next destination would make a
    /// list illegal or where a list holds 255, and each list is sent as
    /// by [`send`](Self::send), its tag handed to `sent`. (The engine's
    /// path multicasts on a hypercube: the natural list, cut.) Each
    /// destination is walked to once, and a list found legal so is not
    /// walked again to be sent.
    pub(crate) fn send_cut(
        &mut self,
        src: u32,
        order: &[u32],
        payload: u32,
        mut sent: impl FnMut(u32),
    ) -> Result<()> {
        debug_assert!(crate::dests::check(self.fabric.nodes(), src, order).is_ok());
        let mut cuts = std::mem::take(&mut self.cuts);
        cuts.clear();
        self.walk
            .cut_legal(self.fabric.as_ref(), src, order, &mut cuts);
        let mut start = 0;
        let mut r = Ok(());
        for &(end, legal) in &cuts {
            let list = &order[start..end];
            debug_assert!(!legal || check_list(self.fabric.as_ref(), src, list).is_ok());
            let tag = if legal {
                self.send_legal(src, list, payload)
            } else {
                self.send(src, list, payload)
            };
            match tag {
                Ok(tag) => sent(tag),
                Err(e) => {
                    r = Err(e);
                    break;
                }
            }
            start = end;
        }
        self.cuts = cuts;
        r
    }

    /// [`send`](Self::send) of a list already found legal from `src`.
    fn send_legal(&mut self, src: u32, list: &[u32], payload: u32) -> Result<u32> {
        if payload == 0 {
            return Err(Error::BadPacket(format!(
                "{}: a worm needs at least one data flit",
                format_list(src, list)
            )));
        }
        let hl = 1 + list.len() as u32 * self.addr_flits as u32;
        if hl + payload > u16::MAX as u32 {
            return Err(Error::BadPacket(format!(
                "{}: {} flits; a worm has at most 65,535",
                format_list(src, list),
                hl + payload
            )));
        }
        let g = self.new_group(1);
        self.enqueue(src, list, payload, None);
        Ok(g)
    }

    /// [`check_list`] of the list `[dst]`, remembered: a pair found legal
    /// is not searched again (the search visits every state the worm can
    /// reach, and costs more than the worm's whole trip through the
    /// routers). A pair that fails is searched every time, for its error.
    /// On a fabric that offers every hop nothing is searched and nothing
    /// remembered: the check is of the two nodes alone.
    fn check_unicast(&mut self, src: u32, dst: u32) -> Result<()> {
        if self.fabric.offers_every_hop() {
            return check_list_in(self.fabric.as_ref(), src, &[dst], &mut self.walk);
        }
        // The routers, one a node (fewer calls through the fabric per
        // message).
        let n = self.routers.len() as u32;
        let pair = (src < n && dst < n).then(|| src as usize * n as usize + dst as usize);
        if pair.is_some_and(|q| self.unicast_legal.knows(q)) {
            return Ok(());
        }
        check_list_in(self.fabric.as_ref(), src, &[dst], &mut self.walk)?;
        if let Some(q) = pair {
            self.unicast_legal.learn(q);
        }
        Ok(())
    }

    /// Queues a multicast sent as several worms from `src`, one per list
    /// (TP, SP); returns the multicast's id. Every list is checked as by
    /// [`send`](Self::send), and no destination may be in two lists.
    pub fn send_multicast(&mut self, src: u32, lists: &[Vec<u32>], payload: u32) -> Result<u32> {
        if lists.is_empty() {
            return Err(Error::BadPacket(format!(
                "a multicast from {src} needs a worm"
            )));
        }
        let mut all: Vec<u32> = Vec::new();
        for l in lists {
            check_list_in(self.fabric.as_ref(), src, l, &mut self.walk)?;
            all.extend_from_slice(l);
        }
        all.sort_unstable();
        if let Some(w) = all.windows(2).find(|w| w[0] == w[1]) {
            return Err(Error::BadPacket(format!(
                "destination {} is in two worms of one multicast",
                w[0]
            )));
        }
        if payload == 0 {
            return Err(Error::BadPacket(
                "a worm needs at least one data flit".into(),
            ));
        }
        let g = self.new_group(lists.len() as u32);
        let group = (lists.len() > 1).then_some(g);
        for l in lists {
            self.enqueue(src, l, payload, group);
        }
        Ok(g)
    }

    /// Numbers a new multicast of `worms` worms. One of several worms is
    /// kept in `groups` until its last worm finishes; one of a single worm
    /// needs nothing kept beside its worm.
    fn new_group(&mut self, worms: u32) -> u32 {
        let g = self.next_group;
        self.next_group = self.next_group.wrapping_add(1);
        if worms > 1 {
            self.groups.insert(
                g,
                Group {
                    created: self.cycle,
                    worms_left: worms,
                },
            );
        }
        self.stats.created += 1;
        g
    }

    /// Sets how random traffic splits a multicast into worms (default: one
    /// worm with the natural list).
    pub fn set_planner(&mut self, p: Planner) {
        self.planner = p;
    }

    /// Counts latencies only of multicasts created at or after `cycle`.
    pub fn measure_from(&mut self, cycle: u64) {
        self.measure_from = cycle;
    }

    /// As [`send`](Self::send), with the route fixed: `path` is the sequence
    /// of nodes the head must take (source first). Every hop must be one the
    /// routing function offers; the routers then choose it (a test hook for
    /// reproducing the figures' situations).
    pub fn send_pinned(
        &mut self,
        src: u32,
        list: &[u32],
        payload: u32,
        path: &[u32],
    ) -> Result<u32> {
        // It pins the routers: a cycle left running is finished first.
        self.settle()?;
        check_list(self.fabric.as_ref(), src, list)?;
        let bad = |why: String| {
            Error::BadPacket(format!(
                "{} pinned to {:?}: {why}",
                format_list(src, list),
                path
            ))
        };
        if path.first() != Some(&src) {
            return Err(bad("the path must start at the source".into()));
        }
        let mut hops: Vec<(u32, u8)> = Vec::new();
        let mut idx = 0;
        let mut arrived = None;
        for w in path.windows(2) {
            let (a, b) = (w[0], w[1]);
            while idx < list.len() && a == list[idx] {
                idx += 1;
            }
            if idx == list.len() {
                return Err(bad(format!(
                    "it goes on after the last destination, at {a}"
                )));
            }
            let c = self.fabric.candidates(a, arrived, list[idx]);
            let Some((p, back)) = PortIter(c).find_map(|p| {
                self.fabric
                    .neighbor(a, p)
                    .filter(|(nb, _)| *nb == b)
                    .map(|(_, back)| (p, back))
            }) else {
                return Err(bad(format!(
                    "{a} -> {b} is not a legal channel toward {}",
                    list[idx]
                )));
            };
            hops.push((a, p as u8));
            arrived = Some(back);
        }
        let last = *path.last().expect("nonempty");
        while idx < list.len() && last == list[idx] {
            idx += 1;
        }
        if idx != list.len() {
            return Err(bad(format!(
                "it ends at {last} before reaching {}",
                list[idx]
            )));
        }
        self.new_group(1);
        let tag = self.enqueue(src, list, payload, None);
        let mut per_node: FxHashMap<u32, VecDeque<u8>> = FxHashMap::default();
        for (node, p) in hops {
            per_node.entry(node).or_default().push_back(p);
        }
        for (node, q) in per_node {
            self.routers[node as usize].pin(tag, q);
        }
        Ok(tag)
    }

    fn enqueue(&mut self, src: u32, list: &[u32], payload: u32, group: Option<u32>) -> u32 {
        let tag = self.next_tag;
        self.next_tag = self.next_tag.wrapping_add(1);
        let w = self.addr_flits;
        let mut header = Header::with_capacity(1 + list.len() * w as usize);
        header.push(list.len() as u8);
        for &d in list {
            for b in (0..w).rev() {
                header.push((d >> (8 * b)) as u8);
            }
        }
        // The startup latency is software at the source: one worm at a time.
        let ready = self
            .cycle
            .max(self.startup_free[src as usize])
            .saturating_add(self.cfg.startup);
        self.startup_free[src as usize] = ready;
        // A worm still in its startup is progress, not a stall, until it is
        // ready.
        self.last_move = self.last_move.max(ready);
        let out = Outgoing {
            tag,
            header,
            payload,
            ready,
        };
        // A range still running the last cycle takes the worm before its
        // next one (the calling thread's own range, the first, is done).
        let running = match &self.par {
            Some(p) if self.left_running => p.range_of(src),
            _ => 0,
        };
        if let (Some(p), 1..) = (&mut self.par, running) {
            p.stage[running].push((src, out));
        } else {
            self.procs[src as usize].queue.push_back(out);
            // The processor looks at its queue in its next evaluation, and
            // sleeps until the worm's start-up ends if it must.
            self.live_sets(src).1.insert(src);
        }
        self.worms.insert(
            tag,
            WormState {
                info: {
                    // The buffers of a worm done with, emptied, if any.
                    let mut info = self.spare.pop().unwrap_or_default();
                    info.tag = tag;
                    info.src = src;
                    info.list.extend_from_slice(list);
                    info.payload = payload;
                    info.created = self.cycle;
                    info.injected = None;
                    if self.cfg.keep_routes {
                        // Room for the hops of most worms: the route grows
                        // as the head moves, one node a hop.
                        info.route.reserve(ROUTE_ROOM);
                        info.route.push(src);
                    }
                    info
                },
                at: src,
                arrived: None,
                idx: 0,
                local_due: false,
                served: 0,
                group,
            },
        );
        self.stats.worms += 1;
        tag
    }

    /// Starts (or replaces) random multicast traffic with natural lists.
    pub fn set_traffic(&mut self, t: DirectTraffic) -> Result<()> {
        let n = self.fabric.nodes();
        if !(t.rate >= 0.0 && t.rate <= 1.0) {
            return Err(Error::Config {
                field: "rate",
                value: crate::error::show_number(t.rate),
                reason: "a rate per node per cycle is between 0 and 1".into(),
            });
        }
        if t.min_dests == 0 || t.min_dests > t.max_dests || t.max_dests >= n || t.max_dests > 255 {
            return Err(Error::Config {
                field: "dests",
                value: format!("{}..={}", t.min_dests, t.max_dests),
                reason: format!("1 to {} destinations, fewest first", (n - 1).min(255)),
            });
        }
        if t.payload == 0 {
            return Err(Error::Config {
                field: "payload",
                value: "0".into(),
                reason: "a worm needs at least one data flit".into(),
            });
        }
        self.traffic = Some(t);
        Ok(())
    }

    /// Stops generating traffic (worms in flight go on).
    pub fn stop_traffic(&mut self) {
        self.traffic = None;
    }

    fn generate(&mut self, t: DirectTraffic) {
        let n = self.fabric.nodes();
        for src in 0..n {
            if !self.rng.random_bool(t.rate) {
                continue;
            }
            if self.procs[src as usize].backlog() >= t.queue_cap {
                self.stats.refused += 1;
                continue;
            }
            let k = self.rng.random_range(t.min_dests..=t.max_dests);
            let mut set = Vec::with_capacity(k as usize);
            while set.len() < k as usize {
                let d = self.rng.random_range(0..n);
                if d != src && !set.contains(&d) {
                    set.push(d);
                }
            }
            let lists = (self.planner)(src, &set);
            let g = self.new_group(lists.len() as u32);
            let group = (lists.len() > 1).then_some(g);
            for l in &lists {
                self.enqueue(src, l, t.payload, group);
            }
        }
    }

    /// Runs `cycles` cycles. Stops with an error at the first model fault or
    /// deadlock.
    pub fn run(&mut self, cycles: u64) -> Result<()> {
        let end = self.cycle.saturating_add(cycles);
        while self.cycle < end {
            self.advance(end - self.cycle)?;
        }
        Ok(())
    }

    /// One step, or as many quiet cycles as [`quiet_cycles`](Self::quiet_cycles)
    /// allows up to `horizon` (at least 1) in one go.
    fn advance(&mut self, horizon: u64) -> Result<()> {
        match self.quiet_cycles(horizon) {
            q if q > 1 => self.skip(q),
            _ => self.step(),
        }
    }

    /// Runs until every worm has been delivered everywhere (or `limit`
    /// cycles pass: an error). Returns the cycle it ended at.
    pub fn run_until_delivered(&mut self, limit: u64) -> Result<u64> {
        let end = self.cycle + limit;
        while !self.worms.is_empty() {
            if self.cycle >= end {
                return Err(Error::BadPacket(format!(
                    "{} still in flight after {}",
                    crate::error::counted(self.worms.len() as u64, "worms"),
                    crate::error::counted(limit, "cycles")
                )));
            }
            self.advance(end - self.cycle)?;
        }
        Ok(self.cycle)
    }

    /// One clock cycle (a cycle a batched step left running is finished
    /// first).
    pub fn step(&mut self) -> Result<()> {
        self.settle()?;
        self.step_sync()
    }

    /// One clock cycle, every range run and waited for.
    fn step_sync(&mut self) -> Result<()> {
        self.step_on(None)
    }

    /// [`step_sync`](Self::step_sync), with the cycle handed to the
    /// helpers or not as `shared` says (`None`: as [`Par::hand_over`]
    /// says).
    fn step_on(&mut self, shared: Option<bool>) -> Result<()> {
        if let Some(t) = self.traffic {
            self.generate(t);
        }
        self.wake();
        if self.every_cycle {
            for x in 0..self.routers.len() as u32 {
                let (routers, procs) = self.live_sets(x);
                routers.insert(x);
                procs.insert(x);
            }
        }
        let moved = if self.par.is_some() {
            self.eval_ranges(shared)
        } else {
            self.eval_all()
        };
        if moved {
            self.last_move = self.last_move.max(self.cycle);
        }
        self.close(self.cycle)?;
        self.cycle += 1;
        if self.tracing.is_some() {
            self.trace_cycle()?;
        }
        self.look()
    }

    /// The processors whose start-up ends by the cycle the clock reads
    /// become live.
    fn wake(&mut self) {
        let cycle = self.cycle;
        while let Some(&Reverse((t, p))) = self.wakes.peek()
            && t <= cycle
        {
            self.wakes.pop();
            if self.wake_at[p as usize] == t {
                self.wake_at[p as usize] = u64::MAX;
                self.live_sets(p).1.insert(p);
            }
        }
    }

    /// What cycle `c` produced, checked: the worms started, the hops and
    /// the copies received; the cycle's first fault is an error.
    fn close(&mut self, c: u64) -> Result<()> {
        self.account();
        match self.faults.first() {
            Some(t) => Err(Error::Fault {
                cycle: c,
                what: t.clone(),
            }),
            None => Ok(()),
        }
    }

    /// The watchdog's look, when the clock has just reached a multiple of
    /// its period with worms out.
    fn look(&mut self) -> Result<()> {
        if self.cycle.is_multiple_of(WATCHDOG_PERIOD) && !self.worms.is_empty() {
            self.watchdog()?;
        }
        Ok(())
    }

    /// [`step`](Self::step), but on several threads with
    /// [`set_overlap`](Self::set_overlap) on (and no tracer, no random
    /// traffic of the system's own and no evaluation of every component),
    /// the step hands its cycle to the other ranges' threads, runs the
    /// calling thread's own range and returns with the others still
    /// running. The next step waits for them and takes what they produced;
    /// it hands its own cycle over before it checks the last cycle's hops
    /// and copies received, unless a range found a fault, which ends the
    /// run first. So the caller's work between two cycles (its sends, and
    /// those checks) runs beside the other ranges instead of before them.
    /// A step after which the watchdog looks (every [`WATCHDOG_PERIOD`]
    /// cycles), or that leaves the calling thread's range with nothing to
    /// do (so that a quiet network can be skipped ahead), finishes its
    /// cycle before it returns.
    ///
    /// Between such steps only [`send`](Self::send) and
    /// [`send_multicast`](Self::send_multicast) (a worm for a running
    /// range waits in that range's list, which its processors take before
    /// their next cycle), [`quiet_cycles`](Self::quiet_cycles) (0),
    /// [`visit_finished`](Self::visit_finished) and
    /// [`settle`](Self::settle) (which finish the cycle first) may be
    /// used. A fault or a deadlock is the same, found at the same cycle, as
    /// on one thread; after it the system is not to be stepped again.
    pub(crate) fn step_batched(&mut self) -> Result<()> {
        if let Some(e) = self.pending_err.take() {
            return Err(e);
        }
        if !self.overlap
            || self.par.is_none()
            || self.tracing.is_some()
            || self.traffic.is_some()
            || self.every_cycle
        {
            self.land()?;
            return self.step_sync();
        }
        // The last cycle's ranges: a fault among them now; the rest of what
        // they produced once this cycle is handed over. (A step that leaves
        // its cycle running never ends where the watchdog looks.)
        let deferred = self.left_running && {
            self.gather();
            if self.faults.is_empty() {
                true
            } else {
                self.close(self.cycle - 1)?;
                false
            }
        };
        self.unstage();
        self.wake();
        if !self.par.as_mut().expect("ranges").hand_over() {
            // Too little to hand over: the calling thread runs the cycle,
            // as one thread's step, and finishes it.
            if deferred {
                self.close(self.cycle - 1)?;
            }
            return self.step_on(Some(false));
        }
        self.hand_to_ranges();
        let jobs = self.jobs();
        let crew = &mut self.par.as_mut().expect("ranges").crew;
        crew.start(&jobs);
        // Waits for the helpers if anything below panics.
        let running = crew.pending();
        self.left_running = true;
        let c = self.cycle;
        self.cycle += 1;
        if deferred && let Err(e) = self.close(c - 1) {
            drop(running);
            self.par.as_mut().expect("ranges").crew.wait();
            self.left_running = false;
            return Err(e);
        }
        // SAFETY: the first range is this thread's alone for the cycle,
        // and the pointers are fresh (nothing moved the vectors since
        // `jobs`).
        unsafe { jobs[0].run() };
        std::mem::forget(running);
        // SAFETY: the first range is this thread's, and its job is done.
        let mine = unsafe { &*self.par.as_ref().expect("ranges").ranges.as_ptr() };
        if self.cycle.is_multiple_of(WATCHDOG_PERIOD)
            || (mine.live_routers.is_empty() && mine.live_procs.is_empty())
        {
            // The watchdog looks before the caller sends anything more, as
            // after one thread's step; and with nothing left to do in this
            // range, the network may be quiet, which only a finished cycle
            // can tell (`quiet_cycles`).
            return self.land();
        }
        Ok(())
    }

    /// Runs the ranges of the next steps beside the calling thread's work
    /// between cycles (see [`step_batched`](Self::step_batched)): on for
    /// the one engine's harness, which reads the system only as a batched
    /// step allows.
    pub(crate) fn set_overlap(&mut self, on: bool) {
        self.overlap = on;
    }

    /// Finishes a cycle a step left running ([`step_batched`](Self::step_batched)),
    /// and returns a fault found by finishing one earlier: after it the
    /// system reads as one thread's step leaves it. Nothing to do after
    /// [`step`](Self::step).
    pub(crate) fn settle(&mut self) -> Result<()> {
        if let Some(e) = self.pending_err.take() {
            return Err(e);
        }
        self.land()
    }

    /// Waits for the ranges of the cycle a step left running, and finishes
    /// that cycle as [`step`](Self::step) would have.
    fn land(&mut self) -> Result<()> {
        if !self.left_running {
            return Ok(());
        }
        self.gather();
        self.close(self.cycle - 1)?;
        self.look()?;
        self.unstage();
        Ok(())
    }

    /// [`land`](Self::land) for a reader that cannot return a fault: one
    /// found is the next step's (or `settle`'s) to return.
    fn land_for_reader(&mut self) {
        if let Err(e) = self.land() {
            self.pending_err.get_or_insert(e);
        }
    }

    /// Waits for the ranges of the cycle a step left running and takes
    /// their lists, as [`eval_ranges`](Self::eval_ranges) does.
    fn gather(&mut self) {
        self.par.as_mut().expect("ranges").crew.wait();
        self.left_running = false;
        if self.collect() {
            self.last_move = self.last_move.max(self.cycle - 1);
        }
    }

    /// Hands the worms sent while the ranges ran to their processors.
    fn unstage(&mut self) {
        let Some(p) = &mut self.par else {
            return;
        };
        for (r, stage) in p.ranges.iter_mut().zip(&mut p.stage) {
            for (x, w) in stage.drain(..) {
                self.procs[x as usize].queue.push_back(w);
                r.live_procs.insert(x);
            }
        }
    }

    /// The ranges' jobs of the cycle the clock reads.
    fn jobs(&mut self) -> SmallVec<[Job; 4]> {
        let n = self.routers.len() as u32;
        let (cycle, routers, procs, wake_at) = (
            self.cycle,
            self.routers.as_mut_ptr(),
            self.procs.as_mut_ptr(),
            self.wake_at.as_mut_ptr(),
        );
        let traced = self.tracing.is_some();
        let par = self.par.as_mut().expect("ranges");
        let (ranges, cross, n_ranges) = (
            par.ranges.as_mut_ptr(),
            par.cross.as_mut_ptr(),
            par.ranges.len(),
        );
        (0..n_ranges)
            .map(|k| Job {
                cycle,
                n,
                routers,
                procs,
                wake_at,
                ranges,
                cross,
                n_ranges,
                k,
                traced,
            })
            .collect()
    }

    /// Evaluates the live routers and processors on the ranges' threads
    /// and takes what they produced in range order, or, for a cycle kept
    /// on the calling thread, as one thread does; true when a flit moved.
    /// `shared`: the cycle is handed to the helpers (`None`: if
    /// [`Par::hand_over`] says so).
    fn eval_ranges(&mut self, shared: Option<bool>) -> bool {
        let par = self.par.as_mut().expect("ranges");
        if !shared.unwrap_or_else(|| par.hand_over()) {
            self.bring_here();
            let moved = self.eval_all();
            // What each range would have left live, for the next cycles'
            // choice (every few cycles: `Shift::count_due`).
            let p = self.par.as_mut().expect("ranges");
            if !p.shift.count_due() {
                return moved;
            }
            for r in &mut p.ranges {
                r.work = self.live_routers.count_in(r.words(), COUNT_TO)
                    + self.live_procs.count_in(r.words(), COUNT_TO);
            }
            return moved;
        }
        self.hand_to_ranges();
        let jobs = self.jobs();
        self.par.as_mut().expect("ranges").crew.run(&jobs);
        self.collect()
    }

    /// Brings the network's state from the ranges into the system's own
    /// live sets, inboxes and channels, for cycles run as one thread's
    /// (nothing to do when it is there). Between cycles: the writes the
    /// ranges' last edges handed to other ranges are put into their
    /// readers' copies first (and their readers woken), as the readers'
    /// next cycle would, and each channel is then taken from its reader's
    /// copy, with what every copy counted it carried.
    fn bring_here(&mut self) {
        let n = self.routers.len() as u32;
        let cycle = self.cycle;
        let p = self.par.as_mut().expect("ranges");
        if p.here {
            return;
        }
        debug_assert!(!self.left_running, "a cycle left running");
        let (cross, n_ranges) = (p.cross.as_ptr(), p.ranges.len());
        for (k, me) in p.ranges.iter_mut().enumerate() {
            // SAFETY: no helper runs (the last cycle was waited for), and
            // the lists are only read.
            unsafe { me.take_crossings(cross, n_ranges, k, cycle, n) };
        }
        {
            let p = &*p;
            let copies: SmallVec<[&Channels; 4]> = p.ranges.iter().map(|r| &r.ch).collect();
            // A processor goes with the router of its number.
            self.ch
                .gather_from(&copies, |s| p.range_of(s.component % n));
        }
        for r in &mut p.ranges {
            let words = r.words();
            self.live_routers
                .take_words(&mut r.live_routers, words.clone());
            self.live_procs.take_words(&mut r.live_procs, words);
            for x in r.lo as usize..r.hi as usize {
                self.inbox[x] = std::mem::take(&mut r.inbox[x]);
            }
        }
        p.here = true;
    }

    /// Hands the network's state from the system's own live sets, inboxes
    /// and channels to the ranges, for cycles run on their threads
    /// (nothing to do when it is there): each range's copy of the channels
    /// shows them all, and counts as carried what its components drive.
    fn hand_to_ranges(&mut self) {
        let n = self.routers.len() as u32;
        let p = self.par.as_mut().expect("ranges");
        if !p.here {
            return;
        }
        for r in &mut p.ranges {
            let (lo, hi) = (r.lo, r.hi);
            r.ch.split_from(&self.ch, |s| super::par::owns(lo, hi, n, s.component));
            let words = r.words();
            r.live_routers
                .take_words(&mut self.live_routers, words.clone());
            r.live_procs.take_words(&mut self.live_procs, words);
            for x in lo as usize..hi as usize {
                r.inbox[x] = std::mem::take(&mut self.inbox[x]);
            }
        }
        p.here = false;
    }

    /// Takes what the ranges produced in their last cycle, in range order;
    /// true when a flit moved.
    fn collect(&mut self) -> bool {
        let par = self.par.as_mut().expect("ranges");
        // One thread makes the routers' lists in router order, then the
        // processors' in processor order.
        let mut moved = false;
        for r in &mut par.ranges {
            self.hops.append(&mut r.hops);
            self.faults.append(&mut r.router_faults);
            moved |= r.moved;
        }
        for r in &mut par.ranges {
            self.arrivals.append(&mut r.arrivals);
            self.injected.append(&mut r.injected);
            self.faults.append(&mut r.proc_faults);
            for (t, x) in r.wakes.drain(..) {
                self.wakes.push(Reverse((t, x)));
            }
        }
        if let Some(t) = &mut self.tracing {
            // The tracer samples one set of channels, as one thread's
            // edge leaves it, and the components the ranges ran.
            let copies: SmallVec<[&Channels; 4]> = par.ranges.iter().map(|r| &r.ch).collect();
            self.ch.follow(&copies);
            for r in &par.ranges {
                t.routers.union_with(&r.ran_routers);
                t.procs.union_with(&r.ran_procs);
            }
        }
        moved
    }

    /// Evaluates the live routers and processors and clocks the channels,
    /// on this thread; true when a flit moved.
    fn eval_all(&mut self) -> bool {
        if let Some(t) = &mut self.tracing {
            // The processors to sample are those live as they are
            // evaluated: the routers' evaluation leaves their set as it is.
            t.routers.union_with(&self.live_routers);
            t.procs.union_with(&self.live_procs);
        }
        let moved = evaluate::<false>(Parts {
            cycle: self.cycle,
            n: self.routers.len() as u32,
            lo: 0,
            routers: &mut self.routers,
            procs: &mut self.procs,
            wake_at: &mut self.wake_at,
            ch: &mut self.ch,
            live_routers: &mut self.live_routers,
            live_procs: &mut self.live_procs,
            inbox: &mut self.inbox,
            hops: &mut self.hops,
            arrivals: &mut self.arrivals,
            injected: &mut self.injected,
            router_faults: &mut self.faults,
            proc_faults: &mut self.proc_faults,
            wakes: &mut self.woke,
            cross: None,
        });
        self.faults.append(&mut self.proc_faults);
        for (t, x) in self.woke.drain(..) {
            self.wakes.push(Reverse((t, x)));
        }
        moved
    }

    /// Samples what the step into the current cycle may have changed.
    fn trace_cycle(&mut self) -> Result<()> {
        let n = self.routers.len() as u32;
        if let Some(t) = &mut self.tracing {
            // A router shows its outgoing links and the credits its
            // receivers returned; a processor shows neither. Components
            // are numbered routers first, then processors.
            for &c in self.ch.flits.changed() {
                let src = self.ch.flits.source(ChannelId(c));
                if src.component < n {
                    t.routers.insert(src.component);
                    t.units[src.component as usize] |= out_unit(src.port);
                }
            }
            // A credit channel runs from a router's input (or a
            // processor) to the output (or processor) that sends into it.
            for &c in self.ch.credits.changed() {
                let id = ChannelId(c);
                let (source, sink) = (self.ch.credits.source(id), self.ch.credits.sink(id));
                if sink.component < n {
                    t.routers.insert(sink.component);
                    t.units[sink.component as usize] |= out_unit(sink.port);
                }
                if source.component < n {
                    t.units[source.component as usize] |= in_unit(source.port);
                }
            }
            let c = self.cycle;
            // The window's first cycle after cycles left unsampled: every
            // unit of every component the sink writes, so that it gets
            // every change since its first values.
            let whole = t.full || c == t.window.from;
            if !(t.full || t.window.holds(c)) {
                // Outside the sink's window: nothing is sampled, and the
                // sink is not called.
                t.routers.clear();
                t.procs.clear();
                return Ok(());
            }
            if whole {
                for x in 0..n {
                    t.routers.insert(x);
                    t.procs.insert(x);
                }
            }
            let n = n as usize;
            for x in t.routers.iter() {
                let x = x as usize;
                if !t.full && t.wanted[x >> 6] >> (x & 63) & 1 == 0 {
                    continue;
                }
                let r = &self.routers[x];
                // The units this cycle can have changed: the inputs busy
                // now (an input given a flit holds it; one left idle
                // published a credit, marked above) and the outputs
                // granted now, with those whose channels changed. An
                // output changes only by a grant or by sending a flit (a
                // credit taken, the owner released with the tail), and a
                // flit sent changes its link at the edge. A router not
                // evaluated holds nothing.
                let units = r.busy_inputs() as u128
                    | (r.owned_outputs() as u128) << 64
                    | std::mem::take(&mut t.units[x]);
                let units = if whole { u128::MAX } else { units };
                let mut s = t.state.sampler(t.first[x], t.count[x]);
                r.sample_units(&self.ch, units, &mut s);
                s.finish();
            }
            for x in t.procs.iter() {
                let x = x as usize;
                let c = n + x;
                if !t.full && t.wanted[c >> 6] >> (c & 63) & 1 == 0 {
                    continue;
                }
                let mut s = t.state.sampler(t.first[n + x], t.count[n + x]);
                self.procs[x].sample(&self.ch, &mut s);
                s.finish();
            }
            t.routers.clear();
            t.procs.clear();
            t.sink.cycle(self.cycle, &t.state, t.state.changed())?;
            t.state.clear_changes();
        }
        Ok(())
    }

    /// Cycles from now, up to `horizon`, in which stepping would change
    /// nothing but the clock: no router or processor has anything to do
    /// before a processor's next worm ends its start-up, no random traffic
    /// is drawn (its draws are made every cycle), no cycle a waveform
    /// samples is passed
    /// ([`Window::skippable`](crate::rtl::trace::Window::skippable)), and
    /// the watchdog's next look is not passed. 0 while anything is live.
    pub fn quiet_cycles(&self, horizon: u64) -> u64 {
        // A traced network skips only cycles its waveform leaves unsampled.
        let horizon = match &self.tracing {
            None => horizon,
            Some(t) => horizon.min(t.window.skippable(self.cycle)),
        };
        if horizon == 0
            || self.left_running
            || self.every_cycle
            || self.traffic.is_some()
            || !self.faults.is_empty()
            || !self.live_routers.is_empty()
            || !self.live_procs.is_empty()
        {
            return 0;
        }
        if let Some(p) = &self.par {
            // A range's live sets, or a flit or credit bound for another
            // range that takes it in the next step.
            let last = self.cycle.wrapping_sub(1);
            if p.ranges
                .iter()
                .any(|r| !r.live_routers.is_empty() || !r.live_procs.is_empty())
                || p.cross.iter().any(|c| c.pending(last))
            {
                return 0;
            }
        }
        let mut q = horizon;
        if let Some(&Reverse((t, _))) = self.wakes.peek() {
            q = q.min(t.saturating_sub(self.cycle));
        }
        if !self.worms.is_empty() {
            // The watchdog looks after the step that reaches a multiple of
            // its period: a skip ends there, and looks as the step would.
            q = q.min(WATCHDOG_PERIOD - self.cycle % WATCHDOG_PERIOD);
        }
        q
    }

    /// Advances the clock by `cycles` cycles in which nothing can happen
    /// (at most [`quiet_cycles`](Self::quiet_cycles)): what as many steps
    /// would do, in one.
    pub fn skip(&mut self, cycles: u64) -> Result<()> {
        debug_assert!(
            cycles <= self.quiet_cycles(cycles),
            "skipping {cycles} cycles of a live network"
        );
        debug_assert!(
            self.routers.iter().all(Router::is_idle),
            "a router holds a worm while the network is quiet"
        );
        self.cycle += cycles;
        if self.cycle.is_multiple_of(WATCHDOG_PERIOD) && !self.worms.is_empty() {
            self.watchdog()?;
        }
        Ok(())
    }

    fn account(&mut self) {
        for (tag, cycle) in self.injected.drain(..) {
            if let Some(w) = self.worms.get_mut(tag) {
                w.info.injected = Some(cycle);
            }
        }
        // The lists are taken and given back, so that their room is kept
        // from cycle to cycle.
        let mut hops = std::mem::take(&mut self.hops);
        for h in hops.drain(..) {
            self.check_hop(h);
        }
        self.hops = hops;
        let mut arrivals = std::mem::take(&mut self.arrivals);
        for a in arrivals.drain(..) {
            self.arrive(a);
        }
        self.arrivals = arrivals;
    }

    fn check_hop(&mut self, h: Hop) {
        let ext = self.ext;
        let Some(w) = self.worms.get_mut(h.tag) else {
            self.faults.push(format!(
                "router {}: a hop of unknown worm {}",
                h.node, h.tag
            ));
            return;
        };
        let arrived = h.arrived.map(|p| p as usize);
        if w.at != h.node || w.arrived != arrived {
            self.faults.push(format!(
                "worm {}: a hop at router {} while its head is at {}",
                h.tag, h.node, w.at
            ));
            return;
        }
        if (h.out as usize) >= ext {
            if !w.local_due {
                self.faults.push(format!(
                    "worm {}: a copy taken at {}, which is not its next destination",
                    h.tag, h.node
                ));
            }
            w.local_due = false;
            return;
        }
        if w.local_due {
            self.faults.push(format!(
                "worm {}: left destination {} before reserving its consumption channel",
                h.tag, h.node
            ));
        }
        let target = w.info.list[w.idx];
        // A destination that does not exist has no question.
        let n = self.routers.len();
        let question = ((target as usize) < n)
            .then(|| hop_question(n, ext, h.node, target, arrived, h.out as usize));
        if !question.is_some_and(|q| self.hop_legal.knows(q)) {
            if let Err(why) = self
                .fabric
                .check_hop(h.node, arrived, h.out as usize, target)
            {
                self.faults.push(format!(
                    "worm {} {}: illegal hop at router {}: {why}",
                    h.tag,
                    format_list(w.info.src, &w.info.list),
                    h.node
                ));
                return;
            }
            if let Some(q) = question {
                self.hop_legal.learn(q);
            }
        }
        // The granted output's link leads to the next router's input.
        let next = self.ch.flits.sink(h.link);
        let nb = next.component;
        w.at = nb;
        w.arrived = Some(next.port as usize);
        if self.cfg.keep_worms && self.cfg.keep_routes {
            w.info.route.push(nb);
        }
        if nb == target {
            w.idx += 1;
            w.local_due = true;
        }
    }

    fn arrive(&mut self, a: Arrival) {
        let Some(w) = self.worms.get_mut(a.tag) else {
            self.faults.push(format!(
                "processor {}: a copy of worm {} which is not in flight (a duplicate?)",
                a.node, a.tag
            ));
            return;
        };
        let pos = w.info.list.iter().position(|&d| d == a.node);
        let served_before = w.info.deliveries.iter().any(|d| d.node == a.node);
        let expect_left = pos.map(|p| (w.info.list.len() - p - 1) as u8);
        if pos.is_none() || served_before {
            self.faults.push(format!(
                "worm {} {}: a copy at {}, {}",
                a.tag,
                format_list(w.info.src, &w.info.list),
                a.node,
                if served_before {
                    "served twice"
                } else {
                    "not a destination"
                }
            ));
            return;
        }
        if !a.intact || a.data != w.info.payload || Some(a.left) != expect_left {
            self.faults.push(format!(
                "worm {}: the copy at {} is damaged ({} of {} data flits, intact {}, header lists {} left, expected {:?})",
                a.tag, a.node, a.data, w.info.payload, a.intact, a.left, expect_left
            ));
        }
        w.info.deliveries.push(Delivery {
            node: a.node,
            head: a.head,
            tail: a.cycle,
        });
        w.served += 1;
        self.stats.copies += 1;
        self.stats.data_flits += a.data as u64;
        if w.served as usize == w.info.list.len() {
            let w = self.worms.remove(a.tag).expect("present");
            // The multicast's creation, if this was its last worm.
            let done = match w.group {
                None => Some(w.info.created),
                Some(id) => {
                    let g = self.groups.get_mut(&id).expect("a worm's multicast");
                    g.worms_left -= 1;
                    (g.worms_left == 0).then(|| {
                        let g = self.groups.remove(&id).expect("present");
                        g.created
                    })
                }
            };
            if let Some(created) = done {
                self.stats.completed += 1;
                if created >= self.measure_from {
                    let lat = a.cycle - created;
                    self.stats.measured += 1;
                    self.stats.latency_sum += lat;
                    self.stats.latency_max = self.stats.latency_max.max(lat);
                }
            }
            if self.cfg.keep_worms {
                self.finished.push(w.info);
            } else {
                recycle(&mut self.spare, w.info);
            }
        }
    }

    fn internal_name(&self, node: u32, j: usize, consume: bool) -> String {
        let kind = if consume { "IN" } else { "OUT" };
        if self.pairs == 1 {
            format!("{kind}[{node}]")
        } else {
            format!("{kind}[{node}.{j}]")
        }
    }

    /// The name of the channel leaving router `node` by output `o`.
    fn output_name(&self, node: u32, o: usize) -> String {
        if o < self.ext {
            self.fabric.channel_name(node, o)
        } else {
            self.internal_name(node, o - self.ext, true)
        }
    }

    /// The name of the channel entering router `node` at input `i`.
    fn input_name(&self, node: u32, i: usize) -> String {
        if i < self.ext {
            self.fabric.arrival_name(node, Some(i))
        } else {
            self.internal_name(node, i - self.ext, false)
        }
    }

    fn watchdog(&mut self) -> Result<()> {
        let bound = self.cfg.watchdog;
        let now = self.cycle;
        let stuck_everywhere = now.saturating_sub(self.last_move) > bound;
        // An input holding a worm is busy (`Router::busy_inputs`), so the
        // look visits the busy inputs alone: a light load's routers are
        // mostly idle (a debug build checks the others hold no worm).
        debug_assert!(self.routers.iter().all(|r| {
            (0..r.ports()).all(|i| r.busy_inputs() >> i & 1 == 1 || r.stalled_since(i).is_none())
        }));
        let any_stalled = self.routers.iter().any(|r| {
            PortIter(r.busy_inputs()).any(|i| {
                r.stalled_since(i)
                    .is_some_and(|s| now.saturating_sub(s) > bound)
            })
        });
        if !any_stalled && !stuck_everywhere {
            return Ok(());
        }
        if let Some(report) = self.waiting_cycle(bound) {
            return Err(Error::DirectDeadlock(Box::new(report)));
        }
        if stuck_everywhere {
            return Err(Error::DirectDeadlock(Box::new(WaitReport {
                cycle: now,
                bound,
                channels: Vec::new(),
                steps: Vec::new(),
                in_flight: self.worms.len(),
            })));
        }
        Ok(())
    }

    /// The wait-for graph of the worm heads stalled longer than `bound`
    /// (`crate::rtl::waitfor`): a head waits for the worms holding the
    /// outputs it may take (an output's owner, or for an output without
    /// one, the worm still in the receiver's buffer: a channel is held
    /// until the tail has left its buffer), and moves again as soon as any
    /// one is free, so a wait on a free output, on a worm that is not
    /// stalled, or on itself counts as live. Only heads that can never move
    /// again are a deadlock; the report names their cycle, starting at the
    /// lowest tag.
    fn waiting_cycle(&self, bound: u64) -> Option<WaitReport> {
        // The stalled heads, in tag order.
        let mut heads: Vec<(u32, u32, usize, u64)> = Vec::new();
        for r in self.routers.iter().filter(|r| r.busy_inputs() != 0) {
            for w in r.waiting() {
                if self.cycle.saturating_sub(w.since) > bound {
                    heads.push((w.tag, r.node(), w.input, w.wants));
                }
            }
        }
        heads.sort_unstable_by_key(|h| h.0);
        debug_assert!(
            heads.windows(2).all(|w| w[0].0 < w[1].0),
            "a worm has one head"
        );
        // The place of a stalled head, by its worm's tag.
        let place = |tag: u32| heads.binary_search_by_key(&tag, |h| h.0).ok();
        // What the head of worm `tag` at `node` waits for at output `o`:
        // the worm holding it, and that worm's input, if another worm.
        let holder = |tag: u32, node: u32, o: usize| {
            let r = &self.routers[node as usize];
            match r.owner(o) {
                Some(j) => r.worm_at(j).map(|h| (j, h)),
                // A free external output is granted again once the last
                // worm has left the receiver's buffer: until then the
                // head waits for that worm.
                None if o < self.ext => self
                    .fabric
                    .neighbor(node, o)
                    .and_then(|(m, k)| self.routers[m as usize].worm_at(k).map(|h| (k, h))),
                None => None,
            }
            .filter(|&(_, h)| h != tag)
        };
        // Each wait: the place it leads to (the edges for the report are
        // found again for the cycle alone).
        let wait = |tag: u32, node: u32, o: usize| holder(tag, node, o).and_then(|(_, h)| place(h));
        let mut waits = WaitGraph::new();
        for &(tag, node, _, wants) in &heads {
            waits.place(PortIter(wants).map(|o| wait(tag, node, o)));
        }
        let dead = waits.dead();
        let cycle = waits.cycle(&dead);
        if cycle.is_empty() {
            return None;
        }
        let path: Vec<WaitEdge> = cycle
            .iter()
            .enumerate()
            .map(|(k, &p)| {
                let next = cycle[(k + 1) % cycle.len()];
                let (tag, node, input, wants) = heads[p];
                // The first output whose wait leads to the next place.
                let out = PortIter(wants)
                    .find(|&o| wait(tag, node, o) == Some(next))
                    .expect("a cycle follows waits");
                let (holder_input, holder) = holder(tag, node, out).expect("a wait on a place");
                WaitEdge {
                    waiter: tag,
                    node,
                    input,
                    out,
                    holder_input,
                    holder,
                }
            })
            .collect();
        let head_at = |tag: u32| place(tag).map(|i| (heads[i].1, heads[i].2));
        Some(self.report(&path, head_at, bound))
    }

    fn report(
        &self,
        cycle_edges: &[WaitEdge],
        head_at: impl Fn(u32) -> Option<(u32, usize)>,
        bound: u64,
    ) -> WaitReport {
        let mut channels = Vec::new();
        let mut steps = Vec::new();
        for e in cycle_edges {
            let WaitEdge {
                waiter: tag,
                node,
                input,
                out,
                holder_input,
                holder,
            } = *e;
            let w = &self.worms[tag].info;
            steps.push(WaitStep {
                worm: tag,
                list: format_list(w.src, &w.list),
                head_on: self.input_name(node, input),
                waits_for: self.output_name(node, out),
                held_by: holder,
            });
            // The channel asked for, then the holder's channels up to its
            // own blocked head.
            channels.push(self.output_name(node, out));
            let target = head_at(holder);
            let mut at = if out < self.ext {
                self.fabric.neighbor(node, out)
            } else {
                self.next_external(node, holder_input, &mut channels)
            };
            let mut guard = self.routers.len() * (self.ext + self.pairs);
            while let Some(cur) = at {
                if Some(cur) == target || guard == 0 {
                    break;
                }
                guard -= 1;
                at = self.next_external(cur.0, cur.1, &mut channels);
            }
        }
        WaitReport {
            cycle: self.cycle,
            bound,
            channels,
            steps,
            in_flight: self.worms.len(),
        }
    }

    /// Follows the worm at router `node` input `i` out of its granted
    /// external output, naming it; returns the next router and input.
    fn next_external(&self, node: u32, i: usize, names: &mut Vec<String>) -> Option<(u32, usize)> {
        let r = &self.routers[node as usize];
        let ext_mask = (1u64 << self.ext) - 1;
        let o = PortIter(r.granted(i) & ext_mask).next()?;
        names.push(self.output_name(node, o));
        self.fabric.neighbor(node, o)
    }

    /// Traces every router and processor from now on (scopes `top.r<x>` and
    /// `top.p<x>`), or what the sink wants of them ([`WaveSink::wants`]: a
    /// window of cycles, some components), the rest left unsampled. Must
    /// be called before the first cycle.
    pub fn attach_tracer(&mut self, sink: Box<dyn WaveSink>, cycle_ps: u64) -> Result<()> {
        if self.cycle != 0 {
            return Err(Error::Config {
                field: "tracing",
                value: format!("cycle {}", self.cycle),
                reason: "a tracer must be attached before the first cycle".into(),
            });
        }
        let mut hier = Hierarchy::new("top");
        let mut first = Vec::new();
        let mut count = Vec::new();
        {
            let mut root = hier.root();
            for (x, r) in self.routers.iter().enumerate() {
                let before = root.signal_count();
                root.scope(&format!("r{x}"), |s| r.declare(s));
                first.push(before);
                count.push(root.signal_count() - before);
            }
            for (x, p) in self.procs.iter().enumerate() {
                let before = root.signal_count();
                root.scope(&format!("p{x}"), |s| p.declare(s));
                first.push(before);
                count.push(root.signal_count() - before);
            }
        }
        hier.check_room()?;
        let mut state = TraceState::new(&hier);
        for c in 0..first.len() {
            let mut s = state.sampler(first[c], count[c]);
            if c < self.routers.len() {
                self.routers[c].sample(&self.ch, &mut s);
            } else {
                self.procs[c - self.routers.len()].sample(&self.ch, &mut s);
            }
            s.finish();
        }
        let mut sink = sink;
        sink.begin(&hier, cycle_ps, &state)?;
        state.clear_changes();
        let n = self.routers.len();
        self.ch.flits.set_track_changes(true);
        self.ch.credits.set_track_changes(true);
        // On several threads, the ranges' copies tell the credit counters
        // they drove by their changes (`LevelBank::follow`).
        for r in self.par.iter_mut().flat_map(|p| &mut p.ranges) {
            r.ch.credits.set_track_changes(true);
        }
        let wants = sink.wants();
        let wanted = wants.components(&first, &count);
        let window = wants.window;
        self.tracing = Some(Tracing {
            hier,
            state,
            sink,
            first,
            count,
            routers: Bits::new(n),
            units: vec![0; n],
            procs: Bits::new(n),
            full: self.every_cycle,
            window,
            wanted,
        });
        Ok(())
    }

    /// The traced hierarchy, while a tracer is attached.
    pub fn trace_hierarchy(&self) -> Option<&Hierarchy> {
        self.tracing.as_ref().map(|t| &t.hier)
    }

    /// Ends the waveform.
    pub fn finish_trace(&mut self) -> Result<()> {
        self.finish_trace_hierarchy().map(drop)
    }

    /// Ends the waveform as [`finish_trace`](Self::finish_trace) does and
    /// returns the hierarchy traced, without a copy of it.
    pub fn finish_trace_hierarchy(&mut self) -> Result<Option<Hierarchy>> {
        let Some(mut t) = self.tracing.take() else {
            return Ok(None);
        };
        self.ch.flits.set_track_changes(false);
        self.ch.credits.set_track_changes(false);
        for r in self.par.iter_mut().flat_map(|p| &mut p.ranges) {
            r.ch.credits.set_track_changes(false);
        }
        t.sink.finish(self.cycle)?;
        Ok(Some(t.hier))
    }

    /// Worms queued or being sent at node `x`.
    pub fn backlog(&self, x: u32) -> usize {
        self.procs[x as usize].backlog()
    }

    /// True when no router or processor holds anything.
    pub fn is_quiet(&self) -> bool {
        self.routers.iter().all(Router::is_idle) && self.procs.iter().all(Processor::is_idle)
    }

    /// Internal channel pairs per node.
    pub fn internal_pairs(&self) -> usize {
        self.pairs
    }

    /// Link channel count (external and internal, both directions).
    pub fn links(&self) -> usize {
        self.ch.flits.len()
    }
}

/// An edge of the waiting graph: worm `waiter`, whose head is at router
/// `node` input `input`, asks for output `out`, held by worm `holder` from
/// input `holder_input` (of `node`; for an external output without an
/// owner, the receiver's input whose buffer the holder is still in).
#[derive(Clone, Copy, Debug)]
struct WaitEdge {
    waiter: u32,
    node: u32,
    input: usize,
    out: usize,
    holder_input: usize,
    holder: u32,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::direct::{CubeFabric, DorMesh, Hypercube, Mesh, MeshFabric, Routing};
    use crate::rtl::trace::MemorySink;
    use crate::switch::Flit;

    /// Everything a run leaves behind that a user can see: the totals,
    /// every finished worm (route, deliveries and their cycles), the flits
    /// of every link, the clock, and every register's changes.
    fn outcome(s: &DirectSystem, wave: &MemorySink) -> String {
        format!(
            "{:?}\n{:?}\n{:?}\n{}\n{:?}",
            s.stats(),
            s.finished(),
            s.link_flits(),
            s.cycle(),
            wave.changes()
        )
    }

    /// A run of `cycles` cycles with the sources stopped after `traffic`
    /// cycles, then until every worm has arrived: with the live sets, or
    /// evaluating everything in every cycle.
    fn run(
        fabric: Arc<dyn Fabric>,
        cfg: &DirectConfig,
        traffic: Option<DirectTraffic>,
        sends: &[(u32, Vec<u32>)],
        traced: bool,
        every_cycle: bool,
    ) -> (String, u64) {
        let mut s = DirectSystem::new(fabric, cfg).unwrap();
        s.every_cycle = every_cycle;
        let wave = MemorySink::new();
        if traced {
            s.attach_tracer(Box::new(wave.clone()), 5000).unwrap();
        }
        for (src, list) in sends {
            s.send(*src, list, 6).unwrap();
        }
        let mut steps = 0u64;
        if let Some(t) = traffic {
            s.set_traffic(t).unwrap();
            for _ in 0..3_000 {
                s.step().unwrap();
                steps += 1;
            }
            s.stop_traffic();
        }
        let end = s.cycle + 200_000;
        while !s.worms.is_empty() {
            assert!(s.cycle < end, "worms still in flight");
            let before = s.cycle;
            s.advance(end - s.cycle).unwrap();
            assert!(s.cycle > before);
            steps += 1;
        }
        s.finish_trace().unwrap();
        (outcome(&s, &wave), steps)
    }

    fn traffic(rate: f64, max_dests: u32) -> DirectTraffic {
        DirectTraffic {
            rate,
            min_dests: 1,
            max_dests,
            payload: 5,
            queue_cap: 4,
        }
    }

    /// A waveform limited to a window of cycles and to some components
    /// (`TraceLimits`) is the one filtered from sampling every component
    /// in every cycle, though the cycles outside the window and the
    /// components outside the scopes are not sampled: windows from the
    /// first cycle, ending early or not, routers and processors, one and
    /// two threads.
    #[test]
    fn a_limited_waveform_is_the_one_filtered_from_every_sample() {
        let limits = crate::wave::TraceLimits::new;
        let cube = |dim| -> Arc<dyn Fabric> {
            Arc::new(CubeFabric {
                cube: Hypercube::new(dim).unwrap(),
                routing: Routing::Restriction2,
            })
        };
        let dor: Arc<dyn Fabric> = Arc::new(DorMesh::new(4, 3, 1).unwrap());
        // Random traffic (`Some(rate)`), or worms sent one at a time with
        // quiet cycles between them (`None`; random traffic draws every
        // cycle, so it leaves none): those outside the window are skipped,
        // up to the cycle before its first.
        let cases = [
            (cube(4), 1, Some(0.02), limits(500, Some(900), &[])),
            (cube(4), 1, Some(0.02), limits(1, Some(2), &["top.r3"])),
            (
                dor.clone(),
                1,
                Some(0.02),
                limits(1_200, None, &["top.r7", "top.p2"]),
            ),
            (dor, 1, Some(0.05), limits(0, Some(1_000), &["top.p5"])),
            (
                cube(7),
                2,
                Some(0.002),
                limits(700, Some(1_300), &["top.r5", "top.r100"]),
            ),
            (cube(7), 2, Some(0.002), limits(900, None, &[])),
            (cube(4), 1, None, limits(880, Some(1_100), &[])),
            (cube(4), 1, None, limits(300, None, &["top.r1", "top.p9"])),
            (cube(7), 2, None, limits(881, Some(1_500), &["top.r64"])),
            // Starting in a quiet stretch after the first worms.
            (cube(4), 1, None, limits(500, Some(1_100), &[])),
            (cube(7), 2, None, limits(500, None, &[])),
        ];
        for (fabric, threads, rate, l) in cases {
            let cfg = DirectConfig {
                seed: 5,
                threads,
                ..DirectConfig::default()
            };
            let wave = |every: bool| {
                let mut s = DirectSystem::new(fabric.clone(), &cfg).unwrap();
                s.every_cycle = every;
                let w = MemorySink::new();
                s.attach_tracer(l.wrap(Box::new(w.clone())).unwrap(), 5000)
                    .unwrap();
                if let Some(rate) = rate {
                    s.set_traffic(traffic(rate, 4)).unwrap();
                    for _ in 0..2_000 {
                        s.step().unwrap();
                    }
                } else {
                    let n = fabric.nodes();
                    for (at, src) in [(0, 0), (290, 3), (870, 1), (1_000, 9 % n)] {
                        s.run(at - s.cycle).unwrap();
                        s.send(src, &[n - 1 - src], 30).unwrap();
                    }
                    s.run(2_000 - s.cycle).unwrap();
                }
                s.finish_trace().unwrap();
                w.changes()
            };
            let (some, all) = (wave(false), wave(true));
            assert!(some.len() > 20, "{l:?}: {} changes", some.len());
            assert!(some == all, "{l:?}: the waveforms differ");
        }
    }

    /// Evaluating only the live routers and processors, sampling only the
    /// components that can have changed, and skipping quiet cycles,
    /// changes nothing: the same worms arrive at the same cycles
    /// by the same routes, every link carries the same flits and every
    /// register changes in the same cycles, on a hypercube, a mesh with
    /// dimension order and an all-port mesh with Hamiltonian routing, at
    /// light and heavy loads, with and without start-up latencies.
    #[test]
    fn live_sets_give_the_same_run_as_evaluating_everything() {
        let cube: Arc<dyn Fabric> = Arc::new(CubeFabric {
            cube: Hypercube::new(4).unwrap(),
            routing: Routing::Restriction2,
        });
        let dor: Arc<dyn Fabric> = Arc::new(DorMesh::new(4, 3, 1).unwrap());
        let ham: Arc<dyn Fabric> = Arc::new(MeshFabric {
            mesh: Mesh::new(3, 3, 2).unwrap(),
        });
        let one = DirectConfig {
            keep_worms: true,
            seed: 5,
            ..DirectConfig::default()
        };
        let all = DirectConfig {
            ports: PortModel::AllPort,
            startup: 40,
            ..one.clone()
        };
        let slow = DirectConfig {
            startup: 700,
            ..one.clone()
        };
        // One-flit buffers: a worm's flits come with gaps wherever a copy
        // upstream waits, so a header may end a cycle before anything more
        // arrives.
        let tight = DirectConfig {
            buffer_flits: 1,
            ..one.clone()
        };
        type Case<'a> = (
            &'a str,
            Arc<dyn Fabric>,
            &'a DirectConfig,
            Option<DirectTraffic>,
        );
        let cases: Vec<Case> = vec![
            ("cube light", cube.clone(), &one, Some(traffic(0.002, 3))),
            ("cube heavy", cube.clone(), &one, Some(traffic(0.05, 4))),
            ("cube tight", cube.clone(), &tight, Some(traffic(0.05, 6))),
            ("dor light", dor.clone(), &one, Some(traffic(0.003, 1))),
            ("dor heavy", dor.clone(), &one, Some(traffic(0.08, 1))),
            (
                "hamiltonian all-port",
                ham.clone(),
                &all,
                Some(traffic(0.01, 5)),
            ),
            ("cube start-ups", cube.clone(), &slow, None),
            ("hamiltonian start-ups", ham.clone(), &all, None),
        ];
        let sends = [
            (0, vec![5, 9]),
            (3, vec![1]),
            (0, vec![15, 7]),
            (6, vec![2, 11]),
        ];
        for (name, fabric, cfg, t) in cases {
            let sends: Vec<(u32, Vec<u32>)> = sends
                .iter()
                .filter(|(s, l)| {
                    *s < fabric.nodes()
                        && l.iter().all(|&d| d < fabric.nodes())
                        && check_list(fabric.as_ref(), *s, l).is_ok()
                })
                .cloned()
                .collect();
            assert!(!sends.is_empty(), "{name}: a worm to send");
            for traced in [false, true] {
                let (live, live_steps) = run(fabric.clone(), cfg, t, &sends, traced, false);
                let (every, every_steps) = run(fabric.clone(), cfg, t, &sends, traced, true);
                assert!(live.contains("deliveries"), "{name}: worms finished");
                assert_eq!(live, every, "{name}, traced {traced}");
                if t.is_none() && !traced {
                    assert!(
                        live_steps * 3 < every_steps || cfg.startup < 100,
                        "{name}: the start-ups were skipped ({live_steps} steps against {every_steps})"
                    );
                    assert!(
                        live_steps < every_steps,
                        "{name}: quiet cycles were skipped"
                    );
                } else {
                    assert_eq!(live_steps, every_steps, "{name}: nothing is skipped");
                }
            }
        }
    }

    /// Worms shown by `visit_finished` are those `drain_finished` gives,
    /// round after round, though the later rounds' worms are built in the
    /// buffers of the earlier ones; and a system that keeps no worms
    /// reuses them likewise with the same totals.
    #[test]
    fn reused_worm_buffers_leave_nothing_behind() {
        let mesh = Arc::new(DorMesh::new(4, 4, 1).unwrap());
        let cfg = DirectConfig::default();
        let mut a = DirectSystem::new(mesh.clone(), &cfg).unwrap();
        let mut b = DirectSystem::new(mesh.clone(), &cfg).unwrap();
        let forget = DirectConfig {
            keep_worms: false,
            ..cfg
        };
        let mut c = DirectSystem::new(mesh, &forget).unwrap();
        // Round r: from each source in turn (one source's worms cannot
        // deadlock) a multicast of a list shorter than the last round's and
        // a unicast, so that a buffer left full would show in a later,
        // shorter worm.
        for r in 0..4u32 {
            for src in 0..16u32 {
                let list: Vec<u32> = (0..16).filter(|&d| d != src && d % (r + 2) == 0).collect();
                let unicast = [(src + 5 + r) % 16];
                for s in [&mut a, &mut b, &mut c] {
                    s.send(src, &list, 1 + r).unwrap();
                    s.send(src, &unicast, 2).unwrap();
                    s.run_until_delivered(100_000).unwrap();
                }
            }
            let drained: Vec<WormInfo> = a.drain_finished().collect();
            let mut visited = Vec::new();
            b.visit_finished(|w| visited.push(w.clone()));
            assert_eq!(drained.len(), 32, "round {r}");
            assert_eq!(drained, visited, "round {r}");
            assert!(
                visited
                    .iter()
                    .all(|w| w.deliveries.len() == w.list.len() && w.route[0] == w.src),
                "round {r}"
            );
            assert!(c.finished().is_empty());
            assert_eq!(c.stats(), a.stats(), "round {r}");
        }
        assert!(!b.spare.is_empty() && !c.spare.is_empty());
    }

    /// Every hop of a network has its own question, below the memo's
    /// length.
    #[test]
    fn every_hop_has_its_own_question() {
        for (n, ext) in [(1, 1), (3, 2), (5, 4), (8, 3)] {
            let mut seen = vec![false; n * n * (ext + 1) * ext];
            for node in 0..n as u32 {
                for target in 0..n as u32 {
                    for arrived in (0..ext).map(Some).chain([None]) {
                        for out in 0..ext {
                            let q = hop_question(n, ext, node, target, arrived, out);
                            assert!(!seen[q], "{n} nodes, {ext} ports: {q} twice");
                            seen[q] = true;
                        }
                    }
                }
            }
            assert!(seen.iter().all(|&x| x));
        }
    }

    /// The header hops remembered as legal are exactly the distinct
    /// (router, destination, arrival, output) hops the worms took, and a
    /// hop the check refuses is reported even where the same router's
    /// hops toward the same destination were remembered.
    #[test]
    fn the_hops_remembered_are_those_taken_and_an_illegal_one_is_still_caught() {
        let mesh = DorMesh::new(4, 3, 1).unwrap();
        let n = mesh.nodes();
        let mut s = DirectSystem::new(Arc::new(mesh), &DirectConfig::default()).unwrap();
        let mut hops = std::collections::HashSet::new();
        for src in 0..n {
            for dst in (0..n).filter(|&d| d != src) {
                s.send(src, &[dst], 2).unwrap();
                let (mut at, mut arrived) = (src, None);
                while at != dst {
                    let out = mesh.route(at, dst);
                    hops.insert((at, dst, arrived, out));
                    let (next, port) = mesh.neighbor(at, out).unwrap();
                    (at, arrived) = (next, Some(port));
                }
            }
            s.run_until_delivered(100_000).unwrap();
        }
        assert_eq!(s.drain_finished().count(), (n * (n - 1)) as usize);
        let ext = mesh.external_ports();
        let want: Vec<usize> = {
            let mut q: Vec<usize> = hops
                .iter()
                .map(|&(at, dst, arrived, out)| {
                    hop_question(n as usize, ext, at, dst, arrived, out)
                })
                .collect();
            q.sort_unstable();
            q
        };
        let got: Vec<usize> = (0..s.hop_legal.len())
            .filter(|&q| s.hop_legal.knows(q))
            .collect();
        assert_eq!(got, want);

        // On a 3x3 mesh, 1 -> 5 takes X first from its source and turns at
        // 2, as dimension order does: two hops remembered. 0 -> 5 leaves 0
        // as dimension order does (a third hop remembered), then turns up
        // at router 1, where it arrived from 0: refused, though router 1's
        // hop toward 5 from its own processor is remembered.
        let fabric = turns_early();
        let mut s = DirectSystem::new(Arc::new(fabric), &DirectConfig::default()).unwrap();
        s.send(1, &[5], 2).unwrap();
        s.run_until_delivered(10_000).unwrap();
        assert_eq!(s.hop_legal.known(), 2);
        s.send(0, &[5], 2).unwrap();
        let err = s.run_until_delivered(10_000).unwrap_err().to_string();
        assert!(
            err.contains("illegal hop at router 1") && err.contains("not the dimension-order hop"),
            "{err}"
        );
        assert_eq!(s.hop_legal.known(), 3);
    }

    /// A dimension-order mesh whose routers offer what `offer` gives in
    /// place of the dimension-order hop, while every hop is checked as
    /// dimension order.
    #[derive(Debug)]
    struct Offers {
        mesh: DorMesh,
        offer: fn(&DorMesh, u32, Option<usize>, u32) -> u64,
        name: &'static str,
    }

    impl Fabric for Offers {
        fn nodes(&self) -> u32 {
            self.mesh.nodes()
        }
        fn external_ports(&self) -> usize {
            self.mesh.external_ports()
        }
        fn neighbor(&self, node: u32, port: usize) -> Option<(u32, usize)> {
            self.mesh.neighbor(node, port)
        }
        fn candidates(&self, node: u32, arrived: Option<usize>, target: u32) -> u64 {
            (self.offer)(&self.mesh, node, arrived, target)
        }
        fn check_hop(
            &self,
            node: u32,
            arrived: Option<usize>,
            out: usize,
            target: u32,
        ) -> std::result::Result<(), String> {
            self.mesh.check_hop(node, arrived, out, target)
        }
        fn channel_name(&self, node: u32, port: usize) -> String {
            self.mesh.channel_name(node, port)
        }
        fn routing_name(&self) -> String {
            self.name.into()
        }
    }

    /// A 3x3 mesh with dimension order whose router 1 offers no channel
    /// toward node 0: every unicast to node 0 whose route reaches router 1
    /// is illegal, the others legal.
    fn no_way_to_zero() -> Offers {
        Offers {
            mesh: DorMesh::new(3, 3, 1).unwrap(),
            offer: |m, node, arrived, target| {
                if node == 1 && target == 0 {
                    0
                } else {
                    m.candidates(node, arrived, target)
                }
            },
            name: "dimension order, no way to 0 from 1",
        }
    }

    /// A 3x3 mesh whose routers offer a worm in transit the Y hop first:
    /// a worm that must still go along both X and Y after its first hop
    /// turns where dimension order forbids it.
    fn turns_early() -> Offers {
        turns_early_on(DorMesh::new(3, 3, 1).unwrap())
    }

    /// [`turns_early`] on any mesh.
    fn turns_early_on(mesh: DorMesh) -> Offers {
        Offers {
            mesh,
            offer: |m, node, arrived, target| {
                let (a, b) = (m.coords(node), m.coords(target));
                if arrived.is_some() && a[1] != b[1] {
                    let y = m.id([a[0], b[1], a[2]]);
                    return 1 << m.route(node, y);
                }
                m.candidates(node, arrived, target)
            },
            name: "Y first in transit, checked as X first",
        }
    }

    /// `send` remembers the unicast pairs it found legal and answers as
    /// the full check does for every pair, asked twice: a legal pair is
    /// accepted again, and an illegal pair, a node that does not exist or
    /// the source itself is refused again with the same error. Only the
    /// legal pairs are remembered, and none on a fabric that offers every
    /// hop (whose pairs are checked for their nodes alone).
    #[test]
    fn a_legal_unicast_pair_is_remembered_and_every_other_refused_each_time() {
        let fabrics: Vec<Arc<dyn Fabric>> = vec![
            Arc::new(no_way_to_zero()),
            Arc::new(CubeFabric {
                cube: Hypercube::new(3).unwrap(),
                routing: Routing::Restriction2,
            }),
            Arc::new(CubeFabric {
                cube: Hypercube::new(3).unwrap(),
                routing: Routing::Minimal,
            }),
            Arc::new(DorMesh::new(3, 2, 1).unwrap()),
            Arc::new(MeshFabric {
                mesh: Mesh::new(2, 3, 2).unwrap(),
            }),
        ];
        for f in fabrics {
            let n = f.nodes();
            let mut s = DirectSystem::new(f.clone(), &DirectConfig::default()).unwrap();
            let (mut legal, mut illegal) = (0, 0);
            for src in 0..=n {
                for dst in 0..=n {
                    let want = check_list(f.as_ref(), src, &[dst]).map_err(|e| e.to_string());
                    match &want {
                        Ok(()) => legal += 1,
                        Err(e) if e.contains("illegal") => illegal += 1,
                        Err(_) => {}
                    }
                    for ask in 0..2 {
                        let got = s
                            .send(src, &[dst], 3)
                            .map(|_| ())
                            .map_err(|e| e.to_string());
                        assert_eq!(
                            got,
                            want,
                            "{} {src} -> {dst}, asked {ask}",
                            f.routing_name()
                        );
                    }
                }
            }
            let remembered = s.unicast_legal.known();
            if f.offers_every_hop() {
                assert_eq!(remembered, 0, "{}", f.routing_name());
                assert_eq!(illegal, 0, "{}", f.routing_name());
            } else {
                assert_eq!(remembered, legal, "{}", f.routing_name());
            }
            assert_eq!(legal, n * (n - 1) - illegal);
            if f.routing_name().contains("no way") {
                // Only from 1 and 2 does the X-first route to 0 reach
                // router 1: the others correct x in their own row and come
                // down the first column.
                assert_eq!(illegal, 2);
            }
        }
    }

    /// A worm waiting out its start-up leaves the network quiet up to the
    /// watchdog's next look, and then up to the cycle it may start.
    #[test]
    fn a_start_up_is_skipped_up_to_the_watchdog_and_the_worm() {
        let f = Arc::new(DorMesh::new(4, 4, 1).unwrap());
        let cfg = DirectConfig {
            startup: 1_000,
            ..DirectConfig::default()
        };
        let mut s = DirectSystem::new(f, &cfg).unwrap();
        assert_eq!(s.quiet_cycles(u64::MAX), u64::MAX, "an idle network");
        assert_eq!(s.quiet_cycles(7), 7);
        s.send(0, &[15], 4).unwrap();
        assert_eq!(s.quiet_cycles(u64::MAX), 0, "the source looks at its queue");
        s.step().unwrap();
        assert_eq!(
            s.quiet_cycles(u64::MAX),
            255,
            "to the watchdog's look at 256"
        );
        s.skip(255).unwrap();
        assert_eq!(s.cycle(), 256);
        assert_eq!(s.quiet_cycles(u64::MAX), 256);
        s.skip(256).unwrap();
        s.skip(256).unwrap();
        assert_eq!(s.quiet_cycles(u64::MAX), 232, "to the worm's start at 1000");
        s.skip(232).unwrap();
        assert_eq!(s.quiet_cycles(u64::MAX), 0);
        let end = s.run_until_delivered(10_000).unwrap();
        let w = &s.finished()[0];
        assert_eq!(
            w.injected,
            Some(1_000),
            "the first flit leaves as the start-up ends"
        );
        assert_eq!(w.deliveries.len(), 1);
        assert_eq!(s.stats().latency_max, w.deliveries[0].tail);
        assert_eq!(end, w.deliveries[0].tail + 1);
        assert_eq!(s.quiet_cycles(u64::MAX), u64::MAX, "idle again");
        // A traced network is never quiet.
        let mut t = DirectSystem::new(Arc::new(DorMesh::new(2, 2, 1).unwrap()), &cfg).unwrap();
        t.attach_tracer(Box::new(MemorySink::new()), 5000).unwrap();
        assert_eq!(t.quiet_cycles(u64::MAX), 0);
    }

    /// On several threads, a flit or credit one range hands another is
    /// taken by the receiving range in the next step: while one waits the
    /// network is not quiet, even with every live set empty.
    #[test]
    fn a_write_handed_between_ranges_keeps_the_network_from_skipping() {
        // Every cycle on the ranges (a light one would run as one
        // thread's, with no writes handed between ranges).
        let cfg = DirectConfig {
            threads: 2,
            hand_over: HandOver::Always,
            ..DirectConfig::default()
        };
        let mut s = DirectSystem::new(Arc::new(DorMesh::new(16, 16, 1).unwrap()), &cfg).unwrap();
        // Router 0 is the first range's, router 255 the second's.
        s.send(0, &[255], 1).unwrap();
        while s.in_flight() > 0 {
            s.step().unwrap();
            let last = s.cycle - 1;
            let par = s.par.as_mut().expect("two ranges");
            if par.cross.iter().any(|c| c.pending(last)) {
                // The live sets emptied as if nothing else were left (the
                // run is not taken further).
                for r in &mut par.ranges {
                    r.live_routers.clear();
                    r.live_procs.clear();
                }
                assert_eq!(s.quiet_cycles(u64::MAX), 0);
                return;
            }
        }
        panic!("no write was handed between the ranges");
    }

    /// A range's list of crossing writes is taken in the next cycle only:
    /// after a skip, the list of the step before it (of the parity the
    /// next step reads) is not taken again.
    #[test]
    fn a_list_of_crossing_writes_is_taken_once() {
        let f = Arc::new(DorMesh::new(16, 16, 1).unwrap());
        let cfg = DirectConfig {
            threads: 2,
            hand_over: HandOver::Always,
            ..DirectConfig::default()
        };
        let mut s = DirectSystem::new(f.clone(), &cfg).unwrap();
        // The link from router 120 (the first range's) to 136 (the
        // second's), with a worm's first flit on it as of cycle 5.
        let p = (0..4)
            .find(|&p| f.neighbor(120, p).is_some_and(|(nb, _)| nb == 136))
            .unwrap();
        let link = s.routers[120].link_out(p).unwrap();
        let list = &mut s.par.as_mut().unwrap().cross[0].0[1];
        list.cycle = 5;
        list.flits.push((link.0, Flit::new(7, 0, 3, 1)));
        // Cycle 8 reads the lists of odd cycles, and takes those of 7.
        s.cycle = 8;
        s.step().unwrap();
        assert!(s.routers[136].is_idle(), "an old flit taken");
        // The same list as of cycle 9 is taken in cycle 10.
        s.par.as_mut().unwrap().cross[0].0[1].cycle = 9;
        s.cycle = 10;
        s.step().unwrap();
        assert!(!s.routers[136].is_idle(), "the flit not taken");
    }

    /// Cycles moved between the ranges' threads and the calling thread's
    /// one-thread evaluation and back ([`DirectSystem::bring_here`],
    /// [`DirectSystem::hand_to_ranges`]), in runs of random length, with worms,
    /// credits and writes handed between ranges in flight at the moves:
    /// the same run as one thread's, links' counts and waveform included,
    /// untraced and traced, at a light and a heavy load.
    #[test]
    fn cycles_moved_between_ranges_and_one_thread_give_one_threads_run() {
        let f: Arc<dyn Fabric> = Arc::new(CubeFabric {
            cube: Hypercube::new(7).unwrap(),
            routing: Routing::Restriction2,
        });
        for (rate, dests) in [(0.004, 3), (0.04, 8)] {
            for traced in [false, true] {
                let go = |threads: usize| {
                    let cfg = DirectConfig {
                        threads,
                        keep_worms: true,
                        seed: 5,
                        ..DirectConfig::default()
                    };
                    let mut s = DirectSystem::new(f.clone(), &cfg).unwrap();
                    let wave = MemorySink::new();
                    if traced {
                        s.attach_tracer(Box::new(wave.clone()), 5000).unwrap();
                    }
                    s.set_traffic(traffic(rate, dests)).unwrap();
                    let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
                    let (mut here, mut moves, mut crossing) = (true, 0, 0);
                    let mut step = |s: &mut DirectSystem| {
                        if threads == 1 {
                            return s.step().unwrap();
                        }
                        if rng.random_bool(0.1) {
                            here = !here;
                            moves += 1;
                            let last = s.cycle.wrapping_sub(1);
                            let p = s.par.as_ref().unwrap();
                            crossing += (here && p.cross.iter().any(|c| c.pending(last))) as u32;
                        }
                        s.step_on(Some(!here)).unwrap();
                        assert_eq!(s.par.as_ref().unwrap().here, here);
                    };
                    for _ in 0..3_000 {
                        step(&mut s);
                    }
                    s.stop_traffic();
                    while !s.worms.is_empty() {
                        assert!(s.cycle < 100_000, "worms still in flight");
                        step(&mut s);
                    }
                    s.finish_trace().unwrap();
                    (outcome(&s, &wave), moves, crossing)
                };
                let (one, _, _) = go(1);
                let (two, moves, crossing) = go(2);
                assert_eq!(two, one, "rate {rate}, traced {traced}");
                assert!(moves > 250, "{moves} moves");
                // Moves to the calling thread with writes handed between
                // the ranges still to be taken.
                assert!(crossing > 20, "{crossing} of {moves}");
                assert!(one.contains("deliveries"), "{one}");
            }
        }
    }

    /// Batched steps that leave the other ranges running, with worms sent
    /// between them (to every range) and nothing read until the end: the
    /// same worms arrive at the same cycles, and a deadlock is found at the
    /// same cycle with the same report, as by one thread's steps; the
    /// watchdog's look is taken by a step, not left to a reader.
    #[test]
    fn batched_steps_give_one_threads_run() {
        let cube = |routing| -> Arc<dyn Fabric> {
            Arc::new(CubeFabric {
                cube: Hypercube::new(7).unwrap(),
                routing,
            })
        };
        let go = |threads: usize, hand_over, rate: f64, dests: u32, f: Arc<dyn Fabric>| {
            let cfg = DirectConfig {
                threads,
                hand_over,
                keep_worms: true,
                watchdog: 300,
                ..DirectConfig::default()
            };
            let mut s = DirectSystem::new(f.clone(), &cfg).unwrap();
            s.set_overlap(true);
            let n = f.nodes();
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
            let (mut left_running, mut handed, mut steps) = (0, 0, 0);
            let mut end = Ok(());
            for _ in 0..4_000 {
                steps += 1;
                for src in 0..n {
                    if rng.random_bool(rate) {
                        let mut l: Vec<u32> = (0..dests)
                            .map(|_| rng.random_range(0..n))
                            .filter(|&d| d != src)
                            .collect();
                        l.sort_unstable();
                        l.dedup();
                        if !l.is_empty() && check_list(f.as_ref(), src, &l).is_ok() {
                            s.send(src, &l, 8).unwrap();
                        }
                    }
                }
                end = if threads == 1 {
                    s.step()
                } else {
                    s.step_batched()
                };
                if end.is_err() {
                    break;
                }
                // A step leaves its cycle running when it handed the
                // cycle over, unless the watchdog looks after it or the
                // calling thread's range is idle.
                if let Some(p) = &s.par {
                    // SAFETY: the first range is this thread's.
                    let mine = unsafe { &*p.ranges.as_ptr() };
                    let idle = mine.live_routers.is_empty() && mine.live_procs.is_empty();
                    let look = s.cycle.is_multiple_of(WATCHDOG_PERIOD);
                    let h = p.shift.handed();
                    assert_eq!(s.left_running, h && !idle && !look, "cycle {}", s.cycle);
                    handed += h as u32;
                }
                left_running += s.left_running as u32;
            }
            let end = end.and_then(|_| s.settle());
            (
                format!("{:?}\n{:?}\n{:?}", end, s.stats(), s.finished()),
                (left_running, handed, steps),
            )
        };
        // Legal routing; routing that deadlocks; and routers that turn
        // where the hop check forbids it (a fault the checks of a cycle's
        // hops find while the next cycle runs).
        let early: Arc<dyn Fabric> = Arc::new(turns_early_on(DorMesh::new(16, 8, 1).unwrap()));
        // `busy`: the least and the most of the steps that hand their
        // cycle over when only the cycles with enough work are.
        for (rate, dests, f, end, busy) in [
            (0.01, 4, cube(Routing::Restriction2), "Ok(())", (0.9, 0.999)),
            (
                0.2,
                12,
                cube(Routing::Minimal),
                "Err(DirectDeadlock",
                (0.9, 0.999),
            ),
            (
                0.002,
                1,
                early,
                "Err(Fault { cycle: 8, what: \"worm 0 <125: 19>: illegal hop",
                (0.0, 0.0),
            ),
        ] {
            let (one, _) = go(1, HandOver::Busy, rate, dests, f.clone());
            // A network starts idle, so its first cycles run on the calling
            // thread; a loaded one hands most of its cycles over, a light
            // one none.
            let (two, (_, handed, steps)) = go(2, HandOver::Busy, rate, dests, f.clone());
            assert_eq!(two, one);
            let share = handed as f64 / steps as f64;
            assert!(
                (busy.0..=busy.1).contains(&share),
                "{handed} of {steps} steps handed over"
            );
            let (two, (left, _, steps)) = go(2, HandOver::Always, rate, dests, f);
            assert_eq!(two, one);
            assert!(one.starts_with(end), "{one}");
            // Most steps leave their cycle running (the fault is found by
            // the step after the one that left its cycle running).
            assert!(
                left * 4 > steps * 3 || (steps < 20 && left == 1),
                "{left} of {steps} steps left running"
            );
        }
    }
}

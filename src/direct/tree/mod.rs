//! Tree-based multicast with pruning on meshes and tori (seed 003 sections
//! 3.1-3.4), and the pseudo-multicast baseline it is measured against.
//!
//! **Message format (Fig. 5).** A multicast message is one worm: the header
//! of its first destination, then its data flits, then the headers of the
//! other destinations. A unicast is the same worm with one header.
//!
//! **Routers.** Every router has one input virtual channel per port and
//! virtual channel (1 per port on a mesh, 2 on a torus, see [`Grid`]) plus
//! an injection channel, and as many output virtual channels plus a
//! consumption channel. Each input virtual channel has a flit FIFO
//! (`buffer_flits`, credit flow control per virtual channel) and an
//! *auxiliary buffer* (`aux_flits`) that keeps the data flits of the message
//! passing through it. Every header is routed on its own with the base
//! dimension-order routing ([`Grid::route`]), toward the consumption channel
//! at its destination:
//! - if the message already has a *branch* (an output virtual channel it
//!   holds) there, the header follows it alone;
//! - otherwise it opens a new branch: it takes the free output virtual
//!   channel, and the router sends the stored data flits after it from the
//!   auxiliary buffer (the first header of a message at a router is followed
//!   by the data flits arriving behind it instead).
//!
//! The crossbar joins an input to one output at a time: each input sends at
//! most one flit per cycle and waits while it replays data to a new branch;
//! each physical output (and the consumption channel) carries one flit per
//! cycle, granted in a rotating order among the inputs. A branch holds its
//! output virtual channel until the message ends at that input; the upstream
//! router then raises the channel's `close` line (a side-band wire, no flit)
//! and the downstream router ends the message at that input after the flits
//! before the close, closing its own branches. A consumption branch closes
//! after the last data flit.
//!
//! **Pruning (section 3.2).** When the header at the head of an input cannot
//! open its branch because the output virtual channel is held, the message
//! is blocked at that router, and the router cuts every branch the message
//! has there: it closes them as if the message had ended, so they drain and
//! free their channels downstream. An input that cannot move its head flit
//! (a header on its branch, a data flit, a replayed flit) for want of
//! credits or link time prunes once it has been stalled `stall_limit`
//! cycles in a row (flow control telling the router that the branch cannot
//! advance), cutting every branch but the one it is trying to use.
//! The paper leaves open how the destinations behind a cut branch are then
//! served; here the pruning router becomes their source: the cut only stops
//! *later* headers from using the branch, so a later header that needs that
//! direction opens a new branch (on the same virtual channel once it is
//! free) and the router replays the data from its auxiliary buffer, as for
//! any new branch. Every header is forwarded exactly once at every router
//! and each segment a downstream router sees is a complete message
//! (header, data, headers), so every destination receives exactly one copy
//! along its unicast route. docs/tree.md argues why the waits then always
//! end.
//!
//! **Checks.** Every header hop is re-checked against the dimension-order
//! rule ([`Grid::check_hop`]); every copy is checked at the consumption
//! channel (right node, complete data in order, a destination of the
//! message, not delivered before); a watchdog reports a deadlock with the
//! cycle of waiting input channels ([`TreeWaitReport`]).

use crate::deadlock::TreeWaitReport;
use crate::direct::LegalMemo;
use crate::direct::grid::{Grid, GridHop, PORT_NAMES};
use crate::rtl::HandOver;
use crate::rtl::crew::{Crew, Shift};
use crate::rtl::trace::{Hierarchy, ScopeBuilder, TraceState, WaveSink, out_unit};
use crate::rtl::waitfor::WaitGraph;
use crate::rtl::{Fifo, SeqMap, bits_for};
use crate::{Error, Result};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use rustc_hash::FxHashMap;
use serde::Serialize;
use smallvec::SmallVec;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

mod par;
mod trace;
use trace::{declare_router, sample_all, sample_some};

const NONE8: u8 = u8::MAX;
pub use crate::rtl::crew::{MAX_THREADS, threads_used};
const NONE32: u32 = u32::MAX;
const DATA: u32 = 1 << 31;
const LAST: u32 = 1 << 30;

/// One flit: the message it belongs to and its word (a destination address,
/// or a data flit's index with a last-data mark). `end` is not carried on
/// the link: it is the input FIFO's note that a close arrived after it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Flit {
    msg: u32,
    word: u32,
    end: bool,
}

impl Flit {
    fn header(msg: u32, dest: u32) -> Flit {
        Flit {
            msg,
            word: dest,
            end: false,
        }
    }

    fn data(msg: u32, idx: u16, last: bool) -> Flit {
        Flit {
            msg,
            word: DATA | if last { LAST } else { 0 } | idx as u32,
            end: false,
        }
    }

    fn is_data(self) -> bool {
        self.word & DATA != 0
    }

    fn is_last_data(self) -> bool {
        self.word & (DATA | LAST) == DATA | LAST
    }

    fn dest(self) -> u32 {
        self.word
    }

    fn idx(self) -> u16 {
        (self.word & 0xffff) as u16
    }
}

/// How a multicast is sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Scheme {
    /// One tree-based multicast worm with every destination's header.
    Tree,
    /// One unicast worm per destination, sent one after another.
    Pseudo,
}

impl Scheme {
    /// `tree` or `pseudo`.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Tree => "tree",
            Scheme::Pseudo => "pseudo",
        }
    }
}

/// When a blocked multicast cuts its branches (seed 003 section 3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Pruning {
    /// Never: the plain tree multicast, which can deadlock (Fig. 6).
    Off,
    /// At once when a header finds its output virtual channel held, and
    /// after `stall_limit` stalled cycles in a row otherwise (default 1),
    /// cutting every branch the message has at the router (the paper's
    /// total prune).
    On {
        /// Cycles an input may be stalled before it prunes (at least 1).
        stall_limit: u32,
    },
    /// Selective pruning, the paper's proposed future work (section 3.4):
    /// when the total prune would cut, cut only the branches that another
    /// message waited for in the previous cycle (a registered request line
    /// per output virtual channel, raised by a header that finds the
    /// channel held). A branch nobody waits for stays open.
    Selective {
        /// Cycles an input may be stalled before it prunes (at least 1).
        stall_limit: u32,
    },
}

impl Pruning {
    /// The stalled cycles before a prune, or `None` without pruning.
    pub fn stall_limit(self) -> Option<u32> {
        match self {
            Pruning::Off => None,
            Pruning::On { stall_limit } | Pruning::Selective { stall_limit } => Some(stall_limit),
        }
    }
}

/// When a branch gives up its output virtual channel (a choice seed 003
/// leaves open).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub enum Release {
    /// When the message ends at the input (its last header has passed), or
    /// when it is pruned (default).
    #[default]
    #[serde(rename = "end")]
    AtEnd,
    /// Also as soon as a later header of the message leaves by another
    /// output: a message holds one branch at a time at a router, and a
    /// later header that needs a released direction opens a new branch and
    /// replays the data from the auxiliary buffer.
    #[serde(rename = "turn")]
    OnTurn,
}

impl Release {
    /// `end` or `turn`.
    pub fn name(self) -> &'static str {
        match self {
            Release::AtEnd => "end",
            Release::OnTurn => "turn",
        }
    }
}

/// Parameters of a [`TreeNet`].
#[derive(Clone, Debug)]
pub struct TreeConfig {
    /// Flits per input virtual channel FIFO (at least 1).
    pub buffer_flits: usize,
    /// Data flits the auxiliary buffer of every input channel holds; a tree
    /// multicast with more data flits is refused (section 3.3).
    pub aux_flits: usize,
    /// The pruning rule.
    pub pruning: Pruning,
    /// Cycles without any flit moving, with messages in flight, after which
    /// the watchdog reports a deadlock. With pruning, counted from when
    /// every stalled input has had its `stall_limit` cycles to prune
    /// ([`TreeNet::watchdog_window`]).
    pub watchdog: u64,
    /// Keep every header's hops (for route checks in tests and the CLI).
    pub keep_routes: bool,
    /// Keep every delivery, for [`TreeNet::take_deliveries`] (a caller
    /// that keeps them takes them as it goes, or they add up).
    pub keep_deliveries: bool,
    /// Keep every prune, for [`TreeNet::prunes`]: a record a run adds to
    /// for as long as it runs, so for a report of a short run or a test.
    /// The counts ([`TreeStats::prunes`], [`TreeStats::branches_cut`]) are
    /// kept either way.
    pub keep_prunes: bool,
    /// Seed of the traffic generator.
    pub seed: u64,
    /// Cycles a source spends starting each worm before its first flit
    /// enters the injection channel, one worm at a time (0): a software
    /// start-up per message, which pseudo-multicast pays per unicast.
    pub startup: u64,
    /// When a branch releases its output virtual channel.
    pub release: Release,
    /// Threads that evaluate the routers (1: the calling thread alone).
    /// The routers are cut into contiguous ranges of 64 at least, one per
    /// thread, and the results and waveforms are the same for every count
    /// (see `par`).
    pub threads: usize,
    /// On several threads, which cycles are handed to the other threads
    /// ([`HandOver::Busy`]: those that hold enough work; the calling
    /// thread runs the others alone). The results are the same either way.
    pub hand_over: HandOver,
}

impl Default for TreeConfig {
    fn default() -> Self {
        TreeConfig {
            buffer_flits: 2,
            aux_flits: 4,
            pruning: Pruning::On { stall_limit: 1 },
            watchdog: 2000,
            keep_routes: false,
            keep_deliveries: false,
            keep_prunes: false,
            seed: 1,
            startup: 0,
            release: Release::AtEnd,
            threads: 1,
            hand_over: HandOver::Busy,
        }
    }
}

/// Random multicast traffic: every node starts a multicast with
/// probability `rate` per cycle (geometric gaps), to a uniformly drawn
/// number of distinct random destinations.
#[derive(Clone, Copy, Debug)]
pub struct TreeTraffic {
    /// Multicasts per node per cycle.
    pub rate: f64,
    /// Fewest destinations.
    pub min_dests: u32,
    /// Most destinations.
    pub max_dests: u32,
    /// Data flits per message.
    pub data: u16,
    /// Tree or pseudo multicast.
    pub scheme: Scheme,
    /// Multicasts a source may have waiting; more are refused and counted.
    pub queue_cap: usize,
}

/// Counters of a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TreeStats {
    /// Multicasts created.
    pub created: u64,
    /// Multicasts refused at a full source queue.
    pub refused: u64,
    /// Destinations of the multicasts created (the copies owed).
    pub dests: u64,
    /// Multicasts whose every destination got its copy.
    pub completed: u64,
    /// Completed multicasts created at or after the measuring start.
    pub measured: u64,
    /// Sum of the measured latencies (creation to the last copy's last flit).
    pub latency_sum: u64,
    /// Largest measured latency.
    pub latency_max: u64,
    /// Copies delivered.
    pub deliveries: u64,
    /// Worms injected (one per tree multicast, one per destination for the
    /// pseudo multicast).
    pub worms: u64,
    /// Flits carried over external channels.
    pub link_flits: u64,
    /// Times a blocked message cut branches.
    pub prunes: u64,
    /// Branches cut.
    pub branches_cut: u64,
    /// Data flits replayed from auxiliary buffers behind new branches.
    pub replayed: u64,
    /// Branches closed early because a later header turned away
    /// ([`Release::OnTurn`]).
    pub early_releases: u64,
}

impl TreeStats {
    /// Mean measured latency in cycles (`NaN` when none completed).
    pub fn mean_latency(&self) -> f64 {
        self.latency_sum as f64 / self.measured as f64
    }
}

/// One copy delivered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct TreeDelivery {
    /// Cycle of its last data flit.
    pub cycle: u64,
    /// Cycle the multicast was created.
    pub created: u64,
    /// Data flits it carried.
    pub data: u16,
    /// Cycle the header of the message that brought it entered the
    /// source's injection channel.
    pub injected: u64,
    /// The multicast.
    pub mcast: u32,
    /// Its source.
    pub src: u32,
    /// The node.
    pub node: u32,
}

/// A prune: where, when, which message, how many branches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PruneEvent {
    /// The cycle.
    pub cycle: u64,
    /// The router.
    pub node: u32,
    /// The multicast whose branches were cut.
    pub mcast: u32,
    /// Branches cut.
    pub cut: u32,
}

#[derive(Clone, Debug)]
struct InVc {
    fifo: Fifo<Flit>,
    /// The message whose segment is open here, or NONE32.
    msg: u32,
    /// Output virtual channels the segment holds (bit per output).
    branches: u32,
    /// Where the data flits arriving behind the first header go.
    first: u8,
    /// Data flits in the auxiliary buffer.
    aux: u16,
    replay_out: u8,
    replay_next: u16,
    stall: u32,
    /// A close arrived after the last flit of the segment that is buffered.
    end_now: bool,
}

#[derive(Clone, Copy, Debug)]
struct OutVc {
    owner: u8,
    credits: u16,
}

/// The most input (or output) channels a router has: a 3-D torus router's
/// 6 ports of 2 virtual channels, and its injection (consumption) channel.
const MAX_CHANNELS: usize = 16;

/// The longest side whose hops a router's tables keep (a table of the
/// side squared bytes per dimension, 1 MB at this side).
const RING_TABLE_SIDE: usize = 1024;

/// A router's channels held in the router itself, indexed by channel
/// number below [`MAX_CHANNELS`]: no pointer to follow and no bounds to
/// check on every flit (a channel number comes from the router's own
/// masks; debug builds check it).
#[derive(Clone, Debug)]
struct Channels<T>([T; MAX_CHANNELS]);

impl<T> std::ops::Index<usize> for Channels<T> {
    type Output = T;
    #[inline(always)]
    fn index(&self, i: usize) -> &T {
        debug_assert!(i < MAX_CHANNELS, "channel {i}");
        &self.0[i & (MAX_CHANNELS - 1)]
    }
}

impl<T> std::ops::IndexMut<usize> for Channels<T> {
    #[inline(always)]
    fn index_mut(&mut self, i: usize) -> &mut T {
        debug_assert!(i < MAX_CHANNELS, "channel {i}");
        &mut self.0[i & (MAX_CHANNELS - 1)]
    }
}

#[derive(Clone, Debug)]
struct TreeRouter {
    /// Input virtual channels, the injection channel at `ej`; those from
    /// `n_in` up are unused.
    ins: Channels<InVc>,
    /// Output virtual channels, the consumption channel at `ej`.
    outs: Channels<OutVc>,
    active: u32,
    rr: u8,
    /// Outputs a blocked header of another message asked for in the
    /// previous cycle (selective pruning's request register).
    wanted: u32,
    /// The requests of this cycle, registered at the edge into `wanted`.
    wanted_next: u32,
}

/// A message as its source interface holds it: what injecting it needs,
/// so that a range's thread never looks in the message table (which the
/// calling thread writes while the ranges run).
#[derive(Clone, Debug, Default)]
struct QMsg {
    id: u32,
    mcast: u32,
    data: u16,
    dests: SmallVec<[u32; 2]>,
}

#[derive(Clone, Debug, Default)]
struct Ni {
    queue: VecDeque<QMsg>,
    /// The message being injected (`NONE32`: none), and its fields.
    cur: u32,
    now: QMsg,
    pos: u32,
    credits: u16,
    /// Multicasts waiting or being injected.
    pending: usize,
    /// The worm in `cur` may not start before this cycle (its start-up).
    start_at: u64,
}

impl Ni {
    /// Queues message `q`, the first of its multicast when `first` (a
    /// multicast counts once among those waiting).
    fn queue_msg(&mut self, q: QMsg, first: bool) {
        self.queue.push_back(q);
        self.pending += first as usize;
    }
}

/// The consumption side of a network interface: the message being
/// received and its data flits so far. Kept apart from [`Ni`], which the
/// thread of the node's range writes while this one's is the caller's.
#[derive(Clone, Copy, Debug)]
struct NiEject {
    msg: u32,
    got: u16,
}

#[derive(Clone, Debug)]
struct Msg {
    mcast: u32,
    data: u16,
    /// Cycle its header entered the source's injection channel.
    injected: u64,
    /// Held inline up to two (a unicast's one): no allocation per message.
    dests: SmallVec<[u32; 2]>,
    got: SmallVec<[bool; 8]>,
    left: u32,
}

#[derive(Clone, Debug)]
struct Mcast {
    created: u64,
    left: u32,
    src: u32,
}

/// A flit sent this cycle, written into router `router`'s input `input` at
/// the clock edge. Four aligned words: a tuple holding a [`Flit`] was laid
/// out with odd offsets, and building it on the stack stalled every send on
/// a store read back before it was forwarded.
#[derive(Clone, Copy, Debug)]
struct LinkFlit {
    router: u32,
    input: u32,
    msg: u32,
    word: u32,
}

impl Events {
    /// The record of the range of routers from `first` up to (not
    /// including) `end`, of a network of `n` routers with `ports` ports and
    /// `outs` external outputs each.
    fn new(n: u32, ports: usize, first: u32, end: u32, outs: usize) -> Events {
        let questions = ((end - first) as usize)
            .checked_mul(n as usize)
            .and_then(|x| x.checked_mul(outs));
        Events {
            link_count: vec![0; n as usize * (ports + 2)],
            hop_base: first,
            hop_legal: LegalMemo::new(questions, HOP_MEMO_BITS),
            ..Events::default()
        }
    }

    /// Checks the header hop by external output `o` of router `r` of this
    /// range toward `dest`, unless it was found legal before: a hop's
    /// legality is a function of the router, the destination and the
    /// output alone, as the grid never changes. The memo's test is in line;
    /// the check itself out of line, so that the router's evaluation,
    /// which sends far more data flits than headers, keeps its registers.
    #[inline(always)]
    fn check_hop(&mut self, t: &Tables, r: u32, o: usize, dest: u32) {
        // A destination outside the grid has no question of its own (it
        // would alias another's): it is checked in full, and refused.
        let q = (dest < t.n)
            .then(|| ((r - self.hop_base) as usize * t.n as usize + dest as usize) * t.ej + o);
        if !q.is_some_and(|q| self.hop_legal.knows(q)) {
            self.check_hop_in_full(t, r, o, dest, q);
        }
    }

    /// [`Events::check_hop`] for a hop not remembered: remembers it (as
    /// question `q`) if legal, records the fault if not.
    #[inline(never)]
    fn check_hop_in_full(&mut self, t: &Tables, r: u32, o: usize, dest: u32, q: Option<usize>) {
        match t.check_hop(r, t.hop(o), dest) {
            Ok(()) => {
                if let Some(q) = q {
                    self.hop_legal.learn(q);
                }
            }
            Err(e) => self.fail(e),
        }
    }

    /// Records a fault; the first of a cycle is the one reported (the
    /// lowest router's, on any number of threads).
    fn fail(&mut self, what: String) {
        if self.fault.is_none() {
            self.fault = Some(what);
        }
    }
}

impl LinkFlit {
    /// The flit as the receiving FIFO holds it (no close noted yet).
    fn flit(self) -> Flit {
        Flit {
            msg: self.msg,
            word: self.word,
            end: false,
        }
    }
}

/// A set of routers or interfaces, one bit each, visited in index order:
/// bit `i % 64` of word `i / 64`, the words in cache lines of their own so
/// that threads working on ranges of 512 never write the same line.
#[derive(Clone, Debug)]
struct NodeSet(Vec<Line>);

/// Eight words of a [`NodeSet`], one cache line.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(64))]
struct Line([u64; 8]);

impl NodeSet {
    fn new(n: u32) -> Self {
        NodeSet(vec![Line::default(); (n as usize).div_ceil(512)])
    }

    /// The words, in order.
    fn as_mut_ptr(&mut self) -> *mut u64 {
        // A line is exactly eight words with no padding (`repr(C)`).
        self.0.as_mut_ptr().cast()
    }

    #[inline]
    fn insert(&mut self, i: u32) {
        self.0[(i >> 9) as usize].0[(i >> 6 & 7) as usize] |= 1 << (i & 63);
    }

    /// The words, in order.
    fn words(&self) -> impl Iterator<Item = u64> + '_ {
        self.0.iter().flat_map(|l| l.0)
    }
}

/// What phase 1 (every router) asks phase 2 to apply at the clock edge.
/// Aligned to two cache lines: the records of two threads' ranges sit side
/// by side, and a line shared between them (one thread's counters, the
/// next one's vectors) made every flit sent cross between the cores.
///
/// The record is its range's thread's alone while the network runs: the
/// calling thread reads only its [`Outbox`] each cycle (and the counters
/// and link counts when asked for them), so the lines the range's thread
/// writes for every flit stay in its core's cache.
#[derive(Debug, Default)]
#[repr(align(128))]
struct Events {
    sends: Vec<LinkFlit>,
    /// Flits into a consumption channel (`input` unused), checked by the
    /// range's thread at the edge ([`eject_range`]).
    ejects: Vec<LinkFlit>,
    closes: Vec<(u32, u8)>,
    credits: Vec<(u32, u8)>,
    ni_credits: Vec<u32>,
    releases: Vec<(u32, u8)>,
    /// Prune requests sent upstream (router, its output) this cycle.
    wants: Vec<(u32, u8)>,
    /// Flits carried over external channels since cycle 0.
    link_flits: u64,
    /// Flits carried per router and physical port, then its ejection and
    /// injection channels (`ports + 2` per router).
    link_count: Vec<u64>,
    /// Data flits replayed since cycle 0.
    replayed: u64,
    /// Branches closed early since cycle 0.
    early_releases: u64,
    /// Worms started by the range's interfaces since cycle 0.
    worms: u64,
    /// Tracing: the flits sent and the closes raised this cycle.
    trace: bool,
    link_log: Vec<(u32, u8, Flit)>,
    close_log: Vec<(u32, u8)>,
    /// Tracing: the routers the edge wrote into without waking them, with
    /// the output written (a release, a credit), or `NONE8` for a prune
    /// request (which only the router's `wanted` register shows).
    marks: Vec<(u32, u8)>,
    /// A flit moved this cycle (published in [`Outbox::moved`]).
    moved: bool,
    /// Phase 1's first fault (published in [`Outbox::fault`]).
    fault: Option<String>,
    out: Outbox,
    /// The first router of the range: the header hops its routers have
    /// found legal are remembered from it up ([`Events::check_hop`]).
    hop_base: u32,
    /// The header hops of the range's routers found legal, a bit per
    /// (router, destination, external output); kept while the bits number
    /// at most [`HOP_MEMO_BITS`].
    hop_legal: LegalMemo,
}

/// The most bits a range's memo of legal header hops takes (32 kB: a 16x16
/// mesh on one thread needs 256 K). On larger networks a (router,
/// destination) pair comes back too seldom within a run for the memo to
/// pay: on a 32x32 mesh at 0.03 flits per node per cycle a memo of 4 M bits
/// saved nothing over 20,000 cycles, and its bits would leave the cache.
const HOP_MEMO_BITS: usize = 1 << 18;

/// A range's edge writes into other ranges' routers (a flit, a close, a
/// credit, a release or a prune request over a channel the cut crosses),
/// in the order its record made them, by the parity of the cycle that made
/// them. A range fills the list of its cycle while the other ranges apply
/// the previous cycle's list into their own routers, each the writes that
/// land there, at the start of their next job: so no thread writes another
/// range's routers, and the calling thread has no share of them to do
/// between two cycles. On cache lines of its own: the other ranges read it.
#[derive(Debug, Default)]
#[repr(align(128))]
struct XBuf([Vec<Write>; 2]);

/// Messages sent to a range's interfaces while the range ran (a step
/// left it running, [`TreeNet::step_batched`]): source node, message, and
/// whether it is its multicast's first; by the parity of the cycle whose
/// job hands them to the interfaces as it begins. On cache lines of its
/// own: the calling thread fills one list while the range empties the
/// other.
#[derive(Debug, Default)]
#[repr(align(128))]
struct Stage([Vec<(u32, QMsg, bool)>; 2]);

/// The lists of a range's outbox (and the faults that come among them),
/// which the calling thread takes whole at the end of a cycle, to work
/// through once it has handed the next cycle over
/// ([`TreeNet::step_batched`]).
#[derive(Debug, Default)]
struct Lists {
    /// Taken by the calling thread and not yet worked through (unused in
    /// an outbox).
    any: bool,
    /// Copies whose last data flit reached their consumption channel, in
    /// the order of the range's ejections.
    copies: Vec<Arrived>,
    /// The first fault of a flit reaching a consumption channel (the
    /// range's ejections stop there; `copies` are those before it).
    eject_fault: Option<String>,
    /// Messages whose header entered the network this cycle.
    started: Vec<u32>,
    prunes: Vec<(u32, u32, u32)>,
    hops: Vec<(u32, u32, u32, GridHop)>,
    /// The first injection overrun of the range.
    inject_fault: Option<String>,
}

/// What a range's thread hands the calling thread at the end of a cycle,
/// on cache lines of its own. Besides `moved` and `crossed`, everything
/// here is rare (a worm started, a copy delivered, a prune, a fault), and
/// `any` says whether there is any of it, so the calling thread writes
/// these lines only in a cycle that has some.
#[derive(Debug, Default)]
#[repr(align(128))]
struct Outbox {
    /// A flit moved in the range this cycle.
    moved: bool,
    /// The routers and interfaces live in the range at the end of the
    /// cycle, counted no further than [`COUNT_TO`](crate::rtl::crew::COUNT_TO)
    /// (for [`Shift`]).
    work: usize,
    /// Something below is set or non-empty.
    any: bool,
    /// Phase 1's first fault.
    fault: Option<String>,
    /// The first fault applying the edge within the range: its place
    /// (flit in `sends`) and what it is.
    edge_fault: Option<(u32, String)>,
    /// The range's list of this cycle's crossing writes is not empty (told
    /// here, on a line the calling thread reads anyway, rather than by the
    /// list's own).
    crossed: bool,
    /// The first overrun applying the previous cycle's writes from other
    /// ranges into this one's routers: the sending range, the flit's place
    /// in that range's record, and what.
    cross_fault: Option<(u32, u32, String)>,
    /// The copies delivered, worms started, prunes and routes, and their
    /// faults.
    lists: Lists,
    /// The last cycle a worm started this cycle waits to, paying its
    /// start-up (0: none): until then the watchdog counts the network as
    /// moving, since the wait is the source's own.
    wait_until: u64,
}

/// A copy of a message complete at a node's consumption channel, with the
/// data flits it brought; checked against the message by the calling
/// thread ([`TreeNet::deliver`]).
#[derive(Clone, Copy, Debug)]
struct Arrived {
    node: u32,
    msg: u32,
    got: u16,
}

/// The other end of a channel ([`Tables::peer`]).
#[derive(Clone, Copy, Debug)]
struct Peer {
    router: u32,
    x: u32,
}

/// The fixed tables the routers read.
#[derive(Debug)]
struct Tables {
    grid: Grid,
    n: u32,
    ports: usize,
    vcs: usize,
    /// `vcs` is 1 or 2: an index divides by it as a shift (a division
    /// by a run-time value costs tens of cycles on every flit).
    vc_shift: u32,
    n_in: usize,
    /// Index of the consumption output (and of the injection input).
    ej: usize,
    nbr: Vec<u32>,
    /// The far end of every external channel, by `r * ej + x` for output
    /// (or input) `x` of router `r`: the neighbour's router and its input
    /// (or output) on the same link and virtual channel; the router is
    /// `NONE32` for a port on the mesh's edge. What every flit sent and
    /// every credit returned looks up.
    peer: Vec<Peer>,
    /// Sides in x, y, z.
    sides: [usize; 3],
    /// Coordinates of every node.
    coords: Vec<[u32; 3]>,
    /// Per dimension `d` of side at most [`RING_TABLE_SIDE`], the output
    /// taken from coordinate `a` toward `b` (index `a * k_d + b`); empty
    /// for a longer side, whose hops [`Grid::ring_hop`] computes.
    ring: [Vec<u8>; 3],
    pruning: Pruning,
    keep_routes: bool,
}

impl Tables {
    /// The output a header for `dest` takes at router `r` (the consumption
    /// channel at `dest` itself), by [`Grid::route`].
    #[inline]
    fn route(&self, r: u32, dest: u32) -> usize {
        let (a, b) = (self.coords[r as usize], self.coords[dest as usize]);
        for d in 0..3 {
            if a[d] != b[d] {
                return match self.ring[d].get(a[d] as usize * self.sides[d] + b[d] as usize) {
                    Some(&o) => o as usize,
                    None => self.output(self.grid.ring_hop(d, a[d], b[d])),
                };
            }
        }
        self.ej
    }

    /// The output of a hop: its port's virtual channel `hop.vc`.
    fn output(&self, hop: GridHop) -> usize {
        ((hop.port as usize) << self.vc_shift) + hop.vc as usize
    }

    /// [`Grid::check_hop`] with the coordinates the tables hold.
    #[inline]
    fn check_hop(&self, r: u32, h: GridHop, dest: u32) -> std::result::Result<(), String> {
        let c = |n: u32| self.coords[n as usize];
        self.grid.check_hop_at(r, c(r), h, dest, c(dest))
    }

    fn hop(&self, o: usize) -> GridHop {
        GridHop {
            port: (o >> self.vc_shift) as u8,
            vc: (o & (self.vcs - 1)) as u8,
        }
    }

    fn input_name(&self, i: usize) -> String {
        if i == self.ej {
            "injection".into()
        } else {
            format!("input from {} vc{}", PORT_NAMES[i / self.vcs], i % self.vcs)
        }
    }
}

/// The routers and network interfaces of a mesh or torus running tree-based
/// or pseudo multicast, ticked together.
pub struct TreeNet {
    t: Tables,
    cfg: TreeConfig,
    routers: Vec<TreeRouter>,
    nis: Vec<Ni>,
    ejs: Vec<NiEject>,
    /// Routers with an active input: those a cycle evaluates.
    live_routers: NodeSet,
    /// Interfaces with a worm being injected or queued.
    live_nis: NodeSet,
    /// What each range of routers asks the edge to apply, in range order
    /// (one range on one thread); the first also holds the interfaces'.
    evs: Vec<Events>,
    /// Each range's edge writes into other ranges' routers.
    xbuf: Vec<XBuf>,
    /// The last cycle's lists in `xbuf` hold writes not yet applied: the
    /// ranges apply them first thing in the next cycle (or
    /// [`settle`](Self::settle) does, on this thread).
    cross_pending: bool,
    /// The live-router set's words each range covers (`lo..hi`), in order.
    ranges: Vec<(usize, usize)>,
    crew: Option<Crew<par::Job>>,
    /// Whether a cycle is handed to the helpers or run here.
    shift: Shift,
    /// Each range's messages sent while it ran.
    stage: Vec<Stage>,
    /// Each range's outbox lists of the last cycle finished.
    lists: Vec<Lists>,
    /// A step returned with the other ranges still running its cycle.
    in_flight: bool,
    /// Steps may return so ([`set_overlap`](Self::set_overlap)).
    overlap: bool,
    /// A fault found while finishing a cycle for a caller that could not
    /// take it ([`take_deliveries`](Self::take_deliveries)), for the next
    /// step or settle to return.
    pending_err: Option<Error>,
    cycle: u64,
    last_move: u64,
    next_msg: u32,
    next_mcast: u32,
    msgs: SeqMap<u32, Msg>,
    mcasts: SeqMap<u32, Mcast>,
    stats: TreeStats,
    measure_from: u64,
    traffic: Option<TreeTraffic>,
    arrivals: BinaryHeap<Reverse<(u64, u32)>>,
    rng: Xoshiro256PlusPlus,
    routes: FxHashMap<(u32, u32), Vec<(u32, GridHop)>>,
    deliveries: Vec<TreeDelivery>,
    prune_log: Vec<PruneEvent>,
    tracing: Option<Box<TreeTracing>>,
}

impl Drop for TreeNet {
    fn drop(&mut self) {
        // No helper may still be working on the routers as they go.
        if let Some(crew) = &self.crew {
            crew.settle_quietly();
        }
        // A waveform not finished (the run stopped on an error) ends here,
        // so that an FST is readable up to the cycle reached, as the
        // cut-through switch's network ends its own.
        let _ = self.finish_trace_hierarchy();
    }
}

/// The waveform being written: signal values, the sink, and the link
/// registers of the last cycle (flit sent and close raised per output).
struct TreeTracing {
    hier: Hierarchy,
    state: TraceState,
    sink: Box<dyn WaveSink>,
    first: Vec<u32>,
    count: Vec<u32>,
    links: Vec<Option<Flit>>,
    closes: Vec<bool>,
    touched: Vec<usize>,
    /// The routers to sample at the end of the cycle, a bit each: those
    /// evaluated, those the edge wrote into, and those whose link
    /// registers changed. No other router's registers can have changed.
    sample: Vec<u64>,
    /// Per router, the units of it to sample ([`crate::rtl::trace::in_unit`]
    /// and [`crate::rtl::trace::out_unit`] numbering): the inputs active as
    /// the cycle began (those its evaluation visits), and the outputs that
    /// sent a flit (credits and link register; a new branch sends its
    /// header as it takes the output), whose link register went idle, or
    /// that the edge released (owner and close) or credited.
    /// `trace::sample_some` adds the inputs active after the edge (a flit
    /// pushed or injected into them).
    units: Vec<u128>,
    /// Sample every router in every cycle (the tests compare).
    full: bool,
    /// The cycles the sink writes ([`WaveSink::wants`]): outside them
    /// nothing is sampled (but with `full`).
    window: crate::rtl::trace::Window,
    /// The routers with a signal the sink writes, a bit each: the others
    /// are not sampled (but with `full`).
    wanted: Vec<u64>,
}

impl TreeConfig {
    /// Refuses a configuration no tree network can have (a FIFO or an
    /// auxiliary buffer out of range, a stall limit or a watchdog of 0,
    /// a thread count out of range), naming the field: what
    /// [`TreeNet::new`] checks first, for a caller that reckons the
    /// network's memory before building it.
    pub fn validate(&self) -> Result<()> {
        let cfg = self;
        let bad = |field: &'static str, value: String, reason: &str| Error::Config {
            field,
            value,
            reason: reason.into(),
        };
        if cfg.buffer_flits == 0 || cfg.buffer_flits > 1024 {
            return Err(bad(
                "buffer_flits",
                cfg.buffer_flits.to_string(),
                "an input FIFO holds 1 to 1,024 flits",
            ));
        }
        if cfg.aux_flits == 0 || cfg.aux_flits > 0xffff {
            return Err(bad(
                "aux_flits",
                cfg.aux_flits.to_string(),
                "an auxiliary buffer holds 1 to 65,535 data flits",
            ));
        }
        if cfg.pruning.stall_limit() == Some(0) {
            return Err(bad(
                "stall_limit",
                "0".into(),
                "an input prunes after at least one stalled cycle",
            ));
        }
        if cfg.watchdog == 0 {
            return Err(bad("watchdog", "0".into(), "the watchdog needs a bound"));
        }
        if !(1..=MAX_THREADS).contains(&cfg.threads) {
            return Err(bad(
                "threads",
                cfg.threads.to_string(),
                &format!("1 to {MAX_THREADS} threads"),
            ));
        }
        Ok(())
    }
}

impl TreeNet {
    /// Builds the routers and interfaces of `grid`.
    pub fn new(grid: Grid, cfg: TreeConfig) -> Result<TreeNet> {
        let hand_over = cfg.hand_over;
        cfg.validate()?;
        // Contiguous ranges of the live-router set's words, one per thread
        // (no more threads than words: a range holds 64 routers at least).
        let words = (grid.nodes() as usize).div_ceil(64);
        let parts = threads_used(grid.nodes(), cfg.threads);
        // Cut at whole lines of the set (512 routers) when there are
        // enough, so that no two threads write one line.
        let unit = if words >= 8 * parts { 8 } else { 1 };
        let units = words.div_ceil(unit);
        let ranges: Vec<(usize, usize)> = (0..parts)
            .map(|k| {
                let (lo, hi) = (k * units / parts * unit, (k + 1) * units / parts * unit);
                (lo, hi.min(words))
            })
            .collect();
        let crew = match parts {
            1 => None,
            k => Some(Crew::new(k - 1, cfg.threads, "wormcast-tree")?),
        };
        let (n, ports, vcs) = (grid.nodes(), grid.ports(), grid.vcs());
        assert!(vcs.is_power_of_two(), "{vcs} virtual channels");
        let ej = ports * vcs;
        let n_in = ej + 1;
        let nbr: Vec<u32> = (0..n)
            .flat_map(|r| (0..ports).map(move |p| grid.neighbor(r, p).unwrap_or(NONE32)))
            .collect();
        let peer: Vec<Peer> = (0..n as usize * ej)
            .map(|k| {
                let (r, x) = (k / ej, k % ej);
                let p = x / vcs;
                Peer {
                    router: nbr[r * ports + p],
                    x: ((p ^ 1) * vcs + x % vcs) as u32,
                }
            })
            .collect();
        // A route only depends on the first dimension in which the router
        // and the destination differ, and on the two coordinates there: one
        // small table per dimension, whatever the size of the grid.
        let k = grid.sides();
        let coords: Vec<[u32; 3]> = (0..n).map(|r| grid.coords(r)).collect();
        // A longer side's table (side squared bytes) would outweigh the
        // routers themselves: its hops are computed as they are taken.
        let ring: [Vec<u8>; 3] = std::array::from_fn(|d| {
            let kd = k[d] as usize;
            if kd > RING_TABLE_SIDE {
                return Vec::new();
            }
            let mut v = vec![ej as u8; kd * kd];
            for a in 0..kd {
                for b in (0..kd).filter(|&b| b != a) {
                    let h = grid.ring_hop(d, a as u32, b as u32);
                    v[a * kd + b] = (h.port as usize * vcs + h.vc as usize) as u8;
                }
            }
            v
        });
        // A grid's router has at most 13 (a 3-D torus's): never refused.
        assert!(n_in <= MAX_CHANNELS, "a router of {n_in} channels");
        // The channels past the router's own are never indexed: no memory.
        let depth = |i: usize| if i < n_in { cfg.buffer_flits } else { 0 };
        let router = TreeRouter {
            ins: Channels(std::array::from_fn(|i| InVc {
                fifo: Fifo::new(depth(i)),
                msg: NONE32,
                branches: 0,
                first: NONE8,
                aux: 0,
                replay_out: NONE8,
                replay_next: 0,
                stall: 0,
                end_now: false,
            })),
            outs: Channels(std::array::from_fn(|i| OutVc {
                owner: NONE8,
                credits: depth(i) as u16,
            })),
            active: 0,
            wanted: 0,
            wanted_next: 0,
            rr: 0,
        };
        let ni = Ni {
            cur: NONE32,
            credits: cfg.buffer_flits as u16,
            ..Ni::default()
        };
        Ok(TreeNet {
            t: Tables {
                grid,
                n,
                ports,
                vcs,
                vc_shift: vcs.trailing_zeros(),
                n_in,
                ej,
                nbr,
                peer,
                sides: k.map(|s| s as usize),
                coords,
                ring,
                pruning: cfg.pruning,
                keep_routes: cfg.keep_routes,
            },
            rng: Xoshiro256PlusPlus::seed_from_u64(cfg.seed),
            cfg,
            routers: vec![router; n as usize],
            nis: vec![ni; n as usize],
            ejs: vec![
                NiEject {
                    msg: NONE32,
                    got: 0
                };
                n as usize
            ],
            live_routers: NodeSet::new(n),
            live_nis: NodeSet::new(n),
            evs: ranges
                .iter()
                .map(|&(lo, hi)| {
                    let end = (hi as u32 * 64).min(n);
                    Events::new(n, ports, lo as u32 * 64, end, ej)
                })
                .collect(),
            xbuf: (0..ranges.len()).map(|_| XBuf::default()).collect(),
            cross_pending: false,
            crew,
            shift: Shift::new(hand_over),
            stage: (0..ranges.len()).map(|_| Stage::default()).collect(),
            lists: (0..ranges.len()).map(|_| Lists::default()).collect(),
            in_flight: false,
            overlap: false,
            pending_err: None,
            ranges,
            cycle: 0,
            last_move: 0,
            next_msg: 0,
            next_mcast: 0,
            msgs: SeqMap::new(0),
            mcasts: SeqMap::new(0),
            stats: TreeStats::default(),
            measure_from: 0,
            traffic: None,
            arrivals: BinaryHeap::new(),
            routes: FxHashMap::default(),
            deliveries: Vec::new(),
            prune_log: Vec::new(),
            tracing: None,
        })
    }

    /// The threads its routers are evaluated on ([`threads_used`]).
    pub fn threads(&self) -> usize {
        self.ranges.len()
    }

    /// The topology.
    pub fn grid(&self) -> &Grid {
        &self.t.grid
    }

    /// Data flits every input channel's auxiliary buffer holds: the most a
    /// tree multicast may carry ([`TreeConfig::aux_flits`]).
    pub fn aux_flits(&self) -> usize {
        self.cfg.aux_flits
    }

    /// Every link with the flits it has carried since cycle 0 (every
    /// virtual channel of a physical link together): `(1,2) +x` for the
    /// link leaving router (1,2) in the +x direction, `(1,2) ejection` and
    /// `(1,2) injection` for its node's channels.
    pub fn link_flits(&self) -> Vec<(String, u64)> {
        let count = self.link_count();
        let p = self.t.ports + 2;
        self.link_slots()
            .map(|(r, slot)| (self.slot_name(r, slot), count[r as usize * p + slot]))
            .collect()
    }

    /// [`link_flits`](Self::link_flits)'s counts without the names, each
    /// with whether the link joins two routers.
    pub fn link_counts(&self) -> Vec<(u64, bool)> {
        let count = self.link_count();
        let p = self.t.ports;
        // As `link_slots` walks them, without its iterators: a run reads
        // these twice, on networks of any size.
        let mut out = Vec::with_capacity(count.len());
        for (c, nbr) in count.chunks_exact(p + 2).zip(self.t.nbr.chunks_exact(p)) {
            for (&k, &to) in c.iter().zip(nbr) {
                if to != u32::MAX {
                    out.push((k, true));
                }
            }
            out.push((c[p], false));
            out.push((c[p + 1], false));
        }
        out
    }

    /// The name of link `i` (in [`link_flits`](Self::link_flits)'s order),
    /// or `None` past the last.
    pub fn link_name(&self, mut i: usize) -> Option<String> {
        let p = self.t.ports;
        // Router by router, by their counts of links.
        for (r, nbr) in self.t.nbr.chunks_exact(p).enumerate() {
            let links = nbr.iter().filter(|&&to| to != u32::MAX).count() + 2;
            if i < links {
                let slot = (0..p + 2)
                    .filter(|&s| s >= p || nbr[s] != u32::MAX)
                    .nth(i)?;
                return Some(self.slot_name(r as u32, slot));
            }
            i -= links;
        }
        None
    }

    /// The links in order: each router's ports that lead to a neighbour,
    /// then its node's ejection (`ports`) and injection (`ports + 1`)
    /// channels.
    fn link_slots(&self) -> impl Iterator<Item = (u32, usize)> + '_ {
        let p = self.t.ports;
        (0..self.t.n).flat_map(move |r| {
            (0..p + 2).filter_map(move |slot| {
                let wired = slot >= p || self.t.nbr[r as usize * p + slot] != u32::MAX;
                wired.then_some((r, slot))
            })
        })
    }

    /// Link `slot` of router `r` by name (see [`link_slots`](Self::link_slots)).
    fn slot_name(&self, r: u32, slot: usize) -> String {
        let name = self.t.grid.node_name(r);
        match slot.checked_sub(self.t.ports) {
            None => format!("{name} {}", PORT_NAMES[slot]),
            Some(0) => format!("{name} ejection"),
            Some(_) => format!("{name} injection"),
        }
    }

    /// Flits per router and link slot (`ports + 2` a router), summed over
    /// the ranges' records.
    fn link_count(&self) -> Vec<u64> {
        let mut count = self.evs[0].link_count.clone();
        for ev in &self.evs[1..] {
            for (c, k) in count.iter_mut().zip(&ev.link_count) {
                *c += k;
            }
        }
        count
    }

    /// The current cycle (the number of cycles run).
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// The counters so far (a copy: each range's thread keeps some of them
    /// in its own record).
    pub fn stats(&self) -> TreeStats {
        // The counters each range's thread keeps in its own record.
        let mut s = self.stats.clone();
        for ev in &self.evs {
            s.link_flits += ev.link_flits;
            s.replayed += ev.replayed;
            s.early_releases += ev.early_releases;
            s.worms += ev.worms;
        }
        s
    }

    /// Every delivery so far (kept when `keep_deliveries` is set).
    pub fn deliveries(&self) -> &[TreeDelivery] {
        &self.deliveries
    }

    /// Takes the deliveries kept so far (when `keep_deliveries` is set),
    /// leaving none: a long run's harness reads them as they come.
    pub fn take_deliveries(&mut self) -> Vec<TreeDelivery> {
        // A cycle a step left running is finished first; a fault found
        // there is the next step's (or settle's) to return.
        if let Err(e) = self.land() {
            self.pending_err.get_or_insert(e);
        }
        std::mem::take(&mut self.deliveries)
    }

    /// [`take_deliveries`](Self::take_deliveries) into `out` (emptied
    /// first), whose room the network keeps for the next deliveries: a
    /// harness that reads them every cycle allocates nothing once both
    /// have grown to what a cycle delivers.
    pub fn take_deliveries_into(&mut self, out: &mut Vec<TreeDelivery>) {
        if let Err(e) = self.land() {
            self.pending_err.get_or_insert(e);
        }
        out.clear();
        std::mem::swap(out, &mut self.deliveries);
    }

    /// Every prune so far (kept when [`TreeConfig::keep_prunes`] is set;
    /// empty otherwise).
    pub fn prunes(&self) -> &[PruneEvent] {
        &self.prune_log
    }

    /// The hops the header for `dest` of multicast `mcast` took (kept when
    /// `keep_routes` is set).
    pub fn route_of(&self, mcast: u32, dest: u32) -> Option<&[(u32, GridHop)]> {
        self.routes.get(&(mcast, dest)).map(|v| v.as_slice())
    }

    /// Multicasts created but not complete.
    pub fn in_flight(&self) -> usize {
        self.mcasts.len()
    }

    /// Counts only multicasts created from `cycle` on.
    pub fn measure_from(&mut self, cycle: u64) {
        self.measure_from = cycle;
    }

    fn check_dests(&self, src: u32, dests: &[u32], data: u16, scheme: Scheme) -> Result<()> {
        let n = self.t.n;
        let bad = |field: &'static str, value: String, reason: String| Error::Config {
            field,
            value,
            reason,
        };
        if src >= n {
            return Err(bad(
                "source",
                src.to_string(),
                format!("the {} has nodes 0 to {}", self.t.grid, n - 1),
            ));
        }
        crate::dests::check(n, src, dests).map_err(|e| match e {
            Error::UnknownNode { node, .. } => bad(
                "dests",
                node.to_string(),
                format!(
                    "no node {node} in the {} (nodes 0 to {})",
                    self.t.grid,
                    n - 1
                ),
            ),
            Error::BadDests(m) => bad(
                "dests",
                dests
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(","),
                m,
            ),
            e => e,
        })?;
        if data == 0 {
            return Err(bad(
                "data",
                "0".into(),
                "a message carries at least one data flit".into(),
            ));
        }
        if scheme == Scheme::Tree && data as usize > self.cfg.aux_flits {
            return Err(bad(
                "data",
                data.to_string(),
                format!(
                    "a tree multicast of {data} data flits does not fit the {}-flit auxiliary buffers: every input channel must hold all data flits of the message (seed 003 section 3.3)",
                    self.cfg.aux_flits
                ),
            ));
        }
        Ok(())
    }

    /// Queues a multicast of `data` data flits from `src` to `dests` (in
    /// this header order) at the source's interface; injection starts this
    /// cycle. Returns the multicast's id.
    pub fn send(&mut self, src: u32, dests: &[u32], data: u16, scheme: Scheme) -> Result<u32> {
        self.check_dests(src, dests, data, scheme)?;
        Ok(self.create(src, dests, data, scheme))
    }

    fn create(&mut self, src: u32, dests: &[u32], data: u16, scheme: Scheme) -> u32 {
        let mcast = self.next_mcast;
        self.next_mcast += 1;
        let (one, each) = match scheme {
            Scheme::Tree => (Some(SmallVec::from_slice(dests)), &[][..]),
            Scheme::Pseudo => (None, dests),
        };
        self.mcasts.insert(
            mcast,
            Mcast {
                created: self.cycle,
                left: one.is_some() as u32 + each.len() as u32,
                src,
            },
        );
        // The interface of a node in a range still running (the calling
        // thread's step left the other ranges working, `in_flight`) takes
        // its messages from that range's list when the range's next job
        // begins; any other takes them here.
        let k = if self.in_flight {
            self.range_of(src)
        } else {
            0
        };
        let staged = k != 0;
        let mut first = true;
        for g in one
            .into_iter()
            .chain(each.iter().map(|&d| SmallVec::from_slice(&[d])))
        {
            let id = self.next_msg;
            self.next_msg = self.next_msg.wrapping_add(1);
            let q = QMsg {
                id,
                mcast,
                data,
                dests: SmallVec::from_slice(&g),
            };
            self.msgs.insert(
                id,
                Msg {
                    mcast,
                    data,
                    injected: u64::MAX,
                    got: smallvec::smallvec![false; g.len()],
                    left: g.len() as u32,
                    dests: g,
                },
            );
            let first = std::mem::take(&mut first);
            if staged {
                let p = (self.cycle & 1) as usize;
                self.stage[k].0[p].push((src, q, first));
            } else {
                self.nis[src as usize].queue_msg(q, first);
                self.live_nis.insert(src);
            }
        }
        self.stats.created += 1;
        self.stats.dests += dests.len() as u64;
        mcast
    }

    /// Starts (or replaces) random multicast traffic.
    pub fn set_traffic(&mut self, traffic: TreeTraffic) -> Result<()> {
        let n = self.t.n;
        if !(traffic.rate > 0.0 && traffic.rate <= 1.0) {
            return Err(Error::Config {
                field: "rate",
                value: crate::error::show_number(traffic.rate),
                reason: "a rate is a probability per node per cycle in (0, 1]".into(),
            });
        }
        if traffic.min_dests == 0 || traffic.min_dests > traffic.max_dests || traffic.max_dests >= n
        {
            return Err(Error::Config {
                field: "dests",
                value: format!("{}..{}", traffic.min_dests, traffic.max_dests),
                reason: format!("1 <= min <= max <= {} (nodes other than the source)", n - 1),
            });
        }
        if traffic.queue_cap == 0 {
            return Err(Error::Config {
                field: "queue_cap",
                value: "0".into(),
                reason: "a source queue holds at least one multicast".into(),
            });
        }
        self.check_dests(0, &[1], traffic.data, traffic.scheme)?;
        self.traffic = Some(traffic);
        self.arrivals.clear();
        for node in 0..n {
            let at = self.cycle + self.gap(traffic.rate);
            self.arrivals.push(Reverse((at, node)));
        }
        Ok(())
    }

    /// Stops random traffic (messages already created still run).
    pub fn stop_traffic(&mut self) {
        self.traffic = None;
        self.arrivals.clear();
    }

    fn gap(&mut self, rate: f64) -> u64 {
        if rate >= 1.0 {
            return 1;
        }
        let u: f64 = self.rng.random::<f64>();
        let g = ((1.0 - u).ln() / crate::gaps::ln_no_packet(rate)).floor();
        1 + g.min(1e15) as u64
    }

    fn generate(&mut self) {
        let Some(t) = self.traffic else { return };
        let n = self.t.n;
        while let Some(&Reverse((at, node))) = self.arrivals.peek() {
            if at > self.cycle {
                break;
            }
            self.arrivals.pop();
            let k = self.rng.random_range(t.min_dests..=t.max_dests) as usize;
            if self.nis[node as usize].pending >= t.queue_cap {
                self.stats.refused += 1;
            } else {
                let mut dests = Vec::with_capacity(k);
                while dests.len() < k {
                    let d = self.rng.random_range(0..n);
                    if d != node && !dests.contains(&d) {
                        dests.push(d);
                    }
                }
                dests.sort_unstable();
                self.create(node, &dests, t.data, t.scheme);
            }
            let next = at + self.gap(t.rate);
            self.arrivals.push(Reverse((next, node)));
        }
    }

    /// Runs `cycles` cycles.
    pub fn run(&mut self, cycles: u64) -> Result<()> {
        let end = self.cycle.saturating_add(cycles);
        while self.cycle < end {
            self.advance(end - self.cycle)?;
        }
        self.settle()
    }

    /// One step, or as many quiet cycles as [`quiet_cycles`](Self::quiet_cycles)
    /// allows up to `horizon` (at least 1) in one go.
    fn advance(&mut self, horizon: u64) -> Result<()> {
        match self.quiet_cycles(horizon) {
            q if q > 1 => {
                self.skip(q);
                Ok(())
            }
            _ => self.step_batched(),
        }
    }

    /// Cycles from now, up to `horizon`, in which stepping would change
    /// nothing but the clock: no router has an active input, no interface
    /// has a worm to send, no multicast is out, no cycle a waveform samples
    /// is passed ([`Window::skippable`](crate::rtl::trace::Window::skippable)),
    /// and the random traffic's next message is not due. 0 while anything
    /// is live.
    pub fn quiet_cycles(&self, horizon: u64) -> u64 {
        // A traced network skips only cycles its waveform leaves unsampled.
        let horizon = match self.tracing.as_deref() {
            None => horizon,
            Some(t) if t.full => 0,
            Some(t) => horizon.min(t.window.skippable(self.cycle)),
        };
        if horizon == 0
            || self.in_flight
            || self.cross_pending
            || !self.mcasts.is_empty()
            || self.live_routers.0.iter().any(|l| l.0 != [0; 8])
            || self.live_nis.0.iter().any(|l| l.0 != [0; 8])
        {
            return 0;
        }
        match self.arrivals.peek() {
            Some(&Reverse((at, _))) if self.traffic.is_some() => {
                horizon.min(at.saturating_sub(self.cycle))
            }
            _ => horizon,
        }
    }

    /// Advances the clock by `cycles` cycles in which nothing can happen
    /// (at most [`quiet_cycles`](Self::quiet_cycles)): what as many steps
    /// would do, in one.
    pub fn skip(&mut self, cycles: u64) {
        debug_assert!(
            cycles <= self.quiet_cycles(cycles),
            "skipping {cycles} cycles of a live network"
        );
        self.cycle += cycles;
    }

    /// Runs until every multicast created so far is complete; returns the
    /// cycle count then. Fails after `limit` cycles.
    pub fn run_until_delivered(&mut self, limit: u64) -> Result<u64> {
        let end = self.cycle + limit;
        while !self.mcasts.is_empty() {
            if self.cycle >= end {
                self.settle()?;
                return Err(Error::Fault {
                    cycle: self.cycle,
                    what: format!(
                        "{} still in flight after {}",
                        crate::error::counted(self.mcasts.len() as u64, "multicasts"),
                        crate::error::counted(limit, "cycles")
                    ),
                });
            }
            self.advance(end - self.cycle)?;
        }
        self.settle()?;
        Ok(self.cycle)
    }

    /// One clock cycle: every router evaluates on the state at the start of
    /// the cycle, then links, closes, credits, deliveries and injections are
    /// applied at the edge.
    pub fn step(&mut self) -> Result<()> {
        self.step_batched()?;
        self.settle()
    }

    /// [`step`](Self::step), but the edge's writes that cross from one
    /// range of routers to another may be left for the ranges' threads to
    /// apply at the start of the next cycle (see [`XBuf`]), when nothing
    /// reads them before: the run is the same, and the calling thread does
    /// not wait between cycles for writes into the other threads' routers.
    /// An overrun among them is reported by the next step, or by
    /// [`settle`](Self::settle), as the fault of the cycle that made it;
    /// a caller that stops stepping must settle before it reads the
    /// routers or ends the run.
    ///
    /// With [`set_overlap`](Self::set_overlap) on several threads (and no
    /// tracer and no random traffic of its own), a step also returns as
    /// soon as the calling thread's own range is done, the other ranges
    /// still running, and the next step finishes that cycle: their faults
    /// and the watchdog before it hands its own cycle over, the worms
    /// started, prunes, routes and copies delivered just after (or before,
    /// when any of them could end the run). So the calling thread's work
    /// between two cycles (the harness's, and the edge's bookkeeping) runs
    /// beside the other ranges instead of before them. Between such steps
    /// only [`send`](Self::send) (a message for a running range waits in
    /// that range's list), [`quiet_cycles`](Self::quiet_cycles) (0),
    /// [`take_deliveries`](Self::take_deliveries) and
    /// [`settle`](Self::settle) (which finish the cycle first) may be used.
    /// A fault is the same fault of the same cycle as on one thread; after
    /// it the network is not to be stepped again.
    pub(crate) fn step_batched(&mut self) -> Result<()> {
        if let Some(e) = self.pending_err.take() {
            return Err(e);
        }
        let overlap =
            self.overlap && self.crew.is_some() && self.tracing.is_none() && self.traffic.is_none();
        if !overlap {
            self.land()?;
            return self.step_sync();
        }
        // The last cycle's ranges: their faults and the watchdog now, the
        // rest of their outboxes once this cycle is handed over.
        let deferred = if self.in_flight {
            self.crew.as_mut().expect("a crew").wait();
            self.in_flight = false;
            self.finish(self.cycle - 1, true)?
        } else {
            None
        };
        if !self.hand_over() {
            // Too little to hand over: the calling thread runs every range
            // and finishes the cycle, as one thread's step.
            if let Some(c) = deferred {
                self.edge_lists(c, true)?;
            }
            return self.step_on(Some(false));
        }
        let jobs = self.jobs();
        let crew = self.crew.as_mut().expect("a crew");
        crew.start(&jobs);
        // Waits for the helpers if anything below panics.
        let running = crew.pending();
        self.in_flight = true;
        self.cycle += 1;
        if let Some(c) = deferred
            && let Err(e) = self.edge_lists(c, false)
        {
            drop(running);
            self.crew.as_mut().expect("a crew").wait();
            self.in_flight = false;
            return Err(e);
        }
        // SAFETY: the first range is this thread's alone for the cycle, and
        // its pointers are fresh (nothing moved the vectors since `jobs`).
        unsafe { jobs[0].run() };
        std::mem::forget(running);
        Ok(())
    }

    /// One cycle on the calling thread's terms: every range run and waited
    /// for, then the cycle finished.
    fn step_sync(&mut self) -> Result<()> {
        self.step_on(None)
    }

    /// [`step_sync`](Self::step_sync), with the cycle handed to the
    /// helpers or not as `shared` says (`None`: as
    /// [`hand_over`](Self::hand_over) says).
    fn step_on(&mut self, shared: Option<bool>) -> Result<()> {
        self.generate();
        if let Some(tr) = self.tracing.as_mut() {
            for (w, live) in tr.sample.iter_mut().zip(self.live_routers.words()) {
                *w |= live;
            }
            // The inputs the evaluation visits (an input it leaves idle
            // is not active after it).
            for (w, live) in self.live_routers.words().enumerate() {
                for b in crate::rtl::PortIter(live) {
                    let r = w << 6 | b;
                    tr.units[r] |= self.routers[r].active as u128;
                }
            }
        }
        // Every live router, in index order within each range: a router is
        // in the set exactly when one of its inputs is active, and
        // evaluating one never wakes another (that waits for the edge).
        self.run_ranges(shared);
        let c = self.cycle;
        self.cycle += 1;
        self.finish(c, false).map(|_| ())
    }

    /// Finishes cycle `c` once every range has run it (the clock already
    /// reads `c + 1`): the faults of the crossing writes taken and of phase
    /// 1, the edge, the tracer's sample and the watchdog. With `defer`, the
    /// lists of the outboxes (worms started, prunes, routes, copies) are
    /// left to [`edge_lists`](Self::edge_lists) when nothing in them can
    /// end the run (no fault among them, and the watchdog cannot fire
    /// whatever they deliver): returns `Some(c)` then.
    fn finish(&mut self, c: u64, defer: bool) -> Result<Option<u64>> {
        if std::mem::take(&mut self.cross_pending) {
            // The last cycle's crossing writes were applied first: an
            // overrun among them is that cycle's fault, the first in the
            // order the calling thread would have applied them.
            let first = self
                .evs
                .iter_mut()
                .filter_map(|ev| ev.out.cross_fault.take())
                .min_by_key(|&(k, j, _)| (k, j));
            if let Some((_, _, what)) = first {
                return Err(Error::Fault { cycle: c - 1, what });
            }
        }
        // The first range's fault is the lowest router's.
        let mut moved = false;
        let mut fault = None;
        let mut wait_until = 0;
        for ev in &mut self.evs {
            let out = &mut ev.out;
            moved |= out.moved;
            wait_until = wait_until.max(std::mem::take(&mut out.wait_until));
            if fault.is_none() && out.any {
                fault = out.fault.take();
            }
        }
        if let Some(what) = fault {
            return Err(Error::Fault { cycle: c, what });
        }
        self.cross_pending = self.evs.iter().any(|ev| ev.out.crossed);
        // Writes crossing between ranges wait for the next cycle's jobs
        // unless something reads them first: the tracer, or a fault of
        // this edge (an overrun among them comes before any other).
        if self.tracing.is_some() || self.evs.iter().any(|ev| ev.out.edge_fault.is_some()) {
            self.settle_at(c)?;
        }
        // The rest of each outbox moves to this thread's lists, so that
        // the ranges may run the next cycle while it is worked through.
        let (mut any, mut ends) = (false, false);
        for (ev, l) in self.evs.iter_mut().zip(&mut self.lists) {
            let out = &mut ev.out;
            if !out.any {
                continue;
            }
            any = true;
            // The emptied lists of the last cycle go back, with their room.
            std::mem::swap(&mut out.lists, l);
            ends |= l.eject_fault.is_some() || l.inject_fault.is_some();
            l.any = true;
            out.any = false;
        }
        if moved {
            self.last_move = self.last_move.max(c);
        }
        // A source paying a start-up is progress, not a stall, until it
        // may send.
        let last_move = self.last_move.max(wait_until);
        // No flit has moved for longer than the watchdog allows while a
        // multicast is out (the lists' deliveries may yet complete them).
        let stalled = |net: &TreeNet| {
            !net.mcasts.is_empty() && net.cycle.saturating_sub(last_move) > net.watchdog_window()
        };
        let deferred = if defer && any && !ends && !stalled(self) {
            Some(c)
        } else {
            if any {
                self.edge_lists(c, true)?;
            }
            None
        };
        if self.tracing.is_some() {
            self.sample_trace()?;
        }
        self.last_move = last_move;
        if deferred.is_none() && stalled(self) {
            self.settle()?;
            return Err(Error::TreeDeadlock(Box::new(self.wait_report())));
        }
        Ok(deferred)
    }

    /// The jobs of the cycle the clock reads, one per range.
    fn jobs(&mut self) -> SmallVec<[par::Job; 4]> {
        (0..self.ranges.len()).map(|k| self.job(k, true)).collect()
    }

    /// Range `k`'s job of the cycle the clock reads; `count`: whether it
    /// counts its work for the hand-over rule.
    fn job(&mut self, k: usize, count: bool) -> par::Job {
        par::Job {
            t: &self.t,
            cfg: &self.cfg,
            nis: self.nis.as_mut_ptr(),
            ejs: self.ejs.as_mut_ptr(),
            ni_words: self.live_nis.as_mut_ptr(),
            cycle: self.cycle,
            routers: self.routers.as_mut_ptr(),
            words: self.live_routers.as_mut_ptr(),
            range: self.ranges[k],
            records: self.evs.as_mut_ptr(),
            k,
            xbuf: self.xbuf.as_mut_ptr(),
            take_cross: self.cross_pending,
            n_ranges: self.ranges.len(),
            stage: self.stage.as_mut_ptr(),
            count,
        }
    }

    /// Runs every range on its thread: phase 1, then the edge's writes,
    /// ejections and injections that stay within the range.
    /// `shared`: the cycle is handed to the helpers (`None`: if
    /// [`hand_over`](Self::hand_over) says so).
    fn run_ranges(&mut self, shared: Option<bool>) {
        if self.crew.is_none() {
            // One thread: no hand-over rule to count for.
            let job = self.job(0, false);
            // SAFETY: one thread, and the pointers are fresh.
            unsafe { job.run() };
            return;
        }
        let shared = shared.unwrap_or_else(|| self.hand_over());
        if !shared {
            // The ranges one after the other on this thread, each job made
            // as it runs (no list of them to build for a light cycle); the
            // ranges count their work every few such cycles.
            let count = self.shift.count_due();
            for k in 0..self.ranges.len() {
                let job = self.job(k, count);
                // SAFETY: the helpers run nothing between cycles, so every
                // range is this thread's, and the pointers are fresh.
                unsafe { job.run() };
            }
            return;
        }
        let jobs = self.jobs();
        let crew = self.crew.as_mut().expect("a crew");
        // The ranges are disjoint, and `run` returns only when every
        // thread is done with its own.
        crew.run(&jobs);
    }

    /// Whether the cycle about to run is handed to the helpers
    /// ([`Shift`]), by the routers and interfaces each range left live at
    /// the end of the last cycle; asked once a cycle.
    fn hand_over(&mut self) -> bool {
        self.shift.hand_over(self.evs.iter().map(|ev| ev.out.work))
    }

    /// The rest of the clock edge of cycle `cycle`, on the calling thread,
    /// from each range's outbox in range order (the order one thread makes
    /// them in): the worms started, prunes and routes, and the copies
    /// delivered. `settle` says whether a fault may settle the crossing
    /// writes first (not while the next cycle's ranges run: the run ends
    /// with the fault either way).
    fn edge_lists(&mut self, cycle: u64, settle: bool) -> Result<()> {
        for l in &mut self.lists {
            if !l.any {
                continue;
            }
            for id in l.started.drain(..) {
                self.msgs.get_mut(id).expect("queued").injected = cycle;
            }
            for (r, msg, cut) in l.prunes.drain(..) {
                self.stats.prunes += 1;
                self.stats.branches_cut += cut as u64;
                if self.cfg.keep_prunes {
                    let mcast = self.msgs.get(msg).map_or(NONE32, |m| m.mcast);
                    self.prune_log.push(PruneEvent {
                        cycle,
                        node: r,
                        mcast,
                        cut,
                    });
                }
            }
            for (msg, dest, r, h) in l.hops.drain(..) {
                let mcast = self.msgs.get(msg).map_or(NONE32, |m| m.mcast);
                self.routes.entry((mcast, dest)).or_default().push((r, h));
            }
        }
        let mut inject_fault = None;
        for k in 0..self.lists.len() {
            if !std::mem::take(&mut self.lists[k].any) {
                continue;
            }
            let copies = std::mem::take(&mut self.lists[k].copies);
            for &a in &copies {
                if let Err(e) = self.deliver(a, cycle) {
                    if settle {
                        self.settle_at(cycle)?;
                    }
                    return Err(e);
                }
            }
            self.lists[k].copies = copies;
            self.lists[k].copies.clear();
            if let Some(what) = self.lists[k].eject_fault.take() {
                if settle {
                    self.settle_at(cycle)?;
                }
                return Err(Error::Fault { cycle, what });
            }
            // The interfaces injected in their ranges' threads
            // (`par::Job`): the first range's overrun is the one told.
            let f = self.lists[k].inject_fault.take();
            inject_fault = inject_fault.or(f);
        }
        if let Some(what) = inject_fault {
            if settle {
                self.settle_at(cycle)?;
            }
            return Err(Error::Fault { cycle, what });
        }
        Ok(())
    }

    /// Finishes the cycle a step left running ([`step_batched`](Self::step_batched)
    /// with overlap): waits for the other ranges, finishes the cycle, and
    /// hands the messages sent meanwhile to their interfaces.
    #[inline]
    fn land(&mut self) -> Result<()> {
        if !self.in_flight {
            return Ok(());
        }
        self.land_in_flight()
    }

    /// [`land`](Self::land) once a cycle was left running: out of line, so
    /// that a step on one thread carries only the test.
    #[inline(never)]
    fn land_in_flight(&mut self) -> Result<()> {
        self.crew.as_mut().expect("a crew").wait();
        self.in_flight = false;
        let deferred = self.finish(self.cycle - 1, false)?;
        debug_assert!(deferred.is_none());
        // The ranges' lists of messages for the cycle the clock reads.
        let p = (self.cycle & 1) as usize;
        for stage in &mut self.stage {
            for (node, q, first) in stage.0[p].drain(..) {
                self.nis[node as usize].queue_msg(q, first);
                self.live_nis.insert(node);
            }
        }
        Ok(())
    }

    /// Runs the ranges of the next steps beside the calling thread's work
    /// between cycles (see [`step_batched`](Self::step_batched)): on for
    /// the one engine's harness, which reads the network only through
    /// what a step may leave running.
    pub(crate) fn set_overlap(&mut self, on: bool) {
        self.overlap = on;
    }

    /// The range whose interfaces hold node `node`'s.
    fn range_of(&self, node: u32) -> usize {
        let w = (node >> 6) as usize;
        self.ranges
            .iter()
            .position(|&(lo, hi)| (lo..hi).contains(&w))
            .unwrap_or(0)
    }

    /// Applies, on this thread, the crossing writes the last step left
    /// for the next cycle's jobs ([`step_batched`](Self::step_batched)),
    /// and reports an overrun among them as that cycle's fault; first
    /// finishes a cycle a step left running. Nothing to do after
    /// [`step`](Self::step), which settles.
    pub(crate) fn settle(&mut self) -> Result<()> {
        if let Some(e) = self.pending_err.take() {
            return Err(e);
        }
        self.land()?;
        if self.cross_pending {
            self.settle_at(self.cycle - 1)?;
        }
        Ok(())
    }

    /// The edge of cycle `cycle`, finished on this thread: each range in
    /// turn, its first overrun within the range, then its writes into
    /// other ranges' routers in order (an overrun among them is the
    /// range's fault if it comes earlier in the record); the first range
    /// with a fault gives the cycle's.
    fn settle_at(&mut self, cycle: u64) -> Result<()> {
        let p = (cycle & 1) as usize;
        let mut first = None;
        for (ev, x) in self.evs.iter_mut().zip(&mut self.xbuf) {
            let mut first_here = ev.out.edge_fault.take();
            if self.cross_pending {
                for w in x.0[p].drain(..) {
                    let router = &mut self.routers[w.router() as usize];
                    // SAFETY: every range is done; this thread alone writes.
                    let f = unsafe { w.apply(&self.t, router, self.live_routers.as_mut_ptr()) };
                    if let (Some(what), Write::Send(_, j)) = (f, w)
                        && first_here.as_ref().is_none_or(|&(i, _)| j < i)
                    {
                        first_here = Some((j, what));
                    }
                }
            }
            if first.is_none() {
                first = first_here;
            }
        }
        self.cross_pending = false;
        match first {
            Some((_, what)) => Err(Error::Fault { cycle, what }),
            None => Ok(()),
        }
    }

    /// A copy complete at node `c.node`: checked against its message, and
    /// counted (the multicast completes with its last copy).
    fn deliver(&mut self, c: Arrived, cycle: u64) -> Result<()> {
        let fault = |what: String| Err(Error::Fault { cycle, what });
        let Arrived { node, msg, got } = c;
        let grid = &self.t.grid;
        let name = || grid.node_name(node);
        let Some(m) = self.msgs.get_mut(msg) else {
            return fault(format!(
                "a copy of finished message {msg} reached {}",
                name()
            ));
        };
        if got != m.data {
            return fault(format!("{} got {got} of {} data flits", name(), m.data));
        }
        let Some(k) = m.dests.iter().position(|&d| d == node) else {
            return fault(format!("{} is not a destination of message {msg}", name()));
        };
        if std::mem::replace(&mut m.got[k], true) {
            return fault(format!("{} got message {msg} twice", name()));
        }
        m.left -= 1;
        self.stats.deliveries += 1;
        let mcast = m.mcast;
        if self.cfg.keep_deliveries {
            let mc = &self.mcasts[mcast];
            let (src, created) = (mc.src, mc.created);
            self.deliveries.push(TreeDelivery {
                cycle,
                created,
                data: m.data,
                injected: m.injected,
                mcast,
                src,
                node,
            });
        }
        if m.left == 0 {
            self.msgs.remove(msg);
            let mc = self.mcasts.get_mut(mcast).expect("a message's multicast");
            mc.left -= 1;
            if mc.left == 0 {
                let mc = self.mcasts.remove(mcast).unwrap();
                self.stats.completed += 1;
                if mc.created >= self.measure_from {
                    let lat = cycle - mc.created;
                    self.stats.measured += 1;
                    self.stats.latency_sum += lat;
                    self.stats.latency_max = self.stats.latency_max.max(lat);
                }
            }
        }
        Ok(())
    }

    /// Starts writing every router's registers to `sink` (before the first
    /// cycle): per router `top.r<node>`, per input `in_<port><vc>` (`in_inj`
    /// for injection) its FIFO count, open message, branch mask, replay flag,
    /// auxiliary-buffer count and stall counter; per output `out_<port><vc>`
    /// (`out_ej` for consumption) its owner input (all ones: free), credits,
    /// and the link register: valid, flit word and message of the flit sent
    /// in the last cycle, and the `close` side-band wire (docs/signals.md).
    /// Of a sink that wants less ([`WaveSink::wants`]: a window of cycles,
    /// some routers), the rest is left unsampled.
    pub fn attach_tracer(&mut self, sink: Box<dyn WaveSink>, cycle_ps: u64) -> Result<()> {
        if self.cycle != 0 {
            return Err(Error::Config {
                field: "tracing",
                value: format!("cycle {}", self.cycle),
                reason: "a tracer must be attached before the first cycle".into(),
            });
        }
        let t = &self.t;
        let depth = self.cfg.buffer_flits as u32;
        let mut hier = Hierarchy::new("top");
        let (mut first, mut count) = (Vec::new(), Vec::new());
        {
            let mut root = hier.root();
            for r in 0..t.n {
                let before = root.signal_count();
                root.scope(&format!("r{r}"), |s| declare_router(t, depth, s));
                first.push(before);
                count.push(root.signal_count() - before);
            }
        }
        hier.check_room()?;
        let slots = t.n as usize * t.n_in;
        let mut tr = TreeTracing {
            state: TraceState::new(&hier),
            hier: hier.clone(),
            sink,
            first,
            count,
            links: vec![None; slots],
            closes: vec![false; slots],
            touched: Vec::new(),
            sample: vec![0; (t.n as usize).div_ceil(64)],
            units: vec![0; t.n as usize],
            full: false,
            window: Default::default(),
            wanted: Vec::new(),
        };
        sample_all(t, &self.routers, &mut tr);
        tr.sink.begin(&hier, cycle_ps, &tr.state)?;
        tr.state.clear_changes();
        let wants = tr.sink.wants();
        (tr.window, tr.wanted) = (wants.window, wants.components(&tr.first, &tr.count));
        self.tracing = Some(Box::new(tr));
        for ev in &mut self.evs {
            ev.trace = true;
        }
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
        let mut hier = None;
        if let Some(mut tr) = self.tracing.take() {
            tr.sink.finish(self.cycle)?;
            hier = Some(tr.hier);
        }
        for ev in &mut self.evs {
            ev.trace = false;
        }
        Ok(hier)
    }

    fn sample_trace(&mut self) -> Result<()> {
        let Some(tr) = self.tracing.as_mut() else {
            return Ok(());
        };
        let n_in = self.t.n_in;
        let mark = |sample: &mut [u64], r: usize| sample[r >> 6] |= 1 << (r & 63);
        let out = |k: usize| out_unit((k % n_in) as u16);
        for k in tr.touched.drain(..) {
            tr.links[k] = None;
            tr.closes[k] = false;
            mark(&mut tr.sample, k / n_in);
            tr.units[k / n_in] |= out(k);
        }
        // The links driven and the closes raised come from routers
        // evaluated this cycle, already in the set.
        for ev in &mut self.evs {
            for (r, o, f) in ev.link_log.drain(..) {
                let k = r as usize * n_in + o as usize;
                tr.links[k] = Some(f);
                tr.touched.push(k);
                tr.units[k / n_in] |= out(k);
            }
            // A close comes with its output's release, among the marks.
            for (r, o) in ev.close_log.drain(..) {
                let k = r as usize * n_in + o as usize;
                tr.closes[k] = true;
                tr.touched.push(k);
            }
            for (r, o) in ev.marks.drain(..) {
                mark(&mut tr.sample, r as usize);
                if o != NONE8 {
                    tr.units[r as usize] |= out_unit(o as u16);
                }
            }
        }
        // The routers the edge woke, with those still active.
        for (w, live) in tr.sample.iter_mut().zip(self.live_routers.words()) {
            *w |= live;
        }
        if tr.full {
            for r in 0..self.t.n as usize {
                mark(&mut tr.sample, r);
            }
        } else if !tr.window.holds(self.cycle) {
            // Outside the sink's window: the links and closes above are
            // kept up, nothing is sampled, and the sink is not called.
            tr.sample.fill(0);
            return Ok(());
        } else if self.cycle == tr.window.from {
            // The window's first cycle after cycles left unsampled: every
            // router the sink writes, whole (`sample_some`), so that it
            // gets every change since its first values.
            tr.sample.copy_from_slice(&tr.wanted);
        }
        let whole = tr.full || self.cycle == tr.window.from;
        sample_some(&self.t, &self.routers, tr, whole);
        tr.sink.cycle(self.cycle, &tr.state, tr.state.changed())?;
        tr.state.clear_changes();
        Ok(())
    }

    /// Cycles without a flit moving (or a branch closing) after which the
    /// watchdog reports a deadlock: `watchdog`, plus the stall limit when
    /// the routers prune. An input stalled for want of credits prunes only
    /// after `stall_limit` stalled cycles, and its prune closes branches
    /// that may be all that a cycle of waits needs; a watchdog shorter than
    /// that called such a network deadlocked (a stall limit of 3,000 on the
    /// 8x8 mesh under multicast load: "deadlock at cycle 2100").
    pub fn watchdog_window(&self) -> u64 {
        let prune = self.cfg.pruning.stall_limit().map_or(0, u64::from);
        self.cfg.watchdog.saturating_add(prune)
    }

    /// Builds the watchdog's report: every input channel with an open
    /// segment waits for at most one other (the holder of the channel its
    /// header needs, the downstream input of a branch without credits, or,
    /// when it is empty, the upstream input feeding it); the first cycle
    /// found by following those waits is reported.
    fn wait_report(&self) -> TreeWaitReport {
        let t = &self.t;
        let n_in = t.n_in;
        let key = |r: u32, i: usize| r as usize * n_in + i;
        let mut next = vec![usize::MAX; t.n as usize * n_in];
        let mut why = vec![String::new(); t.n as usize * n_in];
        let g = &t.grid;
        let mcast_of = |msg: u32| self.msgs.get(msg).map_or(NONE32, |m| m.mcast);
        for (r, router) in self.routers.iter().enumerate() {
            let r = r as u32;
            for (i, iv) in router.ins.0[..n_in].iter().enumerate() {
                let Some(f) = iv.fifo.front().or(if iv.msg != NONE32 {
                    Some(Flit::header(iv.msg, NONE32))
                } else {
                    None
                }) else {
                    continue;
                };
                let here = format!(
                    "multicast {} at {} {}",
                    mcast_of(f.msg),
                    g.node_name(r),
                    t.input_name(i)
                );
                let downstream = |o: usize| -> usize {
                    let to = t.peer[r as usize * t.ej + o];
                    key(to.router, to.x as usize)
                };
                let k = key(r, i);
                if iv.replay_out != NONE8 && iv.replay_out as usize != t.ej {
                    let o = iv.replay_out as usize;
                    next[k] = downstream(o);
                    why[k] = format!(
                        "{here}: replays data on {}, no credit",
                        g.channel_name(r, t.hop(o))
                    );
                } else if iv.fifo.is_empty() {
                    if i == t.ej {
                        continue;
                    }
                    let Peer { router: up, x } = t.peer[r as usize * t.ej + i];
                    let o = x as usize;
                    let owner = self.routers[up as usize].outs[o].owner;
                    if owner != NONE8 {
                        next[k] = key(up, owner as usize);
                        why[k] = format!(
                            "{here}: branch open but empty, waits for {} to feed {}",
                            t.input_name(owner as usize),
                            g.channel_name(up, t.hop(o))
                        );
                    }
                } else if f.is_data() {
                    if iv.first != NONE8 && iv.first as usize != t.ej {
                        next[k] = downstream(iv.first as usize);
                        why[k] = format!(
                            "{here}: data flit waits for credit on {}",
                            g.channel_name(r, t.hop(iv.first as usize))
                        );
                    }
                } else {
                    let o = t.route(r, f.dest());
                    if o == t.ej {
                        continue;
                    }
                    let ch = g.channel_name(r, t.hop(o));
                    let target = g.node_name(f.dest());
                    if iv.branches & (1 << o) != 0 {
                        next[k] = downstream(o);
                        why[k] = format!(
                            "{here}: header for {target} waits for credit on its branch {ch}"
                        );
                    } else if router.outs[o].owner != NONE8 {
                        let w = router.outs[o].owner as usize;
                        next[k] = key(r, w);
                        let holder = mcast_of(router.ins[w].msg);
                        why[k] = format!(
                            "{here}: header for {target} waits for {ch} held by multicast {holder} from {}",
                            t.input_name(w)
                        );
                    }
                }
            }
        }
        // One wait per input at most: the cycle of the shared wait-for
        // analysis (`crate::rtl::waitfor`), from the lowest input on it.
        let mut waits = WaitGraph::new();
        for &k in &next {
            waits.place((k != usize::MAX).then_some(Some(k)));
        }
        let dead = waits.dead();
        let steps: Vec<String> = waits
            .cycle(&dead)
            .into_iter()
            .map(|x| why[x].clone())
            .collect();
        TreeWaitReport {
            cycle: self.cycle,
            bound: self.watchdog_window(),
            // Those created by the cycle found stalled (a harness may have
            // sent more since, while the cycle finished).
            in_flight: self
                .mcasts
                .values()
                .filter(|m| m.created < self.cycle)
                .count(),
            steps,
        }
    }
}

/// Phase 1 of one router: every active input, in a rotating order, moves at
/// most one flit.
fn eval_router(t: &Tables, cfg: &TreeConfig, r: u32, router: &mut TreeRouter, ev: &mut Events) {
    let n_in = t.n_in;
    router.wanted = std::mem::take(&mut router.wanted_next);
    let start = router.rr as usize;
    router.rr = if start + 1 == n_in {
        0
    } else {
        start as u8 + 1
    };
    let mut used: u32 = 0;
    // The active inputs from `start` up, then those below it: the first
    // in the low half of the word, the second in the high half, so that
    // the bits come in that order and a bit's place modulo 32 is its input.
    let a = router.active as u64;
    let from = a & (u64::MAX << start);
    let mut todo = from | (a ^ from) << 32;
    while todo != 0 {
        let i = todo.trailing_zeros() as usize & 31;
        todo &= todo - 1;
        eval_input(t, cfg, r, router, i, &mut used, ev);
        let iv = &router.ins[i];
        if iv.fifo.is_empty() && iv.msg == NONE32 {
            router.active &= !(1 << i);
        }
    }
}

/// One cycle of interface `node`'s injection channel: starts its next worm
/// when it may, and sends a flit of the current one into its router's
/// injection input when a credit allows. Returns whether a flit entered,
/// or the fault.
#[allow(clippy::too_many_arguments)]
#[inline]
fn inject_node(
    t: &Tables,
    startup: u64,
    cycle: u64,
    node: usize,
    ni: &mut Ni,
    router: &mut TreeRouter,
    ev: &mut Events,
) -> std::result::Result<bool, String> {
    // The next worm starts when a credit lets it, or at once when it first
    // pays its start-up.
    if ni.cur == NONE32 && !ni.queue.is_empty() && (ni.credits > 0 || startup > 0) {
        ni.now = ni.queue.pop_front().unwrap();
        ni.cur = ni.now.id;
        ni.pos = 0;
        ni.start_at = cycle.saturating_add(startup);
        let out = &mut ev.out;
        out.wait_until = out.wait_until.max(ni.start_at);
        ev.worms += 1;
    }
    if ni.cur == NONE32 || ni.credits == 0 || cycle < ni.start_at {
        return Ok(false);
    }
    let id = ni.cur;
    let m = &ni.now;
    let data = m.data as u32;
    let pos = ni.pos;
    let mut f = if pos == 0 {
        Flit::header(id, m.dests[0])
    } else if pos <= data {
        Flit::data(id, (pos - 1) as u16, pos == data)
    } else {
        Flit::header(id, m.dests[(pos - data) as usize])
    };
    let len = m.dests.len() as u32 + data;
    let mcast = m.mcast;
    ni.pos += 1;
    ni.credits -= 1;
    if ni.pos == len {
        f.end = true;
        let next_same = ni.queue.front().is_some_and(|n| n.mcast == mcast);
        if !next_same {
            ni.pending -= 1;
        }
        ni.cur = NONE32;
    }
    if router.ins[t.ej].fifo.push(f).is_err() {
        return Err(format!(
            "injection overrun at {}",
            t.grid.node_name(node as u32)
        ));
    }
    router.active |= 1 << t.ej;
    ev.moved = true;
    ev.link_count[node * (t.ports + 2) + t.ports + 1] += 1;
    if pos == 0 {
        ev.out.lists.started.push(id);
    }
    Ok(true)
}

/// The flits that reached the consumption channels of a range's nodes this
/// cycle, in order: each is checked against its node's copy in progress
/// (right node, data in order), and a copy whose last data flit arrived
/// goes to the outbox for the calling thread to check against its message
/// ([`TreeNet::deliver`]). Stops at the first fault, which goes there too.
fn eject_range(t: &Tables, ejs: &mut [NiEject], base: u32, ev: &mut Events) {
    let Events { ejects, out, .. } = ev;
    for e in ejects.drain(..) {
        let (node, f) = (e.router, e.flit());
        let ni = &mut ejs[(node - base) as usize];
        let grid = &t.grid;
        // The node's name only for a fault: building it for every flit
        // cost a fifth of a run's instructions.
        let name = || grid.node_name(node);
        let what = if !f.is_data() {
            if f.dest() != node {
                format!(
                    "a header for {} was consumed at {}",
                    grid.node_name(f.dest()),
                    name()
                )
            } else if ni.msg != NONE32 {
                format!(
                    "a second header entered the consumption channel of {} during a copy",
                    name()
                )
            } else {
                ni.msg = f.msg;
                ni.got = 0;
                continue;
            }
        } else if ni.msg != f.msg || f.idx() != ni.got {
            format!(
                "data flit {} of message {} reached {} out of place",
                f.idx(),
                f.msg,
                name()
            )
        } else {
            ni.got += 1;
            if f.is_last_data() {
                ni.msg = NONE32;
                out.lists.copies.push(Arrived {
                    node,
                    msg: f.msg,
                    got: ni.got,
                });
            }
            continue;
        };
        out.lists.eject_fault = Some(what);
        return;
    }
}

/// One write of the clock edge into a router's registers.
#[derive(Clone, Copy, Debug)]
enum Write {
    /// An output virtual channel is free again.
    Release(u32, u8),
    /// A prune request on an output's wire.
    Want(u32, u8),
    /// A flit into an input FIFO (the position of the flit in its record,
    /// to report the first overrun).
    Send(LinkFlit, u32),
    /// A close on an input.
    Close(u32, u8),
    /// A credit back to an output.
    Credit(u32, u8),
}

impl Write {
    fn router(self) -> u32 {
        match self {
            Write::Send(s, _) => s.router,
            Write::Release(r, _) | Write::Want(r, _) | Write::Close(r, _) | Write::Credit(r, _) => {
                r
            }
        }
    }

    /// Writes it into router `r` (its router), waking the router in the
    /// live set `words`; an overrun is a fault.
    ///
    /// # Safety
    /// `router` is its router, and `words` the live set's words, with no
    /// other thread touching either.
    unsafe fn apply(self, t: &Tables, router: &mut TreeRouter, words: *mut u64) -> Option<String> {
        let r = self.router();
        // SAFETY: by the caller.
        let wake = || unsafe { *words.add((r >> 6) as usize) |= 1 << (r & 63) };
        match self {
            Write::Release(_, o) => router.outs[o as usize].owner = NONE8,
            // The branch's input has its segment open, so the router is
            // active and registers the request at its next evaluation.
            Write::Want(_, o) => router.wanted_next |= 1 << o,
            Write::Send(s, _) => {
                let i = s.input as usize;
                if router.ins[i].fifo.push(s.flit()).is_err() {
                    return Some(format!(
                        "flow control overrun at {} {}",
                        t.grid.node_name(r),
                        t.input_name(i)
                    ));
                }
                router.active |= 1 << i;
                wake();
            }
            Write::Close(_, i) => {
                let iv = &mut router.ins[i as usize];
                match iv.fifo.back_mut() {
                    Some(f) => f.end = true,
                    None => iv.end_now = true,
                }
                router.active |= 1 << i;
                wake();
            }
            Write::Credit(_, o) => router.outs[o as usize].credits += 1,
        }
        None
    }
}

/// Applies the edge's writes of a range's record `ev` that go to routers of
/// the range (set words `lo..hi`), in the record's order, and keeps those
/// that cross to another range in `cross` (emptied first; see [`XBuf`]).
/// Returns the first overrun: its flit's place in the record, and what.
///
/// # Safety
/// `routers` and `words` are valid, and no other thread touches this
/// range's routers and words, or `ev`, while it runs.
unsafe fn apply_range(
    t: &Tables,
    routers: *mut TreeRouter,
    words: *mut u64,
    (lo, hi): (usize, usize),
    ev: &mut Events,
    cross: &mut Vec<Write>,
) -> Option<(u32, String)> {
    let (first, end) = ((lo << 6) as u32, (hi << 6) as u32);
    let mine = |r: u32| (first..end).contains(&r);
    // SAFETY: by the caller, for a router of the range.
    let router = |r: u32| unsafe { &mut *routers.add(r as usize) };
    // SAFETY: by the caller, for a router of the range.
    let wake = |r: u32| unsafe { *words.add((r >> 6) as usize) |= 1 << (r & 63) };
    let Events {
        releases,
        wants,
        sends,
        closes,
        credits,
        trace,
        marks,
        ..
    } = ev;
    if *trace {
        // Writes that wake no one, for the tracer to sample their routers.
        marks.extend(releases.iter().chain(credits.iter()));
        marks.extend(wants.iter().map(|&(r, _)| (r, NONE8)));
    }
    cross.clear();
    // Each kind in turn, in the record's order, as `Write::apply` would
    // (written out here: this is every flit's path).
    let mut fault = None;
    for &(r, o) in releases.iter() {
        if mine(r) {
            router(r).outs[o as usize].owner = NONE8;
        } else {
            cross.push(Write::Release(r, o));
        }
    }
    for &(r, o) in wants.iter() {
        // The branch's input has its segment open, so the router is
        // active and registers the request at its next evaluation.
        if mine(r) {
            router(r).wanted_next |= 1 << o;
        } else {
            cross.push(Write::Want(r, o));
        }
    }
    for (j, &s) in sends.iter().enumerate() {
        let (r, i) = (s.router, s.input as usize);
        if !mine(r) {
            cross.push(Write::Send(s, j as u32));
            continue;
        }
        let router = router(r);
        if router.ins[i].fifo.push(s.flit()).is_err() {
            let what = format!(
                "flow control overrun at {} {}",
                t.grid.node_name(r),
                t.input_name(i)
            );
            fault = Some((j as u32, what));
            break;
        }
        router.active |= 1 << i;
        wake(r);
    }
    if fault.is_none() {
        for &(r, i) in closes.iter() {
            if !mine(r) {
                cross.push(Write::Close(r, i));
                continue;
            }
            let router = router(r);
            let iv = &mut router.ins[i as usize];
            match iv.fifo.back_mut() {
                Some(f) => f.end = true,
                None => iv.end_now = true,
            }
            router.active |= 1 << i;
            wake(r);
        }
        for &(r, o) in credits.iter() {
            if mine(r) {
                router(r).outs[o as usize].credits += 1;
            } else {
                cross.push(Write::Credit(r, o));
            }
        }
    }
    ev.releases.clear();
    ev.wants.clear();
    ev.sends.clear();
    ev.closes.clear();
    ev.credits.clear();
    fault
}

/// The physical port bit an output uses: its port's, and for the
/// consumption channel (`ej`, which is `ports * vcs`) the bit after the
/// ports'.
fn port_bit(t: &Tables, o: usize) -> u32 {
    debug_assert_eq!(t.ej >> t.vc_shift, t.ports);
    1 << (o >> t.vc_shift)
}

/// The output's physical port is free this cycle and it has a credit. The
/// consumption channel keeps the credits it starts with (a node always
/// consumes: nothing takes or returns them).
fn can_send(t: &Tables, router: &TreeRouter, used: u32, o: usize) -> bool {
    debug_assert!(o != t.ej || router.outs[o].credits > 0);
    used & port_bit(t, o) == 0 && router.outs[o].credits > 0
}

#[inline(always)]
fn send(
    t: &Tables,
    r: u32,
    router: &mut TreeRouter,
    used: &mut u32,
    o: usize,
    f: Flit,
    ev: &mut Events,
) {
    *used |= port_bit(t, o);
    ev.moved = true;
    if ev.trace {
        ev.link_log.push((r, o as u8, f));
    }
    let lf = |router: u32, input: usize| LinkFlit {
        router,
        input: input as u32,
        msg: f.msg,
        word: f.word,
    };
    if o == t.ej {
        ev.ejects.push(lf(r, 0));
        ev.link_count[r as usize * (t.ports + 2) + t.ports] += 1;
        return;
    }
    router.outs[o].credits -= 1;
    ev.link_flits += 1;
    ev.link_count[r as usize * (t.ports + 2) + (o >> t.vc_shift)] += 1;
    let to = t.peer[r as usize * t.ej + o];
    ev.sends.push(lf(to.router, to.x as usize));
    if !f.is_data() && ev.fault.is_none() {
        ev.check_hop(t, r, o, f.dest());
    }
    if t.keep_routes && !f.is_data() {
        ev.out.lists.hops.push((f.msg, f.dest(), r, t.hop(o)));
    }
}

/// Takes the head flit (which the caller has read) off input `i` and returns
/// its credit upstream.
#[inline(always)]
fn pop(t: &Tables, r: u32, router: &mut TreeRouter, i: usize, ev: &mut Events) {
    let popped = router.ins[i].fifo.drop_front();
    debug_assert!(popped, "a head flit");
    if i == t.ej {
        ev.ni_credits.push(r);
    } else {
        let up = t.peer[r as usize * t.ej + i];
        ev.credits.push((up.router, up.x as u8));
    }
}

fn release(t: &Tables, r: u32, o: usize, ev: &mut Events) {
    ev.releases.push((r, o as u8));
    if o != t.ej {
        if ev.trace {
            ev.close_log.push((r, o as u8));
        }
        let to = t.peer[r as usize * t.ej + o];
        ev.closes.push((to.router, to.x as u8));
        ev.moved = true;
    }
}

/// The message has no more flits at input `i`: its branches close.
fn end_segment(t: &Tables, r: u32, router: &mut TreeRouter, i: usize, ev: &mut Events) {
    let iv = &mut router.ins[i];
    release_all(t, r, iv.branches, ev);
    iv.msg = NONE32;
    iv.branches = 0;
    iv.first = NONE8;
    iv.aux = 0;
    iv.replay_out = NONE8;
    iv.replay_next = 0;
    iv.stall = 0;
    iv.end_now = false;
}

/// Cuts every branch of the message at input `i` except `keep`.
fn prune(
    t: &Tables,
    r: u32,
    router: &mut TreeRouter,
    i: usize,
    keep: Option<usize>,
    ev: &mut Events,
) {
    let mut cut = router.ins[i].branches & !keep.map_or(0, |o| 1 << o);
    if let Pruning::Selective { .. } = t.pruning {
        cut &= router.wanted;
    }
    let iv = &mut router.ins[i];
    if cut == 0 {
        return;
    }
    iv.branches &= !cut;
    release_all(t, r, cut, ev);
    ev.out.lists.prunes.push((r, iv.msg, cut.count_ones()));
}

/// Releases (and closes) every output in `mask`.
fn release_all(t: &Tables, r: u32, mut mask: u32, ev: &mut Events) {
    while mask != 0 {
        let o = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        release(t, r, o, ev);
    }
}

fn stalled(
    t: &Tables,
    r: u32,
    router: &mut TreeRouter,
    i: usize,
    keep: Option<usize>,
    ev: &mut Events,
) {
    let iv = &mut router.ins[i];
    iv.stall += 1;
    if let Some(stall_limit) = t.pruning.stall_limit()
        && iv.stall >= stall_limit
    {
        prune(t, r, router, i, keep, ev);
    }
}

fn eval_input(
    t: &Tables,
    cfg: &TreeConfig,
    r: u32,
    router: &mut TreeRouter,
    i: usize,
    used: &mut u32,
    ev: &mut Events,
) {
    // Replaying stored data behind a new branch's header.
    let ro = router.ins[i].replay_out;
    if ro != NONE8 {
        let o = ro as usize;
        if can_send(t, router, *used, o) {
            let iv = &mut router.ins[i];
            let idx = iv.replay_next;
            let last = idx + 1 == iv.aux;
            let f = Flit::data(iv.msg, idx, last);
            iv.replay_next += 1;
            iv.stall = 0;
            ev.replayed += 1;
            if last {
                iv.replay_out = NONE8;
                if o == t.ej {
                    iv.branches &= !(1 << o);
                    release(t, r, o, ev);
                }
            }
            send(t, r, router, used, o, f, ev);
        } else {
            stalled(t, r, router, i, Some(o), ev);
        }
        let iv = &router.ins[i];
        if iv.replay_out == NONE8 && iv.end_now {
            end_segment(t, r, router, i, ev);
        }
        return;
    }
    if router.ins[i].end_now {
        end_segment(t, r, router, i, ev);
        return;
    }
    let Some(f) = router.ins[i].fifo.front() else {
        // An open segment waiting for its upstream router: a branch of it
        // that another message waits for asks the upstream router, over the
        // channel's prune-request wire, to cut the branch feeding it.
        if let Pruning::Selective { .. } = t.pruning {
            let iv = &router.ins[i];
            if i != t.ej && iv.msg != NONE32 && iv.branches & router.wanted != 0 {
                let up = t.peer[r as usize * t.ej + i];
                ev.wants.push((up.router, up.x as u8));
            }
        }
        return;
    };
    let iv = &mut router.ins[i];
    if iv.msg == NONE32 {
        if f.is_data() {
            ev.fail(format!(
                "a data flit opens a message at {} {}",
                t.grid.node_name(r),
                t.input_name(i)
            ));
            return;
        }
        iv.msg = f.msg;
    } else if f.msg != iv.msg {
        ev.fail(format!(
            "message {} interleaved with message {} at {} {}",
            f.msg,
            iv.msg,
            t.grid.node_name(r),
            t.input_name(i)
        ));
        return;
    }
    if f.is_data() {
        let o = iv.first as usize;
        if !can_send(t, router, *used, o) {
            stalled(t, r, router, i, Some(o), ev);
            return;
        }
        pop(t, r, router, i, ev);
        let iv = &mut router.ins[i];
        iv.aux += 1;
        iv.stall = 0;
        if f.is_last_data() && o == t.ej {
            iv.branches &= !(1 << o);
            release(t, r, o, ev);
        }
        let end = f.end;
        send(t, r, router, used, o, Flit { end: false, ..f }, ev);
        if end {
            end_segment(t, r, router, i, ev);
        }
        return;
    }
    let o = t.route(r, f.dest());
    if cfg.release == Release::OnTurn && iv.branches & !(1 << o) != 0 && iv.first != NONE8 {
        // The header turns away from the branch the message holds here:
        // that branch has carried everything it will (the data and the
        // headers before this one), so it closes now.
        let done = iv.branches & !(1 << o);
        iv.branches &= !done;
        ev.early_releases += done.count_ones() as u64;
        release_all(t, r, done, ev);
    }
    let iv = &mut router.ins[i];
    if iv.branches & (1 << o) != 0 {
        if !can_send(t, router, *used, o) {
            stalled(t, r, router, i, Some(o), ev);
            return;
        }
    } else if router.outs[o].owner != NONE8 {
        // Blocked: the channel is held by another message (or by a branch
        // of this one that is still closing).
        if router.outs[o].owner as usize != i {
            router.wanted_next |= 1 << o;
        }
        router.ins[i].stall += 1;
        if t.pruning != Pruning::Off {
            prune(t, r, router, i, None, ev);
        }
        return;
    } else if !can_send(t, router, *used, o) {
        stalled(t, r, router, i, None, ev);
        return;
    } else {
        // A new branch.
        router.outs[o].owner = i as u8;
        let iv = &mut router.ins[i];
        iv.branches |= 1 << o;
        if iv.first == NONE8 {
            iv.first = o as u8;
        } else {
            if iv.aux as usize > cfg.aux_flits || iv.aux == 0 {
                ev.fail(format!(
                    "{} {} must replay {} data flits with a {}-flit auxiliary buffer",
                    t.grid.node_name(r),
                    t.input_name(i),
                    iv.aux,
                    cfg.aux_flits
                ));
                return;
            }
            iv.replay_out = o as u8;
            iv.replay_next = 0;
        }
    }
    pop(t, r, router, i, ev);
    router.ins[i].stall = 0;
    let end = f.end;
    send(t, r, router, used, o, Flit { end: false, ..f }, ev);
    if end {
        let iv = &mut router.ins[i];
        iv.end_now = true;
        if iv.replay_out == NONE8 {
            end_segment(t, r, router, i, ev);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A rate so small that one minus it rounds to one offers no message
    /// (it once offered one at every node in every cycle).
    #[test]
    fn a_vanishing_rate_offers_no_message() {
        let mut net = TreeNet::new(Grid::mesh(4, 4, 1).unwrap(), TreeConfig::default()).unwrap();
        net.set_traffic(TreeTraffic {
            rate: 1e-300,
            min_dests: 1,
            max_dests: 3,
            data: 3,
            scheme: Scheme::Tree,
            queue_cap: 4,
        })
        .unwrap();
        net.run(20_000).unwrap();
        assert_eq!(net.cycle(), 20_000);
        assert_eq!((net.stats().created, net.stats().deliveries), (0, 0));
    }

    /// Running with quiet cycles skipped ([`TreeNet::run`]) and stepping
    /// every cycle give the same run: the same counters, copies delivered at
    /// the same cycles and flits on every link, under the network's own
    /// random traffic at a light load (long gaps between messages, which
    /// are skipped), tree and pseudo multicast, with start-ups.
    #[test]
    fn skipping_quiet_cycles_gives_the_same_run() {
        for (scheme, startup, rate) in [
            (Scheme::Tree, 0, 0.0005),
            (Scheme::Pseudo, 0, 0.001),
            (Scheme::Tree, 60, 0.0003),
        ] {
            let cfg = TreeConfig {
                startup,
                keep_deliveries: true,
                ..TreeConfig::default()
            };
            let net = || {
                let mut n = TreeNet::new(Grid::mesh(4, 4, 1).unwrap(), cfg.clone()).unwrap();
                n.set_traffic(TreeTraffic {
                    rate,
                    min_dests: 1,
                    max_dests: 6,
                    data: 3,
                    scheme,
                    queue_cap: 4,
                })
                .unwrap();
                n
            };
            let (mut a, mut b) = (net(), net());
            assert!(
                a.quiet_cycles(u64::MAX) > 1,
                "the first message is not due at once"
            );
            let mut steps = 0;
            while a.cycle() < 30_000 {
                a.advance(30_000 - a.cycle()).unwrap();
                steps += 1;
            }
            b.run_stepping(30_000);
            let got = |n: &mut TreeNet| {
                format!(
                    "{:?}\n{:?}\n{:?}\n{}",
                    n.stats(),
                    n.take_deliveries(),
                    n.link_flits(),
                    n.cycle()
                )
            };
            let (ga, gb) = (got(&mut a), got(&mut b));
            assert!(ga.contains("TreeDelivery"), "{scheme:?}: copies delivered");
            assert_eq!(ga, gb, "{scheme:?}, start-up {startup}");
            assert!(
                steps < 15_000,
                "{scheme:?}: {steps} steps for 30,000 cycles"
            );
        }
    }

    /// Sampling only the routers whose registers can have changed (those
    /// evaluated, written into at the edge, or whose link registers
    /// changed) gives the waveform sampling every router gives: every
    /// register changes in the same cycles, in the same order. Unicast and
    /// multicast, total and selective pruning (releases and prune requests
    /// that wake no one), branches released at a turn, pseudo multicast,
    /// one and two threads.
    #[test]
    fn sampling_the_routers_that_can_change_gives_the_whole_waveform() {
        use crate::rtl::trace::MemorySink;
        let total = |stall_limit| Pruning::On { stall_limit };
        let cases = [
            (
                "unicast",
                Scheme::Tree,
                1,
                0.02,
                total(1),
                Release::AtEnd,
                1,
            ),
            (
                "multicast",
                Scheme::Tree,
                6,
                0.01,
                total(1),
                Release::AtEnd,
                1,
            ),
            (
                "selective",
                Scheme::Tree,
                6,
                0.012,
                Pruning::Selective { stall_limit: 1 },
                Release::AtEnd,
                1,
            ),
            ("turn", Scheme::Tree, 6, 0.012, total(3), Release::OnTurn, 1),
            (
                "pseudo",
                Scheme::Pseudo,
                5,
                0.01,
                total(1),
                Release::AtEnd,
                1,
            ),
            (
                "threads",
                Scheme::Tree,
                6,
                0.004,
                total(1),
                Release::AtEnd,
                2,
            ),
        ];
        for (name, scheme, max_dests, rate, pruning, release, threads) in cases {
            let cfg = TreeConfig {
                pruning,
                release,
                threads,
                ..TreeConfig::default()
            };
            let side = if threads > 1 { 12 } else { 6 };
            let wave = |full: bool| {
                let mut n = TreeNet::new(Grid::mesh(side, side, 1).unwrap(), cfg.clone()).unwrap();
                let w = MemorySink::new();
                n.attach_tracer(Box::new(w.clone()), 1000).unwrap();
                n.tracing.as_mut().unwrap().full = full;
                n.set_traffic(TreeTraffic {
                    rate,
                    min_dests: 1,
                    max_dests,
                    data: 3,
                    scheme,
                    queue_cap: 4,
                })
                .unwrap();
                n.run(3_000).unwrap();
                n.finish_trace().unwrap();
                (w.changes(), n.stats())
            };
            let (some, stats) = wave(false);
            let (all, _) = wave(true);
            assert!(stats.deliveries > 50, "{name}: {stats:?}");
            if matches!(name, "multicast" | "selective" | "turn") {
                assert!(
                    stats.prunes + stats.early_releases > 0,
                    "{name}: the edge released or pruned ({stats:?})"
                );
            }
            assert_eq!(some.len(), all.len(), "{name}: changes");
            assert!(some == all, "{name}: the waveforms differ");
        }
    }

    /// A waveform limited to a window of cycles and to some routers
    /// (`TraceLimits`) is the one filtered from sampling every router in
    /// every cycle, though the cycles outside the window and the routers
    /// outside the scopes are not sampled: windows from the first cycle,
    /// ending early or not, whole routers and single units, one and two
    /// threads.
    #[test]
    fn a_limited_waveform_is_the_one_filtered_from_every_sample() {
        use crate::rtl::trace::MemorySink;
        let limits = crate::wave::TraceLimits::new;
        // The lightest loads leave quiet cycles, skipped outside the window.
        let cases = [
            (1, 6, 0.01, limits(500, Some(900), &[])),
            (1, 6, 0.01, limits(1, Some(2), &["top.r3"])),
            (
                1,
                6,
                0.01,
                limits(1_200, None, &["top.r7", "top.r20.out_ej"]),
            ),
            (1, 6, 0.01, limits(0, Some(1_000), &["top.r14.in_inj"])),
            (1, 6, 0.0005, limits(900, Some(1_100), &[])),
            (
                2,
                12,
                0.01,
                limits(700, Some(1_300), &["top.r5", "top.r100"]),
            ),
            (2, 12, 0.01, limits(900, None, &[])),
            (2, 12, 0.0002, limits(1_000, Some(1_500), &[])),
        ];
        for (threads, side, rate, l) in cases {
            let cfg = TreeConfig {
                threads,
                ..TreeConfig::default()
            };
            let wave = |full: bool| {
                let mut n = TreeNet::new(Grid::mesh(side, side, 1).unwrap(), cfg.clone()).unwrap();
                let w = MemorySink::new();
                n.attach_tracer(l.wrap(Box::new(w.clone())).unwrap(), 1000)
                    .unwrap();
                n.tracing.as_mut().unwrap().full = full;
                n.set_traffic(TreeTraffic {
                    rate,
                    min_dests: 1,
                    max_dests: 6,
                    data: 3,
                    scheme: Scheme::Tree,
                    queue_cap: 4,
                })
                .unwrap();
                n.run(2_000).unwrap();
                n.finish_trace().unwrap();
                w.changes()
            };
            let (some, all) = (wave(false), wave(true));
            assert!(some.len() > 20, "{l:?}: {} changes", some.len());
            assert!(some == all, "{l:?}: the waveforms differ");
        }
    }

    /// A source paying a start-up longer than the watchdog's bound is
    /// waiting, not deadlocked: the multicast arrives after it. (The
    /// watchdog called it a deadlock at cycle 2,001.) A start-up too long
    /// to end never wraps the clock into an early start.
    #[test]
    fn a_long_start_up_is_not_a_deadlock() {
        let cfg = TreeConfig {
            startup: 5_000,
            keep_deliveries: true,
            ..TreeConfig::default()
        };
        let mut n = TreeNet::new(Grid::mesh(4, 4, 1).unwrap(), cfg.clone()).unwrap();
        n.send(0, &[5, 15], 3, Scheme::Tree).unwrap();
        let end = n.run_until_delivered(20_000).unwrap();
        let d = n.take_deliveries();
        assert_eq!(d.len(), 2);
        assert!(d.iter().all(|d| d.injected == 5_000), "{d:?}");
        assert!(end > 5_000);
        let forever = TreeConfig {
            startup: u64::MAX,
            ..cfg
        };
        let mut n = TreeNet::new(Grid::mesh(4, 4, 1).unwrap(), forever).unwrap();
        n.send(0, &[5], 3, Scheme::Tree).unwrap();
        n.run(10_000).unwrap();
        assert_eq!(n.stats().deliveries, 0, "never sent");
    }

    impl TreeNet {
        /// Steps every cycle, skipping none.
        fn run_stepping(&mut self, cycles: u64) {
            for _ in 0..cycles {
                self.step().unwrap();
            }
        }
    }

    /// An overrun among the edge's writes that cross from one thread's
    /// routers to another's is the same fault, of the same cycle, on any
    /// thread count, whether the writes are applied by the receiving
    /// threads at the start of the next cycle ([`TreeNet::run`]) or by the
    /// calling thread at once ([`TreeNet::step`]). Every input of routers
    /// (0,7) and (0,8), either side of the cut between two threads' ranges
    /// (routers 0 - 127 and 128 - 255), is filled but their injection
    /// channels, and the two nodes send to each other: both flits overrun
    /// in the same cycle, and the first in one thread's order, the one
    /// (0,7) sent, is the fault.
    #[test]
    fn an_overrun_crossing_between_threads_is_reported_alike() {
        let fault = |threads: usize, stepping: bool| {
            let grid = Grid::mesh(16, 16, 1).unwrap();
            let cfg = TreeConfig {
                threads,
                ..TreeConfig::default()
            };
            let mut net = TreeNet::new(grid, cfg).unwrap();
            let (a, b) = (112u32, 128u32);
            assert_eq!(grid.node_name(a), "(0,7)");
            assert_eq!(grid.node_name(b), "(0,8)");
            if threads == 2 {
                assert_eq!(net.ranges, [(0, 2), (2, 4)], "the cut is between a and b");
            }
            for r in [a, b] {
                let ej = net.t.ej;
                for (i, iv) in net.routers[r as usize].ins.0[..net.t.n_in]
                    .iter_mut()
                    .enumerate()
                {
                    while i != ej && iv.fifo.push(Flit::default()).is_ok() {}
                }
            }
            net.send(a, &[b], 4, Scheme::Pseudo).unwrap();
            net.send(b, &[a], 4, Scheme::Pseudo).unwrap();
            let e = if stepping {
                (0..1_000).find_map(|_| net.step().err())
            } else {
                net.run(1_000).err()
            };
            match e {
                Some(Error::Fault { cycle, what }) => (cycle, what),
                other => panic!("{threads} threads: {other:?}"),
            }
        };
        let one = fault(1, false);
        assert_eq!(one.1, "flow control overrun at (0,8) input from -y vc0");
        for threads in [1, 2, 3] {
            for stepping in [false, true] {
                assert_eq!(fault(threads, stepping), one, "{threads} threads");
            }
        }
    }

    /// What a range's consumption checks gave: the copies (node, message,
    /// data flits), the fault, and the interfaces' state.
    struct Ejected(Vec<(u32, u32, u16)>, Option<String>, Vec<NiEject>);

    /// The consumption checks of a range ([`eject_range`]) on a 4x4 mesh:
    /// node (1,1) (5) receives in a range that starts at node 4.
    fn eject(flits: &[(u32, Flit)]) -> Ejected {
        let net = TreeNet::new(Grid::mesh(4, 4, 1).unwrap(), TreeConfig::default()).unwrap();
        let mut ejs = vec![
            NiEject {
                msg: NONE32,
                got: 0
            };
            8
        ];
        let mut ev = Events::new(16, net.t.ports, 0, 16, net.t.ej);
        for &(node, f) in flits {
            ev.ejects.push(LinkFlit {
                router: node,
                input: 0,
                msg: f.msg,
                word: f.word,
            });
        }
        eject_range(&net.t, &mut ejs, 4, &mut ev);
        assert!(ev.ejects.is_empty(), "every flit taken");
        let copies = ev
            .out
            .lists
            .copies
            .iter()
            .map(|c| (c.node, c.msg, c.got))
            .collect();
        Ejected(copies, ev.out.lists.eject_fault.take(), ejs)
    }

    #[test]
    fn a_whole_copy_is_handed_on_with_its_data_count() {
        let Ejected(copies, fault, ejs) = eject(&[
            (5, Flit::header(7, 5)),
            (6, Flit::header(9, 6)),
            (5, Flit::data(7, 0, false)),
            (5, Flit::data(7, 1, true)),
            (6, Flit::data(9, 0, false)),
        ]);
        assert_eq!(copies, vec![(5, 7, 2)]);
        assert_eq!(fault, None);
        // Node 5 is free again; node 6 is one flit into message 9.
        assert_eq!((ejs[1].msg, ejs[2].msg, ejs[2].got), (NONE32, 9, 1));
    }

    #[test]
    fn the_first_bad_flit_stops_the_range_after_the_copies_before_it() {
        let Ejected(copies, fault, _) = eject(&[
            (5, Flit::header(7, 5)),
            (5, Flit::data(7, 0, true)),
            (6, Flit::header(9, 5)),
            (6, Flit::header(9, 6)),
        ]);
        assert_eq!(copies, vec![(5, 7, 1)]);
        assert_eq!(
            fault.as_deref(),
            Some("a header for (1,1) was consumed at (2,1)")
        );
        let cases: [(&[(u32, Flit)], &str); 3] = [
            (
                &[(5, Flit::header(7, 5)), (5, Flit::header(8, 5))],
                "a second header entered the consumption channel of (1,1) during a copy",
            ),
            (
                &[(5, Flit::header(7, 5)), (5, Flit::data(7, 1, true))],
                "data flit 1 of message 7 reached (1,1) out of place",
            ),
            (
                &[(5, Flit::data(7, 0, true))],
                "data flit 0 of message 7 reached (1,1) out of place",
            ),
        ];
        for (flits, what) in cases {
            let Ejected(copies, fault, _) = eject(flits);
            assert!(copies.is_empty());
            assert_eq!(fault.as_deref(), Some(what));
        }
    }
}

#[cfg(test)]
mod thread_tests {
    use super::*;

    /// A network on two threads whose router `r` is handed a header for a
    /// node that does not exist, past the checks at the interface (a
    /// stand-in for a bug of the model).
    fn broken_at(r: u32) -> TreeNet {
        let cfg = TreeConfig {
            threads: 2,
            ..TreeConfig::default()
        };
        let mut net = TreeNet::new(Grid::mesh(16, 16, 1).unwrap(), cfg).unwrap();
        assert_eq!(
            net.ranges,
            vec![(0, 2), (2, 4)],
            "routers 128 up on the helper"
        );
        net.send(r, &[r + 1], 2, Scheme::Tree).unwrap();
        let q = net.nis[r as usize].queue.back_mut().expect("queued");
        q.dests[0] = 4 * net.t.n;
        net
    }

    /// Light cycles stay on the calling thread, whose ranges count their
    /// work only every few cycles; once the load rises, those counts still
    /// hand the cycles over, and every handed-over cycle counts.
    #[test]
    fn light_cycles_stay_here_and_a_rising_load_is_handed_over() {
        let cfg = TreeConfig {
            threads: 2,
            ..TreeConfig::default()
        };
        let mut net = TreeNet::new(Grid::mesh(16, 16, 1).unwrap(), cfg).unwrap();
        assert_eq!(net.ranges.len(), 2);
        let handed = |net: &mut TreeNet, cycles: u32, every: u32| {
            let mut h = 0;
            for c in 0..cycles {
                if c % every == 0 {
                    for src in (0..net.t.n).step_by(if every == 1 { 1 } else { 97 }) {
                        let dst = (src + 137) % net.t.n;
                        net.send(src, &[dst], 4, Scheme::Tree).unwrap();
                    }
                }
                net.step().unwrap();
                h += net.shift.handed() as u32;
            }
            h
        };
        // A few messages every 50 cycles: none handed over.
        assert_eq!(handed(&mut net, 600, 50), 0);
        // Every node sends every cycle: within 100 cycles the rule hands
        // the cycles over, and keeps doing so.
        let busy = handed(&mut net, 400, 1);
        assert!(busy >= 300, "{busy} of 400 busy cycles handed over");
    }

    /// A panic in a range's evaluation, on the helper thread or on the
    /// calling one, reaches the caller once every thread is done: no hang,
    /// and the network can still be dropped (its helper joined).
    #[test]
    fn a_panic_on_either_thread_reaches_the_caller() {
        for r in [200, 20] {
            let mut net = broken_at(r);
            let got = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| net.run(50)));
            let p = got.expect_err("the broken router panics");
            let what = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            assert!(what.contains("out of bounds"), "router {r}: {what}");
            drop(net);
        }
    }

    /// Every channel's far end is the neighbour through its port, on the
    /// opposite port and the same virtual channel, and the far end's far
    /// end is the channel itself; a port on the mesh's edge has none.
    #[test]
    fn a_channel_s_peer_is_the_neighbour_s_end_of_it() {
        for grid in [
            Grid::mesh(3, 4, 1).unwrap(),
            Grid::torus(4, 3, 3).unwrap(),
            Grid::mesh(2, 2, 3).unwrap(),
        ] {
            let net = TreeNet::new(grid, TreeConfig::default()).unwrap();
            let t = &net.t;
            let (vcs, mut edges, mut wired) = (grid.vcs(), 0, 0);
            for r in 0..grid.nodes() {
                for x in 0..t.ej {
                    let p = t.peer[r as usize * t.ej + x];
                    let (port, vc) = (x / vcs, x % vcs);
                    match grid.neighbor(r, port) {
                        None => {
                            assert_eq!(p.router, NONE32, "{grid}: router {r} channel {x}");
                            edges += 1;
                        }
                        Some(w) => {
                            assert_eq!(p.router, w, "{grid}: router {r} channel {x}");
                            assert_eq!(p.x as usize, (port ^ 1) * vcs + vc);
                            let back = t.peer[w as usize * t.ej + p.x as usize];
                            assert_eq!((back.router, back.x as usize), (r, x));
                            wired += 1;
                        }
                    }
                }
            }
            assert!(wired > 0, "{grid}");
            // The mesh's edge ports, none on the torus's wrapped sides.
            let open = (0..grid.nodes())
                .map(|r| {
                    (0..grid.ports())
                        .filter(|&p| grid.neighbor(r, p).is_none())
                        .count()
                })
                .sum::<usize>()
                * vcs;
            assert_eq!(edges, open, "{grid}");
        }
    }

    /// The header hops each range remembers as legal are exactly the
    /// distinct (router, destination, output) hops its routers' headers
    /// took: on a torus (two virtual channels) cut into two ranges, under
    /// tree and pseudo multicast.
    #[test]
    fn the_remembered_hops_are_the_hops_taken() {
        for scheme in [Scheme::Tree, Scheme::Pseudo] {
            let cfg = TreeConfig {
                threads: 2,
                keep_routes: true,
                ..TreeConfig::default()
            };
            let mut net = TreeNet::new(Grid::torus(8, 16, 1).unwrap(), cfg).unwrap();
            assert_eq!(net.ranges, vec![(0, 1), (1, 2)]);
            net.set_traffic(TreeTraffic {
                rate: 0.002,
                min_dests: 1,
                max_dests: 5,
                data: 2,
                scheme,
                queue_cap: 4,
            })
            .unwrap();
            net.run(3000).unwrap();
            net.settle().unwrap();
            let (n, ej) = (net.t.n as usize, net.t.ej);
            let mut taken: Vec<std::collections::BTreeSet<usize>> = vec![Default::default(); 2];
            for (&(_, dest), hops) in &net.routes {
                for &(r, h) in hops {
                    let k = (r >= 64) as usize;
                    let o = h.port as usize * net.t.vcs + h.vc as usize;
                    taken[k].insert(((r as usize - 64 * k) * n + dest as usize) * ej + o);
                }
            }
            for (k, ev) in net.evs.iter().enumerate() {
                assert_eq!(ev.hop_legal.len(), 64 * n * ej, "{scheme:?} range {k}");
                let known: std::collections::BTreeSet<usize> = (0..ev.hop_legal.len())
                    .filter(|&q| ev.hop_legal.knows(q))
                    .collect();
                assert!(
                    taken[k].len() > 100,
                    "{scheme:?} range {k}: {}",
                    taken[k].len()
                );
                assert_eq!(known, taken[k], "{scheme:?} range {k}");
            }
        }
    }

    /// A router that takes a wrong output toward a destination whose right
    /// hop it has taken (and remembered) before is caught: the remembered
    /// hop is the right one only.
    #[test]
    fn a_wrong_hop_toward_a_remembered_destination_is_caught() {
        let mut net = TreeNet::new(Grid::mesh(4, 4, 1).unwrap(), TreeConfig::default()).unwrap();
        net.send(0, &[3], 2, Scheme::Pseudo).unwrap();
        net.run_until_delivered(100).unwrap();
        let east = net.t.route(1, 3);
        let q = (net.t.n as usize + 3) * net.t.ej + east;
        assert!(
            net.evs[0].hop_legal.knows(q),
            "router 1's hop east toward 3"
        );
        // Router 1 now routes toward x = 3 back west (a stand-in for a
        // routing bug): the next message's header turns back there.
        let k = net.t.sides[0];
        let west = net.t.ring[0][k] as usize;
        assert_ne!(west, east);
        net.t.ring[0][k + 3] = west as u8;
        net.send(0, &[3], 2, Scheme::Pseudo).unwrap();
        match net.run_until_delivered(100) {
            Err(Error::Fault { what, .. }) => assert!(
                what.contains("c[(1,0)->(0,0) -x vc0] toward (3,0)")
                    && what.contains("does not shorten the distance"),
                "{what}"
            ),
            other => panic!("the wrong hop was not caught: {other:?}"),
        }
    }
}

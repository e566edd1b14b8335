//! The harness: open-loop traffic into any [`Engine`], statistics out.
//!
//! Every node generates packets as a Bernoulli process of `load / packet`
//! packets per cycle (drawn as geometric gaps), each to the destination its
//! [`Pattern`] gives. A node keeps at most `source_queue` messages
//! outstanding (sent, not yet delivered); a packet generated beyond that is
//! refused and counted, which bounds memory past saturation. Messages
//! created during the warm-up are not measured. A point is **saturated**
//! when the accepted throughput is below [`ACCEPTED_SHARE`] of the offered
//! load (counted per copy), a source refused a packet, the latency kept
//! growing over the window, or the backlog did (more than 1.5 times the
//! messages outstanding at the end of the window as at its start, plus
//! [`BACKLOG_SLACK`]): its latency is that of a growing queue, not a
//! result. The backlog and the accepted share are both taken from the end
//! of the warm-up or, with none, from the end of the first batch, since a
//! cold network fills before it delivers at the rate it is offered.

use super::stats::{Collector, Interval, Metric, Samples, Summary};
use super::{Arrival, Engine, Pattern, RouterModel, TopoSpec};
use crate::direct::{PortModel, TreeConfig};
use crate::rtl::trace::{Hierarchy, WaveSink};
use crate::rtl::{HandOver, SeqMap, Wheel};
use crate::sim::SimConfig;
use crate::{Error, Result};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use serde::Serialize;
use std::collections::BTreeMap;

/// The share of the offered load (per copy) a point must accept over its
/// window not to be saturated. 0.98 would be stricter (a point at 95.03%
/// had a 1,090-cycle mean latency) but misfires on short windows with a
/// handful of messages, one of which is still outstanding at the end.
pub const ACCEPTED_SHARE: f64 = 0.95;

/// Messages by which the backlog (messages outstanding) may grow over the
/// window, beyond half as many again, before a point counts as saturated: a
/// queue that is stable does not grow by half over a whole window, and the
/// slack keeps a short run with a handful of messages from being called
/// saturated for one of them.
pub const BACKLOG_SLACK: u64 = 32;

/// Messages outstanding past which a run first checks that what they may
/// still grow to fits in memory ([`Backlog`]).
pub const BACKLOG_CHECK_FIRST: u64 = 1 << 16;

/// The guard that stops a run past saturation before its messages outgrow
/// memory ([`crate::memory::Growth`]): a node keeps up to `source_queue`
/// messages outstanding (64 by default), so a large network past
/// saturation holds nodes x 64 of them, at 228 - 327 bytes a copy
/// (measured on 10,000-node networks of each router model, December 2):
/// 2 GB on a 300x300 mesh whose network itself takes 0.2 GB. The count
/// looked at is the messages outstanding, first at
/// [`BACKLOG_CHECK_FIRST`], at most nodes x `source_queue`.
#[derive(Debug)]
struct Backlog {
    growth: crate::memory::Growth,
    source_queue: u32,
}

impl Backlog {
    fn new(nodes: u32, source_queue: u32, start: Option<u64>) -> Backlog {
        let most = nodes as u64 * source_queue as u64;
        Backlog {
            growth: crate::memory::Growth::new(BACKLOG_CHECK_FIRST, most, start),
            source_queue,
        }
    }

    /// The look at `messages` outstanding (at least the mark), `available`
    /// and `resident` giving the memory available and the process's
    /// resident bytes.
    fn check(
        &mut self,
        cycle: u64,
        messages: u64,
        available: impl FnOnce() -> Option<u64>,
        resident: impl FnOnce() -> Option<u64>,
    ) -> Result<()> {
        let most = self.growth.most();
        self.growth
            .look(messages, available, resident)
            .map_err(|s| Error::BacklogTooLarge {
                cycle,
                messages,
                most,
                source_queue: self.source_queue,
                grown: s.grown,
                more: s.more,
                available: s.available,
            })
    }
}

/// What to run, besides the network and router.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Where packets go (unicast traffic).
    pub pattern: Pattern,
    /// Multicast traffic instead: each message goes to a number of
    /// destinations drawn uniformly from this range (inclusive), chosen
    /// uniformly among the other nodes.
    pub multicast: Option<(u32, u32)>,
    /// Offered load, flits per node per cycle.
    pub load: f64,
    /// Packet length in flits, header included.
    pub packet: u32,
    /// Bimodal lengths: this share of the messages (0 to 1) is this long
    /// instead (flits, header included), drawn per message.
    pub packet_alt: Option<(u32, f64)>,
    /// Cycles of warm-up, not measured.
    pub warmup: u64,
    /// Cycles measured after the warm-up (with a stop rule: the most).
    pub cycles: u64,
    /// Seed of the traffic.
    pub seed: u64,
    /// Batches the measured cycles are cut into (at least 2); with a stop
    /// rule, the fewest batches before it may stop.
    pub batches: u32,
    /// Cycles per batch (default: [`RunOptions::batch_len`]).
    pub batch_cycles: Option<u64>,
    /// Stop once the 95% half-width of the [`stop_metric`](Self::stop_metric)'s
    /// mean is under this fraction of the mean (seed 002 uses 0.05),
    /// checked after every batch.
    pub stop_rule: Option<f64>,
    /// The latency whose batch means give the confidence interval (and the
    /// stop rule): per copy, creation to tail, or network latency.
    pub stop_metric: Metric,
    /// Messages a node may have outstanding before it refuses new ones.
    pub source_queue: u32,
    /// Report every link's utilisation, not only the summary.
    pub per_link: bool,
    /// The multicast scheme (the router model's first by default; see
    /// [`RouterModel::schemes`](super::RouterModel::schemes)).
    pub scheme: Option<String>,
    /// Closed loop: a node creates its next message only after its
    /// previous one has fully arrived, a think time later drawn as in the
    /// open loop (geometric, of mean `mean length / load`).
    pub closed_loop: bool,
    /// Hardware parameters of the cut-through switch network.
    pub sim: SimConfig,
    /// Injection and consumption channels of a wormhole router.
    pub ports: PortModel,
    /// Input buffer of a wormhole router, in flits.
    pub wormhole_buffer: u32,
    /// Start-up latency the wormhole router's source pays per worm, one
    /// worm at a time (seed 002's beta), in cycles.
    pub wormhole_startup: u64,
    /// Threads evaluating a wormhole network's routers and processors.
    pub wormhole_threads: usize,
    /// On several threads, the cycles of a wormhole network handed to the
    /// other threads.
    pub wormhole_hand_over: HandOver,
    /// The tree router's buffers and pruning rule (its seed is the
    /// traffic's).
    pub tree: TreeConfig,
    /// After the measured cycles, stop generating and run until every
    /// message has arrived, failing after this many cycles: proof that
    /// nothing was lost. The latencies then include the window's messages
    /// that arrived while draining; the throughput does not.
    pub drain: Option<u64>,
    /// Without a drain: after the measured cycles, stop generating and run
    /// on while messages are outstanding, at most this many cycles, so that
    /// the window's last messages arrive and count in the latencies (the
    /// throughput and the saturation rule stay those of the window). Unlike
    /// a drain, messages still out after them are no error: past
    /// saturation some never arrive.
    pub finish: Option<u64>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            pattern: Pattern::Uniform,
            multicast: None,
            load: 0.05,
            packet: 20,
            packet_alt: None,
            warmup: 10_000,
            cycles: 100_000,
            seed: 1,
            batches: 10,
            batch_cycles: None,
            stop_rule: None,
            stop_metric: Metric::Latency,
            source_queue: 64,
            scheme: None,
            per_link: false,
            closed_loop: false,
            sim: SimConfig::default(),
            ports: PortModel::OnePort,
            wormhole_buffer: 2,
            wormhole_startup: 0,
            wormhole_threads: 1,
            wormhole_hand_over: HandOver::Busy,
            tree: TreeConfig::default(),
            drain: None,
            finish: None,
        }
    }
}

impl RunOptions {
    /// These options with `threads` evaluating the network, whichever
    /// router model runs it (the cut-through switch's [`SimConfig`], the
    /// wormhole router's and the tree router's counts, which a
    /// configuration file sets apart). The results and waveforms are the
    /// same for any count; a network too small for the count runs on
    /// fewer ([`Prepared::threads`] says how many).
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.sim.threads = threads;
        self.wormhole_threads = threads;
        self.tree.threads = threads;
        self
    }

    /// The threads these options ask to evaluate a network of `router`
    /// (its own count of the three: the cut-through switch's
    /// [`SimConfig`], the wormhole router's, the tree router's).
    pub fn threads_for(&self, router: super::RouterModel) -> usize {
        match router {
            super::RouterModel::CutThrough => self.sim.threads,
            super::RouterModel::Wormhole => self.wormhole_threads,
            super::RouterModel::Tree => self.tree.threads,
        }
    }

    /// These options with at most `threads` evaluating the network,
    /// whichever router model runs it (each count capped, none raised):
    /// as [`with_threads`](Self::with_threads), the results and waveforms
    /// do not change.
    pub fn with_threads_at_most(mut self, threads: usize) -> Self {
        self.sim.threads = self.sim.threads.min(threads);
        self.wormhole_threads = self.wormhole_threads.min(threads);
        self.tree.threads = self.tree.threads.min(threads);
        self
    }

    /// These options with `hand_over` choosing which cycles go to the
    /// other threads, whichever router model runs.
    pub fn with_hand_over(mut self, hand_over: HandOver) -> Self {
        self.sim.hand_over = hand_over;
        self.wormhole_hand_over = hand_over;
        self.tree.hand_over = hand_over;
        self
    }
}

/// The most cycles a run may ask for: its warm-up and measured cycles
/// together, and its drain (10^12: hours even where the network is idle
/// and quiet cycles are skipped, and far from where the clock's
/// arithmetic would wrap).
pub const MAX_RUN_CYCLES: u64 = 1_000_000_000_000;

/// With a stop rule and no batch length given, the most cycles measured
/// hold this many times the fewest batches, so that the rule can end the
/// run early (the mesh experiments' reading of seed 002 section 5 too: at
/// least 10 batches, at most 100).
pub const STOP_RULE_SPAN: u64 = 10;

impl RunOptions {
    /// The batch length in cycles: [`batch_cycles`](Self::batch_cycles)
    /// when given; else the measured cycles over
    /// [`batches`](Self::batches), or with a stop rule over
    /// [`STOP_RULE_SPAN`] times `batches` (at least 1 cycle), since a
    /// rule that needs `batches` whole batches besides the last could never
    /// be met in `batches` batches.
    pub fn batch_len(&self) -> u64 {
        let batches = u64::from(self.batches.max(1));
        match (self.batch_cycles, self.stop_rule) {
            (Some(b), _) => b,
            (None, Some(_)) => (self.cycles / (STOP_RULE_SPAN * batches)).max(1),
            (None, None) => self.cycles / batches,
        }
    }

    /// Checks what does not depend on the network: the load, the batches,
    /// the run's length and the source queue ([`run`] checks the rest
    /// once the router model is built).
    pub fn check(&self) -> Result<()> {
        let o = self;
        let long = format!("a run has at most {MAX_RUN_CYCLES} cycles");
        if o.warmup
            .checked_add(o.cycles)
            .is_none_or(|c| c > MAX_RUN_CYCLES)
        {
            return Err(Error::config(
                "cycles",
                o.warmup.saturating_add(o.cycles).to_string(),
                format!(
                    "{long} (warm-up {} and measured {} together)",
                    o.warmup, o.cycles
                ),
            ));
        }
        for (field, v) in [("drain", o.drain), ("finish", o.finish)] {
            if let Some(v) = v.filter(|&v| v > MAX_RUN_CYCLES) {
                return Err(Error::config(
                    field,
                    v.to_string(),
                    format!("{long} of draining"),
                ));
            }
        }
        crate::sim::check_load(o.load)?;
        if let Some(r) = o.stop_rule.filter(|r| !(r.is_finite() && *r > 0.0)) {
            return Err(Error::config(
                "stop_rule",
                crate::error::show_number(r),
                "a stop rule is a fraction of the mean latency, finite and above 0 (e.g. 0.05)",
            ));
        }
        // The last batch is left out of the run's interval (its messages
        // may not have arrived), so a run without a stop rule needs 3 for
        // any interval at all; with one, the run goes on until it has them.
        // The first check is the one a run without a stop rule fails, so
        // that 1 batch is not told that 2 would do.
        if o.batches < 3 && o.stop_rule.is_none() {
            return Err(Error::config(
                "batches",
                o.batches.to_string(),
                "an interval needs at least 2 batches besides the last, which is left out \
                 (its messages may not have arrived): give 3 or more, or a stop rule",
            ));
        }
        if o.batches < 2 {
            return Err(Error::config(
                "batches",
                o.batches.to_string(),
                "an interval needs at least 2 batches (a run with a stop rule goes on until \
                 it has them)",
            ));
        }
        if o.cycles < o.batches as u64 {
            return Err(Error::config(
                "cycles",
                o.cycles.to_string(),
                "fewer measured cycles than batches",
            ));
        }
        let batch_len = o.batch_len();
        if batch_len == 0 || batch_len > o.cycles {
            return Err(Error::config(
                "batch_cycles",
                batch_len.to_string(),
                format!(
                    "a batch is 1 cycle to the whole measured run ({})",
                    crate::error::counted(o.cycles, "cycles")
                ),
            ));
        }
        // A stop rule counts at least `batches` batches besides the last
        // (left out: its messages may not have arrived), so a run too short
        // for that many could only ever report the rule not met.
        let whole = o.cycles / batch_len;
        if o.stop_rule.is_some() && whole <= u64::from(o.batches) {
            return Err(Error::config(
                "batch_cycles",
                batch_len.to_string(),
                format!(
                    "the {} measured cycles hold {whole} batches of {batch_len}, and the stop \
                     rule needs {} of them besides the last, which is left out (its messages \
                     may not have arrived): it could never be met; give more cycles, shorter \
                     batches (--batch-cycles) or fewer (--batches)",
                    o.cycles, o.batches
                ),
            ));
        }
        if o.source_queue == 0 {
            return Err(Error::config(
                "source_queue",
                "0",
                "a source must be able to hold a message",
            ));
        }
        Ok(())
    }
}

/// What a run gave.
#[derive(Clone, Debug, Serialize)]
pub struct RunResult {
    /// The network.
    pub topology: String,
    /// The router model.
    pub router: &'static str,
    /// Its routing function.
    pub routing: &'static str,
    /// The traffic pattern.
    pub pattern: String,
    /// The multicast scheme (multicast traffic).
    pub scheme: Option<&'static str>,
    /// Nodes.
    pub nodes: u32,
    /// Packet length, flits.
    pub packet: u32,
    /// Warm-up cycles.
    pub warmup: u64,
    /// Cycles measured.
    pub measured_cycles: u64,
    /// Traffic seed.
    pub seed: u64,
    /// Flits generated per node per cycle in the window, those refused at
    /// a full source included.
    pub offered_load: f64,
    /// `offered_load` counted once per destination: the unit of
    /// `accepted_throughput` (equal to `offered_load` for unicast).
    pub offered_copies: f64,
    /// Flits delivered per node per cycle in the window, each copy counted
    /// as the message's length.
    pub accepted_throughput: f64,
    /// Flits accepted over copy flits offered, from the start of the
    /// backlog's span (`in_flight_at_warmup`) to the end of the window.
    /// With a warm-up this is `accepted_throughput / offered_copies`; with
    /// none it leaves out the first batch, in which a cold network fills
    /// and accepts less than is offered however light the load (1 when
    /// nothing was offered).
    pub accepted_share: f64,
    /// The point is saturated when `accepted_share` is below this:
    /// [`ACCEPTED_SHARE`] less the share of the messages offered over the
    /// same span that [`BACKLOG_SLACK`] messages make up (a few long
    /// messages still in flight at the end of a short run are a large part
    /// of what it offered, and are not saturation).
    pub accepted_share_floor: f64,
    /// Latency of the copies of messages created in the window (creation
    /// to tail).
    pub latency: Summary,
    /// Latency of those messages: creation to the last copy's tail (the
    /// same as `latency` for unicast traffic).
    pub message_latency: Summary,
    /// Destinations per message generated in the window.
    pub dests_per_message: f64,
    /// Network latency (first flit in the network to tail), where the
    /// router model records injection.
    pub network_latency: Option<Summary>,
    /// Network latency of a message: the longest network latency of its
    /// copies (each from its own worm's first flit in), every start-up
    /// excluded.
    pub message_network_latency: Option<Summary>,
    /// A message's span in the network: from the first flit of its first
    /// worm in to its last copy's tail (the start-ups of its later worms
    /// included).
    pub message_span: Option<Summary>,
    /// 95% confidence interval of the mean of the `stop_metric`, from batch
    /// means.
    pub interval: Interval,
    /// The latency of `interval`: `latency` or `network-latency`.
    pub stop_metric: &'static str,
    /// Packets generated in the window and taken by their sources.
    pub generated: u64,
    /// Of those, delivered by the end.
    pub delivered: u64,
    /// Packets refused at a full source (whole run).
    pub refused: u64,
    /// Messages outstanding at the end of the run (after the drain, if
    /// any).
    pub in_flight: u64,
    /// Accepted below its floor (`accepted_share` below
    /// `accepted_share_floor`), a source refused a packet, the latency kept
    /// growing over the window (see `latency_growing`) or the backlog did
    /// (`backlog_growing`); [`RunResult::saturation`] says which.
    pub saturated: bool,
    /// Messages outstanding at the start of the window (the end of the
    /// warm-up; with no warm-up, the end of the first batch).
    pub in_flight_at_warmup: u64,
    /// Messages outstanding at the end of the window, before any drain.
    pub in_flight_at_window_end: u64,
    /// The backlog grew over the window: `in_flight_at_window_end` is more
    /// than `1.5 * in_flight_at_warmup +` [`BACKLOG_SLACK`].
    pub backlog_growing: bool,
    /// The batch means of the interval's metric grew over the window: the
    /// last quarter of the batches averaged more than twice the first.
    pub latency_growing: bool,
    /// Link utilisation over the measured cycles (flits per cycle).
    pub links: LinkSummary,
    /// Events of the router model counted over the measured cycles (the
    /// tree router: `prunes`, `branches_cut`, `worms`, `replayed`,
    /// `early_releases`).
    pub events: BTreeMap<&'static str, u64>,
    /// Every link's utilisation, busiest first (with `per_link`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_link: Option<Vec<LinkLoad>>,
    /// The stop rule was met (with one).
    pub stop_rule_met: Option<bool>,
    /// Cycles the drain took (with one); every message arrived.
    pub drained: Option<u64>,
}

impl RunResult {
    /// The clauses of the saturation rule this point met, in words (none
    /// when it is not saturated): what a report prints after "saturated".
    pub fn saturation(&self) -> Vec<String> {
        let mut why = Vec::new();
        if self.accepted_share < self.accepted_share_floor {
            why.push(format!(
                "accepted {:.1}% of the copy flits offered, below {:.1}%",
                100.0 * self.accepted_share,
                100.0 * self.accepted_share_floor
            ));
        }
        if self.refused > 0 {
            why.push(format!(
                "sources refused {}",
                crate::counted(self.refused, "packets")
            ));
        }
        if self.latency_growing {
            why.push("the latency kept growing".into());
        }
        if self.backlog_growing {
            why.push(format!(
                "the backlog grew from {} to {} messages",
                self.in_flight_at_warmup, self.in_flight_at_window_end
            ));
        }
        why
    }
}

/// How busy the links were over the measured cycles.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LinkSummary {
    /// Links (between routers, and each node's injection and ejection
    /// channels).
    pub links: usize,
    /// Mean utilisation of the links between routers (flits per cycle).
    pub mean_between_routers: f64,
    /// Flits the links between routers carried over the measured cycles.
    pub flits_between_routers: u64,
    /// The busiest link's utilisation.
    pub max: f64,
    /// The busiest link (empty when no link carried a flit over the
    /// measured cycles).
    pub busiest: String,
}

/// One link's utilisation.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LinkLoad {
    /// The link, named as its router model names it.
    pub link: String,
    /// Flits per cycle over the measured cycles.
    pub utilisation: f64,
}

/// The utilisation of every link between two snapshots of
/// [`Engine::link_counts`] `cycles` apart; the links are named (by `e`)
/// only where the result shows them: the busiest, and every link with
/// `per_link`.
pub(crate) fn link_loads(
    e: &dyn Engine,
    start: &[(u64, bool)],
    end: &[(u64, bool)],
    cycles: u64,
    per_link: bool,
) -> Result<(LinkSummary, Option<Vec<LinkLoad>>)> {
    if start.len() != end.len() {
        return Err(Error::Config {
            field: "links",
            value: format!("{} then {}", start.len(), end.len()),
            reason: "the router model reported a different number of links at the end of the \
                     warm-up and at the end of the run"
                .into(),
        });
    }
    let c = cycles.max(1) as f64;
    // (flits over the window, joins two routers) per link.
    let window: Vec<(u64, bool)> = (end.iter().zip(start))
        .map(|(&(e, inner), &(s, _))| (e - s, inner))
        .collect();
    let util = |flits: u64| flits as f64 / c;
    let inner: Vec<f64> = (window.iter()).filter(|w| w.1).map(|w| util(w.0)).collect();
    let inner_flits: u64 = window.iter().filter(|w| w.1).map(|w| w.0).sum();
    // The last of the busiest, as `max_by` picks among equals; none when
    // no link carried a flit (a link named busiest at 0 would be any link).
    let busiest = (0..window.len())
        .filter(|&i| window[i].0 > 0)
        .max_by(|&a, &b| util(window[a].0).total_cmp(&util(window[b].0)));
    let name = |i: usize| {
        e.link_name(i).ok_or_else(|| Error::Config {
            field: "links",
            value: i.to_string(),
            reason: format!(
                "the router model has no name for link {i} of the {} it counted",
                window.len()
            ),
        })
    };
    let summary = LinkSummary {
        links: window.len(),
        // From +0: a float sum of nothing is -0 (a network of one switch).
        mean_between_routers: inner.iter().fold(0.0, |a, b| a + b) / inner.len().max(1) as f64,
        flits_between_routers: inner_flits,
        max: busiest.map_or(0.0, |b| util(window[b].0)),
        busiest: busiest.map(name).transpose()?.unwrap_or_default(),
    };
    let all = if per_link {
        let names = e.link_flits();
        if names.len() != window.len() {
            return Err(Error::Config {
                field: "links",
                value: format!("{} named, {} counted", names.len(), window.len()),
                reason: "the router model named a different number of links than it counted".into(),
            });
        }
        let mut loads: Vec<LinkLoad> = (names.into_iter().zip(&window))
            .map(|((link, _), w)| LinkLoad {
                link,
                utilisation: util(w.0),
            })
            .collect();
        loads.sort_by(|a, b| b.utilisation.total_cmp(&a.utilisation));
        Some(loads)
    } else {
        None
    };
    Ok((summary, all))
}

/// A message outstanding.
struct Msg {
    src: u32,
    /// Copies still to arrive.
    left: u32,
    created: u64,
    /// Length in flits.
    len: u32,
    /// Latest arrival so far.
    last: u64,
    /// Earliest injection of its worms so far.
    first_in: Option<u64>,
    /// Longest network latency of its copies so far.
    net: Option<u64>,
}

/// The harness's books: messages outstanding, statistics.
struct Book {
    col: Collector,
    /// The messages with copies still to arrive, by number.
    msgs: SeqMap<u64, Msg>,
    outstanding: Vec<u32>,
    window_flits: u64,
    warmup: u64,
    msg_latency: Samples,
    msg_network: Samples,
    msg_span: Samples,
    buf: Vec<Arrival>,
    /// With a closed loop: (source, last arrival) of each message finished
    /// since the last look.
    finished: Option<Vec<(u32, u64)>>,
}

impl Book {
    /// Takes the copies `e` delivered since the last call.
    fn take(&mut self, e: &mut dyn Engine) {
        e.arrivals(&mut self.buf);
        for a in self.buf.drain(..) {
            self.col.add(&a);
            let m = self
                .msgs
                .get_mut(a.msg)
                .expect("a message the harness sent");
            if a.arrived >= self.warmup {
                self.window_flits += m.len as u64;
            }
            m.left -= 1;
            m.last = m.last.max(a.arrived);
            if let Some(i) = a.injected {
                m.first_in = Some(m.first_in.map_or(i, |f| f.min(i)));
                m.net = Some(m.net.map_or(0, |n| n).max(a.arrived - i));
            }
            if m.left == 0 {
                let m = self.msgs.remove(a.msg).expect("present");
                self.outstanding[m.src as usize] -= 1;
                if let Some(f) = &mut self.finished {
                    f.push((m.src, m.last));
                }
                if m.created >= self.warmup {
                    self.msg_latency.push(m.last - m.created);
                    if let (Some(net), Some(first)) = (m.net, m.first_in) {
                        self.msg_network.push(net);
                        self.msg_span.push(m.last - first);
                    }
                }
            }
        }
    }
}

/// Runs `o` on `router` (default: the topology's) over `topo`.
pub fn run(
    topo: &TopoSpec,
    router: Option<RouterModel>,
    routing: Option<&str>,
    o: &RunOptions,
) -> Result<RunResult> {
    run_traced(topo, router, routing, o, None).map(|(r, _)| r)
}

/// [`run`], writing every register of every router (or switch and
/// endpoint) to `sink` for the whole run, at the switch network's clock
/// period (`o.sim.cycle_ns`); returns the hierarchy written too.
pub fn run_traced(
    topo: &TopoSpec,
    router: Option<RouterModel>,
    routing: Option<&str>,
    o: &RunOptions,
    sink: Option<Box<dyn WaveSink>>,
) -> Result<(RunResult, Option<Hierarchy>)> {
    let mut p = prepare(topo, router, routing, o)?;
    let r = p.run(sink)?;
    // A window the run never reached is an error here, as it was before
    // `Prepared::run` kept the result of such a run.
    match p.take_missed_window() {
        Some(e) => Err(e),
        None => Ok(r),
    }
}

/// A network built for a run and not yet stepped: [`run_traced`] in its
/// two parts, so that a caller can time building the network (its routers,
/// routing tables and interfaces; seconds at 16,384 switches) apart from
/// the run itself.
///
/// The network lives as long as the `Prepared`: a caller timing the run
/// can leave tearing it down (freeing every router's memory) out of the
/// time by dropping it after.
pub struct Prepared<'a> {
    e: Box<dyn Engine>,
    /// [`Prepared::run`] has run the network.
    ran: bool,
    topo: &'a TopoSpec,
    router: RouterModel,
    routing: &'static str,
    o: &'a RunOptions,
    /// The hierarchy of the waveform a failed run ended where it stopped.
    stopped: Option<Hierarchy>,
    /// A run that ended before its waveform's window began.
    missed: Option<Error>,
}

impl std::fmt::Debug for Prepared<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Prepared({}, {} router)", self.topo, self.router)
    }
}

/// Checks `o` and builds the network of a run of `o` on `router` (default:
/// the topology's) over `topo`; [`Prepared::run`] runs it.
pub fn prepare<'a>(
    topo: &'a TopoSpec,
    router: Option<RouterModel>,
    routing: Option<&str>,
    o: &'a RunOptions,
) -> Result<Prepared<'a>> {
    o.check()?;
    let (e, router, routing) = super::build(topo, router, routing, o)?;
    Ok(Prepared {
        e,
        ran: false,
        topo,
        router,
        routing,
        o,
        stopped: None,
        missed: None,
    })
}

impl Prepared<'_> {
    /// Threads that evaluate the network ([`Engine::threads`]).
    pub fn threads(&self) -> usize {
        self.e.threads()
    }

    /// Refuses the run's traffic if the network cannot carry it (as
    /// [`Prepared::run`] does before anything else): a caller that writes
    /// a waveform can check before it makes the file.
    pub fn check(&self) -> Result<()> {
        self.check_other(self.o)
    }

    /// [`Prepared::check`] of another run's traffic `o` on this network
    /// (a sweep checks each of its jobs before any runs, building each
    /// network once). `o` is meant for a network built from the same
    /// topology, router and hardware.
    pub fn check_other(&self, o: &RunOptions) -> Result<()> {
        // `prepare` checked this run's own options; another run's are
        // checked here.
        o.check()?;
        check_traffic(&*self.e, self.topo, o).map(|_| ())
    }

    /// Runs the harness on the network, as [`run_traced`] does after
    /// building it. A network runs once: a second call is refused. A run
    /// whose stop rule ends it before its waveform's window begins returns
    /// its result with no hierarchy (no file is written), and
    /// [`Prepared::take_missed_window`] gives the error that says so
    /// ([`run_traced`] returns that error instead).
    pub fn run(
        &mut self,
        sink: Option<Box<dyn WaveSink>>,
    ) -> Result<(RunResult, Option<Hierarchy>)> {
        if std::mem::replace(&mut self.ran, true) {
            return Err(Error::config(
                "run",
                self.topo.to_string(),
                "this network has run already: prepare another for another run",
            ));
        }
        let r = drive(
            &mut *self.e,
            self.topo,
            self.router,
            self.routing,
            self.o,
            sink,
        )
        .map(|(r, h, missed)| {
            self.missed = missed;
            (r, h)
        });
        if r.is_err() {
            // A run that stops (a deadlock, a drain that ran out, a fault)
            // ends its waveform where it stopped, so that a viewer opens
            // the file it is debugged with; an error in ending it (a
            // waveform that had failed already) gives way to the run's.
            if let Ok(Some(h)) = self.e.finish_trace() {
                self.stopped = Some(h);
            }
        }
        r
    }

    /// The hierarchy of the waveform a run that failed ended where it
    /// stopped ([`Prepared::run`]), for its views; `None` when it wrote
    /// none or the run did not fail.
    pub fn take_stopped_hierarchy(&mut self) -> Option<Hierarchy> {
        self.stopped.take()
    }

    /// [`Error::WindowNotReached`] when the run ended (its stop rule met)
    /// before its waveform's window began: [`Prepared::run`] then returns
    /// the run's result with no hierarchy, and no file was written.
    pub fn take_missed_window(&mut self) -> Option<Error> {
        self.missed.take()
    }
}

/// Refuses traffic `o` that the network `e` cannot run (before a cycle
/// runs or a waveform is begun); the messages per node per cycle and the
/// batch length in cycles. `o` has passed [`RunOptions::check`] (a batch
/// of at least one cycle among them).
fn check_traffic(e: &dyn Engine, topo: &TopoSpec, o: &RunOptions) -> Result<(f64, u64)> {
    let nodes = e.nodes();
    let sides = topo.sides();
    o.pattern.check(nodes, sides.as_deref())?;
    if let Some((lo, hi)) = o.multicast {
        if o.pattern != Pattern::Uniform {
            return Err(Error::config(
                "pattern",
                o.pattern.to_string(),
                "multicast traffic draws its destinations uniformly; give no pattern",
            ));
        }
        if lo == 0 || lo > hi || hi >= nodes {
            return Err(Error::config(
                "degree",
                format!("{lo}..{hi}"),
                format!(
                    "a multicast goes to 1 to {} other nodes, the least first",
                    nodes - 1
                ),
            ));
        }
    }
    if let Some((len, share)) = o.packet_alt
        && (len <= e.header_flits() || !(0.0..=1.0).contains(&share))
    {
        return Err(Error::Config {
            field: "packet_alt",
            value: format!("{len}@{share}"),
            reason: format!(
                "a share from 0 to 1 of packets longer than the {}-flit header",
                e.header_flits()
            ),
        });
    }
    if o.packet <= e.header_flits() {
        return Err(Error::Config {
            field: "packet",
            value: o.packet.to_string(),
            reason: format!(
                "a packet holds its {}-flit header and at least one more flit",
                e.header_flits()
            ),
        });
    }
    // Messages per node per cycle: the load over the mean length.
    let mean_len = match o.packet_alt {
        None => o.packet as f64,
        Some((len, share)) => (1.0 - share) * o.packet as f64 + share * len as f64,
    };
    let rate = o.load / mean_len;
    if rate > 1.0 {
        return Err(Error::config(
            "load",
            o.load.to_string(),
            "more than one packet per node per cycle",
        ));
    }
    let batch_len = o.batch_len();
    // The longest message the traffic makes.
    let longest = o.packet.max(o.packet_alt.map_or(0, |(len, _)| len));
    e.check_messages(longest, o.multicast.map_or(1, |(_, hi)| hi))?;
    Ok((rate, batch_len))
}

/// Runs the harness on an engine already built.
fn drive(
    e: &mut dyn Engine,
    topo: &TopoSpec,
    router: RouterModel,
    routing: &'static str,
    o: &RunOptions,
    sink: Option<Box<dyn WaveSink>>,
) -> Result<(RunResult, Option<Hierarchy>, Option<Error>)> {
    let (rate, batch_len) = check_traffic(e, topo, o)?;
    let nodes = e.nodes();
    let sides = topo.sides();
    if let Some(sink) = sink {
        e.attach_tracer(sink, o.sim.cycle_ps())?;
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(o.seed);
    let mut backlog = Backlog::new(nodes, o.source_queue, crate::memory::resident());
    let ln_q = crate::gaps::ln_no_packet(rate);
    let gap = |rng: &mut Xoshiro256PlusPlus| -> u64 {
        // Geometric: cycles until the next success of a Bernoulli(rate).
        if rate >= 1.0 {
            return 1;
        }
        let u: f64 = rng.random_range(f64::EPSILON..1.0);
        // The cast truncates toward zero and saturates: the floor for a
        // quotient at or above zero, and 0 as with the floor below it (or
        // for a NaN), without a call to `floor`. A gap too long to count
        // is never reached.
        ((u.ln() / ln_q) as u64).saturating_add(1)
    };
    // Each source's next message, on a timing wheel: a source is on it at
    // most once, and the sources due in one cycle are taken in their
    // order, so the draws come in the order of (cycle, source).
    let mut next = Wheel::new(nodes as usize);
    for n in 0..nodes {
        next.put(0, n, gap(&mut rng) - 1);
    }
    let mut due: Vec<u32> = Vec::new();
    let (mut generated, mut gen_flits, mut refused) = (0u64, 0u64, 0u64);
    let mut gen_copy_flits = 0u64;
    // Messages offered in the window (taken or refused).
    let mut offered_msgs = 0u64;
    let end_max = o.warmup + o.cycles;
    let mut end = end_max;
    let mut rule_met = None;
    let mut cycle = 0u64;
    let mut next_msg = 0u64;
    let mut book = Book {
        col: Collector::new(o.warmup, batch_len, o.stop_metric),
        msgs: SeqMap::new(0),
        outstanding: vec![0u32; nodes as usize],
        window_flits: 0,
        warmup: o.warmup,
        msg_latency: Samples::default(),
        msg_network: Samples::default(),
        msg_span: Samples::default(),
        buf: Vec::new(),
        finished: o.closed_loop.then(Vec::new),
    };
    let mut dests: Vec<u32> = Vec::new();
    let mut window_dests = 0u64;
    let mut links_at_warmup = Vec::new();
    let mut events_at_warmup = Vec::new();
    let mut in_flight_at_warmup = 0u64;
    // Copy flits offered and flits accepted before the backlog's reference
    // (counted only with no warm-up): the accepted share is taken over the
    // same span as the backlog, so that a cold network's filling is not
    // read as a shortfall.
    let (mut offered_before, mut accepted_before, mut msgs_before) = (0u64, 0u64, 0u64);
    // The backlog's reference: the end of the warm-up, or with none, the
    // end of the first batch (rounded up to the harness's next look at the
    // arrivals, every 64 cycles): a cold network has no backlog to compare
    // with, and a large one at light load holds more than the slack.
    let backlog_at = if o.warmup > 0 {
        o.warmup
    } else {
        batch_len.next_multiple_of(64)
    };
    while cycle < end {
        if cycle == o.warmup {
            // The counters are read from a settled network.
            e.settle()?;
            links_at_warmup = e.link_counts();
            events_at_warmup = e.events();
            book.take(e);
            in_flight_at_warmup = book.msgs.len() as u64;
        }
        if o.warmup == 0 && cycle == backlog_at {
            // The arrivals were taken at the end of the last cycle.
            in_flight_at_warmup = book.msgs.len() as u64;
            (offered_before, accepted_before, msgs_before) =
                (gen_copy_flits, book.window_flits, offered_msgs);
        }
        due.clear();
        next.due(cycle, |n| due.push(n));
        due.sort_unstable();
        for &n in &due {
            dests.clear();
            match o.multicast {
                None => dests.extend(o.pattern.dest(n, nodes, sides.as_deref(), &mut rng)),
                Some((lo, hi)) => {
                    let k = rng.random_range(lo..=hi) as usize;
                    while dests.len() < k {
                        let d = rng.random_range(0..nodes);
                        if d != n && !dests.contains(&d) {
                            dests.push(d);
                        }
                    }
                }
            }
            if !dests.is_empty() {
                let len = match o.packet_alt {
                    Some((alt, share)) if rng.random_bool(share) => alt,
                    _ => o.packet,
                };
                if cycle >= o.warmup {
                    offered_msgs += 1;
                    gen_flits += len as u64;
                    gen_copy_flits += len as u64 * dests.len() as u64;
                }
                if book.outstanding[n as usize] >= o.source_queue {
                    refused += 1;
                } else {
                    if let Err(err) = e.send(next_msg, n, &dests, len) {
                        // A fault the last step left to find comes first.
                        e.settle()?;
                        return Err(err);
                    }
                    book.msgs.insert(
                        next_msg,
                        Msg {
                            src: n,
                            left: dests.len() as u32,
                            created: cycle,
                            len,
                            last: 0,
                            first_in: None,
                            net: None,
                        },
                    );
                    next_msg += 1;
                    book.outstanding[n as usize] += 1;
                    if cycle >= o.warmup {
                        generated += 1;
                        window_dests += dests.len() as u64;
                    }
                }
            }
            // A closed loop's source with a message sent waits for its
            // arrival to think again.
            if !o.closed_loop || dests.is_empty() {
                debug_assert!(!next.is_pending(n), "source {n} is on the wheel twice");
                next.schedule(cycle, n, cycle.saturating_add(gap(&mut rng)));
            }
        }
        // Cycles in which nothing can happen are skipped in one step: up to
        // the next message to generate, the end of the warm-up and the
        // stop rule's next batch boundary (the points where the loop looks).
        let mut horizon = end - cycle;
        if cycle < backlog_at {
            horizon = horizon.min(backlog_at - cycle);
        }
        if o.stop_rule.is_some() {
            let since = cycle.saturating_sub(o.warmup);
            horizon = horizon.min(o.warmup.max(cycle) + batch_len - since % batch_len - cycle);
        }
        // The next message is looked for only when the network itself
        // could skip (the wheel's search walks its slots): the quiet
        // cycles are those up to the bounds above and to the network's
        // own, so bounding them by the next message afterwards is the
        // same as bounding the horizon by it first.
        let k = match e.quiet(horizon) {
            k if k > 1 => next.next_due(cycle + 1, k).map_or(k, |t| k.min(t - cycle)),
            k => k,
        };
        let k = if k > 1 {
            e.skip(k)?;
            k
        } else {
            e.step_batched()?;
            1
        };
        let before = cycle;
        cycle += k;
        crate::interrupt::check(cycle)?;
        if book.msgs.len() as u64 >= backlog.growth.mark {
            backlog.check(
                cycle,
                book.msgs.len() as u64,
                crate::memory::available,
                crate::memory::resident,
            )?;
        }
        if o.closed_loop {
            // A node thinks from its message's last arrival.
            book.take(e);
            if let Some(f) = &mut book.finished {
                for (src, last) in f.drain(..) {
                    // Its one message has arrived: the source was off the
                    // wheel since it sent it.
                    debug_assert!(!next.is_pending(src), "source {src} is on the wheel twice");
                    next.put(cycle, src, last.saturating_add(gap(&mut rng)).max(cycle));
                }
            }
        } else if cycle / 64 != before / 64 {
            // Every 64 cycles (a skip that passes a multiple of 64 takes
            // what that look would have: nothing arrives while skipping).
            book.take(e);
        }
        if let Some(target) = o.stop_rule
            && cycle > o.warmup
            && (cycle - o.warmup).is_multiple_of(batch_len)
        {
            // Batches whose messages have had a batch's time to arrive.
            let done = ((cycle - o.warmup) / batch_len).saturating_sub(1) as usize;
            let i = book.col.interval(done);
            // Batches without a sample do not count towards the fewest.
            let met = i.batches >= o.batches && i.relative <= target;
            rule_met = Some(met);
            if met {
                end = cycle;
            }
        }
    }
    e.settle()?;
    book.take(e);
    let (links, per_link) = link_loads(
        &*e,
        &links_at_warmup,
        &e.link_counts(),
        end - o.warmup,
        o.per_link,
    )?;
    let events: BTreeMap<&'static str, u64> = e
        .events()
        .into_iter()
        .map(|(name, n)| {
            let at = events_at_warmup
                .iter()
                .find(|w| w.0 == name)
                .map_or(0, |w| w.1);
            (name, n - at)
        })
        .collect();
    let accepted_flits = book.window_flits;
    let in_flight_at_end = book.msgs.len() as u64;
    let backlog_growing = 2 * in_flight_at_end > 3 * in_flight_at_warmup + 2 * BACKLOG_SLACK;
    // A drain, or a finish: the sources are stopped and the network runs
    // on (in one go where nothing can happen) while messages are out.
    let mut drained = None;
    if let Some(limit) = o.drain.or(o.finish) {
        let start = cycle;
        while !book.msgs.is_empty() {
            let left = limit - (cycle - start);
            if left == 0 {
                e.settle()?;
                if o.drain.is_none() {
                    break;
                }
                return Err(Error::NotDrained {
                    cycle,
                    limit,
                    outstanding: book.msgs.len() as u64,
                    what: "messages",
                });
            }
            match e.quiet(left) {
                0 => {
                    e.step_batched()?;
                    cycle += 1;
                }
                q => {
                    e.skip(q)?;
                    cycle += q;
                }
            }
            crate::interrupt::check(cycle)?;
            book.take(e);
        }
        e.settle()?;
        if o.drain.is_some() {
            drained = Some(cycle - start);
        }
    }
    // A window the run never reached (its stop rule ended it first) leaves
    // no file; the run's result stands, and the caller is told.
    let (hierarchy, missed) = match e.finish_trace() {
        Ok(h) => (h, None),
        Err(err @ Error::WindowNotReached { .. }) => (None, Some(err)),
        Err(err) => return Err(err),
    };
    let measured = end - o.warmup;
    let per = (nodes as u64 * measured).max(1) as f64;
    let (latency, network_latency) = book.col.summaries();
    let offered = gen_flits as f64 / per;
    let offered_copies = gen_copy_flits as f64 / per;
    let accepted = accepted_flits as f64 / per;
    let accepted_share = match gen_copy_flits - offered_before {
        0 => 1.0,
        n => (accepted_flits - accepted_before) as f64 / n as f64,
    };
    // The shortfall a backlog of `BACKLOG_SLACK` messages explains is
    // forgiven, as in the backlog's clause.
    let accepted_share_floor = match offered_msgs - msgs_before {
        0 => ACCEPTED_SHARE,
        n => (ACCEPTED_SHARE - BACKLOG_SLACK as f64 / n as f64).max(0.0),
    };
    let summary = |v: &Samples| (!v.is_empty()).then(|| v.summary());
    let full = (measured / batch_len) as usize;
    let growing = book.col.growing(full.saturating_sub(1).max(1));
    let mut result = RunResult {
        topology: topo.to_string(),
        router: router.name(),
        routing,
        scheme: o
            .multicast
            .map(|_| super::scheme_of(router, topo, routing, o)),
        pattern: {
            let p = match o.multicast {
                Some((lo, hi)) if lo == hi => {
                    format!("multicast to {}", crate::counted(lo as u64, "destinations"))
                }
                Some((lo, hi)) => format!("multicast to {lo}-{hi} destinations"),
                None => o.pattern.to_string(),
            };
            if o.closed_loop {
                format!("{p}, closed loop")
            } else {
                p
            }
        },
        nodes,
        packet: o.packet,
        warmup: o.warmup,
        measured_cycles: measured,
        seed: o.seed,
        offered_load: offered,
        offered_copies,
        accepted_throughput: accepted,
        accepted_share,
        accepted_share_floor,
        interval: book.col.interval(full.saturating_sub(1).max(1)),
        delivered: book.col.copies(),
        message_latency: book.msg_latency.summary(),
        message_network_latency: summary(&book.msg_network),
        message_span: summary(&book.msg_span),
        dests_per_message: if generated > 0 {
            window_dests as f64 / generated as f64
        } else {
            0.0
        },
        generated,
        refused,
        in_flight: book.msgs.len() as u64,
        in_flight_at_window_end: in_flight_at_end,
        // Set below from the clauses.
        saturated: false,
        in_flight_at_warmup,
        backlog_growing,
        latency_growing: growing,
        latency,
        network_latency,
        stop_rule_met: rule_met,
        stop_metric: o.stop_metric.name(),
        links,
        events,
        per_link,
        drained,
    };
    result.saturated = !result.saturation().is_empty();
    Ok((result, hierarchy, missed))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Arrival;

    const MB: u64 = 1 << 20;

    #[test]
    fn a_backlog_that_would_outgrow_memory_stops_the_run_and_one_that_fits_goes_on() {
        // 10,000 nodes of 64: at most 640,000 messages.
        let mut b = Backlog::new(10_000, 64, Some(100 * MB));
        assert_eq!(b.growth.mark, BACKLOG_CHECK_FIRST);
        // At the first mark the run has grown by 20 MB: twice the messages
        // take 20 MB more, 30 MB with the margin. 30 MB free is enough.
        let n = BACKLOG_CHECK_FIRST;
        b.check(7, n, || Some(30 * MB), || Some(120 * MB)).unwrap();
        assert_eq!(b.growth.mark, 2 * n);
        // 29 MB is not.
        let mut c = Backlog::new(10_000, 64, Some(100 * MB));
        match c.check(7, n, || Some(29 * MB), || Some(120 * MB)) {
            Err(Error::BacklogTooLarge {
                cycle: 7,
                messages,
                most: 640_000,
                source_queue: 64,
                grown,
                more,
                available,
            }) => {
                assert_eq!(
                    (messages, grown, more, available),
                    (n, 20 * MB, 20 * MB, 29 * MB)
                );
            }
            r => panic!("{r:?}"),
        }
        // Near the most there can be, only what is left to the most is
        // asked for: 40,000 more messages at 1/15 of the 300 MB grown.
        let mut d = Backlog::new(10_000, 64, Some(0));
        d.check(9, 600_000, || Some(30 * MB), || Some(300 * MB))
            .unwrap();
        assert_eq!(d.growth.mark, 640_000);
        // At the most, nothing more is asked, ever.
        d.check(9, 640_000, || Some(0), || Some(300 * MB)).unwrap();
        assert_eq!(d.growth.mark, u64::MAX);
        // Where the system does not say, the run goes on.
        let mut e = Backlog::new(10_000, 64, None);
        e.check(1, n, || Some(0), || Some(u64::MAX)).unwrap();
        let mut f = Backlog::new(10_000, 64, Some(100 * MB));
        f.check(1, n, || None, || Some(u64::MAX)).unwrap();
        // A network that cannot reach the first mark is never checked.
        assert_eq!(Backlog::new(1_000, 64, Some(0)).growth.mark, u64::MAX);
    }

    /// An engine that never reports a quiet cycle: the harness steps it
    /// every cycle.
    struct EveryCycle(Box<dyn Engine>);

    impl Engine for EveryCycle {
        fn nodes(&self) -> u32 {
            self.0.nodes()
        }
        fn cycle(&self) -> u64 {
            self.0.cycle()
        }
        fn send(&mut self, msg: u64, src: u32, dests: &[u32], flits: u32) -> Result<()> {
            self.0.send(msg, src, dests, flits)
        }
        fn check_messages(&self, flits: u32, most_dests: u32) -> Result<()> {
            self.0.check_messages(flits, most_dests)
        }
        fn step(&mut self) -> Result<()> {
            self.0.step()
        }
        fn step_batched(&mut self) -> Result<()> {
            self.0.step_batched()
        }
        fn settle(&mut self) -> Result<()> {
            self.0.settle()
        }
        fn arrivals(&mut self, out: &mut Vec<Arrival>) {
            self.0.arrivals(out)
        }
        fn header_flits(&self) -> u32 {
            self.0.header_flits()
        }
        fn link_flits(&self) -> Vec<(String, u64)> {
            self.0.link_flits()
        }
        fn link_counts(&self) -> Vec<(u64, bool)> {
            self.0.link_counts()
        }
        fn link_name(&self, i: usize) -> Option<String> {
            self.0.link_name(i)
        }
        fn events(&self) -> Vec<(&'static str, u64)> {
            self.0.events()
        }
        fn attach_tracer(&mut self, sink: Box<dyn WaveSink>, cycle_ps: u64) -> Result<()> {
            self.0.attach_tracer(sink, cycle_ps)
        }
        fn finish_trace(&mut self) -> Result<Option<Hierarchy>> {
            self.0.finish_trace()
        }
    }

    /// Skipping idle cycles changes nothing a run reports: light and
    /// moderate loads, open and closed loop, a warm-up, the stop rule's
    /// batches and a drain, unicast and multicast.
    #[test]
    fn skipping_quiet_cycles_gives_the_same_run() {
        let topo = TopoSpec::parse("irregular:switches=16,ports=8,nodes=48,seed=3").unwrap();
        let mut cases = Vec::new();
        for (load, closed, multicast, stop) in [
            (0.001, false, None, None),
            (0.01, false, None, Some(0.2)),
            (0.05, false, None, None),
            (0.002, true, None, None),
            (0.004, false, Some((2, 5)), None),
        ] {
            let mut o = RunOptions {
                load,
                cycles: 20_000,
                warmup: 1_500,
                closed_loop: closed,
                multicast,
                stop_rule: stop,
                drain: Some(50_000),
                seed: 11,
                ..RunOptions::default()
            };
            o.packet = 12;
            cases.push(o);
        }
        let mut skipped_any = false;
        for o in &cases {
            let (mut e, router, routing) = crate::engine::build(&topo, None, None, o).unwrap();
            let quiet_at_start = e.quiet(u64::MAX);
            skipped_any |= quiet_at_start > 1;
            let (skip, _, _) = drive(&mut *e, &topo, router, routing, o, None).unwrap();
            let (e, router, routing) = crate::engine::build(&topo, None, None, o).unwrap();
            let (every, _, _) = drive(&mut EveryCycle(e), &topo, router, routing, o, None).unwrap();
            assert_eq!(
                serde_json::to_string(&skip).unwrap(),
                serde_json::to_string(&every).unwrap(),
                "load {} closed {} multicast {:?}",
                o.load,
                o.closed_loop,
                o.multicast
            );
        }
        assert!(skipped_any, "an idle network at cycle 0 is quiet");
    }

    /// The same for seeds 001/002's wormhole routers and seed 003's tree
    /// routers: light loads, start-up latencies (whole stretches of cycles
    /// in which every source waits), closed loop and a drain, on a
    /// hypercube, an all-port mesh with Hamiltonian multicast, a mesh and a
    /// torus.
    #[test]
    fn skipping_quiet_cycles_gives_the_same_direct_runs() {
        use RouterModel::{Tree, Wormhole};
        for (router, topo, routing, startup, closed, multicast) in [
            (Wormhole, "hypercube:4", None, 0, false, None),
            (Wormhole, "hypercube:4", Some("r2"), 300, true, None),
            (
                Wormhole,
                "mesh:3x3x2",
                Some("hamiltonian"),
                150,
                false,
                Some((2, 4)),
            ),
            (Tree, "mesh:4x4", None, 0, false, Some((2, 5))),
            (Tree, "torus:4x4", None, 0, true, None),
            (Tree, "mesh:4x3", None, 0, false, None),
        ] {
            let topo = TopoSpec::parse(topo).unwrap();
            let mut o = RunOptions {
                load: 0.002,
                cycles: 20_000,
                warmup: 1_500,
                closed_loop: closed,
                multicast,
                wormhole_startup: startup,
                drain: Some(50_000),
                seed: 4,
                ..RunOptions::default()
            };
            // A tree multicast's data must fit the auxiliary buffers.
            o.packet = if router == Tree && multicast.is_some() {
                4
            } else {
                8
            };
            if multicast.is_some() && router == Wormhole {
                o.scheme = Some("tp".into());
            }
            let (mut e, model, r) = crate::engine::build(&topo, Some(router), routing, &o).unwrap();
            let (skip, _, _) = drive(&mut *e, &topo, model, r, &o, None).unwrap();
            let (e, model, r) = crate::engine::build(&topo, Some(router), routing, &o).unwrap();
            assert_eq!(e.quiet(u64::MAX), u64::MAX, "{topo}: idle at cycle 0");
            let (every, _, _) = drive(&mut EveryCycle(e), &topo, model, r, &o, None).unwrap();
            let copies = skip.latency.count;
            assert!(copies > 50, "{topo}: {copies} copies measured");
            assert_eq!(
                serde_json::to_string(&skip).unwrap(),
                serde_json::to_string(&every).unwrap(),
                "{topo}"
            );
        }
    }
}

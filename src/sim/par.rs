//! The cut-through system's cycle, on one thread or on several (seed
//! 000's switches and nodes, sections 3 and 6.2, evaluated as one clocked
//! system and cut at the registered channels between them).
//!
//! [`evaluate`] is the one place the switches and nodes of a cycle are
//! evaluated from. On one thread it evaluates every live component and
//! clocks the channels. On several, the switches are cut into contiguous
//! ranges, one per thread, each with the nodes attached to its switches
//! (the nodes of a range are contiguous too; when the node numbering does
//! not follow the switches', the nodes are cut evenly instead, which is
//! slower but gives the same results). For the length of a cycle a range's
//! thread owns its switches and nodes and its [`Range`]: its own copy of
//! every channel, its live set, timing wheel and inboxes, and its logs of
//! what the cycle produced (faults, packets started and received, host
//! deliveries). It takes the writes other ranges handed it in the last
//! cycle, wakes what its wheel has due, evaluates its live switches and
//! then its live nodes, and clocks its copy of the channels: a flit read
//! in the range is delivered at once; a flit or credit total read in
//! another range goes to the range's list of crossing writes
//! ([`Cross`]), which that range takes first thing in the next cycle.
//!
//! The packet table is shared: a range starts packets of its own nodes
//! only, reads the records of live packets, and logs the copies its nodes
//! receive whole ([`PacketView`]). The calling thread then takes the
//! ranges' logs in range order (the switches' faults of every range before
//! the nodes', as one thread makes them), so a run gives the same
//! deliveries, faults and reports whatever the thread count. A traced
//! range also keeps the set of components it ran; the calling thread
//! samples the cycle from those and from channels that follow the ranges'
//! copies ([`Channels::follow`]), and so writes one thread's waveform.
//!
//! A light cycle is not handed to the ranges at all: the system runs it
//! as one thread's evaluation on its own channels, live set, wheel and
//! inboxes, and moves the network's state between those and the ranges'
//! when the hand-over rule changes its mind ([`Range::take_crossings`]
//! is the part of a range's cycle such a move does too).
//!
//! Under the one engine's harness a handed-over cycle may also be left
//! running: the system's batched step runs the calling thread's range,
//! returns while the helpers still run theirs, and takes the logs above
//! only at the next step or read. The harness's sends made in between are
//! staged with the sequence numbers and full-queue refusals one thread
//! would give, and reach their sources once the cycle is finished, so
//! nothing a range reads changes under it.

use super::active::{Bits, insert_into};
use super::terminal::Terminal;
use crate::link::{EndpointIo, PacketLog, PacketTable, PacketView};
use crate::ni::Group;
use crate::rtl::crew::{COUNT_TO, CrewJob};
use crate::rtl::{Clocked, Next, Sink, Wheel};
use crate::switch::{Channels, Cross, CrossLists, Fault, LinkIo, Switch};
use rand::rngs::Xoshiro256PlusPlus;
use rand::seq::SliceRandom;

/// What one range keeps: its copy of the channels, its live set, wheel
/// and inboxes, and what a cycle produced, for the calling thread to take.
#[derive(Debug)]
pub(super) struct Range {
    /// Its switches.
    pub(super) sw: std::ops::Range<u32>,
    /// Its nodes (numbered as nodes, from 0).
    pub(super) nodes: std::ops::Range<u32>,
    /// Every channel, as this range's components see and drive them.
    pub(super) ch: Channels,
    /// The range's components to evaluate (numbered as in the system).
    pub(super) active: Bits,
    /// Wake-ups of the range's sleeping nodes.
    pub(super) wheel: Wheel,
    /// Per component of the system (the range's own are used), the ports
    /// a flit was delivered to at the last edge.
    pub(super) inbox: Vec<u64>,
    /// Faults found by the switches, then by the nodes.
    pub(super) faults: Vec<Fault>,
    /// Of `faults`, the first found by a node.
    pub(super) node_faults: usize,
    /// Packets started and received.
    pub(super) log: PacketLog,
    /// Messages the range's hosts received whole: (node, group slot).
    pub(super) hosts: Vec<(u32, u16)>,
    /// Traffic endpoints that recorded their first delivery not yet taken.
    pub(super) delivered: Vec<u32>,
    /// When traced: the range's live set as the cycle's evaluation began
    /// (the components it ran), word for word as the system's.
    pub(super) ran: Vec<u64>,
    /// The components live at the end of the range's last cycle, counted
    /// no further than [`COUNT_TO`] (for [`Shift`](crate::rtl::crew::Shift)).
    pub(super) work: usize,
}

impl Range {
    /// The range's components (switches, then nodes numbered as
    /// components) of a system of `n_sw` switches.
    pub(super) fn components(&self, n_sw: u32) -> [std::ops::Range<u32>; 2] {
        [
            self.sw.clone(),
            n_sw + self.nodes.start..n_sw + self.nodes.end,
        ]
    }

    /// Puts into the range's channels the writes the other ranges' edges
    /// of the cycle before `cycle` handed it (`cross`: every range's
    /// lists; this is range `k` of `n_ranges`), waking their readers.
    ///
    /// # Safety
    /// `cross` points to `n_ranges` lists, and no thread writes the last
    /// cycle's ones while this runs.
    #[inline(always)]
    pub(super) unsafe fn take_crossings(
        &mut self,
        cross: *const Cross,
        n_ranges: usize,
        k: usize,
        cycle: u64,
        n_sw: u32,
    ) {
        let (sw, nodes) = (self.sw.clone(), self.nodes.clone());
        let (words, sum) = self.active.parts();
        let inbox = &mut self.inbox;
        // SAFETY: by the caller.
        unsafe {
            self.ch.take_crossings(
                cross,
                n_ranges,
                k,
                cycle,
                |c| owns(&sw, &nodes, n_sw, c),
                |s| arrive(inbox, words, sum, s),
            )
        };
    }
}

/// Component `c` of a system of `n_sw` switches is among switches `sw` or
/// nodes `nodes` (numbered as nodes, from 0).
///
/// A range asks this of every write at its clock edge and of every write
/// handed to it, so it is two unsigned compares and no branch: `c` minus
/// a run's first component is below the run's length only inside the run
/// (below it, the difference wraps past every length). The switches lie
/// below `n_sw` and the nodes at or above it, so the two runs cannot both
/// hold `c`.
#[inline(always)]
pub(super) fn owns(
    sw: &std::ops::Range<u32>,
    nodes: &std::ops::Range<u32>,
    n_sw: u32,
    c: u32,
) -> bool {
    let in_sw = c.wrapping_sub(sw.start) < sw.end - sw.start;
    let in_nodes = c.wrapping_sub(n_sw + nodes.start) < nodes.end - nodes.start;
    in_sw | in_nodes
}

/// What one evaluation of switches `sw` and nodes `nodes` works on: all
/// of a system's on one thread, a range's on several.
pub(super) struct Parts<'a> {
    pub(super) cycle: u64,
    /// Switches in the system.
    pub(super) n_sw: u32,
    pub(super) sw: std::ops::Range<u32>,
    pub(super) nodes: std::ops::Range<u32>,
    /// The switches `sw` and the nodes `nodes`.
    pub(super) switches: &'a mut [Switch],
    pub(super) endpoints: &'a mut [Terminal],
    pub(super) ch: &'a mut Channels,
    /// The components to evaluate, numbered as in the system.
    pub(super) active: &'a mut Bits,
    pub(super) wheel: &'a mut Wheel,
    /// Per component of the system, the ports a flit was delivered to.
    pub(super) inbox: &'a mut [u64],
    pub(super) faults: &'a mut Vec<Fault>,
    /// Set to the number of `faults` found by the switches (several
    /// threads only).
    pub(super) node_faults: Option<&'a mut usize>,
    pub(super) packets: PacketView<'a>,
    pub(super) window: u64,
    pub(super) groups: &'a [Group],
    pub(super) hosts: &'a mut Vec<(u32, u16)>,
    pub(super) delivered: &'a mut Vec<u32>,
    /// A shuffled order of evaluation (one thread only).
    pub(super) order: Option<&'a mut (Xoshiro256PlusPlus, Vec<u32>)>,
    /// On several threads, this cycle's list of writes whose reader is
    /// another range's (`None`: every reader is here).
    pub(super) cross: Option<&'a mut CrossLists>,
}

/// Evaluation context shared by every component of a cycle. The
/// endpoints' view of the cycle is built once and lent to every component
/// (a switch sees its `link` part), with only the receive mask set per
/// component.
struct Ctx<'a, const CROSS: bool> {
    n_sw: u32,
    /// The first switch and the first node evaluated here.
    sw_lo: u32,
    node_lo: u32,
    switches: &'a mut [Switch],
    endpoints: &'a mut [Terminal],
    io: EndpointIo<'a, Group>,
    inbox: &'a mut [u64],
    wheel: &'a mut Wheel,
}

impl<const CROSS: bool> Ctx<'_, CROSS> {
    /// Evaluates component `c` and schedules it: a busy component stays in
    /// `active`, the set being evaluated; one that sleeps leaves it, for
    /// the clock edge or the timing wheel to bring back.
    #[inline(always)]
    fn eval(&mut self, active: &mut Bits, c: u32) {
        let cycle = self.io.link.cycle;
        let next = cycle + 1;
        self.io.link.inbox = std::mem::take(&mut self.inbox[c as usize]);
        if c < self.n_sw {
            let s = if CROSS { c - self.sw_lo } else { c };
            let n = self.switches[s as usize].eval(&mut self.io.link);
            // A switch is either busy or waits for a flit.
            if n != Next::Busy {
                active.remove(c);
            }
        } else {
            let e = if CROSS {
                c - self.n_sw - self.node_lo
            } else {
                c - self.n_sw
            };
            let n = self.endpoints[e as usize].eval(&mut self.io);
            let w = match n {
                Next::Busy => next,
                Next::SleepUntil(w) => w,
                Next::Sleep => {
                    active.remove(c);
                    return;
                }
            };
            if w > next {
                active.remove(c);
                self.wheel.schedule(cycle, c, w);
            }
        }
    }
}

/// Evaluates the live switches, then the live nodes, and clocks the
/// channels: a flit whose reader is here is delivered (its component's
/// inbox and live set), and a write whose reader is elsewhere goes to the
/// list of crossing writes.
///
/// `CROSS` is false on one thread (every reader is here; `cross` is
/// `None` and the ranges start at 0), true for a range: the two are
/// compiled apart, so that one thread pays no test of whose a reader is.
#[inline(always)]
pub(super) fn evaluate<const CROSS: bool>(p: Parts<'_>) {
    let Parts {
        cycle,
        n_sw,
        sw,
        nodes,
        switches,
        endpoints,
        ch,
        active,
        wheel,
        inbox,
        faults,
        node_faults,
        packets,
        window,
        groups,
        hosts,
        delivered,
        order,
        cross,
    } = p;
    let mut ctx = Ctx::<CROSS> {
        n_sw,
        sw_lo: sw.start,
        node_lo: nodes.start,
        switches,
        endpoints,
        io: EndpointIo {
            link: LinkIo {
                cycle,
                inbox: 0,
                ch,
                faults,
            },
            packets,
            window,
            groups,
            hosts,
            delivered,
        },
        inbox,
        wheel,
    };
    match order {
        None if CROSS => {
            // The switches come first in the set: the faults found before
            // the first node are theirs.
            let mut split = None;
            active.for_each_in_place(|now, c| {
                if c >= n_sw && split.is_none() {
                    split = Some(ctx.io.link.faults.len());
                }
                ctx.eval(now, c)
            });
            if let Some(n) = node_faults {
                *n = split.unwrap_or(ctx.io.link.faults.len());
            }
        }
        None => active.for_each_in_place(|now, c| ctx.eval(now, c)),
        Some((rng, all)) => {
            all.clear();
            active.for_each_in_place(|_, c| all.push(c));
            all.shuffle(rng);
            for &c in all.iter() {
                ctx.eval(active, c);
            }
        }
    }
    let Ctx {
        io: EndpointIo {
            link: LinkIo { ch, .. },
            ..
        },
        inbox,
        ..
    } = ctx;
    // The clock edge. Switches and endpoints commit in place (their
    // stages are evaluated consumer-first); the channels commit here.
    let (words, sum) = active.parts();
    match cross {
        Some(out) if CROSS => ch.edge_split(
            out,
            |c| owns(&sw, &nodes, n_sw, c),
            |s| arrive(inbox, words, sum, s),
        ),
        _ => {
            ch.flits.edge(|s| arrive(inbox, words, sum, s));
            ch.credits.edge();
        }
    }
}

/// A flit delivered to `s`: its component's inbox and live set (`words`,
/// `sum`: the set's [`Bits::parts`]).
#[inline(always)]
fn arrive(inbox: &mut [u64], words: &mut [u64], sum: &mut [u64], s: Sink) {
    inbox[s.component as usize] |= 1 << s.port;
    insert_into(words, sum, s.component);
}

/// One range's work for a cycle: raw pointers, as the ranges are disjoint
/// parts of the same vectors that the threads work on at once.
#[derive(Clone, Copy)]
pub(super) struct Job {
    pub(super) cycle: u64,
    pub(super) window: u64,
    pub(super) n_sw: u32,
    pub(super) switches: *mut Switch,
    pub(super) endpoints: *mut Terminal,
    pub(super) packets: *const PacketTable,
    pub(super) groups: *const [Group],
    /// Every range.
    pub(super) ranges: *mut Range,
    /// Every range's crossing writes.
    pub(super) cross: *mut Cross,
    pub(super) n_ranges: usize,
    /// This range's index.
    pub(super) k: usize,
    /// The network is traced: the range keeps the set it ran.
    pub(super) traced: bool,
}

impl Job {
    /// Puts the last cycle's crossing writes into the range's channels,
    /// wakes its components due, evaluates its live switches and then its
    /// live nodes, and clocks its channels, keeping what goes to other
    /// ranges in this cycle's list.
    ///
    /// # Safety
    /// The pointers are valid. While it runs, no other thread touches the
    /// range's switches and nodes, its [`Range`] or its crossing list of
    /// this cycle; none writes the last cycle's lists, the groups, or the
    /// packet table but through views of other sources ([`PacketView`]).
    unsafe fn run_range(&self) {
        let (k, n_sw, cycle) = (self.k, self.n_sw, self.cycle);
        let now = (cycle & 1) as usize;
        // SAFETY: by the caller, the range is this thread's.
        let me = unsafe { &mut *self.ranges.add(k) };
        let (sw, nodes) = (me.sw.clone(), me.nodes.clone());
        // SAFETY: the other ranges only read their last cycle's lists.
        unsafe { me.take_crossings(self.cross, self.n_ranges, k, cycle, n_sw) };
        {
            let Range { wheel, active, .. } = &mut *me;
            wheel.due(cycle, |c| active.insert(c));
        }
        if self.traced {
            me.ran.clear();
            me.ran.extend_from_slice(me.active.words());
        }
        // SAFETY: by the caller, the range's switches and nodes are this
        // thread's.
        let (switches, endpoints) = unsafe {
            (
                std::slice::from_raw_parts_mut(self.switches.add(sw.start as usize), sw.len()),
                std::slice::from_raw_parts_mut(
                    self.endpoints.add(nodes.start as usize),
                    nodes.len(),
                ),
            )
        };
        // SAFETY: this cycle's list is the range's alone.
        let out = unsafe { &mut (*self.cross.add(k)).0[now] };
        out.begin(cycle);
        // SAFETY: by the caller, the table is reached through views alone,
        // and this range's view owns its nodes, which no other does.
        let packets = unsafe { PacketView::new(&*self.packets, nodes.clone(), &mut me.log) };
        evaluate::<true>(Parts {
            cycle,
            n_sw,
            sw,
            nodes,
            switches,
            endpoints,
            ch: &mut me.ch,
            active: &mut me.active,
            wheel: &mut me.wheel,
            inbox: &mut me.inbox,
            faults: &mut me.faults,
            node_faults: Some(&mut me.node_faults),
            packets,
            window: self.window,
            // SAFETY: the groups are read alone during the cycle.
            groups: unsafe { &*self.groups },
            hosts: &mut me.hosts,
            delivered: &mut me.delivered,
            order: None,
            cross: Some(out),
        });
        me.work = me.active.count_to(COUNT_TO);
    }
}

impl CrewJob for Job {
    unsafe fn run(&self) {
        // SAFETY: by the caller, as `Job::run_range` states.
        unsafe { self.run_range() }
    }
}

// SAFETY: a job is handed to exactly one thread per cycle, points into
// ranges no other thread touches during that cycle (the other ranges' lists
// of the last cycle's crossing writes it reads are only read; the packet
// table is shared through views that each own their sources), and the
// calling thread waits for every helper to finish before it touches them
// again.
unsafe impl Send for Job {}

#[cfg(test)]
mod tests {
    use super::owns;
    use proptest::prelude::*;

    proptest! {
        /// The test without branches answers as the test by halves: a
        /// switch by the switches' run, a node by the nodes' (numbered as
        /// nodes), for ranges anywhere in systems of any size, empty
        /// ranges included.
        #[test]
        fn a_range_owns_what_its_two_runs_hold(
            n_sw in 1u32..5_000,
            nodes in 1u32..20_000,
            cuts in (0.0f64..=1.0, 0.0f64..=1.0, 0.0f64..=1.0, 0.0f64..=1.0),
            probe in prop::collection::vec(any::<u32>(), 16),
        ) {
            let at = |f: f64, n: u32| (f * n as f64) as u32;
            let (a, b) = (at(cuts.0, n_sw), at(cuts.1, n_sw));
            let sw = a.min(b)..a.max(b);
            let (a, b) = (at(cuts.2, nodes), at(cuts.3, nodes));
            let nd = a.min(b)..a.max(b);
            let total = n_sw + nodes;
            // Every component at a run's ends, and some anywhere.
            let ends = [sw.start, sw.end, n_sw + nd.start, n_sw + nd.end];
            let near = ends
                .iter()
                .flat_map(|&e| [e.wrapping_sub(1), e, e + 1])
                .chain(probe.iter().map(|&p| p % total));
            for c in near.filter(|&c| c < total) {
                let by_halves = if c < n_sw {
                    sw.contains(&c)
                } else {
                    nd.contains(&(c - n_sw))
                };
                prop_assert_eq!(owns(&sw, &nd, n_sw, c), by_halves, "component {}", c);
            }
        }
    }
}

//! What a component on the link level sees in a cycle.

use super::flit::Flit;
use crate::rtl::{ChannelBank, ChannelId, LevelBank, Sink};

/// Every channel of a system.
#[derive(Clone, Debug, Default)]
pub struct Channels {
    /// Flit links (1 flit per cycle, 1-cycle latency; the receiver is woken).
    pub flits: ChannelBank<Flit>,
    /// Credit counters: each receiver's running total (mod 2^32) of the
    /// buffer chunks it has freed, read by its sender one cycle later.
    pub credits: LevelBank<u32>,
}

impl Channels {
    /// The channels as one thread would hold them, gathered from the
    /// copies of a network evaluated on several threads: each channel's
    /// value as the copy `reader` gives for its reader holds it, and what
    /// every copy counted it carried.
    pub(crate) fn gather(copies: &[&Channels], reader: impl Fn(Sink) -> usize) -> Channels {
        let flits: Vec<_> = copies.iter().map(|c| &c.flits).collect();
        let credits: Vec<_> = copies.iter().map(|c| &c.credits).collect();
        Channels {
            flits: ChannelBank::gather(&flits, &reader),
            credits: LevelBank::gather(&credits, &reader),
        }
    }

    /// [`gather`](Self::gather) into these channels, which keep their
    /// change tracking ([`ChannelBank::gather_from`]).
    pub(crate) fn gather_from(&mut self, copies: &[&Channels], reader: impl Fn(Sink) -> usize) {
        let flits: smallvec::SmallVec<[_; 4]> = copies.iter().map(|c| &c.flits).collect();
        let credits: smallvec::SmallVec<[_; 4]> = copies.iter().map(|c| &c.credits).collect();
        self.flits.gather_from(&flits, &reader);
        self.credits.gather_from(&credits, &reader);
    }

    /// Makes these channels, one thread's copy, show what `from` shows,
    /// counting what they carried where `drives` says this copy drives
    /// them ([`ChannelBank::split_from`]).
    pub(crate) fn split_from(&mut self, from: &Channels, drives: impl Fn(Sink) -> bool) {
        self.flits.split_from(&from.flits, drives);
        self.credits.split_from(&from.credits);
    }

    /// Takes the edge that the copies of a network evaluated on several
    /// threads have just taken, as one thread's channels would
    /// ([`ChannelBank::follow`], [`LevelBank::follow`]): kept for a traced
    /// network, whose components are sampled from one set of channels.
    pub(crate) fn follow(&mut self, copies: &[&Channels]) {
        let flits: smallvec::SmallVec<[_; 4]> = copies.iter().map(|c| &c.flits).collect();
        let credits: smallvec::SmallVec<[_; 4]> = copies.iter().map(|c| &c.credits).collect();
        self.flits.follow(&flits);
        self.credits.follow(&credits);
    }

    /// Puts into this copy the writes another range's edge handed over
    /// (`from`) whose readers this range `owns`, telling `arrived` each
    /// flit's reader.
    #[inline(always)]
    pub(crate) fn take_crossing(
        &mut self,
        from: &CrossLists,
        owns: impl Fn(u32) -> bool,
        mut arrived: impl FnMut(Sink),
    ) {
        for &(c, f) in &from.flits {
            let sink = self.flits.sink(ChannelId(c));
            if owns(sink.component) {
                self.flits.deliver(ChannelId(c), f);
                arrived(sink);
            }
        }
        for &(c, v) in &from.credits {
            if owns(self.credits.sink(ChannelId(c)).component) {
                self.credits.deliver(ChannelId(c), v);
            }
        }
    }

    /// Puts into this copy, range `k`'s, the writes the other ranges'
    /// edges handed over in the cycle before `cycle` (their lists in
    /// `cross`, one pair per range of `n`) whose readers it `owns`,
    /// telling `arrived` each flit's reader. A list of an older cycle (one
    /// before a skip) was taken already and is left.
    ///
    /// # Safety
    /// `cross` points to `n` pairs of lists, and while this runs no thread
    /// writes the lists of the last cycle's parity (the other ranges fill
    /// this cycle's).
    #[inline(always)]
    pub(crate) unsafe fn take_crossings(
        &mut self,
        cross: *const Cross,
        n: usize,
        k: usize,
        cycle: u64,
        owns: impl Fn(u32) -> bool,
        mut arrived: impl FnMut(Sink),
    ) {
        let last = ((cycle & 1) ^ 1) as usize;
        for j in (0..n).filter(|&j| j != k) {
            // SAFETY: by the caller; the list itself is borrowed, not the
            // pair, whose other list its range is filling.
            let l = unsafe { &(*cross.add(j)).0[last] };
            if l.is_last(cycle) {
                self.take_crossing(l, &owns, &mut arrived);
            }
        }
    }

    /// The clock edge of a range's copy: a flit whose reader the range
    /// `owns` is delivered here (`arrived` is told its reader), and a
    /// flit or credit total read in another range goes to `out`.
    #[inline(always)]
    pub(crate) fn edge_split(
        &mut self,
        out: &mut CrossLists,
        owns: impl Fn(u32) -> bool,
        mut arrived: impl FnMut(Sink),
    ) {
        self.flits.edge_each(|c, sink, f| {
            if owns(sink.component) {
                arrived(sink);
            } else {
                out.flits.push((c, f));
            }
        });
        self.credits.edge_each(|c, sink, v| {
            if !owns(sink.component) {
                out.credits.push((c, v));
            }
        });
    }
}

/// The writes a range's clock edge hands to other ranges, by the parity
/// of the cycle they were made in: the receiving ranges read the last
/// cycle's list while the writer fills this cycle's. A job reaches
/// another range's list through a raw pointer to the list itself
/// ([`CrossLists`]), never to the pair, which its writer is filling.
#[derive(Debug, Default)]
pub(crate) struct Cross(pub(crate) [CrossLists; 2]);

/// One cycle's crossing writes of one range.
#[derive(Debug)]
pub(crate) struct CrossLists {
    /// The cycle they were made in: a list is taken only in the cycle
    /// after it (a list of a cycle before a skip was taken already).
    pub(crate) cycle: u64,
    /// (link, flit now on it).
    pub(crate) flits: Vec<(u32, Flit)>,
    /// (credit counter, its new total).
    pub(crate) credits: Vec<(u32, u32)>,
}

impl Default for CrossLists {
    fn default() -> Self {
        CrossLists {
            cycle: u64::MAX,
            flits: Vec::new(),
            credits: Vec::new(),
        }
    }
}

impl CrossLists {
    /// Empties the list for the writes of `cycle`.
    #[inline]
    pub(crate) fn begin(&mut self, cycle: u64) {
        self.cycle = cycle;
        self.flits.clear();
        self.credits.clear();
    }

    /// The list was made in the cycle before `cycle` (and is to be taken
    /// now).
    #[inline]
    pub(crate) fn is_last(&self, cycle: u64) -> bool {
        self.cycle.wrapping_add(1) == cycle
    }
}

impl Cross {
    /// Holds writes made in cycle `cycle` that the ranges have not taken.
    pub(crate) fn pending(&self, cycle: u64) -> bool {
        let l = &self.0[(cycle & 1) as usize];
        l.cycle == cycle && !(l.flits.is_empty() && l.credits.is_empty())
    }
}

/// A broken invariant found by the model while it ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    /// The cycle.
    pub cycle: u64,
    /// What and where.
    pub what: String,
}

/// The link-level view of a cycle: incoming and outgoing flits and credits.
/// Reads see the channels' values of this cycle, writes take effect at the
/// edge.
pub struct LinkIo<'a> {
    /// The current cycle.
    pub cycle: u64,
    /// Ports whose incoming link carries a flit this cycle (bit `p` = port `p`).
    pub inbox: u64,
    /// The channels.
    pub ch: &'a mut Channels,
    /// Where broken invariants are reported.
    pub faults: &'a mut Vec<Fault>,
}

impl LinkIo<'_> {
    /// The flit on link `id` this cycle (an idle flit when none arrived).
    #[inline]
    pub fn flit(&self, id: ChannelId) -> Flit {
        self.ch.flits.q(id)
    }

    /// The flit delivered on link `id` this cycle, for a port whose bit is
    /// set in [`inbox`](Self::inbox): [`flit`](Self::flit) without the
    /// check that one arrived (a debug build makes it).
    #[inline]
    pub(crate) fn delivered_flit(&self, id: ChannelId) -> Flit {
        self.ch.flits.q_delivered(id)
    }

    /// Sends `f` on link `id` (it arrives next cycle).
    #[inline]
    pub fn send(&mut self, id: ChannelId, f: Flit) {
        self.ch.flits.write(id, f);
    }

    /// The total of chunks freed published on credit counter `id`.
    #[inline]
    pub fn freed(&self, id: ChannelId) -> u32 {
        self.ch.credits.q(id)
    }

    /// Publishes the total of chunks freed on credit counter `id`.
    #[inline]
    pub fn publish(&mut self, id: ChannelId, total: u32) {
        self.ch.credits.write(id, total);
    }

    /// Reports a broken invariant.
    #[cold]
    pub fn fault(&mut self, what: String) {
        self.faults.push(Fault {
            cycle: self.cycle,
            what,
        });
    }
}

/// The sender's side of credit flow control: how many chunks of the
/// receiver's buffer it has started, against the receiver's published total
/// of chunks freed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CreditCounter {
    /// Chunks in the receiver's buffer.
    pub cap: u32,
    /// Chunks started so far (mod 2^32).
    pub used: u32,
}

impl CreditCounter {
    /// A counter for a receiver of `cap` chunks.
    pub fn new(cap: u32) -> Self {
        CreditCounter { cap, used: 0 }
    }

    /// Free chunks, given the receiver's freed total.
    #[inline]
    pub fn available(&self, freed: u32) -> u32 {
        self.cap - self.used.wrapping_sub(freed)
    }

    /// The receiver has returned more chunks than were taken: a
    /// flow-control fault of the receiver (its freed total ran ahead of
    /// the chunks sent to it), which would otherwise block the sender for
    /// good while looking like a full receiver.
    #[inline]
    pub fn over_returned(&self, freed: u32) -> bool {
        self.used.wrapping_sub(freed) > self.cap
    }

    /// Whether there is a chunk to take.
    #[inline]
    pub fn has_one(&self, freed: u32) -> bool {
        self.used.wrapping_sub(freed) < self.cap
    }

    /// Takes one chunk if there is one.
    #[inline]
    pub fn take(&mut self, freed: u32) -> bool {
        if self.has_one(freed) {
            self.used = self.used.wrapping_add(1);
            true
        } else {
            false
        }
    }
}

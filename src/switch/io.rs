//! What a component on the link level sees in a cycle.

use super::flit::Flit;
use crate::rtl::{ChannelBank, ChannelId, LevelBank};

/// Every channel of a system.
#[derive(Clone, Debug, Default)]
pub struct Channels {
    /// Flit links (1 flit per cycle, 1-cycle latency; the receiver is woken).
    pub flits: ChannelBank<Flit>,
    /// Credit counters: each receiver's running total (mod 2^32) of the
    /// buffer chunks it has freed, read by its sender one cycle later.
    pub credits: LevelBank<u32>,
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

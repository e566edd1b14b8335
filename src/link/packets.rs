//! Bookkeeping of packets in flight (sideband; no hardware reads it).

use crate::header::Kind;
use crate::rtl::BitString;
use serde::Serialize;

/// Bits of a packet tag that number the source's packet slots in a network
/// of at most 4,096 nodes; a larger network gives its tags the bits its
/// node numbers need and its slots the rest (see [`PacketTable::new`]).
pub const SLOT_BITS: u32 = 20;
/// Largest number of nodes a tag can name (leaving 4,096 packets in flight
/// per source): exactly the most a network may have.
pub const MAX_NODES: usize = 1 << 20;
const _: () = assert!(MAX_NODES == crate::net::MAX_NODES);

/// No destination group: a unicast packet.
pub const NO_GROUP: u32 = u32::MAX;

/// What the model remembers of a packet in flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PacketRecord {
    /// Destination node (unicast).
    pub dst: u32,
    /// Header encoding.
    pub kind: Kind,
    /// Length in flits as sent, header included.
    pub len: u16,
    /// Flits after the header.
    pub payload: u16,
    /// Cycle it was generated (entered the source queue).
    pub created: u64,
    /// Cycle its first flit was sent.
    pub inject: u64,
    /// Its number among the packets its source generated, from 0.
    pub seq: u64,
    /// A worm's destinations still to be served, in its source's pool of
    /// groups ([`NO_GROUP`] for unicast).
    pub group: u32,
}

/// Names a packet or worm: its source and its number among the packets
/// that source generated or was given, from 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct PacketId {
    /// Source node.
    pub src: u32,
    /// Sequence number at the source.
    pub seq: u64,
}

/// A delivered packet (or a worm's copy to one destination), kept when
/// deliveries are recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Delivery {
    /// Source node.
    pub src: u32,
    /// Sequence number at the source (see [`PacketId`]).
    pub seq: u64,
    /// Destination node.
    pub dst: u32,
    /// Header encoding of the packet.
    pub kind: Kind,
    /// Flits received by this destination, header included.
    pub len: u16,
    /// Cycle generated.
    pub created: u64,
    /// Cycle its first flit was sent.
    pub inject: u64,
    /// Cycle its tail flit was in the destination's memory.
    pub arrive: u64,
}

impl Delivery {
    /// The packet delivered.
    pub fn id(&self) -> PacketId {
        PacketId {
            src: self.src,
            seq: self.seq,
        }
    }
}

#[derive(Clone, Debug, Default)]
struct Slots {
    recs: Vec<PacketRecord>,
    free: Vec<u32>,
    groups: Vec<BitString>,
    free_groups: Vec<u32>,
}

/// Records of the packets in flight, one pool of slots per source, so that
/// the tag a packet gets never depends on what other sources do.
#[derive(Clone, Debug, Default)]
pub struct PacketTable {
    srcs: Vec<Slots>,
    live: u64,
    /// Bits of a tag that number a source's slots.
    slot_bits: u32,
}

impl PacketTable {
    /// A table for `nodes` sources. A tag is the source's number over its
    /// slot's: 20 bits of slot up to 4,096 nodes (2^20 packets in
    /// flight per source), fewer for a larger network (32 minus the bits of
    /// its largest node number).
    pub fn new(nodes: usize) -> Self {
        assert!(nodes <= MAX_NODES);
        let src_bits = usize::BITS - nodes.saturating_sub(1).leading_zeros();
        PacketTable {
            srcs: vec![Slots::default(); nodes],
            live: 0,
            slot_bits: SLOT_BITS.min(32 - src_bits),
        }
    }

    /// Source node of a tag.
    #[inline]
    pub fn src_of(&self, tag: u32) -> u32 {
        tag >> self.slot_bits
    }

    #[inline]
    fn slot_of(&self, tag: u32) -> usize {
        (tag & ((1 << self.slot_bits) - 1)) as usize
    }

    /// Most packets one source may have in flight (`2^slot bits`).
    pub fn max_in_flight(&self) -> u64 {
        1 << self.slot_bits
    }

    /// Stores a packet of `src` and returns its tag, or `None` when the
    /// source has [`PacketTable::max_in_flight`] packets in flight.
    pub fn alloc(&mut self, src: u32, rec: PacketRecord) -> Option<u32> {
        let bits = self.slot_bits;
        let s = &mut self.srcs[src as usize];
        let slot = match s.free.pop() {
            Some(slot) => {
                s.recs[slot as usize] = rec;
                slot
            }
            None => {
                if s.recs.len() >= 1 << bits {
                    return None;
                }
                s.recs.push(rec);
                s.recs.len() as u32 - 1
            }
        };
        self.live += 1;
        Some(src << bits | slot)
    }

    /// Stores a worm of `src` for the destinations `dests` and returns its
    /// tag, or `None` when the source has [`PacketTable::max_in_flight`] packets in flight.
    pub fn alloc_worm(
        &mut self,
        src: u32,
        mut rec: PacketRecord,
        dests: &BitString,
    ) -> Option<u32> {
        let s = &mut self.srcs[src as usize];
        rec.group = match s.free_groups.pop() {
            Some(g) => {
                s.groups[g as usize].copy_from(dests);
                g
            }
            None => {
                s.groups.push(dests.clone());
                s.groups.len() as u32 - 1
            }
        };
        let tag = self.alloc(src, rec);
        if tag.is_none() {
            let g = rec.group;
            self.srcs[src as usize].free_groups.push(g);
        }
        tag
    }

    /// The destinations a live worm has still to serve.
    pub fn remaining(&mut self, tag: u32) -> Option<&mut BitString> {
        let g = self.get(tag)?.group;
        if g == NO_GROUP {
            return None;
        }
        let src = self.src_of(tag) as usize;
        self.srcs[src].groups.get_mut(g as usize)
    }

    /// The record of a live tag.
    #[inline]
    pub fn get(&self, tag: u32) -> Option<&PacketRecord> {
        self.srcs
            .get(self.src_of(tag) as usize)?
            .recs
            .get(self.slot_of(tag))
    }

    /// The record of a live tag, for update.
    #[inline]
    pub fn get_mut(&mut self, tag: u32) -> Option<&mut PacketRecord> {
        let (src, slot) = (self.src_of(tag) as usize, self.slot_of(tag));
        self.srcs.get_mut(src)?.recs.get_mut(slot)
    }

    /// Checks that the packet whose head flit `tag` reached node `node` is
    /// meant for it: a unicast packet to it, or a worm copy it is still
    /// owed. `who` names the receiver in the message (`node 3`, `NI 3`); it
    /// is called only on an error (building the name for every packet head
    /// cost about 7% of a run of short packets).
    pub fn check_arrival(
        &mut self,
        tag: u32,
        node: u32,
        who: impl FnOnce() -> String,
    ) -> Result<(), String> {
        match self.get(tag) {
            None => Err(format!(
                "{} received the head of unknown packet tag {tag}",
                who()
            )),
            Some(rec) if rec.group == NO_GROUP => {
                if rec.dst == node {
                    Ok(())
                } else {
                    Err(format!(
                        "packet tag {tag} for node {} was delivered to {}",
                        rec.dst,
                        who()
                    ))
                }
            }
            Some(_) => {
                if self.remaining(tag).is_some_and(|r| r.get(node as usize)) {
                    Ok(())
                } else {
                    Err(format!(
                        "a copy of worm tag {tag} reached {}, which is not one of its destinations or already had its copy",
                        who()
                    ))
                }
            }
        }
    }

    /// Node `node` has its copy of `tag` whole: true when no destination is
    /// owed one any more (the tag can be released).
    pub fn served(&mut self, tag: u32, node: u32) -> bool {
        match self.remaining(tag) {
            None => true,
            Some(r) => {
                r.set(node as usize, false);
                r.is_zero()
            }
        }
    }

    /// Releases a tag (and its destination group).
    pub fn free(&mut self, tag: u32) {
        let slot = self.slot_of(tag) as u32;
        let src = self.src_of(tag) as usize;
        let s = &mut self.srcs[src];
        let g = s.recs[slot as usize].group;
        if g != NO_GROUP {
            s.free_groups.push(g);
        }
        s.free.push(slot);
        self.live -= 1;
    }

    /// Packets in flight.
    pub fn live(&self) -> u64 {
        self.live
    }
}

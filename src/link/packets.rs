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

/// A record's cell. Between cycles the table is reached through `&mut`
/// alone; during a cycle's evaluation, through the views
/// ([`PacketView`]), which write a cell only for a source they own.
type Cell<T> = std::cell::UnsafeCell<T>;

/// One source's pool of slots and of destination sets.
#[derive(Debug, Default)]
struct Slots {
    recs: Vec<Cell<PacketRecord>>,
    free: Cell<Vec<u32>>,
    groups: Vec<Cell<BitString>>,
    free_groups: Cell<Vec<u32>>,
    /// The source sends worms: a free destination set is kept ready.
    worms: bool,
}

impl Clone for Slots {
    fn clone(&self) -> Self {
        // SAFETY: `&self` between cycles: no view writes a cell.
        let read = |c: &Cell<Vec<u32>>| unsafe { (*c.get()).clone() };
        Slots {
            recs: self
                .recs
                .iter()
                .map(|c| Cell::new(unsafe { *c.get() }))
                .collect(),
            free: Cell::new(read(&self.free)),
            groups: self
                .groups
                .iter()
                .map(|c| Cell::new(unsafe { (*c.get()).clone() }))
                .collect(),
            free_groups: Cell::new(read(&self.free_groups)),
            worms: self.worms,
        }
    }
}

/// A slot kept ready and not yet used: its length of 0 is no packet's.
const BLANK: PacketRecord = PacketRecord {
    dst: u32::MAX,
    kind: Kind::Unicast,
    len: 0,
    payload: 0,
    created: 0,
    inject: 0,
    seq: 0,
    group: NO_GROUP,
};

/// Records of the packets in flight, one pool of slots per source, so that
/// the tag a packet gets never depends on what other sources do.
///
/// A source's pool always holds a free slot, and the pool of a source that
/// sends worms a free destination set ([`PacketTable::ready`]): the
/// packets a cycle starts take them without growing a vector, so that a
/// cycle evaluated on several threads moves no record that another reads.
/// Kept ready at the bottom of the free lists (which are stacks), a slot
/// is taken exactly when a vector would have grown, with the number it
/// would have had: the tags are the same as without them.
#[derive(Clone, Debug, Default)]
pub struct PacketTable {
    srcs: Vec<Slots>,
    live: u64,
    /// Bits of a tag that number a source's slots.
    slot_bits: u32,
    nodes: usize,
}

// SAFETY: the cells are written through a shared reference only by views,
// whose constructor's contract gives each source's cells to one thread.
unsafe impl Sync for PacketTable {}

/// Why a packet could not be given a tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// The source has [`PacketTable::max_in_flight`] packets in flight.
    Full,
    /// No destination set was kept ready for a worm of this source (a
    /// defect of the model: [`PacketTable::ready`] was not called).
    NotReady,
}

impl Refused {
    /// The fault to report, for the sender `who` (`node 3`, `NI 3`).
    pub fn message(self, who: &str, table_max: u64) -> String {
        match self {
            Refused::Full => {
                format!("{who} has {table_max} packets in flight, the most a tag can number")
            }
            Refused::NotReady => format!(
                "{who} started a worm with no destination set kept ready for it (a defect of the model)"
            ),
        }
    }
}

impl PacketTable {
    /// A table for `nodes` sources. A tag is the source's number over its
    /// slot's: 20 bits of slot up to 4,096 nodes (2^20 packets in
    /// flight per source), fewer for a larger network (32 minus the bits of
    /// its largest node number).
    pub fn new(nodes: usize) -> Self {
        assert!(nodes <= MAX_NODES);
        let src_bits = usize::BITS - nodes.saturating_sub(1).leading_zeros();
        let mut t = PacketTable {
            srcs: (0..nodes).map(|_| Slots::default()).collect(),
            live: 0,
            slot_bits: SLOT_BITS.min(32 - src_bits),
            nodes,
        };
        for s in 0..nodes as u32 {
            t.ready(s);
        }
        t
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

    /// Marks `src` as a source of worms: from now on a free destination
    /// set is kept ready for it, as for every source a free slot. Called
    /// before a worm of `src` can start (when worms are queued or
    /// generated).
    pub fn sends_worms(&mut self, src: u32) {
        self.srcs[src as usize].worms = true;
        self.ready(src);
    }

    /// Keeps a free slot ready for `src` (unless it has
    /// [`max_in_flight`](Self::max_in_flight) already) and, for a source
    /// of worms, a free destination set: after every cycle in which it
    /// started a packet.
    pub fn ready(&mut self, src: u32) {
        let cap = self.max_in_flight();
        let nodes = self.nodes;
        let s = &mut self.srcs[src as usize];
        let free = s.free.get_mut();
        if free.is_empty() && (s.recs.len() as u64) < cap {
            free.push(s.recs.len() as u32);
            s.recs.push(Cell::new(BLANK));
        }
        let free_groups = s.free_groups.get_mut();
        if s.worms && free_groups.is_empty() {
            free_groups.push(s.groups.len() as u32);
            s.groups.push(Cell::new(BitString::zeros(nodes)));
        }
    }

    /// Stores a packet of `src` and returns its tag.
    pub fn alloc(&mut self, src: u32, rec: PacketRecord) -> Result<u32, Refused> {
        let mut log = PacketLog::default();
        let tag = self.view(&mut log).alloc(src, rec);
        self.settle_alloc(src, tag)
    }

    /// Stores a worm of `src` for the destinations `dests` and returns its
    /// tag. The source must have been named by
    /// [`sends_worms`](Self::sends_worms).
    pub fn alloc_worm(
        &mut self,
        src: u32,
        rec: PacketRecord,
        dests: &BitString,
    ) -> Result<u32, Refused> {
        let mut log = PacketLog::default();
        let tag = self.view(&mut log).alloc_worm(src, rec, dests);
        self.settle_alloc(src, tag)
    }

    fn settle_alloc(&mut self, src: u32, tag: Result<u32, Refused>) -> Result<u32, Refused> {
        if tag.is_ok() {
            self.live += 1;
            self.ready(src);
        }
        tag
    }

    /// A view that owns every source, for a cycle evaluated on one
    /// thread, logging into `log`.
    pub fn view<'a>(&'a mut self, log: &'a mut PacketLog) -> PacketView<'a> {
        let own = 0..self.nodes as u32;
        // SAFETY: `&mut self`: this is the only view.
        unsafe { PacketView::new(self, own, log) }
    }

    /// Takes what a view logged in a cycle: counts the packets started,
    /// keeps a free slot (and set) ready again for the sources that took
    /// their last, marks the worm copies served, and moves the tags
    /// released (a unicast packet delivered, a worm's last copy) to
    /// `retired`. Leaves the log empty.
    #[inline]
    pub fn settle(&mut self, log: &mut PacketLog, retired: &mut Vec<u32>) {
        if log.started != 0 || !log.retired.is_empty() || !log.served.is_empty() {
            self.settle_log(log, retired);
        }
    }

    #[inline(never)]
    fn settle_log(&mut self, log: &mut PacketLog, retired: &mut Vec<u32>) {
        self.live += std::mem::take(&mut log.started);
        for src in log.emptied.drain(..) {
            self.ready(src);
        }
        retired.append(&mut log.retired);
        for (tag, node) in log.served.drain(..) {
            if self.served(tag, node) {
                retired.push(tag);
            }
        }
    }

    /// The destinations a live worm has still to serve.
    pub fn remaining(&mut self, tag: u32) -> Option<&mut BitString> {
        let g = self.get(tag)?.group;
        if g == NO_GROUP {
            return None;
        }
        let src = self.src_of(tag) as usize;
        self.srcs[src].groups.get_mut(g as usize).map(Cell::get_mut)
    }

    /// The record of a live tag.
    #[inline]
    pub fn get(&self, tag: u32) -> Option<&PacketRecord> {
        let c = self
            .srcs
            .get(self.src_of(tag) as usize)?
            .recs
            .get(self.slot_of(tag))?;
        // SAFETY: `&self` between cycles: no view writes a cell.
        Some(unsafe { &*c.get() }).filter(|r| r.len != 0)
    }

    /// The record of a live tag, for update.
    #[inline]
    pub fn get_mut(&mut self, tag: u32) -> Option<&mut PacketRecord> {
        let (src, slot) = (self.src_of(tag) as usize, self.slot_of(tag));
        Some(self.srcs.get_mut(src)?.recs.get_mut(slot)?.get_mut()).filter(|r| r.len != 0)
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
        self.view(&mut PacketLog::default())
            .check_arrival(tag, node, who)
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
    #[inline]
    pub fn free(&mut self, tag: u32) {
        let slot = self.slot_of(tag) as u32;
        let src = self.src_of(tag) as usize;
        let s = &mut self.srcs[src];
        let g = s.recs[slot as usize].get_mut().group;
        if g != NO_GROUP {
            s.free_groups.get_mut().push(g);
        }
        s.free.get_mut().push(slot);
        self.live -= 1;
    }

    /// Packets in flight.
    pub fn live(&self) -> u64 {
        self.live
    }
}

/// What a cycle's evaluation may do to the packet table: start packets of
/// the sources it owns, read any live packet's record, and log the copies
/// delivered whole, for the calling thread to take after the cycle
/// ([`PacketTable::settle`]). Several views of one table, owning disjoint
/// sources, may be used on several threads at once: a source's free slot
/// and destination set are kept ready ([`PacketTable::ready`]), so no
/// vector grows, and a record read is one no thread writes (a live
/// packet's; a view writes only a free slot of its own source).
pub struct PacketView<'a> {
    table: &'a PacketTable,
    /// The sources this view may start packets of.
    own: std::ops::Range<u32>,
    log: &'a mut PacketLog,
}

/// What a cycle did to the packet table through a view, for
/// [`PacketTable::settle`] after it.
#[derive(Debug, Default)]
pub struct PacketLog {
    /// Packets started.
    started: u64,
    /// Sources that took their last free slot or destination set.
    emptied: Vec<u32>,
    /// (tag, node): worm copies received whole.
    served: Vec<(u32, u32)>,
    /// Unicast packets received whole.
    retired: Vec<u32>,
}

impl<'a> PacketView<'a> {
    /// A view of `table` that starts packets of the sources `own`,
    /// logging what it does into `log` for [`PacketTable::settle`].
    ///
    /// # Safety
    /// While the view lives, the table is reached only through views,
    /// and no two views whose sources overlap are used at once.
    pub unsafe fn new(
        table: &'a PacketTable,
        own: std::ops::Range<u32>,
        log: &'a mut PacketLog,
    ) -> Self {
        PacketView { table, own, log }
    }

    /// Most packets one source may have in flight.
    pub fn max_in_flight(&self) -> u64 {
        self.table.max_in_flight()
    }

    /// Source node of a tag.
    #[inline]
    pub fn src_of(&self, tag: u32) -> u32 {
        self.table.src_of(tag)
    }

    /// The pool of `src`, which this view owns.
    #[inline]
    fn own(&self, src: u32) -> &'a Slots {
        assert!(
            self.own.contains(&src),
            "a view started a packet of source {src}, outside its sources {:?}",
            self.own
        );
        &self.table.srcs[src as usize]
    }

    /// Takes the free slot of `src` for `rec`.
    #[inline]
    fn take_slot(&mut self, src: u32, rec: PacketRecord) -> Result<u32, Refused> {
        let s = self.own(src);
        // SAFETY: `src` is this view's (checked), so its free list and its
        // free slots are this thread's; the list does not grow here.
        let free = unsafe { &mut *s.free.get() };
        let slot = free.pop().ok_or(Refused::Full)?;
        if free.is_empty() {
            self.log.emptied.push(src);
        }
        // SAFETY: a free slot is read by no one (no flit carries its tag).
        unsafe { *s.recs[slot as usize].get() = rec };
        self.log.started += 1;
        Ok(src << self.table.slot_bits | slot)
    }

    /// Stores a packet of `src` and returns its tag.
    #[inline]
    pub fn alloc(&mut self, src: u32, rec: PacketRecord) -> Result<u32, Refused> {
        self.take_slot(src, rec)
    }

    /// Stores a worm of `src` for the destinations `dests` and returns its
    /// tag.
    pub fn alloc_worm(
        &mut self,
        src: u32,
        mut rec: PacketRecord,
        dests: &BitString,
    ) -> Result<u32, Refused> {
        let s = self.own(src);
        // SAFETY: as in `take_slot`: the source's free destination sets
        // are this thread's.
        let free = unsafe { &mut *s.free_groups.get() };
        let g = free.pop().ok_or(Refused::NotReady)?;
        if free.is_empty() {
            self.log.emptied.push(src);
        }
        // SAFETY: a free set is read by no one.
        unsafe { (*s.groups[g as usize].get()).copy_from(dests) };
        rec.group = g;
        let tag = self.take_slot(src, rec);
        if tag.is_err() {
            // SAFETY: as above.
            unsafe { (*s.free_groups.get()).push(g) };
        }
        tag
    }

    /// The record of a live tag.
    #[inline]
    pub fn get(&self, tag: u32) -> Option<PacketRecord> {
        let c = self
            .table
            .srcs
            .get(self.src_of(tag) as usize)?
            .recs
            .get(self.table.slot_of(tag))?;
        // SAFETY: a live packet's record is written by no one during a
        // cycle (a view writes only free slots).
        Some(unsafe { *c.get() }).filter(|r| r.len != 0)
    }

    /// [`PacketTable::check_arrival`].
    pub fn check_arrival(
        &self,
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
            Some(rec) => {
                let s = &self.table.srcs[self.src_of(tag) as usize];
                // SAFETY: a live worm's set is written by no one during a
                // cycle (copies served are logged and marked after it).
                let owed = s
                    .groups
                    .get(rec.group as usize)
                    .is_some_and(|g| unsafe { (*g.get()).get(node as usize) });
                if owed {
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

    /// Node `node` has its copy of `tag`, whose record is `rec`, whole:
    /// a unicast packet is released after the cycle; a worm's copy is
    /// marked after it ([`PacketTable::served`]; a destination never
    /// takes two copies' heads in one cycle, so the check of a head never
    /// needs a mark of its own cycle).
    #[inline]
    pub fn served(&mut self, tag: u32, node: u32, rec: &PacketRecord) {
        if rec.group == NO_GROUP {
            self.log.retired.push(tag);
        } else {
            self.log.served.push((tag, node));
        }
    }
}

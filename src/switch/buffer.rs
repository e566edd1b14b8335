//! The input buffer: a FIFO of packets stored in chunks with reference counts
//! (seed 000 sections 3.4.2 and 5.1.2).
//!
//! The buffer memory is divided into chunks of `K` flits (8 by default). A
//! packet occupies a linked list of chunks taken from a free list as its
//! flits arrive; it starts a new chunk at every multiple of `K`, so the
//! sender can account for space in chunks (one credit = one chunk). When the
//! decode unit has found the packet's `r` output ports, each chunk of the
//! packet gets the reference count `r`. Every output port that forwards the
//! packet reads it with its own [`ReadPtr`] at its own pace; a chunk loses a
//! reference when a reader moves past it (or reads the tail in it) and goes
//! back to the free list when its count reaches zero. A blocked reader keeps
//! only the chunks it has not passed. This is the asynchronous replication of
//! the input-buffered switch the paper assumes; a packet may start arriving
//! before there is room for all of it (cut-through), and because the buffer
//! is larger than the largest packet, a packet can always be fully buffered
//! in the end, which is what keeps replication deadlock-free.

use super::flit::Flit;

/// No chunk / no packet.
pub const NONE: u16 = u16::MAX;

/// Link and reference count of one chunk.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Chunk {
    /// Next chunk of the same packet.
    next: u16,
    /// Output ports still to read it.
    refs: u8,
}

/// Header bytes latched as they arrive (the first 8 flits of a packet).
pub const HEADER_LATCH: usize = 8;

/// One packet held in the buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PacketEntry {
    /// Sideband tag of the packet.
    pub tag: u32,
    /// Flits written so far.
    pub written: u16,
    /// True once the tail flit is written.
    pub complete: bool,
    /// Reference count given to its chunks (0 until decoded).
    pub fanout: u8,
    /// Readers that have read the tail.
    pub done: u8,
    first: u16,
    last: u16,
    /// The packet that arrived after it, while it waits for decoding
    /// ([`NONE`]: the last to arrive).
    next: u16,
    /// Flits written into the last chunk (a chunk has at most 255).
    off: u8,
    /// The first [`HEADER_LATCH`] bytes, most significant first (a header
    /// register filled as the header streams in).
    latch: u64,
}

/// One output port's read pointer into a packet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadPtr {
    /// The packet (entry index).
    pub pkt: u16,
    /// Flits read so far (index of the next flit).
    pub read: u16,
    chunk: u16,
    off: u16,
}

/// What one read returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Read {
    /// The flit.
    pub flit: Flit,
    /// Chunks returned to the free list by this read (0 to 2).
    pub freed: u8,
    /// This reader has now read the whole packet.
    pub last: bool,
    /// Every reader has now read the whole packet: it has left the buffer.
    pub gone: bool,
}

/// Where a reader stands after skipping a packet's header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Skip {
    /// The reader, at the first flit after the header.
    pub rp: ReadPtr,
    /// Chunks returned to the free list by the skip.
    pub freed: u8,
    /// The packet had no flit after the header: this reader is done.
    pub last: bool,
    /// ... and every reader is: the packet has left the buffer.
    pub gone: bool,
}

/// Why a write was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteError {
    /// No free chunk: the sender overran its credits.
    NoChunk,
}

/// An input buffer of `chunks * K` flits.
#[derive(Clone, Debug)]
pub struct InputBuffer {
    k: u16,
    /// Chunks the buffer has (its size in hardware).
    cap: u16,
    /// The memory, grown as chunks are first taken (see [`InputBuffer::new`]).
    ram: Vec<Flit>,
    chunks: Vec<Chunk>,
    /// Free chunks, a stack threaded through their links: the chunk freed
    /// last is reused first, as a hardware free list kept as a LIFO would
    /// do (and it keeps the working set of a lightly loaded buffer small).
    free: FreeList,
    pkts: Vec<PacketEntry>,
    /// Free packet entries, a stack threaded through their `first` fields.
    free_pkts: FreeList,
    /// The packets not yet decoded, oldest first: a queue threaded through
    /// their entries' `next` links ([`NONE`]: empty).
    undecoded: (u16, u16),
    flits: u32,
}

/// A free list kept as a stack whose links are the free elements' own link
/// fields (a chunk's `next`, a free packet entry's `first`), as a hardware
/// free list shares the link memory: taking or returning an element touches
/// that element alone, which its user touches anyway. The elements never
/// used yet follow the stack, in index order.
#[derive(Clone, Copy, Debug)]
struct FreeList {
    /// The element freed last ([`NONE`]: none freed is waiting).
    head: u16,
    /// The first element never used: those from it to the end are free.
    fresh: u16,
    /// Free elements, the stack's and the never-used ones.
    len: u16,
}

impl FreeList {
    fn new(n: u16) -> Self {
        FreeList {
            head: NONE,
            fresh: 0,
            len: n,
        }
    }

    /// Takes the element freed last, or else the first never used
    /// (`fresh` is then true); `link(x)` reads the link of free element `x`.
    #[inline(always)]
    fn take(&mut self, link: impl FnOnce(u16) -> u16) -> Option<(u16, bool)> {
        if self.head != NONE {
            let x = self.head;
            self.head = link(x);
            self.len -= 1;
            Some((x, false))
        } else if self.len > 0 {
            let x = self.fresh;
            self.fresh += 1;
            self.len -= 1;
            Some((x, true))
        } else {
            None
        }
    }

    /// Returns `x`; the caller stores the returned link in `x`'s link field.
    #[inline(always)]
    fn give(&mut self, x: u16) -> u16 {
        let next = self.head;
        self.head = x;
        self.len += 1;
        next
    }
}

impl InputBuffer {
    /// A buffer of `chunks` chunks of `k` flits each. Needs `1 <= k <= 255` and
    /// `1 <= chunks < 65535`.
    ///
    /// The model allocates the memory of a chunk (and of a packet entry)
    /// only when it is first taken. Free chunks are taken last-freed first
    /// and never-used ones in index order, so the memory held is the most
    /// the buffer has ever held, not its size: what lets a network of
    /// thousands of lightly loaded switches fit in memory. Nothing a switch
    /// does depends on it.
    pub fn new(chunks: u16, k: u16) -> Self {
        assert!(
            (1..=255).contains(&k) && (1..NONE).contains(&chunks),
            "input buffer of {chunks} chunks of {k} flits"
        );
        InputBuffer {
            k,
            cap: chunks,
            ram: Vec::new(),
            chunks: Vec::new(),
            free: FreeList::new(chunks),
            pkts: Vec::new(),
            free_pkts: FreeList::new(chunks),
            undecoded: (NONE, NONE),
            flits: 0,
        }
    }

    /// Takes a free chunk, allocating its memory on its first use.
    #[inline]
    fn take_chunk(&mut self) -> Option<u16> {
        take_chunk(&mut self.free, &mut self.chunks, &mut self.ram, self.k)
    }

    /// Takes a free packet entry, allocating it on its first use.
    #[inline]
    fn take_entry(&mut self) -> u16 {
        let pkts = &mut self.pkts;
        let (pkt, fresh) = self
            .free_pkts
            .take(|p| pkts[p as usize].first)
            .expect("no more packets than chunks");
        if fresh {
            pkts.push(PacketEntry::default());
        }
        pkt
    }

    /// Flits per chunk.
    pub fn chunk_flits(&self) -> u16 {
        self.k
    }

    /// Number of chunks.
    pub fn num_chunks(&self) -> usize {
        self.cap as usize
    }

    /// Free chunks.
    #[inline]
    pub fn free_chunks(&self) -> usize {
        self.free.len as usize
    }

    /// Flits held (written and not yet freed).
    #[inline]
    pub fn flits_held(&self) -> u32 {
        self.flits
    }

    /// Packets held.
    #[inline]
    pub fn packets_held(&self) -> usize {
        (self.cap - self.free_pkts.len) as usize
    }

    /// The entry of packet `pkt`.
    #[inline]
    pub fn entry(&self, pkt: u16) -> &PacketEntry {
        &self.pkts[pkt as usize]
    }

    /// The oldest packet not yet decoded, if any.
    #[inline]
    pub fn next_undecoded(&self) -> Option<u16> {
        let p = self.undecoded.0;
        (p != NONE).then_some(p)
    }

    /// Takes the oldest packet not yet decoded off the decode queue (the
    /// decode unit has taken it, or refused it).
    #[inline]
    pub fn pop_undecoded(&mut self) {
        let p = self.undecoded.0;
        debug_assert_ne!(p, NONE, "no packet waits for decoding");
        let next = self.pkts[p as usize].next;
        self.undecoded.0 = next;
        if next == NONE {
            self.undecoded.1 = NONE;
        }
    }

    /// Starts a packet with its head flit: takes a packet entry and its
    /// first chunk, and writes the flit; the packet joins the end of the
    /// queue of packets waiting for decoding. There are as many entries as
    /// chunks, so an entry is free whenever a chunk is.
    #[inline(always)]
    pub fn open(&mut self, head: Flit) -> Result<u16, WriteError> {
        let c = self.take_chunk().ok_or(WriteError::NoChunk)?;
        let pkt = self.take_entry();
        self.chunks[c as usize] = Chunk {
            next: NONE,
            refs: 0,
        };
        self.ram[c as usize * self.k as usize] = head;
        self.flits += 1;
        self.pkts[pkt as usize] = PacketEntry {
            tag: head.tag,
            written: 1,
            complete: head.is_tail(),
            fanout: 0,
            done: 0,
            first: c,
            last: c,
            next: NONE,
            off: 1,
            latch: head.data as u64,
        };
        match self.undecoded.1 {
            NONE => self.undecoded.0 = pkt,
            t => self.pkts[t as usize].next = pkt,
        }
        self.undecoded.1 = pkt;
        Ok(pkt)
    }

    /// Appends the next flit of packet `pkt`, taking a new chunk at every
    /// multiple of `K` flits.
    #[inline(always)]
    pub fn append(&mut self, pkt: u16, flit: Flit) -> Result<(), WriteError> {
        let k = self.k;
        let e = &mut self.pkts[pkt as usize];
        if e.off as u16 == k {
            let c = take_chunk(&mut self.free, &mut self.chunks, &mut self.ram, k)
                .ok_or(WriteError::NoChunk)?;
            self.chunks[c as usize] = Chunk {
                next: NONE,
                refs: e.fanout,
            };
            self.chunks[e.last as usize].next = c;
            e.last = c;
            e.off = 0;
        }
        let at = e.last as usize * k as usize + e.off as usize;
        self.ram[at] = flit;
        e.off += 1;
        if (e.written as usize) < HEADER_LATCH {
            e.latch = e.latch << 8 | flit.data as u64;
        }
        e.written += 1;
        e.complete = flit.is_tail();
        self.flits += 1;
        Ok(())
    }

    /// The first `n` (at most [`HEADER_LATCH`]) header bytes of packet
    /// `pkt` as a word, first byte most significant, from the header latch.
    #[inline]
    pub fn header_word(&self, pkt: u16, n: usize) -> u64 {
        let e = &self.pkts[pkt as usize];
        debug_assert!(n <= HEADER_LATCH && n <= e.written as usize);
        let have = (e.written as usize).min(HEADER_LATCH);
        e.latch >> (8 * (have - n))
    }

    /// The bytes of the first `out.len()` flits of packet `pkt` (already
    /// written, not yet read past), read from the buffer memory.
    pub fn header(&self, pkt: u16, out: &mut [u8]) {
        let e = &self.pkts[pkt as usize];
        debug_assert!(out.len() <= e.written as usize);
        let k = self.k as usize;
        let (mut c, mut off) = (e.first as usize, 0);
        for b in out.iter_mut() {
            if off == k {
                c = self.chunks[c].next as usize;
                off = 0;
            }
            *b = self.ram[c * k + off].data;
            off += 1;
        }
    }

    /// Gives every chunk of packet `pkt`, present and future, the reference
    /// count `r` (the number of output ports it goes to). Called once, by the
    /// decode unit.
    pub fn set_fanout(&mut self, pkt: u16, r: u8) {
        assert!(r >= 1, "a packet goes to at least one output port");
        let e = &mut self.pkts[pkt as usize];
        debug_assert_eq!(e.fanout, 0, "fanout set twice");
        e.fanout = r;
        let mut c = e.first;
        while c != NONE {
            let ch = &mut self.chunks[c as usize];
            ch.refs = r;
            c = ch.next;
        }
    }

    /// A read pointer at the start of packet `pkt`.
    pub fn reader(&self, pkt: u16) -> ReadPtr {
        ReadPtr {
            pkt,
            read: 0,
            chunk: self.pkts[pkt as usize].first,
            off: 0,
        }
    }

    /// A read pointer at the start of packet `pkt`, whose entry the caller
    /// has already read.
    #[inline]
    pub fn reader_of(&self, pkt: u16, e: &PacketEntry) -> ReadPtr {
        ReadPtr {
            pkt,
            read: 0,
            chunk: e.first,
            off: 0,
        }
    }

    /// True when the reader's next flit is the first of a chunk (so sending
    /// it on takes a chunk of the receiver's buffer).
    #[inline]
    pub fn starts_chunk(&self, rp: &ReadPtr) -> bool {
        rp.read == 0 || rp.off == self.k
    }

    /// True when the reader's next flit has been written.
    #[inline]
    pub fn can_read(&self, rp: &ReadPtr) -> bool {
        rp.read < self.pkts[rp.pkt as usize].written
    }

    /// Reads the reader's next flit (which must be written) and drops the
    /// references the reader no longer needs.
    #[inline(always)]
    pub fn read(&mut self, rp: &mut ReadPtr) -> Read {
        debug_assert!(self.can_read(rp));
        let mut freed = 0;
        if rp.off == self.k {
            // Moving past a chunk: it is full.
            let nxt = self.chunks[rp.chunk as usize].next;
            freed += self.release(rp.chunk, self.k) as u8;
            rp.chunk = nxt;
            rp.off = 0;
        }
        let flit = self.ram[rp.chunk as usize * self.k as usize + rp.off as usize];
        rp.off += 1;
        rp.read += 1;
        let (mut last, mut gone) = (false, false);
        if flit.is_tail() {
            let (f, g) = self.finish(rp);
            freed += f;
            (last, gone) = (true, g);
        }
        Read {
            flit,
            freed,
            last,
            gone,
        }
    }

    /// A reader that has read its packet's tail releases the tail's chunk
    /// (which holds what the packet wrote into its last chunk); returns the
    /// chunks freed and whether every reader is now done.
    #[inline(always)]
    fn finish(&mut self, rp: &ReadPtr) -> (u8, bool) {
        let freed = self.release(rp.chunk, rp.off) as u8;
        let e = &mut self.pkts[rp.pkt as usize];
        e.done += 1;
        let gone = e.done == e.fanout;
        if gone {
            e.first = self.free_pkts.give(rp.pkt);
        }
        (freed, gone)
    }

    /// A read pointer for packet `pkt` that skips its first `n` flits (a
    /// header the output port replaces by its own): the chunks it moves past
    /// lose this reader's reference. The `n` flits must be written. When the
    /// packet is complete and has exactly `n` flits, the reader is done at
    /// once.
    pub fn skip(&mut self, pkt: u16, n: u16) -> Skip {
        let e = self.pkts[pkt as usize];
        debug_assert!(n >= 1 && n <= e.written);
        let mut rp = ReadPtr {
            pkt,
            read: 0,
            chunk: e.first,
            off: 0,
        };
        let mut freed = 0;
        while rp.read < n {
            if rp.off == self.k {
                let nxt = self.chunks[rp.chunk as usize].next;
                freed += self.release(rp.chunk, self.k) as u8;
                rp.chunk = nxt;
                rp.off = 0;
            }
            let step = (n - rp.read).min(self.k - rp.off);
            rp.off += step;
            rp.read += step;
        }
        let (mut last, mut gone) = (false, false);
        if e.complete && e.written == n {
            let (f, g) = self.finish(&rp);
            freed += f;
            (last, gone) = (true, g);
        }
        Skip {
            rp,
            freed,
            last,
            gone,
        }
    }

    /// Drops one reference to chunk `c`, which holds `fill` flits; true when
    /// that freed it.
    #[inline]
    fn release(&mut self, c: u16, fill: u16) -> bool {
        let r = &mut self.chunks[c as usize].refs;
        debug_assert!(*r > 0, "chunk {c} released with no reference");
        *r -= 1;
        if *r == 0 {
            self.flits -= fill as u32;
            self.chunks[c as usize].next = self.free.give(c);
            true
        } else {
            false
        }
    }
}

/// Takes a free chunk of a buffer's free list, allocating its memory (its
/// link and `k` flits) on its first use: a function of the fields it
/// touches, so that a caller may hold a packet entry meanwhile.
#[inline]
fn take_chunk(
    free: &mut FreeList,
    chunks: &mut Vec<Chunk>,
    ram: &mut Vec<Flit>,
    k: u16,
) -> Option<u16> {
    let (c, fresh) = free.take(|c| chunks[c as usize].next)?;
    if fresh {
        grow_chunks(chunks, ram, k, c);
    }
    Some(c)
}

#[cold]
fn grow_chunks(chunks: &mut Vec<Chunk>, ram: &mut Vec<Flit>, k: u16, c: u16) {
    let n = c as usize + 1;
    chunks.resize(
        n,
        Chunk {
            next: NONE,
            refs: 0,
        },
    );
    ram.resize(n * k as usize, Flit::default());
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn packet(tag: u32, len: u16) -> Vec<Flit> {
        (0..len).map(|i| Flit::new(tag, i, len, i as u8)).collect()
    }

    #[test]
    fn a_packet_takes_whole_chunks_and_frees_them_as_it_is_read() {
        let mut b = InputBuffer::new(4, 4);
        let f = packet(7, 6);
        let p = b.open(f[0]).unwrap();
        for &f in &f[1..] {
            b.append(p, f).unwrap();
        }
        assert_eq!(b.free_chunks(), 2, "6 flits take 2 chunks of 4");
        assert_eq!(b.flits_held(), 6);
        b.set_fanout(p, 1);
        let mut r = b.reader(p);
        let mut freed = 0;
        let mut got = Vec::new();
        while b.can_read(&r) {
            let x = b.read(&mut r);
            freed += x.freed as usize;
            got.push(x.flit);
            if got.len() == 4 {
                assert_eq!(
                    freed, 0,
                    "a chunk is released when the reader moves past it"
                );
            }
        }
        assert_eq!(got, packet(7, 6));
        assert_eq!(freed, 2);
        assert_eq!(b.free_chunks(), 4);
        assert_eq!(b.packets_held(), 0);
        assert_eq!(b.flits_held(), 0);
    }

    /// The chunks of a packet, first to last.
    fn chain(b: &InputBuffer, p: u16) -> Vec<u16> {
        let mut v = vec![b.pkts[p as usize].first];
        while let Some(&c) = v.last() {
            let n = b.chunks[c as usize].next;
            if c == b.pkts[p as usize].last || n == NONE {
                break;
            }
            v.push(n);
        }
        v
    }

    fn write(b: &mut InputBuffer, f: &[Flit]) -> u16 {
        let p = b.open(f[0]).unwrap();
        for &f in &f[1..] {
            b.append(p, f).unwrap();
        }
        b.set_fanout(p, 1);
        p
    }

    fn read_all(b: &mut InputBuffer, p: u16) {
        let mut r = b.reader(p);
        while b.can_read(&r) {
            b.read(&mut r);
        }
    }

    #[test]
    fn free_chunks_and_entries_are_reused_last_freed_first_then_in_index_order() {
        let mut b = InputBuffer::new(6, 2);
        let a = write(&mut b, &packet(1, 3));
        let bb = write(&mut b, &packet(2, 1));
        assert_eq!((a, bb), (0, 1), "entries in index order");
        assert_eq!(chain(&b, a), vec![0, 1]);
        assert_eq!(chain(&b, bb), vec![2]);
        // Reading A frees chunk 0 (passed), then chunk 1 (its tail), then
        // entry 0.
        read_all(&mut b, a);
        assert_eq!((b.free_chunks(), b.packets_held()), (5, 1));
        let c = write(&mut b, &packet(3, 5));
        assert_eq!(c, 0, "the entry freed last");
        assert_eq!(
            chain(&b, c),
            vec![1, 0, 3],
            "the chunk freed last, the one before, then the first never used"
        );
        let d = write(&mut b, &packet(4, 2));
        assert_eq!(d, 2, "then the first entry never used");
        assert_eq!(chain(&b, d), vec![4]);
        assert_eq!(b.chunks.len(), 5, "memory for the most chunks ever held");
        assert_eq!(b.pkts.len(), 3);
        assert_eq!((b.free_chunks(), b.packets_held()), (1, 3));
        for p in [bb, c, d] {
            read_all(&mut b, p);
        }
        assert_eq!((b.free_chunks(), b.packets_held()), (6, 0));
        // Everything is free: the last freed comes back first.
        let e = write(&mut b, &packet(5, 1));
        assert_eq!((e, chain(&b, e)), (d, vec![4]));
        assert_eq!(b.chunks.len(), 5);
    }

    #[test]
    fn packets_wait_for_decoding_in_arrival_order() {
        let mut b = InputBuffer::new(8, 2);
        assert_eq!(b.next_undecoded(), None);
        let a = write(&mut b, &packet(1, 3));
        let c = write(&mut b, &packet(2, 1));
        assert_eq!(b.next_undecoded(), Some(a));
        b.pop_undecoded();
        assert_eq!(b.next_undecoded(), Some(c));
        // A packet that arrives while one waits goes behind it, and the
        // queue keeps its order across entries reused out of order.
        read_all(&mut b, a);
        let d = write(&mut b, &packet(3, 2));
        assert_eq!(d, a, "A's entry, freed");
        assert_eq!(b.next_undecoded(), Some(c));
        b.pop_undecoded();
        assert_eq!(b.next_undecoded(), Some(d));
        b.pop_undecoded();
        assert_eq!(b.next_undecoded(), None);
        // Emptied, the queue starts again with the next packet.
        let e = write(&mut b, &packet(4, 1));
        assert_eq!(b.next_undecoded(), Some(e));
        let f = write(&mut b, &packet(5, 1));
        b.pop_undecoded();
        assert_eq!(b.next_undecoded(), Some(f));
    }

    #[test]
    fn replicated_chunks_wait_for_the_slowest_reader() {
        let mut b = InputBuffer::new(4, 2);
        let f = packet(1, 5);
        let p = b.open(f[0]).unwrap();
        for &f in &f[1..] {
            b.append(p, f).unwrap();
        }
        b.set_fanout(p, 2);
        let (mut fast, mut slow) = (b.reader(p), b.reader(p));
        for _ in 0..5 {
            b.read(&mut fast);
        }
        assert_eq!(
            b.free_chunks(),
            1,
            "the slow reader still holds all three chunks"
        );
        b.read(&mut slow);
        b.read(&mut slow);
        assert_eq!(b.free_chunks(), 1);
        let x = b.read(&mut slow);
        assert_eq!(x.freed, 1, "moving past chunk 0 frees it");
        assert_eq!(b.packets_held(), 1);
        b.read(&mut slow);
        let x = b.read(&mut slow);
        assert!(x.last);
        assert_eq!(b.free_chunks(), 4);
        assert_eq!(b.packets_held(), 0);
    }

    #[test]
    fn the_header_latch_agrees_with_the_buffer_memory() {
        // 2-flit chunks: a 7-flit header spans four chunks.
        let mut b = InputBuffer::new(8, 2);
        let f: Vec<Flit> = (0..10u16)
            .map(|i| Flit::new(3, i, 10, 0x10 + i as u8))
            .collect();
        let p = b.open(f[0]).unwrap();
        for &x in &f[1..] {
            b.append(p, x).unwrap();
        }
        for n in 1..=HEADER_LATCH {
            let mut bytes = vec![0u8; n];
            b.header(p, &mut bytes);
            assert_eq!(bytes, (0..n as u8).map(|i| 0x10 + i).collect::<Vec<_>>());
            let word = bytes.iter().fold(0u64, |w, &x| w << 8 | x as u64);
            assert_eq!(b.header_word(p, n), word, "{n} header bytes");
        }
    }

    #[test]
    fn a_write_without_a_free_chunk_is_refused() {
        let mut b = InputBuffer::new(1, 2);
        let f = packet(0, 3);
        let p = b.open(f[0]).unwrap();
        b.append(p, f[1]).unwrap();
        assert_eq!(b.append(p, f[2]), Err(WriteError::NoChunk));
        assert_eq!(b.open(packet(1, 1)[0]), Err(WriteError::NoChunk));
        assert_eq!(b.packets_held(), 1);
    }

    proptest! {
        /// Against a plain model (a queue of packets, each read completely by
        /// each of its readers in an arbitrary interleaving): every reader
        /// gets every flit of its packet once, in order; chunks are conserved
        /// and all come back once everything is read.
        #[test]
        fn readers_get_every_flit_once_and_chunks_come_back(
            k in 1u16..6,
            packets in proptest::collection::vec((1u16..20, 1u8..4), 1..8),
            schedule in proptest::collection::vec(any::<u8>(), 0..400),
        ) {
            let chunks: u16 = packets.iter().map(|(l, _)| l.div_ceil(k)).sum();
            let mut b = InputBuffer::new(chunks, k);
            let mut readers = Vec::new();
            for (tag, &(len, fan)) in packets.iter().enumerate() {
                let fl = packet(tag as u32, len);
                let p = b.open(fl[0]).unwrap();
                for &f in &fl[1..] {
                    b.append(p, f).unwrap();
                }
                b.set_fanout(p, fan);
                for _ in 0..fan {
                    readers.push((b.reader(p), tag as u32, len, Vec::new()));
                }
            }
            prop_assert_eq!(b.free_chunks(), 0);
            let mut freed = 0usize;
            let mut step = schedule.into_iter().chain(std::iter::repeat(0));
            while readers.iter().any(|(r, _, len, _)| r.read < *len) {
                let live: Vec<usize> = (0..readers.len()).filter(|&i| readers[i].0.read < readers[i].2).collect();
                let i = live[step.next().unwrap() as usize % live.len()];
                let (r, _, _, got) = &mut readers[i];
                prop_assert!(b.can_read(r));
                let x = b.read(r);
                freed += x.freed as usize;
                got.push(x.flit);
            }
            for (_, tag, len, got) in &readers {
                prop_assert_eq!(got, &packet(*tag, *len));
            }
            prop_assert_eq!(freed, chunks as usize);
            prop_assert_eq!(b.free_chunks(), chunks as usize);
            prop_assert_eq!(b.packets_held(), 0);
            prop_assert_eq!(b.flits_held(), 0);
        }
    }
}

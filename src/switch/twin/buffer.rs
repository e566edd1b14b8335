//! The replication input buffer as a clocked twin of
//! `hdl_tests/rtl/repl_buffer.v` (seed 000 sections 3.4.2 and 5.1.2): the
//! switch's [`InputBuffer`] with a write port, a fanout port (the decode
//! unit's "this packet goes to these outputs") and one read port per
//! output.
//!
//! Sizes: `C` chunks of `K` flits, `P` readers. A flit is 8 data bits and a
//! tail mark; a packet's first flit is the first written after a tail (or
//! after reset).
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `rst` | in | 1 | synchronous reset: empty buffer, every output 0 |
//! | `wr_valid` | in | 1 | write a flit |
//! | `wr_data` | in | 8 | its byte |
//! | `wr_tail` | in | 1 | it is the last of its packet |
//! | `fan_valid` | in | 1 | give the oldest packet not yet given readers the readers of `fan_mask` |
//! | `fan_mask` | in | P | those readers (each must be idle, and at least one) |
//! | `rd_en` | in | P | reader `p` reads its packet's next flit if it has been written |
//! | `wr_ok` | out | 1 | the write was taken (0: no free chunk for it, the flit is lost) |
//! | `fan_ok` | out | 1 | the fanout was taken (0: no packet waiting, an empty mask, or a busy reader) |
//! | `rd_valid` | out | P | reader `p` read a flit |
//! | `rd_data` | out | 8*P | its byte in bits `8p ..` (0 when not read) |
//! | `rd_tail` | out | P | it was the packet's last flit: reader `p` is idle again |
//! | `busy` | out | P | reader `p` holds a packet |
//! | `free_chunks` | out | bits(C) | free chunks |
//! | `buf_count` | out | bits(C*K) | flits held (written and not yet freed) |
//! | `packets` | out | bits(C) | packets held (from the first flit until every reader has read the tail) |
//! | `chunks_freed` | out | 16 | running count of chunks freed, low 16 bits (the credit counter) |
//!
//! Within an edge the reads come first, then the fanout, then the write (the
//! switch's consumer-first order): a flit written at an edge is readable
//! from the next one, and a chunk freed by a read can take the write of the
//! same edge. A chunk's reference count is the packet's number of readers;
//! a reader drops its reference when it moves past the chunk or reads the
//! tail in it.

use super::{Dir, Port, Twin, Unit, input, output, zero_outputs};
use crate::rtl::{BitString, bits_for};
use crate::switch::{Flit, InputBuffer, ReadPtr};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use std::collections::VecDeque;

/// The twin.
pub struct BufferTwin {
    c: u16,
    k: u16,
    p: usize,
    ports: Vec<Port>,
    buf: InputBuffer,
    /// Packets written, oldest first, not yet given readers.
    order: VecDeque<u16>,
    /// The packet being written and its next flit index.
    writing: Option<(u16, u16)>,
    readers: Vec<Option<ReadPtr>>,
    freed: u16,
}

impl BufferTwin {
    /// A buffer of `chunks` chunks of `chunk_flits` flits read by `readers`
    /// outputs.
    pub fn new(chunks: u32, chunk_flits: u32, readers: u32) -> Self {
        let p = readers;
        BufferTwin {
            c: chunks as u16,
            k: chunk_flits as u16,
            p: p as usize,
            ports: vec![
                input("rst", 1),
                input("wr_valid", 1),
                input("wr_data", 8),
                input("wr_tail", 1),
                input("fan_valid", 1),
                input("fan_mask", p),
                input("rd_en", p),
                output("wr_ok", 1),
                output("fan_ok", 1),
                output("rd_valid", p),
                output("rd_data", 8 * p),
                output("rd_tail", p),
                output("busy", p),
                output("free_chunks", bits_for(chunks)),
                output("buf_count", bits_for(chunks * chunk_flits)),
                output("packets", bits_for(chunks)),
                output("chunks_freed", 16),
            ],
            buf: InputBuffer::new(chunks as u16, chunk_flits as u16),
            order: VecDeque::new(),
            writing: None,
            readers: vec![None; p as usize],
            freed: 0,
        }
    }

    /// Packets waiting for readers.
    pub fn waiting(&self) -> usize {
        self.order.len()
    }

    /// Readers holding a packet, as a mask.
    pub fn busy(&self) -> u64 {
        self.readers
            .iter()
            .enumerate()
            .filter(|(_, r)| r.is_some())
            .fold(0, |m, (p, _)| m | 1 << p)
    }

    /// Free chunks.
    pub fn free_chunks(&self) -> usize {
        self.buf.free_chunks()
    }

    /// True when a flit written now needs a new chunk.
    pub fn next_write_needs_chunk(&self) -> bool {
        match self.writing {
            None => true,
            Some((_, idx)) => idx % self.k == 0,
        }
    }

    fn reset(&mut self) {
        *self = BufferTwin::new(self.c as u32, self.k as u32, self.p as u32);
    }
}

impl Twin for BufferTwin {
    fn unit(&self) -> Unit {
        Unit::ReplBuffer
    }

    fn ports(&self) -> &[Port] {
        &self.ports
    }

    fn edge(&mut self, i: &[BitString], o: &mut [BitString]) {
        zero_outputs(&self.ports, o);
        if i[0].get(0) {
            self.reset();
            return;
        }
        // Reads.
        for p in 0..self.p {
            if !i[6].get(p) {
                continue;
            }
            let Some(rp) = &mut self.readers[p] else {
                continue;
            };
            if !self.buf.can_read(rp) {
                continue;
            }
            let r = self.buf.read(rp);
            self.freed = self.freed.wrapping_add(r.freed as u16);
            o[2].set(p, true);
            o[3].set_field(8 * p, 8, r.flit.data as u64);
            o[4].set(p, r.last);
            if r.last {
                self.readers[p] = None;
            }
        }
        // Fanout.
        if i[4].get(0) {
            let mask = i[5].field(0, self.p);
            let idle = mask & self.busy() == 0;
            if let (Some(&pkt), true, true) = (self.order.front(), mask != 0, idle) {
                self.order.pop_front();
                self.buf.set_fanout(pkt, mask.count_ones() as u8);
                for p in 0..self.p {
                    if mask >> p & 1 == 1 {
                        self.readers[p] = Some(self.buf.reader(pkt));
                    }
                }
                o[1].set(0, true);
            }
        }
        // Write.
        if i[1].get(0) {
            let data = i[2].field(0, 8) as u8;
            let tail = i[3].get(0);
            match self.writing {
                None => {
                    if let Ok(pkt) = self.buf.open(Flit::marked(0, 0, data, true, tail)) {
                        self.order.push_back(pkt);
                        if !tail {
                            self.writing = Some((pkt, 1));
                        }
                        o[0].set(0, true);
                    }
                }
                Some((pkt, idx)) => {
                    if self
                        .buf
                        .append(pkt, Flit::marked(0, idx, data, false, tail))
                        .is_ok()
                    {
                        self.writing = (!tail).then_some((pkt, idx + 1));
                        o[0].set(0, true);
                    }
                }
            }
        }
        o[5].set_field(0, self.p, self.busy());
        let (c, k) = (self.c as u32, self.k as u32);
        o[6].set_field(0, bits_for(c) as usize, self.buf.free_chunks() as u64);
        o[7].set_field(0, bits_for(c * k) as usize, self.buf.flits_held() as u64);
        o[8].set_field(0, bits_for(c) as usize, self.buf.packets_held() as u64);
        o[9].set_field(0, 16, self.freed as u64);
    }
}

/// How eagerly one reader reads, for a stretch of edges.
#[derive(Clone, Copy)]
enum Pace {
    Fast,
    Slow,
    Blocked,
}

/// Stimulus from a closed loop around the model: packets of 1 to `3K`
/// flits (now and then up to half the buffer) written in bursts, mostly
/// within the free space and sometimes past it; fanouts to random sets of
/// idle readers (sometimes to a busy one, an empty set, or with no packet
/// waiting); readers that each switch, every few hundred edges, between
/// reading at once, slowly, and not at all (one branch blocked while the
/// others go on); reset in the first two edges and now and then. An
/// endless stream: one vector per clock edge.
pub struct Stimulus {
    chunks: u32,
    k: u32,
    p: usize,
    rng: Xoshiro256PlusPlus,
    model: BufferTwin,
    outs: Vec<BitString>,
    pace: Vec<Pace>,
    left: u32,
    c: usize,
}

impl Stimulus {
    /// The stream for `chunks` chunks of `k` flits and `readers` readers
    /// from `seed`.
    pub fn new(chunks: u32, k: u32, readers: u32, seed: u64) -> Self {
        let model = BufferTwin::new(chunks, k, readers);
        let outs = model
            .ports
            .iter()
            .filter(|q| q.dir == Dir::Out)
            .map(|q| BitString::zeros(q.width as usize))
            .collect();
        Stimulus {
            chunks,
            k,
            p: readers as usize,
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            model,
            outs,
            pace: vec![Pace::Fast; readers as usize],
            left: 0,
            c: 0,
        }
    }
}

impl Iterator for Stimulus {
    type Item = Vec<BitString>;

    fn next(&mut self) -> Option<Vec<BitString>> {
        let (chunks, k, p, c) = (self.chunks, self.k, self.p, self.c);
        self.c += 1;
        let rng = &mut self.rng;
        let model = &mut self.model;
        let pace = &mut self.pace;
        let bit = |b: bool| BitString::from_indices(1, b.then_some(0));
        if c % 200 == 0 {
            for x in pace.iter_mut() {
                *x = match rng.random_range(0..10) {
                    0..=5 => Pace::Fast,
                    6..=7 => Pace::Slow,
                    _ => Pace::Blocked,
                };
            }
            // Never block every reader for long.
            if pace.iter().all(|x| matches!(x, Pace::Blocked)) {
                pace[0] = Pace::Fast;
            }
        }
        let rst = c < 2 || rng.random_bool(0.002);
        if rst {
            self.left = 0;
        }
        // Write.
        if self.left == 0 && rng.random_bool(0.3) {
            self.left = if rng.random_bool(0.05) {
                rng.random_range(1..=(chunks * k / 2).max(1))
            } else {
                rng.random_range(1..=3 * k)
            };
        }
        let room = !model.next_write_needs_chunk() || model.free_chunks() > 0;
        let wr = self.left > 0 && rng.random_bool(0.8) && (room || rng.random_bool(0.2));
        let tail = self.left == 1;
        if wr && !rst {
            // The flit counts as sent; if the buffer drops it, the packet
            // simply continues (what a sender overrunning its credits gets).
            self.left -= 1;
        }
        // Fanout.
        let busy = model.busy();
        let mut fan = false;
        let mut mask = 0u64;
        if rng.random_bool(0.25) {
            fan = model.waiting() > 0 || rng.random_bool(0.1);
            mask = rng.random::<u64>() & ((1u64 << p) - 1);
            match rng.random_range(0..20) {
                0 => mask = 0,
                1 => {}
                _ => mask &= !busy,
            }
        }
        // Reads.
        let mut rd = BitString::zeros(p);
        for (q, x) in pace.iter().enumerate() {
            let go = match x {
                Pace::Fast => rng.random_bool(0.95),
                Pace::Slow => rng.random_bool(0.2),
                Pace::Blocked => false,
            };
            rd.set(q, go);
        }
        let mut data = BitString::zeros(8);
        data.set_field(0, 8, rng.random::<u8>() as u64);
        let mut fan_mask = BitString::zeros(p);
        fan_mask.set_field(0, p, mask);
        let v = vec![bit(rst), bit(wr), data, bit(tail), bit(fan), fan_mask, rd];
        model.edge(&v, &mut self.outs);
        Some(v)
    }
}

/// The first `cycles` vectors of [`Stimulus`].
pub fn vectors(chunks: u32, k: u32, readers: u32, cycles: usize, seed: u64) -> Vec<Vec<BitString>> {
    Stimulus::new(chunks, k, readers, seed)
        .take(cycles)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(v: &[Vec<BitString>], c: u32, k: u32, p: u32) -> Vec<Vec<BitString>> {
        let mut t = BufferTwin::new(c, k, p);
        let mut o: Vec<BitString> = vec![BitString::zeros(1); 10];
        v.iter()
            .map(|x| {
                t.edge(x, &mut o);
                o.clone()
            })
            .collect()
    }

    /// Every reader of a packet reads its bytes in the order written, and
    /// a stalled reader does not hold the others back; the buffer stays
    /// consistent (flits held never exceed the chunks in use).
    #[test]
    fn readers_see_every_packet_whole_and_in_order() {
        let (c, k, p) = (12, 4, 3);
        let v = vectors(c, k, p, 5_000, 3);
        let o = run(&v, c, k, p);
        let (mut reads, mut oks, mut fans, mut full) = (0, 0, 0, 0);
        for (x, y) in v.iter().zip(&o) {
            reads += y[2].count_ones();
            oks += usize::from(y[0].get(0));
            fans += usize::from(y[1].get(0));
            full += usize::from(x[1].get(0) && !y[0].get(0) && !x[0].get(0));
            let free = y[6].field(0, 4) as u32;
            let held = y[7].field(0, 6) as u32;
            assert!(
                held <= (c - free) * k,
                "{held} flits in {} chunks",
                c - free
            );
        }
        assert!(
            reads > 2_000 && oks > 1_000 && fans > 300 && full > 5,
            "{reads} reads, {oks} writes, {fans} fanouts, {full} refused"
        );
    }

    #[test]
    fn one_packet_two_readers_one_blocked() {
        let (c, k, p) = (4, 2, 2);
        let bit = |b: bool| BitString::from_indices(1, b.then_some(0));
        let mask = |m: u64| {
            let mut s = BitString::zeros(2);
            s.set_field(0, 2, m);
            s
        };
        let byte = |d: u8| {
            let mut s = BitString::zeros(8);
            s.set_field(0, 8, d as u64);
            s
        };
        let step = |wr: bool, d: u8, tail: bool, fan: bool, rd: u64| {
            vec![
                bit(false),
                bit(wr),
                byte(d),
                bit(tail),
                bit(fan),
                mask(3),
                mask(rd),
            ]
        };
        // Five flits (3 chunks of 2), fanout to both readers after the
        // first, reader 0 reads at once, reader 1 never.
        let v = vec![
            step(true, 10, false, false, 0),
            step(true, 11, false, true, 0),
            step(true, 12, false, false, 1),
            step(true, 13, false, false, 1),
            step(true, 14, true, false, 1),
            step(false, 0, false, false, 1),
            step(false, 0, false, false, 1),
            step(false, 0, false, false, 1),
        ];
        let o = run(&v, c, k, p);
        let got: Vec<u64> = o
            .iter()
            .filter(|y| y[2].get(0))
            .map(|y| y[3].field(0, 8))
            .collect();
        assert_eq!(got, [10, 11, 12, 13, 14]);
        assert!(o[6][4].get(0), "reader 0 read the tail at edge 6");
        assert_eq!(o[7][5].field(0, 2), 2, "reader 1 still holds the packet");
        // Reader 1 read nothing: every chunk is still held.
        assert_eq!(o[7][6].field(0, 3), 1, "1 of 4 chunks free");
        assert_eq!(o[7][7].field(0, 4), 5);
    }
}

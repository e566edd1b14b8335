//! The input-buffered cut-through switch with asynchronous replication (seed
//! 000 sections 3.1, 3.4.2, 5.1.2, 6.2).
//!
//! A `k`-port switch has, per port, an input unit (a [`InputBuffer`] FIFO of
//! 640 flits by default, stored as 8-flit chunks with reference counts, and
//! a decode unit) and an output unit (a round-robin arbiter, a credit counter
//! for the receiver's buffer, a header register and the link register),
//! joined by a `k x k` crossbar.
//!
//! Pipeline of one packet through a switch, one stage per cycle:
//!
//! 1. **write** — the flit on the incoming link is written into the input
//!    buffer (it is readable the next cycle);
//! 2. **decode** — once all header flits are in the buffer and the decode
//!    register is free, the decode unit ([`decode`]) registers what the
//!    packet asks of this switch: ports to replicate to, and at most one copy
//!    to route by one of several candidate ports, each with the header it
//!    carries; the packet's chunks get a reference count of one per copy;
//! 3. **allocate + traverse** — every copy not yet under way asks for its
//!    output (the adaptive copy: the first free candidate at or after the
//!    input's round-robin pointer), each free output's arbiter grants one
//!    requester, and a granted output moves the copy's first flit through
//!    the crossbar into its link register in the same cycle. The grant holds
//!    until the copy's tail has passed, one flit per cycle while the
//!    receiver has credit for the chunk a flit starts. Copies are granted
//!    and move independently (asynchronous replication): a blocked copy only
//!    keeps the chunks it has not read;
//! 4. **link** — the receiver sees the flit the next cycle.
//!
//! A copy whose header the decode unit changed (bit-string: restricted to
//! the port, up-down bit cleared; multi-drop: first pair stripped) sends its
//! header from the output's header register and then the rest of the packet
//! from the buffer, past the original header.
//!
//! So a header spends 3 cycles per switch once it is whole (decode, crossbar,
//! link), and the rest of the packet streams behind it at one flit per cycle.
//! The stages are evaluated consumer-first (allocate, traverse, decode,
//! write, publish freed chunks), so each stage sees what the previous one
//! held at the start of the cycle: the result is that of a register between
//! every pair of stages.
//!
//! Credit flow control counts chunks: an output may start a chunk of the
//! receiver's buffer (every `K`-th flit of a copy, from its first) only while
//! the receiver's published total of freed chunks, as of the previous cycle,
//! leaves one free ([`CreditCounter`]). Every up*/down* hop is checked as it
//! is granted.
//!
//! A packet may take an output while it is still arriving only if no older
//! packet of its input is still being forwarded; a younger packet waits until
//! it has fully arrived. This keeps every channel dependency on an up*/down*
//! route (docs/switch.md tells the deadlock it prevents).

mod buffer;
pub mod decode;
mod flit;
mod io;
pub mod twin;

pub use buffer::{HEADER_LATCH, InputBuffer, NONE, PacketEntry, Read, ReadPtr, Skip, WriteError};
pub use decode::{DecodeError, DecodeReg, Decoder, HdrOut};
pub use flit::Flit;
pub use io::{Channels, CreditCounter, Fault, LinkIo};
pub(crate) use io::{Cross, CrossLists};

use crate::header::Kind;
use crate::net::Phase;
use crate::rtl::trace::{Radix, Sampler, ScopeBuilder, Traced};
use crate::rtl::{ChannelId, Clocked, Next, PortIter, PortMask, RoundRobin, bits_for};

/// Sizes of a switch's buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SwitchParams {
    /// Input buffer size in flits (a multiple of `chunk_flits`).
    pub buffer_flits: u32,
    /// Chunk size in flits, 1 to 255 (the run configuration checks it).
    pub chunk_flits: u32,
    /// Report a fault on any hop that is not up*/down*.
    pub check_updown: bool,
}

/// How one switch port is wired into the system.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PortWiring {
    /// Link bringing flits into the port's input unit.
    pub link_in: ChannelId,
    /// Credit counter the input buffer publishes to its sender.
    pub credit_out: ChannelId,
    /// Link the port's output unit drives.
    pub link_out: ChannelId,
    /// The receiver's credit counter.
    pub credit_in: ChannelId,
    /// Chunks in the receiver's buffer (the output's credits at reset).
    pub receiver_chunks: u16,
    /// Leaving by this port is an up*/down* "up" move.
    pub goes_up: bool,
    /// Packets arriving on this port have just come down a link.
    pub arrived_down: bool,
}

/// A packet that has not moved for too long, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stall {
    /// Where it is, e.g. `switch 3 input port 2`.
    pub location: String,
    /// The place: an input or output unit of a switch, or a node.
    pub at: StallAt,
    /// Its sideband tag, if known.
    pub tag: Option<u32>,
    /// What it waits for.
    pub waiting: String,
    /// Last cycle it made progress.
    pub since: u64,
    /// The same waits as `waiting`, as edges of the watchdog's wait-for
    /// graph: the place moves again as soon as any one of them is met.
    pub waits_on: Vec<WaitOn>,
}

/// Which unit a stall is at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StallAt {
    /// An input unit of a switch, by port: it frees no chunk.
    Input(u16),
    /// An output unit of a switch, by port: its copy sends no flit.
    Output(u16),
    /// A node's send side.
    Node,
}

/// One thing a stalled place waits for, named by the channel or port that
/// brings it: an edge of the wait-for graph the deadlock watchdog builds
/// (seed 000 section 6.5 asks only that deadlock be detected; the graph
/// tells a deadlock from a network that is merely saturated).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitOn {
    /// Flits on this link, from the output unit (or node) that drives it.
    Flits(ChannelId),
    /// A free chunk at the receiver of this link (an input unit, or a node,
    /// which always consumes).
    Credits(ChannelId),
    /// Output port `n` of the same switch, held by another copy, to be
    /// released when that copy's tail has gone.
    Output(u16),
}

#[derive(Clone, Debug)]
struct InputUnit {
    link_in: ChannelId,
    credit_out: ChannelId,
    arrived_down: bool,
    buf: InputBuffer,
    /// Packet whose flits are arriving.
    writing: u16,
    /// The decode register; valid when the input's bit of `Switch::decoded`
    /// is set.
    dec: DecodeReg,
    /// Read pointer at the start of the decoded packet.
    dec_rp: ReadPtr,
    /// Replicated copies of the decoded packet not yet granted.
    pending: PortMask,
    /// The adaptive copy of the decoded packet is not yet granted.
    choice_pending: bool,
    /// A copy of the decoded packet has been granted.
    started: bool,
    /// Round-robin pointer over candidate ports.
    pick: u32,
    /// Chunks freed so far (mod 2^32), published to the sender.
    freed: u32,
    /// Packets with a copy granted that have not yet left the buffer.
    reading: u16,
    /// Last cycle of progress (a flit left, or the input became non-empty).
    since: u64,
}

#[derive(Clone, Copy, Debug)]
struct Grant {
    input: u8,
    tag: u32,
    rp: ReadPtr,
    /// Flits of the output's own header register to send first (0: the copy
    /// streams the packet from the buffer as it is).
    hdr_len: u16,
    /// The reader is already done (the packet ends with its header).
    read_done: bool,
    /// Flits of this copy sent.
    sent: u16,
    /// Flits sent into the receiver's current chunk.
    off: u16,
}

#[derive(Clone, Debug)]
struct OutputUnit {
    link_out: ChannelId,
    credit_in: ChannelId,
    goes_up: bool,
    credit: CreditCounter,
    /// Inputs requesting this output this cycle (beside its arbiter,
    /// which reads them).
    req: u64,
    arb: RoundRobin,
    grant: Option<Grant>,
    /// The header register: the copy's own header, when it has one.
    hdr: Vec<u8>,
    /// Last cycle of progress (granted, or a flit sent).
    since: u64,
}

/// A `k`-port input-buffered switch.
#[derive(Clone, Debug)]
pub struct Switch {
    id: u32,
    k: usize,
    chunk: u16,
    buffer_flits: u32,
    check_updown: bool,
    decoder: Decoder,
    inputs: Box<[InputUnit]>,
    outputs: Box<[OutputUnit]>,
    wired: u64,
    /// Number of wired ports (`wired`'s bits, counted once: sampling asks
    /// on every traced cycle).
    n_wired: u32,
    /// Inputs holding at least one packet.
    holding: u64,
    /// Inputs with packets waiting for decode.
    waiting: u64,
    /// Inputs whose decode register is full.
    decoded: u64,
    /// Outputs holding a grant.
    granted: u64,
    /// Inputs that freed chunks this cycle.
    freed: u64,
    /// Header bytes read for decoding a header other than unicast's
    /// (grown to the longest such header met: sized to the formats'
    /// longest from the start, it took a bit-string header's `nodes / 8`
    /// bytes in every switch of a network that never carries one).
    scratch: Vec<u8>,
    flit_hops: u64,
    /// Ports whose input unit (buffer and decode unit) a stage has worked
    /// on since the tracer last asked ([`Switch::take_touched`]).
    touched_in: u64,
    /// Ports whose output unit a stage has worked on since the tracer last
    /// asked. With `touched_in`, the only units whose traced registers can
    /// have changed, besides the channels'.
    touched_out: u64,
    /// Inputs whose decode register or pending copies changed since the
    /// tracer last asked (a subset of `touched_in`).
    dec_touched: u64,
    /// `dec_touched` as of the tracer's last call: the decode units
    /// [`Traced::sample_units`] samples.
    dec_sample: u64,
}

impl Switch {
    /// A switch with id `id` and `wiring.len()` ports; `None` marks an open
    /// port.
    pub fn new(
        id: u32,
        params: SwitchParams,
        decoder: Decoder,
        wiring: &[Option<PortWiring>],
    ) -> Switch {
        let k = wiring.len();
        assert!((1..=64).contains(&k), "switch of {k} ports");
        let chunks = (params.buffer_flits / params.chunk_flits) as u16;
        let nodes = decoder.formats().nodes() as usize;
        let unused = ChannelId(u32::MAX);
        let mut wired = 0u64;
        let mut inputs = Vec::with_capacity(k);
        let mut outputs = Vec::with_capacity(k);
        for (p, w) in wiring.iter().enumerate() {
            let (n, w) = match w {
                Some(w) => {
                    wired |= 1 << p;
                    (chunks, *w)
                }
                None => (
                    1,
                    PortWiring {
                        link_in: unused,
                        credit_out: unused,
                        link_out: unused,
                        credit_in: unused,
                        receiver_chunks: 0,
                        goes_up: false,
                        arrived_down: false,
                    },
                ),
            };
            inputs.push(InputUnit {
                link_in: w.link_in,
                credit_out: w.credit_out,
                arrived_down: w.arrived_down,
                buf: InputBuffer::new(n, params.chunk_flits as u16),
                writing: NONE,
                dec: DecodeReg::new(nodes, k),
                dec_rp: ReadPtr::default(),
                pending: PortMask::EMPTY,
                choice_pending: false,
                started: false,
                pick: 0,
                freed: 0,
                reading: 0,
                since: 0,
            });
            outputs.push(OutputUnit {
                link_out: w.link_out,
                credit_in: w.credit_in,
                goes_up: w.goes_up,
                credit: CreditCounter::new(w.receiver_chunks as u32),
                req: 0,
                arb: RoundRobin::new(k),
                grant: None,
                hdr: Vec::new(),
                since: 0,
            });
        }
        Switch {
            id,
            k,
            chunk: params.chunk_flits as u16,
            buffer_flits: params.buffer_flits,
            check_updown: params.check_updown,
            decoder,
            inputs: inputs.into_boxed_slice(),
            outputs: outputs.into_boxed_slice(),
            wired,
            n_wired: wired.count_ones(),
            holding: 0,
            waiting: 0,
            decoded: 0,
            granted: 0,
            freed: 0,
            scratch: Vec::new(),
            flit_hops: 0,
            touched_in: 0,
            touched_out: 0,
            dec_touched: 0,
            dec_sample: u64::MAX,
        }
    }

    /// The units (a port's input and output units, numbered as
    /// [`Traced::sample_units`] numbers them) any stage worked on since the
    /// last call, as a mask, and forgets them: what a tracer must sample
    /// besides the units whose channels changed.
    pub fn take_touched(&mut self) -> u128 {
        self.dec_sample = std::mem::take(&mut self.dec_touched);
        let ins = std::mem::take(&mut self.touched_in) as u128;
        let outs = std::mem::take(&mut self.touched_out) as u128;
        ins | outs << 64
    }

    /// The switch id.
    pub fn id(&self) -> u32 {
        self.id
    }

    /// Number of ports.
    pub fn num_ports(&self) -> usize {
        self.k
    }

    /// Flits this switch has sent on its output links.
    pub fn flit_hops(&self) -> u64 {
        self.flit_hops
    }

    /// Flits held in input port `p`'s buffer.
    pub fn buffered_flits(&self, p: usize) -> u32 {
        self.inputs[p].buf.flits_held()
    }

    /// Free chunks of input port `p`.
    pub fn free_chunks(&self, p: usize) -> usize {
        self.inputs[p].buf.free_chunks()
    }

    /// Credits (free receiver chunks) of output port `p`, given the
    /// channels.
    pub fn credits(&self, p: usize, ch: &Channels) -> u32 {
        let out = &self.outputs[p];
        out.credit.available(ch.credits.q(out.credit_in))
    }

    /// True when no packet is held, decoded or being forwarded.
    pub fn is_empty(&self) -> bool {
        self.holding == 0 && self.granted == 0
    }

    /// Bytes of room kept for reading a header other than unicast's.
    #[cfg(test)]
    pub(crate) fn header_room(&self) -> usize {
        self.scratch.capacity()
    }

    /// The decode register of input `i`, when it holds a packet.
    pub fn decode_register(&self, i: usize) -> Option<&DecodeReg> {
        (self.decoded >> i & 1 == 1).then_some(&self.inputs[i].dec)
    }

    fn allocate(&mut self, io: &mut LinkIo<'_>) {
        let free_out = self.wired & !self.granted;
        let mut asked = 0u64;
        for i in PortIter(self.decoded) {
            let inp = &self.inputs[i];
            // A packet still arriving may take an output only if no older
            // packet of this input is still being forwarded: otherwise it
            // would hold the output while its flits wait for buffer space
            // the older packet holds, a dependency outside the up*/down*
            // channel order (see docs/switch.md).
            let older = inp.reading - inp.started as u16;
            if older > 0 && !inp.buf.entry(inp.dec.pkt).complete {
                continue;
            }
            for o in PortIter(inp.pending.0 & free_out) {
                self.outputs[o].req |= 1 << i;
                asked |= 1 << o;
            }
            if inp.choice_pending
                && let Some(o) =
                    crate::rtl::first_at_or_after(inp.dec.choice.0 & free_out, inp.pick)
            {
                self.outputs[o].req |= 1 << i;
                asked |= 1 << o;
            }
        }
        for o in PortIter(asked) {
            let out = &mut self.outputs[o];
            let reqs = std::mem::take(&mut out.req);
            let i = out.arb.arbitrate(reqs).expect("at least one request");
            out.arb.update(i);
            self.grant(io, i, o);
        }
    }

    /// Gives output `o` to the next copy of input `i`'s decoded packet.
    fn grant(&mut self, io: &mut LinkIo<'_>, i: usize, o: usize) {
        // The output is marked as worked on by `eval`, from `granted`.
        self.touched_in |= 1 << i;
        self.dec_touched |= 1 << i;
        let out = &mut self.outputs[o];
        let inp = &mut self.inputs[i];
        if inp.pending.contains(o) {
            inp.pending.remove(o);
        } else {
            inp.choice_pending = false;
            inp.pick = if o + 1 == self.k { 0 } else { o as u32 + 1 };
        }
        if inp.arrived_down && out.goes_up && self.check_updown {
            io.fault(format!(
                "switch {} routed {} (tag {}) up through port {o} after it came down into port {i}: \
                 not an up*/down* route",
                self.id,
                inp.dec.describe(),
                inp.buf.entry(inp.dec.pkt).tag
            ));
        }
        if !inp.started {
            inp.started = true;
            inp.reading += 1;
        }
        let tag = inp.buf.entry(inp.dec.pkt).tag;
        let mut g = Grant {
            input: i as u8,
            tag,
            rp: inp.dec_rp,
            hdr_len: 0,
            read_done: false,
            sent: 0,
            off: 0,
        };
        if inp.dec.header_for(o, &self.decoder.formats(), &mut out.hdr) {
            g.hdr_len = out.hdr.len() as u16;
            let skip = inp.buf.skip(inp.dec.pkt, inp.dec.hdr_len);
            g.rp = skip.rp;
            g.read_done = skip.last;
            if skip.freed > 0 {
                inp.freed = inp.freed.wrapping_add(skip.freed as u32);
                self.freed |= 1 << i;
            }
            if skip.gone {
                inp.reading -= 1;
            }
        }
        out.grant = Some(g);
        out.since = io.cycle;
        self.granted |= 1 << o;
        if inp.pending.is_empty() && !inp.choice_pending {
            self.decoded &= !(1 << i);
        }
    }

    fn traverse(&mut self, io: &mut LinkIo<'_>) {
        let cycle = io.cycle;
        for o in PortIter(self.granted) {
            let out = &mut self.outputs[o];
            let g = out.grant.as_mut().expect("granted bit set");
            let i = g.input as usize;
            self.touched_in |= 1 << i;
            let inp = &mut self.inputs[i];
            let from_hdr = g.sent < g.hdr_len;
            if !from_hdr && !inp.buf.can_read(&g.rp) {
                continue;
            }
            let new_chunk = g.sent == 0 || g.off == self.chunk;
            if new_chunk {
                let freed = io.freed(out.credit_in);
                if !out.credit.take(freed) {
                    if out.credit.over_returned(freed) {
                        io.fault(format!(
                            "switch {} output port {o}: its receiver returned more credits than the {} it was sent",
                            self.id,
                            crate::counted(out.credit.used.into(), "chunks")
                        ));
                    }
                    continue;
                }
                g.off = 0;
            }
            g.off += 1;
            let (flit, last, gone) = if from_hdr {
                let tail = g.read_done && g.sent + 1 == g.hdr_len;
                let data = out.hdr[g.sent as usize];
                (
                    Flit::marked(g.tag, g.sent, data, g.sent == 0, tail),
                    tail,
                    false,
                )
            } else {
                let r = inp.buf.read(&mut g.rp);
                if r.freed > 0 {
                    inp.freed = inp.freed.wrapping_add(r.freed as u32);
                    self.freed |= 1 << i;
                }
                // The crossbar passes the buffer's word on: the flit keeps
                // its tag and marks (the head and the tail stay where they
                // were in the packet) and takes its number in the copy.
                let flit = r.flit.with_idx(g.sent);
                debug_assert_eq!(
                    flit,
                    Flit::marked(g.tag, g.sent, flit.data, g.sent == 0, flit.is_tail()),
                    "switch {} output port {o}: a buffered flit that is not its packet's",
                    self.id
                );
                (flit, r.last, r.gone)
            };
            io.send(out.link_out, flit);
            g.sent += 1;
            self.flit_hops += 1;
            inp.since = cycle;
            out.since = cycle;
            if gone {
                inp.reading -= 1;
            }
            if last {
                out.grant = None;
                self.granted &= !(1 << o);
                if inp.buf.packets_held() == 0 {
                    self.holding &= !(1 << i);
                }
            }
        }
    }

    fn decode(&mut self, io: &mut LinkIo<'_>, ready: u64) {
        for i in PortIter(ready) {
            let inp = &mut self.inputs[i];
            let pkt = inp.buf.next_undecoded().expect("waiting bit set");
            let e = *inp.buf.entry(pkt);
            let first = inp.buf.header_word(pkt, 1) as u8;
            let h = match self.decoder.header_len(first) {
                Ok(h) => h,
                Err(m) => {
                    io.fault(format!(
                        "switch {} input port {i}: packet (tag {}): {m}",
                        self.id, e.tag
                    ));
                    inp.buf.pop_undecoded();
                    continue;
                }
            };
            if (e.written as usize) < h {
                if e.complete {
                    io.fault(format!(
                        "switch {} input port {i}: packet (tag {}) of {} is shorter than its {h}-flit header",
                        self.id,
                        e.tag,
                        crate::counted(e.written.into(), "flits")
                    ));
                    inp.buf.pop_undecoded();
                }
                continue;
            }
            let phase = Phase::from_arrival(inp.arrived_down);
            let r = if first & 0x80 == 0 {
                self.decoder
                    .decode_unicast(inp.buf.header_word(pkt, h), phase, &mut inp.dec)
            } else {
                if self.scratch.len() < h {
                    self.scratch.resize(h, 0);
                }
                let bytes = &mut self.scratch[..h];
                inp.buf.header(pkt, bytes);
                self.decoder.decode(bytes, phase, &mut inp.dec)
            };
            inp.buf.pop_undecoded();
            if inp.buf.next_undecoded().is_none() {
                self.waiting &= !(1 << i);
            }
            if let Err(m) = r {
                io.fault(format!(
                    "switch {} input port {i}: packet (tag {}): {m}",
                    self.id, e.tag
                ));
                continue;
            }
            let fanout = inp.dec.fanout();
            if fanout == 0 {
                io.fault(format!(
                    "switch {} input port {i}: packet (tag {}) asks for no copy at this switch",
                    self.id, e.tag
                ));
                continue;
            }
            inp.buf.set_fanout(pkt, fanout);
            inp.dec.pkt = pkt;
            inp.dec.hdr_len = h as u16;
            inp.dec_rp = inp.buf.reader_of(pkt, &e);
            inp.pending = inp.dec.replicate;
            inp.choice_pending = !inp.dec.choice.is_empty();
            inp.started = false;
            self.decoded |= 1 << i;
        }
    }

    fn write_inputs(&mut self, io: &mut LinkIo<'_>) {
        for i in PortIter(io.inbox) {
            let inp = &mut self.inputs[i];
            let f = io.delivered_flit(inp.link_in);
            if f.is_head() {
                if inp.writing != NONE {
                    io.fault(format!(
                        "switch {} input port {i}: head of packet tag {} while packet tag {} is still arriving",
                        self.id,
                        f.tag,
                        inp.buf.entry(inp.writing).tag
                    ));
                    continue;
                }
                match inp.buf.open(f) {
                    Ok(p) => {
                        inp.writing = if f.is_tail() { NONE } else { p };
                        self.waiting |= 1 << i;
                        if self.holding & (1 << i) == 0 {
                            self.holding |= 1 << i;
                            inp.since = io.cycle;
                        }
                    }
                    Err(e) => io.fault(format!(
                        "switch {} input port {i}: packet tag {} arrived with no room ({e:?}): the sender overran its credits",
                        self.id, f.tag
                    )),
                }
                continue;
            } else if inp.writing == NONE {
                io.fault(format!(
                    "switch {} input port {i}: flit {} of packet tag {} arrived without its head",
                    self.id, f.idx, f.tag
                ));
                continue;
            }
            if let Err(e) = inp.buf.append(inp.writing, f) {
                io.fault(format!(
                    "switch {} input port {i}: flit {} of packet tag {} arrived with no room ({e:?}): the sender overran its credits",
                    self.id, f.idx, f.tag
                ));
                continue;
            }
            if f.is_tail() {
                inp.writing = NONE;
            }
        }
    }

    /// Packets held at an input, and copies being sent by an output, that
    /// have made no progress since before `now - bound`, with what each
    /// waits for.
    pub fn stalls(&self, now: u64, bound: u64) -> Vec<Stall> {
        let mut out = Vec::new();
        if self.granted == 0 && self.holding == 0 {
            // Nothing granted, nothing held: nothing can wait.
            return out;
        }
        for (o, u) in self.outputs.iter().enumerate() {
            let Some(g) = u.grant else { continue };
            if now.saturating_sub(u.since) <= bound {
                continue;
            }
            let (waiting, on) = self.copy_wait(o, &g);
            out.push(Stall {
                location: format!("switch {} output port {o}", self.id),
                at: StallAt::Output(o as u16),
                tag: Some(g.tag),
                waiting,
                since: u.since,
                waits_on: vec![on],
            });
        }
        for i in PortIter(self.holding) {
            let inp = &self.inputs[i];
            if now.saturating_sub(inp.since) <= bound {
                continue;
            }
            let location = format!("switch {} input port {i}", self.id);
            let mut tag = None;
            let mut waits = Vec::new();
            let mut on = Vec::new();
            // Copies being forwarded, one per output granted to this input:
            // the input frees chunks as they move.
            for (o, u) in self.outputs.iter().enumerate() {
                let Some(g) = u.grant.filter(|g| g.input as usize == i) else {
                    continue;
                };
                tag.get_or_insert(g.tag);
                waits.push(self.copy_wait(o, &g).0);
                on.push(WaitOn::Output(o as u16));
            }
            // The packet in the decode register, waiting for outputs.
            if let Some(d) = self.decode_register(i) {
                tag.get_or_insert(inp.buf.entry(d.pkt).tag);
                let older = inp.reading - inp.started as u16;
                if older > 0 && !inp.buf.entry(d.pkt).complete {
                    waits.push(
                        "the packets ahead of it to leave (it is still arriving)".to_string(),
                    );
                    // Its own older copies are listed above; the rest of
                    // the packet arriving frees it too.
                    on.push(WaitOn::Flits(inp.link_in));
                } else {
                    if !inp.pending.is_empty() {
                        let w: Vec<String> = inp.pending.iter().map(|o| self.holder(o)).collect();
                        waits.push(format!("outputs for its copies: {}", w.join(", ")));
                        on.extend(inp.pending.iter().filter_map(|o| self.held(o)));
                    }
                    if inp.choice_pending {
                        let c: Vec<String> = d.choice.iter().map(|o| self.holder(o)).collect();
                        waits.push(format!("an output among {}", c.join(", ")));
                        on.extend(d.choice.iter().filter_map(|o| self.held(o)));
                    }
                }
            }
            // Otherwise the packet whose header is arriving.
            if waits.is_empty()
                && let Some(p) = inp.buf.next_undecoded()
            {
                let e = inp.buf.entry(p);
                tag = Some(e.tag);
                waits.push(format!(
                    "the rest of its header ({} arrived)",
                    crate::counted(e.written.into(), "flits")
                ));
                on.push(WaitOn::Flits(inp.link_in));
            }
            out.push(Stall {
                location,
                at: StallAt::Input(i as u16),
                tag,
                waiting: waits.join("; and "),
                since: inp.since,
                waits_on: on,
            });
        }
        out
    }

    /// What the copy granted output `o` waits for: the next flit from
    /// upstream, or credits from its receiver.
    fn copy_wait(&self, o: usize, g: &Grant) -> (String, WaitOn) {
        let inp = &self.inputs[g.input as usize];
        if g.sent >= g.hdr_len && !inp.buf.can_read(&g.rp) {
            (
                format!("flit {} from upstream (output port {o} granted)", g.rp.read),
                WaitOn::Flits(inp.link_in),
            )
        } else {
            (
                format!("credits for output port {o} (its receiver's buffer is full)"),
                WaitOn::Credits(self.outputs[o].link_out),
            )
        }
    }

    /// Output `o` as a wait, when another copy holds it (`None` when it is
    /// free: a free output is granted at once, so waiting for it is no
    /// wait).
    fn held(&self, o: usize) -> Option<WaitOn> {
        self.outputs[o].grant.map(|_| WaitOn::Output(o as u16))
    }

    fn holder(&self, o: usize) -> String {
        match &self.outputs[o].grant {
            Some(g) => format!("port {o} (held by input {})", g.input),
            None => format!("port {o} (free)"),
        }
    }
}

impl Clocked for Switch {
    type Io<'a> = LinkIo<'a>;

    #[inline]
    fn eval(&mut self, io: &mut LinkIo<'_>) -> Next {
        if self.decoded != 0 {
            self.allocate(io);
        }
        // Every output holding a grant now was just granted or is worked on
        // by `traverse`.
        self.touched_out |= self.granted;
        if self.granted != 0 {
            self.traverse(io);
        }
        let ready = self.waiting & !self.decoded;
        if ready != 0 {
            self.decode(io, ready);
        }
        if io.inbox != 0 {
            self.write_inputs(io);
        }
        self.touched_in |= ready | io.inbox | self.freed;
        self.dec_touched |= ready;
        for i in PortIter(self.freed) {
            let inp = &self.inputs[i];
            io.publish(inp.credit_out, inp.freed);
        }
        self.freed = 0;
        if self.is_empty() {
            Next::Sleep
        } else {
            Next::Busy
        }
    }
}

/// Signals of an input unit (`in{p}`).
const INPUT_SIGNALS: u32 = 4;
/// Signals of an output unit (`out{p}`).
const OUTPUT_SIGNALS: u32 = 7;

impl Traced for Switch {
    type Env = Channels;

    fn declare(&self, s: &mut ScopeBuilder<'_>) {
        let f = self.decoder.formats();
        let chunks = (self.buffer_flits / self.chunk as u32) as u64;
        let (nb, nc) = (bits_for(self.buffer_flits), bits_for(chunks));
        let kb = bits_for(self.k as u64 - 1);
        let tb = f.unicast().id_bits().max(f.switch_bits());
        let n = f.nodes();
        let k = self.k as u32;
        for p in PortIter(self.wired) {
            let before = s.signal_count();
            s.scope(&format!("in{p}"), |s| {
                s.signal("buf_count", nb);
                s.signal("free_chunks", nc);
                s.signal("packets", nc);
                s.signal("chunks_freed", 16);
            });
            assert_eq!(s.signal_count() - before, INPUT_SIGNALS);
            s.scope(&format!("dec{p}"), |s| {
                s.signal("valid", 1);
                s.signal("kind", 2);
                s.signal("target", tb);
                s.signal("down", 1);
                s.signal_as("ports_in", k, Radix::Bin);
                s.signal_as("dests", n, Radix::Bin);
                s.signal("ud_in", 1);
                s.signal_as("replicate", k, Radix::Bin);
                s.signal_as("choice", k, Radix::Bin);
                s.signal_as("pending", k, Radix::Bin);
                s.signal("ud_out", 1);
                for q in PortIter(self.wired) {
                    s.signal_as(&format!("hdr_out{q}"), n, Radix::Bin);
                }
            });
            let cw = bits_for(self.outputs[p].credit.cap);
            let at_out = s.signal_count();
            s.scope(&format!("out{p}"), |s| {
                s.signal("busy", 1);
                s.signal("grant_in", kb);
                s.signal("credits", cw);
                s.signal("valid", 1);
                s.signal_as("data", 8, Radix::Hex);
                s.signal("head", 1);
                s.signal("tail", 1);
            });
            // `sample_units` skips a port, or its parts, by these counts.
            assert_eq!(s.signal_count() - at_out, OUTPUT_SIGNALS);
            assert_eq!(s.signal_count() - before, self.port_signals());
        }
    }

    fn sample(&self, ch: &Channels, s: &mut Sampler<'_>) {
        for p in PortIter(self.wired) {
            self.sample_port(p, ch, s);
        }
    }

    /// A port has two units ([`Traced::sample_units`]): unit `p`, its input
    /// and decode units (`in{p}`, `dec{p}`), and unit `64 + p`, its output
    /// unit (`out{p}`). Of a port whose unit `p` is in `units`, the decode
    /// unit is sampled only when a stage changed it before the switch was
    /// last asked ([`Switch::take_touched`]): its registers change once or
    /// twice per packet, the rest of the port with every flit.
    fn sample_units(&self, ch: &Channels, units: u128, s: &mut Sampler<'_>) {
        let n = self.port_signals();
        let ins = units as u64 & self.wired;
        let outs = (units >> 64) as u64 & self.wired;
        let dec = self.dec_sample;
        // Ports wired from 0 up, as a switch usually is: a port's rank
        // among the wired ports is its number.
        let dense = self.wired & self.wired.wrapping_add(1) == 0;
        for p in PortIter(ins | outs) {
            // The port's rank among the wired ports: where its signals begin.
            let rank = if dense {
                p as u32
            } else {
                (self.wired & ((1u64 << p) - 1)).count_ones()
            };
            let base = rank * n;
            if ins >> p & 1 == 1 {
                self.sample_input(p, ch, s, base);
                if dec >> p & 1 == 1 {
                    self.sample_decode(p, s);
                }
            }
            if outs >> p & 1 == 1 {
                self.sample_output(p, ch, s, base + n - OUTPUT_SIGNALS);
            }
        }
        s.seek(self.n_wired * n);
    }
}

impl Switch {
    /// Signals declared per port (in `declare`'s order).
    fn port_signals(&self) -> u32 {
        INPUT_SIGNALS + 11 + self.n_wired + OUTPUT_SIGNALS
    }

    fn sample_port(&self, p: usize, ch: &Channels, s: &mut Sampler<'_>) {
        self.sample_input(p, ch, s, s.at());
        self.sample_decode(p, s);
        self.sample_output(p, ch, s, s.at());
    }

    /// `in{p}`: [`INPUT_SIGNALS`] signals, from the component's signal
    /// `at`.
    #[inline(always)]
    fn sample_input(&self, p: usize, ch: &Channels, s: &mut Sampler<'_>, at: u32) {
        let inp = &self.inputs[p];
        let mut r = s.run_at::<{ INPUT_SIGNALS as usize }>(at);
        r.value(inp.buf.flits_held() as u64);
        r.value(inp.buf.free_chunks() as u64);
        r.value(inp.buf.packets_held() as u64);
        r.value(ch.credits.q(inp.credit_out) as u64 & 0xffff);
        r.finish();
    }

    /// `dec{p}`: two runs of five signals around `dests`, then a
    /// `hdr_out` per wired port.
    fn sample_decode(&self, p: usize, s: &mut Sampler<'_>) {
        let inp = &self.inputs[p];
        match self.decode_register(p) {
            Some(d) => {
                let bits = d.kind == Kind::BitString;
                let pairs = matches!(d.kind, Kind::Ssr | Kind::MultiDrop);
                let mut r = s.run::<5>();
                r.bit(true);
                r.value(d.kind.code());
                r.maybe((!bits).then_some(d.target as u64));
                r.bit(d.phase == Phase::Down);
                r.maybe(pairs.then_some(d.ports_in.0));
                r.finish();
                if bits {
                    s.bits(&d.dests);
                } else {
                    s.unknown();
                }
                let mut r = s.run::<5>();
                r.maybe(bits.then_some(d.ud_in as u64));
                r.value(d.replicate.0);
                r.value(d.choice.0);
                r.value(inp.pending.0);
                r.maybe(bits.then_some(d.ud_out as u64));
                r.finish();
                if bits {
                    for q in PortIter(self.wired) {
                        if d.replicate.contains(q) {
                            s.bits(&d.branch[q]);
                        } else {
                            s.unknown();
                        }
                    }
                } else {
                    s.unknowns(self.n_wired);
                }
            }
            None => {
                let mut r = s.run::<5>();
                r.bit(false);
                r.unknown();
                r.unknown();
                r.unknown();
                r.unknown();
                r.finish();
                s.unknown();
                let mut r = s.run::<5>();
                r.unknown();
                r.value(0);
                r.value(0);
                r.value(0);
                r.unknown();
                r.finish();
                s.unknowns(self.n_wired);
            }
        }
    }

    /// `out{p}`: [`OUTPUT_SIGNALS`] signals, from the component's signal
    /// `at`.
    #[inline(always)]
    fn sample_output(&self, p: usize, ch: &Channels, s: &mut Sampler<'_>, at: u32) {
        let out = &self.outputs[p];
        let mut r = s.run_at::<{ OUTPUT_SIGNALS as usize }>(at);
        r.bit(out.grant.is_some());
        r.maybe(out.grant.map(|g| g.input as u64));
        r.value(out.credit.available(ch.credits.q(out.credit_in)) as u64);
        let f = ch.flits.q(out.link_out);
        r.bit(f.is_valid());
        r.value(f.data as u64);
        r.bit(f.is_head());
        r.bit(f.is_tail());
        r.finish();
    }
}

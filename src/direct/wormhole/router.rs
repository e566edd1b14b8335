//! The wormhole router of a direct network (seed 001 section 2.1, Fig. 1).
//!
//! A router has `E` external ports to its neighbours and `P` internal
//! channel pairs to its local processor: injection channels come in as
//! inputs `E..E+P`, consumption channels leave as outputs `E..E+P` (one-port:
//! `P = 1`; all-port: `P = E`). Each input has a small flit buffer (a
//! [`Fifo`], 2 flits by default) and a header latch; each output has a
//! round-robin arbiter, a credit counter for the receiver's buffer and the
//! link register; an `(E+P) x (E+P)` crossbar joins them.
//!
//! A worm's header is its ordered destination list: a count flit `r` and `r`
//! addresses of `w` flits each (big-endian; `w = 1` up to 256 nodes). One
//! cycle per stage, evaluated consumer-first so every stage sees what the
//! previous one held at the start of the cycle:
//!
//! 1. **allocate** — a decoded worm asks for an output: first a consumption
//!    channel if it has reached a destination (the paper's order: the
//!    internal channel is reserved before the external one), then one of the
//!    legal external channels its routing function offers (adaptive: the
//!    first free one at or after the input's round-robin pointer). Each free
//!    output's arbiter grants one requester; a grant holds until the tail
//!    has passed. An output is free once it has no owner and its receiver
//!    has returned every credit: the channel, link and buffer, is held until
//!    the last worm's tail has left the buffer (seed 001 section 2.3's
//!    channel-waiting graph; granting it as soon as the tail is sent lets a
//!    worm commit to a channel whose buffer still holds a blocked worm,
//!    which stalls natural lists under Restriction 2).
//! 2. **traverse** — every granted output moves one flit into its link
//!    register if the receiver has a free buffer slot (credit per flit): first
//!    the (rewritten) header from the latch, then the body from the buffer.
//!    A worm copied at a destination feeds two outputs from one buffer; a
//!    flit leaves the buffer when every copy has passed it, so a blocked copy
//!    stops the other after at most a buffer's worth of flits, and the worm
//!    holds every channel behind it (wormhole).
//! 3. **free** — flits every copy has passed leave the buffer; the running
//!    total of freed slots is published to the sender as its credit (a
//!    worm with one copy and no output left to ask for frees each body
//!    flit as the copy sends it, which is the same flit in the same cycle).
//! 4. **decode** — once the latch holds the count and the first address
//!    (and, at a destination with more to go, the next address), the decode
//!    unit compares the first address with its own: a match strips it (the
//!    count is decremented) and asks for a consumption channel; the worm is
//!    then routed toward the (new) first address.
//! 5. **write** — the flit on the incoming link goes to the header latch
//!    when the latch still needs header flits and the buffer holds none of
//!    them, otherwise into the buffer (a header flit already buffered moves
//!    to the latch, one per cycle).
//!
//! So the head of a worm with an `H`-flit header spends `H + 2` cycles per
//! hop. Every grant of an external channel is reported as a hop, and the
//! system checks it against the routing restriction independently.

use crate::direct::Fabric;
use crate::rtl::trace::{Sampler, ScopeBuilder, Traced};
use crate::rtl::{ChannelId, Fifo, PortIter, RoundRobin, bits_for};
use crate::switch::{Channels, CreditCounter, Flit};
use arrayvec::ArrayVec;
use rustc_hash::FxHashMap;
use std::collections::VecDeque;
use std::sync::Arc;

/// No owner.
const NONE: u8 = u8::MAX;

/// The channel of an output with none (never read).
const UNWIRED: ChannelId = ChannelId(u32::MAX);

/// Longest header latch: a count flit and two addresses of up to 3 flits.
pub(crate) const MAX_LATCH: usize = 7;

/// Where an input stands with its current worm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InState {
    /// Waiting for a worm's first flit.
    Idle = 0,
    /// Collecting header flits in the latch.
    Latch = 1,
    /// Decoded: asking for or holding outputs.
    Routed = 2,
}

/// One output a worm has been granted at a router.
#[derive(Clone, Copy, Debug)]
struct CopyState {
    port: u8,
    /// Flits sent on it so far (header flits first).
    sent: u32,
}

#[derive(Clone, Debug)]
struct InputUnit {
    link_in: Option<ChannelId>,
    credit_out: Option<ChannelId>,
    fifo: Fifo<Flit>,
    freed: u32,
    published: u32,
    state: InState,
    latch: [u8; MAX_LATCH],
    latch_len: u8,
    latch_need: u8,
    /// Length of the outgoing header (the rewritten latch).
    hdr_len: u8,
    tag: u32,
    local_pending: bool,
    /// Legal external outputs asked for (0: none).
    ext_pending: u64,
    copies: ArrayVec<CopyState, 4>,
    /// Body flits popped from the buffer so far.
    body_popped: u32,
    pick: u32,
    /// Last cycle of progress.
    since: u64,
}

impl InputUnit {
    /// Holds no worm and no flit.
    #[inline]
    fn is_idle(&self) -> bool {
        self.state == InState::Idle && self.latch_len == 0 && self.fifo.is_empty()
    }

    /// The worm's tail has left the buffer: the input waits for the next
    /// worm's header.
    #[inline]
    fn retire(&mut self, addr_flits: u8) {
        self.state = InState::Idle;
        self.copies.clear();
        self.body_popped = 0;
        self.latch_len = 0;
        self.latch_need = 1 + addr_flits;
    }

    /// Sends the total of freed slots upstream as the credit and notes it
    /// published (an input without an upstream sender only notes it).
    #[inline]
    fn publish(&mut self, ch: &mut Channels) {
        if let Some(c) = self.credit_out {
            ch.credits.write(c, self.freed);
        }
        self.published = self.freed;
    }
}

#[derive(Clone, Copy, Debug)]
struct OutputUnit {
    /// The link the output drives and the receiver's credit counter (an
    /// output outside the router's `wired_out` has neither, and these
    /// are not read).
    link_out: ChannelId,
    credit_in: ChannelId,
    credits: CreditCounter,
    owner: u8,
    /// The owner's copy that this output carries (its index in the
    /// owner's `copies`).
    copy: u8,
    arb: RoundRobin,
    /// Inputs asking for it this cycle (cleared as the arbiter reads it).
    req: u64,
}

/// A grant of an output to a worm, reported to the system.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hop {
    /// The cycle of the grant.
    pub cycle: u64,
    /// The worm.
    pub tag: u32,
    /// The router.
    pub node: u32,
    /// External port the worm arrived on (`None`: injected here).
    pub arrived: Option<u8>,
    /// Output granted: external ports first, then consumption channels.
    pub out: u8,
    /// The granted output's link (so that the system follows the head
    /// without reading the router, which another thread may be running).
    pub link: ChannelId,
}

/// What a router touches in a cycle besides itself.
pub struct RouterIo<'a> {
    /// The current cycle.
    pub cycle: u64,
    /// The channels.
    pub ch: &'a mut Channels,
    /// Grants of this cycle.
    pub hops: &'a mut Vec<Hop>,
    /// Broken invariants.
    pub faults: &'a mut Vec<String>,
    /// Set when any flit moved.
    pub moved: &'a mut bool,
}

/// How one port of a router is wired.
#[derive(Clone, Copy, Debug, Default)]
pub struct RouterPort {
    /// Link into the port's input (None: unconnected).
    pub link_in: Option<ChannelId>,
    /// Credit counter the input publishes.
    pub credit_out: Option<ChannelId>,
    /// Link the port's output drives.
    pub link_out: Option<ChannelId>,
    /// The receiver's credit counter.
    pub credit_in: Option<ChannelId>,
    /// Slots of the receiver's buffer.
    pub receiver_slots: u32,
}

/// What a blocked worm head waits for (for the deadlock report).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Waiting {
    /// Input port holding the head.
    pub input: usize,
    /// The worm.
    pub tag: u32,
    /// Outputs it asks for.
    pub wants: u64,
    /// Since when the input has not progressed.
    pub since: u64,
}

/// A wormhole router.
///
/// Laid out in declaration order (`repr(C)`): the port sets every
/// evaluation reads first, then the port tables, then what only some
/// stages read. (Measured, not reasoned: whole runs of the 8x8 mesh with
/// 3-flit worms take 2.5 - 3 % less time than with the compiler's order,
/// for the same instructions; docs/performance-log.md, "A worm's books,
/// and an output's credit first".)
#[derive(Clone, Debug)]
#[repr(C)]
pub struct Router {
    /// Inputs holding a worm or a flit (state, latch or buffer): the
    /// inputs a cycle's stages can find work at, besides those a flit
    /// arrives at.
    busy: u64,
    /// Decoded inputs ([`InState::Routed`]).
    routed: u64,
    /// Decoded inputs whose worm still asks for an output (a consumption
    /// channel or an external one).
    asking: u64,
    /// Inputs collecting a header ([`InState::Latch`]).
    latching: u64,
    /// Outputs with a link and no owner.
    free_out: u64,
    /// Outputs with a link.
    wired_out: u64,
    inputs: Vec<InputUnit>,
    outputs: Vec<OutputUnit>,
    node: u32,
    addr_flits: u8,
    ext: usize,
    fabric: Arc<dyn Fabric>,
    /// The fabric's node count (asked once, not per worm).
    nodes: u32,
    /// Test hook: for a worm (by tag), the external ports to take on its
    /// successive visits to this router.
    pins: FxHashMap<u32, VecDeque<u8>>,
}

impl Router {
    /// A router for `node` with `ports.len() - ext` internal channel pairs
    /// and input buffers of `buffer_flits`.
    pub fn new(
        node: u32,
        ext: usize,
        fabric: Arc<dyn Fabric>,
        ports: &[RouterPort],
        buffer_flits: u32,
    ) -> Router {
        let addr_flits = fabric.address_flits();
        let inputs = ports
            .iter()
            .map(|p| InputUnit {
                link_in: p.link_in,
                credit_out: p.credit_out,
                fifo: Fifo::new(buffer_flits as usize),
                freed: 0,
                published: 0,
                state: InState::Idle,
                latch: [0; MAX_LATCH],
                latch_len: 0,
                latch_need: 1 + addr_flits,
                hdr_len: 0,
                tag: 0,
                local_pending: false,
                ext_pending: 0,
                copies: ArrayVec::new(),
                body_popped: 0,
                pick: 0,
                since: 0,
            })
            .collect();
        let outputs = ports
            .iter()
            .map(|p| OutputUnit {
                link_out: p.link_out.unwrap_or(UNWIRED),
                credit_in: p.credit_in.unwrap_or(UNWIRED),
                credits: CreditCounter::new(p.receiver_slots),
                owner: NONE,
                copy: 0,
                arb: RoundRobin::new(ports.len()),
                req: 0,
            })
            .collect();
        let wired_out = ports
            .iter()
            .enumerate()
            .filter(|(_, p)| p.link_out.is_some() && p.credit_in.is_some())
            .fold(0, |m, (o, _)| m | 1 << o);
        Router {
            node,
            ext,
            nodes: fabric.nodes(),
            fabric,
            addr_flits,
            inputs,
            outputs,
            busy: 0,
            routed: 0,
            asking: 0,
            latching: 0,
            free_out: wired_out,
            wired_out,
            pins: FxHashMap::default(),
        }
    }

    /// The node.
    pub fn node(&self) -> u32 {
        self.node
    }

    /// Number of ports (external + internal).
    pub fn ports(&self) -> usize {
        self.inputs.len()
    }

    /// Number of external ports.
    pub fn external_ports(&self) -> usize {
        self.ext
    }

    /// Fixes the external ports worm `tag` takes on its successive visits.
    pub(crate) fn pin(&mut self, tag: u32, ports: VecDeque<u8>) {
        self.pins.insert(tag, ports);
    }

    /// True when no input holds a flit or a worm.
    #[inline]
    pub fn is_idle(&self) -> bool {
        debug_assert_eq!(
            self.busy == 0,
            self.inputs.iter().all(InputUnit::is_idle),
            "router {}: the busy inputs {:#x} disagree with the inputs",
            self.node,
            self.busy
        );
        self.busy == 0
    }

    /// The inputs holding a worm or a flit. After an evaluation, with the
    /// inputs that published credits, every input the evaluation can have
    /// changed: an input given a flit holds it, and a busy input left idle
    /// freed its tail's place in the buffer.
    #[inline]
    pub(crate) fn busy_inputs(&self) -> u64 {
        self.busy
    }

    /// The outputs granted to a worm. After an evaluation, every output
    /// it granted (a worm has a flit behind its header, so no grant ends
    /// in the cycle it is made).
    #[inline]
    pub(crate) fn owned_outputs(&self) -> u64 {
        self.wired_out & !self.free_out
    }

    /// The link output `o` drives, if connected.
    #[cfg(test)]
    pub(crate) fn link_out(&self, o: usize) -> Option<ChannelId> {
        (self.wired_out >> o & 1 == 1).then_some(self.outputs[o].link_out)
    }

    /// The owner input of output `o`, if granted.
    pub fn owner(&self, o: usize) -> Option<usize> {
        let w = self.outputs[o].owner;
        (w != NONE).then_some(w as usize)
    }

    /// The worm holding input `i`, if any.
    pub fn worm_at(&self, i: usize) -> Option<u32> {
        let u = &self.inputs[i];
        (u.state != InState::Idle || u.latch_len > 0).then_some(u.tag)
    }

    /// The outputs input `i`'s current worm holds.
    pub fn granted(&self, i: usize) -> u64 {
        self.inputs[i]
            .copies
            .iter()
            .filter(|c| self.outputs[c.port as usize].owner == i as u8)
            .fold(0, |m, c| m | 1 << c.port)
    }

    /// Worm heads that ask for outputs they have not been granted.
    pub fn waiting(&self) -> impl Iterator<Item = Waiting> + '_ {
        let internal: u64 = (self.ext..self.ports()).fold(0, |m, p| m | 1 << p);
        self.inputs
            .iter()
            .enumerate()
            .filter(|(_, u)| u.state == InState::Routed && (u.local_pending || u.ext_pending != 0))
            .map(move |(i, u)| Waiting {
                input: i,
                tag: u.tag,
                wants: if u.local_pending {
                    internal
                } else {
                    u.ext_pending
                },
                since: u.since,
            })
    }

    /// Since when input `i` has not progressed, if it holds a worm.
    pub fn stalled_since(&self, i: usize) -> Option<u64> {
        self.worm_at(i).map(|_| self.inputs[i].since)
    }

    fn address(&self, u: &InputUnit, at: usize) -> u32 {
        u.latch[at..at + self.addr_flits as usize]
            .iter()
            .fold(0u32, |a, &b| a << 8 | b as u32)
    }

    /// One cycle. `inbox` has a bit for each input a flit arrived at in
    /// the last clock edge (the inputs whose link shows a valid flit): the
    /// system's edge tells it, so the router is evaluated only by its
    /// system.
    ///
    /// Each stage visits only the ports it can find work at: allocation the
    /// inputs whose worm still asks for an output, traversal the outputs
    /// with an owner, freeing the inputs a copy took a body flit from,
    /// decoding the inputs collecting a header, and writing the inputs
    /// named at `write`. A port outside these sets would be left as it is
    /// by the stage (a debug build checks the sets against the ports'
    /// state after every evaluation).
    ///
    /// It and its busiest stages are inlined into both places it is
    /// evaluated from (one thread, a range of several): out of line, the
    /// system's cycle costs up to 8 % more instructions.
    #[inline(always)]
    pub(crate) fn eval(&mut self, io: &mut RouterIo<'_>, inbox: u64) {
        debug_assert_eq!(
            inbox,
            self.inputs
                .iter()
                .enumerate()
                .filter(|(_, u)| u.link_in.is_some_and(|l| io.ch.flits.q(l).is_valid()))
                .fold(0, |m, (i, _)| m | 1 << i),
            "router {}: the inputs a flit arrived at",
            self.node
        );
        // An idle router with nothing arriving has nothing to do: every
        // stage would leave it as it is.
        if self.busy | inbox == 0 {
            return;
        }
        if self.free_out != 0 && self.asking != 0 {
            self.allocate(io);
        }
        let (streamed, mut popped) = if self.free_out != self.wired_out {
            self.traverse(io)
        } else {
            (0, 0)
        };
        if streamed != 0 {
            popped |= self.free(streamed, io.ch);
        }
        if self.latching != 0 {
            self.decode(io);
        }
        // The write stage has work at an input a flit arrives at, one whose
        // buffer popped its worm's tail and has not published the credits
        // yet (in `traverse` or `free`), and one collecting a header or
        // holding the next worm's flits (not decoded, not idle). It is the
        // last stage: it also brings `busy` up to date at the inputs that
        // can have changed between idle and busy, those a flit arrived at
        // and those whose worm's tail left (an input turns busy when a flit
        // arrives and idle when its worm's tail leaves).
        let changed = inbox | popped;
        self.write(io, changed | (self.busy & !self.routed), inbox, changed);
        #[cfg(debug_assertions)]
        self.check_sets();
    }

    /// The port sets agree with the ports' state.
    #[cfg(debug_assertions)]
    fn check_sets(&self) {
        let mut want = (0u64, 0u64, 0u64, 0u64, 0u64);
        for (i, u) in self.inputs.iter().enumerate() {
            let bit = 1 << i;
            if !u.is_idle() {
                want.0 |= bit;
            }
            if u.state == InState::Routed {
                want.1 |= bit;
                if u.local_pending || u.ext_pending != 0 {
                    want.2 |= bit;
                }
            }
            if u.state == InState::Latch {
                want.3 |= bit;
            }
        }
        for (o, out) in self.outputs.iter().enumerate() {
            if out.owner == NONE && self.wired_out >> o & 1 == 1 {
                want.4 |= 1 << o;
            }
        }
        assert_eq!(
            (
                self.busy,
                self.routed,
                self.asking,
                self.latching,
                self.free_out
            ),
            want,
            "router {}: busy, routed, asking, latching and free sets",
            self.node
        );
    }

    /// Of the free outputs in `outs`, those that may be granted: whose
    /// receiver has returned every credit, so that no flit of the last
    /// worm is left in its buffer (a channel is held until its worm's tail
    /// has left the channel's buffer, seed 001 section 2.3).
    #[inline(always)]
    fn drained(&self, io: &RouterIo<'_>, outs: u64) -> u64 {
        let mut ready = 0;
        for o in PortIter(outs & self.free_out) {
            let out = &self.outputs[o];
            if out.credits.available(io.ch.credits.q(out.credit_in)) == out.credits.cap {
                ready |= 1 << o;
            }
        }
        ready
    }

    #[inline(always)]
    fn allocate(&mut self, io: &mut RouterIo<'_>) {
        // The outputs the asking worms may take, each checked once.
        let internal = self.free_out >> self.ext << self.ext;
        let wanted = PortIter(self.asking).fold(0, |m, i| {
            let u = &self.inputs[i];
            m | if u.local_pending {
                internal
            } else {
                u.ext_pending
            }
        });
        let free = self.drained(io, wanted);
        if free == 0 {
            return;
        }
        let mut asked = 0u64;
        for i in PortIter(self.asking) {
            let u = &mut self.inputs[i];
            debug_assert!(u.state == InState::Routed && (u.local_pending || u.ext_pending != 0));
            let choice = if u.local_pending {
                let internal = free >> self.ext;
                (internal != 0).then(|| self.ext + internal.trailing_zeros() as usize)
            } else if u.ext_pending != 0 {
                if let Some(q) = (!self.pins.is_empty())
                    .then(|| self.pins.get(&u.tag).and_then(|q| q.front()))
                    .flatten()
                {
                    let p = *q as usize;
                    if u.ext_pending >> p & 1 == 0 {
                        io.faults.push(format!(
                            "router {}: worm {} is pinned to port {p}, which is not a legal channel here",
                            self.node, u.tag
                        ));
                        None
                    } else {
                        (free >> p & 1 == 1).then_some(p)
                    }
                } else {
                    crate::rtl::first_at_or_after(u.ext_pending & free, u.pick)
                }
            } else {
                None
            };
            if let Some(o) = choice {
                self.outputs[o].req |= 1 << i;
                asked |= 1 << o;
            }
        }
        for o in PortIter(asked) {
            let out = &mut self.outputs[o];
            let req = std::mem::take(&mut out.req);
            let w = out.arb.arbitrate(req).expect("a request");
            out.arb.update(w);
            out.owner = w as u8;
            self.free_out &= !(1 << o);
            let u = &mut self.inputs[w];
            out.copy = u.copies.len() as u8;
            u.copies.push(CopyState {
                port: o as u8,
                sent: 0,
            });
            if o >= self.ext {
                u.local_pending = false;
                if u.ext_pending == 0 {
                    self.asking &= !(1 << w);
                }
            } else {
                self.asking &= !(1 << w);
                u.ext_pending = 0;
                // The next external port, wrapping (`o` is one).
                u.pick = if o + 1 < self.ext { o as u32 + 1 } else { 0 };
                if let Some(q) = self.pins.get_mut(&u.tag) {
                    q.pop_front();
                    if q.is_empty() {
                        self.pins.remove(&u.tag);
                    }
                }
            }
            io.hops.push(Hop {
                cycle: io.cycle,
                tag: u.tag,
                node: self.node,
                arrived: (w < self.ext).then_some(w as u8),
                out: o as u8,
                link: self.outputs[o].link_out,
            });
        }
    }

    /// Moves a flit on every granted output that can send. Returns the
    /// inputs whose worm has several copies and a copy took a body flit
    /// of (the buffers `free` may pop), and the inputs whose worm's tail
    /// left here: a worm with one copy and no output left to ask for frees
    /// each body flit as its copy sends it (the slowest copy is that copy,
    /// so `free` would pop the same flit). Such an input publishes its
    /// freed total here too, unless the flit is the tail: it stays
    /// decoded and busy, so the write stage has nothing else to do at it
    /// unless a flit arrives. After a tail the input is idle, and the write
    /// stage may collect the next worm's header in the same cycle, so the
    /// total is published there, once.
    #[inline(always)]
    fn traverse(&mut self, io: &mut RouterIo<'_>) -> (u64, u64) {
        let w = self.addr_flits;
        let (mut streamed, mut popped) = (0, 0);
        for o in PortIter(self.wired_out & !self.free_out) {
            let out = &mut self.outputs[o];
            let owner = out.owner;
            debug_assert_ne!(owner, NONE, "an output out of the free set has an owner");
            // No credit, no flit: a worm streaming into small buffers
            // finds its output without one about as often as with one.
            let (link, credit) = (out.link_out, out.credit_in);
            let freed = io.ch.credits.q(credit);
            if !out.credits.has_one(freed) {
                continue;
            }
            let u = &mut self.inputs[owner as usize];
            let c = &mut u.copies[out.copy as usize];
            debug_assert_eq!(c.port as usize, o, "an output's copy");
            let from_hdr = c.sent < u.hdr_len as u32;
            let flit = if from_hdr {
                Some(Flit::marked(
                    u.tag,
                    c.sent as u16,
                    u.latch[c.sent as usize],
                    c.sent == 0,
                    false,
                ))
            } else {
                let b = (c.sent - u.hdr_len as u32 - u.body_popped) as usize;
                // The crossbar passes the buffered word on, numbered in
                // the copy: a body flit of the worm keeps its tag and its
                // marks (it is no head; the tail stays the tail).
                u.fifo.get(b).map(|f| {
                    let f = f.with_idx(c.sent as u16);
                    debug_assert_eq!(
                        f,
                        Flit::marked(u.tag, f.idx, f.data, false, f.is_tail()),
                        "router {}: a buffered flit that is not its worm's body",
                        self.node
                    );
                    f
                })
            };
            let Some(f) = flit else { continue };
            let out = &mut self.outputs[o];
            let took = out.credits.take(freed);
            debug_assert!(took, "a credit was available");
            io.ch.flits.write(link, f);
            *io.moved = true;
            c.sent += 1;
            if !from_hdr {
                if u.copies.len() == 1 && !u.local_pending && u.ext_pending == 0 {
                    debug_assert_eq!(
                        u.copies[0].sent,
                        u.hdr_len as u32 + u.body_popped + 1,
                        "a sole copy sent the buffer's front flit"
                    );
                    u.fifo.pop();
                    u.body_popped += 1;
                    u.freed = u.freed.wrapping_add(1);
                    if f.is_tail() {
                        popped |= 1 << owner;
                        u.retire(w);
                        self.routed &= !(1 << owner);
                    } else {
                        u.publish(io.ch);
                    }
                } else {
                    streamed |= 1 << owner;
                }
            }
            u.since = io.cycle;
            if f.is_tail() {
                out.owner = NONE;
                self.free_out |= 1 << o;
            }
        }
        (streamed, popped)
    }

    /// Pops the flits every copy has passed, at the inputs in `streamed`:
    /// the slowest copy's count can only grow when a copy sends a body
    /// flit (a copy granted later starts at 0, below the others). An input
    /// that popped flits but not its worm's tail stays routed and
    /// publishes its freed total here; returns those that popped the tail
    /// (idle now: the write stage publishes theirs, once, as `traverse`'s
    /// tails).
    ///
    /// Out of line: only worms of several copies reach it, and inlined it
    /// costs every evaluation registers (callgrind's slope, 8x8 mesh at
    /// 0.1: 20-flit unicast 21,021 instructions a cycle inlined, 20,768
    /// not; the 4x4x4 all-port multicast run 5,627 and 5,607).
    #[inline(never)]
    fn free(&mut self, streamed: u64, ch: &mut Channels) -> u64 {
        let w = self.addr_flits;
        let mut popped = 0;
        for i in PortIter(streamed) {
            let u = &mut self.inputs[i];
            debug_assert_eq!(u.state, InState::Routed);
            if !u.local_pending && u.ext_pending == 0 {
                let passed = u
                    .copies
                    .iter()
                    .map(|c| c.sent.saturating_sub(u.hdr_len as u32))
                    .min()
                    .unwrap_or(0);
                if u.body_popped == passed {
                    continue;
                }
                let mut tail = false;
                while u.body_popped < passed {
                    let f = u.fifo.pop().expect("a passed flit is buffered");
                    u.body_popped += 1;
                    u.freed = u.freed.wrapping_add(1);
                    if f.is_tail() {
                        u.retire(w);
                        self.routed &= !(1 << i);
                        tail = true;
                        break;
                    }
                }
                // As a sole copy's pop in `traverse`: still routed, the
                // input publishes here; after its tail it is idle, and the
                // write stage may collect the next header first.
                if tail {
                    popped |= 1 << i;
                } else {
                    u.publish(ch);
                }
            }
        }
        popped
    }

    #[inline(always)]
    fn decode(&mut self, io: &mut RouterIo<'_>) {
        let w = self.addr_flits as usize;
        for i in PortIter(self.latching) {
            let u = &self.inputs[i];
            debug_assert_eq!(u.state, InState::Latch);
            if u.latch_len < u.latch_need {
                continue;
            }
            let count = u.latch[0];
            let target = self.address(u, 1);
            let arrived = (i < self.ext).then_some(i);
            let next = (target == self.node && count > 1).then(|| self.address(u, 1 + w));
            let route_to = if target == self.node {
                next
            } else {
                Some(target)
            };
            let mut ext_pending = 0;
            if let Some(t) = route_to {
                if t >= self.nodes {
                    io.faults.push(format!(
                        "router {}: worm {} names node {t}, which does not exist",
                        self.node, u.tag
                    ));
                    continue;
                }
                ext_pending = self.fabric.candidates(self.node, arrived, t);
                if ext_pending == 0 {
                    io.faults.push(format!(
                        "router {}: worm {} has no legal channel toward {t} (arrived on {})",
                        self.node,
                        u.tag,
                        self.fabric.arrival_name(self.node, arrived)
                    ));
                    continue;
                }
            }
            let u = &mut self.inputs[i];
            if target == self.node {
                u.local_pending = true;
                if count > 1 {
                    // Strip the reached address: [count - 1, next address].
                    u.latch[0] = count - 1;
                    u.latch.copy_within(1 + w..1 + 2 * w, 1);
                    u.hdr_len = (1 + w) as u8;
                } else {
                    u.latch[0] = 0;
                    u.hdr_len = 1;
                }
            } else {
                u.hdr_len = u.latch_len;
            }
            u.ext_pending = ext_pending;
            u.state = InState::Routed;
            self.latching &= !(1 << i);
            self.routed |= 1 << i;
            if u.local_pending || ext_pending != 0 {
                self.asking |= 1 << i;
            }
            u.since = io.cycle;
        }
    }

    /// The write stage of the inputs in `visit` (the others have nothing
    /// to write or publish); a flit arrived at those in `inbox`. The
    /// inputs in `changed` (within `visit`) have their `busy` bit set
    /// again from their state once written.
    #[inline(always)]
    fn write(&mut self, io: &mut RouterIo<'_>, visit: u64, inbox: u64, changed: u64) {
        let w = self.addr_flits;
        let node = self.node;
        for i in PortIter(visit) {
            let u = &mut self.inputs[i];
            let incoming = (inbox >> i & 1 == 1).then(|| {
                let l = u.link_in.expect("a flit arrives on a link");
                io.ch.flits.q_delivered(l)
            });
            let mut pending = incoming;
            if pending.is_some() {
                u.since = io.cycle;
            }
            if matches!(u.state, InState::Idle | InState::Latch) && u.latch_len < u.latch_need {
                let take = if !u.fifo.is_empty() {
                    u.fifo.pop()
                } else {
                    pending.take()
                };
                if let Some(f) = take {
                    if u.latch_len == 0 {
                        if !f.is_head() {
                            io.faults.push(format!(
                                "router {node}: a flit of worm {} arrived with no header before it",
                                f.tag
                            ));
                        }
                        u.tag = f.tag;
                        u.state = InState::Latch;
                        self.latching |= 1 << i;
                    }
                    if f.is_tail() {
                        io.faults.push(format!(
                            "router {node}: worm {} ended inside its header",
                            f.tag
                        ));
                    }
                    u.latch[u.latch_len as usize] = f.data;
                    u.latch_len += 1;
                    u.freed = u.freed.wrapping_add(1);
                    if u.latch_len == 1 && f.data == 0 {
                        io.faults.push(format!(
                            "router {node}: worm {} has an empty destination list",
                            f.tag
                        ));
                    }
                    if u.latch_len == 1 + w && u.latch[0] > 1 {
                        let first = u.latch[1..1 + w as usize]
                            .iter()
                            .fold(0u32, |a, &b| a << 8 | b as u32);
                        if first == node {
                            u.latch_need = 1 + 2 * w;
                        }
                    }
                }
            }
            if let Some(f) = pending
                && u.fifo.push(f).is_err()
            {
                io.faults.push(format!(
                    "router {node}: a flit of worm {} arrived at a full buffer",
                    f.tag
                ));
            }
            if u.freed != u.published {
                u.publish(io.ch);
            }
            if changed >> i & 1 == 1 {
                if u.is_idle() {
                    self.busy &= !(1 << i);
                } else {
                    self.busy |= 1 << i;
                }
            }
        }
    }
}

impl Traced for Router {
    type Env = Channels;

    fn declare(&self, s: &mut ScopeBuilder<'_>) {
        let depth = self.inputs[0].fifo.depth() as u32;
        let pw = bits_for(self.ports() as u32);
        for p in 0..self.ports() {
            s.scope(&format!("in{p}"), |s| {
                s.signal("buf_count", bits_for(depth));
                s.signal("state", 2);
                s.signal("latch_len", 3);
                s.signal("outs", self.ports() as u32);
            });
        }
        for p in 0..self.ports() {
            s.scope(&format!("out{p}"), |s| {
                s.signal("owner", pw + 1);
                s.signal("credits", 16);
                s.signal("valid", 1);
                s.signal("data", 8);
            });
        }
    }

    fn sample(&self, ch: &Channels, s: &mut Sampler<'_>) {
        self.sample_units(ch, u128::MAX, s);
    }

    /// Unit `p` is input `p`'s four signals, unit `64 + p` output `p`'s;
    /// the others keep their values.
    fn sample_units(&self, ch: &Channels, units: u128, s: &mut Sampler<'_>) {
        let n = self.ports();
        let all = if n == 64 { u64::MAX } else { (1 << n) - 1 };
        for i in PortIter(units as u64 & all) {
            self.sample_input(i, s);
        }
        for o in PortIter((units >> 64) as u64 & all) {
            self.sample_output(o, ch, s);
        }
        s.seek(UNIT_SIGNALS * 2 * n as u32);
    }
}

/// Signals of one input or output unit, declared in this order.
const UNIT_SIGNALS: u32 = 4;

impl Router {
    /// `in{i}`'s signals, as one run.
    #[inline(always)]
    fn sample_input(&self, i: usize, s: &mut Sampler<'_>) {
        let u = &self.inputs[i];
        let mut r = s.run_at::<{ UNIT_SIGNALS as usize }>(UNIT_SIGNALS * i as u32);
        r.value(u.fifo.len() as u64);
        r.value(u.state as u64);
        r.value(u.latch_len as u64);
        r.value(self.granted(i));
        r.finish();
    }

    /// `out{o}`'s signals, as one run.
    #[inline(always)]
    fn sample_output(&self, o: usize, ch: &Channels, s: &mut Sampler<'_>) {
        let pw = bits_for(self.ports() as u32);
        let out = &self.outputs[o];
        let at = UNIT_SIGNALS * (self.ports() + o) as u32;
        let mut r = s.run_at::<{ UNIT_SIGNALS as usize }>(at);
        r.value(if out.owner == NONE {
            (1 << (pw + 1)) - 1
        } else {
            out.owner as u64
        });
        let wired = self.wired_out >> o & 1 == 1;
        let free = if wired {
            out.credits.available(ch.credits.q(out.credit_in))
        } else {
            0
        };
        r.value(free.min(0xffff) as u64);
        let f = if wired {
            ch.flits.q(out.link_out)
        } else {
            Flit::default()
        };
        r.bit(f.is_valid());
        r.value(f.data as u64);
        r.finish();
    }
}

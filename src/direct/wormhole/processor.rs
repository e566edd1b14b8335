//! The local processor of a direct-network node, as its router sees it
//! (seed 001 section 2.1): injection engines that send worms on the internal
//! output channels, one flit per cycle with per-flit credits, and
//! consumption engines that take one flit per cycle from the internal input
//! channels and check what arrives. A one-port node has one of each; worms
//! waiting to be sent queue in order and each free injection engine takes
//! the next one.

use crate::rtl::trace::{Sampler, ScopeBuilder, Traced};
use crate::rtl::{ChannelId, bits_for};
use crate::switch::{Channels, CreditCounter, Flit};
use smallvec::SmallVec;
use std::collections::VecDeque;

/// The data byte `i` of worm `tag`'s payload (checked at every destination).
#[inline]
pub(crate) fn payload_byte(tag: u32, i: u32) -> u8 {
    (tag.wrapping_mul(0x9e37_79b9) >> 24) as u8 ^ (i.wrapping_mul(13) as u8)
}

/// A worm's header flits, held in place up to a unicast's with room to
/// spare (a count and an address of up to 3 flits), on the heap beyond.
pub(crate) type Header = SmallVec<[u8; 8]>;

/// A worm waiting to be injected.
#[derive(Clone, Debug)]
pub(crate) struct Outgoing {
    pub tag: u32,
    pub header: Header,
    pub payload: u32,
    /// First cycle it may start (creation + startup latency).
    pub ready: u64,
}

#[derive(Clone, Debug)]
struct Injector {
    link_out: ChannelId,
    credit_in: ChannelId,
    credits: CreditCounter,
    cur: Option<(Outgoing, u32)>,
}

#[derive(Clone, Copy, Debug)]
struct Rx {
    tag: u32,
    idx: u32,
    hdr_len: u32,
    left: u8,
    intact: bool,
}

#[derive(Clone, Debug)]
struct Ejector {
    link_in: ChannelId,
    credit_out: ChannelId,
    freed: u32,
    rx: Option<Rx>,
}

/// A worm copy fully received by a processor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Arrival {
    pub tag: u32,
    pub node: u32,
    pub cycle: u64,
    /// Data flits received.
    pub data: u32,
    /// Every data byte was the one sent.
    pub intact: bool,
    /// Destinations left in the header it carried.
    pub left: u8,
    /// Its head arrived at this cycle.
    pub head: u64,
}

/// What a processor touches in a cycle besides itself.
pub(crate) struct ProcIo<'a> {
    pub cycle: u64,
    pub ch: &'a mut Channels,
    pub arrivals: &'a mut Vec<Arrival>,
    /// (tag, cycle) of worms whose first flit left this cycle.
    pub injected: &'a mut Vec<(u32, u64)>,
    pub faults: &'a mut Vec<String>,
    pub moved: &'a mut bool,
}

/// What a processor needs after a cycle ([`Processor::rest`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rest {
    /// Evaluate it next cycle.
    Busy,
    /// Only a flit arriving gives it work.
    Sleep,
    /// Its next worm may start in this cycle.
    Until(u64),
}

/// A node's processor.
#[derive(Clone, Debug)]
pub(crate) struct Processor {
    node: u32,
    addr_flits: u32,
    inj: Vec<Injector>,
    ej: Vec<Ejector>,
    heads: Vec<u64>,
    pub queue: VecDeque<Outgoing>,
}

/// Wiring of one internal channel pair.
#[derive(Clone, Copy, Debug)]
pub(crate) struct InternalPair {
    pub inject: ChannelId,
    pub inject_credit: ChannelId,
    pub router_slots: u32,
    pub consume: ChannelId,
    pub consume_credit: ChannelId,
}

impl Processor {
    pub fn new(node: u32, addr_flits: u8, pairs: &[InternalPair]) -> Processor {
        Processor {
            node,
            addr_flits: addr_flits as u32,
            inj: pairs
                .iter()
                .map(|p| Injector {
                    link_out: p.inject,
                    credit_in: p.inject_credit,
                    credits: CreditCounter::new(p.router_slots),
                    cur: None,
                })
                .collect(),
            ej: pairs
                .iter()
                .map(|p| Ejector {
                    link_in: p.consume,
                    credit_out: p.consume_credit,
                    freed: 0,
                    rx: None,
                })
                .collect(),
            heads: vec![0; pairs.len()],
            queue: VecDeque::new(),
        }
    }

    /// True when nothing is queued, being sent or being received.
    pub fn is_idle(&self) -> bool {
        self.queue.is_empty()
            && self.inj.iter().all(|i| i.cur.is_none())
            && self.ej.iter().all(|e| e.rx.is_none())
    }

    /// What the processor does after its evaluation in `cycle` while no
    /// flit arrives: it stays busy while it sends a worm (or one may start
    /// next cycle), else it sleeps, until its next worm's start-up ends or
    /// for good.
    pub fn rest(&self, cycle: u64) -> Rest {
        if self.inj.iter().any(|i| i.cur.is_some()) {
            return Rest::Busy;
        }
        match self.queue.front() {
            None => Rest::Sleep,
            Some(w) if w.ready > cycle + 1 => Rest::Until(w.ready),
            Some(_) => Rest::Busy,
        }
    }

    /// Worms queued or being sent.
    pub fn backlog(&self) -> usize {
        self.queue.len() + self.inj.iter().filter(|i| i.cur.is_some()).count()
    }

    #[inline(always)]
    pub fn eval(&mut self, io: &mut ProcIo<'_>) {
        for (j, e) in self.ej.iter_mut().enumerate() {
            let f = io.ch.flits.q(e.link_in);
            if !f.is_valid() {
                continue;
            }
            *io.moved = true;
            e.freed = e.freed.wrapping_add(1);
            io.ch.credits.write(e.credit_out, e.freed);
            if f.is_head() {
                if let Some(rx) = e.rx {
                    io.faults.push(format!(
                        "processor {}: worm {} began before worm {} ended",
                        self.node, f.tag, rx.tag
                    ));
                }
                e.rx = Some(Rx {
                    tag: f.tag,
                    idx: 0,
                    hdr_len: 1 + f.data as u32 * self.addr_flits,
                    left: f.data,
                    intact: true,
                });
                self.heads[j] = io.cycle;
            }
            let Some(rx) = e.rx.as_mut() else {
                io.faults.push(format!(
                    "processor {}: a flit of worm {} with no head",
                    self.node, f.tag
                ));
                continue;
            };
            if f.tag != rx.tag {
                rx.intact = false;
            }
            if rx.idx >= rx.hdr_len && f.data != payload_byte(rx.tag, rx.idx - rx.hdr_len) {
                rx.intact = false;
            }
            rx.idx += 1;
            if f.is_tail() {
                io.arrivals.push(Arrival {
                    tag: rx.tag,
                    node: self.node,
                    cycle: io.cycle,
                    data: rx.idx.saturating_sub(rx.hdr_len),
                    intact: rx.intact,
                    left: rx.left,
                    head: self.heads[j],
                });
                e.rx = None;
            }
        }
        for inj in &mut self.inj {
            if inj.cur.is_none() {
                match self.queue.front() {
                    Some(w) if w.ready <= io.cycle => {
                        inj.cur = Some((self.queue.pop_front().expect("a front"), 0));
                    }
                    _ => continue,
                }
            }
            let (w, pos) = inj.cur.as_mut().expect("a worm");
            if !inj.credits.take(io.ch.credits.q(inj.credit_in)) {
                continue;
            }
            let hl = w.header.len() as u32;
            let len = hl + w.payload;
            let data = if *pos < hl {
                w.header[*pos as usize]
            } else {
                payload_byte(w.tag, *pos - hl)
            };
            let f = Flit::marked(w.tag, *pos as u16, data, *pos == 0, *pos + 1 == len);
            io.ch.flits.write(inj.link_out, f);
            *io.moved = true;
            if *pos == 0 {
                io.injected.push((w.tag, io.cycle));
            }
            *pos += 1;
            if *pos == len {
                inj.cur = None;
            }
        }
    }
}

impl Traced for Processor {
    type Env = Channels;

    fn declare(&self, s: &mut ScopeBuilder<'_>) {
        s.signal("queue", 16);
        for j in 0..self.inj.len() {
            s.scope(&format!("inj{j}"), |s| {
                s.signal("busy", 1);
                s.signal("tag", 32);
            });
        }
        for j in 0..self.ej.len() {
            s.scope(&format!("ej{j}"), |s| {
                s.signal("busy", 1);
                s.signal("tag", 32);
                s.signal("flits", bits_for(u16::MAX as u32));
            });
        }
    }

    fn sample(&self, _: &Channels, s: &mut Sampler<'_>) {
        s.value(self.queue.len().min(0xffff) as u64);
        for i in &self.inj {
            s.value(i.cur.is_some() as u64);
            s.value(i.cur.as_ref().map_or(0, |c| c.0.tag) as u64);
        }
        for e in &self.ej {
            s.value(e.rx.is_some() as u64);
            s.value(e.rx.map_or(0, |r| r.tag) as u64);
            s.value(e.rx.map_or(0, |r| r.idx.min(0xffff)) as u64);
        }
    }
}

//! A traffic endpoint: the stand-in for a node's network interface until the
//! full NI model. It injects packets and worms at link rate (1 flit per
//! cycle, within the switch's credits) and consumes whatever arrives at link
//! rate, checking every flit: right destination, in order, nothing missing,
//! nothing twice, a header that names this node, payload bytes intact. Worms
//! are checked to reach each of their destinations exactly once.

use crate::header::{Formats, Kind};
use crate::link::{
    Delivery, EndpointIo, EndpointWiring, NO_GROUP, PacketRecord, Worm, WormBuilder, WormScratch,
    check_header,
};
use crate::rtl::trace::{Sampler, ScopeBuilder, Traced};
use crate::rtl::{Clocked, Next};
use crate::switch::{Channels, CreditCounter, Flit, Stall, StallAt, WaitOn};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use std::collections::VecDeque;
use std::sync::Arc;

/// Counters of one endpoint. "Window" counters cover packets generated, and
/// flits arriving, at or after the start of the measurement window. A worm
/// counts once when generated and once per destination when delivered.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EndpointStats {
    /// Packets and worms generated in the window.
    pub window_generated: u64,
    /// Flits of those.
    pub window_generated_flits: u64,
    /// Destinations of those (one per unicast packet).
    pub window_generated_dests: u64,
    /// Flits of those times their destinations: the flits the network is
    /// asked to deliver.
    pub window_generated_copy_flits: u64,
    /// Deliveries (a unicast packet, or a worm's copy to one destination) of
    /// packets generated in the window.
    pub window_delivered: u64,
    /// Sum of their latencies (generation to tail arrival).
    pub window_latency_sum: u64,
    /// Largest of their latencies.
    pub window_latency_max: u64,
    /// Sum of their network latencies (first flit sent to tail arrival).
    pub window_net_latency_sum: u64,
    /// Flits that arrived in the window.
    pub window_flits: u64,
    /// Packets refused because the source queue was full.
    pub refused: u64,
    /// Packets whose first flit was sent.
    pub injected_packets: u64,
    /// Flits sent.
    pub injected_flits: u64,
    /// Deliveries received whole.
    pub received_packets: u64,
    /// Flits received.
    pub received_flits: u64,
}

#[derive(Clone, Debug)]
struct Pending {
    created: u64,
    seq: u64,
    dst: u32,
    payload: u16,
    worm: Option<Box<Worm>>,
}

#[derive(Clone, Copy, Debug)]
struct Tx {
    tag: u32,
    idx: u16,
    /// Flits sent into the current chunk of the switch's buffer.
    off: u16,
    len: u16,
    hdr_len: u16,
    dst: u32,
    /// The header is in `Endpoint::tx_hdr` (a worm).
    worm: bool,
}

#[derive(Clone, Copy, Debug)]
struct Generator {
    p: f64,
    ln_q: f64,
    kind: Kind,
    payload: u16,
    degree: u16,
    /// Flits of one packet, header included (unicast) or about (worms).
    len: u16,
    next: u64,
}

impl Generator {
    /// Cycles to the next packet of a Bernoulli process of probability `p`
    /// per cycle: a geometric draw, so idle endpoints need not be evaluated.
    fn gap(&self, rng: &mut Xoshiro256PlusPlus) -> u64 {
        if self.p >= 1.0 {
            return 1;
        }
        // An exponential variate E makes floor(E / -ln(1-p)) + 1 geometric
        // with success probability p (the ziggurat draw is far cheaper than
        // a logarithm per packet).
        let e: f64 = rng.sample(rand_distr::Exp1);
        // The quotient is never negative, so the cast's truncation is the
        // floor (and both saturate alike), without a call to `floor`; a
        // gap too long to count is never reached.
        ((e / -self.ln_q) as u64).saturating_add(1)
    }
}

/// The memory a node's generator draws worms with: the scratch of the
/// draws, and the worms sent whose memory can hold the next ones (a worm
/// started gives its header to the sender and takes the previous
/// header's memory back here).
#[derive(Clone, Debug, Default)]
struct WormMemory {
    scratch: WormScratch,
    // The boxes themselves are kept: a queued packet holds its worm boxed.
    #[allow(clippy::vec_box)]
    spare: Vec<Box<Worm>>,
}

/// The traffic endpoint of one node.
#[derive(Clone, Debug)]
pub struct Endpoint {
    node: u32,
    nodes: u32,
    w: EndpointWiring,
    chunk: u16,
    credit: CreditCounter,
    formats: Formats,
    worms: Arc<WormBuilder>,
    queue: VecDeque<Pending>,
    queue_limit: usize,
    cur: Option<Tx>,
    tx_hdr: Vec<u8>,
    /// What the node's own generator draws its worms with, made at its
    /// first worm.
    worm_mem: Option<Box<WormMemory>>,
    generator: Option<Generator>,
    rng: Xoshiro256PlusPlus,
    rx_tag: Option<u32>,
    rx_next: u16,
    rx_hdr: Vec<u8>,
    rx_hdr_len: u16,
    rx_fill: u16,
    rx_freed: u32,
    /// Freed receive chunks not published before `hold_until`.
    held: u32,
    hold_until: u64,
    since: u64,
    next_seq: u64,
    stats: EndpointStats,
    deliveries: Option<Vec<Delivery>>,
}

impl Endpoint {
    /// The endpoint of `node`.
    pub fn new(
        node: u32,
        wiring: EndpointWiring,
        chunk: u16,
        worms: Arc<WormBuilder>,
        seed: u64,
        queue_limit: usize,
        record: bool,
    ) -> Endpoint {
        let formats = worms.formats();
        Endpoint {
            node,
            nodes: formats.nodes(),
            w: wiring,
            chunk,
            credit: CreditCounter::new(wiring.switch_chunks as u32),
            formats,
            worms,
            queue: VecDeque::new(),
            queue_limit,
            cur: None,
            tx_hdr: Vec::new(),
            worm_mem: None,
            generator: None,
            rng: Xoshiro256PlusPlus::seed_from_u64(
                seed ^ (node as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15),
            ),
            rx_tag: None,
            rx_next: 0,
            rx_hdr: Vec::new(),
            rx_hdr_len: 0,
            rx_fill: 0,
            rx_freed: 0,
            held: 0,
            hold_until: 0,
            since: 0,
            next_seq: 0,
            stats: EndpointStats::default(),
            deliveries: record.then(Vec::new),
        }
    }

    /// Starts Bernoulli generation of `load` flits/cycle of worms of `kind`
    /// (unicast: packets) with `payload` flits after the header and about
    /// `degree` destinations, from cycle `now`. Returns the cycle of the
    /// first packet.
    pub fn start_traffic(
        &mut self,
        load: f64,
        kind: Kind,
        payload: u16,
        degree: u16,
        now: u64,
    ) -> Option<u64> {
        if load <= 0.0 {
            self.generator = None;
            return None;
        }
        let hdr = match kind {
            Kind::Unicast => self.formats.unicast().flits(),
            Kind::Ssr => self.formats.ssr_len(),
            Kind::MultiDrop => self.formats.multidrop_len(1),
            Kind::BitString => self.formats.bitstring_len(),
        };
        let len = hdr as u16 + payload;
        let p = (load / len as f64).min(1.0);
        let mut g = Generator {
            p,
            ln_q: crate::gaps::ln_no_packet(p),
            kind,
            payload,
            degree,
            len,
            next: 0,
        };
        g.next = now.saturating_add(g.gap(&mut self.rng) - 1);
        self.generator = Some(g);
        Some(g.next)
    }

    /// Zeroes the window counters (the measurement window starts now).
    pub fn reset_window(&mut self) {
        self.stats = EndpointStats {
            refused: self.stats.refused,
            injected_packets: self.stats.injected_packets,
            injected_flits: self.stats.injected_flits,
            received_packets: self.stats.received_packets,
            received_flits: self.stats.received_flits,
            ..EndpointStats::default()
        };
    }

    /// Stops generating packets.
    pub fn stop(&mut self) {
        self.generator = None;
    }

    /// Whether its own generator makes packets.
    pub(crate) fn generating(&self) -> bool {
        self.generator.is_some()
    }

    /// The sequence number its next packet gets.
    pub(crate) fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// Queues a unicast packet to `dst` with `payload` flits after its
    /// header (or a worm), generated at `now`. Returns its sequence number,
    /// or `None` if the source queue is full (the packet is counted as
    /// refused).
    pub fn enqueue(
        &mut self,
        dst: u32,
        payload: u16,
        worm: Option<Box<Worm>>,
        now: u64,
    ) -> Option<u64> {
        if self.queue.len() >= self.queue_limit {
            self.stats.refused += 1;
            return None;
        }
        if self.is_idle() {
            self.since = now;
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        self.queue.push_back(Pending {
            created: now,
            seq,
            dst,
            payload,
            worm,
        });
        Some(seq)
    }

    /// Stops freeing receive buffer space until cycle `until`: the switch
    /// output that feeds this node runs out of credits and its branch blocks.
    pub fn hold(&mut self, until: u64) {
        self.hold_until = until;
    }

    /// The node id.
    pub fn node(&self) -> u32 {
        self.node
    }

    /// Its counters.
    pub fn stats(&self) -> &EndpointStats {
        &self.stats
    }

    /// Packets waiting in the source queue (not counting one being sent).
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// True when nothing waits to be sent.
    pub fn is_idle(&self) -> bool {
        self.cur.is_none() && self.queue.is_empty()
    }

    /// Its credits toward its switch and their maximum.
    pub fn credits(&self, ch: &Channels) -> Option<(u32, u32)> {
        Some((
            self.credit.available(ch.credits.q(self.w.credit_in)),
            self.credit.cap,
        ))
    }

    /// Delivered packets, if recorded.
    pub fn deliveries(&self) -> &[Delivery] {
        self.deliveries.as_deref().unwrap_or(&[])
    }

    /// Moves the deliveries recorded so far to the end of `out`.
    pub fn take_deliveries(&mut self, out: &mut Vec<Delivery>) {
        if let Some(d) = &mut self.deliveries {
            out.append(d);
        }
    }

    /// The packet waiting to be sent for longer than `bound`, if any.
    pub fn stall(&self, now: u64, bound: u64) -> Option<Stall> {
        if self.is_idle() || now.saturating_sub(self.since) <= bound {
            return None;
        }
        let waiting = match &self.cur {
            Some(tx) => format!(
                "credits to send flit {} of {} (its switch input buffer is full)",
                tx.idx, tx.len
            ),
            None => "its turn in the source queue".to_string(),
        };
        Some(Stall {
            at: StallAt::Node,
            location: format!("node {} source queue", self.node),
            tag: self.cur.as_ref().map(|t| t.tag),
            waiting,
            since: self.since,
            waits_on: match self.cur {
                Some(_) => vec![WaitOn::Credits(self.w.tx)],
                None => Vec::new(),
            },
        })
    }

    /// Starts sending packet `p` (the link is free).
    fn start(&mut self, p: Pending, io: &mut EndpointIo<'_, crate::ni::Group>) {
        let t = io.link.cycle;
        let (kind, hdr_len) = match &p.worm {
            Some(w) => (w.kind, w.header.len() as u16),
            None => (Kind::Unicast, self.formats.unicast().flits() as u16),
        };
        let len = hdr_len + p.payload;
        let rec = PacketRecord {
            dst: p.dst,
            kind,
            len,
            payload: p.payload,
            created: p.created,
            inject: t,
            seq: p.seq,
            group: NO_GROUP,
        };
        let tag = match &p.worm {
            Some(w) => io.packets.alloc_worm(self.node, rec, &w.dests),
            None => io.packets.alloc(self.node, rec),
        };
        let tag = match tag {
            Ok(tag) => tag,
            Err(e) => {
                let m = e.message(&format!("node {}", self.node), io.packets.max_in_flight());
                io.link.fault(m);
                return;
            }
        };
        let worm = p.worm.is_some();
        if let Some(mut w) = p.worm {
            std::mem::swap(&mut self.tx_hdr, &mut w.header);
            if let Some(m) = &mut self.worm_mem {
                m.spare.push(w);
            }
        }
        self.cur = Some(Tx {
            tag,
            idx: 0,
            off: 0,
            len,
            hdr_len,
            dst: p.dst,
            worm,
        });
        self.stats.injected_packets += 1;
        self.since = t;
    }

    /// Draws the worm of a multicast due this cycle into the memory of a
    /// worm sent before (a call of its own, kept out of the unicast path).
    #[inline(never)]
    fn draw_worm(&mut self, g: Generator) -> Box<Worm> {
        let m = self.worm_mem.get_or_insert_default();
        let mut w = m.spare.pop().unwrap_or_default();
        self.worms.random_into(
            g.kind,
            self.node,
            g.degree as usize,
            &mut self.rng,
            &mut m.scratch,
            &mut w,
        );
        w
    }

    /// Generates the packet due this cycle.
    fn generate(&mut self, g: Generator, io: &mut EndpointIo<'_, crate::ni::Group>) {
        let t = io.link.cycle;
        let (dst, worm) = if g.kind == Kind::Unicast {
            let d = if self.nodes == 1 {
                self.node
            } else {
                let d = self.rng.random_range(0..self.nodes - 1);
                if d >= self.node { d + 1 } else { d }
            };
            (d, None)
        } else {
            (u32::MAX, Some(self.draw_worm(g)))
        };
        if t >= io.window {
            self.stats.window_generated += 1;
            let (flits, dests) = worm.as_ref().map_or((g.len as u64, 1), |w| {
                (
                    (w.header.len() + g.payload as usize) as u64,
                    w.dests.count_ones() as u64,
                )
            });
            self.stats.window_generated_flits += flits;
            self.stats.window_generated_dests += dests;
            self.stats.window_generated_copy_flits += flits * dests;
        }
        if self.is_idle() {
            // An idle source sends a new packet at once.
            let seq = self.next_seq;
            self.next_seq += 1;
            self.start(
                Pending {
                    created: t,
                    seq,
                    dst,
                    payload: g.payload,
                    worm,
                },
                io,
            );
        } else {
            self.enqueue(dst, g.payload, worm, t);
        }
    }

    /// Sends the next flit of the current packet if the switch has room.
    #[inline]
    fn send_next(&mut self, io: &mut EndpointIo<'_, crate::ni::Group>) {
        let Some(tx) = &mut self.cur else { return };
        let new_chunk = tx.idx == 0 || tx.off == self.chunk;
        if new_chunk && !self.credit.take(io.link.freed(self.w.credit_in)) {
            return;
        }
        if new_chunk {
            tx.off = 0;
        }
        tx.off += 1;
        let data = if tx.idx >= tx.hdr_len {
            (tx.idx - tx.hdr_len) as u8
        } else if tx.worm {
            self.tx_hdr[tx.idx as usize]
        } else {
            self.formats.unicast().header_byte(tx.dst, tx.idx as usize)
        };
        io.link
            .send(self.w.tx, Flit::new(tx.tag, tx.idx, tx.len, data));
        self.stats.injected_flits += 1;
        self.since = io.link.cycle;
        tx.idx += 1;
        if tx.idx == tx.len {
            self.cur = None;
        }
    }

    /// Checks a whole received header: it must send the packet to this node.
    fn check_header(&self, hdr: &[u8]) -> Result<(), String> {
        check_header(&self.formats, hdr, self.node, self.w.at)
    }

    fn receive(&mut self, f: Flit, io: &mut EndpointIo<'_, crate::ni::Group>) {
        let t = io.link.cycle;
        let node = self.node;
        if f.is_head() {
            if let Some(cur) = self.rx_tag {
                io.link.fault(format!(
                    "node {node} received the head of packet tag {} while packet tag {cur} was incomplete (flit {} missing)",
                    f.tag, self.rx_next
                ));
                return;
            }
            let wanted = io
                .packets
                .check_arrival(f.tag, node, || format!("node {node}"));
            if let Err(m) = wanted {
                io.link.fault(m);
                return;
            }
            self.rx_tag = Some(f.tag);
            self.rx_next = 0;
            self.rx_hdr.clear();
            self.rx_hdr_len = 0;
        }
        // Flits of one packet arrive back to back on a link: any loss,
        // duplicate or reordering breaks this sequence.
        if self.rx_tag != Some(f.tag) || f.idx != self.rx_next {
            io.link.fault(format!(
                "node {node} received flit {} of packet tag {} but expected flit {} of {:?}: a flit was lost, duplicated or reordered",
                f.idx, f.tag, self.rx_next, self.rx_tag
            ));
            return;
        }
        if self.rx_next == 0 {
            match self.formats.len_of(f.data) {
                Ok(h) => self.rx_hdr_len = h as u16,
                Err(e) => {
                    io.link
                        .fault(format!("node {node}: packet tag {}: {e}", f.tag));
                    return;
                }
            }
        }
        if self.rx_next < self.rx_hdr_len {
            self.rx_hdr.push(f.data);
            if self.rx_hdr.len() == self.rx_hdr_len as usize
                && let Err(m) = self.check_header(&self.rx_hdr)
            {
                io.link
                    .fault(format!("node {node}: packet tag {}: {m}", f.tag));
                return;
            }
        } else {
            let expect = (self.rx_next - self.rx_hdr_len) as u8;
            if f.data != expect {
                io.link.fault(format!(
                    "node {node} received flit {} of packet tag {} with byte {:#04x}, sent as {expect:#04x}",
                    f.idx, f.tag, f.data
                ));
            }
        }
        self.rx_next += 1;
        self.stats.received_flits += 1;
        if t >= io.window {
            self.stats.window_flits += 1;
        }
        self.rx_fill += 1;
        if self.rx_fill == self.chunk || f.is_tail() {
            self.rx_fill = 0;
            if t < self.hold_until {
                self.held += 1;
            } else {
                self.rx_freed = self.rx_freed.wrapping_add(1 + self.held);
                self.held = 0;
                io.link.publish(self.w.credit_out, self.rx_freed);
            }
        }
        if f.is_tail() {
            let Some(rec) = io.packets.get(f.tag) else {
                unreachable!("checked at the head")
            };
            let payload = self.rx_next.saturating_sub(self.rx_hdr_len);
            if self.rx_next < self.rx_hdr_len || payload != rec.payload {
                io.link.fault(format!(
                    "node {node}: packet tag {} ended after {}: {} of {}",
                    f.tag,
                    crate::counted(self.rx_next.into(), "flits"),
                    crate::counted(payload.into(), "payload flits"),
                    rec.payload
                ));
            }
            let arrive = t + 1;
            self.stats.received_packets += 1;
            if rec.created >= io.window {
                let lat = arrive - rec.created;
                self.stats.window_delivered += 1;
                self.stats.window_latency_sum += lat;
                self.stats.window_latency_max = self.stats.window_latency_max.max(lat);
                self.stats.window_net_latency_sum += arrive - rec.inject;
            }
            if let Some(d) = &mut self.deliveries {
                if d.is_empty() {
                    io.delivered.push(node);
                }
                d.push(Delivery {
                    src: io.packets.src_of(f.tag),
                    seq: rec.seq,
                    dst: node,
                    kind: rec.kind,
                    len: self.rx_next,
                    created: rec.created,
                    inject: rec.inject,
                    arrive,
                });
            }
            io.packets.served(f.tag, node, &rec);
            self.rx_tag = None;
        }
    }
}

impl Clocked for Endpoint {
    type Io<'a> = EndpointIo<'a, crate::ni::Group>;

    fn eval(&mut self, io: &mut EndpointIo<'_, crate::ni::Group>) -> Next {
        let t = io.link.cycle;
        if io.link.inbox != 0 {
            let f = io.link.delivered_flit(self.w.rx);
            self.receive(f, io);
        }
        if self.held > 0 && t >= self.hold_until && io.link.inbox == 0 {
            self.rx_freed = self.rx_freed.wrapping_add(self.held);
            self.held = 0;
            io.link.publish(self.w.credit_out, self.rx_freed);
        }
        if let Some(g) = self.generator
            && g.next == t
        {
            self.generate(g, io);
            let gap = g.gap(&mut self.rng);
            if let Some(g) = &mut self.generator {
                g.next = t.saturating_add(gap);
            }
        }
        if self.cur.is_none()
            && let Some(p) = self.queue.pop_front()
        {
            self.start(p, io);
        }
        self.send_next(io);
        if !self.is_idle() {
            return Next::Busy;
        }
        let wake = self.generator.map(|g| g.next);
        let release = (self.held > 0).then_some(self.hold_until);
        match (wake, release) {
            (Some(a), Some(b)) => Next::SleepUntil(a.min(b)),
            (Some(a), None) | (None, Some(a)) => Next::SleepUntil(a),
            (None, None) => Next::Sleep,
        }
    }
}

impl Traced for Endpoint {
    type Env = Channels;

    fn declare(&self, s: &mut ScopeBuilder<'_>) {
        s.signal("src_queue", 32);
        s.signal("tx_busy", 1);
        self.w.declare_link(s);
        s.signal("rx_flits", 32);
        s.signal("rx_packets", 32);
        s.signal("chunks_freed", 16);
    }

    fn sample(&self, ch: &Channels, s: &mut Sampler<'_>) {
        // Every signal in one run (`declare`'s order).
        let mut r = s.run::<10>();
        r.value(self.queue.len() as u64 & 0xffff_ffff);
        r.bit(self.cur.is_some());
        for v in self.w.link_values(&self.credit, ch) {
            r.value(v);
        }
        r.value(self.stats.received_flits & 0xffff_ffff);
        r.value(self.stats.received_packets & 0xffff_ffff);
        r.value(ch.credits.q(self.w.credit_out) as u64 & 0xffff);
        r.finish();
    }
}

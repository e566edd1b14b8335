//! One node: a host and its network interface, clocked.
//!
//! Within a cycle the parts act in this order, each seeing what the parts
//! before it did in the same cycle:
//!
//! 1. the receive engine stores the flit on the incoming link; a packet
//!    whose tail it stores in cycle `t` is in the receive queue from `t+1`;
//! 2. the I/O bus finishes the transfer whose last byte moved in the
//!    previous cycle (the data is in place from this cycle);
//! 3. the host finishes its overhead if it ends now (a send queues the
//!    message's packets on the I/O bus; a receive delivers the message) and
//!    starts its next job;
//! 4. the NI processor finishes its operation if it ends now (a receive
//!    queues the packet's copy to the host; a send queues a copy on the send
//!    engine) and starts the next operation whose packet is there, taking
//!    the message programs in the order they were created;
//! 5. the I/O bus starts its next transfer; a transfer queued before the
//!    last one finished continues the same busy period, so over
//!    back-to-back transfers the bus moves exactly `bus_num / bus_den`
//!    bytes per cycle;
//! 6. the send engine drives the next flit of its copy (the first flit in
//!    the cycle the copy was queued if the engine is free), within the
//!    switch's credits;
//! 7. freed receive-queue chunks are published to the switch.
//!
//! Every operation of the processor and the host occupies it for its whole
//! overhead: an operation started in cycle `t` with overhead `T` finishes
//! at `t + T`, when the next one can start.
//!
//! The network interface runs one program per message, in the order of
//! seed 000 Fig. 6: a source sends every packet to every child (FPFS: per
//! packet, then per child; FCFS: per child, then per packet); an
//! intermediate destination receives each packet and forwards it (FPFS:
//! after each receive, to every child; FCFS: each packet to the first child
//! as it is received, then all of them to each other child); a destination
//! receives each packet. Every destination's NI copies each received
//! packet to its host, and the host pays `t_hr` when the whole message is
//! in host memory.

use super::{CONTROL_BYTES, Group, HostOverhead, NiTiming, Scheme};
use crate::header::{Formats, Kind, UnicastFormat};
use crate::link::{EndpointIo, EndpointWiring, NO_GROUP, PacketRecord, check_header};
use crate::mcast::Discipline;
use crate::rtl::trace::{Sampler, ScopeBuilder, Traced};
use crate::rtl::{Clocked, Next, bits_for};
use crate::switch::{Channels, CreditCounter, Flit, Stall, StallAt, WaitOn};
use rustc_hash::FxHashMap;
use serde::Serialize;
use std::collections::VecDeque;

const KIND_MSG: u8 = 1;
const KIND_SMART: u8 = 2;
const KIND_CONV: u8 = 3;
const KIND_WORM: u8 = 4;
const NO_VERTEX: u16 = u16::MAX;
const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MsgRef {
    Out(u32),
    In(u32),
}

/// A message this node sends.
#[derive(Clone, Debug)]
struct OutMsg {
    id: u16,
    kind: u8,
    group: u16,
    /// The vertex this node is in the group's tree (conventional: the
    /// receiving child's, per copy in `dests`).
    m: u8,
    /// (node, tree vertex) of each receiver, in serving order.
    dests: Vec<(u32, u16)>,
    /// Send-queue slot of each packet once it is in NI memory.
    slot: Vec<u32>,
    /// Packets not yet released from the send queue.
    live: u8,
    /// A worm message: (tree vertex of this node, index among its sends).
    worm: Option<(u16, u16)>,
    /// Packets the host has prepared (the host's overhead per packet).
    host_done: u8,
}

/// A message this node receives (and may forward).
#[derive(Clone, Debug)]
struct InMsg {
    origin: u32,
    id: u16,
    kind: u8,
    group: u16,
    m: u8,
    children: Vec<(u32, u16)>,
    slot: Vec<u32>,
    /// Cycle each packet is in the receive queue from (`u64::MAX` before).
    avail: Vec<u64>,
    /// Packets copied to the host.
    in_host: u8,
    /// Packets not yet released from the receive queue.
    live: u8,
    /// Packets whose receive overhead the host has paid (the host's
    /// overhead per packet).
    host_recv: u8,
    delivered: bool,
}

/// A packet in NI memory.
#[derive(Clone, Debug)]
struct Slot {
    send_queue: bool,
    msg: MsgRef,
    j: u8,
    /// Copies queued on the send engine and not yet sent whole.
    copies: u32,
    /// Sends the program has still to make of it.
    sends_left: u32,
    host_pending: bool,
    alloc_at: u64,
    read_at: Option<u64>,
    last_send: Option<u64>,
    chunks: u32,
    bytes: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Recv(u8),
    /// Packet, index into the message's receivers.
    Send(u8, u16),
}

#[derive(Clone, Debug)]
struct Program {
    msg: MsgRef,
    ops: Vec<Op>,
    pc: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dir {
    ToNi,
    ToHost,
}

#[derive(Clone, Copy, Debug)]
struct Xfer {
    dir: Dir,
    msg: MsgRef,
    j: u8,
    /// Receive-queue slot (to host); send-queue slot once started (to NI).
    slot: u32,
    queued_at: u64,
}

#[derive(Clone, Copy, Debug)]
struct TxCopy {
    slot: u32,
    dest: u32,
    /// A worm: (group, sender's vertex, index among its sends).
    worm: Option<(u16, u16, u16)>,
    ctrl: [u8; CONTROL_BYTES as usize],
    queued_at: u64,
}

#[derive(Clone, Copy, Debug)]
struct TxCur {
    copy: TxCopy,
    tag: u32,
    idx: u16,
    off: u16,
    /// Header flits of this copy.
    hdr: u16,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum HostJob {
    Send(u32),
    Recv(u32),
}

/// A message the host received whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct HostDelivery {
    /// The node that sent the message first (a multicast's source).
    pub origin: u32,
    /// Its message number at that node.
    pub msg: u16,
    /// The multicast, by the number the system gave it when it started
    /// ([`Group::id`]), if the message is part of one.
    pub group: Option<u64>,
    /// Cycle the host finished receiving it (after `t_hr`).
    pub cycle: u64,
}

/// How long one packet stayed in NI memory (seed 000 section 4.2.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Holding {
    /// The message's origin and number.
    pub origin: u32,
    /// See `origin`.
    pub msg: u16,
    /// Packet index.
    pub packet: u8,
    /// In the send queue (at the source) or the receive queue.
    pub send_queue: bool,
    /// Cycle it took space in the queue.
    pub alloc_at: u64,
    /// Cycle the processor read it: the end of its receive, or at the
    /// source the start of its first send.
    pub read_at: Option<u64>,
    /// Cycle the processor finished its last send of it.
    pub last_send: Option<u64>,
    /// Cycle its space was free again.
    pub freed_at: u64,
}

impl Holding {
    /// The interval of section 4.2.3: from reading the packet to the end
    /// of its last send (`T_c` or `T_p`), if it was forwarded.
    pub fn forwarding_time(&self) -> Option<u64> {
        Some(self.last_send? - self.read_at?)
    }
}

/// How long one packet took through the network to this node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PacketArrival {
    /// The node that sent this copy.
    pub from: u32,
    /// Packet index in its message.
    pub packet: u8,
    /// Cycle its first flit left the sender.
    pub inject: u64,
    /// Cycle it was in the receive queue from.
    pub arrive: u64,
}

/// Counters of one node.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct NiStats {
    /// Packet copies sent onto the link.
    pub packets_sent: u64,
    /// Packets received from the link.
    pub packets_received: u64,
    /// Messages the host sent.
    pub messages_sent: u64,
    /// Messages the host received.
    pub messages_received: u64,
    /// Most bytes in the send queue at once.
    pub max_send_queue: u32,
    /// Most bytes in the receive queue at once.
    pub max_recv_queue: u32,
    /// Every packet's stay in NI memory, in the order they left.
    pub holdings: Vec<Holding>,
    /// Every packet received, in order.
    pub arrivals: Vec<PacketArrival>,
}

/// The host and network interface of one node.
#[derive(Clone, Debug)]
pub struct NiNode {
    node: u32,
    w: EndpointWiring,
    chunk: u16,
    t: NiTiming,
    formats: Formats,
    unicast: UnicastFormat,
    hdr: u16,
    // Host.
    host_op: Option<(HostJob, u64)>,
    host_jobs: VecDeque<HostJob>,
    // I/O bus.
    bus_queue: VecDeque<Xfer>,
    bus_cur: Option<(Xfer, u64)>,
    period_start: u64,
    period_bytes: u64,
    // Processor.
    proc_op: Option<(MsgRef, Op, u64)>,
    programs: Vec<Program>,
    // NI memory.
    slots: Vec<Option<Slot>>,
    free_slots: Vec<u32>,
    sq_bytes: u32,
    rq_bytes: u32,
    rq_chunks: u32,
    // Receive engine.
    rx_tag: Option<u32>,
    rx_next: u16,
    rx_hdr_len: u16,
    rx_bytes: Vec<u8>,
    rx_slot: u32,
    rx_freed: u32,
    rx_publish: bool,
    // Send engine.
    tx_queue: VecDeque<TxCopy>,
    tx_cur: Option<TxCur>,
    credit: CreditCounter,
    // Messages.
    outs: Vec<Option<OutMsg>>,
    free_outs: Vec<u32>,
    ins: Vec<Option<InMsg>>,
    free_ins: Vec<u32>,
    in_index: FxHashMap<(u32, u16), u32>,
    next_msg: u16,
    since: u64,
    stats: NiStats,
    deliveries: Vec<HostDelivery>,
    /// Deliveries already taken ([`NiNode::take_new_deliveries`]).
    taken: usize,
}

fn take<T>(v: &mut Vec<Option<T>>, free: &mut Vec<u32>, x: T) -> u32 {
    match free.pop() {
        Some(i) => {
            v[i as usize] = Some(x);
            i
        }
        None => {
            v.push(Some(x));
            (v.len() - 1) as u32
        }
    }
}

impl NiNode {
    /// The node `node`, wired as `wiring`, for a network whose headers are
    /// `formats`, with receive buffers of `chunk`-flit chunks.
    pub fn new(
        node: u32,
        formats: Formats,
        wiring: EndpointWiring,
        chunk: u16,
        t: NiTiming,
    ) -> NiNode {
        let unicast = formats.unicast();
        NiNode {
            node,
            w: wiring,
            chunk,
            t,
            formats,
            unicast,
            hdr: unicast.flits() as u16,
            host_op: None,
            host_jobs: VecDeque::new(),
            bus_queue: VecDeque::new(),
            bus_cur: None,
            period_start: 0,
            period_bytes: 0,
            proc_op: None,
            programs: Vec::new(),
            slots: Vec::new(),
            free_slots: Vec::new(),
            sq_bytes: 0,
            rq_bytes: 0,
            rq_chunks: 0,
            rx_tag: None,
            rx_next: 0,
            rx_hdr_len: 0,
            rx_bytes: Vec::new(),
            rx_slot: NONE,
            rx_freed: 0,
            rx_publish: false,
            tx_queue: VecDeque::new(),
            tx_cur: None,
            credit: CreditCounter::new(wiring.switch_chunks as u32),
            outs: Vec::new(),
            free_outs: Vec::new(),
            ins: Vec::new(),
            free_ins: Vec::new(),
            in_index: FxHashMap::default(),
            next_msg: 0,
            since: 0,
            stats: NiStats::default(),
            deliveries: Vec::new(),
            taken: 0,
        }
    }

    /// The node id.
    pub fn node(&self) -> u32 {
        self.node
    }

    /// Its counters.
    pub fn stats(&self) -> &NiStats {
        &self.stats
    }

    /// Messages its host received, in order.
    pub fn deliveries(&self) -> &[HostDelivery] {
        &self.deliveries
    }

    /// The messages received whole since the last call.
    pub fn take_new_deliveries(&mut self) -> &[HostDelivery] {
        let from = std::mem::replace(&mut self.taken, self.deliveries.len());
        &self.deliveries[from..]
    }

    /// Messages the host has still to send or receive, the one under way
    /// included.
    pub fn host_backlog(&self) -> usize {
        self.host_jobs.len() + self.host_op.is_some() as usize
    }

    /// True when the host, the NI and its engines have nothing to do.
    pub fn is_idle(&self) -> bool {
        self.host_op.is_none()
            && self.host_jobs.is_empty()
            && self.programs.is_empty()
            && self.proc_op.is_none()
            && self.bus_cur.is_none()
            && self.bus_queue.is_empty()
            && self.tx_cur.is_none()
            && self.tx_queue.is_empty()
            && self.rx_tag.is_none()
            && self.slots.iter().all(Option::is_none)
    }

    /// Its credits toward its switch and their maximum.
    pub fn credits(&self, ch: &Channels) -> (u32, u32) {
        (
            self.credit.available(ch.credits.q(self.w.credit_in)),
            self.credit.cap,
        )
    }

    fn new_msg_id(&mut self) -> u16 {
        let id = self.next_msg;
        self.next_msg = self.next_msg.wrapping_add(1);
        id
    }

    /// The host starts sending a message of `m` packets at `now`: to node
    /// `dst` (`group` = `None`), or as the source of multicast group
    /// `group` whose tree is `g`. Returns the message number.
    pub fn send(&mut self, now: u64, m: u8, dst: u32, group: Option<(u16, &Group)>) -> u16 {
        if self.is_idle() {
            self.since = now;
        }
        let first = self.next_msg;
        match group {
            None => self.push_out(KIND_MSG, NO_GROUP as u16, m, vec![(dst, NO_VERTEX)]),
            Some((gid, g)) if g.scheme == Scheme::Worms => self.push_worms(gid, m, g, 0),
            Some((gid, g)) => {
                let kids: Vec<(u32, u16)> = g
                    .tree
                    .children(0)
                    .iter()
                    .map(|&c| (g.tree.node(c), c as u16))
                    .collect();
                match g.scheme {
                    Scheme::SmartNi(_) => self.push_out(KIND_SMART, gid, m, kids),
                    // One message per child, each with its own t_hs.
                    Scheme::Conventional => {
                        for k in kids {
                            self.push_out(KIND_CONV, gid, m, vec![k]);
                        }
                    }
                    Scheme::Worms => unreachable!("matched above"),
                }
            }
        }
        first
    }

    fn push_out(&mut self, kind: u8, group: u16, m: u8, dests: Vec<(u32, u16)>) {
        self.push_msg(kind, group, m, dests, None);
    }

    fn push_msg(
        &mut self,
        kind: u8,
        group: u16,
        m: u8,
        dests: Vec<(u32, u16)>,
        worm: Option<(u16, u16)>,
    ) {
        let id = self.new_msg_id();
        let o = OutMsg {
            id,
            kind,
            group,
            m,
            dests,
            slot: vec![NONE; m as usize],
            live: m,
            worm,
            host_done: 0,
        };
        let i = take(&mut self.outs, &mut self.free_outs, o);
        self.host_jobs.push_back(HostJob::Send(i));
    }

    /// The host sends the worms of tree vertex `v` of group `gid`, one
    /// message each, in order.
    fn push_worms(&mut self, gid: u16, m: u8, g: &Group, v: usize) {
        for k in 0..g.sends.get(v).map_or(0, Vec::len) {
            self.push_msg(
                KIND_WORM,
                gid,
                m,
                vec![(NONE, NO_VERTEX)],
                Some((v as u16, k as u16)),
            );
        }
    }

    /// The control bytes of a copy: kind, origin (low 16 bits), message,
    /// group, the receiver's tree vertex, packet index and count.
    fn ctrl(
        kind: u8,
        (origin, id, group): (u32, u16, u16),
        vertex: u16,
        j: u8,
        m: u8,
    ) -> [u8; CONTROL_BYTES as usize] {
        let o = origin.to_be_bytes();
        let i = id.to_be_bytes();
        let g = group.to_be_bytes();
        let v = vertex.to_be_bytes();
        [kind, o[2], o[3], i[0], i[1], g[0], g[1], v[0], v[1], j, m]
    }

    // --- Host -----------------------------------------------------------

    /// Finishes the host's job ending now and starts the next one; a job
    /// of no cycles (`t_hr = 0`) finishes in the cycle it starts.
    fn host_step(&mut self, t: u64, groups: &[Group], hosts: &mut Vec<(u32, u16)>) {
        loop {
            self.host_finish(t, groups, hosts);
            if self.host_op.is_some() || !self.host_start(t) {
                return;
            }
        }
    }

    fn host_finish(&mut self, t: u64, groups: &[Group], hosts: &mut Vec<(u32, u16)>) {
        if let Some((job, until)) = self.host_op
            && until == t
        {
            self.host_op = None;
            match job {
                HostJob::Send(o) => {
                    let out = self.outs[o as usize].as_mut().expect("live message");
                    let m = out.m;
                    // Packets the host hands to the I/O bus now: every one
                    // (overhead per message), or the next (per packet; the
                    // host goes on with the message's following packet).
                    let first = out.host_done;
                    let upto = if self.t.host_overhead == HostOverhead::PerPacketPipelined {
                        first + 1
                    } else {
                        m
                    };
                    out.host_done = upto;
                    for j in first..upto {
                        self.bus_queue.push_back(Xfer {
                            dir: Dir::ToNi,
                            msg: MsgRef::Out(o),
                            j,
                            slot: NONE,
                            queued_at: t,
                        });
                    }
                    if upto < m {
                        self.host_jobs.push_front(HostJob::Send(o));
                    }
                    if first > 0 {
                        // The NI's program started with the first packet.
                        return;
                    }
                    self.stats.messages_sent += 1;
                    // The NI's program for it.
                    let msg = self.outs[o as usize].as_ref().expect("live message");
                    let n = msg.dests.len() as u16;
                    let disc = match msg.kind {
                        KIND_SMART => match groups[msg.group as usize].scheme {
                            Scheme::SmartNi(d) => d,
                            Scheme::Conventional | Scheme::Worms => Discipline::Fpfs,
                        },
                        _ => Discipline::Fpfs,
                    };
                    let ops: Vec<Op> = match disc {
                        Discipline::Fpfs => (0..m)
                            .flat_map(|j| (0..n).map(move |c| Op::Send(j, c)))
                            .collect(),
                        Discipline::Fcfs => (0..n)
                            .flat_map(|c| (0..m).map(move |j| Op::Send(j, c)))
                            .collect(),
                    };
                    self.programs.push(Program {
                        msg: MsgRef::Out(o),
                        ops,
                        pc: 0,
                    });
                }
                HostJob::Recv(i) => {
                    let msg = self.ins[i as usize].as_mut().expect("live message");
                    if self.t.host_overhead == HostOverhead::PerPacketPipelined {
                        msg.host_recv += 1;
                        if msg.host_recv < msg.m {
                            return;
                        }
                    }
                    msg.delivered = true;
                    let in_group = msg.group != NO_GROUP as u16;
                    self.deliveries.push(HostDelivery {
                        origin: msg.origin,
                        msg: msg.id,
                        group: in_group.then(|| groups[msg.group as usize].id),
                        cycle: t,
                    });
                    hosts.push((self.node, msg.group));
                    self.stats.messages_received += 1;
                    if msg.kind == KIND_CONV {
                        // Conventional multicast: the host sends the whole
                        // message on to each child.
                        let (g, m) = (msg.group, msg.m);
                        let kids = msg.children.clone();
                        for k in kids {
                            self.push_out(KIND_CONV, g, m, vec![k]);
                        }
                    } else if msg.kind == KIND_WORM {
                        // Its worms of the next phases, each a message.
                        let (gid, m) = (msg.group, msg.m);
                        let g = &groups[gid as usize];
                        if let Some(v) = g.tree.vertex_of(self.node) {
                            self.push_worms(gid, m, g, v);
                        }
                    }
                    self.maybe_free_in(i);
                }
            }
        }
    }

    /// Starts the host's next job, if any.
    fn host_start(&mut self, t: u64) -> bool {
        let Some(job) = self.host_jobs.pop_front() else {
            return false;
        };
        // A whole message at a time, per packet: m overheads in one go.
        let m = |per: bool, m: u8| if per { m as u64 } else { 1 };
        let per = self.t.host_overhead == HostOverhead::PerPacket;
        let d = match job {
            HostJob::Send(o) => {
                self.t.t_hs * m(per, self.outs[o as usize].as_ref().expect("live").m)
            }
            HostJob::Recv(i) => {
                self.t.t_hr * m(per, self.ins[i as usize].as_ref().expect("live").m)
            }
        };
        self.host_op = Some((job, t + d));
        true
    }

    // --- I/O bus ----------------------------------------------------------

    /// Finishes the transfer whose last byte moved before `t`, and starts
    /// the next one if it continues the busy period.
    fn bus_finish(&mut self, t: u64) {
        while let Some((x, done)) = self.bus_cur {
            if done >= t {
                break;
            }
            self.bus_cur = None;
            match x.dir {
                Dir::ToNi => {
                    let MsgRef::Out(o) = x.msg else {
                        unreachable!("to NI is for out messages")
                    };
                    self.outs[o as usize].as_mut().expect("live").slot[x.j as usize] = x.slot;
                }
                Dir::ToHost => {
                    let s = self.slots[x.slot as usize].as_mut().expect("live slot");
                    s.host_pending = false;
                    let MsgRef::In(i) = x.msg else {
                        unreachable!("to host is for in messages")
                    };
                    let msg = self.ins[i as usize].as_mut().expect("live");
                    msg.in_host += 1;
                    // The host pays its receive overhead per packet as each
                    // lands, or once when the whole message is in.
                    if self.t.host_overhead == HostOverhead::PerPacketPipelined
                        || msg.in_host == msg.m
                    {
                        self.host_jobs.push_back(HostJob::Recv(i));
                    }
                    self.maybe_free_slot(x.slot, t);
                }
            }
            // A transfer queued while this one ran continues the period.
            if let Some(k) = self.next_xfer()
                && self.bus_queue[k].queued_at <= done
            {
                if !self.bus_start(k, t, false) {
                    break;
                }
            } else {
                break;
            }
        }
    }

    /// The transfer the I/O bus takes next: the queue's front, unless it is
    /// a copy into a full send queue; then the first copy to the host
    /// behind it (the two directions have their own DMA descriptor
    /// queues, so a full send queue never keeps received packets from
    /// reaching the host, which would deadlock a node that both sends
    /// and receives).
    fn next_xfer(&self) -> Option<usize> {
        let front = self.bus_queue.front()?;
        if front.dir == Dir::ToHost || self.sq_bytes + self.t.packet <= self.t.send_queue {
            return Some(0);
        }
        self.bus_queue.iter().position(|x| x.dir == Dir::ToHost)
    }

    /// Starts transfer `k` of the queue: in a new busy period at `t`, or
    /// continuing the current one. False if it needs send-queue space that
    /// is not there.
    fn bus_start(&mut self, k: usize, t: u64, new_period: bool) -> bool {
        let mut x = self.bus_queue[k];
        let bytes = self.t.packet;
        if x.dir == Dir::ToNi {
            if self.sq_bytes + bytes > self.t.send_queue {
                return false;
            }
            self.sq_bytes += bytes;
            self.stats.max_send_queue = self.stats.max_send_queue.max(self.sq_bytes);
            let MsgRef::Out(o) = x.msg else {
                unreachable!()
            };
            x.slot = self.alloc_slot(Slot {
                send_queue: true,
                msg: x.msg,
                j: x.j,
                copies: 0,
                sends_left: self.outs[o as usize].as_ref().expect("live").dests.len() as u32,
                host_pending: false,
                alloc_at: t,
                read_at: None,
                last_send: None,
                chunks: 0,
                bytes,
            });
        }
        self.bus_queue.remove(k);
        if new_period {
            self.period_start = t;
            self.period_bytes = 0;
        }
        self.period_bytes += bytes as u64;
        let done = self.period_start + self.t.bus_cycles(self.period_bytes) - 1;
        self.bus_cur = Some((x, done));
        true
    }

    fn alloc_slot(&mut self, s: Slot) -> u32 {
        take(&mut self.slots, &mut self.free_slots, s)
    }

    // --- Processor ----------------------------------------------------------

    fn op_ready(&self, msg: MsgRef, op: Op, t: u64) -> bool {
        match (msg, op) {
            (MsgRef::In(i), Op::Recv(j)) => {
                self.ins[i as usize].as_ref().expect("live").avail[j as usize] <= t
            }
            (MsgRef::Out(o), Op::Send(j, _)) => {
                self.outs[o as usize].as_ref().expect("live").slot[j as usize] != NONE
            }
            // Forwarding: the program received the packet before.
            (MsgRef::In(_), Op::Send(..)) => true,
            (MsgRef::Out(_), Op::Recv(_)) => unreachable!("a sender does not receive"),
        }
    }

    fn slot_of(&self, msg: MsgRef, j: u8) -> u32 {
        match msg {
            MsgRef::Out(o) => self.outs[o as usize].as_ref().expect("live").slot[j as usize],
            MsgRef::In(i) => self.ins[i as usize].as_ref().expect("live").slot[j as usize],
        }
    }

    /// Finishes the operation ending now and starts the next one; an
    /// operation of no cycles (`t_nr = 0`) finishes in the cycle it starts,
    /// and the next one starts in the same cycle.
    fn proc_step(&mut self, t: u64, node: u32) {
        loop {
            self.proc_finish(t, node);
            if self.proc_op.is_some() || !self.proc_start(t) {
                return;
            }
        }
    }

    fn proc_finish(&mut self, t: u64, node: u32) {
        if let Some((msg, op, until)) = self.proc_op
            && until == t
        {
            self.proc_op = None;
            let slot = self.slot_of(
                msg,
                match op {
                    Op::Recv(j) | Op::Send(j, _) => j,
                },
            );
            match op {
                Op::Recv(j) => {
                    let s = self.slots[slot as usize].as_mut().expect("live slot");
                    s.read_at = Some(t);
                    s.host_pending = true;
                    self.bus_queue.push_back(Xfer {
                        dir: Dir::ToHost,
                        msg,
                        j,
                        slot,
                        queued_at: t,
                    });
                }
                Op::Send(j, c) => {
                    let (dest, ctrl, worm) = match msg {
                        MsgRef::Out(o) => {
                            let m = self.outs[o as usize].as_ref().expect("live");
                            let (d, v) = m.dests[c as usize];
                            (
                                d,
                                Self::ctrl(m.kind, (node, m.id, m.group), v, j, m.m),
                                m.worm.map(|(v, k)| (m.group, v, k)),
                            )
                        }
                        MsgRef::In(i) => {
                            let m = self.ins[i as usize].as_ref().expect("live");
                            let (d, v) = m.children[c as usize];
                            (
                                d,
                                Self::ctrl(m.kind, (m.origin, m.id, m.group), v, j, m.m),
                                None,
                            )
                        }
                    };
                    let s = self.slots[slot as usize].as_mut().expect("live slot");
                    s.sends_left -= 1;
                    s.copies += 1;
                    s.last_send = Some(t);
                    self.tx_queue.push_back(TxCopy {
                        slot,
                        dest,
                        worm,
                        ctrl,
                        queued_at: t,
                    });
                }
            }
        }
    }

    /// Starts the next operation whose packet is there, if any.
    fn proc_start(&mut self, t: u64) -> bool {
        let mut k = 0;
        while k < self.programs.len() {
            let p = &self.programs[k];
            if p.pc == p.ops.len() {
                self.programs.remove(k);
                continue;
            }
            let (msg, op) = (p.msg, p.ops[p.pc]);
            if self.op_ready(msg, op, t) {
                self.programs[k].pc += 1;
                let d = match op {
                    Op::Recv(_) => self.t.t_nr,
                    Op::Send(j, _) => {
                        let slot = self.slot_of(msg, j);
                        let s = self.slots[slot as usize].as_mut().expect("live slot");
                        if s.send_queue && s.read_at.is_none() {
                            s.read_at = Some(t);
                        }
                        self.t.t_ns
                    }
                };
                self.proc_op = Some((msg, op, t + d));
                if self.programs[k].pc == self.programs[k].ops.len() {
                    self.programs.remove(k);
                }
                return true;
            }
            k += 1;
        }
        false
    }

    // --- NI memory --------------------------------------------------------

    fn maybe_free_slot(&mut self, slot: u32, t: u64) {
        let s = self.slots[slot as usize].as_ref().expect("live slot");
        if s.copies > 0
            || s.sends_left > 0
            || s.host_pending
            || (!s.send_queue && s.read_at.is_none())
        {
            return;
        }
        let s = self.slots[slot as usize].take().expect("live slot");
        self.free_slots.push(slot);
        let (origin, msg) = match s.msg {
            MsgRef::Out(o) => {
                let m = self.outs[o as usize].as_mut().expect("live");
                m.live -= 1;
                (self.node, m.id)
            }
            MsgRef::In(i) => {
                let m = self.ins[i as usize].as_mut().expect("live");
                m.live -= 1;
                (m.origin, m.id)
            }
        };
        self.stats.holdings.push(Holding {
            origin,
            msg,
            packet: s.j,
            send_queue: s.send_queue,
            alloc_at: s.alloc_at,
            read_at: s.read_at,
            last_send: s.last_send,
            freed_at: t,
        });
        if s.send_queue {
            self.sq_bytes -= s.bytes;
            let MsgRef::Out(o) = s.msg else {
                unreachable!()
            };
            if self.outs[o as usize].as_ref().expect("live").live == 0 {
                self.outs[o as usize] = None;
                self.free_outs.push(o);
            }
        } else {
            self.rq_bytes -= s.bytes;
            self.rq_chunks -= s.chunks;
            self.rx_freed = self.rx_freed.wrapping_add(s.chunks);
            self.rx_publish = true;
            let MsgRef::In(i) = s.msg else { unreachable!() };
            self.maybe_free_in(i);
        }
    }

    fn maybe_free_in(&mut self, i: u32) {
        let m = self.ins[i as usize].as_ref().expect("live");
        if m.live == 0 && m.delivered {
            self.in_index.remove(&(m.origin, m.id));
            self.ins[i as usize] = None;
            self.free_ins.push(i);
        }
    }

    // --- Receive engine -----------------------------------------------------

    fn receive(&mut self, f: Flit, io: &mut EndpointIo<'_, super::Group>) {
        let t = io.link.cycle;
        let node = self.node;
        if f.is_head() {
            if let Some(cur) = self.rx_tag {
                io.link.fault(format!(
                    "NI {node} received the head of packet tag {} while packet tag {cur} was incomplete",
                    f.tag
                ));
                return;
            }
            if let Err(m) = io
                .packets
                .check_arrival(f.tag, node, || format!("NI {node}"))
            {
                io.link.fault(m);
                return;
            }
            match self.formats.len_of(f.data) {
                Ok(h) => self.rx_hdr_len = h as u16,
                Err(e) => {
                    io.link
                        .fault(format!("NI {node}: packet tag {}: {e}", f.tag));
                    return;
                }
            }
            // The credits this packet takes are the chunks its flits fill in
            // the receive buffer, header included: the switch took one per
            // chunk it started, and the header it sent may be shorter than
            // the one its source wrote (a multi-drop worm's delivered copy
            // has lost the pairs of the switches before) or longer.
            let Some(flits) = io
                .packets
                .get(f.tag)
                .map(|r| self.rx_hdr_len as u32 + r.payload as u32)
            else {
                unreachable!("checked by check_arrival")
            };
            let chunks = flits.div_ceil(self.chunk as u32);
            self.rq_chunks += chunks;
            self.rq_bytes += self.t.packet;
            self.stats.max_recv_queue = self.stats.max_recv_queue.max(self.rq_bytes);
            self.rx_slot = self.alloc_slot(Slot {
                send_queue: false,
                msg: MsgRef::In(NONE),
                j: 0,
                copies: 0,
                sends_left: 0,
                host_pending: false,
                alloc_at: t,
                read_at: None,
                last_send: None,
                chunks,
                bytes: self.t.packet,
            });
            self.rx_tag = Some(f.tag);
            self.rx_next = 0;
            self.rx_bytes.clear();
        }
        if self.rx_tag != Some(f.tag) || f.idx != self.rx_next {
            io.link.fault(format!(
                "NI {node} received flit {} of packet tag {} but expected flit {} of {:?}",
                f.idx, f.tag, self.rx_next, self.rx_tag
            ));
            return;
        }
        let h = self.rx_hdr_len;
        if f.idx < h + CONTROL_BYTES as u16 {
            self.rx_bytes.push(f.data);
        } else if f.data != (f.idx - h) as u8 {
            io.link.fault(format!(
                "NI {node} received flit {} of packet tag {} with byte {:#04x}, sent as {:#04x}",
                f.idx,
                f.tag,
                f.data,
                (f.idx - h) as u8
            ));
        }
        self.rx_next += 1;
        self.stats.packets_received += f.is_tail() as u64;
        if !f.is_tail() {
            return;
        }
        let Some(rec) = io.packets.get(f.tag) else {
            unreachable!("checked at the head")
        };
        if self.rx_next != h + rec.payload {
            io.link.fault(format!(
                "NI {node}: packet tag {} ended after {}; it was sent with {} after its header",
                f.tag,
                crate::counted(self.rx_next.into(), "flits"),
                crate::counted(rec.payload.into(), "flits")
            ));
            return;
        }
        let from = io.packets.src_of(f.tag);
        io.packets.served(f.tag, node, &rec);
        self.rx_tag = None;
        if let Err(e) = check_header(&self.formats, &self.rx_bytes[..h as usize], node, self.w.at) {
            io.link
                .fault(format!("NI {node}: packet tag {}: {e}", f.tag));
            return;
        }
        let inject = rec.inject;
        let c = &self.rx_bytes[h as usize..];
        let kind = c[0];
        let origin = u16::from_be_bytes([c[1], c[2]]) as u32;
        let id = u16::from_be_bytes([c[3], c[4]]);
        let group = u16::from_be_bytes([c[5], c[6]]);
        let vertex = u16::from_be_bytes([c[7], c[8]]);
        let (j, m) = (c[9], c[10]);
        if !(KIND_MSG..=KIND_WORM).contains(&kind) || j >= m {
            io.link.fault(format!(
                "NI {node}: packet tag {} has bad control bytes {c:?}",
                f.tag
            ));
            return;
        }
        let i = match self.in_index.get(&(origin, id)) {
            Some(&i) => i,
            None => {
                let children: Vec<(u32, u16)> = if kind == KIND_MSG {
                    Vec::new()
                } else if kind == KIND_WORM {
                    if io.groups.get(group as usize).is_none() {
                        io.link.fault(format!(
                            "NI {node}: packet tag {} names group {group}, which does not exist",
                            f.tag
                        ));
                        return;
                    }
                    Vec::new()
                } else {
                    let Some(g) = io.groups.get(group as usize) else {
                        io.link.fault(format!(
                            "NI {node}: packet tag {} names group {group}, which does not exist",
                            f.tag
                        ));
                        return;
                    };
                    let v = vertex as usize;
                    if v >= g.tree.len() || g.tree.node(v) != node {
                        io.link.fault(format!(
                            "NI {node}: packet tag {} names vertex {vertex} of group {group}, which is not this node",
                            f.tag
                        ));
                        return;
                    }
                    g.tree
                        .children(v)
                        .iter()
                        .map(|&x| (g.tree.node(x), x as u16))
                        .collect()
                };
                let msg = InMsg {
                    origin,
                    id,
                    kind,
                    group,
                    m,
                    children,
                    slot: vec![NONE; m as usize],
                    avail: vec![u64::MAX; m as usize],
                    in_host: 0,
                    host_recv: 0,
                    live: m,
                    delivered: false,
                };
                let ops = program_in(&msg, io.groups);
                let i = take(&mut self.ins, &mut self.free_ins, msg);
                self.in_index.insert((origin, id), i);
                self.programs.push(Program {
                    msg: MsgRef::In(i),
                    ops,
                    pc: 0,
                });
                i
            }
        };
        let slot = self.rx_slot;
        let msg = self.ins[i as usize].as_mut().expect("live");
        if msg.avail[j as usize] != u64::MAX {
            io.link.fault(format!(
                "NI {node} received packet {j} of message {origin}:{id} twice"
            ));
            return;
        }
        msg.avail[j as usize] = t + 1;
        msg.slot[j as usize] = slot;
        self.stats.arrivals.push(PacketArrival {
            from,
            packet: j,
            inject,
            arrive: t + 1,
        });
        let msg = self.ins[i as usize].as_mut().expect("live");
        let sends = msg.children.len() as u32;
        let s = self.slots[slot as usize].as_mut().expect("live slot");
        s.msg = MsgRef::In(i);
        s.j = j;
        s.sends_left = if kind == KIND_SMART { sends } else { 0 };
    }

    // --- Send engine --------------------------------------------------------

    fn send_next(&mut self, io: &mut EndpointIo<'_, super::Group>) {
        let t = io.link.cycle;
        if self.tx_cur.is_none() {
            let Some(copy) = self.tx_queue.pop_front() else {
                return;
            };
            let worm = copy
                .worm
                .map(|(g, v, k)| &io.groups[g as usize].sends[v as usize][k as usize]);
            let (kind, hdr) = match worm {
                Some(w) => (w.kind, w.header.len() as u16),
                None => (Kind::Unicast, self.hdr),
            };
            let rec = PacketRecord {
                dst: copy.dest,
                kind,
                len: self.t.packet as u16,
                payload: self.t.packet as u16 - hdr,
                created: copy.queued_at,
                inject: t,
                seq: 0,
                group: NO_GROUP,
            };
            let tag = match worm {
                Some(w) => io.packets.alloc_worm(self.node, rec, &w.dests),
                None => io.packets.alloc(self.node, rec),
            };
            let tag = match tag {
                Ok(tag) => tag,
                Err(e) => {
                    let m = e.message(&format!("NI {}", self.node), io.packets.max_in_flight());
                    io.link.fault(m);
                    return;
                }
            };
            self.tx_cur = Some(TxCur {
                copy,
                tag,
                idx: 0,
                off: 0,
                hdr,
            });
        }
        let tx = self.tx_cur.as_mut().expect("set above");
        let new_chunk = tx.idx == 0 || tx.off == self.chunk;
        if new_chunk {
            let freed = io.link.freed(self.w.credit_in);
            if !self.credit.take(freed) {
                if self.credit.over_returned(freed) {
                    io.link.fault(format!(
                        "NI {}: its switch returned more credits than the {} it was sent",
                        self.node,
                        crate::counted(self.credit.used.into(), "chunks")
                    ));
                }
                return;
            }
        }
        if new_chunk {
            tx.off = 0;
        }
        tx.off += 1;
        let h = tx.hdr;
        let data = if tx.idx < h {
            match tx.copy.worm {
                Some((g, v, k)) => {
                    io.groups[g as usize].sends[v as usize][k as usize].header[tx.idx as usize]
                }
                None => self.unicast.header_byte(tx.copy.dest, tx.idx as usize),
            }
        } else if tx.idx < h + CONTROL_BYTES as u16 {
            tx.copy.ctrl[(tx.idx - h) as usize]
        } else {
            (tx.idx - h) as u8
        };
        let len = self.t.packet as u16;
        io.link
            .send(self.w.tx, Flit::new(tx.tag, tx.idx, len, data));
        self.since = t;
        tx.idx += 1;
        if tx.idx == len {
            let slot = tx.copy.slot;
            self.tx_cur = None;
            self.stats.packets_sent += 1;
            let s = self.slots[slot as usize].as_mut().expect("live slot");
            s.copies -= 1;
            self.maybe_free_slot(slot, t + 1);
        }
    }

    /// True when the receive queue holds packets and each of them still has
    /// copies to send (forwarding, smart NIs): no space frees in it until
    /// the send engine sends, so a switch waiting for this NI's credits
    /// waits on the send engine. A packet that only waits for the host
    /// frees its space without the network.
    pub fn receive_waits_on_send(&self) -> bool {
        let receiving = self.rx_tag.map(|_| self.rx_slot);
        let mut any = false;
        for (i, s) in self.slots.iter().enumerate() {
            let Some(s) = s else { continue };
            if s.send_queue || receiving == Some(i as u32) {
                continue;
            }
            if s.copies == 0 && s.sends_left == 0 {
                return false;
            }
            any = true;
        }
        any
    }

    /// The copy waiting for credits longer than `bound`, if any.
    pub fn stall(&self, now: u64, bound: u64) -> Option<Stall> {
        let tx = self.tx_cur.as_ref()?;
        if now.saturating_sub(self.since) <= bound {
            return None;
        }
        let full = if self.receive_waits_on_send() {
            "; its receive queue holds only packets still to be forwarded"
        } else {
            ""
        };
        Some(Stall {
            at: StallAt::Node,
            location: format!("NI {} send engine", self.node),
            tag: Some(tx.tag),
            waiting: format!(
                "credits to send flit {} of {} (its switch input buffer is full){full}",
                tx.idx, self.t.packet
            ),
            since: self.since,
            waits_on: vec![WaitOn::Credits(self.w.tx)],
        })
    }

    fn next_event(&self, t: u64) -> Next {
        if self.tx_cur.is_some() || !self.tx_queue.is_empty() || self.rx_publish {
            return Next::Busy;
        }
        let mut w = u64::MAX;
        if let Some((_, u)) = self.host_op {
            w = w.min(u);
        } else if !self.host_jobs.is_empty() {
            return Next::Busy;
        }
        if let Some((_, _, u)) = self.proc_op {
            w = w.min(u);
        }
        if let Some((_, done)) = self.bus_cur {
            w = w.min(done + 1);
        } else if !self.bus_queue.is_empty() {
            // Waiting for send-queue space, which a finishing copy frees.
            if self.tx_cur.is_none() && self.proc_op.is_none() {
                return Next::Busy;
            }
        }
        // A program waiting for a packet that has arrived but is not yet
        // available (available from the next cycle).
        if self.proc_op.is_none() && !self.programs.is_empty() {
            for p in &self.programs {
                if let (MsgRef::In(i), Some(Op::Recv(j))) = (p.msg, p.ops.get(p.pc)) {
                    let a = self.ins[i as usize].as_ref().expect("live").avail[*j as usize];
                    if a != u64::MAX {
                        w = w.min(a.max(t + 1));
                    }
                }
            }
        }
        if w == u64::MAX {
            Next::Sleep
        } else if w <= t + 1 {
            Next::Busy
        } else {
            Next::SleepUntil(w)
        }
    }
}

/// The NI program of a received message (seed 000 Fig. 6).
fn program_in(msg: &InMsg, groups: &[Group]) -> Vec<Op> {
    let m = msg.m;
    let n = msg.children.len() as u16;
    let disc = match (msg.kind, groups.get(msg.group as usize).map(|g| g.scheme)) {
        (KIND_SMART, Some(Scheme::SmartNi(d))) => d,
        _ => {
            // The host receives the message; it forwards it itself.
            return (0..m).map(Op::Recv).collect();
        }
    };
    match disc {
        Discipline::Fpfs => (0..m)
            .flat_map(|j| std::iter::once(Op::Recv(j)).chain((0..n).map(move |c| Op::Send(j, c))))
            .collect(),
        Discipline::Fcfs => {
            if n == 0 {
                return (0..m).map(Op::Recv).collect();
            }
            let mut ops: Vec<Op> = (0..m).flat_map(|j| [Op::Recv(j), Op::Send(j, 0)]).collect();
            for c in 1..n {
                ops.extend((0..m).map(|j| Op::Send(j, c)));
            }
            ops
        }
    }
}

impl Clocked for NiNode {
    type Io<'a> = EndpointIo<'a, super::Group>;

    fn eval(&mut self, io: &mut EndpointIo<'_, super::Group>) -> Next {
        let t = io.link.cycle;
        let node = self.node;
        if io.link.inbox != 0 {
            let f = io.link.delivered_flit(self.w.rx);
            self.receive(f, io);
        }
        self.bus_finish(t);
        self.host_step(t, io.groups, io.hosts);
        self.proc_step(t, node);
        if self.bus_cur.is_none()
            && let Some(k) = self.next_xfer()
        {
            self.bus_start(k, t, true);
        }
        self.send_next(io);
        if self.rx_publish {
            self.rx_publish = false;
            io.link.publish(self.w.credit_out, self.rx_freed);
        }
        self.next_event(t)
    }
}

impl Traced for NiNode {
    type Env = Channels;

    fn declare(&self, s: &mut ScopeBuilder<'_>) {
        s.signal("host_state", 2);
        s.signal("host_jobs", 8);
        s.signal("proc_state", 2);
        s.signal("proc_packet", 8);
        s.signal("programs", 8);
        s.signal("bus_state", 2);
        s.signal("bus_queue", 8);
        s.signal("send_queue_bytes", bits_for(self.t.send_queue));
        s.signal("recv_queue_bytes", bits_for(self.t.recv_queue));
        s.signal("tx_queue", 8);
        s.signal("tx_state", 1);
        s.signal("rx_state", 1);
        self.w.declare_link(s);
        s.signal("packets_sent", 32);
        s.signal("packets_received", 32);
        s.signal("messages_sent", 32);
        s.signal("messages_received", 32);
        s.signal("chunks_freed", 16);
    }

    fn sample(&self, ch: &Channels, s: &mut Sampler<'_>) {
        s.value(match self.host_op {
            None => 0,
            Some((HostJob::Send(_), _)) => 1,
            Some((HostJob::Recv(_), _)) => 2,
        });
        s.value(self.host_jobs.len().min(255) as u64);
        let (state, pkt) = match self.proc_op {
            None => (0, None),
            Some((_, Op::Recv(j), _)) => (1, Some(j)),
            Some((_, Op::Send(j, _), _)) => (2, Some(j)),
        };
        s.value(state);
        s.maybe(pkt.map(u64::from));
        s.value(self.programs.len().min(255) as u64);
        s.value(match self.bus_cur {
            None => 0,
            Some((x, _)) if x.dir == Dir::ToNi => 1,
            Some(_) => 2,
        });
        s.value(self.bus_queue.len().min(255) as u64);
        s.value(self.sq_bytes as u64);
        s.value(self.rq_bytes as u64);
        s.value(self.tx_queue.len().min(255) as u64);
        s.bit(self.tx_cur.is_some());
        s.bit(self.rx_tag.is_some());
        self.w.sample_link(&self.credit, ch, s);
        s.value(self.stats.packets_sent & 0xffff_ffff);
        s.value(self.stats.packets_received & 0xffff_ffff);
        s.value(self.stats.messages_sent & 0xffff_ffff);
        s.value(self.stats.messages_received & 0xffff_ffff);
        s.value(ch.credits.q(self.w.credit_out) as u64 & 0xffff);
    }
}

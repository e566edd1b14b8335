//! The timing model of a single multicast on an idle network: when each
//! destination's host has the message, worked out resource by resource
//! from the rules of [`NiNode`](super::NiNode) without simulating cycles
//! (docs/ni.md derives it and compares it with seed 000's step model).
//!
//! Every node has four resources, each serving its work in order: the host
//! (`t_hs` per message sent, `t_hr` per message received), the I/O bus
//! (packets of `P` bytes at `bus_num / bus_den` bytes per cycle, a transfer
//! queued before the previous one finished continuing its busy period), the
//! NI processor (`t_nr` per packet received, `t_ns` per copy sent, in
//! program order) and the send engine (a copy takes `P` cycles on the link,
//! from the cycle its send finished or the engine is free). A copy whose
//! first flit leaves in cycle `x` is in the receiver's queue from
//! `x + net(a, b)`, with `net(a, b) = P + h (H + 2) + 1` for a route through
//! `h` switches and `H`-flit headers.
//!
//! The model assumes what the single multicasts of the tests have: the
//! send and receive queues never fill, and (conventional scheme) each
//! message's packets reach NI memory before the next message's first one,
//! so the processor serves messages one after the other.

use super::{NiTiming, Scheme};
use crate::mcast::{Discipline, Tree};
use crate::{Error, Result};

/// When each destination of a multicast has the message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prediction {
    /// Per vertex (tree preorder; 0, the source, is `None`): the cycle its
    /// host finished receiving the message.
    pub delivered: Vec<Option<u64>>,
    /// Per vertex and packet: the cycle the packet was in its receive queue
    /// from (`u64::MAX` at the source).
    pub arrival: Vec<Vec<u64>>,
    /// The last delivery.
    pub latency: u64,
}

/// The I/O bus of one node.
#[derive(Clone, Copy, Debug, Default)]
struct Bus {
    start: u64,
    bytes: u64,
    done: Option<u64>,
}

impl Bus {
    /// A transfer of `p` bytes queued at `q`: its last cycle.
    fn transfer(&mut self, q: u64, p: u64, t: &NiTiming) -> u64 {
        match self.done {
            Some(d) if q <= d => {}
            _ => {
                self.start = q;
                self.bytes = 0;
            }
        }
        self.bytes += p;
        let d = self.start + t.bus_cycles(self.bytes) - 1;
        self.done = Some(d);
        d
    }
}

/// The send engine of one node: the cycle a copy queued at `q` starts.
fn tx_start(free: &mut u64, q: u64, p: u64) -> u64 {
    let s = q.max(*free);
    *free = s + p;
    s
}

/// Predicts a multicast of `m` packets over `tree` by `scheme`, started at
/// cycle 0, with `net(a, b, j)` the delay from the first flit of packet
/// `j`'s copy leaving node `a` to its tail in node `b`'s queue (on an idle
/// network `P + h (H + 2) + 1` whatever `j`; measured delays reproduce a
/// run with contention).
pub fn predict(
    tree: &Tree,
    m: u32,
    scheme: Scheme,
    t: &NiTiming,
    net: &dyn Fn(u32, u32, usize) -> u64,
) -> Result<Prediction> {
    if scheme == Scheme::Worms {
        return Err(Error::BadTree(
            "the timing model covers unicast-based multicasts (smart NI or conventional), not multidestination worms".into(),
        ));
    }
    // Refused before the tables of packets are made.
    let m = super::message_packets(m)? as usize;
    let n = tree.len();
    let p = t.packet as u64;
    let mut arrival = vec![vec![u64::MAX; m]; n];
    let mut delivered = vec![None; n];
    for v in 0..n {
        let kids = tree.children(v);
        let mut bus = Bus::default();
        let mut tx_free = 0u64;
        let mut proc_end = 0u64;
        let mut host_free = 0u64;
        let node = tree.node(v);
        // Receiving (every vertex but the source): per packet, t_nr when it
        // is there and the processor is free.
        let mut recv_end = vec![0u64; m];
        let deliver = |recv_end: &[u64], bus: &mut Bus, host_free: &mut u64| {
            let mut last = 0;
            for &r in recv_end {
                last = bus.transfer(r, p, t);
            }
            let d = (last + 1).max(*host_free) + t.t_hr;
            *host_free = d;
            d
        };
        match scheme {
            Scheme::Worms => unreachable!("refused above"),
            Scheme::SmartNi(disc) => {
                // The program: which packet goes to which child, in order.
                let sends: Vec<(usize, usize)> = match disc {
                    Discipline::Fpfs => (0..m)
                        .flat_map(|j| (0..kids.len()).map(move |c| (j, c)))
                        .collect(),
                    Discipline::Fcfs => (0..kids.len())
                        .flat_map(|c| (0..m).map(move |j| (j, c)))
                        .collect(),
                };
                let a: Vec<u64> = arrival[v].clone();
                let mut ready = vec![0u64; m];
                if v == 0 {
                    // t_hs, then the packets over the I/O bus.
                    let mut bus0 = Bus::default();
                    for r in ready.iter_mut() {
                        *r = bus0.transfer(t.t_hs, p, t) + 1;
                    }
                }
                let mut send =
                    |j: usize, c: usize, proc_end: &mut u64, tx_free: &mut u64, ready: u64| {
                        let s = ready.max(*proc_end);
                        *proc_end = s + t.t_ns;
                        let x = tx_start(tx_free, *proc_end, p);
                        let child = kids[c];
                        arrival[child][j] = x + net(node, tree.node(child), j);
                    };
                if v == 0 {
                    for (j, c) in sends {
                        send(j, c, &mut proc_end, &mut tx_free, ready[j]);
                    }
                } else {
                    // Receives interleaved as the program has them.
                    let recv = |j: usize, proc_end: &mut u64, recv_end: &mut [u64], a: u64| {
                        let s = a.max(*proc_end);
                        *proc_end = s + t.t_nr;
                        recv_end[j] = *proc_end;
                    };
                    match disc {
                        Discipline::Fpfs => {
                            for (j, &aj) in a.iter().enumerate() {
                                recv(j, &mut proc_end, &mut recv_end, aj);
                                for c in 0..kids.len() {
                                    send(j, c, &mut proc_end, &mut tx_free, 0);
                                }
                            }
                        }
                        Discipline::Fcfs => {
                            if kids.is_empty() {
                                for (j, &aj) in a.iter().enumerate() {
                                    recv(j, &mut proc_end, &mut recv_end, aj);
                                }
                            } else {
                                for (j, &aj) in a.iter().enumerate() {
                                    recv(j, &mut proc_end, &mut recv_end, aj);
                                    send(j, 0, &mut proc_end, &mut tx_free, 0);
                                }
                                for c in 1..kids.len() {
                                    for j in 0..m {
                                        send(j, c, &mut proc_end, &mut tx_free, 0);
                                    }
                                }
                            }
                        }
                    }
                    // The copies to the host, queued at the ends of the
                    // receives; FIFO on the bus.
                    delivered[v] = Some(deliver(&recv_end, &mut bus, &mut host_free));
                }
            }
            Scheme::Conventional => {
                if v != 0 {
                    for j in 0..m {
                        let s = arrival[v][j].max(proc_end);
                        proc_end = s + t.t_nr;
                        recv_end[j] = proc_end;
                    }
                    delivered[v] = Some(deliver(&recv_end, &mut bus, &mut host_free));
                }
                // The host sends the whole message to each child in turn.
                for &c in kids {
                    host_free += t.t_hs;
                    let mut ready = vec![0u64; m];
                    for r in ready.iter_mut() {
                        *r = bus.transfer(host_free, p, t) + 1;
                    }
                    for (j, &r) in ready.iter().enumerate() {
                        let s = r.max(proc_end);
                        proc_end = s + t.t_ns;
                        let x = tx_start(&mut tx_free, proc_end, p);
                        arrival[c][j] = x + net(node, tree.node(c), j);
                    }
                }
            }
        }
    }
    let latency = delivered.iter().flatten().copied().max().unwrap_or(0);
    Ok(Prediction {
        delivered,
        arrival,
        latency,
    })
}

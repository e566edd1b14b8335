//! Network interfaces and hosts (seed 000 sections 3.1-3.4.1 and 4, the
//! parameters of section 6.2).
//!
//! Each node is a host and a network interface (NI). The NI has one
//! processor, send and receive queues in its memory, and three DMA
//! engines: the I/O-bus engine between host memory and NI memory, the send
//! engine from NI memory onto the link, and the receive engine from the
//! link into NI memory. The host pays `t_hs` per message it sends and
//! `t_hr` per message it receives; the NI processor pays `t_ns` per packet
//! it sends and `t_nr` per packet it receives. With smart-NI multicast the
//! NI of an intermediate destination forwards each packet to its children
//! in the multicast tree itself, first-child-first-served (FCFS) or
//! first-packet-first-served (FPFS), while copying it to its host. See
//! [`NiNode`] for the cycle-level behaviour and docs/ni.md for the timing.

mod node;
mod predict;

pub use node::{Holding, HostDelivery, NiNode, NiStats, PacketArrival};
pub use predict::{Prediction, predict};

use crate::link::Worm;
use crate::mcast::{Discipline, Tree};
use crate::{Error, Result};
use serde::{Deserialize, Serialize};

/// Bytes of control information after a packet's unicast header: kind (1),
/// origin node (2), message (2), group (2), tree vertex (2), packet index
/// (1), packet count (1).
pub const CONTROL_BYTES: u32 = 11;

/// The most packets a message may have: the control information's packet
/// count is one byte.
pub const MAX_MESSAGE_PACKETS: u32 = 255;

/// `packets` as a message's packet count, or why it cannot be one (a
/// message has 1 to [`MAX_MESSAGE_PACKETS`] packets).
pub fn message_packets(packets: u32) -> Result<u8> {
    if !(1..=MAX_MESSAGE_PACKETS).contains(&packets) {
        return Err(Error::BadPacket(format!(
            "a message of {packets} packets; a message has 1 to {MAX_MESSAGE_PACKETS}"
        )));
    }
    Ok(packets as u8)
}

/// Parameters of the hosts and network interfaces. Every field has a
/// default from seed 000 section 6.2.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NiParams {
    /// Host overhead to send a message, cycles (1,000).
    pub t_hs: u64,
    /// Host overhead to receive a message, cycles (default: `t_hs`).
    pub t_hr: Option<u64>,
    /// `R = t_hs / t_ns` (1), used when `t_ns` is not given.
    pub r: f64,
    /// NI processor overhead to send a packet, cycles (default:
    /// `t_hs / R`).
    pub t_ns: Option<u64>,
    /// NI processor overhead to receive a packet, cycles (default: `t_ns`).
    pub t_nr: Option<u64>,
    /// I/O bus bandwidth in MB/s (10^6 bytes per second; 266).
    pub io_bus_mb_per_s: u64,
    /// Packet length in flits (bytes), header included (128).
    pub packet_flits: u32,
    /// Send queue in NI memory, bytes (4,096).
    pub send_queue_bytes: u32,
    /// Receive queue in NI memory, bytes (4,096).
    pub recv_queue_bytes: u32,
    /// What the host's overheads `t_hs` and `t_hr` are paid for
    /// (`per-message`); seed 000 sections 3.1 and 3.2 have the host
    /// software split messages into packets but leave this open
    /// (docs/reproduction.md, Figs. 24 and 25).
    pub host_overhead: HostOverhead,
}

/// What the host pays `t_hs` and `t_hr` for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HostOverhead {
    /// Once per message.
    #[default]
    PerMessage,
    /// Once per packet, the whole message at a time: the NI gets a message
    /// after `m t_hs` and the host has it `m t_hr` after its last packet
    /// is in host memory.
    PerPacket,
    /// Once per packet, each packet handed on as soon as its own overhead
    /// is paid: packet `j` reaches the NI after `(j + 1) t_hs`, and the
    /// host pays `t_hr` for each packet as it lands.
    PerPacketPipelined,
}

impl HostOverhead {
    /// Parses `per-message`, `per-packet` or `per-packet-pipelined`.
    pub fn parse(s: &str) -> Result<HostOverhead> {
        match s {
            "per-message" => Ok(HostOverhead::PerMessage),
            "per-packet" => Ok(HostOverhead::PerPacket),
            "per-packet-pipelined" => Ok(HostOverhead::PerPacketPipelined),
            _ => Err(Error::Config {
                field: "host_overhead",
                value: s.into(),
                reason: "expected per-message, per-packet or per-packet-pipelined".into(),
            }),
        }
    }

    /// The name [`parse`](Self::parse) takes.
    pub fn name(self) -> &'static str {
        match self {
            HostOverhead::PerMessage => "per-message",
            HostOverhead::PerPacket => "per-packet",
            HostOverhead::PerPacketPipelined => "per-packet-pipelined",
        }
    }
}

impl Default for NiParams {
    fn default() -> Self {
        NiParams {
            t_hs: 1000,
            t_hr: None,
            r: 1.0,
            t_ns: None,
            t_nr: None,
            io_bus_mb_per_s: 266,
            packet_flits: 128,
            send_queue_bytes: 4096,
            recv_queue_bytes: 4096,
            host_overhead: HostOverhead::PerMessage,
        }
    }
}

/// The resolved timing of the hosts and NIs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct NiTiming {
    /// Host send overhead, cycles.
    pub t_hs: u64,
    /// Host receive overhead, cycles.
    pub t_hr: u64,
    /// NI send overhead per packet, cycles.
    pub t_ns: u64,
    /// NI receive overhead per packet, cycles.
    pub t_nr: u64,
    /// The I/O bus moves `bus_num / bus_den` bytes per cycle (exact).
    pub bus_num: u64,
    /// See `bus_num`.
    pub bus_den: u64,
    /// Packet length, flits (bytes).
    pub packet: u32,
    /// Send queue, bytes.
    pub send_queue: u32,
    /// Receive queue, bytes.
    pub recv_queue: u32,
    /// What the host overheads are paid for.
    pub host_overhead: HostOverhead,
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// The longest overhead a host or an NI may take, cycles (10^12, the
/// longest run): beyond it no run could see the overhead end, and the
/// cycle it ends at would pass what a 64-bit count holds in sums.
pub const MAX_OVERHEAD: u64 = 1_000_000_000_000;

/// The fastest I/O bus, MB/s (10^6: a terabyte a second), so that its
/// rate in bytes per cycle is exact in 64 bits for any clock period.
pub const MAX_IO_BUS_MB_PER_S: u64 = 1_000_000;

impl NiParams {
    /// The timing for a clock of `cycle_ps` picoseconds, checked: the
    /// packet must hold its header and control bytes, and each queue at
    /// least one packet (the receive queue in whole chunks of
    /// `chunk_flits`).
    pub fn timing(&self, cycle_ps: u64, header_flits: u32, chunk_flits: u32) -> Result<NiTiming> {
        if self.t_hs == 0 {
            return Err(Error::config("t_hs", 0, "must be at least 1 cycle"));
        }
        if !(self.r > 0.0 && self.r.is_finite()) {
            return Err(Error::config("r", self.r, "must be a positive number"));
        }
        let t_ns = self
            .t_ns
            .unwrap_or(((self.t_hs as f64) / self.r).round().max(1.0) as u64);
        let t_nr = self.t_nr.unwrap_or(t_ns);
        let t_hr = self.t_hr.unwrap_or(self.t_hs);
        if t_ns == 0 {
            return Err(Error::config("t_ns", 0, "must be at least 1 cycle"));
        }
        for (field, v) in [
            ("t_hs", self.t_hs),
            ("t_hr", t_hr),
            ("t_ns", t_ns),
            ("t_nr", t_nr),
        ] {
            if v > MAX_OVERHEAD {
                // t_ns, and t_nr after it, follow t_hs / r unless given.
                let derived = match field {
                    "t_ns" => self.t_ns.is_none(),
                    "t_nr" => self.t_nr.is_none() && self.t_ns.is_none(),
                    _ => false,
                };
                let from_r = if derived {
                    format!(" (t_hs {} / r {:?})", self.t_hs, self.r)
                } else {
                    String::new()
                };
                return Err(Error::config(
                    field,
                    format!("{v}{from_r}"),
                    format!("an overhead is at most {MAX_OVERHEAD} cycles, the longest run"),
                ));
            }
        }
        if !(1..=MAX_IO_BUS_MB_PER_S).contains(&self.io_bus_mb_per_s) {
            return Err(Error::config(
                "io_bus_mb_per_s",
                self.io_bus_mb_per_s,
                format!("must be 1 to {MAX_IO_BUS_MB_PER_S} MB/s"),
            ));
        }
        let need = header_flits + CONTROL_BYTES + 1;
        if self.packet_flits < need || self.packet_flits > 65_535 {
            return Err(Error::config(
                "packet_flits",
                self.packet_flits,
                format!(
                    "a packet holds its {header_flits}-flit header, {CONTROL_BYTES} control bytes and data: {need} to 65535 flits"
                ),
            ));
        }
        if self.send_queue_bytes < self.packet_flits {
            return Err(Error::config(
                "send_queue_bytes",
                self.send_queue_bytes,
                format!(
                    "the send queue is smaller than one packet of {} bytes",
                    self.packet_flits
                ),
            ));
        }
        let chunks_per_packet = self.packet_flits.div_ceil(chunk_flits);
        if self.recv_queue_bytes / chunk_flits < chunks_per_packet {
            return Err(Error::config(
                "recv_queue_bytes",
                self.recv_queue_bytes,
                format!(
                    "the receive queue is smaller than one packet of {} bytes ({} of {chunk_flits})",
                    self.packet_flits,
                    crate::counted(chunks_per_packet.into(), "chunks")
                ),
            ));
        }
        let num = self.io_bus_mb_per_s * cycle_ps;
        let den = 1_000_000;
        let g = gcd(num, den);
        Ok(NiTiming {
            t_hs: self.t_hs,
            t_hr,
            t_ns,
            t_nr,
            bus_num: num / g,
            bus_den: den / g,
            packet: self.packet_flits,
            send_queue: self.send_queue_bytes,
            recv_queue: self.recv_queue_bytes,
            host_overhead: self.host_overhead,
        })
    }
}

impl NiTiming {
    /// Cycles the I/O bus takes for `bytes` bytes of one busy period from
    /// its start: `ceil(bytes / rate)`.
    pub fn bus_cycles(&self, bytes: u64) -> u64 {
        (bytes * self.bus_den).div_ceil(self.bus_num)
    }
}

/// How a multicast is carried out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scheme {
    /// Every hop through the hosts: a destination's host receives the whole
    /// message, then sends it to each of its children.
    Conventional,
    /// Smart NIs forward each packet to the children, in this discipline.
    SmartNi(Discipline),
    /// Multidestination worms (seed 000 sections 5.2-5.3), every hop
    /// through the hosts: a member's host receives the whole message, then
    /// sends each of its worms as one message (`t_hs` each); the switches
    /// replicate the packets. As in the paper's comparison, no smart-NI
    /// forwarding.
    Worms,
}

impl std::fmt::Display for Scheme {
    /// The scheme as the command line names it: `conventional`, `fpfs`,
    /// `fcfs` (smart NIs) or `worms`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Scheme::Conventional => "conventional",
            Scheme::SmartNi(Discipline::Fpfs) => "fpfs",
            Scheme::SmartNi(Discipline::Fcfs) => "fcfs",
            Scheme::Worms => "worms",
        })
    }
}

/// A multicast group: its tree (in NI memory at every member, set up
/// before the multicast) and how it is carried out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// The multicast's number, in the order the system started them (its
    /// slot, which packets carry in two control bytes, is reused once
    /// every destination's host has it).
    pub id: u64,
    /// The tree: with [`Scheme::Worms`], every destination's parent is the
    /// member that sends the worm covering it.
    pub tree: Tree,
    /// The scheme.
    pub scheme: Scheme,
    /// With [`Scheme::Worms`]: the worms each tree vertex sends, in order
    /// (empty otherwise).
    pub sends: Vec<Vec<Worm>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_resolve_to_the_papers_values() {
        let t = NiParams::default().timing(5000, 1, 8).unwrap();
        assert_eq!((t.t_hs, t.t_hr, t.t_ns, t.t_nr), (1000, 1000, 1000, 1000));
        // 266 MB/s at 5 ns: 1.33 bytes per cycle exactly.
        assert_eq!((t.bus_num, t.bus_den), (133, 100));
        assert_eq!(t.bus_cycles(128), 97, "128 / 1.33 = 96.2");
        assert_eq!(t.bus_cycles(3 * 128), 289, "not 3 * 97");
        let r2 = NiParams {
            r: 2.0,
            ..Default::default()
        };
        assert_eq!(r2.timing(5000, 1, 8).unwrap().t_ns, 500);
    }

    #[test]
    fn queues_too_small_for_one_packet_are_refused() {
        let p = NiParams {
            recv_queue_bytes: 120,
            ..Default::default()
        };
        assert_eq!(
            p.timing(5000, 1, 8).unwrap_err().to_string(),
            "configuration: recv_queue_bytes = 120: the receive queue is smaller than one packet of 128 bytes (16 chunks of 8)"
        );
        let p = NiParams {
            send_queue_bytes: 100,
            ..Default::default()
        };
        assert_eq!(
            p.timing(5000, 1, 8).unwrap_err().to_string(),
            "configuration: send_queue_bytes = 100: the send queue is smaller than one packet of 128 bytes"
        );
        let p = NiParams {
            packet_flits: 12,
            ..Default::default()
        };
        assert!(
            p.timing(5000, 1, 8)
                .unwrap_err()
                .to_string()
                .contains("packet_flits = 12")
        );
    }

    /// An overhead past the longest run, given or derived from `r`, and a
    /// bus too fast for its rate to be exact are refused by name: their
    /// sums with a cycle number would wrap.
    #[test]
    fn overheads_and_buses_past_their_bounds_are_refused() {
        let refused = |p: NiParams| p.timing(5000, 1, 8).unwrap_err().to_string();
        let at_most = "an overhead is at most 1000000000000 cycles, the longest run";
        let edge = NiParams {
            t_hs: MAX_OVERHEAD,
            t_nr: Some(MAX_OVERHEAD),
            io_bus_mb_per_s: MAX_IO_BUS_MB_PER_S,
            ..Default::default()
        };
        let t = edge.timing(1_000_000_000_000, 1, 8).unwrap();
        assert_eq!(
            (t.t_hs, t.t_hr, t.t_ns, t.t_nr),
            (MAX_OVERHEAD, MAX_OVERHEAD, MAX_OVERHEAD, MAX_OVERHEAD)
        );
        assert_eq!((t.bus_num, t.bus_den), (1_000_000_000_000, 1));
        assert_eq!(
            refused(NiParams {
                t_hs: u64::MAX,
                ..Default::default()
            }),
            format!("configuration: t_hs = {}: {at_most}", u64::MAX)
        );
        assert_eq!(
            refused(NiParams {
                t_hr: Some(MAX_OVERHEAD + 1),
                ..Default::default()
            }),
            format!("configuration: t_hr = 1000000000001: {at_most}")
        );
        assert_eq!(
            refused(NiParams {
                r: 1e-300,
                ..Default::default()
            }),
            format!(
                "configuration: t_ns = {} (t_hs 1000 / r 1e-300): {at_most}",
                u64::MAX
            )
        );
        assert_eq!(
            refused(NiParams {
                t_nr: Some(u64::MAX),
                ..Default::default()
            }),
            format!("configuration: t_nr = {}: {at_most}", u64::MAX)
        );
        assert_eq!(
            refused(NiParams {
                t_ns: Some(5),
                t_nr: Some(u64::MAX),
                ..Default::default()
            }),
            format!("configuration: t_nr = {}: {at_most}", u64::MAX)
        );
        assert_eq!(
            refused(NiParams {
                io_bus_mb_per_s: u64::MAX,
                ..Default::default()
            }),
            format!(
                "configuration: io_bus_mb_per_s = {}: must be 1 to 1000000 MB/s",
                u64::MAX
            )
        );
    }
}

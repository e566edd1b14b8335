//! Decode units (seed 000 sections 2.2, 5.1.1, 5.2.3, 5.3.3).
//!
//! Once the whole header of the packet at the head of its input FIFO is in
//! the buffer (its length follows from its first byte), the decode stage
//! reads it and, in one cycle, registers what the packet asks of this
//! switch: a set of ports to replicate to ([`DecodeReg::replicate`]) and at
//! most one further copy to route adaptively by one of a set of candidate
//! ports ([`DecodeReg::choice`]), each with the header it carries. One unit
//! per encoding, each a plain function of the header and the switch's
//! tables, checked against a set-based reference in the tests:
//!
//! - [`unicast`]: routing-table lookup; one adaptive copy;
//! - [`ssr`]: switch id compare; replicate to the port string's node ports,
//!   or route toward the switch;
//! - [`multidrop`]: the first pair as SSR, then one copy on toward the next
//!   pair's switch with that pair stripped;
//! - [`bitstring`]: reachability strings; replicate by the restricted
//!   strings with each copy's header restricted to its port, or go up.

pub mod bitstring;
pub mod multidrop;
pub mod ssr;
pub mod unicast;

use crate::header::{Formats, HeaderError, Kind};
use crate::net::{Network, Phase, PortConn, Reachability, RoutingTables, UpDown};
use crate::rtl::{BitString, PortMask};
use bitstring::BitStringUnit;
use std::fmt;
use std::sync::Arc;

/// Why a header could not be routed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// The header is malformed.
    Header(HeaderError),
    /// No legal route to a node from this switch in this phase.
    NoRoute {
        /// The switch.
        switch: u32,
        /// The destination.
        node: u32,
        /// The phase.
        phase: Phase,
    },
    /// No legal route to a switch from this switch in this phase.
    NoRouteToSwitch {
        /// The switch.
        switch: u32,
        /// The switch to reach.
        target: u32,
        /// The phase.
        phase: Phase,
    },
    /// An SSR header or multi-drop pair for this switch with no port.
    NoPorts {
        /// The switch.
        switch: u32,
    },
    /// A port string naming ports that do not lead to nodes.
    NotNodePorts {
        /// The switch.
        switch: u32,
        /// The offending ports.
        ports: PortMask,
    },
    /// Two consecutive multi-drop pairs name the same switch.
    RepeatedSwitch {
        /// The switch.
        switch: u32,
    },
    /// A bit-string header with no destination.
    NoDestinations,
    /// A bit-string header at a switch built without its bit-string unit
    /// (no bit-string worm fits the network's buffers).
    NoBitStringUnit {
        /// The switch.
        switch: u32,
    },
    /// A bit-string worm travelling down with destinations this switch does
    /// not reach.
    Unreachable {
        /// How many.
        dests: usize,
    },
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::Header(h) => h.fmt(f),
            DecodeError::NoRoute {
                switch,
                node,
                phase,
            } => write!(
                f,
                "no legal up*/down* route from switch {switch} to node {node} in phase {phase:?}"
            ),
            DecodeError::NoRouteToSwitch {
                switch,
                target,
                phase,
            } => write!(
                f,
                "no legal up*/down* route from switch {switch} to switch {target} in phase {phase:?}"
            ),
            DecodeError::NoPorts { switch } => {
                write!(f, "header names switch {switch} but no port of it")
            }
            DecodeError::NotNodePorts { switch, ports } => {
                write!(
                    f,
                    "port string names ports {ports:?} of switch {switch}, which do not lead to nodes"
                )
            }
            DecodeError::RepeatedSwitch { switch } => {
                write!(
                    f,
                    "multi-drop header names switch {switch} in two consecutive pairs"
                )
            }
            DecodeError::NoDestinations => write!(f, "bit-string header with no destination"),
            DecodeError::NoBitStringUnit { switch } => write!(
                f,
                "bit-string header at switch {switch}, which has no bit-string unit (the network's bit-string headers are longer than its input buffers, so none was built)"
            ),
            DecodeError::Unreachable { dests } => write!(
                f,
                "bit-string worm travelling down holds {} this switch does not reach",
                crate::error::counted(*dests as u64, "destinations")
            ),
        }
    }
}

impl From<HeaderError> for DecodeError {
    fn from(e: HeaderError) -> Self {
        DecodeError::Header(e)
    }
}

/// The header a copy carries out of the switch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HdrOut {
    /// The header as it arrived.
    Same,
    /// A bit-string header with up-down bit 0 and the port's string
    /// ([`DecodeReg::branch`]).
    BitString,
    /// The multi-drop header without its first pair ([`DecodeReg::stripped`]).
    Stripped,
}

/// A decode unit's output register: what one packet asks of the switch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeReg {
    /// The packet (input-buffer entry).
    pub pkt: u16,
    /// The encoding.
    pub kind: Kind,
    /// Flits of the header as it arrived.
    pub hdr_len: u16,
    /// Unicast: the destination node; SSR and multi-drop: the switch the
    /// header names first; bit-string: 0.
    pub target: u32,
    /// SSR: the header's port string; multi-drop: the first pair's.
    pub ports_in: PortMask,
    /// Routing phase at this switch.
    pub phase: Phase,
    /// Ports the packet is replicated to.
    pub replicate: PortMask,
    /// Candidates for the one adaptively routed copy (empty: none).
    pub choice: PortMask,
    /// The header of the replicated copies.
    pub replicate_hdr: HdrOut,
    /// The header of the adaptively routed copy.
    pub choice_hdr: HdrOut,
    /// Bit-string: the up-down bit that arrived.
    pub ud_in: bool,
    /// Bit-string: the up-down bit of the copies.
    pub ud_out: bool,
    /// Bit-string: the destinations that arrived (sized to the network's
    /// nodes at the first bit-string header; empty before).
    pub dests: BitString,
    /// Bit-string: each replicated port's destinations (sized with
    /// `dests`).
    pub branch: Vec<BitString>,
    /// Multi-drop: the header without its first pair.
    pub stripped: Vec<u8>,
    nodes: usize,
    ports: usize,
}

impl DecodeReg {
    /// Names the decoded packet in messages: "node 5's packet", "an SSR
    /// worm for switch 3", "a bit-string worm".
    pub fn describe(&self) -> String {
        match self.kind {
            Kind::Unicast => format!("node {}'s packet", self.target),
            Kind::Ssr => format!("an SSR worm for switch {}", self.target),
            Kind::MultiDrop => format!("a multi-drop worm for switch {}", self.target),
            Kind::BitString => "a bit-string worm".to_string(),
        }
    }

    /// An empty register for `nodes` nodes and `ports` ports.
    pub fn new(nodes: usize, ports: usize) -> Self {
        DecodeReg {
            pkt: 0,
            kind: Kind::Unicast,
            hdr_len: 0,
            target: 0,
            ports_in: PortMask::EMPTY,
            phase: Phase::Up,
            replicate: PortMask::EMPTY,
            choice: PortMask::EMPTY,
            replicate_hdr: HdrOut::Same,
            choice_hdr: HdrOut::Same,
            ud_in: false,
            ud_out: false,
            dests: BitString::zeros(0),
            branch: Vec::new(),
            stripped: Vec::new(),
            nodes,
            ports,
        }
    }

    /// Sizes the bit-string registers (`nodes` bits, one per port) before
    /// their first use: a unit that never sees a bit-string header holds
    /// none, which keeps large networks small.
    #[inline]
    fn size_bits(&mut self) {
        if self.dests.len() != self.nodes {
            self.dests = BitString::zeros(self.nodes);
            self.branch = vec![BitString::zeros(self.nodes); self.ports];
        }
    }

    /// The header the copy leaving by port `port` carries, written into
    /// `out`; `false` (and `out` untouched) when it is the header as it
    /// arrived. `port` must be one of [`DecodeReg::replicate`] or
    /// [`DecodeReg::choice`].
    pub fn header_for(&self, port: usize, formats: &Formats, out: &mut Vec<u8>) -> bool {
        let hdr = if self.replicate.contains(port) {
            self.replicate_hdr
        } else {
            self.choice_hdr
        };
        match hdr {
            HdrOut::Same => false,
            HdrOut::BitString => {
                out.resize(formats.bitstring_len(), 0);
                formats.write_bitstring(self.ud_out, &self.branch[port], out);
                true
            }
            HdrOut::Stripped => {
                out.clear();
                out.extend_from_slice(&self.stripped);
                true
            }
        }
    }

    /// Number of copies the packet leaves this switch as (its chunks'
    /// reference count).
    pub fn fanout(&self) -> u8 {
        let choice = !self.choice.is_empty() as u8;
        if self.replicate.is_empty() {
            // A unicast or adaptive packet, without a population count.
            choice
        } else {
            self.replicate.count() as u8 + choice
        }
    }
}

/// Where a decode unit's routing rows come from.
///
/// In hardware every switch holds its own rows of the up*/down* tables.
/// The model stores them once for the whole network (the rows are the same
/// either way), so that memory grows with the square of the switches rather
/// than with its cube; a unit given its memories directly (a Verilog twin's
/// table inputs) keeps its own.
#[derive(Clone, Debug)]
pub enum Rows {
    /// This switch's rows of the network's tables.
    Network(Arc<RoutingTables>),
    /// Own memories: candidate ports by `2 * node + phase` and by
    /// `2 * switch + phase`.
    Own {
        /// Candidate ports by `2 * node + phase`.
        node: Box<[PortMask]>,
        /// Candidate ports by `2 * switch + phase`.
        switch: Box<[PortMask]>,
    },
}

impl Rows {
    /// Candidate ports of switch `me` toward node `dest`.
    #[inline]
    pub fn node(&self, me: u32, dest: u32, phase: Phase) -> PortMask {
        match self {
            Rows::Network(rt) => rt.candidates(me, dest, phase),
            Rows::Own { node, .. } => unicast::candidates(node, dest, phase),
        }
    }

    /// Candidate ports of switch `me` toward switch `target`.
    #[inline]
    pub fn switch(&self, me: u32, target: u32, phase: Phase) -> PortMask {
        match self {
            Rows::Network(rt) => rt.switch_candidates(me, target, phase),
            Rows::Own { switch, .. } => switch[2 * target as usize + phase as usize],
        }
    }
}

/// The decode logic of one switch, with its routing tables and reachability
/// strings.
#[derive(Clone, Debug)]
pub struct Decoder {
    switch: u32,
    formats: Formats,
    rows: Rows,
    node_ports: PortMask,
    bits: BitStringUnit,
}

impl Decoder {
    /// The decoder of switch `switch`: its rows of `routes`, the ports that
    /// lead to nodes, and its reachability strings.
    pub fn new(
        switch: u32,
        formats: Formats,
        routes: Arc<RoutingTables>,
        node_ports: PortMask,
        bits: BitStringUnit,
    ) -> Self {
        Decoder {
            switch,
            formats,
            rows: Rows::Network(routes),
            node_ports,
            bits,
        }
    }

    /// A decoder with its tables given directly: candidate ports by
    /// `2 * node + phase` and by `2 * switch + phase` (a decode unit's
    /// memories, as a Verilog twin receives them).
    pub fn from_tables(
        switch: u32,
        formats: Formats,
        node_table: Box<[PortMask]>,
        switch_table: Box<[PortMask]>,
        node_ports: PortMask,
        bits: BitStringUnit,
    ) -> Self {
        Decoder {
            switch,
            formats,
            rows: Rows::Own {
                node: node_table,
                switch: switch_table,
            },
            node_ports,
            bits,
        }
    }

    /// The decoder of switch `s` of `net`: its rows of the routing tables,
    /// its node ports, and its reachability strings (`None`: a switch
    /// without a bit-string unit, which refuses bit-string headers).
    pub fn of_switch(
        net: &Network,
        ud: &UpDown,
        routes: &Arc<RoutingTables>,
        reach: Option<&Reachability>,
        formats: Formats,
        s: u32,
    ) -> Self {
        let node_ports = net
            .ports_of(s)
            .filter(|(_, c)| matches!(c, PortConn::Node(_)))
            .map(|(p, _)| p as usize)
            .collect();
        let bits = match reach {
            Some(r) => BitStringUnit::of_switch(r, s, net.num_ports(s), ud.up_ports(s)),
            None => BitStringUnit::absent(),
        };
        Decoder::new(s, formats, routes.clone(), node_ports, bits)
    }

    /// The unit's routing rows.
    pub fn rows(&self) -> &Rows {
        &self.rows
    }

    /// The header encodings.
    pub fn formats(&self) -> Formats {
        self.formats
    }

    /// The bit-string unit.
    pub fn bitstring_unit(&self) -> &BitStringUnit {
        &self.bits
    }

    /// Header length in flits, from the header's first byte.
    #[inline]
    pub fn header_len(&self, first: u8) -> Result<usize, DecodeError> {
        Ok(self.formats.len_of(first)?)
    }

    /// Decodes a unicast header given as the word of its flits.
    #[inline]
    pub fn decode_unicast(
        &self,
        word: u64,
        phase: Phase,
        reg: &mut DecodeReg,
    ) -> Result<(), DecodeError> {
        let dest = self.formats.unicast().decode_word(word)?;
        let c = self.rows.node(self.switch, dest, phase);
        if c.is_empty() {
            return Err(DecodeError::NoRoute {
                switch: self.switch,
                node: dest,
                phase,
            });
        }
        reg.kind = crate::header::Kind::Unicast;
        reg.target = dest;
        reg.phase = phase;
        reg.replicate = PortMask::EMPTY;
        reg.choice = c;
        reg.choice_hdr = HdrOut::Same;
        Ok(())
    }

    /// Decodes a whole header of any kind into `reg` (all fields but `pkt`
    /// and `hdr_len`).
    pub fn decode(
        &self,
        header: &[u8],
        phase: Phase,
        reg: &mut DecodeReg,
    ) -> Result<(), DecodeError> {
        let first = header[0];
        let kind = self.formats.kind(first)?;
        if kind == Kind::Unicast {
            let h = self.formats.unicast().flits();
            let word = header[..h].iter().fold(0u64, |w, &b| w << 8 | b as u64);
            return self.decode_unicast(word, phase, reg);
        }
        reg.kind = kind;
        reg.phase = phase;
        reg.replicate_hdr = HdrOut::Same;
        reg.choice_hdr = HdrOut::Same;
        match kind {
            Kind::Unicast => unreachable!("handled above"),
            Kind::Ssr => {
                let (target, ports) = self.formats.ssr_fields(header)?;
                reg.target = target;
                reg.ports_in = ports;
                match ssr::step(
                    self.switch,
                    self.node_ports,
                    &self.rows,
                    target,
                    ports,
                    phase,
                )? {
                    ssr::SsrStep::Deliver(p) => {
                        reg.replicate = p;
                        reg.choice = PortMask::EMPTY;
                    }
                    ssr::SsrStep::Forward(c) => {
                        reg.replicate = PortMask::EMPTY;
                        reg.choice = c;
                    }
                }
            }
            Kind::MultiDrop => {
                let n = self.formats.pairs_of(first);
                if n == 0 {
                    return Err(HeaderError::NoPairs.into());
                }
                let first_pair = self.formats.pair(header, 0)?;
                let next = if n >= 2 {
                    Some(self.formats.pair(header, 1)?.0)
                } else {
                    None
                };
                reg.target = first_pair.0;
                reg.ports_in = first_pair.1;
                let s = multidrop::step_pairs(
                    self.switch,
                    self.node_ports,
                    &self.rows,
                    first_pair,
                    next,
                    phase,
                )?;
                reg.replicate = s.deliver;
                reg.choice = s.forward;
                if s.strip {
                    reg.choice_hdr = HdrOut::Stripped;
                    self.formats.write_stripped(header, &mut reg.stripped);
                }
            }
            Kind::BitString => {
                reg.size_bits();
                self.formats.read_dests(header, &mut reg.dests)?;
                reg.target = 0;
                reg.ud_in = self.formats.up_of(first);
                if !self.bits.built() {
                    return Err(DecodeError::NoBitStringUnit {
                        switch: self.switch,
                    });
                }
                let s = self.bits.step(&reg.dests, reg.ud_in, &mut reg.branch)?;
                reg.ud_out = s.ud_out;
                reg.replicate = s.ports;
                reg.choice = s.up;
                reg.replicate_hdr = HdrOut::BitString;
            }
        }
        Ok(())
    }
}

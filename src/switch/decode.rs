//! The unicast decode unit: routing-table lookup (seed 000 sections 2.2, 6.2).
//!
//! Once the whole header of the packet at the head of its input FIFO is in
//! the buffer, the decode unit reads it, looks the destination up in the
//! switch's up*/down* routing table for the phase the input port implies,
//! and registers the set of candidate output ports. That takes one cycle
//! (the paper's uniform routing overhead). The switch then grants one of the
//! candidates.
//!
//! The table is the switch's own memory: one port mask per destination node
//! and phase, filled from the network's [`RoutingTables`] when the switch is
//! built.

use crate::header::{HeaderError, UnicastFormat};
use crate::net::{Phase, RoutingTables};
use crate::rtl::PortMask;
use std::fmt;

/// A decode unit's output register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decoded {
    /// The packet (input-buffer entry).
    pub pkt: u16,
    /// Destination node.
    pub dest: u32,
    /// Routing phase at this switch.
    pub phase: Phase,
    /// Candidate output ports.
    pub ports: PortMask,
}

impl Default for Decoded {
    fn default() -> Self {
        Decoded {
            pkt: 0,
            dest: 0,
            phase: Phase::Up,
            ports: PortMask::EMPTY,
        }
    }
}

/// Why a header could not be routed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// The header is malformed.
    Header(HeaderError),
    /// The table has no legal route from this switch in this phase.
    NoRoute {
        /// The switch.
        switch: u32,
        /// The destination.
        node: u32,
        /// The phase.
        phase: Phase,
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
        }
    }
}

/// The unicast decode logic of one switch, with its routing table.
#[derive(Clone, Debug)]
pub struct UnicastDecoder {
    switch: u32,
    format: UnicastFormat,
    /// Candidate ports by `2 * node + phase`.
    table: Box<[PortMask]>,
}

impl UnicastDecoder {
    /// The decoder of switch `switch` for headers of `format`, with the
    /// switch's rows of `routes`.
    pub fn new(switch: u32, format: UnicastFormat, routes: &RoutingTables) -> Self {
        let table = (0..routes.num_nodes() as u32)
            .flat_map(|n| [Phase::Up, Phase::Down].map(|ph| routes.candidates(switch, n, ph)))
            .collect();
        UnicastDecoder {
            switch,
            format,
            table,
        }
    }

    /// Header length in flits.
    #[inline]
    pub fn header_flits(&self) -> usize {
        self.format.flits()
    }

    /// The header format.
    pub fn format(&self) -> UnicastFormat {
        self.format
    }

    /// Decodes `header` of packet `pkt` that arrived in phase `phase`.
    pub fn decode(&self, pkt: u16, header: &[u8], phase: Phase) -> Result<Decoded, DecodeError> {
        let dest = self.format.decode(header).map_err(DecodeError::Header)?;
        self.route(pkt, dest, phase)
    }

    /// Decodes a header given as a word of its `H` bytes, first byte most
    /// significant (as the input buffer's header latch holds it).
    #[inline]
    pub fn decode_word(&self, pkt: u16, word: u64, phase: Phase) -> Result<Decoded, DecodeError> {
        let dest = self.format.decode_word(word).map_err(DecodeError::Header)?;
        self.route(pkt, dest, phase)
    }

    #[inline]
    fn route(&self, pkt: u16, dest: u32, phase: Phase) -> Result<Decoded, DecodeError> {
        let ports = self.table[2 * dest as usize + phase as usize];
        if ports.is_empty() {
            return Err(DecodeError::NoRoute {
                switch: self.switch,
                node: dest,
                phase,
            });
        }
        Ok(Decoded {
            pkt,
            dest,
            phase,
            ports,
        })
    }
}

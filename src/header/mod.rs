//! Header encodings and their flits (seed 000 sections 5.2.3 and 5.3.1).
//!
//! A flit is one byte (seed 000 section 6.2: links are 1 byte wide, equal to
//! the flit size), so a header of `b` bits takes `ceil(b / 8)` flits, sent
//! most significant byte first. Every field is a big-endian number whose bit
//! `i` stands for port or node `i`, as a Verilog `[n-1:0]` vector reads.
//!
//! The first bit of every header is the tag: `0` unicast, `1`
//! multidestination. A multidestination header's next two bits give its
//! kind:
//!
//! | kind | first byte | then | flits |
//! |---|---|---|---|
//! | unicast | `0` + destination id (low bits of the first field) | | `ceil((1 + id bits) / 8)` |
//! | SSR | `1 00` + switch id (low bits of the first field) | `p`-bit port string | `ceil((3 + switch bits) / 8) + ceil(p / 8)` |
//! | multi-drop | `1 01` + number of pairs (5 bits, 1 to 31) | per pair: switch id, then `p`-bit port string, in `ceil((switch bits + p) / 8)` bytes | `1 + pairs * pair bytes` |
//! | bit-string | `1 10` + up-down bit + `0000` | `N`-bit destination string | `1 + ceil(N / 8)` |
//!
//! [`Formats`] holds the field widths of one network and encodes and decodes
//! all of them; [`UnicastFormat`] is the unicast part alone.

mod unicast;
mod worm;

pub use unicast::{MAX_UNICAST_FLITS, UnicastFormat};
pub use worm::{Formats, Header, MAX_PAIRS};

use std::fmt;

/// The encoding of a header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// Tag 0: one destination node.
    Unicast,
    /// Single switch replication: one switch and some of its ports.
    Ssr,
    /// Path-based multi-drop: a list of (switch, ports) pairs.
    MultiDrop,
    /// An `N`-bit destination string with an up-down bit.
    BitString,
}

impl Kind {
    /// The 2-bit code traced as `kind` (0 unicast, 1 SSR, 2 multi-drop, 3
    /// bit-string).
    pub fn code(self) -> u64 {
        match self {
            Kind::Unicast => 0,
            Kind::Ssr => 1,
            Kind::MultiDrop => 2,
            Kind::BitString => 3,
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kind::Unicast => "unicast",
            Kind::Ssr => "SSR",
            Kind::MultiDrop => "multi-drop",
            Kind::BitString => "bit-string",
        })
    }
}

/// What is wrong with a header a decode unit received.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeaderError {
    /// Fewer flits than the encoding needs.
    Short {
        /// The encoding.
        kind: Kind,
        /// Flits present.
        have: usize,
        /// Flits needed.
        need: usize,
    },
    /// The tag bit says another encoding.
    NotUnicast,
    /// The kind bits name no encoding.
    UnknownKind {
        /// The first byte.
        first: u8,
    },
    /// Bits that must be zero are not.
    Reserved {
        /// The header word (or its first 8 bytes).
        word: u64,
    },
    /// The destination id is beyond the last node.
    NoSuchNode {
        /// The id.
        id: u64,
        /// Number of nodes.
        nodes: u32,
    },
    /// A switch id beyond the last switch.
    NoSuchSwitch {
        /// The id.
        id: u64,
        /// Number of switches.
        switches: u32,
    },
    /// A multi-drop header with no pair.
    NoPairs,
}

impl fmt::Display for HeaderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            HeaderError::Short { kind, have, need } => {
                write!(
                    f,
                    "header of {}, {kind} needs {need}",
                    crate::counted(have as u64, "flits")
                )
            }
            HeaderError::NotUnicast => write!(f, "tag bit is 1: not a unicast header"),
            HeaderError::UnknownKind { first } => {
                write!(
                    f,
                    "first header byte {first:#04x} names no multidestination encoding"
                )
            }
            HeaderError::Reserved { word } => {
                write!(f, "reserved header bits are not zero (header {word:#x})")
            }
            HeaderError::NoSuchNode { id, nodes } => {
                write!(
                    f,
                    "destination node {id} does not exist (the network has {})",
                    crate::error::node_range(nodes)
                )
            }
            HeaderError::NoSuchSwitch { id, switches } => {
                write!(
                    f,
                    "switch {id} does not exist (switches 0 to {})",
                    switches.saturating_sub(1)
                )
            }
            HeaderError::NoPairs => write!(f, "multi-drop header with no (switch, ports) pair"),
        }
    }
}

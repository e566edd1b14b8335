//! The unicast header: tag bit `0` and the destination node id.

use super::{HeaderError, Kind};
use crate::rtl::bits_for;
use crate::{Error, Result};
use arrayvec::ArrayVec;

/// Most flits a unicast header can take (a 32-bit id and the tag bit).
pub const MAX_UNICAST_FLITS: usize = 5;

/// The unicast header layout of a network of `N` nodes.
///
/// The header is a `8 * H`-bit word sent most significant byte first: bit
/// `8H - 1` is the tag (`0` = unicast), the low `ceil(log2 N)` bits are the
/// destination id, the bits between are zero. `H = ceil((1 + ceil(log2 N)) / 8)`:
/// one flit up to 128 nodes, two flits up to 32768.
///
/// ```
/// use wormcast::header::UnicastFormat;
/// let f = UnicastFormat::new(32);
/// assert_eq!(f.flits(), 1);
/// assert_eq!(f.encode(5).unwrap().as_slice(), &[0b0000_0101]);
/// let f = UnicastFormat::new(256);
/// assert_eq!(f.flits(), 2);
/// assert_eq!(f.encode(0x1ab).is_err(), true); // node 427 does not exist
/// assert_eq!(f.encode(0xab).unwrap().as_slice(), &[0x00, 0xab]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnicastFormat {
    nodes: u32,
    id_bits: u32,
    flits: usize,
}

impl UnicastFormat {
    /// The layout for `nodes` nodes.
    pub fn new(nodes: u32) -> Self {
        let id_bits = bits_for(nodes.saturating_sub(1));
        UnicastFormat {
            nodes,
            id_bits,
            flits: (1 + id_bits as usize).div_ceil(8),
        }
    }

    /// Header length in flits.
    pub fn flits(&self) -> usize {
        self.flits
    }

    /// Width of the destination id field.
    pub fn id_bits(&self) -> u32 {
        self.id_bits
    }

    /// Number of nodes.
    pub fn nodes(&self) -> u32 {
        self.nodes
    }

    /// The header flits for destination `dest`.
    pub fn encode(&self, dest: u32) -> Result<ArrayVec<u8, MAX_UNICAST_FLITS>> {
        if dest >= self.nodes {
            return Err(Error::UnknownNode {
                node: dest as u64,
                nodes: self.nodes,
            });
        }
        let mut out = ArrayVec::new();
        for i in (0..self.flits).rev() {
            out.push((dest as u64 >> (8 * i)) as u8);
        }
        Ok(out)
    }

    /// Byte `i` (`i < flits()`) of the header of a packet to `dest`.
    #[inline]
    pub fn header_byte(&self, dest: u32, i: usize) -> u8 {
        (dest as u64 >> (8 * (self.flits - 1 - i))) as u8
    }

    /// True when `flits` start with the header that sends a packet to
    /// `node`: [`decode`](Self::decode) would give `Ok(node)`, checked
    /// without building its result.
    #[inline]
    pub fn names(&self, flits: &[u8], node: u32) -> bool {
        // A word equal to a node's number has the top bit clear and no
        // reserved bit set, so equality is the whole check.
        node < self.nodes
            && flits.len() >= self.flits
            && flits[..self.flits]
                .iter()
                .fold(0u64, |w, &b| w << 8 | b as u64)
                == node as u64
    }

    /// The destination of a header, or what is wrong with it.
    #[inline]
    pub fn decode(&self, flits: &[u8]) -> std::result::Result<u32, HeaderError> {
        if flits.len() < self.flits {
            return Err(HeaderError::Short {
                kind: Kind::Unicast,
                have: flits.len(),
                need: self.flits,
            });
        }
        self.decode_word(
            flits[..self.flits]
                .iter()
                .fold(0u64, |w, &b| w << 8 | b as u64),
        )
    }

    /// The destination of a header given as the word of its flits, first
    /// flit most significant.
    #[inline]
    pub fn decode_word(&self, word: u64) -> std::result::Result<u32, HeaderError> {
        let top = 8 * self.flits as u32 - 1;
        if word >> top & 1 == 1 {
            return Err(HeaderError::NotUnicast);
        }
        if word >> self.id_bits != 0 {
            return Err(HeaderError::Reserved { word });
        }
        if word >= self.nodes as u64 {
            return Err(HeaderError::NoSuchNode {
                id: word,
                nodes: self.nodes,
            });
        }
        Ok(word as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn header_lengths_follow_the_id_width() {
        assert_eq!(UnicastFormat::new(1).flits(), 1);
        assert_eq!(UnicastFormat::new(128).flits(), 1);
        assert_eq!(UnicastFormat::new(129).flits(), 2);
        assert_eq!(UnicastFormat::new(32768).flits(), 2);
        assert_eq!(UnicastFormat::new(32769).flits(), 3);
    }

    #[test]
    fn malformed_headers_are_named() {
        let f = UnicastFormat::new(32);
        assert_eq!(
            f.decode(&[0x80]).unwrap_err().to_string(),
            "tag bit is 1: not a unicast header"
        );
        assert_eq!(
            f.decode(&[0x25]).unwrap_err().to_string(),
            "reserved header bits are not zero (header 0x25)"
        );
        let f = UnicastFormat::new(20);
        assert_eq!(
            f.decode(&[21]).unwrap_err().to_string(),
            "destination node 21 does not exist (the network has nodes 0 to 19)"
        );
        assert_eq!(
            f.decode(&[]).unwrap_err().to_string(),
            "header of 0 flits, unicast needs 1"
        );
        assert!(matches!(
            f.encode(20),
            Err(Error::UnknownNode {
                node: 20,
                nodes: 20
            })
        ));
    }

    proptest! {
        #[test]
        fn encode_then_decode_is_identity(nodes in 1u32..100_000, pick in any::<u32>()) {
            let f = UnicastFormat::new(nodes);
            let d = pick % nodes;
            let h = f.encode(d).unwrap();
            prop_assert_eq!(h.len(), f.flits());
            prop_assert_eq!(h[0] >> 7, 0, "tag bit");
            prop_assert_eq!(f.decode(&h), Ok(d));
        }

        /// `names` agrees with `decode` on any bytes, of any length, and
        /// any node number (valid or not).
        #[test]
        fn names_is_decode_giving_that_node(
            nodes in 1u32..100_000,
            random in proptest::collection::vec(any::<u8>(), 0..4),
            as_word in any::<bool>(),
            word in any::<u32>(),
            ask_word in any::<bool>(),
            other in any::<u32>(),
        ) {
            let f = UnicastFormat::new(nodes);
            // Either random bytes or a header-long word near the nodes'
            // count (a node, the first number past them, or one more),
            // asked about that word or another number, so that both
            // answers and the edge at `nodes` are drawn often.
            let w = nodes - 1 + word % 3;
            let bytes: Vec<u8> = if as_word {
                (0..f.flits()).map(|i| (w >> (8 * (f.flits() - 1 - i))) as u8).collect()
            } else {
                random
            };
            let node = if ask_word { w } else { other % (nodes + 2) };
            prop_assert_eq!(f.names(&bytes, node), f.decode(&bytes) == Ok(node));
        }
    }
}

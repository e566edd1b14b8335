//! The multidestination encodings: SSR, multi-drop and bit-string headers
//! (seed 000 sections 5.2.3 and 5.3.1), and the field widths of a network.

use super::{HeaderError, Kind, UnicastFormat};
use crate::rtl::{BitString, PortMask, bits_for};
use crate::{Error, Result};

/// Most (switch, ports) pairs a multi-drop header carries.
pub const MAX_PAIRS: usize = 31;

/// A header, decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Header {
    /// To one node.
    Unicast {
        /// The destination node.
        dest: u32,
    },
    /// To the nodes on some ports of one switch.
    Ssr {
        /// The switch.
        switch: u32,
        /// Its ports that lead to destinations.
        ports: PortMask,
    },
    /// To the nodes on some ports of each switch of a path, in order.
    MultiDrop {
        /// (switch, ports) pairs, in the order the worm visits them.
        pairs: Vec<(u32, PortMask)>,
    },
    /// To every node whose bit is set.
    BitString {
        /// The up-down bit: still travelling up.
        up: bool,
        /// The destinations.
        dests: BitString,
    },
}

/// The field widths of the headers of one network: `N` nodes, `S` switches,
/// port strings of `p` bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Formats {
    unicast: UnicastFormat,
    nodes: u32,
    switches: u32,
    ports: u32,
    sw_bits: u32,
    ssr_id_bytes: usize,
    port_bytes: usize,
    pair_bytes: usize,
    dest_bytes: usize,
}

const TAG: u8 = 0x80;
const KIND_SHIFT: u32 = 5;
const UP_BIT: u8 = 0x10;

fn read_be(bytes: &[u8]) -> u128 {
    bytes.iter().fold(0u128, |w, &b| w << 8 | b as u128)
}

fn write_be(value: u128, out: &mut [u8]) {
    let n = out.len();
    for (i, b) in out.iter_mut().enumerate() {
        *b = (value >> (8 * (n - 1 - i))) as u8;
    }
}

fn short(kind: Kind, have: usize, need: usize) -> HeaderError {
    HeaderError::Short { kind, have, need }
}

impl Formats {
    /// The encodings of a network of `nodes` nodes and `switches` switches
    /// whose port strings have `ports` bits (the largest switch).
    pub fn new(nodes: u32, switches: u32, ports: u32) -> Self {
        assert!((1..=64).contains(&ports), "port strings of {ports} bits");
        let sw_bits = bits_for(switches.saturating_sub(1));
        Formats {
            unicast: UnicastFormat::new(nodes),
            nodes,
            switches,
            ports,
            sw_bits,
            ssr_id_bytes: (3 + sw_bits as usize).div_ceil(8),
            port_bytes: (ports as usize).div_ceil(8),
            pair_bytes: (sw_bits + ports).div_ceil(8) as usize,
            dest_bytes: (nodes as usize).div_ceil(8),
        }
    }

    /// The unicast part.
    pub fn unicast(&self) -> UnicastFormat {
        self.unicast
    }

    /// Number of nodes.
    pub fn nodes(&self) -> u32 {
        self.nodes
    }

    /// Number of switches.
    pub fn switches(&self) -> u32 {
        self.switches
    }

    /// Width of port strings.
    pub fn ports(&self) -> u32 {
        self.ports
    }

    /// Width of a switch id.
    pub fn switch_bits(&self) -> u32 {
        self.sw_bits
    }

    /// Flits of an SSR header.
    pub fn ssr_len(&self) -> usize {
        self.ssr_id_bytes + self.port_bytes
    }

    /// Bytes of one multi-drop pair.
    pub fn pair_len(&self) -> usize {
        self.pair_bytes
    }

    /// Flits of a multi-drop header of `pairs` pairs.
    pub fn multidrop_len(&self, pairs: usize) -> usize {
        1 + pairs * self.pair_bytes
    }

    /// Flits of a bit-string header.
    pub fn bitstring_len(&self) -> usize {
        1 + self.dest_bytes
    }

    /// The longest header any encoding can produce.
    pub fn max_len(&self) -> usize {
        self.unicast
            .flits()
            .max(self.ssr_len())
            .max(self.multidrop_len(MAX_PAIRS))
            .max(self.bitstring_len())
    }

    /// The longest header of encoding `kind` (multi-drop: one pair per
    /// switch, at most [`MAX_PAIRS`]).
    pub fn max_len_of(&self, kind: Kind) -> usize {
        match kind {
            Kind::Unicast => self.unicast.flits(),
            Kind::Ssr => self.ssr_len(),
            Kind::MultiDrop => self.multidrop_len(MAX_PAIRS.min(self.switches as usize)),
            Kind::BitString => self.bitstring_len(),
        }
    }

    /// The encoding named by a header's first byte.
    #[inline]
    pub fn kind(&self, first: u8) -> std::result::Result<Kind, HeaderError> {
        if first & TAG == 0 {
            return Ok(Kind::Unicast);
        }
        match (first >> KIND_SHIFT) & 3 {
            0 => Ok(Kind::Ssr),
            1 => Ok(Kind::MultiDrop),
            2 => Ok(Kind::BitString),
            _ => Err(HeaderError::UnknownKind { first }),
        }
    }

    /// The length in flits of the header that starts with `first`.
    #[inline]
    pub fn len_of(&self, first: u8) -> std::result::Result<usize, HeaderError> {
        Ok(match self.kind(first)? {
            Kind::Unicast => self.unicast.flits(),
            Kind::Ssr => self.ssr_len(),
            Kind::MultiDrop => self.multidrop_len(self.pairs_of(first)),
            Kind::BitString => self.bitstring_len(),
        })
    }

    /// Number of pairs of the multi-drop header that starts with `first`.
    #[inline]
    pub fn pairs_of(&self, first: u8) -> usize {
        (first & 0x1f) as usize
    }

    /// The up-down bit of the bit-string header that starts with `first`.
    #[inline]
    pub fn up_of(&self, first: u8) -> bool {
        first & UP_BIT != 0
    }

    fn check_switch(&self, id: u128) -> std::result::Result<u32, HeaderError> {
        if id >= self.switches as u128 {
            return Err(HeaderError::NoSuchSwitch {
                id: id as u64,
                switches: self.switches,
            });
        }
        Ok(id as u32)
    }

    fn check_ports(&self, ports: u128) -> std::result::Result<PortMask, HeaderError> {
        if self.ports < 64 && ports >> self.ports != 0 {
            return Err(HeaderError::Reserved { word: ports as u64 });
        }
        Ok(PortMask(ports as u64))
    }

    /// The switch and port string of an SSR header.
    pub fn ssr_fields(&self, bytes: &[u8]) -> std::result::Result<(u32, PortMask), HeaderError> {
        let need = self.ssr_len();
        if bytes.len() < need {
            return Err(short(Kind::Ssr, bytes.len(), need));
        }
        let id = read_be(&bytes[..self.ssr_id_bytes]);
        let id = id & ((1u128 << (8 * self.ssr_id_bytes - 3)) - 1);
        if id >> self.sw_bits != 0 {
            return Err(HeaderError::Reserved { word: id as u64 });
        }
        let sw = self.check_switch(id)?;
        let ports = self.check_ports(read_be(&bytes[self.ssr_id_bytes..need]))?;
        Ok((sw, ports))
    }

    /// Pair `i` of a multi-drop header.
    pub fn pair(
        &self,
        bytes: &[u8],
        i: usize,
    ) -> std::result::Result<(u32, PortMask), HeaderError> {
        let at = 1 + i * self.pair_bytes;
        if bytes.len() < at + self.pair_bytes {
            return Err(short(Kind::MultiDrop, bytes.len(), at + self.pair_bytes));
        }
        let w = read_be(&bytes[at..at + self.pair_bytes]);
        let id = w >> self.ports;
        let ports = w & ((1u128 << self.ports) - 1);
        Ok((self.check_switch(id)?, PortMask(ports as u64)))
    }

    /// Reads the destination string of a bit-string header into `out` (of
    /// `N` bits).
    pub fn read_dests(
        &self,
        bytes: &[u8],
        out: &mut BitString,
    ) -> std::result::Result<(), HeaderError> {
        let need = self.bitstring_len();
        if bytes.len() < need {
            return Err(short(Kind::BitString, bytes.len(), need));
        }
        if bytes[0] & 0x0f != 0 {
            return Err(HeaderError::Reserved {
                word: bytes[0] as u64,
            });
        }
        out.read_be_bytes(&bytes[1..need])
            .map_err(|bit| HeaderError::NoSuchNode {
                id: bit as u64,
                nodes: self.nodes,
            })
    }

    /// True when `bytes` start with a bit-string header going down whose
    /// destination string holds `node` alone: what a node checks of a copy
    /// it receives, without decoding the string (the same verdict as
    /// [`decode`](Self::decode) and a look at what it gives; no
    /// allocation).
    #[inline]
    pub fn bitstring_names(&self, bytes: &[u8], node: u32) -> bool {
        let need = self.bitstring_len();
        if node >= self.nodes || bytes.len() < need || bytes[0] != TAG | 2 << KIND_SHIFT {
            return false;
        }
        let string = &bytes[1..need];
        let at = string.len() - 1 - node as usize / 8;
        let bit = 1u8 << (node % 8);
        string
            .iter()
            .enumerate()
            .all(|(j, &b)| b == if j == at { bit } else { 0 })
    }

    /// True when `bytes` start with a valid SSR header for switch `sw`
    /// whose port string holds `port`, or a valid multi-drop header whose
    /// first pair does: what a node on port `port` of switch `sw` checks
    /// of a copy it receives, without decoding the header (the same
    /// verdict as [`decode`](Self::decode) and a look at what it gives;
    /// no allocation).
    #[inline]
    pub fn port_names(&self, bytes: &[u8], sw: u32, port: u32) -> bool {
        let Some(&first) = bytes.first() else {
            return false;
        };
        let names = |(s, p): (u32, PortMask)| s == sw && p.contains(port as usize);
        match self.kind(first) {
            Ok(Kind::Ssr) => self.ssr_fields(bytes).is_ok_and(names),
            Ok(Kind::MultiDrop) => {
                let n = self.pairs_of(first);
                n > 0
                    && self.pair(bytes, 0).is_ok_and(names)
                    && (1..n).all(|i| self.pair(bytes, i).is_ok())
            }
            _ => false,
        }
    }

    /// Writes a bit-string header into `out` (of [`bitstring_len`](Self::bitstring_len) bytes).
    pub fn write_bitstring(&self, up: bool, dests: &BitString, out: &mut [u8]) {
        out[0] = TAG | 2 << KIND_SHIFT | if up { UP_BIT } else { 0 };
        dests.write_be_bytes(&mut out[1..]);
    }

    /// Checks a whole header of any kind and returns it decoded.
    pub fn decode(&self, bytes: &[u8]) -> std::result::Result<Header, HeaderError> {
        let first = *bytes.first().ok_or(short(Kind::Unicast, 0, 1))?;
        match self.kind(first)? {
            Kind::Unicast => Ok(Header::Unicast {
                dest: self.unicast.decode(bytes)?,
            }),
            Kind::Ssr => {
                let (switch, ports) = self.ssr_fields(bytes)?;
                Ok(Header::Ssr { switch, ports })
            }
            Kind::MultiDrop => {
                let n = self.pairs_of(first);
                if n == 0 {
                    return Err(HeaderError::NoPairs);
                }
                let pairs = (0..n)
                    .map(|i| self.pair(bytes, i))
                    .collect::<std::result::Result<_, _>>()?;
                Ok(Header::MultiDrop { pairs })
            }
            Kind::BitString => {
                let mut dests = BitString::zeros(self.nodes as usize);
                self.read_dests(bytes, &mut dests)?;
                Ok(Header::BitString {
                    up: self.up_of(first),
                    dests,
                })
            }
        }
    }

    /// Encodes a header into `out` (cleared first).
    pub fn encode(&self, h: &Header, out: &mut Vec<u8>) -> Result<()> {
        out.clear();
        let bad_switch = |s: u32| {
            Error::BadPacket(format!(
                "switch {s} does not exist (switches 0 to {})",
                self.switches.saturating_sub(1)
            ))
        };
        let bad_ports = |p: PortMask| {
            Error::BadPacket(format!(
                "port string {p:?} names ports beyond the {} a switch has",
                self.ports
            ))
        };
        let ports_ok = |p: PortMask| self.ports >= 64 || p.0 >> self.ports == 0;
        match h {
            Header::Unicast { dest } => out.extend_from_slice(&self.unicast.encode(*dest)?),
            Header::Ssr { switch, ports } => {
                if *switch >= self.switches {
                    return Err(bad_switch(*switch));
                }
                if !ports_ok(*ports) {
                    return Err(bad_ports(*ports));
                }
                out.resize(self.ssr_len(), 0);
                let id_bits = 8 * self.ssr_id_bytes;
                write_be(
                    1u128 << (id_bits - 1) | *switch as u128,
                    &mut out[..self.ssr_id_bytes],
                );
                write_be(ports.0 as u128, &mut out[self.ssr_id_bytes..]);
            }
            Header::MultiDrop { pairs } => {
                if pairs.is_empty() || pairs.len() > MAX_PAIRS {
                    return Err(Error::BadPacket(format!(
                        "a multi-drop header carries 1 to {MAX_PAIRS} (switch, ports) pairs, not {}",
                        pairs.len()
                    )));
                }
                out.resize(self.multidrop_len(pairs.len()), 0);
                out[0] = TAG | 1 << KIND_SHIFT | pairs.len() as u8;
                for (i, &(s, p)) in pairs.iter().enumerate() {
                    if s >= self.switches {
                        return Err(bad_switch(s));
                    }
                    if !ports_ok(p) {
                        return Err(bad_ports(p));
                    }
                    let at = 1 + i * self.pair_bytes;
                    write_be(
                        (s as u128) << self.ports | p.0 as u128,
                        &mut out[at..at + self.pair_bytes],
                    );
                }
            }
            Header::BitString { up, dests } => {
                if dests.len() != self.nodes as usize {
                    return Err(Error::BadPacket(format!(
                        "a destination string of {} for {}",
                        crate::counted(dests.len() as u64, "bits"),
                        crate::counted(self.nodes.into(), "nodes")
                    )));
                }
                out.resize(self.bitstring_len(), 0);
                self.write_bitstring(*up, dests, out);
            }
        }
        Ok(())
    }

    /// Writes the multi-drop header `bytes` without its first pair into
    /// `out` (the header a worm carries on after its first switch). The
    /// header must have at least two pairs.
    pub fn write_stripped(&self, bytes: &[u8], out: &mut Vec<u8>) {
        let n = self.pairs_of(bytes[0]);
        debug_assert!(n >= 2);
        out.clear();
        out.push(TAG | 1 << KIND_SHIFT | (n - 1) as u8);
        out.extend_from_slice(&bytes[1 + self.pair_bytes..self.multidrop_len(n)]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn lengths_follow_the_field_widths() {
        // 32 nodes, 8 switches of 8 ports.
        let f = Formats::new(32, 8, 8);
        assert_eq!(f.unicast().flits(), 1);
        assert_eq!(f.ssr_len(), 2, "1 00 sss in one byte, then 8 port bits");
        assert_eq!(f.pair_len(), 2, "3 switch bits + 8 port bits");
        assert_eq!(f.multidrop_len(3), 7);
        assert_eq!(f.bitstring_len(), 5, "the tag/up-down byte and 32 bits");
        // 256 nodes, 64 switches of 8 ports: bit string of 32 bytes.
        let f = Formats::new(256, 64, 8);
        assert_eq!(f.bitstring_len(), 33);
        assert_eq!(f.ssr_len(), 3, "3 + 6 bits need two bytes");
    }

    #[test]
    fn encodings_match_the_table() {
        let f = Formats::new(32, 8, 8);
        let mut out = Vec::new();
        f.encode(
            &Header::Ssr {
                switch: 5,
                ports: PortMask::from_iter([1, 3]),
            },
            &mut out,
        )
        .unwrap();
        assert_eq!(out, vec![0b1000_0101, 0b0000_1010]);
        f.encode(
            &Header::MultiDrop {
                pairs: vec![(1, PortMask::single(0)), (6, PortMask::from_iter([2, 7]))],
            },
            &mut out,
        )
        .unwrap();
        // 1 01 00010, then 3+8 bits per pair in 2 bytes: 001 00000001, 110 10000100.
        assert_eq!(
            out,
            vec![
                0b1010_0010,
                0b0000_0001,
                0b0000_0001,
                0b0000_0110,
                0b1000_0100
            ]
        );
        let mut stripped = Vec::new();
        f.write_stripped(&out, &mut stripped);
        assert_eq!(stripped, vec![0b1010_0001, 0b0000_0110, 0b1000_0100]);
        f.encode(
            &Header::BitString {
                up: true,
                dests: BitString::from_indices(32, [0, 9, 31]),
            },
            &mut out,
        )
        .unwrap();
        assert_eq!(
            out,
            vec![0b1101_0000, 0b1000_0000, 0, 0b0000_0010, 0b0000_0001]
        );
    }

    #[test]
    fn malformed_headers_are_named() {
        let f = Formats::new(32, 8, 8);
        assert_eq!(f.kind(0xe0), Err(HeaderError::UnknownKind { first: 0xe0 }));
        assert_eq!(f.decode(&[0b1010_0000]).unwrap_err(), HeaderError::NoPairs);
        assert_eq!(
            f.decode(&[0b1100_0000, 0, 0]).unwrap_err().to_string(),
            "header of 3 flits, bit-string needs 5"
        );
        assert_eq!(
            f.decode(&[0b1100_0001, 0, 0, 0, 0]).unwrap_err(),
            HeaderError::Reserved { word: 0b1100_0001 }
        );
        let f = Formats::new(20, 5, 8);
        assert_eq!(
            f.decode(&[0b1000_0110, 0]).unwrap_err().to_string(),
            "switch 6 does not exist (switches 0 to 4)"
        );
        assert_eq!(
            f.decode(&[0b1100_0000, 0b0001_0000, 0, 0])
                .unwrap_err()
                .to_string(),
            "destination node 20 does not exist (the network has nodes 0 to 19)"
        );
        let mut out = Vec::new();
        assert!(
            f.encode(
                &Header::Ssr {
                    switch: 9,
                    ports: PortMask::EMPTY
                },
                &mut out
            )
            .is_err()
        );
        let f = Formats::new(20, 5, 6);
        assert_eq!(
            f.decode(&[0b1000_0001, 0b0100_0000]).unwrap_err(),
            HeaderError::Reserved { word: 0b0100_0000 },
            "port 6 of a 6-port string"
        );
    }

    fn header(f: Formats) -> impl Strategy<Value = Header> {
        let (n, s, p) = (f.nodes(), f.switches(), f.ports());
        let mask = if p == 64 { u64::MAX } else { (1u64 << p) - 1 };
        prop_oneof![
            (0..n).prop_map(|dest| Header::Unicast { dest }),
            (0..s, any::<u64>()).prop_map(move |(switch, m)| Header::Ssr {
                switch,
                ports: PortMask(m & mask)
            }),
            proptest::collection::vec((0..s, any::<u64>()), 1..=MAX_PAIRS).prop_map(move |v| {
                Header::MultiDrop {
                    pairs: v
                        .into_iter()
                        .map(|(sw, m)| (sw, PortMask(m & mask)))
                        .collect(),
                }
            }),
            (
                any::<bool>(),
                proptest::collection::vec(any::<bool>(), n as usize)
            )
                .prop_map(|(up, bits)| {
                    Header::BitString {
                        up,
                        dests: BitString::from_indices(
                            bits.len(),
                            bits.iter().enumerate().filter(|(_, b)| **b).map(|(i, _)| i),
                        ),
                    }
                }),
        ]
    }

    proptest! {
        #[test]
        fn encode_then_decode_is_identity(
            (f, h) in (1u32..300, 1u32..200, 1u32..=64)
                .prop_map(|(n, s, p)| Formats::new(n, s, p))
                .prop_flat_map(|f| (Just(f), header(f)))
        ) {
            let mut bytes = Vec::new();
            f.encode(&h, &mut bytes).unwrap();
            prop_assert_eq!(bytes.len(), f.len_of(bytes[0]).unwrap());
            prop_assert_eq!(f.decode(&bytes).unwrap(), h);
        }

        /// `bitstring_names` gives the verdict of decoding: a bit-string
        /// header going down whose string holds that node alone. Tried on
        /// the encodings of one, two or no nodes (the one set most of the
        /// time), with a byte flipped now and then, and on random bytes.
        #[test]
        fn bitstring_names_is_decode_naming_that_node_alone(
            n in 1u32..300,
            node in 0u32..310,
            other in 0u32..310,
            up in proptest::bool::weighted(0.2),
            flip in proptest::option::weighted(0.3, (0usize..40, 0u8..8)),
            noise in proptest::collection::vec(any::<u8>(), 0..40),
            random in proptest::bool::weighted(0.2),
        ) {
            let f = Formats::new(n, 4, 8);
            let bytes = if random {
                noise
            } else {
                let mut dests = BitString::zeros(n as usize);
                for x in [node.min(n - 1), other] {
                    if x < n {
                        dests.set(x as usize, true);
                    }
                }
                let mut bytes = Vec::new();
                f.encode(&Header::BitString { up, dests }, &mut bytes).unwrap();
                if let Some((at, bit)) = flip {
                    let at = at % bytes.len();
                    bytes[at] ^= 1 << bit;
                }
                bytes
            };
            let decoded = matches!(
                f.decode(&bytes),
                Ok(Header::BitString { up: false, dests })
                    if dests.count_ones() == 1 && node < n && dests.get(node as usize)
            );
            prop_assert_eq!(f.bitstring_names(&bytes, node), decoded);
        }

        /// `port_names` gives the verdict of decoding: an SSR header for
        /// that switch, or a multi-drop header whose first pair is it, with
        /// that port in the port string. Tried on the encodings of SSR and
        /// multi-drop headers of one to four pairs (the first pair that
        /// switch most of the time), with a byte flipped now and then, and
        /// on random bytes.
        #[test]
        fn port_names_is_decode_naming_that_port(
            (n, switches, ports) in (1u32..300, 1u32..70, 2u32..=16),
            sw in 0u32..72,
            port in 0u32..18,
            pairs in proptest::collection::vec((0u32..72, any::<u64>()), 1..5),
            ssr in any::<bool>(),
            same in proptest::bool::weighted(0.7),
            flip in proptest::option::weighted(0.3, (0usize..40, 0u8..8)),
            cut in proptest::option::weighted(0.2, 1usize..4),
            noise in proptest::collection::vec(any::<u8>(), 0..40),
            random in proptest::bool::weighted(0.2),
        ) {
            let f = Formats::new(n, switches, ports);
            let mask = |m: u64| PortMask(m & ((1u64 << ports) - 1));
            let mut pairs: Vec<(u32, PortMask)> =
                pairs.iter().map(|&(s, m)| (s % switches, mask(m))).collect();
            if same {
                pairs[0].0 = sw.min(switches - 1);
                pairs[0].1.insert((port % ports) as usize);
            }
            let bytes = if random {
                noise
            } else {
                let h = if ssr {
                    Header::Ssr { switch: pairs[0].0, ports: pairs[0].1 }
                } else {
                    Header::MultiDrop { pairs }
                };
                let mut bytes = Vec::new();
                f.encode(&h, &mut bytes).unwrap();
                if let Some((at, bit)) = flip {
                    let at = at % bytes.len();
                    bytes[at] ^= 1 << bit;
                }
                if let Some(c) = cut {
                    bytes.truncate(bytes.len().saturating_sub(c));
                }
                bytes
            };
            let decoded = match f.decode(&bytes) {
                Ok(Header::Ssr { switch, ports }) => switch == sw && ports.contains(port as usize),
                Ok(Header::MultiDrop { pairs }) => {
                    pairs[0].0 == sw && pairs[0].1.contains(port as usize)
                }
                _ => false,
            };
            prop_assert_eq!(f.port_names(&bytes, sw, port), decoded);
        }

        /// Any bytes decode to a header or an error, never a panic.
        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..80), n in 1u32..100, s in 1u32..40, p in 1u32..=64) {
            let _ = Formats::new(n, s, p).decode(&bytes);
        }
    }
}

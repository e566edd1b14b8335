//! Bit vectors: port masks and node bit strings.

use bitvec::prelude::*;
use num_traits::{PrimInt, Unsigned};
use std::fmt;

/// Number of bits a register needs to hold every value in `0..=max`
/// (at least 1).
///
/// ```
/// use wormcast::rtl::bits_for;
/// assert_eq!(bits_for(0u32), 1);
/// assert_eq!(bits_for(1u32), 1);
/// assert_eq!(bits_for(31u32), 5);
/// assert_eq!(bits_for(32u32), 6);
/// assert_eq!(bits_for(u64::MAX), 64);
/// ```
pub fn bits_for<T: PrimInt + Unsigned>(max: T) -> u32 {
    let width = T::zero().count_zeros();
    (width - max.leading_zeros()).max(1)
}

/// A set of switch ports, one bit per port (port `i` = bit `i`), for switches
/// of up to 64 ports. This is the `p`-bit port string of seed 000 section
/// 5.2.3 and the output-port mask a decode unit produces.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct PortMask(pub u64);

impl PortMask {
    /// The empty set.
    pub const EMPTY: PortMask = PortMask(0);

    /// The set holding only `port`.
    #[inline]
    pub fn single(port: usize) -> Self {
        PortMask(1u64 << port)
    }

    /// Ports `0..n`.
    pub fn all(n: usize) -> Self {
        if n >= 64 {
            PortMask(u64::MAX)
        } else {
            PortMask((1u64 << n) - 1)
        }
    }

    /// True when `port` is in the set.
    #[inline]
    pub fn contains(self, port: usize) -> bool {
        self.0 >> port & 1 == 1
    }

    /// True when the set is empty.
    #[inline]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Number of ports in the set.
    #[inline]
    pub fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// Adds `port`.
    #[inline]
    pub fn insert(&mut self, port: usize) {
        self.0 |= 1u64 << port;
    }

    /// Removes `port`.
    #[inline]
    pub fn remove(&mut self, port: usize) {
        self.0 &= !(1u64 << port);
    }

    /// The ports in increasing order.
    #[inline]
    pub fn iter(self) -> PortIter {
        PortIter(self.0)
    }
}

impl fmt::Debug for PortMask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl FromIterator<usize> for PortMask {
    fn from_iter<I: IntoIterator<Item = usize>>(iter: I) -> Self {
        let mut m = PortMask::EMPTY;
        for p in iter {
            m.insert(p);
        }
        m
    }
}

/// Iterator over the ports of a [`PortMask`] (also usable on any `u64`).
#[derive(Clone, Copy, Debug)]
pub struct PortIter(pub u64);

impl Iterator for PortIter {
    type Item = usize;
    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let i = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(i)
    }
}

/// An `N`-bit string with one bit per node: the destination string of a
/// bit-string multidestination header and the reachability strings of seed
/// 000 section 5.3. Node 0 is bit 0.
///
/// As text it is written with node 0 first (`"0110"`: nodes 1 and 2); as a
/// VCD vector it is written most significant bit (node `N-1`) first, as
/// Verilog prints a `[N-1:0]` vector.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct BitString(BitVec<u64, Lsb0>);

impl BitString {
    /// `n` zero bits.
    pub fn zeros(n: usize) -> Self {
        BitString(bitvec![u64, Lsb0; 0; n])
    }

    /// `n` one bits.
    pub fn ones(n: usize) -> Self {
        // Only the `n` live bits: the word-wise operations rely on zeros
        // past the end (`bitvec![1; n]` fills whole words).
        let mut s = Self::zeros(n);
        s.0.fill(true);
        s
    }

    /// A string of `n` bits with the listed positions set.
    pub fn from_indices(n: usize, set: impl IntoIterator<Item = usize>) -> Self {
        let mut s = Self::zeros(n);
        for i in set {
            s.set(i, true);
        }
        s
    }

    /// Parses `'0'`/`'1'` characters, node 0 first.
    pub fn parse(text: &str) -> Option<Self> {
        let mut s = Self::zeros(text.len());
        for (i, c) in text.bytes().enumerate() {
            match c {
                b'0' => {}
                b'1' => s.set(i, true),
                _ => return None,
            }
        }
        Some(s)
    }

    /// Number of bits.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True for a zero-length string.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Bit `i`.
    pub fn get(&self, i: usize) -> bool {
        self.0[i]
    }

    /// Sets bit `i`.
    pub fn set(&mut self, i: usize, v: bool) {
        self.0.set(i, v);
    }

    /// True when no bit is set.
    pub fn is_zero(&self) -> bool {
        self.0.not_any()
    }

    /// Number of set bits.
    pub fn count_ones(&self) -> usize {
        self.0.count_ones()
    }

    /// Positions of the set bits, increasing.
    pub fn iter_ones(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter_ones()
    }

    /// Bitwise AND with `other` (same length).
    pub fn and(&self, other: &BitString) -> BitString {
        let mut r = self.clone();
        r.and_assign(other);
        r
    }

    /// In-place AND.
    pub fn and_assign(&mut self, other: &BitString) {
        assert_eq!(
            self.len(),
            other.len(),
            "AND of bit strings of different lengths"
        );
        for (a, b) in self
            .0
            .as_raw_mut_slice()
            .iter_mut()
            .zip(other.0.as_raw_slice())
        {
            *a &= *b;
        }
    }

    /// In-place OR.
    pub fn or_assign(&mut self, other: &BitString) {
        assert_eq!(
            self.len(),
            other.len(),
            "OR of bit strings of different lengths"
        );
        for (a, b) in self
            .0
            .as_raw_mut_slice()
            .iter_mut()
            .zip(other.0.as_raw_slice())
        {
            *a |= *b;
        }
    }

    /// `self AND NOT other`: the bits of `self` that `other` does not cover.
    pub fn and_not(&self, other: &BitString) -> BitString {
        assert_eq!(
            self.len(),
            other.len(),
            "AND-NOT of bit strings of different lengths"
        );
        let mut r = self.clone();
        for (a, b) in
            r.0.as_raw_mut_slice()
                .iter_mut()
                .zip(other.0.as_raw_slice())
        {
            *a &= !*b;
        }
        r
    }

    /// The underlying bits.
    pub fn as_bitslice(&self) -> &BitSlice<u64, Lsb0> {
        &self.0
    }

    /// The string as a big-endian number of `ceil(len / 8)` bytes: bit `i`
    /// (node `i`) is bit `i % 8` of byte `bytes - 1 - i / 8`. Writes `out`,
    /// which must have that many bytes.
    pub fn write_be_bytes(&self, out: &mut [u8]) {
        let nbytes = self.len().div_ceil(8);
        assert_eq!(
            out.len(),
            nbytes,
            "{} bytes for a {}-bit string",
            out.len(),
            self.len()
        );
        out.fill(0);
        for i in self.0.iter_ones() {
            out[nbytes - 1 - i / 8] |= 1 << (i % 8);
        }
    }

    /// Reads a string of `n` bits from big-endian bytes (see
    /// [`write_be_bytes`](Self::write_be_bytes)); bits beyond `n` must be 0.
    pub fn read_be_bytes(&mut self, bytes: &[u8]) -> Result<(), usize> {
        let n = self.len();
        let nbytes = n.div_ceil(8);
        assert_eq!(
            bytes.len(),
            nbytes,
            "{} bytes for a {n}-bit string",
            bytes.len()
        );
        let words = self.0.as_raw_mut_slice();
        words.fill(0);
        for (j, &b) in bytes.iter().enumerate() {
            let base = 8 * (nbytes - 1 - j);
            for bit in PortIter(b as u64) {
                let i = base + bit;
                if i >= n {
                    return Err(i);
                }
                words[i / 64] |= 1 << (i % 64);
            }
        }
        Ok(())
    }

    /// Clears every bit, keeping the length (no allocation).
    pub fn clear(&mut self) {
        self.0.as_raw_mut_slice().fill(0);
    }

    /// The string as 64-bit words, bit `i` in bit `i % 64` of word
    /// `i / 64`; the bits past the end are 0.
    pub fn words(&self) -> &[u64] {
        self.0.as_raw_slice()
    }

    /// Whether `words` (laid out as [`words`](Self::words) gives them)
    /// hold a value of at most `n` bits; if not, the lowest bit set at or
    /// past `n`.
    pub fn fits(n: usize, words: &[u64]) -> Result<(), usize> {
        for (k, &w) in words.iter().enumerate() {
            let live = n.saturating_sub(64 * k).min(64);
            let extra = if live == 64 { 0 } else { w >> live };
            if extra != 0 {
                return Err(64 * k + live + extra.trailing_zeros() as usize);
            }
        }
        Ok(())
    }

    /// Sets the string from 64-bit words laid out as [`words`](Self::words)
    /// gives them (missing words are 0). On a set bit at or past the end
    /// the string is left unchanged and the lowest such bit returned.
    pub fn set_words(&mut self, words: &[u64]) -> Result<(), usize> {
        Self::fits(self.len(), words)?;
        let raw = self.0.as_raw_mut_slice();
        raw.fill(0);
        for (o, &w) in raw.iter_mut().zip(words) {
            *o = w;
        }
        Ok(())
    }

    /// Copies `other` (same length) into `self` without allocating.
    pub fn copy_from(&mut self, other: &BitString) {
        assert_eq!(
            self.len(),
            other.len(),
            "copy between bit strings of different lengths"
        );
        self.0
            .as_raw_mut_slice()
            .copy_from_slice(other.0.as_raw_slice());
    }

    /// True when every bit of `self` is also set in `other`.
    pub fn is_subset_of(&self, other: &BitString) -> bool {
        assert_eq!(
            self.len(),
            other.len(),
            "subset test of bit strings of different lengths"
        );
        self.0
            .as_raw_slice()
            .iter()
            .zip(other.0.as_raw_slice())
            .all(|(a, b)| a & !b == 0)
    }

    /// True when `self` and `other` share a set bit.
    pub fn intersects(&self, other: &BitString) -> bool {
        assert_eq!(
            self.len(),
            other.len(),
            "intersection of bit strings of different lengths"
        );
        self.0
            .as_raw_slice()
            .iter()
            .zip(other.0.as_raw_slice())
            .any(|(a, b)| a & b != 0)
    }

    /// The string as a Verilog vector prints it: most significant bit
    /// (the highest index) first.
    pub fn to_msb_text(&self) -> String {
        self.0
            .iter()
            .rev()
            .map(|b| if *b { '1' } else { '0' })
            .collect()
    }

    /// Parses `0`/`1` characters written most significant bit first; `None`
    /// on any other character (`x`, `z`).
    pub fn from_msb_text(text: &[u8]) -> Option<Self> {
        let n = text.len();
        let mut s = Self::zeros(n);
        for (j, &c) in text.iter().enumerate() {
            match c {
                b'0' => {}
                b'1' => s.set(n - 1 - j, true),
                _ => return None,
            }
        }
        Some(s)
    }

    /// Bits `lo .. lo + width` (at most 64) as a number, bit `lo` least
    /// significant.
    pub fn field(&self, lo: usize, width: usize) -> u64 {
        debug_assert!(width <= 64);
        (0..width).fold(0u64, |w, i| w | (self.get(lo + i) as u64) << i)
    }

    /// Sets bits `lo .. lo + width` (at most 64) from the number `v`.
    pub fn set_field(&mut self, lo: usize, width: usize, v: u64) {
        debug_assert!(width <= 64);
        for i in 0..width {
            self.set(lo + i, v >> i & 1 == 1);
        }
    }

    /// Bits `lo .. lo + len` as a string of their own.
    pub fn slice(&self, lo: usize, len: usize) -> BitString {
        // A fresh, aligned string: the word-wise operations rely on bit 0
        // at the start of the first word and zeros past the end.
        let mut s = BitString::zeros(len);
        s.0.copy_from_bitslice(&self.0[lo..lo + len]);
        s
    }

    /// Writes `part` into bits `lo .. lo + part.len()`.
    pub fn set_slice(&mut self, lo: usize, part: &BitString) {
        self.0[lo..lo + part.len()].copy_from_bitslice(&part.0);
    }

    /// Writes `a AND b` into `self` (all three the same length).
    pub fn set_and(&mut self, a: &BitString, b: &BitString) {
        assert!(
            self.len() == a.len() && a.len() == b.len(),
            "AND of bit strings of different lengths"
        );
        for ((o, x), y) in self
            .0
            .as_raw_mut_slice()
            .iter_mut()
            .zip(a.0.as_raw_slice())
            .zip(b.0.as_raw_slice())
        {
            *o = x & y;
        }
    }
}

impl fmt::Display for BitString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in self.0.iter() {
            f.write_str(if *b { "1" } else { "0" })?;
        }
        Ok(())
    }
}

impl fmt::Debug for BitString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BitString({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Found by co-simulation: `ones` once left the bits past the end of
    /// its last word set, and the word-wise subset test then said a string
    /// of all 12 nodes was not within a total string of all 12 nodes.
    #[test]
    fn constructors_leave_no_bits_past_the_end() {
        let all = BitString::ones(12);
        let parsed = BitString::parse("111111111111").unwrap();
        assert!(all.is_subset_of(&parsed) && parsed.is_subset_of(&all));
        assert_eq!(all, parsed);
        let wide = BitString::ones(70).slice(3, 65);
        assert!(wide.is_subset_of(&BitString::ones(65)));
        assert_eq!(wide.count_ones(), 65);
    }
    use std::collections::BTreeSet;

    fn set_of(s: &str) -> BTreeSet<usize> {
        s.bytes()
            .enumerate()
            .filter(|(_, c)| *c == b'1')
            .map(|(i, _)| i)
            .collect()
    }

    proptest! {
        /// AND, OR and AND-NOT agree with set intersection, union and difference.
        #[test]
        fn string_ops_agree_with_sets(pair in (1usize..200).prop_flat_map(|n| (
            proptest::string::string_regex(&format!("[01]{{{n}}}")).unwrap(),
            proptest::string::string_regex(&format!("[01]{{{n}}}")).unwrap())))
        {
            let (a, b) = pair;
            let (x, y) = (BitString::parse(&a).unwrap(), BitString::parse(&b).unwrap());
            let (sa, sb) = (set_of(&a), set_of(&b));
            prop_assert_eq!(x.to_string(), a.clone());
            prop_assert_eq!(x.and(&y).iter_ones().collect::<BTreeSet<_>>(), &sa & &sb);
            let mut u = x.clone();
            u.or_assign(&y);
            prop_assert_eq!(u.iter_ones().collect::<BTreeSet<_>>(), &sa | &sb);
            prop_assert_eq!(x.and_not(&y).iter_ones().collect::<BTreeSet<_>>(), &sa - &sb);
            prop_assert_eq!(x.count_ones(), sa.len());
            prop_assert_eq!(x.is_zero(), sa.is_empty());
            prop_assert_eq!(x.is_subset_of(&y), sa.is_subset(&sb));
            prop_assert_eq!(x.intersects(&y), !sa.is_disjoint(&sb));
            let mut z = BitString::zeros(x.len());
            z.set_and(&x, &y);
            prop_assert_eq!(z, x.and(&y));
            let mut bytes = vec![0u8; x.len().div_ceil(8)];
            x.write_be_bytes(&mut bytes);
            let mut back = BitString::zeros(x.len());
            back.read_be_bytes(&bytes).unwrap();
            prop_assert_eq!(back, x.clone());
        }

        #[test]
        fn port_mask_iterates_its_members(m in any::<u64>()) {
            let ports: Vec<usize> = PortMask(m).iter().collect();
            let expect: Vec<usize> = (0..64).filter(|i| m >> i & 1 == 1).collect();
            prop_assert_eq!(&ports, &expect);
            prop_assert_eq!(ports.into_iter().collect::<PortMask>(), PortMask(m));
        }
    }

    #[test]
    fn big_endian_bytes_put_node_0_in_the_last_byte() {
        let s = BitString::from_indices(12, [0, 3, 8, 11]);
        let mut b = [0u8; 2];
        s.write_be_bytes(&mut b);
        assert_eq!(b, [0b0000_1001, 0b0000_1001]);
        let mut back = BitString::zeros(12);
        back.read_be_bytes(&b).unwrap();
        assert_eq!(back, s);
        assert_eq!(
            back.read_be_bytes(&[0b0001_0000, 0]),
            Err(12),
            "bit 12 is beyond a 12-bit string"
        );
    }

    #[test]
    fn parse_rejects_other_characters() {
        assert!(BitString::parse("01x").is_none());
        assert_eq!(
            BitString::parse("0110")
                .unwrap()
                .iter_ones()
                .collect::<Vec<_>>(),
            vec![1, 2]
        );
        assert_eq!(BitString::from_indices(5, [0, 4]).to_string(), "10001");
    }
}

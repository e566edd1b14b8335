//! The answers "legal" of a check of a network that never changes,
//! remembered one bit per question: the routing checks that every header
//! hop passes through (seed 001 section 2.1's routing restrictions in the
//! wormhole system, seed 003's dimension-order rule in the tree router) ask
//! the same few questions over and over, and a fabric's answer to a
//! question is the same every time it is asked.
//!
//! A question answered "illegal" is never remembered, so it is asked again
//! and its error reported every time; a memo too large to keep remembers
//! nothing and every question is asked in full.

/// The questions a check of a static network has answered "legal", one bit
/// per question, taken at the first legal answer.
#[derive(Clone, Debug, Default)]
pub(crate) struct LegalMemo {
    bits: Vec<u64>,
    /// Questions it can hold (0: it remembers nothing).
    len: usize,
}

impl LegalMemo {
    /// A memo of `len` questions, or of none if `len` is above `most` (or
    /// too large to count, `None`).
    pub(crate) fn new(len: Option<usize>, most: usize) -> LegalMemo {
        LegalMemo {
            bits: Vec::new(),
            len: len.filter(|&l| l <= most).unwrap_or(0),
        }
    }

    /// Questions it can hold (0 when it remembers nothing).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Whether question `q` was answered "legal".
    #[inline]
    pub(crate) fn knows(&self, q: usize) -> bool {
        self.bits
            .get(q / 64)
            .is_some_and(|w| w >> (q % 64) & 1 == 1)
    }

    /// Remembers that question `q` is legal (nothing if `q` is past the
    /// memo's length).
    pub(crate) fn learn(&mut self, q: usize) {
        if q >= self.len {
            return;
        }
        if self.bits.is_empty() {
            self.bits = vec![0; self.len.div_ceil(64)];
        }
        self.bits[q / 64] |= 1 << (q % 64);
    }

    /// How many questions it holds as legal.
    #[cfg(test)]
    pub(crate) fn known(&self) -> u32 {
        self.bits.iter().map(|w| w.count_ones()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembers_only_what_it_was_told_and_only_within_its_length() {
        let mut m = LegalMemo::new(Some(130), 1 << 10);
        assert_eq!(m.len(), 130);
        assert!(!m.knows(0) && !m.knows(129));
        m.learn(129);
        m.learn(64);
        m.learn(130); // past the end: not kept
        assert!(m.knows(129) && m.knows(64));
        assert!(!m.knows(63) && !m.knows(65) && !m.knows(130) && !m.knows(1 << 20));
        assert_eq!(m.known(), 2);
        // Too large, or too large to count: it remembers nothing.
        for mut big in [
            LegalMemo::new(Some(1 << 11), 1 << 10),
            LegalMemo::new(None, 1 << 10),
        ] {
            assert_eq!(big.len(), 0);
            big.learn(5);
            assert!(!big.knows(5));
            assert_eq!(big.known(), 0);
        }
    }
}

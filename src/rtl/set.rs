//! Sets of components to evaluate: one bit per component, with a summary
//! bit per word of them, so that a cycle of a large, mostly idle network
//! costs in proportion to the components that run rather than to the size
//! of the network. The cut-through system's active set and the wormhole
//! system's routers and processors are kept in them (docs/architecture.md,
//! "only active components run").

/// A set of components: component `c` is bit `c % 64` of word `c / 64`,
/// and bit `w % 64` of summary word `w / 64` is set when word `w` is not
/// empty.
#[derive(Clone, Debug)]
pub(crate) struct Bits {
    words: Vec<u64>,
    sum: Vec<u64>,
}

impl Bits {
    /// An empty set of `components` components.
    pub(crate) fn new(components: usize) -> Self {
        let words = components.div_ceil(64).max(1);
        Bits {
            words: vec![0; words],
            sum: vec![0; words.div_ceil(64)],
        }
    }

    /// Adds `c`.
    #[inline]
    pub(crate) fn insert(&mut self, c: u32) {
        insert_into(&mut self.words, &mut self.sum, c);
    }

    /// The set's words and summary words, for a loop that adds many
    /// components ([`insert_into`]): held as slices, their addresses stay
    /// in registers across the loop's stores.
    #[inline]
    pub(crate) fn parts(&mut self) -> (&mut [u64], &mut [u64]) {
        (&mut self.words, &mut self.sum)
    }

    /// True when empty.
    pub(crate) fn is_empty(&self) -> bool {
        self.sum.iter().all(|&s| s == 0)
    }

    /// The number of members, counted no further than `limit` (a count
    /// that reaches it returns `limit`): the summary words skip the empty
    /// words, so a mostly idle set costs little.
    pub(crate) fn count_to(&self, limit: usize) -> usize {
        let mut n = 0;
        for (si, &ws) in self.sum.iter().enumerate() {
            for b in super::PortIter(ws) {
                n += self.words[si << 6 | b].count_ones() as usize;
                if n >= limit {
                    return limit;
                }
            }
        }
        n
    }

    /// Removes `c`, and its word from the summary when the word empties.
    #[inline]
    pub(crate) fn remove(&mut self, c: u32) {
        let w = (c >> 6) as usize;
        let left = self.words[w] & !(1 << (c & 63));
        self.words[w] = left;
        if left == 0 {
            self.sum[w >> 6] &= !(1 << (w & 63));
        }
    }

    /// Calls `f` with the set and every component in it, in index order;
    /// `f` may remove the component it is given, or add it back (a word's
    /// members are read before its first call).
    #[inline]
    pub(crate) fn for_each_in_place(&mut self, mut f: impl FnMut(&mut Bits, u32)) {
        for si in 0..self.sum.len() {
            let mut ws = self.sum[si];
            while ws != 0 {
                let w = (si << 6) | ws.trailing_zeros() as usize;
                ws &= ws - 1;
                let mut bits = self.words[w];
                while bits != 0 {
                    let b = bits.trailing_zeros();
                    bits &= bits - 1;
                    f(self, (w as u32) << 6 | b);
                }
            }
        }
    }

    /// Adds every member of `other`, a set of as many components.
    pub(crate) fn union_with(&mut self, other: &Bits) {
        debug_assert_eq!(self.words.len(), other.words.len());
        for (si, &ws) in other.sum.iter().enumerate() {
            self.sum[si] |= ws;
            for b in super::PortIter(ws) {
                let w = si << 6 | b;
                self.words[w] |= other.words[w];
            }
        }
    }

    /// Empties the set (the words the summary names).
    pub(crate) fn clear(&mut self) {
        for si in 0..self.sum.len() {
            for b in super::PortIter(std::mem::take(&mut self.sum[si])) {
                self.words[si << 6 | b] = 0;
            }
        }
    }

    /// The set's words, a bit per component.
    pub(crate) fn words(&self) -> &[u64] {
        &self.words
    }

    /// True when component `c` is in the set (the tests ask).
    #[cfg(test)]
    pub(crate) fn contains(&self, c: u32) -> bool {
        self.words[(c >> 6) as usize] >> (c & 63) & 1 == 1
    }

    /// The components in the set, in index order (the summary words skip
    /// the empty words, so a large and mostly idle set costs little).
    pub(crate) fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.sum.iter().enumerate().flat_map(move |(si, &ws)| {
            super::PortIter(ws).flat_map(move |b| {
                let w = si << 6 | b;
                super::PortIter(self.words[w]).map(move |c| (w << 6 | c) as u32)
            })
        })
    }
}

/// Adds `c` to the set whose [`Bits::parts`] are `words` and `sum`.
#[inline]
pub(crate) fn insert_into(words: &mut [u64], sum: &mut [u64], c: u32) {
    let w = (c >> 6) as usize;
    words[w] |= 1 << (c & 63);
    sum[w >> 6] |= 1 << (w & 63);
}

//! Sets of components to evaluate: one bit per component, with a summary
//! bit per word of them, so that a cycle of a large, mostly idle network
//! costs in proportion to the components that run rather than to the size
//! of the network. The cut-through system's active set and the wormhole
//! system's routers and processors are kept in them (docs/design.md,
//! "Activity").

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
        self.count_in(0..self.words.len(), limit)
    }

    /// [`count_to`](Self::count_to) of the members in words `words`
    /// (components `64 * words.start..64 * words.end`).
    pub(crate) fn count_in(&self, words: std::ops::Range<usize>, limit: usize) -> usize {
        let mut n = 0;
        for si in words.start >> 6..words.end.div_ceil(64) {
            for b in super::PortIter(self.sum[si]) {
                let w = si << 6 | b;
                if words.contains(&w) {
                    n += self.words[w].count_ones() as usize;
                    if n >= limit {
                        return limit;
                    }
                }
            }
        }
        n
    }

    /// Adds to `counts[i]` the members among components from `bounds[i]`
    /// up to `bounds[i + 1]` (`bounds` ascending, one longer than
    /// `counts`), in one pass over the words the summary names: what a
    /// mostly idle set costs is its few busy words, however many runs it
    /// is cut into.
    pub(crate) fn count_runs(&self, bounds: &[usize], counts: &mut [usize]) {
        debug_assert_eq!(bounds.len(), counts.len() + 1);
        debug_assert!(bounds.is_sorted(), "runs in order");
        let (&[lo, first, ..], Some(&hi)) = (bounds, bounds.last()) else {
            return;
        };
        let (mut run, mut end) = (0, first);
        for si in lo >> 12..self.sum.len() {
            let mut ws = self.sum[si];
            while ws != 0 {
                let w = si << 6 | ws.trailing_zeros() as usize;
                ws &= ws - 1;
                let base = w << 6;
                if base + 64 <= lo {
                    continue;
                }
                if base >= hi {
                    return;
                }
                let mut m = self.words[w];
                if base < lo {
                    m &= u64::MAX << (lo - base);
                }
                // Most words lie inside the run the last one ended in.
                if base + 64 <= end {
                    counts[run] += m.count_ones() as usize;
                    continue;
                }
                while m != 0 {
                    // The run holding the word's lowest member left.
                    let c = base + m.trailing_zeros() as usize;
                    if c >= hi {
                        return;
                    }
                    while end <= c {
                        run += 1;
                        end = bounds[run + 1];
                    }
                    let mine = if end - base >= 64 {
                        m
                    } else {
                        m & ((1 << (end - base)) - 1)
                    };
                    counts[run] += mine.count_ones() as usize;
                    m &= !mine;
                }
            }
        }
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

    /// Moves the members of `from`'s words `words` (components
    /// `64 * words.start..64 * words.end`) into this set, a set of as many
    /// components.
    pub(crate) fn take_words(&mut self, from: &mut Bits, words: std::ops::Range<usize>) {
        debug_assert_eq!(self.words.len(), from.words.len());
        for w in words {
            let m = std::mem::take(&mut from.words[w]);
            if m != 0 {
                from.sum[w >> 6] &= !(1 << (w & 63));
                self.words[w] |= m;
                self.sum[w >> 6] |= 1 << (w & 63);
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

/// Adds `c` to the set whose [`Bits::parts`] are `words` and `sum`. The
/// summary names exactly the words that are not empty, so its word is
/// written only when `c`'s word was empty: most insertions, a flit
/// arriving at a component already live, write one word.
#[inline]
pub(crate) fn insert_into(words: &mut [u64], sum: &mut [u64], c: u32) {
    let w = (c >> 6) as usize;
    let old = words[w];
    words[w] = old | 1 << (c & 63);
    if old == 0 {
        sum[w >> 6] |= 1 << (w & 63);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Bit `w` of the summary is set exactly when word `w` is not empty.
    fn summary_is_exact(set: &Bits) -> bool {
        set.words
            .iter()
            .enumerate()
            .all(|(w, &m)| (set.sum[w >> 6] >> (w & 63) & 1 == 1) == (m != 0))
    }

    proptest! {
        /// Any run of insertions and removals, through the set and
        /// through its parts, leaves the members a model set holds and a
        /// summary that names exactly the words that are not empty
        /// (`insert_into` sets a summary bit only when its word was
        /// empty, which needs exactly that).
        #[test]
        fn inserting_and_removing_keep_the_summary_exact(
            n in 1usize..5000,
            ops in prop::collection::vec((any::<u8>(), any::<u32>()), 0..400),
        ) {
            let mut set = Bits::new(n);
            let mut model = std::collections::BTreeSet::new();
            for (op, c) in ops {
                // A small range now and then, so that words fill and
                // empty again.
                let c = if op & 4 == 0 { c % n as u32 } else { c % 70 % n as u32 };
                match op % 3 {
                    0 => set.insert(c),
                    1 => {
                        let (words, sum) = set.parts();
                        insert_into(words, sum, c);
                    }
                    _ => set.remove(c),
                }
                if op % 3 == 2 {
                    model.remove(&c);
                } else {
                    model.insert(c);
                }
                prop_assert!(summary_is_exact(&set));
            }
            prop_assert_eq!(set.iter().collect::<Vec<_>>(), model.iter().copied().collect::<Vec<_>>());
            prop_assert_eq!(set.is_empty(), model.is_empty());
            set.clear();
            prop_assert!(set.is_empty() && summary_is_exact(&set));
        }

        /// Moving words between two sets moves exactly their members and
        /// keeps both summaries right (the sets read back, and empty out,
        /// as their members say); counting in words counts exactly the
        /// members there, up to the limit.
        #[test]
        fn words_move_and_count_by_their_members(
            n in 1usize..9000,
            a in prop::collection::vec(any::<u32>(), 0..200),
            b in prop::collection::vec(any::<u32>(), 0..200),
            cut in any::<(u16, u16)>(),
            limit in 1usize..300,
        ) {
            let n32 = n as u32;
            let (a, b): (Vec<u32>, Vec<u32>) = (
                a.iter().map(|c| c % n32).collect(),
                b.iter().map(|c| c % n32).collect(),
            );
            let words = n.div_ceil(64);
            let (x, y) = (cut.0 as usize % (words + 1), cut.1 as usize % (words + 1));
            let range = x.min(y)..x.max(y);
            let (mut to, mut from) = (Bits::new(n), Bits::new(n));
            a.iter().for_each(|&c| to.insert(c));
            b.iter().for_each(|&c| from.insert(c));
            let inside = |c: &u32| range.contains(&(*c as usize / 64));
            let mut want_in: Vec<u32> = b.iter().copied().filter(inside).collect();
            want_in.sort_unstable();
            want_in.dedup();
            prop_assert_eq!(
                from.count_in(range.clone(), limit),
                want_in.len().min(limit)
            );
            to.take_words(&mut from, range.clone());
            let mut want_to: Vec<u32> = a.iter().copied().chain(want_in.iter().copied()).collect();
            want_to.sort_unstable();
            want_to.dedup();
            let mut want_from: Vec<u32> = b.iter().copied().filter(|c| !inside(c)).collect();
            want_from.sort_unstable();
            want_from.dedup();
            prop_assert_eq!(to.iter().collect::<Vec<_>>(), want_to.clone());
            prop_assert_eq!(from.iter().collect::<Vec<_>>(), want_from.clone());
            prop_assert_eq!(to.count_to(usize::MAX), want_to.len());
            prop_assert_eq!(from.is_empty(), want_from.is_empty());
            prop_assert_eq!(from.count_in(range.clone(), limit), 0);
            for c in want_from {
                from.remove(c);
            }
            prop_assert!(from.is_empty(), "a summary bit left behind");
        }

        /// Counting the members of runs of components, which may start
        /// and end inside a word, be empty, or leave components out at
        /// either end, counts exactly the members of each run.
        #[test]
        fn counting_runs_counts_the_members_of_each(
            n in 1usize..9000,
            a in prop::collection::vec(any::<u32>(), 0..300),
            cuts in prop::collection::vec(any::<u16>(), 1..6),
        ) {
            let mut set = Bits::new(n);
            let a: Vec<u32> = a.iter().map(|c| c % n as u32).collect();
            a.iter().for_each(|&c| set.insert(c));
            let mut bounds: Vec<usize> = cuts.iter().map(|&c| c as usize % (n + 1)).collect();
            bounds.sort_unstable();
            let mut counts = vec![0; bounds.len() - 1];
            set.count_runs(&bounds, &mut counts);
            let mut members: Vec<u32> = a.clone();
            members.sort_unstable();
            members.dedup();
            let want: Vec<usize> = bounds
                .windows(2)
                .map(|w| members.iter().filter(|&&c| (w[0]..w[1]).contains(&(c as usize))).count())
                .collect();
            prop_assert_eq!(counts, want);
        }
    }
}

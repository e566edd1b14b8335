//! Which components run in a cycle: one bit per component, with a summary
//! bit per word of them, so that a cycle costs in proportion to the
//! components that run rather than to the size of the network.

/// A set of components: component `c` is bit `c % 64` of word `c / 64`,
/// and bit `w % 64` of summary word `w / 64` is set when word `w` is not
/// empty.
#[derive(Clone, Debug)]
pub(crate) struct Bits {
    words: Vec<u64>,
    sum: Vec<u64>,
}

impl Bits {
    fn new(components: usize) -> Self {
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

    /// The set's words, a bit per component.
    pub(crate) fn words(&self) -> &[u64] {
        &self.words
    }

    /// True when component `c` is in the set (the watchdog's debug check
    /// and the tests ask).
    #[cfg(any(test, debug_assertions))]
    pub(crate) fn contains(&self, c: u32) -> bool {
        self.words[(c >> 6) as usize] >> (c & 63) & 1 == 1
    }

    /// The components in the set, in index order (the summary words skip
    /// the empty words, so a large and mostly idle set costs little).
    pub(crate) fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.sum.iter().enumerate().flat_map(move |(si, &ws)| {
            crate::rtl::PortIter(ws).flat_map(move |b| {
                let w = si << 6 | b;
                crate::rtl::PortIter(self.words[w]).map(move |c| (w << 6 | c) as u32)
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

/// The components to evaluate in the current cycle. A component stays in
/// the set for as long as it is busy: one that sleeps takes itself out when
/// it is evaluated, and the clock edge and the timing wheel put components
/// back for the cycles they must run in. Components are evaluated in index
/// order, switches first.
#[derive(Clone, Debug)]
pub(crate) struct Active {
    set: Bits,
}

impl Active {
    pub(crate) fn new(components: usize) -> Self {
        Active {
            set: Bits::new(components),
        }
    }

    /// Runs `c` in the current cycle (and, unless it then sleeps, in the
    /// cycles after).
    #[inline]
    pub(crate) fn wake_now(&mut self, c: u32) {
        self.set.insert(c);
    }

    /// True when nothing runs this cycle.
    pub(crate) fn is_empty(&self) -> bool {
        self.set.is_empty()
    }

    /// This cycle's set.
    #[inline]
    pub(crate) fn now(&self) -> &Bits {
        &self.set
    }

    /// This cycle's set, to evaluate and reschedule in place.
    #[inline]
    pub(crate) fn set_mut(&mut self) -> &mut Bits {
        &mut self.set
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now(a: &Active) -> Vec<u32> {
        let mut v = Vec::new();
        for (w, &bits) in a.now().words().iter().enumerate() {
            v.extend(crate::rtl::PortIter(bits).map(|b| (w << 6 | b) as u32));
        }
        v
    }

    #[test]
    fn sets_iterate_in_index_order_and_keep_who_stays() {
        let mut a = Active::new(5000);
        assert!(a.is_empty());
        for c in [4999, 3, 64, 63, 4096, 3] {
            a.wake_now(c);
        }
        assert_eq!(now(&a), vec![3, 63, 64, 4096, 4999]);
        // Every other component leaves as it is visited; 63 and 4999 are
        // put back at once (a busy component that went to sleep and was
        // woken in the same cycle).
        let mut seen = Vec::new();
        a.set_mut().for_each_in_place(|set, c| {
            seen.push(c);
            if c != 64 {
                set.remove(c);
            }
            if c == 63 || c == 4999 {
                set.insert(c);
            }
        });
        assert_eq!(seen, vec![3, 63, 64, 4096, 4999]);
        assert_eq!(now(&a), vec![63, 64, 4999]);
        for c in [63, 64, 4999] {
            a.set_mut().remove(c);
        }
        assert!(a.is_empty(), "the summary empties with its words");
        assert!(now(&a).is_empty());
        a.wake_now(70);
        assert_eq!(now(&a), vec![70]);
        assert_eq!(a.now().iter().collect::<Vec<_>>(), vec![70]);
    }

    proptest::proptest! {
        /// `iter` gives exactly the members, in index order, and `contains`
        /// says which they are, whatever was added and removed (words
        /// emptied and refilled included).
        #[test]
        fn iter_gives_the_members_in_index_order(
            n in 1usize..9000,
            ops in proptest::collection::vec((proptest::bool::ANY, 0u32..9000), 0..300),
        ) {
            let mut a = Active::new(n);
            let mut model = std::collections::BTreeSet::new();
            for (add, c) in ops {
                let c = c % n as u32;
                if add {
                    a.wake_now(c);
                    model.insert(c);
                } else {
                    a.set_mut().remove(c);
                    model.remove(&c);
                }
            }
            let got: Vec<u32> = a.now().iter().collect();
            proptest::prop_assert_eq!(&got, &model.iter().copied().collect::<Vec<_>>());
            for c in 0..n as u32 {
                proptest::prop_assert_eq!(a.now().contains(c), model.contains(&c), "component {}", c);
            }
            proptest::prop_assert_eq!(got, now(&a));
        }
    }
}

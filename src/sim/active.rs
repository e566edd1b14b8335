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

    /// Components `64 w .. 64 w + 63`, a bit each (none past the end).
    #[inline]
    pub(crate) fn word(&self, w: usize) -> u64 {
        self.words.get(w).copied().unwrap_or(0)
    }

    /// True when empty.
    pub(crate) fn is_empty(&self) -> bool {
        self.sum.iter().all(|&s| s == 0)
    }

    /// Calls `f` with every component, in index order.
    #[inline]
    pub(crate) fn for_each(&self, mut f: impl FnMut(u32)) {
        for (si, &s) in self.sum.iter().enumerate() {
            let mut ws = s;
            while ws != 0 {
                let w = (si << 6) | ws.trailing_zeros() as usize;
                ws &= ws - 1;
                let mut bits = self.words[w];
                while bits != 0 {
                    let b = bits.trailing_zeros();
                    bits &= bits - 1;
                    f((w as u32) << 6 | b);
                }
            }
        }
    }

    /// Empties the set, touching only the words in use.
    #[inline]
    fn clear(&mut self) {
        for (si, s) in self.sum.iter_mut().enumerate() {
            let mut ws = *s;
            while ws != 0 {
                self.words[(si << 6) | ws.trailing_zeros() as usize] = 0;
                ws &= ws - 1;
            }
            *s = 0;
        }
    }
}

/// Adds `c` to the set whose [`Bits::parts`] are `words` and `sum`.
#[inline]
pub(crate) fn insert_into(words: &mut [u64], sum: &mut [u64], c: u32) {
    let w = (c >> 6) as usize;
    words[w] |= 1 << (c & 63);
    sum[w >> 6] |= 1 << (w & 63);
}

/// The components to evaluate this cycle and those already known to run
/// next cycle. Components are evaluated in index order, switches first.
#[derive(Clone, Debug)]
pub(crate) struct Active {
    now: Bits,
    next: Bits,
}

impl Active {
    pub(crate) fn new(components: usize) -> Self {
        Active {
            now: Bits::new(components),
            next: Bits::new(components),
        }
    }

    /// Runs `c` this cycle.
    #[inline]
    pub(crate) fn wake_now(&mut self, c: u32) {
        self.now.insert(c);
    }

    /// Runs `c` next cycle.
    #[inline]
    pub(crate) fn wake_next(next: &mut Bits, c: u32) {
        next.insert(c);
    }

    /// True when nothing runs this cycle.
    pub(crate) fn is_empty(&self) -> bool {
        self.now.is_empty()
    }

    /// This cycle's set.
    #[inline]
    pub(crate) fn now(&self) -> &Bits {
        &self.now
    }

    /// This cycle's set (read) and next cycle's set (to fill).
    #[inline]
    pub(crate) fn split(&mut self) -> (&Bits, &mut Bits) {
        (&self.now, &mut self.next)
    }

    /// The clock edge: next cycle's set becomes this cycle's.
    #[inline]
    pub(crate) fn advance(&mut self) {
        std::mem::swap(&mut self.now, &mut self.next);
        self.next.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now(a: &Active) -> Vec<u32> {
        let mut v = Vec::new();
        a.now().for_each(|c| v.push(c));
        v
    }

    #[test]
    fn sets_iterate_in_index_order_and_clear() {
        let mut a = Active::new(5000);
        assert!(a.is_empty());
        for c in [4999, 3, 64, 63, 4096, 3] {
            a.wake_now(c);
        }
        assert_eq!(now(&a), vec![3, 63, 64, 4096, 4999]);
        let (_, next) = a.split();
        Active::wake_next(next, 70);
        a.advance();
        assert_eq!(now(&a), vec![70]);
        a.advance();
        assert!(a.is_empty());
        assert!(now(&a).is_empty());
    }
}

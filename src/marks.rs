//! Marks that a walk over a network sets on the switches, nodes or states
//! it reaches, cleared in one step: each mark holds the stamp of the walk
//! that set it, and starting a walk bumps the stamp instead of clearing
//! every mark. A walk then costs what it reaches, not the size of the
//! network, which is what keeps a multicast's ordering and a worm's path
//! check cheap on a large network (docs/performance.md).

/// One mark per item, each the stamp of the walk that last set it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Marks {
    seen: Vec<u32>,
    stamp: u32,
}

impl Marks {
    /// `items` items, none marked.
    pub(crate) fn new(items: usize) -> Self {
        Marks {
            seen: vec![0; items],
            stamp: 1,
        }
    }

    /// Starts a new walk over `items` items: none is marked. When the
    /// stamp wraps, every mark is cleared once, so a mark left from long
    /// ago is not read as this walk's.
    pub(crate) fn begin(&mut self, items: usize) {
        if self.seen.len() != items {
            self.seen.clear();
            self.seen.resize(items, 0);
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.fill(0);
            self.stamp = 1;
        }
    }

    /// Marks `item`; false if this walk had marked it already.
    #[inline]
    pub(crate) fn mark(&mut self, item: usize) -> bool {
        let fresh = self.seen[item] != self.stamp;
        self.seen[item] = self.stamp;
        fresh
    }

    /// Whether this walk has marked `item`.
    #[inline]
    pub(crate) fn is_marked(&self, item: usize) -> bool {
        self.seen[item] == self.stamp
    }

    /// Sets the stamp, as a walk long into a run would find it (tests of
    /// the wrap).
    #[cfg(test)]
    pub(crate) fn set_stamp(&mut self, stamp: u32) {
        self.stamp = stamp;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Once the stamp wraps, every mark is cleared, so an item marked long
    /// ago is not taken as marked now; a new size starts clear.
    #[test]
    fn a_walk_after_the_stamp_wraps_starts_clear() {
        let mut m = Marks::default();
        m.begin(4);
        assert!(m.mark(3));
        assert!(!m.mark(3));
        assert!(m.is_marked(3) && !m.is_marked(2));
        m.stamp = u32::MAX - 1;
        m.seen[2] = u32::MAX;
        m.begin(4);
        assert_eq!(m.stamp, u32::MAX);
        assert!(m.is_marked(2), "marked in this walk's stamp");
        assert!(!m.mark(2));
        m.begin(4);
        assert_eq!(m.stamp, 1, "the stamp wrapped past 0");
        assert!(!m.is_marked(2) && !m.is_marked(3));
        assert!(m.mark(2) && m.mark(3), "no mark survives the wrap");
        m.begin(6);
        assert!((0..6).all(|x| m.mark(x)), "a new size starts clear");
    }

    /// A fresh set marks nothing, before and after its first walk starts.
    #[test]
    fn a_new_set_marks_nothing() {
        let mut m = Marks::new(3);
        assert!((0..3).all(|x| !m.is_marked(x)));
        m.begin(3);
        assert!((0..3).all(|x| !m.is_marked(x)));
    }
}

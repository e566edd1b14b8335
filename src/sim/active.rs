//! Which components run in a cycle: a [`Bits`] set of the components to
//! evaluate, kept while they are busy.

pub(crate) use crate::rtl::{Bits, insert_into};

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

//! Which components run in a cycle: one bit per component.

/// The components to evaluate this cycle and those already known to run
/// next cycle, as bit sets (component `c` is bit `c % 64` of word `c / 64`).
/// Components are evaluated in index order, switches first.
#[derive(Clone, Debug)]
pub(crate) struct Active {
    now: Vec<u64>,
    next: Vec<u64>,
}

impl Active {
    pub(crate) fn new(components: usize) -> Self {
        let words = components.div_ceil(64).max(1);
        Active {
            now: vec![0; words],
            next: vec![0; words],
        }
    }

    /// Runs `c` this cycle.
    #[inline]
    pub(crate) fn wake_now(&mut self, c: u32) {
        self.now[(c >> 6) as usize] |= 1 << (c & 63);
    }

    /// Runs `c` next cycle.
    #[inline]
    pub(crate) fn wake_next(next: &mut [u64], c: u32) {
        next[(c >> 6) as usize] |= 1 << (c & 63);
    }

    /// True when nothing runs this cycle.
    pub(crate) fn is_empty(&self) -> bool {
        self.now.iter().all(|&w| w == 0)
    }

    /// The components of this cycle, in index order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.now
            .iter()
            .enumerate()
            .flat_map(|(w, &bits)| crate::rtl::PortIter(bits).map(move |b| (w * 64 + b) as u32))
    }

    /// This cycle's set (read) and next cycle's set (to fill).
    #[inline]
    pub(crate) fn split(&mut self) -> (&[u64], &mut [u64]) {
        (&self.now, &mut self.next)
    }

    /// The clock edge: next cycle's set becomes this cycle's.
    #[inline]
    pub(crate) fn advance(&mut self) {
        std::mem::swap(&mut self.now, &mut self.next);
        self.next.fill(0);
    }
}

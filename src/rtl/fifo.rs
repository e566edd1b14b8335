//! A fixed-capacity FIFO memory.

/// A first-in first-out memory of fixed depth, as a ring buffer with a read
/// and a write pointer.
///
/// The depth is fixed when it is built; a push into a full FIFO is refused
/// (the value comes back), as a hardware FIFO's `full` flag would refuse it.
/// Within a clocked component it is used consumer-first: a value pushed in a
/// cycle is popped no earlier than the next cycle because the consumer stage
/// runs before the producer stage.
///
/// The ring's memory is the depth rounded up to a power of two, so that a
/// pointer wraps by a mask rather than by a compare and a subtraction, and
/// the bounds check of an index masked to the memory's length is only that
/// the length is not zero; the depth alone decides when it is full.
#[derive(Clone, Debug)]
pub struct Fifo<T: Copy + Default> {
    mem: Box<[T]>,
    depth: usize,
    head: usize,
    len: usize,
}

impl<T: Copy + Default> Fifo<T> {
    /// An empty FIFO of `depth` entries.
    pub fn new(depth: usize) -> Self {
        Fifo {
            mem: vec![T::default(); depth.next_power_of_two()].into_boxed_slice(),
            depth,
            head: 0,
            len: 0,
        }
    }

    /// Slot `i` of the ring, `i` taken modulo its (power-of-two) length.
    #[inline(always)]
    fn slot(&self, i: usize) -> usize {
        // Never above `len - 1`, and the length is at least 1 (a power of
        // two): in bounds. The compiler's check is left as "the length is
        // not zero", one comparison of the length the mask loads anyway.
        i & (self.mem.len() - 1)
    }

    /// Number of entries it can hold.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Number of entries held.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when it holds nothing.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// True when a push would be refused.
    #[inline]
    pub fn is_full(&self) -> bool {
        self.len == self.depth
    }

    /// Appends `value`, or gives it back when full.
    #[inline]
    pub fn push(&mut self, value: T) -> Result<(), T> {
        if self.is_full() {
            return Err(value);
        }
        let tail = self.slot(self.head + self.len);
        self.mem[tail] = value;
        self.len += 1;
        Ok(())
    }

    /// Removes and returns the oldest entry.
    #[inline]
    pub fn pop(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let v = self.mem[self.slot(self.head)];
        self.head = self.slot(self.head + 1);
        self.len -= 1;
        Some(v)
    }

    /// Removes the oldest entry without reading it (a consumer that has
    /// read it through [`Fifo::front`]); false, and nothing removed, when
    /// empty.
    #[inline]
    pub fn drop_front(&mut self) -> bool {
        if self.len == 0 {
            return false;
        }
        self.head = self.slot(self.head + 1);
        self.len -= 1;
        true
    }

    /// The oldest entry, without removing it.
    #[inline]
    pub fn front(&self) -> Option<T> {
        (self.len > 0).then(|| self.mem[self.slot(self.head)])
    }

    /// The newest entry, for a write port that tags the entry it just wrote.
    #[inline]
    pub fn back_mut(&mut self) -> Option<&mut T> {
        if self.len == 0 {
            return None;
        }
        let i = self.slot(self.head + self.len - 1);
        Some(&mut self.mem[i])
    }

    /// The `i`-th oldest entry.
    #[inline]
    pub fn get(&self, i: usize) -> Option<T> {
        if i >= self.len {
            return None;
        }
        Some(self.mem[self.slot(self.head + i)])
    }

    /// Entries from oldest to newest.
    pub fn iter(&self) -> impl Iterator<Item = T> + '_ {
        (0..self.len).map(move |i| self.mem[self.slot(self.head + i)])
    }

    /// Empties it.
    pub fn clear(&mut self) {
        self.head = 0;
        self.len = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::VecDeque;

    #[derive(Debug, Clone)]
    enum Op {
        Push(u16),
        Pop,
        Drop,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            any::<u16>().prop_map(Op::Push),
            Just(Op::Pop),
            Just(Op::Drop)
        ]
    }

    proptest! {
        /// The ring buffer behaves exactly as a bounded VecDeque: what it
        /// holds, its oldest, newest and every `i`-th entry.
        #[test]
        fn matches_a_bounded_queue(depth in 0usize..13, ops in proptest::collection::vec(op(), 0..200)) {
            let mut fifo = Fifo::new(depth);
            let mut model = VecDeque::new();
            for op in ops {
                match op {
                    Op::Push(v) => {
                        let r = fifo.push(v);
                        if model.len() < depth {
                            prop_assert!(r.is_ok());
                            model.push_back(v);
                        } else {
                            prop_assert_eq!(r, Err(v));
                        }
                    }
                    Op::Pop => prop_assert_eq!(fifo.pop(), model.pop_front()),
                    Op::Drop => prop_assert_eq!(fifo.drop_front(), model.pop_front().is_some()),
                }
                prop_assert_eq!(fifo.len(), model.len());
                prop_assert_eq!(fifo.front(), model.front().copied());
                prop_assert_eq!(fifo.iter().collect::<Vec<_>>(), model.iter().copied().collect::<Vec<_>>());
                for i in 0..=depth {
                    prop_assert_eq!(fifo.get(i), model.get(i).copied());
                }
                prop_assert_eq!(fifo.back_mut().map(|v| *v), model.back().copied());
            }
        }
    }
}

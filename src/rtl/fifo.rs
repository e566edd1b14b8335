//! A fixed-capacity FIFO memory.

/// A first-in first-out memory of fixed depth, as a ring buffer with a read
/// and a write pointer.
///
/// The depth is fixed when it is built; a push into a full FIFO is refused
/// (the value comes back), as a hardware FIFO's `full` flag would refuse it.
/// Within a clocked component it is used consumer-first: a value pushed in a
/// cycle is popped no earlier than the next cycle because the consumer stage
/// runs before the producer stage.
#[derive(Clone, Debug)]
pub struct Fifo<T: Copy + Default> {
    mem: Box<[T]>,
    head: usize,
    len: usize,
}

impl<T: Copy + Default> Fifo<T> {
    /// An empty FIFO of `depth` entries.
    pub fn new(depth: usize) -> Self {
        Fifo {
            mem: vec![T::default(); depth].into_boxed_slice(),
            head: 0,
            len: 0,
        }
    }

    /// Number of entries it can hold.
    pub fn depth(&self) -> usize {
        self.mem.len()
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
        self.len == self.mem.len()
    }

    /// Appends `value`, or gives it back when full.
    #[inline]
    pub fn push(&mut self, value: T) -> Result<(), T> {
        if self.is_full() {
            return Err(value);
        }
        let mut tail = self.head + self.len;
        if tail >= self.mem.len() {
            tail -= self.mem.len();
        }
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
        let v = self.mem[self.head];
        self.head += 1;
        if self.head == self.mem.len() {
            self.head = 0;
        }
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
        self.head += 1;
        if self.head == self.mem.len() {
            self.head = 0;
        }
        self.len -= 1;
        true
    }

    /// The oldest entry, without removing it.
    #[inline]
    pub fn front(&self) -> Option<T> {
        (self.len > 0).then(|| self.mem[self.head])
    }

    /// The newest entry, for a write port that tags the entry it just wrote.
    #[inline]
    pub fn back_mut(&mut self) -> Option<&mut T> {
        if self.len == 0 {
            return None;
        }
        let mut i = self.head + self.len - 1;
        if i >= self.mem.len() {
            i -= self.mem.len();
        }
        Some(&mut self.mem[i])
    }

    /// The `i`-th oldest entry.
    #[inline]
    pub fn get(&self, i: usize) -> Option<T> {
        if i >= self.len {
            return None;
        }
        // `head` and `i` are both below the depth: one wrap at most.
        let mut at = self.head + i;
        if at >= self.mem.len() {
            at -= self.mem.len();
        }
        Some(self.mem[at])
    }

    /// Entries from oldest to newest.
    pub fn iter(&self) -> impl Iterator<Item = T> + '_ {
        (0..self.len).map(move |i| self.mem[(self.head + i) % self.mem.len()])
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
        fn matches_a_bounded_queue(depth in 1usize..9, ops in proptest::collection::vec(op(), 0..200)) {
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

//! The books of things in flight keyed by sequence numbers: the wormhole
//! system's worms and the engine's message of each worm, both by the worm's
//! tag (seed 001's worms, section 2.1). Such keys are handed out in order and
//! most entries leave soon after the ones issued near them, so the live
//! keys sit in a short window behind the newest. [`SeqMap`] keeps that
//! window as a ring of slots indexed by `key - base` (a lookup is an
//! index, not a hash), and moves an entry that stays while many younger
//! ones leave into an ordinary hash map, so the ring never grows much
//! beyond the number of live entries (docs/performance-log.md, "Books kept
//! by sequence number"). No published crate found keeps this shape: a slab reuses its
//! own keys, and an index map keeps insertion order at the cost of a hash
//! per lookup.

use rustc_hash::FxHashMap;
use std::collections::VecDeque;
use std::hash::Hash;

/// A key handed out in sequence: an unsigned counter that may wrap.
pub(crate) trait SeqKey: Copy + Eq + Hash {
    /// How far `self` is past `base`, counted with wrapping (a key before
    /// `base` is far past it).
    fn past(self, base: Self) -> u64;
    /// The key `n` after `self`, with wrapping.
    fn after(self, n: u64) -> Self;
}

impl SeqKey for u32 {
    #[inline]
    fn past(self, base: u32) -> u64 {
        self.wrapping_sub(base) as u64
    }
    #[inline]
    fn after(self, n: u64) -> u32 {
        self.wrapping_add(n as u32)
    }
}

impl SeqKey for u64 {
    #[inline]
    fn past(self, base: u64) -> u64 {
        self.wrapping_sub(base)
    }
    #[inline]
    fn after(self, n: u64) -> u64 {
        self.wrapping_add(n)
    }
}

/// Slots a key may be ahead of the ring's end and still go into the ring
/// (the slots between are left empty); a key further ahead goes into the
/// hash map.
const GAP: u64 = 64;

/// Empty slots the ring may hold besides one per live entry in it before
/// its oldest entries are moved to the hash map.
const SLACK: usize = 128;

/// A map from sequence numbers to `V`: the window of recent keys in a
/// ring, the rest in a hash map. A key is in exactly one of the two: the
/// ring holds the keys `base .. base + ring.len()`, the hash map the
/// others.
#[derive(Clone, Debug)]
pub(crate) struct SeqMap<K: SeqKey, V> {
    base: K,
    ring: VecDeque<Option<V>>,
    /// Entries in the ring.
    in_ring: usize,
    far: FxHashMap<K, V>,
}

impl<K: SeqKey, V> SeqMap<K, V> {
    /// An empty map whose first key is expected to be `first`.
    pub(crate) fn new(first: K) -> Self {
        SeqMap {
            base: first,
            ring: VecDeque::new(),
            in_ring: 0,
            far: FxHashMap::default(),
        }
    }

    /// Entries held.
    pub(crate) fn len(&self) -> usize {
        self.in_ring + self.far.len()
    }

    /// True when no entry is held.
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The entries, in no particular order.
    pub(crate) fn values(&self) -> impl Iterator<Item = &V> + '_ {
        self.ring.iter().flatten().chain(self.far.values())
    }

    /// The slot of `k` when it lies in the ring's window.
    #[inline]
    fn slot(&self, k: K) -> Option<usize> {
        let at = k.past(self.base);
        (at < self.ring.len() as u64).then_some(at as usize)
    }

    /// The entry of `k`.
    #[inline]
    pub(crate) fn get(&self, k: K) -> Option<&V> {
        match self.slot(k) {
            Some(at) => self.ring[at].as_ref(),
            None if self.far.is_empty() => None,
            None => self.far.get(&k),
        }
    }

    /// The entry of `k`, to change.
    #[inline]
    pub(crate) fn get_mut(&mut self, k: K) -> Option<&mut V> {
        match self.slot(k) {
            Some(at) => self.ring[at].as_mut(),
            None if self.far.is_empty() => None,
            None => self.far.get_mut(&k),
        }
    }

    /// Puts `v` at `k`, returning the entry it replaces.
    pub(crate) fn insert(&mut self, k: K, v: V) -> Option<V> {
        if self.ring.is_empty() && !self.far.contains_key(&k) {
            // An empty ring starts at any key that is not already held.
            self.base = k;
        }
        if let Some(at) = self.slot(k) {
            let old = self.ring[at].replace(v);
            if old.is_none() {
                self.in_ring += 1;
            }
            return old;
        }
        let ahead = k.past(self.base) - self.ring.len() as u64;
        // The slots up to `k` join the ring only if none of their keys is
        // in the hash map (a key is in one of the two).
        if ahead > GAP
            || (!self.far.is_empty()
                && (0..=ahead).any(|d| {
                    self.far
                        .contains_key(&self.base.after(self.ring.len() as u64 + d))
                }))
        {
            return self.far.insert(k, v);
        }
        for _ in 0..ahead {
            self.ring.push_back(None);
        }
        self.ring.push_back(Some(v));
        self.in_ring += 1;
        if self.ring.len() > 2 * self.in_ring + SLACK {
            self.spill();
        }
        None
    }

    /// Takes the entry of `k` out.
    #[inline]
    pub(crate) fn remove(&mut self, k: K) -> Option<V> {
        let Some(at) = self.slot(k) else {
            return if self.far.is_empty() {
                None
            } else {
                self.far.remove(&k)
            };
        };
        let v = self.ring[at].take()?;
        self.in_ring -= 1;
        self.trim();
        if self.ring.len() > 2 * self.in_ring + SLACK {
            self.spill();
        }
        Some(v)
    }

    /// Drops the empty slots at the front of the ring.
    #[inline]
    fn trim(&mut self) {
        while let Some(None) = self.ring.front() {
            self.ring.pop_front();
            self.base = self.base.after(1);
        }
    }

    /// Moves the oldest entries of a ring that is mostly empty slots (an
    /// entry that stays while the many issued after it leave) to the hash
    /// map, so that the ring stays within twice its live entries and a
    /// little.
    #[cold]
    fn spill(&mut self) {
        while self.ring.len() > 2 * self.in_ring + SLACK {
            if let Some(Some(v)) = self.ring.pop_front() {
                self.far.insert(self.base, v);
                self.in_ring -= 1;
            }
            self.base = self.base.after(1);
            self.trim();
        }
    }
}

impl<K: SeqKey, V> std::ops::Index<K> for SeqMap<K, V> {
    type Output = V;
    fn index(&self, k: K) -> &V {
        self.get(k).expect("a key in the map")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    /// One operation on a map: insert the next key (and skip some), insert
    /// a given key, remove a key among those issued, look one up.
    #[derive(Clone, Debug)]
    enum Op {
        Next { skip: u8 },
        Put(u8),
        Remove(u16),
        Get(u16),
    }

    fn ops() -> impl Strategy<Value = Vec<Op>> {
        prop::collection::vec(
            prop_oneof![
                6 => (0u8..3).prop_map(|skip| Op::Next { skip }),
                1 => any::<u8>().prop_map(Op::Put),
                5 => any::<u16>().prop_map(Op::Remove),
                2 => any::<u16>().prop_map(Op::Get),
            ],
            0..2000,
        )
    }

    /// Runs `ops` on a [`SeqMap`] starting at `first` and on a hash map,
    /// and compares every answer, the lengths, and every key issued.
    fn same_as_a_hash_map<K: SeqKey + std::fmt::Debug>(first: K, ops: &[Op]) {
        let mut m = SeqMap::<K, u64>::new(first);
        let mut h = HashMap::<K, u64>::new();
        let mut next = first;
        let mut issued = 0u64;
        for (n, op) in ops.iter().enumerate() {
            let n = n as u64;
            match *op {
                Op::Next { skip } => {
                    next = next.after(skip as u64);
                    assert_eq!(m.insert(next, n), h.insert(next, n), "insert {next:?}");
                    next = next.after(1);
                    issued += skip as u64 + 1;
                }
                Op::Put(back) => {
                    // A key issued before (or one far ahead).
                    let k = if back == 255 {
                        next.after(1000)
                    } else {
                        first.after(issued.saturating_sub(back as u64 + 1))
                    };
                    assert_eq!(m.insert(k, n), h.insert(k, n), "put {k:?}");
                }
                Op::Remove(r) => {
                    let k = first.after(r as u64 % (issued + 1));
                    assert_eq!(m.remove(k), h.remove(&k), "remove {k:?}");
                }
                Op::Get(r) => {
                    let k = first.after(r as u64 % (issued + 1));
                    assert_eq!(m.get(k), h.get(&k), "get {k:?}");
                }
            }
            assert_eq!(m.len(), h.len());
            assert_eq!(m.is_empty(), h.is_empty());
            assert!(
                m.ring.len() <= 2 * m.in_ring + SLACK,
                "{} slots for {} entries",
                m.ring.len(),
                m.in_ring
            );
        }
        for d in 0..=issued + 1001 {
            let k = first.after(d);
            assert_eq!(m.get(k), h.get(&k), "key {k:?} at the end");
        }
    }

    proptest! {
        #[test]
        fn answers_as_a_hash_map_does(ops in ops()) {
            same_as_a_hash_map(0u64, &ops);
        }

        #[test]
        fn answers_as_a_hash_map_does_across_the_wrap(ops in ops(), back in 0u32..3000) {
            same_as_a_hash_map(u32::MAX - back, &ops);
        }
    }

    #[test]
    fn an_entry_that_stays_moves_out_of_the_ring() {
        let mut m = SeqMap::<u32, u32>::new(0);
        m.insert(0, 0);
        for k in 1..10_000 {
            m.insert(k, k);
            m.remove(k);
        }
        assert_eq!(m.len(), 1);
        assert_eq!(m.far.len(), 1, "the old entry is in the hash map");
        assert!(m.ring.is_empty(), "{} slots", m.ring.len());
        assert_eq!(m.get(0), Some(&0));
        assert_eq!(m.remove(0), Some(0));
        assert!(m.is_empty());
        // The next key starts a new ring.
        m.insert(10_000, 1);
        assert_eq!((m.base, m.ring.len(), m.far.len()), (10_000, 1, 0));
    }

    #[test]
    fn entries_removed_in_order_leave_an_empty_ring() {
        let mut m = SeqMap::<u64, u64>::new(5);
        for k in 5..105 {
            m.insert(k, k * 2);
        }
        assert_eq!((m.ring.len(), m.far.len()), (100, 0));
        for k in 5..105 {
            assert_eq!(m.remove(k), Some(k * 2));
        }
        assert!(m.ring.is_empty());
        assert_eq!(m.base, 105);
    }
}

//! What a link carries in one cycle.

/// One flit on a link: a data byte with its valid, head and tail marks.
///
/// `data`, `head` and `tail` are the wires of the link (seed 000 section 6.2:
/// 1-byte links, 1 flit per cycle). `tag` and `idx` are sideband fields the
/// model carries along for bookkeeping (which packet, which flit of it); no
/// hardware unit reads them to make a decision: decode units look only at the
/// header bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flit {
    /// Sideband: the packet's tag, unique among packets in flight.
    pub tag: u32,
    /// Sideband: index of the flit in its packet (0 = first header flit).
    pub idx: u16,
    /// The byte on the link.
    pub data: u8,
    flags: u8,
}

const VALID: u8 = 1;
const HEAD: u8 = 2;
const TAIL: u8 = 4;

impl Flit {
    /// Flit `idx` of a packet of `len` flits with tag `tag`.
    #[inline]
    pub fn new(tag: u32, idx: u16, len: u16, data: u8) -> Flit {
        let mut flags = VALID;
        if idx == 0 {
            flags |= HEAD;
        }
        if idx + 1 == len {
            flags |= TAIL;
        }
        Flit {
            tag,
            idx,
            data,
            flags,
        }
    }

    /// Flit `idx` of packet `tag` with the given marks.
    #[inline]
    pub fn marked(tag: u32, idx: u16, data: u8, head: bool, tail: bool) -> Flit {
        Flit {
            tag,
            idx,
            data,
            flags: VALID | if head { HEAD } else { 0 } | if tail { TAIL } else { 0 },
        }
    }

    /// The same flit as flit `idx` of its packet: what a copy sends of a
    /// flit it read from the buffer, numbered in the copy (a copy that
    /// replaced the packet's header by a shorter or longer one renumbers
    /// the flits after it; any other keeps their numbers). The tag and the
    /// marks stay those the flit arrived with.
    #[inline(always)]
    pub fn with_idx(self, idx: u16) -> Flit {
        Flit { idx, ..self }
    }

    /// True for a flit on the link (false for an idle link).
    #[inline]
    pub fn is_valid(&self) -> bool {
        self.flags & VALID != 0
    }

    /// True for the first flit of a packet.
    #[inline]
    pub fn is_head(&self) -> bool {
        self.flags & HEAD != 0
    }

    /// True for the last flit of a packet.
    #[inline]
    pub fn is_tail(&self) -> bool {
        self.flags & TAIL != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_follow_the_position() {
        let one = Flit::new(3, 0, 1, 9);
        assert!(one.is_valid() && one.is_head() && one.is_tail());
        let mid = Flit::new(3, 1, 3, 9);
        assert!(mid.is_valid() && !mid.is_head() && !mid.is_tail());
        assert!(Flit::new(3, 2, 3, 9).is_tail());
        assert!(!Flit::default().is_valid());
        assert_eq!(std::mem::size_of::<Flit>(), 8);
    }
}

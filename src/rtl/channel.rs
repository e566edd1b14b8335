//! Registered point-to-point channels between components.

/// Identifies one channel of a [`ChannelBank`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ChannelId(pub u32);

impl ChannelId {
    /// The index of the channel in its bank.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One end of a channel: a component and the port of that component.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sink {
    /// Index of the component in its system.
    pub component: u32,
    /// Port of the component the channel is attached to.
    pub port: u16,
}

/// A bank of registered channels that carry one value per cycle.
///
/// A channel is a pipeline register between exactly one writer and one
/// reader: what the writer drives in cycle `t` is on the channel's output
/// during cycle `t + 1` only (a valid pulse), after which the output returns
/// to `T::default()` (idle) unless the writer drove a new value. This is a
/// link of 1-cycle latency with a valid bit, or a credit-return wire.
///
/// The bank keeps the two sides apart ([`split`](ChannelBank::split)), so the
/// reader half can be shared while the writer half is borrowed mutably, and
/// only the channels written in a cycle are touched at the edge: an idle
/// network costs nothing here.
#[derive(Debug)]
pub struct ChannelBank<T: Copy + Default> {
    q: Vec<T>,
    d: Vec<T>,
    sink: Vec<Sink>,
    source: Vec<Sink>,
    written: Vec<u32>,
    live: Vec<u32>,
    changed: Vec<u32>,
    track_changes: bool,
}

impl<T: Copy + Default> Default for ChannelBank<T> {
    fn default() -> Self {
        ChannelBank {
            q: Vec::new(),
            d: Vec::new(),
            sink: Vec::new(),
            source: Vec::new(),
            written: Vec::new(),
            live: Vec::new(),
            changed: Vec::new(),
            track_changes: false,
        }
    }
}

impl<T: Copy + Default> ChannelBank<T> {
    /// An empty bank.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a channel from `source` to `sink` and returns its id.
    pub fn add(&mut self, source: Sink, sink: Sink) -> ChannelId {
        let id = ChannelId(self.q.len() as u32);
        self.q.push(T::default());
        self.d.push(T::default());
        self.sink.push(sink);
        self.source.push(source);
        self.written.reserve(1);
        self.live.reserve(1);
        id
    }

    /// Number of channels.
    pub fn len(&self) -> usize {
        self.q.len()
    }

    /// True when the bank has no channels.
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }

    /// The channel's output in the current cycle.
    #[inline]
    pub fn q(&self, id: ChannelId) -> T {
        self.q[id.index()]
    }

    /// The component and port that read the channel.
    pub fn sink(&self, id: ChannelId) -> Sink {
        self.sink[id.index()]
    }

    /// The component and port that drive the channel.
    pub fn source(&self, id: ChannelId) -> Sink {
        self.source[id.index()]
    }

    /// Splits the bank into its read side (`q`) and write side (`d`).
    #[inline]
    pub fn split(&mut self) -> (ChannelReader<'_, T>, ChannelWriter<'_, T>) {
        (
            ChannelReader { q: &self.q },
            ChannelWriter {
                d: &mut self.d,
                written: &mut self.written,
            },
        )
    }

    /// Asks the bank to remember which channels changed at each edge (for
    /// tracing); see [`changed`](ChannelBank::changed).
    pub fn set_track_changes(&mut self, on: bool) {
        self.track_changes = on;
        self.changed.clear();
    }

    /// The channels whose output changed at the last edge, when change
    /// tracking is on. May hold an id twice.
    pub fn changed(&self) -> &[u32] {
        &self.changed
    }

    /// The clock edge: every channel written this cycle shows its value for
    /// the next cycle and `deliver` is told its sink; every other channel goes
    /// idle.
    #[inline]
    pub fn edge(&mut self, mut deliver: impl FnMut(Sink)) {
        if self.track_changes {
            self.changed.clear();
            self.changed.extend_from_slice(&self.live);
            self.changed.extend_from_slice(&self.written);
        }
        for &c in &self.live {
            self.q[c as usize] = T::default();
        }
        self.live.clear();
        for &c in &self.written {
            let c = c as usize;
            self.q[c] = self.d[c];
            self.d[c] = T::default();
            deliver(self.sink[c]);
        }
        std::mem::swap(&mut self.live, &mut self.written);
    }
}

/// The read side of a [`ChannelBank`]: channel outputs in this cycle.
#[derive(Clone, Copy, Debug)]
pub struct ChannelReader<'a, T> {
    q: &'a [T],
}

impl<T: Copy> ChannelReader<'_, T> {
    /// The channel's output in the current cycle.
    #[inline]
    pub fn read(&self, id: ChannelId) -> T {
        self.q[id.index()]
    }
}

/// The write side of a [`ChannelBank`]: channel inputs for the next cycle.
#[derive(Debug)]
pub struct ChannelWriter<'a, T> {
    d: &'a mut [T],
    written: &'a mut Vec<u32>,
}

impl<T: Copy> ChannelWriter<'_, T> {
    /// Drives `value` into the channel; the reader sees it next cycle. A
    /// channel has one writer, which drives it at most once per cycle.
    #[inline]
    pub fn write(&mut self, id: ChannelId, value: T) {
        let i = id.index();
        debug_assert!(
            !self.written.contains(&id.0),
            "channel {i} driven twice in one cycle"
        );
        self.d[i] = value;
        self.written.push(id.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sink(c: u32) -> Sink {
        Sink {
            component: c,
            port: 0,
        }
    }

    #[test]
    fn value_is_visible_for_exactly_one_cycle_after_the_write() {
        let mut bank: ChannelBank<u8> = ChannelBank::new();
        let a = bank.add(sink(0), sink(1));
        let b = bank.add(sink(1), sink(0));
        {
            let (_, mut w) = bank.split();
            w.write(a, 7);
        }
        assert_eq!(bank.q(a), 0, "not visible in the cycle it is written");
        let mut delivered = Vec::new();
        bank.edge(|s| delivered.push(s.component));
        assert_eq!(delivered, vec![1]);
        assert_eq!(bank.q(a), 7);
        assert_eq!(bank.q(b), 0);
        bank.edge(|_| panic!("nothing was written"));
        assert_eq!(bank.q(a), 0, "a pulse lasts one cycle");
    }

    #[test]
    fn changes_are_tracked_on_request() {
        let mut bank: ChannelBank<u8> = ChannelBank::new();
        let a = bank.add(sink(0), sink(1));
        bank.set_track_changes(true);
        bank.split().1.write(a, 1);
        bank.edge(|_| {});
        assert_eq!(bank.changed(), &[0]);
        bank.edge(|_| {});
        assert_eq!(bank.changed(), &[0], "the return to idle is a change");
        bank.edge(|_| {});
        assert!(bank.changed().is_empty());
    }
}

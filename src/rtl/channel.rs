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

/// The channels of a bank driven in the current cycle and, when asked (for
/// tracing), those whose output changed at the last edge.
#[derive(Clone, Debug, Default)]
struct WriteLog {
    written: Vec<u32>,
    changed: Vec<u32>,
    /// How many of `changed`, from its start, held a value before the
    /// edge (they went back to idle or were driven again).
    idle: usize,
    track: bool,
}

impl WriteLog {
    /// Notes that channel `id` was driven this cycle.
    #[inline]
    fn note(&mut self, id: ChannelId) {
        debug_assert!(
            !self.written.contains(&id.0),
            "channel {} driven twice in one cycle",
            id.0
        );
        self.written.push(id.0);
    }

    fn set_track(&mut self, on: bool) {
        self.track = on;
        self.changed.clear();
        self.idle = 0;
    }

    /// At the edge: when tracking, the channels that change are `idle` (going
    /// back to idle) and those driven this cycle.
    #[inline]
    fn record_edge(&mut self, idle: &[u32]) {
        if self.track {
            self.changed.clear();
            self.changed.extend_from_slice(idle);
            self.idle = idle.len();
            self.changed.extend_from_slice(&self.written);
        }
    }
}

/// One channel of a [`ChannelBank`]: its pipeline register and its reader.
#[derive(Clone, Copy, Debug)]
struct Slot<T> {
    q: T,
    d: T,
    sink: Sink,
    /// The bank's edge count at which `q` is the output: at any other, the
    /// output is idle. A channel driven again keeps `q` valid for one more
    /// edge; one left undriven goes idle with no work at the edge.
    at: u64,
    /// Values carried so far (the link's utilisation counter).
    carried: u64,
}

/// A bank of registered channels that carry one value per cycle.
///
/// A channel is a pipeline register between exactly one writer and one
/// reader: what the writer drives in cycle `t` is on the channel's output
/// during cycle `t + 1` only (a valid pulse), after which the output returns
/// to `T::default()` (idle) unless the writer drove a new value. This is a
/// link of 1-cycle latency with a valid bit.
///
/// Only the channels written in a cycle are touched at the edge, so an idle
/// network costs nothing here.
///
/// A network evaluated on several threads gives each thread a copy of the
/// bank: a thread drives its components' channels in its copy, and what
/// one of them carries to another thread's component is handed over and
/// put into that thread's copy ([`ChannelBank::edge_each`],
/// [`ChannelBank::deliver`]).
#[derive(Clone, Debug)]
pub struct ChannelBank<T: Copy + Default> {
    slots: Vec<Slot<T>>,
    /// Each channel's writer (read only to report), apart from the slots
    /// the edge touches.
    sources: Vec<Sink>,
    log: WriteLog,
    /// Channels whose output is valid this cycle.
    live: Vec<u32>,
    /// Edges so far: a slot's output is valid while its `at` equals this.
    now: u64,
}

impl<T: Copy + Default> Default for ChannelBank<T> {
    fn default() -> Self {
        ChannelBank {
            slots: Vec::new(),
            sources: Vec::new(),
            log: WriteLog::default(),
            live: Vec::new(),
            now: 0,
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
        let id = ChannelId(self.slots.len() as u32);
        self.slots.push(Slot {
            q: T::default(),
            d: T::default(),
            sink,
            at: u64::MAX,
            carried: 0,
        });
        self.sources.push(source);
        self.log.written.reserve(1);
        self.live.reserve(1);
        id
    }

    /// Number of channels.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// True when the bank has no channels.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The channel's output in the current cycle.
    #[inline]
    pub fn q(&self, id: ChannelId) -> T {
        if self.is_live(id) {
            self.slots[id.index()].q
        } else {
            T::default()
        }
    }

    /// True when the channel's output holds a value this cycle (it was
    /// driven before the last edge).
    #[inline]
    pub fn is_live(&self, id: ChannelId) -> bool {
        self.slots[id.index()].at == self.now
    }

    /// The output of a channel that was driven before the last edge (its
    /// reader was told so at the edge): [`q`](Self::q) without the check
    /// that it is not idle.
    #[inline]
    pub(crate) fn q_delivered(&self, id: ChannelId) -> T {
        let s = &self.slots[id.index()];
        debug_assert_eq!(
            s.at, self.now,
            "channel {} read as delivered while idle",
            id.0
        );
        s.q
    }

    /// Values the channel has carried since it was made (one per cycle it
    /// was driven): its utilisation is the change over a window divided by
    /// the window's cycles.
    pub fn carried(&self, id: ChannelId) -> u64 {
        self.slots[id.index()].carried
    }

    /// The component and port that read the channel.
    pub fn sink(&self, id: ChannelId) -> Sink {
        self.slots[id.index()].sink
    }

    /// Every channel's [`carried`](Self::carried) count in order, each with
    /// whether both its ends are components below `n` (the routers or
    /// switches of a network whose nodes are numbered after them).
    pub fn carried_between(&self, n: u32) -> Vec<(u64, bool)> {
        (self.slots.iter().zip(&self.sources))
            .map(|(slot, src)| (slot.carried, src.component < n && slot.sink.component < n))
            .collect()
    }

    /// The component and port that drive the channel.
    pub fn source(&self, id: ChannelId) -> Sink {
        self.sources[id.index()]
    }

    /// Drives `value` into channel `id`; its reader sees it next cycle. A
    /// channel has one writer, which drives it at most once per cycle.
    #[inline]
    pub fn write(&mut self, id: ChannelId, value: T) {
        self.slots[id.index()].d = value;
        self.log.note(id);
    }

    /// Asks the bank to remember which channels changed at each edge (for
    /// tracing); see [`changed`](ChannelBank::changed).
    pub fn set_track_changes(&mut self, on: bool) {
        self.log.set_track(on);
    }

    /// The channels whose output changed at the last edge, when change
    /// tracking is on. May hold an id twice.
    pub fn changed(&self) -> &[u32] {
        &self.log.changed
    }

    /// Of [`changed`](Self::changed), the channels that held a value
    /// before the last edge (the first part of the list): those that went
    /// back to idle, and those driven again. The rest of the list are the
    /// channels driven before the edge, whose writers know they wrote.
    pub fn were_live(&self) -> &[u32] {
        &self.log.changed[..self.log.idle]
    }

    /// The clock edge: every channel written this cycle shows its value for
    /// the next cycle and `deliver` is told its sink; every other channel goes
    /// idle.
    #[inline]
    pub fn edge(&mut self, mut deliver: impl FnMut(Sink)) {
        self.edge_each(|_, sink, _| deliver(sink));
    }

    /// [`edge`](Self::edge), telling `f` each channel written this cycle
    /// with its reader and the value it now shows.
    #[inline]
    pub fn edge_each(&mut self, mut f: impl FnMut(u32, Sink, T)) {
        self.log.record_edge(&self.live);
        // The channels live before the edge and not driven again go idle
        // by the count alone: their `at` falls behind it.
        let now = self.now + 1;
        self.now = now;
        let slots = &mut self.slots[..];
        self.live.clear();
        for &c in &self.log.written {
            let s = &mut slots[c as usize];
            // `d` is read only here, and only after a write: it need not
            // be cleared.
            s.q = s.d;
            s.at = now;
            s.carried += 1;
            f(c, s.sink, s.d);
        }
        std::mem::swap(&mut self.live, &mut self.log.written);
    }

    /// One bank gathered from copies that threads each drove part of:
    /// each channel's output as the copy `reader` names for its reader
    /// holds it, and what all the copies counted it carried (each value
    /// is counted by its writer's copy alone).
    pub(crate) fn gather(copies: &[&Self], reader: impl Fn(Sink) -> usize) -> Self {
        let mut g = copies[0].clone();
        g.gather_from(copies, reader);
        g
    }

    /// [`gather`](Self::gather) into this bank, which keeps its change
    /// tracking: for a network that goes on on one thread from where its
    /// copies left it. Between cycles (nothing written and not delivered).
    pub(crate) fn gather_from(&mut self, copies: &[&Self], reader: impl Fn(Sink) -> usize) {
        debug_assert!(self.log.written.is_empty(), "gathered in mid-cycle");
        self.now = copies[0].now;
        self.live.clear();
        for (i, s) in self.slots.iter_mut().enumerate() {
            let r = &copies[reader(s.sink)].slots[i];
            s.q = r.q;
            s.at = r.at;
            s.carried = copies.iter().map(|c| c.slots[i].carried).sum();
            if s.at == self.now {
                self.live.push(i as u32);
            }
        }
    }

    /// Makes this bank, one thread's copy, show every channel as `from`
    /// shows it, counting as carried only what `drives` says its writer's
    /// copy is (this one; 0 elsewhere): so that the copies' counts still
    /// sum to each link's, as [`gather`](Self::gather) reads them. Between
    /// cycles; the copy's change tracking is kept.
    pub(crate) fn split_from(&mut self, from: &Self, drives: impl Fn(Sink) -> bool) {
        debug_assert!(self.log.written.is_empty(), "split in mid-cycle");
        self.now = from.now;
        self.live.clone_from(&from.live);
        for ((s, f), &src) in self.slots.iter_mut().zip(&from.slots).zip(&from.sources) {
            s.q = f.q;
            s.at = f.at;
            s.carried = if drives(src) { f.carried } else { 0 };
        }
    }

    /// Takes the edge the copies of a network evaluated on several threads
    /// have just taken ([`edge_each`](Self::edge_each)), as one thread's
    /// bank would: each channel a copy's components drove in the cycle
    /// shows what that copy shows (and its count carried), and every other
    /// goes idle. The copies are asked right after their edges, before
    /// any is handed another's writes ([`deliver`](Self::deliver)), so
    /// that what each shows live is what it drove. Change tracking sees
    /// the edge as one thread's would.
    pub(crate) fn follow(&mut self, copies: &[&Self]) {
        for copy in copies {
            debug_assert_eq!(copy.now, self.now + 1, "a copy not just clocked");
            self.log.written.extend_from_slice(&copy.live);
        }
        self.log.record_edge(&self.live);
        let now = self.now + 1;
        self.now = now;
        self.live.clear();
        for copy in copies {
            for &c in &copy.live {
                let (s, from) = (&mut self.slots[c as usize], &copy.slots[c as usize]);
                s.q = from.q;
                s.at = now;
                s.carried = from.carried;
            }
        }
        std::mem::swap(&mut self.live, &mut self.log.written);
    }

    /// Puts on channel `id`'s output the value another copy of the bank
    /// drove it with before the last edge (its writer runs on another
    /// thread): the reader sees it this cycle, as if this copy had been
    /// driven. The writer's copy counts it as carried.
    #[inline]
    pub fn deliver(&mut self, id: ChannelId, value: T) {
        let s = &mut self.slots[id.index()];
        s.q = value;
        s.at = self.now;
        self.live.push(id.0);
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
        bank.write(a, 7);
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
    fn the_channels_live_before_an_edge_come_first() {
        let mut bank: ChannelBank<u8> = ChannelBank::new();
        let a = bank.add(sink(0), sink(1));
        let b = bank.add(sink(1), sink(0));
        bank.set_track_changes(true);
        bank.write(a, 1);
        bank.edge(|_| {});
        assert!(bank.were_live().is_empty());
        bank.write(b, 2);
        bank.write(a, 3);
        bank.edge(|_| {});
        assert_eq!(bank.changed(), &[0, 1, 0]);
        assert_eq!(bank.were_live(), &[0]);
        bank.edge(|_| {});
        assert_eq!(bank.changed(), &[1, 0]);
        assert_eq!(bank.were_live(), &[1, 0]);
        bank.edge(|_| {});
        assert!(bank.were_live().is_empty());
    }

    proptest::proptest! {
        /// Against a bank that clears every output at each edge: what each
        /// channel shows, whom each edge tells, and the counts carried,
        /// through any pattern of writes (a channel driven in a row of
        /// cycles, left idle for many, driven again).
        #[test]
        fn outputs_match_a_bank_that_clears_every_edge(
            cycles in proptest::collection::vec(
                proptest::collection::vec(proptest::option::of(1u8..), 4),
                1..60,
            ),
        ) {
            let mut bank: ChannelBank<u8> = ChannelBank::new();
            let ids: Vec<ChannelId> = (0..4).map(|c| bank.add(sink(9), sink(c))).collect();
            let mut shown = [0u8; 4];
            let mut carried = [0u64; 4];
            for writes in &cycles {
                for (c, w) in writes.iter().enumerate() {
                    if let Some(v) = *w {
                        bank.write(ids[c], v);
                    }
                }
                let mut told = Vec::new();
                bank.edge(|s| told.push(s.component));
                let mut expect_told = Vec::new();
                for (c, w) in writes.iter().enumerate() {
                    shown[c] = w.unwrap_or(0);
                    if w.is_some() {
                        carried[c] += 1;
                        expect_told.push(c as u32);
                    }
                }
                proptest::prop_assert_eq!(told, expect_told);
                for (c, &id) in ids.iter().enumerate() {
                    proptest::prop_assert_eq!(bank.q(id), shown[c]);
                    if shown[c] != 0 {
                        proptest::prop_assert_eq!(bank.q_delivered(id), shown[c]);
                    }
                    proptest::prop_assert_eq!(bank.carried(id), carried[c]);
                }
            }
        }
    }

    #[test]
    fn tracking_started_mid_cycle_knows_what_is_live_and_driven() {
        let mut bank: ChannelBank<u8> = ChannelBank::new();
        let a = bank.add(sink(0), sink(1));
        let b = bank.add(sink(1), sink(0));
        let c = bank.add(sink(1), sink(2));
        bank.write(a, 1);
        bank.write(c, 5);
        bank.edge(|_| {});
        // a and c are live; b is driven before tracking starts, c after.
        bank.write(b, 2);
        bank.set_track_changes(true);
        bank.write(c, 6);
        bank.edge(|_| {});
        assert_eq!(bank.changed(), &[0, 2, 1, 2]);
        assert_eq!(bank.were_live(), &[0, 2]);
        assert_eq!((bank.q(a), bank.q(b), bank.q(c)), (0, 2, 6));
        bank.set_track_changes(false);
        bank.edge(|_| {});
        assert!(bank.changed().is_empty());
        assert_eq!((bank.q(b), bank.q(c)), (0, 0));
    }

    proptest::proptest! {
        /// A bank that follows two copies, each driving half the channels
        /// and handed the other's writes whose readers are its own, shows
        /// after every edge what one bank driven with every write shows.
        #[test]
        fn following_copies_gives_one_banks_edges(
            cycles in proptest::collection::vec(
                proptest::collection::vec(proptest::option::of(1u8..255), 6),
                1..12,
            ),
        ) {
            // Channel `c` runs from component `c` to `c + 1`; copy `k`
            // holds the even (0) or odd (1) components.
            let mut one: ChannelBank<u8> = ChannelBank::new();
            for c in 0..6 {
                one.add(sink(c), sink(c + 1));
            }
            let mut copies = [one.clone(), one.clone()];
            let mut follower = one.clone();
            one.set_track_changes(true);
            follower.set_track_changes(true);
            for writes in &cycles {
                for (c, w) in writes.iter().enumerate() {
                    if let Some(v) = *w {
                        one.write(ChannelId(c as u32), v);
                        copies[c % 2].write(ChannelId(c as u32), v);
                    }
                }
                one.edge(|_| {});
                let mut handed = Vec::new();
                for (k, copy) in copies.iter_mut().enumerate() {
                    copy.edge_each(|c, s, v| {
                        if s.component as usize % 2 != k {
                            handed.push((c, v));
                        }
                    });
                }
                follower.follow(&[&copies[0], &copies[1]]);
                for c in 0..6 {
                    let id = ChannelId(c);
                    proptest::prop_assert_eq!(follower.q(id), one.q(id));
                    proptest::prop_assert_eq!(follower.is_live(id), one.is_live(id));
                    proptest::prop_assert_eq!(follower.carried(id), one.carried(id));
                }
                let sorted = |l: &[u32]| {
                    let mut l = l.to_vec();
                    l.sort_unstable();
                    l
                };
                proptest::prop_assert_eq!(sorted(follower.were_live()), sorted(one.were_live()));
                proptest::prop_assert_eq!(sorted(follower.changed()), sorted(one.changed()));
                // The readers' copies take the crossing writes in the
                // next cycle, after the follower has seen the edge.
                for (c, v) in handed {
                    copies[(c as usize + 1) % 2].deliver(ChannelId(c), v);
                }
            }
        }
    }

    #[test]
    fn changes_are_tracked_on_request() {
        let mut bank: ChannelBank<u8> = ChannelBank::new();
        let a = bank.add(sink(0), sink(1));
        bank.set_track_changes(true);
        bank.write(a, 1);
        bank.edge(|_| {});
        assert_eq!(bank.changed(), &[0]);
        bank.edge(|_| {});
        assert_eq!(bank.changed(), &[0], "the return to idle is a change");
        bank.edge(|_| {});
        assert!(bank.changed().is_empty());
    }
}

/// A bank of registered level channels: each is a register driven by one
/// component and read by another, holding its value until driven again.
///
/// What the writer drives in cycle `t` is read from cycle `t + 1` on. The
/// reader is not woken by a change: it reads the value when it needs it.
/// wormcast uses it for credit counters, where the receiver publishes the
/// running total of buffer chunks it has freed and the sender compares it
/// with the total it has used, which has the timing of a credit wire without
/// waking an idle sender.
#[derive(Clone, Debug)]
pub struct LevelBank<T: Copy + Default> {
    q: Vec<T>,
    d: Vec<T>,
    source: Vec<Sink>,
    sink: Vec<Sink>,
    log: WriteLog,
}

impl<T: Copy + Default> Default for LevelBank<T> {
    fn default() -> Self {
        LevelBank {
            q: Vec::new(),
            d: Vec::new(),
            source: Vec::new(),
            sink: Vec::new(),
            log: WriteLog::default(),
        }
    }
}

impl<T: Copy + Default> LevelBank<T> {
    /// An empty bank.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a channel driven by `source` and read by `sink`, holding
    /// `T::default()` at reset.
    pub fn add(&mut self, source: Sink, sink: Sink) -> ChannelId {
        let id = ChannelId(self.q.len() as u32);
        self.q.push(T::default());
        self.d.push(T::default());
        self.source.push(source);
        self.sink.push(sink);
        self.log.written.reserve(1);
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

    /// The channel's value in the current cycle.
    #[inline]
    pub fn q(&self, id: ChannelId) -> T {
        self.q[id.index()]
    }

    /// The component and port that drive the channel.
    pub fn source(&self, id: ChannelId) -> Sink {
        self.source[id.index()]
    }

    /// The component and port that read the channel.
    pub fn sink(&self, id: ChannelId) -> Sink {
        self.sink[id.index()]
    }

    /// Drives `value` into channel `id`; it is read from the next cycle on.
    #[inline]
    pub fn write(&mut self, id: ChannelId, value: T) {
        self.d[id.index()] = value;
        self.log.note(id);
    }

    /// Remember which channels change at each edge (for tracing).
    pub fn set_track_changes(&mut self, on: bool) {
        self.log.set_track(on);
    }

    /// The channels driven before the last edge, when tracking.
    pub fn changed(&self) -> &[u32] {
        &self.log.changed
    }

    /// The clock edge: every channel driven this cycle takes its new value.
    #[inline]
    pub fn edge(&mut self) {
        self.edge_each(|_, _, _| {});
    }

    /// Takes the edge the copies of a network evaluated on several threads
    /// have just taken, as one thread's bank would: each channel a copy's
    /// components drove in the cycle takes the value it shows there. The
    /// copies track their changes ([`set_track_changes`](Self::set_track_changes)),
    /// which is how they tell what they drove; so does this bank's own
    /// tracking.
    pub(crate) fn follow(&mut self, copies: &[&Self]) {
        for copy in copies {
            debug_assert!(copy.log.track, "a copy that does not track its changes");
            self.log.written.extend_from_slice(&copy.log.changed);
        }
        self.log.record_edge(&[]);
        for copy in copies {
            for &c in &copy.log.changed {
                self.q[c as usize] = copy.q[c as usize];
            }
        }
        self.log.written.clear();
    }

    /// [`edge`](Self::edge), telling `f` each channel driven this cycle
    /// with its reader and its new value.
    #[inline]
    pub fn edge_each(&mut self, mut f: impl FnMut(u32, Sink, T)) {
        self.log.record_edge(&[]);
        for &c in &self.log.written {
            let v = self.d[c as usize];
            self.q[c as usize] = v;
            f(c, self.sink[c as usize], v);
        }
        self.log.written.clear();
    }

    /// One bank gathered from copies that threads each drove part of:
    /// each channel's value as the copy `reader` names for its reader
    /// holds it.
    pub(crate) fn gather(copies: &[&Self], reader: impl Fn(Sink) -> usize) -> Self {
        let mut g = copies[0].clone();
        g.gather_from(copies, reader);
        g
    }

    /// [`gather`](Self::gather) into this bank, which keeps its change
    /// tracking (see [`ChannelBank::gather_from`]).
    pub(crate) fn gather_from(&mut self, copies: &[&Self], reader: impl Fn(Sink) -> usize) {
        debug_assert!(self.log.written.is_empty(), "gathered in mid-cycle");
        for (i, q) in self.q.iter_mut().enumerate() {
            *q = copies[reader(self.sink[i])].q[i];
        }
    }

    /// Makes this bank, one thread's copy, hold every channel's value as
    /// `from` holds it (see [`ChannelBank::split_from`]).
    pub(crate) fn split_from(&mut self, from: &Self) {
        debug_assert!(self.log.written.is_empty(), "split in mid-cycle");
        self.q.copy_from_slice(&from.q);
    }

    /// Sets channel `id` to the value another copy of the bank drove it
    /// with before the last edge (see [`ChannelBank::deliver`]).
    #[inline]
    pub fn deliver(&mut self, id: ChannelId, value: T) {
        self.q[id.index()] = value;
    }
}

#[cfg(test)]
mod level_tests {
    use super::*;

    /// A bank that follows two tracking copies, each driving half the
    /// counters, holds after every edge what one bank driven with every
    /// write holds, and tracks the same changes.
    #[test]
    fn following_copies_gives_one_banks_edges() {
        let s = |c| Sink {
            component: c,
            port: 0,
        };
        let mut one: LevelBank<u32> = LevelBank::new();
        for c in 0..4 {
            one.add(s(c), s(c + 1));
        }
        let mut copies = [one.clone(), one.clone()];
        let mut follower = one.clone();
        for b in [&mut one, &mut follower]
            .into_iter()
            .chain(copies.iter_mut())
        {
            b.set_track_changes(true);
        }
        for cycle in 0..6u32 {
            for c in (0..4).filter(|c| (c + cycle) % 3 != 0) {
                one.write(ChannelId(c), cycle * 10 + c);
                copies[c as usize % 2].write(ChannelId(c), cycle * 10 + c);
            }
            one.edge();
            copies.iter_mut().for_each(|c| c.edge());
            follower.follow(&[&copies[0], &copies[1]]);
            for c in 0..4 {
                assert_eq!(follower.q(ChannelId(c)), one.q(ChannelId(c)), "{cycle} {c}");
            }
            let mut changed = follower.changed().to_vec();
            changed.sort_unstable();
            assert_eq!(changed, one.changed(), "{cycle}");
        }
    }

    #[test]
    fn a_level_holds_until_driven_again() {
        let mut bank: LevelBank<u32> = LevelBank::new();
        let a = bank.add(
            Sink {
                component: 0,
                port: 0,
            },
            Sink {
                component: 1,
                port: 0,
            },
        );
        bank.write(a, 3);
        assert_eq!(bank.q(a), 0);
        bank.edge();
        assert_eq!(bank.q(a), 3);
        bank.edge();
        assert_eq!(bank.q(a), 3, "held");
        bank.write(a, 4);
        bank.edge();
        assert_eq!(bank.q(a), 4);
    }
}

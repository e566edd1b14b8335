//! A network driven one message and one cycle at a time: the engine's
//! router models ([`super::build`]) as a testbench or a script holds them,
//! with the messages it sends, every copy delivered with its cycles, the
//! statistics of [`super::stats`] and an optional waveform of every
//! register. The Python package and the C ABI wrap this type; a trace
//! replay ([`super::trace::replay`]) runs on it too.
//!
//! Message ids count from 0 in the order [`Session::send`] takes them. A
//! send is checked before anything is queued: the source and every
//! destination must exist, the destinations must be distinct and exclude
//! the source, and the packet must be longer than the router's header.

use super::stats::{Collector, Metric, Summary};
use super::{Arrival, Engine, RouterModel, RunConfig, RunOptions, TopoSpec};
use crate::wave::TraceLimits;
use crate::{Error, Result};
use rustc_hash::FxHashMap;
use std::path::{Path, PathBuf};

/// A network the caller feeds and clocks.
pub struct Session {
    engine: Box<dyn Engine>,
    topology: String,
    router: RouterModel,
    routing: &'static str,
    scheme: String,
    /// Copies still to arrive, per message in flight.
    left: FxHashMap<u64, u32>,
    copies_in_flight: u64,
    next_msg: u64,
    /// The copies delivered, less those forgotten
    /// ([`Session::forget_arrivals`]).
    log: Vec<Arrival>,
    /// Index into `log` of the first arrival [`Session::take_arrivals`] has
    /// not returned.
    taken: usize,
    /// Copies delivered and dropped from `log`.
    forgotten: u64,
    buf: Vec<Arrival>,
    col: Collector,
    wave: Option<(PathBuf, TraceLimits)>,
    /// The topology file the network was built from, which a waveform is
    /// not written over.
    file: Option<PathBuf>,
}

impl Session {
    /// Builds `router` (default: the topology's) with `routing` (default:
    /// the model's) on `topo`, with the hardware and multicast scheme of
    /// `o` (its traffic fields are not used).
    pub fn new(
        topo: &TopoSpec,
        router: Option<RouterModel>,
        routing: Option<&str>,
        o: &RunOptions,
    ) -> Result<Session> {
        let (engine, router, routing) = super::build(topo, router, routing, o)?;
        let scheme = super::scheme_of(router, topo, routing, o).to_string();
        Ok(Session {
            engine,
            topology: topo.to_string(),
            router,
            routing,
            scheme,
            left: FxHashMap::default(),
            copies_in_flight: 0,
            next_msg: 0,
            log: Vec::new(),
            taken: 0,
            forgotten: 0,
            buf: Vec::new(),
            col: Collector::new(0, u64::MAX / 2, Metric::Latency),
            wave: None,
            file: match topo {
                TopoSpec::File(p) => Some(p.clone()),
                _ => None,
            },
        })
    }

    /// Builds the network, router, routing and hardware of a run
    /// configuration (its traffic and statistics sections are not used),
    /// with the waveform of its `[output]` section, if any.
    pub fn from_config(c: &RunConfig) -> Result<Session> {
        let plan = c.plan()?;
        let mut s = Session::new(
            &plan.topology,
            plan.router,
            plan.routing.as_deref(),
            &plan.options,
        )?;
        if let Some(v) = &c.output.vcd {
            s.trace(v, plan.limits.clone(), plan.options.sim.cycle_ps())?;
        }
        Ok(s)
    }

    /// Writes every register (or those `limits` keeps) to `path` (FST when
    /// it ends in `.fst`, VCD otherwise) from now on, at a clock period of
    /// `cycle_ps` picoseconds; the GTKWave and Surfer views are written
    /// beside it by [`finish`](Self::finish). Only before the first cycle,
    /// and not over the topology file the network was built from.
    pub fn trace(&mut self, path: &Path, limits: TraceLimits, cycle_ps: u64) -> Result<()> {
        if self.engine.cycle() != 0 {
            return Err(Error::Config {
                field: "vcd",
                value: path.display().to_string(),
                reason: format!(
                    "a waveform starts before the first cycle; this network is at cycle {} \
                     (limit it to a window with trace_from instead)",
                    self.engine.cycle()
                ),
            });
        }
        if self.wave.is_some() {
            return Err(Error::Config {
                field: "vcd",
                value: path.display().to_string(),
                reason: "this network already writes a waveform".into(),
            });
        }
        limits.check()?;
        crate::wave::check_not_input("vcd", path, self.file.as_deref())?;
        let comment = format!("wormcast, {} {} router", self.topology, self.router);
        let sink = limits.wrap(crate::wave::create(path, &comment)?)?;
        self.engine.attach_tracer(sink, cycle_ps)?;
        self.wave = Some((path.to_path_buf(), limits));
        Ok(())
    }

    /// Ends the waveform, if one is written, and writes its views; returns
    /// the waveform's path.
    pub fn finish(&mut self) -> Result<Option<PathBuf>> {
        Ok(self.finish_views()?.map(|(path, _)| path))
    }

    /// [`finish`](Self::finish), returning also what
    /// [`write_views`](crate::wave::write_views) wrote (`None` when the
    /// waveform has nothing beside it: standard output, a pipe).
    pub fn finish_views(&mut self) -> Result<Option<(PathBuf, Option<crate::wave::Views>)>> {
        let Some((path, limits)) = self.wave.take() else {
            return Ok(None);
        };
        let mut views = None;
        if let Some(h) = self.engine.finish_trace()? {
            views = crate::wave::write_views(&path, &*limits.view(&h)?)?;
        }
        Ok(Some((path, views)))
    }

    /// The topology, as its spec prints.
    pub fn topology(&self) -> &str {
        &self.topology
    }

    /// The router model.
    pub fn router(&self) -> RouterModel {
        self.router
    }

    /// Its routing function.
    pub fn routing(&self) -> &'static str {
        self.routing
    }

    /// The multicast scheme a message of several destinations takes.
    pub fn scheme(&self) -> &str {
        &self.scheme
    }

    /// Number of nodes.
    pub fn nodes(&self) -> u32 {
        self.engine.nodes()
    }

    /// Cycles simulated so far (the next step simulates this cycle).
    pub fn cycle(&self) -> u64 {
        self.engine.cycle()
    }

    /// Header flits of a unicast packet: a packet must be longer.
    pub fn header_flits(&self) -> u32 {
        self.engine.header_flits()
    }

    /// Checks a message as [`send`](Self::send) would, queueing nothing.
    pub fn check(&self, src: u32, dests: &[u32], flits: u32) -> Result<()> {
        crate::dests::check(self.nodes(), src, dests)?;
        let h = self.header_flits();
        if flits <= h {
            return Err(Error::Config {
                field: "flits",
                value: flits.to_string(),
                reason: format!("a packet holds its {h}-flit header and at least one more flit"),
            });
        }
        // What the model can carry: the cut-through switch's buffers, the
        // longest worm or tree message.
        self.engine.check_messages(flits, dests.len() as u32)
    }

    /// Queues a message from `src` to `dests`, created in the current
    /// cycle: one packet of `flits` flits (header included) to one
    /// destination, or a multicast carrying the payload such a packet
    /// would, by the session's scheme. Returns its id.
    pub fn send(&mut self, src: u32, dests: &[u32], flits: u32) -> Result<u64> {
        self.check(src, dests, flits)?;
        let id = self.next_msg;
        self.engine.send(id, src, dests, flits)?;
        self.next_msg += 1;
        self.left.insert(id, dests.len() as u32);
        self.copies_in_flight += dests.len() as u64;
        Ok(id)
    }

    /// Queues a hand-built worm created in the current cycle: `kind` is
    /// `unicast`, `ssr` (replicated at its first destination's switch),
    /// `multi-drop` (dropping at the switches of `path`, in order) or
    /// `bit-string`, carrying `payload` flits after its header. Only seed
    /// 000's cut-through switch takes them. Returns its message id.
    pub fn send_worm(
        &mut self,
        src: u32,
        kind: &str,
        dests: &[u32],
        path: &[u32],
        payload: u32,
    ) -> Result<u64> {
        crate::dests::check(self.nodes(), src, dests)?;
        let id = self.next_msg;
        let n = self.engine.send_worm(id, src, kind, dests, path, payload)?;
        self.next_msg += 1;
        self.left.insert(id, n);
        self.copies_in_flight += n as u64;
        Ok(id)
    }

    fn collect(&mut self) -> Result<()> {
        self.engine.arrivals(&mut self.buf);
        for a in self.buf.drain(..) {
            let Some(left) = self.left.get_mut(&a.msg) else {
                return Err(Error::Fault {
                    cycle: a.arrived,
                    what: format!(
                        "a copy of message {} arrived at node {} after all its copies had",
                        a.msg, a.node
                    ),
                });
            };
            *left -= 1;
            if *left == 0 {
                self.left.remove(&a.msg);
            }
            self.copies_in_flight -= 1;
            self.col.add(&a);
            self.log.push(a);
        }
        Ok(())
    }

    /// Simulates one cycle. A deadlock is an error with its waiting cycle.
    pub fn step(&mut self) -> Result<()> {
        self.engine.step()?;
        self.collect()
    }

    /// Simulates `cycles` cycles (those in which nothing can happen in
    /// one go): at most [`MAX_RUN_CYCLES`](super::MAX_RUN_CYCLES) a call,
    /// as a run has.
    pub fn run(&mut self, cycles: u64) -> Result<()> {
        Self::check_cycles(cycles)?;
        let end = self.cycle().saturating_add(cycles);
        while self.cycle() < end {
            self.advance(end - self.cycle())?;
        }
        Ok(())
    }

    /// Refuses a [`run`](Self::run) of more than
    /// [`MAX_RUN_CYCLES`](super::MAX_RUN_CYCLES) cycles: past it the end
    /// would wrap (a run of nothing, or one without end), and short of
    /// wrapping it would take hours even on an idle network.
    pub fn check_cycles(cycles: u64) -> Result<()> {
        if cycles > super::MAX_RUN_CYCLES {
            return Err(Error::Config {
                field: "cycles",
                value: cycles.to_string(),
                reason: format!("a call simulates at most {} cycles", super::MAX_RUN_CYCLES),
            });
        }
        Ok(())
    }

    /// Simulates one cycle, or as many as [`Engine::quiet`] allows up to
    /// `horizon`.
    pub(crate) fn advance(&mut self, horizon: u64) -> Result<()> {
        match self.engine.quiet(horizon) {
            0 => self.step(),
            q => self.engine.skip(q),
        }
    }

    /// Simulates until every copy sent has arrived, at most `max_cycles`
    /// cycles ([`Error::NotDrained`] past them); returns the cycle reached.
    pub fn drain(&mut self, max_cycles: u64) -> Result<u64> {
        let start = self.cycle();
        while self.copies_in_flight > 0 {
            if self.cycle() - start >= max_cycles {
                return Err(Error::NotDrained {
                    cycle: self.cycle(),
                    limit: max_cycles,
                    outstanding: self.left.len() as u64,
                    what: "messages",
                });
            }
            self.advance(max_cycles - (self.cycle() - start))?;
        }
        Ok(self.cycle())
    }

    /// Copies sent and not yet arrived.
    pub fn in_flight(&self) -> u64 {
        self.copies_in_flight
    }

    /// Messages sent so far.
    pub fn messages(&self) -> u64 {
        self.next_msg
    }

    /// Whether message `id` has every copy delivered (false for an id not
    /// sent).
    pub fn is_done(&self, id: u64) -> bool {
        id < self.next_msg && !self.left.contains_key(&id)
    }

    /// Every copy delivered so far, in the order they arrived, but those
    /// forgotten ([`forget_arrivals`](Self::forget_arrivals)).
    pub fn arrivals(&self) -> &[Arrival] {
        &self.log
    }

    /// Copies delivered so far, those forgotten included.
    pub fn delivered(&self) -> u64 {
        self.forgotten + self.log.len() as u64
    }

    /// The copies delivered since the last call (all of them, the first
    /// time): what a per-cycle scoreboard checks.
    pub fn take_arrivals(&mut self) -> &[Arrival] {
        let from = self.taken;
        self.taken = self.log.len();
        &self.log[from..]
    }

    /// Drops the oldest `n` copies [`arrivals`](Self::arrivals) still
    /// holds (all of them when it holds fewer). The session keeps every
    /// copy delivered until it is told to forget it (56 bytes a copy), so a
    /// testbench that runs long and has read what arrived forgets it. A
    /// copy forgotten before [`take_arrivals`](Self::take_arrivals)
    /// returned it is not returned.
    pub fn forget_arrivals(&mut self, n: usize) {
        let n = n.min(self.log.len());
        self.log.drain(..n);
        self.taken = self.taken.saturating_sub(n);
        self.forgotten += n as u64;
    }

    /// Drops the copies [`take_arrivals`](Self::take_arrivals) has
    /// returned ([`forget_arrivals`](Self::forget_arrivals) of them).
    pub fn forget_taken(&mut self) {
        self.forget_arrivals(self.taken);
    }

    /// Latency of every copy delivered (creation to tail), and network
    /// latency (first flit in to tail) where the router model records it.
    pub fn summaries(&self) -> (Summary, Option<Summary>) {
        self.col.summaries()
    }

    /// Flits each link has carried since cycle 0 (between routers, and
    /// each node's injection and ejection channels).
    pub fn link_flits(&self) -> Vec<(String, u64)> {
        self.engine.link_flits()
    }

    /// Every link's flits since cycle 0 and whether it joins two routers
    /// ([`Engine::link_counts`]), for [`loads`](Self::loads).
    pub(crate) fn link_counts(&self) -> Vec<(u64, bool)> {
        self.engine.link_counts()
    }

    /// The links' utilisation over the `cycles` since `start` (an earlier
    /// [`link_counts`](Self::link_counts)), as a run's result gives it.
    pub(crate) fn loads(
        &self,
        start: &[(u64, bool)],
        cycles: u64,
        per_link: bool,
    ) -> Result<(
        super::harness::LinkSummary,
        Option<Vec<super::harness::LinkLoad>>,
    )> {
        let end = self.engine.link_counts();
        super::harness::link_loads(&*self.engine, start, &end, cycles, per_link)
    }

    /// Counts of the router model's own events (prunes, ...).
    pub fn events(&self) -> Vec<(&'static str, u64)> {
        self.engine.events()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bit_string_multicast_reaches_each_destination_once() {
        let topo = TopoSpec::parse("irregular:switches=8,ports=8,nodes=32,seed=1").unwrap();
        let mut s = Session::new(&topo, None, None, &RunOptions::default()).unwrap();
        assert_eq!(
            (s.router(), s.scheme()),
            (RouterModel::CutThrough, "bit-string")
        );
        let dests = [4, 7, 20, 31];
        let id = s.send(3, &dests, 20).unwrap();
        assert_eq!(s.in_flight(), 4);
        let end = s.drain(10_000).unwrap();
        assert!(s.is_done(id));
        let mut got: Vec<u32> = s.arrivals().iter().map(|a| a.node).collect();
        got.sort_unstable();
        assert_eq!(got, dests);
        assert_eq!(
            s.arrivals().iter().map(|a| a.arrived).max(),
            Some(end),
            "the drain stops at the step that brought the last tail"
        );
        assert_eq!(s.take_arrivals().len(), 4);
        assert!(s.take_arrivals().is_empty());
    }

    /// Forgetting what was read keeps the log to what was not: each copy
    /// is taken once across the forgetting, the count of copies delivered
    /// keeps them all, and a copy forgotten unread is not taken.
    #[test]
    fn forgotten_arrivals_leave_the_log_and_stay_counted() {
        let topo = TopoSpec::parse("irregular:switches=8,ports=8,nodes=32,seed=1").unwrap();
        let mut s = Session::new(&topo, None, None, &RunOptions::default()).unwrap();
        let mut taken = Vec::new();
        for round in 0..3u32 {
            for src in 0..8u32 {
                s.send(src, &[8 + src + round], 4).unwrap();
            }
            s.drain(10_000).unwrap();
            assert_eq!(s.arrivals().len(), 8, "round {round}: only the unread");
            taken.extend(s.take_arrivals().iter().map(|a| a.msg));
            s.forget_taken();
            assert!(s.arrivals().is_empty());
            assert_eq!(s.delivered(), 8 * (round as u64 + 1));
        }
        taken.sort_unstable();
        assert_eq!(taken, (0..24).collect::<Vec<u64>>());
        s.send(0, &[9], 4).unwrap();
        s.send(1, &[10], 4).unwrap();
        s.drain(10_000).unwrap();
        let second = s.arrivals()[1].msg;
        s.forget_arrivals(1);
        assert_eq!(
            s.take_arrivals().iter().map(|a| a.msg).collect::<Vec<_>>(),
            [second]
        );
        s.forget_arrivals(usize::MAX);
        assert_eq!((s.arrivals().len(), s.delivered()), (0, 26));
    }

    #[test]
    fn a_hand_built_multi_drop_worm_drops_at_each_switch_of_its_path() {
        let topo = TopoSpec::parse("irregular:switches=8,ports=8,nodes=32,seed=1").unwrap();
        let net = crate::net::Network::new(&topo.topology().unwrap()).unwrap();
        let mut s = Session::new(&topo, None, None, &RunOptions::default()).unwrap();
        // Two destinations on each of two switches, along a legal path
        // (up*/down* from node 3's switch): the command line's example.
        let dests = [29, 21];
        let path: Vec<u32> = dests.iter().map(|&d| net.node_port(d).switch).collect();
        let id = s.send_worm(3, "multi-drop", &dests, &path, 16).unwrap();
        s.drain(10_000).unwrap();
        let mut got: Vec<u32> = s.arrivals().iter().map(|a| a.node).collect();
        got.sort_unstable();
        assert_eq!((id, got), (0, vec![21, 29]));
        let e = s
            .send_worm(3, "multi-drop", &[29], &[], 16)
            .unwrap_err()
            .to_string();
        assert!(e.contains("needs a path"), "{e}");
        let e = s
            .send_worm(3, "fan", &[29], &[], 16)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no worm kind `fan`"), "{e}");
        let mesh = TopoSpec::parse("mesh:4x4").unwrap();
        let mut t = Session::new(&mesh, None, None, &RunOptions::default()).unwrap();
        let e = t
            .send_worm(0, "bit-string", &[5], &[], 4)
            .unwrap_err()
            .to_string();
        assert!(e.contains("only the cut-through switch"), "{e}");
        assert_eq!((t.messages(), t.in_flight()), (0, 0));
    }

    #[test]
    fn bad_messages_are_refused_before_anything_is_queued() {
        let topo = TopoSpec::parse("mesh:4x4").unwrap();
        let mut s = Session::new(&topo, None, None, &RunOptions::default()).unwrap();
        let e = |r: Result<u64>| r.unwrap_err().to_string();
        let mut s2 = || s.send(0, &[16], 20);
        assert!(e(s2()).contains("node 16 does not exist"), "{}", e(s2()));
        assert!(e(s.send(0, &[0], 20)).contains("source"));
        assert!(e(s.send(0, &[2, 2], 20)).contains("twice"));
        assert!(e(s.send(0, &[2], 1)).contains("1-flit header"));
        assert_eq!((s.messages(), s.in_flight()), (0, 0));
        s.run(3).unwrap();
        let err = s
            .trace(Path::new("x.vcd"), TraceLimits::default(), 5000)
            .unwrap_err()
            .to_string();
        assert!(err.contains("at cycle 3"), "{err}");
    }
}

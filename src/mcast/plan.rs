//! Multicast plans: which node sends which worm in which phase, for every
//! scheme of seed 000 (sections 4, 5.2.4-5.2.6 and 5.3).
//!
//! Switch-based schemes cover the destinations with multidestination
//! worms:
//!
//! - **SSR** (section 5.2.4): one worm per switch that has destinations,
//!   replicated at that switch only;
//! - **path-based** (section 5.2.4, Fig. 13): the participating switches are
//!   split into partial ordered chains (POCs, see [`poc_order`](super::poc_order)); each chain
//!   becomes one multi-drop worm that visits its switches top down, so that
//!   by Theorems 4 and 5 its route is a legal up*/down* route whichever
//!   member sends it;
//! - **tree-based** (section 5.3): one bit-string worm to every destination.
//!
//! The SSR and path-based worms are sent in phases (section 5.2.5). Both
//! schedules list the worms by the number of destinations they cover, most
//! first (ties keep the chain order), and the source sends the first in
//! phase 1. In every later phase each *sender* takes the next worm of the
//! list, senders in the order they got the message (the source first):
//!
//! - **Greedy (G)**: every node that had the message before the phase is a
//!   sender;
//! - **Less Greedy (LG)**: the source and one node of every switch reached
//!   so far (the first destination reached on it; the source stands for its
//!   own switch) are the senders.
//!
//! The NI-based schemes send unicast messages along a tree over the POC
//! ordering: the optimal k-binomial tree with smart-NI FPFS forwarding, or
//! the binomial tree through the hosts (conventional); their phases are
//! the steps of the step model.

use super::{Discipline, PocOrderer, Tree, optimal_k};
use crate::header::Kind;
use crate::link::{WormBuilder, WormScratch, WormSpec};
use crate::net::{Network, UpDown};
use crate::{Error, Result};
use serde::Serialize;
use std::collections::HashSet;
use std::sync::Mutex;

/// The multicast schemes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PlanScheme {
    /// Multi-phase multicast with SSR worms, Greedy schedule.
    SsrG,
    /// Multi-phase multicast with SSR worms, Less Greedy schedule.
    SsrLg,
    /// Path-based multi-drop worms, Greedy schedule.
    PathG,
    /// Path-based multi-drop worms, Less Greedy schedule.
    PathLg,
    /// One tree-based (bit-string) worm.
    Tree,
    /// Smart-NI FPFS forwarding over the optimal k-binomial tree.
    NiKbinomial,
    /// Unicast messages through the hosts over the binomial tree.
    Binomial,
}

impl PlanScheme {
    /// Every scheme.
    pub const ALL: [PlanScheme; 7] = [
        PlanScheme::SsrG,
        PlanScheme::SsrLg,
        PlanScheme::PathG,
        PlanScheme::PathLg,
        PlanScheme::Tree,
        PlanScheme::NiKbinomial,
        PlanScheme::Binomial,
    ];

    /// The name used on the command line and in CSV files.
    pub fn name(self) -> &'static str {
        match self {
            PlanScheme::SsrG => "ssr-g",
            PlanScheme::SsrLg => "ssr-lg",
            PlanScheme::PathG => "path-g",
            PlanScheme::PathLg => "path-lg",
            PlanScheme::Tree => "tree",
            PlanScheme::NiKbinomial => "ni-kbinomial",
            PlanScheme::Binomial => "binomial",
        }
    }

    /// The scheme named `s` (see [`PlanScheme::name`]).
    pub fn parse(s: &str) -> Result<PlanScheme> {
        PlanScheme::ALL
            .into_iter()
            .find(|x| x.name() == s)
            .ok_or_else(|| {
                Error::BadTree(format!(
                    "unknown scheme {s:?}; the schemes are {}",
                    PlanScheme::ALL.map(|x| x.name()).join(", ")
                ))
            })
    }

    /// True for the schemes that send multidestination worms.
    pub fn uses_worms(self) -> bool {
        !matches!(self, PlanScheme::NiKbinomial | PlanScheme::Binomial)
    }
}

impl std::fmt::Display for PlanScheme {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of destinations one worm covers: the switches it drops copies at,
/// in the order it visits them, and the destinations on each.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Cover {
    /// (switch, destinations on it by port) in visiting order.
    pub stops: Vec<(u32, Vec<u32>)>,
}

impl Cover {
    /// Destinations covered, in visiting order.
    pub fn dests(&self) -> Vec<u32> {
        self.stops
            .iter()
            .flat_map(|(_, d)| d.iter().copied())
            .collect()
    }

    /// Number of destinations covered.
    pub fn len(&self) -> usize {
        self.stops.iter().map(|(_, d)| d.len()).sum()
    }

    /// True when it covers nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The switches it drops copies at, in order.
    pub fn switches(&self) -> Vec<u32> {
        self.stops.iter().map(|(s, _)| *s).collect()
    }
}

/// One send of a plan.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlannedWorm {
    /// The phase (1 for the source's first send).
    pub phase: u32,
    /// The node that sends it.
    pub sender: u32,
    /// Its header encoding.
    pub kind: Kind,
    /// The destinations it covers, in the order it reaches them.
    pub dests: Vec<u32>,
    /// The switches with destinations it visits, in order.
    pub switches: Vec<u32>,
    /// The worm as the sender asks for it.
    pub spec: WormSpec,
    /// Its encoded header.
    pub header: Vec<u8>,
}

/// A multicast plan.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Plan {
    /// The scheme.
    pub scheme: PlanScheme,
    /// The source node.
    pub source: u32,
    /// The destinations.
    pub dests: Vec<u32>,
    /// Packets of the message (the NI-based schemes' trees depend on it).
    pub packets: u32,
    /// Every send, by phase, then sender order.
    pub worms: Vec<PlannedWorm>,
    /// Number of phases.
    pub phases: u32,
    /// The tree's `k` for the NI-based schemes.
    pub k: Option<u32>,
}

impl Plan {
    /// Plans a multicast of `packets` packets from `source` to `dests` on
    /// `net` by `scheme`. `builder` checks and encodes the worms.
    pub fn new(
        net: &Network,
        ud: &UpDown,
        builder: &WormBuilder,
        scheme: PlanScheme,
        source: u32,
        dests: &[u32],
        packets: u32,
    ) -> Result<Plan> {
        let mut scratch = PlanScratch::new(net, ud);
        Self::ordered_by(&mut scratch, net, builder, scheme, source, dests, packets)
    }

    /// As [`new`](Self::new), with the ordering and the worms' path
    /// checks made in `scratch`, the [`PlanScratch`] of `net` under its
    /// up*/down* directions: a caller that plans multicast after multicast
    /// on one network keeps one, so that no plan costs a walk of the whole
    /// network. A scratch made for a network of another size is an error;
    /// one made for another network of the same size is not detected, and
    /// orders by that network.
    pub fn ordered_by(
        scratch: &mut PlanScratch,
        net: &Network,
        builder: &WormBuilder,
        scheme: PlanScheme,
        source: u32,
        dests: &[u32],
        packets: u32,
    ) -> Result<Plan> {
        if dests.is_empty() {
            return Err(Error::BadTree(
                "a multicast needs at least one destination".into(),
            ));
        }
        if dests.contains(&source) {
            return Err(Error::BadTree(format!(
                "the source {source} cannot be one of its own destinations"
            )));
        }
        let (switches, nodes) = scratch.poc.size();
        if (switches, nodes) != (net.num_switches(), net.num_nodes()) {
            return Err(Error::BadTree(format!(
                "the plan's scratch was made for a network of {switches} switches and {nodes} nodes, \
                 not this one of {} and {}",
                net.num_switches(),
                net.num_nodes()
            )));
        }
        // Checks the nodes and duplicates too.
        let order = scratch.poc.order(source, dests)?;
        let switch_of = |n: u32| net.node_port(n).switch;
        let (worms, k) = match scheme {
            PlanScheme::SsrG | PlanScheme::SsrLg | PlanScheme::PathG | PlanScheme::PathLg => {
                let covers = if matches!(scheme, PlanScheme::SsrG | PlanScheme::SsrLg) {
                    ssr_covers(net, &order.chains, source, dests)
                } else {
                    path_covers(net, &order.chains, source, dests)
                };
                let greedy = matches!(scheme, PlanScheme::SsrG | PlanScheme::PathG);
                let sched = schedule(&covers, source, greedy, switch_of);
                let mut out = Vec::with_capacity(sched.len());
                for (phase, sender, c) in sched {
                    out.push(planned(
                        builder,
                        &mut scratch.worms,
                        phase,
                        sender,
                        &covers[c],
                    )?);
                }
                (out, None)
            }
            PlanScheme::Tree => {
                let spec = WormSpec::BitString {
                    dests: dests.to_vec(),
                };
                let w = builder.build_in(source, &spec, &mut scratch.worms)?;
                let mut switches: Vec<u32> = Vec::new();
                for &d in dests {
                    if !switches.contains(&switch_of(d)) {
                        switches.push(switch_of(d));
                    }
                }
                let pw = PlannedWorm {
                    phase: 1,
                    sender: source,
                    kind: w.kind,
                    dests: dests.to_vec(),
                    switches,
                    spec,
                    header: w.header,
                };
                (vec![pw], None)
            }
            PlanScheme::NiKbinomial | PlanScheme::Binomial => {
                let (tree, k) = if scheme == PlanScheme::NiKbinomial {
                    let k = optimal_k(order.order.len() as u64, packets.max(1))?.k;
                    (Tree::kbinomial(&order.order, k)?, Some(k))
                } else {
                    (Tree::binomial(&order.order)?, None)
                };
                let m = if scheme == PlanScheme::NiKbinomial {
                    packets.max(1)
                } else {
                    1
                };
                let steps = tree.steps(m, Discipline::Fpfs);
                let mut out = Vec::new();
                for v in 0..tree.len() {
                    for &c in tree.children(v) {
                        let d = tree.node(c);
                        let spec = WormSpec::Unicast { dest: d };
                        let w = builder.build_in(tree.node(v), &spec, &mut scratch.worms)?;
                        out.push(PlannedWorm {
                            phase: steps.received[c][0],
                            sender: tree.node(v),
                            kind: w.kind,
                            dests: vec![d],
                            switches: vec![switch_of(d)],
                            spec,
                            header: w.header,
                        });
                    }
                }
                out.sort_by_key(|w| w.phase);
                (out, k)
            }
        };
        let phases = worms.iter().map(|w| w.phase).max().unwrap_or(0);
        Ok(Plan {
            scheme,
            source,
            dests: dests.to_vec(),
            packets,
            worms,
            phases,
            k,
        })
    }

    /// The tree of who sends to whom: every destination's parent is the
    /// sender of the worm that covers it; children in sending order.
    pub fn tree(&self) -> Result<Tree> {
        let mut kids: Vec<(u32, Vec<u32>)> = Vec::new();
        for w in &self.worms {
            match kids.iter_mut().find(|(s, _)| *s == w.sender) {
                Some((_, k)) => k.extend(&w.dests),
                None => kids.push((w.sender, w.dests.clone())),
            }
        }
        Tree::from_children(self.source, &kids)
    }

    /// A readable listing: the worms phase by phase, each with its sender,
    /// encoding, switches, destinations and header bytes.
    pub fn to_text(&self) -> String {
        use std::fmt::Write;
        let mut t = String::new();
        let _ = writeln!(
            t,
            "{}: source {}, {}, {} in {}{}",
            self.scheme,
            self.source,
            crate::counted(self.dests.len() as u64, "destinations"),
            crate::counted(self.worms.len() as u64, "sends"),
            crate::counted(self.phases.into(), "phases"),
            self.k.map_or(String::new(), |k| format!(" (k = {k})"))
        );
        for p in 1..=self.phases {
            let _ = writeln!(t, "phase {p}");
            for w in self.worms.iter().filter(|w| w.phase == p) {
                let _ = writeln!(
                    t,
                    "  node {:>4} -> {:<10} switches {:?}  dests {:?}  header {}",
                    w.sender,
                    w.kind.to_string(),
                    w.switches,
                    w.dests,
                    hex(&w.header)
                );
            }
        }
        t
    }

    /// The sends of node `x`, in order.
    pub fn sends_of(&self, x: u32) -> impl Iterator<Item = &PlannedWorm> {
        self.worms.iter().filter(move |w| w.sender == x)
    }
}

/// What planning a multicast works in, kept between the plans of one
/// network: its POC ordering's down links and marks ([`PocOrderer`]) and
/// the marks of its worms' path checks ([`WormScratch`]).
#[derive(Clone, Debug)]
pub struct PlanScratch {
    poc: PocOrderer,
    worms: WormScratch,
}

impl PlanScratch {
    /// The scratch for plans on `net` under the up*/down* directions `ud`.
    pub fn new(net: &Network, ud: &UpDown) -> Self {
        PlanScratch {
            poc: PocOrderer::new(net, ud),
            worms: WormScratch::default(),
        }
    }

    /// Its POC ordering, for a caller that orders participants without a
    /// plan.
    pub fn orderer(&mut self) -> &mut PocOrderer {
        &mut self.poc
    }
}

/// Plans multicasts on one network (its spanning tree, routing tables and
/// header formats computed once, and the scratch of its plans kept between
/// them).
#[derive(Debug)]
pub struct Planner {
    net: Network,
    ud: UpDown,
    builder: WormBuilder,
    /// Behind a lock so that a shared planner plans; one plan at a time.
    scratch: Mutex<PlanScratch>,
}

impl Clone for Planner {
    fn clone(&self) -> Self {
        Planner {
            net: self.net.clone(),
            ud: self.ud.clone(),
            builder: self.builder.clone(),
            scratch: Mutex::new(self.lock().clone()),
        }
    }
}

impl Planner {
    /// The planner of `net`.
    pub fn new(net: &Network) -> Planner {
        let (ud, routes) = crate::net::RoutingTables::for_network(net);
        let formats = crate::header::Formats::new(
            net.num_nodes() as u32,
            net.num_switches() as u32,
            net.max_ports(),
        );
        Planner {
            net: net.clone(),
            builder: WormBuilder::new(net, std::sync::Arc::new(routes), formats),
            scratch: Mutex::new(PlanScratch::new(net, &ud)),
            ud,
        }
    }

    /// The network.
    pub fn network(&self) -> &Network {
        &self.net
    }

    /// Its spanning tree and link directions.
    pub fn updown(&self) -> &UpDown {
        &self.ud
    }

    /// Plans a multicast (see [`Plan::new`]), in the planner's scratch:
    /// the cost of a plan is that of its participants and worms, not of
    /// the network's size.
    pub fn plan(
        &self,
        scheme: PlanScheme,
        source: u32,
        dests: &[u32],
        packets: u32,
    ) -> Result<Plan> {
        Plan::ordered_by(
            &mut self.lock(),
            &self.net,
            &self.builder,
            scheme,
            source,
            dests,
            packets,
        )
    }

    /// The scratch. A plan that panicked part way left nothing a later
    /// plan reads: every ordering and path check starts new marks.
    fn lock(&self) -> std::sync::MutexGuard<'_, PlanScratch> {
        self.scratch.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Bytes as hexadecimal pairs.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn planned(
    builder: &WormBuilder,
    scratch: &mut WormScratch,
    phase: u32,
    sender: u32,
    c: &Cover,
) -> Result<PlannedWorm> {
    let spec = if c.stops.len() == 1 {
        WormSpec::Ssr {
            switch: c.stops[0].0,
            dests: c.stops[0].1.clone(),
        }
    } else {
        WormSpec::MultiDrop {
            path: c.stops.clone(),
        }
    };
    let w = builder.build_in(sender, &spec, scratch)?;
    Ok(PlannedWorm {
        phase,
        sender,
        kind: w.kind,
        dests: c.dests(),
        switches: c.switches(),
        spec,
        header: w.header,
    })
}

/// The destinations on switch `s`, by port.
fn on_switch(net: &Network, s: u32, dests: &HashSet<u32>) -> Vec<u32> {
    net.nodes_of(s)
        .into_iter()
        .filter(|d| dests.contains(d))
        .collect()
}

/// SSR covers (section 5.2.4): one per switch with destinations, in the
/// order the POC chains list the switches.
pub fn ssr_covers(net: &Network, chains: &[Vec<u32>], source: u32, dests: &[u32]) -> Vec<Cover> {
    let set: HashSet<u32> = dests.iter().copied().filter(|&d| d != source).collect();
    chains
        .iter()
        .flatten()
        .map(|&s| Cover {
            stops: vec![(s, on_switch(net, s, &set))],
        })
        .filter(|c| !c.is_empty())
        .collect()
}

/// Path-based covers (section 5.2.4, Fig. 13): one per POC chain, its
/// switches with destinations top down; a chain longer than a multi-drop
/// header holds is cut into consecutive parts.
pub fn path_covers(net: &Network, chains: &[Vec<u32>], source: u32, dests: &[u32]) -> Vec<Cover> {
    let set: HashSet<u32> = dests.iter().copied().filter(|&d| d != source).collect();
    let mut out = Vec::new();
    for chain in chains {
        let stops: Vec<(u32, Vec<u32>)> = chain
            .iter()
            .map(|&s| (s, on_switch(net, s, &set)))
            .filter(|(_, d)| !d.is_empty())
            .collect();
        for part in stops.chunks(crate::header::MAX_PAIRS) {
            out.push(Cover {
                stops: part.to_vec(),
            });
        }
    }
    out
}

/// The phase schedule of section 5.2.5 over `covers`: `(phase, sender,
/// cover index)` for every cover, by phase. Covers are taken most
/// destinations first (a stable sort keeps the chain order among equals).
pub fn schedule(
    covers: &[Cover],
    source: u32,
    greedy: bool,
    switch_of: impl Fn(u32) -> u32,
) -> Vec<(u32, u32, usize)> {
    let mut list: Vec<usize> = (0..covers.len()).collect();
    list.sort_by_key(|&c| std::cmp::Reverse(covers[c].len()));
    let mut holders = vec![source];
    // LG: one sender per switch reached, the source for its own switch.
    let mut reps = vec![source];
    let mut rep_switches = vec![switch_of(source)];
    let mut out = Vec::with_capacity(covers.len());
    let mut next = 0;
    let mut phase = 0;
    while next < list.len() {
        phase += 1;
        let senders: Vec<u32> = if phase == 1 {
            vec![source]
        } else if greedy {
            holders.clone()
        } else {
            reps.clone()
        };
        let mut reached = Vec::new();
        for s in senders {
            if next == list.len() {
                break;
            }
            let c = list[next];
            next += 1;
            out.push((phase, s, c));
            reached.extend(covers[c].dests());
        }
        for d in reached {
            holders.push(d);
            let sw = switch_of(d);
            if !rep_switches.contains(&sw) {
                rep_switches.push(sw);
                reps.push(d);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cover(stops: &[(u32, &[u32])]) -> Cover {
        Cover {
            stops: stops.iter().map(|(s, d)| (*s, d.to_vec())).collect(),
        }
    }

    /// Section 5.2.5 on the example of Fig. 14(a): eight SSR worms of two
    /// destinations each take 3 phases (G) and 4 (LG); the path-based
    /// worms <5,3,9>, <1,7>, <4,8>, <2> take 2 phases either way, with the
    /// senders the text names.
    #[test]
    fn schedules_of_the_papers_example() {
        // Node 100 + 2s + i is destination i of switch s; the source, 200,
        // is on switch 10.
        let sw = |n: u32| if n == 200 { 10 } else { (n - 100) / 2 };
        let two = |s: u32| [100 + 2 * s, 101 + 2 * s];
        let ssr: Vec<Cover> = [5, 3, 9, 1, 7, 4, 8, 2]
            .iter()
            .map(|&s| cover(&[(s, &two(s))]))
            .collect();
        let g = schedule(&ssr, 200, true, sw);
        assert_eq!(g.iter().map(|x| x.0).max(), Some(3));
        assert_eq!(
            g.iter()
                .filter(|x| x.0 == 2)
                .map(|x| x.1)
                .collect::<Vec<_>>(),
            vec![200, 110, 111],
            "the source and both destinations on switch 5"
        );
        let lg = schedule(&ssr, 200, false, sw);
        assert_eq!(lg.iter().map(|x| x.0).max(), Some(4));
        let phase = |s: &[(u32, u32, usize)], p: u32| -> Vec<(u32, u32)> {
            s.iter()
                .filter(|x| x.0 == p)
                .map(|x| (x.1, ssr[x.2].stops[0].0))
                .collect()
        };
        assert_eq!(phase(&lg, 2), vec![(200, 3), (110, 9)]);
        assert_eq!(
            phase(&lg, 3),
            vec![(200, 1), (110, 7), (106, 4), (118, 8)],
            "source, then one destination each on switches 5, 3 and 9"
        );
        assert_eq!(phase(&lg, 4), vec![(200, 2)]);

        let path = vec![
            cover(&[(5, &two(5)), (3, &two(3)), (9, &two(9))]),
            cover(&[(1, &two(1)), (7, &two(7))]),
            cover(&[(4, &two(4)), (8, &two(8))]),
            cover(&[(2, &two(2))]),
        ];
        for greedy in [true, false] {
            let s = schedule(&path, 200, greedy, sw);
            assert_eq!(s.iter().map(|x| x.0).max(), Some(2));
            let second: Vec<(u32, u32)> = s
                .iter()
                .filter(|x| x.0 == 2)
                .map(|x| (x.1, path[x.2].stops[0].0))
                .collect();
            // G: the other destination on switch 5 sends <2>; LG: one on 3.
            let third = if greedy { 111 } else { 106 };
            assert_eq!(second, vec![(200, 1), (110, 4), (third, 2)]);
        }
    }

    #[test]
    fn every_cover_is_sent_once_and_senders_hold_the_message() {
        let sw = |n: u32| n / 3;
        let covers: Vec<Cover> = (0..11u32)
            .map(|s| {
                cover(&[(
                    s + 1,
                    &[3 * (s + 1), 3 * (s + 1) + 1][..(1 + s as usize % 2)],
                )])
            })
            .collect();
        for greedy in [true, false] {
            let s = schedule(&covers, 0, greedy, sw);
            let mut sent: Vec<usize> = s.iter().map(|x| x.2).collect();
            sent.sort_unstable();
            assert_eq!(sent, (0..11).collect::<Vec<_>>());
            let mut have: HashSet<u32> = HashSet::from([0]);
            for p in 1..=s.last().unwrap().0 {
                let this: Vec<_> = s.iter().filter(|x| x.0 == p).collect();
                for x in &this {
                    assert!(have.contains(&x.1), "sender {} holds the message", x.1);
                }
                // One send per sender per phase.
                let senders: HashSet<u32> = this.iter().map(|x| x.1).collect();
                assert_eq!(senders.len(), this.len());
                for x in this {
                    have.extend(covers[x.2].dests());
                }
            }
        }
    }
}

//! The multicast schemes of seed 000 end to end: worm derivation (section
//! 5.2.4, Fig. 13), the G and LG phase schedules (section 5.2.5), the
//! tree-based worm (section 5.3), all run on the cycle model with hosts and
//! network interfaces.

mod common;

use proptest::prelude::*;
use std::collections::HashSet;
use wormcast::header::{Formats, Kind};
use wormcast::link::WormBuilder;
use wormcast::mcast::{Plan, PlanScheme, PlanScratch, Planner};
use wormcast::net::{Network, PortConn, RoutingTables, UpDown};
use wormcast::sim::{McastResult, NodeModel, SimConfig, System, Traffic};

fn fig14() -> Network {
    Network::load(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/topologies/fig14.toml"
    ))
    .unwrap()
}

/// Source node 20 on switch 10; both nodes of switches 5, 3, 9, 1, 7, 4, 8
/// and 2 (node 2s + i on switch s).
fn fig14_multicast() -> (u32, Vec<u32>) {
    let dests = [5u32, 3, 9, 1, 7, 4, 8, 2]
        .iter()
        .flat_map(|&s| [2 * s, 2 * s + 1])
        .collect();
    (20, dests)
}

fn ni_config() -> SimConfig {
    SimConfig {
        node_model: NodeModel::Ni,
        ..Default::default()
    }
}

/// Runs `plan` from cycle 0 on `net` to its last delivery and checks that
/// every destination's host got the message exactly once and no other
/// host got it.
fn run_plan(net: &Network, plan: &Plan) -> (System, McastResult) {
    let mut sys = System::new(net, &ni_config(), &Traffic::Idle).unwrap();
    let id = sys.multicast_plan(plan).unwrap();
    let r = sys.finish_multicast(id, 5_000_000).unwrap();
    // A little longer: a duplicate would arrive after the last first copy.
    sys.run(20_000).unwrap();
    for n in 0..net.num_nodes() as u32 {
        let got = sys
            .ni(n)
            .unwrap()
            .deliveries()
            .iter()
            .filter(|d| d.group == Some(id))
            .count();
        let want = plan.dests.contains(&n) as usize;
        assert_eq!(got, want, "node {n} received the multicast {got} times");
    }
    sys.check_quiescent().unwrap();
    (sys, r)
}

#[test]
fn fig14_phases_and_exactly_once_delivery() {
    let net = fig14();
    let planner = Planner::new(&net);
    let (src, dests) = fig14_multicast();
    let plan = |s| planner.plan(s, src, &dests, 1).unwrap();
    // The path-based worms: the chains <5,3,9>, <1,7>, <4,8> and <2> (the
    // chain <10, 2> has no destination on the source's switch).
    let p = plan(PlanScheme::PathLg);
    let chains: Vec<Vec<u32>> = p.worms.iter().map(|w| w.switches.clone()).collect();
    assert_eq!(chains, vec![vec![5, 3, 9], vec![1, 7], vec![4, 8], vec![2]]);
    assert!(
        p.worms
            .iter()
            .all(|w| w.kind == Kind::MultiDrop || w.switches.len() == 1)
    );
    // Section 5.2.5: SSR G 3 phases, SSR LG 4, path G 2, path LG 2; tree 1.
    let phases: Vec<(PlanScheme, u32, usize)> = [
        PlanScheme::SsrG,
        PlanScheme::SsrLg,
        PlanScheme::PathG,
        PlanScheme::PathLg,
        PlanScheme::Tree,
    ]
    .into_iter()
    .map(|s| {
        let p = plan(s);
        (s, p.phases, p.worms.len())
    })
    .collect();
    assert_eq!(
        phases,
        vec![
            (PlanScheme::SsrG, 3, 8),
            (PlanScheme::SsrLg, 4, 8),
            (PlanScheme::PathG, 2, 4),
            (PlanScheme::PathLg, 2, 4),
            (PlanScheme::Tree, 1, 1),
        ]
    );
    // The senders of path LG's phase 2: the source, a node of switch 5 and
    // a node of switch 3 (Fig. 16(b)); path G's: the source and both nodes
    // of switch 5 (Fig. 15(b)).
    let senders = |s| -> Vec<u32> {
        plan(s)
            .worms
            .iter()
            .filter(|w| w.phase == 2)
            .map(|w| w.sender)
            .collect()
    };
    assert_eq!(senders(PlanScheme::PathLg), vec![20, 10, 6]);
    assert_eq!(senders(PlanScheme::PathG), vec![20, 10, 11]);
    // Every scheme delivers to every destination exactly once, on the
    // cycle model.
    for s in PlanScheme::ALL {
        let p = plan(s);
        let (_, r) = run_plan(&net, &p);
        assert_eq!(r.deliveries.len(), dests.len(), "{s}");
    }
}

/// The ancestors of each switch through down links between levels (the
/// DAG `T` of Fig. 13, step 1).
fn below(net: &Network, planner: &Planner) -> Vec<HashSet<u32>> {
    let ud = planner.updown();
    let s = net.num_switches() as u32;
    let down: Vec<Vec<u32>> = (0..s)
        .map(|x| {
            net.ports_of(x)
                .filter_map(|(p, c)| match c {
                    PortConn::Link { peer, .. }
                        if !ud.goes_up(x, p) && ud.level(peer.switch) == ud.level(x) + 1 =>
                    {
                        Some(peer.switch)
                    }
                    _ => None,
                })
                .collect()
        })
        .collect();
    (0..s)
        .map(|x| {
            let mut seen = HashSet::new();
            let mut stack = down[x as usize].clone();
            while let Some(y) = stack.pop() {
                if seen.insert(y) {
                    stack.extend(&down[y as usize]);
                }
            }
            seen
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// On random irregular networks: every path-based worm's switches lie
    /// on a POC in order (each is below the previous one through down
    /// links between levels), its route from its sender is a legal
    /// up*/down* route (the worm builder checks every table route), and
    /// no scheme needs more path-based worms than SSR worms.
    #[test]
    fn path_worms_follow_pocs_and_never_outnumber_ssr_worms(
        seed in 0u64..1_000,
        switches in 4u32..=16,
        frac in 0.05f64..0.9,
        src_pick in 0u32..1_000,
    ) {
        let net = common::generated(switches, switches * 4, seed);
        let planner = Planner::new(&net);
        let n = net.num_nodes() as u32;
        let src = src_pick % n;
        let mut rng = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut dests: Vec<u32> = (0..n)
            .filter(|&x| {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                x != src && (rng % 1000) as f64 / 1000.0 < frac
            })
            .collect();
        if dests.is_empty() {
            dests.push((src + 1) % n);
        }
        let below = below(&net, &planner);
        for s in [PlanScheme::PathG, PlanScheme::PathLg] {
            let p = planner.plan(s, src, &dests, 1).unwrap();
            for w in &p.worms {
                for pair in w.switches.windows(2) {
                    prop_assert!(
                        below[pair[0] as usize].contains(&pair[1]),
                        "switch {} is not below switch {} on a POC", pair[1], pair[0]
                    );
                }
            }
            let mut covered: Vec<u32> = p.worms.iter().flat_map(|w| w.dests.clone()).collect();
            covered.sort_unstable();
            let mut want = dests.clone();
            want.sort_unstable();
            prop_assert_eq!(covered, want, "each destination covered once");
            let ssr = planner.plan(PlanScheme::SsrG, src, &dests, 1).unwrap();
            prop_assert!(p.worms.len() <= ssr.worms.len());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// A planner keeps its ordering's and path checks' marks from one plan
    /// to the next: multicast after multicast, under every scheme and
    /// with a clone taken part way, each of its plans (or its error) is
    /// the one a plan made from scratch gives.
    #[test]
    fn a_planner_kept_between_multicasts_plans_as_a_fresh_one(
        seed in 0u64..1_000,
        switches in 2u32..=24,
        picks in prop::collection::vec((0u32..10_000, 0u64..u64::MAX, 0usize..7), 1..12),
    ) {
        let net = common::generated(switches, switches * 3, seed);
        let mut planner = Planner::new(&net);
        let n = net.num_nodes() as u32;
        for (i, &(src, bits, scheme)) in picks.iter().enumerate() {
            let src = src % n;
            let mut dests: Vec<u32> = (0..n)
                .filter(|&x| x != src && (bits >> (x % 64)) & 1 == 1)
                .collect();
            if i == 3 {
                // A bad multicast between good ones: it must leave no mark.
                dests.push(src);
            }
            let scheme = PlanScheme::ALL[scheme];
            let fresh = Plan::new(
                &net,
                planner.updown(),
                &WormBuilder::new(
                    &net,
                    std::sync::Arc::new(RoutingTables::for_network(&net).1),
                    Formats::new(n, net.num_switches() as u32, net.max_ports()),
                ),
                scheme,
                src,
                &dests,
                2,
            );
            let kept = planner.plan(scheme, src, &dests, 2);
            match (kept, fresh) {
                (Ok(a), Ok(b)) => prop_assert_eq!(a, b, "{} from {} to {:?}", scheme, src, dests),
                (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string()),
                (a, b) => prop_assert!(false, "kept {:?} but fresh {:?}", a.is_ok(), b.is_ok()),
            }
            if i == 5 {
                planner = planner.clone();
            }
        }
    }
}

/// A plan's scratch made for another network is refused by name, not
/// read out of bounds.
#[test]
fn a_scratch_of_another_network_is_an_error() {
    let (small, big) = (common::generated(4, 8, 1), common::generated(16, 32, 1));
    let planner = Planner::new(&big);
    let mut scratch = PlanScratch::new(&small, &UpDown::new(&small));
    let builder = WormBuilder::new(
        &big,
        std::sync::Arc::new(RoutingTables::for_network(&big).1),
        Formats::new(32, 16, big.max_ports()),
    );
    let err = Plan::ordered_by(
        &mut scratch,
        &big,
        &builder,
        PlanScheme::PathLg,
        0,
        &[20, 31],
        1,
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("made for a network of 4 switches and 8 nodes, not this one of 16 and 32"),
        "{err}"
    );
    // The planner's own scratch plans the same multicast.
    assert!(planner.plan(PlanScheme::PathLg, 0, &[20, 31], 1).is_ok());
}

/// The host and NI overheads of every phase, to the cycle, on the Fig. 14
/// example with the paper's defaults (`t_hs = t_ns = t_nr = t_hr = 1000`,
/// 128-byte packets over a 97-cycle I/O bus copy): a member that has the
/// message at `D` injects its `k`-th worm at `D + k t_hs + 97 + t_ns` (its
/// host sends the worms one after the other; its NI processor is free by
/// then), and a destination whose copy is in its NI's receive queue at `A`
/// has the message in its host at `A + t_nr + 97 + t_hr`. No copy of the
/// tree-based worm is faster than `L + h (H + 2) + 1` cycles, a packet with
/// its `H`-flit header over the `h` switches of the shortest route (it may
/// go up further: to a switch that reaches all its destinations).
#[test]
fn every_phase_pays_host_and_ni_overheads() {
    let net = fig14();
    let planner = Planner::new(&net);
    let (src, dests) = fig14_multicast();
    let (t_hs, t_ns, t_nr, t_hr, bus, len) = (1000, 1000, 1000, 1000, 97, 128);
    for s in [
        PlanScheme::SsrG,
        PlanScheme::SsrLg,
        PlanScheme::PathG,
        PlanScheme::PathLg,
        PlanScheme::Tree,
    ] {
        let plan = planner.plan(s, src, &dests, 1).unwrap();
        let (sys, r) = run_plan(&net, &plan);
        let had = |x: u32| -> u64 {
            if x == src {
                0
            } else {
                r.deliveries.iter().find(|d| d.0 == x).unwrap().1
            }
        };
        for d in &dests {
            let a = sys.ni(*d).unwrap().stats().arrivals[0];
            assert_eq!(had(*d), a.arrive + t_nr + bus + t_hr, "{s}: node {d}");
            // The worm that reached it.
            let w = plan.worms.iter().find(|w| w.dests.contains(d)).unwrap();
            assert_eq!(a.from, w.sender);
            let k = plan.sends_of(w.sender).position(|x| x == w).unwrap() as u64 + 1;
            assert_eq!(
                a.inject,
                had(w.sender) + k * t_hs + bus + t_ns,
                "{s}: worm {k} of node {}",
                w.sender
            );
            if s == PlanScheme::Tree {
                let h = w.header.len() as u64;
                let (sa, sb) = (net.node_port(src).switch, net.node_port(*d).switch);
                let hops = planner_hops(&planner, sa, sb) + 1;
                assert!(a.arrive - a.inject > len + hops * (h + 2), "node {d}");
            }
        }
    }
}

/// Switch-to-switch hops of the shortest up*/down* route.
fn planner_hops(p: &Planner, a: u32, b: u32) -> u64 {
    let (_, routes) = wormcast::net::RoutingTables::for_network(p.network());
    routes.distance(a, b, wormcast::net::Phase::Up).unwrap() as u64
}

/// Regression: a multi-drop worm's delivered copy carries a shorter header
/// than its source wrote (the pairs of the switches before are stripped).
/// The NI returned credits for the configured packet size instead of the
/// flits it received, so here switch 3's output to node 6 got one credit
/// too many, its credit counter wrapped, and the next packet for node 6
/// waited for good with the rest of the network live (found by the
/// full-size Fig. 27 run: 16 switches, topology 6, no path-based multicast
/// completed). Now every credit comes back, and the next multicast through
/// that port completes.
#[test]
fn a_multi_drop_copy_returns_exactly_its_credits() {
    let net = common::generated(16, 32, 7);
    let planner = Planner::new(&net);
    let mut sys = System::new(&net, &ni_config(), &Traffic::Idle).unwrap();
    let casts: [(u32, &[u32]); 2] = [
        (7, &[13, 26, 9, 22, 24, 14, 28, 2, 21, 31, 6, 10, 16, 18, 1]),
        (14, &[28, 2, 23, 6, 15, 31, 25, 5, 27, 10, 24, 20, 7, 22, 4]),
    ];
    for (src, dests) in casts {
        let plan = planner.plan(PlanScheme::PathLg, src, dests, 1).unwrap();
        let id = sys.multicast_plan(&plan).unwrap();
        sys.finish_multicast(id, 1_000_000).unwrap();
        sys.run(20_000).unwrap();
        sys.check_quiescent().unwrap();
        let mut got: Vec<u32> = (0..32)
            .filter(|&n| {
                sys.ni(n)
                    .unwrap()
                    .deliveries()
                    .iter()
                    .any(|d| d.group == Some(id))
            })
            .collect();
        let mut want = dests.to_vec();
        got.sort_unstable();
        want.sort_unstable();
        assert_eq!(got, want, "multicast from {src}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Every scheme on random irregular networks, two multicasts one after
    /// the other on one system: each destination's host gets each message
    /// exactly once, and after each the network is back in its reset state
    /// (every chunk free, every credit returned).
    #[test]
    fn consecutive_multicasts_of_every_scheme_leave_the_network_quiescent(
        seed in 0u64..1_000,
        switches in 4u32..=20,
        scheme in 0usize..7,
        picks in proptest::collection::vec((0u32..1_000, 1usize..40), 3),
    ) {
        let scheme = PlanScheme::ALL[scheme];
        let net = common::generated(switches, switches * 2, seed);
        let planner = Planner::new(&net);
        let n = net.num_nodes() as u32;
        let mut sys = System::new(&net, &ni_config(), &Traffic::Idle).unwrap();
        for (src, k) in picks {
            let src = src % n;
            let dests: Vec<u32> = (1..n)
                .map(|i| (src + i * 7) % n)
                .filter(|&x| x != src)
                .take(k.min(n as usize - 1))
                .collect();
            let mut dests = dests;
            dests.sort_unstable();
            dests.dedup();
            let plan = planner.plan(scheme, src, &dests, 1).unwrap();
            let id = sys.multicast_plan(&plan).unwrap();
            sys.finish_multicast(id, 5_000_000).unwrap();
            sys.run(20_000).unwrap();
            prop_assert!(sys.check_quiescent().is_ok(), "{:?}", sys.check_quiescent());
            for x in 0..n {
                let got = sys.ni(x).unwrap().deliveries().iter().filter(|d| d.group == Some(id)).count();
                prop_assert_eq!(got, dests.contains(&x) as usize, "node {}", x);
            }
        }
    }
}

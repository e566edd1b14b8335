//! Large networks and idle cycles: the routing tables are exactly the
//! shortest legal up*/down* routes an independent search finds, networks
//! of thousands of switches deliver on the documented timing, and skipping
//! the cycles in which nothing can happen changes nothing.

mod common;

use proptest::prelude::*;
use std::collections::VecDeque;
use wormcast::link::WormSpec;
use wormcast::net::{IrregularParams, Network, Phase, PortConn, RoutingTables, UpDown};
use wormcast::rtl::PortMask;
use wormcast::sim::{SimConfig, System, Traffic};

/// Shortest legal up*/down* hop counts from `(s, phase)` to every switch,
/// by a forward search over (switch, phase) states.
fn forward(net: &Network, ud: &UpDown, s: u32, phase: Phase) -> Vec<Option<u32>> {
    let n = net.num_switches();
    let mut dist = vec![[None::<u32>; 2]; n];
    let mut q = VecDeque::new();
    dist[s as usize][phase as usize] = Some(0);
    q.push_back((s, phase));
    while let Some((x, ph)) = q.pop_front() {
        let d = dist[x as usize][ph as usize].unwrap();
        for (p, c) in net.ports_of(x) {
            if let PortConn::Link { peer, .. } = c {
                let up = ud.goes_up(x, p);
                if up && ph == Phase::Down {
                    continue;
                }
                let nph = if up { Phase::Up } else { Phase::Down };
                let slot = &mut dist[peer.switch as usize][nph as usize];
                if slot.is_none() {
                    *slot = Some(d + 1);
                    q.push_back((peer.switch, nph));
                }
            }
        }
    }
    dist.iter()
        .map(|[a, b]| match (a, b) {
            (Some(a), Some(b)) => Some(*a.min(b)),
            (a, b) => a.or(*b),
        })
        .collect()
}

/// Checks every entry of `rt` against an independent forward search: the
/// distance each state's route gives is the shortest legal one, and the
/// candidates are exactly the legal ports whose next state is one hop
/// nearer.
fn check_tables(net: &Network, ud: &UpDown, rt: &RoutingTables) -> Result<(), TestCaseError> {
    let n = net.num_switches() as u32;
    let fwd: Vec<[Vec<Option<u32>>; 2]> = (0..n)
        .map(|s| {
            [
                forward(net, ud, s, Phase::Up),
                forward(net, ud, s, Phase::Down),
            ]
        })
        .collect();
    for s in 0..n {
        for ph in [Phase::Up, Phase::Down] {
            let want = &fwd[s as usize][ph as usize];
            for d in 0..n {
                prop_assert_eq!(
                    rt.distance(s, d, ph),
                    want[d as usize],
                    "{} -> {} {:?}",
                    s,
                    d,
                    ph
                );
                let cands = rt.switch_candidates(s, d, ph);
                let Some(h) = want[d as usize] else {
                    prop_assert!(cands.is_empty());
                    continue;
                };
                if s == d {
                    prop_assert!(cands.is_empty());
                    continue;
                }
                let mut nearer = PortMask::EMPTY;
                for (port, c) in net.ports_of(s) {
                    let PortConn::Link { peer, .. } = c else {
                        continue;
                    };
                    let up = ud.goes_up(s, port);
                    if up && ph == Phase::Down {
                        continue;
                    }
                    let nph = if up { Phase::Up } else { Phase::Down };
                    if fwd[peer.switch as usize][nph as usize][d as usize] == Some(h - 1) {
                        nearer.insert(port as usize);
                    }
                }
                prop_assert_eq!(cands, nearer, "{} -> {} {:?}", s, d, ph);
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Every distance the tables give is the shortest legal one, and the
    /// candidates are exactly the ports that lead one hop closer.
    #[test]
    fn tables_hold_exactly_the_shortest_legal_routes(
        switches in 2u32..40,
        per_switch in 1u32..3,
        topo_seed in any::<u64>(),
    ) {
        let p = IrregularParams { switches, ports: 8, nodes: switches * per_switch, connectivity: 0.8, seed: topo_seed };
        let Ok(t) = p.generate() else { return Ok(()) };
        let net = Network::new(&t).unwrap();
        let (ud, rt) = RoutingTables::for_network(&net);
        prop_assert_eq!(rt.table_bytes(), (switches * switches * 2) as usize);
        check_tables(&net, &ud, &rt)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// The same on networks whose destinations the tables search in
    /// several groups of 64 (the last one partial), with masks of one, two,
    /// four and eight bytes.
    #[test]
    fn tables_of_several_search_groups_hold_the_shortest_legal_routes(
        switches in 65u32..260,
        ports in prop::sample::select(vec![6u32, 8, 12, 20, 40]),
        topo_seed in any::<u64>(),
    ) {
        let p = IrregularParams { switches, ports, nodes: switches * 2, connectivity: 0.8, seed: topo_seed };
        let t = p.generate().unwrap();
        let net = Network::new(&t).unwrap();
        let (ud, rt) = RoutingTables::for_network(&net);
        let width = match ports {
            0..=8 => 1,
            9..=16 => 2,
            17..=32 => 4,
            _ => 8,
        };
        prop_assert_eq!(rt.table_bytes(), (switches * switches * 2 * width) as usize);
        check_tables(&net, &ud, &rt)?;
    }
}

/// `System::run` skips quiet cycles; ticking every cycle must give the
/// same deliveries, at the same cycles, and the same report.
#[test]
fn running_with_skips_equals_ticking_every_cycle() {
    let net = common::generated(16, 48, 5);
    let cfg = SimConfig {
        record_deliveries: true,
        seed: 9,
        ..Default::default()
    };
    for load in [0.0005, 0.005, 0.05] {
        let traffic = Traffic::uniform(load, 20);
        let mut a = System::new(&net, &cfg, &traffic).unwrap();
        let mut b = System::new(&net, &cfg, &traffic).unwrap();
        if load < 0.001 {
            assert!(a.quiet_cycles(u64::MAX) > 1, "nothing to do at cycle 0");
        }
        a.run(40_000).unwrap();
        for _ in 0..40_000 {
            b.tick().unwrap();
        }
        assert_eq!(a.cycle(), b.cycle());
        assert!(!a.deliveries().is_empty());
        assert_eq!(a.deliveries(), b.deliveries(), "load {load}");
        assert_eq!(
            format!("{:?}", a.report()),
            format!("{:?}", b.report()),
            "load {load}"
        );
    }
}

/// 4,096 switches and 16,384 nodes (past the old fixed limits): packets
/// between far corners arrive at the idle-network latency, and the
/// routing tables take one byte per entry.
#[test]
fn a_network_of_4096_switches_delivers_on_time() {
    let net = common::generated(4096, 16384, 1);
    let cfg = SimConfig {
        record_deliveries: true,
        ..Default::default()
    };
    let mut sys = System::new(&net, &cfg, &Traffic::Idle).unwrap();
    let (_, rt) = RoutingTables::for_network(&net);
    assert_eq!(rt.table_bytes(), 4096 * 4096 * 2);
    for (src, dst) in [(0, 16383), (16383, 0), (5000, 7), (12345, 12346)] {
        let at = sys.cycle();
        sys.inject(src, dst, 20).unwrap();
        sys.drain(100_000).unwrap();
        let d: Vec<_> = sys
            .deliveries()
            .into_iter()
            .filter(|d| d.created == at)
            .collect();
        assert_eq!(d.len(), 1);
        assert_eq!((d[0].src, d[0].dst), (src, dst));
        assert_eq!(d[0].arrive - d[0].created, sys.idle_latency(src, dst, 20));
    }
    sys.check_quiescent().unwrap();
}

/// With 16,384 nodes a bit-string header (2,049 flits) cannot fit the
/// 640-flit buffers: the switches are built without reachability strings,
/// and a bit-string worm is refused when it is sent.
#[test]
fn bit_string_worms_that_cannot_fit_are_refused() {
    let net = common::generated(2048, 8192, 2);
    let mut sys = System::new(&net, &SimConfig::default(), &Traffic::Idle).unwrap();
    let e = sys
        .inject_worm(
            0,
            &WormSpec::BitString {
                dests: vec![1, 2, 3],
            },
            4,
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("640"), "{e}");
}

/// Taking the deliveries visits only the endpoints that recorded one, and
/// gives exactly what a scan of every endpoint gives: each look's new
/// deliveries, destination by destination in node order, each in arrival
/// order.
#[test]
fn taking_deliveries_gives_what_a_scan_of_every_endpoint_gives() {
    let net = common::generated(16, 64, 4);
    let cfg = SimConfig {
        record_deliveries: true,
        ..SimConfig::default()
    };
    let traffic = Traffic::uniform(0.05, 6);
    let mut taken = System::new(&net, &cfg, &traffic).unwrap();
    let mut scanned = System::new(&net, &cfg, &traffic).unwrap();
    let (mut got, mut want) = (Vec::new(), Vec::new());
    let mut seen = vec![0usize; 64];
    let mut busy_looks = 0;
    for _ in 0..300 {
        taken.run(37).unwrap();
        scanned.run(37).unwrap();
        let before = got.len();
        taken.take_deliveries(&mut got);
        let all = scanned.deliveries();
        let mut nodes = 0;
        for n in 0..64u32 {
            let mine: Vec<_> = all.iter().filter(|d| d.dst == n).collect();
            nodes += (mine.len() > seen[n as usize]) as u32;
            want.extend(mine[seen[n as usize]..].iter().copied());
            seen[n as usize] = mine.len();
        }
        assert_eq!(got.len() - before, want.len() - before);
        busy_looks += (nodes > 1) as u32;
    }
    assert_eq!(got, want);
    // Many looks found several endpoints to take from.
    assert!(
        got.len() > 2000 && busy_looks > 200,
        "{} {busy_looks}",
        got.len()
    );
}

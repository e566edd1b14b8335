//! Tree-based multicast with pruning and the pseudo-multicast baseline on
//! meshes and tori (seed 003 sections 3.1-3.4).

mod common;

use wormcast::Error;
use wormcast::direct::{Grid, Pruning, Release, Scheme, TreeConfig, TreeNet, TreeTraffic};

fn cfg() -> TreeConfig {
    TreeConfig {
        keep_routes: true,
        keep_deliveries: true,
        keep_prunes: true,
        ..TreeConfig::default()
    }
}

/// The Fig. 6 situation on an 8x8 mesh (north is +y): A at (6,5) sends to
/// (3,0), (0,5), (3,7); B at (6,2) sends to (3,6), (1,2), (3,1). N = (3,5),
/// M = (3,2).
fn figure6(pruning: Pruning) -> (TreeNet, u32, u32, Grid) {
    let g = Grid::mesh(8, 8, 1).unwrap();
    let c = |x, y| g.id([x, y, 0]);
    let mut net = TreeNet::new(
        g,
        TreeConfig {
            aux_flits: 6,
            pruning,
            watchdog: 500,
            ..cfg()
        },
    )
    .unwrap();
    let a = net
        .send(c(6, 5), &[c(3, 0), c(0, 5), c(3, 7)], 6, Scheme::Tree)
        .unwrap();
    let b = net
        .send(c(6, 2), &[c(3, 6), c(1, 2), c(3, 1)], 6, Scheme::Tree)
        .unwrap();
    (net, a, b, g)
}

/// A network dropped without its waveform finished (its run stopped on a
/// deadlock and the caller returned the error) ends the waveform as it
/// goes: the FST of Fig. 6 without pruning reads back up to the falling
/// edge of the cycle the watchdog stopped it in. It was unreadable (no
/// block, no end); the cut-through switch's network already ended its own.
#[test]
fn a_network_dropped_after_a_deadlock_ends_its_fst() {
    let (mut net, ..) = figure6(Pruning::Off);
    let path =
        std::env::temp_dir().join(format!("wormcast-tree-dropped-{}.fst", std::process::id()));
    let sink = wormcast::wave::create(&path, "dropped").unwrap();
    net.attach_tracer(sink, 5_000).unwrap();
    let err = net.run_until_delivered(10_000).unwrap_err();
    assert!(matches!(err, Error::TreeDeadlock(_)), "{err}");
    let stopped = net.cycle();
    drop(net);
    // 100 ps units: cycle `c` rises at 50 c and falls at 50 c + 25.
    let last = common::last_time(&path);
    std::fs::remove_file(&path).unwrap();
    assert_eq!(last, Some(format!("#{}", 50 * stopped + 25)));
    assert_eq!(stopped, 521);
}

#[test]
fn figure6_deadlocks_without_pruning() {
    let (mut net, ..) = figure6(Pruning::Off);
    let err = net.run_until_delivered(10_000).unwrap_err();
    let Error::TreeDeadlock(rep) = err else {
        panic!("expected a deadlock, got {err}");
    };
    let text = rep.to_string();
    // A's header for (3,7) waits at N for the channel B's first branch holds,
    // B's header for (3,1) waits at M for the channel A's branch holds, and
    // each branch is open but empty, waiting for the blocked message behind
    // it: eight input channels in one cycle.
    assert_eq!(rep.steps.len(), 8, "{text}");
    assert!(
        text.contains("multicast 0 at (3,5) input from +x vc0: header for (3,7) waits for c[(3,5)->(3,6) +y vc0] held by multicast 1"),
        "{text}"
    );
    assert!(
        text.contains("multicast 1 at (3,2) input from +x vc0: header for (3,1) waits for c[(3,2)->(3,1) -y vc0] held by multicast 0"),
        "{text}"
    );
    assert_eq!(
        rep.steps
            .iter()
            .filter(|s| s.contains("open but empty"))
            .count(),
        6
    );
}

#[test]
fn figure6_completes_with_pruning() {
    let (mut net, a, b, g) = figure6(Pruning::On { stall_limit: 8 });
    net.run_until_delivered(10_000).unwrap();
    // Both block in the same cycle and both prune: A cuts its two branches
    // at N (west and south), B its two at M (north and west).
    let c = |x, y| g.id([x, y, 0]);
    let prunes: Vec<(u32, u32, u32)> = net
        .prunes()
        .iter()
        .map(|p| (p.node, p.mcast, p.cut))
        .collect();
    assert_eq!(prunes, vec![(c(3, 2), b, 2), (c(3, 5), a, 2)]);
    for d in net.deliveries() {
        assert_eq!(
            net.route_of(d.mcast, d.node).unwrap(),
            g.unicast_route(d.src, d.node).as_slice()
        );
    }
    let mut got: Vec<(u32, u32)> = net.deliveries().iter().map(|d| (d.mcast, d.node)).collect();
    got.sort();
    let mut want = vec![
        (a, c(3, 0)),
        (a, c(0, 5)),
        (a, c(3, 7)),
        (b, c(3, 6)),
        (b, c(1, 2)),
        (b, c(3, 1)),
    ];
    want.sort();
    assert_eq!(got, want);
}

/// Unloaded unicast: the header leaves the source router one cycle after it
/// is queued and moves one hop per cycle; the data flits follow one per
/// cycle. The copy is complete `distance + 1 + data` cycles after the send.
#[test]
fn unicast_timing_and_route_on_every_pair() {
    for g in [
        Grid::mesh(4, 3, 1).unwrap(),
        Grid::torus(5, 4, 1).unwrap(),
        Grid::torus(3, 3, 4).unwrap(),
    ] {
        for data in [1u16, 3] {
            let mut net = TreeNet::new(g, cfg()).unwrap();
            for u in 0..g.nodes() {
                for v in (0..g.nodes()).filter(|&v| v != u) {
                    let start = net.cycle();
                    let m = net.send(u, &[v], data, Scheme::Pseudo).unwrap();
                    let end = net.run_until_delivered(1000).unwrap();
                    let d = net.deliveries().last().unwrap();
                    assert_eq!((d.mcast, d.node, d.src), (m, v, u));
                    assert_eq!(
                        d.cycle - start,
                        (g.distance(u, v) + 1 + data as u32) as u64,
                        "{g}: {u} -> {v}, {data} data flits"
                    );
                    assert_eq!(end, d.cycle + 1);
                    assert_eq!(
                        net.route_of(m, v).unwrap(),
                        g.unicast_route(u, v).as_slice()
                    );
                }
            }
        }
    }
}

/// A side longer than the routers' tables keep (1,024) has its hops
/// computed as they are taken: unicasts along a long mesh row and round
/// long tori, across the wrap link and at a ring's halfway tie, take the
/// dimension-order route in `distance + 1 + data` cycles. (A side past
/// 65,535 once had its coordinates cut to 16 bits, and a side past 65,536
/// its table's size overflowed: `mesh:2000000x1` panicked.)
#[test]
fn sides_longer_than_the_tables_route_in_closed_form() {
    for (g, pairs) in [
        (
            Grid::mesh(1500, 2, 1).unwrap(),
            vec![(0, 1499), (1499, 0), (2999, 1), (700, 2250), (1, 2)],
        ),
        (
            // Even side: 651 hops either way from 0 to 651 (the tie goes
            // the positive way).
            Grid::torus(1302, 3, 1).unwrap(),
            vec![(0, 651), (651, 0), (1300, 3), (5, 1301), (2604, 1000)],
        ),
        (
            Grid::torus(3, 3, 1200).unwrap(),
            vec![(0, 9 * 1199), (9 * 1199 + 8, 4), (9 * 600, 9)],
        ),
        (
            Grid::torus(70_000, 1, 1).unwrap(),
            vec![(65_530, 65_540), (69_999, 3), (10, 65_600)],
        ),
    ] {
        let mut net = TreeNet::new(g, cfg()).unwrap();
        for (u, v) in pairs {
            let start = net.cycle();
            let m = net.send(u, &[v], 2, Scheme::Pseudo).unwrap();
            net.run_until_delivered(40_000).unwrap();
            let d = net.deliveries().last().unwrap();
            assert_eq!((d.mcast, d.node, d.src), (m, v, u), "{g}");
            assert_eq!(
                d.cycle - start,
                (g.distance(u, v) + 1 + 2) as u64,
                "{g}: {u} -> {v}"
            );
            assert_eq!(
                net.route_of(m, v).unwrap(),
                g.unicast_route(u, v).as_slice(),
                "{g}: {u} -> {v}"
            );
        }
    }
}

/// A two-destination tree worm from (0,0) on an 8x8 mesh: H(3,0) D H(0,2).
/// At the source the first header goes +x at cycle 1 with the data at 2;
/// the second header opens a +y branch at 3 and the data is replayed
/// behind it at 4. Copies: (3,0) at 1+3+1 = 5; (0,2): header at (0,2) in
/// cycle 5, data in 6. As pseudo-multicast the second unicast enters the
/// network right behind the first and also completes at 6.
#[test]
fn tree_worm_timing_by_hand() {
    let g = Grid::mesh(8, 8, 1).unwrap();
    let c = |x, y| g.id([x, y, 0]);
    for (scheme, want) in [(Scheme::Tree, [5, 6]), (Scheme::Pseudo, [5, 6])] {
        let mut net = TreeNet::new(g, cfg()).unwrap();
        net.send(c(0, 0), &[c(3, 0), c(0, 2)], 1, scheme).unwrap();
        net.run_until_delivered(100).unwrap();
        let got: Vec<(u64, u32)> = net.deliveries().iter().map(|d| (d.cycle, d.node)).collect();
        assert_eq!(
            got,
            vec![(want[0], c(3, 0)), (want[1], c(0, 2))],
            "{scheme:?}"
        );
        let s = net.stats();
        assert_eq!(s.replayed, u64::from(scheme == Scheme::Tree));
        // Both: H and D over 3 hops to (3,0), H and D over 2 hops to (0,2):
        // the branches part at the source, so the tree saves no channel.
        assert_eq!(s.link_flits, 10);
    }
}

/// A start-up per worm at the source: the tree multicast pays it once, so
/// every copy is exactly `s` cycles later; pseudo-multicast pays it per
/// unicast, one after another, so its `j`-th copy is `(j + 1) s` later, and
/// the network latency (from the header's injection) does not change.
#[test]
fn a_start_up_is_paid_per_worm_at_the_source() {
    let g = Grid::mesh(8, 8, 1).unwrap();
    let c = |x, y| g.id([x, y, 0]);
    let dests = [c(3, 0), c(0, 2), c(5, 5)];
    let run = |scheme, startup| {
        let mut net = TreeNet::new(g, TreeConfig { startup, ..cfg() }).unwrap();
        net.send(c(0, 0), &dests, 1, scheme).unwrap();
        net.run_until_delivered(1_000).unwrap();
        let mut d: Vec<(u32, u64, u64)> = net
            .deliveries()
            .iter()
            .map(|d| (d.node, d.cycle, d.cycle - d.injected))
            .collect();
        d.sort_unstable();
        (d, net.stats().worms)
    };
    let order = |n: u32| dests.iter().position(|&d| d == n).unwrap() as u64;
    for (scheme, worms) in [(Scheme::Tree, 1), (Scheme::Pseudo, 3)] {
        let (base, w0) = run(scheme, 0);
        let (late, w7) = run(scheme, 7);
        assert_eq!((w0, w7), (worms, worms), "{scheme:?}");
        for (b, l) in base.iter().zip(&late) {
            let shift = match scheme {
                Scheme::Tree => 7,
                Scheme::Pseudo => 7 * (order(b.0) + 1),
            };
            assert_eq!(l.1, b.1 + shift, "{scheme:?} {b:?} {l:?}");
            assert_eq!(l.2, b.2, "network latency, {scheme:?}");
        }
    }
}

/// A header that follows an existing branch crosses alone: from (0,0) to
/// (3,0) and (5,0) the second header follows the +x branch to (3,0), where
/// the first branch is the consumption channel, and opens a +x branch there
/// with the data replayed once.
#[test]
fn a_header_following_a_branch_crosses_alone() {
    let g = Grid::mesh(8, 8, 1).unwrap();
    let c = |x, y| g.id([x, y, 0]);
    let mut net = TreeNet::new(g, cfg()).unwrap();
    net.send(c(0, 0), &[c(3, 0), c(5, 0)], 2, Scheme::Tree)
        .unwrap();
    net.run_until_delivered(100).unwrap();
    let s = net.stats();
    // H, D, D, H over 3 hops, then H + 2 replayed D over 2 hops.
    assert_eq!((s.link_flits, s.replayed, s.prunes), (4 * 3 + 3 * 2, 2, 0));
    let got: Vec<(u64, u32)> = net.deliveries().iter().map(|d| (d.cycle, d.node)).collect();
    // (3,0): header consumed at 4, data at 5 and 6. The second header
    // leaves the source at 4 (behind H, D, D at 1, 2, 3), reaches (3,0) at
    // the end of 6, opens +x there at 7 with the data replayed at 8 and 9;
    // two hops on, (5,0) consumes the header at 9 and the data at 10, 11.
    assert_eq!(got, vec![(6, c(3, 0)), (11, c(5, 0))]);
}

/// Random multicasts under load on a mesh and both tori: every copy's
/// header took exactly the hops of the unicast route from the source (the
/// model also re-checks every hop as it is taken).
#[test]
fn every_destination_is_reached_along_its_unicast_route() {
    for topo in ["mesh:8x8", "torus:8x8", "torus:4x4x4"] {
        let g = Grid::parse(topo).unwrap();
        for scheme in [Scheme::Tree, Scheme::Pseudo] {
            let mut net = TreeNet::new(g, cfg()).unwrap();
            net.set_traffic(TreeTraffic {
                rate: 0.01,
                min_dests: 4,
                max_dests: 25,
                data: 1,
                scheme,
                queue_cap: 4,
            })
            .unwrap();
            net.run(3_000).unwrap();
            net.stop_traffic();
            net.run_until_delivered(100_000).unwrap();
            let s = net.stats();
            assert_eq!(s.deliveries, s.dests, "{topo} {scheme:?}");
            assert!(s.deliveries > 1000, "{topo}: {s:?}");
            if scheme == Scheme::Tree {
                assert!(s.prunes > 0 && s.replayed > 0, "{topo}: {s:?}");
            }
            for d in net.deliveries() {
                assert_eq!(
                    net.route_of(d.mcast, d.node).unwrap(),
                    g.unicast_route(d.src, d.node).as_slice(),
                    "{topo}: multicast {} to {}",
                    d.mcast,
                    g.node_name(d.node)
                );
            }
        }
    }
}

/// The auxiliary buffer bounds a tree multicast's data (section 3.3); bad
/// input is refused with the reason.
#[test]
fn oversized_and_malformed_multicasts_are_refused() {
    let g = Grid::torus(4, 4, 1).unwrap();
    let mut net = TreeNet::new(
        g,
        TreeConfig {
            aux_flits: 3,
            ..cfg()
        },
    )
    .unwrap();
    let e = net
        .send(0, &[5, 6], 4, Scheme::Tree)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("does not fit the 3-flit auxiliary buffers"),
        "{e}"
    );
    net.send(0, &[5, 6], 3, Scheme::Tree).unwrap();
    // A unicast never replays: its length is not bound by the buffer.
    net.send(0, &[5, 6], 4, Scheme::Pseudo).unwrap();
    net.run_until_delivered(1000).unwrap();
    assert_eq!(net.stats().deliveries, 4);
    let big = TreeNet::new(
        g,
        TreeConfig {
            aux_flits: 8,
            ..cfg()
        },
    );
    big.unwrap().send(0, &[5, 6], 8, Scheme::Tree).unwrap();
    for (dests, data, what) in [
        (vec![16], 1, "no node 16 in the 4x4 torus"),
        (vec![0], 1, "the source 0 is among its own destinations"),
        (
            vec![3, 3],
            1,
            "node 3 is listed twice among the destinations",
        ),
        (vec![], 1, "needs at least one destination"),
        (vec![3], 0, "at least one data flit"),
    ] {
        let e = net
            .send(0, &dests, data, Scheme::Tree)
            .unwrap_err()
            .to_string();
        assert!(e.contains(what), "{e}");
    }
    // The largest grid the model takes builds without a table per pair of
    // nodes and routes corner to corner in distance + 1 + data cycles.
    let big = Grid::mesh(256, 256, 1).unwrap();
    let mut net = TreeNet::new(big, cfg()).unwrap();
    net.send(0, &[65_535], 1, Scheme::Tree).unwrap();
    net.run_until_delivered(2_000).unwrap();
    assert_eq!(net.deliveries()[0].cycle, 510 + 1 + 1);
    assert_eq!(net.route_of(0, 65_535).unwrap().len(), 510);
    let e = TreeNet::new(
        g,
        TreeConfig {
            buffer_flits: 0,
            ..cfg()
        },
    )
    .err()
    .unwrap();
    assert!(e.to_string().contains("buffer_flits"), "{e}");
    let e = net
        .set_traffic(TreeTraffic {
            rate: 0.1,
            min_dests: 4,
            max_dests: 12,
            data: 5,
            scheme: Scheme::Tree,
            queue_cap: 4,
        })
        .unwrap_err();
    assert!(e.to_string().contains("auxiliary"), "{e}");
}

/// Random multicast traffic far past saturation for 1,000,000 cycles on each
/// topology of the paper, tree with pruning, then drained: no deadlock (the
/// watchdog would stop the run), every copy owed delivered, none twice (the
/// model checks each copy as it arrives). The pseudo-multicast baseline runs
/// the same load for 200,000 cycles.
fn saturate(topo: &str, scheme: Scheme, cycles: u64) {
    saturate_with(topo, scheme, cycles, TreeConfig::default());
}

/// [`saturate`] under another reading of the router's open choices.
fn saturate_with(topo: &str, scheme: Scheme, cycles: u64, cfg: TreeConfig) {
    let g = Grid::parse(topo).unwrap();
    let mut net = TreeNet::new(g, TreeConfig { seed: 7, ..cfg }).unwrap();
    net.set_traffic(TreeTraffic {
        rate: 0.05,
        min_dests: 4,
        max_dests: 25,
        data: 1,
        scheme,
        queue_cap: 4,
    })
    .unwrap();
    net.run(cycles).unwrap();
    net.stop_traffic();
    net.run_until_delivered(1_000_000).unwrap();
    let s = net.stats();
    println!("{topo} {scheme:?}: {s:?}");
    assert!(s.refused > s.created, "past saturation: {s:?}");
    assert_eq!(s.completed, s.created);
    assert_eq!(s.deliveries, s.dests);
    if scheme == Scheme::Tree {
        // Releasing on a turn leaves a stalled input only the branch it
        // is using, so nothing is ever pruned.
        if cfg.release == Release::OnTurn {
            assert_eq!(s.prunes, 0, "{s:?}");
            assert!(s.early_releases > 1000, "{s:?}");
        } else {
            assert!(s.prunes > 1000, "{s:?}");
        }
    }
}

/// The readings of the open choices `tree variants` compares that change
/// the router's mechanism: selective pruning, and releasing a branch on a
/// turn (with pruning, and without any).
fn variant_configs() -> [TreeConfig; 3] {
    [
        TreeConfig {
            pruning: Pruning::Selective { stall_limit: 1 },
            ..TreeConfig::default()
        },
        TreeConfig {
            release: Release::OnTurn,
            ..TreeConfig::default()
        },
        TreeConfig {
            release: Release::OnTurn,
            pruning: Pruning::Off,
            ..TreeConfig::default()
        },
    ]
}

#[test]
#[ignore = "soak of 6 x 1,000,000 cycles (about three minutes); .ci/run runs it with --ignored"]
fn variants_past_saturation_for_a_million_cycles() {
    for topo in ["mesh:8x8", "torus:8x8"] {
        for cfg in variant_configs() {
            saturate_with(topo, Scheme::Tree, 1_000_000, cfg);
        }
    }
}

#[test]
#[ignore = "soak of 1,000,000 cycles (about a minute); .ci/run runs it with --ignored"]
fn saturated_8x8_mesh_for_a_million_cycles() {
    saturate("mesh:8x8", Scheme::Tree, 1_000_000);
    saturate("mesh:8x8", Scheme::Pseudo, 200_000);
}

#[test]
#[ignore = "soak of 1,000,000 cycles (about a minute); .ci/run runs it with --ignored"]
fn saturated_8x8_torus_for_a_million_cycles() {
    saturate("torus:8x8", Scheme::Tree, 1_000_000);
    saturate("torus:8x8", Scheme::Pseudo, 200_000);
}

#[test]
#[ignore = "soak of 1,000,000 cycles (about a minute); .ci/run runs it with --ignored"]
fn saturated_8x8x8_torus_for_a_million_cycles() {
    saturate("torus:8x8x8", Scheme::Tree, 1_000_000);
    saturate("torus:8x8x8", Scheme::Pseudo, 200_000);
}

/// The soaks above, short enough for the quick test command: every
/// topology past saturation for 30,000 cycles (pseudo-multicast 10,000),
/// drained, every copy delivered once.
#[test]
fn saturated_meshes_and_tori_briefly() {
    for topo in ["mesh:8x8", "torus:8x8", "torus:8x8x8"] {
        saturate(topo, Scheme::Tree, 30_000);
        saturate(topo, Scheme::Pseudo, 10_000);
        for cfg in variant_configs() {
            saturate_with(topo, Scheme::Tree, 10_000, cfg);
        }
    }
}

/// A stall limit longer than the watchdog: an input stalled for want of
/// credits prunes only after `stall_limit` cycles, and that prune is what
/// ends the wait, so the watchdog may not call the network deadlocked
/// before then. It did: with a stall limit of 300 and a watchdog of 100,
/// multicasts of up to 12 destinations on the 8x8 mesh were reported
/// deadlocked. Now every multicast completes, exactly once, and some
/// prune comes more than the watchdog's 100 cycles after the one before.
#[test]
fn a_stall_limit_past_the_watchdog_is_waited_for() {
    let mut net = TreeNet::new(
        Grid::mesh(8, 8, 1).unwrap(),
        TreeConfig {
            pruning: Pruning::On { stall_limit: 300 },
            watchdog: 100,
            seed: 3,
            ..cfg()
        },
    )
    .unwrap();
    assert_eq!(net.watchdog_window(), 400);
    net.set_traffic(TreeTraffic {
        rate: 0.05,
        min_dests: 1,
        max_dests: 12,
        data: 1,
        scheme: Scheme::Tree,
        queue_cap: 3,
    })
    .unwrap();
    net.run(3_000).unwrap();
    net.stop_traffic();
    net.run_until_delivered(1_000_000).unwrap();
    let s = net.stats();
    assert!(s.created > 100, "{s:?}");
    assert_eq!(s.completed, s.created);
    assert_eq!(s.deliveries, s.dests);
    // Two prunes in a row more than the watchdog apart: the run went on
    // past a stretch the old watchdog could have called a deadlock.
    let late = net
        .prunes()
        .windows(2)
        .filter(|w| w[1].cycle - w[0].cycle > 100)
        .count();
    assert!(late > 0, "{s:?} {:?}", net.prunes());
}

mod random {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

        /// Any small mesh or torus, FIFO depth, stall limit, data length,
        /// destination count and load: with pruning every multicast
        /// completes, each destination exactly once (checked by the model at
        /// every copy) and no deadlock.
        #[test]
        fn pruning_delivers_everything_exactly_once(
            topo in prop::sample::select(vec!["mesh:4x4", "torus:4x4", "torus:3x3x3", "mesh:3x3x3", "torus:5x3", "mesh:6x2"]),
            buffer in 1usize..4,
            stall_limit in prop::sample::select(vec![1u32, 2, 8, 30]),
            mode in 0usize..5,
            data in 1u16..4,
            rate in 0.02f64..0.3,
            max_dests in 1u32..9,
            seed in 0u64..1000,
        ) {
            let g = Grid::parse(topo).unwrap();
            // Total or selective pruning, released at the end or on a turn;
            // and releasing on a turn without any pruning.
            let (pruning, release) = match mode {
                0 => (Pruning::On { stall_limit }, Release::AtEnd),
                1 => (Pruning::Selective { stall_limit }, Release::AtEnd),
                2 => (Pruning::On { stall_limit }, Release::OnTurn),
                3 => (Pruning::Selective { stall_limit }, Release::OnTurn),
                _ => (Pruning::Off, Release::OnTurn),
            };
            let mut net = TreeNet::new(g, TreeConfig {
                buffer_flits: buffer,
                pruning,
                release,
                seed,
                ..TreeConfig::default()
            }).unwrap();
            net.set_traffic(TreeTraffic {
                rate,
                min_dests: 1,
                max_dests,
                data,
                scheme: Scheme::Tree,
                queue_cap: 3,
            }).unwrap();
            net.run(3_000).unwrap();
            net.stop_traffic();
            net.run_until_delivered(200_000).unwrap();
            let s = net.stats();
            prop_assert_eq!(s.completed, s.created);
            prop_assert_eq!(s.deliveries, s.dests);
        }
    }
}

/// The waveform of a two-destination tree worm from (0,0) on a 4x4 mesh to
/// (2,0) and (0,1), one data flit. Values are sampled after each clock
/// edge: the flit a router sends in cycle `t` is on its link register at
/// `t + 1`. Router (0,0) sends H(2,0) on +x in cycle 1 and the data in 2,
/// opens the +y branch with H(0,1) in 3 (the injection input, number 4,
/// owns it) and replays the data in 4; the message then ends there and both
/// branches raise `close` in cycle 4 and are free from 5. Router (2,0)
/// consumes the header in 3 and the data in 4; (0,1), one hop up, the
/// header in 4 and the replayed data in 5.
#[test]
fn waveform_of_a_tree_worm() {
    use wormcast::rtl::trace::MemorySink;
    let g = Grid::mesh(4, 4, 1).unwrap();
    let mut net = TreeNet::new(g, cfg()).unwrap();
    let mem = MemorySink::new();
    net.attach_tracer(Box::new(mem.clone()), 5_000).unwrap();
    net.send(0, &[2, 4], 1, Scheme::Tree).unwrap();
    net.run_until_delivered(100).unwrap();
    net.run(2).unwrap();
    net.finish_trace().unwrap();
    let v = |p: &str| mem.history(p);
    let h = |pairs: &[(u64, &str)]| -> Vec<(u64, String)> {
        pairs.iter().map(|&(c, s)| (c, s.to_string())).collect()
    };
    let w32 = |x: u32| format!("{x:032b}");
    let data = w32(0xC000_0000);
    assert_eq!(
        v("top.r0.in_inj.count"),
        h(&[(0, "00"), (1, "01"), (4, "00")])
    );
    assert_eq!(
        v("top.r0.out_px0.valid"),
        h(&[(0, "0"), (2, "1"), (4, "0")])
    );
    assert_eq!(
        v("top.r0.out_px0.flit"),
        vec![(0, w32(0)), (2, w32(2)), (3, data.clone()), (4, w32(0))]
    );
    assert_eq!(
        v("top.r0.out_py0.valid"),
        h(&[(0, "0"), (4, "1"), (6, "0")])
    );
    assert_eq!(
        v("top.r0.out_py0.flit"),
        vec![(0, w32(0)), (4, w32(4)), (5, data.clone()), (6, w32(0))]
    );
    assert_eq!(
        v("top.r0.out_px0.owner"),
        h(&[(0, "1111"), (2, "0100"), (5, "1111")])
    );
    assert_eq!(
        v("top.r0.out_py0.owner"),
        h(&[(0, "1111"), (4, "0100"), (5, "1111")])
    );
    assert_eq!(
        v("top.r0.out_px0.close"),
        h(&[(0, "0"), (5, "1"), (6, "0")])
    );
    assert_eq!(
        v("top.r0.out_py0.close"),
        h(&[(0, "0"), (5, "1"), (6, "0")])
    );
    assert_eq!(
        v("top.r0.in_inj.replay"),
        h(&[(0, "0"), (4, "1"), (5, "0")])
    );
    assert_eq!(v("top.r2.out_ej.valid"), h(&[(0, "0"), (4, "1"), (6, "0")]));
    let got: Vec<(u64, u32)> = net.deliveries().iter().map(|d| (d.cycle, d.node)).collect();
    assert_eq!(got, vec![(4, 2), (5, 4)]);
}

/// Selective pruning (seed 003's proposed future work) in the Fig. 6
/// situation: A and B block in the same cycle as with the total prune, but
/// each cuts only the one branch the other waits for (B at M its north
/// branch, A at N its west one), not both; every copy still arrives along
/// its unicast route.
#[test]
fn figure6_selective_pruning_cuts_only_the_wanted_branch() {
    let (mut net, a, b, g) = figure6(Pruning::Selective { stall_limit: 8 });
    let done = net.run_until_delivered(10_000).unwrap();
    let c = |x, y| g.id([x, y, 0]);
    let prunes: Vec<(u64, u32, u32, u32)> = net
        .prunes()
        .iter()
        .map(|p| (p.cycle, p.node, p.mcast, p.cut))
        .collect();
    assert_eq!(prunes, vec![(22, c(3, 2), b, 1), (22, c(3, 5), a, 1)]);
    assert_eq!(done, 35);
    assert_eq!(net.stats().deliveries, 6);
    for d in net.deliveries() {
        assert_eq!(
            net.route_of(d.mcast, d.node).unwrap(),
            g.unicast_route(d.src, d.node).as_slice()
        );
    }
}

/// Releasing a branch as soon as a later header turns away: in the Fig. 6
/// situation neither message ever holds two branches at N or M, so nothing
/// blocks on the other and both complete without any pruning, sooner than
/// with it.
#[test]
fn figure6_releasing_on_turn_needs_no_prune() {
    let g = Grid::mesh(8, 8, 1).unwrap();
    let c = |x, y| g.id([x, y, 0]);
    for pruning in [Pruning::Off, Pruning::On { stall_limit: 8 }] {
        // Released at the end: a deadlock without pruning, later copies
        // with it.
        let (mut net, ..) = figure6(pruning);
        let total = net.run_until_delivered(10_000);
        assert_eq!(total.is_err(), pruning == Pruning::Off);
        let mut net = TreeNet::new(
            g,
            TreeConfig {
                aux_flits: 6,
                pruning,
                release: Release::OnTurn,
                watchdog: 500,
                ..cfg()
            },
        )
        .unwrap();
        net.send(c(6, 5), &[c(3, 0), c(0, 5), c(3, 7)], 6, Scheme::Tree)
            .unwrap();
        net.send(c(6, 2), &[c(3, 6), c(1, 2), c(3, 1)], 6, Scheme::Tree)
            .unwrap();
        let done = net.run_until_delivered(10_000).unwrap();
        let s = net.stats();
        assert_eq!(
            (done, s.prunes, s.early_releases, s.deliveries),
            (27, 0, 4, 6)
        );
        if let Ok(total) = total {
            assert!(total > done, "{total} {done}");
        }
    }
}

/// One worm from (0,0) on a 4x4 mesh to (2,0), (0,1), (3,0) in that order:
/// the third header goes +x again. Released at the end, it follows the +x
/// branch the first opened, and the data is replayed twice: onto +y at the
/// source and onto +x at (2,0), where the first branch went into the
/// consumption channel. Released on a turn, the second header closes +x
/// and the third closes +y and opens +x anew: both replays at the source,
/// two early releases. The copies arrive in the same cycles.
#[test]
fn a_branch_released_on_a_turn_is_reopened_with_a_replay() {
    let g = Grid::mesh(4, 4, 1).unwrap();
    let mut got = Vec::new();
    for release in [Release::AtEnd, Release::OnTurn] {
        let mut net = TreeNet::new(g, TreeConfig { release, ..cfg() }).unwrap();
        net.send(0, &[2, 4, 3], 1, Scheme::Tree).unwrap();
        net.run_until_delivered(100).unwrap();
        let s = net.stats();
        let mut cycles: Vec<(u32, u64)> =
            net.deliveries().iter().map(|d| (d.node, d.cycle)).collect();
        cycles.sort();
        got.push((s.replayed, s.early_releases, s.prunes, cycles));
    }
    assert_eq!((got[0].0, got[0].1, got[0].2), (2, 0, 0));
    assert_eq!((got[1].0, got[1].1, got[1].2), (2, 2, 0));
    assert_eq!(got[0].3, got[1].3);
}

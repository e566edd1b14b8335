//! All-port 3-D meshes with Hamiltonian-path multicast (seed 002): the worked
//! example from simulated routes, R and the subnetworks on every hop, the
//! startup latency, and random TP and SP traffic past saturation.

use std::collections::BTreeSet;
use std::sync::Arc;
use wormcast::direct::mesh::{Mesh, MeshFabric};
use wormcast::direct::{DirectConfig, DirectSystem, DirectTraffic, PortModel, WormInfo};
use wormcast::mcast::hamilton::{HamAlgo, prepare, route};

const EXAMPLE: [u32; 21] = [
    0, 15, 31, 23, 40, 56, 9, 17, 38, 54, 5, 21, 42, 61, 50, 3, 11, 28, 19, 35, 59,
];

fn system(mesh: &Mesh, cfg: DirectConfig) -> DirectSystem {
    DirectSystem::new(Arc::new(MeshFabric { mesh: mesh.clone() }), &cfg).unwrap()
}

fn all_port() -> DirectConfig {
    DirectConfig {
        ports: PortModel::AllPort,
        ..Default::default()
    }
}

/// Every hop of a worm is R's choice toward its current destination, and
/// the labels along its route only rise (high-channel subnetwork) or only
/// fall (low-channel subnetwork).
fn check_worm(mesh: &Mesh, w: &WormInfo) {
    let r = &w.route;
    let high = r[1] > r[0];
    let mut idx = 0;
    for p in r.windows(2) {
        while idx < w.list.len() && p[0] == w.list[idx] {
            idx += 1;
        }
        assert_eq!(
            p[1] > p[0],
            high,
            "worm {} leaves its subnetwork at {}",
            w.tag,
            p[0]
        );
        let port = mesh.route(p[0], w.list[idx]);
        assert_eq!(
            mesh.neighbor(p[0], port),
            Some(p[1]),
            "worm {}: {} -> {}",
            w.tag,
            p[0],
            p[1]
        );
    }
    let got: Vec<u32> = w.deliveries.iter().map(|d| d.node).collect();
    assert_eq!(got, w.list);
}

struct Figures {
    high: usize,
    low: usize,
    distinct: usize,
    max_distance: usize,
}

fn run_example(algo: HamAlgo) -> Figures {
    let mesh = Mesh::parse("4x4x4").unwrap();
    let worms = prepare(&mesh, 25, &EXAMPLE, algo).unwrap();
    let mut s = system(&mesh, all_port());
    let lists: Vec<Vec<u32>> = worms.iter().map(|w| w.list.clone()).collect();
    s.send_multicast(25, &lists, 16).unwrap();
    s.run_until_delivered(100_000).unwrap();
    assert_eq!(s.finished().len(), worms.len());
    let (mut high, mut low, mut max_distance) = (0, 0, 0);
    let mut distinct = BTreeSet::new();
    for w in s.finished() {
        check_worm(&mesh, w);
        assert_eq!(
            w.route,
            route(&mesh, 25, &w.list),
            "simulated = R applied by hand"
        );
        for p in w.route.windows(2) {
            if p[1] > p[0] {
                high += 1;
            } else {
                low += 1;
            }
            distinct.insert((p[0], p[1]));
        }
        for d in &w.list {
            max_distance = max_distance.max(w.route.iter().position(|x| x == d).unwrap());
        }
    }
    Figures {
        high,
        low,
        distinct: distinct.len(),
        max_distance,
    }
}

#[test]
fn worked_example_two_phase() {
    // The paper: 28 high + 23 low = 51 channels, largest distance 28.
    let f = run_example(HamAlgo::Tp);
    assert_eq!((f.high, f.low, f.high + f.low), (28, 23, 51));
    assert_eq!(f.distinct, 51);
    assert_eq!(f.max_distance, 28);
}

#[test]
fn worked_example_six_phase() {
    // The paper: 24 high + 21 low = 45 channels, largest distance 24. The
    // channel counts agree; the D_L1 and D_L3 worms both leave the source on
    // 25 -> 22, so 44 distinct channels carry the 45 hops; and the longest
    // path to a destination is 14 hops (61, last of D_U1), not 24
    // (docs/reproduction.md).
    let f = run_example(HamAlgo::Sp);
    assert_eq!((f.high, f.low, f.high + f.low), (24, 21, 45));
    assert_eq!(f.distinct, 44);
    assert_eq!(f.max_distance, 14);
}

#[test]
fn startup_latency_is_paid_per_worm_at_the_source() {
    // beta = 100: the source prepares one worm at a time, so the two TP worms
    // start at 100 and 200, and SP's six at 100, 200, ..., 600.
    let mesh = Mesh::parse("4x4x4").unwrap();
    for (algo, n) in [(HamAlgo::Tp, 2), (HamAlgo::Sp, 6)] {
        let mut s = system(
            &mesh,
            DirectConfig {
                startup: 100,
                ..all_port()
            },
        );
        let lists: Vec<Vec<u32>> = prepare(&mesh, 25, &EXAMPLE, algo)
            .unwrap()
            .into_iter()
            .map(|w| w.list)
            .collect();
        s.send_multicast(25, &lists, 4).unwrap();
        s.run_until_delivered(100_000).unwrap();
        let mut starts: Vec<u64> = s.finished().iter().map(|w| w.injected.unwrap()).collect();
        starts.sort_unstable();
        assert_eq!(
            starts,
            (1..=n).map(|k| 100 * k).collect::<Vec<u64>>(),
            "{algo:?}"
        );
        assert_eq!(s.stats().completed, 1);
    }
}

#[test]
fn a_long_startup_is_not_a_deadlock() {
    // beta longer than the watchdog's bound, the first worm created late:
    // nothing moves for more than 2,000 cycles, yet nothing is stuck.
    let mesh = Mesh::parse("4x4x4").unwrap();
    let mut s = system(
        &mesh,
        DirectConfig {
            startup: 2_500,
            ..all_port()
        },
    );
    s.run(3_000).unwrap();
    s.send_multicast(25, &[vec![28, 31], vec![3, 0]], 4)
        .unwrap();
    let end = s.run_until_delivered(100_000).unwrap();
    assert!(end > 3_000 + 2 * 2_500, "{end}");
    assert_eq!(s.stats().completed, 1);
}

#[test]
fn bad_multicasts_are_refused() {
    let mesh = Mesh::parse("4x4x4").unwrap();
    let mut s = system(&mesh, all_port());
    let e = s
        .send_multicast(25, &[vec![28, 31], vec![31]], 4)
        .unwrap_err();
    assert!(
        e.to_string().contains("destination 31 is in two worms"),
        "{e}"
    );
    let e = s.send_multicast(25, &[vec![64]], 4).unwrap_err();
    assert_eq!(
        e.to_string(),
        "node 64 does not exist (the network has nodes 0 to 63)"
    );
    assert!(Mesh::parse("4x4x4x4").is_err());
}

fn saturate(algo: HamAlgo, cycles: u64) {
    let mesh = Mesh::parse("4x4x4").unwrap();
    let mut s = system(
        &mesh,
        DirectConfig {
            keep_worms: false,
            seed: 3,
            ..all_port()
        },
    );
    let m2 = mesh.clone();
    s.set_planner(Arc::new(move |src, dests: &[u32]| {
        prepare(&m2, src, dests, algo)
            .unwrap()
            .into_iter()
            .map(|w| w.list)
            .collect()
    }));
    s.set_traffic(DirectTraffic {
        rate: 0.01,
        min_dests: 1,
        max_dests: 16,
        payload: 16,
        queue_cap: 12,
    })
    .unwrap();
    s.run(cycles).unwrap();
    s.stop_traffic();
    s.run_until_delivered(1_000_000).unwrap();
    let st = s.stats().clone();
    assert!(
        st.refused > st.created / 10,
        "{algo:?} not past saturation: {st:?}"
    );
    assert_eq!(st.completed, st.created, "{algo:?}: {st:?}");
    assert!(s.is_quiet());
    eprintln!("{algo:?}: {st:?}");
}

#[test]
fn two_phase_traffic_past_saturation_is_deadlock_free() {
    saturate(HamAlgo::Tp, 1_000_000);
}

#[test]
fn six_phase_traffic_past_saturation_is_deadlock_free() {
    saturate(HamAlgo::Sp, 1_000_000);
}

#[test]
fn every_hop_of_random_multicasts_follows_r() {
    let mesh = Mesh::parse("3x4x5").unwrap();
    for algo in [HamAlgo::Tp, HamAlgo::Sp] {
        let mut s = system(&mesh, all_port());
        let mut x = 12345u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..40 {
            let src = (next() % 60) as u32;
            let mut dests: Vec<u32> = (0..(1 + next() % 20))
                .map(|_| (next() % 60) as u32)
                .collect();
            dests.sort_unstable();
            dests.dedup();
            dests.retain(|&d| d != src);
            if dests.is_empty() {
                continue;
            }
            let lists: Vec<Vec<u32>> = prepare(&mesh, src, &dests, algo)
                .unwrap()
                .into_iter()
                .map(|w| w.list)
                .collect();
            s.send_multicast(src, &lists, 1 + (next() % 30) as u32)
                .unwrap();
            s.run(next() % 50).unwrap();
        }
        s.run_until_delivered(1_000_000).unwrap();
        for w in s.finished() {
            check_worm(&mesh, w);
        }
        assert_eq!(s.stats().completed, s.stats().created);
    }
}

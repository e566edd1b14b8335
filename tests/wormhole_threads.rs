//! Seeds 001/002's wormhole routers evaluated on several threads: the same
//! worms, routes, deliveries, counters, link loads and deadlock reports as
//! on one thread, cycle for cycle, whatever the thread count, and the same
//! waveform bytes when traced; bad counts refused.

mod common;

use std::sync::Arc;
use wormcast::Error;
use wormcast::direct::mesh::{Mesh, MeshFabric};
use wormcast::direct::{
    CubeFabric, DirectConfig, DirectSystem, DirectTraffic, DorMesh, Fabric, Hypercube, MAX_THREADS,
    Planner, PortModel, Routing, pseudo_multicast,
};
use wormcast::mcast::hamilton::{HamAlgo, prepare};
use wormcast::rtl::HandOver;
use wormcast::wave::VcdWriter;

/// The thread counts the runs are compared on, each with the cycles it
/// hands to the other threads: every cycle, so that the threads run even
/// when the traffic is light, and on two threads also only the busy ones
/// (the default, which runs light cycles on the calling thread).
const COUNTS: [(usize, HandOver); 3] = [
    (2, HandOver::Busy),
    (2, HandOver::Always),
    (4, HandOver::Always),
];

/// Everything a run reports.
#[derive(Debug, PartialEq)]
struct Outcome {
    /// The error the run stopped with (a deadlock report), if any.
    error: Option<String>,
    /// Every finished worm: its list, route, injection and deliveries.
    finished: String,
    stats: String,
    links: Vec<(String, u64)>,
    cycle: u64,
}

/// Random multicast traffic for `cycles` cycles, then the worms in flight
/// drained, with every register traced to `vcd` when given; the system's
/// thread count checked.
fn run(
    fabric: Arc<dyn Fabric>,
    cfg: DirectConfig,
    planner: Option<Planner>,
    traffic: DirectTraffic,
    cycles: u64,
    threads: usize,
    vcd: Option<&common::Shared>,
) -> Outcome {
    let mut s = DirectSystem::new(fabric, &DirectConfig { threads, ..cfg }).unwrap();
    assert_eq!(s.threads(), threads);
    if let Some(p) = planner {
        s.set_planner(p);
    }
    if let Some(out) = vcd {
        s.attach_tracer(Box::new(VcdWriter::new(out.clone())), 1000)
            .unwrap();
    }
    s.set_traffic(traffic).unwrap();
    let mut error = s.run(cycles).err();
    if error.is_none() {
        s.stop_traffic();
        error = s.run_until_delivered(100_000).err();
    }
    if vcd.is_some() {
        s.finish_trace().unwrap();
    }
    Outcome {
        error: error.map(|e| e.to_string()),
        finished: format!("{:?}", s.finished()),
        stats: format!("{:?}", s.stats()),
        links: s.link_flits(),
        cycle: s.cycle(),
    }
}

fn traffic(rate: f64, max_dests: u32, payload: u32) -> DirectTraffic {
    DirectTraffic {
        rate,
        min_dests: 1,
        max_dests,
        payload,
        queue_cap: 4,
    }
}

/// (name, fabric, configuration, planner, traffic): each of 128 routers or
/// more, so that two threads or more run.
type Case = (
    &'static str,
    Arc<dyn Fabric>,
    DirectConfig,
    Option<Planner>,
    DirectTraffic,
);

fn cases() -> Vec<Case> {
    let cfg = DirectConfig {
        seed: 5,
        ..DirectConfig::default()
    };
    let mesh = Mesh::parse("8x8x4").unwrap();
    let tp_mesh = mesh.clone();
    let tp: Planner = Arc::new(move |src, dests: &[u32]| {
        prepare(&tp_mesh, src, dests, HamAlgo::Tp)
            .unwrap()
            .into_iter()
            .map(|w| w.list)
            .collect()
    });
    vec![
        (
            "16x16 mesh, dimension order, one unicast per destination",
            Arc::new(DorMesh::new(16, 16, 1).unwrap()),
            cfg.clone(),
            Some(Arc::new(|_, d: &[u32]| pseudo_multicast(d))),
            traffic(0.004, 6, 8),
        ),
        (
            "8-cube, Restriction 2, natural lists, all-port",
            Arc::new(CubeFabric {
                cube: Hypercube::new(8).unwrap(),
                routing: Routing::Restriction2,
            }),
            DirectConfig {
                ports: PortModel::AllPort,
                ..cfg.clone()
            },
            None,
            traffic(0.01, 12, 16),
        ),
        (
            "8x8x4 mesh, Hamiltonian two-phase, all-port, start-up 10",
            Arc::new(MeshFabric { mesh }),
            DirectConfig {
                ports: PortModel::AllPort,
                startup: 10,
                buffer_flits: 3,
                ..cfg.clone()
            },
            Some(tp),
            traffic(0.005, 16, 16),
        ),
    ]
}

#[test]
fn any_thread_count_gives_the_same_run() {
    let _one = common::one_at_a_time();
    for (name, fabric, cfg, planner, traffic) in cases() {
        let one = run(
            fabric.clone(),
            cfg.clone(),
            planner.clone(),
            traffic,
            3_000,
            1,
            None,
        );
        assert_eq!(one.error, None, "{name}");
        let worms = one.finished.matches("WormInfo").count();
        assert!(worms > 1_000, "{name}: {worms} worms");
        // Two ranges, and four (each network has 256 routers); every
        // cycle handed to the other threads, or only the busy ones.
        for (threads, hand_over) in COUNTS {
            let many = run(
                fabric.clone(),
                DirectConfig {
                    hand_over,
                    ..cfg.clone()
                },
                planner.clone(),
                traffic,
                3_000,
                threads,
                None,
            );
            assert!(
                one == many,
                "{name}: {threads} threads ({hand_over:?}) differ from one"
            );
        }
    }
}

/// A traced system writes the same waveform, byte for byte, on any thread
/// count: worms, credits and wake-ups crossing between ranges are sampled
/// as one thread samples them.
#[test]
fn a_traced_system_writes_the_same_waveform_on_every_thread_count() {
    let _one = common::one_at_a_time();
    for (name, fabric, cfg, planner, traffic) in cases() {
        let traced = |threads, hand_over| {
            let out = common::Shared::default();
            let o = run(
                fabric.clone(),
                DirectConfig {
                    hand_over,
                    ..cfg.clone()
                },
                planner.clone(),
                traffic,
                400,
                threads,
                Some(&out),
            );
            (o, out.bytes())
        };
        let (one, vcd) = traced(1, HandOver::Busy);
        assert_eq!(one.error, None, "{name}");
        assert!(vcd.len() > 100_000, "{name}: {} bytes", vcd.len());
        for (threads, hand_over) in [
            (2, HandOver::Busy),
            (2, HandOver::Always),
            (3, HandOver::Always),
        ] {
            let (o, got) = traced(threads, hand_over);
            assert!(
                o == one,
                "{name}: {threads} threads ({hand_over:?}) differ from one"
            );
            assert!(
                got == vcd,
                "{name}: {threads} threads ({hand_over:?}) wrote another waveform"
            );
        }
    }
}

/// Past saturation on a hypercube whose routing lets worms wait in a cycle
/// (seed 001's unrestricted minimal routing): the run stops at the same
/// cycle with the same report of the waiting cycle on any thread count.
#[test]
fn a_deadlock_is_found_at_the_same_cycle_with_the_same_report() {
    let _one = common::one_at_a_time();
    let fabric: Arc<dyn Fabric> = Arc::new(CubeFabric {
        cube: Hypercube::new(7).unwrap(),
        routing: Routing::Minimal,
    });
    let cfg = DirectConfig {
        seed: 2,
        watchdog: 300,
        ..DirectConfig::default()
    };
    let go = |threads, hand_over| {
        run(
            fabric.clone(),
            DirectConfig {
                hand_over,
                ..cfg.clone()
            },
            None,
            traffic(0.05, 20, 16),
            20_000,
            threads,
            None,
        )
    };
    let one = go(1, HandOver::Busy);
    let e = one.error.clone().expect("a deadlock");
    assert!(e.contains("deadlock"), "{e}");
    // 128 routers: two ranges.
    assert_eq!(go(2, HandOver::Busy), one);
    assert_eq!(go(2, HandOver::Always), one);
}

/// Worms that cross from one thread's routers to another's, one at a time
/// with quiet cycles between them (a worm waits out its start-up), which
/// the system skips ahead over: the same cycles as on one thread.
#[test]
fn worms_crossing_between_threads_with_quiet_cycles_between_them() {
    let _one = common::one_at_a_time();
    let go = |threads, hand_over| {
        let mut s = DirectSystem::new(
            Arc::new(DorMesh::new(16, 16, 1).unwrap()),
            &DirectConfig {
                startup: 40,
                threads,
                hand_over,
                ..DirectConfig::default()
            },
        )
        .unwrap();
        // Routers 0 to 127 are the first thread's, 128 to 255 the
        // second's: each worm crosses between rows 7 and 8.
        for (src, dst) in [(0, 255), (7, 200), (0, 130), (120, 136)] {
            s.send(src, &[dst], 1).unwrap();
        }
        let end = s.run_until_delivered(10_000).unwrap();
        (end, format!("{:?}", s.finished()))
    };
    // So few worms leave the cycles light: by default the calling thread
    // runs them all; handed over, the worms cross between the threads.
    let one = go(1, HandOver::Busy);
    assert_eq!(go(2, HandOver::Busy), one);
    assert_eq!(go(2, HandOver::Always), one);
}

#[test]
fn bad_counts_are_refused() {
    let _one = common::one_at_a_time();
    let fabric = || Arc::new(DorMesh::new(16, 16, 1).unwrap());
    for threads in [0, MAX_THREADS + 1] {
        let Err(Error::Config { field, value, .. }) = DirectSystem::new(
            fabric(),
            &DirectConfig {
                threads,
                ..DirectConfig::default()
            },
        ) else {
            panic!("{threads} threads taken");
        };
        assert_eq!((field, value), ("threads", threads.to_string()));
    }
    // 64 routers make one range: more threads are not started.
    let s = DirectSystem::new(
        Arc::new(DorMesh::new(8, 8, 1).unwrap()),
        &DirectConfig {
            threads: 4,
            ..DirectConfig::default()
        },
    )
    .unwrap();
    assert_eq!(s.threads(), 1);
}

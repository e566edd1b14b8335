//! Every router model on every topology family it runs on, far past
//! saturation: no deadlock is reported (each model's watchdog reports only
//! a waiting cycle), and once the sources stop, every message arrives,
//! exactly once (each model checks exactly-once delivery and fails on a
//! copy lost, duplicated or misdelivered).
//!
//! The 1,000,000-cycle soak is ignored in the quick test command and run by
//! `.ci/run` (`cargo test --release --test engine_soak -- --ignored`); the
//! same combinations run 30,000 cycles in the quick command.

use wormcast::engine::{self, Pattern, RouterModel, RunOptions, TopoSpec};

/// (topology, router model, routing; None: the model's default).
const CASES: [(&str, &str, Option<&str>); 11] = [
    ("mesh:8x8", "tree", None),
    ("mesh:8x8", "wormhole", None),
    ("mesh:8x8", "wormhole", Some("hamiltonian")),
    ("mesh:8x8", "cut-through", None),
    ("torus:8x8", "tree", None),
    ("torus:8x8", "cut-through", None),
    ("hypercube:6", "wormhole", None),
    // The adaptive routings: a head may wait on several outputs at once.
    ("hypercube:6", "wormhole", Some("r1")),
    ("hypercube:6", "wormhole", Some("r2")),
    ("hypercube:6", "cut-through", None),
    (
        "irregular:switches=16,ports=8,nodes=64,seed=1",
        "cut-through",
        None,
    ),
];

fn soak(cycles: u64) {
    for (topo, router, routing) in CASES {
        for pattern in ["uniform", "bit-complement"] {
            let o = RunOptions {
                pattern: Pattern::parse(pattern).unwrap(),
                // At least twice the saturation throughput of every case
                // (docs/engine.md: at most about 0.34 on these networks).
                load: 0.8,
                packet: 20,
                warmup: 1_000,
                cycles,
                drain: Some(10_000_000),
                ..RunOptions::default()
            };
            let what = format!("{topo} {router} {routing:?} {pattern}");
            let r = engine::run(
                &TopoSpec::parse(topo).unwrap(),
                Some(RouterModel::parse(router).unwrap()),
                routing,
                &o,
            )
            .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert!(r.saturated && r.refused > 0, "{what}: {r:?}");
            assert!(
                r.accepted_throughput > 0.02,
                "{what}: still delivering: {r:?}"
            );
            assert_eq!(r.in_flight, 0, "{what}: drained: {r:?}");
            assert!(r.drained.is_some(), "{what}");
            // Every message generated in the window arrived, once.
            assert_eq!(r.delivered, r.generated, "{what}: {r:?}");
        }
    }
}

#[test]
fn every_router_model_past_saturation_drains_30_000_cycles() {
    soak(30_000);
}

#[test]
#[ignore = "1,000,000 cycles per case; .ci/run runs it with --ignored"]
fn every_router_model_past_saturation_drains_a_million_cycles() {
    soak(1_000_000);
}

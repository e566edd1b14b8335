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

const CASES: [(&str, &str); 8] = [
    ("mesh:8x8", "tree"),
    ("mesh:8x8", "wormhole"),
    ("mesh:8x8", "cut-through"),
    ("torus:8x8", "tree"),
    ("torus:8x8", "cut-through"),
    ("hypercube:6", "wormhole"),
    ("hypercube:6", "cut-through"),
    (
        "irregular:switches=16,ports=8,nodes=64,seed=1",
        "cut-through",
    ),
];

fn soak(cycles: u64) {
    for (topo, router) in CASES {
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
            let what = format!("{topo} {router} {pattern}");
            let r = engine::run(
                &TopoSpec::parse(topo).unwrap(),
                Some(RouterModel::parse(router).unwrap()),
                None,
                &o,
            )
            .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert!(r.saturated && r.refused > 0, "{what}: {r:?}");
            assert!(
                r.accepted_throughput > 0.05,
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

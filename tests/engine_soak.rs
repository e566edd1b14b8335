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
use wormcast::sim::{NodeModel, SimConfig};

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

/// Seed 000's hosts with network interfaces, multicasting by every scheme
/// whose NIs forward nothing without their hosts, at about twice the
/// saturation load of the slowest: everything drains. Smart NIs
/// (`ni-kbinomial`) forward from their receive queues, and with finite NI
/// memory that deadlocks under overload; the watchdog reports it with its
/// cycle (`smart_ni_forwarding_deadlock_is_reported_with_its_cycle`).
fn soak_ni(cycles: u64) {
    let spec = TopoSpec::parse("irregular:switches=8,ports=8,nodes=32,seed=2").unwrap();
    for scheme in [
        "tree", "path-lg", "path-g", "ssr-lg", "ssr-g", "binomial", "unicast",
    ] {
        let o = RunOptions {
            multicast: Some((2, 16)),
            load: 0.05,
            packet: 128,
            warmup: 10_000,
            cycles,
            scheme: Some(scheme.into()),
            drain: Some(20_000_000),
            source_queue: 16,
            sim: ni_sim(),
            ..RunOptions::default()
        };
        let r = engine::run(&spec, None, None, &o).unwrap_or_else(|e| panic!("{scheme}: {e}"));
        assert!(r.saturated && r.refused > 0, "{scheme}: {r:?}");
        assert_eq!(r.in_flight, 0, "{scheme}: drained: {r:?}");
        assert_eq!(
            r.delivered as f64,
            (r.generated as f64 * r.dests_per_message).round(),
            "{scheme}: every copy of every message: {r:?}"
        );
    }
}

fn ni_sim() -> SimConfig {
    SimConfig {
        node_model: NodeModel::Ni,
        ..SimConfig::default()
    }
}

#[test]
fn every_router_model_past_saturation_drains_30_000_cycles() {
    soak(30_000);
    soak_ni(100_000);
}

/// Smart NIs forward each packet from their receive queue: under overload
/// every receive queue fills with packets still to be forwarded while each
/// send engine waits for a switch buffer that waits for a full NI. The
/// watchdog follows a switch's wait for an NI's credits to that NI's send
/// engine, and reports the cycle.
#[test]
fn smart_ni_forwarding_deadlock_is_reported_with_its_cycle() {
    let o = RunOptions {
        multicast: Some((2, 16)),
        load: 0.05,
        packet: 128,
        warmup: 10_000,
        cycles: 100_000,
        scheme: Some("ni-kbinomial".into()),
        drain: Some(20_000_000),
        sim: ni_sim(),
        ..RunOptions::default()
    };
    let spec = TopoSpec::parse("irregular:switches=8,ports=8,nodes=32,seed=2").unwrap();
    let e = engine::run(&spec, None, None, &o).unwrap_err().to_string();
    let first = e.lines().next().unwrap();
    assert!(first.starts_with("deadlock at cycle 264192: 14 places wait for each other in a cycle (switch 0 output port 0 -> NI 0 send engine -> switch 0 input port 0"), "{first}");
    assert!(
        e.contains("NI 0 send engine: packet 0 -> 15 (128 flits, generated at 119631)")
            && e.contains("its receive queue holds only packets still to be forwarded"),
        "{e}"
    );
}

#[test]
#[ignore = "1,000,000 cycles per case; .ci/run runs it with --ignored"]
fn every_router_model_past_saturation_drains_a_million_cycles() {
    soak(1_000_000);
    soak_ni(1_000_000);
}

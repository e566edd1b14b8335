//! The one engine: every router model on every topology family it runs on,
//! under the synthetic patterns, through one harness and one statistics
//! module.

use std::process::Command;
use wormcast::engine::{self, Pattern, RouterModel, RunOptions, TopoSpec};

fn opts(pattern: &str, load: f64) -> RunOptions {
    RunOptions {
        pattern: Pattern::parse(pattern).unwrap(),
        load,
        packet: 20,
        warmup: 2_000,
        cycles: 8_000,
        ..RunOptions::default()
    }
}

/// Every sensible combination runs at a light load: what is offered is
/// accepted, every copy arrives, and latencies are counted.
#[test]
fn every_router_model_runs_every_pattern_on_every_family() {
    let cases: [(&str, &[&str]); 4] = [
        ("mesh:8x8", &["tree", "wormhole", "cut-through"]),
        ("torus:8x8x8", &["tree", "cut-through"]),
        ("hypercube:6", &["wormhole", "cut-through"]),
        (
            "irregular:switches=16,ports=8,nodes=64,seed=3",
            &["cut-through"],
        ),
    ];
    for (topo, routers) in cases {
        let spec = TopoSpec::parse(topo).unwrap();
        for router in routers {
            for pattern in [
                "uniform",
                "transpose",
                "bit-complement",
                "tornado",
                "hotspot:0@0.05",
            ] {
                let r = engine::run(
                    &spec,
                    Some(RouterModel::parse(router).unwrap()),
                    None,
                    &opts(pattern, 0.02),
                )
                .unwrap_or_else(|e| panic!("{topo} {router} {pattern}: {e}"));
                let what = format!("{topo} {router} {pattern}: {r:?}");
                assert_eq!(r.router, *router, "{what}");
                assert!(!r.saturated, "{what}");
                assert!(r.generated > 100, "{what}");
                assert!(r.delivered + r.in_flight >= r.generated, "{what}");
                assert!(
                    (r.accepted_throughput - r.offered_load).abs() < 0.1 * r.offered_load,
                    "{what}"
                );
                assert!(
                    r.latency.mean > 0.0 && r.latency.p99 >= r.latency.p50,
                    "{what}"
                );
                assert_eq!(r.refused, 0, "{what}");
            }
        }
    }
}

/// A combination that makes no sense names the ones that do.
#[test]
fn a_router_a_topology_cannot_carry_is_refused_with_the_valid_ones() {
    let e = |topo: &str, router: &str, routing: Option<&str>| {
        engine::run(
            &TopoSpec::parse(topo).unwrap(),
            Some(RouterModel::parse(router).unwrap()),
            routing,
            &opts("uniform", 0.01),
        )
        .unwrap_err()
        .to_string()
    };
    assert_eq!(
        e("torus:8x8", "wormhole", None),
        "configuration: router = wormhole: it does not run on torus:8x8; the router models there are tree, cut-through"
    );
    assert!(
        e("hypercube:4", "tree", None)
            .contains("the router models there are wormhole, cut-through")
    );
    assert_eq!(
        e("hypercube:4", "wormhole", Some("dor")),
        "configuration: routing = dor: the wormhole router on hypercube:4 routes by ecube, r1, r2, minimal"
    );
    // Every routing function of the hypercube runs.
    for routing in ["ecube", "r1", "r2"] {
        let r = engine::run(
            &TopoSpec::parse("hypercube:5").unwrap(),
            None,
            Some(routing),
            &opts("uniform", 0.02),
        )
        .unwrap();
        assert_eq!(r.routing, routing);
        assert!(!r.saturated, "{r:?}");
    }
}

/// The same seed gives the same run, to the last statistic.
#[test]
fn a_run_is_determined_by_its_seed() {
    let spec = TopoSpec::parse("mesh:6x6").unwrap();
    for router in ["tree", "wormhole", "cut-through"] {
        let go = |seed| {
            let o = RunOptions {
                seed,
                ..opts("uniform", 0.1)
            };
            format!(
                "{:?}",
                engine::run(&spec, Some(RouterModel::parse(router).unwrap()), None, &o).unwrap()
            )
        };
        assert_eq!(go(3), go(3), "{router}");
        assert_ne!(go(3), go(4), "{router}");
    }
}

/// Past saturation the run says so, and the sources' refusals bound it.
#[test]
fn a_saturated_point_is_marked_saturated() {
    let r = engine::run(
        &TopoSpec::parse("mesh:8x8").unwrap(),
        None,
        None,
        &opts("uniform", 0.9),
    )
    .unwrap();
    assert!(r.saturated && r.refused > 0, "{r:?}");
    assert!(r.accepted_throughput < 0.9 * r.offered_load, "{r:?}");
}

/// The stop rule ends the run once the half-width is under 5% of the mean.
#[test]
fn the_stop_rule_ends_a_run_with_a_narrow_interval() {
    let o = RunOptions {
        cycles: 2_000_000,
        batch_cycles: Some(2_000),
        stop_rule: Some(0.05),
        ..opts("uniform", 0.1)
    };
    let r = engine::run(&TopoSpec::parse("mesh:8x8").unwrap(), None, None, &o).unwrap();
    assert_eq!(r.stop_rule_met, Some(true), "{r:?}");
    assert!(r.interval.relative <= 0.05, "{r:?}");
    // At least the 10 batches asked for, whole batches, and far short of
    // the cap.
    assert!(
        r.measured_cycles >= 11 * 2_000 && r.measured_cycles < 200_000,
        "{r:?}"
    );
    assert_eq!(r.measured_cycles % 2_000, 0, "{r:?}");
}

/// The command quoted in the issue that asked for the engine.
#[test]
fn run_takes_a_topology_spec_from_the_command_line() {
    let o = Command::new(env!("CARGO_BIN_EXE_wormcast"))
        .args([
            "run",
            "--topology",
            "mesh:8x8",
            "--traffic",
            "uniform",
            "--load",
            "0.1",
            "--packet",
            "20",
            "--cycles",
            "100000",
            "--warmup",
            "10000",
            "--seed",
            "1",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["topology"], "mesh:8x8");
    assert_eq!(v["router"], "tree");
    assert_eq!(v["routing"], "dor");
    assert_eq!(v["measured_cycles"], 90_000);
    let (off, acc) = (
        v["offered_load"].as_f64().unwrap(),
        v["accepted_throughput"].as_f64().unwrap(),
    );
    assert!(
        (off - 0.1).abs() < 0.005 && (acc - off).abs() < 0.005,
        "{v}"
    );
    assert_eq!(v["saturated"], false);
    // Refusals name the problem.
    let e = Command::new(env!("CARGO_BIN_EXE_wormcast"))
        .args(["run", "--topology", "ring:8"])
        .output()
        .unwrap();
    assert_eq!(e.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&e.stderr).contains("unknown family `ring`; give mesh:KXxKY[xKZ]"),
        "{}",
        String::from_utf8_lossy(&e.stderr)
    );
}

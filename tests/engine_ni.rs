//! Seed 000's hosts with network interfaces through the one engine: every
//! multicast scheme of section 5 (members forwarding in phases, smart NIs,
//! hosts over the binomial tree) as random traffic, and a lone message
//! taking to the cycle what the NI system gives it.

use std::process::Command;
use wormcast::engine::{self, NI_SCHEMES, Pattern, RouterModel, RunOptions, Session, TopoSpec};
use wormcast::mcast::{PlanScheme, Planner};
use wormcast::net::Network;
use wormcast::sim::{NodeModel, SimConfig, System, Traffic};

const TOPO: &str = "irregular:switches=8,ports=8,nodes=32,seed=2";

fn ni_sim() -> SimConfig {
    SimConfig {
        node_model: NodeModel::Ni,
        ..SimConfig::default()
    }
}

fn ni_opts(scheme: &str) -> RunOptions {
    RunOptions {
        pattern: Pattern::Uniform,
        multicast: Some((2, 8)),
        load: 0.004,
        packet: 128,
        warmup: 10_000,
        cycles: 100_000,
        scheme: Some(scheme.into()),
        drain: Some(2_000_000),
        sim: ni_sim(),
        ..RunOptions::default()
    }
}

/// Every scheme runs as open-loop random traffic: every copy arrives once,
/// every multicast is counted whole, and the multi-phase schemes report
/// their phases.
#[test]
fn every_ni_scheme_runs_as_random_traffic() {
    let spec = TopoSpec::parse(TOPO).unwrap();
    for &scheme in NI_SCHEMES {
        let o = ni_opts(scheme);
        let r = engine::run(&spec, None, None, &o).unwrap_or_else(|e| panic!("{scheme}: {e}"));
        let what = format!("{scheme}: {r:?}");
        assert_eq!(r.scheme, Some(scheme), "{what}");
        assert!(!r.saturated, "{what}");
        assert!(r.generated > 50 && r.drained.is_some(), "{what}");
        assert_eq!(r.in_flight, 0, "{what}");
        assert_eq!(r.message_latency.count, r.generated, "{what}");
        assert_eq!(
            r.delivered as f64,
            (r.generated as f64 * r.dests_per_message).round(),
            "{what}"
        );
        // A host pays t_hs = 1,000 cycles to send and t_hr to receive.
        assert!(r.latency.p50 >= 2_000, "{what}");
        assert!(r.network_latency.is_none(), "host to host: {what}");
        let ev = |k: &str| r.events.get(k).copied();
        if scheme == "unicast" {
            assert_eq!(ev("multicasts"), Some(0), "{what}");
        } else {
            let (m, p) = (ev("multicasts").unwrap(), ev("phases").unwrap());
            // Every message has 2 to 8 destinations: all are multicasts.
            assert_eq!(m, r.generated, "{what}");
            match scheme {
                "tree" => assert_eq!(p, m, "one phase each: {what}"),
                _ => assert!(p > m, "several phases: {what}"),
            }
        }
    }
}

/// A lone message through the engine's session arrives at each host in
/// the cycle the NI system gives the same message sent by hand: a
/// multicast by every scheme's plan, and a message to one destination.
#[test]
fn a_lone_message_takes_what_the_ni_system_gives() {
    let spec = TopoSpec::parse(TOPO).unwrap();
    let net = Network::new(&spec.topology().unwrap()).unwrap();
    let planner = Planner::new(&net);
    let (src, dests) = (5u32, [0u32, 9, 13, 17, 22, 30, 31]);
    for &scheme in NI_SCHEMES.iter().filter(|&&s| s != "unicast") {
        // 300 flits: three 128-flit packets.
        let mut s = Session::new(&spec, None, None, &ni_opts(scheme)).unwrap();
        s.send(src, &dests, 300).unwrap();
        s.drain(10_000_000).unwrap();
        let mut got: Vec<(u32, u64)> = s.arrivals().iter().map(|a| (a.node, a.arrived)).collect();
        got.sort_unstable();

        let mut sys = System::new(&net, &ni_sim(), &Traffic::Idle).unwrap();
        let plan = planner
            .plan(PlanScheme::parse(scheme).unwrap(), src, &dests, 3)
            .unwrap();
        let id = sys.multicast_plan(&plan).unwrap();
        let r = sys.finish_multicast(id, 10_000_000).unwrap();
        assert_eq!(got, r.deliveries, "{scheme}");
        assert!(
            s.arrivals()
                .iter()
                .all(|a| a.created == 0 && a.flits == 300)
        );
    }
    let mut s = Session::new(&spec, None, None, &ni_opts("tree")).unwrap();
    s.send(src, &[9], 128).unwrap();
    s.drain(1_000_000).unwrap();
    let mut sys = System::new(&net, &ni_sim(), &Traffic::Idle).unwrap();
    sys.send_message(src, 9, 1).unwrap();
    while sys.ni(9).unwrap().deliveries().is_empty() {
        sys.tick().unwrap();
    }
    assert_eq!(
        s.arrivals()[0].arrived,
        sys.ni(9).unwrap().deliveries()[0].cycle
    );
}

fn wormcast(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_wormcast"))
        .args(args)
        .output()
        .unwrap()
}

/// `--node-model ni` from the command line; a scheme the hosts do not have
/// and a router without NIs are refused by name.
#[test]
fn the_command_line_runs_hosts_with_network_interfaces() {
    let args = [
        "run",
        "--topology",
        TOPO,
        "--node-model",
        "ni",
        "--traffic",
        "multicast",
        "--degree",
        "4",
        "--scheme",
        "path-lg",
        "--load",
        "0.004",
        "--cycles",
        "60000",
        "--warmup",
        "10000",
        "--json",
    ];
    let o = wormcast(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["scheme"], "path-lg");
    assert_eq!(v["router"], "cut-through");
    assert_eq!(v["dests_per_message"], 4.0);
    assert!(v["generated"].as_u64().unwrap() > 10, "{v}");

    let mut bad = args.to_vec();
    bad[10] = "ssr";
    let o = wormcast(&bad);
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains(
            "multicasts by tree, path-lg, path-g, ssr-lg, ssr-g, ni-kbinomial, binomial, unicast"
        ),
        "{e}"
    );

    let o = wormcast(&[
        "run",
        "--topology",
        "mesh:4x4",
        "--router",
        "tree",
        "--node-model",
        "ni",
        "--cycles",
        "1000",
        "--warmup",
        "100",
    ]);
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("node_model = ni") && e.contains("cut-through"),
        "{e}"
    );
}

/// The router models without hosts refuse NIs in the library too.
#[test]
fn only_the_cut_through_switch_has_hosts() {
    let o = ni_opts("tree");
    for (topo, router) in [("hypercube:3", "wormhole"), ("torus:4x4", "tree")] {
        let spec = TopoSpec::parse(topo).unwrap();
        let e = engine::run(&spec, Some(RouterModel::parse(router).unwrap()), None, &o)
            .unwrap_err()
            .to_string();
        assert!(e.contains("seed 000's nodes"), "{e}");
    }
}

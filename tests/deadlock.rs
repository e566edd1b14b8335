//! The deadlock watchdog: up*/down* routing never deadlocks, even far past
//! saturation, and a saturated network where packets wait hundreds of
//! thousands of cycles is not called deadlocked; a routing that can deadlock
//! is caught, and the report gives the cycle of waits and says where each
//! packet is stuck and what it waits for.

mod common;

use wormcast::Error;
use wormcast::net::{Phase, PortMask, RoutingTables};
use wormcast::sim::{SimConfig, System, Traffic};

#[test]
fn uniform_traffic_past_saturation_for_a_million_cycles_does_not_deadlock() {
    let net = common::default_net();
    // Offered 1 flit/node/cycle: far beyond the ~0.2 this network accepts.
    let mut sys = System::new(&net, &SimConfig::default(), &Traffic::uniform(1.0, 128)).unwrap();
    sys.run(100_000).unwrap();
    sys.start_window();
    sys.run(900_000).unwrap();
    let r = sys.report();
    assert_eq!(r.cycles, 1_000_000);
    assert!(r.offered_load > 0.99, "{r}");
    assert!(
        r.accepted_throughput > 0.15 && r.accepted_throughput < 0.5,
        "{r}"
    );
    // Whatever is in flight still drains.
    sys.drain(10_000_000).unwrap();
    sys.check_quiescent().unwrap();
}

#[test]
fn short_packets_past_saturation_do_not_deadlock_either() {
    let net = common::anynet();
    let mut sys = System::new(&net, &SimConfig::default(), &Traffic::uniform(1.0, 1)).unwrap();
    sys.run(300_000).unwrap();
    sys.drain(10_000_000).unwrap();
    sys.check_quiescent().unwrap();
}

/// 16 switches, 64 nodes, offered 0.6 flits/node/cycle where about 0.08 is
/// accepted: packets wait up to 200,000 cycles behind chains of full
/// buffers that lead to nodes still consuming. The watchdog (default bound
/// 20,000 cycles) used to call this a deadlock at cycle 22,528; it now
/// finds no cycle of waits, keeps the run going and reports the longest
/// wait.
#[test]
fn a_saturated_network_whose_packets_wait_long_is_not_called_deadlocked() {
    for seed in [1, 2] {
        let net = common::generated(16, 64, seed);
        let mut sys =
            System::new(&net, &SimConfig::default(), &Traffic::uniform(0.6, 128)).unwrap();
        sys.run(300_000)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let r = sys.report();
        assert_eq!(r.cycles, 300_000);
        assert!(r.offered_load > 0.59, "{r}");
        assert!(r.accepted_throughput < 0.2, "saturated: {r}");
        let w = r.longest_wait.as_ref().expect("a long wait is noted");
        assert!(w.waited > SimConfig::default().watchdog_cycles, "{w}");
        assert!(
            r.to_string().contains("warning: the longest wait seen: "),
            "{r}"
        );
        assert!(w.to_string().contains("saturated, not deadlocked"), "{w}");
    }
}

/// 64 switches and 300 nodes at 0.05: saturated too, the same finding.
#[test]
fn a_large_saturated_network_at_light_offered_load_keeps_running() {
    let net = common::generated(64, 300, 1);
    let mut sys = System::new(&net, &SimConfig::default(), &Traffic::uniform(0.05, 128)).unwrap();
    sys.run(100_000).unwrap();
    let r = sys.report();
    assert!(r.packets_delivered > 1_000, "{r}");
    assert!(r.longest_wait.is_some(), "{r}");
}

/// Below saturation nothing waits past the bound and nothing is noted.
#[test]
fn a_network_below_saturation_notes_no_long_wait() {
    let net = common::generated(16, 64, 1);
    let mut sys = System::new(&net, &SimConfig::default(), &Traffic::uniform(0.02, 128)).unwrap();
    sys.run(100_000).unwrap();
    let r = sys.report();
    assert!(
        (r.accepted_throughput - r.offered_load).abs() < 0.002,
        "{r}"
    );
    assert_eq!(r.longest_wait, None);
    assert!(!r.to_string().contains("warning"), "{r}");
}

/// A ring of four switches routed clockwise (not up*/down*): with every node
/// streaming packets two switches ahead, the ring buffers fill and wait on
/// each other in a cycle.
#[test]
fn a_cyclic_routing_deadlocks_and_the_watchdog_names_each_stuck_packet() {
    let links = [
        ((0, 1), (1, 2)),
        ((1, 1), (2, 2)),
        ((2, 1), (3, 2)),
        ((3, 1), (0, 2)),
    ];
    let net = common::net(&common::toml(4, 3, &links));
    let (ud, mut rt) = RoutingTables::for_network(&net);
    for s in 0..4 {
        for d in 0..4 {
            if d != s {
                for ph in [Phase::Up, Phase::Down] {
                    rt.set_switch_candidates(s, d, ph, PortMask::single(1))
                        .unwrap();
                }
            }
        }
    }
    let cfg = SimConfig {
        buffer_flits: 16,
        chunk_flits: 4,
        watchdog_cycles: 2_000,
        check_updown: false,
        ..Default::default()
    };
    let mut sys = System::with_routing(&net, &ud, rt, &cfg, &Traffic::Idle).unwrap();
    for n in 0..4 {
        for _ in 0..20 {
            sys.inject(n, (n + 2) % 4, 12).unwrap();
        }
    }
    let err = sys.run(20_000).unwrap_err();
    let Error::Deadlock(report) = err else {
        panic!("expected a deadlock, got {err}")
    };
    assert!(
        report.cycle <= 2_000 + 2_048 + 200,
        "found at cycle {}",
        report.cycle
    );
    // Each switch: the node's packet waits for the ring output, which the
    // ring input holds for a packet that waits for credits from the next
    // switch, whose ring input is full in turn: a cycle around the ring.
    for sw in 0..4u32 {
        let at = |port: u32| {
            report
                .stalls
                .iter()
                .find(|s| s.location == format!("switch {sw} input port {port}"))
                .unwrap_or_else(|| {
                    panic!("switch {sw} input port {port} is not reported:\n{report}")
                })
        };
        assert_eq!(
            at(0).waiting,
            "an output among port 1 (held by input 2)",
            "{report}"
        );
        let ring = at(2);
        assert!(
            ring.waiting
                .starts_with("credits for output port 1 (its receiver's buffer is full)"),
            "switch {sw}: {}\n{report}",
            ring.waiting
        );
        let p = ring.packet.as_ref().expect("the packet is named");
        assert_eq!(p.dst, Some((p.src + 2) % 4));
    }
    assert_eq!(
        report.stalls.len(),
        12,
        "4 node inputs, 4 ring inputs, 4 sources:\n{report}"
    );
    // The cycle of waits: each ring output waits for credits from the next
    // switch's ring input, which waits for its own packet's copy on that
    // switch's ring output.
    let ring: Vec<String> = (0..4)
        .flat_map(|s| {
            [
                format!("switch {s} output port 1"),
                format!("switch {} input port 2", (s + 1) % 4),
            ]
        })
        .collect();
    assert_eq!(report.wait_cycle, ring, "{report}");
    let text = report.to_string();
    assert!(
        text.starts_with(&format!(
            "deadlock at cycle {}: 8 places wait for each other in a cycle (switch 0 output port 1 -> switch 1 input port 2 -> switch 1 output port 1 -> ",
            report.cycle
        )),
        "{text}"
    );
    assert!(
        text.lines()
            .next()
            .unwrap()
            .contains("switch 0 input port 2 -> switch 0 output port 1), 12 packets in all"),
        "{text}"
    );
    assert!(
        text.contains("node 0 source queue: packet 0 -> 2 (12 flits, generated at 0)"),
        "{text}"
    );
}

//! Every hop a packet takes obeys up*/down*: the switch checks each hop it
//! grants and stops the run with a fault on a violation. These tests run
//! random traffic on random topologies (no fault may occur), and show the
//! check catches an illegal route.

mod common;

use proptest::prelude::*;
use wormcast::Error;
use wormcast::net::{IrregularParams, Network, Phase, PortMask, RoutingTables};
use wormcast::sim::{SimConfig, System, Traffic};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn random_traffic_on_random_topologies_only_takes_legal_routes(
        switches in 2u32..14,
        ports in 4u32..10,
        per_switch in 1u32..3,
        conn in 0.6f64..=1.0,
        topo_seed in any::<u64>(),
        seed in any::<u64>(),
        load in 0.02f64..0.6,
        len in 1u32..40,
    ) {
        let p = IrregularParams { switches, ports, nodes: switches * per_switch, connectivity: conn, seed: topo_seed };
        let Ok(t) = p.generate() else { return Ok(()) };
        let net = Network::new(&t).unwrap();
        let cfg = SimConfig { seed, ..Default::default() };
        let mut sys = System::new(&net, &cfg, &Traffic::uniform(load, len)).unwrap();
        sys.run(4_000).unwrap();
        sys.drain(200_000).unwrap();
        sys.check_quiescent().unwrap();
    }
}

/// Switches 0 - 1 - 2 in a line (levels 0, 1, 2), one node each. A packet
/// from node 0 to node 2 goes down twice; at switch 1 it has come down.
#[test]
fn a_route_up_after_down_is_reported_as_a_fault() {
    let net = common::net(&common::toml(3, 4, &[((0, 1), (1, 1)), ((1, 2), (2, 1))]));
    let (ud, mut rt) = RoutingTables::for_network(&net);
    assert!(ud.goes_up(1, 1), "switch 1 port 1 leads up to the root");
    assert_eq!(rt.switch_candidates(1, 2, Phase::Down), PortMask::single(2));
    // Corrupt switch 1: send packets for switch 2 back up toward the root.
    rt.set_switch_candidates(1, 2, Phase::Down, PortMask::single(1))
        .unwrap();
    let mut sys =
        System::with_routing(&net, &ud, rt, &SimConfig::default(), &Traffic::Idle).unwrap();
    sys.inject(0, 2, 4).unwrap();
    let err = sys.drain(1_000).unwrap_err();
    match err {
        Error::Fault { what, .. } => assert_eq!(
            what,
            "switch 1 routed node 2's packet (tag 0) up through port 1 after it came down into port 1: \
             not an up*/down* route"
        ),
        e => panic!("expected a fault, got {e}"),
    }
}

/// An entry of a switch the tables do not cover, or toward one, is
/// refused with the switch named, and the tables are left as they were.
#[test]
fn an_entry_of_a_switch_the_tables_do_not_cover_is_refused() {
    let net = common::net(&common::toml(3, 4, &[((0, 1), (1, 1)), ((1, 2), (2, 1))]));
    let (_, mut rt) = RoutingTables::for_network(&net);
    let before = rt.clone();
    for (s, d, value) in [
        (3, 2, "switch 3"),
        (u32::MAX, 0, "switch 4294967295"),
        (1, 3, "destination switch 3"),
    ] {
        let err = rt
            .set_switch_candidates(s, d, Phase::Down, PortMask::single(1))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "configuration: routing = {value}: no such switch: the tables cover switches 0 to 2"
            )
        );
    }
    for s in 0..3 {
        for d in 0..3 {
            for ph in [Phase::Up, Phase::Down] {
                assert_eq!(
                    rt.switch_candidates(s, d, ph),
                    before.switch_candidates(s, d, ph)
                );
            }
        }
    }
}

/// A table entry replaced by one naming a port its switch does not have
/// (switch 1 has ports 0 to 3) gives no route, and the simulation refuses
/// the tables at setup, naming the entry and the port, on one thread and
/// on two; set back to a port the switch has, the tables run.
#[test]
fn a_route_through_a_port_the_switch_does_not_have_is_refused() {
    let net = common::net(&common::toml(3, 4, &[((0, 1), (1, 1)), ((1, 2), (2, 1))]));
    for port in [4, 9, 63] {
        let (ud, mut rt) = RoutingTables::for_network(&net);
        rt.set_switch_candidates(1, 2, Phase::Down, PortMask::single(port))
            .unwrap();
        assert_eq!(rt.distance(1, 2, Phase::Down), None);
        assert_eq!(rt.distance(0, 2, Phase::Up), None);
        assert_eq!(rt.distance(0, 1, Phase::Up), Some(1));
        for threads in [1, 2] {
            let cfg = SimConfig {
                threads,
                ..Default::default()
            };
            let Err(e) = System::with_routing(&net, &ud, rt.clone(), &cfg, &Traffic::Idle) else {
                panic!("port {port}: tables accepted");
            };
            assert_eq!(
                e.to_string(),
                format!(
                    "configuration: routing = switch 1, to switch 2, phase down: the entry \
                     names port {port}, which switch 1 does not have (ports 0 to 3)"
                ),
                "{threads} threads"
            );
        }
        rt.set_switch_candidates(1, 2, Phase::Down, PortMask::single(2))
            .unwrap();
        let mut sys =
            System::with_routing(&net, &ud, rt, &SimConfig::default(), &Traffic::Idle).unwrap();
        sys.inject(0, 2, 4).unwrap();
        sys.drain(1_000).unwrap();
    }
}

/// Tables or directions made for another network are refused at setup,
/// naming what differs, instead of panicking or simulating a network with
/// another's routes.
#[test]
fn tables_of_another_network_are_refused() {
    let line = [((0, 1), (1, 1)), ((1, 2), (2, 1))];
    let a = common::net(&common::toml(3, 4, &line));
    let longer = common::net(&common::toml(
        5,
        4,
        &[
            ((0, 1), (1, 1)),
            ((1, 2), (2, 1)),
            ((2, 2), (3, 1)),
            ((3, 2), (4, 1)),
        ],
    ));
    // The same switches, ports and links, wired otherwise.
    let crossed = common::net(&common::toml(3, 4, &[((0, 1), (1, 2)), ((1, 1), (2, 1))]));
    let refused = |net, ud, rt| match System::with_routing(
        net,
        ud,
        rt,
        &SimConfig::default(),
        &Traffic::Idle,
    ) {
        Ok(_) => panic!("tables accepted"),
        Err(e) => e.to_string(),
    };
    let (ud_a, rt_a) = RoutingTables::for_network(&a);
    let (ud_l, rt_l) = RoutingTables::for_network(&longer);
    let (ud_c, rt_c) = RoutingTables::for_network(&crossed);
    assert_eq!(
        refused(&a, &ud_l, rt_l.clone()),
        "configuration: routing = directions of 5 switches and 4 links: made for another \
         network: this one has 3 switches and 2 links"
    );
    assert_eq!(
        refused(&longer, &ud_a, rt_a.clone()),
        "configuration: routing = directions of 3 switches and 2 links: made for another \
         network: this one has 5 switches and 4 links"
    );
    assert_eq!(
        refused(&a, &ud_a, rt_l),
        "configuration: routing = tables of 5 switches and 5 nodes: made for another \
         network: this one has 3 switches and 3 nodes"
    );
    assert_eq!(
        refused(&a, &ud_a, rt_c.clone()),
        "configuration: routing = tables of 3 switches: made for another network: switch 1's \
         ports lead elsewhere"
    );
    assert!(
        refused(&crossed, &ud_a, rt_a.clone()).contains("made for another network"),
        "{}",
        refused(&crossed, &ud_a, rt_a.clone())
    );
    assert_eq!(
        refused(&a, &ud_c, rt_a.clone()),
        "configuration: routing = tables of 3 switches: made with other up*/down* directions: \
         switch 1's up ports differ"
    );
    // Counts of one read as one thing.
    let pair = common::net(&common::toml(2, 4, &[((0, 1), (1, 1))]));
    assert_eq!(
        refused(&pair, &ud_a, rt_a.clone()),
        "configuration: routing = directions of 3 switches and 2 links: made for another \
         network: this one has 2 switches and 1 link"
    );
    // The same switches and links, nodes 0 and 1 attached to each
    // other's switch.
    let swapped_toml = common::toml(3, 4, &line)
        .replace("id = 0\nat = [0, 0]", "id = 0\nat = [1, 0]")
        .replace("id = 1\nat = [1, 0]", "id = 1\nat = [0, 0]");
    let swapped = common::net(&swapped_toml);
    assert_eq!(swapped.node_port(0).switch, 1);
    assert_eq!(swapped.node_port(1).switch, 0);
    assert_eq!(
        refused(&swapped, &ud_a, rt_a.clone()),
        "configuration: routing = tables of 3 nodes: made for another network: node 0 is \
         attached elsewhere"
    );
    // Each network with its own tables is built.
    let (ud_s, rt_s) = RoutingTables::for_network(&swapped);
    System::with_routing(&swapped, &ud_s, rt_s, &SimConfig::default(), &Traffic::Idle).unwrap();
    System::with_routing(&a, &ud_a, rt_a, &SimConfig::default(), &Traffic::Idle).unwrap();
    System::with_routing(&crossed, &ud_c, rt_c, &SimConfig::default(), &Traffic::Idle).unwrap();
}

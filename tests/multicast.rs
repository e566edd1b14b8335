//! Multidestination worms end to end: every worm reaches each of its
//! destinations exactly once and no other node, branches of one worm
//! proceed independently, and buffers and credits all return after the
//! network drains.

mod common;

use proptest::prelude::*;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use wormcast::header::{Formats, Kind};
use wormcast::net::{
    IrregularParams, Network, Phase, PortConn, PortMask, Reachability, RoutingTables, UpDown,
};
use wormcast::rtl::BitString;
use wormcast::rtl::trace::MemorySink;
use wormcast::sim::{SimConfig, System, Traffic, WormSpec};
use wormcast::switch::{DecodeReg, Decoder};

/// The situation of seed 000 Fig. 17(b), keeping the paper's switch
/// numbers: switch 6 has down links to switches 1 and 4, switch 1 has down
/// links to 4, 7 and 2, and the cross link 4 - 7 goes down from 4 to 7, so
/// switch 7 is reached from 6 both through 1 and through 4. Switch 0 is
/// the root above 6; 3 and 5 hang off the root. Node `i` is on port 0 of
/// switch `i`.
///
/// `seven_first` chooses switch 1's port numbers: with the port to 7 below
/// the port to 4 (`true`), the port to 4 is responsible for node 7 as well
/// and switch 1 sends one copy; otherwise (the figure's case) it sends a
/// copy each way and the copy to 4 must not carry node 7.
fn fig17(seven_first: bool) -> Network {
    let (to7, to4) = if seven_first { (2, 3) } else { (3, 2) };
    let links = [
        ((0, 1), (6, 1)),
        ((0, 2), (3, 1)),
        ((0, 3), (5, 1)),
        ((6, 2), (4, 1)),
        ((6, 3), (1, 1)),
        ((1, to7), (7, 1)),
        ((1, to4), (4, 2)),
        ((1, 4), (2, 1)),
        ((4, 3), (7, 2)),
    ];
    common::net(&common::toml(8, 6, &links))
}

fn config() -> SimConfig {
    SimConfig {
        record_deliveries: true,
        ..Default::default()
    }
}

/// Cycles in which a 1-bit signal was 1, from its history, up to `end`.
fn cycles_high(h: &[(u64, String)], end: u64) -> u64 {
    let mut total = 0;
    for (i, (c, v)) in h.iter().enumerate() {
        if v == "1" {
            let next = h.get(i + 1).map_or(end, |x| x.0);
            total += next - c;
        }
    }
    total
}

/// One bit-string worm from node 3 to nodes 4 and 7 on [`fig17`], traced,
/// drained and checked: its arrivals (only 4 and 7 get a copy), the trace,
/// and the number of cycles a 1-bit signal was high.
fn worm_4_7(seven_first: bool) -> (Vec<(u32, u64)>, MemorySink, impl Fn(&str) -> u64) {
    let mut sys = System::new(&fig17(seven_first), &config(), &Traffic::Idle).unwrap();
    let mem = MemorySink::new();
    sys.attach_tracer(Box::new(mem.clone())).unwrap();
    let id = sys
        .inject_worm(3, &WormSpec::BitString { dests: vec![4, 7] }, 4)
        .unwrap();
    sys.drain(1_000).unwrap();
    sys.check_quiescent().unwrap();
    assert_eq!(sys.deliveries().len(), 2, "no other node got a copy");
    let end = sys.cycle();
    sys.finish_trace().unwrap();
    let m = mem.clone();
    let flits = move |path: &str| cycles_high(&m.history(path), end);
    (sys.arrivals(id), mem, flits)
}

/// Fig. 17(b): switch 1 sends one copy toward switch 4 and one toward
/// switch 7; the copy to 4 carries only node 4, so switch 4 does not send
/// a second copy on to 7. Each of nodes 4 and 7 gets one copy, at the cycle
/// `L + h (H + 2) + 1` gives for the 5 switches 3, 0, 6, 1 and 4 (or 7):
/// 6 flits (2 header, 4 payload), 6 + 5 * 4 + 1 = 27.
#[test]
fn fig17b_each_destination_gets_exactly_one_copy() {
    let (arrivals, mem, flits) = worm_4_7(false);
    assert_eq!(arrivals, vec![(4, 27), (7, 27)]);
    // Switch 6 sends the worm only toward switch 1 (its port to 4 is
    // responsible for no node); switch 1 sends a copy to 4 and one to 7.
    assert_eq!(flits("top.sw6.out3.valid"), 6);
    assert_eq!(flits("top.sw6.out2.valid"), 0);
    assert_eq!(flits("top.sw1.out2.valid"), 6, "switch 1 to switch 4");
    assert_eq!(flits("top.sw1.out3.valid"), 6, "switch 1 to switch 7");
    assert_eq!(
        flits("top.sw4.out3.valid"),
        0,
        "switch 4 sends nothing on to 7"
    );
    // Switch 1's decode unit for port 1 (from switch 6): the header is
    // whole in cycle 15 and decoded for cycle 16, when both copies are
    // granted. Vectors print node 7 (or port 5) leftmost.
    let at = |sig: &str| mem.history(&format!("top.sw1.dec1.{sig}"));
    let h = |v: &[(u64, &str)]| -> Vec<(u64, String)> {
        v.iter().map(|(c, s)| (*c, s.to_string())).collect()
    };
    assert_eq!(
        at("dests"),
        h(&[(0, "xxxxxxxx"), (16, "10010000"), (17, "xxxxxxxx")])
    );
    assert_eq!(at("ud_in"), h(&[(0, "x"), (16, "0"), (17, "x")]));
    assert_eq!(
        at("replicate"),
        h(&[(0, "000000"), (16, "001100"), (17, "000000")])
    );
    assert_eq!(at("choice"), h(&[(0, "000000")]));
    assert_eq!(
        at("hdr_out2"),
        h(&[(0, "xxxxxxxx"), (16, "00010000"), (17, "xxxxxxxx")])
    );
    assert_eq!(
        at("hdr_out3"),
        h(&[(0, "xxxxxxxx"), (16, "10000000"), (17, "xxxxxxxx")])
    );
    // Switch 0, the root, reaches every node by down links: it clears the
    // up-down bit.
    let root = |sig: &str| mem.history(&format!("top.sw0.dec2.{sig}"));
    assert_eq!(root("ud_in"), h(&[(0, "x"), (8, "1"), (9, "x")]));
    assert_eq!(root("ud_out"), h(&[(0, "x"), (8, "0"), (9, "x")]));
}

/// The other order of switch 1's ports: the port to switch 4 is
/// responsible for node 7 too, so switch 1 sends one copy, and switch 4
/// replicates it to node 4 and on to switch 7. Node 7's copy crosses six
/// switches: 6 + 6 * 4 + 1 = 31.
#[test]
fn fig17_other_port_order_sends_one_copy_through_switch_4() {
    let (arrivals, _, flits) = worm_4_7(true);
    assert_eq!(arrivals, vec![(4, 27), (7, 31)]);
    assert_eq!(flits("top.sw1.out3.valid"), 6, "switch 1 to switch 4");
    assert_eq!(flits("top.sw1.out2.valid"), 0, "switch 1 to switch 7");
    assert_eq!(flits("top.sw4.out3.valid"), 6, "switch 4 to switch 7");
}

/// What header modification prevents: had switch 1's copy to switch 4
/// kept the whole header (nodes 4 and 7), switch 4 would reach node 7 by
/// its down link and send a second copy there.
#[test]
fn fig17b_an_unmodified_header_would_reach_node_7_twice() {
    let net = fig17(false);
    let (ud, rt) = RoutingTables::for_network(&net);
    let reach = Reachability::new(&net, &ud);
    let f = Formats::new(8, 8, 6);
    let dec = Decoder::of_switch(&net, &ud, &std::sync::Arc::new(rt), Some(&reach), f, 4);
    let mut reg = DecodeReg::new(8, 6);
    let mut hdr = vec![0; f.bitstring_len()];
    f.write_bitstring(false, &BitString::from_indices(8, [4, 7]), &mut hdr);
    dec.decode(&hdr, Phase::Down, &mut reg).unwrap();
    assert_eq!(
        reg.replicate,
        [0, 3].into_iter().collect(),
        "node 4 and switch 7"
    );
    f.write_bitstring(false, &BitString::from_indices(8, [4]), &mut hdr);
    dec.decode(&hdr, Phase::Down, &mut reg).unwrap();
    assert_eq!(reg.replicate, PortMask::single(0), "node 4 alone");
}

/// Asynchronous replication: switch 1 replicates one worm to node 1 and
/// toward nodes 2, 4 and 7. Node 1 stops returning buffer space until cycle
/// 2,000 (its 16-flit receive buffer holds 2 chunks), so switch 1's output
/// to node 1 stalls after 16 flits. The other branches read the same
/// chunks at their own pace and arrive exactly when they do with no stall.
#[test]
fn a_blocked_branch_does_not_stall_the_others() {
    let net = fig17(false);
    let cfg = SimConfig {
        endpoint_buffer_flits: 16,
        ..config()
    };
    let spec = WormSpec::BitString {
        dests: vec![1, 2, 4, 7],
    };
    let arrivals = |hold: Option<u64>| {
        let mut sys = System::new(&net, &cfg, &Traffic::Idle).unwrap();
        if let Some(h) = hold {
            sys.hold_node(1, h).unwrap();
        }
        let id = sys.inject_worm(3, &spec, 100).unwrap();
        sys.run(1_000).unwrap();
        let held = sys.switches()[1].buffered_flits(1);
        sys.drain(10_000).unwrap();
        sys.check_quiescent().unwrap();
        (sys.arrivals(id), held)
    };
    // No stall: 102 flits through 4 switches (3, 0, 6, 1) to node 1 and 5
    // to the others: 102 + 4 * 4 + 1 = 119 and 102 + 5 * 4 + 1 = 123.
    let (free, buffered) = arrivals(None);
    assert_eq!(free, vec![(1, 119), (2, 123), (4, 123), (7, 123)]);
    assert_eq!(buffered, 0);
    let (blocked, buffered) = arrivals(Some(2_000));
    assert_eq!(
        &blocked[1..],
        &free[1..],
        "the other branches are not delayed"
    );
    // At cycle 1,000 switch 1 still holds the worm for the blocked branch:
    // it has read 14 of the 102 flits (its copy starts with the 2-flit
    // header the output port rewrote), and a reader gives a chunk back when
    // it moves past it, so only chunk 0 is free: 102 - 8 = 94 flits.
    assert_eq!(buffered, 94);
    // Node 1 frees its 2 chunks in cycle 2,000; switch 1 sees the credits
    // and sends flit 16 in 2,001, the tail (flit 101) 85 cycles later, in
    // the node's memory 2 cycles after that.
    assert_eq!(blocked[0], (1, 2_000 + 1 + 85 + 2));
}

/// Same-level links and cross links between levels (links to a shallower
/// switch beyond the one tree link) of a network.
fn cross_links(net: &Network) -> (usize, usize) {
    let ud = UpDown::new(net);
    let same = net
        .links()
        .iter()
        .filter(|l| ud.level(l.a.switch) == ud.level(l.b.switch))
        .count();
    let between: usize = (1..net.num_switches() as u32)
        .map(|s| {
            let up = net
                .ports_of(s)
                .filter(|(_, c)| {
                    matches!(c, PortConn::Link { peer, .. } if ud.level(peer.switch) < ud.level(s))
                })
                .count();
            up - 1
        })
        .sum();
    (same, between)
}

/// Sends `worms` random bit-string worms at once from random sources and
/// checks each reached exactly its destinations.
fn random_worms(net: &Network, worms: usize, seed: u64) -> Result<(), TestCaseError> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let n = net.num_nodes() as u32;
    let mut sys = System::new(net, &config(), &Traffic::Idle).unwrap();
    let mut sent = Vec::new();
    for _ in 0..worms {
        let src = rng.random_range(0..n);
        let density = rng.random_range(0.05..1.0);
        // Any set of other nodes: a worm's source is never its destination.
        let mut dests: Vec<u32> = (0..n)
            .filter(|&d| rng.random_bool(density) && d != src)
            .collect();
        if dests.is_empty() {
            dests.push((src + rng.random_range(1..n)) % n);
        }
        let payload = rng.random_range(0..40);
        let id = sys
            .inject_worm(
                src,
                &WormSpec::BitString {
                    dests: dests.clone(),
                },
                payload,
            )
            .unwrap();
        sent.push((id, dests));
    }
    sys.drain(100_000).unwrap();
    sys.check_quiescent().unwrap();
    let mut total = 0;
    for (id, dests) in sent {
        let got: Vec<u32> = sys.arrivals(id).into_iter().map(|(d, _)| d).collect();
        prop_assert_eq!(&got, &dests, "worm {:?}", id);
        total += dests.len();
    }
    prop_assert_eq!(sys.deliveries().len(), total, "no copy to any other node");
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Bit-string worms to any destination sets on random irregular
    /// networks reach every destination exactly once and no other node.
    #[test]
    fn bit_string_worms_reach_each_destination_once(
        switches in 2u32..20,
        ports in 4u32..9,
        per_switch in 1u32..4,
        conn in 0.4f64..=1.0,
        topo_seed in any::<u64>(),
        worms in 1usize..8,
        seed in any::<u64>(),
    ) {
        let p = IrregularParams { switches, ports, nodes: switches * per_switch, connectivity: conn, seed: topo_seed };
        let Ok(t) = p.generate() else { return Ok(()) };
        random_worms(&Network::new(&t).unwrap(), worms, seed)?;
    }
}

/// The same on 40 networks of 16 switches whose cross links are counted:
/// the property is exercised where a switch reaches a node by more than one
/// down path.
#[test]
fn bit_string_worms_across_cross_links() {
    let (mut same, mut between) = (0, 0);
    for seed in 0..40 {
        let p = IrregularParams {
            switches: 16,
            ports: 6,
            nodes: 32,
            connectivity: 0.9,
            seed,
        };
        let net = Network::new(&p.generate().unwrap()).unwrap();
        let (s, b) = cross_links(&net);
        same += s;
        between += b;
        random_worms(&net, 6, seed).unwrap();
    }
    assert!(
        same >= 200 && between >= 200,
        "{same} same-level, {between} cross-level cross links"
    );
}

/// Random worms of every encoding on the paper's default network: after
/// the traffic stops and the network drains, every worm has reached all
/// of its destinations (the endpoints refuse a second copy or a stray
/// one), and every chunk and every credit is back.
#[test]
fn every_encoding_drains_and_returns_every_chunk_and_credit() {
    let net = common::default_net();
    for kind in [Kind::Unicast, Kind::Ssr, Kind::MultiDrop, Kind::BitString] {
        let cfg = SimConfig {
            seed: 3,
            ..config()
        };
        let degree = if kind == Kind::Unicast { 1 } else { 4 };
        let traffic = Traffic::multicast(0.1, 16, degree, kind);
        let mut sys = System::new(&net, &cfg, &traffic).unwrap();
        sys.run(20_000).unwrap();
        sys.stop_traffic();
        sys.drain(200_000).unwrap();
        sys.check_quiescent().unwrap();
        let r = sys.report();
        let per_worm = if kind == Kind::Unicast { 1.0 } else { 2.0 };
        assert!(r.packets_generated > 1_000, "{kind}: {r:?}");
        assert!(
            r.packets_delivered as f64 >= per_worm * r.packets_generated as f64,
            "{kind}: {r:?}"
        );
    }
}

/// Multicast traffic far past saturation for 1,000,000 cycles: the
/// watchdog finds no cycle of waits, deliveries go on to the end, and the
/// network drains once the sources stop.
#[test]
fn multicast_past_saturation_for_a_million_cycles_does_not_deadlock() {
    let net = common::default_net();
    for kind in [Kind::Ssr, Kind::MultiDrop, Kind::BitString] {
        let cfg = SimConfig {
            source_queue_packets: 64,
            ..config()
        };
        // SSR worms reach at most the 4 nodes of a switch.
        let degree = if kind == Kind::Ssr { 4 } else { 6 };
        let mut sys = System::new(&net, &cfg, &Traffic::multicast(0.6, 16, degree, kind)).unwrap();
        sys.run(900_000).unwrap();
        sys.start_window();
        sys.run(100_000).unwrap();
        let r = sys.report();
        assert!(r.packets_refused > 0, "{kind}: saturated: {r:?}");
        assert!(
            r.accepted_throughput > 0.1,
            "{kind}: still delivering: {r:?}"
        );
        sys.stop_traffic();
        sys.drain(2_000_000).unwrap();
        sys.check_quiescent().unwrap();
    }
}

/// A worm as large as the input buffer could deadlock the replication
/// (seed 000 section 3.4.2): refused, naming both sizes, whether it would
/// come from the traffic generators or be injected by hand. Worms naming
/// what does not exist are refused by name.
#[test]
fn worms_that_do_not_fit_or_name_nothing_are_refused() {
    let net = common::default_net();
    let cfg = SimConfig {
        buffer_flits: 64,
        ..config()
    };
    // 32 nodes: a 5-flit bit-string header; 59 payload flits make 64.
    let err = System::new(&net, &cfg, &Traffic::multicast(0.1, 59, 4, Kind::BitString))
        .err()
        .unwrap();
    assert!(
        err.to_string().starts_with(
            "input buffer of 64 flits is not larger than the largest packet of 64 flits"
        ),
        "{err}"
    );
    System::new(&net, &cfg, &Traffic::multicast(0.1, 58, 4, Kind::BitString)).unwrap();
    let mut sys = System::new(&net, &cfg, &Traffic::Idle).unwrap();
    let bits = |dests: Vec<u32>| WormSpec::BitString { dests };
    let e = |r: wormcast::Result<_>| r.unwrap_err().to_string();
    assert!(e(sys.inject_worm(0, &bits(vec![1, 2]), 59)).contains("largest packet of 64 flits"));
    assert_eq!(
        e(sys.inject_worm(0, &bits(vec![1, 32]), 4)),
        "node 32 does not exist (the network has nodes 0 to 31)"
    );
    assert_eq!(
        e(sys.inject_worm(0, &bits(vec![]), 4)),
        "bad destination list: a multicast needs at least one destination"
    );
    let ssr = WormSpec::Ssr {
        switch: 9,
        dests: vec![1],
    };
    assert_eq!(
        e(sys.inject_worm(0, &ssr, 4)),
        "bad packet: switch 9 does not exist (switches 0 to 7)"
    );
}
/// Path-based and SSR worms on the Fig. 17 network, with exact arrival
/// cycles. A hop costs the switch `H + 2` cycles for the `H`-flit header it
/// receives (the whole header, decode, crossbar), and the last link `L + 1`
/// for the `L`-flit copy delivered. The multi-drop header (1 byte and three
/// 2-byte pairs) loses a pair at each switch that drops copies.
#[test]
fn multi_drop_and_ssr_worms_arrive_on_the_cycle() {
    let net = fig17(false);
    let mut sys = System::new(&net, &config(), &Traffic::Idle).unwrap();
    let mem = MemorySink::new();
    sys.attach_tracer(Box::new(mem.clone())).unwrap();
    let path = vec![(6, vec![6]), (1, vec![1]), (7, vec![7])];
    let id = sys
        .inject_worm(3, &WormSpec::MultiDrop { path }, 4)
        .unwrap();
    sys.drain(1_000).unwrap();
    sys.check_quiescent().unwrap();
    // Decode registers (kind 2: multi-drop; ports print port 5 leftmost):
    // switch 6 (from the root on port 1) matches the first pair, drops a
    // copy on port 0 and sends one on by port 3 toward switch 1, which
    // then sees pair (1, port 0) first.
    let at = |unit: &str, sig: &str, c: u64| mem.value_at(&format!("top.{unit}.{sig}"), c).unwrap();
    for (unit, c, target) in [
        ("sw3.dec0", 9, "110"),
        ("sw6.dec1", 27, "110"),
        ("sw1.dec1", 34, "001"),
    ] {
        assert_eq!(at(unit, "valid", c - 1), "0");
        assert_eq!(at(unit, "valid", c), "1");
        assert_eq!(at(unit, "kind", c), "10");
        assert_eq!(at(unit, "target", c), target);
        assert_eq!(at(unit, "ports_in", c), "000001");
    }
    assert_eq!(at("sw3.dec0", "replicate", 9), "000000");
    assert_eq!(at("sw3.dec0", "choice", 9), "000010");
    assert_eq!(at("sw6.dec1", "replicate", 27), "000001");
    assert_eq!(at("sw6.dec1", "choice", 27), "001000");
    sys.finish_trace().unwrap();
    // Switches 3, 0 and 6 see the 7-flit header: 3 * 9 = 27 cycles.
    // Node 6: + 11 + 1; node 1: + switch 1 with 5 flits (7) + 9 + 1;
    // node 7: + 7 + switch 7 with 3 flits (5) + 7 + 1.
    assert_eq!(sys.arrivals(id), vec![(1, 44), (6, 39), (7, 47)]);
    let lens: Vec<(u32, u16)> = {
        let mut v: Vec<_> = sys.deliveries().iter().map(|d| (d.dst, d.len)).collect();
        v.sort_unstable();
        v
    };
    assert_eq!(lens, vec![(1, 9), (6, 11), (7, 7)]);
    // An SSR worm to node 1 (2-flit header) from cycle 47: 4 switches.
    let start = sys.cycle();
    let id = sys
        .inject_worm(
            3,
            &WormSpec::Ssr {
                switch: 1,
                dests: vec![1],
            },
            4,
        )
        .unwrap();
    sys.drain(1_000).unwrap();
    assert_eq!(sys.arrivals(id), vec![(1, start + 4 * 4 + 6 + 1)]);
}

/// A multi-drop path must be routable in order under up*/down*, and its
/// destinations must be on the switches named.
#[test]
fn unroutable_multi_drop_paths_are_refused() {
    let net = fig17(false);
    let mut sys = System::new(&net, &config(), &Traffic::Idle).unwrap();
    let md = |path: Vec<(u32, Vec<u32>)>| WormSpec::MultiDrop { path };
    let e = |r: wormcast::Result<_>| r.unwrap_err().to_string();
    assert_eq!(
        e(sys.inject_worm(0, &md(vec![(7, vec![7]), (3, vec![3])]), 4)),
        "bad packet: the worm cannot go on from switch 7 to switch 3: arriving at switch 7 \
         in phase Down, no legal up*/down* route leads on"
    );
    assert_eq!(
        e(sys.inject_worm(0, &md(vec![(7, vec![3])]), 4)),
        "bad packet: node 3 is on switch 3, not on switch 7"
    );
}

//! A single packet on an idle network arrives exactly when the documented
//! formula says (docs/timing.md):
//!
//!     T = L + h * (H + 2) + 1
//!
//! cycles from the cycle it is generated to the cycle its tail flit is in
//! the destination's memory, for a packet of L flits with an H-flit header
//! crossing h switches.

mod common;

use std::collections::BTreeSet;
use wormcast::header::UnicastFormat;
use wormcast::net::{IrregularParams, Network, Phase, RoutingTables};
use wormcast::sim::{SimConfig, System, Traffic};

/// Sends one packet per (src, dst, len), one at a time on an idle network,
/// and checks every arrival against the formula. Returns the h values seen.
fn check(net: &Network, pairs: &[(u32, u32)], lens: &[u32]) -> BTreeSet<u32> {
    let (_, rt) = RoutingTables::for_network(net);
    let hdr = UnicastFormat::new(net.num_nodes() as u32).flits() as u32;
    let cfg = SimConfig {
        record_deliveries: true,
        ..Default::default()
    };
    let mut hs = BTreeSet::new();
    for &len in lens {
        let mut sys = System::new(net, &cfg, &Traffic::Idle).unwrap();
        for &(src, dst) in pairs {
            let h = rt
                .distance(rt.node_switch(src), rt.node_switch(dst), Phase::Up)
                .unwrap()
                + 1;
            hs.insert(h);
            let at = sys.cycle();
            sys.inject(src, dst, len).unwrap();
            sys.drain(100_000).unwrap();
            sys.check_quiescent().unwrap();
            let d: Vec<_> = sys
                .deliveries()
                .into_iter()
                .filter(|d| d.created == at)
                .collect();
            assert_eq!(d.len(), 1);
            assert_eq!((d[0].src, d[0].dst, d[0].len as u32), (src, dst, len));
            let got = d[0].arrive - d[0].created;
            let want = (len + h * (hdr + 2) + 1) as u64;
            assert_eq!(
                got, want,
                "packet {src} -> {dst}, {len} flits, {h} switches, {hdr}-flit header: \
                 arrived after {got} cycles, formula says {want}"
            );
            assert_eq!(
                d[0].inject, d[0].created,
                "an idle source sends the head at once"
            );
        }
    }
    hs
}

#[test]
fn every_pair_of_the_default_network_for_several_lengths() {
    let net = common::default_net();
    let n = net.num_nodes() as u32;
    let pairs: Vec<(u32, u32)> = (0..n).flat_map(|s| (0..n).map(move |d| (s, d))).collect();
    let hs = check(&net, &pairs, &[1, 2, 7, 8, 9, 20, 128]);
    assert_eq!(
        hs,
        BTreeSet::from([1, 2, 3, 4]),
        "paths of 1 to 4 switches are covered"
    );
}

#[test]
fn two_flit_headers_on_a_256_node_network() {
    // 256 nodes need 8 id bits plus the tag: a 2-flit header.
    let p = IrregularParams {
        switches: 64,
        ports: 8,
        nodes: 256,
        connectivity: 0.8,
        seed: 3,
    };
    let net = Network::new(&p.generate().unwrap()).unwrap();
    assert_eq!(UnicastFormat::new(256).flits(), 2);
    let pairs: Vec<(u32, u32)> = (0..256u32)
        .step_by(7)
        .map(|s| (s, (s * 37 + 11) % 256))
        .collect();
    let hs = check(&net, &pairs, &[2, 3, 8, 9, 64]);
    assert!(hs.len() >= 4, "several path lengths covered: {hs:?}");
}

#[test]
fn a_packet_to_its_own_source_turns_around_in_its_switch() {
    let net = common::default_net();
    let hs = check(&net, &[(5, 5)], &[1, 10]);
    assert_eq!(hs, BTreeSet::from([1]));
}

//! No flit is lost, duplicated or reordered: every endpoint checks each flit
//! as it arrives (the model stops with a fault otherwise), and after the
//! network drains every packet sent has been received whole, every buffer
//! chunk is free and every credit is home.

mod common;

use wormcast::net::Network;
use wormcast::sim::{SimConfig, System, Traffic};

fn run_and_drain(net: &Network, cfg: &SimConfig, load: f64, len: u32, cycles: u64) -> (u64, u64) {
    let mut sys = System::new(net, cfg, &Traffic::uniform(load, len)).unwrap();
    sys.run(cycles).unwrap();
    sys.drain(1_000_000).unwrap();
    sys.check_quiescent().unwrap();
    let n = sys.num_nodes();
    let (mut sent, mut got, mut sent_f, mut got_f) = (0, 0, 0, 0);
    for i in 0..n {
        let s = sys.endpoint_stats(i).unwrap();
        sent += s.injected_packets;
        got += s.received_packets;
        sent_f += s.injected_flits;
        got_f += s.received_flits;
    }
    assert_eq!(sent, got, "packets sent and received");
    assert_eq!(sent_f, got_f, "flits sent and received");
    assert_eq!(sent_f, sent * len as u64);
    assert_eq!(sys.report().packets_in_flight, 0);
    (sent, sys.flit_hops())
}

#[test]
fn every_packet_arrives_whole_at_many_loads_and_sizes() {
    let net = common::default_net();
    for (load, len) in [
        (0.05, 1),
        (0.3, 1),
        (0.1, 20),
        (0.5, 20),
        (0.2, 128),
        (1.0, 128),
        (0.8, 9),
    ] {
        let (sent, _) = run_and_drain(&net, &SimConfig::default(), load, len, 20_000);
        assert!(sent > 100, "load {load}, {len} flits: only {sent} packets");
    }
}

#[test]
fn tiny_buffers_make_credits_the_bottleneck_and_nothing_is_lost() {
    // 12-flit buffers of 2-flit chunks and 9-flit packets: every packet
    // fills most of a buffer, so senders wait on credits all the time.
    let cfg = SimConfig {
        buffer_flits: 12,
        chunk_flits: 2,
        endpoint_buffer_flits: 4,
        ..Default::default()
    };
    for net in [common::default_net(), common::anynet()] {
        let (sent, _) = run_and_drain(&net, &cfg, 0.6, 9, 30_000);
        assert!(sent > 1000);
    }
    // Single-flit chunks.
    let cfg = SimConfig {
        buffer_flits: 3,
        chunk_flits: 1,
        endpoint_buffer_flits: 1,
        ..Default::default()
    };
    run_and_drain(&common::default_net(), &cfg, 0.4, 2, 30_000);
}

#[test]
fn a_packet_as_large_as_the_buffer_is_refused_naming_both_sizes() {
    let net = common::default_net();
    let cfg = SimConfig {
        buffer_flits: 64,
        ..Default::default()
    };
    let err = System::new(&net, &cfg, &Traffic::uniform(0.1, 64))
        .err()
        .unwrap();
    assert!(
        err.to_string().starts_with(
            "input buffer of 64 flits is not larger than the largest packet of 64 flits"
        ),
        "{err}"
    );
    let mut sys = System::new(&net, &cfg, &Traffic::Idle).unwrap();
    assert!(
        sys.inject(0, 1, 100)
            .unwrap_err()
            .to_string()
            .contains("largest packet of 100 flits")
    );
    assert_eq!(
        sys.inject(0, 32, 10).unwrap_err().to_string(),
        "node 32 does not exist (the network has nodes 0 to 31)"
    );
}

mod random {
    use proptest::prelude::*;
    use wormcast::net::{IrregularParams, Network};
    use wormcast::sim::{SimConfig, System, Traffic};

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(40))]

        /// Small buffers (barely larger than a packet) and high loads on
        /// random topologies: no deadlock, no fault, and everything drains.
        #[test]
        fn small_buffers_never_deadlock_or_lose_flits(
            switches in 2u32..10,
            conn in 0.6f64..=1.0,
            topo_seed in any::<u64>(),
            seed in any::<u64>(),
            chunk in 1u32..5,
            spare_chunks in 1u32..4,
            len in 1u32..24,
            load in 0.1f64..=1.0,
        ) {
            let p = IrregularParams { switches, ports: 6, nodes: switches * 2, connectivity: conn, seed: topo_seed };
            let Ok(t) = p.generate() else { return Ok(()) };
            let net = Network::new(&t).unwrap();
            let buffer = (len.div_ceil(chunk) + spare_chunks) * chunk;
            let cfg = SimConfig {
                buffer_flits: buffer,
                chunk_flits: chunk,
                endpoint_buffer_flits: chunk,
                watchdog_cycles: 5_000,
                seed,
                ..Default::default()
            };
            let mut sys = System::new(&net, &cfg, &Traffic::uniform(load, len)).unwrap();
            sys.run(12_000).unwrap();
            sys.drain(2_000_000).unwrap();
            sys.check_quiescent().unwrap();
        }
    }
}

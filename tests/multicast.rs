//! Multidestination worms end to end: every kind reaches each destination
//! exactly once, buffers and credits return after the network drains.

mod common;

use wormcast::header::Kind;
use wormcast::sim::{SimConfig, System, Traffic};

fn run_kind(kind: Kind, load: f64, degree: u32, payload: u32, cycles: u64, seed: u64) -> System {
    let net = common::default_net();
    let cfg = SimConfig {
        seed,
        record_deliveries: true,
        ..Default::default()
    };
    let mut sys =
        System::new(&net, &cfg, &Traffic::multicast(load, payload, degree, kind)).unwrap();
    sys.run(cycles).unwrap();
    sys.stop_traffic();
    sys.drain(200_000).unwrap();
    sys.check_quiescent().unwrap();
    sys
}

#[test]
fn every_kind_drains_with_exactly_once_delivery() {
    for kind in [Kind::Unicast, Kind::Ssr, Kind::MultiDrop, Kind::BitString] {
        let sys = run_kind(kind, 0.2, 6, 16, 20_000, 3);
        let r = sys.report();
        eprintln!("{kind:?}: {r:?}");
        assert!(r.packets_delivered > 100, "{kind:?}");
    }
}

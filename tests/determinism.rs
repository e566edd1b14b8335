//! Same configuration and seed, same results: bit-identical VCD and
//! statistics. Components talk only through registered channels, so the
//! order in which they are evaluated within a cycle changes nothing: runs in
//! freshly shuffled orders every cycle give the same bytes.

mod common;

use wormcast::header::Kind;
use wormcast::sim::{EvalOrder, NodeModel, RunReport, SimConfig, System, Traffic};
use wormcast::wave::VcdWriter;

fn traced(seed: u64, order: EvalOrder, traffic: &Traffic, cycles: u64) -> (Vec<u8>, RunReport) {
    traced_with(seed, order, traffic, cycles, false)
}

fn traced_with(
    seed: u64,
    order: EvalOrder,
    traffic: &Traffic,
    cycles: u64,
    every: bool,
) -> (Vec<u8>, RunReport) {
    let cfg = SimConfig {
        seed,
        ..Default::default()
    };
    traced_as(&cfg, order, traffic, cycles, every)
}

fn traced_as(
    cfg: &SimConfig,
    order: EvalOrder,
    traffic: &Traffic,
    cycles: u64,
    every: bool,
) -> (Vec<u8>, RunReport) {
    let net = common::default_net();
    let mut sys = System::new(&net, cfg, traffic).unwrap();
    sys.set_eval_order(order).unwrap();
    let out = common::Shared::default();
    sys.attach_tracer(Box::new(VcdWriter::new(out.clone())))
        .unwrap();
    sys.trace_every_component(every);
    sys.run(cycles / 2).unwrap();
    sys.start_window();
    sys.run(cycles / 2).unwrap();
    sys.finish_trace().unwrap();
    let bytes = out.bytes();
    (bytes, sys.report())
}

#[test]
fn the_same_seed_gives_the_same_vcd_and_statistics() {
    let t = Traffic::uniform(0.3, 20);
    let (a, ra) = traced(7, EvalOrder::Natural, &t, 6_000);
    let (b, rb) = traced(7, EvalOrder::Natural, &t, 6_000);
    assert!(
        a.len() > 100_000,
        "a busy network writes a lot: {} bytes",
        a.len()
    );
    assert!(a == b, "VCDs differ");
    assert_eq!(ra, rb);
    let (c, rc) = traced(8, EvalOrder::Natural, &t, 6_000);
    assert!(a != c, "another seed gives other traffic");
    assert_ne!(ra, rc);
}

#[test]
fn shuffled_evaluation_orders_change_nothing() {
    for t in [
        Traffic::uniform(0.4, 20),
        Traffic::uniform(0.2, 1),
        Traffic::uniform(1.0, 128),
    ] {
        let (a, ra) = traced(3, EvalOrder::Natural, &t, 5_000);
        for shuffle in [1, 2, 3] {
            let (b, rb) = traced(3, EvalOrder::Shuffled { seed: shuffle }, &t, 5_000);
            assert!(a == b, "{t:?}: VCD differs with shuffle seed {shuffle}");
            assert_eq!(
                ra, rb,
                "{t:?}: statistics differ with shuffle seed {shuffle}"
            );
        }
    }
}

#[test]
fn untraced_runs_match_traced_runs() {
    let t = Traffic::uniform(0.3, 20);
    let (_, traced_report) = traced(5, EvalOrder::Natural, &t, 6_000);
    let net = common::default_net();
    let cfg = SimConfig {
        seed: 5,
        ..Default::default()
    };
    let mut sys = System::new(&net, &cfg, &t).unwrap();
    sys.run(3_000).unwrap();
    sys.start_window();
    sys.run(3_000).unwrap();
    assert_eq!(
        sys.report(),
        traced_report,
        "tracing must not change the model"
    );
}

#[test]
fn sampling_only_the_components_that_may_change_loses_no_change() {
    // The tracer samples a switch's port only in cycles a stage of the
    // switch worked on it or a channel it drives or reads changed, and
    // another component only in cycles it was evaluated or one of its
    // channels changed; sampling everything every cycle must give the same
    // bytes. Every header encoding (the decode unit's signals differ by
    // kind), headers alone in their packets (2 flits: nothing else arrives
    // while they decode), loads from light to past saturation, and packets
    // from one flit up.
    for t in [
        Traffic::uniform(0.3, 20),
        Traffic::uniform(0.05, 3),
        Traffic::uniform(0.2, 2),
        // Packets of one flit: an endpoint starts and ends a packet in one
        // cycle, on a link idle before it.
        Traffic::uniform(0.2, 1),
        Traffic::uniform(1.0, 9),
        Traffic::multicast(0.1, 16, 4, Kind::BitString),
        Traffic::multicast(0.05, 1, 6, Kind::BitString),
        Traffic::multicast(0.1, 4, 4, Kind::Ssr),
        Traffic::multicast(0.1, 4, 4, Kind::MultiDrop),
        Traffic::multicast(0.6, 16, 6, Kind::BitString),
    ] {
        let (a, _) = traced_with(11, EvalOrder::Natural, &t, 4_000, false);
        let (b, _) = traced_with(11, EvalOrder::Natural, &t, 4_000, true);
        assert!(a == b, "{t:?}: selective and full sampling differ");
    }
}

/// The VCD of 3,000 cycles on the default network sampled selectively
/// and sampled in full, `each(sys, k)` called before cycle `k`.
fn selective_and_full(
    cfg: &SimConfig,
    traffic: &Traffic,
    mut each: impl FnMut(&mut System, u32),
) -> [Vec<u8>; 2] {
    [false, true].map(|every| {
        let mut sys = System::new(&common::default_net(), cfg, traffic).unwrap();
        let out = common::Shared::default();
        sys.attach_tracer(Box::new(VcdWriter::new(out.clone())))
            .unwrap();
        sys.trace_every_component(every);
        for k in 0..3_000u32 {
            each(&mut sys, k);
            sys.run(1).unwrap();
        }
        sys.finish_trace().unwrap();
        out.bytes()
    })
}

#[test]
fn sampling_only_what_may_change_loses_no_change_with_held_nodes_and_injected_packets() {
    // An endpoint is sampled in the cycles it runs or one of its channels
    // changes: also when a held node releases the credits it kept (nothing
    // arrives in that cycle), and when a packet is queued from outside at
    // a node busy sending, whose queue grows while its link waits for
    // credits.
    let cfg = SimConfig {
        seed: 5,
        ..Default::default()
    };
    let waves = selective_and_full(&cfg, &Traffic::uniform(0.15, 12), |sys, k| {
        let n = sys.num_nodes();
        if k % 250 == 10 {
            // Held for 40 to 200 cycles: long enough to fill its buffer.
            sys.hold_node(k % n, u64::from(k + 40 + k % 161)).unwrap();
        }
        if k % 37 == 0 {
            let src = (k * 5) % n;
            sys.inject(src, (src + 1 + k % (n - 1)) % n, 3 + k % 30)
                .unwrap();
        }
    });
    assert!(waves[0].len() > 100_000, "{} bytes", waves[0].len());
    assert!(
        waves[0] == waves[1],
        "with held nodes and injected packets, selective and full sampling differ"
    );
}

#[test]
fn sampling_only_what_may_change_loses_no_change_with_network_interfaces() {
    // Hosts with network interfaces at the nodes instead of traffic
    // endpoints: messages of one to three packets between scattered pairs.
    let cfg = SimConfig {
        node_model: NodeModel::Ni,
        ..Default::default()
    };
    let waves = selective_and_full(&cfg, &Traffic::Idle, |sys, k| {
        let n = sys.num_nodes();
        if k % 23 == 0 {
            let (src, dst) = (k % n, (k * 7 + 3) % n);
            if src != dst {
                sys.send_message(src, dst, 1 + k % 3).unwrap();
            }
        }
    });
    assert!(waves[0].len() > 100_000, "{} bytes", waves[0].len());
    assert!(
        waves[0] == waves[1],
        "with network interfaces, selective and full sampling differ"
    );
}

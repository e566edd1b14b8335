//! Wormhole hypercubes with path-based multicast (seed 001): timing of the
//! router pipeline, Restriction 2 on every hop, the two deadlocks of Fig. 3
//! and their natural-list cures, Fig. 4 and Fig. 5, and random traffic past
//! saturation.

mod common;

use proptest::prelude::*;
use std::sync::Arc;
use wormcast::Error;
use wormcast::deadlock::WaitReport;
use wormcast::direct::cube::{Turn, natural_list};
use wormcast::direct::{
    CubeFabric, DirectConfig, DirectSystem, DirectTraffic, Hypercube, PortModel, Routing, WormInfo,
};

fn system(n: u32, routing: Routing, cfg: DirectConfig) -> DirectSystem {
    let f = Arc::new(CubeFabric {
        cube: Hypercube::new(n).unwrap(),
        routing,
    });
    DirectSystem::new(f, &cfg).unwrap()
}

fn cfg(ports: PortModel, buffer_flits: u32) -> DirectConfig {
    DirectConfig {
        ports,
        buffer_flits,
        ..Default::default()
    }
}

/// Runs `s` until the watchdog reports a deadlock; its report.
fn deadlock_report(s: &mut DirectSystem) -> WaitReport {
    match s.run_until_delivered(100_000) {
        Err(Error::DirectDeadlock(r)) => *r,
        other => panic!("expected a deadlock, got {other:?}"),
    }
}

/// Re-checks a finished worm's route from its node sequence alone: each hop
/// crosses one dimension toward the current destination, and each turn is
/// allowed by `routing` (including turns at intermediate destinations).
fn check_route(w: &WormInfo, routing: Routing) {
    let mut idx = 0;
    let mut last: Option<Turn> = None;
    let r = &w.route;
    assert_eq!(r[0], w.src);
    for pair in r.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        while idx < w.list.len() && a == w.list[idx] {
            idx += 1;
        }
        let diff = a ^ b;
        assert_eq!(
            diff.count_ones(),
            1,
            "worm {}: {a} -> {b} is not a channel",
            w.tag
        );
        let dim = diff.trailing_zeros();
        let target = w.list[idx];
        assert!(
            (a ^ target) >> dim & 1 == 1,
            "worm {}: {a} -> {b} does not approach {target}",
            w.tag
        );
        let t = Turn::leaving(a, dim);
        assert!(
            routing.allows(last, t),
            "worm {} {:?}: turn {last:?} -> {t} at {a}",
            w.tag,
            w.route
        );
        last = Some(t);
    }
    // Every destination reached, in list order, and the route ends at the last.
    let visits: Vec<u32> = {
        let mut i = 0;
        let mut v = Vec::new();
        for &x in r {
            if i < w.list.len() && x == w.list[i] {
                v.push(x);
                i += 1;
            }
        }
        v
    };
    assert_eq!(visits, w.list, "worm {}", w.tag);
    assert_eq!(*r.last().unwrap(), *w.list.last().unwrap());
    // Exactly one copy per destination, in list order.
    let got: Vec<u32> = w.deliveries.iter().map(|d| d.node).collect();
    assert_eq!(got, w.list, "worm {}", w.tag);
}

#[test]
fn unicast_timing_on_an_idle_cube() {
    // Head: 1 cycle to the source router, H + 2 per router (H = 2 header
    // flits: count and address), H + 2 at the destination to the processor:
    // (h + 1)(H + 2) + 1. Tail: L cycles later with 3-flit buffers (credit
    // loop of 3 cycles), L + (L - 1)/2 with 2-flit buffers (2 flits per 3
    // cycles).
    for (b, stretch) in [
        (3u32, (|l: u64| l) as fn(u64) -> u64),
        (2, |l| l + (l - 1) / 2),
    ] {
        for l in [1u64, 2, 5, 8, 13] {
            for dst in 1..16u32 {
                let mut s = system(4, Routing::Restriction2, cfg(PortModel::OnePort, b));
                s.send(0, &[dst], l as u32).unwrap();
                s.run_until_delivered(10_000).unwrap();
                let w = &s.finished()[0];
                let h = dst.count_ones() as u64;
                let d = w.deliveries[0];
                assert_eq!(d.head, (h + 1) * 4 + 1, "b {b} dst {dst} len {l}");
                assert_eq!(d.tail - d.head, stretch(l), "b {b} dst {dst} len {l}");
                check_route(w, Routing::Restriction2);
            }
        }
    }
}

#[test]
fn multicast_copies_at_each_destination_on_time() {
    // <1: 3, 6, 7> on an idle 3-cube, 3-flit buffers. At a destination with
    // more to go the latch takes 3 flits (count, own address, next), the
    // consumption channel is granted first and the external channel the
    // cycle after.
    let mut s = system(3, Routing::Restriction2, cfg(PortModel::OnePort, 3));
    s.send(1, &[3, 6, 7], 8).unwrap();
    s.run_until_delivered(1_000).unwrap();
    let w = &s.finished()[0];
    check_route(w, Routing::Restriction2);
    // 1 -> 3: source router 1..5, latch 5,6,7, decode 8, grant 9, head 10.
    assert_eq!(w.deliveries[0].head, 10);
    // External grant at 10, router 2 at 11: +4 -> router 6 at 15, latch
    // 15..17, decode 18, grant 19, head 20.
    assert_eq!(w.deliveries[1].head, 20);
    // External grant at 20 -> router 7 at 21, latch 21,22, decode 23, grant
    // 24, head 25.
    assert_eq!(w.deliveries[2].head, 25);
    assert!(s.is_quiet());
}

#[test]
fn unicast_multicast_and_broadcast_follow_restriction2() {
    for ports in [PortModel::OnePort, PortModel::AllPort] {
        let mut s = system(5, Routing::Restriction2, cfg(ports, 2));
        // Every unicast from 13, a broadcast from 22, multicasts.
        for d in 0..32 {
            if d != 13 {
                s.send(13, &[d], 4).unwrap();
            }
        }
        let all: Vec<u32> = (0..32).filter(|&d| d != 22).collect();
        s.send(22, &all, 6).unwrap();
        s.send(31, &natural_list(&[0, 7, 9, 30, 16]), 3).unwrap();
        s.send(0, &natural_list(&[31, 1, 2, 4, 8, 16]), 3).unwrap();
        s.run_until_delivered(100_000).unwrap();
        assert_eq!(s.finished().len(), 31 + 1 + 2);
        for w in s.finished() {
            check_route(w, Routing::Restriction2);
        }
        assert_eq!(s.stats().copies, 31 + 31 + 5 + 6);
        assert!(s.is_quiet());
    }
}

/// A network dropped without its waveform finished (its run stopped on a
/// deadlock and the caller returned the error) ends the waveform as it
/// goes: the FST of Fig. 3(a)'s deadlock reads back up to the falling edge
/// of the cycle the watchdog stopped it in. It was unreadable (no block,
/// no end); the cut-through switch's network already ended its own.
#[test]
fn a_network_dropped_after_a_deadlock_ends_its_fst() {
    let mut s = system(2, Routing::Ecube, cfg(PortModel::OnePort, 2));
    let path =
        std::env::temp_dir().join(format!("wormcast-cube-dropped-{}.fst", std::process::id()));
    let sink = wormcast::wave::create(&path, "dropped").unwrap();
    s.attach_tracer(sink, 5_000).unwrap();
    s.send(0, &[1, 3], 64).unwrap();
    s.send(2, &[3, 1], 64).unwrap();
    deadlock_report(&mut s);
    let stopped = s.cycle();
    drop(s);
    // 100 ps units: cycle `c` rises at 50 c and falls at 50 c + 25.
    let last = common::last_time(&path);
    std::fs::remove_file(&path).unwrap();
    assert_eq!(last, Some(format!("#{}", 50 * stopped + 25)));
    assert_eq!(stopped, 2048);
}

#[test]
fn fig3a_deadlock_in_a_one_port_system_and_its_cure() {
    // <0: 1, 3> and <2: 3, 1> under e-cube routing on the 0-1-3-2 face: each
    // worm holds the consumption channel of its first destination and waits
    // for the other's.
    let mut s = system(2, Routing::Ecube, cfg(PortModel::OnePort, 2));
    s.send(0, &[1, 3], 64).unwrap();
    s.send(2, &[3, 1], 64).unwrap();
    let r = deadlock_report(&mut s);
    assert_eq!(
        r.channels,
        ["IN[3]", "c[3->1 d1-]", "IN[1]", "c[1->3 d1+]"],
        "{r}"
    );
    assert_eq!(r.steps.len(), 2);
    assert_eq!((r.steps[0].worm, r.steps[0].held_by), (0, 1));
    assert_eq!(r.steps[0].head_on, "c[1->3 d1+]");
    assert_eq!(r.steps[0].waits_for, "IN[3]");
    assert_eq!((r.steps[1].worm, r.steps[1].held_by), (1, 0));
    assert!(
        r.to_string()
            .contains("worm 1 <2: 3, 1>: head on c[3->1 d1-], waits for IN[1] held by worm 0"),
        "{r}"
    );

    // The natural lists of the same multicasts under Restriction 2.
    let mut s = system(2, Routing::Restriction2, cfg(PortModel::OnePort, 2));
    s.send(0, &natural_list(&[1, 3]), 64).unwrap();
    s.send(2, &natural_list(&[3, 1]), 64).unwrap();
    s.run_until_delivered(100_000).unwrap();
    for w in s.finished() {
        check_route(w, Routing::Restriction2);
    }
    assert_eq!(s.stats().completed, 2);
}

#[test]
fn fig3c_deadlock_of_external_channels_and_its_cure() {
    // <0: 3, 7>, <2: 1, 5>, <3: 0, 4>, <1: 2, 6> with unrestricted minimal
    // routing, each head taking the channel around the 0-2-3-1 face.
    let lists: [(u32, [u32; 2], [u32; 4]); 4] = [
        (0, [3, 7], [0, 2, 3, 7]),
        (2, [1, 5], [2, 3, 1, 5]),
        (3, [0, 4], [3, 1, 0, 4]),
        (1, [2, 6], [1, 0, 2, 6]),
    ];
    let mut s = system(3, Routing::Minimal, cfg(PortModel::AllPort, 2));
    for (src, list, path) in &lists {
        s.send_pinned(*src, list, 64, path).unwrap();
    }
    let r = deadlock_report(&mut s);
    assert_eq!(
        r.channels,
        ["c[2->3 d0+]", "c[3->1 d1-]", "c[1->0 d0-]", "c[0->2 d1+]"],
        "{r}"
    );
    assert!(
        r.channels.iter().all(|c| c.starts_with("c[")),
        "only external channels"
    );
    assert_eq!(r.steps.len(), 4);

    // The same deadlock with `<2: 1, 5>` one data flit long: the whole worm
    // (two header flits in the latch, its tail in the buffer) leaves router 2
    // and waits at router 3, so `c[2->3]` has no owner; but its buffer
    // still holds the worm, so the channel is not granted again, and the
    // worm from 0 waits for it there. The watchdog names that wait too.
    let mut s = system(3, Routing::Minimal, cfg(PortModel::AllPort, 2));
    for (src, list, path) in &lists {
        let payload = if *src == 2 { 1 } else { 64 };
        s.send_pinned(*src, list, payload, path).unwrap();
    }
    let r = deadlock_report(&mut s);
    assert_eq!(
        r.channels,
        ["c[2->3 d0+]", "c[3->1 d1-]", "c[1->0 d0-]", "c[0->2 d1+]"],
        "{r}"
    );
    // Port 0 of a hypercube router is dimension 0.
    assert_eq!(s.fabric().channel_name(2, 0), "c[2->3 d0+]");
    assert_eq!(s.routers()[2].owner(0), None, "{r}");
    assert_eq!(s.routers()[3].worm_at(0), Some(1), "{r}");
    let step = &r.steps[0];
    assert_eq!(
        (step.worm, step.waits_for.as_str(), step.held_by),
        (0, "c[2->3 d0+]", 1),
        "{r}"
    );

    // The same lists are natural lists: under Restriction 2 they complete,
    // one-port and all-port; so they do under e-cube and Restriction 1.
    for (routing, ports) in [
        (Routing::Restriction2, PortModel::OnePort),
        (Routing::Restriction2, PortModel::AllPort),
        (Routing::Restriction1, PortModel::AllPort),
        (Routing::Ecube, PortModel::AllPort),
    ] {
        let mut s = system(3, routing, cfg(ports, 2));
        for (src, list, _) in &lists {
            assert_eq!(natural_list(list), list.to_vec());
            s.send(*src, list, 64).unwrap();
        }
        s.run_until_delivered(100_000).unwrap();
        for w in s.finished() {
            check_route(w, routing);
        }
        assert_eq!(s.stats().completed, 4);
    }
    // The figure's paths are not all legal under Restriction 2.
    let mut s = system(3, Routing::Restriction2, cfg(PortModel::AllPort, 2));
    let e = s
        .send_pinned(2, &[1, 5], 64, &[2, 3, 1, 5])
        .unwrap_err()
        .to_string();
    assert!(e.contains("2 -> 3 is not a legal channel toward 1"), "{e}");
}

#[test]
fn fig4_illegal_list_is_refused_before_injection() {
    let mut s = system(3, Routing::Ecube, cfg(PortModel::OnePort, 2));
    let e = s.send(0, &[7, 6], 8).unwrap_err().to_string();
    assert_eq!(
        e,
        "bad packet: the multicast list <0: 7, 6> is illegal under e-cube routing: arriving at 7 on c[3->7 d2+], no legal channel toward 6"
    );
    assert_eq!(s.in_flight(), 0, "nothing was queued");
    // Other bad input, each named.
    assert_eq!(
        s.send(0, &[9], 8).unwrap_err().to_string(),
        "node 9 does not exist (the network has nodes 0 to 7)"
    );
    assert!(
        s.send(0, &[3], 0)
            .unwrap_err()
            .to_string()
            .contains("at least one data flit")
    );
    let f = Arc::new(CubeFabric {
        cube: Hypercube::new(3).unwrap(),
        routing: Routing::Restriction2,
    });
    let e = DirectSystem::new(f.clone(), &cfg(PortModel::OnePort, 0))
        .err()
        .unwrap();
    assert!(e.to_string().contains("buffer_flits = 0"), "{e}");
    let e = DirectSystem::new(f, &cfg(PortModel::Ports(4), 2))
        .err()
        .unwrap();
    assert!(
        e.to_string().contains("1 to 3 internal channel pairs"),
        "{e}"
    );
}

#[test]
fn fig5_routes_taken_are_among_the_papers_paths() {
    // Adaptive choices depend on which channels are free; over many
    // background loads, every route <0: 3, 6, 7> takes is one of the three
    // of Fig. 5, and more than one of them occurs.
    let paper = [
        vec![0, 1, 3, 2, 6, 7],
        vec![0, 1, 3, 7, 6, 7],
        vec![0, 2, 3, 7, 6, 7],
    ];
    let mut seen = std::collections::BTreeSet::new();
    for blocker in [
        None,
        Some((0u32, 1u32)),
        Some((1, 3)),
        Some((3, 2)),
        Some((0, 2)),
    ] {
        let mut s = system(3, Routing::Restriction2, cfg(PortModel::AllPort, 2));
        if let Some((a, b)) = blocker {
            s.send_pinned(a, &[b], 200, &[a, b]).unwrap();
            s.run(1).unwrap();
        }
        let tag = s.send(0, &[3, 6, 7], 8).unwrap();
        s.run_until_delivered(10_000).unwrap();
        let w = s.finished().iter().find(|w| w.tag == tag).unwrap();
        check_route(w, Routing::Restriction2);
        assert!(paper.contains(&w.route), "{:?}", w.route);
        seen.insert(w.route.clone());
    }
    assert!(seen.len() >= 2, "{seen:?}");
}

fn saturate(ports: PortModel, cycles: u64) {
    let mut s = system(
        6,
        Routing::Restriction2,
        DirectConfig {
            ports,
            keep_worms: false,
            seed: 7,
            ..Default::default()
        },
    );
    s.set_traffic(DirectTraffic {
        rate: 0.02,
        min_dests: 1,
        max_dests: 12,
        payload: 16,
        queue_cap: 4,
    })
    .unwrap();
    s.run(cycles).unwrap();
    s.stop_traffic();
    let end = s.run_until_delivered(1_000_000).unwrap();
    let st = s.stats().clone();
    // Past saturation: sources refused multicasts because their queues were
    // full; yet every accepted multicast reached every destination once.
    assert!(st.refused > st.created / 10, "{ports:?}: {st:?}");
    assert_eq!(st.completed, st.created, "{ports:?}: {st:?}");
    assert!(s.is_quiet());
    eprintln!("{ports:?}: {st:?}, drained at {end}");
}

#[test]
fn random_natural_list_traffic_past_saturation_one_port() {
    saturate(PortModel::OnePort, 1_000_000);
}

#[test]
fn random_natural_list_traffic_past_saturation_all_port() {
    saturate(PortModel::AllPort, 1_000_000);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// Random multicasts with natural lists, injected at random cycles on a
    /// 4-cube with random buffer sizes: every copy arrives exactly once and
    /// every hop obeys Restriction 2.
    #[test]
    fn natural_lists_deliver_exactly_once(
        sets in proptest::collection::vec((0u32..16, proptest::collection::btree_set(0u32..16, 1..8), 0u64..40, 1u32..20), 1..12),
        buffer in 1u32..5,
        all_port in any::<bool>(),
    ) {
        let ports = if all_port { PortModel::AllPort } else { PortModel::OnePort };
        let mut s = system(4, Routing::Restriction2, cfg(ports, buffer));
        let mut sets = sets;
        sets.sort_by_key(|x| x.2);
        let mut expected = 0u64;
        for (src, dests, at, len) in sets {
            let dests: Vec<u32> = dests.into_iter().filter(|&d| d != src).collect();
            if dests.is_empty() { continue; }
            if s.cycle() < at { s.run(at - s.cycle()).unwrap(); }
            s.send(src, &natural_list(&dests), len).unwrap();
            expected += dests.len() as u64;
        }
        s.run_until_delivered(100_000).unwrap();
        prop_assert_eq!(s.stats().copies, expected);
        for w in s.finished() {
            check_route(w, Routing::Restriction2);
        }
        prop_assert!(s.is_quiet());
    }
}

#[test]
fn waveform_of_a_unicast_through_two_routers() {
    use wormcast::rtl::trace::MemorySink;
    // 0 -> 3 on a 2-cube, 3 data flits, 3-flit buffers: the head leaves
    // router 0 on dimension 0 in cycle 4 (on the link during 5), router 1
    // latches it in 5 and 6, decodes in 7 and sends it on in 8; router 3
    // hands it to the processor on its consumption channel (output 2)
    // during 13 to 16: header [0] and the 3 data flits.
    let mut s = system(2, Routing::Restriction2, cfg(PortModel::OnePort, 3));
    let mem = MemorySink::new();
    s.attach_tracer(Box::new(mem.clone()), 5_000).unwrap();
    s.send(0, &[3], 3).unwrap();
    s.run_until_delivered(100).unwrap();
    s.run(3).unwrap();
    s.finish_trace().unwrap();
    let v = |p: &str| mem.history(p);
    let bits = |x: u64, w: usize| format!("{x:0w$b}");
    assert_eq!(
        v("top.r0.out0.valid"),
        [(0, "0".into()), (5, "1".into()), (10, "0".into())]
    );
    let data: Vec<(u64, String)> = v("top.r0.out0.data");
    assert_eq!(data[1], (5, bits(1, 8)), "count flit");
    assert_eq!(data[2], (6, bits(3, 8)), "address flit");
    assert_eq!(
        v("top.r1.in0.state"),
        [
            (0, "00".into()),
            (6, "01".into()),
            (8, "10".into()),
            (13, "00".into())
        ]
    );
    assert_eq!(
        v("top.r1.out1.valid"),
        [(0, "0".into()), (9, "1".into()), (14, "0".into())]
    );
    assert_eq!(
        v("top.r3.out2.valid"),
        [(0, "0".into()), (13, "1".into()), (17, "0".into())]
    );
    assert_eq!(
        v("top.p3.ej0.busy"),
        [(0, "0".into()), (14, "1".into()), (17, "0".into())]
    );
    assert_eq!(s.finished()[0].deliveries[0].head, 13);
}

/// The case the proptest above found in CI (November 29): five multicasts
/// on a one-port 4-cube with 2-flit buffers. When a router granted a channel
/// again as soon as the last worm's tail had been sent on it, they stalled
/// for good: worm `<11: 1, 2>` was granted router 1's output to node 0 while
/// worm `<13: 0, 1, 2, 3>`'s tail was still in router 0's buffer behind it,
/// and held node 1's consumption channel, which `<13: 0, 1, 2, 3>`'s head
/// (back at router 1) waited for. With the channel held until the tail has
/// left its buffer (seed 001's channel-waiting graph), `<11: 1, 2>` takes
/// another legal channel, or waits for one, and every copy arrives.
#[test]
fn natural_lists_regression_one_port_2_flit_buffers() {
    let mut s = system(4, Routing::Restriction2, cfg(PortModel::OnePort, 2));
    let mut sets: Vec<(u32, Vec<u32>, u64, u32)> = vec![
        (11, vec![1, 2], 9, 7),
        (13, vec![0, 1, 2, 3], 2, 2),
        (2, vec![0, 1], 0, 7),
        (5, vec![1, 2], 0, 8),
        (9, vec![2], 2, 10),
    ];
    sets.sort_by_key(|x| x.2);
    let mut expected = 0u64;
    for (src, dests, at, len) in sets {
        if s.cycle() < at {
            s.run(at - s.cycle()).unwrap();
        }
        s.send(src, &natural_list(&dests), len).unwrap();
        expected += dests.len() as u64;
    }
    let end = s.run_until_delivered(100_000).unwrap();
    assert_eq!(s.stats().copies, expected);
    assert_eq!(end, 79);
    // `<11: 1, 2>` leaves node 1 on the positive channel of dimension 1
    // (seed 001's proof of Theorem 5), not on `c[1->0]`.
    let w = s.finished().iter().find(|w| w.src == 11).unwrap();
    assert_eq!(w.route, [11, 3, 1, 3, 2]);
    for w in s.finished() {
        check_route(w, Routing::Restriction2);
    }
}

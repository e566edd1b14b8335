//! Meshes with dimension-order routing and the pseudo-multicast baseline
//! (seed 003 section 3.4): every copy once, every hop X-first, no deadlock
//! past saturation.

use std::sync::Arc;
use wormcast::direct::{
    DirectConfig, DirectSystem, DirectTraffic, DorMesh, PortModel, pseudo_multicast,
};

#[test]
fn pseudo_multicast_reaches_every_destination_once_by_x_first_routes() {
    let m = DorMesh::new(8, 8, 1).unwrap();
    let mut s = DirectSystem::new(Arc::new(m), &DirectConfig::default()).unwrap();
    let dests = [0, 7, 9, 36, 63, 56, 27];
    s.send_multicast(28, &pseudo_multicast(&dests), 1).unwrap();
    s.run_until_delivered(10_000).unwrap();
    assert_eq!(s.finished().len(), dests.len());
    for w in s.finished() {
        let (a, b) = (m.coords(w.src), m.coords(w.list[0]));
        let dist = a[0].abs_diff(b[0]) + a[1].abs_diff(b[1]);
        assert_eq!(w.route.len() as u32 - 1, dist, "minimal");
        // x settles before y moves.
        let ys: Vec<u32> = w.route.iter().map(|&n| m.coords(n)[1]).collect();
        let first_y_move = ys.windows(2).position(|p| p[0] != p[1]);
        if let Some(i) = first_y_move {
            assert!(
                w.route[i..].iter().all(|&n| m.coords(n)[0] == b[0]),
                "{:?}",
                w.route
            );
        }
    }
    assert_eq!(s.stats().completed, 1);
    assert_eq!(s.stats().copies, dests.len() as u64);
}

#[test]
fn pseudo_multicast_traffic_past_saturation_on_a_2d_and_a_3d_mesh() {
    for (m, ports) in [
        (DorMesh::new(8, 8, 1).unwrap(), PortModel::OnePort),
        (DorMesh::new(4, 4, 4).unwrap(), PortModel::AllPort),
    ] {
        let mut s = DirectSystem::new(
            Arc::new(m),
            &DirectConfig {
                ports,
                keep_worms: false,
                ..Default::default()
            },
        )
        .unwrap();
        s.set_planner(Arc::new(|_, d: &[u32]| pseudo_multicast(d)));
        s.set_traffic(DirectTraffic {
            rate: 0.05,
            min_dests: 4,
            max_dests: 25,
            payload: 1,
            queue_cap: 32,
        })
        .unwrap();
        s.run(300_000).unwrap();
        s.stop_traffic();
        s.run_until_delivered(1_000_000).unwrap();
        let st = s.stats();
        assert!(st.refused > st.created / 10, "past saturation: {st:?}");
        assert_eq!(st.completed, st.created);
        assert!(s.is_quiet());
    }
}

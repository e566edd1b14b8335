//! The seed 002 experiments, reduced: every point runs, the files are
//! written, and the robust trends hold.

use wormcast::experiment::mesh::{MeshOptions, options, run, write_outputs};

#[test]
fn quick_sweep_writes_files_and_shows_the_trends() {
    let o = MeshOptions {
        cycles: 10_000,
        warmup: 2_000,
        ..options(true)
    };
    let pts = run(&o, &|| {}).unwrap();
    assert_eq!(pts.len(), 2 * (3 * 2 * 2 + 2 * 2 * 2));
    let dir = std::env::temp_dir().join(format!("wormcast-mesh-exp-{}", std::process::id()));
    write_outputs(&pts, &dir).unwrap();
    for f in [
        "mesh_load.csv",
        "mesh_dests.csv",
        "mesh_load.svg",
        "mesh_load.png",
        "mesh_dests.png",
    ] {
        assert!(dir.join(f).metadata().unwrap().len() > 0, "{f}");
    }
    let csv = std::fs::read_to_string(dir.join("mesh_load.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 24);
    let find = |exp: &str, beta: u64, len: u32, algo: &str, pick: fn(f64, f64) -> bool| {
        pts.iter()
            .filter(|p| p.experiment == exp && p.beta == beta && p.length == len && p.algo == algo)
            .fold(
                None::<&wormcast::experiment::mesh::MeshPoint>,
                |a, p| match a {
                    Some(q) if !pick(p.rate, q.rate) => Some(q),
                    _ => Some(p),
                },
            )
            .unwrap()
    };
    for beta in [10, 100] {
        for algo in ["tp", "sp"] {
            // Light load with 1-flit messages is unsaturated, and latency
            // grows with the load.
            let lo = find("load", beta, 1, algo, |a, b| a < b);
            let hi = find("load", beta, 1, algo, |a, b| a > b);
            assert!(!lo.saturated && lo.measured > 100, "{lo:?}");
            assert!(hi.mean_latency > lo.mean_latency, "{lo:?} {hi:?}");
        }
    }
    // SP's shorter paths win for short messages and a small startup latency.
    let tp = find("load", 10, 1, "tp", |a, b| a < b);
    let sp = find("load", 10, 1, "sp", |a, b| a < b);
    assert!(sp.mean_latency < tp.mean_latency, "{tp:?} {sp:?}");
}

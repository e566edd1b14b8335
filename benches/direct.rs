//! Simulation speed of the direct-network model (seed 001): a 6-cube
//! (64 routers, 2-flit buffers, Restriction 2), random multicast traffic
//! with natural lists (1 to 12 destinations, 16 data flits) at 0.002 and
//! 0.02 multicasts per node per cycle (the second far past saturation),
//! one-port and all-port, 20,000 cycles from a cold start. Throughput is in
//! simulated cycles per second.
//!
//! `cargo bench --bench direct`

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use std::sync::Arc;
use wormcast::direct::{
    CubeFabric, DirectConfig, DirectSystem, DirectTraffic, Hypercube, PortModel, Routing,
};

const CYCLES: u64 = 20_000;

fn system(ports: PortModel, rate: f64) -> DirectSystem {
    let f = Arc::new(CubeFabric {
        cube: Hypercube::new(6).unwrap(),
        routing: Routing::Restriction2,
    });
    let mut s = DirectSystem::new(
        f,
        &DirectConfig {
            ports,
            keep_worms: false,
            ..Default::default()
        },
    )
    .unwrap();
    s.set_traffic(DirectTraffic {
        rate,
        min_dests: 1,
        max_dests: 12,
        payload: 16,
        queue_cap: 4,
    })
    .unwrap();
    s
}

fn cube(c: &mut Criterion) {
    let mut g = c.benchmark_group("hypercube6");
    g.throughput(Throughput::Elements(CYCLES));
    g.sample_size(10);
    for (name, ports) in [
        ("one_port", PortModel::OnePort),
        ("all_port", PortModel::AllPort),
    ] {
        for rate in [0.002, 0.02] {
            g.bench_function(format!("{name}_rate{rate}"), |b| {
                b.iter_batched(
                    || system(ports, rate),
                    |mut s| {
                        s.run(CYCLES).unwrap();
                        s
                    },
                    BatchSize::LargeInput,
                )
            });
        }
    }
    g.finish();
}

// Criterion's own charts need a system font that plotters, built here with
// an embedded font only, cannot find; the figures are in the text report.
criterion_group! {
    name = benches;
    config = Criterion::default().without_plots();
    targets = cube
}
criterion_main!(benches);

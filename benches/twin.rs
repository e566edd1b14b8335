//! The units with Verilog twins driven port by port, as a testbench's
//! scoreboard drives them (`switch::twin::drive::Driver`: the Python
//! package's and the C ABI's core): one rising edge after setting the
//! inputs that change each cycle, on the testbenches' stimulus. Throughput
//! in clock edges.
//!
//! `cargo bench --bench twin`. The Python package's own figure (its batch
//! call, conversions included) is `python/benches/batch.py`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use wormcast::switch::twin::drive::Driver;
use wormcast::switch::twin::{Dir, Params, Unit};

fn drive(c: &mut Criterion) {
    let mut g = c.benchmark_group("twin");
    let p = Params::default();
    for unit in Unit::ALL {
        let vectors = unit.vectors(&p, 4096, 7).expect("stimulus");
        let mut d = Driver::new(unit, &p).expect("unit");
        let inputs: Vec<usize> = (0..d.ports().len())
            .filter(|&k| d.ports()[k].dir == Dir::In)
            .collect();
        g.throughput(Throughput::Elements(vectors.len() as u64));
        g.bench_function(unit.name(), |b| {
            b.iter(|| {
                for v in &vectors {
                    for (k, &port) in inputs.iter().enumerate() {
                        d.set_index(port, v[k].words()).expect("fits");
                    }
                    d.step();
                    black_box(d.outputs());
                }
            })
        });
    }
    g.finish();
}

criterion_group!(benches, drive);
criterion_main!(benches);

//! VCD reading speed: a ~100 MB dump of the headline network (every
//! register of `benches/anynet8x4.toml` under 1-flit uniform traffic at 0.1,
//! 45,000 cycles) read as a stream, every event decoded. Throughput is in
//! bytes of VCD per second.
//!
//! `cargo bench --bench vcd`. The dump is written once to the system's
//! temporary directory and reused.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::path::PathBuf;
use wormcast::net::Network;
use wormcast::sim::{SimConfig, System, Traffic};
use wormcast::wave::{Event, VcdReader, VcdWriter};

fn dump() -> PathBuf {
    let path = std::env::temp_dir().join("wormcast-bench-100mb.vcd");
    if path.exists() {
        return path;
    }
    let net = Network::load(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/benches/anynet8x4.toml"
    ))
    .expect("benchmark network");
    let mut sys =
        System::new(&net, &SimConfig::default(), &Traffic::uniform(0.1, 1)).expect("system");
    sys.attach_tracer(Box::new(VcdWriter::create(&path).expect("temp file")))
        .expect("tracer");
    sys.run(45_000).expect("runs");
    sys.finish_trace().expect("flushed");
    path
}

fn read_all(path: &PathBuf) -> u64 {
    let mut r = VcdReader::open(path).expect("readable");
    let mut n = 0u64;
    while let Some(e) = r.next_event().expect("valid") {
        n += match e {
            Event::Time(t) => t & 1,
            Event::Logic { bits, .. } => bits.len() as u64,
            _ => 1,
        };
    }
    n
}

fn speed(c: &mut Criterion) {
    let path = dump();
    let bytes = std::fs::metadata(&path).expect("dump").len();
    let mut g = c.benchmark_group("vcd_read");
    g.throughput(Throughput::Bytes(bytes));
    g.sample_size(10);
    g.bench_function(format!("{}MB", bytes / 1_000_000), |b| {
        b.iter(|| black_box(read_all(&path)))
    });
    g.finish();
}

// Criterion's own charts need a system font that plotters, built here with
// an embedded font only, cannot find; the figures are in the text report.
criterion_group! {
    name = benches;
    config = Criterion::default().without_plots();
    targets = speed
}
criterion_main!(benches);

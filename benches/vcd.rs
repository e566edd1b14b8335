//! Waveform reading and comparing speed.
//!
//! - `read`: a ~100 MB VCD dump of the headline network (every register of
//!   `benches/anynet8x4.toml` under 1-flit uniform traffic at 0.1, 45,000
//!   cycles, written by `run --vcd`) read as a stream, every event decoded:
//!   by wormcast's own reader, and by the `wellen` crate's streaming
//!   reader on the same file (the measurement behind keeping wormcast's
//!   reader for VCD; docs/cosim.md). Throughput in bytes of VCD.
//! - `diff`: `wave diff` of that dump with itself, and of the same run
//!   written as FST with itself, signal by signal as the command-line tool
//!   does and through the streaming diff (docs/cosim.md's targets).
//! - `signals`: a diff of two dumps of 100,000 signals (each changing at
//!   50 of 1,000 times): the cost in the number of signals.
//!
//! `cargo bench --bench vcd`. The dumps are written once to the system's
//! temporary directory and reused.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use wormcast::net::Network;
use wormcast::sim::{SimConfig, System, Traffic};
use wormcast::wave::{DiffOptions, Event, WaveReader, diff, diff_files};

#[path = "../examples/wave_scale.rs"]
mod scale;
use scale::many_signals;

fn dump(ext: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("wormcast-bench-100mb.{ext}"));
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
    sys.attach_tracer(wormcast::wave::create(&path, "bench").expect("temp file"))
        .expect("tracer");
    sys.run(45_000).expect("runs");
    sys.finish_trace().expect("flushed");
    path
}

fn read_all(path: &Path) -> u64 {
    let mut r = WaveReader::open(path).expect("readable");
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

fn read_all_wellen(path: &Path) -> u64 {
    let mut w =
        wellen::stream::read_from_file(path, &wellen::LoadOptions::default()).expect("readable");
    let mut n = 0u64;
    w.stream_changes::<()>(wellen::stream::Filter::all(), |_t, _s, v| {
        n += v.width().unwrap_or(1) as u64;
        Ok(())
    })
    .expect("valid");
    n
}

/// `wave diff FILE FILE` as the command-line tool runs it (two FST files
/// signal by signal).
fn diff_same(path: &Path) -> bool {
    diff_files(path, path, &DiffOptions::default(), |p| WaveReader::open(p))
        .expect("compared")
        .ok()
}

/// The same through the streaming diff, whatever the format.
fn diff_streaming(path: &Path) -> bool {
    let a = WaveReader::open(path).expect("readable");
    let b = WaveReader::open(path).expect("readable");
    diff(a, b, &DiffOptions::default()).expect("compared").ok()
}

fn speed(c: &mut Criterion) {
    let vcd = dump("vcd");
    let bytes = std::fs::metadata(&vcd).expect("dump").len();
    let mut g = c.benchmark_group("read");
    g.throughput(Throughput::Bytes(bytes));
    g.sample_size(10);
    g.bench_function(format!("wormcast_{}MB", bytes / 1_000_000), |b| {
        b.iter(|| black_box(read_all(&vcd)))
    });
    g.bench_function(format!("wellen_{}MB", bytes / 1_000_000), |b| {
        b.iter(|| black_box(read_all_wellen(&vcd)))
    });
    g.finish();

    let fst = dump("fst");
    let mut g = c.benchmark_group("diff");
    g.sample_size(10);
    g.bench_function("vcd_with_itself", |b| b.iter(|| assert!(diff_same(&vcd))));
    g.bench_function("fst_with_itself", |b| b.iter(|| assert!(diff_same(&fst))));
    g.bench_function("fst_with_itself_streaming", |b| {
        b.iter(|| assert!(diff_streaming(&fst)))
    });
    g.finish();

    let many = many_signals(100_000);
    let mut g = c.benchmark_group("signals");
    g.sample_size(10);
    g.throughput(Throughput::Elements(100_000));
    g.bench_function("diff_100k", |b| b.iter(|| assert!(diff_same(&many))));
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

//! Simulation speed on the headline case: the 32-node, 8-switch network of
//! `benches/anynet8x4.toml` (the same network BookSim2's anynet runs), uniform
//! random unicast traffic at 0.1 flits/node/cycle, 20-flit and 1-flit
//! packets, 100,000 cycles from a cold start. Throughput is in simulated
//! cycles per second.
//!
//! A multicast case: bit-string worms (5-flit header, 16 payload flits) to 4
//! random destinations at 0.02 flits/node/cycle offered (about 0.08
//! delivered).
//!
//! Tracing variants: `off` (no tracer: the cost the model pays for having
//! tracing at all), `null` (every change sampled, nothing written),
//! `handover` (every change sampled and handed to a thread that discards
//! it: what a waveform on its own thread costs the simulation's thread
//! before any encoding), `vcd`
//! (every register written as VCD to a discarding sink, encoded on the
//! simulation's thread), `vcd_thread` (the same, encoded on a thread of its
//! own), `fst` and `fst_thread` (every register written to an FST file in
//! the temporary directory; `fst_thread` is what `wormcast run --vcd
//! x.fst` does). `fst_thread_last_1000` writes only the last 1,000 cycles
//! (`--trace-from 99000`) and `fst_thread_sw0` only switch 0's registers
//! (`--trace-scope top.sw0`): the simulation samples nothing else. Every
//! traced case includes finishing the waveform.
//!
//! A long traced run: `anynet8x4_uniform_0.1_long/20flit/tracing_fst_thread`
//! runs 1,000,000 cycles into an FST on its own thread, finishing
//! included, as a user's long trace does: the fixed costs of a run (the
//! batches and the encoder's buffers growing from nothing, the writer
//! draining its queue and writing the last block at the end, about 5 ms)
//! weigh a tenth as much as in the 100,000-cycle runs above.
//!
//! NI multicast: one multicast from node 0 to the other 31 nodes through
//! hosts and network interfaces (seed 000 section 4, defaults of section
//! 6.2), 4 packets, FPFS over the optimal k-binomial tree on the POC
//! ordering, from the call to the last delivery (24,001 cycles, most of
//! them with every component paying an overhead and asleep).
//!
//! `cargo bench --bench sim`; `cargo run --release --example speed` prints
//! the same cases with flit-hops per second and peak memory.

use criterion::{BatchSize, Bencher, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use wormcast::header::Kind;
use wormcast::net::Network;
use wormcast::rtl::trace::NullSink;
use wormcast::sim::{SimConfig, System, Traffic};
use wormcast::wave::{Background, FstWriter, TraceLimits, VcdWriter};

const CYCLES: u64 = 100_000;

fn network() -> Network {
    Network::load(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/benches/anynet8x4.toml"
    ))
    .expect("benchmark network")
}

#[derive(Clone, Copy)]
enum Tracing {
    Off,
    Null,
    HandOver,
    Vcd,
    VcdThread,
    Fst,
    FstThread,
    /// `FstThread` limited to the last 1,000 cycles (`--trace-from`).
    FstThreadWindow,
    /// `FstThread` limited to switch 0 (`--trace-scope top.sw0`).
    FstThreadScope,
}

fn fst_path() -> std::path::PathBuf {
    std::env::temp_dir().join(format!("wormcast-bench-{}.fst", std::process::id()))
}

/// A writer to a new file at [`fst_path`]: the last iteration's file is
/// removed first. Truncating it instead would make ext4 write the whole
/// new file out when it is closed (`auto_da_alloc`, its guard for files
/// replaced by truncation), a cost of overwriting a file on that file
/// system, not of tracing (docs/performance-log.md, "The fixed costs of a
/// traced run").
fn new_fst() -> FstWriter {
    let path = fst_path();
    let _ = std::fs::remove_file(&path);
    FstWriter::create(path).expect("file")
}

/// `len` flits: a unicast packet; 0: bit-string worms instead.
fn system(net: &Network, len: u32, tracing: Tracing) -> System {
    let traffic = if len == 0 {
        Traffic::multicast(0.02, 16, 4, Kind::BitString)
    } else {
        Traffic::uniform(0.1, len)
    };
    let mut sys = System::new(net, &SimConfig::default(), &traffic).expect("valid system");
    match tracing {
        Tracing::Off => {}
        Tracing::Null => sys.attach_tracer(Box::new(NullSink)).expect("tracer"),
        Tracing::HandOver => sys
            .attach_tracer(Box::new(Background::new(Box::new(NullSink))))
            .expect("tracer"),
        Tracing::Vcd => sys
            .attach_tracer(Box::new(VcdWriter::new(std::io::sink())))
            .expect("tracer"),
        Tracing::VcdThread => sys
            .attach_tracer(Box::new(Background::new(Box::new(VcdWriter::new(
                std::io::sink(),
            )))))
            .expect("tracer"),
        Tracing::Fst => sys.attach_tracer(Box::new(new_fst())).expect("tracer"),
        Tracing::FstThread => sys
            .attach_tracer(Box::new(Background::new(Box::new(new_fst()))))
            .expect("tracer"),
        Tracing::FstThreadWindow | Tracing::FstThreadScope => {
            let limits = match tracing {
                Tracing::FstThreadWindow => TraceLimits {
                    from: CYCLES - 1_000,
                    ..TraceLimits::default()
                },
                _ => TraceLimits {
                    scopes: vec!["top.sw0".into()],
                    ..TraceLimits::default()
                },
            };
            let sink = limits
                .wrap(Box::new(Background::new(Box::new(new_fst()))))
                .expect("limits");
            sys.attach_tracer(sink).expect("tracer")
        }
    }
    sys
}

/// Times `cycles` cycles of a new system (built outside the timing) and
/// finishing its waveform.
fn run_from_cold(b: &mut Bencher, net: &Network, len: u32, tracing: Tracing, cycles: u64) {
    b.iter_batched(
        || system(net, len, tracing),
        |mut sys| {
            sys.run(cycles).expect("runs");
            sys.finish_trace().expect("waveform finished");
            black_box(sys.flit_hops())
        },
        BatchSize::LargeInput,
    )
}

fn speed(c: &mut Criterion) {
    let net = network();
    let mut g = c.benchmark_group("anynet8x4_uniform_0.1");
    g.throughput(Throughput::Elements(CYCLES));
    g.sample_size(20);
    for (name, len, tracing) in [
        ("20flit/tracing_off", 20, Tracing::Off),
        ("1flit/tracing_off", 1, Tracing::Off),
        ("20flit/tracing_null", 20, Tracing::Null),
        ("20flit/tracing_handover", 20, Tracing::HandOver),
        ("20flit/tracing_vcd", 20, Tracing::Vcd),
        ("20flit/tracing_vcd_thread", 20, Tracing::VcdThread),
        ("20flit/tracing_fst", 20, Tracing::Fst),
        ("20flit/tracing_fst_thread", 20, Tracing::FstThread),
        (
            "20flit/tracing_fst_thread_last_1000",
            20,
            Tracing::FstThreadWindow,
        ),
        ("20flit/tracing_fst_thread_sw0", 20, Tracing::FstThreadScope),
        ("1flit/tracing_vcd", 1, Tracing::Vcd),
        ("1flit/tracing_vcd_thread", 1, Tracing::VcdThread),
        ("bitstring_deg4/tracing_off", 0, Tracing::Off),
    ] {
        g.bench_function(name, |b| run_from_cold(b, &net, len, tracing, CYCLES));
    }
    g.finish();
    let _ = std::fs::remove_file(fst_path());
}

/// Cycles of the long traced run.
const LONG_CYCLES: u64 = 1_000_000;

fn long_traced(c: &mut Criterion) {
    let net = network();
    let mut g = c.benchmark_group("anynet8x4_uniform_0.1_long");
    g.throughput(Throughput::Elements(LONG_CYCLES));
    g.sample_size(10);
    g.measurement_time(std::time::Duration::from_secs(12));
    g.bench_function("20flit/tracing_fst_thread", |b| {
        run_from_cold(b, &net, 20, Tracing::FstThread, LONG_CYCLES)
    });
    g.finish();
    let _ = std::fs::remove_file(fst_path());
}

fn ni_multicast(c: &mut Criterion) {
    use wormcast::mcast::{Discipline, Tree, optimal_k, poc_order};
    use wormcast::net::{IrregularParams, UpDown};
    use wormcast::ni::Scheme;
    use wormcast::sim::NodeModel;
    let net = Network::new(
        &IrregularParams::default()
            .generate()
            .expect("default network"),
    )
    .expect("default network");
    let dests: Vec<u32> = (1..32).collect();
    let order = poc_order(&net, &UpDown::new(&net), 0, &dests)
        .expect("order")
        .order;
    let tree = Tree::kbinomial(&order, optimal_k(32, 4).expect("k").k).expect("tree");
    let cfg = SimConfig {
        node_model: NodeModel::Ni,
        ..SimConfig::default()
    };
    let scheme = Scheme::SmartNi(Discipline::Fpfs);
    let mut g = c.benchmark_group("ni_multicast_32_nodes_4_packets");
    g.sample_size(20);
    g.bench_function("fpfs_optimal_k", |b| {
        b.iter_batched(
            || System::new(&net, &cfg, &Traffic::Idle).expect("system"),
            |mut sys| {
                let id = sys.multicast(tree.clone(), 4, scheme).expect("multicast");
                black_box(
                    sys.finish_multicast(id, 1_000_000)
                        .expect("finishes")
                        .latency,
                )
            },
            BatchSize::LargeInput,
        )
    });
    g.finish();
}

// Criterion's own charts need a system font that plotters, built here with
// an embedded font only, cannot find; the figures are in the text report.
criterion_group! {
    name = benches;
    config = Criterion::default().without_plots();
    targets = speed, long_traced, ni_multicast
}
criterion_main!(benches);

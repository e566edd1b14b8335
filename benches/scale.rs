//! How the cost grows with the network (docs/performance.md, "Scale"):
//! generated irregular networks of 8-port switches with 4 nodes each (seed
//! 000 section 6.3's generator, seed 1), 20-flit uniform unicast traffic at
//! about half of each size's saturation load.
//!
//! - `setup/S`: generating, checking and building a network of S switches
//!   (routing tables included), ready to run; `setup/file_4096`: the same
//!   4,096-switch network read from its topology file's text instead of
//!   generated (what `wormcast run --topology net.toml` does).
//! - `flit_hop/S`: 20,000 cycles from a cold start; throughput in flit-hops
//!   (the time per element is the cost per flit-hop).
//! - `flit_hop_warm/S` (8 and 1,024): the next 20,000 cycles of a network
//!   that has run 20,000 already (untimed): the cost per flit-hop in the
//!   steady state.
//! - `short_run/...`: a run of 64 cycles through the engine, as `wormcast
//!   run` times it (the network built and freed outside the time): 1,024
//!   switches of the irregular network at 0.0015, and a 128x128 mesh of
//!   tree routers (16,384) at 0.001; the run's fixed costs (its link
//!   counts, its report) dominate.
//! - `idle/1024`: 1,000,000 cycles of a 1,024-switch network with no
//!   traffic (skipped while nothing is scheduled), and of the same network
//!   at 0.00001 flits/node/cycle (a packet every 2,500 cycles or so).
//!
//! - `threads/...`: 20,000 cycles from a cold start on one thread and on
//!   two ([`SimConfig::threads`]): the 1,024-switch network at 0.0015 and
//!   0.0025 flits/node/cycle (its saturation is near 0.003), and a 32x32
//!   mesh of the same switches (up*/down* routing) at 0.05, about 60% of
//!   its saturation; and 500,000 cycles of the 1,024-switch network at
//!   0.0001, whose light cycles two threads run as one thread's.
//!
//! - `traced/...`: a large network traced to an FST file, every register
//!   (the network built outside the time; declaring the signals, the run
//!   and writing the file timed): 2,000 cycles of the 1,024-switch network
//!   at 0.0025, and 200 of the 4,096-switch one at 0.0004, whose frames
//!   are 4 G characters of bit strings 16,384 wide; then, for the
//!   4,096-switch trace, `views_4096`: its GTKWave and Surfer views (a
//!   million signals) written beside the file, and `diff_4096`: `wave
//!   diff` of that FST with itself.
//!
//! - `plan_1024/...`: planning one multicast to 16 destinations on the
//!   1,024-switch network (seed 000 section 5.2's path-based worms, Less
//!   Greedy): `kept/path-lg` by a [`Planner`] that keeps its ordering and
//!   path-check marks from one plan to the next, `fresh/path-lg` by
//!   [`Plan::new`], which lays the network out for the one plan; and
//!   `kept/ni-kbinomial`, the smart NIs' tree over the same ordering. The
//!   multicasts cycle through 64 drawn ahead.
//!
//! `cargo bench --bench scale`; `cargo run --release --example scale` prints
//! the same cases in one go (but the thread counts and the plans).

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use wormcast::engine::{self, Pattern, RunOptions, TopoSpec};
use wormcast::mcast::{Plan, PlanScheme, Planner};
use wormcast::net::{IrregularParams, Network, Topology};
use wormcast::sim::{SimConfig, System, Traffic};

fn network(switches: u32) -> Network {
    // The paper's 8-port switches, 80% connectivity, seed 1; 4 nodes each.
    let p = IrregularParams {
        switches,
        nodes: 4 * switches,
        ..IrregularParams::default()
    };
    Network::new(&p.generate().expect("generated")).expect("valid")
}

/// About half of the saturation load of each size (flits/node/cycle).
fn light_load(switches: u32) -> f64 {
    match switches {
        0..=8 => 0.1,
        9..=64 => 0.02,
        65..=256 => 0.005,
        _ => 0.0015,
    }
}

fn setup(c: &mut Criterion) {
    let mut g = c.benchmark_group("scale_setup");
    g.sample_size(10);
    for s in [1024u32, 4096] {
        g.bench_function(s.to_string(), |b| {
            b.iter(|| {
                let net = network(s);
                System::new(&net, &SimConfig::default(), &Traffic::Idle).expect("system")
            })
        });
    }
    let text = network(4096).topology().to_toml_string();
    g.bench_function("file_4096", |b| {
        b.iter(|| {
            let t = Topology::from_toml_str(&text).expect("parsed");
            let net = Network::new(&t).expect("valid");
            System::new(&net, &SimConfig::default(), &Traffic::Idle).expect("system")
        })
    });
    g.finish();
}

fn flit_hop(c: &mut Criterion) {
    flit_hops(c, "scale_flit_hop", &[8, 64, 256, 1024], 0);
}

/// The cost per flit-hop of a network already running: 20,000 cycles
/// after 20,000 of warm-up (untimed), so that neither the buffers' first
/// growth nor the network filling from empty is in the figure.
fn flit_hop_warm(c: &mut Criterion) {
    flit_hops(c, "scale_flit_hop_warm", &[8, 1024], 20_000);
}

/// Group `name`: per size, 20,000 cycles timed after `warmup` cycles run
/// in the untimed setup; throughput in the flit-hops of the timed cycles.
fn flit_hops(c: &mut Criterion, name: &str, sizes: &[u32], warmup: u64) {
    let mut g = c.benchmark_group(name);
    g.sample_size(10);
    const CYCLES: u64 = 20_000;
    for &s in sizes {
        let net = network(s);
        let traffic = Traffic::uniform(light_load(s), 20);
        let build = || {
            let mut sys = System::new(&net, &SimConfig::default(), &traffic).expect("system");
            sys.run(warmup).expect("runs");
            sys
        };
        let mut probe = build();
        let before = probe.flit_hops();
        probe.run(CYCLES).expect("runs");
        g.throughput(Throughput::Elements(probe.flit_hops() - before));
        g.bench_function(s.to_string(), |b| {
            b.iter_batched(
                build,
                |mut sys| {
                    sys.run(CYCLES).expect("runs");
                    // Returned, so that freeing it is not timed.
                    sys
                },
                BatchSize::LargeInput,
            )
        });
    }
    g.finish();
}

/// 64 cycles through the engine on a large network, built (and freed)
/// outside the time: what `wormcast run --cycles 64 --warmup 0` reports as
/// its wall time.
fn short_run(c: &mut Criterion) {
    let mut g = c.benchmark_group("scale_short_run");
    g.sample_size(10);
    const CYCLES: u64 = 64;
    g.throughput(Throughput::Elements(CYCLES));
    for (name, topo, load) in [
        (
            "irregular_1024",
            "irregular:switches=1024,ports=8,nodes=4096",
            0.0015,
        ),
        ("mesh_128x128_tree", "mesh:128x128", 0.001),
    ] {
        let spec = TopoSpec::parse(topo).expect("a topology");
        let o = RunOptions {
            pattern: Pattern::Uniform,
            load,
            packet: 20,
            warmup: 0,
            cycles: CYCLES,
            ..RunOptions::default()
        };
        g.bench_function(name, |b| {
            b.iter_batched(
                || engine::prepare(&spec, None, None, &o).expect("built"),
                |mut p| {
                    p.run(None).expect("runs");
                    // Returned, so that freeing it is not timed.
                    p
                },
                BatchSize::LargeInput,
            )
        });
    }
    g.finish();
}

fn idle(c: &mut Criterion) {
    let mut g = c.benchmark_group("scale_idle_1024");
    g.sample_size(10);
    const CYCLES: u64 = 1_000_000;
    g.throughput(Throughput::Elements(CYCLES));
    let net = network(1024);
    for (name, traffic) in [
        ("no_traffic", Traffic::Idle),
        ("load_1e-5", Traffic::uniform(1e-5, 20)),
    ] {
        g.bench_function(name, |b| {
            b.iter_batched(
                || System::new(&net, &SimConfig::default(), &traffic).expect("system"),
                |mut sys| {
                    sys.run(CYCLES).expect("runs");
                    // Returned, so that freeing it is not timed.
                    sys
                },
                BatchSize::LargeInput,
            )
        });
    }
    g.finish();
}

fn threads(c: &mut Criterion) {
    let mut g = c.benchmark_group("threads");
    g.sample_size(10);
    let mesh = wormcast::engine::TopoSpec::parse("mesh:32x32")
        .expect("a topology")
        .topology()
        .expect("a mesh");
    let mesh = Network::new(&mesh).expect("valid");
    let irregular = network(1024);
    for (name, net, load, cycles) in [
        ("irregular_1024_0.0001", &irregular, 0.0001, 500_000),
        ("irregular_1024_0.0015", &irregular, 0.0015, 20_000),
        ("irregular_1024_0.0025", &irregular, 0.0025, 20_000),
        ("mesh_32x32_0.05", &mesh, 0.05, 20_000),
    ] {
        for threads in [1, 2] {
            let cfg = SimConfig {
                threads,
                ..SimConfig::default()
            };
            let traffic = Traffic::uniform(load, 20);
            g.bench_function(format!("{name}/threads_{threads}"), |b| {
                b.iter_batched(
                    || System::new(net, &cfg, &traffic).expect("system"),
                    |mut sys| {
                        sys.run(cycles).expect("runs");
                        sys
                    },
                    BatchSize::LargeInput,
                )
            });
        }
    }
    g.finish();
}

fn traced(c: &mut Criterion) {
    use wormcast::wave::FstWriter;
    let mut g = c.benchmark_group("scale_traced");
    g.sample_size(10);
    let dir = std::env::temp_dir().join(format!("wormcast-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let path = dir.join("run.fst");
    for (switches, load, cycles) in [(1024, 0.0025, 2_000), (4096, 0.0004, 200)] {
        let net = network(switches);
        let traffic = Traffic::uniform(load, 20);
        g.throughput(Throughput::Elements(cycles));
        g.bench_function(format!("fst_{switches}"), |b| {
            b.iter_batched(
                || System::new(&net, &SimConfig::default(), &traffic).expect("system"),
                |mut sys| {
                    let w = FstWriter::create(&path).expect("a file");
                    sys.attach_tracer(Box::new(w)).expect("traced");
                    sys.run(cycles).expect("runs");
                    sys.finish_trace().expect("written");
                    sys
                },
                BatchSize::LargeInput,
            )
        });
    }
    // The last case's file again (so that either case runs alone), and
    // its hierarchy.
    let h = {
        let traffic = Traffic::uniform(0.0004, 20);
        let mut sys = System::new(&network(4096), &SimConfig::default(), &traffic).expect("system");
        let w = FstWriter::create(&path).expect("a file");
        sys.attach_tracer(Box::new(w)).expect("traced");
        sys.run(200).expect("runs");
        let h = sys.trace_hierarchy().cloned().expect("traced");
        sys.finish_trace().expect("written");
        h
    };
    g.throughput(Throughput::Elements(h.signals.len() as u64));
    g.bench_function("views_4096", |b| {
        b.iter(|| wormcast::wave::write_views(&path, &h).expect("views"))
    });
    g.throughput(Throughput::Elements(1));
    g.bench_function("diff_4096", |b| {
        b.iter(|| {
            let same = wormcast::wave::diff_files(&path, &path, &Default::default(), |p| {
                wormcast::wave::WaveReader::open(p)
            });
            assert!(same.expect("compared").ok());
        })
    });
    g.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

fn plan(c: &mut Criterion) {
    let net = network(1024);
    let planner = Planner::new(&net);
    let n = net.num_nodes() as u32;
    // 64 multicasts of 16 distinct destinations each, from a fixed draw.
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % n as u64) as u32
    };
    let casts: Vec<(u32, Vec<u32>)> = (0..64)
        .map(|_| {
            let src = next();
            let mut dests = Vec::new();
            while dests.len() < 16 {
                let d = next();
                if d != src && !dests.contains(&d) {
                    dests.push(d);
                }
            }
            (src, dests)
        })
        .collect();
    let builder = wormcast::link::WormBuilder::new(
        &net,
        std::sync::Arc::new(wormcast::net::RoutingTables::for_network(&net).1),
        wormcast::header::Formats::new(n, net.num_switches() as u32, net.max_ports()),
    );
    let mut g = c.benchmark_group("plan_1024");
    for (name, scheme) in [
        ("kept/path-lg", PlanScheme::PathLg),
        ("kept/ni-kbinomial", PlanScheme::NiKbinomial),
    ] {
        let mut i = 0;
        g.bench_function(name, |b| {
            b.iter(|| {
                let (src, dests) = &casts[i % casts.len()];
                i += 1;
                planner.plan(scheme, *src, dests, 4).expect("planned")
            })
        });
    }
    let mut i = 0;
    g.bench_function("fresh/path-lg", |b| {
        b.iter(|| {
            let (src, dests) = &casts[i % casts.len()];
            i += 1;
            Plan::new(
                &net,
                planner.updown(),
                &builder,
                PlanScheme::PathLg,
                *src,
                dests,
                4,
            )
            .expect("planned")
        })
    });
    g.finish();
}

// Criterion's own charts need a system font that plotters, built here with
// an embedded font only, cannot find; the figures are in the text report.
criterion_group! {
    name = benches;
    config = Criterion::default().without_plots();
    targets = setup, flit_hop, flit_hop_warm, short_run, idle, threads, traced, plan
}
criterion_main!(benches);

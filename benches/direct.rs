//! Simulation speed of the direct-network model (seed 001): a 6-cube
//! (64 routers, 2-flit buffers, Restriction 2), random multicast traffic
//! with natural lists (1 to 12 destinations, 16 data flits) at 0.002 and
//! 0.02 multicasts per node per cycle (the second far past saturation),
//! one-port and all-port, 20,000 cycles from a cold start. Throughput is in
//! simulated cycles per second.
//!
//! The same 6-cube through the engine (`hypercube6_path_12_0.01/...`):
//! path multicasts to 12 destinations at 0.01 flits per node per cycle,
//! 16-flit worms, under e-cube routing and Restriction 2; and to 3
//! destinations under unrestricted minimal routing
//! (`hypercube6_path_3_0.01/minimal`).
//!
//! Seed 002's multicasts through the engine
//! (`mesh16x16_hamiltonian_20_0.001/{tp,sp,gtdmpm}`): a 16x16 mesh under
//! the Hamiltonian routing function, all-port, 20 destinations at 0.001,
//! 16-flit worms, 20,000 cycles from a cold start.
//!
//! The tree-multicast routers of seed 003 (`tree/...`): 8x8 mesh and
//! 8x8x8 torus, tree with pruning and pseudo-multicast, 4-25 destinations,
//! 1 data flit, at a light load (0.02 copies per node per cycle) and far past
//! saturation (0.05 multicasts per node per cycle), 5,000 cycles from a
//! cold start.
//!
//! Uniform unicast on the 8x8 mesh through the engine (`mesh8x8_tree_...`
//! and `mesh8x8_wormhole_...`), the tree and the wormhole router, 0.1
//! flits per node per cycle, 20-flit packets and each router's shortest (2
//! and 3 flits), 100,000 cycles from a cold start.
//!
//! A 32x32 mesh (1,024 routers) through the engine on one and two threads
//! (`mesh32x32_tree_uniform_0.03/threads_N`): the tree router, uniform
//! unicast at 0.03 flits per node per cycle (about a third of its
//! saturation load), 20-flit packets, 20,000 cycles from a cold start; and
//! the wormhole router at 0.012 (`mesh32x32_wormhole_uniform_0.012/...`).
//! The two give the same results; the ratio of their times is the speed-up
//! of one simulation on two cores. The same mesh at a very light load
//! (`mesh32x32_{tree,wormhole}_uniform_0.00002/...`, 128-flit packets,
//! 2,000,000 cycles): one thread, two with the default hand-over (light
//! cycles stay on the calling thread) and two with every cycle handed over.
//!
//! Traced runs (`traced/...`): 16x16 meshes of wormhole and tree routers
//! written to an FST with its viewer files, and the set-up of a traced
//! 32x32 mesh.
//!
//! `cargo bench --bench direct`

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use std::sync::Arc;
use wormcast::direct::{
    CubeFabric, DirectConfig, DirectSystem, DirectTraffic, Grid, Hypercube, PortModel, Routing,
    Scheme, TreeConfig, TreeNet, TreeTraffic,
};
use wormcast::{engine, wave};

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

const TREE_CYCLES: u64 = 5_000;

fn tree_net(topo: &str, scheme: Scheme, rate: f64) -> TreeNet {
    let mut n = TreeNet::new(Grid::parse(topo).unwrap(), TreeConfig::default()).unwrap();
    n.set_traffic(TreeTraffic {
        rate,
        min_dests: 4,
        max_dests: 25,
        data: 1,
        scheme,
        queue_cap: 4,
    })
    .unwrap();
    n
}

fn tree(c: &mut Criterion) {
    let mut g = c.benchmark_group("tree");
    g.throughput(Throughput::Elements(TREE_CYCLES));
    g.sample_size(10);
    for topo in ["mesh:8x8", "torus:8x8x8"] {
        for scheme in [Scheme::Tree, Scheme::Pseudo] {
            // 0.02 copies per node per cycle at 14.5 destinations on average.
            for (load, rate) in [("light", 0.02 / 14.5), ("saturated", 0.05)] {
                let name = format!("{}_{}_{load}", topo.replace(':', "_"), scheme.name());
                g.bench_function(name, |b| {
                    b.iter_batched(
                        || tree_net(topo, scheme, rate),
                        |mut n| {
                            n.run(TREE_CYCLES).unwrap();
                            n
                        },
                        BatchSize::LargeInput,
                    )
                });
            }
        }
    }
    g.finish();
}

/// Benches one engine run per case of `group`: each case is its name and
/// the run's configuration file.
fn engine_runs(c: &mut Criterion, group: &str, cycles: u64, cases: &[(String, String)]) {
    let mut g = c.benchmark_group(group);
    g.throughput(Throughput::Elements(cycles));
    g.sample_size(10);
    for (name, text) in cases {
        let plan = engine::RunConfig::from_toml_str(text)
            .and_then(|c| c.plan())
            .expect("the bench's configuration");
        g.bench_function(name, |b| {
            b.iter(|| {
                engine::run(
                    &plan.topology,
                    plan.router,
                    plan.routing.as_deref(),
                    &plan.options,
                )
                .expect("runs")
            })
        });
    }
    g.finish();
}

/// The configuration of a run of `cycles` cycles of uniform unicast
/// `packet`-flit packets at `load` on `topology` with `router`, from a
/// cold start; `section` adds the router's own section (or nothing).
fn uniform(
    topology: &str,
    router: &str,
    section: &str,
    load: f64,
    packet: u32,
    cycles: u64,
) -> String {
    format!(
        "[network]\ntopology = \"{topology}\"\nrouter = \"{router}\"\n{section}\
         [traffic]\npattern = \"uniform\"\nload = {load}\npacket = {packet}\n\
         [stats]\ncycles = {cycles}\nwarmup = 0\n"
    )
}

/// Path multicasts on a 6-cube through the engine, as `wormcast run
/// --topology hypercube:6 --router wormhole --routing R --traffic
/// multicast --scheme path --degree 12 --load 0.01 --packet 16 --cycles
/// 20000 --warmup 0` runs them: each multicast's natural list cut into
/// legal worms as it is sent (under e-cube routing into several, under
/// Restriction 2 never).
fn cube_path(c: &mut Criterion) {
    let cases = ["ecube", "r2"].map(|routing| {
        let text = format!(
            "[network]\ntopology = \"hypercube:6\"\nrouter = \"wormhole\"\n\
             routing = \"{routing}\"\n[traffic]\npattern = \"multicast\"\nload = 0.01\n\
             packet = 16\nscheme = \"path\"\ndegree = 12\n\
             [stats]\ncycles = {CYCLES}\nwarmup = 0\n"
        );
        (routing.to_string(), text)
    });
    engine_runs(c, "hypercube6_path_12_0.01", CYCLES, &cases);
    // Unrestricted minimal routing, whose lists are not walked: fewer
    // destinations, as its path multicasts deadlock sooner with more.
    let text = format!(
        "[network]\ntopology = \"hypercube:6\"\nrouter = \"wormhole\"\n\
         routing = \"minimal\"\n[traffic]\npattern = \"multicast\"\nload = 0.01\n\
         packet = 16\nscheme = \"path\"\ndegree = 3\n\
         [stats]\ncycles = {CYCLES}\nwarmup = 0\n"
    );
    engine_runs(
        c,
        "hypercube6_path_3_0.01",
        CYCLES,
        &[("minimal".to_string(), text)],
    );
}

/// Seed 002's multicasts on a 16x16 mesh under the Hamiltonian routing
/// function through the engine, as `wormcast run --topology mesh:16x16
/// --router wormhole --routing hamiltonian --ports all-port --traffic
/// multicast --scheme S --degree 20 --load 0.001 --packet 16 --cycles
/// 20000 --warmup 0` runs them (below saturation): each multicast
/// planned into worms as it is sent, by dual-path (TP), multipath (SP)
/// and GTDMPM.
fn mesh_hamiltonian(c: &mut Criterion) {
    let cases = ["tp", "sp", "gtdmpm"].map(|scheme| {
        let text = format!(
            "[network]\ntopology = \"mesh:16x16\"\nrouter = \"wormhole\"\n\
             routing = \"hamiltonian\"\n[wormhole]\nports = \"all-port\"\n\
             [traffic]\npattern = \"multicast\"\nload = 0.001\npacket = 16\n\
             scheme = \"{scheme}\"\ndegree = 20\n[stats]\ncycles = {CYCLES}\nwarmup = 0\n"
        );
        (scheme.to_string(), text)
    });
    engine_runs(c, "mesh16x16_hamiltonian_20_0.001", CYCLES, &cases);
}

/// Uniform unicast on the 8x8 mesh through the engine, as `wormcast run
/// --topology mesh:8x8 --router R --traffic uniform --load 0.1 --packet N
/// --cycles 100000 --warmup 0` runs it: the mesh case, 20-flit
/// packets and the shortest each router model takes (the tree router's
/// header and one data flit; the wormhole router's count, address and one
/// data flit), with tree and with wormhole routers.
fn mesh_unicast(c: &mut Criterion) {
    const CYCLES: u64 = 100_000;
    for (router, shortest) in [("tree", 2), ("wormhole", 3)] {
        let cases = [20, shortest].map(|len| {
            let text = uniform("mesh:8x8", router, "", 0.1, len, CYCLES);
            (format!("{len}flit"), text)
        });
        engine_runs(c, &format!("mesh8x8_{router}_uniform_0.1"), CYCLES, &cases);
    }
}

/// One large network on one and on two threads: `wormcast run --topology
/// mesh:32x32 --router tree --traffic uniform --load 0.03 --packet 20
/// --cycles 20000 --warmup 0 --threads N`, and the same with wormhole
/// routers at 0.012 (about 60 % of their saturation load, near 0.02 with
/// their 2-flit buffers).
fn mesh_threads(c: &mut Criterion) {
    const CYCLES: u64 = 20_000;
    for (router, load) in [("tree", 0.03), ("wormhole", 0.012)] {
        let cases = [1, 2].map(|threads| {
            let section = format!("[{router}]\nthreads = {threads}\n");
            let text = uniform("mesh:32x32", router, &section, load, 20, CYCLES);
            (format!("threads_{threads}"), text)
        });
        engine_runs(
            c,
            &format!("mesh32x32_{router}_uniform_{load}"),
            CYCLES,
            &cases,
        );
    }
}

/// One large network so lightly loaded that most of its cycles are skipped
/// and the others hold a worm or two: `wormcast run --topology mesh:32x32
/// --router R --traffic uniform --load 0.00002 --cycles 2000000 --warmup
/// 0 --threads N [--hand-over always]`, on one thread, on two with the
/// default hand-over and on two with every cycle handed over
/// (docs/performance-log.md, "Light cycles on the calling thread").
fn mesh_threads_light(c: &mut Criterion) {
    const CYCLES: u64 = 2_000_000;
    for router in ["tree", "wormhole"] {
        let cases = [(1, "busy"), (2, "busy"), (2, "always")].map(|(threads, hand_over)| {
            let section = format!("[{router}]\nthreads = {threads}\nhand_over = \"{hand_over}\"\n");
            let text = uniform("mesh:32x32", router, &section, 0.00002, 128, CYCLES);
            (format!("threads_{threads}_{hand_over}"), text)
        });
        engine_runs(
            c,
            &format!("mesh32x32_{router}_uniform_0.00002"),
            CYCLES,
            &cases,
        );
    }
}

/// Seeds 001/002's wormhole routers through the engine at a light load,
/// where most routers are idle in most cycles: `wormcast run --topology
/// mesh:16x16 --router wormhole --traffic uniform --load 0.002 --packet 20
/// --cycles 20000 --warmup 0`, and the same with a start-up latency of
/// 2,000 cycles per worm (seed 002's beta), where every source spends most
/// cycles waiting.
fn mesh_wormhole(c: &mut Criterion) {
    const CYCLES: u64 = 20_000;
    let cases = [0, 2000].map(|beta| {
        let section = format!("[wormhole]\nstartup = {beta}\n");
        let text = uniform("mesh:16x16", "wormhole", &section, 0.002, 20, CYCLES);
        (format!("startup_{beta}"), text)
    });
    engine_runs(c, "mesh16x16_wormhole_uniform_0.002", CYCLES, &cases);
}

/// Traced runs of the direct networks as `wormcast run ... --vcd run.fst`
/// makes them (the FST on its writer thread, then its GTKWave and Surfer
/// views): uniform unicast of 20-flit packets at 0.02 on a 16x16 mesh of
/// wormhole and of tree routers, 20,000 cycles from a cold start; and 100
/// cycles of a 32x32 mesh of tree routers (18,432 signals), where
/// declaring the hierarchy and writing the views is most of the time.
fn traced(c: &mut Criterion) {
    let mut g = c.benchmark_group("traced");
    g.sample_size(10);
    let path = std::env::temp_dir().join(format!("wormcast-bench-{}.fst", std::process::id()));
    let cases = [
        ("mesh16x16_wormhole_0.02", "mesh:16x16", "wormhole", 20_000),
        ("mesh16x16_tree_0.02", "mesh:16x16", "tree", 20_000),
        ("mesh32x32_tree_0.02_setup", "mesh:32x32", "tree", 100),
    ];
    for (name, topology, router, cycles) in cases {
        let text = uniform(topology, router, "", 0.02, 20, cycles);
        let plan = engine::RunConfig::from_toml_str(&text)
            .and_then(|c| c.plan())
            .expect("the bench's configuration");
        g.throughput(Throughput::Elements(cycles));
        g.bench_function(name, |b| {
            b.iter(|| {
                // A new file each time (see benches/sim.rs on overwriting).
                let _ = std::fs::remove_file(&path);
                let sink = wave::create(&path, "").expect("a file");
                let (_, h) = engine::run_traced(
                    &plan.topology,
                    plan.router,
                    plan.routing.as_deref(),
                    &plan.options,
                    Some(sink),
                )
                .expect("runs");
                wave::write_views(&path, &h.expect("traced")).expect("views")
            })
        });
    }
    g.finish();
    for p in [
        path.clone(),
        path.with_extension("gtkw"),
        path.with_extension("sucl"),
    ] {
        let _ = std::fs::remove_file(p);
    }
}

// Criterion's own charts need a system font that plotters, built here with
// an embedded font only, cannot find; the figures are in the text report.
criterion_group! {
    name = benches;
    config = Criterion::default().without_plots();
    targets = cube, cube_path, mesh_hamiltonian, tree, mesh_unicast, mesh_threads, mesh_threads_light, mesh_wormhole, traced
}
criterion_main!(benches);

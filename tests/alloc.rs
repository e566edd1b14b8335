//! No allocation per flit, per packet or per cycle once a run is warm
//! (docs/performance.md, "What the hot path does"): each model that
//! generates its own traffic, run past its start and then counted by the
//! allocator call by call over thousands of cycles in which hundreds of
//! packets come and go.
//!
//! The allocator counts the calls of its own thread only, and the bytes
//! its thread holds, so the tests of this file may run side by side.
//! Memory that stays bounded however long a run goes is tested by those
//! bytes: the most a run holds at once.

use std::alloc::{GlobalAlloc, Layout, System as Heap};
use std::cell::Cell;
use std::sync::Arc;
use wormcast::direct::{
    CubeFabric, DirectConfig, DirectSystem, DirectTraffic, Grid, Hypercube, PortModel, Routing,
    Scheme, TreeConfig, TreeNet, TreeTraffic,
};
use wormcast::header::Kind;
use wormcast::net::Network;
use wormcast::sim::{SimConfig, System, Traffic};

/// The system allocator, counting each thread's calls.
struct Counting;

thread_local! {
    static CALLS: Cell<u64> = const { Cell::new(0) };
    /// Bytes allocated on this thread less those freed on it.
    static HELD: Cell<i64> = const { Cell::new(0) };
    /// The most `HELD` has been since [`peak_held`] last reset it.
    static PEAK: Cell<i64> = const { Cell::new(0) };
}

fn count() {
    // `try_with`: a thread being torn down has no counter, and needs none.
    let _ = CALLS.try_with(|c| c.set(c.get() + 1));
}

/// `bytes` more held on this thread (fewer when negative).
fn hold(bytes: i64) {
    let _ = HELD.try_with(|h| {
        let now = h.get() + bytes;
        h.set(now);
        let _ = PEAK.try_with(|p| p.set(p.get().max(now)));
    });
}

// SAFETY: every call is passed on to the system allocator unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        count();
        hold(l.size() as i64);
        // SAFETY: as the caller's.
        unsafe { Heap.alloc(l) }
    }

    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        count();
        hold(l.size() as i64);
        // SAFETY: as the caller's.
        unsafe { Heap.alloc_zeroed(l) }
    }

    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        hold(-(l.size() as i64));
        // SAFETY: as the caller's.
        unsafe { Heap.dealloc(p, l) }
    }

    unsafe fn realloc(&self, p: *mut u8, l: Layout, size: usize) -> *mut u8 {
        count();
        hold(size as i64 - l.size() as i64);
        // SAFETY: as the caller's.
        unsafe { Heap.realloc(p, l, size) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// This thread's allocations (and reallocations) while `f` runs.
fn allocations(f: impl FnOnce()) -> u64 {
    let before = CALLS.with(Cell::get);
    f();
    CALLS.with(Cell::get) - before
}

/// The most bytes this thread held at once while `f` ran, over what it
/// held before.
fn peak_held(f: impl FnOnce()) -> i64 {
    let before = HELD.with(Cell::get);
    PEAK.with(|p| p.set(before));
    f();
    PEAK.with(Cell::get) - before
}

/// The counter counts: a test of this file that finds 0 found it by
/// counting.
#[test]
fn the_counter_sees_an_allocation() {
    let n = allocations(|| {
        std::hint::black_box(vec![1u8; 100]);
    });
    assert_eq!(n, 1);
}

/// The bytes held are counted: a vector held while `f` runs is its peak.
#[test]
fn the_peak_sees_what_is_held() {
    let peak = peak_held(|| {
        let v = std::hint::black_box(vec![1u8; 100_000]);
        drop(std::hint::black_box(vec![1u8; 1_000]));
        drop(v);
    });
    assert_eq!(peak, 101_000);
}

/// Cycles run before counting, at the least.
const WARM: u64 = 20_000;
/// Cycles counted.
const COUNTED: u64 = 20_000;

fn anynet8x4() -> Network {
    Network::load(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/benches/anynet8x4.toml"
    ))
    .expect("benchmark network")
}

/// `sys` warmed up, then counted: the allocations in the counted cycles,
/// with the packets delivered and generated in them (so that a quiet
/// network cannot pass).
fn warm_then_count(sys: &mut System) -> (u64, u64, u64) {
    sys.run(WARM).expect("runs");
    let before = sys.report();
    let n = allocations(|| sys.run(COUNTED).expect("runs"));
    let after = sys.report();
    (
        n,
        after.packets_delivered - before.packets_delivered,
        after.packets_generated - before.packets_generated,
    )
}

/// Unicast packets, the headline case (docs/performance.md): not one
/// allocation in 20,000 warm cycles, while hundreds (20-flit) and tens of
/// thousands (1-flit) of packets are made, sent, checked and retired. A
/// buffer's memory grows as it first fills (`InputBuffer::new`), so the
/// network is warmed longer here, until every buffer has held the most it
/// holds in the cycles counted.
#[test]
fn unicast_traffic_on_cut_through_switches_allocates_nothing_once_warm() {
    let net = anynet8x4();
    for (len, least) in [(20, 600), (1, 60_000)] {
        let mut sys =
            System::new(&net, &SimConfig::default(), &Traffic::uniform(0.1, len)).expect("system");
        sys.run(4 * WARM).expect("runs");
        let (n, delivered, _) = warm_then_count(&mut sys);
        assert!(
            delivered > least,
            "{len}-flit: {delivered} packets delivered"
        );
        assert_eq!(n, 0, "{len}-flit: {n} allocations in {COUNTED} warm cycles");
    }
}

/// Multicast worms of each kind the switch decodes (bit-string, SSR,
/// multi-drop), drawn by the nodes' own generators: about a thousand worms
/// drawn, encoded, sent, replicated, checked copy by copy as they arrive
/// and retired in 20,000 warm cycles, and no allocation for any of that.
/// A node draws its worms into the memory of the worms it sent before
/// (`WormBuilder::random_into`), and a copy's header is checked without
/// being decoded. What remains is an input buffer's memory growing the
/// first time it holds more chunks than ever (`InputBuffer::new`): worms
/// that block fill a buffer deeper now and then, long after the start,
/// so a few calls in the cycles counted (4 with bit-string worms), far
/// under one a worm.
#[test]
fn multicast_worms_allocate_nothing_per_worm() {
    let net = anynet8x4();
    for kind in [Kind::BitString, Kind::Ssr, Kind::MultiDrop] {
        let traffic = Traffic::multicast(0.02, 16, 3, kind);
        let mut sys = System::new(&net, &SimConfig::default(), &traffic).expect("system");
        sys.run(4 * WARM).expect("runs");
        let (n, delivered, made) = warm_then_count(&mut sys);
        assert!(delivered > 1_000, "{kind:?}: {delivered} delivered");
        assert!(made > 500, "{kind:?}: {made} worms made");
        assert!(
            n <= 8,
            "{kind:?}: {n} allocations for {made} worms made in {COUNTED} warm cycles"
        );
    }
}

/// Seed 001's wormhole routers on a 6-cube, one-port and all-port, with
/// their own generator of multicasts (1 to 12 destinations, 16 data
/// flits): each multicast made allocates its destination lists and its
/// worms' headers, and the watchdog's wait-for analysis allocates a few
/// times a look when a head has waited long (5.3 calls a multicast, one-port
/// and all-port; 9.8 and 15.8 while the analysis kept a list of waits per
/// head); a flit moved allocates nothing, or the bound would break.
#[test]
fn the_hypercube_of_wormhole_routers_allocates_per_multicast_made() {
    for ports in [PortModel::OnePort, PortModel::AllPort] {
        let fabric = Arc::new(CubeFabric {
            cube: Hypercube::new(6).unwrap(),
            routing: Routing::Restriction2,
        });
        let cfg = DirectConfig {
            ports,
            keep_worms: false,
            ..Default::default()
        };
        let mut s = DirectSystem::new(fabric, &cfg).unwrap();
        s.set_traffic(DirectTraffic {
            rate: 0.002,
            min_dests: 1,
            max_dests: 12,
            payload: 16,
            queue_cap: 4,
        })
        .unwrap();
        s.run(WARM).unwrap();
        let before = s.stats().clone();
        let n = allocations(|| s.run(COUNTED).unwrap());
        let (made, done) = (
            s.stats().created - before.created,
            s.stats().completed - before.completed,
        );
        assert!(done > 300, "{ports:?}: {done} multicasts completed");
        assert!(
            n <= 8 * made,
            "{ports:?}: {n} allocations for {made} multicasts made in {COUNTED} warm cycles"
        );
    }
}

/// Seed 003's tree routers with their own generator of multicasts (4 to
/// 25 destinations): each multicast made allocates its destination list
/// and its worms' books (4 calls a tree multicast now, 1 a pseudo one); a
/// flit moved allocates nothing, or the bound would break.
#[test]
fn the_tree_routers_allocate_per_multicast_made() {
    for (topo, scheme) in [
        ("mesh:8x8", Scheme::Tree),
        ("mesh:8x8", Scheme::Pseudo),
        ("torus:4x4x4", Scheme::Tree),
    ] {
        let mut n = TreeNet::new(Grid::parse(topo).unwrap(), TreeConfig::default()).unwrap();
        n.set_traffic(TreeTraffic {
            rate: 0.02 / 14.5,
            min_dests: 4,
            max_dests: 25,
            data: 1,
            scheme,
            queue_cap: 4,
        })
        .unwrap();
        n.run(WARM).unwrap();
        let before = n.stats();
        let calls = allocations(|| n.run(COUNTED).unwrap());
        let after = n.stats();
        let (made, done) = (
            after.created - before.created,
            after.completed - before.completed,
        );
        assert!(
            done > 1_000,
            "{topo} {scheme:?}: {done} multicasts completed"
        );
        assert!(
            calls <= 8 * made,
            "{topo} {scheme:?}: {calls} allocations for {made} multicasts made in {COUNTED} warm cycles"
        );
    }
}

/// The engine's run of the run configuration `toml` on one thread, read
/// and planned now, run when the closure is called (so that only the run
/// is counted).
fn engine_run(toml: &str) -> impl FnOnce() -> wormcast::engine::RunResult + use<> {
    let plan = wormcast::engine::RunConfig::from_toml_str(toml)
        .and_then(|c| c.plan())
        .expect("a run configuration");
    let opts = plan.options.clone().with_threads(1);
    move || {
        wormcast::engine::run(&plan.topology, plan.router, plan.routing.as_deref(), &opts)
            .expect("runs")
    }
}

/// Uniform unicast on an 8x8 mesh through the engine (`wormcast run
/// --topology mesh:8x8 --router R --load 0.1 --packet 20`), each router
/// model: a run of 80,000 cycles allocates scarcely more than one of
/// 40,000, though it carries 12,800 more packets. What it does allocate
/// is the statistics' record of every latency (for the percentiles),
/// which doubles its room as it fills, and buffers growing to the most
/// they hold.
/// Engine runs of the configuration `config(cycles)` gives, of 40,000
/// and of 80,000 cycles, after one of 1,000 that takes what a process
/// allocates once (the machine's memory looked up, and the like): each
/// run's allocator calls, copies delivered and messages generated.
fn engine_allocations(config: impl Fn(u64) -> String) -> [(u64, u64, u64); 2] {
    let counts: Vec<(u64, u64, u64)> = [1_000, 40_000, 80_000]
        .into_iter()
        .map(|cycles| {
            let run = engine_run(&config(cycles));
            let mut made = (0, 0);
            let n = allocations(|| {
                let r = run();
                made = (r.delivered, r.generated);
            });
            (n, made.0, made.1)
        })
        .collect();
    [counts[1], counts[2]]
}

#[test]
fn unicast_runs_of_the_engine_allocate_per_doubling_not_per_packet() {
    for router in ["tree", "wormhole", "cut-through"] {
        let [short, long] = engine_allocations(|cycles| {
            format!(
                "[network]\ntopology = \"mesh:8x8\"\nrouter = \"{router}\"\n\
                 [traffic]\npattern = \"uniform\"\nload = 0.1\npacket = 20\n\
                 [stats]\ncycles = {cycles}\nwarmup = 0\n"
            )
        });
        let more = long.1 - short.1;
        assert!(more > 12_000, "{router}: {more} more packets");
        assert!(
            long.0 < short.0 + more / 50,
            "{router}: {} allocations in 80,000 cycles, {} in 40,000, for {more} more packets",
            long.0,
            short.0
        );
    }
}

/// Path multicasts on a 6-cube through the engine (`wormcast run
/// --topology hypercube:6 --router wormhole --routing ecube --traffic
/// multicast --scheme path --degree 12 --load 0.01 --packet 16`): each
/// multicast's natural list is cut into legal worms in memory kept
/// between multicasts (`DirectSystem::send_cut`), and its worms' books
/// reuse the memory of worms finished before, so a run of 80,000 cycles
/// allocates fewer than one call in ten multicasts more than one of
/// 40,000, though it sends about 1,600 more multicasts (cut afresh, each
/// took a dozen calls or more).
#[test]
fn path_multicasts_through_the_engine_are_cut_without_allocating() {
    let [short, long] = engine_allocations(|cycles| {
        format!(
            "[network]\ntopology = \"hypercube:6\"\nrouter = \"wormhole\"\n\
             routing = \"ecube\"\n[traffic]\npattern = \"multicast\"\nload = 0.01\n\
             packet = 16\nscheme = \"path\"\ndegree = 12\n\
             [stats]\ncycles = {cycles}\nwarmup = 0\n"
        )
    });
    let more = long.2 - short.2;
    assert!(more > 1_000, "{more} more multicasts");
    // What is left (91 calls now) is the statistics' records growing and
    // the watchdog's look at worms whose heads waited long.
    assert!(
        long.0 < short.0 + more / 10,
        "{} allocations in 80,000 cycles, {} in 40,000, for {more} more multicasts",
        long.0,
        short.0
    );
}

/// Tree multicasts through the engine (`wormcast run --topology mesh:8x8
/// --router tree --traffic multicast --load 0.02 --packet 5`), which prune
/// about once in seven cycles: a run four times as long holds no more
/// memory at its most. Each prune once went into a record the engine
/// never read (`TreeNet::prunes`, kept with the deliveries), 24 bytes a
/// prune for as long as the run went: 41 MB at 10,000,000 cycles.
#[test]
fn tree_multicasts_through_the_engine_hold_memory_bounded_by_the_network() {
    let run = |cycles: u64| {
        let run = engine_run(&format!(
            "[network]\ntopology = \"mesh:8x8\"\nrouter = \"tree\"\n\
             [traffic]\npattern = \"multicast\"\nload = 0.02\npacket = 5\n\
             [stats]\ncycles = {cycles}\nwarmup = 0\n"
        ));
        let mut prunes = 0;
        let peak = peak_held(|| prunes = run().events["prunes"]);
        (peak, prunes)
    };
    let (short, long) = (run(50_000), run(200_000));
    assert!(
        long.1 > short.1 + 15_000,
        "{} prunes in 200,000 cycles, {} in 50,000",
        long.1,
        short.1
    );
    assert!(
        long.0 < short.0 + 64 * 1024,
        "{} bytes held at most in 200,000 cycles, {} in 50,000",
        long.0,
        short.0
    );
}

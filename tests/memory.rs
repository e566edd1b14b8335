//! The memory a simulation takes, counted by the allocator, against what
//! `Network::new` reckons before building it (and refuses a network by):
//! the reckoning must be an upper bound of the build and of a short run,
//! or a network it lets through can exhaust the machine.

use std::alloc::{GlobalAlloc, Layout, System as Heap};
use std::sync::atomic::{AtomicUsize, Ordering};
use wormcast::net::{IrregularParams, Network};
use wormcast::sim::{SimConfig, System, Traffic};

/// The system allocator, counting the bytes live and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    let now = LIVE.fetch_add(by, Ordering::Relaxed) + by;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: every call is passed on to the system allocator unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        // SAFETY: as the caller's.
        let p = unsafe { Heap.alloc(l) };
        if !p.is_null() {
            grew(l.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        // SAFETY: as the caller's.
        let p = unsafe { Heap.alloc_zeroed(l) };
        if !p.is_null() {
            grew(l.size());
        }
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: as the caller's.
        unsafe { Heap.dealloc(p, l) };
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, p: *mut u8, l: Layout, size: usize) -> *mut u8 {
        // SAFETY: as the caller's.
        let q = unsafe { Heap.realloc(p, l, size) };
        if !q.is_null() {
            LIVE.fetch_sub(l.size(), Ordering::Relaxed);
            grew(size);
        }
        q
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// The peak of the bytes `f` allocated beyond those live when it began.
fn peak_of(f: impl FnOnce()) -> usize {
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    f();
    PEAK.load(Ordering::Relaxed) - base
}

fn irregular(switches: u32, ports: u32, nodes: u32) -> Network {
    let p = IrregularParams {
        switches,
        ports,
        nodes,
        connectivity: 0.8,
        seed: 3,
    };
    Network::new(&p.generate().unwrap()).unwrap()
}

/// One test, so that nothing else allocates while it counts.
#[test]
fn a_simulation_takes_less_than_its_network_reckons() {
    // Few nodes on many switches, and many nodes on a few wide switches
    // (a switch's decode unit once kept room for a bit-string header of
    // every node, nodes / 8 bytes a switch).
    for (switches, ports, nodes) in [(2048, 8, 8192), (256, 64, 12_288)] {
        let net = irregular(switches, ports, nodes);
        let reckoned = net.reckoned_bytes();
        let cfg = SimConfig::default();
        let traffic = Traffic::Uniform {
            load: 0.001,
            packet_flits: 20,
        };
        let peak = peak_of(|| {
            let mut sys = System::new(&net, &cfg, &traffic).unwrap();
            sys.run(2_000).unwrap();
        });
        assert!(
            (peak as u128) < reckoned,
            "{switches} switches of {ports} ports, {nodes} nodes: {peak} bytes at the peak, {reckoned} reckoned"
        );
        // And not far below it: the reckoning is about twice what a build
        // takes, so that a network refused is one that would not fit.
        assert!(
            (peak as u128) * 4 > reckoned,
            "{switches} switches of {ports} ports, {nodes} nodes: {peak} bytes at the peak, {reckoned} reckoned"
        );
    }
}

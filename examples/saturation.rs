//! Saturation throughput per traffic pattern on the 8x8 mesh and 8x8 torus
//! (tree router, dimension-order routing, 20-flit packets), against the
//! channel-load bound of each pattern: the largest offered load that is not
//! saturated (docs/engine.md's rule), found by bisection to 1/128 of a
//! flit per node per cycle.
//!
//! cargo run --release --example saturation

use wormcast::direct::Grid;
use wormcast::engine::{self, Pattern, RunOptions, TopoSpec, bound};

#[path = "common/mod.rs"]
mod common;

fn main() -> std::process::ExitCode {
    common::exit(common::no_arguments(&common::start(), "saturation").and_then(|()| measure()))
}

fn measure() -> wormcast::Result<()> {
    println!(
        "| network | pattern | bound (flits/node/cycle) | saturation throughput | fraction of the bound |"
    );
    println!("|---|---|---|---|---|");
    for topo in ["mesh:8x8", "torus:8x8"] {
        let spec = TopoSpec::parse(topo)?;
        let grid = Grid::parse(topo)?;
        for p in [
            "uniform",
            "transpose",
            "bit-complement",
            "bit-reverse",
            "shuffle",
            "tornado",
            "neighbour",
        ] {
            let pattern = Pattern::parse(p)?;
            let b = bound::channel_load_bound(&grid, &pattern);
            let run = |load: f64| -> wormcast::Result<bool> {
                let o = RunOptions {
                    pattern: pattern.clone(),
                    load,
                    packet: 20,
                    warmup: 10_000,
                    cycles: 30_000,
                    ..RunOptions::default()
                };
                Ok(!engine::run(&spec, None, None, &o)?.saturated)
            };
            let (mut lo, mut hi) = (0.0f64, 1.0f64);
            if run(hi)? {
                lo = hi;
            }
            while hi - lo > 1.0 / 128.0 {
                let mid = (lo + hi) / 2.0;
                if run(mid)? {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            println!("| {topo} | {p} | {b:.3} | {lo:.3} | {:.2} |", lo / b);
        }
    }
    Ok(())
}

//! Prints the speed of the headline benchmark cases: simulated cycles per
//! second, flit-hops per second, and the peak memory of the process.
//!
//! `cargo run --release --example speed` (best of 3 runs of 100,000 cycles
//! each; see benches/sim.rs for the criterion version). Last, a long traced
//! run: 20-flit packets with every register written to an FST file (in the
//! temporary directory) on a thread of its own, as `wormcast run --vcd
//! x.fst` writes it, timed apart for its first 10,000 cycles, for the
//! steady state (1,000,000 cycles after 100,000 of warm-up) and for
//! finishing the file.

use std::time::Instant;
use wormcast::net::Network;
use wormcast::sim::{SimConfig, System, Traffic};
use wormcast::wave::{Background, FstWriter, VcdWriter};

#[path = "common/mod.rs"]
mod common;

fn peak_rss_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() -> std::process::ExitCode {
    common::exit(common::no_arguments(&common::start(), "speed").and_then(|()| measure()))
}

fn measure() -> wormcast::Result<()> {
    let net = Network::load(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/benches/anynet8x4.toml"
    ))?;
    let cycles = 100_000u64;
    println!(
        "{:<8} {:<8} {:>14} {:>16} {:>12}",
        "packet", "tracing", "cycles/s", "flit-hops/s", "flit-hops"
    );
    for len in [20u32, 1] {
        for vcd in [false, true] {
            let mut best = f64::MAX;
            let mut hops = 0;
            for _ in 0..3 {
                let mut sys =
                    System::new(&net, &SimConfig::default(), &Traffic::uniform(0.1, len))?;
                if vcd {
                    sys.attach_tracer(Box::new(VcdWriter::new(std::io::sink())))?;
                }
                let t = Instant::now();
                sys.run(cycles)?;
                best = best.min(t.elapsed().as_secs_f64());
                hops = sys.flit_hops();
            }
            println!(
                "{:<8} {:<8} {:>14.0} {:>16.0} {:>12}",
                format!("{len}-flit"),
                if vcd { "vcd" } else { "off" },
                cycles as f64 / best,
                hops as f64 / best,
                hops
            );
        }
    }
    long_fst_run(&net)?;
    if let Some(kib) = peak_rss_kib() {
        println!("peak resident memory: {:.1} MiB", kib as f64 / 1024.0);
    }
    Ok(())
}

/// The long traced run: the steady rate, the time to finish the file, and
/// the rate of the whole run with finishing.
fn long_fst_run(net: &Network) -> wormcast::Result<()> {
    let (warm, steady) = (100_000u64, 1_000_000u64);
    let path = std::env::temp_dir().join(format!("wormcast-speed-{}.fst", std::process::id()));
    let mut sys = System::new(net, &SimConfig::default(), &Traffic::uniform(0.1, 20))?;
    sys.attach_tracer(Box::new(Background::new(Box::new(FstWriter::create(
        &path,
    )?))))?;
    // The first cycles apart: a cold start pays for the writer's thread
    // coming up and for the first blocks of the file.
    let first = 10_000u64;
    let start = Instant::now();
    sys.run(first)?;
    let cold = start.elapsed().as_secs_f64();
    sys.run(warm - first)?;
    let t = Instant::now();
    sys.run(steady)?;
    let run = t.elapsed().as_secs_f64();
    let t = Instant::now();
    sys.finish_trace()?;
    let finish = t.elapsed().as_secs_f64();
    let whole = start.elapsed().as_secs_f64();
    let bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    let _ = std::fs::remove_file(&path);
    println!(
        "20-flit, every register to an FST on its own thread: {:.0} cycles/s over the first {first} cycles; {:.0} cycles/s over {steady} cycles after {warm}; finishing the file {:.1} ms; the whole run of {} cycles {:.0} cycles/s ({:.1} MB)",
        first as f64 / cold,
        steady as f64 / run,
        finish * 1e3,
        warm + steady,
        (warm + steady) as f64 / whole,
        bytes as f64 / 1e6
    );
    Ok(())
}

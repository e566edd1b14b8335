//! Prints the speed of the headline benchmark cases: simulated cycles per
//! second, flit-hops per second, and the peak memory of the process.
//!
//! `cargo run --release --example speed` (best of 3 runs of 100,000 cycles
//! each; see benches/sim.rs for the criterion version).

use std::time::Instant;
use wormcast::net::Network;
use wormcast::sim::{SimConfig, System, Traffic};
use wormcast::wave::VcdWriter;

fn peak_rss_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() -> wormcast::Result<()> {
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
    if let Some(kib) = peak_rss_kib() {
        println!("peak resident memory: {:.1} MiB", kib as f64 / 1024.0);
    }
    Ok(())
}

//! How the cost of a simulation grows with the network: generated irregular
//! networks of 8-port switches with 4 nodes each (seed 000 section 6.3's
//! generator), 20-flit uniform unicast traffic at about half of each size's
//! saturation load. Prints the setup time (generating, checking and
//! building the network), the cost per flit-hop over the first 20,000
//! cycles from a cold start and over the next 20,000 (warm), and the cost
//! of an idle and of a nearly idle cycle.
//!
//! `cargo run --release --example scale [switches ...]` (default: 8 64 256
//! 1024 4096); `benches/scale.rs` measures the same cases with criterion.
//! Peak memory is a whole-process figure: run `wormcast run` on the same
//! network under `/usr/bin/time -v` (docs/performance.md).

use std::time::Instant;
use wormcast::net::{IrregularParams, Network};
use wormcast::sim::{SimConfig, System, Traffic};

#[path = "common/mod.rs"]
mod common;

/// Offered load (flits/node/cycle) at about half of saturation.
fn light_load(switches: u32) -> f64 {
    match switches {
        0..=8 => 0.1,
        9..=64 => 0.02,
        65..=256 => 0.005,
        257..=1024 => 0.0015,
        _ => 0.0004,
    }
}

fn network(switches: u32) -> wormcast::Result<Network> {
    // The paper's 8-port switches, 80% connectivity, seed 1; 4 nodes each.
    let p = IrregularParams {
        switches,
        nodes: switches.saturating_mul(4),
        ..IrregularParams::default()
    };
    Network::new(&p.generate()?)
}

fn main() -> std::process::ExitCode {
    common::exit(options(&common::start()).and_then(|sizes| measure(&sizes)))
}

/// The sizes the arguments ask for (8 to 4,096 switches when none is
/// given). A size that is not a number is refused by name; the generator
/// refuses one it cannot build.
fn options(args: &[String]) -> wormcast::Result<Vec<u32>> {
    let sizes: Vec<u32> = args
        .iter()
        .map(|a| {
            a.parse().map_err(|_| wormcast::Error::Config {
                field: "switches",
                value: a.clone(),
                reason: "a number of switches".into(),
            })
        })
        .collect::<wormcast::Result<_>>()?;
    Ok(if sizes.is_empty() {
        vec![8, 64, 256, 1024, 4096]
    } else {
        sizes
    })
}

fn measure(sizes: &[u32]) -> wormcast::Result<()> {
    println!(
        "{:>8} {:>8} {:>10} {:>14} {:>12} {:>14} {:>14} {:>16}",
        "switches",
        "load",
        "setup s",
        "ns/flit-hop",
        "flit-hops",
        "warm ns/hop",
        "idle ns/cycle",
        "1e-5 ns/cycle"
    );
    for &s in sizes {
        let t = Instant::now();
        let net = network(s)?;
        let mut sys = System::new(&net, &SimConfig::default(), &Traffic::Idle)?;
        let setup = t.elapsed().as_secs_f64();
        let idle_cycles = 10_000_000;
        let t = Instant::now();
        sys.run(idle_cycles)?;
        let idle = t.elapsed().as_secs_f64() * 1e9 / idle_cycles as f64;
        let load = light_load(s);
        let cycles = 20_000;
        let mut sys = System::new(&net, &SimConfig::default(), &Traffic::uniform(load, 20))?;
        let t = Instant::now();
        sys.run(cycles)?;
        let busy = t.elapsed().as_secs_f64();
        let hops = sys.flit_hops();
        // The same number of cycles again, the network now warm: its
        // buffers hold what they will hold and its state is in the caches
        // as far as it fits.
        let t = Instant::now();
        sys.run(cycles)?;
        let warm = t.elapsed().as_secs_f64() * 1e9 / (sys.flit_hops() - hops) as f64;
        let sparse_cycles = 200_000;
        let mut sys = System::new(&net, &SimConfig::default(), &Traffic::uniform(1e-5, 20))?;
        let t = Instant::now();
        sys.run(sparse_cycles)?;
        let sparse = t.elapsed().as_secs_f64() * 1e9 / sparse_cycles as f64;
        println!(
            "{:>8} {:>8} {:>10.3} {:>14.1} {:>12} {:>14.1} {:>14.2} {:>16.1}",
            s,
            load,
            setup,
            busy * 1e9 / hops as f64,
            hops,
            warm,
            idle,
            sparse
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::common::{args, refuses};
    use super::options;

    #[test]
    fn sizes_are_read_and_anything_else_refused_by_name() {
        assert_eq!(options(&args(&[])).unwrap(), [8, 64, 256, 1024, 4096]);
        assert_eq!(options(&args(&["8", "16384"])).unwrap(), [8, 16384]);
        refuses(
            options,
            &[
                (&["8", "lots"], "switches = lots: a number of switches"),
                (&["-5"], "switches = -5: a number of switches"),
                (
                    &["99999999999"],
                    "switches = 99999999999: a number of switches",
                ),
            ],
        );
    }
}

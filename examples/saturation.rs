//! Saturation throughput per traffic pattern on the 8x8 mesh and 8x8 torus
//! (tree router, dimension-order routing, 20-flit packets), against the
//! channel-load bound of each pattern: the largest offered load that is not
//! saturated (docs/engine.md's rule), found by bisection to 1/128 of a
//! flit per node per cycle.
//!
//! cargo run --release --example saturation

use wormcast::direct::Grid;
use wormcast::engine::{self, Pattern, RunOptions, TopoSpec, bound};

fn main() -> std::process::ExitCode {
    // An error is printed as the command-line tool prints one.
    let args: Vec<String> = std::env::args().skip(1).collect();
    match options(&args).and_then(|()| measure()) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
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

/// The example takes no argument: one it would ignore is refused.
fn options(args: &[String]) -> wormcast::Result<()> {
    match args.first() {
        Some(a) => Err(wormcast::Error::Config {
            field: "arguments",
            value: a.clone(),
            reason: "this example takes none (`cargo run --release --example saturation`)".into(),
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::options;

    #[test]
    fn an_argument_is_refused_by_name() {
        assert!(options(&[]).is_ok());
        let e = options(&["1000000".into()]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "configuration: arguments = 1000000: this example takes none (`cargo run --release --example saturation`)"
        );
    }
}

//! Two threads over one on large networks, measured in interleaved pairs:
//! the speed-up a network evaluated on two cores gets, taken so that the
//! drift of a shared machine's speed from minute to minute cancels (a
//! benchmark that times one thread's runs and then two threads' carries
//! that drift into its ratio; docs/performance-log.md, "What bounds two
//! threads on the irregular network").
//!
//! Each run goes through the engine, as `wormcast run --threads N` does:
//! the network is built first, outside the time, and the run is timed
//! alone. The runs of a pair alternate which goes first, and the two runs
//! of every pair must report the same results (they are the same run on
//! another thread count); the example stops if they do not. Prints, per
//! case, the median time on one thread and on two, and the median of the
//! pairs' ratios with their spread.
//!
//! `cargo run --release --example threads [pairs]` (default 9 pairs,
//! about a minute on a 2-core machine).

use std::time::Instant;
use wormcast::engine::{self, Pattern, RouterModel, RunOptions, TopoSpec};

#[path = "common/mod.rs"]
mod common;

/// One case: a network, its router model (`None`: the topology's), the
/// load and the cycles run.
struct Case {
    name: &'static str,
    topology: &'static str,
    router: Option<RouterModel>,
    load: f64,
    cycles: u64,
}

const CASES: [Case; 5] = [
    // The generated 1,024-switch network at about half of its saturation
    // load (`examples/scale`), and nearer it.
    Case {
        name: "irregular, 1,024 switches, cut-through",
        topology: "irregular:switches=1024,ports=8,nodes=4096",
        router: None,
        load: 0.0015,
        cycles: 20_000,
    },
    Case {
        name: "irregular, 1,024 switches, cut-through",
        topology: "irregular:switches=1024,ports=8,nodes=4096",
        router: None,
        load: 0.0025,
        cycles: 20_000,
    },
    // A 32x32 mesh of tree routers (the mesh's default) and of wormhole
    // routers, as `benches/direct.rs` runs them, and of cut-through
    // switches, as `benches/scale.rs` does (fewer cycles: each holds
    // several times the work).
    Case {
        name: "mesh 32x32, tree",
        topology: "mesh:32x32",
        router: None,
        load: 0.03,
        cycles: 20_000,
    },
    Case {
        name: "mesh 32x32, wormhole",
        topology: "mesh:32x32",
        router: Some(RouterModel::Wormhole),
        load: 0.012,
        cycles: 20_000,
    },
    Case {
        name: "mesh 32x32, cut-through",
        topology: "mesh:32x32",
        router: Some(RouterModel::CutThrough),
        load: 0.05,
        cycles: 5_000,
    },
];

/// The run of `case` on `threads` threads: its time and its report.
fn run(case: &Case, threads: usize) -> wormcast::Result<(f64, String)> {
    let spec = TopoSpec::parse(case.topology)?;
    let o = RunOptions {
        pattern: Pattern::Uniform,
        load: case.load,
        packet: 20,
        warmup: 0,
        cycles: case.cycles,
        ..RunOptions::default()
    }
    .with_threads(threads);
    let mut p = engine::prepare(&spec, case.router, None, &o)?;
    // A network too small for the count would run on fewer threads, and
    // its ratio would compare one thread with itself.
    if p.threads() != threads {
        return Err(wormcast::Error::Config {
            field: "threads",
            value: threads.to_string(),
            reason: format!("{} runs on {} thread(s)", case.name, p.threads()),
        });
    }
    let t = Instant::now();
    let (r, _) = p.run(None)?;
    let secs = t.elapsed().as_secs_f64();
    // Freed after the time is taken.
    drop(p);
    let report = serde_json::to_string(&r).expect("a run's report serializes");
    Ok((secs, report))
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> std::process::ExitCode {
    common::exit(options(&common::start()).and_then(measure))
}

/// The count of pairs the arguments ask for (9 when none is given).
fn options(args: &[String]) -> wormcast::Result<usize> {
    common::one_number(args, "pairs", "a count of pairs", (1, 1000), 9)
}

fn measure(pairs: usize) -> wormcast::Result<()> {
    println!(
        "{:<48} {:>8} {:>9} {:>9} {:>8} {:>15}",
        "network, router, load", "cycles", "1 thread", "2 threads", "ratio", "pairs' spread"
    );
    for case in &CASES {
        let (mut one, mut two, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
        for i in 0..pairs {
            let ((t1, r1), (t2, r2)) = if i % 2 == 0 {
                let a = run(case, 1)?;
                (a, run(case, 2)?)
            } else {
                let b = run(case, 2)?;
                (run(case, 1)?, b)
            };
            assert_eq!(
                r1, r2,
                "{}: one thread and two reported different runs",
                case.topology
            );
            one.push(t1);
            two.push(t2);
            ratios.push(t1 / t2);
        }
        let name = format!("{} at {}", case.name, case.load);
        let (lo, hi) = ratios
            .iter()
            .fold((f64::MAX, 0f64), |(lo, hi), &r| (lo.min(r), hi.max(r)));
        println!(
            "{:<48} {:>8} {:>8.3}s {:>8.3}s {:>7.2}x {:>7.2} - {:.2}",
            name,
            case.cycles,
            median(&mut one),
            median(&mut two),
            median(&mut ratios),
            lo,
            hi
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::common::{args, refuses};
    use super::options;

    #[test]
    fn the_count_of_pairs_is_read_and_anything_else_refused_by_name() {
        assert_eq!(options(&args(&[])).unwrap(), 9);
        assert_eq!(options(&args(&["3"])).unwrap(), 3);
        assert_eq!(options(&args(&["1000"])).unwrap(), 1000);
        refuses(
            options,
            &[
                (&["0"], "pairs = 0: a count of pairs from 1 to 1,000"),
                (&["1001"], "pairs = 1001: a count of pairs from 1 to 1,000"),
                (&["many"], "pairs = many: a count of pairs from 1 to 1,000"),
                (
                    &["3", "4"],
                    "arguments = 4: one argument at most, a count of pairs",
                ),
            ],
        );
    }
}

//! `wormcast mesh3d experiment`: seed 002's experiments (TP against SP).

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use wormcast::Result;
use wormcast::experiment::SweepOptions;
use wormcast::experiment::mesh::{options, points, run as run_points, write_outputs};

/// The options every load sweep takes.
#[derive(Args)]
pub struct SweepArgs {
    /// Output directory for the CSV files and plots.
    #[arg(long, default_value = "experiments")]
    pub out: PathBuf,
    /// Fewer points and cycles.
    #[arg(long)]
    pub quick: bool,
    /// Cycles with traffic per point.
    #[arg(long)]
    cycles: Option<u64>,
    /// Cycles before latencies count.
    #[arg(long)]
    warmup: Option<u64>,
    /// Seed of the traffic.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

impl SweepArgs {
    /// `defaults` (for `--quick` or not) with the given overrides.
    pub fn options(&self, defaults: fn(bool) -> SweepOptions) -> SweepOptions {
        let mut o = defaults(self.quick);
        o.cycles = self.cycles.unwrap_or(o.cycles);
        o.warmup = self.warmup.unwrap_or(o.warmup);
        o.seed = self.seed;
        o
    }
}

pub fn run(a: &SweepArgs) -> Result<()> {
    let o = a.options(options);
    let bar = points_bar(points(a.quick));
    let pts = run_points(&o, &|| bar.inc(1))?;
    bar.finish_and_clear();
    write_outputs(&pts, &a.out)?;
    println!(
        "{} points ({} cycles, warm-up {}): {}",
        pts.len(),
        o.cycles,
        o.warmup,
        ["mesh_load", "mesh_dests"]
            .iter()
            .map(|f| a.out.join(format!("{f}.csv")).display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(())
}

/// A progress bar over `n` experiment points.
pub fn points_bar(n: usize) -> ProgressBar {
    let bar = ProgressBar::new(n as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} points, {elapsed} elapsed, eta {eta}")
            .expect("a valid template"),
    );
    bar
}

//! `wormcast mesh3d experiment`: seed 002's experiments (TP against SP),
//! and the sweep arguments and runner `wormcast tree experiment` shares.

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
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
    /// Cycles with traffic per point (default: below).
    #[arg(long)]
    cycles: Option<u64>,
    /// Cycles before latencies count (default: below).
    #[arg(long)]
    warmup: Option<u64>,
    /// Seed of the traffic.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// The defaults of a sweep's `--cycles` and `--warmup`, with and without
/// `--quick`, for its `--help`.
pub fn defaults_help(defaults: fn(bool) -> SweepOptions) -> String {
    let (full, quick) = (defaults(false), defaults(true));
    format!(
        "Defaults: --cycles {} --warmup {}; with --quick, {} and {}.",
        full.cycles, full.warmup, quick.cycles, quick.warmup
    )
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

impl SweepArgs {
    /// Runs a sweep of `n_points` points with a progress bar, writes its
    /// files with `write` and names the CSV files `csvs` it wrote.
    pub fn sweep<P>(
        &self,
        defaults: fn(bool) -> SweepOptions,
        n_points: impl Fn(bool) -> usize,
        run: impl Fn(&SweepOptions, &(dyn Fn() + Sync)) -> Result<Vec<P>>,
        write: impl Fn(&[P], &Path) -> Result<()>,
        csvs: &[&str],
    ) -> Result<()> {
        let o = self.options(defaults);
        // Refused before the points run, not after: an output folder
        // that cannot be made would otherwise waste the whole sweep.
        wormcast::make_dir(&self.out)?;
        let bar = points_bar(n_points(self.quick));
        let pts = run(&o, &|| bar.inc(1))?;
        bar.finish_and_clear();
        write(&pts, &self.out)?;
        let files: Vec<String> = csvs
            .iter()
            .map(|f| self.out.join(format!("{f}.csv")).display().to_string())
            .collect();
        println!(
            "{} points ({} cycles, warm-up {}): {}",
            pts.len(),
            o.cycles,
            o.warmup,
            files.join(", ")
        );
        Ok(())
    }
}

pub fn run(a: &SweepArgs) -> Result<()> {
    a.sweep(
        options,
        points,
        run_points,
        write_outputs,
        &["mesh_load", "mesh_dests"],
    )
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

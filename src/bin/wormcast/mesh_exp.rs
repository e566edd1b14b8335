//! `wormcast mesh3d experiment`: seed 002's experiments (TP against SP),
//! and the sweep arguments and runner `wormcast tree experiment` shares.

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use wormcast::Result;
use wormcast::experiment::PointJournal;
use wormcast::experiment::SweepOptions;
use wormcast::experiment::mesh::{options, points, run_in, write_outputs};

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
    /// Runs the sweep `name` of `n_points` points with a progress bar,
    /// resumable through its journal in --out (the points it holds are not
    /// run again; a stop by Ctrl-C or SIGTERM keeps those finished), writes
    /// its files with `write`, removes the journal and names the CSV files
    /// `csvs` it wrote (the first names the journal too).
    #[allow(clippy::too_many_arguments)]
    pub fn sweep<P>(
        &self,
        defaults: fn(bool) -> SweepOptions,
        n_points: impl Fn(bool) -> usize,
        name: &str,
        run: impl Fn(&SweepOptions, &PointJournal, &(dyn Fn() + Sync)) -> Result<(Vec<P>, usize)>,
        write: impl Fn(&[P], &Path) -> Result<()>,
        csvs: &[&str],
    ) -> Result<()> {
        let o = self.options(defaults);
        // Refused before the points run, not after: an output folder
        // that cannot be made would otherwise waste the whole sweep.
        wormcast::make_dir(&self.out)?;
        let journal = PointJournal::new(&self.out, csvs[0], name, &o);
        crate::stop_cleanly_from_here();
        let bar = points_bar(n_points(self.quick));
        let ran = run(&o, &journal, &|| bar.inc(1));
        bar.finish_and_clear();
        let (pts, kept) = ran?;
        write(&pts, &self.out)?;
        std::fs::remove_file(&journal.path).map_err(|e| wormcast::Error::io(&journal.path, e))?;
        if kept > 0 {
            eprintln!(
                "note: {kept} of the {} points were in {} already (the journal of a run stopped \
                 part way); {} ran",
                pts.len(),
                journal.path.display(),
                pts.len() - kept
            );
        }
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
        "mesh3d experiment",
        run_in,
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

//! `wormcast mesh3d experiment`: seed 002's experiments (TP against SP),
//! and the sweep arguments, runner and shards' merge `wormcast tree
//! experiment` and `tree variants` share.

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use wormcast::Result;
use wormcast::experiment::mesh::{options, points, run_in, write_outputs};
use wormcast::experiment::{PointFile, PointJournal, Shard, SweepOptions, merge_points};

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
    // The shard of the points to run and the worker threads (what a
    // shard writes is told by `defaults_help`).
    #[command(flatten)]
    pub cut: crate::ShardArgs,
}

/// The arguments of a sweep's `merge`.
#[derive(Args)]
pub struct MergeArgs {
    /// Output directory for the CSV files and plots.
    #[arg(long, default_value = "experiments")]
    pub out: PathBuf,
    /// Every shard's points (<csv>.shard-I-of-N.points).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}

/// The defaults of a sweep's `--cycles` and `--warmup`, with and without
/// `--quick`, and what a shard writes, for its `--help`.
pub fn defaults_help(defaults: fn(bool) -> SweepOptions) -> String {
    let (full, quick) = (defaults(false), defaults(true));
    format!(
        "Defaults: --cycles {} --warmup {}; with --quick, {} and {}.\n\nWith --shard I/N (or \
         --slurm in a job array) only the points whose number is I modulo N run, and the shard \
         writes them, once all have run, to <first CSV>.shard-I-of-N.points in --out; `merge` \
         writes from every shard's file the files one run writes, byte for byte.",
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
    /// `csvs` it wrote (the first names the journal too). A shard writes
    /// no files but its points, and says how `merge` (the command
    /// `merge_cmd`) combines them.
    #[allow(clippy::too_many_arguments)]
    pub fn sweep<P: Send>(
        &self,
        defaults: fn(bool) -> SweepOptions,
        n_points: impl Fn(bool) -> usize,
        name: &str,
        run: impl Fn(&SweepOptions, &PointJournal, &(dyn Fn() + Sync)) -> Result<(Vec<P>, usize)> + Sync,
        write: impl Fn(&[P], &Path) -> Result<()>,
        csvs: &[&str],
        merge_cmd: &str,
    ) -> Result<()> {
        let o = self.options(defaults);
        let shard = self.cut.shard()?;
        let pool = self.cut.pool()?;
        // Refused before the points run, not after: an output folder
        // that cannot be made would otherwise waste the whole sweep.
        wormcast::make_dir(&self.out)?;
        let journal = PointJournal::of_shard(&self.out, csvs[0], name, &o, shard);
        crate::stop_cleanly_from_here();
        let n = n_points(self.quick);
        let mine = (0..n).filter(|&i| shard.has(i)).count();
        let bar = points_bar(mine);
        let from = journal.live().to_path_buf();
        let ran = pool.install(|| run(&o, &journal, &|| bar.inc(1)));
        bar.finish_and_clear();
        let (pts, kept) =
            ran.map_err(|e| crate::with_warmup_hint(e, self.warmup.is_some(), self.quick))?;
        if shard == Shard::ALL {
            write(&pts, &self.out)?;
        }
        let done = journal.finish()?;
        if kept > 0 {
            eprintln!(
                "note: {kept} of the {} points were in {} already{}; {} ran",
                pts.len(),
                from.display(),
                if from == journal.path {
                    " (the journal of a run stopped part way)"
                } else {
                    " (the shard had finished: remove it to run them again)"
                },
                pts.len() - kept
            );
        }
        if let Some(done) = done {
            let all: Vec<String> = (0..shard.count)
                .map(|k| {
                    let j = PointJournal::of_shard(
                        &self.out,
                        csvs[0],
                        name,
                        &o,
                        Shard {
                            index: k,
                            count: shard.count,
                        },
                    );
                    j.done.map_or_else(String::new, |d| d.display().to_string())
                })
                .collect();
            println!(
                "shard {}/{}: {} of the {n} points ({} cycles, warm-up {}) in {}; once every \
                 shard has run: wormcast {merge_cmd} --out {} {}",
                shard.index,
                shard.count,
                pts.len(),
                o.cycles,
                o.warmup,
                done.display(),
                self.out.display(),
                all.join(" ")
            );
            return Ok(());
        }
        println!(
            "{} points ({} cycles, warm-up {}): {}",
            pts.len(),
            o.cycles,
            o.warmup,
            csv_files(&self.out, csvs)
        );
        Ok(())
    }
}

impl MergeArgs {
    /// The shards' files, each read, all of them shards of a sweep that
    /// `is_ours` takes (refused by name otherwise: `merge_cmd` merges
    /// `what`).
    pub fn read(
        &self,
        is_ours: impl Fn(&str) -> bool,
        merge_cmd: &str,
        what: &str,
    ) -> Result<Vec<PointFile>> {
        let files = self
            .files
            .iter()
            .map(|f| PointFile::read(f))
            .collect::<Result<Vec<_>>>()?;
        if let Some(f) = files.iter().find(|f| !is_ours(&f.sweep)) {
            return Err(wormcast::Error::Config {
                field: "merge",
                value: f.path.display().to_string(),
                reason: format!(
                    "its points are a shard of `{}`: `wormcast {merge_cmd}` merges {what}",
                    f.sweep
                ),
            });
        }
        Ok(files)
    }

    /// Merges `files` (every shard of one sweep of `n_points` points) into
    /// the files `write` writes, as one run of the sweep writes them, and
    /// names the CSV files `csvs`.
    pub fn merge<P: serde::de::DeserializeOwned>(
        &self,
        files: &[PointFile],
        n_points: impl Fn(bool) -> usize,
        write: impl Fn(&[P], &Path) -> Result<()>,
        csvs: &[&str],
    ) -> Result<()> {
        let quick = files.first().is_some_and(|f| f.quick);
        let pts: Vec<P> = merge_points(files, n_points(quick))?;
        wormcast::make_dir(&self.out)?;
        write(&pts, &self.out)?;
        println!(
            "{} points of {} shards: {}",
            pts.len(),
            files.len(),
            csv_files(&self.out, csvs)
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
        &CSVS,
        "mesh3d merge",
    )
}

/// The CSV files of `mesh3d experiment`.
const CSVS: [&str; 2] = ["mesh_load", "mesh_dests"];

/// `wormcast mesh3d merge`.
pub fn merge(a: &MergeArgs) -> Result<()> {
    let files = a.read(
        |s| s == "mesh3d experiment",
        "mesh3d merge",
        "`mesh3d experiment`'s shards",
    )?;
    a.merge(&files, points, write_outputs, &CSVS)
}

/// The CSV files `csvs` (names without `.csv`) in `out`, as a list.
fn csv_files(out: &Path, csvs: &[&str]) -> String {
    let files: Vec<String> = csvs
        .iter()
        .map(|f| out.join(format!("{f}.csv")).display().to_string())
        .collect();
    files.join(", ")
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

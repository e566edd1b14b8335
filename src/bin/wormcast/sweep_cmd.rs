//! `wormcast sweep`: grids of engine runs from one configuration, sharded
//! over machines (Slurm job arrays among them), resumable, merged.

use super::*;
use std::fmt::Write as _;
use wormcast::experiment::Shard;
use wormcast::experiment::sweep::{self, Sweep};

#[derive(Subcommand)]
pub(crate) enum SweepCmd {
    /// Run the jobs of a sweep file (a run configuration with a [sweep]
    /// table of field = [values]; docs/engine.md), all or one shard, in
    /// parallel. Each finished job is appended to a journal in --out; run
    /// again to resume. Unsharded, also writes sweep.csv and sweep.jsonl.
    /// Exit status 1 when a job's run found something (a deadlock, a
    /// network that did not drain).
    Run {
        /// The sweep file.
        config: PathBuf,
        /// Output directory.
        #[arg(long, default_value = "sweep")]
        out: PathBuf,
        /// Run only slice K of N (0-based) of the jobs.
        #[arg(long, conflicts_with = "slurm")]
        shard: Option<String>,
        /// Take the shard from the Slurm job array task
        /// (SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT; a stepped array such as
        /// --array=1-7:2 too).
        #[arg(long)]
        slurm: bool,
        /// Worker threads (default: every core).
        #[arg(long)]
        threads: Option<usize>,
        /// No progress bar.
        #[arg(long, short)]
        quiet: bool,
    },
    /// Join the journals of a sweep's shards into sweep.csv and
    /// sweep.jsonl in --out: the same bytes one unsharded run writes.
    Merge {
        /// Output directory.
        #[arg(long, default_value = "sweep")]
        out: PathBuf,
        /// The journals (journal.shard-K-of-N.jsonl).
        #[arg(required = true)]
        journals: Vec<PathBuf>,
    },
    /// List a sweep's jobs: index, replicate, seed and the swept values.
    List {
        /// The sweep file.
        config: PathBuf,
    },
}

/// Runs a sweep subcommand; false when a job found something.
pub(crate) fn run(cmd: SweepCmd) -> Result<bool> {
    match cmd {
        SweepCmd::Run {
            config,
            out,
            shard,
            slurm,
            threads,
            quiet,
        } => {
            let s = Sweep::load(&config)?;
            let shard = if slurm {
                sweep::slurm_shard(&|k| std::env::var(k).ok())?
            } else {
                match shard {
                    Some(x) => Shard::parse(&x)?,
                    None => Shard::ALL,
                }
            };
            // Every job's configuration is checked before any runs.
            s.check()?;
            let pool = worker_pool(threads)?;
            let total = (0..s.len()).filter(|&j| shard.has(j)).count() as u64;
            let bar = jobs_bar(total, "sweep", quiet);
            let o = pool.install(|| sweep::run(&s, &out, shard, &|| bar.inc(1)))?;
            bar.finish_and_clear();
            eprintln!(
                "sweep {}: shard {}/{}: {} jobs run, {} already in the journal, {} with a finding",
                s.id(),
                shard.index,
                shard.count,
                o.ran,
                o.skipped,
                o.findings
            );
            for f in &o.written {
                println!("{}", f.display());
            }
            Ok(o.findings == 0)
        }
        SweepCmd::Merge { out, journals } => {
            for f in sweep::merge(&journals, &out)? {
                println!("{}", f.display());
            }
            Ok(true)
        }
        SweepCmd::List { config } => {
            let s = Sweep::load(&config)?;
            // Every job is checked before a line is printed: a sweep with a
            // wrong job lists nothing. The list is made as the jobs are
            // checked, a line each, rather than keeping the jobs.
            let mut list = format!("sweep {}: {} jobs\njob\treplicate\tseed", s.id(), s.len());
            for f in s.fields() {
                list.push('\t');
                list.push_str(f);
            }
            list.push('\n');
            for i in 0..s.len() {
                let j = s.job(i)?;
                let _ = write!(list, "{}\t{}\t{}", j.index, j.replicate, j.seed);
                for (_, v) in j.params {
                    list.push('\t');
                    list.push_str(&v);
                }
                list.push('\n');
            }
            print!("{list}");
            Ok(true)
        }
    }
}

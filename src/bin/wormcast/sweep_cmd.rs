//! `wormcast sweep`: grids of engine runs from one configuration, sharded
//! over machines (Slurm job arrays among them), resumable, merged.

use super::*;
use std::fmt::Write as _;
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
        #[command(flatten)]
        cut: ShardArgs,
        /// The most memory the jobs running at once may be reckoned to
        /// take, as Slurm's --mem is written (a number of megabytes, or
        /// with a K, M, G or T suffix, of 1,024); a job that does not fit
        /// beside those running waits for them. Default: with --slurm,
        /// the job's memory (SLURM_MEM_PER_NODE, or SLURM_MEM_PER_CPU by
        /// its CPUs) where it names one; else the memory available as the
        /// sweep starts (the control group's limit, where less).
        #[arg(long, value_parser = parse_memory)]
        memory: Option<u64>,
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

/// A memory size as Slurm's `--mem` takes it: megabytes, or a number with
/// a K, M, G or T suffix (powers of 1,024), in bytes.
fn parse_memory(text: &str) -> std::result::Result<u64, String> {
    let t = text.trim();
    let (digits, shift) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let shift = match c.to_ascii_uppercase() {
                'K' => 10,
                'M' => 20,
                'G' => 30,
                'T' => 40,
                _ => return Err(format!("{text}: the suffix is K, M, G or T")),
            };
            (&t[..i], shift)
        }
        _ => (t, 20),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("{text}: a whole number of megabytes, or one with K, M, G or T"))?;
    match n.checked_mul(1 << shift) {
        Some(0) => Err(format!("{text}: no jobs fit in no memory")),
        Some(b) => Ok(b),
        None => Err(format!("{text}: more than 2^64 bytes")),
    }
}

/// Runs a sweep subcommand; false when a job found something.
pub(crate) fn run(cmd: SweepCmd) -> Result<bool> {
    match cmd {
        SweepCmd::Run {
            config,
            out,
            cut,
            memory,
            quiet,
        } => {
            let s = Sweep::load(&config)?;
            let shard = cut.shard()?;
            // Every job's configuration is checked before any runs.
            s.check()?;
            let pool = cut.pool()?;
            let total = (0..s.len()).filter(|&j| shard.has(j)).count() as u64;
            let bar = jobs_bar(total, "sweep", quiet);
            let memory = match memory {
                Some(m) => Some(sweep::MemoryBudget::given(m)),
                None if cut.slurm => sweep::slurm_memory(&|k| std::env::var(k).ok())?,
                None => None,
            };
            crate::stop_cleanly_from_here();
            let o = pool.install(|| sweep::run_within(&s, &out, shard, memory, &|| bar.inc(1)))?;
            bar.finish_and_clear();
            eprintln!(
                "sweep {}: shard {}/{}: {} run, {} already in the journal, {} with a finding",
                s.id(),
                shard.index,
                shard.count,
                wormcast::counted(o.ran as u64, "jobs"),
                o.skipped,
                o.findings
            );
            if o.waited > 0 {
                eprintln!(
                    "sweep {}: {} waited for others to finish before their memory fitted (at most {} reckoned at once, of {})",
                    s.id(),
                    wormcast::counted(o.waited as u64, "jobs"),
                    sweep::megabytes(o.memory_most),
                    sweep::megabytes(o.memory_budget)
                );
            }
            if o.fewer_threads.0 > 0 {
                eprintln!(
                    "sweep {}: {} ran on fewer threads than the {} their configuration asks for: \
                     the sweep's {} threads run its jobs side by side and give a job more only of the \
                     cores no job holds (a job's threads change its time, not its result)",
                    s.id(),
                    wormcast::counted(o.fewer_threads.0 as u64, "jobs"),
                    o.fewer_threads.1,
                    o.workers
                );
            }
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
            let mut list = format!(
                "sweep {}: {}\njob\treplicate\tseed",
                s.id(),
                wormcast::counted(s.len() as u64, "jobs")
            );
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

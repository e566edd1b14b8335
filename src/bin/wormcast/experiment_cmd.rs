//! `wormcast experiment`: the papers' experiments, sharded and merged.

use super::*;

#[derive(Subcommand)]
pub(crate) enum ExpCmd {
    /// Run figures (all jobs, or one shard of them) in parallel. Writes
    /// <fig>.raw.csv, the summary <fig>.csv and plots <fig>.svg and
    /// <fig>.png into --out; a shard writes only its raw rows, to be
    /// combined by `experiment merge`. Resumable: finished jobs are kept
    /// in <raw file>.part as they finish, and the same command after a
    /// stop (Ctrl-C, SIGTERM, a kill) runs only the others.
    Run {
        /// Figures: fig19 ... fig28, comma-separated, or all.
        #[arg(long, value_delimiter = ',', default_value = "all")]
        figure: Vec<String>,
        /// The small version (what CI runs): fewer topologies, sets,
        /// points and cycles.
        #[arg(long)]
        quick: bool,
        #[command(flatten)]
        cut: ShardArgs,
        /// Output directory.
        #[arg(long, default_value = "experiments")]
        out: PathBuf,
        /// Random topologies per setting (default 10, quick 2).
        #[arg(long)]
        topologies: Option<u32>,
        /// Destination sets per point and topology (default 10, quick 2).
        #[arg(long)]
        sets: Option<u32>,
        /// Cycles of each load run (default 1,000,000).
        #[arg(long)]
        cycles: Option<u64>,
        /// Warm-up of each load run (default 500,000).
        #[arg(long)]
        warmup: Option<u64>,
        /// Schemes, comma-separated (default ni-kbinomial,path-lg,tree).
        #[arg(long, value_delimiter = ',')]
        schemes: Vec<String>,
        /// Seed (default 1).
        #[arg(long)]
        seed: Option<u64>,
        /// What hosts pay t_hs and t_hr for: per-message (default),
        /// per-packet (m overheads, the whole message at a time) or
        /// per-packet-pipelined (each packet handed on once its own is
        /// paid); docs/reproduction.md, Figs. 24 and 25.
        #[arg(long)]
        host_overhead: Option<String>,
        /// No progress bar.
        #[arg(long, short)]
        quiet: bool,
    },
    /// Combine the raw CSVs of the shards of one or more figures: each
    /// figure's into the same raw file, summary and plots one unsharded
    /// run writes.
    Merge {
        /// Output directory.
        #[arg(long, default_value = "experiments")]
        out: PathBuf,
        /// The shards' raw CSV files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}

pub(crate) fn experiment(cmd: ExpCmd) -> Result<()> {
    use wormcast::experiment as ex;
    match cmd {
        ExpCmd::Run {
            figure,
            quick,
            cut,
            out,
            topologies,
            sets,
            cycles,
            warmup,
            schemes,
            seed,
            host_overhead,
            quiet,
        } => {
            let figs: Vec<ex::Figure> = if figure.iter().any(|f| f == "all") {
                ex::Figure::ALL.to_vec()
            } else {
                figure
                    .iter()
                    .map(|f| ex::Figure::parse(f))
                    .collect::<Result<_>>()?
            };
            let mut o = ex::Options::new(quick);
            if let Some(t) = topologies {
                o.topologies = t;
            }
            if let Some(x) = sets {
                o.sets = x;
            }
            if let Some(c) = cycles {
                o.cycles = c;
            }
            if let Some(w) = warmup {
                o.warmup = w;
            }
            if !schemes.is_empty() {
                o.schemes = schemes
                    .iter()
                    .map(|s| PlanScheme::parse(s))
                    .collect::<Result<_>>()?;
            }
            if let Some(s) = seed {
                o.seed = s;
            }
            if let Some(h) = host_overhead {
                o.host_overhead = wormcast::ni::HostOverhead::parse(&h)?;
            }
            // An option none of the figures asked for uses would change
            // nothing: refused by name rather than ignored.
            let loaded = figs.iter().filter(|f| f.is_loaded()).count();
            let names = || {
                let v: Vec<&str> = figs.iter().map(|f| f.name()).collect();
                v.join(", ")
            };
            for (flag, given, applies, to) in [
                (
                    "cycles",
                    cycles.is_some(),
                    loaded > 0,
                    "the loaded figures (fig26 to fig28)",
                ),
                (
                    "warmup",
                    warmup.is_some(),
                    loaded > 0,
                    "the loaded figures (fig26 to fig28)",
                ),
                (
                    "sets",
                    sets.is_some(),
                    loaded < figs.len(),
                    "the figures of single multicasts (fig19 to fig25)",
                ),
            ] {
                if given && !applies {
                    return Err(wormcast::Error::Config {
                        field: "figure",
                        value: names(),
                        reason: format!("--{flag} is for {to}, and none is asked for"),
                    });
                }
            }
            for &fig in &figs {
                o.validate_for(fig)
                    .map_err(|e| super::with_warmup_hint(e, warmup.is_some(), quick))?;
            }
            let shard = cut.shard()?;
            let pool = cut.pool()?;
            // A stop (Ctrl-C, a Slurm time limit's SIGTERM) ends the run
            // once its jobs under way finish or stop, the finished ones in
            // the figure's journal for the same command to resume.
            super::stop_cleanly_from_here();
            for fig in figs {
                let total = ex::jobs(fig, &o)
                    .iter()
                    .filter(|j| shard.has(j.index))
                    .count() as u64;
                let bar = jobs_bar(total, fig.name(), quiet);
                let ran = pool.install(|| ex::run_into(&out, fig, &o, shard, &|| bar.inc(1)));
                bar.finish_and_clear();
                let ran = ran?;
                if let Some((raw, why)) = &ran.refused {
                    eprintln!(
                        "note: {}: {} is of this experiment and build but was refused ({why}): \
                         its jobs ran and it is written anew",
                        fig.name(),
                        raw.display()
                    );
                }
                if let Some((n, from)) = &ran.kept {
                    eprintln!(
                        "note: {}: {n} of its {total} jobs{} were in {} already ({}); {} ran",
                        fig.name(),
                        if shard == ex::Shard::ALL {
                            String::new()
                        } else {
                            format!(" in shard {}/{}", shard.index, shard.count)
                        },
                        from.display(),
                        if *from == ex::raw_path(&out, fig, shard) {
                            "the same experiment, run whole by this build: remove it to run \
                             them again"
                        } else {
                            "the journal of a run stopped part way"
                        },
                        ran.ran
                    );
                }
                for f in ran.files {
                    println!("{}", f.display());
                }
            }
            Ok(())
        }
        ExpCmd::Merge { out, files } => {
            let mut parts = Vec::new();
            for f in &files {
                let text = wormcast::read_text(f)?;
                parts.push(ex::parse_raw(&text, &f.display().to_string())?);
            }
            // Each figure's shards apart (a run of several figures as a
            // job array leaves every figure's), in the figures' order;
            // all are merged before any is written.
            let mut merged = Vec::new();
            for fig in ex::Figure::ALL {
                let of_fig: Vec<_> = parts.iter().filter(|p| p.0 == fig).cloned().collect();
                if !of_fig.is_empty() {
                    merged.push(ex::merge(&of_fig)?);
                }
            }
            for (fig, o, rows) in merged {
                for f in ex::write_outputs(&out, fig, &o, ex::Shard::ALL, &rows)? {
                    println!("{}", f.display());
                }
            }
            Ok(())
        }
    }
}

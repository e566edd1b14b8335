//! Sweeps: lists of values over the fields of a run configuration
//! ([`RunConfig`], `wormcast run --config`), every combination one job of
//! the one engine, so any grid of runs (the papers' load curves among
//! them) can be spread over many machines.
//!
//! A sweep file is a run configuration with a `[sweep]` table:
//!
//! ```toml
//! [network]
//! topology = "mesh:8x8"
//! [traffic]
//! packet = 20
//! [stats]
//! cycles = 20000
//! warmup = 2000
//! [sweep]
//! "traffic.load" = [0.05, 0.1, 0.2]
//! "network.router" = ["tree", "wormhole"]
//! replicates = 2
//! ```
//!
//! Each key is a field (`section.field`), its list the values it takes;
//! the jobs are every combination, the first key's values changing
//! slowest, each `replicates` times (1 by default). A job's traffic seed is
//! derived from the base seed and its key (its fields' values and its
//! replicate), so it does not change when values are added elsewhere in
//! the grid; sweeping `traffic.seed` sets it instead. No two jobs are the
//! same run: a value listed twice, or replicates of a swept seed, are
//! refused.
//!
//! Every job of a run's shard is checked before any runs, against its
//! built network too (its size, shape and buffers), and the first bad one
//! is refused by name.
//!
//! A run appends one JSON line per finished job to a journal in its output
//! folder (`journal.jsonl`, or `journal.shard-K-of-N.jsonl` for a shard)
//! and flushes it, so a run that stops is resumed by running it again:
//! the jobs already in the journal are skipped (a torn last line, from a
//! run killed while writing, is dropped and its job run again). A run
//! locks its journal, so a second run of the same shard into the same
//! folder is refused. `merge`
//! turns journals into `sweep.csv` (one row per job, in job order) and
//! `sweep.jsonl` (every job's whole result); an unsharded run writes them
//! the same way, so the shards of a sweep merge into the same bytes as one
//! run. A job whose run ends in a finding (a deadlock, a network that did
//! not drain) is recorded with its error; the sweep then exits with 1.
//!
//! Nothing here holds a sweep's jobs or results: a job is built from its
//! number where it is checked or run, journals are read a line at a time,
//! and a merge keeps where each job's line is and reads the lines again in
//! job order, so a sweep of [`MAX_JOBS`] jobs runs and merges in tens of
//! megabytes.

use super::{Shard, fnv, fnv_bytes};
use crate::engine::config::Plan;
use crate::engine::{self, RouterModel, RunConfig, TopoSpec};
pub use crate::memory::megabytes;
use crate::memory::{Budget, Held};
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{BufRead as _, BufReader, BufWriter, Write as _};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

pub use super::MAX_JOBS;

/// A parsed sweep file.
#[derive(Clone, Debug)]
pub struct Sweep {
    /// The configuration without `[sweep]`.
    base: toml::Table,
    /// `(field, values)` in file order.
    axes: Vec<(String, Vec<toml::Value>)>,
    replicates: u32,
    /// The folder relative files are taken from.
    dir: PathBuf,
    /// Identifies the sweep: a hash of its canonical text.
    id: String,
}

/// One job of a sweep.
#[derive(Clone, Debug)]
pub struct Job {
    /// Its index, from 0 in job order.
    pub index: usize,
    /// Each swept field and the value it takes, as written.
    pub params: Vec<(String, String)>,
    /// Which replicate (from 0).
    pub replicate: u32,
    /// Its traffic seed.
    pub seed: u64,
    /// The whole run configuration.
    pub config: RunConfig,
    /// `job N (field=value;...;replicate=R)`, as errors name it.
    pub name: String,
}

/// Checks the traffic of the jobs `indices` of `sweep` against their
/// networks before any job runs: what a run checks only once its router
/// model is built (a pattern the network's size or shape does not take, a
/// node a hot spot names that it does not have, a packet longer than its
/// buffers hold). Jobs that differ only in their load and seed share a
/// network, built once for them all; each worker thread holds one network
/// at a time, as a run of the jobs does. A job is built again where it is
/// needed rather than kept, so a shard of many jobs holds their indices
/// only. The first bad job, in job order, is refused by name.
fn check_on_networks(sweep: &Sweep, indices: &[usize], share: &Share) -> Result<()> {
    let mut keys: HashMap<String, usize> = HashMap::new();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for &i in indices {
        let job = sweep.job(i)?;
        let mut shared = job.config;
        shared.traffic.load = None;
        shared.traffic.seed = None;
        let key = toml::to_string(&shared).map_err(|e| bad(job.name, e.to_string()))?;
        let g = *keys.entry(key).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[g].push(i);
    }
    drop(keys);
    let first_bad = crate::par::map_workers(groups, share.workers, |group| {
        let refuse = |j: &Job, e: String| Some((j.index, bad(j.name.clone(), e)));
        let j0 = match sweep.job(group[0]) {
            Ok(j) => j,
            Err(e) => return Some((group[0], e)),
        };
        let p0 = match j0.config.plan() {
            Ok(p) => p,
            Err(e) => return refuse(&j0, e.to_string()),
        };
        let _held = match share.reckon.hold(share.budget, &j0, &p0) {
            Ok(h) => h,
            Err(e) => return Some((j0.index, e)),
        };
        // Built and checked in the pool, where the network's nested
        // work runs.
        share.pool.install(|| {
            let net = match engine::prepare(
                &p0.topology,
                p0.router,
                p0.routing.as_deref(),
                &p0.options,
            ) {
                Ok(n) => n,
                Err(e) => return refuse(&j0, e.to_string()),
            };
            group.iter().find_map(|&i| {
                let j = match sweep.job(i) {
                    Ok(j) => j,
                    Err(e) => return Some((i, e)),
                };
                let r = j
                    .config
                    .plan()
                    .map_err(|e| e.to_string())
                    .and_then(|p| net.check_other(&p.options).map_err(|e| e.to_string()));
                r.err().and_then(|e| refuse(&j, e))
            })
        })
    });
    match first_bad.into_iter().flatten().min_by_key(|(i, _)| *i) {
        Some((_, e)) => Err(e),
        None => Ok(()),
    }
}

fn bad(value: impl Into<String>, reason: impl Into<String>) -> Error {
    Error::Config {
        field: "sweep",
        value: value.into(),
        reason: reason.into(),
    }
}

/// splitmix64's finaliser: spreads a seed's bits.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A TOML value as the CSV and the job key show it: strings bare.
fn show(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A TOML value as an error names it: as [`toml::Value`] writes it, but
/// a number too large or too small for a few digits in exponent form
/// (`1e300`, not its 301 digits), a long list by its ends and length, and
/// a long string or table cut, so that a refusal stays a line.
fn brief(v: &toml::Value) -> String {
    const MOST: usize = 80;
    match v {
        toml::Value::Float(x) if v.to_string().len() > 24 => crate::error::show_number(*x),
        toml::Value::Array(a) if a.len() > 6 => format!(
            "[{}, ..., {}] ({} values)",
            a[..3].iter().map(brief).collect::<Vec<_>>().join(", "),
            brief(&a[a.len() - 1]),
            a.len()
        ),
        toml::Value::Array(a) => {
            format!("[{}]", a.iter().map(brief).collect::<Vec<_>>().join(", "))
        }
        other => {
            let t = other.to_string();
            match t.char_indices().nth(MOST) {
                Some((at, _)) => format!("{}...", &t[..at]),
                None => t,
            }
        }
    }
}

/// Sets `path` (`section.field`) in `t` to `v`.
fn assign(t: &mut toml::Table, path: &str, v: toml::Value) -> Result<()> {
    let parts: Vec<&str> = path.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err(bad(
            path,
            "a swept field is named section.field, e.g. traffic.load",
        ));
    }
    let mut at = t;
    for p in &parts[..parts.len() - 1] {
        let entry = at
            .entry(p.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        at = entry
            .as_table_mut()
            .ok_or_else(|| bad(path, format!("`{p}` is a value, not a section")))?;
    }
    at.insert(parts[parts.len() - 1].to_string(), v);
    Ok(())
}

impl Sweep {
    /// Reads a sweep file.
    pub fn load(path: impl AsRef<Path>) -> Result<Sweep> {
        let path = path.as_ref();
        let text = crate::read_text(path)?;
        let mut s = Sweep::parse(&text).map_err(|e| e.in_file(path))?;
        // Files the sweep names are taken from its folder, named by its
        // whole path: a job's result (its topology's name) is then the
        // same whatever folder the sweep is run from, so shards run
        // elsewhere (a Slurm task starts in --out) merge into the bytes
        // of one run.
        let whole = std::fs::canonicalize(path).map_err(|e| Error::io(path, e))?;
        s.dir = whole.parent().unwrap_or(Path::new("/")).to_path_buf();
        // The files' contents are part of the sweep: a journal of results
        // on a topology since changed is another sweep's, not resumed.
        let mut files = String::new();
        for f in s.files() {
            if let Ok(bytes) = std::fs::read(s.dir.join(&f)) {
                let _ = write!(files, "{f}:{:016x};", fnv_bytes(&bytes));
            }
        }
        if !files.is_empty() {
            s.id = format!("{:016x}", fnv(&format!("{}{files}", s.id)));
        }
        Ok(s)
    }

    /// Parses a sweep from TOML (relative files are taken from the
    /// current folder).
    pub fn parse(text: &str) -> Result<Sweep> {
        let mut base: toml::Table =
            toml::from_str(text).map_err(|e| crate::net::toml_error(text, e))?;
        let sweep = match base.remove("sweep") {
            Some(toml::Value::Table(t)) => t,
            Some(_) => {
                return Err(bad(
                    "sweep",
                    "[sweep] is a table of fields and their values",
                ));
            }
            None => {
                return Err(bad(
                    "[sweep]",
                    "missing: a sweep file is a run configuration with a [sweep] table of field = [values]",
                ));
            }
        };
        let mut axes = Vec::new();
        let mut replicates = 1u32;
        for (k, v) in sweep {
            if k == "replicates" {
                replicates = v
                    .as_integer()
                    .filter(|n| (1..=MAX_JOBS as i64).contains(n))
                    .map(|n| n as u32)
                    .ok_or_else(|| {
                        bad(
                            format!("replicates = {}", brief(&v)),
                            format!("a count of 1 to {MAX_JOBS} (the most jobs a sweep may have)"),
                        )
                    })?;
                continue;
            }
            let values = match v {
                toml::Value::Array(a) if !a.is_empty() => a,
                // `traffic.load = [...]` unquoted is a table in TOML: its
                // fields would come in the tables' order, not the file's,
                // and the job order with them.
                toml::Value::Table(t) => {
                    let inner = t.keys().next().map_or(String::new(), |f| format!(".{f}"));
                    return Err(bad(
                        format!("{k} = {}", brief(&toml::Value::Table(t.clone()))),
                        format!(
                            "a swept field's name is one quoted key, \"{k}{inner}\" = [...]; \
                             unquoted, TOML reads it as a table"
                        ),
                    ));
                }
                _ => {
                    return Err(bad(
                        format!("{k} = {}", brief(&v)),
                        "each swept field takes a non-empty list of values",
                    ));
                }
            };
            if k == "output.vcd" || k.starts_with("output.trace") {
                return Err(bad(
                    k,
                    "a sweep writes no waveforms; run one job with wormcast run --config",
                ));
            }
            // A value listed twice gives two jobs with the same key, so the
            // same seed: the same run twice, not a replicate.
            let mut seen = std::collections::HashSet::with_capacity(values.len());
            if let Some(v) = values.iter().find(|v| !seen.insert(v.to_string())) {
                return Err(bad(
                    format!("{k} = {}", brief(&toml::Value::Array(values.clone()))),
                    format!(
                        "{} is listed twice: its jobs would be the same run (same seed); \
                         for repeated runs give replicates = N",
                        brief(v)
                    ),
                ));
            }
            axes.push((k, values));
        }
        if replicates > 1 && axes.iter().any(|(k, _)| k == "traffic.seed") {
            return Err(bad(
                format!("replicates = {replicates}"),
                "with traffic.seed swept, each job runs the seed it lists, so every replicate \
                 would be the same run: list more seeds instead",
            ));
        }
        if base.get("output").and_then(|o| o.get("vcd")).is_some() {
            return Err(bad(
                "output.vcd",
                "a sweep writes no waveforms; run one job with wormcast run --config",
            ));
        }
        if base.get("traffic").and_then(|t| t.get("trace")).is_some()
            || axes.iter().any(|(k, _)| k == "traffic.trace")
        {
            return Err(bad(
                "traffic.trace",
                "a sweep runs open- or closed-loop traffic; replay a trace with wormcast run --config",
            ));
        }
        axes.iter()
            .try_fold(replicates as usize, |n, (_, v)| n.checked_mul(v.len()))
            .filter(|&n| n <= MAX_JOBS)
            .ok_or_else(|| bad("the grid", format!("more than {MAX_JOBS} jobs")))?;
        let mut canon = toml::to_string(&base).unwrap_or_default();
        for (k, v) in &axes {
            let _ = writeln!(canon, "{k} = {}", toml::Value::Array(v.clone()));
        }
        let _ = writeln!(canon, "replicates = {replicates}");
        Ok(Sweep {
            base,
            axes,
            replicates,
            dir: PathBuf::new(),
            id: format!("{:016x}", fnv(&canon)),
        })
    }

    /// The files the sweep's jobs may read, as written: its topologies
    /// that are not generated (`network.topology`) and its permutations
    /// (`traffic.pattern` = `permutation:FILE`).
    fn files(&self) -> Vec<String> {
        let field = |section: &str, key: &str| {
            self.base
                .get(section)
                .and_then(|t| t.get(key))
                .into_iter()
                .chain(
                    self.axes
                        .iter()
                        .filter(|(k, _)| *k == format!("{section}.{key}"))
                        .flat_map(|(_, v)| v.iter()),
                )
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect::<Vec<_>>()
        };
        let mut out: Vec<String> = field("network", "topology")
            .into_iter()
            .filter(|t| !t.contains(':'))
            .collect();
        out.extend(
            field("traffic", "pattern")
                .iter()
                .filter_map(|p| p.strip_prefix("permutation:").map(str::to_string)),
        );
        out
    }

    /// The sweep's identity (a hash of its canonical text and of the
    /// contents of the files it names): the journals of another sweep are
    /// refused.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The swept fields, in file order.
    pub fn fields(&self) -> Vec<&str> {
        self.axes.iter().map(|(k, _)| k.as_str()).collect()
    }

    /// Number of jobs.
    pub fn len(&self) -> usize {
        self.axes.iter().map(|(_, v)| v.len()).product::<usize>() * self.replicates as usize
    }

    /// True for a sweep of no jobs (never: every list has a value).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Job `index` (`index < len()`), its configuration checked.
    pub fn job(&self, index: usize) -> Result<Job> {
        let mut t = self.base.clone();
        let mut rest = index / self.replicates as usize;
        let replicate = (index % self.replicates as usize) as u32;
        let mut picks = vec![0usize; self.axes.len()];
        for (a, (_, v)) in self.axes.iter().enumerate().rev() {
            picks[a] = rest % v.len();
            rest /= v.len();
        }
        let mut params = Vec::with_capacity(self.axes.len());
        let mut key = String::new();
        // The key as an error shows it (the key itself seeds the job).
        let mut shown = String::new();
        let mut seeded = false;
        for ((k, v), &p) in self.axes.iter().zip(&picks) {
            assign(&mut t, k, v[p].clone())?;
            params.push((k.clone(), show(&v[p])));
            let _ = write!(key, "{k}={};", v[p]);
            let _ = write!(shown, "{k}={};", brief(&v[p]));
            seeded |= k == "traffic.seed";
        }
        let _ = write!(key, "replicate={replicate}");
        let name = format!("job {index} ({shown}replicate={replicate})");
        let mut config = RunConfig::deserialize(toml::Value::Table(t)).map_err(|e| {
            bad(
                name.clone(),
                format!("not a run configuration: {}", crate::net::toml_message(&e)),
            )
        })?;
        config.resolve_paths(&self.dir);
        let seed = if seeded {
            config.traffic.seed.unwrap_or(1)
        } else {
            // 48 bits: exact in any JSON reader.
            mix(config.traffic.seed.unwrap_or(1) ^ fnv(&key)) & ((1 << 48) - 1)
        };
        config.traffic.seed = Some(seed);
        config
            .plan()
            .and_then(|p| p.options.check())
            .map_err(|e| bad(name.clone(), e.to_string()))?;
        Ok(Job {
            index,
            params,
            replicate,
            seed,
            config,
            name,
        })
    }

    /// Every job, each configuration checked (the first bad one refused).
    /// A sweep may have [`MAX_JOBS`] jobs, each a whole configuration:
    /// [`Sweep::check`] checks them all without keeping them.
    pub fn jobs(&self) -> Result<Vec<Job>> {
        (0..self.len()).map(|i| self.job(i)).collect()
    }

    /// Checks every job's configuration (the first bad one refused), one
    /// job at a time.
    pub fn check(&self) -> Result<()> {
        (0..self.len()).try_for_each(|i| self.job(i).map(drop))
    }
}

/// One line of a journal.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Record {
    /// The sweep's identity.
    pub sweep: String,
    /// The build of wormcast that ran the job ([`crate::BUILD`]; empty in
    /// a journal of a build before it was recorded).
    #[serde(default)]
    pub build: String,
    /// How many jobs the sweep has.
    pub jobs: usize,
    /// This job's index.
    pub job: usize,
    /// Its replicate.
    pub replicate: u32,
    /// Its traffic seed.
    pub seed: u64,
    /// The swept fields and their values.
    pub params: Vec<(String, String)>,
    /// The run's result (`wormcast run --json`), or none with an error.
    pub result: Option<serde_json::Value>,
    /// What ended the run, when it found something (a deadlock, a network
    /// that did not drain).
    pub error: Option<String>,
    /// A hash of the line's other fields as written (FNV-1a of the line's
    /// JSON without it, in 16 hex digits), which a reader holds the line
    /// to: a line changed after it was written (a digit of a result, a
    /// field) is refused, not merged or resumed as it reads. Empty in a
    /// journal of a build before it was kept.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub check: String,
}

impl Record {
    /// The [`check`](Record::check) the record's line should hold: FNV-1a
    /// of its JSON without the check, in 16 hex digits. The check is taken
    /// out while the line is made and put back, so nothing is copied.
    fn check_due(&mut self) -> Result<String> {
        let held = std::mem::take(&mut self.check);
        let line = serde_json::to_vec(self);
        self.check = held;
        Ok(format!("{:016x}", fnv_bytes(&line?)))
    }

    /// The record with its check made.
    fn seal(mut self) -> Result<Record> {
        self.check = self.check_due()?;
        Ok(self)
    }
}

/// A journal's build as a message names it.
fn build_name(build: &str) -> String {
    if build.is_empty() {
        "a build of wormcast that did not record itself".into()
    } else {
        format!("wormcast {build}")
    }
}

/// The journal a run of `shard` keeps in `out`.
pub fn journal_path(out: &Path, shard: Shard) -> PathBuf {
    if shard == Shard::ALL {
        out.join("journal.jsonl")
    } else {
        out.join(format!(
            "journal.shard-{}-of-{}.jsonl",
            shard.index, shard.count
        ))
    }
}

/// Reads a journal line by line, giving `each` every whole line's record
/// and the byte it starts at; returns the length of the whole lines (a
/// torn last line is neither given nor counted). A journal that does not
/// exist has no lines. One line is held at a time, so a journal of a
/// million jobs is read in the memory of one.
fn scan_journal(path: &Path, mut each: impl FnMut(u64, Record) -> Result<()>) -> Result<u64> {
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(Error::io(path, e)),
    };
    let mut reader = BufReader::new(file);
    let mut line = Vec::new();
    let (mut at, mut n) = (0u64, 0usize);
    loop {
        line.clear();
        let got = reader
            .read_until(b'\n', &mut line)
            .map_err(|e| Error::io(path, e))?;
        if line.last() != Some(&b'\n') {
            return Ok(at);
        }
        n += 1;
        if got > 1 {
            let place = || format!("{}:{n}", path.display());
            each(at, journal_line(place, &line[..got - 1])?)?;
        }
        at += got as u64;
    }
}

/// A journal's line, parsed and checked; `place` names it in an error.
fn journal_line(place: impl Fn() -> String, line: &[u8]) -> Result<Record> {
    let refuse = |reason: String| Error::Config {
        field: "journal",
        value: place(),
        reason,
    };
    let mut r: Record = serde_json::from_slice(line).map_err(|e| {
        if line.trim_ascii_start().first() == Some(&b'{') {
            refuse(format!("not a journal line: {e}"))
        } else {
            // Not JSON at all: most likely another file given for a
            // journal (the sweep file itself, or its CSV).
            refuse(
                "not a journal line: a journal holds one JSON object a line, as `wormcast sweep \
                 run` writes them in its --out folder (journal.jsonl, or \
                 journal.shard-K-of-N.jsonl for a shard)"
                    .into(),
            )
        }
    })?;
    if r.jobs == 0 || r.jobs > MAX_JOBS {
        return Err(refuse(format!(
            "a sweep of {} jobs: a sweep has 1 to {MAX_JOBS}",
            r.jobs
        )));
    }
    if r.job >= r.jobs {
        return Err(refuse(format!(
            "job {} of a sweep of {}",
            r.job,
            crate::counted(r.jobs as u64, "jobs")
        )));
    }
    if r.check.is_empty() {
        return Err(refuse(format!(
            "the line has no check: {} wrote it, before lines were checked (merge it with that \
             build), or the check was taken out",
            build_name(&r.build)
        )));
    }
    let due = r.check_due()?;
    if r.check != due {
        return Err(refuse(format!(
            "its check {} is not that of its text: the line was changed after it was written",
            r.check
        )));
    }
    Ok(r)
}

/// The journals a merge reads, each opened when a record is wanted from
/// it; at most [`Journals::OPEN`] are open at once, so a merge of more
/// shards than a process may open files still runs. Where the process's
/// limit on open files is lower still (`ulimit -n`: 256 by default on
/// some systems), a journal that cannot be opened for it closes the
/// others, and as many as were open become the most.
struct Journals<'a> {
    paths: &'a [PathBuf],
    /// Each journal's reader and the byte it stands at.
    open: Vec<Option<(BufReader<std::fs::File>, u64)>>,
    /// How many are open, and how many may be.
    count: usize,
    most: usize,
    line: Vec<u8>,
}

impl<'a> Journals<'a> {
    const OPEN: usize = 256;

    fn new(paths: &'a [PathBuf], most: usize) -> Self {
        Journals {
            paths,
            open: (0..paths.len()).map(|_| None).collect(),
            count: 0,
            most: most.max(1),
            line: Vec::new(),
        }
    }

    /// The record of the line at byte `at` of journal `f`.
    fn read(&mut self, f: usize, at: u64) -> Result<Record> {
        let path = &self.paths[f];
        if self.open[f].is_none() {
            if self.count == self.most {
                self.open.iter_mut().for_each(|o| *o = None);
                self.count = 0;
            }
            let file = match std::fs::File::open(path) {
                Err(e) if e.raw_os_error() == Some(libc::EMFILE) && self.count > 0 => {
                    self.most = self.count;
                    self.open.iter_mut().for_each(|o| *o = None);
                    self.count = 0;
                    std::fs::File::open(path)
                }
                opened => opened,
            }
            .map_err(|e| Error::io(path, e))?;
            self.open[f] = Some((BufReader::new(file), 0));
            self.count += 1;
        }
        let (reader, pos) = self.open[f].as_mut().expect("opened above");
        reader
            .seek_relative(at as i64 - *pos as i64)
            .map_err(|e| Error::io(path, e))?;
        self.line.clear();
        let got = reader
            .read_until(b'\n', &mut self.line)
            .map_err(|e| Error::io(path, e))?;
        *pos = at + got as u64;
        if self.line.last() != Some(&b'\n') {
            return Err(Error::Config {
                field: "journal",
                value: path.display().to_string(),
                reason: "it changed while it was merged".into(),
            });
        }
        journal_line(
            || format!("{} (the line at byte {at})", path.display()),
            &self.line[..got - 1],
        )
    }
}

/// What a run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Jobs of the shard run now.
    pub ran: usize,
    /// Jobs of the shard found finished in the journal.
    pub skipped: usize,
    /// Jobs of the shard whose run ended in a finding (a deadlock, a
    /// network that did not drain), now or before.
    pub findings: usize,
    /// The files written (the journal; and the results when unsharded).
    pub written: Vec<PathBuf>,
    /// The memory the jobs could hold at once, in bytes: the budget given,
    /// or the memory available (see [`run_within`]).
    pub memory_budget: u128,
    /// The most memory the jobs running at once were reckoned to take.
    pub memory_most: u128,
    /// Jobs that waited for others to finish before their reckoning fitted
    /// beside them, while the networks were checked or as the jobs ran:
    /// each job once, however many times it waited.
    pub waited: usize,
    /// The worker threads the jobs ran on, side by side.
    pub workers: usize,
    /// Jobs run on fewer threads than their configuration asks for, and
    /// the most any asked for: a job runs on one thread while jobs of the
    /// shard are still to start, and on more only of the cores no running
    /// job holds (a job's threads change its time, not its result).
    pub fewer_threads: (usize, usize),
}

/// Runs the jobs of `shard` not yet in its journal in `out`, in parallel,
/// appending each to the journal as it finishes; calls `progress` after
/// each. An unsharded run then writes the results (see [`merge`]). The
/// jobs share the memory available ([`run_within`]).
pub fn run(
    sweep: &Sweep,
    out: &Path,
    shard: Shard,
    progress: &(dyn Fn() + Sync),
) -> Result<Outcome> {
    run_within(sweep, out, shard, None, progress)
}

/// A memory budget given to a sweep ([`run_within`]), and what gave it,
/// for the message that refuses a job past it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryBudget {
    /// Bytes the jobs running at once may be reckoned to take.
    pub bytes: u64,
    /// What gave it: "the sweep's --memory", or the Slurm job's
    /// allocation with the variable it was read from.
    pub given_by: String,
}

impl MemoryBudget {
    /// A budget given on the command line (`--memory`).
    pub fn given(bytes: u64) -> MemoryBudget {
        MemoryBudget {
            bytes,
            given_by: "the sweep's --memory".into(),
        }
    }
}

/// [`run`], its jobs together holding at most `memory` (None: the memory
/// available as the sweep starts, that of the process's control group
/// where it has a limit). Each job holds the memory its network is
/// reckoned to take ([`engine::reckoned_bytes`]) while it is checked and
/// while it runs; a job that does not fit beside those running waits for
/// them, and one that does not fit alone is refused by name. The jobs run
/// on as many threads as the current pool has: they wait for memory on
/// threads of their own and run, nested work and all, in a pool of that
/// many threads.
pub fn run_within(
    sweep: &Sweep,
    out: &Path,
    shard: Shard,
    memory: Option<MemoryBudget>,
    progress: &(dyn Fn() + Sync),
) -> Result<Outcome> {
    let workers = crate::par::workers();
    let pool = crate::par::Pool::new(workers);
    let budget = Budget::new(memory.as_ref().map(|m| m.bytes));
    let given_by = memory.map_or_else(|| "memory available".to_string(), |m| m.given_by);
    let reckon = Reckoner {
        files: Mutex::default(),
        given_by,
        waited: Mutex::default(),
    };
    let mine: Vec<usize> = (0..sweep.len()).filter(|&j| shard.has(j)).collect();
    let cores = Cores::new(workers);
    let share = Share {
        workers,
        pool: &pool,
        budget: &budget,
        reckon: &reckon,
    };
    check_on_networks(sweep, &mine, &share)?;
    crate::make_dir(out)?;
    let path = journal_path(out, shard);
    let file = super::open_journal(&path, "sweep")?;
    let mut finished = vec![false; sweep.len()];
    let mut findings = 0;
    let whole = scan_journal(&path, |_, r| {
        if r.sweep != sweep.id() || r.jobs != sweep.len() {
            return Err(Error::Config {
                field: "journal",
                value: path.display().to_string(),
                reason: format!(
                    "it holds results of another sweep (sweep {}, this one {}): give another --out",
                    r.sweep,
                    sweep.id()
                ),
            });
        }
        if r.build != crate::BUILD {
            return Err(Error::Config {
                field: "journal",
                value: path.display().to_string(),
                reason: format!(
                    "its results were made by {}, this is wormcast {}: the two models may differ, \
                     so a sweep is finished by the build that began it (or begun again with \
                     another --out)",
                    build_name(&r.build),
                    crate::BUILD
                ),
            });
        }
        if !std::mem::replace(&mut finished[r.job], true) {
            findings += r.error.is_some() as usize;
        }
        Ok(())
    })?;
    // Drop a torn last line: its job runs again.
    if file.metadata().map_err(|e| Error::io(&path, e))?.len() > whole {
        file.set_len(whole).map_err(|e| Error::io(&path, e))?;
    }
    let journal = Mutex::new(BufWriter::new(file));
    let pending: Vec<usize> = mine.into_iter().filter(|&j| !finished[j]).collect();
    let skipped = (0..sweep.len())
        .filter(|&j| shard.has(j) && finished[j])
        .count();
    let ran = pending.len();
    cores.expect(ran);
    let results = crate::par::map_workers(pending, workers, |index| -> Result<bool> {
        // Once a stop is asked for, no job starts.
        if let Some(s) = crate::interrupt::requested() {
            return Err(crate::interrupt::stopped(s, String::new()));
        }
        let job = sweep.job(index)?;
        let mut plan = job.config.plan()?;
        let router = plan
            .router
            .unwrap_or_else(|| RouterModel::for_topology(&plan.topology)[0]);
        let threads = cores.take(plan.options.threads_for(router));
        plan.options = plan.options.with_threads_at_most(threads.count);
        let _held = reckon.hold(&budget, &job, &plan)?;
        let r = pool
            .install(|| {
                engine::run(
                    &plan.topology,
                    plan.router,
                    plan.routing.as_deref(),
                    &plan.options,
                )
            })
            .map_err(|e| match e {
                // A finding is the job's result; anything else stops the
                // sweep, naming the job it stopped at (a stop asked for
                // is the sweep's, below).
                Error::Deadlock(_)
                | Error::DirectDeadlock(_)
                | Error::TreeDeadlock(_)
                | Error::NotDrained { .. }
                | Error::Interrupted { .. } => e,
                e => bad(job.name.clone(), e.to_string()),
            });
        let (result, error) = match r {
            Ok(r) => (Some(serde_json::to_value(&r)?), None),
            Err(
                e @ (Error::Deadlock(_)
                | Error::DirectDeadlock(_)
                | Error::TreeDeadlock(_)
                | Error::NotDrained { .. }),
            ) => (None, Some(e.to_string())),
            Err(e) => return Err(e),
        };
        let found = error.is_some();
        let rec = Record {
            sweep: sweep.id().to_string(),
            build: crate::BUILD.to_string(),
            jobs: sweep.len(),
            job: job.index,
            replicate: job.replicate,
            seed: job.seed,
            params: job.params,
            result,
            error,
            check: String::new(),
        }
        .seal()?;
        let mut line = serde_json::to_vec(&rec)?;
        line.push(b'\n');
        let mut w = journal.lock().unwrap_or_else(|p| p.into_inner());
        w.write_all(&line)
            .and_then(|()| w.flush())
            .map_err(|e| Error::io(&path, e))?;
        drop(w);
        progress();
        Ok(found)
    });
    // A stop asked for leaves the jobs finished in the journal, each a
    // whole line, and the jobs it cut short out of it, to run again (one
    // that came once every job had finished stops nothing).
    let journaled = skipped + results.iter().filter(|r| r.is_ok()).count();
    let mine = skipped + ran;
    if let Some(s) = crate::interrupt::requested()
        && journaled < mine
    {
        return Err(crate::interrupt::stopped(
            s,
            format!(
                "with {journaled} of {} jobs in the journal {}: `sweep run` again runs the other {}",
                if shard == Shard::ALL {
                    format!("the sweep's {mine}")
                } else {
                    format!("shard {}/{}'s {mine}", shard.index, shard.count)
                },
                path.display(),
                mine - journaled
            ),
        ));
    }
    for r in results {
        findings += r? as usize;
    }
    let mut written = vec![path.clone()];
    if shard == Shard::ALL {
        written.extend(merge(&[path], out)?);
    }
    Ok(Outcome {
        ran,
        skipped,
        findings,
        written,
        memory_budget: budget.budget(),
        memory_most: budget.most(),
        waited: reckon
            .waited
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .len(),
        workers,
        fewer_threads: cores.fewer(),
    })
}

/// The sweep's workers as the cores its jobs' own threads share. A job's
/// threads (its network evaluated on several) change no result, only the
/// time; but jobs running side by side on every worker, each on several
/// threads, put more threads to work than there are cores, and the
/// threads of one network wait for each other by spinning: on 2 cores, a
/// sweep of 1,024-switch jobs on 2 threads each took 4.5 times as long as
/// on one thread each. So a job runs on one thread while jobs of its shard
/// are still to start (one per worker keeps every core busy), and on more,
/// up to what it asks for, only once every job has started, of the cores
/// no running job holds.
struct Cores {
    workers: usize,
    /// Threads held by the jobs running, and the jobs not started yet.
    state: Mutex<(usize, usize)>,
    /// Jobs given fewer threads than they asked for, and the most asked.
    fewer: Mutex<(usize, usize)>,
}

/// Threads a job of a sweep runs on ([`Cores::take`]), handed back when
/// this is dropped.
struct Threads<'a> {
    cores: &'a Cores,
    count: usize,
}

impl Cores {
    fn new(workers: usize) -> Self {
        Cores {
            workers: workers.max(1),
            state: Mutex::new((0, 0)),
            fewer: Mutex::new((0, 0)),
        }
    }

    fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
        m.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// `jobs` are to start.
    fn expect(&self, jobs: usize) {
        Self::lock(&self.state).1 = jobs;
    }

    /// The threads a starting job that asks for `asked` runs on: one, and
    /// once no job is left to start, as many more of the free cores as it
    /// asks for.
    fn take(&self, asked: usize) -> Threads<'_> {
        let mut s = Self::lock(&self.state);
        s.1 = s.1.saturating_sub(1);
        let free = self.workers.saturating_sub(s.0 + 1);
        let extra = if s.1 == 0 {
            asked.saturating_sub(1).min(free)
        } else {
            0
        };
        let count = 1 + extra;
        s.0 += count;
        drop(s);
        if count < asked {
            let mut f = Self::lock(&self.fewer);
            f.0 += 1;
            f.1 = f.1.max(asked);
        }
        Threads { cores: self, count }
    }

    fn fewer(&self) -> (usize, usize) {
        *Self::lock(&self.fewer)
    }
}

impl Drop for Threads<'_> {
    fn drop(&mut self) {
        let mut s = Cores::lock(&self.cores.state);
        s.0 = s.0.saturating_sub(self.count);
    }
}

/// How a run's jobs share the machine: worker threads of their own, a pool
/// for their nested work, and the memory budget they hold their
/// reckonings of.
struct Share<'a> {
    workers: usize,
    pool: &'a crate::par::Pool,
    budget: &'a Budget,
    reckon: &'a Reckoner,
}

/// What each job's network is reckoned to take, a topology file read once
/// for all the jobs that name it.
struct Reckoner {
    files: Mutex<HashMap<PathBuf, u128>>,
    /// What gave the budget, for a refusal.
    given_by: String,
    /// The jobs whose hold waited for others to let go, while the
    /// networks were checked or the jobs run (each job once).
    waited: Mutex<std::collections::BTreeSet<usize>>,
}

impl Reckoner {
    /// Holds `job`'s reckoning of `budget` (see [`Budget::hold`]), or
    /// refuses the job by name where it alone exceeds the budget.
    fn hold<'a>(&self, budget: &'a Budget, job: &Job, plan: &Plan) -> Result<Held<'a>> {
        let files = || self.files.lock().unwrap_or_else(|p| p.into_inner());
        let known = match &plan.topology {
            TopoSpec::File(path) => files().get(path).copied(),
            _ => None,
        };
        let bytes = match known {
            Some(b) => b,
            None => {
                let b = engine::reckoned_bytes(&plan.topology, plan.router, &plan.options)
                    .map_err(|e| bad(job.name.clone(), e.to_string()))?;
                if let TopoSpec::File(path) = &plan.topology {
                    files().insert(path.clone(), b);
                }
                b
            }
        };
        let held = budget.hold(bytes).map_err(|most| {
            let given = &self.given_by;
            bad(
                job.name.clone(),
                format!(
                    "its network is reckoned at {}, more than the {} of {given}",
                    megabytes(bytes),
                    megabytes(most)
                ),
            )
        })?;
        if held.waited() {
            self.waited
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(job.index);
        }
        Ok(held)
    }
}

/// Columns of `sweep.csv` after the job's own and the swept fields, each
/// a path into the run's result.
const COLUMNS: [(&str, &str); 19] = [
    ("topology", "topology"),
    ("router", "router"),
    ("routing", "routing"),
    ("pattern", "pattern"),
    ("offered_load", "offered_load"),
    ("accepted_throughput", "accepted_throughput"),
    ("latency_mean", "latency.mean"),
    ("latency_p50", "latency.p50"),
    ("latency_p99", "latency.p99"),
    ("latency_max", "latency.max"),
    ("network_latency_mean", "network_latency.mean"),
    ("message_latency_mean", "message_latency.mean"),
    ("half_width", "interval.half_width"),
    // The latency the half-width is of, whether a stop rule was met (empty
    // without one) and the cycles measured (a stop rule ends a run early).
    ("stop_metric", "stop_metric"),
    ("stop_rule_met", "stop_rule_met"),
    ("measured_cycles", "measured_cycles"),
    ("generated", "generated"),
    ("delivered", "delivered"),
    ("saturated", "saturated"),
];

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn at_path<'a>(v: &'a serde_json::Value, path: &str) -> Option<&'a serde_json::Value> {
    path.split('.').try_fold(v, |v, k| v.get(k))
}

/// Joins journals (of the shards of one sweep) into `out/sweep.csv` (a row
/// per job, in job order: the job, its replicate and seed, the swept
/// fields, then the result's topology, router, load, throughput,
/// latencies and saturation, and the error of a run that found
/// something) and `out/sweep.jsonl` (every record, in job order). Every
/// job must be present, once (a job in two journals must have the same
/// record in both). Returns the two paths.
pub fn merge(journals: &[PathBuf], out: &Path) -> Result<Vec<PathBuf>> {
    merge_opening(journals, out, Journals::OPEN)
}

/// [`merge`], with at most `most` journals open at once.
fn merge_opening(journals: &[PathBuf], out: &Path, most: usize) -> Result<Vec<PathBuf>> {
    // Where each job's line is (journal, byte): a first pass over the
    // journals finds them, holding one line at a time; the second reads
    // them again in job order. A merge of a million jobs holds 16 bytes a
    // job, not every result.
    const NONE: (u32, u64) = (u32::MAX, 0);
    let mut at: Vec<(u32, u64)> = Vec::new();
    let mut sweep: Option<(String, usize)> = None;
    // The build of the first journal's first job, and that journal.
    let mut build: Option<(String, usize)> = None;
    let mut lookup = Journals::new(journals, most);
    for (f, path) in journals.iter().enumerate() {
        // A run starts from no journal; a merge is given journals that
        // exist (a misspelt shard is named, not taken as one of no jobs).
        std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
        let f = u32::try_from(f)
            .ok()
            .filter(|&f| f != NONE.0)
            .ok_or_else(|| Error::Config {
                field: "journal",
                value: format!("{} journals", journals.len()),
                reason: "more journals than a merge takes".into(),
            })?;
        scan_journal(path, |byte, r| {
            match &sweep {
                None => {
                    sweep = Some((r.sweep.clone(), r.jobs));
                    at = vec![NONE; r.jobs];
                }
                Some((id, n)) if *id != r.sweep || *n != r.jobs => {
                    return Err(Error::Config {
                        field: "journal",
                        value: path.display().to_string(),
                        reason: format!(
                            "its results are of sweep {} ({}), the others' of sweep {id} ({})",
                            r.sweep,
                            crate::counted(r.jobs as u64, "jobs"),
                            crate::counted(*n as u64, "jobs")
                        ),
                    });
                }
                Some(_) => {}
            }
            match &build {
                None => build = Some((r.build.clone(), f as usize)),
                Some((b, first)) if *b != r.build => {
                    return Err(Error::Config {
                        field: "journal",
                        value: path.display().to_string(),
                        reason: format!(
                            "job {} was run by {}, jobs of {} by {}: the two models may differ, \
                             and a sweep's results come from one build",
                            r.job,
                            build_name(&r.build),
                            journals[*first].display(),
                            build_name(b)
                        ),
                    });
                }
                Some(_) => {}
            }
            let (g, b) = at[r.job];
            if g == NONE.0 {
                at[r.job] = (f, byte);
            } else if lookup.read(g as usize, b)? != r {
                return Err(Error::Config {
                    field: "journal",
                    value: path.display().to_string(),
                    reason: format!("job {} is in two journals with different results", r.job),
                });
            }
            Ok(())
        })?;
    }
    let Some((_, jobs)) = sweep else {
        return Err(Error::Config {
            field: "journal",
            value: journals
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(" "),
            reason: "no finished job in them".into(),
        });
    };
    let missing: Vec<usize> = (0..jobs).filter(|&j| at[j] == NONE).collect();
    if !missing.is_empty() {
        let shown: Vec<String> = missing.iter().take(10).map(|j| j.to_string()).collect();
        return Err(Error::Config {
            field: "journal",
            value: format!(
                "{} of {}",
                jobs - missing.len(),
                crate::counted(jobs as u64, "jobs")
            ),
            reason: if missing.len() == 1 {
                format!(
                    "job {} is missing: run its shard (again) and merge every journal",
                    missing[0]
                )
            } else {
                format!(
                    "jobs {}{} are missing: run their shards (again) and merge every journal",
                    shown.join(", "),
                    if missing.len() > 10 { ", ..." } else { "" }
                )
            },
        });
    }
    crate::make_dir(out)?;
    let (c, j) = (out.join("sweep.csv"), out.join("sweep.jsonl"));
    // Written beside their names and renamed once whole: a journal given
    // from `out` (its own sweep.jsonl) is read to the end, and a merge
    // that fails leaves no half-written results.
    let (c_part, j_part) = (out.join("sweep.csv.part"), out.join("sweep.jsonl.part"));
    let written = write_results(&mut lookup, &at, &c_part, &j_part).and_then(|()| {
        std::fs::rename(&c_part, &c).map_err(|e| Error::io(&c, e))?;
        std::fs::rename(&j_part, &j).map_err(|e| Error::io(&j, e))
    });
    if written.is_err() {
        let _ = std::fs::remove_file(&c_part);
        let _ = std::fs::remove_file(&j_part);
    }
    written.map(|()| vec![c, j])
}

/// Writes `sweep.csv` and `sweep.jsonl` (to `csv` and `jsonl`) from the
/// records at `at`, in job order.
fn write_results(
    lookup: &mut Journals<'_>,
    at: &[(u32, u64)],
    csv: &Path,
    jsonl: &Path,
) -> Result<()> {
    let create = |p: &Path| {
        std::fs::File::create(p)
            .map(BufWriter::new)
            .map_err(|e| Error::io(p, e))
    };
    let (mut c, mut j) = (create(csv)?, create(jsonl)?);
    let mut row = String::new();
    for (job, &(f, byte)) in at.iter().enumerate() {
        let r = lookup.read(f as usize, byte)?;
        if r.job != job {
            return Err(Error::Config {
                field: "journal",
                value: lookup.paths[f as usize].display().to_string(),
                reason: "it changed while it was merged".into(),
            });
        }
        row.clear();
        if r.job == 0 {
            row.push_str("job,replicate,seed");
            for (k, _) in &r.params {
                row.push(',');
                row.push_str(&csv_field(k));
            }
            for (name, _) in COLUMNS {
                row.push(',');
                row.push_str(name);
            }
            row.push_str(",error\n");
        }
        let _ = write!(row, "{},{},{}", r.job, r.replicate, r.seed);
        for (_, v) in &r.params {
            row.push(',');
            row.push_str(&csv_field(v));
        }
        for (_, path) in COLUMNS {
            row.push(',');
            match r.result.as_ref().and_then(|v| at_path(v, path)) {
                Some(serde_json::Value::String(s)) => row.push_str(&csv_field(s)),
                Some(serde_json::Value::Null) | None => {}
                Some(v) => row.push_str(&v.to_string()),
            }
        }
        row.push(',');
        row.push_str(&csv_field(r.error.as_deref().unwrap_or("")));
        row.push('\n');
        c.write_all(row.as_bytes()).map_err(|e| Error::io(csv, e))?;
        serde_json::to_writer(&mut j, &r)?;
        j.write_all(b"\n").map_err(|e| Error::io(jsonl, e))?;
    }
    c.flush().map_err(|e| Error::io(csv, e))?;
    j.flush().map_err(|e| Error::io(jsonl, e))
}

/// The shard a Slurm job array task runs: `SLURM_ARRAY_TASK_ID` less
/// `SLURM_ARRAY_TASK_MIN` (0 when unset) of `SLURM_ARRAY_TASK_COUNT`.
pub fn slurm_shard(env: &dyn Fn(&str) -> Option<String>) -> Result<Shard> {
    let get = |name: &'static str| -> Result<Option<u32>> {
        match env(name) {
            None => Ok(None),
            Some(v) => super::count_u32(&v).map(Some).map_err(|why| Error::Config {
                field: "slurm",
                value: format!("{name}={v}"),
                reason: why,
            }),
        }
    };
    let need = |name: &'static str| -> Result<u32> {
        get(name)?.ok_or_else(|| Error::Config {
            field: "slurm",
            value: name.into(),
            reason: "not set: --slurm runs inside a Slurm job array (sbatch --array=0-N)".into(),
        })
    };
    let id = need("SLURM_ARRAY_TASK_ID")?;
    let count = need("SLURM_ARRAY_TASK_COUNT")?;
    let min = get("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
    // A stepped array (--array=0-6:2) numbers its tasks min, min + step,
    // ...: task min + k * step runs shard k. An array that is not evenly
    // spaced (--array=1,2,5) has no such numbering and is refused, or
    // some shards would run twice and others never.
    let step = get("SLURM_ARRAY_TASK_STEP")?.unwrap_or(1);
    let max = get("SLURM_ARRAY_TASK_MAX")?;
    let spaced = step > 0
        && count > 0
        && max.is_none_or(|max| {
            u64::from(min) + u64::from(count - 1) * u64::from(step) == u64::from(max)
        });
    let index = id
        .checked_sub(min)
        .filter(|&off| spaced && off % step == 0 && off / step < count)
        .map(|off| off / step)
        .ok_or_else(|| Error::Config {
            field: "slurm",
            value: format!(
                "task {id} of {count} (first {min}{}, step {step})",
                max.map_or(String::new(), |m| format!(", last {m}"))
            ),
            reason: "the array must be evenly spaced, e.g. --array=0-3 or --array=0-6:2".into(),
        })?;
    Shard::parse(&format!("{index}/{count}"))
}

/// The CPUs a Slurm task has, as a sweep's worker threads:
/// `SLURM_CPUS_PER_TASK` (sbatch's `--cpus-per-task`), else
/// `SLURM_CPUS_ON_NODE`; None where neither is set. A cluster that does
/// not bind its tasks to their CPUs shows each task every core, so the
/// count the job asked for is taken rather than the machine's.
pub fn slurm_cpus(env: &dyn Fn(&str) -> Option<String>) -> Result<Option<usize>> {
    for name in ["SLURM_CPUS_PER_TASK", "SLURM_CPUS_ON_NODE"] {
        if let Some(v) = env(name) {
            return match v.trim().parse::<usize>() {
                Ok(n) if n > 0 => Ok(Some(n)),
                _ => Err(Error::Config {
                    field: "slurm",
                    value: format!("{name}={v}"),
                    reason: "a whole number of CPUs, at least 1".into(),
                }),
            };
        }
    }
    Ok(None)
}

/// The memory a Slurm job gives each of its tasks, as a sweep's budget:
/// `SLURM_MEM_PER_NODE` (sbatch's `--mem`, in megabytes; 0, all of the
/// node's, is no budget), else `SLURM_MEM_PER_CPU` (`--mem-per-cpu`)
/// times the CPUs the task has on the node (`SLURM_CPUS_ON_NODE`, else
/// `SLURM_CPUS_PER_TASK`, else 1). None where the job names no memory.
/// Slurm does not stop a task at its allocation unless its cluster
/// constrains memory with control groups (where `--memory`'s default,
/// the memory available, finds the group's limit anyway); this keeps a
/// sweep to what the job asked for either way.
pub fn slurm_memory(env: &dyn Fn(&str) -> Option<String>) -> Result<Option<MemoryBudget>> {
    let get = |name: &'static str, of: &str| -> Result<Option<u64>> {
        match env(name) {
            None => Ok(None),
            Some(v) => match v.trim().parse::<u64>() {
                Ok(n) => Ok(Some(n)),
                Err(_) => Err(Error::Config {
                    field: "slurm",
                    value: format!("{name}={v}"),
                    reason: format!("a whole number of {of}"),
                }),
            },
        }
    };
    let megabytes = |mb: u64, from: String| -> Result<Option<MemoryBudget>> {
        match mb.checked_mul(1 << 20) {
            Some(0) => Ok(None),
            Some(bytes) => Ok(Some(MemoryBudget {
                bytes,
                given_by: format!("the Slurm job's memory ({from})"),
            })),
            None => Err(Error::Config {
                field: "slurm",
                value: from,
                reason: "more than 2^64 bytes".into(),
            }),
        }
    };
    if let Some(mb) = get("SLURM_MEM_PER_NODE", "megabytes")? {
        return megabytes(mb, format!("SLURM_MEM_PER_NODE={mb}"));
    }
    let Some(per_cpu) = get("SLURM_MEM_PER_CPU", "megabytes")? else {
        return Ok(None);
    };
    let (cpus, name) = match get("SLURM_CPUS_ON_NODE", "CPUs")? {
        Some(c) => (c, "SLURM_CPUS_ON_NODE"),
        None => (
            get("SLURM_CPUS_PER_TASK", "CPUs")?.unwrap_or(1),
            "SLURM_CPUS_PER_TASK",
        ),
    };
    match per_cpu.checked_mul(cpus.max(1)) {
        Some(mb) => megabytes(mb, format!("SLURM_MEM_PER_CPU={per_cpu} x {name}={cpus}")),
        None => Err(Error::Config {
            field: "slurm",
            value: format!("SLURM_MEM_PER_CPU={per_cpu}"),
            reason: "more than 2^64 bytes".into(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Journal lines edited by a test, each sealed again with its check,
    /// as a run that wrote them so would have.
    fn resealed(text: &str) -> String {
        text.lines()
            .map(|l| {
                let mut r: Record = serde_json::from_str(l).unwrap();
                r.check.clear();
                serde_json::to_string(&r.seal().unwrap()).unwrap() + "\n"
            })
            .collect()
    }

    const SMALL: &str = r#"
[network]
topology = "mesh:4x4"
[traffic]
packet = 6
[stats]
cycles = 3000
warmup = 500
batches = 3
[sweep]
"traffic.load" = [0.02, 0.05]
"network.router" = ["tree", "wormhole", "cut-through"]
replicates = 2
"#;

    #[test]
    fn jobs_span_the_grid_first_field_slowest_with_stable_seeds() {
        let s = Sweep::parse(SMALL).unwrap();
        assert_eq!(
            (s.len(), s.fields()),
            (12, vec!["traffic.load", "network.router"])
        );
        let jobs = s.jobs().unwrap();
        let p = |j: &Job| (j.params[0].1.clone(), j.params[1].1.clone(), j.replicate);
        assert_eq!(p(&jobs[0]), ("0.02".into(), "tree".into(), 0));
        assert_eq!(p(&jobs[1]), ("0.02".into(), "tree".into(), 1));
        assert_eq!(p(&jobs[2]), ("0.02".into(), "wormhole".into(), 0));
        assert_eq!(p(&jobs[11]), ("0.05".into(), "cut-through".into(), 1));
        assert_eq!(jobs[3].config.network.router.as_deref(), Some("wormhole"));
        assert_eq!(jobs[6].config.traffic.load, Some(0.05));
        let seeds: std::collections::HashSet<u64> = jobs.iter().map(|j| j.seed).collect();
        assert_eq!(seeds.len(), 12, "a seed per job");
        // Adding a value elsewhere keeps a job's seed.
        let more = Sweep::parse(&SMALL.replace("[0.02, 0.05]", "[0.02, 0.05, 0.08]")).unwrap();
        assert_eq!(more.job(0).unwrap().seed, jobs[0].seed);
        assert_ne!(more.id(), s.id());
    }

    #[test]
    fn bad_sweeps_are_refused_by_name() {
        let e = |t: &str| {
            Sweep::parse(t)
                .and_then(|s| s.jobs())
                .unwrap_err()
                .to_string()
        };
        assert!(e("[network]\n").contains("[sweep]"));
        // Not TOML: the line and column, on one line.
        assert_eq!(
            e("[sweep]\n\"traffic.load\" = [0.1]\n\"traffic.load\" = [0.2]\n"),
            "line 3, column 1: duplicate key"
        );
        assert!(e("[sweep]\n\"traffic.load\" = []\n").contains("non-empty list"));
        // Unquoted, a dotted name is a table: named, with the quoted form.
        assert_eq!(
            e("[sweep]\ntraffic.load = [0.1, 0.2]\n"),
            "configuration: sweep = traffic = { load = [0.1, 0.2] }: a swept field's name is \
             one quoted key, \"traffic.load\" = [...]; unquoted, TOML reads it as a table"
        );
        for n in ["0", "-1", "1000001", "100000000000", "1.5", "\"2\""] {
            let x = e(&format!(
                "[sweep]\nreplicates = {n}\n\"traffic.load\" = [0.1]\n"
            ));
            assert!(
                x.contains(&format!("replicates = {n}")) && x.contains("a count of 1 to 1000000"),
                "{x}"
            );
        }
        let x = e("[sweep]\n\"traffic.lod\" = [0.1]\n");
        assert!(
            x.contains("job 0") && x.contains("unknown field `lod`"),
            "{x}"
        );
        let x = e("[sweep]\n\"traffic.load\" = [0.1, 2.0]\n");
        assert!(x.contains("job 1") && x.contains("load"), "{x}");
        assert!(e("[sweep]\n\"output.vcd\" = [\"a.vcd\"]\n").contains("no waveforms"));
        assert!(
            e("[traffic]\ntrace = \"t.csv\"\n[sweep]\n\"traffic.load\" = [0.1]\n")
                .contains("replay")
        );
        let loads: Vec<String> = (1..=1001).map(|i| format!("{}", i as f64 / 1e4)).collect();
        let big = format!(
            "[sweep]\nreplicates = 1000\n\"traffic.load\" = [{}]\n",
            loads.join(",")
        );
        assert!(e(&big).contains("more than 1000000 jobs"));
        // A value listed twice would run the same job twice.
        let x = e("[sweep]\n\"traffic.load\" = [0.1, 0.2, 0.10]\n");
        assert!(
            x.contains("traffic.load = [0.1, 0.2, 0.1]") && x.contains("0.1 is listed twice"),
            "{x}"
        );
        // What an error shows of a value stays a line: a huge number in
        // exponent form (its 301 digits were written out), a long list by
        // its ends, a long string cut.
        assert_eq!(
            e("[sweep]\nreplicates = [1e300]\n"),
            "configuration: sweep = replicates = [1e300]: a count of 1 to 1000000 (the most \
             jobs a sweep may have)"
        );
        let x = e("[sweep]\n\"traffic.load\" = [1e300]\n");
        assert!(
            x.starts_with("configuration: sweep = job 0 (traffic.load=1e300;replicate=0): "),
            "{x}"
        );
        // serde's own refusal of a float where a whole number goes wrote
        // the float's 301 digits out too.
        assert_eq!(
            e("[sweep]\n\"traffic.packet\" = [1e300]\n"),
            "configuration: sweep = job 0 (traffic.packet=1e300;replicate=0): not a run \
             configuration: invalid type: floating point `1e300`, expected u32"
        );
        let many = vec!["0.125"; 100_000].join(", ");
        assert_eq!(
            e(&format!("[sweep]\n\"traffic.load\" = [{many}]\n")),
            "configuration: sweep = traffic.load = [0.125, 0.125, 0.125, ..., 0.125] (100000 \
             values): 0.125 is listed twice: its jobs would be the same run (same seed); for \
             repeated runs give replicates = N"
        );
        let long = "x".repeat(5000);
        let x = e(&format!("[sweep]\n\"traffic.pattern\" = [\"{long}\"]\n"));
        let cut = format!(
            "job 0 (traffic.pattern=\"{}...;replicate=0)",
            "x".repeat(79)
        );
        assert!(x.contains(&cut), "{x}");
        let x = e("[sweep]\n\"network.router\" = [\"tree\", \"tree\"]\n");
        assert!(x.contains("\"tree\" is listed twice"), "{x}");
        // Replicates of a swept seed would all be the same run.
        let x = e("[sweep]\n\"traffic.seed\" = [1, 2]\nreplicates = 3\n");
        assert!(
            x.contains("replicates = 3") && x.contains("list more seeds instead"),
            "{x}"
        );
        assert_eq!(
            Sweep::parse("[sweep]\n\"traffic.seed\" = [1, 2]\nreplicates = 1\n")
                .unwrap()
                .len(),
            2
        );
    }

    #[test]
    fn a_slurm_tasks_cpus_are_its_sweeps_workers() {
        let cpus = |vars: &'static [(&'static str, &'static str)]| {
            slurm_cpus(&move |k: &str| {
                vars.iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            })
        };
        let both = &[("SLURM_CPUS_ON_NODE", "8"), ("SLURM_CPUS_PER_TASK", "3")];
        assert_eq!(cpus(both).unwrap(), Some(3));
        assert_eq!(cpus(&[("SLURM_CPUS_ON_NODE", "8")]).unwrap(), Some(8));
        assert_eq!(cpus(&[("SLURM_MEM_PER_NODE", "8")]).unwrap(), None);
        for bad in ["0", "x", "-2"] {
            let vars: &'static [(&'static str, &'static str)] = match bad {
                "0" => &[("SLURM_CPUS_PER_TASK", "0")],
                "x" => &[("SLURM_CPUS_PER_TASK", "x")],
                _ => &[("SLURM_CPUS_ON_NODE", "-2")],
            };
            let e = cpus(vars).unwrap_err().to_string();
            assert!(e.contains("a whole number of CPUs, at least 1"), "{e}");
            assert!(e.contains(&format!("={bad}")), "{e}");
        }
    }

    #[test]
    fn a_slurm_jobs_memory_is_its_sweeps_budget() {
        let mem = |vars: &[(&str, &str)]| {
            let vars: Vec<(String, String)> = vars
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            slurm_memory(&move |k: &str| vars.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone()))
        };
        let b = mem(&[("SLURM_MEM_PER_NODE", "4096"), ("SLURM_MEM_PER_CPU", "1")]).unwrap();
        assert_eq!(
            b,
            Some(MemoryBudget {
                bytes: 4096 << 20,
                given_by: "the Slurm job's memory (SLURM_MEM_PER_NODE=4096)".into()
            })
        );
        let b = mem(&[
            ("SLURM_MEM_PER_CPU", "1000"),
            ("SLURM_CPUS_ON_NODE", "3"),
            ("SLURM_CPUS_PER_TASK", "2"),
        ])
        .unwrap()
        .unwrap();
        assert_eq!(b.bytes, 3000 << 20);
        assert_eq!(
            b.given_by,
            "the Slurm job's memory (SLURM_MEM_PER_CPU=1000 x SLURM_CPUS_ON_NODE=3)"
        );
        let b = mem(&[("SLURM_MEM_PER_CPU", "1000"), ("SLURM_CPUS_PER_TASK", "2")]);
        assert_eq!(b.unwrap().unwrap().bytes, 2000 << 20);
        assert_eq!(
            mem(&[("SLURM_MEM_PER_CPU", "10")]).unwrap().unwrap().bytes,
            10 << 20
        );
        // All of the node's memory, or none named: no budget of Slurm's.
        assert_eq!(mem(&[("SLURM_MEM_PER_NODE", "0")]).unwrap(), None);
        assert_eq!(mem(&[("SLURM_CPUS_ON_NODE", "8")]).unwrap(), None);
        for (vars, want) in [
            (
                &[("SLURM_MEM_PER_NODE", "4G")][..],
                "slurm = SLURM_MEM_PER_NODE=4G: a whole number of megabytes",
            ),
            (
                &[("SLURM_MEM_PER_NODE", "99999999999999999")][..],
                "slurm = SLURM_MEM_PER_NODE=99999999999999999: more than 2^64 bytes",
            ),
            (
                &[
                    ("SLURM_MEM_PER_CPU", "9999999999999"),
                    ("SLURM_CPUS_ON_NODE", "9999999"),
                ][..],
                "slurm = SLURM_MEM_PER_CPU=9999999999999: more than 2^64 bytes",
            ),
            (
                &[("SLURM_MEM_PER_CPU", "100"), ("SLURM_CPUS_ON_NODE", "x")][..],
                "slurm = SLURM_CPUS_ON_NODE=x: a whole number of CPUs",
            ),
        ] {
            let e = mem(vars).unwrap_err().to_string();
            assert!(e.contains(want), "{e}");
        }
    }

    #[test]
    fn slurm_tasks_map_to_shards() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                vars.iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        let s = slurm_shard(&env(&[
            ("SLURM_ARRAY_TASK_ID", "2"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ]))
        .unwrap();
        assert_eq!((s.index, s.count), (2, 4));
        let s = slurm_shard(&env(&[
            ("SLURM_ARRAY_TASK_ID", "7"),
            ("SLURM_ARRAY_TASK_MIN", "5"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ]))
        .unwrap();
        assert_eq!((s.index, s.count), (2, 4));
        let e = slurm_shard(&env(&[("SLURM_ARRAY_TASK_COUNT", "4")]))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("SLURM_ARRAY_TASK_ID") && e.contains("not set"),
            "{e}"
        );
        let e = slurm_shard(&env(&[
            ("SLURM_ARRAY_TASK_ID", "9"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ]))
        .unwrap_err()
        .to_string();
        assert!(e.contains("evenly spaced"), "{e}");
        // A stepped array (--array=1-7:2): tasks 1, 3, 5, 7 run shards 0
        // to 3, with or without the last task's number.
        for (k, id) in ["1", "3", "5", "7"].into_iter().enumerate() {
            let mut vars = vec![
                ("SLURM_ARRAY_TASK_ID", id.to_string()),
                ("SLURM_ARRAY_TASK_MIN", "1".into()),
                ("SLURM_ARRAY_TASK_STEP", "2".into()),
                ("SLURM_ARRAY_TASK_COUNT", "4".into()),
            ];
            if k != 2 {
                vars.push(("SLURM_ARRAY_TASK_MAX", "7".into()));
            }
            let get = |n: &str| vars.iter().find(|(v, _)| *v == n).map(|(_, x)| x.clone());
            let s = slurm_shard(&get).unwrap();
            assert_eq!((s.index, s.count), (k as u32, 4), "task {id}");
        }
        // Not evenly spaced: --array=1,2,5 (3 tasks from 1 to 5), and a
        // task between the steps.
        for vars in [
            &[
                ("SLURM_ARRAY_TASK_ID", "2"),
                ("SLURM_ARRAY_TASK_MIN", "1"),
                ("SLURM_ARRAY_TASK_MAX", "5"),
                ("SLURM_ARRAY_TASK_STEP", "1"),
                ("SLURM_ARRAY_TASK_COUNT", "3"),
            ][..],
            &[
                ("SLURM_ARRAY_TASK_ID", "4"),
                ("SLURM_ARRAY_TASK_MIN", "1"),
                ("SLURM_ARRAY_TASK_STEP", "2"),
                ("SLURM_ARRAY_TASK_COUNT", "4"),
            ],
            &[
                ("SLURM_ARRAY_TASK_ID", "0"),
                ("SLURM_ARRAY_TASK_STEP", "0"),
                ("SLURM_ARRAY_TASK_COUNT", "4"),
            ],
        ] {
            let e = slurm_shard(&env(vars)).unwrap_err().to_string();
            assert!(e.contains("evenly spaced"), "{vars:?}: {e}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

        /// Jobs started and finished in any order by at most `workers` at
        /// once: the threads they hold never exceed the workers, each job
        /// has one at least and no more than it asked for, and a job has
        /// more than one only once none is left to start.
        #[test]
        fn the_jobs_threads_never_exceed_the_workers(
            workers in 1usize..6,
            jobs in proptest::collection::vec((1usize..9, proptest::bool::ANY), 1..24),
        ) {
            let cores = Cores::new(workers);
            cores.expect(jobs.len());
            let mut running: Vec<Threads<'_>> = Vec::new();
            let held = |r: &[Threads<'_>]| r.iter().map(|t| t.count).sum::<usize>();
            for (n, &(asked, finish_one)) in jobs.iter().enumerate() {
                if running.len() == workers || (finish_one && !running.is_empty()) {
                    running.remove(asked % running.len());
                }
                let t = cores.take(asked);
                proptest::prop_assert!(t.count >= 1 && t.count <= asked.max(1));
                if t.count > 1 {
                    proptest::prop_assert_eq!(n + 1, jobs.len(), "more threads with jobs left to start");
                }
                running.push(t);
                proptest::prop_assert!(held(&running) <= workers, "{} threads on {workers} workers", held(&running));
                proptest::prop_assert_eq!(Cores::lock(&cores.state).0, held(&running));
            }
            drop(running);
            proptest::prop_assert_eq!(Cores::lock(&cores.state).0, 0);
        }

        /// Any grid of distinct values: every job lies in exactly one
        /// shard of any count, and no two jobs share a seed (two jobs with
        /// one seed and the same values would be the same run).
        #[test]
        fn shards_part_the_jobs_and_seeds_are_distinct(
            loads in proptest::collection::btree_set(1u32..50, 1..4),
            packets in proptest::collection::btree_set(6u32..40, 1..4),
            replicates in 1u32..4,
            count in 1u32..7,
        ) {
            let list = |v: Vec<String>| v.join(", ");
            let text = format!(
                "[network]\ntopology = \"mesh:4x4\"\n[stats]\ncycles = 3000\nwarmup = 500\n\
                 [sweep]\n\"traffic.load\" = [{}]\n\"traffic.packet\" = [{}]\nreplicates = {replicates}\n",
                list(loads.iter().map(|l| format!("{}", *l as f64 / 1000.0)).collect()),
                list(packets.iter().map(u32::to_string).collect()),
            );
            let s = Sweep::parse(&text).unwrap();
            proptest::prop_assert_eq!(s.len(), loads.len() * packets.len() * replicates as usize);
            let jobs = s.jobs().unwrap();
            let mut seeds: Vec<u64> = jobs.iter().map(|j| j.seed).collect();
            seeds.sort_unstable();
            seeds.dedup();
            proptest::prop_assert_eq!(seeds.len(), jobs.len());
            for j in 0..s.len() {
                let shards = (0..count).filter(|&k| Shard { index: k, count }.has(j)).count();
                proptest::prop_assert_eq!(shards, 1);
            }
        }

        /// A Slurm array of `count` tasks from `min` by `step`: task
        /// `min + k * step` runs shard `k`, every other task number is
        /// refused.
        #[test]
        fn stepped_arrays_map_each_task_to_its_shard(
            min in 0u32..20,
            step in 1u32..5,
            count in 1u32..9,
            id in 0u32..60,
            with_max in proptest::bool::ANY,
        ) {
            let max = min + (count - 1) * step;
            let mut vars = vec![
                ("SLURM_ARRAY_TASK_ID", id.to_string()),
                ("SLURM_ARRAY_TASK_MIN", min.to_string()),
                ("SLURM_ARRAY_TASK_STEP", step.to_string()),
                ("SLURM_ARRAY_TASK_COUNT", count.to_string()),
            ];
            if with_max {
                vars.push(("SLURM_ARRAY_TASK_MAX", max.to_string()));
            }
            let get = |n: &str| vars.iter().find(|(v, _)| *v == n).map(|(_, x)| x.clone());
            let ours = id >= min && (id - min) % step == 0 && id <= max;
            match slurm_shard(&get) {
                Ok(s) => {
                    proptest::prop_assert!(ours);
                    proptest::prop_assert_eq!((s.index, s.count), ((id - min) / step, count));
                }
                Err(e) => {
                    proptest::prop_assert!(!ours, "{}", e);
                    proptest::prop_assert!(e.to_string().contains("evenly spaced"));
                }
            }
        }
    }

    #[test]
    #[cfg(feature = "parallel")]
    fn jobs_that_do_not_fit_beside_each_other_run_one_at_a_time() {
        let base = std::env::temp_dir().join(format!("wormcast-budget-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let s = Sweep::parse(&SMALL.replace(
            "\"network.router\" = [\"tree\", \"wormhole\", \"cut-through\"]",
            "\"network.router\" = [\"wormhole\"]",
        ))
        .unwrap();
        let plan = s.job(0).unwrap().config.plan().unwrap();
        let one =
            engine::reckoned_bytes(&plan.topology, plan.router, &plan.options).unwrap() as u64;
        assert!(
            one > 10_000,
            "a 4x4 mesh of wormhole routers is reckoned at {one} bytes"
        );
        let free = run_within(
            &s,
            &base.join("free"),
            Shard::ALL,
            Some(MemoryBudget::given(u64::MAX)),
            &|| {},
        )
        .unwrap();
        assert_eq!(free.ran, 4);
        // A budget of one job: never two at once, on however many threads.
        let tight = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .unwrap()
            .install(|| {
                let b = Some(MemoryBudget::given(one));
                run_within(&s, &base.join("tight"), Shard::ALL, b, &|| {})
            })
            .unwrap();
        assert_eq!(
            (tight.ran, tight.memory_most, tight.memory_budget),
            (4, one as u128, one as u128)
        );
        assert!(free.memory_most >= one as u128);
        // Nothing waits in a budget everything fits; in the tight one, a
        // job that waited is counted once, however often it waited.
        assert_eq!(free.waited, 0);
        assert!(tight.waited <= tight.ran, "{} waited", tight.waited);
        for f in ["sweep.csv", "sweep.jsonl"] {
            assert_eq!(
                std::fs::read(base.join("tight").join(f)).unwrap(),
                std::fs::read(base.join("free").join(f)).unwrap()
            );
        }
        // Less than one job: refused by name before any runs.
        let e = run_within(
            &s,
            &base.join("none"),
            Shard::ALL,
            Some(MemoryBudget::given(one / 2)),
            &|| {},
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains(&format!(
                "job 0 (traffic.load=0.02;network.router=\"wormhole\";replicate=0): its network is reckoned at {}, more than the {} of the sweep's --memory",
                megabytes(one as u128),
                megabytes(one as u128 / 2)
            )),
            "{e}"
        );
        assert!(!base.join("none").join("journal.jsonl").exists());
        let _ = std::fs::remove_dir_all(&base);
    }

    #[test]
    fn shards_merge_into_the_bytes_of_one_run_and_a_rerun_resumes() {
        let base = std::env::temp_dir().join(format!("wormcast-sweep-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let s = Sweep::parse(SMALL).unwrap();
        let one = base.join("one");
        let o = run(&s, &one, Shard::ALL, &|| {}).unwrap();
        assert_eq!((o.ran, o.skipped, o.findings), (12, 0, 0));
        let csv = std::fs::read(one.join("sweep.csv")).unwrap();
        assert_eq!(String::from_utf8_lossy(&csv).lines().count(), 13);
        // Again: every job skipped, the same bytes.
        let o = run(&s, &one, Shard::ALL, &|| {}).unwrap();
        assert_eq!((o.ran, o.skipped), (0, 12));
        assert_eq!(std::fs::read(one.join("sweep.csv")).unwrap(), csv);
        // Four shards, one of them torn mid-line and resumed.
        let parts = base.join("parts");
        let mut journals = Vec::new();
        for k in 0..4 {
            let shard = Shard { index: k, count: 4 };
            run(&s, &parts, shard, &|| {}).unwrap();
            journals.push(journal_path(&parts, shard));
        }
        // The torn line is the shard's last (jobs 1, 5 and 9; the
        // workers finish them in any order).
        let j = &journals[1];
        let text = std::fs::read_to_string(j).unwrap();
        let last = text.lines().last().expect("shard 1 ran its jobs");
        let torn = ["1", "5", "9"]
            .into_iter()
            .find(|n| last.contains(&format!("\"job\":{n},")))
            .expect("the last line is one of shard 1's jobs");
        std::fs::write(j, &text.as_bytes()[..text.len() - 10]).unwrap();
        let e = merge(&journals, &base.join("short"))
            .unwrap_err()
            .to_string();
        assert!(
            e.ends_with(&format!("journal = 11 of 12 jobs: job {torn} is missing: run its shard (again) and merge every journal")),
            "{e}"
        );
        let o = run(&s, &parts, Shard { index: 1, count: 4 }, &|| {}).unwrap();
        assert_eq!((o.ran, o.skipped), (1, 2));
        merge(&journals, &base.join("merged")).unwrap();
        assert_eq!(std::fs::read(base.join("merged/sweep.csv")).unwrap(), csv);
        assert_eq!(
            std::fs::read(base.join("merged/sweep.jsonl")).unwrap(),
            std::fs::read(one.join("sweep.jsonl")).unwrap()
        );
        // Another sweep's journal is refused.
        let other = Sweep::parse(&SMALL.replace("replicates = 2", "replicates = 3")).unwrap();
        let e = run(&other, &one, Shard::ALL, &|| {})
            .unwrap_err()
            .to_string();
        assert!(e.contains("another sweep"), "{e}");
        // A journal another run holds is refused, by name, and left whole.
        let path = journal_path(&one, Shard::ALL);
        let held = std::fs::File::open(&path).unwrap();
        held.lock().unwrap();
        let e = run(&s, &one, Shard::ALL, &|| {}).unwrap_err().to_string();
        assert!(
            e.contains("journal.jsonl") && e.contains("another sweep run is writing it"),
            "{e}"
        );
        drop(held);
        let o = run(&s, &one, Shard::ALL, &|| {}).unwrap();
        assert_eq!((o.ran, o.skipped), (0, 12));
        // A line naming a job past the sweep's count is refused by line
        // (job 0's line: the workers finish jobs in any order, so it need
        // not be the first).
        let text = std::fs::read_to_string(&path).unwrap();
        let line = 1 + text
            .lines()
            .position(|l| l.contains("\"job\":0,"))
            .expect("job 0 is in the journal");
        let bad = text.replacen("\"job\":0,", "\"job\":12,", 1);
        assert_ne!(bad, text);
        std::fs::write(&path, bad).unwrap();
        let e = run(&s, &one, Shard::ALL, &|| {}).unwrap_err().to_string();
        assert!(
            e.contains(&format!("journal.jsonl:{line}:"))
                && e.contains("job 12 of a sweep of 12 jobs"),
            "{e}"
        );
        let e = merge(&[path], &base.join("m2")).unwrap_err().to_string();
        assert!(e.contains("job 12 of a sweep of 12 jobs"), "{e}");
        // A journal that is not there is named.
        let gone = base.join("journal.shard-9-of-4.jsonl");
        let e = merge(&[journals[0].clone(), gone], &base.join("m3"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("journal.shard-9-of-4.jsonl") && e.contains("No such file"),
            "{e}"
        );
        let _ = std::fs::remove_dir_all(&base);
    }

    /// A job runs on one thread while others are still to start, and on
    /// up to what it asks for, of the cores no running job holds, once
    /// none is; threads come back as jobs end.
    #[test]
    fn jobs_take_more_threads_only_of_free_cores_once_all_have_started() {
        let cores = Cores::new(4);
        cores.expect(6);
        let a = cores.take(3);
        let b = cores.take(1);
        let c = cores.take(8);
        assert_eq!((a.count, b.count, c.count), (1, 1, 1));
        drop(b);
        let d = cores.take(2);
        let e = cores.take(4);
        assert_eq!((d.count, e.count), (1, 1));
        drop(a);
        drop(c);
        // The last job to start: two cores are free beside d and e.
        let f = cores.take(4);
        assert_eq!(f.count, 2);
        assert_eq!(cores.fewer(), (5, 8));
        drop((d, e, f));
        assert_eq!(Cores::lock(&cores.state).0, 0);
        // One job alone takes what it asks for, up to the workers.
        let alone = Cores::new(2);
        alone.expect(1);
        assert_eq!(alone.take(8).count, 2);
    }

    /// Every line records the build that ran its job; a journal of another
    /// build (or of one that did not record itself) is neither resumed nor
    /// merged with this build's, and the refusal names both builds.
    #[test]
    fn a_sweep_is_made_by_one_build() {
        let base = std::env::temp_dir().join(format!("wormcast-build-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let s = Sweep::parse(SMALL).unwrap();
        let halves = [Shard { index: 0, count: 2 }, Shard { index: 1, count: 2 }];
        let journals: Vec<PathBuf> = halves.iter().map(|&h| journal_path(&base, h)).collect();
        for h in halves {
            run(&s, &base, h, &|| {}).unwrap();
        }
        let text = std::fs::read_to_string(&journals[1]).unwrap();
        let ours = format!("\"build\":\"{}\"", crate::BUILD);
        assert_eq!(text.matches(&ours).count(), 6, "{text}");
        merge(&journals, &base.join("same")).unwrap();
        for (other, named) in [
            (
                "\"build\":\"0.0.9\"".to_string(),
                "wormcast 0.0.9".to_string(),
            ),
            (
                String::new(),
                "a build of wormcast that did not record itself".into(),
            ),
        ] {
            let mut changed = text.replace(&format!("{ours},"), &other);
            if !other.is_empty() {
                changed = text.replace(&ours, &other);
            }
            assert_ne!(changed, text);
            std::fs::write(&journals[1], resealed(&changed)).unwrap();
            let e = run(&s, &base, halves[1], &|| {}).unwrap_err().to_string();
            assert!(
                e.contains("journal.shard-1-of-2.jsonl")
                    && e.contains(&format!(
                        "its results were made by {named}, this is wormcast {}",
                        crate::BUILD
                    )),
                "{e}"
            );
            let e = merge(&journals, &base.join("mixed"))
                .unwrap_err()
                .to_string();
            assert!(
                e.contains(&format!("was run by {named}, jobs of "))
                    && e.contains(&format!(
                        "journal.shard-0-of-2.jsonl by wormcast {}",
                        crate::BUILD
                    )),
                "{e}"
            );
            assert!(!base.join("mixed/sweep.csv").exists());
        }
        // Journals all of one other build merge (a merge runs no model),
        // and the results name the build that made them.
        std::fs::write(&journals[1], &text).unwrap();
        for j in &journals {
            let text = std::fs::read_to_string(j).unwrap();
            std::fs::write(j, resealed(&text.replace(&ours, "\"build\":\"0.0.9\""))).unwrap();
        }
        merge(&journals, &base.join("older")).unwrap();
        let merged = std::fs::read_to_string(base.join("older/sweep.jsonl")).unwrap();
        assert_eq!(
            merged.matches("\"build\":\"0.0.9\"").count(),
            12,
            "{merged}"
        );
        let _ = std::fs::remove_dir_all(&base);
    }

    /// A merge holds where each line is, not the records: a journal given
    /// twice, a job with two different results, a journal claiming more
    /// jobs than a sweep may have, a merge into the folder of its own
    /// results and one with fewer journals open than it reads.
    #[test]
    fn merges_read_each_line_where_it_is() {
        let base = std::env::temp_dir().join(format!("wormcast-merge-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let s = Sweep::parse(SMALL).unwrap();
        let one = base.join("one");
        run(&s, &one, Shard::ALL, &|| {}).unwrap();
        let csv = std::fs::read(one.join("sweep.csv")).unwrap();
        let jsonl = std::fs::read(one.join("sweep.jsonl")).unwrap();
        let journal = journal_path(&one, Shard::ALL);
        let same = |dir: &Path| {
            assert_eq!(std::fs::read(dir.join("sweep.csv")).unwrap(), csv);
            assert_eq!(std::fs::read(dir.join("sweep.jsonl")).unwrap(), jsonl);
            let left: Vec<_> = std::fs::read_dir(dir)
                .unwrap()
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .filter(|n| n.ends_with(".part"))
                .collect();
            assert!(left.is_empty(), "{left:?}");
        };
        // The same journal twice: every job twice, with the same record.
        merge(&[journal.clone(), journal.clone()], &base.join("twice")).unwrap();
        same(&base.join("twice"));
        // Its own sweep.jsonl (a journal in job order) into its own folder.
        merge(&[one.join("sweep.jsonl")], &one).unwrap();
        same(&one);
        // Four shards read with one journal open at a time.
        let parts = base.join("parts");
        let shards: Vec<PathBuf> = (0..4)
            .map(|k| {
                let shard = Shard { index: k, count: 4 };
                run(&s, &parts, shard, &|| {}).unwrap();
                journal_path(&parts, shard)
            })
            .collect();
        merge_opening(&shards, &base.join("one-open"), 1).unwrap();
        same(&base.join("one-open"));
        // Job 5 with another seed in a second journal.
        let text = std::fs::read_to_string(&journal).unwrap();
        let line = text.lines().find(|l| l.contains("\"job\":5,")).unwrap();
        let seed = format!("\"seed\":{},", s.job(5).unwrap().seed);
        assert!(line.contains(&seed), "{line}");
        let other = base.join("other.jsonl");
        let reseeded = line.replace(&seed, "\"seed\":7,");
        // Changed after it was written: refused by its check, naming the
        // line, as is a line without one.
        std::fs::write(&other, format!("{reseeded}\n")).unwrap();
        let e = merge(&[journal.clone(), other.clone()], &base.join("two"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("other.jsonl:1: its check ")
                && e.ends_with(
                    " is not that of its text: the line was changed after it was written"
                ),
            "{e}"
        );
        let bare = reseeded.split(",\"check\":").next().unwrap().to_string() + "}";
        std::fs::write(&other, format!("{bare}\n")).unwrap();
        let e = merge(&[journal.clone(), other.clone()], &base.join("two"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(&format!(
                "other.jsonl:1: the line has no check: wormcast {} wrote it, before lines were \
                 checked (merge it with that build), or the check was taken out",
                crate::BUILD
            )),
            "{e}"
        );
        // Sealed again, as a run of a job with another seed would write it.
        std::fs::write(&other, resealed(&reseeded)).unwrap();
        let e = merge(&[journal.clone(), other.clone()], &base.join("two"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("other.jsonl")
                && e.contains("job 5 is in two journals with different results"),
            "{e}"
        );
        assert!(!base.join("two/sweep.csv").exists());
        // A line that claims 10^18 jobs is refused by line, by a merge and
        // by a run resuming it, before anything is made of that count.
        let huge = line.replace("\"jobs\":12,", "\"jobs\":1000000000000000000,");
        assert_ne!(huge, line);
        std::fs::write(&other, format!("{huge}\n")).unwrap();
        let e = merge(std::slice::from_ref(&other), &base.join("huge"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("other.jsonl:1")
                && e.contains("a sweep of 1000000000000000000 jobs: a sweep has 1 to 1000000"),
            "{e}"
        );
        let resumed = base.join("resumed");
        std::fs::create_dir_all(&resumed).unwrap();
        std::fs::copy(&other, journal_path(&resumed, Shard::ALL)).unwrap();
        let e = run(&s, &resumed, Shard::ALL, &|| {})
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("journal.jsonl:1") && e.contains("a sweep has 1 to"),
            "{e}"
        );
        let _ = std::fs::remove_dir_all(&base);
    }
}

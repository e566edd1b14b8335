//! The experiments of seed 000 section 6 on the cycle model, through the
//! one engine ([`crate::engine`]) with hosts and network interfaces at the
//! nodes: single multicast latency against the number of destinations
//! (section 6.4, Figs. 19-25) and multicast latency against effective
//! applied load (section 6.5, Figs. 26-28), for the NI-based, path-based
//! and tree-based schemes (and any other [`PlanScheme`]).
//!
//! An experiment is a list of *jobs*, each fully determined by its index
//! (topology seed, source, destinations and load all derive from it), so
//! that any subset of jobs can run anywhere: `--shard I/N` runs the jobs
//! whose index is `I` modulo `N`, and [`merge`] puts the raw rows of the
//! shards back in job order, which gives the same raw file, summary and
//! plots, byte for byte, as one unsharded run. Jobs run in parallel
//! (rayon, with the `parallel` feature); each writes one raw row per
//! scheme.

mod load;
mod plot;
mod single;

pub use plot::{PLOT_FORMATS, Panel, Series, caption, panels, tick_decimals, write_plots};
#[cfg(feature = "plots")]
pub use plot::{plot, plot_panels};
pub mod mesh;
pub mod sweep;
pub mod tree;

use crate::mcast::PlanScheme;
use crate::ni::{HostOverhead, NiParams};
use crate::{Error, Result};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The most jobs one sweep, or one figure of an experiment, may have: every
/// job is checked before the first runs.
pub const MAX_JOBS: usize = 1_000_000;

/// How big a load sweep of the direct-network experiments is (seed 002's
/// [`mesh`] and seed 003's [`tree`] sweeps).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SweepOptions {
    /// Fewer points and cycles (CI).
    pub quick: bool,
    /// Cycles with traffic per point.
    pub cycles: u64,
    /// Cycles before latencies count.
    pub warmup: u64,
    /// Seed of the traffic.
    pub seed: u64,
}

impl SweepOptions {
    /// `(cycles, warm-up)` of `full` or, when `quick`, of `reduced`; seed 1.
    pub fn new(quick: bool, full: (u64, u64), reduced: (u64, u64)) -> SweepOptions {
        let (cycles, warmup) = if quick { reduced } else { full };
        SweepOptions {
            quick,
            cycles,
            warmup,
            seed: 1,
        }
    }
}

/// Runs `jobs` on all cores, keeping their order, calling `progress` after
/// each; the first error wins.
pub(crate) fn run_parallel<J: Send, P: Send>(
    jobs: Vec<J>,
    job: impl Fn(J) -> Result<P> + Sync,
    progress: &(dyn Fn() + Sync),
) -> Result<Vec<P>> {
    crate::par::map_owned(jobs, |j| {
        let r = job(j);
        progress();
        r
    })
    .into_iter()
    .collect()
}

/// Where a sweep of points ([`mesh`], [`tree`]) keeps the points it
/// finished while it runs, so that a run stopped part way is resumed:
/// `path`, whose first line is `head` (the sweep, its options, its shard
/// and the build that runs it), then one line a point, `pN = { ... }` (a
/// TOML inline table: TOML carries back the infinite and NaN values a
/// point may hold, which JSON does not).
///
/// The journal of a whole sweep is removed once its files are written. A
/// shard of a sweep (`--shard I/N`: the points whose number is `I` modulo
/// `N`) writes no files of its own: its finished journal is its result,
/// renamed to [`PointJournal::done`] by [`PointJournal::finish`], for
/// [`merge_points`] to combine with the other shards'.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PointJournal {
    /// The journal file while the sweep runs.
    pub path: PathBuf,
    /// Its first line.
    pub head: String,
    /// The points this run owns.
    pub shard: Shard,
    /// Where a shard's journal is kept once every point of the shard has
    /// run (`<stem>.shard-I-of-N.points`); `None` for the whole sweep.
    pub done: Option<PathBuf>,
}

impl PointJournal {
    /// The journal of the sweep `name` (`mesh3d experiment`, ...) with
    /// options `o`, in `dir` as `<stem>.points.part`.
    pub fn new(dir: &Path, stem: &str, name: &str, o: &SweepOptions) -> PointJournal {
        PointJournal::of_shard(dir, stem, name, o, Shard::ALL)
    }

    /// The journal of `shard` of the sweep `name`: as [`PointJournal::new`]
    /// for [`Shard::ALL`]; else `<stem>.shard-I-of-N.points.part` in
    /// `dir`, its head naming the shard.
    pub fn of_shard(
        dir: &Path,
        stem: &str,
        name: &str,
        o: &SweepOptions,
        shard: Shard,
    ) -> PointJournal {
        let whole = shard == Shard::ALL;
        let (file, of) = if whole {
            (format!("{stem}.points"), String::new())
        } else {
            (
                format!("{stem}.shard-{}-of-{}.points", shard.index, shard.count),
                format!(" shard={}/{}", shard.index, shard.count),
            )
        };
        PointJournal {
            path: dir.join(format!("{file}.part")),
            head: format!(
                "# wormcast {name} quick={} cycles={} warmup={} seed={}{of} build={}",
                o.quick,
                o.cycles,
                o.warmup,
                o.seed,
                crate::BUILD
            ),
            shard,
            done: (!whole).then(|| dir.join(file)),
        }
    }

    /// The file the run reads and appends to: the journal, or a shard's
    /// finished file when the journal is not there (the same shard run
    /// again takes its points from it and runs none).
    pub fn live(&self) -> &Path {
        match &self.done {
            Some(d) if !self.path.exists() && d.exists() => d,
            _ => &self.path,
        }
    }

    /// Ends a run whose points have all run: removes the journal of a
    /// whole sweep (its caller has written the sweep's files), or keeps a
    /// shard's as [`PointJournal::done`] and returns that.
    pub fn finish(&self) -> Result<Option<PathBuf>> {
        match &self.done {
            None => std::fs::remove_file(&self.path).map_err(|e| Error::io(&self.path, e))?,
            Some(d) => {
                if self.path.exists() {
                    std::fs::rename(&self.path, d).map_err(|e| Error::io(&self.path, e))?;
                }
            }
        }
        Ok(self.done.clone())
    }
}

/// The finished points of one shard of a sweep ([`PointJournal::done`]),
/// read to be merged ([`merge_points`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PointFile {
    /// The file.
    pub path: PathBuf,
    /// The sweep it is a shard of (`mesh3d experiment`, `tree variants`,
    /// ...).
    pub sweep: String,
    /// The sweep's quick version.
    pub quick: bool,
    /// Its shard.
    pub shard: Shard,
    /// Its first line without the shard: the same for every shard of one
    /// sweep.
    sweep_head: String,
    text: String,
}

impl PointFile {
    /// Reads the shard's file at `path`.
    pub fn read(path: &Path) -> Result<PointFile> {
        let text = crate::read_text(path)?;
        let bad = |why: &str| Error::Config {
            field: "merge",
            value: path.display().to_string(),
            reason: why.to_string(),
        };
        let head = text.lines().next().unwrap_or("");
        let name = head
            .strip_prefix("# wormcast ")
            .and_then(|h| h.split_once(" quick=").map(|(n, _)| n))
            .ok_or_else(|| {
                bad(
                    "not a shard's points: its first line is not a sweep's (`# wormcast <sweep> \
                     quick=...`)",
                )
            })?;
        let word = |key: &str| head.split(' ').find_map(|w| w.strip_prefix(key));
        let Some(of) = word("shard=") else {
            return Err(bad(
                "not a shard's points: its first line names no shard (a sweep run without \
                 --shard writes its own files)",
            ));
        };
        let shard = Shard::parse(of).map_err(|_| bad(&format!("its shard {of:?} is not I/N")))?;
        Ok(PointFile {
            path: path.to_path_buf(),
            sweep: name.to_string(),
            quick: word("quick=") == Some("true"),
            shard,
            sweep_head: head.replacen(&format!(" shard={of}"), "", 1),
            text,
        })
    }
}

/// Reads the point lines of a journal's `text` (at `path`; its first line
/// is its head, not read here) into `points`, of which there are `n`, all
/// of them in `shard`: the byte offset past the last whole line, to keep.
fn read_points<P: serde::de::DeserializeOwned>(
    text: &str,
    path: &Path,
    shard: Shard,
    points: &mut [Option<P>],
) -> Result<usize> {
    let n = points.len();
    let mut whole = 0;
    for (k, &(l, end)) in whole_lines(text).iter().enumerate() {
        whole = end;
        if k == 0 {
            continue; // the head, checked by the caller
        }
        let at = |why: String| journal_error(path, format!("line {}: {why}", k + 1));
        let body = unchecked(l).map_err(at)?;
        let map: std::collections::BTreeMap<String, P> = toml::from_str(body)
            .map_err(|e| at(format!("not a point: {}", crate::net::toml_message(&e))))?;
        let mut entries = map.into_iter();
        let (Some((key, p)), None) = (entries.next(), entries.next()) else {
            return Err(at("not one point".into()));
        };
        let i = key
            .strip_prefix('p')
            .and_then(|i| i.parse::<usize>().ok())
            .filter(|&i| i < n)
            .ok_or_else(|| at(format!("{key} is not one of the {n} points")))?;
        if !shard.has(i) {
            return Err(at(format!(
                "point {i} is not in shard {}/{}",
                shard.index, shard.count
            )));
        }
        if points[i].replace(p).is_some() {
            return Err(at(format!("point {i} twice")));
        }
    }
    Ok(whole)
}

/// Combines the finished points of every shard of one sweep of `n` points
/// into the sweep's points in order, as one run of it gives them: refused,
/// naming the file, when two files are of different sweeps (or builds), a
/// shard is missing or given twice, or a shard's file lacks some of its
/// points.
pub fn merge_points<P: serde::de::DeserializeOwned>(
    files: &[PointFile],
    n: usize,
) -> Result<Vec<P>> {
    let bad = |value: String, why: String| Error::Config {
        field: "merge",
        value,
        reason: why,
    };
    let Some(first) = files.first() else {
        return Err(bad("none".into(), "no shard's points given".into()));
    };
    let count = first.shard.count;
    let mut seen: Vec<Option<&Path>> = vec![None; count as usize];
    let mut points: Vec<Option<P>> = (0..n).map(|_| None).collect();
    for f in files {
        let name = f.path.display().to_string();
        if f.sweep_head != first.sweep_head {
            return Err(bad(
                name,
                format!(
                    "its sweep is not {}'s: {:?} against {:?} (the shards of one sweep have the \
                     same options and build)",
                    first.path.display(),
                    f.sweep_head,
                    first.sweep_head
                ),
            ));
        }
        if f.shard.count != count {
            return Err(bad(
                name,
                format!(
                    "it is shard {}/{}, {} is shard {}/{count}: the shards of one sweep are cut \
                     the same way",
                    f.shard.index,
                    f.shard.count,
                    first.path.display(),
                    first.shard.index
                ),
            ));
        }
        if let Some(other) = seen[f.shard.index as usize].replace(&f.path) {
            return Err(bad(
                name,
                format!(
                    "shard {}/{count} is given twice (and as {})",
                    f.shard.index,
                    other.display()
                ),
            ));
        }
        let mut mine: Vec<Option<P>> = (0..n).map(|_| None).collect();
        read_points(&f.text, &f.path, f.shard, &mut mine)?;
        let want = (0..n).filter(|&i| f.shard.has(i)).count();
        let got = mine.iter().filter(|p| p.is_some()).count();
        if got != want {
            return Err(bad(
                name,
                format!(
                    "it holds {got} of shard {}/{count}'s {want} points: its run did not \
                     finish (the same command again finishes it)",
                    f.shard.index
                ),
            ));
        }
        for (i, p) in mine.into_iter().enumerate() {
            if p.is_some() {
                points[i] = p;
            }
        }
    }
    let missing: Vec<String> = (0..count)
        .filter(|&k| seen[k as usize].is_none())
        .map(|k| format!("{k}/{count}"))
        .collect();
    if !missing.is_empty() {
        let (them, are) = if missing.len() == 1 {
            ("shard", "is")
        } else {
            ("shards", "are")
        };
        return Err(bad(
            first.sweep.clone(),
            format!("{them} {} of the sweep {are} missing", missing.join(", ")),
        ));
    }
    Ok(points.into_iter().flatten().collect())
}

/// Why a journal whose first line is `first` is not this run's (whose
/// first line is `head`, made by `build`): another build, or another
/// experiment.
fn not_this_runs(first: &str, head: &str, build: &str) -> String {
    let theirs = first.split(' ').find_map(|w| w.strip_prefix("build="));
    let ours = head.replacen(&format!(" build={build}"), "", 1);
    match theirs {
        Some(b) if b != build && first.replacen(&format!(" build={b}"), "", 1) == ours => format!(
            "it was begun by wormcast {b}, this is wormcast {build}: the two models may \
             differ, so a run is finished by the build that began it (or remove the \
             journal to begin again)"
        ),
        _ => format!(
            "it holds results of another experiment ({first:?}, this run is {head:?}): remove \
             it, or give another --out"
        ),
    }
}

/// FNV-1a, 64 bits: a hash that is the same on every machine and build.
pub(crate) fn fnv(text: &str) -> u64 {
    fnv_bytes(text.as_bytes())
}

/// [`fnv`] of bytes.
pub(crate) fn fnv_bytes(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A point's journal line: `body` (`p7 = { ... }`) and, in a TOML comment
/// at its end, its check, a hash of `body` that [`unchecked`] holds the
/// line to, so that a line changed after it was written (a digit, a
/// field) is refused rather than merged or resumed as it reads.
fn checked(body: &str) -> String {
    format!("{body} # check {:016x}", fnv(body))
}

/// The body of a line written by [`checked`], or why it is refused.
fn unchecked(line: &str) -> std::result::Result<&str, String> {
    let Some((body, check)) = line.rsplit_once(" # check ") else {
        return Err(
            "it has no check at its end (this build ends each point's line in `# check` \
             and a hash of the line)"
                .into(),
        );
    };
    holds_check(body, check, "line")?;
    Ok(body)
}

/// Whether `check` is the 16 hex digits of `body`'s [`fnv`]; if not, why
/// the `what` (a line, a row) is refused.
fn holds_check(body: &str, check: &str, what: &str) -> std::result::Result<(), String> {
    if check.len() != 16 || u64::from_str_radix(check, 16) != Ok(fnv(body)) {
        return Err(format!(
            "its check {check} is not that of its text: the {what} was changed after it was \
             written"
        ));
    }
    Ok(())
}

/// The lines of `text` that end in a newline, each with the byte offset
/// just past it: a line cut off as it was written is not there.
fn whole_lines(text: &str) -> Vec<(&str, usize)> {
    let mut lines = Vec::new();
    let mut at = 0;
    while let Some(n) = text[at..].find('\n') {
        lines.push((&text[at..at + n], at + n + 1));
        at += n + 1;
    }
    lines
}

/// A point's name (its scheme, topology, ...), from a fixed table. (An
/// alias, so that serde's derive does not take the field for one borrowed
/// from its input, which only a `'static` input could give.)
pub type Name = &'static str;

/// A name read back from a journal as the `&'static str` of `names` it
/// equals (a point's names come from fixed tables).
pub(crate) fn known_name<'de, D: serde::Deserializer<'de>>(
    d: D,
    names: impl IntoIterator<Item = &'static str>,
) -> std::result::Result<&'static str, D::Error> {
    let s = <String as serde::Deserialize>::deserialize(d)?;
    names
        .into_iter()
        .find(|n| *n == s)
        .ok_or_else(|| serde::de::Error::custom(format!("{s:?} is not a name a point has")))
}

/// [`run_parallel`], resumable through `journal`: the points it holds are
/// taken from it and only the others run, each appended (and flushed) as
/// it finishes; a torn last line is dropped and its point runs again. A
/// stop asked for ([`crate::interrupt`]) starts no more points and ends
/// with [`Error::Interrupted`], saying how many the journal holds. Only
/// the jobs of the journal's shard run. Returns the shard's points in job
/// order and how many were taken from the journal. The caller ends the
/// journal ([`PointJournal::finish`]) once it has written its files.
pub(crate) fn run_parallel_in<J: Send, P: Send + Serialize + serde::de::DeserializeOwned>(
    jobs: Vec<J>,
    job: impl Fn(J) -> Result<P> + Sync,
    journal: &PointJournal,
    progress: &(dyn Fn() + Sync),
) -> Result<(Vec<P>, usize)> {
    let path = journal.live();
    if let Some(dir) = path.parent() {
        crate::make_dir(dir)?;
    }
    let (mut file, text) = read_journal(path, &journal.head, crate::BUILD, "experiment")?;
    let n = jobs.len();
    let mut points: Vec<Option<P>> = (0..n).map(|_| None).collect();
    let whole = read_points(&text, path, journal.shard, &mut points)?;
    keep_whole(&mut file, path, whole, &format!("{}\n", journal.head))?;
    let kept = points.iter().filter(|p| p.is_some()).count();
    for _ in 0..kept {
        progress();
    }
    let pending: Vec<(usize, J)> = jobs
        .into_iter()
        .enumerate()
        .filter(|(i, _)| points[*i].is_none() && journal.shard.has(*i))
        .collect();
    let results = run_journaled(pending, &file, path, progress, |(i, j)| {
        let p = job(j)?;
        let value = toml::Value::try_from(&p)
            .map_err(|e| journal_error(path, format!("point {i} cannot be written: {e}")))?;
        let line = checked(&format!("p{i} = {value}")) + "\n";
        Ok(((i, p), line))
    });
    let journaled = kept + results.iter().filter(|r| r.is_ok()).count();
    let mine = (0..n).filter(|&i| journal.shard.has(i)).count();
    if let Some(s) = crate::interrupt::requested()
        && journaled < mine
    {
        let of = if journal.shard == Shard::ALL {
            String::new()
        } else {
            format!(" of shard {}/{}", journal.shard.index, journal.shard.count)
        };
        return Err(crate::interrupt::stopped(
            s,
            format!(
                "with {journaled} of the {mine} points{of} in {}: the same command again runs \
                 the other {}",
                path.display(),
                mine - journaled
            ),
        ));
    }
    for r in results {
        let (i, p) = r?;
        points[i] = Some(p);
    }
    Ok((points.into_iter().flatten().collect(), kept))
}

/// The figures of seed 000 section 6.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Figure {
    /// Fig. 19: effect of R = t_hs / t_ns.
    Fig19,
    /// Fig. 20: effect of the host software overhead t_hs (R = 1).
    Fig20,
    /// Fig. 21: effect of system size (80% connectivity).
    Fig21,
    /// Fig. 22: effect of switch size.
    Fig22,
    /// Fig. 23: effect of the number of switches.
    Fig23,
    /// Fig. 24: effect of message length.
    Fig24,
    /// Fig. 25: effect of packet size.
    Fig25,
    /// Fig. 26: latency against load, effect of R.
    Fig26,
    /// Fig. 27: latency against load, effect of the number of switches.
    Fig27,
    /// Fig. 28: latency against load, effect of message length.
    Fig28,
}

impl Figure {
    /// Every figure.
    pub const ALL: [Figure; 10] = [
        Figure::Fig19,
        Figure::Fig20,
        Figure::Fig21,
        Figure::Fig22,
        Figure::Fig23,
        Figure::Fig24,
        Figure::Fig25,
        Figure::Fig26,
        Figure::Fig27,
        Figure::Fig28,
    ];

    /// Its name: `fig19` ... `fig28`.
    pub fn name(self) -> &'static str {
        match self {
            Figure::Fig19 => "fig19",
            Figure::Fig20 => "fig20",
            Figure::Fig21 => "fig21",
            Figure::Fig22 => "fig22",
            Figure::Fig23 => "fig23",
            Figure::Fig24 => "fig24",
            Figure::Fig25 => "fig25",
            Figure::Fig26 => "fig26",
            Figure::Fig27 => "fig27",
            Figure::Fig28 => "fig28",
        }
    }

    /// The figure named `s`.
    pub fn parse(s: &str) -> Result<Figure> {
        Figure::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| Error::Config {
                field: "figure",
                value: s.into(),
                reason: "the figures are fig19 to fig28".into(),
            })
    }

    /// The paper's caption.
    pub fn title(self) -> &'static str {
        match self {
            Figure::Fig19 => "Fig. 19: effect of R on single multicast latency",
            Figure::Fig20 => "Fig. 20: effect of software overhead at the host (R = 1)",
            Figure::Fig21 => "Fig. 21: effect of system size",
            Figure::Fig22 => "Fig. 22: effect of switch size",
            Figure::Fig23 => "Fig. 23: effect of number of switches",
            Figure::Fig24 => "Fig. 24: effect of message length",
            Figure::Fig25 => "Fig. 25: effect of packet size",
            Figure::Fig26 => "Fig. 26: effect of R under increasing multicast load",
            Figure::Fig27 => "Fig. 27: effect of number of switches under increasing load",
            Figure::Fig28 => "Fig. 28: effect of message length under increasing load",
        }
    }

    /// True for the latency-against-load figures (26-28).
    pub fn is_loaded(self) -> bool {
        matches!(self, Figure::Fig26 | Figure::Fig27 | Figure::Fig28)
    }
}

/// One panel of a figure: a system and its parameters.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Setting {
    /// The panel's label, e.g. `R = 2` or `R = 2 (3-way)` (no commas).
    pub label: String,
    /// Switches.
    pub switches: u32,
    /// Ports per switch.
    pub ports: u32,
    /// Nodes.
    pub nodes: u32,
    /// Hosts and NIs (packet size included).
    pub ni: NiParams,
    /// Message length, flits.
    pub message_flits: u32,
    /// Multicast degree of the load figures (0 for single multicasts).
    pub degree: u32,
}

impl Setting {
    fn base(label: String) -> Setting {
        Setting {
            label,
            switches: 8,
            ports: 8,
            nodes: 32,
            ni: NiParams::default(),
            message_flits: 128,
            degree: 0,
        }
    }

    /// Packets of the message.
    pub fn packets(&self) -> u32 {
        self.message_flits.div_ceil(self.ni.packet_flits).max(1)
    }
}

/// How much of an experiment to run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Options {
    /// The small version CI runs.
    pub quick: bool,
    /// Random topologies per setting (10).
    pub topologies: u32,
    /// Destination sets per topology and number of destinations (single
    /// multicasts; 10).
    pub sets: u32,
    /// Cycles of a load run (1,000,000) and its warm-up (500,000).
    pub cycles: u64,
    /// See `cycles`.
    pub warmup: u64,
    /// The schemes compared.
    pub schemes: Vec<PlanScheme>,
    /// Seed of everything random (1).
    pub seed: u64,
    /// What hosts pay `t_hs`/`t_hr` for (per message; see
    /// [`NiParams::host_overhead`]).
    pub host_overhead: HostOverhead,
    /// The build of wormcast that runs the jobs ([`crate::BUILD`]), or
    /// that ran those of a raw file ([`UNRECORDED`] for one written before
    /// builds were recorded): shards of two builds, whose models may
    /// differ, are different experiments and are not merged.
    pub build: String,
}

/// [`Options::build`] of a raw file that does not name its build.
pub const UNRECORDED: &str = "unrecorded";

impl Options {
    /// The paper's sizes (`quick`: 2 topologies, 2 sets, 200,000-cycle load
    /// windows after a 50,000-cycle warm-up, fewer points).
    pub fn new(quick: bool) -> Options {
        Options {
            quick,
            topologies: if quick { 2 } else { 10 },
            sets: if quick { 2 } else { 10 },
            cycles: if quick { 250_000 } else { 1_000_000 },
            warmup: if quick { 50_000 } else { 500_000 },
            schemes: vec![
                PlanScheme::NiKbinomial,
                PlanScheme::PathLg,
                PlanScheme::Tree,
            ],
            seed: 1,
            host_overhead: HostOverhead::PerMessage,
            build: crate::BUILD.to_string(),
        }
    }

    /// Checks the sizes.
    pub fn validate(&self) -> Result<()> {
        let bad = |field: &'static str, value: String, reason: &str| Error::Config {
            field,
            value,
            reason: reason.into(),
        };
        if self.topologies == 0 {
            return Err(bad("topologies", "0".into(), "at least one topology"));
        }
        if self.sets == 0 {
            return Err(bad("sets", "0".into(), "at least one destination set"));
        }
        if self.schemes.is_empty() {
            return Err(bad("schemes", "none".into(), "at least one scheme"));
        }
        if self.warmup >= self.cycles {
            return Err(bad(
                "warmup",
                self.warmup.to_string(),
                &format!(
                    "not shorter than the {} cycles of a load run, which include it",
                    self.cycles
                ),
            ));
        }
        if self.cycles > crate::engine::MAX_RUN_CYCLES {
            return Err(bad(
                "cycles",
                self.cycles.to_string(),
                &format!("a run has at most {} cycles", crate::engine::MAX_RUN_CYCLES),
            ));
        }
        Ok(())
    }

    /// [`validate`](Self::validate), and that `fig` has at most
    /// [`MAX_JOBS`] jobs under these options (its points, times the
    /// topologies, times the destination sets of a figure of single
    /// multicasts).
    pub fn validate_for(&self, fig: Figure) -> Result<()> {
        self.validate()?;
        let points: u64 = settings(fig, self.quick)
            .iter()
            .map(|s| xs(fig, s, self.quick).len() as u64)
            .sum();
        let sets = if fig.is_loaded() { 1 } else { self.sets as u64 };
        let n = points * self.topologies as u64 * sets;
        if n > MAX_JOBS as u64 {
            let what = if fig.is_loaded() {
                format!("{points} points x {} topologies", self.topologies)
            } else {
                format!(
                    "{points} points x {} topologies x {} sets",
                    self.topologies, self.sets
                )
            };
            // Named by the option that took the count past the limit: the
            // sets when the topologies alone keep within it.
            let (field, value) = if points * self.topologies as u64 <= MAX_JOBS as u64 {
                ("sets", self.sets)
            } else {
                ("topologies", self.topologies)
            };
            return Err(Error::Config {
                field,
                value: value.to_string(),
                reason: format!(
                    "{} would have {what} = {n} jobs; a figure has at most {MAX_JOBS}",
                    fig.name()
                ),
            });
        }
        Ok(())
    }
}

/// The panels of `fig`.
pub fn settings(fig: Figure, quick: bool) -> Vec<Setting> {
    let r = |r: f64| {
        let mut s = Setting::base(format!("R = {r}"));
        s.ni.r = r;
        s
    };
    let loaded = |v: Vec<Setting>| -> Vec<Setting> {
        v.into_iter()
            .flat_map(|s| {
                [3, 15].map(|d| {
                    let mut x = s.clone();
                    x.label = format!("{} ({d}-way)", s.label);
                    x.degree = d;
                    x
                })
            })
            .collect()
    };
    let switches = |n: u32| {
        let mut s = Setting::base(format!("{n} switches"));
        s.switches = n;
        s
    };
    let length = |l: u32| {
        let mut s = Setting::base(format!("{l} flits"));
        s.message_flits = l;
        s
    };
    match fig {
        Figure::Fig19 => [0.5, 1.0, 2.0, 5.0].map(r).to_vec(),
        Figure::Fig20 => [250u64, 500, 1000, 2000]
            .map(|t| {
                let mut s = Setting::base(format!("t_hs = {t}"));
                s.ni.t_hs = t;
                s
            })
            .to_vec(),
        Figure::Fig21 => {
            let sizes: &[u32] = if quick {
                &[32, 64]
            } else {
                &[32, 64, 128, 256]
            };
            sizes
                .iter()
                .map(|&n| {
                    let mut s = Setting::base(format!("{n} nodes"));
                    s.nodes = n;
                    s.switches = n / 4;
                    s
                })
                .collect()
        }
        Figure::Fig22 => [(8u32, 8u32), (16, 4), (32, 2)]
            .map(|(p, n)| {
                let mut s = Setting::base(format!("{p}-port switches"));
                s.ports = p;
                s.switches = n;
                s
            })
            .to_vec(),
        Figure::Fig23 => [8u32, 12, 16, 20].map(switches).to_vec(),
        Figure::Fig24 => [128u32, 256, 512, 1024].map(length).to_vec(),
        Figure::Fig25 => [32u32, 64, 128]
            .map(|p| {
                let mut s = Setting::base(format!("{p}-flit packets"));
                s.ni.packet_flits = p;
                s
            })
            .to_vec(),
        Figure::Fig26 => loaded([0.5, 1.0, 2.0, 5.0].map(r).to_vec()),
        Figure::Fig27 => loaded([8u32, 12, 16].map(switches).to_vec()),
        Figure::Fig28 => loaded([128u32, 512, 1024].map(length).to_vec()),
    }
}

/// The x values of a panel: numbers of destinations (single multicasts)
/// or effective applied loads `m B_i` in flits per cycle per node.
pub fn xs(fig: Figure, s: &Setting, quick: bool) -> Vec<f64> {
    if fig.is_loaded() {
        // Up to 1.2 times what the hosts and NIs can take when every
        // multicast costs each node one send and `m` receives: the host
        // `t_hs + m t_hr`, the NI `p (t_ns + m t_nr)` for `p` packets.
        let m = s.degree as f64;
        let t_hs = s.ni.t_hs as f64;
        let t_ns = t_hs / s.ni.r;
        let p = s.packets() as f64;
        let busy = (t_hs + m * t_hs).max(p * (t_ns + m * t_ns));
        let top = 1.2 * m * s.message_flits as f64 / busy;
        let n = if quick { 4 } else { 8 };
        (1..=n).map(|i| round3(top * i as f64 / n as f64)).collect()
    } else {
        // Up to the whole system: 31 is every other node of 32, 255 of 256.
        let all: &[u32] = if quick {
            &[3, 15, 31, 63]
        } else {
            &[3, 7, 15, 23, 31, 63, 127, 191, 255]
        };
        all.iter()
            .filter(|&&d| d < s.nodes)
            .map(|&d| d as f64)
            .collect()
    }
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// One job: a point of a panel on one topology (and, for single
/// multicasts, one destination set).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Job {
    /// Its index in the experiment.
    pub index: usize,
    /// The panel.
    pub setting: usize,
    /// The x value.
    pub x: f64,
    /// The topology (0-based; seed = options seed + this).
    pub topology: u32,
    /// The destination set (single multicasts).
    pub set: u32,
}

/// Every job of `fig`, in order.
pub fn jobs(fig: Figure, o: &Options) -> Vec<Job> {
    let mut out = Vec::new();
    for (si, s) in settings(fig, o.quick).iter().enumerate() {
        for x in xs(fig, s, o.quick) {
            for t in 0..o.topologies {
                let sets = if fig.is_loaded() { 1 } else { o.sets };
                for set in 0..sets {
                    out.push(Job {
                        index: out.len(),
                        setting: si,
                        x,
                        topology: t,
                        set,
                    });
                }
            }
        }
    }
    out
}

/// One raw result: a job's outcome for one scheme.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The job.
    pub job: usize,
    /// The scheme.
    pub scheme: PlanScheme,
    /// Latency in cycles: of the multicast (single), or the mean over the
    /// multicasts created after the warm-up that completed (load).
    pub latency: f64,
    /// Phases (single) or mean phases (load).
    pub phases: f64,
    /// Multicasts created after the warm-up (1 for single).
    pub generated: u64,
    /// Of those, completed by the end of the run (1 for single).
    pub completed: u64,
    /// Load runs: the engine's saturation rule found the latency growing
    /// over the window, the backlog growing, or sources refusing
    /// multicasts (its accepted-throughput clause is replaced by the
    /// completed share; false for single).
    pub saturated: bool,
}

/// The share of a load run's multicasts that must complete for its point
/// not to be saturated (the engine's [`ACCEPTED_SHARE`](crate::engine::ACCEPTED_SHARE)).
pub const COMPLETED_SHARE: f64 = crate::engine::ACCEPTED_SHARE;

/// A load point is a result only when its measured window is at least this
/// many times its mean latency: a window that holds one or two latencies
/// back to back cannot tell a stable queue from one still filling (the
/// reduced runs had 15-way points at 106,502 cycles in a 200,000-cycle
/// window that passed the other rules).
pub const WINDOW_LATENCIES: f64 = 5.0;

/// A shard: the `index`-th (0-based) of `count` slices of the jobs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Shard {
    /// Which slice.
    pub index: u32,
    /// How many slices.
    pub count: u32,
}

/// `text` as a 32-bit count, or why it is not one: `not a whole number`,
/// or `past 4294967295` for a number too large (not called no number).
pub(crate) fn count_u32(text: &str) -> std::result::Result<u32, String> {
    text.trim().parse::<u32>().map_err(|e| match e.kind() {
        std::num::IntErrorKind::PosOverflow => format!("past {}", u32::MAX),
        _ => "not a whole number".into(),
    })
}

impl Shard {
    /// All jobs.
    pub const ALL: Shard = Shard { index: 0, count: 1 };

    /// Parses `I/N` (0 <= I < N).
    pub fn parse(s: &str) -> Result<Shard> {
        let bad = |why: &str| Error::Config {
            field: "shard",
            value: s.into(),
            reason: format!("{why}: give I/N with 0 <= I < N, e.g. 0/4"),
        };
        let (i, n) = s.split_once('/').ok_or_else(|| bad("no '/'"))?;
        let num =
            |x: &str, what: &str| count_u32(x).map_err(|why| bad(&format!("{what} is {why}")));
        let (index, count) = (num(i, "I")?, num(n, "N")?);
        if count == 0 || index >= count {
            return Err(bad("out of range"));
        }
        Ok(Shard { index, count })
    }

    /// True when job `j` is in this shard.
    pub fn has(&self, j: usize) -> bool {
        j % self.count as usize == self.index as usize
    }
}

/// Runs the jobs of `fig` in `shard`, in parallel, calling `progress`
/// after each; returns their rows in job order.
pub fn run(
    fig: Figure,
    o: &Options,
    shard: Shard,
    progress: &(dyn Fn() + Sync),
) -> Result<Vec<Row>> {
    o.validate_for(fig)?;
    let mut settings = settings(fig, o.quick);
    for s in &mut settings {
        s.ni.host_overhead = o.host_overhead;
    }
    let mine: Vec<Job> = jobs(fig, o)
        .into_iter()
        .filter(|j| shard.has(j.index))
        .collect();
    let rows: Vec<Result<Vec<Row>>> = crate::par::map(&mine, |j| {
        let s = &settings[j.setting];
        let r = if fig.is_loaded() {
            load::run_job(fig, s, j, o)
        } else {
            single::run_job(fig, s, j, o)
        };
        progress();
        r
    });
    let mut out = Vec::new();
    for r in rows {
        out.extend(r?);
    }
    // Summaries are made from the values as the raw file holds them, so
    // that `merge` of the raw rows gives the same bytes as this run.
    for r in &mut out {
        r.latency = as_written(r.latency);
        r.phases = as_written(r.phases);
    }
    Ok(out)
}

/// `x` as the raw file writes it (three decimals) and `merge` reads it
/// back.
fn as_written(x: f64) -> f64 {
    format!("{x:.3}").parse().unwrap_or(x)
}

/// A seed mixing the experiment seed with a job's coordinates.
pub(crate) fn mix(parts: &[u64]) -> u64 {
    let mut h: u64 = 0x243F_6A88_85A3_08D3;
    for &p in parts {
        h ^= p.wrapping_add(0x9E37_79B9_7F4A_7C15);
        h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
        h ^= h >> 31;
    }
    h
}

/// The raw file's header. The last column, `check`, is the 16 hex digits
/// of the FNV-1a hash of the row's text before it (its other fields and
/// their commas): a row changed after it was written (a digit, a field)
/// is refused by a merge and by a resume rather than read as it stands.
const RAW_HEADER: &str =
    "job,setting,x,topology,set,scheme,latency,phases,generated,completed,saturated,check";

/// An experiment as its raw file's first line names it: the figure and
/// every option that changes its rows.
fn describe(fig: Figure, o: &Options) -> String {
    format!(
        "{} quick={} topologies={} sets={} cycles={} warmup={} seed={} schemes={}{} build={}",
        fig.name(),
        o.quick,
        o.topologies,
        o.sets,
        o.cycles,
        o.warmup,
        o.seed,
        o.schemes
            .iter()
            .map(|s| s.name())
            .collect::<Vec<_>>()
            .join(":"),
        if o.host_overhead == HostOverhead::PerMessage {
            String::new()
        } else {
            format!(" host={}", o.host_overhead.name())
        },
        o.build,
    )
}

/// The raw file's first line: the experiment, the shard and the number of
/// jobs.
fn first_line(fig: Figure, o: &Options, shard: Shard) -> String {
    format!(
        "# wormcast experiment {} shard={}/{} jobs={}",
        describe(fig, o),
        shard.index,
        shard.count,
        jobs(fig, o).len()
    )
}

/// Appends `r`'s line of the raw file to `t`, its check at its end.
fn write_row(t: &mut String, settings: &[Setting], jobs: &[Job], r: &Row) {
    let j = &jobs[r.job];
    let start = t.len();
    let _ = write!(
        t,
        "{},{},{},{},{},{},{:.3},{:.3},{},{},{}",
        r.job,
        settings[j.setting].label,
        j.x,
        j.topology,
        j.set,
        r.scheme,
        r.latency,
        r.phases,
        r.generated,
        r.completed,
        r.saturated
    );
    let check = fnv(&t[start..]);
    let _ = writeln!(t, ",{check:016x}");
}

/// The raw CSV of `rows`: a comment line naming the experiment, a header,
/// one line per row.
pub fn raw_csv(fig: Figure, o: &Options, shard: Shard, rows: &[Row]) -> String {
    let settings = settings(fig, o.quick);
    let jobs = jobs(fig, o);
    let mut t = format!("{}\n{RAW_HEADER}\n", first_line(fig, o, shard));
    for r in rows {
        write_row(&mut t, &settings, &jobs, r);
    }
    t
}

/// Parses a raw CSV written by [`raw_csv`]: its figure, options, shard and
/// rows. A line that does not read is named as `name:line`.
pub fn parse_raw(text: &str, name: &str) -> Result<(Figure, Options, Shard, Vec<Row>)> {
    read_raw(text).map_err(|e| match e {
        RawError::Line(line, why) => Error::Config {
            field: "raw CSV",
            value: format!("{name}:{line}"),
            reason: why,
        },
        RawError::Other(e) => e,
    })
}

/// Why a raw file does not read: a line of it, or an error of its own
/// (an unknown figure, a bad shard).
enum RawError {
    /// The 1-based line, and what is wrong with it.
    Line(usize, String),
    /// An error that names its own item.
    Other(Error),
}

impl From<Error> for RawError {
    fn from(e: Error) -> RawError {
        RawError::Other(e)
    }
}

/// [`parse_raw`] with a line's fault kept apart from its line.
fn read_raw(text: &str) -> std::result::Result<(Figure, Options, Shard, Vec<Row>), RawError> {
    let bad = RawError::Line;
    let mut lines = text.lines();
    let first = lines.next().unwrap_or("");
    let rest = first
        .strip_prefix("# wormcast experiment ")
        .ok_or_else(|| bad(1, "not a raw file of `wormcast experiment run`".into()))?;
    let mut words = rest.split_whitespace();
    let fig = Figure::parse(words.next().unwrap_or(""))?;
    let mut o = Options::new(false);
    o.build = UNRECORDED.into();
    let mut shard = Shard::ALL;
    for w in words {
        let (k, v) = w
            .split_once('=')
            .ok_or_else(|| bad(1, format!("bad field {w:?}")))?;
        let num = |v: &str| -> std::result::Result<u64, RawError> {
            v.parse()
                .map_err(|_| bad(1, format!("{k} = {v:?} is not a number")))
        };
        let count = |n: u64| -> std::result::Result<u32, RawError> {
            u32::try_from(n).map_err(|_| bad(1, format!("{k} = {n} is too large")))
        };
        match k {
            "quick" => o.quick = v == "true",
            "topologies" => o.topologies = count(num(v)?)?,
            "sets" => o.sets = count(num(v)?)?,
            "cycles" => o.cycles = num(v)?,
            "warmup" => o.warmup = num(v)?,
            "seed" => o.seed = num(v)?,
            "schemes" => o.schemes = v.split(':').map(PlanScheme::parse).collect::<Result<_>>()?,
            "shard" => shard = Shard::parse(v)?,
            "host" => o.host_overhead = HostOverhead::parse(v)?,
            "build" => o.build = v.into(),
            "jobs" => {}
            _ => return Err(bad(1, format!("unknown field {k}"))),
        }
    }
    o.validate_for(fig).map_err(|e| bad(1, e.to_string()))?;
    if lines.next() != Some(RAW_HEADER) {
        return Err(bad(2, format!("the header line is not {RAW_HEADER:?}")));
    }
    let mut rows = Vec::new();
    for (i, l) in lines.enumerate() {
        rows.push(parse_row(l).map_err(|why| bad(i + 3, why))?);
    }
    Ok((fig, o, shard, rows))
}

/// One row of a raw file, or why it is not one.
fn parse_row(l: &str) -> std::result::Result<Row, String> {
    let f: Vec<&str> = l.split(',').collect();
    if f.len() != 12 {
        return Err(format!(
            "{} fields, not 12{}",
            f.len(),
            if f.len() == 11 {
                " (no check at its end: this build ends each row in `check`, a hash of the \
                 row, and an older build's rows have none)"
            } else {
                ""
            }
        ));
    }
    let (body, check) = l.rsplit_once(',').unwrap_or_default();
    holds_check(body, check, "row")?;
    let num = |x: &str| -> std::result::Result<f64, String> {
        x.parse().map_err(|_| format!("{x:?} is not a number"))
    };
    let count = |x: &str| -> std::result::Result<u64, String> {
        x.parse().map_err(|_| format!("{x:?} is not a count"))
    };
    Ok(Row {
        job: usize::try_from(count(f[0])?).map_err(|_| format!("job {} is too large", f[0]))?,
        scheme: PlanScheme::parse(f[5]).map_err(|e| e.to_string())?,
        latency: num(f[6])?,
        phases: num(f[7])?,
        generated: count(f[8])?,
        completed: count(f[9])?,
        saturated: match f[10] {
            "true" => true,
            "false" => false,
            x => return Err(format!("saturated = {x:?} is not true or false")),
        },
    })
}

/// Combines the raw rows of the shards of one experiment: checks that they
/// belong to the same experiment and that together they hold every job
/// exactly once, and returns the rows in job order.
pub fn merge(parts: &[(Figure, Options, Shard, Vec<Row>)]) -> Result<(Figure, Options, Vec<Row>)> {
    let Some((fig, o, _, _)) = parts.first() else {
        return Err(Error::Config {
            field: "merge",
            value: "none".into(),
            reason: "no raw files given".into(),
        });
    };
    let mut all: Vec<Row> = Vec::new();
    for (f, oo, _, rows) in parts {
        if f == fig
            && oo.build != o.build
            && (Options {
                build: o.build.clone(),
                ..oo.clone()
            }) == *o
        {
            return Err(Error::Config {
                field: "merge",
                value: f.name().into(),
                reason: format!(
                    "the raw files were made by two builds of wormcast ({} and {}): the two \
                     models may differ, and an experiment's results come from one build",
                    o.build, oo.build
                ),
            });
        }
        if f != fig || oo != o {
            // Name what differs: the figure, or the options' words.
            let (a, b) = (describe(*fig, o), describe(*f, oo));
            let words = |x: &str| x.split(' ').map(str::to_string).collect::<Vec<_>>();
            let (wa, wb) = (words(&a), words(&b));
            let only = |x: &[String], y: &[String]| {
                let w: Vec<String> = x.iter().filter(|w| !y.contains(w)).cloned().collect();
                if w.is_empty() {
                    "the defaults".to_string()
                } else {
                    w.join(" ")
                }
            };
            return Err(Error::Config {
                field: "merge",
                value: f.name().into(),
                reason: format!(
                    "the raw files come from different experiments: {} in one, {} in another",
                    only(&wa, &wb),
                    only(&wb, &wa)
                ),
            });
        }
        all.extend(rows.iter().cloned());
    }
    // Stable: a job's rows keep their scheme order.
    all.sort_by_key(|r| r.job);
    let total = jobs(*fig, o).len();
    let per_job = o.schemes.len();
    let mut i = 0;
    for j in 0..total {
        let n = all[i..].iter().take_while(|r| r.job == j).count();
        if n != per_job {
            let shard_of = parts.first().map_or(1, |p| p.2.count).max(1);
            return Err(Error::Config {
                field: "merge",
                value: format!("{} job {j}", fig.name()),
                reason: format!(
                    "{n} rows for job {j}, not {per_job} (missing or repeated shard {}/{shard_of}?)",
                    j % shard_of as usize
                ),
            });
        }
        i += n;
    }
    if i != all.len() {
        return Err(Error::Config {
            field: "merge",
            value: format!("{} job {}", fig.name(), all[i].job),
            reason: format!("job {} does not exist ({total} jobs)", all[i].job),
        });
    }
    Ok((*fig, o.clone(), all))
}

/// One point of a figure: a panel's scheme at one x, over its topologies
/// and destination sets.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Point {
    /// The panel's label.
    pub setting: String,
    /// The scheme.
    pub scheme: PlanScheme,
    /// The x value.
    pub x: f64,
    /// Samples.
    pub samples: u32,
    /// Mean, least and largest latency, and its standard deviation.
    pub mean: f64,
    /// See `mean`.
    pub min: f64,
    /// See `mean`.
    pub max: f64,
    /// See `mean`.
    pub std: f64,
    /// Mean phases.
    pub phases: f64,
    /// Load runs: some run completed fewer than [`COMPLETED_SHARE`] of its
    /// multicasts, the engine's saturation rule held for it, or the window
    /// is shorter than [`WINDOW_LATENCIES`] mean latencies.
    pub saturated: bool,
}

/// The points of a figure from its rows (in job order).
pub fn summarize(fig: Figure, o: &Options, rows: &[Row]) -> Vec<Point> {
    let settings = settings(fig, o.quick);
    let jobs = jobs(fig, o);
    let window = o.cycles.saturating_sub(o.warmup) as f64;
    let mut out: Vec<Point> = Vec::new();
    for (si, s) in settings.iter().enumerate() {
        for x in xs(fig, s, o.quick) {
            for &scheme in &o.schemes {
                let rs: Vec<&Row> = rows
                    .iter()
                    .filter(|r| {
                        let j = &jobs[r.job];
                        j.setting == si && j.x == x && r.scheme == scheme
                    })
                    .collect();
                if rs.is_empty() {
                    continue;
                }
                let ok: Vec<f64> = rs
                    .iter()
                    .filter(|r| r.completed > 0)
                    .map(|r| r.latency)
                    .collect();
                // Sums from +0: a float sum of nothing is -0, which a
                // summary of a point with no sample wrote as "-0.0".
                let sum = |v: &mut dyn Iterator<Item = f64>| v.fold(0.0, |a, b| a + b);
                let n = ok.len().max(1) as f64;
                let mean = sum(&mut ok.iter().copied()) / n;
                let var = sum(&mut ok.iter().map(|v| (v - mean) * (v - mean))) / n;
                let min = if ok.is_empty() {
                    0.0
                } else {
                    ok.iter().copied().fold(f64::INFINITY, f64::min)
                };
                out.push(Point {
                    setting: s.label.clone(),
                    scheme,
                    x,
                    samples: rs.len() as u32,
                    mean,
                    min,
                    max: ok.iter().copied().fold(0.0, f64::max),
                    std: var.sqrt(),
                    // A deadlocked run started multicasts but reports no
                    // phases: the mean is over the runs that do.
                    phases: {
                        let p: Vec<f64> =
                            rs.iter().map(|r| r.phases).filter(|&p| p > 0.0).collect();
                        sum(&mut p.iter().copied()) / p.len().max(1) as f64
                    },
                    saturated: ok.is_empty()
                        || rs.iter().any(|r| {
                            r.saturated
                                || (r.completed as f64) < COMPLETED_SHARE * r.generated as f64
                                || (fig.is_loaded() && r.latency * WINDOW_LATENCIES > window)
                        }),
                });
            }
        }
    }
    out
}

/// The summary CSV of a figure.
pub fn summary_csv(points: &[Point]) -> String {
    let mut t = String::from("setting,scheme,x,samples,mean,min,max,std,phases,saturated\n");
    for p in points {
        let _ = writeln!(
            t,
            "{},{},{},{},{:.1},{:.1},{:.1},{:.1},{:.3},{}",
            p.setting, p.scheme, p.x, p.samples, p.mean, p.min, p.max, p.std, p.phases, p.saturated
        );
    }
    t
}

/// Writes `<fig>.raw.csv` (or `<fig>.raw.shard-I-of-N.csv` for a shard)
/// into `dir`, and for a whole experiment its summary `<fig>.csv` and
/// plots `<fig>.svg` and `<fig>.png`. Returns the files written.
pub fn write_outputs(
    dir: &Path,
    fig: Figure,
    o: &Options,
    shard: Shard,
    rows: &[Row],
) -> Result<Vec<PathBuf>> {
    crate::make_dir(dir)?;
    let mut files = Vec::new();
    let raw = raw_path(dir, fig, shard);
    crate::error::write_bytes(&raw, raw_csv(fig, o, shard, rows))?;
    files.push(raw);
    if shard.count == 1 {
        let points = summarize(fig, o, rows);
        let csv = dir.join(format!("{}.csv", fig.name()));
        crate::error::write_bytes(&csv, summary_csv(&points))?;
        files.push(csv);
        files.extend(write_plots(
            fig.title(),
            &caption(fig, o),
            &panels(fig, o, &points),
            &dir.join(fig.name()),
        )?);
    }
    Ok(files)
}

/// The raw file of `fig`'s `shard` in `dir`: `<fig>.raw.csv`, or
/// `<fig>.raw.shard-I-of-N.csv` for a shard.
pub fn raw_path(dir: &Path, fig: Figure, shard: Shard) -> PathBuf {
    if shard.count == 1 {
        dir.join(format!("{}.raw.csv", fig.name()))
    } else {
        dir.join(format!(
            "{}.raw.shard-{}-of-{}.csv",
            fig.name(),
            shard.index,
            shard.count
        ))
    }
}

/// The journal a run of `fig`'s `shard` into `dir` keeps while it runs:
/// the raw file's name with `.part` added.
pub fn journal_path(dir: &Path, fig: Figure, shard: Shard) -> PathBuf {
    let mut p = raw_path(dir, fig, shard).into_os_string();
    p.push(".part");
    PathBuf::from(p)
}

/// Opens the journal at `path` to read it and append to it (made if it is
/// not there), locked (`flock`) for one run at a time: two would run the
/// same jobs, and one dropping what it takes for a torn line could cut the
/// other's. A second run is refused, naming the `what` that writes it; a
/// file system without locks (some cluster mounts) runs unguarded.
pub(crate) fn open_journal(path: &Path, what: &str) -> Result<std::fs::File> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .read(true)
        .append(true)
        .open(path)
        .map_err(|e| Error::io(path, e))?;
    if let Err(std::fs::TryLockError::WouldBlock) = file.try_lock() {
        return Err(Error::Config {
            field: "journal",
            value: path.display().to_string(),
            reason: format!(
                "another {what} run is writing it: wait for that run, or give another --out"
            ),
        });
    }
    Ok(file)
}

/// Opens, locks and reads the journal at `path` ([`open_journal`]) of a
/// run whose journal begins with the line `head`, made by `build`: its
/// text, or why it is not this run's to finish.
fn read_journal(
    path: &Path,
    head: &str,
    build: &str,
    what: &str,
) -> Result<(std::fs::File, String)> {
    use std::io::Read as _;
    let mut file = open_journal(path, what)?;
    let mut text = String::new();
    file.read_to_string(&mut text)
        .map_err(|e| Error::io(path, e))?;
    if let Some(&(first, _)) = whole_lines(&text).first()
        && first != head
    {
        return Err(journal_error(path, not_this_runs(first, head, build)));
    }
    Ok((file, text))
}

/// The error of a journal at `path` that cannot be taken, and `why`.
fn journal_error(path: &Path, why: String) -> Error {
    Error::Config {
        field: "journal",
        value: path.display().to_string(),
        reason: why,
    }
}

/// Cuts the journal `file` at `path` back to its first `whole` bytes (what
/// follows was cut off as it was written: its jobs run again), or, when
/// nothing whole is left, begins it with `preamble`. Opened to append, it
/// takes what is written next at the new end.
fn keep_whole(file: &mut std::fs::File, path: &Path, whole: usize, preamble: &str) -> Result<()> {
    use std::io::Write as _;
    file.set_len(whole as u64).map_err(|e| Error::io(path, e))?;
    if whole == 0 {
        file.write_all(preamble.as_bytes())
            .and_then(|()| file.flush())
            .map_err(|e| Error::io(path, e))?;
    }
    Ok(())
}

/// Runs `job` over `items` in parallel, appending (and flushing) the text
/// each gives to the journal `file` at `path` (still locked by the caller,
/// which holds it) as it finishes, then calling
/// `progress`. Once a stop is asked for ([`crate::interrupt`]) no item
/// starts; those cut short end with [`Error::Interrupted`].
fn run_journaled<T: Send, R: Send>(
    items: Vec<T>,
    file: &std::fs::File,
    path: &Path,
    progress: &(dyn Fn() + Sync),
    job: impl Fn(T) -> Result<(R, String)> + Sync,
) -> Vec<Result<R>> {
    use std::io::Write as _;
    let file = std::sync::Mutex::new(file);
    crate::par::map_owned(items, |item| {
        if let Some(s) = crate::interrupt::requested() {
            return Err(crate::interrupt::stopped(s, String::new()));
        }
        let (r, text) = job(item)?;
        let mut f = file.lock().unwrap_or_else(|p| p.into_inner());
        f.write_all(text.as_bytes())
            .and_then(|()| f.flush())
            .map_err(|e| Error::io(path, e))?;
        drop(f);
        progress();
        Ok(r)
    })
}

/// What [`run_into`] did.
#[derive(Clone, Debug, PartialEq)]
pub struct Ran {
    /// The files written, as [`write_outputs`] names them.
    pub files: Vec<PathBuf>,
    /// Jobs taken from a file rather than run, and the file: the journal
    /// of a run stopped part way, or the raw file of a finished run of the
    /// same experiment by the same build.
    pub kept: Option<(usize, PathBuf)>,
    /// Jobs run.
    pub ran: usize,
    /// A raw file of the same experiment, shard and build found in the
    /// folder but refused, and why (a row changed after it was written, a
    /// job missing): its jobs ran again and it was written anew.
    pub refused: Option<(PathBuf, String)>,
}

/// [`run`] into `dir`, resumable: each finished job's rows are appended
/// (and flushed) to the journal ([`journal_path`], in the raw file's
/// format, jobs in the order they finish) as they come, so a run stopped
/// part way (killed, a batch system's time limit, Ctrl-C or `SIGTERM`
/// once [`crate::interrupt::catch_signals`] is called) is resumed by the
/// same call: it runs only the jobs the journal does not hold, and a job
/// whose rows were cut off as they were written runs again. A raw file of
/// the same experiment, shard and build already whole in `dir` is taken
/// as it is, and no job runs; one that does not read (a row changed after
/// it was written, a job missing) is named in [`Ran::refused`] and written
/// anew. Then the outputs are written
/// ([`write_outputs`], the same bytes as a run from the start) and the
/// journal removed.
///
/// A journal of another experiment or build is refused (its results are
/// not this run's to finish); so is a second run into the same journal
/// while one writes it (`flock`; a file system without locks runs
/// unguarded). A stop asked for ([`crate::interrupt`]) starts no more jobs
/// and ends with [`Error::Interrupted`], saying how many jobs the journal
/// holds.
pub fn run_into(
    dir: &Path,
    fig: Figure,
    o: &Options,
    shard: Shard,
    progress: &(dyn Fn() + Sync),
) -> Result<Ran> {
    o.validate_for(fig)?;
    let head = first_line(fig, o, shard);
    let all = jobs(fig, o);
    let mine: Vec<usize> = all
        .iter()
        .map(|j| j.index)
        .filter(|&j| shard.has(j))
        .collect();
    let per_job = o.schemes.len();
    let whole_jobs = |rows: &[Row]| -> Option<Vec<usize>> {
        // Job by job, each with its schemes in order.
        let mut done = Vec::new();
        for g in rows.chunks(per_job) {
            let j = g[0].job;
            let ok = g.len() == per_job
                && g.iter()
                    .zip(&o.schemes)
                    .all(|(r, &s)| r.job == j && r.scheme == s);
            if !ok {
                return None;
            }
            done.push(j);
        }
        Some(done)
    };
    let raw = raw_path(dir, fig, shard);
    // A finished run of the same experiment and build: nothing to run.
    let mut refused = None;
    if let Ok(text) = std::fs::read_to_string(&raw)
        && text.lines().next() == Some(head.as_str())
    {
        match read_raw(&text) {
            Ok((_, _, _, rows)) if whole_jobs(&rows).is_some_and(|d| d == mine) => {
                for _ in &mine {
                    progress();
                }
                let files = write_outputs(dir, fig, o, shard, &rows)?;
                return Ok(Ran {
                    files,
                    kept: Some((mine.len(), raw)),
                    ran: 0,
                    refused: None,
                });
            }
            Ok(_) => {
                refused = Some((
                    raw.clone(),
                    "its rows are not this run's jobs, each whole and once".into(),
                ));
            }
            Err(e) => {
                let why = match e {
                    RawError::Line(line, why) => format!("line {line}: {why}"),
                    RawError::Other(e) => e.to_string(),
                };
                refused = Some((raw.clone(), why));
            }
        }
    }
    crate::make_dir(dir)?;
    let path = journal_path(dir, fig, shard);
    let (mut file, text) = read_journal(&path, &head, &o.build, "experiment")?;
    let bad = |why: String| journal_error(&path, why);
    // What the journal holds, job by whole job.
    let mut kept: Vec<Row> = Vec::new();
    let mut is_done = vec![false; all.len()];
    let mut whole = 0usize;
    let mut group: Vec<Row> = Vec::new();
    for (n, &(l, end)) in whole_lines(&text).iter().enumerate() {
        match n {
            0 => continue, // the head, checked
            1 if l != RAW_HEADER => {
                return Err(bad(format!("its line 2 is not {RAW_HEADER:?}")));
            }
            1 => {
                whole = end;
                continue;
            }
            _ => {}
        }
        let r = parse_row(l).map_err(|why| bad(format!("line {}: {why}", n + 1)))?;
        if !shard.has(r.job) || r.job >= all.len() {
            return Err(bad(format!(
                "line {}: job {} is not one of this run's",
                n + 1,
                r.job
            )));
        }
        if group.first().is_some_and(|g| g.job != r.job) {
            // A job's rows are written together: one cut short can only
            // be the last.
            return Err(bad(format!(
                "line {}: job {} has {} of its {per_job} rows before job {}'s",
                n + 1,
                group[0].job,
                group.len(),
                r.job
            )));
        }
        group.push(r);
        if group.len() == per_job {
            if whole_jobs(&group).is_none() {
                return Err(bad(format!(
                    "line {}: job {}'s rows are not one of each scheme, in order",
                    n + 1,
                    group[0].job
                )));
            }
            if std::mem::replace(&mut is_done[group[0].job], true) {
                return Err(bad(format!("line {}: job {} twice", n + 1, group[0].job)));
            }
            kept.append(&mut group);
            whole = end;
        }
    }
    // A torn line, or a job's rows in part: its job runs again. A journal
    // without its two first lines begins anew.
    keep_whole(&mut file, &path, whole, &format!("{head}\n{RAW_HEADER}\n"))?;
    let done: Vec<usize> = kept.iter().step_by(per_job).map(|r| r.job).collect();
    for _ in &done {
        progress();
    }
    let pending: Vec<&Job> = mine
        .iter()
        .filter(|&&j| !is_done[j])
        .map(|&j| &all[j])
        .collect();
    let mut settings = settings(fig, o.quick);
    for s in &mut settings {
        s.ni.host_overhead = o.host_overhead;
    }
    let ran = pending.len();
    let results = run_journaled(pending, &file, &path, progress, |j| {
        let s = &settings[j.setting];
        let mut rows = if fig.is_loaded() {
            load::run_job(fig, s, j, o)?
        } else {
            single::run_job(fig, s, j, o)?
        };
        let mut t = String::new();
        for r in &mut rows {
            r.latency = as_written(r.latency);
            r.phases = as_written(r.phases);
            write_row(&mut t, &settings, &all, r);
        }
        Ok((rows, t))
    });
    let journaled = done.len() + results.iter().filter(|r| r.is_ok()).count();
    if let Some(s) = crate::interrupt::requested()
        && journaled < mine.len()
    {
        return Err(crate::interrupt::stopped(
            s,
            format!(
                "with {journaled} of {}'s {} jobs{} in {}: the same `experiment run` again runs \
                 the other {}",
                fig.name(),
                mine.len(),
                if shard == Shard::ALL {
                    String::new()
                } else {
                    format!(" of shard {}/{}", shard.index, shard.count)
                },
                path.display(),
                mine.len() - journaled
            ),
        ));
    }
    let mut rows = kept;
    for r in results {
        rows.extend(r?);
    }
    // Stable: a job's rows keep their scheme order.
    rows.sort_by_key(|r| r.job);
    let files = write_outputs(dir, fig, o, shard, &rows)?;
    let kept = (!done.is_empty()).then(|| (done.len(), path.clone()));
    // Removed while still locked: no second run takes it up meanwhile.
    std::fs::remove_file(&path).map_err(|e| Error::io(&path, e))?;
    drop(file);
    Ok(Ran {
        files,
        kept,
        ran,
        refused,
    })
}

#[cfg(test)]
mod point_journal_tests {
    use super::*;

    #[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
    struct P {
        #[serde(deserialize_with = "name")]
        name: Name,
        x: f64,
        n: u64,
    }

    fn name<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Name, D::Error> {
        known_name(d, ["a", "b"])
    }

    fn point(i: usize) -> P {
        P {
            name: if i.is_multiple_of(2) { "a" } else { "b" },
            // Values JSON would not carry back, and one of every bit.
            x: match i {
                0 => f64::INFINITY,
                1 => f64::NEG_INFINITY,
                2 => 0.1 + 0.2,
                3 => -0.0,
                _ => 1e300 / i as f64,
            },
            n: (i as u64) << 40,
        }
    }

    #[test]
    fn a_journal_of_points_resumes_and_refuses_what_is_not_its_own() {
        let dir = std::env::temp_dir().join(format!("wormcast-points-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let o = SweepOptions::new(true, (100, 10), (50, 5));
        let j = PointJournal::new(&dir, "pts", "test sweep", &o);
        let ran = std::sync::atomic::AtomicUsize::new(0);
        let job = |i: usize| -> Result<P> {
            ran.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            Ok(point(i))
        };
        let want: Vec<P> = (0..6).map(point).collect();
        assert_eq!(
            run_parallel_in((0..6).collect(), job, &j, &|| ()).unwrap(),
            (want.clone(), 0)
        );
        let text = std::fs::read_to_string(&j.path).unwrap();
        assert_eq!(text.lines().next(), Some(j.head.as_str()));
        // Read back bit for bit (-0.0 and all), no point run again.
        let (back, kept) = run_parallel_in((0..6).collect(), job, &j, &|| ()).unwrap();
        assert_eq!(
            (kept, ran.load(std::sync::atomic::Ordering::Relaxed)),
            (6, 6)
        );
        let bits = |v: &[P]| v.iter().map(|p| p.x.to_bits()).collect::<Vec<_>>();
        assert_eq!((&back, bits(&back)), (&want, bits(&want)));

        // Cut in its last line: that point runs again.
        let lines: Vec<&str> = text.lines().collect();
        let cut = format!("{}\n{}", lines[..6].join("\n"), &lines[6][..10]);
        std::fs::write(&j.path, &cut).unwrap();
        assert_eq!(
            run_parallel_in((0..6).collect(), job, &j, &|| ()).unwrap(),
            (want.clone(), 5)
        );
        assert_eq!(ran.load(std::sync::atomic::Ordering::Relaxed), 7);
        assert_eq!(std::fs::read_to_string(&j.path).unwrap().lines().count(), 7);

        let refused = |text: String, why: &str| {
            std::fs::write(&j.path, &text).unwrap();
            // (The start of the message: TOML's own words follow the
            // ones this test names.)
            let e = run_parallel_in((0..6).collect(), job, &j, &|| ()).unwrap_err();
            let want = format!("configuration: journal = {}: {why}", j.path.display());
            assert!(e.to_string().starts_with(&want), "{e}\n{want}");
            assert_eq!(std::fs::read_to_string(&j.path).unwrap(), text);
        };
        let head = lines[0];
        // The points are journalled as they finish, in no set order: the
        // first line is whichever finished first.
        let first: usize = lines[1]
            .split(' ')
            .next()
            .and_then(|p| p.strip_prefix('p'))
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("a point's line: {}", lines[1]));
        refused(
            format!("{head}\n{}\n{}\n", lines[1], lines[1]),
            &format!("line 3: point {first} twice"),
        );
        refused(
            format!(
                "{head}\n{}\n",
                checked("p6 = { name = \"a\", x = 1.0, n = 0 }")
            ),
            "line 2: p6 is not one of the 6 points",
        );
        refused(
            format!(
                "{head}\n{}\n",
                checked("p1 = { name = \"c\", x = 1.0, n = 0 }")
            ),
            "line 2: not a point: \"c\" is not a name a point has",
        );
        refused(
            format!("{head}\n{}\n", checked("not a point")),
            "line 2: not a point: ",
        );
        // A line changed after it was written, or written without a check.
        let edited = lines[1].replacen("x = ", "x = 1", 1);
        refused(
            format!("{head}\n{edited}\n"),
            &format!(
                "line 2: its check {} is not that of its text: the line was changed after it was \
                 written",
                lines[1].rsplit_once(" # check ").unwrap().1
            ),
        );
        refused(
            format!("{head}\n{}\n", lines[1].rsplit_once(" # check ").unwrap().0),
            "line 2: it has no check at its end (this build ends each point's line in `# check` \
             and a hash of the line)",
        );
        refused(
            format!("{}\n", head.replace("build=", "build=0.0.9-")),
            &format!(
                "it was begun by wormcast 0.0.9-{0}, this is wormcast {0}: the two models may \
                 differ, so a run is finished by the build that began it (or remove the journal \
                 to begin again)",
                crate::BUILD
            ),
        );
        let other = PointJournal::new(&dir, "pts", "other sweep", &o);
        refused(
            format!("{}\n", other.head),
            &format!(
                "it holds results of another experiment ({:?}, this run is {:?}): remove it, or \
                 give another --out",
                other.head, j.head
            ),
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn shards_of_a_sweep_of_points_merge_into_its_points() {
        let dir = std::env::temp_dir().join(format!("wormcast-shards-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let o = SweepOptions::new(true, (100, 10), (50, 5));
        let shard = |index, count| Shard { index, count };
        let journal = |k| PointJournal::of_shard(&dir, "pts", "test sweep", &o, shard(k, 3));
        let job = |i: usize| -> Result<P> { Ok(point(i)) };
        let want: Vec<P> = (0..7).map(point).collect();
        let mut done = Vec::new();
        for k in 0..3 {
            let j = journal(k);
            assert_eq!(j.path, dir.join(format!("pts.shard-{k}-of-3.points.part")));
            assert!(
                j.head.contains(&format!(" seed=1 shard={k}/3 build=")),
                "{}",
                j.head
            );
            let (mine, kept) = run_parallel_in((0..7).collect(), job, &j, &|| ()).unwrap();
            let ours: Vec<P> = (0..7).filter(|i| i % 3 == k as usize).map(point).collect();
            assert_eq!((mine, kept), (ours, 0));
            let d = j.finish().unwrap().unwrap();
            assert_eq!(d, dir.join(format!("pts.shard-{k}-of-3.points")));
            assert!(!j.path.exists());
            done.push(d);
        }
        // A finished shard run again takes every point from its file.
        let (_, kept) = run_parallel_in((0..7).collect(), job, &journal(0), &|| ()).unwrap();
        assert_eq!(kept, 3);
        assert_eq!(journal(0).finish().unwrap().unwrap(), done[0]);

        let read = |ks: &[usize]| -> Vec<PointFile> {
            ks.iter()
                .map(|&k| PointFile::read(&done[k]).unwrap())
                .collect()
        };
        let files = read(&[2, 0, 1]);
        assert_eq!(
            (files[0].sweep.as_str(), files[0].quick, files[0].shard),
            ("test sweep", true, shard(2, 3))
        );
        let back: Vec<P> = merge_points(&files, 7).unwrap();
        let bits = |v: &[P]| v.iter().map(|p| p.x.to_bits()).collect::<Vec<_>>();
        assert_eq!((&back, bits(&back)), (&want, bits(&want)));

        let refused = |files: &[PointFile], why: &str| {
            let e = merge_points::<P>(files, 7).unwrap_err().to_string();
            assert_eq!(e, format!("configuration: merge = {why}"));
        };
        refused(&[], "none: no shard's points given");
        refused(
            &read(&[0, 2]),
            "test sweep: shard 1/3 of the sweep is missing",
        );
        refused(
            &read(&[1]),
            "test sweep: shards 0/3, 2/3 of the sweep are missing",
        );
        // A point of another shard in a shard's file.
        let other = dir.join("other.points");
        let text = std::fs::read_to_string(&done[1]).unwrap();
        let p0 = std::fs::read_to_string(&done[0]).unwrap();
        let line0 = p0.lines().find(|l| l.starts_with("p0 ")).unwrap();
        std::fs::write(&other, format!("{text}{line0}\n")).unwrap();
        let mut files = read(&[0, 2]);
        files.push(PointFile::read(&other).unwrap());
        let e = merge_points::<P>(&files, 7).unwrap_err().to_string();
        assert!(e.ends_with(": line 4: point 0 is not in shard 1/3"), "{e}");
        // Shards cut another way.
        let four = PointJournal::of_shard(&dir, "pts", "test sweep", &o, shard(1, 4));
        run_parallel_in((0..7).collect(), job, &four, &|| ()).unwrap();
        let four = four.finish().unwrap().unwrap();
        let mut files = read(&[0]);
        files.push(PointFile::read(&four).unwrap());
        refused(
            &files,
            &format!(
                "{}: it is shard 1/4, {} is shard 0/3: the shards of one sweep are cut the same way",
                four.display(),
                done[0].display()
            ),
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

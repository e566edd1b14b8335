//! The `wormcast` command-line tool. This file holds the command tree,
//! the dispatch and what every subcommand shares (the imports, the
//! progress bar, the waveform limits); each subcommand lives in a file of
//! its own under `wormcast/`, which takes those with `use super::*`.

/// Set once a waveform writes to standard output (`--vcd -`): from then
/// on what the command prints goes to standard error ([`say!`]).
static WAVE_ON_STDOUT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// `println!` for what a command prints: to standard output, or to
/// standard error once a waveform has taken standard output.
macro_rules! say {
    ($($t:tt)*) => {
        if $crate::WAVE_ON_STDOUT.load(std::sync::atomic::Ordering::Relaxed) {
            eprintln!($($t)*)
        } else {
            println!($($t)*)
        }
    };
}

/// `print!` as [`say!`] chooses.
macro_rules! say_part {
    ($($t:tt)*) => {
        if $crate::WAVE_ON_STDOUT.load(std::sync::atomic::Ordering::Relaxed) {
            eprint!($($t)*)
        } else {
            print!($($t)*)
        }
    };
}

#[path = "wormcast/demo_cmd.rs"]
mod demo_cmd;
#[path = "wormcast/direct.rs"]
mod direct;
#[path = "wormcast/experiment_cmd.rs"]
mod experiment_cmd;
#[path = "wormcast/mcast_cmd.rs"]
mod mcast_cmd;
#[path = "wormcast/mesh_exp.rs"]
mod mesh_exp;
#[path = "wormcast/plan_cmd.rs"]
mod plan_cmd;
#[path = "wormcast/reach_cmd.rs"]
mod reach_cmd;
#[path = "wormcast/run_cmd.rs"]
mod run_cmd;
#[path = "wormcast/sweep_cmd.rs"]
mod sweep_cmd;
#[path = "wormcast/topo_cmd.rs"]
mod topo_cmd;
#[path = "wormcast/tree_cmd.rs"]
mod tree_cmd;
#[path = "wormcast/twin_cmd.rs"]
mod twin_cmd;
#[path = "wormcast/wave_cmd.rs"]
mod wave_cmd;
use demo_cmd::*;
use experiment_cmd::*;
use mcast_cmd::*;
use plan_cmd::*;
use reach_cmd::*;
use run_cmd::*;
use topo_cmd::*;
use twin_cmd::*;
use wave_cmd::*;

use clap::parser::ValueSource;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};
use wormcast::engine::{Pattern, TopoSpec};
use wormcast::experiment::{Panel, Series};
use wormcast::header::Kind;
use wormcast::mcast::{
    Discipline, PlanScheme, Planner, Tree, hex, log2_ceil, optimal_k, poc_order,
};
use wormcast::net::summary::summarize;
use wormcast::net::{IrregularParams, Network};
use wormcast::net::{Reachability, UpDown};
use wormcast::ni::{NiTiming, Scheme};
use wormcast::rtl::trace::{Hierarchy, WaveSink};
use wormcast::sim::{Delivery, NodeModel, RunReport, SimConfig, System, Traffic, WormSpec};
use wormcast::switch::twin::{Params, Unit, trace, write_vectors};
use wormcast::wave::{
    CompareReport, CosimOptions, DiffOptions, SignalMap, TraceLimits, WaveReader, WindowNames,
    cosim, write_views,
};
use wormcast::{Error, Result};

#[derive(Parser)]
#[command(
    name = "wormcast",
    version = wormcast::BUILD,
    about = "Cycle-level RTL models of multicast interconnection networks"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Topologies: generate and inspect.
    Topo {
        #[command(subcommand)]
        cmd: TopoCmd,
    },
    /// Simulate traffic on a network.
    Run(Box<RunArgs>),
    /// Print the bit-string reachability strings of every switch (seed 000
    /// Fig. 18): its level, total string and every down port's restricted
    /// string, node 0 first.
    Reach {
        /// The topology file.
        file: PathBuf,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Write stimulus for a unit's Verilog testbench (`$readmemh` file and
    /// a `.vh` of defines beside it).
    Vectors(VectorArgs),
    /// Check a unit's VCD from a Verilog simulation against the model,
    /// cycle by cycle. Exit status 1 on a mismatch.
    Cosim(CosimArgs),
    /// One multicast through smart or conventional network interfaces
    /// (seed 000 section 4): the tree, when each destination's host had
    /// the message, the timing model's prediction and the paper's step
    /// model.
    Multicast(McastArgs),
    /// The optimal k-binomial tree for a multicast (seed 000 section 4.3):
    /// optimal k, L1, total steps L1 + (M-1)k, and the steps of the binomial
    /// and linear trees.
    Kbinomial {
        /// n: nodes of the multicast set, the source included.
        #[arg(long)]
        nodes: u64,
        /// M: packets of the message.
        #[arg(long, default_value_t = 1)]
        packets: u32,
        /// Print the precomputed table of optimal k for 2..=nodes and
        /// 1..=packets instead.
        #[arg(long)]
        table: bool,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Plan a multicast by any scheme of seed 000 (sections 4, 5.2, 5.3):
    /// the worms of each phase with their senders, destinations, switches
    /// and encoded headers. With --run, also simulate it with hosts and
    /// network interfaces.
    Plan(PlanArgs),
    /// The experiments of seed 000 section 6 (Figs. 19-28): CSV files and
    /// plots (docs/reproduction.md).
    Experiment {
        #[command(subcommand)]
        cmd: ExpCmd,
    },
    /// Sweeps: every combination of lists of values over a run
    /// configuration's fields, each a run of the engine; sharded (Slurm
    /// job arrays too), resumable, merged (docs/engine.md).
    Sweep {
        #[command(subcommand)]
        cmd: sweep_cmd::SweepCmd,
    },
    /// Waveform tools.
    Wave {
        #[command(subcommand)]
        cmd: WaveCmd,
    },
    /// Wormhole hypercubes with path-based multicast (seed 001): path
    /// counts, multicast routes and paths.
    Hypercube {
        #[command(subcommand)]
        cmd: direct::CubeCmd,
    },
    /// All-port meshes with Hamiltonian-path multicast (seed 002): TP and SP
    /// plans and experiments.
    Mesh3d {
        #[command(subcommand)]
        cmd: direct::MeshCmd,
    },
    /// Tree-based multicast with pruning against pseudo-multicast on meshes
    /// and tori with dimension-order routing (seed 003): single multicasts
    /// and experiments.
    Tree {
        #[command(subcommand)]
        cmd: tree_cmd::TreeCmd,
    },
    /// The main demo: the paper's default 32-node network under uniform
    /// traffic, with a waveform of the first cycles.
    Demo {
        /// Where to write the demo's VCD and GTKWave save file.
        #[arg(long, default_value = "wormcast-demo")]
        out: PathBuf,
    },
}

/// Limits of a waveform: a window of cycles and some scopes. A command
/// that takes them names the arguments that give its waveform as the
/// group `waveform`.
#[derive(clap::Args, Clone, Debug, Default)]
struct TraceArgs {
    /// First cycle written to the waveform; the values during it are the
    /// file's initial values.
    #[arg(long, value_name = "CYCLE", requires = "waveform")]
    trace_from: Option<u64>,
    /// Last cycle written to the waveform.
    #[arg(long, value_name = "CYCLE", requires = "waveform")]
    trace_to: Option<u64>,
    /// Write only these scopes or signals (dotted paths such as top.sw3 or
    /// top.sw3.in2.buf_count), comma-separated or repeated; the root and
    /// its clock are always written.
    #[arg(
        long,
        value_name = "PATH",
        value_delimiter = ',',
        requires = "waveform"
    )]
    trace_scope: Vec<String>,
}

impl TraceArgs {
    fn limits(&self) -> TraceLimits {
        TraceLimits {
            from: self.trace_from.unwrap_or(0),
            to: self.trace_to,
            scopes: self.trace_scope.clone(),
            names: WindowNames::CLI,
        }
    }

    /// A waveform writer for `path` (FST or VCD by its name) within these
    /// limits.
    fn open(&self, path: &Path, comment: &str) -> Result<Box<dyn WaveSink>> {
        let l = self.limits();
        l.check()?;
        l.wrap(wave_sink(path, comment)?)
    }

    /// The GTKWave and Surfer views of the waveform at `path`, with the
    /// signals these limits keep.
    fn views(&self, path: &Path, h: &Hierarchy) -> Result<()> {
        views(path, &*self.limits().view(h)?)
    }
}

/// Writes the GTKWave and Surfer views beside the waveform at `path`
/// ([`write_views`]), saying on standard error which it left as it was.
fn views(path: &Path, h: &Hierarchy) -> Result<()> {
    if let Some(note) = write_views(path, h)?.and_then(|v| v.note()) {
        eprintln!("note: {note}");
    }
    Ok(())
}

/// A waveform writer for `path` ([`wormcast::wave::create`]): `-` (or
/// `/dev/stdout`) writes VCD to standard output, and what the command
/// prints goes to standard error from then on.
fn wave_sink(path: &Path, comment: &str) -> Result<Box<dyn WaveSink>> {
    if wormcast::wave::is_stdout(path) {
        WAVE_ON_STDOUT.store(true, std::sync::atomic::Ordering::Relaxed);
    }
    wormcast::wave::create(path, comment)
}

/// The command line, every option that takes a value accepting a negative
/// number: `--load -1` reaches the option's own check, which names the
/// option and its range, instead of reading as an unknown argument `-1`.
fn command() -> clap::Command {
    fn negatives(c: clap::Command) -> clap::Command {
        c.mut_args(|a| {
            if a.get_action().takes_values() {
                a.allow_negative_numbers(true)
            } else {
                a
            }
        })
        .mut_subcommands(negatives)
    }
    negatives(Cli::command())
}

/// An error found once a command's report is printed: a waveform window
/// the run never reached ([`after_report`]). `main` reports it when the
/// command has returned, so that the report is not lost to it.
static DEFERRED: std::sync::Mutex<Option<Error>> = std::sync::Mutex::new(None);

/// What a waveform `ended` with (a command's `finish_trace_hierarchy`,
/// a session's `finish_views`); a window the run never reached (it ended
/// first: a multicast or a replay done, a stop rule met) gives `None`, no
/// file, and its error after the command's report (exit status 2), where
/// it used to stop the command before its report.
pub fn after_report<T>(ended: Result<Option<T>>) -> Result<Option<T>> {
    match ended {
        Err(e @ Error::WindowNotReached { .. }) => {
            defer(e);
            Ok(None)
        }
        r => r,
    }
}

/// `e`, told which option to give when it refuses a warm-up the command
/// line left at its default (`given` false; `quick`: the default of
/// `--quick`), as `run` tells it.
pub fn with_warmup_hint(e: Error, given: bool, quick: bool) -> Error {
    match e {
        Error::Config {
            field: "warmup",
            value,
            reason,
        } if !given => Error::Config {
            field: "warmup",
            value,
            reason: format!(
                "{reason} (the default warm-up{}: give a shorter one, --warmup)",
                if quick { " of --quick" } else { "" }
            ),
        },
        e => e,
    }
}

/// Reports `e` once the command has printed its report and returned.
pub fn defer(e: Error) {
    *DEFERRED.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
}

/// Exit status 0: done (no difference); 1: a comparison found a difference;
/// 2: an error.
fn main() -> ExitCode {
    // Output to a closed pipe ends the process quietly.
    wormcast::interrupt::quiet_on_closed_pipe();
    // Built once: parsing borrows it, and the groups below are read from it.
    let mut cmd = command();
    let matches = cmd.get_matches_mut();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(c) => c,
        Err(e) => e.exit(),
    };
    // The options given on the command line, for commands that refuse an
    // option that does not apply rather than ignore it.
    // A group of options (`TraceArgs`, `waveform`) is no option.
    let given: Vec<String> = matches
        .subcommand()
        .map(|(name, m)| {
            let groups: Vec<String> = cmd
                .find_subcommand(name)
                .map(|c| c.get_groups().map(|g| g.get_id().to_string()).collect())
                .unwrap_or_default();
            m.ids()
                .filter(|id| !groups.iter().any(|g| g == id.as_str()))
                .filter(|id| m.value_source(id.as_str()) == Some(ValueSource::CommandLine))
                .map(|id| id.as_str().to_string())
                .collect()
        })
        .unwrap_or_default();
    let r = run(cli, &given);
    // An error deferred past the report stands in for the command's
    // success (an error of the command's own goes first).
    let deferred = DEFERRED.lock().unwrap_or_else(|p| p.into_inner()).take();
    let r = match (r, deferred) {
        (Ok(_), Some(e)) => Err(e),
        (r, _) => r,
    };
    match r {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        // Output to a closed pipe (`| head`) ends quietly.
        Err(Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::BrokenPipe => {
            ExitCode::SUCCESS
        }
        // A deadlock, or a network that did not drain in the cycles given,
        // is what a simulation found, as a difference is what a comparison
        // found: exit status 1.
        Err(
            e @ (Error::Deadlock(_)
            | Error::DirectDeadlock(_)
            | Error::TreeDeadlock(_)
            | Error::NotDrained { .. }),
        ) => {
            eprintln!("{e}");
            ExitCode::from(1)
        }
        Err(e @ Error::Interrupted { .. }) => {
            eprintln!("{e}");
            ended_by_signal()
        }
        Err(e) => {
            let text = e.to_string();
            eprintln!("error: {text}");
            // A refusal by memory says where the bound comes from when it
            // is a control group's limit (a Slurm job's --mem, a
            // container's), not the machine's free memory.
            if text.contains("of memory available")
                && let Some(note) = wormcast::memory_limit_note()
            {
                eprintln!("note: {note}");
            }
            ExitCode::from(2)
        }
    }
}

/// From here on Ctrl-C or `SIGTERM` (a Slurm job's time limit) asks the
/// run or sweep about to start to stop at its next cycle and finish its
/// waveform or journal; `main` then ends the process by that signal.
/// Called once the network is built and before any file is begun: a
/// signal before it (while a large network is built, say) ends the
/// process at once, as by default.
pub fn stop_cleanly_from_here() {
    wormcast::interrupt::catch_signals();
}

/// Ends the process by the signal that asked a run to stop, once its
/// files are finished: the shell or batch system that started it sees it
/// ended by that signal, as it would have been without the handler
/// (status 128 + the signal where the signal does not end it).
fn ended_by_signal() -> ExitCode {
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let signal = wormcast::interrupt::requested().unwrap_or(libc::SIGINT);
    wormcast::interrupt::end_by(signal);
    ExitCode::from(128 + signal as u8)
}

/// Ok(false) when a comparison found a difference.
fn run(cli: Cli, given: &[String]) -> Result<bool> {
    match cli.cmd {
        Cmd::Vectors(a) => vectors(&a).map(|()| true),
        Cmd::Cosim(a) => cosim_cmd(&a),
        Cmd::Wave { cmd } => wave(cmd),
        Cmd::Kbinomial {
            nodes,
            packets,
            table,
            json,
        } => kbinomial(nodes, packets, table, json).map(|()| true),
        Cmd::Topo { cmd } => topo(cmd).map(|()| true),
        Cmd::Run(args) => simulate(*args, given).map(|()| true),
        Cmd::Multicast(args) => multicast(&args).map(|()| true),
        Cmd::Plan(args) => plan(&args).map(|()| true),
        Cmd::Experiment { cmd } => experiment(cmd).map(|()| true),
        Cmd::Sweep { cmd } => sweep_cmd::run(cmd),
        Cmd::Reach { file, json } => reach(&file, json).map(|()| true),
        Cmd::Hypercube { cmd } => direct::run(cmd).map(|()| true),
        Cmd::Mesh3d { cmd } => direct::run_mesh(cmd).map(|()| true),
        Cmd::Tree { cmd } => tree_cmd::run(cmd),
        Cmd::Demo { out } => demo(&out).map(|()| true),
    }
}

/// The options that cut a batch of independent jobs (a sweep's, an
/// experiment's, a sweep of points') over machines: a shard, from a Slurm
/// job array on request, and the worker threads.
#[derive(clap::Args)]
pub struct ShardArgs {
    /// Run only slice I of N (0-based) of the jobs: those whose number is
    /// I modulo N.
    #[arg(long, conflicts_with = "slurm")]
    shard: Option<String>,
    /// Take the shard from the Slurm job array task (SLURM_ARRAY_TASK_ID,
    /// SLURM_ARRAY_TASK_COUNT; a stepped array such as --array=1-7:2 too),
    /// and the worker threads from the task's CPUs where --threads is not
    /// given.
    #[arg(long)]
    pub slurm: bool,
    /// Worker threads (default: with --slurm, the task's CPUs,
    /// SLURM_CPUS_PER_TASK or SLURM_CPUS_ON_NODE, where set; else every
    /// core).
    #[arg(long)]
    threads: Option<usize>,
}

impl ShardArgs {
    /// The shard asked for: `--shard`, the Slurm task's, or every job.
    pub fn shard(&self) -> Result<wormcast::experiment::Shard> {
        use wormcast::experiment::Shard;
        match &self.shard {
            _ if self.slurm => wormcast::experiment::sweep::slurm_shard(&|k| std::env::var(k).ok()),
            Some(s) => Shard::parse(s),
            None => Ok(Shard::ALL),
        }
    }

    /// The worker threads asked for: `--threads`, the Slurm task's CPUs,
    /// or one per core.
    pub fn pool(&self) -> Result<Workers> {
        let threads = match self.threads {
            None if self.slurm => {
                wormcast::experiment::sweep::slurm_cpus(&|k| std::env::var(k).ok())?
            }
            t => t,
        };
        worker_pool(threads)
    }
}

/// The threads a batch of jobs runs on: a pool of its own, or the calling
/// thread alone where no thread can be started.
pub struct Workers(Option<rayon::ThreadPool>);

impl Workers {
    /// Runs `f` on the workers (its parallel work spread over them); the
    /// caller waits for it.
    pub fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        match &self.0 {
            Some(pool) => pool.install(f),
            None => f(),
        }
    }
}

/// A pool of `threads` worker threads (every core when none is given).
/// Where the pool's threads cannot be started (a limit on a control
/// group's tasks, as a container or a cluster's job may set), the jobs run
/// one at a time on the calling thread, with the same results, and a note
/// says so.
fn worker_pool(threads: Option<usize>) -> Result<Workers> {
    // Each worker runs one job at a time: more workers than this are no
    // machine's cores, and spawning them would take minutes.
    const MAX_WORKERS: usize = 1024;
    if let Some(t) = threads
        && !(1..=MAX_WORKERS).contains(&t)
    {
        return Err(Error::Config {
            field: "threads",
            value: t.to_string(),
            reason: format!("1 to {MAX_WORKERS} worker threads (without --threads, one per core)"),
        });
    }
    match rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .build()
    {
        Ok(pool) => Ok(Workers(Some(pool))),
        Err(e) => {
            let Some(cause) = std::error::Error::source(&e) else {
                return Err(Error::Config {
                    field: "threads",
                    value: threads.map_or_else(|| "every core".into(), |t| t.to_string()),
                    reason: e.to_string(),
                });
            };
            eprintln!(
                "note: the worker threads could not be started ({cause}): the jobs run one at a \
                 time on this thread"
            );
            Ok(Workers(None))
        }
    }
}

/// A bar of `total` jobs labelled `what`, drawn only on a terminal and
/// never with `quiet`.
fn jobs_bar(total: u64, what: &str, quiet: bool) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(
        Some(total),
        if !quiet && std::io::stderr().is_terminal() {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        },
    );
    bar.set_style(
        ProgressStyle::with_template(&format!(
            "{what} {{bar:40}} {{pos}}/{{len}} jobs (eta {{eta}})"
        ))
        .expect("valid template"),
    );
    bar
}

/// A progress bar that appears only on a terminal, only after a second,
/// and never with `quiet`.
struct Progress {
    bar: ProgressBar,
    start: Instant,
    shown: bool,
    enabled: bool,
}

impl Progress {
    fn new(total: u64, quiet: bool) -> Self {
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} cycles ({per_sec}, eta {eta})")
                .expect("valid template"),
        );
        Progress {
            bar,
            start: Instant::now(),
            shown: false,
            enabled: !quiet && std::io::stderr().is_terminal(),
        }
    }

    fn set(&mut self, pos: u64) {
        if self.enabled && !self.shown && self.start.elapsed() > Duration::from_secs(1) {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
            self.shown = true;
        }
        self.bar.set_position(pos);
    }

    fn done(&self) {
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every command and every option says what it is for: an option
    /// without help text shows only its name in `--help`.
    #[test]
    fn every_command_and_option_has_help_text() {
        fn walk(c: &clap::Command, path: &str, missing: &mut Vec<String>) {
            if c.get_about().is_none() && !path.is_empty() {
                missing.push(format!("command `{path}`"));
            }
            for a in c.get_arguments() {
                let id = a.get_id().as_str();
                if id == "help" || id == "version" {
                    continue;
                }
                if a.get_help().is_none() {
                    missing.push(format!("`{path} --{id}`"));
                }
            }
            for s in c.get_subcommands() {
                if s.get_name() == "help" {
                    continue;
                }
                let p = format!("{path} {}", s.get_name()).trim().to_string();
                walk(s, &p, missing);
            }
        }
        let mut missing = Vec::new();
        walk(&Cli::command(), "", &mut missing);
        assert!(missing.is_empty(), "no help text: {}", missing.join(", "));
    }

    /// The help of `kbinomial` and `multicast` describes each its own
    /// command (they were once swapped).
    #[test]
    fn kbinomial_and_multicast_describe_themselves() {
        let c = Cli::command();
        let about = |n: &str| {
            c.find_subcommand(n)
                .and_then(|s| s.get_about())
                .map(|a| a.to_string())
                .unwrap_or_default()
        };
        assert!(about("kbinomial").starts_with("The optimal k-binomial tree"));
        assert!(about("multicast").starts_with("One multicast through"));
    }
}

//! One configuration file per run: the network, router model and routing,
//! the traffic, the statistics, the outputs and the hardware parameters of
//! each router model, in one TOML file (`wormcast run --config exp.toml`).
//!
//! Every field has a documented default (the command line's), an unknown
//! field is refused with the line it is on, and a field that does not apply
//! to the run asked for (a destination count for unicast traffic, a load
//! for a trace replay) is refused by name rather than ignored. The
//! command line's options are the same fields: given with `--config`, they
//! override the file. `configs/` holds one example per seed paper.

use super::stats::Metric;
use super::{Pattern, RouterModel, RunOptions, TopoSpec};
use crate::direct::{PortModel, Pruning, Release, TreeConfig};
use crate::net::toml_error;
use crate::rtl::HandOver;
use crate::sim::SimConfig;
use crate::wave::{TraceLimits, WindowNames};
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A whole run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RunConfig {
    /// The network, its router model and routing function.
    pub network: NetworkConfig,
    /// What the nodes send.
    pub traffic: TrafficConfig,
    /// How long, and how the statistics are gathered.
    pub stats: StatsConfig,
    /// What is written.
    pub output: OutputConfig,
    /// The cut-through switch network's hardware (seed 000's defaults;
    /// every field of `SimConfig` but `seed`, which is `traffic.seed`).
    pub switch: SimConfig,
    /// The wormhole router's hardware.
    pub wormhole: WormholeConfig,
    /// The tree router's hardware and pruning rule.
    pub tree: TreeSection,
}

/// `[network]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NetworkConfig {
    /// A topology file, or `mesh:8x8`, `torus:8x8x8`, `hypercube:6`,
    /// `irregular:switches=32,ports=8,nodes=128,seed=3` (`mesh:8x8`).
    pub topology: String,
    /// `cut-through`, `wormhole` or `tree` (the topology's default).
    pub router: Option<String>,
    /// The routing function (the router model's default).
    pub routing: Option<String>,
}

impl Default for NetworkConfig {
    fn default() -> Self {
        NetworkConfig {
            topology: "mesh:8x8".into(),
            router: None,
            routing: None,
        }
    }
}

/// `[traffic]`. Unset fields take the defaults given; a field set that the
/// traffic does not use is refused.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrafficConfig {
    /// A pattern (`uniform`, `transpose`, `bit-complement`, `bit-reverse`,
    /// `shuffle`, `tornado`, `neighbour`, `hotspot:N@F`, `permutation:FILE`)
    /// or `multicast` (`uniform`).
    pub pattern: String,
    /// Offered load, flits per node per cycle (0.05).
    pub load: Option<f64>,
    /// Packet length, flits, header included (128).
    pub packet: Option<u32>,
    /// Bimodal lengths, `LEN@SHARE` (none).
    pub packet_alt: Option<String>,
    /// The multicast scheme (the router model's first; multicast and
    /// trace replays only; docs/engine.md lists them).
    pub scheme: Option<String>,
    /// Destinations per multicast, the least (4; multicast only).
    pub degree: Option<u32>,
    /// Destinations per multicast, the most (`degree`; multicast only).
    pub degree_max: Option<u32>,
    /// Closed loop: a node creates its next message only once its previous
    /// one has fully arrived, after a think time drawn from the load (off).
    pub closed_loop: Option<bool>,
    /// Messages a node may have outstanding (64).
    pub source_queue: Option<u32>,
    /// Seed of the traffic (1).
    pub seed: Option<u64>,
    /// Replay this trace file instead (docs/engine.md); no other traffic
    /// field applies then.
    pub trace: Option<PathBuf>,
}

impl Default for TrafficConfig {
    fn default() -> Self {
        TrafficConfig {
            pattern: "uniform".into(),
            load: None,
            packet: None,
            packet_alt: None,
            scheme: None,
            degree: None,
            degree_max: None,
            closed_loop: None,
            source_queue: None,
            seed: None,
            trace: None,
        }
    }
}

/// `[stats]`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StatsConfig {
    /// Cycles simulated, warm-up included (200,000); with a stop rule the
    /// most; for a trace replay, the most to wait.
    pub cycles: Option<u64>,
    /// Cycles before measurement starts (50,000).
    pub warmup: Option<u64>,
    /// Batches of the confidence interval (10).
    pub batches: Option<u32>,
    /// Cycles per batch (the measured cycles over `batches`).
    pub batch_cycles: Option<u64>,
    /// Stop once the 95% half-width is under this fraction of the mean
    /// latency (none; seed 002 uses 0.05).
    pub stop_rule: Option<f64>,
    /// The latency of the interval and the stop rule: `latency` (per
    /// copy, creation to tail) or `network-latency` (per copy, first flit
    /// in to tail; seed 002's figures) (`latency`).
    pub stop_metric: Option<String>,
    /// After the run, stop the sources and wait at most this many cycles
    /// for every message to arrive (none).
    pub drain: Option<u64>,
}

/// `[output]`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OutputConfig {
    /// Print one JSON object (off).
    pub json: bool,
    /// Write every register to this waveform (`.fst`: FST, else VCD), with
    /// GTKWave and Surfer views beside it (none).
    pub vcd: Option<PathBuf>,
    /// First cycle written to the waveform (0).
    pub trace_from: Option<u64>,
    /// Last cycle written to the waveform (the run's last).
    pub trace_to: Option<u64>,
    /// Scopes or signals written (every one).
    pub trace_scope: Vec<String>,
    /// What the waveform window's refusals call `trace_from`, `trace_to`
    /// and `trace_scope` (none: this section's keys,
    /// [`WindowNames::CONFIG`]). Not read from a file: a front end that
    /// fills those fields from its own arguments names them its way.
    #[serde(skip)]
    pub window_names: Option<WindowNames>,
    /// Report every link's utilisation, busiest first (off: the mean and
    /// the busiest only).
    pub per_link: bool,
}

impl OutputConfig {
    /// Puts a front end's own window settings over the file's: each one
    /// given (`Some`) replaces its key and is named in refusals as
    /// `names` calls it, and the others keep their keys and names (the
    /// command line's options and the Python package's arguments narrow
    /// a file's waveform so).
    pub fn override_window(
        &mut self,
        from: Option<u64>,
        to: Option<u64>,
        scope: Option<Vec<String>>,
        names: WindowNames,
    ) {
        let n = self.window_names.get_or_insert(WindowNames::CONFIG);
        if let Some(from) = from {
            self.trace_from = Some(from);
            n.from = names.from;
        }
        if let Some(to) = to {
            self.trace_to = Some(to);
            n.to = names.to;
        }
        if let Some(scope) = scope {
            self.trace_scope = scope;
            n.scope = names.scope;
        }
    }
}

/// `[wormhole]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WormholeConfig {
    /// `one-port` or `all-port` injection and consumption (`one-port`).
    pub ports: String,
    /// Input buffer per channel, flits (2).
    pub buffer_flits: u32,
    /// Start-up latency per worm at its source, cycles, one worm at a time
    /// (0; seed 002's beta is 10 or 100).
    pub startup: u64,
    /// Threads evaluating the routers and processors (1); the results are
    /// the same for any count.
    pub threads: usize,
    /// On several threads, the cycles handed to the other threads:
    /// `busy` (those that hold enough work) or `always` (`busy`); the
    /// results are the same either way.
    pub hand_over: HandOver,
}

impl Default for WormholeConfig {
    fn default() -> Self {
        WormholeConfig {
            ports: "one-port".into(),
            buffer_flits: 2,
            startup: 0,
            threads: 1,
            hand_over: HandOver::Busy,
        }
    }
}

/// `[tree]`: seed 003's router.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TreeSection {
    /// Flits per input virtual channel FIFO (2).
    pub buffer_flits: usize,
    /// Data flits of every input channel's auxiliary buffer; a tree
    /// multicast with more data flits is refused (4).
    pub aux_flits: usize,
    /// Prune blocked branches (true); without pruning the tree multicast
    /// can deadlock (seed 003 Fig. 6).
    pub pruning: bool,
    /// Cycles an input may be stalled before it prunes (1).
    pub stall_limit: u32,
    /// Selective pruning (false): cut only the branches another message
    /// waits for, not every branch of the blocked message (seed 003's
    /// proposed future work).
    pub selective: bool,
    /// When a branch releases its output virtual channel: `end` (when the
    /// message ends at that input) or `turn` (also as soon as a later
    /// header leaves by another output).
    pub release: Release,
    /// Start-up latency per worm at its source, cycles, one worm at a
    /// time (0): pseudo-multicast pays it per unicast.
    pub startup: u64,
    /// Threads evaluating the routers (1); the results and waveforms are
    /// the same for any count.
    pub threads: usize,
    /// On several threads, the cycles handed to the other threads:
    /// `busy` (those that hold enough work) or `always` (`busy`); the
    /// results and waveforms are the same either way.
    pub hand_over: HandOver,
}

impl Default for TreeSection {
    fn default() -> Self {
        let d = TreeConfig::default();
        TreeSection {
            buffer_flits: d.buffer_flits,
            aux_flits: d.aux_flits,
            pruning: true,
            stall_limit: 1,
            selective: false,
            release: Release::AtEnd,
            startup: 0,
            threads: d.threads,
            hand_over: d.hand_over,
        }
    }
}

impl TreeSection {
    /// The router's configuration.
    pub fn config(&self) -> TreeConfig {
        TreeConfig {
            buffer_flits: self.buffer_flits,
            aux_flits: self.aux_flits,
            pruning: match (self.pruning, self.selective) {
                (false, _) => Pruning::Off,
                (true, false) => Pruning::On {
                    stall_limit: self.stall_limit,
                },
                (true, true) => Pruning::Selective {
                    stall_limit: self.stall_limit,
                },
            },
            startup: self.startup,
            release: self.release,
            threads: self.threads,
            hand_over: self.hand_over,
            ..TreeConfig::default()
        }
    }
}

/// A configuration resolved into what the harness takes.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The network.
    pub topology: TopoSpec,
    /// The router model, if named.
    pub router: Option<RouterModel>,
    /// The routing function, if named.
    pub routing: Option<String>,
    /// Everything else of an open- or closed-loop run.
    pub options: RunOptions,
    /// A trace to replay instead, with the most cycles to wait.
    pub trace: Option<(PathBuf, u64)>,
    /// The waveform's limits.
    pub limits: TraceLimits,
}

impl RunConfig {
    /// Parses a configuration from TOML (missing fields take their
    /// defaults; an unknown one is refused with its line).
    pub fn from_toml_str(text: &str) -> Result<RunConfig> {
        toml::from_str(text).map_err(|e| {
            // A sweep file given as one run's configuration: say which
            // command runs it.
            let sweep = toml::from_str::<toml::Table>(text).is_ok_and(|t| t.contains_key("sweep"));
            match toml_error(text, e) {
                Error::Toml {
                    line,
                    column,
                    message,
                } if sweep => Error::Toml {
                    line,
                    column,
                    message: format!(
                        "{message}; a file with a [sweep] table is run by `wormcast sweep run`"
                    ),
                },
                e => e,
            }
        })
    }

    /// Reads a configuration file. A relative topology, trace or
    /// permutation file in it is taken relative to the file's folder.
    pub fn load(path: impl AsRef<Path>) -> Result<RunConfig> {
        let path = path.as_ref();
        let mut c = crate::error::load_text(path, RunConfig::from_toml_str)?;
        c.resolve_paths(path.parent().unwrap_or(Path::new("")));
        Ok(c)
    }

    /// Takes a relative topology, trace or permutation file as relative to
    /// `dir` (the folder of the file the configuration came from).
    pub fn resolve_paths(&mut self, dir: &Path) {
        let c = self;
        let rel = |p: &Path| {
            if p.is_relative() {
                dir.join(p)
            } else {
                p.to_path_buf()
            }
        };
        if !c.network.topology.contains(':') {
            c.network.topology = rel(Path::new(&c.network.topology))
                .to_string_lossy()
                .into_owned();
        }
        if let Some(f) = c.traffic.pattern.strip_prefix("permutation:") {
            c.traffic.pattern = format!("permutation:{}", rel(Path::new(f)).display());
        }
        if let Some(t) = &c.traffic.trace {
            c.traffic.trace = Some(rel(t));
        }
    }

    /// The configuration as TOML (every field set shown; unset ones take
    /// their defaults).
    pub fn to_toml(&self) -> Result<String> {
        toml::to_string(self).map_err(|e| Error::Wave(format!("configuration to TOML: {e}")))
    }

    /// The fields set that the traffic asked for does not use, refused by
    /// name; then everything resolved for the harness.
    pub fn plan(&self) -> Result<Plan> {
        let t = &self.traffic;
        let s = &self.stats;
        let set = |v: bool, name: &'static str| v.then_some(name);
        let traffic_fields = [
            set(t.load.is_some(), "traffic.load"),
            set(t.packet.is_some(), "traffic.packet"),
            set(t.packet_alt.is_some(), "traffic.packet_alt"),
            set(t.degree.is_some(), "traffic.degree"),
            set(t.degree_max.is_some(), "traffic.degree_max"),
            set(t.closed_loop.is_some(), "traffic.closed_loop"),
            set(t.source_queue.is_some(), "traffic.source_queue"),
            set(s.warmup.is_some(), "stats.warmup"),
            set(s.batches.is_some(), "stats.batches"),
            set(s.batch_cycles.is_some(), "stats.batch_cycles"),
            set(s.stop_rule.is_some(), "stats.stop_rule"),
            set(s.stop_metric.is_some(), "stats.stop_metric"),
            set(s.drain.is_some(), "stats.drain"),
        ];
        let multicast = t.pattern == "multicast";
        if let Some(trace) = &t.trace {
            if t.pattern != "uniform" {
                return Err(Error::config(
                    "traffic.pattern",
                    &t.pattern,
                    "a trace replay sends what the trace says; give no pattern",
                ));
            }
            if let Some(f) = traffic_fields.iter().flatten().next() {
                return Err(Error::config(
                    "traffic.trace",
                    trace.display(),
                    format!(
                        "{f} does not apply to a trace replay (it sends what the trace says; \
                         stats.cycles is the most to wait)"
                    ),
                ));
            }
        } else if !multicast {
            for (v, f) in [
                (t.scheme.is_some(), "traffic.scheme"),
                (t.degree.is_some(), "traffic.degree"),
                (t.degree_max.is_some(), "traffic.degree_max"),
            ] {
                if v {
                    return Err(Error::config(
                        "traffic.pattern",
                        &t.pattern,
                        format!("{f} does not apply to unicast traffic (it is for multicast)"),
                    ));
                }
            }
        }
        if self.switch.seed != SimConfig::default().seed {
            return Err(Error::config(
                "switch.seed",
                self.switch.seed,
                "the seed of a run is traffic.seed",
            ));
        }
        self.switch.validate()?;
        let topology = TopoSpec::parse(&self.network.topology)?;
        let router = self
            .network
            .router
            .as_deref()
            .map(RouterModel::parse)
            .transpose()?;
        let cycles = s.cycles.unwrap_or(200_000);
        let warmup = s.warmup.unwrap_or(50_000);
        let limits = TraceLimits {
            from: self.output.trace_from.unwrap_or(0),
            to: self.output.trace_to,
            scopes: self.output.trace_scope.clone(),
            names: self.output.window_names.unwrap_or(WindowNames::CONFIG),
        };
        limits.check()?;
        if let Some(out) = &self.output.vcd {
            // The waveform is not written over a file the run reads.
            let file = match &topology {
                TopoSpec::File(p) => Some(p.as_path()),
                _ => None,
            };
            let perm = t.pattern.strip_prefix("permutation:").map(Path::new);
            crate::wave::check_not_input(
                "output.vcd",
                out,
                file.into_iter().chain(t.trace.as_deref()).chain(perm),
            )?;
        }
        limits.check_written(self.output.vcd.is_some())?;
        let packet_alt = t
            .packet_alt
            .as_deref()
            .map(|text| {
                let no = || Error::config("traffic.packet_alt", text, "give LEN@SHARE, e.g. 4@0.8");
                let (l, f) = text.split_once('@').ok_or_else(no)?;
                Ok::<_, Error>((
                    l.trim().parse().map_err(|_| no())?,
                    f.trim().parse().map_err(|_| no())?,
                ))
            })
            .transpose()?;
        if t.trace.is_none() && cycles == 0 {
            return Err(Error::config(
                "stats.cycles",
                0,
                "a run has at least 1 cycle past its warm-up to measure",
            ));
        }
        if t.trace.is_none() && warmup >= cycles {
            // A short run that left the warm-up at its default is told
            // which setting to give.
            let default = if s.warmup.is_none() {
                " (the default warm-up: give a shorter one, --warmup or stats.warmup)"
            } else {
                ""
            };
            return Err(Error::config(
                "stats.warmup",
                warmup,
                format!(
                    "not shorter than the run of {}{default}",
                    crate::error::counted(cycles, "cycles")
                ),
            ));
        }
        let degree = t.degree.unwrap_or(4);
        let options = RunOptions {
            pattern: if multicast {
                Pattern::Uniform
            } else {
                Pattern::parse(&t.pattern)?
            },
            multicast: multicast.then(|| (degree, t.degree_max.unwrap_or(degree))),
            load: t.load.unwrap_or(0.05),
            packet: t.packet.unwrap_or(128),
            packet_alt,
            warmup,
            cycles: cycles.saturating_sub(warmup),
            seed: t.seed.unwrap_or(1),
            batches: s.batches.unwrap_or(10),
            batch_cycles: s.batch_cycles,
            stop_rule: s.stop_rule,
            stop_metric: match &s.stop_metric {
                Some(m) => Metric::parse(m)?,
                None => Metric::Latency,
            },
            source_queue: t.source_queue.unwrap_or(64),
            scheme: t.scheme.clone(),
            per_link: self.output.per_link,
            closed_loop: t.closed_loop.unwrap_or(false),
            sim: SimConfig {
                seed: t.seed.unwrap_or(1),
                ..self.switch.clone()
            },
            ports: PortModel::parse(&self.wormhole.ports)?,
            wormhole_buffer: self.wormhole.buffer_flits,
            wormhole_startup: self.wormhole.startup,
            wormhole_threads: self.wormhole.threads,
            wormhole_hand_over: self.wormhole.hand_over,
            tree: self.tree.config(),
            drain: s.drain,
            finish: None,
        };
        Ok(Plan {
            topology,
            router,
            routing: self.network.routing.clone(),
            options,
            trace: t.trace.clone().map(|p| (p, cycles)),
            limits,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_command_lines() {
        let p = RunConfig::default().plan().unwrap();
        assert_eq!(p.topology, TopoSpec::parse("mesh:8x8").unwrap());
        assert_eq!(p.options.load, 0.05);
        assert_eq!(p.options.packet, 128);
        assert_eq!((p.options.warmup, p.options.cycles), (50_000, 150_000));
        assert_eq!(p.options.batches, 10);
        assert!(p.trace.is_none());
    }

    #[test]
    fn an_unknown_field_is_refused_with_its_line() {
        let e = RunConfig::from_toml_str(
            "[network]\ntopology = \"mesh:4x4\"\n\n[traffic]\nlaod = 0.1\n",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("line 5") && e.contains("laod"), "{e}");
        let e = RunConfig::from_toml_str("[netwrk]\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("netwrk") && e.contains("network"), "{e}");
    }

    #[test]
    fn a_window_given_over_a_file_replaces_its_keys_and_names_each_as_given() {
        let text = "[output]\nvcd = \"w.vcd\"\ntrace_from = 5\ntrace_scope = [\"top.sw1\"]\n";
        let mut c = RunConfig::from_toml_str(text).unwrap();
        c.output
            .override_window(None, Some(3), None, WindowNames::API);
        let o = &c.output;
        assert_eq!((o.trace_from, o.trace_to), (Some(5), Some(3)));
        assert_eq!(o.trace_scope, ["top.sw1"]);
        // The file's first cycle by its key, the argument by its name.
        assert_eq!(
            c.plan().unwrap_err().to_string(),
            "configuration: trace_to = 3: before output.trace_from = 5; the window is empty"
        );
        // Nothing given changes nothing.
        let mut d = RunConfig::from_toml_str(text).unwrap();
        d.output.override_window(None, None, None, WindowNames::CLI);
        let e = RunConfig::from_toml_str(text).unwrap();
        assert_eq!(
            (
                &d.output.trace_from,
                &d.output.trace_to,
                &d.output.trace_scope
            ),
            (
                &e.output.trace_from,
                &e.output.trace_to,
                &e.output.trace_scope
            )
        );
        d.output.override_window(
            Some(9),
            None,
            Some(vec!["top.sw2".into()]),
            WindowNames::CLI,
        );
        assert_eq!((d.output.trace_from, d.output.trace_to), (Some(9), None));
        assert_eq!(d.output.trace_scope, ["top.sw2"]);
    }

    #[test]
    fn a_float_in_a_refusal_stays_as_short_as_it_was_written() {
        // serde writes a float it refuses in full: 1e300 as 301 digits.
        let e = |t: &str| RunConfig::from_toml_str(t).unwrap_err().to_string();
        assert_eq!(
            e("[traffic]\npacket = 1e300\n"),
            "line 2, column 10: invalid type: floating point `1e300`, expected u32"
        );
        assert_eq!(
            e("[traffic]\npacket = -1.5e-300\n"),
            "line 2, column 10: invalid type: floating point `-1.5e-300`, expected u32"
        );
        assert_eq!(
            e("[traffic]\npacket = 2.5\n"),
            "line 2, column 10: invalid type: floating point `2.5`, expected u32"
        );
        // A key of digits is named as written, not read as a number.
        let key = "9".repeat(30);
        assert_eq!(
            e(&format!("[network]\n{key} = 1\n")),
            format!(
                "line 2, column 1: unknown field `{key}`, expected one of `topology`, `router`, \
                 `routing`"
            )
        );
    }

    #[test]
    fn a_field_the_traffic_does_not_use_is_refused() {
        let c = RunConfig::from_toml_str("[traffic]\ndegree = 3\n").unwrap();
        let e = c.plan().unwrap_err().to_string();
        assert!(
            e.contains("traffic.degree does not apply to unicast"),
            "{e}"
        );
        let c = RunConfig::from_toml_str("[traffic]\ntrace = \"t.csv\"\nload = 0.1\n").unwrap();
        let e = c.plan().unwrap_err().to_string();
        assert!(
            e.contains("traffic.load does not apply to a trace replay"),
            "{e}"
        );
        let c = RunConfig::from_toml_str("[switch]\nseed = 5\n").unwrap();
        assert!(c.plan().unwrap_err().to_string().contains("traffic.seed"));
        let c = RunConfig::from_toml_str("[output]\ntrace_from = 5\n").unwrap();
        assert_eq!(
            c.plan().unwrap_err().to_string(),
            "configuration: output.trace_from = 5: limits a waveform, and none is written (no \
             output.vcd is given)"
        );
    }

    #[test]
    fn a_configuration_survives_a_round_trip_through_toml() {
        let c = RunConfig::from_toml_str(
            "[network]\ntopology = \"torus:4x4\"\nrouter = \"tree\"\n[traffic]\npattern = \"multicast\"\ndegree = 2\ndegree_max = 5\nload = 0.02\npacket = 5\n[stats]\ncycles = 3000\nwarmup = 1000\n[wormhole]\nports = \"all-port\"\n",
        )
        .unwrap();
        let back = RunConfig::from_toml_str(&c.to_toml().unwrap()).unwrap();
        assert_eq!(c, back);
        let p = back.plan().unwrap();
        assert_eq!(p.options.multicast, Some((2, 5)));
        assert_eq!(p.options.ports, PortModel::AllPort);
    }

    #[test]
    fn each_router_models_section_says_which_cycles_are_handed_over() {
        let p = RunConfig::default().plan().unwrap().options;
        assert_eq!(
            (p.sim.hand_over, p.wormhole_hand_over, p.tree.hand_over),
            (HandOver::Busy, HandOver::Busy, HandOver::Busy)
        );
        for (section, k) in [("switch", 0), ("wormhole", 1), ("tree", 2)] {
            let c = RunConfig::from_toml_str(&format!("[{section}]\nhand_over = \"always\"\n"))
                .unwrap();
            let back = RunConfig::from_toml_str(&c.to_toml().unwrap()).unwrap();
            assert_eq!(back, c);
            let p = back.plan().unwrap().options;
            let got = [p.sim.hand_over, p.wormhole_hand_over, p.tree.hand_over];
            for (j, h) in got.into_iter().enumerate() {
                let want = if j == k {
                    HandOver::Always
                } else {
                    HandOver::Busy
                };
                assert_eq!(h, want, "[{section}]");
            }
            let e = RunConfig::from_toml_str(&format!("[{section}]\nhand_over = \"often\"\n"))
                .unwrap_err()
                .to_string();
            assert!(
                e.contains("unknown variant `often`, expected `busy` or `always`"),
                "{e}"
            );
        }
    }
}

//! `wormcast run` on the one engine: any topology spec, router model,
//! routing function and traffic pattern (src/engine).

use crate::{RunArgs, wave_sink};
use serde::Serialize;
use std::path::Path;
use std::time::Instant;
use wormcast::direct::Release;
use wormcast::engine::config::Plan;
use wormcast::engine::stats::Summary;
use wormcast::engine::{
    self, LinkLoad, LinkSummary, RouterModel, RunConfig, RunResult, TopoSpec, trace,
};
use wormcast::rtl::HandOver;
use wormcast::sim::NodeModel;
use wormcast::wave::WindowNames;
use wormcast::{Error, Result};

#[derive(Serialize)]
struct Out<'a> {
    #[serde(flatten)]
    result: &'a RunResult,
    /// The run's wall time, from its first cycle to its last (the
    /// waveform finished); building the network is `setup_seconds`.
    wall_seconds: f64,
    /// Simulated cycles over `wall_seconds`.
    cycles_per_second: f64,
    /// Building the network before the run: its routers, routing tables
    /// and interfaces.
    setup_seconds: f64,
    /// Threads the routers were evaluated on (a figure of the run, like
    /// its wall time: the results are the same for any count).
    threads: usize,
    /// The build of wormcast that ran it (`wormcast --version`): reports
    /// gathered from several machines say which model made each.
    build: &'static str,
}

/// The options of `run` that are fields of a run configuration, with the
/// field each sets (`src/engine/config.rs`).
const CONFIG_FIELDS: &[(&str, &str)] = &[
    ("topology", "network.topology"),
    ("router", "network.router"),
    ("routing", "network.routing"),
    ("traffic", "traffic.pattern"),
    ("load", "traffic.load"),
    ("packet", "traffic.packet"),
    ("packet_alt", "traffic.packet_alt"),
    ("scheme", "traffic.scheme"),
    ("degree", "traffic.degree"),
    ("degree_max", "traffic.degree_max"),
    ("closed_loop", "traffic.closed_loop"),
    ("source_queue", "traffic.source_queue"),
    ("seed", "traffic.seed"),
    ("trace", "traffic.trace"),
    ("cycles", "stats.cycles"),
    ("warmup", "stats.warmup"),
    ("batches", "stats.batches"),
    ("batch_cycles", "stats.batch_cycles"),
    ("stop_rule", "stats.stop_rule"),
    ("stop_metric", "stats.stop_metric"),
    ("drain", "stats.drain"),
    ("json", "output.json"),
    ("vcd", "output.vcd"),
    ("trace_from", "output.trace_from"),
    ("trace_to", "output.trace_to"),
    ("trace_scope", "output.trace_scope"),
    ("links", "output.per_link"),
    ("buffer", "switch.buffer_flits"),
    ("chunk", "switch.chunk_flits"),
    ("node_model", "switch.node_model"),
    ("ports", "wormhole.ports"),
    ("startup", "wormhole.startup"),
    ("no_prune", "tree.pruning"),
    ("stall_limit", "tree.stall_limit"),
    ("selective_prune", "tree.selective"),
    ("release", "tree.release"),
    ("threads", "tree.threads"),
    ("hand_over", "tree.hand_over"),
];

/// The run configuration `a` asks for: the file's (or the defaults), with
/// every option given on the command line over it. `why` says what made
/// the run the engine's (an option of seed 000's traffic alone is refused
/// naming it).
pub fn config_of(
    a: &RunArgs,
    file: Option<RunConfig>,
    given: &[String],
    why: &str,
) -> Result<RunConfig> {
    let mut c = file.unwrap_or_default();
    for g in given {
        let Some(&(_, field)) = CONFIG_FIELDS.iter().find(|(id, _)| id == g) else {
            if ["config", "quiet", "print_config"].contains(&g.as_str()) {
                continue;
            }
            let name = g.replace('_', "-");
            return Err(Error::Config {
                field: "traffic",
                value: a.traffic.clone(),
                reason: format!(
                    "--{name} is for seed 000's traffic on a topology file (single packets, \
                     worms, multicast worms); {why} runs on the engine, which does not take it \
                     (docs/engine.md)"
                ),
            });
        };
        let (t, st, out) = (&mut c.traffic, &mut c.stats, &mut c.output);
        match field {
            "network.topology" => c.network.topology = a.topology.clone().unwrap_or_default(),
            "network.router" => c.network.router = a.router.clone(),
            "network.routing" => c.network.routing = a.routing.clone(),
            "traffic.pattern" => t.pattern = a.traffic.clone(),
            "traffic.load" => t.load = Some(a.load),
            "traffic.packet" => t.packet = Some(a.packet),
            "traffic.packet_alt" => t.packet_alt = a.packet_alt.clone(),
            "traffic.scheme" => t.scheme = a.scheme.clone(),
            "traffic.degree" => t.degree = Some(a.degree),
            "traffic.degree_max" => t.degree_max = a.degree_max,
            "traffic.closed_loop" => t.closed_loop = Some(a.closed_loop),
            "traffic.source_queue" => t.source_queue = Some(a.source_queue),
            "traffic.seed" => t.seed = a.seed,
            "traffic.trace" => t.trace = a.trace.clone(),
            "stats.cycles" => st.cycles = Some(a.cycles),
            "stats.warmup" => st.warmup = Some(a.warmup),
            "stats.batches" => st.batches = Some(a.batches),
            "stats.batch_cycles" => st.batch_cycles = a.batch_cycles,
            "stats.stop_rule" => st.stop_rule = a.stop_rule,
            "stats.stop_metric" => st.stop_metric = a.stop_metric.clone(),
            "stats.drain" => st.drain = a.drain,
            "output.json" => out.json = a.json,
            "output.vcd" => out.vcd = a.vcd.clone(),
            // A refusal of the window names the option given.
            "output.trace_from" => {
                out.override_window(a.window.trace_from, None, None, WindowNames::CLI)
            }
            "output.trace_to" => {
                out.override_window(None, a.window.trace_to, None, WindowNames::CLI)
            }
            "output.trace_scope" => out.override_window(
                None,
                None,
                Some(a.window.trace_scope.clone()),
                WindowNames::CLI,
            ),
            "output.per_link" => out.per_link = a.links,
            "switch.buffer_flits" => c.switch.buffer_flits = a.buffer.unwrap_or_default(),
            "switch.chunk_flits" => c.switch.chunk_flits = a.chunk.unwrap_or_default(),
            "switch.node_model" => {
                c.switch.node_model = match a.node_model.as_deref() {
                    Some("ni") => NodeModel::Ni,
                    _ => NodeModel::Endpoint,
                }
            }
            "wormhole.ports" => c.wormhole.ports = a.ports.clone().unwrap_or_default(),
            "wormhole.startup" => {
                // The start-up applies to whichever router model runs.
                c.wormhole.startup = a.startup.unwrap_or_default();
                c.tree.startup = c.wormhole.startup;
            }
            "tree.pruning" => c.tree.pruning = !a.no_prune,
            "tree.stall_limit" => c.tree.stall_limit = a.stall_limit.unwrap_or(1),
            "tree.selective" => c.tree.selective = a.selective_prune,
            "tree.threads" => {
                // As the start-up: whichever of the two router models runs.
                c.tree.threads = a.threads.unwrap_or(1);
                c.wormhole.threads = c.tree.threads;
                c.switch.threads = c.tree.threads;
            }
            "tree.hand_over" => {
                // As the thread count: whichever router model runs.
                c.tree.hand_over = match a.hand_over.as_deref() {
                    Some("always") => HandOver::Always,
                    _ => HandOver::Busy,
                };
                c.wormhole.hand_over = c.tree.hand_over;
                c.switch.hand_over = c.tree.hand_over;
            }
            "tree.release" => {
                c.tree.release = match a.release.as_deref() {
                    Some("turn") => Release::OnTurn,
                    _ => Release::AtEnd,
                }
            }
            _ => unreachable!("every field of CONFIG_FIELDS is set here"),
        }
    }
    if matches!(c.traffic.pattern.as_str(), "single" | "worm") {
        return Err(Error::Config {
            field: "traffic",
            value: c.traffic.pattern.clone(),
            reason: "single packets and worms run on topology files with the cut-through \
                     switch; with a topology spec, --router or a run configuration, give a \
                     pattern (uniform, transpose, ...), multicast, or a --trace"
                .into(),
        });
    }
    Ok(c)
}

/// The options of one router model's hardware, and the models each is
/// for: given on the command line for a run of another model, it would
/// change nothing, so it is refused rather than ignored.
const ROUTER_OPTIONS: &[(&str, &[RouterModel])] = &[
    ("buffer", &[RouterModel::CutThrough]),
    ("chunk", &[RouterModel::CutThrough]),
    ("ports", &[RouterModel::Wormhole]),
    ("startup", &[RouterModel::Wormhole, RouterModel::Tree]),
    ("no_prune", &[RouterModel::Tree]),
    ("stall_limit", &[RouterModel::Tree]),
    ("selective_prune", &[RouterModel::Tree]),
    ("release", &[RouterModel::Tree]),
];

/// Refuses a router option given on the command line (`given`) that the
/// router model `c` runs does not have: `--no-prune` for a wormhole
/// router, `--chunk` for a tree router, `--startup` for the cut-through
/// switch. A run configuration's sections of other models are left alone
/// (a sweep over router models keeps them all); an unknown topology or
/// router is left for the run to refuse.
pub fn check_router_options(c: &RunConfig, given: &[String]) -> Result<()> {
    let Ok(topo) = TopoSpec::parse(&c.network.topology) else {
        return Ok(());
    };
    let model = match c.network.router.as_deref().map(RouterModel::parse) {
        Some(Ok(m)) => m,
        Some(Err(_)) => return Ok(()),
        None => RouterModel::for_topology(&topo)[0],
    };
    for (flag, models) in ROUTER_OPTIONS {
        if models.contains(&model) || !given.iter().any(|g| g == flag) {
            continue;
        }
        let names: Vec<&str> = models.iter().map(|m| m.name()).collect();
        return Err(Error::Config {
            field: "router",
            value: model.name().into(),
            reason: format!(
                "--{} is an option of the {} router, and this run's router is {}{}: give \
                 --router, or leave the option out",
                flag.replace('_', "-"),
                names.join(" and the "),
                model.name(),
                if c.network.router.is_none() {
                    format!(" (the default on {topo})")
                } else {
                    String::new()
                }
            ),
        });
    }
    Ok(())
}

/// What a latency line of copies says when no sample was taken.
const NONE_MEASURED: &str =
    "none measured (no copy of a message made in the measured window arrived)";

/// What the multicast lines say when no sample was taken.
const NO_MULTICAST_MEASURED: &str = "none measured (no multicast made in the measured window \
     had all its copies arrive)";

/// A latency summary as text: its mean, percentiles and largest, or
/// `none` when there was nothing to measure (never a mean of 0 for no
/// samples).
fn latency_text(s: &Summary, none: &str) -> String {
    if s.count == 0 {
        none.to_string()
    } else {
        format!(
            "mean {:.2}, p50 {}, p99 {}, max {} cycles",
            s.mean, s.p50, s.p99, s.max
        )
    }
}

/// Runs `c` through the engine harness.
pub fn run_engine(c: &RunConfig, print_config: bool) -> Result<()> {
    if print_config {
        say_part!("{}", c.to_toml()?);
        return Ok(());
    }
    let plan = c.plan()?;
    let spec = &plan.topology;
    if let Some((t, cycles)) = &plan.trace {
        return replay(c, &plan, t, *cycles);
    }
    let o = &plan.options;
    let window = &plan.limits;
    let vcd = c.output.vcd.as_deref();
    let t0 = Instant::now();
    let mut prepared = engine::prepare(spec, plan.router, plan.routing.as_deref(), o)?;
    let setup = t0.elapsed().as_secs_f64();
    // The waveform file is made once the network is built and the traffic
    // checked: a run refused before its first cycle leaves no file.
    prepared.check()?;
    crate::stop_cleanly_from_here();
    let sink = match vcd {
        Some(v) => {
            let comment = format!("wormcast run --topology {spec}, seed {}", o.seed);
            Some(window.wrap(wave_sink(v, &comment)?)?)
        }
        None => None,
    };
    let threads = prepared.threads();
    let t0 = Instant::now();
    let (r, h) = match prepared.run(sink) {
        Ok(r) => r,
        Err(e) => {
            // A run that stopped (a deadlock, most often) ended its
            // waveform there; its views go beside it, as a finished run's.
            if let (Some(v), Some(h)) = (vcd, prepared.take_stopped_hierarchy())
                && let Ok(view) = window.view(&h)
            {
                let _ = crate::views(v, &view);
            }
            return Err(e);
        }
    };
    let wall = t0.elapsed().as_secs_f64();
    // A run that ended (its stop rule met) before the waveform's window
    // began wrote no file: its report is printed, then the error.
    if let Some(e) = prepared.take_missed_window() {
        crate::defer(e);
    }
    // Tearing the network down is not the run's time either.
    drop(prepared);
    if let (Some(v), Some(h)) = (vcd, &h) {
        crate::views(v, &*window.view(h)?)?;
    }
    let cycles = r.warmup + r.measured_cycles;
    // Each router model takes its own section's count.
    let asked = o.threads_for(wormcast::engine::RouterModel::parse(r.router)?);
    if c.output.json {
        let out = Out {
            result: &r,
            wall_seconds: wall,
            cycles_per_second: cycles as f64 / wall.max(1e-9),
            setup_seconds: setup,
            threads,
            build: wormcast::BUILD,
        };
        say!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    say!(
        "{}, {} router ({} routing), traffic {}{}, {}-flit packets, seed {}",
        r.topology,
        r.router,
        r.routing,
        r.pattern,
        r.scheme.map(|s| format!(" by {s}")).unwrap_or_default(),
        r.packet,
        r.seed
    );
    say!(
        "cycles {cycles} (warm-up {}, measured {}), {} nodes",
        r.warmup,
        r.measured_cycles,
        r.nodes
    );
    if r.dests_per_message > 1.0 {
        say!(
            "offered load {:.4} flits/node/cycle injected (a multicast counted once), {:.4} to deliver; accepted throughput {:.4} flits/node/cycle delivered (each copy counted)",
            r.offered_load,
            r.offered_copies,
            r.accepted_throughput
        );
    } else {
        say!(
            "offered load {:.4}, accepted throughput {:.4} flits/node/cycle (generated, delivered)",
            r.offered_load,
            r.accepted_throughput
        );
    }
    let interval = if r.interval.half_width.is_finite() {
        format!(
            "95% interval +-{:.2} ({} batches)",
            r.interval.half_width, r.interval.batches
        )
    } else {
        format!(
            "no 95% interval ({} of the batches counted had a copy arrive; it takes 2)",
            r.interval.batches
        )
    };
    // The interval is of the stop metric's mean: it goes on that line.
    let network_metric = r.stop_metric == "network-latency";
    let on = |metric: bool| {
        if metric {
            format!("; {interval}")
        } else {
            String::new()
        }
    };
    say!(
        "latency (creation to tail): {}{}",
        latency_text(&r.latency, NONE_MEASURED),
        on(!network_metric)
    );
    if r.dests_per_message > 1.0 {
        say!(
            "multicast latency (creation to last copy): {}; {:.2} destinations per multicast",
            latency_text(&r.message_latency, NO_MULTICAST_MEASURED),
            r.dests_per_message
        );
    }
    if c.switch.node_model == NodeModel::Ni {
        say!("network latency: none, messages go host to host (hosts with network interfaces)");
    } else {
        // Every router model stamps a copy's first flit into the network;
        // no summary means no copy arrived to be measured.
        let none = Summary::default();
        say!(
            "network latency (first flit in to tail): {}{}",
            latency_text(r.network_latency.as_ref().unwrap_or(&none), NONE_MEASURED),
            on(network_metric)
        );
        if r.dests_per_message > 1.0 {
            match (&r.message_network_latency, &r.message_span) {
                (Some(m), Some(s)) if m.count > 0 => say!(
                    "multicast network latency (longest copy, start-ups excluded): mean {:.2}, max {} cycles; span (first flit in to last tail): mean {:.2}, max {} cycles",
                    m.mean,
                    m.max,
                    s.mean,
                    s.max
                ),
                _ => say!("multicast network latency: {NO_MULTICAST_MEASURED}"),
            }
        }
    }
    if !r.events.is_empty() {
        let ev: Vec<String> = r.events.iter().map(|(k, n)| format!("{k} {n}")).collect();
        say!("events after the warm-up: {}", ev.join(", "));
    }
    say!(
        "generated {} packets, delivered {}, refused {} at full sources, {} in flight at the end{}",
        r.generated,
        r.delivered,
        r.refused,
        r.in_flight,
        if r.saturated {
            format!("; saturated: {}", r.saturation().join(", "))
        } else {
            String::new()
        }
    );
    say_links(&r.links, r.per_link.as_deref());
    if let Some(met) = r.stop_rule_met {
        let met = if met {
            "met"
        } else {
            "not met within --cycles"
        };
        if r.interval.relative.is_finite() {
            say!(
                "stop rule {met}: half-width {:.2}% of the mean {}",
                100.0 * r.interval.relative,
                r.stop_metric
            );
        } else {
            // No interval (fewer than two batches had a copy arrive): no
            // half-width to quote, rather than "inf%".
            say!(
                "stop rule {met}: no interval of the mean {} to compare",
                r.stop_metric
            );
        }
    }
    say!(
        "wall time {wall:.3} s ({:.0} cycles/s), after {setup:.3} s building the network",
        cycles as f64 / wall.max(1e-9)
    );
    if asked > 1 {
        let why = if threads < asked {
            format!(" (of {asked} asked: a thread takes 64 routers or switches at least)")
        } else {
            String::new()
        };
        say!("threads {threads}{why}");
    }
    Ok(())
}

/// `run --trace`: replays a trace and prints when each message finished.
fn replay(c: &RunConfig, plan: &Plan, path: &Path, cycles: u64) -> Result<()> {
    let text = wormcast::read_text(path)?;
    let name = path.display().to_string();
    let msgs = trace::parse(&text, &name)?;
    // The network of the configuration, its trace checked, and then its
    // waveform if it asks for one (`--vcd`, limited as a run's), which a
    // fault ends where it was found.
    let mut s = wormcast::engine::Session::new(
        &plan.topology,
        plan.router,
        plan.routing.as_deref(),
        &plan.options,
    )?;
    trace::check(&s, &msgs, cycles, Some(&name))?;
    crate::stop_cleanly_from_here();
    if let Some(v) = &c.output.vcd {
        s.trace(v, plan.limits.clone(), plan.options.sim.cycle_ps())?;
    }
    let r = match trace::replay_links(&mut s, &msgs, cycles, c.output.per_link) {
        Ok(r) => r,
        Err(e) => {
            let _ = s.finish();
            return Err(e);
        }
    };
    // A replay that finished before the waveform's window began wrote no
    // file: its report is printed, then the error.
    if let Some(note) = crate::after_report(s.finish_views())?
        .and_then(|(_, v)| v)
        .and_then(|v| v.note())
    {
        eprintln!("note: {note}");
    }
    if c.output.json {
        say!("{}", serde_json::to_string_pretty(&r)?);
        return Ok(());
    }
    say!(
        "{}, {} router ({} routing): {} messages, {} copies, the last at cycle {}",
        r.topology,
        r.router,
        r.routing,
        r.messages,
        r.copies,
        r.finished
    );
    say!(
        "latency (creation to tail): {}",
        latency_text(&r.latency, NONE_MEASURED)
    );
    if let Some(n) = &r.network_latency {
        say!(
            "network latency (first flit in to tail): {}",
            latency_text(n, NONE_MEASURED)
        );
    }
    for (i, (sent, done)) in r.per_message.iter().enumerate() {
        say!("  message {i}: sent at cycle {sent}, last copy at cycle {done}");
    }
    say_links(&r.links, r.per_link.as_deref());
    Ok(())
}

/// The links' lines of a run's or a replay's report.
fn say_links(l: &LinkSummary, per_link: Option<&[LinkLoad]>) {
    if l.busiest.is_empty() {
        say!(
            "links: mean utilisation between routers {:.4}, no link carried a flit ({} links)",
            l.mean_between_routers,
            l.links
        );
    } else {
        say!(
            "links: mean utilisation between routers {:.4}, busiest {} at {:.4} flits/cycle ({} links)",
            l.mean_between_routers,
            l.busiest,
            l.max,
            l.links
        );
    }
    for l in per_link.into_iter().flatten() {
        say!("  {:>8.4}  {}", l.utilisation, l.link);
    }
}

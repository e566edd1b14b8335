//! `wormcast run` on the one engine: any topology spec, router model,
//! routing function and traffic pattern (src/engine).

use crate::{RunArgs, TrafficKind};
use serde::Serialize;
use std::path::Path;
use std::time::Instant;
use wormcast::engine::{self, Pattern, RouterModel, RunOptions, RunResult, TopoSpec, trace};
use wormcast::{Error, Result};

#[derive(Serialize)]
struct Out<'a> {
    #[serde(flatten)]
    result: &'a RunResult,
    wall_seconds: f64,
    cycles_per_second: f64,
}

/// Runs `a` through the engine harness.
pub fn run_engine(
    a: &RunArgs,
    spec: &TopoSpec,
    kind: TrafficKind,
    pattern: Option<Pattern>,
    given: &[String],
) -> Result<()> {
    // The options the engine takes, by traffic: any other given is refused.
    let uses: &[&str] = match (&a.trace, kind) {
        (Some(_), _) => &["trace", "cycles"],
        (None, TrafficKind::Uniform) => &[
            "load",
            "packet",
            "packet_alt",
            "warmup",
            "cycles",
            "stop_rule",
        ],
        (None, TrafficKind::Multicast) => &[
            "load",
            "packet",
            "packet_alt",
            "warmup",
            "cycles",
            "stop_rule",
            "degree",
            "degree_max",
        ],
        (None, _) => {
            return Err(Error::Config {
                field: "traffic",
                value: a.traffic.clone(),
                reason: "single packets and worms run on topology files with the cut-through \
                         switch; with a topology spec or --router, give a pattern (uniform, \
                         transpose, ...), multicast, or a --trace"
                    .into(),
            });
        }
    };
    let traffic_opts = [
        "load",
        "packet",
        "warmup",
        "stop_rule",
        "degree",
        "degree_max",
        "src",
        "dst",
        "worm",
        "dests",
        "path",
        "payload",
        "batches",
        "batch_cycles",
        "source_queue",
    ];
    let always = ["batches", "batch_cycles", "source_queue"];
    if let Some(g) = given.iter().find(|g| {
        traffic_opts.contains(&g.as_str())
            && !uses.contains(&g.as_str())
            && !(a.trace.is_none() && always.contains(&g.as_str()))
    }) {
        let what = if a.trace.is_some() {
            "a --trace replay".to_string()
        } else {
            format!("--traffic {} on the engine", a.traffic)
        };
        return Err(Error::Config {
            field: "traffic",
            value: a.traffic.clone(),
            reason: format!(
                "--{} does not apply to {what} (docs/engine.md)",
                g.replace('_', "-")
            ),
        });
    }
    if let Some(t) = &a.trace {
        return replay(a, spec, t);
    }
    let pattern = pattern.unwrap_or(Pattern::Uniform);
    let multicast =
        (kind == TrafficKind::Multicast).then(|| (a.degree, a.degree_max.unwrap_or(a.degree)));
    if a.warmup >= a.cycles {
        return Err(Error::Config {
            field: "warmup",
            value: a.warmup.to_string(),
            reason: format!("not shorter than the run of {} cycles", a.cycles),
        });
    }
    let sim = crate::sim_config(a)?;
    let packet_alt = a
        .packet_alt
        .as_deref()
        .map(|t| {
            let bad = || Error::Config {
                field: "packet-alt",
                value: t.into(),
                reason: "give LEN@SHARE, e.g. 4@0.8".into(),
            };
            let (l, f) = t.split_once('@').ok_or_else(bad)?;
            Ok::<_, Error>((
                l.trim().parse().map_err(|_| bad())?,
                f.trim().parse().map_err(|_| bad())?,
            ))
        })
        .transpose()?;
    let o = RunOptions {
        pattern,
        multicast,
        packet_alt,
        load: a.load,
        packet: a.packet,
        warmup: a.warmup,
        cycles: a.cycles - a.warmup,
        seed: sim.seed,
        batches: a.batches,
        batch_cycles: a.batch_cycles,
        stop_rule: a.stop_rule,
        source_queue: a.source_queue,
        sim,
        ..RunOptions::default()
    };
    let router = a.router.as_deref().map(RouterModel::parse).transpose()?;
    let sink = match &a.vcd {
        Some(v) => Some(wormcast::wave::create(
            v,
            &format!("wormcast run --topology {spec}, seed {}", o.seed),
        )?),
        None => None,
    };
    let t0 = Instant::now();
    let (r, h) = engine::run_traced(spec, router, a.routing.as_deref(), &o, sink)?;
    let wall = t0.elapsed().as_secs_f64();
    if let (Some(v), Some(h)) = (&a.vcd, &h) {
        wormcast::wave::write_views(v, h)?;
    }
    let cycles = r.warmup + r.measured_cycles;
    if a.json {
        let out = Out {
            result: &r,
            wall_seconds: wall,
            cycles_per_second: cycles as f64 / wall.max(1e-9),
        };
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    println!(
        "{}, {} router ({} routing), {} traffic, {}-flit packets, seed {}",
        r.topology, r.router, r.routing, r.pattern, r.packet, r.seed
    );
    println!(
        "cycles {cycles} (warm-up {}, measured {}), {} nodes",
        r.warmup, r.measured_cycles, r.nodes
    );
    if r.dests_per_message > 1.0 {
        println!(
            "offered load {:.4} flits/node/cycle injected (a multicast counted once), {:.4} to deliver; accepted throughput {:.4} flits/node/cycle delivered (each copy counted)",
            r.offered_load,
            r.offered_load * r.dests_per_message,
            r.accepted_throughput
        );
    } else {
        println!(
            "offered load {:.4}, accepted throughput {:.4} flits/node/cycle (generated, delivered)",
            r.offered_load, r.accepted_throughput
        );
    }
    let l = &r.latency;
    println!(
        "latency (creation to tail): mean {:.2}, p50 {}, p99 {}, max {} cycles; 95% interval +-{:.2} ({} batches)",
        l.mean, l.p50, l.p99, l.max, r.interval.half_width, r.interval.batches
    );
    if r.dests_per_message > 1.0 {
        let m = &r.message_latency;
        println!(
            "multicast latency (creation to last copy): mean {:.2}, p50 {}, p99 {}, max {} cycles; {:.2} destinations per multicast",
            m.mean, m.p50, m.p99, m.max, r.dests_per_message
        );
    }
    match &r.network_latency {
        Some(n) => println!(
            "network latency (first flit in to tail): mean {:.2}, p50 {}, p99 {}, max {} cycles",
            n.mean, n.p50, n.p99, n.max
        ),
        None => println!(
            "network latency: not recorded by the {} router model",
            r.router
        ),
    }
    println!(
        "generated {} packets, delivered {}, refused {} at full sources, {} in flight at the end{}",
        r.generated,
        r.delivered,
        r.refused,
        r.in_flight,
        if r.saturated {
            "; saturated (accepted below 95% of offered, or sources refused packets)"
        } else {
            ""
        }
    );
    if let Some(met) = r.stop_rule_met {
        println!(
            "stop rule {}: half-width {:.2}% of the mean",
            if met {
                "met"
            } else {
                "not met within --cycles"
            },
            100.0 * r.interval.relative
        );
    }
    println!(
        "wall time {wall:.3} s ({:.0} cycles/s)",
        cycles as f64 / wall.max(1e-9)
    );
    Ok(())
}

/// `run --trace`: replays a trace and prints when each message finished.
fn replay(a: &RunArgs, spec: &TopoSpec, path: &Path) -> Result<()> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let msgs = trace::parse(&text, &path.display().to_string())?;
    let o = RunOptions {
        sim: crate::sim_config(a)?,
        ..RunOptions::default()
    };
    let router = a.router.as_deref().map(RouterModel::parse).transpose()?;
    let r = trace::replay(spec, router, a.routing.as_deref(), &msgs, &o, a.cycles)?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&r)?);
        return Ok(());
    }
    println!(
        "{}, {} router ({} routing): {} messages, {} copies, the last at cycle {}",
        r.topology, r.router, r.routing, r.messages, r.copies, r.finished
    );
    let l = &r.latency;
    println!(
        "latency (creation to tail): mean {:.2}, p50 {}, p99 {}, max {} cycles",
        l.mean, l.p50, l.p99, l.max
    );
    if let Some(n) = &r.network_latency {
        println!(
            "network latency (first flit in to tail): mean {:.2}, p50 {}, p99 {}, max {} cycles",
            n.mean, n.p50, n.p99, n.max
        );
    }
    for (i, (sent, done)) in r.per_message.iter().enumerate() {
        println!("  message {i}: sent at cycle {sent}, last copy at cycle {done}");
    }
    Ok(())
}

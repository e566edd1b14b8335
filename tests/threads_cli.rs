//! Random `wormcast run` configurations on 1, 2 and 3 threads, through the
//! command line: every router model on the topology families it runs on,
//! unicast and multicast traffic, the cut-through switch with traffic
//! endpoints and with seed 000's network interfaces, drains, closed loops
//! and link counts, some runs traced to an FST. Each thread count must
//! give the same exit status, the same JSON report but for the fields
//! that time the run, and the same waveform bytes (a run on several
//! threads is cut at the registered channels and is deterministic,
//! docs/engine.md). tests/threads.rs, tests/wormhole_threads.rs and
//! tests/switch_threads.rs hold each model to it through the library; this
//! file holds the command's wiring of every option to it.
//!
//! The quick test command runs a few cases; `.ci/run` runs the ignored
//! soak of many more (`cargo test --release --test threads_cli --
//! --ignored`).

mod common;

use proptest::prelude::*;
use std::path::Path;

/// The report's fields that time the run or name the threads used.
const TIMING: [&str; 4] = [
    "wall_seconds",
    "cycles_per_second",
    "setup_seconds",
    "threads",
];

/// A run's exit status, its JSON report without [`TIMING`] (or its
/// standard error when it printed no report), the threads it ran on (0
/// without a report) and its waveform's bytes.
#[derive(Debug)]
struct Outcome {
    status: Option<i32>,
    report: String,
    threads: u64,
    wave: Option<Vec<u8>>,
}

/// Runs `wormcast run ARGS --json` on `threads` threads (handing every
/// cycle to the threads when `always`), traced to `wave` when given.
fn run(args: &[String], threads: u32, always: bool, wave: Option<&Path>) -> Outcome {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_wormcast"));
    cmd.arg("run").args(args).arg("--json");
    cmd.args(["--threads", &threads.to_string()]);
    cmd.args(["--hand-over", if always { "always" } else { "busy" }]);
    if let Some(w) = wave {
        let _ = std::fs::remove_file(w);
        cmd.arg("--vcd").arg(w);
    }
    let o = cmd.output().expect("wormcast runs");
    let (report, threads) = match serde_json::from_slice::<serde_json::Value>(&o.stdout) {
        Ok(serde_json::Value::Object(mut m)) => {
            let threads = m
                .get("threads")
                .and_then(|t| t.as_u64())
                .expect("a thread count");
            for k in TIMING {
                assert!(m.remove(k).is_some(), "the report has no `{k}`");
            }
            (serde_json::Value::Object(m).to_string(), threads)
        }
        _ => (String::from_utf8_lossy(&o.stderr).into_owned(), 0),
    };
    let wave = wave.map(|w| std::fs::read(w).expect("the waveform was written"));
    Outcome {
        status: o.status.code(),
        report,
        threads,
        wave,
    }
}

/// A run configuration every router model it names can carry: the
/// topology and router first, then traffic the pair takes.
fn config() -> impl Strategy<Value = Vec<String>> {
    // Each network has at least 192 routers or switches, so that three
    // threads run (a thread takes 64 at least, docs/engine.md).
    let net = prop_oneof![
        (
            192u32..=320,
            prop::sample::select(vec![6u32, 8]),
            1u32..=2,
            0u32..50
        )
            .prop_map(|(s, k, per, seed)| (
                format!(
                    "irregular:switches={s},ports={k},nodes={},seed={seed}",
                    s * per
                ),
                "cut-through"
            )),
        (
            14u32..=16,
            14u32..=16,
            prop::sample::select(vec!["tree", "wormhole", "cut-through"])
        )
            .prop_map(|(x, y, r)| (format!("mesh:{x}x{y}"), r)),
        (
            14u32..=16,
            14u32..=16,
            prop::sample::select(vec!["tree", "cut-through"])
        )
            .prop_map(|(x, y, r)| (format!("torus:{x}x{y}"), r)),
        prop::sample::select(vec!["wormhole", "cut-through"])
            .prop_map(|r| ("hypercube:8".to_string(), r)),
    ];
    (
        net,
        0u32..6,
        prop::sample::select(vec![0.001, 0.005, 0.02, 0.05, 0.2]),
        3u32..=12,
        prop::sample::select(vec![500u64, 1_500, 3_000]),
        1u64..1_000,
        0u32..8,
    )
        .prop_map(
            |((topo, router), traffic, load, packet, cycles, seed, extra)| {
                let mut a: Vec<String> = ["--topology", &topo, "--router", router]
                    .iter()
                    .map(|s| s.to_string())
                    .collect();
                let mut push = |xs: &[&str]| a.extend(xs.iter().map(|s| s.to_string()));
                let mut packet = packet;
                match (traffic, router) {
                    (0 | 1, _) => push(&["--traffic", "uniform"]),
                    (2, _) => push(&["--traffic", "hotspot:0@0.3"]),
                    (3, "cut-through") => push(&[
                        "--traffic",
                        "multicast",
                        "--degree",
                        "2",
                        "--scheme",
                        ["bit-string", "ssr", "multi-drop", "unicast"][seed as usize % 4],
                    ]),
                    (3, "tree") => {
                        // A tree multicast's data flits fit the auxiliary
                        // buffers (4 flits by default).
                        packet = packet.min(5);
                        push(&[
                            "--traffic",
                            "multicast",
                            "--degree",
                            "3",
                            "--scheme",
                            ["tree", "pseudo"][seed as usize % 2],
                        ])
                    }
                    (3, _) => push(&["--traffic", "multicast", "--degree", "3"]),
                    (4, "cut-through") => push(&["--traffic", "uniform", "--node-model", "ni"]),
                    _ => push(&["--traffic", "uniform", "--links"]),
                }
                let warmup = (cycles / 5).to_string();
                push(&[
                    "--load",
                    &load.to_string(),
                    "--packet",
                    &packet.to_string(),
                    "--cycles",
                    &cycles.to_string(),
                    "--warmup",
                    &warmup,
                    "--seed",
                    &seed.to_string(),
                ]);
                match extra {
                    0 if load <= 0.02 && traffic <= 1 => push(&["--drain", "20000"]),
                    1 => push(&["--closed-loop"]),
                    _ => {}
                }
                a
            },
        )
}

/// Runs `args` on one thread, then on two (light cycles kept on the
/// calling thread, then every cycle handed over) and three, traced when
/// `traced`; all must agree, and the one-thread run must have run (exit 0,
/// or 1 for a run that found something, such as a drain that timed out).
fn alike(args: &[String], traced: bool, dir: &Path) -> std::result::Result<(), TestCaseError> {
    let wave = |t: &str| traced.then(|| dir.join(format!("run{t}.fst")));
    let one = run(args, 1, false, wave("1").as_deref());
    prop_assert!(
        matches!(one.status, Some(0 | 1)),
        "`wormcast run {}` failed: {}",
        args.join(" "),
        one.report
    );
    prop_assert!(
        one.status != Some(0) || (one.report.starts_with('{') && one.threads == 1),
        "`wormcast run {}` printed no JSON report",
        args.join(" ")
    );
    prop_assert!(
        one.wave.as_ref().is_none_or(|w| w.len() > 100),
        "an empty waveform"
    );
    for (threads, always) in [(2, false), (2, true), (3, true)] {
        let got = run(
            args,
            threads,
            always,
            wave(&format!("{threads}{always}")).as_deref(),
        );
        prop_assert_eq!(
            got.status,
            one.status,
            "{} threads: `{}`",
            threads,
            args.join(" ")
        );
        if one.status == Some(0) {
            prop_assert_eq!(
                got.threads,
                u64::from(threads),
                "threads that ran: `{}`",
                args.join(" ")
            );
        }
        prop_assert_eq!(
            &got.report,
            &one.report,
            "{} threads: `{}`",
            threads,
            args.join(" ")
        );
        prop_assert!(
            got.wave == one.wave,
            "{threads} threads (every cycle handed over: {always}): the waveform differs: `{}`",
            args.join(" ")
        );
    }
    Ok(())
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!(
        "wormcast-threads-cli-{name}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6))]

    /// A few random configurations, in the quick test command.
    #[test]
    fn any_run_reports_alike_on_any_thread_count(
        args in config(),
        traced in prop::bool::weighted(0.3),
    ) {
        let _one = common::one_at_a_time();
        let dir = temp_dir("quick");
        alike(&args, traced, &dir)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Many more, run by `.ci/run`.
    #[test]
    #[ignore = "96 configurations of four runs each; .ci/run runs it with --ignored"]
    fn any_run_reports_alike_on_any_thread_count_soak(
        args in config(),
        traced in prop::bool::weighted(0.3),
    ) {
        let _one = common::one_at_a_time();
        let dir = temp_dir("soak");
        alike(&args, traced, &dir)?;
    }
}

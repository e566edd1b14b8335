//! The tree router's routers evaluated on several threads: the same
//! deliveries, prunes, counters, link loads and waveform bytes as on one
//! thread, cycle for cycle, whatever the thread count; bad counts refused.
//! The `run` command's thread count, for the tree and the wormhole router
//! and the cut-through switch (tests/wormhole_threads.rs and
//! tests/switch_threads.rs have the wormhole and cut-through systems' own).
//! The one engine's harness on the tree and wormhole routers, whose steps
//! on several threads return while the other ranges still run the cycle.

mod common;

use wormcast::Error;
use wormcast::direct::{
    Grid, MAX_THREADS, Pruning, Release, Scheme, TreeConfig, TreeNet, TreeTraffic,
};
use wormcast::rtl::HandOver;
use wormcast::wave::VcdWriter;

/// The thread counts the runs are compared on, each with the cycles it
/// hands to the other threads: every cycle, so that the threads run even
/// when the traffic is light, and on two threads also only the busy ones
/// (the default, which runs light cycles on the calling thread).
const COUNTS: [(usize, HandOver); 4] = [
    (2, HandOver::Busy),
    (2, HandOver::Always),
    (3, HandOver::Always),
    (8, HandOver::Always),
];

/// Everything a run reports, and its VCD.
#[derive(Debug, PartialEq)]
struct Outcome {
    deliveries: String,
    prunes: String,
    stats: String,
    links: Vec<(String, u64)>,
    vcd: Vec<u8>,
}

fn run(grid: Grid, cfg: TreeConfig, traffic: TreeTraffic, cycles: u64) -> Outcome {
    run_as(grid, cfg, traffic, cycles, true)
}

/// A run, traced to a VCD or not (the writes that cross between threads
/// are then left for the next cycle's threads to apply).
fn run_as(grid: Grid, cfg: TreeConfig, traffic: TreeTraffic, cycles: u64, traced: bool) -> Outcome {
    let mut net = TreeNet::new(grid, cfg).unwrap();
    let vcd = common::Shared::default();
    if traced {
        net.attach_tracer(Box::new(VcdWriter::new(vcd.clone())), 1000)
            .unwrap();
    }
    net.set_traffic(traffic).unwrap();
    net.run(cycles).unwrap();
    if traced {
        net.finish_trace().unwrap();
    }
    Outcome {
        deliveries: format!("{:?}", net.deliveries()),
        prunes: format!("{:?}", net.prunes()),
        stats: format!("{:?}", net.stats()),
        links: net.link_flits(),
        vcd: vcd.bytes(),
    }
}

fn cases() -> Vec<(&'static str, Grid, TreeConfig, TreeTraffic)> {
    let cfg = TreeConfig {
        keep_deliveries: true,
        keep_prunes: true,
        seed: 3,
        ..TreeConfig::default()
    };
    let tree = TreeTraffic {
        rate: 0.004,
        min_dests: 1,
        max_dests: 12,
        data: 4,
        scheme: Scheme::Tree,
        queue_cap: 4,
    };
    vec![
        // 256 routers: four set words, two per thread at 2 threads.
        (
            "mesh 16x16, tree, pruning",
            Grid::mesh(16, 16, 1).unwrap(),
            cfg.clone(),
            tree,
        ),
        (
            "mesh 16x16, selective pruning, release on turn",
            Grid::mesh(16, 16, 1).unwrap(),
            TreeConfig {
                pruning: Pruning::Selective { stall_limit: 2 },
                release: Release::OnTurn,
                ..cfg.clone()
            },
            tree,
        ),
        // 147 routers: three words, cut unevenly.
        (
            "torus 7x7x3, pseudo-multicast",
            Grid::torus(7, 7, 3).unwrap(),
            cfg.clone(),
            TreeTraffic {
                rate: 0.01,
                scheme: Scheme::Pseudo,
                ..tree
            },
        ),
    ]
}

#[test]
fn any_thread_count_gives_the_same_run_and_waveform() {
    let _one = common::one_at_a_time();
    for (name, grid, cfg, traffic) in cases() {
        let one = run(grid, cfg.clone(), traffic, 1_500);
        assert!(one.vcd.len() > 100_000, "{name}: {} bytes", one.vcd.len());
        assert!(one.deliveries.len() > 1_000, "{name}: too few deliveries");
        for (threads, hand_over) in COUNTS {
            let many = run(
                grid,
                TreeConfig {
                    threads,
                    hand_over,
                    ..cfg.clone()
                },
                traffic,
                1_500,
            );
            assert!(
                one == many,
                "{name}: {threads} threads ({hand_over:?}) differ from one"
            );
        }
    }
}

#[test]
fn any_thread_count_gives_the_same_untraced_run() {
    let _one = common::one_at_a_time();
    for (name, grid, cfg, traffic) in cases() {
        let one = run_as(grid, cfg.clone(), traffic, 4_000, false);
        assert!(one.deliveries.len() > 1_000, "{name}: too few deliveries");
        assert!(one.vcd.is_empty());
        for (threads, hand_over) in COUNTS {
            let cfg = TreeConfig {
                threads,
                hand_over,
                ..cfg.clone()
            };
            let many = run_as(grid, cfg, traffic, 4_000, false);
            assert!(
                one == many,
                "{name}: {threads} threads ({hand_over:?}) differ from one"
            );
        }
    }
}

#[test]
fn pruning_happens_in_the_compared_runs() {
    let _one = common::one_at_a_time();
    // The comparison above covers the pruning paths only if they run.
    let (_, grid, cfg, traffic) = cases().remove(0);
    let o = run(grid, TreeConfig { threads: 2, ..cfg }, traffic, 1_500);
    assert_ne!(o.prunes, "[]", "no prune in 1,500 cycles");
}

#[test]
fn a_deadlock_is_reported_alike_on_any_thread_count() {
    let _one = common::one_at_a_time();
    // Without pruning, tree multicasts deadlock (seed 003 Fig. 6); the
    // watchdog's report walks every router's registers, so it checks the
    // state the threads left, not only the results.
    let grid = Grid::mesh(16, 16, 1).unwrap();
    let deadlock = |threads, hand_over| {
        let mut net = TreeNet::new(
            grid,
            TreeConfig {
                threads,
                hand_over,
                pruning: Pruning::Off,
                watchdog: 300,
                ..TreeConfig::default()
            },
        )
        .unwrap();
        net.set_traffic(TreeTraffic {
            rate: 0.02,
            min_dests: 4,
            max_dests: 12,
            data: 4,
            scheme: Scheme::Tree,
            queue_cap: 4,
        })
        .unwrap();
        let e = net.run(20_000).map(|_| net.cycle()).unwrap_err();
        assert!(matches!(e, Error::TreeDeadlock(_)), "{e}");
        e.to_string()
    };
    let one = deadlock(1, HandOver::Busy);
    for (threads, hand_over) in COUNTS {
        assert_eq!(deadlock(threads, hand_over), one);
    }
}

#[test]
fn bad_thread_counts_are_refused_by_name() {
    let _one = common::one_at_a_time();
    for threads in [0, MAX_THREADS + 1] {
        let e = TreeNet::new(
            Grid::mesh(4, 4, 1).unwrap(),
            TreeConfig {
                threads,
                ..TreeConfig::default()
            },
        )
        .err()
        .expect("refused");
        match e {
            Error::Config { field, value, .. } => {
                assert_eq!((field, value), ("threads", threads.to_string()));
            }
            e => panic!("{e}"),
        }
    }
}

fn wormcast(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_wormcast"))
        .args(args)
        .output()
        .unwrap()
}

/// `wormcast run` with uniform 6-flit traffic at 0.05 and `args`.
fn uniform(args: &[&str]) -> std::process::Output {
    let mut all = vec![
        "run",
        "--traffic",
        "uniform",
        "--load",
        "0.05",
        "--packet",
        "6",
    ];
    all.extend_from_slice(args);
    wormcast(&all)
}

/// The lines of a successful [`uniform`] run's report that `keep` keeps.
fn report_lines(args: &[&str], keep: impl Fn(&str) -> bool) -> Vec<String> {
    let o = uniform(args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout).unwrap();
    text.lines()
        .filter(|l| keep(l))
        .map(str::to_string)
        .collect()
}

/// `wormcast run` gives the same report on any thread count, word for
/// word but the line naming the threads and the wall time: the harness
/// steps the network leaving the writes that cross between threads to
/// the next cycle, and settles them before it reads the results and
/// before the drain (which it runs the same way) ends.
#[test]
fn the_run_command_reports_the_same_run_on_any_thread_count() {
    let _one = common::one_at_a_time();
    let report = |threads: &str| {
        report_lines(
            &[
                "--topology",
                "mesh:16x16",
                "--cycles",
                "2000",
                "--warmup",
                "300",
                "--drain",
                "2000",
                "--threads",
                threads,
            ],
            |l| !l.starts_with("threads") && !l.starts_with("wall time"),
        )
    };
    let one = report("1");
    // The drain ran: the sources' last messages all arrived.
    assert!(
        one.iter().any(|l| l.ends_with(", 0 in flight at the end")),
        "{one:?}"
    );
    for threads in ["2", "3"] {
        assert_eq!(report(threads), one, "{threads} threads");
    }
}

/// The text report says how many threads ran when more than one was
/// asked for, and why fewer did.
#[test]
fn the_text_report_names_the_threads_used() {
    let _one = common::one_at_a_time();
    let run_on = |router: &str, topo: &str, threads: &str| {
        report_lines(
            &[
                "--topology",
                topo,
                "--router",
                router,
                "--cycles",
                "500",
                "--warmup",
                "0",
                "--threads",
                threads,
            ],
            |l| l.starts_with("threads"),
        )
    };
    for router in ["tree", "wormhole", "cut-through"] {
        let run = |topo: &str, threads: &str| run_on(router, topo, threads);
        assert_eq!(run("mesh:16x16", "1"), Vec::<String>::new());
        assert_eq!(run("mesh:16x16", "2"), ["threads 2"]);
        assert_eq!(
            run("mesh:8x8", "3"),
            ["threads 1 (of 3 asked: a thread takes 64 routers or switches at least)"]
        );
    }
}

/// Each router model takes `--threads`: the tree and wormhole routers and
/// the cut-through switch (with traffic endpoints and with network
/// interfaces) give the one-thread run on two threads, with every cycle
/// handed to the other thread (`--hand-over always`) as with only the busy
/// ones, and on more than their ranges allow.
#[test]
fn the_run_command_takes_a_thread_count_for_every_router_model() {
    let _one = common::one_at_a_time();
    let run_as = |topology: &str, router: &str, threads: &str, hand_over: &str| {
        uniform(&[
            "--topology",
            topology,
            "--router",
            router,
            "--cycles",
            "3000",
            "--warmup",
            "300",
            "--json",
            "--threads",
            threads,
            "--hand-over",
            hand_over,
        ])
    };
    let run =
        |topology: &str, router: &str, threads: &str| run_as(topology, router, threads, "busy");
    // The report without its two wall-clock figures and the threads used.
    let report = |o: &std::process::Output, threads: u64| {
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let mut v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let m = v.as_object_mut().unwrap();
        assert!(m.remove("wall_seconds").is_some());
        assert!(m.remove("cycles_per_second").is_some());
        assert!(m.remove("setup_seconds").is_some());
        assert_eq!(m.remove("threads"), Some(threads.into()));
        v
    };
    for router in ["tree", "wormhole", "cut-through"] {
        let one = report(&run("mesh:16x16", router, "1"), 1);
        assert!(one["latency"]["count"].as_u64().unwrap() > 1_000, "{one}");
        assert_eq!(report(&run("mesh:16x16", router, "2"), 2), one, "{router}");
        assert_eq!(
            report(&run_as("mesh:16x16", router, "2", "always"), 2),
            one,
            "{router}"
        );
        // 256 routers make four ranges of 64 at most.
        assert_eq!(report(&run("mesh:16x16", router, "9"), 4), one, "{router}");
    }
    // Hosts with network interfaces, multicasting by NI-forwarded trees
    // and by worms; 130 switches make two ranges of 64 or more.
    for scheme in ["tree", "path-lg"] {
        let ni = |threads: &str, hand_over: &str| {
            wormcast(&[
                "run",
                "--topology",
                "irregular:switches=130,ports=8,nodes=520",
                "--node-model",
                "ni",
                "--traffic",
                "multicast",
                "--degree",
                "8",
                "--scheme",
                scheme,
                "--load",
                "0.002",
                "--cycles",
                "20000",
                "--warmup",
                "2000",
                "--json",
                "--threads",
                threads,
                "--hand-over",
                hand_over,
            ])
        };
        let one = report(&ni("1", "busy"), 1);
        assert!(one["latency"]["count"].as_u64().unwrap() > 100, "{one}");
        assert_eq!(report(&ni("2", "busy"), 2), one, "{scheme}");
        assert_eq!(report(&ni("2", "always"), 2), one, "{scheme}");
    }
    // A traced network of cut-through switches or wormhole routers writes
    // the same waveform on two threads as on one.
    let dir = std::env::temp_dir().join(format!("wormcast-threads-vcd-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for router in ["cut-through", "wormhole"] {
        let traced = |threads: &str| {
            let vcd = dir.join(format!("{router}-{threads}.vcd"));
            let o = uniform(&[
                "--topology",
                "mesh:16x16",
                "--router",
                router,
                "--cycles",
                "300",
                "--warmup",
                "0",
                "--threads",
                threads,
                "--vcd",
                vcd.to_str().unwrap(),
            ]);
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            std::fs::read(&vcd).unwrap()
        };
        let one = traced("1");
        assert!(one.len() > 1_000_000, "{router}: {}", one.len());
        assert!(
            traced("2") == one,
            "{router}: two threads wrote another waveform"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
    for (topology, router, threads, why) in [
        (
            "irregular:switches=16,ports=8,nodes=64",
            "cut-through",
            "0",
            "threads = 0: 1 to 256 threads",
        ),
        ("mesh:16x16", "tree", "0", "threads = 0: 1 to 256 threads"),
        (
            "mesh:16x16",
            "wormhole",
            "0",
            "threads = 0: 1 to 256 threads",
        ),
    ] {
        let o = run(topology, router, threads);
        assert_eq!(o.status.code(), Some(2));
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(e.contains(why), "{e}");
    }
    let o = run_as("mesh:16x16", "tree", "2", "sometimes");
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("invalid value 'sometimes' for '--hand-over"),
        "{e}"
    );
}

mod random {
    //! Random networks, traffic and router options, and runs cut into
    //! pieces at random: the crossing writes a piece leaves for the next
    //! cycle are settled at its end, so the pieces give the one-thread run.

    use super::*;
    use proptest::prelude::*;

    fn outcome(net: &TreeNet) -> Outcome {
        Outcome {
            deliveries: format!("{:?}", net.deliveries()),
            prunes: format!("{:?}", net.prunes()),
            stats: format!("{:?}", net.stats()),
            links: net.link_flits(),
            vcd: Vec::new(),
        }
    }

    /// `pieces` of `run`, each followed by one `step` when `step_between`.
    fn pieces(
        grid: Grid,
        cfg: TreeConfig,
        traffic: TreeTraffic,
        pieces: &[u64],
        step_between: bool,
    ) -> Outcome {
        let mut net = TreeNet::new(grid, cfg).unwrap();
        net.set_traffic(traffic).unwrap();
        for &n in pieces {
            net.run(n).unwrap();
            if step_between {
                net.step().unwrap();
            }
        }
        outcome(&net)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]

        #[test]
        fn cut_runs_on_any_thread_count_give_the_one_thread_run(
            torus in any::<bool>(),
            seed in 0u64..1_000,
            rate in 0.002f64..0.02,
            max_dests in 1u32..16,
            data in 1u16..=4,
            pseudo in any::<bool>(),
            prune in 0u8..3,
            turn in any::<bool>(),
            threads in 2usize..=4,
            always in any::<bool>(),
            cut in proptest::collection::vec(1u64..400, 1..5),
            step_between in any::<bool>(),
        ) {
            let _one = common::one_at_a_time();
            // 256 routers: four words of the live set, up to 4 ranges.
            let grid = if torus {
                Grid::torus(8, 8, 4).unwrap()
            } else {
                Grid::mesh(16, 16, 1).unwrap()
            };
            let cfg = TreeConfig {
                seed,
                keep_deliveries: true,
                keep_prunes: true,
                pruning: match prune {
                    0 => Pruning::On { stall_limit: 1 },
                    1 => Pruning::On { stall_limit: 3 },
                    _ => Pruning::Selective { stall_limit: 2 },
                },
                release: if turn { Release::OnTurn } else { Release::AtEnd },
                ..TreeConfig::default()
            };
            let traffic = TreeTraffic {
                rate,
                min_dests: 1,
                max_dests,
                data,
                scheme: if pseudo { Scheme::Pseudo } else { Scheme::Tree },
                queue_cap: 4,
            };
            // The cut pieces, then 400 cycles more so that copies are
            // delivered whatever pieces were drawn (a 1-cycle run delivers
            // none, and the comparison would say nothing).
            let mut cut = cut;
            cut.push(400);
            let total: u64 = cut.iter().sum::<u64>() + if step_between { cut.len() as u64 } else { 0 };
            let one = pieces(grid, cfg.clone(), traffic, &[total], false);
            let hand_over = if always { HandOver::Always } else { HandOver::Busy };
            let many = pieces(grid, TreeConfig { threads, hand_over, ..cfg }, traffic, &cut, step_between);
            prop_assert!(one.deliveries.len() > 2, "no copy delivered");
            prop_assert_eq!(one, many);
        }
    }
}

/// Runs of the one engine's harness, compared across thread counts.
mod engine_runs {
    use proptest::prelude::*;
    use wormcast::engine::{self, Pattern, RouterModel, RunOptions, TopoSpec};
    use wormcast::rtl::HandOver;

    /// The run of `o` on `router` over `topo`: its result as JSON, or its
    /// error's text.
    pub fn run(router: RouterModel, topo: &str, routing: Option<&str>, o: &RunOptions) -> String {
        let spec = TopoSpec::parse(topo).unwrap();
        match engine::run(&spec, Some(router), routing, o) {
            Ok(r) => serde_json::to_string(&r).unwrap(),
            Err(e) => format!("error: {e}"),
        }
    }

    /// `o` on 1, 2 and 3 threads of the tree or wormhole router (every
    /// cycle handed to the other threads, and on two threads also only
    /// the busy ones): the same result; returns it.
    pub fn alike(router: RouterModel, topo: &str, routing: Option<&str>, o: &RunOptions) -> String {
        let one = run(router, topo, routing, o);
        for (threads, hand_over) in crate::COUNTS.into_iter().take(3) {
            let o = on_threads(router, o, threads, hand_over);
            assert_eq!(
                run(router, topo, routing, &o),
                one,
                "{topo}, {threads} threads ({hand_over:?})"
            );
        }
        one
    }

    /// `o` with the tree or wormhole router on `threads` threads, handing
    /// them the cycles `hand_over` says.
    fn on_threads(
        router: RouterModel,
        o: &RunOptions,
        threads: usize,
        hand_over: HandOver,
    ) -> RunOptions {
        let mut o = o.clone();
        match router {
            RouterModel::Tree => (o.tree.threads, o.tree.hand_over) = (threads, hand_over),
            _ => (o.wormhole_threads, o.wormhole_hand_over) = (threads, hand_over),
        }
        o
    }

    /// `o` on one thread is a run that delivered, and on `threads` the
    /// same run.
    pub fn same_on(
        router: RouterModel,
        topo: &str,
        o: &RunOptions,
        threads: usize,
        always: bool,
    ) -> Result<(), TestCaseError> {
        let hand_over = if always {
            HandOver::Always
        } else {
            HandOver::Busy
        };
        let one = run(router, topo, None, o);
        // A run, not a refusal, and it delivered.
        prop_assert!(
            one.contains("\"delivered\":") && !one.contains("\"delivered\":0,"),
            "{}",
            one
        );
        prop_assert_eq!(
            run(
                router,
                topo,
                None,
                &on_threads(router, o, threads, hand_over)
            ),
            one
        );
        Ok(())
    }

    /// Uniform traffic of 12-flit packets at `load`, 300 cycles of
    /// warm-up, 2,000 in all.
    pub fn base(load: f64) -> RunOptions {
        RunOptions {
            pattern: Pattern::Uniform,
            load,
            packet: 12,
            warmup: 300,
            cycles: 2_000,
            ..RunOptions::default()
        }
    }
}

mod harness {
    //! The one engine's harness drives the tree router with batched steps,
    //! which on several threads return while the other ranges still run
    //! the cycle: the run (or its fault) is the one-thread run's, whatever
    //! the traffic and whatever the harness reads between steps.

    use super::*;
    use crate::engine_runs::base;
    use proptest::prelude::*;
    use wormcast::engine::{RouterModel, RunOptions};

    fn alike(topo: &str, o: &RunOptions) -> String {
        crate::engine_runs::alike(RouterModel::Tree, topo, None, o)
    }

    #[test]
    fn unicast_multicast_and_light_traffic_run_alike() {
        let _one = common::one_at_a_time();
        // Unicast at a moderate load, with a drain at the end.
        let one = alike(
            "mesh:16x16",
            &RunOptions {
                drain: Some(5_000),
                ..base(0.05)
            },
        );
        assert!(one.contains("\"in_flight\":0"), "{one}");
        // Tree multicasts, which prune and route, and pseudo-multicast.
        for scheme in ["tree", "pseudo"] {
            let one = alike(
                "torus:8x8x4",
                &RunOptions {
                    multicast: Some((2, 9)),
                    scheme: Some(scheme.into()),
                    // A header and four data flits: what the auxiliary
                    // buffers hold.
                    packet: 5,
                    ..base(0.02)
                },
            );
            assert!(!one.starts_with("error"), "{one}");
        }
        // So light that most cycles are skipped; and a closed loop, which
        // takes the arrivals after every step.
        alike("mesh:16x16", &base(0.0005));
        alike(
            "mesh:16x16",
            &RunOptions {
                closed_loop: true,
                ..base(0.05)
            },
        );
    }

    #[test]
    fn a_deadlock_is_found_at_the_same_cycle_with_the_same_report() {
        let _one = common::one_at_a_time();
        // Without pruning, tree multicasts deadlock (seed 003 Fig. 6).
        let mut o = RunOptions {
            multicast: Some((4, 12)),
            scheme: Some("tree".into()),
            packet: 5,
            cycles: 20_000,
            ..base(0.1)
        };
        o.tree.pruning = Pruning::Off;
        o.tree.watchdog = 300;
        let one = alike("mesh:16x16", &o);
        assert!(
            one.starts_with("error: ") && one.contains("deadlock"),
            "{one}"
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(12))]

        #[test]
        fn random_runs_give_the_one_thread_run(
            torus in any::<bool>(),
            seed in 0u64..1_000,
            load in 0.001f64..0.08,
            multicast in any::<bool>(),
            warmup in 0u64..700,
            cycles in 200u64..2_500,
            threads in 2usize..=4,
            always in any::<bool>(),
        ) {
            let topo = if torus { "torus:8x8x4" } else { "mesh:16x16" };
            let o = RunOptions {
                seed,
                warmup,
                cycles: warmup + cycles,
                multicast: multicast.then_some((1, 6)),
                packet: if multicast { 5 } else { 12 },
                ..base(load)
            };
            crate::engine_runs::same_on(RouterModel::Tree, topo, &o, threads, always)?;
        }
    }
}

mod wormhole_harness {
    //! The one engine's harness drives the wormhole router with batched
    //! steps too, which on several threads return while the other ranges
    //! still run the cycle: the run (or its fault) is the one-thread run's,
    //! whatever the traffic and whatever the harness reads between steps.

    use super::*;
    use crate::engine_runs::base;
    use proptest::prelude::*;
    use wormcast::engine::{RouterModel, RunOptions};

    fn alike(topo: &str, routing: Option<&str>, o: &RunOptions) -> String {
        crate::engine_runs::alike(RouterModel::Wormhole, topo, routing, o)
    }

    #[test]
    fn unicast_multicast_and_light_traffic_run_alike() {
        let _one = common::one_at_a_time();
        // Unicast at a moderate load, with a drain at the end.
        let one = alike(
            "mesh:16x16",
            None,
            &RunOptions {
                drain: Some(5_000),
                ..base(0.02)
            },
        );
        assert!(one.contains("\"in_flight\":0"), "{one}");
        // Path-based worms on a hypercube, and one worm per destination.
        for scheme in ["path", "unicast"] {
            let one = alike(
                "hypercube:7",
                None,
                &RunOptions {
                    multicast: Some((2, 9)),
                    scheme: Some(scheme.into()),
                    ..base(0.03)
                },
            );
            assert!(one.contains("\"delivered\":"), "{one}");
        }
        // Seed 002's Two-Phase worms, several to a multicast.
        let one = alike(
            "mesh:16x8",
            Some("hamiltonian"),
            &RunOptions {
                multicast: Some((3, 12)),
                scheme: Some("tp".into()),
                ..base(0.01)
            },
        );
        assert!(one.contains("\"delivered\":"), "{one}");
        // So light that most cycles are skipped; a start-up that sources
        // wait out; and a closed loop, which takes the arrivals after
        // every step.
        alike("mesh:16x16", None, &base(0.0005));
        alike(
            "mesh:16x16",
            None,
            &RunOptions {
                wormhole_startup: 40,
                ..base(0.01)
            },
        );
        alike(
            "mesh:16x16",
            None,
            &RunOptions {
                closed_loop: true,
                ..base(0.02)
            },
        );
    }

    /// Seed 001's unrestricted minimal routing lets worms wait in a cycle:
    /// past saturation the run stops at the same cycle with the same
    /// report on any thread count.
    #[test]
    fn a_deadlock_is_found_at_the_same_cycle_with_the_same_report() {
        let _one = common::one_at_a_time();
        let o = RunOptions {
            multicast: Some((2, 20)),
            scheme: Some("path".into()),
            packet: 20,
            cycles: 20_000,
            ..base(0.3)
        };
        let one = alike("hypercube:7", Some("minimal"), &o);
        assert!(
            one.starts_with("error: ") && one.contains("deadlock"),
            "{one}"
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(12))]

        #[test]
        fn random_runs_give_the_one_thread_run(
            cube in any::<bool>(),
            seed in 0u64..1_000,
            load in 0.001f64..0.03,
            multicast in any::<bool>(),
            warmup in 0u64..700,
            cycles in 200u64..2_500,
            threads in 2usize..=4,
            always in any::<bool>(),
        ) {
            let topo = if cube { "hypercube:8" } else { "mesh:16x16" };
            let o = RunOptions {
                seed,
                warmup,
                cycles: warmup + cycles,
                multicast: (multicast && cube).then_some((1, 6)),
                scheme: (multicast && cube).then(|| "path".into()),
                ..base(load)
            };
            crate::engine_runs::same_on(RouterModel::Wormhole, topo, &o, threads, always)?;
        }
    }
}

/// `RunOptions::with_threads` sets the count of whichever router model
/// runs (each model's section of a configuration file has its own), and
/// `with_hand_over` its hand-over: each model then runs on two threads and
/// reports what it reports on one, word for word.
#[test]
fn run_options_with_threads_set_every_router_models_count() {
    use wormcast::engine::{self, RouterModel, RunOptions, TopoSpec};
    let cases = [
        ("irregular:switches=128,ports=8,nodes=256", None, 0.02),
        ("mesh:16x16", Some(RouterModel::Tree), 0.05),
        ("mesh:16x16", Some(RouterModel::Wormhole), 0.03),
        ("mesh:16x16", Some(RouterModel::CutThrough), 0.05),
    ];
    for (topo, router, load) in cases {
        let spec = TopoSpec::parse(topo).unwrap();
        let report = |threads: usize| {
            let o = RunOptions {
                load,
                warmup: 0,
                cycles: 400,
                ..RunOptions::default()
            }
            .with_threads(threads)
            .with_hand_over(HandOver::Always);
            let mut p = engine::prepare(&spec, router, None, &o).unwrap();
            let used = p.threads();
            let (r, _) = p.run(None).unwrap();
            (used, serde_json::to_string(&r).unwrap())
        };
        let (one, r1) = report(1);
        let (two, r2) = report(2);
        assert_eq!((one, two), (1, 2), "{topo} {router:?}");
        assert!(r1.contains("\"delivered\""), "{r1}");
        assert_eq!(r1, r2, "{topo} {router:?}");
    }
    // Which cycles are handed over shows in no report: the fields.
    let o = RunOptions::default().with_hand_over(HandOver::Always);
    assert_eq!(
        (o.sim.hand_over, o.wormhole_hand_over, o.tree.hand_over),
        (HandOver::Always, HandOver::Always, HandOver::Always)
    );
}

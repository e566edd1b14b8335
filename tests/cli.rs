//! The command-line tool, end to end.

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};

fn wormcast<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wormcast"))
        .args(args)
        .output()
        .unwrap()
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("wormcast-cli-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone()).unwrap()
}

#[test]
fn topo_gen_then_show_then_run() {
    let net = tmp("net.toml");
    let p = net.to_str().unwrap();
    ok(&wormcast(&[
        "topo",
        "gen",
        "--switches",
        "8",
        "--ports",
        "8",
        "--nodes",
        "32",
        "--connectivity",
        "0.8",
        "--seed",
        "1",
        "-o",
        p,
    ]));
    let text = std::fs::read_to_string(&net).unwrap();
    assert!(
        text.starts_with("# wormcast topo gen --switches 8"),
        "{text}"
    );
    assert_eq!(text.matches("[[node]]").count(), 32);

    let show: serde_json::Value =
        serde_json::from_str(&ok(&wormcast(&["topo", "show", p, "--json"]))).unwrap();
    assert_eq!(show["switches"], 8);
    assert_eq!(show["nodes"], 32);
    assert_eq!(show["links"], 12);
    assert_eq!(show["switch"][0]["level"], 0);
    assert!(show["routing"]["avg_ud_hops"].as_f64().unwrap() >= 1.0);
    let human = ok(&wormcast(&["topo", "show", p]));
    assert!(
        human.starts_with("8 switches, 32 nodes, 12 links; spanning tree rooted at switch 0"),
        "{human}"
    );

    let run = ok(&wormcast(&[
        "run",
        "--topology",
        p,
        "--traffic",
        "uniform",
        "--load",
        "0.05",
        "--packet",
        "128",
        "--cycles",
        "20000",
        "--warmup",
        "5000",
        "--seed",
        "1",
        "--json",
    ]));
    let r: serde_json::Value = serde_json::from_str(&run).unwrap();
    assert_eq!(r["cycles"], 20_000);
    assert_eq!(r["warmup"], 5_000);
    assert_eq!(r["config"]["seed"], 1);
    assert_eq!(r["traffic"]["pattern"], "uniform");
    let lat = r["avg_latency"].as_f64().unwrap();
    assert!(lat > 131.0 && lat < 400.0, "latency {lat}");
    let acc = r["accepted_throughput"].as_f64().unwrap();
    assert!((acc - 0.05).abs() < 0.01, "throughput {acc}");
    assert!(r["flit_hops"].as_u64().unwrap() > 0);

    let human = ok(&wormcast(&[
        "run",
        "--topology",
        p,
        "--load",
        "0.05",
        "--cycles",
        "3000",
        "--warmup",
        "1000",
        "-q",
    ]));
    assert!(human.contains("latency: avg"), "{human}");
    assert!(human.contains("accepted throughput"), "{human}");
}

/// BookSim's anynet file of the headline network (`benches/anynet8x4.anynet`)
/// runs as the TOML translation of it does: the same topology, port for
/// port, and the same run, cycle for cycle. A latency the model's links do
/// not have is refused by its file and line.
#[test]
fn a_booksim_anynet_file_runs_as_its_toml_translation() {
    let root = env!("CARGO_MANIFEST_DIR");
    let (anynet, toml) = (
        format!("{root}/benches/anynet8x4.anynet"),
        format!("{root}/benches/anynet8x4.toml"),
    );
    // The same network but for the TOML's open ports: its switches have 8
    // ports each, a BookSim router as many as it has links.
    let show = |f: &str| {
        let mut v: serde_json::Value =
            serde_json::from_str(&ok(&wormcast(&["topo", "show", f, "--json"]))).unwrap();
        let mut open = 0;
        for sw in v["switch"].as_array_mut().unwrap() {
            let ports = sw["ports"].as_array_mut().unwrap();
            let n = ports.len();
            ports.retain(|p| p["to"] != "open");
            open += n - ports.len();
        }
        (v, open)
    };
    let ((shown, none), (b, open)) = (show(&anynet), show(&toml));
    assert_eq!((none, open), (0, 8 * 8 - 32 - 2 * 12));
    assert_eq!(shown, b);
    // The switch system with its nodes' own generators, or (`--threads`)
    // the engine.
    let run = |f: &str, more: &[&str]| {
        let mut args: Vec<&str> =
            "run --traffic uniform --load 0.1 --packet 20 --warmup 500 --cycles 3000 --json"
                .split(' ')
                .collect();
        args.extend(["--topology", f]);
        args.extend_from_slice(more);
        let out = ok(&wormcast(&args));
        let mut v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let m = v.as_object_mut().unwrap();
        assert_eq!(m.remove("topology").unwrap(), f);
        for timing in ["wall_seconds", "cycles_per_second", "setup_seconds"] {
            m.remove(timing).expect(timing);
        }
        // The build that ran it, as `wormcast --version` names it.
        assert_eq!(m.remove("build").unwrap(), wormcast::BUILD);
        v
    };
    let version = ok(&wormcast(&["--version"]));
    assert_eq!(version, format!("wormcast {}\n", wormcast::BUILD));
    let a = run(&anynet, &[]);
    assert!(a["packets_delivered"].as_u64().unwrap() > 300, "{a}");
    assert_eq!(a, run(&toml, &[]));
    let e = run(&anynet, &["--threads", "2"]);
    assert!(e["delivered"].as_u64().unwrap() > 300, "{e}");
    assert_eq!(e, run(&toml, &["--threads", "2"]));

    // Converted to a TOML topology file (`topo show --toml`), BookSim's
    // ports and all: the same network and the same run again.
    let text = ok(&wormcast(&["topo", "show", &anynet, "--toml"]));
    assert!(
        text.starts_with(&format!(
            "# {anynet}: 8 switches, 32 nodes, 12 links\n\n[[switch]]\nid = 0\nports = 8\n"
        )),
        "{text}"
    );
    let converted = tmp("anynet8x4-converted.toml");
    std::fs::write(&converted, &text).unwrap();
    let c = converted.to_str().unwrap();
    assert_eq!(show(c), (shown, 0));
    assert_eq!(run(c, &[]), run(&anynet, &[]));

    // And back: the TOML written as an anynet file is BookSim's file, byte
    // for byte. A generated network's anynet file (ports renumbered as
    // BookSim numbers them) writes back as itself; one that joins two
    // switches twice is refused, naming them.
    let back = ok(&wormcast(&["topo", "show", &toml, "--anynet"]));
    assert_eq!(back, std::fs::read_to_string(&anynet).unwrap());
    for (seed, twice) in [("1", None), ("2", Some("switches 10 and 14"))] {
        let net = tmp(&format!("gen{seed}.toml"));
        let n = net.to_str().unwrap();
        let generate = format!("topo gen --switches 64 --ports 8 --nodes 256 --seed {seed} -o {n}");
        ok(&wormcast(&generate.split(' ').collect::<Vec<_>>()));
        let o = wormcast(&["topo", "show", n, "--anynet"]);
        match twice {
            None => {
                let first = ok(&o);
                let file = tmp(&format!("gen{seed}.anynet"));
                std::fs::write(&file, &first).unwrap();
                let f = file.to_str().unwrap();
                assert_eq!(ok(&wormcast(&["topo", "show", f, "--anynet"])), first);
                let count = |f: &str| {
                    let v: serde_json::Value =
                        serde_json::from_str(&ok(&wormcast(&["topo", "show", f, "--json"])))
                            .unwrap();
                    (
                        v["switches"].clone(),
                        v["nodes"].clone(),
                        v["links"].clone(),
                    )
                };
                assert_eq!(count(f), count(n));
            }
            Some(which) => {
                assert_eq!(o.status.code(), Some(2));
                let e = String::from_utf8_lossy(&o.stderr);
                assert!(e.contains(which) && e.contains("more than one link"), "{e}");
            }
        }
    }

    let slow = tmp("slow.anynet");
    std::fs::write(
        &slow,
        "router 0 node 0 node 1 router 1\nrouter 1 node 2 router 0 3\n",
    )
    .unwrap();
    let o = wormcast(&[
        "run",
        "--topology",
        slow.to_str().unwrap(),
        "--cycles",
        "100",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        format!(
            "error: {}: line 2: the link from router 1 to router 0 takes 3 cycles; the model's \
             links take one cycle (seed 000 section 6.2), so only a latency of 1 is read (BookSim \
             anynet file)\n",
            slow.display()
        )
    );
}

/// The build names the commit it was made from, and whether what it is
/// made of (the sources, the manifest, the lock file, the build script)
/// was edited since: a sweep resumed or merged by build must not take an
/// edited model for the commit's. Run where the crate is its own git
/// checkout (as in CI); elsewhere the build is the bare version.
#[test]
fn the_build_names_its_commit_and_its_edits() {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let version = env!("CARGO_PKG_VERSION");
    let top = git(&["rev-parse", "--show-toplevel"]).map(PathBuf::from);
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let canon = |p: &PathBuf| p.canonicalize().unwrap();
    if top.filter(|t| canon(t) == canon(&here)).is_none() {
        // Not the crate's own checkout: nothing names a commit.
        assert_eq!(wormcast::BUILD, version);
        return;
    }
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).unwrap();
    let edited = !git(&[
        "status",
        "--porcelain",
        "--",
        "src",
        "Cargo.toml",
        "Cargo.lock",
        "build.rs",
    ])
    .unwrap()
    .is_empty();
    let rest = wormcast::BUILD
        .strip_prefix(&format!("{version}+{commit}"))
        .unwrap_or_else(|| panic!("{} names another commit than {commit}", wormcast::BUILD));
    if edited {
        let hash = rest
            .strip_prefix(".modified-")
            .unwrap_or_else(|| panic!("{} does not say its sources were edited", wormcast::BUILD));
        assert!(
            hash.len() == 16 && hash.chars().all(|c| c.is_ascii_hexdigit()),
            "{}",
            wormcast::BUILD
        );
    } else {
        assert_eq!(
            rest,
            "",
            "{} says a clean checkout was edited",
            wormcast::BUILD
        );
    }
}

/// A topology file's uniform run goes through seed 000's system unless an
/// engine option is given, `--threads` among them (docs/engine.md): the
/// two reports differ in shape, and `--threads 1` and `--threads 2` give
/// the same run.
#[test]
fn threads_take_a_file_run_through_the_engine() {
    let root = env!("CARGO_MANIFEST_DIR");
    let net = format!("{root}/benches/anynet8x4.toml");
    let run = |extra: &[&str]| -> serde_json::Value {
        let mut args = vec![
            "run",
            "--topology",
            &net,
            "--traffic",
            "uniform",
            "--load",
            "0.1",
            "--packet",
            "4",
            "--warmup",
            "0",
            "--cycles",
            "500",
            "--json",
        ];
        args.extend_from_slice(extra);
        serde_json::from_str(&ok(&wormcast(&args))).unwrap()
    };
    let plain = run(&[]);
    assert!(plain.get("config").is_some() && plain.get("router").is_none());
    let one = run(&["--threads", "1"]);
    assert_eq!(one["router"], "cut-through");
    assert!(one.get("config").is_none());
    let two = run(&["--threads", "2"]);
    for k in ["latency", "accepted_throughput", "offered_load"] {
        assert_eq!(one[k], two[k], "{k}");
    }
}

#[test]
fn a_single_packet_reports_its_latency() {
    let net = tmp("single.toml");
    let p = net.to_str().unwrap();
    ok(&wormcast(&["topo", "gen", "-o", p]));
    let out = ok(&wormcast(&[
        "run",
        "--topology",
        p,
        "--traffic",
        "single",
        "--src",
        "0",
        "--dst",
        "1",
        "--packet",
        "20",
    ]));
    // Nodes 0 and 1 share a switch: 20 + 1 * 3 + 1 cycles.
    assert!(out.contains("latency 24 cycles"), "{out}");
}

#[test]
fn run_writes_a_vcd_and_a_gtkwave_save_file() {
    let net = tmp("v.toml");
    let vcd = tmp("v.vcd");
    ok(&wormcast(&[
        "topo",
        "gen",
        "--seed",
        "4",
        "-o",
        net.to_str().unwrap(),
    ]));
    ok(&wormcast(&[
        "run",
        "--topology",
        net.to_str().unwrap(),
        "--load",
        "0.1",
        "--packet",
        "20",
        "--cycles",
        "500",
        "--warmup",
        "100",
        "--vcd",
        vcd.to_str().unwrap(),
        "-q",
    ]));
    let v = std::fs::read_to_string(&vcd).unwrap();
    assert!(v.starts_with("$version"), "{}", &v[..100]);
    assert!(v.contains("$timescale 100 ps $end"));
    assert!(v.contains("$var wire 10 ") && v.contains(" buf_count [9:0] $end"));
    let g = std::fs::read_to_string(vcd.with_extension("gtkw")).unwrap();
    assert!(g.contains("top.sw0.in0.buf_count[9:0]"), "{g}");
}

#[test]
fn bad_input_fails_with_a_message_naming_the_problem() {
    let bad = tmp("bad.toml");
    std::fs::write(
        &bad,
        "[[switch]]\nid = 0\nports = 4\n\n[[link]]\na = [0, 1]\nb = [0, 2]\n\n[[node]]\nid = 0\nat = [0, 0]\n",
    )
    .unwrap();
    let o = wormcast(&["topo", "show", bad.to_str().unwrap()]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.starts_with("error: "), "{err}");
    assert!(
        err.contains("bad.toml: line 5: link #1: link from switch 0 to itself"),
        "{err}"
    );

    let o = wormcast(&["run", "--topology", "/nonexistent/net.toml"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("/nonexistent/net.toml"));

    let net = tmp("ok.toml");
    ok(&wormcast(&["topo", "gen", "-o", net.to_str().unwrap()]));
    let o = wormcast(&[
        "run",
        "--topology",
        net.to_str().unwrap(),
        "--packet",
        "640",
        "--cycles",
        "10",
        "--warmup",
        "0",
    ]);
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains(
            "input buffer of 640 flits is not larger than the largest packet of 640 flits"
        ),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = wormcast(&[
        "run",
        "--topology",
        net.to_str().unwrap(),
        "--traffic",
        "single",
        "--dst",
        "99",
    ]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("node 99 does not exist"));
    let o = wormcast(&["topo", "gen", "--nodes", "100"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot generate the topology"));

    // A negative number reaches the option's own check, which names it.
    let net = net.to_str().unwrap();
    refused(
        &["run", "--topology", net, "--load", "-1"],
        "load = -1: an offered load is at least 0 and at most 1 flit/node/cycle",
    );
    // An absurd one is named short, not in 309 digits, on the command
    // line and in a run configuration.
    refused(
        &["run", "--topology", net, "--load", "1e308"],
        "load = 1e308: an offered load is at least 0 and at most 1 flit/node/cycle",
    );
    let config = tmp("absurd-load.toml");
    std::fs::write(
        &config,
        "[network]\ntopology = \"mesh:4x4\"\n[traffic]\npattern = \"uniform\"\nload = 1e308\n",
    )
    .unwrap();
    refused(
        &["run", "--config", config.to_str().unwrap()],
        "load = 1e308: an offered load is at least 0 and at most 1 flit/node/cycle",
    );
    refused(
        &["run", "--topology", net, "--packet", "-3"],
        "invalid value '-3' for '--packet <PACKET>'",
    );
    refused(
        &["topo", "gen", "--connectivity", "-0.5"],
        "connectivity -0.5 is not within 0..=1",
    );
    // A warm-up as long as the run would measure nothing.
    refused(
        &[
            "run",
            "--topology",
            net,
            "--warmup",
            "1000",
            "--cycles",
            "1000",
        ],
        "warmup = 1000: not shorter than the run of 1000 cycles",
    );
    // A short run that left the warm-up at its default is told which
    // option to give, on the topology file's path and the engine's.
    refused(
        &["run", "--topology", net, "--cycles", "2000"],
        "warmup = 50000: not shorter than the run of 2000 cycles (the default warm-up: \
         give a shorter one, --warmup)",
    );
    refused(
        &["run", "--topology", "mesh:4x4", "--cycles", "2000"],
        "stats.warmup = 50000: not shorter than the run of 2000 cycles (the default \
         warm-up: give a shorter one, --warmup or stats.warmup)",
    );
    // A run longer than any run may be ends at once, on every path (it ran
    // until killed; warm-up and measured cycles added up could wrap).
    let long = "a run has at most 1000000000000 cycles";
    refused(
        &["run", "--topology", net, "--cycles", "18446744073709551615"],
        long,
    );
    for router in ["wormhole", "tree", "cut-through"] {
        refused(
            &[
                "run",
                "--topology",
                "mesh:4x4",
                "--router",
                router,
                "--cycles",
                "18446744073709551615",
            ],
            long,
        );
    }
    refused(
        &[
            "run",
            "--topology",
            "mesh:4x4",
            "--cycles",
            "1000000000001",
            "--warmup",
            "1000",
        ],
        "cycles = 1000000000001: a run has at most 1000000000000 cycles (warm-up 1000 and measured 999999999001 together)",
    );
    refused(
        &[
            "run",
            "--topology",
            "mesh:4x4",
            "--drain",
            "18446744073709551615",
        ],
        "drain = 18446744073709551615: a run has at most 1000000000000 cycles of draining",
    );
    // A message's packet count is checked before anything is sized by it.
    refused(
        &["multicast", "--packets", "4294967295"],
        "a message of 4294967295 packets; a message has 1 to 255",
    );
    // An experiment's option that none of the figures asked for uses is
    // refused (it changed nothing), and a run past the longest is refused
    // (it would never end).
    refused(
        &[
            "experiment",
            "run",
            "--figure",
            "fig22",
            "--quick",
            "--cycles",
            "1000",
        ],
        "figure = fig22: --cycles is for the loaded figures (fig26 to fig28), and none is asked for",
    );
    refused(
        &[
            "experiment",
            "run",
            "--figure",
            "fig26,fig27",
            "--sets",
            "3",
        ],
        "figure = fig26, fig27: --sets is for the figures of single multicasts (fig19 to fig25), and none is asked for",
    );
    refused(
        &[
            "experiment",
            "run",
            "--figure",
            "fig19,fig26",
            "--cycles",
            "18446744073709551615",
        ],
        "cycles = 18446744073709551615: a run has at most 1000000000000 cycles",
    );
    // The seed 002 and 003 sweeps: a warm-up that leaves nothing to
    // measure is named as the warm-up, and a point that cannot hold its
    // batches is refused (it ran past the cycles asked for).
    refused(
        &[
            "tree",
            "experiment",
            "--quick",
            "--cycles",
            "100",
            "--warmup",
            "100",
        ],
        "warmup = 100: not shorter than the 100 cycles of a point, which include it\n",
    );
    // A warm-up left at its default is named as the default, with the
    // option that shortens it.
    refused(
        &["tree", "experiment", "--quick", "--cycles", "200"],
        "warmup = 1500: not shorter than the 200 cycles of a point, which include it (the \
         default warm-up of --quick: give a shorter one, --warmup)\n",
    );
    refused(
        &["tree", "variants", "--cycles", "200"],
        "which include it (the default warm-up: give a shorter one, --warmup)\n",
    );
    refused(
        &["experiment", "run", "--quick", "--cycles", "1000"],
        "warmup = 50000: not shorter than the 1000 cycles of a load run, which include it \
         (the default warm-up of --quick: give a shorter one, --warmup)\n",
    );
    refused(
        &[
            "experiment",
            "run",
            "--figure",
            "fig26",
            "--cycles",
            "10",
            "--warmup",
            "10",
        ],
        "warmup = 10: not shorter than the 10 cycles of a load run, which include it\n",
    );
    refused(
        &["mesh3d", "experiment", "--quick", "--cycles", "10"],
        "cycles = 10: a point measures 11 batches of at least a cycle: give 11 or more",
    );
    // A plan is of a message that could be carried, run or not.
    refused(
        &["plan", "--packets", "0"],
        "a message of 0 packets; a message has 1 to 255",
    );
    // A host overhead past the longest run is refused (its sums with a
    // cycle number wrapped, and the multicast was called a model fault).
    refused(
        &["multicast", "--t-hs", "18446744073709551615"],
        "t_hs = 18446744073709551615: an overhead is at most 1000000000000 cycles, the longest run",
    );
    // One of the longest is run, its waits skipped, not ticked through:
    // twelve host and NI overheads on the critical path of the default
    // multicast, each 10^12 - 1,000 cycles longer than the default's.
    let latency = |t_hs: &str| {
        let v: serde_json::Value =
            serde_json::from_str(&ok(&wormcast(&["multicast", "--t-hs", t_hs, "--json"]))).unwrap();
        assert_eq!(v["latency"], v["predicted_latency"], "{v}");
        v["latency"].as_u64().unwrap()
    };
    assert_eq!(
        latency("1000000000000") - latency("1000"),
        12 * (1_000_000_000_000 - 1_000)
    );
    // An integer beyond TOML's range is a syntax error where it stands,
    // not an unknown field.
    let cfg = tmp("huge-queue.toml");
    std::fs::write(&cfg, "source_queue_packets = 18446744073709551615\n").unwrap();
    refused(
        &["run", "--config", cfg.to_str().unwrap()],
        "huge-queue.toml: line 1, column 24: ",
    );
    // Absurd sizes are refused before anything is built for them.
    refused(
        &["topo", "gen", "--switches", "2000000"],
        "2000000 switches and 32 nodes: a network has at most 1048576 of each",
    );
    refused(
        &[
            "mesh3d",
            "plan",
            "--dims",
            "4x4x4",
            "--source",
            "0,0,0",
            "--dests",
            "1",
            "--beta",
            "100000000",
        ],
        "beta = 100000000: 1 worm x 100000000 cycles of start-up: not fewer than the \
         100000000 cycles a plan's run may take",
    );
    // Too many jobs, named by the option that took the count past the
    // limit.
    let out = tmp("huge-experiment");
    for (option, value, why) in [
        (
            "--topologies",
            "4294967295",
            "topologies = 4294967295: fig19 would have 12 points x 4294967295 topologies x 2 sets \
             = 103079215080 jobs; a figure has at most 1000000",
        ),
        (
            "--sets",
            "4000000000",
            "sets = 4000000000: fig19 would have 12 points x 2 topologies x 4000000000 sets \
             = 96000000000 jobs; a figure has at most 1000000",
        ),
    ] {
        let args = [
            "experiment",
            "run",
            "--figure",
            "fig19",
            "--quick",
            option,
            value,
            "-q",
        ];
        let mut args = args.to_vec();
        args.extend(["--out", out.to_str().unwrap()]);
        refused(&args, why);
    }
    // A binary file, or a device that never ends, is not a topology.
    #[cfg(unix)]
    for (cmd, path) in [("reach", "/dev/urandom"), ("run", "/dev/zero")] {
        let o = if cmd == "reach" {
            wormcast(&["reach", path])
        } else {
            wormcast(&["run", "--topology", path, "--cycles", "10"])
        };
        assert_eq!(o.status.code(), Some(2), "{cmd} {path}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.starts_with(&format!("error: {path}: "))
                && (err.contains("not UTF-8 text") || err.contains("larger than 256 MiB")),
            "{err}"
        );
    }
}

/// Traffic whose longest packet does not fit the cut-through switch's
/// input buffers is refused before the first cycle, and before the
/// waveform asked for is made, whether or not a packet that long would be
/// drawn (at 0.001 flits a node a cycle, 100 cycles draw none). On 256
/// nodes a unicast header is 2 flits, so a 128-flit packet carries 126
/// after it; the longest header of 8 destinations is a bit string's,
/// 1 + 256 / 8 = 33 flits; an SSR one is 3; a multi-drop one 1 + 8 pairs
/// of 2 flits.
#[test]
fn traffic_too_long_for_the_buffers_is_refused_before_the_run() {
    let vcd = tmp("too-long.vcd");
    let _ = std::fs::remove_file(&vcd);
    let args = |scheme: &'static str, buffer: &'static str| {
        vec![
            "run",
            "--topology",
            "irregular:switches=64,ports=8,nodes=256",
            "--traffic",
            "multicast",
            "--degree",
            "8",
            "--load",
            "0.001",
            "--scheme",
            scheme,
            "--buffer",
            buffer,
            "--warmup",
            "0",
            "--cycles",
            "100",
            "--vcd",
            vcd.to_str().unwrap(),
        ]
    };
    for (scheme, longest) in [
        ("bit-string", 33 + 126),
        ("ssr", 3 + 126),
        ("multi-drop", 1 + 8 * 2 + 126),
        ("unicast", 128),
    ] {
        refused(
            &args(scheme, "16"),
            &format!(
                "input buffer of 16 flits is not larger than the largest packet of {longest} flits"
            ),
        );
        assert!(!vcd.exists(), "{scheme}: a refused run made {vcd:?}");
    }
    // One flit more than the longest packet runs, and writes its waveform.
    ok(&wormcast(&args("bit-string", "160")));
    assert!(vcd.exists());
}

/// Tree multicasts on seed 003's router with the default 128-flit packets
/// failed at the first multicast, after the run had begun and with its
/// waveform half written (70 KB of VCD for a 4x4 mesh). Every input
/// channel holds all the data flits of a tree multicast (4 by default),
/// so the run is now refused before it starts, naming the longest packet
/// that fits and the two other ways out; the waveform file is not made.
/// Each way out runs: 5-flit packets, a larger `[tree] aux_flits`, pseudo
/// multicast, and unicasts only (`--degree 1`).
#[test]
fn tree_multicasts_too_long_for_the_auxiliary_buffers_are_refused_before_the_run() {
    let vcd = tmp("tree-too-long.vcd");
    let _ = std::fs::remove_file(&vcd);
    let run = |extra: &[&str]| {
        let mut a = vec![
            "run",
            "--topology",
            "mesh:4x4",
            "--router",
            "tree",
            "--traffic",
            "multicast",
            "--load",
            "0.002",
            "--cycles",
            "2000",
            "--warmup",
            "0",
            "--json",
        ];
        a.extend_from_slice(extra);
        a.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    let args = run(&["--degree", "3", "--vcd", vcd.to_str().unwrap()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    refused(
        &args,
        "bad packet: 128 flits to several destinations: a tree multicast keeps its 127 data \
         flits in the auxiliary buffer of every input channel it crosses, which holds 4 \
         (seed 003 section 3.3): send at most 5 flits, enlarge the buffers ([tree] \
         aux_flits) or use the pseudo scheme (one unicast per destination)",
    );
    assert!(!vcd.exists(), "a refused run made {vcd:?}");
    let six = run(&["--degree", "3", "--packet", "6"]);
    refused(
        &six.iter().map(String::as_str).collect::<Vec<_>>(),
        "bad packet: 6 flits to several destinations: a tree multicast keeps its 5 data flits",
    );
    // The ways out, each run to its end with every copy delivered.
    let cfg = tmp("tree-aux.toml");
    std::fs::write(&cfg, "[tree]\naux_flits = 127\n").unwrap();
    for extra in [
        vec!["--degree", "3", "--packet", "5"],
        vec!["--degree", "3", "--config", cfg.to_str().unwrap()],
        vec!["--degree", "3", "--scheme", "pseudo"],
        vec!["--degree", "1"],
    ] {
        let o = ok(&wormcast(&run(&extra)));
        let r: serde_json::Value = serde_json::from_str(&o).unwrap();
        let (made, got) = (r["generated"].as_u64().unwrap(), r["delivered"].as_u64());
        let copies = if extra[1] == "3" { 3 } else { 1 };
        assert!(made > 0, "{extra:?}: {o}");
        assert_eq!(got, Some(made * copies), "{extra:?}: {o}");
    }
}

/// A run that deadlocks ends its waveform where it stopped, with its views
/// beside it, as a finished run does: the waveform is what a deadlock is
/// debugged with. The FST of a tree multicast run without pruning that
/// deadlocks at cycle 2049 held its hierarchy and no value (its blocks
/// were never written), and neither format had its views. Now both hold
/// every edge up to the deadlock (the falling edge of cycle 2049 at
/// 102,475 in units of 100 ps), the same values (`wave diff`), and the
/// VCD its closing time, as a finished run's.
#[test]
fn a_deadlocked_run_ends_its_waveform_where_it_stopped() {
    let mut paths = Vec::new();
    for ext in ["fst", "vcd"] {
        let path = tmp(&format!("deadlocked.{ext}"));
        for p in [path.with_extension("gtkw"), path.with_extension("sucl")] {
            let _ = std::fs::remove_file(p);
        }
        let args = [
            "run",
            "--topology",
            "mesh:4x4",
            "--router",
            "tree",
            "--traffic",
            "multicast",
            "--degree",
            "6",
            "--degree-max",
            "15",
            "--load",
            "0.3",
            "--packet",
            "5",
            "--cycles",
            "20000",
            "--warmup",
            "0",
            "--no-prune",
            "--vcd",
            path.to_str().unwrap(),
        ];
        found(
            &args,
            "deadlock at cycle 2049: no flit moved for 2000 cycles",
        );
        // The VCD closes the last cycle with a time of its own, as a
        // finished run's does; the FST's closing time carries no change.
        let end = if ext == "vcd" { "#102500" } else { "#102475" };
        common::assert_ended_with_views(&path, end);
        paths.push(path);
    }
    let d = ok(&wormcast(&[
        "wave",
        "diff",
        paths[0].to_str().unwrap(),
        paths[1].to_str().unwrap(),
    ]));
    assert!(d.starts_with("OK: 4100 times, 977 signals compared"), "{d}");
}

/// So does a single packet that has not arrived when `--cycles` run out
/// (exit status 1): its waveform ends at cycle 5, the views beside it
/// (they were not written).
#[test]
fn a_packet_that_does_not_arrive_in_time_leaves_a_waveform_with_views() {
    let topo = triangle("late.toml");
    let fst = tmp("late.fst");
    for p in [fst.with_extension("gtkw"), fst.with_extension("sucl")] {
        let _ = std::fs::remove_file(p);
    }
    let args = [
        "run",
        "--topology",
        topo.to_str().unwrap(),
        "--traffic",
        "single",
        "--src",
        "0",
        "--dst",
        "5",
        "--packet",
        "20",
        "--cycles",
        "5",
        "--vcd",
        fst.to_str().unwrap(),
    ];
    found(
        &args,
        "the network did not drain within 5 cycles (1 packet outstanding)",
    );
    // The falling edge of cycle 5.
    common::assert_ended_with_views(&fst, "#275");
}

/// An option of seed 000's traffic (`--src`, `--dst`, ...) on a run that
/// is the engine's was refused as one that "does not apply to the
/// engine", which a run on a topology file with `--node-model` did not
/// know it had asked for: the refusal now says what made the run the
/// engine's.
#[test]
fn an_option_the_engine_does_not_take_is_refused_with_what_chose_the_engine() {
    let file = "benches/anynet8x4.toml";
    let head = "error: configuration: traffic = ";
    let src = "--src is for seed 000's traffic on a topology file (single packets, worms, \
               multicast worms); ";
    let tail = " runs on the engine, which does not take it (docs/engine.md)\n";
    for (args, pattern, why) in [
        (
            &[
                "--topology",
                file,
                "--node-model",
                "ni",
                "--traffic",
                "single",
            ][..],
            "single",
            "a run with --node-model",
        ),
        (
            &["--topology", "mesh:4x4", "--traffic", "single"],
            "single",
            "topology mesh:4x4",
        ),
        (
            &["--topology", file, "--traffic", "transpose"],
            "transpose",
            "traffic transpose",
        ),
        (
            &["--config", "configs/seed003-torus.toml"],
            "uniform",
            "a run configuration (configs/seed003-torus.toml)",
        ),
    ] {
        let o = wormcast(&[&["run"][..], args, &["--src", "0"]].concat());
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(
            err,
            format!("{head}{pattern}: {src}{why}{tail}"),
            "{args:?}"
        );
    }
    // On a topology file alone, the option is seed 000's traffic's.
    let out = ok(&wormcast(&[
        "run",
        "--topology",
        file,
        "--traffic",
        "single",
        "--src",
        "0",
        "--dst",
        "5",
        "-q",
    ]));
    assert!(
        out.contains("node    5: 128 flits, tail arrived at cycle 138 (latency 138 cycles)"),
        "{out}"
    );
}

/// `tree send` takes nodes as coordinates, and a destination list's
/// faults were named in node numbers, which read as coordinates: `--send
/// "0,0>1,1;1,1"` on the 8x8 mesh was told "dests = 9,9: node 9 is listed
/// twice". They are named as given now.
#[test]
fn tree_send_names_a_bad_destination_list_in_coordinates() {
    let head = "error: configuration: send = ";
    for (topo, send, want) in [
        (
            "mesh:8x8",
            "0,0>1,1;1,1",
            "node (1,1) is listed twice among the destinations",
        ),
        (
            "mesh:8x8",
            "7,7>0,0;3,4;0,0",
            "node (0,0) is listed twice among the destinations",
        ),
        (
            "mesh:8x8",
            "2,3>5,5;2,3",
            "the source (2,3) is among its own destinations",
        ),
        (
            "torus:3x3x3",
            "0,0,0>1,1,1;2,2,2;1,1,1",
            "node (1,1,1) is listed twice among the destinations",
        ),
    ] {
        let o = wormcast(&["tree", "send", "--topo", topo, "--send", send]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{send}: {err}");
        assert_eq!(err, format!("{head}{send}: {want}\n"));
    }
}

/// A packet still in its source's queue is outstanding too: a single
/// packet given no cycles was reported as "0 packets outstanding" by a
/// network that had not drained (the count was of packets in flight).
/// And a run of no cycles at all is refused naming `cycles`, where it
/// named the warm-up ("stats.warmup = 0: not shorter than the run of 0
/// cycles"), on the engine and on the cut-through system alike.
#[test]
fn a_packet_not_yet_sent_is_outstanding_and_no_cycles_is_named() {
    let topo = triangle("unsent.toml");
    let topo = topo.to_str().unwrap();
    let args = [
        "run",
        "--topology",
        topo,
        "--traffic",
        "single",
        "--src",
        "0",
        "--dst",
        "5",
        "--packet",
        "20",
        "--cycles",
        "0",
    ];
    found(
        &args,
        "the network did not drain within 0 cycles (1 packet outstanding) at cycle 0\n",
    );
    for t in [topo, "mesh:4x4"] {
        for warmup in [&["--warmup", "0"][..], &[]] {
            let args = [&["run", "--topology", t, "--cycles", "0"][..], warmup].concat();
            let o = wormcast(&args);
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
            assert!(
                err.starts_with("error: configuration: ")
                    && err.ends_with(
                        "cycles = 0: a run has at least 1 cycle past its warm-up to measure\n"
                    ),
                "{args:?}: {err}"
            );
        }
    }
}

/// A run refused for a `--trace-scope` that names nothing leaves a
/// waveform already at its output path as it was, VCD and FST alike (it
/// emptied the file before), and makes no file at a path where there was
/// none (it left an empty one before); a run that goes ahead replaces a
/// longer file whole, giving the bytes it gives to a fresh path.
#[test]
fn a_refused_trace_leaves_the_file_there_untouched() {
    for ext in ["vcd", "fst"] {
        let path = tmp(&format!("kept.{ext}"));
        let fresh = tmp(&format!("fresh.{ext}"));
        let run = |out: &PathBuf, scope: &str| {
            wormcast(&[
                "run",
                "--topology",
                "mesh:2x2",
                "--load",
                "0.1",
                "--packet",
                "4",
                "--cycles",
                "50",
                "--warmup",
                "0",
                "--vcd",
                out.to_str().unwrap(),
                "--trace-scope",
                scope,
            ])
        };
        let old = vec![b'#'; 1 << 20];
        std::fs::write(&path, &old).unwrap();
        let o = run(&path, "top.nothere");
        assert_eq!(o.status.code(), Some(2), "{ext}");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("trace-scope = top.nothere"),
            "{ext}"
        );
        assert!(
            std::fs::read(&path).unwrap() == old,
            "{ext}: the file was changed"
        );
        let _ = std::fs::remove_file(&fresh);
        assert_eq!(run(&fresh, "top.nothere").status.code(), Some(2), "{ext}");
        assert!(!fresh.exists(), "{ext}: a refused run made {fresh:?}");
        ok(&run(&path, "top.r1"));
        ok(&run(&fresh, "top.r1"));
        let (a, b) = (
            std::fs::read(&path).unwrap(),
            std::fs::read(&fresh).unwrap(),
        );
        assert!(a.len() < old.len(), "{ext}: {} bytes", a.len());
        assert!(a == b, "{ext}: the rewritten file differs from a fresh one");
    }
}

/// Runs `wormcast args`, whose run must find something (a deadlock, a
/// network that does not drain): exit status 1 and a report on standard
/// error that contains `needle`.
fn found(args: &[&str], needle: &str) {
    let o = wormcast(args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
    assert!(err.contains(needle), "{args:?}: {err}");
}

/// Runs `wormcast args`, which must refuse its input: exit status 2 and an
/// error that contains `needle`.
/// Fails (rather than building a network the machine cannot hold) unless
/// it has less than `mb` MB of memory available: a test of a refusal by
/// reckoned memory needs it.
fn needs_less_memory_than(mb: u64) {
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap();
    let kib: u64 = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))
        .and_then(|l| l.split_whitespace().next())
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        kib * 1024 < mb * 1_000_000,
        "this test needs less than {mb} MB of memory available to see the refusal"
    );
}

fn refused(args: &[&str], needle: &str) {
    let o = wormcast(args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert!(
        err.starts_with("error: ") && err.contains(needle),
        "{args:?}: {err}"
    );
}

/// A grid the router models cannot be built on is refused naming the
/// spec as given (`torus:1x2`, not the three sides it was read as).
#[test]
fn a_grid_refused_is_named_as_given() {
    let run = |spec: &str, router: &str, needle: &str| {
        let args = [
            "run",
            "--topology",
            spec,
            "--router",
            router,
            "--cycles",
            "100",
            "--warmup",
            "0",
        ];
        refused(&args, needle)
    };
    run(
        "torus:1x2",
        "tree",
        "error: configuration: topology = torus:1x2: a torus side of 2 would join two nodes \
         by two wrap links; use a side of 1 or at least 3\n",
    );
    for router in ["tree", "wormhole"] {
        run(
            "mesh:1x1",
            router,
            "error: configuration: topology = mesh:1x1: a mesh has 2 to 16,777,216 nodes, \
             every side at least 1\n",
        );
    }
    run(
        "torus:1x1x1",
        "tree",
        "error: configuration: topology = torus:1x1: a torus has 2 to 16,777,216 nodes, \
         every side at least 1\n",
    );
}

/// An output folder that a file stands in the way of is refused by name,
/// by every command that writes one, before anything runs (an
/// experiment's points would otherwise run first, for nothing).
#[test]
fn an_output_folder_that_is_a_file_is_refused_by_name() {
    let file = tmp("not-a-folder");
    std::fs::write(&file, "a file").unwrap();
    let sweep = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/configs/sweeps/mesh4x4-routers.toml"
    );
    for out in [file.clone(), file.join("below")] {
        let o = out.to_str().unwrap();
        let why = format!(
            "configuration: folder = {o}: {} is a file, not a folder",
            file.display()
        );
        for args in [
            &["demo", "--out", o][..],
            &[
                "experiment",
                "run",
                "--figure",
                "fig22",
                "--quick",
                "--out",
                o,
            ],
            &["sweep", "run", sweep, "--out", o],
            &["mesh3d", "experiment", "--out", o],
            &["tree", "experiment", "--out", o],
        ] {
            let t = std::time::Instant::now();
            refused(args, &why);
            // Refused at once: the full-size experiments take minutes.
            assert!(t.elapsed().as_secs() < 20, "{args:?}");
        }
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "a file");
}

/// `mesh3d plan` builds meshes past 65,536 nodes (the most before), and
/// refuses one its machine's memory cannot hold before building it,
/// naming the reckoning, where it would otherwise run out of memory part
/// way through; past 2^24 nodes a mesh is refused by its size.
#[test]
fn mesh3d_plan_runs_large_meshes_and_refuses_one_too_large_for_memory() {
    let out = ok(&wormcast(&[
        "mesh3d", "plan", "--dims", "300x300", "--source", "0,0,0", "--dests", "5,89999", "--json",
    ]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let nodes: Vec<u64> = v["worms"][0]["deliveries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["node"].as_u64().unwrap())
        .collect();
    assert_eq!(nodes, [5, 89999], "{out}");
    // 4096x4096 all-port routers: 134,217,728 ports at 1,024 bytes and 16
    // a flit of their 2-flit buffers' depth, 141,733 MB.
    needs_less_memory_than(141_733);
    refused(
        &[
            "mesh3d",
            "plan",
            "--dims",
            "4096x4096",
            "--source",
            "0,0,0",
            "--dests",
            "5",
        ],
        "topology = mesh:4096x4096: a simulation of its 16777216 wormhole routers \
         (134217728 ports) is reckoned at 141733 MB, more than the ",
    );
    refused(
        &[
            "mesh3d",
            "plan",
            "--dims",
            "4097x4096",
            "--source",
            "0,0,0",
            "--dests",
            "5",
        ],
        "dims = 4097x4096x1: a mesh has 2 to 16777216 nodes, every side at least 1",
    );
}

/// The triangle of `tests/common` (0 - 1 and 0 - 2 down from the root, 1 - 2
/// a same-level link down from 1 to 2; nodes 2s and 2s + 1 on switch s).
///
/// Each test passes its own file name: the tests run in parallel, and two of
/// them rewriting one file let a third read it half written.
fn triangle(name: &str) -> PathBuf {
    let path = tmp(name);
    let mut t = String::new();
    for s in 0..3 {
        t += &format!("[[switch]]\nid = {s}\nports = 4\n");
    }
    for (a, b) in [((0, 2), (1, 2)), ((0, 3), (2, 2)), ((1, 3), (2, 3))] {
        t += &format!("[[link]]\na = [{}, {}]\nb = [{}, {}]\n", a.0, a.1, b.0, b.1);
    }
    for n in 0..6 {
        t += &format!("[[node]]\nid = {n}\nat = [{}, {}]\n", n / 2, n % 2);
    }
    std::fs::write(&path, t).unwrap();
    path
}

#[test]
fn reach_prints_levels_and_strings_node_0_first() {
    let net = triangle("triangle-reach.toml");
    let p = net.to_str().unwrap();
    let j: serde_json::Value =
        serde_json::from_str(&ok(&wormcast(&["reach", p, "--json"]))).unwrap();
    assert_eq!(j[0]["level"], 0);
    assert_eq!(j[0]["total"], "111111");
    assert_eq!(j[1]["level"], 1);
    // Switch 1 reaches its own nodes 2 and 3 and, down the same-level link
    // on port 3, switch 2's nodes 4 and 5.
    assert_eq!(j[1]["total"], "001111");
    assert_eq!(
        j[1]["down_ports"],
        serde_json::json!([
            {"port": 0, "restricted": "001000"},
            {"port": 1, "restricted": "000100"},
            {"port": 3, "restricted": "000011"},
        ])
    );
    assert_eq!(j[2]["total"], "000011");
    let text = ok(&wormcast(&["reach", p]));
    assert!(
        text.contains("switch 1 (level 1): total 001111\n  down port  0: 001000\n"),
        "{text}"
    );
    // Written a switch at a time, the output is the library's summary,
    // byte for byte, in both forms.
    let net = wormcast::net::Network::load(&net).unwrap();
    let ud = wormcast::net::UpDown::new(&net);
    let all = wormcast::net::Reachability::new(&net, &ud).summary(&ud);
    assert_eq!(all.len(), 3);
    assert_eq!(
        ok(&wormcast(&["reach", p, "--json"])),
        serde_json::to_string_pretty(&all).unwrap() + "\n"
    );
    let mut want = String::from("strings are node 0 first\n");
    for s in &all {
        want += &format!(
            "switch {} (level {}): total {}\n",
            s.switch, s.level, s.total
        );
        for d in &s.down_ports {
            want += &format!("  down port {:>2}: {}\n", d.port, d.restricted);
        }
    }
    assert_eq!(text, want);
}

#[test]
fn run_sends_one_worm_and_reports_each_destination() {
    let net = triangle("triangle-run.toml");
    let p = net.to_str().unwrap();
    let worm = |kind: &str, extra: &[&str]| {
        let mut args = vec![
            "run",
            "--topology",
            p,
            "--traffic",
            "worm",
            "--worm",
            kind,
            "--src",
            "4",
            "--payload",
            "2",
        ];
        args.extend_from_slice(extra);
        wormcast(&args)
    };
    let out = ok(&worm("bit-string", &["--dests", "0,3,5"]));
    assert_eq!(
        out,
        "bit-string from node 4: generated at cycle 0, first flit sent at 0\n  \
         node    0: 4 flits, tail arrived at cycle 13 (latency 13 cycles)\n  \
         node    3: 4 flits, tail arrived at cycle 17 (latency 17 cycles)\n  \
         node    5: 4 flits, tail arrived at cycle 17 (latency 17 cycles)\n"
    );
    let j: serde_json::Value = serde_json::from_str(&ok(&worm(
        "multi-drop",
        &["--path", "2,0", "--dests", "5,0,1", "--json"],
    )))
    .unwrap();
    let got: Vec<(u64, u64)> = j
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["dst"].as_u64().unwrap(), d["arrive"].as_u64().unwrap()))
        .collect();
    assert_eq!(got.iter().map(|g| g.0).collect::<Vec<_>>(), vec![0, 1, 5]);
    assert_eq!(j[0]["kind"], "multi-drop");
    let ssr = ok(&worm("ssr", &["--dests", "2,3"]));
    assert!(ssr.starts_with("SSR from node 4"), "{ssr}");
    // Errors name the problem.
    let e = worm("ssr", &["--dests", "2,5"]);
    assert!(!e.status.success());
    assert_eq!(
        String::from_utf8_lossy(&e.stderr).lines().last().unwrap(),
        "error: bad packet: node 5 is on switch 2, not on switch 1"
    );
    let e = worm("multi-drop", &["--path", "2", "--dests", "0"]);
    assert_eq!(
        String::from_utf8_lossy(&e.stderr).lines().last().unwrap(),
        "error: bad packet: node 0 is on switch 0, which is not on the path"
    );
    // A missing path is named by the option that gives it.
    let e = worm("multi-drop", &["--dests", "0"]);
    assert_eq!(e.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&e.stderr).lines().last().unwrap(),
        "error: bad packet: a multi-drop worm needs --path, the switches it visits in order"
    );
    let e = worm("bit-string", &["--dests", "9"]);
    assert!(String::from_utf8_lossy(&e.stderr).contains("node 9 does not exist"));
    // A path's switches are checked too: switch 9 was dropped silently
    // (the worm ran as if the path were 2, 0), and a switch named twice was
    // refused as a destination "listed twice".
    for (path, err) in [
        (
            "2,9,0",
            "error: bad packet: switch 9 on the path does not exist (the network has switches 0 to 2)",
        ),
        (
            "2,0,2",
            "error: bad packet: switch 2 is twice on the path: a multi-drop worm visits each switch of its path once",
        ),
    ] {
        let e = worm("multi-drop", &["--path", path, "--dests", "5,0"]);
        assert_eq!(e.status.code(), Some(2), "{path}");
        assert_eq!(
            String::from_utf8_lossy(&e.stderr).lines().last().unwrap(),
            err,
            "{path}"
        );
    }
}

#[test]
fn run_multicast_traffic_reports_throughput() {
    let net = triangle("triangle-traffic.toml");
    let r: serde_json::Value = serde_json::from_str(&ok(&wormcast(&[
        "run",
        "--topology",
        net.to_str().unwrap(),
        "--traffic",
        "multicast",
        "--worm",
        "bit-string",
        "--degree",
        "3",
        "--payload",
        "8",
        "--load",
        "0.05",
        "--cycles",
        "20000",
        "--warmup",
        "5000",
        "--json",
    ])))
    .unwrap();
    assert_eq!(r["traffic"]["pattern"], "multicast");
    assert_eq!(r["traffic"]["worm"], "bit-string");
    // Each worm of 10 flits reaches 3 nodes: about 3 times the offered load
    // arrives.
    let ratio = r["accepted_throughput"].as_f64().unwrap() / r["offered_load"].as_f64().unwrap();
    assert!((ratio - 3.0).abs() < 0.3, "{r}");
}

#[test]
fn vectors_model_vcd_cosim_and_diff_from_the_command_line() {
    let hex = tmp("bs.hex");
    let vcd = tmp("bs_model.vcd");
    let (h, v) = (hex.to_str().unwrap(), vcd.to_str().unwrap());
    ok(&wormcast(&[
        "vectors",
        "--unit",
        "bitstring-decode",
        "--cycles",
        "500",
        "--seed",
        "3",
        "--nodes",
        "8",
        "--ports",
        "4",
        "-o",
        h,
        "--model-vcd",
        v,
    ]));
    let vh = std::fs::read_to_string(hex.with_extension("vh")).unwrap();
    assert!(vh.contains("`define VEC_CYCLES 500\n"), "{vh}");
    assert!(
        vh.contains("`define VEC_WIDTH 55\n"),
        "3 + 8 + 8 + 32 + 4 bits: {vh}"
    );
    assert!(vh.contains(
        "`define VEC_INPUTS {rst, hdr_valid, ud_in, dests, total, restricted, up_ports}\n"
    ));
    assert!(vh.contains("`define UNIT_N 8\n`define UNIT_P 4\n"));
    let lines = std::fs::read_to_string(&hex).unwrap();
    assert_eq!(lines.lines().count(), 500);
    assert!(
        lines.lines().all(|l| l.len() == 14),
        "55 bits in 14 hex digits"
    );
    assert!(
        std::fs::read_to_string(vcd.with_extension("gtkw"))
            .unwrap()
            .contains("tb.dut.hdr_out[31:0]")
    );
    let out = ok(&wormcast(&[
        "cosim",
        "--vcd",
        v,
        "--unit",
        "bitstring-decode",
        "--scope",
        "tb.dut",
    ]));
    assert_eq!(
        out,
        "OK: 500 cycles, 6 signals compared (3000 comparisons), no mismatch\n"
    );
    // A map that reverses `choice` makes it differ: exit status 1.
    let map = tmp("rev.toml");
    std::fs::write(
        &map,
        "[signals]\nchoice = { model = \"choice\", reverse = true }\n",
    )
    .unwrap();
    let o = wormcast(&[
        "cosim",
        "--vcd",
        v,
        "--unit",
        "bitstring-decode",
        "--scope",
        "dut",
        "--map",
        map.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.starts_with("MISMATCH: choice at cycle "), "{text}");
    // The waveform against itself.
    let out = ok(&wormcast(&["wave", "diff", v, v]));
    assert!(out.starts_with("OK: "), "{out}");
    // A bad unit name and a missing file: exit status 2.
    let o = wormcast(&[
        "cosim",
        "--vcd",
        "/nonexistent.vcd",
        "--unit",
        "repl-buffer",
        "--scope",
        "x",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("/nonexistent.vcd"));
}

#[test]
fn kbinomial_prints_the_optimal_tree() {
    let j: serde_json::Value = serde_json::from_str(&ok(&wormcast(&[
        "kbinomial",
        "--nodes",
        "8",
        "--packets",
        "3",
        "--json",
    ])))
    .unwrap();
    assert_eq!(
        j,
        serde_json::json!({"nodes": 8, "packets": 3, "k": 2, "l1": 4, "steps": 8,
                           "binomial_steps": 9, "linear_steps": 9})
    );
    let t: serde_json::Value = serde_json::from_str(&ok(&wormcast(&[
        "kbinomial",
        "--nodes",
        "4",
        "--packets",
        "3",
        "--table",
        "--json",
    ])))
    .unwrap();
    assert_eq!(
        t["rows"],
        serde_json::json!([[[1, 1]], [[1, 1]], [[1, 2], [2, 1]]])
    );
    let o = wormcast(&["kbinomial", "--nodes", "1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no destination"));
}

#[test]
fn multicast_reports_every_destination_against_the_models() {
    let net = triangle("triangle-mcast.toml");
    let p = net.to_str().unwrap();
    // Nodes 0 and 1 share switch 0: t_hs, the bus (97), t_ns, one switch
    // (128 + 3 + 1), t_nr, the bus, t_hr.
    let j: serde_json::Value = serde_json::from_str(&ok(&wormcast(&[
        "multicast",
        "--topology",
        p,
        "--dests",
        "1",
        "--json",
    ])))
    .unwrap();
    assert_eq!(j["latency"], 1000 + 97 + 1000 + 132 + 1000 + 97 + 1000);
    assert_eq!(j["step_model_latency"], 1000 + 2132 + 1000);
    assert_eq!(j["destinations"][0]["node"], 1);

    // Everyone, three packets, FCFS over the binomial tree: the run agrees
    // with the timing model at every destination.
    let j: serde_json::Value = serde_json::from_str(&ok(&wormcast(&[
        "multicast",
        "--topology",
        p,
        "--packets",
        "3",
        "--scheme",
        "fcfs",
        "--tree",
        "binomial",
        "--json",
    ])))
    .unwrap();
    let d = j["destinations"].as_array().unwrap();
    assert_eq!(d.len(), 5);
    assert!(d.iter().all(|x| x["cycle"] == x["predicted"]), "{d:?}");
    assert_eq!(j["latency"], j["predicted_latency"]);
    assert_eq!(j["k"], 3);
    let text = ok(&wormcast(&[
        "multicast",
        "--topology",
        p,
        "--scheme",
        "conventional",
    ]));
    assert!(text.contains("latency "), "{text}");

    let e = wormcast(&["multicast", "--topology", p, "--tree", "kbinomial"]);
    assert_eq!(e.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&e.stderr).contains("--tree kbinomial needs --k"));
    let e = wormcast(&["multicast", "--topology", p, "--dests", "2,7"]);
    assert!(String::from_utf8_lossy(&e.stderr).contains("node 7 does not exist"));
    let e = wormcast(&["multicast", "--topology", p, "--dests", "2,2"]);
    assert!(
        String::from_utf8_lossy(&e.stderr)
            .contains("node 2 is listed twice among the destinations")
    );
}

#[test]
fn demo_writes_the_network_and_waveform_and_compares_multicasts() {
    let out = tmp("demo");
    let text = ok(&wormcast(&["demo", "--out", out.to_str().unwrap()]));
    assert!(out.join("net.toml").exists() && out.join("demo.vcd").exists());
    assert!(out.join("demo.gtkw").exists());
    // The load table is drawn, its saturated row marked as such.
    for ext in ["svg", "png"] {
        let p = out.join(format!("demo_load.{ext}"));
        assert!(text.contains(&format!("plot: {}", p.display())), "{text}");
        assert!(std::fs::metadata(&p).unwrap().len() > 1000);
    }
    let load_rows: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("load"))
        .skip(1)
        .take_while(|l| !l.starts_with("plot:"))
        .collect();
    assert_eq!(load_rows.len(), 7, "{text}");
    assert!(load_rows[0].starts_with("  0.02") && !load_rows[0].ends_with("saturated"));
    assert!(load_rows[6].starts_with("  0.30") && load_rows[6].ends_with("saturated"));
    // Each multicast row: packets, label, latency, timing model; the
    // simulation and the model agree, and smart NIs beat the hosts.
    let rows: Vec<Vec<&str>> = text
        .lines()
        .skip_while(|l| !l.starts_with("== multicast"))
        .skip(2)
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(rows.len(), 6, "{text}");
    for r in &rows {
        assert_eq!(r[r.len() - 1], r[r.len() - 2], "{r:?}");
    }
    let lat = |i: usize| rows[i][rows[i].len() - 2].parse::<u64>().unwrap();
    assert!(
        lat(0) > lat(1) && lat(3) > lat(4) && lat(4) > lat(5),
        "{text}"
    );
}

#[test]
fn plan_prints_the_worms_of_each_phase() {
    let fig14 = concat!(env!("CARGO_MANIFEST_DIR"), "/topologies/fig14.toml");
    let dests = "10,11,6,7,18,19,2,3,14,15,8,9,16,17,4,5";
    let out = ok(&wormcast(&[
        "plan",
        "--topology",
        fig14,
        "--source",
        "20",
        "--dests",
        dests,
        "--scheme",
        "path-lg",
        "--json",
    ]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["phases"], 2);
    assert_eq!(v["worms"].as_array().unwrap().len(), 4);
    assert_eq!(v["worms"][0]["switches"], serde_json::json!([5, 3, 9]));
    assert_eq!(
        v["worms"][0]["dests"],
        serde_json::json!([10, 11, 6, 7, 18, 19])
    );
    assert_eq!(v["worms"][0]["kind"], "multi-drop");
    assert_eq!(v["worms"][3]["header_hex"], "8203");
    let text = ok(&wormcast(&[
        "plan",
        "--topology",
        fig14,
        "--source",
        "20",
        "--dests",
        dests,
        "--scheme",
        "ssr-lg",
        "--run",
    ]));
    assert!(text.starts_with("ssr-lg: source 20, 16 destinations, 8 sends in 4 phases"));
    assert!(text.contains("simulated: latency"));
    // Bad input names the problem.
    let o = wormcast(&["plan", "--topology", fig14, "--dests", "3,99"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("node 99 does not exist"));
    let o = wormcast(&["plan", "--topology", fig14, "--scheme", "star"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown scheme \"star\""));
}

#[test]
fn experiment_shards_merge_from_the_command_line() {
    let dir = tmp("exp");
    let d = dir.to_str().unwrap();
    let run = |shard: &str| {
        ok(&wormcast(&[
            "experiment",
            "run",
            "--figure",
            "fig22",
            "--quick",
            "--shard",
            shard,
            "--out",
            d,
        ]))
    };
    run("0/2");
    run("1/2");
    let whole = dir.join("whole");
    ok(&wormcast(&[
        "experiment",
        "run",
        "--figure",
        "fig22",
        "--quick",
        "--out",
        whole.to_str().unwrap(),
    ]));
    let merged = dir.join("merged");
    ok(&wormcast(&[
        "experiment",
        "merge",
        "--out",
        merged.to_str().unwrap(),
        dir.join("fig22.raw.shard-0-of-2.csv").to_str().unwrap(),
        dir.join("fig22.raw.shard-1-of-2.csv").to_str().unwrap(),
    ]));
    for f in ["fig22.raw.csv", "fig22.csv", "fig22.svg", "fig22.png"] {
        assert_eq!(
            std::fs::read(whole.join(f)).unwrap(),
            std::fs::read(merged.join(f)).unwrap(),
            "{f}"
        );
    }
    let png = std::fs::read(whole.join("fig22.png")).unwrap();
    assert_eq!(&png[..4], b"\x89PNG");
    let svg = std::fs::read_to_string(whole.join("fig22.svg")).unwrap();
    assert!(svg.contains("Number of destinations") && svg.contains("Tree-based"));
    let o = wormcast(&[
        "experiment",
        "merge",
        "--out",
        merged.to_str().unwrap(),
        dir.join("fig22.raw.shard-0-of-2.csv").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("shard 1/2"));

    // Shards of several figures (a job array of `--figure all`, say) are
    // merged at once, each figure's into its own files.
    let two = dir.join("two");
    let t = two.to_str().unwrap();
    for shard in ["0/2", "1/2"] {
        ok(&wormcast(&[
            "experiment",
            "run",
            "--figure",
            "fig19,fig22",
            "--quick",
            "--shard",
            shard,
            "--out",
            t,
        ]));
    }
    let shards = |fig: &str| -> Vec<String> {
        (0..2)
            .map(|k| {
                two.join(format!("{fig}.raw.shard-{k}-of-2.csv"))
                    .display()
                    .to_string()
            })
            .collect()
    };
    let both = dir.join("both");
    let mut args: Vec<String> = ["experiment", "merge", "--out", both.to_str().unwrap()]
        .map(String::from)
        .to_vec();
    args.extend(shards("fig22").into_iter().chain(shards("fig19")));
    let said = ok(&wormcast(&args));
    let written: Vec<String> = ["fig19", "fig22"]
        .iter()
        .flat_map(|fig| {
            ["raw.csv", "csv", "svg", "png"]
                .map(|e| both.join(format!("{fig}.{e}")).display().to_string())
        })
        .collect();
    assert_eq!(said, format!("{}\n", written.join("\n")));
    // fig22's whole run is in `whole` already; fig19's joins it.
    let mut one = vec!["experiment", "run", "--figure", "fig19", "--quick", "--out"];
    one.push(whole.to_str().unwrap());
    ok(&wormcast(&one));
    for f in &written {
        let name = std::path::Path::new(f).file_name().unwrap();
        assert_eq!(
            std::fs::read(whole.join(name)).unwrap(),
            std::fs::read(f).unwrap(),
            "{f}"
        );
    }
    // A figure short of a shard is named, and nothing is written.
    let lacking = dir.join("lacking");
    let mut args: Vec<String> = ["experiment", "merge", "--out", lacking.to_str().unwrap()]
        .map(String::from)
        .to_vec();
    args.extend(
        shards("fig22")
            .into_iter()
            .chain(shards("fig19").into_iter().take(1)),
    );
    let o = wormcast(&args);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "error: configuration: merge = fig19 job 1: 0 rows for job 1, not 3 (missing or repeated \
         shard 1/2?)\n"
    );
    assert!(!lacking.exists());

    // A shard with a digit of one row changed after it was written (its
    // check no longer that of its text) is refused by line, nothing
    // written; so is a row without its check.
    // The row's latency, its last digit before the point made the next.
    let bump = |row: &str| {
        let (before, after) = row.split_once(".000,").unwrap();
        let digit = before.chars().last().unwrap().to_digit(10).unwrap();
        format!(
            "{}{}.000,{after}",
            &before[..before.len() - 1],
            (digit + 1) % 10
        )
    };
    let shard0 = dir.join("fig22.raw.shard-0-of-2.csv");
    let text = std::fs::read_to_string(&shard0).unwrap();
    let row = text.lines().nth(3).unwrap();
    let edited = bump(row);
    let check = row.rsplit_once(',').unwrap().1;
    let unchecked = row.rsplit_once(',').unwrap().0;
    for (changed, why) in [
        (
            edited.as_str(),
            format!(
                "its check {check} is not that of its text: the row was changed after it was \
                 written"
            ),
        ),
        (
            unchecked,
            "11 fields, not 12 (no check at its end: this build ends each row in `check`, a \
             hash of the row, and an older build's rows have none)"
                .to_string(),
        ),
    ] {
        let bad = dir.join("bad.csv");
        std::fs::write(&bad, text.replacen(row, changed, 1)).unwrap();
        let refused = dir.join("refused");
        let o = wormcast(&[
            "experiment",
            "merge",
            "--out",
            refused.to_str().unwrap(),
            bad.to_str().unwrap(),
            dir.join("fig22.raw.shard-1-of-2.csv").to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(2));
        assert_eq!(
            String::from_utf8_lossy(&o.stderr),
            format!(
                "error: configuration: raw CSV = {}:4: {why}\n",
                bad.display()
            )
        );
        assert!(!refused.exists());
    }
    // A whole run's raw file so changed is not taken as finished: the
    // same command says why, runs its jobs and writes it anew.
    let raw = whole.join("fig22.raw.csv");
    let good = std::fs::read(&raw).unwrap();
    let text = String::from_utf8(good.clone()).unwrap();
    let row = text.lines().nth(3).unwrap();
    std::fs::write(&raw, text.replacen(row, &bump(row), 1)).unwrap();
    let mut again: Vec<String> = "experiment run --figure fig22 --quick --quiet --out"
        .split(' ')
        .map(String::from)
        .collect();
    again.push(whole.display().to_string());
    let o = wormcast(&again);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        format!(
            "note: fig22: {} is of this experiment and build but was refused (line 4: its check \
             {} is not that of its text: the row was changed after it was written): its jobs ran \
             and it is written anew\n",
            raw.display(),
            row.rsplit_once(',').unwrap().1
        )
    );
    assert_eq!(std::fs::read(&raw).unwrap(), good);
}

#[test]
fn hypercube_paths_counts_by_enumeration_beside_table_1() {
    let out = ok(&wormcast(&[
        "hypercube",
        "paths",
        "--max-distance",
        "10",
        "--json",
    ]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["routing"], "r2");
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 10);
    // Distance 2 agrees with the paper; distance 3 is where the counted
    // paths exceed the closed forms (26 against (k+1)! = 24).
    assert_eq!(rows[1]["counted"]["t"], 6);
    assert_eq!(rows[1]["natural_upper"], 2.0);
    assert_eq!(rows[1]["table1_upper"], 2.0);
    assert_eq!(rows[2]["counted"]["t"], 26);
    assert_eq!(rows[2]["closed_forms"]["t"], 24);
    assert_eq!(rows[2]["natural_lower"], 3.25);
    assert_eq!(rows[2]["table1_lower"], 3.0);
    assert_eq!(rows[9]["table1_lower"], 38981.25);
    assert_eq!(rows[9]["closed_forms"]["lower"], 38981.25);
    // The UD-path row, counted as label-monotone paths on the Gray code,
    // equals the printed one.
    for r in rows {
        assert_eq!(r["ud_path"], r["table1_ud_path"], "{r}");
    }
    assert_eq!(rows[9]["ud_path"], 7087.5);
    let text = ok(&wormcast(&["hypercube", "paths", "--max-distance", "3"]));
    assert!(text.contains(" 3 |         3.25         3.00 |"), "{text}");
    assert!(text.contains("|       1.50       1.50\n"), "{text}");
    let text = ok(&wormcast(&["hypercube", "paths", "--max-distance", "11"]));
    assert!(
        text.contains("11 |   1584602.12    233887.50 |   1584602.12            - |"),
        "{text}"
    );
    let e = wormcast(&["hypercube", "paths", "--max-distance", "13"]);
    assert_eq!(e.status.code(), Some(2));
}

#[test]
fn hypercube_multicast_routes_paths_and_refusals() {
    let out = ok(&wormcast(&[
        "hypercube",
        "multicast",
        "--src",
        "0",
        "--list",
        "3,6,7",
        "--paths",
    ]));
    assert!(
        out.contains(
            "0 -> 1 -> 3 -> 2 -> 6 -> 7\n  0 -> 1 -> 3 -> 7 -> 6 -> 7\n  0 -> 2 -> 3 -> 7 -> 6 -> 7"
        ),
        "{out}"
    );
    let out = ok(&wormcast(&[
        "hypercube",
        "multicast",
        "--dims",
        "4",
        "--src",
        "5",
        "--list",
        "12,3,9",
        "--natural",
        "--json",
    ]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["list"], "<5: 3, 9, 12>");
    let got: Vec<u64> = v["worm"]["deliveries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["node"].as_u64().unwrap())
        .collect();
    assert_eq!(got, [3, 9, 12]);
    let e = wormcast(&[
        "hypercube",
        "multicast",
        "--src",
        "0",
        "--list",
        "7,6",
        "--routing",
        "ecube",
    ]);
    assert_eq!(e.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&e.stderr).contains("<0: 7, 6> is illegal under e-cube routing")
    );
    let e = wormcast(&["hypercube", "multicast", "--src", "0", "--list", "8"]);
    assert!(String::from_utf8_lossy(&e.stderr).contains("node 8 does not exist"));
}

#[test]
fn mesh3d_plan_of_the_worked_example() {
    let dests = "0,15,31,23,40,56,9,17,38,54,5,21,42,61,50,3,11,28,19,35,59";
    let out = ok(&wormcast(&[
        "mesh3d", "plan", "--dims", "4x4x4", "--source", "1,1,1", "--dests", dests, "--algo", "tp",
        "--json",
    ]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["source"], 25);
    assert_eq!(
        (v["high_channels"].as_u64(), v["low_channels"].as_u64()),
        (Some(28), Some(23))
    );
    assert_eq!(v["max_distance"], 28);
    assert_eq!(v["worms"][0]["list"][0], 28);
    assert_eq!(v["worms"][1]["subnetwork"], "low");
    let out = ok(&wormcast(&[
        "mesh3d", "plan", "--dims", "4x4x4", "--source", "1,1,1", "--dests", dests, "--algo", "sp",
    ]));
    assert!(out.contains("channels: 24 high + 21 low = 45 (44 distinct); largest source-to-destination distance 14 hops"), "{out}");
    assert!(
        out.contains("D_U3 (high subnetwork) {38, 54}: 3 hops: 25 -> 38 -> 41 -> 54"),
        "{out}"
    );
    let e = wormcast(&[
        "mesh3d", "plan", "--dims", "4x4x4", "--source", "4,1,1", "--dests", "3", "--algo", "tp",
    ]);
    assert_eq!(e.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&e.stderr).contains("outside the 4x4x4 mesh"));
}

/// `tree send` in the situation of seed 003 Fig. 6: two multicasts whose
/// trees wait on each other at (3,5) and (3,2).
const FIG6: [&str; 10] = [
    "tree",
    "send",
    "--data",
    "6",
    "--aux",
    "6",
    "--send",
    "6,5>3,0;0,5;3,7",
    "--send",
    "6,2>3,6;1,2;3,1",
];

#[test]
fn tree_send_shows_figure6_with_and_without_pruning() {
    let fig6 = FIG6;
    let out = ok(&wormcast(&fig6));
    assert!(
        out.contains("tree multicast on the 8x8 mesh: all copies delivered by cycle 31"),
        "{out}"
    );
    assert!(
        out.contains("prune: cycle 18: multicast 0 cut 2 branch(es) at (3,5)"),
        "{out}"
    );
    assert!(
        out.contains("multicast 1 (6,2) -> (3,1) at cycle 29: c[(6,2)->(5,2) -x vc0] c[(5,2)->(4,2) -x vc0] c[(4,2)->(3,2) -x vc0] c[(3,2)->(3,1) -y vc0]"),
        "{out}"
    );
    let mut no_prune = fig6.to_vec();
    no_prune.push("--no-prune");
    // A deadlock is a finding: exit status 1, the waiting cycle on standard
    // output after the copies delivered before it; with --json, in the JSON.
    let e = wormcast(&no_prune);
    assert_eq!(e.status.code(), Some(1));
    let text = String::from_utf8_lossy(&e.stdout);
    assert!(
        text.contains("tree multicast on the 8x8 mesh: deadlocked"),
        "{text}"
    );
    assert!(text.contains("8 input channels wait in a cycle"), "{text}");
    no_prune.push("--json");
    let e = wormcast(&no_prune);
    assert_eq!(e.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&e.stdout).unwrap();
    assert_eq!(v["cycles"], serde_json::Value::Null);
    assert_eq!(v["deadlock"]["cycle"], 2021);
    assert_eq!(v["deadlock"]["steps"].as_array().unwrap().len(), 8);
    assert_eq!(v["copies"].as_array().unwrap().len(), 4);
    assert!(
        e.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&e.stderr)
    );
    let out = ok(&wormcast(&[
        "tree",
        "send",
        "--topo",
        "torus:8x8",
        "--send",
        "6,0>1,0",
        "--json",
    ]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    // 6 -> 7 -> 0 on VC 0 (the wrap link is ahead), 0 -> 1 on VC 1.
    assert_eq!(v["copies"][0]["route"][2], "c[(0,0)->(1,0) +x vc1]");
    assert_eq!(v["copies"][0]["cycle"], 3 + 1 + 1);
    let e = wormcast(&["tree", "send", "--data", "5", "--send", "0,0>1,1"]);
    assert_eq!(e.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&e.stderr).contains("does not fit the 4-flit auxiliary buffers")
    );
    let vcd = tmp("tree.vcd");
    ok(&wormcast(&[
        "tree",
        "send",
        "--topo",
        "torus:4x4",
        "--send",
        "0,0>2,1;3,3",
        "--vcd",
        vcd.to_str().unwrap(),
    ]));
    let v = std::fs::read_to_string(&vcd).unwrap();
    assert!(v.starts_with("$version"), "{}", &v[..100]);
    assert!(
        v.contains("$scope module r15 $end") && v.contains(" close $end"),
        "{}",
        &v[..400]
    );
    let e = wormcast(&["tree", "send", "--send", "0,0>8,1"]);
    assert!(String::from_utf8_lossy(&e.stderr).contains("outside the 8x8 mesh"));
}

/// Every command that writes a waveform writes it as FST when the name
/// ends in `.fst` and as VCD otherwise, the same signals and values either
/// way, with a GTKWave save file and a Surfer command file beside it.
#[test]
fn every_waveform_command_writes_fst_or_vcd_with_both_views() {
    for (name, args) in waveform_commands() {
        let mut files = Vec::new();
        for ext in ["vcd", "fst"] {
            let wave = tmp(&format!("views-{name}.{ext}"));
            let w = wave.to_str().unwrap().to_string();
            ok(&wormcast(&with_wave(name, &args, &w)));
            let head = std::fs::read(&wave).unwrap();
            assert_eq!(
                wormcast::wave::detect_format(&head[..16.min(head.len())]),
                if ext == "fst" {
                    wormcast::wave::Format::Fst
                } else {
                    wormcast::wave::Format::Vcd
                },
                "{name}: {w}"
            );
            let gtkw = std::fs::read_to_string(wave.with_extension("gtkw")).unwrap();
            assert!(
                gtkw.contains(&format!("[dumpfile] \"{w}\"")),
                "{name}: {gtkw}"
            );
            let sucl = std::fs::read_to_string(wave.with_extension("sucl")).unwrap();
            assert!(sucl.starts_with(&format!("load_file {w}\n")), "{name}");
            assert!(
                sucl.contains("divider_add ") && sucl.contains("variable_add "),
                "{name}"
            );
            files.push(w);
        }
        let out = ok(&wormcast(&["wave", "diff", &files[0], &files[1]]));
        assert!(out.starts_with("OK: "), "{name}: {out}");
    }
}

/// `--vcd -` writes the VCD to standard output, byte for byte what the
/// same run writes to a file, and what the command prints goes to
/// standard error; no views are written for it (there is nowhere beside
/// standard output to put them).
#[test]
fn every_waveform_command_writes_vcd_to_standard_output() {
    for (name, args) in waveform_commands() {
        let file = tmp(&format!("stdout-{name}.vcd"));
        let f = file.to_str().unwrap();
        let to_file = wormcast(&with_wave(name, &args, f));
        let printed = ok(&to_file);
        let to_stdout = wormcast(&with_wave(name, &args, "-"));
        ok(&to_stdout);
        assert!(
            to_stdout.stdout == std::fs::read(&file).unwrap(),
            "{name}: the VCD on standard output differs from the file's"
        );
        assert!(to_stdout.stdout.starts_with(b"$version"), "{name}");
        // What went to standard output with a file goes to standard error
        // (the wall time and the rate in a run's report differ run to run).
        let err = String::from_utf8_lossy(&to_stdout.stderr);
        for line in printed.lines().filter(|l| !l.contains("wall time")) {
            let line = line.replace(f, "-");
            assert!(err.contains(&line), "{name}: {line:?} not in {err}");
        }
        assert!(!std::path::Path::new("-.gtkw").exists(), "{name}");
        assert!(!std::path::Path::new("-").exists(), "{name}");
    }
}

/// A waveform to something other than a regular file: VCD to a named
/// pipe arrives whole, with no views beside it; `/dev/null` takes one; an
/// FST file, which seeks back to its header, is refused for a pipe at
/// once and by name (not after waiting for a reader); a write that fails
/// names the file.
#[cfg(unix)]
#[test]
fn waveforms_to_pipes_and_devices() {
    let [(name, args), ..] = waveform_commands();
    assert_eq!(name, "run");
    let run = |wave: &str| wormcast(&with_wave(name, &args, wave));
    let dir = tmp("pipes");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("file.vcd");
    ok(&run(file.to_str().unwrap()));
    let want = std::fs::read(&file).unwrap();

    let fifo = dir.join("fifo.vcd");
    let _ = std::fs::remove_file(&fifo);
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success(), "mkfifo");
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    let o = run(fifo.to_str().unwrap());
    ok(&o);
    assert!(reader.join().unwrap() == want, "the VCD through the pipe");
    assert!(!fifo.with_extension("gtkw").exists());
    assert!(!fifo.with_extension("sucl").exists());

    let o = run("/dev/null");
    assert!(ok(&o).contains("accepted throughput"));

    // `/dev/stdout` is taken as `-`: with standard output sent to a
    // regular file, the file holds the VCD alone (opened apart, the VCD
    // and the report would write over each other), and no views go into
    // `/dev`.
    let redirected = dir.join("redirected.vcd");
    let o = Command::new(env!("CARGO_BIN_EXE_wormcast"))
        .args(with_wave(name, &args, "/dev/stdout"))
        .stdout(std::fs::File::create(&redirected).unwrap())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(std::fs::read(&redirected).unwrap() == want, "/dev/stdout");
    assert!(String::from_utf8_lossy(&o.stderr).contains("accepted throughput"));
    assert!(!std::path::Path::new("/dev/stdout.gtkw").exists());

    let fifo_fst = dir.join("fifo.fst");
    let _ = std::fs::remove_file(&fifo_fst);
    assert!(
        Command::new("mkfifo")
            .arg(&fifo_fst)
            .status()
            .unwrap()
            .success()
    );
    let o = run(fifo_fst.to_str().unwrap());
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!(
            "{}: an FST file is written with seeks",
            fifo_fst.display()
        )) && err.contains("write VCD to a pipe"),
        "{err}"
    );

    // `/dev/full` takes the open and fails every write.
    assert!(std::path::Path::new("/dev/full").exists(), "no /dev/full");
    let o = run("/dev/full");
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("/dev/full: No space left on device"), "{err}");
}

/// A waveform whose writing fails part way (here past a file-size limit,
/// as on a full disk) stops every command that writes one with the
/// file's error: an FST, which no reader opens without its end, is
/// removed and the error says so; a VCD, readable as far as it goes, is
/// left; neither gets views beside it (they would be written to the same
/// full disk, and show a file that is not there or cut short).
#[cfg(unix)]
#[test]
fn a_waveform_that_cannot_be_written_whole_is_reported_and_no_views_are_left() {
    let limit = 1024;
    // (`vectors` writes its stimulus, larger than its unit's waveform, first.)
    for (name, args) in waveform_commands().into_iter().filter(|c| c.0 != "vectors") {
        for ext in ["fst", "vcd"] {
            let dir = tmp(&format!("full-{name}-{ext}"));
            std::fs::create_dir_all(&dir).unwrap();
            let wave = dir.join(format!("w.{ext}"));
            let o = within_file_size(limit, &with_wave(name, &args, wave.to_str().unwrap()));
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{name} {ext}: {err}");
            let said = format!("error: {}: File too large (os error 27)", wave.display());
            assert!(err.contains(&said), "{name} {ext}: {err}");
            if ext == "fst" {
                assert!(
                    err.contains("the unfinished FST file was removed"),
                    "{name}: {err}"
                );
                assert!(!wave.exists(), "{name}: the unfinished FST is still there");
            } else {
                let len = std::fs::metadata(&wave)
                    .expect("the VCD as far as it got")
                    .len();
                assert_eq!(len, limit, "{name}");
            }
            for view in ["gtkw", "sucl"] {
                assert!(
                    !wave.with_extension(view).exists(),
                    "{name} {ext}: a .{view}"
                );
            }
        }
    }
}

/// `wormcast args` with files limited to `limit` bytes: past it a write
/// fails with EFBIG, as on a full disk, once SIGXFSZ, which would end the
/// process, is ignored (inherited through exec).
#[cfg(unix)]
fn within_file_size<S: AsRef<std::ffi::OsStr>>(limit: u64, args: &[S]) -> Output {
    let o = Command::new("sh")
        .arg("-c")
        .arg(r#"trap "" XFSZ; exec prlimit --fsize="$0" "$@""#)
        .arg(limit.to_string())
        .arg(env!("CARGO_BIN_EXE_wormcast"))
        .args(args)
        .output()
        .expect("sh");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !err.contains("prlimit: not found") && !err.contains("No such file"),
        "prlimit (util-linux) is needed: {err}"
    );
    o
}

/// A text file whose writing fails part way (past a file-size limit, as
/// on a full disk) is removed, and the error says so: cut short at a
/// line, a topology would read as another network (one cut after its
/// links and its first nodes is read as one with fewer nodes, with no
/// error) and test vectors as a shorter run.
#[cfg(unix)]
#[test]
fn a_text_file_that_cannot_be_written_whole_is_removed() {
    let dir = tmp("full-text");
    std::fs::create_dir_all(&dir).unwrap();
    let (topo, hex) = (dir.join("t.toml"), dir.join("v.hex"));
    let (t, h) = (topo.to_str().unwrap(), hex.to_str().unwrap());
    let mut generate: Vec<&str> = "topo gen --switches 64 --ports 8 --nodes 256 -o"
        .split(' ')
        .collect();
    generate.push(t);
    // Cut at its last blank line in the first 8,192 bytes, the whole file
    // reads as a network of fewer nodes.
    ok(&wormcast(&generate));
    let text = std::fs::read_to_string(&topo).unwrap();
    let cut = dir.join("cut.toml");
    std::fs::write(&cut, &text[..text[..8192].rfind("\n\n").unwrap()]).unwrap();
    let shown = ok(&wormcast(&["topo", "show", cut.to_str().unwrap()]));
    assert!(
        shown.starts_with("64 switches, 89 nodes, 102 links"),
        "{shown}"
    );
    let vectors = [
        "vectors",
        "--unit",
        "ssr-md-decode",
        "--cycles",
        "5000",
        "-o",
        h,
    ];
    for (out, args) in [(&topo, &generate[..]), (&hex, &vectors[..])] {
        let o = within_file_size(8192, args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(
            err.contains(&format!(
                "error: {}: File too large (os error 27); the unfinished file was removed",
                out.display()
            )),
            "{err}"
        );
        assert!(!out.exists(), "{} is still there", out.display());
    }
    assert!(!hex.with_extension("vh").exists());
}

/// `wormcast` with `input` written to its standard input through a pipe.
fn wormcast_fed(args: &[&str], input: Vec<u8>) -> Output {
    common::fed(
        Command::new(env!("CARGO_BIN_EXE_wormcast")).args(args),
        input,
    )
}

/// Waveforms read from standard input (`-`) and from named pipes: the
/// same report as from the files, for VCD (read as it streams) and FST
/// (read whole); a difference is found as from files; one cut short is
/// an error naming standard input; both sides of a diff cannot be `-`.
#[cfg(unix)]
#[test]
fn waveforms_are_read_from_pipes_and_standard_input() {
    let [(name, args), ..] = waveform_commands();
    let dir = tmp("read-pipes");
    std::fs::create_dir_all(&dir).unwrap();
    let (vcd, fst) = (dir.join("a.vcd"), dir.join("a.fst"));
    for w in [&vcd, &fst] {
        ok(&wormcast(&with_wave(name, &args, w.to_str().unwrap())));
    }
    let (v, f) = (vcd.to_str().unwrap(), fst.to_str().unwrap());
    let from_files = ok(&wormcast(&["wave", "diff", v, f, "--json"]));
    let signals = |out: &str| {
        let r: serde_json::Value = serde_json::from_str(out).unwrap();
        assert_eq!(r["mismatches"], 0, "{r:#}");
        r["signals"].as_u64().unwrap()
    };
    let n = signals(&from_files);
    assert!(n > 100, "{from_files}");
    for (input, other) in [(&vcd, f), (&fst, v)] {
        let o = wormcast_fed(
            &["wave", "diff", "-", other, "--json"],
            std::fs::read(input).unwrap(),
        );
        assert_eq!(signals(&ok(&o)), n, "{} on standard input", input.display());
        let o = wormcast_fed(
            &["wave", "diff", other, "-", "--json"],
            std::fs::read(input).unwrap(),
        );
        assert_eq!(
            signals(&ok(&o)),
            n,
            "{} on standard input, second",
            input.display()
        );
    }
    // `wave to-vcd -` writes what it writes of the file.
    let o = wormcast_fed(&["wave", "to-vcd", "-"], std::fs::read(&fst).unwrap());
    assert!(ok(&o) == ok(&wormcast(&["wave", "to-vcd", f])), "to-vcd -");
    // An output that cannot be written is named: the file, or standard
    // output (both were "the VCD output").
    let o = wormcast(&["wave", "to-vcd", f, "-o", "/dev/full"]);
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "error: /dev/full: No space left on device (os error 28)\n"
    );
    let o = Command::new(env!("CARGO_BIN_EXE_wormcast"))
        .args(["wave", "to-vcd", f])
        .stdout(std::fs::File::create("/dev/full").unwrap())
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "error: standard output: No space left on device (os error 28)\n"
    );

    // A named pipe, for each format.
    for input in [&vcd, &fst] {
        let fifo = dir.join("fifo");
        let _ = std::fs::remove_file(&fifo);
        assert!(
            Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        let writer = {
            let (fifo, bytes) = (fifo.clone(), std::fs::read(input).unwrap());
            std::thread::spawn(move || std::fs::write(fifo, bytes))
        };
        // A reader that opened the pipe twice would wait for a second
        // writer for ever: the run is given a minute, then fails.
        let mut child = Command::new(env!("CARGO_BIN_EXE_wormcast"))
            .args(["wave", "diff", fifo.to_str().unwrap(), v, "--json"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let start = std::time::Instant::now();
        while child.try_wait().unwrap().is_none() {
            if start.elapsed() > std::time::Duration::from_secs(60) {
                child.kill().unwrap();
                panic!(
                    "{}: no answer through a named pipe in a minute",
                    input.display()
                );
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let o = child.wait_with_output().unwrap();
        let out = ok(&o);
        // Only now: a writer whose pipe was never opened waits for ever.
        let wrote = writer.join().unwrap();
        assert!(wrote.is_ok(), "the pipe's writer: {wrote:?}");
        assert_eq!(signals(&out), n, "{} through a named pipe", input.display());
    }

    // Another run's waveform on standard input differs, as its file does.
    let other = dir.join("other.vcd");
    let mut a = with_wave(name, &args, other.to_str().unwrap());
    let load = a.iter().position(|x| x == "--load").unwrap();
    a[load + 1] = "0.08".into();
    ok(&wormcast(&a));
    let o = wormcast_fed(&["wave", "diff", v, "-"], std::fs::read(&other).unwrap());
    assert_eq!(o.status.code(), Some(1));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.starts_with("MISMATCH: "), "{out}");
    assert_eq!(
        out,
        String::from_utf8_lossy(&wormcast(&["wave", "diff", v, other.to_str().unwrap()]).stdout)
    );

    // A device that never ends and says it is FST is refused at its
    // first bytes, not read whole.
    let o = wormcast(&["wave", "diff", "/dev/zero", v]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("/dev/zero: malformed FST: the header block is 0 bytes, not 329"),
        "{err}"
    );

    // Cut short, and both sides `-`.
    let head = std::fs::read(&vcd).unwrap()[..3000].to_vec();
    let o = wormcast_fed(&["wave", "diff", "-", v], head);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.starts_with("error: standard input: line "), "{err}");
    let o = wormcast_fed(&["wave", "diff", "-", "-"], std::fs::read(&vcd).unwrap());
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .contains("only one of them can be read from standard input")
    );
}

/// The commands that write a waveform, each with the arguments of a small
/// run (the waveform's option and path added by [`with_wave`]).
fn waveform_commands() -> [(&'static str, Vec<&'static str>); 7] {
    let fig14 = concat!(env!("CARGO_MANIFEST_DIR"), "/topologies/fig14.toml");
    [
        (
            "run",
            vec![
                "run",
                "--traffic",
                "uniform",
                "--load",
                "0.05",
                "--packet",
                "8",
                "--cycles",
                "300",
                "--warmup",
                "0",
                "--quiet",
            ],
        ),
        (
            "multicast",
            vec!["multicast", "--src", "0", "--dests", "3,9", "--t-hs", "20"],
        ),
        (
            "plan",
            vec![
                "plan",
                "--topology",
                fig14,
                "--source",
                "20",
                "--dests",
                "10,11",
                "--scheme",
                "tree",
                "--run",
            ],
        ),
        (
            "vectors",
            vec!["vectors", "--unit", "ssr-md-decode", "--cycles", "50", "-o"],
        ),
        (
            "hypercube",
            vec![
                "hypercube",
                "multicast",
                "--dims",
                "3",
                "--src",
                "0",
                "--list",
                "3,6,7",
            ],
        ),
        (
            "mesh3d",
            vec![
                "mesh3d", "plan", "--dims", "3x3x3", "--source", "1,1,1", "--dests", "0,20,26",
            ],
        ),
        (
            "tree",
            vec![
                "tree",
                "send",
                "--topo",
                "mesh:4x4",
                "--send",
                "0,0>3,0;0,3",
            ],
        ),
    ]
}

/// `args` of command `name` ([`waveform_commands`]) with its waveform
/// option naming `wave`.
fn with_wave(name: &str, args: &[&str], wave: &str) -> Vec<String> {
    let fig14 = concat!(env!("CARGO_MANIFEST_DIR"), "/topologies/fig14.toml");
    let mut a: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    if name == "vectors" {
        a.push(tmp("views.hex").to_str().unwrap().to_string());
        a.push("--model-vcd".into());
    } else if name == "run" {
        a.extend(["--topology".into(), fig14.into(), "--vcd".into()]);
    } else {
        a.push("--vcd".into());
    }
    a.push(wave.to_string());
    a
}

/// Output to a closed pipe ends the tool quietly (the issue's `wormcast
/// reach big.toml | head -1`), with no panic and nothing on standard error.
#[test]
fn a_closed_pipe_ends_quietly() {
    use std::io::{BufRead, BufReader};
    let topo = tmp("pipe.toml");
    ok(&wormcast(&[
        "topo",
        "gen",
        "--switches",
        "64",
        "--ports",
        "8",
        "--nodes",
        "200",
        "--seed",
        "2",
        "-o",
        topo.to_str().unwrap(),
    ]));
    for json in [false, true] {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_wormcast"));
        cmd.args(["reach", topo.to_str().unwrap()]);
        if json {
            cmd.arg("--json");
        }
        let mut child = cmd
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        assert!(!first.is_empty());
        // The pipe is closed here, with most of the output unread.
        let o = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.is_empty(), "stderr: {err}");
        #[cfg(unix)]
        {
            use std::os::unix::process::ExitStatusExt;
            assert!(
                o.status.success() || o.status.signal() == Some(13),
                "{:?}",
                o.status
            );
        }
    }
}

/// Sizes that made the tool hang or write times that go backwards are
/// answered at once or refused.
#[test]
fn huge_multicast_sets_and_clock_periods() {
    let out = ok(&wormcast(&["kbinomial", "--nodes", "4294967295"]));
    assert!(out.contains("optimal k = 31, L1 = 32"), "{out}");
    let o = wormcast(&["kbinomial", "--nodes", "4294967296"]);
    assert_eq!(o.status.code(), Some(2));
    let o = wormcast(&["kbinomial", "--nodes", "100000000", "--table"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("more than 2^24 entries"));
    let cfg = tmp("slow.toml");
    std::fs::write(&cfg, "cycle_ns = 1e300\n").unwrap();
    let topo = tmp("slow-net.toml");
    ok(&wormcast(&[
        "topo",
        "gen",
        "--seed",
        "1",
        "-o",
        topo.to_str().unwrap(),
    ]));
    let o = wormcast(&[
        "run",
        "--topology",
        topo.to_str().unwrap(),
        "--config",
        cfg.to_str().unwrap(),
        "--traffic",
        "uniform",
        "--load",
        "0.01",
        "--cycles",
        "100",
        "--warmup",
        "0",
        "--quiet",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("cycle_ns") && err.contains("from 1 ps to 1 s"),
        "{err}"
    );
}

/// `run` says which clauses of the saturation rule a point met, and a
/// short run from a cold start at a light load (3,000 cycles of 128-flit
/// packets at 0.1 on the 8x8 mesh, wormhole routers) meets none: it was
/// called saturated, with "accepted below 95% of offered, or sources
/// refused packets", while it accepted 91% of the offer over the whole
/// window and every message but the 18 still in flight.
#[test]
fn run_names_the_clauses_of_saturation_it_met() {
    let run = |load: &str| {
        let out = ok(&wormcast(&[
            "run",
            "--topology",
            "mesh:8x8",
            "--router",
            "wormhole",
            "--traffic",
            "uniform",
            "--load",
            load,
            "--seed",
            "1",
            "--warmup",
            "0",
            "--cycles",
            "3000",
        ]));
        out.lines()
            .find(|l| l.starts_with("generated "))
            .unwrap_or_else(|| panic!("no totals:\n{out}"))
            .to_string()
    };
    assert_eq!(
        run("0.1"),
        "generated 137 packets, delivered 119, refused 0 at full sources, 18 in flight at the end"
    );
    let over = run("0.4");
    let (_, why) = over
        .split_once("; saturated: ")
        .unwrap_or_else(|| panic!("{over}"));
    assert!(
        why.starts_with("accepted ") && why.contains("% of the copy flits offered, below 89.0%"),
        "{why}"
    );
    assert!(why.contains(", the backlog grew from "), "{why}");
    assert!(why.ends_with(" messages"), "{why}");
}

/// A saturated irregular network once ran into "deadlock
/// suspected" at cycle 22,528 and exited 2 without statistics. It is
/// saturated, not deadlocked: the run completes, prints its statistics and
/// warns with the longest wait.
#[test]
fn a_saturated_run_completes_and_warns_of_its_longest_wait() {
    let net = tmp("sat16.toml");
    let p = net.to_str().unwrap();
    ok(&wormcast(&[
        "topo",
        "gen",
        "--switches",
        "16",
        "--ports",
        "8",
        "--nodes",
        "64",
        "--seed",
        "1",
        "-o",
        p,
    ]));
    let out = ok(&wormcast(&[
        "run",
        "--topology",
        p,
        "--load",
        "0.6",
        "--warmup",
        "0",
        "--cycles",
        "300000",
    ]));
    assert!(
        out.contains("cycles 300000 (warm-up 0, measured 300000), 64 nodes"),
        "{out}"
    );
    let warning = out
        .lines()
        .find(|l| l.starts_with("warning: the longest wait seen: "))
        .unwrap_or_else(|| panic!("no warning:\n{out}"));
    assert!(
        warning.ends_with("so the network is saturated, not deadlocked"),
        "{warning}"
    );
    let json = ok(&wormcast(&[
        "run",
        "--topology",
        p,
        "--load",
        "0.6",
        "--warmup",
        "0",
        "--cycles",
        "30000",
        "--json",
    ]));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(
        v["longest_wait"]["waited"].as_u64().unwrap() > 20_000,
        "{v}"
    );
    assert!(v["longest_wait"]["stall"]["location"].is_string(), "{v}");
}

/// `run` checks its inputs as every other command does: a destination list
/// that names the source or a node twice is refused, as in plan,
/// multicast, hypercube and tree; a degree no worm can reach is refused;
/// an option the traffic pattern does not use is refused rather than
/// ignored; and the output says how many destinations the worms reached.
#[test]
fn run_refuses_what_it_cannot_do_as_asked() {
    let net = tmp("validate.toml");
    let p = net.to_str().unwrap();
    ok(&wormcast(&["topo", "gen", "--seed", "1", "-o", p]));
    let refused = |args: &[&str], want: &str| {
        let mut a = vec!["run", "--topology", p];
        a.extend_from_slice(args);
        let o = wormcast(&a);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().last().unwrap(), want, "{args:?}");
        assert!(o.stdout.is_empty(), "{args:?}");
    };
    let worm = ["--traffic", "worm", "--src", "0"];
    refused(
        &[&worm[..], &["--dests", "0,1,2"]].concat(),
        "error: bad destination list: the source 0 is among its own destinations",
    );
    refused(
        &[&worm[..], &["--dests", "5,5,5"]].concat(),
        "error: bad destination list: node 5 is listed twice among the destinations",
    );
    refused(
        &[&worm[..], &["--worm", "ssr", "--dests", "1,1"]].concat(),
        "error: bad destination list: node 1 is listed twice among the destinations",
    );
    refused(
        &[
            "--traffic",
            "multicast",
            "--worm",
            "unicast",
            "--degree",
            "3",
        ],
        "error: configuration: degree = 3: a unicast worm has one destination: give degree 1 or another worm kind",
    );
    refused(
        &["--traffic", "multicast", "--degree", "40"],
        "error: configuration: degree = 40: a worm reaches at most the 31 other nodes of the network",
    );
    refused(
        &["--traffic", "multicast", "--worm", "ssr", "--degree", "5"],
        "error: configuration: degree = 5: an SSR worm's destinations are on one switch, and no switch has more than 4 nodes",
    );
    refused(
        &["--dests", "3,4"],
        "error: configuration: traffic = uniform: --dests does not apply to --traffic uniform (it is for --traffic worm)",
    );
    refused(
        &["--traffic", "single", "--degree", "3"],
        "error: configuration: traffic = single: --degree does not apply to --traffic single (it is for --traffic multicast)",
    );
    refused(
        &["--traffic", "multicast", "--packet", "64"],
        "error: configuration: traffic = multicast: --packet does not apply to --traffic multicast (it is for --traffic uniform or single)",
    );
    refused(
        &[&worm[..], &["--dests", "9", "--path", "2"]].concat(),
        "error: configuration: path = 2: --path is for --worm multi-drop",
    );
    // An option of another router model's hardware changes nothing, so
    // it is refused with the router the run would use.
    refused(
        &["--startup", "5"],
        &format!(
            "error: configuration: router = cut-through: --startup is an option of the wormhole and the tree router, and this run's router is cut-through (the default on {p}): give --router, or leave the option out"
        ),
    );
    // A stop rule that no interval can meet is refused, not run to the
    // end and reported as not met.
    for r in ["0", "-0.05", "NaN", "inf"] {
        refused(
            &["--stop-rule", r],
            &format!(
                "error: configuration: stop_rule = {}: a stop rule is a fraction of the mean latency, finite and above 0 (e.g. 0.05)",
                r.parse::<f64>().unwrap()
            ),
        );
    }
    // What was run: multi-drop worms asked for 8 destinations reach fewer
    // (those along one route), and the output says how many, in the units
    // of both loads.
    let out = ok(&wormcast(&[
        "run",
        "--topology",
        p,
        "--traffic",
        "multicast",
        "--worm",
        "multi-drop",
        "--degree",
        "8",
        "--load",
        "0.05",
        "--cycles",
        "20000",
        "--warmup",
        "1000",
        "--json",
    ]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["traffic"]["degree"], 8);
    let d = v["dests_per_packet"].as_f64().unwrap();
    assert!(d > 1.0 && d < 8.0, "{v}");
    let (offered, copies) = (
        v["offered_load"].as_f64().unwrap(),
        v["offered_copy_load"].as_f64().unwrap(),
    );
    assert!(copies > 1.5 * offered && copies < 8.0 * offered, "{v}");
    let text = ok(&wormcast(&[
        "run",
        "--topology",
        p,
        "--traffic",
        "multicast",
        "--degree",
        "4",
        "--load",
        "0.02",
        "--cycles",
        "20000",
        "--warmup",
        "1000",
    ]));
    let line = text
        .lines()
        .find(|l| l.starts_with("offered load"))
        .unwrap();
    assert!(
        line.contains("flits/node/cycle injected (4.00 destinations per worm)")
            && line.contains("to deliver; accepted throughput")
            && line.ends_with("flits/node/cycle delivered (each copy counted)"),
        "{line}"
    );
}

/// A file that does not parse is named once, with the line and column.
#[test]
fn a_broken_file_is_named_once_with_its_line() {
    let f = tmp("broken.toml");
    std::fs::write(&f, "garbage = [").unwrap();
    let p = f.to_str().unwrap();
    let want = format!("error: {p}: line 1, column 12: unclosed array, expected `]`");
    for args in [
        vec!["topo", "show", p],
        vec!["reach", p],
        vec!["run", "--topology", p],
        vec!["multicast", "--topology", p],
        vec!["multicast", "--config", p],
    ] {
        let o = wormcast(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&o.stderr).trim_end(),
            want,
            "{args:?}"
        );
    }
}

/// Selective pruning and releasing a branch on a turn from the command
/// line: in the Fig. 6 situation selective pruning cuts one branch per
/// message (both complete by cycle 35); released on a turn, no pruning is
/// needed at all (by cycle 27, four early releases); `run` reports the
/// counters; a bad value is refused naming the valid ones.
#[test]
fn tree_variants_from_the_command_line() {
    let fig6 = FIG6;
    let mut sel = fig6.to_vec();
    sel.push("--selective-prune");
    let out = ok(&wormcast(&sel));
    assert!(out.contains("all copies delivered by cycle 35"), "{out}");
    assert!(
        out.contains("prune: cycle 22: multicast 1 cut 1 branch(es) at (3,2)")
            && out.contains("prune: cycle 22: multicast 0 cut 1 branch(es) at (3,5)"),
        "{out}"
    );
    let mut turn = fig6.to_vec();
    turn.extend(["--no-prune", "--release", "turn"]);
    let out = ok(&wormcast(&turn));
    assert!(out.contains("all copies delivered by cycle 27"), "{out}");
    assert!(
        out.contains("0 prunes cutting 0 branches, 4 branches released early"),
        "{out}"
    );
    let run = [
        "run",
        "--topology",
        "mesh:4x4",
        "--router",
        "tree",
        "--traffic",
        "multicast",
        "--degree",
        "6",
        "--packet",
        "2",
        "--load",
        "0.02",
        "--cycles",
        "3000",
        "--warmup",
        "500",
        "--json",
    ];
    let mut r = run.to_vec();
    r.extend(["--release", "turn"]);
    let v: serde_json::Value = serde_json::from_str(&ok(&wormcast(&r))).unwrap();
    assert_eq!(v["events"]["prunes"], 0);
    assert!(v["events"]["early_releases"].as_u64().unwrap() > 100, "{v}");
    let mut r = run.to_vec();
    r.push("--selective-prune");
    let v: serde_json::Value = serde_json::from_str(&ok(&wormcast(&r))).unwrap();
    assert_eq!(v["events"]["early_releases"], 0);
    let e = wormcast(&[
        "run",
        "--topology",
        "mesh:4x4",
        "--router",
        "tree",
        "--release",
        "sideways",
    ]);
    assert_eq!(e.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&e.stderr).contains("[possible values: end, turn]"));
    let bad = tmp("bad-release.toml");
    std::fs::write(
        &bad,
        "[network]\ntopology = \"mesh:4x4\"\n[tree]\nrelease = \"sideways\"\n",
    )
    .unwrap();
    let e = wormcast(&["run", "--config", bad.to_str().unwrap()]);
    assert_eq!(e.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&e.stderr)
            .contains("unknown variant `sideways`, expected `end` or `turn`")
    );
    let e = wormcast(&[
        "tree",
        "experiment",
        "--variant",
        "nope",
        "--out",
        tmp("nope").to_str().unwrap(),
    ]);
    assert_eq!(e.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&e.stderr).contains(
        "one of base, stall-4, stall-16, buffer-8, spread, startup-10, selective, release-turn"
    ));
}

/// A network that does not drain in the cycles given is a finding, not a
/// model fault: exit status 1, the count of outstanding messages named.
#[test]
fn a_run_that_does_not_drain_is_a_finding() {
    let e = wormcast(&[
        "run",
        "--topology",
        "mesh:4x4",
        "--traffic",
        "uniform",
        "--load",
        "0.9",
        "--packet",
        "20",
        "--cycles",
        "3000",
        "--warmup",
        "500",
        "--drain",
        "10",
    ]);
    assert_eq!(e.status.code(), Some(1));
    let err = String::from_utf8_lossy(&e.stderr);
    assert!(
        err.starts_with("the network did not drain within 10 cycles (")
            && err.contains(" messages outstanding) at cycle 3010"),
        "{err}"
    );
    assert!(!err.contains("model fault"), "{err}");
}

/// Runs a light load of 20-flit packets on a generated irregular network
/// of `switches` switches and `nodes` nodes, drains it, and checks that
/// every packet made arrived (more than `least` of them).
fn large_network_delivers(switches: u32, nodes: u32, load: &str, cycles: &str, least: u64) {
    let topology = format!("irregular:switches={switches},ports=8,nodes={nodes}");
    let o = ok(&wormcast(&[
        "run",
        "--topology",
        &topology,
        "--load",
        load,
        "--packet",
        "20",
        "--cycles",
        cycles,
        "--warmup",
        "100",
        "--drain",
        "20000",
        "--json",
    ]));
    let r: serde_json::Value = serde_json::from_str(&o).unwrap();
    assert_eq!(r["nodes"], nodes);
    assert_eq!(r["in_flight"], 0, "drained");
    assert_eq!(r["saturated"], false, "{o}");
    let delivered = r["delivered"].as_u64().unwrap();
    assert!(delivered > least, "{o}");
    assert_eq!(r["generated"].as_u64().unwrap(), delivered, "{o}");
}

/// 4,096 switches (16,384 nodes) were refused ("at most 1024") after 12 s
/// of setup; they run, and every packet of a light load arrives.
#[test]
fn a_network_of_4096_switches_runs_from_the_command_line() {
    large_network_delivers(4096, 16384, "0.0004", "3000", 500);
}

/// 16,384 switches (65,536 nodes) run too: no limit below what memory
/// allows (their routing tables take 512 MB), every packet of a light
/// load delivered.
#[test]
fn a_network_of_16384_switches_runs_from_the_command_line() {
    large_network_delivers(16384, 65536, "0.0001", "1000", 100);
}

/// An output named as a file the same command reads is refused before
/// anything is written, and the input is left as it was: the waveform of
/// `run` over its topology file (by another name too: `./` and a symbolic
/// link), its configuration (`--vcd` or the file's own `output.vcd`), its
/// trace or its permutation; of `plan --run` over its topology; and `wave
/// to-vcd` of an FST over itself (which replaced the FST with a broken
/// VCD before).
#[test]
fn an_output_over_its_own_input_is_refused() {
    let dir = tmp("own-input");
    std::fs::create_dir_all(&dir).unwrap();
    let at = |name: &str| dir.join(name).to_str().unwrap().to_string();
    ok(&wormcast(&[
        "topo",
        "gen",
        "--switches",
        "4",
        "--ports",
        "8",
        "--nodes",
        "8",
        "-o",
        &at("net.toml"),
    ]));
    std::fs::write(dir.join("trace.csv"), "0,0,1,4\n").unwrap();
    std::fs::write(dir.join("perm.txt"), "1\n0\n3\n2\n5\n4\n7\n6\n").unwrap();
    std::fs::write(
        dir.join("cfg.toml"),
        format!(
            "[network]\ntopology = {:?}\n[output]\nvcd = {:?}\n[stats]\ncycles = 100\nwarmup = 0\n",
            at("net.toml"),
            at("cfg.toml")
        ),
    )
    .unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(dir.join("net.toml"), dir.join("link.vcd")).unwrap();
    let dot = format!("{}/./net.toml", dir.display());
    let short = [
        "--load", "0.05", "--packet", "4", "--cycles", "100", "--warmup", "0",
    ];
    let mut cases: Vec<(Vec<String>, &str, &str)> = vec![
        (
            vec!["--topology".into(), at("net.toml"), "--vcd".into(), dot],
            "vcd",
            "net.toml",
        ),
        (
            vec!["--config".into(), at("cfg.toml")],
            "output.vcd",
            "cfg.toml",
        ),
        (
            vec![
                "--config".into(),
                at("cfg.toml"),
                "--vcd".into(),
                at("cfg.toml"),
            ],
            "vcd",
            "cfg.toml",
        ),
        (
            vec![
                "--topology".into(),
                "mesh:2x2".into(),
                "--router".into(),
                "wormhole".into(),
                "--trace".into(),
                at("trace.csv"),
                "--vcd".into(),
                at("trace.csv"),
            ],
            "vcd",
            "trace.csv",
        ),
        (
            vec![
                "--topology".into(),
                at("net.toml"),
                "--traffic".into(),
                format!("permutation:{}", at("perm.txt")),
                "--vcd".into(),
                at("perm.txt"),
            ],
            "output.vcd",
            "perm.txt",
        ),
    ];
    #[cfg(unix)]
    cases.push((
        vec![
            "--topology".into(),
            at("net.toml"),
            "--vcd".into(),
            at("link.vcd"),
        ],
        "vcd",
        "net.toml",
    ));
    for (args, field, input) in cases {
        let before = std::fs::read(dir.join(input)).unwrap();
        let mut all: Vec<String> = vec!["run".into()];
        all.extend(args.iter().cloned());
        if !args.contains(&"--config".to_string()) && !args.contains(&"--trace".to_string()) {
            all.extend(short.iter().map(|s| s.to_string()));
        }
        let o = wormcast(&all);
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{all:?}: {e}");
        assert!(
            e.contains(&format!("{field} = ")) && e.contains("which this command reads"),
            "{all:?}: {e}"
        );
        assert!(
            std::fs::read(dir.join(input)).unwrap() == before,
            "{all:?}: {input} changed"
        );
    }
    // The same run to another path goes ahead.
    ok(&wormcast(&[
        "run",
        "--topology",
        &at("net.toml"),
        "--vcd",
        &at("run.fst"),
        "--load",
        "0.05",
        "--packet",
        "4",
        "--cycles",
        "100",
        "--warmup",
        "0",
    ]));
    let net = std::fs::read(dir.join("net.toml")).unwrap();
    let o = wormcast(&[
        "plan",
        "--topology",
        &at("net.toml"),
        "--run",
        "--vcd",
        &at("net.toml"),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(std::fs::read(dir.join("net.toml")).unwrap() == net);
    let fst = std::fs::read(dir.join("run.fst")).unwrap();
    let o = wormcast(&["wave", "to-vcd", &at("run.fst"), "-o", &at("run.fst")]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("output = ") && e.contains("which this command reads"),
        "{e}"
    );
    assert!(
        std::fs::read(dir.join("run.fst")).unwrap() == fst,
        "the FST changed"
    );
    ok(&wormcast(&[
        "wave",
        "to-vcd",
        &at("run.fst"),
        "-o",
        &at("run.vcd"),
    ]));
}

/// `vectors` writes two files and, with `--model-vcd`, a third: a name
/// that would put two of them at one path is refused before anything is
/// written (before, `-o v.hex --model-vcd v.hex` left a VCD where the
/// testbench reads its vectors, and `-o v.vh` replaced the vectors with
/// the defines, both reported as written).
#[test]
fn vectors_refuse_to_write_two_files_at_one_path() {
    let dir = tmp("vectors-paths");
    std::fs::create_dir_all(&dir).unwrap();
    let at = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let run = |extra: &[String]| {
        let mut all: Vec<String> = ["vectors", "--unit", "bitstring-decode", "--cycles", "20"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        all.extend(extra.iter().cloned());
        wormcast(&all)
    };
    for (extra, field) in [
        (
            vec!["-o".into(), at("v.hex"), "--model-vcd".into(), at("v.hex")],
            "model-vcd",
        ),
        (
            vec![
                "-o".into(),
                at("v.hex"),
                "--model-vcd".into(),
                format!("{}/./v.vh", dir.display()),
            ],
            "model-vcd",
        ),
        (vec!["-o".into(), at("v.vh")], "output"),
    ] {
        let o = run(&extra);
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {e}");
        assert!(
            e.starts_with(&format!("error: configuration: {field} = ")),
            "{extra:?}: {e}"
        );
        assert!(
            !dir.join("v.hex").exists() && !dir.join("v.vh").exists(),
            "{extra:?}"
        );
    }
    ok(&run(&[
        "-o".into(),
        at("v.hex"),
        "--model-vcd".into(),
        at("v.vcd"),
    ]));
    let hex = std::fs::read_to_string(dir.join("v.hex")).unwrap();
    assert_eq!(hex.lines().count(), 20);
    assert!(
        hex.lines()
            .all(|l| l.chars().all(|c| c.is_ascii_hexdigit())),
        "{hex}"
    );
    assert!(
        std::fs::read_to_string(dir.join("v.vh"))
            .unwrap()
            .contains("`define VEC_CYCLES 20")
    );
    assert!(
        std::fs::read_to_string(dir.join("v.vcd"))
            .unwrap()
            .starts_with("$version")
    );
}

/// The GTKWave save file beside a waveform is wormcast's to rewrite only
/// while it is wormcast's: once GTKWave has saved a user's arrangement
/// there, a run writes the new waveform and its Surfer view and keeps the
/// save file as it is, saying so on standard error (before, every run
/// replaced it).
#[test]
fn a_gtkwave_save_file_a_user_saved_is_kept() {
    let dir = tmp("kept-gtkw");
    std::fs::create_dir_all(&dir).unwrap();
    let vcd = dir.join("w.vcd");
    let (gtkw, sucl) = (dir.join("w.gtkw"), dir.join("w.sucl"));
    let run = |cycles: &str| {
        wormcast(&[
            "run",
            "--topology",
            "mesh:2x2",
            "--load",
            "0.1",
            "--packet",
            "4",
            "--cycles",
            cycles,
            "--warmup",
            "0",
            "--vcd",
            vcd.to_str().unwrap(),
            "--json",
        ])
    };
    ok(&run("50"));
    let ours = std::fs::read_to_string(&gtkw).unwrap();
    assert!(ours.starts_with(wormcast::wave::GTKW_MARK), "{ours}");
    let saved = "[*]\n[*] GTKWave Analyzer v3.3.118 (w)1999-2023 BSI\n[dumpfile] \"w.vcd\"\n@28\ntop.r0.clk\n";
    std::fs::write(&gtkw, saved).unwrap();
    std::fs::remove_file(&sucl).unwrap();
    let o = run("60");
    let out = ok(&o);
    assert!(
        serde_json::from_str::<serde_json::Value>(&out).is_ok(),
        "{out}"
    );
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("w.gtkw was left as it was"), "{e}");
    assert_eq!(std::fs::read_to_string(&gtkw).unwrap(), saved);
    assert!(
        std::fs::read_to_string(&sucl)
            .unwrap()
            .starts_with("load_file ")
    );
    // A save file wormcast wrote is rewritten without a word.
    std::fs::write(&gtkw, &ours).unwrap();
    let o = run("50");
    ok(&o);
    assert!(!String::from_utf8_lossy(&o.stderr).contains("left as it was"));
    assert_eq!(std::fs::read_to_string(&gtkw).unwrap(), ours);
}

/// A stop rule that ends a run without an interval (no copy of a measured
/// message arrived) says so, where it used to quote a half-width of
/// "inf%"; one that is met quotes its half-width.
#[test]
fn a_stop_rule_without_an_interval_says_so() {
    let run = |load: &str| {
        ok(&wormcast(&[
            "run",
            "--topology",
            "mesh:4x4",
            "--packet",
            "5",
            "--cycles",
            "4000",
            "--warmup",
            "0",
            "--load",
            load,
            "--stop-rule",
            "0.5",
            "-q",
        ]))
    };
    let none = run("1e-300");
    assert!(none.contains("generated 0 packets"), "{none}");
    assert!(
        none.contains(
            "stop rule not met within --cycles: no interval of the mean latency to compare\n"
        ),
        "{none}"
    );
    assert!(!none.contains("inf%"), "{none}");
    let met = run("0.1");
    let line = met
        .lines()
        .find(|l| l.starts_with("stop rule met: half-width "))
        .unwrap_or_else(|| panic!("{met}"));
    assert!(line.ends_with("% of the mean latency"), "{line}");
}

/// `--batches 1` was told "an interval needs at least 2 batches", and
/// `--batches 2`, as told, was then refused too: without a stop rule the
/// last batch is left out, so 3 are needed, and 1 is now told so. With a
/// stop rule 2 do (the run goes on until it has them), and 1 is told that.
#[test]
fn too_few_batches_are_told_how_many_would_do() {
    let base = [
        "run",
        "--topology",
        "mesh:4x4",
        "--packet",
        "5",
        "--load",
        "0.1",
        "--cycles",
        "3000",
        "--warmup",
        "0",
        "-q",
    ];
    let three = "give 3 or more, or a stop rule";
    for b in ["0", "1", "2"] {
        refused(
            &[&base[..], &["--batches", b]].concat(),
            &format!(
                "error: configuration: batches = {b}: an interval needs at least 2 batches \
                 besides the last, which is left out (its messages may not have arrived): {three}"
            ),
        );
    }
    let rule = [&base[..], &["--stop-rule", "0.5"]].concat();
    for b in ["0", "1"] {
        refused(
            &[&rule[..], &["--batches", b]].concat(),
            &format!(
                "error: configuration: batches = {b}: an interval needs at least 2 batches (a run with a stop rule goes on until it has them)\n"
            ),
        );
    }
    let r: serde_json::Value = serde_json::from_str(&ok(&wormcast(
        &[&rule[..], &["--batches", "2", "--json"]].concat(),
    )))
    .unwrap();
    // The rule is met once an interval of 2 or more batches is narrow
    // enough; this run's first such interval has 3.
    assert_eq!(r["stop_rule_met"], true, "{r}");
    assert_eq!(r["interval"]["batches"], 3, "{r}");
    let r: serde_json::Value = serde_json::from_str(&ok(&wormcast(
        &[&base[..], &["--batches", "3", "--json"]].concat(),
    )))
    .unwrap();
    assert_eq!(r["interval"]["batches"], 2, "{r}");
}

/// A stop rule without `--batch-cycles` cut the measured cycles into
/// `--batches` batches, of which the last is always left out: it needed
/// `--batches` of them and could never be met, and a run at a half-width
/// of 0.47% against a rule of 50% said "not met". Its batches are now a
/// tenth as long, and a rule that no run of that length could meet is
/// refused before the run.
#[test]
fn a_stop_rule_without_batch_cycles_can_be_met() {
    let base = [
        "run",
        "--topology",
        "mesh:4x4",
        "--packet",
        "5",
        "--load",
        "0.1",
        "--stop-rule",
        "0.5",
        "-q",
        "--json",
    ];
    let r: serde_json::Value = serde_json::from_str(&ok(&wormcast(&base))).unwrap();
    assert_eq!(r["stop_rule_met"], true, "{r}");
    // Batches of 150,000 / (10 x 10) cycles: it stops at the first
    // boundary with 10 batches besides the last, 11 of them.
    assert_eq!(r["measured_cycles"], 11 * 1_500, "{r}");
    assert_eq!(r["interval"]["batches"], 10, "{r}");
    // Batches given: the measured cycles must hold one more than the
    // fewest.
    refused(
        &[&base[..], &["--batch-cycles", "15000"]].concat(),
        "error: configuration: batch_cycles = 15000: the 150000 measured cycles hold 10 batches of 15000, and the stop rule needs 10 of them besides the last",
    );
    let r: serde_json::Value = serde_json::from_str(&ok(&wormcast(
        &[&base[..], &["--batch-cycles", "13636"]].concat(),
    )))
    .unwrap();
    assert_eq!(r["stop_rule_met"], true, "{r}");
    assert_eq!(r["measured_cycles"], 11 * 13_636, "{r}");
    refused(
        &[&base[..], &["--cycles", "10", "--warmup", "0"]].concat(),
        "error: configuration: batch_cycles = 1: the 10 measured cycles hold 10 batches of 1",
    );
    // A batch longer than the measured run, or of no cycle, names the run.
    for (batch, run) in [("150001", "150000"), ("0", "150000"), ("901", "900")] {
        let mut args = vec!["run", "--topology", "mesh:4x4", "--batch-cycles", batch];
        if run == "900" {
            args.extend(["--cycles", "1000", "--warmup", "100"]);
        }
        refused(
            &args,
            &format!(
                "error: configuration: batch_cycles = {batch}: a batch is 1 cycle to the whole \
                 measured run ({run} cycles)"
            ),
        );
    }
}

/// The interval is of the stop metric's mean, and the text puts it on that
/// metric's line: with `--stop-metric network-latency` it stood on the
/// creation-to-tail line (+-0.29 beside a mean of 147, the half-width of a
/// network latency of 26). Hosts with network interfaces record no network
/// latency, and the metric is refused for them: a stop rule "met at 2.46%
/// of the mean network-latency" was a creation-to-tail interval under
/// another name.
#[test]
fn an_interval_stands_beside_the_latency_it_is_of() {
    let run = |metric: &str| {
        ok(&wormcast(&[
            "run",
            "--topology",
            "hypercube:4",
            "--packet",
            "5",
            "--load",
            "0.1",
            "--traffic",
            "multicast",
            "--degree",
            "3",
            "--cycles",
            "20000",
            "--warmup",
            "2000",
            "--stop-metric",
            metric,
            "-q",
        ]))
    };
    for (metric, with, without) in [
        (
            "latency",
            "latency (creation to tail): ",
            "network latency (first flit in to tail): ",
        ),
        (
            "network-latency",
            "network latency (first flit in to tail): ",
            "latency (creation to tail): ",
        ),
    ] {
        let out = run(metric);
        let line = |start: &str| {
            out.lines()
                .find(|l| l.starts_with(start))
                .unwrap_or_else(|| panic!("{out}"))
                .to_string()
        };
        assert!(line(with).contains("; 95% interval +-"), "{metric}: {out}");
        assert!(!line(without).contains("interval"), "{metric}: {out}");
    }
    refused(
        &[
            "run",
            "--topology",
            "irregular:switches=8,ports=8,nodes=32",
            "--node-model",
            "ni",
            "--stop-metric",
            "network-latency",
            "--stop-rule",
            "0.05",
            "--load",
            "0.01",
        ],
        "error: configuration: stop_metric = network-latency: hosts with network interfaces measure no network latency",
    );
}

/// A run that ends before its waveform's window begins (its stop rule met
/// early, or a replay done) prints its report and then says that the
/// waveform holds nothing, with no file made; the report used to be lost.
#[test]
fn a_run_that_ends_before_the_window_reports_and_then_says_so() {
    let wave = tmp("missed-window.fst");
    let _ = std::fs::remove_file(&wave);
    let o = wormcast(&[
        "run",
        "--topology",
        "mesh:4x4",
        "--packet",
        "5",
        "--load",
        "0.1",
        "--cycles",
        "300000",
        "--warmup",
        "100",
        "--stop-rule",
        "0.5",
        "--trace-from",
        "250000",
        "--vcd",
        wave.to_str().unwrap(),
        "-q",
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{out}{err}");
    assert!(out.contains("stop rule met: half-width "), "{out}");
    let cycles: u64 = out
        .lines()
        .find_map(|l| l.strip_prefix("cycles "))
        .and_then(|l| l.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{out}"));
    assert!(cycles < 250_000, "{out}");
    assert_eq!(
        err.trim_end(),
        format!(
            "error: configuration: trace-from = 250000: past the run's last cycle, {cycles}: the waveform holds nothing"
        )
    );
    assert!(!wave.exists());
    // A replay, in text and in JSON.
    let trace = tmp("missed-window.csv");
    std::fs::write(&trace, "0,3,5,20\n").unwrap();
    for json in [false, true] {
        let mut args = vec![
            "run",
            "--topology",
            "mesh:4x4",
            "--trace",
            trace.to_str().unwrap(),
            "--cycles",
            "1000",
            "--trace-from",
            "500",
            "--vcd",
            wave.to_str().unwrap(),
        ];
        if json {
            args.push("--json");
        }
        let o = wormcast(&args);
        let out = String::from_utf8_lossy(&o.stdout);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{out}{err}");
        if json {
            let r: serde_json::Value = serde_json::from_str(&out).unwrap();
            assert_eq!(r["copies"], 1, "{r}");
        } else {
            assert!(
                out.contains("message 0: sent at cycle 0, last copy at cycle 23"),
                "{out}"
            );
        }
        assert_eq!(
            err.trim_end(),
            "error: configuration: trace-from = 500: past the run's last cycle, 24: the waveform holds nothing"
        );
        assert!(!wave.exists());
    }
}

/// A refusal of the waveform's window names the setting as it was given:
/// the command line's option, or the configuration file's key, each for
/// its own setting when the two are mixed; a window where no waveform is
/// written is refused by the setting that gives it.
#[test]
fn a_window_refusal_names_the_setting_as_it_was_given() {
    let wave = tmp("named-window.vcd");
    let cfg = |name: &str, output: &str| {
        let p = tmp(name);
        std::fs::write(
            &p,
            format!(
                "[network]\ntopology = \"mesh:4x4\"\n[stats]\ncycles = 300\nwarmup = 0\n\
                 [output]\nvcd = \"{}\"\n{output}",
                wave.display()
            ),
        )
        .unwrap();
        p
    };
    let flags = cfg("window-none.toml", "");
    let both = cfg("window-both.toml", "trace_from = 900\ntrace_to = 800\n");
    let from = cfg("window-from.toml", "trace_from = 900\n");
    let scope = cfg("window-scope.toml", "trace_scope = [\"top.nothere\"]\n");
    let late = cfg("window-late.toml", "trace_from = 5000\n");
    let cases: [(&PathBuf, &[&str], &str); 6] = [
        (
            &flags,
            &["--trace-from", "900", "--trace-to", "800"],
            "error: configuration: trace-to = 800: before trace-from = 900; the window is empty",
        ),
        (
            &both,
            &[],
            "error: configuration: output.trace_to = 800: before output.trace_from = 900; the \
             window is empty",
        ),
        (
            &from,
            &["--trace-to", "800"],
            "error: configuration: trace-to = 800: before output.trace_from = 900; the window \
             is empty",
        ),
        (
            &scope,
            &[],
            "error: configuration: output.trace_scope = top.nothere: no scope or signal of the \
             waveform has that path; top holds ",
        ),
        (
            &flags,
            &["--trace-scope", "top.nothere"],
            "error: configuration: trace-scope = top.nothere: no scope or signal of the \
             waveform has that path; top holds ",
        ),
        (
            &late,
            &["-q"],
            "error: configuration: output.trace_from = 5000: past the run's last cycle, 300: the \
             waveform holds nothing",
        ),
    ];
    for (file, extra, want) in cases {
        let mut args = vec!["run", "--config", file.to_str().unwrap()];
        args.extend_from_slice(extra);
        let o = wormcast(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {err}");
        let last = err.lines().last().unwrap_or_default();
        assert!(
            last.starts_with(want) && (want.ends_with("holds ") || last == want),
            "{extra:?}:\n{last}\n{want}"
        );
    }
    assert!(!wave.exists());
    // A window where no waveform is written: the file's, or an option
    // given with a file that writes none (a run configuration without
    // output.vcd, or a file of the switch's fields alone). Before, an
    // option of the window needed --vcd even where the file gave one.
    let novcd = tmp("window-novcd.toml");
    std::fs::write(
        &novcd,
        "[network]\ntopology = \"mesh:4x4\"\n[output]\ntrace_from = 5\n",
    )
    .unwrap();
    let bare = tmp("window-bare.toml");
    std::fs::write(&bare, "[network]\ntopology = \"mesh:4x4\"\n").unwrap();
    let switch = tmp("window-switch.toml");
    std::fs::write(&switch, "buffer_flits = 640\n").unwrap();
    let topo = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/anynet8x4.toml");
    for (args, want) in [
        (
            vec!["--config", novcd.to_str().unwrap()],
            "output.trace_from = 5: limits a waveform, and none is written (no output.vcd is given)",
        ),
        (
            vec!["--config", bare.to_str().unwrap(), "--trace-to", "7"],
            "trace-to = 7: limits a waveform, and none is written (no output.vcd is given)",
        ),
        (
            vec![
                "--config",
                switch.to_str().unwrap(),
                "--topology",
                topo,
                "--trace-scope",
                "top.sw0,top.sw1",
            ],
            "trace-scope = top.sw0,top.sw1: limits a waveform, and none is written (no vcd is \
             given)",
        ),
    ] {
        let o = wormcast(&[&["run"], &args[..]].concat());
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&o.stderr).trim_end(),
            format!("error: configuration: {want}")
        );
    }
    // Without a file, the option needs --vcd before anything runs.
    let o = wormcast(&["run", "--topology", "mesh:4x4", "--trace-from", "5"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains(
            "the following required arguments were not provided:\n  <--vcd <VCD>|--config <CONFIG>>"
        ),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Every command that runs until its messages arrive prints its report
/// before saying that a waveform window it never reached holds nothing
/// (exit status 2, no file); the report used to be lost to the error.
#[test]
fn every_command_reports_before_a_window_it_never_reached() {
    let wave = tmp("missed-window-cmds.vcd");
    let w = wave.to_str().unwrap();
    let net = triangle("triangle-missed.toml");
    let cases: [(Vec<&str>, &str, &str); 6] = [
        (
            vec!["tree", "send", "--send", "0,0>7,7;7,0"],
            "tree multicast on the 8x8 mesh: all copies delivered by cycle 17",
            "17",
        ),
        (
            vec!["plan", "--run"],
            "path-lg: source 0, 31 destinations, 4 sends in 2 phases",
            "8685",
        ),
        (
            vec!["multicast"],
            "multicast of 1 packet from node 0 to 31 destinations",
            "12876",
        ),
        (
            vec!["hypercube", "multicast", "--src", "0", "--list", "3,5"],
            "route: 0 -> 1 -> 3 -> 7 -> 5",
            "35",
        ),
        (
            vec![
                "mesh3d", "plan", "--dims", "4x4x4", "--source", "0,0,0", "--dests", "5,63",
            ],
            "last tail at cycle 67",
            "67",
        ),
        (
            vec![
                "run",
                "--topology",
                net.to_str().unwrap(),
                "--traffic",
                "single",
                "--src",
                "0",
                "--dst",
                "5",
                "--packet",
                "4",
                "-q",
            ],
            "node    5: 4 flits, tail arrived at cycle",
            "",
        ),
    ];
    for (args, report, last) in cases {
        let _ = std::fs::remove_file(&wave);
        let o = wormcast(&[&args[..], &["--vcd", w, "--trace-from", "100000000"]].concat());
        let out = String::from_utf8_lossy(&o.stdout);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {out}{err}");
        assert!(out.contains(report), "{args:?}: {out}");
        let line = err.lines().last().unwrap_or_default();
        assert!(
            line.starts_with(
                "error: configuration: trace-from = 100000000: past the run's last cycle, "
            ) && line.ends_with(&format!("{last}: the waveform holds nothing")),
            "{args:?}: {err}"
        );
        assert!(!wave.exists(), "{args:?}");
    }
}

/// A network interface's packet that cannot hold a worm's header (a
/// bit-string header of 1,024 nodes is 129 flits; the default packet is
/// 128) is refused with the length that would hold it and where to give
/// it; given that length, the same multicast runs, and a flit less is
/// refused again.
#[test]
fn an_ni_packet_too_short_for_a_header_names_the_length_that_fits() {
    let net = tmp("ni-header-net.toml");
    let p = net.to_str().unwrap();
    ok(&wormcast(&[
        "topo",
        "gen",
        "--switches",
        "256",
        "--nodes",
        "1024",
        "-o",
        p,
    ]));
    let plan = |config: Option<&str>| {
        let mut args = vec!["plan", "--topology", p, "--scheme", "tree", "--run"];
        if let Some(c) = config {
            args.extend(["--config", c]);
        }
        wormcast(&args)
    };
    let advice = "give the network interfaces packets of at least 141 flits \
                  (packet_flits, in [ni] of a plan's --config, [switch.ni] of a run's)";
    let o = plan(None);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(
        err.trim_end(),
        format!(
            "error: bad packet: the 129-flit bit-string header of the worm from node 0 does not \
             fit a 128-flit packet with its 11 control bytes and data: {advice}"
        )
    );
    for (flits, fits) in [(141, true), (140, false)] {
        let cfg = tmp(&format!("ni-{flits}.toml"));
        std::fs::write(&cfg, format!("[ni]\npacket_flits = {flits}\n")).unwrap();
        let o = plan(Some(cfg.to_str().unwrap()));
        if fits {
            assert!(ok(&o).contains("each host had the message"));
        } else {
            assert!(String::from_utf8_lossy(&o.stderr).contains(advice));
        }
    }
}

/// `hypercube multicast` builds cubes past 16 dimensions (the most
/// before December 2), and refuses one its machine's memory cannot hold
/// before building it, naming the reckoning (a 22-cube was killed by the
/// kernel at 24 GB once more dimensions were allowed, before this
/// command reckoned its memory as a run does).
#[test]
fn hypercube_multicast_past_16_dimensions_and_refused_by_memory() {
    let out = ok(&wormcast(&[
        "hypercube",
        "multicast",
        "--dims",
        "17",
        "--src",
        "0",
        "--list",
        "5,77,131071",
    ]));
    assert!(out.contains("node 131071: head at cycle"), "{out}");
    needs_less_memory_than(442_918);
    for (dims, why) in [
        (
            "24",
            "topology = hypercube:24: a simulation of its 16777216 wormhole routers \
             (419430400 ports) is reckoned at 442918 MB, more than the",
        ),
        ("25", "a hypercube has 1 to 24 dimensions"),
    ] {
        let args = [
            "hypercube",
            "multicast",
            "--dims",
            dims,
            "--src",
            "0",
            "--list",
            "5",
        ];
        refused(&args, why);
    }
}

/// `tree send` reckons a grid's memory before it builds it, as a run does
/// (a 4096x4096 mesh was killed by the kernel at 24 GB), and a router's
/// buffer out of its range is named as such wherever a network is
/// reckoned first, not by the memory so large a buffer would take.
#[test]
fn tree_send_reckons_memory_and_buffers_out_of_range_are_named() {
    needs_less_memory_than(102_005);
    refused(
        &[
            "tree",
            "send",
            "--topo",
            "mesh:4096x4096",
            "--send",
            "0,0>4095,4095",
        ],
        "topology = mesh:4096x4096: a simulation of its 16777216 tree routers \
         (83886080 ports) is reckoned at 102005 MB, more than the",
    );
    refused(
        &[
            "tree",
            "send",
            "--topo",
            "mesh:8x8",
            "--send",
            "0,0>7,7",
            "--buffer",
            "4000000000",
        ],
        "buffer_flits = 4000000000: an input FIFO holds 1 to 1,024 flits",
    );
    for (router, table, reason) in [
        ("tree", "tree", "an input FIFO holds 1 to 1,024 flits"),
        (
            "wormhole",
            "wormhole",
            "an input buffer holds 1 to 4,096 flits",
        ),
    ] {
        let cfg = tmp(&format!("huge-{router}-buffer.toml"));
        std::fs::write(
            &cfg,
            format!(
                "[network]\ntopology = \"mesh:8x8\"\nrouter = \"{router}\"\n\
                 [{table}]\nbuffer_flits = 4000000000\n"
            ),
        )
        .unwrap();
        refused(
            &[
                "run",
                "--config",
                cfg.to_str().unwrap(),
                "--cycles",
                "100",
                "--warmup",
                "10",
            ],
            &format!("buffer_flits = 4000000000: {reason}"),
        );
    }
    refused(
        &[
            "hypercube",
            "multicast",
            "--dims",
            "4",
            "--src",
            "0",
            "--list",
            "5",
            "--buffer",
            "4000000000",
        ],
        "buffer_flits = 4000000000: an input buffer holds 1 to 4,096 flits",
    );
}

/// The seed 002 and 003 sweeps run as shards on several machines (`--shard
/// I/N`, or `--slurm` in a job array) and `merge` writes the files one run
/// writes, byte for byte; a merge that lacks a shard, is given one twice, a
/// shard that did not finish, or shards of two different sweeps are each
/// refused by name.
#[test]
fn the_direct_network_sweeps_shard_and_merge_into_one_runs_files() {
    let dir = tmp("shards");
    let _ = std::fs::remove_dir_all(&dir);
    let at = |p: &str| dir.join(p).to_str().unwrap().to_string();
    let files = |d: &str| {
        let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(at(d))
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                (
                    e.file_name().to_string_lossy().into_owned(),
                    std::fs::read(e.path()).unwrap(),
                )
            })
            .collect();
        v.sort();
        v
    };
    // (the sweep's arguments, its merge, its first CSV, its files)
    let sweeps: [(&[&str], &str, &str, &[&str]); 3] = [
        (
            &["mesh3d", "experiment"],
            "mesh3d",
            "mesh_load",
            &["mesh_load", "mesh_dests"],
        ),
        (
            &["tree", "experiment", "--variant", "stall-4"],
            "tree",
            "tree_load-stall-4",
            &["tree_load-stall-4"],
        ),
        (
            &["tree", "variants"],
            "tree",
            "tree_variants",
            &["tree_variants"],
        ),
    ];
    for (k, (args, merge, stem, csvs)) in sweeps.iter().enumerate() {
        let (one, parts, merged) = (format!("one{k}"), format!("parts{k}"), format!("merged{k}"));
        let run = |extra: &[&str], out: &str| {
            let mut a: Vec<String> = args.iter().map(|s| s.to_string()).collect();
            a.extend(["--quick", "--out", &at(out)].map(String::from));
            a.extend(extra.iter().map(|s| s.to_string()));
            ok(&wormcast(&a))
        };
        run(&[], &one);
        let shard = |i: u32| at(&format!("{parts}/{stem}.shard-{i}-of-3.points"));
        for i in 0..3 {
            let said = run(&["--shard", &format!("{i}/3")], &parts);
            assert!(
                said.contains(&format!(
                    "in {}; once every shard has run: wormcast {merge} merge --out {} {} {} {}",
                    shard(i),
                    at(&parts),
                    shard(0),
                    shard(1),
                    shard(2)
                )),
                "{said}"
            );
        }
        // A shard writes its points and nothing else; run again, it
        // runs none.
        let held: Vec<String> = files(&parts).into_iter().map(|f| f.0).collect();
        assert_eq!(
            held,
            (0..3)
                .map(|i| format!("{stem}.shard-{i}-of-3.points"))
                .collect::<Vec<_>>()
        );
        let again = wormcast(
            &[
                args,
                &["--quick", "--out", &at(&parts), "--shard", "2/3"][..],
            ]
            .concat(),
        );
        ok(&again);
        assert!(String::from_utf8_lossy(&again.stderr).contains(&format!(
            "points were in {} already (the shard had finished: remove it to run them again); 0 ran",
            shard(2)
        )));
        let said = ok(&wormcast(&[
            merge,
            "merge",
            "--out",
            &at(&merged),
            &shard(2),
            &shard(0),
            &shard(1),
        ]));
        let names: Vec<String> = csvs
            .iter()
            .map(|c| format!("{}/{c}.csv", at(&merged)))
            .collect();
        assert!(
            said.ends_with(&format!("points of 3 shards: {}\n", names.join(", "))),
            "{said}"
        );
        assert_eq!(files(&merged), files(&one), "{args:?}");
    }

    let refused = |args: &[&str], why: &str| {
        let o = wormcast(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(
            err.trim(),
            format!("error: configuration: {why}"),
            "{args:?}"
        );
    };
    let m = |i: u32| at(&format!("parts0/mesh_load.shard-{i}-of-3.points"));
    let v = |i: u32| at(&format!("parts2/tree_variants.shard-{i}-of-3.points"));
    let out = at("refused");
    refused(
        &["mesh3d", "merge", "--out", &out, &m(0), &m(2)],
        "merge = mesh3d experiment: shard 1/3 of the sweep is missing",
    );
    refused(
        &["mesh3d", "merge", "--out", &out, &m(0), &m(1), &m(0)],
        &format!(
            "merge = {}: shard 0/3 is given twice (and as {})",
            m(0),
            m(0)
        ),
    );
    refused(
        &["mesh3d", "merge", "--out", &out, &v(0)],
        &format!(
            "merge = {}: its points are a shard of `tree variants`: `wormcast mesh3d merge` merges \
             `mesh3d experiment`'s shards",
            v(0)
        ),
    );
    let t = |i: u32| at(&format!("parts1/tree_load-stall-4.shard-{i}-of-3.points"));
    let head = |p: &str| {
        std::fs::read_to_string(p)
            .unwrap()
            .lines()
            .next()
            .unwrap()
            .to_string()
    };
    refused(
        &["tree", "merge", "--out", &out, &t(0), &v(1)],
        &format!(
            "merge = {}: its sweep is not {}'s: {:?} against {:?} (the shards of one sweep have the \
             same options and build)",
            v(1),
            t(0),
            head(&v(1)).replace(" shard=1/3", ""),
            head(&t(0)).replace(" shard=0/3", "")
        ),
    );
    // A shard cut short: its last point's line gone.
    let text = std::fs::read_to_string(m(1)).unwrap();
    let cut = at("parts0/cut.points");
    let keep = text.lines().count() - 1;
    std::fs::write(
        &cut,
        text.lines()
            .take(keep)
            .map(|l| format!("{l}\n"))
            .collect::<String>(),
    )
    .unwrap();
    refused(
        &["mesh3d", "merge", "--out", &out, &m(0), &cut, &m(2)],
        &format!(
            "merge = {cut}: it holds 19 of shard 1/3's 20 points: its run did not finish (the same \
             command again finishes it)"
        ),
    );
    let one = at("one0/mesh_load.csv");
    refused(
        &["mesh3d", "merge", "--out", &out, &one],
        &format!(
            "merge = {one}: not a shard's points: its first line is not a sweep's (`# wormcast \
             <sweep> quick=...`)"
        ),
    );
    // A file that is no text at all is named, not read on and on.
    let o = wormcast(&["tree", "merge", "--out", &out, "/dev/urandom"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).starts_with("error: /dev/urandom: not UTF-8 text"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!std::path::Path::new(&out).exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A refusal counts one thing in the singular: "the run of 1 cycle",
/// "switches of 1 port", "carry 1 node" (they read "1 cycles", "1 ports"
/// and "1 nodes"), on the paths a user meets them.
#[test]
fn a_refusal_counts_one_thing_in_the_singular() {
    let net = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/anynet8x4.toml");
    let err = |args: &[&str]| {
        let o = wormcast(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        String::from_utf8(o.stderr).unwrap()
    };
    assert_eq!(
        err(&["run", "--topology", net, "--warmup", "1", "--cycles", "1"]),
        "error: configuration: warmup = 1: not shorter than the run of 1 cycle\n"
    );
    assert_eq!(
        err(&[
            "run",
            "--topology",
            "irregular:switches=3,ports=1,nodes=3",
            "--warmup",
            "0",
            "--cycles",
            "10",
        ]),
        "error: cannot generate the topology: 3 nodes on 3 switches of 1 port: a switch \
         would carry 1 node and keep no port for a link\n"
    );
    // A line of three switches with a node each.
    let line = tmp("one-node-a-switch.toml");
    std::fs::write(
        &line,
        common::toml(3, 4, &[((0, 1), (1, 1)), ((1, 2), (2, 1))]),
    )
    .unwrap();
    let line = line.to_str().unwrap();
    let short = ["--warmup", "0", "--cycles", "10"];
    let on_line = |more: &[&str]| {
        let mut a = vec!["run", "--topology", line];
        a.extend_from_slice(more);
        a.extend_from_slice(&short);
        err(&a)
    };
    assert_eq!(
        on_line(&["--traffic", "multicast", "--worm", "ssr", "--degree", "2"]),
        "error: configuration: degree = 2: an SSR worm's destinations are on one switch, and \
         no switch has more than 1 node\n"
    );
    assert_eq!(
        on_line(&["--buffer", "1", "--chunk", "1", "--packet", "1"]),
        "error: input buffer of 1 flit is not larger than the largest packet of 1 flit; seed \
         000 section 3.4.2 needs buffers larger than the largest packet for deadlock-free \
         replication\n"
    );
}

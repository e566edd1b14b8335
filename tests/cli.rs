//! The command-line tool, end to end.

use std::path::PathBuf;
use std::process::{Command, Output};

fn wormcast(args: &[&str]) -> Output {
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
}

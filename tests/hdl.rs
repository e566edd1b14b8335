//! Mutation checks of the co-simulation: for every unit, deliberately broken
//! copies of its Verilog (made here from `hdl_tests/rtl/`) run under Icarus
//! Verilog must make `wormcast cosim` exit 1 and name the right signal and
//! the first wrong cycle. The right answer is worked out independently: for
//! the decode units by applying the same breakage to the model's outputs in
//! Rust; for the buffer by comparing the broken Verilog's waveform with the
//! intact Verilog's (`wormcast wave diff`), which `hdl_tests/run.sh` shows
//! to agree with the model.
//!
//! Reported as ignored when Icarus Verilog is not installed (`build.rs`
//! finds it; `.ci/run` installs it).

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use wormcast::rtl::BitString;
use wormcast::switch::twin::{Dir, Params, Unit};

const CYCLES: usize = 3_000;
const SEED: u64 = 21;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn params(unit: Unit) -> Params {
    Params {
        nodes: 16,
        ports: if unit == Unit::ReplBuffer { 3 } else { 6 },
        switches: 8,
        chunks: 12,
        chunk_flits: 4,
    }
}

fn wormcast(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_wormcast"))
        .args(args)
        .output()
        .unwrap()
}

/// A fresh directory with the unit's vectors.
fn workdir(unit: Unit, tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "wormcast-hdl-{}-{}-{tag}",
        std::process::id(),
        unit.name()
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    let p = params(unit);
    let twin = unit.build(&p).unwrap();
    let v = unit.vectors(&p, CYCLES, SEED).unwrap();
    wormcast::switch::twin::write_vectors(
        &d.join("vec.hex"),
        twin.as_ref(),
        &unit.verilog_params(&p),
        v,
    )
    .unwrap();
    d
}

/// Simulates `rtl` (the module's source) with Icarus; returns the VCD.
fn simulate(unit: Unit, dir: &Path, rtl: &str) -> PathBuf {
    let src = dir.join(format!("{}.v", unit.module()));
    std::fs::write(&src, rtl).unwrap();
    icarus(unit, dir, &src, "-g2005")
}

/// Simulates the second implementation of `unit` (hdl_tests/alt/, written
/// from its contract) with Icarus Verilog -g2012; returns the VCD.
fn simulate_alt(unit: Unit, dir: &Path) -> PathBuf {
    let src = root().join(format!("hdl_tests/alt/{}.sv", unit.module()));
    icarus(unit, dir, &src, "-g2012")
}

/// Builds the unit's testbench around `src` and runs it in `dir`.
fn icarus(unit: Unit, dir: &Path, src: &Path, standard: &str) -> PathBuf {
    let tb = root().join(format!("hdl_tests/tb/tb_{}.v", unit.module()));
    let out = Command::new("iverilog")
        .args([standard, "-I"])
        .arg(dir)
        .arg("-I")
        .arg(root().join("hdl_tests/tb"))
        .arg("-o")
        .arg(dir.join("tb.vvp"))
        .arg(&tb)
        .arg(src)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "iverilog: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Command::new("vvp")
        .current_dir(dir)
        .args(["-n", "tb.vvp", "+vcd=tb.vcd"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "vvp: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir.join("tb.vcd")
}

fn rtl(unit: Unit) -> String {
    std::fs::read_to_string(root().join(format!("hdl_tests/rtl/{}.v", unit.module()))).unwrap()
}

/// `rtl` with `from` replaced by `to` (which must occur).
fn mutate(rtl: &str, from: &str, to: &str) -> String {
    assert!(rtl.contains(from), "mutation site `{from}` not found");
    rtl.replacen(from, to, 1)
}

/// Runs `wormcast cosim`; returns its exit status and JSON report.
fn cosim(unit: Unit, vcd: &Path) -> (i32, Value) {
    cosim_within(unit, vcd, None)
}

/// [`cosim`], killed and failed after `limit` (a reader waiting for a pipe
/// that no one writes any more).
fn cosim_within(unit: Unit, vcd: &Path, limit: Option<std::time::Duration>) -> (i32, Value) {
    let mut args = vec![
        "cosim".to_string(),
        "--vcd".into(),
        vcd.to_str().unwrap().into(),
        "--unit".into(),
        unit.name().into(),
        "--scope".into(),
        "tb.dut".into(),
        "--json".into(),
    ];
    if unit == Unit::ReplBuffer {
        let p = params(unit);
        args.extend(["--param".into(), format!("C={}", p.chunks)]);
        args.extend(["--param".into(), format!("K={}", p.chunk_flits)]);
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_wormcast"))
        .args(&args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(limit) = limit {
        let start = std::time::Instant::now();
        while child.try_wait().unwrap().is_none() {
            if start.elapsed() > limit {
                child.kill().unwrap();
                panic!("cosim of {} gave no answer in {limit:?}", vcd.display());
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
    let o = child.wait_with_output().unwrap();
    let code = o.status.code().unwrap();
    assert!(
        code != 2,
        "cosim failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    (code, serde_json::from_slice(&o.stdout).unwrap())
}

/// The model's inputs and outputs at every edge.
fn model_run(unit: Unit) -> Vec<(Vec<BitString>, Vec<BitString>)> {
    let p = params(unit);
    let mut twin = unit.build(&p).unwrap();
    let mut o: Vec<BitString> = twin
        .ports()
        .iter()
        .filter(|q| q.dir == Dir::Out)
        .map(|q| BitString::zeros(q.width as usize))
        .collect();
    unit.vectors(&p, CYCLES, SEED)
        .unwrap()
        .into_iter()
        .map(|v| {
            twin.edge(&v, &mut o);
            (v, o.clone())
        })
        .collect()
}

fn output_names(unit: Unit) -> Vec<&'static str> {
    unit.build(&params(unit))
        .unwrap()
        .ports()
        .iter()
        .filter(|q| q.dir == Dir::Out)
        .map(|q| q.name)
        .collect()
}

/// The first (cycle, output) where `broken` (applied to each edge's inputs
/// and model outputs) changes an output.
fn first_change(
    unit: Unit,
    mut broken: impl FnMut(&[BitString], &[BitString]) -> Vec<BitString>,
) -> (u64, &'static str) {
    let names = output_names(unit);
    for (k, (i, o)) in model_run(unit).iter().enumerate() {
        let b = broken(i, o);
        if let Some(j) = (0..o.len()).find(|&j| b[j] != o[j]) {
            return (k as u64, names[j]);
        }
    }
    panic!("the breakage never shows in {CYCLES} cycles");
}

fn assert_reported(unit: Unit, tag: &str, rtl: &str, want: (u64, &str)) {
    let dir = workdir(unit, tag);
    let vcd = simulate(unit, &dir, rtl);
    let (code, r) = cosim(unit, &vcd);
    assert_eq!(code, 1, "{tag}: cosim must exit 1: {r}");
    let first = &r["first"];
    assert_eq!(
        (
            first["cycle"].as_u64().unwrap(),
            first["signal"].as_str().unwrap()
        ),
        want,
        "{tag}: {r}"
    );
    assert_eq!(
        first["time_ns"].as_f64().unwrap(),
        10.0 * want.0 as f64 + 5.0,
        "{tag}"
    );
    assert!(r["mismatches"].as_u64().unwrap() >= 1);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[cfg_attr(
    not(have_iverilog),
    ignore = "Icarus Verilog (iverilog) is not installed"
)]
fn the_intact_verilog_agrees_under_icarus() {
    for unit in Unit::ALL {
        let dir = workdir(unit, "intact");
        let vcd = simulate(unit, &dir, &rtl(unit));
        let (code, r) = cosim(unit, &vcd);
        assert_eq!(code, 0, "{}: {r}", unit.name());
        assert_eq!(r["cycles"].as_u64(), Some(CYCLES as u64));
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Icarus's dumps straight through a named pipe into `cosim`, with no
/// file between (docs/cosim.md, "Reading waveforms"): the intact unit
/// agrees on every cycle, and a mutant is reported exactly as from its
/// file, word for word.
#[cfg(unix)]
#[test]
#[cfg_attr(
    not(have_iverilog),
    ignore = "Icarus Verilog (iverilog) is not installed"
)]
fn icarus_dumps_through_a_named_pipe_are_cosimulated() {
    let u = Unit::BitStringDecode;
    let mutant = mutate(
        &rtl(u),
        "branch[q*N +: N] = dests & restricted[q*N +: N];",
        "branch[q*N +: N] = dests | restricted[q*N +: N];",
    );
    for (tag, src, code) in [("pipe-intact", rtl(u), 0), ("pipe-mutant", mutant, 1)] {
        let dir = workdir(u, tag);
        // The testbench built and run once to a file (`tb.vvp` stays).
        let file = simulate(u, &dir, &src);
        let from_file = cosim(u, &file);
        assert_eq!(from_file.0, code, "{tag}: {}", from_file.1);
        let pipe = dir.join("tb.pipe");
        assert!(
            Command::new("mkfifo")
                .arg(&pipe)
                .status()
                .unwrap()
                .success()
        );
        let mut sim = Command::new("vvp")
            .current_dir(&dir)
            .args(["-n", "tb.vvp", "+vcd=tb.pipe"])
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let through_pipe = cosim_within(u, &pipe, Some(std::time::Duration::from_secs(120)));
        assert!(sim.wait().unwrap().success(), "{tag}: vvp");
        assert_eq!(through_pipe, from_file, "{tag}");
        if code == 0 {
            assert_eq!(through_pipe.1["cycles"].as_u64(), Some(CYCLES as u64));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// The second implementations, written from the contracts in
/// docs/cosim.md, agree with the model on every cycle (hdl_tests/run.sh
/// runs them under Verilator too).
#[test]
#[cfg_attr(
    not(have_iverilog),
    ignore = "Icarus Verilog (iverilog) is not installed"
)]
fn the_second_implementations_agree_under_icarus() {
    for unit in Unit::ALL {
        let dir = workdir(unit, "alt");
        let vcd = simulate_alt(unit, &dir);
        let (code, r) = cosim(unit, &vcd);
        assert_eq!(code, 0, "{}: {r}", unit.name());
        assert_eq!(r["cycles"].as_u64(), Some(CYCLES as u64));
        let _ = std::fs::remove_dir_all(&dir);
    }
}

fn slices(b: &BitString, n: usize) -> Vec<BitString> {
    (0..b.len() / n).map(|q| b.slice(q * n, n)).collect()
}

#[test]
#[cfg_attr(
    not(have_iverilog),
    ignore = "Icarus Verilog (iverilog) is not installed"
)]
fn bitstring_decode_mutants_are_caught_at_their_first_wrong_cycle() {
    let u = Unit::BitStringDecode;
    let n = params(u).nodes as usize;
    // Inputs: rst, hdr_valid, ud_in, dests, total, restricted, up_ports.
    // Outputs: valid, err, ud_out, replicate, choice, hdr_out.
    let replicating =
        |i: &[BitString], o: &[BitString]| !i[0].get(0) && o[1].field(0, 2) == 0 && o[4].is_zero();
    // An AND turned into an OR: each copy's header is dests OR the port's
    // string, for every port.
    let want = first_change(u, |i, o| {
        let mut b = o.to_vec();
        if replicating(i, o) {
            for (q, r) in slices(&i[5], n).iter().enumerate() {
                let mut x = i[3].clone();
                x.or_assign(r);
                b[5].set_slice(q * n, &x);
            }
        }
        b
    });
    let src = mutate(
        &rtl(u),
        "branch[q*N +: N] = dests & restricted[q*N +: N];",
        "branch[q*N +: N] = dests | restricted[q*N +: N];",
    );
    assert_reported(u, "and-or", &src, want);
    // The restricted string ignored: every port meets the header.
    let want = first_change(u, |i, o| {
        let mut b = o.to_vec();
        if replicating(i, o) {
            b[3] = BitString::ones(o[3].len());
        }
        b
    });
    let src = mutate(
        &rtl(u),
        "hit[q] = |(dests & restricted[q*N +: N]);",
        "hit[q] = |(dests & total);",
    );
    assert_reported(u, "restricted-ignored", &src, want);
}

#[test]
#[cfg_attr(
    not(have_iverilog),
    ignore = "Icarus Verilog (iverilog) is not installed"
)]
fn ssr_md_decode_mutants_are_caught_at_their_first_wrong_cycle() {
    let u = Unit::SsrMdDecode;
    let p = params(u);
    // The routing phase ignored: the model run with phase_down forced to 0.
    let mut twin = u.build(&p).unwrap();
    let want = first_change(u, |i, o| {
        let mut i = i.to_vec();
        i[2] = BitString::zeros(1);
        let mut b = o.to_vec();
        twin.edge(&i, &mut b);
        b
    });
    let src = mutate(
        &mutate(
            &rtl(u),
            "route[(2 * sw0 + phase_down) * P +: P]",
            "route[(2 * sw0) * P +: P]",
        ),
        "route[(2 * sw1 + phase_down) * P +: P]",
        "route[(2 * sw1) * P +: P]",
    );
    assert_reported(u, "phase-ignored", &src, want);
    // The stripped header keeps the old pair count.
    let want = first_change(u, |_, o| {
        let mut b = o.to_vec();
        if o[7].get(0) {
            let f = o[8].field(0, 8) + 1;
            b[8].set_field(0, 8, f);
        }
        b
    });
    let src = mutate(
        &rtl(u),
        "hf = {3'b101, npairs - 5'd1};",
        "hf = {3'b101, npairs};",
    );
    assert_reported(u, "strip-count", &src, want);
}

/// The first (cycle, output) where two Icarus waveforms of the buffer
/// differ, by `wormcast wave diff` signal by signal: the earliest time,
/// and among signals differing then the first in port order.
fn first_divergence(a: &Path, b: &Path) -> (u64, &'static str) {
    let mut best: Option<(f64, usize)> = None;
    for (j, name) in output_names(Unit::ReplBuffer).into_iter().enumerate() {
        let o = wormcast(&[
            "wave",
            "diff",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "--scope",
            "tb.dut",
            "--signals",
            name,
            "--json",
        ]);
        assert!(
            o.status.code() != Some(2),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let r: Value = serde_json::from_slice(&o.stdout).unwrap();
        if let Some(t) = r["first"]["time_ns"].as_f64()
            && best.is_none_or(|(bt, _)| t < bt)
        {
            best = Some((t, j));
        }
    }
    let (t, j) = best.expect("the mutant's waveform differs");
    (((t - 5.0) / 10.0) as u64, output_names(Unit::ReplBuffer)[j])
}

#[test]
#[cfg_attr(
    not(have_iverilog),
    ignore = "Icarus Verilog (iverilog) is not installed"
)]
fn repl_buffer_mutants_are_caught_at_their_first_wrong_cycle() {
    let u = Unit::ReplBuffer;
    let dir = workdir(u, "reference");
    let intact = simulate(u, &dir, &rtl(u));
    let cases = [
        (
            "refcount-twice",
            "refs[ch] = refs[ch] - 1'b1;",
            "refs[ch] = refs[ch] - 2'd2;",
        ),
        (
            "no-release-moving-past",
            "                        release_chunk(c, K);\n",
            "",
        ),
    ];
    for (tag, from, to) in cases {
        let src = mutate(&rtl(u), from, to);
        let d = workdir(u, tag);
        let broken = simulate(u, &d, &src);
        let want = first_divergence(&intact, &broken);
        let _ = std::fs::remove_dir_all(&d);
        assert_reported(u, tag, &src, want);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

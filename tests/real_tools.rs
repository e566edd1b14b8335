//! Waveforms written by real simulators and converters, read as a user
//! would: the designs in `hdl_tests/formats/` are simulated under Icarus
//! Verilog (-g2012), Verilator (VCD and FST, structs traced) and GHDL
//! (VCD, FST and GHW); every dump is read, compared with itself, with its
//! round trip through GTKWave's `vcd2fst` / `fst2vcd`, and with the other
//! simulators' dumps of the same design, through `wormcast wave diff`.
//!
//! A test whose tools are not installed is reported as ignored, with the
//! tool's name (`build.rs` finds them); `.ci/run` installs them all.

mod common;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use wormcast::wave::{Event, VarKind, WaveReader};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn workdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("wormcast-tools-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs a tool in `dir`; it must succeed.
fn tool(dir: &Path, program: &str, args: &[&str]) -> String {
    let o = Command::new(program)
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    assert!(
        o.status.success(),
        "{program} {args:?}: {}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// `wormcast wave diff a b ARGS --json`: the exit status and the report.
fn diff(dir: &Path, a: &str, b: &str, args: &[&str]) -> (i32, Value) {
    let o = Command::new(env!("CARGO_BIN_EXE_wormcast"))
        .current_dir(dir)
        .args(["wave", "diff", a, b, "--json"])
        .args(args)
        .output()
        .unwrap();
    let code = o.status.code().unwrap();
    assert!(
        code != 2,
        "wave diff {a} {b} {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    (code, serde_json::from_slice(&o.stdout).unwrap())
}

/// The two files agree, with this many signals compared.
fn same(dir: &Path, a: &str, b: &str, args: &[&str]) -> u64 {
    let (code, r) = diff(dir, a, b, args);
    assert_eq!(code, 0, "{a} against {b} {args:?}: {r:#}");
    r["signals"].as_u64().unwrap()
}

/// `diff_files` (the FST fast path for two FST files) and the streaming
/// diff give the same report.
fn fast_is_streaming(dir: &Path, a: &str, b: &str) {
    let (pa, pb) = (dir.join(a), dir.join(b));
    let o = wormcast::wave::DiffOptions::default();
    let fast = wormcast::wave::diff_files(&pa, &pb, &o, |p| WaveReader::open(p)).unwrap();
    let slow = wormcast::wave::diff(
        WaveReader::open(&pa).unwrap(),
        WaveReader::open(&pb).unwrap(),
        &o,
    )
    .unwrap();
    assert_eq!(
        serde_json::to_string(&fast).unwrap(),
        serde_json::to_string(&slow).unwrap(),
        "{a} against {b}"
    );
}

fn names(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

/// Every value a signal takes, in order, as read by wormcast.
fn values(file: &Path, path: &str) -> Vec<String> {
    let mut r = WaveReader::open(file).unwrap();
    let v = r
        .header()
        .find(path)
        .unwrap_or_else(|| panic!("no {path}"))
        .clone();
    let mut out = Vec::new();
    while let Some(e) = r.next_event().unwrap() {
        match e {
            Event::Logic { code, bits } if code == v.code => {
                out.push(String::from_utf8_lossy(bits).into_owned())
            }
            Event::Str { code, value } if code == v.code => {
                out.push(String::from_utf8_lossy(value).into_owned())
            }
            Event::Real { code, value } if code == v.code => out.push(value.to_string()),
            _ => {}
        }
    }
    out
}

/// A dump, its FST by `vcd2fst` and that FST back as VCD by `fst2vcd`
/// all agree.
fn round_trips(dir: &Path, vcd: &str) {
    let n = same(dir, vcd, vcd, &[]);
    assert!(n > 0);
    let fst = format!("{vcd}.rt.fst");
    let back = format!("{vcd}.rt.vcd");
    tool(dir, "vcd2fst", &[vcd, &fst]);
    assert_eq!(same(dir, vcd, &fst, &[]), n, "{vcd} against vcd2fst");
    fast_is_streaming(dir, &fst, &fst);
    let text = tool(dir, "fst2vcd", &[&fst]);
    std::fs::write(dir.join(&back), text).unwrap();
    assert_eq!(same(dir, vcd, &back, &[]), n, "{vcd} against fst2vcd");
}

/// Simulates hdl_tests/formats/types.vhd under GHDL for 40 ns in `dir`,
/// writing the waveforms `dumps` asks for (`--vcd=...`, `--fst=...`,
/// `--wave=...`).
fn ghdl_types(dir: &Path, dumps: &[&str]) {
    let src = root().join("hdl_tests/formats/types.vhd");
    tool(dir, "ghdl", &["-a", "--std=08", src.to_str().unwrap()]);
    tool(dir, "ghdl", &["-e", "--std=08", "types"]);
    let mut args = vec!["-r", "--std=08", "types"];
    args.extend_from_slice(dumps);
    args.push("--stop-time=40ns");
    tool(dir, "ghdl", &args);
}

fn constructs() -> String {
    root()
        .join("hdl_tests/formats/constructs.sv")
        .display()
        .to_string()
}

/// Icarus Verilog's SystemVerilog dump: `$scope begin $ivl_for_loop0`,
/// an escaped identifier, `real 1`.
fn icarus_dump(dir: &Path) -> PathBuf {
    tool(dir, "iverilog", &["-g2012", "-o", "c.vvp", &constructs()]);
    tool(dir, "vvp", &["-n", "c.vvp", "+wave=icarus.vcd"]);
    dir.join("icarus.vcd")
}

/// Verilator's dumps of the same design, VCD and FST, structs traced.
fn verilator_dumps(dir: &Path) -> (PathBuf, PathBuf) {
    for (trace, obj, file) in [
        ("--trace", "objv", "verilator.vcd"),
        ("--trace-fst", "objf", "verilator.fst"),
    ] {
        tool(
            dir,
            "verilator",
            &[
                "--binary",
                trace,
                "--trace-structs",
                "-Wno-fatal",
                "-Wno-lint",
                "-Wno-style",
                "--build-jobs",
                "2",
                "--top-module",
                "constructs",
                "-Mdir",
                obj,
                "-o",
                "sim",
                &constructs(),
            ],
        );
        tool(dir, &format!("{obj}/sim"), &[&format!("+wave={file}")]);
    }
    (dir.join("verilator.vcd"), dir.join("verilator.fst"))
}

#[test]
#[cfg_attr(
    not(all(have_iverilog, have_vcd2fst, have_fst2vcd)),
    ignore = "needs Icarus Verilog and GTKWave's vcd2fst and fst2vcd"
)]
fn icarus_systemverilog_dumps_are_read_and_round_trip() {
    let dir = workdir("icarus");
    let vcd = icarus_dump(&dir);
    let r = WaveReader::open(&vcd).unwrap();
    let h = r.header();
    let paths: Vec<String> = h.vars.iter().map(|v| v.path()).collect();
    assert!(
        paths.contains(&"constructs.$ivl_for_loop0.i".to_string()),
        "{paths:?}"
    );
    let esc = h
        .find("constructs.esc.name")
        .expect("the escaped name, unescaped");
    assert_eq!(esc.range, Some((3, 3)));
    let real = h.find("constructs.r").unwrap();
    assert_eq!((real.kind, real.width), (VarKind::Real, 1));
    assert_eq!(values(&vcd, "constructs.r"), ["1.5", "2.25"]);
    round_trips(&dir, "icarus.vcd");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[cfg_attr(
    not(all(have_verilator, have_iverilog, have_vcd2fst, have_fst2vcd)),
    ignore = "needs Verilator, Icarus Verilog and GTKWave's vcd2fst and fst2vcd"
)]
fn verilator_dumps_agree_with_each_other_and_with_icarus() {
    let dir = workdir("verilator");
    let (vcd, fst) = verilator_dumps(&dir);
    // The declaration outside any module is in scope `$unit`.
    let r = WaveReader::open(&vcd).unwrap();
    assert!(r.header().find("TOP.$unit.unit_flag").is_some());
    drop(r);
    let n = same(&dir, "verilator.vcd", "verilator.fst", &[]);
    assert_eq!(n, 11, "every signal of the VCD is in the FST");
    round_trips(&dir, "verilator.vcd");
    fast_is_streaming(&dir, "verilator.fst", "verilator.fst");
    fast_is_streaming(&dir, "verilator.fst", "verilator.vcd.rt.fst");
    let back = dir.join("verilator.fst.vcd");
    std::fs::write(&back, tool(&dir, "fst2vcd", &[fst.to_str().unwrap()])).unwrap();
    assert_eq!(same(&dir, "verilator.fst", "verilator.fst.vcd", &[]), n);
    // Icarus and Verilator, cycle by cycle: the escaped name and the real
    // (`real 1` against `real 64`) pair up; what each tool dumps
    // differently is reported, one by one.
    icarus_dump(&dir);
    let args = ["--scope", "constructs", "--clock", "clk"];
    let (code, r) = diff(&dir, "icarus.vcd", "verilator.vcd", &args);
    assert_eq!(code, 1, "{r:#}");
    assert_eq!(names(&r["only_in_first"]), ["p", "$ivl_for_loop0.i"]);
    assert_eq!(
        names(&r["only_in_second"]),
        ["mem[0]", "mem[1]", "p.a", "p.b", "unnamedblk1.i"]
    );
    assert_eq!(r["mismatches"], 0);
    let mut with_ignore = args.to_vec();
    with_ignore.extend(["--ignore", "p,p.*,mem*,*.i"]);
    assert_eq!(
        same(&dir, "icarus.vcd", "verilator.vcd", &with_ignore),
        5,
        "clk, data, esc.name, k and r"
    );
    let (_, r) = diff(&dir, "icarus.vcd", "verilator.fst", &with_ignore);
    assert_eq!(r["cycles"], 4);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[cfg_attr(
    not(all(have_ghdl, have_vcd2fst, have_fst2vcd)),
    ignore = "needs GHDL and GTKWave's vcd2fst and fst2vcd"
)]
fn ghdl_vcd_fst_and_ghw_dumps_are_read() {
    let dir = workdir("ghdl");
    ghdl_types(
        &dir,
        &["--vcd=types.vcd", "--fst=types.fst", "--wave=types.ghw"],
    );
    // Nine values read as four, in every format.
    let vcd = dir.join("types.vcd");
    assert_eq!(values(&vcd, "types.bus_v"), ["xxxx", "1x0x", "01xz"]);
    assert_eq!(values(&vcd, "types.weak"), ["z", "1", "0"]);
    assert_eq!(values(&vcd, "types.asc"), ["0011"]);
    // GHDL's FST writes the enumeration as a string.
    let fst = dir.join("types.fst");
    assert_eq!(values(&fst, "st"), ["idle", "busy", "done"]);
    assert_eq!(values(&fst, "bus_v"), ["xxxx", "1x0x", "01xz"]);
    // Each against itself; GHDL's FST against its VCD form (a `string 0`
    // variable) and the GHW against the VCD on what both hold.
    for f in ["types.vcd", "types.fst", "types.ghw"] {
        assert!(same(&dir, f, f, &[]) > 0, "{f}");
    }
    fast_is_streaming(&dir, "types.fst", "types.fst");
    let text = tool(&dir, "fst2vcd", &["types.fst"]);
    std::fs::write(dir.join("types.fst.vcd"), text).unwrap();
    assert_eq!(same(&dir, "types.fst", "types.fst.vcd", &[]), 7);
    assert_eq!(
        same(
            &dir,
            "types.vcd",
            "types.ghw",
            &["--ignore", "types.st,types.msg*"]
        ),
        6
    );
    // GHDL's FST has no scope and writes the integer as one bit: the
    // difference is named, and the rest agrees.
    let (code, r) = diff(
        &dir,
        "types.vcd",
        "types.fst",
        &["--scope", "types", "--scope-b", ""],
    );
    assert_eq!(code, 1);
    assert_eq!(names(&r["only_in_second"]), ["st"]);
    assert_eq!(r["type_clashes"][0]["signal"], "n");
    assert_eq!(
        same(
            &dir,
            "types.vcd",
            "types.fst",
            &["--scope", "types", "--scope-b", "", "--ignore", "st,n"]
        ),
        5
    );
    // GTKWave's vcd2fst loses the upper-case scalar values (`Z`, `H`,
    // `L`) of GHDL's VCD; the diff says so, and names nothing else.
    tool(&dir, "vcd2fst", &["types.vcd", "types.rt.fst"]);
    let (code, r) = diff(&dir, "types.vcd", "types.rt.fst", &[]);
    if code == 1 {
        assert_eq!(
            r["per_signal"]
                .as_object()
                .unwrap()
                .keys()
                .collect::<Vec<_>>(),
            ["types.weak"],
            "{r:#}"
        );
    }
    assert_eq!(
        same(
            &dir,
            "types.vcd",
            "types.rt.fst",
            &["--ignore", "types.weak"]
        ),
        5
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// GHDL's dumps read from standard input (`wave diff A -`): the VCD as
/// it streams, the GHW read by the child process fed through a pipe; the
/// same signals agree as from the files, and a GHW cut short is an error
/// that names standard input, not a crash.
#[test]
#[cfg_attr(not(have_ghdl), ignore = "GHDL is not installed")]
fn ghdl_dumps_are_read_from_standard_input() {
    let dir = workdir("ghdl-stdin");
    ghdl_types(&dir, &["--vcd=types.vcd", "--wave=types.ghw"]);
    // `wave diff types.vcd -` with `input` on standard input.
    let fed = |input: &str, args: &[&str]| {
        common::fed(
            Command::new(env!("CARGO_BIN_EXE_wormcast"))
                .current_dir(&dir)
                .args(["wave", "diff", "types.vcd", "-", "--json"])
                .args(args),
            std::fs::read(dir.join(input)).unwrap(),
        )
    };
    let ignore = ["--ignore", "types.st,types.msg*"];
    for (f, args) in [("types.vcd", &[][..]), ("types.ghw", &ignore[..])] {
        let from_files = same(&dir, "types.vcd", f, args);
        assert!(from_files >= 6, "{f}: {from_files}");
        let o = fed(f, args);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{f}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let r: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(r["signals"], from_files, "{f} on standard input");
    }
    let ghw = std::fs::read(dir.join("types.ghw")).unwrap();
    std::fs::write(dir.join("half.ghw"), &ghw[..ghw.len() / 2]).unwrap();
    let o = fed("half.ghw", &ignore);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.starts_with("error: standard input: "), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A GHDL design of 20,000 generate blocks, each with a signal of its
/// own: 20,000 scopes side by side in one scope, read from GHW (through
/// the child process's conversion to VCD) equal to GHDL's own VCD.
#[test]
#[cfg_attr(not(have_ghdl), ignore = "GHDL is not installed")]
fn a_ghdl_design_of_many_scopes_is_read() {
    let dir = workdir("ghw-scopes");
    std::fs::write(
        dir.join("many.vhd"),
        "library ieee; use ieee.std_logic_1164.all;\n\
         entity many is end;\n\
         architecture a of many is\n\
           signal clk : std_logic := '0';\n\
         begin\n\
           g: for i in 0 to 19999 generate\n\
             signal x : std_logic := '0';\n\
           begin\n\
             x <= clk;\n\
           end generate;\n\
           clk <= not clk after 5 ns;\n\
         end;\n",
    )
    .unwrap();
    tool(&dir, "ghdl", &["-a", "many.vhd"]);
    tool(&dir, "ghdl", &["-e", "many"]);
    tool(
        &dir,
        "ghdl",
        &[
            "-r",
            "many",
            "--wave=many.ghw",
            "--vcd=many.vcd",
            "--stop-time=30ns",
        ],
    );
    assert_eq!(same(&dir, "many.ghw", "many.vcd", &[]), 20_001);
    let _ = std::fs::remove_dir_all(&dir);
}

/// GHW files are read in a child process bounded in memory and time: no
/// mutation of a real one makes the command-line tool crash or hang,
/// whatever the GHW reader does with it.
#[test]
#[cfg_attr(not(have_ghdl), ignore = "GHDL is not installed")]
fn mutated_ghw_files_never_crash_the_tool() {
    let dir = workdir("ghw-fuzz");
    ghdl_types(&dir, &["--wave=types.ghw"]);
    let good = std::fs::read(dir.join("types.ghw")).unwrap();
    // A small linear congruential generator: the same mutations every run.
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = || {
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        x >> 33
    };
    let (mut read, mut refused) = (0, 0);
    for _ in 0..300 {
        let mut b = good.clone();
        for _ in 0..1 + next() % 6 {
            let i = (next() as usize) % b.len();
            match next() % 3 {
                0 => b[i] = next() as u8,
                1 => b[i] ^= 1 << (next() % 8),
                _ => b.insert(i, next() as u8),
            }
        }
        std::fs::write(dir.join("m.ghw"), &b).unwrap();
        let o = Command::new(env!("CARGO_BIN_EXE_wormcast"))
            .current_dir(&dir)
            .args(["wave", "diff", "m.ghw", "m.ghw"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        match o.status.code() {
            Some(0) => read += 1,
            Some(2) => {
                assert!(err.starts_with("error: m.ghw: "), "{err}");
                refused += 1;
            }
            other => panic!("exit {other:?}: {err}"),
        }
    }
    assert!(read > 0 && refused > 0, "{read} read, {refused} refused");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The model's own FST files, read back by GTKWave's `fst2vcd` (the
/// reference implementation of the format, whose zlib inflates each
/// block's frame), hold exactly what the VCD of the same run holds: a long
/// run written in several value-change blocks, a window of some scopes
/// that starts past cycle 0, and a network whose bit strings are 256 bits
/// wide, so that its frames are long runs of `0` and `x` (packed from
/// their runs, `src/wave/runzlib.rs`).
#[test]
#[cfg_attr(not(have_fst2vcd), ignore = "needs GTKWave's fst2vcd")]
fn gtkwave_reads_the_models_fst_as_its_vcd() {
    let dir = workdir("model-fst");
    let net = root().join("benches/anynet8x4.toml").display().to_string();
    let net64 = dir.join("net64.toml").display().to_string();
    let mut generate: Vec<&str> = "topo gen --switches 64 --ports 8 --nodes 256 -o"
        .split(' ')
        .collect();
    generate.push(&net64);
    tool(&dir, env!("CARGO_BIN_EXE_wormcast"), &generate);
    let uniform = ["--traffic", "uniform", "--load", "0.1", "--packet", "20"];
    let cases: [(&str, &str, Vec<&str>, u64); 3] = [
        // The clock and every register of 8 switches and 32 endpoints.
        (
            "whole",
            &net,
            [&uniform[..], &["--cycles", "30000"]].concat(),
            1949,
        ),
        (
            "window",
            &net,
            [
                &uniform[..],
                &[
                    "--cycles",
                    "3000",
                    "--trace-from",
                    "1000",
                    "--trace-to",
                    "1500",
                    "--trace-scope",
                    "top.sw3,top.ep5",
                ],
            ]
            .concat(),
            // The clock; the switch's 7 wired ports, each 4 input, 11 + 7
            // decode and 7 output signals; the endpoint's 10.
            1 + 7 * (4 + 11 + 7 + 7) + 10,
        ),
        // Bit-string worms to 8 of 256 nodes: every decode unit's strings
        // are 256 bits, unknown until its first worm.
        (
            "wide",
            &net64,
            vec![
                "--traffic",
                "multicast",
                "--worm",
                "bit-string",
                "--degree",
                "8",
                "--load",
                "0.05",
                "--cycles",
                "6000",
            ],
            16023,
        ),
    ];
    for (name, topology, args, signals) in cases {
        for ext in ["vcd", "fst"] {
            let file = format!("{name}.{ext}");
            let mut a = vec!["run", "--topology", topology];
            a.extend_from_slice(&args);
            a.extend_from_slice(&["--warmup", "0", "--quiet", "--vcd", &file]);
            tool(&dir, env!("CARGO_BIN_EXE_wormcast"), &a);
        }
        let blocks = common::fst_blocks(&std::fs::read(dir.join(format!("{name}.fst"))).unwrap());
        if name != "window" {
            assert!(blocks.len() >= 3, "{blocks:?}");
            for w in blocks.windows(2) {
                assert_eq!(w[0].1, w[1].0, "blocks follow each other: {blocks:?}");
            }
        }
        let text = tool(&dir, "fst2vcd", &[&format!("{name}.fst")]);
        std::fs::write(dir.join(format!("{name}.fst.vcd")), text).unwrap();
        let vcd = format!("{name}.vcd");
        assert_eq!(same(&dir, &vcd, &format!("{name}.fst"), &[]), signals);
        assert_eq!(same(&dir, &vcd, &format!("{name}.fst.vcd"), &[]), signals);
    }
}

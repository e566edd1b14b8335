//! The VCD reader, `cosim` and `wave diff` on waveforms the model writes
//! of its own units (no Verilog simulator needed): exact agreement, exact
//! reports of planted differences, foreign names and bit orders, every
//! refusal named, and no panic on any input.

mod common;

use proptest::prelude::*;
use wormcast::rtl::BitString;
use wormcast::rtl::trace::WaveSink;
use wormcast::sim::{SimConfig, System, Traffic};
use wormcast::switch::twin::{Params, Unit, trace};
use wormcast::wave::{
    CosimOptions, DiffOptions, Event, FstWriter, SignalMap, VcdReader, VcdWriter, WaveReader,
    cosim, diff,
};

fn params() -> Params {
    Params {
        nodes: 12,
        ports: 5,
        switches: 6,
        chunks: 10,
        chunk_flits: 3,
    }
}

/// The model's own dump of `unit` over `cycles` random edges.
fn model_vcd(unit: Unit, cycles: usize, seed: u64) -> String {
    let p = params();
    let v = unit.vectors(&p, cycles, seed).unwrap();
    let mut twin = unit.build(&p).unwrap();
    let out = common::Shared::default();
    let mut w = VcdWriter::new(out.clone());
    trace(twin.as_mut(), v.iter().cloned(), 10_000, &mut w).unwrap();
    drop(w);
    String::from_utf8(out.bytes()).unwrap()
}

fn opts(unit: Unit) -> CosimOptions {
    CosimOptions {
        unit,
        scope: "tb.dut".into(),
        clock: None,
        map: SignalMap::identity(),
        params: if unit == Unit::ReplBuffer {
            vec![("C".into(), 10), ("K".into(), 3)]
        } else {
            Vec::new()
        },
        expect_cycles: None,
    }
}

fn run(text: &str, o: &CosimOptions) -> wormcast::Result<wormcast::wave::CompareReport> {
    cosim(&mut WaveReader::from_bytes(text.as_bytes().to_vec())?, o)
}

#[test]
fn every_unit_agrees_with_its_own_dump() {
    for unit in Unit::ALL {
        let vcd = model_vcd(unit, 3_000, 5);
        let r = run(&vcd, &opts(unit)).unwrap();
        assert!(r.ok(), "{}: {r}", unit.name());
        assert_eq!(r.cycles, Some(3_000), "{}", unit.name());
        let outputs = unit
            .build(&params())
            .unwrap()
            .ports()
            .iter()
            .filter(|p| p.dir == wormcast::switch::twin::Dir::Out)
            .count();
        assert_eq!(r.signals, outputs);
        assert_eq!(r.comparisons, 3_000 * outputs as u64);
    }
}

/// The code and the first line of the value changes of `tb.dut.<name>`.
fn code_of(vcd: &str, name: &str) -> String {
    let line = vcd
        .lines()
        .find(|l| l.starts_with("$var") && l.split_whitespace().nth(4) == Some(name))
        .unwrap_or_else(|| panic!("no $var {name}"));
    line.split_whitespace().nth(3).unwrap().to_string()
}

/// Rewrites the value `tb.dut.<name>` takes at model edge `edge` (the
/// dump's timescale is 1 ns and its clock 10 ns: the edge's outputs appear
/// at (edge + 1) * 10 ns).
fn plant(vcd: &str, name: &str, edge: u64, value: &str) -> String {
    let code = code_of(vcd, name);
    let t = (edge + 1) * 10;
    let mut out = String::new();
    let mut in_block = false;
    let mut done = false;
    for line in vcd.lines() {
        if let Some(ts) = line.strip_prefix('#') {
            if in_block && !done {
                // No change of the signal at that edge: add one.
                out += &format!("b{value} {code}\n");
                done = true;
            }
            in_block = ts.parse::<u64>().ok() == Some(t);
        } else if in_block && !done && line.ends_with(&format!(" {code}")) {
            out += &format!("b{value} {code}\n");
            done = true;
            continue;
        }
        out += line;
        out.push('\n');
    }
    assert!(done, "edge {edge} not found");
    out
}

#[test]
fn a_planted_difference_is_reported_at_its_cycle() {
    let vcd = model_vcd(Unit::BitStringDecode, 400, 9);
    // Whatever replicate was at edge 123, make it 10101 and 01010.
    for value in ["10101", "01010"] {
        let bad = plant(&vcd, "replicate", 123, value);
        let r = run(&bad, &opts(Unit::BitStringDecode)).unwrap();
        if r.ok() {
            continue; // the planted value was the right one
        }
        let m = r.first.clone().unwrap();
        assert_eq!(
            (m.signal.as_str(), m.cycle),
            ("replicate", Some(123)),
            "{r}"
        );
        assert_eq!(m.actual, value);
        assert_eq!(m.time_ns, 1_240.0, "the rising edge that starts cycle 123");
        // The planted value stays until the signal's next change.
        assert_eq!(r.per_signal.keys().collect::<Vec<_>>(), ["replicate"]);
        return;
    }
    panic!("neither planted value differed");
}

/// `replicate` declared ascending (`[0:4]`, so its leftmost character is
/// bit 0) and renamed: wrong without a map, right with one that says its
/// bits run the other way; the Verilator-style `TOP.tb.dut` is found from
/// `tb.dut`.
#[test]
fn foreign_names_bit_orders_and_scopes() {
    let vcd = model_vcd(Unit::BitStringDecode, 300, 4);
    let code = code_of(&vcd, "replicate");
    let renamed = vcd
        .replace(
            &format!("$var wire 5 {code} replicate [4:0] $end"),
            &format!("$var wire 5 {code} repl_q [0:4] $end"),
        )
        .replace(
            "$scope module tb $end",
            "$scope module TOP $end\n$scope module tb $end",
        )
        .replace("$enddefinitions", "$upscope $end\n$enddefinitions");
    let e = run(&renamed, &opts(Unit::BitStringDecode))
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "scope `TOP.tb.dut` has no signal `replicate` for the bitstring-decode unit's port `replicate`"
    );
    let mut o = opts(Unit::BitStringDecode);
    o.map = SignalMap::from_toml_str("[signals]\nrepl_q = \"replicate\"\n").unwrap();
    let r = run(&renamed, &o).unwrap();
    assert!(!r.ok());
    assert_eq!(
        r.per_signal.keys().collect::<Vec<_>>(),
        ["replicate (repl_q)"]
    );
    o.map =
        SignalMap::from_toml_str("[signals]\nrepl_q = { model = \"replicate\", reverse = true }\n")
            .unwrap();
    let r = run(&renamed, &o).unwrap();
    assert!(r.ok(), "{r}");
    assert_eq!(r.cycles, Some(300));
}

#[test]
fn refusals_name_the_problem() {
    let vcd = model_vcd(Unit::ReplBuffer, 50, 2);
    let err = |text: &str, o: &CosimOptions| run(text, o).unwrap_err().to_string();
    let mut o = opts(Unit::ReplBuffer);
    o.params.clear();
    assert_eq!(
        err(&vcd, &o),
        "the repl-buffer unit's parameter C does not follow from its port widths: give it (--param C=...)"
    );
    o.params = vec![("C".into(), 16), ("K".into(), 3)];
    assert_eq!(
        err(&vcd, &o),
        "`tb.dut.free_chunks` is 4 bits; the repl-buffer unit with C = 16, K = 3, P = 5 has a 5-bit `free_chunks`"
    );
    let mut o = opts(Unit::ReplBuffer);
    o.scope = "dut2".into();
    assert!(err(&vcd, &o).starts_with("no scope `dut2` in the waveform (it has `tb`, `tb.dut`)"));
    let mut o = opts(Unit::ReplBuffer);
    o.clock = Some("tb.clock".into());
    assert_eq!(err(&vcd, &o), "no clock `tb.clock` in the waveform");
    // An input at x outside reset.
    let code = code_of(&vcd, "wr_data");
    // (at the end of the changes at 300 ns, after any change the dump
    // itself makes then)
    let x = vcd.replacen("#305\n", &format!("bx {code}\n#305\n"), 1);
    let e = err(&x, &opts(Unit::ReplBuffer));
    assert!(
        e.starts_with("input `wr_data` is `xxxxxxxx` at the rising edge of cycle 30 (310 ns)"),
        "{e}"
    );
    // The same during reset is read as 0.
    let rst = code_of(&vcd, "rst");
    let in_reset = vcd.replacen("#0\n$dumpvars\n", &format!("#0\n$dumpvars\nbx {code}\n"), 1);
    assert!(
        run(&in_reset, &opts(Unit::ReplBuffer)).unwrap().ok(),
        "{rst}"
    );
    // A unit whose ports are not there.
    let e = err(&vcd, &opts(Unit::SsrMdDecode));
    assert_eq!(
        e,
        "scope `tb.dut` has no signal `hdr_valid` for the ssr-md-decode unit's port `hdr_valid`"
    );
}

fn diff_text(a: &str, b: &str, o: &DiffOptions) -> wormcast::Result<wormcast::wave::CompareReport> {
    diff(
        WaveReader::from_bytes(a.as_bytes().to_vec())?,
        WaveReader::from_bytes(b.as_bytes().to_vec())?,
        o,
    )
}

/// The same dump in another timescale (1 ps, times scaled by 1,000).
fn in_picoseconds(vcd: &str) -> String {
    vcd.lines()
        .map(|l| match l.strip_prefix('#') {
            Some(t) => format!("#{}", t.parse::<u64>().unwrap() * 1000),
            None if l.starts_with("$timescale") => "$timescale 1 ps $end".to_string(),
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn diff_compares_on_a_common_time_axis() {
    let a = model_vcd(Unit::SsrMdDecode, 200, 8);
    let r = diff_text(&a, &in_picoseconds(&a), &DiffOptions::default()).unwrap();
    assert!(r.ok(), "{r}");
    assert_eq!(r.signals, 17, "clk and 16 ports");
    // One planted change at edge 77: seen at 780 ns in the ps file.
    let b = in_picoseconds(&plant(&a, "choice", 77, "11111"));
    let r = diff_text(&a, &b, &DiffOptions::default()).unwrap();
    let m = r.first.clone().unwrap();
    assert_eq!(
        (m.signal.as_str(), m.time_ns, m.actual.as_str()),
        ("tb.dut.choice", 780.0, "11111")
    );
    // Scoped, and limited to some signals.
    let o = DiffOptions {
        scope_a: Some("tb.dut".into()),
        signals: vec!["err".into(), "valid".into()],
        ..Default::default()
    };
    let r = diff_text(&a, &b, &o).unwrap();
    assert!(r.ok() && r.signals == 2, "{r}");
    let o = DiffOptions {
        scope_a: Some("tb.dut".into()),
        signals: vec!["nothing".into()],
        ..Default::default()
    };
    assert_eq!(
        diff_text(&a, &b, &o).unwrap_err().to_string(),
        "signal `nothing` is not in the first waveform"
    );
    // A renamed signal in the second file, found through the map.
    let renamed = b.replace(" choice [4:0]", " cand [4:0]");
    let o = DiffOptions {
        scope_a: Some("tb.dut".into()),
        map: SignalMap::from_toml_str("[signals]\ncand = \"choice\"\n").unwrap(),
        ..Default::default()
    };
    let r = diff_text(&a, &renamed, &o).unwrap();
    assert_eq!(r.first.unwrap().signal, "choice");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    /// Any bytes at all: a header and events, or an error that names a line;
    /// never a panic.
    #[test]
    fn the_reader_never_panics_on_random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        match VcdReader::new(&bytes[..]) {
            Err(e) => prop_assert!(e.to_string().starts_with("line "), "{}", e),
            Ok(mut r) => loop {
                match r.next_event() {
                    Ok(Some(_)) => {}
                    Ok(None) => break,
                    Err(e) => {
                        prop_assert!(e.to_string().starts_with("line "), "{}", e);
                        break;
                    }
                }
            },
        }
    }

    /// Random tokens in VCD's own vocabulary, which reach deeper than
    /// random bytes.
    #[test]
    fn the_reader_never_panics_on_random_tokens(tokens in proptest::collection::vec(
        prop::sample::select(vec![
            "$var", "wire", "real", "1", "8", "64", "!", "\"", "a", "[7:0]", "[0:3]", "$end",
            "$scope", "module", "$upscope", "$enddefinitions", "$timescale", "1ns", "10", "ps",
            "#0", "#5", "#3", "b1010", "bx", "0!", "1\"", "x!", "r1.5", "s", "$dumpvars",
            "$comment", "b", "#", "z!", "B10Z", "R2e3", "$dumpoff",
        ]),
        0..80,
    )) {
        let text = tokens.join(" ");
        if let Ok(mut r) = VcdReader::new(text.as_bytes()) {
            while let Ok(Some(_)) = r.next_event() {}
        }
    }

    /// A valid dump cut anywhere reads up to the cut: the header or the
    /// events, or an error naming a line.
    #[test]
    fn truncated_dumps_are_read_or_refused_by_line(cut in 0usize..4_000) {
        let vcd = model_vcd(Unit::BitStringDecode, 30, 1);
        let text = &vcd.as_bytes()[..cut.min(vcd.len())];
        match VcdReader::new(text) {
            Err(e) => prop_assert!(e.to_string().starts_with("line "), "{}", e),
            Ok(mut r) => {
                let mut times = 0;
                loop {
                    match r.next_event() {
                        Ok(Some(Event::Time(_))) => times += 1,
                        Ok(Some(_)) => {}
                        Ok(None) => break,
                        Err(e) => {
                            prop_assert!(e.to_string().starts_with("line "), "{}", e);
                            break;
                        }
                    }
                }
                prop_assert!(times <= 2 * 31 + 1);
            }
        }
    }
}

/// What a hand-written broken file gets from the command line: exit status
/// 2 and the file and line.
#[test]
fn the_command_line_names_the_file_and_line() {
    let dir = std::env::temp_dir().join(format!("wormcast-cosim-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.vcd");
    std::fs::write(
        &bad,
        "$timescale 1ns $end\n$scope module tb $end\n$var wire 2 ! a $end\n$upscope $end\n$enddefinitions $end\n#0\nb0 !\n#10\nb111 !\n",
    )
    .unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_wormcast"))
        .args(["wave", "diff", bad.to_str().unwrap(), bad.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr).trim(),
        format!(
            "error: {}: line 9: a 3-bit value for the 2-bit variable with code `!`",
            bad.display()
        )
    );
    let _ = BitString::zeros(1);
    std::fs::remove_dir_all(&dir).ok();
}

/// `wormcast ARGS` in `dir`: exit status, standard output, standard error.
fn cli(dir: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_wormcast"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn scratch(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("wormcast-diff-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Every signal is accounted for: two renamed signals are two differences
/// each way (exit 1), not an "OK" over the rest; --ignore leaves them out,
/// and an --ignore that names nothing is refused.
#[test]
fn a_signal_in_one_file_only_is_a_difference() {
    let d = scratch("renamed");
    let a = model_vcd(Unit::BitStringDecode, 100, 3);
    let b = a
        .replace(" choice [", " choice2 [")
        .replace(" ud_out ", " ud_o ");
    std::fs::write(d.join("a.vcd"), &a).unwrap();
    std::fs::write(d.join("b.vcd"), &b).unwrap();
    let (code, out, _) = cli(&d, &["wave", "diff", "a.vcd", "b.vcd"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("ONLY IN THE FIRST WAVEFORM (2): `tb.dut.ud_out`, `tb.dut.choice`"),
        "{out}"
    );
    assert!(
        out.contains("ONLY IN THE SECOND WAVEFORM (2): `tb.dut.ud_o`, `tb.dut.choice2`"),
        "{out}"
    );
    let (code, out, _) = cli(
        &d,
        &[
            "wave",
            "diff",
            "a.vcd",
            "b.vcd",
            "--ignore",
            "tb.dut.choice*,tb.dut.ud_o*",
        ],
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.starts_with("OK: "), "{out}");
    let (code, _, err) = cli(
        &d,
        &["wave", "diff", "a.vcd", "b.vcd", "--ignore", "nothing"],
    );
    assert_eq!(
        (code, err.trim()),
        (
            2,
            "error: --ignore `nothing` names no signal of either waveform"
        )
    );
    // The same through --map, with no --scope: an entry names the end of a
    // path.
    std::fs::write(
        d.join("map.toml"),
        "[signals]\nchoice2 = \"choice\"\nud_o = \"ud_out\"\n",
    )
    .unwrap();
    let (code, out, _) = cli(&d, &["wave", "diff", "a.vcd", "b.vcd", "--map", "map.toml"]);
    assert_eq!(code, 0, "{out}");
    std::fs::write(d.join("bad.toml"), "[signals]\nnone = \"choice\"\n").unwrap();
    let (code, _, err) = cli(&d, &["wave", "diff", "a.vcd", "b.vcd", "--map", "bad.toml"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("the map names `none`, which is no signal of the second waveform"),
        "{err}"
    );
    // JSON: the lists, and no `"cycle": null`.
    let (_, out, _) = cli(&d, &["wave", "diff", "a.vcd", "b.vcd", "--json"]);
    let r: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r["only_in_first"].as_array().unwrap().len(), 2);
    assert!(
        !out.contains("\"cycle\""),
        "diffs on times report no cycles: {out}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// A signal whose width differs between the files is a difference (exit
/// 1), also when it is the only signal there is: not "nothing to
/// compare", which blamed the scopes for a signal both files hold.
#[test]
fn a_signal_of_another_width_is_a_difference_even_alone() {
    let d = scratch("width");
    let vcd = |w: usize, last: &str| {
        format!(
            "$timescale 1ns $end\n$scope module top $end\n$var wire {w} ! a $end\n\
             $upscope $end\n$enddefinitions $end\n#0\nb0 !\n#10\nb{last} !\n#20\n"
        )
    };
    std::fs::write(d.join("a.vcd"), vcd(4, "1")).unwrap();
    std::fs::write(d.join("b.vcd"), vcd(5, "1")).unwrap();
    let (code, out, err) = cli(&d, &["wave", "diff", "a.vcd", "b.vcd"]);
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(
        out.lines().next(),
        Some(
            "DIFFERENT TYPES: `top.a` is 4-bit logic in the first waveform and 5-bit logic in the second"
        ),
        "{out}"
    );
    let (code, out, _) = cli(&d, &["wave", "diff", "a.vcd", "b.vcd", "--json"]);
    assert_eq!(code, 1);
    let r: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r["type_clashes"][0]["signal"], "top.a");
    assert_eq!(r["signals"], 0);
    // The same widths compare as before.
    std::fs::write(d.join("b.vcd"), vcd(4, "1")).unwrap();
    let (code, out, _) = cli(&d, &["wave", "diff", "a.vcd", "b.vcd"]);
    assert_eq!((code, out.starts_with("OK: ")), (0, true), "{out}");
    let _ = std::fs::remove_dir_all(&d);
}

/// On clock edges, a clock that never rises in either file leaves no
/// cycle to compare: an error (exit 2), not an "OK" over no comparison,
/// however the other signals differ. A clock that rises in one file only
/// is a difference in length (exit 1).
#[test]
fn a_clock_that_never_rises_compares_nothing() {
    let d = scratch("norise");
    let vcd = |clock_at_10: char, a0: &str, a1: &str| {
        format!(
            "$timescale 1ns $end\n$scope module top $end\n$var wire 1 \" c $end\n\
             $var wire 2 ! a $end\n$upscope $end\n$enddefinitions $end\n\
             #0\n0\"\nb{a0} !\n#10\n{clock_at_10}\"\nb{a1} !\n#40\n"
        )
    };
    std::fs::write(d.join("a.vcd"), vcd('0', "00", "01")).unwrap();
    std::fs::write(d.join("b.vcd"), vcd('0', "11", "10")).unwrap();
    let (code, out, err) = cli(&d, &["wave", "diff", "a.vcd", "b.vcd", "--clock", "top.c"]);
    assert_eq!(
        (code, out.as_str(), err.trim()),
        (
            2,
            "",
            "error: the clock `top.c` never rises in either waveform: nothing to compare"
        )
    );
    // Without --clock the values are compared at their times.
    let (code, out, _) = cli(&d, &["wave", "diff", "a.vcd", "b.vcd"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.starts_with("MISMATCH: top.a at 0 ns"), "{out}");
    // The clock rises at 10 ns in the first file only.
    std::fs::write(d.join("a.vcd"), vcd('1', "00", "01")).unwrap();
    let (code, out, _) = cli(&d, &["wave", "diff", "a.vcd", "b.vcd", "--clock", "top.c"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.starts_with("DIFFERENT LENGTHS: the first waveform has 1 cycle, the second 0"),
        "{out}"
    );
    // Counts of one in the report are singular.
    let one = |v: char| {
        format!(
            "$timescale 1ns $end $scope module top $end $var wire 1 ! a $end $upscope $end \
             $enddefinitions $end\n#0\n{v}!\n"
        )
    };
    std::fs::write(d.join("o.vcd"), one('0')).unwrap();
    std::fs::write(d.join("p.vcd"), one('1')).unwrap();
    let (code, out, _) = cli(&d, &["wave", "diff", "o.vcd", "o.vcd"]);
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "OK: 1 time, 1 signal compared (1 comparison), no mismatch\n"
        )
    );
    let (code, out, _) = cli(&d, &["wave", "diff", "o.vcd", "p.vcd"]);
    assert_eq!(
        (code, out.as_str()),
        (
            1,
            "MISMATCH: top.a at 0 ns: expected 0, actual 1\n1 mismatch in 1 of 1 signal over 1 \
             time: top.a (1)\n"
        )
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// Values written before the first time (as Icarus writes parameters) are
/// the time-0 values; escaped identifiers compare by their unescaped
/// names; reals by value whatever their declared width.
#[test]
fn time_zero_escaped_names_and_real_widths() {
    let a = "$timescale 1ns $end $scope module tb $end\n\
        $var parameter 8 ! N $end $var wire 1 \" \\esc.name[3] $end $var real 1 # r $end\n\
        $upscope $end $enddefinitions $end\n\
        b00000101 !\n0\"\nr1.5 #\n#0\n#10\n1\"\nr2.50 #\n#20\n";
    let b = "$timescale 1 ps $end $scope module tb $end\n\
        $var wire 8 ! N [7:0] $end $var wire 1 \" esc.name[3] $end $var real 64 # r $end\n\
        $upscope $end $enddefinitions $end\n\
        #0\nb101 !\n0\"\nr1.5e0 #\n#10000\n1\"\nr2.5 #\n#20000\n";
    let r = diff_text(a, b, &DiffOptions::default()).unwrap();
    assert!(r.ok(), "{r}");
    assert_eq!((r.signals, r.times), (3, Some(2)));
    // A real that differs is named with both values.
    let c = b.replace("r2.5 #", "r2.25 #");
    let r = diff_text(a, &c, &DiffOptions::default()).unwrap();
    let m = r.first.clone().unwrap();
    assert_eq!(
        (
            m.signal.as_str(),
            m.time_ns,
            m.expected.as_str(),
            m.actual.as_str()
        ),
        ("tb.r", 10.0, "2.5", "2.25")
    );
    // A logic signal against a real is a difference of types, not an
    // error.
    let d = b
        .replace("$var real 64 # r $end", "$var wire 64 # r $end")
        .replace("r1.5e0 #", "b1 #")
        .replace("r2.5 #", "b10 #");
    let r = diff_text(a, &d, &DiffOptions::default()).unwrap();
    assert!(!r.ok());
    assert_eq!(r.type_clashes[0].signal, "tb.r");
    assert_eq!(
        (
            r.type_clashes[0].first.as_str(),
            r.type_clashes[0].second.as_str()
        ),
        ("real", "64-bit logic")
    );
}

/// A dump whose clock is half a cycle later (a testbench's, against the
/// model's): different on times, the same on clock edges, where a planted
/// difference is named with its cycle.
#[test]
fn on_clock_edges_the_phase_does_not_matter() {
    let a = model_vcd(Unit::SsrMdDecode, 300, 2);
    // Every time but 0 five nanoseconds later.
    let shift = |v: &str| -> String {
        v.lines()
            .map(|l| match l.strip_prefix('#') {
                Some(t) if t != "0" => format!("#{}\n", t.parse::<u64>().unwrap() + 5),
                _ => format!("{l}\n"),
            })
            .collect()
    };
    let shifted = shift(&a);
    let r = diff_text(&a, &shifted, &DiffOptions::default()).unwrap();
    assert!(!r.ok(), "the phase shows on times");
    let o = DiffOptions {
        clock: Some("tb.clk".into()),
        ..Default::default()
    };
    let r = diff_text(&a, &shifted, &o).unwrap();
    assert!(r.ok(), "{r}");
    assert_eq!((r.cycles, r.times), (Some(300), None));
    let bad = shift(&plant(&a, "kind", 150, "11"));
    let r = diff_text(&a, &bad, &o).unwrap();
    let m = r.first.clone().unwrap();
    assert_eq!(
        (m.signal.as_str(), m.cycle, m.actual.as_str()),
        ("tb.dut.kind", Some(150), "11")
    );
    assert_eq!(
        m.time_ns, 1_510.0,
        "cycle 150 starts at the first file's edge"
    );
    // A file with fewer cycles differs in length: cut before the rising
    // edge at 2005 ns, it keeps the 199 edges from 15 to 1995 ns.
    let cut: String = shifted
        .lines()
        .take_while(|l| *l != "#2005")
        .map(|l| format!("{l}\n"))
        .collect();
    let r = diff_text(&a, &cut, &o).unwrap();
    assert_eq!((r.cycles, r.cycles_second), (Some(300), Some(199)), "{r}");
    assert!(
        r.to_string()
            .contains("DIFFERENT LENGTHS: the first waveform has 300 cycles, the second 199")
    );
    // The values line counts the cycles compared, those both have (it
    // said "300 cycles" beside 199 cycles' comparisons).
    assert_eq!(r.comparisons % 199, 0, "{r}");
    assert!(
        r.to_string().contains(&format!(
            "values: the 199 cycles both have, {} signals compared ({} comparisons), no mismatch",
            r.signals, r.comparisons
        )),
        "{r}"
    );
}

/// A dump cut short passes every cycle it has, but fails --expect-cycles;
/// an unknown parameter or a map entry naming no port is an error.
#[test]
fn cosim_refuses_short_dumps_unknown_parameters_and_map_entries() {
    let vcd = model_vcd(Unit::BitStringDecode, 400, 6);
    let half: String = vcd
        .lines()
        .take_while(|l| *l != "#2005")
        .map(|l| format!("{l}\n"))
        .collect();
    let mut o = opts(Unit::BitStringDecode);
    let r = run(&half, &o).unwrap();
    assert!(r.ok());
    assert_eq!(r.cycles, Some(200));
    o.expect_cycles = Some(400);
    let r = run(&half, &o).unwrap();
    assert!(!r.ok());
    assert_eq!(
        r.to_string().lines().next().unwrap(),
        "FAIL: the waveform has 200 cycles; --expect-cycles asked for 400"
    );
    assert!(run(&vcd, &o).unwrap().ok());
    let mut o = opts(Unit::BitStringDecode);
    o.params = vec![("FOO".into(), 3)];
    assert_eq!(
        run(&vcd, &o).unwrap_err().to_string(),
        "the bitstring-decode unit has no parameter `FOO` (its parameters: N, P)"
    );
    let mut o = opts(Unit::BitStringDecode);
    o.map = SignalMap::from_toml_str("[signals]\nx = \"choise\"\n").unwrap();
    let e = run(&vcd, &o).unwrap_err().to_string();
    assert!(
        e.starts_with("the map names `choise` (for `x`), which is no port or parameter of the bitstring-decode unit"),
        "{e}"
    );
}

/// The issue's commands: a VCD declaring a 4-gigabit variable and a
/// stimulus of 2^64 - 1 edges are refused with a message, at once.
#[test]
fn absurd_sizes_are_refused() {
    let d = scratch("sizes");
    std::fs::write(
        d.join("huge.vcd"),
        "$timescale 1ns $end\n$scope module t $end\n$var wire 4294967295 ! a $end\n$upscope $end\n$enddefinitions $end\n",
    )
    .unwrap();
    let (code, _, err) = cli(&d, &["wave", "diff", "huge.vcd", "huge.vcd"]);
    assert_eq!(code, 2);
    assert_eq!(
        err.trim(),
        "error: huge.vcd: line 3: `a` is declared 4294967295 bits wide; wormcast reads variables of at most 1048576 bits"
    );
    let (code, _, err) = cli(
        &d,
        &[
            "vectors",
            "--unit",
            "bitstring-decode",
            "--cycles",
            "18446744073709551615",
            "-o",
            "v.hex",
        ],
    );
    assert_eq!(code, 2);
    assert!(
        err.contains(
            "cycles = 18446744073709551615: a testbench takes 1 to 2147483647 clock edges"
        ),
        "{err}"
    );
    let (code, _, err) = cli(
        &d,
        &[
            "vectors",
            "--unit",
            "bitstring-decode",
            "--cycles",
            "1e8",
            "-o",
            "v.hex",
        ],
    );
    assert_eq!(code, 2, "{err}");
    let _ = std::fs::remove_dir_all(&d);
}

/// A VCD read the plain way, to check `wave diff` and `cosim` against:
/// every variable's full name, width and changes, the last change at a
/// time standing for that time, a vector's value padded to its width.
/// It reads only what the model's dumps and the golden files hold: one
/// `$timescale` line, scalar and vector changes.
struct Plain {
    /// Femtoseconds per time unit.
    unit_fs: u64,
    vars: Vec<Var>,
    /// Each full name's place in `vars`.
    by_name: std::collections::HashMap<String, usize>,
}

/// A variable as [`Plain`] reads it.
struct Var {
    /// Full name: scopes and name joined by dots.
    name: String,
    width: usize,
    /// (time, value), one a time.
    changes: Vec<(u64, String)>,
}

impl Plain {
    fn new(text: &str) -> Plain {
        let mut lines = text.lines();
        let (mut scope, mut vars) = (Vec::new(), Vec::new());
        let mut codes: std::collections::HashMap<&str, Vec<usize>> = Default::default();
        let mut unit_fs = 0;
        for l in lines.by_ref() {
            let t: Vec<&str> = l.split_whitespace().collect();
            match t.first().copied() {
                Some("$timescale") => {
                    let per: u64 = match t[2] {
                        "fs" => 1,
                        "ps" => 1_000,
                        "ns" => 1_000_000,
                        "us" => 1_000_000_000,
                        u => panic!("unit {u}"),
                    };
                    unit_fs = t[1].parse::<u64>().unwrap() * per;
                }
                Some("$scope") => scope.push(t[2]),
                Some("$upscope") => {
                    scope.pop();
                }
                Some("$var") => {
                    codes.entry(t[3]).or_default().push(vars.len());
                    let name = format!("{}.{}", scope.join("."), t[4]);
                    vars.push(Var {
                        name,
                        width: t[2].parse().unwrap(),
                        changes: Vec::new(),
                    });
                }
                Some("$enddefinitions") => break,
                _ => {}
            }
        }
        assert!(unit_fs > 0, "no $timescale line");
        let mut now = 0;
        for l in lines {
            let (value, code) = match l.as_bytes().first() {
                Some(b'#') => {
                    now = l[1..].parse().unwrap();
                    continue;
                }
                Some(b'0' | b'1' | b'x' | b'z') => (&l[..1], &l[1..]),
                Some(b'b') => l[1..].split_once(' ').unwrap(),
                Some(b'$') | None => continue,
                Some(_) => panic!("a change the plain reader does not read: {l}"),
            };
            for &i in &codes[code] {
                let var = &mut vars[i];
                let fill = if value.starts_with(['x', 'z']) {
                    &value[..1]
                } else {
                    "0"
                };
                let v = fill.repeat(var.width.saturating_sub(value.len())) + value;
                match var.changes.last_mut() {
                    Some((t, old)) if *t == now => *old = v,
                    _ => var.changes.push((now, v)),
                }
            }
        }
        let by_name = vars
            .iter()
            .enumerate()
            .map(|(i, v)| (v.name.clone(), i))
            .collect();
        Plain {
            unit_fs,
            vars,
            by_name,
        }
    }

    /// The value of variable `i` once every change at or before `t` (or,
    /// with `before`, strictly before it) is made: `x` before any.
    fn value(&self, i: usize, t: u64, before: bool) -> String {
        let var = &self.vars[i];
        let n = var
            .changes
            .partition_point(|&(c, _)| c < t || (!before && c == t));
        match n {
            0 => "x".repeat(var.width),
            n => var.changes[n - 1].1.clone(),
        }
    }

    fn index(&self, name: &str) -> usize {
        self.by_name[name]
    }

    /// The times of the rising edges (0 to 1; not x to 1) of `clock`.
    fn edges(&self, clock: &str) -> Vec<u64> {
        let mut last = "x";
        let mut edges = Vec::new();
        for (t, v) in &self.vars[self.index(clock)].changes {
            if last == "0" && v == "1" {
                edges.push(*t);
            }
            last = v;
        }
        edges
    }

    /// Each variable's value at the end of every cycle (just before the
    /// next rising edge; the last cycle's at the end of the file).
    fn cycles(&self, clock: &str) -> Vec<Vec<String>> {
        let edges = self.edges(clock);
        (0..self.vars.len())
            .map(|i| {
                (0..edges.len())
                    .map(|k| match edges.get(k + 1) {
                        Some(&next) => self.value(i, next, true),
                        None => self.value(i, u64::MAX, false),
                    })
                    .collect()
            })
            .collect()
    }
}

/// What a diff of `a` and `b` must report, worked out by the plain reader:
/// the differences per signal, and the earliest difference's time (fs) or
/// cycle with every signal that differs then. On clock edges, `None` when
/// the two files' cycles differ in number.
type Expected = (
    std::collections::BTreeMap<String, u64>,
    Option<(u64, Vec<String>)>,
);

fn expected_on_times(a: &Plain, b: &Plain) -> (Expected, u64) {
    let mut per = std::collections::BTreeMap::new();
    let mut first: Option<(u64, Vec<String>)> = None;
    let mut all = std::collections::BTreeSet::new();
    for (i, Var { name, changes, .. }) in a.vars.iter().enumerate() {
        let j = b.index(name);
        let times: std::collections::BTreeSet<u64> = changes
            .iter()
            .map(|c| c.0 * a.unit_fs)
            .chain(b.vars[j].changes.iter().map(|c| c.0 * b.unit_fs))
            .collect();
        all.extend(times.iter().copied());
        for t in times {
            if a.value(i, t / a.unit_fs, false) != b.value(j, t / b.unit_fs, false) {
                *per.entry(name.clone()).or_insert(0) += 1;
                match &mut first {
                    Some((ft, names)) if *ft == t => names.push(name.clone()),
                    Some((ft, _)) if *ft < t => {}
                    _ => first = Some((t, vec![name.clone()])),
                }
            }
        }
    }
    ((per, first), all.len() as u64)
}

/// [`Expected`] on the rising edges of `clock`, for the signals `keep`
/// accepts.
fn expected_on_edges(
    a: &Plain,
    b: &Plain,
    clock: &str,
    keep: impl Fn(&str) -> bool,
) -> Option<Expected> {
    let (sa, sb) = (a.cycles(clock), b.cycles(clock));
    if a.edges(clock).len() != b.edges(clock).len() {
        return None;
    }
    let mut per = std::collections::BTreeMap::new();
    let mut first: Option<(u64, Vec<String>)> = None;
    for (i, Var { name, .. }) in a.vars.iter().enumerate() {
        if !keep(name) {
            continue;
        }
        let j = b.index(name);
        let differ: Vec<u64> = (0..sa[i].len())
            .filter(|&k| sa[i][k] != sb[j][k])
            .map(|k| k as u64)
            .collect();
        if let Some(&k) = differ.first() {
            per.insert(name.clone(), differ.len() as u64);
            match &mut first {
                Some((fk, names)) if *fk == k => names.push(name.clone()),
                Some((fk, _)) if *fk < k => {}
                _ => first = Some((k, vec![name.clone()])),
            }
        }
    }
    Some((per, first))
}

/// One edit of a dump's value changes, at the change `i` modulo their
/// number: a bit of its value flipped (`x` and `z` made 0), the change
/// removed, or the change moved to the next time in the file.
#[derive(Clone, Debug)]
enum Change {
    Flip(usize, usize),
    Remove(usize),
    Later(usize),
}

fn changes() -> impl Strategy<Value = Vec<Change>> {
    let one = prop_oneof![
        (any::<usize>(), any::<usize>()).prop_map(|(i, b)| Change::Flip(i, b)),
        any::<usize>().prop_map(Change::Remove),
        any::<usize>().prop_map(Change::Later),
    ];
    proptest::collection::vec(one, 1..4)
}

/// `text` with `edits` made to the value changes of the variables whose
/// codes `codes` accepts.
fn edit(text: &str, edits: &[Change], codes: impl Fn(&str) -> bool) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let body = 1 + lines
        .iter()
        .position(|l| l.starts_with("$enddefinitions"))
        .unwrap();
    for e in edits {
        let at: Vec<usize> = (body..lines.len())
            .filter(|&k| {
                let l = &lines[k];
                match l.as_bytes().first() {
                    Some(b'0' | b'1' | b'x' | b'z') => codes(&l[1..]),
                    Some(b'b') => l.split_once(' ').is_some_and(|(_, c)| codes(c)),
                    _ => false,
                }
            })
            .collect();
        if at.is_empty() {
            break;
        }
        let pick = |i: usize| at[i % at.len()];
        match *e {
            Change::Flip(i, bit) => {
                let k = pick(i);
                let l = &lines[k];
                let end = l.find(' ').unwrap_or(1);
                let first = usize::from(l.starts_with('b'));
                let p = first + bit % (end - first);
                let flipped = match l.as_bytes()[p] {
                    b'0' => "1",
                    _ => "0",
                };
                lines[k].replace_range(p..p + 1, flipped);
            }
            Change::Remove(i) => {
                lines.remove(pick(i));
            }
            Change::Later(i) => {
                let k = pick(i);
                if let Some(next) = (k + 1..lines.len()).find(|&n| lines[n].starts_with('#')) {
                    let l = lines.remove(k);
                    lines.insert(next, l);
                }
            }
        }
    }
    lines.join("\n") + "\n"
}

/// The dumps the two checkers are held against the plain reader on: the
/// model's own dumps of its three units, and the four golden waveforms of
/// whole networks and units.
fn dumps() -> &'static [String] {
    static D: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    D.get_or_init(|| {
        let mut d: Vec<String> = Unit::ALL.iter().map(|&u| model_vcd(u, 120, 11)).collect();
        d.extend(
            [
                include_str!("../waveforms/unicast_two_switches.vcd"),
                include_str!("../waveforms/bitstring_three_switches.vcd"),
                include_str!("../waveforms/replication_one_branch_blocked.vcd"),
                include_str!("../waveforms/ssr_md_decode_unit.vcd"),
            ]
            .map(str::to_string),
        );
        d
    })
}

/// Asserts that `got` reports exactly `want`: every signal's count of
/// differences, and the first difference at `first_at` (the time in
/// femtoseconds, or the cycle) naming one of the signals that differ there.
fn same_report(
    got: &wormcast::wave::CompareReport,
    want: &Expected,
    first_at: impl Fn(&wormcast::wave::Mismatch) -> u64,
) -> std::result::Result<(), TestCaseError> {
    prop_assert_eq!(&got.per_signal, &want.0, "{}", got);
    prop_assert_eq!(got.mismatches, want.0.values().sum::<u64>());
    match (&got.first, &want.1) {
        (None, None) => {}
        (Some(m), Some((at, names))) => {
            prop_assert_eq!(first_at(m), *at, "{}", got);
            prop_assert!(names.contains(&m.signal), "{} not in {:?}", m.signal, names);
        }
        (g, w) => prop_assert!(false, "first: {:?} against {:?}", g, w),
    }
    Ok(())
}

/// Checks `wave diff` of `a` (whose plain reading is `pa`) and the VCD
/// `b`, on times and on the rising edges of the top scope's `clk`,
/// against the plain reading of the two.
fn holds_to_plain(a: &[u8], pa: &Plain, b: &str) -> std::result::Result<(), TestCaseError> {
    let pb = Plain::new(b);
    let compare = |o: &DiffOptions| {
        diff(
            WaveReader::from_bytes(a.to_vec()).unwrap(),
            WaveReader::from_bytes(b.as_bytes().to_vec()).unwrap(),
            o,
        )
        .unwrap()
    };
    let r = compare(&DiffOptions::default());
    let (want, times) = expected_on_times(pa, &pb);
    same_report(&r, &want, |m| (m.time_ns * 1e6).round() as u64)?;
    prop_assert_eq!(r.times, Some(times));

    let clock = &pa
        .vars
        .iter()
        .find(|v| v.name.ends_with(".clk") && v.name.matches('.').count() == 1)
        .unwrap()
        .name;
    let r = compare(&DiffOptions {
        clock: Some("clk".into()),
        ..Default::default()
    });
    match expected_on_edges(pa, &pb, clock, |_| true) {
        Some(want) => {
            same_report(&r, &want, |m| m.cycle.unwrap())?;
            prop_assert_eq!(r.cycles, Some(pa.edges(clock).len() as u64));
        }
        None => {
            prop_assert!(!r.ok());
            prop_assert_eq!(r.cycles_second, Some(pb.edges(clock).len() as u64), "{}", r);
        }
    }
    Ok(())
}

/// A network's dump as VCD and as FST: 150 cycles of anynet8x4 under
/// 20-flit uniform traffic at 0.1, every register.
fn network_dumps() -> &'static (String, Vec<u8>) {
    static D: std::sync::OnceLock<(String, Vec<u8>)> = std::sync::OnceLock::new();
    D.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("wormcast-plain-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let dump = |name: &str| {
            let traffic = Traffic::uniform(0.1, 20);
            let mut sys = System::new(&common::anynet(), &SimConfig::default(), &traffic).unwrap();
            let path = dir.join(name);
            let sink: Box<dyn WaveSink> = if name.ends_with(".fst") {
                Box::new(FstWriter::create(&path).unwrap())
            } else {
                Box::new(VcdWriter::create(&path).unwrap())
            };
            sys.attach_tracer(sink).unwrap();
            sys.run(150).unwrap();
            sys.finish_trace().unwrap();
            std::fs::read(&path).unwrap()
        };
        let vcd = String::from_utf8(dump("run.vcd")).unwrap();
        let fst = dump("run.fst");
        let _ = std::fs::remove_dir_all(&dir);
        (vcd, fst)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// `wave diff` of a dump and the same dump edited (values flipped,
    /// changes removed or moved later, the clock's among them) reports
    /// exactly what a plain reading of the two files gives: on times, each
    /// (change time, signal) pair that differs and the earliest; on clock
    /// edges, each (cycle, signal) pair and the first cycle, or different
    /// lengths when the clock's edges were edited away or in.
    #[test]
    fn diff_reports_what_a_plain_reading_finds(d in 0usize..7, edits in changes()) {
        let a = &dumps()[d];
        let b = edit(a, &edits, |_| true);
        holds_to_plain(a.as_bytes(), &Plain::new(a), &b)?;
    }

    /// `cosim` of a unit's own dump with its outputs edited reports
    /// exactly the (cycle, output) pairs a plain reading finds changed,
    /// and the first.
    #[test]
    fn cosim_reports_what_a_plain_reading_finds(u in 0usize..3, edits in changes()) {
        let unit = Unit::ALL[u];
        let a = &dumps()[u];
        let pa = Plain::new(a);
        // The unit's outputs, which the report names without the scope.
        let outputs: Vec<&str> = unit
            .build(&params())
            .unwrap()
            .ports()
            .iter()
            .filter(|p| p.dir == wormcast::switch::twin::Dir::Out)
            .map(|p| p.name)
            .collect();
        let codes: Vec<String> = outputs.iter().map(|o| code_of(a, o)).collect();
        let b = edit(a, &edits, |c| codes.iter().any(|o| o == c));
        let pb = Plain::new(&b);
        let port = |n: &str| n.strip_prefix("tb.dut.").unwrap_or(n).to_string();
        let (per, first) =
            expected_on_edges(&pa, &pb, "tb.clk", |n| outputs.contains(&port(n).as_str())).unwrap();
        let want = (
            per.into_iter().map(|(n, c)| (port(&n), c)).collect(),
            first.map(|(k, names)| (k, names.iter().map(|n| port(n)).collect())),
        );
        let r = run(&b, &opts(unit)).unwrap();
        same_report(&r, &want, |m| m.cycle.unwrap())?;
        prop_assert_eq!(r.cycles, Some(120));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// `wave diff` of an FST of a network's run (150 cycles of anynet8x4,
    /// every register) and its VCD twin, edited as above, reports what
    /// the plain reading of the two VCDs finds: the FST reader, and files
    /// of two formats, are held to it too.
    #[test]
    fn diff_of_an_fst_and_an_edited_vcd_reports_what_a_plain_reading_finds(edits in changes()) {
        let (vcd, fst) = network_dumps();
        holds_to_plain(fst, &Plain::new(vcd), &edit(vcd, &edits, |_| true))?;
    }
}

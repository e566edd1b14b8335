//! Waveforms: exact signal histories of one packet through two switches
//! (derived by hand from the pipeline of docs/timing.md), the VCD written
//! for them read back with the `vcd` crate, and GTKWave's own reader
//! accepting the file.

mod common;

use vcd::{Command, ReferenceIndex, TimescaleUnit, Value};
use wormcast::rtl::trace::MemorySink;
use wormcast::sim::{SimConfig, System, Traffic, WormSpec};
use wormcast::wave::{VcdWriter, gtkw_text};

/// sw0: port 0 node 0, port 1 to sw1; sw1: port 0 node 1, port 1 to sw0.
fn two_switches() -> wormcast::net::Network {
    common::net(&common::toml(2, 2, &[((0, 1), (1, 1))]))
}

/// One 3-flit packet from node 0 to node 1, traced into `sink`.
fn one_packet(sink: Box<dyn wormcast::rtl::trace::WaveSink>) -> System {
    let mut sys = System::new(&two_switches(), &SimConfig::default(), &Traffic::Idle).unwrap();
    sys.attach_tracer(sink).unwrap();
    sys.inject(0, 1, 3).unwrap();
    sys.run(14).unwrap();
    sys
}

fn h(pairs: &[(u64, &str)]) -> Vec<(u64, String)> {
    pairs.iter().map(|(c, v)| (*c, v.to_string())).collect()
}

#[test]
fn one_packet_through_two_switches_has_exact_waveforms() {
    let mem = MemorySink::new();
    let mut sys = one_packet(Box::new(mem.clone()));
    sys.finish_trace().unwrap();
    let check = |path: &str, want: &[(u64, &str)]| {
        assert_eq!(mem.history(path), h(want), "{path}");
    };
    // Node 0 drives flit i in cycle i; it is on the link in cycle i + 1.
    check("top.ep0.valid", &[(0, "0"), (1, "1"), (4, "0")]);
    check("top.ep0.head", &[(0, "0"), (1, "1"), (2, "0")]);
    check("top.ep0.tail", &[(0, "0"), (3, "1"), (4, "0")]);
    // Header byte: tag 0, destination 1; then payload bytes 0 and 1 (the
    // payload flit's index after the header).
    check(
        "top.ep0.data",
        &[
            (0, "00000000"),
            (1, "00000001"),
            (2, "00000000"),
            (3, "00000001"),
            (4, "00000000"),
        ],
    );
    check("top.ep0.tx_busy", &[(0, "0"), (1, "1"), (3, "0")]);
    check(
        "top.ep0.credits",
        &[(0, "1010000"), (1, "1001111"), (6, "1010000")],
    );
    // Switch 0 writes flit i in cycle i + 1 (visible in i + 2).
    check(
        "top.sw0.in0.buf_count",
        &[
            (0, "0000000000"),
            (2, "0000000001"),
            (3, "0000000010"),
            (4, "0000000011"),
            (6, "0000000000"),
        ],
    );
    check(
        "top.sw0.in0.packets",
        &[(0, "0000000"), (2, "0000001"), (6, "0000000")],
    );
    check(
        "top.sw0.in0.free_chunks",
        &[(0, "1010000"), (2, "1001111"), (6, "1010000")],
    );
    // The tail is read in cycle 5, its chunk freed and published: seen in 6.
    check(
        "top.sw0.in0.chunks_freed",
        &[(0, "0000000000000000"), (6, "0000000000000001")],
    );
    // The header is whole in cycle 2; decoded then, registered for cycle 3.
    check("top.sw0.dec0.valid", &[(0, "0"), (3, "1"), (4, "0")]);
    check("top.sw0.dec0.kind", &[(0, "xx"), (3, "00"), (4, "xx")]);
    check("top.sw0.dec0.target", &[(0, "x"), (3, "1"), (4, "x")]);
    check("top.sw0.dec0.down", &[(0, "x"), (3, "0"), (4, "x")]);
    // Unicast: one copy, routed by one of the candidate ports.
    check("top.sw0.dec0.choice", &[(0, "00"), (3, "10"), (4, "00")]);
    check("top.sw0.dec0.replicate", &[(0, "00")]);
    // Port strings belong to SSR and multi-drop headers.
    check("top.sw0.dec0.ports_in", &[(0, "xx")]);
    // Granted in cycle 3 with flit 0 through the crossbar; tail in cycle 5.
    check("top.sw0.out1.busy", &[(0, "0"), (4, "1"), (6, "0")]);
    check("top.sw0.out1.grant_in", &[(0, "x"), (4, "0"), (6, "x")]);
    check("top.sw0.out1.valid", &[(0, "0"), (4, "1"), (7, "0")]);
    // One chunk of switch 1's buffer taken in cycle 3, returned when switch
    // 1 reads the tail in cycle 8 (seen in 9).
    check(
        "top.sw0.out1.credits",
        &[(0, "1010000"), (4, "1001111"), (9, "1010000")],
    );
    // Switch 1: the header arrives in cycle 4, decoded in 5, sent from 6.
    check("top.sw1.dec1.valid", &[(0, "0"), (6, "1"), (7, "0")]);
    check("top.sw1.out0.valid", &[(0, "0"), (7, "1"), (10, "0")]);
    check(
        "top.sw1.out0.credits",
        &[(0, "1010000"), (7, "1001111"), (10, "1010000")],
    );
    // Node 1 takes flit i in cycle 7 + i: the tail is in its memory in
    // cycle 10 = L + h * (H + 2) + 1 = 3 + 2 * 3 + 1.
    check(
        "top.ep1.rx_flits",
        &[
            (0, &"0".repeat(32)),
            (8, &format!("{}1", "0".repeat(31))),
            (9, &format!("{}10", "0".repeat(30))),
            (10, &format!("{}11", "0".repeat(30))),
        ],
    );
    check(
        "top.ep1.rx_packets",
        &[(0, &"0".repeat(32)), (10, &format!("{}1", "0".repeat(31)))],
    );
    // Idle signals never change after cycle 0.
    check("top.sw1.in0.buf_count", &[(0, "0000000000")]);
    check("top.ep1.valid", &[(0, "0")]);
}

fn vcd_bytes() -> Vec<u8> {
    let out = common::Shared::default();
    let mut sys = one_packet(Box::new(VcdWriter::new(out.clone())));
    sys.finish_trace().unwrap();
    out.bytes()
}

#[test]
fn the_vcd_parses_back_with_the_vcd_crate() {
    let bytes = vcd_bytes();
    let mut p = vcd::Parser::new(&bytes[..]);
    let header = p.parse_header().unwrap();
    assert_eq!(
        header.timescale,
        Some((100, TimescaleUnit::PS)),
        "5 ns cycle, edges on 100 ps units"
    );
    let var = |path: &[&str]| {
        header
            .find_var(path)
            .unwrap_or_else(|| panic!("{path:?} not declared"))
            .clone()
    };
    let clk = var(&["top", "clk"]);
    let buf = var(&["top", "sw0", "in0", "buf_count"]);
    assert_eq!(
        (buf.size, buf.index),
        (10, Some(ReferenceIndex::Range(9, 0)))
    );
    let rx = var(&["top", "ep1", "rx_flits"]);
    assert_eq!(rx.size, 32);
    let valid = var(&["top", "sw1", "out0", "valid"]);
    assert_eq!((valid.size, valid.index), (1, None));

    let mut t = 0u64;
    let mut last: std::collections::HashMap<vcd::IdCode, String> = Default::default();
    let mut clk_edges = Vec::new();
    let mut rx_at = Vec::new();
    for cmd in p {
        match cmd.unwrap() {
            Command::Timestamp(x) => {
                assert!(x >= t, "time goes forward");
                t = x;
            }
            Command::ChangeScalar(id, v) => {
                if id == clk.code {
                    clk_edges.push((t, v));
                }
                let s = v.to_string();
                assert_ne!(
                    last.insert(id, s.clone()),
                    Some(s),
                    "only changes are written"
                );
            }
            Command::ChangeVector(id, v) => {
                let s: String = v.iter().map(|b| b.to_string()).collect();
                if id == rx.code {
                    rx_at.push((t, s.clone()));
                }
                assert_ne!(
                    last.insert(id, s.clone()),
                    Some(s),
                    "only changes are written"
                );
            }
            Command::Begin(_) | Command::End(_) => {}
            c => panic!("unexpected {c:?}"),
        }
    }
    // A rising edge every 50 units (5 ns), falling half way.
    let want: Vec<(u64, Value)> = (0..=14)
        .flat_map(|c| [(c * 50, Value::V1), (c * 50 + 25, Value::V0)])
        .collect();
    assert_eq!(clk_edges, want);
    // The receive counter steps at the rising edges of cycles 8, 9 and 10.
    let pad = |v: u32| format!("{v:032b}");
    assert_eq!(
        rx_at,
        vec![(0, pad(0)), (400, pad(1)), (450, pad(2)), (500, pad(3))]
    );
    assert!(t >= 15 * 50, "the last cycle is closed");
}

#[test]
#[cfg_attr(
    not(all(have_vcd2fst, have_fst2vcd)),
    ignore = "GTKWave's vcd2fst and fst2vcd are not installed"
)]
fn gtkwave_reads_the_vcd_and_the_save_file_names_real_signals() {
    let dir = std::env::temp_dir().join(format!("wormcast-gtkw-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let vcd = dir.join("one.vcd");
    std::fs::write(&vcd, vcd_bytes()).unwrap();
    let mem = MemorySink::new();
    one_packet(Box::new(mem.clone())).finish_trace().unwrap();
    let gtkw = gtkw_text(&vcd.to_string_lossy(), &mem.hierarchy());
    for line in gtkw.lines().filter(|l| l.starts_with("top.")) {
        let name = line.split('[').next().unwrap();
        assert!(
            mem.hierarchy().find(name).is_some() || name == "top.clk",
            "{line} is not a signal"
        );
    }
    // GTKWave's VCD reader, through its converter to FST.
    let fst = dir.join("one.fst");
    let out = std::process::Command::new("vcd2fst")
        .arg(&vcd)
        .arg(&fst)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "vcd2fst failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let back = std::process::Command::new("fst2vcd")
        .arg(&fst)
        .output()
        .unwrap();
    assert!(back.status.success());
    let text = String::from_utf8_lossy(&back.stdout);
    let vars = text.lines().filter(|l| l.starts_with("$var")).count();
    assert_eq!(
        vars,
        mem.hierarchy().signals.len() + 1,
        "every signal and the clock survive"
    );
    assert!(text.contains("buf_count"), "names survive");
    std::fs::remove_dir_all(&dir).ok();
}

/// The golden bit-string waveform (`waveforms/bitstring_three_switches`),
/// signal by signal: node 4 sends a worm for nodes 0, 3 and 5; each switch's
/// decode unit takes the 2-flit header (whole 2 cycles after its first flit
/// arrives) and registers its decision for the next cycle.
#[test]
fn a_bit_string_worm_through_three_switches_has_exact_decode_signals() {
    let mem = MemorySink::new();
    let net = common::net(common::TRIANGLE);
    let mut sys = System::new(&net, &SimConfig::default(), &Traffic::Idle).unwrap();
    sys.attach_tracer(Box::new(mem.clone())).unwrap();
    sys.inject_worm(
        4,
        &WormSpec::BitString {
            dests: vec![0, 3, 5],
        },
        2,
    )
    .unwrap();
    sys.run(19).unwrap();
    sys.finish_trace().unwrap();
    let check = |path: &str, want: &[(u64, &str)]| {
        assert_eq!(mem.history(&format!("top.{path}")), h(want), "{path}");
    };
    // Switch 2 (from node 4, port 0): nodes 0, 3, 5 (vectors print the
    // highest node or port leftmost); it reaches 3 and 5 but not 0 by down
    // links, so the worm goes up unchanged by one of its up ports 2 (to the
    // root) and 3 (to switch 1): the arbiter picks port 2.
    check("sw2.dec0.valid", &[(0, "0"), (4, "1"), (5, "0")]);
    check(
        "sw2.dec0.dests",
        &[(0, "xxxxxx"), (4, "101001"), (5, "xxxxxx")],
    );
    check("sw2.dec0.ud_in", &[(0, "x"), (4, "1"), (5, "x")]);
    check("sw2.dec0.ud_out", &[(0, "x"), (4, "1"), (5, "x")]);
    check("sw2.dec0.replicate", &[(0, "0000")]);
    check("sw2.dec0.choice", &[(0, "0000"), (4, "1100"), (5, "0000")]);
    // Header byte 0xd0: tag, kind 10 (bit-string), up-down bit; then the
    // destination byte 0x29 (nodes 5, 3, 0) and payload bytes 0 and 1.
    check(
        "sw2.out2.data",
        &[
            (0, "00000000"),
            (5, "11010000"),
            (6, "00101001"),
            (7, "00000000"),
            (8, "00000001"),
            (9, "00000000"),
        ],
    );
    // The root (from switch 2, port 3) reaches everything: up-down bit
    // cleared, three copies, each header cut to its port's string.
    check("sw0.dec3.valid", &[(0, "0"), (8, "1"), (9, "0")]);
    check("sw0.dec3.down", &[(0, "x"), (8, "0"), (9, "x")]);
    check("sw0.dec3.ud_out", &[(0, "x"), (8, "0"), (9, "x")]);
    check(
        "sw0.dec3.replicate",
        &[(0, "0000"), (8, "1101"), (9, "0000")],
    );
    check(
        "sw0.dec3.hdr_out0",
        &[(0, "xxxxxx"), (8, "000001"), (9, "xxxxxx")],
    );
    check(
        "sw0.dec3.hdr_out2",
        &[(0, "xxxxxx"), (8, "001000"), (9, "xxxxxx")],
    );
    check(
        "sw0.dec3.hdr_out3",
        &[(0, "xxxxxx"), (8, "100000"), (9, "xxxxxx")],
    );
    for (port, dest) in [(0, "00000001"), (2, "00001000"), (3, "00100000")] {
        check(
            &format!("sw0.out{port}.data"),
            &[
                (0, "00000000"),
                (9, "11000000"),
                (10, dest),
                (11, "00000000"),
                (12, "00000001"),
                (13, "00000000"),
            ],
        );
    }
    // Switches 1 and 2 (from the root, port 2) each deliver one copy.
    check("sw1.dec2.down", &[(0, "x"), (12, "1"), (13, "x")]);
    check(
        "sw1.dec2.replicate",
        &[(0, "0000"), (12, "0010"), (13, "0000")],
    );
    check(
        "sw2.dec2.replicate",
        &[(0, "0000"), (12, "0010"), (13, "0000")],
    );
    check(
        "sw2.dec2.hdr_out1",
        &[(0, "xxxxxx"), (12, "100000"), (13, "xxxxxx")],
    );
    let one = format!("{}1", "0".repeat(31));
    let zero = "0".repeat(32);
    check("ep0.rx_packets", &[(0, &zero), (13, &one)]);
    check("ep3.rx_packets", &[(0, &zero), (17, &one)]);
    check("ep5.rx_packets", &[(0, &zero), (17, &one)]);
}

/// Every golden waveform converts with GTKWave's reader.
#[test]
#[cfg_attr(
    not(all(have_vcd2fst, have_fst2vcd)),
    ignore = "GTKWave's vcd2fst and fst2vcd are not installed"
)]
fn gtkwave_reads_every_golden_waveform() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("waveforms");
    let tmp = std::env::temp_dir().join(format!("wormcast-golden-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "vcd") {
            let out = std::process::Command::new("vcd2fst")
                .arg(&p)
                .arg(tmp.join("x.fst"))
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}: {}",
                p.display(),
                String::from_utf8_lossy(&out.stderr)
            );
            n += 1;
        }
    }
    assert_eq!(n, 4, "the golden waveforms of waveforms/README.md");
    std::fs::remove_dir_all(&tmp).ok();
}
/// The golden `waveforms/replication_one_branch_blocked`, signal by signal:
/// the root replicates a 14-flit worm to node 0 (port 0) and node 1 (port
/// 1), whose one-chunk receive buffers allow 8 flits before a freed chunk
/// comes back. Port 0 pauses one cycle for it; port 1 waits until node 1
/// frees its chunk at cycle 40. The root's input buffer keeps the second
/// chunk for port 1 all that time.
#[test]
fn one_branch_blocked_the_other_goes_on() {
    let net = common::net(common::TRIANGLE);
    let cfg = SimConfig {
        endpoint_buffer_flits: 8,
        ..Default::default()
    };
    let mut sys = System::new(&net, &cfg, &Traffic::Idle).unwrap();
    let mem = MemorySink::new();
    sys.attach_tracer(Box::new(mem.clone())).unwrap();
    sys.hold_node(1, 40).unwrap();
    sys.inject_worm(2, &WormSpec::BitString { dests: vec![0, 1] }, 12)
        .unwrap();
    sys.run(64).unwrap();
    sys.finish_trace().unwrap();
    let check = |path: &str, want: &[(u64, &str)]| {
        assert_eq!(mem.history(&format!("top.{path}")), h(want), "{path}");
    };
    check(
        "sw0.dec2.replicate",
        &[(0, "0000"), (8, "0011"), (9, "0000")],
    );
    // Port 0: flits 0-7 on the link in cycles 9-16, flits 8-13 in 18-23.
    check(
        "sw0.out0.valid",
        &[(0, "0"), (9, "1"), (17, "0"), (18, "1"), (24, "0")],
    );
    check(
        "sw0.out0.credits",
        &[(0, "1"), (9, "0"), (17, "1"), (18, "0"), (24, "1")],
    );
    // Port 1: flits 0-7 in 9-16, then nothing until node 1's freed chunk
    // is seen in 41: flits 8-13 in 42-47.
    check(
        "sw0.out1.valid",
        &[(0, "0"), (9, "1"), (17, "0"), (42, "1"), (48, "0")],
    );
    check(
        "sw0.out1.credits",
        &[(0, "1"), (9, "0"), (41, "1"), (42, "0"), (48, "1")],
    );
    check(
        "ep1.chunks_freed",
        &[
            (0, &"0".repeat(16)),
            (41, &format!("{}1", "0".repeat(15))),
            (48, &format!("{}10", "0".repeat(14))),
        ],
    );
    // The root's input from switch 1 fills to the 14 flits (2 chunks) and
    // holds them until port 1 moves past the first chunk (seen in 42).
    check(
        "sw0.in2.free_chunks",
        &[
            (0, "1010000"),
            (6, "1001111"),
            (14, "1001110"),
            (42, "1001111"),
            (47, "1010000"),
        ],
    );
    assert_eq!(
        mem.value_at("top.sw0.in2.buf_count", 41).as_deref(),
        Some("0000001110")
    );
    assert_eq!(
        mem.value_at("top.sw0.in2.buf_count", 42).as_deref(),
        Some("0000000110")
    );
}

/// A large network's FST stores each block's frame (the values it starts
/// from, a character per bit of every signal) packed: at 256 switches the
/// frame is most of an unpacked block, which made the FST of this run
/// 8.5 times the size of its VCD (32.7 MB against 3.8 MB). It is now a
/// quarter of it, and reads back as the VCD does, signal for signal.
#[test]
fn a_large_network_s_fst_packs_its_frames() {
    use wormcast::wave::{DiffOptions, FstWriter, WaveReader, diff};
    let net = common::generated(256, 1024, 1);
    let traffic = Traffic::uniform(0.004, 20);
    let dir = std::env::temp_dir().join(format!("wormcast-frames-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fst = dir.join("run.fst");
    let vcd = common::Shared::default();
    for to_fst in [true, false] {
        let mut sys = System::new(&net, &SimConfig::default(), &traffic).unwrap();
        let sink: Box<dyn wormcast::rtl::trace::WaveSink> = if to_fst {
            Box::new(FstWriter::create(&fst).unwrap())
        } else {
            Box::new(VcdWriter::new(vcd.clone()))
        };
        sys.attach_tracer(sink).unwrap();
        sys.run(400).unwrap();
        sys.finish_trace().unwrap();
    }
    let (f, v) = (
        std::fs::metadata(&fst).unwrap().len(),
        vcd.bytes().len() as u64,
    );
    assert!(f * 3 < v, "FST {f} bytes against VCD {v}");
    let r = diff(
        WaveReader::open(&fst).unwrap(),
        WaveReader::from_bytes(vcd.bytes()).unwrap(),
        &DiffOptions::default(),
    )
    .unwrap();
    assert_eq!(r.mismatches, 0, "{r:?}");
    assert!(r.signals > 10_000, "{}", r.signals);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Every block's frame holds the values the changes before it leave. A
/// viewer that opens a file at a later time starts from that block's frame
/// (a read from cycle 0 never looks at the frames after the first), so
/// each block is read here from just past its start with the `fst-reader`
/// crate, and every signal is found as a read from time 0 has it at the
/// block's end. The network's bit strings are 256 bits wide: the frames
/// are long runs of `0` and `x` around the strings of worms' destinations,
/// packed from their runs (`src/wave/runzlib.rs`).
#[test]
fn every_frame_holds_the_values_its_block_starts_from() {
    use fst_reader::{FstFilter, FstReader, FstSignalValue};
    use std::collections::HashMap;
    use wormcast::wave::FstWriter;
    let net = common::generated(64, 256, 1);
    let traffic = Traffic::multicast(0.05, 16, 8, wormcast::header::Kind::BitString);
    let dir = std::env::temp_dir().join(format!("wormcast-every-frame-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("run.fst");
    let mut sys = System::new(&net, &SimConfig::default(), &traffic).unwrap();
    sys.attach_tracer(Box::new(FstWriter::create(&path).unwrap()))
        .unwrap();
    sys.run(6000).unwrap();
    sys.finish_trace().unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let blocks = common::fst_blocks(&bytes);
    assert!(blocks.len() >= 3, "{blocks:?}");
    let mut r = FstReader::open(std::io::Cursor::new(bytes)).unwrap();
    // Each signal's last value read between `from` and `to`.
    let mut read = |from: u64, to: u64| {
        let mut last: HashMap<usize, String> = HashMap::new();
        r.read_signals(&FstFilter::filter_time(from, to), |_, h, v| {
            if let FstSignalValue::String(s) = v {
                last.insert(h.get_index(), String::from_utf8_lossy(s).into_owned());
            }
            Ok::<(), ()>(())
        })
        .unwrap();
        last
    };
    let mut wide_known = 0;
    for &(start, end) in &blocks[1..] {
        assert!(end > start + 1, "{blocks:?}");
        let whole = read(0, end);
        let late = read(start + 1, end);
        assert_eq!(late.len(), whole.len(), "every signal, from block {start}");
        for (h, v) in &whole {
            assert_eq!(late.get(h), Some(v), "signal {h} from the block at {start}");
        }
        wide_known += whole
            .values()
            .filter(|v| v.len() == 256 && !v.contains('x'))
            .count();
    }
    // The frames hold known bit strings, not only unknown ones.
    assert!(wide_known > 100, "{wide_known}");
    std::fs::remove_dir_all(&dir).unwrap();
}

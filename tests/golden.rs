//! Golden waveforms in `waveforms/`: each is regenerated and compared byte
//! for byte. After a reviewed change to the model or the writer, refresh them
//! with `WORMCAST_BLESS=1 cargo test --release --test golden` and review the
//! diff.

mod common;

use std::path::PathBuf;
use wormcast::header::{Formats, Header};
use wormcast::net::PortMask;
use wormcast::rtl::BitString;
use wormcast::sim::{SimConfig, System, Traffic, WormSpec};
use wormcast::switch::twin::{Params, Unit, hierarchy, trace};
use wormcast::wave::{CosimOptions, SignalMap, VcdWriter, WaveReader, cosim, gtkw_text};

fn golden(name: &str, bytes: &[u8]) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("waveforms")
        .join(name);
    if std::env::var_os("WORMCAST_BLESS").is_some() {
        std::fs::write(&path, bytes).unwrap();
        return;
    }
    let want = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if want != bytes {
        let (w, g) = (
            String::from_utf8_lossy(&want),
            String::from_utf8_lossy(bytes),
        );
        let line = w
            .lines()
            .zip(g.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(w.lines().count().min(g.lines().count()));
        panic!(
            "{} differs from the regenerated waveform at line {}: golden {:?}, now {:?}",
            path.display(),
            line + 1,
            w.lines().nth(line),
            g.lines().nth(line)
        );
    }
}

/// One 3-flit packet from node 0 to node 1 across two switches (the run
/// whose signals `tests/waveform.rs` checks one by one).
#[test]
fn unicast_through_two_switches() {
    let net = common::net(&common::toml(2, 2, &[((0, 1), (1, 1))]));
    let mut sys = System::new(&net, &SimConfig::default(), &Traffic::Idle).unwrap();
    let out = common::Shared::default();
    sys.attach_tracer(Box::new(
        VcdWriter::new(out.clone()).with_comment("one 3-flit packet, node 0 -> node 1"),
    ))
    .unwrap();
    sys.inject(0, 1, 3).unwrap();
    sys.run(12).unwrap();
    let h = sys.trace_hierarchy().unwrap().clone();
    sys.finish_trace().unwrap();
    let bytes = out.bytes();
    golden("unicast_two_switches.vcd", &bytes);
    golden(
        "unicast_two_switches.gtkw",
        gtkw_text("unicast_two_switches.vcd", &h).as_bytes(),
    );
}

/// One bit-string worm from node 4 to nodes 0, 3 and 5 with 2 payload
/// flits: switch 2 does not reach node 0 by down links and sends it up to
/// the root, which clears the up-down bit and replicates it three ways,
/// each copy's header cut to its port's restricted string ({0}, {3}, {5}).
/// Tails arrive in cycles 13 (node 0) and 17 (nodes 3 and 5).
#[test]
fn bit_string_worm_through_three_switches() {
    let net = common::net(common::TRIANGLE);
    let cfg = SimConfig {
        record_deliveries: true,
        ..Default::default()
    };
    let mut sys = System::new(&net, &cfg, &Traffic::Idle).unwrap();
    let out = common::Shared::default();
    sys.attach_tracer(Box::new(VcdWriter::new(out.clone()).with_comment(
        "one bit-string worm, node 4 -> nodes 0, 3, 5, 2 payload flits",
    )))
    .unwrap();
    let id = sys
        .inject_worm(
            4,
            &WormSpec::BitString {
                dests: vec![0, 3, 5],
            },
            2,
        )
        .unwrap();
    sys.run(19).unwrap();
    assert_eq!(sys.arrivals(id), vec![(0, 13), (3, 17), (5, 17)]);
    let h = sys.trace_hierarchy().unwrap().clone();
    sys.finish_trace().unwrap();
    golden("bitstring_three_switches.vcd", &out.bytes());
    golden(
        "bitstring_three_switches.gtkw",
        gtkw_text("bitstring_three_switches.vcd", &h).as_bytes(),
    );
}

/// Switch 1 of the triangle (`tests/common`) as the SSR / multi-drop decode
/// unit sees it: node ports 0 and 1, port 2 up to the root, port 3 down to
/// switch 2; routes toward 0 by port 2 (phase up only) and toward 2 by
/// port 3.
fn ssr_md_vectors() -> Vec<Vec<BitString>> {
    let (p, s) = (4u32, 3u32);
    let f = Formats::new(1, s, p);
    let mut route = BitString::zeros(2 * 3 * 4);
    let row = |d: usize, down: bool| (2 * d + down as usize) * 4;
    route.set(row(0, false) + 2, true);
    route.set(row(2, false) + 3, true);
    route.set(row(2, true) + 3, true);
    let bit = |b: bool| BitString::from_indices(1, b.then_some(0));
    let field = |w: usize, v: u64| {
        let mut b = BitString::zeros(w);
        b.set_field(0, w, v);
        b
    };
    let m = |ports: &[usize]| PortMask(ports.iter().fold(0, |m, &q| m | 1 << q));
    let header = |h: Option<Header>, raw: &[u8]| {
        let mut bytes = Vec::new();
        match h {
            Some(h) => f.encode(&h, &mut bytes).unwrap(),
            None => bytes.extend_from_slice(raw),
        }
        bytes.resize(3, 0x5a); // the window is 3 bytes; junk after a header
        let mut b = BitString::zeros(24);
        for (k, &x) in bytes.iter().take(3).enumerate() {
            b.set_field(8 * (2 - k), 8, x as u64);
        }
        b
    };
    let ssr = |sw: u32, ports: &[usize]| {
        Some(Header::Ssr {
            switch: sw,
            ports: m(ports),
        })
    };
    let md = |pairs: &[(u32, &[usize])]| {
        Some(Header::MultiDrop {
            pairs: pairs.iter().map(|&(sw, q)| (sw, m(q))).collect(),
        })
    };
    // (rst, hdr_valid, phase_down, header, or raw bytes)
    type Step<'a> = (bool, bool, bool, Option<Header>, &'a [u8]);
    let steps: Vec<Step> = vec![
        (true, false, false, None, &[0]),
        (false, true, false, ssr(1, &[0, 1]), &[]),
        (false, true, true, ssr(2, &[1]), &[]),
        (false, true, true, ssr(0, &[0]), &[]),
        (false, true, false, ssr(1, &[3]), &[]),
        (false, true, false, md(&[(1, &[1]), (2, &[0, 1])]), &[]),
        (false, true, false, md(&[(0, &[0, 1]), (1, &[0])]), &[]),
        (false, true, false, md(&[(1, &[0]), (1, &[1])]), &[]),
        (false, true, false, None, &[0x83, 0x01]),
        (false, false, false, None, &[0]),
    ];
    steps
        .into_iter()
        .map(|(rst, valid, down, h, raw)| {
            vec![
                bit(rst),
                bit(valid),
                bit(down),
                field(2, 1),
                field(4, 0b0011),
                route.clone(),
                header(h, raw),
            ]
        })
        .collect()
}

/// The SSR / multi-drop decode unit on hand-picked headers: SSR delivered
/// here (replicate 0011) and routed on (choice 1000); no route going down
/// to the root (err 8); a port string naming a link (err 6); multi-drop
/// matching here, replicating to port 1 and sending one copy on toward
/// switch 2 without the first pair (strip, first byte 0xa1); multi-drop for
/// the root (choice 0100); one switch twice (err 7); switch 3 of 3 (err 3).
/// `tests/cosim.rs` and `tests/hdl.rs` check the Verilog against the same
/// model; here the reviewed waveform itself.
#[test]
fn ssr_md_decode_unit() {
    let v = ssr_md_vectors();
    let mut twin = Unit::SsrMdDecode
        .build(&Params {
            ports: 4,
            switches: 3,
            ..Params::default()
        })
        .unwrap();
    let out = common::Shared::default();
    let mut w = VcdWriter::new(out.clone())
        .with_comment("the SSR / multi-drop decode unit of switch 1 of the triangle, 10 headers");
    trace(twin.as_mut(), v.iter().cloned(), 10_000, &mut w).unwrap();
    drop(w);
    let bytes = out.bytes();
    // What the model registered (err, replicate, choice, strip, hdr_first
    // per edge) is the reviewed content; cosim agrees with the dump.
    let r = cosim(
        &mut WaveReader::from_bytes(bytes.clone()).unwrap(),
        &CosimOptions {
            unit: Unit::SsrMdDecode,
            scope: "tb.dut".into(),
            clock: None,
            map: SignalMap::identity(),
            params: Vec::new(),
            expect_cycles: None,
        },
    )
    .unwrap();
    assert!(r.ok() && r.cycles == Some(10), "{r}");
    golden("ssr_md_decode_unit.vcd", &bytes);
    golden(
        "ssr_md_decode_unit.gtkw",
        gtkw_text("ssr_md_decode_unit.vcd", &hierarchy(twin.as_ref())).as_bytes(),
    );
}

/// Asynchronous replication with one branch blocked: node 2 sends a
/// bit-string worm (2-flit header, 12 payload flits) to nodes 0 and 1; the
/// root replicates it to ports 0 and 1. Node 1's receive buffer is one
/// chunk (8 flits) and it frees nothing before cycle 40, so the root's
/// port 1 stops after 8 flits while port 0 sends all 14; the root's input
/// buffer keeps the chunk port 1 has not read until it goes on.
#[test]
fn replication_with_one_branch_blocked() {
    let net = common::net(common::TRIANGLE);
    let cfg = SimConfig {
        endpoint_buffer_flits: 8,
        record_deliveries: true,
        ..Default::default()
    };
    let mut sys = System::new(&net, &cfg, &Traffic::Idle).unwrap();
    let out = common::Shared::default();
    sys.attach_tracer(Box::new(VcdWriter::new(out.clone()).with_comment(
        "a bit-string worm from node 2 to nodes 0 and 1, node 1 blocked until cycle 40",
    )))
    .unwrap();
    sys.hold_node(1, 40).unwrap();
    let id = sys
        .inject_worm(2, &WormSpec::BitString { dests: vec![0, 1] }, 12)
        .unwrap();
    sys.run(64).unwrap();
    // Node 0: 14 + 2 * 4 + 1 = 23, and one cycle more because its buffer
    // is one chunk too: the chunk it frees on taking flit 7 reaches the
    // root a cycle after flit 8 could have gone. Node 1: the root sends
    // flit 8 when node 1's freed chunk reaches it in 41, the tail 5 cycles
    // later, in node 1's memory 2 cycles after that.
    assert_eq!(sys.arrivals(id), vec![(0, 23 + 1), (1, 41 + 5 + 2)]);
    let h = sys.trace_hierarchy().unwrap().clone();
    sys.finish_trace().unwrap();
    golden("replication_one_branch_blocked.vcd", &out.bytes());
    golden(
        "replication_one_branch_blocked.gtkw",
        gtkw_text("replication_one_branch_blocked.vcd", &h).as_bytes(),
    );
}

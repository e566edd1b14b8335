//! Golden waveforms in `waveforms/`: each is regenerated and compared byte
//! for byte. After a reviewed change to the model or the writer, refresh them
//! with `WORMCAST_BLESS=1 cargo test --release --test golden` and review the
//! diff.

mod common;

use std::path::PathBuf;
use wormcast::sim::{SimConfig, System, Traffic, WormSpec};
use wormcast::wave::{VcdWriter, gtkw_text};

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

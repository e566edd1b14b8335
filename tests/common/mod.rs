//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::io::Write;
use std::sync::{Arc, Mutex};
use wormcast::net::{IrregularParams, Network, Topology};

/// Held by each test of a file whose tests run threads of their own: they
/// run one at a time (on a machine of two cores, two tests of two threads
/// each would make every cycle of both wait for a descheduled thread).
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Takes [`ONE_AT_A_TIME`] for the test that holds the guard.
pub fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

/// A `Write` whose bytes a test can read after the writer is gone.
#[derive(Clone, Default)]
pub struct Shared(pub Arc<Mutex<Vec<u8>>>);

impl Shared {
    /// The bytes written so far.
    pub fn bytes(&self) -> Vec<u8> {
        self.0.lock().unwrap().clone()
    }
}

impl Write for Shared {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Seed 000's generated irregular network (section 6.3): `switches`
/// 8-port switches at 80% connectivity, `nodes` nodes, drawn from `seed`.
pub fn generated(switches: u32, nodes: u32, seed: u64) -> Network {
    let p = IrregularParams {
        switches,
        ports: 8,
        nodes,
        seed,
        ..Default::default()
    };
    Network::new(&p.generate().unwrap()).unwrap()
}

/// The paper's default system: 32 nodes, eight 8-port switches, 80%
/// connectivity, seed 1.
pub fn default_net() -> Network {
    Network::new(&IrregularParams::default().generate().unwrap()).unwrap()
}

/// The benchmark network (BookSim anynet, 8 switches x 4 nodes).
pub fn anynet() -> Network {
    Network::load(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/benches/anynet8x4.toml"
    ))
    .unwrap()
}

/// A network from TOML text.
pub fn net(text: &str) -> Network {
    Network::new(&Topology::from_toml_str(text).unwrap()).unwrap()
}

/// A link as ((switch, port), (switch, port)).
pub type Wire = ((u32, u32), (u32, u32));

/// TOML for `switches` switches of `ports` ports, the given links and one
/// node on port 0 of each switch.
pub fn toml(switches: u32, ports: u32, links: &[Wire]) -> String {
    let mut t = String::new();
    for s in 0..switches {
        t += &format!("[[switch]]\nid = {s}\nports = {ports}\n");
    }
    for (a, b) in links {
        t += &format!("[[link]]\na = [{}, {}]\nb = [{}, {}]\n", a.0, a.1, b.0, b.1);
    }
    for s in 0..switches {
        t += &format!("[[node]]\nid = {s}\nat = [{s}, 0]\n");
    }
    t
}

/// A triangle of 4-port switches, two nodes on each: 0 - 1 and 0 - 2 lead
/// down from the root, 1 - 2 is a same-level link (down from 1 to 2).
pub const TRIANGLE: &str = "
[[switch]]
id = 0
ports = 4
[[switch]]
id = 1
ports = 4
[[switch]]
id = 2
ports = 4
[[link]]
a = [0, 2]
b = [1, 2]
[[link]]
a = [0, 3]
b = [2, 2]
[[link]]
a = [1, 3]
b = [2, 3]
[[node]]
id = 0
at = [0, 0]
[[node]]
id = 1
at = [0, 1]
[[node]]
id = 2
at = [1, 0]
[[node]]
id = 3
at = [1, 1]
[[node]]
id = 4
at = [2, 0]
[[node]]
id = 5
at = [2, 1]
";

/// Runs `cmd` with `input` written to its standard input through a pipe,
/// by a thread of its own, as another program in a pipeline would (a
/// reader that stops early closes the pipe: not an error here).
pub fn fed(cmd: &mut std::process::Command, input: Vec<u8>) -> std::process::Output {
    use std::process::Stdio;
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let feed = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let o = child.wait_with_output().unwrap();
    feed.join().unwrap();
    o
}

/// The value-change blocks of FST file `bytes`, as (start time, end time):
/// the blocks are walked by their type byte and 8-byte length.
pub fn fst_blocks(bytes: &[u8]) -> Vec<(u64, u64)> {
    let be = |at: usize| u64::from_be_bytes(bytes[at..at + 8].try_into().unwrap());
    let (mut at, mut out) = (0, Vec::new());
    while at < bytes.len() {
        if bytes[at] == 8 {
            out.push((be(at + 9), be(at + 17)));
        }
        at += 1 + be(at + 1) as usize;
    }
    out
}

/// The last time stamp (`#T`) of the waveform at `path` as `wormcast wave
/// to-vcd` writes it out; the waveform must read back whole.
pub fn last_time(path: &std::path::Path) -> Option<String> {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_wormcast"))
        .args(["wave", "to-vcd"])
        .arg(path)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{}: {}",
        path.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .rfind(|l| l.starts_with('#'))
        .map(str::to_string)
}

/// Asserts that the views of the waveform at `path` (`.gtkw`, `.sucl`) are
/// beside it and that it reads back up to time stamp `last`.
pub fn assert_ended_with_views(path: &std::path::Path, last: &str) {
    for view in ["gtkw", "sucl"] {
        assert!(
            path.with_extension(view).exists(),
            "{}: no .{view}",
            path.display()
        );
    }
    assert_eq!(last_time(path).as_deref(), Some(last), "{}", path.display());
}

//! Malformed waveforms: random bytes, and random mutations of real VCD and
//! FST files (bytes changed, removed, inserted, bits flipped), read through
//! the same reader `cosim` and `wave diff` use. Every one is read or
//! refused with a message that says where or what; none panics, aborts or
//! hangs. (GHW files are read in a child process by the command-line tool;
//! tests/real_tools.rs mutates one through it.)

mod common;

use proptest::prelude::*;
use std::sync::OnceLock;
use wormcast::sim::{SimConfig, System, Traffic};
use wormcast::wave::{DiffOptions, FstWriter, VcdWriter, WaveReader, diff, diff_files};

/// One traced run of the benchmark network: 300 cycles of 20-flit uniform
/// traffic, every register of 8 switches and 32 endpoints.
fn run_dump(fst: bool) -> Vec<u8> {
    let net = common::anynet();
    let mut sys = System::new(&net, &SimConfig::default(), &Traffic::uniform(0.1, 20)).unwrap();
    let dir = std::env::temp_dir().join(format!("wormcast-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(if fst { "run.fst" } else { "run.vcd" });
    if fst {
        sys.attach_tracer(Box::new(FstWriter::create(&path).unwrap()))
            .unwrap();
    } else {
        sys.attach_tracer(Box::new(VcdWriter::create(&path).unwrap()))
            .unwrap();
    }
    sys.run(300).unwrap();
    sys.finish_trace().unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    bytes
}

fn vcd() -> &'static [u8] {
    static V: OnceLock<Vec<u8>> = OnceLock::new();
    V.get_or_init(|| run_dump(false))
}

fn fst() -> &'static [u8] {
    static F: OnceLock<Vec<u8>> = OnceLock::new();
    F.get_or_init(|| run_dump(true))
}

/// Reads every event; returns the error message, if any.
fn read_all(bytes: Vec<u8>) -> Option<String> {
    let mut r = match WaveReader::from_bytes(bytes) {
        Ok(r) => r,
        Err(e) => return Some(e.to_string()),
    };
    loop {
        match r.next_event() {
            Ok(Some(_)) => {}
            Ok(None) => return None,
            Err(e) => return Some(e.to_string()),
        }
    }
}

/// What an error about a malformed file starts with: a VCD line, or an
/// FST byte offset or the FST reader's own complaint.
fn clear(msg: &str) -> bool {
    msg.starts_with("line ")
        || msg.starts_with("malformed FST")
        || msg.starts_with("this FST file is malformed")
        || msg.starts_with("the FST timescale")
        || msg.contains(" is declared ")
}

#[derive(Clone, Debug)]
enum Edit {
    Set(usize, u8),
    Remove(usize),
    Insert(usize, u8),
    Flip(usize, u8),
}

fn apply(bytes: &[u8], edits: &[Edit]) -> Vec<u8> {
    let mut b = bytes.to_vec();
    for e in edits {
        if b.is_empty() {
            break;
        }
        match *e {
            Edit::Set(i, v) => {
                let i = i % b.len();
                b[i] = v;
            }
            Edit::Remove(i) => {
                let i = i % b.len();
                b.remove(i);
            }
            Edit::Insert(i, v) => {
                let i = i % b.len();
                b.insert(i, v);
            }
            Edit::Flip(i, bit) => {
                let i = i % b.len();
                b[i] ^= 1 << (bit % 8);
            }
        }
    }
    b
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    let one = prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(i, v)| Edit::Set(i, v)),
        any::<usize>().prop_map(Edit::Remove),
        (any::<usize>(), any::<u8>()).prop_map(|(i, v)| Edit::Insert(i, v)),
        (any::<usize>(), any::<u8>()).prop_map(|(i, v)| Edit::Flip(i, v)),
    ];
    proptest::collection::vec(one, 1..8)
}

#[test]
fn the_unmutated_dumps_read_whole_and_agree() {
    assert_eq!(read_all(vcd().to_vec()), None);
    assert_eq!(read_all(fst().to_vec()), None);
    let a = WaveReader::from_bytes(vcd().to_vec()).unwrap();
    let b = WaveReader::from_bytes(fst().to_vec()).unwrap();
    let r = wormcast::wave::diff(a, b, &Default::default()).unwrap();
    assert!(r.ok(), "{r}");
    assert_eq!(r.signals, 1949);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1_000))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        if let Some(e) = read_all(bytes) {
            prop_assert!(clear(&e), "{}", e);
        }
    }

    /// Random bytes after a valid FST header block still meet the checks.
    #[test]
    fn random_blocks_after_an_fst_header_never_panic(tail in proptest::collection::vec(any::<u8>(), 0..600)) {
        let mut b = fst()[..330].to_vec();
        b.extend(tail);
        if let Some(e) = read_all(b) {
            prop_assert!(clear(&e), "{}", e);
        }
    }

    #[test]
    fn a_mutated_vcd_is_read_or_refused_by_line(e in edits()) {
        if let Some(e) = read_all(apply(vcd(), &e)) {
            prop_assert!(clear(&e), "{}", e);
        }
    }

    #[test]
    fn a_mutated_fst_is_read_or_refused(e in edits()) {
        if let Some(e) = read_all(apply(fst(), &e)) {
            prop_assert!(clear(&e), "{}", e);
        }
    }
}

/// The report of two files compared by `diff_files` (which takes the FST
/// fast path when both are FST) and by the streaming `diff`, as JSON; an
/// error as its message.
fn both_ways(a: &[u8], b: &[u8], o: &DiffOptions) -> (String, String) {
    let dir = std::env::temp_dir().join(format!(
        "wormcast-both-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let (pa, pb) = (dir.join("a.fst"), dir.join("b.fst"));
    std::fs::write(&pa, a).unwrap();
    std::fs::write(&pb, b).unwrap();
    let show = |r: wormcast::Result<wormcast::wave::CompareReport>| match r {
        Ok(r) => serde_json::to_string(&r).unwrap(),
        Err(e) => format!("error: {}", e.root()),
    };
    let fast = show(diff_files(&pa, &pb, o, |p| WaveReader::open(p)));
    let slow = show((|| {
        diff(
            WaveReader::from_bytes(a.to_vec())?,
            WaveReader::from_bytes(b.to_vec())?,
            o,
        )
    })());
    let _ = std::fs::remove_dir_all(&dir);
    (fast, slow)
}

/// A second traced run: other traffic, so most values differ.
fn other_fst() -> &'static [u8] {
    static F: OnceLock<Vec<u8>> = OnceLock::new();
    F.get_or_init(|| {
        let net = common::anynet();
        let cfg = SimConfig {
            seed: 9,
            ..SimConfig::default()
        };
        let mut sys = System::new(&net, &cfg, &Traffic::uniform(0.2, 4)).unwrap();
        let path = std::env::temp_dir().join(format!("wormcast-other-{}.fst", std::process::id()));
        sys.attach_tracer(Box::new(FstWriter::create(&path).unwrap()))
            .unwrap();
        sys.run(250).unwrap();
        sys.finish_trace().unwrap();
        let b = std::fs::read(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        b
    })
}

/// Two FST files compared signal by signal give the streaming diff's
/// report to the counts: equal files, files that differ almost
/// everywhere (and are of different lengths), with options.
#[test]
fn the_fst_fast_path_reports_what_the_streaming_diff_does() {
    let cases: Vec<DiffOptions> = vec![
        DiffOptions::default(),
        DiffOptions {
            scope_a: Some("top.sw3".into()),
            ..Default::default()
        },
        DiffOptions {
            ignore: vec!["top.ep*".into()],
            ..Default::default()
        },
        DiffOptions {
            signals: vec!["top.sw0.in0.buf_count".into(), "top.clk".into()],
            ..Default::default()
        },
    ];
    for o in &cases {
        for (a, b) in [(fst(), fst()), (fst(), other_fst()), (other_fst(), fst())] {
            let (fast, slow) = both_ways(a, b, o);
            assert_eq!(fast, slow, "{o:?}");
        }
    }
    let (fast, _) = both_ways(fst(), other_fst(), &DiffOptions::default());
    assert!(fast.contains("\"mismatches\":") && !fast.contains("\"mismatches\":0"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// A mutated FST against the original: the fast path answers what the
    /// streaming diff answers, or falls back to it; it never accepts a
    /// file the streaming reader refuses.
    #[test]
    fn the_fst_fast_path_agrees_on_mutated_files(e in edits()) {
        let m = apply(fst(), &e);
        let (fast, slow) = both_ways(fst(), &m, &DiffOptions::default());
        prop_assert_eq!(fast, slow);
        let (fast, slow) = both_ways(&m, other_fst(), &DiffOptions::default());
        prop_assert_eq!(fast, slow);
    }
}

/// A value-change block whose start time lies outside the file's span (here
/// past its own end) was read two different ways by the two paths of the
/// FST library; it is now refused, the same way by both.
#[test]
fn a_block_starting_past_its_end_is_refused_by_both_paths() {
    let mut m = fst().to_vec();
    // Walk the blocks (type, 8-byte length) to the first value changes.
    let mut off = 0usize;
    while ![1u8, 5, 8].contains(&m[off]) {
        off += 1 + u64::from_be_bytes(m[off + 1..off + 9].try_into().unwrap()) as usize;
    }
    m[off + 9] = 1; // the start time's top byte
    let (fast, slow) = both_ways(fst(), &m, &DiffOptions::default());
    assert_eq!(fast, slow);
    assert!(
        fast.starts_with(&format!(
            "error: malformed FST: byte {off}: a value-change block spans times 72057594037927936 to"
        )),
        "{fast}"
    );
}

/// Broken data of a signal the diff does not compare (here one
/// outside `--signals`) is refused by the fast path as by the streaming
/// reader: the fast path decodes every signal, not only the compared ones
/// (a mutation found it reporting names where the streaming reader
/// refused the file).
#[test]
fn broken_data_of_a_signal_not_compared_is_refused_by_both_paths() {
    let b = fst();
    // A byte of some signal's changes, 12 kB past the clock's, deep in the
    // value-change block (the file is 38 kB, the block starts at 3 kB).
    assert_eq!(b.len(), 37649, "the dump changed: find another byte");
    let m = apply(b, &[Edit::Set(15514, 1)]);
    let o = DiffOptions {
        signals: vec!["top.clk".into()],
        ..Default::default()
    };
    let (fast, slow) = both_ways(b, &m, &o);
    assert_eq!(fast, slow);
    assert!(slow.starts_with("error: malformed FST"), "{slow}");
}

/// A signal's data that is marked LZ4-packed but decompresses to nothing
/// (found by the fuzz test above: a flipped bit turned a "stored as it is"
/// length of 0 into 1) is refused by both paths, as the streaming reader
/// finds no first time delta in it.
#[test]
fn a_signal_whose_data_unpacks_to_nothing_is_refused_by_both_paths() {
    let b = fst();
    assert_eq!(b.len(), 37649, "the dump changed: find another byte");
    // The length byte before one signal's single data byte.
    let m = apply(b, &[Edit::Flip(18736, 0)]);
    let (fast, slow) = both_ways(b, &m, &DiffOptions::default());
    assert_eq!(fast, slow);
    assert_eq!(slow, "error: malformed FST: Failed to read FST file.");
}

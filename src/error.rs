//! The crate's error type.

use std::fmt;
use std::path::PathBuf;

/// Where in a topology file an item was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    /// `switch`, `link` or `node`.
    pub kind: &'static str,
    /// 1-based position among the items of its kind in the file.
    pub index: usize,
    /// 1-based line of the item's `[[kind]]` header, when read from text.
    pub line: Option<usize>,
}

impl fmt::Display for Item {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "line {l}: {} #{}", self.kind, self.index),
            None => write!(f, "{} #{}", self.kind, self.index),
        }
    }
}

/// Everything that can go wrong in wormcast. Every variant names the
/// offending item, value or file.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// An error inside a named file.
    #[error("{path}: {source}")]
    InFile {
        /// The file.
        path: PathBuf,
        /// What is wrong in it.
        source: Box<Error>,
    },
    /// TOML that does not parse, or has unknown or missing fields.
    #[error("line {line}, column {column}: {message}")]
    Toml {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The parser's message.
        message: String,
    },
    /// A BookSim anynet file ([`crate::net::booksim`]) that does not
    /// parse, or names what the model cannot build.
    #[error("{}{message} (BookSim anynet file)", line_prefix(*.line))]
    Anynet {
        /// 1-based line (0: the file as a whole).
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A topology with no switches.
    #[error("the topology has no switches")]
    NoSwitches,
    /// A topology with no nodes.
    #[error("the topology has no nodes")]
    NoNodes,
    /// A topology larger than the model handles.
    #[error("the topology has {count} {what}; wormcast handles at most {max}")]
    TooLarge {
        /// `switches` or `nodes`.
        what: &'static str,
        /// How many it has.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// A network whose routing tables, with the rest of its simulation,
    /// would not fit in memory.
    #[error(
        "the routing tables of {switches} switches take {} MB (2 x switches² port masks) and the rest of the network about {} MB, more than the {} MB of memory available",
        bytes / 1_000_000,
        rest / 1_000_000,
        available / 1_000_000
    )]
    TablesTooLarge {
        /// Its switches.
        switches: usize,
        /// Bytes the tables need.
        bytes: u128,
        /// Bytes reckoned for the rest of a simulation of it (its ports'
        /// units and buffers, its nodes).
        rest: u128,
        /// Bytes of memory available.
        available: u64,
    },
    /// A mesh, torus or hypercube of wormhole or tree routers whose
    /// simulation is reckoned past the memory available
    /// (`engine::direct_reckoning`), refused before it is built.
    #[error(
        "configuration: topology = {topology}: a simulation of its {routers} {router} routers ({ports} ports) is reckoned at {} MB, more than the {} MB of memory available",
        bytes / 1_000_000,
        available / 1_000_000
    )]
    DirectTooLarge {
        /// The topology, as its spec prints.
        topology: String,
        /// The router model's name.
        router: &'static str,
        /// Its routers.
        routers: u64,
        /// Their ports, external and internal.
        ports: u64,
        /// Bytes reckoned.
        bytes: u128,
        /// Bytes of memory available.
        available: u64,
    },
    /// A run past saturation whose packets, queued at their sources and
    /// filling the network, would outgrow the memory available, stopped
    /// before they do.
    #[error(
        "cycle {cycle}: {packets} packets wait at their sources and {in_flight} are in the network, and the run has grown by {} MB since it began; twice as many at that rate take about {} MB more, and with half as much again to spare that is more than the {} MB of memory available: the network is past saturation; bound the queues (--source-queue, or source_queue_packets in the configuration), lower the load or run fewer cycles",
        grown / 1_000_000,
        more / 1_000_000,
        available / 1_000_000
    )]
    QueuesTooLarge {
        /// The cycle it stopped at.
        cycle: u64,
        /// Packets queued at the sources.
        packets: u64,
        /// Packets in the network.
        in_flight: u64,
        /// Bytes the process has grown by since the run began.
        grown: u64,
        /// Bytes twice the packets would take more, at the rate so far.
        more: u64,
        /// Bytes of memory available.
        available: u64,
    },
    /// A run of the engine past saturation whose messages waiting at
    /// their sources (or in flight) would outgrow the memory available,
    /// stopped before they do.
    #[error(
        "cycle {cycle}: {messages} messages wait at their sources or are in flight and the run has grown by {} MB since it began; up to twice as many (at most {most}, {source_queue} a node) take about {} MB more at that rate, and with half as much again to spare that is more than the {} MB of memory available: the network is past saturation; bound the queues (--source-queue, or traffic.source_queue in the configuration), lower the load or run fewer cycles",
        grown / 1_000_000,
        more / 1_000_000,
        available / 1_000_000
    )]
    BacklogTooLarge {
        /// The cycle it stopped at.
        cycle: u64,
        /// Messages outstanding.
        messages: u64,
        /// The most there can be: the nodes times their source queue.
        most: u64,
        /// Messages a node may have outstanding.
        source_queue: u32,
        /// Bytes the process has grown by since the run began.
        grown: u64,
        /// Bytes up to twice the messages (at most `most`) take more, at
        /// the rate so far.
        more: u64,
        /// Bytes of memory available.
        available: u64,
    },
    /// A topology file whose TOML would not fit in memory as it is parsed,
    /// refused before it is.
    #[error(
        "parsing {} of TOML takes about {} ({per_byte} bytes a byte of text), more than the {} of memory available",
        crate::memory::megabytes(*text as u128),
        crate::memory::megabytes(*bytes),
        crate::memory::megabytes(*available as u128)
    )]
    ParseTooLarge {
        /// Bytes of text.
        text: usize,
        /// Bytes reckoned per byte of text.
        per_byte: u64,
        /// Bytes reckoned for parsing it.
        bytes: u128,
        /// Bytes of memory available.
        available: u64,
    },
    /// A trace whose state would not fit in memory.
    #[error(
        "tracing {signals} signals takes about {} MB ({per_signal} bytes a signal), more than the {} MB of memory available",
        bytes / 1_000_000,
        available / 1_000_000
    )]
    TraceTooLarge {
        /// Signals declared.
        signals: usize,
        /// Bytes reckoned per signal.
        per_signal: u64,
        /// Bytes reckoned for tracing them.
        bytes: u128,
        /// Bytes of memory available.
        available: u64,
    },
    /// A switch with an unusable number of ports.
    #[error("{item}: switch {id} has {ports} ports; a switch has 1 to 64 ports")]
    BadPortCount {
        /// The switch entry.
        item: Item,
        /// Its id.
        id: u32,
        /// Its port count.
        ports: u32,
    },
    /// Two switches or two nodes with the same id.
    #[error("{second}: duplicate {kind} id {id} (first used at {first})")]
    DuplicateId {
        /// `switch` or `node`.
        kind: &'static str,
        /// The id.
        id: u32,
        /// The first entry with it.
        first: Item,
        /// The second entry with it.
        second: Item,
    },
    /// Ids that do not run 0..n-1.
    #[error("{kind} ids must run from 0 to {}: id {missing} is missing", .count.saturating_sub(1))]
    IdGap {
        /// `switch` or `node`.
        kind: &'static str,
        /// The smallest missing id.
        missing: u32,
        /// Number of entries of that kind.
        count: usize,
    },
    /// A reference to a switch id that is not declared.
    #[error("{item}: switch {switch} does not exist")]
    UnknownSwitch {
        /// The entry.
        item: Item,
        /// The switch id.
        switch: u32,
    },
    /// A port number beyond the switch's ports.
    #[error(
        "{item}: port [{switch}, {port}] is out of range: switch {switch} has ports 0 to {}",
        .ports.saturating_sub(1)
    )]
    PortOutOfRange {
        /// The entry.
        item: Item,
        /// The switch.
        switch: u32,
        /// The port.
        port: u32,
        /// The switch's port count.
        ports: u32,
    },
    /// One port attached to two things.
    #[error("{second}: port [{switch}, {port}] is already used by {first}")]
    PortUsedTwice {
        /// The switch.
        switch: u32,
        /// The port.
        port: u32,
        /// The entry that used it first.
        first: Item,
        /// The entry that used it again.
        second: Item,
    },
    /// A link between two ports of one switch.
    #[error(
        "{item}: link from switch {switch} to itself (a link must join two different switches)"
    )]
    SelfLink {
        /// The entry.
        item: Item,
        /// The switch.
        switch: u32,
    },
    /// A switch graph that is not connected.
    #[error(
        "the switch graph is disconnected: switch(es) {unreachable:?} cannot be reached from switch 0"
    )]
    Disconnected {
        /// Switches not reachable from switch 0.
        unreachable: Vec<u32>,
    },
    /// Parameters of the irregular-topology generator that cannot be met.
    #[error("cannot generate the topology: {0}")]
    Generator(String),
    /// A configuration value out of its range.
    #[error("configuration: {field} = {value}: {reason}")]
    Config {
        /// The field.
        field: &'static str,
        /// Its value as written.
        value: String,
        /// Why it is refused.
        reason: String,
    },
    /// A waveform whose window the run never reached: it ended at cycle
    /// `last` (a stop rule met, a replay finished) before the window's
    /// first cycle `from`, so no file was written.
    #[error(
        "configuration: {field} = {from}: past the run's last cycle, {last}: the waveform holds nothing"
    )]
    WindowNotReached {
        /// What the user called the first cycle (`trace-from` on the
        /// command line, `output.trace_from`, `trace_from`: the window's
        /// `WindowNames`).
        field: &'static str,
        /// The window's first cycle.
        from: u64,
        /// The run's last cycle.
        last: u64,
    },
    /// An input buffer that cannot hold the largest packet (seed 000 section
    /// 3.4.2: replication is deadlock-free only when it can).
    #[error(
        "input buffer of {} is not larger than the largest packet of {}; seed 000 section \
         3.4.2 needs buffers larger than the largest packet for deadlock-free replication",
        counted((*.buffer_flits).into(), "flits"),
        counted((*.packet_flits).into(), "flits")
    )]
    BufferTooSmall {
        /// Input buffer size.
        buffer_flits: u32,
        /// Largest packet.
        packet_flits: u32,
    },
    /// A node id that does not exist.
    #[error("node {node} does not exist (the network has {})", node_range(*.nodes))]
    UnknownNode {
        /// The id.
        node: u64,
        /// Number of nodes.
        nodes: u32,
    },
    /// A multicast tree or set that cannot be used.
    #[error("bad multicast tree: {0}")]
    BadTree(String),
    /// A header or packet that the hardware cannot carry.
    #[error("bad packet: {0}")]
    BadPacket(String),
    /// A multicast's destinations that cannot be used: none, the source
    /// among them, or a node listed twice.
    #[error("bad destination list: {0}")]
    BadDests(String),
    /// The model broke one of its own invariants (a route that is not
    /// up*/down*, a lost or duplicated flit, a flow-control overrun).
    #[error("model fault at cycle {cycle}: {what}")]
    Fault {
        /// The cycle.
        cycle: u64,
        /// What went wrong, and where.
        what: String,
    },
    /// A run's drain phase ran out of cycles with messages still in the
    /// network: a saturated network or a very slow one, not a model fault
    /// (a deadlock is reported as [`Error::Deadlock`]).
    #[error(
        "the network did not drain within {} ({} outstanding) at cycle {cycle}",
        counted(*limit, "cycles"),
        counted(*outstanding, what)
    )]
    NotDrained {
        /// The cycle the drain gave up.
        cycle: u64,
        /// The drain's limit in cycles.
        limit: u64,
        /// How many were still outstanding.
        outstanding: u64,
        /// What was counted, in the plural: `messages` or `packets`.
        what: &'static str,
    },
    /// A run, or a sweep, stopped part way because the process was asked
    /// to stop ([`crate::interrupt`]): Ctrl-C, or a batch system ending
    /// the job.
    #[error("stopped by {signal} {what}")]
    Interrupted {
        /// The signal that asked: `SIGINT`, `SIGTERM`, `signal N`.
        signal: String,
        /// Where it stopped: `at cycle N`, or a sweep's jobs done.
        what: String,
    },
    /// The watchdog found places that wait for each other in a cycle.
    #[error("{0}")]
    Deadlock(Box<crate::deadlock::DeadlockReport>),
    /// A deadlock in a direct network, with its waiting cycle.
    #[error("{0}")]
    DirectDeadlock(Box<crate::deadlock::WaitReport>),
    /// A deadlock of tree-based multicast worms, with its waiting cycle.
    #[error("{0}")]
    TreeDeadlock(Box<crate::deadlock::TreeWaitReport>),
    /// A unit driven port by port ([`crate::switch::twin::drive`]) given a
    /// port it does not have, or a value wider than its port.
    #[error("{unit}: {what}")]
    Port {
        /// The unit (`bitstring-decode`).
        unit: &'static str,
        /// What is wrong, naming the port.
        what: String,
    },
    /// A VCD stream could not be written.
    #[error("VCD: {0}")]
    Vcd(String),
    /// A VCD file that does not parse.
    #[error("line {line}: {what}")]
    VcdParse {
        /// 1-based line of the offending token.
        line: u64,
        /// What is wrong.
        what: String,
    },
    /// A waveform that cannot be compared or co-simulated as asked (a
    /// missing scope or signal, a width that does not fit the unit).
    #[error("{0}")]
    Wave(String),
    /// JSON output failed.
    #[error("JSON: {0}")]
    Json(#[from] serde_json::Error),
}

impl Error {
    /// A read or write of `path` failed.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    /// A configuration value refused: the field, its value as written
    /// and why.
    pub fn config(field: &'static str, value: impl ToString, reason: impl Into<String>) -> Error {
        Error::Config {
            field,
            value: value.to_string(),
            reason: reason.into(),
        }
    }

    /// This error, as found in the file `path`.
    pub fn in_file(self, path: impl Into<PathBuf>) -> Error {
        Error::InFile {
            path: path.into(),
            source: Box::new(self),
        }
    }

    /// The innermost error, past any file wrappers.
    pub fn root(&self) -> &Error {
        match self {
            Error::InFile { source, .. } => source.root(),
            e => e,
        }
    }
}

/// Makes the folder `dir` (an output folder, `--out`) and the folders
/// above it that are not there, or says why it cannot: where a file stands
/// in the way, which one (the system's own error, "File exists", names
/// neither which part of the path is a file nor that it should be a
/// folder).
pub fn make_dir(dir: impl AsRef<std::path::Path>) -> Result<()> {
    let dir = dir.as_ref();
    // What stands in the way: a file, or something else that is not a
    // folder (a device such as /dev/full).
    let blocker = || dir.ancestors().find(|a| a.exists() && !a.is_dir());
    std::fs::create_dir_all(dir).map_err(|e| match blocker() {
        Some(file) => Error::Config {
            field: "folder",
            value: dir.display().to_string(),
            reason: if file.is_file() {
                format!("{} is a file, not a folder", file.display())
            } else {
                format!("{} is not a folder", file.display())
            },
        },
        None => Error::io(dir, e),
    })
}

/// The largest text input [`read_text`] reads: 256 MiB (a topology of
/// 16,384 switches is a few MB).
pub const MAX_TEXT_BYTES: u64 = 256 << 20;

/// Reads a text input (a topology, a configuration, a sweep file, a trace of
/// messages) of at most [`MAX_TEXT_BYTES`], naming the file in any error.
/// Bytes that are not UTF-8 are refused as soon as they are read, so a
/// binary file fails at once; a file or device longer than the limit (one
/// that never ends included) is refused once the limit is passed.
pub fn read_text(path: impl AsRef<std::path::Path>) -> Result<String> {
    use std::io::Read;
    let path = path.as_ref();
    let fail = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let bad = |what: String| fail(std::io::Error::new(std::io::ErrorKind::InvalidData, what));
    let mut f = std::fs::File::open(path).map_err(fail)?;
    let mut text = Vec::new();
    let mut block = vec![0u8; 1 << 16];
    // Bytes known to be whole UTF-8 characters.
    let mut checked = 0;
    loop {
        let n = match f.read(&mut block) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(fail(e)),
        };
        if (text.len() + n) as u64 > MAX_TEXT_BYTES {
            return Err(bad(format!(
                "larger than {} MiB, the most a text input may be",
                MAX_TEXT_BYTES >> 20
            )));
        }
        text.extend_from_slice(&block[..n]);
        match std::str::from_utf8(&text[checked..]) {
            Ok(_) => checked = text.len(),
            // A character cut by the end of the block: read on.
            Err(e) if e.error_len().is_none() => checked += e.valid_up_to(),
            Err(e) => {
                return Err(bad(format!(
                    "not UTF-8 text (byte {})",
                    checked + e.valid_up_to()
                )));
            }
        }
    }
    String::from_utf8(text).map_err(|e| {
        bad(format!(
            "not UTF-8 text (byte {}: a character cut short at the end)",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// Writes the file `path` whole with `write`, or leaves none: should a
/// write fail once the file is made (a full disk, a quota, a limit on a
/// file's size), the part written is removed, since a text file cut short
/// at a line reads as a whole one with less in it (a topology with fewer
/// nodes, a table with fewer rows), and the error says so. Anything but a
/// regular file (`/dev/full`, a pipe) is left as it is.
pub(crate) fn write_whole(
    path: &std::path::Path,
    write: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> std::io::Result<()>,
) -> Result<()> {
    let file = std::fs::File::create(path).map_err(|e| Error::io(path, e))?;
    let mut w = std::io::BufWriter::new(file);
    let written = match write(&mut w) {
        Ok(()) => w.into_inner().map(drop).map_err(|e| e.into_error()),
        Err(e) => {
            // Closed before it is removed (the drop flushes what is left).
            drop(w);
            Err(e)
        }
    };
    written.map_err(|source| {
        let what = if remove_written(path) {
            "the unfinished file was removed"
        } else {
            "the file is unfinished"
        };
        Error::io(
            path,
            std::io::Error::new(source.kind(), format!("{source}; {what}")),
        )
    })
}

/// Removes the file written through `path`, a regular file, saying
/// whether it did: through a symbolic link, the file it names, not the
/// link (which removed, would leave the file cut short where it was).
/// Anything else (a device, a pipe) is left.
pub(crate) fn remove_written(path: &std::path::Path) -> bool {
    std::fs::canonicalize(path).is_ok_and(|p| {
        std::fs::metadata(&p).is_ok_and(|m| m.is_file()) && std::fs::remove_file(&p).is_ok()
    })
}

/// [`write_whole`] of `bytes`: `std::fs::write`, but leaving no file cut
/// short.
pub(crate) fn write_bytes(path: &std::path::Path, bytes: impl AsRef<[u8]>) -> Result<()> {
    write_whole(path, |w| std::io::Write::write_all(w, bytes.as_ref()))
}

/// Reads a text file and parses it with `parse`, naming the file in any
/// error.
pub(crate) fn load_text<T>(
    path: &std::path::Path,
    parse: impl FnOnce(&str) -> Result<T>,
) -> Result<T> {
    let text = read_text(path)?;
    parse(&text).map_err(|e| e.in_file(path))
}

/// `line N: `, or nothing for line 0 (a file as a whole).
fn line_prefix(line: usize) -> String {
    if line == 0 {
        String::new()
    } else {
        format!("line {line}: ")
    }
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

pub(crate) use crate::words::counted;

/// A number an error names, as given but short: `1e308` rather than its
/// 309 digits, and `1e-300` rather than 300 zeros.
pub(crate) fn show_number(x: f64) -> String {
    if x == 0.0 || !x.is_finite() || (1e-6..1e15).contains(&x.abs()) {
        x.to_string()
    } else {
        format!("{x:e}")
    }
}

/// "nodes 0 to 31", for an error about a node id.
pub(crate) fn node_range(nodes: u32) -> String {
    match nodes {
        0 => "no nodes".into(),
        1 => "one node, 0".into(),
        n => format!("nodes 0 to {}", n - 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_of_one_is_singular() {
        let e = |limit, outstanding| {
            Error::NotDrained {
                cycle: 7,
                limit,
                outstanding,
                what: "messages",
            }
            .to_string()
        };
        assert_eq!(
            e(1, 1),
            "the network did not drain within 1 cycle (1 message outstanding) at cycle 7"
        );
        assert_eq!(
            e(0, 2),
            "the network did not drain within 0 cycles (2 messages outstanding) at cycle 7"
        );
    }

    fn file(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("wormcast-text-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let p = d.join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    }

    #[test]
    fn text_inputs_are_read_whole_or_refused_by_name() {
        // A character cut by the end of the first 64 KiB block is whole.
        let mut t = vec![b'a'; (1 << 16) - 1];
        t.extend_from_slice("é and ü".as_bytes());
        let p = file("cut.txt", &t);
        assert_eq!(read_text(&p).unwrap().as_bytes(), &t[..]);

        let mut bad = b"[[switch]]\n".to_vec();
        bad.push(0xff);
        let p = file("bad.txt", &bad);
        let e = read_text(&p).unwrap_err().to_string();
        assert!(e.ends_with("bad.txt: not UTF-8 text (byte 11)"), "{e}");

        let p = file("short.txt", &"ab€".as_bytes()[..4]);
        let e = read_text(&p).unwrap_err().to_string();
        assert!(
            e.ends_with("short.txt: not UTF-8 text (byte 2: a character cut short at the end)"),
            "{e}"
        );

        let e = read_text("/nonexistent/x.toml").unwrap_err().to_string();
        assert!(e.starts_with("/nonexistent/x.toml: "), "{e}");
    }

    #[test]
    #[cfg(unix)]
    fn a_text_input_past_the_limit_is_refused() {
        // A device that never ends stops at the limit, with its name.
        let e = read_text("/dev/zero").unwrap_err().to_string();
        assert_eq!(
            e,
            "/dev/zero: larger than 256 MiB, the most a text input may be"
        );
    }

    #[test]
    fn a_number_is_named_as_given_but_short() {
        let shown: Vec<String> = [
            0.5,
            -1.0,
            0.0,
            1e308,
            -1e-300,
            2e15,
            f64::NAN,
            f64::INFINITY,
        ]
        .into_iter()
        .map(super::show_number)
        .collect();
        assert_eq!(
            shown,
            ["0.5", "-1", "0", "1e308", "-1e-300", "2e15", "NaN", "inf"]
        );
    }

    /// A file is written whole or not at all: a write that fails part way
    /// (here after 70,000 bytes, past the first flush) leaves no file, and
    /// the error says it was removed; a device is left as it is.
    #[cfg(unix)]
    #[test]
    fn a_file_is_written_whole_or_removed() {
        use std::io::Write;
        let p = file("whole.txt", b"an older file");
        write_whole(&p, |w| w.write_all(b"switch 0\nswitch 1\n")).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"switch 0\nswitch 1\n");
        let e = write_whole(&p, |w| {
            w.write_all(&[b'x'; 70_000])?;
            Err(std::io::Error::new(
                std::io::ErrorKind::StorageFull,
                "No space left on device",
            ))
        })
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "{}: No space left on device; the unfinished file was removed",
                p.display()
            )
        );
        assert!(!p.exists());
        // Through a symbolic link, the file it names is removed, not the
        // link (the link was removed, and the file left cut short).
        let target = file("target.txt", b"");
        let link = target.with_file_name("link.txt");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let e = write_whole(&link, |w| {
            w.write_all(&[b'x'; 70_000])?;
            Err(std::io::Error::other("No space left on device"))
        })
        .unwrap_err();
        assert!(
            e.to_string().ends_with("the unfinished file was removed"),
            "{e}"
        );
        assert!(!target.exists());
        assert!(std::fs::symlink_metadata(&link).is_ok(), "the link is kept");
        // A flush that fails at the end is such a failure too.
        let e = write_whole(std::path::Path::new("/dev/full"), |w| w.write_all(b"x")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "/dev/full: No space left on device (os error 28); the file is unfinished"
        );
        assert!(std::path::Path::new("/dev/full").exists());
    }

    /// A folder that cannot be made is refused naming what stands in the
    /// way: a file, or a device that is not a folder.
    #[cfg(unix)]
    #[test]
    fn a_folder_blocked_by_a_file_or_a_device_names_it() {
        let f = file("blocker", b"x");
        let e = make_dir(f.join("sub")).unwrap_err().to_string();
        assert_eq!(
            e,
            format!(
                "configuration: folder = {}: {} is a file, not a folder",
                f.join("sub").display(),
                f.display()
            )
        );
        assert_eq!(
            make_dir("/dev/null").unwrap_err().to_string(),
            "configuration: folder = /dev/null: /dev/null is not a folder"
        );
    }
}

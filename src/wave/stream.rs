//! Any waveform file as one stream of [`Event`]s, read on a thread of its
//! own.
//!
//! [`WaveReader::open`] tells the format from the file's first bytes (FST
//! and GHW by their magic, anything else as VCD), reads the header at once
//! (so that a malformed header is reported before anything else happens)
//! and then decodes the value changes on a second thread, which hands them
//! over in batches through a bounded channel: memory stays constant
//! whatever the file's size, and a comparison of two files reads both at
//! once on two cores.
//!
//! The readers of other crates (FST through `fst-reader`, GHW through
//! `wellen`) run behind a guard: their input is checked first where a
//! malformed size could make them allocate without bound (see
//! [`super::fst`]), and a panic inside them becomes an error naming the
//! file, never a crash. The guard silences the panic's message only on the
//! reader threads.

use super::header::{Event, Format, WaveHeader, pad_of, push_logic};
use super::read::{VcdReader, detect_format};
use crate::{Error, Result};
use std::cell::Cell;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Once;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

/// One decoded item, with its value's bytes in the batch's buffer.
#[derive(Clone, Copy, Debug)]
enum Item {
    Time(u64),
    /// `len` characters of a `width`-bit value (fewer when written short).
    Logic {
        code: u32,
        at: u32,
        len: u32,
        width: u32,
    },
    Real {
        code: u32,
        value: f64,
    },
    Str {
        code: u32,
        at: u32,
        len: u32,
    },
}

/// A run of events handed from the reader thread to the consumer.
#[derive(Default)]
pub(crate) struct Batch {
    items: Vec<Item>,
    bytes: Vec<u8>,
}

const BATCH_ITEMS: usize = 1 << 14;
const BATCH_BYTES: usize = 1 << 20;
/// Batches in flight between the threads.
const DEPTH: usize = 4;

/// What a reader thread writes events into.
pub(crate) struct Sink {
    batch: Batch,
    tx: SyncSender<Result<Batch>>,
    spare: Receiver<Batch>,
}

/// The consumer went away: the reader thread stops.
pub(crate) struct Closed;

impl Sink {
    #[inline]
    fn full(&self) -> bool {
        self.batch.items.len() >= BATCH_ITEMS || self.batch.bytes.len() >= BATCH_BYTES
    }

    fn flush(&mut self) -> std::result::Result<(), Closed> {
        let fresh = self.spare.try_recv().unwrap_or_default();
        let b = std::mem::replace(&mut self.batch, fresh);
        self.tx.send(Ok(b)).map_err(|_| Closed)
    }

    /// Copies a value's bytes into the batch: where they start, and how many.
    #[inline]
    fn stash(&mut self, bytes: &[u8]) -> (u32, u32) {
        let at = self.batch.bytes.len() as u32;
        self.batch.bytes.extend_from_slice(bytes);
        (at, bytes.len() as u32)
    }

    /// Adds one event (a logic value of its variable's width).
    #[inline]
    pub(crate) fn push(&mut self, e: Event<'_>) -> std::result::Result<(), Closed> {
        let width = match e {
            Event::Logic { bits, .. } => bits.len() as u32,
            _ => 0,
        };
        self.push_of_width(e, width)
    }

    /// Adds one event; a logic value is of a `width`-bit variable, and
    /// written shorter when it has fewer characters.
    #[inline]
    fn push_of_width(&mut self, e: Event<'_>, width: u32) -> std::result::Result<(), Closed> {
        let item = match e {
            Event::Time(t) => Item::Time(t),
            Event::Real { code, value } => Item::Real { code, value },
            Event::Logic { code, bits } => {
                let (at, len) = self.stash(bits);
                Item::Logic {
                    code,
                    at,
                    len,
                    width,
                }
            }
            Event::Str { code, value } => {
                let (at, len) = self.stash(value);
                Item::Str { code, at, len }
            }
        };
        self.batch.items.push(item);
        if self.full() {
            self.flush()?;
        }
        Ok(())
    }

    /// Adds a logic value given in any of the nine characters, mapped to
    /// four as it is copied (an unknown character reads as `x`).
    #[inline]
    pub(crate) fn push_logic_mapped(
        &mut self,
        code: u32,
        raw: &[u8],
    ) -> std::result::Result<(), Closed> {
        let at = self.batch.bytes.len() as u32;
        push_logic(&mut self.batch.bytes, raw);
        self.batch.items.push(Item::Logic {
            code,
            at,
            len: raw.len() as u32,
            width: raw.len() as u32,
        });
        if self.full() {
            self.flush()?;
        }
        Ok(())
    }

    fn finish(mut self, end: Result<()>) {
        if !self.batch.items.is_empty() && self.flush().is_err() {
            return;
        }
        if let Err(e) = end {
            let _ = self.tx.send(Err(e));
        }
    }
}

thread_local! {
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// Installs (once) a panic hook that stays silent on the reader threads
/// and passes every other panic to the hook that was there before.
fn quiet_panics_on_reader_threads() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let before = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(|q| q.get()) {
                before(info);
            }
        }));
    });
}

/// Runs `f` and turns a panic in it into an error about `what`.
pub(crate) fn guarded<T>(what: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
    quiet_panics_on_reader_threads();
    let was = QUIET.with(|q| q.replace(true));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    QUIET.with(|q| q.set(was));
    match r {
        Ok(r) => r,
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "no message".into());
            Err(Error::Wave(format!("{what} is malformed: {msg}")))
        }
    }
}

/// Something that produces a file's events on the reader thread.
pub(crate) type Producer = Box<dyn FnOnce(&mut Sink) -> Result<()> + Send>;

/// A waveform file of any format, read as a stream (see the module docs).
pub struct WaveReader {
    header: WaveHeader,
    rx: Receiver<Result<Batch>>,
    give_back: SyncSender<Batch>,
    cur: Batch,
    next: usize,
    done: bool,
    path: Option<PathBuf>,
    /// A logic value written shorter than its variable, extended.
    widened: Vec<u8>,
}

/// The path that names standard input as a waveform to read
/// ([`WaveReader::open`]).
pub const STDIN: &str = "-";

/// The most bytes of an FST or GHW waveform read from a pipe or standard
/// input, which is held in memory whole (a VCD is read as it streams);
/// less where three quarters of the memory available is less.
pub const MAX_STREAMED: u64 = 1 << 30;

/// Where a waveform read from a stream comes from: its name in errors.
fn stream_name(path: &Path) -> PathBuf {
    if path.as_os_str() == STDIN {
        PathBuf::from("standard input")
    } else {
        path.to_path_buf()
    }
}

/// What a waveform read from a pipe begins with, and the rest of it.
pub(crate) struct Stream {
    /// Its name in errors (`standard input` for [`STDIN`]).
    pub(crate) name: PathBuf,
    /// The format its first bytes tell.
    pub(crate) format: Format,
    /// Its first bytes followed by the rest, unread.
    pub(crate) src: std::io::Chain<std::io::Cursor<Vec<u8>>, Box<dyn Read + Send>>,
}

impl Stream {
    /// `path` opened as a stream when it is one: standard input for
    /// [`STDIN`], or anything but a regular file (a named pipe, a
    /// process substitution's `/dev/fd/N`); `None` for a regular file,
    /// which is read by its path. The first bytes are read to tell the
    /// format, and kept.
    pub(crate) fn open(path: &Path) -> Result<Option<Stream>> {
        let name = stream_name(path);
        let io = |source| Error::Io {
            path: name.clone(),
            source,
        };
        let mut src: Box<dyn Read + Send> = if path.as_os_str() == STDIN {
            Box::new(std::io::stdin())
        } else {
            // A regular file is told by its metadata, without opening it.
            if std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
                return Ok(None);
            }
            Box::new(std::fs::File::open(path).map_err(io)?)
        };
        let mut first = vec![0u8; 16];
        let n = read_up_to(&mut src, &mut first).map_err(io)?;
        first.truncate(n);
        let format = detect_format(&first);
        Ok(Some(Stream {
            name,
            format,
            src: std::io::Cursor::new(first).chain(src),
        }))
    }

    /// The whole stream in memory, at most [`MAX_STREAMED`] bytes (an FST
    /// or GHW waveform is read whole).
    pub(crate) fn into_bytes(self) -> Result<Vec<u8>> {
        // An FST file's first block, its header, is 329 bytes long: a
        // stream that says otherwise (all zeros, say) is refused before
        // anything more is read.
        let first = self.src.get_ref().0.get_ref();
        if self.format == Format::Fst && first[0] == 0 {
            let len = u64::from_be_bytes(first[1..9].try_into().expect("9 bytes"));
            if len != 329 {
                return Err(Error::Wave(format!(
                    "{}: malformed FST: the header block is {len} bytes, not 329",
                    self.name.display()
                )));
            }
        }
        self.into_bytes_within(crate::memory::available())
    }

    /// [`Self::into_bytes`] with `available` bytes of memory: at most
    /// three quarters of them are read (the rest for reading the file),
    /// and one byte past them tells a stream that is longer.
    fn into_bytes_within(mut self, available: Option<u64>) -> Result<Vec<u8>> {
        let most = available.map_or(MAX_STREAMED, |m| MAX_STREAMED.min(m / 4 * 3));
        // The buffer grows by doubling; the capacity it has not yet
        // written is address space, not memory charged to the process.
        let mut bytes = Vec::new();
        (&mut self.src)
            .take(most + 1)
            .read_to_end(&mut bytes)
            .map_err(|source| Error::Io {
                path: self.name.clone(),
                source,
            })?;
        if bytes.len() as u64 > most {
            let why = match available {
                Some(m) if most < MAX_STREAMED => format!(
                    "{}, three quarters of the {} of memory available",
                    crate::memory::megabytes(most.into()),
                    crate::memory::megabytes(m.into())
                ),
                _ => format!("{} MiB", MAX_STREAMED >> 20),
            };
            return Err(Error::Wave(format!(
                "{}: {} {} waveform that is not a regular file is read into memory whole, \
                 and this one is longer than {why}: write it to a file",
                self.name.display(),
                if self.format == Format::Fst {
                    "an"
                } else {
                    "a"
                },
                self.format.name(),
            )));
        }
        Ok(bytes)
    }
}

impl WaveReader {
    /// A VCD read on a thread of its own.
    pub fn from_vcd<R: Read + Send + 'static>(mut r: VcdReader<R>) -> Self {
        let header = r.detach_header();
        // Values written short (`b0` for a 65,536-bit variable) cross the
        // threads as written, with their variables' widths; `next_event`
        // extends them.
        r.keep_short();
        let widths: Vec<u32> = header.codes.iter().map(|c| c.width).collect();
        Self::spawn(
            header,
            Box::new(move |sink: &mut Sink| {
                while let Some(e) = r.next_event()? {
                    let width = match e {
                        Event::Logic { code, .. } => widths[code as usize],
                        _ => 0,
                    };
                    if sink.push_of_width(e, width).is_err() {
                        break;
                    }
                }
                Ok(())
            }),
        )
    }

    /// Starts `produce` on a reader thread. Where no thread can be started
    /// (a limit on tasks), the first read says so.
    pub(crate) fn spawn(header: WaveHeader, produce: Producer) -> Self {
        let (tx, rx) = sync_channel(DEPTH);
        let (give_back, spare) = sync_channel(DEPTH + 2);
        let what = format!("this {} file", header.format.name());
        let failed = tx.clone();
        if let Err(e) = std::thread::Builder::new()
            .name("wormcast-wave-reader".into())
            .spawn(move || {
                let mut sink = Sink {
                    batch: Batch::default(),
                    tx,
                    spare,
                };
                let end = guarded(&what, || produce(&mut sink));
                sink.finish(end);
            })
        {
            let _ = failed.send(Err(Error::Wave(format!(
                "cannot start the reader's thread: {e}"
            ))));
        }
        WaveReader {
            header,
            rx,
            give_back,
            cur: Batch::default(),
            next: 0,
            done: false,
            path: None,
            widened: Vec::new(),
        }
    }

    /// The header.
    pub fn header(&self) -> &WaveHeader {
        &self.header
    }

    /// Names the file in this reader's errors.
    pub(crate) fn set_path(&mut self, path: &Path) {
        self.path = Some(path.to_path_buf());
    }

    /// The file this reader reads, if any.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The next event, or `None` at the end of the file. An error in the
    /// file comes after every event before it.
    #[inline]
    pub fn next_event(&mut self) -> Result<Option<Event<'_>>> {
        let Some(item) = self.next_item()? else {
            return Ok(None);
        };
        if let Item::Logic {
            code,
            at,
            len,
            width,
        } = item
            && len < width
        {
            // Written shorter than its variable: extended on the left.
            let bits = &self.cur.bytes[at as usize..(at + len) as usize];
            self.widened.clear();
            self.widened.resize((width - len) as usize, pad_of(bits[0]));
            self.widened.extend_from_slice(bits);
            return Ok(Some(Event::Logic {
                code,
                bits: &self.widened,
            }));
        }
        Ok(Some(self.event(item)))
    }

    /// The next event as [`WaveReader::next_event`] gives it, except that
    /// a logic value written shorter than its variable (a VCD's `b0` for
    /// a wide vector) comes as written, at least one character: the
    /// characters before it are its first character's extension
    /// ([`pad_of`]).
    #[inline]
    pub(crate) fn next_event_short(&mut self) -> Result<Option<Event<'_>>> {
        Ok(self.next_item()?.map(|item| self.event(item)))
    }

    #[inline]
    fn event(&self, item: Item) -> Event<'_> {
        let bytes = &self.cur.bytes;
        match item {
            Item::Time(t) => Event::Time(t),
            Item::Real { code, value } => Event::Real { code, value },
            Item::Logic { code, at, len, .. } => Event::Logic {
                code,
                bits: &bytes[at as usize..(at + len) as usize],
            },
            Item::Str { code, at, len } => Event::Str {
                code,
                value: &bytes[at as usize..(at + len) as usize],
            },
        }
    }

    #[inline]
    fn next_item(&mut self) -> Result<Option<Item>> {
        if self.next == self.cur.items.len() {
            if self.done {
                return Ok(None);
            }
            match self.rx.recv() {
                Ok(Ok(b)) => {
                    let old = std::mem::replace(&mut self.cur, b);
                    let mut old = old;
                    old.items.clear();
                    old.bytes.clear();
                    let _ = self.give_back.try_send(old);
                    self.next = 0;
                }
                Ok(Err(e)) => {
                    self.done = true;
                    return Err(match &self.path {
                        Some(p) if !matches!(e, Error::InFile { .. }) => e.in_file(p),
                        _ => e,
                    });
                }
                Err(_) => {
                    self.done = true;
                    return Ok(None);
                }
            }
        }
        let item = self.cur.items[self.next];
        self.next += 1;
        Ok(Some(item))
    }
}

pub(crate) fn read_up_to(f: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stream of `len` bytes, as a GHW waveform.
    fn stream_of(len: usize) -> Stream {
        let bytes: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
        let rest: Box<dyn Read + Send> = Box::new(std::io::Cursor::new(bytes[16..].to_vec()));
        Stream {
            name: PathBuf::from("standard input"),
            format: Format::Ghw,
            src: std::io::Cursor::new(bytes[..16].to_vec()).chain(rest),
        }
    }

    /// A waveform from a pipe is read whole only within three quarters of
    /// the memory available; one byte more is refused, naming the memory.
    #[test]
    fn a_stream_is_read_whole_within_the_memory_available() {
        let memory = Some(4_000_000);
        let b = stream_of(3_000_000).into_bytes_within(memory).unwrap();
        assert_eq!(b.len(), 3_000_000);
        assert_eq!(b[2_999_999], (2_999_999 % 251) as u8);
        let e = stream_of(3_000_001).into_bytes_within(memory).unwrap_err();
        assert_eq!(
            e.to_string(),
            "standard input: a GHW waveform that is not a regular file is read into memory \
             whole, and this one is longer than 3.00 MB, three quarters of the 4.00 MB of \
             memory available: write it to a file"
        );
        // Where the memory is not known (or past 1 GiB + a third), the
        // bound is 1 GiB alone.
        assert_eq!(
            stream_of(5_000_000).into_bytes_within(None).unwrap().len(),
            5_000_000
        );
        // A bound of a few bytes is no panic.
        assert!(stream_of(100).into_bytes_within(Some(1_000)).is_ok());
        assert!(stream_of(1_000).into_bytes_within(Some(1_000)).is_err());
    }

    #[test]
    fn batches_carry_every_event_in_order() {
        let mut text = String::from(
            "$var wire 3 ! v $end $var real 64 \" r $end $var string 0 # s $end $enddefinitions $end\n",
        );
        for t in 0..50_000u64 {
            text += &format!("#{t}\nb{:03b} !\nr{t}.5 \"\nsv{t} #\n", t % 8);
        }
        let mut r = WaveReader::from_bytes(text.into_bytes()).unwrap();
        let mut t_seen = 0;
        let mut n = 0;
        while let Some(e) = r.next_event().unwrap() {
            match e {
                Event::Time(t) => {
                    assert_eq!(t, t_seen);
                    t_seen += 1;
                }
                Event::Logic { bits, .. } => {
                    assert_eq!(bits, format!("{:03b}", (t_seen - 1) % 8).as_bytes())
                }
                Event::Real { value, .. } => assert_eq!(value, (t_seen - 1) as f64 + 0.5),
                Event::Str { value, .. } => {
                    assert_eq!(value, format!("v{}", t_seen - 1).as_bytes())
                }
            }
            n += 1;
        }
        assert_eq!(n, 200_000);
        assert!(r.next_event().unwrap().is_none());
    }

    /// A VCD's values written shorter than their variables cross the
    /// threads as written: `next_event` extends them on the left (`x`
    /// after `x`, `z` after `z`, `0` otherwise), `next_event_short` gives
    /// them as written.
    #[test]
    fn values_written_short_are_extended_unless_asked_for_as_written() {
        let text = "$var wire 8 ! v $end $var wire 4 \" w $end $var wire 1 # c $end \
                    $enddefinitions $end\n#0\nb1 !\nx\"\n1#\n#1\nbz01 !\nb0101 \"\nb0 !\n";
        let values = |short: bool| {
            let mut r = WaveReader::from_bytes(text.as_bytes().to_vec()).unwrap();
            let mut out = Vec::new();
            loop {
                let e = if short {
                    r.next_event_short()
                } else {
                    r.next_event()
                };
                match e.unwrap() {
                    None => break out,
                    Some(Event::Logic { bits, .. }) => {
                        out.push(String::from_utf8(bits.to_vec()).unwrap())
                    }
                    Some(_) => {}
                }
            }
        };
        assert_eq!(
            values(false),
            ["00000001", "xxxx", "1", "zzzzzz01", "0101", "00000000"]
        );
        assert_eq!(values(true), ["1", "x", "1", "z01", "0101", "0"]);
    }

    #[test]
    fn an_error_comes_after_the_events_before_it() {
        let text = "$var wire 1 ! a $end $enddefinitions $end\n#0\n1!\n#1\n0!\n#2\nq!\n";
        let mut r = WaveReader::from_bytes(text.as_bytes().to_vec()).unwrap();
        let mut n = 0;
        let e = loop {
            match r.next_event() {
                Ok(Some(_)) => n += 1,
                Ok(None) => panic!("no error"),
                Err(e) => break e.to_string(),
            }
        };
        assert_eq!(n, 5, "#0 1! #1 0! #2");
        assert!(e.starts_with("line 7: `q!` is neither a time"), "{e}");
    }

    #[test]
    fn a_panic_in_a_reader_becomes_an_error() {
        let h = WaveHeader::default();
        let mut r = WaveReader::spawn(
            h,
            Box::new(|_sink: &mut Sink| panic!("index out of bounds")),
        );
        let e = r.next_event().unwrap_err().to_string();
        assert_eq!(e, "this VCD file is malformed: index out of bounds");
    }
}

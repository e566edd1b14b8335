//! A streaming VCD reader (IEEE 1364-2005 section 18.2, with what other
//! tools write beyond it).
//!
//! It reads the header whole (scopes, variables, timescale) and then the
//! value changes one at a time, holding only the current token: a file of
//! any size is read in constant memory, and no value is copied unless it
//! must be widened. It reads what Icarus Verilog (`-g2005`, `-g2012`),
//! Verilator (`--trace`, `--trace-structs`), GHDL, NVC, GTKWave's
//! converters and wormcast write: any scope type and name (`begin
//! $ivl_for_loop0`, `module $unit`, empty names), any variable type
//! (`logic`, `integer`, `real`, `string`, `std_logic`, ...), zero-width
//! variables, bit ranges written apart from or joined to the name, array
//! indices before the range (`mem[0] [15:0]`), escaped identifiers,
//! aliases (one identifier code for several variables), vectors shorter
//! than their variable (extended on the left as the standard says), the
//! nine `std_logic` values (mapped as [`super::header`] says), values
//! before the first time (time 0), real and string values, dump-control
//! blocks and header extensions such as `$attrbegin` (skipped), and any
//! whole-number timescale (`244 ns`).
//!
//! Everything else is an error that names the line: a header that never
//! reaches `$enddefinitions`, a malformed `$var` or `$timescale`, a width
//! beyond [`super::MAX_WIDTH`], an identifier code that was never
//! declared, a value wider than its variable or with a character that is
//! not a logic value, a token longer than [`MAX_TOKEN`] bytes, a time that
//! goes backwards. The `vcd` crate, which writes wormcast's dumps, refuses
//! several of the constructs above, and the `wellen` crate (used here for
//! GHW) panics on malformed values and reports no lines; docs/cosim.md
//! gives the measurements behind keeping this reader for VCD.

use super::header::{
    CodeInfo, Event, Format, HEADER_CHECK_EVERY, VarKind, WaveHeader, WaveVar, check_width,
    header_room, join_scopes, logic_char, pad_of, parse_timescale, split_name,
};
use crate::{Error, Result};
use rustc_hash::FxHashMap;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The longest token (a value, a name, a word of a comment) the reader
/// accepts, in bytes: room for a value of the widest variable.
pub const MAX_TOKEN: usize = 4 * super::header::MAX_WIDTH as usize;

/// Identifier codes to their index. A code of up to 9 printable characters
/// is a number in base 94 (writers count their codes up from `!`), looked
/// up in a table while it is small and in a hash map of numbers beyond;
/// longer codes are hashed as bytes.
#[derive(Clone, Debug, Default)]
struct CodeMap {
    dense: Vec<u32>,
    sparse: FxHashMap<u64, u32>,
    long: FxHashMap<Box<[u8]>, u32>,
}

const NO_CODE: u32 = u32::MAX;
/// Codes numbered below this are looked up in the table (16 MiB at most).
const DENSE: u64 = 1 << 22;

impl CodeMap {
    /// The code's number: every code of one character first, then every
    /// code of two, and so on.
    #[inline]
    fn number(code: &[u8]) -> Option<u64> {
        let ok = |b: u8| (33..=126).contains(&b);
        // The codes most files use, at once.
        match *code {
            [a] if ok(a) => return Some(u64::from(a - 33)),
            [a, b] if ok(a) && ok(b) => {
                return Some(94 + u64::from(a - 33) + 94 * u64::from(b - 33));
            }
            _ => {}
        }
        if code.is_empty() || code.len() > 9 {
            return None;
        }
        let mut v: u64 = 0;
        let mut base: u64 = 0;
        let mut place: u64 = 1;
        for (i, &b) in code.iter().enumerate() {
            if !(33..=126).contains(&b) {
                return None;
            }
            v += u64::from(b - 33) * place;
            if i > 0 {
                base += place;
            }
            place *= 94;
        }
        Some(base + v)
    }

    #[inline]
    fn get(&self, code: &[u8]) -> Option<u32> {
        match Self::number(code) {
            Some(n) if n < DENSE => self
                .dense
                .get(n as usize)
                .copied()
                .filter(|&c| c != NO_CODE),
            Some(n) => self.sparse.get(&n).copied(),
            None => self.long.get(code).copied(),
        }
    }

    fn insert(&mut self, code: &[u8], idx: u32) {
        match Self::number(code) {
            Some(n) if n < DENSE => {
                if self.dense.len() <= n as usize {
                    self.dense.resize(n as usize + 1, NO_CODE);
                }
                self.dense[n as usize] = idx;
            }
            Some(n) => {
                self.sparse.insert(n, idx);
            }
            None => {
                self.long.insert(code.into(), idx);
            }
        }
    }
}

/// A VCD file read as a stream.
///
/// ```
/// use wormcast::wave::{Event, VcdReader};
///
/// let text = "$timescale 1ns $end $scope module tb $end
/// $var wire 4 ! n [3:0] $end $upscope $end $enddefinitions $end
/// #0 b101 ! #10 b1x !";
/// let mut r = VcdReader::new(text.as_bytes())?;
/// assert_eq!(r.header().timescale_fs, Some(1_000_000));
/// assert_eq!(r.header().vars[0].path(), "tb.n");
/// let mut seen = Vec::new();
/// while let Some(e) = r.next_event()? {
///     if let Event::Logic { bits, .. } = e {
///         seen.push(String::from_utf8(bits.to_vec()).unwrap());
///     }
/// }
/// assert_eq!(seen, ["0101", "001x"]);
/// # Ok::<(), wormcast::Error>(())
/// ```
pub struct VcdReader<R> {
    src: R,
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    eof: bool,
    /// Line of the next unread byte.
    line: u64,
    /// Line where the last token started.
    tok_line: u64,
    bytes: u64,
    header: WaveHeader,
    map: CodeMap,
    scratch: Vec<u8>,
    time: Option<u64>,
    path: Option<PathBuf>,
    /// A position before `pos` whose bytes `fill` keeps (the value whose
    /// identifier code is being read).
    keep: Option<usize>,
    /// Give a vector written shorter than its variable as written, for the
    /// consumer to extend (see [`super::WaveReader`]).
    short: bool,
    /// Each identifier code's width and kind: what decoding a value needs
    /// (the header's codes move out with [`VcdReader::detach_header`]).
    kinds: Vec<(u32, VarKind)>,
}

const BUF: usize = 1 << 18;

#[inline]
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

fn lossy(b: &[u8]) -> String {
    shorten(&String::from_utf8_lossy(b))
}

impl VcdReader<File> {
    /// Opens and reads the header of the VCD file at `path`; errors name
    /// the file.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let f = File::open(path).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let mut r = VcdReader::start(f, Some(path.to_path_buf()));
        // (Errors of a reader with a path name the file already.)
        r.read_header()?;
        Ok(r)
    }
}

impl<R: Read> VcdReader<R> {
    /// Reads the header from `src`.
    pub fn new(src: R) -> Result<Self> {
        let mut r = VcdReader::start(src, None);
        r.read_header()?;
        Ok(r)
    }

    /// Reads the header from `src`, a stream from `path` (a pipe, or
    /// standard input), which its errors name.
    pub(crate) fn named(src: R, path: &Path) -> Result<Self> {
        let mut r = VcdReader::start(src, Some(path.to_path_buf()));
        r.read_header()?;
        Ok(r)
    }

    fn start(src: R, path: Option<PathBuf>) -> Self {
        VcdReader {
            src,
            buf: vec![0; BUF],
            pos: 0,
            end: 0,
            eof: false,
            line: 1,
            tok_line: 1,
            bytes: 0,
            header: WaveHeader::default(),
            map: CodeMap::default(),
            scratch: Vec::new(),
            time: None,
            path,
            keep: None,
            short: false,
            kinds: Vec::new(),
        }
    }

    /// From now on, a logic value written shorter than its variable is
    /// given as written (at least one character), not extended on the
    /// left: the extension (`x` after `x`, `z` after `z`, `0` otherwise)
    /// is left to the consumer.
    pub(crate) fn keep_short(&mut self) {
        self.short = true;
    }

    /// The header.
    pub fn header(&self) -> &WaveHeader {
        &self.header
    }

    /// The header for a reader of the events: the variables, scopes and
    /// identifier codes move out; this reader keeps each code's width and
    /// kind, which it decodes with.
    pub(crate) fn detach_header(&mut self) -> WaveHeader {
        WaveHeader {
            vars: std::mem::take(&mut self.header.vars),
            scopes: std::mem::take(&mut self.header.scopes),
            codes: std::mem::take(&mut self.header.codes),
            date: self.header.date.clone(),
            version: self.header.version.clone(),
            timescale: self.header.timescale.clone(),
            format: self.header.format,
            timescale_fs: self.header.timescale_fs,
        }
    }

    /// The line of the last token read.
    pub fn token_line(&self) -> u64 {
        self.tok_line
    }

    /// Bytes consumed so far.
    pub fn bytes_read(&self) -> u64 {
        self.bytes - (self.end - self.pos) as u64
    }

    /// The time of the last `#t`, if any.
    pub fn time(&self) -> Option<u64> {
        self.time
    }

    #[cold]
    fn err(&self, what: impl Into<String>) -> Error {
        let e = Error::VcdParse {
            line: self.tok_line,
            what: what.into(),
        };
        match &self.path {
            Some(p) => e.in_file(p),
            None => e,
        }
    }

    /// Reads more input after the unread bytes; false at end of input.
    fn fill(&mut self) -> Result<bool> {
        if self.eof {
            return Ok(false);
        }
        let from = self.keep.unwrap_or(self.pos).min(self.pos);
        if from > 0 {
            self.buf.copy_within(from..self.end, 0);
            self.end -= from;
            self.pos -= from;
            self.keep = self.keep.map(|k| k - from);
        }
        if self.end == self.buf.len() {
            if self.buf.len() >= MAX_TOKEN + BUF {
                return Err(self.err(format!(
                    "a token longer than {MAX_TOKEN} bytes (the widest value wormcast reads)"
                )));
            }
            let n = (self.buf.len() * 2).min(MAX_TOKEN + BUF);
            self.buf.resize(n, 0);
        }
        loop {
            match self.src.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(n) => {
                    self.end += n;
                    self.bytes += n as u64;
                    return Ok(true);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(source) => {
                    return Err(match &self.path {
                        Some(p) => Error::Io {
                            path: p.clone(),
                            source,
                        },
                        None => Error::Wave(source.to_string()),
                    });
                }
            }
        }
    }

    /// The next whitespace-separated token as `start..end` in `buf`.
    #[inline]
    fn token(&mut self) -> Result<Option<(usize, usize)>> {
        loop {
            while self.pos < self.end {
                let b = self.buf[self.pos];
                if !is_space(b) {
                    break;
                }
                if b == b'\n' {
                    self.line += 1;
                }
                self.pos += 1;
            }
            if self.pos < self.end {
                break;
            }
            if !self.fill()? {
                return Ok(None);
            }
        }
        self.tok_line = self.line;
        let mut i = self.pos;
        loop {
            while i < self.end && !is_space(self.buf[i]) {
                i += 1;
            }
            if i < self.end || self.eof {
                break;
            }
            // The token runs to the end of the buffer: read on (`fill`
            // moves the unread bytes, this token among them, to the front).
            let off = i - self.pos;
            let more = self.fill()?;
            i = self.pos + off;
            if !more {
                break;
            }
        }
        let s = self.pos;
        self.pos = i;
        Ok(Some((s, i)))
    }

    fn token_string(&mut self) -> Result<Option<String>> {
        Ok(self
            .token()?
            .map(|(a, b)| String::from_utf8_lossy(&self.buf[a..b]).into_owned()))
    }

    /// Tokens up to `$end`.
    fn words_until_end(&mut self, what: &str) -> Result<Vec<String>> {
        let mut words: Vec<String> = Vec::new();
        let start = self.tok_line;
        loop {
            match self.token_string()? {
                Some(t) if t == "$end" => return Ok(words),
                Some(t) => words.push(t),
                None => {
                    self.tok_line = start;
                    return Err(self.err(format!("`{what}` is never closed by `$end`")));
                }
            }
        }
    }

    /// Skips tokens up to `$end` (a comment of any length in constant
    /// memory).
    fn skip_until_end(&mut self, what: &str) -> Result<()> {
        let start = self.tok_line;
        loop {
            match self.token()? {
                Some((a, b)) if &self.buf[a..b] == b"$end" => return Ok(()),
                Some(_) => {}
                None => {
                    self.tok_line = start;
                    return Err(self.err(format!("`{what}` is never closed by `$end`")));
                }
            }
        }
    }

    fn expect_end(&mut self, what: &str) -> Result<()> {
        match self.token_string()? {
            Some(t) if t == "$end" => Ok(()),
            Some(t) => Err(self.err(format!(
                "`{what}` has `{}` where `$end` belongs",
                shorten(&t)
            ))),
            None => Err(self.err(format!("the file ends inside `{what}`"))),
        }
    }

    fn read_header(&mut self) -> Result<()> {
        // The scope stack; an empty name adds nothing to the paths.
        let mut scope: Vec<String> = Vec::new();
        let mut current: Option<Arc<str>> = None;
        let path = join_scopes;
        // The words of a `$var`, back to back, and where each ends.
        let (mut text, mut ends) = (String::new(), Vec::new());
        loop {
            let Some((a, b)) = self.token()? else {
                return Err(self.err("the file ends inside its header (no `$enddefinitions $end`)"));
            };
            if &self.buf[a..b] == b"$var" {
                // One shared path per scope, made again only when the
                // scopes change.
                let s = match &current {
                    Some(s) => s.clone(),
                    None => current.insert(Arc::from(path(&scope))).clone(),
                };
                self.read_var(s, &mut text, &mut ends)?;
                continue;
            }
            let t = String::from_utf8_lossy(&self.buf[a..b]).into_owned();
            match t.as_str() {
                "$enddefinitions" => {
                    self.expect_end("$enddefinitions")?;
                    return Ok(());
                }
                "$timescale" => {
                    let text = self.words_until_end("$timescale")?.join(" ");
                    let fs = parse_timescale(&text)
                        .ok_or_else(|| self.err(format!("bad `$timescale`: `{text}`")))?;
                    self.header.timescale = text;
                    self.header.timescale_fs = Some(fs);
                }
                "$scope" => {
                    let line = self.tok_line;
                    let words = self.words_until_end("$scope")?;
                    self.tok_line = line;
                    let Some((_kind, name)) = words.split_first() else {
                        return Err(self.err("`$scope` needs a type"));
                    };
                    scope.push(name.join(" "));
                    current = None;
                    if !scope.last().is_some_and(|s| s.is_empty()) {
                        self.header.scopes.push(path(&scope));
                    }
                }
                "$upscope" => {
                    self.expect_end("$upscope")?;
                    if scope.pop().is_none() {
                        return Err(self.err("`$upscope` with no open scope"));
                    }
                    current = None;
                }
                "$date" => self.header.date = self.words_until_end("$date")?.join(" "),
                "$version" => self.header.version = self.words_until_end("$version")?.join(" "),
                _ if t.starts_with('$') && !is_dump_command(&t) && t != "$end" => {
                    // $comment and tool extensions ($attrbegin, ...).
                    self.skip_until_end(&t)?;
                }
                _ => {
                    let hint = if self.header.vars.is_empty() && self.header.scopes.is_empty() {
                        " (this is not a VCD file; wormcast reads VCD, FST and GHW files)"
                    } else {
                        ""
                    };
                    return Err(self.err(format!(
                        "unexpected `{}` in the header (before `$enddefinitions`){hint}",
                        shorten(&t)
                    )));
                }
            }
        }
    }

    /// Reads a `$var` up to its `$end` (the words go to `text`, back to
    /// back, each ending where `ends` says: one allocation for the name and
    /// one for a new identifier code, whatever the number of variables).
    fn read_var(
        &mut self,
        scope: Arc<str>,
        text: &mut String,
        ends: &mut Vec<usize>,
    ) -> Result<()> {
        let line = self.tok_line;
        text.clear();
        ends.clear();
        loop {
            match self.token()? {
                Some((a, b)) if &self.buf[a..b] == b"$end" => break,
                Some((a, b)) => {
                    text.push_str(&String::from_utf8_lossy(&self.buf[a..b]));
                    ends.push(text.len());
                }
                None => {
                    self.tok_line = line;
                    return Err(self.err("`$var` is never closed by `$end`"));
                }
            }
        }
        self.tok_line = line;
        let word = |i: usize| &text[if i == 0 { 0 } else { ends[i - 1] }..ends[i]];
        if ends.len() < 4 {
            let words: Vec<&str> = (0..ends.len()).map(word).collect();
            return Err(self.err(format!(
                "`$var {}` needs a type, a width, an identifier code and a name",
                words.join(" ")
            )));
        }
        let var_type = VarKind::type_name(word(0));
        let width: u64 = word(1).parse().map_err(|_| {
            self.err(format!(
                "`$var {var_type}` has width `{}`; a width is a whole number",
                shorten(word(1))
            ))
        })?;
        // The name's words, joined.
        let rest = &text[ends[2]..];
        let width = check_width(width, rest).map_err(|e| self.err(e.to_string()))?;
        let code = word(2);
        let (name, range) = split_name(&[rest], width).map_err(|e| self.err(e.to_string()))?;
        let kind = VarKind::of_type(&var_type);
        let idx = match self.map.get(code.as_bytes()) {
            Some(i) => {
                let c = &self.header.codes[i as usize];
                if c.width != width || c.kind != kind {
                    return Err(self.err(format!(
                        "identifier code `{code}` is declared again for `{name}` as {} of {}; it has {} of {}",
                        crate::error::counted(width.into(), "bits"),
                        kind.word(),
                        crate::error::counted(c.width.into(), "bits"),
                        c.kind.word()
                    )));
                }
                i
            }
            None => {
                let i = self.header.codes.len() as u32;
                self.map.insert(code.as_bytes(), i);
                self.header.codes.push(CodeInfo {
                    text: code.to_string(),
                    width,
                    kind,
                });
                self.kinds.push((width, kind));
                i
            }
        };
        self.header.vars.push(WaveVar {
            scope,
            name,
            width,
            range,
            var_type,
            kind,
            code: idx,
            line,
        });
        let n = self.header.vars.len();
        if n.is_multiple_of(HEADER_CHECK_EVERY)
            && let Some(available) = crate::memory::available()
        {
            header_room(n, available).map_err(|m| self.err(m))?;
        }
        Ok(())
    }

    #[inline]
    fn lookup(&self, code: (usize, usize)) -> Result<u32> {
        let c = &self.buf[code.0..code.1];
        match self.map.get(c) {
            Some(i) => Ok(i),
            None => Err(self.err(format!("identifier code `{}` was never declared", lossy(c)))),
        }
    }

    /// The next event of the value changes, or `None` at the end of the
    /// file.
    #[inline]
    pub fn next_event(&mut self) -> Result<Option<Event<'_>>> {
        loop {
            let Some((a, b)) = self.token()? else {
                return Ok(None);
            };
            let c0 = self.buf[a];
            match c0 {
                b'#' => {
                    let t = parse_u64(&self.buf[a + 1..b]).ok_or_else(|| {
                        self.err(format!("bad time `{}`", lossy(&self.buf[a..b])))
                    })?;
                    if let Some(prev) = self.time
                        && t < prev
                    {
                        return Err(self.err(format!("time goes backwards: #{t} after #{prev}")));
                    }
                    self.time = Some(t);
                    return Ok(Some(Event::Time(t)));
                }
                b'b' | b'B' => return self.vector(a, b),
                b'r' | b'R' => return self.real(a, b),
                b's' | b'S' => return self.string(a, b),
                b'$' => {
                    let t = &self.buf[a..b];
                    if t == b"$end" || is_dump_command_bytes(t) {
                        continue;
                    }
                    // $comment and tool extensions: skipped whole.
                    let what = String::from_utf8_lossy(t).into_owned();
                    self.skip_until_end(&what)?;
                    continue;
                }
                _ => {
                    if let Some(v) = logic_char(c0) {
                        return self.scalar(v, a, b);
                    }
                    return Err(self.err(format!(
                        "`{}` is neither a time nor a value change",
                        lossy(&self.buf[a..b])
                    )));
                }
            }
        }
    }

    fn scalar(&mut self, v: u8, a: usize, b: usize) -> Result<Option<Event<'_>>> {
        let (idx, code) = if b - a > 1 {
            (self.lookup((a + 1, b))?, (a + 1, b))
        } else {
            match self.code_token(a)? {
                Some((code, _)) => (self.lookup(code)?, code),
                None => {
                    return Err(self.err(format!(
                        "value `{}` has no identifier code after it",
                        v as char
                    )));
                }
            }
        };
        let (width, kind) = self.kinds[idx as usize];
        let width = width as usize;
        match kind {
            VarKind::Logic | VarKind::Event => {}
            k => {
                return Err(self.err(format!(
                    "a logic value for the {} variable with code `{}`",
                    k.word(),
                    lossy(&self.buf[code.0..code.1])
                )));
            }
        }
        self.scratch.clear();
        if width > 1 && self.short {
            self.scratch.push(v);
        } else if width > 0 {
            // A scalar for a vector: extended on the left.
            self.scratch.resize(width - 1, pad_of(v));
            self.scratch.push(v);
        }
        Ok(Some(Event::Logic {
            code: idx,
            bits: &self.scratch,
        }))
    }

    /// The token after a value at `a` on the same line (its identifier
    /// code), and where the value is now (reading may move the buffer).
    #[inline]
    fn code_token(&mut self, a: usize) -> Result<Option<((usize, usize), usize)>> {
        let line = self.tok_line;
        self.keep = Some(a);
        let t = self.token();
        let a = self.keep.take().expect("kept");
        match t? {
            Some(c) if self.tok_line == line => Ok(Some((c, a))),
            _ => {
                self.tok_line = line;
                Ok(None)
            }
        }
    }

    fn vector(&mut self, a: usize, b: usize) -> Result<Option<Event<'_>>> {
        // Normalize the value in place.
        for i in a + 1..b {
            match logic_char(self.buf[i]) {
                Some(c) => self.buf[i] = c,
                None => {
                    return Err(self.err(format!(
                        "`{}` is not a logic value (0, 1, x, z or a std_logic value)",
                        lossy(&self.buf[a..b])
                    )));
                }
            }
        }
        let n = b - a - 1;
        let Some((code, a)) = self.code_token(a)? else {
            return Err(self.err("a vector value with no identifier code after it"));
        };
        let idx = self.lookup(code)?;
        let (w, kind) = self.kinds[idx as usize];
        let code_text = || lossy(&self.buf[code.0..code.1]);
        if kind != VarKind::Logic {
            return Err(self.err(format!(
                "a vector value for the {} variable with code `{}`",
                kind.word(),
                code_text()
            )));
        }
        let w = w as usize;
        if w == 0 {
            // Zero-width variables carry no bits; their values are read
            // and ignored.
            return Ok(Some(Event::Logic {
                code: idx,
                bits: &[],
            }));
        }
        if n > w {
            return Err(self.err(format!(
                "a {n}-bit value for the {w}-bit variable with code `{}`",
                code_text()
            )));
        }
        if n == 0 {
            return Err(self.err("an empty vector value `b`"));
        }
        if n == w || self.short {
            return Ok(Some(Event::Logic {
                code: idx,
                bits: &self.buf[a + 1..a + 1 + n],
            }));
        }
        let pad = pad_of(self.buf[a + 1]);
        self.scratch.clear();
        self.scratch.resize(w - n, pad);
        self.scratch.extend_from_slice(&self.buf[a + 1..a + 1 + n]);
        Ok(Some(Event::Logic {
            code: idx,
            bits: &self.scratch,
        }))
    }

    fn real(&mut self, a: usize, b: usize) -> Result<Option<Event<'_>>> {
        let value: f64 = std::str::from_utf8(&self.buf[a + 1..b])
            .ok()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| self.err(format!("`{}` is not a real value", lossy(&self.buf[a..b]))))?;
        let Some((code, _)) = self.code_token(a)? else {
            return Err(self.err(format!(
                "real value `{value}` has no identifier code after it"
            )));
        };
        let idx = self.lookup(code)?;
        let kind = self.kinds[idx as usize].1;
        if kind != VarKind::Real {
            return Err(self.err(format!(
                "a real value for the {} variable with code `{}`",
                kind.word(),
                lossy(&self.buf[code.0..code.1])
            )));
        }
        Ok(Some(Event::Real { code: idx, value }))
    }

    fn string(&mut self, a: usize, b: usize) -> Result<Option<Event<'_>>> {
        let n = b - a - 1;
        let Some((code, a)) = self.code_token(a)? else {
            return Err(self.err("a string value with no identifier code after it"));
        };
        let idx = self.lookup(code)?;
        let kind = self.kinds[idx as usize].1;
        if kind != VarKind::Str {
            return Err(self.err(format!(
                "a string value for the {} variable with code `{}`",
                kind.word(),
                lossy(&self.buf[code.0..code.1])
            )));
        }
        Ok(Some(Event::Str {
            code: idx,
            value: &self.buf[a + 1..a + 1 + n],
        }))
    }
}

/// A whole number of at most 20 digits, or `None`.
#[inline]
fn parse_u64(d: &[u8]) -> Option<u64> {
    if d.is_empty() || d.len() > 20 {
        return None;
    }
    let mut v: u64 = 0;
    for &c in d {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
    }
    Some(v)
}

fn is_dump_command(t: &str) -> bool {
    is_dump_command_bytes(t.as_bytes())
}

fn is_dump_command_bytes(t: &[u8]) -> bool {
    matches!(t, b"$dumpvars" | b"$dumpall" | b"$dumpon" | b"$dumpoff")
}

fn shorten(s: &str) -> String {
    let mut it = s.chars();
    let head: String = it.by_ref().take(40).collect();
    if it.next().is_some() {
        format!("{head}...")
    } else {
        head
    }
}

/// The format of a file from its first bytes: FST and GHW by their
/// magic, anything else is taken for VCD.
pub fn detect_format(first: &[u8]) -> Format {
    if first.starts_with(b"GHDLwave\n") {
        return Format::Ghw;
    }
    // An FST file starts with its header block (type 0, length 329) or
    // with the block that wraps a compressed file (type 254).
    if first.len() >= 9 && (first[0] == 0 || first[0] == 254) && first[1..5] == [0, 0, 0, 0] {
        return Format::Fst;
    }
    Format::Vcd
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(text: &str) -> Result<Vec<String>> {
        let mut r = VcdReader::new(text.as_bytes())?;
        let mut out = Vec::new();
        while let Some(e) = r.next_event()? {
            out.push(match e {
                Event::Time(t) => format!("#{t}"),
                Event::Logic { code, bits } => {
                    format!("{}={}", code, String::from_utf8_lossy(bits))
                }
                Event::Real { code, value } => format!("{code}=r{value}"),
                Event::Str { code, value } => format!("{code}=s{}", String::from_utf8_lossy(value)),
            });
        }
        Ok(out)
    }

    const HEAD: &str = "$timescale 10 ps $end\n$scope module tb $end\n\
        $var wire 1 ! clk $end\n$var reg 4 \" n [3:0] $end\n$var real 64 # r $end\n\
        $upscope $end\n$enddefinitions $end\n";

    #[test]
    fn reads_scalars_vectors_reals_with_extension() {
        let e = events(&format!(
            "{HEAD}$dumpvars\nx!\nbx \"\nr0 #\n$end\n#5\n1!\nb1 \"\n#10\nZ!\nB10Z1 \"\nr1.5e3 #\n"
        ))
        .unwrap();
        assert_eq!(
            e,
            [
                "0=x", "1=xxxx", "2=r0", "#5", "0=1", "1=0001", "#10", "0=z", "1=10z1", "2=r1500"
            ]
        );
        let r = VcdReader::new(HEAD.as_bytes()).unwrap();
        assert_eq!(r.header().timescale_fs, Some(10_000));
        assert_eq!(r.header().vars[1].range, Some((3, 0)));
        assert_eq!(r.header().vars[1].path(), "tb.n");
    }

    #[test]
    fn accepts_other_tools_constructs() {
        let text = "$date today $end $version Icarus $end\n\
            $timescale\n\t1ps\n$end\n$scope module TOP $end $scope struct s $end\n\
            $attrbegin misc 07 x 1 $end\n\
            $var logic 8 aa% data[0:7] $end\n$var wire 8 aa% alias [7:0] $end\n\
            $var integer 32 q i $end\n$upscope $end $upscope $end\n\
            $comment anything $end\n$enddefinitions $end\n\
            #0 b00000001 aa% b101 q\n$comment in body $end\n#0\n#3 $dumpoff b0 aa% $dumpon\n";
        let mut r = VcdReader::new(text.as_bytes()).unwrap();
        let h = r.header().clone();
        assert_eq!(h.scopes, ["TOP", "TOP.s"]);
        assert_eq!(h.vars[0].name, "data");
        assert!(h.vars[0].ascending());
        assert_eq!(h.vars[0].code, h.vars[1].code, "aliases share a code");
        assert_eq!(h.timescale_fs, Some(1000));
        let mut n = 0;
        while r.next_event().unwrap().is_some() {
            n += 1;
        }
        assert_eq!(n, 6);
    }

    /// What Icarus `-g2012`, Verilator, GHDL, NVC and Amaranth write beyond
    /// the 2005 standard.
    #[test]
    fn reads_what_other_simulators_write() {
        let text = "$timescale 244 ns $end\n\
            $scope module $unit $end $var logic 1 u g $end $upscope $end\n\
            $scope module tb $end\n\
            $scope begin $ivl_for_loop0 $end $var integer 32 q i $end $upscope $end\n\
            $scope module $end $var wire 1 e inner $end $upscope $end\n\
            $var parameter 32 p N $end\n\
            $var string 0 s st $end\n\
            $var wire 0 z empty $end\n\
            $var wire 16 m mem[0] [15:0] $end\n\
            $var wire 16 M mem[1][15:0] $end\n\
            $var reg 1 ! \\esc.name[3] $end\n\
            $var wire 4 l sl [3:0] $end\n\
            $var real 1 r rv $end\n\
            $upscope $end\n$enddefinitions $end\n\
            b10000 p\n\
            #0\nbUXLH l\n-!\nsIDLE s\nb z\nr0.25 r\n#1\nbW1Z0 l\nh!\nsBUSY s\n";
        let mut r = VcdReader::new(text.as_bytes()).unwrap();
        let h = r.header().clone();
        assert_eq!(h.timescale_fs, Some(244_000_000));
        assert_eq!(
            h.scopes,
            ["$unit", "tb", "tb.$ivl_for_loop0"],
            "the empty-named scope adds nothing"
        );
        let paths: Vec<String> = h.vars.iter().map(|v| v.path()).collect();
        assert_eq!(
            paths,
            [
                "$unit.g",
                "tb.$ivl_for_loop0.i",
                "tb.inner",
                "tb.N",
                "tb.st",
                "tb.empty",
                "tb.mem[0]",
                "tb.mem[1]",
                "tb.esc.name",
                "tb.sl",
                "tb.rv"
            ]
        );
        assert_eq!(h.vars[6].range, Some((15, 0)));
        assert_eq!(h.vars[8].range, Some((3, 3)));
        assert_eq!(h.vars[4].kind, VarKind::Str);
        assert_eq!(h.vars[10].kind, VarKind::Real);
        drop(r.next_event());
        let e = events(text).unwrap();
        assert_eq!(
            e,
            [
                "3=00000000000000000000000000010000",
                "#0",
                "9=xx01",
                "8=x",
                "4=sIDLE",
                "5=",
                "10=r0.25",
                "#1",
                "9=x1z0",
                "8=1",
                "4=sBUSY"
            ]
        );
    }

    /// A variable's scope is the one open where it is declared, after any
    /// number of scopes opened and closed before it.
    #[test]
    fn variables_take_the_scope_open_at_their_declaration() {
        let r = VcdReader::new(
            &b"$scope module a $end\n$var wire 1 ! x $end\n$scope module b $end\n\
               $var wire 1 \" y $end\n$upscope $end\n$var wire 1 # z $end\n$upscope $end\n\
               $var wire 1 $ top $end\n$scope module c $end\n$scope module d $end\n\
               $upscope $end\n$var wire 1 % w $end\n$upscope $end\n$enddefinitions $end\n"[..],
        )
        .unwrap();
        let paths: Vec<String> = r.header().vars.iter().map(|v| v.path()).collect();
        assert_eq!(paths, ["a.x", "a.b.y", "a.z", "top", "c.w"]);
    }

    #[test]
    fn malformed_files_name_the_line() {
        let cases = [
            (
                "$scope module tb $end\n$var wire 1 ! a $end\n",
                "line 2: the file ends inside its header",
            ),
            (
                "$var wire x ! a $end\n$enddefinitions $end\n",
                "line 1: `$var wire` has width `x`",
            ),
            (
                "$var wire 1 ! $end\n$enddefinitions $end",
                "line 1: `$var wire 1 !` needs a type",
            ),
            (
                "$timescale 3 ks $end\n$enddefinitions $end",
                "line 1: bad `$timescale`: `3 ks`",
            ),
            ("$upscope $end", "line 1: `$upscope` with no open scope"),
            ("$scope $end", "line 1: `$scope` needs a type"),
            (
                "$var wire 4294967295 ! a $end\n",
                "line 1: `a` is declared 4294967295 bits wide; wormcast reads variables of at most 1048576 bits",
            ),
            (
                "$var wire 1 ! a $end\n$enddefinitions $end\n#1\n1?\n",
                "line 4: identifier code `?` was never declared",
            ),
            (
                "$var wire 2 ! a $end\n$enddefinitions $end\n#1\nb101 !\n",
                "line 4: a 3-bit value for the 2-bit variable",
            ),
            (
                "$var wire 1 ! a $end\n$enddefinitions $end\n#5\n#4\n",
                "line 4: time goes backwards: #4 after #5",
            ),
            (
                "$var wire 2 ! a $end\n$enddefinitions $end\nb1q !\n",
                "line 3: `b1q` is not a logic value",
            ),
            (
                "$var wire 2 ! a $end\n$enddefinitions $end\nb10\n",
                "line 3: a vector value with no identifier code",
            ),
            (
                "$var wire 2 ! a $end\n$enddefinitions $end\nqello\n",
                "line 3: `qello` is neither a time",
            ),
            (
                "$var wire 2 ! a $end\n$enddefinitions $end\n#x\n",
                "line 3: bad time `#x`",
            ),
            (
                "$var wire 2 ! a $end\n$enddefinitions $end\n#99999999999999999999999\n",
                "line 3: bad time",
            ),
            (
                "$var wire 1 ! a $end\n$var wire 2 ! b $end\n",
                "line 2: identifier code `!` is declared again",
            ),
            (
                "$var wire 1 ! a $end\n$var real 1 ! b $end\n",
                "line 2: identifier code `!` is declared again",
            ),
            (
                "$comment never closed\n",
                "line 1: `$comment` is never closed by `$end`",
            ),
            (
                "$scope module t $end\n$var wire 1 ! a [0]\n",
                "line 2: `$var` is never closed by `$end`",
            ),
            ("b0 !\n", "line 1: unexpected `b0` in the header"),
            (
                "$var real 1 ! a $end\n$enddefinitions $end\nb1 !\n",
                "line 3: a vector value for the real variable",
            ),
            (
                "$var wire 1 ! a $end\n$enddefinitions $end\nr1.5 !\n",
                "line 3: a real value for the logic variable",
            ),
            (
                "$var real 1 ! a $end\n$enddefinitions $end\nrabc !\n",
                "line 3: `rabc` is not a real value",
            ),
        ];
        for (text, want) in cases {
            let err = events(text).unwrap_err().to_string();
            assert!(
                err.starts_with(want),
                "{text:?}: got {err:?}, want {want:?}"
            );
        }
    }

    #[test]
    fn an_endless_token_is_refused_not_allocated() {
        // A body of one 5 MiB token, fed lazily.
        let head = "$var wire 1 ! a $end\n$enddefinitions $end\nb".as_bytes();
        let body = std::io::repeat(b'1').take(5 << 20);
        let mut r = VcdReader::new(head.chain(body)).unwrap();
        let e = r.next_event().unwrap_err().to_string();
        assert!(e.contains("a token longer than 4194304 bytes"), "{e}");
    }

    #[test]
    fn tokens_across_buffer_refills() {
        // A vector longer than the read buffer, and many small changes.
        let w = 3 * BUF;
        let mut text =
            format!("$var wire {w} ! v $end\n$var wire 1 \" c $end\n$enddefinitions $end\n#0\nb");
        text.push_str(&"10".repeat(w / 2));
        text.push_str(" !\n");
        for t in 1..20_000 {
            text.push_str(&format!("#{t}\n{}\"\n", t % 2));
        }
        let mut r = VcdReader::new(text.as_bytes()).unwrap();
        let mut last = 0;
        let mut changes = 0;
        while let Some(e) = r.next_event().unwrap() {
            match e {
                Event::Time(t) => last = t,
                Event::Logic { code: 0, bits } => {
                    assert_eq!(bits.len(), w);
                    assert!(bits.starts_with(b"1010"));
                    changes += 1;
                }
                Event::Logic { .. } => changes += 1,
                _ => unreachable!(),
            }
        }
        assert_eq!((last, changes), (19_999, 20_000));
        assert_eq!(
            r.token_line() as usize,
            5 + 2 * 19_999,
            "the last token's line"
        );
    }

    /// Values and codes split across every possible buffer boundary read
    /// the same as from one buffer.
    #[test]
    fn values_split_at_any_refill() {
        struct Drip<'a>(&'a [u8], usize);
        impl Read for Drip<'_> {
            fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
                let n = self.1.min(self.0.len()).min(out.len());
                out[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let text = format!("{HEAD}#0\nb1x0 \"\n1!\nr2.5 #\n#7\nbLH \"\n0!\n");
        let whole = events(&text).unwrap();
        for chunk in 1..12 {
            let mut r = VcdReader::new(Drip(text.as_bytes(), chunk)).unwrap();
            let mut got = Vec::new();
            while let Some(e) = r.next_event().unwrap() {
                got.push(match e {
                    Event::Time(t) => format!("#{t}"),
                    Event::Logic { code, bits } => {
                        format!("{code}={}", String::from_utf8_lossy(bits))
                    }
                    Event::Real { code, value } => format!("{code}=r{value}"),
                    Event::Str { code, value } => {
                        format!("{code}=s{}", String::from_utf8_lossy(value))
                    }
                });
            }
            assert_eq!(got, whole, "read {chunk} bytes at a time");
        }
    }

    #[test]
    fn codes_number_one_to_one() {
        let mut seen = std::collections::BTreeSet::new();
        let printable: Vec<u8> = (33..=126).collect();
        for &a in &printable {
            assert!(seen.insert(CodeMap::number(&[a]).unwrap()));
            for &b in printable.iter().step_by(7) {
                assert!(seen.insert(CodeMap::number(&[a, b]).unwrap()));
                assert!(seen.insert(CodeMap::number(&[a, b, a]).unwrap()));
            }
        }
        assert_eq!(CodeMap::number(b"!"), Some(0));
        assert_eq!(CodeMap::number(b"~"), Some(93));
        assert_eq!(CodeMap::number(b"!!"), Some(94));
        assert_eq!(CodeMap::number(b"0123456789"), None);
        assert_eq!(CodeMap::number(b"a b"), None);
        let mut m = CodeMap::default();
        for (i, c) in [&b"!"[..], b"~~~", b"~~~~~~~~~", b"0123456789", b"zz"]
            .iter()
            .enumerate()
        {
            m.insert(c, i as u32);
        }
        assert_eq!(m.get(b"~~~~~~~~~"), Some(2));
        assert_eq!(m.get(b"0123456789"), Some(3));
        assert_eq!(m.get(b"zz"), Some(4));
        assert_eq!(m.get(b"zy"), None);
    }

    #[test]
    fn formats_by_their_first_bytes() {
        assert_eq!(detect_format(b"$date\n"), Format::Vcd);
        assert_eq!(detect_format(b"GHDLwave\n\x10"), Format::Ghw);
        assert_eq!(
            detect_format(&[0, 0, 0, 0, 0, 0, 0, 1, 0x49, 0]),
            Format::Fst
        );
        assert_eq!(detect_format(b""), Format::Vcd);
    }
}

//! A streaming VCD reader (IEEE 1364-2005 section 18.2, with the extensions
//! other tools write).
//!
//! It reads the header whole (scopes, variables, timescale) and then the
//! value changes one at a time, holding only the current token: a file of
//! any size is read in constant memory. It accepts what Icarus Verilog,
//! Verilator, GTKWave's converters and wormcast write: any scope type
//! (`module`, `begin`, `struct`, `interface`, ...), any variable type
//! (`wire`, `reg`, `logic`, `integer`, `real`, ...), bit ranges written
//! apart from or joined to the name (`data [7:0]`, `data[7:0]`), aliases
//! (one identifier code for several variables), vectors shorter than their
//! variable (extended on the left as the standard says), `x`/`z` in either
//! case, real and string values, `$dumpvars`/`$dumpall`/`$dumpon`/`$dumpoff`
//! blocks, and header extensions such as `$attrbegin` (skipped).
//!
//! Everything else is an error that names the line: a header that never
//! reaches `$enddefinitions`, a malformed `$var` or `$timescale`, an
//! identifier code that was never declared, a value wider than its variable
//! or with a character that is not a logic value, a time that goes
//! backwards. The `vcd` crate, which writes wormcast's dumps, refuses
//! several of the constructs above (`$var logic`, `$scope struct`,
//! `$attrbegin`), hence this reader.

use crate::{Error, Result};
use rustc_hash::FxHashMap;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

/// What kind of values a variable takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarKind {
    /// Four-valued logic bits (`wire`, `reg`, `logic`, `integer`, ...).
    Logic,
    /// A real number (`real`, `realtime`, `shortreal`).
    Real,
    /// A string (`string`).
    Str,
    /// An event (a 1-bit trigger).
    Event,
}

/// One `$var` of the header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VcdVar {
    /// The enclosing scopes, dot-separated (`tb.dut`).
    pub scope: String,
    /// The reference name without its bit range (`dests`).
    pub name: String,
    /// The declared width in bits.
    pub width: u32,
    /// The declared bit range `[msb:lsb]` (or `[bit]` as `(bit, bit)`).
    pub range: Option<(i64, i64)>,
    /// The type as written (`wire`, `reg`, `logic`, ...).
    pub var_type: String,
    /// What kind of values it takes.
    pub kind: VarKind,
    /// Index of its identifier code (see [`VcdHeader::codes`]).
    pub code: u32,
    /// Header line of the declaration.
    pub line: u64,
}

impl VcdVar {
    /// The full dotted path, `scope.name`.
    pub fn path(&self) -> String {
        if self.scope.is_empty() {
            self.name.clone()
        } else {
            format!("{}.{}", self.scope, self.name)
        }
    }

    /// True when the range is declared ascending (`[0:7]`): the leftmost
    /// character of a value is then bit 0, not the most significant bit.
    pub fn ascending(&self) -> bool {
        matches!(self.range, Some((l, r)) if l < r)
    }
}

/// One identifier code: the width and kind every variable using it shares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeInfo {
    /// The code as written.
    pub text: String,
    /// Width in bits.
    pub width: u32,
    /// Kind of values.
    pub kind: VarKind,
}

/// Everything before `$enddefinitions`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VcdHeader {
    /// `$timescale` as femtoseconds per time unit; `None` if the file has
    /// none (times are then plain units).
    pub timescale_fs: Option<u64>,
    /// `$timescale` as written (`1 ns`).
    pub timescale: String,
    /// `$date` text.
    pub date: String,
    /// `$version` text.
    pub version: String,
    /// Every scope path, in order of appearance.
    pub scopes: Vec<String>,
    /// Every variable, in order of declaration.
    pub vars: Vec<VcdVar>,
    /// Every identifier code, numbered in order of first declaration.
    pub codes: Vec<CodeInfo>,
}

impl VcdHeader {
    /// The variable at `path` (`tb.dut.dests`).
    pub fn find(&self, path: &str) -> Option<&VcdVar> {
        self.vars.iter().find(|v| v.path() == path)
    }

    /// Variables directly in scope `scope`.
    pub fn vars_in<'a>(&'a self, scope: &'a str) -> impl Iterator<Item = &'a VcdVar> + 'a {
        self.vars.iter().filter(move |v| v.scope == scope)
    }

    /// The scope named `scope`, or else the only scope whose path ends with
    /// `.scope` (so `tb.dut` finds Verilator's `TOP.tb.dut`).
    pub fn resolve_scope(&self, scope: &str) -> Result<String> {
        if self.scopes.iter().any(|s| s == scope) {
            return Ok(scope.to_string());
        }
        let suffix = format!(".{scope}");
        let hits: Vec<&String> = self
            .scopes
            .iter()
            .filter(|s| s.ends_with(&suffix))
            .collect();
        match hits.as_slice() {
            [one] => Ok((*one).clone()),
            [] => Err(Error::Wave(format!(
                "no scope `{scope}` in the VCD (it has {})",
                preview(&self.scopes)
            ))),
            many => Err(Error::Wave(format!(
                "scope `{scope}` is ambiguous: {}",
                preview(&many.iter().map(|s| s.to_string()).collect::<Vec<_>>())
            ))),
        }
    }
}

fn preview(items: &[String]) -> String {
    if items.is_empty() {
        return "none".into();
    }
    let mut s = items
        .iter()
        .take(8)
        .map(|x| format!("`{x}`"))
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > 8 {
        s += &format!(" and {} more", items.len() - 8);
    }
    s
}

/// One item of the value-change section.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Event<'a> {
    /// `#t`: the changes that follow happen at time `t` (in units of the
    /// timescale).
    Time(u64),
    /// A logic value: exactly the code's width of `0`, `1`, `x`, `z`
    /// characters, leftmost first as written (extended on the left if the
    /// file wrote fewer).
    Logic {
        /// The identifier code's index.
        code: u32,
        /// The bits.
        bits: &'a [u8],
    },
    /// A real value.
    Real {
        /// The identifier code's index.
        code: u32,
        /// The value.
        value: f64,
    },
    /// A string value.
    Str {
        /// The identifier code's index.
        code: u32,
        /// The value.
        value: &'a str,
    },
}

/// Identifier codes to their index: codes of one or two characters (what
/// most tools write for small designs) by table, longer ones by hash.
#[derive(Clone, Debug, Default)]
struct CodeMap {
    short: Vec<u32>,
    long: FxHashMap<Box<[u8]>, u32>,
}

const NO_CODE: u32 = u32::MAX;

impl CodeMap {
    fn slot(code: &[u8]) -> Option<usize> {
        let ok = |b: u8| (33..=126).contains(&b);
        match *code {
            [a] if ok(a) => Some((a - 33) as usize),
            [a, b] if ok(a) && ok(b) => Some(94 + (a - 33) as usize * 94 + (b - 33) as usize),
            _ => None,
        }
    }

    #[inline]
    fn get(&self, code: &[u8]) -> Option<u32> {
        match Self::slot(code) {
            Some(i) => self.short.get(i).copied().filter(|&c| c != NO_CODE),
            None => self.long.get(code).copied(),
        }
    }

    fn insert(&mut self, code: &[u8], idx: u32) {
        match Self::slot(code) {
            Some(i) => {
                if self.short.is_empty() {
                    self.short = vec![NO_CODE; 94 + 94 * 94];
                }
                self.short[i] = idx;
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
    header: VcdHeader,
    map: CodeMap,
    scratch: Vec<u8>,
    time: Option<u64>,
    path: Option<PathBuf>,
}

const BUF: usize = 1 << 18;

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
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
        r.read_header().map_err(|e| e.in_file(path))?;
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
            header: VcdHeader::default(),
            map: CodeMap::default(),
            scratch: Vec::new(),
            time: None,
            path,
        }
    }

    /// The header.
    pub fn header(&self) -> &VcdHeader {
        &self.header
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
        if self.pos > 0 {
            self.buf.copy_within(self.pos..self.end, 0);
            self.end -= self.pos;
            self.pos = 0;
        }
        if self.end == self.buf.len() {
            let n = self.buf.len() * 2;
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
                    return Err(Error::Io {
                        path: self.path.clone().unwrap_or_default(),
                        source,
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

    /// Tokens up to `$end`, joined by spaces.
    fn until_end(&mut self, what: &str) -> Result<String> {
        let mut words: Vec<String> = Vec::new();
        let start = self.tok_line;
        loop {
            match self.token_string()? {
                Some(t) if t == "$end" => return Ok(words.join(" ")),
                Some(t) => words.push(t),
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
            Some(t) => Err(self.err(format!("`{what}` has `{t}` where `$end` belongs"))),
            None => Err(self.err(format!("the file ends inside `{what}`"))),
        }
    }

    fn read_header(&mut self) -> Result<()> {
        let mut scope: Vec<String> = Vec::new();
        loop {
            let Some(t) = self.token_string()? else {
                return Err(self.err("the file ends inside its header (no `$enddefinitions $end`)"));
            };
            match t.as_str() {
                "$enddefinitions" => {
                    self.expect_end("$enddefinitions")?;
                    return Ok(());
                }
                "$timescale" => {
                    let text = self.until_end("$timescale")?;
                    let fs = parse_timescale(&text)
                        .ok_or_else(|| self.err(format!("bad `$timescale`: `{text}`")))?;
                    self.header.timescale = text;
                    self.header.timescale_fs = Some(fs);
                }
                "$scope" => {
                    let kind = self.token_string()?;
                    let name = self.token_string()?;
                    match (kind, name) {
                        (Some(k), Some(n)) if !k.starts_with('$') && !n.starts_with('$') => {
                            self.expect_end("$scope")?;
                            scope.push(n);
                            self.header.scopes.push(scope.join("."));
                        }
                        _ => return Err(self.err("`$scope` needs a type and a name")),
                    }
                }
                "$upscope" => {
                    self.expect_end("$upscope")?;
                    if scope.pop().is_none() {
                        return Err(self.err("`$upscope` with no open scope"));
                    }
                }
                "$var" => self.read_var(&scope)?,
                "$date" => self.header.date = self.until_end("$date")?,
                "$version" => self.header.version = self.until_end("$version")?,
                _ if t.starts_with('$') && !is_dump_command(&t) && t != "$end" => {
                    // $comment and tool extensions ($attrbegin, ...).
                    self.until_end(&t)?;
                }
                _ => {
                    return Err(self.err(format!(
                        "unexpected `{}` in the header (before `$enddefinitions`)",
                        shorten(&t)
                    )));
                }
            }
        }
    }

    fn read_var(&mut self, scope: &[String]) -> Result<()> {
        let line = self.tok_line;
        let mut words = Vec::new();
        loop {
            match self.token_string()? {
                Some(t) if t == "$end" => break,
                // An identifier code may be `$` or start with it; after the
                // name only a bit range may come.
                Some(t) if t.starts_with('$') && words.len() >= 4 => {
                    return Err(self.err(format!("`$var` has `{t}` where `$end` belongs")));
                }
                Some(t) => words.push(t),
                None => return Err(self.err("the file ends inside `$var`")),
            }
        }
        self.tok_line = line;
        if words.len() < 4 {
            return Err(self.err(format!(
                "`$var {}` needs a type, a width, an identifier code and a name",
                words.join(" ")
            )));
        }
        let var_type = words[0].clone();
        let width: u32 = match words[1].parse() {
            Ok(w) if w >= 1 => w,
            _ => {
                return Err(self.err(format!(
                    "`$var {var_type}` has width `{}`; a width is a positive number",
                    words[1]
                )));
            }
        };
        let code = words[2].clone();
        let mut name = words[3].clone();
        let mut range_text = words[4..].join("");
        if range_text.is_empty()
            && let Some(i) = name.find('[')
            && name.ends_with(']')
        {
            range_text = name[i..].to_string();
            name.truncate(i);
        }
        let range = if range_text.is_empty() {
            None
        } else {
            Some(
                parse_range(&range_text)
                    .ok_or_else(|| self.err(format!("bad bit range `{range_text}` of `{name}`")))?,
            )
        };
        let kind = match var_type.as_str() {
            "real" | "realtime" | "shortreal" => VarKind::Real,
            "string" => VarKind::Str,
            "event" => VarKind::Event,
            _ => VarKind::Logic,
        };
        let idx = match self.map.get(code.as_bytes()) {
            Some(i) => {
                let c = &self.header.codes[i as usize];
                if c.width != width || c.kind != kind {
                    return Err(self.err(format!(
                        "identifier code `{code}` is declared again for `{name}` with {width} bits; it has {} bits",
                        c.width
                    )));
                }
                i
            }
            None => {
                let i = self.header.codes.len() as u32;
                self.map.insert(code.as_bytes(), i);
                self.header.codes.push(CodeInfo {
                    text: code,
                    width,
                    kind,
                });
                i
            }
        };
        self.header.vars.push(VcdVar {
            scope: scope.join("."),
            name,
            width,
            range,
            var_type,
            kind,
            code: idx,
            line,
        });
        Ok(())
    }

    fn lookup(&self, code: (usize, usize)) -> Result<u32> {
        let c = &self.buf[code.0..code.1];
        self.map.get(c).ok_or_else(|| {
            self.err(format!(
                "identifier code `{}` was never declared",
                shorten(&String::from_utf8_lossy(c))
            ))
        })
    }

    fn code_token(&mut self, value: &str) -> Result<(usize, usize)> {
        let line = self.tok_line;
        match self.token()? {
            Some(t) if self.tok_line == line => Ok(t),
            _ => {
                self.tok_line = line;
                Err(self.err(format!("value `{value}` has no identifier code after it")))
            }
        }
    }

    /// The next event of the value-change section, or `None` at the end of
    /// the file.
    #[inline]
    pub fn next_event(&mut self) -> Result<Option<Event<'_>>> {
        loop {
            let Some((a, b)) = self.token()? else {
                return Ok(None);
            };
            match self.buf[a] {
                b'#' => {
                    let t = std::str::from_utf8(&self.buf[a + 1..b])
                        .ok()
                        .and_then(|s| s.parse::<u64>().ok())
                        .ok_or_else(|| {
                            self.err(format!(
                                "bad time `{}`",
                                shorten(&String::from_utf8_lossy(&self.buf[a..b]))
                            ))
                        })?;
                    if let Some(prev) = self.time
                        && t < prev
                    {
                        return Err(self.err(format!("time goes backwards: #{t} after #{prev}")));
                    }
                    self.time = Some(t);
                    return Ok(Some(Event::Time(t)));
                }
                c @ (b'0' | b'1' | b'x' | b'X' | b'z' | b'Z') => {
                    let code = if b - a > 1 {
                        (a + 1, b)
                    } else {
                        self.code_token(&(c as char).to_string())?
                    };
                    let idx = self.lookup(code)?;
                    let info = &self.header.codes[idx as usize];
                    if info.kind != VarKind::Logic && info.kind != VarKind::Event {
                        return Err(self.err(format!(
                            "a logic value for the {:?} variable with code `{}`",
                            info.kind, info.text
                        )));
                    }
                    if info.width != 1 {
                        return Err(self.err(format!(
                            "a 1-bit value for the {}-bit variable with code `{}`",
                            info.width, info.text
                        )));
                    }
                    self.scratch.clear();
                    self.scratch.push(c.to_ascii_lowercase());
                    return Ok(Some(Event::Logic {
                        code: idx,
                        bits: &self.scratch,
                    }));
                }
                b'b' | b'B' => {
                    self.scratch.clear();
                    for &c in &self.buf[a + 1..b] {
                        match c {
                            b'0' | b'1' | b'x' | b'z' => self.scratch.push(c),
                            b'X' | b'Z' => self.scratch.push(c.to_ascii_lowercase()),
                            _ => {
                                return Err(self.err(format!(
                                    "`{}` is not a logic value (0, 1, x or z bits)",
                                    shorten(&String::from_utf8_lossy(&self.buf[a..b]))
                                )));
                            }
                        }
                    }
                    if self.scratch.is_empty() {
                        return Err(self.err("an empty vector value `b`"));
                    }
                    let value = String::from_utf8_lossy(&self.buf[a..b]).into_owned();
                    let code = self.code_token(&value)?;
                    let idx = self.lookup(code)?;
                    let info = &self.header.codes[idx as usize];
                    if info.kind != VarKind::Logic {
                        return Err(self.err(format!(
                            "a vector value for the {:?} variable with code `{}`",
                            info.kind, info.text
                        )));
                    }
                    let w = info.width as usize;
                    let n = self.scratch.len();
                    if n > w {
                        return Err(self.err(format!(
                            "a {n}-bit value for the {w}-bit variable with code `{}`",
                            info.text
                        )));
                    }
                    if n < w {
                        let pad = match self.scratch[0] {
                            b'x' => b'x',
                            b'z' => b'z',
                            _ => b'0',
                        };
                        self.scratch.splice(0..0, std::iter::repeat_n(pad, w - n));
                    }
                    return Ok(Some(Event::Logic {
                        code: idx,
                        bits: &self.scratch,
                    }));
                }
                b'r' | b'R' => {
                    let text = String::from_utf8_lossy(&self.buf[a + 1..b]).into_owned();
                    let value: f64 = text.parse().map_err(|_| {
                        self.err(format!("`r{}` is not a real value", shorten(&text)))
                    })?;
                    let code = self.code_token(&format!("r{text}"))?;
                    let idx = self.lookup(code)?;
                    if self.header.codes[idx as usize].kind != VarKind::Real {
                        return Err(self.err(format!(
                            "a real value for the non-real variable with code `{}`",
                            self.header.codes[idx as usize].text
                        )));
                    }
                    return Ok(Some(Event::Real { code: idx, value }));
                }
                b's' | b'S' => {
                    self.scratch.clear();
                    self.scratch.extend_from_slice(&self.buf[a + 1..b]);
                    let text = String::from_utf8_lossy(&self.scratch).into_owned();
                    let code = self.code_token(&format!("s{text}"))?;
                    let idx = self.lookup(code)?;
                    if std::str::from_utf8(&self.scratch).is_err() {
                        return Err(self.err("a string value that is not UTF-8"));
                    }
                    let value = std::str::from_utf8(&self.scratch).expect("checked");
                    return Ok(Some(Event::Str { code: idx, value }));
                }
                b'$' => {
                    let t = String::from_utf8_lossy(&self.buf[a..b]).into_owned();
                    if is_dump_command(&t) || t == "$end" {
                        continue;
                    }
                    if t == "$comment" {
                        self.until_end("$comment")?;
                        continue;
                    }
                    return Err(self.err(format!(
                        "unexpected `{}` among the value changes",
                        shorten(&t)
                    )));
                }
                _ => {
                    return Err(self.err(format!(
                        "`{}` is neither a time nor a value change",
                        shorten(&String::from_utf8_lossy(&self.buf[a..b]))
                    )));
                }
            }
        }
    }
}

fn is_dump_command(t: &str) -> bool {
    matches!(t, "$dumpvars" | "$dumpall" | "$dumpon" | "$dumpoff")
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

/// `1ns`, `1 ns`, `100 ps`, `10fs`: femtoseconds per unit.
fn parse_timescale(text: &str) -> Option<u64> {
    let t: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let split = t.find(|c: char| !c.is_ascii_digit())?;
    let (num, unit) = t.split_at(split);
    let num: u64 = num.parse().ok()?;
    if !matches!(num, 1 | 10 | 100) {
        return None;
    }
    let fs = match unit {
        "s" => 1_000_000_000_000_000u64,
        "ms" => 1_000_000_000_000,
        "us" => 1_000_000_000,
        "ns" => 1_000_000,
        "ps" => 1_000,
        "fs" => 1,
        _ => return None,
    };
    num.checked_mul(fs)
}

/// `[7:0]` or `[3]`.
fn parse_range(text: &str) -> Option<(i64, i64)> {
    let inner = text.strip_prefix('[')?.strip_suffix(']')?;
    match inner.split_once(':') {
        Some((l, r)) => Some((l.trim().parse().ok()?, r.trim().parse().ok()?)),
        None => {
            let b = inner.trim().parse().ok()?;
            Some((b, b))
        }
    }
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
                Event::Str { code, value } => format!("{code}=s{value}"),
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
                "$timescale 3 ns $end\n$enddefinitions $end",
                "line 1: bad `$timescale`: `3 ns`",
            ),
            ("$upscope $end", "line 1: `$upscope` with no open scope"),
            (
                "$var wire 1 ! a $end\n$enddefinitions $end\n#1\n1?\n",
                "line 4: identifier code `?` was never declared",
            ),
            (
                "$var wire 2 ! a $end\n$enddefinitions $end\n#1\nb101 !\n",
                "line 4: a 3-bit value for the 2-bit variable",
            ),
            (
                "$var wire 2 ! a $end\n$enddefinitions $end\n1!\n",
                "line 3: a 1-bit value for the 2-bit variable",
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
                "line 3: value `b10` has no identifier code",
            ),
            (
                "$var wire 2 ! a $end\n$enddefinitions $end\nhello\n",
                "line 3: `hello` is neither a time",
            ),
            (
                "$var wire 2 ! a $end\n$enddefinitions $end\n#x\n",
                "line 3: bad time `#x`",
            ),
            (
                "$var wire 1 ! a $end\n$var wire 2 ! b $end\n",
                "line 2: identifier code `!` is declared again",
            ),
            (
                "$comment never closed\n",
                "line 1: `$comment` is never closed by `$end`",
            ),
            ("b0 !\n", "line 1: unexpected `b0` in the header"),
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
}

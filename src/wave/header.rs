//! What a waveform declares, whatever its format: scopes, variables, the
//! time unit; and the value events that follow.
//!
//! The VCD reader ([`super::VcdReader`]), the FST and GHW readers and the
//! threaded [`super::WaveReader`] all give the same [`WaveHeader`] and the
//! same [`Event`]s, so that co-simulation and `wave diff` never depend on
//! which tool wrote a file. The conventions that make files of different
//! tools comparable live here:
//!
//! - **Names.** A variable's name is kept without its bit range; the
//!   range is the last bracket group of the declared name when its span is
//!   the declared width (`data [7:0]`, `data[7:0]`), and any other bracket
//!   groups stay in the name (`mem[3] [15:0]` is `mem[3]` with range
//!   `[15:0]`; an 8-bit `mem[3]` is named `mem[3]`). An escaped identifier
//!   loses its backslash: Icarus Verilog's `\esc.name[3]` and Verilator's
//!   `esc.name[3]` are the same signal.
//! - **Scopes.** Any scope type is accepted (`module`, `begin`, `struct`,
//!   `vhdl_architecture`, ...), with any name, `$unit` and
//!   `$ivl_for_loop0` included; a scope with an empty name adds nothing to
//!   the paths below it.
//! - **Values.** Logic values are ASCII characters `0`, `1`, `x`, `z`, most
//!   significant bit first. The nine values of VHDL's `std_logic` map to
//!   these: `U`, `X`, `W` and `-` read as `x`; `L` as `0`; `H` as `1`; `Z`
//!   as `z` (either case). Reals compare by value whatever their declared
//!   width (Icarus declares `real 1`, Verilator `real 64`); strings compare
//!   as byte strings.
//! - **Limits.** A variable wider than [`MAX_WIDTH`] bits is refused with a
//!   clear error rather than allocated.

use crate::{Error, Result};
use std::borrow::Cow;
use std::sync::Arc;

/// The widest variable a reader accepts, in bits (1 Mibit). Wider
/// declarations are refused before anything of their size is allocated.
pub const MAX_WIDTH: u32 = 1 << 20;

/// The file formats read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// IEEE 1364 value change dump (text).
    Vcd,
    /// GTKWave's Fast Signal Trace (binary, compressed).
    Fst,
    /// GHDL's waveform format (binary).
    Ghw,
}

impl Format {
    /// The format's usual name.
    pub fn name(self) -> &'static str {
        match self {
            Format::Vcd => "VCD",
            Format::Fst => "FST",
            Format::Ghw => "GHW",
        }
    }
}

/// What kind of values a variable takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarKind {
    /// Four-valued logic bits (`wire`, `reg`, `logic`, `integer`,
    /// `std_logic_vector`, ...).
    Logic,
    /// A real number (`real`, `realtime`, `shortreal`), whatever its
    /// declared width.
    Real,
    /// A string (`string`).
    Str,
    /// An event (a 1-bit trigger).
    Event,
}

impl VarKind {
    /// A word for messages.
    pub fn word(self) -> &'static str {
        match self {
            VarKind::Logic => "logic",
            VarKind::Real => "real",
            VarKind::Str => "string",
            VarKind::Event => "event",
        }
    }

    /// A type name as stored: the common ones without an allocation.
    pub fn type_name(var_type: &str) -> Cow<'static, str> {
        const COMMON: [&str; 12] = [
            "wire",
            "reg",
            "logic",
            "integer",
            "real",
            "parameter",
            "string",
            "event",
            "bit",
            "int",
            "realtime",
            "time",
        ];
        match COMMON.iter().find(|c| **c == var_type) {
            Some(c) => Cow::Borrowed(c),
            None => Cow::Owned(var_type.to_string()),
        }
    }

    /// The kind of a declared variable type (`wire`, `real`, `string`, ...).
    pub fn of_type(var_type: &str) -> VarKind {
        match var_type {
            "real" | "realtime" | "shortreal" | "real_parameter" => VarKind::Real,
            "string" => VarKind::Str,
            "event" => VarKind::Event,
            _ => VarKind::Logic,
        }
    }
}

/// One declared variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WaveVar {
    /// The enclosing scopes, dot-separated (`tb.dut`); shared by every
    /// variable of the scope.
    pub scope: Arc<str>,
    /// The name without its bit range, unescaped (`dests`, `mem[3]`).
    pub name: String,
    /// The declared width in bits (0 for strings and zero-width variables).
    pub width: u32,
    /// The bit range `[msb:lsb]` (a single `[bit]` as `(bit, bit)`).
    pub range: Option<(i64, i64)>,
    /// The type as written (`wire`, `reg`, `logic`, `std_logic`, ...).
    pub var_type: Cow<'static, str>,
    /// What kind of values it takes.
    pub kind: VarKind,
    /// Index of its identifier code (see [`WaveHeader::codes`]).
    pub code: u32,
    /// Where it was declared: the header line of a VCD, 0 elsewhere.
    pub line: u64,
}

impl WaveVar {
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

    /// The name with its range, as a viewer shows it (`dests[15:0]`).
    pub fn display_name(&self) -> String {
        match self.range {
            Some((l, r)) if l == r => format!("{}[{l}]", self.name),
            Some((l, r)) => format!("{}[{l}:{r}]", self.name),
            None => self.name.clone(),
        }
    }
}

/// One identifier code (an FST or GHW signal handle): the width and kind
/// every variable using it shares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeInfo {
    /// The code as written (VCD), or the handle's number.
    pub text: String,
    /// Width in bits.
    pub width: u32,
    /// Kind of values.
    pub kind: VarKind,
}

/// Everything a waveform declares before its values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WaveHeader {
    /// The file's format.
    pub format: Format,
    /// The time unit in femtoseconds (`$timescale 244 ns` is 244,000,000);
    /// `None` if the file declares none (times are then plain units).
    pub timescale_fs: Option<u64>,
    /// The time unit as written (`1 ns`).
    pub timescale: String,
    /// `$date` text.
    pub date: String,
    /// `$version` text.
    pub version: String,
    /// Every scope path, in order of appearance.
    pub scopes: Vec<String>,
    /// Every variable, in order of declaration.
    pub vars: Vec<WaveVar>,
    /// Every identifier code, numbered in order of first declaration.
    pub codes: Vec<CodeInfo>,
}

impl Default for WaveHeader {
    fn default() -> Self {
        WaveHeader {
            format: Format::Vcd,
            timescale_fs: None,
            timescale: String::new(),
            date: String::new(),
            version: String::new(),
            scopes: Vec::new(),
            vars: Vec::new(),
            codes: Vec::new(),
        }
    }
}

impl WaveHeader {
    /// The variable at `path` (`tb.dut.dests`).
    pub fn find(&self, path: &str) -> Option<&WaveVar> {
        self.vars.iter().find(|v| v.path() == path)
    }

    /// Variables directly in scope `scope`.
    pub fn vars_in<'a>(&'a self, scope: &'a str) -> impl Iterator<Item = &'a WaveVar> + 'a {
        self.vars.iter().filter(move |v| &*v.scope == scope)
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
                "no scope `{scope}` in the waveform (it has {})",
                preview(&self.scopes)
            ))),
            many => Err(Error::Wave(format!(
                "scope `{scope}` is ambiguous: {}",
                preview(&many.iter().map(|s| s.to_string()).collect::<Vec<_>>())
            ))),
        }
    }

    /// Femtoseconds per time unit, 1 when the file declares no unit.
    pub fn fs_per_unit(&self) -> u64 {
        self.timescale_fs.unwrap_or(1)
    }
}

/// The dotted path of a stack of scope names; an empty name adds nothing.
pub(crate) fn join_scopes(scope: &[String]) -> String {
    scope
        .iter()
        .filter(|s| !s.is_empty())
        .cloned()
        .collect::<Vec<_>>()
        .join(".")
}

/// A short list of items for messages: the first eight, and how many more.
pub(crate) fn preview(items: &[String]) -> String {
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

/// The character a logic value written shorter than its variable is
/// extended with on the left, after its first character `first`: `x`
/// after `x`, `z` after `z`, `0` otherwise (IEEE 1364-2005 18.2.3).
#[inline]
pub(crate) fn pad_of(first: u8) -> u8 {
    match first {
        b'x' | b'z' => first,
        _ => b'0',
    }
}

/// One item of the value changes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Event<'a> {
    /// The changes that follow happen at time `t` (in units of the
    /// timescale). Changes before the first time happen at time 0.
    Time(u64),
    /// A logic value: exactly the code's width of `0`, `1`, `x`, `z`
    /// characters, most significant (leftmost as written) first.
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
    /// A string value (bytes as written).
    Str {
        /// The identifier code's index.
        code: u32,
        /// The value.
        value: &'a [u8],
    },
}

/// The four-valued character of each byte (see the module docs); 0 for a
/// byte that is not a logic value.
pub(crate) const LOGIC: [u8; 256] = {
    let mut t = [0u8; 256];
    t[b'0' as usize] = b'0';
    t[b'1' as usize] = b'1';
    t[b'x' as usize] = b'x';
    t[b'z' as usize] = b'z';
    t[b'X' as usize] = b'x';
    t[b'Z' as usize] = b'z';
    t[b'U' as usize] = b'x';
    t[b'u' as usize] = b'x';
    t[b'W' as usize] = b'x';
    t[b'w' as usize] = b'x';
    t[b'-' as usize] = b'x';
    t[b'L' as usize] = b'0';
    t[b'l' as usize] = b'0';
    t[b'H' as usize] = b'1';
    t[b'h' as usize] = b'1';
    t
};

/// Appends `raw`'s logic characters to `out` as the four-valued ones they
/// read as ([`LOGIC`]; a byte that is not a logic value as `x`). Stretches
/// of 64 characters that are all `0`, `1`, `x` or `z` already, nearly all
/// of any dump (a 4,096-switch network's FST holds a quarter of a million
/// bit strings of 16,384 `x`), are checked together and copied whole.
pub(crate) fn push_logic(out: &mut Vec<u8>, raw: &[u8]) {
    let map = |c: u8| logic_char(c).unwrap_or(b'x');
    out.reserve(raw.len());
    let mut chunks = raw.chunks_exact(64);
    for c in &mut chunks {
        // `&` and `|`, not `&&` and `||`: one test of the whole stretch.
        let plain = c.iter().fold(true, |ok, &b| {
            ok & ((b == b'0') | (b == b'1') | (b == b'x') | (b == b'z'))
        });
        if plain {
            out.extend_from_slice(c);
        } else {
            out.extend(c.iter().map(|&b| map(b)));
        }
    }
    out.extend(chunks.remainder().iter().map(|&b| map(b)));
}

/// The four-valued character a logic character reads as (see the module
/// docs), or `None` if it is not a logic value.
#[inline]
pub fn logic_char(c: u8) -> Option<u8> {
    match LOGIC[c as usize] {
        0 => None,
        v => Some(v),
    }
}

/// A declared name split into the variable's name and bit range, by the
/// rules of the module docs. `words` are the name and whatever followed it
/// in the declaration (`["data", "[7:0]"]`, `["mem[3]", "[15:0]"]`).
pub fn split_name(words: &[&str], width: u32) -> Result<(String, Option<(i64, i64)>)> {
    let mut full: String = words.concat();
    if let Some(rest) = full.strip_prefix('\\') {
        full = rest.to_string();
    }
    let Some(open) = full.rfind('[').filter(|_| full.ends_with(']')) else {
        return Ok((full, None));
    };
    if open == 0 {
        return Err(Error::Wave(format!("`{full}` has a range but no name")));
    }
    let Some(range) = parse_range(&full[open..]) else {
        // An index that is not a number (a VHDL enumeration index, say)
        // stays part of the name.
        return Ok((full, None));
    };
    let span = range.0.abs_diff(range.1).saturating_add(1);
    if span == u64::from(width) {
        full.truncate(open);
        while full.ends_with(' ') {
            full.pop();
        }
        Ok((full, Some(range)))
    } else {
        Ok((full, None))
    }
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

/// `1ns`, `1 ns`, `100 ps`, `244 ns`, `10fs`: femtoseconds per unit, or
/// `None` if the text is not a time unit (a factor of 1 or more and one of
/// `s`, `ms`, `us`, `ns`, `ps`, `fs`) or exceeds 2^64 fs.
pub fn parse_timescale(text: &str) -> Option<u64> {
    let t: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let split = t.find(|c: char| !c.is_ascii_digit())?;
    let (num, unit) = t.split_at(split);
    let num: u64 = num.parse().ok().filter(|&n| n >= 1)?;
    let fs = match unit {
        "s" | "sec" => 1_000_000_000_000_000u64,
        "ms" => 1_000_000_000_000,
        "us" => 1_000_000_000,
        "ns" => 1_000_000,
        "ps" => 1_000,
        "fs" => 1,
        _ => return None,
    };
    num.checked_mul(fs)
}

/// Checks a declared width against [`MAX_WIDTH`].
pub fn check_width(width: u64, name: &str) -> Result<u32> {
    if width > u64::from(MAX_WIDTH) {
        return Err(Error::Wave(format!(
            "`{name}` is declared {width} bits wide; wormcast reads variables of at most {MAX_WIDTH} bits"
        )));
    }
    Ok(width as u32)
}

/// Bytes a header is reckoned to take per variable as it is read (the
/// variable, its identifier code, the code's entry in the lookup): a diff
/// of two VCDs of 4 million one-bit variables each took 2.39 GB, about 300
/// bytes a variable per file with the pairing.
pub(crate) const HEADER_VAR_BYTES: u64 = 256;

/// How often (in variables) a growing header is held against the memory
/// available.
pub(crate) const HEADER_CHECK_EVERY: usize = 1 << 20;

/// The memory `count` variables or signals of a header take at
/// [`HEADER_VAR_BYTES`] each, said against `available` bytes, when it is
/// more.
fn beyond(count: u64, noun: &str, available: u64) -> Option<String> {
    let need = count as u128 * HEADER_VAR_BYTES as u128;
    (need > available as u128).then(|| {
        format!(
            "about {} ({HEADER_VAR_BYTES} bytes a {noun}), more than the {} of memory available",
            crate::memory::megabytes(need),
            crate::memory::megabytes(available.into())
        )
    })
}

/// Refuses to read on past `vars` variables when as many again, which the
/// header's lists take as they next double, would not fit in `available`
/// bytes: a header of tens of millions of variables is stopped with its
/// size named, instead of exhausting the machine's memory.
pub(crate) fn header_room(vars: usize, available: u64) -> std::result::Result<(), String> {
    match beyond(vars as u64, "variable", available) {
        Some(t) => Err(format!(
            "the header declares more than {vars} variables; as many again take {t}"
        )),
        None => Ok(()),
    }
}

/// Refuses a file that declares `signals` signals up front (an FST's
/// geometry) when reading their header, at [`HEADER_VAR_BYTES`] each,
/// would not fit in `available` bytes.
pub(crate) fn signals_room(signals: u64, available: u64) -> std::result::Result<(), String> {
    match beyond(signals, "signal", available) {
        Some(t) => Err(format!(
            "the file declares {signals} signals; reading them takes {t}"
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Copying whole stretches gives what mapping each byte gives:
        /// plain characters with up to three others put in (the other
        /// logic characters or any byte), so that some stretches of 64
        /// are plain and others hold one character that is not, at every
        /// length around a stretch's.
        #[test]
        fn logic_pushed_by_stretches_is_each_byte_mapped(
            plain in proptest::collection::vec(prop::sample::select(b"01xz".to_vec()), 0..300),
            others in proptest::collection::vec(
                (any::<prop::sample::Index>(), prop_oneof![
                    prop::sample::select(b"XZUuWw-LlHh".to_vec()),
                    any::<u8>(),
                ]),
                0..4,
            ),
            lead in proptest::collection::vec(any::<u8>(), 0..3),
        ) {
            let mut raw = plain;
            if !raw.is_empty() {
                for (at, c) in others {
                    let at = at.index(raw.len());
                    raw[at] = c;
                }
            }
            let mut out = lead.clone();
            push_logic(&mut out, &raw);
            let mut want = lead;
            want.extend(raw.iter().map(|&c| logic_char(c).unwrap_or(b'x')));
            prop_assert_eq!(out, want);
        }
    }

    #[test]
    fn a_stretch_with_one_other_character_is_mapped() {
        for (i, c) in [(0, b'X'), (31, b'H'), (63, b'?'), (64, b'l')] {
            let mut raw = vec![b'x'; 130];
            raw[i] = c;
            let mut out = Vec::new();
            push_logic(&mut out, &raw);
            let mut want = vec![b'x'; 130];
            want[i] = logic_char(c).unwrap_or(b'x');
            assert_eq!(out, want, "{} at {i}", c as char);
        }
    }

    #[test]
    fn a_header_stops_growing_when_as_much_again_would_not_fit() {
        assert!(header_room(1 << 20, 256 << 20).is_ok());
        assert_eq!(
            header_room(4 << 20, 1_000_000_000).unwrap_err(),
            "the header declares more than 4194304 variables; as many again take about 1073 MB (256 bytes a variable), more than the 1000 MB of memory available"
        );
        assert!(signals_room(1 << 20, 256 << 20).is_ok());
        assert_eq!(
            signals_room((1 << 20) + 1, 256 << 20).unwrap_err(),
            "the file declares 1048577 signals; reading them takes about 268 MB (256 bytes a signal), more than the 268 MB of memory available"
        );
    }

    #[test]
    fn names_ranges_and_array_indices() {
        let s = |w: &[&str], width| split_name(w, width).unwrap();
        assert_eq!(s(&["data", "[7:0]"], 8), ("data".into(), Some((7, 0))));
        assert_eq!(s(&["data[0:7]"], 8), ("data".into(), Some((0, 7))));
        assert_eq!(
            s(&["mem[3]", "[15:0]"], 16),
            ("mem[3]".into(), Some((15, 0)))
        );
        assert_eq!(s(&["mem[0][15:0]"], 16), ("mem[0]".into(), Some((15, 0))));
        assert_eq!(s(&["mem[3]"], 8), ("mem[3]".into(), None));
        assert_eq!(s(&["b[3]"], 1), ("b".into(), Some((3, 3))));
        assert_eq!(
            s(&["\\esc.name[3]"], 1),
            s(&["esc.name[3]"], 1),
            "escaped and plain spellings agree"
        );
        assert_eq!(s(&["\\a+b"], 1), ("a+b".into(), None));
        assert_eq!(s(&["st[idle]"], 1), ("st[idle]".into(), None));
        assert!(split_name(&["[3]"], 1).is_err());
    }

    #[test]
    fn timescales_of_real_tools() {
        assert_eq!(parse_timescale("1ns"), Some(1_000_000));
        assert_eq!(parse_timescale("244 ns"), Some(244_000_000));
        assert_eq!(parse_timescale("100 ps"), Some(100_000));
        assert_eq!(parse_timescale("1 fs"), Some(1));
        assert_eq!(parse_timescale("10 s"), Some(10_000_000_000_000_000));
        assert_eq!(parse_timescale("3 ns"), Some(3_000_000));
        assert_eq!(parse_timescale("0 ns"), None);
        assert_eq!(parse_timescale("1 ks"), None);
        assert_eq!(parse_timescale("ns"), None);
        assert_eq!(parse_timescale("100000 s"), None, "past 2^64 fs");
    }

    #[test]
    fn nine_values_map_to_four() {
        let m: String = "01xzXZUuWwLlHh-"
            .bytes()
            .map(|c| logic_char(c).unwrap() as char)
            .collect();
        assert_eq!(m, "01xzxzxxxx0011x");
        assert_eq!(logic_char(b'q'), None);
        assert_eq!(logic_char(b'2'), None);
    }
}

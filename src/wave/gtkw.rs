//! Views of the model's waveforms: GTKWave save files (`.gtkw`) and Surfer
//! command files (`.sucl`) that open a dump with every unit's signals in a
//! group of its own.
//!
//! A traced network of 4,096 switches declares about a million signals, so
//! both texts are made with one path buffer that grows and shrinks as the
//! walk enters and leaves a scope, and the numbers written with `itoa`,
//! rather than a path and a formatted line made for every signal.

use crate::Result;
use crate::rtl::trace::{Hierarchy, HierarchyIndex, Radix};
use std::path::Path;

// GTKWave trace flags (bit positions from GTKWave's save-file format).
const HEX: u32 = 1 << 1;
const DEC: u32 = 1 << 2;
const BIN: u32 = 1 << 3;
const RJUSTIFY: u32 = 1 << 5;
const BLANK: u32 = 1 << 9;
const COLLAPSED: u32 = 1 << 12;
const CLOSED: u32 = 1 << 22;
const GRP_BEGIN: u32 = 1 << 23;
const GRP_END: u32 = 1 << 24;

/// The first line of every GTKWave save file wormcast writes: a save file
/// beside a waveform that does not start with it was written by someone
/// else (GTKWave, once a user arranged the signals and saved), and
/// [`write_views`](super::write_views) leaves it as it is.
pub const GTKW_MARK: &str = "[*] GTKWave save file written by wormcast";

/// Appends a GTKWave flags line: `@` and `flags` in lower-case hexadecimal.
fn flags(o: &mut String, flags: u32) {
    o.push('@');
    let digits = (32 - (flags | 1).leading_zeros()).div_ceil(4);
    for k in (0..digits).rev() {
        let d = (flags >> (4 * k)) & 0xf;
        o.push(char::from_digit(d, 16).expect("a hexadecimal digit"));
    }
    o.push('\n');
}

/// Appends `.` and the name of `scope` (not the root) to `path`, which
/// holds its parent's path, and returns the length to cut it back to.
fn enter(path: &mut String, h: &Hierarchy, scope: u32) -> usize {
    let back = path.len();
    path.push('.');
    path.push_str(&h.scopes[scope as usize].name);
    back
}

/// The text of a save file for `vcd_path` that shows the clock (`top.clk`,
/// or `clk` in whatever the root scope is) and then one group per component
/// (`sw3`, `ep7`), with a closed sub-group per unit (`in2`, `dec2`,
/// `out2`). Each signal shows in its declared
/// [`Radix`]: masks in binary, data bytes in hexadecimal, counters in
/// decimal.
pub fn gtkw_text(vcd_path: &str, h: &Hierarchy) -> String {
    gtkw_text_in(vcd_path, h, &h.index())
}

/// [`gtkw_text`] with `h`'s index made already.
pub(crate) fn gtkw_text_in(vcd_path: &str, h: &Hierarchy, ix: &HierarchyIndex) -> String {
    let mut o = String::with_capacity(64 * h.signals.len() + 256);
    let root = &h.scopes[0].name;
    for line in [
        GTKW_MARK,
        &format!("[dumpfile] \"{vcd_path}\""),
        "[timestart] 0",
        &format!("[treeopen] {root}."),
        "[sst_expanded] 1",
    ] {
        o.push_str(line);
        o.push('\n');
    }
    flags(&mut o, BIN | RJUSTIFY);
    o.push_str(root);
    o.push_str(".clk\n");
    let mut path = root.clone();
    for &comp in ix.children(0) {
        group(&mut o, &mut path, h, ix, comp, false);
    }
    o
}

/// Appends `scope`'s group: its signals, then a closed group per child.
/// `path` holds the path of `scope`'s parent, and does again on return.
fn group(
    o: &mut String,
    path: &mut String,
    h: &Hierarchy,
    ix: &HierarchyIndex,
    scope: u32,
    closed: bool,
) {
    let name = &h.scopes[scope as usize].name;
    let c = if closed { CLOSED } else { 0 };
    flags(o, GRP_BEGIN | BLANK | c);
    o.push('-');
    o.push_str(name);
    o.push('\n');
    let back = enter(path, h, scope);
    let mut num = itoa::Buffer::new();
    for s in ix.signals(scope) {
        let d = &h.signals[s.0 as usize];
        let fmt = match d.radix {
            Radix::Bin => BIN,
            Radix::Hex => HEX,
            Radix::Dec => DEC,
        };
        flags(o, fmt | RJUSTIFY);
        o.push_str(path);
        o.push('.');
        o.push_str(&d.name);
        if d.width != 1 {
            o.push('[');
            o.push_str(num.format(d.width - 1));
            o.push_str(":0]");
        }
        o.push('\n');
    }
    for &child in ix.children(scope) {
        group(o, path, h, ix, child, true);
    }
    path.truncate(back);
    let end = if closed { CLOSED | COLLAPSED } else { 0 };
    flags(o, GRP_END | BLANK | end);
    o.push('-');
    o.push_str(name);
    o.push('\n');
}

/// The text of a Surfer command file for `wave_path`: it loads the file,
/// adds the clock, and then every unit's signals under a divider named
/// after the unit (`sw3.in2`), in declaration order. Surfer's command
/// language makes groups only from items marked by hand, so dividers
/// stand for GTKWave's groups. Run it with `surfer -c <file>.sucl`.
pub fn surfer_text(wave_path: &str, h: &Hierarchy) -> String {
    surfer_text_in(wave_path, h, &h.index())
}

/// [`surfer_text`] with `h`'s index made already.
pub(crate) fn surfer_text_in(wave_path: &str, h: &Hierarchy, ix: &HierarchyIndex) -> String {
    let mut o = String::with_capacity(64 * h.signals.len() + 256);
    let root = &h.scopes[0].name;
    o.push_str("load_file ");
    o.push_str(wave_path);
    o.push_str("\nvariable_add ");
    o.push_str(root);
    o.push_str(".clk\n");
    /// Appends `scope`'s divider and signals, then its children's.
    fn unit(o: &mut String, path: &mut String, h: &Hierarchy, ix: &HierarchyIndex, scope: u32) {
        let back = enter(path, h, scope);
        let signals = ix.signals(scope);
        if !signals.is_empty() {
            // The divider drops the root's name.
            let rel = path.split_once('.').map_or(path.as_str(), |(_, r)| r);
            o.push_str("divider_add ");
            o.push_str(rel);
            o.push('\n');
            for s in signals {
                o.push_str("variable_add ");
                o.push_str(path);
                o.push('.');
                o.push_str(&h.signals[s.0 as usize].name);
                o.push('\n');
            }
        }
        for &c in ix.children(scope) {
            unit(o, path, h, ix, c);
        }
        path.truncate(back);
    }
    let mut path = root.clone();
    for &comp in ix.children(0) {
        unit(&mut o, &mut path, h, ix, comp);
    }
    o.push_str("zoom_fit\n");
    o
}

/// Writes [`gtkw_text`] to `path`.
pub fn write_gtkw(path: impl AsRef<Path>, vcd_path: &str, h: &Hierarchy) -> Result<()> {
    crate::error::write_bytes(path.as_ref(), gtkw_text(vcd_path, h))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A root named `tb` holding a switch with two units (one of them
    /// with a scope inside) and a signal of its own, and an empty scope.
    fn hier() -> Hierarchy {
        let mut h = Hierarchy::new("tb");
        h.root().scope("sw0", |s| {
            s.signal("busy", 1);
            s.scope("in0", |u| {
                u.signal_as("count", 10, Radix::Dec);
                u.scope("deep", |d| {
                    d.signal_as("data", 8, Radix::Hex);
                });
            });
            s.scope("out0", |u| {
                u.signal("mask", 4); // decimal, as a bus is by default
            });
        });
        h.root().scope("idle", |_| {});
        h
    }

    #[test]
    fn the_gtkwave_view_groups_every_scope_with_its_full_paths() {
        let want = "\
[*] GTKWave save file written by wormcast
[dumpfile] \"w.fst\"
[timestart] 0
[treeopen] tb.
[sst_expanded] 1
@28
tb.clk
@800200
-sw0
@28
tb.sw0.busy
@c00200
-in0
@24
tb.sw0.in0.count[9:0]
@c00200
-deep
@22
tb.sw0.in0.deep.data[7:0]
@1401200
-deep
@1401200
-in0
@c00200
-out0
@24
tb.sw0.out0.mask[3:0]
@1401200
-out0
@1000200
-sw0
@800200
-idle
@1000200
-idle
";
        assert_eq!(gtkw_text("w.fst", &hier()), want);
    }

    #[test]
    fn the_surfer_view_divides_every_scope_with_signals() {
        let want = "\
load_file w.fst
variable_add tb.clk
divider_add sw0
variable_add tb.sw0.busy
divider_add sw0.in0
variable_add tb.sw0.in0.count
divider_add sw0.in0.deep
variable_add tb.sw0.in0.deep.data
divider_add sw0.out0
variable_add tb.sw0.out0.mask
zoom_fit
";
        assert_eq!(surfer_text("w.fst", &hier()), want);
    }

    #[test]
    fn flags_are_lower_case_hexadecimal_without_leading_zeros() {
        for v in [0, 1, 0xf, 0x10, 0x28, 0x800200, 0x1401200, u32::MAX] {
            let mut o = String::new();
            flags(&mut o, v);
            assert_eq!(o, format!("@{v:x}\n"));
        }
    }
}

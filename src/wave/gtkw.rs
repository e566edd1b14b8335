//! Views of the model's waveforms: GTKWave save files (`.gtkw`) and Surfer
//! command files (`.sucl`) that open a dump with every unit's signals in a
//! group of its own.

use crate::rtl::trace::{Hierarchy, HierarchyIndex, Radix};
use crate::{Error, Result};
use std::fmt::Write as _;
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

/// The text of a save file for `vcd_path` that shows the clock (`top.clk`,
/// or `clk` in whatever the root scope is) and then one group per component
/// (`sw3`, `ep7`), with a closed sub-group per unit (`in2`, `dec2`,
/// `out2`). Each signal shows in its declared
/// [`Radix`]: masks in binary, data bytes in hexadecimal, counters in
/// decimal.
pub fn gtkw_text(vcd_path: &str, h: &Hierarchy) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "{GTKW_MARK}");
    let _ = writeln!(o, "[dumpfile] \"{vcd_path}\"");
    let _ = writeln!(o, "[timestart] 0");
    let root = &h.scopes[0].name;
    let _ = writeln!(o, "[treeopen] {root}.");
    let _ = writeln!(o, "[sst_expanded] 1");
    let _ = writeln!(o, "@{:x}", BIN | RJUSTIFY);
    let _ = writeln!(o, "{root}.clk");
    let ix = h.index();
    for &comp in ix.children(0) {
        group(&mut o, h, &ix, comp, false);
    }
    o
}

fn group(o: &mut String, h: &Hierarchy, ix: &HierarchyIndex, scope: u32, closed: bool) {
    let name = &h.scopes[scope as usize].name;
    let c = if closed { CLOSED } else { 0 };
    let _ = writeln!(o, "@{:x}", GRP_BEGIN | BLANK | c);
    let _ = writeln!(o, "-{name}");
    let path = h.scope_path(scope);
    for s in ix.signals(scope) {
        let d = &h.signals[s.0 as usize];
        let fmt = match d.radix {
            Radix::Bin => BIN,
            Radix::Hex => HEX,
            Radix::Dec => DEC,
        };
        let _ = writeln!(o, "@{:x}", fmt | RJUSTIFY);
        if d.width == 1 {
            let _ = writeln!(o, "{path}.{}", d.name);
        } else {
            let _ = writeln!(o, "{path}.{}[{}:0]", d.name, d.width - 1);
        }
    }
    for &child in ix.children(scope) {
        group(o, h, ix, child, true);
    }
    let end = if closed { CLOSED | COLLAPSED } else { 0 };
    let _ = writeln!(o, "@{:x}", GRP_END | BLANK | end);
    let _ = writeln!(o, "-{name}");
}

/// The text of a Surfer command file for `wave_path`: it loads the file,
/// adds the clock, and then every unit's signals under a divider named
/// after the unit (`sw3.in2`), in declaration order. Surfer's command
/// language makes groups only from items marked by hand, so dividers
/// stand for GTKWave's groups. Run it with `surfer -c <file>.sucl`.
pub fn surfer_text(wave_path: &str, h: &Hierarchy) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "load_file {wave_path}");
    let root = &h.scopes[0].name;
    let _ = writeln!(o, "variable_add {root}.clk");
    fn unit(o: &mut String, h: &Hierarchy, ix: &HierarchyIndex, scope: u32) {
        let path = h.scope_path(scope);
        let signals = ix.signals(scope);
        if !signals.is_empty() {
            let rel = path.split_once('.').map_or(path.as_str(), |(_, r)| r);
            let _ = writeln!(o, "divider_add {rel}");
            for s in signals {
                let _ = writeln!(o, "variable_add {path}.{}", h.signals[s.0 as usize].name);
            }
        }
        for &c in ix.children(scope) {
            unit(o, h, ix, c);
        }
    }
    let ix = h.index();
    for &comp in ix.children(0) {
        unit(&mut o, h, &ix, comp);
    }
    let _ = writeln!(o, "zoom_fit");
    o
}

/// Writes [`gtkw_text`] to `path`.
pub fn write_gtkw(path: impl AsRef<Path>, vcd_path: &str, h: &Hierarchy) -> Result<()> {
    let path = path.as_ref();
    std::fs::write(path, gtkw_text(vcd_path, h)).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })
}

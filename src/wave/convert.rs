//! Any waveform written out as VCD (`wormcast wave to-vcd`), and reading a
//! GHW file in a child process.
//!
//! `wellen`'s GHW reader takes the sizes a GHW file declares at their word
//! and allocates them before it reads on; a malformed file can ask for more
//! memory than the machine has, which aborts the process, and GHW cannot
//! be checked beforehand without parsing its whole type system. The
//! command-line tool therefore reads GHW files in a child process of its
//! own ([`open_isolated`]) that converts the file to VCD on a pipe: if
//! that child fails in any way, the parent reports it as an error about
//! the file. Library callers of [`super::WaveReader::open`] read GHW in
//! their own process, where a panic is turned into an error but an
//! allocation failure is not (docs/cosim.md says so).

use super::header::{Event, Format, VarKind, WaveHeader};
use super::read::{VcdReader, detect_format};
use super::stream::{Stream, WaveReader};
use crate::{Error, Result};
use rustc_hash::FxHashMap;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdout, Command, Stdio};

/// The VCD identifier code of code index `i` (`!`, `"`, ..., `!!`, ...).
fn vcd_code(mut i: usize) -> String {
    let mut s = Vec::new();
    loop {
        s.push(b'!' + (i % 94) as u8);
        i /= 94;
        if i == 0 {
            break;
        }
        i -= 1;
    }
    String::from_utf8(s).expect("printable")
}

/// A nested scope with its variables, and its child scopes in the order
/// first seen (found by name through `by_name`: a file of 200,000 scopes
/// in one scope took minutes when each was found by a walk of its
/// siblings).
#[derive(Default)]
struct Node {
    vars: Vec<usize>,
    children: Vec<(String, Node)>,
    by_name: FxHashMap<String, usize>,
}

/// Writes `r` as VCD to `out`: the same scopes, variables and values (a
/// string value's whitespace and control bytes as `\xHH`). A write that
/// fails is an error about "the VCD output"; [`write_vcd_named`] names it.
pub fn write_vcd(r: &mut WaveReader, out: &mut impl Write) -> Result<()> {
    write_vcd_named(r, out, Path::new("the VCD output"))
}

/// [`write_vcd`] to an output called `name` (a file's path, or "standard
/// output"), which an error in writing it names.
pub fn write_vcd_named(r: &mut WaveReader, out: &mut impl Write, name: &Path) -> Result<()> {
    let h = r.header().clone();
    let io = |source: std::io::Error| Error::io(name, source);
    write_header(&h, out).map_err(io)?;
    let codes: Vec<String> = (0..h.codes.len()).map(vcd_code).collect();
    let mut line = Vec::with_capacity(256);
    while let Some(e) = r.next_event()? {
        line.clear();
        match e {
            Event::Time(t) => {
                let _ = writeln!(line, "#{t}");
            }
            Event::Logic { code, bits } => {
                let c = &codes[code as usize];
                if h.codes[code as usize].width == 1 {
                    line.extend_from_slice(bits);
                } else {
                    line.push(b'b');
                    line.extend_from_slice(bits);
                    line.push(b' ');
                }
                line.extend_from_slice(c.as_bytes());
                line.push(b'\n');
            }
            Event::Real { code, value } => {
                let _ = writeln!(line, "r{value} {}", codes[code as usize]);
            }
            Event::Str { code, value } => {
                line.push(b's');
                for &b in value {
                    if b <= b' ' || b == 0x7f {
                        let _ = write!(line, "\\x{b:02x}");
                    } else {
                        line.push(b);
                    }
                }
                let _ = writeln!(line, " {}", codes[code as usize]);
            }
        }
        out.write_all(&line).map_err(io)?;
    }
    out.flush().map_err(io)
}

fn write_header(h: &WaveHeader, out: &mut impl Write) -> std::io::Result<()> {
    writeln!(out, "$version {} $end", h.version.trim())?;
    if !h.date.trim().is_empty() {
        writeln!(out, "$date {} $end", h.date.trim())?;
    }
    writeln!(
        out,
        "$comment converted from {} by wormcast $end",
        h.format.name()
    )?;
    if let Some(fs) = h.timescale_fs {
        let (n, u) = [
            (1_000_000_000_000_000, "s"),
            (1_000_000_000_000, "ms"),
            (1_000_000_000, "us"),
            (1_000_000, "ns"),
            (1_000, "ps"),
        ]
        .into_iter()
        .find(|(f, _)| fs % f == 0)
        .map(|(f, u)| (fs / f, u))
        .unwrap_or((fs, "fs"));
        writeln!(out, "$timescale {n} {u} $end")?;
    }
    // Scopes as a tree, in the order they were first seen.
    let mut root = Node::default();
    for (i, v) in h.vars.iter().enumerate() {
        let mut node = &mut root;
        if !v.scope.is_empty() {
            for part in v.scope.split('.') {
                let k = match node.by_name.get(part) {
                    Some(&k) => k,
                    None => {
                        let k = node.children.len();
                        node.by_name.insert(part.to_string(), k);
                        node.children.push((part.to_string(), Node::default()));
                        k
                    }
                };
                node = &mut node.children[k].1;
            }
        }
        node.vars.push(i);
    }
    fn emit(h: &WaveHeader, node: &Node, out: &mut impl Write) -> std::io::Result<()> {
        for &i in &node.vars {
            let v = &h.vars[i];
            let ty = match v.kind {
                VarKind::Real => "real",
                VarKind::Str => "string",
                VarKind::Event => "event",
                VarKind::Logic => "wire",
            };
            let range = match v.range {
                Some((l, r)) if l == r => format!(" [{l}]"),
                Some((l, r)) => format!(" [{l}:{r}]"),
                None => String::new(),
            };
            writeln!(
                out,
                "$var {ty} {} {} {}{range} $end",
                v.width,
                vcd_code(v.code as usize),
                v.name.replace(char::is_whitespace, "_")
            )?;
        }
        for (name, child) in &node.children {
            writeln!(out, "$scope module {name} $end")?;
            emit(h, child, out)?;
            writeln!(out, "$upscope $end")?;
        }
        Ok(())
    }
    emit(h, &root, out)?;
    writeln!(out, "$enddefinitions $end")
}

/// A child's output, which reports the child's failure at its end.
struct ChildOutput {
    child: Child,
    out: ChildStdout,
    what: String,
    /// The child's bounds: MiB of address space and CPU seconds.
    bounds: (u64, u64),
}

impl Read for ChildOutput {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.out.read(buf)?;
        if n == 0 && !buf.is_empty() {
            let mut err = String::new();
            if let Some(mut e) = self.child.stderr.take() {
                let _ = e.read_to_string(&mut err);
            }
            let status = self.child.wait()?;
            if !status.success() {
                let how = match status.code() {
                    Some(c) => format!("malformed GHW (the reader's exit status {c})"),
                    None => {
                        use std::os::unix::process::ExitStatusExt;
                        stopped(status.signal().unwrap_or(0), &err, self.bounds)
                    }
                };
                // The child's message, without the file it names again.
                let first = err.lines().find(|l| l.starts_with("error: ")).map(|l| {
                    let l = l.trim_start_matches("error: ");
                    l.strip_prefix(&format!("{}: ", self.what))
                        .unwrap_or(l)
                        .to_string()
                });
                return Err(std::io::Error::other(match first {
                    Some(m) => m,
                    None => how,
                }));
            }
        }
        Ok(n)
    }
}

/// Why the GHW reader's child, under `bounds` (MiB of address space, CPU
/// seconds), was stopped by `signal`, its standard error `err`. Each bound
/// ends the child in a way of its own (`wave to-vcd --max-memory-mib
/// --max-cpu-seconds`): a SIGKILL is neither, and is never reported as one.
fn stopped(signal: i32, err: &str, (mib, cpu): (u64, u64)) -> String {
    let too_large = "a malformed file, or one too large for them";
    match signal {
        libc::SIGABRT if err.contains("memory allocation of") => format!(
            "GHW not read: its reader ran out of its bound of {mib} MiB of memory ({too_large})"
        ),
        libc::SIGXCPU => format!(
            "GHW not read: its reader ran out of its bound of {cpu} CPU seconds ({too_large})"
        ),
        libc::SIGKILL => format!(
            "GHW not read: its reader was killed (signal 9) within its bounds of {mib} MiB of \
             memory and {cpu} CPU seconds: by the kernel when memory ran out (the limit of a \
             control group, such as a Slurm job's or a container's, or the machine's), or by \
             a user"
        ),
        s => format!(
            "GHW not read: its reader was stopped by signal {s} under its bounds of {mib} MiB \
             of memory and {cpu} CPU seconds"
        ),
    }
}

impl Drop for ChildOutput {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Opens the waveform at `path` like [`WaveReader::open`], except that a
/// GHW file is read by `exe wave to-vcd <path>` in a child process (the
/// `wormcast` executable), so that no GHW file can crash the caller.
pub fn open_isolated(path: &Path, exe: &Path) -> Result<WaveReader> {
    if let Some(s) = Stream::open(path)? {
        // A pipe or standard input: a GHW stream is handed to the child on
        // its standard input, as read.
        if s.format != Format::Ghw {
            return s.reader();
        }
        let name = s.name.clone();
        return ghw_in_child(exe, &name, STREAMED_GHW_MIB << 20, Some(s));
    }
    let mut first = [0u8; 16];
    let n = std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut first))
        .map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
    if detect_format(&first[..n]) != Format::Ghw {
        return WaveReader::open(path);
    }
    // Bounds for the child: a malformed GHW file can make the reader ask
    // for memory without end (it then fails fast instead of paging the
    // machine out) or loop (it is then stopped).
    let len = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    ghw_in_child(exe, path, len, None)
}

/// A GHW waveform read by `exe wave to-vcd ARG` in a child process, under
/// the bounds of a file of `len` bytes (`1024 + 64 * len` MiB of address
/// space, `60 + len` CPU seconds, `len` in MiB): `ARG` is `path`, or `-`
/// with `feed`, the stream handed to the child on its standard input by a
/// thread of its own. Errors name `path` (for a stream, its name).
fn ghw_in_child(exe: &Path, path: &Path, len: u64, feed: Option<Stream>) -> Result<WaveReader> {
    let mib = 1024 + len.saturating_mul(64) / (1 << 20);
    let cpu = 60 + len / (1 << 20);
    let (arg, what) = match &feed {
        Some(_) => (
            Path::new(super::stream::STDIN),
            "standard input".to_string(),
        ),
        None => (path, path.display().to_string()),
    };
    let mut child = Command::new(exe)
        .args(["wave", "to-vcd", "--max-memory-mib"])
        .arg(mib.to_string())
        .arg("--max-cpu-seconds")
        .arg(cpu.to_string())
        .arg(arg)
        .stdin(if feed.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            Error::Wave(format!(
                "{what}: cannot start the GHW reader's process ({}): {e}",
                exe.display()
            ))
        })?;
    if let Some(s) = feed {
        let mut input = child.stdin.take().expect("piped");
        let mut src = s.src;
        // The child may stop reading early (a malformed file): the copy
        // then fails, which the child's own error reports.
        std::thread::Builder::new()
            .name("wormcast-ghw-feed".into())
            .spawn(move || {
                let _ = std::io::copy(&mut src, &mut input);
            })
            .map_err(|e| {
                Error::Wave(format!(
                    "{what}: cannot start the thread that feeds the GHW reader: {e}"
                ))
            })?;
    }
    let out = child.stdout.take().expect("piped");
    let src = ChildOutput {
        child,
        out,
        what,
        bounds: (mib, cpu),
    };
    let r = VcdReader::new(src).map_err(|e| e.in_file(path))?;
    let mut w = WaveReader::from_vcd(r);
    w.set_path(path);
    Ok(w)
}

/// The size of GHW file whose bounds a child reading a GHW stream gets
/// ([`ghw_in_child`]): 9 GiB of address space and 188 CPU seconds.
const STREAMED_GHW_MIB: u64 = 128;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_printable() {
        let codes: Vec<String> = (0..20_000).map(vcd_code).collect();
        let set: std::collections::BTreeSet<&String> = codes.iter().collect();
        assert_eq!(set.len(), codes.len());
        assert_eq!(codes[0], "!");
        assert_eq!(codes[93], "~");
        assert_eq!(codes[94], "!!");
    }

    #[test]
    fn scopes_keep_the_order_first_seen_with_their_variables() {
        let text = "$timescale 1 ns $end\n\
            $scope module top $end\n$scope module x $end\n$var wire 1 ! a $end\n$upscope $end\n\
            $scope module y $end\n$var wire 1 \" b $end\n$upscope $end\n$upscope $end\n\
            $scope module other $end\n$var wire 1 # c $end\n$upscope $end\n\
            $scope module top $end\n$scope module x $end\n$var wire 1 $ d $end\n$upscope $end\n\
            $var wire 1 % e $end\n$upscope $end\n$enddefinitions $end\n#0\n";
        let r = WaveReader::from_bytes(text.as_bytes().to_vec()).unwrap();
        let mut out = Vec::new();
        write_header(r.header(), &mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        let body: Vec<&str> = out
            .lines()
            .skip_while(|l| !l.starts_with("$timescale"))
            .skip(1)
            .collect();
        assert_eq!(
            body,
            [
                "$scope module top $end",
                "$var wire 1 % e $end",
                "$scope module x $end",
                "$var wire 1 ! a $end",
                "$var wire 1 $ d $end",
                "$upscope $end",
                "$scope module y $end",
                "$var wire 1 \" b $end",
                "$upscope $end",
                "$upscope $end",
                "$scope module other $end",
                "$var wire 1 # c $end",
                "$upscope $end",
                "$enddefinitions $end",
            ]
        );
    }

    /// Reads all of a shell command's output through [`ChildOutput`], as
    /// the GHW reader's child is read.
    fn child_says(script: &str) -> std::io::Result<Vec<u8>> {
        let mut child = Command::new("sh")
            .args(["-c", script])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("sh runs");
        let out = child.stdout.take().expect("piped");
        let mut src = ChildOutput {
            child,
            out,
            what: "m.ghw".into(),
            bounds: (1088, 61),
        };
        let mut all = Vec::new();
        src.read_to_end(&mut all).map(|_| all)
    }

    /// How the reader's child ended is what the caller is told: its own
    /// message without the file named again, its exit status, the bound it
    /// ran out of, or the signal that stopped it. A SIGKILL, which a
    /// control group out of memory sends, is never taken for a bound.
    #[test]
    fn a_readers_end_is_reported_as_it_was() {
        assert_eq!(child_says("printf 'ok'").unwrap(), b"ok");
        let e = child_says("printf '#0'; kill -KILL $$").unwrap_err();
        assert_eq!(
            e.to_string(),
            "GHW not read: its reader was killed (signal 9) within its bounds of 1088 MiB of \
             memory and 61 CPU seconds: by the kernel when memory ran out (the limit of a \
             control group, such as a Slurm job's or a container's, or the machine's), or by \
             a user"
        );
        let e = child_says("kill -XCPU $$").unwrap_err();
        assert_eq!(
            e.to_string(),
            "GHW not read: its reader ran out of its bound of 61 CPU seconds (a malformed \
             file, or one too large for them)"
        );
        let e = child_says("echo 'memory allocation of 4096 bytes failed' >&2; kill -ABRT $$")
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "GHW not read: its reader ran out of its bound of 1088 MiB of memory (a \
             malformed file, or one too large for them)"
        );
        let e = child_says("kill -ABRT $$").unwrap_err();
        assert!(e.to_string().contains("stopped by signal 6 under"), "{e}");
        let e = child_says("exit 3").unwrap_err();
        assert_eq!(e.to_string(), "malformed GHW (the reader's exit status 3)");
        let e = child_says("echo 'note' >&2; echo 'error: m.ghw: a scope ends twice' >&2; exit 2")
            .unwrap_err();
        assert_eq!(e.to_string(), "a scope ends twice");
    }

    #[test]
    fn a_conversion_reads_back_the_same() {
        let text = "$timescale 10 ps $end\n$scope module tb $end\n$scope module u $end\n\
            $var wire 1 ! clk $end\n$var wire 4 \" n [3:0] $end\n$upscope $end\n\
            $var real 64 # r $end\n$var string 0 $ s $end\n$upscope $end\n$enddefinitions $end\n\
            #0\n0!\nb1x0z \"\nr1.5 #\nsa $\n#5\n1!\nsb $\n";
        let mut r = WaveReader::from_bytes(text.as_bytes().to_vec()).unwrap();
        let mut out = Vec::new();
        write_vcd(&mut r, &mut out).unwrap();
        let a = WaveReader::from_bytes(text.as_bytes().to_vec()).unwrap();
        let b = WaveReader::from_bytes(out.clone()).unwrap();
        let rep = super::super::diff(a, b, &Default::default()).unwrap();
        assert!(rep.ok(), "{rep}\n{}", String::from_utf8_lossy(&out));
        assert_eq!(rep.signals, 4);
    }
}

//! How `wave diff` scales with the number of signals: writes a VCD of N
//! signals (each changing at 50 of 1,000 times) and compares it with
//! itself, printing the wall time. Run under `/usr/bin/time -v` for the
//! peak memory:
//!
//! ```sh
//! cargo run --release --example wave_scale -- 100000
//! /usr/bin/time -v cargo run --release --example wave_scale -- 1000000
//! ```

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;
use wormcast::wave::{DiffOptions, WaveReader, diff};

#[path = "common/mod.rs"]
mod common;

/// A VCD of `n` signals in scopes of 1,000 over 1,000 times; signal `i`
/// changes at the 50 times `t` with `(t + i) % 20 == 0`. Written once to
/// the system's temporary directory.
pub fn many_signals(n: usize) -> PathBuf {
    let path = std::env::temp_dir().join(format!("wormcast-bench-{n}-signals.vcd"));
    if path.exists() {
        return path;
    }
    let code = |mut i: usize| {
        let mut s = String::new();
        loop {
            s.push((b'!' + (i % 94) as u8) as char);
            i /= 94;
            if i == 0 {
                break s;
            }
        }
    };
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).expect("temp file"));
    writeln!(f, "$timescale 1ns $end\n$scope module top $end").unwrap();
    for i in 0..n {
        if i % 1000 == 0 {
            writeln!(f, "$scope module u{} $end", i / 1000).unwrap();
        }
        writeln!(f, "$var wire 8 {} s{i} [7:0] $end", code(i)).unwrap();
        if i % 1000 == 999 || i + 1 == n {
            writeln!(f, "$upscope $end").unwrap();
        }
    }
    writeln!(f, "$upscope $end\n$enddefinitions $end\n#0").unwrap();
    for i in 0..n {
        writeln!(f, "b0 {}", code(i)).unwrap();
    }
    for t in 1..1000usize {
        writeln!(f, "#{t}").unwrap();
        for i in (20 - t % 20) % 20..n {
            if (t + i) % 20 == 0 {
                writeln!(f, "b{:b} {}", (t / 20) % 256, code(i)).unwrap();
            }
        }
    }
    f.flush().unwrap();
    path
}

#[allow(dead_code)]
fn main() -> std::process::ExitCode {
    common::exit(options(&common::start()).and_then(measure))
}

/// The number of signals the arguments ask for (100,000 when none is
/// given): at most ten million, a file of several gigabytes already.
#[allow(dead_code)]
fn options(args: &[String]) -> wormcast::Result<usize> {
    common::one_number(
        args,
        "signals",
        "a number of signals",
        (1, 10_000_000),
        100_000,
    )
}

#[allow(dead_code)]
fn measure(n: usize) -> wormcast::Result<()> {
    let path = many_signals(n);
    let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    let t = Instant::now();
    let a = WaveReader::open(&path)?;
    let b = WaveReader::open(&path)?;
    let r = diff(a, b, &DiffOptions::default())?;
    println!(
        "{n} signals, {:.0} MB: {r}\nwave diff in {:.2} s",
        size as f64 / 1e6,
        t.elapsed().as_secs_f64()
    );
    Ok(())
}

// benches/vcd.rs includes this file, and its test build runs no test of it.
#[cfg(test)]
#[allow(dead_code, unused_imports)]
mod tests {
    use super::common::{args, refuses};
    use super::options;

    #[test]
    fn the_number_of_signals_is_read_and_anything_else_refused_by_name() {
        assert_eq!(options(&args(&[])).unwrap(), 100_000);
        assert_eq!(options(&args(&["10"])).unwrap(), 10);
        refuses(
            options,
            &[
                (
                    &["0"],
                    "signals = 0: a number of signals from 1 to 10,000,000",
                ),
                (
                    &["10000001"],
                    "signals = 10000001: a number of signals from 1 to 10,000,000",
                ),
                (
                    &["many"],
                    "signals = many: a number of signals from 1 to 10,000,000",
                ),
                (
                    &["10", "fst"],
                    "arguments = fst: one argument at most, a number of signals",
                ),
            ],
        );
    }
}

//! Finds the simulators and waveform tools the tests drive, so that a test
//! needing one that is not installed is reported as ignored (visibly,
//! with the tool's name) instead of passing without running. `.ci/run`
//! installs them all and checks that they are found.

use std::process::{Command, Stdio};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=PATH");
    for (tool, arg) in [
        ("iverilog", "-V"),
        ("verilator", "--version"),
        ("ghdl", "--version"),
        ("vcd2fst", "--help"),
        ("fst2vcd", "--help"),
    ] {
        let flag = format!("have_{tool}");
        println!("cargo::rustc-check-cfg=cfg({flag})");
        let found = Command::new(tool)
            .arg(arg)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok();
        if found {
            println!("cargo::rustc-cfg={flag}");
        }
        // Look again when the tool appears or changes (a path that does
        // not exist makes cargo run this script at every build).
        if let Some(path) = std::env::var_os("PATH") {
            for dir in std::env::split_paths(&path) {
                let candidate = dir.join(tool);
                if candidate.exists() || !found {
                    println!("cargo:rerun-if-changed={}", candidate.display());
                }
                if candidate.exists() {
                    break;
                }
            }
        }
    }
}

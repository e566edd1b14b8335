//! Finds the simulators and waveform tools the tests drive, so that a test
//! needing one that is not installed is reported as ignored (visibly,
//! with the tool's name) instead of passing without running. `.ci/run`
//! installs them all and checks that they are found.
//!
//! Also names the build (`WORMCAST_BUILD`, for `wormcast::BUILD`): the
//! version, and the commit when built from a git checkout. A sweep's
//! journal records the build its results came from.

use std::process::{Command, Stdio};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=PATH");
    build();
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

/// Sets `WORMCAST_BUILD` to the version, followed by the checkout's
/// commit (`+` and 12 hex digits) when the crate is built from a git
/// checkout and git is there (a build from a package has none), and by
/// `.modified-` and 16 hex digits when what the build is made of differs
/// from that commit (the digits a hash of the difference, so that two
/// different edits are two builds). The script runs again when the commit
/// moves or a source changes.
fn build() {
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let build = match commit() {
        Some(c) => format!("{version}+{c}"),
        None => version,
    };
    println!("cargo:rustc-env=WORMCAST_BUILD={build}");
}

/// The commit of the crate's own git checkout, if it is one.
fn commit() -> Option<String> {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .stderr(Stdio::null())
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let dir = git(&["rev-parse", "--absolute-git-dir"])?;
    // Only the crate's own checkout: not one it sits inside of as a
    // package (a vendored copy in another project's tree).
    let top = git(&["rev-parse", "--show-toplevel"]).map(std::path::PathBuf::from);
    let here = std::env::var_os("CARGO_MANIFEST_DIR").map(std::path::PathBuf::from);
    let canon = |p: Option<std::path::PathBuf>| p.and_then(|p| p.canonicalize().ok());
    let top = canon(top);
    if top.is_none() || top != canon(here) {
        return None;
    }
    // What moves when the commit does: HEAD, the branch's ref, or the
    // packed refs (each only if it is there: a path that does not exist
    // makes cargo run this script at every build).
    // (A worktree has its own HEAD and shares the refs of the common
    // folder.)
    let common = git(&["rev-parse", "--path-format=absolute", "--git-common-dir"])
        .unwrap_or_else(|| dir.clone());
    let (dir, common) = (std::path::Path::new(&dir), std::path::Path::new(&common));
    let mut watch = vec![dir.join("HEAD"), common.join("packed-refs")];
    if let Some(r) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watch.push(common.join(r));
    }
    for p in watch.iter().filter(|p| p.exists()) {
        println!("cargo:rerun-if-changed={}", p.display());
    }
    let commit = git(&["rev-parse", "--short=12", "HEAD"])?;
    // What the build is made of, besides this script: edits to it not yet
    // committed make another model than the commit's.
    const MADE_OF: [&str; 4] = ["src", "Cargo.toml", "Cargo.lock", "build.rs"];
    for p in &MADE_OF[..3] {
        println!("cargo:rerun-if-changed={p}");
    }
    Some(match modified(&MADE_OF) {
        Some(hash) => format!("{commit}.modified-{hash:016x}"),
        None => commit,
    })
}

/// A hash of how `paths` differ from the commit checked out (the changes
/// to tracked files and the contents of files not yet tracked), or None
/// when they do not. A change git cannot show counts as one.
fn modified(paths: &[&str]) -> Option<u64> {
    let run = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .args(paths)
            .stderr(Stdio::null())
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| o.stdout)
    };
    let diff = run(&[
        "diff",
        "HEAD",
        "--no-ext-diff",
        "--no-textconv",
        "--binary",
        "--",
    ]);
    let new = run(&["ls-files", "-z", "--others", "--exclude-standard", "--"]);
    let (Some(diff), Some(new)) = (diff, new) else {
        return Some(0);
    };
    if diff.is_empty() && new.is_empty() {
        return None;
    }
    // FNV-1a, 64 bits: stable across builds and machines, unlike std's
    // hasher, and enough to tell one working tree from another.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
    };
    eat(&diff);
    for name in new.split(|&b| b == 0).filter(|n| !n.is_empty()) {
        eat(name);
        eat(&[0]);
        // A file that cannot be read is hashed by its name alone.
        if let Ok(bytes) = std::fs::read(std::str::from_utf8(name).unwrap_or_default()) {
            eat(&bytes);
        }
        eat(&[0]);
    }
    Some(h)
}

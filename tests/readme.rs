//! Every command in README.md's `sh` blocks runs as written.
//!
//! The commands run in order, in a directory of their own (where
//! `topologies/`, `traces/` and `configs/` lead to the repository's), with the `wormcast` this test
//! suite built first on the PATH. `cargo run --release -- ARGS` runs as
//! `wormcast ARGS`. A line whose comment says `exit N` must exit with
//! status N; every other line must exit 0. Three lines cannot run here and
//! are skipped by name, and the test prints each skip: `cargo test` (this
//! very suite), `cargo install` (it would install into the user's home; the
//! binary it installs is the one under test) and `hdl_tests/run.sh` (it
//! needs Icarus Verilog and Verilator and runs in `.ci/run`).

use std::path::Path;
use std::process::Command;

/// One command of README.md: its text, the status it must exit with, and
/// the README line it starts on.
struct Cmd {
    text: String,
    exit: i32,
    line: usize,
}

/// The commands of every `sh` block, continuation lines joined.
fn commands(readme: &str) -> Vec<Cmd> {
    let mut out = Vec::new();
    let mut in_sh = false;
    let mut pending: Option<(String, usize)> = None;
    for (i, line) in readme.lines().enumerate() {
        let t = line.trim_end();
        if !in_sh {
            in_sh = t == "```sh";
            continue;
        }
        if t == "```" {
            in_sh = false;
            continue;
        }
        let (mut text, start) = pending.take().unwrap_or((String::new(), i + 1));
        if let Some(head) = t.strip_suffix('\\') {
            text.push_str(head);
            pending = Some((text, start));
            continue;
        }
        text.push_str(t);
        if text.trim_start().starts_with('#') || text.trim().is_empty() {
            continue;
        }
        let exit = text
            .split_once('#')
            .and_then(|(_, c)| c.trim().strip_prefix("exit "))
            .and_then(|c| c.split(|ch: char| !ch.is_ascii_digit()).next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        out.push(Cmd {
            text: text.trim().to_string(),
            exit,
            line: start,
        });
    }
    assert!(pending.is_none(), "README ends inside a continued command");
    out
}

/// Why a README command is not run here, if it is not.
fn skip(cmd: &str) -> Option<&'static str> {
    if cmd.starts_with("cargo test") {
        Some("it is the test suite this test belongs to")
    } else if cmd.starts_with("cargo install") {
        Some("it installs into the user's home; the binary under test is the one it installs")
    } else if cmd.starts_with("hdl_tests/run.sh") {
        Some("it needs Icarus Verilog and Verilator; .ci/run runs it")
    } else if cmd.starts_with("hdl_tests/live.sh") {
        Some("it needs Icarus Verilog, Verilator and the Python package index; .ci/run runs it")
    } else {
        None
    }
}

#[test]
fn every_readme_command_runs_as_written() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let cmds = commands(&readme);
    assert!(cmds.len() > 30, "only {} commands found", cmds.len());
    let dir = std::env::temp_dir().join(format!("wormcast-readme-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for d in ["topologies", "traces", "configs", "benches"] {
        std::os::unix::fs::symlink(root.join(d), dir.join(d)).unwrap();
    }
    let bin = Path::new(env!("CARGO_BIN_EXE_wormcast"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut skipped = Vec::new();
    let mut ran = 0;
    for c in &cmds {
        if let Some(why) = skip(&c.text) {
            println!("skipped (README line {}): {}: {why}", c.line, c.text);
            skipped.push(c.text.clone());
            continue;
        }
        let text = match c.text.strip_prefix("cargo run --release -- ") {
            Some(rest) => format!("wormcast {rest}"),
            None => c.text.clone(),
        };
        assert!(
            text.starts_with("wormcast "),
            "README line {}: `{}` is neither a wormcast command nor a known skip",
            c.line,
            c.text
        );
        let o = Command::new("bash")
            .args(["-c", &text])
            .current_dir(&dir)
            .env("PATH", &path)
            .output()
            .unwrap();
        assert_eq!(
            o.status.code(),
            Some(c.exit),
            "README line {}: `{}`\nstdout:\n{}\nstderr:\n{}",
            c.line,
            c.text,
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        ran += 1;
    }
    // Exactly the four known skips, so a new command cannot slip by.
    assert_eq!(skipped.len(), 4, "{skipped:?}");
    println!("ran {ran} README commands, skipped {}", skipped.len());
    // What the commands were to write, they wrote.
    for f in [
        "net.toml",
        "out.vcd",
        "out.gtkw",
        "out.sucl",
        "mc.vcd",
        "experiments/fig19.csv",
        "experiments/fig19.svg",
        "experiments/fig22.csv",
        "experiments/fig25.csv",
        "experiments/mesh_load.csv",
        "experiments/tree_load.csv",
        "cube.vcd",
        "model.vcd",
        "model.fst",
        "model2.vcd",
        "tree.fst",
    ] {
        assert!(dir.join(f).is_file(), "{f} was not written");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_parser_joins_continuations_and_reads_expected_exits() {
    let md = "text\n```sh\nwormcast a \\\n  --b   # exit 1: found\n# a comment\nwormcast c\n```\n```rust\nnot = this;\n```\n";
    let c = commands(md);
    assert_eq!(c.len(), 2);
    assert_eq!(c[0].text, "wormcast a   --b   # exit 1: found");
    assert_eq!((c[0].exit, c[0].line), (1, 3));
    assert_eq!(
        (c[1].text.as_str(), c[1].exit, c[1].line),
        ("wormcast c", 0, 6)
    );
}

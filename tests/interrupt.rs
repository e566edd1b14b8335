//! A run or a sweep stopped part way by a signal, as a user stops one:
//! Ctrl-C at a terminal (SIGINT), a Slurm job's time limit or `scancel`
//! (SIGTERM). The run stops at its next cycle and finishes its waveform,
//! which holds the same bytes as a run of exactly the cycles it ran; a
//! sweep keeps the jobs it finished, whole, in its journal; the process
//! then ends by the signal, as it would have without stopping cleanly.
#![cfg(unix)]

use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const ANYNET: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/anynet8x4.toml");

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("wormcast-interrupt-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `wormcast args` started with SIGINT's action `sigint` (`SIG_DFL` or
/// `SIG_IGN`): a test run from a shell without job control in the
/// background would otherwise inherit an ignored SIGINT.
fn start(args: &[&str], sigint: libc::sighandler_t) -> Child {
    let mut c = Command::new(env!("CARGO_BIN_EXE_wormcast"));
    c.args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
    // SAFETY: `signal` is async-signal-safe, as code run between fork and
    // exec must be.
    unsafe {
        c.pre_exec(move || {
            libc::signal(libc::SIGINT, sigint);
            libc::signal(libc::SIGTERM, libc::SIG_DFL);
            Ok(())
        });
    }
    c.spawn().expect("wormcast starts")
}

/// Waits until `ready` holds (the run is under way: its handler is set),
/// at most two minutes.
fn wait_for(child: &mut Child, what: &str, ready: impl Fn() -> bool) {
    let t = Instant::now();
    while !ready() {
        if let Some(s) = child.try_wait().unwrap() {
            panic!("wormcast ended ({s}) before {what}");
        }
        assert!(
            t.elapsed() < Duration::from_secs(120),
            "no {what} after 2 minutes"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The words of options that hold no path (a path may hold a space).
fn words(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}

fn size(p: &Path) -> u64 {
    std::fs::metadata(p).map_or(0, |m| m.len())
}

fn send(child: &Child, signal: libc::c_int) {
    // SAFETY: a signal to the child this test started and has not reaped.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, signal) }, 0);
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The cycle of "stopped by `signal` at cycle N".
fn stopped_at(o: &Output, signal: &str) -> u64 {
    let err = stderr(o);
    let key = format!("stopped by {signal} at cycle ");
    let at = err
        .find(&key)
        .unwrap_or_else(|| panic!("no `{key}` in:\n{err}"));
    err[at + key.len()..]
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no cycle after `{key}` in:\n{err}"))
}

fn wormcast(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wormcast"))
        .args(args)
        .output()
        .expect("wormcast runs")
}

/// Runs `args` with a waveform `wave`, stops it by `signal` once the file
/// has grown past `grown` bytes, and checks that it ended by the signal,
/// saying the cycle, with a waveform of the same bytes as the same run of
/// exactly that many cycles. Returns the cycle.
fn stop_and_compare(
    args: &[&str],
    wave: &Path,
    grown: u64,
    signal: libc::c_int,
    name: &str,
) -> u64 {
    let mut run: Vec<&str> = args.to_vec();
    run.extend(["--cycles", "100000000", "--warmup", "0", "--vcd"]);
    run.push(wave.to_str().unwrap());
    let mut child = start(&run, libc::SIG_DFL);
    wait_for(&mut child, "a waveform", || size(wave) > grown);
    send(&child, signal);
    let o = child.wait_with_output().unwrap();
    assert_eq!(
        o.status.signal(),
        Some(signal),
        "{:?}: {}",
        o.status,
        stderr(&o)
    );
    let n = stopped_at(&o, name);
    assert!(n > 0, "{}", stderr(&o));
    // A report is not printed for a run cut short.
    assert!(
        o.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let whole = wave.with_file_name(format!(
        "whole.{}",
        wave.extension().unwrap().to_str().unwrap()
    ));
    let mut again: Vec<&str> = args.to_vec();
    let cycles = n.to_string();
    again.extend(["--cycles", &cycles, "--warmup", "0", "-q", "--vcd"]);
    again.push(whole.to_str().unwrap());
    let o = wormcast(&again);
    assert!(o.status.success(), "{}", stderr(&o));
    let (a, b) = (std::fs::read(wave).unwrap(), std::fs::read(&whole).unwrap());
    assert!(
        a == b,
        "the stopped run's waveform ({} bytes) differs from a run of its {n} cycles ({} bytes)",
        a.len(),
        b.len()
    );
    n
}

#[test]
fn ctrl_c_stops_a_run_whose_fst_is_that_of_a_run_of_the_cycles_it_ran() {
    let d = tmp("fst");
    // A topology file: seed 000's system (`System::run`).
    let mut run = vec!["run", "--topology", ANYNET];
    run.extend(words("--traffic uniform --load 0.1 --packet 20"));
    stop_and_compare(&run, &d.join("run.fst"), 20_000, libc::SIGINT, "SIGINT");
    // The views written beside a waveform are written for a stopped run.
    assert!(d.join("run.gtkw").exists());
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn sigterm_stops_an_engine_run_whose_vcd_is_that_of_a_run_of_the_cycles_it_ran() {
    let d = tmp("vcd");
    // A direct network: the engine's harness.
    stop_and_compare(
        &words("run --topology mesh:6x6 --traffic uniform --load 0.1 --packet 4"),
        &d.join("run.vcd"),
        200_000,
        libc::SIGTERM,
        "SIGTERM",
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_sigint_ignored_when_the_run_started_stays_ignored() {
    // A shell without job control starts a background job with SIGINT
    // ignored, so that Ctrl-C at the terminal leaves it running: catching
    // it would undo that.
    let d = tmp("ignored");
    let wave = d.join("run.vcd");
    let mut run = vec!["run", "--topology", ANYNET];
    run.extend(words(
        "--traffic uniform --load 0.1 --cycles 100000000 --warmup 0 --vcd",
    ));
    run.push(wave.to_str().unwrap());
    let mut child = start(&run, libc::SIG_IGN);
    wait_for(&mut child, "a waveform", || size(&wave) > 20_000);
    send(&child, libc::SIGINT);
    let before = size(&wave);
    // Still running, its waveform still growing, a second later.
    let t = Instant::now();
    while size(&wave) <= before || t.elapsed() < Duration::from_secs(1) {
        assert!(
            child.try_wait().unwrap().is_none(),
            "an ignored SIGINT ended the run"
        );
        assert!(
            t.elapsed() < Duration::from_secs(120),
            "the waveform stopped growing"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    send(&child, libc::SIGTERM);
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.signal(), Some(libc::SIGTERM), "{}", stderr(&o));
    stopped_at(&o, "SIGTERM");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn sigterm_stops_a_sweep_keeping_the_jobs_it_finished_whole_in_its_journal() {
    let d = tmp("sweep");
    let file = d.join("long.toml");
    // One thread: jobs 0 and 1 finish, job 2 would run for hours, job 3
    // has not started when the signal comes.
    std::fs::write(
        &file,
        "[network]\ntopology = \"mesh:8x8\"\n[traffic]\npattern = \"uniform\"\npacket = 20\nload = 0.1\n\
         [stats]\nwarmup = 0\n[sweep]\n\"stats.cycles\" = [2000, 3000, 500000000, 4000]\n",
    )
    .unwrap();
    let out = d.join("out");
    let journal = out.join("journal.jsonl");
    let lines = || std::fs::read(&journal).map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count());
    let mut child = start(
        &[
            "sweep",
            "run",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--threads",
            "1",
        ],
        libc::SIG_DFL,
    );
    wait_for(&mut child, "two jobs in the journal", || lines() >= 2);
    send(&child, libc::SIGTERM);
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.signal(), Some(libc::SIGTERM), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains(&format!(
            "stopped by SIGTERM with 2 of the sweep's 4 jobs in the journal {}: `sweep run` again runs the other 2",
            journal.display()
        )),
        "{err}"
    );
    // Whole lines of jobs 0 and 1, and no merged results of a sweep that
    // did not finish.
    let text = std::fs::read_to_string(&journal).unwrap();
    assert!(text.ends_with('\n'));
    let jobs: Vec<u64> = text
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("a whole JSON line");
            assert!(v["result"].is_object(), "{l}");
            v["job"].as_u64().unwrap()
        })
        .collect();
    assert_eq!(jobs, [0, 1]);
    assert!(!out.join("sweep.csv").exists());
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_signal_before_the_run_begins_ends_the_process_at_once() {
    // Until its network is built, a run has no file to finish: Ctrl-C
    // while a large network is built ends it at once, as by default.
    // Here the topology is read from a pipe no one writes, so the run
    // is held before its first cycle for as long as the test likes.
    let d = tmp("early");
    let fifo = d.join("net.toml");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a path made above, a NUL-terminated string.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let mut child = start(
        &[
            "run",
            "--topology",
            fifo.to_str().unwrap(),
            "--cycles",
            "1000",
            "--vcd",
            d.join("run.vcd").to_str().unwrap(),
        ],
        libc::SIG_DFL,
    );
    std::thread::sleep(Duration::from_millis(200));
    send(&child, libc::SIGINT);
    let t = Instant::now();
    while child.try_wait().unwrap().is_none() {
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "a SIGINT before the run began did not end it"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.signal(), Some(libc::SIGINT), "{}", stderr(&o));
    assert!(!stderr(&o).contains("stopped by"), "{}", stderr(&o));
    assert!(!d.join("run.vcd").exists());
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_stop_asked_in_the_process_ends_runs_at_their_next_cycle_and_clear_lets_them_go_on() {
    // The only in-process test of this binary: the flag is the process's,
    // and every other test here runs wormcast in a process of its own.
    use wormcast::net::{IrregularParams, Network};
    use wormcast::sim::{SimConfig, System, Traffic};
    let net = Network::new(&IrregularParams::default().generate().unwrap()).unwrap();
    let traffic = Traffic::uniform(0.1, 20);
    let cfg = SimConfig::default();
    let mut stopped = System::new(&net, &cfg, &traffic).unwrap();
    stopped.run(1_000).unwrap();
    wormcast::interrupt::request(libc::SIGTERM);
    let e = stopped.run(1_000).unwrap_err();
    assert_eq!(e.to_string(), "stopped by SIGTERM at cycle 1001");
    // The engine's harness stops after its first step, which skips the
    // cycles in which nothing is due together: with this seed, 0 to 4.
    let e = wormcast::engine::run(
        &wormcast::engine::TopoSpec::parse("mesh:4x4").unwrap(),
        None,
        None,
        &wormcast::engine::RunOptions {
            warmup: 0,
            cycles: 1_000,
            ..Default::default()
        },
    )
    .unwrap_err();
    assert_eq!(e.to_string(), "stopped by SIGTERM at cycle 5");
    wormcast::interrupt::clear();
    // Taken up again, the stopped system ends as one that never stopped.
    stopped.run(999).unwrap();
    let mut whole = System::new(&net, &cfg, &traffic).unwrap();
    whole.run(2_000).unwrap();
    assert_eq!(stopped.cycle(), 2_000);
    assert_eq!(stopped.report(), whole.report());
    assert!(stopped.report().packets_delivered > 0);
}

/// `wormcast args`, which must succeed.
fn succeeded<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    let o = Command::new(env!("CARGO_BIN_EXE_wormcast"))
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    o
}

/// The files of a figure's run, by name, as bytes.
fn figure_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    v.sort();
    v
}

#[test]
fn an_experiment_stopped_part_way_resumes_from_its_journal() {
    // Slurm's time limit, then the same command again: the jobs finished
    // before the stop are kept, a job whose rows were cut off as they were
    // written runs again, and the files are those of one run from the
    // start.
    let d = tmp("experiment");
    let (out, whole) = (d.join("out"), d.join("whole"));
    let args = |dir: &Path, threads: &str| -> Vec<String> {
        [
            "experiment",
            "run",
            "--figure",
            "fig26",
            "--quick",
            "--cycles",
            "40000",
            "--warmup",
            "10000",
            "--quiet",
            "--threads",
            threads,
            "--out",
            dir.to_str().unwrap(),
        ]
        .map(String::from)
        .to_vec()
    };
    succeeded(&args(&whole, "2"));
    let reference = figure_files(&whole);
    assert_eq!(
        reference.iter().map(|f| f.0.as_str()).collect::<Vec<_>>(),
        ["fig26.csv", "fig26.png", "fig26.raw.csv", "fig26.svg"]
    );

    let journal = out.join("fig26.raw.csv.part");
    let rows = || std::fs::read(&journal).map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count());
    let a = args(&out, "1");
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let mut child = start(&a, libc::SIG_DFL);
    // The two first lines, then three schemes' rows a job: five jobs.
    wait_for(&mut child, "five jobs in the journal", || {
        rows() >= 2 + 5 * 3
    });
    send(&child, libc::SIGTERM);
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.signal(), Some(libc::SIGTERM), "{}", stderr(&o));
    let text = std::fs::read_to_string(&journal).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let done = (lines.len() - 2) / 3;
    assert_eq!(lines.len(), 2 + 3 * done, "whole jobs only:\n{text}");
    assert!(text.ends_with('\n'));
    assert!(
        stderr(&o).contains(&format!(
            "stopped by SIGTERM with {done} of fig26's 64 jobs in {}: the same `experiment run` \
             again runs the other {}",
            journal.display(),
            64 - done
        )),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        std::fs::read_dir(&out).unwrap().count(),
        1,
        "the journal alone"
    );
    // Had the run been killed with no chance to stop cleanly as the last
    // job's rows were written: its first row whole, its second cut off.
    let cut = lines[lines.len() - 3..].join("\n");
    let torn = format!(
        "{}\n{}",
        lines[..lines.len() - 3].join("\n"),
        &cut[..cut.len() * 2 / 3]
    );
    let done = done - 1;
    std::fs::write(&journal, &torn).unwrap();

    // Another build's journal, or another experiment's, is not this run's
    // to finish.
    let build = format!(" build={}", wormcast::BUILD);
    let refused = |text: String, why: &str| {
        std::fs::write(&journal, text).unwrap();
        let o = Command::new(env!("CARGO_BIN_EXE_wormcast"))
            .args(&a)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains(why), "{}", stderr(&o));
    };
    refused(
        torn.replacen(&build, " build=0.0.9", 1),
        &format!(
            "it was begun by wormcast 0.0.9, this is wormcast {}: the two models may differ",
            wormcast::BUILD
        ),
    );
    refused(
        torn.replacen(" seed=1 ", " seed=2 ", 1),
        "it holds results of another experiment",
    );
    // A second run while one writes the journal is refused.
    std::fs::write(&journal, &torn).unwrap();
    let lock = std::fs::File::open(&journal).unwrap();
    lock.lock().unwrap();
    refused(torn.clone(), "another experiment run is writing it");
    drop(lock);

    let o = succeeded(&a);
    assert!(
        stderr(&o).contains(&format!(
            "note: fig26: {done} of its 64 jobs were in {} already (the journal of a run stopped \
             part way); {} ran",
            journal.display(),
            64 - done
        )),
        "{}",
        stderr(&o)
    );
    assert_eq!(figure_files(&out), reference);
    // Run whole, the same experiment by the same build runs nothing again
    // and writes the same files.
    let o = succeeded(&a);
    assert!(
        stderr(&o).contains("note: fig26: 64 of its 64 jobs were in")
            && stderr(&o).contains(
                "(the same experiment, run whole by this build: remove it to run them again); 0 ran"
            ),
        "{}",
        stderr(&o)
    );
    assert_eq!(figure_files(&out), reference);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_mesh_experiment_stopped_part_way_resumes_from_its_journal() {
    // Seed 002's sweep of points, stopped by SIGTERM: the points finished
    // are kept in its journal, and the same command runs the others and
    // writes the files of one run from the start.
    let d = tmp("mesh3d");
    let (out, whole) = (d.join("out"), d.join("whole"));
    let args = |dir: &Path| -> Vec<String> {
        [
            "mesh3d",
            "experiment",
            "--quick",
            "--out",
            dir.to_str().unwrap(),
        ]
        .map(String::from)
        .to_vec()
    };
    succeeded(&args(&whole));
    let reference = figure_files(&whole);
    assert_eq!(reference.len(), 6, "two CSV files and their plots");

    let journal = out.join("mesh_load.points.part");
    let lines = || std::fs::read(&journal).map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count());
    let a = args(&out);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let mut child = start(&a, libc::SIG_DFL);
    wait_for(&mut child, "six points in the journal", || lines() > 6); // the first line and six points
    send(&child, libc::SIGTERM);
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.signal(), Some(libc::SIGTERM), "{}", stderr(&o));
    let text = std::fs::read_to_string(&journal).unwrap();
    assert!(text.ends_with('\n'));
    let kept = text.lines().count() - 1;
    assert!(
        stderr(&o).contains(&format!(
            "stopped by SIGTERM with {kept} of the 60 points in {}: the same command again runs \
             the other {}",
            journal.display(),
            60 - kept
        )),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        std::fs::read_dir(&out).unwrap().count(),
        1,
        "the journal alone"
    );
    // A kill as a point was written: half its line.
    let last = text.lines().last().unwrap();
    std::fs::write(
        &journal,
        format!(
            "{}{}",
            &text[..text.len() - last.len() - 1],
            &last[..last.len() / 2]
        ),
    )
    .unwrap();
    let kept = kept - 1;

    let o = succeeded(&a);
    assert!(
        stderr(&o).contains(&format!(
            "note: {kept} of the 60 points were in {} already (the journal of a run stopped part \
             way); {} ran",
            journal.display(),
            60 - kept
        )),
        "{}",
        stderr(&o)
    );
    assert_eq!(figure_files(&out), reference);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_shard_of_a_sweep_stopped_part_way_resumes_and_merges_into_one_run() {
    // A shard of seed 002's sweep (as a Slurm task cut off by its time
    // limit): stopped by SIGTERM, its finished points stay in its
    // journal; the same command finishes it, and merged with the other
    // shard it gives the files of one run.
    let d = tmp("mesh3d-shard");
    let (out, whole) = (d.join("out"), d.join("whole"));
    let args = |dir: &Path, shard: &str| -> Vec<String> {
        [
            "mesh3d",
            "experiment",
            "--quick",
            "--out",
            dir.to_str().unwrap(),
            "--shard",
            shard,
        ]
        .map(String::from)
        .to_vec()
    };
    let mut one = args(&whole, "0/1");
    one.truncate(5);
    succeeded(&one);

    let journal = out.join("mesh_load.shard-1-of-2.points.part");
    let lines = || std::fs::read(&journal).map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count());
    let mut a = args(&out, "1/2");
    a.extend(["--threads".into(), "1".into()]);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let mut child = start(&a, libc::SIG_DFL);
    wait_for(&mut child, "four points in the journal", || lines() > 4);
    send(&child, libc::SIGTERM);
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.signal(), Some(libc::SIGTERM), "{}", stderr(&o));
    let kept = std::fs::read_to_string(&journal).unwrap().lines().count() - 1;
    assert!(
        stderr(&o).contains(&format!(
            "stopped by SIGTERM with {kept} of the 30 points of shard 1/2 in {}: the same \
             command again runs the other {}",
            journal.display(),
            30 - kept
        )),
        "{}",
        stderr(&o)
    );
    let o = succeeded(&a);
    assert!(
        stderr(&o).contains(&format!(
            "note: {kept} of the 30 points were in {} already (the journal of a run stopped part \
             way); {} ran",
            journal.display(),
            30 - kept
        )),
        "{}",
        stderr(&o)
    );
    assert!(!journal.exists());
    succeeded(&args(&out, "0/2"));
    let shard = |i: u32| out.join(format!("mesh_load.shard-{i}-of-2.points"));
    let merged = d.join("merged");
    succeeded(&[
        "mesh3d",
        "merge",
        "--out",
        merged.to_str().unwrap(),
        shard(0).to_str().unwrap(),
        shard(1).to_str().unwrap(),
    ]);
    assert_eq!(figure_files(&merged), figure_files(&whole));
    let _ = std::fs::remove_dir_all(&d);
}

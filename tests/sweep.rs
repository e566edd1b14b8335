//! `wormcast sweep` as a user runs it: the example sweep, its shards (by
//! `--shard` and by a Slurm array task's environment) merged into the bytes
//! of one run, a run resumed, and bad input refused by name; and a paper's
//! experiment sharded by a Slurm task.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SWEEP: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/configs/sweeps/mesh4x4-routers.toml"
);

fn wormcast(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_wormcast"));
    c.args(args);
    for k in [
        "SLURM_ARRAY_TASK_ID",
        "SLURM_ARRAY_TASK_COUNT",
        "SLURM_ARRAY_TASK_MIN",
        "SLURM_ARRAY_TASK_MAX",
        "SLURM_ARRAY_TASK_STEP",
        "SLURM_MEM_PER_NODE",
        "SLURM_MEM_PER_CPU",
        "SLURM_CPUS_PER_TASK",
        "SLURM_CPUS_ON_NODE",
    ] {
        c.env_remove(k);
    }
    c.envs(env.iter().copied());
    c.output().expect("wormcast runs")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("wormcast-sweep-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn slurm_tasks_and_shards_merge_into_the_bytes_of_one_run() {
    let one = tmp("one");
    let o = wormcast(
        &[
            "sweep",
            "run",
            SWEEP,
            "--out",
            one.to_str().unwrap(),
            "--quiet",
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let csv = String::from_utf8(read(&one.join("sweep.csv"))).unwrap();
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows.len(), 25, "a header and 24 jobs");
    assert!(rows[0].starts_with("job,replicate,seed,network.router,traffic.load,topology,router"));
    // Every router model ran at every load, unsaturated at 0.05.
    for (k, router) in ["tree", "wormhole", "cut-through"].iter().enumerate() {
        let row: Vec<&str> = rows[1 + 8 * k].split(',').collect();
        assert_eq!(
            (row[3], row[4], row[6]),
            (*router, "0.05", *router),
            "{}",
            rows[1 + 8 * k]
        );
        assert_eq!(
            row[row.len() - 2],
            "false",
            "saturated at 0.05: {}",
            rows[1 + 8 * k]
        );
    }
    // Two tasks of a Slurm array (ids 10 and 11 of an array 10-11) and the
    // rest by --shard: a sweep in two shards.
    let parts = tmp("parts");
    let p = parts.to_str().unwrap();
    let task = |id: &str| {
        wormcast(
            &["sweep", "run", SWEEP, "--out", p, "--slurm", "--quiet"],
            &[
                ("SLURM_ARRAY_TASK_ID", id),
                ("SLURM_ARRAY_TASK_MIN", "10"),
                ("SLURM_ARRAY_TASK_COUNT", "2"),
            ],
        )
    };
    let o = task("10");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("shard 0/2: 12 jobs run, 0 already in the journal"),
        "{}",
        stderr(&o)
    );
    // Merging one shard names what is missing.
    let j0 = parts.join("journal.shard-0-of-2.jsonl");
    let j1 = parts.join("journal.shard-1-of-2.jsonl");
    let o = wormcast(&["sweep", "merge", "--out", p, j0.to_str().unwrap()], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("12 of 24 jobs") && stderr(&o).contains("jobs 1, 3, 5"),
        "{}",
        stderr(&o)
    );
    let o = wormcast(
        &[
            "sweep", "run", SWEEP, "--out", p, "--shard", "1/2", "--quiet",
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // Task 11 again: its jobs are in the journal already.
    let o = task("11");
    assert!(
        stderr(&o).contains("shard 1/2: 0 jobs run, 12 already in the journal"),
        "{}",
        stderr(&o)
    );
    let o = wormcast(
        &[
            "sweep",
            "merge",
            "--out",
            p,
            j0.to_str().unwrap(),
            j1.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(read(&parts.join("sweep.csv")), csv.as_bytes());
    assert_eq!(
        read(&parts.join("sweep.jsonl")),
        read(&one.join("sweep.jsonl"))
    );
    let _ = std::fs::remove_dir_all(one);
    let _ = std::fs::remove_dir_all(parts);
}

/// A paper's experiment takes its shard from a Slurm array task too
/// (`experiment run --slurm`): the second task of `--array=1-3:2` writes
/// the raw file `--shard 1/2` writes, byte for byte; outside an array,
/// `--slurm` is refused by the variable it lacks.
#[test]
fn an_experiment_takes_its_shard_from_a_slurm_task() {
    let dir = tmp("experiment");
    let run = |out: &Path, how: &[&str], env: &[(&str, &str)]| {
        let mut args = vec![
            "experiment",
            "run",
            "--figure",
            "fig22",
            "--quick",
            "--quiet",
        ];
        args.extend(["--out", out.to_str().unwrap()]);
        args.extend(how);
        wormcast(&args, env)
    };
    let o = run(&dir.join("given"), &["--shard", "1/2"], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run(
        &dir.join("task"),
        &["--slurm"],
        &[
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_COUNT", "2"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_MAX", "3"),
            ("SLURM_ARRAY_TASK_STEP", "2"),
            ("SLURM_CPUS_PER_TASK", "1"),
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let raw = "fig22.raw.shard-1-of-2.csv";
    assert_eq!(
        read(&dir.join("task").join(raw)),
        read(&dir.join("given").join(raw))
    );
    let o = run(&dir.join("none"), &["--slurm"], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("SLURM_ARRAY_TASK_ID") && stderr(&o).contains("not set"),
        "{}",
        stderr(&o)
    );
    assert!(!dir.join("none").exists());
    let _ = std::fs::remove_dir_all(dir);
}

/// Jobs whose configuration asks for several threads each, run side by
/// side on every worker, would put more threads to work than there are
/// cores (on 2 cores, 4.5 times as long): each runs on one thread while
/// others are still to start, and the sweep says so. The results are those
/// of jobs asking for one thread, byte for byte; a sweep of one job runs
/// it on the threads it asks for.
///
/// The jobs ask for 3 threads, more than the sweep's 2: the last job to
/// start may find the other worker done and take its core (whether it
/// does is a matter of timing), but even then it runs on fewer than it
/// asks for, so all 4 are counted on any machine. Which job takes what is
/// pinned exactly by the unit test of the sweep's cores.
#[test]
fn jobs_asking_for_threads_share_the_sweeps_cores() {
    let dir = tmp("cores");
    std::fs::create_dir_all(&dir).unwrap();
    let sweep = |threads: u32, loads: &str| {
        let text = format!(
            "[network]\ntopology = \"mesh:16x16\"\nrouter = \"cut-through\"\n\
             [traffic]\npacket = 20\n[stats]\ncycles = 2000\nwarmup = 500\n\
             [switch]\nthreads = {threads}\n[sweep]\n\"traffic.load\" = [{loads}]\n"
        );
        let f = dir.join(format!("t{threads}-{}.toml", loads.len()));
        std::fs::write(&f, text).unwrap();
        f
    };
    let run = |file: &Path, out: &str| {
        let out = dir.join(out);
        let o = wormcast(
            &[
                "sweep",
                "run",
                file.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
                "--threads",
                "2",
                "--quiet",
            ],
            &[],
        );
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        (stderr(&o), read(&out.join("sweep.csv")))
    };
    let loads = "0.02, 0.03, 0.04, 0.05";
    let (said, three) = run(&sweep(3, loads), "three");
    assert!(
        said.contains(
            "4 jobs ran on fewer threads than the 3 their configuration asks for: \
             the sweep's 2 threads run its jobs side by side"
        ),
        "{said}"
    );
    let (said, one) = run(&sweep(1, loads), "one");
    assert!(!said.contains("fewer threads"), "{said}");
    assert_eq!(three, one);
    let alone = sweep(2, "0.02");
    let (said, _) = run(&alone, "alone");
    assert!(!said.contains("fewer threads"), "{said}");
    assert!(
        said.contains(": shard 0/1: 1 job run, 0 already in the journal, 0 with a finding"),
        "{said}"
    );
    // Its list counts one job as one.
    let o = wormcast(&["sweep", "list", alone.to_str().unwrap()], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let listed = String::from_utf8(o.stdout).unwrap();
    let head: Vec<&str> = listed.lines().take(2).collect();
    assert!(
        head[0].starts_with("sweep ") && head[0].ends_with(": 1 job"),
        "{listed}"
    );
    assert_eq!(head[1], "job\treplicate\tseed\ttraffic.load", "{listed}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn bad_sweeps_and_slurm_settings_are_refused_by_name() {
    let out = tmp("bad");
    let o_ = out.to_str().unwrap();
    let o = wormcast(&["sweep", "run", SWEEP, "--out", o_, "--slurm"], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("SLURM_ARRAY_TASK_ID") && stderr(&o).contains("not set"),
        "{}",
        stderr(&o)
    );
    let o = wormcast(
        &["sweep", "run", SWEEP, "--out", o_, "--slurm"],
        &[
            ("SLURM_ARRAY_TASK_ID", "x"),
            ("SLURM_ARRAY_TASK_COUNT", "2"),
        ],
    );
    assert!(
        stderr(&o).contains("SLURM_ARRAY_TASK_ID=x: not a whole number"),
        "{}",
        stderr(&o)
    );
    let o = wormcast(&["sweep", "run", SWEEP, "--out", o_, "--shard", "2/2"], &[]);
    assert!(stderr(&o).contains("out of range"), "{}", stderr(&o));
    // A number too large for a count is named as such, not as no number.
    for (shard, why) in [
        ("1/4294967296", "N is past 4294967295"),
        ("x/4", "I is not a whole number"),
        ("1/-4", "N is not a whole number"),
    ] {
        let o = wormcast(&["sweep", "run", SWEEP, "--out", o_, "--shard", shard], &[]);
        assert_eq!(
            stderr(&o).trim_end(),
            format!(
                "error: configuration: shard = {shard}: {why}: give I/N with 0 <= I < N, e.g. 0/4"
            )
        );
    }
    let o = wormcast(
        &["sweep", "run", SWEEP, "--out", o_, "--slurm"],
        &[
            ("SLURM_ARRAY_TASK_ID", "1"),
            ("SLURM_ARRAY_TASK_COUNT", "99999999999"),
        ],
    );
    assert!(
        stderr(&o).contains("SLURM_ARRAY_TASK_COUNT=99999999999: past 4294967295"),
        "{}",
        stderr(&o)
    );
    // A task's CPUs and memory, which --slurm takes for --threads and
    // --memory where they are not given, are named when they are wrong.
    let task = [
        ("SLURM_ARRAY_TASK_ID", "1"),
        ("SLURM_ARRAY_TASK_COUNT", "2"),
    ];
    for (var, value, why) in [
        (
            "SLURM_CPUS_PER_TASK",
            "0",
            "a whole number of CPUs, at least 1",
        ),
        ("SLURM_MEM_PER_NODE", "4G", "a whole number of megabytes"),
    ] {
        let env = [task[0], task[1], (var, value)];
        let o = wormcast(&["sweep", "run", SWEEP, "--out", o_, "--slurm"], &env);
        assert_eq!(o.status.code(), Some(2));
        assert_eq!(
            stderr(&o).trim_end(),
            format!("error: configuration: slurm = {var}={value}: {why}")
        );
        // Given on the command line, they are not read.
        let o = wormcast(
            &[
                "sweep",
                "run",
                SWEEP,
                "--out",
                o_,
                "--slurm",
                "--threads",
                "1",
                "--memory",
                "1G",
                "-q",
            ],
            &env,
        );
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    // No worker, or more than any machine has cores (spawning 100,000
    // threads took minutes), is refused before anything runs; so for the
    // experiments, which take the same option.
    for t in ["0", "100000"] {
        for args in [
            &["sweep", "run", SWEEP, "--out", o_, "--threads", t][..],
            &[
                "experiment",
                "run",
                "--figure",
                "fig19",
                "--quick",
                "--out",
                o_,
                "--threads",
                t,
            ],
        ] {
            let o = wormcast(args, &[]);
            assert_eq!(o.status.code(), Some(2), "{args:?}");
            assert!(
                stderr(&o).contains(&format!(
                    "threads = {t}: 1 to 1024 worker threads (without --threads, one per core)"
                )),
                "{args:?}: {}",
                stderr(&o)
            );
        }
    }
    assert!(!out.join("journal.jsonl").exists());
    std::fs::create_dir_all(&out).unwrap();
    let bad = out.join("bad.toml");
    std::fs::write(
        &bad,
        "[network]\ntopology = \"mesh:4x4\"\n[sweep]\n\"traffic.load\" = [0.1, 1.5]\n",
    )
    .unwrap();
    let o = wormcast(&["sweep", "run", bad.to_str().unwrap(), "--out", o_], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("job 1 (traffic.load=1.5;replicate=0)"),
        "{}",
        stderr(&o)
    );
    assert!(
        !out.join("journal.jsonl").exists(),
        "nothing runs before every job is checked"
    );
    // So is a job whose traffic its network cannot take, which only the
    // built network knows (it ran the jobs before it, then stopped without
    // naming the job): a pattern the grid's shape does not take, a tree
    // multicast longer than the auxiliary buffers.
    for (sweep, job) in [
        (
            "[network]\ntopology = \"mesh:4x3\"\n[traffic]\npacket = 5\n\
             [sweep]\n\"traffic.pattern\" = [\"uniform\", \"transpose\"]\n",
            "job 1 (traffic.pattern=\"transpose\";replicate=0): configuration: pattern = \
             transpose: transpose needs every side of the grid equal",
        ),
        (
            "[network]\ntopology = \"mesh:4x4\"\nrouter = \"tree\"\n\
             [traffic]\npattern = \"multicast\"\ndegree = 3\nload = 0.002\n\
             [sweep]\n\"traffic.packet\" = [5, 6]\nreplicates = 2\n",
            "job 2 (traffic.packet=6;replicate=0): bad packet: 6 flits to several \
             destinations",
        ),
    ] {
        std::fs::write(&bad, sweep).unwrap();
        let o = wormcast(&["sweep", "run", bad.to_str().unwrap(), "--out", o_], &[]);
        assert_eq!(o.status.code(), Some(2));
        assert!(stderr(&o).contains(job), "{}", stderr(&o));
        assert!(
            !out.join("journal.jsonl").exists(),
            "nothing runs before every job is checked"
        );
    }
    std::fs::write(
        &bad,
        "[network]\ntopology = \"mesh:4x4\"\n[sweep]\n\"traffic.load\" = [0.1, 1.5]\n",
    )
    .unwrap();
    // Listing it prints no line of a list that it then refuses.
    let o = wormcast(&["sweep", "list", bad.to_str().unwrap()], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        o.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    assert!(
        stderr(&o).contains("job 1 (traffic.load=1.5;replicate=0)"),
        "{}",
        stderr(&o)
    );
    // Two jobs that would be the same run are refused: a value listed
    // twice, or replicates of a swept seed.
    for (sweep, why) in [
        (
            "\"traffic.load\" = [0.05, 0.1, 0.05]",
            "traffic.load = [0.05, 0.1, 0.05]: 0.05 is listed twice",
        ),
        (
            "\"traffic.seed\" = [1, 2]\nreplicates = 2",
            "replicates = 2: with traffic.seed swept",
        ),
    ] {
        std::fs::write(
            &bad,
            format!("[network]\ntopology = \"mesh:4x4\"\n[sweep]\n{sweep}\n"),
        )
        .unwrap();
        let o = wormcast(&["sweep", "list", bad.to_str().unwrap()], &[]);
        assert_eq!(o.status.code(), Some(2));
        assert!(o.stdout.is_empty());
        assert!(
            stderr(&o).contains("bad.toml") && stderr(&o).contains(why),
            "{}",
            stderr(&o)
        );
    }
    // A sweep file given to `run` says which command runs it.
    let o = wormcast(&["run", "--config", SWEEP], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("unknown field `sweep`")
            && stderr(&o).contains("a file with a [sweep] table is run by `wormcast sweep run`"),
        "{}",
        stderr(&o)
    );
    let o = wormcast(&["sweep", "run", "/no/such/sweep.toml"], &[]);
    assert!(stderr(&o).contains("/no/such/sweep.toml"), "{}", stderr(&o));
    // A journal of another sweep in --out is refused.
    let o = wormcast(
        &[
            "sweep", "run", SWEEP, "--out", o_, "--shard", "0/8", "--quiet",
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let other = out.join("other.toml");
    std::fs::write(
        &other,
        std::fs::read_to_string(SWEEP)
            .unwrap()
            .replace("replicates = 2", "replicates = 1"),
    )
    .unwrap();
    let o = wormcast(
        &[
            "sweep",
            "run",
            other.to_str().unwrap(),
            "--out",
            o_,
            "--shard",
            "0/8",
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("another sweep"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(out);
}

/// A sweep that names a file (its topology) gives the same results from
/// whatever folder it is run: the file is named by its whole path, so a
/// shard run elsewhere (a Slurm task starts in --out) merges into the
/// bytes of a run started beside the sweep.
#[test]
fn a_sweep_naming_a_file_gives_the_same_results_from_any_folder() {
    let dir = tmp("files");
    let sub = dir.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/benches/anynet8x4.toml"),
        sub.join("net.toml"),
    )
    .unwrap();
    std::fs::write(
        sub.join("f.toml"),
        "[network]\ntopology = \"net.toml\"\n[traffic]\npacket = 8\n\
         [stats]\ncycles = 3000\nwarmup = 500\n[sweep]\n\"traffic.load\" = [0.02, 0.05]\n",
    )
    .unwrap();
    let run = |cwd: &Path, sweep: &str, out: &str| {
        let o = Command::new(env!("CARGO_BIN_EXE_wormcast"))
            .args(["sweep", "run", sweep, "--out", out, "--quiet"])
            .current_dir(cwd)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
    };
    run(&dir, "sub/f.toml", "a");
    run(&sub, "f.toml", "../b");
    let csv = read(&dir.join("a/sweep.csv"));
    assert_eq!(csv, read(&dir.join("b/sweep.csv")));
    let whole = std::fs::canonicalize(sub.join("net.toml")).unwrap();
    let text = String::from_utf8(csv).unwrap();
    assert_eq!(text.lines().count(), 3, "{text}");
    assert!(
        text.lines()
            .skip(1)
            .all(|l| l.contains(&format!(",{},cut-through,", whole.display()))),
        "{text}"
    );
    // The topology changed: the journal is another sweep's, not resumed
    // with results of the old network.
    let net = std::fs::read_to_string(sub.join("net.toml")).unwrap();
    std::fs::write(sub.join("net.toml"), format!("{net}\n# changed\n")).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_wormcast"))
        .args(["sweep", "run", "sub/f.toml", "--out", "a", "--quiet"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("another sweep"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A sweep of runs under a stop rule says in `sweep.csv` which latency the
/// half-width is of, whether each run met its rule and the cycles it
/// measured (a met rule ends a run early): the columns it lacked.
#[test]
fn a_stop_rule_sweep_says_which_runs_met_their_rule() {
    let dir = tmp("stop-rule");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("stop.toml");
    std::fs::write(
        &file,
        "[network]\ntopology = \"mesh:4x4\"\n\
         [traffic]\npacket = 5\n\
         [stats]\ncycles = 100000\nwarmup = 1000\nstop_rule = 0.02\nstop_metric = \"network-latency\"\n\
         [sweep]\n\"traffic.load\" = [0.0005, 0.1]\n",
    )
    .unwrap();
    let out = dir.join("out");
    let o = wormcast(
        &[
            "sweep",
            "run",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let csv = String::from_utf8(read(&out.join("sweep.csv"))).unwrap();
    let rows: Vec<Vec<&str>> = csv.lines().map(|l| l.split(',').collect()).collect();
    let col = |name: &str| {
        rows[0]
            .iter()
            .position(|c| *c == name)
            .unwrap_or_else(|| panic!("no column {name}: {csv}"))
    };
    let (metric, met, measured) = (
        col("stop_metric"),
        col("stop_rule_met"),
        col("measured_cycles"),
    );
    assert_eq!(col("half_width") + 1, metric, "{csv}");
    let jsonl = String::from_utf8(read(&out.join("sweep.jsonl"))).unwrap();
    for (row, record) in rows[1..].iter().zip(jsonl.lines()) {
        let r: serde_json::Value = serde_json::from_str(record).unwrap();
        let r = &r["result"];
        assert_eq!(row[metric], "network-latency", "{csv}");
        assert_eq!(row[met], r["stop_rule_met"].to_string(), "{csv}");
        assert_eq!(row[measured], r["measured_cycles"].to_string(), "{csv}");
    }
    // The light load measures too few copies for 2% in 99,000 cycles; the
    // busier one meets it early.
    assert_eq!(
        (rows[1][met], rows[1][measured]),
        ("false", "99000"),
        "{csv}"
    );
    assert_eq!(rows[2][met], "true", "{csv}");
    assert!(rows[2][measured].parse::<u64>().unwrap() < 99_000, "{csv}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A journal is read a line at a time and its claims are checked before
/// anything is made of them: a line claiming 10^18 jobs made a merge count
/// to 10^18 (it never ended).
#[test]
fn a_journal_claiming_an_absurd_sweep_is_refused_at_once() {
    let dir = tmp("absurd");
    std::fs::create_dir_all(&dir).unwrap();
    let j = dir.join("journal.shard-0-of-2.jsonl");
    std::fs::write(
        &j,
        "{\"sweep\":\"1c11e242467c96cc\",\"jobs\":1000000000000000000,\"job\":0,\
         \"replicate\":0,\"seed\":1,\"params\":[],\"result\":null,\"error\":null}\n",
    )
    .unwrap();
    let out = dir.join("merged");
    let o = wormcast(
        &[
            "sweep",
            "merge",
            "--out",
            out.to_str().unwrap(),
            j.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("journal.shard-0-of-2.jsonl:1: a sweep of 1000000000000000000 jobs: a sweep has 1 to 1000000"),
        "{}",
        stderr(&o)
    );
    assert!(!out.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_file_given_for_a_journal_is_named_with_what_a_journal_is() {
    let dir = tmp("not-a-journal");
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("merged");
    // The sweep file itself, the commonest slip, then a line whose JSON
    // stops short though the line ends (a torn last line, one without its
    // newline, is a job to run again, not an error).
    let torn = dir.join("journal.shard-0-of-2.jsonl");
    std::fs::write(&torn, "{\"sweep\":\"1c11e242467c96cc\",\"jobs\":\n").unwrap();
    for (file, why) in [
        (
            Path::new(SWEEP),
            "not a journal line: a journal holds one JSON object a line, as `wormcast sweep run` \
             writes them in its --out folder (journal.jsonl, or journal.shard-K-of-N.jsonl for a shard)"
                .to_string(),
        ),
        (
            torn.as_path(),
            "not a journal line: EOF while parsing a value at line 1 column 35".to_string(),
        ),
    ] {
        let f = file.to_str().unwrap();
        let o = wormcast(
            &["sweep", "merge", "--out", out.to_str().unwrap(), f],
            &[],
        );
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert_eq!(
            stderr(&o).trim_end(),
            format!("error: configuration: journal = {f}:1: {why}")
        );
        assert!(!out.exists());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_memory_budget_keeps_the_results_and_refuses_a_job_past_it() {
    // Every job of the example sweep fits in 1 GB many times over: the
    // same bytes as a run without a budget, and nothing waits. (Jobs that
    // do not fit beside each other run one at a time: the library's test
    // of `run_within`, and scripts/test-cgroup.sh inside a memory limit.)
    let free = tmp("mem-free");
    let tight = tmp("mem-tight");
    for (out, memory) in [(&free, "100G"), (&tight, "1G")] {
        let o = wormcast(
            &[
                "sweep",
                "run",
                SWEEP,
                "--out",
                out.to_str().unwrap(),
                "--quiet",
                "--memory",
                memory,
            ],
            &[],
        );
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert!(!stderr(&o).contains("waited"), "{}", stderr(&o));
    }
    assert_eq!(
        read(&tight.join("sweep.csv")),
        read(&free.join("sweep.csv"))
    );
    // A budget smaller than a job: refused by name, nothing run.
    let none = tmp("mem-none");
    let o = wormcast(
        &[
            "sweep",
            "run",
            SWEEP,
            "--out",
            none.to_str().unwrap(),
            "--quiet",
            "--memory",
            "1K",
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("job 0 (")
            && e.contains("its network is reckoned at ")
            && e.contains("more than the 1024 bytes of the sweep's --memory"),
        "{e}"
    );
    assert!(!none.join("journal.jsonl").exists());
    // Sizes are read as Slurm's --mem reads them, and bad ones named.
    for (bad, why) in [
        ("0", "no jobs fit in no memory"),
        ("5X", "the suffix is K, M, G or T"),
        ("-3G", "a whole number of megabytes"),
        ("99999999999T", "more than 2^64 bytes"),
        ("", "a whole number of megabytes"),
    ] {
        let o = wormcast(&["sweep", "run", SWEEP, &format!("--memory={bad}")], &[]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
        assert!(stderr(&o).contains(why), "{bad}: {}", stderr(&o));
    }
    for d in [free, tight, none] {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// A merge of more journals than the process may keep open (`ulimit -n`,
/// 256 by default on some systems, with 1,000 shards to merge) closes the
/// ones it holds and goes on with as many as fitted: the bytes of a merge
/// without the limit. Before December 8 it stopped at the first journal it
/// could not open ("Too many open files"), as it still does where not even
/// one journal fits beside standard input, output and error and its two
/// outputs.
#[cfg(unix)]
#[test]
fn a_merge_past_the_limit_on_open_files_keeps_as_many_open_as_fit() {
    let parts = tmp("open-files");
    let p = parts.to_str().unwrap();
    let journals: Vec<String> = (0..8)
        .map(|k| {
            let shard = format!("{k}/8");
            let o = wormcast(
                &[
                    "sweep", "run", SWEEP, "--out", p, "--shard", &shard, "--quiet",
                ],
                &[],
            );
            assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
            format!("{p}/journal.shard-{k}-of-8.jsonl")
        })
        .collect();
    let merge = |files: u32, out: &str| {
        let o = Command::new("prlimit")
            .arg(format!("--nofile={files}"))
            .arg(env!("CARGO_BIN_EXE_wormcast"))
            .args(["sweep", "merge", "--out", out])
            .args(&journals)
            .output()
            .expect("prlimit (util-linux) runs");
        (o.status.code(), stderr(&o))
    };
    let free = parts.join("free");
    let (code, err) = merge(1024, free.to_str().unwrap());
    assert_eq!(code, Some(0), "{err}");
    // 8 files: 3 journals beside the standard three and the two outputs.
    let tight = parts.join("tight");
    let (code, err) = merge(8, tight.to_str().unwrap());
    assert_eq!(code, Some(0), "{err}");
    for f in ["sweep.csv", "sweep.jsonl"] {
        assert_eq!(read(&tight.join(f)), read(&free.join(f)), "{f}");
    }
    // 5: not one journal.
    let (code, err) = merge(5, parts.join("none").to_str().unwrap());
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(
        err,
        format!(
            "error: {}: Too many open files (os error 24)\n",
            journals[0]
        )
    );
    let _ = std::fs::remove_dir_all(parts);
}

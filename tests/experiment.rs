//! Quick versions of the experiments of seed 000 section 6: the orderings
//! the paper states with certainty, and sharding that merges back into
//! the unsharded result byte for byte.

use wormcast::experiment::{
    Figure, Options, Shard, merge, parse_raw, raw_csv, run, summarize, summary_csv,
};
use wormcast::mcast::PlanScheme;

fn quick() -> Options {
    Options::new(true)
}

/// Section 6.4: the tree-based scheme needs one worm and one phase, and is
/// the fastest scheme for every single multicast, at every R (a path-based
/// multicast that also takes one phase ties with it).
#[test]
fn tree_based_is_fastest_for_single_multicasts() {
    let o = quick();
    let rows = run(Figure::Fig19, &o, Shard::ALL, &|| ()).unwrap();
    assert_eq!(
        rows.len(),
        4 * 3 * 2 * 2 * 3,
        "R, x, topologies, sets, schemes"
    );
    for job in rows.chunks(3) {
        let lat = |s| job.iter().find(|r| r.scheme == s).unwrap().latency;
        let tree = lat(PlanScheme::Tree);
        assert!(tree < lat(PlanScheme::NiKbinomial), "job {}", job[0].job);
        let t = job.iter().find(|r| r.scheme == PlanScheme::Tree).unwrap();
        assert_eq!(t.phases, 1.0);
        // A path-based multicast of one phase is one worm too: then the two
        // tie, up to the few cycles of their different routes.
        let path = job.iter().find(|r| r.scheme == PlanScheme::PathLg).unwrap();
        if path.phases > 1.0 {
            assert!(tree < path.latency, "job {}", job[0].job);
        } else {
            assert!(
                (tree - path.latency).abs() < 0.01 * tree,
                "job {}",
                job[0].job
            );
        }
    }
}

/// Section 6.4.4: with 32-port switches (two switches for 32 nodes) the
/// path-based and tree-based schemes take one phase each; with 8-port
/// switches the path-based scheme needs more.
#[test]
fn thirty_two_port_switches_take_one_phase() {
    let o = quick();
    let rows = run(Figure::Fig22, &o, Shard::ALL, &|| ()).unwrap();
    let points = summarize(Figure::Fig22, &o, &rows);
    for p in &points {
        if p.setting == "32-port switches" && p.scheme != PlanScheme::NiKbinomial {
            assert_eq!(p.phases, 1.0, "{} at {} destinations", p.scheme, p.x);
        }
    }
    let path8 = points
        .iter()
        .find(|p| p.setting == "8-port switches" && p.scheme == PlanScheme::PathLg && p.x == 31.0)
        .unwrap();
    assert!(path8.phases > 1.0);
}

/// Section 6.4.5: the path-based scheme needs more phases as the number of
/// switches grows (32 nodes on 8-port switches), for every number of
/// destinations beyond 3.
#[test]
fn path_based_phases_grow_with_the_number_of_switches() {
    let mut o = quick();
    o.sets = 4;
    let rows = run(Figure::Fig23, &o, Shard::ALL, &|| ()).unwrap();
    let points = summarize(Figure::Fig23, &o, &rows);
    for x in [15.0, 31.0] {
        let phases: Vec<f64> = ["8 switches", "12 switches", "16 switches", "20 switches"]
            .iter()
            .map(|s| {
                points
                    .iter()
                    .find(|p| p.setting == *s && p.scheme == PlanScheme::PathLg && p.x == x)
                    .unwrap()
                    .phases
            })
            .collect();
        assert!(phases[0] < phases[3], "{x} destinations: {phases:?}");
        assert!(phases.windows(2).all(|w| w[0] <= w[1]), "{x}: {phases:?}");
    }
}

/// Section 6.5: under light multicast load every scheme delivers all its
/// multicasts, and the tree-based scheme has the lowest latency; as the
/// load grows latency grows, and the heaviest load saturates some scheme.
#[test]
fn latency_against_load_quick() {
    let mut o = quick();
    o.topologies = 1;
    let rows = run(Figure::Fig26, &o, Shard::ALL, &|| ()).unwrap();
    let points = summarize(Figure::Fig26, &o, &rows);
    let at = |setting: &str, s: PlanScheme, i: usize| {
        let mut xs: Vec<_> = points
            .iter()
            .filter(|p| p.setting == setting && p.scheme == s)
            .collect();
        xs.sort_by(|a, b| a.x.total_cmp(&b.x));
        xs[i].clone()
    };
    for setting in ["R = 1 (3-way)", "R = 1 (15-way)"] {
        let tree = at(setting, PlanScheme::Tree, 0);
        for s in [PlanScheme::NiKbinomial, PlanScheme::PathLg] {
            let p = at(setting, s, 0);
            assert!(!p.saturated, "{setting} {s} at the lightest load");
            assert!(
                tree.mean < p.mean,
                "{setting}: tree {} vs {s} {}",
                tree.mean,
                p.mean
            );
        }
        for s in o.schemes.clone() {
            assert!(
                at(setting, s, 1).mean > at(setting, s, 0).mean,
                "{setting} {s}"
            );
        }
    }
    assert!(points.iter().any(|p| p.saturated));
}

/// Three shards, run separately and merged, give the raw file and the
/// summary of the unsharded run byte for byte; a missing shard is named.
#[test]
fn shards_merge_into_the_unsharded_result() {
    let mut o = quick();
    o.schemes = vec![PlanScheme::PathLg, PlanScheme::Tree];
    let fig = Figure::Fig25;
    let whole = run(fig, &o, Shard::ALL, &|| ()).unwrap();
    let mut parts = Vec::new();
    for i in 0..3 {
        let shard = Shard::parse(&format!("{i}/3")).unwrap();
        let rows = run(fig, &o, shard, &|| ()).unwrap();
        assert!(rows.len() < whole.len());
        let text = raw_csv(fig, &o, shard, &rows);
        parts.push(parse_raw(&text, &format!("shard{i}")).unwrap());
        if i == 0 {
            every_change_of_a_row_is_refused(&text);
        }
    }
    let (f, o2, merged) = merge(&parts).unwrap();
    assert_eq!(f, fig);
    assert_eq!(
        raw_csv(f, &o2, Shard::ALL, &merged),
        raw_csv(fig, &o, Shard::ALL, &whole)
    );
    assert_eq!(
        summary_csv(&summarize(f, &o2, &merged)),
        summary_csv(&summarize(fig, &o, &whole))
    );
    let e = merge(&parts[..2]).unwrap_err().to_string();
    assert!(e.contains("shard 2/3"), "{e}");
    // A shard of another seed, or with another option, is named by what
    // differs.
    let mut other = o.clone();
    other.seed = 5;
    let shard = Shard::parse("2/3").unwrap();
    let text = raw_csv(
        fig,
        &other,
        shard,
        &run(fig, &other, shard, &|| ()).unwrap(),
    );
    let mut mixed = parts[..2].to_vec();
    mixed.push(parse_raw(&text, "seed5").unwrap());
    let e = merge(&mixed).unwrap_err().to_string();
    assert!(
        e.ends_with(
            "the raw files come from different experiments: seed=1 in one, seed=5 in another"
        ),
        "{e}"
    );
    other.seed = o.seed;
    other.host_overhead = wormcast::ni::HostOverhead::PerPacket;
    mixed[2].1 = other;
    let e = merge(&mixed).unwrap_err().to_string();
    assert!(
        e.ends_with("the defaults in one, host=per-packet in another"),
        "{e}"
    );
    // A shard of another build of wormcast (its model may differ), or of
    // one that did not record its build, is not merged either; the raw
    // file names the build that ran it.
    assert!(
        text.lines().next().unwrap().ends_with(&format!(
            " build={} shard=2/3 jobs={}",
            wormcast::BUILD,
            whole.len() / o.schemes.len()
        )),
        "{text}"
    );
    let older = text.replace(&format!(" build={}", wormcast::BUILD), " build=0.0.9");
    let unrecorded = text.replace(&format!(" build={}", wormcast::BUILD), "");
    for (file, named) in [(older, "0.0.9"), (unrecorded, "unrecorded")] {
        let mut mixed = parts[..2].to_vec();
        let mut part = parse_raw(&file, "other").unwrap();
        part.1.seed = o.seed;
        assert_eq!(part.1.build, named);
        mixed.push(part);
        let e = merge(&mixed).unwrap_err().to_string();
        assert!(
            e.ends_with(&format!(
                "the raw files were made by two builds of wormcast ({} and {named}): the two \
                 models may differ, and an experiment's results come from one build",
                wormcast::BUILD
            )),
            "{e}"
        );
    }
    assert!(Shard::parse("3/3").is_err());
    assert!(parse_raw("job,x\n", "bad.csv").is_err());
}

/// Every change of one character of a raw file's third row, its check
/// among them (a digit to the next, anything else to `x`), is refused by
/// the reading a merge makes, naming the file and the line; the rows as
/// written hold the check made from the format's description.
fn every_change_of_a_row_is_refused(text: &str) {
    let lines: Vec<&str> = text.lines().collect();
    for l in &lines[2..] {
        assert_eq!(seal(l), *l);
    }
    let row = lines[4];
    for (at, c) in row.char_indices().filter(|&(_, c)| c != ',') {
        let to = c
            .to_digit(10)
            .map_or('x', |d| char::from_digit((d + 1) % 10, 10).unwrap());
        let mut changed = row.to_string();
        changed.replace_range(at..at + c.len_utf8(), &to.to_string());
        let e = parse_raw(&text.replacen(row, &changed, 1), "shard0.csv")
            .unwrap_err()
            .to_string();
        let check = changed.rsplit_once(',').unwrap().1;
        assert_eq!(
            e,
            format!(
                "configuration: raw CSV = shard0.csv:5: its check {check} is not that of its \
                 text: the row was changed after it was written"
            ),
            "{changed}"
        );
    }
}

/// A load figure, whose latencies and mean phases are fractions: the
/// summary of the merged shards equals that of the unsharded run byte for
/// byte (the run summarizes the values as the raw file writes them).
#[test]
fn load_shards_merge_into_the_unsharded_summary() {
    let mut o = quick();
    o.schemes = vec![PlanScheme::PathLg];
    o.topologies = 3;
    o.cycles = 60_000;
    o.warmup = 20_000;
    let fig = Figure::Fig26;
    let whole = run(fig, &o, Shard::ALL, &|| ()).unwrap();
    assert!(whole.iter().any(|r| r.phases.fract() != 0.0));
    // Every value is what the raw file will hold.
    for r in &whole {
        for v in [r.latency, r.phases] {
            assert_eq!(format!("{v:.3}").parse::<f64>().unwrap(), v, "{r:?}");
        }
    }
    let parts: Vec<_> = (0..2)
        .map(|i| {
            let shard = Shard::parse(&format!("{i}/2")).unwrap();
            let rows = run(fig, &o, shard, &|| ()).unwrap();
            parse_raw(&raw_csv(fig, &o, shard, &rows), &format!("shard{i}")).unwrap()
        })
        .collect();
    let (f, o2, merged) = merge(&parts).unwrap();
    assert_eq!(
        summary_csv(&summarize(f, &o2, &merged)),
        summary_csv(&summarize(fig, &o, &whole))
    );
}

/// Figs. 24 and 25 with the host's overheads paid per packet: the raw file
/// says so and reads back, a merge keeps it, and the NI-based scheme
/// overtakes the path-based one at 1,024 flits (the paper's crossover),
/// where per message it stays behind.
#[test]
fn host_overhead_per_packet_reaches_the_papers_crossover() {
    use wormcast::ni::HostOverhead;
    let mut o = quick();
    o.schemes = vec![PlanScheme::NiKbinomial, PlanScheme::PathLg];
    let fig = Figure::Fig24;
    let mean_at = |o: &Options, flits: &str, x: f64| -> (f64, f64) {
        let rows = run(fig, o, Shard::ALL, &|| ()).unwrap();
        let pts = summarize(fig, o, &rows);
        let m = |s: PlanScheme| {
            pts.iter()
                .find(|p| p.setting == flits && p.scheme == s && p.x == x)
                .unwrap()
                .mean
        };
        (m(PlanScheme::NiKbinomial), m(PlanScheme::PathLg))
    };
    let (ni, path) = mean_at(&o, "1024 flits", 31.0);
    assert!(ni > 1.4 * path, "per message: NI {ni}, path {path}");
    o.host_overhead = HostOverhead::PerPacket;
    let (ni, path) = mean_at(&o, "1024 flits", 31.0);
    assert!(ni < path, "per packet: NI {ni}, path {path}");
    let (ni, path) = mean_at(&o, "512 flits", 31.0);
    assert!(ni > path, "per packet, 512 flits: NI {ni}, path {path}");
    let rows = run(fig, &o, Shard::ALL, &|| ()).unwrap();
    let text = raw_csv(fig, &o, Shard::ALL, &rows);
    assert!(
        text.lines().next().unwrap().contains(" host=per-packet "),
        "{text}"
    );
    let (_, back, _, _) = parse_raw(&text, "pp.csv").unwrap();
    assert_eq!(back.host_overhead, HostOverhead::PerPacket);
    let bad = text.replace("host=per-packet", "host=sometimes");
    let e = parse_raw(&bad, "pp.csv").unwrap_err().to_string();
    assert!(e.contains("per-packet-pipelined"), "{e}");
}

/// Fig. 21 sweeps the number of destinations up to the whole system: at
/// 64 nodes a multicast to all 63 others runs for every scheme, and the
/// NI-based k-binomial tree takes one step more than to 31.
#[test]
fn system_size_sweeps_up_to_the_whole_system() {
    let o = quick();
    let fig = Figure::Fig21;
    let s = &wormcast::experiment::settings(fig, true)[1];
    assert_eq!(s.nodes, 64);
    assert_eq!(
        wormcast::experiment::xs(fig, s, true),
        [3.0, 15.0, 31.0, 63.0]
    );
    let pts = summarize(fig, &o, &run(fig, &o, Shard::ALL, &|| ()).unwrap());
    let at = |scheme: PlanScheme, x: f64| {
        pts.iter()
            .find(|p| p.setting == "64 nodes" && p.scheme == scheme && p.x == x)
            .unwrap()
    };
    for scheme in o.schemes.clone() {
        assert_eq!(at(scheme, 63.0).samples, o.topologies * o.sets, "{scheme}");
    }
    let ni = PlanScheme::NiKbinomial;
    assert_eq!(at(ni, 63.0).phases, at(ni, 31.0).phases + 1.0);
}

/// A point none of whose runs completed a multicast has no latency: its
/// summary writes zeros (and marks it saturated), never the "-0.0" a float
/// sum of nothing gives.
#[test]
fn a_point_with_no_completed_run_summarizes_as_zero_not_minus_zero() {
    let mut o = quick();
    o.schemes = vec![PlanScheme::PathLg];
    let fig = Figure::Fig25;
    let mut rows = run(fig, &o, Shard::ALL, &|| ()).unwrap();
    for r in &mut rows {
        r.completed = 0;
        r.phases = 0.0;
    }
    let points = summarize(fig, &o, &rows);
    assert!(!points.is_empty());
    for p in &points {
        assert!(p.saturated);
        for v in [p.mean, p.std, p.min, p.max, p.phases] {
            assert!(v == 0.0 && v.is_sign_positive(), "{v:?}");
        }
    }
    let csv = summary_csv(&points);
    assert!(!csv.contains("-0."), "{csv}");
}

/// `row` (a raw file's row with its check) with its check made again for
/// its text: FNV-1a, 64 bits, of the text before the last comma, as
/// docs/reproduction.md gives it (written here from that description,
/// not with the crate's hash).
fn seal(row: &str) -> String {
    let body = row.rsplit_once(',').unwrap().0;
    let h = body.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{body},{h:016x}")
}

/// A journal that is not what a run writes is refused by line, not taken
/// as finished jobs; one cut off part way is resumed. Run whole, a shard
/// of fig22 gives the rows `run` gives.
#[test]
fn a_journal_is_read_line_by_line_and_a_bad_one_named() {
    use wormcast::experiment::{journal_path, raw_path, run_into};
    let o = quick();
    let dir = std::env::temp_dir().join(format!("wormcast-journal-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let shard = Shard { index: 1, count: 3 };
    let rows = run(Figure::Fig22, &o, shard, &|| ()).unwrap();
    let whole = raw_csv(Figure::Fig22, &o, shard, &rows);
    let lines: Vec<&str> = whole.lines().collect();
    let journal = journal_path(&dir, Figure::Fig22, shard);
    assert_eq!(
        journal,
        dir.join("fig22.raw.shard-1-of-3.csv.part"),
        "the raw file's name and .part"
    );
    std::fs::create_dir_all(&dir).unwrap();
    let refused = |text: String, why: &str| {
        std::fs::write(&journal, &text).unwrap();
        let e = run_into(&dir, Figure::Fig22, &o, shard, &|| ()).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("configuration: journal = {}: {why}", journal.display()),
            "{text}"
        );
        // Left as it was, for its owner to look at.
        assert_eq!(std::fs::read_to_string(&journal).unwrap(), text);
    };
    let head = lines[..2].join("\n");
    refused(
        format!("{head}\n{}\nnot a row\n{}\n", lines[2], lines[3]),
        "line 4: 1 fields, not 12",
    );
    // A digit changed after the row was written: its check tells.
    let (body, check) = lines[3].rsplit_once(',').unwrap();
    let (before, after) = body.split_once(".000,").unwrap();
    let edited = format!("{before}1.000,{after}");
    refused(
        format!("{head}\n{}\n{edited},{check}\n", lines[2]),
        &format!(
            "line 4: its check {check} is not that of its text: the row was changed after it \
             was written"
        ),
    );
    refused(
        format!("{head}\n{body}\n"),
        "line 3: 11 fields, not 12 (no check at its end: this build ends each row in `check`, \
         a hash of the row, and an older build's rows have none)",
    );
    // Job 0 is shard 0's (the row sealed again with its check).
    refused(
        format!("{head}\n{}\n", seal(&lines[2].replacen("1,", "0,", 1))),
        "line 3: job 0 is not one of this run's",
    );
    // A job's rows cut short before another job's: not a torn write.
    refused(
        format!("{head}\n{}\n{}\n", lines[2], lines[5]),
        "line 4: job 1 has 1 of its 3 rows before job 4's",
    );
    refused(
        format!("{head}\n{}\n{}\n{}\n", lines[2], lines[2], lines[4]),
        "line 5: job 1's rows are not one of each scheme, in order",
    );
    refused(
        format!(
            "{head}\n{}\n{}\n",
            lines[2..5].join("\n"),
            lines[2..5].join("\n")
        ),
        "line 8: job 1 twice",
    );
    // Cut off in a job's second row: the first job is kept, the second
    // runs again, and the raw file is the one `run` writes.
    let cut = format!("{head}\n{}\n{}", lines[2..6].join("\n"), &lines[6][..5]);
    std::fs::write(&journal, &cut).unwrap();
    let ran = run_into(&dir, Figure::Fig22, &o, shard, &|| ()).unwrap();
    assert_eq!(ran.kept, Some((1, journal.clone())));
    assert_eq!(ran.ran, rows.len() / 3 - 1);
    let raw = raw_path(&dir, Figure::Fig22, shard);
    assert_eq!(ran.files, std::slice::from_ref(&raw));
    assert_eq!(std::fs::read_to_string(&raw).unwrap(), whole);
    assert!(!journal.exists());
    assert_eq!(ran.refused, None);
    // The raw file whole: taken as it is, nothing runs.
    let ran = run_into(&dir, Figure::Fig22, &o, shard, &|| ()).unwrap();
    assert_eq!(
        (ran.kept, ran.ran, ran.refused),
        (Some((12, raw.clone())), 0, None)
    );
    // A row of it changed, or a job's rows gone: refused, named, its jobs
    // run again and the file written anew.
    let (_, check) = lines[2].rsplit_once(',').unwrap();
    let path = lines[2].replacen(",ni-kbinomial,", ",path-lg,", 1);
    for (text, why) in [
        (
            whole.replacen(lines[2], &path, 1),
            format!(
                "line 3: its check {check} is not that of its text: the row was changed after \
                 it was written"
            ),
        ),
        (
            whole.replacen(&format!("{}\n", lines[4]), "", 1),
            "its rows are not this run's jobs, each whole and once".into(),
        ),
    ] {
        assert_ne!(text, whole);
        std::fs::write(&raw, &text).unwrap();
        let ran = run_into(&dir, Figure::Fig22, &o, shard, &|| ()).unwrap();
        assert_eq!(
            (ran.kept, ran.ran, ran.refused),
            (None, 12, Some((raw.clone(), why)))
        );
        assert_eq!(std::fs::read_to_string(&raw).unwrap(), whole);
    }
    // An experiment of no scheme has no rows to journal, or to run.
    let mut none = quick();
    none.schemes.clear();
    assert_eq!(
        run_into(&dir, Figure::Fig22, &none, shard, &|| ())
            .unwrap_err()
            .to_string(),
        "configuration: schemes = none: at least one scheme"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

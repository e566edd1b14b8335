//! What memory the host offers a new allocation: the guards that refuse a
//! network, or a trace of it, that would not fit read it here rather than
//! let the kernel end the process part way through.
//!
//! The machine's free memory (`MemAvailable` of `/proc/meminfo`) is not
//! the whole answer where the process runs in a control group with a
//! memory limit, as a Slurm job with `--mem` does on a cluster that
//! constrains memory, or a container: the kernel kills the process when
//! its group reaches the limit, however much the machine has free. So
//! what is offered is the least of the machine's free memory and, for the
//! process's group and each group above it that has a limit, the limit
//! less what the group uses (less the file cache it can drop). Both cgroup
//! versions are read, located through `/proc/self/mountinfo`.
//! [`megabytes`] writes the sizes such refusals name.

use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex, MutexGuard};

/// Bytes of memory available to a new allocation of this process: the
/// least of the machine's (`MemAvailable` of `/proc/meminfo`) and what
/// the memory limits of its control groups leave, where the system says.
pub(crate) fn available() -> Option<u64> {
    let (host, group) = both();
    match (host, group) {
        (Some(h), Some((g, _))) => Some(h.min(g)),
        (h, g) => h.or(g.map(|(g, _)| g)),
    }
}

/// `bytes` in megabytes (of 1,000,000), to two places below 10 MB, and
/// in bytes below 10,000 (which two places would show as 0.00 MB).
pub fn megabytes(bytes: u128) -> String {
    if bytes < 10_000 {
        format!("{bytes} bytes")
    } else if bytes >= 10_000_000 {
        format!("{} MB", bytes / 1_000_000)
    } else {
        format!("{:.2} MB", bytes as f64 / 1e6)
    }
}

/// Bytes of this process's memory resident now (`/proc/self/statm`),
/// where the system says.
pub(crate) fn resident() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    // SAFETY: sysconf reads a constant of the system.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    (page > 0).then(|| pages.saturating_mul(page as u64))
}

/// A run's growth past saturation, watched as it grows. Past saturation
/// a run keeps what it generates and cannot deliver (seed 000's sources'
/// queues and the packets filling the network's buffers, the engine's
/// messages outstanding), which for a large network is more than a
/// machine, or a job's memory limit, holds; the memory checked before the
/// run reckons only the network. So each time the count of what it keeps
/// passes a mark (doubling from the first, up to the most there can be),
/// the run asks how much the process has grown since the run began and
/// takes that rate a unit as what the next mark will take. Memory must
/// hold that and half as much again (containers grow by doubling, a copy
/// beside the new for a moment; a 300x300 mesh that passed with 667 MB to
/// go and 673 MB free was killed before the next mark), or the run is
/// stopped. The growth is the whole process's (in a sweep, that of the
/// jobs beside the run too), so the look errs toward stopping, and only
/// where memory is short.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Growth {
    /// The process's resident bytes as the run began.
    start: Option<u64>,
    /// The count at which to look next (`u64::MAX`: never again).
    pub(crate) mark: u64,
    /// The most the count can reach.
    most: u64,
}

/// What a look found memory short of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Short {
    /// Bytes the process has grown by since the run began.
    pub(crate) grown: u64,
    /// Bytes the count's next mark takes more, at the rate so far.
    pub(crate) more: u64,
    /// Bytes of memory available.
    pub(crate) available: u64,
}

impl Growth {
    /// Looks first at `first`, for a count of at most `most`, the process
    /// having `start` bytes resident as the run begins.
    pub(crate) fn new(first: u64, most: u64, start: Option<u64>) -> Growth {
        Growth {
            start,
            mark: if first <= most { first } else { u64::MAX },
            most,
        }
    }

    /// Counts what the process grows by from `start` resident bytes (a
    /// run that has just begun its waveform, whose state is not what it
    /// keeps).
    pub(crate) fn restart(&mut self, start: Option<u64>) {
        self.start = start;
    }

    /// The most the count can reach.
    pub(crate) fn most(&self) -> u64 {
        self.most
    }

    /// The look at `count` (at least the mark), `available` and `resident`
    /// giving the memory available and the process's resident bytes: what
    /// memory is short of when it is, and the next mark set either way.
    pub(crate) fn look(
        &mut self,
        count: u64,
        available: impl FnOnce() -> Option<u64>,
        resident: impl FnOnce() -> Option<u64>,
    ) -> Result<(), Short> {
        let next = count.saturating_mul(2).min(self.most);
        self.mark = if next > count { next } else { u64::MAX };
        let (Some(start), Some(now)) = (self.start, resident()) else {
            return Ok(());
        };
        let grown = now.saturating_sub(start);
        let more =
            (grown as u128 * next.saturating_sub(count) as u128 / count.max(1) as u128) as u64;
        match available() {
            Some(available) if more.saturating_add(more / 2) > available => Err(Short {
                grown,
                more,
                available,
            }),
            _ => Ok(()),
        }
    }
}

/// Where a control group's memory limit, not the machine's free memory,
/// is what bounds this process: a sentence naming the group's directory
/// and its limit, for a refusal by memory to add. None where the
/// machine's free memory is the bound. (The limit, not what it leaves: a
/// run stopped for memory has let go of what it held by the time this is
/// asked.)
pub fn memory_limit_note() -> Option<String> {
    let (host, group) = both();
    let (room, dir) = group?;
    if host.is_some_and(|h| room >= h) {
        return None;
    }
    let limit = ["memory.max", "memory.limit_in_bytes"]
        .iter()
        .find_map(|f| {
            std::fs::read_to_string(dir.join(f))
                .ok()?
                .trim()
                .parse::<u64>()
                .ok()
        });
    let limit = limit.map_or_else(String::new, |l| format!(" to {} MB", l / 1_000_000));
    Some(match host {
        Some(h) => format!(
            "this process's control group ({}) limits its memory{limit}, less than the machine's {} MB free",
            dir.display(),
            h / 1_000_000
        ),
        None => format!(
            "this process's control group ({}) limits its memory{limit}",
            dir.display()
        ),
    })
}

/// The machine's free memory and what the control groups leave, with the
/// group that leaves least.
fn both() -> (Option<u64>, Option<(u64, PathBuf)>) {
    let read = |p: &Path| std::fs::read_to_string(p).ok();
    let host = read(Path::new("/proc/meminfo")).and_then(|m| meminfo_available(&m));
    (host, room_in(own_hierarchies(), &read))
}

/// `MemAvailable` of a `/proc/meminfo` text, in bytes.
fn meminfo_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib.saturating_mul(1024))
}

/// A limit at or past this is no limit (cgroup v1 writes "unlimited" as
/// the largest page-aligned `i64`).
const NO_LIMIT: u64 = 1 << 62;

/// A memory hierarchy the process is in: its mount point, the process's
/// group's directory in it, and whether it is cgroup v2.
struct Hierarchy {
    mount: PathBuf,
    dir: PathBuf,
    v2: bool,
}

/// The memory hierarchies the process is in (`groups`, the text of
/// `/proc/self/cgroup`) that are mounted (`mounts`, of
/// `/proc/self/mountinfo`).
fn hierarchies(mounts: &str, groups: &str) -> Vec<Hierarchy> {
    let mut found = Vec::new();
    for line in groups.lines() {
        let mut f = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (f.next(), f.next(), f.next()) else {
            continue;
        };
        let v2 = controllers.is_empty();
        if !v2 && !controllers.split(',').any(|c| c == "memory") {
            continue;
        }
        if let Some((mount, dir)) = mounted_at(mounts, v2, path) {
            found.push(Hierarchy { mount, dir, v2 });
        }
    }
    found
}

/// The process's memory hierarchies, found once: a process does not move
/// between groups on its own, and a memory check should not read the
/// mount table each time it asks.
fn own_hierarchies() -> &'static [Hierarchy] {
    static FOUND: std::sync::OnceLock<Vec<Hierarchy>> = std::sync::OnceLock::new();
    FOUND.get_or_init(|| {
        let read = |p: &str| std::fs::read_to_string(p).ok();
        match (read("/proc/self/mountinfo"), read("/proc/self/cgroup")) {
            (Some(mounts), Some(groups)) => hierarchies(&mounts, &groups),
            _ => Vec::new(),
        }
    })
}

/// What the memory limits of `hierarchies` leave, in bytes: for each, the
/// least over the process's group and the groups above it, up to the
/// mount's root, of limit - (usage - inactive file cache), with the
/// directory of the group that leaves least. None where no group has a
/// limit or none can be read. `read` gives a file's text.
fn room_in(
    hierarchies: &[Hierarchy],
    read: &dyn Fn(&Path) -> Option<String>,
) -> Option<(u64, PathBuf)> {
    let mut least: Option<(u64, PathBuf)> = None;
    for h in hierarchies {
        let (limit, usage, inactive) = if h.v2 {
            ("memory.max", "memory.current", "inactive_file")
        } else {
            (
                "memory.limit_in_bytes",
                "memory.usage_in_bytes",
                "total_inactive_file",
            )
        };
        let mut at = h.dir.clone();
        loop {
            let number = |file: &str| -> Option<u64> { read(&at.join(file))?.trim().parse().ok() };
            // The limit first: most groups have none, and their usage is
            // not read.
            if let Some(l) = number(limit).filter(|&l| l < NO_LIMIT)
                && let Some(u) = number(usage)
            {
                let cache = read(&at.join("memory.stat"))
                    .and_then(|s| stat_field(&s, inactive))
                    .unwrap_or(0);
                let room = l.saturating_sub(u.saturating_sub(cache));
                if least.as_ref().is_none_or(|(x, _)| room < *x) {
                    least = Some((room, at.clone()));
                }
            }
            if at == h.mount || !at.pop() || !at.starts_with(&h.mount) {
                break;
            }
        }
    }
    least
}

/// [`room_in`] the hierarchies of a mount table and a process's groups.
#[cfg(test)]
fn cgroup_room(
    mounts: &str,
    groups: &str,
    read: &dyn Fn(&Path) -> Option<String>,
) -> Option<(u64, PathBuf)> {
    room_in(&hierarchies(mounts, groups), read)
}

/// The mount point of a memory hierarchy (cgroup2 when `v2`, else the v1
/// hierarchy with the memory controller) and the directory in it of the
/// group at `path`: None where it is not mounted or the mount does not
/// show the group.
fn mounted_at(mounts: &str, v2: bool, path: &str) -> Option<(PathBuf, PathBuf)> {
    for line in mounts.lines() {
        // id parent major:minor root mount-point options [optional...] - type source super-options
        let Some((left, right)) = line.split_once(" - ") else {
            continue;
        };
        let left: Vec<&str> = left.split(' ').collect();
        let right: Vec<&str> = right.split(' ').collect();
        let (Some(&root), Some(&point), Some(&kind)) = (left.get(3), left.get(4), right.first())
        else {
            continue;
        };
        let ours = if v2 {
            kind == "cgroup2"
        } else {
            kind == "cgroup"
                && right
                    .get(2)
                    .is_some_and(|o| o.split(',').any(|c| c == "memory"))
        };
        if !ours {
            continue;
        }
        // The group's path relative to what the mount shows (in a cgroup
        // namespace, or a container's own mount, the mount's root).
        let rel = if root == "/" {
            Some(path)
        } else {
            path.strip_prefix(root)
                .filter(|r| r.is_empty() || r.starts_with('/'))
        };
        let Some(rel) = rel else { continue };
        let mount = PathBuf::from(point);
        let dir = mount.join(rel.trim_start_matches('/'));
        return Some((mount, dir));
    }
    None
}

/// The value of `key` in a cgroup `memory.stat` text.
fn stat_field(stat: &str, key: &str) -> Option<u64> {
    stat.lines().find_map(|l| {
        let (k, v) = l.split_once(' ')?;
        if k == key {
            v.trim().parse().ok()
        } else {
            None
        }
    })
}

/// Memory shared by jobs that run at once, such as a sweep's on several
/// cores. Each job's own check compares its reckoning with the memory
/// free when it starts, which does not count what the jobs started beside
/// it are about to take: two large jobs starting together would each see
/// the whole machine free. So a job holds its reckoning here while it
/// runs, and one whose reckoning does not fit beside what the others hold
/// waits for them, in the order the jobs asked, rather than run and
/// overrun the machine. A job whose reckoning alone exceeds the budget is
/// refused.
pub(crate) struct Budget {
    shares: Mutex<Shares>,
    turn: Condvar,
    /// A budget given, not read from the system.
    fixed: bool,
}

/// What a [`Budget`] has handed out.
struct Shares {
    /// The bytes jobs may hold at once.
    budget: u128,
    /// Tickets given and served: jobs are let in in the order they asked.
    next: u64,
    serving: u64,
    /// Bytes held, and by how many jobs.
    held: u128,
    holders: usize,
    /// The most bytes held at once.
    most: u128,
}

/// Bytes a job holds of a [`Budget`] until this is dropped.
pub(crate) struct Held<'a> {
    budget: &'a Budget,
    bytes: u128,
    /// Whether the holder waited for others to let go first.
    waited: bool,
}

impl Held<'_> {
    /// Whether the holder waited for others to let go before its bytes
    /// fitted (or for the holders that asked first).
    pub(crate) fn waited(&self) -> bool {
        self.waited
    }
}

impl Budget {
    /// A budget of `bytes`, or (None) of the memory available now
    /// ([`available`], read again whenever a job alone does not fit and
    /// none holds anything; no bound where the system does not say).
    pub(crate) fn new(bytes: Option<u64>) -> Budget {
        let budget = bytes.or_else(available).map_or(u128::MAX, u128::from);
        Budget {
            shares: Mutex::new(Shares {
                budget,
                next: 0,
                serving: 0,
                held: 0,
                holders: 0,
                most: 0,
            }),
            turn: Condvar::new(),
            fixed: bytes.is_some(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Shares> {
        self.shares.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Holds `bytes` until the answer is dropped, once they fit beside what
    /// the other jobs hold, waiting for them (and for the jobs that asked
    /// first) until they do. Err(the budget) when `bytes` alone exceed it.
    /// A caller that waits here must not be a thread another holder's
    /// work may need (a worker of the pool that job's nested work runs
    /// on): see `par::map_workers`.
    pub(crate) fn hold(&self, bytes: u128) -> std::result::Result<Held<'_>, u128> {
        let mut s = self.lock();
        let ticket = s.next;
        s.next += 1;
        let mut waited = false;
        loop {
            if s.serving == ticket {
                if s.holders == 0
                    && bytes > s.budget
                    && !self.fixed
                    && let Some(a) = available()
                {
                    s.budget = a.into();
                }
                let alone = s.holders == 0;
                if alone && bytes > s.budget {
                    s.serving += 1;
                    self.turn.notify_all();
                    return Err(s.budget);
                }
                if alone || s.held + bytes <= s.budget {
                    s.serving += 1;
                    s.held += bytes;
                    s.holders += 1;
                    s.most = s.most.max(s.held);
                    self.turn.notify_all();
                    return Ok(Held {
                        budget: self,
                        bytes,
                        waited,
                    });
                }
            }
            waited = true;
            s = self.turn.wait(s).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// The bytes jobs may hold at once (as last read, for a budget of the
    /// memory available).
    pub(crate) fn budget(&self) -> u128 {
        self.lock().budget
    }

    /// The most bytes held at once so far.
    pub(crate) fn most(&self) -> u128 {
        self.lock().most
    }
}

/// Jobs reckoned at this many bytes or more hand what they freed back to
/// the system as they let go of their share while another job waits
/// ([`give_back`]).
const GIVE_BACK_BYTES: u128 = 64 << 20;

/// Hands the memory this process has freed back to the system. The C
/// library's allocator keeps what a thread frees for that thread's later
/// use, blocks up to 32 MB included; after a large job it would keep
/// hundreds of megabytes that the next job, on another thread, cannot use
/// and the budget no longer counts (a 600x600 mesh's jobs, 0.76 GB each,
/// left a sweep at 1.21 GB). glibc only; elsewhere nothing.
fn give_back() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim takes no pointers; it locks the allocator's
    // arenas itself and may be called from any thread at any time.
    unsafe {
        libc::malloc_trim(0);
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        // Where a job waits, what this one freed goes back before it is
        // let in (not otherwise: the pages given back are faulted in
        // again by the next job, 0.1 s a 0.7 GB job).
        if self.bytes >= GIVE_BACK_BYTES {
            let queued = {
                let s = self.budget.lock();
                s.next > s.serving
            };
            if queued {
                give_back();
            }
        }
        let mut s = self.budget.lock();
        s.held -= self.bytes;
        s.holders -= 1;
        drop(s);
        self.budget.turn.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn sizes_read_in_megabytes_and_small_ones_in_bytes() {
        assert_eq!(megabytes(1_234_567), "1.23 MB");
        assert_eq!(megabytes(10_000), "0.01 MB");
        assert_eq!(megabytes(9_999), "9999 bytes");
        assert_eq!(megabytes(1_024), "1024 bytes");
        assert_eq!(megabytes(12_345_678), "12 MB");
    }

    fn fs(files: &[(&str, &str)]) -> impl Fn(&Path) -> Option<String> + use<> {
        let map: HashMap<PathBuf, String> = files
            .iter()
            .map(|(p, t)| (PathBuf::from(p), t.to_string()))
            .collect();
        move |p: &Path| map.get(p).cloned()
    }

    const V2_MOUNT: &str = "30 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw\n";

    /// Waits up to a second for `cond`.
    fn soon(cond: impl Fn() -> bool) -> bool {
        (0..1000).any(|_| {
            std::thread::sleep(std::time::Duration::from_millis(1));
            cond()
        })
    }

    #[test]
    fn a_job_that_does_not_fit_beside_another_waits_for_it_and_later_ones_queue() {
        let b = Budget::new(Some(100));
        let first = b.hold(60).unwrap();
        assert!(!first.waited());
        let order = Mutex::new(Vec::new());
        let tickets = || b.lock().next;
        std::thread::scope(|s| {
            // 70 does not fit beside the first's 60: it waits.
            s.spawn(|| {
                let h = b.hold(70).unwrap();
                assert!(h.waited());
                order.lock().unwrap().push("second");
            });
            assert!(soon(|| tickets() == 2));
            // 40 fits beside the first but asked after the second, which
            // waits: it waits behind it (and, not fitting beside the
            // second either, until the second has let go).
            s.spawn(|| {
                let h = b.hold(40).unwrap();
                assert!(h.waited());
                order.lock().unwrap().push("third");
            });
            assert!(soon(|| tickets() == 3));
            std::thread::sleep(std::time::Duration::from_millis(50));
            assert!(order.lock().unwrap().is_empty(), "held past the budget");
            drop(first);
        });
        assert_eq!(order.into_inner().unwrap(), ["second", "third"]);
        assert_eq!(b.most(), 70);
    }

    #[test]
    fn a_job_past_the_budget_alone_is_refused_and_the_queue_moves_on() {
        let b = Budget::new(Some(100));
        assert_eq!(b.hold(101).err(), Some(100));
        let h = b.hold(100).unwrap();
        assert!(!h.waited());
        drop(h);
        assert_eq!(b.most(), 100);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]
        /// Jobs on several threads never hold more than the budget at
        /// once, and every one runs.
        #[test]
        fn jobs_at_once_never_hold_more_than_the_budget(
            sizes in proptest::collection::vec(1u128..=100, 1..24),
            threads in 1usize..5,
        ) {
            use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::SeqCst};
            let b = Budget::new(Some(100));
            let now = AtomicU64::new(0);
            let most = AtomicU64::new(0);
            let ran = AtomicUsize::new(0);
            let next = AtomicUsize::new(0);
            std::thread::scope(|s| {
                for _ in 0..threads {
                    s.spawn(|| loop {
                        let i = next.fetch_add(1, SeqCst);
                        let Some(&n) = sizes.get(i) else { return };
                        let _h = b.hold(n).unwrap();
                        let at = now.fetch_add(n as u64, SeqCst) + n as u64;
                        most.fetch_max(at, SeqCst);
                        std::thread::yield_now();
                        now.fetch_sub(n as u64, SeqCst);
                        ran.fetch_add(1, SeqCst);
                    });
                }
            });
            proptest::prop_assert!(most.load(SeqCst) <= 100);
            proptest::prop_assert!(b.most() <= 100);
            proptest::prop_assert_eq!(ran.load(SeqCst), sizes.len());
        }
    }

    #[test]
    fn meminfo_gives_its_available_line_in_bytes() {
        let m = "MemTotal:       24683584 kB\nMemFree: 1 kB\nMemAvailable:   23753128 kB\n";
        assert_eq!(meminfo_available(m), Some(23753128 * 1024));
        assert_eq!(meminfo_available("MemTotal: 5 kB\n"), None);
    }

    #[test]
    fn a_v2_group_leaves_its_limit_less_what_it_uses_and_cannot_drop() {
        let read = fs(&[
            (
                "/sys/fs/cgroup/system.slice/job_7/memory.max",
                "4294967296\n",
            ),
            (
                "/sys/fs/cgroup/system.slice/job_7/memory.current",
                "1073741824\n",
            ),
            (
                "/sys/fs/cgroup/system.slice/job_7/memory.stat",
                "anon 100\nfile 300000000\ninactive_file 268435456\nactive_file 5\n",
            ),
            ("/sys/fs/cgroup/system.slice/memory.max", "max\n"),
            ("/sys/fs/cgroup/system.slice/memory.current", "9999999999\n"),
        ]);
        let room = cgroup_room(V2_MOUNT, "0::/system.slice/job_7\n", &read);
        assert_eq!(
            room,
            Some((
                4294967296 - (1073741824 - 268435456),
                "/sys/fs/cgroup/system.slice/job_7".into()
            ))
        );
    }

    #[test]
    fn the_tightest_group_above_the_process_bounds_it() {
        // A Slurm job's step under the job: the job's limit is the smaller.
        let read = fs(&[
            ("/sys/fs/cgroup/slurm/job_3/step_0/memory.max", "8000000000"),
            (
                "/sys/fs/cgroup/slurm/job_3/step_0/memory.current",
                "1000000000",
            ),
            ("/sys/fs/cgroup/slurm/job_3/memory.max", "2000000000"),
            ("/sys/fs/cgroup/slurm/job_3/memory.current", "1500000000"),
            ("/sys/fs/cgroup/slurm/memory.max", "max"),
            ("/sys/fs/cgroup/slurm/memory.current", "1500000000"),
        ]);
        let room = cgroup_room(V2_MOUNT, "0::/slurm/job_3/step_0\n", &read);
        assert_eq!(
            room,
            Some((500_000_000, "/sys/fs/cgroup/slurm/job_3".into()))
        );
    }

    #[test]
    fn a_v1_memory_hierarchy_is_read_where_it_is_mounted() {
        // The shape of this project's own build machine: a v1 memory
        // hierarchy beside an unlimited unified one.
        let mounts = "25 24 0:22 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n\
                      33 24 0:30 / /sys/fs/cgroup/memory rw,nosuid - cgroup cgroup rw,memory\n\
                      34 24 0:31 / /sys/fs/cgroup/cpu rw,nosuid - cgroup cgroup rw,cpu,cpuacct\n";
        let groups = "4:memory:/api/abc\n1:cpu,cpuacct:/\n0::/\n";
        let base = "/sys/fs/cgroup/memory/api/abc";
        let limit = format!("{base}/wctest/memory.limit_in_bytes");
        let usage = format!("{base}/wctest/memory.usage_in_bytes");
        let stat = format!("{base}/wctest/memory.stat");
        let read = fs(&[
            (&limit, "2147483648\n"),
            (&usage, "1073741824\n"),
            (
                &stat,
                "cache 7\ninactive_file 9\ntotal_inactive_file 1048576\n",
            ),
            (
                "/sys/fs/cgroup/memory/api/abc/memory.limit_in_bytes",
                "9223372036854771712\n",
            ),
            ("/sys/fs/cgroup/memory/api/abc/memory.usage_in_bytes", "5\n"),
        ]);
        let room = cgroup_room(
            mounts,
            &groups.replace("/api/abc", "/api/abc/wctest"),
            &read,
        );
        assert_eq!(
            room,
            Some((
                2147483648 - (1073741824 - 1048576),
                format!("{base}/wctest").into()
            ))
        );
        // The unlimited group alone leaves no figure: the machine's rules.
        assert_eq!(cgroup_room(mounts, groups, &read), None);
    }

    #[test]
    fn a_namespaced_mount_shows_the_group_at_its_root() {
        // In a container the mount's root is the group itself.
        let mounts = "40 30 0:26 /kube/pod1 /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
        let read = fs(&[
            ("/sys/fs/cgroup/memory.max", "1000"),
            ("/sys/fs/cgroup/memory.current", "400"),
        ]);
        assert_eq!(
            cgroup_room(mounts, "0::/kube/pod1\n", &read),
            Some((600, "/sys/fs/cgroup".into()))
        );
        // A group the mount does not show is not guessed at.
        assert_eq!(cgroup_room(mounts, "0::/other\n", &read), None);
    }

    #[test]
    fn a_group_past_its_limit_leaves_nothing_and_junk_is_ignored() {
        let read = fs(&[
            ("/sys/fs/cgroup/a/memory.max", "1000"),
            ("/sys/fs/cgroup/a/memory.current", "5000"),
            ("/sys/fs/cgroup/b/memory.max", "garbage"),
            ("/sys/fs/cgroup/b/memory.current", "1"),
        ]);
        assert_eq!(
            cgroup_room(V2_MOUNT, "0::/a\n", &read),
            Some((0, "/sys/fs/cgroup/a".into()))
        );
        assert_eq!(cgroup_room(V2_MOUNT, "0::/b\n", &read), None);
        assert_eq!(cgroup_room("junk line\n", "0::/a\n", &read), None);
        assert_eq!(cgroup_room(V2_MOUNT, "nonsense\n\n", &read), None);
    }
}

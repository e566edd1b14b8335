//! What memory the host offers a new allocation: the guards that refuse a
//! network, or a trace of it, that would not fit read it here rather than
//! let the kernel end the process part way through.

/// Bytes of memory available to a new process (`MemAvailable` of
/// `/proc/meminfo`), where the system says.
pub(crate) fn available() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = s.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

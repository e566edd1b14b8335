//! Stopping a run part way when the process is asked to: Ctrl-C at a
//! terminal (`SIGINT`), or a batch system ending a job (`SIGTERM`, which
//! Slurm sends at a job's time limit and on `scancel`, some 30 seconds
//! before it kills the job). It models no hardware.
//!
//! A stop asked for is one flag for the whole process. The cycle loops of
//! a run look at it once a cycle ([`System::run`](crate::sim::System::run),
//! the engine's harness) and end with [`Error::Interrupted`], as they end
//! at a deadlock: the waveform being written is finished where the run
//! stopped, so it stays a readable file, and a sweep's journal keeps every
//! job finished before the stop. A program sets the flag from its signal
//! handler ([`catch_signals`] installs one that does) or calls [`request`]
//! itself. A program whose output may go to a pipe closed early (`| head`)
//! calls [`quiet_on_closed_pipe`] to end there quietly.

use crate::{Error, Result};
use std::sync::atomic::{AtomicI32, Ordering};

/// The signal a stop was asked by (0: none).
static REQUESTED: AtomicI32 = AtomicI32::new(0);

/// The signal a stop was asked by, if one was.
#[inline]
pub fn requested() -> Option<i32> {
    match REQUESTED.load(Ordering::Relaxed) {
        0 => None,
        s => Some(s),
    }
}

/// Asks every run of the process to stop at its next cycle, as the signal
/// numbered `signal` (not 0) does once [`catch_signals`] has been called.
/// Runs stay stopped until [`clear`].
pub fn request(signal: i32) {
    REQUESTED.store(signal, Ordering::Relaxed);
}

/// Takes back a stop asked for: the next cycle a run is asked for runs.
/// A stopped [`System`](crate::sim::System) goes on from where it
/// stopped, as if it had never stopped.
pub fn clear() {
    REQUESTED.store(0, Ordering::Relaxed);
}

/// `Err(Error::Interrupted)` at `cycle` when a stop was asked for.
#[inline]
pub(crate) fn check(cycle: u64) -> Result<()> {
    match requested() {
        None => Ok(()),
        Some(s) => Err(stopped(s, format!("at cycle {cycle}"))),
    }
}

/// [`Error::Interrupted`] by `signal`, `what` saying where.
pub(crate) fn stopped(signal: i32, what: String) -> Error {
    Error::Interrupted {
        signal: signal_name(signal),
        what,
    }
}

/// The name of a signal: `SIGINT`, `SIGTERM`, or `signal N`.
pub fn signal_name(signal: i32) -> String {
    match signal {
        2 => "SIGINT".into(),
        15 => "SIGTERM".into(),
        n => format!("signal {n}"),
    }
}

#[cfg(unix)]
extern "C" fn on_signal(signal: libc::c_int) {
    // A store to an atomic is all a signal handler may safely do here.
    REQUESTED.store(signal, Ordering::Relaxed);
}

/// Makes `SIGINT` and `SIGTERM` ask for a stop ([`request`]) instead of
/// ending the process at once; a second one of either ends it at once
/// (the handler is reset as it runs). A signal the process was started
/// with ignored (a background job of a shell without job control ignores
/// `SIGINT`) stays ignored. For a program, once the work a signal should
/// end at once (building a large network, before any file is begun) is
/// done and before its runs start; on other systems than Unix it does
/// nothing.
pub fn catch_signals() {
    #[cfg(unix)]
    for signal in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: `sigaction` with a zeroed, then filled, action; the
        // handler only stores to an atomic, which is async-signal-safe.
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(signal, std::ptr::null(), &mut old) != 0
                || old.sa_sigaction == libc::SIG_IGN
            {
                continue;
            }
            let mut act: libc::sigaction = std::mem::zeroed();
            act.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            act.sa_flags = libc::SA_RESETHAND | libc::SA_RESTART;
            libc::sigemptyset(&mut act.sa_mask);
            libc::sigaction(signal, &act, std::ptr::null_mut());
        }
    }
}

/// Lets output to a closed pipe (`wormcast reach net.toml | head -1`) end
/// the process quietly, as other command-line tools do, instead of failing
/// a print: restores `SIGPIPE`'s default action, which Rust's runtime sets
/// to ignore. For a program's `main`, before any thread starts; on other
/// systems than Unix it does nothing.
pub fn quiet_on_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: restores the default action of one signal; nothing else is
    // touched.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Ends the process by `signal`, its default action, so that the shell or
/// batch system that started it sees it ended by that signal (as it would
/// have without [`catch_signals`]): for a program's `main` once a stopped
/// run has finished its files. Returns only where the signal does not end
/// the process.
pub fn end_by(signal: i32) {
    #[cfg(unix)]
    // SAFETY: restores a signal's default action and raises it.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        libc::raise(signal);
    }
    #[cfg(not(unix))]
    let _ = signal;
}

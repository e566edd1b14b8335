//! `wormcast wave`: read, convert, check and compare waveforms (VCD, FST, GHW).

use super::*;

#[derive(Subcommand)]
pub(crate) enum WaveCmd {
    /// Write a waveform of any format (VCD, FST or GHW) as VCD, to standard
    /// output or a file: the scopes, variables and values wormcast reads
    /// from it.
    ToVcd {
        /// The waveform (`-`: standard input; a pipe is read as it comes).
        file: PathBuf,
        /// Write here instead of standard output.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Stop with an error past this much memory (MiB): for files from
        /// elsewhere (wormcast reads GHW files this way).
        #[arg(long)]
        max_memory_mib: Option<u64>,
        /// Stop past this much processor time (seconds): the signal
        /// SIGXCPU, and SIGKILL five seconds later should it be ignored.
        #[arg(long)]
        max_cpu_seconds: Option<u64>,
    },
    /// Compare two waveforms (VCD, FST or GHW, in any mix) signal by
    /// signal, on times or on clock edges. Every signal is accounted for: a
    /// signal in one waveform only is a difference unless --ignore names
    /// it. Exit status 1 on a difference.
    Diff {
        /// The reference waveform (`-`: standard input, for one of the two).
        a: PathBuf,
        /// The waveform to check (`-`: standard input).
        b: PathBuf,
        /// Compare on the rising edges of this clock (each file's own) and
        /// report cycles; without it, compare at every time either changes.
        #[arg(long)]
        clock: Option<String>,
        /// Leave these signals out (comma-separated relative names; `*`
        /// matches any text).
        #[arg(long, value_delimiter = ',')]
        ignore: Vec<String>,
        /// Compare the signals under this scope of `a` (names relative to it).
        #[arg(long)]
        scope: Option<String>,
        /// The scope in `b` (default: `--scope`; "" for the whole file).
        #[arg(long)]
        scope_b: Option<String>,
        /// Names in `b` that differ from `a`'s, and reversed bit orders.
        #[arg(long)]
        map: Option<PathBuf>,
        /// Only these signals (comma-separated, relative names in `a`).
        #[arg(long, value_delimiter = ',')]
        signals: Vec<String>,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
}

pub(crate) fn parse_param(s: &str) -> std::result::Result<(String, u32), String> {
    let (n, v) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` is not NAME=VALUE"))?;
    let v = v
        .parse()
        .map_err(|_| format!("`{v}` is not a whole number"))?;
    Ok((n.to_string(), v))
}

/// Bounds this process's memory and processor time (Unix only: elsewhere
/// asking for a bound is an error). A process stopped at a bound leaves no
/// core file, and each bound ends it in a way of its own: past the memory,
/// an allocation fails (the message "memory allocation of N bytes failed"
/// and SIGABRT); past the processor time, SIGXCPU. A SIGKILL is then
/// neither bound but the kernel's out-of-memory killer or a user.
pub(crate) fn limit_self(mib: Option<u64>, seconds: Option<u64>) -> Result<()> {
    #[cfg(unix)]
    {
        let fail = |name: &'static str, v: u64| Error::Config {
            field: name,
            value: v.to_string(),
            reason: std::io::Error::last_os_error().to_string(),
        };
        let lim = |v: u64| libc::rlimit {
            rlim_cur: v as libc::rlim_t,
            rlim_max: v as libc::rlim_t,
        };
        if mib.is_some() || seconds.is_some() {
            // SAFETY: setrlimit reads the struct given and changes only
            // this process's limits. Lowering a limit does not fail.
            unsafe { libc::setrlimit(libc::RLIMIT_CORE, &lim(0)) };
        }
        if let Some(m) = mib {
            // SAFETY: setrlimit reads the struct given and changes only
            // this process's limits.
            if unsafe { libc::setrlimit(libc::RLIMIT_AS, &lim(m.saturating_mul(1 << 20))) } != 0 {
                return Err(fail("max-memory-mib", m));
            }
        }
        if let Some(s) = seconds {
            // At the hard limit the kernel sends SIGKILL, as a control
            // group out of memory does: it is set past the soft one, at
            // which SIGXCPU tells the bound.
            let cpu = libc::rlimit {
                rlim_cur: s as libc::rlim_t,
                rlim_max: s.saturating_add(5) as libc::rlim_t,
            };
            // SAFETY: as above.
            if unsafe { libc::setrlimit(libc::RLIMIT_CPU, &cpu) } != 0 {
                return Err(fail("max-cpu-seconds", s));
            }
        }
        Ok(())
    }
    #[cfg(not(unix))]
    {
        if mib.is_some() || seconds.is_some() {
            return Err(Error::Config {
                field: "max-memory-mib",
                value: String::new(),
                reason: "process limits are only set on Unix".into(),
            });
        }
        Ok(())
    }
}

/// A waveform of any format; GHW files are read in a child process (see
/// `wormcast::wave::open_isolated`), so that no file can crash this one.
pub(crate) fn open_wave(path: &Path) -> Result<WaveReader> {
    match std::env::current_exe() {
        Ok(exe) => wormcast::wave::open_isolated(path, &exe),
        Err(_) => WaveReader::open(path),
    }
}

/// A comparison's report (`wave diff`, `cosim`), as text or JSON, on
/// standard output; whether the two agreed.
pub(crate) fn report(r: &CompareReport, json: bool) -> Result<bool> {
    if json {
        say!("{}", serde_json::to_string_pretty(r)?);
    } else {
        say!("{r}");
    }
    Ok(r.ok())
}

pub(crate) fn wave(cmd: WaveCmd) -> Result<bool> {
    match cmd {
        WaveCmd::ToVcd {
            file,
            output,
            max_memory_mib,
            max_cpu_seconds,
        } => {
            limit_self(max_memory_mib, max_cpu_seconds)?;
            if let Some(o) = &output {
                wormcast::wave::check_not_input("output", o, [file.as_path()])?;
            }
            let mut r = WaveReader::open(&file)?;
            match output {
                Some(o) => {
                    let f = std::fs::File::create(&o).map_err(|e| Error::io(&o, e))?;
                    let mut w = std::io::BufWriter::new(f);
                    wormcast::wave::write_vcd_named(&mut r, &mut w, &o)?;
                }
                None => {
                    let mut w = std::io::BufWriter::new(std::io::stdout().lock());
                    let name = std::path::Path::new("standard output");
                    wormcast::wave::write_vcd_named(&mut r, &mut w, name)?;
                }
            }
            Ok(true)
        }
        WaveCmd::Diff {
            a,
            b,
            scope,
            scope_b,
            map,
            signals,
            clock,
            ignore,
            json,
        } => {
            let map = match &map {
                Some(p) => SignalMap::load(p)?,
                None => SignalMap::identity(),
            };
            let o = DiffOptions {
                scope_a: scope,
                scope_b,
                map,
                signals,
                ignore,
                clock,
            };
            let rep = wormcast::wave::diff_files(&a, &b, &o, open_wave)?;
            report(&rep, json)
        }
    }
}

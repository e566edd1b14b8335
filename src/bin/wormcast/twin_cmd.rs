//! `wormcast vectors` and `wormcast cosim`: stimulus for the Verilog twins of
//! the switch units and the comparison of their waveforms with the model's.

use super::*;

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum UnitArg {
    /// The bit-string decode unit.
    BitstringDecode,
    /// The SSR / multi-drop decode unit.
    SsrMdDecode,
    /// The input buffer with chunk reference counts.
    ReplBuffer,
}

impl UnitArg {
    fn unit(self) -> Unit {
        match self {
            UnitArg::BitstringDecode => Unit::BitStringDecode,
            UnitArg::SsrMdDecode => Unit::SsrMdDecode,
            UnitArg::ReplBuffer => Unit::ReplBuffer,
        }
    }
}

#[derive(clap::Args)]
pub(crate) struct VectorArgs {
    /// The unit.
    #[arg(long, value_enum)]
    pub(crate) unit: UnitArg,
    /// Clock edges of stimulus (1 to 2^31 - 1; written as they are made,
    /// so any number takes constant memory).
    #[arg(long, default_value_t = 5000)]
    pub(crate) cycles: u64,
    /// Seed of the stimulus.
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    /// N: nodes (bit-string decode).
    #[arg(long, default_value_t = 16)]
    pub(crate) nodes: u32,
    /// P: ports (decode units) or readers (buffer).
    #[arg(long, default_value_t = 6)]
    pub(crate) ports: u32,
    /// S: switches (SSR / multi-drop decode).
    #[arg(long, default_value_t = 8)]
    pub(crate) switches: u32,
    /// C: chunks (buffer).
    #[arg(long, default_value_t = 16)]
    pub(crate) chunks: u32,
    /// K: flits per chunk (buffer).
    #[arg(long, default_value_t = 4)]
    pub(crate) chunk_flits: u32,
    /// Output file (`.hex`); the defines go to the same name with `.vh`.
    #[arg(short, long)]
    pub(crate) output: PathBuf,
    /// Also write the model's own waveform of these vectors (scope
    /// `tb.dut`, a 10 ns clock) and a `.gtkw` beside it: what the Verilog's
    /// dump should show (`-`: VCD to standard output).
    #[arg(long)]
    pub(crate) model_vcd: Option<PathBuf>,
}

#[derive(clap::Args)]
pub(crate) struct CosimArgs {
    /// The testbench's waveform (VCD, FST or GHW; `-`: standard input).
    #[arg(long, visible_alias = "wave")]
    pub(crate) vcd: PathBuf,
    /// The unit.
    #[arg(long, value_enum)]
    pub(crate) unit: UnitArg,
    /// The unit instance's scope (a unique suffix is enough).
    #[arg(long)]
    pub(crate) scope: String,
    /// The clock (default: `clk` in the scope or the nearest scope above).
    #[arg(long)]
    pub(crate) clock: Option<String>,
    /// Foreign signal names and bit orders (TOML).
    #[arg(long)]
    pub(crate) map: Option<PathBuf>,
    /// A unit parameter, NAME=VALUE (for sizes the port widths do not
    /// tell, such as the buffer's C and K).
    #[arg(long = "param", value_parser = parse_param)]
    pub(crate) params: Vec<(String, u32)>,
    /// Fail (exit 1) if the waveform yields fewer compared cycles than
    /// this: a dump cut short.
    #[arg(long)]
    pub(crate) expect_cycles: Option<u64>,
    /// Print one JSON object.
    #[arg(long)]
    pub(crate) json: bool,
}

pub(crate) fn vectors(a: &VectorArgs) -> Result<()> {
    let unit = a.unit.unit();
    let p = Params {
        nodes: a.nodes,
        ports: a.ports,
        switches: a.switches,
        chunks: a.chunks,
        chunk_flits: a.chunk_flits,
    };
    let cycles = wormcast::switch::twin::check_cycles(a.cycles)?;
    if let Some(m) = &a.model_vcd {
        // The model's waveform is made after the vectors: over them it
        // would leave a VCD where the testbench reads vectors or defines.
        let same = |b: &Path| {
            let (x, y) = (std::path::absolute(m), std::path::absolute(b));
            matches!((x, y), (Ok(x), Ok(y)) if x == y) || wormcast::wave::is_same_file(m, b)
        };
        if let Some(o) = [a.output.clone(), a.output.with_extension("vh")]
            .into_iter()
            .find(|o| same(o))
        {
            return Err(Error::Config {
                field: "model-vcd",
                value: m.display().to_string(),
                reason: format!(
                    "the vectors go to {}: give the model's waveform another path",
                    o.display()
                ),
            });
        }
    }
    let mut twin = unit.build(&p)?;
    let n = write_vectors(
        &a.output,
        twin.as_ref(),
        &unit.verilog_params(&p),
        unit.stimulus(&p, a.seed)?.take(cycles),
    )?;
    if let Some(path) = &a.model_vcd {
        let mut w = wave_sink(
            path,
            &format!(
                "wormcast model of the {} unit, {n} vectors, seed {}",
                unit.name(),
                a.seed
            ),
        )?;
        trace(
            twin.as_mut(),
            unit.stimulus(&p, a.seed)?.take(cycles),
            10_000,
            w.as_mut(),
        )?;
        drop(w);
        let h = wormcast::switch::twin::hierarchy(twin.as_ref());
        crate::views(path, &h)?;
    }
    eprintln!(
        "{n} vectors for the {} unit ({}) written to {} and {}",
        unit.name(),
        unit.verilog_params(&p)
            .iter()
            .map(|(n, v)| format!("{n} = {v}"))
            .collect::<Vec<_>>()
            .join(", "),
        a.output.display(),
        a.output.with_extension("vh").display()
    );
    Ok(())
}

pub(crate) fn cosim_cmd(a: &CosimArgs) -> Result<bool> {
    let map = match &a.map {
        Some(p) => SignalMap::load(p)?,
        None => SignalMap::identity(),
    };
    let o = CosimOptions {
        unit: a.unit.unit(),
        scope: a.scope.clone(),
        clock: a.clock.clone(),
        map,
        params: a.params.clone(),
        expect_cycles: a.expect_cycles,
    };
    let mut r = open_wave(&a.vcd)?;
    let rep = cosim(&mut r, &o).map_err(|e| match e {
        e @ wormcast::Error::InFile { .. } => e,
        e => e.in_file(&a.vcd),
    })?;
    report(&rep, a.json)
}

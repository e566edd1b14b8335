//! `wormcast mesh3d experiment`: seed 002's experiments (TP against SP).

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use wormcast::Result;
use wormcast::experiment::mesh::{MeshOptions, points, run as run_points, write_outputs};

#[derive(Args)]
pub struct MeshExpArgs {
    /// Output directory for the CSV files and plots.
    #[arg(long, default_value = "experiments")]
    out: PathBuf,
    /// Fewer points and cycles.
    #[arg(long)]
    quick: bool,
    /// Cycles with traffic per point.
    #[arg(long)]
    cycles: Option<u64>,
    /// Cycles before latencies count.
    #[arg(long)]
    warmup: Option<u64>,
    /// Seed of the traffic.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

pub fn run(a: &MeshExpArgs) -> Result<()> {
    let mut o = MeshOptions::new(a.quick);
    o.cycles = a.cycles.unwrap_or(o.cycles);
    o.warmup = a.warmup.unwrap_or(o.warmup);
    o.seed = a.seed;
    let bar = ProgressBar::new(points(a.quick) as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} points, {elapsed} elapsed, eta {eta}")
            .expect("a valid template"),
    );
    let pts = run_points(&o, &|| bar.inc(1))?;
    bar.finish_and_clear();
    write_outputs(&pts, &a.out)?;
    println!(
        "{} points ({} cycles, warm-up {}): {}",
        pts.len(),
        o.cycles,
        o.warmup,
        ["mesh_load", "mesh_dests"]
            .iter()
            .map(|f| a.out.join(format!("{f}.csv")).display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(())
}

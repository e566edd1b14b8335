//! `wormcast topo`: generate and inspect irregular topologies (seed 000
//! section 6).

use super::*;

#[derive(Subcommand)]
pub(crate) enum TopoCmd {
    /// Generate a random irregular topology (seed 000 section 6.3).
    Gen {
        /// Number of switches.
        #[arg(long, default_value_t = 8)]
        switches: u32,
        /// Ports per switch.
        #[arg(long, default_value_t = 8)]
        ports: u32,
        /// Number of nodes.
        #[arg(long, default_value_t = 32)]
        nodes: u32,
        /// Fraction of the non-node ports wired to other switches.
        #[arg(long, default_value_t = 0.8)]
        connectivity: f64,
        /// Generator seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Output file (standard output if absent).
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Show levels, up/down link ends and a routing summary.
    Show {
        /// The topology file (TOML, or a BookSim anynet file).
        file: PathBuf,
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// Print the topology itself, checked, as a TOML topology file (a
        /// BookSim anynet file converted, its ports in BookSim's order).
        #[arg(long, conflicts_with = "json")]
        toml: bool,
        /// Print the topology, checked, as a BookSim anynet file (BookSim
        /// numbers the ports itself: a router's nodes first, then its
        /// neighbours, each by id).
        #[arg(long, conflicts_with_all = ["json", "toml"])]
        anynet: bool,
    },
}

pub(crate) fn topo(cmd: TopoCmd) -> Result<()> {
    match cmd {
        TopoCmd::Gen {
            switches,
            ports,
            nodes,
            connectivity,
            seed,
            output,
        } => {
            let p = IrregularParams {
                switches,
                ports,
                nodes,
                connectivity,
                seed,
            };
            let t = p.generate()?;
            let comment = format!(
                "wormcast topo gen --switches {switches} --ports {ports} --nodes {nodes} --connectivity {connectivity} --seed {seed}\n\
                 {} switches, {} nodes, {} links",
                t.switches.len(),
                t.nodes.len(),
                t.links.len()
            );
            match output {
                Some(path) => t.save(&path, &comment),
                None => {
                    let mut w = std::io::BufWriter::new(std::io::stdout().lock());
                    t.write_toml(&mut w, &comment)
                        .and_then(|()| std::io::Write::flush(&mut w))
                        .map_err(|source| Error::Io {
                            path: "standard output".into(),
                            source,
                        })
                }
            }
        }
        TopoCmd::Show {
            file, anynet: true, ..
        } => {
            let (t, _) = checked(&file)?;
            let text =
                wormcast::net::booksim::to_anynet_string(&t).map_err(|e| e.in_file(&file))?;
            say_part!("{text}");
            Ok(())
        }
        TopoCmd::Show {
            file, toml: true, ..
        } => {
            let (t, net) = checked(&file)?;
            say!(
                "# {}: {} switches, {} nodes, {} links\n\n{}",
                file.display(),
                net.num_switches(),
                net.num_nodes(),
                t.links.len(),
                t.to_toml_string().trim_end()
            );
            Ok(())
        }
        TopoCmd::Show { file, json, .. } => {
            let net = Network::load(&file)?;
            let s = summarize(&net);
            if json {
                println!("{}", serde_json::to_string_pretty(&s)?);
            } else {
                print!("{}", s.to_text());
            }
            Ok(())
        }
    }
}

/// A topology file as written, and the network it passed every check as
/// ([`Network::load`], keeping the entries it was built from).
fn checked(file: &Path) -> Result<(wormcast::net::Topology, Network)> {
    let t = wormcast::net::Topology::load(file)?;
    let net = Network::new(&t).map_err(|e| e.in_file(file))?;
    Ok((t, net))
}

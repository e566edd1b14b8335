//! `wormcast reach`: the bit-string reachability strings of every switch (seed 000 Fig. 18).

use super::*;
use std::io::Write as _;

pub(crate) fn reach(file: &Path, json: bool) -> Result<()> {
    let net = Network::load(file)?;
    let ud = UpDown::new(&net);
    let r = Reachability::new(&net, &ud);
    // A switch at a time: the text of a large network (a character a node
    // for every down port of every switch) is far larger than its strings.
    let out = std::io::stdout();
    let mut w = std::io::BufWriter::new(out.lock());
    if json {
        let all = Switches(&r, &ud);
        serde_json::to_writer_pretty(&mut w, &all)?;
        writeln!(w).map_err(stdout_error)?;
    } else {
        writeln!(w, "strings are node 0 first").map_err(stdout_error)?;
        for s in 0..r.switches() {
            let s = r.describe(&ud, s);
            writeln!(
                w,
                "switch {} (level {}): total {}",
                s.switch, s.level, s.total
            )
            .map_err(stdout_error)?;
            for p in &s.down_ports {
                writeln!(w, "  down port {:>2}: {}", p.port, p.restricted).map_err(stdout_error)?;
            }
        }
    }
    w.flush().map_err(stdout_error)
}

/// Every switch's strings as a JSON array, made as it is written.
struct Switches<'a>(&'a Reachability, &'a UpDown);

impl serde::Serialize for Switches<'_> {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> std::result::Result<S::Ok, S::Error> {
        ser.collect_seq((0..self.0.switches()).map(|s| self.0.describe(self.1, s)))
    }
}

fn stdout_error(e: std::io::Error) -> Error {
    Error::io(Path::new("standard output"), e)
}

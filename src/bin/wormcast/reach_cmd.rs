//! `wormcast reach`: the bit-string reachability strings of every switch (seed 000 Fig. 18).

use super::*;

pub(crate) fn reach(file: &Path, json: bool) -> Result<()> {
    let net = Network::load(file)?;
    let ud = UpDown::new(&net);
    let r = Reachability::new(&net, &ud).summary(&ud);
    if json {
        println!("{}", serde_json::to_string_pretty(&r)?);
        return Ok(());
    }
    println!("strings are node 0 first");
    for s in &r {
        println!("switch {} (level {}): total {}", s.switch, s.level, s.total);
        for p in &s.down_ports {
            println!("  down port {:>2}: {}", p.port, p.restricted);
        }
    }
    Ok(())
}

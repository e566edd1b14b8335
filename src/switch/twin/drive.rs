//! A unit with a Verilog twin driven port by port, one rising clock edge
//! per call: what a testbench's scoreboard holds next to the device under
//! test (cocotb through the Python package, SystemVerilog through DPI-C).
//!
//! Inputs are named as the Verilog module names them and hold their value
//! until set again, like the registers a testbench drives (all 0 at the
//! start); [`Driver::step`] is one rising edge of `clk`: the twin samples
//! every input and registers every output (seed 000 sections 3.4.2, 5.2.3
//! and 5.3.3, as the units of [`super`] model them). A name the unit does
//! not have, an output given as an input, or a value wider than its port is
//! refused with an error that names the port and what it holds.

use super::{Dir, Params, Port, Twin, Unit};
use crate::error::counted;
use crate::rtl::BitString;
use crate::{Error, Result};

/// What a refusal of a value wider than its port says, after the unit's
/// name: `dests is 16 bits wide; the value given needs 17 bits` (`needs`:
/// the value's length in bits, up to its highest bit set). The Python
/// package says the same of a Python int.
pub fn too_wide(port: &str, width: u32, needs: u64) -> String {
    format!(
        "{port} is {} wide; the value given needs {}",
        counted(width.into(), "bits"),
        counted(needs, "bits")
    )
}

/// A unit driven by its port names.
pub struct Driver {
    unit: Unit,
    params: Params,
    twin: Box<dyn Twin>,
    ports: Vec<Port>,
    /// Index into `ins` or `outs` per port, in port order.
    slot: Vec<usize>,
    ins: Vec<BitString>,
    outs: Vec<BitString>,
    edges: u64,
}

impl Driver {
    /// The model of `unit` with sizes `params` (checked as
    /// [`Unit::check`] does), every input 0, every output 0.
    pub fn new(unit: Unit, params: &Params) -> Result<Driver> {
        let twin = unit.build(params)?;
        let ports = twin.ports().to_vec();
        let (mut ni, mut no) = (0, 0);
        let mut slot = Vec::with_capacity(ports.len());
        for p in &ports {
            match p.dir {
                Dir::In => {
                    slot.push(ni);
                    ni += 1;
                }
                Dir::Out => {
                    slot.push(no);
                    no += 1;
                }
            }
        }
        let zeros = |d: Dir| -> Vec<BitString> {
            ports
                .iter()
                .filter(|p| p.dir == d)
                .map(|p| BitString::zeros(p.width as usize))
                .collect()
        };
        Ok(Driver {
            unit,
            params: *params,
            ins: zeros(Dir::In),
            outs: zeros(Dir::Out),
            twin,
            ports,
            slot,
            edges: 0,
        })
    }

    /// The unit.
    pub fn unit(&self) -> Unit {
        self.unit
    }

    /// Its sizes.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// Every port (the clock is implicit), in Verilog declaration order.
    pub fn ports(&self) -> &[Port] {
        &self.ports
    }

    /// Rising edges taken since the driver was made.
    pub fn edges(&self) -> u64 {
        self.edges
    }

    fn error(&self, what: String) -> Error {
        Error::Port {
            unit: self.unit.name(),
            what,
        }
    }

    fn names(&self, dir: Dir) -> String {
        let v: Vec<&str> = self
            .ports
            .iter()
            .filter(|p| p.dir == dir)
            .map(|p| p.name)
            .collect();
        v.join(", ")
    }

    /// The index of port `name` among the ports, which must go `dir`.
    pub fn port_index(&self, name: &str, dir: Dir) -> Result<usize> {
        let Some(k) = self.ports.iter().position(|p| p.name == name) else {
            let kind = match dir {
                Dir::In => "inputs",
                Dir::Out => "outputs",
            };
            return Err(self.error(format!(
                "no port `{name}`; its {kind} are {}",
                self.names(dir)
            )));
        };
        if self.ports[k].dir != dir {
            let (is, want) = match dir {
                Dir::In => ("an output", "inputs"),
                Dir::Out => ("an input", "outputs"),
            };
            return Err(self.error(format!(
                "`{name}` is {is}; its {want} are {}",
                self.names(dir)
            )));
        }
        Ok(k)
    }

    /// Sets input `port` (an index from [`port_index`](Self::port_index))
    /// from 64-bit words, least significant first; it holds the value until
    /// set again.
    pub fn set_index(&mut self, port: usize, words: &[u64]) -> Result<()> {
        self.check_index(port, words)?;
        let slot = self.slot[port];
        self.ins[slot]
            .set_words(words)
            .expect("checked against the port's width");
        Ok(())
    }

    /// Checks that `words` fit input `port` (an index from
    /// [`port_index`](Self::port_index)), changing nothing.
    pub fn check_index(&self, port: usize, words: &[u64]) -> Result<()> {
        let p = &self.ports[port];
        debug_assert_eq!(p.dir, Dir::In);
        BitString::fits(p.width as usize, words).map_err(|_| {
            let needs = words.iter().rposition(|&w| w != 0).map_or(0, |k| {
                64 * k as u64 + 64 - u64::from(words[k].leading_zeros())
            });
            self.error(too_wide(p.name, p.width, needs))
        })
    }

    /// Sets input `name` from 64-bit words, least significant first.
    pub fn set(&mut self, name: &str, words: &[u64]) -> Result<()> {
        let k = self.port_index(name, Dir::In)?;
        self.set_index(k, words)
    }

    /// The value input `name` holds.
    pub fn input(&self, name: &str) -> Result<&BitString> {
        let k = self.port_index(name, Dir::In)?;
        Ok(&self.ins[self.slot[k]])
    }

    /// One rising edge: every input sampled, every output registered.
    pub fn step(&mut self) {
        self.twin.edge(&self.ins, &mut self.outs);
        self.edges += 1;
    }

    /// Output `name` as registered at the last edge (0 before the first).
    pub fn output(&self, name: &str) -> Result<&BitString> {
        let k = self.port_index(name, Dir::Out)?;
        Ok(&self.outs[self.slot[k]])
    }

    /// Output port `port` (an index from [`port_index`](Self::port_index)).
    pub fn output_index(&self, port: usize) -> &BitString {
        debug_assert_eq!(self.ports[port].dir, Dir::Out);
        &self.outs[self.slot[port]]
    }

    /// Every output, in port order, as registered at the last edge.
    pub fn outputs(&self) -> &[BitString] {
        &self.outs
    }

    /// Every input, in port order, as it is held now.
    pub fn inputs(&self) -> &[BitString] {
        &self.ins
    }

    /// Sets every input at once, in port order (a vector of
    /// [`Unit::stimulus`]).
    pub fn set_all(&mut self, inputs: &[BitString]) -> Result<()> {
        if inputs.len() != self.ins.len() {
            return Err(self.error(format!(
                "{} input values given; it has {} inputs ({})",
                inputs.len(),
                self.ins.len(),
                self.names(Dir::In)
            )));
        }
        for (k, v) in inputs.iter().enumerate() {
            if v.len() != self.ins[k].len() {
                let p = self.ports.iter().filter(|p| p.dir == Dir::In).nth(k);
                let name = p.map_or("?", |p| p.name);
                return Err(self.error(format!(
                    "{name} is {} wide; a value of {} given",
                    counted(self.ins[k].len() as u64, "bits"),
                    counted(v.len() as u64, "bits")
                )));
            }
        }
        for (d, v) in self.ins.iter_mut().zip(inputs) {
            d.copy_from(v);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_driven_unit_matches_the_twin_fed_by_vectors() {
        let p = Params::default();
        for unit in Unit::ALL {
            let vectors = unit.vectors(&p, 400, 11).unwrap();
            let mut twin = unit.build(&p).unwrap();
            let mut outs: Vec<BitString> = twin
                .ports()
                .iter()
                .filter(|q| q.dir == Dir::Out)
                .map(|q| BitString::zeros(q.width as usize))
                .collect();
            let mut d = Driver::new(unit, &p).unwrap();
            let ins: Vec<Port> = d
                .ports()
                .iter()
                .filter(|q| q.dir == Dir::In)
                .cloned()
                .collect();
            for (c, v) in vectors.iter().enumerate() {
                // By name through the words on even edges, all at once on
                // odd ones.
                if c % 2 == 0 {
                    for (k, q) in ins.iter().enumerate() {
                        d.set(q.name, v[k].words()).unwrap();
                    }
                } else {
                    d.set_all(v).unwrap();
                }
                assert_eq!(d.inputs(), &v[..]);
                d.step();
                twin.edge(v, &mut outs);
                assert_eq!(d.outputs(), &outs[..], "{} edge {c}", unit.name());
            }
            assert_eq!(d.edges(), 400);
        }
    }

    #[test]
    fn bad_names_and_values_are_refused_by_name() {
        let mut d = Driver::new(Unit::BitStringDecode, &Params::default()).unwrap();
        let e = d.set("dest", &[1]).unwrap_err().to_string();
        assert_eq!(
            e,
            "bitstring-decode: no port `dest`; its inputs are rst, hdr_valid, ud_in, dests, total, restricted, up_ports"
        );
        let e = d.set("valid", &[1]).unwrap_err().to_string();
        assert!(e.contains("`valid` is an output"), "{e}");
        let e = d.set("dests", &[1 << 16]).unwrap_err().to_string();
        assert_eq!(
            e,
            "bitstring-decode: dests is 16 bits wide; the value given needs 17 bits"
        );
        let e = d.set("restricted", &[0, 1 << 32]).unwrap_err().to_string();
        assert!(
            e.contains("restricted is 96 bits wide; the value given needs 97 bits"),
            "{e}"
        );
        d.set("restricted", &[u64::MAX, u32::MAX as u64]).unwrap();
        assert_eq!(d.input("restricted").unwrap().count_ones(), 96);
        let e = d.output("dests").unwrap_err().to_string();
        assert!(
            e.contains("`dests` is an input; its outputs are valid, err"),
            "{e}"
        );
    }
}

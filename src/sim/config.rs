//! Simulation parameters, with the defaults of seed 000 section 6.2.

use crate::header::{Formats, Kind};
use crate::net::toml_error;
use crate::ni::NiParams;
use crate::rtl::HandOver;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Parameters of the simulated hardware and of the run. Every field has a
/// documented default; unknown fields in a TOML file are errors.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SimConfig {
    /// Clock period in nanoseconds (5 ns).
    pub cycle_ns: f64,
    /// Switch input buffer per port, in flits (640). Must be a multiple of
    /// `chunk_flits` and larger than the largest packet.
    pub buffer_flits: u32,
    /// Chunk size of the input buffers, in flits (8).
    pub chunk_flits: u32,
    /// Receive buffer of a traffic endpoint, in flits (640). The endpoint
    /// drains it at link rate.
    pub endpoint_buffer_flits: u32,
    /// The watchdog looks at places where nothing has moved for this many
    /// cycles (20,000): it reports a deadlock when their waits form a cycle
    /// that nothing live leads out of, and otherwise notes the longest wait
    /// and lets the run go on (docs/switch.md).
    pub watchdog_cycles: u64,
    /// Packets a source queue holds before newly generated packets are
    /// refused and counted (65,536); this bounds memory past saturation.
    pub source_queue_packets: u32,
    /// Seed of the traffic generators (1).
    pub seed: u64,
    /// Keep a record of every delivered packet (off).
    pub record_deliveries: bool,
    /// Check every hop against the up*/down* rule and stop with a fault on
    /// a violation (on). Turn off only to study other routing tables, which
    /// may deadlock.
    pub check_updown: bool,
    /// What sits at each node: `endpoint`, a traffic endpoint, or `ni`, a
    /// host with a network interface (seed 000 section 3.1).
    pub node_model: NodeModel,
    /// Hosts and network interfaces (with `node_model = "ni"`).
    pub ni: NiParams,
    /// Threads that evaluate the switches and nodes (1, at most 256): the
    /// switches are cut into ranges of 64 or more, each with its nodes, and
    /// a run gives the same results for any count (docs/engine.md). A
    /// network too small for that many ranges runs on fewer
    /// ([`System::threads`](super::System::threads)). A traced network
    /// writes the same waveform on any count (sampled on the calling
    /// thread between cycles); one evaluated in a shuffled order takes
    /// one thread alone.
    pub threads: usize,
    /// On several threads, which cycles are handed to the other threads
    /// ([`HandOver::Busy`]: those that hold enough work; the calling
    /// thread runs the others alone). The results are the same either way.
    pub hand_over: HandOver,
}

/// What sits at each node.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NodeModel {
    /// Traffic endpoints that inject and consume at link rate.
    #[default]
    Endpoint,
    /// Hosts with network interfaces: DMA engines, an NI processor,
    /// host and NI overheads, smart-NI multicast.
    Ni,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            cycle_ns: 5.0,
            buffer_flits: 640,
            chunk_flits: 8,
            endpoint_buffer_flits: 640,
            watchdog_cycles: 20_000,
            source_queue_packets: 65_536,
            seed: 1,
            record_deliveries: false,
            check_updown: true,
            node_model: NodeModel::Endpoint,
            ni: NiParams::default(),
            threads: 1,
            hand_over: HandOver::Busy,
        }
    }
}

impl SimConfig {
    /// True when `text` is TOML whose every key is a field of the
    /// switch's configuration (a file of them alone, as `run --config`
    /// accepts besides a run configuration); an error names the line and
    /// column of a syntax error, such as an integer beyond TOML's 64-bit
    /// range.
    pub fn is_own_file(text: &str) -> Result<bool> {
        let t: toml::Table = toml::from_str(text).map_err(|e| toml_error(text, e))?;
        let own = toml::Table::try_from(SimConfig::default()).unwrap_or_default();
        Ok(!t.is_empty() && t.keys().all(|k| own.contains_key(k)))
    }

    /// Parses a configuration from TOML (missing fields take their defaults).
    pub fn from_toml_str(text: &str) -> Result<SimConfig> {
        let c: SimConfig = toml::from_str(text).map_err(|e| toml_error(text, e))?;
        c.validate()?;
        Ok(c)
    }

    /// Reads a configuration file.
    pub fn load(path: impl AsRef<Path>) -> Result<SimConfig> {
        crate::error::load_text(path.as_ref(), SimConfig::from_toml_str)
    }

    /// The clock period in picoseconds.
    pub fn cycle_ps(&self) -> u64 {
        (self.cycle_ns * 1000.0).round() as u64
    }

    /// Checks every field's range.
    pub fn validate(&self) -> Result<()> {
        if !(self.cycle_ns.is_finite() && self.cycle_ns > 0.0)
            || self.cycle_ps() == 0
            || self.cycle_ns > 1e9
        {
            return Err(Error::config(
                "cycle_ns",
                self.cycle_ns,
                "must be a clock period from 1 ps to 1 s",
            ));
        }
        if !(1..=255).contains(&self.chunk_flits) {
            return Err(Error::config(
                "chunk_flits",
                self.chunk_flits,
                "must be 1 to 255",
            ));
        }
        for (field, v) in [
            ("buffer_flits", self.buffer_flits),
            ("endpoint_buffer_flits", self.endpoint_buffer_flits),
        ] {
            if v == 0 || v % self.chunk_flits != 0 {
                return Err(Error::config(
                    field,
                    v,
                    format!(
                        "must be a positive multiple of chunk_flits ({})",
                        self.chunk_flits
                    ),
                ));
            }
            if v / self.chunk_flits >= u16::MAX as u32 {
                return Err(Error::config(field, v, "must hold fewer than 65535 chunks"));
            }
        }
        if self.watchdog_cycles == 0 {
            return Err(Error::config("watchdog_cycles", 0, "must be positive"));
        }
        if self.source_queue_packets == 0 {
            return Err(Error::config("source_queue_packets", 0, "must be positive"));
        }
        let most = crate::rtl::crew::MAX_THREADS;
        if !(1..=most).contains(&self.threads) {
            return Err(Error::config(
                "threads",
                self.threads,
                format!("1 to {most} threads"),
            ));
        }
        Ok(())
    }

    /// Checks that a packet of `flits` flits can be carried: the input
    /// buffers must be larger than the largest packet (seed 000 section 3.4.2).
    pub fn check_packet(&self, flits: u32) -> Result<()> {
        if flits >= self.buffer_flits {
            return Err(Error::BufferTooSmall {
                buffer_flits: self.buffer_flits,
                packet_flits: flits,
            });
        }
        if flits > u16::MAX as u32 {
            return Err(Error::BadPacket(format!(
                "{flits} flits; a packet has at most 65535"
            )));
        }
        Ok(())
    }
}

/// The traffic the endpoints generate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "pattern", rename_all = "lowercase", deny_unknown_fields)]
pub enum Traffic {
    /// No generated traffic (packets are injected by hand with
    /// [`System::inject`](super::System::inject) and
    /// [`System::inject_worm`](super::System::inject_worm)).
    Idle,
    /// Every node generates packets as a Bernoulli process of `load` flits
    /// per node per cycle, each to a destination drawn uniformly among the
    /// other nodes.
    Uniform {
        /// Offered load, flits/node/cycle (0 to 1).
        load: f64,
        /// Packet length in flits, header included.
        packet_flits: u32,
    },
    /// Every node generates multidestination worms as a Bernoulli process
    /// of `load` flits per node per cycle, each to `degree` destinations
    /// drawn uniformly among the other nodes (SSR: among the nodes of one
    /// random switch; multi-drop: among the nodes of the switches along one
    /// route to a random node), so fewer when there are not that many.
    Multicast {
        /// Offered load, flits/node/cycle (0 to 1), headers included.
        load: f64,
        /// Flits after the header.
        payload_flits: u32,
        /// Destinations per worm.
        degree: u32,
        /// The header encoding.
        worm: Kind,
    },
}

impl Traffic {
    /// Uniform random traffic.
    pub fn uniform(load: f64, packet_flits: u32) -> Traffic {
        Traffic::Uniform { load, packet_flits }
    }

    /// Multicast traffic of `worm` encoded worms.
    pub fn multicast(load: f64, payload_flits: u32, degree: u32, worm: Kind) -> Traffic {
        Traffic::Multicast {
            load,
            payload_flits,
            degree,
            worm,
        }
    }

    /// Largest packet the pattern generates in a network whose headers are
    /// `formats`, header included.
    pub fn max_packet_flits(&self, formats: &Formats) -> u32 {
        match self {
            Traffic::Idle => 0,
            Traffic::Uniform { packet_flits, .. } => *packet_flits,
            Traffic::Multicast {
                payload_flits,
                worm,
                ..
            } => formats.max_len_of(*worm) as u32 + payload_flits,
        }
    }

    pub(crate) fn validate(&self, formats: &Formats) -> Result<()> {
        match self {
            Traffic::Idle => {}
            Traffic::Uniform { load, packet_flits } => {
                check_load(*load)?;
                let header_flits = formats.unicast().flits();
                if (*packet_flits as usize) < header_flits {
                    return Err(Error::config(
                        "packet_flits",
                        packet_flits,
                        format!("a packet must hold its {header_flits}-flit header"),
                    ));
                }
            }
            Traffic::Multicast {
                load, degree, worm, ..
            } => {
                check_load(*load)?;
                if *degree == 0 {
                    return Err(Error::config(
                        "degree",
                        degree,
                        "a worm needs at least one destination",
                    ));
                }
                if *worm == Kind::Unicast && *degree != 1 {
                    return Err(Error::config(
                        "degree",
                        degree,
                        "a unicast worm has one destination: give degree 1 or another worm kind",
                    ));
                }
                if formats.nodes() >= 2 && *degree > formats.nodes() - 1 {
                    return Err(Error::config(
                        "degree",
                        degree,
                        format!(
                            "a worm reaches at most the {} other nodes of the network",
                            formats.nodes() - 1
                        ),
                    ));
                }
                if *load > 0.0 && formats.nodes() < 2 {
                    return Err(Error::config(
                        "pattern",
                        "multicast",
                        "a network of one node has no other node to send to",
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Refuses an offered load outside 0 to 1 flit/node/cycle, the one
/// message for every router model.
pub(crate) fn check_load(load: f64) -> Result<()> {
    if !(0.0..=1.0).contains(&load) {
        return Err(Error::config(
            "load",
            crate::error::show_number(load),
            "an offered load is at least 0 and at most 1 flit/node/cycle",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_of_the_switchs_fields_alone_is_told_apart() {
        assert!(SimConfig::is_own_file("buffer_flits = 64\nseed = 3\n").unwrap());
        assert!(!SimConfig::is_own_file("[network]\ntopology = \"mesh:4x4\"\n").unwrap());
        assert!(!SimConfig::is_own_file("buffer_flits = 64\nload = 0.1\n").unwrap());
        assert!(!SimConfig::is_own_file("").unwrap());
        let e = SimConfig::is_own_file("seed = 1\nsource_queue_packets = 18446744073709551615\n")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("line 2, column 24: "), "{e}");
    }

    #[test]
    fn defaults_are_the_papers() {
        let c = SimConfig::default();
        assert_eq!(
            (c.cycle_ps(), c.buffer_flits, c.chunk_flits),
            (5000, 640, 8)
        );
        c.validate().unwrap();
    }

    #[test]
    fn bad_values_are_refused_with_the_field_named() {
        let e = SimConfig::from_toml_str("buffer_flits = 100\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "configuration: buffer_flits = 100: must be a positive multiple of chunk_flits (8)"
        );
        let e = SimConfig::from_toml_str("bufer_flits = 64\n").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("line 1, column 1: unknown field `bufer_flits`"),
            "{e}"
        );
        let e = SimConfig::default().check_packet(640).unwrap_err();
        assert!(e.to_string().starts_with(
            "input buffer of 640 flits is not larger than the largest packet of 640 flits"
        ));
    }
}

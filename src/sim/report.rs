//! What a run reports.

use serde::Serialize;
use std::fmt;

/// Statistics of a run. Latencies are in cycles, loads in flits per node per
/// cycle; "window" quantities cover the measurement window (after warm-up).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunReport {
    /// Cycles simulated.
    pub cycles: u64,
    /// First cycle of the measurement window.
    pub warmup: u64,
    /// Length of the measurement window.
    pub measured_cycles: u64,
    /// Number of nodes.
    pub nodes: u32,
    /// Traffic seed.
    pub seed: u64,
    /// Clock period in nanoseconds.
    pub cycle_ns: f64,
    /// Flits generated in the window per node per cycle.
    pub offered_load: f64,
    /// Flits delivered in the window per node per cycle.
    pub accepted_throughput: f64,
    /// Packets generated in the window.
    pub packets_generated: u64,
    /// Of those, packets delivered by the end of the run.
    pub packets_delivered: u64,
    /// Flits delivered in the window.
    pub flits_delivered: u64,
    /// Mean latency, generation to tail arrival, of the delivered window packets.
    pub avg_latency: f64,
    /// Largest such latency.
    pub max_latency: u64,
    /// Mean latency from first flit sent to tail arrival.
    pub avg_network_latency: f64,
    /// Packets in the network at the end.
    pub packets_in_flight: u64,
    /// Packets waiting in source queues at the end.
    pub packets_queued: u64,
    /// Packets refused by full source queues (offered load beyond what the
    /// network accepts).
    pub packets_refused: u64,
    /// Flits sent on any link during the whole run.
    pub flit_hops: u64,
}

impl fmt::Display for RunReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "cycles {} (warm-up {}, measured {}), {} nodes, seed {}",
            self.cycles, self.warmup, self.measured_cycles, self.nodes, self.seed
        )?;
        writeln!(
            f,
            "latency: avg {:.2} cycles ({:.1} ns), max {} cycles; network latency avg {:.2} cycles",
            self.avg_latency,
            self.avg_latency * self.cycle_ns,
            self.max_latency,
            self.avg_network_latency
        )?;
        writeln!(
            f,
            "offered load {:.4}, accepted throughput {:.4} flits/node/cycle",
            self.offered_load, self.accepted_throughput
        )?;
        write!(
            f,
            "delivered {} packets, {} flits; {} in flight, {} queued, {} refused at the source; {} flit-hops",
            self.packets_delivered,
            self.flits_delivered,
            self.packets_in_flight,
            self.packets_queued,
            self.packets_refused,
            self.flit_hops
        )
    }
}

/// The packet a stall concerns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PacketInfo {
    /// Source node.
    pub src: u32,
    /// Destination node.
    pub dst: u32,
    /// Length in flits.
    pub len: u16,
    /// Cycle generated.
    pub generated: u64,
}

/// One place where a packet is stuck.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StallReport {
    /// Where.
    pub location: String,
    /// The packet, when known.
    pub packet: Option<PacketInfo>,
    /// What it waits for.
    pub waiting: String,
    /// Last cycle it made progress.
    pub since: u64,
}

/// The watchdog's finding: packets that made no progress for longer than the
/// bound.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DeadlockReport {
    /// Cycle of the finding.
    pub cycle: u64,
    /// The bound, in cycles.
    pub bound: u64,
    /// Every stuck place, longest-stuck first.
    pub stalls: Vec<StallReport>,
}

impl fmt::Display for DeadlockReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "deadlock suspected at cycle {}: {} place(s) with no progress for more than {} cycles",
            self.cycle,
            self.stalls.len(),
            self.bound
        )?;
        for s in &self.stalls {
            write!(f, "\n  {}: ", s.location)?;
            if let Some(p) = &s.packet {
                write!(
                    f,
                    "packet {} -> {} ({} flits, generated at {}) ",
                    p.src, p.dst, p.len, p.generated
                )?;
            }
            write!(f, "waiting since cycle {} for {}", s.since, s.waiting)?;
        }
        Ok(())
    }
}

//! What a run reports.

use crate::deadlock::LongWait;
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
    /// Flits generated in the window per node per cycle: a worm's flits
    /// count once, however many destinations it has.
    pub offered_load: f64,
    /// The same in the unit of `accepted_throughput`: a worm's flits count
    /// once per destination (equal to `offered_load` for unicast traffic).
    pub offered_copy_load: f64,
    /// Destinations per packet or worm generated in the window, on average
    /// (1 for unicast; a random SSR or multi-drop worm may reach fewer than
    /// the degree asked for when its switch or route has fewer nodes).
    pub dests_per_packet: f64,
    /// Flits delivered in the window per node per cycle, counting every
    /// copy a destination receives.
    pub accepted_throughput: f64,
    /// Packets generated in the window.
    pub packets_generated: u64,
    /// Of those, packets delivered by the end of the run.
    pub packets_delivered: u64,
    /// Flits delivered in the window.
    pub flits_delivered: u64,
    /// Mean latency, generation to tail arrival, of the delivered window
    /// packets (0 when none was: `packets_delivered` is then 0, and the
    /// text report says "none measured").
    pub avg_latency: f64,
    /// Largest such latency.
    pub max_latency: u64,
    /// Mean latency from first flit sent to tail arrival (0 when no window
    /// packet was delivered).
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
    /// The longest wait the watchdog saw, when a packet waited longer than
    /// its bound without a deadlock (the network is saturated).
    pub longest_wait: Option<LongWait>,
}

impl fmt::Display for RunReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "cycles {} (warm-up {}, measured {}), {} nodes, seed {}",
            self.cycles, self.warmup, self.measured_cycles, self.nodes, self.seed
        )?;
        if self.packets_delivered == 0 {
            // No sample: a mean of 0 would read as a measurement.
            writeln!(
                f,
                "latency: none measured (no packet made in the measured window was delivered)"
            )?;
        } else {
            writeln!(
                f,
                "latency: avg {:.2} cycles ({:.1} ns), max {} cycles; network latency avg {:.2} cycles",
                self.avg_latency,
                self.avg_latency * self.cycle_ns,
                self.max_latency,
                self.avg_network_latency
            )?;
        }
        if self.dests_per_packet > 1.0 {
            writeln!(
                f,
                "offered load {:.4} flits/node/cycle injected ({:.2} destinations per worm), \
                 {:.4} to deliver; accepted throughput {:.4} flits/node/cycle delivered \
                 (each copy counted)",
                self.offered_load,
                self.dests_per_packet,
                self.offered_copy_load,
                self.accepted_throughput
            )?;
        } else {
            writeln!(
                f,
                "offered load {:.4}, accepted throughput {:.4} flits/node/cycle (injected, delivered)",
                self.offered_load, self.accepted_throughput
            )?;
        }
        write!(
            f,
            "delivered {} packets, {} flits; {} in flight, {} queued, {} refused at the source; {} flit-hops",
            self.packets_delivered,
            self.flits_delivered,
            self.packets_in_flight,
            self.packets_queued,
            self.packets_refused,
            self.flit_hops
        )?;
        if let Some(w) = &self.longest_wait {
            write!(f, "\nwarning: {w}")?;
        }
        Ok(())
    }
}

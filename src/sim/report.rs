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
        writeln!(
            f,
            "latency: avg {:.2} cycles ({:.1} ns), max {} cycles; network latency avg {:.2} cycles",
            self.avg_latency,
            self.avg_latency * self.cycle_ns,
            self.max_latency,
            self.avg_network_latency
        )?;
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

/// The packet a stall concerns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PacketInfo {
    /// Source node.
    pub src: u32,
    /// Destination node (`None` for a multidestination worm).
    pub dst: Option<u32>,
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
    /// Places that wait for each other in a cycle, in wait order: each
    /// waits for the next, the last for the first.
    pub wait_cycle: Vec<String>,
    /// Every packet that can never move again (held at a switch input unit
    /// or a node's send side, in the cycle or waiting on it), longest-stuck
    /// first.
    pub stalls: Vec<StallReport>,
}

/// The longest wait the watchdog saw in a run that did not deadlock: the
/// oldest stalled packet at one of its checks, whose waits led to places
/// that still moved (a saturated network).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LongWait {
    /// Cycle of the check.
    pub cycle: u64,
    /// Cycles it had waited by then.
    pub waited: u64,
    /// Where it waited and for what.
    pub stall: StallReport,
}

impl fmt::Display for LongWait {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the longest wait seen: {} made no progress for {} cycles (at cycle {}), waiting for {}; \
             its waits led to places that still moved, so the network is saturated, not deadlocked",
            self.stall.location, self.waited, self.cycle, self.stall.waiting
        )
    }
}

impl fmt::Display for DeadlockReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "deadlock at cycle {}: {} place(s) wait for each other in a cycle ({}), {} packet(s) in all can never move again (none moved for more than {} cycles)",
            self.cycle,
            self.wait_cycle.len(),
            self.wait_cycle
                .iter()
                .chain(self.wait_cycle.first())
                .map(String::as_str)
                .collect::<Vec<_>>()
                .join(" -> "),
            self.stalls.len(),
            self.bound
        )?;
        for s in &self.stalls {
            write!(f, "\n  {}: ", s.location)?;
            if let Some(p) = &s.packet {
                match p.dst {
                    Some(d) => write!(f, "packet {} -> {d}", p.src)?,
                    None => write!(f, "worm from {}", p.src)?,
                }
                write!(f, " ({} flits, generated at {}) ", p.len, p.generated)?;
            }
            write!(f, "waiting since cycle {} for {}", s.since, s.waiting)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A worm has no one destination: the report says "worm", never the
    /// internal marker 4294967295.
    #[test]
    fn a_stuck_worm_is_named_as_a_worm() {
        let stall = |dst| StallReport {
            location: "switch 1 input port 2".into(),
            packet: Some(PacketInfo {
                src: 3,
                dst,
                len: 20,
                generated: 7,
            }),
            waiting: "credits".into(),
            since: 9,
        };
        let r = DeadlockReport {
            cycle: 100,
            bound: 50,
            wait_cycle: vec!["a".into(), "b".into()],
            stalls: vec![stall(None), stall(Some(5))],
        };
        let text = r.to_string();
        assert!(
            text.starts_with(
                "deadlock at cycle 100: 2 place(s) wait for each other in a cycle (a -> b -> a)"
            ),
            "{text}"
        );
        assert!(text.contains("switch 1 input port 2: worm from 3 (20 flits, generated at 7) waiting since cycle 9 for credits"), "{text}");
        assert!(text.contains("packet 3 -> 5 (20 flits"), "{text}");
        assert!(!text.contains("4294967295"));
        let json = serde_json::to_string(&r).unwrap();
        assert!(
            json.contains("\"dst\":null") && !json.contains("4294967295"),
            "{json}"
        );
    }
}

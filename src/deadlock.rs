//! What a watchdog reports when it finds a deadlock, for every router
//! model: the places of the cut-through switch network (seed 000 section
//! 6.5), the worms of the wormhole router (seed 001 Fig. 3), the input
//! channels of the tree router (seed 003 Fig. 6). Plain data below every
//! model, so the crate's error type can carry them.

use crate::words::counted;
use serde::Serialize;
use std::fmt;

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
            "deadlock at cycle {}: {} wait for each other in a cycle ({}), {} in all can never move again (none moved for more than {} cycles)",
            self.cycle,
            counted(self.wait_cycle.len() as u64, "places"),
            self.wait_cycle
                .iter()
                .chain(self.wait_cycle.first())
                .map(String::as_str)
                .collect::<Vec<_>>()
                .join(" -> "),
            counted(self.stalls.len() as u64, "packets"),
            self.bound
        )?;
        for s in &self.stalls {
            write!(f, "\n  {}: ", s.location)?;
            if let Some(p) = &s.packet {
                match p.dst {
                    Some(d) => write!(f, "packet {} -> {d}", p.src)?,
                    None => write!(f, "worm from {}", p.src)?,
                }
                write!(
                    f,
                    " ({}, generated at {}) ",
                    counted(p.len.into(), "flits"),
                    p.generated
                )?;
            }
            write!(f, "waiting since cycle {} for {}", s.since, s.waiting)?;
        }
        Ok(())
    }
}

/// One worm of a waiting cycle.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WaitStep {
    /// The worm.
    pub worm: u32,
    /// Its list, as `<s: d0, d1>`.
    pub list: String,
    /// The channel its blocked head sits on.
    pub head_on: String,
    /// The channel it waits for.
    pub waits_for: String,
    /// The worm holding that channel.
    pub held_by: u32,
}

/// A deadlock the watchdog found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WaitReport {
    /// The cycle.
    pub cycle: u64,
    /// Cycles without progress that made the watchdog look.
    pub bound: u64,
    /// The channels of the waiting cycle, in order (each waits for the next,
    /// the last for the first).
    pub channels: Vec<String>,
    /// The worms of the cycle.
    pub steps: Vec<WaitStep>,
    /// Worms in flight.
    pub in_flight: usize,
}

impl fmt::Display for WaitReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.steps.is_empty() {
            return write!(
                f,
                "deadlock at cycle {}: no flit moved for {} with {} in flight, and no waiting cycle was found",
                self.cycle,
                counted(self.bound, "cycles"),
                counted(self.in_flight as u64, "worms")
            );
        }
        write!(
            f,
            "deadlock at cycle {}: {} wait for each other in a cycle of channels {}",
            self.cycle,
            counted(self.steps.len() as u64, "worms"),
            self.channels.join(" -> ")
        )?;
        for s in &self.steps {
            write!(
                f,
                "\n  worm {} {}: head on {}, waits for {} held by worm {}",
                s.worm, s.list, s.head_on, s.waits_for, s.held_by
            )?;
        }
        Ok(())
    }
}

/// A deadlock the watchdog found: the input channels that wait for each
/// other, each waiting for the next and the last for the first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TreeWaitReport {
    /// The cycle.
    pub cycle: u64,
    /// Cycles without progress that made the watchdog look.
    pub bound: u64,
    /// Messages in flight.
    pub in_flight: usize,
    /// The waiting cycle, one line per input channel (empty if none found).
    pub steps: Vec<String>,
}

impl fmt::Display for TreeWaitReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "deadlock at cycle {}: no flit moved for {} with {} in flight",
            self.cycle,
            counted(self.bound, "cycles"),
            counted(self.in_flight as u64, "messages")
        )?;
        if self.steps.is_empty() {
            return write!(f, ", and no waiting cycle was found");
        }
        write!(f, "; {} input channels wait in a cycle:", self.steps.len())?;
        for s in &self.steps {
            write!(f, "\n  {s}")?;
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
                "deadlock at cycle 100: 2 places wait for each other in a cycle (a -> b -> a)"
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

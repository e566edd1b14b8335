//! Trace-driven traffic: a file of messages, each with the cycle it is
//! created, its source, its destinations, its length and optionally the
//! earlier message it waits for, replayed exactly on any router model.
//!
//! Two formats, told by the first non-blank character:
//!
//! ```text
//! # CSV: cycle,source,destinations,flits[,after]   (destinations ;-separated)
//! 0,3,5,20
//! 10,0,1;2;7,20
//! 15,4,9,20,1
//! ```
//!
//! ```text
//! {"cycle": 0, "src": 3, "dests": [5], "flits": 20}
//! {"cycle": 15, "src": 4, "dests": [9], "flits": 20, "after": 1}
//! ```
//!
//! Messages are numbered from 0 in file order (comment and blank lines do
//! not count); `after` names an earlier message, and the message is sent in
//! the first cycle at or after both its `cycle` and the arrival of that
//! message's last copy (closed loop: a node waiting for its previous
//! message). `flits` is the length of a unicast packet, header included; a
//! multicast carries the payload such a packet would. Every bad line is
//! refused with its number.

use super::stats::Summary;
use super::{RouterModel, RunOptions, Session, TopoSpec};
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// One message of a trace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceMsg {
    /// Cycle it is created (at the earliest).
    pub cycle: u64,
    /// Source node.
    pub src: u32,
    /// Destination nodes.
    pub dests: Vec<u32>,
    /// Length in flits of a unicast packet, header included.
    pub flits: u32,
    /// The earlier message whose last copy it waits for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<usize>,
    /// Its line in the file.
    #[serde(skip)]
    pub line: usize,
}

/// Parses a trace (`name` names it in errors).
pub fn parse(text: &str, name: &str) -> Result<Vec<TraceMsg>> {
    let bad = |line: usize, why: String| Error::Config {
        field: "trace",
        value: format!("{name}:{line}"),
        reason: why,
    };
    let json = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
        .is_some_and(|l| l.starts_with('{'));
    let mut out: Vec<TraceMsg> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut m: TraceMsg = if json {
            serde_json::from_str(line).map_err(|e| bad(i + 1, e.to_string()))?
        } else {
            let f: Vec<&str> = line.split(',').map(str::trim).collect();
            if !(4..=5).contains(&f.len()) {
                return Err(bad(
                    i + 1,
                    format!(
                        "{} fields; a line is cycle,source,destinations,flits[,after]",
                        f.len()
                    ),
                ));
            }
            let num = |what: &str, s: &str| {
                s.parse::<u64>().map_err(|_| {
                    bad(
                        i + 1,
                        if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
                            format!("{what} {s} is past {}", u64::MAX)
                        } else {
                            format!("{what} `{s}` is not a whole number")
                        },
                    )
                })
            };
            // Nodes and lengths are 32-bit: a larger number is refused, not
            // cut to its low bits (which named another node).
            let num32 = |what: &str, s: &str| {
                let n = num(what, s)?;
                u32::try_from(n).map_err(|_| bad(i + 1, format!("{what} {n} is past {}", u32::MAX)))
            };
            TraceMsg {
                cycle: num("cycle", f[0])?,
                src: num32("source", f[1])?,
                // An empty field is an empty list, refused below as
                // a JSON line's `[]` is.
                dests: if f[2].is_empty() {
                    Vec::new()
                } else {
                    f[2].split(';')
                        .map(|d| num32("destination", d.trim()))
                        .collect::<Result<_>>()?
                },
                flits: num32("flits", f[3])?,
                after: f
                    .get(4)
                    .map(|a| num("after", a))
                    .transpose()?
                    .map(|a| a as usize),
                line: 0,
            }
        };
        m.line = i + 1;
        if let Some(a) = m.after
            && a >= out.len()
        {
            return Err(bad(
                i + 1,
                format!(
                    "it waits for message {a}, which is not an earlier one (this is message {})",
                    out.len()
                ),
            ));
        }
        out.push(m);
    }
    if out.is_empty() {
        return Err(bad(0, "the trace has no message".into()));
    }
    Ok(out)
}

/// What a replay gave.
#[derive(Clone, Debug, Serialize)]
pub struct ReplayResult {
    /// The network.
    pub topology: String,
    /// The router model.
    pub router: &'static str,
    /// Its routing function.
    pub routing: &'static str,
    /// Messages replayed.
    pub messages: usize,
    /// Copies delivered.
    pub copies: u64,
    /// Cycle the last copy arrived.
    pub finished: u64,
    /// Latency of every copy (creation to tail).
    pub latency: Summary,
    /// Network latency of every copy.
    pub network_latency: Option<Summary>,
    /// Per message: the cycle it was sent and the cycle its last copy
    /// arrived.
    pub per_message: Vec<(u64, u64)>,
    /// Every copy in the order it arrived: (message, node, cycle its tail
    /// arrived), messages numbered in file order.
    pub deliveries: Vec<(usize, u32, u64)>,
    /// The links' utilisation over the replay's cycles, as a run gives it.
    pub links: super::harness::LinkSummary,
    /// Every link's utilisation, busiest first (with `per_link`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_link: Option<Vec<super::harness::LinkLoad>>,
}

/// Replays `trace` on `router` over `topo` until every copy has arrived,
/// failing after `max_cycles` ([`Error::NotDrained`]); a message created
/// at or after `max_cycles` is refused before the replay, by its line.
pub fn replay(
    topo: &TopoSpec,
    router: Option<RouterModel>,
    routing: Option<&str>,
    trace: &[TraceMsg],
    o: &RunOptions,
    max_cycles: u64,
) -> Result<ReplayResult> {
    let mut s = Session::new(topo, router, routing, o)?;
    replay_on(&mut s, trace, max_cycles)
}

/// [`replay`] on a network already built (with a waveform, say), after
/// [`check`].
pub fn replay_on(s: &mut Session, trace: &[TraceMsg], max_cycles: u64) -> Result<ReplayResult> {
    replay_links(s, trace, max_cycles, false)
}

/// [`replay_on`], giving every link's utilisation too when `per_link` (as
/// `wormcast run --trace FILE --links` prints it).
pub fn replay_links(
    s: &mut Session,
    trace: &[TraceMsg],
    max_cycles: u64,
    per_link: bool,
) -> Result<ReplayResult> {
    check(s, trace, max_cycles, None)?;
    let (first, start) = (s.cycle(), s.link_counts());
    // Messages in order of their cycle (stable: file order breaks ties).
    let mut order: Vec<usize> = (0..trace.len()).collect();
    order.sort_by_key(|&i| trace[i].cycle);
    let mut sent = vec![u64::MAX; trace.len()];
    let mut done = vec![u64::MAX; trace.len()];
    let mut left: Vec<u32> = trace.iter().map(|m| m.dests.len() as u32).collect();
    // The file's number of each message the session numbered.
    let mut index: Vec<usize> = Vec::with_capacity(trace.len());
    let mut deliveries = Vec::new();
    // A message whose cycle has come waits for the message it names:
    // it is kept on that message's list of dependents (threaded through
    // `next_dep`), and is woken when that message's last copy arrives.
    // A pass over every waiting message each cycle made a trace of many
    // chained messages quadratic (200,000 messages at cycle 0, each
    // waiting for its source's previous one: 36 s, against 0.4 s for as
    // many at their own cycles).
    const NO_DEP: usize = usize::MAX;
    let mut first_dep = vec![NO_DEP; trace.len()];
    let mut next_dep = vec![NO_DEP; trace.len()];
    // Messages that may be sent, by the cycle from which they may.
    let mut woken: BinaryHeap<Reverse<(u64, usize)>> = BinaryHeap::new();
    let mut ready: Vec<usize> = Vec::new();
    let mut next = 0;
    let mut remaining = trace.len();
    while remaining > 0 {
        let now = s.cycle();
        crate::interrupt::check(now)?;
        if now >= max_cycles {
            // A limit reached, not a fault of the model (a deadlock is
            // found by the watchdog as it is).
            return Err(Error::NotDrained {
                cycle: now,
                limit: max_cycles,
                outstanding: remaining as u64,
                what: "messages",
            });
        }
        while next < order.len() && trace[order[next]].cycle <= now {
            let i = order[next];
            next += 1;
            match trace[i].after {
                Some(a) if done[a] == u64::MAX => {
                    next_dep[i] = first_dep[a];
                    first_dep[a] = i;
                }
                Some(a) if done[a] > now => woken.push(Reverse((done[a], i))),
                _ => ready.push(i),
            }
        }
        while let Some(&Reverse((at, i))) = woken.peek()
            && at <= now
        {
            woken.pop();
            ready.push(i);
        }
        // Sent in the order of their cycles, then of the file.
        ready.sort_unstable_by_key(|&i| (trace[i].cycle, i));
        for i in ready.drain(..) {
            let m = &trace[i];
            let id = s.send(m.src, &m.dests, m.flits)?;
            debug_assert_eq!(id as usize, index.len());
            index.push(i);
            sent[i] = now;
        }
        // Nothing to send before the next message's cycle or wake-up:
        // the cycles up to it in which the network has nothing to do
        // are skipped, as a run skips them.
        let mut until = max_cycles;
        if let Some(&i) = order.get(next) {
            until = until.min(trace[i].cycle);
        }
        if let Some(&Reverse((at, _))) = woken.peek() {
            until = until.min(at);
        }
        s.advance(until.saturating_sub(now).max(1))?;
        for a in s.take_arrivals() {
            let i = index[a.msg as usize];
            deliveries.push((i, a.node, a.arrived));
            left[i] -= 1;
            if left[i] == 0 {
                done[i] = a.arrived;
                remaining -= 1;
                let mut j = std::mem::replace(&mut first_dep[i], NO_DEP);
                while j != NO_DEP {
                    woken.push(Reverse((a.arrived, j)));
                    j = next_dep[j];
                }
            }
        }
        // The replay keeps its own record of each copy.
        s.forget_taken();
    }
    let (latency, network_latency) = s.summaries();
    let (links, per_link) = s.loads(&start, s.cycle() - first, per_link)?;
    Ok(ReplayResult {
        topology: s.topology().to_string(),
        router: s.router().name(),
        routing: s.routing(),
        messages: trace.len(),
        copies: deliveries.len() as u64,
        finished: done.iter().copied().max().unwrap_or(0),
        latency,
        network_latency,
        per_message: sent.into_iter().zip(done).collect(),
        deliveries,
        links,
        per_link,
    })
}

/// Refuses, by its line, a message of `trace` the network of `s` cannot
/// carry ([`Session::check`]) or one created at or after `max_cycles`,
/// which a replay of that many cycles would never send. `name` names the
/// trace's file in the error as [`parse`] does (`FILE:LINE`); without one
/// the error says `line LINE`. [`replay_on`] checks first; a caller that
/// attaches a waveform checks before it, so that a trace refused leaves no
/// file.
pub fn check(s: &Session, trace: &[TraceMsg], max_cycles: u64, name: Option<&str>) -> Result<()> {
    for m in trace {
        let at = |reason: String| Error::Config {
            field: "trace",
            value: match name {
                Some(n) => format!("{n}:{}", m.line),
                None => format!("line {}", m.line),
            },
            reason,
        };
        s.check(m.src, &m.dests, m.flits).map_err(|err| {
            at(match err {
                Error::Config {
                    field,
                    value,
                    reason,
                } => format!("{field} = {value}: {reason}"),
                e => e.to_string(),
            })
        })?;
        if m.cycle >= max_cycles {
            return Err(at(format!(
                "it is sent at cycle {}, not before the replay's limit of {}",
                m.cycle,
                crate::error::counted(max_cycles, "cycles")
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_formats_read_the_same_messages_and_bad_lines_are_named() {
        let csv = "# a trace\n0,3,5,20\n\n10,0,1;2;7,20\n15,4,9,20,1\n";
        let json = "{\"cycle\":0,\"src\":3,\"dests\":[5],\"flits\":20}\n\
                    {\"cycle\":10,\"src\":0,\"dests\":[1,2,7],\"flits\":20}\n\
                    {\"cycle\":15,\"src\":4,\"dests\":[9],\"flits\":20,\"after\":1}\n";
        let a = parse(csv, "t.csv").unwrap();
        let b = parse(json, "t.jsonl").unwrap();
        assert_eq!(a.len(), 3);
        assert_eq!(a[1].dests, vec![1, 2, 7]);
        assert_eq!(a[2].after, Some(1));
        assert_eq!((a[0].line, a[1].line, a[2].line), (2, 4, 5));
        let strip = |v: Vec<TraceMsg>| {
            v.into_iter()
                .map(|m| (m.cycle, m.src, m.dests, m.flits, m.after))
                .collect::<Vec<_>>()
        };
        assert_eq!(strip(a), strip(b));
        let e = |t: &str| parse(t, "t.csv").unwrap_err().to_string();
        assert!(
            e("0,1,2,20\n1,2,x,20\n").contains("t.csv:2")
                && e("0,1,2,20\n1,2,x,20\n").contains("destination `x`")
        );
        assert!(e("0,1,2\n").contains("t.csv:1") && e("0,1,2\n").contains("3 fields"));
        assert!(e("0,1,2,20,0\n").contains("not an earlier one"));
        assert!(e("# nothing\n").contains("no message"));
        let j = parse("{\"cycle\":0,\"src\":1}\n", "t.jsonl")
            .unwrap_err()
            .to_string();
        assert!(
            j.contains("t.jsonl:1") && j.contains("missing field"),
            "{j}"
        );
    }
}

//! The multi-drop decode unit for path-based worms (seed 000 sections 5.2.2
//! and 5.2.3, Fig. 12c): a list of (switch id, `p`-bit string) pairs.
//!
//! The first pair is decoded as an SSR header. On a match the worm
//! replicates to the pair's node ports and, if more pairs follow, one copy
//! goes on toward the next pair's switch with the first pair stripped from
//! its header (by the routing table rows for destination switches). On a
//! mismatch the worm is routed toward the first pair's switch unchanged.

use super::DecodeError;
use super::ssr::{SsrStep, step};
use crate::net::Phase;
use crate::rtl::PortMask;

/// What a multi-drop header asks of one switch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MultiDropStep {
    /// Node ports to replicate to (the first pair names this switch).
    pub deliver: PortMask,
    /// Candidate ports for the one copy that goes on (empty: none).
    pub forward: PortMask,
    /// The copy that goes on carries the header without its first pair.
    pub strip: bool,
}

/// Decides for switch `me` a header whose first pair is `first` and second
/// pair's switch is `next` (if any), in phase `phase`.
pub fn step_pairs(
    me: u32,
    node_ports: PortMask,
    rows: &super::Rows,
    first: (u32, PortMask),
    next: Option<u32>,
    phase: Phase,
) -> Result<MultiDropStep, DecodeError> {
    match step(me, node_ports, rows, first.0, first.1, phase)? {
        SsrStep::Forward(c) => Ok(MultiDropStep {
            deliver: PortMask::EMPTY,
            forward: c,
            strip: false,
        }),
        SsrStep::Deliver(ports) => {
            let forward = match next {
                None => PortMask::EMPTY,
                Some(s) => match step(me, node_ports, rows, s, PortMask::EMPTY, phase) {
                    Ok(SsrStep::Forward(c)) => c,
                    Ok(SsrStep::Deliver(_)) | Err(DecodeError::NoPorts { .. }) => {
                        return Err(DecodeError::RepeatedSwitch { switch: me });
                    }
                    Err(e) => return Err(e),
                },
            };
            Ok(MultiDropStep {
                deliver: ports,
                forward,
                strip: next.is_some(),
            })
        }
    }
}

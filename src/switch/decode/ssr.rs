//! The SSR decode unit (seed 000 section 5.2.3, Fig. 12a): switch-id compare
//! and `p`-bit port string.
//!
//! A switch compares the header's switch id with its own. On a match the
//! worm replicates to every port whose bit is set (each leads to a node);
//! otherwise it is routed toward that switch like a unicast packet, by the
//! switch's routing table rows for destination switches.

use super::DecodeError;
use crate::net::Phase;
use crate::rtl::PortMask;

/// What an SSR (or a multi-drop pair) asks of one switch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SsrStep {
    /// This is the switch: replicate to these node ports.
    Deliver(PortMask),
    /// Route on toward the named switch by one of these ports.
    Forward(PortMask),
}

/// Decides for switch `me` (whose node ports are `node_ports`) a header
/// naming switch `target` and ports `ports`, in phase `phase`, with the
/// unit's routing rows `rows`.
pub fn step(
    me: u32,
    node_ports: PortMask,
    rows: &super::Rows,
    target: u32,
    ports: PortMask,
    phase: Phase,
) -> Result<SsrStep, DecodeError> {
    if target == me {
        if ports.is_empty() {
            return Err(DecodeError::NoPorts { switch: me });
        }
        let bad = PortMask(ports.0 & !node_ports.0);
        if !bad.is_empty() {
            return Err(DecodeError::NotNodePorts {
                switch: me,
                ports: bad,
            });
        }
        Ok(SsrStep::Deliver(ports))
    } else {
        let c = rows.switch(me, target, phase);
        if c.is_empty() {
            return Err(DecodeError::NoRouteToSwitch {
                switch: me,
                target,
                phase,
            });
        }
        Ok(SsrStep::Forward(c))
    }
}

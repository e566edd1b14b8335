//! The bit-string decode unit (seed 000 section 5.3.3).
//!
//! A worm whose up-down bit is 1 is compared with the switch's total
//! reachability string. If the switch reaches every destination by down
//! links (header AND total = header), the up-down bit is cleared and the
//! worm replicates to every down port whose restricted string meets the
//! header, each copy carrying the header ANDed with that port's string.
//! Otherwise it goes up, unchanged, by one of the switch's up ports. A worm
//! whose up-down bit is 0 replicates by the restricted strings directly.

use super::DecodeError;
use crate::net::Reachability;
use crate::rtl::{BitString, PortMask};

/// The reachability strings of one switch: what a bit-string decode unit
/// holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BitStringUnit {
    total: BitString,
    /// Per port: `Some` restricted string for down ports.
    restricted: Vec<Option<BitString>>,
    up_ports: PortMask,
}

/// What a bit-string header asks of one switch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BitStringStep {
    /// Ports to replicate to (down ports whose string meets the header).
    pub ports: PortMask,
    /// Candidate up ports for the worm going up unchanged (empty: it goes
    /// down).
    pub up: PortMask,
    /// The up-down bit of the copies.
    pub ud_out: bool,
}

impl BitStringUnit {
    /// A unit with the given strings.
    pub fn new(total: BitString, restricted: Vec<Option<BitString>>, up_ports: PortMask) -> Self {
        BitStringUnit {
            total,
            restricted,
            up_ports,
        }
    }

    /// No unit: a switch built without reachability strings (see
    /// [`BitStringUnit::built`]).
    pub fn absent() -> Self {
        BitStringUnit {
            total: BitString::zeros(0),
            restricted: Vec::new(),
            up_ports: PortMask::EMPTY,
        }
    }

    /// Whether the unit holds strings: a network whose bit-string headers
    /// cannot fit its input buffers is built without them, which keeps
    /// large networks small (the strings take switches x ports x nodes
    /// bits).
    pub fn built(&self) -> bool {
        !self.total.is_empty()
    }

    /// The unit of switch `s` of a network.
    pub fn of_switch(reach: &Reachability, s: u32, ports: u32, up_ports: PortMask) -> Self {
        BitStringUnit {
            total: reach.total(s).clone(),
            restricted: (0..ports)
                .map(|p| reach.restricted(s, p).cloned())
                .collect(),
            up_ports,
        }
    }

    /// The total reachability string.
    pub fn total(&self) -> &BitString {
        &self.total
    }

    /// Port `p`'s restricted string, if it is a down port.
    pub fn restricted(&self, p: usize) -> Option<&BitString> {
        self.restricted.get(p).and_then(|r| r.as_ref())
    }

    /// Decides for destinations `dests` and up-down bit `up`; writes each
    /// replicated port's header string into `branch[port]`.
    pub fn step(
        &self,
        dests: &BitString,
        up: bool,
        branch: &mut [BitString],
    ) -> Result<BitStringStep, DecodeError> {
        if dests.is_zero() {
            return Err(DecodeError::NoDestinations);
        }
        if !dests.is_subset_of(&self.total) {
            if up && !self.up_ports.is_empty() {
                return Ok(BitStringStep {
                    ports: PortMask::EMPTY,
                    up: self.up_ports,
                    ud_out: true,
                });
            }
            return Err(DecodeError::Unreachable {
                dests: dests.and_not(&self.total).iter_ones().count(),
            });
        }
        let mut ports = PortMask::EMPTY;
        for (p, r) in self.restricted.iter().enumerate() {
            if let Some(r) = r {
                branch[p].set_and(dests, r);
                if !branch[p].is_zero() {
                    ports.insert(p);
                }
            }
        }
        Ok(BitStringStep {
            ports,
            up: PortMask::EMPTY,
            ud_out: false,
        })
    }
}

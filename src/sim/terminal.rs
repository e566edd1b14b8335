//! What sits at a node: a traffic endpoint, or a host with its network
//! interface.

use super::endpoint::Endpoint;
use crate::link::EndpointIo;
use crate::ni::NiNode;
use crate::rtl::trace::{Sampler, ScopeBuilder, Traced};
use crate::rtl::{Clocked, Next};
use crate::switch::{Channels, Stall};

/// The component at a node.
///
/// Endpoints stay inline: traffic runs tick thousands of them per cycle
/// and the indirection of a box costs there; an NI, much larger and ticked
/// only when it has work, is boxed.
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant)]
pub enum Terminal {
    /// A traffic endpoint (injects and consumes at link rate).
    Endpoint(Endpoint),
    /// A host and its network interface.
    Ni(Box<NiNode>),
}

impl Terminal {
    /// The node id.
    pub fn node(&self) -> u32 {
        match self {
            Terminal::Endpoint(e) => e.node(),
            Terminal::Ni(n) => n.node(),
        }
    }

    /// True when it has nothing left to do.
    pub fn is_idle(&self) -> bool {
        match self {
            Terminal::Endpoint(e) => e.is_idle(),
            Terminal::Ni(n) => n.is_idle(),
        }
    }

    /// Its credits toward its switch and their maximum.
    pub fn credits(&self, ch: &Channels) -> (u32, u32) {
        match self {
            Terminal::Endpoint(e) => e.credits(ch).expect("endpoints have credits"),
            Terminal::Ni(n) => n.credits(ch),
        }
    }

    /// What it waits for longer than `bound`, if anything.
    pub fn stall(&self, now: u64, bound: u64) -> Option<Stall> {
        match self {
            Terminal::Endpoint(e) => e.stall(now, bound),
            Terminal::Ni(n) => n.stall(now, bound),
        }
    }

    /// The traffic endpoint, if it is one.
    pub fn endpoint(&self) -> Option<&Endpoint> {
        match self {
            Terminal::Endpoint(e) => Some(e),
            Terminal::Ni(_) => None,
        }
    }

    /// The traffic endpoint, mutable, if it is one.
    pub fn endpoint_mut(&mut self) -> Option<&mut Endpoint> {
        match self {
            Terminal::Endpoint(e) => Some(e),
            Terminal::Ni(_) => None,
        }
    }

    /// The host and network interface, if it is one.
    pub fn ni(&self) -> Option<&NiNode> {
        match self {
            Terminal::Ni(n) => Some(n),
            Terminal::Endpoint(_) => None,
        }
    }

    /// The host and network interface, mutable, if it is one.
    pub fn ni_mut(&mut self) -> Option<&mut NiNode> {
        match self {
            Terminal::Ni(n) => Some(n),
            Terminal::Endpoint(_) => None,
        }
    }
}

impl Clocked for Terminal {
    type Io<'a> = EndpointIo<'a, crate::ni::Group>;

    #[inline]
    fn eval(&mut self, io: &mut EndpointIo<'_, crate::ni::Group>) -> Next {
        match self {
            Terminal::Endpoint(e) => e.eval(io),
            Terminal::Ni(n) => n.eval(io),
        }
    }
}

impl Traced for Terminal {
    type Env = Channels;

    fn declare(&self, s: &mut ScopeBuilder<'_>) {
        match self {
            Terminal::Endpoint(e) => e.declare(s),
            Terminal::Ni(n) => n.declare(s),
        }
    }

    fn sample(&self, ch: &Channels, s: &mut Sampler<'_>) {
        match self {
            Terminal::Endpoint(e) => e.sample(ch, s),
            Terminal::Ni(n) => n.sample(ch, s),
        }
    }
}

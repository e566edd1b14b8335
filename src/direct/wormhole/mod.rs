//! Seeds 001/002's wormhole path router and the system it runs in: the
//! [`Router`] (small input FIFOs, a header latch, a crossbar with
//! round-robin output arbiters, credits), the local processor's injection
//! and consumption engines, and the [`DirectSystem`] that ticks them on any
//! [`Fabric`](super::Fabric) (hypercube, mesh with dimension order or
//! Hamiltonian routing), one-port or all-port (seed 001 section 2, seed
//! 002 section 3).

mod par;
mod processor;
mod router;
mod system;

pub use router::{Hop, InState, Router, RouterIo, RouterPort, Waiting};
pub use system::{
    Delivery, DirectConfig, DirectSystem, DirectTraffic, Planner, PortModel, TrafficStats,
    WormInfo, check_buffer_flits,
};

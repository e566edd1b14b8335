//! Systems: a network of switches and endpoints assembled from a topology and
//! a configuration, run cycle by cycle, with traffic generators, statistics
//! and a deadlock watchdog (seed 000 sections 6.2 and 6.5).
//!
//! [`System`] owns every component and every channel. A cycle evaluates the
//! active components (a switch with nothing in it, or an endpoint waiting for
//! its next packet, is skipped), commits the channels, and wakes the
//! components that received something. Endpoints generate uniform random
//! traffic as a Bernoulli process, drawn as geometric gaps so that an idle
//! endpoint costs nothing until its next packet.

mod active;
mod config;
mod endpoint;
mod packets;
mod report;
mod system;
mod wheel;

pub use config::{SimConfig, Traffic};
pub use endpoint::{Endpoint, EndpointStats};
pub use packets::{Delivery, PacketRecord, PacketTable};
pub use report::{DeadlockReport, PacketInfo, RunReport, StallReport};
pub use system::{EvalOrder, System};

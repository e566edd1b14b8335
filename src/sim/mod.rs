//! Systems: a network of switches and endpoints assembled from a topology and
//! a configuration, run cycle by cycle, with traffic generators, statistics
//! and a deadlock watchdog (seed 000 sections 6.2 and 6.5).
//!
//! [`System`] owns every component and every channel. A cycle evaluates the
//! active components (a switch with nothing in it, or an endpoint waiting for
//! its next packet, is skipped), commits the channels, and wakes the
//! components that received something. Endpoints generate uniform random
//! unicast traffic or multidestination worms (seed 000 section 5.3) as a
//! Bernoulli process, drawn as geometric gaps so that an idle endpoint costs
//! nothing until its next packet, and check that every worm reaches each of
//! its destinations exactly once.

mod active;
mod config;
mod endpoint;
mod par;
mod report;
mod system;
mod terminal;

pub use crate::deadlock::{DeadlockReport, LongWait, PacketInfo, StallReport};
pub use crate::link::{
    Delivery, EndpointIo, EndpointWiring, NO_GROUP, PacketId, PacketRecord, PacketTable, Worm,
    WormBuilder, WormSpec,
};
pub(crate) use config::check_load;
pub use config::{NodeModel, SimConfig, Traffic};
pub use endpoint::{Endpoint, EndpointStats};
pub use report::RunReport;
pub use system::{EvalOrder, McastResult, System};
pub use terminal::Terminal;

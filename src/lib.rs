//! # wormcast
//!
//! Register-transfer-level models of multicast-capable interconnection
//! networks.
mod error;
pub mod net;
pub mod rtl;

pub use error::{Error, Item, Result};
pub use rtl::BitString;

/// Placeholder until the simulator lands.
pub mod sim {
    /// Deadlock report.
    #[derive(Debug)]
    pub struct DeadlockReport;
    impl std::fmt::Display for DeadlockReport {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "deadlock")
        }
    }
}

//! # wormcast
//!
//! Register-transfer-level models of multicast-capable interconnection
//! networks.
mod error;
pub mod header;
pub mod net;
pub mod rtl;
pub mod sim;
pub mod switch;
pub mod wave;

pub use error::{Error, Item, Result};
pub use rtl::BitString;

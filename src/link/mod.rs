//! What crosses a node's link, below both the traffic endpoints of `sim`
//! and the network interfaces of `ni` (seed 000 sections 3, 5.2-5.3 and
//! 6.2): packets and the table of those in flight, multidestination worms
//! checked and encoded, and the endpoint interface (wiring and per-cycle
//! I/O) every kind of node implements.

mod io;
mod packets;
mod worms;

pub(crate) use io::check_header;
pub use io::{EndpointIo, EndpointWiring};
pub use packets::{
    Delivery, NO_GROUP, PacketId, PacketLog, PacketRecord, PacketTable, PacketView, Refused,
};
pub use worms::{Worm, WormBuilder, WormScratch, WormSpec};

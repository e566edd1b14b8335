//! Network topologies and up*/down* routing.
//!
//! Switch-based irregular networks as in seed 000 section 2: switches joined
//! by full-duplex links in an arbitrary connected graph, nodes on switch
//! ports ([`Topology`], [`Network`]); random irregular networks generated as
//! in section 6.3 ([`IrregularParams`]); the BFS spanning tree and the
//! up*/down* direction of every link of section 2.2 ([`UpDown`]); and the
//! minimal up*/down* routing tables the switches' unicast decode units look
//! up ([`RoutingTables`]); the reachability strings of section 5.3.2 that
//! bit-string decode units AND headers with ([`Reachability`]). [`summary`] describes a network for people and
//! tools (`wormcast topo show`). A topology file may also be a BookSim
//! anynet file ([`booksim`]).

pub mod booksim;
mod file;
mod irregular;
mod reach;
mod routing;
pub mod summary;
mod topology;
mod updown;

pub use irregular::{GEN_NODE_BYTES, GEN_PORT_BYTES, GEN_SWITCH_BYTES, IrregularParams};
pub use reach::{PortReach, Reachability, SwitchReach};
pub use routing::{Phase, RouteLengths, RoutingTables};
#[cfg(test)]
pub(crate) use topology::test_network;
pub use topology::{
    LinkSpec, MAX_NODES, MAX_SWITCHES, Network, NodeSpec, PortConn, PortRef, SourceLines,
    SwitchSpec, TOML_PARSE_BYTES, Topology,
};
pub(crate) use topology::{fits_shape, reckoned_bytes, shape_bytes, toml_error, toml_message};
pub use updown::{TreeParent, UpDown};

/// Port sets, as the routing tables hold them.
pub use crate::rtl::PortMask;

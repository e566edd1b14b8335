//! The unicast decode unit: routing-table lookup (seed 000 sections 2.2, 6.2).
//!
//! The destination selects a row of the switch's up*/down* routing table for
//! the phase the input port implies; the row is the set of candidate output
//! ports, of which the switch grants one. In hardware the table is the
//! switch's own memory, one port mask per destination and phase; the model
//! reads the switch's rows of the network's
//! [`RoutingTables`](crate::net::RoutingTables), stored once for every
//! switch (`Rows::Network`), or a unit's own memories as a Verilog twin
//! receives them (`Rows::Own`).

use crate::net::Phase;
use crate::rtl::PortMask;

/// Candidate output ports for destination `dest` in phase `phase`, from a
/// table of rows `2 * dest + phase`.
#[inline]
pub fn candidates(table: &[PortMask], dest: u32, phase: Phase) -> PortMask {
    table[2 * dest as usize + phase as usize]
}

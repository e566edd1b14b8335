//! Reading a topology file in either of its formats: the TOML of
//! [`super::topology`] or a BookSim anynet file ([`super::booksim`]), told
//! apart by the first line.

use super::booksim;
use super::topology::Topology;
use crate::Result;
use std::path::Path;

impl Topology {
    /// Reads a topology file: TOML ([`Topology::from_toml_str`]), or a
    /// BookSim anynet file ([`booksim`](super::booksim), told by its first
    /// line).
    pub fn load(path: impl AsRef<Path>) -> Result<Topology> {
        crate::error::load_text(path.as_ref(), Topology::from_str_any)
    }

    /// Parses a topology from the text of either file format.
    pub fn from_str_any(text: &str) -> Result<Topology> {
        if booksim::is_anynet(text) {
            booksim::from_anynet_str(text)
        } else {
            Topology::from_toml_str(text)
        }
    }
}

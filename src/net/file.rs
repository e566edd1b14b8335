//! Reading a topology file in either of its formats: the TOML of
//! [`super::topology`] or a BookSim anynet file ([`super::booksim`]), told
//! apart by the first line.

use super::booksim;
use super::topology::Topology;
use crate::{Error, Result};
use std::path::Path;

impl Topology {
    /// Reads a topology file: TOML ([`Topology::from_toml_str`]), or a
    /// BookSim anynet file ([`booksim`](super::booksim), told by its first
    /// line).
    pub fn load(path: impl AsRef<Path>) -> Result<Topology> {
        let path = path.as_ref();
        if let Some(why) = Topology::not_a_file(path) {
            return Err(Error::Config {
                field: "topology",
                value: path.display().to_string(),
                reason: why.into(),
            });
        }
        crate::error::load_text(path, Topology::from_str_any)
    }

    /// Why `path` cannot name a topology file (an empty name, a folder,
    /// nothing there), or `None` if it names something to read: so that
    /// a mistyped name is refused as a topology, not as a bare error of
    /// the file system.
    pub fn not_a_file(path: &Path) -> Option<&'static str> {
        if path.as_os_str().is_empty() {
            return Some("an empty name");
        }
        match std::fs::metadata(path) {
            Ok(m) if m.is_dir() => Some("a folder, not a topology file"),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some("no such file"),
            // A file, or one the system will not say (no permission):
            // reading it names what is wrong.
            _ => None,
        }
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

//! Signal maps: which signal of a foreign waveform is which signal of the
//! model, and whether its bits run the other way (`--map map.toml`).
//!
//! ```toml
//! # foreign name = model name
//! [signals]
//! dest_bits = "dests"
//! # a vector whose bit 0 is the model's most significant bit
//! repl_q = { model = "replicate", reverse = true }
//! ```
//!
//! Names are relative to the scope being compared (`--scope`). A vector
//! declared with an ascending range (`[0:7]`) is read by its declared bit
//! numbers without a map; `reverse` is for a vector whose bit numbering
//! itself is the other way round.

use crate::net::toml_error;
use crate::{Error, Result};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Deserialize)]
#[serde(untagged)]
enum Entry {
    Name(String),
    Full {
        model: String,
        #[serde(default)]
        reverse: bool,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    signals: BTreeMap<String, Entry>,
}

/// One mapped signal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mapping {
    /// The name in the foreign waveform.
    pub foreign: String,
    /// The model's name.
    pub model: String,
    /// The bits run the other way.
    pub reverse: bool,
}

/// A set of mappings; signals not in it have the same name in both.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SignalMap {
    entries: Vec<Mapping>,
}

impl SignalMap {
    /// No mapping: every name is the model's.
    pub fn identity() -> Self {
        SignalMap::default()
    }

    /// Parses a map file's text.
    pub fn from_toml_str(text: &str) -> Result<Self> {
        let f: File = toml::from_str(text).map_err(|e| toml_error(text, e))?;
        let mut entries: Vec<Mapping> = f
            .signals
            .into_iter()
            .map(|(foreign, e)| match e {
                Entry::Name(model) => Mapping {
                    foreign,
                    model,
                    reverse: false,
                },
                Entry::Full { model, reverse } => Mapping {
                    foreign,
                    model,
                    reverse,
                },
            })
            .collect();
        entries.sort_by(|a, b| a.model.cmp(&b.model));
        if let Some(w) = entries.windows(2).find(|w| w[0].model == w[1].model) {
            return Err(Error::Wave(format!(
                "the map names model signal `{}` twice (for `{}` and `{}`)",
                w[0].model, w[0].foreign, w[1].foreign
            )));
        }
        Ok(SignalMap { entries })
    }

    /// Reads a map file.
    pub fn load(path: impl AsRef<Path>) -> Result<Self> {
        crate::error::load_text(path.as_ref(), SignalMap::from_toml_str)
    }

    /// The foreign name of model signal `model`, and whether it is
    /// reversed.
    pub fn foreign_of(&self, model: &str) -> (String, bool) {
        match self.entries.iter().find(|m| m.model == model) {
            Some(m) => (m.foreign.clone(), m.reverse),
            None => (model.to_string(), false),
        }
    }

    /// The model name of foreign signal `foreign`, and whether it is
    /// reversed.
    pub fn model_of(&self, foreign: &str) -> (String, bool) {
        match self.entries.iter().find(|m| m.foreign == foreign) {
            Some(m) => (m.model.clone(), m.reverse),
            None => (foreign.to_string(), false),
        }
    }

    /// The mappings.
    pub fn entries(&self) -> &[Mapping] {
        &self.entries
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_reversals() {
        let m = SignalMap::from_toml_str(
            "[signals]\ndest_bits = \"dests\"\nrepl_q = { model = \"replicate\", reverse = true }\n",
        )
        .unwrap();
        assert_eq!(m.foreign_of("dests"), ("dest_bits".into(), false));
        assert_eq!(m.foreign_of("replicate"), ("repl_q".into(), true));
        assert_eq!(m.foreign_of("valid"), ("valid".into(), false));
        assert_eq!(m.model_of("repl_q"), ("replicate".into(), true));
        let e = SignalMap::from_toml_str("[signal]\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown field `signal`"), "{e}");
        let e = SignalMap::from_toml_str("[signals]\na = \"x\"\nb = \"x\"\n")
            .unwrap_err()
            .to_string();
        assert_eq!(e, "the map names model signal `x` twice (for `a` and `b`)");
    }
}

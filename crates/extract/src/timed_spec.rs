//! What the `.req` and FRET imports share: the shape of the timed spec TOML they write
//! (docs/timed.md), each with its own `timed` keys, and [`Lines`], which turns the byte
//! offsets of their errors into lines and columns.

use serde::Serialize;
use std::collections::BTreeMap;

/// A timed spec file; `T` is the `timed` table of a requirement.
#[derive(Serialize)]
pub(crate) struct Doc<T> {
    pub(crate) spec: SpecOut,
    pub(crate) time: TimeOut,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) variables: Vec<VarOut>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) requirements: Vec<ReqOut<T>>,
}

/// `[spec]`.
#[derive(Serialize)]
pub(crate) struct SpecOut {
    pub(crate) name: String,
}

/// `[time]`: the tick, dense semantics when asked, and named durations.
#[derive(Serialize)]
pub(crate) struct TimeOut {
    pub(crate) tick: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) semantics: Option<&'static str>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) durations: BTreeMap<String, String>,
}

/// One `[[variables]]` entry.
#[derive(Serialize)]
pub(crate) struct VarOut {
    pub(crate) name: String,
    pub(crate) sort: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) role: Option<&'static str>,
}

/// One `[[requirements]]` entry.
#[derive(Serialize)]
pub(crate) struct ReqOut<T> {
    pub(crate) id: String,
    pub(crate) text: String,
    pub(crate) timed: T,
}

/// Where the lines of a text start: 1-based line and column (in characters) of a byte
/// offset, without rescanning the text.
pub(crate) struct Lines<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    pub(crate) fn new(text: &'a str) -> Lines<'a> {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Lines { text, starts }
    }

    /// The line and column of byte offset `pos` (clamped to the text).
    pub(crate) fn at(&self, pos: usize) -> (u32, u32) {
        let pos = pos.min(self.text.len());
        let l = self.starts.partition_point(|&s| s <= pos).saturating_sub(1);
        let start = self.starts[l];
        let col = self
            .text
            .get(start..pos)
            .map_or(pos - start, |s| s.chars().count());
        (l as u32 + 1, col as u32 + 1)
    }
}

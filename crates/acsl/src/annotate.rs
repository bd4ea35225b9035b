//! Annotation insertion and harness extraction.
//!
//! Insertion never regenerates the source: an annotated text is the original text
//! with new bytes inserted at given offsets, so removing the inserted ranges gives
//! back the original byte for byte ([`Annotated::strip`]).
//!
//! A harness keeps every line of the original at its line number: what it leaves
//! out is replaced by as many newlines as it spanned, so Frama-C's line numbers for
//! a harness are those of the original file.

use serde::{Deserialize, Serialize};

use crate::front::{CFile, ItemKind, Span};
use crate::segment::{Poi, PoiKind, Segment};

/// One inserted piece of text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Insertion {
    /// Byte offset in the original text before which `text` goes.
    pub at: usize,
    /// The inserted bytes.
    pub text: String,
}

/// An annotated copy of a text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Annotated {
    /// The new text.
    pub text: String,
    /// Byte ranges of the new text that were inserted, in order.
    pub inserted: Vec<(usize, usize)>,
}

impl Annotated {
    /// The new text without the inserted ranges: the original text.
    pub fn strip(&self) -> String {
        let mut out = String::with_capacity(self.text.len());
        let mut pos = 0;
        for &(a, b) in &self.inserted {
            out.push_str(&self.text[pos..a]);
            pos = b;
        }
        out.push_str(&self.text[pos..]);
        out
    }
}

/// Errors of annotation insertion.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnnotateError {
    /// An offset is past the end of the text or inside a UTF-8 sequence.
    #[error("offset {0} is not a character boundary of the text")]
    BadOffset(usize),
    /// An annotation clause contains `*/`, which would end the comment early.
    #[error("annotation clause contains `*/`: {0}")]
    ClauseEndsComment(String),
    /// The function named by the point of interest is not in the file.
    #[error("no function `{0}` in the file")]
    NoFunction(String),
    /// The loop index is out of range.
    #[error("function `{function}` has no loop number {index}")]
    NoLoop {
        /// The function.
        function: String,
        /// The requested loop index.
        index: usize,
    },
}

/// Insert pieces of text at offsets of `original` (stable for equal offsets).
pub fn insert(original: &str, insertions: &[Insertion]) -> Result<Annotated, AnnotateError> {
    let mut ins: Vec<&Insertion> = insertions.iter().collect();
    ins.sort_by_key(|i| i.at);
    let mut text = String::with_capacity(original.len() + 256);
    let mut inserted = Vec::new();
    let mut pos = 0;
    for i in ins {
        if i.at > original.len() || !original.is_char_boundary(i.at) {
            return Err(AnnotateError::BadOffset(i.at));
        }
        text.push_str(&original[pos..i.at]);
        let a = text.len();
        text.push_str(&i.text);
        inserted.push((a, text.len()));
        pos = i.at;
    }
    text.push_str(&original[pos..]);
    Ok(Annotated { text, inserted })
}

/// Clauses that must come first in an ACSL contract or loop annotation.
fn goes_first(clause: &str) -> bool {
    let c = clause.trim_start();
    c.starts_with("requires")
        || c.starts_with("terminates")
        || c.starts_with("decreases")
        || c.starts_with("loop invariant")
        || c.starts_with("loop assigns")
}

fn indentation_at(text: &str, at: usize) -> String {
    let line_start = text[..at].rfind('\n').map(|p| p + 1).unwrap_or(0);
    text[line_start..at]
        .chars()
        .take_while(|c| c.is_whitespace())
        .collect()
}

fn normalise(clause: &str) -> Result<String, AnnotateError> {
    let c = clause.trim();
    if c.contains("*/") {
        return Err(AnnotateError::ClauseEndsComment(c.to_string()));
    }
    let c = c.trim_end_matches(';').trim_end();
    Ok(format!("{c};"))
}

/// The insertions that add `clauses` (e.g. `ensures \result >= 0`) at a point of
/// interest. Without an existing annotation a new `/*@ ... */` comment goes before
/// the function or loop; with one, the clauses go inside it (requires and
/// invariants first, the rest last), so the existing bytes stay as they are.
pub fn insertions_for(
    file: &CFile,
    poi: &Poi,
    clauses: &[String],
) -> Result<Vec<Insertion>, AnnotateError> {
    if clauses.is_empty() {
        return Ok(Vec::new());
    }
    let mut first = Vec::new();
    let mut last = Vec::new();
    for c in clauses {
        let n = normalise(c)?;
        if goes_first(&n) {
            first.push(n);
        } else {
            last.push(n);
        }
    }
    let text = &file.text;
    let boundary = |at: usize| at <= text.len() && text.is_char_boundary(at);
    if !boundary(poi.anchor) {
        return Err(AnnotateError::BadOffset(poi.anchor));
    }
    if let Some(e) = poi.existing {
        let well_formed = e.start + 5 <= e.end
            && boundary(e.start)
            && boundary(e.end)
            && (text[e.start..].starts_with("/*@") || text[e.start..].starts_with("//@"));
        if !well_formed {
            return Err(AnnotateError::BadOffset(e.start));
        }
    }
    let indent = indentation_at(text, poi.anchor);
    match poi.existing {
        None => {
            let all: Vec<String> = first.into_iter().chain(last).collect();
            let mut s = String::from("/*@ ");
            for (i, c) in all.iter().enumerate() {
                if i > 0 {
                    s.push('\n');
                    s.push_str(&indent);
                    s.push_str("    ");
                }
                s.push_str(c);
            }
            s.push_str(" */\n");
            s.push_str(&indent);
            Ok(vec![Insertion {
                at: poi.anchor,
                text: s,
            }])
        }
        Some(span) => {
            let body = span.text(text);
            let mut out = Vec::new();
            if body.starts_with("//@") {
                // A one-line annotation: add a separate comment before it.
                let all: Vec<String> = first.into_iter().chain(last).collect();
                out.push(Insertion {
                    at: span.start,
                    text: format!("/*@ {} */\n{indent}", all.join(" ")),
                });
                return Ok(out);
            }
            if !first.is_empty() {
                let mut s = String::new();
                for c in &first {
                    s.push(' ');
                    s.push_str(c);
                    s.push('\n');
                    s.push_str(&indent);
                    s.push_str("   ");
                }
                out.push(Insertion {
                    at: span.start + 3,
                    text: s,
                });
            }
            if !last.is_empty() {
                let close = span.end.saturating_sub(2);
                // After a line break the clauses start on that line.
                let at_line_start = text[..close].trim_end_matches([' ', '\t']).ends_with('\n');
                let mut s = String::new();
                for (i, c) in last.iter().enumerate() {
                    if i > 0 || !at_line_start {
                        s.push('\n');
                        s.push_str(&indent);
                    }
                    s.push_str("    ");
                    s.push_str(c);
                }
                s.push(if at_line_start { '\n' } else { ' ' });
                out.push(Insertion { at: close, text: s });
            }
            Ok(out)
        }
    }
}

/// Add `clauses` at a point of interest and return the annotated text.
pub fn annotate_poi(
    file: &CFile,
    poi: &Poi,
    clauses: &[String],
) -> Result<Annotated, AnnotateError> {
    if file.function(&poi.function).is_none() {
        return Err(AnnotateError::NoFunction(poi.function.clone()));
    }
    if let PoiKind::Loop { index } = poi.kind {
        let f = file
            .function(&poi.function)
            .map(|f| f.loops.len())
            .unwrap_or(0);
        if index >= f {
            return Err(AnnotateError::NoLoop {
                function: poi.function.clone(),
                index,
            });
        }
    }
    insert(&file.text, &insertions_for(file, poi, clauses)?)
}

/// Replace `span` of `text` by as many newlines as it contains.
fn blank(out: &mut String, text: &str, span: Span) {
    let n = span.text(text).bytes().filter(|&b| b == b'\n').count();
    for _ in 0..n {
        out.push('\n');
    }
}

/// A self-contained file for verifying one segment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Harness {
    /// The segment's index.
    pub segment: usize,
    /// Functions verified in this harness (the segment's definitions). Only
    /// these are given to WP (`-wp-fct`).
    pub functions: Vec<String>,
    /// Called functions used through their contracts (kept as prototypes with
    /// their contracts: assumed, not proved, here).
    pub assumed: Vec<String>,
    /// Called functions kept whole, with their bodies, because they have no
    /// contract or no default `assigns` clause (see
    /// [`Segment::called_with_body`]). They are not verified here.
    pub with_body: Vec<String>,
    /// The harness text; every kept line is at its original line number.
    pub text: String,
}

/// The harness for `segment`: preprocessor lines, global annotations, types,
/// globals and prototypes are kept; the segment's functions are kept whole with
/// their contracts and loop annotations; called functions with a default
/// `assigns` clause become prototypes with their contracts; called functions
/// without one are kept whole (a prototype would let Frama-C invent an `assigns`
/// clause for them); every other function becomes a prototype without contract.
/// Removed bytes are replaced by their newlines.
///
/// The callees of a function kept whole need nothing more: WP never looks into
/// a callee's body, only at its contract and at whether it has a body, and it
/// verifies only the segment's functions.
pub fn harness(file: &CFile, segment: &Segment) -> Harness {
    let text = &file.text;
    let mut out = String::with_capacity(text.len());
    let mut pos = 0;
    let keep_whole = |name: &str| {
        segment.functions.iter().any(|f| f == name)
            || segment.called_with_body.iter().any(|f| f == name)
    };
    let assumed = |name: &str| segment.called_by_contract.iter().any(|f| f == name);
    for item in &file.items {
        if item.kind != ItemKind::Function {
            continue;
        }
        if keep_whole(&item.name) {
            continue;
        }
        let keep_contract = assumed(&item.name);
        let full = item.full_span();
        out.push_str(&text[pos..full.start]);
        if let Some(c) = item.contract {
            if keep_contract {
                out.push_str(c.text(text));
                out.push_str(&text[c.end..item.span.start]);
            } else {
                blank(
                    &mut out,
                    text,
                    Span {
                        start: c.start,
                        end: item.span.start,
                        line: c.line,
                    },
                );
            }
        }
        match item.body {
            Some(b) => {
                out.push_str(&text[item.span.start..b.start]);
                out.push(';');
                blank(&mut out, text, b);
                out.push_str(&text[b.end..item.span.end]);
            }
            None => out.push_str(item.span.text(text)),
        }
        pos = item.span.end;
    }
    out.push_str(&text[pos..]);
    Harness {
        segment: segment.index,
        functions: segment.functions.clone(),
        assumed: segment.called_by_contract.clone(),
        with_body: segment.called_with_body.clone(),
        text: out,
    }
}

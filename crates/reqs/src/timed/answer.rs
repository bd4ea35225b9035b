//! A timed pattern given as keys and values (a language model's structured answer)
//! read by the same checks as a `[requirements.timed]` table in a spec file.
//!
//! [`parse_pattern`] writes the keys as the text of a TOML table and hands it to the
//! spec loader's own pattern reader, so an answer meets exactly the rules of a spec
//! file: unknown keys, two scopes, triggers or timings, durations that are not whole
//! ticks, formulas over names the schema does not have, sorts. Formulas are held to
//! the bounds of untrusted text (`logic::Limits`) first. [`keys_of`] is the way back:
//! a pattern as the keys a spec file would hold.

use super::{Pattern, Scope, TimeBase, Timing, Trigger};
use crate::spec::{read_toml, Loader, RawTimed, Spec};
use logic::source::{Diagnostic, Diagnostics, SourceFile, Span};
use serde::Deserialize;
use toml::Spanned;

/// The value of one key of a `[requirements.timed]` table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyValue {
    /// A formula or a duration.
    Text(String),
    /// `initially` and `next`.
    Flag(bool),
}

/// The keys of `[requirements.timed]`, in the order a spec file writes them.
pub const KEYS: &[&str] = &[
    "scope_while",
    "scope_after",
    "scope_until",
    "scope_before",
    "if",
    "when",
    "initially",
    "held_for",
    "within_last",
    "then",
    "next",
    "within",
    "for",
    "not_before",
    "until",
    "before",
];

/// The keys whose value is `true` rather than a string.
pub const FLAG_KEYS: &[&str] = &["initially", "next"];

/// The keys whose value is a state formula.
pub const FORMULA_KEYS: &[&str] = &[
    "scope_while",
    "scope_after",
    "scope_until",
    "scope_before",
    "if",
    "when",
    "then",
    "until",
    "before",
];

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Wrapper {
    timed: Spanned<RawTimed>,
}

/// The name the answer's text has in diagnostics.
pub const ANSWER_FILE: &str = "answer";

/// Reads a pattern given as keys over the schema and time base of `spec`, with the
/// checks of a spec file's `[requirements.timed]` table. The diagnostics are located
/// in the table's text as [`table_text`] writes it (file name [`ANSWER_FILE`]), one
/// line per key, so each names the key it is about.
pub fn parse_pattern(spec: &Spec, keys: &[(String, KeyValue)]) -> Result<Pattern, Diagnostics> {
    let text = table_text(keys);
    let file = SourceFile::new(ANSWER_FILE, text.clone());
    let Some(tb) = &spec.time else {
        return Err(file.locate_all(&[Diagnostic::error(
            Span::new(0, 0),
            "the spec has no [time] table, so it has no timed requirements",
        )]));
    };
    let limits = logic::Limits::default();
    let mut diags = Vec::new();
    let mut offset = "[timed]\n".len();
    for (k, v) in keys {
        let line = key_line(k, v);
        if let KeyValue::Text(f) = v {
            if FORMULA_KEYS.contains(&k.as_str()) {
                let span = Span::new(offset, offset + line.len());
                if f.len() > limits.max_bytes {
                    diags.push(Diagnostic::error(
                        span,
                        format!(
                            "`{k}` is {} bytes, over the limit of {} bytes",
                            f.len(),
                            limits.max_bytes
                        ),
                    ));
                } else {
                    // Reading errors are the spec reader's to report, located.
                    let read = logic::sexp::read(f, logic::sexp::ReadLimits::default());
                    if read.errors.is_empty()
                        && read.items.iter().any(|i| i.depth() > limits.max_depth)
                    {
                        diags.push(Diagnostic::error(
                            span,
                            format!("`{k}` is nested deeper than {} levels", limits.max_depth),
                        ));
                    }
                }
            }
        }
        offset += line.len() + 1;
    }
    if !diags.is_empty() {
        return Err(file.locate_all(&diags));
    }
    let hint = format!("the keys are {}", KEYS.join(", "));
    let raw: Wrapper = read_toml(&file, Some(&hint))?;
    let mut loader = Loader::new(&file);
    match loader.pattern(&raw.timed, tb, &spec.context) {
        Some(p) => Ok(p),
        None => {
            let mut ds = std::mem::take(&mut loader.diags);
            if ds.is_empty() {
                ds.push(Diagnostic::error(
                    Span::new(0, text.len()),
                    "the pattern could not be read",
                ));
            }
            Err(file.locate_all(&ds))
        }
    }
}

fn key_line(k: &str, v: &KeyValue) -> String {
    let key = if k
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        && !k.is_empty()
    {
        k.to_string()
    } else {
        toml::Value::String(k.to_string()).to_string()
    };
    let value = match v {
        KeyValue::Text(s) => toml::Value::String(s.clone()).to_string(),
        KeyValue::Flag(b) => b.to_string(),
    };
    format!("{key} = {value}")
}

/// The keys as the text of a TOML table (`[timed]`, then one line per key).
pub fn table_text(keys: &[(String, KeyValue)]) -> String {
    let mut s = String::from("[timed]\n");
    for (k, v) in keys {
        s.push_str(&key_line(k, v));
        s.push('\n');
    }
    s
}

/// A duration as a spec file writes it: physical time in the tick's unit, or a number
/// of ticks where that would not read back exactly.
pub fn duration_text(tb: &TimeBase, ticks: u64) -> String {
    let shown = tb.show(ticks);
    if !shown.contains('/') && tb.duration(&shown) == Ok(ticks) {
        shown
    } else {
        format!("{ticks} ticks")
    }
}

/// The keys of a spec file's `[requirements.timed]` table for `p`, formulas printed by
/// vera, durations in the tick's unit. [`parse_pattern`] reads them back to `p`.
pub fn keys_of(p: &Pattern, tb: &TimeBase) -> Vec<(String, KeyValue)> {
    let f = |t: &logic::Term| KeyValue::Text(logic::print::term(t));
    let d = |n: u64| KeyValue::Text(duration_text(tb, n));
    let mut out: Vec<(String, KeyValue)> = Vec::new();
    let mut put = |k: &str, v: KeyValue| out.push((k.to_string(), v));
    match &p.scope {
        Scope::Globally => {}
        Scope::While(c) => put("scope_while", f(c)),
        Scope::After(c) => put("scope_after", f(c)),
        Scope::AfterUntil(a, b) => {
            put("scope_after", f(a));
            put("scope_until", f(b));
        }
        Scope::Before(c) => put("scope_before", f(c)),
    }
    match &p.trigger {
        Trigger::Always => {}
        Trigger::Level(c) => put("if", f(c)),
        Trigger::Edge(c) => put("when", f(c)),
        Trigger::Initially => put("initially", KeyValue::Flag(true)),
        Trigger::HeldFor(c, n) => {
            put("if", f(c));
            put("held_for", d(*n));
        }
        Trigger::WithinLast(c, n) => {
            put("if", f(c));
            put("within_last", d(*n));
        }
    }
    put("then", f(&p.response));
    match &p.timing {
        Timing::Immediately => {}
        Timing::Next => put("next", KeyValue::Flag(true)),
        Timing::Within(n) => put("within", d(*n)),
        Timing::For(n) => put("for", d(*n)),
        Timing::NotBefore(n) => put("not_before", d(*n)),
        Timing::Until(c) => put("until", f(c)),
        Timing::Before(c) => put("before", f(c)),
    }
    out
}

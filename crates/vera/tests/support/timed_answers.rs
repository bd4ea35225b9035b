//! Pattern answers of a model for a timed spec (docs/timed.md), as the local chat server
//! of tests/support/chat_server.rs plays them: the JSON object of every key of
//! `[requirements.timed]`, `null` where a key is not used, which is the shape the
//! pattern schema of the requests asks for.
#![allow(dead_code)]

use serde_json::Value;

/// Every key of a pattern answer, in the order of the schema.
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

/// A pattern answer with every key of the schema, null where not given.
pub fn answer(pairs: &[(&str, Value)]) -> String {
    answer_value(pairs).to_string()
}

/// [`answer`] as a JSON value (for a batch answer that maps ids to patterns).
pub fn answer_value(pairs: &[(&str, Value)]) -> Value {
    let mut m = serde_json::Map::new();
    for k in KEYS {
        m.insert(k.to_string(), Value::Null);
    }
    for (k, v) in pairs {
        m.insert(k.to_string(), v.clone());
    }
    Value::Object(m)
}

/// "Once no_flow becomes true, alarm": the edge reading.
pub fn edge() -> String {
    answer(&[("when", "no_flow".into()), ("then", "alarm".into())])
}

/// "Whenever no_flow holds, alarm": the level reading.
pub fn level() -> String {
    answer(&[("if", "no_flow".into()), ("then", "alarm".into())])
}

//! The neurosymbolic loops: a language model proposes formulas, answers or
//! specifications; the term layer parses them as untrusted input, and the solver or
//! verifier decides. Every loop runs against any `llm::Provider` — a real endpoint, a
//! recorded cassette or a scripted provider in tests.

#![warn(missing_docs)]

pub mod ambiguity;
pub mod cells;
pub mod clarify;
pub mod command;
pub mod controlled;
pub mod csynth;
pub mod eval;
pub mod faults;
pub mod feedback;
pub mod form;
pub mod formalize;
pub mod formpath;
pub mod grammar;
pub mod qa;
pub mod readback;
pub mod restate;
pub mod roundtrip;
pub mod run;
pub mod schema;
pub mod select;
pub mod spec_edit;
pub mod timed;
pub mod voting;
mod wording;

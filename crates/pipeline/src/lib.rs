//! The neurosymbolic loops: a language model proposes formulas, answers or
//! specifications; the term layer parses them as untrusted input, and the solver or
//! verifier decides. Every loop runs against any `llm::Provider` — a real endpoint, a
//! recorded cassette or a scripted provider in tests.

#![warn(missing_docs)]

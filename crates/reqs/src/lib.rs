//! Requirement specs over a typed schema, and what the solver can say about them:
//! VeriMed's four audits (global consistency, vacuity, violatability, redundancy) and
//! scenario questions with entailment, counterexamples and derived facts.
//!
//! Deterministic: no LLM is involved here.

#![warn(missing_docs)]

pub mod ask;
pub mod audit;
pub mod equiv;
pub mod forcing;
pub mod generate;
pub mod input;
mod marco;
pub mod mutate;
pub mod progress;
pub mod realize;
pub mod spec;
pub mod summary;
pub mod timed;

pub use ask::{Asker, Derivation, Question, Verdict};
pub use audit::{audit, AuditOptions, AuditReport, Incomplete};
pub use spec::{load, load_csv, load_csv_with, parse_spec, CsvColumns, LoadError, Spec};

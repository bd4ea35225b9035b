//! Requirements-based tests (docs/tests.md): from a spec's formal requirements, the
//! test obligations of each requirement (its trigger, a masking MC/DC pair per
//! condition — Whalen et al.'s unique-first-cause coverage on a state formula —,
//! boundary values of every numeric comparison), solver-checked cases that meet them
//! with the outputs the whole spec forces (or `free`), findings for obligations no
//! valid state meets, a minimized and reproducible suite, the suite run against an
//! implementation (an executable, a BL program, a C function), and the coverage of
//! an existing suite.
//!
//! Deterministic: no language model is involved. Every case is a state the solver
//! found and vera's evaluator confirmed against the domain and every requirement, and
//! a second solver process confirms it again; an `unknown` answer is never a met
//! obligation or a passed case.

#![warn(missing_docs)]

pub mod cfunc;
pub mod command;
pub mod conditions;
pub mod cover;
pub mod generate;
pub mod kill;
pub mod obligations;
pub mod problem;
pub mod run;
pub mod session;
pub mod suite;
pub mod table;
pub mod timed;
pub mod timed_cover;
pub mod timed_run;
pub mod values;

pub use generate::{generate, GenerateError, Options};
pub use problem::{Problem, ProblemError, RoleSource, Roles};
pub use suite::{Case, Expected, Suite};

//! vera's term layer: sorts, terms, an SMT-LIB 2.6 parser that keeps positions, a type
//! checker, a printer whose output re-parses to the same term, and an evaluator over
//! exact rationals.
//!
//! This crate knows nothing of processes, files on disk or terminals.
//!
//! ```
//! use logic::{parse_script, SourceFile, eval_bool, Model, Value};
//! let f = SourceFile::new("ex.smt2", "(declare-const x Int) (assert (> (* 2 x) 3))");
//! let script = parse_script(&f).unwrap();
//! let a = script.assertions().next().unwrap();
//! assert_eq!(logic::print::term(a), "(> (* 2 x) 3)");
//! let mut m = Model::new();
//! m.insert("x".into(), Value::Int(2.into()));
//! assert!(eval_bool(a, &m, &script.context).unwrap());
//! ```

#![warn(missing_docs)]

pub mod context;
pub mod elab;
pub mod eval;
mod num;
pub mod print;
mod scope;
pub mod script;
pub mod sexp;
pub mod source;
pub mod term;
pub mod testgen;
pub mod untrusted;

/// Runs a step of a recursive pass with enough stack, growing it on the heap when
/// needed, so nesting up to the reader's limit never overflows (even in debug builds
/// and on small thread stacks).
pub(crate) fn deep<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(64 * 1024, 1024 * 1024, f)
}

pub use context::{Context, FunDef};
pub use eval::{eval, eval_bool, EvalError, Model};
pub use script::{parse_formula, parse_script, parse_term, Command, Script};
pub use source::{Diagnostic, Diagnostics, Located, SourceFile, Span};
pub use term::{Op, Sort, Symbol, Term, Value};
pub use untrusted::{parse_untrusted, Limits, Untrusted};

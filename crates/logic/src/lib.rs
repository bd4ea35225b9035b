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

/// Stack size of [`with_big_stack`]'s thread: address space reserved, not memory used
/// (pages are committed as the stack grows).
pub const BIG_STACK: usize = 1 << 30;

/// Runs `f` on a thread with a [`BIG_STACK`] stack and waits for it. Long rule chains
/// (a nested `ite` or `if` per table row) make trees thousands of levels deep; every
/// pass over them that is not already iterative or guarded by a stack check (derived
/// `Clone`, `Hash`, `Drop`) then has room. A panic in `f` is passed on. When no such
/// thread can be started, `f` runs on the current one.
pub fn with_big_stack<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    let slot = std::sync::Mutex::new(Some(f));
    let ran = std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .name("vera-deep".into())
            .stack_size(BIG_STACK)
            .spawn_scoped(scope, || {
                let f = slot.lock().ok().and_then(|mut g| g.take());
                f.map(|f| f())
            });
        match spawned {
            Ok(handle) => match handle.join() {
                Ok(r) => r,
                Err(panic) => std::panic::resume_unwind(panic),
            },
            Err(_) => None,
        }
    });
    match ran {
        Some(r) => r,
        None => {
            let f = slot
                .into_inner()
                .ok()
                .flatten()
                .expect("f runs exactly once");
            f()
        }
    }
}

pub use context::{Context, FunDef};
pub use eval::{eval, eval_bool, EvalError, Model};
pub use script::{parse_formula, parse_script, parse_term, Command, Script};
pub use source::{Diagnostic, Diagnostics, Located, SourceFile, Span};
pub use term::{Op, Sort, Symbol, Term, Value};
pub use untrusted::{parse_untrusted, Limits, Untrusted};

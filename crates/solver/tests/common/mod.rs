//! Helpers shared by the integration tests.
#![allow(dead_code)]

use logic::{SourceFile, Term};
use solver::{Solver, SolverConfig, SolverKind};
use std::time::Duration;

/// Starts a real solver with a short timeout.
pub fn start(kind: SolverKind) -> Solver {
    let mut c = SolverConfig::new(kind);
    c.timeout = Duration::from_secs(10);
    Solver::start(&c).unwrap_or_else(|e| panic!("{kind} does not start: {e}"))
}

/// Parses a Boolean formula against the solver's declarations.
pub fn f(s: &Solver, text: &str) -> Term {
    logic::parse_formula(&SourceFile::new("test", text), s.context())
        .unwrap_or_else(|d| panic!("bad test formula {text}: {d}"))
}

/// Sends declarations and assertions written as SMT-LIB text.
pub fn script(s: &mut Solver, text: &str) {
    let parsed = logic::script::parse_script_with(
        &SourceFile::new("test", text),
        s.context().clone(),
        Default::default(),
    )
    .unwrap_or_else(|d| panic!("bad test script: {d}"));
    for c in parsed.commands {
        s.command(&c.command)
            .unwrap_or_else(|e| panic!("{}: {e}", logic::print::command(&c.command)));
    }
}

/// Generates one test per solver kind from a function taking the kind.
#[macro_export]
macro_rules! both {
    ($($name:ident),* $(,)?) => {
        mod z3 {
            $( #[test] fn $name() { super::$name(solver::SolverKind::Z3) } )*
        }
        mod cvc5 {
            $( #[test] fn $name() { super::$name(solver::SolverKind::Cvc5) } )*
        }
    };
}

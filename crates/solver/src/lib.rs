//! vera's connection to SMT solvers: z3 and cvc5 processes driven over SMT-LIB2 pipes.
//!
//! # Protocol
//!
//! A [`Solver`] owns one process (z3 `-in -smt2`, cvc5 `--lang smt2 --incremental
//! --quiet`). Everything sent is printed by [`logic::print::command`]; no other text
//! reaches the solver. The first command is `(set-option :print-success true)`, so
//! every command is answered: `success`, an `(error "...")`, or the answer of a query.
//! A reader thread splits stdout into complete s-expressions (strings, `|quoted|`
//! symbols and answers over several lines included) and another thread keeps the
//! last few KB of stderr for crash reports; an answer longer than 64 MiB is garbage.
//! After the version check (z3 4.8, cvc5 1.0 or newer) comes a sanity probe, the
//! first time a binary is started in the process: on the empty state `(check-sat)`
//! must be `sat` and `(check-sat-assuming (false))` must be `unsat`, else the solver is
//! refused with [`SolverError::FailedProbe`]; the process is then reset (cvc5 takes no
//! `set-logic` after a check). Models, unsat assumptions and the per-query time limit
//! are switched on last.
//!
//! An `(error ...)` answer is a [`SolverError::Solver`]; the command is not recorded and
//! the solver state is as before. (cvc5 exits after some errors; vera notices with a
//! cheap probe and restarts it.)
//!
//! # Restarts
//!
//! Every acknowledged state-changing command is recorded in a stack of `push` frames.
//! When the process dies, hangs past the watchdog (the timeout plus the larger of 1 s
//! and half the timeout) or prints garbage, it is dropped; before the next command a
//! new process is started and the recorded frames are re-sent, so the caller sees the
//! same state. A check during which the process died or hung ends in
//! [`Outcome::Unknown`] with [`Reason::Crashed`] or [`Reason::Timeout`]; garbage is a
//! [`SolverError::Protocol`]. `sat` and `unsat` are only reported when the solver said
//! so.
//!
//! # Validation
//!
//! With [`SolverConfig::validate`] (the default), a `sat` model is checked by
//! evaluating every assertion in force and every assumption with
//! [`logic::eval::Evaluator`]; a false or unevaluable one is a
//! [`SolverError::InvalidModel`].
//!
//! An `unsat` answer is checked before it is returned, whatever its core (an empty
//! core, and the answer to a plain [`Solver::check`], stand for the assertions alone):
//!
//! 1. vera evaluates the assertions in force and the core under the last validated
//!    model and under the assignment of default values (`false`, `0`, the first
//!    constructor; assumption literals in the core made true). If everything holds
//!    there, the answer is wrong: [`SolverError::InvalidCore`].
//! 2. A non-empty core is re-checked on the same process with `check-sat-assuming`
//!    and must be `unsat`, otherwise [`SolverError::InvalidCore`]. (This keeps the
//!    process's sequence of queries, and so its later models, as they were.)
//! 3. The core is re-checked in a second process of the same binary and options,
//!    started on the first re-check and kept in step with the first one (only the
//!    commands it has not seen are sent). `unsat` confirms the answer; `sat` is
//!    [`SolverError::InvalidCore`]; `unknown` makes the check's outcome unknown (the
//!    answer is not confirmed, so it is not given); anything else (a crash, an error)
//!    is [`SolverError::UnconfirmedCore`]. With a transcript, the re-check process
//!    writes `<stem>.recheck.smt2` next to it.
//!
//! A core that names an assumption that was not asked for is a
//! [`SolverError::Protocol`].
//!
//! # Transcripts
//!
//! With [`SolverConfig::transcript`], every command is written as sent and every
//! answer as a `; ` comment (vera's notes start with `;; `), so running the solver on
//! the file replays the session. A restart is written as a `(reset)` followed by the
//! re-sent state.
//!
//! ```no_run
//! use logic::{Op, Sort, Term};
//! use solver::{Outcome, Solver, SolverConfig, SolverKind};
//! let mut s = Solver::start(&SolverConfig::new(SolverKind::Z3))?;
//! s.declare_const("x", Sort::Int)?;
//! let x = Term::var("x", Sort::Int);
//! s.assert(&Term::app(Op::Gt, vec![x, Term::int(2)]))?;
//! assert!(matches!(s.check()?, Outcome::Sat(m) if m.get("x").is_some()));
//! # Ok::<(), solver::SolverError>(())
//! ```

#![warn(missing_docs)]

mod config;
mod error;
pub mod horn;
mod pool;
mod process;
pub mod script;
mod solver;
mod transcript;

pub use config::{SolverConfig, SolverKind, UnknownSolver};
pub use error::{Reason, ReasonKind, SolverError, Undecided};
pub use pool::{job_count, Pool};
pub use solver::{default_value, Outcome, Solver};
pub use transcript::transcript_files;

//! Errors and the reasons a solver gives no answer.

use logic::{Model, Term};
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

/// Why a check ended without `sat` or `unsat`. An outcome, not an error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reason {
    /// The per-query time limit ran out (solver-side or the wall-clock watchdog).
    Timeout,
    /// The solver ran out of resources (its resource budget or memory).
    ResourceLimit,
    /// The solver's procedures are incomplete for the problem (e.g. non-linear arithmetic).
    Incomplete,
    /// The solver process died mid-query; the text has its exit status and stderr tail.
    Crashed(String),
    /// Any other reason the solver gave, as it gave it.
    Other(String),
}

impl Reason {
    /// Maps a solver's `:reason-unknown` text to a reason.
    pub fn from_solver(text: &str) -> Reason {
        let t = text.to_ascii_lowercase();
        if t.contains("timeout") || t.contains("canceled") || t.contains("cancelled") {
            Reason::Timeout
        } else if t.contains("resourceout") || t.contains("memout") || t.contains("resource") {
            Reason::ResourceLimit
        } else if t.contains("incomplete") {
            Reason::Incomplete
        } else {
            Reason::Other(text.to_string())
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::Timeout => f.write_str("the time limit was reached"),
            Reason::ResourceLimit => f.write_str("the solver ran out of resources"),
            Reason::Incomplete => {
                f.write_str("the solver's methods are incomplete for this problem")
            }
            Reason::Crashed(d) => write!(f, "the solver crashed: {d}"),
            Reason::Other(r) => write!(f, "the solver gave up ({r})"),
        }
    }
}

/// What kind of reason a check has no answer: what a program reads (`reason_kind` in
/// JSON) next to the text a person reads (`reason`). The default, `Other`, is what a
/// payload written before `reason_kind` existed reads as.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum ReasonKind {
    /// The per-query time limit ran out.
    Timeout,
    /// The solver ran out of resources.
    ResourceLimit,
    /// The solver's methods are incomplete for the problem.
    Incomplete,
    /// The solver process died.
    Crashed,
    /// The solver could not be run or its answer could not be used (a tool error, not
    /// an answer).
    SolverError,
    /// A limit of vera's own (a bound, a cap) or any other reason.
    #[default]
    Other,
}

/// Why a verdict is undecided, as a report carries it: the reason for a person and its
/// kind for a program. Serialized flat (`reason`, `reason_kind`) into the verdict that
/// holds it. An undecided verdict is never a pass.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Undecided {
    /// Why, in words.
    pub reason: String,
    /// Why, as a kind (`other` when read from a payload that does not give it).
    #[serde(default)]
    pub reason_kind: ReasonKind,
}

impl Undecided {
    /// An undecided verdict of `kind`, said in `text`.
    pub fn new(kind: ReasonKind, text: impl Into<String>) -> Undecided {
        Undecided {
            reason: text.into(),
            reason_kind: kind,
        }
    }

    /// A verdict left open by a failure to run or read the solver.
    pub fn error(e: impl fmt::Display) -> Undecided {
        Undecided::new(ReasonKind::SolverError, format!("solver error: {e}"))
    }

    /// A verdict left open by a limit of vera's own, or any reason that is not the
    /// solver's.
    pub fn other(text: impl Into<String>) -> Undecided {
        Undecided::new(ReasonKind::Other, text)
    }

    /// The same kind, the text rewritten (to say which question it was).
    pub fn map(self, f: impl FnOnce(&str) -> String) -> Undecided {
        Undecided {
            reason: f(&self.reason),
            reason_kind: self.reason_kind,
        }
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.reason
    }
}

impl From<&Reason> for Undecided {
    fn from(r: &Reason) -> Undecided {
        let kind = match r {
            Reason::Timeout => ReasonKind::Timeout,
            Reason::ResourceLimit => ReasonKind::ResourceLimit,
            Reason::Incomplete => ReasonKind::Incomplete,
            Reason::Crashed(_) => ReasonKind::Crashed,
            Reason::Other(_) => ReasonKind::Other,
        };
        Undecided::new(kind, r.to_string())
    }
}

impl From<Reason> for Undecided {
    fn from(r: Reason) -> Undecided {
        Undecided::from(&r)
    }
}

impl fmt::Display for Undecided {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.reason)
    }
}

fn terms(ts: &[Term]) -> String {
    ts.iter()
        .map(logic::print::term)
        .collect::<Vec<_>>()
        .join(" ")
}

fn core_text(core: &[Term]) -> String {
    if core.is_empty() {
        "empty core: the assertions alone".to_string()
    } else {
        format!("core {}", terms(core))
    }
}

fn core_claim(core: &[Term]) -> String {
    if core.is_empty() {
        "the assertions alone (empty core) are".to_string()
    } else {
        format!("the assertions with its core ({}) are", terms(core))
    }
}

fn transcript_note(t: &Option<PathBuf>) -> String {
    match t {
        Some(p) => format!(" (transcript: {})", p.display()),
        None => String::new(),
    }
}

/// What can go wrong talking to a solver. Solver answers (including `unknown` and
/// crashes during a check) are [`crate::Outcome`]s, not errors.
#[derive(Debug, thiserror::Error)]
pub enum SolverError {
    /// The solver binary could not be found.
    #[error("solver `{}` not found; {hint}", program.display())]
    NotFound {
        /// The program that was looked for.
        program: PathBuf,
        /// How to get it.
        hint: String,
    },
    /// The solver is too old.
    #[error("solver version {found} is too old; vera needs {required} or newer")]
    Version {
        /// The version the solver reported.
        found: String,
        /// The oldest supported version.
        required: String,
    },
    /// Reading from or writing to the process, or the transcript, failed.
    #[error("solver i/o failed: {0}")]
    Io(#[from] std::io::Error),
    /// The transcript file may not be written (an input, or an existing file without
    /// `transcript_force`), or could not be created.
    #[error("transcript: {0}")]
    Transcript(#[from] safefile::SafeFileError),
    /// The solver answered a command with `(error "...")`. The solver state is as before
    /// the command, which is not recorded.
    #[error("the solver rejected `{command}`: {message}")]
    Solver {
        /// The command as sent.
        command: String,
        /// The solver's message.
        message: String,
    },
    /// The solver printed something that is not a valid answer. The process is
    /// restarted before the next command.
    #[error("unexpected solver output: expected {expected}, got `{got}`")]
    Protocol {
        /// What was expected.
        expected: String,
        /// What came.
        got: String,
    },
    /// The solver's model does not satisfy an assertion or assumption.
    #[error("the solver's model violates `{assertion}`; model: {model}{}", transcript_note(.transcript))]
    InvalidModel {
        /// The violated (or unevaluable) formula, printed.
        assertion: String,
        /// The model as the solver gave it.
        model: Model,
        /// The transcript of the session, if one was written.
        transcript: Option<PathBuf>,
    },
    /// The solver's unsat answer is wrong: its core (with the assertions in force) is
    /// satisfiable, shown by a fresh solver process or by a model vera evaluated. An
    /// empty core stands for the assertions alone.
    #[error("the solver's unsat answer is wrong: {} satisfiable{}", core_claim(.core), transcript_note(.transcript))]
    InvalidCore {
        /// The core.
        core: Vec<Term>,
        /// The transcript of the session, if one was written.
        transcript: Option<PathBuf>,
    },
    /// The solver failed the start-up sanity probe: it answered a trivially
    /// satisfiable or a trivially unsatisfiable query wrongly, so none of its answers
    /// can be trusted.
    #[error("the solver answered `{got}` to `{query}`, which is trivially {expected}; vera does not trust its answers")]
    FailedProbe {
        /// The probe as sent.
        query: String,
        /// The only right answer.
        expected: &'static str,
        /// What the solver answered.
        got: String,
    },
    /// An unsat answer could not be confirmed: the re-check of its core in a fresh
    /// solver process crashed or failed (one that answers `unknown` makes the check's
    /// outcome unknown instead).
    #[error("the solver's unsat answer could not be confirmed ({}): {detail}{}", core_text(.core), transcript_note(.transcript))]
    UnconfirmedCore {
        /// The core (empty: the assertions alone).
        core: Vec<Term>,
        /// What the re-check said or why it failed.
        detail: String,
        /// The transcript of the session, if one was written.
        transcript: Option<PathBuf>,
    },
    /// The command is not one [`crate::Solver::command`] accepts, or the request is
    /// outside what the solver layer supports.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// The process died while executing a command other than a check; it is restarted
    /// (with the recorded state) before the next command.
    #[error("the solver died during `{command}`: {detail}")]
    Died {
        /// The command as sent.
        command: String,
        /// Exit status and stderr tail.
        detail: String,
    },
    /// The solver did not answer a command within the watchdog limit and was killed.
    #[error("the solver did not answer `{command}` within {waited:?} and was stopped")]
    Unresponsive {
        /// The command as sent.
        command: String,
        /// How long vera waited.
        waited: Duration,
    },
    /// [`crate::Solver::get_values`] was called without a preceding `sat` answer.
    #[error("no model is available: values can only be read right after a sat answer")]
    NoModel,
}

//! Running SMT-LIB scripts (what `vera smt check` does).
//!
//! A script's commands go through one solver session. Every assertion gets an
//! assumption literal (`vera!a<line>_<n>`), so an unsat answer comes with the lines of
//! the assertions in the core; the driver re-checks that core and re-evaluates every
//! model before either is reported. `reset` and `reset-assertions` follow SMT-LIB (the
//! latter keeps the logic and forgets declarations); `:global-declarations true` is
//! refused with its location. A script without a `check-sat` is an error: nothing was
//! decided.

use crate::error::SolverError;
use crate::{Outcome, Pool, Solver};
use logic::{print, Command, Script, Sort, SourceFile, Term};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// `s` on one line, at most `max` characters.
fn excerpt(s: &str, max: usize) -> String {
    let one_line = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= max {
        one_line
    } else {
        let cut: String = one_line.chars().take(max.saturating_sub(3)).collect();
        format!("{cut}...")
    }
}

/// What checking one script file found.
#[derive(Debug, Clone, serde::Serialize)]
pub struct FileReport {
    /// The file as named.
    pub file: String,
    /// The file's recorded `(set-info :status ...)`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The version the solver reported.
    pub solver_version: Option<String>,
    /// Every check, in order.
    pub checks: Vec<CheckReport>,
    /// Warnings and skipped commands, located.
    pub notes: Vec<String>,
    /// Set when the file could not be checked at all (bad input, solver failure).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One `check-sat` (or `check-sat-assuming`) of a script.
#[derive(Debug, Clone, serde::Serialize)]
pub struct CheckReport {
    /// The line of the check.
    pub line: usize,
    /// `sat`, `unsat` or `unknown`.
    pub answer: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// Why the answer is unknown.
    pub reason: Option<String>,
    /// Values of the declared constants (sat only), as `name -> value`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub model: Vec<(String, String)>,
    /// The assertions in the unsat core (unsat only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub core: Vec<CoreEntry>,
    /// Answers to `get-value` commands after this check.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<(String, String)>,
}

/// An assertion of an unsat core, by its line.
#[derive(Debug, Clone, serde::Serialize)]
pub struct CoreEntry {
    /// The assertion's line.
    pub line: usize,
    /// The assertion, shortened.
    pub assertion: String,
}

impl FileReport {
    fn new(file: &Path) -> FileReport {
        FileReport {
            file: file.display().to_string(),
            expected: None,
            solver_version: None,
            checks: Vec::new(),
            notes: Vec::new(),
            error: None,
        }
    }

    /// The answer of the last check.
    pub fn last_answer(&self) -> Option<&'static str> {
        self.checks.last().map(|c| c.answer)
    }

    /// Whether a definite last answer contradicts the recorded `:status`.
    pub fn disagrees(&self) -> bool {
        match (&self.expected, self.last_answer()) {
            (Some(e), Some(a)) => (e == "sat" || e == "unsat") && a != "unknown" && e != a,
            _ => false,
        }
    }
}

/// Checks every script file on `pool`, each in a clean session (the pool resets a
/// process between files); `done` is called after each file (for progress). Reports
/// come back in input order; a solver that cannot be started is that file's error.
pub fn check_files(pool: &Pool, files: &[PathBuf], done: &(dyn Fn() + Sync)) -> Vec<FileReport> {
    pool.map(files, |solver, path| {
        let report = check_file(solver, path);
        done();
        Ok(report)
    })
    .into_iter()
    .zip(files)
    .map(|(r, path)| {
        r.unwrap_or_else(|e| {
            let mut report = FileReport::new(path);
            report.error = Some(e.to_string());
            done();
            report
        })
    })
    .collect()
}

/// Checks one script file on `solver`, which must be in a clean state.
pub fn check_file(solver: &mut Solver, path: &Path) -> FileReport {
    let mut report = FileReport::new(path);
    let text = match safefile::read_text(path) {
        Ok(t) => t,
        Err(e) => {
            report.error = Some(e.to_string());
            return report;
        }
    };
    let file = SourceFile::new(path.display().to_string(), text);
    let script = match logic::parse_script(&file) {
        Ok(s) => s,
        Err(d) => {
            report.error = Some(d.to_string());
            return report;
        }
    };
    for w in &script.warnings {
        report.notes.push(file.locate(w).to_string());
    }
    report.expected = script.status().map(str::to_string);
    if let Some(d) = unsupported(&script) {
        report.error = Some(file.locate(&d).to_string());
        return report;
    }
    if let Err(e) = run_script(&script, &file, solver, &mut report) {
        report.error = Some(e.to_string());
    }
    report
}

/// A command the session cannot carry out faithfully, located.
fn unsupported(script: &Script) -> Option<logic::Diagnostic> {
    script.commands.iter().find_map(|c| match &c.command {
        Command::SetOption(k, Some(v))
            if k == "global-declarations" && v.as_symbol() == Some("true") =>
        {
            Some(
                logic::Diagnostic::error(
                    c.span,
                    "`:global-declarations true` is not supported by `vera smt check`",
                )
                .with_hint("declare the symbols again after pop and reset-assertions"),
            )
        }
        _ => None,
    })
}

/// Assertion literals in scope, one frame per `push`.
struct Tracker {
    frames: Vec<Vec<Term>>,
    lines: HashMap<logic::Symbol, (usize, String)>,
}

impl Tracker {
    fn active(&self) -> Vec<Term> {
        self.frames.iter().flatten().cloned().collect()
    }

    /// Forgets every scope and literal, as `reset` and `reset-assertions` do.
    fn clear(&mut self) {
        self.frames = vec![Vec::new()];
    }
}

fn run_script(
    script: &Script,
    file: &SourceFile,
    solver: &mut Solver,
    report: &mut FileReport,
) -> Result<(), SolverError> {
    report.solver_version = Some(solver.version().to_string());
    let mut tracker = Tracker {
        frames: vec![Vec::new()],
        lines: HashMap::new(),
    };
    let mut last_sat = false;
    for (i, c) in script.commands.iter().enumerate() {
        let line = file.line_col(c.span.start).0;
        match &c.command {
            Command::SetLogic(_)
            | Command::DeclareConst(..)
            | Command::DeclareEnum(..)
            | Command::DefineFun(_) => solver.command(&c.command)?,
            Command::Assert(t) => {
                let name = format!("{}a{}_{}", logic::context::INTERNAL_PREFIX, line, i);
                solver.declare_const(&name, Sort::Bool)?;
                let lit = Term::var(&name, Sort::Bool);
                solver.assert(&Term::app(logic::Op::Implies, vec![lit.clone(), t.clone()]))?;
                tracker
                    .lines
                    .insert(name.as_str().into(), (line, excerpt(&print::term(t), 100)));
                tracker.frames.last_mut().expect("base frame").push(lit);
            }
            // The parser bounds the count (logic::context::MAX_SCOPES).
            Command::Push(n) => {
                solver.command(&c.command)?;
                tracker
                    .frames
                    .extend(std::iter::repeat_with(Vec::new).take(*n as usize));
            }
            Command::Pop(n) => {
                solver.command(&c.command)?;
                let keep = tracker.frames.len().saturating_sub(*n as usize).max(1);
                tracker.frames.truncate(keep);
            }
            Command::ResetAssertions => {
                solver.reset_assertions()?;
                tracker.clear();
                last_sat = false;
            }
            Command::Reset => {
                solver.reset()?;
                tracker.clear();
                last_sat = false;
            }
            Command::CheckSat | Command::CheckSatAssuming(_) => {
                let mut lits = tracker.active();
                if let Command::CheckSatAssuming(extra) = &c.command {
                    lits.extend(extra.iter().cloned());
                }
                let outcome = solver.check_assuming(&lits)?;
                last_sat = matches!(outcome, Outcome::Sat(_));
                report
                    .checks
                    .push(describe(line, outcome, &tracker, solver.context()));
            }
            Command::GetValue(ts) => {
                if !last_sat {
                    report.notes.push(format!(
                        "line {line}: get-value skipped: the last check was not sat"
                    ));
                    continue;
                }
                let vals = solver.get_values(ts)?;
                if let Some(last) = report.checks.last_mut() {
                    last.values.extend(
                        ts.iter()
                            .zip(vals)
                            .map(|(t, v)| (print::term(t), v.to_string())),
                    );
                }
            }
            Command::Exit => break,
            Command::SetInfo(..) | Command::GetModel | Command::GetInfo(_) => {}
            other => report.notes.push(format!(
                "line {line}: `{}` ignored (vera manages the solver session itself)",
                other.name()
            )),
        }
    }
    if report.checks.is_empty() && report.error.is_none() {
        // Nothing was decided: never a pass.
        report.error = Some(format!(
            "nothing to check: {} has no check-sat",
            report.file
        ));
    }
    Ok(())
}

fn describe(
    line: usize,
    outcome: Outcome,
    tracker: &Tracker,
    context: &logic::Context,
) -> CheckReport {
    let mut r = CheckReport {
        line,
        answer: "unknown",
        reason: None,
        model: Vec::new(),
        core: Vec::new(),
        values: Vec::new(),
    };
    match outcome {
        Outcome::Sat(model) => {
            r.answer = "sat";
            // Declared constants in scope, in declaration order, without vera's own
            // literals.
            for (name, _) in context.consts() {
                if name.starts_with(logic::context::INTERNAL_PREFIX) {
                    continue;
                }
                if let Some(v) = model.get(name) {
                    r.model.push((name.to_string(), v.to_string()));
                }
            }
        }
        Outcome::Unsat(core) => {
            r.answer = "unsat";
            let mut entries: Vec<CoreEntry> = core
                .iter()
                .filter_map(|lit| match lit {
                    Term::Var(n, _) => tracker.lines.get(n).map(|(line, text)| CoreEntry {
                        line: *line,
                        assertion: text.clone(),
                    }),
                    _ => None,
                })
                .collect();
            entries.sort_by_key(|e| e.line);
            r.core = entries;
        }
        Outcome::Unknown(reason) => r.reason = Some(reason.to_string()),
    }
    r
}

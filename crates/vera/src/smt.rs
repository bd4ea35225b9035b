//! `vera smt check` and `vera smt fmt`.
//!
//! `check` runs a script's commands through one solver session. Every assertion gets
//! an assumption literal (`vera!a<line>`), so an unsat answer comes with the lines of
//! the assertions in the core; the solver driver re-checks that core and re-evaluates
//! every model before either is printed. `reset` and `reset-assertions` follow SMT-LIB
//! (the latter keeps the logic and forgets declarations); `:global-declarations true`
//! is refused with its location.

use crate::output::{excerpt, Rendered};
use anyhow::{Context as _, Result};
use logic::{print, Command, Script, Sort, SourceFile, Term};
use report::Status;
use serde::Serialize;
use solver::{Outcome, Solver, SolverConfig};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The JSON schema name of `smt check` reports.
const SCHEMA: &str = "vera.smt-check.v1";

#[derive(Debug, Serialize)]
struct Report {
    schema: &'static str,
    solver: String,
    files: Vec<FileReport>,
}

#[derive(Debug, Serialize)]
struct FileReport {
    file: String,
    /// The file's recorded `(set-info :status ...)`.
    #[serde(skip_serializing_if = "Option::is_none")]
    expected: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    solver_version: Option<String>,
    checks: Vec<CheckReport>,
    notes: Vec<String>,
    /// Set when the file could not be checked at all (bad input, solver failure).
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

#[derive(Debug, Serialize)]
struct CheckReport {
    line: usize,
    /// `sat`, `unsat` or `unknown`.
    answer: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    /// Values of the declared constants (sat only), as `name -> value`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    model: Vec<(String, String)>,
    /// The assertions in the unsat core (unsat only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    core: Vec<CoreEntry>,
    /// Answers to `get-value` commands after this check.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    values: Vec<(String, String)>,
}

#[derive(Debug, Serialize)]
struct CoreEntry {
    line: usize,
    assertion: String,
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

    fn last_answer(&self) -> Option<&'static str> {
        self.checks.last().map(|c| c.answer)
    }

    fn disagrees(&self) -> bool {
        match (&self.expected, self.last_answer()) {
            (Some(e), Some(a)) => (e == "sat" || e == "unsat") && a != "unknown" && e != a,
            _ => false,
        }
    }
}

/// `vera smt check FILE...`
pub fn check(a: &crate::cli::SmtCheckArgs) -> crate::output::Outcome {
    let (files, args) = (&a.files, &a.solver);
    if args.transcript.is_some() && files.len() > 1 {
        anyhow::bail!("--transcript records one session: give a single file");
    }
    let config = args.config();
    let jobs = args.jobs().min(files.len()).max(1);
    let reports = run_parallel(files, &config, jobs);
    let failed = reports.iter().any(|r| {
        r.error.is_some() || r.checks.iter().any(|c| c.answer == "unknown") || r.disagrees()
    });
    let any_unsat = reports.iter().any(|r| r.last_answer() == Some("unsat"));
    let status = if failed {
        Status::Error
    } else if any_unsat {
        Status::Findings
    } else {
        Status::Ok
    };
    let text = human_text(&reports, files.len() > 1);
    let findings = smt_findings(&reports);
    let suites = smt_suites(&reports);
    let mut r = Rendered::new(
        SCHEMA,
        status,
        text,
        Report {
            schema: SCHEMA,
            solver: config.kind.to_string(),
            files: reports,
        },
    );
    r.findings = Some(findings);
    r.suites = Some(suites);
    Ok(Box::new(r))
}

/// The finding kinds of `smt check` (SARIF rules).
const SMT_RULES: &[report::Rule] = &[
    report::Rule {
        id: "VERA-SMT-UNSAT",
        name: "Unsatisfiable",
        short: "The assertions have no model; the core names the assertions that clash.",
        help: "Read the unsat core: one of its assertions is wrong or too strong.",
        level: report::Level::Warning,
    },
    report::Rule {
        id: "VERA-SMT-UNKNOWN",
        name: "Undecided",
        short: "The solver answered unknown: nothing was proved either way.",
        help: "Raise --timeout or try the other solver.",
        level: report::Level::Error,
    },
    report::Rule {
        id: "VERA-SMT-STATUS-MISMATCH",
        name: "StatusMismatch",
        short: "The solver's answer contradicts the file's recorded :status.",
        help: "Check the file's :status, or report the disagreement to the solver's authors.",
        level: report::Level::Error,
    },
    report::Rule {
        id: "VERA-SMT-ERROR",
        name: "NotChecked",
        short: "The file could not be checked (bad input or a solver failure).",
        help: "Read the error message with its line.",
        level: report::Level::Error,
    },
];

fn at(file: &str, line: usize) -> report::Location {
    report::Location::new(file, u32::try_from(line).ok().filter(|l| *l > 0))
}

fn smt_findings(reports: &[FileReport]) -> report::Findings {
    use report::{Finding, Level};
    let mut findings = Vec::new();
    for r in reports {
        if let Some(e) = &r.error {
            findings.push(Finding {
                rule: "VERA-SMT-ERROR",
                level: Level::Error,
                message: excerpt(e, 400),
                location: Some(report::Location::new(&r.file, None)),
                related: Vec::new(),
            });
        }
        for c in &r.checks {
            match c.answer {
                "unsat" => findings.push(Finding {
                    rule: "VERA-SMT-UNSAT",
                    level: Level::Warning,
                    message: format!("unsat; {} assertion(s) in the core", c.core.len()),
                    location: Some(at(&r.file, c.line)),
                    related: c
                        .core
                        .iter()
                        .map(|e| at(&r.file, e.line).with_message(excerpt(&e.assertion, 200)))
                        .collect(),
                }),
                "unknown" => findings.push(Finding {
                    rule: "VERA-SMT-UNKNOWN",
                    level: Level::Error,
                    message: format!(
                        "unknown ({})",
                        c.reason.as_deref().unwrap_or("no reason given")
                    ),
                    location: Some(at(&r.file, c.line)),
                    related: Vec::new(),
                }),
                _ => {}
            }
        }
        if r.disagrees() {
            findings.push(Finding {
                rule: "VERA-SMT-STATUS-MISMATCH",
                level: Level::Error,
                message: format!(
                    "the file records :status {} but the solver answered {}",
                    r.expected.as_deref().unwrap_or("?"),
                    r.last_answer().unwrap_or("?")
                ),
                location: Some(report::Location::new(&r.file, None)),
                related: Vec::new(),
            });
        }
    }
    report::Findings {
        command: "smt check".into(),
        rules: SMT_RULES.to_vec(),
        findings,
        files: reports.iter().map(|r| r.file.clone()).collect(),
    }
}

/// One case per `check-sat`: it passes when the answer is the file's recorded `:status`
/// (or sat, when none is recorded); unknown and errors are errors.
fn smt_suites(reports: &[FileReport]) -> Vec<report::Suite> {
    use report::Outcome as O;
    reports
        .iter()
        .map(|r| {
            let mut cases: Vec<report::Case> = r
                .checks
                .iter()
                .map(|c| {
                    let expected = r
                        .expected
                        .as_deref()
                        .filter(|e| *e == "sat" || *e == "unsat");
                    let outcome = match (c.answer, expected) {
                        ("unknown", _) => O::Error {
                            message: format!(
                                "unknown ({})",
                                c.reason.as_deref().unwrap_or("no reason given")
                            ),
                            detail: String::new(),
                        },
                        (a, Some(e)) if a == e => O::Passed,
                        ("sat", None) => O::Passed,
                        (a, e) => O::Failed {
                            message: format!("{a} (expected {})", e.unwrap_or("sat")),
                            detail: c
                                .core
                                .iter()
                                .map(|e| format!("line {}: {}\n", e.line, e.assertion))
                                .collect(),
                        },
                    };
                    report::Case {
                        name: format!("{}:{}", r.file, c.line),
                        class: "vera.smt".into(),
                        outcome,
                        seconds: None,
                        output: None,
                    }
                })
                .collect();
            if let Some(e) = &r.error {
                cases.push(report::Case {
                    name: r.file.clone(),
                    class: "vera.smt".into(),
                    outcome: O::Error {
                        message: "not checked".into(),
                        detail: e.clone(),
                    },
                    seconds: None,
                    output: None,
                });
            }
            report::Suite {
                name: r.file.clone(),
                file: Some(r.file.clone()),
                cases,
            }
        })
        .collect()
}

fn run_parallel(files: &[PathBuf], config: &SolverConfig, jobs: usize) -> Vec<FileReport> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<FileReport>>> =
        Mutex::new((0..files.len()).map(|_| None).collect());
    let progress = (files.len() > 1).then(|| {
        let bar = indicatif::ProgressBar::new(files.len() as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} files {elapsed}")
                .expect("valid template"),
        );
        bar
    });
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(path) = files.get(i) else { break };
                let report = check_file(path, config);
                if let Some(bar) = &progress {
                    bar.inc(1);
                }
                results.lock().expect("no panics while holding the lock")[i] = Some(report);
            });
        }
    });
    if let Some(bar) = progress {
        bar.finish_and_clear();
    }
    results
        .into_inner()
        .expect("workers finished")
        .into_iter()
        .map(|r| r.expect("every file was checked"))
        .collect()
}

fn check_file(path: &Path, config: &SolverConfig) -> FileReport {
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
    if let Err(e) = run_script(&script, &file, config, &mut report) {
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
    config: &SolverConfig,
    report: &mut FileReport,
) -> Result<(), solver::SolverError> {
    let mut solver = Solver::start(config)?;
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

fn human_text(reports: &[FileReport], many: bool) -> String {
    use std::fmt::Write as _;
    let mut o = String::new();
    let (mut sat, mut unsat, mut unknown, mut errors, mut disagree) = (0, 0, 0, 0, 0);
    for r in reports {
        if let Some(e) = &r.error {
            errors += 1;
            eprintln!("{e}");
            if !many {
                continue;
            }
            eprintln!("{}: error", r.file);
            continue;
        }
        for n in &r.notes {
            eprintln!("{}: note: {n}", r.file);
        }
        for c in &r.checks {
            match c.answer {
                "sat" => sat += 1,
                "unsat" => unsat += 1,
                _ => unknown += 1,
            }
            let reason = c
                .reason
                .as_deref()
                .map(|r| format!(" ({r})"))
                .unwrap_or_default();
            let _ = writeln!(o, "{}:{}: {}{}", r.file, c.line, c.answer, reason);
            if !many {
                // Padded by hand: a width of 65,536 or more makes `format!` panic.
                let chars = |n: &str| n.chars().count();
                let width = c.model.iter().map(|(n, _)| chars(n)).max().unwrap_or(0);
                for (n, v) in &c.model {
                    let pad = " ".repeat(width - chars(n));
                    let _ = writeln!(o, "  {n}{pad} = {v}");
                }
                if !c.core.is_empty() {
                    let _ = writeln!(o, "  unsat core ({} assertion(s)):", c.core.len());
                    for e in &c.core {
                        let _ = writeln!(o, "    line {}: {}", e.line, e.assertion);
                    }
                }
                for (t, v) in &c.values {
                    let _ = writeln!(o, "  {t} = {v}");
                }
            }
        }
        if r.disagrees() {
            disagree += 1;
            let _ = writeln!(
                o,
                "{}: the file records :status {} but the solver answered {}",
                r.file,
                r.expected.as_deref().unwrap_or("?"),
                r.last_answer().unwrap_or("?")
            );
        }
    }
    if many {
        let _ = writeln!(o, "{} files: {sat} sat, {unsat} unsat, {unknown} unknown, {errors} errors, {disagree} disagree with :status",
            reports.len()
        );
    }
    o
}

/// `vera smt fmt FILE`
pub fn fmt(a: &crate::cli::SmtFmtArgs) -> crate::output::Outcome {
    let (path, width) = (a.file.as_path(), a.width);
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let file = SourceFile::new(path.display().to_string(), text);
    match logic::parse_script(&file) {
        Ok(script) => crate::output::text("smt fmt", logic::script::format_script(&script, width)),
        Err(d) => {
            eprintln!("{d}");
            Err(crate::output::Reported.into())
        }
    }
}

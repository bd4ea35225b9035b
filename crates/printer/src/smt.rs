//! The report of `vera smt check`: each script's answers with their cores and models,
//! findings for SARIF and one JUnit case per `check-sat`.

use crate::text::excerpt;
use crate::Rendered;
use report::Status;
use serde::Serialize;
use solver::script::FileReport;

/// The JSON schema name of `smt check` reports.
const SCHEMA: &str = "vera.smt-check.v1";

#[derive(Debug, Serialize)]
pub struct Report {
    schema: &'static str,
    solver: String,
    files: Vec<FileReport>,
}

/// The report of `vera smt check` with `solver` on the scripts' `reports` (`many`: more
/// than one file). An error, an unknown answer or a disagreement with an expected status
/// is an error; an unsat answer a finding.
pub fn check_report(solver: &str, reports: Vec<FileReport>, many: bool) -> Rendered<Report> {
    let failed = reports.iter().any(|r| {
        r.error.is_some() || r.checks.iter().any(|c| c.answer == "unknown") || r.disagrees()
    });
    let any_unsat = reports.iter().any(|r| r.last_answer() == Some("unsat"));
    let status = Status::of(failed, any_unsat);
    let text = human_text(&reports, many);
    let findings = smt_findings(&reports);
    let suites = smt_suites(&reports);
    let mut r = Rendered::new(
        SCHEMA,
        status,
        text,
        Report {
            schema: SCHEMA,
            solver: solver.to_string(),
            files: reports,
        },
    );
    r.findings = Some(findings);
    r.suites = Some(suites);
    r
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

/// The lines for standard error: each script's error (located, as the reader wrote it)
/// and notes; they are not part of the report.
pub fn stderr_lines(reports: &[FileReport], many: bool) -> String {
    use std::fmt::Write as _;
    let mut o = String::new();
    for r in reports {
        if let Some(e) = &r.error {
            let _ = writeln!(o, "{e}");
            if many {
                let _ = writeln!(o, "{}: error", r.file);
            }
            continue;
        }
        for n in &r.notes {
            let _ = writeln!(o, "{}: note: {n}", r.file);
        }
    }
    o
}

fn human_text(reports: &[FileReport], many: bool) -> String {
    use std::fmt::Write as _;
    let mut o = String::new();
    let (mut sat, mut unsat, mut unknown, mut errors, mut disagree) = (0, 0, 0, 0, 0);
    for r in reports {
        if r.error.is_some() {
            errors += 1;
            continue;
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

//! The reports of `vera tests`: test suites from requirements (plain cases and timed
//! sequences) with their text, JSON, CSV, HTML and SARIF renderings; the runs of a suite
//! against an implementation (text, JUnit, SARIF); the coverage of an existing suite.

use crate::text::{clean, excerpt};
use crate::Rendered;
use rbt::obligations::{Kind, Part, Point};
use rbt::suite::{Expected, Finding, Status, Suite};
use rbt::Problem;
use report::Status as RStatus;
use serde::Serialize;
use std::fmt::Write as _;

/// `vera.tests.v1`.
#[derive(Serialize)]
pub struct TestsJson {
    schema: &'static str,
    #[serde(flatten)]
    suite: Suite,
    matrix: Vec<Vec<String>>,
}

/// The report of `vera tests` on a plain spec or documentation side: `suite` for `p`,
/// made in `seconds`. An undecided obligation makes it an error, a finding (an
/// unreachable obligation, ...) a finding.
pub fn suite_report(p: &Problem, suite: Suite, seconds: f64) -> Rendered<TestsJson> {
    let status = RStatus::of(suite.has_errors(), !suite.findings.is_empty());
    let text = human(p, &suite, seconds);
    let findings = findings(p, &suite);
    let page = page(p, &suite, seconds);
    let csv = rbt::table::csv(&suite);
    let matrix = rbt::table::matrix_rows(&suite);
    let mut r = Rendered::new(
        "vera.tests.v1",
        status,
        text,
        TestsJson {
            schema: "vera.tests.v1",
            suite,
            matrix,
        },
    );
    r.findings = Some(findings);
    r.page = Some(page);
    r.csv = Some(csv);
    r
}

/// What an obligation asks for, in words.
pub fn describe(kind: &Kind, condition: Option<&str>) -> String {
    let c = condition.map(|c| excerpt(c, 80)).unwrap_or_default();
    match kind {
        Kind::Trigger => "the trigger holds (the requirement applies)".into(),
        Kind::TriggerCondition { index, outcome } => {
            format!("trigger condition {index} `{c}` is {outcome} and decides the trigger")
        }
        Kind::ResponseCondition { index } => {
            format!("with the trigger, response condition {index} `{c}` decides the response")
        }
        Kind::Boundary {
            part,
            index,
            point,
            step,
            ..
        } => {
            let part = match part {
                Part::Trigger => "trigger",
                Part::Response => "response",
            };
            let at = match point {
                Point::At => "at its bound".to_string(),
                Point::Above => format!("one step ({step}) above its bound"),
                Point::Below => format!("one step ({step}) below its bound"),
            };
            format!("{part} condition {index} `{c}` {at}")
        }
    }
}

/// Why an unreachable obligation cannot be met, in words.
pub fn unreachable_reason(kind: &Kind, core: &[String]) -> String {
    let by = if core.is_empty() {
        match kind {
            Kind::TriggerCondition { .. }
            | Kind::Boundary {
                part: Part::Trigger,
                ..
            } => "the trigger's other conditions mask it everywhere".to_string(),
            Kind::ResponseCondition { .. } | Kind::Boundary { .. } => {
                "the response's other conditions mask it everywhere".to_string()
            }
            Kind::Trigger => "the trigger is false in every state".to_string(),
        }
    } else {
        format!("ruled out by {}", core.join(", "))
    };
    match kind {
        Kind::Trigger => format!("the requirement can never apply: {by}"),
        _ => format!("no valid state has it: {by}"),
    }
}

fn human(p: &Problem, s: &Suite, seconds: f64) -> String {
    let mut o = String::new();
    let formalized = p.spec.formalized().count();
    let _ = writeln!(
        o,
        "{} ({}): {} test case{} for {formalized} formalized requirement{} ({}, {seconds:.2} s)",
        clean(&s.spec),
        clean(&s.file),
        s.cases.len(),
        if s.cases.len() == 1 { "" } else { "s" },
        if formalized == 1 { "" } else { "s" },
        s.solver
    );
    let roles = match s.roles {
        rbt::RoleSource::Spec => "the spec's roles",
        rbt::RoleSource::Given => "given",
        rbt::RoleSource::Inferred => "inferred: a variable a response mentions is an output",
        rbt::RoleSource::Documentation => "from the documentation's definitions",
    };
    let _ = writeln!(
        o,
        "roles ({roles}): inputs {}; outputs {}",
        clean(&s.inputs.join(", ")),
        clean(&s.outputs.join(", "))
    );
    let _ = writeln!(
        o,
        "obligations: {} — {} met, {} unreachable, {} undecided; {} cases found, {} kept after minimization; {} solver queries",
        s.obligations.len(),
        s.met(),
        s.unreachable(),
        s.undecided(),
        s.cases_before_minimization,
        s.cases.len(),
        s.queries
    );
    let _ = writeln!(
        o,
        "re-checked in a fresh solver process: {} of {} cases valid, expected outputs confirmed in {}",
        s.recheck.valid, s.recheck.cases, s.recheck.expectations_confirmed
    );
    for f in &s.recheck.failures {
        let _ = writeln!(o, "  re-check failed: {}", clean(f));
    }
    if !s.findings.is_empty() {
        let _ = writeln!(o, "\nfindings:");
        for f in &s.findings {
            let _ = writeln!(o, "  {}", finding_line(f));
        }
    }
    let _ = writeln!(o, "\nrequirements:");
    for r in &s.requirements {
        if r.formula.is_none() {
            let _ = writeln!(o, "  {:<12} not formalized: no tests", clean(&r.id));
            continue;
        }
        let mut counts = format!("{} of {} obligations met", r.met, r.obligations);
        if r.unreachable > 0 {
            let _ = write!(counts, ", {} unreachable", r.unreachable);
        }
        if r.undecided > 0 {
            let _ = write!(counts, ", {} undecided", r.undecided);
        }
        let applies = applies_in(s, &r.id);
        let _ = writeln!(
            o,
            "  {:<12} {counts}; applies in {}",
            clean(&r.id),
            if applies.is_empty() {
                "no case".to_string()
            } else {
                excerpt(&applies.join(" "), 70)
            }
        );
    }
    let _ = writeln!(o, "\ncases:");
    for c in &s.cases {
        let inputs: Vec<String> = c
            .inputs
            .iter()
            .map(|x| format!("{} = {}", x.variable, x.value))
            .collect();
        let forced: Vec<String> = c
            .expected
            .iter()
            .filter(|x| matches!(x.value, Expected::Value(_)))
            .map(|x| format!("{} = {}", x.variable, x.value.cell()))
            .collect();
        let free = c
            .expected
            .iter()
            .filter(|x| x.value == Expected::Free)
            .count();
        let undecided = c
            .expected
            .iter()
            .filter(|x| matches!(x.value, Expected::Undecided(_)))
            .count();
        let applies: Vec<&str> = c
            .covers
            .iter()
            .filter_map(|o| o.strip_suffix("/trigger"))
            .collect();
        let _ = writeln!(
            o,
            "  {} meets {} obligations; {} apply: {}",
            c.id,
            c.covers.len(),
            applies.len(),
            clean(&excerpt(&applies.join(" "), 80))
        );
        let _ = writeln!(o, "    inputs:   {}", clean(&inputs.join(", ")));
        let mut exp = if forced.is_empty() {
            "nothing forced".to_string()
        } else {
            forced.join(", ")
        };
        if free > 0 {
            let _ = write!(exp, "; {free} free");
        }
        if undecided > 0 {
            let _ = write!(exp, "; {undecided} undecided");
        }
        let _ = writeln!(o, "    expected: {}", clean(&exp));
    }
    let _ = writeln!(
        o,
        "\nThe test table: --format csv (one row per case); the traceability matrix: --matrix FILE."
    );
    o
}

/// The cases where a requirement applies (they meet its trigger obligation).
fn applies_in(s: &Suite, requirement: &str) -> Vec<String> {
    let id = format!("{requirement}/trigger");
    s.obligations
        .iter()
        .find(|o| o.obligation.id == id)
        .and_then(|o| match &o.status {
            Status::Met { cases } => Some(cases.clone()),
            _ => None,
        })
        .unwrap_or_default()
}

fn finding_line(f: &Finding) -> String {
    match f {
        Finding::NotFormalized { requirement, line } => {
            format!(
                "{}:{line}: not formalized: no test can be derived",
                clean(requirement)
            )
        }
        Finding::Unreachable {
            requirement,
            line,
            obligation,
            kind,
            condition,
            core,
        } => format!(
            "{}:{line}: {} — {} ({})",
            clean(requirement),
            clean(&describe(kind, condition.as_deref())),
            clean(&unreachable_reason(kind, core)),
            clean(obligation)
        ),
        Finding::Undecided {
            obligation, reason, ..
        } => format!(
            "{}: undecided ({})",
            clean(obligation),
            clean(reason.as_str())
        ),
    }
}

fn findings(p: &Problem, s: &Suite) -> report::Findings {
    use report::{Finding as F, Level, Location, Rule};
    let file = p.spec.source.name().to_string();
    let at = |line: usize| Location::new(file.clone(), (line > 0).then_some(line as u32));
    let mut out = Vec::new();
    for f in &s.findings {
        out.push(match f {
            Finding::NotFormalized { requirement, line } => F {
                rule: "VERA-TESTS-NOT-FORMALIZED",
                level: Level::Warning,
                message: format!("{requirement}: not formalized: no test can be derived"),
                location: Some(at(*line)),
                related: vec![],
            },
            Finding::Unreachable {
                requirement,
                line,
                obligation,
                kind,
                condition,
                core,
            } => F {
                rule: "VERA-TESTS-UNREACHABLE",
                level: Level::Warning,
                message: format!(
                    "{requirement}: {} — {} ({obligation})",
                    describe(kind, condition.as_deref()),
                    unreachable_reason(kind, core)
                ),
                location: Some(at(*line)),
                related: core
                    .iter()
                    .filter_map(|id| p.spec.requirements.iter().find(|r| &r.id == id))
                    .filter(|r| &r.id != requirement)
                    .map(|r| at(r.line).with_message(format!("{} takes part", r.id)))
                    .collect(),
            },
            Finding::Undecided {
                requirement,
                obligation,
                reason,
            } => F {
                rule: "VERA-TESTS-UNDECIDED",
                level: Level::Error,
                message: format!("{obligation}: the solver could not decide ({reason})"),
                location: p
                    .spec
                    .requirements
                    .iter()
                    .find(|r| &r.id == requirement)
                    .map(|r| at(r.line)),
                related: vec![],
            },
        });
    }
    report::Findings {
        command: "tests".into(),
        rules: vec![
            Rule {
                id: "VERA-TESTS-UNREACHABLE",
                name: "UnreachableObligation",
                short: "no state that satisfies the domain and every requirement meets this test obligation",
                help: "a trigger that can never hold or a condition that never decides its requirement: check the requirements named as its cause",
                level: Level::Warning,
            },
            Rule {
                id: "VERA-TESTS-NOT-FORMALIZED",
                name: "NotFormalized",
                short: "the requirement has no formula, so no test is derived from it",
                help: "formalize the requirement (vera formalize) or test it by hand",
                level: Level::Warning,
            },
            Rule {
                id: "VERA-TESTS-UNDECIDED",
                name: "Undecided",
                short: "the solver could not decide whether a valid state meets the obligation",
                help: "raise --timeout or simplify the requirement",
                level: Level::Error,
            },
        ],
        findings: out,
        files: vec![file],
    }
}

fn page(p: &Problem, s: &Suite, seconds: f64) -> report::html::Page {
    use report::html::{Block, Count, Page, Section, Tone};
    let cards: Vec<Block> = s
        .requirements
        .iter()
        .map(|r| requirement_card(p, s, r))
        .collect();
    let matrix = rbt::table::matrix_rows(s);
    let (headers, rows) = match matrix.split_first() {
        Some((h, rest)) => (h.clone(), rest.to_vec()),
        None => (vec![], vec![]),
    };
    let (case_headers, case_rows) = test_table(s);
    let not_formalized = s
        .findings
        .iter()
        .filter(|f| matches!(f, Finding::NotFormalized { .. }))
        .count();
    Page {
        title: format!("vera tests: {}", s.spec),
        subtitle: Some(format!("{} · {} · {seconds:.2} s", s.file, s.solver)),
        counts: vec![
            Count::neutral("test cases", s.cases.len()),
            Count::neutral("obligations met", s.met()),
            Count::findings("unreachable", s.unreachable(), Tone::Warn),
            Count::findings("undecided", s.undecided(), Tone::Bad),
            Count::findings("without a formula", not_formalized, Tone::Warn),
        ],
        sections: vec![
            Section {
                heading: "Requirements and their cases".into(),
                blocks: cards,
            },
            Section {
                heading: "Traceability matrix".into(),
                blocks: vec![
                    Block::Text(
                        "One row per requirement, one column per case; a cell lists the requirement's obligations the case meets."
                            .into(),
                    ),
                    Block::Table { headers, rows },
                ],
            },
            Section {
                heading: "Test table".into(),
                blocks: vec![Block::Table {
                    headers: case_headers,
                    rows: case_rows,
                }],
            },
        ],
    }
}

/// One requirement's card on the page: its formula, its obligations with their status,
/// and the cases that cover it.
fn requirement_card(p: &Problem, s: &Suite, r: &rbt::suite::RequirementRow) -> report::html::Block {
    use report::html::{Block, Tone};
    let req = p.spec.requirements.iter().find(|q| q.id == r.id);
    let mut blocks = vec![Block::Text(r.text.clone())];
    let Some(formula) = &r.formula else {
        return Block::Item {
            title: r.id.clone(),
            badge: "not formalized".into(),
            tone: Tone::Warn,
            blocks: vec![
                Block::Text(r.text.clone()),
                Block::Text("No formula: no test can be derived.".into()),
            ],
        };
    };
    blocks.push(Block::Code(formula.clone()));
    let rows: Vec<Vec<String>> = s
        .obligations
        .iter()
        .filter(|o| o.obligation.requirement == r.id)
        .map(|o| {
            let (status, detail) = match &o.status {
                Status::Met { cases } => ("met".to_string(), cases.join(" ")),
                Status::Unreachable { core } => (
                    "unreachable".to_string(),
                    unreachable_reason(&o.obligation.kind, core),
                ),
                Status::Undecided { reason } => ("undecided".to_string(), reason.to_string()),
            };
            vec![
                o.obligation
                    .id
                    .strip_prefix(&format!("{}/", r.id))
                    .unwrap_or(&o.obligation.id)
                    .to_string(),
                describe(&o.obligation.kind, o.obligation.condition.as_deref()),
                status,
                detail,
            ]
        })
        .collect();
    blocks.push(Block::Table {
        headers: vec![
            "obligation".into(),
            "asks for".into(),
            "status".into(),
            "cases / reason".into(),
        ],
        rows,
    });
    let case_rows: Vec<Vec<String>> = s
        .cases
        .iter()
        .filter(|c| c.requirements.contains(&r.id))
        .map(|c| {
            let prefix = format!("{}/", r.id);
            vec![
                c.id.clone(),
                c.covers
                    .iter()
                    .filter_map(|o| o.strip_prefix(&prefix))
                    .collect::<Vec<_>>()
                    .join(" "),
                c.inputs
                    .iter()
                    .map(|x| format!("{} = {}", x.variable, x.value))
                    .collect::<Vec<_>>()
                    .join(", "),
                c.expected
                    .iter()
                    .map(|x| format!("{} = {}", x.variable, x.value.cell()))
                    .collect::<Vec<_>>()
                    .join(", "),
            ]
        })
        .collect();
    if !case_rows.is_empty() {
        blocks.push(Block::Table {
            headers: vec![
                "case".into(),
                "obligations".into(),
                "inputs".into(),
                "expected outputs".into(),
            ],
            rows: case_rows,
        });
    }
    let (badge, tone) = if r.undecided > 0 {
        (format!("{} undecided", r.undecided), Tone::Bad)
    } else if r.unreachable > 0 {
        (format!("{} unreachable", r.unreachable), Tone::Warn)
    } else {
        (format!("{}/{} met", r.met, r.obligations), Tone::Good)
    };
    let title = match req {
        Some(q) => format!("{} (line {})", r.id, q.line),
        None => r.id.clone(),
    };
    Block::Item {
        title,
        badge,
        tone,
        blocks,
    }
}

/// The test table: one row per case, its inputs and expected outputs.
fn test_table(s: &Suite) -> (Vec<String>, Vec<Vec<String>>) {
    let case_rows: Vec<Vec<String>> = s
        .cases
        .iter()
        .map(|c| {
            let mut row = vec![c.id.clone()];
            for v in &s.inputs {
                row.push(
                    c.inputs
                        .iter()
                        .find(|x| &x.variable == v)
                        .map(|x| x.value.clone())
                        .unwrap_or_default(),
                );
            }
            for v in &s.outputs {
                row.push(
                    c.expected
                        .iter()
                        .find(|x| &x.variable == v)
                        .map(|x| x.value.cell())
                        .unwrap_or_default(),
                );
            }
            row
        })
        .collect();
    let mut case_headers = vec!["case".to_string()];
    case_headers.extend(s.inputs.iter().map(|v| format!("{v} (in)")));
    case_headers.extend(s.outputs.iter().map(|v| format!("{v} (expected)")));
    (case_headers, case_rows)
}

/// `vera.tests-run.v1`.
#[derive(Serialize)]
pub struct RunJson {
    schema: &'static str,
    spec: String,
    file: String,
    solver: String,
    #[serde(flatten)]
    report: rbt::run::RunReport,
    suite: SuiteSummary,
}

/// What the run's suite covers.
#[derive(Serialize)]
pub struct SuiteSummary {
    obligations: usize,
    met: usize,
    unreachable: usize,
    undecided: usize,
    cases: usize,
}

/// The report of `vera tests run` on a plain spec: `report` of running `suite` (for `p`)
/// in `seconds`. An error (an implementation that answered nothing usable) or an
/// undecided obligation makes it an error, a failed case a finding.
pub fn run_report(
    p: &Problem,
    suite: &Suite,
    report: rbt::run::RunReport,
    seconds: f64,
) -> Rendered<RunJson> {
    let status = RStatus::of(report.errors > 0 || suite.has_errors(), report.failed > 0);
    let items = case_items(&report);
    let text = human_run(p, suite, &report, &items, seconds);
    let suites = vec![run_junit(p, &report.implementation, &items)];
    let findings = run_findings(p, &items);
    let mut r = Rendered::new(
        "vera.tests-run.v1",
        status,
        text,
        RunJson {
            schema: "vera.tests-run.v1",
            spec: suite.spec.clone(),
            file: suite.file.clone(),
            solver: suite.solver.clone(),
            report,
            suite: SuiteSummary {
                obligations: suite.obligations.len(),
                met: suite.met(),
                unreachable: suite.unreachable(),
                undecided: suite.undecided(),
                cases: suite.cases.len(),
            },
        },
    );
    r.suites = Some(suites);
    r.findings = Some(findings);
    r
}

fn cells_text(cells: &[rbt::suite::Cell]) -> String {
    cells
        .iter()
        .map(|c| format!("{} = {}", c.variable, c.value))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A failed or erroneous case in words (one line, then the inputs and outputs).
fn verdict_detail(c: &rbt::run::CaseResult) -> (String, String) {
    use rbt::run::Verdict;
    let io = format!(
        "inputs: {}\nobserved: {}",
        cells_text(&c.inputs),
        if c.observed.is_empty() {
            "nothing".to_string()
        } else {
            cells_text(&c.observed)
        }
    );
    match &c.verdict {
        Verdict::Pass => ("passed".into(), io),
        Verdict::Fail {
            violated,
            differences,
        } => {
            let mut line = format!("violates {}", violated.join(", "));
            for d in differences {
                let _ = write!(
                    line,
                    "; {} expected {}, observed {}",
                    d.variable, d.expected, d.observed
                );
            }
            (line, io)
        }
        Verdict::Error { message } => (message.clone(), io),
    }
}

fn human_run(
    p: &Problem,
    s: &Suite,
    r: &rbt::run::RunReport,
    items: &[RunItem],
    seconds: f64,
) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{} ({}) against {}: {} case{} — {} passed, {} failed, {} error{} ({}, {seconds:.2} s)",
        clean(&s.spec),
        clean(&s.file),
        clean(&r.implementation),
        r.cases.len(),
        if r.cases.len() == 1 { "" } else { "s" },
        r.passed,
        r.failed,
        r.errors,
        if r.errors == 1 { "" } else { "s" },
        s.solver
    );
    let _ = writeln!(
        o,
        "suite: {} obligations of {} formalized requirements, {} met, {} unreachable, {} undecided{}",
        s.obligations.len(),
        p.spec.formalized().count(),
        s.met(),
        s.unreachable(),
        s.undecided(),
        match &r.tolerance {
            Some(t) => format!("; numeric outputs accepted within {t}"),
            None => String::new(),
        }
    );
    write_failures(&mut o, items);
    if r.failed == 0 && r.errors == 0 {
        let _ = writeln!(
            o,
            "\nEvery case passed: the observed outputs satisfy the domain and every requirement."
        );
    }
    o
}

/// How a case or a sequence came out.
enum Judged<'a> {
    Pass,
    Fail { violated: &'a [String] },
    Error,
}

/// One case or sequence of `vera tests run`, as its reports show it.
struct RunItem<'a> {
    /// Its id (`TC-001`, `R-AIR-3/fires`).
    id: String,
    /// Its name in JUnit: the id and its requirements.
    case_name: String,
    /// The finding's message when it fails.
    fails: String,
    /// The verdict in one line, and the lines that show it.
    line: String,
    detail: String,
    judged: Judged<'a>,
}

/// The cases of a plain run.
fn case_items(r: &rbt::run::RunReport) -> Vec<RunItem<'_>> {
    use rbt::run::Verdict;
    r.cases
        .iter()
        .map(|c| {
            let (line, detail) = verdict_detail(c);
            RunItem {
                id: c.case.clone(),
                case_name: format!("{} ({})", c.case, c.requirements.join(" ")),
                fails: format!("{} fails ({}): {line}", c.case, cells_text(&c.inputs)),
                line,
                detail,
                judged: match &c.verdict {
                    Verdict::Pass => Judged::Pass,
                    Verdict::Fail { violated, .. } => Judged::Fail { violated },
                    Verdict::Error { .. } => Judged::Error,
                },
            }
        })
        .collect()
}

/// The sequences of a timed run.
fn sequence_items<'a>(
    r: &'a rbt::timed_run::TimedRunReport,
    time: &reqs::timed::TimeBase,
) -> Vec<RunItem<'a>> {
    use rbt::timed_run::SequenceVerdict;
    r.sequences
        .iter()
        .map(|c| {
            let (line, detail) = sequence_detail(c, time);
            RunItem {
                id: c.sequence.clone(),
                case_name: format!("{} ({})", c.sequence, c.requirement),
                fails: format!("{} fails: {line}", c.sequence),
                line,
                detail,
                judged: match &c.verdict {
                    SequenceVerdict::Pass => Judged::Pass,
                    SequenceVerdict::Fail { violated, .. } => Judged::Fail { violated },
                    SequenceVerdict::Error { .. } => Judged::Error,
                },
            }
        })
        .collect()
}

/// The failed items, then the erroring ones, each with the lines that show it.
fn write_failures(o: &mut String, items: &[RunItem]) {
    for (title, want_fail) in [("failed", true), ("errors", false)] {
        let list: Vec<&RunItem> = items
            .iter()
            .filter(|c| match c.judged {
                Judged::Fail { .. } => want_fail,
                Judged::Error => !want_fail,
                Judged::Pass => false,
            })
            .collect();
        if list.is_empty() {
            continue;
        }
        let _ = writeln!(o, "\n{title}:");
        for c in list {
            let _ = writeln!(o, "  {}: {}", clean(&c.id), clean(&c.line));
            for l in c.detail.lines() {
                let _ = writeln!(o, "    {}", clean(l));
            }
        }
    }
}

/// The JUnit suite of a run: a case per item.
fn run_junit(p: &Problem, implementation: &str, items: &[RunItem]) -> report::Suite {
    report::Suite {
        name: format!("{} against {implementation}", p.spec.name),
        file: Some(p.spec.source.name().to_string()),
        cases: items
            .iter()
            .map(|c| report::Case {
                name: c.case_name.clone(),
                class: "vera.tests".into(),
                outcome: match c.judged {
                    Judged::Pass => report::Outcome::Passed,
                    Judged::Fail { .. } => report::Outcome::Failed {
                        message: c.line.clone(),
                        detail: c.detail.clone(),
                    },
                    Judged::Error => report::Outcome::Error {
                        message: c.line.clone(),
                        detail: c.detail.clone(),
                    },
                },
                seconds: None,
                output: None,
            })
            .collect(),
    }
}

/// The findings of `vera tests run`: a failed case or sequence at the line of the
/// first requirement it violates (the others related), an error at the spec.
fn run_findings(p: &Problem, items: &[RunItem]) -> report::Findings {
    use report::{Finding as F, Level, Location};
    let file = p.spec.source.name().to_string();
    let line_of = |id: &str| {
        p.spec
            .requirements
            .iter()
            .find(|q| q.id == id)
            .map(|q| q.line as u32)
            .filter(|l| *l > 0)
    };
    let mut out = Vec::new();
    for c in items {
        match c.judged {
            Judged::Pass => {}
            Judged::Fail { violated } => out.push(F {
                rule: "VERA-TESTS-CASE-FAILED",
                level: Level::Error,
                message: c.fails.clone(),
                location: Some(Location::new(
                    file.clone(),
                    violated.first().and_then(|v| line_of(v)),
                )),
                related: violated
                    .iter()
                    .skip(1)
                    .filter_map(|v| line_of(v).map(|l| (v, l)))
                    .map(|(v, l)| {
                        Location::new(file.clone(), Some(l))
                            .with_message(format!("{v} is violated too"))
                    })
                    .collect(),
            }),
            Judged::Error => out.push(F {
                rule: "VERA-TESTS-CASE-ERROR",
                level: Level::Error,
                message: format!("{} could not be run or judged: {}", c.id, c.line),
                location: Some(Location::new(file.clone(), None)),
                related: vec![],
            }),
        }
    }
    let mut f = run_findings_rules();
    f.findings = out;
    f.files = vec![file];
    f
}

/// The rules of `vera tests run`'s findings (no findings yet).
fn run_findings_rules() -> report::Findings {
    use report::{Level, Rule};
    report::Findings {
        command: "tests run".into(),
        rules: vec![
            Rule {
                id: "VERA-TESTS-CASE-FAILED",
                name: "CaseFailed",
                short: "the implementation's outputs for a test case contradict the requirements",
                help: "the requirements named are the ones the observed outputs break; fix the implementation or the requirement",
                level: Level::Error,
            },
            Rule {
                id: "VERA-TESTS-CASE-ERROR",
                name: "CaseError",
                short: "a test case could not be run or judged (crash, time limit, unreadable output, undecided)",
                help: "run the implementation on the case's inputs by hand",
                level: Level::Error,
            },
        ],
        findings: vec![],
        files: vec![],
    }
}

/// `vera.tests-cover.v1`.
#[derive(Serialize)]
pub struct CoverJson {
    schema: &'static str,
    spec: String,
    file: String,
    suite: String,
    solver: String,
    #[serde(flatten)]
    report: rbt::cover::CoverReport,
}

/// The report of `vera tests cover` on a plain spec: `r`, the coverage of the vectors
/// file `name` for `p`, measured with `solver` in `seconds`.
pub fn cover_report(
    p: &Problem,
    name: &str,
    r: rbt::cover::CoverReport,
    solver: &str,
    seconds: f64,
) -> Rendered<CoverJson> {
    use rbt::cover::{Coverage, Validity};
    let missed = r.count(|c| matches!(c, Coverage::Missed));
    let status = RStatus::of(
        r.has_errors(),
        missed > 0 || r.invalid() > 0 || !r.not_exercised.is_empty(),
    );
    let mut o = String::new();
    let valid = r
        .vectors
        .iter()
        .filter(|v| v.validity == Validity::Valid)
        .count();
    let _ = writeln!(
        o,
        "{} ({}): suite {}: {} vector{} ({valid} valid, {} no valid system could produce) ({}, {seconds:.2} s)",
        clean(&p.spec.name),
        clean(p.spec.source.name()),
        clean(name),
        r.vectors.len(),
        if r.vectors.len() == 1 { "" } else { "s" },
        r.invalid(),
        solver
    );
    let _ = writeln!(
        o,
        "obligations: {} — {} met, {missed} missed, {} unreachable, {} undecided",
        r.obligations.len(),
        r.count(|c| matches!(c, Coverage::Met { .. })),
        r.count(|c| matches!(c, Coverage::Unreachable { .. })),
        r.count(|c| matches!(c, Coverage::Undecided { .. }))
    );
    if !r.ignored_columns.is_empty() {
        let _ = writeln!(
            o,
            "columns that name no variable (not read): {}",
            clean(&r.ignored_columns.join(", "))
        );
    }
    let invalid: Vec<&rbt::cover::VectorResult> = r
        .vectors
        .iter()
        .filter(|v| !matches!(v.validity, Validity::Valid))
        .collect();
    if !invalid.is_empty() {
        let _ = writeln!(o, "\nvectors no valid system could produce:");
        for v in invalid {
            match &v.validity {
                Validity::Invalid { core } => {
                    let _ = writeln!(
                        o,
                        "  {} (line {}): contradicts {}",
                        clean(&v.id),
                        v.line,
                        clean(&core.join(", "))
                    );
                }
                Validity::Undecided { reason } => {
                    let _ = writeln!(
                        o,
                        "  {} (line {}): undecided ({reason})",
                        clean(&v.id),
                        v.line
                    );
                }
                Validity::Valid => {}
            }
        }
    }
    if !r.not_exercised.is_empty() {
        let _ = writeln!(
            o,
            "\nrequirements no vector exercises (none makes them apply whatever the implementation): {}",
            clean(&r.not_exercised.join(", "))
        );
    }
    let _ = writeln!(o, "\nper requirement:");
    for q in &r.requirements {
        if !q.formalized {
            let _ = writeln!(o, "  {:<12} not formalized", clean(&q.id));
            continue;
        }
        let prefix = format!("{}/", q.id);
        let missed_ids: Vec<&str> = r
            .obligations
            .iter()
            .filter(|x| x.obligation.requirement == q.id && x.coverage == Coverage::Missed)
            .map(|x| {
                x.obligation
                    .id
                    .strip_prefix(&prefix)
                    .unwrap_or(&x.obligation.id)
            })
            .collect();
        let mut line = format!("{} of {} met", q.met, q.obligations);
        if !missed_ids.is_empty() {
            let _ = write!(line, "; missed {}", missed_ids.join(" "));
        }
        if q.unreachable > 0 {
            let _ = write!(line, "; {} unreachable", q.unreachable);
        }
        if q.undecided > 0 {
            let _ = write!(line, "; {} undecided", q.undecided);
        }
        let _ = writeln!(o, "  {:<12} {}", clean(&q.id), clean(&line));
    }
    let findings = cover_findings(p, name, &r);
    let mut rendered = Rendered::new(
        "vera.tests-cover.v1",
        status,
        o,
        CoverJson {
            schema: "vera.tests-cover.v1",
            spec: p.spec.name.clone(),
            file: p.spec.source.name().to_string(),
            suite: name.to_string(),
            solver: solver.to_string(),
            report: r,
        },
    );
    rendered.findings = Some(findings);
    rendered
}

fn cover_findings(p: &Problem, suite: &str, r: &rbt::cover::CoverReport) -> report::Findings {
    use rbt::cover::{Coverage, Validity};
    use report::{Finding as F, Level, Location, Rule};
    let file = p.spec.source.name().to_string();
    let line_of = |id: &str| {
        p.spec
            .requirements
            .iter()
            .find(|q| q.id == id)
            .map(|q| q.line as u32)
            .filter(|l| *l > 0)
    };
    let mut out = Vec::new();
    for v in &r.vectors {
        if let Validity::Invalid { core } = &v.validity {
            out.push(F {
                rule: "VERA-TESTS-INVALID-VECTOR",
                level: Level::Error,
                message: format!(
                    "{}: no valid system produces this vector; it contradicts {}",
                    v.id,
                    core.join(", ")
                ),
                location: Some(Location::new(suite, Some(v.line as u32))),
                related: core
                    .iter()
                    .filter_map(|id| line_of(id).map(|l| (id, l)))
                    .map(|(id, l)| Location::new(file.clone(), Some(l)).with_message(id.clone()))
                    .collect(),
            });
        }
    }
    for x in &r.obligations {
        if x.coverage == Coverage::Missed {
            out.push(F {
                rule: "VERA-TESTS-MISSED",
                level: Level::Warning,
                message: format!(
                    "{}: no vector meets {} ({})",
                    x.obligation.requirement,
                    x.obligation.id,
                    describe(&x.obligation.kind, x.obligation.condition.as_deref())
                ),
                location: Some(Location::new(
                    file.clone(),
                    line_of(&x.obligation.requirement),
                )),
                related: vec![],
            });
        }
    }
    report::Findings {
        command: "tests cover".into(),
        rules: vec![
            Rule {
                id: "VERA-TESTS-INVALID-VECTOR",
                name: "InvalidVector",
                short: "no system that meets the requirements could produce this test vector",
                help: "the vector contradicts the requirements named: correct the vector or the requirement",
                level: Level::Error,
            },
            Rule {
                id: "VERA-TESTS-MISSED",
                name: "MissedObligation",
                short: "no vector of the suite meets this test obligation, though a valid state does",
                help: "add a case (vera tests generates one)",
                level: Level::Warning,
            },
        ],
        findings: out,
        files: vec![file, suite.to_string()],
    }
}

/// `vera.tests-timed.v1`.
#[derive(Serialize)]
pub struct TimedJson {
    schema: &'static str,
    #[serde(flatten)]
    suite: rbt::timed::TimedSuite,
}

/// A shape in words.
fn shape_words(s: rbt::timed::Shape) -> &'static str {
    use rbt::timed::Shape;
    match s {
        Shape::Fires => "the requirement fires and its response follows",
        Shape::DeadlineHit => "the response comes at the last step the deadline allows",
        Shape::MissedByOne => "the response comes one tick after the deadline",
        Shape::DurationOneTickShort => "the response stops one tick before the duration ends",
        Shape::HeldOneTickShort => {
            "the condition holds one tick less than needed: the requirement does not fire"
        }
        Shape::EarliestAllowed => "the response comes at the first step allowed",
        Shape::OneTickEarly => "the response comes one tick early",
        Shape::Obligation => "a plain requirement's obligation, met at the first step",
    }
}

/// The report of `vera tests` on a timed spec: `suite` for `spec` with its matrix,
/// made in `seconds`. An undecided sequence makes it an error, an unreachable one or a
/// requirement not formalized a finding.
pub fn timed_report(
    spec: &reqs::Spec,
    suite: rbt::timed::TimedSuite,
    matrix: &[Vec<String>],
    seconds: f64,
) -> Rendered<TimedJson> {
    use rbt::timed::SequenceResult;
    let time = spec.time.as_ref().expect("a timed spec");
    let made = suite
        .sequences
        .iter()
        .filter(|r| matches!(r, SequenceResult::Made { .. }))
        .count();
    let unreachable = suite
        .sequences
        .iter()
        .filter(|r| matches!(r, SequenceResult::Unreachable { .. }))
        .count();
    let undecided = suite.sequences.len() - made - unreachable;
    let status = RStatus::of(
        undecided > 0,
        unreachable > 0 || !suite.not_formalized.is_empty(),
    );
    let timed_count = spec
        .requirements
        .iter()
        .filter(|r| r.timed.is_some())
        .count();
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{} ({}): {made} test sequence{} for {timed_count} timed requirement{}{}, tick {} ({}, {seconds:.2} s)",
        clean(&suite.spec),
        clean(&suite.file),
        if made == 1 { "" } else { "s" },
        if timed_count == 1 { "" } else { "s" },
        match spec.formalized().count() {
            0 => String::new(),
            1 => " and 1 plain one (its obligations at the first step)".to_string(),
            k => format!(" and {k} plain ones (their obligations at the first step)"),
        },
        clean(&suite.tick),
        suite.solver
    );
    let _ = writeln!(
        o,
        "Every sequence satisfies the domain and every other requirement at every step, checked again by the trace evaluator; a sequence that shows a deadline missed or a duration cut short violates exactly its own requirement."
    );
    let _ = writeln!(
        o,
        "`expect` rows: given the inputs at every step, the value every valid trace has (the whole spec, the sequence's own requirement included), or `free`; each free cell is free on its own, and the spec may still tie free cells together (a deadline demands the response at one of several steps): `vera tests run` judges the whole trace."
    );
    for r in &suite.sequences {
        match r {
            SequenceResult::Made { sequence: s } => write_sequence(&mut o, s, time),
            SequenceResult::Unreachable {
                id, core, shape, ..
            } => {
                let _ = writeln!(
                    o,
                    "\n{}: {} — no trace has it: ruled out by {}",
                    clean(id),
                    shape_words(*shape),
                    clean(&core.join(", "))
                );
            }
            SequenceResult::Undecided { id, reason, .. } => {
                let _ = writeln!(o, "\n{}: undecided ({})", clean(id), clean(reason.as_str()));
            }
        }
    }
    if !suite.not_formalized.is_empty() {
        let _ = writeln!(
            o,
            "\nnot formalized (no sequence): {}",
            clean(&suite.not_formalized.join(", "))
        );
    }
    let csv = timed_csv(&suite, spec);
    let page = timed_page(spec, &suite, matrix, seconds);
    let mut r = Rendered::new(
        "vera.tests-timed.v1",
        status,
        o,
        TimedJson {
            schema: "vera.tests-timed.v1",
            suite,
        },
    );
    r.csv = Some(csv);
    r.page = Some(page);
    r
}

/// One made sequence as text: its header line and its table (a column per step).
fn write_sequence(o: &mut String, s: &rbt::timed::Sequence, time: &reqs::timed::TimeBase) {
    let verdict = match s.violated_at {
        Some(t) => format!(
            "expected verdict: violates {} at {}",
            s.requirement,
            time.show(t as u64)
        ),
        None => "expected verdict: every requirement holds".into(),
    };
    let _ = writeln!(
        o,
        "\n{}: {} (trigger step {}, {}); {verdict}",
        clean(&s.id),
        shape_words(s.shape),
        s.trigger_step,
        time.show(s.trigger_step as u64)
    );
    let mut labels: Vec<String> = vec!["time".into()];
    labels.extend(s.rows.iter().map(|r| match r.role {
        "input" => format!("{} (in)", r.variable),
        "output" => format!("{} (out)", r.variable),
        _ => r.variable.clone(),
    }));
    let mut cols: Vec<Vec<String>> = vec![s.times.clone()];
    cols.extend(s.rows.iter().map(|r| r.values.clone()));
    if let rbt::timed::Expectation::Outputs { rows } = &s.expected {
        for r in rows {
            labels.push(format!("expect {}", r.variable));
            cols.push(r.values.iter().map(|e| e.cell()).collect());
        }
    }
    let lw = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    let widths: Vec<usize> = (0..s.times.len())
        .map(|t| cols.iter().map(|c| c[t].chars().count()).max().unwrap_or(0))
        .collect();
    for (label, col) in labels.iter().zip(&cols) {
        let cells: Vec<String> = col
            .iter()
            .zip(&widths)
            .map(|(v, w)| format!("{v:>w$}"))
            .collect();
        let _ = writeln!(o, "  {:<lw$}  {}", clean(label), clean(&cells.join(" ")));
    }
    match &s.expected {
        rbt::timed::Expectation::Outputs { .. } => {}
        rbt::timed::Expectation::NoValidTrace => {
            let _ = writeln!(
                o,
                "  no expected outputs: no trace with these inputs satisfies the whole spec"
            );
        }
        rbt::timed::Expectation::NoRoles => {
            let _ = writeln!(
                o,
                "  no expected outputs: the spec declares no inputs (role = \"input\")"
            );
        }
    }
}

/// Rows as CSV.
pub fn rows_csv(rows: &[Vec<String>]) -> String {
    let mut w = csv_writer();
    for r in rows {
        let _ = w.write_record(r);
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}

/// The HTML page of a timed suite: a card per requirement with its sequences as
/// timing tables (inputs, outputs, and the expected outputs), then the matrix.
fn timed_page(
    spec: &reqs::Spec,
    suite: &rbt::timed::TimedSuite,
    matrix: &[Vec<String>],
    seconds: f64,
) -> report::html::Page {
    use rbt::timed::{Expectation, SequenceResult};
    use report::html::{Block, Count, Page, Section, Tone};
    let time = spec.time.as_ref().expect("a timed spec");
    let mut cards = Vec::new();
    for q in &spec.requirements {
        if q.timed.is_none() && q.formula.is_none() {
            cards.push(Block::Item {
                title: q.id.clone(),
                badge: "not formalized".into(),
                tone: Tone::Warn,
                blocks: vec![
                    Block::Text(q.text.clone()),
                    Block::Text("No formula or pattern: no sequence can be derived.".into()),
                ],
            });
            continue;
        }
        let mut blocks = vec![Block::Text(q.text.clone())];
        let (mut made, mut unreachable, mut undecided) = (0, 0, 0);
        for r in suite.sequences.iter() {
            match r {
                SequenceResult::Made { sequence: s } if s.requirement == q.id => {
                    made += 1;
                    let verdict = match s.violated_at {
                        Some(t) => format!("violates {} at {}", s.requirement, time.show(t as u64)),
                        None => "every requirement holds".into(),
                    };
                    blocks.push(Block::Text(format!(
                        "{}: {}; expected verdict: {verdict}",
                        s.id,
                        shape_words(s.shape)
                    )));
                    // One row per step (a page is narrower than a long trace).
                    let mut headers = vec!["step".to_string(), "time".to_string()];
                    headers.extend(s.rows.iter().map(|r| match r.role {
                        "input" => format!("{} (in)", r.variable),
                        "output" => format!("{} (out)", r.variable),
                        _ => r.variable.clone(),
                    }));
                    let expected: &[rbt::timed::ExpectedRow] = match &s.expected {
                        Expectation::Outputs { rows } => rows,
                        _ => &[],
                    };
                    headers.extend(expected.iter().map(|r| format!("expect {}", r.variable)));
                    let rows: Vec<Vec<String>> = (0..s.times.len())
                        .map(|t| {
                            let mut row = vec![t.to_string(), s.times[t].clone()];
                            row.extend(s.rows.iter().map(|r| r.values[t].clone()));
                            row.extend(expected.iter().map(|r| r.values[t].cell()));
                            row
                        })
                        .collect();
                    blocks.push(Block::Table { headers, rows });
                }
                SequenceResult::Unreachable {
                    id,
                    requirement,
                    shape,
                    core,
                } if *requirement == q.id => {
                    unreachable += 1;
                    blocks.push(Block::Text(format!(
                        "{id}: {} — no trace has it: ruled out by {}",
                        shape_words(*shape),
                        core.join(", ")
                    )));
                }
                SequenceResult::Undecided {
                    id,
                    requirement,
                    reason,
                    ..
                } if *requirement == q.id => {
                    undecided += 1;
                    blocks.push(Block::Text(format!("{id}: undecided ({reason})")));
                }
                _ => {}
            }
        }
        let (badge, tone) = if undecided > 0 {
            (format!("{undecided} undecided"), Tone::Bad)
        } else if unreachable > 0 {
            (format!("{unreachable} unreachable"), Tone::Warn)
        } else {
            (
                format!("{made} sequence{}", if made == 1 { "" } else { "s" }),
                Tone::Good,
            )
        };
        cards.push(Block::Item {
            title: format!("{} (line {})", q.id, q.line),
            badge,
            tone,
            blocks,
        });
    }
    let count = |f: fn(&SequenceResult) -> bool| suite.sequences.iter().filter(|r| f(r)).count();
    let (headers, rows) = match matrix.split_first() {
        Some((h, rest)) => (h.clone(), rest.to_vec()),
        None => (vec![], vec![]),
    };
    Page {
        title: format!("vera tests: {}", suite.spec),
        subtitle: Some(format!(
            "{} · tick {} · {} · {seconds:.2} s",
            suite.file, suite.tick, suite.solver
        )),
        counts: vec![
            Count::neutral("sequences", count(|r| matches!(r, SequenceResult::Made { .. }))),
            Count::findings(
                "unreachable",
                count(|r| matches!(r, SequenceResult::Unreachable { .. })),
                Tone::Warn,
            ),
            Count::findings(
                "undecided",
                count(|r| matches!(r, SequenceResult::Undecided { .. })),
                Tone::Bad,
            ),
            Count::findings("without a formula", suite.not_formalized.len(), Tone::Warn),
        ],
        sections: vec![
            Section {
                heading: "Requirements and their sequences".into(),
                blocks: cards,
            },
            Section {
                heading: "Traceability matrix".into(),
                blocks: vec![
                    Block::Text(
                        "One row per requirement, one column per sequence; a cell names what the sequence was made to show for the requirement."
                            .into(),
                    ),
                    Block::Table { headers, rows },
                ],
            },
        ],
    }
}

/// The timing tables as one CSV: a row per sequence and step.
fn timed_csv(suite: &rbt::timed::TimedSuite, spec: &reqs::Spec) -> String {
    use rbt::timed::SequenceResult;
    let mut header = vec![
        "sequence".to_string(),
        "requirement".into(),
        "expected".into(),
        "step".into(),
        "time".into(),
    ];
    let mut vars: Vec<String> = Vec::new();
    for r in &suite.sequences {
        if let SequenceResult::Made { sequence } = r {
            vars = sequence.rows.iter().map(|r| r.variable.clone()).collect();
            break;
        }
    }
    if vars.is_empty() {
        vars = spec.variables.iter().map(|v| v.name.to_string()).collect();
    }
    header.extend(vars.iter().cloned());
    let outputs: Vec<String> = rbt::timed::TimedRoles::of(spec)
        .outputs
        .iter()
        .map(|n| n.to_string())
        .collect();
    header.extend(outputs.iter().map(|v| format!("expected:{v}")));
    let mut w = csv_writer();
    let _ = w.write_record(&header);
    for r in &suite.sequences {
        let SequenceResult::Made { sequence: s } = r else {
            continue;
        };
        let expected = match s.violated_at {
            Some(t) => format!("violates at step {t}"),
            None => "holds".into(),
        };
        for (t, time) in s.times.iter().enumerate() {
            let mut row = vec![
                s.id.clone(),
                s.requirement.clone(),
                expected.clone(),
                t.to_string(),
                time.clone(),
            ];
            for v in &vars {
                row.push(
                    s.rows
                        .iter()
                        .find(|r| &r.variable == v)
                        .map(|r| r.values[t].clone())
                        .unwrap_or_default(),
                );
            }
            for v in &outputs {
                row.push(match &s.expected {
                    rbt::timed::Expectation::Outputs { rows } => rows
                        .iter()
                        .find(|r| &r.variable == v)
                        .map(|r| r.values[t].cell())
                        .unwrap_or_default(),
                    rbt::timed::Expectation::NoValidTrace => "none".into(),
                    rbt::timed::Expectation::NoRoles => String::new(),
                });
            }
            let _ = w.write_record(&row);
        }
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}

fn csv_writer() -> csv::Writer<Vec<u8>> {
    csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new())
}

/// `vera.tests-run-timed.v1`.
#[derive(Serialize)]
pub struct RunTimedJson {
    schema: &'static str,
    spec: String,
    file: String,
    solver: String,
    tick: String,
    #[serde(flatten)]
    report: rbt::timed_run::TimedRunReport,
    /// Sequences the suite could not make (unreachable or undecided).
    not_made: usize,
}

/// The report of `vera tests run` on a timed spec: `report` of running the sequences of
/// `suite` (for `p`) in `seconds`.
pub fn run_timed_report(
    p: &Problem,
    suite: &rbt::timed::TimedSuite,
    report: rbt::timed_run::TimedRunReport,
    seconds: f64,
) -> Rendered<RunTimedJson> {
    let not_made = suite.sequences.len() - report.sequences.len();
    let undecided = suite
        .sequences
        .iter()
        .any(|r| matches!(r, rbt::timed::SequenceResult::Undecided { .. }));
    let status = RStatus::of(report.errors > 0 || undecided, report.failed > 0);
    let time = p.spec.time.as_ref().expect("a timed spec");
    let items = sequence_items(&report, time);
    let text = human_run_timed(suite, &report, &items, seconds);
    let junit = run_junit(p, &report.implementation, &items);
    let findings = run_findings(p, &items);
    let mut r = Rendered::new(
        "vera.tests-run-timed.v1",
        status,
        text,
        RunTimedJson {
            schema: "vera.tests-run-timed.v1",
            spec: suite.spec.clone(),
            file: suite.file.clone(),
            solver: suite.solver.clone(),
            tick: suite.tick.clone(),
            report,
            not_made,
        },
    );
    r.suites = Some(vec![junit]);
    r.findings = Some(findings);
    r
}

/// A sequence's verdict in one line, and the steps that show it.
fn sequence_detail(
    r: &rbt::timed_run::SequenceRun,
    time: &reqs::timed::TimeBase,
) -> (String, String) {
    use rbt::timed_run::SequenceVerdict;
    let mut detail = String::new();
    for row in &r.observed {
        let _ = writeln!(
            detail,
            "observed {}: {}",
            row.variable,
            row.values.join(" ")
        );
    }
    let line = match &r.verdict {
        SequenceVerdict::Pass => "passed".to_string(),
        SequenceVerdict::Fail {
            violated,
            differences,
        } => {
            let mut line = format!("violates {}", violated.join(", "));
            for d in differences.iter().take(3) {
                let _ = write!(
                    line,
                    "; {} at step {} ({}) is {}, the spec forces {}",
                    d.variable,
                    d.step,
                    time.show(d.step as u64),
                    d.observed,
                    d.expected
                );
            }
            if differences.len() > 3 {
                let _ = write!(line, "; {} more differences", differences.len() - 3);
            }
            line
        }
        SequenceVerdict::Error { message } => message.clone(),
    };
    (line, detail)
}

fn human_run_timed(
    suite: &rbt::timed::TimedSuite,
    r: &rbt::timed_run::TimedRunReport,
    items: &[RunItem],
    seconds: f64,
) -> String {
    let mut o = String::new();
    let n = r.sequences.len();
    let _ = writeln!(
        o,
        "{} ({}) against {}: {n} sequence{} — {} passed, {} failed, {} error{} (tick {}, {}, {seconds:.2} s)",
        clean(&suite.spec),
        clean(&suite.file),
        clean(&r.implementation),
        if n == 1 { "" } else { "s" },
        r.passed,
        r.failed,
        r.errors,
        if r.errors == 1 { "" } else { "s" },
        clean(&suite.tick),
        suite.solver
    );
    let _ = writeln!(
        o,
        "Each sequence's inputs go to the implementation step by step; its outputs at every step are judged against the domain and every requirement on the whole trace{}.",
        match &r.tolerance {
            Some(t) => format!(" (numeric outputs within {t})"),
            None => String::new(),
        }
    );
    write_failures(&mut o, items);
    if r.failed == 0 && r.errors == 0 {
        let _ = writeln!(
            o,
            "\nEvery sequence passed: the observed outputs satisfy the domain and every requirement at every step."
        );
    }
    o
}

/// `vera.tests-cover-timed.v1`.
#[derive(Serialize)]
pub struct CoverTimedJson {
    schema: &'static str,
    spec: String,
    file: String,
    suite: String,
    solver: String,
    tick: String,
    #[serde(flatten)]
    report: rbt::timed_cover::TimedCoverReport,
}

/// The report of `vera tests cover` on a timed spec: `r`, the coverage of the sequences
/// file `name` for `p`, measured with `solver` in `seconds`.
pub fn cover_timed_report(
    p: &Problem,
    name: &str,
    r: rbt::timed_cover::TimedCoverReport,
    solver: &str,
    seconds: f64,
) -> Rendered<CoverTimedJson> {
    use rbt::cover::Validity as SequenceValidity;
    use rbt::timed_cover::ShapeCoverage;
    let missed = r.count(|c| matches!(c, ShapeCoverage::Missed));
    let status = RStatus::of(
        r.has_errors(),
        missed > 0 || r.invalid() > 0 || !r.not_exercised.is_empty(),
    );
    let time = p.spec.time.as_ref().expect("a timed spec");
    let mut o = String::new();
    let valid = r
        .sequences
        .iter()
        .filter(|v| v.validity == SequenceValidity::Valid)
        .count();
    let _ = writeln!(
        o,
        "{} ({}): suite {}: {} sequence{} ({valid} valid, {} no valid system could produce), tick {} ({}, {seconds:.2} s)",
        clean(&p.spec.name),
        clean(p.spec.source.name()),
        clean(name),
        r.sequences.len(),
        if r.sequences.len() == 1 { "" } else { "s" },
        r.invalid(),
        clean(&time.tick_text),
        solver
    );
    let _ = writeln!(
        o,
        "obligations (the shapes `vera tests` makes): {} — {} met, {missed} missed, {} unreachable, {} undecided",
        r.obligations.len(),
        r.count(|c| matches!(c, ShapeCoverage::Met { .. })),
        r.count(|c| matches!(c, ShapeCoverage::Unreachable { .. })),
        r.count(|c| matches!(c, ShapeCoverage::Undecided { .. }))
    );
    for sq in &r.sequences {
        match &sq.validity {
            SequenceValidity::Valid => {
                let _ = writeln!(
                    o,
                    "  {} (line {}, {} steps): meets {}",
                    clean(&sq.id),
                    sq.line,
                    sq.steps,
                    if sq.meets.is_empty() {
                        "nothing".to_string()
                    } else {
                        clean(&sq.meets.join(", "))
                    }
                );
            }
            SequenceValidity::Invalid { core } => {
                let _ = writeln!(
                    o,
                    "  {} (line {}, {} steps): no valid system produces it — it contradicts {}",
                    clean(&sq.id),
                    sq.line,
                    sq.steps,
                    clean(&core.join(", "))
                );
            }
            SequenceValidity::Undecided { reason } => {
                let _ = writeln!(
                    o,
                    "  {} (line {}): undecided ({})",
                    clean(&sq.id),
                    sq.line,
                    clean(reason.as_str())
                );
            }
        }
    }
    for ob in &r.obligations {
        let line = match &ob.coverage {
            ShapeCoverage::Met { .. } => continue,
            ShapeCoverage::Missed => "missed: no sequence of the suite meets it in every valid trace with its values (some trace does)".to_string(),
            ShapeCoverage::Unreachable { core } => {
                format!("unreachable: no trace has it ({})", core.join(", "))
            }
            ShapeCoverage::Undecided { reason } => format!("undecided ({reason})"),
        };
        let _ = writeln!(o, "  {}: {}", clean(&ob.id), clean(&line));
    }
    if !r.not_exercised.is_empty() {
        let _ = writeln!(
            o,
            "requirements no valid sequence makes fire: {}",
            clean(&r.not_exercised.join(", "))
        );
    }
    let r = Rendered::new(
        "vera.tests-cover-timed.v1",
        status,
        o,
        CoverTimedJson {
            schema: "vera.tests-cover-timed.v1",
            spec: p.spec.name.clone(),
            file: p.spec.source.name().to_string(),
            suite: name.to_string(),
            solver: solver.to_string(),
            tick: time.tick_text.clone(),
            report: r,
        },
    );
    r
}

/// The report of `vera tests` ([`rbt::command::generate`]) and its traceability
/// matrix as CSV (for `--matrix`).
pub fn generated(g: rbt::command::Generated) -> (Box<dyn report::Report>, String) {
    use rbt::command::Generated;
    match g {
        Generated::Cases {
            problem,
            suite,
            matrix,
            seconds,
        } => (Box::new(suite_report(&problem, suite, seconds)), matrix),
        Generated::Sequences {
            spec,
            suite,
            matrix,
            seconds,
        } => {
            let csv = rows_csv(&matrix);
            (Box::new(timed_report(&spec, suite, &matrix, seconds)), csv)
        }
    }
}

/// The report of `vera tests run` ([`rbt::command::run`]).
pub fn ran(r: rbt::command::Ran) -> Box<dyn report::Report> {
    use rbt::command::Ran;
    match r {
        Ran::Cases {
            problem,
            suite,
            report,
            seconds,
        } => Box::new(run_report(&problem, &suite, report, seconds)),
        Ran::Sequences {
            problem,
            suite,
            report,
            seconds,
        } => Box::new(run_timed_report(&problem, &suite, report, seconds)),
    }
}

/// The report of `vera tests cover` ([`rbt::command::cover`]) of the suite file `name`,
/// measured with `solver`.
pub fn covered(c: rbt::command::Covered, name: &str, solver: &str) -> Box<dyn report::Report> {
    use rbt::command::Covered;
    match c {
        Covered::Vectors {
            problem,
            report,
            seconds,
        } => Box::new(cover_report(&problem, name, report, solver, seconds)),
        Covered::Sequences {
            problem,
            report,
            seconds,
        } => Box::new(cover_timed_report(&problem, name, report, solver, seconds)),
    }
}

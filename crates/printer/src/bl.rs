//! The reports of `vera consistency`: one documentation side against one
//! implementation (regions, counterexamples, exceptions), and batches of cases with
//! their summary table, JUnit suites and findings.

use crate::text::{paint, Paint};
use crate::Rendered;
use bl::check::Verdict;
use report::{Finding, Findings, Level, Location, Rule, Status};
use std::fmt::Write as _;

/// The report of `vera consistency` on one pair: the documentation side `nl`, the
/// implementation `imp`, and the check's `report`. With `strict_exceptions`, a stale or
/// broader exception makes a consistent pair a finding.
pub fn consistency_report(
    nl: String,
    imp: String,
    report: bl::check::Report,
    strict_exceptions: bool,
) -> Rendered<ConsistencyJson> {
    let mut status = verdict_status(Some(report.verdict));
    let flagged = exception_findings(Some(&report));
    if strict_exceptions && !flagged.is_empty() && status == Status::Ok {
        status = Status::Findings;
    }
    let case = consistency_case(
        &imp,
        Some(report.verdict),
        report.reason.as_deref(),
        None,
        Some(&report),
    );
    let findings = consistency_findings(
        &nl,
        &imp,
        Some(report.verdict),
        report.reason.as_deref(),
        Some(&report),
    );
    let mut r = Rendered::new(
        "vera.consistency.v1",
        status,
        render_check(&report),
        ConsistencyJson {
            schema: "vera.consistency.v1",
            nl: nl.clone(),
            implementation: imp.clone(),
            report: Some(report),
            error: None,
        },
    );
    r.suites = Some(vec![report::Suite {
        name: imp.clone(),
        file: Some(imp.clone()),
        cases: vec![case],
    }]);
    r.findings = Some(Findings {
        command: "consistency".into(),
        rules: CONSISTENCY_RULES.to_vec(),
        findings: findings.into_iter().chain(flagged).collect(),
        files: vec![nl, imp],
    });
    r
}

/// What the solver confirmed about the region list as a whole, as one sentence.
fn partition_sentence(rep: &bl::check::Report) -> Option<String> {
    use bl::check::Proof;
    let p = rep.partition.as_ref()?;
    let n = rep.regions.len();
    let the = if n == 1 {
        "The region is".to_string()
    } else {
        format!("The {n} regions are")
    };
    if p.exact() {
        return Some(if n == 1 {
            "The region is exactly the divergence (checked by the solver).".to_string()
        } else {
            format!("{the} disjoint and cover the divergence exactly (checked by the solver).")
        });
    }
    let mut parts = Vec::new();
    for (what, not, proof) in [
        ("disjoint", "not disjoint", &p.disjoint),
        (
            "inside the divergence",
            "not inside the divergence",
            &p.within_divergence,
        ),
        (
            "cover the divergence",
            "do not cover the divergence",
            &p.covers_divergence,
        ),
    ] {
        match proof {
            Proof::Proved => parts.push(format!("{what} (checked)")),
            Proof::Unknown(r) => parts.push(format!("{what}: not known ({r})")),
            Proof::Refuted(d) => parts.push(format!("{not}: {d}")),
        }
    }
    Some(format!("{the} {}.", parts.join("; ")))
}

/// One region: its conditions, the difference with its range, and its witnesses.
fn render_region(rep: &bl::check::Report, r: &bl::check::Region, line: &mut dyn FnMut(String)) {
    use bl::check::DifferenceKind;
    line(format!(
        "  - {}{}",
        if r.conditions.is_empty() {
            "every input".to_string()
        } else {
            r.conditions.join(" and ")
        },
        match (r.everywhere, &r.note) {
            (Some(true), _) => String::new(),
            (Some(false), _) => " (where the outputs differ: on part of it)".to_string(),
            (None, Some(n)) => format!(" (not known whether everywhere: {n})"),
            (None, None) => " (not known whether everywhere)".to_string(),
        }
    ));
    let range = match &r.range {
        Some(g) if g.min.value == g.max.value && g.min.value.is_some() => String::new(),
        Some(g) => {
            let end = |e: &bl::check::RangeEnd, unbounded: &str| match &e.value {
                Some(v) if e.attained => v.clone(),
                Some(v) => format!("{v} (excluded)"),
                None => unbounded.to_string(),
            };
            format!(
                ", from {} to {}",
                end(&g.min, "-infinity"),
                end(&g.max, "+infinity")
            )
        }
        None if r.difference_kind == DifferenceKind::Linear => ", range not computed".to_string(),
        None => String::new(),
    };
    line(format!(
        "      BL - NL = {}{}{range}",
        r.difference,
        if r.difference_kind == DifferenceKind::Sample {
            " at the first example (not linear here)"
        } else {
            ""
        }
    ));
    for w in &r.witnesses {
        let at: Vec<String> = w.inputs.iter().map(|(k, v)| format!("{k} = {v}")).collect();
        line(format!(
            "      e.g. {}: NL {} = {}, BL {} = {} ({})",
            at.join(", "),
            rep.nl_output,
            w.nl_output,
            rep.bl_output,
            w.bl_output,
            match w.at {
                bl::check::WitnessKind::Boundary => "at the boundary",
                bl::check::WitnessKind::Inside => "inside",
                bl::check::WitnessKind::Solver => "the solver's value",
            }
        ));
    }
    if let (Some(_), Some(n)) = (r.everywhere, &r.note) {
        line(format!("      ({n})"));
    }
}

/// `, with 1 accepted exception (id: reason)` for the exceptions the verdict rests on.
fn accepted_suffix(rep: &bl::check::Report) -> String {
    use bl::check::ExceptionStatus;
    let used: Vec<String> = rep
        .exceptions
        .iter()
        .filter(|e| {
            matches!(
                e.status,
                ExceptionStatus::InUse | ExceptionStatus::Broader | ExceptionStatus::Undecided
            )
        })
        .map(|e| format!("{}: {}", e.id, e.reason))
        .collect();
    match used.len() {
        0 => String::new(),
        1 => format!(", with 1 accepted exception ({})", used[0]),
        n => format!(", with {n} accepted exceptions ({})", used.join("; ")),
    }
}

/// A line for an exception that needs a look (stale, broader than needed, undecided).
fn exception_line(e: &bl::check::ExceptionUse) -> Option<String> {
    use bl::check::ExceptionStatus;
    let who = format!("{}, accepted by {} on {}", e.file, e.accepted_by, e.date);
    match e.status {
        ExceptionStatus::InUse => e
            .note
            .as_ref()
            .map(|n| format!("[Exception] {} ({who}): {n}", e.id)),
        ExceptionStatus::Stale => Some(format!(
            "[Exception stale] {} ({who}): it excludes no input where the outputs differ; nothing rests on it",
            e.id
        )),
        ExceptionStatus::Broader => {
            let at: Vec<String> = e
                .witness
                .iter()
                .flatten()
                .map(|(k, v)| format!("{k} = {v}"))
                .collect();
            Some(format!(
                "[Exception broader than needed] {} ({who}): it also excludes inputs where the outputs agree, e.g. {} ({})",
                e.id,
                at.join(", "),
                e.note.as_deref().unwrap_or("")
            ))
        }
        ExceptionStatus::Undecided => Some(format!(
            "[Exception undecided] {} ({who}): {}",
            e.id,
            e.note.as_deref().unwrap_or("a query answered unknown")
        )),
    }
}

/// `vera bl check`'s line: the program's bindings, its inputs and its last binding.
pub fn summary_text(path: &str, p: &bl::Program) -> String {
    let inputs: Vec<&str> = p.inputs().collect();
    format!(
        "{}: {} bindings; inputs: {}; last binding: {}\n",
        path,
        p.lets.len(),
        if inputs.is_empty() {
            "none".to_string()
        } else {
            inputs.join(", ")
        },
        p.last_name().unwrap_or("none")
    )
}

/// `vera bl eval`'s text: `output = value` for the one binding asked (which must be in
/// `values`), or every binding's value in program order, names aligned.
pub fn eval_text(p: &bl::Program, values: &bl::Values, output: Option<&str>) -> String {
    let mut text = String::new();
    match output {
        Some(o) => {
            if let Some(v) = values.get(o) {
                let _ = writeln!(text, "{o} = {}", bl::format::value(v));
            }
        }
        None => {
            let width = p
                .lets
                .iter()
                .map(|l| l.name.len())
                .max()
                .unwrap_or(0)
                .min(40);
            for l in &p.lets {
                if let Some(v) = values.get(&l.name) {
                    let _ = writeln!(text, "{:width$} = {}", l.name, bl::format::value(v));
                }
            }
        }
    }
    text
}

/// The terminal text of a consistency check, in the style of Fig. 2 of the SIRNA paper.
pub fn render_check(rep: &bl::check::Report) -> String {
    // Every line goes through `line`, which escapes control characters: names and
    // values come from input files and must not act on a terminal or start a line.
    let mut s = String::new();
    let mut line = |text: String| {
        s.push_str(&bl::diag::escape(&text));
        s.push('\n');
    };
    for f in &rep.findings {
        line(format!(
            "[{} {}] {}",
            if f.blocking {
                "Formalization error"
            } else {
                "Formalization warning"
            },
            f.side.upper(),
            f.message
        ));
    }
    for u in &rep.undecided {
        // Those the verdict depends on are its reason, printed with it.
        if !u.affects_verdict || rep.verdict != bl::check::Verdict::Unknown {
            line(format!("[Undecided] {}", u.describe()));
        }
    }
    match rep.verdict {
        bl::check::Verdict::Consistent => line(format!(
            "[Consistent] NL {} and BL {} agree on every input allowed by the mappings and constraints{}",
            rep.nl_output,
            rep.bl_output,
            accepted_suffix(rep)
        )),
        bl::check::Verdict::Unknown => line(format!(
            "[Unknown] {}",
            rep.reason.as_deref().unwrap_or("the solver gave no answer")
        )),
        bl::check::Verdict::Rejected => {
            line("[Rejected] the formalization must be fixed before checking".into())
        }
        bl::check::Verdict::Inconsistent => {
            line("[Inconsistency Found]".into());
            if let Some(c) = &rep.counterexample {
                let show = |m: &std::collections::BTreeMap<String, String>| {
                    m.iter()
                        .map(|(k, v)| format!("{k} = {v}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                line(format!(
                    "Inputs: NL {}, BL {}",
                    show(&c.nl.inputs),
                    show(&c.bl.inputs)
                ));
                line(format!(
                    "Outputs: NL {} = {} ({}), BL {} = {} ({})",
                    c.nl.output, c.nl.value, c.nl.replay, c.bl.output, c.bl.value, c.bl.replay
                ));
            }
        }
    }
    for e in &rep.exceptions {
        if let Some(l) = exception_line(e) {
            line(l);
        }
    }
    if !rep.regions.is_empty() || rep.regions_note.is_some() {
        line(format!(
            "Divergence regions ({}{}):",
            rep.regions.len(),
            match (&rep.regions_note, rep.regions_complete) {
                (Some(n), _) => format!(", incomplete: {n}"),
                (None, false) => ", incomplete".to_string(),
                (None, true) => String::new(),
            }
        ));
        for r in &rep.regions {
            render_region(rep, r, &mut line);
        }
        if let Some(p) = partition_sentence(rep) {
            line(p);
        }
    }
    s
}

/// `vera.consistency.v1`.
#[derive(serde::Serialize)]
pub struct ConsistencyJson {
    schema: &'static str,
    nl: String,
    implementation: String,
    /// None when the check could not run (then `error` says why).
    report: Option<bl::check::Report>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// The report of a single check that could not run (the binary shows the error on
/// standard error): an error case in JUnit and a NotChecked result in SARIF, exit 2.
pub fn not_checked(nl: &str, imp: &str, error: &str) -> Rendered<ConsistencyJson> {
    let mut r = Rendered::new(
        "vera.consistency.v1",
        Status::Error,
        String::new(),
        ConsistencyJson {
            schema: "vera.consistency.v1",
            nl: nl.to_string(),
            implementation: imp.to_string(),
            report: None,
            error: Some(error.to_string()),
        },
    );
    r.suites = Some(vec![report::Suite {
        name: imp.to_string(),
        file: Some(imp.to_string()),
        cases: vec![consistency_case(imp, None, None, Some(error), None)],
    }]);
    r.findings = Some(Findings {
        command: "consistency".into(),
        rules: CONSISTENCY_RULES.to_vec(),
        findings: consistency_findings(nl, imp, None, Some(error), None)
            .into_iter()
            .collect(),
        files: vec![nl.to_string(), imp.to_string()],
    });
    r
}

/// The finding kinds of a consistency check (SARIF rules).
const CONSISTENCY_RULES: &[Rule] = &[
    Rule {
        id: "VERA-CONSISTENCY-DIVERGES",
        name: "ImplementationDiverges",
        short: "The implementation computes a different output than the documentation for some inputs.",
        help: "Read the counterexample and the divergence regions; fix the implementation or the documentation.",
        level: Level::Error,
    },
    Rule {
        id: "VERA-CONSISTENCY-UNDECIDED",
        name: "Undecided",
        short: "The solver could not decide whether the two agree; nothing was proved.",
        help: "Raise --timeout, add input bounds, or try the other solver.",
        level: Level::Error,
    },
    Rule {
        id: "VERA-CONSISTENCY-NOT-CHECKED",
        name: "NotChecked",
        short: "The check could not run (bad input, a tool failure); nothing was compared.",
        help: "Read the error message with its file and line.",
        level: Level::Error,
    },
    Rule {
        id: "VERA-EXCEPTION-STALE",
        name: "StaleException",
        short: "An accepted exception excludes no input where the outputs differ any more.",
        help: "Remove it from the exceptions file, or check why the divergence it covered is gone.",
        level: Level::Warning,
    },
    Rule {
        id: "VERA-EXCEPTION-BROADER",
        name: "BroaderException",
        short: "An accepted exception also excludes inputs where the two outputs agree.",
        help: "Narrow its `assume` predicate to the divergence (the witness is an input it need not exclude).",
        level: Level::Warning,
    },
    Rule {
        id: "VERA-CONSISTENCY-REJECTED",
        name: "FormalizationRejected",
        short: "The formalization of the documentation was rejected by its checks; nothing was compared.",
        help: "Correct the formalization (see the blocking findings).",
        level: Level::Error,
    },
];

/// The exit status of one verdict (`None`: the check could not run).
fn verdict_status(v: Option<Verdict>) -> Status {
    match v {
        Some(Verdict::Consistent) => Status::Ok,
        Some(Verdict::Inconsistent) => Status::Findings,
        Some(Verdict::Unknown | Verdict::Rejected) | None => Status::Error,
    }
}

/// One check as a pass/fail case.
fn consistency_case(
    name: &str,
    verdict: Option<Verdict>,
    reason: Option<&str>,
    error: Option<&str>,
    report: Option<&bl::check::Report>,
) -> report::Case {
    let why = reason.or(error).unwrap_or("").to_string();
    let outcome = match verdict {
        Some(Verdict::Consistent) => report::Outcome::Passed,
        Some(Verdict::Inconsistent) => report::Outcome::Failed {
            message: "the implementation diverges from the documentation".into(),
            detail: report.map(render_check).unwrap_or_default(),
        },
        Some(Verdict::Rejected) => report::Outcome::Error {
            message: "the formalization was rejected".into(),
            detail: why,
        },
        Some(Verdict::Unknown) => report::Outcome::Error {
            message: "not decided".into(),
            detail: why,
        },
        None => report::Outcome::Error {
            message: "the check could not run".into(),
            detail: why,
        },
    };
    report::Case {
        name: name.to_string(),
        class: "vera.consistency".into(),
        outcome,
        seconds: None,
        output: None,
    }
}

/// The finding of one check, if it found something (or could not decide).
fn consistency_findings(
    nl: &str,
    imp: &str,
    verdict: Option<Verdict>,
    reason: Option<&str>,
    report: Option<&bl::check::Report>,
) -> Option<Finding> {
    let (rule, message) = match verdict {
        Some(Verdict::Consistent) => return None,
        Some(Verdict::Inconsistent) => {
            let example = report
                .and_then(|r| r.regions.first())
                .map(|g| format!(", e.g. when {}", g.conditions.join(" and ")))
                .unwrap_or_default();
            (
                "VERA-CONSISTENCY-DIVERGES",
                format!("{imp} diverges from its documentation {nl}{example}"),
            )
        }
        Some(Verdict::Rejected) => (
            "VERA-CONSISTENCY-REJECTED",
            format!(
                "the formalization {nl} was rejected: {}",
                reason.unwrap_or("")
            ),
        ),
        Some(Verdict::Unknown) => (
            "VERA-CONSISTENCY-UNDECIDED",
            format!("not decided: {}", reason.unwrap_or("")),
        ),
        None => (
            "VERA-CONSISTENCY-NOT-CHECKED",
            format!("the check could not run: {}", reason.unwrap_or("")),
        ),
    };
    Some(Finding {
        rule,
        level: Level::Error,
        message,
        location: Some(Location::new(imp, None)),
        related: vec![Location::new(nl, None).with_message("the documentation's formalization")],
    })
}

/// A warning per accepted exception that is stale or broader than needed, located in
/// its exceptions file.
fn exception_findings(report: Option<&bl::check::Report>) -> Vec<Finding> {
    use bl::check::ExceptionStatus;
    let Some(report) = report else {
        return Vec::new();
    };
    report
        .exceptions
        .iter()
        .filter_map(|e| {
            let (rule, what) = match e.status {
                ExceptionStatus::Stale => (
                    "VERA-EXCEPTION-STALE",
                    "is stale: it excludes no input where the outputs differ".to_string(),
                ),
                ExceptionStatus::Broader => (
                    "VERA-EXCEPTION-BROADER",
                    format!(
                        "is broader than needed: it also excludes inputs where the outputs agree{}",
                        e.witness
                            .as_ref()
                            .map(|w| format!(
                                ", e.g. {}",
                                w.iter()
                                    .map(|(k, v)| format!("{k} = {v}"))
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ))
                            .unwrap_or_default()
                    ),
                ),
                _ => return None,
            };
            Some(Finding {
                rule,
                level: Level::Warning,
                message: format!(
                    "accepted exception `{}` ({}; accepted by {} on {}) {what}",
                    e.id, e.reason, e.accepted_by, e.date
                ),
                location: Some(Location::new(&e.file, None)),
                related: vec![],
            })
        })
        .collect()
}

/// Text from input files (folder names, names in messages) with control characters
/// escaped, for the terminal.
pub fn esc(s: &str) -> String {
    bl::diag::escape(s).into_owned()
}

/// Which bounds a row used, for the terminal.
fn bounds_label(r: &bl::batch::CaseResult) -> String {
    use bl::batch::BoundsSource;
    match r.bounds_source {
        BoundsSource::Option if r.folder_bounds_ignored => {
            "bounds: --bounds (its own bounds.json not used)".into()
        }
        BoundsSource::Option => "bounds: --bounds".into(),
        BoundsSource::Folder => "bounds: its bounds.json".into(),
        BoundsSource::None => "no bounds".into(),
    }
}

/// The terminal text, status, JUnit suites and SARIF findings of a batch report.
/// `strict_exceptions`: a stale or broader exception makes the status `Findings`.
pub fn batch_rendered(
    report: bl::batch::BatchReport,
    strict_exceptions: bool,
) -> Rendered<bl::batch::BatchReport> {
    let o = batch_text(&report);
    let status = batch_status(&report, strict_exceptions);
    let (suites, findings, files) = batch_cases(&report);
    let mut rep = Rendered::new("vera.consistency-batch.v1", status, o, report);
    rep.suites = Some(suites);
    rep.findings = Some(Findings {
        command: "consistency".into(),
        rules: CONSISTENCY_RULES.to_vec(),
        findings,
        files,
    });
    rep
}

/// A batch's terminal text: one row per case and unresolved folder in name order, the
/// counts per dataset, the time and the shard or merge it comes from.
fn batch_text(report: &bl::batch::BatchReport) -> String {
    let results = &report.cases;
    let mut o = String::new();
    // Case and dataset names are folder names, and details quote input files:
    // control characters in them are escaped.
    let names: Vec<String> = results
        .iter()
        .map(|r| esc(&r.case.name))
        .chain(report.unresolved.iter().map(|u| esc(&u.name)))
        .collect();
    let width = names
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(4)
        .min(40);
    // Rows in name order, cases and unresolved folders together.
    let mut rows: Vec<(String, String)> = Vec::new();
    for (r, name) in results.iter().zip(&names) {
        let (verdict, detail) = case_row(r);
        rows.push((
            r.case.name.clone(),
            format!(
                "{name:width$}  {verdict}  {:.2}s  [{}]{}",
                r.seconds,
                esc(&bounds_label(r)),
                esc(&detail)
            ),
        ));
    }
    for (u, name) in report.unresolved.iter().zip(&names[results.len()..]) {
        rows.push((
            u.name.clone(),
            format!(
                "{name:width$}  {}  {}; {}",
                paint(Paint::Warn, "not checked"),
                esc(&u.reason),
                esc(&u.hint)
            ),
        ));
    }
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    for (_, row) in &rows {
        let _ = writeln!(o, "{row}");
    }
    let header = |o: &mut String| {
        let _ = writeln!(
            o,
            "\n{:<12} {:>5} {:>10} {:>12} {:>8} {:>8} {:>6} {:>11}",
            "dataset",
            "cases",
            "consistent",
            "inconsistent",
            "unknown",
            "rejected",
            "errors",
            "not checked"
        );
    };
    header(&mut o);
    for s in report.summary.iter().chain(std::iter::once(&report.totals)) {
        let _ = writeln!(
            o,
            "{:<12} {:>5} {:>10} {:>12} {:>8} {:>8} {:>6} {:>11}",
            esc(&s.dataset),
            s.cases,
            s.consistent,
            s.inconsistent,
            s.unknown,
            s.rejected,
            s.errors,
            s.not_checked
        );
    }
    let _ = writeln!(o, "\n{} cases in {:.2} s", results.len(), report.seconds);
    if let Some(k) = report.shard {
        let _ = writeln!(
            o,
            "shard {k}: {} of the {} rows (merge the shards' JSON reports with --merge)",
            results.len() + report.unresolved.len(),
            report.total_rows
        );
    }
    if !report.merged_from.is_empty() {
        let _ = writeln!(o, "merged from {}", esc(&report.merged_from.join(", ")));
    }
    o
}

/// One case's verdict, painted, and its detail: an example of where the outputs differ,
/// the error or reason, the exceptions it rests on, and the stale or broader ones.
fn case_row(r: &bl::batch::CaseResult) -> (String, String) {
    let verdict = match (&r.verdict, &r.error) {
        (Some(Verdict::Consistent), _) => paint(Paint::Good, "consistent"),
        (Some(Verdict::Inconsistent), _) => paint(Paint::Bad, "inconsistent"),
        (Some(Verdict::Unknown), _) => paint(Paint::Warn, "unknown"),
        (Some(Verdict::Rejected), _) => paint(Paint::Warn, "rejected"),
        (None, _) => paint(Paint::Warn, "error"),
    };
    let detail = match (&r.report, &r.error, &r.reason) {
        (Some(rep), _, _) if rep.verdict == Verdict::Inconsistent => {
            match (rep.regions.first(), &rep.counterexample) {
                (Some(g), _) => format!("  e.g. {}", g.conditions.join(" and ")),
                (None, Some(c)) => format!(
                    "  e.g. at {}",
                    c.bl.inputs
                        .iter()
                        .map(|(k, v)| format!("{k} = {v}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                (None, None) => String::new(),
            }
        }
        (_, Some(e), _) => format!("  {}", e.lines().next().unwrap_or("")),
        (_, _, Some(why)) => format!("  {why}"),
        (Some(rep), None, None) if rep.verdict != Verdict::Consistent => {
            "  (no reason recorded)".to_string()
        }
        (Some(rep), None, None) => {
            let s = accepted_suffix(rep);
            s.strip_prefix(", ")
                .map(|s| format!("  {s}"))
                .unwrap_or_default()
        }
        _ => String::new(),
    };
    let flagged: Vec<String> = r
        .report
        .iter()
        .flat_map(|rep| &rep.exceptions)
        .filter_map(|e| match e.status {
            bl::check::ExceptionStatus::Stale => Some(format!("exception {} is stale", e.id)),
            bl::check::ExceptionStatus::Broader => {
                Some(format!("exception {} is broader than needed", e.id))
            }
            _ => None,
        })
        .collect();
    let detail = if flagged.is_empty() {
        detail
    } else {
        format!("{detail}; {}", flagged.join("; "))
    };
    (verdict, detail)
}

/// A batch fails on an unresolved folder or a case without a definite verdict, has
/// findings on an inconsistency (or a flagged exception when `strict_exceptions`).
fn batch_status(report: &bl::batch::BatchReport, strict_exceptions: bool) -> Status {
    let results = &report.cases;
    let failed = !report.unresolved.is_empty()
        || results
            .iter()
            .any(|r| matches!(r.verdict, None | Some(Verdict::Unknown | Verdict::Rejected)));
    let inconsistent = results
        .iter()
        .any(|r| r.verdict == Some(Verdict::Inconsistent));
    let flagged_exceptions = results
        .iter()
        .any(|r| !exception_findings(r.report.as_ref()).is_empty());
    Status::of(
        failed,
        inconsistent || (strict_exceptions && flagged_exceptions),
    )
}

/// A batch's JUnit suites (one per dataset), SARIF findings and the files they are
/// about.
fn batch_cases(report: &bl::batch::BatchReport) -> (Vec<report::Suite>, Vec<Finding>, Vec<String>) {
    let results = &report.cases;
    let mut suites: Vec<report::Suite> = Vec::new();
    let mut findings = Vec::new();
    let mut files = Vec::new();
    let add_case = |suites: &mut Vec<report::Suite>, dataset: &str, case: report::Case| match suites
        .iter_mut()
        .find(|s| s.name == dataset)
    {
        Some(s) => s.cases.push(case),
        None => suites.push(report::Suite {
            name: dataset.to_string(),
            file: None,
            cases: vec![case],
        }),
    };
    for r in results {
        let (nl, imp) = (
            r.case.nl.display().to_string(),
            r.case.implementation.display().to_string(),
        );
        let mut case = consistency_case(
            &r.case.name,
            r.verdict,
            r.reason.as_deref(),
            r.error.as_deref(),
            r.report.as_ref(),
        );
        case.seconds = Some(r.seconds);
        add_case(&mut suites, &r.case.dataset, case);
        findings.extend(consistency_findings(
            &nl,
            &imp,
            r.verdict,
            r.reason.as_deref().or(r.error.as_deref()),
            r.report.as_ref(),
        ));
        findings.extend(exception_findings(r.report.as_ref()));
        files.push(imp);
        files.push(nl);
    }
    for u in &report.unresolved {
        let why = format!("not checked: {}; {}", u.reason, u.hint);
        add_case(
            &mut suites,
            &u.dataset,
            consistency_case(&u.name, None, None, Some(&why), None),
        );
        findings.extend(consistency_findings(
            &u.name,
            &u.name,
            None,
            Some(&why),
            None,
        ));
    }
    (suites, findings, files)
}

/// The report of `vera consistency` ([`bl::command::consistency`]); `strict` fails on
/// stale or broader-than-needed exceptions.
pub fn consistency(c: bl::command::Consistency, strict: bool) -> Box<dyn report::Report> {
    use bl::command::Consistency;
    match c {
        Consistency::Checked { nl, imp, report } => {
            Box::new(consistency_report(nl, imp, *report, strict))
        }
        Consistency::NotChecked { nl, imp, error } => {
            Box::new(not_checked(&nl, &imp, &error.to_string()))
        }
        Consistency::Batch(report) => Box::new(batch_rendered(*report, strict)),
    }
}

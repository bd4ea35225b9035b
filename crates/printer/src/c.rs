//! The reports of `vera c`: segments, proofs (`verify`), mutation strength and
//! contract synthesis, with their findings, JUnit suites and pages.

use crate::text::{paint, Paint};
use crate::Rendered;
use acsl::Verdict;
use report::{Finding, Findings, Level, Location, Rule, Status};
use std::fmt::Write as _;
use std::path::Path;

/// The report of `vera c segments`: the segments of `file` (parsed from `program`'s
/// preprocessed text when there is one, else read as written) that hold the program's
/// own items, each with its points of interest and where they are.
pub fn segments_report(
    file: &acsl::CFile,
    program: Option<&acsl::Program>,
) -> Rendered<SegmentsJson> {
    // Where a byte of the parsed text is in the original files.
    let locate = |offset: usize| -> String {
        match program {
            Some(p) => p
                .origin(offset)
                .map(|o| format!("{}:{}", o.file.display(), o.line))
                .unwrap_or_else(|| "?".into()),
            None => format!("line {}", file.line_of(offset)),
        }
    };
    let own = |i: usize| program.is_none_or(|p| !p.is_library(&file.items[i]));
    let segs: Vec<acsl::Segment> = acsl::segments(file)
        .into_iter()
        .filter(|s| s.items.iter().any(|&i| own(i)))
        .collect();
    let mut o = String::new();
    for s in &segs {
        let names: Vec<String> = s
            .items
            .iter()
            .filter(|&&i| own(i))
            .map(|&i| {
                let item = &file.items[i];
                match item.kind {
                    acsl::ItemKind::Prototype => format!("{} (prototype)", item.name),
                    _ => item.name.clone(),
                }
            })
            .collect();
        let _ = write!(o, "segment {}: {}", s.index, names.join(", "));
        if s.recursive {
            let _ = write!(o, " (recursive)");
        }
        if !s.depends_on.is_empty() {
            let deps: Vec<String> = s.depends_on.iter().map(|d| d.to_string()).collect();
            let _ = write!(o, "; depends on {}", deps.join(", "));
        }
        let _ = writeln!(o);
        let _ = write!(
            o,
            "{}",
            callees("  ", &s.called_by_contract, &s.called_with_body)
        );
        if !s.functions.is_empty() {
            for p in acsl::points_of_interest(file, s) {
                let what = match p.kind {
                    acsl::PoiKind::Contract => "contract".to_string(),
                    acsl::PoiKind::Loop { index } => format!("loop {index}"),
                };
                let has = if p.existing.is_some() {
                    "annotated"
                } else {
                    "no annotation"
                };
                let at = match program {
                    Some(_) => locate(p.existing.map(|e| e.start).unwrap_or(p.anchor)),
                    None => format!("line {}", p.line),
                };
                let _ = writeln!(o, "  {} {what} at {at} ({has})", p.function);
            }
        }
    }
    Rendered::new(
        "vera.c-segments.v1",
        Status::Ok,
        o,
        SegmentsJson {
            schema: "vera.c-segments.v1",
            segments: segs,
        },
    )
}

/// `vera.c-segments.v1`.
#[derive(serde::Serialize)]
pub struct SegmentsJson {
    schema: &'static str,
    segments: Vec<acsl::Segment>,
}

/// `vera.c-verify.v1` and `vera.c-strength.v1`.
#[derive(serde::Serialize)]
pub struct CReportJson<T> {
    schema: &'static str,
    report: T,
}

/// The lines that say how a segment's harness uses the functions it calls.
fn callees(indent: &str, by_contract: &[String], with_body: &[String]) -> String {
    let mut o = String::new();
    if !by_contract.is_empty() {
        let _ = writeln!(
            o,
            "{indent}callees used through their contracts: {}",
            by_contract.join(", ")
        );
    }
    if !with_body.is_empty() {
        let _ = writeln!(
            o,
            "{indent}callees included with their bodies (no contract or no assigns clause; a call may assign anything): {}",
            with_body.join(", ")
        );
    }
    o
}

fn verdict_word(v: &Verdict) -> String {
    match v {
        Verdict::Proved { goals } => paint(Paint::Good, &format!("proved ({goals} goals)")),
        Verdict::NotProved { unproved, goals } => paint(
            Paint::Bad,
            &format!("not proved ({unproved} of {goals} goals open)"),
        ),
        Verdict::NoGoals => paint(Paint::Warn, "no goals (nothing was checked)"),
        Verdict::Unreadable { reason } => paint(
            Paint::Bad,
            &format!("not proved: WP's output does not add up ({reason})"),
        ),
        Verdict::Inconsistent {
            failed_smoke_tests, ..
        } => paint(
            Paint::Bad,
            &format!(
                "vacuous: smoke tests failed ({})",
                failed_smoke_tests.join(", ")
            ),
        ),
    }
}

/// The report of `vera c verify` on the files `shown`: the verdict, open properties and
/// goals by segment, lemmas, Frama-C's warnings once each, findings, a JUnit suite and
/// the page. Vacuity or an open goal is a finding; no goals or an output that does not
/// add up is an error.
pub fn verify_report(
    shown: String,
    report: acsl::verify::VerifyReport,
) -> Rendered<CReportJson<acsl::verify::VerifyReport>> {
    let o = verify_text(&shown, &report);
    let status = match report.verdict {
        Verdict::Proved { .. } => Status::Ok,
        Verdict::NotProved { .. } | Verdict::Inconsistent { .. } => Status::Findings,
        Verdict::NoGoals | Verdict::Unreadable { .. } => Status::Error,
    };
    let file = shown;
    let properties: Vec<&acsl::wp::Property> = report
        .segments
        .iter()
        .flat_map(|s| {
            s.run
                .properties
                .iter()
                .filter(|p| s.functions.contains(&p.function))
        })
        .chain(report.lemmas.iter().flat_map(|l| &l.properties))
        .collect();
    let mut r = Rendered::new(
        "vera.c-verify.v1",
        status,
        o,
        CReportJson {
            schema: "vera.c-verify.v1",
            report: report.clone(),
        },
    );
    let goals: Vec<&acsl::Goal> = report
        .segments
        .iter()
        .flat_map(|s| {
            s.run
                .goals
                .iter()
                .filter(|g| g.function.as_ref().is_none_or(|f| s.functions.contains(f)))
        })
        .chain(report.lemmas.iter().flat_map(|l| &l.goals))
        .collect();
    let files: Vec<String> = report
        .files
        .iter()
        .map(|f| f.display().to_string())
        .collect();
    r.findings = Some(property_findings(
        &files,
        &properties,
        &goals,
        &report.verdict,
    ));
    r.suites = Some(vec![report::Suite {
        name: file.clone(),
        file: Some(file.clone()),
        cases: unique_names(
            properties
                .iter()
                .map(|p| property_case(p))
                .chain(
                    unmatched_open_goals(&goals, &properties)
                        .into_iter()
                        .map(goal_case),
                )
                .collect(),
        ),
    }]);
    r.page = Some(verify_page(&file, &report, &properties));
    r
}

/// The terminal text of a verification: the verdict, each segment with its open
/// clauses and goals, the lemmas, Frama-C's warnings once each, and the costs.
fn verify_text(shown: &str, report: &acsl::verify::VerifyReport) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "{shown}: {}", verdict_word(&report.verdict));
    let _ = writeln!(
        o,
        "Frama-C {}, prover {}; {} of {} goals proved, {} timeouts",
        report.frama_c_version, report.prover, report.proved, report.goals, report.timeouts
    );
    for s in &report.segments {
        segment_text(&mut o, s);
    }
    if let Some(l) = &report.lemmas {
        let _ = writeln!(o, "  lemmas (proved once): {}", verdict_word(&l.verdict));
        for p in l.properties.iter().filter(|p| !proved(p)) {
            let _ = writeln!(
                o,
                "    {}: lemma `{}`: {:?}",
                property_place(p),
                p.text,
                p.status
            );
        }
    }
    // Every run reads the whole program: show each warning once.
    let mut warned = std::collections::BTreeSet::new();
    for w in report
        .segments
        .iter()
        .flat_map(|s| &s.run.warnings)
        .chain(report.lemmas.iter().flat_map(|l| &l.warnings))
    {
        let place = match (&w.file, w.line) {
            (Some(f), Some(l)) => format!("{f}:{l}: "),
            (Some(f), None) => format!("{f}: "),
            _ => String::new(),
        };
        let line = format!("  Frama-C warning [{}] {place}{}", w.plugin, w.text);
        if warned.insert(line.clone()) {
            let _ = writeln!(o, "{line}");
        }
    }
    if !report.functions_without_goals.is_empty() {
        let _ = writeln!(
            o,
            "  no goals for: {}",
            report.functions_without_goals.join(", ")
        );
    }
    let _ = writeln!(
        o,
        "{} verifier calls, {} cache hits, {:.2} s",
        report.stats.verifier_calls, report.stats.cache_hits, report.stats.wall_seconds
    );
    o
}

/// Where a property is: `file:line`, or `line N` without a file.
fn property_place(p: &acsl::wp::Property) -> String {
    match &p.file {
        Some(f) => format!("{f}:{}", p.line),
        None => format!("line {}", p.line),
    }
}

/// One segment: its functions and verdict, the callees it assumes, its clauses that
/// are not valid and the open goals none of them claims.
fn segment_text(o: &mut String, s: &acsl::verify::SegmentReport) {
    let _ = writeln!(
        o,
        "  segment {} [{}]: {}",
        s.segment,
        s.functions.join(", "),
        verdict_word(&s.run.verdict)
    );
    let _ = write!(o, "{}", callees("    ", &s.assumed, &s.with_body));
    // Properties of the callees in the harness are not checked there.
    let shown: Vec<&acsl::wp::Property> = s
        .run
        .properties
        .iter()
        .filter(|p| {
            !matches!(p.status, acsl::wp::PropertyStatus::Valid)
                && s.functions.contains(&p.function)
        })
        .collect();
    for p in &shown {
        let _ = writeln!(
            o,
            "    {}: {} `{}` in {}: {:?}",
            property_place(p),
            p.kind,
            p.text,
            p.function,
            p.status
        );
    }
    // Open goals none of those properties claims are shown by name.
    let goals: Vec<&acsl::Goal> = s.run.goals.iter().collect();
    for g in unmatched_open_goals(&goals, &shown) {
        let place = match (&g.file, g.line) {
            (Some(f), Some(l)) => format!("{f}:{l}: "),
            _ => String::new(),
        };
        let _ = writeln!(
            o,
            "    {place}goal {} (not matched to a shown clause): {:?}",
            g.name, g.status
        );
    }
}

/// The rule of an open goal: refuted, or only not proved.
fn goal_rule(g: &acsl::Goal) -> &'static str {
    if g.status == acsl::GoalStatus::Invalid {
        "VERA-C-INVALID"
    } else {
        "VERA-C-NOT-PROVED"
    }
}

/// The finding kinds of C proofs (SARIF rules).
const C_RULES: &[Rule] = &[
    Rule {
        id: "VERA-C-NOT-PROVED",
        name: "NotProved",
        short: "WP did not prove this property.",
        help: "Strengthen the loop invariants or preconditions it depends on, or correct the code.",
        level: Level::Error,
    },
    Rule {
        id: "VERA-C-INVALID",
        name: "InvalidOrUnreachable",
        short:
            "The property is refuted, or a smoke test shows dead code or contradictory assumptions.",
        help: "Check the preconditions and the code around this line.",
        level: Level::Error,
    },
    Rule {
        id: "VERA-C-NO-GOALS",
        name: "NothingChecked",
        short: "WP produced no goals: nothing was checked.",
        help: "Add contracts to the functions, or check that Frama-C sees them.",
        level: Level::Error,
    },
    Rule {
        id: "VERA-C-SURVIVING-MUTANT",
        name: "SurvivingMutant",
        short:
            "A changed program still satisfies the specification: the specification is weak here.",
        help: "Strengthen the contract so that it tells the original from this mutant.",
        level: Level::Warning,
    },
];

/// Whether a property counts as proved.
fn proved(p: &acsl::wp::Property) -> bool {
    matches!(
        p.status,
        acsl::wp::PropertyStatus::Valid | acsl::wp::PropertyStatus::ConsideredValid
    )
}

/// One finding per goal that is not proved, at the clause it proves (SARIF:
/// one result per unproved goal), and one per property refuted or made
/// unreachable by a failed smoke test. A property that is not proved and none
/// of whose goals could be located is a finding at its own line, so nothing
/// open is left out.
fn property_findings(
    files: &[String],
    properties: &[&acsl::wp::Property],
    goals: &[&acsl::Goal],
    verdict: &Verdict,
) -> Findings {
    // Where a finding without a location of its own goes: the (first) file.
    let file = files.first().map(String::as_str).unwrap_or("");
    let line = |l: usize| u32::try_from(l).ok().filter(|l| *l > 0);
    let describe = |p: &acsl::wp::Property| format!("{} `{}` in {}", p.kind, p.text, p.function);
    let mut findings: Vec<Finding> = Vec::new();
    for g in goals
        .iter()
        .filter(|g| g.status != acsl::GoalStatus::Valid && g.file.is_some())
    {
        let clause = properties.iter().find(|p| p.goals.contains(&g.name));
        findings.push(Finding {
            rule: goal_rule(g),
            level: Level::Error,
            message: match clause {
                Some(p) => format!("goal {} ({:?}): {}", g.name, g.status, describe(p)),
                None => format!("goal {} ({:?})", g.name, g.status),
            },
            location: Some(Location::new(
                g.file.as_deref().unwrap_or(file),
                g.line.and_then(line),
            )),
            related: Vec::new(),
        });
    }
    // An open goal no clause of the report claims (its clause is in a file the
    // run was not told about, e.g. under a `#line` directive): a finding of its
    // own, at the first file, so that nothing open is left out.
    for g in unmatched_open_goals(goals, properties)
        .into_iter()
        .filter(|g| g.file.is_none())
    {
        findings.push(Finding {
            rule: goal_rule(g),
            level: Level::Error,
            message: format!("goal {} ({:?}), not matched to a clause", g.name, g.status),
            location: Some(Location::new(file, None)),
            related: Vec::new(),
        });
    }
    let located = |p: &acsl::wp::Property| {
        goals.iter().any(|g| {
            g.file.is_some() && p.goals.contains(&g.name) && g.status != acsl::GoalStatus::Valid
        })
    };
    for p in properties.iter().filter(|p| !proved(p)) {
        let invalid = matches!(p.status, acsl::wp::PropertyStatus::InvalidOrUnreachable);
        if !invalid && located(p) {
            continue;
        }
        findings.push(Finding {
            rule: if invalid {
                "VERA-C-INVALID"
            } else {
                "VERA-C-NOT-PROVED"
            },
            level: Level::Error,
            message: format!("{}: {:?}", describe(p), p.status),
            location: Some(Location::new(
                p.file.as_deref().unwrap_or(file),
                line(p.line),
            )),
            related: Vec::new(),
        });
    }
    if let Verdict::NoGoals = verdict {
        findings.push(Finding {
            rule: "VERA-C-NO-GOALS",
            level: Level::Error,
            message: "WP produced no goals: nothing was checked".into(),
            location: Some(Location::new(file, None)),
            related: Vec::new(),
        });
    }
    Findings {
        command: "c verify".into(),
        rules: C_RULES.to_vec(),
        findings,
        files: files.to_vec(),
    }
}

/// Goals that are not proved and that no property in `properties` claims: the
/// outputs built from properties would otherwise not show them.
fn unmatched_open_goals<'a>(
    goals: &[&'a acsl::Goal],
    properties: &[&acsl::wp::Property],
) -> Vec<&'a acsl::Goal> {
    goals
        .iter()
        .filter(|g| {
            g.status != acsl::GoalStatus::Valid
                && !properties.iter().any(|p| p.goals.contains(&g.name))
        })
        .copied()
        .collect()
}

/// A goal no property claims, as a failed case.
fn goal_case(g: &acsl::Goal) -> report::Case {
    report::Case {
        name: g.name.clone(),
        class: format!("vera.c.{}", g.function.as_deref().unwrap_or("goal")),
        outcome: report::Outcome::Failed {
            message: format!("not proved ({:?})", g.status),
            detail: format!("goal {}: not matched to a clause", g.name),
        },
        seconds: g.time_ms.map(|t| t / 1000.0),
        output: None,
    }
}

/// A property as a pass/fail case.
fn property_case(p: &acsl::wp::Property) -> report::Case {
    let detail = format!("line {}: {} `{}` in {}", p.line, p.kind, p.text, p.function);
    let outcome = match &p.status {
        _ if proved(p) => report::Outcome::Passed,
        acsl::wp::PropertyStatus::InvalidOrUnreachable => report::Outcome::Failed {
            message: "invalid or unreachable".into(),
            detail,
        },
        s => report::Outcome::Failed {
            message: format!("not proved ({s:?})"),
            detail,
        },
    };
    report::Case {
        name: format!("{} line {} {}", p.function, p.line, p.kind),
        class: format!("vera.c.{}", p.function),
        outcome,
        seconds: None,
        output: Some(p.text.clone()),
    }
}

/// Several properties of one kind on one line (e.g. overflow checks) get `#2`, `#3`...
/// so that dashboards keep them apart.
fn unique_names(mut cases: Vec<report::Case>) -> Vec<report::Case> {
    let mut seen: std::collections::HashMap<String, usize> = Default::default();
    for c in &mut cases {
        let n = seen.entry(c.name.clone()).or_default();
        *n += 1;
        if *n > 1 {
            c.name = format!("{} #{n}", c.name);
        }
    }
    cases
}

/// The page of `vera c verify`: counts and one card per function's properties.
fn verify_page(
    file: &str,
    report: &acsl::VerifyReport,
    properties: &[&acsl::wp::Property],
) -> report::html::Page {
    use report::html::{Block, Count, Page, Section, Tone};
    let open = properties.iter().filter(|p| !proved(p)).count();
    let mut functions: Vec<&str> = properties.iter().map(|p| p.function.as_str()).collect();
    functions.dedup();
    let items = functions
        .iter()
        .map(|f| {
            let mine: Vec<&&acsl::wp::Property> =
                properties.iter().filter(|p| p.function == *f).collect();
            let bad = mine.iter().any(|p| !proved(p));
            Block::Item {
                title: f.to_string(),
                badge: if bad {
                    "not proved".into()
                } else {
                    "proved".into()
                },
                tone: if bad { Tone::Bad } else { Tone::Good },
                blocks: vec![Block::Table {
                    headers: vec![
                        "where".into(),
                        "kind".into(),
                        "property".into(),
                        "status".into(),
                    ],
                    rows: mine
                        .iter()
                        .map(|p| {
                            vec![
                                match &p.file {
                                    Some(f) => format!("{f}:{}", p.line),
                                    None => p.line.to_string(),
                                },
                                p.kind.clone(),
                                p.text.clone(),
                                format!("{:?}", p.status),
                            ]
                        })
                        .collect(),
                }],
            }
        })
        .collect();
    Page {
        title: format!("vera c verify: {file}"),
        subtitle: Some(format!(
            "Frama-C {}, prover {} · {:.2} s",
            report.frama_c_version, report.prover, report.stats.wall_seconds
        )),
        counts: vec![
            Count::neutral("goals", report.goals),
            Count {
                label: "proved".into(),
                value: report.proved,
                tone: Tone::Good,
            },
            Count::findings("timeouts", report.timeouts, Tone::Bad),
            Count::findings("properties open", open, Tone::Bad),
        ],
        sections: vec![Section {
            heading: "Properties by function".into(),
            blocks: items,
        }],
    }
}

/// The report of `vera c strength` on the files `shown`: the variant discrimination rate,
/// the surviving mutants (findings) and what the original leaves unproved. No rate at
/// all (no mutant could be judged) is an error.
pub fn strength_report(
    shown: String,
    report: acsl::StrengthReport,
) -> Rendered<CReportJson<acsl::StrengthReport>> {
    let where_ = |m: &acsl::MutantOutcome| match &m.file {
        Some(f) => format!("{}:{}", f.display(), m.mutant.line),
        None => format!("line {}", m.mutant.line),
    };
    let mut o = String::new();
    let vdr = report
        .vdr
        .map(|v| format!("{:.1}%", 100.0 * v))
        .unwrap_or_else(|| "n/a".into());
    let _ = writeln!(o, "{shown}: variant discrimination rate {vdr}");
    let _ = writeln!(
        o,
        "{} mutants ({} considered): {} killed, {} survived, {} equivalent (compiler), {} not compiling, {} rejected by Frama-C",
        report.generated, report.considered, report.killed, report.survived, report.equivalent, report.not_compiling, report.rejected
    );
    if report.not_in_source > 0 {
        let _ = writeln!(
            o,
            "{} more in code that a macro writes (not mutated: no place in the sources)",
            report.not_in_source
        );
    }
    let _ = writeln!(o, "original: {}", verdict_word(&report.baseline));
    if !report.baseline_open.is_empty() {
        let _ = writeln!(
            o,
            "  not proved in the original (mutants are not killed by these):"
        );
        for p in &report.baseline_open {
            let at = match &p.file {
                Some(f) => format!("{f}:{}", p.line),
                None => format!("line {}", p.line),
            };
            let _ = writeln!(
                o,
                "    {at}: {} `{}` in {}: {:?}",
                p.kind, p.text, p.function, p.status
            );
        }
        let _ = writeln!(
            o,
            "    goals: {}",
            report.baseline_unproved_goals.join(", ")
        );
    }
    for m in report.survivors() {
        let _ = writeln!(
            o,
            "  survived: {} in {} ({:?}): `{}` -> `{}`",
            where_(m),
            m.mutant.function,
            m.mutant.operator,
            m.mutant.original,
            m.mutant.replacement
        );
    }
    let status = if report.survived == 0 && report.vdr.is_some() {
        Status::Ok
    } else if report.vdr.is_some() {
        Status::Findings
    } else {
        Status::Error
    };
    let findings = report
        .survivors()
        .map(|m| Finding {
            rule: "VERA-C-SURVIVING-MUTANT",
            level: Level::Warning,
            message: format!(
                "in {}, `{}` -> `{}` ({:?}) still satisfies the specification",
                m.mutant.function, m.mutant.original, m.mutant.replacement, m.mutant.operator
            ),
            location: Some(Location::new(
                m.file
                    .as_ref()
                    .map(|f| f.display().to_string())
                    .unwrap_or_else(|| shown.clone()),
                u32::try_from(m.mutant.line).ok().filter(|l| *l > 0),
            )),
            related: Vec::new(),
        })
        .collect();
    let files = if report.files.is_empty() {
        vec![shown]
    } else {
        report
            .files
            .iter()
            .map(|f| f.display().to_string())
            .collect()
    };
    let mut r = Rendered::new(
        "vera.c-strength.v1",
        status,
        o,
        CReportJson {
            schema: "vera.c-strength.v1",
            report,
        },
    );
    r.findings = Some(Findings {
        command: "c strength".into(),
        rules: C_RULES.to_vec(),
        findings,
        files,
    });
    r
}

/// `vera.c-synth.v1` (also written to the report file).
#[derive(serde::Serialize)]
pub struct SynthJson<'a> {
    schema: &'static str,
    output: &'a Path,
    report: &'a pipeline::csynth::SynthReport,
    recall: Option<pipeline::csynth::RecallReport>,
}

/// The human summary of a synthesis.
fn synth_summary(
    shown: &str,
    r: &pipeline::csynth::SynthReport,
    recall: Option<&pipeline::csynth::RecallReport>,
    report_path: &Path,
    strengthen: bool,
) -> String {
    {
        {
            let s = &r.summary;
            let pct = |v: Option<f64>| {
                v.map(|v| format!("{:.1}%", 100.0 * v))
                    .unwrap_or_else(|| "n/a".into())
            };
            let mut o = String::new();
            let _ = writeln!(o, "{shown}: {}", verdict_word(&r.final_verdict));
            let _ = writeln!(
                o,
                "clauses: {} proposed, {} proved, {} assumed (requires), {} dropped, {} refused, {} refused by Frama-C, {} duplicates; precision {}",
                s.proposed, s.proved, s.assumed, s.dropped, s.rejected, s.rejected_by_frama_c, s.duplicates, pct(s.precision)
            );
            if strengthen {
                let _ = writeln!(
                    o,
                    "VDR before refinement {} ({}/{}), after {} ({}/{})",
                    pct(s.vdr_before.vdr),
                    s.vdr_before.killed,
                    s.vdr_before.assessed,
                    pct(s.vdr_after.vdr),
                    s.vdr_after.killed,
                    s.vdr_after.assessed
                );
            }
            if let Some(rc) = recall {
                let _ = writeln!(
                    o,
                    "recall {} ({} of {} reference clauses; {})",
                    pct(rc.recall),
                    rc.covered,
                    rc.reference_clauses,
                    rc.definition
                );
            }
            let _ = writeln!(
                o,
                "LLM: {} requests, {} calls, {} tokens in, {} out; verifier: {} runs ({} cached), strength {} runs ({} cached); {:.1} s",
                s.llm_requests, s.llm_calls, s.input_tokens, s.output_tokens, s.verifier_calls, s.verifier_cache_hits, s.strength_verifier_calls, s.strength_cache_hits, s.wall_seconds
            );
            let _ = writeln!(o, "report: {}", report_path.display());
            o
        }
    }
}

/// The JSON report of a synthesis (`vera.c-synth.v1`, written next to the annotated
/// output): its text, and the report back for [`synth_report`].
pub fn synth_json(
    output: &Path,
    report: pipeline::csynth::SynthReport,
    recall: Option<pipeline::csynth::RecallReport>,
) -> serde_json::Result<(String, SynthDone)> {
    let value = serde_json::to_value(SynthJson {
        schema: "vera.c-synth.v1",
        output,
        report: &report,
        recall: recall.clone(),
    })?;
    let text = serde_json::to_string_pretty(&value)?;
    Ok((
        text,
        SynthDone {
            report,
            recall,
            value,
        },
    ))
}

/// A finished synthesis with its JSON report.
pub struct SynthDone {
    report: pipeline::csynth::SynthReport,
    recall: Option<pipeline::csynth::RecallReport>,
    value: serde_json::Value,
}

/// The report of `vera c synth` (`shown`: what was annotated into what): the summary,
/// a pass when the final annotations are proved.
pub fn synth_report(
    shown: &str,
    done: SynthDone,
    report_path: &Path,
    strengthen: bool,
) -> serde_json::Result<Rendered<serde_json::Value>> {
    let r = &done.report;
    let o = synth_summary(shown, r, done.recall.as_ref(), report_path, strengthen);
    let status = if r.final_verdict.is_proved() {
        Status::Ok
    } else {
        Status::Findings
    };
    Ok(Rendered::new("vera.c-synth.v1", status, o, done.value))
}

/// How an error of a `c` command that is not passed on as it is gets reported: the
/// [`Failure`](crate::output::Failure), and the front end's located problems to show on
/// standard error before it, as the front end writes them (the failure then counts as
/// shown).
pub type CFailure = (crate::output::Failure, Option<String>);

/// A verifier error, reported.
pub fn wp_failure(e: acsl::WpError) -> CFailure {
    let (kind, diagnostics) = (e.kind(), crate::output::Diagnostic::of_wp(&e));
    let message = crate::text::chain(&e);
    (
        crate::output::Failure::new(kind, message, diagnostics),
        None,
    )
}

/// Parse or preprocessing problems, every one located, reported.
pub fn syntax_failure(d: acsl::Diagnostics) -> CFailure {
    let items = crate::output::Diagnostic::of_c(&d);
    let message = format!("{} problem(s) in the C input", items.len());
    let mut failure = crate::output::Failure::new("syntax", message, items);
    failure.shown = true;
    (failure, Some(d.to_string()))
}

/// An error of `acsl::plan`'s planning, reported; an output the preprocessor's reading
/// refuses comes back as it is.
pub fn plan_failure(e: acsl::plan::PlanError) -> Result<CFailure, acsl::plan::PlanError> {
    use acsl::plan::PlanError;
    let fail = |kind, e: &PlanError| crate::output::Failure::new(kind, e.to_string(), Vec::new());
    Ok(match e {
        PlanError::Flags(_) => (fail("flags", &e), None),
        PlanError::Missing(_) => (fail("input", &e), None),
        PlanError::Syntax(d) => syntax_failure(d),
        PlanError::Wp(e) => wp_failure(e),
        PlanError::Output(_) => return Err(e),
    })
}

/// An error of `acsl::plan`'s reading and checking, reported; an output refused and a
/// file's strength that could not be measured come back as they are.
pub fn check_failure(e: acsl::plan::CheckError) -> Result<CFailure, acsl::plan::CheckError> {
    use acsl::plan::CheckError;
    let fail = |kind, e: &CheckError| crate::output::Failure::new(kind, e.to_string(), Vec::new());
    Ok(match e {
        CheckError::Unreadable { .. } => (fail("input", &e), None),
        CheckError::Strength(_) => (fail("strength", &e), None),
        CheckError::Syntax(d) => syntax_failure(d),
        CheckError::Wp(e) => wp_failure(e),
        CheckError::Plan(e) => return plan_failure(e).map_err(CheckError::Plan),
        CheckError::FileStrength(_) => return Err(e),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn goal(name: &str, status: acsl::GoalStatus, file: Option<&str>) -> acsl::Goal {
        acsl::Goal {
            name: name.into(),
            function: Some("f".into()),
            status,
            prover: None,
            time_ms: None,
            cached: false,
            file: file.map(String::from),
            line: file.map(|_| 3),
            key: None,
        }
    }

    #[test]
    fn an_open_goal_no_clause_claims_is_still_a_finding() {
        let lost = goal("typed_f_ensures", acsl::GoalStatus::Timeout, None);
        let located = goal("typed_f_assigns", acsl::GoalStatus::Unknown, Some("a.c"));
        let proved = goal("typed_f_exits", acsl::GoalStatus::Valid, None);
        let goals = vec![&lost, &located, &proved];
        let f = property_findings(
            &["a.c".to_string()],
            &[],
            &goals,
            &Verdict::NotProved {
                unproved: 2,
                goals: 3,
            },
        );
        let messages: Vec<&str> = f.findings.iter().map(|f| f.message.as_str()).collect();
        assert_eq!(f.findings.len(), 2, "{messages:?}");
        assert!(messages
            .iter()
            .any(|m| m.contains("typed_f_ensures") && m.contains("not matched to a clause")));
        assert!(messages.iter().any(|m| m.contains("typed_f_assigns")));
        assert_eq!(unmatched_open_goals(&goals, &[]).len(), 2);
        let case = goal_case(&lost);
        assert!(matches!(case.outcome, report::Outcome::Failed { .. }));
    }
}

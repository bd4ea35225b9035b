//! `vera c segments|verify|strength`: C files with ACSL specifications, checked with
//! Frama-C/WP, through the `acsl` crate.

use crate::cli::WpArgs;
use crate::output::{paint, Paint, Rendered};
use acsl::Verdict;
use anyhow::Result;
use report::{Finding, Findings, Level, Location, Rule, Status};
use std::fmt::Write as _;
use std::path::Path;

fn parse(path: &Path) -> Result<Option<acsl::CFile>> {
    parse_as(path)
}

/// Parse one C file; a syntax error is shown and gives
/// `None`.
fn parse_as(path: &Path) -> Result<Option<acsl::CFile>> {
    if let Err(e) = std::fs::metadata(path) {
        return Err(fail(
            "input",
            format!("cannot read {}: {e}", path.display()),
            &[],
        ));
    }
    match acsl::parse_c(path) {
        Ok(f) => Ok(Some(f)),
        Err(d) => Err(diagnostics(d)),
    }
}

use crate::output::Diagnostic as DiagnosticJson;

/// An error of a `c` command: on standard error, and as `vera.error.v1` with
/// `--format json` (`crate::output::emit_error`).
fn fail(kind: &'static str, message: String, diags: &[DiagnosticJson]) -> anyhow::Error {
    crate::output::Failure {
        kind,
        message,
        diagnostics: diags.to_vec(),
        shown: false,
    }
    .into()
}

/// Parse or preprocessing problems, every one located (shown on standard error as the
/// front end writes them).
fn diagnostics(d: acsl::Diagnostics) -> anyhow::Error {
    eprintln!("{d}");
    let file = d.file.as_ref().map(|p| p.display().to_string());
    let items: Vec<DiagnosticJson> = d
        .items
        .iter()
        .map(|i| DiagnosticJson {
            file: i
                .file
                .as_ref()
                .map(|p| p.display().to_string())
                .or_else(|| file.clone()),
            line: Some(i.line).filter(|l| *l > 0),
            column: Some(i.column).filter(|c| *c > 0),
            message: i.message.clone(),
        })
        .collect();
    let n = items.len();
    crate::output::Failure {
        kind: "syntax",
        message: format!("{n} problem(s) in the C input"),
        diagnostics: items,
        shown: true,
    }
    .into()
}

/// A verifier error.
fn wp_fail(e: acsl::WpError) -> anyhow::Error {
    let kind = match &e {
        acsl::WpError::FramaC { .. } => "frama_c",
        acsl::WpError::Parse(_) => "syntax",
        acsl::WpError::Flags(_) => "flags",
        acsl::WpError::UnsupportedVersion { .. } => "frama_c_version",
        acsl::WpError::ProcessLimit { .. } => "limit",
        _ => "setup",
    };
    let diags: Vec<DiagnosticJson> = match &e {
        acsl::WpError::FramaC { messages, .. } => messages
            .iter()
            .map(|m| DiagnosticJson {
                file: None,
                line: None,
                column: None,
                message: m.clone(),
            })
            .collect(),
        _ => Vec::new(),
    };
    let message = format!("{:#}", anyhow::Error::from(e));
    fail(kind, message, &diags)
}

/// The translation units of the command line: the files with `-I`/`-D`/`-U`,
/// or entries of the compile-commands file (with the command line's flags added).
fn units(
    files: &[std::path::PathBuf],
    cpp: &crate::cli::CppArgs,
) -> Result<Vec<acsl::Unit>, acsl::FlagError> {
    let cwd = std::env::current_dir().unwrap_or_default();
    let extra = acsl::CppFlags::from_args(&cpp.args(), &cwd, "the command line")?;
    match &cpp.compile_commands {
        Some(db) => {
            let mut units = acsl::read_compile_commands(db, files)?;
            for u in &mut units {
                u.flags.args.extend(extra.args.iter().cloned());
            }
            Ok(units)
        }
        None => {
            // A file named twice is one unit.
            let mut seen = std::collections::BTreeSet::new();
            Ok(files
                .iter()
                .filter(|f| seen.insert(acsl::project::normalize(&cwd.join(f))))
                .map(|f| acsl::Unit {
                    source: f.clone(),
                    directory: cwd.clone(),
                    flags: extra.clone(),
                })
                .collect())
        }
    }
}

/// Preprocess and parse the program the command line names.
fn load_program(
    files: &[std::path::PathBuf],
    cpp: &crate::cli::CppArgs,
    frama_c: &Path,
) -> Result<acsl::Program> {
    load_program_with(files, cpp, frama_c).map(|(p, _)| p)
}

/// [`load_program`] and the preprocessor it used (for a [`acsl::workspace::Workspace`]).
fn load_program_with(
    files: &[std::path::PathBuf],
    cpp: &crate::cli::CppArgs,
    frama_c: &Path,
) -> Result<(acsl::Program, acsl::Preprocessor)> {
    let units = units(files, cpp).map_err(|e| fail("flags", e.to_string(), &[]))?;
    if let Some(u) = units.iter().find(|u| !u.source.is_file()) {
        return Err(fail(
            "input",
            format!("cannot read {}: no such file", u.source.display()),
            &[],
        ));
    }
    let pp = acsl::Preprocessor::for_frama_c(frama_c).map_err(diagnostics)?;
    let program = acsl::Program::load(&units, &pp);
    // The preprocessor has listed every file it opened (and `acsl` has remembered
    // them as inputs): an output named after one is refused now, before Frama-C runs.
    safefile::check_planned()?;
    let program = program.map_err(diagnostics)?;
    Ok((program, pp))
}

/// One file with preprocessor flags, for the commands that work on one file's
/// text (`strength`, `synth`): its harnesses and mutants are written to
/// temporary directories and compiled there, so Frama-C gets the flags through
/// `-cpp-extra-args` and both get the file's own directory as an include
/// directory (for the headers next to it). Returns the flags for the compiler;
/// nothing when there are none.
fn unit_flags(
    file: &Path,
    cpp: &crate::cli::CppArgs,
    cfg: &mut acsl::WpConfig,
) -> Result<Vec<String>> {
    if cpp.is_empty() && !includes_local_header(file) {
        return Ok(Vec::new());
    }
    let mut units = units(&[file.to_path_buf()], cpp)?;
    let cwd = std::env::current_dir().unwrap_or_default();
    let dir = acsl::project::normalize(&cwd.join(file))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or(cwd);
    for u in &mut units {
        u.flags.args.insert(0, format!("-I{}", dir.display()));
    }
    // Frama-C and the compiler will read the headers it includes: preprocessed once
    // here, so that every one of them is known as an input (an error is Frama-C's
    // to report, on the file itself).
    if let Ok(pp) = acsl::Preprocessor::for_frama_c(&cfg.frama_c) {
        let _ = acsl::Program::load(&units, &pp);
        safefile::check_planned()?;
    }
    let flags = units
        .into_iter()
        .next()
        .map(|u| u.flags.args)
        .unwrap_or_default();
    cfg.extra_args
        .push(acsl::wp::cpp_extra_args(&flags).map_err(|e| anyhow::anyhow!("{e}"))?);
    Ok(flags)
}

/// True when the command line names one file and no preprocessing flags: the
/// file is verified as it is, through harnesses cut from its text.
fn single(files: &[std::path::PathBuf], cpp: &crate::cli::CppArgs) -> bool {
    files.len() == 1
        && cpp.is_empty()
        && !includes_local_header(&files[0])
        && !has_conditionals(&files[0])
}

/// True when `file` has an `#if`, `#ifdef` or `#ifndef` line: only the
/// preprocessor knows which branch counts (an include guard, a `DEBUG` block),
/// so the file is preprocessed rather than read as written, where the items
/// inside the blocks would not be seen.
fn has_conditionals(file: &Path) -> bool {
    directives(file).any(|d| d.starts_with("if"))
}

/// The directive lines of `file`, each without its `#` and the spaces around
/// it (none for an unreadable file, which the reader reports).
fn directives(file: &Path) -> impl Iterator<Item = String> {
    let text = std::fs::read(file)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    text.lines()
        .filter_map(|l| {
            l.trim_start()
                .strip_prefix('#')
                .map(|r| r.trim_start().to_string())
        })
        .collect::<Vec<_>>()
        .into_iter()
}

/// True when `file` has an `#include "..."` line: its headers are found next to
/// it or not at all, so it must be preprocessed in place (a missing header is
/// then an error at its line, and a contract on a prototype in the header counts)
/// rather than verified through harnesses copied elsewhere. An unreadable file
/// answers false and is reported by the reader.
fn includes_local_header(file: &Path) -> bool {
    directives(file).any(|d| {
        d.strip_prefix("include")
            .is_some_and(|r| r.trim_start().starts_with('"'))
    })
}

/// `vera c segments FILE...`
pub fn segments(a: &crate::cli::CSegmentsArgs) -> crate::output::Outcome {
    let program = if single(&a.files, &a.cpp) {
        None
    } else {
        let frama_c = crate::cli::WpArgs::frama_c();
        Some(load_program(&a.files, &a.cpp, &frama_c)?)
    };
    let file = match &program {
        Some(p) => p.file.clone(),
        None => match parse_as(&a.files[0])? {
            Some(f) => f,
            None => return Err(crate::output::Reported.into()),
        },
    };
    // Where a byte of the parsed text is in the original files.
    let locate = |offset: usize| -> String {
        match &program {
            Some(p) => p
                .origin(offset)
                .map(|o| format!("{}:{}", o.file.display(), o.line))
                .unwrap_or_else(|| "?".into()),
            None => format!("line {}", file.line_of(offset)),
        }
    };
    let own = |i: usize| {
        program
            .as_ref()
            .is_none_or(|p| !p.is_library(&file.items[i]))
    };
    let segs: Vec<acsl::Segment> = acsl::segments(&file)
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
            for p in acsl::points_of_interest(&file, s) {
                let what = match p.kind {
                    acsl::PoiKind::Contract => "contract".to_string(),
                    acsl::PoiKind::Loop { index } => format!("loop {index}"),
                };
                let has = if p.existing.is_some() {
                    "annotated"
                } else {
                    "no annotation"
                };
                let at = match &program {
                    Some(_) => locate(p.existing.map(|e| e.start).unwrap_or(p.anchor)),
                    None => format!("line {}", p.line),
                };
                let _ = writeln!(o, "  {} {what} at {at} ({has})", p.function);
            }
        }
    }
    Ok(Box::new(Rendered::new(
        "vera.c-segments.v1",
        Status::Ok,
        o,
        SegmentsJson {
            schema: "vera.c-segments.v1",
            segments: segs,
        },
    )))
}

/// `vera.c-segments.v1`.
#[derive(serde::Serialize)]
struct SegmentsJson {
    schema: &'static str,
    segments: Vec<acsl::Segment>,
}

/// `vera.c-verify.v1` and `vera.c-strength.v1`.
#[derive(serde::Serialize)]
struct CReportJson<T> {
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

/// `vera c verify FILE...`
pub fn verify(a: &crate::cli::CVerifyArgs) -> crate::output::Outcome {
    let cfg = a.wp.config();
    let (shown, report) = if single(&a.files, &a.cpp) {
        let path = a.files[0].as_path();
        if parse_as(path)?.is_none() {
            return Err(crate::output::Reported.into());
        }
        let report = acsl::verify(path, &cfg).map_err(wp_fail)?;
        (path.display().to_string(), report)
    } else {
        let program = load_program(&a.files, &a.cpp, &cfg.frama_c)?;
        let report = acsl::verify::verify_program(&program, &cfg).map_err(wp_fail)?;
        let names: Vec<String> = report
            .files
            .iter()
            .map(|f| f.display().to_string())
            .collect();
        (names.join(" "), report)
    };
    let mut o = String::new();
    let _ = writeln!(o, "{shown}: {}", verdict_word(&report.verdict));
    let _ = writeln!(
        o,
        "Frama-C {}, prover {}; {} of {} goals proved, {} timeouts",
        report.frama_c_version, report.prover, report.proved, report.goals, report.timeouts
    );
    let at = |p: &acsl::wp::Property| match &p.file {
        Some(f) => format!("{f}:{}", p.line),
        None => format!("line {}", p.line),
    };
    for s in &report.segments {
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
                at(p),
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
    if let Some(l) = &report.lemmas {
        let _ = writeln!(o, "  lemmas (proved once): {}", verdict_word(&l.verdict));
        for p in l.properties.iter().filter(|p| !proved(p)) {
            let _ = writeln!(o, "    {}: lemma `{}`: {:?}", at(p), p.text, p.status);
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
    Ok(Box::new(r))
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
            rule: if g.status == acsl::GoalStatus::Invalid {
                "VERA-C-INVALID"
            } else {
                "VERA-C-NOT-PROVED"
            },
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
            rule: if g.status == acsl::GoalStatus::Invalid {
                "VERA-C-INVALID"
            } else {
                "VERA-C-NOT-PROVED"
            },
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

/// `vera c strength FILE...`
pub fn strength(a: &crate::cli::CStrengthArgs) -> crate::output::Outcome {
    let cfg = a.wp.config();
    let options = acsl::StrengthOptions {
        max_mutants: a.max_mutants,
        ..Default::default()
    };
    let (report, shown) = if single(&a.files, &a.cpp) {
        // One self-contained file: mutants of its text, through harnesses.
        let path = &a.files[0];
        if parse(path)?.is_none() {
            return Err(crate::output::Reported.into());
        }
        (
            acsl::strength(path, &cfg, &options)?,
            path.display().to_string(),
        )
    } else {
        // A program: mutants written into its original files in a private copy.
        let (program, pp) = load_program_with(&a.files, &a.cpp, &cfg.frama_c)?;
        let ws = acsl::workspace::Workspace::new(&program, &pp).map_err(wp_fail)?;
        let report = acsl::strength_program(&ws, &cfg, &options).map_err(|e| match e {
            acsl::StrengthError::Wp(e) => wp_fail(e),
            e => fail("strength", e.to_string(), &[]),
        })?;
        let names: Vec<String> = program
            .sources()
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        (report, names.join(" "))
    };
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
    Ok(Box::new(r))
}

/// Options of `vera c synth`.
#[derive(Debug, clap::Args)]
pub struct SynthArgs {
    /// The C file, or the files of a program (they are never modified; with
    /// --compile-commands: the units to take from it, all when none is named).
    #[arg(required_unless_present = "compile_commands")]
    pub files: Vec<std::path::PathBuf>,
    /// The annotated copy to write (default: FILE.synth.c next to the input); one
    /// file only.
    #[arg(long, conflicts_with = "out_dir")]
    pub out: Option<std::path::PathBuf>,
    /// Treat the files as one program and write an annotated copy of each of its
    /// own files (sources and the headers they include) under DIR, at its path
    /// relative to the working directory. Needed for several files.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<std::path::PathBuf>,
    /// The JSON report to write (default: the output with extension .json, or
    /// DIR/vera-synth.json).
    #[arg(long)]
    pub report: Option<std::path::PathBuf>,
    /// Answers per point of interest: the first one and the repairs.
    #[arg(long, default_value_t = 3)]
    pub attempts: usize,
    /// Skip the VDR-guided strengthening (the VDR is then not measured).
    #[arg(long)]
    pub no_strengthen: bool,
    /// Strengthening rounds per segment.
    #[arg(long, default_value_t = 1)]
    pub refine_rounds: usize,
    /// At most this many mutants per segment.
    #[arg(long, default_value_t = 16)]
    pub max_mutants: usize,
    /// A copy of the file with hand-written ACSL: report recall against it.
    #[arg(long)]
    pub reference: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub cpp: crate::cli::CppArgs,
    #[command(flatten)]
    pub llm: crate::llmcmd::LlmArgs,
    #[command(flatten)]
    pub wp: WpArgs,
    #[command(flatten)]
    pub output: crate::cli::TextOutputArgs,
}

/// `vera.c-synth.v1` (also written to the report file).
#[derive(serde::Serialize)]
struct SynthJson<'a> {
    schema: &'static str,
    output: &'a Path,
    report: &'a pipeline::csynth::SynthReport,
    recall: Option<pipeline::csynth::RecallReport>,
}

/// `vera c synth FILE`, or `vera c synth FILE... --out-dir DIR`
pub fn synth(a: &SynthArgs) -> crate::output::Outcome {
    use pipeline::csynth;
    if a.files.len() != 1 || a.out_dir.is_some() {
        return synth_program(a);
    }
    let path = &a.files[0];
    let Some(file) = parse(path)? else {
        return Err(crate::output::Reported.into());
    };
    if has_conditionals(path) {
        // Read as written, the file's `#if` blocks are opaque: say so rather than
        // skip their functions silently.
        eprintln!(
            "warning: {} has #if/#ifdef blocks: functions inside them are not seen when one file is read as written; give --out-dir DIR to synthesize it as a preprocessed program",
            path.display()
        );
    }
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| path.with_extension("synth.c"));
    let report_path = a
        .report
        .clone()
        .unwrap_or_else(|| out.with_extension("json"));
    // Checked before the (long) synthesis: never an input (by identity), never an
    // existing file without --force.
    safefile::register_input(path);
    safefile::plan_output(&out, crate::files::force())?;
    safefile::plan_output(&report_path, crate::files::force())?;
    let reference = match &a.reference {
        Some(p) => match parse(p)? {
            Some(f) => Some(f),
            None => return Err(crate::output::Reported.into()),
        },
        None => None,
    };
    let client = match a.llm.client() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e:#}");
            return Err(crate::output::Reported.into());
        }
    };
    let mut wp = a.wp.config();
    let compiler_flags = unit_flags(path, &a.cpp, &mut wp)?;
    let opts = csynth::SynthOptions {
        attempts: a.attempts.max(1),
        strengthen: !a.no_strengthen,
        refine_rounds: a.refine_rounds,
        max_mutants: Some(a.max_mutants),
        compiler_flags,
        ..Default::default()
    };
    let human = a.output.format == crate::cli::TextFormat::Human;
    let mut log = |l: &str| {
        if human {
            eprintln!("{l}");
        }
    };
    let outcome = match csynth::synthesize(&file, &client, &wp, &opts, &mut log) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            if a.llm.replay.is_none() && matches!(e, csynth::SynthError::Llm(_)) {
                eprintln!("hint: with the local model, is it running? `scripts/local-llm start`");
            }
            return Err(crate::output::Reported.into());
        }
    };
    safefile::write_atomic(&out, outcome.text.as_bytes(), crate::files::force())?;
    let recall = match reference {
        Some(r) => {
            let mut synthesized = acsl::parse_c(outcome.text.as_str())
                .map_err(|d| anyhow::anyhow!("the annotated output does not parse: {d}"))?;
            synthesized.path = file.path.clone();
            match csynth::recall(&synthesized, &r, &wp) {
                Ok(rc) => Some(rc),
                Err(e) => {
                    eprintln!("error: recall: {e}");
                    return Err(crate::output::Reported.into());
                }
            }
        }
        None => None,
    };
    let r = &outcome.report;
    let json = serde_json::to_value(SynthJson {
        schema: "vera.c-synth.v1",
        output: &out,
        report: r,
        recall: recall.clone(),
    })?;
    safefile::write_atomic(
        &report_path,
        serde_json::to_string_pretty(&json)?.as_bytes(),
        crate::files::force(),
    )?;
    let shown = format!("{} -> {}", path.display(), out.display());
    let o = synth_summary(&shown, r, recall.as_ref(), &report_path, opts.strengthen);
    let status = if r.final_verdict.is_proved() {
        Status::Ok
    } else {
        Status::Findings
    };
    Ok(Box::new(Rendered::new("vera.c-synth.v1", status, o, json)))
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

/// Where the annotated copy of own file `abs` goes under `dir`: at its path
/// relative to the working directory, or its absolute path below `dir`.
fn output_path(dir: &Path, abs: &Path, cwd: &Path) -> std::path::PathBuf {
    match abs.strip_prefix(cwd) {
        Ok(rel) => dir.join(rel),
        Err(_) => dir.join(
            abs.components()
                .filter(|c| !matches!(c, std::path::Component::RootDir))
                .collect::<std::path::PathBuf>(),
        ),
    }
}

/// `vera c synth FILE... --out-dir DIR`: the program's points of interest
/// across its files, clauses written into copies of the sources and headers.
fn synth_program(a: &SynthArgs) -> crate::output::Outcome {
    use pipeline::csynth;
    let json = a.output.format != crate::cli::TextFormat::Human;
    let Some(dir) = &a.out_dir else {
        return Err(fail(
            "usage",
            "several files are one program: give --out-dir DIR for the annotated copies".into(),
            &[],
        ));
    };
    if a.reference.is_some() {
        return Err(fail(
            "usage",
            "--reference compares one file; it is not available for a program yet".into(),
            &[],
        ));
    }
    let wp = a.wp.config();
    let (program, pp) = load_program_with(&a.files, &a.cpp, &wp.frama_c)?;
    let ws = acsl::workspace::Workspace::new(&program, &pp).map_err(wp_fail)?;
    let client = match a.llm.client() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e:#}");
            return Err(crate::output::Reported.into());
        }
    };
    let cwd = std::env::current_dir().unwrap_or_default();
    let force = crate::files::force();
    // Checked before the (long) synthesis: no input is ever written, no existing
    // file without --force, every folder created.
    let outputs: Vec<(std::path::PathBuf, std::path::PathBuf)> = ws
        .originals()
        .keys()
        .map(|p| (p.clone(), output_path(dir, p, &cwd)))
        .collect();
    for (orig, _) in &outputs {
        safefile::register_input(orig);
    }
    for (_, out) in &outputs {
        if let Some(parent) = out.parent() {
            if safefile::is_input(parent) {
                anyhow::bail!(
                    "{}: is an input folder; choose another --out-dir",
                    parent.display()
                );
            }
            std::fs::create_dir_all(parent).map_err(|e| {
                anyhow::anyhow!(
                    "cannot create the output folder {}: {e} (is a part of it a file, or not writable?)",
                    parent.display()
                )
            })?;
        }
        safefile::plan_output(out, force)?;
    }
    let report_path = a
        .report
        .clone()
        .unwrap_or_else(|| dir.join("vera-synth.json"));
    let absolute = |p: &Path| acsl::project::normalize(&cwd.join(p));
    if outputs
        .iter()
        .any(|(_, o)| absolute(o) == absolute(&report_path))
    {
        anyhow::bail!(
            "{}: the report would replace one of the annotated copies; choose another --report",
            report_path.display()
        );
    }
    safefile::plan_output(&report_path, force)?;
    let opts = csynth::SynthOptions {
        attempts: a.attempts.max(1),
        strengthen: !a.no_strengthen,
        refine_rounds: a.refine_rounds,
        max_mutants: Some(a.max_mutants),
        ..Default::default()
    };
    let human = !json;
    let mut log = |l: &str| {
        if human {
            eprintln!("{l}");
        }
    };
    let outcome = match csynth::synthesize_program(&ws, &client, &wp, &opts, &mut log) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            if a.llm.replay.is_none() && matches!(e, csynth::SynthError::Llm(_)) {
                eprintln!("hint: with the local model, is it running? `scripts/local-llm start`");
            }
            return Err(crate::output::Reported.into());
        }
    };
    for (abs, text) in &outcome.files {
        let out = output_path(dir, abs, &cwd);
        safefile::write_atomic(&out, text.as_bytes(), force)?;
    }
    let r = &outcome.report;
    let json_value = serde_json::to_value(SynthJson {
        schema: "vera.c-synth.v1",
        output: dir,
        report: r,
        recall: None,
    })?;
    safefile::write_atomic(
        &report_path,
        serde_json::to_string_pretty(&json_value)?.as_bytes(),
        force,
    )?;
    let names: Vec<String> = program
        .sources()
        .iter()
        .map(|f| f.display().to_string())
        .collect();
    let shown = format!("{} -> {}/", names.join(" "), dir.display());
    let o = synth_summary(&shown, r, None, &report_path, !a.no_strengthen);
    let status = if r.final_verdict.is_proved() {
        Status::Ok
    } else {
        Status::Findings
    };
    Ok(Box::new(Rendered::new(
        "vera.c-synth.v1",
        status,
        o,
        json_value,
    )))
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

//! `vera schema draft`'s report: the drafted schema's counts, the probe, the solver's
//! findings on the domain and the list's coverage (`pipeline::schema`), as text and as
//! the `vera.schema-draft.v1` payload.

use crate::text::{excerpt, paint, Paint};
use crate::Rendered;
use pipeline::schema::{DraftReport, Finding, SchemaDraft, SCHEMA_TAG};
use report::Status;
use std::fmt::Write as _;
use std::path::Path;

/// `vera.schema-draft.v1`.
#[derive(serde::Serialize)]
pub struct SchemaJson {
    schema: &'static str,
    input: String,
    output: String,
    report: DraftReport,
    llm: llm::Accounting,
    seconds: f64,
}

/// `n` and the noun in its number.
fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The report of `vera schema draft` on the list `input`, the schema written to `out`:
/// an undecided check is an error, a finding a finding.
pub fn draft_report(
    input: &Path,
    out: &Path,
    d: &SchemaDraft,
    llm: llm::Accounting,
    seconds: f64,
) -> Rendered<SchemaJson> {
    let r = &d.report;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "drafted {}, {} and {} for {} from {} ({}{}); wrote {}",
        plural(r.draft.variables.len(), "variable", "variables"),
        plural(r.draft.enums.len(), "enumeration", "enumerations"),
        plural(
            r.draft.domain.len(),
            "domain constraint",
            "domain constraints"
        ),
        plural(r.requirements, "requirement", "requirements"),
        input.display(),
        plural(r.attempts, "answer", "answers"),
        if r.chunks > 1 {
            format!(" in {} chunks", r.chunks)
        } else {
            String::new()
        },
        out.display()
    );
    for why in &r.refused {
        let _ = writeln!(o, "  refused: {}", excerpt(why, 160));
    }
    if r.repair_rounds > 0 {
        let _ = writeln!(
            o,
            "repair rounds for missing variables: {}; proposed: {}",
            r.repair_rounds,
            if r.proposed.is_empty() {
                "none".to_string()
            } else {
                r.proposed.join(", ")
            }
        );
    }
    if let Some(p) = &r.probe {
        let missing = p.failed.iter().filter(|f| !f.undeclared.is_empty()).count();
        let _ = writeln!(
            o,
            "probe: {} of {} formalized against the draft; {} failed, {} of them for a missing variable{}",
            p.formalized,
            r.requirements,
            p.failed.len(),
            missing,
            match &p.after_repair {
                Some(ok) => format!("; after the repair round {} of {missing} formalize", ok.len()),
                None => String::new(),
            }
        );
        let other: Vec<&str> = p
            .failed
            .iter()
            .filter(|f| f.undeclared.is_empty())
            .map(|f| f.id.as_str())
            .collect();
        if !other.is_empty() {
            let _ = writeln!(
                o,
                "  failed for other reasons (see `vera formalize`): {}",
                other.join(", ")
            );
        }
    }
    for n in &r.notes {
        let _ = writeln!(o, "note: {n}");
    }
    if r.findings.is_empty() {
        let _ = writeln!(
            o,
            "{} the domain is satisfiable ({} solver queries), no range is empty or a single point, no two variables are forced equal or look like one quantity, every variable serves a requirement and every requirement has a variable",
            paint(Paint::Good, "no findings:"),
            r.queries
        );
    } else {
        let _ = writeln!(
            o,
            "{}:",
            paint(Paint::Bad, &plural(r.findings.len(), "finding", "findings"))
        );
        for f in &r.findings {
            let line = pipeline::schema::finding_line(f);
            let (kind, rest) = line.split_once(": ").unwrap_or((&line, ""));
            let p = if matches!(f, Finding::Undecided { .. }) {
                Paint::Warn
            } else {
                Paint::Bad
            };
            let _ = writeln!(o, "  {}: {rest}", paint(p, kind));
        }
    }
    let _ = writeln!(
        o,
        "review the schema, then: vera formalize {}",
        out.display()
    );
    let status = Status::of(d.undecided(), !r.findings.is_empty());
    Rendered::new(
        SCHEMA_TAG,
        status,
        o,
        SchemaJson {
            schema: SCHEMA_TAG,
            input: input.display().to_string(),
            output: out.display().to_string(),
            report: d.report.clone(),
            llm,
            seconds,
        },
    )
}

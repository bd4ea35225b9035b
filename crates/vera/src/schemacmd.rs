//! `vera schema draft REQS`: a typed schema drafted by the model from a requirement list
//! and checked by the solver (`pipeline::schema`), written as a vera spec.

use crate::output::{paint, Paint, Rendered};
use pipeline::schema::{DraftOptions, DraftReport, Finding, SCHEMA_TAG};
use report::Status;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// `vera.schema-draft.v1`.
#[derive(serde::Serialize)]
struct SchemaJson {
    schema: &'static str,
    input: String,
    output: String,
    report: DraftReport,
    llm: llm::Accounting,
    seconds: f64,
}

fn default_out(input: &Path) -> PathBuf {
    let stem = input
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| "requirements".into());
    input.with_file_name(format!("{stem}.schema.toml"))
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `vera schema draft REQS [-o OUT]`
pub fn draft(a: &crate::cli::SchemaDraftArgs) -> crate::output::Outcome {
    let force = crate::files::force();
    let out = a.out.clone().unwrap_or_else(|| default_out(&a.input));
    // Refused before the model is asked: an input, or an existing file without --force.
    safefile::plan_output(&out, force)?;
    let bytes = crate::files::read_utf8(&a.input)?;
    let list = pipeline::schema::read_requirements(&a.input.display().to_string(), &bytes)?;
    let client = a.llm.client()?;
    let options = DraftOptions {
        retries: a.retries,
        repairs: a.repairs,
        max_tokens: a.max_tokens,
        probe: a.probe,
        probe_retries: a.probe_retries,
        chunk: a.chunk,
    };
    let start = std::time::Instant::now();
    let d = pipeline::schema::draft_schema(&list, &client, &a.solver.config(), &options)?;
    let seconds = start.elapsed().as_secs_f64();
    pipeline::formalize::write_new(&out, &d.spec_toml(), &[&a.input], force)?;

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
        a.input.display(),
        plural(r.attempts, "answer", "answers"),
        if r.chunks > 1 {
            format!(" in {} chunks", r.chunks)
        } else {
            String::new()
        },
        out.display()
    );
    for why in &r.refused {
        let _ = writeln!(o, "  refused: {}", crate::output::excerpt(why, 160));
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
    let acc = client.accounting();
    eprintln!(
        "llm: {} requests, {} calls, {} cache hits, {} replayed, {} input + {} output tokens",
        acc.total.requests,
        acc.total.calls,
        acc.total.cache_hits,
        acc.total.replayed,
        acc.total.input_tokens,
        acc.total.output_tokens
    );
    let status = if d.undecided() {
        Status::Error
    } else if r.findings.is_empty() {
        Status::Ok
    } else {
        Status::Findings
    };
    Ok(Box::new(Rendered::new(
        SCHEMA_TAG,
        status,
        o,
        SchemaJson {
            schema: SCHEMA_TAG,
            input: a.input.display().to_string(),
            output: out.display().to_string(),
            report: d.report.clone(),
            llm: acc,
            seconds,
        },
    )))
}

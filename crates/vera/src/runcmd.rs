//! `vera run DOC`: the stages of `pipeline::run` (extract, schema, formalize, audit,
//! ambiguity, round trip) in one resumable command, and their report.

use pipeline::run::{Event, RunOptions};
use std::path::Path;

/// `vera run DOC`
pub fn run(a: &crate::cli::RunArgs) -> crate::output::Outcome {
    use crate::cli::Format;
    let dir = a
        .dir
        .clone()
        .unwrap_or_else(|| pipeline::run::default_dir(&a.document));
    // Refused before any work: formats the report has not, and outputs that would land
    // on the run's own files.
    if matches!(a.output.format, Format::Sarif | Format::Junit) {
        anyhow::bail!(
            "`vera run` has no {} output: use --format human, json or html (the stages' own commands, such as `vera audit`, write SARIF and JUnit)",
            if a.output.format == Format::Sarif { "sarif" } else { "junit" }
        );
    }
    let inside = |p: &Path| {
        let parent = p
            .parent()
            .filter(|x| !x.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        match (std::fs::canonicalize(parent), std::fs::canonicalize(&dir)) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        }
    };
    for (what, p) in [
        ("-o", a.output.file()),
        ("--transcript", a.solver.transcript.as_deref()),
    ] {
        if let Some(p) = p.filter(|p| inside(p)) {
            anyhow::bail!(
                "{what} {} is inside the run directory {}, whose files vera run keeps: write it elsewhere",
                p.display(),
                dir.display()
            );
        }
    }
    let sections = pipeline::run::parse_sections(&a.sections);
    if !a.sections.is_empty() && sections.is_empty() {
        anyhow::bail!("--sections names no section (give numbers such as 5 or 5.1,5.2)");
    }
    let client = a.llm.client()?;
    let solver = a.solver.config();
    let options = RunOptions {
        dir,
        sections,
        candidates: a.candidates,
        limit: a.limit.map(|n| n as usize),
        schema: a.schema.clone(),
        draft: pipeline::schema::DraftOptions {
            chunk: a.chunk,
            max_tokens: a.schema_max_tokens,
            ..Default::default()
        },
        formalize: {
            let mut o = pipeline::formalize::FormalizeOptions {
                max_retries: a.retries,
                ..Default::default()
            };
            a.form.apply(&mut o);
            o
        },
        audit_jobs: a.solver.jobs(),
        ambiguity: (!a.no_ambiguity).then(|| pipeline::ambiguity::AmbiguityOptions {
            samples: a.samples,
            max_tokens: Some(pipeline::formalize::DEFAULT_MAX_TOKENS),
            ..Default::default()
        }),
        roundtrip: if a.no_roundtrip {
            None
        } else {
            Some(pipeline::roundtrip::RoundTripOptions {
                embeddings: a.llm.embeddings()?,
                ..Default::default()
            })
        },
        force: crate::files::force(),
    };
    let start = std::time::Instant::now();
    let progress = |e: Event| eprintln!("{}", printer::run::progress_line(&e));
    let report = pipeline::run::run(&a.document, &client, &solver, &options, &progress)?;
    let seconds = start.elapsed().as_secs_f64();
    let acc = client.accounting();
    eprintln!("{}", printer::tables::accounting(&acc));
    Ok(Box::new(printer::run::run_report(&report, acc, seconds)?))
}

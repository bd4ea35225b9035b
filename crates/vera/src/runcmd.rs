//! `vera run DOC`: the stages of `pipeline::run` (extract, schema, formalize, audit,
//! ambiguity, round trip) in one resumable command, and their report.

use pipeline::run::{Event, RunOptions};

/// `vera run DOC`
pub fn run(a: &crate::cli::RunArgs) -> crate::output::Outcome {
    let dir = a
        .dir
        .clone()
        .unwrap_or_else(|| pipeline::run::default_dir(&a.document));
    // Refused before any work: formats the report has not, and outputs that would land
    // on the run's own files.
    let format = clap::ValueEnum::to_possible_value(&a.output.format).expect("a format");
    let outputs = [
        ("-o", a.output.file()),
        ("--transcript", a.solver.transcript.as_deref()),
    ];
    let sections = pipeline::run::check_request(format.get_name(), &dir, &outputs, &a.sections)?;
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

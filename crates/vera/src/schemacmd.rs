//! `vera schema draft REQS`: a typed schema drafted by the model from a requirement list
//! and checked by the solver (`pipeline::schema`), written as a vera spec.

use pipeline::schema::DraftOptions;

/// `vera schema draft REQS [-o OUT]`
pub fn draft(a: &crate::cli::SchemaDraftArgs) -> crate::output::Outcome {
    let force = crate::files::force();
    let out = a.out.clone().unwrap_or_else(|| {
        pipeline::formalize::default_output(&a.input, "requirements", "schema.toml")
    });
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

    let acc = client.accounting();
    eprintln!("{}", printer::tables::accounting_line(&acc));
    Ok(Box::new(printer::schema::draft_report(
        &a.input, &out, &d, acc, seconds,
    )))
}

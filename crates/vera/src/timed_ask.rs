//! `vera ask` on a spec of timed requirements (`vera.ask-timed.v1`): scenario questions
//! over time, each fact with the steps it speaks of (`[0 s, 130 s]: no_flow`), answered
//! on runs long enough for every obligation the question starts.

use anyhow::{bail, Context as _};
use reqs::timed::ask::{ask_read, read_questions};

/// Answers the questions of `vera ask` on a timed spec.
pub fn ask(args: &crate::cli::AskArgs) -> crate::output::Outcome {
    if args.derive {
        bail!(
            "--derive is not available for timed specs yet: ask a claim (`--claim \"at 10 s: F\"`)"
        );
    }
    let schema = args.csv.schema.as_deref();
    let spec = crate::audit::load(&args.spec, schema, reqs::input::Load::Discrete("ask"))?;
    let tb = spec
        .time
        .clone()
        .context("a timed requirement needs a [time] table")?;
    let questions = crate::audit::questions_of(args)?;
    // Every question is read before any is asked: all problems at once.
    let parsed = read_questions(&spec, &tb, &questions, args.questions.is_some())?;
    // Each question on runs as long as it needs: its last step plus the margin.
    let spec_file = args.spec.display().to_string();
    let margin = args.margin.as_deref();
    let config = args.solver.config();
    let answers = ask_read(&spec, &tb, &spec_file, &parsed, margin, &config)?;
    let asked = parsed
        .into_iter()
        .zip(answers)
        .map(|(q, answer)| printer::ask::TimedAsked {
            question: q.question.clone(),
            scenario: q.scenario.into_iter().map(|f| f.text).collect(),
            claim: q.claim.into_iter().map(|f| f.text).collect(),
            answer,
        })
        .collect();
    let file = args.questions.as_ref().map(|q| q.display().to_string());
    Ok(Box::new(printer::ask::timed_ask_report(
        spec_file, asked, file,
    )?))
}

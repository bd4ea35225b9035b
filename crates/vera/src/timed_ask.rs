//! `vera ask` on a spec of timed requirements (`vera.ask-timed.v1`): scenario questions
//! over time, each fact with the steps it speaks of (`[0 s, 130 s]: no_flow`), answered
//! on runs long enough for every obligation the question starts.

use anyhow::{bail, Context as _};
use reqs::timed::ask::{parse_scenario, Fact, TimedAsker};

/// Answers the questions of `vera ask` on a timed spec.
pub fn ask(args: &crate::cli::AskArgs) -> crate::output::Outcome {
    if args.derive {
        bail!(
            "--derive is not available for timed specs yet: ask a claim (`--claim \"at 10 s: F\"`)"
        );
    }
    let spec = crate::audit::load_spec_discrete(&args.spec, args.csv.schema.as_deref(), "ask")?;
    let tb = spec
        .time
        .clone()
        .context("a timed requirement needs a [time] table")?;
    let questions = crate::audit::questions_of(args)?;
    // Every question is read before any is asked: all problems at once.
    let mut parsed: Vec<(&reqs::Question, Vec<Fact>, Vec<Fact>)> = Vec::new();
    let mut problems = Vec::new();
    // Where a problem is: the option on the command line, else the question's id.
    let from_file = args.questions.is_some();
    let scenario_of = |id: &str| match from_file {
        true => format!("question {id}, scenario"),
        false => "--scenario".to_string(),
    };
    let claim_of = |id: &str| match from_file {
        true => format!("question {id}, claim"),
        false => "--claim".to_string(),
    };
    for q in &questions {
        let scenario = parse_scenario(
            &spec,
            &tb,
            &scenario_of(&q.id),
            q.scenario.as_deref().unwrap_or(""),
        );
        let claim = match &q.claim {
            Some(c) => parse_scenario(&spec, &tb, &claim_of(&q.id), c).and_then(|facts| {
                if facts.is_empty() {
                    Err(format!("{}: the claim has no fact", claim_of(&q.id)))
                } else {
                    Ok(facts)
                }
            }),
            None => Err(format!("question {} has no claim", q.id)),
        };
        match (scenario, claim) {
            (Ok(s), Ok(c)) => parsed.push((q, s, c)),
            (s, c) => problems.extend(s.err().into_iter().chain(c.err())),
        }
    }
    if !problems.is_empty() {
        bail!("{}", problems.join("\n"));
    }
    let margin = match &args.margin {
        None => None,
        Some(m) => Some(
            tb.duration(m)
                .map_err(|e| anyhow::anyhow!("--margin: {e}"))? as usize,
        ),
    };
    // Each question on runs as long as it needs: its last step plus the margin.
    let mut answers = Vec::new();
    for (q, s, c) in &parsed {
        let last = s.iter().chain(c).map(|f| f.to).max().unwrap_or(0);
        let mut asker = TimedAsker::new(&spec, last, margin, &args.solver.config())
            .with_context(|| format!("loading {}", args.spec.display()))?;
        let a = asker
            .ask(s, c)
            .with_context(|| format!("question {}", q.id))?;
        answers.push(a);
    }

    let asked = parsed
        .into_iter()
        .zip(answers)
        .map(|((q, s, c), answer)| printer::ask::TimedAsked {
            question: q.clone(),
            scenario: s.into_iter().map(|f| f.text).collect(),
            claim: c.into_iter().map(|f| f.text).collect(),
            answer,
        })
        .collect();
    let file = args.questions.as_ref().map(|q| q.display().to_string());
    Ok(Box::new(printer::ask::timed_ask_report(
        args.spec.display().to_string(),
        asked,
        file,
    )?))
}

//! `vera ask` on a spec of timed requirements (`vera.ask-timed.v1`): scenario questions
//! over time, each fact with the steps it speaks of (`[0 s, 130 s]: no_flow`), answered
//! on runs long enough for every obligation the question starts.

use crate::output::{excerpt, paint, Paint, Rendered};
use anyhow::{bail, Context as _};
use report::Status;
use reqs::timed::ask::{parse_scenario, Fact, TimedAnswer, TimedAsker, TimedVerdict};
use serde::Serialize;
use std::fmt::Write as _;

#[derive(Serialize)]
struct AnswerJson<'a> {
    id: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    text: &'a str,
    scenario: Vec<&'a str>,
    claim: Vec<&'a str>,
    #[serde(flatten)]
    answer: &'a TimedAnswer,
    #[serde(skip_serializing_if = "Option::is_none")]
    expected: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    matches_expected: Option<bool>,
}

#[derive(Serialize)]
struct AskJson<'a> {
    schema: &'static str,
    spec: String,
    answers: Vec<AnswerJson<'a>>,
}

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

    let mut worst = Status::Ok;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "the requirements read on finite runs (each question's last time plus a margin); entailed and impossible hold for every run\n",
    );
    let mut cases = Vec::new();
    for ((q, _, _), a) in parsed.iter().zip(&answers) {
        let v = &a.verdict;
        let code = match v {
            TimedVerdict::Entailed { .. } => Status::Ok,
            TimedVerdict::Unknown { .. } => Status::Error,
            _ => Status::Findings,
        };
        let mismatch = q.expected.as_deref().is_some_and(|e| e != v.name());
        worst = worst.worst(if mismatch { Status::Error } else { code });
        let word = match v {
            TimedVerdict::Entailed { .. } => paint(Paint::Good, "entailed"),
            TimedVerdict::NotEntailed { .. } => paint(Paint::Bad, "not entailed"),
            TimedVerdict::ScenarioImpossible { .. } => paint(Paint::Bad, "scenario impossible"),
            TimedVerdict::Unknown { .. } => paint(Paint::Bad, "unknown"),
        };
        let _ = write!(o, "{}: {word}", paint(Paint::Id, &q.id));
        if let Some(e) = q.expected.as_deref().filter(|_| mismatch) {
            let _ = write!(o, " {}", paint(Paint::Bad, &format!("(expected {e})")));
        }
        let _ = writeln!(o);
        if !q.text.is_empty() {
            let _ = writeln!(o, "  {}", excerpt(&q.text, 100));
        }
        let _ = writeln!(o, "  on runs of {} steps ({})", a.steps, a.time);
        let detail = verdict_lines(v);
        o.push_str(&detail);
        let undecided = match v {
            TimedVerdict::Unknown { reason } => Some(reason.as_str()),
            _ => None,
        };
        cases.push(printer::ask::answer_case(
            "vera.ask",
            q,
            v.name(),
            undecided,
            detail,
        ));
    }
    let file = args.questions.as_ref().map(|q| q.display().to_string());
    let suite = report::Suite {
        name: file.clone().unwrap_or_else(|| "claim".into()),
        file,
        cases,
    };
    let payload = AskJson {
        schema: "vera.ask-timed.v1",
        spec: args.spec.display().to_string(),
        answers: parsed
            .iter()
            .zip(&answers)
            .map(|((q, s, c), a)| AnswerJson {
                id: &q.id,
                text: &q.text,
                scenario: s.iter().map(|f| f.text.as_str()).collect(),
                claim: c.iter().map(|f| f.text.as_str()).collect(),
                answer: a,
                expected: q.expected.as_deref(),
                matches_expected: q.expected.as_deref().map(|e| e == a.verdict.name()),
            })
            .collect(),
    };
    let json = serde_json::to_value(&payload)?;
    let mut r = Rendered::new("vera.ask-timed.v1", worst, o, json);
    r.suites = Some(vec![suite]);
    Ok(Box::new(r))
}

fn verdict_lines(v: &TimedVerdict) -> String {
    let mut o = String::new();
    match v {
        TimedVerdict::Entailed { because } if because.is_empty() => {
            let _ = writeln!(o, "  by the scenario alone (no requirement needed)");
        }
        TimedVerdict::Entailed { because } => {
            let _ = writeln!(o, "  justified by {}", because.join(", "));
        }
        TimedVerdict::NotEntailed {
            counterexample,
            contradicts,
        } => {
            if contradicts.is_empty() {
                let _ = writeln!(o, "  the requirements allow a run where it fails:");
            } else {
                let _ = writeln!(
                    o,
                    "  the claim contradicts {}; a run the requirements allow:",
                    contradicts.join(", ")
                );
            }
            printer::timed::timeline_text(&mut o, counterexample, "    ");
        }
        TimedVerdict::ScenarioImpossible { because } if because.is_empty() => {
            let _ = writeln!(
                o,
                "  the scenario contradicts itself (or the domain constraints)"
            );
        }
        TimedVerdict::ScenarioImpossible { because } => {
            let _ = writeln!(o, "  no run meets the scenario and {}", because.join(", "));
        }
        TimedVerdict::Unknown { reason } => {
            let _ = writeln!(o, "  {reason}");
        }
    }
    o
}

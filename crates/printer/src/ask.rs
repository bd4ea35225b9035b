//! The reports of `vera ask`: answers to scenario questions (`vera.ask.v1`, with a JUnit
//! suite) and derived facts (`vera.derive.v1`).

use crate::audit::{ids, witness_text};
use crate::text::{excerpt, paint, Paint};
use crate::Rendered;
use report::Status;
use reqs::ask::{Derivation, Fact, Verdict};
use serde::Serialize;
use std::fmt::Write as _;

/// One answered question.
pub struct Answer {
    /// The question as asked.
    pub question: reqs::Question,
    /// Its scenario, printed.
    pub scenario: String,
    /// Its claim, printed.
    pub claim: String,
    /// The solver's answer.
    pub verdict: Verdict,
    /// With roles: the inputs the scenario fixes and what each output may be.
    pub roles: Option<reqs::ask::RolesView>,
}

impl From<reqs::ask::Asked> for Answer {
    fn from(a: reqs::ask::Asked) -> Answer {
        Answer {
            question: a.question,
            scenario: logic::print::term(&a.scenario),
            claim: logic::print::term(&a.claim),
            verdict: a.verdict,
            roles: a.roles,
        }
    }
}

/// The status one answer gives: entailed is ok, unknown an error, any other verdict a
/// finding; a verdict other than the question's `expected` one is an error.
fn answer_status(a: &Answer) -> Status {
    let v = &a.verdict;
    if a.question
        .expected
        .as_deref()
        .is_some_and(|e| e != v.name())
    {
        return Status::Error;
    }
    match v {
        reqs::Verdict::Entailed { .. } => Status::Ok,
        reqs::Verdict::Unknown { .. } => Status::Error,
        _ => Status::Findings,
    }
}

/// The report of `vera ask` over `answers` (from the questions file `file`, if any);
/// `worst` is the run's status as the command decided it.
pub fn ask_report(answers: Vec<Answer>, file: Option<String>) -> Rendered<AskJson> {
    let worst = answers
        .iter()
        .fold(Status::Ok, |w, a| w.worst(answer_status(a)));
    let mut o = String::new();
    let (mut agree, mut with_expectation) = (0, 0);
    for a in &answers {
        let (q, v, view) = (&a.question, &a.verdict, &a.roles);
        let _ = write!(o, "{}: {}", paint(Paint::Id, &q.id), verdict_word(v));
        if let Some(e) = &q.expected {
            with_expectation += 1;
            if e == v.name() {
                agree += 1;
            } else {
                let _ = write!(o, " {}", paint(Paint::Bad, &format!("(expected {e})")));
            }
        }
        let _ = writeln!(o);
        if !q.text.is_empty() {
            let _ = writeln!(o, "  {}", excerpt(&q.text, 100));
        }
        o.push_str(&verdict_lines(v));
        if let Some(view) = view {
            human_roles(&mut o, view);
        }
    }
    if with_expectation > 0 {
        let _ = writeln!(
            o,
            "\n{agree} of {with_expectation} answers match the expected verdicts"
        );
    }
    let suite = report::Suite {
        name: file.clone().unwrap_or_else(|| "claim".into()),
        file,
        cases: answers
            .iter()
            .map(|a| question_case("vera.ask", &a.question, &a.verdict))
            .collect(),
    };
    let answers = answers
        .into_iter()
        .map(|a| AnswerJson {
            id: a.question.id.clone(),
            text: a.question.text.clone(),
            scenario: a.scenario,
            claim: a.claim,
            expected: a.question.expected.clone(),
            matches_expected: a
                .question
                .expected
                .as_deref()
                .map(|e| e == a.verdict.name()),
            verdict: a.verdict,
            roles: a.roles,
        })
        .collect();
    let mut r = Rendered::new(
        "vera.ask.v1",
        worst,
        o,
        AskJson {
            schema: "vera.ask.v1",
            answers,
        },
    );
    r.suites = Some(vec![suite]);
    r
}

/// The report of `vera ask --derive` for `scenario` (printed): a fact the solver could not
/// decide is not a result, so it makes the status an error, like any unknown.
pub fn derive_report(scenario: String, d: Derivation) -> Rendered<DeriveJson> {
    let status = match &d {
        // A fact the solver could not decide is not a result: exit 2, like any unknown.
        Derivation::Facts { variables }
            if variables
                .iter()
                .any(|v| matches!(v.fact, reqs::ask::Fact::Unknown)) =>
        {
            Status::Error
        }
        Derivation::Facts { .. } => Status::Ok,
        Derivation::ScenarioImpossible { .. } => Status::Findings,
        Derivation::Unknown { .. } => Status::Error,
    };
    let text = human_derive(&d);
    Rendered::new(
        "vera.derive.v1",
        status,
        text,
        DeriveJson {
            schema: "vera.derive.v1",
            scenario,
            result: d,
        },
    )
}

/// One answer of `vera.ask.v1`.
#[derive(Serialize)]
pub struct AnswerJson {
    id: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    text: String,
    scenario: String,
    claim: String,
    #[serde(flatten)]
    verdict: Verdict,
    #[serde(skip_serializing_if = "Option::is_none")]
    expected: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    matches_expected: Option<bool>,
    /// With roles: the inputs the scenario fixes and what each output may be.
    #[serde(skip_serializing_if = "Option::is_none")]
    roles: Option<reqs::ask::RolesView>,
}

/// `vera.ask.v1`.
#[derive(Serialize)]
pub struct AskJson {
    schema: &'static str,
    answers: Vec<AnswerJson>,
}

/// `vera.derive.v1`.
#[derive(Serialize)]
pub struct DeriveJson {
    schema: &'static str,
    scenario: String,
    result: Derivation,
}

/// The lines under a verdict: its justification or counterexample.
fn verdict_lines(v: &Verdict) -> String {
    let mut o = String::new();
    match v {
        Verdict::Entailed { because } => {
            let _ = writeln!(o, "  justified by {}", ids(because));
        }
        Verdict::NotEntailed {
            counterexample,
            contradicts,
        } => {
            if contradicts.is_empty() {
                let _ = writeln!(o, "  the requirements allow a state where it fails:");
            } else {
                let _ = writeln!(
                    o,
                    "  the claim contradicts {}; a state the requirements allow:",
                    ids(contradicts)
                );
            }
            witness_text(&mut o, counterexample, "    ");
        }
        Verdict::ScenarioImpossible { because } => {
            let _ = writeln!(o, "  no state satisfies the scenario and {}", ids(because));
        }
        Verdict::Unknown { reason } => {
            let _ = writeln!(o, "  {reason}");
        }
    }
    o
}

/// A question as a pass/fail case: with an expected verdict it passes when the answer
/// matches; without one it passes when the claim is entailed. An unknown answer is an
/// error, never a pass.
fn question_case(class: &str, q: &reqs::Question, v: &Verdict) -> report::Case {
    let undecided = match v {
        Verdict::Unknown { reason } => Some(reason.as_str()),
        _ => None,
    };
    answer_case(class, q, v.name(), undecided, verdict_lines(v))
}

/// A JUnit case for an answered question: passed when it matches `expected` (or, with
/// none, when entailed), an error when undecided.
pub fn answer_case(
    class: &str,
    q: &reqs::Question,
    verdict: &str,
    undecided: Option<&str>,
    detail: String,
) -> report::Case {
    let outcome = match (&q.expected, undecided) {
        (_, Some(reason)) => report::Outcome::Error {
            message: format!("not decided: {reason}"),
            detail,
        },
        (Some(e), None) if e == verdict => report::Outcome::Passed,
        (Some(e), None) => report::Outcome::Failed {
            message: format!("expected {e}, the requirements give {verdict}"),
            detail,
        },
        (None, None) if verdict == "entailed" => report::Outcome::Passed,
        (None, None) => report::Outcome::Failed {
            message: verdict.to_string(),
            detail,
        },
    };
    report::Case {
        name: q.id.clone(),
        class: class.to_string(),
        outcome,
        seconds: None,
        output: (!q.text.is_empty()).then(|| q.text.clone()),
    }
}

fn verdict_word(v: &Verdict) -> String {
    match v {
        Verdict::Entailed { .. } => paint(Paint::Good, "entailed"),
        Verdict::NotEntailed { .. } => paint(Paint::Bad, "not entailed"),
        Verdict::ScenarioImpossible { .. } => paint(Paint::Warn, "scenario impossible"),
        Verdict::Unknown { .. } => paint(Paint::Warn, "unknown"),
    }
}

/// The inputs a scenario fixes and what the requirements allow for each output.
fn human_roles(o: &mut String, view: &reqs::ask::RolesView) {
    let fixed: Vec<String> = view
        .fixed_inputs
        .iter()
        .map(|d| format!("{} ({})", d.variable, fact_words(d)))
        .collect();
    if view.fixes_all_inputs {
        let _ = writeln!(o, "  the scenario fixes every input: {}", fixed.join(", "));
    } else {
        let _ = writeln!(
            o,
            "  the scenario leaves inputs open: {} (the answer holds for every value of these that the requirements allow){}",
            view.free_inputs.join(", "),
            if fixed.is_empty() {
                String::new()
            } else {
                format!("; fixed: {}", fixed.join(", "))
            }
        );
    }
    if !view.outputs.is_empty() {
        let _ = writeln!(o, "  outputs the requirements allow:");
        let width = view
            .outputs
            .iter()
            .map(|d| d.variable.len())
            .max()
            .unwrap_or(0);
        for d in &view.outputs {
            let _ = writeln!(o, "    {:width$}  {}", d.variable, fact_words(d));
        }
    }
}

/// One derived fact in words.
fn fact_words(v: &reqs::ask::Derived) -> String {
    let unit = v
        .unit
        .as_deref()
        .map(|u| format!(" {u}"))
        .unwrap_or_default();
    match &v.fact {
        Fact::Forced { value } => format!("forced = {value}{unit}"),
        Fact::OneOf { values } => format!("one of {}", values.join(", ")),
        Fact::Bounded { at_least, at_most } => match (at_least, at_most) {
            (Some(l), Some(u)) => format!("between {l} and {u}{unit}"),
            (Some(l), None) => format!(">= {l}{unit}"),
            (None, Some(u)) => format!("<= {u}{unit}"),
            (None, None) => "free".into(),
        },
        Fact::Free => "free".into(),
        Fact::Unknown => "unknown".into(),
    }
}

fn human_derive(d: &Derivation) -> String {
    let mut o = String::new();
    match d {
        Derivation::Facts { variables } => {
            let width = variables
                .iter()
                .map(|v| v.variable.len())
                .max()
                .unwrap_or(0);
            for v in variables {
                let fact = fact_words(v);
                let _ = writeln!(o, "{:width$}  {fact}", v.variable);
            }
        }
        Derivation::ScenarioImpossible { because } => {
            let _ = writeln!(o, "scenario impossible: ruled out by {}", ids(because));
        }
        Derivation::Unknown { reason } => {
            let _ = writeln!(o, "unknown: {reason}");
        }
    }
    o
}

/// One answered question over time.
pub struct TimedAsked {
    /// The question as asked.
    pub question: reqs::Question,
    /// Its scenario's facts, as written.
    pub scenario: Vec<String>,
    /// Its claim's facts, as written.
    pub claim: Vec<String>,
    /// The solver's answer.
    pub answer: reqs::timed::ask::TimedAnswer,
}

#[derive(Serialize)]
struct TimedAnswerJson<'a> {
    id: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    text: &'a str,
    scenario: Vec<&'a str>,
    claim: Vec<&'a str>,
    #[serde(flatten)]
    answer: &'a reqs::timed::ask::TimedAnswer,
    #[serde(skip_serializing_if = "Option::is_none")]
    expected: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    matches_expected: Option<bool>,
}

#[derive(Serialize)]
struct TimedAskJson<'a> {
    schema: &'static str,
    spec: String,
    answers: Vec<TimedAnswerJson<'a>>,
}

/// The report of `vera ask` on a timed spec (`spec`: its file): each question's verdict
/// on runs long enough for it, with the facts' steps; a JUnit suite for the questions
/// file `file`, if any.
pub fn timed_ask_report(
    spec: String,
    asked: Vec<TimedAsked>,
    file: Option<String>,
) -> serde_json::Result<Rendered<serde_json::Value>> {
    use reqs::timed::ask::TimedVerdict;
    let mut worst = Status::Ok;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "the requirements read on finite runs (each question's last time plus a margin); entailed and impossible hold for every run\n",
    );
    let mut cases = Vec::new();
    for t in &asked {
        let (q, a) = (&t.question, &t.answer);
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
        let detail = timed_verdict_lines(v);
        o.push_str(&detail);
        let undecided = match v {
            TimedVerdict::Unknown { reason } => Some(reason.as_str()),
            _ => None,
        };
        cases.push(answer_case("vera.ask", q, v.name(), undecided, detail));
    }
    let suite = report::Suite {
        name: file.clone().unwrap_or_else(|| "claim".into()),
        file,
        cases,
    };
    let payload = TimedAskJson {
        schema: "vera.ask-timed.v1",
        spec,
        answers: asked
            .iter()
            .map(|t| TimedAnswerJson {
                id: &t.question.id,
                text: &t.question.text,
                scenario: t.scenario.iter().map(String::as_str).collect(),
                claim: t.claim.iter().map(String::as_str).collect(),
                answer: &t.answer,
                expected: t.question.expected.as_deref(),
                matches_expected: t
                    .question
                    .expected
                    .as_deref()
                    .map(|e| e == t.answer.verdict.name()),
            })
            .collect(),
    };
    let json = serde_json::to_value(&payload)?;
    let mut r = Rendered::new("vera.ask-timed.v1", worst, o, json);
    r.suites = Some(vec![suite]);
    Ok(r)
}

fn timed_verdict_lines(v: &reqs::timed::ask::TimedVerdict) -> String {
    let mut o = String::new();
    match v {
        reqs::timed::ask::TimedVerdict::Entailed { because } if because.is_empty() => {
            let _ = writeln!(o, "  by the scenario alone (no requirement needed)");
        }
        reqs::timed::ask::TimedVerdict::Entailed { because } => {
            let _ = writeln!(o, "  justified by {}", because.join(", "));
        }
        reqs::timed::ask::TimedVerdict::NotEntailed {
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
            crate::timed::timeline_text(&mut o, counterexample, "    ");
        }
        reqs::timed::ask::TimedVerdict::ScenarioImpossible { because } if because.is_empty() => {
            let _ = writeln!(
                o,
                "  the scenario contradicts itself (or the domain constraints)"
            );
        }
        reqs::timed::ask::TimedVerdict::ScenarioImpossible { because } => {
            let _ = writeln!(o, "  no run meets the scenario and {}", because.join(", "));
        }
        reqs::timed::ask::TimedVerdict::Unknown { reason } => {
            let _ = writeln!(o, "  {reason}");
        }
    }
    o
}

//! The reports of `vera qa`, `vera roundtrip` and `vera faults`: the verified question
//! answering loop, the round trip of formulas through English, and fault detection, each
//! with the model's accounting.

use crate::text::{excerpt, paint, Paint};
use crate::Rendered;
use report::Status;
use std::fmt::Write as _;
use std::path::Path;

/// `vera.qa.v1`, `vera.roundtrip.v1` and `vera.faults.v1`: the spec's name, the
/// command's report and the LLM accounting (`llm`).
#[derive(serde::Serialize)]
pub struct QaJson<T: serde::Serialize> {
    schema: &'static str,
    spec: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    seconds: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    checks: Option<&'static str>,
    report: T,
    llm: llm::Accounting,
}

/// The report of `vera qa` on the spec `spec` with the questions file `questions`: one
/// line and one JUnit case per question and mode; a question without a verified answer
/// is a finding.
pub fn qa_report(
    spec: &str,
    questions: &Path,
    qs: &[pipeline::qa::QaQuestion],
    report: pipeline::qa::QaReport,
    llm: llm::Accounting,
    seconds: f64,
) -> Rendered<QaJson<pipeline::qa::QaReport>> {
    let mut o = String::new();
    for run in &report.runs {
        let (word, p) = match run.accepted_at {
            Some(0) => ("accepted".to_string(), Paint::Good),
            Some(k) => (format!("repaired at attempt {k}"), Paint::Good),
            None => ("rejected".to_string(), Paint::Bad),
        };
        let last = run.attempts.last().map(|a| {
            serde_json::to_value(&a.check)
                .ok()
                .and_then(|v| v["status"].as_str().map(str::to_string))
                .unwrap_or_default()
        });
        let _ = writeln!(
            o,
            "{:<14} {} {}: {} (last: {})",
            run.mode.name(),
            paint(Paint::Id, &run.id),
            excerpt(
                &qs.iter()
                    .find(|q| q.id == run.id)
                    .map(|q| q.text.clone())
                    .unwrap_or_default(),
                50
            ),
            paint(p, &word),
            last.unwrap_or_default()
        );
    }
    let _ = writeln!(o);
    o.push_str(&crate::tables::qa(&report));
    let _ = writeln!(o, "\n{}", crate::tables::accounting(&llm.clone()));
    let _ = writeln!(o, "{seconds:.1} s");
    let all = report.runs.iter().all(|r| r.accepted_at.is_some());
    let status = if all { Status::Ok } else { Status::Findings };
    let cases = report
        .runs
        .iter()
        .map(|run| {
            let last = run
                .attempts
                .last()
                .and_then(|a| serde_json::to_value(&a.check).ok())
                .map(|v| v.to_string())
                .unwrap_or_default();
            report::Case {
                name: format!("{} [{}]", run.id, run.mode.name()),
                class: format!("vera.qa.{}", run.mode.name()),
                outcome: match run.accepted_at {
                    Some(_) => report::Outcome::Passed,
                    None => report::Outcome::Failed {
                        message: format!(
                            "no verified answer after {} attempt(s)",
                            run.attempts.len()
                        ),
                        detail: last,
                    },
                },
                seconds: None,
                output: None,
            }
        })
        .collect();
    let mut r = Rendered::new(
        "vera.qa.v1",
        status,
        o,
        QaJson {
            schema: "vera.qa.v1",
            spec: spec.to_string(),
            seconds: Some(seconds),
            checks: None,
            report,
            llm,
        },
    );
    r.suites = Some(vec![report::Suite {
        name: questions.display().to_string(),
        file: Some(questions.display().to_string()),
        cases,
    }]);
    r
}

/// The report of `vera roundtrip` on the spec `spec`: each formula, its English reading
/// and the formula read back; a trip that does not come back equivalent is a finding.
pub fn roundtrip_report(
    spec: &str,
    report: pipeline::roundtrip::RoundTripReport,
    llm: llm::Accounting,
) -> Rendered<QaJson<pipeline::roundtrip::RoundTripReport>> {
    let mut o = String::new();
    let _ = writeln!(o, "round trip: {}.\n", pipeline::roundtrip::WHAT_IT_CHECKS);
    for t in &report.trips {
        let (word, p) = if t.initially_equivalent() {
            ("equivalent", Paint::Good)
        } else if t.finally_equivalent() {
            ("equivalent after repair", Paint::Good)
        } else if t.problem.is_some() && t.reformalized.is_none() {
            ("no formula", Paint::Warn)
        } else {
            ("differs", Paint::Bad)
        };
        let _ = writeln!(o, "{} {}", paint(Paint::Id, &t.id), paint(p, word));
        let _ = writeln!(o, "  formula:      {}", t.formula);
        if let Some(r) = &t.readback {
            let overlap = t
                .readback_overlap_milli
                .map(|m| format!(" ({}% of the text's words)", m / 10))
                .unwrap_or_default();
            let _ = writeln!(o, "  reads:        {}{overlap}", excerpt(r, 100));
        }
        if let Some(s) = &t.sentence {
            let _ = writeln!(o, "  sentence:     {}", excerpt(s, 100));
        }
        if let Some(f) = &t.reformalized {
            let _ = writeln!(o, "  reformalized: {f}");
        }
        if let Some(p) = &t.problem {
            let _ = writeln!(o, "  problem:      {}", excerpt(p, 100));
        }
        for f in &t.flags {
            let _ = writeln!(o, "  {}: {}", paint(Paint::Bad, "flagged"), f.message);
        }
    }
    let _ = writeln!(
        o,
        "\nequivalent at first try {}, after one repair {}; {} sentence(s) flagged; mean lexical cosine {}{}",
        report.initial.show(),
        report.after_repair.show(),
        report.flagged,
        report
            .mean_lexical_similarity
            .map(|s| format!("{:.1}%", 100.0 * s))
            .unwrap_or_else(|| "-".into()),
        match (report.mean_embedding_similarity, &report.embedding_model) {
            (Some(s), Some(m)) =>
                format!("; mean embedding cosine {:.1}% ({m})", 100.0 * s),
            _ => String::new(),
        }
    );
    let _ = writeln!(o, "\n{}", crate::tables::accounting(&llm.clone()));
    let all = report.trips.iter().all(|t| t.passed());
    Rendered::new(
        "vera.roundtrip.v1",
        if all { Status::Ok } else { Status::Findings },
        o,
        QaJson {
            schema: "vera.roundtrip.v1",
            spec: spec.to_string(),
            seconds: None,
            checks: Some(pipeline::roundtrip::WHAT_IT_CHECKS),
            report,
            llm,
        },
    )
}

/// The report of `vera faults` on the spec `spec`: a faulty text the spec does not tell
/// apart is a finding.
pub fn faults_report(
    spec: &str,
    report: pipeline::faults::FaultReport,
    llm: llm::Accounting,
) -> Rendered<QaJson<pipeline::faults::FaultReport>> {
    let o = format!(
        "{}\n{}\n",
        crate::tables::faults(&report),
        crate::tables::accounting(&llm.clone())
    );
    let all = report.results.iter().all(|r| r.detected());
    Rendered::new(
        "vera.faults.v1",
        if all { Status::Ok } else { Status::Findings },
        o,
        QaJson {
            schema: "vera.faults.v1",
            spec: spec.to_string(),
            seconds: None,
            checks: None,
            report,
            llm,
        },
    )
}

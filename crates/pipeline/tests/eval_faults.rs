//! End-to-end fault detection driven by the scripted provider: a fault detected by
//! non-equivalence, one detected by inconsistency, one missed (equivalent), one that never
//! formalizes; generated faulty texts; and the harness tables over all of it.

mod common;

use common::{client, formalizing, spec, z3};
use pipeline::eval::{self, EvalOptions, Experiment, FaultSource};
use pipeline::faults::{self, FaultyText};
use pipeline::qa::{FeedbackMode, QaOptions, QaQuestion, QuestionKind};
use reqs::mutate::Detection;

fn faulty(req: &str, text: &str, cat: &str) -> FaultyText {
    FaultyText {
        requirement: req.into(),
        text: text.into(),
        category: Some(cat.into()),
    }
}

fn formalize(text: &str) -> String {
    match text {
        "If the temperature exceeds 50 degC, the alarm shall be raised." => {
            "(=> (> temp 50) alarm)"
        }
        "While the alarm is active, the heater shall be on." => "(=> alarm heater)",
        "In service mode the temperature shall stay under 30 degC." => {
            "(=> (= mode Service) (< temp 30))"
        }
        "The heater shall always run." => "heater",
        _ => "(=> mode",
    }
    .to_string()
}

#[test]
fn detection_decisions() {
    let s = spec();
    let (c, _) = client(|r| formalize(&formalizing(r).unwrap()));
    let mutants = vec![
        faulty(
            "R1",
            "If the temperature exceeds 50 degC, the alarm shall be raised.",
            "limit-violation",
        ),
        faulty(
            "R2",
            "While the alarm is active, the heater shall be on.",
            "value-mismatch",
        ),
        faulty(
            "R3",
            "In service mode the temperature shall stay under 30 degC.",
            "value-mismatch",
        ),
        faulty("R2", "The heater shall always run.", "value-mismatch"),
        faulty("R1", "Garbled.", "false-alarm"),
    ];
    let rep = faults::run(&s, &mutants, &c, &z3()).unwrap();
    let r = &rep.results;
    let Some(Detection::NotEquivalent { direction, witness }) = &r[0].detection else {
        panic!("{:?}", r[0])
    };
    // The mutant allows 45 degC without an alarm; the original does not.
    assert_eq!(*direction, "mutant-only");
    assert!(witness.iter().any(|a| a.variable == "temp"));
    // "Heater on with the alarm" and "always heat" only keep the temperature at or below
    // 40 degC: consistent, but not equivalent to R2.
    assert!(matches!(
        r[1].detection,
        Some(Detection::NotEquivalent { .. })
    ));
    assert_eq!(r[2].detection, Some(Detection::Equivalent));
    assert!(matches!(
        r[3].detection,
        Some(Detection::NotEquivalent { .. })
    ));
    assert!(r[4].detection.is_none() && r[4].problem.is_some());
    assert!(!r[2].detected() && !r[4].detected());
    assert_eq!(rep.formalized, 4);
    let overall = &rep.rates.last().unwrap().1;
    assert_eq!(rep.rates.last().unwrap().0, "overall");
    assert_eq!(
        (overall.k, overall.n),
        (r.iter().filter(|x| x.detected()).count(), 5)
    );
    // The missed ones, as the Fig. 5 table lists them (rendered by the binary).
    assert_eq!(r[2].mutant.requirement, "R3");
    assert_eq!(r[2].mutant.category.as_deref(), Some("value-mismatch"));
    // A mutant of a requirement the spec does not have is an error.
    assert!(faults::run(&s, &[faulty("R9", "x", "y")], &c, &z3()).is_err());
}

#[test]
fn inconsistent_replacement_is_detected() {
    // "No alarm and above 50 degC" contradicts R1.
    let s = spec();
    let (c, _) = client(|_| "(and (not alarm) (> temp 50))".into());
    let m = faulty(
        "R2",
        "The alarm stays off and the temperature above 50 degC.",
        "false-alarm",
    );
    let rep = faults::run(&s, &[m], &c, &z3()).unwrap();
    assert_eq!(rep.results[0].detection, Some(Detection::Inconsistent));
    assert_eq!(rep.inconsistent, 1);
}

#[test]
fn generated_faults_and_mutants_file() {
    let s = spec();
    let (c, seen) = client(|r| {
        let p = &r.messages[0].content;
        if p.contains("faulty version") {
            "Faulty requirement: If the temperature exceeds 50 degC, the alarm shall be raised."
                .into()
        } else {
            formalize(&formalizing(r).unwrap())
        }
    });
    let texts = faults::generate(&s, &c, &pipeline::select::Selection::first(Some(2))).unwrap();
    assert_eq!(texts.len(), 2);
    assert_eq!(
        texts[0].text,
        "If the temperature exceeds 50 degC, the alarm shall be raised."
    );
    assert_eq!(texts[0].category.as_deref(), Some("limit-violation"));
    assert_eq!(texts[1].category.as_deref(), Some("mode-transition"));
    assert!(seen.lock().unwrap()[1].messages[0]
        .content
        .contains("phase or state"));
    let file = r#"
[[mutants]]
requirement = "R1"
text = "If the temperature exceeds 50 degC, the alarm shall be raised."
category = "limit-violation"
"#;
    let m = faults::load_mutants(file, "m.toml").unwrap();
    assert_eq!(m[0].requirement, "R1");
    assert!(faults::load_mutants("[[mutants]]\nrequirement = 1", "m.toml").is_err());
}

#[test]
fn harness_tables_over_every_experiment() {
    let s = spec();
    let (c, _) = client(|r| {
        let p = &r.messages[0].content;
        if let Some(t) = formalizing(r) {
            // Ambiguity samples: the second sample reads R1 with a non-strict bound.
            if t.starts_with("If the temperature exceeds 40") {
                return if r.sample == 1 {
                    "(=> (>= temp 40) alarm)".into()
                } else {
                    "(=> (> temp 40) alarm)".into()
                };
            }
            if t.starts_with("While the alarm") {
                return "(=> alarm (not heater))".into();
            }
            // The clarified text has one reading.
            if t.starts_with("If the temperature is above 40") {
                return "(=> (> temp 40) alarm)".into();
            }
            return formalize(&t);
        }
        if p.contains("Rewrite the requirement text minimally") {
            assert!(p.contains("Requirement R1:"), "{p}");
            return "If the temperature is above 40 degC (40 degC itself excluded), the alarm shall be raised.".into();
        }
        if p.contains("Formula: ") {
            if p.contains("Formula: (=> alarm") {
                return "While the alarm is active, the heater shall be off.".into();
            }
            return "If the temperature exceeds 40 degC, the alarm shall be raised.".into();
        }
        if p.contains("faulty version") {
            return "If the temperature exceeds 50 degC, the alarm shall be raised.".into();
        }
        // QA.
        serde_json::json!({"given": [{"variable": "temp", "op": "=", "value": "45"}],
            "impossible": false,
            "required": [{"variable": "heater", "op": "=", "value": "false"}]})
        .to_string()
    });
    let q = QaQuestion {
        id: "Q1".into(),
        kind: QuestionKind::Multi,
        text: "The temperature is 45 degC. What must the heater do?".into(),
        scenario: "(= temp 45)".into(),
        answer: "(not heater)".into(),
        expected: None,
        requirements: vec![],
        free: vec![],
    };
    let opts = EvalOptions {
        experiments: Experiment::ALL.to_vec(),
        questions: vec![q],
        qa: QaOptions {
            modes: vec![FeedbackMode::None, FeedbackMode::Counterexample],
            max_repairs: 2,
            ..QaOptions::default()
        },
        faults: FaultSource::Generate,
        selection: pipeline::select::Selection::first(Some(2)),
        ambiguity_samples: 3,
        clarify_rounds: 2,
        jobs: 1,
        embeddings: None,
    };
    let rep = eval::run(&s, &c, &z3(), &opts).unwrap();
    assert_eq!(rep.audit.as_ref().unwrap().consistency, "consistent");
    assert_eq!(rep.roundtrip.as_ref().unwrap().initial.k, 2);
    assert!(rep.mutation.is_some());
    assert_eq!(rep.qa.as_ref().unwrap().modes[1].final_accuracy.k, 1);
    assert_eq!(rep.faults.as_ref().unwrap().results.len(), 2);
    let amb = &rep.ambiguity.as_ref().unwrap().report;
    assert_eq!(amb.screening.requirements.len(), 2);
    assert_eq!(amb.screening.requirements[0].classes(), 2);
    let (before, after) = (&amb.stats.before, &amb.stats.after);
    assert_eq!((before.flagged, before.screened), (1, 2));
    // R1: 3 samples in classes of 2 and 1 (1 agreeing pair of 3); R2: 3 of 3.
    assert_eq!((before.agreeing_pairs, before.pairs), (4, 6));
    // One clarification round: R1's new text has a single reading.
    assert_eq!(
        (after.flagged, after.agreeing_pairs, after.pairs),
        (0, 6, 6)
    );
    assert_eq!(amb.stats.flagged_per_round, vec![1, 0]);
    assert!(amb.proposals[0].converged && amb.proposals[0].rounds == 1);
    // Accounting per LLM experiment; the deterministic ones make no requests.
    assert_eq!(rep.accounting["audit"].total.requests, 0);
    assert_eq!(rep.accounting["qa"].total.requests, 2);
    // 2 x 3 screening samples, one rewrite, 3 samples of the rewrite.
    assert_eq!(rep.accounting["ambiguity"].total.requests, 10);
    let p = &amb.proposals[0];
    assert_eq!(
        (p.id.as_str(), p.classes_before, p.classes_after),
        ("R1", 2, 1)
    );
    let rt = &rep.roundtrip.as_ref().unwrap().initial;
    assert_eq!((rt.k, rt.n), (2, 2));
    let j = serde_json::to_value(&rep).unwrap();
    assert_eq!(j["schema"], "vera.eval.v1");
}

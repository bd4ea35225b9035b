//! The QA repair loop driven by the scripted provider through every branch: accepted
//! first time, repaired at attempt k, budget exhausted, scenario impossible (claimed and
//! not), unusable answers, and what each feedback mode sends back.

use llm::{Cache, Client, Request, Response, Scripted};
use pipeline::qa::{self, Check, FeedbackMode, QaOptions, QaQuestion, QuestionKind};
use serde_json::json;
use solver::{SolverConfig, SolverKind};
use std::sync::{Arc, Mutex};

mod common;
use common::spec;

fn hot() -> QaQuestion {
    QaQuestion {
        id: "Q1".into(),
        kind: QuestionKind::Multi,
        text: "The temperature is 45 degC. What must the alarm and the heater do?".into(),
        scenario: "(= temp 45)".into(),
        answer: "(and alarm (not heater))".into(),
        expected: None,
        requirements: vec!["R1".into(), "R2".into()],
        free: vec![],
    }
}

fn service() -> QaQuestion {
    QaQuestion {
        id: "Q2".into(),
        kind: QuestionKind::Single,
        text: "In service mode the temperature reads 50 degC. What must happen?".into(),
        scenario: "(and (= mode Service) (= temp 50))".into(),
        answer: "true".into(),
        expected: Some("scenario-impossible".into()),
        requirements: vec!["R3".into()],
        free: vec![],
    }
}

fn cond(v: &str, op: &str, val: &str) -> serde_json::Value {
    json!({"variable": v, "op": op, "value": val})
}

fn proposal(scenario: Vec<serde_json::Value>, answer: Vec<serde_json::Value>) -> String {
    json!({"given": scenario, "impossible": false, "required": answer}).to_string()
}

fn impossible(scenario: Vec<serde_json::Value>) -> String {
    json!({"given": scenario, "impossible": true, "required": []}).to_string()
}

fn good() -> String {
    proposal(
        vec![cond("temp", "=", "45")],
        vec![cond("alarm", "=", "true"), cond("heater", "=", "false")],
    )
}

/// A client whose answers come from `f(request)`; the requests are kept.
fn client(
    f: impl Fn(&Request) -> String + Send + Sync + 'static,
) -> (Client, Arc<Mutex<Vec<Request>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s2 = seen.clone();
    let p = Scripted::from_fn(move |r, _| {
        s2.lock().unwrap().push(r.clone());
        Ok(Response::text(f(r)))
    });
    (
        Client::builder(p)
            .cache(Cache::in_memory().unwrap())
            .concurrency(1)
            .build(),
        seen,
    )
}

fn z3() -> SolverConfig {
    SolverConfig::new(SolverKind::Z3)
}

fn opts(modes: &[FeedbackMode], max_repairs: usize) -> QaOptions {
    QaOptions {
        modes: modes.to_vec(),
        max_repairs,
        ..QaOptions::default()
    }
}

#[test]
fn accepted_first_time() {
    let s = spec();
    let (c, seen) = client(|_| good());
    let r = qa::run(
        &s,
        &[hot()],
        &c,
        &z3(),
        &opts(&[FeedbackMode::Counterexample], 5),
    )
    .unwrap();
    let run = &r.runs[0];
    assert_eq!(run.accepted_at, Some(0));
    assert_eq!(run.attempts.len(), 1);
    assert!(matches!(run.attempts[0].check, Check::Safe { .. }));
    assert_eq!(seen.lock().unwrap().len(), 1);
    let m = &r.modes[0];
    assert_eq!(
        (m.first_attempt.k, m.final_accuracy.k, m.repair_success.n),
        (1, 1, 0)
    );
    assert_eq!(m.cumulative, vec![1; 6]);
    // The final answer states both derived facts.
    let cmp = run.comparison.as_ref().unwrap();
    assert_eq!(cmp.scenario_equivalent, Some(true));
    assert_eq!(cmp.covers_expected, Some(true));
    assert_eq!(cmp.missed, Vec::<String>::new());
    assert_eq!(cmp.stated, vec!["alarm = true", "heater = false"]);
    // The prompt carries the schema, the requirement texts and the question; the
    // request carries the JSON schema over the spec's variables.
    let req = &seen.lock().unwrap()[0];
    let prompt = &req.messages[0].content;
    assert!(
        prompt.contains("- temp : Real [degC] in [0, 100]"),
        "{prompt}"
    );
    assert!(
        prompt.contains("- R2: While the alarm is active"),
        "{prompt}"
    );
    assert!(
        prompt.contains("Question: The temperature is 45 degC."),
        "{prompt}"
    );
    let schema = &req.schema.as_ref().unwrap().schema;
    assert_eq!(
        schema["properties"]["required"]["items"]["properties"]["variable"]["enum"],
        json!(["temp", "alarm", "heater", "mode"])
    );
}

#[test]
fn repaired_at_attempt_two_with_counterexample_feedback() {
    let s = spec();
    let (c, seen) = client(|r| match r.sample {
        // Contradicts R1 and R2: the heater on at 45 degC.
        0 => proposal(
            vec![cond("temp", "=", "45")],
            vec![cond("heater", "=", "true")],
        ),
        // Consistent but not demanded.
        1 => proposal(
            vec![cond("temp", "=", "45")],
            vec![cond("alarm", "=", "true"), cond("mode", "=", "Run")],
        ),
        _ => good(),
    });
    let r = qa::run(
        &s,
        &[hot()],
        &c,
        &z3(),
        &opts(&[FeedbackMode::Counterexample], 5),
    )
    .unwrap();
    let run = &r.runs[0];
    assert_eq!(run.accepted_at, Some(2));
    let Check::Violation { violated, .. } = &run.attempts[0].check else {
        panic!("{:?}", run.attempts[0].check)
    };
    assert_eq!(violated, &["R1", "R2"]);
    let Check::Violation {
        unsupported,
        concerning,
        counterexample,
        ..
    } = &run.attempts[1].check
    else {
        panic!("{:?}", run.attempts[1].check)
    };
    assert_eq!(unsupported, &["mode = Run"]);
    assert_eq!(concerning, &["R3"]);
    assert!(counterexample.iter().any(|a| a.variable == "mode"));
    let fb0 = run.attempts[0].feedback.as_ref().unwrap();
    assert!(fb0.contains("- R2: While the alarm is active"), "{fb0}");
    assert!(fb0.contains("temp = 45.0 degC"), "{fb0}");
    assert!(run.attempts[2].feedback.is_none());
    // The repair turn: the first prompt, the previous answer, then the feedback.
    let reqs = seen.lock().unwrap();
    assert_eq!(reqs.len(), 3);
    assert_eq!(reqs[1].messages.len(), 3);
    assert_eq!(
        reqs[1].messages[1].content,
        proposal(
            vec![cond("temp", "=", "45")],
            vec![cond("heater", "=", "true")]
        )
    );
    assert!(reqs[1].messages[2]
        .content
        .starts_with("The verifier rejected your answer."));
    let m = &r.modes[0];
    assert_eq!((m.first_attempt.k, m.final_accuracy.k), (0, 1));
    assert_eq!((m.repair_success.k, m.repair_success.n), (1, 1));
    assert_eq!(m.cumulative, vec![0, 0, 1, 1, 1, 1]);
}

#[test]
fn budget_exhausted() {
    let s = spec();
    let wrong = || {
        proposal(
            vec![cond("temp", "=", "45")],
            vec![cond("heater", "=", "true")],
        )
    };
    let (c, seen) = client(move |_| wrong());
    let r = qa::run(
        &s,
        &[hot()],
        &c,
        &z3(),
        &opts(&[FeedbackMode::Requirements], 3),
    )
    .unwrap();
    let run = &r.runs[0];
    assert_eq!(run.accepted_at, None);
    assert_eq!(run.attempts.len(), 4);
    assert!(run.attempts[..3].iter().all(|a| a.feedback.is_some()));
    assert!(run.attempts[3].feedback.is_none());
    // Requirements only: no state in the feedback.
    let fb = run.attempts[0].feedback.as_ref().unwrap();
    assert!(fb.contains("R1") && !fb.contains("temp ="), "{fb}");
    assert_eq!(seen.lock().unwrap().len(), 4);
    let m = &r.modes[0];
    assert_eq!(
        (m.final_accuracy.k, m.repair_success.k, m.repair_success.n),
        (0, 0, 1)
    );
    let cmp = run.comparison.as_ref().unwrap();
    assert_eq!(cmp.contradicting, vec!["heater = true"]);
    assert_eq!(cmp.covers_expected, Some(false));
}

#[test]
fn scenario_impossible_claimed_or_repaired() {
    let s = spec();
    let sc = || vec![cond("mode", "=", "Service"), cond("temp", "=", "50")];
    // Claimed at once: accepted.
    let (c, _) = client(move |_| impossible(sc()));
    let r = qa::run(
        &s,
        &[service()],
        &c,
        &z3(),
        &opts(&[FeedbackMode::Generic], 5),
    )
    .unwrap();
    assert_eq!(r.runs[0].accepted_at, Some(0));
    assert!(matches!(
        &r.runs[0].attempts[0].check,
        Check::ScenarioImpossible { claimed: true, because } if because == &["R3"]
    ));
    assert!(r.runs[0].comparison.as_ref().unwrap().reference_impossible);
    // An answer on an impossible scenario is rejected; the feedback names the core.
    let (c, _) = client(move |r| {
        if r.sample == 0 {
            proposal(sc(), vec![cond("alarm", "=", "true")])
        } else {
            impossible(sc())
        }
    });
    let r = qa::run(
        &s,
        &[service()],
        &c,
        &z3(),
        &opts(&[FeedbackMode::Requirements], 5),
    )
    .unwrap();
    let run = &r.runs[0];
    assert_eq!(run.accepted_at, Some(1));
    assert!(matches!(
        run.attempts[0].check,
        Check::ScenarioImpossible { claimed: false, .. }
    ));
    let fb = run.attempts[0].feedback.as_ref().unwrap();
    assert!(fb.contains("- R3: In service mode"), "{fb}");
    // Claiming impossibility for a possible scenario is rejected with a witness.
    let (c, _) = client(|r| {
        if r.sample == 0 {
            impossible(vec![cond("temp", "=", "45")])
        } else {
            good()
        }
    });
    let r = qa::run(
        &s,
        &[hot()],
        &c,
        &z3(),
        &opts(&[FeedbackMode::Counterexample], 5),
    )
    .unwrap();
    let run = &r.runs[0];
    assert!(matches!(
        run.attempts[0].check,
        Check::ScenarioPossible { .. }
    ));
    assert!(run.attempts[0]
        .feedback
        .as_ref()
        .unwrap()
        .contains("The scenario is possible"));
    assert_eq!(run.accepted_at, Some(1));
}

#[test]
fn baseline_and_generic_feedback() {
    let s = spec();
    let (c, seen) = client(|r| {
        if r.sample < 2 {
            proposal(
                vec![cond("temp", "=", "45")],
                vec![cond("heater", "=", "true")],
            )
        } else {
            good()
        }
    });
    let r = qa::run(
        &s,
        &[hot()],
        &c,
        &z3(),
        &opts(&[FeedbackMode::None, FeedbackMode::Generic], 5),
    )
    .unwrap();
    assert_eq!(r.modes.len(), 2);
    assert_eq!(r.runs[0].mode, FeedbackMode::None);
    assert!(r.runs[0].attempts.iter().all(|a| a.feedback.is_none()));
    assert_eq!(
        r.runs[1].attempts[0].feedback.as_deref(),
        Some("The verifier rejected your answer.")
    );
    let reqs = seen.lock().unwrap();
    // Baseline: the same single-turn prompt, a new sample index.
    assert_eq!(reqs[1].messages, reqs[0].messages);
    assert_eq!(reqs[1].sample, 1);
    // Generic: a repair turn.
    assert_eq!(reqs[4].messages.len(), 3);
    assert_eq!(r.modes[0].final_accuracy.k, 1);
    assert_eq!((r.modes[0].questions, r.modes[0].first_attempt.k), (1, 0));
}

#[test]
fn unusable_answers_are_rejected_with_the_problem() {
    let s = spec();
    let (c, _) = client(|r| match r.sample {
        0 => proposal(vec![cond("temp", "=", "hot")], vec![]),
        1 => "not json at all".into(),
        2 => proposal(vec![cond("temp", "=", "45")], vec![cond("mode", "=", "42")]),
        _ => good(),
    });
    let r = qa::run(&s, &[hot()], &c, &z3(), &opts(&[FeedbackMode::Generic], 5)).unwrap();
    let run = &r.runs[0];
    assert_eq!(run.accepted_at, Some(3));
    for a in &run.attempts[..3] {
        assert!(matches!(a.check, Check::Unusable { .. }), "{:?}", a.check);
        assert!(a
            .feedback
            .as_ref()
            .unwrap()
            .starts_with("Your answer could not be used"));
    }
    let Check::Unusable { problem } = &run.attempts[0].check else {
        unreachable!()
    };
    assert!(problem.contains("`hot`"), "{problem}");
}

#[test]
fn conditions_become_typed_terms() {
    let s = spec();
    let t = |v: &str, op: &str, val: &str| {
        qa::condition_term(
            &s,
            &qa::Condition {
                variable: v.into(),
                op: op.into(),
                value: val.into(),
            },
        )
        .map(|t| logic::print::term(&t))
    };
    assert_eq!(t("temp", ">=", "-2.5").unwrap(), "(>= temp (- 2.5))");
    assert_eq!(t("temp", "<", "1/3").unwrap(), "(< temp (/ 1.0 3.0))");
    assert_eq!(t("heater", "!=", "TRUE").unwrap(), "(not (= heater true))");
    assert_eq!(t("mode", "=", "Service").unwrap(), "(= mode Service)");
    assert!(t("temp", "=", "heater")
        .unwrap_err()
        .contains("not well-typed"));
    assert!(t("pressure", "=", "1")
        .unwrap_err()
        .contains("not a variable"));
    assert!(t("temp", "=", "1) (check-sat").is_err());
    assert!(t("temp", "=>", "1").is_err());
}

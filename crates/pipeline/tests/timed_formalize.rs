//! Timed requirements and the model: pattern answers read by the spec reader's checks and
//! repaired with its exact errors, ambiguity over time (trace equivalence) and the
//! questions of time, driven by scripted answers with real solvers.

use llm::{Cache, Client, Request, Response, Scripted};
use logic::SourceFile;
use pipeline::ambiguity::AmbiguityOptions;
use pipeline::clarify::{apply, ClarifyOptions};
use pipeline::formalize::{formalize, formalized_spec, FormalizeOptions};
use pipeline::timed::{answer_schema, clarify_timed, screen_timed};
use reqs::timed::{Timing, Trigger};
use reqs::Spec;
use serde_json::{json, Value};
use solver::{SolverConfig, SolverKind};
use std::sync::{Arc, Mutex};

const SPEC: &str = r#"
[spec]
name = "pump"

[time]
tick = "1 s"

[time.durations]
NO_FLOW_LIMIT = "3 s"

[[variables]]
name = "no_flow"
sort = "Bool"
description = "no flow is detected"
role = "input"

[[variables]]
name = "pump_on"
sort = "Bool"
description = "the blood pump runs"
role = "output"

[[variables]]
name = "alarm"
sort = "Bool"
description = "the alarm sounds"
role = "output"

[[variables]]
name = "pressure"
sort = "Int"
unit = "mmHg"
min = 0
max = 500
role = "input"

[[requirements]]
id = "R1"
text = "If no flow is detected for 3 seconds, the blood pump shall stop."

[[requirements]]
id = "R2"
text = "When no flow is detected, the alarm shall sound within 2 seconds."

[[requirements]]
id = "R3"
text = "The pressure shall stay at most 450 mmHg while the pump runs."
formula = "(=> pump_on (<= pressure 450))"

[[requirements]]
id = "R4"
text = "Once the alarm sounds, the pump shall be stopped at the next step."
[requirements.timed]
when = "alarm"
then = "(not pump_on)"
next = true
"#;

fn spec() -> Spec {
    reqs::parse_spec(SourceFile::new("pump.toml", SPEC)).unwrap_or_else(|d| panic!("{d}"))
}

fn client(f: impl Fn(&Request, usize) -> llm::Result<Response> + Send + Sync + 'static) -> Client {
    Client::builder(Scripted::from_fn(f))
        .cache(Cache::in_memory().unwrap())
        .concurrency(1)
        .build()
}

fn z3() -> SolverConfig {
    SolverConfig::new(SolverKind::Z3)
}

fn only(ids: &[&str]) -> Option<Vec<String>> {
    Some(ids.iter().map(|s| s.to_string()).collect())
}

/// A pattern answer: every key of the schema, null where not given.
fn answer(pairs: &[(&str, Value)]) -> String {
    let mut m = serde_json::Map::new();
    for k in reqs::timed::answer::KEYS {
        m.insert(k.to_string(), Value::Null);
    }
    for (k, v) in pairs {
        m.insert(k.to_string(), v.clone());
    }
    Value::Object(m).to_string()
}

fn last_user(r: &Request) -> String {
    r.messages
        .last()
        .map(|m| m.content.clone())
        .unwrap_or_default()
}

fn text_of(r: &Request) -> String {
    r.messages
        .first()
        .map(|m| m.content.clone())
        .unwrap_or_default()
}

#[test]
fn a_correct_pattern_answer_is_accepted_and_written_as_a_timed_table() {
    let s = spec();
    let seen: Arc<Mutex<Vec<Request>>> = Arc::default();
    let log = seen.clone();
    let c = client(move |r, _| {
        log.lock().unwrap().push(r.clone());
        let t = text_of(r);
        Ok(Response::text(if t.contains("for 3 seconds") {
            answer(&[
                ("if", json!("no_flow")),
                ("held_for", json!("NO_FLOW_LIMIT")),
                ("then", json!("(not pump_on)")),
            ])
        } else {
            answer(&[
                ("when", json!("no_flow")),
                ("then", json!("alarm")),
                ("within", json!("2 s")),
            ])
        }))
    });
    let rep = formalize(&s, &c, &z3(), &FormalizeOptions::default()).unwrap();
    // R3 has a formula and R4 a pattern: both kept, not asked.
    assert_eq!(rep.kept, vec!["R3".to_string(), "R4".to_string()]);
    assert_eq!(rep.requirements.len(), 2);
    assert_eq!((rep.first_attempt, rep.after_repair), (2, 0));
    assert!(rep.failed.is_empty());
    let r1 = &rep.requirements[0];
    assert!(matches!(
        r1.timed.as_ref().unwrap().trigger,
        Trigger::HeldFor(_, 3)
    ));
    assert_eq!(r1.provenance.prompt, "formalize-timed@v1");
    assert_eq!(
        r1.pattern.as_ref().unwrap(),
        &json!({"if": "no_flow", "held_for": "3 s", "then": "(not pump_on)"})
    );
    let r2 = &rep.requirements[1];
    assert_eq!(r2.timed.as_ref().unwrap().timing, Timing::Within(2));
    // Every request carried the pattern schema and the tick.
    for r in seen.lock().unwrap().iter() {
        assert_eq!(r.schema.as_ref().unwrap().schema, answer_schema());
        assert!(text_of(r).contains("The time step (tick) is 1 s"));
        assert!(text_of(r).contains("NO_FLOW_LIMIT = 3 s"));
    }
    // The written spec loads, keeps R3's formula and R4's pattern, and audits.
    let text = formalized_spec(&s, &rep);
    insta::assert_snapshot!("formalized_timed_spec", text);
    let back = reqs::parse_spec(SourceFile::new("out.toml", text.clone()))
        .unwrap_or_else(|d| panic!("{d}\n{text}"));
    assert_eq!(back.requirements[0].timed, r1.timed);
    assert_eq!(back.requirements[1].timed, r2.timed);
    assert!(back.requirements[2].formula.is_some());
    assert_eq!(back.requirements[3].timed, s.requirements[3].timed);
    assert_eq!(back.time, s.time);
    let mut a = reqs::AuditOptions::new(z3());
    a.jobs = 1;
    let o = reqs::timed::audit::TimedOptions {
        audit: a,
        horizon: None,
        rt_horizon: None,
        no_rt: true,
    };
    let audit = reqs::timed::audit::audit_timed(&back, &o).unwrap();
    assert!(matches!(
        audit.consistency,
        reqs::timed::audit::TimedConsistency::Consistent { .. }
    ));
}

/// Each broken answer is repaired through the loop, and the repair turn carries the
/// spec reader's exact error.
#[test]
fn broken_answers_are_repaired_with_the_exact_error() {
    let cases: Vec<(Value, &str)> = vec![
        (
            json!({"if": "no_flow", "when": "no_flow", "held_for": "3 s", "then": "(not pump_on)"}),
            "a timed requirement has at most one trigger: `if` and `when` are given",
        ),
        (
            json!({"if": "no_flow", "held_for": "1.5 s", "then": "(not pump_on)"}),
            "`1.5 s` is not a whole number of ticks (the tick is 1 s): 1.5 ticks",
        ),
        (
            json!({"then": "(always (=> no_flow (not pump_on)))"}),
            "unknown function `always`",
        ),
        (
            json!({"if": "flow_lost", "held_for": "3 s", "then": "(not pump_on)"}),
            "flow_lost",
        ),
    ];
    for (broken, error) in cases {
        let s = spec();
        let seen: Arc<Mutex<Vec<Request>>> = Arc::default();
        let log = seen.clone();
        let bad = broken.clone();
        let c = client(move |r, _| {
            log.lock().unwrap().push(r.clone());
            let mut pairs: Vec<(&str, Value)> = Vec::new();
            let attempt = r.messages.len().div_ceil(2);
            let text = if attempt == 1 {
                let mut m = serde_json::Map::new();
                for k in reqs::timed::answer::KEYS {
                    m.insert(k.to_string(), Value::Null);
                }
                for (k, v) in bad.as_object().unwrap() {
                    m.insert(k.clone(), v.clone());
                }
                Value::Object(m).to_string()
            } else {
                pairs.push(("if", json!("no_flow")));
                pairs.push(("held_for", json!("3 s")));
                pairs.push(("then", json!("(not pump_on)")));
                answer(&pairs)
            };
            Ok(Response::text(text))
        });
        let o = FormalizeOptions {
            only: only(&["R1"]),
            ..Default::default()
        };
        let rep = formalize(&s, &c, &z3(), &o).unwrap();
        let f = &rep.requirements[0];
        assert!(f.timed.is_some(), "{broken}: {:?}", f.attempts);
        assert_eq!(f.attempts.len(), 2, "{broken}");
        let e = f.attempts[0].error.as_deref().unwrap();
        assert!(e.contains(error), "{broken}: {e}");
        let reqs = seen.lock().unwrap();
        assert_eq!(reqs.len(), 2);
        let repair = last_user(&reqs[1]);
        assert!(repair.contains(error), "{repair}");
        assert!(repair.contains("Answer again with the JSON object alone"));
        if error.contains("always") {
            assert!(
                repair.contains("there are no temporal operators"),
                "{repair}"
            );
        }
    }
}

#[test]
fn the_repair_turn_of_a_broken_answer() {
    let s = spec();
    let seen: Arc<Mutex<Vec<Request>>> = Arc::default();
    let log = seen.clone();
    let c = client(move |r, n| {
        log.lock().unwrap().push(r.clone());
        Ok(Response::text(if n == 0 {
            answer(&[
                ("if", json!("no_flow")),
                ("when", json!("no_flow")),
                ("held_for", json!("1.5 s")),
                ("then", json!("(always (not pump_on))")),
            ])
        } else {
            answer(&[
                ("if", json!("no_flow")),
                ("held_for", json!("3 s")),
                ("then", json!("(not pump_on)")),
            ])
        }))
    });
    let o = FormalizeOptions {
        only: only(&["R1"]),
        ..Default::default()
    };
    formalize(&s, &c, &z3(), &o).unwrap();
    let reqs = seen.lock().unwrap();
    insta::assert_snapshot!("timed_repair_turn", last_user(&reqs[1]));
}

#[test]
fn a_requirement_never_fixed_is_reported_not_dropped() {
    let s = spec();
    // A different broken duration each time: 0.5 s, 1.5 s, 2.5 s.
    let c = client(|_, n| {
        Ok(Response::text(answer(&[
            ("if", json!("no_flow")),
            ("held_for", json!(format!("{n}.5 s"))),
            ("then", json!("(not pump_on)")),
        ])))
    });
    let o = FormalizeOptions {
        only: only(&["R1"]),
        max_retries: 2,
        ..Default::default()
    };
    let rep = formalize(&s, &c, &z3(), &o).unwrap();
    assert_eq!(rep.failed, vec!["R1".to_string()]);
    let f = &rep.requirements[0];
    assert_eq!(f.attempts.len(), 3);
    assert!(f.timed.is_none() && f.pattern.is_none());
    let text = formalized_spec(&s, &rep);
    assert!(
        text.contains(
            "# NOT FORMALIZED: answer:3:12: error: `2.5 s` is not a whole number of ticks"
        ),
        "{text}"
    );
    let back = reqs::parse_spec(SourceFile::new("out.toml", text.clone()))
        .unwrap_or_else(|d| panic!("{d}\n{text}"));
    let r1 = back.requirements.iter().find(|r| r.id == "R1").unwrap();
    assert!(r1.timed.is_none() && r1.formula.is_none());
}

/// An answer that is not JSON, or a value of the wrong type, is an answer problem
/// the loop repairs like any other.
#[test]
fn a_non_json_answer_is_repaired() {
    let s = spec();
    let c = client(|r, _| {
        let attempt = r.messages.len().div_ceil(2);
        Ok(Response::text(match attempt {
            1 => "(always (=> no_flow (not pump_on)))".to_string(),
            2 => answer(&[("then", json!(5))]),
            _ => answer(&[
                ("if", json!("no_flow")),
                ("held_for", json!("3 s")),
                ("then", json!("(not pump_on)")),
            ]),
        }))
    });
    let o = FormalizeOptions {
        only: only(&["R1"]),
        ..Default::default()
    };
    let rep = formalize(&s, &c, &z3(), &o).unwrap();
    let f = &rep.requirements[0];
    assert!(f.timed.is_some(), "{:?}", f.attempts);
    assert_eq!(f.attempts.len(), 3);
}

/// A plain requirement asked again in a timed spec keeps the formula path.
#[test]
fn a_plain_requirement_keeps_the_formula_path() {
    let s = spec();
    let c = client(|r, _| {
        assert!(
            r.schema.is_none(),
            "a formula request has no pattern schema"
        );
        Ok(Response::text("(=> pump_on (<= pressure 450))"))
    });
    let o = FormalizeOptions {
        only: only(&["R3"]),
        reformalize: vec!["R3".into()],
        ..Default::default()
    };
    let rep = formalize(&s, &c, &z3(), &o).unwrap();
    assert_eq!(
        rep.requirements[0].formula.as_deref(),
        Some("(=> pump_on (<= pressure 450))")
    );
    assert!(rep.requirements[0].timed.is_none());
}

fn edge_or_level(r: &Request) -> String {
    // Samples 0, 1 and 3: edge; 2 and 4: level (and one `held_for 0 s`, the same).
    match r.sample {
        0 | 1 => answer(&[("when", json!("no_flow")), ("then", json!("alarm"))]),
        3 => answer(&[("when", json!("no_flow")), ("then", json!("alarm"))]),
        2 => answer(&[("if", json!("no_flow")), ("then", json!("alarm"))]),
        _ => answer(&[
            ("if", json!("no_flow")),
            ("held_for", json!("0 s")),
            ("then", json!("alarm")),
        ]),
    }
}

const R5: &str = r#"
[[requirements]]
id = "R5"
text = "If no flow is detected, the alarm shall sound."
"#;

#[test]
fn edge_and_level_readings_are_two_classes_with_a_question_about_both() {
    let s = reqs::parse_spec(SourceFile::new("pump.toml", format!("{SPEC}{R5}"))).unwrap();
    for kind in [SolverKind::Z3, SolverKind::Cvc5] {
        let c = client(|r, _| Ok(Response::text(edge_or_level(r))));
        let o = AmbiguityOptions {
            only: only(&["R5"]),
            ..Default::default()
        };
        let rep = screen_timed(&s, &c, &SolverConfig::new(kind), &o).unwrap();
        let r = &rep.requirements[0];
        assert_eq!(r.valid, 5, "{kind}");
        assert!(r.flagged, "{kind}");
        assert_eq!(r.classes.len(), 2, "{kind}");
        assert_eq!(r.classes[0].members, vec![0, 1, 3]);
        assert_eq!(r.classes[1].members, vec![2, 4]);
        let q = &r.questions[0];
        assert_eq!(q.kinds, vec!["edge-or-level".to_string()]);
        assert!(
            q.question.contains("once no_flow becomes true"),
            "{}",
            q.question
        );
        assert!(
            q.question.contains("whenever no_flow holds"),
            "{}",
            q.question
        );
        assert_eq!(q.holds, "A");
        if kind == SolverKind::Z3 {
            insta::assert_snapshot!("edge_or_level_question", q.question);
        }
    }
}

#[test]
fn a_strict_bound_is_asked_about() {
    let s = reqs::parse_spec(SourceFile::new("pump.toml", SPEC)).unwrap();
    let c = client(|r, _| {
        Ok(Response::text(match r.sample {
            0 => answer(&[
                ("when", json!("no_flow")),
                ("then", json!("alarm")),
                ("within", json!("2 s")),
            ]),
            _ => answer(&[
                ("when", json!("no_flow")),
                ("then", json!("alarm")),
                ("within", json!("1 s")),
            ]),
        }))
    });
    let o = AmbiguityOptions {
        only: only(&["R2"]),
        samples: 2,
        ..Default::default()
    };
    let rep = screen_timed(&s, &c, &z3(), &o).unwrap();
    let q = &rep.requirements[0].questions[0];
    assert_eq!(q.kinds, vec!["strict-bound".to_string()]);
    insta::assert_snapshot!("strict_bound_question", q.question);
}

/// The clarification loop on a timed requirement: the prompt carries the question and
/// its timing table; the rewrite is screened again, converges, and its pattern is
/// applied to a new spec that loads.
#[test]
fn clarification_converges_and_applies_the_pattern() {
    let s = reqs::parse_spec(SourceFile::new("pump.toml", format!("{SPEC}{R5}"))).unwrap();
    let prompts: Arc<Mutex<Vec<String>>> = Arc::default();
    let log = prompts.clone();
    let c = client(move |r, _| {
        let first = text_of(r);
        if first.contains("Rewrite the requirement text") {
            log.lock().unwrap().push(first.clone());
            return Ok(Response::text(
                "Once no flow becomes detected, the alarm shall sound at that moment.",
            ));
        }
        if first.contains("Once no flow becomes detected") {
            return Ok(Response::text(answer(&[
                ("when", json!("no_flow")),
                ("then", json!("alarm")),
            ])));
        }
        Ok(Response::text(edge_or_level(r)))
    });
    let o = ClarifyOptions {
        screening: AmbiguityOptions {
            only: only(&["R5"]),
            ..Default::default()
        },
        ..Default::default()
    };
    let rep = clarify_timed(&s, &c, &z3(), &o, None).unwrap();
    let p = &rep.proposals[0];
    assert!(p.converged, "{p:?}");
    assert_eq!((p.classes_before, p.classes_after), (2, 1));
    assert_eq!(
        p.pattern.as_ref().unwrap(),
        &json!({"when": "no_flow", "then": "alarm"})
    );
    let sent = prompts.lock().unwrap();
    assert!(sent[0].contains("once no_flow becomes true"), "{}", sent[0]);
    assert!(sent[0].contains("0 s to 1 s"), "{}", sent[0]);
    insta::assert_snapshot!("timed_clarify_prompt", sent[0]);
    let (text, changed) = apply(&s, &rep.proposals);
    assert_eq!(changed, vec!["R5".to_string()]);
    let back = reqs::parse_spec(SourceFile::new("out.toml", text.clone()))
        .unwrap_or_else(|d| panic!("{d}\n{text}"));
    let r5 = back.requirements.iter().find(|r| r.id == "R5").unwrap();
    assert!(matches!(
        r5.timed.as_ref().unwrap().trigger,
        Trigger::Edge(_)
    ));
    assert!(r5.formula.is_none());
}

/// The same rejected answer twice is answered with a fresh sample at a higher
/// temperature; a third time ends the requirement's turns.
#[test]
fn a_repeated_answer_is_resampled_once_then_stops() {
    let s = spec();
    let seen: Arc<Mutex<Vec<Request>>> = Arc::default();
    let log = seen.clone();
    let c = client(move |r, _| {
        log.lock().unwrap().push(r.clone());
        Ok(Response::text(answer(&[
            ("if", json!("no_flow")),
            ("held_for", json!("1.5 s")),
            ("then", json!("(not pump_on)")),
        ])))
    });
    let o = FormalizeOptions {
        only: only(&["R1"]),
        ..Default::default()
    };
    let rep = formalize(&s, &c, &z3(), &o).unwrap();
    assert_eq!(rep.failed, vec!["R1".to_string()]);
    let f = &rep.requirements[0];
    assert_eq!(f.attempts.len(), 3);
    let last = f.attempts[2].error.as_deref().unwrap();
    assert!(
        last.starts_with("stopped: the model repeated a rejected answer again"),
        "{last}"
    );
    let reqs = seen.lock().unwrap();
    assert_eq!(reqs.len(), 3);
    assert!(last_user(&reqs[2]).contains("This is the same answer as before"));
    assert_eq!(reqs[2].temperature, Some(0.7));
    assert_eq!(reqs[2].sample, 1);
}

/// The kinds of question, from the structure of two patterns (no solver needed).
#[test]
fn questions_follow_the_structure_of_the_difference() {
    use reqs::timed::answer::{parse_pattern, KeyValue};
    let s = spec();
    let tb = s.time.clone().unwrap();
    let p = |pairs: &[(&str, &str)]| {
        let keys: Vec<(String, KeyValue)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), KeyValue::Text(v.to_string())))
            .collect();
        parse_pattern(&s, &keys).unwrap_or_else(|d| panic!("{d}"))
    };
    let kinds =
        |a: &[(&str, &str)], b: &[(&str, &str)]| pipeline::timed::differences(&p(a), &p(b), &tb);
    let (k, q) = kinds(
        &[("if", "no_flow"), ("held_for", "3 s"), ("then", "alarm")],
        &[("if", "no_flow"), ("then", "alarm")],
    );
    assert_eq!(k, vec!["held-for"]);
    assert!(q[0].contains("have held for 3 s"), "{q:?}");
    let (k, _) = kinds(
        &[("if", "no_flow"), ("held_for", "3 s"), ("then", "alarm")],
        &[("if", "no_flow"), ("held_for", "4 s"), ("then", "alarm")],
    );
    assert_eq!(k, vec!["strict-bound"]);
    let (k, _) = kinds(
        &[("then", "alarm"), ("not_before", "2 s")],
        &[("then", "alarm"), ("not_before", "3 s")],
    );
    assert_eq!(k, vec!["strict-bound"]);
    let (k, _) = kinds(
        &[("when", "no_flow"), ("then", "alarm"), ("within", "2 s")],
        &[("when", "no_flow"), ("then", "alarm"), ("within", "10 s")],
    );
    assert_eq!(k, vec!["duration"]);
    let (k, q) = kinds(
        &[
            ("scope_while", "pump_on"),
            ("when", "no_flow"),
            ("then", "alarm"),
            ("within", "2 s"),
        ],
        &[("when", "no_flow"), ("then", "alarm"), ("within", "2 s")],
    );
    assert_eq!(k, vec!["scope", "scope-end"]);
    assert!(q[0].contains("only while pump_on holds"), "{q:?}");
    assert!(q[1].contains("scope ends"), "{q:?}");
    let (k, _) = kinds(
        &[("when", "no_flow"), ("then", "alarm")],
        &[("when", "no_flow"), ("then", "alarm"), ("for", "2 s")],
    );
    assert_eq!(k, vec!["timing"]);
    let (k, q) = kinds(
        &[("when", "no_flow"), ("then", "alarm")],
        &[("when", "no_flow"), ("then", "(not pump_on)")],
    );
    assert_eq!(k, vec!["response"]);
    assert!(q[0].contains("alarm or (not pump_on)"), "{q:?}");
    // Within the scope, the response cut when the scope ends against running on.
    let (k, q) = kinds(
        &[
            ("scope_while", "pump_on"),
            ("when", "no_flow"),
            ("then", "alarm"),
            ("within", "2 s"),
        ],
        &[
            ("scope_while", "pump_on"),
            ("when", "no_flow"),
            ("then", "(or alarm (not pump_on))"),
            ("within", "2 s"),
        ],
    );
    assert_eq!(k, vec!["scope-end"]);
    assert!(
        q[0].contains("If the scope ends ((not pump_on) holds) while alarm is still due"),
        "{q:?}"
    );
}

/// Running past the scope's end against being cut by it: two readings on traces, and
/// the question about the scope's end.
#[test]
fn the_end_of_a_scope_is_asked_about() {
    let s = reqs::parse_spec(SourceFile::new(
        "pump.toml",
        format!(
            "{SPEC}\n[[requirements]]\nid = \"R6\"\ntext = \"While the blood pump runs, when no flow is detected, the alarm shall sound within 2 seconds.\"\n"
        ),
    ))
    .unwrap();
    let c = client(|r, _| {
        Ok(Response::text(match r.sample {
            0 => answer(&[
                ("scope_while", json!("pump_on")),
                ("when", json!("no_flow")),
                ("then", json!("alarm")),
                ("within", json!("2 s")),
            ]),
            _ => answer(&[
                ("scope_while", json!("pump_on")),
                ("when", json!("no_flow")),
                ("then", json!("(or alarm (not pump_on))")),
                ("within", json!("2 s")),
            ]),
        }))
    });
    let o = AmbiguityOptions {
        only: only(&["R6"]),
        samples: 2,
        ..Default::default()
    };
    let rep = screen_timed(&s, &c, &z3(), &o).unwrap();
    let r = &rep.requirements[0];
    assert_eq!(r.classes.len(), 2);
    let q = &r.questions[0];
    assert_eq!(q.kinds, vec!["scope-end".to_string()]);
    // The reading that cuts the obligation holds: the pump stops before the alarm.
    assert_eq!(q.holds, "B");
    insta::assert_snapshot!("scope_end_question", q.question);
}

fn pattern_value(pairs: &[(&str, Value)]) -> Value {
    serde_json::from_str(&answer(pairs)).unwrap()
}

/// Batch mode: one request for every timed requirement, one repair turn that lists
/// the exact error of each pattern that failed.
#[test]
fn batch_mode_repairs_the_patterns_that_failed() {
    let s = spec();
    let seen: Arc<Mutex<Vec<Request>>> = Arc::default();
    let log = seen.clone();
    let c = client(move |r, n| {
        log.lock().unwrap().push(r.clone());
        let good_r1 = pattern_value(&[
            ("if", json!("no_flow")),
            ("held_for", json!("3 s")),
            ("then", json!("(not pump_on)")),
        ]);
        let r2 = pattern_value(&[
            ("when", json!("no_flow")),
            ("then", json!("alarm")),
            ("within", json!("2 s")),
        ]);
        Ok(Response::text(if n == 0 {
            let bad_r1 = pattern_value(&[
                ("if", json!("no_flow")),
                ("held_for", json!("1.5 s")),
                ("then", json!("(not pump_on)")),
            ]);
            json!({"R1": bad_r1, "R2": r2}).to_string()
        } else {
            json!({ "R1": good_r1 }).to_string()
        }))
    });
    let o = FormalizeOptions {
        mode: pipeline::formalize::Mode::Batch,
        ..Default::default()
    };
    let rep = formalize(&s, &c, &z3(), &o).unwrap();
    assert!(rep.failed.is_empty(), "{:?}", rep.requirements);
    assert_eq!((rep.first_attempt, rep.after_repair), (1, 1));
    assert_eq!(
        rep.requirements[0].provenance.prompt,
        "formalize-timed-batch@v1"
    );
    let reqs = seen.lock().unwrap();
    assert_eq!(reqs.len(), 2);
    assert!(text_of(&reqs[0]).contains("- R1: If no flow is detected for 3 seconds"));
    assert!(text_of(&reqs[0]).contains("- R2: When no flow is detected"));
    let repair = last_user(&reqs[1]);
    assert!(
        repair.contains("- R1: answer:3:12: error: `1.5 s` is not a whole number of ticks"),
        "{repair}"
    );
    assert!(repair.ends_with("R1\n"), "{repair}");
    // The second request asks for R1 only.
    let schema = &reqs[1].schema.as_ref().unwrap().schema;
    assert_eq!(schema["required"], json!(["R1"]));
}

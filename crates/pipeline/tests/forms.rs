//! The form path of `vera formalize` driven by scripted answers, with real solvers:
//! forms read and repaired, the vote (majority, tie, below the threshold, nothing
//! valid), the SMT-LIB fallback, and what the requests carry.

mod common;

use common::scripted as client;
use llm::{Client, Request, Response};
use logic::SourceFile;
use pipeline::formalize::{formalize, formalized_spec, FormalizeOptions};
use pipeline::formpath::Path;
use reqs::Spec;
use solver::{SolverConfig, SolverKind};
use std::sync::{Arc, Mutex};

const SPEC: &str = r#"
[spec]
name = "t"

[[enums]]
name = "Mode"
values = ["Stopped", "Basal", "KVO"]

[[variables]]
name = "temp"
sort = "Real"
unit = "degC"
min = 20
max = 45
description = "the temperature"

[[variables]]
name = "alarm"
sort = "Bool"
description = "the alarm sounds"

[[variables]]
name = "mode"
sort = "Mode"
description = "the pumping mode"

[[requirements]]
id = "R1"
text = "If the temperature exceeds 38 degC the alarm shall sound."

[[requirements]]
id = "R2"
text = "In KVO mode the alarm shall not sound."
formula = "(=> (= mode KVO) (not alarm))"
"#;

fn spec() -> Spec {
    reqs::parse_spec(SourceFile::new("t.toml", SPEC)).unwrap_or_else(|d| panic!("{d}"))
}

/// Forms for R1 (the controlled-English parser is off: these tests are about the vote).
fn options() -> FormalizeOptions {
    FormalizeOptions {
        only: Some(vec!["R1".into()]),
        parse: false,
        ..FormalizeOptions::default()
    }
}

const RIGHT: &str = r#"{"if": {"name": "temp", "op": ">", "value": 38}, "then": {"name": "alarm", "op": "is", "value": true}}"#;
/// The same meaning, written as a prohibition.
const RIGHT_AS_NEVER: &str = r#"{"never": {"all": [{"name": "temp", "op": ">", "value": 38, "unit": "degC"}, {"name": "alarm", "op": "is", "value": false}]}}"#;
/// A boundary error.
const AT_LEAST: &str = r#"{"if": {"name": "temp", "op": ">=", "value": 38}, "then": {"name": "alarm", "op": "is", "value": true}}"#;
/// Another reading.
const ABOVE_40: &str = r#"{"if": {"name": "temp", "op": ">", "value": 40}, "then": {"name": "alarm", "op": "is", "value": true}}"#;
const OTHER: &str = r#"{"if": {"name": "temp", "op": ">", "value": 30}, "then": {"name": "alarm", "op": "is", "value": true}}"#;
/// Valid JSON under the schema, but in the wrong unit.
const WRONG_UNIT: &str = r#"{"if": {"name": "temp", "op": ">", "value": 311, "unit": "K"}, "then": {"name": "alarm", "op": "is", "value": true}}"#;

fn is_form_request(r: &Request) -> bool {
    r.schema
        .as_ref()
        .is_some_and(|s| s.name == "requirement_form")
}

/// Answers form requests by sample index from `by_sample`; SMT-LIB requests with `term`.
fn by_sample(by_sample: &'static [&'static str], term: &'static str) -> Client {
    client(move |r, _| {
        if is_form_request(r) {
            let k = r.sample as usize;
            Ok(Response::text(by_sample[k.min(by_sample.len() - 1)]))
        } else {
            Ok(Response::text(term))
        }
    })
}

fn z3() -> SolverConfig {
    SolverConfig::new(SolverKind::Z3)
}

#[test]
fn a_majority_of_equivalent_forms_wins_and_sampling_stops_when_decided() {
    let s = spec();
    // Two ways of writing the same rule agree with each other; the boundary error is
    // outvoted.
    let c = by_sample(
        &[RIGHT, AT_LEAST, RIGHT_AS_NEVER, RIGHT, ABOVE_40],
        "unused",
    );
    for solver in [z3(), SolverConfig::new(SolverKind::Cvc5)] {
        let rep = formalize(&s, &c, &solver, &options()).unwrap();
        let f = &rep.requirements[0];
        assert_eq!(f.path, Some(Path::Form));
        assert_eq!(f.formula.as_deref(), Some("(=> (> temp 38.0) alarm)"));
        let v = f.vote.as_ref().unwrap();
        // 3 of 4 agree after four samples: 3 >= 0.6 * (4 + 1), so the fifth is not drawn.
        assert_eq!((v.samples, v.valid, v.agreeing), (4, 4, 3), "{v:?}");
        assert_eq!(v.readings.len(), 2);
        assert_eq!(v.readings[1].formula, "(=> (>= temp 38.0) alarm)");
        assert!(!f.flagged);
        assert_eq!(rep.by_path.form, 1);
        assert!(rep.failed.is_empty() && rep.flagged.is_empty());
    }
}

#[test]
fn a_tie_is_flagged_with_both_readings_and_no_formula() {
    let s = spec();
    let c = by_sample(
        &[RIGHT, AT_LEAST, RIGHT, AT_LEAST, "{\"shape\": 1}"],
        "unused",
    );
    let mut o = options();
    o.max_retries = 0;
    let rep = formalize(&s, &c, &z3(), &o).unwrap();
    let f = &rep.requirements[0];
    assert!(f.flagged, "{f:?}");
    assert!(f.formula.is_none());
    let v = f.vote.as_ref().unwrap();
    assert_eq!((v.samples, v.valid, v.agreeing), (5, 4, 2));
    assert_eq!(v.readings.len(), 2);
    assert_eq!(rep.flagged, vec!["R1".to_string()]);
    assert!(rep.failed.is_empty());
    // The written spec has no formula for R1, and the readings for a person.
    let text = formalized_spec(&s, &rep);
    assert!(text.contains("FLAGGED FOR REVIEW"), "{text}");
    assert!(
        text.contains("reading A (2 of 4): (=> (> temp 38.0) alarm)"),
        "{text}"
    );
    assert!(
        text.contains("reading B (2 of 4): (=> (>= temp 38.0) alarm)"),
        "{text}"
    );
    let back = reqs::parse_spec(SourceFile::new("out.toml", text)).unwrap();
    assert!(back.requirements[0].formula.is_none());
}

#[test]
fn below_the_threshold_is_flagged() {
    let s = spec();
    let c = by_sample(&[RIGHT, AT_LEAST, ABOVE_40, OTHER, RIGHT], "unused");
    let rep = formalize(&s, &c, &z3(), &options()).unwrap();
    let f = &rep.requirements[0];
    let v = f.vote.as_ref().unwrap();
    assert_eq!((v.valid, v.agreeing), (5, 2));
    assert!(f.flagged && f.formula.is_none());
    // A lower threshold does not let two of five decide either: a majority of the
    // answers asked for is needed.
    let mut o = options();
    o.vote.threshold = 0.4;
    let rep = formalize(&s, &c, &z3(), &o).unwrap();
    assert!(rep.requirements[0].flagged);
    // Three of five at 0.6 decide.
    let c = by_sample(&[RIGHT, AT_LEAST, RIGHT, OTHER, RIGHT], "unused");
    let rep = formalize(&s, &c, &z3(), &options()).unwrap();
    assert_eq!(
        rep.requirements[0].formula.as_deref(),
        Some("(=> (> temp 38.0) alarm)")
    );
}

#[test]
fn two_agreeing_answers_are_not_a_majority_when_the_rest_are_unusable() {
    let s = spec();
    // Two valid answers that agree, three that are not forms: 2 of 2 valid, but not a
    // majority of the five asked for.
    const BAD: &str = r#"{"if": {"name": "temp", "op": "is", "value": true}, "then": {"name": "alarm", "op": "is", "value": true}}"#;
    let c = by_sample(&[RIGHT, BAD, RIGHT_AS_NEVER, BAD, BAD], "unused");
    let mut o = options();
    o.max_retries = 0;
    let rep = formalize(&s, &c, &z3(), &o).unwrap();
    let f = &rep.requirements[0];
    let v = f.vote.as_ref().unwrap();
    assert_eq!((v.samples, v.valid, v.agreeing), (5, 2, 2));
    assert!(f.flagged && f.formula.is_none(), "{f:?}");
}

#[test]
fn a_form_in_the_wrong_unit_is_repaired_with_the_exact_error() {
    let s = spec();
    let seen = Arc::new(Mutex::new(Vec::<String>::new()));
    let log = seen.clone();
    let c = client(move |r, _| {
        assert!(is_form_request(r));
        let last = &r.messages.last().unwrap().content;
        log.lock().unwrap().push(last.clone());
        // The first turn of each sample answers in kelvin; the repair turn is right.
        Ok(Response::text(if r.messages.len() == 1 {
            WRONG_UNIT
        } else {
            RIGHT
        }))
    });
    let mut o = options();
    o.vote.samples = 2;
    let rep = formalize(&s, &c, &z3(), &o).unwrap();
    let f = &rep.requirements[0];
    assert_eq!(f.formula.as_deref(), Some("(=> (> temp 38.0) alarm)"));
    assert_eq!(f.vote.as_ref().unwrap().valid, 2);
    let seen = seen.lock().unwrap();
    let repair = seen.iter().find(|m| m.contains("cannot be used")).unwrap();
    assert!(
        repair.contains("`if.unit`: `temp` is in degC, not \"K\""),
        "{repair}"
    );
    // Each sample's conversation: first turn, then one repair.
    assert_eq!(f.attempts.len(), 4);
    assert_eq!(rep.after_repair, 1);
}

#[test]
fn when_no_form_is_valid_the_smtlib_path_takes_over() {
    let s = spec();
    // Every form names a value Mode does not have; the SMT-LIB answer is right.
    let c = client(|r, _| {
        Ok(Response::text(if is_form_request(r) {
            r#"{"always": {"name": "mode", "op": "is", "value": "Running"}}"#
        } else {
            "(=> (> temp 38) alarm)"
        }))
    });
    let mut o = options();
    o.vote.samples = 2;
    o.max_retries = 1;
    let rep = formalize(&s, &c, &z3(), &o).unwrap();
    let f = &rep.requirements[0];
    assert_eq!(f.path, Some(Path::Smtlib));
    assert_eq!(f.formula.as_deref(), Some("(=> (> temp 38.0) alarm)"));
    assert!(f.vote.is_none());
    assert!(f.attempts[0]
        .error
        .as_deref()
        .unwrap()
        .contains("its values are Stopped, Basal, KVO"));
    assert_eq!(rep.by_path.smtlib, 1);
}

#[test]
fn nothing_valid_anywhere_fails_and_says_why() {
    let s = spec();
    let c = client(|r, _| {
        Ok(Response::text(if is_form_request(r) {
            r#"{"always": {"name": "alarm", "op": "is", "value": true}, "then": {"name": "alarm", "op": "is", "value": true}}"#
        } else {
            "the alarm sounds when it is hot"
        }))
    });
    let mut o = options();
    o.vote.samples = 2;
    o.max_retries = 1;
    o.decompose = false;
    let rep = formalize(&s, &c, &z3(), &o).unwrap();
    assert_eq!(rep.failed, vec!["R1".to_string()]);
    let f = &rep.requirements[0];
    assert!(f.formula.is_none() && !f.flagged);
    assert!(f.attempts[0]
        .error
        .as_deref()
        .unwrap()
        .contains("has no field `then`"));
}

#[test]
fn requests_carry_the_schema_the_samples_and_their_temperatures() {
    let s = spec();
    let seen = Arc::new(Mutex::new(Vec::<(u32, Option<f64>, String)>::new()));
    let log = seen.clone();
    let c = client(move |r, _| {
        let schema = r
            .schema
            .as_ref()
            .expect("a JSON schema with every form request");
        log.lock()
            .unwrap()
            .push((r.sample, r.temperature, schema.schema.to_string()));
        Ok(Response::text(RIGHT))
    });
    let rep = formalize(&s, &c, &z3(), &options()).unwrap();
    assert_eq!(
        rep.requirements[0].formula.as_deref(),
        Some("(=> (> temp 38.0) alarm)")
    );
    let seen = seen.lock().unwrap();
    // Three agreeing answers decide a vote of five.
    assert_eq!(seen.len(), 3);
    assert_eq!(seen[0].0, 0);
    assert_eq!(seen[0].1, Some(0.0));
    assert!(seen[1..].iter().all(|(_, t, _)| *t == Some(0.7)));
    // The schema names the variables the text talks about, with their units; the
    // pumping mode, which R1 does not mention, is not offered.
    for needle in ["\"temp\"", "\"alarm\"", "\"degC\""] {
        assert!(seen[0].2.contains(needle), "{needle}");
    }
    assert!(
        !seen[0].2.contains("\"mode\"") && !seen[0].2.contains("KVO"),
        "{}",
        seen[0].2
    );
}

#[test]
fn worked_examples_are_the_most_similar_reviewed_requirements_as_forms() {
    let s = reqs::parse_spec(SourceFile::new(
        "t.toml",
        format!(
            "{SPEC}\n[[requirements]]\nid = \"R3\"\ntext = \"If the temperature exceeds 42 degC, the pump shall be stopped.\"\nformula = \"(=> (> temp 42) (= mode Stopped))\"\n"
        ),
    ))
    .unwrap();
    let prompts = Arc::new(Mutex::new(String::new()));
    let p = prompts.clone();
    let c = client(move |r, _| {
        if r.messages.len() == 1 {
            *p.lock().unwrap() = r.messages[0].content.clone();
        }
        Ok(Response::text(RIGHT))
    });
    let mut o = options();
    o.examples = 1;
    formalize(&s, &c, &z3(), &o).unwrap();
    let prompt = prompts.lock().unwrap().clone();
    // R3 shares "temperature exceeds degC" with R1; R2 (about KVO mode) does not.
    assert!(
        prompt.contains("Requirement: If the temperature exceeds 42 degC"),
        "{prompt}"
    );
    assert!(
        prompt.contains(r#"Form: {"if":{"name":"temp","op":">","value":42},"then":{"name":"mode","op":"is","value":"Stopped"}}"#),
        "{prompt}"
    );
    assert!(!prompt.contains("In KVO mode"), "{prompt}");
}

#[test]
fn controlled_english_needs_no_model_and_the_rest_goes_to_forms() {
    let s = reqs::parse_spec(SourceFile::new(
        "t.toml",
        format!(
            "{SPEC}\n[[requirements]]\nid = \"R3\"\ntext = \"While the pumping mode is KVO, the alarm shall not sound.\"\n\n[[requirements]]\nid = \"R4\"\ntext = \"The alarm goes off whenever it gets hot.\"\n"
        ),
    ))
    .unwrap();
    let asked = Arc::new(Mutex::new(Vec::<String>::new()));
    let log = asked.clone();
    let c = client(move |r, _| {
        let last = r.messages[0]
            .content
            .rsplit("Requirement: ")
            .next()
            .unwrap_or("")
            .to_string();
        log.lock().unwrap().push(last);
        Ok(Response::text(RIGHT))
    });
    let o = FormalizeOptions {
        only: Some(vec!["R3".into(), "R4".into()]),
        ..FormalizeOptions::default()
    };
    let rep = formalize(&s, &c, &z3(), &o).unwrap();
    let r3 = rep.requirements.iter().find(|f| f.id == "R3").unwrap();
    assert_eq!(r3.path, Some(Path::Parser), "{r3:?}");
    assert_eq!(r3.formula.as_deref(), Some("(=> (= mode KVO) (not alarm))"));
    assert!(r3.vote.is_none());
    assert!(r3.reads.as_deref().is_some_and(|s| !s.is_empty()));
    let r4 = rep.requirements.iter().find(|f| f.id == "R4").unwrap();
    assert!(
        r4.not_parsed.is_some(),
        "a pronoun: the parser says why it did not read it"
    );
    assert_eq!(rep.by_path.parser, 1);
    // The model was asked about R4 only.
    let asked = asked.lock().unwrap();
    assert!(!asked.is_empty());
    assert!(
        asked.iter().all(|t| t.starts_with("The alarm goes off")),
        "{asked:?}"
    );
    // The written spec shows the read-back next to the formula.
    let text = formalized_spec(&s, &rep);
    assert!(text.contains("path=parser"), "{text}");
    assert!(text.contains("# reads: "), "{text}");
}

const ROLES: &str = r#"
[spec]
name = "roles"

[[variables]]
name = "temp"
sort = "Real"
unit = "degC"
role = "input"
description = "the measured temperature"

[[variables]]
name = "limit"
sort = "Real"
unit = "degC"
role = "input"
description = "the temperature limit set by the operator"

[[variables]]
name = "alarm"
sort = "Bool"
role = "output"
description = "the alarm sounds"

[[requirements]]
id = "R1"
text = "If the temperature exceeds the limit the alarm shall sound."

[[requirements]]
id = "R2"
text = "The operator's temperature limit shall not exceed 42 degC."
"#;

#[test]
fn with_roles_demands_are_on_outputs_and_input_only_texts_are_not_asked() {
    let s =
        reqs::parse_spec(SourceFile::new("roles.toml", ROLES)).unwrap_or_else(|d| panic!("{d}"));
    let o = FormalizeOptions {
        parse: false,
        ..FormalizeOptions::default()
    };
    for solver in [z3(), SolverConfig::new(SolverKind::Cvc5)] {
        // A fresh client each time: its cache would answer the second run.
        let asked: Arc<Mutex<Vec<Request>>> = Arc::default();
        let seen = asked.clone();
        let c = client(move |r, _| {
            seen.lock().unwrap().push(r.clone());
            let repairing = r.messages.len() > 1;
            Ok(Response::text(if !is_form_request(r) {
                "(<= limit 42.0)"
            } else if repairing {
                r#"{"if": {"name": "temp", "op": ">", "value": "limit"}, "then": {"name": "alarm", "op": "is", "value": true}}"#
            } else {
                // The alarm as the condition and an input demanded: refused by the reader.
                r#"{"if": {"name": "alarm", "op": "is", "value": true}, "then": {"name": "temp", "op": ">", "value": "limit"}}"#
            }))
        });
        let rep = formalize(&s, &c, &solver, &o).unwrap();
        let r1 = &rep.requirements[0];
        assert_eq!(r1.formula.as_deref(), Some("(=> (> temp limit) alarm)"));
        assert_eq!(r1.path, Some(Path::Form));
        let first = r1.attempts[0].error.as_deref().unwrap();
        assert!(first.starts_with("`then`: `temp` is an input"), "{first}");
        // The schema the server enforces offers only the output under `then`.
        let reqs = asked.lock().unwrap();
        let schema = &reqs[0].schema.as_ref().unwrap().schema;
        let bad: serde_json::Value = serde_json::from_str(
            r#"{"if": {"name": "alarm", "op": "is", "value": true}, "then": {"name": "temp", "op": ">", "value": "limit"}}"#,
        )
        .unwrap();
        assert!(llm::jsonschema::validate(schema, &bad).is_err());
        // R2 names inputs only: no formula of it could pass the screening, so neither
        // the form path nor the SMT-LIB fallback asks the model about it.
        let r2 = &rep.requirements[1];
        assert!(r2.formula.is_none() && !r2.flagged);
        assert_eq!(r2.attempts.len(), 1);
        let why = r2.attempts[0].error.as_deref().unwrap();
        assert!(
            why.starts_with("not asked: the text talks about inputs only (temp, limit)"),
            "{why}"
        );
        assert!(
            reqs.iter()
                .all(|r| !r.messages[0].content.contains("42 degC")),
            "R2 was asked"
        );
        assert_eq!(rep.failed, vec!["R2".to_string()]);
    }
}

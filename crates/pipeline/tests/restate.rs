//! `vera clarify --controlled` in the library: restatements driven by scripted answers
//! (what the model says is scripted; the reader, the screening and the equivalence
//! checks are real, on z3 and cvc5), and applying accepted ones.

mod common;

use llm::{LlmError, Request, Response};
use logic::SourceFile;
use pipeline::restate::{
    apply, restate, RestateFile, RestateFileError, RestateOptions, RestateStatus,
};
use solver::{SolverConfig, SolverKind};

const SPEC: &str = r#"
[spec]
name = "heating"

[[variables]]
name = "alarm"
sort = "Bool"
role = "input"
description = "the alarm sounds"

[[variables]]
name = "heater"
sort = "Bool"
role = "output"
description = "the heater runs"

[[variables]]
name = "temp"
sort = "Real"
unit = "degC"
min = 0
max = 100
role = "input"
description = "the room temperature"

[[requirements]]
id = "H1"
text = "The heater must be switched off whenever the alarm goes off."
formula = "(=> alarm (not heater))"

[[requirements]]
id = "H2"
text = "Once the room gets hotter than 30 degrees, the heater has to stop."

[[requirements]]
id = "H3"
text = "If the room temperature is below 10 degC, the heater shall run."
"#;

fn spec() -> reqs::Spec {
    reqs::parse_spec(SourceFile::new("heating.toml", SPEC)).unwrap_or_else(|d| panic!("{d}"))
}

fn solvers() -> [SolverConfig; 2] {
    [
        SolverConfig::new(SolverKind::Z3),
        SolverConfig::new(SolverKind::Cvc5),
    ]
}

/// The requirement a restate prompt is about (the last "Requirement:" line of its
/// first message).
fn about(r: &Request) -> String {
    common::after(
        &Request {
            messages: r.messages[..1].to_vec(),
            ..r.clone()
        },
        "Requirement: ",
    )
    .unwrap_or_default()
}

fn run(answer: impl Fn(&Request, usize) -> String + Send + Sync + 'static) -> Vec<RestateFile> {
    let answer = std::sync::Arc::new(answer);
    solvers()
        .iter()
        .map(|s| {
            let a = answer.clone();
            let client = common::scripted(move |r, n| Ok(Response::text(a(r, n))));
            restate(
                &spec(),
                "heating.toml",
                &client,
                s,
                &RestateOptions::default(),
            )
            .unwrap_or_else(|e| panic!("{}: {e}", s.kind))
        })
        .collect()
}

#[test]
fn a_sentence_the_reader_parses_is_kept_with_its_formula_read_back_and_comparison() {
    for rep in run(|r, _| match about(r).as_str() {
        t if t.starts_with("The heater must") => {
            "If the alarm sounds, the heater shall not run.".into()
        }
        t if t.starts_with("Once the room") => {
            "If the room temperature is above 30 degC, the heater shall not run.".into()
        }
        t => panic!("asked about {t:?}"),
    }) {
        let [h1, h2, h3] = &rep.restatements[..] else {
            panic!("{rep:?}")
        };
        assert_eq!(h1.status, RestateStatus::Restated, "{h1:?}");
        assert_eq!(h1.formula.as_deref(), Some("(=> alarm (not heater))"));
        assert_eq!(
            h1.same_as_spec,
            Some(true),
            "equivalent to the spec's formula"
        );
        assert!(
            h1.reads.as_deref().is_some_and(|s| s.contains("alarm")),
            "{h1:?}"
        );
        assert!(!h1.accepted, "nothing is accepted by default");
        assert_eq!(h2.status, RestateStatus::Restated, "{h2:?}");
        assert_eq!(
            h2.formula.as_deref(),
            Some("(=> (> temp 30.0) (not heater))")
        );
        assert_eq!(h2.same_as_spec, None, "the spec has no formula for H2");
        assert_eq!(
            h3.status,
            RestateStatus::Controlled,
            "H3 reads already: not asked"
        );
        assert!(h3.attempts.is_empty());
        assert_eq!(rep.counts(), [2, 0, 1, 0]);
        assert_eq!(rep.halted, None);
    }
}

#[test]
fn a_restatement_that_changes_the_meaning_is_said_not_equivalent_or_refused() {
    for rep in run(|r, _| {
        if about(r).starts_with("The heater must") {
            // Inverts the response: kept, and said to differ from the spec's formula.
            "If the alarm sounds, the heater shall run.".into()
        } else {
            // Drops the condition: the screening against the original refuses it.
            "The heater shall not run.".into()
        }
    }) {
        let [h1, h2, _] = &rep.restatements[..] else {
            panic!()
        };
        assert_eq!(h1.status, RestateStatus::Restated, "{h1:?}");
        assert_eq!(h1.formula.as_deref(), Some("(=> alarm heater)"));
        assert_eq!(h1.same_as_spec, Some(false));
        assert_eq!(h2.status, RestateStatus::NotRestated, "{h2:?}");
        let why = h2.attempts[0].refused.as_deref().unwrap_or_default();
        assert!(
            why.starts_with("it parses, but its formula is refused"),
            "{why}"
        );
        assert!(why.contains("conditional"), "{why}");
    }
}

#[test]
fn a_refused_sentence_goes_back_with_the_readers_reason_and_the_variables_words() {
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::<Request>::new()));
    let s2 = seen.clone();
    for rep in run(move |r, _| {
        s2.lock().unwrap().push(r.clone());
        if !about(r).starts_with("Once the room") {
            return "If the alarm sounds, the heater shall not run.".into();
        }
        match r.messages.len() {
            1 => "Unless it is cold, heating has to stop.".into(),
            3 => "If the room is hot, the heater shall not run.".into(),
            _ => "If the room temperature exceeds 30 degC, the heater shall not run.".into(),
        }
    }) {
        let h2 = &rep.restatements[1];
        assert_eq!(h2.status, RestateStatus::Restated, "{h2:?}");
        assert_eq!(h2.attempts.len(), 3, "{h2:?}");
        for a in &h2.attempts[..2] {
            let why = a.refused.as_deref().unwrap_or_default();
            assert!(why.starts_with("the reader does not parse it"), "{why}");
        }
        assert_eq!(h2.attempts[2].refused, None);
        assert_eq!(
            h2.formula.as_deref(),
            Some("(=> (> temp 30.0) (not heater))")
        );
    }
    let seen = seen.lock().unwrap();
    let repair = seen
        .iter()
        .find(|r| r.messages.len() == 3)
        .expect("a repair turn");
    let turn = &repair.messages[2].content;
    assert!(
        turn.starts_with("The reader refused that sentence: "),
        "{turn}"
    );
    assert!(turn.contains("unless") || turn.contains("Unless"), "{turn}");
}

#[test]
fn an_answer_that_repeats_the_text_or_never_parses_is_not_restated() {
    for rep in run(|r, _| {
        if about(r).starts_with("The heater must") {
            "The heater must be switched off whenever the alarm goes off.".into()
        } else {
            "Clarified version: heating stops above 30.".into()
        }
    }) {
        let [h1, h2, _] = &rep.restatements[..] else {
            panic!()
        };
        for h in [h1, h2] {
            assert_eq!(h.status, RestateStatus::NotRestated, "{h:?}");
            assert_eq!(h.attempts.len(), 3);
            assert!(h.formula.is_none() && h.text.is_none());
        }
        assert!(h1.attempts[0]
            .refused
            .as_deref()
            .unwrap()
            .contains("repeats the requirement"));
        assert!(
            h2.attempts[0]
                .refused
                .as_deref()
                .unwrap()
                .contains("Clarified version"),
            "{h2:?}"
        );
        assert_eq!(rep.counts(), [0, 2, 1, 0]);
    }
}

#[test]
fn a_provider_failure_stops_the_asking_and_keeps_what_was_found() {
    for s in solvers() {
        let client = common::scripted(|r, _| {
            if about(r).starts_with("The heater must") {
                Ok(Response::text(
                    "If the alarm sounds, the heater shall not run.",
                ))
            } else {
                Err(LlmError::Http {
                    status: 503,
                    message: "overloaded".into(),
                })
            }
        });
        let rep = restate(
            &spec(),
            "heating.toml",
            &client,
            &s,
            &RestateOptions::default(),
        )
        .expect("a provider failure is reported, not an error");
        let st: Vec<RestateStatus> = rep.restatements.iter().map(|r| r.status).collect();
        assert_eq!(
            st,
            [
                RestateStatus::Restated,
                RestateStatus::NotRestated,
                RestateStatus::Controlled
            ]
        );
        assert!(
            rep.halted.as_deref().is_some_and(|h| h.contains("503")),
            "{rep:?}"
        );
    }
}

#[test]
fn accepted_restatements_are_applied_and_stale_or_empty_ones_refused() {
    let rep = run(|r, _| {
        if about(r).starts_with("The heater must") {
            "If the alarm sounds, the heater shall not run.".into()
        } else {
            "no".into()
        }
    })
    .remove(0);
    let spec = spec();
    // Nothing accepted: nothing changes.
    let (_, changed) = apply(&spec, &rep);
    assert!(changed.is_empty());
    let mut accepted = rep.clone();
    accepted.restatements[0].accepted = true;
    let text = accepted.to_json().unwrap();
    let read = RestateFile::read_for("r.json", &text, &spec, "heating.toml").unwrap();
    let (out, changed) = apply(&spec, &read);
    assert_eq!(changed, ["H1"]);
    let new = reqs::parse_spec(SourceFile::new("new.toml", &out))
        .unwrap_or_else(|d| panic!("{d}\n{out}"));
    let h1 = new.requirements.iter().find(|r| r.id == "H1").unwrap();
    assert_eq!(h1.text, "If the alarm sounds, the heater shall not run.");
    assert_eq!(
        h1.formula.as_ref().map(logic::print::term).as_deref(),
        Some("(=> alarm (not heater))")
    );
    assert!(
        out.contains("restated in controlled English by vera"),
        "{out}"
    );
    assert_eq!(new.requirements.len(), 3, "no requirement dropped");
    // The spec's text changed since: refused.
    let edited = reqs::parse_spec(SourceFile::new(
        "heating.toml",
        SPEC.replace("goes off.", "goes off!"),
    ))
    .unwrap();
    match RestateFile::read_for("r.json", &text, &edited, "heating.toml") {
        Err(RestateFileError::Stale { stale, .. }) => assert_eq!(stale.len(), 1),
        other => panic!("{other:?}"),
    }
    // An accepted entry with no sentence: refused.
    let mut empty = rep.clone();
    empty.restatements[1].accepted = true;
    match RestateFile::read_for("r.json", &empty.to_json().unwrap(), &spec, "heating.toml") {
        Err(RestateFileError::NothingToApply { id, .. }) => assert_eq!(id, "H2"),
        other => panic!("{other:?}"),
    }
    // A sentence a person wrote for the requirement the model did not restate is read
    // by the reader, and its formula applied; a formula edited in the file is not.
    let mut by_hand = empty.clone();
    by_hand.restatements[1].text =
        Some("If the room temperature exceeds 30 degC, the heater shall not run.".into());
    by_hand.restatements[1].formula = Some("true".into());
    let read = RestateFile::read_for("r.json", &by_hand.to_json().unwrap(), &spec, "heating.toml")
        .unwrap();
    let (out, changed) = apply(&spec, &read);
    assert_eq!(changed, ["H2"]);
    let new = reqs::parse_spec(SourceFile::new("new.toml", &out))
        .unwrap_or_else(|d| panic!("{d}\n{out}"));
    let h2 = new.requirements.iter().find(|r| r.id == "H2").unwrap();
    assert_eq!(
        h2.formula.as_ref().map(logic::print::term).as_deref(),
        Some("(=> (> temp 30.0) (not heater))")
    );
    // A sentence the reader does not parse: refused, naming the requirement.
    by_hand.restatements[1].text = Some("Heating stops above 30 degC.".into());
    match RestateFile::read_for("r.json", &by_hand.to_json().unwrap(), &spec, "heating.toml") {
        Err(RestateFileError::NotReadable { id, .. }) => assert_eq!(id, "H2"),
        other => panic!("{other:?}"),
    }
    assert!(pipeline::restate::is_restate_file(&text));
    assert!(!pipeline::restate::is_restate_file(
        "{\"schema\": \"vera.clarify.v1\"}"
    ));
}

#[test]
fn an_answer_cut_off_is_shown_and_asked_again_in_the_conversation() {
    for s in solvers() {
        let client = common::scripted(|r, _| {
            if !about(r).starts_with("The heater must") {
                return Ok(Response::text("no"));
            }
            if r.messages.len() == 1 {
                Err(LlmError::Truncated {
                    partial: "If the alarm sounds, the heater".into(),
                    output_tokens: 200,
                })
            } else {
                assert_eq!(r.messages[1].content, "If the alarm sounds, the heater");
                Ok(Response::text(
                    "If the alarm sounds, the heater shall not run.",
                ))
            }
        });
        let rep = restate(
            &spec(),
            "heating.toml",
            &client,
            &s,
            &RestateOptions::default(),
        )
        .unwrap();
        let h1 = &rep.restatements[0];
        assert_eq!(h1.status, RestateStatus::Restated, "{h1:?}");
        assert_eq!(h1.attempts[0].text, "If the alarm sounds, the heater");
        assert!(h1.attempts[0].refused.is_some(), "{h1:?}");
        assert!(rep.halted.is_none());
    }
}

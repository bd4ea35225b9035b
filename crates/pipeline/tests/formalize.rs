//! The formalization, ambiguity, clarification and voting loops driven by the scripted
//! provider, with real solvers.

use llm::{Cache, Client, Request, Response, Scripted};
use logic::SourceFile;
use pipeline::ambiguity::{screen, AmbiguityOptions};
use pipeline::clarify::{apply, clarify, ClarifyOptions};
use pipeline::formalize::{formalize, formalized_spec, FormalizeOptions, Mode};
use pipeline::voting::{
    diagnose_with_checker, draft_variables, vote, Category, VariableSpec, VotingOptions,
};
use reqs::Spec;
use solver::{SolverConfig, SolverKind};

const SPEC: &str = r#"
[spec]
name = "t"

[[variables]]
name = "temp"
sort = "Real"
unit = "degC"
min = 20
max = 45

[[variables]]
name = "alarm"
sort = "Bool"

[[variables]]
name = "flow"
sort = "Real"
unit = "mL/min"
min = 0
max = 600

[[domain]]
id = "D1"
text = "no alarm below 21"
formula = "(=> (< temp 21) (not alarm))"

[[requirements]]
id = "R1"
text = "If the temperature exceeds 38 degC the alarm shall be raised."

[[requirements]]
id = "R2"
text = "Between 33 and 40 degC the alarm shall be raised."

[[requirements]]
id = "R3"
text = "The flow shall not exceed 500 mL/min."
formula = "(<= flow 500)"
"#;

fn spec() -> Spec {
    reqs::parse_spec(SourceFile::new("t.toml", SPEC)).unwrap_or_else(|d| panic!("{d}"))
}

fn client(f: impl Fn(&Request, usize) -> llm::Result<Response> + Send + Sync + 'static) -> Client {
    Client::builder(Scripted::from_fn(f))
        .cache(Cache::in_memory().unwrap())
        .concurrency(1)
        .build()
}

fn last_user(r: &Request) -> &str {
    &r.messages.last().unwrap().content
}

fn z3() -> SolverConfig {
    SolverConfig::new(SolverKind::Z3)
}

fn cvc5() -> SolverConfig {
    SolverConfig::new(SolverKind::Cvc5)
}

fn only(ids: &[&str]) -> Option<Vec<String>> {
    Some(ids.iter().map(|s| s.to_string()).collect())
}

#[test]
fn repair_succeeds_on_attempt_three_and_sees_the_exact_error() {
    let spec = spec();
    let c = client(|r, _| {
        let attempt = r.messages.len().div_ceil(2);
        Ok(Response::text(match attempt {
            1 => "The formula is (=> (> temp 38) alarm)",
            2 => "(=> (> tempp 38) alarm)",
            _ => "(=> (> temp 38) alarm)",
        }))
    });
    let o = FormalizeOptions {
        forms: false,
        only: only(&["R1"]),
        ..Default::default()
    };
    let rep = formalize(&spec, &c, &z3(), &o).unwrap();
    let f = &rep.requirements[0];
    assert_eq!(f.formula.as_deref(), Some("(=> (> temp 38.0) alarm)"));
    assert_eq!(f.attempts.len(), 3);
    assert_eq!(f.provenance.attempts, 3);
    assert_eq!(f.provenance.prompt, "formalize-requirement@v1");
    assert!(f.attempts[0]
        .error
        .as_ref()
        .unwrap()
        .contains("text outside the formula"));
    assert!(
        f.attempts[1].error.as_ref().unwrap().contains("tempp"),
        "{:?}",
        f.attempts[1]
    );
    assert_eq!((rep.first_attempt, rep.after_repair), (0, 1));
    // The third request carried both failed outputs and both errors.
    let third = c.provider();
    let _ = third;
    let text = formalized_spec(&spec, &rep);
    let back = reqs::parse_spec(SourceFile::new("out.toml", text.clone())).unwrap();
    assert_eq!(
        back.requirements[0]
            .formula
            .as_ref()
            .map(logic::print::term)
            .as_deref(),
        Some("(=> (> temp 38.0) alarm)")
    );
    assert!(text.contains(
        "# provenance: provider=scripted model=script prompt=formalize-requirement@v1 attempts=3"
    ));
    // The untouched requirements keep their text and formula.
    assert_eq!(back.requirements.len(), 3);
    assert!(back.requirements[2].formula.is_some());
}

#[test]
fn repair_requests_carry_failed_output_and_error() {
    let spec = spec();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::<Request>::new()));
    let s2 = seen.clone();
    let c = client(move |r, _| {
        s2.lock().unwrap().push(r.clone());
        Ok(Response::text(if r.messages.len() == 1 {
            "(=> (> temp 38) (check))"
        } else {
            "(=> (> temp 38) alarm)"
        }))
    });
    let o = FormalizeOptions {
        forms: false,
        only: only(&["R1"]),
        ..Default::default()
    };
    formalize(&spec, &c, &z3(), &o).unwrap();
    let seen = seen.lock().unwrap();
    let second = &seen[1];
    assert_eq!(second.messages.len(), 3);
    assert_eq!(second.messages[1].content, "(=> (> temp 38) (check))");
    assert!(
        second.messages[2].content.contains("check"),
        "{}",
        second.messages[2].content
    );
    assert!(
        second.messages[2].content.contains("answer:1:"),
        "located error"
    );
}

#[test]
fn repair_exhausts_its_budget_and_the_requirement_is_listed() {
    let spec = spec();
    let c = client(|_, _| Ok(Response::text("(check-sat)")));
    let o = FormalizeOptions {
        forms: false,
        only: only(&["R1", "R2"]),
        max_retries: 2,
        ..Default::default()
    };
    let rep = formalize(&spec, &c, &z3(), &o).unwrap();
    assert_eq!(rep.failed, ["R1", "R2"]);
    for f in &rep.requirements {
        assert_eq!(f.attempts.len(), 3);
        assert!(f.formula.is_none());
    }
    let text = formalized_spec(&spec, &rep);
    assert!(text.contains("NOT FORMALIZED"));
    let back = reqs::parse_spec(SourceFile::new("out.toml", text)).unwrap();
    assert_eq!(back.requirements.len(), 3, "failed requirements are kept");
    assert!(back.requirements[0].formula.is_none());
}

#[test]
fn hostile_answers_are_repairable() {
    let spec = spec();
    let hostile: Vec<String> = vec![
        "(assert true) (exit)".into(),
        "(set-option :produce-proofs true)".into(),
        "(=> (> temp 38) (= pump_speed 0))".into(),
        // Two fenced blocks: which one? (One block is read as the term it contains.)
        "Here:\n```\n(> temp 38)\n```\nor\n```smt2\n(=> (> temp 38) alarm)\n```".into(),
        "(temp > 38)".into(), // infix
        format!("(or {} alarm)", "true ".repeat(200_000)),
        "(and (< temp 10) alarm)".into(), // contradicts the bounds and D1
        "(=> (> temp 38) alarm) (declare-const x Int)".into(),
        "not alarm".into(), // outer parentheses missing
    ];
    for h in hostile {
        let h2 = h.clone();
        let c = client(move |r, _| {
            Ok(Response::text(if r.messages.len() == 1 {
                h2.clone()
            } else {
                "(=> (> temp 38) alarm)".into()
            }))
        });
        let o = FormalizeOptions {
            forms: false,
            only: only(&["R1"]),
            ..Default::default()
        };
        let rep = formalize(&spec, &c, &z3(), &o).unwrap();
        let f = &rep.requirements[0];
        assert_eq!(f.attempts.len(), 2, "{}", &h[..h.len().min(60)]);
        assert!(f.attempts[0].error.is_some());
        assert!(
            f.attempts[0].answer.len() <= 2100,
            "long answers are shortened"
        );
        assert_eq!(f.formula.as_deref(), Some("(=> (> temp 38.0) alarm)"));
        if h == "not alarm" {
            let e = f.attempts[0].error.as_deref().unwrap();
            assert!(e.contains("as in `(not alarm)`"), "{e}");
        }
        if h == "(temp > 38)" {
            let e = f.attempts[0].error.as_deref().unwrap();
            assert!(
                e.contains("infix `>` at column 7") && e.contains("write `(> temp 38)`"),
                "{e}"
            );
        }
    }
}

#[test]
fn one_fenced_block_or_one_assert_is_read_as_its_term() {
    let spec = spec();
    for answer in [
        "Sure! Here it is:\n```\n(=> (> temp 38) alarm)\n```",
        "```smt2\n(assert (=> (> temp 38) alarm))\n```",
        "(assert (=> (> temp 38) alarm))",
    ] {
        let t = pipeline::formalize::parse_answer(&spec, answer).unwrap();
        assert_eq!(
            logic::print::term(&t),
            "(=> (> temp 38.0) alarm)",
            "{answer}"
        );
    }
}

/// Answers that parse but say nothing, or say too much: screened before use.
#[test]
fn tautologies_and_forcing_formulas_of_conditional_texts_are_screened_out() {
    let spec = spec();
    for (bad, expect) in [
        ("(=> (> temp 38) true)", "constrains nothing"),
        ("(or alarm (not alarm))", "constrains nothing"),
        (
            "alarm",
            "forces alarm = true in every state, but the requirement is conditional",
        ),
    ] {
        let c = client(move |r, _| {
            Ok(Response::text(if r.messages.len() == 1 {
                bad
            } else {
                "(=> (> temp 38) alarm)"
            }))
        });
        let o = FormalizeOptions {
            forms: false,
            only: only(&["R1"]),
            ..Default::default()
        };
        let rep = formalize(&spec, &c, &z3(), &o).unwrap();
        let f = &rep.requirements[0];
        let e = f.attempts[0].error.as_deref().unwrap_or("");
        assert!(e.contains(expect), "{bad}: {e}");
        assert_eq!(f.formula.as_deref(), Some("(=> (> temp 38.0) alarm)"));
    }
    // An unconditional text may force a value: kept, with a note for the reviewer.
    let c = client(|_, _| Ok(Response::text("(not alarm)")));
    let text = SPEC.replace(
        "If the temperature exceeds 38 degC the alarm shall be raised.",
        "The alarm shall stay silent.",
    );
    let quiet = reqs::parse_spec(SourceFile::new("t.toml", &text)).unwrap();
    let rep = formalize(
        &quiet,
        &c,
        &z3(),
        &FormalizeOptions {
            forms: false,
            only: only(&["R1"]),
            ..Default::default()
        },
    )
    .unwrap();
    let f = &rep.requirements[0];
    assert_eq!(f.formula.as_deref(), Some("(not alarm)"));
    assert_eq!(f.notes.len(), 1);
    assert_eq!(f.notes[0].kind, "forces");
}

#[test]
fn a_repeated_rejected_answer_is_resampled_once_then_given_up() {
    let spec = spec();
    let c = client(|_, _| Ok(Response::text("alarm is on above 38")));
    let rep = formalize(
        &spec,
        &c,
        &z3(),
        &FormalizeOptions {
            forms: false,
            only: only(&["R1"]),
            ..Default::default()
        },
    )
    .unwrap();
    let f = &rep.requirements[0];
    assert!(f.formula.is_none());
    // First answer, the repeat (answered with a fresh sample), the repeat again: stop,
    // instead of five identical repair turns.
    assert_eq!(f.attempts.len(), 3, "{:?}", f.attempts);
    assert!(f.attempts[2]
        .error
        .as_deref()
        .unwrap()
        .starts_with("stopped: the model repeated a rejected answer"));
}

#[test]
fn a_runaway_answer_is_named_as_a_loop_and_repaired() {
    let spec = spec();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::<Request>::new()));
    let s2 = seen.clone();
    let c = client(move |r, _| {
        s2.lock().unwrap().push(r.clone());
        Ok(if r.messages.len() == 1 {
            // What a streamed answer stopped at a loop looks like.
            Response {
                text: format!("(=> (> temp 38) {}", "(and ".repeat(14)),
                finish: llm::FinishReason::Repetition,
                usage: llm::Usage::default(),
                model: None,
            }
        } else {
            Response::text("(=> (> temp 38) alarm)")
        })
    });
    let rep = formalize(
        &spec,
        &c,
        &z3(),
        &FormalizeOptions {
            forms: false,
            only: only(&["R1"]),
            ..Default::default()
        },
    )
    .unwrap();
    let f = &rep.requirements[0];
    assert_eq!(f.formula.as_deref(), Some("(=> (> temp 38.0) alarm)"));
    assert_eq!(f.attempts.len(), 2);
    let fb = last_user(&seen.lock().unwrap()[1]).to_string();
    assert!(
        fb.contains("fell into a loop: it repeated `(and` 14 times"),
        "{fb}"
    );
}

#[test]
fn batch_mode_repairs_only_the_failing_ids() {
    let spec = spec();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::<Request>::new()));
    let s2 = seen.clone();
    let c = client(move |r, _| {
        s2.lock().unwrap().push(r.clone());
        Ok(Response::text(if r.messages.len() == 1 {
            r#"{"R1": "(=> (> temp 38) alarm)", "R2": "(=> (and (>= temp 33) (<= temp 40)) alarmm)"}"#
        } else {
            r#"{"R2": "(=> (and (>= temp 33) (<= temp 40)) alarm)"}"#
        }))
    });
    let o = FormalizeOptions {
        forms: false,
        mode: Mode::Batch,
        only: only(&["R1", "R2"]),
        ..Default::default()
    };
    let rep = formalize(&spec, &c, &z3(), &o).unwrap();
    assert!(rep.failed.is_empty());
    assert_eq!((rep.first_attempt, rep.after_repair), (1, 1));
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 2);
    let schema = &seen[1].schema.as_ref().unwrap().schema;
    assert_eq!(schema["required"], serde_json::json!(["R2"]));
    assert!(last_user(&seen[1]).contains("alarmm"));
}

const READINGS: [&str; 3] = [
    "(=> (and (> temp 33) (< temp 40)) alarm)",
    "(=> (and (>= temp 33) (<= temp 40)) alarm)",
    "(=> (and (> temp 33) (<= temp 40)) alarm)",
];

/// Samples of R2's original text split three ways; the clarified text (containing
/// "inclusive") converges when `converge` is set.
/// The text of R2 in a clarification prompt.
fn r2_text(prompt: &str) -> &str {
    prompt
        .lines()
        .find_map(|l| l.strip_prefix("Requirement R2: "))
        .expect("a clarification prompt for R2")
}

fn ambiguous_model(converge: bool) -> Client {
    client(move |r, _| {
        let u = last_user(r);
        if u.contains("Rewrite the requirement") {
            if converge {
                return Ok(Response::text(
                    "Between 33 degC and 40 degC inclusive the alarm shall be raised.",
                ));
            }
            // A new wording every round that stays as ambiguous.
            let current = r2_text(u);
            return Ok(Response::text(format!("{current} Really.")));
        }
        let text = if u.contains("inclusive") && converge {
            READINGS[1]
        } else if u.contains("Between 33") {
            READINGS[(r.sample as usize) % 3]
        } else {
            "(=> (> temp 38) alarm)"
        };
        Ok(Response::text(text))
    })
}

#[test]
fn ambiguity_flags_the_range_with_endpoint_witnesses() {
    let spec = spec();
    let c = ambiguous_model(true);
    let rep = screen(
        &spec,
        &c,
        &z3(),
        &AmbiguityOptions {
            only: only(&["R1", "R2"]),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(rep.summary.flagged, 1);
    let r2 = &rep.requirements[1];
    assert!(r2.flagged);
    assert_eq!(r2.classes(), 3);
    assert_eq!(r2.samples.len(), 5);
    assert!(r2.explanations.iter().any(|e| e.contains("temp = 33 degC")));
    assert!(r2.explanations.iter().any(|e| e.contains("temp = 40 degC")));
    assert!(!rep.requirements[0].flagged);
    // 5 samples of R1 agree (10 pairs), R2's split 2/2/1 (2 of 10 pairs).
    assert!((rep.summary.pairwise_agreement.unwrap() - 12.0 / 20.0).abs() < 1e-9);
    assert!((rep.summary.mean_distinct_encodings - 2.0).abs() < 1e-9);
    // Distinct sample indices: 10 calls, no cache collisions.
    assert_eq!(c.accounting().total.calls, 10);
}

#[test]
fn clarification_converges() {
    let spec = spec();
    let c = ambiguous_model(true);
    let o = ClarifyOptions {
        screening: AmbiguityOptions {
            only: only(&["R1", "R2"]),
            ..Default::default()
        },
        ..Default::default()
    };
    let rep = clarify(&spec, &c, &z3(), &o, None).unwrap();
    assert_eq!(rep.proposals.len(), 1);
    let p = &rep.proposals[0];
    assert!(p.converged && p.accepted);
    assert_eq!((p.rounds, p.classes_before, p.classes_after), (1, 3, 1));
    assert!(p.clarified.contains("inclusive"));
    assert_eq!(
        p.formula.as_deref(),
        Some("(=> (and (>= temp 33.0) (<= temp 40.0)) alarm)")
    );
    assert_eq!(rep.stats.flagged_per_round, vec![1, 0]);
    assert_eq!((rep.stats.before.flagged, rep.stats.after.flagged), (1, 0));
    assert!((rep.stats.after.pairwise_agreement.unwrap() - 1.0).abs() < 1e-9);
    let (text, changed) = apply(&spec, &rep.proposals);
    assert_eq!(changed, ["R2"]);
    let back = reqs::parse_spec(SourceFile::new("c.toml", text)).unwrap();
    assert!(back.requirements[1].text.contains("inclusive"));
    assert!(back.requirements[1].formula.is_some());
}

#[test]
fn clarification_does_not_converge() {
    let spec = spec();
    let c = ambiguous_model(false);
    let o = ClarifyOptions {
        rounds: 3,
        screening: AmbiguityOptions {
            only: only(&["R2"]),
            ..Default::default()
        },
        ..Default::default()
    };
    let rep = clarify(&spec, &c, &z3(), &o, None).unwrap();
    let p = &rep.proposals[0];
    assert!(!p.converged && !p.accepted);
    assert_eq!(p.rounds, 3);
    assert_eq!(p.history.len(), 3);
    assert!(
        p.clarified.ends_with("Really. Really. Really."),
        "{}",
        p.clarified
    );
    assert_eq!(p.note.as_deref(), Some("still 3 readings after 3 round(s)"));
    assert_eq!(rep.stats.flagged_per_round, vec![1, 1, 1, 1]);
    let (_, changed) = apply(&spec, &rep.proposals);
    assert!(changed.is_empty(), "nothing applied that was not accepted");
}

const VARS: &str = r#"{"types": [], "variables": [
  {"name": "Income", "type": "NUMBER", "description": "taxable income"},
  {"name": "Low", "type": "NUMBER", "description": "10% on income up to 1000"},
  {"name": "High", "type": "NUMBER", "description": "20% on income over 1000"},
  {"name": "Tax", "type": "NUMBER", "description": "Low plus High"}]}"#;

const GOOD: &str = "(assert (= Low (* 0.1 (ite (<= Income 1000) Income 1000))))\n\
(assert (= High (* 0.2 (ite (<= Income 1000) 0 (- Income 1000)))))\n\
(assert (= Tax (+ Low High)))";
/// The same, written differently (and with declarations, which are tolerated).
const GOOD2: &str = "(declare-const Income Real)(declare-const Low Real)(declare-const High Real)(declare-const Tax Real)\n\
(assert (= Tax (+ Low High)))\n\
(assert (= Low (ite (> Income 1000) 100.0 (* 0.1 Income))))\n\
(assert (= High (ite (> Income 1000) (* 0.2 (- Income 1000)) 0.0)))";
/// Off at the boundary and forgetting High.
const BAD: &str =
    "(assert (= Low (* 0.1 (ite (< Income 1000) Income 1000))))\n(assert (= Tax Low))";

#[test]
fn voting_accepts_a_two_thirds_majority() {
    let vars = VariableSpec::from_json(VARS).unwrap();
    let c = client(|r, _| Ok(Response::text([GOOD, GOOD2, BAD][r.sample as usize])));
    let o = VotingOptions {
        output: Some("Tax".into()),
        ..Default::default()
    };
    let v = vote("10% up to 1000, 20% above", &vars, &c, &z3(), &o).unwrap();
    assert!(v.accepted);
    assert!((v.confidence - 2.0 / 3.0).abs() < 1e-9);
    assert_eq!(v.representative, Some(0));
    let smt = v.smt.unwrap();
    assert!(smt.starts_with("(declare-const Income Real)"));
    // The outvoted translation is diagnosed.
    let cats: Vec<Category> = v.translations[2]
        .diagnostics
        .iter()
        .map(|d| d.category)
        .collect();
    assert!(
        cats.contains(&Category::MissingIntermediateVariables),
        "{cats:?}"
    );
}

#[test]
fn voting_rejects_without_a_majority() {
    let vars = VariableSpec::from_json(VARS).unwrap();
    let c = client(|r, _| {
        Ok(Response::text(
            [GOOD, BAD, "(assert (= Tax (undefined_fn Income)))"][r.sample as usize],
        ))
    });
    let o = VotingOptions {
        output: Some("Tax".into()),
        ..Default::default()
    };
    let v = vote("10% up to 1000, 20% above", &vars, &c, &z3(), &o).unwrap();
    assert!(!v.accepted);
    assert!((v.confidence - 1.0 / 3.0).abs() < 1e-9);
    assert!(v.smt.is_none());
    assert!(!v.translations[2].diagnostics.is_empty());
    assert!(!v.translations[1].diagnostics.is_empty());
    assert!(
        v.translations[0]
            .diagnostics
            .iter()
            .any(|d| d.category != Category::Outvoted)
            || v.translations[0].diagnostics.is_empty()
    );
}

/// The implementation of the rule in VARS, in BL.
const PROG: &str = "let income = <input>\n\
let low = 0.1 * (if income > 1000 then 1000 else income)\n\
let high = if income > 1000 then 0.2 * (income - 1000) else 0\n\
let tax = low + high\n";

const PROG_BOUNDS: &str = r#"[
  {"type": "outputs", "variables": ["tax", "Tax"]},
  {"type": "equals", "variables": ["Income", "income"]},
  {"type": "ranges", "variables": ["Income"], "min": 0}
]"#;

fn categories(v: &pipeline::voting::Vote, i: usize) -> Vec<Category> {
    v.translations[i]
        .diagnostics
        .iter()
        .map(|d| d.category)
        .collect()
}

#[test]
fn rejected_translations_are_diagnosed_against_the_implementation() {
    let vars = VariableSpec::from_json(VARS).unwrap();
    // A correct translation, one that leaves Low and High free (not functional), and one
    // that only has an output below 500 (spurious constraint).
    let answers = [
        GOOD,
        "(assert (= Tax (+ Low High)))",
        "(assert (= Low (* 0.1 Income)))\n(assert (= High 0))\n(assert (= Tax Low))\n(assert (< Income 500))",
    ];
    let c = client(move |r, _| Ok(Response::text(answers[r.sample as usize])));
    let o = VotingOptions {
        output: Some("Tax".into()),
        ..Default::default()
    };
    let mut v = vote("10% up to 1000, 20% above", &vars, &c, &z3(), &o).unwrap();
    assert!(!v.accepted, "three classes of one");
    let mut input = bl::check::CheckInput::new(
        bl::check::SideSource::Smt(SourceFile::new("nl", "")),
        bl::check::SideSource::Bl(SourceFile::new("prog.bl", PROG)),
    );
    input.bounds = Some(bl::check::Bounds::from_json("bounds.json", PROG_BOUNDS).unwrap());
    for solver in [z3(), cvc5()] {
        let mut w = v.clone();
        diagnose_with_checker(&mut w, &vars, &input, &solver).unwrap();
        let (c0, c1, c2) = (categories(&w, 0), categories(&w, 1), categories(&w, 2));
        // The correct one gets no finding from the checker.
        assert!(
            !c0.iter().any(|c| matches!(
                c,
                Category::MissingConstraints
                    | Category::SpuriousConstraints
                    | Category::UndefinedFunctions
            )),
            "{c0:?}"
        );
        assert!(c1.contains(&Category::MissingConstraints), "{c1:?}");
        assert!(c2.contains(&Category::SpuriousConstraints), "{c2:?}");
    }
    // Twice is idempotent: the same finding is not added again.
    diagnose_with_checker(&mut v, &vars, &input, &z3()).unwrap();
    let n = v.translations[1].diagnostics.len();
    diagnose_with_checker(&mut v, &vars, &input, &z3()).unwrap();
    assert_eq!(v.translations[1].diagnostics.len(), n);
}

const NEW_RULE: &str = "A 5% surcharge applies to the amount over $200.";

#[test]
fn draft_variables_repairs_an_invalid_answer() {
    let example = VariableSpec::from_json(VARS).unwrap();
    // First answer: an unknown type; second: the same name twice; third: valid.
    let answers = [
        r#"{"variables": [{"name": "Amount", "type": "MONEY", "description": "x"}]}"#,
        r#"{"variables": [{"name": "Amount", "type": "NUMBER", "description": "x"},
                          {"name": "Amount", "type": "NUMBER", "description": "y"}]}"#,
        r#"{"types": [], "variables": [
            {"name": "Income", "type": "NUMBER", "description": "the amount charged"},
            {"name": "Surcharge", "type": "NUMBER", "description": "5% of the amount over 200"},
            {"name": "Tax", "type": "NUMBER", "description": "the surcharge"}], "rules": []}"#,
    ];
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::<Request>::new()));
    let s2 = seen.clone();
    let c = client(move |r, _| {
        let mut g = s2.lock().unwrap();
        g.push(r.clone());
        Ok(Response::text(answers[g.len() - 1]))
    });
    let d = draft_variables(NEW_RULE, "10% up to 1000, 20% above", &example, &c, 2).unwrap();
    assert_eq!(d.attempts, 3);
    assert_eq!(d.spec.variables.len(), 3);
    assert_eq!(
        d.shared_names,
        vec!["Income".to_string(), "Tax".to_string()]
    );
    assert!(d.refused[0].contains("MONEY"), "{:?}", d.refused);
    assert!(d.refused[1].contains("listed twice"), "{:?}", d.refused);
    let g = seen.lock().unwrap();
    // The prompt carries the example and the new rule; the repair carries the reason.
    let first = &g[0].messages[0].content;
    assert!(first.contains("10% up to 1000, 20% above") && first.contains(NEW_RULE));
    assert!(
        first.contains("\"name\": \"Low\""),
        "the example spec as JSON"
    );
    let last = &g[2].messages.last().unwrap().content;
    assert!(last.contains("listed twice"), "{last}");
}

#[test]
fn draft_variables_gives_up_after_its_budget() {
    let example = VariableSpec::from_json(VARS).unwrap();
    let c = client(|_, _| Ok(Response::text("Here are the variables: Income and Tax.")));
    let e = draft_variables(NEW_RULE, "10% up to 1000", &example, &c, 1).unwrap_err();
    assert!(e.to_string().contains("after 2 answers"), "{e}");
}

#[test]
fn voting_reads_fenced_answers_and_repairs_prose() {
    let vars = VariableSpec::from_json(VARS).unwrap();
    let fenced =
        format!("Here is the translation:\n```smtlib2\n{GOOD}\n```\nIt sums both brackets.");
    let fenced2 = format!("```lisp\n{GOOD2}\n```");
    let c = client(move |r, _| {
        let last = &r.messages.last().unwrap().content;
        Ok(Response::text(match (r.sample, r.messages.len()) {
            (0, _) => fenced.clone(),
            (1, _) => fenced2.clone(),
            // Sample 2: prose first; the repair turn carries the parse error.
            (2, 1) => "To translate the rule we define the brackets.".to_string(),
            (2, _) => {
                assert!(last.contains("cannot be used"), "{last}");
                assert!(last.contains("text outside any command"), "{last}");
                GOOD.to_string()
            }
            _ => unreachable!(),
        }))
    });
    let o = VotingOptions {
        output: Some("Tax".into()),
        ..Default::default()
    };
    let v = vote("10% up to 1000, 20% above", &vars, &c, &z3(), &o).unwrap();
    let attempts: Vec<usize> = v.translations.iter().map(|t| t.attempts).collect();
    assert_eq!(attempts, vec![1, 1, 2]);
    assert!(v.accepted && (v.confidence - 1.0).abs() < 1e-9, "{v:?}");
    // Without repair turns the prose answer stays invalid.
    let o0 = VotingOptions { repairs: 0, ..o };
    let c0 = client(|r, _| {
        Ok(Response::text(if r.sample == 2 {
            "To translate the rule we define the brackets.".to_string()
        } else {
            GOOD.to_string()
        }))
    });
    let v0 = vote("10% up to 1000, 20% above", &vars, &c0, &z3(), &o0).unwrap();
    assert_eq!(
        v0.translations[2].diagnostics[0].category,
        Category::Invalid
    );
    assert!(v0.accepted, "two of three still reach 2/3");
}

#[test]
fn code_of_takes_exactly_one_fenced_block() {
    use pipeline::voting::code_of;
    assert_eq!(code_of("```smt2\n(assert x)\n```"), "(assert x)");
    assert_eq!(code_of("Text\n```\n(assert x)\n```\nmore"), "(assert x)");
    // Unclosed: the rest after the opening line.
    assert_eq!(code_of("```lisp\n(assert x)"), "(assert x)");
    // Two blocks or none: the answer as it is (and the parser reports it).
    let two = "```\n(assert x)\n```\n```\n(assert y)\n```";
    assert_eq!(code_of(two), two);
    assert_eq!(code_of("(assert x)"), "(assert x)");
}

#[test]
fn clarification_stops_on_an_unchanged_text_and_needs_valid_samples() {
    let spec = spec();
    // The rewrite only adds punctuation, and again when told so: one round, then no
    // more questions.
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::<Request>::new()));
    let s2 = seen.clone();
    let same = client(move |r, _| {
        let first = &r.messages[0].content;
        if first.contains("Rewrite the requirement") {
            s2.lock().unwrap().push(r.clone());
            let t = r2_text(first);
            return Ok(Response::text(format!("{t}.")));
        }
        Ok(Response::text(READINGS[(r.sample as usize) % 3]))
    });
    let o = ClarifyOptions {
        screening: AmbiguityOptions {
            only: only(&["R2"]),
            ..Default::default()
        },
        ..Default::default()
    };
    let rep = clarify(&spec, &same, &z3(), &o, None).unwrap();
    let p = &rep.proposals[0];
    assert_eq!(p.rounds, 1);
    assert!(!p.converged);
    assert_eq!(
        p.note.as_deref(),
        Some("the model returned the text unchanged")
    );
    // Two requests: the rewrite, and the follow-up that says the text did not change.
    let asked = seen.lock().unwrap();
    assert_eq!(asked.len(), 2);
    assert_eq!(asked[1].messages.len(), 3);
    assert!(asked[1].messages[2].content.contains("same text as before"));
    // A rewrite of which only one formalization is valid: one class, but not evidence.
    let sparse = client(|r, _| {
        let u = last_user(r);
        if u.contains("Rewrite the requirement") {
            return Ok(Response::text(
                "From 33 to 40 degC inclusive the alarm shall be raised.",
            ));
        }
        if u.contains("From 33") {
            return Ok(Response::text(if r.sample == 0 {
                READINGS[1]
            } else {
                "alarm if hot"
            }));
        }
        Ok(Response::text(READINGS[(r.sample as usize) % 3]))
    });
    let rep = clarify(&spec, &sparse, &z3(), &o, None).unwrap();
    let p = &rep.proposals[0];
    // Counted as a failed rewrite: the original's three readings stay current, in the
    // proposal and in the statistics, so nothing looks like progress.
    assert_eq!(p.classes_after, 3);
    assert_eq!(p.clarified, p.original);
    assert!(!p.converged && !p.accepted);
    assert!(
        p.note.as_deref().unwrap().contains("only 1 of 5"),
        "{:?}",
        p.note
    );
    let last = p.history.last().unwrap();
    assert!(last.text.contains("From 33"));
    assert!(
        last.rejected.as_deref().unwrap().starts_with("failed:"),
        "{last:?}"
    );
    assert_eq!(rep.stats.flagged_per_round, vec![1, 1]);
    assert_eq!((rep.stats.before.flagged, rep.stats.after.flagged), (1, 1));
}

#[test]
fn clarification_rejects_meta_answers_with_a_follow_up() {
    let spec = spec();
    let o = ClarifyOptions {
        screening: AmbiguityOptions {
            only: only(&["R2"]),
            ..Default::default()
        },
        ..Default::default()
    };
    // The first answer describes the rewrite; told so, the model writes the requirement.
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::<Request>::new()));
    let s2 = seen.clone();
    let c = client(move |r, _| {
        let first = &r.messages[0].content;
        if first.contains("Rewrite the requirement") {
            s2.lock().unwrap().push(r.clone());
            return Ok(Response::text(if r.messages.len() == 1 {
                "The requirement text should be rewritten to clearly state that 33 and 40 degC are included."
            } else {
                "Between 33 degC and 40 degC inclusive the alarm shall be raised."
            }));
        }
        let u = last_user(r);
        Ok(Response::text(if u.contains("inclusive") {
            READINGS[1]
        } else {
            READINGS[(r.sample as usize) % 3]
        }))
    });
    let rep = clarify(&spec, &c, &z3(), &o, None).unwrap();
    let p = &rep.proposals[0];
    assert!(p.converged, "{p:?}");
    assert!(p.clarified.starts_with("Between 33"));
    let asked = seen.lock().unwrap();
    assert_eq!(asked.len(), 2);
    assert_eq!(asked[1].messages.len(), 3);
    let follow = &asked[1].messages[2].content;
    assert!(
        follow.contains("describes how the requirement should be changed"),
        "{follow}"
    );
    assert!(
        follow.contains("should be rewritten"),
        "the reason is given: {follow}"
    );
    drop(asked);

    // Meta-answers both times: rejected with the reason, never screened, never accepted.
    let screened = std::sync::Arc::new(std::sync::Mutex::new(0usize));
    let s3 = screened.clone();
    let c = client(move |r, _| {
        let first = &r.messages[0].content;
        if first.contains("Rewrite the requirement") {
            return Ok(Response::text(if r.messages.len() == 1 {
                "To clarify, the alarm range includes both end points."
            } else {
                "This requirement should specify that both ends are included."
            }));
        }
        if last_user(r).contains("end points") || last_user(r).contains("both ends") {
            *s3.lock().unwrap() += 1;
        }
        Ok(Response::text(READINGS[(r.sample as usize) % 3]))
    });
    let rep = clarify(&spec, &c, &z3(), &o, None).unwrap();
    let p = &rep.proposals[0];
    assert!(!p.converged && !p.accepted);
    assert_eq!(p.clarified, p.original);
    assert_eq!(p.classes_after, 3);
    let last = p.history.last().unwrap();
    assert!(last.text.starts_with("This requirement should specify"));
    assert!(
        last.rejected.as_deref().unwrap().starts_with("meta-answer"),
        "{last:?}"
    );
    assert!(
        p.note.as_deref().unwrap().contains("meta-answer"),
        "{:?}",
        p.note
    );
    assert_eq!(
        *screened.lock().unwrap(),
        0,
        "a meta-answer is never screened"
    );
    assert_eq!(rep.stats.after.flagged, 1);
}

#[test]
fn meta_answers_are_told_apart_from_rewrites() {
    use pipeline::clarify::meta_answer;
    let original = "Between 33 and 40 degC the alarm shall be raised.";
    for meta in [
        "The requirement text should be rewritten to clearly state that 40 is included.",
        "To clarify, the alarm is raised from 33 to 40 degC inclusive.",
        "Here is the rewritten requirement: the alarm shall be raised at 33 to 40 degC.",
        "The alarm range should be clarified to include both ends.",
        "It must be said whether this requirement includes 40 degC.",
        "Clarified version: Between 33 and 40 degC inclusive the alarm shall be raised.",
        "Revised: Between 33 and 40 degC inclusive the alarm shall be raised.",
        "Rewritten requirement: the alarm shall be raised from 33 to 40 degC.",
        "Answer: the alarm shall be raised from 33 to 40 degC inclusive.",
    ] {
        assert!(meta_answer(meta, original).is_some(), "{meta}");
    }
    // A colon inside a requirement that the original opens with too is not a label.
    assert_eq!(
        meta_answer(
            "In therapy: the alarm shall sound from 33 to 40 degC inclusive.",
            "In therapy: the alarm shall sound between 33 and 40 degC."
        ),
        None
    );
    for rewrite in [
        "Between 33 degC and 40 degC inclusive the alarm shall be raised.",
        "The alarm shall be raised whenever the temperature is at least 33 degC and at most 40 degC.",
        "If the temperature readings are between 33 and 40 degC, the alarm shall be raised.",
    ] {
        assert_eq!(meta_answer(rewrite, original), None, "{rewrite}");
    }
    // A phrase the original has too is not held against the rewrite.
    let own = "This requirement applies in therapy: the alarm shall sound above 40 degC.";
    assert_eq!(
        meta_answer(
            "This requirement applies in therapy: the alarm shall sound at 40 degC or more.",
            own
        ),
        None
    );
}

#[test]
fn clarification_where_nothing_converges_says_so() {
    // Every rewrite keeps three readings: no proposal converges, so the command's exit
    // status is 2 (see crates/vera/tests/recorded_runs.rs for the binary's side).
    let spec = spec();
    let c = ambiguous_model(false);
    let o = ClarifyOptions {
        rounds: 2,
        screening: AmbiguityOptions {
            only: only(&["R2"]),
            ..Default::default()
        },
        ..Default::default()
    };
    let rep = clarify(&spec, &c, &z3(), &o, None).unwrap();
    assert_eq!(rep.proposals.len(), 1);
    assert!(rep.proposals.iter().all(|p| !p.converged && !p.accepted));
    assert!(rep.proposals.iter().all(|p| p.formula.is_none()));
    assert_eq!(rep.stats.after.flagged, 1);
}

#[test]
fn clarification_follow_up_gets_a_real_rewrite() {
    let spec = spec();
    // The first rewrite repeats the text; told so, the model makes the bounds explicit.
    let c = client(|r, _| {
        let first = &r.messages[0].content;
        if first.contains("Rewrite the requirement") {
            let t = r2_text(first).to_string();
            return Ok(Response::text(if r.messages.len() == 1 {
                t
            } else {
                "Between 33 degC and 40 degC inclusive the alarm shall be raised.".into()
            }));
        }
        let u = last_user(r);
        Ok(Response::text(if u.contains("inclusive") {
            READINGS[1]
        } else {
            READINGS[(r.sample as usize) % 3]
        }))
    });
    let o = ClarifyOptions {
        screening: AmbiguityOptions {
            only: only(&["R2"]),
            ..Default::default()
        },
        ..Default::default()
    };
    let rep = clarify(&spec, &c, &z3(), &o, None).unwrap();
    let p = &rep.proposals[0];
    assert!(p.converged, "{p:?}");
    assert_eq!(p.rounds, 1);
    assert!(p.clarified.contains("inclusive"));
}

#[test]
fn voting_survives_a_repair_turn_the_provider_refuses() {
    let vars = VariableSpec::from_json(VARS).unwrap();
    let c = client(|r, _| {
        if r.messages.len() > 1 {
            return Err(llm::LlmError::Http {
                status: 400,
                message: "request exceeds the available context size".into(),
            });
        }
        Ok(Response::text(if r.sample == 2 {
            "Prose only."
        } else {
            GOOD
        }))
    });
    let o = VotingOptions {
        output: Some("Tax".into()),
        ..Default::default()
    };
    let v = vote("10% up to 1000, 20% above", &vars, &c, &z3(), &o).unwrap();
    assert!(v.accepted, "two valid translations of three");
    let d = &v.translations[2].diagnostics[0];
    assert_eq!(d.category, Category::Invalid);
    assert!(d.message.contains("no further repair"), "{}", d.message);
    assert_eq!(v.translations[2].attempts, 1);
}

#[test]
fn screening_token_limit_reaches_every_sample() {
    let spec = spec();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::<Option<u32>>::new()));
    let s2 = seen.clone();
    let c = client(move |r, _| {
        s2.lock().unwrap().push(r.max_tokens);
        Ok(Response::text("(=> (> temp 38) alarm)"))
    });
    let o = AmbiguityOptions {
        only: only(&["R1"]),
        samples: 3,
        max_tokens: Some(64),
        ..Default::default()
    };
    screen(&spec, &c, &z3(), &o).unwrap();
    assert_eq!(*seen.lock().unwrap(), vec![Some(64); 3]);
}

#[test]
fn ambiguity_without_two_valid_samples_could_not_screen() {
    let spec = spec();
    // R1: every sample is prose; R2: exactly one valid sample.
    let c = client(|r, _| {
        let u = last_user(r);
        let text = if u.contains("Between 33") && r.sample == 0 {
            "(=> (and (>= temp 33) (<= temp 40)) alarm)"
        } else {
            "I think the alarm should sound when it is hot."
        };
        Ok(Response::text(text))
    });
    let rep = screen(
        &spec,
        &c,
        &z3(),
        &AmbiguityOptions {
            only: only(&["R1", "R2"]),
            ..Default::default()
        },
    )
    .unwrap();
    assert!(rep.requirements.iter().all(|s| s.could_not_screen));
    assert_eq!(rep.requirements[0].valid, 0);
    assert_eq!(rep.requirements[1].valid, 1);
    assert_eq!(rep.summary.could_not_screen, 2);
    assert_eq!(
        rep.summary.pairwise_agreement, None,
        "no pair, no agreement"
    );
}

#[test]
fn formulas_the_user_wrote_are_kept_and_unreviewed_model_formulas_are_never_examples() {
    let text = format!(
        "{SPEC}\n[[requirements]]\nid = \"R4\"\ntext = \"The flow shall stay above 10 mL/min.\"\nformula = \"(> flow 10)\"\norigin = \"model\"\n"
    );
    let spec = reqs::parse_spec(SourceFile::new("t.toml", &text)).unwrap();
    let prompts = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let seen = prompts.clone();
    let c = client(move |r, _| {
        seen.lock().unwrap().push(last_user(r).to_string());
        Ok(Response::text("(=> (> temp 38) alarm)"))
    });
    let rep = formalize(
        &spec,
        &c,
        &z3(),
        &FormalizeOptions {
            forms: false,
            ..FormalizeOptions::default()
        },
    )
    .unwrap();
    // Only the two requirements without a formula were asked for.
    let asked: Vec<&str> = rep.requirements.iter().map(|f| f.id.as_str()).collect();
    assert_eq!(asked, ["R1", "R2"]);
    assert_eq!(rep.kept, ["R3", "R4"]);
    let asked_prompts = prompts.lock().unwrap().clone();
    assert_eq!(asked_prompts.len(), 2);
    for p in asked_prompts.iter() {
        assert!(
            p.contains("(<= flow 500.0)"),
            "the hand formula is an example: {p}"
        );
        assert!(
            !p.contains("(> flow 10"),
            "an unreviewed model formula is not: {p}"
        );
    }
    // The written spec marks the new formulas as the model's and keeps R3 and R4 as they were.
    let out = formalized_spec(&spec, &rep);
    let again = reqs::parse_spec(SourceFile::new("out.toml", &out)).unwrap();
    let origin = |id: &str| {
        again
            .requirements
            .iter()
            .find(|r| r.id == id)
            .unwrap()
            .origin
    };
    assert_eq!(origin("R1"), reqs::spec::Origin::Model);
    assert_eq!(origin("R3"), reqs::spec::Origin::Hand);
    assert_eq!(origin("R4"), reqs::spec::Origin::Model);

    // Asked for by name, a hand formula is formalized again.
    let rep = formalize(
        &spec,
        &c,
        &z3(),
        &FormalizeOptions {
            forms: false,
            only: only(&["R3"]),
            reformalize: vec!["R3".into()],
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(rep.requirements.len(), 1);
    assert!(rep.kept.is_empty());
}

#[test]
fn sentences_split_at_sentence_ends_only() {
    use pipeline::formalize::sentences;
    assert_eq!(
        sentences("The alarm shall sound above 38.5 degC. It shall stop below 37 degC."),
        vec![
            "The alarm shall sound above 38.5 degC.",
            "It shall stop below 37 degC."
        ]
    );
    // A decimal point, an abbreviation before a lower-case word, one sentence.
    assert_eq!(sentences("Below 8.5 V, e.g. at start, no light.").len(), 1);
    assert_eq!(sentences("  ").len(), 0);
}

const TWO_SENTENCES: &str =
    "Above 38 degC the alarm shall be raised. Below 30 degC it shall be off.";

/// A model that never gets the whole two-sentence text right but formalizes each
/// sentence alone; `bad_second` makes the second clause contradict the first (each
/// clause is satisfiable, their conjunction is not).
fn clause_model(bad_second: bool) -> Client {
    client(move |r, _| {
        let u = last_user(r);
        let text = if u.contains("This is one sentence of the requirement") {
            if u.contains("Formalize only this sentence")
                && u.contains("Below 30 degC it shall be off. (This")
            {
                if bad_second {
                    "(and (> temp 40) (not alarm))"
                } else {
                    "(=> (< temp 30) (not alarm))"
                }
            } else {
                "(=> (> temp 38) alarm)"
            }
        } else {
            "alarm above 38, off below 21"
        };
        Ok(Response::text(text))
    })
}

fn two_sentence_spec() -> Spec {
    let text = SPEC.replace(
        "Between 33 and 40 degC the alarm shall be raised.",
        TWO_SENTENCES,
    );
    reqs::parse_spec(SourceFile::new("t.toml", text)).unwrap_or_else(|d| panic!("{d}"))
}

#[test]
fn a_multi_sentence_requirement_is_formalized_clause_by_clause_when_turns_fail() {
    let spec = two_sentence_spec();
    for solver in [z3(), cvc5()] {
        let rep = formalize(
            &spec,
            &clause_model(false),
            &solver,
            &FormalizeOptions {
                forms: false,
                only: only(&["R2"]),
                max_retries: 1,
                ..Default::default()
            },
        )
        .unwrap();
        let f = &rep.requirements[0];
        assert_eq!(
            f.formula.as_deref(),
            Some("(and (=> (> temp 38.0) alarm) (=> (< temp 30.0) (not alarm)))"),
            "{:?}",
            f.attempts
        );
        let tags: Vec<&str> = f
            .attempts
            .iter()
            .map(|a| a.answer.split(']').next().unwrap_or(""))
            .collect();
        assert_eq!(
            tags[tags.len() - 3..],
            ["[clause 1/2", "[clause 2/2", "[clauses conjoined"]
        );
        assert_eq!(rep.after_repair, 1);
        assert_eq!(rep.first_attempt, 0);
    }
    // Switched off: the requirement stays unformalized.
    let rep = formalize(
        &spec,
        &clause_model(false),
        &z3(),
        &FormalizeOptions {
            forms: false,
            only: only(&["R2"]),
            max_retries: 1,
            decompose: false,
            ..Default::default()
        },
    )
    .unwrap();
    assert!(rep.requirements[0].formula.is_none());
    assert!(!rep.requirements[0]
        .attempts
        .iter()
        .any(|a| a.answer.starts_with("[clause")));
}

#[test]
fn clauses_whose_conjunction_is_unsatisfiable_give_no_formula() {
    let spec = two_sentence_spec();
    let rep = formalize(
        &spec,
        &clause_model(true),
        &z3(),
        &FormalizeOptions {
            forms: false,
            only: only(&["R2"]),
            max_retries: 1,
            ..Default::default()
        },
    )
    .unwrap();
    let f = &rep.requirements[0];
    assert!(f.formula.is_none(), "{:?}", f.formula);
    let conj = f
        .attempts
        .iter()
        .find(|a| a.answer.starts_with("[clauses conjoined]"))
        .expect("the clauses were conjoined and screened");
    assert!(
        conj.error
            .as_deref()
            .is_some_and(|e| e.contains("no state satisfies it")),
        "{conj:?}"
    );
}

#[test]
fn a_formula_over_variables_the_text_does_not_mention_is_screened_out() {
    let spec = spec();
    // The first answer drags in the flow, which R1's text never mentions; the repair
    // turn quotes the finding and the second answer is accepted.
    let c = client(|r, _| {
        let text = if r.messages.len() == 1 {
            "(=> (> temp 38) (and alarm (< flow 500)))"
        } else {
            assert!(
                last_user(r).contains(
                    "the formula mentions flow, which the requirement text does not talk about"
                ),
                "{}",
                last_user(r)
            );
            "(=> (> temp 38) alarm)"
        };
        Ok(Response::text(text))
    });
    let rep = formalize(
        &spec,
        &c,
        &z3(),
        &FormalizeOptions {
            forms: false,
            only: only(&["R1"]),
            ..Default::default()
        },
    )
    .unwrap();
    let f = &rep.requirements[0];
    assert_eq!(f.formula.as_deref(), Some("(=> (> temp 38.0) alarm)"));
    assert_eq!(f.attempts.len(), 2);
    // A variable named by its unit, its description or an enumeration value counts as
    // mentioned; one that is not, does not.
    let t = pipeline::formalize::parse_answer(&spec, "(=> (> temp 38) (and alarm (< flow 500)))")
        .unwrap();
    assert_eq!(
        pipeline::formalize::unmentioned_variables(&spec, &t, "Above 38 degC the alarm sounds."),
        vec!["flow".to_string()]
    );
    assert!(pipeline::formalize::unmentioned_variables(
        &spec,
        &t,
        "Above 38 degC the alarm sounds and the flow stays under 500 mL/min."
    )
    .is_empty());
}

#[test]
fn prose_with_numbers_gets_the_prose_feedback_not_an_infix_hint() {
    let spec = spec();
    let e = pipeline::formalize::parse_answer(
        &spec,
        "The requirement demands an alarm between 33 and 40 degC",
    )
    .unwrap_err();
    assert!(e.starts_with("text outside the formula"), "{e}");
    let e = pipeline::formalize::parse_answer(&spec, "temp > 38").unwrap_err();
    assert!(e.contains("infix `>` at column 6"), "{e}");
}

#[test]
fn a_hand_written_example_the_screening_rejects_is_never_shown() {
    // R3 (hand-written) is a tautology: it constrains nothing and would teach the model
    // to write one. R4 is a fair example.
    let text = format!(
        "{SPEC}\n[[requirements]]\nid = \"R4\"\ntext = \"Above 44 degC the alarm shall be raised.\"\nformula = \"(=> (> temp 44) alarm)\"\n"
    )
    .replace("formula = \"(<= flow 500)\"", "formula = \"(or alarm (not alarm))\"");
    let spec = reqs::parse_spec(SourceFile::new("t.toml", text)).unwrap();
    let prompts = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let p = prompts.clone();
    let c = client(move |r, _| {
        p.lock().unwrap().push(r.messages[0].content.clone());
        Ok(Response::text("(=> (> temp 38) alarm)"))
    });
    let o = FormalizeOptions {
        forms: false,
        only: only(&["R1"]),
        examples: 2,
        ..FormalizeOptions::default()
    };
    formalize(&spec, &c, &z3(), &o).unwrap();
    let seen = prompts.lock().unwrap();
    assert!(
        seen[0].contains("Above 44 degC the alarm shall be raised."),
        "{}",
        seen[0]
    );
    assert!(!seen[0].contains("(or alarm (not alarm))"), "{}", seen[0]);
    assert!(
        !seen[0].contains("The flow shall not exceed"),
        "{}",
        seen[0]
    );
}

#[test]
fn a_conditional_text_whose_condition_always_holds_is_screened_out() {
    let s = spec();
    let c = client(|r, _| {
        Ok(Response::text(if r.messages.len() == 1 {
            "(=> (or (> temp 38) (<= temp 38)) alarm)"
        } else {
            "(=> (> temp 38) alarm)"
        }))
    });
    let o = FormalizeOptions {
        forms: false,
        only: only(&["R1"]),
        ..FormalizeOptions::default()
    };
    let rep = formalize(&s, &c, &z3(), &o).unwrap();
    let f = &rep.requirements[0];
    assert_eq!(f.formula.as_deref(), Some("(=> (> temp 38.0) alarm)"));
    let first = f.attempts[0].error.as_deref().unwrap();
    assert!(
        first.contains(
            "holds in every state the domain allows, so the requirement's condition is lost"
        ),
        "{first}"
    );
}

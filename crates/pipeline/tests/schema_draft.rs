//! `pipeline::schema`: schema drafts from scripted model answers, each carrying one
//! defect, checked with real z3 and cvc5 processes.

use llm::{Cache, Client, Request, Response, Scripted};
use pipeline::schema::{
    draft_schema, read_requirements, DraftOptions, Finding, RequirementList, SchemaError,
};
use serde_json::{json, Value};
use solver::{SolverConfig, SolverKind};

const REQS: &str = r#"{"schema": "vera.requirements.v1", "requirements": [
  {"id": "5.1(3)", "text": "The basal rate shall be settable from Fbasal min = 1 to Fbasal max = 10 ml/hr.", "source": {"file": "pca.txt", "line": 12}},
  {"id": "5.2(1)", "text": "In Bolus mode the pump shall deliver the bolus volume of at most 20 ml.", "source": {"file": "pca.txt", "line": 20}},
  {"id": "6.1(4)", "text": "The pump shall sound the alarm when the door is open.", "source": {"file": "pca.txt", "line": 31}}
]}"#;

fn list() -> RequirementList {
    read_requirements("pca.json", REQS.as_bytes()).unwrap()
}

fn z3() -> SolverConfig {
    SolverConfig::new(SolverKind::Z3)
}

fn cvc5() -> SolverConfig {
    SolverConfig::new(SolverKind::Cvc5)
}

/// A client that answers the draft prompt with `draft` and the missing-variable prompt
/// with `missing` (an error when there is none); every request is counted.
fn client(draft: Value, missing: Option<Value>) -> Client {
    Client::builder(Scripted::from_fn(move |r: &Request, _| {
        let first = &r.messages.first().unwrap().content;
        if first.contains("Propose only the missing variables") {
            Ok(Response::text(
                missing
                    .as_ref()
                    .expect("no missing-variable round expected")
                    .to_string(),
            ))
        } else {
            Ok(Response::text(draft.to_string()))
        }
    }))
    .cache(Cache::in_memory().unwrap())
    .concurrency(1)
    .build()
}

#[allow(clippy::too_many_arguments)]
fn var(
    name: &str,
    sort: &str,
    unit: Option<&str>,
    description: &str,
    min: Option<f64>,
    max: Option<f64>,
    role: &str,
    serves: &[&str],
) -> Value {
    json!({"name": name, "sort": sort, "unit": unit, "description": description,
           "min": min, "max": max, "fixed": false, "role": role, "serves": serves})
}

/// The clean draft: every requirement served, every variable talked about, a satisfiable
/// domain with room in every range.
fn clean() -> Value {
    json!({
        "enums": [{"name": "PumpMode", "values": ["Stopped", "Basal", "Bolus"]}],
        "variables": [
            var("basal_rate", "Real", Some("ml/hr"), "programmed basal infusion rate", Some(1.0), Some(10.0), "input", &["5.1(3)"]),
            var("mode", "PumpMode", None, "operating mode of the pump", None, None, "output", &["5.2(1)"]),
            var("bolus_volume", "Real", Some("ml"), "volume delivered by a bolus", Some(0.0), Some(20.0), "output", &["5.2(1)"]),
            var("door_open", "Bool", None, "the pump door is open", None, None, "input", &["6.1(4)"]),
            var("alarm", "Bool", None, "the audible alarm sounds", None, None, "output", &["6.1(4)"]),
        ],
        "domain": [{"id": "D1", "text": "A stopped pump delivers no bolus.", "formula": "(=> (= mode Stopped) (= bolus_volume 0))"}]
    })
}

fn with(mut base: Value, f: impl FnOnce(&mut Value)) -> Value {
    f(&mut base);
    base
}

fn kinds(fs: &[Finding]) -> Vec<&'static str> {
    fs.iter().map(Finding::kind).collect()
}

#[test]
fn a_clean_draft_has_no_findings_and_becomes_a_loadable_spec() {
    for solver in [z3(), cvc5()] {
        let d = draft_schema(
            &list(),
            &client(clean(), None),
            &solver,
            &DraftOptions::default(),
        )
        .unwrap();
        assert!(d.report.findings.is_empty(), "{:?}", d.report.findings);
        assert_eq!(d.report.attempts, 1);
        assert_eq!(d.report.repair_rounds, 0);
        assert!(d.report.queries > 0, "the solver was asked");
        let text = d.spec_toml();
        let spec = reqs::parse_spec(logic::SourceFile::new("draft.toml", text.clone())).unwrap();
        assert_eq!(spec.variables.len(), 5);
        assert_eq!(spec.requirements.len(), 3);
        assert!(spec.requirements.iter().all(|r| r.formula.is_none()));
        let rate = spec.variable("basal_rate").unwrap();
        assert_eq!(rate.unit.as_deref(), Some("ml/hr"));
        assert_eq!(
            rate.min.as_ref().map(ToString::to_string).as_deref(),
            Some("1")
        );
        assert_eq!(
            rate.max.as_ref().map(ToString::to_string).as_deref(),
            Some("10")
        );
        assert_eq!(rate.role, Some(reqs::spec::Role::Input));
        assert!(spec.domain.iter().any(|c| c.id == "D1"));
        assert!(text.contains("# serves: 5.1(3)\n[[variables]]\nname = \"basal_rate\""));
        assert!(text.contains("# variables: door_open, alarm\n[[requirements]]\nid = \"6.1(4)\""));
        insta::assert_snapshot!("clean_draft_toml", text);
    }
}

#[test]
fn an_unsatisfiable_domain_is_reported_with_its_minimal_conflict() {
    let draft = with(clean(), |d| {
        d["variables"].as_array_mut().unwrap().push(var(
            "kvo_rate",
            "Real",
            Some("ml/hr"),
            "keep vein open rate",
            Some(0.1),
            Some(1.0),
            "input",
            &["5.1(3)"],
        ));
        d["domain"].as_array_mut().unwrap().push(json!({
            "id": "D2", "text": "The basal rate stays below the KVO rate.", "formula": "(< basal_rate kvo_rate)"}));
    });
    for solver in [z3(), cvc5()] {
        let d = draft_schema(
            &list(),
            &client(draft.clone(), None),
            &solver,
            &DraftOptions::default(),
        )
        .unwrap();
        let conflict = d.report.findings.iter().find_map(|f| match f {
            Finding::UnsatisfiableDomain { constraints } => Some(constraints.clone()),
            _ => None,
        });
        let mut c = conflict.expect("an unsatisfiable-domain finding");
        c.sort();
        assert_eq!(c, ["D2", "basal_rate.min", "kvo_rate.max"]);
        // No state: nothing is reported as fixed or forced equal from a model.
        assert!(!kinds(&d.report.findings).contains(&"single-point"));
        // The draft is still written: the conflict is for a person to resolve.
        reqs::parse_spec(logic::SourceFile::new("d.toml", d.spec_toml())).unwrap();
    }
}

#[test]
fn empty_ranges_are_reported_and_inverted_bounds_left_out() {
    let draft = with(clean(), |d| {
        // min > max from the model, and a bound contradicted by a constraint of its own.
        d["variables"][0]["min"] = json!(10);
        d["variables"][0]["max"] = json!(1);
        d["domain"].as_array_mut().unwrap().push(json!({
            "id": "D2", "text": "A bolus is larger than 50 ml.", "formula": "(> bolus_volume 50)"}));
    });
    for solver in [z3(), cvc5()] {
        let d = draft_schema(
            &list(),
            &client(draft.clone(), None),
            &solver,
            &DraftOptions::default(),
        )
        .unwrap();
        let empty: Vec<(String, Vec<String>, bool)> = d
            .report
            .findings
            .iter()
            .filter_map(|f| match f {
                Finding::EmptyRange {
                    variable,
                    constraints,
                    left_out,
                } => Some((variable.clone(), constraints.clone(), *left_out)),
                _ => None,
            })
            .collect();
        assert_eq!(
            empty,
            [
                (
                    "basal_rate".to_string(),
                    vec![
                        "basal_rate.min = 10".to_string(),
                        "basal_rate.max = 1".to_string()
                    ],
                    true
                ),
                (
                    "bolus_volume".to_string(),
                    vec!["bolus_volume.max".to_string(), "D2".to_string()],
                    false
                ),
            ]
        );
        // The domain's conflict is bolus_volume's empty range: not reported twice.
        assert!(
            !kinds(&d.report.findings).contains(&"unsatisfiable-domain"),
            "{:?}",
            d.report.findings
        );
        let text = d.spec_toml();
        assert!(text.contains(
            "# EMPTY RANGE: the draft gave min = 10 and max = 1; the bounds are left out"
        ));
        let spec = reqs::parse_spec(logic::SourceFile::new("d.toml", text)).unwrap();
        assert_eq!(spec.variable("basal_rate").unwrap().min, None);
    }
}

#[test]
fn a_single_point_range_is_reported_unless_the_document_states_it() {
    let draft = with(clean(), |d| {
        d["variables"][2]["min"] = json!(5);
        d["variables"][2]["max"] = json!(5);
        d["domain"] = json!([]);
    });
    let stated = with(draft.clone(), |d| d["variables"][2]["fixed"] = json!(true));
    for solver in [z3(), cvc5()] {
        let d = draft_schema(
            &list(),
            &client(draft.clone(), None),
            &solver,
            &DraftOptions::default(),
        )
        .unwrap();
        assert_eq!(
            d.report.findings,
            [Finding::SinglePoint {
                variable: "bolus_volume".into(),
                value: "5.0".into()
            }]
        );
        let d = draft_schema(
            &list(),
            &client(stated.clone(), None),
            &solver,
            &DraftOptions::default(),
        )
        .unwrap();
        assert!(d.report.findings.is_empty(), "{:?}", d.report.findings);
        assert!(d
            .spec_toml()
            .contains("# the document states a single value"));
    }
}

#[test]
fn variables_the_domain_forces_equal_are_reported() {
    let draft = with(clean(), |d| {
        d["variables"].as_array_mut().unwrap().push(var(
            "displayed_rate",
            "Real",
            Some("ml/hr"),
            "rate shown on the display",
            Some(0.0),
            Some(100.0),
            "output",
            &["5.1(3)"],
        ));
        d["domain"].as_array_mut().unwrap().push(json!({
            "id": "D2", "text": "The display shows the basal rate.", "formula": "(= displayed_rate basal_rate)"}));
    });
    for solver in [z3(), cvc5()] {
        let d = draft_schema(
            &list(),
            &client(draft.clone(), None),
            &solver,
            &DraftOptions::default(),
        )
        .unwrap();
        assert_eq!(
            d.report.findings,
            [Finding::ForcedEqual {
                a: "basal_rate".into(),
                b: "displayed_rate".into()
            }]
        );
    }
}

#[test]
fn the_same_quantity_under_two_names_is_flagged() {
    let draft = with(clean(), |d| {
        d["variables"].as_array_mut().unwrap().push(var(
            "rate_basal",
            "Real",
            Some("mL/h"),
            "basal rate programmed for infusion",
            Some(1.0),
            Some(10.0),
            "input",
            &["5.1(3)"],
        ));
    });
    for solver in [z3(), cvc5()] {
        let d = draft_schema(
            &list(),
            &client(draft.clone(), None),
            &solver,
            &DraftOptions::default(),
        )
        .unwrap();
        let dup: Vec<_> = d
            .report
            .findings
            .iter()
            .filter(|f| f.kind() == "duplicate-quantity")
            .collect();
        assert_eq!(dup.len(), 1, "{:?}", d.report.findings);
        let Finding::DuplicateQuantity {
            a,
            b,
            shared,
            similarity,
            ..
        } = dup[0]
        else {
            unreachable!()
        };
        assert_eq!((a.as_str(), b.as_str()), ("basal_rate", "rate_basal"));
        assert_eq!(shared, &["basal", "infusion", "programmed", "rate"]);
        assert!(*similarity >= 0.5);
        // Same unit but different things: not flagged (the volume is ml, the rate ml/hr).
        assert!(!d.report.findings.iter().any(|f| matches!(f,
            Finding::DuplicateQuantity { a, .. } if a == "bolus_volume")));
    }
}

#[test]
fn unused_variables_and_unknown_ids_are_reported() {
    let draft = with(clean(), |d| {
        let vs = d["variables"].as_array_mut().unwrap();
        vs.push(var(
            "battery_level",
            "Real",
            Some("%"),
            "charge left in the battery",
            Some(0.0),
            Some(100.0),
            "input",
            &[],
        ));
        vs.push(var(
            "occlusion",
            "Bool",
            None,
            "an occlusion is detected",
            None,
            None,
            "input",
            &["9.9(9)"],
        ));
    });
    for solver in [z3(), cvc5()] {
        let d = draft_schema(
            &list(),
            &client(draft.clone(), None),
            &solver,
            &DraftOptions::default(),
        )
        .unwrap();
        assert_eq!(
            d.report.findings,
            [
                Finding::UnusedVariable {
                    variable: "battery_level".into(),
                    reason: "it serves no requirement of the list".into()
                },
                Finding::UnknownRequirement {
                    variable: "occlusion".into(),
                    ids: vec!["9.9(9)".into()]
                },
                Finding::UnusedVariable {
                    variable: "occlusion".into(),
                    reason: "it serves no requirement of the list".into()
                },
            ]
        );
        assert!(d
            .spec_toml()
            .contains("# serves: (nothing)\n[[variables]]\nname = \"battery_level\""));
    }
}

/// The draft without the door and alarm variables: 6.1(4) has no variable.
fn missing_door() -> Value {
    with(clean(), |d| {
        d["variables"].as_array_mut().unwrap().truncate(3);
    })
}

#[test]
fn a_missing_variable_is_reported_when_no_repair_round_is_allowed() {
    let options = DraftOptions {
        repairs: 0,
        ..Default::default()
    };
    for solver in [z3(), cvc5()] {
        let d = draft_schema(&list(), &client(missing_door(), None), &solver, &options).unwrap();
        assert_eq!(
            d.report.findings,
            [Finding::MissingVariable {
                requirement: Some("6.1(4)".into()),
                constraint: None,
                symbols: vec![]
            }]
        );
        assert!(d
            .spec_toml()
            .contains("# MISSING VARIABLE: no variable of the schema serves this requirement\n[[requirements]]\nid = \"6.1(4)\""));
    }
}

#[test]
fn a_repair_round_proposes_the_missing_variables_and_checks_them() {
    let proposal = json!({"enums": [], "variables": [
        var("door_open", "Bool", None, "the pump door is open", None, None, "input", &["6.1(4)"]),
        var("alarm", "Bool", None, "the audible alarm sounds", None, None, "output", &["6.1(4)"]),
    ], "domain": []});
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::<Request>::new()));
    let s2 = seen.clone();
    let draft = missing_door();
    let c = Client::builder(Scripted::from_fn(move |r: &Request, _| {
        s2.lock().unwrap().push(r.clone());
        let first = &r.messages.first().unwrap().content;
        Ok(Response::text(
            if first.contains("Propose only the missing variables") {
                proposal.to_string()
            } else {
                draft.to_string()
            },
        ))
    }))
    .cache(Cache::in_memory().unwrap())
    .build();
    let d = draft_schema(&list(), &c, &z3(), &DraftOptions::default()).unwrap();
    assert!(d.report.findings.is_empty(), "{:?}", d.report.findings);
    assert_eq!(d.report.repair_rounds, 1);
    assert_eq!(d.report.proposed, ["door_open", "alarm"]);
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 2);
    // The repair prompt names the requirement, its text, and the schema so far.
    let asked = &seen[1].messages[0].content;
    assert!(asked.contains("- requirement 6.1(4): \"The pump shall sound the alarm when the door is open.\" (no variable of the schema serves it)"), "{asked}");
    assert!(asked.contains("\"basal_rate\""));
    assert!(d
        .spec_toml()
        .contains("# proposed in a repair round for a missing variable"));
}

#[test]
fn a_domain_constraint_over_an_undeclared_name_is_a_missing_variable() {
    let draft = with(clean(), |d| {
        d["domain"].as_array_mut().unwrap().push(json!({
            "id": "D2", "text": "A bolus never exceeds the VTBI limit.", "formula": "(<= bolus_volume vtbi_max)"}));
    });
    let options = DraftOptions {
        repairs: 0,
        ..Default::default()
    };
    for solver in [z3(), cvc5()] {
        let d = draft_schema(&list(), &client(draft.clone(), None), &solver, &options).unwrap();
        assert_eq!(
            d.report.findings,
            [Finding::MissingVariable {
                requirement: None,
                constraint: Some("D2".into()),
                symbols: vec!["vtbi_max".into()]
            }]
        );
        let text = d.spec_toml();
        assert!(text.contains(
            "domain constraint D2 `(<= bolus_volume vtbi_max)` is left out of the schema"
        ));
        let spec = reqs::parse_spec(logic::SourceFile::new("d.toml", text)).unwrap();
        assert!(!spec.domain.iter().any(|c| c.id == "D2"));
    }
}

#[test]
fn an_answer_that_is_not_a_draft_is_repaired_then_refused() {
    // Not JSON, then a draft with an unknown sort, then a good one.
    let answers = std::sync::Arc::new(std::sync::Mutex::new(vec![
        "Here is the schema you asked for.".to_string(),
        with(clean(), |d| d["variables"][0]["sort"] = json!("Float")).to_string(),
        clean().to_string(),
    ]));
    let a2 = answers.clone();
    let c = Client::builder(Scripted::from_fn(move |_, _| {
        Ok(Response::text(a2.lock().unwrap().remove(0)))
    }))
    .cache(Cache::in_memory().unwrap())
    .build();
    let d = draft_schema(&list(), &c, &z3(), &DraftOptions::default()).unwrap();
    assert_eq!(d.report.attempts, 3);
    assert_eq!(d.report.refused.len(), 2);
    assert!(
        d.report.refused[0].contains("not valid JSON"),
        "{}",
        d.report.refused[0]
    );
    assert_eq!(
        d.report.refused[1],
        "variable `basal_rate` has sort `Float`: use Bool, Int, Real or one of the enumerations"
    );
    assert!(d.report.findings.is_empty());

    // Always prose: the retry budget ends in a clear error.
    let c = Client::builder(Scripted::from_fn(|_, _| {
        Ok(Response::text("I cannot do that."))
    }))
    .cache(Cache::in_memory().unwrap())
    .build();
    let e = draft_schema(
        &list(),
        &c,
        &z3(),
        &DraftOptions {
            retries: 1,
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(matches!(e, SchemaError::NoDraft { answers: 2, .. }), "{e}");
    assert!(
        e.to_string()
            .starts_with("no valid schema draft after 2 answers; the last was refused because:"),
        "{e}"
    );

    // JSON that breaks the answer schema (no roles, no serves).
    let c = Client::builder(Scripted::from_fn(|_, _| {
        Ok(Response::text(
            r#"{"enums": [], "variables": [{"name": "x", "sort": "Real"}], "domain": []}"#,
        ))
    }))
    .cache(Cache::in_memory().unwrap())
    .build();
    let e = draft_schema(
        &list(),
        &c,
        &z3(),
        &DraftOptions {
            retries: 0,
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("no valid schema draft after 1 answers"),
        "{e}"
    );
}

#[test]
fn bad_requirement_lists_are_clear_errors() {
    let err = |bytes: &[u8]| read_requirements("in.json", bytes).unwrap_err().to_string();
    assert_eq!(
        err(b""),
        "in.json: the file is empty: no requirements to draft a schema for"
    );
    assert_eq!(
        err(b" \n\t\n"),
        "in.json: the file is empty: no requirements to draft a schema for"
    );
    assert_eq!(
        err(b"\x7fELF\x02\x01\x00\x00"),
        "in.json: a binary file (NUL byte at offset 6), not a requirement list"
    );
    assert_eq!(
        err(b"[[requirements]]\nid = \"R1\"\ntext = \"caf\xe9\"\n"),
        "in.json: line 3, column 12: not UTF-8 text"
    );
    let e = err(b"{\"schema\": \"vera.requirements.v1\",\n \"requirements\": [\n  {\"id\": \"R1\" \"text\": \"x\"}]}");
    assert_eq!(
        e,
        "in.json:3:15: not a requirement list: expected `,` or `}`"
    );
    assert_eq!(
        err(br#"{"schema": "vera.audit.v1", "requirements": []}"#),
        "in.json:1:1: `schema` is \"vera.audit.v1\"; expected \"vera.requirements.v1\" (the output of `vera extract --format json`)"
    );
    assert_eq!(
        err(br#"{"schema": "vera.requirements.v1", "requirements": []}"#),
        "in.json: no requirements in the file: nothing to draft a schema for"
    );
    assert_eq!(
        err(br#"{"requirements": [{"id": "R1"}]}"#),
        "in.json:1:1: requirements[0] needs an `id` and a `text`, both strings"
    );
    let e = err(b"[spec]\nname = 3\n");
    assert!(e.contains("in.json:2:8: error"), "{e}");
}

#[test]
fn a_spec_is_read_for_its_requirements_and_says_what_it_drops() {
    let spec = br#"[spec]
name = "toy"
[[variables]]
name = "temp"
sort = "Real"
[[requirements]]
id = "R1"
text = "Above 40 degrees the alarm sounds."
formula = "(> temp 40)"
[[requirements]]
id = "R2"
text = "Below 5 degrees the heater runs."
"#;
    let l = read_requirements("toy.toml", spec).unwrap();
    assert_eq!(l.name, "toy");
    assert_eq!(
        l.requirements
            .iter()
            .map(|r| r.id.as_str())
            .collect::<Vec<_>>(),
        ["R1", "R2"]
    );
    assert_eq!(
        l.notes,
        [
            "the input declares 1 variable; the draft starts from the requirement texts alone (the input's schema is not carried over)",
            "1 formula of the input is not carried over: it is over the input's schema, not the draft's",
        ]
    );
    // The TOML `vera extract` writes: requirements only.
    let l = read_requirements("x.toml", b"[spec]\nname = \"x\"\n\n[[requirements]]\nid = \"5.1(3)\"\ntext = \"The pump shall stop.\"\n").unwrap();
    assert_eq!(l.requirements.len(), 1);
    assert!(l.notes.is_empty());
}

#[test]
fn findings_json_is_stable() {
    let draft = with(clean(), |d| {
        let vs = d["variables"].as_array_mut().unwrap();
        vs.truncate(3);
        vs.push(var(
            "kvo_rate",
            "Real",
            Some("ml/hr"),
            "keep vein open rate",
            Some(0.1),
            Some(1.0),
            "input",
            &["5.1(3)"],
        ));
        d["domain"].as_array_mut().unwrap().push(json!({
            "id": "D2", "text": "The basal rate stays below the KVO rate.", "formula": "(< basal_rate kvo_rate)"}));
    });
    let d = draft_schema(
        &list(),
        &client(draft, None),
        &z3(),
        &DraftOptions {
            repairs: 0,
            ..Default::default()
        },
    )
    .unwrap();
    let mut v = serde_json::to_value(&d.report).unwrap();
    v["queries"] = json!("<varies>");
    insta::assert_snapshot!(
        "findings_unsat_and_missing",
        serde_json::to_string_pretty(&v).unwrap()
    );
}

/// Answers the probe's formalization prompts by requirement text.
fn formula_for(first: &str) -> Option<&'static str> {
    if !first.contains("Translate the requirement into one SMT-LIB 2 term") {
        return None;
    }
    let req = first
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("Requirement: "))?;
    Some(if req.starts_with("The basal rate") {
        // Mentions only an input: rejected by screening, not for a missing variable.
        "(<= basal_rate 10)"
    } else if req.starts_with("In Bolus mode") {
        "(=> (= mode Bolus) (<= bolus_volume 15))"
    } else {
        "(=> door_open alarm)"
    })
}

#[test]
fn a_requirement_that_fails_to_formalize_for_a_missing_variable_gets_it_proposed() {
    // The draft serves 6.1(4) with door_open only: no alarm to formalize it with.
    let draft = with(clean(), |d| {
        d["variables"].as_array_mut().unwrap().truncate(4);
    });
    let proposal = json!({"enums": [], "variables": [
        var("alarm", "Bool", None, "the audible alarm sounds", None, None, "output", &["6.1(4)"]),
    ], "domain": []});
    for solver in [z3(), cvc5()] {
        let (d2, p2) = (draft.clone(), proposal.clone());
        let c = Client::builder(Scripted::from_fn(move |r: &Request, _| {
            let first = &r.messages.first().unwrap().content;
            Ok(Response::text(match formula_for(first) {
                Some(f) => f.to_string(),
                None if first.contains("Propose only the missing variables") => {
                    assert!(first.contains("- requirement 6.1(4): \"The pump shall sound the alarm when the door is open.\" (formalizing it needed `alarm`, which the schema does not declare)"), "{first}");
                    p2.to_string()
                }
                None => d2.to_string(),
            }))
        }))
        .cache(Cache::in_memory().unwrap())
        .build();
        let options = DraftOptions {
            probe: true,
            ..Default::default()
        };
        let d = draft_schema(&list(), &c, &solver, &options).unwrap();
        assert!(d.report.findings.is_empty(), "{:?}", d.report.findings);
        let p = d.report.probe.as_ref().unwrap();
        assert_eq!(p.formalized, 1, "{p:?}");
        let failed: Vec<(&str, Vec<String>)> = p
            .failed
            .iter()
            .map(|f| (f.id.as_str(), f.undeclared.clone()))
            .collect();
        assert_eq!(
            failed,
            [("5.1(3)", vec![]), ("6.1(4)", vec!["alarm".to_string()])]
        );
        assert_eq!(p.after_repair.as_deref(), Some(&["6.1(4)".to_string()][..]));
        assert_eq!(d.report.proposed, ["alarm"]);
        assert_eq!(d.report.repair_rounds, 1);
        assert!(d.spec_toml().contains("# serves: 6.1(4)\n# proposed in a repair round for a missing variable\n[[variables]]\nname = \"alarm\""));

        // Without a repair round the missing variable is reported with the name the
        // answers needed.
        let c = {
            let d3 = draft.clone();
            Client::builder(Scripted::from_fn(move |r: &Request, _| {
                let first = &r.messages.first().unwrap().content;
                Ok(Response::text(
                    formula_for(first).map_or_else(|| d3.to_string(), str::to_string),
                ))
            }))
            .cache(Cache::in_memory().unwrap())
            .build()
        };
        let options = DraftOptions {
            probe: true,
            repairs: 0,
            ..Default::default()
        };
        let d = draft_schema(&list(), &c, &solver, &options).unwrap();
        assert_eq!(
            d.report.findings,
            [Finding::MissingVariable {
                requirement: Some("6.1(4)".into()),
                constraint: None,
                symbols: vec!["alarm".into()]
            }]
        );
        assert!(d.spec_toml().contains("# MISSING VARIABLE: formalizing it needed alarm, which the schema does not declare\n[[requirements]]\nid = \"6.1(4)\""));
    }
}

#[test]
fn parts_that_stay_broken_after_the_repair_turns_are_dropped_and_reported() {
    // What a small model wrote for the PCA pump: a requirement's words as a domain
    // formula, one value in two enumerations, one variable twice.
    let broken = with(clean(), |d| {
        d["enums"]
            .as_array_mut()
            .unwrap()
            .push(json!({"name": "Phase", "values": ["Basal", "Priming"]}));
        d["variables"].as_array_mut().unwrap().push(var(
            "basal_rate",
            "Real",
            Some("ml/hr"),
            "the basal rate again",
            None,
            None,
            "input",
            &["5.1(3)"],
        ));
        d["domain"].as_array_mut().unwrap().push(json!({
            "id": "D2", "text": "", "formula": "Fbasal min = 1 to Fbasal max = 10 ml/hr"}));
    });
    for solver in [z3(), cvc5()] {
        let d = draft_schema(
            &list(),
            &client(broken.clone(), None),
            &solver,
            &DraftOptions::default(),
        )
        .unwrap();
        // The model gives the same answer again: no third request after a repetition.
        assert_eq!(d.report.attempts, 2);
        assert_eq!(d.report.refused.len(), 2);
        let dropped: Vec<(&str, &str)> = d
            .report
            .findings
            .iter()
            .filter_map(|f| match f {
                Finding::Dropped { item, reason } => Some((item.as_str(), reason.as_str())),
                _ => None,
            })
            .collect();
        assert_eq!(dropped.len(), 3, "{:?}", d.report.findings);
        assert_eq!(dropped[0].0, "value Basal of enumeration Phase");
        assert_eq!(
            dropped[1],
            ("variable basal_rate", "`basal_rate` is declared twice")
        );
        assert_eq!(dropped[2].0, "domain constraint D2");
        assert!(
            dropped[2]
                .1
                .starts_with("domain constraint D2 `Fbasal min = 1 to Fbasal max = 10 ml/hr`: "),
            "{}",
            dropped[2].1
        );
        // Only the drops: what is left is the clean draft plus Phase with Priming.
        assert_eq!(d.report.findings.len(), 3, "{:?}", d.report.findings);
        assert_eq!(d.report.draft.variables.len(), 5);
        assert_eq!(d.report.draft.enums[1].values, ["Priming"]);
        assert!(d.report.notes.iter().any(|n| n == "after 2 answers the draft still had problems in 3 parts; they are left out (findings `dropped`)"), "{:?}", d.report.notes);
        let spec = reqs::parse_spec(logic::SourceFile::new("d.toml", d.spec_toml())).unwrap();
        assert_eq!(spec.variables.len(), 5);
    }
}

/// A list drafted two requirements at a time: the first request drafts, the second
/// extends the schema so far; a repeated variable serves the new ids, a repeated domain
/// constraint is not added twice, and a clashing domain id gets a fresh one.
#[test]
fn a_long_list_is_drafted_in_chunks_that_extend_the_schema() {
    let first = json!({
        "enums": [{"name": "PumpMode", "values": ["Stopped", "Basal"]}],
        "variables": [
            var("basal_rate", "Real", Some("ml/hr"), "programmed basal infusion rate", Some(1.0), Some(10.0), "input", &["5.1(3)"]),
            var("mode", "PumpMode", None, "operating mode of the pump", None, None, "output", &["5.2(1)"]),
            var("bolus_volume", "Real", Some("ml"), "volume delivered by a bolus", Some(0.0), Some(20.0), "output", &["5.2(1)"]),
        ],
        "domain": [{"id": "D1", "text": "A stopped pump delivers no bolus.", "formula": "(=> (= mode Stopped) (= bolus_volume 0))"}]
    });
    let second = json!({
        "enums": [{"name": "PumpMode", "values": ["Bolus"]}],
        "variables": [
            var("mode", "PumpMode", None, "operating mode", None, None, "output", &["6.1(4)"]),
            var("door_open", "Bool", None, "the pump door is open", None, None, "input", &["6.1(4)"]),
            var("alarm", "Bool", None, "the audible alarm sounds", None, None, "output", &["6.1(4)"]),
        ],
        "domain": [
            {"id": "D1", "text": "A stopped pump delivers no bolus.", "formula": "(=> (= mode Stopped) (= bolus_volume 0))"},
            {"id": "D1", "text": "An open door stops the pump.", "formula": "(=> door_open (= mode Stopped))"}
        ]
    });
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let s2 = seen.clone();
    let c = Client::builder(Scripted::from_fn(move |r: &Request, _| {
        let asked = r.messages.first().unwrap().content.clone();
        let answer = if asked.contains("Extend the schema") {
            second.to_string()
        } else {
            first.to_string()
        };
        s2.lock().unwrap().push(asked);
        Ok(Response::text(answer))
    }))
    .cache(Cache::in_memory().unwrap())
    .concurrency(1)
    .build();
    let options = DraftOptions {
        chunk: 2,
        ..Default::default()
    };
    for solver in [z3(), cvc5()] {
        let d = draft_schema(&list(), &c, &solver, &options).unwrap();
        let r = &d.report;
        assert_eq!((r.chunks, r.attempts), (2, 2));
        assert!(r.findings.is_empty(), "{:?}", r.findings);
        assert_eq!(r.draft.enums[0].values, ["Stopped", "Basal", "Bolus"]);
        let names: Vec<&str> = r.draft.variables.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(
            names,
            ["basal_rate", "mode", "bolus_volume", "door_open", "alarm"]
        );
        assert_eq!(r.draft.variables[1].serves, ["5.2(1)", "6.1(4)"]);
        // The first description is kept.
        assert_eq!(
            r.draft.variables[1].description.as_deref(),
            Some("operating mode of the pump")
        );
        let ids: Vec<(&str, &str)> = r
            .draft
            .domain
            .iter()
            .map(|d| (d.id.as_str(), d.formula.as_str()))
            .collect();
        assert_eq!(
            ids,
            [
                ("D1", "(=> (= mode Stopped) (= bolus_volume 0))"),
                ("D2", "(=> door_open (= mode Stopped))")
            ]
        );
        assert!(r.prompts.iter().any(|p| p.starts_with("schema-extend@")));
    }
    let seen = seen.lock().unwrap();
    // Each request lists its own chunk only; the second carries the schema without `serves`.
    assert!(seen[0].contains("- 5.2(1):") && !seen[0].contains("- 6.1(4):"));
    assert!(seen[1].contains("- 6.1(4):") && !seen[1].contains("- 5.1(3):"));
    assert!(seen[1].contains("\"basal_rate\"") && !seen[1].contains("\"serves\":"));
}

/// What the local model did on the Open PCA pump: domain constraints named after the
/// requirement they come from, and one id twice. They get fresh ids, the requirement id
/// stays in the text, and the written schema loads.
#[test]
fn domain_constraints_named_after_requirements_get_fresh_ids() {
    let draft = with(clean(), |d| {
        d["domain"] = json!([
            {"id": "5.2(1)", "text": "A stopped pump delivers no bolus.", "formula": "(=> (= mode Stopped) (= bolus_volume 0))"},
            {"id": "D2", "text": "", "formula": "(<= bolus_volume 20)"},
            {"id": "D2", "text": "", "formula": "(=> door_open alarm)"}
        ]);
    });
    let d = draft_schema(
        &list(),
        &client(draft, None),
        &z3(),
        &DraftOptions::default(),
    )
    .unwrap();
    let ids: Vec<(&str, Option<&str>)> = d
        .report
        .draft
        .domain
        .iter()
        .map(|c| (c.id.as_str(), c.text.as_deref()))
        .collect();
    assert_eq!(
        ids,
        [
            ("D1", Some("from 5.2(1): A stopped pump delivers no bolus.")),
            ("D2", Some("")),
            ("D3", Some(""))
        ]
    );
    let spec = reqs::parse_spec(logic::SourceFile::new("d.toml", d.spec_toml()))
        .unwrap_or_else(|e| panic!("the written schema does not load:\n{e}"));
    // The three constraints and the variables' bounds.
    assert!(spec.domain.len() >= 3);
    assert_eq!(spec.requirements.len(), 3);
}

/// An undecided check's finding says why in words (`reason`) and for a program
/// (`reason_kind`). (The draft's checks are linear, which both solvers decide, and a
/// non-linear domain constraint is dropped before any check, so the finding is built
/// here rather than obtained from a solver run.)
#[test]
fn an_undecided_check_says_why_for_a_program() {
    let f = Finding::Undecided {
        check: "satisfiability of the domain".into(),
        reason: solver::Undecided::new(solver::ReasonKind::Timeout, "the time limit was reached"),
    };
    let v = serde_json::to_value(&f).unwrap();
    assert_eq!(v["kind"], "undecided");
    assert_eq!(v["reason"], "the time limit was reached");
    assert_eq!(v["reason_kind"], "timeout");
    assert_eq!(
        pipeline::schema::finding_line(&f),
        "undecided: satisfiability of the domain (solver: the time limit was reached)"
    );
}

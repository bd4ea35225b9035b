//! Each audit on small hand-made specs whose answers are known, against z3 and cvc5.
//! Cores are checked to be minimal and witnesses are re-evaluated here.

use logic::{eval_bool, Model, SourceFile, Term, Value};
use reqs::audit::{Consistency, Redundancy, Vacuity, Violatability, Witness};
use reqs::{audit, AuditOptions, AuditReport, Spec};
use solver::{Outcome, Solver, SolverConfig, SolverKind};

const SOLVERS: [SolverKind; 2] = [SolverKind::Z3, SolverKind::Cvc5];

/// A spec from TOML text; panics with the diagnostics if it does not load.
fn spec(text: &str) -> Spec {
    reqs::parse_spec(SourceFile::new("test.toml", text)).unwrap_or_else(|d| panic!("{d}"))
}

/// Runs the audit with each solver and hands every report to `check`.
fn audit_both(spec: &Spec, max_conflicts: usize, check: impl Fn(SolverKind, &AuditReport)) {
    for kind in SOLVERS {
        let mut o = AuditOptions::new(SolverConfig::new(kind));
        o.jobs = 2;
        o.max_conflicts = max_conflicts;
        let r = audit(spec, &o).unwrap_or_else(|e| panic!("{kind}: {e}"));
        check(kind, &r);
    }
}

fn req<'a>(r: &'a AuditReport, id: &str) -> &'a reqs::audit::RequirementAudit {
    r.requirements
        .iter()
        .find(|a| a.id == id)
        .expect("requirement audited")
}

/// True when the given requirements (by id) and all domain constraints are satisfiable
/// together, asked of a fresh solver.
fn satisfiable(spec: &Spec, kind: SolverKind, ids: &[&str]) -> bool {
    let mut s = Solver::start(&SolverConfig::new(kind)).unwrap();
    let lits = reqs::audit::load_into(&mut s, spec).unwrap();
    let mut assume = lits.domain().to_vec();
    for l in lits.reqs_except(None) {
        if lits.id_of(spec, &l).is_some_and(|id| ids.contains(&id)) {
            assume.push(l);
        }
    }
    match s.check_assuming(&assume).unwrap() {
        Outcome::Sat(_) => true,
        Outcome::Unsat(_) => false,
        Outcome::Unknown(r) => panic!("unknown: {r}"),
    }
}

/// The witness as a model over the spec's variables.
fn model(spec: &Spec, w: &Witness) -> Model {
    let mut m = Model::new();
    for a in w {
        let v = spec.variable(&a.variable).expect("schema variable");
        let t =
            logic::parse_term(&SourceFile::new("value", to_smt(&a.value)), &spec.context).unwrap();
        let val = logic::eval(&t, &Model::new(), &spec.context).unwrap();
        let val = match (val, &v.sort) {
            (Value::Int(i), logic::Sort::Real) => Value::Real(i.into()),
            (v, _) => v,
        };
        m.insert(v.name.clone(), val);
    }
    m
}

/// Human value spelling (`-2.5`, `1/3`) to SMT-LIB.
fn to_smt(v: &str) -> String {
    let (neg, body) = v.strip_prefix('-').map_or((false, v), |b| (true, b));
    let body = match body.split_once('/') {
        Some((n, d)) => format!("(/ {n}.0 {d}.0)"),
        None => body.to_string(),
    };
    if neg {
        format!("(- {body})")
    } else {
        body
    }
}

fn formula<'a>(spec: &'a Spec, id: &str) -> &'a Term {
    spec.requirements
        .iter()
        .find(|r| r.id == id)
        .unwrap()
        .formula
        .as_ref()
        .unwrap()
}

const SCHEMA: &str = r#"
[[variables]]
name = "t"
sort = "Real"
unit = "degC"
min = 0
max = 50
[[variables]]
name = "lo"
sort = "Real"
[[variables]]
name = "p"
sort = "Real"
[[variables]]
name = "alarm"
sort = "Bool"
[[variables]]
name = "heater"
sort = "Bool"
[[variables]]
name = "n"
sort = "Int"
min = 0
max = 10
"#;

#[test]
fn consistent_spec_without_findings() {
    let s = spec(&format!(
        "{SCHEMA}\n[[requirements]]\nid = \"A\"\ntext = \"hot means alarm\"\nformula = \"(=> (> t 40) alarm)\"\n\
         [[requirements]]\nid = \"B\"\ntext = \"alarm stops the heater\"\nformula = \"(=> alarm (not heater))\"\n"
    ));
    audit_both(&s, 1, |k, r| {
        assert_eq!(r.consistency, Consistency::Consistent, "{k}");
        for a in &r.requirements {
            assert!(!a.has_findings(), "{k}: {a:?}");
            // Violating witnesses really violate, and respect the domain.
            let Violatability::Violatable { witness } = &a.violatability else {
                panic!("{k}: {a:?}")
            };
            let m = model(&s, witness);
            assert!(
                !eval_bool(formula(&s, &a.id), &m, &s.context).unwrap(),
                "{k}: {witness:?}"
            );
        }
    });
}

#[test]
fn minimal_conflict_and_all_conflicts() {
    let s = spec(&format!(
        "{SCHEMA}\n[[requirements]]\nid = \"A\"\ntext = \"\"\nformula = \"(<= n 1)\"\n\
         [[requirements]]\nid = \"B\"\ntext = \"\"\nformula = \"(>= n 2)\"\n\
         [[requirements]]\nid = \"C\"\ntext = \"\"\nformula = \"(>= n 3)\"\n\
         [[requirements]]\nid = \"D\"\ntext = \"\"\nformula = \"(=> alarm heater)\"\n"
    ));
    audit_both(&s, 1, |k, r| {
        let Consistency::Inconsistent { conflicts, .. } = &r.consistency else {
            panic!("{k}: {:?}", r.consistency)
        };
        assert_eq!(conflicts.len(), 1);
        let c: Vec<&str> = conflicts[0].iter().map(String::as_str).collect();
        assert!(c == ["A", "B"] || c == ["A", "C"], "{k}: {c:?}");
        // Minimal: the set is unsat, and dropping any member makes it satisfiable.
        assert!(!satisfiable(&s, k, &c));
        for drop in &c {
            let rest: Vec<&str> = c.iter().copied().filter(|x| x != drop).collect();
            assert!(
                satisfiable(&s, k, &rest),
                "{k}: {rest:?} should be satisfiable"
            );
        }
        // Under inconsistency the checks that need a consistent M are skipped, not faked.
        assert!(matches!(req(r, "D").redundancy, Redundancy::Skipped { .. }));
    });
    audit_both(&s, 10, |k, r| {
        let Consistency::Inconsistent {
            conflicts,
            complete,
            ..
        } = &r.consistency
        else {
            panic!("{k}")
        };
        let mut all: Vec<Vec<String>> = conflicts.clone();
        all.sort();
        assert_eq!(
            all,
            vec![
                vec!["A".to_string(), "B".into()],
                vec!["A".into(), "C".into()]
            ],
            "{k}"
        );
        assert!(complete, "{k}: the enumeration ends before the cap");
    });
}

#[test]
fn vacuous_under_the_domain() {
    let s = spec(&format!(
        "{SCHEMA}\n[[requirements]]\nid = \"A\"\ntext = \"boiling\"\nformula = \"(=> (> t 100) alarm)\"\n"
    ));
    audit_both(&s, 1, |k, r| {
        let a = req(r, "A");
        assert_eq!(
            a.vacuity_domain,
            Vacuity::Vacuous {
                because: vec!["t.max".into()],
                response_conflict: false
            },
            "{k}"
        );
        assert!(
            matches!(a.violatability, Violatability::ImpliedByDomain { .. }),
            "{k}"
        );
    });
}

#[test]
fn vacuous_because_of_another_requirement_and_redundant() {
    // The VeriMed r11/r55 pattern: a margin elsewhere makes the trigger unreachable.
    let s = spec(&format!(
        "{SCHEMA}\n[[requirements]]\nid = \"R11\"\ntext = \"low pressure alarm\"\nformula = \"(=> (< p lo) alarm)\"\n\
         [[requirements]]\nid = \"R55\"\ntext = \"margin\"\nformula = \"(>= p (+ lo 22.5))\"\n"
    ));
    audit_both(&s, 1, |k, r| {
        let a = req(r, "R11");
        assert_eq!(a.vacuity_domain, Vacuity::Reachable, "{k}");
        assert_eq!(
            a.vacuity_model,
            Vacuity::Vacuous {
                because: vec!["R55".into()],
                response_conflict: false
            },
            "{k}"
        );
        assert_eq!(
            a.redundancy,
            Redundancy::Redundant {
                subsumed_by: vec!["R55".into()]
            },
            "{k}"
        );
        assert!(!req(r, "R55").has_findings(), "{k}");
    });
}

#[test]
fn response_that_contradicts_others_makes_the_trigger_vacuous() {
    let s = spec(&format!(
        "{SCHEMA}\n[[requirements]]\nid = \"A\"\ntext = \"\"\nformula = \"(=> heater (> t 45))\"\n\
         [[requirements]]\nid = \"B\"\ntext = \"\"\nformula = \"(<= t 40)\"\n"
    ));
    audit_both(&s, 1, |k, r| {
        let a = req(r, "A");
        assert_eq!(
            a.vacuity_model,
            Vacuity::Vacuous {
                because: vec!["B".into()],
                response_conflict: true
            },
            "{k}"
        );
        // Not redundant: without A, heater with t <= 40 is allowed.
        assert!(
            matches!(a.redundancy, Redundancy::NotRedundant { .. }),
            "{k}"
        );
    });
}

#[test]
fn redundancy_through_a_margin_with_validated_witness() {
    let s = spec(&format!(
        "{SCHEMA}\n[[requirements]]\nid = \"A\"\ntext = \"alarm above 40\"\nformula = \"(=> (> t 40) alarm)\"\n\
         [[requirements]]\nid = \"B\"\ntext = \"alarm above 38\"\nformula = \"(=> (> t 38) alarm)\"\n"
    ));
    audit_both(&s, 1, |k, r| {
        assert_eq!(
            req(r, "A").redundancy,
            Redundancy::Redundant {
                subsumed_by: vec!["B".into()]
            },
            "{k}"
        );
        let Redundancy::NotRedundant { witness } = &req(r, "B").redundancy else {
            panic!("{k}")
        };
        // The witness breaks B while A holds: a temperature in (38, 40] without alarm.
        let m = model(&s, witness);
        assert!(
            !eval_bool(formula(&s, "B"), &m, &s.context).unwrap(),
            "{k}: {witness:?}"
        );
        assert!(
            eval_bool(formula(&s, "A"), &m, &s.context).unwrap(),
            "{k}: {witness:?}"
        );
        assert!(
            witness
                .iter()
                .all(|a| a.variable == "t" || a.variable == "alarm"),
            "restricted to B's variables"
        );
        assert_eq!(
            witness
                .iter()
                .find(|a| a.variable == "t")
                .unwrap()
                .unit
                .as_deref(),
            Some("degC")
        );
    });
}

#[test]
fn implied_by_the_domain() {
    let s = spec(&format!(
        "{SCHEMA}\n[[requirements]]\nid = \"A\"\ntext = \"\"\nformula = \"(<= n 10)\"\n"
    ));
    audit_both(&s, 1, |k, r| {
        assert_eq!(
            req(r, "A").violatability,
            Violatability::ImpliedByDomain {
                because: vec!["n.max".into()]
            },
            "{k}"
        );
    });
}

#[test]
fn domain_inconsistency_is_reported_first() {
    let s = spec(&format!(
        "{SCHEMA}\n[[domain]]\nid = \"D1\"\nformula = \"(> t 60)\"\n[[requirements]]\nid = \"A\"\ntext = \"\"\nformula = \"alarm\"\n"
    ));
    audit_both(&s, 1, |k, r| {
        assert_eq!(
            r.consistency,
            Consistency::DomainInconsistent {
                conflict: vec!["t.max".into(), "D1".into()]
            },
            "{k}"
        );
    });
}

#[test]
fn not_formalized_requirements_are_listed() {
    let s = spec(&format!(
        "{SCHEMA}\n[[requirements]]\nid = \"A\"\ntext = \"display the time\"\n"
    ));
    audit_both(&s, 1, |_, r| {
        assert_eq!(r.not_formalized, vec!["A".to_string()]);
        assert!(r.requirements.is_empty());
    });
}

#[test]
fn scenario_questions() {
    let s = spec(&format!(
        "{SCHEMA}\n[[requirements]]\nid = \"A\"\ntext = \"\"\nformula = \"(=> (> t 40) alarm)\"\n\
         [[requirements]]\nid = \"B\"\ntext = \"\"\nformula = \"(=> alarm (not heater))\"\n\
         [[requirements]]\nid = \"C\"\ntext = \"\"\nformula = \"(=> heater (< t 45))\"\n"
    ));
    let f = |x: &str| s.parse_formula("q", x).unwrap();
    for kind in SOLVERS {
        let mut a = reqs::Asker::new(&s, &SolverConfig::new(kind)).unwrap();
        match a.ask(&f("(> t 42)"), &f("(not heater)")).unwrap() {
            reqs::Verdict::Entailed { because } => assert_eq!(because, ["A", "B"], "{kind}"),
            v => panic!("{kind}: {v:?}"),
        }
        match a.ask(&f("(> t 30)"), &f("alarm")).unwrap() {
            reqs::Verdict::NotEntailed {
                counterexample,
                contradicts,
            } => {
                assert!(contradicts.is_empty());
                let t = counterexample.iter().find(|x| x.variable == "t").unwrap();
                let m = model(&s, &counterexample);
                assert!(
                    !eval_bool(&f("alarm"), &m, &s.context).unwrap(),
                    "{kind}: {t:?}"
                );
            }
            v => panic!("{kind}: {v:?}"),
        }
        match a.ask(&f("(> t 42)"), &f("heater")).unwrap() {
            reqs::Verdict::NotEntailed { contradicts, .. } => {
                assert_eq!(contradicts, ["A", "B"], "{kind}")
            }
            v => panic!("{kind}: {v:?}"),
        }
        match a.ask(&f("(and heater (> t 46))"), &f("alarm")).unwrap() {
            reqs::Verdict::ScenarioImpossible { because } => assert_eq!(because, ["C"], "{kind}"),
            v => panic!("{kind}: {v:?}"),
        }
        match a.derive(&f("(> t 42)")).unwrap() {
            reqs::Derivation::Facts { variables } => {
                let fact = |n: &str| {
                    variables
                        .iter()
                        .find(|v| v.variable == n)
                        .unwrap()
                        .fact
                        .clone()
                };
                assert_eq!(
                    fact("alarm"),
                    reqs::ask::Fact::Forced {
                        value: "true".into()
                    },
                    "{kind}"
                );
                assert_eq!(
                    fact("heater"),
                    reqs::ask::Fact::Forced {
                        value: "false".into()
                    },
                    "{kind}"
                );
                assert_eq!(
                    fact("t"),
                    reqs::ask::Fact::Bounded {
                        at_least: Some("40".into()),
                        at_most: Some("50".into())
                    },
                    "{kind}"
                );
            }
            d => panic!("{kind}: {d:?}"),
        }
    }
}

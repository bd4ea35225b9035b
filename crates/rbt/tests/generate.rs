//! The generator on small specs with known answers (z3 and cvc5) and on the shipped
//! hemodialysis spec (z3): every case is checked here again by evaluation against the
//! domain, every requirement and the obligations it claims; MC/DC pairs flip the
//! trigger; boundary cases sit at the bound and one step on either side; expected
//! outputs are forced or free as the spec says; unreachable obligations come with the
//! members that rule them out; the suite is reproducible and minimized.

use logic::{eval_bool, Model, SourceFile, Term};
use rbt::suite::{Expected, Status, Suite};
use rbt::{generate, GenerateError, Options, Problem};
use solver::{SolverConfig, SolverKind};
use std::path::Path;

const SOLVERS: [SolverKind; 2] = [SolverKind::Z3, SolverKind::Cvc5];

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn spec(text: &str) -> reqs::Spec {
    reqs::parse_spec(SourceFile::new("t.toml", text)).unwrap_or_else(|d| panic!("{d}"))
}

const PUMP: &str = r#"
[spec]
name = "pump"
[[variables]]
name = "x"
sort = "Int"
min = 0
max = 100
role = "input"
[[variables]]
name = "t"
sort = "Real"
min = 0
max = 10
role = "input"
[[variables]]
name = "mode"
sort = "Bool"
role = "input"
[[variables]]
name = "alarm"
sort = "Bool"
role = "output"
[[variables]]
name = "level"
sort = "Int"
min = 0
max = 10
role = "output"
[[requirements]]
id = "R1"
text = "In mode, above 50 the alarm is raised."
formula = "(=> (and mode (> x 50)) alarm)"
[[requirements]]
id = "R2"
text = "Out of mode the level is 0."
formula = "(=> (not mode) (= level 0))"
[[requirements]]
id = "R3"
text = "Above 200 the alarm is raised."
formula = "(=> (> x 200) alarm)"
[[requirements]]
id = "R4"
text = "A hot pump raises the alarm."
formula = "(=> (>= t 2.5) alarm)"
[[requirements]]
id = "R5"
text = "Not written yet."
"#;

/// Checks every claim the suite makes by evaluation, independently of the generator.
fn audit_suite(p: &Problem, s: &Suite) {
    let ctx = &p.spec.context;
    let obligations = rbt::obligations::obligations(p, true);
    let formula = |id: &str| -> &Term {
        &obligations
            .iter()
            .find(|o| o.id == id)
            .unwrap_or_else(|| panic!("no obligation {id}"))
            .formula
    };
    for c in &s.cases {
        let m: &Model = &c.model;
        for d in &p.spec.domain {
            assert!(
                eval_bool(&d.formula, m, ctx).unwrap(),
                "{} breaks {}",
                c.id,
                d.id
            );
        }
        for r in p.spec.formalized() {
            assert!(
                eval_bool(r.formula.as_ref().unwrap(), m, ctx).unwrap(),
                "{} breaks {}",
                c.id,
                r.id
            );
        }
        for o in &c.covers {
            assert!(
                eval_bool(formula(o), m, ctx).unwrap(),
                "{} does not meet {o}",
                c.id
            );
        }
        // Forced outputs are the state's values.
        for (n, e) in &c.expected_values {
            if let Expected::Value(v) = e {
                assert_eq!(m.get(n), Some(v), "{}: {n}", c.id);
            }
        }
    }
    assert_eq!(s.recheck.failures, Vec::<String>::new());
    assert_eq!(s.recheck.valid, s.cases.len());
    assert_eq!(s.recheck.expectations_confirmed, s.cases.len());
    // Every met obligation names cases that cover it, and only kept cases.
    for o in &s.obligations {
        if let Status::Met { cases } = &o.status {
            assert!(!cases.is_empty(), "{}", o.obligation.id);
            for c in cases {
                let case = s.cases.iter().find(|k| &k.id == c).unwrap();
                assert!(case.covers.contains(&o.obligation.id));
            }
        }
    }
    assert!(s.cases.len() <= s.cases_before_minimization);
}

fn value(s: &Suite, case: &str, var: &str) -> String {
    let c = s.cases.iter().find(|c| c.id == case).unwrap();
    c.state
        .iter()
        .find(|x| x.variable == var)
        .map(|x| x.value.clone())
        .unwrap()
}

fn case_for<'a>(s: &'a Suite, obligation: &str) -> &'a str {
    match &s
        .obligations
        .iter()
        .find(|o| o.obligation.id == obligation)
        .unwrap_or_else(|| panic!("no obligation {obligation}"))
        .status
    {
        Status::Met { cases } => &cases[0],
        other => panic!("{obligation}: {other:?}"),
    }
}

#[test]
fn small_spec_obligations_cases_and_findings() {
    for kind in SOLVERS {
        let p = Problem::from_spec(spec(PUMP), None).unwrap();
        let s = generate(&p, &Options::new(SolverConfig::new(kind))).unwrap();
        audit_suite(&p, &s);
        // MC/DC pair of `mode` in R1: the trigger holds in one case and not the other.
        let on = case_for(&s, "R1/T1=true");
        let off = case_for(&s, "R1/T1=false");
        assert_eq!(value(&s, on, "mode"), "true");
        assert_eq!(value(&s, off, "mode"), "false");
        assert!(value(&s, on, "x").parse::<i64>().unwrap() > 50, "{kind}");
        assert!(
            value(&s, off, "x").parse::<i64>().unwrap() > 50,
            "{kind}: masking"
        );
        // Boundaries of `x > 50` at the bound and one unit either side, with mode on.
        for (ob, x) in [
            ("R1/T2@at", "50"),
            ("R1/T2@above", "51"),
            ("R1/T2@below", "49"),
        ] {
            let c = case_for(&s, ob);
            assert_eq!(value(&s, c, "x"), x, "{kind} {ob}");
            assert_eq!(value(&s, c, "mode"), "true", "{kind} {ob}");
        }
        // Real boundaries at the default step of 0.01, on the grid.
        for (ob, t) in [
            ("R4/T1@at", "2.5"),
            ("R4/T1@above", "2.51"),
            ("R4/T1@below", "2.49"),
        ] {
            assert_eq!(value(&s, case_for(&s, ob), "t"), t, "{kind} {ob}");
        }
        // Expected outputs: where R1 fires the alarm is forced; out of mode the level is.
        let c = s.cases.iter().find(|c| c.id == on).unwrap();
        let exp = |c: &rbt::Case, n: &str| {
            c.expected_values
                .iter()
                .find(|(v, _)| &**v == n)
                .unwrap()
                .1
                .clone()
        };
        assert_eq!(exp(c, "alarm"), Expected::Value(logic::Value::Bool(true)));
        assert_eq!(
            exp(c, "level"),
            Expected::Free,
            "{kind}: in mode nothing fixes the level"
        );
        let c = s.cases.iter().find(|c| c.id == off).unwrap();
        assert_eq!(
            exp(c, "level"),
            Expected::Value(logic::Value::Int(0.into()))
        );
        // R3 can never fire: x is at most 100. Its finding names the bound.
        let st = |id: &str| {
            s.obligations
                .iter()
                .find(|o| o.obligation.id == id)
                .unwrap()
                .status
                .clone()
        };
        assert_eq!(
            st("R3/trigger"),
            Status::Unreachable {
                core: vec!["x.max".into()]
            },
            "{kind}"
        );
        // Its condition's false outcome is reachable (x <= 200 everywhere).
        assert!(matches!(st("R3/T1=false"), Status::Met { .. }));
        // The unwritten requirement is a finding, not a silent gap.
        assert!(s.findings.iter().any(|f| matches!(
            f,
            rbt::suite::Finding::NotFormalized { requirement, .. } if requirement == "R5"
        )));
        assert_eq!(s.undecided(), 0);
    }
}

#[test]
fn same_spec_same_suite_byte_for_byte() {
    for kind in SOLVERS {
        let run = || {
            let p = Problem::from_spec(spec(PUMP), None).unwrap();
            let s = generate(&p, &Options::new(SolverConfig::new(kind))).unwrap();
            (
                rbt::table::csv(&s),
                serde_json::to_string_pretty(&s).unwrap(),
                rbt::table::matrix_csv(&s),
            )
        };
        assert_eq!(run(), run(), "{kind}");
    }
}

#[test]
fn a_masked_condition_is_reported_with_its_reason() {
    // `b` is masked by `a` everywhere: (or a (and a b)) is just `a`.
    let text = r#"
[[variables]]
name = "a"
sort = "Bool"
role = "input"
[[variables]]
name = "b"
sort = "Bool"
role = "input"
[[variables]]
name = "y"
sort = "Bool"
role = "output"
[[requirements]]
id = "M1"
text = "masked"
formula = "(=> (or a (and a b)) y)"
"#;
    for kind in SOLVERS {
        let p = Problem::from_spec(spec(text), None).unwrap();
        let s = generate(&p, &Options::new(SolverConfig::new(kind))).unwrap();
        audit_suite(&p, &s);
        for id in ["M1/T3=true", "M1/T3=false"] {
            let o = s
                .obligations
                .iter()
                .find(|o| o.obligation.id == id)
                .unwrap();
            // No requirement is needed to rule it out: the formula itself masks `b`.
            assert_eq!(
                o.status,
                Status::Unreachable { core: vec![] },
                "{kind} {id}"
            );
        }
        assert!(matches!(
            s.obligations
                .iter()
                .find(|o| o.obligation.id == "M1/T1=true")
                .unwrap()
                .status,
            Status::Met { .. }
        ));
    }
}

#[test]
fn an_inconsistent_spec_is_an_error_with_its_conflict() {
    let p = Problem::from_spec(
        reqs::load(&root().join("examples/hemodialysis/hemodialysis-inconsistent.toml")).unwrap(),
        None,
    )
    .unwrap();
    for kind in SOLVERS {
        match generate(&p, &Options::new(SolverConfig::new(kind))) {
            Err(GenerateError::Inconsistent { core }) => {
                assert!(core.len() >= 2, "{core:?}");
                assert!(core.iter().all(|c| c.starts_with("R-")), "{core:?}");
            }
            other => panic!("{kind}: {:?}", other.map(|s| s.cases.len())),
        }
    }
}

#[test]
fn nothing_formalized_is_an_error() {
    let text = "[[variables]]\nname = \"a\"\nsort = \"Bool\"\n[[requirements]]\nid = \"U\"\ntext = \"later\"\n";
    let p = Problem::from_spec(spec(text), None).unwrap();
    assert!(matches!(
        generate(&p, &Options::new(SolverConfig::new(SolverKind::Z3))),
        Err(GenerateError::NothingToTest)
    ));
}

fn hemodialysis() -> Problem {
    let s = reqs::load(&root().join("examples/hemodialysis/hemodialysis.toml")).unwrap();
    let roles =
        std::fs::read_to_string(root().join("examples/hemodialysis/test-roles.toml")).unwrap();
    let inputs = rbt::problem::read_roles("test-roles.toml", &roles).unwrap();
    Problem::from_spec(s, Some(&inputs)).unwrap()
}

#[test]
fn hemodialysis_every_obligation_met_or_unreachable_with_a_reason() {
    let p = hemodialysis();
    let s = generate(&p, &Options::new(SolverConfig::new(SolverKind::Z3))).unwrap();
    audit_suite(&p, &s);
    assert_eq!(s.undecided(), 0);
    assert_eq!(s.met() + s.unreachable(), s.obligations.len());
    let unreachable: Vec<(&str, &Vec<String>)> = s
        .obligations
        .iter()
        .filter_map(|o| match &o.status {
            Status::Unreachable { core } => Some((o.obligation.id.as_str(), core)),
            _ => None,
        })
        .collect();
    for (id, core) in &unreachable {
        assert!(
            !core.is_empty(),
            "{id}: every hemodialysis finding has a cause"
        );
    }
    let core_of = |id: &str| {
        unreachable
            .iter()
            .find(|(o, _)| *o == id)
            .map(|(_, c)| (*c).clone())
            .unwrap_or_else(|| panic!("{id} is reachable"))
    };
    // The planted defects of the example (its README): R-COND-3 never fires because of
    // R-COND-1; priming is impossible through the R-AIR-1/R-AIR-2 overlap at 200.
    assert_eq!(core_of("R-COND-3/trigger"), ["R-COND-1"]);
    assert_eq!(
        core_of("R-PRIME-1/trigger"),
        ["R-AIR-1", "R-AIR-2", "R-PRIME-1"]
    );
    assert_eq!(core_of("R-AIR-1/T2@at"), ["R-AIR-1", "R-AIR-2"]);
    // A condition the domain makes always true cannot be false: blood_flow >= 0.
    assert_eq!(core_of("R-AIR-1/T1=false"), ["blood_flow.min"]);
    // Every other requirement's trigger is reached.
    for r in p.spec.formalized() {
        if r.id != "R-COND-3" && r.id != "R-PRIME-1" {
            case_for(&s, &format!("{}/trigger", r.id));
        }
    }
    assert_eq!(unreachable.len(), 15, "{unreachable:?}");
    assert!(s.cases.len() < s.cases_before_minimization);
}

mod boundaries {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(8))]
        /// For any comparison of an input with a threshold, the boundary cases put the
        /// input at the threshold and one unit either side (where the domain allows),
        /// and the side outside the domain is reported unreachable, with the bound.
        #[test]
        fn boundary_cases_sit_at_the_threshold(op in prop::sample::select(vec![">", ">=", "<", "<=", "="]), c in 0i64..=100) {
            let text = format!(r#"
[[variables]]
name = "x"
sort = "Int"
min = 0
max = 100
role = "input"
[[variables]]
name = "alarm"
sort = "Bool"
role = "output"
[[requirements]]
id = "B"
text = "threshold"
formula = "(=> ({op} x {c}) alarm)"
"#);
            let p = Problem::from_spec(spec(&text), None).unwrap();
            let s = generate(&p, &Options::new(SolverConfig::new(SolverKind::Z3))).unwrap();
            for (point, x) in [("at", c), ("above", c + 1), ("below", c - 1)] {
                let id = format!("B/T1@{point}");
                let o = s.obligations.iter().find(|o| o.obligation.id == id).unwrap();
                match &o.status {
                    Status::Met { cases } => {
                        prop_assert!((0..=100).contains(&x));
                        prop_assert_eq!(value(&s, &cases[0], "x"), x.to_string());
                    }
                    Status::Unreachable { core } => {
                        prop_assert!(!(0..=100).contains(&x), "{} unreachable at {}", id, x);
                        prop_assert_eq!(core.clone(), vec![if x < 0 { "x.min".to_string() } else { "x.max".to_string() }]);
                    }
                    other => prop_assert!(false, "{:?}", other),
                }
            }
        }
    }
}

//! Equivalence classes and distinguishing witnesses on hand-made candidate sets,
//! against z3 and cvc5.

use logic::SourceFile;
use reqs::equiv::{partition, Metrics, Universe};
use reqs::Spec;
use solver::{SolverConfig, SolverKind};

const SOLVERS: [SolverKind; 2] = [SolverKind::Z3, SolverKind::Cvc5];

const SPEC: &str = r#"
[[variables]]
name = "dialysate_temp"
sort = "Real"
unit = "degC"
min = 20
max = 45

[[variables]]
name = "alarm_temp"
sort = "Bool"

[[variables]]
name = "blood_flow"
sort = "Real"
unit = "mL/min"
min = 0
max = 600

[[variables]]
name = "air_threshold"
sort = "Real"
unit = "mL"
min = 0
max = 1

[[variables]]
name = "n"
sort = "Int"
min = 0
max = 10
"#;

fn spec() -> Spec {
    reqs::parse_spec(SourceFile::new("t.toml", SPEC)).unwrap_or_else(|d| panic!("{d}"))
}

fn terms(spec: &Spec, texts: &[&str]) -> Vec<logic::Term> {
    texts
        .iter()
        .map(|t| {
            spec.parse_formula("cand", t)
                .unwrap_or_else(|d| panic!("{d}"))
        })
        .collect()
}

#[test]
fn fig2_temperature_range_three_classes_with_endpoint_witnesses() {
    let spec = spec();
    let u = Universe::of_spec(&spec);
    // rho1 excludes both endpoints, rho2 includes both, rho3 excludes 33 and includes 40;
    // the fourth and fifth samples restate rho1 and rho2 in other words.
    let cands = terms(
        &spec,
        &[
            "(=> (and (> dialysate_temp 33) (< dialysate_temp 40)) alarm_temp)",
            "(=> (and (>= dialysate_temp 33) (<= dialysate_temp 40)) alarm_temp)",
            "(=> (and (> dialysate_temp 33) (<= dialysate_temp 40)) alarm_temp)",
            "(or alarm_temp (<= dialysate_temp 33) (>= dialysate_temp 40))",
            "(=> (not (or (< dialysate_temp 33) (> dialysate_temp 40))) alarm_temp)",
        ],
    );
    for kind in SOLVERS {
        let p = partition(&u, &cands, &SolverConfig::new(kind)).unwrap();
        assert_eq!(p.metrics.classes, 3, "{kind}");
        assert_eq!(p.class_of, vec![0, 1, 2, 0, 1], "{kind}");
        assert_eq!(p.classes[0].members, vec![0, 3]);
        assert_eq!(p.classes[1].representative, 1);
        assert_eq!(p.separations.len(), 3);
        // Every witness sits on an endpoint, is the boundary it was pinned to, and
        // really separates the two representatives.
        let mut endpoints = std::collections::BTreeSet::new();
        for s in &p.separations {
            for (d, (x, y)) in [(&s.only_a, (s.a, s.b)), (&s.only_b, (s.b, s.a))] {
                let Some(d) = d else { continue };
                let temp = d
                    .witness
                    .iter()
                    .find(|a| a.variable == "dialysate_temp")
                    .unwrap();
                assert_eq!(d.witness[0].variable, "dialysate_temp", "boundary first");
                assert!(temp.value == "33" || temp.value == "40", "{kind}: {d:?}");
                endpoints.insert(temp.value.clone());
                assert!(d
                    .boundary
                    .as_deref()
                    .unwrap()
                    .starts_with("dialysate_temp = "));
                assert!(d.explanation.contains("degC"), "{}", d.explanation);
                let mut m = logic::Model::new();
                for a in &d.witness {
                    let v = match a.value.as_str() {
                        "true" => logic::Value::Bool(true),
                        "false" => logic::Value::Bool(false),
                        num => logic::Value::Real(num_rational::BigRational::from_integer(
                            num.parse::<i64>().unwrap().into(),
                        )),
                    };
                    m.insert(a.variable.as_str().into(), v);
                }
                let ev = |i: usize| logic::eval_bool(&cands[i], &m, &spec.context).unwrap();
                let (rx, ry) = (p.classes[x].representative, p.classes[y].representative);
                assert!(ev(rx) && !ev(ry), "{kind}: {d:?}");
            }
        }
        assert_eq!(
            endpoints.into_iter().collect::<Vec<_>>(),
            ["33", "40"],
            "{kind}"
        );
        // rho1 vs rho2: only rho2 allows nothing more... rho1 ⊂ rho2 as readings of
        // the range, so the alarm-free state at 33 is allowed by rho1 only.
        let s01 = &p.separations[0];
        assert!(
            s01.only_a.is_some() && s01.only_b.is_none(),
            "{kind}: {s01:?}"
        );
        let e = &s01.only_a.as_ref().unwrap().explanation;
        assert!(
            e.starts_with("at dialysate_temp = 33 degC, alarm_temp = false")
                && e.contains("reading B requires alarm_temp and reading A does not"),
            "{e}"
        );
        let m = p.metrics;
        assert_eq!((m.agreeing_pairs, m.pairs), (2, 10));
        assert!((m.pairwise_agreement - 0.2).abs() < 1e-9);
        assert!((m.confidence - 0.4).abs() < 1e-9);
        let h = -(2.0 * 0.4 * 0.4f64.log2() + 0.2 * 0.2f64.log2());
        assert!((m.entropy - h).abs() < 1e-9);
    }
}

#[test]
fn air_threshold_overlap_at_200() {
    let spec = spec();
    let u = Universe::of_spec(&spec);
    let cands = terms(
        &spec,
        &[
            "(=> (and (>= blood_flow 0) (<= blood_flow 200)) (= air_threshold 0.3))",
            "(=> (and (>= blood_flow 0) (< blood_flow 200)) (= air_threshold 0.3))",
        ],
    );
    for kind in SOLVERS {
        let p = partition(&u, &cands, &SolverConfig::new(kind)).unwrap();
        assert_eq!(p.metrics.classes, 2);
        let s = &p.separations[0];
        assert!(s.only_a.is_none(), "A is stronger: nothing only A allows");
        let d = s.only_b.as_ref().unwrap();
        assert_eq!(d.boundary.as_deref(), Some("blood_flow = 200"), "{kind}");
        assert!(
            d.explanation.starts_with("at blood_flow = 200 mL/min")
                && d.explanation
                    .contains("reading A requires (= air_threshold 0.3) and reading B does not"),
            "{}",
            d.explanation
        );
    }
}

#[test]
fn agreement_under_the_domain_and_integers() {
    let spec = spec();
    let u = Universe::of_spec(&spec);
    // Equivalent only because of the bounds (n <= 10) and integrality (n > 2 is n >= 3).
    let cands = terms(
        &spec,
        &["(> n 2)", "(>= n 3)", "(and (>= n 3) (<= n 10))", "(< n 3)"],
    );
    for kind in SOLVERS {
        let p = partition(&u, &cands, &SolverConfig::new(kind)).unwrap();
        assert_eq!(p.class_of, vec![0, 0, 0, 1], "{kind}");
        assert!((p.metrics.confidence - 0.75).abs() < 1e-9);
        let s = &p.separations[0];
        for d in [&s.only_a, &s.only_b] {
            let d = d.as_ref().unwrap();
            assert_eq!(d.witness.len(), 1);
            assert!(d.boundary.is_some(), "{d:?}");
        }
        assert!(p.undecided.is_empty());
    }
}

#[test]
fn metrics_edge_cases() {
    let one = Metrics::from_sizes(&[1]);
    assert_eq!((one.classes, one.pairs), (1, 0));
    assert_eq!(one.pairwise_agreement, 1.0);
    assert_eq!(one.entropy, 0.0);
    assert_eq!(one.confidence, 1.0);
    let none = Metrics::from_sizes(&[]);
    assert_eq!(none.confidence, 0.0);
    let split = Metrics::from_sizes(&[2, 2]);
    assert!((split.entropy - 1.0).abs() < 1e-12);
    assert!((split.pairwise_agreement - 1.0 / 3.0).abs() < 1e-12);
}

#[test]
fn inconsistent_domain_is_an_error() {
    let spec = reqs::parse_spec(SourceFile::new(
        "t.toml",
        "[[variables]]\nname = \"x\"\nsort = \"Int\"\n[[domain]]\nid = \"D\"\nformula = \"(and (> x 1) (< x 0))\"\n",
    ))
    .unwrap();
    let u = Universe::of_spec(&spec);
    let c = terms(&spec, &["(> x 0)"]);
    for kind in SOLVERS {
        let e = partition(&u, &c, &SolverConfig::new(kind)).unwrap_err();
        assert!(
            matches!(e, reqs::equiv::EquivError::DomainInconsistent),
            "{e}"
        );
    }
}

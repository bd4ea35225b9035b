//! Mutation operators on small formulas, detection on known cases (z3 and cvc5), and
//! Wilson intervals against the values VeriMed reports.

use logic::SourceFile;
use reqs::mutate::{analyze, mutants, wilson, Category, Detection};
use solver::{SolverConfig, SolverKind};

fn spec(text: &str) -> reqs::Spec {
    reqs::parse_spec(SourceFile::new("test.toml", text)).unwrap_or_else(|d| panic!("{d}"))
}

const SCHEMA: &str = r#"
[[enums]]
name = "Mode"
values = ["Idle", "Run"]
[[variables]]
name = "t"
sort = "Real"
min = 0
max = 100
[[variables]]
name = "alarm"
sort = "Bool"
[[variables]]
name = "heater"
sort = "Bool"
[[variables]]
name = "mode"
sort = "Mode"
[[variables]]
name = "rate"
sort = "Int"
"#;

#[test]
fn wilson_intervals_match_the_paper() {
    let pct = |(a, b): (f64, f64)| ((a * 1000.0).round() / 10.0, (b * 1000.0).round() / 10.0);
    assert_eq!(pct(wilson(249, 256)), (94.5, 98.7));
    assert_eq!(pct(wilson(63, 64)), (91.7, 99.7));
    assert_eq!(pct(wilson(0, 10)), (0.0, 27.8));
    assert_eq!(wilson(0, 0), (0.0, 1.0));
}

#[test]
fn operators_produce_what_they_claim() {
    let s = spec(SCHEMA);
    let f = s
        .parse_formula(
            "f",
            "(=> (and (= mode Run) (> t 40)) (and alarm (= rate 3)))",
        )
        .unwrap();
    let ms = mutants("R1", &f);
    let show = |c: Category| -> Vec<String> {
        ms.iter()
            .filter(|m| m.category == c)
            .map(|m| logic::print::term(&m.formula))
            .collect()
    };
    assert_eq!(
        show(Category::GuardRemoval),
        [
            "(=> (> t 40.0) (and alarm (= rate 3)))",
            "(=> (= mode Run) (and alarm (= rate 3)))"
        ]
    );
    // In a trigger, raising a lower threshold suppresses the alarm; lowering it is a limit change.
    assert_eq!(
        show(Category::FalseAlarmSuppression),
        ["(=> (and (= mode Run) (> t 41.0)) (and alarm (= rate 3)))"]
    );
    assert_eq!(
        show(Category::LimitViolation),
        ["(=> (and (= mode Run) (> t 39.0)) (and alarm (= rate 3)))"]
    );
    assert_eq!(
        show(Category::RelationalFlip),
        ["(=> (and (= mode Run) (<= t 40.0)) (and alarm (= rate 3)))"]
    );
    assert_eq!(
        show(Category::BoundaryFlip),
        ["(=> (and (= mode Run) (>= t 40.0)) (and alarm (= rate 3)))"]
    );
    assert_eq!(
        show(Category::ValueMismatch),
        ["(=> (and (= mode Run) (> t 40.0)) (and alarm (= rate 4)))"]
    );
    assert_eq!(
        show(Category::ResponseNegation),
        ["(=> (and (= mode Run) (> t 40.0)) (not (and alarm (= rate 3))))"]
    );
    // Every mutant differs from the original and from every other.
    for (i, m) in ms.iter().enumerate() {
        assert_ne!(m.formula, f);
        assert!(ms[..i].iter().all(|o| o.formula != m.formula));
    }
}

#[test]
fn detection_on_known_cases() {
    let s = spec(&format!(
        "{SCHEMA}\n[[requirements]]\nid = \"A\"\ntext = \"\"\nformula = \"(=> (> t 40) alarm)\"\n\
         [[requirements]]\nid = \"B\"\ntext = \"\"\nformula = \"(=> (>= t 0) (not heater))\"\n\
         [[requirements]]\nid = \"C\"\ntext = \"\"\nformula = \"(=> alarm heater)\"\n"
    ));
    for kind in [SolverKind::Z3, SolverKind::Cvc5] {
        let r = analyze(&s, &SolverConfig::new(kind), 2).unwrap();
        let find = |req: &str, desc: &str| {
            r.mutants
                .iter()
                .find(|m| m.mutant.requirement == req && m.mutant.description.contains(desc))
                .unwrap_or_else(|| panic!("{req}: {desc}"))
                .detection
                .clone()
        };
        // B's trigger `t >= 0` is implied by the domain: removing it changes nothing.
        assert_eq!(find("B", "always applies"), Detection::Equivalent, "{kind}");
        // A's threshold moved: told apart at a temperature between the two limits.
        match find("A", "becomes `(> t 41.0)`") {
            Detection::NotEquivalent { direction, witness } => {
                assert_eq!(direction, "mutant-only", "{kind}");
                let t = witness.iter().find(|a| a.variable == "t").unwrap();
                let v: f64 = t
                    .value
                    .split('/')
                    .map(|x| x.parse::<f64>().unwrap())
                    .reduce(|a, b| a / b)
                    .unwrap();
                assert!(v > 40.0 && v <= 41.0, "{kind}: {t:?}");
            }
            d => panic!("{kind}: {d:?}"),
        }
        // With B negated the heater is always on, which C allows: the mutant is not
        // equivalent to B (it does not make the requirements inconsistent).
        assert!(
            matches!(
                find("B", "response negated"),
                Detection::NotEquivalent { .. }
            ),
            "{kind}"
        );
        let overall = r.rates.last().unwrap();
        assert_eq!(overall.category, "overall");
        assert_eq!(overall.mutants, r.mutants.len());
    }
}

#[test]
fn a_mutant_that_breaks_consistency_is_detected_as_such() {
    let s = spec(&format!(
        "{SCHEMA}\n[[requirements]]\nid = \"A\"\ntext = \"\"\nformula = \"(=> (> t 40) alarm)\"\n\
         [[requirements]]\nid = \"B\"\ntext = \"\"\nformula = \"(<= t 50)\"\n"
    ));
    let r = analyze(&s, &SolverConfig::new(SolverKind::Z3), 1).unwrap();
    let neg = r
        .mutants
        .iter()
        .find(|m| {
            m.mutant.requirement == "B"
                && m.mutant.category == Category::LimitViolation
                && m.mutant.description.contains("49.0")
        })
        .unwrap();
    assert!(matches!(neg.detection, Detection::NotEquivalent { .. }));
    let inv = r
        .mutants
        .iter()
        .find(|m| m.mutant.requirement == "B" && m.mutant.category == Category::ResponseNegation)
        .unwrap();
    // (not (<= t 50)) is satisfiable with the rest, so it is told apart, not inconsistent.
    assert!(matches!(inv.detection, Detection::NotEquivalent { .. }));
}

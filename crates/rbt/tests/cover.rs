//! Coverage of existing suites: a hand-written suite with an invalid vector, partial
//! vectors, gaps and an unexercised requirement (z3 and cvc5); unreadable cells located;
//! and the generated hemodialysis suite read back from its own CSV test table, whose
//! coverage must be exactly what the generator claimed for every implementation (the
//! obligations that depend on free outputs excepted).

use logic::SourceFile;
use rbt::cover::{cover, read_vectors, Coverage, Validity};
use rbt::{generate, Options, Problem};
use solver::{SolverConfig, SolverKind};
use std::collections::BTreeSet;
use std::path::Path;

const PUMP: &str = r#"
[[variables]]
name = "x"
sort = "Int"
min = 0
max = 100
role = "input"
[[variables]]
name = "mode"
sort = "Bool"
role = "input"
[[variables]]
name = "alarm"
sort = "Bool"
role = "output"
[[requirements]]
id = "R1"
text = "In mode, above 50 the alarm is raised."
formula = "(=> (and mode (> x 50)) alarm)"
[[requirements]]
id = "R2"
text = "Below 10 the alarm is off."
formula = "(=> (< x 10) (not alarm))"
"#;

fn pump() -> Problem {
    let spec = reqs::parse_spec(SourceFile::new("pump.toml", PUMP)).unwrap();
    Problem::from_spec(spec, None).unwrap()
}

#[test]
fn a_hand_written_suite_with_gaps_and_an_impossible_vector() {
    let p = pump();
    let csv = "id,x,mode,alarm,note\n\
               V1,60,true,,alarm forced\n\
               V2,60,true,false,impossible: R1 demands the alarm\n\
               V3,5,false,,\n\
               V4,30,,free,mode left open\n";
    let vs = read_vectors(&p, "suite.csv", csv).unwrap();
    assert_eq!(vs.ignored, ["note"]);
    assert_eq!(vs.vectors.len(), 4);
    assert_eq!(
        vs.vectors[3].values.len(),
        1,
        "empty and `free` cells leave variables open"
    );
    for kind in [SolverKind::Z3, SolverKind::Cvc5] {
        let r = cover(&p, &vs, &SolverConfig::new(kind), true).unwrap();
        assert_eq!(r.vectors[0].validity, Validity::Valid);
        assert_eq!(
            r.vectors[1].validity,
            Validity::Invalid {
                core: vec!["R1".into()]
            },
            "{kind}"
        );
        assert_eq!(r.vectors[1].line, 3);
        assert!(r.vectors[1].meets.is_empty());
        let cov = |id: &str| {
            r.obligations
                .iter()
                .find(|o| o.obligation.id == id)
                .unwrap()
                .coverage
                .clone()
        };
        // V1 makes R1 apply (the alarm is forced even though the vector leaves it open).
        assert_eq!(
            cov("R1/trigger"),
            Coverage::Met {
                vectors: vec!["V1".into()]
            }
        );
        assert_eq!(
            cov("R1/R1"),
            Coverage::Met {
                vectors: vec!["V1".into()]
            }
        );
        // V3 makes R2 apply; V4 leaves `mode` open, so it shows nothing about R1's
        // conditions, only R2's (x = 30 is not below 10 whatever the mode).
        assert_eq!(
            cov("R2/trigger"),
            Coverage::Met {
                vectors: vec!["V3".into()]
            }
        );
        assert!(
            matches!(cov("R2/T1=false"), Coverage::Met { vectors } if vectors.contains(&"V4".to_string()))
        );
        // Gaps: nobody puts x at 50 in mode, or in mode with x at most 50.
        assert_eq!(cov("R1/T2@at"), Coverage::Missed);
        assert_eq!(cov("R1/T2=false"), Coverage::Missed);
        // An obligation no valid state meets is not a gap: x < 10 with the alarm deciding
        // R2 the other way round would need the alarm on.
        assert!(r.not_exercised.is_empty());
        assert_eq!(r.invalid(), 1);
    }
    // No vector makes R1 apply: it is listed as not exercised.
    let vs = read_vectors(&p, "s.csv", "x,mode\n5,true\n20,false\n").unwrap();
    let r = cover(&p, &vs, &SolverConfig::new(SolverKind::Z3), false).unwrap();
    assert_eq!(r.not_exercised, ["R1"]);
}

#[test]
fn unreadable_cells_are_located_all_at_once() {
    let p = pump();
    let e = read_vectors(&p, "s.csv", "x,mode,alarm\n1.5,yes,true\n3,true,maybe\n").unwrap_err();
    assert_eq!(
        e.0,
        [
            "s.csv:2:1: x: `1.5` is not a whole number",
            "s.csv:2:2: mode: `yes` is not a Boolean (true or false)",
            "s.csv:3:3: alarm: `maybe` is not a Boolean (true or false)",
        ]
    );
    let e = read_vectors(&p, "s.csv", "a,b\n1,2\n").unwrap_err();
    assert!(e.0[0].contains("no column is named as a variable"), "{e}");
    let e = read_vectors(&p, "s.csv", "x,x\n1,2\n").unwrap_err();
    assert!(e.0[0].contains("appears twice"), "{e}");
}

#[test]
fn the_generated_hemodialysis_suite_covers_what_it_claims() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let spec = reqs::load(&root.join("examples/hemodialysis/hemodialysis.toml")).unwrap();
    let roles =
        std::fs::read_to_string(root.join("examples/hemodialysis/test-roles.toml")).unwrap();
    let inputs = rbt::problem::read_roles("test-roles.toml", &roles).unwrap();
    let p = Problem::from_spec(spec, Some(&inputs)).unwrap();
    let z3 = SolverConfig::new(SolverKind::Z3);
    let suite = generate(&p, &Options::new(z3.clone())).unwrap();
    let table = rbt::table::csv(&suite);
    let vs = read_vectors(&p, "suite.csv", &table).unwrap();
    assert_eq!(vs.ignored, ["obligations", "requirements"]);
    let r = cover(&p, &vs, &z3, true).unwrap();
    assert_eq!(r.invalid(), 0);
    assert!(!r.has_errors());
    // What the generator claims for every implementation: met by a case whose claim does
    // not depend on free outputs.
    let mut claimed = BTreeSet::new();
    for c in &suite.cases {
        for o in &c.covers {
            if !c.depends_on_free_outputs.contains(o) {
                claimed.insert(o.clone());
            }
        }
    }
    let met: BTreeSet<String> = r
        .obligations
        .iter()
        .filter(|o| matches!(o.coverage, Coverage::Met { .. }))
        .map(|o| o.obligation.id.clone())
        .collect();
    assert_eq!(met, claimed);
    // The same obligations are unreachable either way, for the same reasons.
    for (g, c) in suite.obligations.iter().zip(&r.obligations) {
        if let rbt::suite::Status::Unreachable { core } = &g.status {
            assert_eq!(c.coverage, Coverage::Unreachable { core: core.clone() });
        }
    }
    // R-BF-1 applies only when the pump runs, which no input can force: the suite shows
    // it in a state, but no vector makes every implementation run the pump.
    assert!(
        r.not_exercised.contains(&"R-BF-1".to_string()),
        "{:?}",
        r.not_exercised
    );
}

//! Realizability on specs written for the purpose, with known answers, against z3 and
//! cvc5: conflicts the environment can force, minimal (a pair and a triple in one
//! report), each with a witness input state.

use logic::SourceFile;
use reqs::realize::{realizability, Realizability, RealizeOptions};
use solver::{SolverConfig, SolverKind};

fn spec(text: &str) -> reqs::Spec {
    reqs::parse_spec(SourceFile::new("r.toml", text)).unwrap_or_else(|d| panic!("{d}"))
}

fn both(text: &str, check: impl Fn(SolverKind, Realizability)) {
    let s = spec(text);
    for kind in [SolverKind::Z3, SolverKind::Cvc5] {
        let r = realizability(&s, &RealizeOptions::new(SolverConfig::new(kind))).unwrap();
        check(kind, r);
    }
}

fn conflicts(r: &Realizability) -> Vec<Vec<String>> {
    match r {
        Realizability::Unrealizable {
            conflicts,
            complete,
            ..
        } => {
            assert!(complete, "{r:?}");
            conflicts.iter().map(|c| c.requirements.clone()).collect()
        }
        other => panic!("expected unrealizable, got {other:?}"),
    }
}

const ONE_INPUT: &str = r#"
[[variables]]
name = "x"
sort = "Int"
role = "input"
min = 0
max = 10
[[variables]]
name = "alarm"
sort = "Bool"
role = "output"
[[requirements]]
id = "R1"
text = "Above 5 the alarm sounds."
formula = "(=> (> x 5) alarm)"
[[requirements]]
id = "R2"
text = "Above 7 the alarm is silent."
formula = "(=> (> x 7) (not alarm))"
"#;

#[test]
fn a_conflict_over_one_input_with_its_witness() {
    both(ONE_INPUT, |k, r| {
        assert_eq!(conflicts(&r), [["R1", "R2"]], "{k}");
        let Realizability::Unrealizable { conflicts, .. } = &r else {
            unreachable!()
        };
        let x: i64 = conflicts[0].inputs[0].value.parse().unwrap();
        assert!((8..=10).contains(&x), "{k}: witness x = {x}");
        assert!(
            conflicts[0].question.contains("x = "),
            "{}",
            conflicts[0].question
        );
    });
}

#[test]
fn without_roles_realizability_is_not_checked() {
    both(&ONE_INPUT.replace("role = \"input\"\n", ""), |k, r| {
        assert!(matches!(r, Realizability::NotChecked { .. }), "{k}: {r:?}");
    });
}

const LIGHTS: &str = r#"
[[variables]]
name = "darkness_switch"
sort = "Bool"
role = "input"
[[variables]]
name = "daylight"
sort = "Bool"
role = "input"
[[variables]]
name = "parking_request"
sort = "Bool"
role = "input"
[[variables]]
name = "subvoltage"
sort = "Bool"
role = "input"
[[variables]]
name = "low_beam"
sort = "Bool"
role = "output"
[[variables]]
name = "parking_light"
sort = "Bool"
role = "output"
[[variables]]
name = "bulb_power"
sort = "Bool"
role = "output"
[[requirements]]
id = "L1"
text = "With the darkness switch on, the low beams are on."
formula = "(=> darkness_switch low_beam)"
[[requirements]]
id = "L2"
text = "In daylight the low beams are off."
formula = "(=> daylight (not low_beam))"
[[requirements]]
id = "L3"
text = "A parking request turns the parking light on."
formula = "(=> parking_request parking_light)"
[[requirements]]
id = "L4"
text = "A lit parking light draws bulb power."
formula = "(=> parking_light bulb_power)"
[[requirements]]
id = "L5"
text = "Under subvoltage, bulb power is cut."
formula = "(=> subvoltage (not bulb_power))"
[[requirements]]
id = "L6"
text = "The low beams draw bulb power."
formula = "(=> low_beam bulb_power)"
"#;

#[test]
fn a_pair_and_triples_in_one_report() {
    both(LIGHTS, |k, r| {
        let mut got = conflicts(&r);
        got.sort();
        assert_eq!(
            got,
            [
                vec!["L1", "L2"],
                vec!["L1", "L5", "L6"],
                vec!["L3", "L4", "L5"]
            ],
            "{k}"
        );
    });
}

#[test]
fn consistent_and_realizable() {
    let text = LIGHTS
        .replace(
            "(=> daylight (not low_beam))",
            "(=> (and daylight (not darkness_switch)) (not low_beam))",
        )
        .replace(
            "(=> subvoltage (not bulb_power))",
            "(=> (and subvoltage (not parking_request) (not darkness_switch)) (not bulb_power))",
        );
    both(&text, |k, r| {
        assert!(matches!(r, Realizability::Realizable { .. }), "{k}: {r:?}")
    });
}

#[test]
fn the_loop_iterates_until_every_input_is_served() {
    let text = r#"
[[variables]]
name = "x"
sort = "Int"
role = "input"
min = 0
max = 3
[[variables]]
name = "o1"
sort = "Bool"
[[variables]]
name = "o2"
sort = "Bool"
[[requirements]]
id = "A"
text = "a"
formula = "(= o1 (or (= x 1) (= x 3)))"
[[requirements]]
id = "B"
text = "b"
formula = "(= o2 (>= x 2))"
"#;
    both(text, |k, r| match r {
        Realizability::Realizable { iterations } => {
            assert!(
                iterations >= 5,
                "{k}: four inputs, four output choices: {iterations}"
            )
        }
        other => panic!("{k}: {other:?}"),
    });
}

#[test]
fn req7_req8_is_a_conflict_not_two_vacuous_requirements() {
    let text = r#"
[[variables]]
name = "var3"
sort = "Bool"
role = "input"
[[variables]]
name = "var4"
sort = "Int"
role = "output"
[[requirements]]
id = "REQ7"
text = "If var3 then var4 is 0."
formula = "(=> var3 (= var4 0))"
[[requirements]]
id = "REQ8"
text = "If var3 then var4 is 1."
formula = "(=> var3 (= var4 1))"
"#;
    both(text, |k, r| {
        assert_eq!(conflicts(&r), [["REQ7", "REQ8"]], "{k}");
        let Realizability::Unrealizable { conflicts, .. } = &r else {
            unreachable!()
        };
        assert_eq!(conflicts[0].inputs[0].value, "true");
    });
}

#[test]
fn an_input_only_requirement_is_an_environment_conflict_of_its_own() {
    let text = ONE_INPUT.replace("(=> (> x 7) (not alarm))", "(< x 9)");
    both(&text, |k, r| assert_eq!(conflicts(&r), [["R2"]], "{k}"));
}

#[test]
fn input_only_domain_constraints_limit_the_environment() {
    // The environment never drives x above 7: no conflict.
    let text = format!(
        "{ONE_INPUT}[[domain]]\nid = \"D1\"\ntext = \"x stays low\"\nformula = \"(<= x 7)\"\n"
    );
    both(&text, |k, r| {
        assert!(matches!(r, Realizability::Realizable { .. }), "{k}: {r:?}")
    });
}

//! An undecided obligation carries its reason twice: the text for a person (`reason`)
//! and its kind for a program (`reason_kind`), side by side in the JSON of the suite.
//!
//! The spec's requirement demands positive integers with a³ + b³ = c³ when `go` holds
//! (Fermat's last theorem for n = 3): no solver decides that, so with a short time limit
//! every obligation that makes the requirement fire is undecided, on z3 and cvc5 alike,
//! while the others stay easy (bl's tests/unknown.rs uses the same equation).

use logic::SourceFile;
use rbt::cover::{Coverage, Validity};
use rbt::suite::{Expected, Status};
use rbt::{generate, Options, Problem};
use solver::{Reason, ReasonKind, SolverConfig, SolverKind, Undecided};
use std::time::Duration;

const FERMAT: &str = r#"
[spec]
name = "fermat"
logic = "QF_NIA"
[[variables]]
name = "go"
sort = "Bool"
role = "input"
[[variables]]
name = "a"
sort = "Int"
role = "input"
[[variables]]
name = "b"
sort = "Int"
role = "input"
[[variables]]
name = "c"
sort = "Int"
role = "output"
[[requirements]]
id = "R1"
text = "When go, a, b and c are positive and a³ + b³ = c³."
formula = "(=> go (and (> a 0) (> b 0) (> c 0) (= (+ (* a a a) (* b b b)) (* c c c))))"
"#;

#[test]
fn an_obligation_the_solver_cannot_decide_says_why_in_words_and_as_a_kind() {
    let spec = reqs::parse_spec(SourceFile::new("fermat.toml", FERMAT)).unwrap_or_else(|d| {
        panic!("{d}");
    });
    let p = Problem::from_spec(spec, None).unwrap();
    for kind in SolverKind::ALL {
        let mut config = SolverConfig::new(kind);
        config.timeout = Duration::from_millis(500);
        let suite = generate(&p, &Options::new(config)).unwrap();
        assert!(suite.undecided() > 0, "{kind:?}: {suite:#?}");
        assert!(suite.has_errors());
        let json = serde_json::to_value(&suite).unwrap();
        let undecided: Vec<&serde_json::Value> = json["obligations"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|o| o["status"] == "undecided")
            .collect();
        assert_eq!(undecided.len(), suite.undecided());
        for (o, typed) in undecided
            .iter()
            .zip(suite.obligations.iter().filter_map(|o| match &o.status {
                Status::Undecided { reason } => Some(reason),
                _ => None,
            }))
        {
            // The solver's own answer (z3 says incomplete for some of these queries,
            // times out on others), never a crash or a reason of vera's own.
            assert!(
                matches!(
                    typed.reason_kind,
                    ReasonKind::Timeout | ReasonKind::ResourceLimit | ReasonKind::Incomplete
                ),
                "{kind:?}: {typed:?}"
            );
            assert_eq!(o["reason"], typed.reason.as_str(), "{o}");
            assert_eq!(
                o["reason_kind"],
                serde_json::to_value(typed.reason_kind).unwrap(),
                "{o}"
            );
            assert!(!typed.reason.is_empty());
        }
        // The findings repeat each undecided obligation with the same two fields.
        let findings: Vec<&serde_json::Value> = json["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["finding"] == "undecided")
            .collect();
        assert_eq!(findings.len(), suite.undecided());
        assert!(
            findings
                .iter()
                .all(|f| f["reason"].is_string() && f["reason_kind"].is_string()),
            "{findings:?}"
        );
    }
}

#[test]
fn the_coverage_verdicts_serialize_the_reason_and_its_kind_side_by_side() {
    let c = Coverage::Undecided {
        reason: Undecided::from(Reason::Timeout),
    };
    let j = serde_json::to_value(&c).unwrap();
    assert_eq!(j["status"], "undecided");
    assert_eq!(j["reason"], "the time limit was reached");
    assert_eq!(j["reason_kind"], "timeout");
    assert_eq!(j.as_object().unwrap().len(), 3, "{j}");
    let v = Validity::Undecided {
        reason: Undecided::other("a cap of vera's own"),
    };
    let j = serde_json::to_value(&v).unwrap();
    assert_eq!(j["reason_kind"], "other");
    assert_eq!(j["reason"], "a cap of vera's own");
    // An expected output that is undecided stays one table cell, whatever its reason.
    let e = Expected::Undecided(Undecided::from(Reason::Incomplete));
    assert_eq!(serde_json::to_value(&e).unwrap(), "undecided");
}

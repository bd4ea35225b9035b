//! An undecided verdict carries its reason twice in JSON: the text for a person
//! (`reason`) and the kind for a program (`reason_kind`), side by side in the verdict.

use reqs::audit::{Consistency, Vacuity};
use solver::{Reason, ReasonKind, Undecided};

#[test]
fn an_unknown_verdict_serializes_its_reason_and_its_kind_side_by_side() {
    let v = Vacuity::Unknown {
        reason: Undecided::from(Reason::Timeout),
    };
    let j = serde_json::to_value(&v).unwrap();
    assert_eq!(j["status"], "unknown");
    assert_eq!(j["reason"], "the time limit was reached");
    assert_eq!(j["reason_kind"], "timeout");
    assert_eq!(j.as_object().unwrap().len(), 3, "{j}");
    let c = Consistency::Unknown {
        reason: Undecided::from(Reason::Crashed("exit status 9".into())),
    };
    let j = serde_json::to_value(&c).unwrap();
    assert_eq!(j["reason_kind"], "crashed");
    assert!(j["reason"].as_str().unwrap().contains("exit status 9"));
}

#[test]
fn each_solver_reason_keeps_its_kind_and_a_rewritten_text_keeps_the_kind() {
    for (r, k) in [
        (Reason::Timeout, ReasonKind::Timeout),
        (Reason::ResourceLimit, ReasonKind::ResourceLimit),
        (Reason::Incomplete, ReasonKind::Incomplete),
        (Reason::Crashed("x".into()), ReasonKind::Crashed),
        (
            Reason::Other("(incomplete quantifiers)".into()),
            ReasonKind::Other,
        ),
    ] {
        let u = Undecided::from(&r).map(|t| format!("the domain: {t}"));
        assert_eq!(u.reason_kind, k);
        assert!(u.reason.starts_with("the domain: "), "{u}");
        assert!(u.reason.ends_with(&r.to_string()), "{u}");
    }
    assert_eq!(
        Undecided::error("broken pipe").reason_kind,
        ReasonKind::SolverError
    );
}

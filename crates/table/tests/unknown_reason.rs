//! A question the solver left open says why twice in JSON: the text for a person
//! (`reason`) and the kind for a program (`reason_kind`), side by side.

use solver::{Reason, Undecided};
use table::analyze::{Group, Undecided as Open};

#[test]
fn an_open_question_serializes_its_reason_and_its_kind_side_by_side() {
    let u = Open {
        group: Group(vec![("state".into(), "CA".into())]),
        outcome: "fee".into(),
        question: "whether rows 3 and 4 overlap".into(),
        reason: Undecided::from(Reason::ResourceLimit),
    };
    let j = serde_json::to_value(&u).unwrap();
    assert_eq!(j["reason"], "the solver ran out of resources");
    assert_eq!(j["reason_kind"], "resource-limit");
    assert_eq!(j["question"], "whether rows 3 and 4 overlap");
    assert_eq!(j.as_object().unwrap().len(), 5, "{j}");
    let mine = Open {
        reason: Undecided::other("no point of the region that vera could check was found"),
        ..u
    };
    assert_eq!(serde_json::to_value(&mine).unwrap()["reason_kind"], "other");
}

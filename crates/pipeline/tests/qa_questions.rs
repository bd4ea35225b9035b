//! Every expected answer of examples/hemodialysis/qa-questions.toml, checked by the
//! solver through `reqs::Asker`: entailed answers are entailed (and need the scenario),
//! impossible scenarios are impossible, no-requirement questions leave their variables
//! free, and the listed requirements exist.

use pipeline::qa::{load_questions, QuestionKind};
use reqs::ask::{Derivation, Fact};
use reqs::Verdict;
use solver::{SolverConfig, SolverKind};
use std::path::PathBuf;

fn example(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/hemodialysis")
        .join(name)
}

#[test]
fn every_expected_answer_holds() {
    let spec = reqs::load(&example("hemodialysis.toml")).unwrap();
    let text = std::fs::read_to_string(example("qa-questions.toml")).unwrap();
    let qs = load_questions(&text, "qa-questions.toml").unwrap();
    assert!(qs.len() >= 30, "{} questions", qs.len());
    for kind in [
        QuestionKind::Single,
        QuestionKind::Multi,
        QuestionKind::None,
    ] {
        assert!(
            qs.iter().filter(|q| q.kind == kind).count() >= 5,
            "{kind:?}"
        );
    }
    let mut ids = std::collections::BTreeSet::new();
    let mut asker = reqs::Asker::new(&spec, &SolverConfig::new(SolverKind::Z3)).unwrap();
    for q in &qs {
        assert!(ids.insert(q.id.clone()), "duplicate id {}", q.id);
        for r in &q.requirements {
            assert!(
                spec.requirements.iter().any(|x| &x.id == r),
                "{}: unknown requirement {r}",
                q.id
            );
        }
        let s = spec.parse_formula("scenario", &q.scenario).unwrap();
        let a = spec.parse_formula("answer", &q.answer).unwrap();
        let v = asker.ask(&s, &a).unwrap();
        if q.expects_impossible() {
            let Verdict::ScenarioImpossible { because } = &v else {
                panic!("{}: expected scenario-impossible, got {v:?}", q.id)
            };
            for r in &q.requirements {
                assert!(because.contains(r), "{}: {r} not in {because:?}", q.id);
            }
            continue;
        }
        assert!(
            matches!(v, Verdict::Entailed { .. }),
            "{}: expected answer not entailed: {v:?}",
            q.id
        );
        match q.kind {
            QuestionKind::None => {
                assert_eq!(q.answer.trim(), "true", "{}", q.id);
                assert!(!q.free.is_empty(), "{}: name the free variables", q.id);
                let Derivation::Facts { variables } = asker.derive(&s).unwrap() else {
                    panic!("{}: scenario impossible", q.id)
                };
                for f in &q.free {
                    let d = variables.iter().find(|d| &d.variable == f).unwrap();
                    assert!(
                        !matches!(d.fact, Fact::Forced { .. }),
                        "{}: {f} is forced: {:?}",
                        q.id,
                        d.fact
                    );
                }
            }
            QuestionKind::Single | QuestionKind::Multi => {
                // The scenario matters: without it the answer does not follow.
                let without = asker.ask(&logic::Term::Bool(true), &a).unwrap();
                assert!(
                    matches!(without, Verdict::NotEntailed { .. }),
                    "{}: answer holds without the scenario",
                    q.id
                );
            }
        }
    }
}

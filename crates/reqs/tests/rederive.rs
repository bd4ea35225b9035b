//! Every definite finding of an audit is re-derived independently: by the other solver,
//! in a fresh process, from nothing but the ids the report names. Random specs, random
//! per-query timeouts (so some checks answer unknown): whatever the report says is
//! consistent, inconsistent, vacuous, implied or redundant must stand up.

use logic::{SourceFile, Term};
use proptest::prelude::*;
use reqs::audit::{load_into, Consistency, Redundancy, Vacuity, Violatability};
use reqs::{AuditOptions, Spec};
use solver::{Outcome, Solver, SolverConfig, SolverKind};
use std::time::Duration;

const TEMPLATES: &[&str] = &[
    "(=> (> x K) b)",
    "(=> (= m A) (not b))",
    "(=> b (< y K))",
    "(or b c)",
    "(=> (and (> x K) (< y J)) c)",
    "(not c)",
    "(=> (= m B) (> x K))",
    "(<= x y)",
    "(=> c (= m C))",
    "(=> (> y K) (not b))",
    "(=> (= m A) (> y K))",
];

fn spec_text(reqs: &[(usize, i64, i64)], domain: Option<i64>) -> String {
    let mut t = String::from(
        "[[enums]]\nname = \"Mode\"\nvalues = [\"A\", \"B\", \"C\"]\n\
         [[variables]]\nname = \"x\"\nsort = \"Int\"\nmin = 0\nmax = 10\n\
         [[variables]]\nname = \"y\"\nsort = \"Int\"\nmin = 0\nmax = 10\n\
         [[variables]]\nname = \"m\"\nsort = \"Mode\"\n\
         [[variables]]\nname = \"b\"\nsort = \"Bool\"\n\
         [[variables]]\nname = \"c\"\nsort = \"Bool\"\n",
    );
    if let Some(k) = domain {
        t.push_str(&format!(
            "[[domain]]\nid = \"D-X\"\nformula = \"(<= x {k})\"\n"
        ));
    }
    for (i, (tpl, k, j)) in reqs.iter().enumerate() {
        let f = TEMPLATES[*tpl]
            .replace('K', &k.to_string())
            .replace('J', &j.to_string());
        t.push_str(&format!(
            "[[requirements]]\nid = \"R{i}\"\ntext = \"r\"\nformula = \"{f}\"\n"
        ));
    }
    t
}

/// A fresh process of `kind` with the spec loaded, answering "is this set, with these
/// extra assertions, satisfiable?" for sets named by id.
struct Judge<'a> {
    spec: &'a Spec,
    solver: Solver,
    lits: reqs::audit::Loaded,
}

impl<'a> Judge<'a> {
    fn new(spec: &'a Spec, kind: SolverKind) -> Judge<'a> {
        let mut solver = Solver::start(&SolverConfig::new(kind)).unwrap();
        let lits = load_into(&mut solver, spec).unwrap();
        Judge { spec, solver, lits }
    }

    fn lits_of(&self, ids: &[String]) -> Vec<Term> {
        let all: Vec<Term> = self
            .lits
            .domain()
            .iter()
            .cloned()
            .chain(self.lits.reqs_except(None))
            .collect();
        let lits: Vec<Term> = all
            .into_iter()
            .filter(|l| {
                self.lits
                    .id_of(self.spec, l)
                    .is_some_and(|id| ids.iter().any(|i| i == id))
            })
            .collect();
        assert_eq!(lits.len(), ids.len(), "every named id exists: {ids:?}");
        lits
    }

    fn sat(&mut self, ids: &[String], extra: &[Term]) -> bool {
        let lits = self.lits_of(ids);
        self.solver.push().unwrap();
        for t in extra {
            self.solver.assert(t).unwrap();
        }
        let r = self.solver.check_assuming(&lits).unwrap();
        self.solver.pop().unwrap();
        match r {
            Outcome::Sat(_) => true,
            Outcome::Unsat(_) => false,
            Outcome::Unknown(r) => panic!("the judge has no answer: {r}"),
        }
    }

    fn all_ids(&self) -> Vec<String> {
        self.spec
            .domain
            .iter()
            .map(|d| d.id.clone())
            .chain(self.spec.formalized().map(|r| r.id.clone()))
            .collect()
    }
}

fn other(kind: SolverKind) -> SolverKind {
    match kind {
        SolverKind::Z3 => SolverKind::Cvc5,
        SolverKind::Cvc5 => SolverKind::Z3,
    }
}

fn check_report(spec: &Spec, kind: SolverKind, timeout_ms: u64) {
    let mut config = SolverConfig::new(kind);
    config.timeout = Duration::from_millis(timeout_ms);
    let mut options = AuditOptions::new(config);
    options.jobs = 1;
    options.max_conflicts = 4;
    let report = reqs::audit(spec, &options).unwrap();
    let mut judge = Judge::new(spec, other(kind));
    let all = judge.all_ids();
    match &report.consistency {
        Consistency::Consistent => assert!(judge.sat(&all, &[]), "said consistent"),
        Consistency::Inconsistent {
            conflicts,
            complete,
            incomplete,
        } => {
            assert!(!judge.sat(&all, &[]), "said inconsistent");
            assert_eq!(*complete, incomplete.is_none());
            for c in conflicts {
                assert!(!judge.sat(c, &[]), "conflict {c:?} is not one");
            }
        }
        Consistency::DomainInconsistent { conflict } => {
            assert!(!judge.sat(conflict, &[]), "domain conflict {conflict:?}")
        }
        Consistency::Unknown { .. } => {}
    }
    for a in &report.requirements {
        let r = spec.requirements.iter().find(|r| r.id == a.id).unwrap();
        let trigger = r.trigger();
        let violation = r.violation().unwrap();
        for v in [&a.vacuity_domain, &a.vacuity_model] {
            if let Vacuity::Vacuous {
                because,
                response_conflict,
            } = v
            {
                let mut ids = because.clone();
                if *response_conflict {
                    ids.push(r.id.clone());
                }
                assert!(
                    !judge.sat(&ids, std::slice::from_ref(&trigger)),
                    "{}: trigger said unreachable under {ids:?}",
                    r.id
                );
            }
        }
        if let Violatability::ImpliedByDomain { because } = &a.violatability {
            assert!(
                !judge.sat(because, &[trigger.clone(), violation.clone()]),
                "{}: said implied by {because:?}",
                r.id
            );
        }
        if let Redundancy::Redundant { subsumed_by } = &a.redundancy {
            assert!(
                !subsumed_by.contains(&r.id),
                "{} cannot subsume itself",
                r.id
            );
            assert!(
                !judge.sat(subsumed_by, &[trigger.clone(), violation.clone()]),
                "{}: said enforced by {subsumed_by:?}",
                r.id
            );
        }
    }
}

fn spec_strategy() -> impl Strategy<Value = String> {
    (
        prop::collection::vec((0..TEMPLATES.len(), 0i64..11, 0i64..11), 2..7),
        prop::option::of(0i64..11),
    )
        .prop_map(|(reqs, dom)| spec_text(&reqs, dom))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn definite_findings_are_rederived_by_the_other_solver(
        text in spec_strategy(),
        z3_first in any::<bool>(),
        timeout_ms in prop::sample::select(vec![2u64, 20, 10_000]),
    ) {
        let spec = reqs::parse_spec(SourceFile::new("random.toml", &text))
            .unwrap_or_else(|d| panic!("{d}\n{text}"));
        let kind = if z3_first { SolverKind::Z3 } else { SolverKind::Cvc5 };
        check_report(&spec, kind, timeout_ms);
    }
}

const CLAIMS: &[&str] = &["b", "(not c)", "(< x 5)", "(= m A)", "(or b c)", "(<= y 9)"];
const SCENARIOS: &[&str] = &["true", "(> x 6)", "(= m B)", "c", "(and b (< y 3))"];

fn check_answer(spec: &Spec, kind: SolverKind, timeout_ms: u64, scenario: &str, claim: &str) {
    let scenario = logic::script::elaborate_formula(scenario, &spec.context).unwrap();
    let claim = logic::script::elaborate_formula(claim, &spec.context).unwrap();
    let mut config = SolverConfig::new(kind);
    config.timeout = Duration::from_millis(timeout_ms);
    let verdict = reqs::Asker::new(spec, &config)
        .unwrap()
        .ask(&scenario, &claim)
        .unwrap();
    let mut judge = Judge::new(spec, other(kind));
    let all = judge.all_ids();
    match verdict {
        reqs::Verdict::Entailed { because } => {
            assert!(judge.sat(&all, std::slice::from_ref(&scenario)));
            assert!(
                !judge.sat(&because, &[scenario.clone(), Term::not(claim.clone())]),
                "said entailed by {because:?}"
            );
        }
        reqs::Verdict::NotEntailed { .. } => {
            assert!(judge.sat(&all, &[scenario.clone(), Term::not(claim.clone())]))
        }
        reqs::Verdict::ScenarioImpossible { because } => {
            assert!(!judge.sat(&because, std::slice::from_ref(&scenario)))
        }
        reqs::Verdict::Unknown { .. } => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn scenario_answers_are_rederived_by_the_other_solver(
        text in spec_strategy(),
        z3_first in any::<bool>(),
        timeout_ms in prop::sample::select(vec![2u64, 20, 10_000]),
        scenario in prop::sample::select(SCENARIOS.to_vec()),
        claim in prop::sample::select(CLAIMS.to_vec()),
    ) {
        let spec = reqs::parse_spec(SourceFile::new("random.toml", &text))
            .unwrap_or_else(|d| panic!("{d}\n{text}"));
        let kind = if z3_first { SolverKind::Z3 } else { SolverKind::Cvc5 };
        check_answer(&spec, kind, timeout_ms, scenario, claim);
    }
}

/// The case that once failed in CI: under a 2 ms limit cvc5's second process, asked to
/// re-check the core of an unsat answer, answered `unknown`, and the question ended in
/// an error. It must end in a verdict or in `Unknown`, whatever the timing.
#[test]
fn an_unconfirmed_core_under_a_tiny_limit_is_unknown_not_an_error() {
    let text = "[[enums]]\nname = \"Mode\"\nvalues = [\"A\", \"B\", \"C\"]\n[[variables]]\nname = \"x\"\nsort = \"Int\"\nmin = 0\nmax = 10\n[[variables]]\nname = \"y\"\nsort = \"Int\"\nmin = 0\nmax = 10\n[[variables]]\nname = \"m\"\nsort = \"Mode\"\n[[variables]]\nname = \"b\"\nsort = \"Bool\"\n[[variables]]\nname = \"c\"\nsort = \"Bool\"\n[[domain]]\nid = \"D-X\"\nformula = \"(<= x 4)\"\n[[requirements]]\nid = \"R0\"\ntext = \"r\"\nformula = \"(=> b (< y 9))\"\n[[requirements]]\nid = \"R1\"\ntext = \"r\"\nformula = \"(not c)\"\n";
    let spec = reqs::parse_spec(SourceFile::new("random.toml", text)).unwrap();
    for _ in 0..10 {
        check_answer(&spec, SolverKind::Cvc5, 2, "c", "(or b c)");
    }
}

//! The fast paths of the audit (bases, local queries, domain slices) and the
//! realizability audit by groups of linked outputs give the same findings as the plain
//! paths, on generated one-component specs and on random specs whose requirements
//! almost all mention one mode variable, against z3 and cvc5.

use logic::{eval_bool, Model, SourceFile, Term, Value};
use proptest::prelude::*;
use reqs::audit::{Redundancy, RequirementAudit, Vacuity, Violatability, Witness};
use reqs::realize::{realizability, Realizability, RealizeOptions};
use reqs::{audit, AuditOptions, AuditReport, Spec};
use solver::{Outcome, Solver, SolverConfig, SolverKind};

const SOLVERS: [SolverKind; 2] = [SolverKind::Z3, SolverKind::Cvc5];

fn spec(name: &str, text: &str) -> Spec {
    reqs::parse_spec(SourceFile::new(name, text)).unwrap_or_else(|d| panic!("{d}\n{text}"))
}

fn run(spec: &Spec, kind: SolverKind, fast: bool) -> AuditReport {
    let mut o = AuditOptions::new(SolverConfig::new(kind));
    o.jobs = 2;
    o.fast_paths = fast;
    audit(spec, &o).unwrap_or_else(|e| panic!("{kind}: {e}"))
}

/// The witness as a model over the spec's variables.
fn model(spec: &Spec, w: &Witness) -> Model {
    let mut m = Model::new();
    for a in w {
        let v = spec.variable(&a.variable).expect("schema variable");
        let text = match a.value.split_once('/') {
            Some((n, d)) => format!("(/ {}.0 {d}.0)", n.trim_start_matches('-')),
            None => a.value.trim_start_matches('-').to_string(),
        };
        let text = if a.value.starts_with('-') {
            format!("(- {text})")
        } else {
            text
        };
        let t = logic::parse_term(&SourceFile::new("value", text), &spec.context).unwrap();
        let val = logic::eval(&t, &Model::new(), &spec.context).unwrap();
        let val = match (val, &v.sort) {
            (Value::Int(i), logic::Sort::Real) => Value::Real(i.into()),
            (v, _) => v,
        };
        m.insert(v.name.clone(), val);
    }
    m
}

/// A fresh solver with the spec loaded, answering whether members named by id (with
/// extra assertions) are satisfiable together.
struct Judge<'a> {
    spec: &'a Spec,
    solver: Solver,
    lits: reqs::audit::Loaded,
}

impl<'a> Judge<'a> {
    fn new(spec: &'a Spec, kind: SolverKind) -> Judge<'a> {
        let mut solver = Solver::start(&SolverConfig::new(kind)).unwrap();
        let lits = reqs::audit::load_into(&mut solver, spec).unwrap();
        Judge { spec, solver, lits }
    }

    fn sat(&mut self, ids: &[String], extra: &[Term]) -> bool {
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

    /// The ids with `extra` are unsat, and dropping any one makes them satisfiable.
    fn minimal_core(&mut self, what: &str, ids: &[String], extra: &[Term]) {
        assert!(!self.sat(ids, extra), "{what}: {ids:?} is not a core");
        for k in 0..ids.len() {
            let mut rest = ids.to_vec();
            rest.remove(k);
            assert!(self.sat(&rest, extra), "{what}: {ids:?} is not minimal");
        }
    }
}

/// The audit of one requirement with the evidence left out (the solvers may pick other
/// states, and other minimal cores where there are several); every witness is checked
/// to break the requirement, and every core to be a minimal core.
fn comparable(spec: &Spec, a: &RequirementAudit, judge: &mut Judge) -> String {
    let r = spec.requirements.iter().find(|r| r.id == a.id).unwrap();
    let formula = r.formula.as_ref().unwrap();
    let check = |w: &Witness| {
        let m = model(spec, w);
        assert!(
            !eval_bool(formula, &m, &spec.context).unwrap(),
            "{}: the witness {w:?} does not break it",
            a.id
        );
        w.iter().map(|x| x.variable.clone()).collect::<Vec<_>>()
    };
    let viol = match &a.violatability {
        Violatability::Violatable { witness } => format!("violatable over {:?}", check(witness)),
        other => format!("{other:?}"),
    };
    let red = match &a.redundancy {
        Redundancy::NotRedundant { witness } => {
            format!("not redundant over {:?}", check(witness))
        }
        other => format!("{other:?}"),
    };
    let trigger = r.trigger();
    let breaking = [trigger.clone(), r.violation().unwrap()];
    let mut vac = |v: &Vacuity, what: &str| match v {
        Vacuity::Vacuous {
            because,
            response_conflict,
        } => {
            let mut ids = because.clone();
            if *response_conflict {
                ids.push(r.id.clone());
            }
            judge.minimal_core(what, &ids, std::slice::from_ref(&trigger));
            format!("vacuous (response conflict: {response_conflict})")
        }
        other => format!("{other:?}"),
    };
    let vd = vac(
        &a.vacuity_domain,
        &format!("{}: vacuity under the domain", a.id),
    );
    let vm = vac(&a.vacuity_model, &format!("{}: vacuity under M", a.id));
    let viol = match &a.violatability {
        Violatability::ImpliedByDomain { because } => {
            judge.minimal_core(&format!("{}: implied", a.id), because, &breaking);
            "implied by the domain".into()
        }
        _ => viol,
    };
    let red = match &a.redundancy {
        Redundancy::Redundant { subsumed_by } => {
            assert!(!subsumed_by.contains(&a.id));
            judge.minimal_core(&format!("{}: redundant", a.id), subsumed_by, &breaking);
            "redundant".into()
        }
        _ => red,
    };
    format!("{} {} | {} | {} | {} | {}", a.id, a.kind, vd, vm, viol, red)
}

fn assert_same_findings(spec: &Spec, kind: SolverKind) {
    let fast = run(spec, kind, true);
    let plain = run(spec, kind, false);
    assert_eq!(fast.consistency, plain.consistency, "{kind}: consistency");
    assert_eq!(fast.not_formalized, plain.not_formalized);
    assert_eq!(
        fast.requirements.len(),
        plain.requirements.len(),
        "{kind}: audited requirements"
    );
    let mut judge = Judge::new(spec, kind);
    for (f, p) in fast.requirements.iter().zip(&plain.requirements) {
        assert_eq!(
            comparable(spec, f, &mut judge),
            comparable(spec, p, &mut judge),
            "{kind}: fast (left) and plain (right) differ"
        );
    }
}

#[test]
fn connected_specs_are_one_component_consistent_and_realizable() {
    for n in [100, 1000] {
        let s = spec("c.toml", &reqs::generate::connected_spec_text(n));
        assert_eq!(s.requirements.len(), n);
        assert_eq!(reqs::audit::components(&s).len(), 1, "N = {n}");
    }
    let s = spec("c.toml", &reqs::generate::connected_spec_text(200));
    let r = run(&s, SolverKind::Z3, true);
    assert_eq!(r.consistency, reqs::audit::Consistency::Consistent);
    assert!(
        matches!(r.realizability, Realizability::Realizable { .. }),
        "{:?}",
        r.realizability
    );
    // The planted findings: weaker duplicates are redundant because of their
    // original; an alarm above the sensor's range is vacuous under the domain.
    let dup = r
        .requirements
        .iter()
        .find(|a| a.id.starts_with("DUP-"))
        .expect("a duplicate");
    assert!(
        matches!(&dup.redundancy, Redundancy::Redundant { subsumed_by } if subsumed_by.len() == 1 && subsumed_by[0].starts_with("ALM-")),
        "{dup:?}"
    );
}

#[test]
fn fast_paths_give_the_plain_findings_on_connected_specs() {
    // cvc5's cores are larger, so its plain path minimizes over the whole component
    // for minutes at a few hundred requirements: smaller specs for it.
    for (kind, sizes) in [
        (SolverKind::Z3, &[40, 150][..]),
        (SolverKind::Cvc5, &[40, 90]),
    ] {
        for &n in sizes {
            let s = spec(
                &format!("connected-{n}.toml"),
                &reqs::generate::connected_spec_text(n),
            );
            assert_same_findings(&s, kind);
        }
    }
}

const TEMPLATES: &[&str] = &[
    "(=> (and (= m A) (> x K)) b)",
    "(=> (and (= m B) (> z K)) d)",
    "(=> (and (= m B) (< y K)) (not b))",
    "(=> (and (= m C) (> z K)) c)",
    "(=> (and (= m A) (> x J)) c)",
    "(=> (= m B) (not d))",
    "(=> (and (= m C) b) (< x K))",
    "(=> (and (not (= m A)) c) (> y K))",
    "(=> (and (= m A) d) (= z K))",
    "(=> b (not d))",
    "(=> (and (> x K) (> y J)) (not c))",
    "(or (= m A) (< z K))",
    "(=> (= m B) (<= x y))",
    "(=> (and (= m C) (> x K)) (> x J))",
];

/// A spec over a mode that most requirements mention (a hub for the fast paths), with
/// roles: the mode and x, y inputs.
fn hub_spec_text(reqs: &[(usize, i64, i64)], domain: Option<i64>) -> String {
    let mut t = String::from(
        "[[enums]]\nname = \"Mode\"\nvalues = [\"A\", \"B\", \"C\"]\n\
         [[variables]]\nname = \"m\"\nsort = \"Mode\"\nrole = \"input\"\n\
         [[variables]]\nname = \"x\"\nsort = \"Int\"\nmin = 0\nmax = 10\nrole = \"input\"\n\
         [[variables]]\nname = \"y\"\nsort = \"Int\"\nmin = 0\nmax = 10\nrole = \"input\"\n\
         [[variables]]\nname = \"z\"\nsort = \"Int\"\nmin = 0\nmax = 10\n\
         [[variables]]\nname = \"b\"\nsort = \"Bool\"\n\
         [[variables]]\nname = \"c\"\nsort = \"Bool\"\n\
         [[variables]]\nname = \"d\"\nsort = \"Bool\"\n",
    );
    if let Some(k) = domain {
        t.push_str(&format!(
            "[[domain]]\nid = \"D-Z\"\nformula = \"(<= z {k})\"\n"
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

fn hub_spec() -> impl Strategy<Value = String> {
    (
        prop::collection::vec((0..TEMPLATES.len(), 0i64..11, 0i64..11), 3..48),
        prop::option::of(0i64..11),
    )
        .prop_map(|(reqs, dom)| hub_spec_text(&reqs, dom))
}

/// Realizability verdicts with the details that do not depend on the solver's choices.
fn realizability_findings(r: &Realizability) -> String {
    match r {
        Realizability::Realizable { .. } => "realizable".into(),
        Realizability::Unrealizable {
            conflicts,
            complete,
            ..
        } => format!(
            "unrealizable {:?} complete {complete}",
            conflicts
                .iter()
                .map(|c| (c.requirements.clone(), c.domain.clone()))
                .collect::<Vec<_>>()
        ),
        other => format!("{other:?}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, max_shrink_iters: 32, ..ProptestConfig::default() })]

    #[test]
    fn fast_paths_give_the_plain_findings_on_random_specs(text in hub_spec(), z3 in any::<bool>()) {
        let s = spec("random.toml", &text);
        assert_same_findings(&s, if z3 { SolverKind::Z3 } else { SolverKind::Cvc5 });
    }

    #[test]
    fn realizability_by_groups_gives_the_whole_loop_verdict(text in hub_spec(), z3 in any::<bool>()) {
        let s = spec("random.toml", &text);
        let kind = if z3 { SolverKind::Z3 } else { SolverKind::Cvc5 };
        let mut o = RealizeOptions::new(SolverConfig::new(kind));
        let by_groups = realizability(&s, &o).unwrap();
        o.by_groups = false;
        let whole = realizability(&s, &o).unwrap();
        prop_assert_eq!(
            realizability_findings(&by_groups),
            realizability_findings(&whole),
            "{}", kind
        );
    }
}

#[test]
fn connected_spec_conflicts_are_found_within_their_group() {
    // Two alarms that force opposite values of one output under inputs the
    // environment chooses: a conflict for some inputs inside a large realizable spec.
    let mut text = reqs::generate::connected_spec_text(60);
    text.push_str(
        "\n[[requirements]]\nid = \"X-ON\"\ntext = \"on\"\nformula = \"(=> (> p3 900) motor1)\"\n\
         \n[[requirements]]\nid = \"X-OFF\"\ntext = \"off\"\nformula = \"(=> (> p4 900) (not motor1))\"\n",
    );
    let s = spec("conflict.toml", &text);
    for kind in SOLVERS {
        let mut o = RealizeOptions::new(SolverConfig::new(kind));
        let by_groups = realizability(&s, &o).unwrap();
        o.by_groups = false;
        let whole = realizability(&s, &o).unwrap();
        assert_eq!(
            realizability_findings(&by_groups),
            realizability_findings(&whole),
            "{kind}"
        );
        let Realizability::Unrealizable { conflicts, .. } = &by_groups else {
            panic!("{kind}: {by_groups:?}")
        };
        assert!(
            conflicts
                .iter()
                .any(|c| c.requirements.contains(&"X-ON".to_string())
                    && c.requirements.contains(&"X-OFF".to_string())),
            "{kind}: {conflicts:?}"
        );
    }
}

//! Test sequences of timed requirements on the shipped timed hemodialysis spec (z3 and
//! cvc5): each sequence read back from its timing table and checked again with the trace
//! evaluator of `reqs::timed::trace` — valid sequences violate nothing, the ones built
//! to miss a deadline or cut a duration short violate exactly their requirement, at the
//! step the shape says.

use logic::Model;
use rbt::timed::{generate_timed, Sequence, SequenceResult, Shape};
use reqs::timed::trace;
use solver::{SolverConfig, SolverKind};
use std::path::Path;

fn spec() -> reqs::Spec {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    reqs::load(&root.join("examples/hemodialysis/hemodialysis-timed.toml")).unwrap()
}

/// The trace of a timing table, read back from its cells.
fn trace_of(spec: &reqs::Spec, s: &Sequence) -> Vec<Model> {
    let n = s.times.len();
    (0..n)
        .map(|t| {
            let mut m = Model::new();
            for r in &s.rows {
                let v = spec.variable(&r.variable).unwrap();
                m.insert(
                    v.name.clone(),
                    rbt::values::parse(&r.values[t], &v.sort, &spec.enums).unwrap(),
                );
            }
            m
        })
        .collect()
}

#[test]
fn timed_sequences_are_rechecked_by_the_trace_evaluator() {
    let spec = spec();
    for kind in [SolverKind::Z3, SolverKind::Cvc5] {
        let suite = generate_timed(&spec, &SolverConfig::new(kind)).unwrap();
        let made: Vec<&Sequence> = suite.made().collect();
        for s in &made {
            let tr = trace_of(&spec, s);
            for r in &spec.requirements {
                let p = r.timed.as_ref().unwrap();
                let v = trace::violations(p, &tr, &spec.context).unwrap();
                if s.shape.violates() && r.id == s.requirement {
                    assert_eq!(v.first().copied(), s.violated_at, "{kind} {}", s.id);
                    assert!(!v.is_empty(), "{kind} {}", s.id);
                } else {
                    assert!(v.is_empty(), "{kind} {}: {} violated at {v:?}", s.id, r.id);
                }
            }
        }
        let get = |id: &str| {
            made.iter()
                .find(|s| s.id == id)
                .unwrap_or_else(|| panic!("{kind}: no sequence {id}: {:#?}", suite.sequences))
        };
        // R-REINF-2: the alarm within 5 s (one tick) of 400 mL during reinfusion.
        let hit = get("R-REINF-2/deadline-hit");
        let miss = get("R-REINF-2/missed-by-one");
        let alarm = |s: &Sequence| {
            s.rows
                .iter()
                .find(|r| r.variable == "alarm")
                .unwrap()
                .values
                .clone()
        };
        let t0 = hit.trigger_step;
        assert_eq!(&alarm(hit)[t0..=t0 + 1], ["false", "true"], "{kind}");
        assert_eq!(
            &alarm(miss)[t0..=t0 + 2],
            ["false", "false", "true"],
            "{kind}"
        );
        assert_eq!(miss.violated_at, Some(t0 + 1), "{kind}");
        assert_eq!(hit.times[1], "5 s");
        // R-BP-3: the pump runs at least 30 s (6 ticks); one tick short violates it.
        let short = get("R-BP-3/duration-one-tick-short");
        assert_eq!(short.violated_at, Some(short.trigger_step + 6), "{kind}");
        // R-FLOW-2: no flow held 120 s (24 ticks), and one tick short: no demand.
        let held = get("R-FLOW-2/held-one-tick-short");
        let no_flow = held.rows.iter().find(|r| r.variable == "no_flow").unwrap();
        assert_eq!(no_flow.values[0], "false", "{kind}");
        assert!(no_flow.values[1..=24].iter().all(|v| v == "true"), "{kind}");
        assert_eq!(held.violated_at, None);
        get("R-FLOW-2/fires");
        get("R-AIR-4/fires");
        // Inputs come first in the tables.
        assert_eq!(hit.rows[0].role, "input");
        assert!(suite
            .sequences
            .iter()
            .all(|r| !matches!(r, SequenceResult::Undecided { .. })));
        let shapes: Vec<Shape> = made.iter().map(|s| s.shape).collect();
        assert!(shapes.contains(&Shape::MissedByOne));
    }
}

/// Does `tr` satisfy every requirement of the timed hemodialysis spec (all of them are
/// patterns), by the trace evaluator?
fn valid(spec: &reqs::Spec, tr: &[Model]) -> bool {
    spec.requirements.iter().all(|r| {
        trace::violations(r.timed.as_ref().unwrap(), tr, &spec.context)
            .unwrap()
            .is_empty()
    })
}

/// The expected outputs of every short sequence, computed again without a solver: with
/// the sequence's inputs at every step, every assignment of the two Boolean outputs at
/// every step is tried and judged by the trace evaluator; an output cell is forced when
/// all valid traces agree on it and free otherwise. The solver's answer must be the
/// same, cell for cell, for z3 and cvc5.
#[test]
fn expected_outputs_agree_with_enumeration_by_the_trace_evaluator() {
    use rbt::suite::Expected;
    use rbt::timed::Expectation;
    let spec = spec();
    let outputs = ["blood_pump_on", "alarm"];
    for kind in [SolverKind::Z3, SolverKind::Cvc5] {
        let suite = generate_timed(&spec, &SolverConfig::new(kind)).unwrap();
        let mut checked = 0;
        let mut forced_seen = 0;
        for r in &suite.sequences {
            let SequenceResult::Made { sequence: s } = r else {
                continue;
            };
            let n = s.times.len();
            if n > 5 {
                continue;
            }
            let base = trace_of(&spec, s);
            let cells = n * outputs.len();
            let mut valid_traces = Vec::new();
            for bits in 0u32..(1 << cells) {
                let mut tr = base.clone();
                for (t, st) in tr.iter_mut().enumerate() {
                    for (o, name) in outputs.iter().enumerate() {
                        let b = bits >> (t * outputs.len() + o) & 1 == 1;
                        st.insert((*name).into(), logic::Value::Bool(b));
                    }
                }
                if valid(&spec, &tr) {
                    valid_traces.push(tr);
                }
            }
            let Expectation::Outputs { rows } = &s.expected else {
                assert!(
                    valid_traces.is_empty(),
                    "{kind} {}: {:?} though valid traces exist",
                    s.id,
                    s.expected
                );
                checked += 1;
                continue;
            };
            assert!(!valid_traces.is_empty(), "{kind} {}", s.id);
            for row in rows {
                for (t, e) in row.values.iter().enumerate() {
                    let seen: std::collections::BTreeSet<String> = valid_traces
                        .iter()
                        .map(|tr| rbt::values::show(tr[t].get(row.variable.as_str()).unwrap()))
                        .collect();
                    let want = if seen.len() == 1 {
                        forced_seen += 1;
                        Expected::Value(
                            rbt::values::parse(
                                seen.iter().next().unwrap(),
                                &logic::Sort::Bool,
                                &spec.enums,
                            )
                            .unwrap(),
                        )
                    } else {
                        Expected::Free
                    };
                    assert_eq!(e, &want, "{kind} {} {} step {t}", s.id, row.variable);
                }
            }
            checked += 1;
        }
        assert!(checked >= 5, "{kind}: {checked} short sequences");
        assert!(forced_seen >= 4, "{kind}: only {forced_seen} forced cells");
    }
}

/// A timed spec with plain requirements: each plain obligation (trigger, condition
/// outcomes, boundaries) gets a sequence whose first step meets it, by the evaluator;
/// every such sequence violates nothing, and its expected outputs are computed.
#[test]
fn plain_requirements_of_a_timed_spec_get_their_obligations() {
    use rbt::timed::Expectation;
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let spec = reqs::load(&root.join("crates/vera/tests/fixtures/timed-plain.toml")).unwrap();
    for kind in [SolverKind::Z3, SolverKind::Cvc5] {
        let suite = generate_timed(&spec, &SolverConfig::new(kind)).unwrap();
        let plain = rbt::obligations::obligations(
            &rbt::Problem::for_sequences(spec.clone()).unwrap(),
            true,
        );
        assert!(plain.len() >= 10, "{}", plain.len());
        // Sequences are shared: fewer of them than obligations, and each obligation
        // is covered by exactly one.
        let obligation_sequences = suite
            .made()
            .filter(|s| s.shape == Shape::Obligation)
            .count();
        assert!(obligation_sequences < plain.len(), "{obligation_sequences}");
        for o in &plain {
            assert_eq!(
                suite.made().filter(|s| s.covers.contains(&o.id)).count(),
                1,
                "{kind} {}",
                o.id
            );
        }
        for o in &plain {
            let s = suite
                .sequences
                .iter()
                .find_map(|r| match r {
                    SequenceResult::Made { sequence } if sequence.covers.contains(&o.id) => {
                        Some(sequence)
                    }
                    _ => None,
                })
                .unwrap_or_else(|| panic!("{kind}: no sequence covers {}", o.id));
            assert_eq!(s.shape, Shape::Obligation);
            let tr = trace_of(&spec, s);
            assert!(
                logic::eval_bool(&o.formula, &tr[0], &spec.context).unwrap(),
                "{kind} {}: the first step does not meet it",
                o.id
            );
            for r in &spec.requirements {
                match (&r.timed, &r.formula) {
                    (Some(p), _) => {
                        assert!(
                            trace::violations(p, &tr, &spec.context).unwrap().is_empty(),
                            "{kind} {} {}",
                            o.id,
                            r.id
                        )
                    }
                    (None, Some(f)) => assert!(
                        tr.iter()
                            .all(|st| logic::eval_bool(f, st, &spec.context).unwrap()),
                        "{kind} {} {}",
                        o.id,
                        r.id
                    ),
                    _ => {}
                }
            }
            assert!(
                matches!(s.expected, Expectation::Outputs { .. }),
                "{kind} {}",
                o.id
            );
        }
    }
}

//! The meaning of each timed pattern, tested against hand-drawn timing diagrams
//! (docs/timed.md states each choice). Every diagram is checked three ways: the trace
//! evaluator (written from the definitions), the monitors of the unrolled encoding
//! evaluated step by step, and z3 and cvc5 deciding the unrolled requirement with the
//! trace fixed.

use logic::{Model, Sort, SourceFile, Term, Value};
use proptest::prelude::*;
use reqs::timed::{trace, unroll};
use reqs::Spec;
use solver::{Outcome, Solver, SolverConfig, SolverKind};

/// A spec over Booleans P, Q, S with one timed requirement given by its keys.
fn spec(keys: &str) -> Spec {
    let text = format!(
        r#"
[time]
tick = "1 s"
[[variables]]
name = "P"
sort = "Bool"
[[variables]]
name = "Q"
sort = "Bool"
[[variables]]
name = "S"
sort = "Bool"
[[requirements]]
id = "R"
text = "under test"
[requirements.timed]
{keys}
"#
    );
    reqs::parse_spec(SourceFile::new("diagram.toml", text)).unwrap_or_else(|d| panic!("{d}"))
}

/// A trace from rows like `("P", "X__X")`: `X` true, `_` false; unnamed variables false.
fn trace_of(rows: &[(&str, &str)]) -> Vec<Model> {
    let n = rows[0].1.len();
    (0..n)
        .map(|t| {
            let mut m = Model::new();
            for v in ["P", "Q", "S"] {
                let on = rows
                    .iter()
                    .find(|(name, _)| *name == v)
                    .is_some_and(|(_, r)| r.as_bytes()[t] == b'X');
                m.insert(v.into(), Value::Bool(on));
            }
            m
        })
        .collect()
}

/// Checks one diagram: `expect` is the first violated step, or `None`.
fn diagram(keys: &str, rows: &[(&str, &str)], expect: Option<usize>) {
    let s = spec(keys);
    let tr = trace_of(rows);
    let p = s.requirements[0].timed.as_ref().expect("timed");
    let by_eval = trace::violations(p, &tr, &s.context).unwrap();
    assert_eq!(
        by_eval.first().copied(),
        expect,
        "evaluator, {keys} on {rows:?}"
    );
    let u = unroll::unroll(&s, tr.len() - 1);
    let by_monitor = u.violations(0, &tr).unwrap();
    assert_eq!(
        by_monitor.first().copied(),
        expect,
        "monitors, {keys} on {rows:?}"
    );
    for kind in [SolverKind::Z3, SolverKind::Cvc5] {
        let mut solver = Solver::start(&SolverConfig::new(kind)).unwrap();
        let lits = reqs::audit::load_into(&mut solver, &u.spec).unwrap();
        for (t, state) in tr.iter().enumerate() {
            for v in ["P", "Q", "S"] {
                let x = Term::Var(unroll::var_at(v, t), Sort::Bool);
                let val = matches!(state.get(v), Some(Value::Bool(true)));
                let lit = if val { x } else { Term::not(x) };
                solver.assert(&lit).unwrap();
            }
        }
        let mut assume = lits.domain().to_vec();
        assume.extend(lits.reqs_except(None));
        let out = solver.check_assuming(&assume).unwrap();
        let holds = matches!(out, Outcome::Sat(_));
        assert!(
            matches!(out, Outcome::Sat(_) | Outcome::Unsat(_)),
            "{kind}: {out:?}"
        );
        assert_eq!(holds, expect.is_none(), "{kind}, {keys} on {rows:?}");
    }
}

#[test]
fn immediately_and_next() {
    let now = "if = \"P\"\nthen = \"S\"";
    diagram(now, &[("P", "_X__"), ("S", "_X__")], None);
    diagram(now, &[("P", "_X__"), ("S", "__X_")], Some(1));
    let next = "if = \"P\"\nthen = \"S\"\nnext = true";
    diagram(next, &[("P", "X___"), ("S", "_X__")], None);
    diagram(next, &[("P", "X___"), ("S", "X___")], Some(1));
    // A trigger at the last step: the next step is beyond the trace.
    diagram(next, &[("P", "___X"), ("S", "____")], None);
}

#[test]
fn within_covers_t_to_t_plus_d() {
    let w = "if = \"P\"\nthen = \"S\"\nwithin = \"2 s\"";
    // "within 2 s" of a trigger at 0: S at one of steps 0, 1, 2 (three samples).
    diagram(w, &[("P", "X_____"), ("S", "__X___")], None);
    diagram(w, &[("P", "X_____"), ("S", "___X__")], Some(2));
    // Still open at the end of the trace: not a violation of a finite trace.
    diagram(w, &[("P", "_____X"), ("S", "______")], None);
    // Overlapping triggers: the oldest open one counts.
    diagram(w, &[("P", "XX____"), ("S", "_X_X__")], None);
    diagram(w, &[("P", "X_X___"), ("S", "_X____")], Some(4));
    // within 0 is immediately.
    diagram(
        "if = \"P\"\nthen = \"S\"\nwithin = \"0 s\"",
        &[("P", "X_"), ("S", "__")],
        Some(0),
    );
}

#[test]
fn for_and_not_before() {
    let f = "if = \"P\"\nthen = \"S\"\nfor = \"2 s\"";
    // "for 2 s" from a trigger at 0: S at steps 0, 1 and 2.
    diagram(f, &[("P", "X_____"), ("S", "XXX___")], None);
    diagram(f, &[("P", "X_____"), ("S", "XX____")], Some(2));
    let nb = "if = \"P\"\nthen = \"S\"\nnot_before = \"2 s\"";
    // "not before 2 s": S false at steps 0 and 1, free from step 2.
    diagram(nb, &[("P", "X_____"), ("S", "__X___")], None);
    diagram(nb, &[("P", "X_____"), ("S", "_X____")], Some(1));
}

#[test]
fn until_and_before() {
    let u = "if = \"P\"\nthen = \"S\"\nuntil = \"Q\"";
    // S from the trigger up to (not including) the step Q holds.
    diagram(
        u,
        &[("P", "X_____"), ("Q", "___X__"), ("S", "XXX___")],
        None,
    );
    diagram(
        u,
        &[("P", "X_____"), ("Q", "___X__"), ("S", "XX____")],
        Some(2),
    );
    // Weak: Q need never come.
    diagram(u, &[("P", "X___"), ("S", "XXXX")], None);
    let b = "if = \"P\"\nthen = \"S\"\nbefore = \"Q\"";
    diagram(
        b,
        &[("P", "X_____"), ("Q", "___X__"), ("S", "__X___")],
        None,
    );
    // Strictly before: S at the step Q holds is too late.
    diagram(
        b,
        &[("P", "X_____"), ("Q", "___X__"), ("S", "___X__")],
        Some(3),
    );
    // Q never holds again: nothing is required.
    diagram(b, &[("P", "X_____"), ("S", "______")], None);
}

#[test]
fn edge_level_and_durations() {
    // Edge: fires only where P becomes true.
    diagram(
        "when = \"P\"\nthen = \"S\"",
        &[("P", "XXX___"), ("S", "X_____")],
        None,
    );
    diagram(
        "if = \"P\"\nthen = \"S\"",
        &[("P", "XXX___"), ("S", "X_____")],
        Some(1),
    );
    // held_for 2 s: P at t-2, t-1 and t.
    let h = "if = \"P\"\nheld_for = \"2 s\"\nthen = \"S\"";
    diagram(h, &[("P", "XXX___"), ("S", "__X___")], None);
    diagram(h, &[("P", "XXX___"), ("S", "______")], Some(2));
    diagram(h, &[("P", "XX_XX_"), ("S", "______")], None);
    // within_last 2 s: P at one of t-2 .. t.
    let l = "if = \"P\"\nwithin_last = \"2 s\"\nthen = \"S\"";
    diagram(l, &[("P", "X_____"), ("S", "XXX___")], None);
    diagram(l, &[("P", "X_____"), ("S", "XX____")], Some(2));
    let i = "initially = true\nthen = \"S\"";
    diagram(i, &[("S", "X___")], None);
    diagram(i, &[("S", "_XXX")], Some(0));
}

#[test]
fn scopes() {
    let w = "scope_while = \"Q\"\nthen = \"S\"";
    diagram(w, &[("Q", "_XX_"), ("S", "_XX_")], None);
    diagram(w, &[("Q", "_XX_"), ("S", "_X__")], Some(2));
    let a = "scope_after = \"Q\"\nthen = \"S\"";
    diagram(a, &[("Q", "_X__"), ("S", "_XXX")], None);
    diagram(a, &[("Q", "_X__"), ("S", "_XX_")], Some(3));
    // After Q until P: the step P holds is outside; again after the next Q.
    let au = "scope_after = \"Q\"\nscope_until = \"P\"\nthen = \"S\"";
    diagram(
        au,
        &[("Q", "_X____"), ("P", "___X__"), ("S", "_XX___")],
        None,
    );
    diagram(
        au,
        &[("Q", "_X____"), ("P", "___X__"), ("S", "_X____")],
        Some(2),
    );
    diagram(
        au,
        &[("Q", "_X__X_"), ("P", "___X__"), ("S", "_XX___")],
        Some(4),
    );
    let b = "scope_before = \"Q\"\nthen = \"S\"";
    diagram(b, &[("Q", "___X"), ("S", "XXX_")], None);
    diagram(b, &[("Q", "___X"), ("S", "XX__")], Some(2));
}

/// Keys of a random pattern: scope, trigger, timing, each from the documented forms.
fn pattern_keys() -> impl Strategy<Value = String> {
    let scope = prop_oneof![
        Just(String::new()),
        Just("scope_while = \"Q\"\n".to_string()),
        Just("scope_after = \"Q\"\n".to_string()),
        Just("scope_after = \"Q\"\nscope_until = \"S\"\n".to_string()),
        Just("scope_before = \"Q\"\n".to_string()),
    ];
    let trigger = prop_oneof![
        Just(String::new()),
        Just("if = \"P\"\n".to_string()),
        Just("when = \"P\"\n".to_string()),
        Just("initially = true\n".to_string()),
        (0u8..4).prop_map(|d| format!("if = \"P\"\nheld_for = \"{d} s\"\n")),
        (0u8..4).prop_map(|d| format!("if = \"(or P Q)\"\nwithin_last = \"{d} s\"\n")),
    ];
    let timing = prop_oneof![
        Just(String::new()),
        Just("next = true\n".to_string()),
        (0u8..4).prop_map(|d| format!("within = \"{d} s\"\n")),
        (0u8..4).prop_map(|d| format!("for = \"{d} s\"\n")),
        (0u8..4).prop_map(|d| format!("not_before = \"{d} s\"\n")),
        Just("until = \"Q\"\n".to_string()),
        Just("before = \"Q\"\n".to_string()),
    ];
    (scope, trigger, timing).prop_map(|(a, b, c)| format!("{a}{b}then = \"S\"\n{c}"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    /// The monitors and the evaluator agree on whether, and where first, a random
    /// pattern is broken on a random trace.
    #[test]
    fn monitors_agree_with_the_evaluator(keys in pattern_keys(), bits in prop::collection::vec(0u8..8, 1..12)) {
        let s = spec(&keys);
        let tr: Vec<Model> = bits
            .iter()
            .map(|b| {
                let mut m = Model::new();
                for (i, v) in ["P", "Q", "S"].iter().enumerate() {
                    m.insert((*v).into(), Value::Bool(b & (1 << i) != 0));
                }
                m
            })
            .collect();
        let p = s.requirements[0].timed.as_ref().expect("timed");
        let by_eval = trace::violations(p, &tr, &s.context).unwrap();
        let u = unroll::unroll(&s, tr.len() - 1);
        let by_monitor = u.violations(0, &tr).unwrap();
        prop_assert_eq!(by_eval.first(), by_monitor.first(), "{}", keys);
    }
}

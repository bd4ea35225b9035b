//! Hostile sizes through real solver sessions: long numbers in models, definition
//! chains that expand exponentially, huge scope counts, and re-checks of unsat answers.

mod common;

use common::{f, script, start};
use logic::context::MAX_SCOPES;
use logic::{Command, Sort, Term, Value};
use solver::{Outcome, SolverError, SolverKind};
use std::time::{Duration, Instant};

both!(
    model_with_70000_digit_values_is_read_and_shown,
    doubling_definition_chain_is_validated_quickly,
    huge_push_is_refused_before_it_is_sent,
    reset_assertions_forgets_declarations_and_keeps_the_logic,
    unsat_answers_are_confirmed_by_a_second_process,
    unchecked_answers_are_the_same_and_not_confirmed,
);

fn model_with_70000_digit_values_is_read_and_shown(kind: SolverKind) {
    // 1/10^70001: printing it as a decimal used to panic in std's width formatting.
    // (z3 itself takes seconds over numbers this long, so there is only one.)
    let mut s = start(kind);
    let tiny = format!("0.{}1", "0".repeat(70_000));
    script(
        &mut s,
        &format!("(declare-const r Real) (assert (= r {tiny}))"),
    );
    let Outcome::Sat(m) = s.check().unwrap() else {
        panic!("expected sat")
    };
    assert_eq!(m.to_string(), format!("r = {tiny}"));
}

fn doubling_definition_chain_is_validated_quickly(kind: SolverKind) {
    let mut c = solver::SolverConfig::new(kind);
    c.timeout = Duration::from_secs(1);
    let mut s = solver::Solver::start(&c).unwrap();
    let mut text = String::from("(declare-const x Int) (define-fun f1 () Int (+ x x))");
    for i in 2..=60 {
        text.push_str(&format!(
            " (define-fun f{i} () Int (+ f{} f{}))",
            i - 1,
            i - 1
        ));
    }
    text.push_str(" (assert (> f60 0))");
    script(&mut s, &text);
    let t = Instant::now();
    match (kind, s.check().unwrap()) {
        (_, Outcome::Sat(m)) => {
            assert!(matches!(m.get("x"), Some(Value::Int(x)) if *x > 0.into()));
            assert!(s.check_assuming(&[f(&s, "(< f60 0)")]).unwrap().is_unsat());
        }
        // cvc5 expands the definitions itself and runs out of time.
        (SolverKind::Cvc5, Outcome::Unknown(_)) => {}
        (_, o) => panic!("{o:?}"),
    }
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
}

fn huge_push_is_refused_before_it_is_sent(kind: SolverKind) {
    let mut s = start(kind);
    let t = Instant::now();
    for n in [1_000_000_000, u32::MAX, MAX_SCOPES as u32 + 1] {
        match s.command(&Command::Push(n)) {
            Err(SolverError::Unsupported(m)) => {
                assert!(m.contains(&MAX_SCOPES.to_string()), "{m}")
            }
            other => panic!("expected a refusal, got {other:?}"),
        }
    }
    assert_eq!(s.depth(), 0);
    s.command(&Command::Push(10)).unwrap();
    assert!(matches!(
        s.command(&Command::Push(MAX_SCOPES as u32 - 9)),
        Err(SolverError::Unsupported(_))
    ));
    assert_eq!(s.depth(), 10);
    assert!(s.check().unwrap().is_sat());
    assert!(t.elapsed() < Duration::from_secs(2));
}

fn reset_assertions_forgets_declarations_and_keeps_the_logic(kind: SolverKind) {
    let mut s = start(kind);
    script(
        &mut s,
        "(set-logic QF_LIA) (declare-const x Int) (assert (> x 0)) (assert (< x 0))",
    );
    s.push().unwrap();
    assert!(s.check().unwrap().is_unsat());
    s.reset_assertions().unwrap();
    assert_eq!(s.depth(), 0);
    assert_eq!(s.context().logic(), Some("QF_LIA"));
    assert!(!s.context().is_declared("x"));
    // x can be declared again, with another sort even.
    s.declare_const("x", Sort::Bool).unwrap();
    s.assert(&f(&s, "x")).unwrap();
    assert!(s.check().unwrap().is_sat());
}

fn unsat_answers_are_confirmed_by_a_second_process(kind: SolverKind) {
    let (dir, mut s, a) = x_positive_with_transcript(kind);
    assert_eq!(
        s.check_assuming(&a).unwrap(),
        Outcome::Unsat(vec![a[0].clone()])
    );
    s.push().unwrap();
    s.assert(&f(&s, "(< x (- 3))")).unwrap();
    assert_eq!(s.check().unwrap(), Outcome::Unsat(vec![]));
    s.pop().unwrap();
    assert!(s.check().unwrap().is_sat());
    assert!(s.check_assuming(&a[..1]).unwrap().is_unsat());
    // Transcripts are renamed into place when their sessions end.
    drop(s);
    let recheck = std::fs::read_to_string(dir.path().join("t.recheck.smt2")).unwrap();
    // The re-check process got the state once and then only what changed.
    assert_eq!(
        recheck.matches("(declare-const x Int)").count(),
        1,
        "{recheck}"
    );
    assert_eq!(recheck.matches("(pop 1)").count(), 1, "{recheck}");
    assert_eq!(
        recheck.matches("(check-sat-assuming (vera!a0))").count(),
        2,
        "{recheck}"
    );
}

fn unchecked_answers_are_the_same_and_not_confirmed(kind: SolverKind) {
    let (dir, mut s, a) = x_positive_with_transcript(kind);
    assert_eq!(
        s.check_assuming_unchecked(&a).unwrap(),
        Outcome::Unsat(vec![a[0].clone()])
    );
    let Outcome::Sat(m) = s.check_assuming_unchecked(&a[1..]).unwrap() else {
        panic!("expected sat")
    };
    assert!(logic::eval_bool(&a[1], &m, s.context()).unwrap());
    drop(s);
    let main = std::fs::read_to_string(dir.path().join("t.smt2")).unwrap();
    // One check each: the unsat answer was not asked again on its core.
    let session = main
        .split("(assert (> x 0))")
        .nth(1)
        .unwrap_or_else(|| panic!("{main}"));
    assert_eq!(session.matches("(check-sat-assuming").count(), 2, "{main}");
    assert!(
        !dir.path().join("t.recheck.smt2").exists(),
        "no second process was started"
    );
}

/// A session writing its transcript to `t.smt2` in a fresh folder, over `x > 0`, and
/// two assumptions: `x < 0` (unsat with it) and `x > 5` (sat).
fn x_positive_with_transcript(kind: SolverKind) -> (tempfile::TempDir, solver::Solver, [Term; 2]) {
    let dir = tempfile::tempdir().unwrap();
    let mut c = solver::SolverConfig::new(kind);
    c.transcript = Some(dir.path().join("t.smt2"));
    let mut s = solver::Solver::start(&c).unwrap();
    script(&mut s, "(declare-const x Int) (assert (> x 0))");
    let a = [f(&s, "(< x 0)"), f(&s, "(> x 5)")];
    (dir, s, a)
}

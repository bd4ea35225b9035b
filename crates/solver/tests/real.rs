//! Sessions with the real z3 and cvc5 binaries; every test runs against both.

mod common;

use common::{f, script, start};
use logic::{eval_bool, Command, Sort, Symbol, Term, Value};
use num_rational::BigRational;
use solver::{Outcome, Reason, Solver, SolverConfig, SolverError, SolverKind};
use std::sync::Arc;
use std::time::{Duration, Instant};

both!(
    sat_with_validated_model,
    unsat_core_of_assumptions,
    push_and_pop,
    enum_sort_model,
    real_model_is_exact,
    definitions_are_evaluated,
    hard_problem_times_out,
    rejected_command_is_an_error,
    values_after_sat,
    only_state_commands_are_accepted,
    reset_forgets_everything,
);

fn sat_with_validated_model(kind: SolverKind) {
    let mut s = start(kind);
    assert_eq!(s.kind(), kind);
    assert!(s.version().starts_with(|c: char| c.is_ascii_digit()));
    script(
        &mut s,
        "(declare-const x Int) (declare-const y Int) (declare-const b Bool)
         (assert (and (> x 2) (< y x) (= (+ x y) 10) (= b (> y 4))))",
    );
    let Outcome::Sat(m) = s.check().unwrap() else {
        panic!("expected sat")
    };
    for t in s.assertions() {
        assert!(eval_bool(t, &m, s.context()).unwrap());
    }
    assert!(matches!(m.get("x"), Some(Value::Int(_))));
    assert!(matches!(m.get("b"), Some(Value::Bool(_))));
}

fn unsat_core_of_assumptions(kind: SolverKind) {
    let mut s = start(kind);
    script(
        &mut s,
        "(declare-const x Int) (declare-const p Bool) (assert (=> p (> x 10)))",
    );
    let a = vec![
        f(&s, "(> x 5)"),
        f(&s, "p"),
        f(&s, "(< x 3)"),
        f(&s, "(not (= x 7))"),
    ];
    let Outcome::Unsat(core) = s.check_assuming(&a).unwrap() else {
        panic!("expected unsat")
    };
    assert!(!core.is_empty());
    assert!(
        core.iter().all(|t| a.contains(t)),
        "core not a subset: {core:?}"
    );
    assert!(core.contains(&a[2]), "(< x 3) is in every core");
    assert!(s.check_assuming(&core).unwrap().is_unsat());
    // The same assumptions again reuse their literals; a satisfiable subset is sat.
    assert!(s.check_assuming(&a[..2]).unwrap().is_sat());
    let Outcome::Sat(m) = s.check_assuming(&[a[0].clone(), a[3].clone()]).unwrap() else {
        panic!("expected sat")
    };
    assert!(m.values.keys().all(|k| !k.starts_with("vera!")));
    // A plain check has an empty core.
    s.assert(&f(&s, "(< x 0)")).unwrap();
    s.assert(&f(&s, "(> x 0)")).unwrap();
    assert_eq!(s.check().unwrap(), Outcome::Unsat(vec![]));
}

fn push_and_pop(kind: SolverKind) {
    let mut s = start(kind);
    script(&mut s, "(declare-const x Int) (assert (> x 0))");
    s.push().unwrap();
    assert_eq!(s.depth(), 1);
    s.declare_const("y", Sort::Int).unwrap();
    s.assert(&f(&s, "(< x y 0)")).unwrap();
    assert!(s.check().unwrap().is_unsat());
    s.pop().unwrap();
    assert_eq!(s.depth(), 0);
    assert!(!s.context().is_declared("y"));
    let Outcome::Sat(m) = s.check().unwrap() else {
        panic!("expected sat")
    };
    assert!(m.get("y").is_none());
    // Nested scopes with a multi-level pop.
    s.command(&Command::Push(2)).unwrap();
    s.assert(&f(&s, "(< x 0)")).unwrap();
    assert!(s.check().unwrap().is_unsat());
    s.command(&Command::Pop(2)).unwrap();
    assert!(s.check().unwrap().is_sat());
}

fn enum_sort_model(kind: SolverKind) {
    let mut s = start(kind);
    let ctors: Vec<Symbol> = ["Red", "Green", "Blue"].map(Arc::from).to_vec();
    s.command(&Command::DeclareEnum(Arc::from("Color"), ctors))
        .unwrap();
    s.declare_const("c", Sort::Enum(Arc::from("Color")))
        .unwrap();
    s.assert(&f(&s, "(and (not (= c Red)) (distinct c Blue))"))
        .unwrap();
    let Outcome::Sat(m) = s.check().unwrap() else {
        panic!("expected sat")
    };
    assert_eq!(
        m.get("c"),
        Some(&Value::Enum(Arc::from("Color"), Arc::from("Green")))
    );
}

fn real_model_is_exact(kind: SolverKind) {
    let mut s = start(kind);
    script(
        &mut s,
        "(set-logic QF_LRA) (declare-const x Real) (assert (= (* 3 x) 1))",
    );
    let Outcome::Sat(m) = s.check().unwrap() else {
        panic!("expected sat")
    };
    let third = BigRational::new(1.into(), 3.into());
    assert_eq!(m.get("x"), Some(&Value::Real(third.clone())));
    let v = s.get_values(&[Term::var("x", Sort::Real)]).unwrap();
    assert_eq!(v, vec![Value::Real(third)]);
}

fn definitions_are_evaluated(kind: SolverKind) {
    let mut s = start(kind);
    script(
        &mut s,
        "(declare-const x Int) (declare-const unused Int)
         (define-fun double ((a Int)) Int (* 2 a))
         (define-fun big () Bool (> (double x) 9))
         (assert big)",
    );
    let Outcome::Sat(m) = s.check().unwrap() else {
        panic!("expected sat")
    };
    // x is fetched even if the solver leaves it out of the model.
    assert!(m.get("x").is_some());
    assert!(s
        .check_assuming(&[f(&s, "(< (double x) 3)")])
        .unwrap()
        .is_unsat());
}

fn hard_problem_times_out(kind: SolverKind) {
    let mut c = SolverConfig::new(kind);
    c.timeout = Duration::from_millis(300);
    let mut s = Solver::start(&c).unwrap();
    script(
        &mut s,
        "(declare-const a Int) (declare-const b Int) (declare-const d Int)
         (assert (and (> a 1) (> b 1) (> d 1) (= (+ (* a a a) (* b b b)) (* d d d))))",
    );
    let t = Instant::now();
    let o = s.check().unwrap();
    assert!(
        matches!(o, Outcome::Unknown(Reason::Timeout | Reason::Incomplete)),
        "{o:?}"
    );
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    // The session goes on.
    s.pop().unwrap_err();
    s.assert(&f(&s, "(< a 0)")).unwrap();
    assert!(s.check().unwrap().is_unsat());
}

fn rejected_command_is_an_error(kind: SolverKind) {
    let mut s = start(kind);
    script(&mut s, "(declare-const x Int) (assert (> x 1))");
    // Popping a scope that is not open.
    match s.pop() {
        Err(SolverError::Solver { command, message }) => {
            assert_eq!(command, "(pop 1)");
            assert!(!message.is_empty());
        }
        other => panic!("expected a solver error, got {other:?}"),
    }
    // Declaring a name twice.
    assert!(matches!(
        s.declare_const("x", Sort::Int),
        Err(SolverError::Solver { .. })
    ));
    // The state is unchanged (cvc5 exits after such errors and is restarted).
    assert_eq!(s.depth(), 0);
    s.assert(&f(&s, "(< x 3)")).unwrap();
    let Outcome::Sat(m) = s.check().unwrap() else {
        panic!("expected sat")
    };
    assert_eq!(m.get("x"), Some(&Value::Int(2.into())));
}

fn values_after_sat(kind: SolverKind) {
    let mut s = start(kind);
    script(&mut s, "(declare-const x Int) (assert (= x 4))");
    assert!(matches!(
        s.get_values(&[f(&s, "(> x 0)")]),
        Err(SolverError::NoModel)
    ));
    assert!(s.check().unwrap().is_sat());
    let x = Term::var("x", Sort::Int);
    let v = s
        .get_values(&[
            x.clone(),
            f(&s, "(> x 5)"),
            Term::app(logic::Op::Mul, vec![x.clone(), x]),
        ])
        .unwrap();
    assert_eq!(
        v,
        vec![
            Value::Int(4.into()),
            Value::Bool(false),
            Value::Int(16.into())
        ]
    );
}

fn only_state_commands_are_accepted(kind: SolverKind) {
    let mut s = start(kind);
    for c in [
        Command::CheckSat,
        Command::GetModel,
        Command::Exit,
        Command::Reset,
    ] {
        assert!(matches!(s.command(&c), Err(SolverError::Unsupported(_))));
    }
    assert!(matches!(
        s.assert(&Term::int(1)),
        Err(SolverError::Unsupported(_))
    ));
}

fn reset_forgets_everything(kind: SolverKind) {
    let mut s = start(kind);
    script(
        &mut s,
        "(set-logic QF_LIA) (declare-const x Int) (assert (< x 0)) (assert (> x 0))",
    );
    assert!(s.check().unwrap().is_unsat());
    s.reset().unwrap();
    assert_eq!(s.restarts(), 0);
    script(
        &mut s,
        "(set-logic QF_LRA) (declare-const x Real) (assert (> x 0.5))",
    );
    assert!(s.check().unwrap().is_sat());
}

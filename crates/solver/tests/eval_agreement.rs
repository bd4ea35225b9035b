//! Property test: vera's evaluator and the real solvers agree on the value of random
//! terms under random assignments. For each generated term `t` and model `m`, with every
//! constant fixed to its value in `m`, `(not (= t eval(t, m)))` must be unsat.

use logic::testgen::{self, Gen};
use logic::{eval, Op, Sort, Term};
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use solver::{Outcome, Solver, SolverConfig, SolverKind};
use std::cell::RefCell;

fn agree(kind: SolverKind, cases: u32) {
    let mut solver = Solver::start(&SolverConfig::new(kind)).expect("solver starts");
    let schema = logic::parse_script(&logic::SourceFile::new("schema", testgen::schema_text()))
        .expect("schema parses");
    for c in &schema.commands {
        solver.command(&c.command).expect("schema accepted");
    }
    let ctx = testgen::schema();
    let solver = RefCell::new(solver);
    let checked = RefCell::new(0u32);
    let mut runner = TestRunner::new(Config {
        cases,
        ..Config::default()
    });
    let sorts = [
        Sort::Bool,
        Sort::Int,
        Sort::Real,
        Sort::Enum("Color".into()),
    ];
    runner
        .run(
            &(proptest::num::u64::ANY, 0usize..4, 1usize..5),
            |(seed, si, depth)| {
                let mut g = Gen::new(seed);
                let t = g.term(&sorts[si], depth);
                let m = testgen::model(g.rng());
                let Ok(v) = eval(&t, &m, &ctx) else {
                    // Division by zero: SMT-LIB leaves the value open, nothing to compare.
                    return Ok(());
                };
                let mut s = solver.borrow_mut();
                s.push().unwrap();
                for (name, val) in &m.values {
                    let var = Term::Var(name.clone(), val.sort());
                    s.assert(&Term::app(Op::Eq, vec![var, val.to_term()]))
                        .unwrap();
                }
                s.assert(&Term::not(Term::app(Op::Eq, vec![t.clone(), v.to_term()])))
                    .unwrap();
                let outcome = s.check().unwrap();
                s.pop().unwrap();
                *checked.borrow_mut() += 1;
                match outcome {
                    Outcome::Unsat(_) => Ok(()),
                    other => Err(TestCaseError::fail(format!(
                        "{kind}: evaluator says {} = {v} under {m}, solver answered {other:?}",
                        logic::print::term(&t)
                    ))),
                }
            },
        )
        .unwrap();
    assert!(
        *checked.borrow() > cases / 2,
        "most cases are checked by the solver"
    );
}

#[test]
fn evaluator_agrees_with_z3() {
    agree(SolverKind::Z3, 300);
}

#[test]
fn evaluator_agrees_with_cvc5() {
    agree(SolverKind::Cvc5, 300);
}

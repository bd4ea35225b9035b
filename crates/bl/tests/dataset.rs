//! Every BL program of the fees dataset parses, encodes, and its encoding agrees with
//! the interpreter; the encoding is solver-equivalent to the authors' `prog.smt2`.

mod common;
use bl::{Binding, ExprKind};
use logic::{Command, Model, Sort, Term, Value};
use num_rational::BigRational;
use solver::{Solver, SolverConfig, SolverKind};
use std::collections::BTreeMap;
use std::sync::Arc;

fn r(s: &str) -> BigRational {
    bl::parse_rational(s).unwrap()
}

/// Literals of the program, the interesting points of its input space.
fn literals(p: &bl::Program) -> Vec<BigRational> {
    let mut out = vec![r("0"), r("1"), r("1/2"), r("-3")];
    for l in &p.lets {
        if let Binding::Expr(e) = &l.value {
            let mut stack = vec![e];
            while let Some(e) = stack.pop() {
                match &e.kind {
                    ExprKind::Num(n) => out.push(n.clone()),
                    ExprKind::Paren(x) => stack.push(x),
                    ExprKind::Bin(_, a, b) => stack.extend([&**a, &**b]),
                    ExprKind::If {
                        lhs,
                        rhs,
                        then_,
                        else_,
                        ..
                    } => stack.extend([&**lhs, &**rhs, &**then_, &**else_]),
                    _ => {}
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Runs the encoding through `logic::eval` binding by binding and compares every value.
fn agree(p: &bl::Program, inputs: &BTreeMap<String, BigRational>) {
    let values = bl::run(p, inputs).unwrap();
    let mut m = Model::new();
    for (k, v) in inputs {
        m.insert(Arc::from(k.as_str()), Value::Real(v.clone()));
    }
    let ctx = logic::Context::new();
    for c in bl::encode(p) {
        if let Command::Assert(Term::App(_, args)) = c {
            let Term::Var(x, _) = &args[0] else { panic!() };
            let v = logic::eval(&args[1], &m, &ctx).unwrap();
            assert_eq!(v, Value::Real(values[&**x].clone()), "{x} at {inputs:?}");
            m.insert(x.clone(), v);
        }
    }
}

#[test]
fn every_program_parses_encodes_and_agrees_with_the_interpreter() {
    let files = common::bl_files();
    assert!(files.len() >= 18, "{files:?}");
    for f in &files {
        let src = common::file(f);
        let p = bl::parse(&src).unwrap_or_else(|d| panic!("{}:\n{d}", common::short(f)));
        let text = bl::encode_text(&p);
        assert!(text.starts_with("(declare-const"), "{text}");
        // The formatter's output parses to the same program.
        let again = bl::parse(&logic::SourceFile::new("fmt", bl::format::program(&p))).unwrap();
        assert_eq!(bl::format::program(&again), bl::format::program(&p));
        let ins: Vec<String> = p.inputs().map(str::to_string).collect();
        let lits = literals(&p);
        let mut points: Vec<BigRational> = Vec::new();
        for l in &lits {
            points.push(l.clone());
            points.push(l + r("1/3"));
            points.push(l - r("1/7"));
        }
        let mut cases = 0;
        for i in 0..points.len() {
            // The first input walks through every point, the others are spread out.
            let mut inputs = BTreeMap::new();
            for (j, n) in ins.iter().enumerate() {
                inputs.insert(n.clone(), points[(i + 7 * j) % points.len()].clone());
            }
            agree(&p, &inputs);
            cases += 1;
        }
        assert!(cases > 10);
    }
}

/// The authors' compiled `prog.smt2` against our encoding, binding by binding.
#[test]
fn encoding_is_equivalent_to_the_authors_prog_smt2() {
    if !common::have("z3") {
        eprintln!("z3 not found; skipped");
        return;
    }
    let mut report = Vec::new();
    let dir = common::data().join("cra-25");
    let mut regions: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    regions.sort();
    let mut s = Solver::start(&SolverConfig::new(SolverKind::Z3)).unwrap();
    for rdir in regions {
        let p = bl::parse(&common::file(&rdir.join("prog.bl"))).unwrap();
        let theirs = logic::parse_script(&common::file(&rdir.join("prog.smt2"))).unwrap();
        s.push().unwrap();
        let a = |n: &str| -> logic::Symbol { Arc::from(format!("a.{n}").as_str()) };
        let b = |n: &str| -> logic::Symbol { Arc::from(format!("b.{n}").as_str()) };
        for c in &theirs.commands {
            s.command(&bl::check::side::rename_command(&c.command, &a))
                .unwrap();
        }
        for c in bl::encode_with(&p, &b) {
            s.command(&c).unwrap();
        }
        for i in p.inputs() {
            s.assert(&Term::app(
                logic::Op::Eq,
                vec![Term::Var(a(i), Sort::Real), Term::Var(b(i), Sort::Real)],
            ))
            .unwrap();
        }
        for l in &p.lets {
            let d = Term::app(
                logic::Op::Distinct,
                vec![
                    Term::Var(a(&l.name), Sort::Real),
                    Term::Var(b(&l.name), Sort::Real),
                ],
            );
            let o = s.check_assuming(&[d]).unwrap();
            report.push(format!(
                "{} {}: {}",
                rdir.file_name().unwrap().to_string_lossy(),
                l.name,
                if o.is_unsat() {
                    "equivalent"
                } else {
                    "DIFFERENT"
                }
            ));
        }
        s.pop().unwrap();
    }
    let diffs: Vec<&String> = report.iter().filter(|l| l.contains("DIFFERENT")).collect();
    assert!(diffs.is_empty(), "{diffs:#?}");
    assert!(report.len() > 100);
}

//! Property tests: the interpreter and the SMT encoding agree on random programs and
//! inputs (through `logic::eval` for many cases, through z3 for fewer), and the
//! formatter's output parses back to the same program.

use bl::{BinOp, Binding, CmpOp, Expr, ExprKind, Let, Program};
use logic::{Command, Model, Op, Sort, Term, Value};
use num_rational::BigRational;
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::sync::Arc;

fn e(kind: ExprKind) -> Expr {
    Expr {
        kind,
        span: logic::Span::default(),
    }
}

fn num() -> impl Strategy<Value = BigRational> {
    (
        0i64..2000,
        prop_oneof![Just(1i64), Just(10), Just(100), Just(4)],
    )
        .prop_map(|(n, d)| BigRational::new(n.into(), d.into()))
}

/// Expressions over the names `v0 .. v{n-1}`.
fn expr(n: usize) -> impl Strategy<Value = Expr> {
    let leaf = prop_oneof![
        num().prop_map(|r| e(ExprKind::Num(r))),
        (0..n).prop_map(|i| e(ExprKind::Var(format!("v{i}")))),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        let cmp = prop_oneof![
            Just(CmpOp::Gt),
            Just(CmpOp::Lt),
            Just(CmpOp::Eq),
            Just(CmpOp::Le),
            Just(CmpOp::Ge)
        ];
        let op = prop_oneof![
            Just(BinOp::Add),
            Just(BinOp::Sub),
            Just(BinOp::Mul),
            Just(BinOp::Div)
        ];
        prop_oneof![
            (op, inner.clone(), inner.clone()).prop_map(|(o, a, b)| e(ExprKind::Bin(
                o,
                Box::new(a),
                Box::new(b)
            ))),
            inner.clone().prop_map(|a| e(ExprKind::Paren(Box::new(a)))),
            (inner.clone(), cmp, inner.clone(), inner.clone(), inner).prop_map(
                |(l, c, r, t, f)| e(ExprKind::If {
                    lhs: Box::new(l),
                    cmp: c,
                    rhs: Box::new(r),
                    then_: Box::new(t),
                    else_: Box::new(f),
                })
            ),
        ]
    })
}

fn program() -> impl Strategy<Value = Program> {
    (1usize..3, 1usize..4).prop_flat_map(|(inputs, computed)| {
        let exprs: Vec<_> = (0..computed).map(|k| expr(inputs + k)).collect();
        exprs.prop_map(move |es| {
            let mut lets: Vec<Let> = (0..inputs)
                .map(|i| Let {
                    name: format!("v{i}"),
                    name_span: Default::default(),
                    value: Binding::Input,
                    span: Default::default(),
                })
                .collect();
            for (k, x) in es.into_iter().enumerate() {
                lets.push(Let {
                    name: format!("v{}", inputs + k),
                    name_span: Default::default(),
                    value: Binding::Expr(x),
                    span: Default::default(),
                });
            }
            Program { lets }
        })
    })
}

fn inputs(p: &Program, vals: &[BigRational]) -> BTreeMap<String, BigRational> {
    p.inputs()
        .zip(vals.iter().cycle())
        .map(|(n, v)| (n.to_string(), v.clone()))
        .collect()
}

fn signed() -> impl Strategy<Value = BigRational> {
    (-3000i64..3000, 1i64..20).prop_map(|(n, d)| BigRational::new(n.into(), d.into()))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn interpreter_and_encoding_agree(p in program(), vals in proptest::collection::vec(signed(), 3)) {
        let ins = inputs(&p, &vals);
        let Ok(values) = bl::run(&p, &ins) else { return Ok(()) }; // division by zero
        let mut m = Model::new();
        for (k, v) in &ins {
            m.insert(Arc::from(k.as_str()), Value::Real(v.clone()));
        }
        let ctx = logic::Context::new();
        for c in bl::encode(&p) {
            if let Command::Assert(Term::App(_, a)) = c {
                let Term::Var(x, _) = &a[0] else { unreachable!() };
                let v = logic::eval(&a[1], &m, &ctx).unwrap();
                prop_assert_eq!(&v, &Value::Real(values[&**x].clone()));
                m.insert(x.clone(), v);
            }
        }
    }

    #[test]
    fn formatted_programs_parse_back(p in program()) {
        let text = bl::format::program(&p);
        let q = bl::parse(&logic::SourceFile::new("p.bl", text.clone()));
        // Division by a literal zero is rejected by design; everything else parses.
        match q {
            Ok(q) => prop_assert_eq!(bl::format::program(&q), text),
            Err(d) => prop_assert!(d.to_string().contains("division by zero"), "{}\n{}", text, d),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn z3_agrees_with_the_interpreter(p in program(), vals in proptest::collection::vec(signed(), 3)) {
        if std::process::Command::new("z3").arg("--version").output().is_err() {
            return Ok(());
        }
        let ins = inputs(&p, &vals);
        let Ok(values) = bl::run(&p, &ins) else { return Ok(()) };
        let out = p.last_name().unwrap().to_string();
        let mut s = solver::Solver::start(&solver::SolverConfig::new(solver::SolverKind::Z3)).unwrap();
        for c in bl::encode(&p) {
            s.command(&c).unwrap();
        }
        for (k, v) in &ins {
            s.assert(&Term::app(Op::Eq, vec![Term::var(k, Sort::Real), Term::Real(v.clone())])).unwrap();
        }
        let o = Term::var(&out, Sort::Real);
        match s.check().unwrap() {
            solver::Outcome::Sat(m) => prop_assert_eq!(m.get(&out), Some(&Value::Real(values[&out].clone()))),
            other => prop_assert!(false, "{:?}", other),
        }
        let d = Term::app(Op::Distinct, vec![o, Term::Real(values[&out].clone())]);
        prop_assert!(s.check_assuming(&[d]).unwrap().is_unsat());
    }
}

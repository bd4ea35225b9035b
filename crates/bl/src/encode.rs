//! The SMT encoding of Algorithm 1 of the SIRNA paper: every binding becomes a
//! `declare-const` of sort `Real`, every computed binding an `(assert (= x e))`, and
//! `if` becomes `ite`. The encoding is quantifier free and, apart from products of two
//! bindings, linear.

use crate::ast::{Binding, Expr, ExprKind, Program};
use logic::{Command, Op, Sort, Symbol, Term};
use std::sync::Arc;

/// Encodes a program with its own names.
pub fn encode(program: &Program) -> Vec<Command> {
    encode_with(program, &|n: &str| Arc::from(n))
}

/// Encodes a program, renaming every binding with `name` (e.g. to put it in a namespace).
pub fn encode_with(program: &Program, name: &dyn Fn(&str) -> Symbol) -> Vec<Command> {
    let mut out = Vec::with_capacity(program.lets.len() * 2);
    for l in &program.lets {
        let x = name(&l.name);
        out.push(Command::DeclareConst(x.clone(), Sort::Real));
        if let Binding::Expr(e) = &l.value {
            let t = expr_term(e, name);
            out.push(Command::Assert(Term::app(
                Op::Eq,
                vec![Term::Var(x, Sort::Real), t],
            )));
        }
    }
    out
}

/// The encoding as SMT-LIB text, one command per line.
pub fn encode_text(program: &Program) -> String {
    let mut s = String::new();
    for c in encode(program) {
        s.push_str(&logic::print::command(&c));
        s.push('\n');
    }
    s
}

/// The term for one expression (ENCODEEXPR of Algorithm 1). Parentheses disappear.
pub fn expr_term(e: &Expr, name: &dyn Fn(&str) -> Symbol) -> Term {
    stacker::maybe_grow(64 * 1024, 1024 * 1024, || match &e.kind {
        ExprKind::Num(n) => Term::Real(n.clone()),
        ExprKind::Var(v) => Term::Var(name(v), Sort::Real),
        ExprKind::Paren(x) => expr_term(x, name),
        ExprKind::Bin(op, a, b) => {
            Term::app(op.smt(), vec![expr_term(a, name), expr_term(b, name)])
        }
        ExprKind::If {
            lhs,
            cmp,
            rhs,
            then_,
            else_,
        } => Term::app(
            Op::Ite,
            vec![
                Term::app(cmp.smt(), vec![expr_term(lhs, name), expr_term(rhs, name)]),
                expr_term(then_, name),
                expr_term(else_, name),
            ],
        ),
    })
}

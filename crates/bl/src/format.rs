//! The BL formatter: a program back to canonical BL text that parses to the same tree
//! (spans aside).

use crate::ast::{BinOp, Binding, Expr, ExprKind, Program};
use num_rational::BigRational;

/// A BL number literal for an exact value, if it has a finite decimal expansion and is
/// not negative (BL has no negative literals).
pub fn number(n: &BigRational) -> Option<String> {
    if n < &BigRational::from_integer(0.into()) {
        return None;
    }
    let d = logic::print::decimal(n)?;
    Some(d.strip_suffix(".0").map(str::to_string).unwrap_or(d))
}

/// A computed value for people: its decimal form, followed by the exact fraction when
/// the decimal differs from it (`0.5 (= 1/2)`), or the exact value alone.
pub fn value(v: &BigRational) -> String {
    let exact = if v.is_integer() {
        v.to_integer().to_string()
    } else {
        format!("{}/{}", v.numer(), v.denom())
    };
    match number(v) {
        Some(d) if d != exact => format!("{d} (= {exact})"),
        Some(d) => d,
        None => exact,
    }
}

/// Formats a whole program, one binding per line.
pub fn program(p: &Program) -> String {
    let mut s = String::new();
    for l in &p.lets {
        s.push_str("let ");
        s.push_str(&l.name);
        s.push_str(" = ");
        match &l.value {
            Binding::Input => s.push_str("<input>"),
            Binding::Expr(e) => expr_into(&mut s, e),
        }
        s.push('\n');
    }
    s
}

/// Formats one expression.
pub fn expr(e: &Expr) -> String {
    let mut s = String::new();
    expr_into(&mut s, e);
    s
}

fn expr_into(s: &mut String, e: &Expr) {
    stacker::maybe_grow(64 * 1024, 1024 * 1024, || match &e.kind {
        ExprKind::Num(n) => match number(n) {
            Some(t) => s.push_str(&t),
            // Not expressible as a BL literal: write it as a quotient.
            None => {
                s.push_str(&format!("({} / {})", n.numer(), n.denom()));
            }
        },
        ExprKind::Var(v) => s.push_str(v),
        ExprKind::Paren(x) => {
            s.push('(');
            expr_into(s, x);
            s.push(')');
        }
        ExprKind::Bin(op, a, b) => {
            // The tree came from the parser or a generator that respects precedence
            // through explicit `Paren` nodes, so printing operands as they are is exact,
            // except where a generator nests without parentheses: add them when needed.
            operand(s, a, *op, false);
            s.push(' ');
            s.push_str(op.symbol());
            s.push(' ');
            operand(s, b, *op, true);
        }
        ExprKind::If {
            lhs,
            cmp,
            rhs,
            then_,
            else_,
        } => {
            s.push_str("if ");
            expr_into(s, lhs);
            s.push(' ');
            s.push_str(cmp.symbol());
            s.push(' ');
            expr_into(s, rhs);
            s.push_str(" then ");
            expr_into(s, then_);
            s.push_str(" else ");
            expr_into(s, else_);
        }
    })
}

fn prec(op: BinOp) -> u8 {
    match op {
        BinOp::Add | BinOp::Sub => 1,
        BinOp::Mul | BinOp::Div => 2,
    }
}

fn operand(s: &mut String, e: &Expr, parent: BinOp, right: bool) {
    let needs = match &e.kind {
        ExprKind::Bin(op, ..) => prec(*op) < prec(parent) || (right && prec(*op) == prec(parent)),
        // An `if` extends as far right as possible: as an operand it is always
        // parenthesised.
        ExprKind::If { .. } => true,
        _ => false,
    };
    if needs {
        s.push('(');
        expr_into(s, e);
        s.push(')');
    } else {
        expr_into(s, e);
    }
}

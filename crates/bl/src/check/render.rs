//! Infix rendering of atoms and terms for region descriptions.

use logic::{Op, Term};

/// Renders a term in infix notation, mapping each constant name through `name`.
pub fn infix(t: &Term, name: &dyn Fn(&str) -> String) -> String {
    let mut s = String::new();
    go(&mut s, t, name, 0);
    s
}

fn prec(op: Op) -> u8 {
    match op {
        Op::Add | Op::Sub => 2,
        Op::Mul | Op::Div => 3,
        Op::Neg => 4,
        _ => 1,
    }
}

fn go(s: &mut String, t: &Term, name: &dyn Fn(&str) -> String, outer: u8) {
    match t {
        Term::Var(n, _) => s.push_str(&name(n)),
        Term::Real(_) | Term::Int(_) | Term::Bool(_) => {
            let v = match t {
                Term::Real(r) => logic::Value::Real(r.clone()).to_string(),
                Term::Int(i) => i.to_string(),
                Term::Bool(b) => b.to_string(),
                _ => unreachable!(),
            };
            let v = v.strip_suffix(".0").map(str::to_string).unwrap_or(v);
            if v.starts_with('-') && outer > 0 {
                s.push_str(&format!("({v})"));
            } else {
                s.push_str(&v);
            }
        }
        Term::App(Op::Not, a) => match &a[0] {
            Term::App(op @ (Op::Le | Op::Lt | Op::Ge | Op::Gt | Op::Eq), xs) if xs.len() == 2 => {
                let neg = match op {
                    Op::Le => ">",
                    Op::Lt => ">=",
                    Op::Ge => "<",
                    Op::Gt => "<=",
                    _ => "!=",
                };
                go(s, &xs[0], name, 0);
                s.push_str(&format!(" {neg} "));
                go(s, &xs[1], name, 0);
            }
            x => {
                s.push_str("not (");
                go(s, x, name, 0);
                s.push(')');
            }
        },
        Term::App(op @ (Op::Le | Op::Lt | Op::Ge | Op::Gt | Op::Eq), xs) if xs.len() == 2 => {
            go(s, &xs[0], name, 0);
            s.push_str(if *op == Op::Eq { " == " } else { "" });
            if *op != Op::Eq {
                s.push_str(&format!(" {} ", op.name()));
            }
            go(s, &xs[1], name, 0);
        }
        Term::App(Op::Neg, xs) => {
            s.push('-');
            go(s, &xs[0], name, 4);
        }
        Term::App(op @ (Op::Add | Op::Sub | Op::Mul | Op::Div), xs) => {
            let p = prec(*op);
            let paren = p < outer;
            if paren {
                s.push('(');
            }
            for (i, x) in xs.iter().enumerate() {
                if i > 0 {
                    s.push_str(&format!(" {} ", op.name()));
                }
                go(s, x, name, if i == 0 { p } else { p + 1 });
            }
            if paren {
                s.push(')');
            }
        }
        Term::App(Op::Ite, xs) => {
            s.push_str("(if ");
            go(s, &xs[0], name, 0);
            s.push_str(" then ");
            go(s, &xs[1], name, 0);
            s.push_str(" else ");
            go(s, &xs[2], name, 0);
            s.push(')');
        }
        Term::App(Op::And, xs) => {
            for (i, x) in xs.iter().enumerate() {
                if i > 0 {
                    s.push_str(" and ");
                }
                go(s, x, name, 1);
            }
        }
        other => {
            let renamed =
                crate::check::side::rename_term(other, &|n| std::sync::Arc::from(name(n).as_str()));
            s.push_str(&logic::print::term(&renamed));
        }
    }
}

//! The conditions of a formula: its Boolean atoms (comparisons, Boolean variables,
//! equalities of numbers or enumeration values), each occurrence by its path, and the
//! formula with one occurrence negated. MC/DC and UFC are defined over occurrences: a
//! condition that appears twice is two conditions.

use logic::{Op, Sort, Term};

/// One occurrence of a condition in a formula.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Occurrence {
    /// Argument indices from the formula's root down to the atom.
    pub path: Vec<usize>,
    /// The atom.
    pub atom: Term,
}

/// True for operators whose Boolean arguments are the formula's structure.
fn connective(t: &Term) -> bool {
    match t {
        Term::App(Op::Not | Op::And | Op::Or | Op::Xor | Op::Implies, _) => true,
        Term::App(Op::Eq | Op::Distinct, args) => {
            args.first().is_some_and(|a| a.sort() == Sort::Bool)
        }
        Term::App(Op::Ite, args) => args.get(1).is_some_and(|a| a.sort() == Sort::Bool),
        Term::Named(..) => true,
        _ => false,
    }
}

fn children(t: &Term) -> &[Term] {
    match t {
        Term::App(_, args) => args,
        Term::Named(x, _) => std::slice::from_ref(&**x),
        _ => &[],
    }
}

/// The condition occurrences of a Boolean formula, left to right. Literals `true` and
/// `false` are not conditions; a `let` counts as one condition.
pub fn conditions(f: &Term) -> Vec<Occurrence> {
    let mut out = Vec::new();
    let mut stack: Vec<(Vec<usize>, &Term)> = vec![(Vec::new(), f)];
    while let Some((path, t)) = stack.pop() {
        if connective(t) {
            for (i, c) in children(t).iter().enumerate().rev() {
                let mut p = path.clone();
                p.push(i);
                stack.push((p, c));
            }
        } else if t.sort() == Sort::Bool && !matches!(t, Term::Bool(_)) {
            out.push(Occurrence {
                path,
                atom: t.clone(),
            });
        }
    }
    out
}

/// The formula with the subterm at `path` replaced by `new`.
pub fn replace(f: &Term, path: &[usize], new: Term) -> Term {
    match path.split_first() {
        None => new,
        Some((i, rest)) => match f {
            Term::App(op, args) => {
                let mut a = args.clone();
                a[*i] = replace(&args[*i], rest, new);
                Term::App(*op, a)
            }
            Term::Named(x, n) => Term::Named(Box::new(replace(x, rest, new)), n.clone()),
            other => other.clone(),
        },
    }
}

/// The formula with the occurrence at `path` negated.
pub fn flip(f: &Term, o: &Occurrence) -> Term {
    replace(f, &o.path, Term::not(o.atom.clone()))
}

/// `c` decides `f`: negating the occurrence changes the formula's value.
pub fn decides(f: &Term, o: &Occurrence) -> Term {
    Term::app(Op::Xor, vec![f.clone(), flip(f, o)])
}

/// A numeric comparison `lhs op rhs` with two arguments: its operator and the
/// difference `lhs - rhs`, whose distance to zero the boundary cases set.
pub fn comparison(atom: &Term) -> Option<(Op, Term)> {
    let Term::App(op, args) = atom else {
        return None;
    };
    if !matches!(op, Op::Lt | Op::Le | Op::Gt | Op::Ge | Op::Eq) || args.len() != 2 {
        return None;
    }
    let (a, b) = (&args[0], &args[1]);
    if !a.sort().is_numeric() {
        return None;
    }
    if a.free_vars().is_empty() && b.free_vars().is_empty() {
        return None;
    }
    Some((*op, Term::app(Op::Sub, vec![a.clone(), b.clone()])))
}

#[cfg(test)]
mod tests {
    use super::*;
    use logic::{eval_bool, Context, Model, Value};

    fn ctx() -> Context {
        let mut c = Context::new();
        for n in ["a", "b", "c"] {
            c.declare_const(n.into(), Sort::Bool);
        }
        c.declare_const("x".into(), Sort::Int);
        c
    }

    fn term(s: &str) -> Term {
        logic::parse_formula(&logic::SourceFile::new("t", s), &ctx()).unwrap()
    }

    #[test]
    fn occurrences_and_flips() {
        let f = term("(or a (and (not b) (> x 3)) a)");
        let cs = conditions(&f);
        let shown: Vec<String> = cs.iter().map(|o| logic::print::term(&o.atom)).collect();
        assert_eq!(shown, ["a", "b", "(> x 3)", "a"]);
        assert_eq!(
            logic::print::term(&flip(&f, &cs[2])),
            "(or a (and (not b) (not (> x 3))) a)"
        );
        // a masks everything else: with a true, b never decides the formula.
        let mut m = Model::new();
        m.insert("a".into(), Value::Bool(true));
        m.insert("b".into(), Value::Bool(false));
        m.insert("c".into(), Value::Bool(false));
        m.insert("x".into(), Value::Int(5.into()));
        assert!(!eval_bool(&decides(&f, &cs[1]), &m, &ctx()).unwrap());
        m.insert("a".into(), Value::Bool(false));
        assert!(eval_bool(&decides(&f, &cs[1]), &m, &ctx()).unwrap());
        assert!(comparison(&cs[2].atom).is_some());
        assert!(comparison(&cs[0].atom).is_none());
    }
}

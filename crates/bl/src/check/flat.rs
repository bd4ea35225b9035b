//! Long `ite` chains as flat guarded clauses, for the solver.
//!
//! A rate table written as a rule is a chain `x = ite(w <= 1, 4.25, ite(w <= 2, 4.96,
//! ...))` with one level per row. Solvers read such a chain, but proving that two of
//! them agree (or agree outside one region) makes them resolve conflicts along the
//! whole chain once per row: time quadratic in the rows, seconds at 1,600 rows and a
//! time-out at 20,000. Here a definition `(= x chain)` is rewritten, before it is
//! sent, into one clause per arm, `(=> guard_k (= x v_k))`, where `guard_k` is the
//! set of inputs on which the arm is taken, computed exactly: the chain's conditions
//! compare one constant with numbers, so "`c_k` holds and no earlier condition does"
//! is a union of intervals of that constant, usually one (`1 < w <= 2`). The guards
//! of a chain are disjoint and cover every value, so the clauses say exactly what the
//! definition says (no fresh names, nothing approximated); an arm no input reaches is
//! left out. When a guard would need more than a few intervals, it is written as
//! `c_k` and the negations of the earlier conditions that overlap it instead.
//!
//! Only the solver sees the clauses: the analysis (atoms, regions, replay) works on
//! the definitions as written.

use logic::{Op, Term};
use num_rational::BigRational;

/// Chains with fewer `ite`s than this are sent as written.
const MIN_ITES: usize = 32;

/// Most intervals a guard is written with before falling back to the conditions.
const MAX_PIECES: usize = 4;

/// An end of an interval: the value and whether it belongs to the interval.
#[derive(Debug, Clone, PartialEq, Eq)]
struct End {
    v: BigRational,
    closed: bool,
}

/// An interval; `None` ends are infinite.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Iv {
    lo: Option<End>,
    hi: Option<End>,
}

/// A union of disjoint intervals, in order.
type Set = Vec<Iv>;

fn all() -> Set {
    vec![Iv { lo: None, hi: None }]
}

fn empty(iv: &Iv) -> bool {
    match (&iv.lo, &iv.hi) {
        (Some(l), Some(h)) => l.v > h.v || (l.v == h.v && !(l.closed && h.closed)),
        _ => false,
    }
}

/// The larger lower end (the tighter one).
fn max_lo(a: &Option<End>, b: &Option<End>) -> Option<End> {
    tighter(a, b, std::cmp::Ordering::Greater)
}

/// The smaller upper end (the tighter one).
fn min_hi(a: &Option<End>, b: &Option<End>) -> Option<End> {
    tighter(a, b, std::cmp::Ordering::Less)
}

/// The tighter of two ends of the same side: the one whose value compares to the
/// other's as `tighter` says, or the value they share, closed only when both are.
fn tighter(a: &Option<End>, b: &Option<End>, tighter: std::cmp::Ordering) -> Option<End> {
    match (a, b) {
        (None, x) | (x, None) => x.clone(),
        (Some(x), Some(y)) => Some(if x.v != y.v {
            if x.v.cmp(&y.v) == tighter {
                x.clone()
            } else {
                y.clone()
            }
        } else {
            End {
                v: x.v.clone(),
                closed: x.closed && y.closed,
            }
        }),
    }
}

fn intersect(a: &Set, b: &Set) -> Set {
    let mut out = Vec::new();
    for x in a {
        for y in b {
            let iv = Iv {
                lo: max_lo(&x.lo, &y.lo),
                hi: min_hi(&x.hi, &y.hi),
            };
            if !empty(&iv) {
                out.push(iv);
            }
        }
    }
    out.sort_by_key(|p| lo_key(&p.lo));
    out
}

/// Sort key of a lower end: -∞ first, then by value, closed before open.
fn lo_key(e: &Option<End>) -> (bool, Option<BigRational>, bool) {
    match e {
        None => (false, None, false),
        Some(e) => (true, Some(e.v.clone()), !e.closed),
    }
}

/// The complement of one interval: at most two intervals.
fn complement(iv: &Iv) -> Set {
    let mut out = Vec::new();
    if let Some(l) = &iv.lo {
        out.push(Iv {
            lo: None,
            hi: Some(End {
                v: l.v.clone(),
                closed: !l.closed,
            }),
        });
    }
    if let Some(h) = &iv.hi {
        out.push(Iv {
            lo: Some(End {
                v: h.v.clone(),
                closed: !h.closed,
            }),
            hi: None,
        });
    }
    out
}

/// A numeric literal, also when negated (`(- 3.5)`).
fn number(t: &Term) -> Option<BigRational> {
    match t {
        Term::App(Op::Neg, xs) if xs.len() == 1 => number(&xs[0]).map(|r| -r),
        _ => super::regions::rat_of_term(t),
    }
}

/// A condition `var op number` (either way round) as the constant and its interval.
fn condition(t: &Term) -> Option<(&Term, Iv)> {
    let Term::App(op, xs) = t else { return None };
    let [a, b] = xs.as_slice() else { return None };
    let (var, k, flipped) = match (a, b) {
        (Term::Var(..), k) => (a, number(k)?, false),
        (k, Term::Var(..)) => (b, number(k)?, true),
        _ => return None,
    };
    // Normalize to `var op k`.
    let op = match (op, flipped) {
        (Op::Eq, _) => Op::Eq,
        (o, false) => *o,
        (Op::Le, true) => Op::Ge,
        (Op::Lt, true) => Op::Gt,
        (Op::Ge, true) => Op::Le,
        (Op::Gt, true) => Op::Lt,
        _ => return None,
    };
    let end = |closed| {
        Some(End {
            v: k.clone(),
            closed,
        })
    };
    let iv = match op {
        Op::Le => Iv {
            lo: None,
            hi: end(true),
        },
        Op::Lt => Iv {
            lo: None,
            hi: end(false),
        },
        Op::Ge => Iv {
            lo: end(true),
            hi: None,
        },
        Op::Gt => Iv {
            lo: end(false),
            hi: None,
        },
        Op::Eq => Iv {
            lo: end(true),
            hi: end(true),
        },
        _ => return None,
    };
    Some((var, iv))
}

/// The arms of the chain at `t`: conditions on one constant, with their values, and
/// the final `else` value. `None` when `t` is not such a chain.
/// One arm of a chain: its condition, the condition's interval, its value.
type Arm<'a> = (&'a Term, Iv, &'a Term);

fn chain(t: &Term) -> Option<(&Term, Vec<Arm<'_>>, &Term)> {
    let mut arms = Vec::new();
    let mut cur = t;
    let mut var: Option<&Term> = None;
    while let Term::App(Op::Ite, xs) = cur {
        let [c, then_, else_] = xs.as_slice() else {
            break;
        };
        let Some((v, iv)) = condition(c) else { break };
        match var {
            Some(w) if w != v => break,
            _ => var = Some(v),
        }
        arms.push((c, iv, then_));
        cur = else_;
    }
    Some((var?, arms, cur))
}

fn count_ites(t: &Term) -> usize {
    let mut n = 0;
    let mut stack = vec![t];
    while let Some(t) = stack.pop() {
        if let Term::App(op, xs) = t {
            if *op == Op::Ite {
                n += 1;
            }
            stack.extend(xs.iter());
        }
    }
    n
}

fn iv_term(var: &Term, iv: &Iv) -> Term {
    if let (Some(l), Some(h)) = (&iv.lo, &iv.hi) {
        if l.v == h.v && l.closed && h.closed {
            return Term::app(Op::Eq, vec![var.clone(), Term::Real(l.v.clone())]);
        }
    }
    let mut parts = Vec::new();
    if let Some(l) = &iv.lo {
        let op = if l.closed { Op::Le } else { Op::Lt };
        parts.push(Term::app(op, vec![Term::Real(l.v.clone()), var.clone()]));
    }
    if let Some(h) = &iv.hi {
        let op = if h.closed { Op::Le } else { Op::Lt };
        parts.push(Term::app(op, vec![var.clone(), Term::Real(h.v.clone())]));
    }
    Term::conjunction(parts)
}

/// The guard of a set of values of `var`; `fallback` builds it from the conditions.
fn guard(var: &Term, set: &Set, fallback: impl FnOnce() -> Term) -> Term {
    if set.len() == 1 && set[0].lo.is_none() && set[0].hi.is_none() {
        return Term::Bool(true);
    }
    if set.len() <= MAX_PIECES {
        Term::disjunction(set.iter().map(|iv| iv_term(var, iv)).collect())
    } else {
        fallback()
    }
}

/// Appends the clauses for `x = t` under the guards `prefix`.
fn clauses(x: &Term, t: &Term, prefix: &mut Vec<Term>, out: &mut Vec<Term>) {
    let emit = |prefix: &[Term], value: &Term, out: &mut Vec<Term>| {
        let eq = Term::app(Op::Eq, vec![x.clone(), value.clone()]);
        out.push(if prefix.is_empty() {
            eq
        } else {
            Term::app(Op::Implies, vec![Term::conjunction(prefix.to_vec()), eq])
        });
    };
    let Some((var, arms, last)) = chain(t) else {
        emit(prefix, t, out);
        return;
    };
    let mut remaining = all();
    for (k, (c, iv, value)) in arms.iter().enumerate() {
        let reached = intersect(&remaining, &vec![iv.clone()]);
        remaining = intersect(&remaining, &complement(iv));
        if reached.is_empty() {
            continue;
        }
        let g = guard(var, &reached, || {
            let mut parts = vec![(*c).clone()];
            for (c2, iv2, _) in &arms[..k] {
                if !intersect(&vec![iv.clone()], &vec![iv2.clone()]).is_empty() {
                    parts.push(Term::not((*c2).clone()));
                }
            }
            Term::conjunction(parts)
        });
        prefix.push(g);
        deep(|| clauses(x, value, prefix, out));
        prefix.pop();
    }
    if !remaining.is_empty() {
        let g = guard(var, &remaining, || {
            Term::conjunction(
                arms.iter()
                    .map(|(c, _, _)| Term::not((*c).clone()))
                    .collect(),
            )
        });
        prefix.push(g);
        deep(|| clauses(x, last, prefix, out));
        prefix.pop();
    }
}

fn deep<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(64 * 1024, 1024 * 1024, f)
}

/// The assertion as the solver should see it: a definition `(= x t)` whose `t` has
/// long `ite` chains over one constant becomes one guarded clause per arm (equivalent,
/// see the module docs); anything else is returned as it is.
pub(super) fn for_solver(t: &Term) -> Vec<Term> {
    let Term::App(Op::Eq, xs) = t else {
        return vec![t.clone()];
    };
    let [a, b] = xs.as_slice() else {
        return vec![t.clone()];
    };
    let (x, body) = match (a, b) {
        (Term::Var(..), body @ Term::App(Op::Ite, _)) => (a, body),
        (body @ Term::App(Op::Ite, _), Term::Var(..)) => (b, body),
        _ => return vec![t.clone()],
    };
    if count_ites(body) < MIN_ITES {
        return vec![t.clone()];
    }
    let mut out = Vec::new();
    clauses(x, body, &mut Vec::new(), &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use logic::{Model, Sort, Value};

    fn real(i: i64) -> Term {
        Term::Real(BigRational::from_integer(i.into()))
    }

    fn chain_of(n: usize, cmp: Op) -> Term {
        let w = Term::var("w", Sort::Real);
        let mut t = Term::var("max", Sort::Real);
        for i in (1..=n).rev() {
            t = Term::app(
                Op::Ite,
                vec![
                    Term::app(cmp, vec![w.clone(), real(i as i64)]),
                    real(100 + i as i64),
                    t,
                ],
            );
        }
        t
    }

    /// The clauses hold exactly where the definition does, at every threshold, next
    /// to it and between, for `<=`, `<` and `=` chains.
    #[test]
    fn clauses_agree_with_the_chain() {
        for cmp in [Op::Le, Op::Lt, Op::Eq] {
            let body = chain_of(40, cmp);
            let x = Term::var("x", Sort::Real);
            let def = Term::app(Op::Eq, vec![x.clone(), body.clone()]);
            let flat = for_solver(&def);
            assert!(flat.len() > 1, "rewritten: {cmp:?}");
            let ctx = logic::Context::new();
            let mut points = Vec::new();
            for i in 0..=42 {
                for d in [-1, 0, 1] {
                    points.push(BigRational::new((4 * i + d).into(), 4.into()));
                }
            }
            for w in points {
                let mut m = Model::new();
                m.insert("w".into(), Value::Real(w.clone()));
                m.insert(
                    "max".into(),
                    Value::Real(BigRational::from_integer(7.into())),
                );
                let v = logic::eval(&body, &m, &ctx).unwrap();
                for wrong in [false, true] {
                    let mut m = m.clone();
                    let xv = match (&v, wrong) {
                        (Value::Real(r), true) => {
                            Value::Real(r + BigRational::from_integer(1.into()))
                        }
                        (Value::Int(i), true) => Value::Int(i + 1),
                        (v, _) => v.clone(),
                    };
                    m.insert("x".into(), xv);
                    let orig = logic::eval_bool(&def, &m, &ctx).unwrap();
                    let all = flat.iter().all(|c| logic::eval_bool(c, &m, &ctx).unwrap());
                    assert_eq!(orig, all, "{cmp:?} at w = {w}, wrong = {wrong}");
                    assert_eq!(orig, !wrong);
                }
            }
        }
    }

    #[test]
    fn short_chains_and_other_assertions_are_left_alone() {
        let x = Term::var("x", Sort::Real);
        let def = Term::app(Op::Eq, vec![x, chain_of(5, Op::Le)]);
        assert_eq!(for_solver(&def), vec![def.clone()]);
        let other = Term::app(Op::Le, vec![Term::var("w", Sort::Real), real(3)]);
        assert_eq!(for_solver(&other), vec![other.clone()]);
    }
}

//! The problem restricted to one slice of an input, for the slice-by-slice queries.
//!
//! A rule with thousands of rows (a rate table, a long `if` chain) is asked slice by
//! slice: the input with the most thresholds is cut into intervals that together
//! cover every value, and the query is satisfiable exactly when it is satisfiable in
//! one slice. Asking the full problem with the slice as an extra assumption leaves the
//! solver all the rows of the other slices to carry; with 10,000 guarded cells that
//! costs seconds per slice (measured with z3 on a 1,112 x 9 rate table: 8 s for a
//! 64-threshold slice, most of it spent on the output's equalities with thousands of
//! different rates). Here every assertion is first *restricted* to the slice: each
//! comparison of the sliced input with a number that the slice decides is replaced by
//! its truth value and the Boolean structure simplified, so the rows of other slices
//! become `true` and are not sent at all. The same query on the restricted problem
//! takes a few milliseconds.
//!
//! Soundness: for every assignment inside the slice, [`restrict`] returns a term with
//! the same value as the original (a comparison is only replaced where the slice
//! decides it; connectives are simplified by their truth tables; everything else is
//! kept). The restricted session asserts the slice itself too, so a model it finds is
//! a model of the original problem, and unsat in every slice is unsat overall. The
//! unit tests below check this by evaluation at points inside each slice.

use logic::{Op, Symbol, Term};
use num_rational::BigRational;
use std::collections::{BTreeMap, BTreeSet};

/// One slice of an input: `lo < x <= hi` (either end may be open-ended).
#[derive(Debug, Clone)]
pub(crate) struct Slice {
    /// The slice as a formula over the input, asserted with the restricted problem.
    pub(crate) term: Term,
    /// The sliced input.
    pub(crate) var: Symbol,
    /// Exclusive lower end.
    pub(crate) lo: Option<BigRational>,
    /// Inclusive upper end.
    pub(crate) hi: Option<BigRational>,
}

impl Slice {
    /// The slice as an interval.
    pub(crate) fn interval(&self) -> Iv {
        Iv {
            lo: self.lo.clone().map(|v| (v, false)),
            hi: self.hi.clone().map(|v| (v, true)),
        }
    }
}

/// An interval of values; an end is the value and whether it belongs to the interval,
/// `None` is infinite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Iv {
    pub(crate) lo: Option<(BigRational, bool)>,
    pub(crate) hi: Option<(BigRational, bool)>,
}

impl Iv {
    /// Every value.
    pub(crate) fn all() -> Iv {
        Iv { lo: None, hi: None }
    }

    /// The values in both.
    pub(crate) fn meet(&self, o: &Iv) -> Iv {
        let lo = match (&self.lo, &o.lo) {
            (None, x) | (x, None) => x.clone(),
            (Some(a), Some(b)) => Some(if a.0 > b.0 || (a.0 == b.0 && !a.1) {
                a.clone()
            } else {
                b.clone()
            }),
        };
        let hi = match (&self.hi, &o.hi) {
            (None, x) | (x, None) => x.clone(),
            (Some(a), Some(b)) => Some(if a.0 < b.0 || (a.0 == b.0 && !a.1) {
                a.clone()
            } else {
                b.clone()
            }),
        };
        Iv { lo, hi }
    }

    /// True when no value lies in it.
    pub(crate) fn is_empty(&self) -> bool {
        match (&self.lo, &self.hi) {
            (Some(l), Some(h)) => l.0 > h.0 || (l.0 == h.0 && !(l.1 && h.1)),
            _ => false,
        }
    }

    /// A value in the interval (assumed not empty), as round as the ends allow: an
    /// end that belongs to it, else the middle, else one past the open end.
    pub(crate) fn inside(&self) -> BigRational {
        match (&self.lo, &self.hi) {
            (Some((l, true)), _) => l.clone(),
            (_, Some((h, true))) => h.clone(),
            (Some((l, false)), Some((h, false))) => (l + h) / BigRational::from_integer(2.into()),
            (Some((l, false)), None) => l + BigRational::from_integer(1.into()),
            (None, Some((h, false))) => h - BigRational::from_integer(1.into()),
            (None, None) => BigRational::from_integer(0.into()),
        }
    }

    /// The values `op k` (`x op k`), for the comparisons.
    fn of(op: Op, k: &BigRational) -> Option<Iv> {
        let k = k.clone();
        Some(match op {
            Op::Le => Iv {
                lo: None,
                hi: Some((k, true)),
            },
            Op::Lt => Iv {
                lo: None,
                hi: Some((k, false)),
            },
            Op::Ge => Iv {
                lo: Some((k, true)),
                hi: None,
            },
            Op::Gt => Iv {
                lo: Some((k, false)),
                hi: None,
            },
            Op::Eq => Iv {
                lo: Some((k.clone(), true)),
                hi: Some((k, true)),
            },
            _ => return None,
        })
    }
}

/// Where the restriction applies: an interval per constant.
pub(crate) type Within = BTreeMap<Symbol, Iv>;

/// The constants equated with each other by top-level equalities between constants
/// among `asserts` (the mappings between the two sides), as classes.
pub(crate) fn classes<'a>(asserts: impl Iterator<Item = &'a Term>) -> Vec<BTreeSet<Symbol>> {
    let mut classes: Vec<BTreeSet<Symbol>> = Vec::new();
    for t in asserts {
        let Term::App(Op::Eq, xs) = t else { continue };
        let [a, b] = xs.as_slice() else { continue };
        let (Some(a), Some(b)) = (var_name(a), var_name(b)) else {
            continue;
        };
        let mut merged = BTreeSet::from([a.clone(), b.clone()]);
        classes.retain(|c| {
            if c.contains(a) || c.contains(b) {
                merged.extend(c.iter().cloned());
                false
            } else {
                true
            }
        });
        classes.push(merged);
    }
    classes
}

/// The box the assumptions `q` confine the constants to (from the comparisons of a
/// constant with a number among them and their conjunctions), met with `slice`, and
/// spread over each class of equated constants. `None` when the box is empty: the
/// assumptions contradict the slice by their bounds alone.
pub(crate) fn within(
    q: &[Term],
    slice: Option<&Slice>,
    classes: &[BTreeSet<Symbol>],
) -> Option<Within> {
    let mut w: Within = BTreeMap::new();
    fn add(w: &mut Within, v: &Symbol, iv: Iv) {
        let cur = w.remove(v).unwrap_or_else(Iv::all);
        w.insert(v.clone(), cur.meet(&iv));
    }
    fn scan(t: &Term, w: &mut Within) {
        match t {
            Term::App(Op::And, xs) => xs.iter().for_each(|x| scan(x, w)),
            Term::App(op, xs) => {
                let [a, b] = xs.as_slice() else { return };
                if let (Some(v), Some(k)) = (var_name(a), rat(b)) {
                    if let Some(iv) = Iv::of(*op, &k) {
                        add(w, v, iv);
                    }
                } else if let (Some(k), Some(v)) = (rat(a), var_name(b)) {
                    if let Some(iv) = Iv::of(flip(*op), &k) {
                        add(w, v, iv);
                    }
                }
            }
            _ => {}
        }
    }
    for t in q {
        scan(t, &mut w);
    }
    if let Some(s) = slice {
        add(&mut w, &s.var, s.interval());
    }
    for c in classes {
        let mut iv = Iv::all();
        for v in c {
            if let Some(x) = w.get(v) {
                iv = iv.meet(x);
            }
        }
        if iv != Iv::all() {
            for v in c {
                w.insert(v.clone(), iv.clone());
            }
        }
    }
    if w.values().any(Iv::is_empty) {
        None
    } else {
        Some(w)
    }
}

/// The constant a numeric term names (`x` or `(to_real x)`).
fn var_name(t: &Term) -> Option<&Symbol> {
    match t {
        Term::Var(v, s) if s.is_numeric() => Some(v),
        Term::App(Op::ToReal, xs) => match xs.as_slice() {
            [Term::Var(v, s)] if s.is_numeric() => Some(v),
            _ => None,
        },
        _ => None,
    }
}

fn rat(t: &Term) -> Option<BigRational> {
    super::regions::rat_of_term(t)
}

/// The truth value of `x op k` for every `x` in `iv`, when `iv` decides it.
fn decide(op: Op, k: &BigRational, iv: &Iv) -> Option<bool> {
    // x <= k (x < k when `strict`).
    let below = |strict: bool| -> Option<bool> {
        let all = iv
            .hi
            .as_ref()
            .is_some_and(|(h, closed)| h < k || (h == k && (!strict || !closed)));
        let none = iv
            .lo
            .as_ref()
            .is_some_and(|(l, closed)| l > k || (l == k && (strict || !closed)));
        if all {
            Some(true)
        } else if none {
            Some(false)
        } else {
            None
        }
    };
    let eq = || -> Option<bool> {
        let out = iv
            .lo
            .as_ref()
            .is_some_and(|(l, closed)| l > k || (l == k && !closed))
            || iv
                .hi
                .as_ref()
                .is_some_and(|(h, closed)| h < k || (h == k && !closed));
        let point =
            matches!((&iv.lo, &iv.hi), (Some((l, true)), Some((h, true))) if l == k && h == k);
        if out {
            Some(false)
        } else if point {
            Some(true)
        } else {
            None
        }
    };
    match op {
        Op::Le => below(false),
        Op::Lt => below(true),
        Op::Ge => below(true).map(|b| !b),
        Op::Gt => below(false).map(|b| !b),
        Op::Eq => eq(),
        Op::Distinct => eq().map(|b| !b),
        _ => None,
    }
}

/// `k op x` as `x op' k`.
fn flip(op: Op) -> Op {
    match op {
        Op::Le => Op::Ge,
        Op::Lt => Op::Gt,
        Op::Ge => Op::Le,
        Op::Gt => Op::Lt,
        o => o,
    }
}

/// A comparison of a confined constant with a number, decided by its interval.
fn atom(op: Op, xs: &[Term], w: &Within) -> Option<bool> {
    let [a, b] = xs else { return None };
    if let (Some(v), Some(k)) = (var_name(a), rat(b)) {
        return decide(op, &k, w.get(v)?);
    }
    if let (Some(k), Some(v)) = (rat(a), var_name(b)) {
        return decide(flip(op), &k, w.get(v)?);
    }
    None
}

/// `t` restricted to the slice: equal to `t` at every assignment in it.
pub(crate) fn restrict(t: &Term, w: &Within) -> Term {
    stacker::maybe_grow(64 * 1024, 1024 * 1024, || {
        let Term::App(op, xs) = t else {
            // Literals and constants stay; `let`, `!` and calls are kept whole (a
            // binder could shadow a sliced name).
            return t.clone();
        };
        if matches!(
            op,
            Op::Le | Op::Lt | Op::Ge | Op::Gt | Op::Eq | Op::Distinct
        ) {
            if let Some(b) = atom(*op, xs, w) {
                return Term::Bool(b);
            }
        }
        let ys: Vec<Term> = xs.iter().map(|x| restrict(x, w)).collect();
        simplify(*op, ys)
    })
}

/// `op` applied to already restricted arguments, with decided Boolean parts folded.
fn simplify(op: Op, ys: Vec<Term>) -> Term {
    match op {
        Op::Not => match ys.as_slice() {
            [Term::Bool(b)] => Term::Bool(!b),
            _ => Term::App(op, ys),
        },
        Op::And | Op::Or => {
            let unit = op == Op::And;
            let mut keep = Vec::with_capacity(ys.len());
            for y in ys {
                match y {
                    Term::Bool(b) if b == unit => {}
                    Term::Bool(b) => return Term::Bool(b),
                    y => keep.push(y),
                }
            }
            match keep.len() {
                0 => Term::Bool(unit),
                1 => keep.pop().expect("one"),
                _ => Term::App(op, keep),
            }
        }
        Op::Implies if ys.len() == 2 => {
            let mut it = ys.into_iter();
            let (a, b) = (it.next().expect("two"), it.next().expect("two"));
            match (a, b) {
                (Term::Bool(false), _) | (_, Term::Bool(true)) => Term::Bool(true),
                (Term::Bool(true), b) => b,
                (a, Term::Bool(false)) => Term::not(a),
                (a, b) => Term::App(Op::Implies, vec![a, b]),
            }
        }
        Op::Ite if ys.len() == 3 => match &ys[0] {
            Term::Bool(true) => ys.into_iter().nth(1).expect("then"),
            Term::Bool(false) => ys.into_iter().nth(2).expect("else"),
            _ => Term::App(op, ys),
        },
        _ => Term::App(op, ys),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use logic::{Context, Model, Sort, Value};
    use num_bigint::BigInt;

    fn r(n: i64, d: i64) -> BigRational {
        BigRational::new(BigInt::from(n), BigInt::from(d))
    }

    fn x() -> Term {
        Term::var("x", Sort::Real)
    }

    fn y() -> Term {
        Term::var("y", Sort::Real)
    }

    fn cmp(op: Op, a: Term, b: Term) -> Term {
        Term::app(op, vec![a, b])
    }

    fn num(n: i64) -> Term {
        Term::Real(r(n, 1))
    }

    /// Guarded clauses over x and y, a chain over x, the domain: every shape the
    /// restriction meets in a table or a flattened rule.
    fn formulas() -> Vec<Term> {
        let mut out = Vec::new();
        for k in 0..6 {
            let guard = Term::app(
                Op::And,
                vec![
                    cmp(Op::Lt, num(k), x()),
                    cmp(Op::Le, x(), num(k + 1)),
                    cmp(Op::Eq, y(), num(k % 3)),
                ],
            );
            out.push(Term::app(
                Op::Implies,
                vec![guard, cmp(Op::Eq, y(), num(k))],
            ));
        }
        let mut chain = y();
        for k in (0..6).rev() {
            chain = Term::app(Op::Ite, vec![cmp(Op::Ge, num(k), x()), num(10 * k), chain]);
        }
        out.push(cmp(Op::Eq, y(), chain));
        out.push(Term::app(
            Op::Or,
            (0..6)
                .map(|k| cmp(Op::Eq, x(), num(k)))
                .chain([
                    cmp(Op::Gt, x(), num(5)),
                    Term::not(cmp(Op::Distinct, x(), num(2))),
                ])
                .collect(),
        ));
        out
    }

    fn eval(t: &Term, xv: &BigRational, yv: i64) -> bool {
        let mut ctx = Context::default();
        ctx.declare_const("x".into(), Sort::Real);
        ctx.declare_const("y".into(), Sort::Real);
        let mut m = Model::default();
        m.insert("x".into(), Value::Real(xv.clone()));
        m.insert("y".into(), Value::Real(r(yv, 1)));
        logic::eval_bool(t, &m, &ctx).expect("evaluable")
    }

    fn ends() -> Vec<Option<(BigRational, bool)>> {
        let mut out = vec![None];
        for v in [r(0, 1), r(2, 1), r(5, 2), r(6, 1)] {
            out.push(Some((v.clone(), true)));
            out.push(Some((v, false)));
        }
        out
    }

    #[test]
    fn restriction_agrees_with_the_formula_inside_every_interval() {
        let mut decided = 0;
        for lo in ends() {
            for hi in ends() {
                let iv = Iv {
                    lo: lo.clone(),
                    hi: hi.clone(),
                };
                if iv.is_empty() {
                    continue;
                }
                let w: Within = BTreeMap::from([(Symbol::from("x"), iv.clone())]);
                // Points inside: quarters between -2 and 8.
                let points: Vec<BigRational> = (-8..=32)
                    .map(|q| r(q, 4))
                    .filter(|p| {
                        lo.as_ref().is_none_or(|(l, c)| p > l || (p == l && *c))
                            && hi.as_ref().is_none_or(|(h, c)| p < h || (p == h && *c))
                    })
                    .collect();
                for f in formulas() {
                    let g = restrict(&f, &w);
                    if g.size() < f.size() {
                        decided += 1;
                    }
                    for p in &points {
                        for yv in -1..7 {
                            assert_eq!(
                                eval(&f, p, yv),
                                eval(&g, p, yv),
                                "{} restricted to {iv:?} is {} and differs at x = {p}, y = {yv}",
                                logic::print::term(&f),
                                logic::print::term(&g)
                            );
                        }
                    }
                }
            }
        }
        assert!(
            decided > 100,
            "the intervals decide parts of the formulas ({decided})"
        );
    }

    #[test]
    fn rows_of_other_slices_vanish() {
        let slice = Slice {
            term: Term::Bool(true),
            var: Symbol::from("x"),
            lo: Some(r(2, 1)),
            hi: Some(r(3, 1)),
        };
        let w = within(&[], Some(&slice), &[]).expect("not empty");
        let kept: Vec<Term> = formulas()[..6]
            .iter()
            .map(|f| restrict(f, &w))
            .filter(|g| *g != Term::Bool(true))
            .collect();
        assert_eq!(kept.len(), 1, "only the row 2 < x <= 3 is left");
        assert_eq!(
            logic::print::term(&kept[0]),
            "(=> (= y 2.0) (= y 2.0))",
            "its guard on x is decided"
        );
    }

    #[test]
    fn assumptions_confine_equated_names_and_can_contradict_the_slice() {
        let eqs = [
            cmp(Op::Eq, x(), y()),
            cmp(Op::Eq, Term::var("z", Sort::Real), y()),
            cmp(Op::Eq, Term::var("u", Sort::Real), num(3)),
        ];
        let classes = classes(eqs.iter());
        assert_eq!(classes.len(), 1);
        let q = [Term::app(
            Op::And,
            vec![
                cmp(Op::Lt, num(1), y()),
                cmp(Op::Le, Term::var("z", Sort::Real), num(4)),
            ],
        )];
        let w = within(&q, None, &classes).expect("not empty");
        for v in ["x", "y", "z"] {
            assert_eq!(
                w.get(v),
                Some(&Iv {
                    lo: Some((r(1, 1), false)),
                    hi: Some((r(4, 1), true))
                }),
                "{v}"
            );
        }
        let slice = Slice {
            term: Term::Bool(true),
            var: Symbol::from("x"),
            lo: Some(r(4, 1)),
            hi: None,
        };
        assert!(
            within(&q, Some(&slice), &classes).is_none(),
            "x > 4 and x <= 4"
        );
    }
}

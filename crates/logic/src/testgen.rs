//! Random well-sorted terms and models, for property tests here and in other crates.
//!
//! Generated terms are in the canonical form the elaborator produces (no `(- 5)` for a
//! negative literal, no one-argument `and`, Real arithmetic over Real arguments only), so
//! `parse(print(t)) == t` is the property to test. The generator is driven by a seed
//! that property-test frameworks supply.

use crate::context::Context;
use crate::eval::Model;
use crate::term::{Op, Sort, Symbol, Term, Value};
use num_bigint::BigInt;
use num_rational::BigRational;
use std::sync::Arc;

/// A small deterministic pseudo-random generator (xorshift64*).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// True with probability `p` percent.
    pub fn chance(&mut self, p: u64) -> bool {
        self.below(100) < p
    }

    /// One element of a slice.
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }
}

/// The fixed schema generated terms range over: Int `x y z`, Real `a b`, Bool `p q`,
/// and `c` of the enumeration `Color = Red | Green | Blue`.
pub fn schema() -> Context {
    let mut ctx = Context::new();
    ctx.declare_enum(
        Arc::from("Color"),
        vec![Arc::from("Red"), Arc::from("Green"), Arc::from("Blue")],
    );
    for n in ["x", "y", "z"] {
        ctx.declare_const(Arc::from(n), Sort::Int);
    }
    for n in ["a", "b"] {
        ctx.declare_const(Arc::from(n), Sort::Real);
    }
    for n in ["p", "q"] {
        ctx.declare_const(Arc::from(n), Sort::Bool);
    }
    ctx.declare_const(Arc::from("c"), Sort::Enum(Arc::from("Color")));
    ctx
}

/// The schema's declarations as SMT-LIB text.
pub fn schema_text() -> &'static str {
    "(declare-datatype Color ((Red) (Green) (Blue)))\n\
     (declare-const x Int) (declare-const y Int) (declare-const z Int)\n\
     (declare-const a Real) (declare-const b Real)\n\
     (declare-const p Bool) (declare-const q Bool)\n\
     (declare-const c Color)\n"
}

const COLORS: [&str; 3] = ["Red", "Green", "Blue"];

/// A random model over the schema.
pub fn model(rng: &mut Rng) -> Model {
    let mut m = Model::new();
    for n in ["x", "y", "z"] {
        m.insert(
            Arc::from(n),
            Value::Int(BigInt::from(rng.below(21) as i64 - 10)),
        );
    }
    for n in ["a", "b"] {
        m.insert(Arc::from(n), Value::Real(rat(rng)));
    }
    for n in ["p", "q"] {
        m.insert(Arc::from(n), Value::Bool(rng.chance(50)));
    }
    m.insert(
        Arc::from("c"),
        Value::Enum(Arc::from("Color"), Arc::from(*rng.pick(&COLORS))),
    );
    m
}

fn rat(rng: &mut Rng) -> BigRational {
    let n = rng.below(41) as i64 - 20;
    let d = *rng.pick(&[1i64, 2, 3, 4, 5, 7, 8, 10]);
    BigRational::new(n.into(), d.into())
}

/// Generates terms of a sort with bounded depth; `lets` controls whether `let` appears.
#[derive(Debug)]
pub struct Gen {
    rng: Rng,
    scope: Vec<(Symbol, Sort)>,
    fresh: usize,
    /// When false, no `let` is generated (solvers differ in how they print them back).
    pub lets: bool,
}

impl Gen {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Gen {
        Gen {
            rng: Rng::new(seed),
            scope: Vec::new(),
            fresh: 0,
            lets: true,
        }
    }

    /// The generator's random source.
    pub fn rng(&mut self) -> &mut Rng {
        &mut self.rng
    }

    fn var(&mut self, sort: &Sort) -> Term {
        let mut names: Vec<&str> = match sort {
            Sort::Int => vec!["x", "y", "z"],
            Sort::Real => vec!["a", "b"],
            Sort::Bool => vec!["p", "q"],
            Sort::Enum(_) => vec!["c"],
        };
        let locals: Vec<Symbol> = self
            .scope
            .iter()
            .filter(|(_, s)| s == sort)
            .map(|(n, _)| n.clone())
            .collect();
        names.extend(locals.iter().map(|s| &**s));
        let n = *self.rng.pick(&names);
        Term::Var(Arc::from(n), sort.clone())
    }

    fn leaf(&mut self, sort: &Sort) -> Term {
        if self.rng.chance(60) {
            return self.var(sort);
        }
        match sort {
            Sort::Bool => Term::Bool(self.rng.chance(50)),
            Sort::Int => {
                if self.rng.chance(5) {
                    // Beyond 64 bits, to exercise big integers.
                    Term::Int(BigInt::from(u64::MAX) * BigInt::from(self.rng.below(5) + 1))
                } else {
                    Term::Int(BigInt::from(self.rng.below(41) as i64 - 20))
                }
            }
            Sort::Real => Term::Real(rat(&mut self.rng)),
            Sort::Enum(e) => Term::EnumVal {
                sort: e.clone(),
                ctor: Arc::from(*self.rng.pick(&COLORS)),
            },
        }
    }

    fn args(&mut self, sort: &Sort, depth: usize, n: usize) -> Vec<Term> {
        (0..n).map(|_| self.term(sort, depth - 1)).collect()
    }

    fn numeric_sort(&mut self) -> Sort {
        if self.rng.chance(50) {
            Sort::Int
        } else {
            Sort::Real
        }
    }

    /// A random term of `sort` with nesting at most `depth`.
    pub fn term(&mut self, sort: &Sort, depth: usize) -> Term {
        if depth == 0 || self.rng.chance(20) {
            return self.leaf(sort);
        }
        if self.lets && self.rng.chance(8) {
            let bsort = self.rng.pick(&[Sort::Int, Sort::Real, Sort::Bool]).clone();
            let value = self.term(&bsort, depth - 1);
            let name: Symbol = Arc::from(format!("v{}", self.fresh));
            self.fresh += 1;
            self.scope.push((name.clone(), bsort));
            let body = self.term(sort, depth - 1);
            self.scope.pop();
            return Term::Let(vec![(name, value)], Box::new(body));
        }
        if self.rng.chance(10) {
            let c = self.term(&Sort::Bool, depth - 1);
            let t = self.term(sort, depth - 1);
            let e = self.term(sort, depth - 1);
            return Term::App(Op::Ite, vec![c, t, e]);
        }
        let k = 2 + self.rng.below(2) as usize;
        match sort {
            Sort::Bool => match self.rng.below(9) {
                0 => Term::App(Op::Not, self.args(sort, depth, 1)),
                1 => Term::App(Op::And, self.args(sort, depth, k)),
                2 => Term::App(Op::Or, self.args(sort, depth, k)),
                3 => Term::App(Op::Xor, self.args(sort, depth, 2)),
                4 => Term::App(Op::Implies, self.args(sort, depth, 2)),
                5 => {
                    let s = self
                        .rng
                        .pick(&[
                            Sort::Int,
                            Sort::Real,
                            Sort::Bool,
                            Sort::Enum(Arc::from("Color")),
                        ])
                        .clone();
                    let op = if self.rng.chance(70) {
                        Op::Eq
                    } else {
                        Op::Distinct
                    };
                    Term::App(op, self.args(&s, depth, 2))
                }
                6 => Term::App(Op::IsInt, self.args(&Sort::Real, depth, 1)),
                _ => {
                    let s = self.numeric_sort();
                    let op = *self.rng.pick(&[Op::Le, Op::Lt, Op::Ge, Op::Gt]);
                    Term::App(op, self.args(&s, depth, 2))
                }
            },
            Sort::Int | Sort::Real => {
                let int = *sort == Sort::Int;
                match self.rng.below(if int { 9 } else { 7 }) {
                    0 => Term::App(Op::Add, self.args(sort, depth, k)),
                    1 => Term::App(Op::Sub, self.args(sort, depth, k)),
                    2 => {
                        // Negation of a literal is folded into the literal by the parser.
                        let a = self.term(sort, depth - 1);
                        if a.is_literal() {
                            a
                        } else {
                            Term::App(Op::Neg, vec![a])
                        }
                    }
                    3 => {
                        // Keep products linear-ish: one factor a literal most of the time.
                        let mut a = self.args(sort, depth, 2);
                        if self.rng.chance(70) {
                            a[0] = self.leaf(sort);
                        }
                        Term::App(Op::Mul, a)
                    }
                    4 => Term::App(Op::Abs, self.args(sort, depth, 1)),
                    5 if int => Term::App(Op::ToInt, self.args(&Sort::Real, depth, 1)),
                    5 => {
                        let a = self.term(&Sort::Int, depth - 1);
                        Term::App(Op::ToReal, vec![a])
                    }
                    6 if !int => {
                        let a = self.args(sort, depth, 2);
                        if a.iter().all(Term::is_literal) {
                            // A quotient of literals is itself a literal.
                            a.into_iter().next().expect("two")
                        } else {
                            Term::App(Op::Div, a)
                        }
                    }
                    6 => Term::App(Op::IntDiv, self.args(sort, depth, 2)),
                    7 => Term::App(Op::Mod, self.args(sort, depth, 2)),
                    _ => self.leaf(sort),
                }
            }
            Sort::Enum(_) => self.leaf(sort),
        }
    }
}

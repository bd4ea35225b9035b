//! Sorts, operators and typed terms.
//!
//! Terms are built by the elaborator ([`crate::elab`]) from s-expressions, so every
//! term in vera is well sorted. Literals are canonical: a negative numeral is one
//! literal, not `(- n)`, and a real literal in an integer-free context is a [`Term::Real`].

use num_bigint::BigInt;
use num_rational::BigRational;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// An interned-by-sharing name.
pub type Symbol = Arc<str>;

/// The sorts vera handles.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Sort {
    /// Booleans.
    Bool,
    /// Mathematical integers.
    Int,
    /// Mathematical reals (exact rationals in vera).
    Real,
    /// A user enumeration: a datatype whose constructors are all nullary.
    Enum(Symbol),
}

impl Sort {
    /// True for Int and Real.
    pub fn is_numeric(&self) -> bool {
        matches!(self, Sort::Int | Sort::Real)
    }
}

impl fmt::Display for Sort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Sort::Bool => f.write_str("Bool"),
            Sort::Int => f.write_str("Int"),
            Sort::Real => f.write_str("Real"),
            Sort::Enum(n) => f.write_str(n),
        }
    }
}

/// Built-in operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Op {
    /// `not`
    Not,
    /// `and`, n-ary
    And,
    /// `or`, n-ary
    Or,
    /// `xor`, left-associative
    Xor,
    /// `=>`, right-associative
    Implies,
    /// `=`, chainable
    Eq,
    /// `distinct`, pairwise
    Distinct,
    /// `ite`
    Ite,
    /// `+`
    Add,
    /// binary or n-ary `-`
    Sub,
    /// unary `-`
    Neg,
    /// `*`
    Mul,
    /// real `/`
    Div,
    /// integer `div`
    IntDiv,
    /// integer `mod`
    Mod,
    /// `abs`
    Abs,
    /// `to_real`
    ToReal,
    /// `to_int` (floor)
    ToInt,
    /// `is_int`
    IsInt,
    /// `<=`, chainable
    Le,
    /// `<`, chainable
    Lt,
    /// `>=`, chainable
    Ge,
    /// `>`, chainable
    Gt,
}

impl Op {
    /// The SMT-LIB name of the operator.
    pub fn name(self) -> &'static str {
        match self {
            Op::Not => "not",
            Op::And => "and",
            Op::Or => "or",
            Op::Xor => "xor",
            Op::Implies => "=>",
            Op::Eq => "=",
            Op::Distinct => "distinct",
            Op::Ite => "ite",
            Op::Add => "+",
            Op::Sub | Op::Neg => "-",
            Op::Mul => "*",
            Op::Div => "/",
            Op::IntDiv => "div",
            Op::Mod => "mod",
            Op::Abs => "abs",
            Op::ToReal => "to_real",
            Op::ToInt => "to_int",
            Op::IsInt => "is_int",
            Op::Le => "<=",
            Op::Lt => "<",
            Op::Ge => ">=",
            Op::Gt => ">",
        }
    }

    /// Looks an operator up by its SMT-LIB name. `-` maps to [`Op::Sub`].
    pub fn from_name(s: &str) -> Option<Op> {
        Some(match s {
            "not" => Op::Not,
            "and" => Op::And,
            "or" => Op::Or,
            "xor" => Op::Xor,
            "=>" => Op::Implies,
            "=" => Op::Eq,
            "distinct" => Op::Distinct,
            "ite" => Op::Ite,
            "+" => Op::Add,
            "-" => Op::Sub,
            "*" => Op::Mul,
            "/" => Op::Div,
            "div" => Op::IntDiv,
            "mod" => Op::Mod,
            "abs" => Op::Abs,
            "to_real" => Op::ToReal,
            "to_int" => Op::ToInt,
            "is_int" => Op::IsInt,
            "<=" => Op::Le,
            "<" => Op::Lt,
            ">=" => Op::Ge,
            ">" => Op::Gt,
            _ => return None,
        })
    }

    /// All operators, for generators and tables.
    pub const ALL: [Op; 23] = [
        Op::Not,
        Op::And,
        Op::Or,
        Op::Xor,
        Op::Implies,
        Op::Eq,
        Op::Distinct,
        Op::Ite,
        Op::Add,
        Op::Sub,
        Op::Neg,
        Op::Mul,
        Op::Div,
        Op::IntDiv,
        Op::Mod,
        Op::Abs,
        Op::ToReal,
        Op::ToInt,
        Op::IsInt,
        Op::Le,
        Op::Lt,
        Op::Ge,
        Op::Gt,
    ];
}

/// A well-sorted term.
///
/// Equality and hashing are structural; a [`Term::Real`] holds a reduced rational (as
/// `BigRational::new` and the elaborator make them), so structural hashing agrees with
/// numeric equality of literals.
#[derive(Debug, Clone, Eq)]
pub enum Term {
    /// `true` / `false`
    Bool(bool),
    /// An integer literal (negative ones print as `(- n)`).
    Int(BigInt),
    /// A real literal (prints as a decimal or `(/ n.0 d.0)`).
    Real(BigRational),
    /// A declared or defined constant, a `let`-bound name or a function parameter.
    Var(Symbol, Sort),
    /// A constructor of an enumeration sort.
    EnumVal {
        /// The enumeration sort.
        sort: Symbol,
        /// The constructor.
        ctor: Symbol,
    },
    /// A built-in operator applied to arguments.
    App(Op, Vec<Term>),
    /// An application of a function introduced with `define-fun`.
    Call(Symbol, Vec<Term>, Sort),
    /// Parallel `let`.
    Let(Vec<(Symbol, Term)>, Box<Term>),
    /// `(! t :named n)`.
    Named(Box<Term>, Symbol),
}

impl PartialEq for Term {
    fn eq(&self, other: &Term) -> bool {
        crate::deep(|| match (self, other) {
            (Term::Bool(a), Term::Bool(b)) => a == b,
            (Term::Int(a), Term::Int(b)) => a == b,
            (Term::Real(a), Term::Real(b)) => crate::num::eq(a, b),
            (Term::Var(a, s), Term::Var(b, t)) => a == b && s == t,
            (Term::EnumVal { sort: s, ctor: c }, Term::EnumVal { sort: t, ctor: d }) => {
                s == t && c == d
            }
            (Term::App(o, a), Term::App(p, b)) => o == p && a == b,
            (Term::Call(f, a, s), Term::Call(g, b, t)) => f == g && s == t && a == b,
            (Term::Let(a, x), Term::Let(b, y)) => a == b && x == y,
            (Term::Named(x, a), Term::Named(y, b)) => a == b && x == y,
            _ => false,
        })
    }
}

impl Hash for Term {
    // num-rational hashes a rational through its continued fraction, recursively and in
    // quadratic time; a reduced rational is hashed by its two parts instead.
    fn hash<H: Hasher>(&self, state: &mut H) {
        crate::deep(|| {
            std::mem::discriminant(self).hash(state);
            match self {
                Term::Bool(b) => b.hash(state),
                Term::Int(i) => i.hash(state),
                Term::Real(r) => crate::num::hash(r, state),
                Term::Var(n, s) => {
                    n.hash(state);
                    s.hash(state);
                }
                Term::EnumVal { sort, ctor } => {
                    sort.hash(state);
                    ctor.hash(state);
                }
                Term::App(op, args) => {
                    op.hash(state);
                    args.hash(state);
                }
                Term::Call(f, args, s) => {
                    f.hash(state);
                    args.hash(state);
                    s.hash(state);
                }
                Term::Let(binds, body) => {
                    binds.hash(state);
                    body.hash(state);
                }
                Term::Named(body, n) => {
                    body.hash(state);
                    n.hash(state);
                }
            }
        })
    }
}

impl Term {
    /// A constant of the given sort.
    pub fn var(name: &str, sort: Sort) -> Term {
        Term::Var(Arc::from(name), sort)
    }

    /// An integer literal.
    pub fn int(i: i64) -> Term {
        Term::Int(BigInt::from(i))
    }

    /// `(not t)`. (An associated function, not `std::ops::Not`: `Term::not(t)` reads as
    /// the SMT-LIB it builds.)
    #[allow(clippy::should_implement_trait)]
    pub fn not(t: Term) -> Term {
        Term::App(Op::Not, vec![t])
    }

    /// Applies an operator.
    pub fn app(op: Op, args: Vec<Term>) -> Term {
        Term::App(op, args)
    }

    /// The conjunction of `terms`: `true` for none, the term itself for one.
    pub fn conjunction(mut terms: Vec<Term>) -> Term {
        match terms.len() {
            0 => Term::Bool(true),
            1 => terms.pop().unwrap_or(Term::Bool(true)),
            _ => Term::App(Op::And, terms),
        }
    }

    /// The disjunction of `terms`: `false` for none, the term itself for one.
    pub fn disjunction(mut terms: Vec<Term>) -> Term {
        match terms.len() {
            0 => Term::Bool(false),
            1 => terms.pop().unwrap_or(Term::Bool(false)),
            _ => Term::App(Op::Or, terms),
        }
    }

    /// The sort of the term. Terms are well sorted by construction, so this is cheap.
    pub fn sort(&self) -> Sort {
        match self {
            Term::Bool(_) => Sort::Bool,
            Term::Int(_) => Sort::Int,
            Term::Real(_) => Sort::Real,
            Term::Var(_, s) | Term::Call(_, _, s) => s.clone(),
            Term::EnumVal { sort, .. } => Sort::Enum(sort.clone()),
            Term::Let(_, body) | Term::Named(body, _) => body.sort(),
            Term::App(op, args) => match op {
                Op::Not
                | Op::And
                | Op::Or
                | Op::Xor
                | Op::Implies
                | Op::Eq
                | Op::Distinct
                | Op::IsInt
                | Op::Le
                | Op::Lt
                | Op::Ge
                | Op::Gt => Sort::Bool,
                Op::Ite => args[1].sort(),
                Op::Add | Op::Sub | Op::Neg | Op::Mul | Op::Abs => args[0].sort(),
                Op::Div | Op::ToReal => Sort::Real,
                Op::IntDiv | Op::Mod | Op::ToInt => Sort::Int,
            },
        }
    }

    /// True for literals (including enum constructors).
    pub fn is_literal(&self) -> bool {
        matches!(
            self,
            Term::Bool(_) | Term::Int(_) | Term::Real(_) | Term::EnumVal { .. }
        )
    }

    /// Free constants of the term (not `let`-bound names), each once, in first-seen order.
    pub fn free_vars(&self) -> Vec<(Symbol, Sort)> {
        let mut out = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut bound = crate::scope::Scoped::default();
        self.collect_free(&mut bound, &mut seen, &mut out);
        out
    }

    fn collect_free(
        &self,
        bound: &mut crate::scope::Scoped<()>,
        seen: &mut std::collections::HashSet<Symbol>,
        out: &mut Vec<(Symbol, Sort)>,
    ) {
        crate::deep(|| self.collect_free_inner(bound, seen, out))
    }

    fn collect_free_inner(
        &self,
        bound: &mut crate::scope::Scoped<()>,
        seen: &mut std::collections::HashSet<Symbol>,
        out: &mut Vec<(Symbol, Sort)>,
    ) {
        match self {
            Term::Var(n, s) if bound.get(n).is_none() && seen.insert(n.clone()) => {
                out.push((n.clone(), s.clone()));
            }
            Term::App(_, args) | Term::Call(_, args, _) => {
                for a in args {
                    a.collect_free(bound, seen, out);
                }
            }
            Term::Let(binds, body) => {
                for (_, t) in binds {
                    t.collect_free(bound, seen, out);
                }
                let n = bound.len();
                for (s, _) in binds {
                    bound.push(s.clone(), ());
                }
                body.collect_free(bound, seen, out);
                bound.truncate(n);
            }
            Term::Named(t, _) => t.collect_free(bound, seen, out),
            _ => {}
        }
    }

    /// Number of nodes, a size measure for limits and reports.
    pub fn size(&self) -> usize {
        crate::deep(|| self.size_inner())
    }

    fn size_inner(&self) -> usize {
        match self {
            Term::App(_, args) | Term::Call(_, args, _) => {
                1 + args.iter().map(Term::size).sum::<usize>()
            }
            Term::Let(binds, body) => {
                1 + body.size() + binds.iter().map(|(_, t)| t.size()).sum::<usize>()
            }
            Term::Named(t, _) => 1 + t.size(),
            _ => 1,
        }
    }
}

/// A value of some sort, as found in a model or computed by the evaluator.
///
/// Values are ordered by sort (Bool, Int, Real, enumerations), then numerically or by
/// name. A [`Value::Real`] holds a reduced rational.
#[derive(Debug, Clone, Eq)]
pub enum Value {
    /// A Boolean.
    Bool(bool),
    /// An integer.
    Int(BigInt),
    /// An exact rational.
    Real(BigRational),
    /// An enumeration constructor: sort and constructor.
    Enum(Symbol, Symbol),
}

impl Value {
    fn rank(&self) -> u8 {
        match self {
            Value::Bool(_) => 0,
            Value::Int(_) => 1,
            Value::Real(_) => 2,
            Value::Enum(..) => 3,
        }
    }
}

impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl PartialOrd for Value {
    fn partial_cmp(&self, other: &Value) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Value {
    // Not num-rational's order, which recurses through continued fractions (deep enough
    // to overflow the stack on long, close rationals).
    fn cmp(&self, other: &Value) -> Ordering {
        match (self, other) {
            (Value::Bool(a), Value::Bool(b)) => a.cmp(b),
            (Value::Int(a), Value::Int(b)) => a.cmp(b),
            (Value::Real(a), Value::Real(b)) => crate::num::cmp(a, b),
            (Value::Enum(s, c), Value::Enum(t, d)) => s.cmp(t).then_with(|| c.cmp(d)),
            _ => self.rank().cmp(&other.rank()),
        }
    }
}

impl Hash for Value {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.rank().hash(state);
        match self {
            Value::Bool(b) => b.hash(state),
            Value::Int(i) => i.hash(state),
            Value::Real(r) => crate::num::hash(r, state),
            Value::Enum(s, c) => {
                s.hash(state);
                c.hash(state);
            }
        }
    }
}

impl Value {
    /// The sort of the value.
    pub fn sort(&self) -> Sort {
        match self {
            Value::Bool(_) => Sort::Bool,
            Value::Int(_) => Sort::Int,
            Value::Real(_) => Sort::Real,
            Value::Enum(s, _) => Sort::Enum(s.clone()),
        }
    }

    /// The value as a literal term.
    pub fn to_term(&self) -> Term {
        match self {
            Value::Bool(b) => Term::Bool(*b),
            Value::Int(i) => Term::Int(i.clone()),
            Value::Real(r) => Term::Real(r.clone()),
            Value::Enum(s, c) => Term::EnumVal {
                sort: s.clone(),
                ctor: c.clone(),
            },
        }
    }
}

impl fmt::Display for Value {
    /// A human rendering: `true`, `-3`, `2.5`, `1/3`, `Ready`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Real(r) => match crate::print::decimal(r) {
                Some(d) => f.write_str(&d),
                None => write!(f, "{}/{}", r.numer(), r.denom()),
            },
            Value::Enum(_, c) => f.write_str(c),
        }
    }
}

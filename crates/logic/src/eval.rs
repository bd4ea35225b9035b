//! The evaluator: a term's value under a model, with exact rationals.
//!
//! Division follows SMT-LIB: integer `div`/`mod` are Euclidean (the remainder is
//! never negative). Division by zero is left unspecified by SMT-LIB, so the
//! evaluator reports it instead of inventing a value.

use crate::context::Context;
use crate::elab::Elaborator;
use crate::scope::Scoped;
use crate::sexp::Sexp;
use crate::term::{Op, Sort, Symbol, Term, Value};
use num_bigint::BigInt;
use num_integer::Integer;
use num_rational::BigRational;
use num_traits::{Signed, Zero};
use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;

/// An assignment of values to constants.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Model {
    /// Values by constant name.
    pub values: BTreeMap<Symbol, Value>,
}

impl Model {
    /// An empty model.
    pub fn new() -> Model {
        Model::default()
    }

    /// Sets a value.
    pub fn insert(&mut self, name: Symbol, v: Value) {
        self.values.insert(name, v);
    }

    /// Looks a value up.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.values.get(name)
    }

    /// The model restricted to the given names.
    pub fn restrict<'a>(&self, names: impl IntoIterator<Item = &'a str>) -> Model {
        let mut m = Model::new();
        for n in names {
            if let Some((k, v)) = self.values.get_key_value(n) {
                m.values.insert(k.clone(), v.clone());
            }
        }
        m
    }
}

impl fmt::Display for Model {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (k, v)) in self.values.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{k} = {v}")?;
        }
        Ok(())
    }
}

/// Why a term has no value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    /// The model gives no value for a constant the term needs.
    #[error("the model has no value for `{0}`")]
    Unassigned(Symbol),
    /// A division by zero, whose value SMT-LIB leaves open.
    #[error("division by zero in `{0}`")]
    DivisionByZero(String),
    /// A call to a function the context does not define.
    #[error("function `{0}` is not defined")]
    UndefinedFunction(Symbol),
    /// A value of the wrong sort (a model that disagrees with the declarations).
    #[error("value of sort {found} where {expected} was expected")]
    SortMismatch {
        /// What the term needed.
        expected: Sort,
        /// What it got.
        found: Sort,
    },
    /// An intermediate number grew beyond [`MAX_BITS`] (for example through a chain of
    /// definitions that square each other).
    #[error("a number in the evaluation is too large (over {limit} bits)")]
    TooLarge {
        /// The limit, in bits.
        limit: u64,
    },
    /// The evaluation needed more than its budget of steps (definitions whose expansion
    /// cannot be shared grow exponentially).
    #[error("the evaluation exceeded its budget of {budget} steps")]
    TooExpensive {
        /// The budget that ran out.
        budget: u64,
    },
}

/// The largest number, in bits (numerator and denominator together), that evaluation
/// computes before giving up with [`EvalError::TooLarge`].
pub const MAX_BITS: u64 = 1 << 20;

/// The work one term may take, in steps of [`Evaluator`] (a node visited, or 64 bits
/// of a number computed), before [`EvalError::TooExpensive`].
pub const DEFAULT_BUDGET: u64 = 2_000_000;

/// How much memoized definition values an [`Evaluator`] keeps, in 64-bit words.
const CACHE_WORDS: u64 = 4 << 20;

/// Evaluates `t` under `model`, using `ctx` for defined functions and constants.
///
/// Defined constants and function calls are memoized, so a chain of definitions that
/// refer to each other several times is evaluated in linear time; the work is bounded
/// by [`DEFAULT_BUDGET`] and numbers by [`MAX_BITS`].
pub fn eval(t: &Term, model: &Model, ctx: &Context) -> Result<Value, EvalError> {
    Evaluator::new(model, ctx).eval(t)
}

/// Evaluates a Boolean term.
pub fn eval_bool(t: &Term, model: &Model, ctx: &Context) -> Result<bool, EvalError> {
    Evaluator::new(model, ctx).eval_bool(t)
}

/// Evaluates a Boolean term, with the constants of `model` the evaluation read: under a
/// model that differs from `model` only in other constants, the evaluation takes the
/// same steps and gives the same result.
pub fn eval_bool_reading(
    t: &Term,
    model: &Model,
    ctx: &Context,
) -> (Result<bool, EvalError>, HashSet<Symbol>) {
    let mut ev = Evaluator::new(model, ctx);
    ev.reads = Some(HashSet::new());
    let r = ev.eval_bool(t);
    (r, ev.reads.unwrap_or_default())
}

/// Evaluates many terms under one model, sharing the values of definitions between
/// them. Each call to [`Evaluator::eval`] gets a fresh budget.
///
/// ```
/// use logic::{parse_script, Model, SourceFile, Value};
/// use logic::eval::Evaluator;
/// let s = parse_script(&SourceFile::new("d", "(declare-const x Int) \
///     (define-fun d () Int (+ x x)) (assert (> d 3)) (assert (< d 9))")).unwrap();
/// let mut m = Model::new();
/// m.insert("x".into(), Value::Int(2.into()));
/// let mut ev = Evaluator::new(&m, &s.context);
/// assert!(s.assertions().all(|a| ev.eval_bool(a).unwrap()));
/// ```
pub struct Evaluator<'a> {
    model: &'a Model,
    ctx: &'a Context,
    env: Scoped<Value>,
    /// Values of defined constants (they do not depend on `env`).
    consts: HashMap<Symbol, Value>,
    /// Values of calls, by function and argument values.
    calls: HashMap<(Symbol, Vec<Value>), Value>,
    cached_words: u64,
    budget: u64,
    fuel: u64,
    /// The constants read from `model`, when they are recorded.
    reads: Option<HashSet<Symbol>>,
}

impl std::fmt::Debug for Evaluator<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Evaluator")
            .field("budget", &self.budget)
            .field("memoized", &(self.consts.len() + self.calls.len()))
            .finish()
    }
}

fn as_rat(v: &Value) -> BigRational {
    match v {
        Value::Int(i) => BigRational::from_integer(i.clone()),
        Value::Real(r) => r.clone(),
        _ => unreachable!("well-sorted term: numeric value expected"),
    }
}

fn as_int(v: &Value) -> BigInt {
    match v {
        Value::Int(i) => i.clone(),
        _ => unreachable!("well-sorted term: Int value expected"),
    }
}

fn as_bool(v: &Value) -> bool {
    match v {
        Value::Bool(b) => *b,
        _ => unreachable!("well-sorted term: Bool value expected"),
    }
}

/// Size of a value in 64-bit words (at least one).
fn words(v: &Value) -> u64 {
    let bits = match v {
        Value::Int(i) => i.bits(),
        Value::Real(r) => crate::num::rat_bits(r),
        _ => 0,
    };
    1 + bits / 64
}

fn num_cmp(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => x.cmp(y),
        _ => crate::num::cmp(&as_rat(a), &as_rat(b)),
    }
}

/// Euclidean division: `a = b*q + r` with `0 <= r < |b|`.
pub fn euclid_div_mod(a: &BigInt, b: &BigInt) -> (BigInt, BigInt) {
    let r = a.mod_floor(&b.abs());
    let q = (a - &r) / b;
    (q, r)
}

impl<'a> Evaluator<'a> {
    /// An evaluator for terms over `ctx` under `model`, with [`DEFAULT_BUDGET`].
    pub fn new(model: &'a Model, ctx: &'a Context) -> Evaluator<'a> {
        Evaluator {
            model,
            ctx,
            env: Scoped::default(),
            consts: HashMap::new(),
            calls: HashMap::new(),
            cached_words: 0,
            budget: DEFAULT_BUDGET,
            fuel: DEFAULT_BUDGET,
            reads: None,
        }
    }

    /// Sets the budget of steps for each term.
    pub fn with_budget(mut self, budget: u64) -> Evaluator<'a> {
        self.budget = budget;
        self.fuel = budget;
        self
    }

    /// The value of `t`.
    pub fn eval(&mut self, t: &Term) -> Result<Value, EvalError> {
        self.fuel = self.budget;
        self.env = Scoped::default();
        self.value(t)
    }

    /// The value of a Boolean term.
    pub fn eval_bool(&mut self, t: &Term) -> Result<bool, EvalError> {
        match self.eval(t)? {
            Value::Bool(b) => Ok(b),
            v => Err(EvalError::SortMismatch {
                expected: Sort::Bool,
                found: v.sort(),
            }),
        }
    }

    fn spend(&mut self, n: u64) -> Result<(), EvalError> {
        match self.fuel.checked_sub(n) {
            Some(f) => {
                self.fuel = f;
                Ok(())
            }
            None => {
                self.fuel = 0;
                Err(EvalError::TooExpensive {
                    budget: self.budget,
                })
            }
        }
    }

    /// Charges for a computed number and checks its size.
    fn computed(&mut self, v: Value) -> Result<Value, EvalError> {
        let bits = match &v {
            Value::Int(i) => i.bits(),
            Value::Real(r) => crate::num::rat_bits(r),
            _ => 0,
        };
        if bits > MAX_BITS {
            return Err(EvalError::TooLarge { limit: MAX_BITS });
        }
        self.spend(words(&v))?;
        Ok(v)
    }

    fn remember(&mut self, size: u64) -> bool {
        if self.cached_words + size > CACHE_WORDS {
            return false;
        }
        self.cached_words += size;
        true
    }

    fn value(&mut self, t: &Term) -> Result<Value, EvalError> {
        self.spend(1)?;
        crate::deep(|| self.value_inner(t))
    }

    fn value_inner(&mut self, t: &Term) -> Result<Value, EvalError> {
        Ok(match t {
            Term::Bool(b) => Value::Bool(*b),
            Term::Int(i) => Value::Int(i.clone()),
            Term::Real(r) => Value::Real(r.clone()),
            Term::EnumVal { sort, ctor } => Value::Enum(sort.clone(), ctor.clone()),
            Term::Var(n, sort) => {
                if let Some(v) = self.env.get(n) {
                    return Ok(v.clone());
                }
                if let Some(f) = self.ctx.fun(n) {
                    if f.params.is_empty() {
                        if let Some(v) = self.consts.get(n) {
                            return Ok(v.clone());
                        }
                        let saved = std::mem::take(&mut self.env);
                        let r = self.value(&f.body);
                        self.env = saved;
                        let v = r?;
                        if self.remember(words(&v)) {
                            self.consts.insert(n.clone(), v.clone());
                        }
                        return Ok(v);
                    }
                }
                if let Some(reads) = &mut self.reads {
                    reads.insert(n.clone());
                }
                let v = self
                    .model
                    .get(n)
                    .cloned()
                    .ok_or_else(|| EvalError::Unassigned(n.clone()))?;
                match (&v, sort) {
                    // Solvers may print an integral real as an integer.
                    (Value::Int(i), Sort::Real) => {
                        Value::Real(BigRational::from_integer(i.clone()))
                    }
                    _ if &v.sort() != sort => {
                        return Err(EvalError::SortMismatch {
                            expected: sort.clone(),
                            found: v.sort(),
                        })
                    }
                    _ => v,
                }
            }
            Term::Named(t, _) => self.value(t)?,
            Term::Let(binds, body) => {
                let mut vals = Vec::with_capacity(binds.len());
                for (n, b) in binds {
                    vals.push((n.clone(), self.value(b)?));
                }
                let k = self.env.len();
                for (n, v) in vals {
                    self.env.push(n, v);
                }
                let r = self.value(body);
                self.env.truncate(k);
                r?
            }
            Term::Call(f, args, _) => {
                let def = self
                    .ctx
                    .fun(f)
                    .ok_or_else(|| EvalError::UndefinedFunction(f.clone()))?;
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(self.value(a)?);
                }
                let key = (f.clone(), vals);
                if let Some(v) = self.calls.get(&key) {
                    return Ok(v.clone());
                }
                let frame: Scoped<Value> = def
                    .params
                    .iter()
                    .map(|(p, _)| p.clone())
                    .zip(key.1.iter().cloned())
                    .collect();
                let saved = std::mem::replace(&mut self.env, frame);
                let r = self.value(&def.body);
                self.env = saved;
                let v = r?;
                let size = words(&v) + key.1.iter().map(words).sum::<u64>();
                if self.remember(size) {
                    self.calls.insert(key, v.clone());
                }
                v
            }
            Term::App(op, args) => self.app(*op, args, t)?,
        })
    }

    fn app(&mut self, op: Op, args: &[Term], whole: &Term) -> Result<Value, EvalError> {
        // Short-circuit connectives and ite evaluate lazily, so a division by zero in a
        // branch that is not taken does not make the whole term undefined.
        match op {
            Op::And => {
                for a in args {
                    if !as_bool(&self.value(a)?) {
                        return Ok(Value::Bool(false));
                    }
                }
                return Ok(Value::Bool(true));
            }
            Op::Or => {
                for a in args {
                    if as_bool(&self.value(a)?) {
                        return Ok(Value::Bool(true));
                    }
                }
                return Ok(Value::Bool(false));
            }
            Op::Implies => {
                // Right-associative: a => (b => c) is true unless all premises hold and c fails.
                let (last, prem) = args.split_last().expect("arity checked");
                for p in prem {
                    if !as_bool(&self.value(p)?) {
                        return Ok(Value::Bool(true));
                    }
                }
                return self.value(last);
            }
            Op::Ite => {
                let c = as_bool(&self.value(&args[0])?);
                return self.value(&args[if c { 1 } else { 2 }]);
            }
            _ => {}
        }
        let vals = args
            .iter()
            .map(|a| self.value(a))
            .collect::<Result<Vec<_>, _>>()?;
        let int = vals.iter().all(|v| matches!(v, Value::Int(_)));
        let div0 = || EvalError::DivisionByZero(crate::print::term(whole));
        let v = match op {
            Op::Not => Value::Bool(!as_bool(&vals[0])),
            Op::Xor => Value::Bool(vals.iter().fold(false, |acc, v| acc ^ as_bool(v))),
            Op::Eq => Value::Bool(vals.windows(2).all(|w| eq_values(&w[0], &w[1]))),
            Op::Distinct => {
                let mut ok = true;
                for i in 0..vals.len() {
                    for j in i + 1..vals.len() {
                        ok &= !eq_values(&vals[i], &vals[j]);
                    }
                }
                Value::Bool(ok)
            }
            Op::Le | Op::Lt | Op::Ge | Op::Gt => Value::Bool(vals.windows(2).all(|w| {
                let o = num_cmp(&w[0], &w[1]);
                match op {
                    Op::Le => o != Ordering::Greater,
                    Op::Lt => o == Ordering::Less,
                    Op::Ge => o != Ordering::Less,
                    _ => o == Ordering::Greater,
                }
            })),
            Op::IsInt => Value::Bool(as_rat(&vals[0]).is_integer()),
            Op::Add | Op::Sub | Op::Mul | Op::Neg | Op::Abs if int => {
                let mut it = vals.iter().map(as_int);
                let first = it.next().expect("arity checked");
                let mut acc = match op {
                    Op::Neg => -first,
                    Op::Abs => first.abs(),
                    _ => first,
                };
                for b in it {
                    match op {
                        Op::Add => acc += b,
                        Op::Sub => acc -= b,
                        _ => acc *= b,
                    }
                    if acc.bits() > MAX_BITS {
                        return Err(EvalError::TooLarge { limit: MAX_BITS });
                    }
                }
                self.computed(Value::Int(acc))?
            }
            Op::Add | Op::Sub | Op::Mul | Op::Div => {
                let mut it = vals.iter().map(as_rat);
                let mut acc = it.next().expect("arity checked");
                for b in it {
                    acc = match op {
                        Op::Add => crate::num::add(&acc, &b),
                        Op::Sub => crate::num::sub(&acc, &b),
                        Op::Mul => crate::num::mul(&acc, &b),
                        _ => crate::num::div(&acc, &b).ok_or_else(div0)?,
                    };
                    if crate::num::rat_bits(&acc) > MAX_BITS {
                        return Err(EvalError::TooLarge { limit: MAX_BITS });
                    }
                }
                self.computed(Value::Real(acc))?
            }
            Op::Neg => Value::Real(-as_rat(&vals[0])),
            Op::Abs => Value::Real(as_rat(&vals[0]).abs()),
            Op::IntDiv | Op::Mod => {
                let mut it = vals.iter().map(as_int);
                let mut acc = it.next().expect("arity checked");
                for b in it {
                    if b.is_zero() {
                        return Err(div0());
                    }
                    let (q, r) = euclid_div_mod(&acc, &b);
                    acc = if op == Op::IntDiv { q } else { r };
                }
                self.computed(Value::Int(acc))?
            }
            Op::ToReal => Value::Real(as_rat(&vals[0])),
            Op::ToInt => self.computed(Value::Int(as_rat(&vals[0]).floor().to_integer()))?,
            Op::And | Op::Or | Op::Implies | Op::Ite => unreachable!("handled above"),
        };
        Ok(v)
    }
}

fn eq_values(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Int(_) | Value::Real(_), Value::Int(_) | Value::Real(_)) => {
            num_cmp(a, b) == Ordering::Equal
        }
        _ => a == b,
    }
}

/// Why a solver's model could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot read the model: {0}")]
pub struct ModelError(pub String);

/// Reads a value term printed by a solver (`5`, `(- 5)`, `(/ 1.0 3.0)`, `Red`, `true`)
/// as a value of `sort`.
pub fn parse_value(e: &Sexp, sort: &Sort, ctx: &Context) -> Result<Value, ModelError> {
    // Models are large and almost every value is a plain literal: read those directly.
    if let Some(v) = literal_value(e, ctx) {
        return match (v, sort) {
            (Value::Int(i), Sort::Real) => Ok(Value::Real(BigRational::from_integer(i))),
            (v, s) if &v.sort() == s => Ok(v),
            (v, s) => Err(ModelError(format!(
                "value `{e}` has sort {}, expected {s}",
                v.sort()
            ))),
        };
    }
    let mut el = Elaborator::new(ctx.clone());
    let t = el.term(e);
    let diags = el.take_diagnostics();
    let t = match t {
        Some(t) if diags.is_empty() => t,
        _ => {
            let why = diags.first().map(|d| d.message.clone()).unwrap_or_default();
            return Err(ModelError(format!("value `{e}`: {why}")));
        }
    };
    if !crate::elab::is_constant(&t) {
        return Err(ModelError(format!("value `{e}` is not a constant")));
    }
    let v =
        eval(&t, &Model::new(), ctx).map_err(|err| ModelError(format!("value `{e}`: {err}")))?;
    match (v, sort) {
        (Value::Int(i), Sort::Real) => Ok(Value::Real(BigRational::from_integer(i))),
        (v, s) if &v.sort() == s => Ok(v),
        (v, s) => Err(ModelError(format!(
            "value `{e}` has sort {}, expected {s}",
            v.sort()
        ))),
    }
}

/// The value of a literal as solvers print them: `5`, `2.5`, `(- 5)`, `(/ 1.0 3.0)`,
/// `(- (/ 1 3))`, `true`, an enumeration constructor. `None` for anything else.
fn literal_value(e: &Sexp, ctx: &Context) -> Option<Value> {
    crate::deep(|| literal_value_inner(e, ctx))
}

fn literal_value_inner(e: &Sexp, ctx: &Context) -> Option<Value> {
    use crate::sexp::SexpKind;
    match &e.kind {
        SexpKind::Numeral(n) => Some(Value::Int(BigInt::from(n.clone()))),
        SexpKind::Decimal(d) => Some(Value::Real(crate::elab::parse_decimal(d))),
        SexpKind::Symbol(s) => match s.as_str() {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => match ctx.get(s) {
                Some(crate::context::Entry::Ctor(sort)) => {
                    Some(Value::Enum(sort.clone(), Symbol::from(s.as_str())))
                }
                _ => None,
            },
        },
        SexpKind::List(items) => match (items.first().and_then(Sexp::as_symbol), items.len()) {
            (Some("-"), 2) => match literal_value(&items[1], ctx)? {
                Value::Int(i) => Some(Value::Int(-i)),
                Value::Real(r) => Some(Value::Real(-r)),
                _ => None,
            },
            (Some("/"), 3) => {
                let num = |v: Value| match v {
                    Value::Int(i) => Some(BigRational::from_integer(i)),
                    Value::Real(r) => Some(r),
                    _ => None,
                };
                let a = num(literal_value(&items[1], ctx)?)?;
                let b = num(literal_value(&items[2], ctx)?)?;
                crate::num::div(&a, &b).map(Value::Real)
            }
            _ => None,
        },
        _ => None,
    }
}

/// Reads a `(get-model)` answer: `((define-fun x () Int 5) ...)`, optionally headed by
/// `model`. Entries for symbols the context does not declare as constants (solver-internal
/// functions such as z3's `/0`) are skipped.
pub fn parse_model(e: &Sexp, ctx: &Context) -> Result<Model, ModelError> {
    let items = e
        .as_list()
        .ok_or_else(|| ModelError(format!("expected a list, found `{e}`")))?;
    let items = match items.first().and_then(Sexp::as_symbol) {
        Some("model") => &items[1..],
        _ => items,
    };
    let mut m = Model::new();
    for it in items {
        let Some(parts) = it.as_list() else {
            return Err(ModelError(format!("unexpected entry `{it}`")));
        };
        match parts {
            [d, name, params, _sort, value] if d.as_symbol() == Some("define-fun") => {
                let Some(n) = name.as_symbol() else {
                    return Err(ModelError(format!("unexpected entry `{it}`")));
                };
                if params.as_list().is_none_or(|p| !p.is_empty()) {
                    continue;
                }
                if let Some(crate::context::Entry::Const(sort)) = ctx.get(n) {
                    let v = parse_value(value, sort, ctx)?;
                    m.insert(Symbol::from(n), v);
                }
            }
            // cvc5 lists datatype domains; z3 may print declare-fun for internal sorts.
            [d, ..]
                if matches!(
                    d.as_symbol(),
                    Some("declare-sort" | "declare-fun" | "declare-datatypes" | "declare-datatype")
                ) => {}
            _ => return Err(ModelError(format!("unexpected entry `{it}`"))),
        }
    }
    Ok(m)
}

/// Reads a `(get-value (...))` answer `((t v) ...)` for the given terms.
pub fn parse_values(e: &Sexp, terms: &[Term], ctx: &Context) -> Result<Vec<Value>, ModelError> {
    let items = e
        .as_list()
        .ok_or_else(|| ModelError(format!("expected a list, found `{e}`")))?;
    if items.len() != terms.len() {
        return Err(ModelError(format!(
            "asked for {} value(s), got {}",
            terms.len(),
            items.len()
        )));
    }
    items
        .iter()
        .zip(terms)
        .map(|(it, t)| match it.as_list() {
            Some([_, v]) => parse_value(v, &t.sort(), ctx),
            _ => Err(ModelError(format!("unexpected entry `{it}`"))),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn euclidean_division() {
        let c = |a: i64, b: i64| {
            let (q, r) = euclid_div_mod(&a.into(), &b.into());
            (q.to_string(), r.to_string())
        };
        assert_eq!(c(7, 2), ("3".into(), "1".into()));
        assert_eq!(c(-7, 2), ("-4".into(), "1".into()));
        assert_eq!(c(7, -2), ("-3".into(), "1".into()));
        assert_eq!(c(-7, -2), ("4".into(), "1".into()));
    }

    #[test]
    fn reads_are_the_constants_the_evaluation_needed() {
        let s = crate::parse_script(&crate::SourceFile::new(
            "r",
            "(declare-const a Bool) (declare-const b Bool) (declare-const c Int) \
             (define-fun d () Int (+ c 1)) (assert (or a (> d 1) b))",
        ))
        .unwrap();
        let f = s.assertions().next().unwrap();
        let reads = |a: bool, c: i64| {
            let mut m = Model::new();
            m.insert("a".into(), Value::Bool(a));
            m.insert("b".into(), Value::Bool(false));
            m.insert("c".into(), Value::Int(c.into()));
            let (r, reads) = eval_bool_reading(f, &m, &s.context);
            let mut reads: Vec<String> = reads.iter().map(|n| n.to_string()).collect();
            reads.sort();
            (r, reads)
        };
        assert_eq!(reads(true, 0), (Ok(true), vec!["a".to_string()]));
        assert_eq!(reads(false, 1), (Ok(true), vec!["a".into(), "c".into()]));
        assert_eq!(
            reads(false, 0),
            (Ok(false), vec!["a".into(), "b".into(), "c".into()])
        );
    }
}

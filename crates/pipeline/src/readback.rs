//! Read-back: a formula in plain English, built deterministically from the formula and
//! the schema's descriptions, units and enumeration values (no model).
//!
//! The sentence is what a reviewer signs off on next to the formula, so it says exactly
//! what the formula says and nothing more:
//!
//! - a top-level `(=> A B)` reads "If A, then B."; `(not X)` "Never: X."; `(ite c a b)`
//!   and `(and (=> c a) (=> (not c) b))` "If c, then a; otherwise, b."; a conjunction
//!   of conditionals one sentence per part; anything else "Always: X.";
//! - comparisons read "is above / is at least / is below / is at most / equals / differs
//!   from", a number beside a variable with that variable's unit ("400 mL/min"), an
//!   enumeration "the treatment phase is Therapy";
//! - negations are explicit ("is not open", "does not sound", "neither A nor B", "it is
//!   not the case that ..."); a negated comparison is the opposite comparison (`(not (<
//!   x 5))` "x is at least 5", the same statement over numbers);
//! - `or` reads "either A or B", `xor` "either A or B, but not both", `(= A B)` over
//!   conditions "A if and only if B";
//! - a part made of several parts is put in brackets inside another, so "A and (either B
//!   or C)" cannot be read as "(A and B) or C";
//! - arithmetic reads "plus", "minus", "times", "divided by"; `let`, defined functions
//!   and integer division by a variable are quoted as formula text in backquotes ("the
//!   formula `(let ...)` holds") rather than guessed at.
//!
//! A Boolean variable reads from its description: a clause as it is
//! ("the alarm sounds" / "the alarm does not sound"), a phrase ending in a predicate
//! with "the ... is" ("left low beam on": "the left low beam is on"), anything else with
//! "is true" / "is false"; a variable without a description reads by its name with
//! underscores as spaces.

use crate::form::{Arith, Atom, Cond, Form, Operand, Relation, Trigger};
use crate::wording::{self, Reading};
use logic::{Op, Sort, Term};
use num_rational::BigRational;
use num_traits::Signed;
use reqs::Spec;

/// The formula `t` over `spec`'s schema as an English sentence (never empty).
pub fn sentence(spec: &Spec, t: &Term) -> String {
    Reader { spec }.top(t)
}

/// A form as an English sentence, keeping its word: "If ..., then ..." for `if`,
/// "While ..., ..." for `while`.
pub fn form_sentence(spec: &Spec, form: &Form) -> String {
    let r = Reader { spec };
    let c = |c: &Cond| r.top_part(&cond_term(spec, c));
    match form {
        Form::Always(x) => format!("Always: {}.", c(x)),
        Form::Never(x) => format!("Never: {}.", r.never(&cond_term(spec, x))),
        Form::If {
            word,
            condition,
            then,
            otherwise,
        } => {
            let lead = match word {
                Trigger::If => format!("If {}, then {}", c(condition), c(then)),
                Trigger::While => format!("While {}, {}", c(condition), c(then)),
            };
            match otherwise {
                Some(e) => format!("{lead}; otherwise, {}.", c(e)),
                None => format!("{lead}."),
            }
        }
        Form::Cases(cases) => {
            let parts: Vec<String> = cases
                .iter()
                .map(|(i, t)| format!("If {}, then {}.", c(i), c(t)))
                .collect();
            if parts.is_empty() {
                "No case is given.".into()
            } else {
                parts.join(" ")
            }
        }
    }
}

/// The term of a form's condition (the formula [`Form::smtlib`] writes for it).
pub(crate) fn cond_term(spec: &Spec, c: &Cond) -> Term {
    let atoms: Vec<Term> = c.atoms().iter().map(|a| atom_term(spec, a)).collect();
    match (c, atoms.len()) {
        (_, 1) => atoms.into_iter().next().expect("one"),
        (Cond::Any(_), _) => Term::App(Op::Or, atoms),
        _ => Term::App(Op::And, atoms),
    }
}

fn atom_term(spec: &Spec, a: &Atom) -> Term {
    let sort_of = |n: &str| {
        spec.variable(n)
            .map(|v| v.sort.clone())
            .unwrap_or(Sort::Bool)
    };
    let sort = sort_of(&a.variable);
    let var = Term::Var(a.variable.as_str().into(), sort.clone());
    let negative = matches!(a.relation, Relation::IsNot | Relation::Ne);
    let op = match a.relation {
        Relation::Is | Relation::Eq | Relation::IsNot | Relation::Ne => Op::Eq,
        Relation::Lt => Op::Lt,
        Relation::Le => Op::Le,
        Relation::Gt => Op::Gt,
        Relation::Ge => Op::Ge,
    };
    let compared = match &a.value {
        Operand::Bool(b) => return if *b != negative { var } else { Term::not(var) },
        Operand::Enum(c) => match &sort {
            Sort::Enum(e) => Term::EnumVal {
                sort: e.clone(),
                ctor: c.as_str().into(),
            },
            _ => Term::Var(c.as_str().into(), sort.clone()),
        },
        numeric => operand_term(numeric, &sort, &sort_of),
    };
    let t = Term::App(op, vec![var, compared]);
    if negative {
        Term::App(
            Op::Distinct,
            match t {
                Term::App(_, args) => args,
                _ => unreachable!("built above"),
            },
        )
    } else {
        t
    }
}

/// The term of a numeric operand compared with a variable of `sort` (the term
/// [`Form::smtlib`] writes: `min` and `max` as `ite`).
fn operand_term(o: &Operand, sort: &Sort, sort_of: &dyn Fn(&str) -> Sort) -> Term {
    match o {
        Operand::Number(r) => {
            if *sort == Sort::Int && r.is_integer() {
                Term::Int(r.to_integer())
            } else {
                Term::Real(r.clone())
            }
        }
        Operand::Variable(v) => Term::Var(v.as_str().into(), sort_of(v)),
        Operand::Arith(op, a, b) => {
            let (a, b) = (
                operand_term(a, sort, sort_of),
                operand_term(b, sort, sort_of),
            );
            match op {
                Arith::Sum => Term::App(Op::Add, vec![a, b]),
                Arith::Difference => Term::App(Op::Sub, vec![a, b]),
                Arith::Ratio => Term::App(Op::Div, vec![a, b]),
                Arith::Min | Arith::Max => {
                    let cmp = if *op == Arith::Min { Op::Le } else { Op::Ge };
                    Term::App(
                        Op::Ite,
                        vec![Term::App(cmp, vec![a.clone(), b.clone()]), a, b],
                    )
                }
            }
        }
        Operand::Bool(b) => Term::Bool(*b),
        Operand::Enum(c) => Term::Var(c.as_str().into(), sort.clone()),
    }
}

/// How a rendered condition binds when it is put inside another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// One statement: never needs brackets.
    Simple,
    /// A list or negation of statements: bracketed inside another list.
    List,
    /// An "if ..., then ..." (with commas and semicolons): bracketed everywhere but at the
    /// top.
    Conditional,
}

struct Part {
    text: String,
    shape: Shape,
}

impl Part {
    fn simple(text: String) -> Part {
        Part {
            text,
            shape: Shape::Simple,
        }
    }
    fn list(text: String) -> Part {
        Part {
            text,
            shape: Shape::List,
        }
    }
    fn conditional(text: String) -> Part {
        Part {
            text,
            shape: Shape::Conditional,
        }
    }
    /// The text inside a list: bracketed unless simple.
    fn inner(&self) -> String {
        match self.shape {
            Shape::Simple => self.text.clone(),
            _ => format!("({})", self.text),
        }
    }
    /// The text in a top position (after "If", "then", "Always:"): bracketed only when
    /// it is itself a conditional.
    fn top(&self) -> String {
        match self.shape {
            Shape::Conditional => format!("({})", self.text),
            _ => self.text.clone(),
        }
    }
}

/// How a numeric (or enumeration) expression binds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    Atom,
    Arith,
    Choice,
}

struct Num {
    text: String,
    level: Level,
}

fn strip(t: &Term) -> &Term {
    let mut t = t;
    while let Term::Named(inner, _) = t {
        t = inner;
    }
    t
}

fn deep<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(64 * 1024, 1024 * 1024, f)
}

/// A number as written: an integer, a finite decimal, or a fraction `n/d`.
pub(crate) fn number_text(r: &BigRational) -> String {
    if r.is_integer() {
        return r.to_integer().to_string();
    }
    let neg = r.is_negative();
    let a = r.abs();
    let body = logic::print::decimal(&a).unwrap_or_else(|| format!("{}/{}", a.numer(), a.denom()));
    if neg {
        format!("-{body}")
    } else {
        body
    }
}

fn literal(t: &Term) -> Option<BigRational> {
    match strip(t) {
        Term::Int(i) => Some(BigRational::from_integer(i.clone())),
        Term::Real(r) => Some(r.clone()),
        _ => None,
    }
}

fn join_list(items: &[String], last: &str) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., tail] => format!("{} {last} {tail}", init.join(", ")),
    }
}

fn flip(op: Op) -> Op {
    match op {
        Op::Lt => Op::Gt,
        Op::Le => Op::Ge,
        Op::Gt => Op::Lt,
        Op::Ge => Op::Le,
        o => o,
    }
}

fn complement(op: Op) -> Option<Op> {
    Some(match op {
        Op::Lt => Op::Ge,
        Op::Le => Op::Gt,
        Op::Gt => Op::Le,
        Op::Ge => Op::Lt,
        Op::Eq => Op::Distinct,
        Op::Distinct => Op::Eq,
        _ => return None,
    })
}

struct Reader<'s> {
    spec: &'s Spec,
}

impl Reader<'_> {
    fn top(&self, t: &Term) -> String {
        let t = strip(t);
        match t {
            Term::App(Op::Implies, args) if args.len() >= 2 => self.if_then(args),
            Term::App(Op::Ite, args) if args.len() == 3 => format!(
                "If {}, then {}; otherwise, {}.",
                self.top_part(&args[0]),
                self.top_part(&args[1]),
                self.top_part(&args[2])
            ),
            Term::App(Op::Not, args) if args.len() == 1 => {
                format!("Never: {}.", self.never(&args[0]))
            }
            Term::App(Op::And, args)
                if args
                    .iter()
                    .any(|a| matches!(strip(a), Term::App(Op::Implies | Op::Ite, _))) =>
            {
                let mut out = Vec::new();
                let mut i = 0;
                while i < args.len() {
                    if let (Some((c, a)), Some((nc, b))) =
                        (implication(&args[i]), args.get(i + 1).and_then(implication))
                    {
                        if matches!(strip(nc), Term::App(Op::Not, x) if x.len() == 1 && strip(&x[0]) == strip(c))
                        {
                            out.push(format!(
                                "If {}, then {}; otherwise, {}.",
                                self.top_part(c),
                                self.top_part(a),
                                self.top_part(b)
                            ));
                            i += 2;
                            continue;
                        }
                    }
                    out.push(self.top(&args[i]));
                    i += 1;
                }
                out.join(" ")
            }
            _ => format!("Always: {}.", self.top_part(t)),
        }
    }

    /// A condition in a top position.
    fn top_part(&self, t: &Term) -> String {
        self.clause(t).top()
    }

    /// "If P1 and P2, then C." for `(=> P1 P2 C)` and `(=> P1 (=> P2 C))`.
    fn if_then(&self, args: &[Term]) -> String {
        let mut premises: Vec<&Term> = args[..args.len() - 1].iter().collect();
        let mut conclusion = &args[args.len() - 1];
        while let Term::App(Op::Implies, inner) = strip(conclusion) {
            if inner.len() < 2 {
                break;
            }
            premises.extend(inner[..inner.len() - 1].iter());
            conclusion = &inner[inner.len() - 1];
        }
        let trigger = match premises.as_slice() {
            [one] => self.top_part(one),
            many => {
                let parts: Vec<String> = many.iter().map(|p| self.clause(p).inner()).collect();
                join_list(&parts, "and")
            }
        };
        format!("If {trigger}, then {}.", self.top_part(conclusion))
    }

    /// What follows "Never:": a conjunction reads "both A and B" / "all of A, B and C".
    fn never(&self, t: &Term) -> String {
        match strip(t) {
            Term::App(Op::And, args) if args.len() >= 2 => {
                let parts: Vec<String> = args.iter().map(|a| self.clause(a).inner()).collect();
                if parts.len() == 2 {
                    format!("both {} and {}", parts[0], parts[1])
                } else {
                    format!("all of {}", join_list(&parts, "and"))
                }
            }
            other => self.top_part(other),
        }
    }

    fn var_of(&self, name: &str) -> Option<&reqs::spec::Variable> {
        self.spec.variable(name)
    }

    /// A Boolean variable, stated or denied.
    fn boolean(&self, name: &str, positive: bool) -> Part {
        let described = self
            .var_of(name)
            .and_then(|v| v.description.as_deref())
            .map(wording::plain_description)
            .filter(|d| !d.is_empty());
        let Some(desc) = described else {
            let words = name.replace('_', " ");
            return match wording::reading(&words) {
                Some(Reading::Copula {
                    subject, predicate, ..
                }) => {
                    let aux = if wording::plural(&subject) {
                        "are"
                    } else {
                        "is"
                    };
                    let not = if positive { "" } else { " not" };
                    Part::simple(format!(
                        "{} {aux}{not} {}",
                        subject.join(" "),
                        predicate.join(" ")
                    ))
                }
                _ => Part::simple(format!(
                    "{words} is {}",
                    if positive { "true" } else { "false" }
                )),
            };
        };
        let as_written = sentence_case(&desc.split_whitespace().collect::<Vec<_>>().join(" "));
        match wording::reading(desc) {
            Some(Reading::Copula {
                subject,
                aux: Some(aux),
                predicate,
            }) => {
                if positive {
                    Part::simple(as_written)
                } else {
                    Part::simple(sentence_case(&format!(
                        "{} {aux} not {}",
                        subject.join(" "),
                        predicate.join(" ")
                    )))
                }
            }
            Some(Reading::Copula {
                subject,
                aux: None,
                predicate,
            }) => {
                let aux = if wording::plural(&subject) {
                    "are"
                } else {
                    "is"
                };
                let not = if positive { "" } else { " not" };
                Part::simple(sentence_case(&format!(
                    "{} {aux}{not} {}",
                    wording::with_article(&subject),
                    predicate.join(" ")
                )))
            }
            Some(Reading::Verb {
                subject,
                verb,
                rest,
            }) => {
                if positive {
                    Part::simple(as_written)
                } else {
                    let does = if wording::plural(&subject) {
                        "do"
                    } else {
                        "does"
                    };
                    let mut words = subject.clone();
                    words.push(format!("{does} not {}", wording::base_verb(&verb)));
                    words.extend(rest);
                    Part::simple(sentence_case(&words.join(" ")))
                }
            }
            None if wording::clause_like(desc) => {
                if positive {
                    Part::simple(as_written)
                } else {
                    Part::list(format!("it is not the case that {as_written}"))
                }
            }
            None => {
                let words: Vec<String> = desc.split_whitespace().map(str::to_string).collect();
                Part::simple(sentence_case(&format!(
                    "{} is {}",
                    wording::with_article(&words),
                    if positive { "true" } else { "false" }
                )))
            }
        }
    }

    fn clause(&self, t: &Term) -> Part {
        deep(|| self.clause_inner(t))
    }

    fn clause_inner(&self, t: &Term) -> Part {
        match t {
            Term::Bool(b) => Part::simple(b.to_string()),
            Term::Var(n, Sort::Bool) => self.boolean(n, true),
            Term::Named(inner, _) => self.clause(inner),
            Term::App(op, args) => match (op, args.as_slice()) {
                (Op::Not, [x]) => self.negated(x),
                (Op::And, [_, _, ..]) => {
                    let parts: Vec<String> = args.iter().map(|a| self.clause(a).inner()).collect();
                    Part::list(join_list(&parts, "and"))
                }
                (Op::Or, [_, _, ..]) => {
                    let parts: Vec<String> = args.iter().map(|a| self.clause(a).inner()).collect();
                    Part::list(format!("either {}", join_list(&parts, "or")))
                }
                (Op::And | Op::Or, [x]) => self.clause(x),
                (Op::Xor, [a, rest @ ..]) if !rest.is_empty() => {
                    // Left-associative: (xor a b c) is (xor (xor a b) c).
                    let mut acc = self.clause(a);
                    for b in rest {
                        acc = Part::list(format!(
                            "either {} or {}, but not both",
                            acc.inner(),
                            self.clause(b).inner()
                        ));
                    }
                    acc
                }
                (Op::Implies, [_, _, ..]) => {
                    let sentence = self.if_then(args);
                    let body = sentence
                        .strip_prefix("If ")
                        .and_then(|s| s.strip_suffix('.'))
                        .unwrap_or(&sentence);
                    Part::conditional(format!("if {body}"))
                }
                (Op::Ite, [c, a, b]) => Part::conditional(format!(
                    "if {}, then {}; otherwise, {}",
                    self.top_part(c),
                    self.top_part(a),
                    self.top_part(b)
                )),
                (Op::Eq | Op::Distinct | Op::Lt | Op::Le | Op::Gt | Op::Ge, [_, _, ..]) => {
                    self.compare(*op, args)
                }
                (Op::IsInt, [x]) => {
                    Part::simple(format!("{} is a whole number", self.num_inner(x, None)))
                }
                _ => self.fragment_bool(t),
            },
            _ => self.fragment_bool(t),
        }
    }

    fn fragment_bool(&self, t: &Term) -> Part {
        Part::simple(format!("the formula `{}` holds", logic::print::term(t)))
    }

    fn negated(&self, x: &Term) -> Part {
        deep(|| self.negated_inner(x))
    }

    fn negated_inner(&self, x: &Term) -> Part {
        match x {
            Term::Bool(b) => Part::simple((!b).to_string()),
            Term::Var(n, Sort::Bool) => self.boolean(n, false),
            Term::Named(inner, _) => self.negated(inner),
            Term::App(op, args) => match (op, args.as_slice()) {
                (Op::Not, [y]) => self.clause(y),
                (Op::And, [a, b]) => Part::list(format!(
                    "not both {} and {}",
                    self.clause(a).inner(),
                    self.clause(b).inner()
                )),
                (Op::And, [_, _, _, ..]) => {
                    let parts: Vec<String> = args.iter().map(|a| self.clause(a).inner()).collect();
                    Part::list(format!("not all of {}", join_list(&parts, "and")))
                }
                (Op::Or, [a, b]) => Part::list(format!(
                    "neither {} nor {}",
                    self.clause(a).inner(),
                    self.clause(b).inner()
                )),
                (Op::Or, [_, _, _, ..]) => {
                    let parts: Vec<String> = args.iter().map(|a| self.clause(a).inner()).collect();
                    Part::list(format!("none of {}", join_list(&parts, "and")))
                }
                (Op::Lt | Op::Le | Op::Gt | Op::Ge | Op::Eq | Op::Distinct, [a, b])
                    if a.sort() != Sort::Bool =>
                {
                    let op = complement(*op).expect("a comparison");
                    self.compare(op, args)
                }
                _ => Part::list(format!(
                    "it is not the case that {}",
                    self.clause(x).inner()
                )),
            },
            _ => Part::list(format!(
                "it is not the case that {}",
                self.clause(x).inner()
            )),
        }
    }

    fn compare(&self, op: Op, args: &[Term]) -> Part {
        if args.len() > 2 {
            if op == Op::Distinct {
                let parts: Vec<String> = args.iter().map(|a| self.side(a, None)).collect();
                return Part::list(format!("{} are all different", join_list(&parts, "and")));
            }
            // A chain: (< a b c) is (and (< a b) (< b c)).
            let pairs: Vec<Term> = args.windows(2).map(|w| Term::App(op, w.to_vec())).collect();
            return self.clause(&Term::App(Op::And, pairs));
        }
        let (a, b) = (&args[0], &args[1]);
        match a.sort() {
            Sort::Bool => {
                let equal = op == Op::Eq;
                for (x, y) in [(a, b), (b, a)] {
                    if let Term::Bool(v) = strip(y) {
                        return if *v == equal {
                            self.clause(x)
                        } else {
                            self.negated(x)
                        };
                    }
                }
                let (x, y) = (self.clause(a).inner(), self.clause(b).inner());
                if equal {
                    Part::list(format!("{x} if and only if {y}"))
                } else {
                    Part::list(format!("either {x} or {y}, but not both"))
                }
            }
            Sort::Enum(_) => {
                let (x, y) = match strip(a) {
                    Term::EnumVal { .. } if !matches!(strip(b), Term::EnumVal { .. }) => (b, a),
                    _ => (a, b),
                };
                let value = matches!(strip(y), Term::EnumVal { .. });
                let word = match (op == Op::Eq, value) {
                    (true, true) => "is",
                    (false, true) => "is not",
                    (true, false) => "equals",
                    (false, false) => "differs from",
                };
                Part::simple(format!(
                    "{} {word} {}",
                    self.side(x, None),
                    self.side(y, None)
                ))
            }
            _ => {
                let (mut op, mut x, mut y) = (op, a, b);
                if literal(x).is_some() && literal(y).is_none() {
                    std::mem::swap(&mut x, &mut y);
                    op = flip(op);
                }
                let word = match op {
                    Op::Gt => "is above",
                    Op::Ge => "is at least",
                    Op::Lt => "is below",
                    Op::Le => "is at most",
                    Op::Eq => "equals",
                    _ => "differs from",
                };
                let (ux, uy) = (self.unit_of(x), self.unit_of(y));
                Part::simple(format!(
                    "{} {word} {}",
                    self.side(x, uy.as_deref()),
                    self.side(y, ux.as_deref())
                ))
            }
        }
    }

    /// One side of a comparison: bracketed when it is a choice (`ite`).
    fn side(&self, t: &Term, unit: Option<&str>) -> String {
        let n = self.num(t, unit);
        if n.level == Level::Choice {
            format!("({})", n.text)
        } else {
            n.text
        }
    }

    fn num_inner(&self, t: &Term, unit: Option<&str>) -> String {
        let n = self.num(t, unit);
        if n.level == Level::Atom {
            n.text
        } else {
            format!("({})", n.text)
        }
    }

    /// The unit of a numeric expression, when its variables agree on one.
    fn unit_of(&self, t: &Term) -> Option<String> {
        deep(|| self.unit_of_inner(t))
    }

    fn unit_of_inner(&self, t: &Term) -> Option<String> {
        let common = |ts: &[Term]| -> Option<String> {
            let mut unit: Option<String> = None;
            for x in ts.iter().filter(|x| literal(x).is_none()) {
                let u = self.unit_of(x)?;
                match &unit {
                    Some(v) if *v != u => return None,
                    _ => unit = Some(u),
                }
            }
            unit
        };
        match strip(t) {
            Term::Var(n, _) => self.var_of(n).and_then(|v| v.unit.clone()),
            Term::App(op, args) => match op {
                Op::Add | Op::Sub | Op::Neg | Op::Abs | Op::ToReal | Op::ToInt => common(args),
                Op::Ite => common(&args[1..]),
                Op::Mul => {
                    let vars: Vec<&Term> = args.iter().filter(|x| literal(x).is_none()).collect();
                    match vars.as_slice() {
                        [one] => self.unit_of(one),
                        _ => None,
                    }
                }
                Op::Div if args[1..].iter().all(|x| literal(x).is_some()) => self.unit_of(&args[0]),
                _ => None,
            },
            _ => None,
        }
    }

    fn num(&self, t: &Term, unit: Option<&str>) -> Num {
        deep(|| self.num_of(t, unit))
    }

    fn num_of(&self, t: &Term, unit: Option<&str>) -> Num {
        let atom = |text: String| Num {
            text,
            level: Level::Atom,
        };
        let arith = |text: String| Num {
            text,
            level: Level::Arith,
        };
        match t {
            Term::Int(_) | Term::Real(_) => {
                let n = number_text(&literal(t).expect("a literal"));
                atom(match unit {
                    Some(u) => format!("{n} {u}"),
                    None => n,
                })
            }
            Term::Var(n, _) => atom(match self.var_of(n) {
                Some(v) => sentence_case(&wording::noun_phrase(v)),
                None => n.replace('_', " "),
            }),
            Term::EnumVal { ctor, .. } => atom(ctor.to_string()),
            Term::Named(inner, _) => self.num(inner, unit),
            Term::App(op, args) => {
                let own = self.unit_of(t);
                let u = own.as_deref().or(unit);
                match (op, args.as_slice()) {
                    (Op::Add | Op::Sub, [_, _, ..]) => {
                        let word = if *op == Op::Add { " plus " } else { " minus " };
                        let parts: Vec<String> =
                            args.iter().map(|a| self.num_inner(a, u)).collect();
                        arith(parts.join(word))
                    }
                    (Op::Sub | Op::Neg, [x]) => arith(format!("minus {}", self.num_inner(x, u))),
                    (Op::Mul, [_, _, ..]) => {
                        let parts: Vec<String> = args
                            .iter()
                            .map(|a| {
                                if literal(a).is_some() {
                                    self.num_inner(a, None)
                                } else {
                                    self.num_inner(a, u)
                                }
                            })
                            .collect();
                        arith(parts.join(" times "))
                    }
                    (Op::Div, [a, rest @ ..]) if !rest.is_empty() => {
                        let mut text = self.num_inner(a, u);
                        for d in rest {
                            text = format!("{text} divided by {}", self.num_inner(d, None));
                        }
                        arith(text)
                    }
                    (Op::Abs, [x]) => {
                        atom(format!("the absolute value of {}", self.num_inner(x, u)))
                    }
                    (Op::ToReal, [x]) => self.num(x, u),
                    (Op::ToInt, [x]) => arith(format!(
                        "{} rounded down to a whole number",
                        self.num_inner(x, u)
                    )),
                    (Op::IntDiv, [a, d]) if literal(d).is_some_and(|r| r.is_positive()) => {
                        arith(format!(
                            "{} divided by {}, rounded down",
                            self.num_inner(a, None),
                            self.num_inner(d, None)
                        ))
                    }
                    (Op::Mod, [a, d]) if literal(d).is_some_and(|r| r.is_positive()) => {
                        atom(format!(
                            "the remainder of {} divided by {}",
                            self.num_inner(a, None),
                            self.num_inner(d, None)
                        ))
                    }
                    (Op::Ite, [c, a, b]) if smaller_or_larger(c, a, b).is_some() => {
                        let word = smaller_or_larger(c, a, b).unwrap_or("smaller");
                        atom(format!(
                            "the {word} of {} and {}",
                            self.num_inner(a, u),
                            self.num_inner(b, u)
                        ))
                    }
                    (Op::Ite, [c, a, b]) => Num {
                        text: format!(
                            "{} if {}, otherwise {}",
                            self.num_inner(a, u),
                            self.clause(c).inner(),
                            self.num_inner(b, u)
                        ),
                        level: Level::Choice,
                    },
                    _ => atom(format!("the value of `{}`", logic::print::term(t))),
                }
            }
            _ => atom(format!("the value of `{}`", logic::print::term(t))),
        }
    }
}

/// "smaller" for `(ite (<= a b) a b)` (and `<`, or `>=`/`>` with the pair swapped),
/// "larger" for the converse: a min or a max as a form writes it.
fn smaller_or_larger(c: &Term, a: &Term, b: &Term) -> Option<&'static str> {
    match strip(c) {
        Term::App(op, args) if args.len() == 2 => {
            let same = args[0] == *a && args[1] == *b;
            let swapped = args[0] == *b && args[1] == *a;
            match op {
                Op::Le | Op::Lt if same => Some("smaller"),
                Op::Ge | Op::Gt if same => Some("larger"),
                Op::Ge | Op::Gt if swapped => Some("smaller"),
                Op::Le | Op::Lt if swapped => Some("larger"),
                _ => None,
            }
        }
        _ => None,
    }
}

/// `(=> c a)` as its condition and consequence.
fn implication(t: &Term) -> Option<(&Term, &Term)> {
    match strip(t) {
        Term::App(Op::Implies, args) if args.len() == 2 => Some((&args[0], &args[1])),
        _ => None,
    }
}

/// A description put inside a sentence: a leading "The"/"A"/"An" in lower case.
fn sentence_case(s: &str) -> String {
    for article in ["The ", "A ", "An "] {
        if let Some(rest) = s.strip_prefix(article) {
            return format!("{}{rest}", article.to_lowercase());
        }
    }
    s.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use logic::SourceFile;

    const SCHEMA: &str = r#"
[spec]
name = "t"

[[enums]]
name = "KeyState"
values = ["NoKey", "KeyInserted", "IgnitionOn"]

[[variables]]
name = "key_state"
sort = "KeyState"
description = "position of the key"

[[variables]]
name = "other_key"
sort = "KeyState"

[[variables]]
name = "low_beam_left"
sort = "Bool"
description = "left low beam on"

[[variables]]
name = "brake_light"
sort = "Bool"
description = "brake lights on"

[[variables]]
name = "alarm"
sort = "Bool"
description = "the alarm sounds"

[[variables]]
name = "door_open"
sort = "Bool"
description = "the cassette door is open"

[[variables]]
name = "leak"
sort = "Bool"
description = "the detector sees blood in the dialysate"

[[variables]]
name = "indicator"
sort = "Bool"
description = "an indicator"

[[variables]]
name = "pump_on"
sort = "Bool"

[[variables]]
name = "ready_flag"
sort = "Bool"

[[variables]]
name = "rate"
sort = "Real"
unit = "mL/h"
description = "current infusion rate"

[[variables]]
name = "max_rate"
sort = "Real"
unit = "mL/h"
description = "maximum infusion rate prescribed"

[[variables]]
name = "count"
sort = "Int"
"#;

    fn spec() -> Spec {
        reqs::parse_spec(SourceFile::new("t.toml", SCHEMA)).unwrap()
    }

    /// The form of a JSON object, which must be one.
    fn form(s: &Spec, v: serde_json::Value) -> Form {
        Form::from_json(s, &v).unwrap()
    }

    fn read(formula: &str) -> String {
        let s = spec();
        let t = s.parse_formula("f", formula).unwrap();
        sentence(&s, &t)
    }

    #[test]
    fn conditionals_invariants_and_prohibitions() {
        assert_eq!(
            read("(=> (and (= key_state IgnitionOn) door_open) (and low_beam_left alarm))"),
            "If the position of the key is IgnitionOn and the cassette door is open, then the left low beam is on and the alarm sounds."
        );
        assert_eq!(
            read("(<= rate max_rate)"),
            "Always: the current infusion rate is at most the maximum infusion rate prescribed."
        );
        assert_eq!(
            read("(not (and door_open (not alarm)))"),
            "Never: both the cassette door is open and the alarm does not sound."
        );
        assert_eq!(read("(not alarm)"), "Never: the alarm sounds.");
        assert_eq!(
            read("(=> door_open (=> alarm (> count 2)))"),
            "If the cassette door is open and the alarm sounds, then count is above 2."
        );
        assert_eq!(
            read("(=> door_open alarm (> count 2))"),
            "If the cassette door is open and the alarm sounds, then count is above 2."
        );
    }

    #[test]
    fn if_else_and_cases() {
        assert_eq!(
            read("(and (=> door_open alarm) (=> (not door_open) (not alarm)))"),
            "If the cassette door is open, then the alarm sounds; otherwise, the alarm does not sound."
        );
        assert_eq!(
            read("(ite door_open alarm (< rate 1))"),
            "If the cassette door is open, then the alarm sounds; otherwise, the current infusion rate is below 1 mL/h."
        );
        assert_eq!(
            read("(and (=> (> rate 8.5) alarm) (=> (< rate 0.25) (= key_state NoKey)))"),
            "If the current infusion rate is above 8.5 mL/h, then the alarm sounds. If the current infusion rate is below 0.25 mL/h, then the position of the key is NoKey."
        );
    }

    #[test]
    fn comparisons_with_units_and_flipped_literals() {
        for (op, word) in [
            (">", "is above"),
            (">=", "is at least"),
            ("<", "is below"),
            ("<=", "is at most"),
            ("=", "equals"),
            ("distinct", "differs from"),
        ] {
            assert_eq!(
                read(&format!("({op} rate 2.5)")),
                format!("Always: the current infusion rate {word} 2.5 mL/h.")
            );
        }
        // A literal on the left is moved to the right with the opposite comparison.
        assert_eq!(
            read("(<= 300.0 rate)"),
            "Always: the current infusion rate is at least 300 mL/h."
        );
        assert_eq!(read("(< count 1)"), "Always: count is below 1.");
        assert_eq!(
            read("(< count 1 5)"),
            "Always: count is below 1 and 1 is below 5."
        );
        assert_eq!(
            read("(= rate (/ 1.0 3.0))"),
            "Always: the current infusion rate equals 1/3 mL/h."
        );
        assert_eq!(read("(> count (- 3))"), "Always: count is above -3.");
    }

    #[test]
    fn negations_are_explicit() {
        assert_eq!(
            read("(=> alarm (not (< rate 5.0)))"),
            "If the alarm sounds, then the current infusion rate is at least 5 mL/h."
        );
        assert_eq!(
            read("(=> alarm (not (= key_state NoKey)))"),
            "If the alarm sounds, then the position of the key is not NoKey."
        );
        assert_eq!(
            read("(=> alarm (and (not low_beam_left) (not brake_light) (not door_open)))"),
            "If the alarm sounds, then the left low beam is not on, the brake lights are not on and the cassette door is not open."
        );
        assert_eq!(
            read("(=> alarm (not leak))"),
            "If the alarm sounds, then it is not the case that the detector sees blood in the dialysate."
        );
        assert_eq!(
            read("(=> alarm (not (or door_open leak)))"),
            "If the alarm sounds, then neither the cassette door is open nor the detector sees blood in the dialysate."
        );
        assert_eq!(
            read("(=> alarm (not (and door_open pump_on)))"),
            "If the alarm sounds, then not both the cassette door is open and pump is on."
        );
        assert_eq!(
            read("(=> alarm (not (=> door_open pump_on)))"),
            "If the alarm sounds, then it is not the case that (if the cassette door is open, then pump is on)."
        );
        assert_eq!(
            read("(not (not alarm))"),
            "Never: the alarm does not sound."
        );
    }

    #[test]
    fn booleans_without_a_clause_and_without_a_description() {
        assert_eq!(read("indicator"), "Always: the indicator is true.");
        assert_eq!(read("(not indicator)"), "Never: the indicator is true.");
        assert_eq!(
            read("(=> indicator (not indicator))"),
            "If the indicator is true, then the indicator is false."
        );
        assert_eq!(
            read("(=> pump_on ready_flag)"),
            "If pump is on, then ready flag is true."
        );
        assert_eq!(
            read("(=> pump_on (not ready_flag))"),
            "If pump is on, then ready flag is false."
        );
        assert_eq!(
            read("(=> alarm (= door_open true))"),
            "If the alarm sounds, then the cassette door is open."
        );
        assert_eq!(
            read("(=> alarm (= door_open false))"),
            "If the alarm sounds, then the cassette door is not open."
        );
    }

    #[test]
    fn or_xor_iff_and_nesting() {
        assert_eq!(
            read("(=> (or door_open alarm) pump_on)"),
            "If either the cassette door is open or the alarm sounds, then pump is on."
        );
        assert_eq!(
            read("(=> (or door_open alarm leak) pump_on)"),
            "If either the cassette door is open, the alarm sounds or the detector sees blood in the dialysate, then pump is on."
        );
        assert_eq!(
            read("(=> (and pump_on (or door_open alarm)) ready_flag)"),
            "If pump is on and (either the cassette door is open or the alarm sounds), then ready flag is true."
        );
        assert_eq!(
            read("(=> (or (and pump_on door_open) alarm) ready_flag)"),
            "If either (pump is on and the cassette door is open) or the alarm sounds, then ready flag is true."
        );
        assert_eq!(
            read("(xor door_open alarm)"),
            "Always: either the cassette door is open or the alarm sounds, but not both."
        );
        assert_eq!(
            read("(= door_open alarm)"),
            "Always: the cassette door is open if and only if the alarm sounds."
        );
        assert_eq!(
            read("(distinct door_open alarm)"),
            "Always: either the cassette door is open or the alarm sounds, but not both."
        );
        assert_eq!(
            read("(or pump_on (=> door_open alarm))"),
            "Always: either pump is on or (if the cassette door is open, then the alarm sounds)."
        );
        assert_eq!(
            read("(=> pump_on (ite door_open alarm ready_flag))"),
            "If pump is on, then (if the cassette door is open, then the alarm sounds; otherwise, ready flag is true)."
        );
    }

    #[test]
    fn enumerations_arithmetic_and_fragments() {
        assert_eq!(
            read("(= key_state other_key)"),
            "Always: the position of the key equals other key."
        );
        assert_eq!(
            read("(distinct IgnitionOn key_state)"),
            "Always: the position of the key is not IgnitionOn."
        );
        assert_eq!(
            read("(distinct key_state other_key NoKey)"),
            "Always: the position of the key, other key and NoKey are all different."
        );
        assert_eq!(
            read("(<= rate (- max_rate 10.0))"),
            "Always: the current infusion rate is at most the maximum infusion rate prescribed minus 10 mL/h."
        );
        assert_eq!(
            read("(<= (+ rate (* 2.0 max_rate)) 50.0)"),
            "Always: the current infusion rate plus (2 times the maximum infusion rate prescribed) is at most 50 mL/h."
        );
        assert_eq!(
            read("(= count (ite alarm 1 (- count 1)))"),
            "Always: count equals (1 if the alarm sounds, otherwise (count minus 1))."
        );
        assert_eq!(
            read("(> (abs (- rate max_rate)) 1.0)"),
            "Always: the absolute value of (the current infusion rate minus the maximum infusion rate prescribed) is above 1 mL/h."
        );
        assert_eq!(
            read("(= (mod count 2) 0)"),
            "Always: the remainder of count divided by 2 equals 0."
        );
        assert_eq!(
            read("(let ((x (+ count 1))) (> x 2))"),
            "Always: the formula `(let ((x (+ count 1))) (> x 2))` holds."
        );
        assert_eq!(
            read("(= (div count (- 2)) 1)"),
            "Always: the value of `(div count (- 2))` equals 1."
        );
        assert_eq!(read("(! alarm :named a1)"), "Always: the alarm sounds.");
    }

    #[test]
    fn forms_keep_their_word() {
        use serde_json::json;
        let s = spec();
        let f = form(
            &s,
            json!({"during": {"name": "key_state", "op": "is", "value": "IgnitionOn"},
                    "then": {"all": [{"name": "low_beam_left", "op": "is", "value": true},
                                     {"name": "rate", "op": "<=", "value": 5}]}}),
        );
        assert_eq!(
            form_sentence(&s, &f),
            "While the position of the key is IgnitionOn, the left low beam is on and the current infusion rate is at most 5 mL/h."
        );
        let f = form(
            &s,
            json!({"if": {"name": "door_open", "op": "is", "value": true},
                    "then": {"name": "alarm", "op": "is", "value": true},
                    "otherwise": {"any": [{"name": "key_state", "op": "is not", "value": "NoKey"},
                                     {"name": "count", "op": "!=", "value": 3}]}}),
        );
        assert_eq!(
            form_sentence(&s, &f),
            "If the cassette door is open, then the alarm sounds; otherwise, either the position of the key is not NoKey or count differs from 3."
        );
        let f = form(
            &s,
            json!({"never": {"all": [{"name": "door_open", "op": "is", "value": true},
                                                       {"name": "alarm", "op": "is", "value": false}]}}),
        );
        assert_eq!(
            form_sentence(&s, &f),
            "Never: both the cassette door is open and the alarm does not sound."
        );
        // The form's sentence says what its formula says.
        let t = s.parse_formula("f", &f.smtlib(&s)).unwrap();
        assert_eq!(sentence(&s, &t), form_sentence(&s, &f));
    }

    #[test]
    fn arithmetic_in_a_form_reads_as_words() {
        use serde_json::json;
        let s = spec();
        let f = form(
            &s,
            json!({"if": {"name": "door_open", "op": "is", "value": true},
                    "then": {"name": "rate", "op": "<=",
                             "value": {"min": [{"sum": ["max_rate", 2]}, {"difference": ["max_rate", 1]}]}}}),
        );
        let said = form_sentence(&s, &f);
        assert_eq!(
            said,
            "If the cassette door is open, then the current infusion rate is at most the smaller of (the maximum infusion rate prescribed plus 2 mL/h) and (the maximum infusion rate prescribed minus 1 mL/h)."
        );
        // The sentence of the form is the sentence of its formula.
        let t = s.parse_formula("f", &f.smtlib(&s)).unwrap();
        assert_eq!(sentence(&s, &t), said);
    }

    #[test]
    fn a_full_stop_in_a_description_stays_out_of_the_sentence() {
        let s = reqs::parse_spec(SourceFile::new(
            "d.toml",
            "[spec]\nname = \"d\"\n[[variables]]\nname = \"alarm\"\nsort = \"Bool\"\ndescription = \"The alarm sounds.\"\n\
             [[variables]]\nname = \"rate\"\nsort = \"Real\"\ndescription = \"Infusion rate.\"\n",
        ))
        .unwrap();
        let t = s
            .parse_formula("f", "(=> (> rate 1.0) (not alarm))")
            .unwrap();
        assert_eq!(
            sentence(&s, &t),
            "If the infusion rate is above 1, then the alarm does not sound."
        );
    }

    #[test]
    fn deep_formulas_do_not_overflow() {
        let s = spec();
        let b = |n: &str| Term::var(n, Sort::Bool);
        let mut t = b("alarm");
        for _ in 0..3000 {
            t = Term::App(
                Op::And,
                vec![b("door_open"), Term::App(Op::Or, vec![b("pump_on"), t])],
            );
        }
        let out = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || {
                let r = sentence(&s, &t);
                // Dropping the term is recursive too; this test is about reading it.
                std::mem::forget(t);
                r
            })
            .unwrap()
            .join()
            .unwrap();
        assert!(
            out.starts_with("Always: the cassette door is open and (either pump is on or"),
            "{}",
            &out[..100]
        );
    }
}

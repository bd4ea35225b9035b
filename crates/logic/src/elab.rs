//! The elaborator: s-expressions to typed terms and commands, with the type checker.
//!
//! Every error carries the span of the offending expression and, where one helps,
//! a one-line hint. Elaboration goes on after an error so that one run reports as
//! many problems as it can.

use crate::context::{Arithmetic, Context, Entry, FunDef, MAX_SCOPES};
use crate::scope::Scoped;
use crate::script::Command;
use crate::sexp::{Sexp, SexpKind};
use crate::source::{Diagnostic, Span};
use crate::term::{Op, Sort, Symbol, Term};
use num_bigint::{BigInt, BigUint};
use num_rational::BigRational;
use num_traits::{Signed, Zero};
use std::collections::HashSet;
use std::sync::Arc;

/// The most diagnostics one elaborator keeps; past that, errors still make the
/// input fail but are not recorded.
const MAX_DIAGNOSTICS: usize = 1000;

/// A name bound by `let` or a function parameter.
#[derive(Debug, Clone)]
struct Local {
    name: Symbol,
    sort: Sort,
    /// True when the bound value has no free constants (matters for linearity).
    constant: bool,
}

/// Turns s-expressions into typed terms and commands against a [`Context`].
#[derive(Debug)]
pub struct Elaborator {
    ctx: Context,
    locals: Scoped<Local>,
    diags: Vec<Diagnostic>,
}

fn sym(s: &str) -> Symbol {
    Arc::from(s)
}

/// `f` of every item, in order, going on after a failure so that every error is
/// reported; `None` if any failed.
fn every<I: IntoIterator, T>(items: I, mut f: impl FnMut(I::Item) -> Option<T>) -> Option<Vec<T>> {
    let items = items.into_iter();
    let mut out = Vec::with_capacity(items.size_hint().0);
    let mut ok = true;
    for item in items {
        match f(item) {
            Some(t) => out.push(t),
            None => ok = false,
        }
    }
    ok.then_some(out)
}

/// True when the term has no free constants (only literals, and operators over them).
pub fn is_constant(t: &Term) -> bool {
    t.free_vars().is_empty()
}

/// A command being elaborated: its name, its arguments and where it is.
struct Cmd<'a> {
    head: &'a str,
    args: &'a [Sexp],
    span: Span,
}

impl Elaborator {
    /// An elaborator over the given declarations.
    pub fn new(ctx: Context) -> Elaborator {
        Elaborator {
            ctx,
            locals: Scoped::default(),
            diags: Vec::new(),
        }
    }

    /// The declarations, including those made by elaborated commands.
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// Gives the context back.
    pub fn into_context(self) -> Context {
        self.ctx
    }

    /// Diagnostics so far, leaving none.
    pub fn take_diagnostics(&mut self) -> Vec<Diagnostic> {
        std::mem::take(&mut self.diags)
    }

    fn err(&mut self, span: Span, msg: impl Into<String>) {
        if self.diags.len() < MAX_DIAGNOSTICS {
            self.diags.push(Diagnostic::error(span, msg));
        }
    }

    fn err_hint(&mut self, span: Span, msg: impl Into<String>, hint: impl Into<String>) {
        if self.diags.len() < MAX_DIAGNOSTICS {
            self.diags
                .push(Diagnostic::error(span, msg).with_hint(hint));
        }
    }

    /// A declared name close to `name`, for "did you mean" hints, while the hints can
    /// still be shown (the search is not free on large contexts).
    fn similar(&self, name: &str) -> Option<String> {
        if self.diags.len() >= crate::source::MAX_SHOWN {
            return None;
        }
        self.ctx.similar(name).map(str::to_string)
    }

    // ---------------------------------------------------------------- sorts

    /// Elaborates a sort.
    pub fn sort(&mut self, e: &Sexp) -> Option<Sort> {
        match e.as_symbol() {
            Some("Bool") => Some(Sort::Bool),
            Some("Int") => Some(Sort::Int),
            Some("Real") => Some(Sort::Real),
            Some(n) => match self.ctx.get(n) {
                Some(Entry::EnumSort(_)) => Some(Sort::Enum(sym(n))),
                _ => {
                    let hint = match self.similar(n) {
                        Some(s) => format!("did you mean `{s}`?"),
                        None => "vera knows Bool, Int, Real and declared enumerations".into(),
                    };
                    self.err_hint(e.span, format!("unknown sort `{n}`"), hint);
                    None
                }
            },
            None => {
                self.err_hint(
                    e.span,
                    format!("unsupported sort `{e}`"),
                    "vera knows Bool, Int, Real and declared enumerations",
                );
                None
            }
        }
    }

    // ---------------------------------------------------------------- terms

    /// Elaborates a term. Returns `None` after reporting an error.
    pub fn term(&mut self, e: &Sexp) -> Option<Term> {
        crate::deep(|| self.term_inner(e))
    }

    fn term_inner(&mut self, e: &Sexp) -> Option<Term> {
        match &e.kind {
            SexpKind::Numeral(n) => Some(Term::Int(BigInt::from(n.clone()))),
            SexpKind::Decimal(d) => Some(Term::Real(parse_decimal(d))),
            SexpKind::Symbol(s) => self.symbol(s, e.span),
            SexpKind::Bits(b) => {
                self.err_hint(
                    e.span,
                    format!("bit-vector literal `{b}` is not supported"),
                    "vera handles Bool, Int, Real and enumerations",
                );
                None
            }
            SexpKind::Str(_) => {
                self.err(e.span, "string literals are not supported in terms");
                None
            }
            SexpKind::Keyword(k) => {
                self.err(e.span, format!("unexpected keyword `:{k}` in a term"));
                None
            }
            SexpKind::List(items) => self.list(items, e.span),
        }
    }

    fn symbol(&mut self, s: &str, span: Span) -> Option<Term> {
        match s {
            "true" => return Some(Term::Bool(true)),
            "false" => return Some(Term::Bool(false)),
            _ => {}
        }
        if let Some(l) = self.locals.get(s) {
            return Some(Term::Var(l.name.clone(), l.sort.clone()));
        }
        match self.ctx.get(s) {
            Some(Entry::Const(sort)) => Some(Term::Var(sym(s), sort.clone())),
            Some(Entry::Ctor(sort)) => Some(Term::EnumVal {
                sort: sort.clone(),
                ctor: sym(s),
            }),
            Some(Entry::Fun(f)) => {
                if f.params.is_empty() {
                    Some(Term::Var(f.name.clone(), f.sort.clone()))
                } else {
                    let n = f.params.len();
                    self.err_hint(
                        span,
                        format!("`{s}` is a function of {n} argument(s), used without arguments"),
                        format!("apply it: ({s} ...)"),
                    );
                    None
                }
            }
            Some(Entry::EnumSort(_)) => {
                self.err_hint(
                    span,
                    format!("`{s}` is a sort, not a value"),
                    "use one of its constructors",
                );
                None
            }
            None => {
                let hint = if Op::from_name(s).is_some() {
                    format!("`{s}` is an operator: apply it, e.g. ({s} a b)")
                } else {
                    match self.similar(s) {
                        Some(n) => format!("did you mean `{n}`?"),
                        None => format!("declare it first, e.g. (declare-const {s} Int)"),
                    }
                };
                self.err_hint(span, format!("undeclared symbol `{s}`"), hint);
                None
            }
        }
    }

    fn list(&mut self, items: &[Sexp], span: Span) -> Option<Term> {
        let Some(head) = items.first() else {
            self.err(span, "empty list `()` is not a term");
            return None;
        };
        let Some(h) = head.as_symbol() else {
            if head.head() == Some("_") {
                self.err_hint(
                    head.span,
                    format!("indexed identifier `{head}` is not supported"),
                    "vera handles Bool, Int, Real and enumerations; use (= x C) for testers",
                );
            } else {
                self.err(
                    head.span,
                    format!("expected an operator or function name, found `{head}`"),
                );
            }
            return None;
        };
        let args = &items[1..];
        match h {
            "let" => return self.let_term(args, span),
            "!" => return self.annotated(args, span),
            "forall" | "exists" => {
                self.err_hint(
                    span,
                    format!("quantifier `{h}` is not supported"),
                    "vera works with quantifier-free formulas",
                );
                return None;
            }
            "match" | "as" | "_" => {
                self.err(span, format!("`{h}` is not supported"));
                return None;
            }
            _ => {}
        }
        if let Some(op) = Op::from_name(h) {
            return self.op_app(op, args, span);
        }
        if let Some(l) = self.locals.get(h) {
            self.err(
                head.span,
                format!("`{}` is a variable, not a function", l.name),
            );
            return None;
        }
        match self.ctx.get(h).cloned() {
            Some(Entry::Fun(f)) => {
                let terms = self.terms(args)?;
                if terms.len() != f.params.len() {
                    self.err_hint(
                        span,
                        format!(
                            "`{h}` takes {} argument(s), given {}",
                            f.params.len(),
                            terms.len()
                        ),
                        format!(
                            "its signature is ({h}{})",
                            f.params
                                .iter()
                                .map(|(_, s)| format!(" {s}"))
                                .collect::<String>()
                        ),
                    );
                    return None;
                }
                let mut out = Vec::with_capacity(terms.len());
                for ((t, (_, want)), a) in terms.into_iter().zip(&f.params).zip(args) {
                    out.push(self.expect(t, want, a.span, &format!("argument of `{h}`"))?);
                }
                if f.params.is_empty() {
                    Some(Term::Var(f.name.clone(), f.sort.clone()))
                } else {
                    Some(Term::Call(f.name.clone(), out, f.sort.clone()))
                }
            }
            Some(Entry::Const(_)) | Some(Entry::Ctor(_)) => {
                self.err_hint(
                    span,
                    format!("`{h}` is a constant and takes no arguments"),
                    format!("write `{h}` without parentheses"),
                );
                None
            }
            Some(Entry::EnumSort(_)) => {
                self.err(head.span, format!("`{h}` is a sort, not a function"));
                None
            }
            None => {
                let hint = match self.similar(h) {
                    Some(n) => format!("did you mean `{n}`?"),
                    None => "define it with define-fun, or use a built-in operator".to_string(),
                };
                self.err_hint(head.span, format!("unknown function `{h}`"), hint);
                None
            }
        }
    }

    /// Elaborates every argument, reporting all errors; `None` if any failed.
    fn terms(&mut self, args: &[Sexp]) -> Option<Vec<Term>> {
        every(args, |a| self.term(a))
    }

    /// Coerces `t` to `want`: an Int term where a Real is wanted becomes a real literal
    /// or `(to_real t)`; any other mismatch is an error.
    fn expect(&mut self, t: Term, want: &Sort, span: Span, what: &str) -> Option<Term> {
        let have = t.sort();
        if &have == want {
            return Some(t);
        }
        if have == Sort::Int && *want == Sort::Real {
            return Some(to_real(t));
        }
        self.err_hint(
            span,
            format!("sort mismatch: {what} must be {want}, found {have}"),
            match (want, &have) {
                (Sort::Bool, s) if s.is_numeric() => "compare it, e.g. (> x 0)".to_string(),
                (Sort::Int, Sort::Real) => "use (to_int x) to take the floor".to_string(),
                _ => format!("give a term of sort {want}"),
            },
        );
        None
    }

    /// Checks that `op` has `min` to `max` (no limit: `None`) arguments in `terms`; else
    /// reports it and gives `None`.
    fn arity(
        &mut self,
        op: Op,
        terms: &[Term],
        min: usize,
        max: Option<usize>,
        span: Span,
    ) -> Option<()> {
        let n = terms.len();
        let ok = n >= min && max.is_none_or(|m| n <= m);
        if !ok {
            let want = match max {
                Some(m) if m == min => format!("{min}"),
                Some(m) => format!("{min} to {m}"),
                None => format!("at least {min}"),
            };
            self.err_hint(
                span,
                format!("`{}` takes {want} argument(s), given {n}", op.name()),
                format!("e.g. {}", example(op)),
            );
        }
        ok.then_some(())
    }

    /// The one argument in `terms` of the unary `op` ([`Self::arity`]).
    fn single(&mut self, op: Op, terms: Vec<Term>, span: Span) -> Option<Term> {
        self.arity(op, &terms, 1, Some(1), span)?;
        terms.into_iter().next()
    }

    fn op_app(&mut self, op: Op, args: &[Sexp], span: Span) -> Option<Term> {
        let terms = self.terms(args)?;
        let spans: Vec<Span> = args.iter().map(|a| a.span).collect();
        match op {
            Op::Not => {
                self.arity(op, &terms, 1, Some(1), span)?;
                let t = self.bools(terms, &spans, op)?;
                Some(Term::App(op, t))
            }
            Op::And | Op::Or => {
                let t = self.bools(terms, &spans, op)?;
                Some(match t.len() {
                    0 => Term::Bool(op == Op::And),
                    1 => t.into_iter().next().expect("one"),
                    _ => Term::App(op, t),
                })
            }
            Op::Xor | Op::Implies => {
                self.arity(op, &terms, 2, None, span)?;
                let t = self.bools(terms, &spans, op)?;
                Some(Term::App(op, t))
            }
            Op::Eq | Op::Distinct => {
                self.arity(op, &terms, 2, None, span)?;
                let t = self.same_sort(terms, &spans, op)?;
                Some(Term::App(op, t))
            }
            Op::Ite => self.ite_app(op, terms, &spans, span),
            Op::Add | Op::Mul => self.add_mul_app(op, terms, &spans, span),
            Op::Sub | Op::Neg => self.sub_app(terms, &spans, span),
            Op::Div => self.div_app(op, terms, &spans, span),
            Op::IntDiv | Op::Mod => self.int_div_app(op, terms, &spans, span),
            Op::Abs => {
                self.arity(op, &terms, 1, Some(1), span)?;
                let t = self.numeric(terms, &spans, op)?;
                Some(Term::App(op, t))
            }
            Op::ToReal => self.real_of_int_app(op, terms, &spans, span),
            Op::ToInt | Op::IsInt => {
                let a = self.single(op, terms, span)?;
                let a = self.expect(
                    a,
                    &Sort::Real,
                    spans[0],
                    &format!("the argument of `{}`", op.name()),
                )?;
                Some(Term::App(op, vec![a]))
            }
            Op::Le | Op::Lt | Op::Ge | Op::Gt => {
                self.arity(op, &terms, 2, None, span)?;
                let t = self.numeric(terms, &spans, op)?;
                Some(Term::App(op, t))
            }
        }
    }

    /// `ite`: a Boolean condition and two branches of one sort.
    fn ite_app(&mut self, op: Op, terms: Vec<Term>, spans: &[Span], span: Span) -> Option<Term> {
        self.arity(op, &terms, 3, Some(3), span)?;
        let mut it = terms.into_iter();
        let c = it.next().expect("3");
        let c = self.expect(c, &Sort::Bool, spans[0], "the condition of `ite`")?;
        let branches = self.same_sort(it.collect(), &spans[1..], op)?;
        let mut v = vec![c];
        v.extend(branches);
        Some(Term::App(op, v))
    }

    /// `+` and `*` over numbers (`*` linear where the logic is); one argument is itself.
    fn add_mul_app(
        &mut self,
        op: Op,
        terms: Vec<Term>,
        spans: &[Span],
        span: Span,
    ) -> Option<Term> {
        if terms.len() == 1 {
            let t = self.numeric(terms, spans, op)?;
            return t.into_iter().next();
        }
        self.arity(op, &terms, 2, None, span)?;
        let t = self.numeric(terms, spans, op)?;
        if op == Op::Mul {
            self.check_linear_mul(&t, span)?;
        }
        Some(Term::App(op, t))
    }

    /// `-`: a difference, or a negation (of a literal, the negative literal).
    fn sub_app(&mut self, terms: Vec<Term>, spans: &[Span], span: Span) -> Option<Term> {
        self.arity(Op::Sub, &terms, 1, None, span)?;
        let t = self.numeric(terms, spans, Op::Sub)?;
        if t.len() == 1 {
            let a = t.into_iter().next().expect("one");
            return Some(match a {
                Term::Int(i) if i.is_positive() => Term::Int(-i),
                Term::Real(r) if r.is_positive() => Term::Real(-r),
                a => Term::App(Op::Neg, vec![a]),
            });
        }
        Some(Term::App(Op::Sub, t))
    }

    /// `/` over reals: a literal for two literals, by a constant where the logic is linear.
    fn div_app(&mut self, op: Op, terms: Vec<Term>, spans: &[Span], span: Span) -> Option<Term> {
        self.arity(op, &terms, 2, None, span)?;
        let t = self.each_of_sort(terms, spans, &Sort::Real, "an argument of `/`")?;
        // A quotient of two literals is a literal (this is how models print rationals).
        if let [Term::Real(a), Term::Real(b)] = t.as_slice() {
            if let Some(q) = crate::num::div(a, b) {
                return Some(Term::Real(q));
            }
        }
        self.linear_quotient(op, t, span, "division by a non-constant")
    }

    /// Each of `terms` coerced to `sort` ([`Self::expect`], `what` they are), or `None`
    /// at the first that cannot be.
    fn each_of_sort(
        &mut self,
        terms: Vec<Term>,
        spans: &[Span],
        sort: &Sort,
        what: &str,
    ) -> Option<Vec<Term>> {
        let mut t = Vec::with_capacity(terms.len());
        for (x, s) in terms.into_iter().zip(spans) {
            t.push(self.expect(x, sort, *s, what)?);
        }
        Some(t)
    }

    /// The quotient `op` of `t`, when the logic is not linear or every divisor is a
    /// constant; else reports `what` is nonlinear.
    fn linear_quotient(&mut self, op: Op, t: Vec<Term>, span: Span, what: &str) -> Option<Term> {
        if self.ctx.arithmetic() == Arithmetic::Linear && !t[1..].iter().all(is_constant) {
            self.nonlinear(span, what);
            return None;
        }
        Some(Term::App(op, t))
    }

    /// `div` and `mod` over integers, by a constant where the logic is linear.
    fn int_div_app(
        &mut self,
        op: Op,
        terms: Vec<Term>,
        spans: &[Span],
        span: Span,
    ) -> Option<Term> {
        let max = if op == Op::Mod { Some(2) } else { None };
        self.arity(op, &terms, 2, max, span)?;
        let what = format!("an argument of `{}`", op.name());
        let t = self.each_of_sort(terms, spans, &Sort::Int, &what)?;
        self.linear_quotient(op, t, span, &format!("`{}` by a non-constant", op.name()))
    }

    /// `to_real`: an integer made real (a real stands for itself).
    fn real_of_int_app(
        &mut self,
        op: Op,
        terms: Vec<Term>,
        spans: &[Span],
        span: Span,
    ) -> Option<Term> {
        let a = self.single(op, terms, span)?;
        match a.sort() {
            Sort::Int => Some(Term::App(op, vec![a])),
            Sort::Real => Some(a),
            s => {
                self.err(
                    spans[0],
                    format!("sort mismatch: `to_real` needs an Int, found {s}"),
                );
                None
            }
        }
    }

    fn nonlinear(&mut self, span: Span, what: &str) {
        let logic = self.ctx.logic().unwrap_or("?").to_string();
        self.err_hint(
            span,
            format!("non-linear arithmetic ({what}) in the linear logic {logic}"),
            "keep one factor constant, or set a non-linear logic such as QF_NIA/QF_NRA",
        );
    }

    fn check_linear_mul(&mut self, t: &[Term], span: Span) -> Option<()> {
        if self.ctx.arithmetic() == Arithmetic::Linear {
            let vars = t.iter().filter(|x| !self.is_const_here(x)).count();
            if vars > 1 {
                self.nonlinear(span, "a product of non-constant terms");
                return None;
            }
        }
        Some(())
    }

    fn is_const_here(&self, t: &Term) -> bool {
        t.free_vars().iter().all(|(n, _)| {
            self.locals.get(n).map(|l| l.constant).unwrap_or_else(|| {
                self.ctx
                    .fun(n)
                    .is_some_and(|f| f.params.is_empty() && is_constant(&f.body))
            })
        })
    }

    fn bools(&mut self, terms: Vec<Term>, spans: &[Span], op: Op) -> Option<Vec<Term>> {
        let what = format!("an argument of `{}`", op.name());
        every(terms.into_iter().zip(spans), |(t, s)| {
            self.expect(t, &Sort::Bool, *s, &what)
        })
    }

    fn numeric(&mut self, terms: Vec<Term>, spans: &[Span], op: Op) -> Option<Vec<Term>> {
        let mut ok = true;
        for (t, s) in terms.iter().zip(spans) {
            let so = t.sort();
            if !so.is_numeric() {
                self.err_hint(
                    *s,
                    format!(
                        "sort mismatch: an argument of `{}` must be Int or Real, found {so}",
                        op.name()
                    ),
                    if so == Sort::Bool {
                        "use (ite c 1 0) to count a condition".to_string()
                    } else {
                        "arithmetic needs numbers".to_string()
                    },
                );
                ok = false;
            }
        }
        if !ok {
            return None;
        }
        let real = terms.iter().any(|t| t.sort() == Sort::Real);
        Some(if real {
            terms.into_iter().map(to_real).collect()
        } else {
            terms
        })
    }

    fn same_sort(&mut self, terms: Vec<Term>, spans: &[Span], op: Op) -> Option<Vec<Term>> {
        let sorts: Vec<Sort> = terms.iter().map(Term::sort).collect();
        if sorts.iter().all(Sort::is_numeric) {
            return self.numeric(terms, spans, op);
        }
        let first = sorts[0].clone();
        for (s, sp) in sorts.iter().zip(spans).skip(1) {
            if *s != first {
                self.err_hint(
                    *sp,
                    format!("sort mismatch: the arguments of `{}` must have one sort; the first is {first}, this is {s}", op.name()),
                    "compare terms of the same sort",
                );
                return None;
            }
        }
        Some(terms)
    }

    fn let_term(&mut self, args: &[Sexp], span: Span) -> Option<Term> {
        let (Some(binds), Some(body), 2) = (
            args.first().and_then(Sexp::as_list),
            args.get(1),
            args.len(),
        ) else {
            self.err_hint(span, "malformed `let`", "write (let ((x t) ...) body)");
            return None;
        };
        if binds.is_empty() {
            self.err_hint(
                span,
                "`let` needs at least one binding",
                "write (let ((x t) ...) body)",
            );
            return None;
        }
        let mut out: Vec<(Symbol, Term)> = Vec::with_capacity(binds.len());
        let mut locals = Vec::with_capacity(binds.len());
        let mut seen = HashSet::new();
        let mut ok = true;
        for b in binds {
            match b.as_list() {
                Some([n, v]) if n.as_symbol().is_some() => {
                    let name = n.as_symbol().expect("symbol");
                    if !seen.insert(name) {
                        self.err(n.span, format!("`{name}` is bound twice in one `let`"));
                        ok = false;
                        continue;
                    }
                    if let Some(why) = reserved(name) {
                        self.err(n.span, why);
                        ok = false;
                        continue;
                    }
                    match self.term(v) {
                        Some(t) => {
                            let constant = self.is_const_here(&t);
                            locals.push(Local {
                                name: sym(name),
                                sort: t.sort(),
                                constant,
                            });
                            out.push((sym(name), t));
                        }
                        None => ok = false,
                    }
                }
                _ => {
                    self.err_hint(b.span, "malformed `let` binding", "write (name term)");
                    ok = false;
                }
            }
        }
        if !ok {
            return None;
        }
        let n = self.locals.len();
        for l in locals {
            self.locals.push(l.name.clone(), l);
        }
        let body = self.term(body);
        self.locals.truncate(n);
        Some(Term::Let(out, Box::new(body?)))
    }

    fn annotated(&mut self, args: &[Sexp], span: Span) -> Option<Term> {
        let Some(body) = args.first() else {
            self.err_hint(span, "malformed `!`", "write (! term :named name)");
            return None;
        };
        let t = self.term(body)?;
        let mut name = None;
        let mut i = 1;
        while i < args.len() {
            match (&args[i].kind, args.get(i + 1).and_then(Sexp::as_symbol)) {
                (SexpKind::Keyword(k), Some(n)) if k == "named" => {
                    name = Some(sym(n));
                    i += 2;
                }
                (SexpKind::Keyword(k), _) => {
                    self.err_hint(
                        args[i].span,
                        format!("attribute `:{k}` is not supported"),
                        "vera accepts only :named",
                    );
                    return None;
                }
                _ => {
                    self.err(args[i].span, "expected an attribute such as :named");
                    return None;
                }
            }
        }
        match name {
            Some(n) => Some(Term::Named(Box::new(t), n)),
            None => Some(t),
        }
    }

    // ---------------------------------------------------------------- commands

    fn new_name(&mut self, e: &Sexp) -> Option<Symbol> {
        let Some(n) = e.as_symbol() else {
            self.err(e.span, format!("expected a name, found `{e}`"));
            return None;
        };
        if let Some(why) = self.ctx.check_new_name(n) {
            self.err(e.span, why);
            return None;
        }
        Some(sym(n))
    }

    fn keyword(&mut self, e: Option<&Sexp>, span: Span, cmd: &str) -> Option<String> {
        match e.map(|e| &e.kind) {
            Some(SexpKind::Keyword(k)) => Some(k.clone()),
            _ => {
                self.err_hint(
                    span,
                    format!("`{cmd}` needs a keyword"),
                    format!("e.g. ({cmd} :status)"),
                );
                None
            }
        }
    }

    /// Elaborates a command and applies its declarations to the context.
    pub fn command(&mut self, e: &Sexp) -> Option<Command> {
        let Some(items) = e.as_list() else {
            self.err_hint(
                e.span,
                format!("expected a command, found `{e}`"),
                "commands are lists such as (assert ...)",
            );
            return None;
        };
        let Some(head) = items.first().and_then(Sexp::as_symbol) else {
            self.err(e.span, "expected a command name");
            return None;
        };
        let args = &items[1..];
        let span = e.span;
        let c = Cmd { head, args, span };
        match head {
            "set-logic" => self.set_logic(&c),
            "set-info" | "set-option" => self.set_info(&c),
            "get-info" | "get-option" => {
                let k = self.keyword(args.first(), span, head)?;
                Some(if head == "get-info" {
                    Command::GetInfo(k)
                } else {
                    Command::GetOption(k)
                })
            }
            "declare-const" => {
                if !self.nargs(&c, 2) {
                    return None;
                }
                self.declare_const(&args[0], &args[1])
            }
            "declare-fun" => self.declare_fun(&c),
            "define-fun" => self.define_fun(args, span),
            "declare-datatype" => {
                if !self.nargs(&c, 2) {
                    return None;
                }
                self.enum_decl(&args[0], &args[1], span)
            }
            "declare-datatypes" => self.declare_datatypes(args, span),
            "assert" => {
                if !self.nargs(&c, 1) {
                    return None;
                }
                let t = self.term(&args[0])?;
                let t = self.expect(t, &Sort::Bool, args[0].span, "an assertion")?;
                Some(Command::Assert(t))
            }
            "check-sat" => self.nargs(&c, 0).then_some(Command::CheckSat),
            "check-sat-assuming" => self.check_sat_assuming(&c),
            "push" | "pop" => self.push_pop(&c),
            "get-model" => self.nargs(&c, 0).then_some(Command::GetModel),
            "get-value" => {
                if !self.nargs(&c, 1) {
                    return None;
                }
                let Some(ts) = args[0].as_list() else {
                    self.err(args[0].span, "expected a list of terms");
                    return None;
                };
                Some(Command::GetValue(self.terms(ts)?))
            }
            "get-unsat-core" => self.nargs(&c, 0).then_some(Command::GetUnsatCore),
            "get-unsat-assumptions" => self.nargs(&c, 0).then_some(Command::GetUnsatAssumptions),
            "get-assertions" => self.nargs(&c, 0).then_some(Command::GetAssertions),
            "echo" => match args {
                [Sexp {
                    kind: SexpKind::Str(s),
                    ..
                }] => Some(Command::Echo(s.clone())),
                _ => {
                    self.err(span, "`echo` takes one string");
                    None
                }
            },
            "reset" => self.nargs(&c, 0).then(|| {
                self.ctx = Context::new();
                Command::Reset
            }),
            "reset-assertions" => self.nargs(&c, 0).then(|| {
                self.ctx.reset_assertions();
                Command::ResetAssertions
            }),
            "exit" => self.nargs(&c, 0).then_some(Command::Exit),
            "declare-sort"
            | "define-sort"
            | "define-fun-rec"
            | "define-funs-rec"
            | "get-proof"
            | "get-assignment"
            | "declare-datatypes-rec"
            | "check-sat-using"
            | "simplify"
            | "eval" => {
                self.err_hint(
                    items[0].span,
                    format!("command `{head}` is not supported"),
                    "vera handles declarations, definitions, assertions and checks",
                );
                None
            }
            _ => {
                self.err(items[0].span, format!("unknown command `{head}`"));
                None
            }
        }
    }

    /// True when command `c` has `n` arguments; else reports it.
    fn nargs(&mut self, c: &Cmd, n: usize) -> bool {
        if c.args.len() != n {
            self.err(
                c.span,
                format!("`{}` takes {n} argument(s), given {}", c.head, c.args.len()),
            );
            false
        } else {
            true
        }
    }

    /// `(set-logic L)`.
    fn set_logic(&mut self, c: &Cmd) -> Option<Command> {
        if !self.nargs(c, 1) {
            return None;
        }
        let Some(l) = c.args[0].as_symbol() else {
            self.err(c.args[0].span, "expected a logic name such as QF_LIA");
            return None;
        };
        self.ctx.set_logic(l);
        Some(Command::SetLogic(l.to_string()))
    }

    /// `(set-info :k v)` and `(set-option :k v)`; `:global-declarations` applies to the
    /// context.
    fn set_info(&mut self, c: &Cmd) -> Option<Command> {
        let (head, args, span) = (c.head, c.args, c.span);
        let k = self.keyword(args.first(), span, head)?;
        if args.len() > 2 {
            self.err(
                span,
                format!("`{head}` takes a keyword and at most one value"),
            );
            return None;
        }
        let v = args.get(1).cloned();
        if head == "set-option" && k == "global-declarations" {
            match v.as_ref().and_then(Sexp::as_symbol) {
                Some("true") => self.ctx.set_global_declarations(true),
                Some("false") => self.ctx.set_global_declarations(false),
                _ => {
                    self.err(span, "`:global-declarations` takes true or false");
                    return None;
                }
            }
        }
        Some(if head == "set-info" {
            Command::SetInfo(k, v)
        } else {
            Command::SetOption(k, v)
        })
    }

    /// Declares the constant `name` of sort `sort` (both reported when wrong).
    fn declare_const(&mut self, name: &Sexp, sort: &Sexp) -> Option<Command> {
        let s = self.sort(sort);
        let n = self.new_name(name);
        let (n, s) = (n?, s?);
        self.ctx.declare_const(n.clone(), s.clone());
        Some(Command::DeclareConst(n, s))
    }

    /// `(declare-fun f () S)`: a constant (functions with arguments are not supported).
    fn declare_fun(&mut self, c: &Cmd) -> Option<Command> {
        if !self.nargs(c, 3) {
            return None;
        }
        let args = c.args;
        match args[1].as_list() {
            Some([]) => {}
            Some(_) => {
                self.err_hint(
                    args[1].span,
                    "uninterpreted functions with arguments are not supported",
                    "declare constants, or use define-fun for a function with a body",
                );
                return None;
            }
            None => {
                self.err(args[1].span, "expected the argument sorts, e.g. ()");
                return None;
            }
        }
        self.declare_const(&args[0], &args[2])
    }

    /// `(check-sat-assuming (l ...))`: every literal Boolean.
    fn check_sat_assuming(&mut self, c: &Cmd) -> Option<Command> {
        if !self.nargs(c, 1) {
            return None;
        }
        let Some(lits) = c.args[0].as_list() else {
            self.err(c.args[0].span, "expected a list of literals");
            return None;
        };
        let ts = self.terms(lits)?;
        let mut out = Vec::new();
        for (t, l) in ts.into_iter().zip(lits) {
            out.push(self.expect(t, &Sort::Bool, l.span, "an assumption")?);
        }
        Some(Command::CheckSatAssuming(out))
    }

    /// `(push n)` and `(pop n)` (n is 1 when left out), within the bound on open
    /// scopes.
    fn push_pop(&mut self, c: &Cmd) -> Option<Command> {
        let (head, span) = (c.head, c.span);
        let (n, at) = match c.args {
            [] => (BigUint::from(1u32), span),
            [a] => match &a.kind {
                SexpKind::Numeral(n) => (n.clone(), a.span),
                _ => {
                    self.err(a.span, "expected a numeral");
                    return None;
                }
            },
            _ => {
                self.err(span, format!("`{head}` takes at most one numeral"));
                return None;
            }
        };
        let depth = self.ctx.depth();
        let n = match u32::try_from(&n) {
            Ok(n) if head == "push" && (n as usize) <= MAX_SCOPES - depth => n,
            Ok(n) if head == "pop" && (n as usize) <= depth => n,
            _ if head == "push" => {
                self.err_hint(
                    at,
                    format!(
                        "`push {n}` with {depth} scope(s) open exceeds the limit of {MAX_SCOPES} open scopes"
                    ),
                    "vera bounds the assertion stack; push fewer scopes",
                );
                return None;
            }
            _ => {
                self.err(span, format!("`pop {n}` with only {depth} scope(s) open"));
                return None;
            }
        };
        if head == "push" {
            if let Err(e) = self.ctx.push(n as usize) {
                self.err(at, e.to_string());
                return None;
            }
            Some(Command::Push(n))
        } else {
            self.ctx.pop(n as usize);
            Some(Command::Pop(n))
        }
    }

    fn define_fun(&mut self, args: &[Sexp], span: Span) -> Option<Command> {
        if args.len() != 4 {
            self.err_hint(
                span,
                "malformed `define-fun`",
                "write (define-fun f ((x Int)) Int body)",
            );
            return None;
        }
        let Some(params) = args[1].as_list() else {
            self.err(args[1].span, "expected a parameter list such as ((x Int))");
            return None;
        };
        let name = self.new_name(&args[0]);
        let mut ps: Vec<Local> = Vec::new();
        let mut seen = HashSet::new();
        let mut ok = true;
        for p in params {
            match p.as_list() {
                Some([n, s]) if n.as_symbol().is_some() => {
                    let pn = n.as_symbol().expect("symbol");
                    if !seen.insert(pn) {
                        self.err(n.span, format!("parameter `{pn}` is declared twice"));
                        ok = false;
                    }
                    if let Some(why) = reserved(pn) {
                        self.err(n.span, why);
                        ok = false;
                    }
                    match self.sort(s) {
                        Some(sort) => ps.push(Local {
                            name: sym(pn),
                            sort,
                            constant: false,
                        }),
                        None => ok = false,
                    }
                }
                _ => {
                    self.err_hint(p.span, "malformed parameter", "write (name Sort)");
                    ok = false;
                }
            }
        }
        let sort = self.sort(&args[2]);
        let scope = ps.iter().map(|l| (l.name.clone(), l.clone())).collect();
        let saved = std::mem::replace(&mut self.locals, scope);
        let body = self.term(&args[3]);
        self.locals = saved;
        let (name, sort, body) = (name?, sort?, body?);
        if !ok {
            return None;
        }
        let body = self.expect(body, &sort, args[3].span, &format!("the body of `{name}`"))?;
        let def = FunDef {
            name,
            params: ps.into_iter().map(|l| (l.name, l.sort)).collect(),
            sort,
            body,
        };
        self.ctx.define(def.clone());
        Some(Command::DefineFun(Arc::new(def)))
    }

    fn enum_decl(&mut self, name: &Sexp, ctors: &Sexp, span: Span) -> Option<Command> {
        if !self.ctx.allows_datatypes() {
            self.err_hint(
                span,
                format!(
                    "datatypes are not part of the logic {}",
                    self.ctx.logic().unwrap_or("")
                ),
                "use a logic with DT (e.g. QF_DTLIA) or ALL",
            );
            return None;
        }
        let n = self.new_name(name)?;
        let Some(cs) = ctors.as_list() else {
            self.err(
                ctors.span,
                "expected a list of constructors such as ((Red) (Green))",
            );
            return None;
        };
        if cs.is_empty() {
            self.err(ctors.span, "an enumeration needs at least one constructor");
            return None;
        }
        let mut out: Vec<Symbol> = Vec::new();
        let mut seen = HashSet::new();
        for c in cs {
            let cname = match (c.as_symbol(), c.as_list()) {
                (Some(s), _) => Some((s, c)),
                (_, Some([only])) if only.as_symbol().is_some() => {
                    Some((only.as_symbol().expect("sym"), only))
                }
                (_, Some(l)) if l.len() > 1 => {
                    self.err_hint(
                        c.span,
                        "constructors with fields are not supported",
                        "vera handles enumerations: every constructor nullary",
                    );
                    return None;
                }
                _ => None,
            };
            let Some((s, at)) = cname else {
                self.err(c.span, "expected a constructor such as (Red)");
                return None;
            };
            if !seen.insert(s) || &*n == s {
                self.err(at.span, format!("`{s}` is declared twice"));
                return None;
            }
            if let Some(why) = self.ctx.check_new_name(s) {
                self.err(at.span, why);
                return None;
            }
            out.push(sym(s));
        }
        self.ctx.declare_enum(n.clone(), out.clone());
        Some(Command::DeclareEnum(n, out))
    }

    fn declare_datatypes(&mut self, args: &[Sexp], span: Span) -> Option<Command> {
        // (declare-datatypes ((E 0)) (((A) (B)))) — only one sort at a time, arity 0.
        let (Some([decl]), Some([body])) = (
            args.first().and_then(Sexp::as_list),
            args.get(1).and_then(Sexp::as_list),
        ) else {
            self.err_hint(
                span,
                "only one enumeration per `declare-datatypes` is supported",
                "write (declare-datatype E ((A) (B)))",
            );
            return None;
        };
        match decl.as_list() {
            Some([n, arity]) if matches!(&arity.kind, SexpKind::Numeral(a) if a.is_zero()) => {
                self.enum_decl(n, body, span)
            }
            _ => {
                self.err(decl.span, "expected a sort declaration such as (E 0)");
                None
            }
        }
    }
}

fn reserved(name: &str) -> Option<String> {
    if crate::context::RESERVED.contains(&name) || Op::from_name(name).is_some() {
        Some(format!("`{name}` is a reserved word of SMT-LIB"))
    } else {
        None
    }
}

fn example(op: Op) -> &'static str {
    match op {
        Op::Not => "(not p)",
        Op::Ite => "(ite c a b)",
        Op::Mod => "(mod x 2)",
        Op::Abs | Op::ToReal | Op::ToInt | Op::IsInt | Op::Neg => "(abs x)",
        Op::Sub => "(- x 1)",
        _ => "(op a b)",
    }
}

/// Converts an Int term to Real: a literal becomes a real literal, anything else is wrapped.
pub fn to_real(t: Term) -> Term {
    match t {
        Term::Int(i) => Term::Real(BigRational::from_integer(i)),
        t if t.sort() == Sort::Int => Term::App(Op::ToReal, vec![t]),
        t => t,
    }
}

/// The exact value of a decimal such as `0.145`, reduced.
///
/// The reader only produces `digits.digits`; any other text gives zero (use
/// [`try_parse_decimal`] to tell). Fast on literals of any length.
pub fn parse_decimal(d: &str) -> BigRational {
    try_parse_decimal(d).unwrap_or_else(|| BigRational::from_integer(BigInt::zero()))
}

/// The exact value of `digits` or `digits.digits`, reduced; `None` for other text.
pub fn try_parse_decimal(d: &str) -> Option<BigRational> {
    crate::num::decimal_value(d)
}

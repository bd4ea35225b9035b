//! One side of a consistency check (the documented rule or the implementation),
//! loaded from SMT-LIB or BL and moved into its own namespace.
//!
//! # Functions defined by a quantified equation
//!
//! SIRNA's small cases define functions as
//! `(declare-fun f (Real Real) Real)` + `(assert (forall ((x Real) (y Real)) (= (f x y) body)))`.
//! `logic` is quantifier free, so this module recognises exactly that pattern — a
//! `forall` whose body is `(= (f v1 .. vn) body)` (either way round) where `v1 .. vn`
//! are the distinct bound variables and `f` does not occur in `body` — and turns it
//! into `(define-fun f ((v1 S1) .. (vn Sn)) S body)`, which means the same. The
//! definitions are placed, in dependency order, where the first of those assertions
//! was. Any other quantifier is reported as unsupported, and a `declare-fun` with
//! arguments that gets no such definition is reported as a function used but not
//! defined.

use crate::ast::{Binding, Program};
use crate::diag::Diagnostics;
use logic::context::Entry;
use logic::elab::Elaborator;
use logic::sexp::{self, Sexp, SexpKind};
use logic::{Command, Context, Diagnostic, Sort, SourceFile, Symbol, Term};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

/// Which side of the check.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum SideLabel {
    /// The documentation's formalization (A).
    Nl,
    /// The implementation (B).
    Bl,
}

impl SideLabel {
    /// The namespace prefix of the side's symbols.
    pub fn prefix(self) -> &'static str {
        match self {
            SideLabel::Nl => "nl.",
            SideLabel::Bl => "bl.",
        }
    }

    /// The prefix of the second copy used by the functionality check.
    pub(crate) fn copy_prefix(self) -> &'static str {
        match self {
            SideLabel::Nl => "nl2.",
            SideLabel::Bl => "bl2.",
        }
    }

    /// `NL` or `BL`, for messages.
    pub fn upper(self) -> &'static str {
        match self {
            SideLabel::Nl => "NL",
            SideLabel::Bl => "BL",
        }
    }
}

/// Splits an optional `nl.` / `bl.` qualifier.
pub fn qualified(name: &str) -> (Option<SideLabel>, &str) {
    if let Some(r) = name.strip_prefix("nl.") {
        (Some(SideLabel::Nl), r)
    } else if let Some(r) = name.strip_prefix("bl.") {
        (Some(SideLabel::Bl), r)
    } else {
        (None, name)
    }
}

/// Moves a name into the namespace of side `label` (`x` becomes `nl.x`).
pub fn prefixed(label: SideLabel) -> impl Fn(&str) -> Symbol {
    move |n: &str| Arc::from(format!("{}{n}", label.prefix()).as_str())
}

/// Which sides have `name` (perhaps qualified) as an output candidate: a constant or
/// a function.
pub fn output_sides(name: &str, nl: &Side, bl: &Side) -> Vec<SideLabel> {
    let (q, n) = qualified(name);
    let mut v = Vec::new();
    for (l, s) in [(SideLabel::Nl, nl), (SideLabel::Bl, bl)] {
        if q.is_none_or(|q| q == l) && (s.has_const(n) || s.has_function(n)) {
            v.push(l);
        }
    }
    v
}

/// A side as loaded, with its own (unprefixed) names.
#[derive(Debug, Clone)]
pub struct Side {
    /// Which side.
    pub label: SideLabel,
    /// Declarations, definitions and assertions in order, with the side's own names.
    pub commands: Vec<Command>,
    /// The symbol table after the commands.
    pub context: Context,
    /// The program, when the side is BL (used to replay counterexamples).
    pub program: Option<Program>,
    /// Constants that some assertion defines (`(= x ...)` in a constraint position).
    pub defined: HashSet<String>,
    /// Functions declared with arguments but never defined.
    pub undefined_functions: Vec<String>,
}

impl Side {
    /// Loads an SMT-LIB formalization.
    pub fn from_smt(label: SideLabel, file: &SourceFile) -> Result<Side, Diagnostics> {
        // As deep as a BL program may nest: a rate table's `ite` chain has one level
        // per row (the check runs on a large stack, see `check_consistency`).
        let read = sexp::read(
            file.text(),
            sexp::ReadLimits {
                max_depth: crate::parse::MAX_DEPTH,
            },
        );
        let mut diags = read.errors;
        let (items, undefined, mut more) = rewrite_quantified_definitions(&read.items);
        diags.append(&mut more);
        let mut el = Elaborator::new(Context::new());
        let mut commands = Vec::new();
        for item in &items {
            if let Some(c) = el.command(item) {
                match c {
                    Command::DeclareConst(..) | Command::DefineFun(_) | Command::Assert(_) => {
                        commands.push(c)
                    }
                    Command::DeclareEnum(..) => diags.push(Diagnostic::error(
                        item.span,
                        "enumeration sorts are not supported in consistency checks",
                    )),
                    Command::Push(_)
                    | Command::Pop(_)
                    | Command::Reset
                    | Command::ResetAssertions => diags.push(
                        Diagnostic::error(
                            item.span,
                            format!("`{}` is not allowed in a formalization", c.name()),
                        )
                        .with_hint("a formalization is declarations, definitions and assertions"),
                    ),
                    _ => {}
                }
            }
        }
        diags.extend(el.take_diagnostics());
        let errors: Vec<Diagnostic> = diags
            .into_iter()
            .filter(|d| d.severity == logic::source::Severity::Error)
            .collect();
        if !errors.is_empty() {
            let mut errors = errors;
            errors.sort_by_key(|d| d.span.start);
            return Err(Diagnostics::locate(file, &errors));
        }
        let context = el.into_context();
        let mut defined = HashSet::new();
        for c in &commands {
            if let Command::Assert(t) = c {
                collect_defined(t, &mut defined);
            }
        }
        Ok(Side {
            label,
            commands,
            context,
            program: None,
            defined,
            undefined_functions: undefined,
        })
    }

    /// Loads a BL program.
    pub fn from_bl(label: SideLabel, program: Program) -> Side {
        let commands = crate::encode(&program);
        let mut context = Context::new();
        let mut defined = HashSet::new();
        for l in &program.lets {
            context.declare_const(Arc::from(l.name.as_str()), Sort::Real);
            if matches!(l.value, Binding::Expr(_)) {
                defined.insert(l.name.clone());
            }
        }
        Side {
            label,
            commands,
            context,
            program: Some(program),
            defined,
            undefined_functions: Vec::new(),
        }
    }

    /// Declared constants with their sorts, in declaration order.
    pub fn consts(&self) -> Vec<(String, Sort)> {
        self.context
            .consts()
            .map(|(n, s)| (n.to_string(), s.clone()))
            .collect()
    }

    /// Defined functions with arguments: name and parameter names.
    pub fn functions(&self) -> Vec<(String, Vec<String>)> {
        self.context
            .defs()
            .filter(|f| !f.params.is_empty())
            .map(|f| {
                (
                    f.name.to_string(),
                    f.params.iter().map(|(p, _)| p.to_string()).collect(),
                )
            })
            .collect()
    }

    /// True when `name` is a constant of this side.
    pub fn has_const(&self, name: &str) -> bool {
        matches!(self.context.get(name), Some(Entry::Const(_)))
    }

    /// True when `name` is a function of this side with parameters.
    pub fn has_function(&self, name: &str) -> bool {
        self.context.fun(name).is_some_and(|f| !f.params.is_empty())
    }

    /// The side's declarations and definitions, and its assertions, moved into its
    /// namespace ([`prefixed`]).
    pub fn renamed(&self) -> (Vec<Command>, Vec<Term>) {
        let f = prefixed(self.label);
        let decls = self
            .commands
            .iter()
            .filter(|c| !matches!(c, Command::Assert(_)))
            .map(|c| rename_command(c, &f))
            .collect();
        let asserts = self
            .commands
            .iter()
            .filter_map(|c| match c {
                Command::Assert(t) => Some(rename_term(t, &f)),
                _ => None,
            })
            .collect();
        (decls, asserts)
    }

    /// The sort of a constant, or of a function's result.
    pub fn sort_of(&self, name: &str) -> Option<Sort> {
        match self.context.get(name)? {
            Entry::Const(s) => Some(s.clone()),
            Entry::Fun(f) => Some(f.sort.clone()),
            _ => None,
        }
    }
}

/// Variables that are direct arguments of `=` in a constraint position: the assertion
/// itself, conjuncts, consequents of `=>`, branches of a Boolean `ite`.
fn collect_defined(t: &Term, out: &mut HashSet<String>) {
    let mut stack = vec![t];
    while let Some(t) = stack.pop() {
        if let Term::App(op, args) = t {
            match op {
                logic::Op::Eq => {
                    for a in args {
                        if let Term::Var(n, _) = a {
                            out.insert(n.to_string());
                        }
                    }
                }
                logic::Op::And => stack.extend(args.iter()),
                logic::Op::Implies => stack.extend(args.last()),
                logic::Op::Ite => stack.extend(args.iter().skip(1)),
                _ => {}
            }
        } else if let Term::Named(x, _) = t {
            stack.push(x);
        }
    }
}

/// A recognised quantified definition.
struct QDef {
    name: String,
    params: Vec<Sexp>,
    sort: Sexp,
    body: Sexp,
}

fn symbols_in(e: &Sexp, out: &mut HashSet<String>) {
    let mut stack = vec![e];
    while let Some(e) = stack.pop() {
        match &e.kind {
            SexpKind::Symbol(s) => {
                out.insert(s.clone());
            }
            SexpKind::List(items) => stack.extend(items.iter()),
            _ => {}
        }
    }
}

/// Recognises `(assert (forall (binders) (= (f v..) body)))` given the declared
/// functions; `None` when the assertion is not of that shape.
fn recognise(item: &Sexp, declared: &HashMap<String, (Vec<Sexp>, Sexp)>) -> Option<QDef> {
    let [head, q] = item.as_list()? else {
        return None;
    };
    if head.as_symbol()? != "assert" {
        return None;
    }
    let [fa, binders, body] = q.as_list()? else {
        return None;
    };
    if fa.as_symbol()? != "forall" {
        return None;
    }
    let binders = binders.as_list()?;
    let mut bsort: HashMap<&str, &Sexp> = HashMap::new();
    for b in binders {
        let [n, s] = b.as_list()? else { return None };
        bsort.insert(n.as_symbol()?, s);
    }
    let [eq, l, r] = body.as_list()? else {
        return None;
    };
    if eq.as_symbol()? != "=" {
        return None;
    }
    let try_side = |app: &Sexp, other: &Sexp| -> Option<QDef> {
        let items = app.as_list()?;
        let f = items.first()?.as_symbol()?;
        let (arg_sorts, result) = declared.get(f)?;
        let args = &items[1..];
        if args.len() != arg_sorts.len() || args.len() != binders.len() {
            return None;
        }
        let mut seen = HashSet::new();
        let mut params = Vec::new();
        for (a, s) in args.iter().zip(arg_sorts) {
            let n = a.as_symbol()?;
            let bs = bsort.get(n)?;
            if !seen.insert(n) || *bs != s {
                return None;
            }
            params.push(Sexp::list(vec![a.clone(), (*bs).clone()]));
        }
        let mut used = HashSet::new();
        symbols_in(other, &mut used);
        if used.contains(f) {
            return None;
        }
        Some(QDef {
            name: f.to_string(),
            params,
            sort: result.clone(),
            body: other.clone(),
        })
    };
    try_side(l, r).or_else(|| try_side(r, l))
}

/// Rewrites quantified definitions into `define-fun`s. Returns the new items, the
/// functions declared with arguments but left undefined, and diagnostics.
fn rewrite_quantified_definitions(items: &[Sexp]) -> (Vec<Sexp>, Vec<String>, Vec<Diagnostic>) {
    let mut declared: HashMap<String, (Vec<Sexp>, Sexp)> = HashMap::new();
    let mut decl_at: HashMap<String, usize> = HashMap::new();
    for (i, it) in items.iter().enumerate() {
        if it.head() == Some("declare-fun") {
            if let Some([_, n, args, s]) = it.as_list() {
                if let (Some(n), Some(a)) = (n.as_symbol(), args.as_list()) {
                    if !a.is_empty() {
                        declared.insert(n.to_string(), (a.to_vec(), s.clone()));
                        decl_at.insert(n.to_string(), i);
                    }
                }
            }
        }
    }
    let mut defs: Vec<(usize, QDef)> = Vec::new();
    let mut drop: HashSet<usize> = HashSet::new();
    for (i, it) in items.iter().enumerate() {
        if let Some(d) = recognise(it, &declared) {
            if defs.iter().any(|(_, x)| x.name == d.name) {
                continue; // a second definition stays an (unsupported) assertion
            }
            drop.insert(i);
            drop.insert(decl_at[&d.name]);
            defs.push((i, d));
        }
    }
    let mut diags = Vec::new();
    let undefined: Vec<String> = {
        let mut u: Vec<String> = declared
            .keys()
            .filter(|n| !defs.iter().any(|(_, d)| &d.name == *n))
            .cloned()
            .collect();
        u.sort();
        u
    };
    for n in &undefined {
        let span = items[decl_at[n]].span;
        diags.push(
            Diagnostic::error(span, format!("function `{n}` is used but not defined"))
                .with_hint("define it with define-fun, or with (assert (forall ((x S) ...) (= (f x ...) body)))"),
        );
        drop.insert(decl_at[n]);
    }
    // Dependency order among the definitions.
    let names: HashSet<String> = defs.iter().map(|(_, d)| d.name.clone()).collect();
    let mut ordered: Vec<Sexp> = Vec::new();
    let mut done: HashSet<String> = HashSet::new();
    let mut pending: Vec<&QDef> = defs.iter().map(|(_, d)| d).collect();
    while !pending.is_empty() {
        let before = pending.len();
        pending.retain(|d| {
            let mut used = HashSet::new();
            symbols_in(&d.body, &mut used);
            let ready = used.iter().all(|u| !names.contains(u) || done.contains(u));
            if ready {
                ordered.push(Sexp::list(vec![
                    Sexp::sym("define-fun"),
                    Sexp::sym(d.name.clone()),
                    Sexp::list(d.params.clone()),
                    d.sort.clone(),
                    d.body.clone(),
                ]));
                done.insert(d.name.clone());
            }
            !ready
        });
        if pending.len() == before {
            for d in &pending {
                diags.push(Diagnostic::error(
                    d.body.span,
                    format!("the definition of `{}` is circular", d.name),
                ));
            }
            break;
        }
    }
    let first = defs.iter().map(|(i, _)| *i).min();
    let mut out = Vec::new();
    for (i, it) in items.iter().enumerate() {
        if Some(i) == first {
            out.append(&mut ordered);
        }
        if !drop.contains(&i) {
            out.push(it.clone());
        }
    }
    (out, undefined, diags)
}

// ------------------------------------------------------------------ renaming

/// Renames every symbol of a term (constants, bound names, called functions).
pub fn rename_term(t: &Term, f: &dyn Fn(&str) -> Symbol) -> Term {
    stacker::maybe_grow(64 * 1024, 1024 * 1024, || match t {
        Term::Var(n, s) => Term::Var(f(n), s.clone()),
        Term::App(op, args) => Term::App(*op, args.iter().map(|a| rename_term(a, f)).collect()),
        Term::Call(n, args, s) => Term::Call(
            f(n),
            args.iter().map(|a| rename_term(a, f)).collect(),
            s.clone(),
        ),
        Term::Let(binds, body) => Term::Let(
            binds
                .iter()
                .map(|(n, x)| (f(n), rename_term(x, f)))
                .collect(),
            Box::new(rename_term(body, f)),
        ),
        Term::Named(x, n) => Term::Named(Box::new(rename_term(x, f)), n.clone()),
        other => other.clone(),
    })
}

/// Renames a command's symbols.
pub fn rename_command(c: &Command, f: &dyn Fn(&str) -> Symbol) -> Command {
    match c {
        Command::DeclareConst(n, s) => Command::DeclareConst(f(n), s.clone()),
        Command::DefineFun(d) => Command::DefineFun(Arc::new(logic::FunDef {
            name: f(&d.name),
            params: d.params.iter().map(|(p, s)| (f(p), s.clone())).collect(),
            sort: d.sort.clone(),
            body: rename_term(&d.body, f),
        })),
        Command::Assert(t) => Command::Assert(rename_term(t, f)),
        other => other.clone(),
    }
}

/// Replaces constants by terms.
pub fn substitute(t: &Term, map: &BTreeMap<Symbol, Term>) -> Term {
    stacker::maybe_grow(64 * 1024, 1024 * 1024, || match t {
        Term::Var(n, _) => map.get(n).cloned().unwrap_or_else(|| t.clone()),
        Term::App(op, args) => Term::App(*op, args.iter().map(|a| substitute(a, map)).collect()),
        Term::Call(n, args, s) => Term::Call(
            n.clone(),
            args.iter().map(|a| substitute(a, map)).collect(),
            s.clone(),
        ),
        Term::Let(binds, body) => {
            let mut inner = map.clone();
            for (n, _) in binds {
                inner.remove(n);
            }
            Term::Let(
                binds
                    .iter()
                    .map(|(n, x)| (n.clone(), substitute(x, map)))
                    .collect(),
                Box::new(substitute(body, &inner)),
            )
        }
        Term::Named(x, n) => Term::Named(Box::new(substitute(x, map)), n.clone()),
        other => other.clone(),
    })
}

/// Applies a context's defined functions until no call remains (for atoms and
/// readable region descriptions).
pub fn inline_calls(t: &Term, ctx: &Context) -> Term {
    stacker::maybe_grow(64 * 1024, 1024 * 1024, || match t {
        Term::Call(n, args, _) => {
            let args: Vec<Term> = args.iter().map(|a| inline_calls(a, ctx)).collect();
            match ctx.fun(n) {
                Some(d) => {
                    let map: BTreeMap<Symbol, Term> =
                        d.params.iter().map(|(p, _)| p.clone()).zip(args).collect();
                    inline_calls(&substitute(&d.body, &map), ctx)
                }
                None => Term::Call(n.clone(), args, t.sort()),
            }
        }
        Term::App(op, args) => Term::App(*op, args.iter().map(|a| inline_calls(a, ctx)).collect()),
        Term::Let(binds, body) => Term::Let(
            binds
                .iter()
                .map(|(n, x)| (n.clone(), inline_calls(x, ctx)))
                .collect(),
            Box::new(inline_calls(body, ctx)),
        ),
        Term::Named(x, n) => Term::Named(Box::new(inline_calls(x, ctx)), n.clone()),
        other => other.clone(),
    })
}

//! Unrolling: a timed spec as a plain spec over one copy of the state per step.
//!
//! Variable `x` becomes `x@0 .. x@k`. Each timed requirement gets a past-time monitor:
//! Boolean flags and saturating counters per step (`vera.<i>.<name>@<t>`), defined
//! from the step before by equalities that form one domain constraint per requirement
//! (`<id> (monitor)`). The requirement itself becomes "no violation at any step": the
//! conjunction of one small condition per step over that step's state and monitors. A
//! plain requirement (a `formula`) must hold at every step. Every piece is a fixed size
//! per step, so the encoding grows linearly with `k`.

use super::{Pattern, Scope, Timing, Trigger};
use crate::spec::{Constraint, Requirement, Shape, Spec, Variable};
use logic::{Context, Op, Sort, Symbol, Term};
use std::collections::HashSet;
use std::sync::Arc;

/// A timed spec unrolled to a horizon.
#[derive(Debug, Clone)]
pub struct Unrolled {
    /// The plain spec over `x@t`: same requirement ids, in the same order.
    pub spec: Spec,
    /// The last step: the trace is `s0 .. s_k`.
    pub k: usize,
    /// The schema's variables (the state at one step).
    pub state: Vec<(Symbol, Sort)>,
    /// Monitor variables per step, with their definitions, in evaluation order.
    pub monitors: Vec<Vec<(Symbol, Sort, Term)>>,
    /// Ids of the domain constraints that only define monitors.
    pub monitor_ids: HashSet<String>,
    /// Per requirement: the term "it fires at step t", per step.
    pub fires: Vec<Vec<Term>>,
    /// Per requirement: the term "no violation at step t", per step (empty for
    /// requirements without a formula or pattern).
    pub ok: Vec<Vec<Term>>,
}

/// The name of variable `name` at step `t`.
pub fn var_at(name: &str, t: usize) -> Symbol {
    Arc::from(format!("{name}@{t}").as_str())
}

/// Splits `x@12` into `x` and 12.
pub fn split_name(s: &str) -> Option<(&str, usize)> {
    let (n, t) = s.rsplit_once('@')?;
    Some((n, t.parse().ok()?))
}

/// The term with every free variable `x` renamed to `x@t`.
pub fn at(term: &Term, t: usize) -> Term {
    rename(term, t, &mut Vec::new())
}

fn rename(term: &Term, t: usize, bound: &mut Vec<Symbol>) -> Term {
    match term {
        Term::Var(n, s) if !bound.contains(n) => Term::Var(var_at(n, t), s.clone()),
        Term::App(op, args) => Term::App(*op, args.iter().map(|a| rename(a, t, bound)).collect()),
        Term::Call(f, args, s) => Term::Call(
            f.clone(),
            args.iter().map(|a| rename(a, t, bound)).collect(),
            s.clone(),
        ),
        Term::Let(binds, body) => {
            let binds2 = binds
                .iter()
                .map(|(n, v)| (n.clone(), rename(v, t, bound)))
                .collect();
            let depth = bound.len();
            bound.extend(binds.iter().map(|(n, _)| n.clone()));
            let body2 = rename(body, t, bound);
            bound.truncate(depth);
            Term::Let(binds2, Box::new(body2))
        }
        Term::Named(inner, _) => rename(inner, t, bound),
        other => other.clone(),
    }
}

fn and(mut v: Vec<Term>) -> Term {
    v.retain(|t| *t != Term::Bool(true));
    match v.len() {
        0 => Term::Bool(true),
        1 => v.pop().expect("one"),
        _ => Term::App(Op::And, v),
    }
}

fn or(mut v: Vec<Term>) -> Term {
    v.retain(|t| *t != Term::Bool(false));
    match v.len() {
        0 => Term::Bool(false),
        1 => v.pop().expect("one"),
        _ => Term::App(Op::Or, v),
    }
}

fn implies(a: Term, b: Term) -> Term {
    match a {
        Term::Bool(false) => Term::Bool(true),
        Term::Bool(true) => b,
        a => Term::App(Op::Implies, vec![a, b]),
    }
}

fn not(a: Term) -> Term {
    match a {
        Term::Bool(b) => Term::Bool(!b),
        a => Term::not(a),
    }
}

fn int(i: i64) -> Term {
    Term::int(i)
}

fn ite(c: Term, a: Term, b: Term) -> Term {
    Term::App(Op::Ite, vec![c, a, b])
}

fn ge(a: Term, b: Term) -> Term {
    Term::App(Op::Ge, vec![a, b])
}

fn lt(a: Term, b: Term) -> Term {
    Term::App(Op::Lt, vec![a, b])
}

fn plus1(a: Term) -> Term {
    Term::App(Op::Add, vec![a, int(1)])
}

/// `min(a + 1, cap)`.
fn inc_sat(a: Term, cap: i64) -> Term {
    ite(lt(a.clone(), int(cap)), plus1(a), int(cap))
}

/// Builds the monitors of one requirement.
struct Monitor<'a> {
    index: usize,
    k: usize,
    defs: &'a mut Vec<Vec<(Symbol, Sort, Term)>>,
    conj: Vec<Term>,
    /// Leave the monitors at step 0 undefined (any value): the transition from an
    /// arbitrary state, for the rt-inconsistency check.
    free_first: Option<&'a mut Vec<(Symbol, Sort)>>,
}

impl Monitor<'_> {
    /// Declares monitor `name` at step `t` as `value`; returns the variable.
    fn def(&mut self, name: &str, t: usize, sort: Sort, value: Term) -> Term {
        let sym = var_at(&format!("vera.{}.{name}", self.index), t);
        let v = Term::Var(sym.clone(), sort.clone());
        if let (0, Some(free)) = (t, self.free_first.as_deref_mut()) {
            free.push((sym, sort));
            return v;
        }
        self.conj
            .push(Term::App(Op::Eq, vec![v.clone(), value.clone()]));
        self.defs[t].push((sym, sort, value));
        v
    }

    /// A monitor of `sort` over all steps: `first(0)`, then `step(t, previous)`.
    fn series(
        &mut self,
        name: &str,
        sort: Sort,
        first: impl Fn(usize) -> Term,
        step: impl Fn(usize, Term) -> Term,
    ) -> Vec<Term> {
        let mut out: Vec<Term> = Vec::with_capacity(self.k + 1);
        for t in 0..=self.k {
            let value = match out.last() {
                None => first(t),
                Some(prev) => step(t, prev.clone()),
            };
            let v = self.def(name, t, sort.clone(), value);
            out.push(v);
        }
        out
    }

    /// A Boolean monitor over all steps.
    fn flags(
        &mut self,
        name: &str,
        first: impl Fn(usize) -> Term,
        step: impl Fn(usize, Term) -> Term,
    ) -> Vec<Term> {
        self.series(name, Sort::Bool, first, step)
    }

    /// An Int monitor over all steps.
    fn counter(
        &mut self,
        name: &str,
        first: impl Fn(usize) -> Term,
        step: impl Fn(usize, Term) -> Term,
    ) -> Vec<Term> {
        self.series(name, Sort::Int, first, step)
    }
}

/// The per-step terms of one pattern: when it fires, and "no violation at step t".
fn compile(p: &Pattern, m: &mut Monitor) -> (Vec<Term>, Vec<Term>) {
    let scope = scope_terms(p, m);
    let trig = trigger_terms(p, m);
    let fires: Vec<Term> = scope
        .into_iter()
        .zip(trig)
        .map(|(s, g)| and(vec![s, g]))
        .collect();
    let ok = timing_terms(p, m, &fires);
    (fires, ok)
}

/// Per step, whether the pattern's scope holds (with the monitors it needs).
fn scope_terms(p: &Pattern, m: &mut Monitor) -> Vec<Term> {
    let k = m.k;
    let c = |f: &Term, t: usize| at(f, t);
    match &p.scope {
        Scope::Globally => vec![Term::Bool(true); k + 1],
        Scope::While(s) => (0..=k).map(|t| c(s, t)).collect(),
        Scope::After(e) => m.flags("seen", |t| c(e, t), |t, prev| or(vec![c(e, t), prev])),
        Scope::AfterUntil(e, f) => m.flags(
            "in",
            |t| and(vec![c(e, t), not(c(f, t))]),
            |t, prev| and(vec![or(vec![c(e, t), prev]), not(c(f, t))]),
        ),
        Scope::Before(f) => m.flags(
            "before",
            |t| not(c(f, t)),
            |t, prev| and(vec![not(c(f, t)), prev]),
        ),
    }
}

/// Per step, whether the pattern's trigger holds (with the monitors it needs).
fn trigger_terms(p: &Pattern, m: &mut Monitor) -> Vec<Term> {
    let k = m.k;
    let c = |f: &Term, t: usize| at(f, t);
    match &p.trigger {
        Trigger::Always => vec![Term::Bool(true); k + 1],
        Trigger::Level(x) | Trigger::HeldFor(x, 0) => (0..=k).map(|t| c(x, t)).collect(),
        Trigger::Edge(x) => (0..=k)
            .map(|t| {
                if t == 0 {
                    c(x, 0)
                } else {
                    and(vec![c(x, t), not(c(x, t - 1))])
                }
            })
            .collect(),
        Trigger::Initially => (0..=k).map(|t| Term::Bool(t == 0)).collect(),
        Trigger::HeldFor(x, d) => {
            let d = *d as i64;
            let h = m.counter(
                "held",
                |_| int(0),
                |t, prev| ite(and(vec![c(x, t), c(x, t - 1)]), inc_sat(prev, d), int(0)),
            );
            (0..=k)
                .map(|t| and(vec![c(x, t), ge(h[t].clone(), int(d))]))
                .collect()
        }
        Trigger::WithinLast(x, d) => {
            let d = *d as i64;
            let l = m.counter(
                "since",
                |t| ite(c(x, t), int(0), int(d + 1)),
                |t, prev| ite(c(x, t), int(0), inc_sat(prev, d + 1)),
            );
            (0..=k)
                .map(|t| Term::App(Op::Le, vec![l[t].clone(), int(d)]))
                .collect()
        }
    }
}

/// Per step, "no violation of the pattern's timing at step t", given when it `fires`
/// (with the monitors it needs).
fn timing_terms(p: &Pattern, m: &mut Monitor, fires: &[Term]) -> Vec<Term> {
    let k = m.k;
    let c = |f: &Term, t: usize| at(f, t);
    let r = |t: usize| c(&p.response, t);
    match &p.timing {
        Timing::Immediately | Timing::Within(0) | Timing::For(0) => {
            (0..=k).map(|t| implies(fires[t].clone(), r(t))).collect()
        }
        Timing::NotBefore(0) => vec![Term::Bool(true); k + 1],
        Timing::Next => {
            // "Fired at the step before" is monitor state, so that a state and its
            // monitors say everything the next step depends on.
            let fz = fires;
            let fired = m.flags("fired", |t| fz[t].clone(), |t, _| fz[t].clone());
            (0..=k)
                .map(|t| {
                    if t == 0 {
                        Term::Bool(true)
                    } else {
                        implies(fired[t - 1].clone(), r(t))
                    }
                })
                .collect()
        }
        Timing::Within(d) => {
            let d = *d as i64;
            let fz = fires;
            let w = m.counter(
                "wait",
                |t| ite(r(t), int(-1), ite(fz[t].clone(), int(0), int(-1))),
                |t, prev| {
                    ite(
                        r(t),
                        int(-1),
                        ite(
                            ge(prev.clone(), int(0)),
                            inc_sat(prev, d),
                            ite(fz[t].clone(), int(0), int(-1)),
                        ),
                    )
                },
            );
            w.into_iter().map(|x| lt(x, int(d))).collect()
        }
        Timing::For(d) | Timing::NotBefore(d) => {
            let (len, want): (i64, Box<dyn Fn(usize) -> Term>) = match &p.timing {
                Timing::For(_) => (*d as i64, Box::new(r)),
                _ => (*d as i64 - 1, Box::new(|t| not(r(t)))),
            };
            let fz = fires;
            let o = m.counter(
                "owed",
                |t| ite(fz[t].clone(), int(len), int(0)),
                |t, prev| {
                    // max(fires ? len : 0, prev - 1)
                    let dec = Term::App(Op::Sub, vec![prev, int(1)]);
                    let start = ite(fz[t].clone(), int(len), int(0));
                    ite(ge(start.clone(), dec.clone()), start, dec)
                },
            );
            (0..=k)
                .map(|t| {
                    let active = if t == 0 {
                        fires[0].clone()
                    } else {
                        or(vec![fires[t].clone(), ge(o[t - 1].clone(), int(1))])
                    };
                    implies(active, want(t))
                })
                .collect()
        }
        Timing::Until(x) => {
            let fz = fires;
            let a = m.flags(
                "until",
                |t| and(vec![fz[t].clone(), not(c(x, t))]),
                |t, prev| and(vec![or(vec![fz[t].clone(), prev]), not(c(x, t))]),
            );
            (0..=k).map(|t| implies(a[t].clone(), r(t))).collect()
        }
        Timing::Before(x) => {
            let fz = fires;
            let owed = m.flags(
                "owed",
                |t| and(vec![fz[t].clone(), not(r(t))]),
                |t, prev| and(vec![or(vec![prev, fz[t].clone()]), not(r(t))]),
            );
            (0..=k)
                .map(|t| {
                    if t == 0 {
                        Term::Bool(true)
                    } else {
                        not(and(vec![c(x, t), owed[t - 1].clone()]))
                    }
                })
                .collect()
        }
    }
}

/// The plain spec of a timed spec over steps `0 ..= k`.
///
/// A spec without a `[time]` table is unrolled too (its requirements must hold at
/// every step), which is only useful in tests.
pub fn unroll(spec: &Spec, k: usize) -> Unrolled {
    unroll_with(spec, k, None)
}

/// The transition from an arbitrary state: steps 0 and 1, with the monitors at step 0
/// left undefined (listed in `free`).
pub fn transition(spec: &Spec, free: &mut Vec<(Symbol, Sort)>) -> Unrolled {
    unroll_with(spec, 1, Some(free))
}

/// Steps `0 ..= k` from an arbitrary state: the monitors at step 0 left undefined
/// (declared as free variables), for k-induction.
pub fn unroll_from_any(spec: &Spec, k: usize) -> Unrolled {
    unroll_with(spec, k, Some(&mut Vec::new()))
}

/// The plain spec of `spec` over steps `0 ..= k`; with `free`, the monitors at step 0
/// are left undefined and listed there.
fn unroll_with(spec: &Spec, k: usize, free: Option<&mut Vec<(Symbol, Sort)>>) -> Unrolled {
    let state: Vec<(Symbol, Sort)> = spec
        .variables
        .iter()
        .map(|v| (v.name.clone(), v.sort.clone()))
        .collect();
    let mut ctx = Context::new();
    let mut variables = declare_steps(spec, k, &mut ctx);
    let mut u = Unrolling {
        k,
        free,
        domain: domain_at_steps(spec, k),
        monitors: vec![Vec::new(); k + 1],
        monitor_ids: HashSet::new(),
        requirements: Vec::new(),
        fires: Vec::new(),
        ok: Vec::new(),
    };
    for (i, r) in spec.requirements.iter().enumerate() {
        u.requirement(i, r);
    }
    let free_decls: Vec<(Symbol, Sort)> = u.free.as_deref().cloned().unwrap_or_default();
    let monitor_decls = u.monitors.iter().flatten().map(|(n, s, _)| (n, s));
    let mut counters = false;
    for (n, s) in free_decls.iter().map(|(n, s)| (n, s)).chain(monitor_decls) {
        counters |= *s == Sort::Int;
        ctx.declare_const(n.clone(), s.clone());
        variables.push(monitor_variable(n, s));
    }
    let logic = unrolled_logic(spec, counters);
    ctx.set_logic(&logic);
    Unrolled {
        spec: Spec {
            name: spec.name.clone(),
            logic,
            enums: spec.enums.clone(),
            variables,
            domain: u.domain,
            requirements: u.requirements,
            context: ctx,
            time: None,
            warnings: logic::Diagnostics(Vec::new()),
            source: spec.source.clone(),
            reviews: spec.reviews.clone(),
        },
        k,
        state,
        monitors: u.monitors,
        monitor_ids: u.monitor_ids,
        fires: u.fires,
        ok: u.ok,
    }
}

/// Declares the enums of `spec` and its variables at each step `0 ..= k` in `ctx`;
/// returns those variables (`x@t`), step by step.
fn declare_steps(spec: &Spec, k: usize, ctx: &mut Context) -> Vec<Variable> {
    let mut variables = Vec::new();
    for (name, ctors) in &spec.enums {
        ctx.declare_enum(name.clone(), ctors.clone());
    }
    for t in 0..=k {
        for v in &spec.variables {
            let n = var_at(&v.name, t);
            ctx.declare_const(n.clone(), v.sort.clone());
            variables.push(Variable {
                name: n,
                ..v.clone()
            });
        }
    }
    variables
}

/// The domain constraints of `spec` (variable bounds included) at every step
/// `0 ..= k`, one member each.
fn domain_at_steps(spec: &Spec, k: usize) -> Vec<Constraint> {
    spec.domain
        .iter()
        .map(|d| Constraint {
            formula: and((0..=k).map(|t| at(&d.formula, t)).collect()),
            ..d.clone()
        })
        .collect()
}

/// The variable of monitor `name` of sort `sort`.
fn monitor_variable(name: &Symbol, sort: &Sort) -> Variable {
    Variable {
        name: name.clone(),
        sort: sort.clone(),
        unit: None,
        description: Some("monitor".into()),
        min: None,
        max: None,
        role: None,
    }
}

/// The logic of the unrolled spec: integer arithmetic with counters or Int variables,
/// real with Real variables, datatypes with enums.
fn unrolled_logic(spec: &Spec, counters: bool) -> String {
    let int = counters || spec.variables.iter().any(|v| v.sort == Sort::Int);
    let real = spec.variables.iter().any(|v| v.sort == Sort::Real);
    let arith = match (int, real) {
        (true, true) => "LIRA",
        (true, false) => "LIA",
        _ => "LRA",
    };
    if spec.enums.is_empty() {
        format!("QF_{arith}")
    } else {
        format!("QF_DT{arith}")
    }
}

/// What [`unroll_with`] builds from the requirements, one at a time.
struct Unrolling<'f> {
    k: usize,
    /// Where the monitors left undefined at step 0 go, when they are.
    free: Option<&'f mut Vec<(Symbol, Sort)>>,
    /// The domain constraints, with one per requirement that has monitors.
    domain: Vec<Constraint>,
    monitors: Vec<Vec<(Symbol, Sort, Term)>>,
    monitor_ids: HashSet<String>,
    requirements: Vec<Requirement>,
    fires: Vec<Vec<Term>>,
    ok: Vec<Vec<Term>>,
}

impl Unrolling<'_> {
    /// Unrolls requirement `i`, `r`: its pattern, else its formula at every step (else
    /// it has no formula).
    fn requirement(&mut self, i: usize, r: &Requirement) {
        let mut out = Requirement {
            formula: None,
            shape: Shape::Invariant,
            timed: None,
            ..r.clone()
        };
        if let Some(p) = &r.timed {
            self.timed(i, r, p, &mut out);
        } else if let Some(f) = &r.formula {
            self.untimed(r, f, &mut out);
        } else {
            self.fires.push(Vec::new());
            self.ok.push(Vec::new());
        }
        self.requirements.push(out);
    }

    /// Requirement `i`, `r`, with pattern `p`: its monitors (a domain constraint of their
    /// own) and its formula and shape in `out`.
    fn timed(&mut self, i: usize, r: &Requirement, p: &Pattern, out: &mut Requirement) {
        let mut m = Monitor {
            index: i,
            k: self.k,
            defs: &mut self.monitors,
            conj: Vec::new(),
            free_first: self.free.as_deref_mut(),
        };
        let (fires, ok) = compile(p, &mut m);
        if !m.conj.is_empty() {
            let id = format!("{} (monitor)", r.id);
            self.monitor_ids.insert(id.clone());
            self.domain.push(Constraint {
                id,
                text: Some(format!("the monitor of {}", r.id)),
                formula: and(m.conj),
                line: r.line,
            });
        }
        self.ok.push(ok.clone());
        let response = and(ok);
        // A prohibition (`then = "false"`) is meant never to fire: it has no trigger
        // to be vacuous, like an invariant.
        let always = (matches!(p.trigger, Trigger::Always) && matches!(p.scope, Scope::Globally))
            || p.response == Term::Bool(false);
        out.formula = Some(response.clone());
        out.shape = if always {
            Shape::Invariant
        } else {
            Shape::Conditional {
                trigger: or(fires.clone()),
                response,
            }
        };
        self.fires.push(fires);
    }

    /// Requirement `r` with formula `f` and no pattern: `f` at every step, its trigger
    /// too when it is conditional, in `out`.
    fn untimed(&mut self, r: &Requirement, f: &Term, out: &mut Requirement) {
        let k = self.k;
        let ok: Vec<Term> = (0..=k).map(|t| at(f, t)).collect();
        self.ok.push(ok.clone());
        let response = and(ok);
        out.formula = Some(response.clone());
        out.shape = match &r.shape {
            Shape::Conditional { trigger, .. } => {
                let fires: Vec<Term> = (0..=k).map(|t| at(trigger, t)).collect();
                self.fires.push(fires.clone());
                Shape::Conditional {
                    trigger: or(fires),
                    response,
                }
            }
            Shape::Invariant => {
                self.fires.push(vec![Term::Bool(true); k + 1]);
                Shape::Invariant
            }
        };
    }
}

impl Unrolled {
    /// The full model of a concrete trace (one state per step, at most `k+1`): the
    /// trace's values as `x@t` and every monitor computed from its definition.
    pub fn evaluate(&self, trace: &[logic::Model]) -> Result<logic::Model, logic::EvalError> {
        let mut m = logic::Model::new();
        for (t, state) in trace.iter().enumerate().take(self.k + 1) {
            for (n, _) in &self.state {
                if let Some(v) = state.get(n) {
                    m.insert(var_at(n, t), v.clone());
                }
            }
        }
        for step in self.monitors.iter().take(trace.len()) {
            for (n, _, def) in step {
                let v = logic::eval(def, &m, &self.spec.context)?;
                m.insert(n.clone(), v);
            }
        }
        Ok(m)
    }

    /// The steps where requirement `i`'s per-step condition is false on the trace,
    /// as the monitors compute it.
    pub fn violations(
        &self,
        i: usize,
        trace: &[logic::Model],
    ) -> Result<Vec<usize>, logic::EvalError> {
        let m = self.evaluate(trace)?;
        let mut out = Vec::new();
        for (t, ok) in self.ok[i].iter().enumerate().take(trace.len()) {
            if !logic::eval_bool(ok, &m, &self.spec.context)? {
                out.push(t);
            }
        }
        Ok(out)
    }
}

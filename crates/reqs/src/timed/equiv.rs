//! Equivalence of two timed patterns on traces, up to a bound.
//!
//! Two patterns over one spec are compared on every trace of up to `k+1` states (steps
//! `0 ..= k`) that the domain constraints allow at every step: each is unrolled as the
//! one requirement of a spec ([`super::unroll`]), and the solver is asked for a trace
//! on which one holds throughout while the other is violated, both ways round. The
//! monitors are past-time, so "violated on a prefix of `n` states" is the per-step
//! condition failing at a step below `n`: the question covers every length up to
//! `k+1` at once. A distinguishing trace breaks the other pattern as early as any trace
//! can, runs on while the holding one's open obligations are met, holds variables
//! constant where it can, is re-checked with the independent evaluator of
//! [`super::trace`] and is returned as evidence. An unknown answer is never taken for
//! equivalence.

use super::audit::{timeline, trace_of, Timeline};
use super::trace::{self, Trace};
use super::unroll::{unroll, var_at, Unrolled};
use super::{Pattern, Timing};
use crate::spec::{Origin, Requirement, Shape, Spec};
use logic::{Command, Model, Op, Term};
use serde::Serialize;
use solver::{Outcome, Solver, SolverConfig, SolverError};

/// Which of the two patterns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// The first pattern given.
    First,
    /// The second.
    Second,
}

/// A trace on which one pattern holds and the other does not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Difference {
    /// The pattern that holds on the trace.
    pub holds: Side,
    /// The step at which the other one is violated: the earliest step at which any
    /// trace can break it while the first one holds.
    pub violated_at: usize,
    /// The trace: one state (the schema's variables) per step. Where the solver finds
    /// such a run, it goes on after `violated_at` for the timing duration of the
    /// pattern that holds (within the bound), with that pattern still holding, so that
    /// it shows how the obligations still open at `violated_at` are met.
    #[serde(skip)]
    pub trace: Trace,
    /// The trace as intervals of physical time, over the variables the two patterns
    /// mention.
    pub timeline: Timeline,
}

/// The answer of [`equivalent`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum TraceEquivalence {
    /// No trace of up to `up_to_k + 1` states tells them apart.
    Equivalent {
        /// The last step of the traces compared.
        up_to_k: usize,
    },
    /// A trace tells them apart.
    Different(Difference),
    /// The solver gave no answer in one direction and no difference in the other.
    Unknown {
        /// Why.
        #[serde(flatten)]
        reason: solver::Undecided,
    },
}

/// Why the comparison could not run.
#[derive(Debug, thiserror::Error)]
pub enum TimedEquivError {
    /// The spec has no `[time]` table.
    #[error("the spec has no [time] table")]
    NotTimed,
    /// The solver failed.
    #[error(transparent)]
    Solver(#[from] SolverError),
    /// A distinguishing trace did not pass the evaluator: a bug, never a verdict.
    #[error("a distinguishing trace failed its re-check: {0}")]
    Witness(String),
}

/// The largest bound compared: beyond it the unrolled question grows too large to
/// ask, and the answer is [`TraceEquivalence::Unknown`].
pub const MAX_K: usize = 2_000;

/// The default bound for two patterns: twice the longer of the two (trigger duration
/// plus timing duration) plus two steps.
pub fn default_k(a: &Pattern, b: &Pattern) -> usize {
    let longest = a.longest().max(b.longest()) as usize;
    2 * longest + 2
}

fn requirement(id: &str, p: &Pattern) -> Requirement {
    Requirement {
        id: id.into(),
        text: String::new(),
        formula: None,
        shape: Shape::Invariant,
        line: 0,
        origin: Origin::Hand,
        timed: Some(p.clone()),
        dense: None,
    }
}

fn and(v: Vec<Term>) -> Term {
    match v.len() {
        0 => Term::Bool(true),
        1 => v.into_iter().next().expect("one"),
        _ => Term::App(Op::And, v),
    }
}

fn or(v: Vec<Term>) -> Term {
    match v.len() {
        0 => Term::Bool(false),
        1 => v.into_iter().next().expect("one"),
        _ => Term::App(Op::Or, v),
    }
}

/// Compares `a` and `b` (patterns over `spec`'s schema) on every trace of up to
/// `k + 1` states the domain allows (`k` defaults to [`default_k`]). The spec's
/// requirements play no part; its domain constraints hold at every step.
pub fn equivalent(
    spec: &Spec,
    a: &Pattern,
    b: &Pattern,
    config: &SolverConfig,
    k: Option<usize>,
) -> Result<TraceEquivalence, TimedEquivError> {
    let tb = spec.time.as_ref().ok_or(TimedEquivError::NotTimed)?;
    let k = k.unwrap_or_else(|| default_k(a, b));
    if k > MAX_K {
        return Ok(TraceEquivalence::Unknown {
            reason: solver::Undecided::other(format!(
                "traces of {} steps are needed to compare these patterns; at most {MAX_K} are compared",
                k + 1
            )),
        });
    }
    let mut pair = spec.clone();
    pair.requirements = vec![requirement("A", a), requirement("B", b)];
    let u = unroll(&pair, k);
    let mut s = Solver::start(config)?;
    s.command(&Command::SetLogic(u.spec.logic.clone()))?;
    for (name, values) in &u.spec.enums {
        s.command(&Command::DeclareEnum(name.clone(), values.clone()))?;
    }
    for v in &u.spec.variables {
        s.declare_const(&v.name, v.sort.clone())?;
    }
    for d in &u.spec.domain {
        s.assert(&d.formula)?;
    }
    let mut unknown = None;
    for (holds, x, y) in [(Side::First, 0, 1), (Side::Second, 1, 0)] {
        let patterns = [a, b];
        let tail = match patterns[x].timing {
            Timing::Within(d) | Timing::For(d) | Timing::NotBefore(d) => d as usize,
            Timing::Next => 1,
            _ => 0,
        };
        match difference(&mut s, &u, x, y, k, tail)? {
            Found::Yes(step, end, model) => {
                let trace = trace_of(&u, &model, end + 1);
                check(&pair, patterns[x], patterns[y], &trace, step)?;
                let mut only: Vec<String> = Vec::new();
                for p in patterns {
                    for t in p.terms() {
                        for (n, _) in t.free_vars() {
                            if !only.iter().any(|o| o.as_str() == &*n) {
                                only.push(n.to_string());
                            }
                        }
                    }
                }
                let tl = timeline(&u, tb, &model, end + 1, Some(&only));
                return Ok(TraceEquivalence::Different(Difference {
                    holds,
                    violated_at: step,
                    trace,
                    timeline: tl,
                }));
            }
            Found::No => {}
            Found::Unknown(r) => unknown = Some(r),
        }
    }
    Ok(match unknown {
        Some(reason) => TraceEquivalence::Unknown { reason },
        None => TraceEquivalence::Equivalent { up_to_k: k },
    })
}

enum Found {
    /// A trace on which `x` holds up to the last step (the second number) and `y` is
    /// violated at the first.
    Yes(usize, usize, Model),
    No,
    Unknown(solver::Undecided),
}

/// `x` holds at steps `0 ..= t` and `y` is violated at step `t`, for some `t` below
/// `below`.
fn split_at_some(u: &Unrolled, x: usize, y: usize, below: usize) -> Term {
    or((0..below.min(u.k + 1))
        .map(|t| {
            let mut c: Vec<Term> = u.ok[x][..=t].to_vec();
            c.push(Term::not(u.ok[y][t].clone()));
            and(c)
        })
        .collect())
}

fn ask(s: &mut Solver, extra: &[Term]) -> Result<Outcome, SolverError> {
    s.push()?;
    for t in extra {
        s.assert(t)?;
    }
    let r = s.check();
    s.pop()?;
    r
}

/// The earliest step at which `y` can be violated while `x` holds, with a trace that
/// runs on `tail` steps after it (within `k`) with `x` still holding, and that holds
/// each variable constant where that stays possible.
fn difference(
    s: &mut Solver,
    u: &Unrolled,
    x: usize,
    y: usize,
    k: usize,
    tail: usize,
) -> Result<Found, SolverError> {
    let first_violation = |m: &Model| -> Option<usize> {
        (0..=k).find(|&t| {
            !logic::eval_bool(&u.ok[y][t], m, &u.spec.context).unwrap_or(true)
                && u.ok[x][..=t]
                    .iter()
                    .all(|o| logic::eval_bool(o, m, &u.spec.context).unwrap_or(false))
        })
    };
    let mut best = match ask(s, &[split_at_some(u, x, y, k + 1)])? {
        Outcome::Sat(m) => m,
        Outcome::Unsat(_) => return Ok(Found::No),
        Outcome::Unknown(r) => return Ok(Found::Unknown(r.clone().into())),
    };
    let Some(mut step) = first_violation(&best) else {
        // The model does not show what it was asked for: no verdict from it.
        return Ok(Found::Unknown(solver::Undecided::other(
            "the solver's model does not show the difference it claims",
        )));
    };
    // Shorter, while the solver finds one.
    while step > 0 {
        match ask(s, &[split_at_some(u, x, y, step)])? {
            Outcome::Sat(m) => match first_violation(&m) {
                Some(t) if t < step => {
                    step = t;
                    best = m;
                }
                _ => break,
            },
            _ => break,
        }
    }
    // Longer, with `x` holding to the end, where the solver finds such a run (it
    // shows how the obligations of `x` are met); else the shortest trace as it is.
    let mut end = step;
    let longer = (step + tail).min(k);
    if longer > step {
        let mut c: Vec<Term> = u.ok[x][..=longer].to_vec();
        c.push(Term::not(u.ok[y][step].clone()));
        if let Outcome::Sat(m) = ask(s, &[and(c)])? {
            if first_violation(&m) == Some(step) {
                end = longer;
                best = m;
            }
        }
    }
    // Fewer changes: each variable constant over the trace where that stays possible.
    let exact = {
        let mut c: Vec<Term> = u.ok[x][..=end].to_vec();
        c.push(Term::not(u.ok[y][step].clone()));
        and(c)
    };
    let mut held: Vec<Term> = vec![exact];
    for (n, sort) in &u.state {
        let same: Vec<Term> = (1..=end)
            .map(|t| {
                Term::App(
                    Op::Eq,
                    vec![
                        Term::Var(var_at(n, t), sort.clone()),
                        Term::Var(var_at(n, 0), sort.clone()),
                    ],
                )
            })
            .collect();
        if same.is_empty() {
            continue;
        }
        let mut attempt = held.clone();
        attempt.push(and(same));
        if let Outcome::Sat(m) = ask(s, &attempt)? {
            if first_violation(&m) == Some(step) {
                held = attempt;
                best = m;
            }
        }
    }
    Ok(Found::Yes(step, end, best))
}

/// The evaluator's word on a distinguishing trace: `holds` holds on it, `other` is
/// first violated at `step`.
fn check(
    spec: &Spec,
    holds: &Pattern,
    other: &Pattern,
    tr: &[Model],
    step: usize,
) -> Result<(), TimedEquivError> {
    let e = |r: Result<Vec<usize>, logic::EvalError>| {
        r.map_err(|e| TimedEquivError::Witness(e.to_string()))
    };
    let h = e(trace::violations(holds, tr, &spec.context))?;
    let o = e(trace::violations(other, tr, &spec.context))?;
    if !h.is_empty() {
        return Err(TimedEquivError::Witness(format!(
            "the pattern that should hold is violated at step {}",
            h[0]
        )));
    }
    if o.first() != Some(&step) {
        return Err(TimedEquivError::Witness(format!(
            "the other pattern is not first violated at step {step} (violations at {o:?})"
        )));
    }
    Ok(())
}

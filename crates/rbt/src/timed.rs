//! Test sequences for timed requirements (docs/timed.md): timing tables that show each
//! requirement's trigger firing and its response, the deadline of a `within` hit and
//! missed by one tick, a `for` duration one tick short, a `held for` trigger one tick
//! short, the earliest step a `not before` allows and one tick earlier.
//!
//! This module uses only the pattern types of `reqs::timed` and its trace evaluator
//! (`reqs::timed::trace`); the bounded encoding of the patterns on a trace of `n` steps is
//! written here from the definitions (the same ones the evaluator implements), not
//! from the monitors of `reqs::timed::unroll`. Every sequence the solver gives is then
//! re-checked by that evaluator: a valid sequence must violate nothing (every timed
//! pattern, every plain requirement and the domain at every step); a sequence that
//! shows a missed deadline must violate exactly its requirement, at the step expected.

use crate::generate::GenerateError;
use crate::suite::Expected;
use crate::values;
use logic::{Command, Model, Op, Sort, Symbol, Term, Value};
use reqs::timed::trace;
use reqs::timed::{Pattern, Scope, Timing, Trigger};
use reqs::Spec;
use serde::Serialize;
use solver::{Outcome, Solver, SolverConfig};

pub(crate) fn and(mut v: Vec<Term>) -> Term {
    v.retain(|t| *t != Term::Bool(true));
    if v.contains(&Term::Bool(false)) {
        return Term::Bool(false);
    }
    match v.len() {
        0 => Term::Bool(true),
        1 => v.pop().expect("one"),
        _ => Term::app(Op::And, v),
    }
}

pub(crate) fn or(mut v: Vec<Term>) -> Term {
    v.retain(|t| *t != Term::Bool(false));
    if v.contains(&Term::Bool(true)) {
        return Term::Bool(true);
    }
    match v.len() {
        0 => Term::Bool(false),
        1 => v.pop().expect("one"),
        _ => Term::app(Op::Or, v),
    }
}

pub(crate) fn not(t: Term) -> Term {
    match t {
        Term::Bool(b) => Term::Bool(!b),
        t => Term::not(t),
    }
}

/// The name of a variable at a step.
fn step_name(name: &str, t: usize) -> Symbol {
    Symbol::from(format!("{name}@{t}").as_str())
}

/// A spec's state formulas over one trace of `n` steps.
struct Encoder<'s> {
    spec: &'s Spec,
    n: usize,
}

impl Encoder<'_> {
    /// `f` at step `t` (every schema variable renamed).
    fn at(&self, f: &Term, t: usize) -> Term {
        let spec = self.spec;
        bl::check::side::rename_term(f, &|n: &str| {
            if spec.variable(n).is_some() {
                step_name(n, t)
            } else {
                Symbol::from(n)
            }
        })
    }

    fn in_scope(&self, s: &Scope, t: usize) -> Term {
        match s {
            Scope::Globally => Term::Bool(true),
            Scope::While(c) => self.at(c, t),
            Scope::After(e) => or((0..=t).map(|u| self.at(e, u)).collect()),
            Scope::AfterUntil(e, f) => {
                let mut open = Term::Bool(false);
                for u in 0..=t {
                    open = and(vec![not(self.at(f, u)), or(vec![self.at(e, u), open])]);
                }
                open
            }
            Scope::Before(f) => and((0..=t).map(|u| not(self.at(f, u))).collect()),
        }
    }

    fn triggered(&self, g: &Trigger, t: usize) -> Term {
        match g {
            Trigger::Always => Term::Bool(true),
            Trigger::Level(c) => self.at(c, t),
            Trigger::Edge(c) => {
                if t == 0 {
                    self.at(c, 0)
                } else {
                    and(vec![self.at(c, t), not(self.at(c, t - 1))])
                }
            }
            Trigger::Initially => Term::Bool(t == 0),
            Trigger::HeldFor(c, d) => {
                let d = *d as usize;
                if t < d {
                    Term::Bool(false)
                } else {
                    and((t - d..=t).map(|u| self.at(c, u)).collect())
                }
            }
            Trigger::WithinLast(c, d) => or((t.saturating_sub(*d as usize)..=t)
                .map(|u| self.at(c, u))
                .collect()),
        }
    }

    /// The pattern fired at `t` is violated within the trace (trace.rs's `violated`).
    fn violated(&self, p: &Pattern, t: usize) -> Term {
        let n = self.n;
        let r = |u: usize| self.at(&p.response, u);
        match &p.timing {
            Timing::Immediately => not(r(t)),
            Timing::Next => {
                if t + 1 < n {
                    not(r(t + 1))
                } else {
                    Term::Bool(false)
                }
            }
            Timing::Within(d) => {
                let end = t + *d as usize;
                if end >= n {
                    Term::Bool(false)
                } else {
                    and((t..=end).map(|u| not(r(u))).collect())
                }
            }
            Timing::For(d) => or((t..=(t + *d as usize).min(n - 1))
                .map(|u| not(r(u)))
                .collect()),
            Timing::NotBefore(d) => or((t..(t + *d as usize).min(n)).map(r).collect()),
            Timing::Until(c) => or((t..n)
                .map(|u| {
                    let mut v: Vec<Term> = (t..=u).map(|w| not(self.at(c, w))).collect();
                    v.push(not(r(u)));
                    and(v)
                })
                .collect()),
            Timing::Before(c) => or((t + 1..n)
                .map(|v| {
                    let mut parts = vec![self.at(c, v)];
                    parts.extend((t + 1..v).map(|w| not(self.at(c, w))));
                    parts.extend((t..v).map(|w| not(r(w))));
                    and(parts)
                })
                .collect()),
        }
    }

    fn fires(&self, p: &Pattern, t: usize) -> Term {
        and(vec![
            self.in_scope(&p.scope, t),
            self.triggered(&p.trigger, t),
        ])
    }

    /// The pattern holds on the whole trace.
    fn holds(&self, p: &Pattern) -> Term {
        and((0..self.n)
            .map(|t| not(and(vec![self.fires(p, t), self.violated(p, t)])))
            .collect())
    }
}

/// The longest timing table written, in steps (the encoding grows with the square of
/// the length for some patterns).
pub const MAX_STEPS: usize = 200;

/// What a sequence shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Shape {
    /// The requirement fires and its response follows as demanded.
    Fires,
    /// `within d`: the response comes at the last step allowed.
    DeadlineHit,
    /// `within d`: the response comes one tick after the deadline (a violation).
    MissedByOne,
    /// `for d`: the response stops one tick before the duration ends (a violation).
    DurationOneTickShort,
    /// `held for d`: the condition holds one tick less than needed; the requirement
    /// does not fire, and the response is not shown.
    HeldOneTickShort,
    /// `not before d`: the response comes at the first step allowed.
    EarliestAllowed,
    /// `not before d`: the response comes one tick early (a violation).
    OneTickEarly,
    /// A plain requirement's obligation (its trigger, a condition's outcome, a
    /// boundary), met at the first step; the sequence's id is the obligation's.
    Obligation,
}

impl Shape {
    /// True for sequences that violate their requirement on purpose.
    pub fn violates(self) -> bool {
        matches!(
            self,
            Shape::MissedByOne | Shape::DurationOneTickShort | Shape::OneTickEarly
        )
    }
}

/// A row of a timing table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Row {
    /// The variable.
    pub variable: String,
    /// `input`, `output`, or `state` when the spec gives no roles.
    pub role: &'static str,
    /// Its value at each step.
    pub values: Vec<String>,
}

/// One test sequence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Sequence {
    /// `R-REINF-2/deadline-hit`.
    pub id: String,
    /// The requirement.
    pub requirement: String,
    /// What it shows.
    pub shape: Shape,
    /// The step where the requirement fires (or, one tick short, would).
    pub trigger_step: usize,
    /// The time of each step (`0 s`, `5 s`, ...).
    pub times: Vec<String>,
    /// The timing table.
    pub rows: Vec<Row>,
    /// For a violating sequence, the step where the requirement is violated (found by
    /// the trace evaluator); `None` for a valid one.
    pub violated_at: Option<usize>,
    /// What an implementation given the sequence's inputs must output.
    pub expected: Expectation,
    /// What it was made for and what else it meets: its own id for a pattern's
    /// sequence; for a plain obligation's, that obligation and every later one its
    /// first step meets (checked by evaluation).
    pub covers: Vec<String>,
    /// The trace the table shows (for running the sequence).
    #[serde(skip)]
    pub trace: Vec<Model>,
}

/// The expected outputs of a sequence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Expectation {
    /// Per output and step, given the inputs at every step: the value every valid
    /// trace has, or `free`.
    Outputs {
        /// One row per output.
        rows: Vec<ExpectedRow>,
    },
    /// No trace with these inputs satisfies the whole spec: an implementation cannot
    /// pass, whatever it outputs (a violating sequence whose inputs force the
    /// violation).
    NoValidTrace,
    /// The spec declares no inputs: every variable is state, nothing is given to an
    /// implementation, so nothing is expected of it.
    NoRoles,
}

/// The inputs and outputs of a timed spec: the variables with `role = "input"`, and
/// all others (none of either when no variable has a role).
#[derive(Debug, Clone, Default)]
pub struct TimedRoles {
    /// The inputs, in schema order.
    pub inputs: Vec<Symbol>,
    /// The outputs, in schema order.
    pub outputs: Vec<Symbol>,
}

impl TimedRoles {
    /// The roles the spec declares.
    pub fn of(spec: &Spec) -> TimedRoles {
        let input = |v: &&reqs::spec::Variable| v.role == Some(reqs::spec::Role::Input);
        if !spec.variables.iter().any(|v| input(&v)) {
            return TimedRoles::default();
        }
        TimedRoles {
            inputs: spec
                .variables
                .iter()
                .filter(input)
                .map(|v| v.name.clone())
                .collect(),
            outputs: spec
                .variables
                .iter()
                .filter(|v| !input(v))
                .map(|v| v.name.clone())
                .collect(),
        }
    }
}

/// What became of a sequence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum SequenceResult {
    /// Made and re-checked.
    Made {
        /// The sequence.
        sequence: Sequence,
    },
    /// No trace has it.
    Unreachable {
        /// The sequence's id.
        id: String,
        /// The requirement.
        requirement: String,
        /// What it would show.
        shape: Shape,
        /// What rules it out.
        core: Vec<String>,
    },
    /// The solver could not decide, or the sequence is too long to write.
    Undecided {
        /// The sequence's id.
        id: String,
        /// The requirement.
        requirement: String,
        /// What it would show.
        shape: Shape,
        /// Why.
        #[serde(flatten)]
        reason: solver::Undecided,
    },
}

/// The timed suite.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TimedSuite {
    /// The spec's name.
    pub spec: String,
    /// Its file.
    pub file: String,
    /// The solver.
    pub solver: String,
    /// The tick.
    pub tick: String,
    /// Every sequence.
    pub sequences: Vec<SequenceResult>,
    /// Requirements without a formula or pattern.
    pub not_formalized: Vec<String>,
    /// Solver queries.
    pub queries: usize,
}

impl TimedSuite {
    /// The sequences that were made, in suite order.
    pub fn made(&self) -> impl Iterator<Item = &Sequence> {
        self.sequences.iter().filter_map(|r| match r {
            SequenceResult::Made { sequence } => Some(sequence),
            _ => None,
        })
    }
}

/// Why a sequence's trace was rejected by the evaluator.
fn recheck(
    spec: &Spec,
    trace: &[Model],
    patterns: &[(usize, &Pattern)],
    target: Option<usize>,
) -> Result<Option<usize>, String> {
    let ctx = &spec.context;
    for d in &spec.domain {
        let v = trace::formula_violations(&d.formula, trace, ctx).map_err(|e| e.to_string())?;
        if !v.is_empty() {
            return Err(format!("domain constraint {} fails at step {}", d.id, v[0]));
        }
    }
    for r in spec.formalized() {
        let f = r.formula.as_ref().expect("formalized");
        let v = trace::formula_violations(f, trace, ctx).map_err(|e| e.to_string())?;
        if !v.is_empty() {
            return Err(format!("{} fails at step {}", r.id, v[0]));
        }
    }
    let mut at = None;
    for (i, p) in patterns {
        let v = trace::violations(p, trace, ctx).map_err(|e| e.to_string())?;
        match (Some(*i) == target, v.first()) {
            (true, Some(s)) => at = Some(*s),
            (true, None) => {
                return Err(format!(
                    "{} is not violated, though the sequence was built to violate it",
                    spec.requirements[*i].id
                ))
            }
            (false, Some(s)) => {
                return Err(format!(
                    "{} is violated at step {s}",
                    spec.requirements[*i].id
                ))
            }
            (false, None) => {}
        }
    }
    Ok(at)
}

/// Generates the test sequences of every timed requirement of a spec.
pub fn generate_timed(spec: &Spec, config: &SolverConfig) -> Result<TimedSuite, GenerateError> {
    let time = spec.time.as_ref().ok_or_else(|| {
        GenerateError::Undecided(solver::Undecided::other("the spec has no [time] table"))
    })?;
    let patterns: Vec<(usize, &Pattern)> = spec
        .requirements
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.timed.as_ref().map(|p| (i, p)))
        .collect();
    if patterns.is_empty() && spec.formalized().next().is_none() {
        return Err(GenerateError::NothingToTest);
    }
    let roles = TimedRoles::of(spec);
    let mut sessions = Sessions::new(spec, config);
    let mut sequences = Vec::new();
    for &(i, p) in &patterns {
        let id = &spec.requirements[i].id;
        let dt = match &p.trigger {
            Trigger::HeldFor(_, d) => *d as usize,
            _ => 0,
        };
        let dr = response_window(p);
        let t0 = dt.max(1);
        let n = t0 + dr + 2;
        if n > MAX_STEPS {
            sequences.push(SequenceResult::Undecided {
                id: format!("{id}/fires"),
                requirement: id.clone(),
                shape: Shape::Fires,
                reason: solver::Undecided::other(format!(
                    "its sequences need {n} steps; at most {MAX_STEPS} are written as timing tables (choose a longer tick)"
                )),
            });
            continue;
        }
        let session = sessions.of_length(n)?;
        let enc = Encoder { spec, n };
        for (shape, formula) in pattern_shapes(&enc, p, t0) {
            let sid = format!("{id}/{}", shape_name(shape));
            let target = shape.violates().then_some(i);
            let job = Job {
                id: sid,
                requirement: id.clone(),
                shape,
                t0,
                formula,
                target,
            };
            sequences.push(one_sequence(spec, session, &patterns, &roles, job)?);
        }
    }
    plain_sequences(spec, &mut sessions, &patterns, &roles, &mut sequences)?;
    Ok(TimedSuite {
        spec: spec.name.clone(),
        file: spec.source.name().to_string(),
        solver: config.kind.to_string(),
        tick: time.tick_text.clone(),
        sequences,
        not_formalized: spec
            .requirements
            .iter()
            .filter(|r| r.formula.is_none() && r.timed.is_none())
            .map(|r| r.id.clone())
            .collect(),
        queries: sessions.queries(),
    })
}

/// The shapes of a pattern `p` fired at step `t0` (with the encoder `enc` of its
/// trace), each with the formula a sequence of that shape satisfies: it fires, and
/// the edges of its timing and of a held trigger.
fn pattern_shapes(enc: &Encoder, p: &Pattern, t0: usize) -> Vec<(Shape, Term)> {
    let r = |u: usize| enc.at(&p.response, u);
    let fires = enc.fires(p, t0);
    let mut shapes: Vec<(Shape, Term)> = vec![(Shape::Fires, fires.clone())];
    match &p.timing {
        Timing::Within(d) if *d > 0 => {
            let d = *d as usize;
            let mut hit = vec![fires.clone()];
            hit.extend((t0..t0 + d).map(|u| not(r(u))));
            hit.push(r(t0 + d));
            shapes.push((Shape::DeadlineHit, and(hit)));
            let mut miss = vec![fires.clone()];
            miss.extend((t0..=t0 + d).map(|u| not(r(u))));
            miss.push(r(t0 + d + 1));
            shapes.push((Shape::MissedByOne, and(miss)));
        }
        Timing::For(d) if *d > 0 => {
            let d = *d as usize;
            let mut short = vec![fires.clone()];
            short.extend((t0..t0 + d).map(r));
            short.push(not(r(t0 + d)));
            shapes.push((Shape::DurationOneTickShort, and(short)));
        }
        Timing::NotBefore(d) if *d > 0 => {
            let d = *d as usize;
            let mut first = vec![fires.clone()];
            first.extend((t0..t0 + d).map(|u| not(r(u))));
            first.push(r(t0 + d));
            shapes.push((Shape::EarliestAllowed, and(first)));
            let mut early = vec![fires.clone()];
            early.extend((t0..t0 + d - 1).map(|u| not(r(u))));
            early.push(r(t0 + d - 1));
            shapes.push((Shape::OneTickEarly, and(early)));
        }
        _ => {}
    }
    if let Trigger::HeldFor(c, d) = &p.trigger {
        if *d > 0 {
            let d = *d as usize;
            let mut short = vec![enc.in_scope(&p.scope, t0), not(enc.at(c, t0 - d))];
            short.extend((t0 - d + 1..=t0).map(|u| enc.at(c, u)));
            shapes.push((Shape::HeldOneTickShort, and(short)));
        }
    }
    shapes
}

/// Adds the sequences of the plain requirements' obligations (trigger, each
/// condition's outcomes, boundaries), each shown at the first step of a trace long
/// enough for every pattern fired there to have its whole response window inside it.
fn plain_sequences(
    spec: &Spec,
    sessions: &mut Sessions,
    patterns: &[(usize, &Pattern)],
    roles: &TimedRoles,
    sequences: &mut Vec<SequenceResult>,
) -> Result<(), GenerateError> {
    let plain = plain_problem(spec);
    let obligations = crate::obligations::obligations(&plain, true);
    if obligations.is_empty() {
        return Ok(());
    }
    let window = patterns
        .iter()
        .map(|(_, p)| response_window(p))
        .max()
        .unwrap_or(0);
    let n = window + 2;
    let session = sessions.of_length(n)?;
    // The obligation sequences made so far (indices into `sequences`).
    let mut made_here: Vec<usize> = Vec::new();
    for o in obligations {
        // One sequence serves every obligation its first step meets: tried by
        // evaluation before the solver is asked (as the plain generator does).
        let served = made_here.iter().copied().find(|&k| match &sequences[k] {
            SequenceResult::Made { sequence } => sequence
                .trace
                .first()
                .is_some_and(|st| logic::eval_bool(&o.formula, st, &spec.context).unwrap_or(false)),
            _ => false,
        });
        if let Some(k) = served {
            if let SequenceResult::Made { sequence } = &mut sequences[k] {
                sequence.covers.push(o.id.clone());
            }
            continue;
        }
        let formula = session.at(&o.formula, 0);
        let job = Job {
            id: o.id.clone(),
            requirement: o.requirement.clone(),
            shape: Shape::Obligation,
            t0: 0,
            formula,
            target: None,
        };
        let made = one_sequence(spec, session, patterns, roles, job)?;
        if matches!(made, SequenceResult::Made { .. }) {
            made_here.push(sequences.len());
        }
        sequences.push(made);
    }
    Ok(())
}

/// The steps a pattern's response needs after it fires.
pub(crate) fn response_window(p: &Pattern) -> usize {
    match &p.timing {
        Timing::Within(d) | Timing::For(d) | Timing::NotBefore(d) => *d as usize,
        Timing::Next => 1,
        _ => 0,
    }
}

/// The spec as a plain problem (its roles, the default steps), for the obligations of
/// its plain requirements.
pub(crate) fn plain_problem(spec: &Spec) -> crate::problem::Problem {
    let roles = TimedRoles::of(spec);
    crate::problem::Problem {
        spec: spec.clone(),
        roles: crate::problem::Roles {
            inputs: roles.inputs,
            outputs: roles.outputs,
            source: crate::problem::RoleSource::Spec,
        },
        steps: Default::default(),
        default_step: crate::problem::default_step(),
    }
}

/// A sequence to make.
struct Job {
    id: String,
    requirement: String,
    shape: Shape,
    t0: usize,
    formula: Term,
    /// The pattern the sequence breaks on purpose (its index among the requirements).
    target: Option<usize>,
}

/// Makes one sequence in `session`: a trace with the job's formula (its inputs kept
/// steady from `t0` on when a trace allows it), re-checked by the trace evaluator,
/// with its expected outputs.
fn one_sequence(
    spec: &Spec,
    session: &mut TraceSession,
    patterns: &[(usize, &Pattern)],
    roles: &TimedRoles,
    job: Job,
) -> Result<SequenceResult, GenerateError> {
    let time = spec.time.as_ref().expect("a timed spec");
    let n = session.steps();
    let t0 = job.t0;
    // Inputs that keep their values from the trigger on make a sequence read like a
    // scenario (and keep a condition in force through the deadline); only when no
    // trace has them are they let go.
    let steady = and((t0 + 1..n)
        .flat_map(|u| {
            roles.inputs.iter().filter_map(move |x| {
                let v = spec.variable(x)?;
                let now = Term::var(&step_name(x, u), v.sort.clone());
                let then = Term::var(&step_name(x, t0), v.sort.clone());
                Some(Term::app(Op::Eq, vec![now, then]))
            })
        })
        .collect());
    let result = match session.make(job.target, &and(vec![job.formula.clone(), steady]))? {
        Made::Trace(t) => Made::Trace(t),
        _ => session.make(job.target, &job.formula)?,
    };
    Ok(match result {
        Made::Trace(trace) => {
            let violated_at = recheck(spec, &trace, patterns, job.target).map_err(|e| {
                GenerateError::Session(crate::session::SessionError::BadState(format!(
                    "the sequence {}: {e}",
                    job.id
                )))
            })?;
            let expected = if roles.inputs.is_empty() {
                Expectation::NoRoles
            } else {
                match session.expected(&trace, &roles.inputs, &roles.outputs)? {
                    Some(rows) => Expectation::Outputs { rows },
                    None => Expectation::NoValidTrace,
                }
            };
            SequenceResult::Made {
                sequence: table(
                    spec,
                    &job.id,
                    &job.requirement,
                    job.shape,
                    t0,
                    &trace,
                    violated_at,
                    time,
                    expected,
                ),
            }
        }
        Made::Unsat(core) => SequenceResult::Unreachable {
            id: job.id,
            requirement: job.requirement,
            shape: job.shape,
            core,
        },
        Made::Unknown(reason) => SequenceResult::Undecided {
            id: job.id,
            requirement: job.requirement,
            shape: job.shape,
            reason,
        },
    })
}

/// The name of a shape in ids.
pub fn shape_name(s: Shape) -> &'static str {
    match s {
        Shape::Fires => "fires",
        Shape::DeadlineHit => "deadline-hit",
        Shape::MissedByOne => "missed-by-one",
        Shape::DurationOneTickShort => "duration-one-tick-short",
        Shape::HeldOneTickShort => "held-one-tick-short",
        Shape::EarliestAllowed => "earliest-allowed",
        Shape::OneTickEarly => "one-tick-early",
        Shape::Obligation => "obligation",
    }
}

pub(crate) enum Made {
    Trace(Vec<Model>),
    Unsat(Vec<String>),
    Unknown(solver::Undecided),
}

/// One solver session over a trace of `n` steps: every variable declared at every step,
/// and the domain, every plain requirement and every pattern asserted over the whole
/// trace, each under a literal of its own, so that a query can leave one out (the
/// requirement a violating sequence breaks) and an unsatisfiable one names a core.
pub struct TraceSession<'s> {
    spec: &'s Spec,
    enc: Encoder<'s>,
    solver: Solver,
    /// The literal, the member's id, and for a pattern its requirement's index.
    members: Vec<(Term, String, Option<usize>)>,
    /// Queries asked so far.
    pub queries: usize,
}

impl<'s> TraceSession<'s> {
    /// Declares a trace of `n` steps of `spec` and asserts its members.
    pub fn start(spec: &'s Spec, n: usize, config: &SolverConfig) -> Result<Self, GenerateError> {
        let enc = Encoder { spec, n };
        let mut solver = Solver::start(config)?;
        solver.command(&Command::SetLogic(spec.logic.clone()))?;
        for (name, values) in &spec.enums {
            solver.command(&Command::DeclareEnum(name.clone(), values.clone()))?;
        }
        for t in 0..n {
            for v in &spec.variables {
                solver.declare_const(&step_name(&v.name, t), v.sort.clone())?;
            }
        }
        let mut bodies: Vec<(Term, String, Option<usize>)> = Vec::new();
        for d in &spec.domain {
            let body = and((0..n).map(|t| enc.at(&d.formula, t)).collect());
            bodies.push((body, d.id.clone(), None));
        }
        for r in spec.formalized() {
            let f = r.formula.as_ref().expect("formalized");
            let body = and((0..n).map(|t| enc.at(f, t)).collect());
            bodies.push((body, r.id.clone(), None));
        }
        for (i, r) in spec.requirements.iter().enumerate() {
            if let Some(p) = &r.timed {
                bodies.push((enc.holds(p), r.id.clone(), Some(i)));
            }
        }
        let mut members = Vec::new();
        for (k, (body, id, index)) in bodies.into_iter().enumerate() {
            let lit = format!("vera!m{k}");
            solver.declare_const(&lit, Sort::Bool)?;
            let l = Term::var(&lit, Sort::Bool);
            solver.assert(&Term::app(Op::Implies, vec![l.clone(), body]))?;
            members.push((l, id, index));
        }
        Ok(TraceSession {
            spec,
            enc,
            solver,
            members,
            queries: 0,
        })
    }

    /// The number of steps.
    pub fn steps(&self) -> usize {
        self.enc.n
    }

    /// `f` (over the spec's names) at step `t`.
    pub fn at(&self, f: &Term, t: usize) -> Term {
        self.enc.at(f, t)
    }

    /// The pattern fires at step `t` (in scope and triggered).
    pub(crate) fn fires(&self, p: &Pattern, t: usize) -> Term {
        self.enc.fires(p, t)
    }

    /// The pattern's scope holds at step `t`.
    pub(crate) fn in_scope(&self, p: &Pattern, t: usize) -> Term {
        self.enc.in_scope(&p.scope, t)
    }

    /// Checks every member with `extra` (for this query only); an unsatisfiable
    /// answer comes with the minimized core's ids.
    pub(crate) fn check_all(&mut self, extra: &[Term]) -> Result<Made, GenerateError> {
        Ok(match self.check(None, extra)? {
            Outcome::Sat(m) => Made::Trace(self.trace_of(&m)),
            Outcome::Unsat(core) => Made::Unsat(self.minimize(core, extra)?),
            Outcome::Unknown(r) => Made::Unknown(r.clone().into()),
        })
    }

    /// `name = value` at step `t`.
    pub fn equals(&self, name: &str, t: usize, value: &Value) -> Term {
        Term::app(
            Op::Eq,
            vec![
                Term::var(&step_name(name, t), value.sort()),
                value.to_term(),
            ],
        )
    }

    /// Checks every member but the pattern of requirement `except`, with `extra`
    /// asserted for this query only.
    fn check(&mut self, except: Option<usize>, extra: &[Term]) -> Result<Outcome, GenerateError> {
        let lits: Vec<Term> = self
            .members
            .iter()
            .filter(|(_, _, i)| except.is_none() || *i != except)
            .map(|(l, _, _)| l.clone())
            .collect();
        self.solver.push()?;
        for t in extra {
            self.solver.assert(t)?;
        }
        self.queries += 1;
        let out = self.solver.check_assuming(&lits);
        self.solver.pop()?;
        Ok(out?)
    }

    /// Deletion-minimizes an unsatisfiable core and names its members.
    fn minimize(
        &mut self,
        mut core: Vec<Term>,
        extra: &[Term],
    ) -> Result<Vec<String>, GenerateError> {
        let mut j = 0;
        while j < core.len() {
            let mut c = core.clone();
            c.remove(j);
            self.solver.push()?;
            for t in extra {
                self.solver.assert(t)?;
            }
            self.queries += 1;
            let out = self.solver.check_assuming(&c);
            self.solver.pop()?;
            match out? {
                Outcome::Unsat(c2) => core = c.into_iter().filter(|l| c2.contains(l)).collect(),
                _ => j += 1,
            }
        }
        Ok(self
            .members
            .iter()
            .filter(|(l, _, _)| core.contains(l))
            .map(|(_, id, _)| id.clone())
            .collect())
    }

    /// The trace a model shows (a variable the model leaves out gets its sort's
    /// default within its bounds).
    fn trace_of(&self, m: &Model) -> Vec<Model> {
        let spec = self.spec;
        (0..self.enc.n)
            .map(|t| {
                let mut st = Model::new();
                for v in &spec.variables {
                    let val = m.get(&step_name(&v.name, t)).cloned().or_else(|| {
                        values::default_value(&v.sort, v.min.as_ref(), v.max.as_ref(), &spec.enums)
                    });
                    if let Some(val) = val {
                        st.insert(v.name.clone(), val);
                    }
                }
                st
            })
            .collect()
    }

    /// A trace with `shape`, every member holding but the pattern of `target`.
    fn make(&mut self, target: Option<usize>, shape: &Term) -> Result<Made, GenerateError> {
        let extra = [shape.clone()];
        Ok(match self.check(target, &extra)? {
            Outcome::Sat(m) => Made::Trace(self.trace_of(&m)),
            Outcome::Unsat(core) => Made::Unsat(self.minimize(core, &extra)?),
            Outcome::Unknown(r) => Made::Unknown(r.clone().into()),
        })
    }

    /// The expected value of each of `outputs` at each step, given the inputs of
    /// `trace` at every step: forced when every trace with these inputs that satisfies
    /// the domain and every requirement (the whole spec, the sequence's own
    /// requirement included) has the value `trace` shows, free when one differs.
    /// `None` when no valid trace has these inputs.
    pub fn expected(
        &mut self,
        trace: &[Model],
        inputs: &[Symbol],
        outputs: &[Symbol],
    ) -> Result<Option<Vec<ExpectedRow>>, GenerateError> {
        let mut fixed = Vec::new();
        for (t, st) in trace.iter().enumerate() {
            for n in inputs {
                if let Some(v) = st.get(n) {
                    fixed.push(self.equals(n, t, v));
                }
            }
        }
        let mut cells: std::collections::BTreeMap<(usize, usize), Expected> = Default::default();
        let mut open: Vec<(usize, usize)> = (0..outputs.len())
            .flat_map(|o| (0..trace.len()).map(move |t| (o, t)))
            .filter(|&(o, t)| trace[t].get(&outputs[o]).is_some())
            .collect();
        // Is there a valid trace with these inputs at all (the sequence's own one may
        // break its requirement)?
        let base: Vec<Model> = match self.check(None, &fixed)? {
            Outcome::Sat(m) => self.trace_of(&m),
            Outcome::Unsat(_) => return Ok(None),
            Outcome::Unknown(r) => {
                let why = solver::Undecided::from(r)
                    .map(|r| format!("the solver could not decide ({r})"));
                return Ok(Some(rows_of(outputs, trace.len(), |_, _| {
                    Expected::Undecided(why.clone())
                })));
            }
        };
        while !open.is_empty() {
            let differs: Vec<Term> = open
                .iter()
                .map(|&(o, t)| {
                    not(self.equals(&outputs[o], t, base[t].get(&outputs[o]).expect("shown")))
                })
                .collect();
            let mut extra = fixed.clone();
            extra.push(or(differs));
            match self.check(None, &extra)? {
                Outcome::Sat(m) => {
                    let other = self.trace_of(&m);
                    let before = open.len();
                    open.retain(|&(o, t)| {
                        let free = other[t].get(&outputs[o]) != base[t].get(&outputs[o]);
                        if free {
                            cells.insert((o, t), Expected::Free);
                        }
                        !free
                    });
                    if open.len() == before {
                        for c in open.drain(..) {
                            cells.insert(
                                c,
                                Expected::Undecided(solver::Undecided::other(
                                    "the solver's model does not show the output",
                                )),
                            );
                        }
                    }
                }
                Outcome::Unsat(_) => {
                    for (o, t) in open.drain(..) {
                        let v = base[t].get(&outputs[o]).expect("shown").clone();
                        cells.insert((o, t), Expected::Value(v));
                    }
                }
                Outcome::Unknown(r) => {
                    for c in open.drain(..) {
                        cells.insert(c, Expected::Undecided(r.clone().into()));
                    }
                }
            }
        }
        Ok(Some(rows_of(outputs, trace.len(), |o, t| {
            cells
                .get(&(o, t))
                .cloned()
                .unwrap_or_else(|| Expected::Undecided(solver::Undecided::other("no value")))
        })))
    }

    /// Judges an implementation's outputs on a sequence's inputs: pass when the inputs
    /// and the observed outputs (within `tolerance` for numbers) can be completed to a
    /// trace that satisfies the domain and every requirement; otherwise fail with a
    /// minimal set of requirements they contradict.
    pub fn judge(
        &mut self,
        inputs: &[Vec<(Symbol, Value)>],
        observed: &[Vec<(Symbol, Value)>],
        tolerance: Option<&num_rational::BigRational>,
    ) -> Result<Judged, GenerateError> {
        let mut extra = Vec::new();
        for (t, row) in inputs.iter().enumerate() {
            for (n, v) in row {
                extra.push(self.equals(n, t, v));
            }
        }
        for (t, row) in observed.iter().enumerate() {
            for (n, v) in row {
                let x = Term::var(&step_name(n, t), v.sort());
                extra.extend(crate::run::observed_is(x, v, tolerance));
            }
        }
        Ok(match self.check(None, &extra)? {
            Outcome::Sat(_) => Judged::Pass,
            Outcome::Unsat(core) => Judged::Fail(self.minimize(core, &extra)?),
            Outcome::Unknown(r) => Judged::Unknown(r.clone().into()),
        })
    }
}

/// Solver sessions over traces of each length, each started when first needed: the
/// sequences of a suite come in a few lengths, and a session answers any number of
/// questions (each in a scope of its own).
pub struct Sessions<'s> {
    spec: &'s Spec,
    config: SolverConfig,
    by_length: std::collections::HashMap<usize, TraceSession<'s>>,
}

impl<'s> Sessions<'s> {
    /// No session yet.
    pub fn new(spec: &'s Spec, config: &SolverConfig) -> Sessions<'s> {
        Sessions {
            spec,
            config: config.clone(),
            by_length: Default::default(),
        }
    }

    /// The session over traces of `n` steps.
    pub fn of_length(&mut self, n: usize) -> Result<&mut TraceSession<'s>, GenerateError> {
        if !self.by_length.contains_key(&n) {
            let session = TraceSession::start(self.spec, n, &self.config)?;
            self.by_length.insert(n, session);
        }
        Ok(self.by_length.get_mut(&n).expect("started"))
    }

    /// Queries asked in all of them.
    pub fn queries(&self) -> usize {
        self.by_length.values().map(|s| s.queries).sum()
    }
}

/// What [`TraceSession::judge`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Judged {
    /// A valid trace has these inputs and outputs.
    Pass,
    /// None has: a minimal set of members they contradict.
    Fail(Vec<String>),
    /// The solver could not decide (its reason).
    Unknown(solver::Undecided),
}

fn rows_of(
    outputs: &[Symbol],
    n: usize,
    mut cell: impl FnMut(usize, usize) -> Expected,
) -> Vec<ExpectedRow> {
    outputs
        .iter()
        .enumerate()
        .map(|(o, name)| ExpectedRow {
            variable: name.to_string(),
            values: (0..n).map(|t| cell(o, t)).collect(),
        })
        .collect()
}

/// An output's expected value at each step of a sequence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExpectedRow {
    /// The output.
    pub variable: String,
    /// Per step: the forced value, `free` or `undecided`.
    pub values: Vec<Expected>,
}

#[allow(clippy::too_many_arguments)]
fn table(
    spec: &Spec,
    id: &str,
    requirement: &str,
    shape: Shape,
    t0: usize,
    trace: &[Model],
    violated_at: Option<usize>,
    time: &reqs::timed::TimeBase,
    expected: Expectation,
) -> Sequence {
    let any_input = spec
        .variables
        .iter()
        .any(|v| v.role == Some(reqs::spec::Role::Input));
    let role = |v: &reqs::spec::Variable| match v.role {
        Some(reqs::spec::Role::Input) => "input",
        _ if any_input => "output",
        Some(reqs::spec::Role::Output) => "output",
        None => "state",
    };
    let mut vars: Vec<&reqs::spec::Variable> = spec.variables.iter().collect();
    vars.sort_by_key(|v| role(v) != "input");
    Sequence {
        id: id.to_string(),
        requirement: requirement.to_string(),
        shape,
        trigger_step: t0,
        times: (0..trace.len()).map(|t| time.show(t as u64)).collect(),
        rows: vars
            .iter()
            .map(|v| Row {
                variable: v.name.to_string(),
                role: role(v),
                values: trace
                    .iter()
                    .map(|st| st.get(&v.name).map(values::show).unwrap_or_default())
                    .collect(),
            })
            .collect(),
        violated_at,
        expected,
        covers: vec![id.to_string()],
        trace: trace.to_vec(),
    }
}

/// The traceability matrix of a timed suite: a header row (`requirement`, then one
/// column per made sequence), then one row per requirement with a formula or a
/// pattern; a cell names what the sequence was made to show for that requirement (its
/// shape, or the plain obligations of the requirement it meets).
pub fn matrix_rows(spec: &Spec, suite: &TimedSuite) -> Vec<Vec<String>> {
    let made: Vec<&Sequence> = suite.made().collect();
    let mut header = vec!["requirement".to_string()];
    header.extend(made.iter().map(|s| s.id.clone()));
    let mut rows = vec![header];
    for r in spec
        .requirements
        .iter()
        .filter(|r| r.timed.is_some() || r.formula.is_some())
    {
        let mut row = vec![r.id.clone()];
        let prefix = format!("{}/", r.id);
        for s in &made {
            row.push(if s.shape == Shape::Obligation {
                s.covers
                    .iter()
                    .filter_map(|c| c.strip_prefix(&prefix))
                    .collect::<Vec<_>>()
                    .join(" ")
            } else if s.requirement == r.id {
                shape_name(s.shape).to_string()
            } else {
                String::new()
            });
        }
        rows.push(row);
    }
    rows
}

//! The audits on traces, each saying what it concluded and up to which bound.
//!
//! The timed spec is unrolled to a horizon of `k` steps ([`super::unroll`]); the plain
//! audits run on the unrolled spec. What each verdict means:
//!
//! - *inconsistent*: no trace of `k+1` steps satisfies the requirements, so no run at
//!   all does (a definite verdict);
//! - *consistent*: with a looping witness (the state and monitors at step `k` equal
//!   those at an earlier step `l`, so the steps `l+1 .. k` can repeat for ever), an
//!   infinite run exists; without one, only a run of `k+1` steps was found;
//! - *reachable* trigger, *violatable*, *not redundant*: shown by a finite trace, re-checked
//!   with the trace evaluator ([`super::trace`]);
//! - *vacuous*, *implied by the domain*, *redundant*: hold for the first `k+1` steps
//!   only; a requirement whose own durations do not fit in the horizon is not judged;
//! - *rt-inconsistent*: a prefix allowed by every requirement after which no next step
//!   satisfies some (minimal) set of them; looked for at every prefix length up to the
//!   rt horizon, each set found by the realizability audit's exists-forall loop with the
//!   prefix as the environment's choice.

use super::dense::system::subst;
use super::trace;
use super::unroll::{at, split_name, unroll, var_at, Unrolled};
use super::TimeBase;
use crate::audit::{
    audit, load_into, Assignment, AuditOptions, Consistency, Redundancy, RequirementAudit, Session,
    Vacuity, Violatability, Witness,
};
use crate::realize::{realizability, EnvConflict, Realizability, RealizeOptions};
use crate::spec::{Constraint, Requirement, Role, Shape, Spec, Variable};
use logic::{Model, Op, Sort, Term, Value};
use serde::Serialize;
use solver::{Outcome, Solver, SolverError};

/// Options for [`audit_timed`].
#[derive(Debug, Clone)]
pub struct TimedOptions {
    /// The plain audits' options (solver, jobs, conflicts).
    pub audit: AuditOptions,
    /// The horizon in steps (default: from the spec's `horizon`, else derived).
    pub horizon: Option<usize>,
    /// Look for rt-inconsistency at prefix lengths up to this many steps (default: the
    /// longest requirement's need, within the horizon; never more than the horizon).
    pub rt_horizon: Option<usize>,
    /// Skip the rt-inconsistency check.
    pub no_rt: bool,
}

/// A trace shown to people: maximal intervals of steps over which the shown state
/// does not change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Timeline {
    /// Number of steps in the trace.
    pub steps: usize,
    /// The intervals, in order.
    pub rows: Vec<Interval>,
    /// For a looping witness: the step the run loops back to after the last one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loops_to: Option<usize>,
    /// That step's time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loops_to_time: Option<String>,
}

/// Steps `from .. to` (exclusive) with one state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Interval {
    /// First step.
    pub from: usize,
    /// The step after the last.
    pub to: usize,
    /// `from` as time (`0 s`).
    pub from_time: String,
    /// `to` as time.
    pub to_time: String,
    /// The state over these steps.
    pub values: Witness,
}

/// The horizon the audits used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Horizon {
    /// The last step `k` (the traces have `k+1` states).
    pub steps: usize,
    /// `k` ticks as time.
    pub time: String,
    /// Where it came from.
    pub source: String,
}

/// Global consistency over traces.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum TimedConsistency {
    /// A run exists.
    Consistent {
        /// True when the witness loops, so an infinite run exists; false when only a
        /// run of `k+1` steps was found.
        infinite: bool,
        /// The witness.
        witness: Timeline,
    },
    /// The domain constraints alone admit no state.
    DomainInconsistent {
        /// The clashing constraints.
        conflict: Vec<String>,
    },
    /// No run exists.
    Inconsistent {
        /// Minimal conflicting sets.
        conflicts: Vec<Vec<String>>,
        /// Every minimal set was found.
        complete: bool,
    },
    /// No answer.
    Unknown {
        /// Why.
        #[serde(flatten)]
        reason: solver::Undecided,
    },
}

/// Can the requirement be broken?
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum TimedViolatability {
    /// A trace of the domain that breaks it (re-checked by the evaluator).
    Violatable {
        /// The trace.
        trace: Timeline,
        /// The first step where it is broken.
        at: usize,
    },
    /// Within the horizon, the domain constraints enforce it.
    ImpliedByDomain {
        /// The constraints.
        because: Vec<String>,
    },
    /// Not judged, or no answer.
    Unknown {
        /// Why.
        #[serde(flatten)]
        reason: solver::Undecided,
    },
}

/// Do the others already enforce it?
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum TimedRedundancy {
    /// No: a trace that satisfies the others and breaks it.
    NotRedundant {
        /// The trace.
        trace: Timeline,
    },
    /// Yes, within the horizon.
    Redundant {
        /// Minimal subsuming set.
        subsumed_by: Vec<String>,
    },
    /// Not checked.
    Skipped {
        /// Why.
        reason: String,
    },
    /// No answer.
    Unknown {
        /// Why.
        #[serde(flatten)]
        reason: solver::Undecided,
    },
}

/// The audit of one requirement on traces.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TimedRequirementAudit {
    /// Id.
    pub id: String,
    /// Line in the spec.
    pub line: usize,
    /// The pattern in words (or the formula of a plain requirement).
    pub pattern: String,
    /// Steps the requirement's own durations need.
    pub needs_steps: usize,
    /// False when the horizon is shorter than that: vacuity and redundancy are then
    /// not judged.
    pub fits: bool,
    /// Can it fire under the domain constraints?
    pub vacuity_domain: Vacuity,
    /// Can it fire under everything?
    pub vacuity: Vacuity,
    /// Can it be broken?
    pub violatability: TimedViolatability,
    /// Do the others enforce it?
    pub redundancy: TimedRedundancy,
    /// The bounded verdicts that k-induction proved for runs of any length:
    /// `vacuity_domain`, `vacuity`, `implied_by_domain`, `redundancy`. A verdict not
    /// listed holds for the first `k+1` steps only.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub proved_for_every_run: Vec<&'static str>,
}

/// A minimal set of requirements a prefix can drive into a dead end.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RtConflict {
    /// The requirements.
    pub requirements: Vec<String>,
    /// Domain constraints taking part.
    pub domain: Vec<String>,
    /// The prefix: every requirement holds on it, and no next step satisfies the set.
    pub prefix: Timeline,
    /// The step no state can follow.
    pub dead_end_at: usize,
}

/// rt-inconsistency.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum RtInconsistency {
    /// Not checked.
    NotChecked {
        /// Why.
        reason: String,
    },
    /// No prefix of at most `up_to` steps is a dead end.
    NoneUpTo {
        /// The longest prefix checked, in steps.
        up_to: usize,
        /// As time.
        time: String,
        /// True when k-induction also showed that no prefix of any length is a dead
        /// end (the same question after the last `up_to` steps of any run).
        every_prefix: bool,
    },
    /// Dead ends found.
    Found {
        /// Each minimal set, with its shortest prefix.
        conflicts: Vec<RtConflict>,
        /// The longest prefix checked.
        up_to: usize,
        /// False when a check gave no answer or hit a cap.
        complete: bool,
    },
    /// No answer.
    Unknown {
        /// Why.
        #[serde(flatten)]
        reason: solver::Undecided,
    },
}

/// The whole audit on traces.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TimedReport {
    /// The tick.
    pub tick: String,
    /// The horizon used.
    pub horizon: Horizon,
    /// Requirements whose durations do not fit in the horizon.
    pub bound_too_small: Vec<String>,
    /// Consistency.
    pub consistency: TimedConsistency,
    /// Per requirement.
    pub requirements: Vec<TimedRequirementAudit>,
    /// Requirements without formula or pattern.
    pub not_formalized: Vec<String>,
    /// rt-inconsistency: dead ends whatever the next state.
    pub rt_inconsistency: RtInconsistency,
    /// Bounded realizability over traces: dead ends the environment forces by choosing
    /// the next step's inputs (sets that are not rt-inconsistent on their own).
    pub environment: RtInconsistency,
    /// Solver queries of the plain audits and the looping-witness check.
    pub queries: usize,
}

impl TimedReport {
    /// True when anything is wrong or unknown.
    pub fn has_findings(&self) -> bool {
        !matches!(self.consistency, TimedConsistency::Consistent { .. })
            || [&self.rt_inconsistency, &self.environment].iter().any(|r| {
                !matches!(
                    r,
                    RtInconsistency::NoneUpTo { .. } | RtInconsistency::NotChecked { .. }
                )
            })
            || self.requirements.iter().any(|r| {
                matches!(
                    r.vacuity_domain,
                    Vacuity::Vacuous { .. } | Vacuity::Unknown { .. }
                ) || matches!(r.vacuity, Vacuity::Vacuous { .. } | Vacuity::Unknown { .. })
                    || !matches!(r.violatability, TimedViolatability::Violatable { .. })
                    || matches!(
                        r.redundancy,
                        TimedRedundancy::Redundant { .. } | TimedRedundancy::Unknown { .. }
                    )
            })
    }
}

/// Why a timed audit could not run.
#[derive(Debug, thiserror::Error)]
pub enum TimedError {
    /// The spec has no `[time]` table.
    #[error("the spec has no [time] table")]
    NotTimed,
    /// The solver failed.
    #[error(transparent)]
    Solver(#[from] SolverError),
    /// A witness trace did not pass the evaluator: a bug, never a verdict.
    #[error("a witness trace failed its re-check: {0}")]
    Witness(String),
    /// The unrolling would not fit: refused before anything is built.
    #[error("too large: the horizon is {steps} steps ({origin}); the audits on traces unroll every step, about {megabytes} MB here, over the limit of {limit} steps. Give a shorter horizon (--horizon, or `horizon` in [time]; the checks then cover runs of that length) or a coarser tick")]
    TooLarge {
        /// The horizon asked for or derived.
        steps: usize,
        /// Where it came from.
        origin: String,
        /// The estimated memory of the unrolled spec, in megabytes.
        megabytes: u64,
        /// The largest horizon unrolled.
        limit: usize,
    },
}

/// The longest horizon unrolled: beyond it the unrolled spec (a copy of every variable
/// and monitor per step) takes gigabytes before any solver runs.
pub const MAX_HORIZON_STEPS: usize = 20_000;

/// A rough estimate of the unrolled spec's memory: every step copies every variable and
/// every requirement's monitor state, each a few hundred bytes of terms.
fn unrolled_megabytes(spec: &Spec, steps: usize) -> u64 {
    let per_step = spec.variables.len() + 4 * spec.requirements.len() + 1;
    ((steps as u64) * (per_step as u64) * 400) / (1024 * 1024)
}

/// Steps a requirement's own durations need to show.
fn needs(r: &Requirement) -> usize {
    r.timed.as_ref().map_or(1, |p| p.longest() as usize + 2)
}

/// The horizon: the option, else the spec's, else twice the longest need (at least 4).
pub fn horizon(spec: &Spec, tb: &TimeBase, asked: Option<usize>) -> Horizon {
    let longest = spec.requirements.iter().map(needs).max().unwrap_or(1);
    let (steps, source) = match (asked, tb.horizon) {
        (Some(k), _) => (k, "given with --horizon".to_string()),
        (None, Some(h)) => (h as usize, "the spec's [time] horizon".to_string()),
        (None, None) => (
            (2 * longest).max(4),
            format!("derived: twice the longest requirement ({} steps)", longest),
        ),
    };
    Horizon {
        steps,
        time: tb.show(steps as u64),
        source,
    }
}

/// A model's values as a timeline over the schema's variables.
pub fn timeline(
    u: &Unrolled,
    tb: &TimeBase,
    model: &Model,
    steps: usize,
    only: Option<&[String]>,
) -> Timeline {
    // The first `state.len()` unrolled variables are the schema's at step 0, in order.
    let shown: Vec<(&str, &Variable)> = u
        .state
        .iter()
        .zip(&u.spec.variables)
        .map(|((n, _), v)| (&**n, v))
        .filter(|(n, _)| only.is_none_or(|o| o.iter().any(|x| x.as_str() == *n)))
        .collect();
    let state = |t: usize| -> Witness {
        shown
            .iter()
            .filter_map(|(n, v)| {
                model.get(&var_at(n, t)).map(|val| Assignment {
                    variable: n.to_string(),
                    value: val.to_string(),
                    unit: v.unit.clone(),
                })
            })
            .collect()
    };
    let mut rows: Vec<Interval> = Vec::new();
    for t in 0..steps {
        let s = state(t);
        match rows.last_mut() {
            Some(last) if last.values == s => {
                last.to = t + 1;
                last.to_time = tb.show(t as u64 + 1);
            }
            _ => rows.push(Interval {
                from: t,
                to: t + 1,
                from_time: tb.show(t as u64),
                to_time: tb.show(t as u64 + 1),
                values: s,
            }),
        }
    }
    Timeline {
        steps,
        rows,
        loops_to: None,
        loops_to_time: None,
    }
}

/// A witness (over `x@t` names) as a model.
fn model_of(w: &Witness, u: &Unrolled) -> Model {
    let mut m = Model::new();
    for a in w {
        let Some((name, _)) = split_name(&a.variable) else {
            continue;
        };
        let Some((_, sort)) = u.state.iter().find(|(n, _)| &**n == name) else {
            continue;
        };
        if let Some(v) = parse_shown(&a.value, sort, u) {
            m.insert(a.variable.as_str().into(), v);
        }
    }
    m
}

/// Reads back a value as [`Value`]'s `Display` prints it (`true`, `-3`, `2.5`, `1/3`,
/// `Ready`).
fn parse_shown(s: &str, sort: &Sort, _u: &Unrolled) -> Option<Value> {
    use num_bigint::BigInt;
    use num_rational::BigRational;
    Some(match sort {
        Sort::Bool => Value::Bool(s.parse().ok()?),
        Sort::Int => Value::Int(s.parse::<BigInt>().ok()?),
        Sort::Real => {
            let (neg, body) = match s.strip_prefix('-') {
                Some(b) => (true, b),
                None => (false, s),
            };
            let r = match body.split_once('/') {
                Some((n, d)) => BigRational::new(n.parse().ok()?, d.parse().ok()?),
                None => logic::elab::parse_decimal(body),
            };
            Value::Real(if neg { -r } else { r })
        }
        Sort::Enum(e) => Value::Enum(e.clone(), s.into()),
    })
}

/// The trace of steps `0 .. steps` (schema variables only) from a model over `x@t`.
pub(crate) fn trace_of(u: &Unrolled, model: &Model, steps: usize) -> trace::Trace {
    (0..steps)
        .map(|t| {
            let mut m = Model::new();
            for (n, _) in &u.state {
                if let Some(v) = model.get(&var_at(n, t)) {
                    m.insert(n.clone(), v.clone());
                }
            }
            m
        })
        .collect()
}

/// The steps where requirement `i` is violated on a trace, by the evaluator.
pub(crate) fn violations(
    spec: &Spec,
    i: usize,
    tr: &trace::Trace,
) -> Result<Vec<usize>, TimedError> {
    let r = &spec.requirements[i];
    let res = match (&r.timed, &r.formula) {
        (Some(p), _) => trace::violations(p, tr, &spec.context),
        (None, Some(f)) => trace::formula_violations(f, tr, &spec.context),
        (None, None) => Ok(Vec::new()),
    };
    res.map_err(|e| TimedError::Witness(format!("{}: {e}", r.id)))
}

/// Runs the audits on traces.
pub fn audit_timed(spec: &Spec, options: &TimedOptions) -> Result<TimedReport, TimedError> {
    let tb = spec.time.as_ref().ok_or(TimedError::NotTimed)?;
    let horizon = horizon(spec, tb, options.horizon);
    let k = horizon.steps;
    if k > MAX_HORIZON_STEPS {
        return Err(TimedError::TooLarge {
            steps: k,
            origin: horizon.source,
            megabytes: unrolled_megabytes(spec, k),
            limit: MAX_HORIZON_STEPS,
        });
    }
    let u = unroll(spec, k);
    let bound_too_small: Vec<String> = spec
        .requirements
        .iter()
        .filter(|r| needs(r) > k + 1)
        .map(|r| r.id.clone())
        .collect();

    // The plain audits on the unrolled spec. Realizability over whole traces would let
    // the environment see the future: not run here (the rt check below is its
    // step-by-step form).
    let mut plain_options = options.audit.clone();
    plain_options.realizability = false;
    plain_options.cache_dir = None;
    let plain = audit(&u.spec, &plain_options).map_err(|e| match e {
        crate::audit::AuditError::Solver(s) => TimedError::Solver(s),
    })?;
    let queries = plain.queries;
    // One session for the witnesses: the plain audit's witnesses show only the
    // variables of the unrolled formula (monitors), and a trace needs the state.
    let mut solver = Solver::start(&options.audit.solver)?;
    let lits = load_into(&mut solver, &u.spec)?;
    let mut s = Session::new(&mut solver, lits);
    let back = ReadBack { spec, u: &u, tb, k };
    let consistency = back.consistency(&plain.consistency, &mut s)?;
    let mut requirements = Vec::new();
    for ra in &plain.requirements {
        requirements.push(back.requirement(ra, &mut s)?);
    }
    induction(spec, &u, options, &mut requirements)?;
    let (rt_inconsistency, environment) = rt_checks(spec, tb, options, k, &consistency)?;
    Ok(TimedReport {
        tick: tb.tick_text.clone(),
        horizon,
        bound_too_small,
        consistency,
        requirements,
        not_formalized: plain.not_formalized,
        rt_inconsistency,
        environment,
        queries: queries + s.queries,
    })
}

/// A spec, its unrolling to `k` steps and its time base: what the plain audit's
/// results on the unrolled spec are read back into timed results with.
struct ReadBack<'a> {
    spec: &'a Spec,
    u: &'a Unrolled,
    tb: &'a TimeBase,
    k: usize,
}

impl ReadBack<'_> {
    /// The ids without the unrolling's monitors.
    fn hide(&self, ids: Vec<String>) -> Vec<String> {
        ids.into_iter()
            .filter(|i| !self.u.monitor_ids.contains(i))
            .collect()
    }

    /// The consistency on traces, with a witness run when consistent.
    fn consistency(
        &self,
        plain: &Consistency,
        s: &mut Session,
    ) -> Result<TimedConsistency, TimedError> {
        Ok(match plain {
            Consistency::Consistent => consistent_witness(self.spec, self.u, self.tb, s)?,
            Consistency::DomainInconsistent { conflict } => TimedConsistency::DomainInconsistent {
                conflict: self.hide(conflict.clone()),
            },
            Consistency::Inconsistent {
                conflicts,
                complete,
                ..
            } => TimedConsistency::Inconsistent {
                conflicts: conflicts.iter().map(|c| self.hide(c.clone())).collect(),
                complete: *complete,
            },
            Consistency::Unknown { reason } => TimedConsistency::Unknown {
                reason: reason.clone(),
            },
        })
    }

    /// One requirement's timed audit, from its plain audit `ra`, with witness traces.
    fn requirement(
        &self,
        ra: &RequirementAudit,
        s: &mut Session,
    ) -> Result<TimedRequirementAudit, TimedError> {
        let (spec, tb, k) = (self.spec, self.tb, self.k);
        let i = spec
            .requirements
            .iter()
            .position(|r| r.id == ra.id)
            .expect("same ids");
        let r = &spec.requirements[i];
        let fits = needs(r) <= k + 1;
        let pattern = match (&r.timed, &r.formula) {
            (Some(p), _) => p.describe(tb),
            (None, Some(f)) => format!("at every step: {}", logic::print::term(f)),
            _ => String::new(),
        };
        let unfit = |v: Vacuity| -> Vacuity {
            match v {
                Vacuity::Vacuous { .. } if !fits => Vacuity::Skipped {
                    reason: format!("bound too small for {}: it needs {} steps", r.id, needs(r)),
                },
                Vacuity::Vacuous {
                    because,
                    response_conflict,
                } => Vacuity::Vacuous {
                    because: self.hide(because),
                    response_conflict,
                },
                other => other,
            }
        };
        // A trace that satisfies the others and breaks this one serves both as the
        // redundancy and the violatability witness.
        let dom = s.lits.domain().to_vec();
        let mut rest = dom.clone();
        rest.extend(s.lits.reqs_except(Some(i)));
        let breaks_rest = if matches!(ra.redundancy, Redundancy::NotRedundant { .. }) {
            Some(self.trace_under(s, i, &rest, "not redundant")?)
        } else {
            None
        };
        let violatability = self.violatability(s, i, fits, ra, &breaks_rest, &dom)?;
        let redundancy = self.redundancy(i, fits, ra, breaks_rest)?;
        Ok(TimedRequirementAudit {
            id: r.id.clone(),
            line: r.line,
            pattern,
            needs_steps: needs(r),
            fits,
            vacuity_domain: unfit(ra.vacuity_domain.clone()),
            vacuity: unfit(ra.vacuity_model.clone()),
            violatability,
            redundancy,
            proved_for_every_run: Vec::new(),
        })
    }

    /// The witness trace that requirement `i` is `what`: the earliest break under
    /// `base`. A solver that gives no answer this time leaves the verdict without its
    /// trace (`Err(reason)`); an unsat answer contradicts the audit and is an error.
    fn trace_under(
        &self,
        s: &mut Session,
        i: usize,
        base: &[Term],
        what: &str,
    ) -> Result<Result<Model, solver::Undecided>, TimedError> {
        let r = &self.spec.requirements[i];
        let breaking = [Term::not(
            self.u.spec.requirements[i]
                .formula
                .clone()
                .expect("formalized"),
        )];
        match s.check(base, &breaking)? {
            Outcome::Sat(m) => Ok(Ok(shortest_break(s, base, self.u, self.spec, i, m)?)),
            Outcome::Unknown(reason) => Ok(Err(solver::Undecided::from(reason).map(|why| {
                format!(
                    "{} is {what}, but the query for a trace that shows it gave no answer: {why}",
                    r.id
                )
            }))),
            Outcome::Unsat(_) => Err(TimedError::Witness(format!(
                "the audit found {} {what}, a second query found no trace",
                r.id
            ))),
        }
    }

    /// Requirement `i`'s violatability on traces, with the trace that breaks it (the
    /// one that breaks it under the rest, `breaks_rest`, when there is one; else one
    /// under the domain `dom`).
    fn violatability(
        &self,
        s: &mut Session,
        i: usize,
        fits: bool,
        ra: &RequirementAudit,
        breaks_rest: &Option<Result<Model, solver::Undecided>>,
        dom: &[Term],
    ) -> Result<TimedViolatability, TimedError> {
        let (spec, tb, k, u) = (self.spec, self.tb, self.k, self.u);
        let r = &spec.requirements[i];
        Ok(match &ra.violatability {
            Violatability::Violatable { .. } => {
                let m = match breaks_rest {
                    Some(Ok(m)) => Ok(m.clone()),
                    _ => self.trace_under(s, i, dom, "violatable")?,
                };
                match m {
                    Err(reason) => TimedViolatability::Unknown { reason },
                    Ok(m) => {
                        let tr = trace_of(u, &m, k + 1);
                        let v = violations(spec, i, &tr)?;
                        let Some(first) = v.first().copied() else {
                            return Err(TimedError::Witness(format!(
                                "the trace shown to break {} does not break it",
                                r.id
                            )));
                        };
                        TimedViolatability::Violatable {
                            trace: timeline(u, tb, &m, first + 1, None),
                            at: first,
                        }
                    }
                }
            }
            Violatability::ImpliedByDomain { .. } if !fits => TimedViolatability::Unknown {
                reason: solver::Undecided::other(format!(
                    "bound too small for {}: it needs {} steps",
                    r.id,
                    needs(r)
                )),
            },
            Violatability::ImpliedByDomain { because } => TimedViolatability::ImpliedByDomain {
                because: self.hide(because.clone()),
            },
            Violatability::Unknown { reason } => TimedViolatability::Unknown {
                reason: reason.clone(),
            },
        })
    }

    /// Requirement `i`'s redundancy on traces, with the trace that breaks it under the
    /// rest (`breaks_rest`, asked when it is not redundant).
    fn redundancy(
        &self,
        i: usize,
        fits: bool,
        ra: &RequirementAudit,
        breaks_rest: Option<Result<Model, solver::Undecided>>,
    ) -> Result<TimedRedundancy, TimedError> {
        let (spec, k, u) = (self.spec, self.k, self.u);
        let r = &spec.requirements[i];
        Ok(match &ra.redundancy {
            Redundancy::NotRedundant { .. } => match breaks_rest.expect("asked above") {
                Err(reason) => TimedRedundancy::Unknown { reason },
                Ok(m) => {
                    let tr = trace_of(u, &m, k + 1);
                    let first = violations(spec, i, &tr)?.first().copied();
                    TimedRedundancy::NotRedundant {
                        trace: timeline(u, self.tb, &m, first.map_or(k + 1, |f| f + 1), None),
                    }
                }
            },
            Redundancy::Redundant { .. } if !fits => TimedRedundancy::Skipped {
                reason: format!("bound too small for {}: it needs {} steps", r.id, needs(r)),
            },
            Redundancy::Redundant { subsumed_by } => TimedRedundancy::Redundant {
                subsumed_by: self.hide(subsumed_by.clone()),
            },
            Redundancy::Skipped { reason } => TimedRedundancy::Skipped {
                reason: reason.clone(),
            },
            Redundancy::Unknown { reason } => TimedRedundancy::Unknown {
                reason: reason.clone(),
            },
        })
    }
}

/// The rt checks: rt-inconsistency of the requirements, then what the environment
/// (the inputs) can force beyond it; not run when not asked for or when the
/// requirements are not consistent.
fn rt_checks(
    spec: &Spec,
    tb: &TimeBase,
    options: &TimedOptions,
    k: usize,
    consistency: &TimedConsistency,
) -> Result<(RtInconsistency, RtInconsistency), TimedError> {
    let longest = spec.requirements.iter().map(needs).max().unwrap_or(1);
    let rt_k = options.rt_horizon.unwrap_or(longest + 2).min(k);
    let not_run = if options.no_rt {
        Some("not asked for")
    } else if !matches!(consistency, TimedConsistency::Consistent { .. }) {
        Some("the requirements are not consistent")
    } else {
        None
    };
    let rt_inconsistency = match not_run {
        Some(reason) => RtInconsistency::NotChecked {
            reason: reason.into(),
        },
        None => rt_check(spec, tb, options, rt_k, false)?,
    };
    let has_inputs = spec.variables.iter().any(|v| v.role == Some(Role::Input));
    let environment = match not_run {
        Some(reason) => RtInconsistency::NotChecked {
            reason: reason.into(),
        },
        None if !has_inputs => RtInconsistency::NotChecked {
            reason: "no variable has role = \"input\"".into(),
        },
        None => {
            let found = with_first_state(spec, options, rt_check(spec, tb, options, rt_k, true)?)?;
            beyond_own(found, &rt_inconsistency, tb)
        }
    };
    Ok((rt_inconsistency, environment))
}

/// The environment's rt-inconsistencies `found` without those of sets already
/// rt-inconsistent on their own (`own`), which need no environment.
fn beyond_own(found: RtInconsistency, own: &RtInconsistency, tb: &TimeBase) -> RtInconsistency {
    match found {
        RtInconsistency::Found {
            mut conflicts,
            up_to,
            complete,
        } => {
            if let RtInconsistency::Found { conflicts: own, .. } = own {
                conflicts.retain(|c| {
                    !own.iter()
                        .any(|o| o.requirements.iter().all(|x| c.requirements.contains(x)))
                });
            }
            if conflicts.is_empty() {
                RtInconsistency::NoneUpTo {
                    up_to,
                    time: tb.show(up_to as u64),
                    every_prefix: false,
                }
            } else {
                RtInconsistency::Found {
                    conflicts,
                    up_to,
                    complete,
                }
            }
        }
        other => other,
    }
}

/// A consistent spec's witness: a looping run when there is one within the horizon.
fn consistent_witness(
    spec: &Spec,
    u: &Unrolled,
    tb: &TimeBase,
    s: &mut Session,
) -> Result<TimedConsistency, TimedError> {
    let k = u.k;
    let mut all = s.lits.domain().to_vec();
    all.extend(s.lits.reqs_except(None));
    // The full state at k (schema variables and monitors) equals the one at some l < k.
    let same = |l: usize| -> Term {
        let mut eqs: Vec<Term> = u
            .state
            .iter()
            .map(|(n, srt)| {
                Term::App(
                    Op::Eq,
                    vec![
                        Term::Var(var_at(n, k), srt.clone()),
                        Term::Var(var_at(n, l), srt.clone()),
                    ],
                )
            })
            .collect();
        for ((a, srt, _), (b, _, _)) in u.monitors[k].iter().zip(&u.monitors[l]) {
            eqs.push(Term::App(
                Op::Eq,
                vec![
                    Term::Var(a.clone(), srt.clone()),
                    Term::Var(b.clone(), srt.clone()),
                ],
            ));
        }
        Term::App(Op::And, eqs.into_iter().chain([Term::Bool(true)]).collect())
    };
    let mut found = None;
    if k >= 1 {
        let loop_back = Term::App(
            Op::Or,
            (0..k).map(same).chain([Term::Bool(false)]).collect(),
        );
        if let Outcome::Sat(m) = s.check(&all, &[loop_back])? {
            found = Some((m, true));
        }
    }
    if found.is_none() {
        match s.check(&all, &[])? {
            Outcome::Sat(m) => found = Some((m, false)),
            Outcome::Unsat(_) => {
                return Err(TimedError::Witness(
                    "the audit found the spec consistent, a second query found no trace".into(),
                ))
            }
            Outcome::Unknown(r) => {
                return Ok(TimedConsistency::Unknown {
                    reason: r.clone().into(),
                })
            }
        }
    }
    let (mut m, infinite) = found.expect("set above");
    // Fewer value changes: each variable held constant over the whole run where the
    // requirements allow it (one query per variable).
    let mut extra: Vec<Term> = Vec::new();
    if infinite {
        extra.push(Term::App(
            Op::Or,
            (0..k).map(same).chain([Term::Bool(false)]).collect(),
        ));
    }
    m = fewer_changes(s, &all, &mut extra, u, k, m)?;
    let tr = trace_of(u, &m, k + 1);
    for i in 0..spec.requirements.len() {
        let v = violations(spec, i, &tr)?;
        if !v.is_empty() {
            return Err(TimedError::Witness(format!(
                "the consistency witness breaks {} at step {}",
                spec.requirements[i].id, v[0]
            )));
        }
    }
    let mut witness = timeline(u, tb, &m, k + 1, None);
    if infinite {
        // The loop target: the first l whose state and monitors equal step k's.
        let eval = |t: &Term| logic::eval_bool(t, &m, &u.spec.context).unwrap_or(false);
        if let Some(l) = (0..k).find(|l| eval(&same(*l))) {
            witness.loops_to = Some(l + 1);
            witness.loops_to_time = Some(tb.show(l as u64 + 1));
        }
    }
    Ok(TimedConsistency::Consistent { infinite, witness })
}

/// Looks for dead ends after prefixes of `1 ..= up_to` steps, all prefix lengths in one
/// exists-forall question: the prefix (with its length `p`) is the environment's
/// choice, the state after it is the current state, and the realizability loop finds
/// every minimal set of requirements that no next step can satisfy after some allowed
/// prefix. For each set, the shortest such prefix is then found by bisection on `p`.
fn rt_check(
    spec: &Spec,
    tb: &TimeBase,
    options: &TimedOptions,
    up_to: usize,
    env: bool,
) -> Result<RtInconsistency, TimedError> {
    let (rt, pre) = rt_spec(spec, up_to.max(1), env, false);
    let mut ro = RealizeOptions::new(options.audit.solver.clone());
    ro.max_conflicts = 20;
    let first = realizability(&rt, &ro)?;
    let (found, complete) = match first {
        Realizability::Realizable { .. } => {
            // k-induction: the same question after the last `up_to` steps of any run.
            let (any, _) = rt_spec(spec, up_to.max(1), env, true);
            ro.max_conflicts = 1;
            let every_prefix =
                matches!(realizability(&any, &ro)?, Realizability::Realizable { .. });
            return Ok(RtInconsistency::NoneUpTo {
                up_to,
                time: tb.show(up_to as u64),
                every_prefix,
            });
        }
        Realizability::NotChecked { .. } => {
            return Ok(RtInconsistency::NoneUpTo {
                up_to,
                time: tb.show(up_to as u64),
                every_prefix: false,
            })
        }
        Realizability::Unknown { reason } => return Ok(RtInconsistency::Unknown { reason }),
        Realizability::Unrealizable {
            conflicts,
            complete,
            ..
        } => (conflicts, complete),
    };
    let mut conflicts = Vec::new();
    for f in found {
        let best = shortest_prefix(&rt, &f, &mut ro)?;
        let p = best
            .0
            .ok_or_else(|| TimedError::Witness("a dead end without its prefix length".into()))?;
        let inputs = steadier_prefix(&rt, &pre, &f.requirements, (p, best.1), &mut ro)?;
        let m = model_of(&inputs, &pre);
        let tr = trace_of(&pre, &m, p + 1);
        for i in 0..spec.requirements.len() {
            if !violations(spec, i, &tr)?.is_empty() {
                return Err(TimedError::Witness(format!(
                    "a dead-end prefix breaks {}",
                    spec.requirements[i].id
                )));
            }
        }
        conflicts.push(RtConflict {
            requirements: f.requirements.clone(),
            domain: f
                .domain
                .iter()
                .filter(|d| !d.starts_with('('))
                .map(|d| d.trim_end_matches(" (next step)").to_string())
                .collect(),
            prefix: timeline(&pre, tb, &m, p + 1, None),
            dead_end_at: p + 1,
        });
    }
    conflicts.sort_by_key(|c| (c.dead_end_at, c.requirements.clone()));
    Ok(RtInconsistency::Found {
        conflicts,
        up_to,
        complete,
    })
}

/// The prefix length of a dead end's witness.
fn prefix_length(w: &Witness) -> Option<usize> {
    w.iter()
        .find(|a| a.variable == RT_LENGTH)
        .and_then(|a| a.value.parse().ok())
}

/// The rt spec `rt` with only `set`'s requirements and prefixes ending at most at
/// `bound`.
fn rt_for_set(rt: &Spec, set: &[String], bound: usize) -> Spec {
    let mut sub = rt.clone();
    sub.requirements.retain(|r| set.contains(&r.id));
    sub.domain.push(Constraint {
        id: "(prefix bound)".into(),
        text: None,
        formula: Term::App(
            Op::Le,
            vec![Term::var(RT_LENGTH, Sort::Int), Term::int(bound as i64)],
        ),
        line: 0,
    });
    sub
}

/// The shortest prefix after which the dead end `f` of `rt` is reached, with only
/// its set's requirements (its length and witness): bounds 0, 1, 3, 7, ... first (most
/// dead ends are short), then bisection.
fn shortest_prefix(
    rt: &Spec,
    f: &EnvConflict,
    ro: &mut RealizeOptions,
) -> Result<(Option<usize>, Witness), TimedError> {
    let mut best = (prefix_length(&f.inputs), f.inputs.clone());
    if let Some(mut hi) = best.0 {
        let mut lo = 0;
        let mut probe = Some(0usize);
        while lo < hi {
            let mid = match probe {
                Some(b) if b < hi => b,
                _ => {
                    probe = None;
                    (lo + hi) / 2
                }
            };
            let sub = rt_for_set(rt, &f.requirements, mid);
            ro.max_conflicts = 1;
            let answer = realizability(&sub, ro)?;
            match answer {
                Realizability::Unrealizable { conflicts: c, .. } if !c.is_empty() => {
                    let p = prefix_length(&c[0].inputs).unwrap_or(mid);
                    best = (Some(p), c[0].inputs.clone());
                    hi = p.min(mid);
                    probe = None;
                }
                _ => {
                    lo = mid + 1;
                    probe = probe.map(|b| 2 * b + 1);
                }
            }
        }
    }
    Ok(best)
}

/// The witness `inputs` of a dead end of `set` after a prefix of length `p`, with
/// fewer value changes: each schema variable held constant over the prefix where the
/// dead end stays reachable with the same length.
fn steadier_prefix(
    rt: &Spec,
    pre: &Unrolled,
    set: &[String],
    (p, mut inputs): (usize, Witness),
    ro: &mut RealizeOptions,
) -> Result<Witness, TimedError> {
    let mut sub = rt_for_set(rt, set, p);
    ro.max_conflicts = 1;
    let plen = Term::var(RT_LENGTH, Sort::Int);
    for (n, srt) in &pre.state {
        if p == 0 {
            break;
        }
        let m = model_of(&inputs, pre);
        let first = m.get(&var_at(n, 0)).cloned();
        if (1..=p).all(|t| m.get(&var_at(n, t)).cloned() == first) {
            continue;
        }
        let mut attempt = sub.clone();
        attempt.domain.push(Constraint {
            id: format!("({n} constant)"),
            text: None,
            formula: constant_over(n, srt, 0..=pre.k, Some(&plen)),
            line: 0,
        });
        if let Realizability::Unrealizable { conflicts: c, .. } = realizability(&attempt, ro)? {
            if let Some(c0) = c.first() {
                if prefix_length(&c0.inputs) == Some(p) {
                    inputs = c0.inputs.clone();
                    sub = attempt;
                }
            }
        }
    }
    Ok(inputs)
}

/// Adds the environment's dead ends in the very first state (no prefix): inputs at
/// step 0 for which no outputs satisfy the requirements there.
fn with_first_state(
    spec: &Spec,
    options: &TimedOptions,
    found: RtInconsistency,
) -> Result<RtInconsistency, TimedError> {
    let u = unroll(spec, 0);
    let mut ro = RealizeOptions::new(options.audit.solver.clone());
    ro.max_conflicts = 20;
    let first = match realizability(&u.spec, &ro)? {
        Realizability::Unrealizable { conflicts, .. } => conflicts,
        Realizability::Unknown { reason } => return Ok(RtInconsistency::Unknown { reason }),
        _ => Vec::new(),
    };
    if first.is_empty() {
        return Ok(found);
    }
    let mut at0: Vec<RtConflict> = first
        .into_iter()
        .map(|f| RtConflict {
            requirements: f.requirements,
            domain: f
                .domain
                .into_iter()
                .filter(|d| !u.monitor_ids.contains(d))
                .collect(),
            prefix: Timeline {
                steps: 0,
                rows: Vec::new(),
                loops_to: None,
                loops_to_time: None,
            },
            dead_end_at: 0,
        })
        .collect();
    Ok(match found {
        RtInconsistency::Found {
            conflicts,
            up_to,
            complete,
        } => {
            for c in conflicts {
                if !at0
                    .iter()
                    .any(|a| a.requirements.iter().all(|x| c.requirements.contains(x)))
                {
                    at0.push(c);
                }
            }
            RtInconsistency::Found {
                conflicts: at0,
                up_to,
                complete,
            }
        }
        RtInconsistency::NoneUpTo { up_to, .. } => RtInconsistency::Found {
            conflicts: at0,
            up_to,
            complete: true,
        },
        other => other,
    })
}

/// "`x` keeps its step-0 value at the steps of `range`" (with `upto`, only at steps
/// `t <= upto`).
/// k-induction for the bounded verdicts that say "never": a trigger that cannot fire, a
/// requirement the domain or the others enforce. The bounded audit showed that nothing
/// happens at steps `0 ..= k`. The inductive step unrolls `n = k+1` steps after an
/// *arbitrary* state (step 0, its monitors undefined) and asks for a path on which the
/// premises hold at steps `1 ..= n` and the thing happens at step `n` and not before. A
/// run where it first happens at a step `m > k` gives such a path (its steps `m-n ..=
/// m`), so "no such path" proves the verdict for runs of any length. Step 0 of the path
/// carries no premise: what the encoding says about a run's first step (`initially`,
/// an edge at step 0) does not hold for a state in the middle of a run. A path that
/// exists proves nothing (its first state may be unreachable): the verdict then stays
/// bounded.
fn induction(
    spec: &Spec,
    bounded: &Unrolled,
    options: &TimedOptions,
    audits: &mut [TimedRequirementAudit],
) -> Result<(), TimedError> {
    let wanted = |a: &TimedRequirementAudit| {
        a.fits
            && (matches!(a.vacuity, Vacuity::Vacuous { .. })
                || matches!(a.vacuity_domain, Vacuity::Vacuous { .. })
                || matches!(a.violatability, TimedViolatability::ImpliedByDomain { .. })
                || matches!(a.redundancy, TimedRedundancy::Redundant { .. }))
    };
    if !audits.iter().any(wanted) {
        return Ok(());
    }
    let n = bounded.k + 1;
    let u = super::unroll::unroll_from_any(spec, n);
    let mut solver = Solver::start(&options.audit.solver)?;
    let lits = load_into(&mut solver, &u.spec)?;
    let mut s = Session::new(&mut solver, lits);
    let dom = s.lits.domain().to_vec();
    let and = |v: Vec<Term>| Term::App(Op::And, v.into_iter().chain([Term::Bool(true)]).collect());
    // "It first happens at step n": false at 1 .. n-1, true at n.
    let first_at_n = |happens: &dyn Fn(usize) -> Term| -> Term {
        let mut v: Vec<Term> = (1..n).map(|t| Term::not(happens(t))).collect();
        v.push(happens(n));
        and(v)
    };
    for a in audits.iter_mut().filter(|a| wanted(a)) {
        let Some(i) = spec.requirements.iter().position(|r| r.id == a.id) else {
            continue;
        };
        if u.ok[i].is_empty() || u.fires[i].is_empty() {
            continue;
        }
        let others = and((0..spec.requirements.len())
            .filter(|j| *j != i)
            .flat_map(|j| u.ok[j].iter().skip(1).cloned())
            .collect());
        let fires = |t: usize| u.fires[i][t].clone();
        let broken = |t: usize| Term::not(u.ok[i][t].clone());
        let checks = [
            (
                "vacuity_domain",
                matches!(a.vacuity_domain, Vacuity::Vacuous { .. }),
                vec![first_at_n(&fires)],
            ),
            (
                "vacuity",
                matches!(a.vacuity, Vacuity::Vacuous { .. }),
                vec![others.clone(), first_at_n(&fires)],
            ),
            (
                "implied_by_domain",
                matches!(a.violatability, TimedViolatability::ImpliedByDomain { .. }),
                vec![first_at_n(&broken)],
            ),
            (
                "redundancy",
                matches!(a.redundancy, TimedRedundancy::Redundant { .. }),
                vec![others.clone(), first_at_n(&broken)],
            ),
        ];
        for (name, bounded_verdict, path) in checks {
            if bounded_verdict {
                if let Outcome::Unsat(_) = s.check(&dom, &path)? {
                    a.proved_for_every_run.push(name);
                }
            }
        }
    }
    Ok(())
}

/// Makes a witness easier to read, keeping `extra` true: each schema variable held
/// constant over steps `0 ..= last` where the rest survives it (one query each), then
/// each of the others with as few value changes as the solver finds (a bound on the
/// number of changes, lowered while it stays satisfiable). The bounds kept are added to
/// `extra`. An undecided query leaves the witness as it is.
pub(crate) fn fewer_changes(
    s: &mut Session,
    all: &[Term],
    extra: &mut Vec<Term>,
    u: &Unrolled,
    last: usize,
    mut m: Model,
) -> Result<Model, SolverError> {
    // All at once first: one query when nothing needs to change.
    let mut attempt = extra.clone();
    attempt.extend(
        u.state
            .iter()
            .map(|(n, srt)| constant_over(n, srt, 0..=last, None)),
    );
    if let Outcome::Sat(m2) = s.check(all, &attempt)? {
        *extra = attempt;
        return Ok(m2);
    }
    let mut varying = Vec::new();
    for (n, srt) in &u.state {
        let mut attempt = extra.clone();
        attempt.push(constant_over(n, srt, 0..=last, None));
        match s.check(all, &attempt)? {
            Outcome::Sat(m2) => {
                *extra = attempt;
                m = m2;
            }
            _ => varying.push((n, srt)),
        }
    }
    for (n, srt) in varying {
        let x = |t: usize| Term::Var(var_at(n, t), srt.clone());
        let changed: Vec<Term> = (1..=last)
            .map(|t| Term::not(Term::App(Op::Eq, vec![x(t), x(t - 1)])))
            .collect();
        let count = |m: &Model| {
            changed
                .iter()
                .filter(|c| logic::eval_bool(c, m, &u.spec.context).unwrap_or(true))
                .count()
        };
        let changes = Term::App(
            Op::Add,
            changed
                .iter()
                .map(|c| Term::App(Op::Ite, vec![c.clone(), Term::int(1), Term::int(0)]))
                .chain([Term::int(0), Term::int(0)])
                .collect(),
        );
        // A few rounds: each asks for fewer changes than the witness has.
        for _ in 0..3 {
            let c = count(&m);
            if c <= 1 {
                break;
            }
            let mut attempt = extra.clone();
            attempt.push(Term::App(
                Op::Le,
                vec![changes.clone(), Term::int(c as i64 - 1)],
            ));
            match s.check(all, &attempt)? {
                Outcome::Sat(m2) => {
                    *extra = attempt;
                    m = m2;
                }
                _ => break,
            }
        }
    }
    Ok(m)
}

/// A trace that breaks requirement `i` (and satisfies `base`), moved to break it as
/// early as the solver finds (bisection on the step of the first violation), then with
/// fewer value changes up to that step.
fn shortest_break(
    s: &mut Session,
    base: &[Term],
    u: &Unrolled,
    spec: &Spec,
    i: usize,
    m: Model,
) -> Result<Model, TimedError> {
    let first = violations(spec, i, &trace_of(u, &m, u.k + 1))?
        .first()
        .copied()
        .unwrap_or(u.k);
    let broken_by = |j: usize| -> Term {
        Term::App(
            Op::Or,
            u.ok[i][..=j.min(u.ok[i].len().saturating_sub(1))]
                .iter()
                .map(|t| Term::not(t.clone()))
                .chain([Term::Bool(false)])
                .collect(),
        )
    };
    if u.ok[i].is_empty() {
        return Ok(m);
    }
    let (mut lo, mut hi, mut best) = (0, first, m);
    while lo < hi {
        let mid = (lo + hi) / 2;
        match s.check(base, &[broken_by(mid)])? {
            Outcome::Sat(m2) => {
                hi = mid;
                best = m2;
            }
            _ => lo = mid + 1,
        }
    }
    let mut extra = vec![broken_by(hi)];
    Ok(fewer_changes(s, base, &mut extra, u, hi, best)?)
}

pub(crate) fn constant_over(
    n: &str,
    srt: &Sort,
    range: std::ops::RangeInclusive<usize>,
    upto: Option<&Term>,
) -> Term {
    let x0 = Term::Var(var_at(n, 0), srt.clone());
    let eqs: Vec<Term> = range
        .filter(|t| *t > 0)
        .map(|t| {
            let e = Term::App(
                Op::Eq,
                vec![Term::Var(var_at(n, t), srt.clone()), x0.clone()],
            );
            match upto {
                Some(p) => Term::App(
                    Op::Implies,
                    vec![Term::App(Op::Le, vec![Term::int(t as i64), p.clone()]), e],
                ),
                None => e,
            }
        })
        .collect();
    Term::App(Op::And, eqs.into_iter().chain([Term::Bool(true)]).collect())
}

/// The name of the prefix length in the rt spec.
const RT_LENGTH: &str = "vera.prefix_end";

/// Renames the steps of the transition spec: `@0` is the current state, `@1` the next.
fn cur_next(t: &Term) -> Term {
    match t {
        Term::Var(n, s) => match split_name(n) {
            Some((base, 0)) => Term::Var(format!("{base}@cur").as_str().into(), s.clone()),
            Some((base, 1)) => Term::Var(format!("{base}@next").as_str().into(), s.clone()),
            _ => t.clone(),
        },
        Term::App(op, args) => Term::App(*op, args.iter().map(cur_next).collect()),
        Term::Call(f, args, s) => {
            Term::Call(f.clone(), args.iter().map(cur_next).collect(), s.clone())
        }
        Term::Let(b, body) => Term::Let(
            b.iter().map(|(n, v)| (n.clone(), cur_next(v))).collect(),
            Box::new(cur_next(body)),
        ),
        Term::Named(inner, n) => Term::Named(Box::new(cur_next(inner)), n.clone()),
        other => other.clone(),
    }
}

/// The spec of "after an allowed prefix, no next step", over all prefix lengths.
///
/// Inputs (the environment's choice): the trace `x@0 .. x@(K-1)` with its monitors, the
/// prefix's last step `p`, and the current state `x@cur` with its monitors, which
/// equal those at step `p`; every requirement holds at steps `0 ..= p` (domain
/// constraints over inputs only). The next state `x@next` is the system's (with
/// `env`, its input variables are the environment's), and the requirements are their conditions at that step,
/// computed by the monitors from the current state.
///
/// With `from_any`, the prefix is the last `k` steps of a longer run instead: its first
/// state is arbitrary (monitors free), its length is `k-1`, and the requirements hold
/// at its steps `1 ..= k-1` (step 0 carries no premise: see [`induction`]).
fn rt_spec(spec: &Spec, k: usize, env: bool, from_any: bool) -> (Spec, Unrolled) {
    let pre = if from_any {
        super::unroll::unroll_from_any(spec, k - 1)
    } else {
        unroll(spec, k - 1)
    };
    let mut free = Vec::new();
    let tr = super::unroll::transition(spec, &mut free);
    let next_def = next_monitor_defs(&tr);
    let (variables, ctx, logic) = rt_declarations(&pre, &tr, &next_def, env);
    let p = Term::var(RT_LENGTH, Sort::Int);
    let mut domain = rt_domain(spec, &pre, &free, k, from_any);
    let mut requirements = Vec::new();
    for (i, r) in spec.requirements.iter().enumerate() {
        if pre.ok[i].is_empty() {
            continue;
        }
        domain.push(Constraint {
            id: format!("{} (prefix)", r.id),
            text: None,
            formula: all(pre.ok[i]
                .iter()
                .enumerate()
                .skip(usize::from(from_any))
                .map(|(t, ok)| {
                    Term::App(
                        Op::Implies,
                        vec![
                            Term::App(Op::Le, vec![Term::int(t as i64), p.clone()]),
                            ok.clone(),
                        ],
                    )
                })
                .collect()),
            line: r.line,
        });
        requirements.push(Requirement {
            formula: Some(subst(&cur_next(&tr.ok[i][1]), &next_def)),
            shape: Shape::Invariant,
            timed: None,
            ..r.clone()
        });
    }
    let rt = Spec {
        variables,
        domain,
        requirements,
        context: ctx,
        logic,
        ..pre.spec.clone()
    };
    (rt, pre)
}

/// The definitions of the monitors at the next step of the transition `tr`, over the
/// current and next states. The monitors at the next step are not variables: their
/// definitions are put into the requirements, so that the system's choice is only the
/// schema's variables (a learned answer then covers every current state it serves).
fn next_monitor_defs(tr: &Unrolled) -> std::collections::HashMap<logic::Symbol, Term> {
    let mut next_def: std::collections::HashMap<logic::Symbol, Term> = Default::default();
    for (n, _, d) in &tr.monitors[1] {
        let d = subst(&cur_next(d), &next_def);
        if let Term::Var(nn, _) = cur_next(&Term::var(n, Sort::Bool)) {
            next_def.insert(nn, d);
        }
    }
    next_def
}

/// The variables of the rt spec (the prefix's and the current state's are inputs, the
/// next state's the system's unless `env` makes its inputs the environment's), with
/// the context that declares them and the logic (with integers for the prefix length).
fn rt_declarations(
    pre: &Unrolled,
    tr: &Unrolled,
    next_def: &std::collections::HashMap<logic::Symbol, Term>,
    env: bool,
) -> (Vec<Variable>, logic::Context, String) {
    let mut variables: Vec<Variable> = pre
        .spec
        .variables
        .iter()
        .map(|v| Variable {
            role: Some(Role::Input),
            ..v.clone()
        })
        .collect();
    let mut ctx = pre.spec.context.clone();
    // The prefix length is an Int: the logic must have integers.
    let logic = match pre.spec.logic.as_str() {
        l if l.contains("LIA") || l.contains("LIRA") => l.to_string(),
        l if l.contains("LRA") => l.replace("LRA", "LIRA"),
        _ => "ALL".to_string(),
    };
    ctx.set_logic(&logic);
    ctx.declare_const(RT_LENGTH.into(), Sort::Int);
    variables.push(Variable {
        name: RT_LENGTH.into(),
        sort: Sort::Int,
        unit: None,
        description: Some("the last step of the prefix".into()),
        min: None,
        max: None,
        role: Some(Role::Input),
    });
    for v in &tr.spec.variables {
        let Term::Var(n, _) = cur_next(&Term::Var(v.name.clone(), v.sort.clone())) else {
            continue;
        };
        if next_def.contains_key(&n) {
            continue;
        }
        let current = n.ends_with("@cur");
        ctx.declare_const(n.clone(), v.sort.clone());
        variables.push(Variable {
            name: n,
            role: if current || (env && v.role == Some(Role::Input)) {
                Some(Role::Input)
            } else {
                None
            },
            ..v.clone()
        });
    }
    (variables, ctx, logic)
}

/// The conjunction of `v` (true when empty).
fn all(v: Vec<Term>) -> Term {
    Term::App(Op::And, v.into_iter().chain([Term::Bool(true)]).collect())
}

/// A domain constraint of the rt spec that no line of the spec states.
fn rt_item(id: &str, formula: Term) -> Constraint {
    Constraint {
        id: id.into(),
        text: None,
        formula,
        line: 0,
    }
}

/// `n = def`, for the variable `n` of sort `s`.
fn eq_var(n: &logic::Symbol, s: &Sort, def: Term) -> Term {
    Term::App(Op::Eq, vec![Term::Var(n.clone(), s.clone()), def])
}

/// The domain of the rt spec without the requirements' prefix constraints: the
/// spec's domain at every step of the prefix and at the next step, the prefix length,
/// the monitors' definitions, and the current state as the state at step p.
fn rt_domain(
    spec: &Spec,
    pre: &Unrolled,
    free: &[(logic::Symbol, Sort)],
    k: usize,
    from_any: bool,
) -> Vec<Constraint> {
    let p = Term::var(RT_LENGTH, Sort::Int);
    let mut domain = Vec::new();
    for d in &spec.domain {
        domain.push(Constraint {
            formula: all((0..k).map(|t| at(&d.formula, t)).collect()),
            ..d.clone()
        });
        domain.push(Constraint {
            id: format!("{} (next step)", d.id),
            formula: cur_next(&at(&d.formula, 1)),
            ..d.clone()
        });
    }
    domain.push(rt_item(
        "(prefix length)",
        Term::App(
            Op::And,
            vec![
                Term::App(
                    Op::Ge,
                    vec![
                        p.clone(),
                        Term::int(if from_any { k as i64 - 1 } else { 0 }),
                    ],
                ),
                Term::App(Op::Le, vec![p.clone(), Term::int(k as i64 - 1)]),
            ],
        ),
    ));
    domain.push(rt_item(
        "(monitors)",
        all(pre
            .monitors
            .iter()
            .flatten()
            .map(|(n, s, d)| eq_var(n, s, d.clone()))
            .collect()),
    ));
    // The current state is the state at step p, monitors included.
    let mut select = Vec::new();
    for j in 0..k {
        let mut eqs: Vec<Term> = pre
            .state
            .iter()
            .map(|(n, s)| {
                eq_var(
                    &format!("{n}@cur").as_str().into(),
                    s,
                    Term::Var(var_at(n, j), s.clone()),
                )
            })
            .collect();
        for (n, s) in free {
            let base = split_name(n).map_or(&**n, |(b, _)| b);
            eqs.push(eq_var(
                &format!("{base}@cur").as_str().into(),
                s,
                Term::Var(var_at(base, j), s.clone()),
            ));
        }
        select.push(Term::App(
            Op::Implies,
            vec![
                Term::App(Op::Eq, vec![p.clone(), Term::int(j as i64)]),
                all(eqs),
            ],
        ));
    }
    domain.push(rt_item("(current state)", all(select)));
    domain
}

//! Scenario questions over time: "if there is no flow for 130 s during therapy, is the
//! pump stopped at 131 s?"
//!
//! A question is a scenario and a claim, each a list of [`Fact`]s that must all hold
//! (facts separated by `;`). A fact is a state formula with the steps it speaks of, written in physical
//! time:
//!
//! | text | holds when |
//! |---|---|
//! | `at 131 s: F` | `F` holds at the step of 131 s |
//! | `[0 s, 130 s]: F` | `F` holds at every step from 0 s to 130 s, both included |
//! | `[0 s, 130 s): F` | the same without the step of 130 s |
//! | `sometime [10 s, 20 s]: F` | `F` holds at some step from 10 s to 20 s |
//!
//! Times are durations from the start of the run (docs/timed.md: whole ticks, units).
//!
//! The question is asked on runs of `k+1` steps, `k` the last step the question
//! mentions plus a margin (by default the longest requirement's need, so that every
//! obligation started by the scenario can show): the requirements read with their
//! finite-trace meaning (an obligation still open at step `k` is not broken). Every run
//! of the requirements has its first `k+1` steps among those, so:
//!
//! - *entailed* (no such run breaks the claim) and *scenario impossible* (no such run
//!   meets the scenario) hold for every run, however long;
//! - *not entailed* is shown by a run of `k+1` steps, re-checked by the trace evaluator;
//!   whether it can be continued for ever is not asked (the audit's rt-inconsistency
//!   check is the question for dead ends).

use super::audit::{fewer_changes, timeline, trace_of, violations, TimedError, Timeline};
use super::unroll::{at, unroll, Unrolled};
use super::TimeBase;
use crate::audit::{load_into, Session};
use crate::spec::Spec;
use logic::{Op, Term};
use serde::Serialize;
use solver::{Outcome, Solver, SolverConfig};

/// Which steps of an interval a fact speaks of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Quantifier {
    /// Every step.
    Every,
    /// Some step.
    Some,
}

/// A state formula over an interval of steps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fact {
    /// Every or some step.
    pub quantifier: Quantifier,
    /// The first step.
    pub from: usize,
    /// The last step (included).
    pub to: usize,
    /// The formula.
    pub formula: Term,
    /// The fact as written.
    pub text: String,
}

impl Fact {
    /// The fact over the unrolled variables `x@t`.
    pub fn term(&self) -> Term {
        let steps: Vec<Term> = (self.from..=self.to)
            .map(|t| at(&self.formula, t))
            .collect();
        match self.quantifier {
            Quantifier::Every => Term::App(
                Op::And,
                steps.into_iter().chain([Term::Bool(true)]).collect(),
            ),
            Quantifier::Some => Term::App(
                Op::Or,
                steps.into_iter().chain([Term::Bool(false)]).collect(),
            ),
        }
    }
}

/// Reads one fact (see the module documentation for the forms).
pub fn parse_fact(spec: &Spec, tb: &TimeBase, what: &str, text: &str) -> Result<Fact, String> {
    let (when, formula) = text
        .split_once(':')
        .ok_or_else(|| format!("{what}: `{text}` has no `:`; write `at 10 s: F`, `[0 s, 10 s]: F` or `sometime [0 s, 10 s]: F`"))?;
    let when = when.trim();
    let step = |d: &str| -> Result<usize, String> {
        tb.duration(d.trim())
            .map(|t| t as usize)
            .map_err(|e| format!("{what}: `{}`: {e}", d.trim()))
    };
    let (quantifier, from, to) = if let Some(t) = when.strip_prefix("at ") {
        let t = step(t)?;
        (Quantifier::Every, t, t)
    } else {
        let (quantifier, interval) = match when
            .strip_prefix("sometime")
            .or_else(|| when.strip_prefix("some"))
        {
            Some(rest) => (Quantifier::Some, rest.trim()),
            None => (Quantifier::Every, when),
        };
        let open = interval.ends_with(')');
        let inner = interval
            .strip_prefix('[')
            .and_then(|s| s.strip_suffix(']').or_else(|| s.strip_suffix(')')))
            .ok_or_else(|| {
                format!("{what}: `{when}` is not `at T`, `[A, B]`, `[A, B)` or `sometime [A, B]`")
            })?;
        let (a, b) = inner.split_once(',').ok_or_else(|| {
            format!("{what}: the interval `{interval}` needs two times, `[A, B]`")
        })?;
        let (a, b) = (step(a)?, step(b)?);
        let b = if open {
            b.checked_sub(1)
                .ok_or_else(|| format!("{what}: the interval `{interval}` is empty"))?
        } else {
            b
        };
        if b < a {
            return Err(format!("{what}: the interval `{interval}` is empty"));
        }
        (quantifier, a, b)
    };
    let formula = spec
        .parse_formula(what, formula.trim())
        .map_err(|d| d.to_string())?;
    Ok(Fact {
        quantifier,
        from,
        to,
        formula,
        text: text.trim().to_string(),
    })
}

/// Reads a scenario: facts separated by `;` (an empty text is no fact).
pub fn parse_scenario(
    spec: &Spec,
    tb: &TimeBase,
    what: &str,
    text: &str,
) -> Result<Vec<Fact>, String> {
    text.split(';')
        .filter(|f| !f.trim().is_empty())
        .map(|f| parse_fact(spec, tb, what, f))
        .collect()
}

/// A question over time, read: its scenario and its claim as facts.
#[derive(Debug, Clone)]
pub struct ReadQuestion<'q> {
    /// The question as written.
    pub question: &'q crate::Question,
    /// Its scenario's facts (none for an empty scenario).
    pub scenario: Vec<Fact>,
    /// Its claim's facts (at least one).
    pub claim: Vec<Fact>,
}

impl ReadQuestion<'_> {
    /// The last step the question speaks of: its runs need at least this many steps.
    pub fn last_step(&self) -> usize {
        self.scenario
            .iter()
            .chain(&self.claim)
            .map(|f| f.to)
            .max()
            .unwrap_or(0)
    }
}

/// Reads every question before any is asked, so that all problems are reported at
/// once. A problem is placed by the question's id when the questions come from a file
/// (`from_file`), else by the command-line option (`--scenario`, `--claim`).
pub fn read_questions<'q>(
    spec: &Spec,
    tb: &TimeBase,
    questions: &'q [crate::Question],
    from_file: bool,
) -> Result<Vec<ReadQuestion<'q>>, crate::ask::QuestionProblems> {
    let mut read = Vec::new();
    let mut problems = Vec::new();
    let scenario_of = |id: &str| match from_file {
        true => format!("question {id}, scenario"),
        false => "--scenario".to_string(),
    };
    let claim_of = |id: &str| match from_file {
        true => format!("question {id}, claim"),
        false => "--claim".to_string(),
    };
    for q in questions {
        let scenario = parse_scenario(
            spec,
            tb,
            &scenario_of(&q.id),
            q.scenario.as_deref().unwrap_or(""),
        );
        let claim = match &q.claim {
            Some(c) => parse_scenario(spec, tb, &claim_of(&q.id), c).and_then(|facts| {
                if facts.is_empty() {
                    Err(format!("{}: the claim has no fact", claim_of(&q.id)))
                } else {
                    Ok(facts)
                }
            }),
            None => Err(format!("question {} has no claim", q.id)),
        };
        match (scenario, claim) {
            (Ok(scenario), Ok(claim)) => read.push(ReadQuestion {
                question: q,
                scenario,
                claim,
            }),
            (s, c) => problems.extend(s.err().into_iter().chain(c.err())),
        }
    }
    if problems.is_empty() {
        Ok(read)
    } else {
        Err(crate::ask::QuestionProblems(problems))
    }
}

/// Why the read questions of a timed spec could not be answered ([`ask_read`]).
#[derive(Debug, thiserror::Error)]
pub enum AskReadError {
    /// The margin is not a duration of the spec's time base.
    #[error("--margin: {0}")]
    Margin(String),
    /// The spec could not be loaded into a solver for a question's runs.
    #[error("loading {file}")]
    Load {
        /// The spec file, as named to the caller.
        file: String,
        /// Why.
        #[source]
        source: TimedError,
    },
    /// A question could not be answered.
    #[error("question {id}")]
    Ask {
        /// The question's id.
        id: String,
        /// Why.
        #[source]
        source: TimedError,
    },
}

/// Answers the questions [`read_questions`] read, in order, each on runs as long as it
/// needs: its last step plus `margin` (a duration of `tb`, the spec's time base;
/// default: the longest requirement's durations plus one tick). `file` names the spec
/// in errors.
pub fn ask_read(
    spec: &Spec,
    tb: &TimeBase,
    file: &str,
    questions: &[ReadQuestion<'_>],
    margin: Option<&str>,
    config: &SolverConfig,
) -> Result<Vec<TimedAnswer>, AskReadError> {
    let margin = margin.map(|m| tb.duration(m).map(|d| d as usize));
    let margin = margin.transpose().map_err(AskReadError::Margin)?;
    let answer = |q: &ReadQuestion<'_>| {
        let file = file.to_string();
        let mut asker = TimedAsker::new(spec, q.last_step(), margin, config)
            .map_err(|source| AskReadError::Load { file, source })?;
        let id = q.question.id.clone();
        (asker.ask(&q.scenario, &q.claim)).map_err(|source| AskReadError::Ask { id, source })
    };
    questions.iter().map(answer).collect()
}

/// The answer to a question over time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub enum TimedVerdict {
    /// Every run that meets the scenario meets the claim.
    Entailed {
        /// A minimal set of requirements that justify it (on runs of `steps` steps).
        because: Vec<String>,
    },
    /// A run of `steps` steps meets the requirements and the scenario, not the claim.
    NotEntailed {
        /// That run.
        counterexample: Timeline,
        /// When no such run meets the claim at all: the requirements it contradicts.
        contradicts: Vec<String>,
    },
    /// No run meets the requirements and the scenario.
    ScenarioImpossible {
        /// A minimal set of requirements that rules it out.
        because: Vec<String>,
    },
    /// The solver gave no answer.
    Unknown {
        /// Why.
        #[serde(flatten)]
        reason: solver::Undecided,
    },
}

impl TimedVerdict {
    /// The short name, as in the plain questions.
    pub fn name(&self) -> &'static str {
        match self {
            TimedVerdict::Entailed { .. } => "entailed",
            TimedVerdict::NotEntailed { .. } => "not-entailed",
            TimedVerdict::ScenarioImpossible { .. } => "scenario-impossible",
            TimedVerdict::Unknown { .. } => "unknown",
        }
    }
}

/// One answered question.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TimedAnswer {
    /// The verdict.
    #[serde(flatten)]
    pub verdict: TimedVerdict,
    /// The runs asked about have `steps` steps (`0 .. steps-1`).
    pub steps: usize,
    /// Their length in time.
    pub time: String,
}

/// Answers timed questions on one unrolled spec and one solver session.
pub struct TimedAsker<'a> {
    spec: &'a Spec,
    tb: &'a TimeBase,
    u: Unrolled,
    solver: Solver,
    lits: crate::audit::Loaded,
}

impl<'a> TimedAsker<'a> {
    /// Unrolls the spec far enough for every question whose facts end at or before
    /// step `last` (plus `margin` steps; `None`: the longest requirement's need) and
    /// loads it into a solver.
    pub fn new(
        spec: &'a Spec,
        last: usize,
        margin: Option<usize>,
        config: &SolverConfig,
    ) -> Result<TimedAsker<'a>, TimedError> {
        let tb = spec.time.as_ref().ok_or(TimedError::NotTimed)?;
        let margin = margin.unwrap_or_else(|| {
            spec.requirements
                .iter()
                .filter_map(|r| r.timed.as_ref())
                .map(|p| p.longest() as usize + 1)
                .max()
                .unwrap_or(1)
        });
        let u = unroll(spec, last + margin);
        let mut solver = Solver::start(config)?;
        let lits = load_into(&mut solver, &u.spec)?;
        Ok(TimedAsker {
            spec,
            tb,
            u,
            solver,
            lits,
        })
    }

    /// The last step of the runs asked about.
    pub fn last_step(&self) -> usize {
        self.u.k
    }

    fn ids(&self, lits: &[Term]) -> Vec<String> {
        let mut out: Vec<(usize, String)> = lits
            .iter()
            .filter_map(|l| self.lits.id_of(&self.u.spec, l))
            .filter(|id| !self.u.monitor_ids.contains(*id))
            .map(|id| {
                let order = self
                    .spec
                    .requirements
                    .iter()
                    .position(|r| r.id == id)
                    .unwrap_or(usize::MAX);
                (order, id.to_string())
            })
            .collect();
        out.sort();
        out.dedup();
        out.into_iter().map(|(_, id)| id).collect()
    }

    /// Is the claim (all its facts) entailed under the scenario (all its facts)? Facts
    /// must end by [`Self::last_step`].
    pub fn ask(&mut self, scenario: &[Fact], claim: &[Fact]) -> Result<TimedAnswer, TimedError> {
        let k = self.u.k;
        if claim.is_empty() {
            return Err(TimedError::Witness("a question needs a claim".into()));
        }
        if let Some(f) = scenario.iter().chain(claim).find(|f| f.to > k) {
            return Err(TimedError::Witness(format!(
                "`{}` speaks of step {}, after the last step asked about ({k})",
                f.text, f.to
            )));
        }
        let mut all = self.lits.domain().to_vec();
        all.extend(self.lits.reqs_except(None));
        let scen = Term::App(
            Op::And,
            scenario
                .iter()
                .map(Fact::term)
                .chain([Term::Bool(true)])
                .collect(),
        );
        let claim_t = Term::App(
            Op::And,
            claim
                .iter()
                .map(Fact::term)
                .chain([Term::Bool(true)])
                .collect(),
        );
        let mut s = Session::new(&mut self.solver, self.lits.clone());
        let verdict = match s.check(&all, std::slice::from_ref(&scen))? {
            Outcome::Unknown(r) => TimedVerdict::Unknown {
                reason: r.clone().into(),
            },
            Outcome::Unsat(core) => {
                let min = s.minimize(&[], core, std::slice::from_ref(&scen))?;
                TimedVerdict::ScenarioImpossible {
                    because: self.ids(&min),
                }
            }
            Outcome::Sat(_) => {
                let negated = [scen.clone(), Term::not(claim_t.clone())];
                match s.check(&all, &negated)? {
                    Outcome::Unknown(r) => TimedVerdict::Unknown {
                        reason: r.clone().into(),
                    },
                    Outcome::Unsat(core) => {
                        let min = s.minimize(&[], core, &negated)?;
                        TimedVerdict::Entailed {
                            because: self.ids(&min),
                        }
                    }
                    Outcome::Sat(mut m) => {
                        // Fewer value changes: each variable held constant where the
                        // counterexample survives it.
                        let mut extra = negated.to_vec();
                        m = fewer_changes(&mut s, &all, &mut extra, &self.u, k, m)?;
                        let with_claim = [scen.clone(), claim_t.clone()];
                        let contradicts = match s.check(&all, &with_claim)? {
                            Outcome::Unsat(core) => s.minimize(&[], core, &with_claim)?,
                            _ => Vec::new(),
                        };
                        // The run is re-checked by the evaluator: every requirement
                        // holds, the scenario holds, the claim does not.
                        let tr = trace_of(&self.u, &m, k + 1);
                        for i in 0..self.spec.requirements.len() {
                            if let Some(t) = violations(self.spec, i, &tr)?.first() {
                                return Err(TimedError::Witness(format!(
                                    "the counterexample breaks {} at step {t}",
                                    self.spec.requirements[i].id
                                )));
                            }
                        }
                        let holds = |f: &Fact| -> Result<bool, TimedError> {
                            let mut any = false;
                            let mut every = true;
                            for state in &tr[f.from..=f.to] {
                                let v = logic::eval_bool(&f.formula, state, &self.spec.context)
                                    .map_err(|e| TimedError::Witness(format!("{}: {e}", f.text)))?;
                                any |= v;
                                every &= v;
                            }
                            Ok(match f.quantifier {
                                Quantifier::Every => every,
                                Quantifier::Some => any,
                            })
                        };
                        for f in scenario {
                            if !holds(f)? {
                                return Err(TimedError::Witness(format!(
                                    "the counterexample does not meet the scenario `{}`",
                                    f.text
                                )));
                            }
                        }
                        let mut all_hold = true;
                        for f in claim {
                            all_hold &= holds(f)?;
                        }
                        if all_hold {
                            return Err(TimedError::Witness(
                                "the counterexample meets the claim".into(),
                            ));
                        }
                        TimedVerdict::NotEntailed {
                            counterexample: timeline(&self.u, self.tb, &m, k + 1, None),
                            contradicts: self.ids(&contradicts),
                        }
                    }
                }
            }
        };
        Ok(TimedAnswer {
            verdict,
            steps: k + 1,
            time: self.tb.show(k as u64 + 1),
        })
    }
}

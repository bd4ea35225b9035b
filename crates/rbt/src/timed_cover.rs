//! Coverage of an existing suite of test sequences for a timed spec (`vera tests cover`
//! on a spec with a `[time]` table).
//!
//! The suite is a CSV with a `sequence` column (rows with the same value form one
//! sequence), a `step` column (0, 1, 2, ... within each sequence) and a column per
//! variable it assigns; the CSV `vera tests SPEC --format csv` writes reads as such a
//! suite (its `expected:X` columns, where given, are what the test expects of the output
//! X and take the place of X's column). A sequence is *valid* when it extends to a trace of its length that satisfies
//! the domain and every requirement at every step; it *meets* an obligation when every
//! such trace does. The obligations are the shapes `vera tests` makes sequences for
//! ([`crate::timed::Shape`]), read as what a suite must contain so that the fault each
//! shape stands for is caught:
//!
//! - `fires`: the requirement fires at some step with its whole response window
//!   inside the sequence;
//! - `deadline-hit` / `earliest-allowed`: it fires and the response first holds at the
//!   last (the first) step allowed;
//! - `missed-by-one` / `duration-one-tick-short` / `one-tick-early`: it fires and the
//!   sequence goes on past the step where a response one tick late (cut one tick short,
//!   one tick early) would show, so the expected outputs there tell it from the right
//!   one;
//! - `held-one-tick-short`: the condition holds one tick less than the trigger needs.
//!
//! An obligation no sequence meets is *missed* when `vera tests` makes a sequence for
//! it and *unreachable* (with the generator's minimal core) when no trace has it.

use crate::cover::{read_vectors, ReadError, Validity, Vector};
use crate::generate::GenerateError;
use crate::obligations::Obligation;
use crate::problem::Problem;
use crate::timed::{
    and, generate_timed, not, or, plain_problem, response_window, Made, SequenceResult, Sessions,
    Shape, TraceSession,
};
use crate::values;
use logic::{Symbol, Term, Value};
use reqs::timed::{Pattern, Trigger};
use serde::Serialize;
use solver::SolverConfig;

/// One sequence of the suite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuiteSequence {
    /// Its label (the `sequence` column).
    pub id: String,
    /// The line of its first row.
    pub line: usize,
    /// Per step, the variables the row assigns.
    pub steps: Vec<Vec<(Symbol, Value)>>,
}

/// Reads a suite of sequences: every problem located, all reported.
pub fn read_sequences(
    p: &Problem,
    file: &str,
    text: &str,
) -> Result<Vec<SuiteSequence>, ReadError> {
    // The values, read and checked as for a plain suite; their errors are reported
    // with those of the sequence and step columns.
    let (vectors, mut errors) = match read_vectors(p, file, text) {
        Ok(v) => (v.vectors, Vec::new()),
        Err(e) => (Vec::new(), e.0),
    };
    let (mut rdr, header) = crate::cover::suite_csv(file, text)?;
    let col = |name: &str| header.iter().position(|h| h.eq_ignore_ascii_case(name));
    let (Some(seq_col), Some(step_col)) = (col("sequence"), col("step")) else {
        return Err(ReadError(vec![format!(
            "{file}:1: a timed suite needs a `sequence` and a `step` column (columns: {})",
            values::cut(&header.join(", "))
        )]));
    };
    let mut sequences: Vec<SuiteSequence> = Vec::new();
    let by_line: std::collections::HashMap<usize, &Vector> =
        vectors.iter().map(|v| (v.line, v)).collect();
    for rec in rdr.records() {
        let rec = match rec {
            Ok(r) => r,
            Err(e) => {
                errors.push(format!("{file}: {e}"));
                continue;
            }
        };
        let line = rec.position().map(|p| p.line() as usize).unwrap_or(0);
        if rec.iter().all(|c| c.is_empty()) {
            continue;
        }
        let id = rec.get(seq_col).unwrap_or("").to_string();
        if id.is_empty() {
            errors.push(format!(
                "{file}:{line}:{}: the row names no sequence",
                seq_col + 1
            ));
            continue;
        }
        let step_text = rec.get(step_col).unwrap_or("");
        let Ok(step) = step_text.parse::<usize>() else {
            errors.push(format!(
                "{file}:{line}:{}: step `{}` is not a whole number of at least 0",
                step_col + 1,
                values::cut(step_text)
            ));
            continue;
        };
        let k = match sequences.iter().position(|s| s.id == id) {
            Some(k) => k,
            None => {
                sequences.push(SuiteSequence {
                    id: id.clone(),
                    line,
                    steps: Vec::new(),
                });
                sequences.len() - 1
            }
        };
        let have = sequences[k].steps.len();
        if step != have {
            errors.push(format!(
                "{file}:{line}:{}: sequence `{}` has step {step} where step {} comes next (steps are written 0, 1, 2, ... in order)",
                step_col + 1,
                values::cut(&id),
                have
            ));
            continue;
        }
        // An `expected:X` column (as `vera tests` writes) says what the test expects of
        // the output X: it replaces X's column, and `free` leaves X open.
        let mut values = by_line
            .get(&line)
            .map(|v| v.values.clone())
            .unwrap_or_default();
        for (i, h) in header.iter().enumerate() {
            let Some(var) = h.strip_prefix("expected:").and_then(|x| p.spec.variable(x)) else {
                continue;
            };
            values.retain(|(x, _)| *x != var.name);
            let cell = rec.get(i).unwrap_or("");
            if cell.is_empty()
                || cell.eq_ignore_ascii_case("free")
                || cell.eq_ignore_ascii_case("undecided")
                || cell.eq_ignore_ascii_case("none")
            {
                continue;
            }
            match values::parse(cell, &var.sort, &p.spec.enums) {
                Ok(x) => values.push((var.name.clone(), x)),
                Err(e) => errors.push(format!("{file}:{line}:{}: {h}: {e}", i + 1)),
            }
        }
        sequences[k].steps.push(values);
    }
    if errors.is_empty() {
        Ok(sequences)
    } else {
        Err(ReadError(errors))
    }
}

/// A sequence's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SequenceCoverage {
    /// Its label.
    pub id: String,
    /// The line of its first row.
    pub line: usize,
    /// Its steps.
    pub steps: usize,
    /// Valid or not.
    #[serde(flatten)]
    pub validity: Validity,
    /// The obligations it meets (`R/fires`, ...).
    pub meets: Vec<String>,
}

/// What became of an obligation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum ShapeCoverage {
    /// Sequences meet it.
    Met {
        /// Their labels.
        sequences: Vec<String>,
    },
    /// No sequence meets it in every valid trace with its values, though some trace
    /// meets it (`vera tests` makes one).
    Missed,
    /// No trace has it (the generator's minimal core).
    Unreachable {
        /// What rules it out.
        core: Vec<String>,
    },
    /// Undecided (the generator's or this check's reason).
    Undecided {
        /// Why.
        #[serde(flatten)]
        reason: solver::Undecided,
    },
}

/// An obligation of a timed requirement and its coverage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ShapeObligation {
    /// `R/fires`, `R/deadline-hit`, ...
    pub id: String,
    /// The requirement.
    pub requirement: String,
    /// The shape.
    pub shape: Shape,
    /// Its coverage.
    #[serde(flatten)]
    pub coverage: ShapeCoverage,
}

/// The coverage of a suite of sequences.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TimedCoverReport {
    /// Per sequence.
    pub sequences: Vec<SequenceCoverage>,
    /// Per obligation.
    pub obligations: Vec<ShapeObligation>,
    /// Requirements no valid sequence makes fire (a timed one's `fires`, a plain one's
    /// trigger).
    pub not_exercised: Vec<String>,
    /// Solver queries.
    pub queries: usize,
}

impl TimedCoverReport {
    /// Sequences no valid system produces.
    pub fn invalid(&self) -> usize {
        self.sequences
            .iter()
            .filter(|s| matches!(s.validity, Validity::Invalid { .. }))
            .count()
    }

    /// Obligations with a coverage of that kind.
    pub fn count(&self, f: impl Fn(&ShapeCoverage) -> bool) -> usize {
        self.obligations.iter().filter(|o| f(&o.coverage)).count()
    }

    /// True when something was left undecided.
    pub fn has_errors(&self) -> bool {
        self.count(|c| matches!(c, ShapeCoverage::Undecided { .. })) > 0
            || self
                .sequences
                .iter()
                .any(|s| matches!(s.validity, Validity::Undecided { .. }))
    }
}

/// The formula over a trace of `s.steps()` steps that a sequence meeting `shape` of `p`
/// satisfies (false when the sequence is too short for it).
fn meets(s: &TraceSession, p: &Pattern, shape: Shape) -> Term {
    let n = s.steps();
    let d = response_window(p);
    let r = |u: usize| s.at(&p.response, u);
    let at_some = |last_needed: &dyn Fn(usize) -> usize, f: &dyn Fn(usize) -> Term| {
        or((0..n)
            .filter(|&t| last_needed(t) < n)
            .map(|t| and(vec![s.fires(p, t), f(t)]))
            .collect())
    };
    match shape {
        Shape::Fires => at_some(&|t| t + d, &|_| Term::Bool(true)),
        Shape::DeadlineHit | Shape::EarliestAllowed => at_some(&|t| t + d, &|t| {
            let mut v: Vec<Term> = (t..t + d).map(|u| not(r(u))).collect();
            v.push(r(t + d));
            and(v)
        }),
        Shape::MissedByOne => at_some(&|t| t + d + 1, &|_| Term::Bool(true)),
        Shape::DurationOneTickShort => at_some(&|t| t + d, &|_| Term::Bool(true)),
        Shape::OneTickEarly => at_some(&|t| t + d.max(1) - 1, &|_| Term::Bool(true)),
        // Plain obligations are not patterns (see `cover_timed`).
        Shape::Obligation => Term::Bool(false),
        Shape::HeldOneTickShort => {
            let Trigger::HeldFor(c, h) = &p.trigger else {
                return Term::Bool(false);
            };
            let h = *h as usize;
            or((h..n)
                .map(|t| {
                    let mut v = vec![s.in_scope(p, t), not(s.at(c, t - h))];
                    v.extend((t - h + 1..=t).map(|u| s.at(c, u)));
                    and(v)
                })
                .collect())
        }
    }
}

/// Measures a suite of sequences against the timed obligations of `p`'s spec.
pub fn cover_timed(
    p: &Problem,
    suite: &[SuiteSequence],
    config: &SolverConfig,
) -> Result<TimedCoverReport, GenerateError> {
    let spec = &p.spec;
    // What the generator makes, to tell a gap from an obligation no trace has.
    let generated = generate_timed(spec, config)?;
    let mut queries = generated.queries;
    // A plain obligation met by another obligation's sequence has none of its own.
    let plain = crate::obligations::obligations(&plain_problem(spec), true);
    let mut obligations = shape_obligations(&generated.sequences, &plain);
    let mut sessions = Sessions::new(spec, config);
    let mut results = Vec::new();
    for seq in suite {
        let n = seq.steps.len();
        let s = sessions.of_length(n)?;
        let fixed: Vec<Term> = seq
            .steps
            .iter()
            .enumerate()
            .flat_map(|(t, row)| row.iter().map(move |(x, v)| (t, x, v)))
            .map(|(t, x, v)| s.equals(x, t, v))
            .collect();
        let validity = match s.check_all(&fixed)? {
            Made::Trace(_) => Validity::Valid,
            Made::Unsat(core) => Validity::Invalid { core },
            Made::Unknown(reason) => Validity::Undecided { reason },
        };
        let mut met = Vec::new();
        if validity == Validity::Valid {
            for o in obligations.iter_mut() {
                if meets_obligation(s, spec, &plain, &fixed, o, &seq.id)? {
                    met.push(o.id.clone());
                }
            }
        }
        results.push(SequenceCoverage {
            id: seq.id.clone(),
            line: seq.line,
            steps: n,
            validity,
            meets: met,
        });
    }
    let not_exercised = not_exercised(spec, &obligations);
    queries += sessions.queries();
    Ok(TimedCoverReport {
        sequences: results,
        obligations,
        not_exercised,
        queries,
    })
}

/// The obligations a suite is measured against, each missed until a sequence meets
/// it: those the generator made a sequence for (a sequence of plain obligations
/// stands for each of them, from `plain`), and those it found unreachable or
/// undecided.
fn shape_obligations(generated: &[SequenceResult], plain: &[Obligation]) -> Vec<ShapeObligation> {
    let mut obligations: Vec<ShapeObligation> = Vec::new();
    for r in generated {
        if let SequenceResult::Made { sequence } = r {
            if sequence.shape == Shape::Obligation {
                for id in &sequence.covers {
                    let requirement = plain
                        .iter()
                        .find(|o| &o.id == id)
                        .map(|o| o.requirement.clone())
                        .unwrap_or_default();
                    obligations.push(ShapeObligation {
                        id: id.clone(),
                        requirement,
                        shape: Shape::Obligation,
                        coverage: ShapeCoverage::Missed,
                    });
                }
                continue;
            }
        }
        let (id, requirement, shape, coverage) = match r {
            SequenceResult::Made { sequence } => (
                sequence.id.clone(),
                sequence.requirement.clone(),
                sequence.shape,
                ShapeCoverage::Missed,
            ),
            SequenceResult::Unreachable {
                id,
                requirement,
                shape,
                core,
            } => (
                id.clone(),
                requirement.clone(),
                *shape,
                ShapeCoverage::Unreachable { core: core.clone() },
            ),
            SequenceResult::Undecided {
                id,
                requirement,
                shape,
                reason,
            } => (
                id.clone(),
                requirement.clone(),
                *shape,
                ShapeCoverage::Undecided {
                    reason: reason.clone(),
                },
            ),
        };
        obligations.push(ShapeObligation {
            id,
            requirement,
            shape,
            coverage,
        });
    }
    obligations
}

/// Whether the valid sequence `seq_id` (its values `fixed`) meets obligation `o` in
/// every run the session `s` allows; a met obligation records the sequence, an
/// undecided check marks an obligation not yet met as undecided.
fn meets_obligation(
    s: &mut TraceSession,
    spec: &reqs::Spec,
    plain: &[Obligation],
    fixed: &[Term],
    o: &mut ShapeObligation,
    seq_id: &str,
) -> Result<bool, GenerateError> {
    if matches!(o.coverage, ShapeCoverage::Unreachable { .. }) {
        return Ok(false);
    }
    let f = if o.shape == Shape::Obligation {
        let Some(f) = plain.iter().find(|p| p.id == o.id).map(|p| &p.formula) else {
            return Ok(false);
        };
        or((0..s.steps()).map(|t| s.at(f, t)).collect())
    } else {
        let Some(p) = spec
            .requirements
            .iter()
            .find(|r| r.id == o.requirement)
            .and_then(|r| r.timed.as_ref())
        else {
            return Ok(false);
        };
        meets(s, p, o.shape)
    };
    if f == Term::Bool(false) {
        return Ok(false);
    }
    let mut extra = fixed.to_vec();
    extra.push(not(f));
    match s.check_all(&extra)? {
        Made::Unsat(_) => {
            match &mut o.coverage {
                ShapeCoverage::Met { sequences } => sequences.push(seq_id.to_string()),
                c => {
                    *c = ShapeCoverage::Met {
                        sequences: vec![seq_id.to_string()],
                    }
                }
            }
            return Ok(true);
        }
        Made::Trace(_) => {}
        Made::Unknown(reason) => {
            if !matches!(o.coverage, ShapeCoverage::Met { .. }) {
                o.coverage = ShapeCoverage::Undecided { reason };
            }
        }
    }
    Ok(false)
}

/// The requirements of `spec` that no sequence made fire: no obligation that it fires
/// (its `Fires` shape, or its plain trigger obligation) is met.
fn not_exercised(spec: &reqs::Spec, obligations: &[ShapeObligation]) -> Vec<String> {
    spec.requirements
        .iter()
        .filter(|r| r.timed.is_some() || r.formula.is_some())
        .filter(|r| {
            let fires = format!("{}/trigger", r.id);
            !obligations.iter().any(|o| {
                o.requirement == r.id
                    && (o.shape == Shape::Fires || (o.shape == Shape::Obligation && o.id == fires))
                    && matches!(o.coverage, ShapeCoverage::Met { .. })
            })
        })
        .map(|r| r.id.clone())
        .collect()
}

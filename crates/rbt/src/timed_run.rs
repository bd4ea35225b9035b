//! Running test sequences of timed requirements on an implementation
//! (`vera tests run` on a spec with a `[time]` table): each made sequence's inputs, step
//! by step, go to the implementation ([`Implementation::run_sequence`]: one process per
//! sequence for an executable, one call per step for a BL program or a C function, which
//! keep no state), and the outputs it gives at every step are judged against the whole
//! spec in a solver session over the sequence's steps ([`crate::timed::TraceSession::judge`]).

use crate::generate::GenerateError;
use crate::run::{close, Implementation};
use crate::suite::Expected;
use crate::timed::{Expectation, SequenceResult, Sessions, Shape, TimedRoles, TimedSuite};
use crate::values;
use logic::{Symbol, Value};
use num_rational::BigRational;
use reqs::Spec;
use serde::Serialize;
use solver::SolverConfig;

/// A forced output the implementation did not produce at a step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StepDifference {
    /// The output.
    pub variable: String,
    /// The step.
    pub step: usize,
    /// The value every valid trace has there.
    pub expected: String,
    /// The value observed.
    pub observed: String,
}

/// How one sequence came out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub enum SequenceVerdict {
    /// The inputs and the observed outputs satisfy the domain and every requirement
    /// on the whole trace.
    Pass,
    /// They do not.
    Fail {
        /// A minimal set of requirements (and domain constraints) they contradict.
        violated: Vec<String>,
        /// Forced outputs that differ, by step.
        differences: Vec<StepDifference>,
    },
    /// The sequence could not run or be judged.
    Error {
        /// Why.
        message: String,
    },
}

/// One sequence's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SequenceRun {
    /// The sequence.
    pub sequence: String,
    /// Its requirement.
    pub requirement: String,
    /// What it shows.
    pub shape: Shape,
    /// Its steps.
    pub steps: usize,
    /// What the implementation gave: a row per output, a value per step (empty on an
    /// error).
    pub observed: Vec<crate::timed::Row>,
    /// The verdict.
    #[serde(flatten)]
    pub verdict: SequenceVerdict,
}

/// The run of a timed suite.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TimedRunReport {
    /// What ran.
    pub implementation: String,
    /// Per sequence.
    pub sequences: Vec<SequenceRun>,
    /// Passed.
    pub passed: usize,
    /// Failed.
    pub failed: usize,
    /// Errors.
    pub errors: usize,
    /// The tolerance used, if any.
    pub tolerance: Option<String>,
}

/// Runs every made sequence of `suite` on `imp` and judges it against the spec.
pub fn run_timed(
    spec: &Spec,
    suite: &TimedSuite,
    imp: &mut dyn Implementation,
    config: &SolverConfig,
    tolerance: Option<&BigRational>,
) -> Result<TimedRunReport, GenerateError> {
    let roles = TimedRoles::of(spec);
    let mut sessions = Sessions::new(spec, config);
    let mut runs = Vec::new();
    for r in &suite.sequences {
        let SequenceResult::Made { sequence: s } = r else {
            continue;
        };
        let base = SequenceRun {
            sequence: s.id.clone(),
            requirement: s.requirement.clone(),
            shape: s.shape,
            steps: s.trace.len(),
            observed: Vec::new(),
            verdict: SequenceVerdict::Pass,
        };
        let error = |message: String| SequenceRun {
            verdict: SequenceVerdict::Error { message },
            ..base.clone()
        };
        let rows = match &s.expected {
            Expectation::Outputs { rows } => rows,
            Expectation::NoValidTrace => {
                runs.push(error(
                    "no trace with these inputs satisfies the spec: the sequence tests no implementation".into(),
                ));
                continue;
            }
            Expectation::NoRoles => {
                runs.push(error(
                    "the spec declares no inputs (role = \"input\"): nothing to give an implementation".into(),
                ));
                continue;
            }
        };
        let inputs: Vec<Vec<(Symbol, Value)>> = s
            .trace
            .iter()
            .map(|st| {
                roles
                    .inputs
                    .iter()
                    .filter_map(|n| st.get(n).map(|v| (n.clone(), v.clone())))
                    .collect()
            })
            .collect();
        let observed = match imp.run_sequence(&inputs) {
            Ok(o) if o.len() == inputs.len() => o,
            Ok(o) => {
                runs.push(error(format!(
                    "{} steps of outputs for {} steps of inputs",
                    o.len(),
                    inputs.len()
                )));
                continue;
            }
            Err(e) => {
                runs.push(error(e.to_string()));
                continue;
            }
        };
        let shown: Vec<crate::timed::Row> = roles
            .outputs
            .iter()
            .filter(|n| observed.iter().any(|st| st.iter().any(|(m, _)| m == *n)))
            .map(|n| crate::timed::Row {
                variable: n.to_string(),
                role: "output",
                values: observed
                    .iter()
                    .map(|st| {
                        st.iter()
                            .find(|(m, _)| m == n)
                            .map(|(_, v)| values::show(v))
                            .unwrap_or_default()
                    })
                    .collect(),
            })
            .collect();
        let mut differences = Vec::new();
        for row in rows {
            for (t, e) in row.values.iter().enumerate() {
                let Expected::Value(x) = e else { continue };
                let got = observed[t]
                    .iter()
                    .find(|(m, _)| **m == *row.variable)
                    .map(|(_, v)| v);
                if let Some(v) = got {
                    if !close(x, v, tolerance) {
                        differences.push(StepDifference {
                            variable: row.variable.clone(),
                            step: t,
                            expected: values::show(x),
                            observed: values::show(v),
                        });
                    }
                }
            }
        }
        let session = sessions.of_length(inputs.len())?;
        let verdict = match session.judge(&inputs, &observed, tolerance)? {
            crate::timed::Judged::Pass => SequenceVerdict::Pass,
            crate::timed::Judged::Fail(violated) => SequenceVerdict::Fail {
                violated,
                differences,
            },
            crate::timed::Judged::Unknown(r) => SequenceVerdict::Error {
                message: format!("the solver could not judge the outputs ({r})"),
            },
        };
        runs.push(SequenceRun {
            observed: shown,
            verdict,
            ..base
        });
    }
    let count = |f: fn(&SequenceVerdict) -> bool| runs.iter().filter(|r| f(&r.verdict)).count();
    Ok(TimedRunReport {
        implementation: imp.describe(),
        passed: count(|v| matches!(v, SequenceVerdict::Pass)),
        failed: count(|v| matches!(v, SequenceVerdict::Fail { .. })),
        errors: count(|v| matches!(v, SequenceVerdict::Error { .. })),
        sequences: runs,
        tolerance: tolerance.map(values::show_rational),
    })
}

//! What `vera audit` runs on a timed spec, from options as the user wrote them: the
//! reading (discrete ticks or dense time) comes from the spec's `[time]` table, and
//! durations such as `--horizon 10s` are read in the spec's time base.

use super::audit::{audit_timed, TimedError, TimedOptions, TimedReport};
use super::dense::audit::{audit_dense, DenseError, DenseOptions, DenseReport};
use super::Semantics;
use crate::audit::AuditOptions;
use crate::Spec;

/// The options of a timed audit, durations still as written.
#[derive(Debug, Clone)]
pub struct TimedRequest {
    /// The plain audits' options (solver, jobs, conflicts).
    pub audit: AuditOptions,
    /// `--horizon`: a duration in the spec's time base.
    pub horizon: Option<String>,
    /// `--rt-horizon`: a duration in the spec's time base.
    pub rt_horizon: Option<String>,
    /// Skip the rt-inconsistency check.
    pub no_rt: bool,
    /// Dense time: search runs of up to this many intervals first.
    pub bmc_depth: Option<usize>,
    /// Dense time: skip the redundancy check.
    pub no_redundancy: bool,
    /// Dense time: where the audit tells how far it has got.
    pub progress: crate::progress::Progress,
}

/// The report of the reading the spec asks for.
#[derive(Debug)]
pub enum TimedAudit {
    /// Dense time (phase event automata with clocks).
    Dense(DenseReport),
    /// Discrete ticks (the spec unrolled to a horizon).
    Discrete(TimedReport),
}

/// Why a timed audit did not run or did not finish.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    /// No requirement has a formula or a timed pattern.
    #[error("nothing to check: {0} has no requirement with a formula or a timed pattern")]
    NothingToCheck(String),
    /// A duration option that is not one in the spec's time base, or is zero.
    #[error("{option}{}", .problem.as_deref().map(|p| format!(": {p}")).unwrap_or_else(|| " must be at least one tick".into()))]
    Duration {
        /// `--horizon` or `--rt-horizon`.
        option: &'static str,
        /// What is wrong with it (`None`: it is zero ticks).
        problem: Option<String>,
    },
    /// The discrete audit failed.
    #[error(transparent)]
    Timed(#[from] TimedError),
    /// The dense audit failed.
    #[error(transparent)]
    Dense(#[from] DenseError),
    /// The spec has no `[time]` table.
    #[error("the spec has no [time] table")]
    NotTimed,
}

/// Runs the timed audit `spec` asks for; `name` names the spec in messages.
pub fn audit_timed_request(
    spec: &Spec,
    name: &str,
    request: &TimedRequest,
) -> Result<TimedAudit, RequestError> {
    let tb = spec.time.as_ref().ok_or(RequestError::NotTimed)?;
    if spec
        .requirements
        .iter()
        .all(|r| r.timed.is_none() && r.dense.is_none() && r.formula.is_none())
    {
        return Err(RequestError::NothingToCheck(name.to_string()));
    }
    let steps = |option: &'static str, d: &Option<String>| match d {
        None => Ok(None),
        Some(text) => match tb.duration(text) {
            Ok(0) => Err(RequestError::Duration {
                option,
                problem: None,
            }),
            Ok(n) => Ok(Some(n as usize)),
            Err(e) => Err(RequestError::Duration {
                option,
                problem: Some(e),
            }),
        },
    };
    if tb.semantics == Semantics::Dense {
        let mut options = DenseOptions::new(request.audit.solver.clone());
        options.bmc_depth = request.bmc_depth;
        options.jobs = request.audit.jobs;
        options.redundancy = !request.no_redundancy;
        options.progress = request.progress.clone();
        if request.no_rt {
            options.rt_range = 0;
        }
        return Ok(TimedAudit::Dense(audit_dense(spec, &options)?));
    }
    let options = TimedOptions {
        audit: request.audit.clone(),
        horizon: steps("--horizon", &request.horizon)?,
        rt_horizon: steps("--rt-horizon", &request.rt_horizon)?,
        no_rt: request.no_rt,
    };
    Ok(TimedAudit::Discrete(audit_timed(spec, &options)?))
}

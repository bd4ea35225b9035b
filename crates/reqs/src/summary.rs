//! The counts at the top of an audit report, and how findings are attributed to
//! requirements (shared by every rendering of an audit).

use crate::audit::{Consistency, Redundancy, RequirementAudit, Vacuity, Violatability};
use crate::realize::Realizability;
use crate::Spec;
use serde::Serialize;

/// The counts at the top of an audit report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct Summary {
    /// Requirements in the spec, formalized or not.
    pub requirements: usize,
    /// Requirements with a formula (the ones audited).
    pub formalized: usize,
    /// Variables of the schema.
    pub variables: usize,
    /// Domain constraints, bounds included.
    pub domain_constraints: usize,
    /// Requirements whose trigger can never hold.
    pub vacuous: usize,
    /// Requirements the domain alone forces.
    pub implied_by_domain: usize,
    /// Requirements implied by others.
    pub redundant: usize,
    /// Conflicts the environment can force.
    pub conflicts_for_some_inputs: usize,
    /// Requirements that fix a variable they cannot mean to fix (an input, or in a
    /// conditional requirement): see [`crate::forcing`].
    pub fixes_a_variable: usize,
    /// Checks the solver did not decide.
    pub unknown: usize,
}

/// The conflicts for some inputs that requirement `id` takes part in (1-based numbers as
/// printed), and its partners in them.
pub fn env_conflicts_of(report: &crate::AuditReport, id: &str) -> Vec<(usize, Vec<String>)> {
    match &report.realizability {
        Realizability::Unrealizable { conflicts, .. } => conflicts
            .iter()
            .enumerate()
            .filter(|(_, c)| c.requirements.iter().any(|r| r == id))
            .map(|(k, c)| {
                (
                    k + 1,
                    c.requirements
                        .iter()
                        .filter(|r| *r != id)
                        .cloned()
                        .collect(),
                )
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// A trigger ruled out only by a clash with other requirements, in a requirement the
/// environment can drive into that clash: a conflict for some inputs, not a vacuity.
pub fn vacuous_by_priority(report: &crate::AuditReport, a: &RequirementAudit) -> bool {
    matches!(
        a.vacuity_model,
        Vacuity::Vacuous {
            response_conflict: true,
            ..
        }
    ) && !env_conflicts_of(report, &a.id).is_empty()
}

/// The counts of an audit report: requirements, findings by kind, undecided checks.
pub fn summarize(spec: &Spec, report: &crate::AuditReport) -> Summary {
    let mut s = Summary {
        requirements: spec.requirements.len(),
        formalized: report.requirements.len(),
        variables: spec.variables.len(),
        domain_constraints: spec.domain.len(),
        ..Summary::default()
    };
    if let Consistency::Inconsistent {
        incomplete: Some(crate::Incomplete::Unknown { .. }),
        ..
    } = &report.consistency
    {
        // The conflict enumeration met an unknown answer: counted like a check that
        // could not be decided.
        s.unknown += 1;
    }
    if let Realizability::Unrealizable { conflicts, .. } = &report.realizability {
        s.conflicts_for_some_inputs = conflicts.len();
    }
    for r in &report.requirements {
        if matches!(r.vacuity_domain, Vacuity::Vacuous { .. })
            || (matches!(r.vacuity_model, Vacuity::Vacuous { .. })
                && !vacuous_by_priority(report, r))
        {
            s.vacuous += 1;
        }
        if matches!(r.violatability, Violatability::ImpliedByDomain { .. }) {
            s.implied_by_domain += 1;
        }
        if matches!(r.redundancy, Redundancy::Redundant { .. }) {
            s.redundant += 1;
        }
        let unknown = matches!(r.vacuity_domain, Vacuity::Unknown { .. })
            || matches!(r.vacuity_model, Vacuity::Unknown { .. })
            || matches!(r.violatability, Violatability::Unknown { .. })
            || matches!(r.redundancy, Redundancy::Unknown { .. })
            || r.fixes_unknown;
        if r.fixes.iter().any(|f| f.kind.is_finding()) {
            s.fixes_a_variable += 1;
        }
        if unknown {
            s.unknown += 1;
        }
    }
    s
}

//! Reader types for the audit reports the review page shows: `vera.audit.v1` and
//! `vera.audit-timed.v1` (docs/schemas), read once into these types instead of being
//! looked up field by field.
//!
//! The reports are written by the `printer` crate from `reqs`' verdict types, which are
//! made for writing (borrowed, `&'static str` fields); these types read the part of both
//! audits the page uses, under the names the schemas give. A field a report lacks reads
//! as empty, so a report of an older version still shows what it has.

use serde::Deserialize;
use serde_json::Value;

/// The JSON tag every report carries (`schema`).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Envelope {
    /// E.g. `vera.audit.v1`.
    #[serde(default)]
    pub schema: String,
}

impl Envelope {
    /// The tag of a report (empty when it has none).
    pub fn of(json: &Value) -> String {
        Envelope::deserialize(json).unwrap_or_default().schema
    }
}

/// A plain or timed audit, as far as the page reads it.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Audit {
    /// Global consistency.
    #[serde(default)]
    pub consistency: Check,
    /// Conflicts the environment can force (plain audits).
    #[serde(default)]
    pub realizability: Option<Check>,
    /// Conflicts the environment can force (timed audits).
    #[serde(default)]
    pub environment: Check,
    /// Dead ends over time (timed audits only).
    #[serde(default)]
    pub rt_inconsistency: Check,
    /// Requirements that need longer runs than the horizon (timed audits only).
    #[serde(default)]
    pub bound_too_small: Vec<String>,
    /// The horizon a timed audit used.
    #[serde(default)]
    pub horizon: Option<Horizon>,
    /// The counts at the top.
    #[serde(default)]
    pub summary: Option<Summary>,
    /// The audit of each requirement.
    #[serde(default)]
    pub requirements: Vec<RequirementAudit>,
}

impl Audit {
    /// The audit in a stored report, when the report is one (`None` for another report,
    /// or one that does not read as an audit).
    pub fn of(json: &Value) -> Option<Audit> {
        let schema = Envelope::of(json);
        if schema != "vera.audit.v1" && schema != "vera.audit-timed.v1" {
            return None;
        }
        Audit::deserialize(json).ok()
    }

    /// The minimal conflicts of an inconsistent spec (the clash of the domain
    /// constraints when they alone cannot hold).
    pub fn conflicts(&self) -> Vec<Vec<String>> {
        match self.consistency.status.as_str() {
            "inconsistent" => self
                .consistency
                .conflicts
                .iter()
                .map(|c| c.ids().to_vec())
                .collect(),
            "domain-inconsistent" => vec![self.consistency.conflict.clone()],
            _ => Vec::new(),
        }
    }

    /// Conflicts the environment can force: each with its requirements and the
    /// decision it asks for.
    pub fn env_conflicts(&self) -> Vec<(&[String], &str)> {
        self.realizability
            .as_ref()
            .unwrap_or(&self.environment)
            .conflicts
            .iter()
            .map(|c| match c {
                Conflict::Ids(ids) => (ids.as_slice(), ""),
                Conflict::Found(f) => (f.requirements.as_slice(), f.question.as_str()),
            })
            .collect()
    }

    /// Dead ends over time: runs that reach a step from which no next step satisfies
    /// these requirements together. Each with its requirements, the step and the run.
    pub fn dead_ends(&self) -> Vec<&FoundConflict> {
        if self.rt_inconsistency.status != "found" {
            return Vec::new();
        }
        self.rt_inconsistency
            .conflicts
            .iter()
            .filter_map(|c| match c {
                Conflict::Found(f) => Some(f),
                Conflict::Ids(_) => None,
            })
            .collect()
    }

    /// The audit of one requirement.
    pub fn requirement(&self, id: &str) -> Option<&RequirementAudit> {
        self.requirements.iter().find(|r| r.id == id)
    }

    /// The last step of the runs a timed audit looked at, plus one: their length.
    pub fn run_length(&self) -> String {
        self.horizon
            .as_ref()
            .map(|h| (h.steps + 1).to_string())
            .unwrap_or_else(|| "?".into())
    }
}

/// The horizon of a timed audit.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Horizon {
    /// The last step `k`.
    pub steps: u64,
}

/// The counts of an audit.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(default)]
pub struct Summary {
    /// Requirements in the spec.
    pub requirements: u64,
    /// With a formula.
    pub formalized: u64,
    /// Vacuous.
    pub vacuous: u64,
    /// Redundant.
    pub redundant: u64,
    /// Implied by the domain.
    pub implied_by_domain: u64,
    /// With an undecided check.
    pub unknown: u64,
}

/// The audit of one requirement: plain audits say `vacuity_model`, timed ones
/// `vacuity`; `fits` and `needs_steps` are timed only.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct RequirementAudit {
    /// Its id.
    pub id: String,
    /// False when it needs longer runs than the horizon.
    #[serde(default)]
    pub fits: Option<bool>,
    /// How many steps it needs.
    #[serde(default)]
    pub needs_steps: Option<u64>,
    /// Vacuity under the domain constraints.
    #[serde(default)]
    pub vacuity_domain: Check,
    /// Vacuity under the other requirements.
    #[serde(default, alias = "vacuity")]
    pub vacuity_model: Check,
    /// Can it be broken within the domain?
    #[serde(default)]
    pub violatability: Check,
    /// Do the others already enforce it?
    #[serde(default)]
    pub redundancy: Check,
}

impl RequirementAudit {
    /// The statuses of its four checks.
    pub fn statuses(&self) -> [&str; 4] {
        [
            &self.vacuity_domain.status,
            &self.vacuity_model.status,
            &self.violatability.status,
            &self.redundancy.status,
        ]
    }
}

/// One check's verdict as every audit writes it: its `status` and the fields that
/// status carries.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Check {
    /// The verdict (`consistent`, `vacuous`, `not-redundant`, `unknown`, ...).
    #[serde(default)]
    pub status: String,
    /// Why it is undecided or skipped.
    #[serde(default)]
    pub reason: Option<String>,
    /// What makes a trigger unreachable, or the domain constraints that imply a
    /// requirement.
    #[serde(default)]
    pub because: Vec<String>,
    /// The requirements that subsume a redundant one.
    #[serde(default)]
    pub subsumed_by: Vec<String>,
    /// A vacuous requirement whose response contradicts the others.
    #[serde(default)]
    pub response_conflict: bool,
    /// The conflicts of an inconsistent spec (plain: lists of ids; timed: objects with
    /// `requirements`), of the environment, or of dead ends.
    #[serde(default)]
    pub conflicts: Vec<Conflict>,
    /// The clash of the domain constraints.
    #[serde(default)]
    pub conflict: Vec<String>,
    /// Whether the conflict list is complete.
    #[serde(default)]
    pub complete: bool,
    /// A state (plain audits) or a run (timed) that shows the verdict.
    #[serde(flatten)]
    pub evidence: Evidence,
}

/// One conflict: a plain audit's list of ids, or an object naming its requirements.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Conflict {
    /// A plain audit's minimal conflict.
    Ids(Vec<String>),
    /// A timed audit's conflict, an environment conflict or a dead end.
    Found(FoundConflict),
}

impl Conflict {
    /// The requirements in it.
    pub fn ids(&self) -> &[String] {
        match self {
            Conflict::Ids(ids) => ids,
            Conflict::Found(f) => &f.requirements,
        }
    }
}

/// A conflict given as an object.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct FoundConflict {
    /// The requirements in it.
    #[serde(default)]
    pub requirements: Vec<String>,
    /// The decision an environment conflict asks for.
    #[serde(default)]
    pub question: String,
    /// The step a dead end is reached at.
    #[serde(default)]
    pub dead_end_at: u64,
    /// The run up to a dead end.
    #[serde(default)]
    pub prefix: Option<Trace>,
}

/// What shows a verdict: a state (`witness`, a list of assignments) or a run
/// (`trace`). A timed audit's `witness` (a run) is not shown.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Evidence {
    /// The state.
    #[serde(default, deserialize_with = "state_or_nothing")]
    pub witness: Option<Vec<Assignment>>,
    /// The run.
    #[serde(default)]
    pub trace: Option<Trace>,
}

/// A plain witness (a list of assignments) reads as itself; anything else (a timed
/// witness, which is a run) as no state.
fn state_or_nothing<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Vec<Assignment>>, D::Error> {
    let v = Value::deserialize(d)?;
    Ok(Vec::<Assignment>::deserialize(&v).ok())
}

/// A variable's value.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Assignment {
    /// The variable.
    pub variable: String,
    /// Its value as printed for people.
    pub value: String,
    /// Its unit.
    #[serde(default)]
    pub unit: Option<String>,
}

/// A run: intervals of steps with one state each.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Trace {
    /// The intervals.
    #[serde(default)]
    pub rows: Vec<Interval>,
}

/// Steps `from .. to` with one state.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Interval {
    /// First step.
    pub from: u64,
    /// The step after the last.
    pub to: u64,
    /// `from` as time.
    #[serde(default)]
    pub from_time: String,
    /// `to` as time.
    #[serde(default)]
    pub to_time: String,
    /// The state.
    #[serde(default)]
    pub values: Vec<Assignment>,
}

/// A saved ambiguity screening (`vera.ambiguity.v1`, `vera.ambiguity-timed.v1`, the
/// first screening of `vera.clarify-run.v1` / `vera.clarify-run-timed.v1`) or a file of
/// clarification proposals (`vera.clarify.v1`), as far as the spec page reads it.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Saved {
    /// The spec it is about, as written.
    #[serde(default)]
    pub file: String,
    /// Proposals (`vera.clarify.v1`).
    #[serde(default)]
    pub proposals: Vec<Proposal>,
    /// The screening (ambiguity reports and clarify runs).
    #[serde(default)]
    pub report: Option<SavedReport>,
}

impl Saved {
    /// The requirements with a proposal, each with the text it was made for.
    pub fn proposed(&self) -> Vec<(String, String)> {
        self.proposals
            .iter()
            .filter_map(|p| Some((p.id.clone()?, p.original.clone()?)))
            .collect()
    }

    /// The requirements a screening flags, each with the text it was screened with.
    pub fn flagged(&self) -> Vec<(String, String)> {
        let Some(r) = &self.report else {
            return Vec::new();
        };
        let screened = match &r.screening {
            Some(s) => &s.requirements,
            None => &r.requirements,
        };
        screened
            .iter()
            .filter(|x| x.flagged)
            .filter_map(|x| Some((x.id.clone()?, x.text.clone())))
            .collect()
    }
}

/// One clarification proposal.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Proposal {
    /// The requirement.
    #[serde(default)]
    pub id: Option<String>,
    /// Its text when the proposal was made.
    #[serde(default)]
    pub original: Option<String>,
}

/// The report inside a saved screening: an ambiguity report's requirements, or a
/// clarify run's first screening.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct SavedReport {
    /// The screened requirements (ambiguity reports).
    #[serde(default)]
    pub requirements: Vec<Screened>,
    /// The first screening (clarify runs).
    #[serde(default)]
    pub screening: Option<SavedScreening>,
}

/// A clarify run's first screening.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct SavedScreening {
    /// The screened requirements.
    #[serde(default)]
    pub requirements: Vec<Screened>,
}

/// One screened requirement.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Screened {
    /// Its id.
    #[serde(default)]
    pub id: Option<String>,
    /// Its text when screened.
    #[serde(default)]
    pub text: String,
    /// True when its formalizations disagree.
    #[serde(default)]
    pub flagged: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_and_timed_audits_read_into_one_shape() {
        let plain = serde_json::json!({
            "schema": "vera.audit.v1",
            "consistency": {"status": "inconsistent", "conflicts": [["R1", "R2"]], "complete": true},
            "realizability": {"status": "conflicts", "conflicts": [{"requirements": ["R3"], "question": "which?"}]},
            "requirements": [{"id": "R1",
                "vacuity_domain": {"status": "reachable"},
                "vacuity_model": {"status": "vacuous", "because": ["R2"], "response_conflict": true},
                "violatability": {"status": "violatable", "witness": [{"variable": "x", "value": "1", "unit": "s"}]},
                "redundancy": {"status": "unknown", "reason": "timeout", "reason_kind": "timeout"}}]
        });
        let a = Audit::of(&plain).unwrap();
        assert_eq!(a.consistency.conflicts[0].ids(), ["R1", "R2"]);
        assert!(a.consistency.complete);
        assert_eq!(a.env_conflicts(), [(&["R3".to_string()][..], "which?")]);
        let r = a.requirement("R1").unwrap();
        assert_eq!(
            r.statuses(),
            ["reachable", "vacuous", "violatable", "unknown"]
        );
        assert!(r.vacuity_model.response_conflict);
        let w = r.violatability.evidence.witness.as_ref().unwrap();
        assert_eq!(w[0].unit.as_deref(), Some("s"));
        assert_eq!(r.redundancy.reason.as_deref(), Some("timeout"));

        let timed = serde_json::json!({
            "schema": "vera.audit-timed.v1",
            "consistency": {"status": "consistent", "witness": {"steps": 2, "rows": []}},
            "environment": {"status": "unknown", "reason": "limit"},
            "rt_inconsistency": {"status": "found", "conflicts": [{"requirements": ["T1"], "dead_end_at": 4,
                "prefix": {"rows": [{"from": 0, "to": 4, "from_time": "0 s", "to_time": "4 s", "values": [{"variable": "p", "value": "true"}]}]}}]},
            "bound_too_small": ["T2"],
            "horizon": {"steps": 9},
            "requirements": [{"id": "T1", "vacuity": {"status": "vacuous"}, "fits": false, "needs_steps": 12}]
        });
        let t = Audit::of(&timed).unwrap();
        assert!(t.consistency.evidence.witness.is_none());
        assert_eq!(t.environment.status, "unknown");
        let Conflict::Found(d) = &t.rt_inconsistency.conflicts[0] else {
            panic!("a dead end is an object");
        };
        assert_eq!(
            (d.dead_end_at, d.prefix.as_ref().unwrap().rows[0].to),
            (4, 4)
        );
        assert_eq!(t.run_length(), "10");
        let r = t.requirement("T1").unwrap();
        assert_eq!(
            (r.vacuity_model.status.as_str(), r.fits, r.needs_steps),
            ("vacuous", Some(false), Some(12))
        );

        assert!(Audit::of(&serde_json::json!({"schema": "vera.tests.v1"})).is_none());
    }
}

//! Requirements that force a variable to one value in every state, as the likely cause
//! of redundancy findings.
//!
//! An invariant such as `alarm` (where `(=> (> temp 40) alarm)` was meant) fixes
//! `alarm = true` in every state; every other requirement that only ever demands
//! `alarm` is then redundant because of it. The redundancy audit names the subsuming
//! requirements; this module checks, for each of them, whether its formula on its own
//! (with the domain constraints) forces a variable the redundant requirement mentions,
//! so the report can point at the forcing requirement instead of leaving the reader to
//! delete the redundant ones.

use crate::audit::{AuditReport, Redundancy};
use crate::equiv::{Checker, EquivError, Universe};
use crate::Spec;
use serde::Serialize;
use solver::SolverConfig;
use std::collections::BTreeMap;

/// A variable a requirement fixes in every state of the domain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Forced {
    /// The requirement whose formula forces it.
    pub requirement: String,
    /// The variable.
    pub variable: String,
    /// The one value it can take, as written for people.
    pub value: String,
}

/// A redundancy finding with a subsuming requirement that forces a variable the
/// redundant requirement mentions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RedundancyCause {
    /// The requirement reported redundant.
    pub redundant: String,
    /// What the subsuming requirement forces.
    #[serde(flatten)]
    pub forced: Forced,
}

/// The variables `formula` forces: `C ∧ formula` has a model giving `v` the value `x`,
/// `C ∧ formula ∧ v ≠ x` is unsat, and `C ∧ v ≠ x` is sat (the domain alone does not
/// force it). Unknown answers force nothing.
pub fn forced_by(
    checker: &mut Checker,
    requirement: &str,
    formula: &logic::Term,
) -> Result<Vec<Forced>, solver::SolverError> {
    let Some(Some(model)) = checker.model_of(std::slice::from_ref(formula))? else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for (name, sort) in formula.free_vars() {
        let Some(v) = model.get(&name) else { continue };
        let var = logic::Term::Var(name.clone(), sort.clone());
        let other = logic::Term::app(logic::Op::Distinct, vec![var, v.to_term()]);
        if checker.model_of(&[formula.clone(), other.clone()])? == Some(None)
            && checker.satisfiable(&other)? == Some(true)
        {
            out.push(Forced {
                requirement: requirement.to_string(),
                variable: name.to_string(),
                value: v.to_string(),
            });
        }
    }
    Ok(out)
}

/// For every redundant requirement, the subsuming requirements that force a variable
/// it mentions. Each subsuming requirement is checked once; nothing runs when no
/// requirement is redundant.
pub fn redundancy_causes(
    spec: &Spec,
    report: &AuditReport,
    config: &SolverConfig,
) -> Result<Vec<RedundancyCause>, EquivError> {
    let redundant: Vec<(&str, &[String])> = report
        .requirements
        .iter()
        .filter_map(|a| match &a.redundancy {
            Redundancy::Redundant { subsumed_by } => Some((a.id.as_str(), subsumed_by.as_slice())),
            _ => None,
        })
        .collect();
    if redundant.is_empty() {
        return Ok(Vec::new());
    }
    let universe = Universe::of_spec(spec);
    let mut checker = Checker::new(&universe, config)?;
    let mut forced: BTreeMap<&str, Vec<Forced>> = BTreeMap::new();
    let mut out = Vec::new();
    for (id, by) in redundant {
        let mentions: Vec<String> = spec
            .requirements
            .iter()
            .find(|r| r.id == id)
            .and_then(|r| r.formula.as_ref())
            .map(|f| {
                f.free_vars()
                    .into_iter()
                    .map(|(n, _)| n.to_string())
                    .collect()
            })
            .unwrap_or_default();
        for b in by {
            let Some(req) = spec.requirements.iter().find(|r| r.id == *b) else {
                continue; // a domain constraint
            };
            let Some(formula) = &req.formula else {
                continue;
            };
            if !forced.contains_key(b.as_str()) {
                let f = forced_by(&mut checker, b, formula)?;
                forced.insert(b.as_str(), f);
            }
            for f in &forced[b.as_str()] {
                if mentions.contains(&f.variable) {
                    out.push(RedundancyCause {
                        redundant: id.to_string(),
                        forced: f.clone(),
                    });
                }
            }
        }
    }
    Ok(out)
}

//! End-to-end fault detection (VeriMed section 2.6, Experiment 3): each requirement's
//! text is replaced by a faulty version (written by a user, or by the model), the faulty
//! text is formalized again, the new formula replaces the original in the model, and the
//! fault is *detected* when the modified model is globally inconsistent or the new
//! formula is not equivalent to the original under C (both directions, with a witness).

use crate::qa::RateCi;
use crate::roundtrip::{formalize, template, Checker, Equivalence, Sampling};
use llm::{Client, LlmError, Request};
use reqs::mutate::Detection;
use reqs::Spec;
use serde::{Deserialize, Serialize};
use solver::{SolverConfig, SolverError};
use std::collections::BTreeMap;

const MUTATE: &str = include_str!("../../../prompts/fault-mutate.txt");

/// The four fault categories of the paper, with the hint the generator gets.
pub const FAULTS: [(&str, &str); 4] = [
    ("limit-violation", "a changed numeric threshold or limit"),
    (
        "mode-transition",
        "a weakened or removed condition on the machine's phase or state",
    ),
    (
        "value-mismatch",
        "an incorrect demanded value or control action",
    ),
    (
        "false-alarm",
        "an alarm or safety reaction that fires in fewer situations",
    ),
];

/// One faulty requirement text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FaultyText {
    /// The requirement it replaces.
    pub requirement: String,
    /// The faulty text.
    pub text: String,
    /// Its fault category (free text; the four of the paper are in [`FAULTS`]).
    #[serde(default)]
    pub category: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FaultFile {
    mutants: Vec<FaultyText>,
}

/// Why faulty texts could not be read or the run stopped.
#[derive(Debug, thiserror::Error)]
pub enum FaultError {
    /// The mutants file is not valid.
    #[error("{0}")]
    File(logic::Diagnostics),
    /// A mutant names a requirement the spec has no formula for.
    #[error("mutant of {0}: the spec has no formalized requirement with that id")]
    UnknownRequirement(String),
    /// The LLM failed in a way a repair turn cannot fix.
    #[error("llm: {0}")]
    Llm(#[from] LlmError),
    /// The solver failed.
    #[error("solver: {0}")]
    Solver(#[from] SolverError),
}

/// Reads a mutants file (TOML `[[mutants]]` with requirement, text, category).
pub fn load_mutants(text: &str, name: &str) -> Result<Vec<FaultyText>, FaultError> {
    crate::qa::read_toml::<FaultFile>(text, name)
        .map(|f| f.mutants)
        .map_err(FaultError::File)
}

/// Asks the model for one faulty version of each selected formalized requirement,
/// cycling through the four categories.
pub fn generate(
    spec: &Spec,
    client: &Client,
    selection: &crate::select::Selection,
) -> Result<Vec<FaultyText>, FaultError> {
    let t = template("fault-mutate", MUTATE);
    let chosen: Vec<&reqs::spec::Requirement> = selection
        .indices(spec)
        .into_iter()
        .map(|i| &spec.requirements[i])
        .collect();
    let reqs: Vec<Request> = chosen
        .iter()
        .enumerate()
        .map(|(k, r)| {
            let (_, hint) = FAULTS[k % FAULTS.len()];
            Request::new()
                .user(
                    t.render(&[("fault", hint), ("requirement", &r.text)])
                        .expect("all variables given"),
                )
                .temperature(0.0)
                .max_tokens(200)
        })
        .collect();
    let mut out = Vec::new();
    for (k, (r, answer)) in chosen
        .iter()
        .zip(client.run_all("faults.generate", &reqs))
        .enumerate()
    {
        match answer {
            Ok(c) => out.push(FaultyText {
                requirement: r.id.clone(),
                text: c
                    .text()
                    .trim()
                    .trim_start_matches("Faulty requirement:")
                    .trim()
                    .trim_matches('"')
                    .to_string(),
                category: Some(FAULTS[k % FAULTS.len()].0.to_string()),
            }),
            Err(e) if e.is_answer_problem() => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(out)
}

/// The outcome for one faulty text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FaultResult {
    /// The faulty text.
    #[serde(flatten)]
    pub mutant: FaultyText,
    /// Its formula, when it formalized.
    pub formula: Option<String>,
    /// Whether and how the fault was detected (absent when it did not formalize).
    pub detection: Option<Detection>,
    /// Why it did not formalize.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

impl FaultResult {
    /// Detected by inconsistency or non-equivalence.
    pub fn detected(&self) -> bool {
        matches!(
            self.detection,
            Some(Detection::Inconsistent | Detection::NotEquivalent { .. })
        )
    }
}

/// The Fig. 5 report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FaultReport {
    /// Every mutant.
    pub results: Vec<FaultResult>,
    /// Detection per category (`uncategorized` when none given), then `overall`.
    pub rates: Vec<(String, RateCi)>,
    /// Mutants that formalized.
    pub formalized: usize,
    /// Modified models that were globally inconsistent.
    pub inconsistent: usize,
}

/// Formalizes each faulty text, substitutes it and decides detection.
pub fn run(
    spec: &Spec,
    mutants: &[FaultyText],
    client: &Client,
    solver: &SolverConfig,
) -> Result<FaultReport, FaultError> {
    let mut checker = Checker::new(spec, solver)?;
    let mut results = Vec::new();
    for m in mutants {
        let index = spec
            .requirements
            .iter()
            .position(|r| r.id == m.requirement && r.formula.is_some())
            .ok_or_else(|| FaultError::UnknownRequirement(m.requirement.clone()))?;
        let original = spec.requirements[index]
            .formula
            .clone()
            .expect("formalized");
        let mut res = FaultResult {
            mutant: m.clone(),
            formula: None,
            detection: None,
            problem: None,
        };
        match formalize(
            client,
            &Sampling::greedy("faults.formalize"),
            spec,
            &m.text,
            Some(index),
        )? {
            Err(p) => res.problem = Some(p),
            Ok(f) => {
                res.formula = Some(logic::print::term(&f));
                res.detection = Some(match checker.consistent_with(index, &f)? {
                    Some(false) => Detection::Inconsistent,
                    None => Detection::Unknown {
                        reason: solver::Undecided::other("consistency check gave no answer"),
                    },
                    Some(true) => match checker.equivalence(&original, &f)? {
                        Equivalence::Equivalent => Detection::Equivalent,
                        Equivalence::Differs { direction, witness } => Detection::NotEquivalent {
                            direction: if direction == "other-only" {
                                "mutant-only"
                            } else {
                                "original-only"
                            },
                            witness,
                        },
                        Equivalence::Unknown { reason } => Detection::Unknown { reason },
                    },
                });
            }
        }
        results.push(res);
    }
    let mut by: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for r in &results {
        let c = r
            .mutant
            .category
            .clone()
            .unwrap_or_else(|| "uncategorized".into());
        let e = by.entry(c).or_default();
        e.1 += 1;
        if r.detected() {
            e.0 += 1;
        }
    }
    let mut rates: Vec<(String, RateCi)> = by
        .into_iter()
        .map(|(c, (k, n))| (c, RateCi::new(k, n)))
        .collect();
    rates.push((
        "overall".into(),
        RateCi::new(
            results.iter().filter(|r| r.detected()).count(),
            results.len(),
        ),
    ));
    Ok(FaultReport {
        formalized: results.iter().filter(|r| r.formula.is_some()).count(),
        inconsistent: results
            .iter()
            .filter(|r| r.detection == Some(Detection::Inconsistent))
            .count(),
        results,
        rates,
    })
}

//! `vera formalize`, `vera ambiguity` and `vera clarify` (with `--controlled` and
//! `--apply`): the spec loaded, the output planned before the model is asked, the loop
//! run and its file written.

use super::{default_out, Env, Error, Load};
use crate::ambiguity::{AmbiguityOptions, AmbiguityReport};
use crate::clarify::{ClarifyOptions, ClarifyReport, ProposalsFile};
use crate::formalize::{FormalizeOptions, FormalizeReport};
use crate::restate::{RestateFile, RestateOptions};
use crate::timed::{Either, TimedAmbiguityReport, TimedClarifyReport};
use solver::SolverConfig;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What `vera formalize` formalizes, and where it writes the result.
#[derive(Debug, Clone)]
pub struct Formalize {
    /// The spec (TOML), or a CSV with [`Self::schema`].
    pub input: PathBuf,
    /// The schema of a CSV input.
    pub schema: Option<PathBuf>,
    /// The new spec file (default: INPUT.formalized.toml).
    pub out: Option<PathBuf>,
    /// How the loop runs.
    pub options: FormalizeOptions,
    /// An existing output may be replaced (never an input).
    pub force: bool,
}

/// What `vera formalize` gives.
pub struct Formalized {
    /// The spec as it was read.
    pub spec: reqs::Spec,
    /// The loop's report.
    pub report: FormalizeReport,
    /// The spec file written.
    pub out: PathBuf,
    /// The model's accounting.
    pub llm: llm::Accounting,
    /// Seconds the loop took.
    pub seconds: f64,
    /// What to say on standard error (a run the model stopped, and how to go on).
    pub notes: Vec<String>,
}

/// `vera formalize SPEC_OR_CSV [--schema S] [-o OUT]`: the output is refused before the
/// model is asked (an input, or an existing file without `force`); the formalized spec
/// is written even when the model stopped answering part way.
pub fn formalize<V: Env>(
    c: &Formalize,
    config: &SolverConfig,
    env: &V,
) -> Result<Formalized, Error<V::Error>> {
    let schema = c.schema.as_deref();
    let spec = env
        .spec(&c.input, schema, Load::Formalize)
        .map_err(Error::Caller)?;
    let out = (c.out.clone()).unwrap_or_else(|| default_out(&c.input, "formalized.toml"));
    let mut inputs: Vec<&Path> = vec![&c.input];
    inputs.extend(schema);
    safefile::plan_output(&out, c.force)?;
    let client = env.client().map_err(Error::Caller)?;
    let start = Instant::now();
    let report = crate::formalize::formalize(&spec, &client, config, &c.options)?;
    let seconds = start.elapsed().as_secs_f64();
    let text = crate::formalize::formalized_spec(&spec, &report);
    crate::formalize::write_new(&out, &text, &inputs, c.force)?;
    let notes = report.halted.iter().map(|reason| format!(
        "error: stopped asking the model: {reason}\n  what was formalized before is written to {}; run the same command again to go on (the answers received so far come from the cache)",
        out.display()
    )).collect();
    Ok(Formalized {
        spec,
        report,
        out,
        llm: client.accounting(),
        seconds,
        notes,
    })
}

/// What `vera ambiguity` screens.
#[derive(Debug, Clone)]
pub struct Ambiguity {
    /// The spec (TOML), or a CSV with [`Self::schema`].
    pub spec: PathBuf,
    /// The schema of a CSV spec.
    pub schema: Option<PathBuf>,
    /// How the screening samples.
    pub options: AmbiguityOptions,
}

/// What `vera ambiguity` gives: formulas, or timed patterns, grouped.
pub struct Screened {
    /// The screening's report.
    pub report: Either<AmbiguityReport, TimedAmbiguityReport>,
    /// The model's accounting.
    pub llm: llm::Accounting,
    /// Seconds the screening took.
    pub seconds: f64,
}

/// `vera ambiguity SPEC`: formulas, or timed patterns grouped by trace equivalence.
pub fn ambiguity<V: Env>(
    c: &Ambiguity,
    config: &SolverConfig,
    env: &V,
) -> Result<Screened, Error<V::Error>> {
    let load = Load::Discrete("ambiguity");
    let spec = (env.spec(&c.spec, c.schema.as_deref(), load)).map_err(Error::Caller)?;
    let client = env.client().map_err(Error::Caller)?;
    let start = Instant::now();
    let report = crate::timed::screen_any(&spec, &client, config, &c.options)?;
    let seconds = start.elapsed().as_secs_f64();
    Ok(Screened {
        report,
        llm: client.accounting(),
        seconds,
    })
}

/// What `vera clarify` does: clarify the ambiguous requirements, restate the ones the
/// controlled-English reader does not read, or apply a file of accepted proposals.
#[derive(Debug, Clone)]
pub struct Clarify {
    /// The spec (TOML), or a CSV with [`Self::schema`].
    pub spec: PathBuf,
    /// The schema of a CSV spec.
    pub schema: Option<PathBuf>,
    /// Rounds at most (restating: answers asked per requirement).
    pub rounds: usize,
    /// Restate instead of clarifying.
    pub controlled: bool,
    /// Samples per screening.
    pub samples: u32,
    /// Token limit per answer.
    pub max_tokens: u32,
    /// Only these requirement ids.
    pub only: Option<Vec<String>>,
    /// The proposals (or restatements) file to write (default: next to the spec).
    pub proposals: Option<PathBuf>,
    /// Apply the accepted entries of this file instead.
    pub apply: Option<PathBuf>,
    /// With [`Self::apply`]: the new spec file (default: SPEC.clarified.toml).
    pub out: Option<PathBuf>,
    /// An existing output may be replaced (never an input).
    pub force: bool,
}

/// What `vera clarify` gives.
pub enum Clarified {
    /// Accepted proposals applied.
    Applied {
        /// The proposals file.
        proposals: PathBuf,
        /// The requirements changed.
        changed: Vec<String>,
        /// The spec file written, if anything changed.
        written: Option<PathBuf>,
        /// What to say on standard error (nothing accepted, nothing written).
        notes: Vec<String>,
    },
    /// Requirements restated in the reader's style.
    Restated {
        /// The restatements file written.
        out: PathBuf,
        /// The restatements.
        report: Box<RestateFile>,
        /// The model's accounting.
        llm: llm::Accounting,
        /// Seconds it took.
        seconds: f64,
    },
    /// Ambiguous requirements clarified.
    Clarified {
        /// The proposals file written.
        out: PathBuf,
        /// The clarification's report.
        report: Box<Either<ClarifyReport, TimedClarifyReport>>,
        /// The model's accounting.
        llm: llm::Accounting,
        /// Seconds it took.
        seconds: f64,
    },
}

/// `vera clarify SPEC [-o PROPOSALS] | --apply PROPOSALS [--out SPEC]`: the output is
/// refused before the model is asked.
pub fn clarify<V: Env>(
    c: &Clarify,
    config: &SolverConfig,
    env: &V,
) -> Result<Clarified, Error<V::Error>> {
    let (schema, force) = (c.schema.as_deref(), c.force);
    let load = Load::Discrete("clarify");
    let spec = env.spec(&c.spec, schema, load).map_err(Error::Caller)?;
    let mut inputs: Vec<&Path> = vec![&c.spec];
    inputs.extend(schema);
    if let Some(pf) = &c.apply {
        let out = (c.out.clone()).unwrap_or_else(|| default_out(&c.spec, "clarified.toml"));
        inputs.push(pf);
        let (text, spec_name) = (safefile::read_text(pf)?, c.spec.display().to_string());
        let changed =
            crate::clarify::apply_file(&spec, &spec_name, (pf, &text), &out, &inputs, force)?;
        let mut notes = Vec::new();
        if changed.is_empty() {
            notes.push(format!(
                "nothing to apply: no entry in {} is accepted (set \"accepted\": true to take one); nothing written",
                pf.display()
            ));
        }
        let written = (!changed.is_empty()).then_some(out);
        let proposals = pf.clone();
        return Ok(Clarified::Applied {
            proposals,
            changed,
            written,
            notes,
        });
    }
    let suffix = if c.controlled {
        "restated.json"
    } else {
        "proposals.json"
    };
    let out = (c.proposals.clone()).unwrap_or_else(|| default_out(&c.spec, suffix));
    safefile::plan_output(&out, force)?;
    let client = env.client().map_err(Error::Caller)?;
    let start = Instant::now();
    if c.controlled {
        let options = RestateOptions {
            attempts: c.rounds,
            only: c.only.clone(),
            max_tokens: c.max_tokens.min(400),
            ..Default::default()
        };
        let name = c.spec.display().to_string();
        let report = crate::restate::restate(&spec, &name, &client, config, &options)?;
        crate::formalize::write_new(&out, &report.to_json()?, &inputs, force)?;
        let seconds = start.elapsed().as_secs_f64();
        let llm = client.accounting();
        return Ok(Clarified::Restated {
            out,
            report: Box::new(report),
            llm,
            seconds,
        });
    }
    let options = ClarifyOptions {
        rounds: c.rounds,
        screening: AmbiguityOptions {
            samples: c.samples,
            only: c.only.clone(),
            max_tokens: Some(c.max_tokens),
            ..Default::default()
        },
        ..Default::default()
    };
    let report = crate::timed::clarify_any(&spec, &client, config, &options)?;
    let seconds = start.elapsed().as_secs_f64();
    let file = ProposalsFile::new(c.spec.display().to_string(), report.proposals().to_vec());
    crate::formalize::write_new(&out, &file.to_json()?, &inputs, force)?;
    Ok(Clarified::Clarified {
        out,
        report: Box::new(report),
        llm: client.accounting(),
        seconds,
    })
}

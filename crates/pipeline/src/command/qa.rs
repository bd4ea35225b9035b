//! `vera qa`, `vera roundtrip`, `vera faults` and `vera eval`: the spec and the files of
//! questions and faulty texts read, the option lists read, the outputs of the
//! evaluation refused before the (long) run and written after it.

use super::{Env, Error, Load};
use crate::eval::{EvalOptions, EvalReport, Experiment, FaultSource};
use crate::faults::{FaultReport, FaultyText};
use crate::qa::{QaOptions, QaQuestion, QaReport};
use crate::roundtrip::RoundTripReport;
use crate::select::Selection;
use solver::SolverConfig;
use std::path::{Path, PathBuf};

/// The options of the QA loop, as written.
#[derive(Debug, Clone)]
pub struct QaLoop {
    /// Feedback modes, comma-separated.
    pub modes: String,
    /// Repairs after the first attempt.
    pub max_repairs: usize,
    /// Sampling temperature.
    pub temperature: f64,
    /// Only the first N questions.
    pub limit_questions: Option<usize>,
}

impl QaLoop {
    /// The loop's options: at least one known feedback mode.
    fn options<E>(&self) -> Result<QaOptions, Error<E>> {
        let modes = crate::qa::parse_modes(&self.modes)?;
        if modes.is_empty() {
            return Err(Error::Refused("--modes needs at least one feedback mode"));
        }
        Ok(QaOptions {
            modes,
            max_repairs: self.max_repairs,
            temperature: self.temperature,
            ..QaOptions::default()
        })
    }
}

fn load_questions<E>(path: &Path, limit: Option<usize>) -> Result<Vec<QaQuestion>, Error<E>> {
    let text = safefile::read_text(path)?;
    let name = path.display().to_string();
    let mut qs = crate::qa::load_questions(&text, &name).map_err(Error::Questions)?;
    if let Some(n) = limit {
        qs.truncate(n);
    }
    Ok(qs)
}

fn load_mutants<E>(path: &Path) -> Result<Vec<FaultyText>, Error<E>> {
    let text = safefile::read_text(path)?;
    Ok(crate::faults::load_mutants(
        &text,
        &path.display().to_string(),
    )?)
}

/// A loop's report on a spec, with the model's accounting.
pub struct Ran<R> {
    /// The spec's name.
    pub spec: String,
    /// The report.
    pub report: R,
    /// The model's accounting.
    pub llm: llm::Accounting,
}

/// What `vera qa` gives.
pub struct Answered {
    /// The spec's name.
    pub spec: String,
    /// The questions asked.
    pub questions: Vec<QaQuestion>,
    /// The report.
    pub report: QaReport,
    /// The model's accounting.
    pub llm: llm::Accounting,
    /// Seconds the loop took.
    pub seconds: f64,
}

/// `vera qa SPEC QUESTIONS`
pub fn qa<V: Env>(
    spec: &Path,
    questions: &Path,
    o: &QaLoop,
    config: &SolverConfig,
    env: &V,
) -> Result<Answered, Error<V::Error>> {
    let spec = (env.spec(spec, None, Load::Formulas)).map_err(Error::Caller)?;
    let qs = load_questions(questions, o.limit_questions)?;
    let options = o.options()?;
    let client = env.client().map_err(Error::Caller)?;
    let start = std::time::Instant::now();
    let report = crate::qa::run(&spec, &qs, &client, config, &options)?;
    Ok(Answered {
        spec: spec.name,
        questions: qs,
        report,
        llm: client.accounting(),
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// `vera roundtrip SPEC`: the first `limit` formalized requirements (all without one).
pub fn roundtrip<V: Env>(
    spec: &Path,
    limit: Option<usize>,
    repair: bool,
    config: &SolverConfig,
    env: &V,
) -> Result<Ran<RoundTripReport>, Error<V::Error>> {
    let spec = (env.spec(spec, None, Load::Formulas)).map_err(Error::Caller)?;
    let client = env.client().map_err(Error::Caller)?;
    let options = crate::roundtrip::RoundTripOptions {
        selection: Selection::first(limit),
        repair,
        embeddings: env.embeddings().map_err(Error::Caller)?,
    };
    let report = crate::roundtrip::run(&spec, &client, config, &options)?;
    Ok(Ran {
        spec: spec.name,
        report,
        llm: client.accounting(),
    })
}

/// `vera faults SPEC [--mutants FILE]`: the faulty texts of the file, or written by the
/// model for the first `limit` formalized requirements.
pub fn faults<V: Env>(
    spec: &Path,
    mutants: Option<&Path>,
    limit: Option<usize>,
    config: &SolverConfig,
    env: &V,
) -> Result<Ran<FaultReport>, Error<V::Error>> {
    let spec = (env.spec(spec, None, Load::Formulas)).map_err(Error::Caller)?;
    let client = env.client().map_err(Error::Caller)?;
    let texts = match mutants {
        Some(p) => load_mutants(p)?,
        None => crate::faults::generate(&spec, &client, &Selection::first(limit))?,
    };
    let report = crate::faults::run(&spec, &texts, &client, config)?;
    Ok(Ran {
        spec: spec.name,
        report,
        llm: client.accounting(),
    })
}

/// What `vera eval` runs.
#[derive(Debug, Clone)]
pub struct Eval {
    /// The spec.
    pub spec: PathBuf,
    /// The QA questions file (the qa experiment needs it).
    pub questions: Option<PathBuf>,
    /// Experiments, comma-separated.
    pub experiments: String,
    /// Faulty requirement texts; without them the model writes them.
    pub mutants: Option<PathBuf>,
    /// Only these formalized requirements.
    pub only: Option<Vec<String>>,
    /// Only the first N (selected) formalized requirements.
    pub limit_requirements: Option<usize>,
    /// Formalizations sampled per requirement in the ambiguity experiment.
    pub samples: u32,
    /// Clarification rounds for the requirements the ambiguity experiment flags.
    pub clarify_rounds: usize,
    /// The folder for eval.json and tables.md.
    pub out: PathBuf,
    /// The QA loop.
    pub qa: QaLoop,
    /// Parallel solver processes.
    pub jobs: usize,
    /// Existing outputs may be replaced (never an input).
    pub force: bool,
}

/// What `vera eval` gives: its report and tables, and the files they were written to.
pub struct Evaluated {
    /// The measurements.
    pub report: EvalReport,
    /// The tables (Markdown), as written.
    pub tables: String,
    /// The JSON file written.
    pub json: PathBuf,
    /// The tables' file written.
    pub md: PathBuf,
}

/// `vera eval SPEC --questions FILE --out DIR`: eval.json and tables.md (`tables`
/// renders them) refused before the run and written atomically after it.
pub fn eval<V: Env>(
    c: &Eval,
    config: &SolverConfig,
    env: &V,
    tables: impl FnOnce(&EvalReport) -> String,
) -> Result<Evaluated, Error<V::Error>> {
    let spec = (env.spec(&c.spec, None, Load::Formulas)).map_err(Error::Caller)?;
    let experiments = crate::eval::parse_experiments(&c.experiments)?;
    let questions = match (&c.questions, experiments.contains(&Experiment::Qa)) {
        (Some(p), _) => load_questions(p, c.qa.limit_questions)?,
        (None, true) => return Err(Error::Refused("the qa experiment needs --questions FILE")),
        (None, false) => Vec::new(),
    };
    let faults = match &c.mutants {
        Some(p) => FaultSource::Given(load_mutants(p)?),
        None => FaultSource::Generate,
    };
    let selection = Selection {
        only: c.only.clone(),
        limit: c.limit_requirements,
    };
    let unknown = selection.unknown(&spec);
    if !unknown.is_empty() {
        return Err(Error::UnknownIds(unknown.join(", ")));
    }
    let options = EvalOptions {
        experiments,
        questions,
        qa: c.qa.options()?,
        faults,
        selection,
        ambiguity_samples: c.samples,
        clarify_rounds: c.clarify_rounds,
        embeddings: env.embeddings().map_err(Error::Caller)?,
        jobs: c.jobs,
    };
    let (json, md) = (c.out.join("eval.json"), c.out.join("tables.md"));
    std::fs::create_dir_all(&c.out).map_err(|source| Error::CreateDir {
        path: c.out.display().to_string(),
        source,
    })?;
    safefile::plan_output(&json, c.force)?;
    safefile::plan_output(&md, c.force)?;
    let client = env.client().map_err(Error::Caller)?;
    let report = crate::eval::run(&spec, &client, config, &options)?;
    let text = serde_json::to_string_pretty(&report)? + "\n";
    safefile::write_atomic(&json, text.as_bytes(), c.force)?;
    let tables = tables(&report);
    safefile::write_atomic(&md, tables.as_bytes(), c.force)?;
    Ok(Evaluated {
        report,
        tables,
        json,
        md,
    })
}

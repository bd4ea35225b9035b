//! `vera qa`, `vera roundtrip`, `vera faults` and `vera eval`: verified question
//! answering with repair, round-trip fidelity, end-to-end fault detection and the
//! evaluation harness of the `pipeline` crate.

use crate::audit::load_or_report;
use crate::output::Rendered;
use anyhow::{bail, Context as _, Result};
use clap::Args;
use pipeline::eval::{EvalOptions, Experiment, FaultSource};
use pipeline::faults::FaultyText;
use pipeline::qa::{QaOptions, QaQuestion};
use pipeline::select::Selection;
use report::Status;
use std::path::{Path, PathBuf};

/// Options that choose the language model.
pub use crate::llmcmd::LlmArgs as ModelArgs;

/// Options of the QA loop.
#[derive(Debug, Clone, Args)]
pub struct QaLoopArgs {
    /// Feedback modes, comma-separated: none, generic, requirements, counterexample.
    #[arg(long, default_value = "none,generic,requirements,counterexample")]
    pub modes: String,
    /// Repairs after the first attempt.
    #[arg(long, default_value_t = 5)]
    pub max_repairs: usize,
    /// Sampling temperature.
    #[arg(long, default_value_t = 0.0)]
    pub temperature: f64,
    /// Only the first N questions.
    #[arg(long, value_name = "N")]
    pub limit_questions: Option<usize>,
}

impl QaLoopArgs {
    fn options(&self) -> Result<QaOptions> {
        let modes = pipeline::qa::parse_modes(&self.modes)?;
        if modes.is_empty() {
            bail!("--modes needs at least one feedback mode");
        }
        Ok(QaOptions {
            modes,
            max_repairs: self.max_repairs,
            temperature: self.temperature,
            ..QaOptions::default()
        })
    }
}

fn load_questions(path: &Path, limit: Option<usize>) -> Result<Vec<QaQuestion>> {
    let text = safefile::read_text(path)?;
    let mut qs = pipeline::qa::load_questions(&text, &path.display().to_string())
        .map_err(|d| anyhow::anyhow!("{d}"))?;
    if let Some(n) = limit {
        qs.truncate(n);
    }
    Ok(qs)
}

fn load_mutants(path: &Path) -> Result<Vec<FaultyText>> {
    let text = safefile::read_text(path)?;
    Ok(pipeline::faults::load_mutants(
        &text,
        &path.display().to_string(),
    )?)
}

/// `vera qa SPEC QUESTIONS`
pub fn qa(a: &crate::cli::QaArgs) -> crate::output::Outcome {
    let (spec, questions, args, model, solver) = (
        a.spec.as_path(),
        a.questions.as_path(),
        &a.qa,
        &a.llm,
        &a.solver,
    );
    let spec = load_or_report(spec, None)?;
    let qs = load_questions(questions, args.limit_questions)?;
    let options = args.options()?;
    let client = model.client()?;
    let start = std::time::Instant::now();
    let report = pipeline::qa::run(&spec, &qs, &client, &solver.config(), &options)?;
    let seconds = start.elapsed().as_secs_f64();
    Ok(Box::new(printer::qa::qa_report(
        &spec.name,
        questions,
        &qs,
        report,
        client.accounting(),
        seconds,
    )))
}

/// `vera roundtrip SPEC`
pub fn roundtrip(a: &crate::cli::RoundtripArgs) -> crate::output::Outcome {
    let (spec, limit, no_repair, model, solver) =
        (a.spec.as_path(), a.limit, a.no_repair, &a.llm, &a.solver);
    let spec = load_or_report(spec, None)?;
    let client = model.client()?;
    let options = pipeline::roundtrip::RoundTripOptions {
        selection: Selection::first(limit),
        repair: !no_repair,
        embeddings: model.embeddings()?,
    };
    let report = pipeline::roundtrip::run(&spec, &client, &solver.config(), &options)?;
    Ok(Box::new(printer::qa::roundtrip_report(
        &spec.name,
        report,
        client.accounting(),
    )))
}

/// `vera faults SPEC [--mutants FILE]`
pub fn faults(a: &crate::cli::FaultsArgs) -> crate::output::Outcome {
    let (spec, mutants, limit, model, solver) = (
        a.spec.as_path(),
        a.mutants.as_deref(),
        a.limit,
        &a.llm,
        &a.solver,
    );
    let spec = load_or_report(spec, None)?;
    let client = model.client()?;
    let texts = match mutants {
        Some(p) => load_mutants(p)?,
        None => pipeline::faults::generate(&spec, &client, &Selection::first(limit))?,
    };
    let report = pipeline::faults::run(&spec, &texts, &client, &solver.config())?;
    Ok(Box::new(printer::qa::faults_report(
        &spec.name,
        report,
        client.accounting(),
    )))
}

/// Options of `vera eval`: the experiments and their inputs.
#[derive(Debug, Clone, Args)]
pub struct ExperimentArgs {
    /// The QA questions file.
    #[arg(long)]
    pub questions: Option<PathBuf>,
    /// Experiments, comma-separated: audit, roundtrip, mutation, qa, faults, ambiguity.
    #[arg(long, default_value = "audit,roundtrip,mutation,qa,faults,ambiguity")]
    pub experiments: String,
    /// Faulty requirement texts (TOML); without it the model writes them.
    #[arg(long)]
    pub mutants: Option<PathBuf>,
    /// Only these formalized requirements (comma-separated ids) in roundtrip, faults and
    /// ambiguity.
    #[arg(long, value_name = "IDS")]
    pub only: Option<String>,
    /// Only the first N (selected) formalized requirements in roundtrip, faults and ambiguity.
    #[arg(long, value_name = "N")]
    pub limit_requirements: Option<usize>,
    /// Formalizations sampled per requirement in the ambiguity experiment.
    #[arg(long, default_value_t = 5)]
    pub samples: u32,
    /// Clarification rounds for the requirements the ambiguity experiment flags (0: none).
    #[arg(long, default_value_t = 5, value_name = "R")]
    pub clarify_rounds: usize,
    /// Directory for eval.json and tables.md.
    #[arg(long)]
    pub out: PathBuf,
    #[command(flatten)]
    pub qa: QaLoopArgs,
}

/// `vera eval SPEC --questions FILE --out DIR`
pub fn eval(a: &crate::cli::EvalArgs) -> crate::output::Outcome {
    let (spec, args, model, solver) = (a.spec.as_path(), &a.eval, &a.llm, &a.solver);
    let spec = load_or_report(spec, None)?;
    let experiments = pipeline::eval::parse_experiments(&args.experiments)?;
    let questions = match (&args.questions, experiments.contains(&Experiment::Qa)) {
        (Some(p), _) => load_questions(p, args.qa.limit_questions)?,
        (None, true) => bail!("the qa experiment needs --questions FILE"),
        (None, false) => Vec::new(),
    };
    let faults = match &args.mutants {
        Some(p) => FaultSource::Given(load_mutants(p)?),
        None => FaultSource::Generate,
    };
    let selection = Selection {
        only: pipeline::command::ids(args.only.as_deref()),
        limit: args.limit_requirements,
    };
    let unknown = selection.unknown(&spec);
    if !unknown.is_empty() {
        bail!(
            "--only names no formalized requirement of the spec: {}",
            unknown.join(", ")
        );
    }
    let options = EvalOptions {
        experiments,
        questions,
        qa: args.qa.options()?,
        faults,
        selection,
        ambiguity_samples: args.samples,
        clarify_rounds: args.clarify_rounds,
        embeddings: model.embeddings()?,
        jobs: solver.jobs(),
    };
    // The outputs are checked before the (long) run, and written atomically after it.
    let json = args.out.join("eval.json");
    let md = args.out.join("tables.md");
    let force = crate::files::force();
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    safefile::plan_output(&json, force)?;
    safefile::plan_output(&md, force)?;
    let client = model.client()?;
    let report = pipeline::eval::run(&spec, &client, &solver.config(), &options)?;
    safefile::write_atomic(
        &json,
        (serde_json::to_string_pretty(&report)? + "\n").as_bytes(),
        force,
    )?;
    let tables = printer::tables::eval(&report);
    safefile::write_atomic(&md, tables.as_bytes(), force)?;
    eprintln!("wrote {} and {}", json.display(), md.display());
    // The evaluation measures; its figures are the result, not pass/fail findings.
    Ok(Box::new(Rendered::new(
        "vera.eval.v1",
        Status::Ok,
        tables,
        report,
    )))
}

//! `vera qa`, `vera roundtrip`, `vera faults` and `vera eval`: verified question
//! answering with repair, round-trip fidelity, end-to-end fault detection and the
//! evaluation harness of the `pipeline` crate.

use crate::output::Rendered;
use crate::pipecmd::{failed, Env};
use clap::Args;
use pipeline::command::{self as cmd, QaLoop};
use report::Status;
use std::path::PathBuf;

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
    fn options(&self) -> QaLoop {
        QaLoop {
            modes: self.modes.clone(),
            max_repairs: self.max_repairs,
            temperature: self.temperature,
            limit_questions: self.limit_questions,
        }
    }
}

/// `vera qa SPEC QUESTIONS`
pub fn qa(a: &crate::cli::QaArgs) -> crate::output::Outcome {
    let (config, env) = (a.solver.config(), Env(&a.llm));
    let q = cmd::qa(&a.spec, &a.questions, &a.qa.options(), &config, &env).map_err(failed)?;
    Ok(Box::new(printer::qa::qa_report(
        &q.spec,
        &a.questions,
        &q.questions,
        q.report,
        q.llm,
        q.seconds,
    )))
}

/// `vera roundtrip SPEC`
pub fn roundtrip(a: &crate::cli::RoundtripArgs) -> crate::output::Outcome {
    let (config, env) = (a.solver.config(), Env(&a.llm));
    let r = cmd::roundtrip(&a.spec, a.limit, !a.no_repair, &config, &env).map_err(failed)?;
    Ok(Box::new(printer::qa::roundtrip_report(
        &r.spec, r.report, r.llm,
    )))
}

/// `vera faults SPEC [--mutants FILE]`
pub fn faults(a: &crate::cli::FaultsArgs) -> crate::output::Outcome {
    let (config, env) = (a.solver.config(), Env(&a.llm));
    let mutants = a.mutants.as_deref();
    let f = cmd::faults(&a.spec, mutants, a.limit, &config, &env).map_err(failed)?;
    Ok(Box::new(printer::qa::faults_report(
        &f.spec, f.report, f.llm,
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
    let e = &a.eval;
    let c = cmd::Eval {
        spec: a.spec.clone(),
        questions: e.questions.clone(),
        experiments: e.experiments.clone(),
        mutants: e.mutants.clone(),
        only: cmd::ids(e.only.as_deref()),
        limit_requirements: e.limit_requirements,
        samples: e.samples,
        clarify_rounds: e.clarify_rounds,
        out: e.out.clone(),
        qa: e.qa.options(),
        jobs: a.solver.jobs(),
        force: crate::files::force(),
    };
    let tables = printer::tables::eval;
    let r = cmd::eval(&c, &a.solver.config(), &Env(&a.llm), tables).map_err(failed)?;
    eprintln!("wrote {} and {}", r.json.display(), r.md.display());
    // The evaluation measures; its figures are the result, not pass/fail findings.
    Ok(Box::new(Rendered::new(
        "vera.eval.v1",
        Status::Ok,
        r.tables,
        r.report,
    )))
}

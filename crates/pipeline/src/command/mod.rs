//! The commands `vera formalize`, `vera ambiguity`, `vera clarify`, `vera consistency
//! --nl-text`, `vera draft-variables`, `vera qa`, `vera roundtrip`, `vera faults` and
//! `vera eval` as library functions: which files are read and written, the defaults of
//! their paths, the order in which outputs are refused, the model asked and the loop
//! run, with the result as plain data for `printer::pipe` and `printer::qa`. Specs and
//! the model's client come from the caller's [`Env`] (how a spec's problems are shown,
//! and how a client shows progress, are the caller's); every other file is read and
//! written through `safefile`. Nothing here prints: what the binary says on standard
//! error besides the report comes back as `notes`.

mod formalize;
mod qa;
mod voting;

pub use formalize::{
    ambiguity, clarify, formalize, Ambiguity, Clarified, Clarify, Formalize, Formalized, Screened,
};
pub use qa::{eval, faults, qa, roundtrip, Answered, Eval, Evaluated, QaLoop, Ran};
pub use voting::{
    consistency_nl_text, draft_variables, DraftVariables, Drafted, NlChecked, NlText,
};

use std::path::Path;
use std::sync::Arc;

/// How a command wants its spec loaded (the rules are `reqs`'s: which requirements a
/// command reads).
pub use reqs::input::Load;

/// What a command needs from its caller: its specs, loaded (with their diagnostics shown
/// as the caller shows them), and the language model's client (with the caller's
/// progress display and interrupt handling). Each is asked for at the point where the
/// command needs it, so what is refused before the model is asked stays so.
pub trait Env {
    /// What the caller's part can fail with.
    type Error;
    /// The spec at `path` (a CSV of requirements over `schema` when one is given).
    fn spec(
        &self,
        path: &Path,
        schema: Option<&Path>,
        load: Load,
    ) -> Result<reqs::Spec, Self::Error>;
    /// The language model's client.
    fn client(&self) -> Result<llm::Client, Self::Error>;
    /// The embeddings client of the configuration, if one is set.
    fn embeddings(&self) -> Result<Option<Arc<dyn llm::Embeddings>>, Self::Error>;
}

/// Why a command cannot give its result. `E` is the error of the caller's [`Env`].
/// Each wrapped error is shown as it is (its text and its causes).
#[derive(Debug, thiserror::Error)]
pub enum Error<E> {
    /// The caller's part failed (its error, as it is).
    #[error("{0}")]
    Caller(E),
    /// A file that cannot be read, or an output that is refused or cannot be written.
    #[error(transparent)]
    File(#[from] safefile::SafeFileError),
    /// A loop of this crate failed.
    #[error(transparent)]
    Pipeline(#[from] crate::formalize::PipelineError),
    /// A result that cannot be written as JSON.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// A bounds file that cannot be used.
    #[error(transparent)]
    Bounds(bl::command::Error),
    /// An assumption that cannot be read.
    #[error(transparent)]
    Assumption(bl::check::CheckError),
    /// The variable specification next to a rule cannot be read.
    #[error("cannot read the variable specification {path} (give --variables)")]
    Variables {
        /// The file.
        path: String,
        /// Why.
        #[source]
        source: safefile::SafeFileError,
    },
    /// The example's variable specification cannot be used.
    #[error("{path} (the example specification)")]
    ExampleSpec {
        /// The file.
        path: String,
        /// Why.
        #[source]
        source: crate::formalize::PipelineError,
    },
    /// The model gave no usable draft (the accounting of the requests made).
    #[error("{error}")]
    Draft {
        /// Why.
        error: crate::formalize::PipelineError,
        /// The model's accounting.
        llm: Box<llm::Accounting>,
    },
    /// A questions file that cannot be used: every problem, located.
    #[error("{0}")]
    Questions(logic::Diagnostics),
    /// A list of feedback modes with one that is not known.
    #[error(transparent)]
    Mode(#[from] crate::qa::UnknownMode),
    /// A list of experiments with one that is not known.
    #[error(transparent)]
    Experiment(#[from] crate::eval::UnknownExperiment),
    /// The question-answering loop failed.
    #[error(transparent)]
    Qa(#[from] crate::qa::QaError),
    /// The round trip failed.
    #[error(transparent)]
    RoundTrip(#[from] crate::roundtrip::RoundTripError),
    /// Faulty texts that cannot be read, written or checked.
    #[error(transparent)]
    Faults(#[from] crate::faults::FaultError),
    /// The evaluation failed.
    #[error(transparent)]
    Eval(#[from] crate::eval::EvalError),
    /// `--only` names no formalized requirement of the spec (the ids, comma-separated).
    #[error("--only names no formalized requirement of the spec: {0}")]
    UnknownIds(String),
    /// An output folder that cannot be created.
    #[error("cannot create {path}")]
    CreateDir {
        /// The folder.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// An option refused, or a combination of options refused.
    #[error("{0}")]
    Refused(&'static str),
}

/// A comma-separated list of requirement ids (`--only`), as the loops take it.
pub fn ids(only: Option<&str>) -> Option<Vec<String>> {
    only.map(crate::select::parse_ids)
}

/// The default output next to `input` (see [`crate::formalize::default_output`]).
fn default_out(input: &Path, suffix: &str) -> std::path::PathBuf {
    crate::formalize::default_output(input, "spec", suffix)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// Specs parsed from a fixed text; a model that must not be asked.
    struct NoModel;

    impl Env for NoModel {
        type Error = String;
        fn spec(&self, _: &Path, _: Option<&Path>, _: Load) -> Result<reqs::Spec, String> {
            let text = "[[variables]]\nname = \"x\"\nsort = \"Bool\"\n\n[[requirements]]\nid = \"R1\"\ntext = \"x holds\"\nformula = \"x\"\n";
            reqs::parse_spec(logic::SourceFile::new("t.toml", text)).map_err(|d| d.to_string())
        }
        fn client(&self) -> Result<llm::Client, String> {
            Err("the model was asked".into())
        }
        fn embeddings(&self) -> Result<Option<Arc<dyn llm::Embeddings>>, String> {
            Err("the embeddings were asked".into())
        }
    }

    #[test]
    fn an_existing_output_is_refused_before_the_model_is_asked() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.toml");
        std::fs::write(&out, "taken").unwrap(); // scratch: a file in our own temp folder
        let c = Formalize {
            input: dir.path().join("spec.toml"),
            schema: None,
            out: Some(out),
            options: Default::default(),
            force: false,
        };
        let config = solver::SolverConfig::new(solver::SolverKind::Z3);
        let e = formalize(&c, &config, &NoModel).err().expect("refused");
        assert!(matches!(e, Error::File(_)), "{e}");
    }

    #[test]
    fn refused_options_are_refused_before_the_model_is_asked() {
        let dir = tempfile::tempdir().unwrap();
        let rule = dir.path().join("rule.txt");
        std::fs::write(&rule, "a rule").unwrap(); // scratch: a file in our own temp folder
        std::fs::write(dir.path().join("model.json"), r#"{"variables": []}"#).unwrap(); // scratch: ours
        let config = solver::SolverConfig::new(solver::SolverKind::Z3);
        let c = NlText {
            rule,
            variables: None,
            implementation: None,
            impl_output: None,
            nl_output: None,
            bounds: None,
            assume: Vec::new(),
            translations: 3,
            theta: 0.5,
            retries: 0,
        };
        let e = consistency_nl_text(&c, &config, &NoModel)
            .err()
            .expect("refused");
        assert_eq!(e.to_string(), "--nl-text needs --impl PROGRAM.bl");
        let c = Eval {
            spec: PathBuf::from("spec.toml"),
            questions: None,
            experiments: "qa".into(),
            mutants: None,
            only: None,
            limit_requirements: None,
            samples: 1,
            clarify_rounds: 0,
            out: dir.path().join("eval"),
            qa: QaLoop {
                modes: "none".into(),
                max_repairs: 0,
                temperature: 0.0,
                limit_questions: None,
            },
            jobs: 1,
            force: false,
        };
        let e = eval(&c, &config, &NoModel, |_| String::new())
            .err()
            .expect("refused");
        assert_eq!(e.to_string(), "the qa experiment needs --questions FILE");
    }
}

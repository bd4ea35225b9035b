//! `vera equiv`, `vera formalize`, `vera ambiguity`, `vera clarify`, `vera consistency
//! --nl-text` and `vera draft-variables`: the arguments as `pipeline::command` takes
//! them (`equiv`: `reqs::equiv`), its notes and the model's accounting on standard
//! error, and its result handed to `printer::pipe`.

use pipeline::command::{self as cmd, Error, Load};
use pipeline::formalize::{FormalizeOptions, Mode};
use std::path::Path;

pub use crate::llmcmd::LlmArgs;

/// The binary's side of `pipeline::command`: specs loaded with their problems shown,
/// and the client of the command's model options.
pub(crate) struct Env<'a>(pub &'a LlmArgs);

impl pipeline::command::Env for Env<'_> {
    type Error = anyhow::Error;
    fn spec(&self, path: &Path, schema: Option<&Path>, load: Load) -> anyhow::Result<reqs::Spec> {
        match load {
            Load::Formulas | Load::Checkable => crate::audit::load_or_report(path, schema, load),
            Load::Timed | Load::Discrete(_) | Load::Formalize => {
                crate::audit::load(path, schema, load)
            }
        }
    }
    fn client(&self) -> anyhow::Result<llm::Client> {
        self.0.client()
    }
    fn embeddings(&self) -> anyhow::Result<Option<std::sync::Arc<dyn llm::Embeddings>>> {
        self.0.embeddings()
    }
}

/// An error of `pipeline::command`: a file's error as it is; a draft that failed shown
/// with the model's accounting.
pub(crate) fn failed(e: Error<anyhow::Error>) -> anyhow::Error {
    match e {
        Error::Caller(e) => e,
        Error::File(e) => e.into(),
        Error::Bounds(e) => crate::blcmd::failed(e),
        Error::Draft { error, llm } => {
            eprintln!("error: {error}");
            print_accounting(&llm);
            crate::output::Reported.into()
        }
        other => other.into(),
    }
}

/// Notes on standard error, one after the other.
fn print_notes(notes: &[String]) {
    for n in notes {
        eprintln!("{n}");
    }
}

/// The model's accounting on standard error.
fn print_accounting(llm: &llm::Accounting) {
    eprintln!("{}", printer::tables::accounting_line(llm));
}

/// `vera equiv SPEC TERM... | --candidates FILE`
pub fn equiv(a: &crate::cli::EquivArgs) -> crate::output::Outcome {
    use reqs::equiv::SetsError;
    let spec = crate::audit::load(&a.spec, a.csv.schema.as_deref(), Load::Formulas)?;
    let sets = reqs::equiv::candidate_sets(a.candidates.as_deref(), &a.terms);
    let partitioned = sets.and_then(|s| reqs::equiv::partition_sets(&spec, &s, &a.solver.config()));
    let (results, queries) = partitioned.map_err(|e| match e {
        SetsError::Formula(d) => {
            eprintln!("{d}");
            crate::output::Reported.into()
        }
        SetsError::Read(e) => anyhow::Error::new(e),
        other => anyhow::Error::new(other),
    })?;
    let file = a.spec.display().to_string();
    Ok(Box::new(printer::pipe::equiv_report(
        file, results, queries,
    )))
}

/// `vera formalize SPEC_OR_CSV [--schema S] [-o OUT]`
pub fn formalize(a: &crate::cli::FormalizeArgs) -> crate::output::Outcome {
    let mut options = FormalizeOptions {
        mode: if a.batch {
            Mode::Batch
        } else {
            Mode::PerRequirement
        },
        max_retries: a.retries,
        only: cmd::ids(a.only.as_deref()),
        reformalize: cmd::ids(a.reformalize.as_deref()).unwrap_or_default(),
        examples: a.examples,
        max_tokens: Some(a.max_tokens),
        decompose: !a.no_decompose,
        ..Default::default()
    };
    a.form.apply(&mut options);
    let c = cmd::Formalize {
        input: a.input.clone(),
        schema: a.csv.schema.clone(),
        out: a.out.clone(),
        options,
        force: crate::files::force(),
    };
    let f = cmd::formalize(&c, &a.solver.config(), &Env(&a.llm)).map_err(failed)?;
    print_notes(&f.notes);
    print_accounting(&f.llm);
    let run = printer::pipe::FormalizeRun {
        smtlib: a.form.smtlib,
        agreement: a.form.agreement,
        batch: a.batch,
        files: printer::pipe::files(&[("input", &a.input), ("output", &f.out)]),
        out: &f.out,
        llm: f.llm.clone(),
        seconds: f.seconds,
    };
    Ok(Box::new(printer::pipe::formalize_report(
        &f.spec, f.report, &run,
    )))
}

/// `vera ambiguity SPEC`: formulas, or timed patterns grouped by trace equivalence.
pub fn ambiguity(a: &crate::cli::AmbiguityArgs) -> crate::output::Outcome {
    let c = cmd::Ambiguity {
        spec: a.spec.clone(),
        schema: a.csv.schema.clone(),
        options: pipeline::ambiguity::AmbiguityOptions {
            samples: a.samples,
            only: cmd::ids(a.only.as_deref()),
            max_tokens: Some(a.max_tokens),
            ..Default::default()
        },
    };
    let s = cmd::ambiguity(&c, &a.solver.config(), &Env(&a.llm)).map_err(failed)?;
    print_accounting(&s.llm);
    Ok(printer::pipe::ambiguity_any_report(
        &a.spec, s.report, s.llm, s.seconds,
    ))
}

/// `vera clarify SPEC [-o PROPOSALS] | --apply PROPOSALS [--out SPEC]`
pub fn clarify(a: &crate::cli::ClarifyArgs) -> crate::output::Outcome {
    let c = cmd::Clarify {
        spec: a.spec.clone(),
        schema: a.csv.schema.clone(),
        rounds: a.rounds,
        controlled: a.controlled,
        samples: a.samples,
        max_tokens: a.max_tokens,
        only: cmd::ids(a.only.as_deref()),
        proposals: a.proposals.clone(),
        apply: a.apply.clone(),
        out: a.out.clone(),
        force: crate::files::force(),
    };
    let clarified = cmd::clarify(&c, &a.solver.config(), &Env(&a.llm)).map_err(failed)?;
    let (report, stderr) = printer::pipe::clarified(&a.spec, clarified);
    print_notes(&stderr);
    Ok(report)
}

/// `vera consistency --nl-text RULE.txt --variables model.json --impl P.bl [--bounds B]`
pub fn consistency_nl_text(
    a: &crate::cli::ConsistencyArgs,
    rule_path: &Path,
) -> crate::output::Outcome {
    let c = cmd::NlText {
        rule: rule_path.to_path_buf(),
        variables: a.variables.clone(),
        implementation: a.implementation.clone(),
        impl_output: a.impl_output.clone(),
        nl_output: a.nl_output.clone(),
        bounds: a.bounds.clone(),
        assume: a.assume.clone(),
        translations: a.translations,
        theta: a.theta,
        retries: a.retries,
    };
    let n = cmd::consistency_nl_text(&c, &a.solver.config(), &Env(&a.llm)).map_err(failed)?;
    print_accounting(&n.llm);
    let files = [("rule", rule_path), ("implementation", &n.implementation)];
    Ok(Box::new(printer::pipe::consistency_nl_report(
        printer::pipe::files(&files),
        n.checked,
        n.llm,
        n.seconds,
    )))
}

/// `vera draft-variables RULE.txt --example-rule EX.txt [--example-spec model.json] [-o OUT]`
pub fn draft_variables(a: &crate::cli::DraftVariablesArgs) -> crate::output::Outcome {
    let c = cmd::DraftVariables {
        rule: a.rule.clone(),
        example_rule: a.example_rule.clone(),
        example_spec: a.example_spec.clone(),
        out: a.out.clone(),
        retries: a.retries,
        force: crate::files::force(),
    };
    let d = cmd::draft_variables(&c, &Env(&a.llm)).map_err(failed)?;
    print_notes(&printer::pipe::draft_notes(&d.draft, a.out.as_deref()));
    print_accounting(&d.llm);
    // The terminal output is the draft itself, unless it went to a file.
    let text = if a.out.is_none() {
        d.json
    } else {
        String::new()
    };
    let files = [("rule", a.rule.as_path()), ("example", &d.example_spec)];
    Ok(Box::new(printer::pipe::draft_report(
        printer::pipe::files(&files),
        d.draft,
        text,
        d.llm,
        d.seconds,
    )))
}

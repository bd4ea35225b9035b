//! `vera consistency --nl-text` and `vera draft-variables`: SIRNA's translation voting
//! from a rule text, and a variable specification drafted from an example, with the
//! files they read and their defaults.

use super::{Env, Error};
use crate::voting::{Draft, TextCheck, VariableSpec};
use solver::SolverConfig;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What `vera consistency --nl-text` checks.
#[derive(Debug, Clone)]
pub struct NlText {
    /// The rule text.
    pub rule: PathBuf,
    /// The variable specification (default: model.json next to the rule).
    pub variables: Option<PathBuf>,
    /// The implementation (BL); required.
    pub implementation: Option<PathBuf>,
    /// The implementation's output.
    pub impl_output: Option<String>,
    /// The rule's output (default: the last variable of the specification).
    pub nl_output: Option<String>,
    /// Mappings and input ranges (SIRNA's bounds JSON).
    pub bounds: Option<PathBuf>,
    /// `NAME=TERM` assumptions.
    pub assume: Vec<String>,
    /// Translations to vote on.
    pub translations: u32,
    /// The confidence threshold θ.
    pub theta: f64,
    /// Repair turns for a translation that does not parse.
    pub retries: usize,
}

/// What `vera consistency --nl-text` gives.
pub struct NlChecked {
    /// The implementation checked.
    pub implementation: PathBuf,
    /// The vote and the check.
    pub checked: TextCheck,
    /// The model's accounting.
    pub llm: llm::Accounting,
    /// Seconds it took, reading included.
    pub seconds: f64,
}

/// `vera consistency --nl-text RULE.txt --variables model.json --impl P.bl [--bounds B]`
pub fn consistency_nl_text<V: Env>(
    c: &NlText,
    config: &SolverConfig,
    env: &V,
) -> Result<NlChecked, Error<V::Error>> {
    let start = Instant::now();
    let rule = safefile::read_text(&c.rule)?;
    let vars_path = (c.variables.clone()).unwrap_or_else(|| c.rule.with_file_name("model.json"));
    let vars_text = safefile::read_text(&vars_path).map_err(|source| Error::Variables {
        path: vars_path.display().to_string(),
        source,
    })?;
    let vars = VariableSpec::from_json(&vars_text)?;
    let Some(imp) = &c.implementation else {
        return Err(Error::Refused("--nl-text needs --impl PROGRAM.bl"));
    };
    let imp_text = safefile::read_text(imp)?;
    let imp_file = logic::SourceFile::new(imp.display().to_string(), imp_text);
    let imp_side = bl::check::SideSource::implementation(imp, imp_file);
    let mut input = bl::check::CheckInput::new(
        bl::check::SideSource::Smt(logic::SourceFile::new("nl", "")),
        imp_side,
    );
    input.bl_output = c.impl_output.clone();
    let bounds = c.bounds.as_deref().map(bl::command::read_bounds);
    input.bounds = bounds.transpose().map_err(Error::Bounds)?;
    input.assumptions = (c.assume.iter())
        .map(|x| bl::check::Assumption::parse_arg(x))
        .collect::<Result<Vec<_>, _>>()
        .map_err(Error::Assumption)?;
    // The output: --nl-output, else the last variable of the specification (SIRNA's
    // specifications list the output last, e.g. FinalTaxes).
    let output = (c.nl_output.clone()).or_else(|| vars.variables.last().map(|v| v.name.clone()));
    input.nl_output = c.nl_output.clone();
    let client = env.client().map_err(Error::Caller)?;
    let options = crate::voting::VotingOptions {
        translations: c.translations,
        theta: c.theta,
        output,
        repairs: c.retries,
        ..Default::default()
    };
    let name = c.rule.display().to_string();
    let checked =
        crate::voting::check_text(&rule, &name, &vars, &input, &client, config, &options)?;
    Ok(NlChecked {
        implementation: imp.clone(),
        checked,
        llm: client.accounting(),
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// What `vera draft-variables` drafts from.
#[derive(Debug, Clone)]
pub struct DraftVariables {
    /// The new rule text.
    pub rule: PathBuf,
    /// An example rule text of the same domain.
    pub example_rule: PathBuf,
    /// The example's variable specification (default: model.json next to it).
    pub example_spec: Option<PathBuf>,
    /// Where to write the draft (none: the draft is the command's output).
    pub out: Option<PathBuf>,
    /// Repair turns after the first answer.
    pub retries: usize,
    /// An existing output may be replaced (never an input).
    pub force: bool,
}

/// What `vera draft-variables` gives.
pub struct Drafted {
    /// The example's variable specification read.
    pub example_spec: PathBuf,
    /// The draft.
    pub draft: Draft,
    /// The draft as JSON (written to the output when one is given).
    pub json: String,
    /// The model's accounting.
    pub llm: llm::Accounting,
    /// Seconds it took, reading included.
    pub seconds: f64,
}

/// `vera draft-variables RULE.txt --example-rule EX.txt [--example-spec model.json] [-o OUT]`:
/// a model that gives no usable draft is [`Error::Draft`], with the accounting.
pub fn draft_variables<V: Env>(c: &DraftVariables, env: &V) -> Result<Drafted, Error<V::Error>> {
    let start = Instant::now();
    let read = |p: &Path| safefile::read_text(p);
    let rule = read(&c.rule)?;
    let example_rule = read(&c.example_rule)?;
    let spec_path =
        (c.example_spec.clone()).unwrap_or_else(|| c.example_rule.with_file_name("model.json"));
    let example =
        VariableSpec::from_json(&read(&spec_path)?).map_err(|source| Error::ExampleSpec {
            path: spec_path.display().to_string(),
            source,
        })?;
    let client = env.client().map_err(Error::Caller)?;
    let drafted =
        crate::voting::draft_variables(&rule, &example_rule, &example, &client, c.retries);
    let draft = drafted.map_err(|error| Error::Draft {
        error,
        llm: Box::new(client.accounting()),
    })?;
    let json = serde_json::to_string_pretty(&draft.spec)? + "\n";
    if let Some(out) = &c.out {
        let inputs = [
            c.rule.as_path(),
            c.example_rule.as_path(),
            spec_path.as_path(),
        ];
        crate::formalize::write_new(out, &json, &inputs, c.force)?;
    }
    Ok(Drafted {
        example_spec: spec_path,
        draft,
        json,
        llm: client.accounting(),
        seconds: start.elapsed().as_secs_f64(),
    })
}

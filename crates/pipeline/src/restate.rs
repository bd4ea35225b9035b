//! Restating requirements in controlled English (`vera clarify --controlled`): for each
//! requirement the controlled-English reader ([`crate::controlled`]) does not read, the
//! model proposes one sentence in the reader's style; vera keeps a proposal only when
//! the reader parses it into a formula the screening accepts, and shows that formula
//! and its read-back. A proposal the reader refuses goes back to the model with the
//! reader's reason, up to `attempts` answers.
//!
//! A rewrite may change what the requirement means (the reader checks the sentence, not
//! that it says what the original said), so nothing is accepted by default: a person
//! compares the original, the rewrite and the read-back, sets `"accepted": true`, and
//! `vera clarify SPEC --apply FILE` writes the accepted ones into a new spec. Where the
//! spec already has a formula for the requirement, the rewrite's formula is compared
//! with it by the solver and the report says whether they are equivalent.

use crate::clarify::{clean_text, meta_answer, same_words};
use crate::formalize::{
    answer_problem, provider_failure, render_spec, schema_info, validate_screened, OutRequirement,
    PipelineError, ProviderFailure, ValidateError,
};
use llm::{Client, Request, Template};
use reqs::equiv::{Checker, Universe};
use reqs::Spec;
use serde::{Deserialize, Serialize};
use solver::SolverConfig;
use std::fmt::Write as _;

/// The schema tag of a restatements file.
pub const RESTATE_TAG: &str = "vera.restate.v1";

/// Options of a restatement run.
#[derive(Debug, Clone)]
pub struct RestateOptions {
    /// Answers asked per requirement at most (the first, then one per refusal; default 3).
    pub attempts: usize,
    /// Only these requirement ids (default: all).
    pub only: Option<Vec<String>>,
    /// Temperature of the first answer (default 0; a repeated answer is asked again at
    /// a higher one).
    pub temperature: f64,
    /// Token limit per answer (default 200: one sentence).
    pub max_tokens: u32,
    /// Requirements of the spec the reader parses, shown as examples (default 3).
    pub examples: usize,
}

impl Default for RestateOptions {
    fn default() -> Self {
        RestateOptions {
            attempts: 3,
            only: None,
            temperature: 0.0,
            max_tokens: 200,
            examples: 3,
        }
    }
}

/// What became of one requirement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RestateStatus {
    /// The model's sentence parses into a formula the screening accepts.
    Restated,
    /// No answer parsed within the attempts (each refusal is in `attempts`).
    NotRestated,
    /// The text is controlled English already: nothing was asked.
    Controlled,
    /// The provider failed before this requirement was asked (see the report's `halted`).
    NotAsked,
}

/// One answer of the model and why it was not taken.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RestateAttempt {
    /// The sentence as answered (cleaned: one paragraph, quotes dropped).
    pub text: String,
    /// Why it was not taken (absent for the one taken).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
}

/// One requirement's restatement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Restatement {
    /// The requirement id.
    pub id: String,
    /// The text in the spec.
    pub original: String,
    /// What became of it.
    pub status: RestateStatus,
    /// The proposed sentence (with `restated`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The formula the reader makes of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub formula: Option<String>,
    /// That formula read back in English, from the schema alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reads: Option<String>,
    /// Whether that formula is equivalent to the one the spec has for the requirement
    /// (absent when the spec has none, or the solver did not decide).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub same_as_spec: Option<bool>,
    /// Whether `vera clarify --apply` takes it (never by default: a person compares the
    /// original, the rewrite and the read-back, and edits the file).
    pub accepted: bool,
    /// Every answer asked for, in order.
    pub attempts: Vec<RestateAttempt>,
}

/// The restatements of a run, as written to the restatements file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RestateFile {
    /// [`RESTATE_TAG`].
    pub schema: String,
    /// The spec file they are about.
    pub file: String,
    /// One per requirement looked at, in the spec's order.
    pub restatements: Vec<Restatement>,
    /// Why the run stopped asking the model early (a provider failure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub halted: Option<String>,
}

impl RestateFile {
    /// Counts by status: restated, not restated, controlled already, not asked.
    pub fn counts(&self) -> [usize; 4] {
        let n = |s: RestateStatus| self.restatements.iter().filter(|r| r.status == s).count();
        [
            n(RestateStatus::Restated),
            n(RestateStatus::NotRestated),
            n(RestateStatus::Controlled),
            n(RestateStatus::NotAsked),
        ]
    }

    /// The file as written (pretty JSON).
    pub fn to_json(&self) -> serde_json::Result<String> {
        serde_json::to_string_pretty(self)
    }
}

/// The prompt template (`prompts/restate.txt`).
pub fn template() -> Template {
    Template::parse("restate", include_str!("../../../prompts/restate.txt"))
        .expect("built-in template")
}

/// Sentences of `spec` the reader parses (at most `n`; `readable[i]`: whether it parses
/// requirement `i`), as prompt examples: the spec's own words in the style asked for.
/// The same for every requirement asked about, which the reader does not parse.
fn examples(spec: &Spec, readable: &[bool], n: usize) -> String {
    let mut out = String::new();
    let parsed = spec
        .requirements
        .iter()
        .zip(readable)
        .filter(|(_, ok)| **ok)
        .take(n);
    for (k, (r, _)) in parsed.enumerate() {
        if k == 0 {
            out.push_str("Sentences of this document the reader accepts:\n");
        }
        let _ = writeln!(out, "- {}", r.text);
    }
    out
}

/// What every prompt of a run shares: the schema and the examples, rendered once.
struct Shared {
    schema: String,
    examples: String,
}

impl Shared {
    /// The first prompt for a requirement with text `text`.
    fn prompt(&self, text: &str) -> Result<String, PipelineError> {
        Ok(template().render(&[
            ("schema", &self.schema),
            ("examples", &self.examples),
            ("requirement", text),
        ])?)
    }
}

/// What the reader and the screening make of one answer.
enum Reading {
    /// Taken: the formula and its findings-free term.
    Taken(logic::Term),
    /// Refused, with the reason sent back.
    Refused(String),
}

fn read_answer(
    spec: &Spec,
    checker: &mut Checker,
    original: &str,
    answer: &str,
) -> Result<Reading, PipelineError> {
    if same_words(answer, original) {
        return Ok(Reading::Refused(
            "it repeats the requirement, which the reader does not parse".into(),
        ));
    }
    if let Some(why) = meta_answer(answer, original) {
        return Ok(Reading::Refused(why));
    }
    let form = match crate::controlled::parse(spec, answer) {
        Ok(f) => f,
        Err(e) => {
            let part = if e.part.is_empty() {
                String::new()
            } else {
                format!(" (at \"{}\")", e.part)
            };
            return Ok(Reading::Refused(format!(
                "the reader does not parse it{part}: {}{}",
                e.reason,
                described(spec, &e.reason)
            )));
        }
    };
    // Screened against the original text: a rewrite that names none of its variables
    // or says nothing of an output is refused as a formula of the original would be.
    match validate_screened(spec, checker, &form.smtlib(spec), original) {
        Ok((t, _)) => Ok(Reading::Taken(t)),
        Err(ValidateError::Invalid(e)) => Ok(Reading::Refused(format!(
            "it parses, but its formula is refused: {e}"
        ))),
        Err(ValidateError::Solver(e)) => Err(e.into()),
    }
}

/// How the variables a refusal names are described, so that the next answer can say
/// it in the reader's words ("" when it names none or they have no description).
fn described(spec: &Spec, reason: &str) -> String {
    let said: Vec<String> = spec
        .variables
        .iter()
        .filter(|v| reason.contains(&format!("`{}`", v.name)))
        .filter_map(|v| {
            let d = v.description.as_deref()?;
            Some(format!(
                "`{}` is stated as \"{d}\" (or its negation)",
                v.name
            ))
        })
        .collect();
    if said.is_empty() {
        String::new()
    } else {
        format!("; {}", said.join("; "))
    }
}

/// Proposes a controlled-English sentence for every requirement of `spec` (or those
/// of `options.only`) that the reader does not parse. Never fails on the model's
/// answers; a provider failure stops the asking and keeps what was found
/// (`halted`), the rest `not-asked`.
pub fn restate(
    spec: &Spec,
    file: &str,
    client: &Client,
    solver: &SolverConfig,
    options: &RestateOptions,
) -> Result<RestateFile, PipelineError> {
    for id in options.only.iter().flatten() {
        if !spec.requirements.iter().any(|r| &r.id == id) {
            return Err(PipelineError::Input(format!("no requirement `{id}`")));
        }
    }
    if spec.time.is_some() {
        return Err(PipelineError::Input(
            "the spec has a [time] table: controlled English is read as a state formula, so timed requirements are not restated".into(),
        ));
    }
    let universe = Universe::of_spec(spec);
    let mut checker = Checker::new(&universe, solver)?;
    let mut out = RestateFile {
        schema: RESTATE_TAG.into(),
        file: file.into(),
        restatements: Vec::new(),
        halted: None,
    };
    let readable: Vec<bool> = (spec.requirements.iter())
        .map(|r| crate::controlled::parse(spec, &r.text).is_ok())
        .collect();
    let shared = Shared {
        schema: schema_info(spec).render(),
        examples: examples(spec, &readable, options.examples),
    };
    let wanted = (spec.requirements.iter().zip(&readable))
        .filter(|(r, _)| options.only.as_ref().is_none_or(|o| o.contains(&r.id)));
    for (r, readable) in wanted {
        let mut item = Restatement {
            id: r.id.clone(),
            original: r.text.clone(),
            status: RestateStatus::NotAsked,
            text: None,
            formula: None,
            reads: None,
            same_as_spec: None,
            accepted: false,
            attempts: Vec::new(),
        };
        if *readable {
            item.status = RestateStatus::Controlled;
        } else if out.halted.is_none() {
            let first = shared.prompt(&r.text)?;
            out.halted = ask(spec, &mut checker, client, options, first, r, &mut item)?;
        }
        out.restatements.push(item);
    }
    Ok(out)
}

/// Asks for one requirement's restatement until one is taken or the attempts are used;
/// `Some(reason)` when the provider failed and nothing more should be asked.
fn ask(
    spec: &Spec,
    checker: &mut Checker,
    client: &Client,
    options: &RestateOptions,
    first: String,
    r: &reqs::spec::Requirement,
    item: &mut Restatement,
) -> Result<Option<String>, PipelineError> {
    let mut req = Request::new()
        .user(first)
        .temperature(options.temperature)
        .max_tokens(options.max_tokens);
    item.status = RestateStatus::NotRestated;
    for _ in 0..options.attempts.max(1) {
        let answer = match client.complete("restate", &req) {
            Ok(c) => c.text().to_string(),
            Err(e) if e.is_answer_problem() => {
                // Cut off, runaway, filtered, ...: what was shown and why, as the
                // formalization loop reports it.
                let (shown, why) = answer_problem(&e).unwrap_or_default();
                item.attempts.push(RestateAttempt {
                    text: shown.clone(),
                    refused: Some(why.clone()),
                });
                req = req.assistant(shown).user(format!(
                    "That answer could not be used: {why}. Answer with the rewritten sentence only."
                ));
                continue;
            }
            Err(e) => {
                let (why, halt) = match provider_failure(&e) {
                    ProviderFailure::ThisRequest(w) => (w, None),
                    ProviderFailure::Everything(w) => (w.clone(), Some(w)),
                };
                item.attempts.push(RestateAttempt {
                    text: String::new(),
                    refused: Some(why),
                });
                return Ok(halt);
            }
        };
        let text = clean_text(&answer).unwrap_or_default();
        let refused = match read_answer(spec, checker, &r.text, &text)? {
            Reading::Taken(t) => {
                item.status = RestateStatus::Restated;
                item.formula = Some(logic::print::term(&t));
                item.reads = Some(crate::readback::sentence(spec, &t));
                item.same_as_spec = match &r.formula {
                    Some(given) => checker.equivalent(given, &t)?,
                    None => None,
                };
                item.text = Some(text.clone());
                item.attempts.push(RestateAttempt {
                    text,
                    refused: None,
                });
                return Ok(None);
            }
            Reading::Refused(why) => why,
        };
        // A repeated refused answer is asked again fresh, warmer; else the refusal goes
        // back in the conversation.
        let repeated = item.attempts.iter().any(|a| a.text == text);
        item.attempts.push(RestateAttempt {
            text: text.clone(),
            refused: Some(refused.clone()),
        });
        req = if repeated {
            req.temperature(crate::formalize::RESAMPLE_TEMPERATURE)
        } else {
            req.assistant(text).user(format!(
                "The reader refused that sentence: {refused}. Write the requirement again in the accepted shapes, naming only the listed variables. Answer with the sentence only."
            ))
        };
    }
    Ok(None)
}

/// Why a restatements file cannot be applied.
#[derive(Debug, thiserror::Error)]
pub enum RestateFileError {
    /// Not JSON of the file's shape.
    #[error("{file}")]
    Json {
        /// The restatements file.
        file: String,
        /// What the JSON reader says.
        #[source]
        source: serde_json::Error,
    },
    /// An accepted entry without a sentence to apply.
    #[error("{file}: {id} is accepted but has no sentence (`text`) to apply; nothing written")]
    NothingToApply {
        /// The file.
        file: String,
        /// The requirement.
        id: String,
    },
    /// An accepted sentence the reader does not parse (edited by hand since, or written
    /// for a requirement that was not restated).
    #[error(
        "{file}: {id}: the reader does not parse the accepted sentence: {reason}; nothing written"
    )]
    NotReadable {
        /// The file.
        file: String,
        /// The requirement.
        id: String,
        /// The reader's refusal.
        reason: String,
    },
    /// Accepted restatements that no longer fit the spec; nothing is applied.
    #[error(
        "{file}: {} accepted restatement(s) do not fit {spec} as it is now; nothing written (run vera clarify --controlled again, or set \"accepted\": false on them):\n{}",
        .stale.len(),
        .stale.iter().map(|n| format!("  {n}")).collect::<Vec<_>>().join("\n")
    )]
    Stale {
        /// The file.
        file: String,
        /// The spec file.
        spec: String,
        /// Why each does not fit.
        stale: Vec<crate::clarify::NotApplicable>,
    },
}

impl RestateFile {
    /// Reads a restatements file (its `text`) to apply to `spec`. Each accepted
    /// sentence is read again by the reader, and that formula is the one applied: a
    /// sentence a person edited in the file (or wrote for a requirement the model did
    /// not restate) counts as written, and a formula edited by hand does not. Refused
    /// when an accepted entry has no sentence, the reader does not parse it, or its
    /// requirement no longer has the text the entry was made for.
    pub fn read_for(
        file: &str,
        text: &str,
        spec: &Spec,
        spec_file: &str,
    ) -> Result<RestateFile, RestateFileError> {
        let mut f: RestateFile =
            serde_json::from_str(text).map_err(|source| RestateFileError::Json {
                file: file.into(),
                source,
            })?;
        for r in f.restatements.iter_mut().filter(|r| r.accepted) {
            let Some(sentence) = r.text.as_deref().filter(|t| !t.trim().is_empty()) else {
                return Err(RestateFileError::NothingToApply {
                    file: file.into(),
                    id: r.id.clone(),
                });
            };
            match crate::controlled::parse(spec, sentence) {
                Ok(form) => r.formula = Some(form.smtlib(spec)),
                Err(e) => {
                    return Err(RestateFileError::NotReadable {
                        file: file.into(),
                        id: r.id.clone(),
                        reason: e.reason,
                    })
                }
            }
        }
        let stale: Vec<_> = f
            .restatements
            .iter()
            .filter(|r| r.accepted)
            .filter_map(|r| crate::clarify::fits(spec, &r.id, &r.original).err())
            .collect();
        if !stale.is_empty() {
            return Err(RestateFileError::Stale {
                file: file.into(),
                spec: spec_file.into(),
                stale,
            });
        }
        Ok(f)
    }
}

/// A new spec with the accepted restatements applied: the sentence as the requirement's
/// text and the reader's formula, marked accepted by a person. Returns the text and
/// the ids changed.
pub fn apply(spec: &Spec, file: &RestateFile) -> (String, Vec<String>) {
    let mut changed = Vec::new();
    let reqs: Vec<OutRequirement> = spec
        .requirements
        .iter()
        .map(|r| {
            let mut out = OutRequirement::as_is(spec, r);
            let taken = file
                .restatements
                .iter()
                .find(|x| x.id == r.id && x.accepted);
            if let Some(x) = taken {
                changed.push(r.id.clone());
                out.text = x.text.clone().unwrap_or_default();
                out.formula = x.formula.clone();
                out.origin = reqs::spec::Origin::ModelAccepted;
                out.notes = vec![format!(
                    "restated in controlled English by vera, accepted by a person; was: {}",
                    x.original
                )];
            }
            out
        })
        .collect();
    let header = vec![format!(
        "{} with {} restated requirement(s) applied by vera.",
        spec.source.name(),
        changed.len()
    )];
    (render_spec(spec, &header, &reqs), changed)
}

/// Whether the JSON `text` is a restatements file (its `schema` is [`RESTATE_TAG`]);
/// anything else is left to the proposals reader.
pub fn is_restate_file(text: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|v| {
            v.get("schema")
                .and_then(|s| s.as_str())
                .map(|s| s == RESTATE_TAG)
        })
        .unwrap_or(false)
}

/// `vera clarify --apply` on a restatements file: the accepted ones applied to `spec`
/// (read from `spec_file`) and written to `out`, never over one of `inputs` and over an
/// existing file only with `force`. Returns the ids changed; nothing is written when
/// none is accepted.
pub fn apply_file(
    spec: &Spec,
    spec_file: &str,
    (path, text): (&std::path::Path, &str),
    out: &std::path::Path,
    inputs: &[&std::path::Path],
    force: bool,
) -> Result<Vec<String>, PipelineError> {
    let file = RestateFile::read_for(&path.display().to_string(), text, spec, spec_file)?;
    let (out_text, changed) = apply(spec, &file);
    if !changed.is_empty() {
        crate::formalize::write_new(out, &out_text, inputs, force)?;
    }
    Ok(changed)
}

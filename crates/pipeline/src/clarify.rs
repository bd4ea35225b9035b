//! The clarification loop (VeriMed Fig. 2, Experiment 4): for each requirement flagged
//! ambiguity-sensitive, the model rewrites the text minimally from the solver evidence
//! (class count, entropy, one representative per class, the separating witnesses) at
//! temperature 0.2; the new text is screened again, up to R rounds. The result is a
//! list of proposals for the user to accept; nothing is changed in the spec until
//! [`apply`] writes accepted proposals into a new spec file.
//!
//! The loop itself (`engine`) is the same for timed specs ([`crate::timed::clarify_timed`]):
//! what differs between formulas and patterns is a trait implemented once for each.

use crate::ambiguity::{
    summarize, AmbiguityOptions, AmbiguityReport, Formulas, Screening, Summary,
};
use crate::formalize::{render_spec, schema_info, OutRequirement, PipelineError};
use engine::{Readings, Rejection};
use llm::{Client, Template};
use reqs::Spec;
use serde::{Deserialize, Serialize};
use solver::SolverConfig;
use std::fmt::Write as _;

pub(crate) mod engine;

/// Options of the loop.
#[derive(Debug, Clone)]
pub struct ClarifyOptions {
    /// Rounds at most (default 5).
    pub rounds: usize,
    /// Temperature of the rewrite (default 0.2).
    pub temperature: f64,
    /// How texts are screened.
    pub screening: AmbiguityOptions,
    /// Valid formalizations a clarified text needs before its single class counts as
    /// convergence (default 2: at least one agreeing pair).
    pub min_valid: usize,
}

impl Default for ClarifyOptions {
    fn default() -> Self {
        ClarifyOptions {
            rounds: 5,
            temperature: 0.2,
            screening: AmbiguityOptions::default(),
            min_valid: 2,
        }
    }
}

/// One round of one requirement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Round {
    /// The text proposed in this round.
    pub text: String,
    /// Classes its screening found (for a rejected text: those of the text it was
    /// meant to replace, which stays current).
    pub classes: usize,
    /// Why the text was not taken: a meta-answer (it describes the rewrite instead of
    /// being one), an empty answer, or a rewrite too few formalizations of which are
    /// valid. A rejected text never counts as progress.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rejected: Option<String>,
}

/// A proposed rewrite.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Proposal {
    /// The requirement id.
    pub id: String,
    /// The original text.
    pub original: String,
    /// The last text proposed.
    pub clarified: String,
    /// Rounds used.
    pub rounds: usize,
    /// Classes of the original text.
    pub classes_before: usize,
    /// Classes of the clarified text.
    pub classes_after: usize,
    /// The clarified text screened to exactly one class.
    pub converged: bool,
    /// Whether `--apply` takes it (default: converged). Edit the file to change it.
    pub accepted: bool,
    /// The formula of the single class, when converged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub formula: Option<String>,
    /// For a timed requirement: the pattern of the single class, when converged, as the
    /// JSON object of its `[requirements.timed]` keys.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<serde_json::Value>,
    /// Every round.
    pub history: Vec<Round>,
    /// Why it did not converge, when it did not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Convergence statistics (Fig. 6).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stats {
    /// Before clarification.
    pub before: Summary,
    /// After: each clarified requirement's last screening replaces its first.
    pub after: Summary,
    /// Flagged count after each round (index 0: before any round).
    pub flagged_per_round: Vec<usize>,
}

/// The proposals and statistics.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClarifyReport {
    /// One per flagged requirement.
    pub proposals: Vec<Proposal>,
    /// Convergence statistics.
    pub stats: Stats,
    /// The first screening.
    pub screening: AmbiguityReport,
}

/// How a clarification run came out, judged by its proposals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Convergence {
    /// Every flagged requirement converged to one reading (or none was flagged).
    All,
    /// Some did, some did not.
    Some,
    /// None did: there is nothing to apply.
    None,
}

/// How the run that made `proposals` came out (plain and timed runs alike).
pub fn convergence(proposals: &[Proposal]) -> Convergence {
    let converged = proposals.iter().filter(|p| p.converged).count();
    if converged == proposals.len() {
        Convergence::All
    } else if converged > 0 {
        Convergence::Some
    } else {
        Convergence::None
    }
}

/// The clarification prompt template.
pub fn template() -> Template {
    Template::parse("clarify", include_str!("../../../prompts/clarify.txt"))
        .expect("built-in template")
}

/// The clarification prompt for one screening.
pub fn prompt(spec: &Spec, s: &Screening, samples: u32) -> Result<String, PipelineError> {
    let p = s.partition.as_ref();
    let mut readings = String::new();
    if let Some(p) = p {
        for c in &p.classes {
            reading_line(
                &mut readings,
                &c.label,
                (c.members.len(), p.metrics.candidates),
                &c.formula,
            );
        }
    }
    let mut witnesses = String::new();
    for e in &s.explanations {
        let _ = writeln!(witnesses, "- {e}");
    }
    let classes = s.classes().to_string();
    let entropy = format!("{:.2}", p.map_or(0.0, |p| p.metrics.entropy));
    let samples = samples.to_string();
    Ok(template().render(&[
        ("samples", &samples),
        ("classes", &classes),
        ("entropy", &entropy),
        ("schema", &schema_info(spec).render()),
        ("id", &s.id),
        ("requirement", &s.text),
        ("readings", &readings),
        ("witnesses", &witnesses),
    ])?)
}

/// One reading as a clarification prompt lists it: its label, how many of how many
/// samples read the text so, and the reading.
pub(crate) fn reading_line(o: &mut String, label: &str, (n, of): (usize, usize), reading: &str) {
    let _ = writeln!(o, "- reading {label} ({n} of {of} samples): {reading}");
}

/// The clarified text from an answer: trimmed, one paragraph, quotes dropped.
pub fn clean_text(answer: &str) -> Option<String> {
    let t = answer.trim();
    let t = t.split("\n\n").next().unwrap_or("").trim();
    let t = t.trim_matches(|c| c == '"' || c == '`').trim();
    let t = t.strip_prefix("Requirement:").unwrap_or(t).trim();
    let t: String = t.split_whitespace().collect::<Vec<_>>().join(" ");
    (!t.is_empty() && t.len() <= 2000).then_some(t)
}

/// Runs the loop: screens (unless a screening is given), then clarifies every flagged
/// requirement for up to `rounds` rounds.
pub fn clarify(
    spec: &Spec,
    client: &Client,
    solver: &SolverConfig,
    options: &ClarifyOptions,
    screening: Option<AmbiguityReport>,
) -> Result<ClarifyReport, PipelineError> {
    let (first, run) = engine::clarify::<Formulas>(spec, client, solver, options, screening)?;
    let after_items: Vec<&Screening> = first
        .requirements
        .iter()
        .map(|s| run.current.iter().find(|c| c.id == s.id).unwrap_or(s))
        .collect();
    let stats = Stats {
        before: first.summary,
        after: summarize(&after_items),
        flagged_per_round: run.flagged_per_round,
    };
    Ok(ClarifyReport {
        proposals: run.proposals,
        stats,
        screening: first,
    })
}

/// The plain loop: a rewrite that repeats the text or is a meta-answer is asked once
/// more in the same conversation before it is rejected.
impl Readings for Formulas {
    const LABEL: &'static str = "clarify";
    const FOLLOW_UP: Option<&'static str> = Some("clarify.unchanged");

    fn prompt(spec: &Spec, s: &Screening, samples: u32) -> Result<String, PipelineError> {
        prompt(spec, s, samples)
    }

    /// After the follow-up: an unchanged or meta rewrite ends the rounds; an empty
    /// answer does not.
    fn rejected(r: &Rejection) -> (Option<String>, bool) {
        match r {
            Rejection::Empty => (None, false),
            Rejection::Unchanged => (Some("the model returned the text unchanged".into()), true),
            Rejection::Meta(why) => (
                Some(format!(
                    "rejected as a meta-answer twice (the second time after being told so): {why}"
                )),
                true,
            ),
        }
    }

    fn unconverged(s: &Screening, options: &ClarifyOptions) -> Option<String> {
        if s.classes() == 1 && s.valid < options.min_valid {
            Some(format!(
                "only {} of {} formalizations of the clarified text are valid: too few to show one reading",
                s.valid,
                s.samples.len()
            ))
        } else if s.classes() == 0 {
            Some("no formalization of the clarified text is valid".into())
        } else {
            None
        }
    }

    fn keep_reading(p: &mut Proposal, s: &Screening) {
        p.formula = s
            .partition
            .as_ref()
            .filter(|_| p.converged)
            .map(|x| x.classes[0].formula.clone());
    }
}

/// Openings of an answer that talks about the task instead of doing it.
pub const META_OPENINGS: &[&str] = &[
    "to clarify",
    "to disambiguate",
    "to remove the ambiguity",
    "to resolve the ambiguity",
    "to make the requirement",
    "to make it",
    "the requirement",
    "this requirement",
    "the original",
    "the rewritten",
    "the clarified",
    "rewritten requirement",
    "clarified requirement",
    "rewritten text",
    "clarified text",
    "here is",
    "here's",
    "i would",
    "i suggest",
    "we should",
    "sure",
    "certainly",
];

/// Phrases that talk about the requirement rather than state it, anywhere in an answer.
pub const META_PHRASES: &[&str] = &[
    "should be rewritten",
    "should be reworded",
    "should be rephrased",
    "should be clarified",
    "should be changed",
    "should be revised",
    "should be updated",
    "should be amended",
    "should clearly state",
    "should explicitly state",
    "should specify",
    "should state",
    "needs to be rewritten",
    "needs to be clarified",
    "needs to specify",
    "needs to state",
    "the requirement text",
    "the original text",
    "the original requirement",
    "the requirement should",
    "the requirement must",
    "the requirement is ambiguous",
    "the requirement does not",
    "this requirement",
    "the rewritten requirement",
    "the clarified requirement",
    "is ambiguous",
];

/// Why `answer` is a meta-answer: it describes the rewrite ("The requirement text should
/// be rewritten to clearly state ...", "To clarify, ...") or talks about "the
/// requirement" instead of stating it. `None` for an answer that reads as a requirement.
/// A lexical test: the phrase lists are [`META_OPENINGS`] and [`META_PHRASES`]; a
/// phrase that the text being rewritten (`original`) has too is not held against it.
pub fn meta_answer(answer: &str, original: &str) -> Option<String> {
    let lower = answer.to_lowercase();
    let lower = lower.trim_start_matches(|c: char| !c.is_alphanumeric());
    let before = original.to_lowercase();
    let before = before.trim_start_matches(|c: char| !c.is_alphanumeric());
    if let Some(p) = META_PHRASES
        .iter()
        .find(|p| lower.contains(*p) && !before.contains(*p))
    {
        return Some(format!(
            "it says \"{p}\", talking about the requirement instead of stating it"
        ));
    }
    // A label in front of the rewrite ("Clarified version: ...", "Revised: ..."): one
    // to three words and a colon, with text after it, that the original does not
    // open with.
    if let Some((label, rest)) = answer.trim_start().split_once(':') {
        let words: Vec<&str> = label.split_whitespace().collect();
        let plain = words.iter().all(|w| {
            w.chars()
                .all(|c| c.is_alphabetic() || c == '-' || c == '\'')
        });
        let low = label.trim().to_lowercase();
        if (1..=3).contains(&words.len())
            && plain
            && !rest.trim().is_empty()
            && !before.starts_with(&low)
        {
            return Some(format!(
                "it opens with the label \"{}:\", introducing the rewrite instead of being it",
                label.trim()
            ));
        }
    }
    META_OPENINGS
        .iter()
        .find(|o| {
            !before.starts_with(*o)
                && lower.starts_with(*o)
                && !lower[o.len()..]
                    .chars()
                    .next()
                    .is_some_and(char::is_alphanumeric)
        })
        .map(|o| {
            format!("it opens with \"{o}\", describing the task instead of stating the requirement")
        })
}

/// The proposals file (JSON, `vera.clarify.v1`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ProposalsFile {
    /// `vera.clarify.v1`.
    pub schema: String,
    /// The spec file they are about (`spec` in files written before the payloads were
    /// made uniform is read too).
    #[serde(alias = "spec")]
    pub file: String,
    /// The proposals.
    pub proposals: Vec<Proposal>,
}

/// The schema tag of a proposals file.
pub const PROPOSALS_TAG: &str = "vera.clarify.v1";

/// Why a proposals file cannot be applied.
#[derive(Debug, thiserror::Error)]
pub enum ProposalsError {
    /// Not JSON of the proposals file's shape.
    #[error("{file}")]
    Json {
        /// The proposals file.
        file: String,
        /// What the JSON reader says.
        #[source]
        source: serde_json::Error,
    },
    /// JSON of another schema.
    #[error("{file}: not a vera.clarify.v1 proposals file")]
    Schema {
        /// The proposals file.
        file: String,
    },
    /// Accepted proposals that no longer fit the spec; nothing is applied.
    #[error(
        "{file}: {} accepted proposal(s) do not fit {spec} as it is now; nothing written (run vera clarify again, or set \"accepted\": false on them):\n{}",
        .stale.len(),
        .stale.iter().map(|n| format!("  {n}")).collect::<Vec<_>>().join("\n")
    )]
    Stale {
        /// The proposals file.
        file: String,
        /// The spec file.
        spec: String,
        /// Why each accepted proposal that does not fit does not.
        stale: Vec<NotApplicable>,
    },
}

impl ProposalsFile {
    /// The proposals of a run of `vera clarify` on the spec `file`.
    pub fn new(file: String, proposals: Vec<Proposal>) -> ProposalsFile {
        ProposalsFile {
            schema: PROPOSALS_TAG.into(),
            file,
            proposals,
        }
    }

    /// The file as `vera clarify` writes it (pretty JSON).
    pub fn to_json(&self) -> serde_json::Result<String> {
        serde_json::to_string_pretty(self)
    }

    /// Reads the proposals file `file` (its text) to apply to `spec` (read from
    /// `spec_file`): refused when it is not a proposals file or when an accepted
    /// proposal no longer fits the spec.
    pub fn read_for(
        file: &str,
        text: &str,
        spec: &Spec,
        spec_file: &str,
    ) -> Result<ProposalsFile, ProposalsError> {
        let f: ProposalsFile =
            serde_json::from_str(text).map_err(|source| ProposalsError::Json {
                file: file.to_string(),
                source,
            })?;
        if f.schema != PROPOSALS_TAG {
            return Err(ProposalsError::Schema {
                file: file.to_string(),
            });
        }
        let stale = not_applicable(spec, &f.proposals);
        if !stale.is_empty() {
            return Err(ProposalsError::Stale {
                file: file.to_string(),
                spec: spec_file.to_string(),
                stale,
            });
        }
        Ok(f)
    }
}

/// Why an accepted proposal cannot be applied to a spec as the spec is now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotApplicable {
    /// The spec has no requirement with the proposal's id.
    NoSuchRequirement {
        /// The proposal's id.
        id: String,
    },
    /// The requirement's text is no longer the one the proposal clarified (someone
    /// edited it after `vera clarify` ran): applying would replace that edit.
    TextChanged {
        /// The requirement.
        id: String,
        /// The text the proposal was made for.
        proposed_for: String,
        /// The text in the spec now.
        now: String,
    },
}

impl std::fmt::Display for NotApplicable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotApplicable::NoSuchRequirement { id } => {
                write!(f, "{id}: the spec has no requirement with this id")
            }
            NotApplicable::TextChanged {
                id,
                proposed_for,
                now,
            } => write!(
                f,
                "{id}: the requirement's text changed since the proposal was made (proposed for: \"{proposed_for}\"; now: \"{now}\")"
            ),
        }
    }
}

/// Whether two requirement texts are the same text written with other white space
/// (runs of spaces, tabs and line breaks count as one space; ends ignored): the test
/// of whether a report made for one text still speaks of the other.
pub fn same_words(a: &str, b: &str) -> bool {
    a.split_whitespace().eq(b.split_whitespace())
}

/// The proposal as the spec is now: `Ok` when its requirement exists and still has the
/// text the proposal clarified (compared with runs of white space as one space).
pub fn applicable(spec: &Spec, p: &Proposal) -> Result<(), NotApplicable> {
    fits(spec, &p.id, &p.original)
}

/// Whether a change made for requirement `id` when its text was `original` fits `spec`
/// as it is now: the requirement exists and still has that text (runs of white space
/// as one space). Proposals and restatements alike.
pub fn fits(spec: &Spec, id: &str, original: &str) -> Result<(), NotApplicable> {
    let Some(r) = spec.requirements.iter().find(|r| r.id == id) else {
        return Err(NotApplicable::NoSuchRequirement { id: id.into() });
    };
    if same_words(&r.text, original) {
        Ok(())
    } else {
        Err(NotApplicable::TextChanged {
            id: id.into(),
            proposed_for: original.into(),
            now: r.text.clone(),
        })
    }
}

/// The accepted proposals that cannot be applied to `spec` as it is now (see
/// [`applicable`]); [`apply`] should not run while this is not empty.
pub fn not_applicable(spec: &Spec, proposals: &[Proposal]) -> Vec<NotApplicable> {
    proposals
        .iter()
        .filter(|p| p.accepted)
        .filter_map(|p| applicable(spec, p).err())
        .collect()
}

/// `vera clarify --apply`: the accepted proposals of the file `path` (its `text`)
/// applied to `spec` (read from `spec_file`) and the result written to `out`, never over
/// one of `inputs` and over an existing file only with `force`. Returns the ids of the
/// requirements changed; when no proposal is accepted nothing is written. A
/// restatements file (`vera clarify --controlled`) is applied by
/// [`crate::restate::apply_file`].
pub fn apply_file(
    spec: &Spec,
    spec_file: &str,
    (path, text): (&std::path::Path, &str),
    out: &std::path::Path,
    inputs: &[&std::path::Path],
    force: bool,
) -> Result<Vec<String>, crate::formalize::PipelineError> {
    if crate::restate::is_restate_file(text) {
        return crate::restate::apply_file(spec, spec_file, (path, text), out, inputs, force);
    }
    let file = ProposalsFile::read_for(&path.display().to_string(), text, spec, spec_file)?;
    let (out_text, changed) = apply(spec, &file.proposals);
    if !changed.is_empty() {
        crate::formalize::write_new(out, &out_text, inputs, force)?;
    }
    Ok(changed)
}

/// A new spec with the accepted proposals applied: new text, and the converged formula
/// (the original formula when the proposal has none). Returns the text and the ids changed.
pub fn apply(spec: &Spec, proposals: &[Proposal]) -> (String, Vec<String>) {
    let mut changed = Vec::new();
    let reqs: Vec<OutRequirement> = spec
        .requirements
        .iter()
        .map(|r| {
            let original = r.formula.as_ref().map(logic::print::term);
            match proposals.iter().find(|p| p.id == r.id && p.accepted) {
                Some(p) => {
                    changed.push(r.id.clone());
                    OutRequirement {
                        id: r.id.clone(),
                        text: p.clarified.clone(),
                        // The person accepted the proposal, formula included.
                        origin: if p.formula.is_some() || p.pattern.is_some() {
                            reqs::spec::Origin::ModelAccepted
                        } else {
                            r.origin
                        },
                        formula: if p.pattern.is_some() && spec.time.is_some() {
                            None
                        } else {
                            p.formula.clone().or(original)
                        },
                        notes: vec![format!(
                            "clarified by vera in {} rounds ({} -> {} readings); was: {}",
                            p.rounds, p.classes_before, p.classes_after, p.original
                        )],
                        // A converged timed proposal's pattern replaces the old one.
                        timed: p
                            .pattern
                            .as_ref()
                            .filter(|_| spec.time.is_some())
                            .and_then(|v| crate::timed::answer_keys(v).ok())
                            .or_else(|| OutRequirement::timed_keys(spec, r)),
                    }
                }
                None => OutRequirement {
                    id: r.id.clone(),
                    text: r.text.clone(),
                    origin: r.origin,
                    formula: original,
                    notes: vec![],
                    timed: OutRequirement::timed_keys(spec, r),
                },
            }
        })
        .collect();
    let header = vec![format!(
        "{} with {} clarified requirement(s) applied by vera.",
        spec.source.name(),
        changed.len()
    )];
    (render_spec(spec, &header, &reqs), changed)
}

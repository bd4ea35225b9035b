//! Round-trip fidelity (VeriMed section 2.4): the model turns each formula back into a
//! requirement sentence, re-formalizes the sentence under the same schema, and vera
//! checks that the new formula is equivalent to the original under the domain
//! constraints C, in both directions. A mismatch gets one repair turn: the describer
//! sees the re-formalized formula and a distinguishing state and writes a better
//! sentence, which is formalized and checked again.
//!
//! Text similarity between the original requirement text and the reconstructed sentence
//! is always a lexical cosine over word counts and, when an embeddings endpoint is
//! configured ([`RoundTripOptions::embeddings`]), also the cosine of the two texts'
//! embeddings, as in the paper.

use crate::qa::{schema_info, RateCi};
use crate::select::Selection;
use llm::{Client, Embeddings, LlmError, Request, Template};
use logic::{Model, Term};
use reqs::audit::{load_into, Assignment, Loaded, Session, Witness};
use reqs::Spec;
use serde::Serialize;
use solver::Outcome;
use solver::{Solver, SolverConfig, SolverError};
use std::collections::BTreeMap;
use std::sync::Arc;

const DESCRIBE: &str = include_str!("../../../prompts/roundtrip-describe.txt");
const REPAIR: &str = include_str!("../../../prompts/roundtrip-repair.txt");
const FORMALIZE: &str = include_str!("../../../prompts/formalize-requirement.txt");
const EXAMPLE: &str = include_str!("../../../prompts/formalize-example.txt");
const FORMAT_REPAIR: &str = include_str!("../../../prompts/repair.txt");

pub(crate) fn template(name: &str, text: &str) -> Template {
    Template::parse(name, text).expect("built-in templates parse")
}

/// Equivalence of two formulas under the domain constraints.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum Equivalence {
    /// C ∧ f ∧ ¬g and C ∧ g ∧ ¬f are both unsat.
    Equivalent,
    /// A state that one allows and the other forbids.
    Differs {
        /// `original-only` (the original holds, the other does not) or `other-only`.
        direction: &'static str,
        /// The state, over both formulas' variables.
        witness: Witness,
    },
    /// The solver gave no answer.
    Unknown {
        /// Why.
        #[serde(flatten)]
        reason: solver::Undecided,
    },
}

/// A solver with the spec loaded, for equivalence and replacement checks.
pub struct Checker<'s> {
    spec: &'s Spec,
    solver: Solver,
    lits: Loaded,
    /// Solver queries so far.
    pub queries: usize,
}

fn witness_of(spec: &Spec, m: &Model, terms: &[&Term]) -> Witness {
    let names: Vec<logic::Symbol> = terms
        .iter()
        .flat_map(|t| t.free_vars())
        .map(|(n, _)| n)
        .collect();
    spec.variables
        .iter()
        .filter(|v| names.contains(&v.name))
        .filter_map(|v| {
            m.get(&v.name).map(|val| Assignment {
                variable: v.name.to_string(),
                value: val.to_string(),
                unit: v.unit.clone(),
            })
        })
        .collect()
}

impl<'s> Checker<'s> {
    /// Starts a solver and loads the spec.
    pub fn new(spec: &'s Spec, config: &SolverConfig) -> Result<Checker<'s>, SolverError> {
        let mut solver = Solver::start(config)?;
        let lits = load_into(&mut solver, spec)?;
        Ok(Checker {
            spec,
            solver,
            lits,
            queries: 0,
        })
    }

    fn check(&mut self, assume: &[Term], extra: &[Term]) -> Result<Outcome, SolverError> {
        let mut s = Session::new(&mut self.solver, self.lits.clone());
        let a = s.check(assume, extra);
        self.queries += s.queries;
        a
    }

    /// Bidirectional equivalence of `original` and `other` under C.
    pub fn equivalence(
        &mut self,
        original: &Term,
        other: &Term,
    ) -> Result<Equivalence, SolverError> {
        let dom = self.lits.domain().to_vec();
        for (direction, holds, fails) in [
            ("original-only", original, other),
            ("other-only", other, original),
        ] {
            match self.check(&dom, &[holds.clone(), Term::not(fails.clone())])? {
                Outcome::Sat(m) => {
                    return Ok(Equivalence::Differs {
                        direction,
                        witness: witness_of(self.spec, &m, &[original, other]),
                    })
                }
                Outcome::Unknown(reason) => {
                    return Ok(Equivalence::Unknown {
                        reason: reason.clone().into(),
                    })
                }
                Outcome::Unsat(_) => {}
            }
        }
        Ok(Equivalence::Equivalent)
    }

    /// Is C ∧ (every requirement but `index`) ∧ `formula` satisfiable? `None`: unknown.
    pub fn consistent_with(
        &mut self,
        index: usize,
        formula: &Term,
    ) -> Result<Option<bool>, SolverError> {
        let mut assume = self.lits.domain().to_vec();
        assume.extend(self.lits.reqs_except(Some(index)));
        Ok(match self.check(&assume, std::slice::from_ref(formula))? {
            Outcome::Sat(_) => Some(true),
            Outcome::Unsat(_) => Some(false),
            Outcome::Unknown(_) => None,
        })
    }
}

/// Reads one formula written by the model: code fences and a leading `Term:` are
/// dropped, then the text goes through `logic::parse_untrusted` as one assertion and
/// must add no declarations.
pub fn parse_formula_answer(spec: &Spec, text: &str) -> Result<Term, String> {
    let mut t = text.trim();
    if let Some(rest) = t.strip_prefix("```") {
        let rest = rest.trim_start_matches(|c: char| c.is_ascii_alphanumeric());
        t = rest.trim_end().strip_suffix("```").unwrap_or(rest).trim();
    }
    t = t.strip_prefix("Term:").unwrap_or(t).trim();
    t = t.trim_matches('`').trim();
    if t.is_empty() {
        return Err("the answer is empty".into());
    }
    let wrapped = format!("(assert {t}\n)");
    let u = logic::parse_untrusted("formula", &wrapped, &spec.context, logic::Limits::default())
        .map_err(|d| {
            d.0.iter()
                .take(3)
                .map(|l| l.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        })?;
    match u.assertions.as_slice() {
        [(f, _)] if u.constants.is_empty() && u.definitions.is_empty() && u.enums.is_empty() => {
            Ok(f.clone())
        }
        _ => Err("answer with exactly one term, no commands or declarations".into()),
    }
}

/// The formalization prompt for a requirement text, with two worked examples from the
/// spec's other requirements (never the one at `skip`).
pub fn formalize_prompt(spec: &Spec, text: &str, skip: Option<usize>) -> String {
    let ex = template("formalize-example", EXAMPLE);
    let examples: String = spec
        .requirements
        .iter()
        .enumerate()
        .filter(|(i, r)| Some(*i) != skip && r.formula.is_some())
        .take(2)
        .map(|(_, r)| {
            ex.render(&[
                ("requirement", &r.text),
                (
                    "term",
                    &logic::print::term(r.formula.as_ref().expect("formalized")),
                ),
            ])
            .expect("all variables given")
        })
        .collect();
    template("formalize-requirement", FORMALIZE)
        .render(&[
            ("schema", &schema_info(spec).render()),
            ("examples", &examples),
            ("requirement", text),
        ])
        .expect("all variables given")
}

/// How one formalization is asked for.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sampling<'a> {
    /// The accounting stage.
    pub stage: &'a str,
    /// The sample index.
    pub sample: u32,
    /// The temperature.
    pub temperature: f64,
    /// Format-repair turns.
    pub repairs: usize,
}

impl<'a> Sampling<'a> {
    /// Temperature 0, sample 0, one repair turn.
    pub fn greedy(stage: &'a str) -> Sampling<'a> {
        Sampling {
            stage,
            sample: 0,
            temperature: 0.0,
            repairs: 1,
        }
    }
}

/// Formalizes `text` with up to `repairs` format-repair turns. `Err` holds the last
/// problem when no answer parsed; LLM failures that a repair cannot fix are `Ok(Err)`
/// only for answer problems, otherwise returned as the outer error.
pub(crate) fn formalize(
    client: &Client,
    how: &Sampling,
    spec: &Spec,
    text: &str,
    skip: Option<usize>,
) -> Result<Result<Term, String>, LlmError> {
    let Sampling {
        stage,
        sample,
        temperature,
        repairs,
    } = *how;
    let prompt = formalize_prompt(spec, text, skip);
    let fix = template("repair", FORMAT_REPAIR);
    let mut req = Request::new()
        .user(prompt)
        .temperature(temperature)
        .max_tokens(400)
        .sample(sample);
    if let Some(g) = crate::formalize::formula_grammar(spec, client) {
        req = req.grammar(g);
    }
    let mut problem = String::new();
    for _ in 0..=repairs {
        let answer = match client.complete(stage, &req) {
            Ok(c) => c.text().to_string(),
            Err(e) if e.is_answer_problem() => {
                problem = e.feedback().unwrap_or_else(|| e.to_string());
                req = req.user(
                    fix.render(&[("problem", &problem)])
                        .expect("all variables given"),
                );
                continue;
            }
            Err(e) => return Err(e),
        };
        match parse_formula_answer(spec, &answer) {
            Ok(t) => return Ok(Ok(t)),
            Err(p) => {
                problem = p;
                req = req.assistant(answer).user(
                    fix.render(&[("problem", &problem)])
                        .expect("all variables given"),
                );
            }
        }
    }
    Ok(Err(problem))
}

/// Lexical cosine similarity of two texts over lower-cased word counts (0 to 1).
pub fn lexical_cosine(a: &str, b: &str) -> f64 {
    fn counts(s: &str) -> BTreeMap<String, f64> {
        let mut m = BTreeMap::new();
        for w in s
            .split(|c: char| !c.is_alphanumeric() && c != '.')
            .map(|w| w.trim_matches('.').to_lowercase())
            .filter(|w| !w.is_empty())
        {
            *m.entry(w).or_insert(0.0) += 1.0;
        }
        m
    }
    let (x, y) = (counts(a), counts(b));
    let dot: f64 = x
        .iter()
        .map(|(w, c)| c * y.get(w).copied().unwrap_or(0.0))
        .sum();
    let norm = |m: &BTreeMap<String, f64>| m.values().map(|c| c * c).sum::<f64>().sqrt();
    let d = norm(&x) * norm(&y);
    if d == 0.0 {
        0.0
    } else {
        dot / d
    }
}

/// The round trip of one requirement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Trip {
    /// Requirement id.
    pub id: String,
    /// The original formula.
    pub formula: String,
    /// The sentence the model wrote for it (after the repair, if there was one).
    pub sentence: Option<String>,
    /// The re-formalized formula.
    pub reformalized: Option<String>,
    /// Equivalence of the first re-formalization with the original.
    pub initial: Option<Equivalence>,
    /// Equivalence after the repair turn (only when the first one differed).
    pub repaired: Option<Equivalence>,
    /// Why no formula came back, if none did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// Lexical cosine of the original text and the final sentence, in thousandths.
    pub similarity_milli: Option<u32>,
    /// Embedding cosine of the same two texts, in thousandths (signed), when configured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embedding_similarity_milli: Option<i32>,
    /// What is wrong with the sentence even when the formula came back equivalent: it
    /// does not mention the formula's variables, or it drifted from the requirement text.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<TripFlag>,
    /// The formula read back in plain English by vera itself ([`crate::readback`], no
    /// model), to put next to the requirement text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub readback: Option<String>,
    /// Share of the requirement text's content words that the read-back contains, in
    /// thousandths ([`content_overlap`]): low when the formula talks about other things
    /// than the text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub readback_overlap_milli: Option<u32>,
}

/// A problem with a round trip's sentence (see [`sentence_flags`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TripFlag {
    /// `unmentioned-variables` or `drift`.
    pub kind: &'static str,
    /// The finding in words.
    pub message: String,
}

/// What the round trip checks, for reports.
pub const WHAT_IT_CHECKS: &str = "each formula is described in a sentence by the model, the sentence is formalized again, and the solver checks that the new formula is equivalent to the original under the domain: the formula survives a trip through text. It does not check that the formula means what the requirement text says; the sentence is flagged when it does not mention the formula's variables or drifts from the requirement text";

/// Share of the requirement text's content words a sentence must contain (see
/// [`content_overlap`]); below it the sentence is flagged as drifting.
pub const DRIFT_THRESHOLD: f64 = 0.25;

/// Words that carry no content for [`content_overlap`].
pub const STOPWORDS: &[&str] = &[
    "a", "an", "the", "and", "or", "not", "no", "of", "to", "in", "on", "at", "by", "for", "from",
    "with", "as", "is", "are", "be", "been", "being", "was", "were", "it", "its", "this", "that",
    "these", "those", "then", "than", "if", "when", "whenever", "while", "shall", "must", "should",
    "will", "may", "can", "does", "do", "has", "have", "every", "each", "all", "any", "always",
    "never", "there", "which", "who", "whose", "also",
];

/// Lower-case words of a text (letters and digits; a decimal point inside a number kept).
pub(crate) fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric() && c != '.')
        .map(|w| w.trim_matches('.').to_lowercase())
        .filter(|w| !w.is_empty())
        .collect()
}

/// Two words match when equal, or when the shorter, of at least 4 characters, starts
/// the longer (`temp` / `temperature`, `alarm` / `alarms`).
pub(crate) fn word_match(a: &str, b: &str) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    short == long || (short.chars().count() >= 4 && long.starts_with(short))
}

/// The words of a variable name: split at `_`, digits and lower-to-upper case changes
/// (`door_closed` → door, closed; `bloodFlow` → blood, flow).
pub(crate) fn name_words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if (!c.is_alphabetic() || (c.is_uppercase() && prev_lower)) && !cur.is_empty() {
            out.push(std::mem::take(&mut cur).to_lowercase());
        }
        if c.is_alphabetic() {
            cur.push(c);
        }
        prev_lower = c.is_lowercase();
    }
    if !cur.is_empty() {
        out.push(cur.to_lowercase());
    }
    out
}

/// Content-word overlap of a sentence with a requirement text: the share of the text's
/// content words (its words minus [`STOPWORDS`], each counted once) that the sentence
/// contains, words matched as in `word_match` (equal, or a prefix of at least 4
/// characters). `None` when the text has no content word.
pub fn content_overlap(text: &str, sentence: &str) -> Option<f64> {
    let content = |s: &str| {
        let mut v: Vec<String> = words(s)
            .into_iter()
            .filter(|w| !STOPWORDS.contains(&w.as_str()))
            .collect();
        v.sort();
        v.dedup();
        v
    };
    let (a, b) = (content(text), content(sentence));
    if a.is_empty() {
        return None;
    }
    let found = a
        .iter()
        .filter(|w| b.iter().any(|x| word_match(w, x)))
        .count();
    Some(found as f64 / a.len() as f64)
}

/// The enumeration values a formula compares with, by sort.
pub(crate) fn enum_values(formula: &Term) -> Vec<(logic::Symbol, logic::Symbol)> {
    let mut out = Vec::new();
    let mut stack = vec![formula];
    while let Some(t) = stack.pop() {
        match t {
            Term::EnumVal { sort, ctor } => out.push((sort.clone(), ctor.clone())),
            Term::App(_, args) | Term::Call(_, args, _) => stack.extend(args.iter()),
            Term::Let(bs, body) => {
                stack.extend(bs.iter().map(|(_, v)| v));
                stack.push(body);
            }
            Term::Named(inner, _) => stack.push(inner),
            _ => {}
        }
    }
    out
}

/// The flags of a round trip's sentence: variables of `formula` it mentions neither by
/// name nor by a word of the name (words of at least 3 characters, matched as in
/// `word_match`; an enumeration variable also counts as mentioned through a value the
/// formula compares it with, as in "during priming" for `(= phase Priming)`), and a
/// content-word overlap with the requirement text below [`DRIFT_THRESHOLD`].
pub fn sentence_flags(text: &str, formula: &Term, sentence: &str) -> Vec<TripFlag> {
    let mut flags = Vec::new();
    let said = words(sentence);
    let lower = sentence.to_lowercase();
    let values = enum_values(formula);
    let mentions = |name: &str| {
        lower.contains(&name.to_lowercase())
            || name_words(name)
                .iter()
                .filter(|w| w.chars().count() >= 3)
                .any(|w| said.iter().any(|x| word_match(w, x)))
    };
    let missing: Vec<String> = formula
        .free_vars()
        .into_iter()
        .filter(|(n, sort)| {
            let by_value = match sort {
                logic::Sort::Enum(e) => values.iter().any(|(s, c)| s == e && mentions(c)),
                _ => false,
            };
            !mentions(n) && !by_value
        })
        .map(|(n, _)| n.to_string())
        .collect();
    if !missing.is_empty() {
        flags.push(TripFlag {
            kind: "unmentioned-variables",
            message: format!(
                "the sentence does not mention {} (by name or a word of the name): it may describe some other formula that happens to be equivalent",
                missing.join(", ")
            ),
        });
    }
    if let Some(o) = content_overlap(text, sentence) {
        if o < DRIFT_THRESHOLD {
            flags.push(TripFlag {
                kind: "drift",
                message: format!(
                    "the sentence shares {:.0}% of the requirement text's content words (below {:.0}%): it has drifted from what the requirement says",
                    100.0 * o,
                    100.0 * DRIFT_THRESHOLD
                ),
            });
        }
    }
    flags
}

impl Trip {
    /// Equivalent at the first try.
    pub fn initially_equivalent(&self) -> bool {
        self.initial == Some(Equivalence::Equivalent)
    }
    /// Equivalent after at most one repair.
    pub fn finally_equivalent(&self) -> bool {
        self.initially_equivalent() || self.repaired == Some(Equivalence::Equivalent)
    }
    /// Equivalent after at most one repair, and the sentence not flagged.
    pub fn passed(&self) -> bool {
        self.finally_equivalent() && self.flags.is_empty()
    }
}

/// The round-trip report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RoundTripReport {
    /// One entry per requirement checked.
    pub trips: Vec<Trip>,
    /// Equivalent at the first try.
    pub initial: RateCi,
    /// Equivalent after one repair.
    pub after_repair: RateCi,
    /// Trips whose sentence is flagged (see [`sentence_flags`]), equivalent or not.
    pub flagged: usize,
    /// Mean lexical cosine (original text vs reconstructed sentence).
    pub mean_lexical_similarity: Option<f64>,
    /// Mean embedding cosine of the same pairs, when an embeddings model is configured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mean_embedding_similarity: Option<f64>,
    /// The embeddings model used, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embedding_model: Option<String>,
    /// Prompt templates used.
    pub templates: Vec<String>,
}

/// Options of [`run`].
#[derive(Debug, Clone)]
pub struct RoundTripOptions {
    /// Which formalized requirements.
    pub selection: Selection,
    /// Allow the one repair turn.
    pub repair: bool,
    /// Embeddings for the text similarity (none: lexical cosine only).
    pub embeddings: Option<Arc<dyn Embeddings>>,
}

impl Default for RoundTripOptions {
    fn default() -> Self {
        RoundTripOptions {
            selection: Selection::default(),
            repair: true,
            embeddings: None,
        }
    }
}

/// Why a round trip stopped.
#[derive(Debug, thiserror::Error)]
pub enum RoundTripError {
    /// The LLM failed in a way a repair turn cannot fix.
    #[error("llm: {0}")]
    Llm(#[from] LlmError),
    /// The solver failed.
    #[error("solver: {0}")]
    Solver(#[from] SolverError),
}

fn describe_prompt(spec: &Spec, formula: &str) -> String {
    template("roundtrip-describe", DESCRIBE)
        .render(&[
            ("schema", &schema_info(spec).render()),
            ("formula", formula),
        ])
        .expect("all variables given")
}

fn sentence_of(text: &str) -> String {
    text.trim()
        .trim_start_matches("Sentence:")
        .trim()
        .trim_matches('"')
        .trim()
        .to_string()
}

fn show_witness(w: &Witness) -> String {
    w.iter()
        .map(|a| match &a.unit {
            Some(u) => format!("{} = {} {u}", a.variable, a.value),
            None => format!("{} = {}", a.variable, a.value),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Runs the round trip over the spec's formalized requirements.
pub fn run(
    spec: &Spec,
    client: &Client,
    solver: &SolverConfig,
    options: &RoundTripOptions,
) -> Result<RoundTripReport, RoundTripError> {
    let mut run = Tripping {
        spec,
        client,
        checker: Checker::new(spec, solver)?,
        repair: options.repair,
    };
    let chosen: Vec<usize> = options.selection.indices(spec);
    // Descriptions in one batch (bounded concurrency in the client).
    let describe: Vec<Request> = chosen
        .iter()
        .map(|&i| {
            let f = logic::print::term(spec.requirements[i].formula.as_ref().expect("formalized"));
            Request::new()
                .user(describe_prompt(spec, &f))
                .temperature(0.0)
                .max_tokens(200)
        })
        .collect();
    let sentences = client.run_all("roundtrip.describe", &describe);
    let mut trips = Vec::new();
    let mut sims = Vec::new();
    for ((&i, req), sentence) in chosen.iter().zip(&describe).zip(sentences) {
        let r = &spec.requirements[i];
        let original = r.formula.clone().expect("formalized");
        let mut trip = unchecked_trip(spec, r, &original);
        let sentence = match sentence {
            Ok(c) => sentence_of(c.text()),
            Err(e) if e.is_answer_problem() => {
                trip.problem = Some(e.to_string());
                trips.push(trip);
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        let current = run.reformalize(i, req, sentence, &original, &mut trip)?;
        let sim = lexical_cosine(&r.text, &current);
        sims.push(sim);
        trip.similarity_milli = Some((sim * 1000.0).round() as u32);
        trip.flags = sentence_flags(&r.text, &original, &current);
        trip.sentence = Some(current);
        trips.push(trip);
    }
    let mut mean_embedding_similarity = None;
    if let Some(e) = &options.embeddings {
        mean_embedding_similarity = embedding_similarity(spec, &chosen, &mut trips, e.as_ref())?;
    }
    let n = trips.len();
    let initial = RateCi::new(trips.iter().filter(|t| t.initially_equivalent()).count(), n);
    let after_repair = RateCi::new(trips.iter().filter(|t| t.finally_equivalent()).count(), n);
    let flagged = trips.iter().filter(|t| !t.flags.is_empty()).count();
    Ok(RoundTripReport {
        trips,
        initial,
        after_repair,
        flagged,
        mean_lexical_similarity: (!sims.is_empty())
            .then(|| sims.iter().sum::<f64>() / sims.len() as f64),
        mean_embedding_similarity,
        embedding_model: options.embeddings.as_ref().map(|e| e.model().to_string()),
        templates: vec![
            template("roundtrip-describe", DESCRIBE).id(),
            template("roundtrip-repair", REPAIR).id(),
            template("formalize-requirement", FORMALIZE).id(),
        ],
    })
}

/// The trip of a requirement before the model is heard: its formula and vera's reading.
fn unchecked_trip(spec: &Spec, r: &reqs::spec::Requirement, original: &Term) -> Trip {
    let mut trip = Trip {
        id: r.id.clone(),
        formula: logic::print::term(original),
        sentence: None,
        reformalized: None,
        initial: None,
        repaired: None,
        problem: None,
        similarity_milli: None,
        embedding_similarity_milli: None,
        flags: Vec::new(),
        readback: None,
        readback_overlap_milli: None,
    };
    let readback = crate::readback::sentence(spec, original);
    trip.readback_overlap_milli =
        content_overlap(&r.text, &readback).map(|x| (x * 1000.0).round() as u32);
    trip.readback = Some(readback);
    trip
}

/// What every round trip of a run shares: the spec, the model, the solver with the spec
/// loaded, and whether a differing formula gets a repair turn.
struct Tripping<'s> {
    spec: &'s Spec,
    client: &'s Client,
    checker: Checker<'s>,
    repair: bool,
}

impl Tripping<'_> {
    /// Formalizes the sentence again, compares, and repairs once if it differs; final sentence.
    fn reformalize(
        &mut self,
        i: usize,
        req: &Request,
        sentence: String,
        original: &Term,
        trip: &mut Trip,
    ) -> Result<String, RoundTripError> {
        let mut current = sentence.clone();
        match formalize(
            self.client,
            &Sampling::greedy("roundtrip.formalize"),
            self.spec,
            &sentence,
            Some(i),
        )? {
            Ok(f) => {
                let eq = self.checker.equivalence(original, &f)?;
                trip.reformalized = Some(logic::print::term(&f));
                if let (Equivalence::Differs { witness, .. }, true) = (&eq, self.repair) {
                    let again = req
                        .clone()
                        .assistant(sentence.clone())
                        .user(repair_prompt(&f, witness));
                    if let Some(repaired) = self.repaired(i, &again, original, trip)? {
                        current = repaired;
                    }
                }
                trip.initial = Some(eq);
            }
            Err(p) => trip.problem = Some(p),
        }
        Ok(current)
    }

    /// Asks for the repaired sentence and compares its formula (`None`: no usable answer).
    fn repaired(
        &mut self,
        i: usize,
        again: &Request,
        original: &Term,
        trip: &mut Trip,
    ) -> Result<Option<String>, RoundTripError> {
        let current = match self.client.complete("roundtrip.repair", again) {
            Ok(c) => sentence_of(c.text()),
            Err(e) if e.is_answer_problem() => {
                trip.problem = Some(e.to_string());
                return Ok(None);
            }
            Err(e) => return Err(e.into()),
        };
        match formalize(
            self.client,
            &Sampling::greedy("roundtrip.formalize"),
            self.spec,
            &current,
            Some(i),
        )? {
            Ok(g) => {
                trip.repaired = Some(self.checker.equivalence(original, &g)?);
                trip.reformalized = Some(logic::print::term(&g));
            }
            Err(p) => trip.problem = Some(p),
        }
        Ok(Some(current))
    }
}

/// The repair turn: the formula the sentence gave and a state where it disagrees.
fn repair_prompt(f: &Term, witness: &Witness) -> String {
    template("roundtrip-repair", REPAIR)
        .render(&[
            ("reformalized", &logic::print::term(f)),
            (
                "witness",
                &format!("They disagree in this state: {}.", show_witness(witness)),
            ),
        ])
        .expect("all variables given")
}

/// Sets each trip's embedding cosine of text and sentence; gives back their mean.
fn embedding_similarity(
    spec: &Spec,
    chosen: &[usize],
    trips: &mut [Trip],
    e: &dyn Embeddings,
) -> Result<Option<f64>, RoundTripError> {
    // One request for every (original text, final sentence) pair; trip k is the
    // round trip of requirement chosen[k].
    let pairs: Vec<(usize, String, String)> = trips
        .iter()
        .zip(chosen)
        .enumerate()
        .filter_map(|(k, (t, &i))| {
            Some((k, spec.requirements[i].text.clone(), t.sentence.clone()?))
        })
        .collect();
    let texts: Vec<String> = pairs
        .iter()
        .flat_map(|(_, a, b)| [a.clone(), b.clone()])
        .collect();
    let vectors = e.embed(&texts)?;
    let mut sum = 0.0;
    for (j, (k, _, _)) in pairs.iter().enumerate() {
        let c = llm::cosine(&vectors[2 * j], &vectors[2 * j + 1]);
        sum += c;
        trips[*k].embedding_similarity_milli = Some((c * 1000.0).round() as i32);
    }
    Ok((!pairs.is_empty()).then(|| sum / pairs.len() as f64))
}

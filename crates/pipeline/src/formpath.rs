//! The form path of `vera formalize`: the model fills in a form ([`crate::form`]) under
//! a JSON schema the server enforces, several times, and the answers are grouped by
//! meaning.
//!
//! For each requirement up to `samples` answers are drawn: the first at the run's
//! temperature (0 by default), the others at [`VoteOptions::temperature`]. Each answer
//! is read as a form, turned into a formula, type-checked and screened like any other
//! formula; an unusable answer gets repair turns with the exact error (each sample is
//! its own conversation). The valid formulas are then grouped by solver equivalence under
//! the domain (as SIRNA's voting and vera's ambiguity screening do). The largest group
//! wins when it holds at least `threshold` of the valid samples and at least two of them
//! (one sample when only one is drawn): its size over the valid samples is the formula's
//! *confidence*. Below that the requirement is *flagged* for review with its readings
//! (one per group) and gets no formula — a wrong formula is worse than none, because a
//! reviewer trusts it. Sampling stops early once no further answer could change the
//! outcome. A requirement with no valid form at all is left to the SMT-LIB path.
//!
//! Worked examples are chosen per requirement by similarity (shared words, then shared
//! variables) among the spec's requirements whose formula a person wrote or accepted and
//! that a form can state; each example is screened like an answer before it is shown.

use crate::form::{Atom, Cond, Form, Operand, Relation, Trigger};
use crate::formalize::{
    answer_problem, excerpt, screen_formula, validate_screened, Attempt, FormalizeOptions,
    Formalized, PipelineError, ValidateError,
};
use llm::{Client, Request, Template};
use logic::{Op, Sort, Term};
use reqs::equiv::Checker;
use reqs::Spec;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeSet;

/// The prompt templates of the form path (built in; see `prompts/`).
#[derive(Debug, Clone)]
pub struct FormPrompts {
    /// One requirement → one form.
    pub one: Template,
    /// One worked example inside `examples`.
    pub example: Template,
    /// The repair turn after an unusable form.
    pub repair: Template,
}

impl FormPrompts {
    /// The templates shipped in `prompts/`, compiled in.
    pub fn builtin() -> FormPrompts {
        let t = |name: &str, text: &str| Template::parse(name, text).expect("built-in template");
        FormPrompts {
            one: t(
                "formalize-form",
                include_str!("../../../prompts/formalize-form.txt"),
            ),
            example: t(
                "formalize-form-example",
                include_str!("../../../prompts/formalize-form-example.txt"),
            ),
            repair: t(
                "formalize-form-repair",
                include_str!("../../../prompts/formalize-form-repair.txt"),
            ),
        }
    }
}

/// How many answers to draw per requirement and when they agree enough.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VoteOptions {
    /// Answers drawn per requirement (at least 1).
    pub samples: usize,
    /// Share of the valid answers the largest group must hold (0 to 1).
    pub threshold: f64,
    /// Temperature of every answer after the first.
    pub temperature: f64,
}

impl Default for VoteOptions {
    fn default() -> Self {
        VoteOptions {
            samples: 5,
            threshold: 0.6,
            temperature: 0.7,
        }
    }
}

/// Which path produced a requirement's formula.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Path {
    /// The controlled-English parser, without a model.
    Parser,
    /// A form filled by the model.
    Form,
    /// An SMT-LIB term written by the model (the fallback).
    Smtlib,
}

/// One group of equivalent answers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reading {
    /// The group's first formula, printed by vera.
    pub formula: String,
    /// How many valid answers are in the group.
    pub count: usize,
    /// The form of that answer.
    pub form: Value,
}

/// The vote of one requirement.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Vote {
    /// Answers drawn (conversations started).
    pub samples: usize,
    /// Answers that gave a valid formula.
    pub valid: usize,
    /// Size of the largest group of equivalent formulas.
    pub agreeing: usize,
    /// `agreeing / valid` (0 when nothing was valid).
    pub confidence: f64,
    /// The groups, largest first.
    pub readings: Vec<Reading>,
}

/// A formula as a form, when it has a form's structure: `(=> C T)`, `(not C)`, a
/// conjunction of implications, or a condition; conditions are atoms, or atoms joined by
/// one `and`/`or`.
pub fn form_of_term(spec: &Spec, t: &Term) -> Option<Form> {
    match t {
        Term::App(Op::Implies, args) if args.len() == 2 => Some(Form::If {
            word: Trigger::If,
            condition: cond_of(spec, &args[0])?,
            then: cond_of(spec, &args[1])?,
            otherwise: None,
        }),
        Term::App(Op::Not, args) if args.len() == 1 && atom_of(spec, t).is_none() => {
            Some(Form::Never(cond_of(spec, &args[0])?))
        }
        Term::App(Op::And, args)
            if args.len() >= 2
                && args
                    .iter()
                    .all(|a| matches!(a, Term::App(Op::Implies, x) if x.len() == 2)) =>
        {
            let cases = args
                .iter()
                .map(|a| match a {
                    Term::App(Op::Implies, x) => {
                        Some((cond_of(spec, &x[0])?, cond_of(spec, &x[1])?))
                    }
                    _ => None,
                })
                .collect::<Option<Vec<_>>>()?;
            Some(Form::Cases(cases))
        }
        _ => Some(Form::Always(cond_of(spec, t)?)),
    }
}

fn cond_of(spec: &Spec, t: &Term) -> Option<Cond> {
    match t {
        Term::App(Op::And, args) => Some(Cond::All(
            args.iter()
                .map(|a| atom_of(spec, a))
                .collect::<Option<Vec<_>>>()?,
        )),
        Term::App(Op::Or, args) => Some(Cond::Any(
            args.iter()
                .map(|a| atom_of(spec, a))
                .collect::<Option<Vec<_>>>()?,
        )),
        _ => atom_of(spec, t).map(Cond::Atom),
    }
}

fn number_of(t: &Term) -> Option<num_rational::BigRational> {
    match t {
        Term::Int(i) => Some(num_rational::BigRational::from_integer(i.clone())),
        Term::Real(r) => Some(r.clone()),
        Term::App(Op::Sub, args) if args.len() == 1 => number_of(&args[0]).map(|r| -r),
        _ => None,
    }
}

/// The prompt's line on arithmetic, given when it is asked for and the form offers it
/// ([`crate::form::offers_arithmetic`]).
const ARITHMETIC: &str = "- A number can also be compared with arithmetic over numbers and numeric variables, one key over a pair: {\"sum\": [X, Y]}, {\"difference\": [X, Y]}, {\"min\": [X, Y]}, {\"max\": [X, Y]}, {\"ratio\": [X, Y]} (X divided by Y). \"X plus Y, but no more than Z\" is {\"min\": [{\"sum\": [\"X\", \"Y\"]}, \"Z\"]}; \"within 2 of X\" is two atoms, >= {\"difference\": [\"X\", 2]} and <= {\"sum\": [\"X\", 2]}.\n";

fn atom_of(spec: &Spec, t: &Term) -> Option<Atom> {
    let var = |t: &Term| match t {
        Term::Var(n, s) if spec.variables.iter().any(|v| v.name == *n) => {
            Some((n.to_string(), s.clone()))
        }
        _ => None,
    };
    match t {
        Term::Var(..) => {
            let (n, s) = var(t)?;
            (s == Sort::Bool).then_some(Atom {
                variable: n,
                relation: Relation::Is,
                value: Operand::Bool(true),
            })
        }
        Term::App(Op::Not, args) if args.len() == 1 => {
            let inner = atom_of(spec, &args[0])?;
            match inner.value {
                Operand::Bool(b) => Some(Atom {
                    value: Operand::Bool(!b),
                    ..inner
                }),
                Operand::Enum(_) if inner.relation == Relation::Is => Some(Atom {
                    relation: Relation::IsNot,
                    ..inner
                }),
                _ => None,
            }
        }
        Term::App(op, args) if args.len() == 2 => {
            let flip = |r: Relation| match r {
                Relation::Lt => Relation::Gt,
                Relation::Le => Relation::Ge,
                Relation::Gt => Relation::Lt,
                Relation::Ge => Relation::Le,
                other => other,
            };
            let rel = match op {
                Op::Eq => Relation::Eq,
                Op::Distinct => Relation::Ne,
                Op::Lt => Relation::Lt,
                Op::Le => Relation::Le,
                Op::Gt => Relation::Gt,
                Op::Ge => Relation::Ge,
                _ => return None,
            };
            let (left, right, rel) = match (var(&args[0]), var(&args[1])) {
                (Some(l), _) => (l, &args[1], rel),
                (None, Some(r)) => (r, &args[0], flip(rel)),
                _ => return None,
            };
            let (name, sort) = left;
            match &sort {
                Sort::Enum(_) => match (right, rel) {
                    (Term::EnumVal { ctor, .. }, Relation::Eq) => Some(Atom {
                        variable: name,
                        relation: Relation::Is,
                        value: Operand::Enum(ctor.to_string()),
                    }),
                    (Term::EnumVal { ctor, .. }, Relation::Ne) => Some(Atom {
                        variable: name,
                        relation: Relation::IsNot,
                        value: Operand::Enum(ctor.to_string()),
                    }),
                    _ => None,
                },
                Sort::Int | Sort::Real => {
                    let value = match var(right) {
                        Some((o, s)) if s.is_numeric() => Operand::Variable(o),
                        Some(_) => return None,
                        None => Operand::Number(number_of(right)?),
                    };
                    Some(Atom {
                        variable: name,
                        relation: rel,
                        value,
                    })
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// Lower-case content words of a text (three letters or more, common words aside).
fn content_words(text: &str) -> BTreeSet<String> {
    crate::roundtrip::words(text)
        .into_iter()
        .filter(|w| w.chars().count() >= 3 && !crate::roundtrip::STOPWORDS.contains(&w.as_str()))
        .collect()
}

/// Worked examples for one requirement: up to `n` of the spec's requirements whose
/// formula a person wrote or accepted and that a form can state, most similar first
/// (shared content words of the texts, then shared variables the text names, then spec
/// order), each screened like an answer (a formula the screening rejects is never
/// shown).
pub fn similar_examples(
    spec: &Spec,
    checker: &mut Checker,
    prompts: &FormPrompts,
    text: &str,
    skip: &[String],
    n: usize,
) -> Result<String, PipelineError> {
    if n == 0 {
        return Ok(String::new());
    }
    let words = content_words(text);
    let mut scored: Vec<(usize, usize, &reqs::spec::Requirement, Form)> = Vec::new();
    for (pos, r) in spec.requirements.iter().enumerate() {
        if skip.contains(&r.id) || !r.reviewed() {
            continue;
        }
        let Some(f) = &r.formula else { continue };
        let Some(form) = form_of_term(spec, f) else {
            continue;
        };
        let shared = content_words(&r.text).intersection(&words).count();
        scored.push((shared, pos, r, form));
    }
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut out = String::new();
    let mut shown = 0;
    for (_, _, r, form) in scored {
        if shown == n {
            break;
        }
        let Some(f) = &r.formula else { continue };
        let findings = screen_formula(spec, checker, f, &r.text)?;
        if findings.iter().any(|x| x.rejects) {
            continue;
        }
        let rendered = prompts.example.render(&[
            ("requirement", r.text.as_str()),
            ("form", &form.to_json().to_string()),
        ])?;
        out.push_str(&rendered);
        shown += 1;
    }
    if !out.is_empty() {
        out.insert_str(0, "\nExamples:\n");
    }
    Ok(out)
}

/// One conversation (sample) of one requirement.
struct Conversation {
    messages: Vec<llm::Message>,
    /// The sample index (the cache tells samples apart by it).
    index: u32,
    repairs: usize,
    /// The answers refused so far (trimmed), to notice one given again.
    refused: Vec<String>,
}

/// A valid answer.
struct Valid {
    term: Term,
    form: Form,
    notes: Vec<crate::formalize::ScreenFinding>,
}

struct Item {
    /// Index into the `out` slice.
    idx: usize,
    /// The form's JSON schema over the variables the text talks about.
    schema: Value,
    prompt: String,
    current: Option<Conversation>,
    started: usize,
    valid: Vec<Valid>,
    done: bool,
}

/// The fewest agreeing answers that can decide a vote: one when one answer is asked
/// for, else a majority of the answers asked for (at least two), so that answers that
/// could not be used never let a minority decide.
fn needed(vote: &VoteOptions) -> usize {
    if vote.samples <= 1 {
        1
    } else {
        (vote.samples / 2 + 1).max(2)
    }
}

/// Can the outcome still change? Stop once the largest group holds `threshold` of the
/// valid answers even if every answer still to come is valid and disagrees.
fn decided(largest: usize, valid: usize, remaining: usize, vote: &VoteOptions) -> bool {
    largest >= needed(vote) && (largest as f64) >= vote.threshold * ((valid + remaining) as f64)
}

/// The largest group among the valid answers so far (by solver equivalence).
fn largest_group(checker: &mut Checker, valid: &[Valid]) -> Result<usize, PipelineError> {
    if valid.is_empty() {
        return Ok(0);
    }
    let terms: Vec<Term> = valid.iter().map(|v| v.term.clone()).collect();
    let p = checker.partition(&terms)?;
    Ok(p.classes.iter().map(|c| c.members.len()).max().unwrap_or(0))
}

/// The variables `text` talks about when the schema declares inputs and every one of
/// them is an input (or it talks about none): no formula of such a text passes the
/// screening (it must say what the system does, over variables the text names), so no
/// model is asked.
pub(crate) fn inputs_only<'s>(spec: &'s Spec, text: &str) -> Option<Vec<&'s str>> {
    let mentioned = crate::formalize::mentioned_variables(spec, text);
    (crate::form::declares_inputs(spec)
        && !mentioned
            .iter()
            .any(|v| crate::form::demandable(spec, &v.name)))
    .then(|| mentioned.iter().map(|v| &*v.name).collect())
}

/// Formalizes `out` (requirements of `spec`) by forms and votes. A requirement with an
/// accepted formula gets `formula`, `term`, `path = form` and its `vote`; one whose
/// answers disagree gets its `vote` and `flagged`; one with no valid form is left as it
/// was (for the SMT-LIB path).
pub(crate) fn formalize_by_forms(
    spec: &Spec,
    client: &Client,
    checker: &mut Checker,
    options: &FormalizeOptions,
    out: &mut [Formalized],
) -> Result<Option<String>, PipelineError> {
    let mut halted: Option<String> = None;
    let prompts = FormPrompts::builtin();
    let vote = options.vote;
    let mut items = form_items(spec, checker, options, &prompts, out)?;
    let samples = vote.samples.max(1);
    loop {
        // Every open requirement has one conversation running: start the next sample
        // where the last one ended.
        for it in items
            .iter_mut()
            .filter(|it| !it.done && it.current.is_none())
        {
            if it.started >= samples {
                it.done = true;
                continue;
            }
            it.current = Some(Conversation {
                messages: vec![llm::Message::user(it.prompt.clone())],
                index: it.started as u32,
                repairs: 0,
                refused: Vec::new(),
            });
            it.started += 1;
        }
        let open: Vec<usize> = (0..items.len())
            .filter(|&i| !items[i].done && items[i].current.is_some())
            .collect();
        if open.is_empty() {
            break;
        }
        if let Some(reason) = &halted {
            for it in items.iter_mut().filter(|it| !it.done) {
                it.current = None;
                it.done = true;
                out[it.idx].attempts.push(Attempt {
                    answer: String::new(),
                    error: Some(format!("not asked: {reason}")),
                });
            }
            break;
        }
        let requests: Vec<Request> = open
            .iter()
            .map(|&i| form_request(client, options, &items[i]))
            .collect();
        let answers = client.run_all("formalize-form", &requests);
        for (&i, answer) in open.iter().zip(answers) {
            let it = &mut items[i];
            let f = &mut out[it.idx];
            let text = f.text.clone();
            let outcome: Result<Valid, (String, String)> = match answer_json(answer) {
                Ok((shown, json)) => judge_form(spec, checker, shown, &json, &text)?,
                Err(e) => match answer_problem(&e) {
                    Some(p) => Err(p),
                    None => {
                        // The provider refused this request (this requirement stops
                        // here, the others go on) or failed for good (nothing more is
                        // asked; what was found is kept).
                        let reason = match crate::formalize::provider_failure(&e) {
                            crate::formalize::ProviderFailure::ThisRequest(r) => r,
                            crate::formalize::ProviderFailure::Everything(r) => {
                                halted.get_or_insert(r.clone());
                                r
                            }
                        };
                        f.attempts.push(Attempt {
                            answer: String::new(),
                            error: Some(reason),
                        });
                        it.current = None;
                        it.done = true;
                        continue;
                    }
                },
            };
            let conv = it.current.as_mut().expect("open");
            match outcome {
                Ok(v) => {
                    f.attempts.push(Attempt {
                        answer: v.form.to_json().to_string(),
                        error: None,
                    });
                    it.valid.push(v);
                    it.current = None;
                }
                Err((shown, problem)) => {
                    let again = conv.refused.contains(&shown.trim().to_string());
                    conv.refused.push(shown.trim().to_string());
                    f.attempts.push(Attempt {
                        answer: shown.clone(),
                        error: Some(if again {
                            format!("{problem} (the same answer as before: this sample stops)")
                        } else {
                            problem.clone()
                        }),
                    });
                    if again || conv.repairs >= options.max_retries {
                        it.current = None;
                    } else {
                        conv.repairs += 1;
                        let repair = prompts.repair.render(&[("problem", &problem)])?;
                        // Only the first turn and the latest exchange are kept, so that
                        // repair turns never outgrow the server's context.
                        conv.messages.truncate(1);
                        conv.messages.push(llm::Message::assistant(shown));
                        conv.messages.push(llm::Message::user(repair));
                    }
                }
            }
            if it.current.is_none() && !it.done {
                let largest = largest_group(checker, &it.valid)?;
                let remaining = samples - it.started;
                if decided(largest, it.valid.len(), remaining, &vote) || remaining == 0 {
                    it.done = true;
                }
            }
        }
    }
    settle_votes(checker, &vote, &items, out)?;
    Ok(halted)
}

/// The requirements to ask for forms, each with its prompt and the schema over the
/// variables its text names; a requirement whose text names inputs only (or nothing the
/// schema has) gets a "not asked" attempt instead.
fn form_items(
    spec: &Spec,
    checker: &mut Checker,
    options: &FormalizeOptions,
    prompts: &FormPrompts,
    out: &mut [Formalized],
) -> Result<Vec<Item>, PipelineError> {
    let asked: Vec<String> = out.iter().map(|f| f.id.clone()).collect();
    let mut items = Vec::new();
    for (idx, f) in out.iter_mut().enumerate() {
        if f.accepted() {
            // Read without a model (controlled English).
            continue;
        }
        f.provenance.prompt = prompts.one.id();
        let examples = similar_examples(spec, checker, prompts, &f.text, &asked, options.examples)?;
        // Only the variables the text talks about are offered (in the prompt and in
        // the enforced schema): a formula over any other is screened out anyway.
        if let Some(inputs) = inputs_only(spec, &f.text) {
            f.attempts.push(Attempt {
                answer: String::new(),
                error: Some(if inputs.is_empty() {
                    "not asked: the text talks about none of the schema's variables (by name, description, unit or value), so every formula of it would be screened out; name them in the text or write the formula by hand".to_string()
                } else {
                    format!(
                        "not asked: the text talks about inputs only ({}), none of the schema's outputs, so no formula of it could say what the system does; name the output in the text or write the formula by hand",
                        inputs.join(", ")
                    )
                }),
            });
            f.provenance.attempts = f.attempts.len();
            continue;
        }
        let mentioned: Vec<&str> = crate::formalize::mentioned_variables(spec, &f.text)
            .into_iter()
            .map(|v| &*v.name)
            .collect();
        let names: Vec<&str> = if mentioned.is_empty() {
            spec.variables.iter().map(|v| &*v.name).collect()
        } else {
            mentioned
        };
        let arithmetic = options.arithmetic && crate::form::offers_arithmetic(spec, &names);
        let prompt = prompts.one.render(&[
            (
                "schema",
                crate::form::schema_lines_for(spec, &names).as_str(),
            ),
            ("examples", examples.as_str()),
            ("requirement", f.text.as_str()),
            ("arithmetic", if arithmetic { ARITHMETIC } else { "" }),
        ])?;
        items.push(Item {
            idx,
            schema: crate::form::answer_schema_for(spec, &names, arithmetic),
            prompt,
            current: None,
            started: 0,
            valid: Vec::new(),
            done: false,
        });
    }
    Ok(items)
}

/// The request for the next turn of `item`'s running conversation.
fn form_request(client: &Client, options: &FormalizeOptions, item: &Item) -> Request {
    let c = item.current.as_ref().expect("open");
    // A repair turn is drawn warm like the later samples: at the first sample's
    // temperature 0 a small model mostly repeats what was refused.
    let temperature = if c.index == 0 && c.repairs == 0 {
        options.temperature
    } else {
        options.vote.temperature
    };
    let mut r = Request::new()
        .temperature(temperature)
        .sample(c.index)
        .schema("requirement_form", item.schema.clone());
    r.messages = c.messages.clone();
    crate::formalize::fit_context(
        client,
        &mut r.messages,
        options.max_tokens.map(|m| m.max(FORM_MAX_TOKENS)),
    );
    if let Some(m) = options.max_tokens {
        r = r.max_tokens(m.max(FORM_MAX_TOKENS));
    }
    r
}

/// A form read from an answer's JSON and its formula screened: the valid answer, or
/// (the excerpt shown, the problem) for a repair turn.
fn judge_form(
    spec: &Spec,
    checker: &mut Checker,
    shown: String,
    json: &Value,
    text: &str,
) -> Result<Result<Valid, (String, String)>, PipelineError> {
    Ok(match Form::from_json(spec, json) {
        Err(e) => Err((shown, e.to_string())),
        Ok(form) => match validate_screened(spec, checker, &form.smtlib(spec), text) {
            Ok((term, notes)) => Ok(Valid { term, form, notes }),
            Err(ValidateError::Invalid(e)) => Err((shown, e)),
            Err(ValidateError::Solver(e)) => return Err(e.into()),
        },
    })
}

/// The JSON of an answer with the excerpt shown back to the model. JSON that the
/// client's schema check refused is read here too: the form reader's message names the
/// field and what would be right, where the schema check can only say that no
/// alternative matched.
fn answer_json(answer: llm::Result<llm::Completion>) -> Result<(String, Value), llm::LlmError> {
    match answer {
        Ok(c) => match c.json.clone() {
            Some(j) => Ok((excerpt(c.text()), j)),
            None => match llm::jsonschema::parse_answer(c.text()) {
                Ok(j) => Ok((excerpt(c.text()), j)),
                Err(detail) => Err(llm::LlmError::Malformed {
                    detail,
                    text: c.text().to_string(),
                }),
            },
        },
        Err(llm::LlmError::Malformed { detail, text }) => {
            match llm::jsonschema::parse_answer(&text) {
                Ok(j) => Ok((excerpt(&text), j)),
                Err(_) => Err(llm::LlmError::Malformed { detail, text }),
            }
        }
        Err(e) => Err(e),
    }
}

/// Groups each requirement's valid forms by meaning: the largest group's formula when
/// it agrees enough ([`VoteOptions`]), otherwise the requirement is flagged; either way
/// its vote is recorded.
fn settle_votes(
    checker: &mut Checker,
    vote: &VoteOptions,
    items: &[Item],
    out: &mut [Formalized],
) -> Result<(), PipelineError> {
    for it in items {
        let f = &mut out[it.idx];
        f.provenance.attempts = f.attempts.len();
        if it.valid.is_empty() {
            continue;
        }
        let terms: Vec<Term> = it.valid.iter().map(|v| v.term.clone()).collect();
        let p = checker.partition(&terms)?;
        let mut classes: Vec<&reqs::equiv::Class> = p.classes.iter().collect();
        classes.sort_by_key(|c| std::cmp::Reverse(c.members.len()));
        let readings: Vec<Reading> = classes
            .iter()
            .map(|c| Reading {
                formula: c.formula.clone(),
                count: c.members.len(),
                form: it.valid[c.representative].form.to_json(),
            })
            .collect();
        let agreeing = readings.first().map_or(0, |r| r.count);
        let valid = it.valid.len();
        let v = Vote {
            samples: it.started,
            valid,
            agreeing,
            confidence: agreeing as f64 / valid as f64,
            readings,
        };
        if agreeing >= needed(vote) && (agreeing as f64) >= vote.threshold * valid as f64 {
            let winner = &it.valid[classes[0].representative];
            f.formula = Some(logic::print::term(&winner.term));
            f.term = Some(winner.term.clone());
            f.notes = winner.notes.clone();
            f.path = Some(Path::Form);
        } else {
            f.flagged = true;
        }
        f.vote = Some(v);
    }
    Ok(())
}

/// Token limit of a form answer: a form is longer than a term (its JSON keys).
pub const FORM_MAX_TOKENS: u32 = 384;

#[cfg(test)]
mod tests {
    use super::*;
    use logic::SourceFile;

    fn spec() -> Spec {
        reqs::parse_spec(SourceFile::new(
            "t.toml",
            "[spec]\nname = \"t\"\n[[enums]]\nname = \"Mode\"\nvalues = [\"Stopped\", \"KVO\"]\n\
             [[variables]]\nname = \"mode\"\nsort = \"Mode\"\n\
             [[variables]]\nname = \"rate\"\nsort = \"Real\"\n\
             [[variables]]\nname = \"max_rate\"\nsort = \"Real\"\n\
             [[variables]]\nname = \"door_open\"\nsort = \"Bool\"\n\
             [[variables]]\nname = \"alarm\"\nsort = \"Bool\"\n",
        ))
        .unwrap()
    }

    fn term(s: &Spec, text: &str) -> Term {
        crate::formalize::parse_answer(s, text).unwrap()
    }

    #[test]
    fn forms_of_terms_give_back_the_same_formula() {
        let s = spec();
        for f in [
            "(=> door_open (= mode Stopped))",
            "(=> (and door_open (> rate 5.5)) (and alarm (not (= mode KVO))))",
            "(<= rate max_rate)",
            "(not (and door_open alarm))",
            "(and (=> door_open alarm) (=> (< rate 1.0) (= mode KVO)))",
        ] {
            let t = term(&s, f);
            let form = form_of_term(&s, &t).unwrap_or_else(|| panic!("{f}"));
            assert_eq!(term(&s, &form.smtlib(&s)), t, "{f}");
        }
        // A number on the left is turned around.
        let t = term(&s, "(=> (or door_open (>= 3.0 rate)) (not alarm))");
        assert_eq!(
            form_of_term(&s, &t).unwrap().smtlib(&s),
            "(=> (or door_open (<= rate 3.0)) (not alarm))"
        );
        // Nested structure has no form.
        let t = term(
            &s,
            "(=> door_open (or alarm (and (> rate 1.0) (= mode KVO))))",
        );
        assert!(form_of_term(&s, &t).is_none());
    }

    #[test]
    fn a_vote_stops_when_nothing_can_change_it() {
        let v = VoteOptions {
            samples: 5,
            threshold: 0.6,
            temperature: 0.7,
        };
        // Three agreeing of three valid with two to come: 3 >= 0.6 * 5.
        assert!(decided(3, 3, 2, &v));
        // Two of two with three to come: 2 < 0.6 * 5.
        assert!(!decided(2, 2, 3, &v));
        // All drawn, 3 of 4 valid: a majority of the five asked for, 3 >= 0.6 * 4.
        assert!(decided(3, 4, 0, &v));
        // Two of two valid (three answers unusable) is not a majority of five.
        assert!(!decided(2, 2, 0, &v));
        // One of one never decides alone when several samples are asked for.
        assert!(!decided(1, 1, 0, &v));
        let one = VoteOptions { samples: 1, ..v };
        assert!(decided(1, 1, 0, &one));
    }
}

//! Timed requirements and the language model (docs/timed.md, "Formalizing timed
//! requirements with a model").
//!
//! In a spec with a `[time]` table the model formalizes a requirement as a *pattern*:
//! a JSON object with exactly the keys of a `[requirements.timed]` table (a JSON schema
//! goes with the request, so providers with structured output enforce it), never as a
//! temporal formula. Every answer is read by `reqs::timed::answer::parse_pattern`, the
//! spec reader's own pattern checks (unknown keys, two triggers, durations that are not
//! whole ticks, formulas over one state of the schema), and a failed answer goes back to
//! the model with the exact error, as in [`crate::formalize`].
//!
//! Ambiguity over time: a requirement is formalized several times, the valid patterns
//! are grouped by trace equivalence up to a bound ([`reqs::timed::equiv`], the solver
//! deciding), and two classes are told apart by a [`Question`] derived from how the
//! patterns differ (edge or level trigger, a bound included or not, how long a
//! condition must have held, what happens when the scope ends) with the distinguishing
//! trace as a timing table. [`clarify_timed`] is the clarification loop on such
//! questions.

use crate::ambiguity::{
    read_samples, sample_requests, screen_run, AmbiguityOptions, Screened, Screens, Texts,
};
use crate::clarify::engine::{self, Readings};
use crate::clarify::{ClarifyOptions, Proposal};
use crate::formalize::{
    batch_rounds, excerpt, reading_notes, repair_rounds, request, requirement_list, schema_info,
    unmentioned_variables, FormalizeOptions, Formalized, PipelineError, Refused, Turns,
    ValidateError,
};
use llm::{Client, Request, Template};
use logic::Term;
use reqs::equiv::Checker;
use reqs::timed::answer::{keys_of, parse_pattern, KeyValue, FLAG_KEYS, KEYS};
use reqs::timed::audit::Timeline;
use reqs::timed::equiv::{equivalent, Difference, Side, TraceEquivalence};
use reqs::timed::{Pattern, Scope, TimeBase, Timing, Trigger};
use reqs::Spec;
use serde::Serialize;
use serde_json::{json, Value};
use solver::SolverConfig;
use std::fmt::Write as _;

/// The prompt templates of the timed path (built in; see `prompts/`).
#[derive(Debug, Clone)]
pub struct TimedPrompts {
    /// One requirement → one pattern as JSON.
    pub one: Template,
    /// The repair turn after an unusable answer.
    pub repair: Template,
    /// One worked example inside `examples`.
    pub example: Template,
    /// The clarification turn: the readings and the questions of time.
    pub clarify: Template,
    /// Batch mode: every requirement → a JSON object of id → pattern.
    pub batch: Template,
    /// The repair turn of batch mode.
    pub batch_repair: Template,
}

impl TimedPrompts {
    /// The templates shipped in `prompts/`, compiled in.
    pub fn builtin() -> TimedPrompts {
        let t = |name: &str, text: &str| Template::parse(name, text).expect("built-in template");
        TimedPrompts {
            one: t(
                "formalize-timed",
                include_str!("../../../prompts/formalize-timed.txt"),
            ),
            repair: t(
                "formalize-timed-repair",
                include_str!("../../../prompts/formalize-timed-repair.txt"),
            ),
            example: t(
                "formalize-timed-example",
                include_str!("../../../prompts/formalize-timed-example.txt"),
            ),
            clarify: t(
                "clarify-timed",
                include_str!("../../../prompts/clarify-timed.txt"),
            ),
            batch: t(
                "formalize-timed-batch",
                include_str!("../../../prompts/formalize-timed-batch.txt"),
            ),
            batch_repair: t(
                "formalize-timed-batch-repair",
                include_str!("../../../prompts/formalize-timed-batch-repair.txt"),
            ),
        }
    }
}

/// The JSON schema of a pattern answer: every key of `[requirements.timed]`, each a
/// string (a formula or a duration) or `true` (`initially`, `next`), `null` for a key
/// not used. Every key is required (`null` when not used) so that providers with a
/// strict structured-output mode accept the schema; an answer that leaves a key out is
/// refused by the client's own schema check and goes to the repair turn like any other.
pub fn answer_schema() -> Value {
    let props: serde_json::Map<String, Value> = KEYS
        .iter()
        .map(|k| {
            let t = if FLAG_KEYS.contains(k) {
                "boolean"
            } else {
                "string"
            };
            (k.to_string(), json!({"type": [t, "null"]}))
        })
        .collect();
    json!({
        "type": "object",
        "properties": props,
        "required": KEYS,
        "additionalProperties": false
    })
}

/// The keys of a JSON answer, in the order of [`KEYS`] (unknown keys after them):
/// strings and Booleans as they are, `null` left out. The schema asks for every key,
/// so models that do not use structured output write the unused ones as `""`,
/// `"null"`, `"none"` or `false` (seen with a small local model): those are read as
/// `null` too, since none of them can be a formula or a duration. Any other value is
/// an error in words for the model.
pub fn answer_keys(v: &Value) -> Result<Vec<(String, KeyValue)>, String> {
    let Some(obj) = v.as_object() else {
        return Err("the answer is not a JSON object of pattern keys".into());
    };
    let mut names: Vec<&String> = obj.keys().collect();
    names.sort_by_key(|k| KEYS.iter().position(|x| x == k).unwrap_or(KEYS.len()));
    let mut out = Vec::new();
    for k in names {
        match &obj[k] {
            Value::Null | Value::Bool(false) => {}
            Value::String(s)
                if s.trim().is_empty()
                    || s.trim().eq_ignore_ascii_case("null")
                    || s.trim().eq_ignore_ascii_case("none") => {}
            Value::String(s) => out.push((k.clone(), KeyValue::Text(s.clone()))),
            Value::Bool(b) => out.push((k.clone(), KeyValue::Flag(*b))),
            other => {
                return Err(format!(
                    "`{k}` is {other}: a key's value is a string (a formula, or a duration such as \"5 s\"), true (initially, next) or null"
                ))
            }
        }
    }
    Ok(out)
}

/// The pattern of an answer as a JSON object (the non-null keys only).
pub fn keys_json(keys: &[(String, KeyValue)]) -> Value {
    let m: serde_json::Map<String, Value> = keys
        .iter()
        .map(|(k, v)| {
            (
                k.clone(),
                match v {
                    KeyValue::Text(s) => Value::from(s.clone()),
                    KeyValue::Flag(b) => Value::from(*b),
                },
            )
        })
        .collect();
    Value::Object(m)
}

/// A pattern as the JSON object of its keys (formulas printed by vera).
pub fn pattern_json(p: &Pattern, tb: &TimeBase) -> Value {
    keys_json(&keys_of(p, tb))
}

/// Operators of temporal logics a model may write inside a formula.
const TEMPORAL: &[&str] = &[
    "always",
    "eventually",
    "globally",
    "finally",
    "next",
    "until",
    "prev",
    "previous",
    "once",
    "historically",
    "since",
    "G",
    "F",
    "X",
    "U",
];

/// Reads a JSON answer into a pattern with the spec reader's checks. The error is the
/// exact text returned to the model.
pub fn parse_timed_answer(spec: &Spec, v: &Value) -> Result<Pattern, String> {
    let keys = answer_keys(v)?;
    parse_pattern(spec, &keys).map_err(|mut d| {
        crate::feedback::rewrite(spec, &mut d);
        let mut temporal = false;
        for l in &mut d.0 {
            if TEMPORAL
                .iter()
                .any(|op| l.message == format!("unknown function `{op}`"))
            {
                temporal = true;
                l.hint = Some("a formula has no temporal operators (see below)".into());
            }
        }
        let mut text = d.to_string().trim_end().to_string();
        if temporal {
            text.push_str(
                "\nA formula describes one state: there are no temporal operators. Say time with the keys instead: held_for or within_last for how long a condition has held, next, within, for, not_before, until or before for when the response is due, scope_* for where the requirement applies.",
            );
        }
        text
    })
}

/// Checks a parsed pattern against the domain: a trigger, scope or response that no
/// state allows, or a formula about a variable the text does not talk about, is an
/// unusable answer (the message is the feedback).
fn screen_pattern(
    spec: &Spec,
    checker: &mut Checker,
    p: &Pattern,
    text: &str,
) -> Result<Option<String>, solver::SolverError> {
    let conditions: Vec<(&str, &Term)> = {
        let mut v: Vec<(&str, &Term)> = Vec::new();
        match &p.scope {
            Scope::Globally => {}
            Scope::While(c) | Scope::After(c) | Scope::Before(c) => v.push(("scope", c)),
            Scope::AfterUntil(a, _) => v.push(("scope", a)),
        }
        match &p.trigger {
            Trigger::Level(c)
            | Trigger::Edge(c)
            | Trigger::HeldFor(c, _)
            | Trigger::WithinLast(c, _) => v.push(("trigger", c)),
            Trigger::Always | Trigger::Initially => {}
        }
        v
    };
    for (what, c) in conditions {
        if checker.satisfiable(c)? == Some(false) {
            return Ok(Some(format!(
                "the {what} condition `{}` contradicts the domain constraints and variable bounds: the requirement would never apply",
                logic::print::term(c)
            )));
        }
    }
    if p.response != Term::Bool(false) && checker.satisfiable(&p.response)? == Some(false) {
        return Ok(Some(format!(
            "the response `{}` contradicts the domain constraints and variable bounds: no state satisfies it",
            logic::print::term(&p.response)
        )));
    }
    let mut unmentioned: Vec<String> = Vec::new();
    for t in p.terms() {
        for v in unmentioned_variables(spec, t, text) {
            if !unmentioned.contains(&v) {
                unmentioned.push(v);
            }
        }
    }
    if !unmentioned.is_empty() {
        return Ok(Some(format!(
            "the pattern mentions {}, which the requirement text does not talk about (by name, description, unit or enumeration value): formalize only what the text says",
            unmentioned.join(", ")
        )));
    }
    Ok(None)
}

/// Reads a JSON answer into a pattern ([`parse_timed_answer`]) and screens it against
/// the domain and the requirement's `text`.
fn validate_timed(
    spec: &Spec,
    checker: &mut Checker,
    v: &Value,
    text: &str,
) -> Result<Pattern, ValidateError> {
    let p = parse_timed_answer(spec, v).map_err(ValidateError::Invalid)?;
    match screen_pattern(spec, checker, &p, text) {
        Ok(None) => Ok(p),
        Ok(Some(why)) => Err(ValidateError::Invalid(why)),
        Err(e) => Err(ValidateError::Solver(e)),
    }
}

/// The time base in words for the prompt: the tick and the named durations.
fn time_lines(tb: &TimeBase) -> (String, String) {
    let mut d = String::new();
    if !tb.durations.is_empty() {
        d.push_str("\nNamed durations (write the name as the duration):");
        for (n, t) in &tb.durations {
            let _ = write!(d, "\n- {n} = {}", tb.show(*t));
        }
    }
    (tb.tick_text.clone(), d)
}

/// Worked examples: up to `n` timed requirements of the spec not being formalized now.
/// (A spec file does not record who wrote a pattern: every pattern in it counts as a
/// person's.)
pub fn timed_examples(spec: &Spec, prompts: &TimedPrompts, skip: &[String], n: usize) -> String {
    let Some(tb) = &spec.time else {
        return String::new();
    };
    let mut out = String::new();
    for r in spec
        .requirements
        .iter()
        .filter(|r| !skip.contains(&r.id) && r.origin != reqs::spec::Origin::Model)
        .filter_map(|r| r.timed.as_ref().map(|p| (r, p)))
        .take(n)
    {
        let pattern = pattern_json(r.1, tb).to_string();
        if let Ok(s) = prompts
            .example
            .render(&[("requirement", &r.0.text), ("pattern", &pattern)])
        {
            out.push_str(&s);
        }
    }
    if !out.is_empty() {
        out.insert_str(
            0,
            "\nExamples from this specification (the keys not shown are null):\n",
        );
    }
    out
}

/// The prompt of one requirement.
pub fn timed_prompt(
    spec: &Spec,
    prompts: &TimedPrompts,
    examples: &str,
    text: &str,
) -> Result<String, PipelineError> {
    render_timed(
        spec,
        &prompts.one,
        &[("examples", examples), ("requirement", text)],
    )
}

/// A formalization prompt of the timed path: the tick, the named durations and the
/// schema with its reading notes, then `rest` (the worked examples and what to
/// formalize).
fn render_timed(
    spec: &Spec,
    template: &Template,
    rest: &[(&str, &str)],
) -> Result<String, PipelineError> {
    let (tick, durations) = time_lines(time_base(spec)?);
    let schema = schema_info(spec).render() + &reading_notes(spec);
    let mut vars = vec![
        ("tick", tick.as_str()),
        ("durations", durations.as_str()),
        ("schema", schema.as_str()),
    ];
    vars.extend_from_slice(rest);
    Ok(template.render(&vars)?)
}

/// The time base of a timed spec; an input error when the spec has none.
fn time_base(spec: &Spec) -> Result<&TimeBase, PipelineError> {
    spec.time.as_ref().ok_or_else(|| {
        PipelineError::Input("the spec has no [time] table: its requirements are not timed".into())
    })
}

/// The worked examples of a formalization run over `out`: none of them one of its own
/// requirements.
fn run_examples(
    spec: &Spec,
    prompts: &TimedPrompts,
    out: &[Formalized],
    options: &FormalizeOptions,
) -> String {
    let skip: Vec<String> = out.iter().map(|f| f.id.clone()).collect();
    timed_examples(spec, prompts, &skip, options.examples)
}

/// A request for one pattern answer: the conversation, the JSON schema, the options'
/// temperature and token limit.
fn timed_request(messages: &[llm::Message], options: &FormalizeOptions) -> Request {
    let mut o = options.clone();
    // A pattern is a JSON object of up to 16 short keys: more room than one term.
    o.max_tokens = options.max_tokens.map(|m| m.max(512));
    request(messages, &o, None).schema("timed_pattern", answer_schema())
}

/// The timed path of [`crate::formalize::formalize`]: one request per requirement with
/// the pattern schema, every answer read by the spec reader's pattern checks and
/// screened against the domain; an unusable answer goes back with the exact error, up
/// to `max_retries` times. A requirement that still fails keeps its attempts and no
/// pattern: it is reported, never dropped. Gives back why the run stopped when the
/// provider failed (what was formalized before is kept).
pub fn formalize_timed(
    spec: &Spec,
    client: &Client,
    checker: &mut Checker,
    options: &FormalizeOptions,
    prompts: &TimedPrompts,
    out: &mut [Formalized],
) -> Result<Option<String>, PipelineError> {
    let tb = time_base(spec)?;
    let examples = run_examples(spec, prompts, out, options);
    let mut firsts = Vec::new();
    for f in out.iter() {
        firsts.push(timed_prompt(spec, prompts, &examples, &f.text)?);
    }
    let turns = Turns {
        label: "formalize.timed",
        max_retries: options.max_retries,
        repair: &prompts.repair,
        again: "This is the same answer as before, which was already rejected. Write a different pattern: read the requirement again, clause by clause, and choose the keys that say when it applies and when its response is due.",
        trim_problems: true,
    };
    // The requirements still open after the last round keep their last rejected
    // attempt, even when the provider failed in that round.
    let (halted, _left) = repair_rounds(
        client,
        &turns,
        firsts,
        out,
        |messages| timed_request(messages, options),
        |c, f| {
            let json = c.json.clone().unwrap_or(Value::Null);
            match validate_timed(spec, checker, &json, &f.text) {
                Ok(p) => {
                    keep_pattern(f, p, tb);
                    Ok(Ok(()))
                }
                Err(ValidateError::Invalid(error)) => Ok(Err(Refused {
                    error,
                    raw: excerpt(c.text()).trim().to_string(),
                })),
                Err(ValidateError::Solver(e)) => Err(e.into()),
            }
        },
    )?;
    Ok(halted)
}

/// Keeps an accepted pattern in the entry, with its JSON object.
fn keep_pattern(f: &mut Formalized, p: Pattern, tb: &TimeBase) {
    f.pattern = Some(pattern_json(&p, tb));
    f.timed = Some(p);
}

/// Batch mode of the timed path: every requirement in one request whose answer maps ids
/// to pattern objects (a schema with one pattern per id goes with it); the patterns
/// that fail go back in one repair turn listing each id's exact error, up to
/// `max_retries` times. A requirement that still fails is reported, never dropped.
/// Gives back why the run stopped when the provider failed.
pub fn formalize_timed_batch(
    spec: &Spec,
    client: &Client,
    checker: &mut Checker,
    options: &FormalizeOptions,
    prompts: &TimedPrompts,
    out: &mut [Formalized],
) -> Result<Option<String>, PipelineError> {
    let tb = time_base(spec)?;
    let examples = run_examples(spec, prompts, out, options);
    let user = render_timed(
        spec,
        &prompts.batch,
        &[
            ("examples", &examples),
            ("requirements", &requirement_list(out)),
        ],
    )?;
    batch_rounds(
        client,
        "formalize.timed",
        options.max_retries,
        &prompts.batch_repair,
        user,
        out,
        |f| f.timed.is_none(),
        |messages, ids| {
            let props: serde_json::Map<String, Value> = ids
                .iter()
                .map(|id| (id.to_string(), answer_schema()))
                .collect();
            let object = json!({
                "type": "object",
                "properties": props,
                "required": ids,
                "additionalProperties": false
            });
            let mut o = options.clone();
            o.max_tokens = options
                .max_tokens
                .map(|m| m.max(512).saturating_mul(ids.len().min(64) as u32));
            request(messages, &o, None).schema("timed_patterns", object)
        },
        |json, f| {
            let v = json.get(&f.id).cloned().unwrap_or(Value::Null);
            let text = f.text.clone();
            match validate_timed(spec, checker, &v, &text) {
                Ok(p) => {
                    keep_pattern(f, p, tb);
                    Ok((excerpt(&v.to_string()), None))
                }
                Err(ValidateError::Invalid(e)) => Ok((excerpt(&v.to_string()), Some(e))),
                Err(ValidateError::Solver(e)) => Err(e.into()),
            }
        },
    )
}

// ------------------------------------------------------------------ ambiguity over time

/// One sample of a timed screening.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TimedSample {
    /// Its sample index.
    pub index: u32,
    /// The answer (shortened).
    pub answer: String,
    /// The pattern as vera read it, when valid.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pattern: Option<Value>,
    /// The pattern in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reading: Option<String>,
    /// Why it is not valid.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Its class label, when valid.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
}

/// One class of trace-equivalent patterns.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TimedClass {
    /// `A`, `B`, ...
    pub label: String,
    /// The representative pattern (the first sample of the class).
    pub pattern: Value,
    /// It in words.
    pub reading: String,
    /// Sample indices in the class.
    pub members: Vec<u32>,
    /// The representative.
    #[serde(skip)]
    pub representative: Pattern,
}

/// The question that tells two readings apart.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Question {
    /// The two class labels.
    pub between: [String; 2],
    /// What differs, from the patterns' structure: `edge-or-level`, `strict-bound`,
    /// `held-for`, `duration`, `timing`, `scope`, `scope-end`, `trigger`, `response`.
    pub kinds: Vec<String>,
    /// The question in words.
    pub question: String,
    /// The two readings in words, in the order of `between`.
    pub readings: [String; 2],
    /// The label of the reading the trace satisfies.
    pub holds: String,
    /// When the other reading is broken on the trace (physical time).
    pub broken_at: String,
    /// The distinguishing trace.
    pub timeline: Timeline,
    /// The trace as a timing table (one row per interval of physical time).
    pub table: String,
}

/// The screening of one timed requirement.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TimedScreening {
    /// The requirement id.
    pub id: String,
    /// The text screened.
    pub text: String,
    /// The samples.
    pub samples: Vec<TimedSample>,
    /// Valid samples.
    pub valid: usize,
    /// The last step of the traces the patterns were compared on.
    pub k: usize,
    /// Classes of the valid samples.
    pub classes: Vec<TimedClass>,
    /// More than one class.
    pub flagged: bool,
    /// Fewer than two valid samples: nothing was compared.
    pub could_not_screen: bool,
    /// Pairs of classes the solver could not compare (kept apart: unknown is never
    /// equivalence).
    pub undecided: Vec<[String; 2]>,
    /// For each class after the first, the question that tells it from the first.
    pub questions: Vec<Question>,
}

/// Totals of a timed screening run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TimedSummary {
    /// Requirements screened.
    pub requirements: usize,
    /// Flagged: more than one class.
    pub flagged: usize,
    /// Fewer than two valid samples.
    pub could_not_screen: usize,
    /// Samples that were not valid patterns.
    pub invalid_samples: usize,
    /// Pairs of classes left undecided by the solver.
    pub undecided: usize,
}

/// The result of [`screen_timed`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TimedAmbiguityReport {
    /// Per requirement, in spec order.
    pub requirements: Vec<TimedScreening>,
    /// Totals.
    pub summary: TimedSummary,
}

fn summarize(items: &[&TimedScreening]) -> TimedSummary {
    TimedSummary {
        requirements: items.len(),
        flagged: items.iter().filter(|s| s.flagged).count(),
        could_not_screen: items.iter().filter(|s| s.could_not_screen).count(),
        invalid_samples: items.iter().map(|s| s.samples.len() - s.valid).sum(),
        undecided: items.iter().map(|s| s.undecided.len()).sum(),
    }
}

fn label(i: usize) -> String {
    let mut s = String::new();
    let mut n = i;
    loop {
        s.insert(0, (b'A' + (n % 26) as u8) as char);
        if n < 26 {
            break;
        }
        n = n / 26 - 1;
    }
    s
}

/// Screens texts (id, text) of a timed spec: `samples` pattern answers each at the
/// options' temperature, the valid ones grouped by trace equivalence (one bound per
/// requirement: twice the longest valid pattern plus two steps), and a question for
/// each class after the first.
pub fn screen_timed_texts(
    spec: &Spec,
    client: &Client,
    checker: &mut Checker,
    solver: &SolverConfig,
    items: &[(String, String)],
    options: &AmbiguityOptions,
) -> Result<Vec<TimedScreening>, PipelineError> {
    let tb = time_base(spec)?;
    let prompts = TimedPrompts::builtin();
    let skip: Vec<String> = items.iter().map(|(i, _)| i.clone()).collect();
    let examples = timed_examples(spec, &prompts, &skip, options.examples);
    let mut users = Vec::new();
    for (_, text) in items {
        users.push(timed_prompt(spec, &prompts, &examples, text)?);
    }
    let reqs = sample_requests(&users, options, |r| {
        let r = r.schema("timed_pattern", answer_schema());
        match options.max_tokens {
            Some(m) => r.max_tokens(m.max(512)),
            None => r,
        }
    });
    let mut answers = client.run_all("ambiguity.timed", &reqs).into_iter();
    let mut out = Vec::new();
    for (id, text) in items {
        let mut samples = Vec::new();
        let mut valid: Vec<(usize, Pattern)> = Vec::new();
        let read = read_samples(&mut answers, options.samples, |c| {
            let json = c.json.clone().unwrap_or(Value::Null);
            validate_timed(spec, checker, &json, text)
        })?;
        for (index, answer, result) in read {
            match result {
                Ok(p) => {
                    samples.push(TimedSample {
                        index,
                        answer,
                        pattern: Some(pattern_json(&p, tb)),
                        reading: Some(p.describe(tb)),
                        error: None,
                        class: None,
                    });
                    valid.push((samples.len() - 1, p));
                }
                Err(e) => samples.push(TimedSample {
                    index,
                    answer,
                    pattern: None,
                    reading: None,
                    error: Some(e),
                    class: None,
                }),
            }
        }
        let longest = valid.iter().map(|(_, p)| p.longest()).max().unwrap_or(0) as usize;
        let k = 2 * longest + 2;
        let mut classes: Vec<TimedClass> = Vec::new();
        let mut undecided: Vec<[String; 2]> = Vec::new();
        // The difference of each class from the first, kept for its question.
        let mut to_first: Vec<Option<Difference>> = Vec::new();
        for (s, p) in &valid {
            let mut joined = None;
            let mut first_diff = None;
            let mut unknown_with = Vec::new();
            for (c, class) in classes.iter().enumerate() {
                match equivalent(spec, &class.representative, p, solver, Some(k))? {
                    TraceEquivalence::Equivalent { .. } => {
                        joined = Some(c);
                        break;
                    }
                    TraceEquivalence::Different(d) => {
                        if c == 0 {
                            first_diff = Some(d);
                        }
                    }
                    TraceEquivalence::Unknown { .. } => unknown_with.push(c),
                }
            }
            let index = samples[*s].index;
            match joined {
                Some(c) => {
                    classes[c].members.push(index);
                    samples[*s].class = Some(classes[c].label.clone());
                }
                None => {
                    let l = label(classes.len());
                    for c in unknown_with {
                        undecided.push([classes[c].label.clone(), l.clone()]);
                    }
                    samples[*s].class = Some(l.clone());
                    classes.push(TimedClass {
                        label: l,
                        pattern: pattern_json(p, tb),
                        reading: p.describe(tb),
                        members: vec![index],
                        representative: p.clone(),
                    });
                    to_first.push(first_diff);
                }
            }
        }
        let mut questions = Vec::new();
        for (j, d) in to_first.iter().enumerate().skip(1) {
            if let Some(d) = d {
                questions.push(question(tb, &classes[0], &classes[j], d));
            }
        }
        out.push(TimedScreening {
            id: id.clone(),
            text: text.clone(),
            valid: valid.len(),
            k,
            flagged: classes.len() > 1,
            could_not_screen: valid.len() < 2,
            classes,
            undecided,
            questions,
            samples,
        });
    }
    Ok(out)
}

/// Screens the requirements of a timed spec (or those in `options.only`).
pub fn screen_timed(
    spec: &Spec,
    client: &Client,
    solver: &SolverConfig,
    options: &AmbiguityOptions,
) -> Result<TimedAmbiguityReport, PipelineError> {
    screen_run::<Patterns>(&Texts {
        spec,
        client,
        solver,
        options,
    })
}

impl Screened for TimedScreening {
    fn id(&self) -> &str {
        &self.id
    }
    fn text(&self) -> &str {
        &self.text
    }
    fn flagged(&self) -> bool {
        self.flagged
    }
    fn classes(&self) -> usize {
        self.classes.len()
    }
    fn valid(&self) -> usize {
        self.valid
    }
    fn samples(&self) -> usize {
        self.samples.len()
    }
    fn could_not_screen(&self) -> bool {
        self.could_not_screen
    }
}

/// Patterns over traces: the timed screening (the worked examples of a screening skip
/// the texts it screens).
struct Patterns;

impl Screens for Patterns {
    type Screening = TimedScreening;
    type Report = TimedAmbiguityReport;

    fn screenings(report: &TimedAmbiguityReport) -> &[TimedScreening] {
        &report.requirements
    }

    fn report(requirements: Vec<TimedScreening>) -> TimedAmbiguityReport {
        let summary = summarize(&requirements.iter().collect::<Vec<_>>());
        TimedAmbiguityReport {
            requirements,
            summary,
        }
    }

    fn screen(
        cx: &Texts,
        checker: &mut Checker,
        items: &[(String, String)],
        _skip: &[String],
    ) -> Result<Vec<TimedScreening>, PipelineError> {
        screen_timed_texts(cx.spec, cx.client, checker, cx.solver, items, cx.options)
    }
}

// ------------------------------------------------------------------ questions

fn show(t: &Term) -> String {
    logic::print::term(t)
}

/// The condition of a trigger, when it has one.
fn condition(g: &Trigger) -> Option<&Term> {
    match g {
        Trigger::Level(c)
        | Trigger::Edge(c)
        | Trigger::HeldFor(c, _)
        | Trigger::WithinLast(c, _) => Some(c),
        Trigger::Always | Trigger::Initially => None,
    }
}

fn trigger_words(g: &Trigger, tb: &TimeBase) -> String {
    match g {
        Trigger::Always => "at every moment".into(),
        Trigger::Level(c) => format!("whenever {} holds", show(c)),
        Trigger::Edge(c) => format!("once {} becomes true", show(c)),
        Trigger::Initially => "at the start only".into(),
        Trigger::HeldFor(c, d) => format!("once {} has held for {}", show(c), tb.show(*d)),
        Trigger::WithinLast(c, d) => {
            format!("whenever {} held within the last {}", show(c), tb.show(*d))
        }
    }
}

fn timing_words(t: &Timing, tb: &TimeBase) -> String {
    match t {
        Timing::Immediately => "at that same moment".into(),
        Timing::Next => format!("one step ({}) later", tb.show(1)),
        Timing::Within(d) => format!(
            "within {} (a response exactly {} later still counts)",
            tb.show(*d),
            tb.show(*d)
        ),
        Timing::For(d) => format!("for {} from then on", tb.show(*d)),
        Timing::NotBefore(d) => format!("not before {} have passed", tb.show(*d)),
        Timing::Until(c) => format!("until {} holds", show(c)),
        Timing::Before(c) => format!("before {} next holds", show(c)),
    }
}

fn scope_words(s: &Scope) -> String {
    match s {
        Scope::Globally => "at all times".into(),
        Scope::While(c) => format!("only while {} holds", show(c)),
        Scope::After(c) => format!("from the first time {} holds on, for ever", show(c)),
        Scope::AfterUntil(a, b) => format!("from when {} holds until {} holds", show(a), show(b)),
        Scope::Before(c) => format!("only before {} first holds", show(c)),
    }
}

/// The condition that ends a scope, for the scopes that end.
fn scope_end(s: &Scope) -> Option<Term> {
    match s {
        Scope::While(c) => Some(Term::not(c.clone())),
        Scope::AfterUntil(_, u) => Some(u.clone()),
        Scope::Before(f) => Some(f.clone()),
        Scope::Globally | Scope::After(_) => None,
    }
}

/// `t` is `(or r end)`, in either order.
fn or_of(t: &Term, r: &Term, end: &Term) -> bool {
    let same = |x: &Term, y: &Term| show(x) == show(y);
    let is_end = |x: &Term| same(x, end);
    match t {
        Term::App(logic::Op::Or, args) if args.len() == 2 => {
            (same(&args[0], r) && is_end(&args[1])) || (same(&args[1], r) && is_end(&args[0]))
        }
        _ => false,
    }
}

/// What tells two patterns apart, from their structure: the kinds and the question in
/// words.
pub fn differences(a: &Pattern, b: &Pattern, tb: &TimeBase) -> (Vec<String>, Vec<String>) {
    let mut q = Questions::default();
    if a.trigger != b.trigger {
        trigger_question(&a.trigger, &b.trigger, tb, &mut q);
    }
    if a.timing != b.timing {
        timing_question(a, b, tb, &mut q);
    }
    if a.scope != b.scope {
        scope_question(a, b, &mut q);
    }
    response_question(a, b, &mut q);
    if q.parts.is_empty() {
        q.ask("other", "Which of the two readings is meant?".into());
    }
    (q.kinds, q.parts)
}

/// The questions that tell two readings apart, and their kinds (each listed once).
#[derive(Default)]
struct Questions {
    kinds: Vec<String>,
    parts: Vec<String>,
}

impl Questions {
    /// Adds a question of kind `k`, listing the kind unless it already is.
    fn ask(&mut self, k: &str, part: String) {
        if !self.kinds.iter().any(|x| x == k) {
            self.kinds.push(k.to_string());
        }
        self.parts.push(part);
    }

    /// Adds the question about two different durations (ticks): about the end of the
    /// bound (`strict`, given the shorter and the longer) when they are one step apart,
    /// else which of the two (`which`).
    fn durations(
        &mut self,
        (x, y): (u64, u64),
        strict: impl FnOnce(u64, u64) -> String,
        which: impl FnOnce(u64, u64) -> String,
    ) {
        let (lo, hi) = (x.min(y), x.max(y));
        if hi - lo == 1 {
            self.ask("strict-bound", strict(lo, hi));
        } else {
            self.ask("duration", which(lo, hi));
        }
    }
}

/// The question about two different triggers.
fn trigger_question(x: &Trigger, y: &Trigger, tb: &TimeBase, q: &mut Questions) {
    let same_condition = condition(x).is_some() && condition(x) == condition(y);
    let c = condition(x).map(show).unwrap_or_default();
    match (x, y) {
        (Trigger::Edge(_), Trigger::Level(_)) | (Trigger::Level(_), Trigger::Edge(_))
            if same_condition =>
        {
            q.ask("edge-or-level", format!(
                "Does the requirement apply once, at the moment {c} becomes true (\"once {c} becomes true\"), or at every moment while {c} holds (\"whenever {c} holds\"), so again at each later step at which {c} is still true?"
            ));
        }
        (Trigger::HeldFor(_, x), Trigger::HeldFor(_, y)) if same_condition => {
            q.durations(
                (*x, *y),
                |lo, hi| format!(
                    "Does the requirement apply as soon as {c} has held for {} (\"for at least {}\"), or only once it has held for more than {} (\"for more than {}\", that is {})?",
                    tb.show(lo), tb.show(lo), tb.show(lo), tb.show(lo), tb.show(hi)
                ),
                |lo, hi| format!("How long must {c} have held before the requirement applies: {} or {}?", tb.show(lo), tb.show(hi)),
            );
        }
        (Trigger::HeldFor(_, d), other) | (other, Trigger::HeldFor(_, d))
            if same_condition && matches!(other, Trigger::Level(_) | Trigger::Edge(_)) =>
        {
            q.ask(
                "held-for",
                format!(
                    "Must {c} have held for {} before the requirement applies, or does it apply {}?",
                    tb.show(*d),
                    if matches!(other, Trigger::Edge(_)) {
                        format!("at once, at the moment {c} becomes true")
                    } else {
                        format!("at once, whenever {c} holds")
                    }
                ),
            );
        }
        (x, y) => {
            q.ask(
                "trigger",
                format!(
                    "When does the requirement apply: {} or {}?",
                    trigger_words(x, tb),
                    trigger_words(y, tb)
                ),
            );
        }
    }
}

/// The question about two different timings of the response.
fn timing_question(a: &Pattern, b: &Pattern, tb: &TimeBase, q: &mut Questions) {
    let r = show(&a.response);
    match (&a.timing, &b.timing) {
        (Timing::Within(x), Timing::Within(y)) => {
            q.durations(
                (*x, *y),
                |lo, hi| format!(
                    "If {r} first holds exactly {} after the requirement applies, is that still in time (\"within {}\", the bound included) or too late (\"in less than {}\", that is within {})?",
                    tb.show(hi), tb.show(hi), tb.show(hi), tb.show(lo)
                ),
                |lo, hi| format!("Within how long must {r} follow: {} or {}?", tb.show(lo), tb.show(hi)),
            );
        }
        (Timing::NotBefore(x), Timing::NotBefore(y)) => {
            q.durations(
                (*x, *y),
                |lo, hi| format!(
                    "May {r} hold exactly {} after the requirement applies (\"not before {}\"), or only once more than {} has passed (\"after more than {}\", that is not before {})?",
                    tb.show(lo), tb.show(lo), tb.show(lo), tb.show(lo), tb.show(hi)
                ),
                |lo, hi| format!("How long must pass before {r} may hold: {} or {}?", tb.show(lo), tb.show(hi)),
            );
        }
        (Timing::For(x), Timing::For(y)) => {
            q.durations(
                (*x, *y),
                |lo, hi| format!(
                    "Must {r} still hold at the moment {} after the requirement applies (\"for {}\", both ends included), or only up to {} later?",
                    tb.show(hi), tb.show(hi), tb.show(lo)
                ),
                |lo, hi| format!("For how long must {r} hold: {} or {}?", tb.show(lo), tb.show(hi)),
            );
        }
        (x, y) => {
            q.ask(
                "timing",
                format!(
                    "When must {r} hold once the requirement applies: {} or {}?",
                    timing_words(x, tb),
                    timing_words(y, tb)
                ),
            );
        }
    }
}

/// The question about two different scopes, and whether an obligation outlives one.
fn scope_question(a: &Pattern, b: &Pattern, q: &mut Questions) {
    q.ask(
        "scope",
        format!(
            "Where does the requirement apply: {} or {}?",
            scope_words(&a.scope),
            scope_words(&b.scope)
        ),
    );
    let lasting = |t: &Timing| !matches!(t, Timing::Immediately);
    let bounded = |s: &Scope| {
        matches!(
            s,
            Scope::While(_) | Scope::AfterUntil(..) | Scope::Before(_)
        )
    };
    if (lasting(&a.timing) || lasting(&b.timing)) && (bounded(&a.scope) || bounded(&b.scope)) {
        q.ask(
            "scope-end",
            "And if the scope ends while the response is still due: does the obligation run on to its end (how vera reads a scope), or is it cut when the scope ends?"
                .into(),
        );
    }
}

/// The question about the response: cut when the scope ends, or simply different.
fn response_question(a: &Pattern, b: &Pattern, q: &mut Questions) {
    let cut = (a.scope == b.scope)
        .then(|| scope_end(&a.scope))
        .flatten()
        .and_then(|end| {
            if or_of(&b.response, &a.response, &end) {
                Some((a, b))
            } else if or_of(&a.response, &b.response, &end) {
                Some((b, a))
            } else {
                None
            }
        });
    if let Some((runs, _)) = cut {
        q.ask("scope-end", format!(
            "If the scope ends ({} holds) while {} is still due, does the obligation run on to its end, or does it end with the scope?",
            scope_end(&a.scope).map(|e| show(&e)).unwrap_or_default(),
            show(&runs.response)
        ));
    } else if a.response != b.response {
        q.ask(
            "response",
            format!(
                "What is required: {} or {}?",
                show(&a.response),
                show(&b.response)
            ),
        );
    }
}

/// A timeline as an aligned table: one row per interval of physical time, one column
/// per variable.
pub fn timing_table(t: &Timeline) -> String {
    let mut names: Vec<String> = Vec::new();
    for r in &t.rows {
        for a in &r.values {
            if !names.contains(&a.variable) {
                names.push(a.variable.clone());
            }
        }
    }
    let mut rows: Vec<Vec<String>> = vec![std::iter::once("time".to_string())
        .chain(names.iter().cloned())
        .collect()];
    for r in &t.rows {
        let mut row = vec![format!("{} to {}", r.from_time, r.to_time)];
        for n in &names {
            row.push(
                r.values
                    .iter()
                    .find(|a| &a.variable == n)
                    .map(|a| a.value.clone())
                    .unwrap_or_else(|| "-".into()),
            );
        }
        rows.push(row);
    }
    let widths: Vec<usize> = (0..names.len() + 1)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for r in rows {
        let line: Vec<String> = r
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        let _ = writeln!(out, "{}", line.join("  ").trim_end());
    }
    out
}

/// The question that tells class `b` from class `a`, with the trace that separates them.
pub fn question(tb: &TimeBase, a: &TimedClass, b: &TimedClass, d: &Difference) -> Question {
    let (kinds, parts) = differences(&a.representative, &b.representative, tb);
    let (holds, other) = match d.holds {
        Side::First => (&a.label, &b.label),
        Side::Second => (&b.label, &a.label),
    };
    let table = timing_table(&d.timeline);
    let broken_at = tb.show(d.violated_at as u64);
    let question = format!(
        "{}\nOn this run, reading {holds} is met and reading {other} is broken at {broken_at}:\n{table}",
        parts.join(" ")
    );
    Question {
        between: [a.label.clone(), b.label.clone()],
        kinds,
        question,
        readings: [a.reading.clone(), b.reading.clone()],
        holds: holds.clone(),
        broken_at,
        timeline: d.timeline.clone(),
        table,
    }
}

// ------------------------------------------------------------------ clarification

/// The clarification loop's result on a timed spec.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TimedClarifyReport {
    /// One per flagged requirement.
    pub proposals: Vec<Proposal>,
    /// Flagged count after each round (index 0: before any round).
    pub flagged_per_round: Vec<usize>,
    /// The first screening.
    pub screening: TimedAmbiguityReport,
}

/// The clarification prompt of a timed screening: the readings in words and the
/// questions with their timing tables (`prompts/clarify-timed.txt`).
pub fn clarify_prompt(
    spec: &Spec,
    s: &TimedScreening,
    samples: u32,
) -> Result<String, PipelineError> {
    let mut readings = String::new();
    for c in &s.classes {
        crate::clarify::reading_line(
            &mut readings,
            &c.label,
            (c.members.len(), s.valid),
            &c.reading,
        );
    }
    let mut questions = String::new();
    for q in &s.questions {
        let _ = writeln!(
            questions,
            "- reading {} or reading {}? {}",
            q.between[0],
            q.between[1],
            q.question.trim_end().replace('\n', "\n  ")
        );
    }
    let tick = spec
        .time
        .as_ref()
        .map(|tb| tb.tick_text.clone())
        .unwrap_or_default();
    let entropy = {
        let n = s.valid.max(1) as f64;
        -s.classes
            .iter()
            .map(|c| {
                let p = c.members.len() as f64 / n;
                p * p.log2()
            })
            .sum::<f64>()
    };
    Ok(TimedPrompts::builtin().clarify.render(&[
        ("samples", &samples.to_string()),
        ("classes", &s.classes.len().to_string()),
        ("entropy", &format!("{entropy:.2}")),
        ("schema", &schema_info(spec).render()),
        ("tick", &tick),
        ("id", &s.id),
        ("requirement", &s.text),
        ("readings", &readings),
        ("questions", &questions),
    ])?)
}

/// The clarification loop on a timed spec: screens (unless a screening is given), then
/// for each flagged requirement asks the model for a rewrite from the questions and
/// screens the rewrite again, up to `rounds` rounds. A rewrite that repeats the text,
/// is a meta-answer, or has fewer than two valid formalizations is rejected and ends
/// the requirement's rounds. A converged proposal carries the single class's pattern.
pub fn clarify_timed(
    spec: &Spec,
    client: &Client,
    solver: &SolverConfig,
    options: &ClarifyOptions,
    screening: Option<TimedAmbiguityReport>,
) -> Result<TimedClarifyReport, PipelineError> {
    let (first, run) = engine::clarify::<Patterns>(spec, client, solver, options, screening)?;
    Ok(TimedClarifyReport {
        proposals: run.proposals,
        flagged_per_round: run.flagged_per_round,
        screening: first,
    })
}

/// The timed loop: a rejected rewrite ends the requirement's rounds at once (no
/// follow-up turn).
impl Readings for Patterns {
    const LABEL: &'static str = "clarify.timed";

    fn prompt(spec: &Spec, s: &TimedScreening, samples: u32) -> Result<String, PipelineError> {
        clarify_prompt(spec, s, samples)
    }

    fn keep_reading(p: &mut Proposal, s: &TimedScreening) {
        p.pattern = s
            .classes
            .first()
            .filter(|_| p.converged)
            .map(|c| c.pattern.clone());
    }
}

/// A report of the plain or the timed loop, whichever the spec needs.
#[derive(Debug)]
pub enum Either<P, T> {
    /// The spec has no `[time]` table: formulas over one state.
    Plain(P),
    /// The spec has a `[time]` table: patterns over traces.
    Timed(T),
}

/// Ambiguity screening of a plain or a timed spec ([`crate::ambiguity::screen`] or
/// [`screen_timed`], by the spec's `[time]` table).
pub fn screen_any(
    spec: &Spec,
    client: &Client,
    solver: &SolverConfig,
    options: &AmbiguityOptions,
) -> Result<Either<crate::ambiguity::AmbiguityReport, TimedAmbiguityReport>, PipelineError> {
    Ok(match spec.time {
        None => Either::Plain(crate::ambiguity::screen(spec, client, solver, options)?),
        Some(_) => Either::Timed(screen_timed(spec, client, solver, options)?),
    })
}

/// Clarification of a plain or a timed spec ([`crate::clarify::clarify`] or
/// [`clarify_timed`], by the spec's `[time]` table), screening first.
pub fn clarify_any(
    spec: &Spec,
    client: &Client,
    solver: &SolverConfig,
    options: &ClarifyOptions,
) -> Result<Either<crate::clarify::ClarifyReport, TimedClarifyReport>, PipelineError> {
    Ok(match spec.time {
        None => Either::Plain(crate::clarify::clarify(
            spec, client, solver, options, None,
        )?),
        Some(_) => Either::Timed(clarify_timed(spec, client, solver, options, None)?),
    })
}

impl Either<crate::clarify::ClarifyReport, TimedClarifyReport> {
    /// The proposals, as the proposals file keeps them.
    pub fn proposals(&self) -> &[crate::clarify::Proposal] {
        match self {
            Either::Plain(r) => &r.proposals,
            Either::Timed(r) => &r.proposals,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Unused keys written as "", "null", "none" or false (as a small model does when
    /// the schema asks for every key) are absent; a real value stays.
    #[test]
    fn unused_keys_are_read_as_absent() {
        let v = serde_json::json!({
            "scope_while": "", "scope_after": "null", "scope_before": " None ",
            "if": "air_detected", "initially": false, "next": false,
            "then": "(not blood_pump_on)", "within": null,
        });
        let keys = answer_keys(&v).unwrap();
        let names: Vec<&str> = keys.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names, ["if", "then"]);
        let next = serde_json::json!({"then": "x", "next": true});
        assert_eq!(answer_keys(&next).unwrap().len(), 2);
        assert!(answer_keys(&serde_json::json!({"then": 3})).is_err());
    }
}

//! The autoformalizer (VeriMed section 2.2): requirement texts become SMT-LIB terms over
//! the spec's schema, with the schema and domain constraints injected into the prompt.
//!
//! Two modes: *batch* (the whole set in one request whose answer is a JSON object
//! mapping ids to terms, as in VeriMed's Experiment 1) and *per requirement* (one request
//! each, in parallel). Every term goes through `logic::parse_untrusted` against the
//! spec's context and must be satisfiable together with the domain constraints (asked
//! of the solver). A term that fails either check enters the syntactic repair loop: the
//! exact error and the failed output go back to the model, up to `max_retries` times.
//! Requirements that still fail are reported, never dropped.

use llm::{Client, LlmError, Request, SchemaInfo, Template};
use logic::{Sort, Term};
use reqs::equiv::{Checker, Universe};
use reqs::Spec;
use serde::Serialize;
use serde_json::{json, Value};
use solver::SolverConfig;
use std::collections::HashMap;
use std::fmt::Write as _;

/// Why a formalization, screening, clarification or vote could not run. Problems with
/// single answers are not errors: they are repaired or reported.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    /// The LLM layer failed (configuration, transport after retries, replay miss, ...).
    #[error(transparent)]
    Llm(#[from] LlmError),
    /// The solver failed.
    #[error(transparent)]
    Solver(#[from] solver::SolverError),

    /// Equivalence checking could not start (e.g. an inconsistent domain).
    #[error(transparent)]
    Equiv(#[from] reqs::equiv::EquivError),
    /// Trace equivalence of timed patterns failed (the solver, or a distinguishing
    /// trace the evaluator did not confirm).
    #[error(transparent)]
    TimedEquiv(#[from] reqs::timed::equiv::TimedEquivError),
    /// The consistency checker failed.
    #[error(transparent)]
    Check(#[from] bl::check::CheckError),
    /// A proposals file that cannot be applied.
    #[error(transparent)]
    Proposals(#[from] crate::clarify::ProposalsError),
    /// A restatements file that cannot be applied.
    #[error(transparent)]
    Restatements(#[from] crate::restate::RestateFileError),
    /// Bad input (an unknown id, an output file that exists, ...).
    #[error("{0}")]
    Input(String),
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
}

/// The prompt templates this module uses (built in; see `prompts/`).
#[derive(Debug, Clone)]
pub struct Prompts {
    /// One requirement → one term.
    pub one: Template,
    /// One worked example inside `examples`.
    pub example: Template,
    /// The repair turn after an unusable answer (per requirement).
    pub repair: Template,
    /// The whole set → a JSON object.
    pub batch: Template,
    /// The repair turn of batch mode.
    pub batch_repair: Template,
}

impl Prompts {
    /// The templates shipped in `prompts/`, compiled in.
    pub fn builtin() -> Prompts {
        let t = |name: &str, text: &str| Template::parse(name, text).expect("built-in template");
        Prompts {
            one: t(
                "formalize-requirement",
                include_str!("../../../prompts/formalize-requirement.txt"),
            ),
            example: t(
                "formalize-example",
                include_str!("../../../prompts/formalize-example.txt"),
            ),
            repair: t("repair", include_str!("../../../prompts/repair.txt")),
            batch: t(
                "formalize-batch",
                include_str!("../../../prompts/formalize-batch.txt"),
            ),
            batch_repair: t(
                "formalize-batch-repair",
                include_str!("../../../prompts/formalize-batch-repair.txt"),
            ),
        }
    }
}

/// The schema of a spec as plain data for prompts.
pub fn schema_info(spec: &Spec) -> SchemaInfo {
    schema_info_with(
        spec,
        |r| {
            logic::Value::Real(r.clone())
                .to_string()
                .trim_end_matches(".0")
                .to_string()
        },
        user_domain(spec),
    )
}

/// The schema of a spec as plain data for prompts, its variables' bounds written by
/// `bound` and `domain` the constraints it lists.
pub(crate) fn schema_info_with<'a>(
    spec: &'a Spec,
    bound: impl Fn(&num_rational::BigRational) -> String,
    domain: impl Iterator<Item = &'a reqs::spec::Constraint>,
) -> SchemaInfo {
    SchemaInfo {
        variables: spec
            .variables
            .iter()
            .map(|v| llm::VariableInfo {
                name: v.name.to_string(),
                sort: v.sort.to_string(),
                unit: v.unit.clone(),
                description: v.description.clone(),
                min: v.min.as_ref().map(&bound),
                max: v.max.as_ref().map(&bound),
            })
            .collect(),
        enums: spec
            .enums
            .iter()
            .map(|(n, vs)| llm::EnumInfo {
                name: n.to_string(),
                values: vs.iter().map(|v| v.to_string()).collect(),
                description: None,
            })
            .collect(),
        domain: domain
            .map(|d| llm::ConstraintInfo {
                id: d.id.clone(),
                text: d.text.clone(),
                formula: Some(logic::print::term(&d.formula)),
            })
            .collect(),
    }
}

/// How the schema's variables are written in a formula, derived from their sorts: a
/// variable of an enumeration is compared with one of its values, a number is compared
/// with a number, and only the Boolean variables are conditions by themselves. Appended
/// to the schema in formalization prompts (the commonest mistakes of a small model are
/// names invented for a state, `pump_stopped`, and numbers used as conditions,
/// `(not vtbi)`). Empty for a schema without variables.
pub fn reading_notes(spec: &Spec) -> String {
    let mut out = String::new();
    for v in &spec.variables {
        if let Sort::Enum(e) = &v.sort {
            if let Some((_, values)) = spec.enums.iter().find(|(n, _)| n == e) {
                if let Some(first) = values.first() {
                    let all: Vec<&str> = values.iter().map(|x| &**x).collect();
                    let _ = writeln!(
                        out,
                        "- {} holds one of {}; a state such as {first} is written (= {} {first}).",
                        v.name,
                        all.join(", "),
                        v.name
                    );
                }
            }
        }
    }
    let names = |numeric: bool| -> Vec<&str> {
        spec.variables
            .iter()
            .filter(|v| v.sort.is_numeric() == numeric && (numeric || v.sort == Sort::Bool))
            .map(|v| &*v.name)
            .collect()
    };
    // Long lists are cut: the schema above has every name with its sort.
    let list = |names: &[&str]| -> String {
        const MOST: usize = 12;
        let mut s = names[..names.len().min(MOST)].join(", ");
        if names.len() > MOST {
            let _ = write!(s, " and {} more", names.len() - MOST);
        }
        s
    };
    let (numbers, conditions) = (names(true), names(false));
    if let Some(n) = numbers.first() {
        let _ = writeln!(
            out,
            "- {} are numbers: compare them, e.g. (= {n} 0) or (> {n} 0), never use them as conditions.",
            list(&numbers)
        );
    }
    if !conditions.is_empty() {
        let _ = writeln!(
            out,
            "- {} are conditions (true or false) by themselves.",
            list(&conditions)
        );
    }
    if out.is_empty() {
        return out;
    }
    out.insert_str(0, "\nHow to write them (no other names exist):\n");
    out
}

/// Domain constraints written by the user (not the generated variable bounds).
pub fn user_domain(spec: &Spec) -> impl Iterator<Item = &reqs::spec::Constraint> {
    spec.domain.iter().filter(move |d| !is_bound(spec, &d.id))
}

fn is_bound(spec: &Spec, id: &str) -> bool {
    spec.variables.iter().any(|v| {
        (v.min.is_some() && id == format!("{}.min", v.name))
            || (v.max.is_some() && id == format!("{}.max", v.name))
    })
}

/// Worked examples: up to `n` formalized requirements of the spec that are not being
/// formalized now and whose formula a person wrote or accepted (an unreviewed model
/// formula is never shown to the model as an example).
pub fn examples(spec: &Spec, prompts: &Prompts, skip: &[String], n: usize) -> String {
    examples_where(spec, prompts, skip, n, |_| true)
}

/// [`examples`] of the requirements `keep` lets through.
fn examples_where(
    spec: &Spec,
    prompts: &Prompts,
    skip: &[String],
    n: usize,
    mut keep: impl FnMut(&reqs::spec::Requirement) -> bool,
) -> String {
    let mut out = String::new();
    for r in spec
        .requirements
        .iter()
        .filter(|r| !skip.contains(&r.id) && r.reviewed())
        .filter(|r| keep(r))
        .filter_map(|r| r.formula.as_ref().map(|f| (r, f)))
        .take(n)
    {
        let term = logic::print::term(r.1);
        if let Ok(s) = prompts
            .example
            .render(&[("requirement", &r.0.text), ("term", &term)])
        {
            out.push_str(&s);
        }
    }
    if !out.is_empty() {
        out.insert_str(0, "\nExamples:\n");
    }
    out
}

/// [`examples`], or when the spec has no reviewed formula to show (and `n > 0`), the
/// [`GENERIC_EXAMPLES`] shapes over variables of no schema. Used by `formalize` only:
/// ambiguity sampling keeps the spec's own examples, so that its samples stay
/// comparable with earlier runs.
pub fn examples_or_generic(spec: &Spec, prompts: &Prompts, skip: &[String], n: usize) -> String {
    generic_unless(examples(spec, prompts, skip, n), prompts, n)
}

/// [`examples_or_generic`] with every example screened like an answer first: a formula
/// the screening rejects (a tautology, one that forces a variable in a conditional
/// requirement, ...) is never shown to the model as a pattern to copy, even when a
/// person wrote it.
pub fn screened_examples_or_generic(
    spec: &Spec,
    checker: &mut Checker,
    prompts: &Prompts,
    skip: &[String],
    n: usize,
) -> Result<String, PipelineError> {
    let mut failure = None;
    let own = examples_where(spec, prompts, skip, n, |r| {
        let Some(f) = &r.formula else { return false };
        match screen_formula(spec, checker, f, &r.text) {
            Ok(findings) => !findings.iter().any(|x| x.rejects),
            Err(e) => {
                failure.get_or_insert(e);
                false
            }
        }
    });
    if let Some(e) = failure {
        return Err(e.into());
    }
    Ok(generic_unless(own, prompts, n))
}

/// `own`, or the generic examples when it is empty (and examples are asked for).
fn generic_unless(own: String, prompts: &Prompts, n: usize) -> String {
    if !own.is_empty() || n == 0 {
        return own;
    }
    let mut out = String::new();
    for (text, term) in GENERIC_EXAMPLES {
        if let Ok(s) = prompts
            .example
            .render(&[("requirement", text), ("term", term)])
        {
            out.push_str(&s);
        }
    }
    if !out.is_empty() {
        out.insert_str(
            0,
            "\nExamples of the form, over other variables (use only the schema above):\n",
        );
    }
    out
}

/// Worked examples shown when the spec has no reviewed formula: the common shapes of
/// requirements (a threshold trigger, a Boolean interlock with a conjunction, an
/// enumeration guard, an invariant), over variables of no schema.
pub const GENERIC_EXAMPLES: &[(&str, &str)] = &[
    (
        "If the pressure exceeds 300 mmHg, the alarm shall sound.",
        "(=> (> pressure 300) alarm)",
    ),
    (
        "While the valve is open, the pump shall be off and the lamp on.",
        "(=> valve_open (and (not pump_on) lamp_on))",
    ),
    (
        "In Standby mode the speed shall be at most 5 rpm.",
        "(=> (= mode Standby) (<= speed 5))",
    ),
    (
        "The level shall never exceed the limit.",
        "(<= level limit)",
    ),
];

/// Largest excerpt of a failed answer sent back in a repair turn.
pub const EXCERPT_BYTES: usize = 2000;

/// The answer, shortened for a repair turn or a report.
pub fn excerpt(text: &str) -> String {
    if text.len() <= EXCERPT_BYTES {
        return text.to_string();
    }
    let mut end = EXCERPT_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}... ({} bytes in all)", &text[..end], text.len())
}

/// Operators a formula answer may start with when its outer parentheses are missing.
const OPERATORS: &[&str] = &[
    "not", "and", "or", "=>", "xor", "=", "distinct", "<", "<=", ">", ">=", "+", "-", "*", "/",
    "ite", "div", "mod", "abs",
];

/// Turns one answer into a term: the answer must be one Boolean term over the schema
/// (or one `(assert ...)`), read with `logic::parse_untrusted`. The error is the exact
/// text returned to the model.
pub fn parse_answer(spec: &Spec, text: &str) -> Result<Term, String> {
    let unfenced = single_fenced_block(text);
    let t = unfenced.as_deref().unwrap_or(text).trim();
    if t.is_empty() {
        return Err("the answer is empty".into());
    }
    let limits = logic::Limits::default();
    if t.len() > limits.max_bytes {
        return Err(format!(
            "the answer is {} bytes, over the limit of {} bytes; answer with the term alone",
            t.len(),
            limits.max_bytes
        ));
    }
    if let Some(hint) = infix_hint(spec, t) {
        return Err(hint);
    }
    let token = !t.starts_with('(') && !t.contains(char::is_whitespace);
    if !t.starts_with('(') && !token {
        // `not door_closed`, `=> a b`: a compound term without its parentheses.
        let head = t.split_whitespace().next().unwrap_or("");
        if OPERATORS.contains(&head) && !t.contains('\n') && t.len() <= 200 {
            return Err(format!(
                "`{t}` is not an SMT-LIB term: an application needs parentheses around the operator and its arguments, as in `({t})`; answer with the whole term in parentheses"
            ));
        }
        return Err(format!(
            "text outside the formula: the answer starts with `{}`; answer with the SMT-LIB term alone, without prose or code fences",
            t.chars().take(40).collect::<String>()
        ));
    }
    if let Some(problem) = side_by_side(t) {
        return Err(problem);
    }
    // The term goes on a line of its own inside the `(assert ...)` it needs, so that
    // every position and quoted line in the feedback is the answer's own (line 1 of
    // the answer), not a wrapper the model never wrote.
    let wrapped;
    let (input, shift) = if t.starts_with("(assert") {
        (t, 0)
    } else {
        wrapped = format!("(assert\n{t}\n)");
        (wrapped.as_str(), 1)
    };
    let u = logic::parse_untrusted("answer", input, &spec.context, limits).map_err(|mut d| {
        if shift > 0 {
            // A problem of the wrapper's own line is one of the answer as a whole.
            let lines: Vec<&str> = t.lines().collect();
            for l in &mut d.0 {
                if l.line > shift + lines.len() {
                    // The wrapper's closing line: the answer closed the `(assert` itself.
                    let last = lines.last().copied().unwrap_or("");
                    l.line = lines.len().max(1);
                    l.source_line = last.to_string();
                    l.caret = last.chars().count().saturating_sub(1);
                    l.col = l.caret + 1;
                    l.width = 1;
                    l.message = "the answer closes more parentheses than it opens".into();
                    l.hint = Some("remove the extra `)` at the end".into());
                } else if l.line > shift {
                    l.line -= shift;
                } else {
                    if l.message.starts_with("`assert` takes") {
                        // `(=> (or a b)) c)`: the term closed early, text is left after it.
                        l.message =
                            "the parentheses close the term before its end: text is left after it"
                                .into();
                        l.hint = Some(
                            "close each `(` once, at the end of its own term; the answer is one term"
                                .into(),
                        );
                    }
                    l.source_line = t.lines().next().unwrap_or("").to_string();
                    l.caret = 0;
                    l.col = 1;
                    l.width = l.source_line.chars().count();
                }
            }
        }
        crate::feedback::rewrite(spec, &mut d);
        d.to_string().trim_end().to_string()
    })?;
    if !u.constants.is_empty() || !u.enums.is_empty() || !u.definitions.is_empty() {
        return Err(
            "the answer declares or defines symbols; use only the schema's variables".into(),
        );
    }
    match u.assertions.len() {
        1 => Ok(u.assertions.into_iter().next().expect("one").0),
        0 => Err("the answer contains no formula".into()),
        n => Err(format!(
            "the answer contains {n} formulas (or text after the formula); answer with exactly one term"
        )),
    }
}

/// Several complete terms side by side (`(not pump_on) (and door_closed)`), said in the
/// model's terms: which terms, and the two ways to make one of them.
fn side_by_side(t: &str) -> Option<String> {
    let read = logic::sexp::read(t, logic::sexp::ReadLimits::default());
    if !read.errors.is_empty() || read.items.len() < 2 {
        return None;
    }
    let shown: Vec<String> = read
        .items
        .iter()
        .take(3)
        .map(|i| format!("`{}`", t.get(i.span.start..i.span.end).unwrap_or("?")))
        .collect();
    Some(format!(
        "the answer has {} terms side by side ({}); a requirement is one term: conjoin them, (and A B), or make one the condition of the other, (=> A B)",
        read.items.len(),
        shown.join(", ")
    ))
}

/// The content of the answer's only fenced code block (```` ```smt2 ... ``` ````), when
/// it has exactly one: a deterministic normalization before parsing.
pub fn single_fenced_block(text: &str) -> Option<String> {
    let parts: Vec<&str> = text.split("```").collect();
    // One block: prose, block, prose.
    if parts.len() != 3 {
        return None;
    }
    let body = parts[1];
    // Drop the info string (`smt2`, `lisp`, ...) on the opening line.
    let body = match body.find('\n') {
        Some(nl) if !body[..nl].trim().starts_with('(') => &body[nl + 1..],
        _ => body,
    };
    Some(body.trim().to_string())
}

/// Infix notation, said in the model's own terms: `(x > 5)` or `x > 5` gives "infix `>`
/// at column 4; write `(> x 5)`".
fn infix_hint(spec: &Spec, t: &str) -> Option<String> {
    let is_operand =
        |w: &str| spec.variables.iter().any(|v| &*v.name == w) || w.parse::<f64>().is_ok();
    // Tokens with their byte offsets; parentheses are tokens of their own.
    let mut tokens: Vec<(usize, &str)> = Vec::new();
    let mut start = None;
    for (i, c) in t.char_indices() {
        let sep = c.is_whitespace() || c == '(' || c == ')';
        if sep {
            if let Some(s) = start.take() {
                tokens.push((s, &t[s..i]));
            }
            if c != ' ' && !c.is_whitespace() {
                tokens.push((i, &t[i..i + 1]));
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        tokens.push((s, &t[s..]));
    }
    // Prose ("The requirement demands ... between 200 and 400 mL") is not infix notation:
    // it gets the "text outside the formula" feedback instead.
    if let Some(&(_, first)) = tokens.first() {
        if first != "(" && !is_operand(first) && !OPERATORS.contains(&first) {
            return None;
        }
    }
    for w in tokens.windows(3) {
        let [(_, a), (at, op), (_, b)] = [w[0], w[1], w[2]];
        if is_operand(a) && OPERATORS.contains(&op) && op != "-" && b != ")" {
            let column = t[..at].chars().count() + 1;
            return Some(format!(
                "infix `{op}` at column {column}: SMT-LIB puts the operator first; write `({op} {a} {b})`, not `{a} {op} {b}`"
            ));
        }
    }
    None
}

/// What semantic screening found wrong (or worth a look) in a well-formed formula.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ScreenFinding {
    /// `tautology`, `unsatisfiable`, `forces` or `no-output`.
    pub kind: &'static str,
    /// The finding in words (also the repair feedback).
    pub message: String,
    /// True when the formula may not be used (never audit evidence, never an example).
    pub rejects: bool,
}

/// Words that make a requirement text conditional.
const CONDITIONAL_WORDS: &[&str] = &[
    "if ",
    "when",
    "whenever",
    "while ",
    "once ",
    "as soon as",
    "unless",
    "in case",
    "during",
    "after ",
    "before ",
];

/// Screens a parsed formula before anything uses it: a tautology under the domain
/// (constrains nothing), a formula no state of the domain satisfies, one that forces a
/// variable to a single value in every state (rejected when the text is conditional,
/// noted otherwise), and, when the schema has roles, one that mentions no output.
pub fn screen_formula(
    spec: &Spec,
    checker: &mut Checker,
    t: &Term,
    text: &str,
) -> Result<Vec<ScreenFinding>, solver::SolverError> {
    let mut out = Vec::new();
    let model = match checker.model_of(std::slice::from_ref(t))? {
        Some(None) => {
            out.push(ScreenFinding {
                kind: "unsatisfiable",
                message: "the formula contradicts the domain constraints and variable bounds: no state satisfies it".into(),
                rejects: true,
            });
            return Ok(out);
        }
        Some(Some(m)) => Some(m),
        None => None,
    };
    if checker.satisfiable(&Term::not(t.clone()))? == Some(false) {
        out.push(ScreenFinding {
            kind: "tautology",
            message: format!(
                "the formula `{}` holds in every state the domain allows: it constrains nothing; say what the requirement demands",
                logic::print::term(t)
            ),
            rejects: true,
        });
        return Ok(out);
    }
    let conditional = {
        let lower = format!(" {} ", text.to_lowercase());
        CONDITIONAL_WORDS.iter().any(|w| lower.contains(w))
    };
    // A conditional text whose formula's condition holds in every state lost its
    // condition (`(=> (or (>= f 300) (<= f 800)) ...)` for "during therapy ...").
    if let (true, reqs::spec::Shape::Conditional { trigger, .. }) =
        (conditional, reqs::spec::shape_of(t))
    {
        if checker.satisfiable(&Term::not(trigger.clone()))? == Some(false) {
            out.push(ScreenFinding {
                kind: "trigger-always",
                message: format!(
                    "the condition `{}` holds in every state the domain allows, so the requirement's condition is lost: state the condition the text names",
                    logic::print::term(&trigger)
                ),
                rejects: true,
            });
            return Ok(out);
        }
    }
    if let Some(m) = &model {
        for (name, sort) in t.free_vars() {
            let Some(v) = m.get(&name) else { continue };
            let var = Term::Var(name.clone(), sort.clone());
            let other = Term::app(logic::Op::Distinct, vec![var.clone(), v.to_term()]);
            // Forced by the formula, not already by the domain.
            if checker.model_of(&[t.clone(), other.clone()])? == Some(None)
                && checker.satisfiable(&other)? == Some(true)
            {
                let message = if conditional {
                    format!(
                        "the formula forces {name} = {v} in every state, but the requirement is conditional: write it as (=> condition response) so that {name} is constrained only when the condition holds"
                    )
                } else {
                    format!("the formula forces {name} = {v} in every state (check that the requirement means that)")
                };
                out.push(ScreenFinding {
                    kind: "forces",
                    message,
                    rejects: conditional,
                });
            }
        }
    }
    let unmentioned = unmentioned_variables(spec, t, text);
    if !unmentioned.is_empty() {
        out.push(ScreenFinding {
            kind: "unmentioned",
            message: format!(
                "the formula mentions {}, which the requirement text does not talk about (by name, description, unit or enumeration value): formalize only what the text says",
                unmentioned.join(", ")
            ),
            rejects: true,
        });
    }
    if crate::form::declares_inputs(spec) {
        let mentions_output = t
            .free_vars()
            .iter()
            .any(|(n, _)| crate::form::demandable(spec, n));
        if !mentions_output {
            out.push(ScreenFinding {
                kind: "no-output",
                message: "the formula mentions no output (no variable the system chooses): it only restricts the environment; say what the system must do".into(),
                rejects: true,
            });
        }
    }
    Ok(out)
}

/// The variables of `t` that `text` does not talk about: none of the words of the
/// variable's name, description or unit (words of at least 3 characters, stop words
/// aside) matches a word of the text, the text does not contain the name, and, for an
/// enumeration variable, no value `t` compares it with appears in the text. Words match
/// when equal, when the shorter (at least 4 characters) starts the longer, or when they
/// share a first 6 characters (`connected` / `connection`). A lexical check: a
/// requirement that names a variable only by implication ("no fluid shall be removed"
/// for the ultrafiltration pump) needs a formula written or accepted by a person.
pub fn unmentioned_variables(spec: &Spec, t: &Term, text: &str) -> Vec<String> {
    let values = crate::roundtrip::enum_values(t);
    let mentions = Mentions::of(text);
    let mut out = Vec::new();
    for (name, sort) in t.free_vars() {
        let compared: Vec<&str> = match &sort {
            logic::Sort::Enum(e) => values
                .iter()
                .filter(|(s, _)| s == e)
                .map(|(_, c)| &**c)
                .collect(),
            _ => Vec::new(),
        };
        let var = spec.variables.iter().find(|v| v.name == name);
        if !mentions.talks_about(&name, var, &compared) {
            out.push(name.to_string());
        }
    }
    out
}

/// The variables of `spec` that `text` talks about in the sense of
/// [`unmentioned_variables`] (an enumeration variable also by any of its values): the
/// only ones a formula of the text may use without being screened out.
pub fn mentioned_variables<'s>(spec: &'s Spec, text: &str) -> Vec<&'s reqs::spec::Variable> {
    let mentions = Mentions::of(text);
    spec.variables
        .iter()
        .filter(|v| {
            let values: Vec<&str> = match &v.sort {
                logic::Sort::Enum(e) => spec
                    .enums
                    .iter()
                    .find(|(n, _)| n == e)
                    .map(|(_, vs)| vs.iter().map(|x| &**x).collect())
                    .unwrap_or_default(),
                _ => Vec::new(),
            };
            mentions.talks_about(&v.name, Some(v), &values)
        })
        .collect()
}

/// The words of a requirement text, for the lexical test of whether it talks about a
/// variable.
struct Mentions {
    said: Vec<String>,
    lower: String,
}

impl Mentions {
    fn of(text: &str) -> Mentions {
        Mentions {
            said: crate::roundtrip::words(text),
            lower: text.to_lowercase(),
        }
    }

    fn matches(&self, w: &str) -> bool {
        use crate::roundtrip::{word_match, STOPWORDS};
        w.chars().count() >= 3
            && !STOPWORDS.contains(&w)
            && self.said.iter().any(|x| {
                word_match(w, x) || (w.len() >= 6 && x.len() >= 6 && w.get(..6) == x.get(..6))
            })
    }

    /// Whether the text names the variable: by name, by a word of its name,
    /// description or unit, or (an enumeration) by one of `values`.
    fn talks_about(&self, name: &str, var: Option<&reqs::spec::Variable>, values: &[&str]) -> bool {
        use crate::roundtrip::{name_words, words};
        self.lower.contains(&name.to_lowercase())
            || name_words(name).iter().any(|w| self.matches(w))
            || var.is_some_and(|v| {
                v.description
                    .iter()
                    .chain(v.unit.iter())
                    .flat_map(|d| words(d))
                    .any(|w| self.matches(&w))
            })
            || values
                .iter()
                .any(|c| name_words(c).iter().any(|w| self.matches(w)))
    }
}

/// Parses an answer and checks it against the domain with the solver.
pub fn validate(spec: &Spec, checker: &mut Checker, text: &str) -> Result<Term, ValidateError> {
    let t = parse_answer(spec, text).map_err(ValidateError::Invalid)?;
    match checker.satisfiable(&t).map_err(ValidateError::Solver)? {
        Some(false) => Err(ValidateError::Invalid(
            "the formula contradicts the domain constraints and variable bounds: no state satisfies it"
                .into(),
        )),
        _ => Ok(t),
    }
}

/// [`validate`] followed by [`screen_formula`] against the requirement's text: a
/// formula the screening rejects is an invalid answer (its finding is the feedback);
/// the other findings come back with the term.
pub fn validate_screened(
    spec: &Spec,
    checker: &mut Checker,
    text: &str,
    requirement: &str,
) -> Result<(Term, Vec<ScreenFinding>), ValidateError> {
    let t = validate(spec, checker, text)?;
    let findings = screen_formula(spec, checker, &t, requirement).map_err(ValidateError::Solver)?;
    if let Some(f) = findings.iter().find(|f| f.rejects) {
        return Err(ValidateError::Invalid(f.message.clone()));
    }
    Ok((t, findings))
}

/// Why an answer was not accepted.
#[derive(Debug)]
pub enum ValidateError {
    /// Repairable: the text to send back.
    Invalid(String),
    /// The solver failed (not the model's fault).
    Solver(solver::SolverError),
}

/// Batch or one request per requirement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// The whole set in one request, JSON object id → term.
    Batch,
    /// One request per requirement.
    PerRequirement,
}

/// Options of [`formalize`].
#[derive(Debug, Clone)]
pub struct FormalizeOptions {
    /// Batch or per requirement.
    pub mode: Mode,
    /// Repair turns after the first attempt (default 5).
    pub max_retries: usize,
    /// Sampling temperature (default 0).
    pub temperature: f64,
    /// Worked examples taken from already formalized requirements (default 2).
    pub examples: usize,
    /// Only these ids (default: every requirement without a formula).
    pub only: Option<Vec<String>>,
    /// Formalize these again even though they have a formula (never done otherwise:
    /// a formula the user wrote is kept).
    pub reformalize: Vec<String>,
    /// Token limit per answer, first attempts and repair turns alike (default
    /// [`DEFAULT_MAX_TOKENS`]; `None` sends no limit).
    pub max_tokens: Option<u32>,
    /// Constrain per-requirement answers with the schema's formula grammar
    /// ([`crate::grammar::Grammar::formula`]) when the provider accepts grammars
    /// (default true; batch answers are JSON and never get it).
    pub grammar: bool,
    /// A requirement of several sentences that no turn formalized is tried once more
    /// clause by clause: each sentence formalized on its own (with the whole text as
    /// context), screened, and the clauses conjoined and screened again (default true).
    pub decompose: bool,
    /// Ask for forms ([`crate::form`]) under a JSON schema and vote on their meaning
    /// before falling back to SMT-LIB terms (per-requirement mode; default true).
    pub forms: bool,
    /// How many forms to draw per requirement and how much they must agree.
    pub vote: crate::formpath::VoteOptions,
    /// Offer arithmetic in forms (`{"sum": [X, Y]}`, ...; [`crate::form::Arith`]) when
    /// the text names two numeric variables (default false: not yet measured to help
    /// the shipped model, docs/formalize.md).
    pub arithmetic: bool,
    /// Read requirements written in controlled English ([`crate::controlled`]) without
    /// a model first (per-requirement mode; default true).
    pub parse: bool,
}

/// Default token limit of a formalization answer: a formula over a schema is a few
/// dozen tokens; a longer answer is prose or a runaway term, cut and repaired.
pub const DEFAULT_MAX_TOKENS: u32 = 256;

impl Default for FormalizeOptions {
    fn default() -> Self {
        FormalizeOptions {
            mode: Mode::PerRequirement,
            max_retries: 5,
            temperature: 0.0,
            examples: 2,
            only: None,
            reformalize: Vec::new(),
            max_tokens: Some(DEFAULT_MAX_TOKENS),
            grammar: true,
            decompose: true,
            forms: true,
            vote: crate::formpath::VoteOptions::default(),
            arithmetic: false,
            parse: true,
        }
    }
}

/// One attempt at a requirement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Attempt {
    /// The answer (shortened).
    pub answer: String,
    /// Why it was not accepted, if it was not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Where a formula came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Provenance {
    /// The provider id.
    pub provider: String,
    /// The model.
    pub model: String,
    /// The prompt template, `name@vN`.
    pub prompt: String,
    /// Attempts used (1 = first attempt).
    pub attempts: usize,
}

/// The outcome for one requirement.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Formalized {
    /// The requirement id.
    pub id: String,
    /// Its text.
    pub text: String,
    /// The accepted formula, printed by vera.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub formula: Option<String>,
    /// The accepted term.
    #[serde(skip)]
    pub term: Option<Term>,
    /// For a timed requirement: the accepted pattern as the keys of a
    /// `[requirements.timed]` table (formulas printed by vera, durations in the tick's
    /// unit), as a JSON object.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pattern: Option<Value>,
    /// The accepted timed pattern.
    #[serde(skip)]
    pub timed: Option<reqs::timed::Pattern>,
    /// Every attempt, in order.
    pub attempts: Vec<Attempt>,
    /// Screening notes on the accepted formula (findings that do not reject it).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<ScreenFinding>,
    /// Where the formula came from.
    pub provenance: Provenance,
    /// Which path produced the formula (none when there is no formula).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<crate::formpath::Path>,
    /// The vote over the model's forms, when forms were drawn.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vote: Option<crate::formpath::Vote>,
    /// The forms disagreed (below the threshold): no formula, the readings are in
    /// `vote` for a person to choose from.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub flagged: bool,
    /// The formula in plain English ([`crate::readback`]), for the reviewer to sign
    /// off on next to the formula.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reads: Option<String>,
    /// Why the controlled-English parser did not read the text (when it was tried and
    /// the model was asked instead).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_parsed: Option<String>,
}

impl Formalized {
    /// True when a formula or a timed pattern was accepted.
    pub fn accepted(&self) -> bool {
        self.formula.is_some() || self.timed.is_some()
    }

    /// Keeps an accepted term (printed by vera as the formula) with its screening notes.
    pub(crate) fn keep_formula(&mut self, t: Term, notes: Vec<ScreenFinding>) {
        self.formula = Some(logic::print::term(&t));
        self.term = Some(t);
        self.notes = notes;
    }
}

/// What [`formalize`] produced.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FormalizeReport {
    /// Batch or per requirement.
    pub mode: Mode,
    /// One entry per requirement asked for, in spec order.
    pub requirements: Vec<Formalized>,
    /// Accepted on the first attempt.
    pub first_attempt: usize,
    /// Accepted after one or more repairs.
    pub after_repair: usize,
    /// Ids that still fail (no formula, not flagged).
    pub failed: Vec<String>,
    /// Ids whose forms disagreed: flagged for review, no formula.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub flagged: Vec<String>,
    /// Formulas by path: the controlled-English parser, forms, SMT-LIB terms.
    pub by_path: ByPath,
    /// Ids that already had a formula and were kept (not sent to the model).
    pub kept: Vec<String>,
    /// Solver queries.
    pub queries: usize,
    /// Why the run stopped asking the model early (a provider failure that is not about
    /// one request): every requirement not asked by then failed with this reason; the
    /// formulas found before are kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub halted: Option<String>,
}

/// How many formulas each path produced.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct ByPath {
    /// By the controlled-English parser (no model).
    pub parser: usize,
    /// By a voted form.
    pub form: usize,
    /// By an SMT-LIB term (the fallback, or the only path with forms off).
    pub smtlib: usize,
}

/// A requirement's conversation in the per-requirement rounds.
struct Work {
    messages: Vec<llm::Message>,
    done: bool,
    /// Rejected answers so far (trimmed), to notice a repetition.
    rejected: Vec<String>,
    /// Set once a repetition was answered with a fresh sample at a higher temperature.
    resampled: bool,
}

/// Temperature of the fresh sample drawn when the model repeats a rejected answer.
pub(crate) const RESAMPLE_TEMPERATURE: f64 = 0.7;

/// The controlled-English path: every requirement of `out` whose text
/// [`crate::controlled::parse`] reads gets the formula of its form, screened like any
/// other (a parse the screening refuses is left to the model, with the reason); the
/// others keep why they did not parse.
fn by_parser(
    spec: &Spec,
    checker: &mut Checker,
    out: &mut [Formalized],
) -> Result<(), PipelineError> {
    for f in out.iter_mut() {
        let form = match crate::controlled::parse(spec, &f.text) {
            Ok(form) => form,
            Err(why) => {
                f.not_parsed = Some(why.reason);
                continue;
            }
        };
        match validate_screened(spec, checker, &form.smtlib(spec), &f.text) {
            Ok((t, notes)) => {
                f.attempts.push(Attempt {
                    answer: format!("[controlled English] {}", form.to_json()),
                    error: None,
                });
                f.keep_formula(t, notes);
                f.path = Some(crate::formpath::Path::Parser);
                f.provenance.provider = "vera".into();
                f.provenance.model = "controlled English".into();
                f.provenance.prompt = "none".into();
            }
            Err(ValidateError::Invalid(e)) => {
                f.not_parsed = Some(format!("parsed, but the formula was refused: {e}"));
            }
            Err(ValidateError::Solver(e)) => return Err(e.into()),
        }
    }
    Ok(())
}

/// Formalizes the requirements of `spec` (or those in `options.only`).
pub fn formalize(
    spec: &Spec,
    client: &Client,
    solver: &SolverConfig,
    options: &FormalizeOptions,
) -> Result<FormalizeReport, PipelineError> {
    let prompts = Prompts::builtin();
    let universe = Universe::of_spec(spec);
    let mut checker = Checker::new(&universe, solver)?;
    let wanted = wanted(spec, options)?;
    let ids: Vec<String> = wanted
        .iter()
        .map(|&i| spec.requirements[i].id.clone())
        .collect();
    let schema = schema_info(spec).render() + &reading_notes(spec);
    let examples =
        screened_examples_or_generic(spec, &mut checker, &prompts, &ids, options.examples)?;
    let template = match options.mode {
        Mode::Batch => prompts.batch.id(),
        Mode::PerRequirement => prompts.one.id(),
    };
    let mut out: Vec<Formalized> = wanted
        .iter()
        .map(|&i| unanswered(&spec.requirements[i], client, &template))
        .collect();
    // In a spec with a [time] table, a requirement without a formula (or with a timed
    // pattern, asked again) is formalized as a timed pattern; one that has a formula
    // keeps the formula path.
    let timed_path: Vec<bool> = wanted
        .iter()
        .map(|&i| spec.time.is_some() && spec.requirements[i].formula.is_none())
        .collect();
    let (timed_idx, plain_idx): (Vec<usize>, Vec<usize>) =
        (0..out.len()).partition(|&k| timed_path[k]);
    let take = |idx: &[usize], out: &[Formalized]| -> Vec<Formalized> {
        idx.iter().map(|&k| out[k].clone()).collect()
    };
    let mut timed_items = take(&timed_idx, &out);
    let mut halted = by_timed_patterns(spec, client, &mut checker, options, &mut timed_items)?;
    let mut plain = take(&plain_idx, &out);
    if let Some(reason) = &halted {
        // The provider failed on the timed requirements: the others are not asked.
        let left: Vec<usize> = (0..plain.len()).filter(|&k| !plain[k].accepted()).collect();
        not_asked(reason, left, &mut plain);
    } else if !plain.is_empty() {
        let ask = (&prompts, schema.as_str(), examples.as_str());
        halted = match options.mode {
            Mode::PerRequirement => by_paths(spec, client, &mut checker, options, ask, &mut plain)?,
            Mode::Batch => batch(spec, client, &mut checker, options, ask, &mut plain)?,
        };
    }
    for (k, f) in timed_idx.iter().zip(timed_items) {
        out[*k] = f;
    }
    for (k, f) in plain_idx.iter().zip(plain) {
        out[*k] = f;
    }
    let by_path = settle(spec, &mut out);
    Ok(report(spec, options, out, by_path, checker.queries, halted))
}

/// The requirements to formalize; an unknown id selected is an input error.
fn wanted(spec: &Spec, options: &FormalizeOptions) -> Result<Vec<usize>, PipelineError> {
    let wanted: Vec<usize> = spec
        .requirements
        .iter()
        .enumerate()
        .filter(|(_, r)| options.only.as_ref().is_none_or(|o| o.contains(&r.id)))
        .filter(|(_, r)| {
            (r.formula.is_none() && r.timed.is_none()) || options.reformalize.contains(&r.id)
        })
        .map(|(i, _)| i)
        .collect();
    for id in options.only.iter().flatten().chain(&options.reformalize) {
        if !spec.requirements.iter().any(|r| &r.id == id) {
            return Err(PipelineError::Input(format!("no requirement `{id}`")));
        }
    }
    Ok(wanted)
}

/// The entry of a requirement before any path ran: no formula, no attempt.
fn unanswered(r: &reqs::spec::Requirement, client: &Client, template: &str) -> Formalized {
    Formalized {
        id: r.id.clone(),
        text: r.text.clone(),
        formula: None,
        term: None,
        pattern: None,
        timed: None,
        attempts: vec![],
        notes: vec![],
        provenance: Provenance {
            provider: client.provider().id().to_string(),
            model: client.provider().model().to_string(),
            prompt: template.to_string(),
            attempts: 0,
        },
        path: None,
        vote: None,
        flagged: false,
        reads: None,
        not_parsed: None,
    }
}

/// Formalizes a timed spec's requirements as patterns; why the run stops, if it does.
fn by_timed_patterns(
    spec: &Spec,
    client: &Client,
    checker: &mut Checker,
    options: &FormalizeOptions,
    items: &mut [Formalized],
) -> Result<Option<String>, PipelineError> {
    if items.is_empty() {
        return Ok(None);
    }
    let timed_prompts = crate::timed::TimedPrompts::builtin();
    for f in items.iter_mut() {
        f.provenance.prompt = match options.mode {
            Mode::PerRequirement => timed_prompts.one.id(),
            Mode::Batch => timed_prompts.batch.id(),
        };
    }
    match options.mode {
        Mode::PerRequirement => {
            crate::timed::formalize_timed(spec, client, checker, options, &timed_prompts, items)
        }
        Mode::Batch => crate::timed::formalize_timed_batch(
            spec,
            client,
            checker,
            options,
            &timed_prompts,
            items,
        ),
    }
}

/// The parser, voted forms, then SMT-LIB terms for the rest; why the run stops, if it does.
fn by_paths(
    spec: &Spec,
    client: &Client,
    checker: &mut Checker,
    options: &FormalizeOptions,
    (prompts, schema, examples): (&Prompts, &str, &str),
    plain: &mut [Formalized],
) -> Result<Option<String>, PipelineError> {
    let mut halted = None;
    if options.parse {
        by_parser(spec, checker, plain)?;
    }
    if options.forms {
        halted = crate::formpath::formalize_by_forms(spec, client, checker, options, plain)?;
    }
    // What no form stated goes to the SMT-LIB path (a flagged requirement
    // had valid forms that disagree: it waits for a person instead).
    let mut rest: Vec<usize> = (0..plain.len())
        .filter(|&k| !plain[k].accepted() && !plain[k].flagged)
        .filter(|&k| !options.forms || crate::formpath::inputs_only(spec, &plain[k].text).is_none())
        .filter(|_| halted.is_none())
        .collect();
    if !rest.is_empty() {
        let mut fallback: Vec<Formalized> = rest.iter().map(|&k| plain[k].clone()).collect();
        for f in &mut fallback {
            f.provenance.prompt = prompts.one.id();
        }
        halted = per_requirement(
            spec,
            client,
            checker,
            options,
            (prompts, schema, examples),
            &mut fallback,
        )?;
        for (k, mut f) in rest.drain(..).zip(fallback) {
            if f.accepted() {
                f.path = Some(crate::formpath::Path::Smtlib);
            }
            plain[k] = f;
        }
    }
    Ok(halted)
}

/// Completes each entry once every path ran and counts the formulas by path.
fn settle(spec: &Spec, out: &mut [Formalized]) -> ByPath {
    let mut by_path = ByPath::default();
    for f in out.iter_mut() {
        if let Some(t) = &f.term {
            f.reads = Some(crate::readback::sentence(spec, t));
        }
        f.provenance.attempts = f.attempts.len();
        if f.formula.is_some() && f.path.is_none() {
            // Batch mode: the model's own term. (A timed pattern has no path: it is
            // the model's answer in the pattern's own JSON.)
            f.path = Some(crate::formpath::Path::Smtlib);
        }
        match f.path {
            Some(crate::formpath::Path::Parser) => by_path.parser += 1,
            Some(crate::formpath::Path::Form) => by_path.form += 1,
            Some(crate::formpath::Path::Smtlib) => by_path.smtlib += 1,
            None => {}
        }
    }
    by_path
}

/// The report of a run: the entries and the counts a reader looks at first.
fn report(
    spec: &Spec,
    options: &FormalizeOptions,
    out: Vec<Formalized>,
    by_path: ByPath,
    queries: usize,
    halted: Option<String>,
) -> FormalizeReport {
    // First attempt: no answer of the requirement was rejected.
    let first_attempt = out
        .iter()
        .filter(|f| f.accepted() && f.attempts.iter().all(|a| a.error.is_none()))
        .count();
    let after_repair = out
        .iter()
        .filter(|f| f.accepted() && f.attempts.iter().any(|a| a.error.is_some()))
        .count();
    let failed = out
        .iter()
        .filter(|f| !f.accepted() && !f.flagged)
        .map(|f| f.id.clone())
        .collect();
    let flagged = out
        .iter()
        .filter(|f| f.flagged)
        .map(|f| f.id.clone())
        .collect();
    let kept = spec
        .requirements
        .iter()
        .filter(|r| options.only.as_ref().is_none_or(|o| o.contains(&r.id)))
        .filter(|r| {
            (r.formula.is_some() || r.timed.is_some()) && !options.reformalize.contains(&r.id)
        })
        .map(|r| r.id.clone())
        .collect();
    FormalizeReport {
        mode: options.mode,
        requirements: out,
        first_attempt,
        after_repair,
        failed,
        flagged,
        by_path,
        kept,
        queries,
        halted,
    }
}

/// The prompt of one requirement (also used by the ambiguity screening).
pub fn requirement_prompt(
    prompts: &Prompts,
    schema: &str,
    examples: &str,
    text: &str,
) -> Result<String, LlmError> {
    prompts.one.render(&[
        ("schema", schema),
        ("examples", examples),
        ("requirement", text),
    ])
}

/// Keeps a conversation within the model's context window (when the configuration or
/// the server tells it): the prompt and the answer's token limit must fit. Tokens are
/// estimated at one per three characters (a tokenizer of English and code gives
/// about one per four; JSON and SMT-LIB's brackets are cut finer). When they do not fit,
/// the turns between the first message and the latest exchange go; when even that is
/// too long, only the first message stays, and the request is sent as a fresh start.
pub fn fit_context(client: &Client, messages: &mut Vec<llm::Message>, max_tokens: Option<u32>) {
    let Some(window) = client.context_window() else {
        return;
    };
    let estimate = |m: &[llm::Message]| -> u64 {
        let chars: usize = m.iter().map(|x| x.content.chars().count() + 12).sum();
        (chars as u64).div_ceil(3) + u64::from(max_tokens.unwrap_or(DEFAULT_MAX_TOKENS))
    };
    let window = u64::from(window);
    if estimate(messages) <= window {
        return;
    }
    if messages.len() > 3 {
        let tail = messages.split_off(messages.len() - 2);
        messages.truncate(1);
        messages.extend(tail);
    }
    if estimate(messages) > window {
        messages.truncate(1);
    }
}

pub(crate) fn request(
    messages: &[llm::Message],
    options: &FormalizeOptions,
    grammar: Option<&str>,
) -> Request {
    let mut r = Request::new().temperature(options.temperature);
    r.messages = messages.to_vec();
    if let Some(m) = options.max_tokens {
        r = r.max_tokens(m);
    }
    if let Some(g) = grammar {
        r = r.grammar(g);
    }
    r
}

/// The formula grammar of `spec` in GBNF, when `client`'s provider accepts grammars
/// (`None` otherwise: answers are then only parsed and repaired).
pub fn formula_grammar(spec: &Spec, client: &Client) -> Option<String> {
    client
        .accepts_grammar()
        .then(|| crate::grammar::Grammar::formula(spec).gbnf())
}

/// What a provider failure (not a problem of the answer) stops.
pub(crate) enum ProviderFailure {
    /// This request only: the server refused it (its size, its content), the others
    /// may go through.
    ThisRequest(String),
    /// The whole run: configuration, authentication, transport after retries, a replay
    /// miss. Nothing more is asked; what was formalized is kept.
    Everything(String),
}

/// Sorts a provider failure.
pub(crate) fn provider_failure(e: &LlmError) -> ProviderFailure {
    match e {
        LlmError::Http {
            status: 400 | 413 | 422,
            ..
        } => ProviderFailure::ThisRequest(format!("the provider refused this request: {e}")),
        _ => ProviderFailure::Everything(format!("the provider failed: {e}")),
    }
}

/// The requirements a run did not get to ask about because the provider failed: each
/// keeps `not asked: REASON` as its attempt, so it is reported, never dropped.
pub(crate) fn not_asked(
    reason: &str,
    left: impl IntoIterator<Item = usize>,
    out: &mut [Formalized],
) {
    for i in left {
        out[i].attempts.push(Attempt {
            answer: String::new(),
            error: Some(format!("not asked: {reason}")),
        });
    }
}

/// A request about the requirements `asked` that the provider failed: each keeps the
/// failure as its attempt. Gives back why the run stops when the provider itself failed
/// (`None` when the server only refused this request).
pub(crate) fn request_failed(
    e: &LlmError,
    asked: &[usize],
    out: &mut [Formalized],
) -> Option<String> {
    let (reason, halt) = match provider_failure(e) {
        ProviderFailure::ThisRequest(r) => (r, None),
        ProviderFailure::Everything(r) => (r.clone(), Some(r)),
    };
    for &i in asked {
        out[i].attempts.push(Attempt {
            answer: String::new(),
            error: Some(reason.clone()),
        });
    }
    halt
}

/// An answer problem from the client becomes a repairable error with the LLM's feedback.
pub(crate) fn answer_problem(e: &LlmError) -> Option<(String, String)> {
    if !e.is_answer_problem() {
        return None;
    }
    let shown = match e {
        LlmError::Truncated { partial, .. }
        | LlmError::Runaway { partial, .. }
        | LlmError::Filtered { partial } => excerpt(partial),
        LlmError::Malformed { text, .. } => excerpt(text),
        LlmError::Oversized { bytes, .. } => format!("(an answer of {bytes} bytes, not shown)"),
        _ => String::new(),
    };
    Some((shown, e.feedback().unwrap_or_else(|| e.to_string())))
}

/// The SMT-LIB path, one request per requirement (see [`repair_rounds`]); then, unless
/// the provider failed, the clause-by-clause strategy for what is left.
fn per_requirement(
    spec: &Spec,
    client: &Client,
    checker: &mut Checker,
    options: &FormalizeOptions,
    (prompts, schema, examples): (&Prompts, &str, &str),
    out: &mut [Formalized],
) -> Result<Option<String>, PipelineError> {
    let grammar = if options.grammar {
        formula_grammar(spec, client)
    } else {
        None
    };
    let mut firsts = Vec::new();
    for f in out.iter() {
        firsts.push(requirement_prompt(prompts, schema, examples, &f.text)?);
    }
    let turns = Turns {
        label: "formalize",
        max_retries: options.max_retries,
        repair: &prompts.repair,
        again: "This is the same answer as before, which was already rejected. Write a different term: think about what the requirement demands, clause by clause, and conjoin the clauses.",
        trim_problems: false,
    };
    let (halted, left) = repair_rounds(
        client,
        &turns,
        firsts,
        out,
        |messages| {
            let mut messages = messages.to_vec();
            fit_context(client, &mut messages, options.max_tokens);
            request(&messages, options, grammar.as_deref())
        },
        |c, f| match validate_screened(spec, checker, c.text(), &f.text) {
            Ok((t, notes)) => {
                f.keep_formula(t, notes);
                Ok(Ok(()))
            }
            Err(ValidateError::Invalid(error)) => Ok(Err(Refused {
                error,
                raw: c.text().trim().to_string(),
            })),
            Err(ValidateError::Solver(e)) => Err(e.into()),
        },
    )?;
    if let Some(reason) = &halted {
        not_asked(reason, left, out);
        return Ok(halted);
    }
    if options.decompose {
        for i in left {
            let halt = decompose(
                spec,
                client,
                checker,
                options,
                (prompts, schema, examples),
                grammar.as_deref(),
                &mut out[i],
            )?;
            if halt.is_some() {
                return Ok(halt);
            }
        }
    }
    Ok(None)
}

/// How the per-requirement rounds of one kind of answer (SMT-LIB terms or timed
/// patterns) talk to the model.
pub(crate) struct Turns<'a> {
    /// Names the requests to the client.
    pub label: &'a str,
    /// Repair turns after the first attempt.
    pub max_retries: usize,
    /// The repair turn (its `problem` is the error).
    pub repair: &'a Template,
    /// What the repair turn says after the error when the answer repeats a rejected one.
    pub again: &'a str,
    /// An answer problem of the client (a truncated or malformed answer) is compared
    /// with the rejected answers trimmed (the timed path), else as shown.
    pub trim_problems: bool,
}

/// An answer `read` did not accept (see [`repair_rounds`]).
pub(crate) struct Refused {
    /// Why, as the repair turn says it.
    pub error: String,
    /// The answer as it is compared with the rejected ones, to notice a repetition.
    pub raw: String,
}

/// The rounds of a per-requirement run (formulas or timed patterns) after the first
/// message of each requirement of `out` (`firsts`, in order): each round asks every
/// requirement still open in its own request (`ask` builds it from the conversation; a
/// requirement that repeated a rejected answer is sampled afresh at
/// [`RESAMPLE_TEMPERATURE`]), `read` checks an answer and keeps an accepted one in the
/// entry, and a refused one goes back with its error in a repair turn, up to
/// `max_retries` times; a second repetition ends the requirement's turns. A provider
/// failure is the attempt of the requirement asked; when it stops the run, the
/// requirements still open at the next round are marked not asked. Gives back why the
/// run stopped, if it did, and the requirements still open after the last round
/// (none when a next round marked them not asked).
pub(crate) fn repair_rounds(
    client: &Client,
    turns: &Turns,
    firsts: Vec<String>,
    out: &mut [Formalized],
    ask: impl Fn(&[llm::Message]) -> Request,
    mut read: impl FnMut(
        &llm::Completion,
        &mut Formalized,
    ) -> Result<Result<(), Refused>, PipelineError>,
) -> Result<(Option<String>, Vec<usize>), PipelineError> {
    let mut work: Vec<Work> = firsts
        .into_iter()
        .map(|user| Work {
            messages: vec![llm::Message::user(user)],
            done: false,
            rejected: Vec::new(),
            resampled: false,
        })
        .collect();
    let mut halted: Option<String> = None;
    for _round in 0..=turns.max_retries {
        let open: Vec<usize> = (0..work.len()).filter(|&i| !work[i].done).collect();
        if open.is_empty() {
            break;
        }
        if let Some(reason) = &halted {
            not_asked(reason, open, out);
            return Ok((halted, Vec::new()));
        }
        let reqs: Vec<Request> = open
            .iter()
            .map(|&i| {
                let r = ask(&work[i].messages);
                if work[i].resampled {
                    r.temperature(RESAMPLE_TEMPERATURE).sample(1)
                } else {
                    r
                }
            })
            .collect();
        let answers = client.run_all(turns.label, &reqs);
        for (&i, a) in open.iter().zip(answers) {
            let (shown, error, raw) = match a {
                Ok(c) => match read(&c, &mut out[i])? {
                    Ok(()) => {
                        out[i].attempts.push(Attempt {
                            answer: excerpt(c.text()),
                            error: None,
                        });
                        work[i].done = true;
                        continue;
                    }
                    Err(Refused { error, raw }) => (excerpt(c.text()), error, raw),
                },
                Err(e) => match answer_problem(&e) {
                    Some((shown, fb)) => {
                        let raw = if turns.trim_problems {
                            shown.trim().to_string()
                        } else {
                            shown.clone()
                        };
                        (shown, fb, raw)
                    }
                    None => {
                        work[i].done = true;
                        if let Some(r) = request_failed(&e, &[i], out) {
                            halted.get_or_insert(r);
                        }
                        continue;
                    }
                },
            };
            repair_turn(turns, &mut work[i], &mut out[i], (shown, error, raw))?;
        }
    }
    let left = (0..work.len()).filter(|&i| !work[i].done).collect();
    Ok((halted, left))
}

/// A refused answer (as shown, the error, as compared): recorded as the requirement's
/// attempt and sent back in a repair turn, unless it repeats a rejected answer after
/// the fresh sample (then the requirement's turns end).
fn repair_turn(
    turns: &Turns,
    w: &mut Work,
    f: &mut Formalized,
    (shown, error, raw): (String, String, String),
) -> Result<(), PipelineError> {
    let repeated = w.rejected.contains(&raw);
    w.rejected.push(raw);
    if repeated && w.resampled {
        // Asked differently once already: more turns would only repeat it.
        f.attempts.push(Attempt {
            answer: shown,
            error: Some(format!(
                "stopped: the model repeated a rejected answer again ({error})"
            )),
        });
        w.done = true;
        return Ok(());
    }
    f.attempts.push(Attempt {
        answer: shown.clone(),
        error: Some(error.clone()),
    });
    let problem = if repeated {
        // A different strategy: say so, and sample afresh at a higher temperature.
        w.resampled = true;
        format!("{error}\n{}", turns.again)
    } else {
        error
    };
    let repair = turns.repair.render(&[("problem", &problem)])?;
    w.messages.push(llm::Message::assistant(shown));
    w.messages.push(llm::Message::user(repair));
    Ok(())
}

/// The sentences of a requirement text: split after `.`, `!` or `?` followed by
/// white space and an upper-case letter (so `8.5 V` and `e.g. a` stay whole). Texts of
/// one sentence give one element.
pub fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for k in 0..chars.len() {
        let (at, c) = chars[k];
        if !matches!(c, '.' | '!' | '?') {
            continue;
        }
        let mut j = k + 1;
        let mut spaced = false;
        while j < chars.len() && chars[j].1.is_whitespace() {
            spaced = true;
            j += 1;
        }
        if spaced && j < chars.len() && chars[j].1.is_uppercase() {
            let piece = text[start..at + c.len_utf8()].trim();
            if !piece.is_empty() {
                out.push(piece.to_string());
            }
            start = chars[j].0;
        }
    }
    let rest = text[start..].trim();
    if !rest.is_empty() {
        out.push(rest.to_string());
    }
    out
}

/// The clause-by-clause strategy for a multi-sentence requirement that no turn
/// formalized (see [`FormalizeOptions::decompose`]). Each clause is asked once; the
/// attempts are recorded as `[clause k/n] ...`. Each clause is screened against the
/// whole text; the requirement gets a formula only if every clause is accepted and their
/// conjunction passes screening too.
fn decompose(
    spec: &Spec,
    client: &Client,
    checker: &mut Checker,
    options: &FormalizeOptions,
    (prompts, schema, examples): (&Prompts, &str, &str),
    grammar: Option<&str>,
    f: &mut Formalized,
) -> Result<Option<String>, PipelineError> {
    let clauses = sentences(&f.text);
    if clauses.len() < 2 {
        return Ok(None);
    }
    let n = clauses.len();
    let mut reqs = Vec::with_capacity(n);
    for c in &clauses {
        let text = format!(
            "{c} (This is one sentence of the requirement \"{}\". Formalize only this sentence; read words such as \"it\" or \"they\" from the whole requirement.)",
            f.text
        );
        let user = requirement_prompt(prompts, schema, examples, &text)?;
        reqs.push(request(&[llm::Message::user(user)], options, grammar));
    }
    let answers = client.run_all("formalize", &reqs);
    let mut terms = Vec::with_capacity(n);
    for (k, a) in answers.into_iter().enumerate() {
        let tag = format!("[clause {}/{n}]", k + 1);
        match a {
            // Screened against the whole text: a clause may name its subject only
            // in another sentence ("they").
            Ok(c) => match validate_screened(spec, checker, c.text(), &f.text) {
                Ok((t, _)) => {
                    f.attempts.push(Attempt {
                        answer: format!("{tag} {}", excerpt(c.text())),
                        error: None,
                    });
                    terms.push(t);
                }
                Err(ValidateError::Invalid(e)) => f.attempts.push(Attempt {
                    answer: format!("{tag} {}", excerpt(c.text())),
                    error: Some(e),
                }),
                Err(ValidateError::Solver(e)) => return Err(e.into()),
            },
            Err(e) => match answer_problem(&e) {
                Some((shown, fb)) => f.attempts.push(Attempt {
                    answer: format!("{tag} {shown}"),
                    error: Some(fb),
                }),
                None => {
                    let (reason, halt) = match provider_failure(&e) {
                        ProviderFailure::ThisRequest(r) => (r, None),
                        ProviderFailure::Everything(r) => (r.clone(), Some(r)),
                    };
                    f.attempts.push(Attempt {
                        answer: tag.clone(),
                        error: Some(reason),
                    });
                    return Ok(halt);
                }
            },
        }
    }
    if terms.len() < n {
        return Ok(None);
    }
    let conj = format!(
        "(and {})",
        terms
            .iter()
            .map(logic::print::term)
            .collect::<Vec<_>>()
            .join(" ")
    );
    match validate_screened(spec, checker, &conj, &f.text) {
        Ok((t, notes)) => {
            f.attempts.push(Attempt {
                answer: format!("[clauses conjoined] {}", excerpt(&conj)),
                error: None,
            });
            f.keep_formula(t, notes);
        }
        Err(ValidateError::Invalid(e)) => f.attempts.push(Attempt {
            answer: format!("[clauses conjoined] {}", excerpt(&conj)),
            error: Some(e),
        }),
        Err(ValidateError::Solver(e)) => return Err(e.into()),
    }
    Ok(None)
}

/// Batch mode of the formula path: every requirement in one request, the failures
/// back in one repair turn. Gives back why the run stopped when the provider failed
/// (the requirements then asked keep the failure as their attempt).
fn batch(
    spec: &Spec,
    client: &Client,
    checker: &mut Checker,
    options: &FormalizeOptions,
    (prompts, schema, examples): (&Prompts, &str, &str),
    out: &mut [Formalized],
) -> Result<Option<String>, PipelineError> {
    let user = prompts.batch.render(&[
        ("schema", schema),
        ("examples", examples),
        ("requirements", &requirement_list(out)),
    ])?;
    batch_rounds(
        client,
        "formalize",
        options.max_retries,
        &prompts.batch_repair,
        user,
        out,
        |f| f.formula.is_none(),
        |messages, ids| request(messages, options, None).schema("formulas", object_schema(ids)),
        |json, f| {
            let text = json.get(&f.id).and_then(Value::as_str).unwrap_or("");
            let requirement = f.text.clone();
            match validate_screened(spec, checker, text, &requirement) {
                Ok((t, notes)) => {
                    f.keep_formula(t, notes);
                    Ok((excerpt(text), None))
                }
                Err(ValidateError::Invalid(e)) => Ok((excerpt(text), Some(e))),
                Err(ValidateError::Solver(e)) => Err(e.into()),
            }
        },
    )
}

/// The requirements of a batch prompt, one `- id: text` line each.
pub(crate) fn requirement_list(out: &[Formalized]) -> String {
    let mut list = String::new();
    for f in out.iter() {
        let _ = writeln!(list, "- {}: {}", f.id, f.text);
    }
    list
}

/// The rounds of a batch run (formulas or timed patterns) after its first message
/// `user`: each round asks about the requirements still `open` in one request (`ask`
/// builds it from the conversation and their ids, `label` names it to the client),
/// `read` takes each one's part of the answer (the answer as its attempt shows it and
/// the error that rejected it; an accepted one `read` stores), and the failures go back
/// in one `repair` turn listing each id's error, up to `max_retries` times. Gives back
/// why the run stopped when the provider failed (the requirements then asked keep the
/// failure as their attempt).
#[allow(clippy::too_many_arguments)]
pub(crate) fn batch_rounds(
    client: &Client,
    label: &str,
    max_retries: usize,
    repair: &Template,
    user: String,
    out: &mut [Formalized],
    open: impl Fn(&Formalized) -> bool,
    ask: impl Fn(&[llm::Message], &[&str]) -> Request,
    mut read: impl FnMut(&Value, &mut Formalized) -> Result<(String, Option<String>), PipelineError>,
) -> Result<Option<String>, PipelineError> {
    let mut messages = vec![llm::Message::user(user)];
    for _round in 0..=max_retries {
        let open: Vec<usize> = (0..out.len()).filter(|&i| open(&out[i])).collect();
        if open.is_empty() {
            break;
        }
        let ids: Vec<&str> = open.iter().map(|&i| out[i].id.as_str()).collect();
        let req = ask(&messages, &ids);
        let (answer_text, problems): (String, Vec<(usize, String)>) =
            match client.complete(label, &req) {
                Ok(c) => {
                    let json = c.json.clone().unwrap_or(Value::Null);
                    let mut problems = Vec::new();
                    for &i in &open {
                        let (answer, error) = read(&json, &mut out[i])?;
                        out[i].attempts.push(Attempt {
                            answer,
                            error: error.clone(),
                        });
                        if let Some(e) = error {
                            problems.push((i, e));
                        }
                    }
                    (excerpt(c.text()), problems)
                }
                Err(e) => match answer_problem(&e) {
                    Some((shown, fb)) => {
                        for &i in &open {
                            out[i].attempts.push(Attempt {
                                answer: shown.clone(),
                                error: Some(fb.clone()),
                            });
                        }
                        (shown, open.iter().map(|&i| (i, fb.clone())).collect())
                    }
                    None => return Ok(request_failed(&e, &open, out)),
                },
            };
        if problems.is_empty() {
            break;
        }
        let mut listed = String::new();
        for (i, e) in &problems {
            let _ = writeln!(listed, "- {}: {}", out[*i].id, e.replace('\n', "\n  "));
        }
        let ids: Vec<&str> = problems.iter().map(|(i, _)| out[*i].id.as_str()).collect();
        let repair = repair.render(&[("problems", &listed), ("ids", &ids.join(", "))])?;
        messages.push(llm::Message::assistant(answer_text));
        messages.push(llm::Message::user(repair));
    }
    Ok(None)
}

fn object_schema(ids: &[&str]) -> Value {
    let props: serde_json::Map<String, Value> = ids
        .iter()
        .map(|id| (id.to_string(), json!({"type": "string"})))
        .collect();
    json!({"type": "object", "properties": props, "required": ids, "additionalProperties": false})
}

// ------------------------------------------------------------------ writing specs

/// One requirement as written to a new spec file.
#[derive(Debug, Clone)]
pub struct OutRequirement {
    /// Its id.
    pub id: String,
    /// Its text.
    pub text: String,
    /// Its formula, if any.
    pub formula: Option<String>,
    /// Who wrote the formula (written as `origin`/`accepted`).
    pub origin: reqs::spec::Origin,
    /// Comment lines written above it (provenance, failures).
    pub notes: Vec<String>,
    /// Its timed pattern as the keys of `[requirements.timed]` (written instead of a
    /// formula; needs a spec with a `[time]` table).
    pub timed: Option<Vec<(String, reqs::timed::answer::KeyValue)>>,
}

impl OutRequirement {
    /// A requirement written back as it is in `spec`: text, formula, origin, pattern.
    pub fn as_is(spec: &Spec, r: &reqs::spec::Requirement) -> OutRequirement {
        OutRequirement {
            id: r.id.clone(),
            text: r.text.clone(),
            origin: r.origin,
            formula: r.formula.as_ref().map(logic::print::term),
            notes: vec![],
            timed: OutRequirement::timed_keys(spec, r),
        }
    }

    /// The keys of a requirement's timed pattern, when it has one and the spec a time base.
    pub fn timed_keys(
        spec: &Spec,
        r: &reqs::spec::Requirement,
    ) -> Option<Vec<(String, reqs::timed::answer::KeyValue)>> {
        let tb = spec.time.as_ref()?;
        r.timed
            .as_ref()
            .map(|p| reqs::timed::answer::keys_of(p, tb))
    }
}

fn toml_str(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

fn number(r: &num_rational::BigRational) -> String {
    if r.is_integer() {
        r.to_integer().to_string()
    } else {
        logic::Value::Real(r.clone()).to_string()
    }
}

/// Writes `text` as TOML comment lines, one per line of it. TOML allows no control
/// character but tab in a comment, and a model's answer, an id or a file name may hold
/// one (a NUL, a carriage return, a terminal escape): each is written as U+FFFD, so the
/// spec always loads and shows nothing that acts on a terminal.
fn comment(o: &mut String, text: &str) {
    for line in text.split(['\n', '\r']) {
        let clean: String = line
            .chars()
            .map(|c| {
                if c != '\t' && (c.is_control() || c == '\u{7f}') {
                    '\u{fffd}'
                } else {
                    c
                }
            })
            .collect();
        let _ = writeln!(o, "# {clean}");
    }
}

/// Writes a spec in the TOML format of docs/spec-format.md: the schema and domain of
/// `spec` and the given requirements.
pub fn render_spec(spec: &Spec, header: &[String], reqs: &[OutRequirement]) -> String {
    render_spec_annotated(spec, header, &HashMap::new(), reqs)
}

/// [`render_spec`] with comment lines above variables (`variable_notes`, by name).
pub fn render_spec_annotated(
    spec: &Spec,
    header: &[String],
    variable_notes: &HashMap<String, Vec<String>>,
    reqs: &[OutRequirement],
) -> String {
    let mut o = String::new();
    for h in header {
        comment(&mut o, h);
    }
    let _ = writeln!(
        o,
        "\n[spec]\nname = {}\nlogic = {}",
        toml_str(&spec.name),
        toml_str(&spec.logic)
    );
    for (n, vs) in &spec.enums {
        let values: Vec<String> = vs.iter().map(|v| toml_str(v)).collect();
        let _ = writeln!(
            o,
            "\n[[enums]]\nname = {}\nvalues = [{}]",
            toml_str(n),
            values.join(", ")
        );
    }
    for v in &spec.variables {
        let sort = match &v.sort {
            Sort::Enum(e) => e.to_string(),
            s => s.to_string(),
        };
        o.push('\n');
        for n in variable_notes.get(&*v.name).into_iter().flatten() {
            comment(&mut o, n);
        }
        let _ = writeln!(
            o,
            "[[variables]]\nname = {}\nsort = {}",
            toml_str(&v.name),
            toml_str(&sort)
        );
        if let Some(u) = &v.unit {
            let _ = writeln!(o, "unit = {}", toml_str(u));
        }
        if let Some(d) = &v.description {
            let _ = writeln!(o, "description = {}", toml_str(d));
        }
        if let Some(m) = &v.min {
            let _ = writeln!(o, "min = {}", number(m));
        }
        if let Some(m) = &v.max {
            let _ = writeln!(o, "max = {}", number(m));
        }
        match v.role {
            Some(reqs::spec::Role::Input) => {
                let _ = writeln!(o, "role = \"input\"");
            }
            Some(reqs::spec::Role::Output) => {
                let _ = writeln!(o, "role = \"output\"");
            }
            None => {}
        }
    }
    if let Some(tb) = &spec.time {
        let _ = writeln!(o, "\n[time]\ntick = {}", toml_str(&tb.tick_text));
        if let Some(h) = tb.horizon {
            let _ = writeln!(
                o,
                "horizon = {}",
                toml_str(&reqs::timed::answer::duration_text(tb, h))
            );
        }
        if !tb.durations.is_empty() {
            let _ = writeln!(o, "\n[time.durations]");
            for (n, d) in &tb.durations {
                let _ = writeln!(
                    o,
                    "{n} = {}",
                    toml_str(&reqs::timed::answer::duration_text(tb, *d))
                );
            }
        }
    }
    for d in user_domain(spec) {
        let _ = writeln!(o, "\n[[domain]]\nid = {}", toml_str(&d.id));
        if let Some(t) = &d.text {
            let _ = writeln!(o, "text = {}", toml_str(t));
        }
        let _ = writeln!(o, "formula = {}", toml_str(&logic::print::term(&d.formula)));
    }
    for r in reqs {
        o.push('\n');
        for n in &r.notes {
            comment(&mut o, n);
        }
        let _ = writeln!(
            o,
            "[[requirements]]\nid = {}\ntext = {}",
            toml_str(&r.id),
            toml_str(&r.text)
        );
        if let Some(f) = &r.formula {
            let _ = writeln!(o, "formula = {}", toml_str(f));
            match r.origin {
                reqs::spec::Origin::Hand => {}
                reqs::spec::Origin::Model => {
                    let _ = writeln!(o, "origin = \"model\"");
                }
                reqs::spec::Origin::ModelAccepted => {
                    let _ = writeln!(o, "origin = \"model\"\naccepted = true");
                }
            }
        } else if let Some(keys) = r.timed.as_ref().filter(|_| spec.time.is_some()) {
            match r.origin {
                reqs::spec::Origin::Hand => {}
                reqs::spec::Origin::Model => {
                    let _ = writeln!(o, "origin = \"model\"");
                }
                reqs::spec::Origin::ModelAccepted => {
                    let _ = writeln!(o, "origin = \"model\"\naccepted = true");
                }
            }
            let table = reqs::timed::answer::table_text(keys);
            let body = table.strip_prefix("[timed]\n").unwrap_or(&table);
            let _ = write!(o, "[requirements.timed]\n{body}");
        }
    }
    o
}

/// The new spec after formalization: every requirement of `spec`, those formalized now
/// with their new formula and provenance, those that failed without a formula and with
/// the last error.
pub fn formalized_spec(spec: &Spec, report: &FormalizeReport) -> String {
    if let Some(text) = formalized_in_place(spec, report) {
        return text;
    }
    let header = vec![
        format!("Formalized by vera from {}.", spec.source.name()),
        format!(
            "Mode {:?}; {} formalized on the first attempt, {} after repair, {} failed.",
            report.mode,
            report.first_attempt,
            report.after_repair,
            report.failed.len()
        ),
    ];
    let reqs: Vec<OutRequirement> = spec
        .requirements
        .iter()
        .map(
            |r| match report.requirements.iter().find(|f| f.id == r.id) {
                Some(f) => {
                    let mut notes = notes_of(f);
                    if !f.accepted() && !f.flagged {
                        let last = f
                            .attempts
                            .last()
                            .and_then(|a| a.error.clone())
                            .unwrap_or_default();
                        notes.push(format!(
                            "NOT FORMALIZED: {}",
                            last.lines().next().unwrap_or("")
                        ));
                    }
                    OutRequirement {
                        id: r.id.clone(),
                        text: r.text.clone(),
                        formula: f.formula.clone(),
                        origin: reqs::spec::Origin::Model,
                        notes,
                        timed: match (&f.timed, &spec.time) {
                            (Some(p), Some(tb)) => Some(reqs::timed::answer::keys_of(p, tb)),
                            _ => None,
                        },
                    }
                }
                None => OutRequirement {
                    id: r.id.clone(),
                    text: r.text.clone(),
                    formula: r.formula.as_ref().map(logic::print::term),
                    origin: r.origin,
                    notes: vec![],
                    timed: OutRequirement::timed_keys(spec, r),
                },
            },
        )
        .collect();
    render_spec(spec, &header, &reqs)
}

/// [`formalized_spec`] for a spec read from a TOML file: the file's own text with only
/// the requirements asked of the model changed (their `formula` or `[requirements.timed]`
/// table, `origin`, and comment lines above them), so every formula, number, comment and
/// table the user wrote stays byte for byte. A requirement the model could not formalize
/// keeps what it had. `None` when the source is not a TOML spec (a CSV with a schema).
fn formalized_in_place(spec: &Spec, report: &FormalizeReport) -> Option<String> {
    use toml_edit::{DocumentMut, Item};
    let (bom, source) = match spec.source.text().strip_prefix('\u{feff}') {
        Some(rest) => ("\u{feff}", rest),
        None => ("", spec.source.text()),
    };
    let mut doc: DocumentMut = source.parse().ok()?;
    doc.get("spec")?;
    // The requirements must be this file's own: a CSV read with a schema has the
    // schema's text as its source, whose requirements (if any) are others.
    let listed: Vec<(Option<&str>, Option<&str>)> = doc
        .get("requirements")
        .and_then(Item::as_array_of_tables)
        .map(|a| {
            a.iter()
                .map(|t| {
                    (
                        t.get("id").and_then(Item::as_str),
                        t.get("text").and_then(Item::as_str),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let own: Vec<(Option<&str>, Option<&str>)> = spec
        .requirements
        .iter()
        .map(|r| (Some(r.id.as_str()), Some(r.text.as_str())))
        .collect();
    if listed != own {
        return None;
    }
    let reqs = doc
        .get_mut("requirements")
        .and_then(Item::as_array_of_tables_mut);
    let mut reqs = match reqs {
        Some(r) => Some(r),
        None if report.requirements.is_empty() => None,
        None => return None,
    };
    for f in &report.requirements {
        let reqs = reqs.as_mut()?;
        let mut tables = reqs
            .iter_mut()
            .filter(|t| t.get("id").and_then(Item::as_str) == Some(f.id.as_str()));
        let table = tables.next()?;
        if tables.next().is_some() {
            return None;
        }
        let mut notes = notes_of(f);
        if f.flagged {
            // The readings are in the notes; the table keeps what it had.
        } else if let Some(formula) = &f.formula {
            table.remove("timed");
            crate::spec_edit::set(table, "formula", formula);
            crate::spec_edit::set(table, "origin", "model");
            table.remove("accepted");
        } else if let (Some(pattern), Some(tb)) = (&f.timed, &spec.time) {
            let keys = reqs::timed::answer::keys_of(pattern, tb);
            let parsed: DocumentMut = reqs::timed::answer::table_text(&keys).parse().ok()?;
            let mut timed = parsed.get("timed")?.as_table()?.clone();
            // Written right under its requirement's table, not where the parsed
            // snippet placed it.
            if let Some(at) = table.position() {
                timed.set_position(at);
            }
            table.remove("formula");
            crate::spec_edit::set(table, "origin", "model");
            table.remove("accepted");
            table.insert("timed", Item::Table(timed));
        } else {
            let last = f
                .attempts
                .last()
                .and_then(|a| a.error.clone())
                .unwrap_or_default();
            let kept = if table.contains_key("formula") || table.contains_key("timed") {
                " (the formula as written is kept)"
            } else {
                ""
            };
            notes.push(format!(
                "NOT FORMALIZED: {}{kept}",
                last.lines().next().unwrap_or("")
            ));
        }
        let mut lines = String::new();
        for n in &notes {
            comment(&mut lines, n);
        }
        let decor = table.decor_mut();
        let old = crate::spec_edit::prefix_text(decor);
        let sep = if old.is_empty() || old.ends_with('\n') {
            ""
        } else {
            "\n"
        };
        decor.set_prefix(format!("{old}{sep}{lines}"));
    }
    let mut header = String::new();
    comment(
        &mut header,
        &format!(
            "Formalized by vera from {}: {} formalized on the first attempt, {} after repair, {} failed, {} kept as written.",
            spec.source.name(),
            report.first_attempt,
            report.after_repair,
            report.failed.len(),
            report.kept.len()
        ),
    );
    // A byte-order mark stays the file's first bytes.
    Some(format!("{bom}{header}{doc}"))
}

/// The comment lines written above a requirement the model was asked about: where its
/// formula came from (provider, model, prompt, attempts, path and the vote), the
/// screening notes, and for a flagged requirement every reading with its count.
fn notes_of(f: &Formalized) -> Vec<String> {
    let p = &f.provenance;
    let mut line = format!(
        "provenance: provider={} model={} prompt={} attempts={}",
        p.provider, p.model, p.prompt, p.attempts
    );
    if let Some(path) = f.path {
        let name = match path {
            crate::formpath::Path::Parser => "parser",
            crate::formpath::Path::Form => "form",
            crate::formpath::Path::Smtlib => "smtlib",
        };
        let _ = write!(line, " path={name}");
    }
    if let Some(v) = &f.vote {
        let _ = write!(
            line,
            " agreement={}/{} of {} drawn",
            v.agreeing, v.valid, v.samples
        );
    }
    let mut notes = vec![line];
    if let Some(r) = &f.reads {
        notes.push(format!("reads: {r}"));
    }
    for n in &f.notes {
        notes.push(format!("screening ({}): {}", n.kind, n.message));
    }
    if let (true, Some(v)) = (f.flagged, &f.vote) {
        notes.push(format!(
            "FLAGGED FOR REVIEW: the model's forms disagree ({} of {} valid answers agree), so no formula is written; choose a reading, or write the formula:",
            v.agreeing, v.valid
        ));
        for (k, r) in v.readings.iter().enumerate() {
            notes.push(format!(
                "  reading {} ({} of {}): {}",
                reqs::equiv::label(k),
                r.count,
                v.valid,
                r.formula
            ));
        }
    }
    notes
}

/// The default output next to `input`: its file stem (`fallback` when it has none)
/// and `.suffix` (`spec.toml` with `formalized.toml` gives `spec.formalized.toml`).
pub fn default_output(input: &std::path::Path, fallback: &str, suffix: &str) -> std::path::PathBuf {
    let stem = input
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| fallback.into());
    input.with_file_name(format!("{stem}.{suffix}"))
}

/// Writes `text` to a new file, atomically: refuses an input file (compared by identity,
/// so hard and symbolic links count) even with `force`, and an existing file unless `force`.
pub fn write_new(
    path: &std::path::Path,
    text: &str,
    inputs: &[&std::path::Path],
    force: bool,
) -> Result<(), PipelineError> {
    for i in inputs {
        safefile::register_input(i);
    }
    safefile::write_atomic(path, text.as_bytes(), force).map_err(|e| match e {
        safefile::SafeFileError::Write { error, .. } => PipelineError::Io {
            path: path.display().to_string(),
            source: error,
        },
        other => PipelineError::Input(other.to_string()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A note, a header and a file name holding control characters (NUL, CR, a
    /// terminal escape and BEL) still give a spec that loads, with none of them in it.
    #[test]
    fn control_characters_in_comments_never_break_the_spec() {
        let spec = reqs::parse_spec(logic::SourceFile::new(
            "s.toml",
            "[spec]\nname = \"s\"\n[[variables]]\nname = \"x\"\nsort = \"Bool\"\n",
        ))
        .unwrap();
        let nasty = "answer \u{0} with \r a \u{1b}[31mred\u{1b}]0;title\u{7} tail";
        let text = render_spec(
            &spec,
            &[format!("from {nasty}"), "file\nname.txt".into()],
            &[OutRequirement {
                id: "R1".into(),
                text: "x holds".into(),
                formula: Some("x".into()),
                origin: reqs::spec::Origin::Model,
                notes: vec![nasty.into()],
                timed: None,
            }],
        );
        assert!(!text
            .chars()
            .any(|c| c != '\n' && c != '\t' && c.is_control()));
        let back = reqs::parse_spec(logic::SourceFile::new("out.toml", &text))
            .unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(back.requirements.len(), 1);
        assert!(text.contains("# name.txt\n"), "{text}");
    }
}

//! Translation voting (SIRNA section III-B): a rule text is translated T times with the
//! variable specification; the translations are partitioned by logical equivalence
//! ([`reqs::equiv`]); the representative of the largest class is accepted when its
//! confidence `|C_max| / |T|` reaches θ (default 2/3), otherwise the vote is rejected
//! with diagnostics per translation in SIRNA's categories.

use crate::formalize::{excerpt, PipelineError};
use llm::{Client, LlmError, Request, Template};
use logic::{Context, Sort, Symbol, Term};
use reqs::equiv::{Checker, Partition, Universe};
use serde::{Deserialize, Serialize};
use solver::SolverConfig;
use std::fmt::Write as _;

/// One variable of a variable specification (`model.json` of the fees dataset).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VariableDesc {
    /// Its SMT name.
    pub name: String,
    /// Its type (`NUMBER` → Real, `BOOL`/`BOOLEAN` → Bool, `INT`/`INTEGER` → Int).
    #[serde(rename = "type")]
    pub kind: String,
    /// What it means.
    #[serde(default)]
    pub description: String,
}

/// A variable specification.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VariableSpec {
    /// Custom types (unused by vera; kept for round trips).
    #[serde(default)]
    pub types: Vec<serde_json::Value>,
    /// The variables.
    pub variables: Vec<VariableDesc>,
    /// Extra rules (kept for round trips; not part of the vote).
    #[serde(default)]
    pub rules: Vec<serde_json::Value>,
}

impl VariableSpec {
    /// Reads the JSON format of `model.json`.
    pub fn from_json(text: &str) -> Result<VariableSpec, PipelineError> {
        let v: VariableSpec = serde_json::from_str(text)
            .map_err(|e| PipelineError::Input(format!("variable specification: {e}")))?;
        for d in &v.variables {
            if sort_of(&d.kind).is_none() {
                return Err(PipelineError::Input(format!(
                    "variable `{}` has type `{}`; known types: NUMBER, INT, BOOL",
                    d.name, d.kind
                )));
            }
            if !logic::sexp::is_simple_symbol(&d.name) {
                return Err(PipelineError::Input(format!(
                    "`{}` is not a plain SMT-LIB symbol",
                    d.name
                )));
            }
        }
        Ok(v)
    }

    /// The declared variables.
    pub fn symbols(&self) -> Vec<(Symbol, Sort)> {
        self.variables
            .iter()
            .filter_map(|d| sort_of(&d.kind).map(|s| (Symbol::from(d.name.as_str()), s)))
            .collect()
    }

    /// A context with every variable declared.
    pub fn context(&self) -> Context {
        let mut c = Context::new();
        c.set_logic(&self.logic());
        for (n, s) in self.symbols() {
            c.declare_const(n, s);
        }
        c
    }

    fn logic(&self) -> String {
        let s = self.symbols();
        let int = s.iter().any(|(_, s)| *s == Sort::Int);
        let real = s.iter().any(|(_, s)| *s == Sort::Real);
        match (int, real) {
            (true, true) => "QF_LIRA",
            (true, false) => "QF_LIA",
            _ => "QF_LRA",
        }
        .into()
    }

    /// The universe of the vote: the variables, no domain constraints.
    pub fn universe(&self) -> Universe {
        Universe {
            logic: self.logic(),
            enums: vec![],
            variables: self
                .symbols()
                .into_iter()
                .map(|(n, s)| (n, s, None))
                .collect(),
            domain: vec![],
            context: self.context(),
        }
    }

    /// The variables as prompt lines.
    pub fn render(&self) -> String {
        let mut o = String::new();
        for d in &self.variables {
            let _ = writeln!(o, "- {} : {} — {}", d.name, d.kind, d.description);
        }
        o
    }

    /// Declarations and assertions as SMT-LIB text, written by vera's printer.
    pub fn smt_text(&self, assertions: &[Term]) -> String {
        let mut o = String::new();
        for (n, s) in self.symbols() {
            let _ = writeln!(o, "(declare-const {n} {s})");
        }
        for a in assertions {
            let _ = writeln!(o, "(assert {})", logic::print::term(a));
        }
        o
    }
}

fn sort_of(kind: &str) -> Option<Sort> {
    match kind.to_ascii_uppercase().as_str() {
        "NUMBER" | "REAL" | "DECIMAL" => Some(Sort::Real),
        "INT" | "INTEGER" => Some(Sort::Int),
        "BOOL" | "BOOLEAN" => Some(Sort::Bool),
        _ => None,
    }
}

/// Reads one translation: SMT-LIB assert commands over the specification's variables
/// (declarations of exactly those variables are tolerated), through
/// `logic::parse_untrusted` only.
pub fn parse_translation(vars: &VariableSpec, text: &str) -> Result<Vec<Term>, String> {
    let text = code_of(text);
    let limits = logic::Limits::default();
    let base = vars.context();
    let first = logic::parse_untrusted("translation", text, &base, limits);
    let u = match first {
        Ok(u) => u,
        Err(d) => {
            // The model may have declared the variables itself: accept that only when
            // it declares exactly specification variables, with their sorts.
            let mut empty = Context::new();
            empty.set_logic(&vars.logic());
            match logic::parse_untrusted("translation", text, &empty, limits) {
                Ok(u) if u.definitions.is_empty() && u.enums.is_empty() => {
                    let known = vars.symbols();
                    if let Some((n, s)) = u.constants.iter().find(|c| !known.contains(c)) {
                        return Err(format!(
                            "`{n}` ({s}) is not a variable of the specification; use only its variables"
                        ));
                    }
                    u
                }
                _ => return Err(d.to_string().trim_end().to_string()),
            }
        }
    };
    if !u.constants.is_empty() && u.constants.iter().any(|c| !vars.symbols().contains(c)) {
        return Err("the translation declares symbols outside the specification".into());
    }
    if !u.definitions.is_empty() || !u.enums.is_empty() {
        return Err("the translation defines functions or types; use assertions only".into());
    }
    if u.assertions.is_empty() {
        return Err("the translation contains no assertion".into());
    }
    Ok(u.assertions.into_iter().map(|(t, _)| t).collect())
}

/// The SMT-LIB part of an answer: the body of its one fenced code block (prose around
/// it dropped) when it has exactly one, else the whole answer.
pub fn code_of(answer: &str) -> &str {
    let mut blocks = Vec::new();
    let mut rest = answer;
    while let Some(open) = rest.find("```") {
        let after = &rest[open + 3..];
        // The info string (`smt2`, `lisp`, ...) ends the opening line.
        let body_start = after.find('\n').map_or(after.len(), |n| n + 1);
        let body = &after[body_start..];
        match body.find("```") {
            Some(close) => {
                blocks.push(&body[..close]);
                rest = &body[close + 3..];
            }
            None => {
                blocks.push(body);
                break;
            }
        }
    }
    match blocks.as_slice() {
        [one] => one.trim(),
        _ => answer,
    }
}

/// SIRNA's failure categories for one translation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// Not usable SMT-LIB at all.
    Invalid,
    /// The output variable is not defined (MF).
    MissingOutput,
    /// Variables of the specification the translation never mentions.
    MissingIntermediateVariables,
    /// An intermediate variable is not determined by the inputs (MC).
    MissingConstraints,
    /// A function used but not defined (MD).
    UndefinedFunctions,
    /// Constraints that rule out inputs or admit no assignment (GF).
    SpuriousConstraints,
    /// Disagrees with the accepted class (no defect of its own found).
    Outvoted,
}

/// One diagnostic.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TranslationDiagnostic {
    /// The category.
    pub category: Category,
    /// Details.
    pub message: String,
}

/// One translation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Translation {
    /// Its sample index.
    pub index: u32,
    /// Answers requested for it (1 + repair turns used).
    pub attempts: usize,
    /// The last answer (shortened).
    pub answer: String,
    /// The assertions as vera read them.
    pub assertions: Vec<String>,
    /// The parsed assertions.
    #[serde(skip)]
    pub terms: Vec<Term>,
    /// Its class label, when valid.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    /// What is wrong with it (filled in when the vote is rejected, or it is outvoted).
    pub diagnostics: Vec<TranslationDiagnostic>,
}

/// Options of the vote.
#[derive(Debug, Clone)]
pub struct VotingOptions {
    /// Translations (default 3).
    pub translations: u32,
    /// Threshold θ (default 2/3).
    pub theta: f64,
    /// Temperature (default 1.0).
    pub temperature: f64,
    /// The output variable, for the diagnostics.
    pub output: Option<String>,
    /// Repair turns per translation that does not parse (default 2): the error goes back
    /// to the model with its answer.
    pub repairs: usize,
}

impl Default for VotingOptions {
    fn default() -> Self {
        VotingOptions {
            translations: 3,
            theta: 2.0 / 3.0,
            temperature: 1.0,
            output: None,
            repairs: 2,
        }
    }
}

/// The vote.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Vote {
    /// Every translation.
    pub translations: Vec<Translation>,
    /// Classes of the valid ones.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partition: Option<Partition>,
    /// `|C_max| / |T|` over all T translations (invalid ones count against it).
    pub confidence: f64,
    /// The threshold.
    pub theta: f64,
    /// Accepted.
    pub accepted: bool,
    /// The accepted translation's index.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub representative: Option<u32>,
    /// The accepted formalization as SMT-LIB text (vera's printer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub smt: Option<String>,
    /// The prompt template, `name@vN`.
    pub prompt: String,
}

/// Token limit of one translation (a longer answer is truncated and repaired).
const TRANSLATION_MAX_TOKENS: u32 = 1024;
/// Characters of a failed answer echoed in its repair turn.
const REPAIR_ECHO_CHARS: usize = 1200;

/// The first lines of a parse error: enough to act on, short enough for the context.
fn short_error(e: &str) -> String {
    let lines: Vec<&str> = e.lines().take(12).collect();
    let mut s = lines.join("\n");
    if e.lines().count() > 12 {
        s.push_str("\n...");
    }
    s
}

/// The translation prompt template.
pub fn template() -> Template {
    Template::parse(
        "translate-rule",
        include_str!("../../../prompts/translate-rule.txt"),
    )
    .expect("built-in template")
}

/// Translates `rule` T times and votes.
pub fn vote(
    rule: &str,
    vars: &VariableSpec,
    client: &Client,
    solver: &SolverConfig,
    options: &VotingOptions,
) -> Result<Vote, PipelineError> {
    let t = template();
    let user = t.render(&[("variables", &vars.render()), ("rule", rule)])?;
    let reqs: Vec<Request> = (0..options.translations)
        .map(|i| {
            Request::new()
                .user(user.clone())
                .temperature(options.temperature)
                .max_tokens(TRANSLATION_MAX_TOKENS)
                .sample(i)
        })
        .collect();
    let answers = client.run_all("voting", &reqs);
    let mut translations = Vec::new();
    for (i, (a, req)) in answers.into_iter().zip(reqs).enumerate() {
        let answered = repaired(a, req, vars, client, options)?;
        translations.push(translation(i as u32, answered));
    }
    let valid: Vec<usize> = (0..translations.len())
        .filter(|&i| !translations[i].terms.is_empty())
        .collect();
    let universe = vars.universe();
    let mut checker = Checker::new(&universe, solver)?;
    let conj: Vec<Term> = valid
        .iter()
        .map(|&i| conjunction(&translations[i].terms))
        .collect();
    let partition = if conj.is_empty() {
        None
    } else {
        Some(checker.partition(&conj)?)
    };
    let total = translations.len().max(1);
    let (confidence, best) = match &partition {
        Some(p) => {
            let c = p.largest().expect("a class");
            (c.members.len() as f64 / total as f64, Some(c.clone()))
        }
        None => (0.0, None),
    };
    if let Some(p) = &partition {
        for (k, &i) in valid.iter().enumerate() {
            translations[i].class = Some(p.classes[p.class_of[k]].label.clone());
        }
    }
    let accepted = confidence + 1e-9 >= options.theta && best.is_some();
    let representative = best
        .as_ref()
        .filter(|_| accepted)
        .map(|c| translations[valid[c.representative]].index);
    let smt = representative.map(|r| vars.smt_text(&translations[r as usize].terms));
    let accepted_label = best.as_ref().filter(|_| accepted).map(|c| c.label.as_str());
    outvoted_diagnostics(
        &mut translations,
        vars,
        accepted_label,
        options.output.as_deref(),
    );
    Ok(Vote {
        translations,
        partition,
        confidence,
        theta: options.theta,
        accepted,
        representative,
        smt,
        prompt: t.id(),
    })
}

/// A translation's last answer and what parsing it gave.
struct Answered {
    /// The answer's excerpt.
    answer: String,
    /// Its assertions, or the problem.
    parsed: Result<Vec<Term>, String>,
    /// The number of attempts.
    attempts: usize,
}

/// The first answer `a` to `req`, repaired up to `options.repairs` times while it
/// cannot be parsed.
fn repaired(
    mut a: Result<llm::Completion, LlmError>,
    mut req: Request,
    vars: &VariableSpec,
    client: &Client,
    options: &VotingOptions,
) -> Result<Answered, PipelineError> {
    let mut attempts = 1;
    loop {
        let (answer, parsed) = match a {
            Ok(c) => (c.text().to_string(), parse_translation(vars, c.text())),
            Err(e) if e.is_answer_problem() => (
                String::new(),
                Err(e.feedback().unwrap_or_else(|| e.to_string())),
            ),
            Err(e) => return Err(e.into()),
        };
        match &parsed {
            Err(problem) if attempts <= options.repairs => {
                // The failed answer is echoed shortened, so that the conversation
                // stays within small context windows.
                let shown: String = answer.chars().take(REPAIR_ECHO_CHARS).collect();
                let next = req.clone().assistant(shown).user(format!(
                    "That translation cannot be used:\n{}\nAnswer again with SMT-LIB assert commands over the specification's variables only, no prose.",
                    short_error(problem)
                ));
                match client.complete("voting.repair", &next) {
                    // A request the provider refuses (e.g. over its context size)
                    // ends the repairs of this translation, not the vote.
                    Err(e @ LlmError::Http { .. }) => {
                        let why = format!("{problem}\n(no further repair: {e})");
                        return Ok(Answered {
                            answer: excerpt(&answer),
                            parsed: Err(why),
                            attempts,
                        });
                    }
                    r => {
                        req = next;
                        attempts += 1;
                        a = r;
                    }
                }
            }
            _ => {
                return Ok(Answered {
                    answer: excerpt(&answer),
                    parsed,
                    attempts,
                })
            }
        }
    }
}

/// Translation `index` from its answer and what parsing it gave (a problem becomes
/// its diagnostic).
fn translation(index: u32, answered: Answered) -> Translation {
    let Answered {
        answer,
        parsed,
        attempts,
    } = answered;
    let (terms, diagnostics) = match parsed {
        Ok(ts) => (ts, vec![]),
        Err(e) => {
            let category = if e.contains("undeclared function")
                || e.contains("unknown function")
                || e.contains("not declared")
            {
                Category::UndefinedFunctions
            } else {
                Category::Invalid
            };
            (
                vec![],
                vec![TranslationDiagnostic {
                    category,
                    message: e,
                }],
            )
        }
    };
    Translation {
        index,
        attempts,
        answer,
        assertions: terms.iter().map(logic::print::term).collect(),
        terms,
        class: None,
        diagnostics,
    }
}

/// Static diagnostics for every translation that is not the accepted reading (the
/// class labelled `accepted`, if any); one without any is said to be outvoted.
fn outvoted_diagnostics(
    translations: &mut [Translation],
    vars: &VariableSpec,
    accepted: Option<&str>,
    output: Option<&str>,
) {
    for tr in translations.iter_mut() {
        if tr.terms.is_empty() {
            continue;
        }
        let in_best = accepted.is_some() && tr.class.as_deref() == accepted;
        if in_best {
            continue;
        }
        tr.diagnostics
            .extend(static_diagnostics(vars, &tr.terms, output));
        if accepted.is_some() && tr.diagnostics.is_empty() {
            tr.diagnostics.push(TranslationDiagnostic {
                category: Category::Outvoted,
                message: "not equivalent to the accepted translation".into(),
            });
        }
    }
}

fn conjunction(ts: &[Term]) -> Term {
    if ts.len() == 1 {
        ts[0].clone()
    } else {
        Term::app(logic::Op::And, ts.to_vec())
    }
}

/// Diagnostics that need no implementation: missing output, unmentioned variables.
pub fn static_diagnostics(
    vars: &VariableSpec,
    terms: &[Term],
    output: Option<&str>,
) -> Vec<TranslationDiagnostic> {
    let mut used: Vec<Symbol> = Vec::new();
    for t in terms {
        for (n, _) in t.free_vars() {
            if !used.contains(&n) {
                used.push(n);
            }
        }
    }
    let mut out = Vec::new();
    if let Some(o) = output {
        let defined = terms.iter().any(|t| match t {
            Term::App(logic::Op::Eq, a) => {
                a.iter().any(|x| matches!(x, Term::Var(n, _) if &**n == o))
            }
            _ => false,
        });
        if !defined {
            out.push(TranslationDiagnostic {
                category: Category::MissingOutput,
                message: format!("no assertion of the form (= {o} ...) defines the output"),
            });
        }
    }
    let missing: Vec<&str> = vars
        .variables
        .iter()
        .map(|d| d.name.as_str())
        .filter(|n| !used.iter().any(|u| &**u == *n))
        .collect();
    if !missing.is_empty() {
        out.push(TranslationDiagnostic {
            category: Category::MissingIntermediateVariables,
            message: format!("never mentions {}", missing.join(", ")),
        });
    }
    out
}

/// Maps the consistency checker's formalization findings to SIRNA's categories.
pub fn category_of(kind: bl::check::FindingKind) -> Category {
    use bl::check::FindingKind as K;
    match kind {
        K::OutputMissing => Category::MissingOutput,
        K::UndefinedFunction => Category::UndefinedFunctions,
        K::NotFunctional | K::UnconstrainedIntermediate => Category::MissingConstraints,
        K::Vacuous | K::NoOutputForInput => Category::SpuriousConstraints,
        K::UnmappedInput => Category::MissingIntermediateVariables,
    }
}

/// Runs the consistency checker's diagnostics on each rejected translation against the
/// implementation, adding its findings (about the NL side) in SIRNA's categories.
pub fn diagnose_with_checker(
    vote: &mut Vote,
    vars: &VariableSpec,
    base: &bl::check::CheckInput,
    solver: &SolverConfig,
) -> Result<(), PipelineError> {
    for tr in vote.translations.iter_mut().filter(|t| !t.terms.is_empty()) {
        if vote.accepted && Some(tr.index) == vote.representative {
            continue;
        }
        let text = vars.smt_text(&tr.terms);
        let mut input = base.clone();
        input.nl = bl::check::SideSource::Smt(logic::SourceFile::new(
            format!("translation-{}", tr.index),
            text,
        ));
        let report = bl::check::check_consistency(&input, solver)?;
        for f in report
            .findings
            .iter()
            .filter(|f| f.side == bl::check::SideLabel::Nl)
        {
            let category = category_of(f.kind);
            if !tr
                .diagnostics
                .iter()
                .any(|d| d.category == category && d.message == f.message)
            {
                tr.diagnostics.push(TranslationDiagnostic {
                    category,
                    message: f.message.clone(),
                });
            }
        }
    }
    Ok(())
}

/// A rule's text checked against its implementation: the vote on its translations and,
/// when a translation won, the consistency check of the winner.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TextCheck {
    /// The vote.
    pub vote: Vote,
    /// The check of the voted translation against the implementation (none without a
    /// winner: then the translations carry the checker's diagnostics instead).
    pub report: Option<bl::check::Report>,
}

/// `vera consistency --nl-text`: translates `rule` (named `rule_name` in messages) over
/// `vars` several times, votes, and checks the winning translation against the
/// implementation of `base` (whose documentation side is replaced). Without a winner,
/// every translation is diagnosed with the checker against the implementation. When
/// `base` names neither the documentation's output nor bounds, `options.output` is
/// compared.
pub fn check_text(
    rule: &str,
    rule_name: &str,
    vars: &VariableSpec,
    base: &bl::check::CheckInput,
    client: &Client,
    solver: &SolverConfig,
    options: &VotingOptions,
) -> Result<TextCheck, PipelineError> {
    let mut vote = vote(rule, vars, client, solver, options)?;
    let mut input = base.clone();
    if input.nl_output.is_none() && input.bounds.is_none() {
        input.nl_output = options.output.clone();
    }
    let report = match &vote.smt {
        Some(smt) => {
            input.nl = bl::check::SideSource::Smt(logic::SourceFile::new(
                format!("{rule_name} (voted translation)"),
                smt.clone(),
            ));
            Some(bl::check::check_consistency(&input, solver)?)
        }
        None => {
            diagnose_with_checker(&mut vote, vars, &input, solver)?;
            None
        }
    };
    Ok(TextCheck { vote, report })
}

/// Token limit of a drafted variable specification: a JSON object of a few variables
/// with descriptions is a few hundred tokens (the recorded Nunavut draft: 432).
const DRAFT_MAX_TOKENS: u32 = 2048;

/// The draft prompt of a variable specification (SIRNA Fig. 9).
pub fn draft_template() -> Template {
    Template::parse(
        "draft-variables",
        include_str!("../../../prompts/draft-variables.txt"),
    )
    .expect("built-in template")
}

/// A drafted variable specification and how it was obtained.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Draft {
    /// The specification, checked by [`VariableSpec::from_json`].
    pub spec: VariableSpec,
    /// Answers requested (1 = accepted at once).
    pub attempts: usize,
    /// Why each earlier answer was refused.
    pub refused: Vec<String>,
    /// Names of the example's variables the draft reuses (a check of the style, not of
    /// correctness).
    pub shared_names: Vec<String>,
    /// The prompt template, `name@vN`.
    pub prompt: String,
}

/// Drafts a variable specification for `rule` from one example (rule text and its
/// specification) of the same domain (SIRNA Fig. 9). An answer that is not a valid
/// specification (no JSON, unknown type, a name that is not a plain SMT-LIB symbol,
/// no variables, a name twice) goes back to the model with the reason, up to `repairs`
/// times; then the last reason is the error.
pub fn draft_variables(
    rule: &str,
    example_rule: &str,
    example: &VariableSpec,
    client: &Client,
    repairs: usize,
) -> Result<Draft, PipelineError> {
    let t = draft_template();
    let ex = serde_json::to_string_pretty(example).unwrap_or_default();
    let user = t.render(&[
        ("example_rule", example_rule),
        ("example_spec", &ex),
        ("rule", rule),
    ])?;
    let schema = serde_json::json!({
        "type": "object",
        "properties": {
            "types": {"type": "array"},
            "variables": {"type": "array", "items": {"type": "object",
                "properties": {"name": {"type": "string"}, "type": {"type": "string"}, "description": {"type": "string"}},
                "required": ["name", "type", "description"]}},
            "rules": {"type": "array"}
        },
        "required": ["variables"]
    });
    let mut req = Request::new()
        .user(user)
        .temperature(0.0)
        .max_tokens(DRAFT_MAX_TOKENS)
        .schema("variable_spec", schema);
    let mut refused = Vec::new();
    for attempt in 0..=repairs {
        let (answer, problem) = match client.complete("draft-variables", &req) {
            Ok(c) => {
                let text = c.json_text();
                match VariableSpec::from_json(&text).and_then(check_draft) {
                    Ok(spec) => {
                        let shared_names = spec
                            .variables
                            .iter()
                            .filter(|d| example.variables.iter().any(|e| e.name == d.name))
                            .map(|d| d.name.clone())
                            .collect();
                        return Ok(Draft {
                            spec,
                            attempts: attempt + 1,
                            refused,
                            shared_names,
                            prompt: t.id(),
                        });
                    }
                    Err(e) => (text, e.to_string()),
                }
            }
            Err(e) if e.is_answer_problem() => {
                (String::new(), e.feedback().unwrap_or_else(|| e.to_string()))
            }
            Err(e) => return Err(e.into()),
        };
        refused.push(problem.clone());
        req = req.assistant(excerpt(&answer)).user(format!(
            "That answer is not a valid variable specification: {problem}\nAnswer again with the JSON object alone."
        ));
    }
    Err(PipelineError::Input(format!(
        "no valid variable specification after {} answers; the last was refused because: {}",
        repairs + 1,
        refused.last().map(String::as_str).unwrap_or("-")
    )))
}

fn check_draft(v: VariableSpec) -> Result<VariableSpec, PipelineError> {
    if v.variables.is_empty() {
        return Err(PipelineError::Input("it lists no variables".into()));
    }
    for (i, d) in v.variables.iter().enumerate() {
        if v.variables[..i].iter().any(|e| e.name == d.name) {
            return Err(PipelineError::Input(format!(
                "variable `{}` is listed twice",
                d.name
            )));
        }
    }
    Ok(v)
}

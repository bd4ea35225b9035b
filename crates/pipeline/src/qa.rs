//! Verified question answering with counterexample-guided repair (VeriMed section 2.5).
//!
//! For each question the model extracts a scenario as a list of schema-constrained
//! conditions and proposes an answer of the same form (structured JSON). vera turns the
//! conditions into terms through `logic::parse_untrusted` (never raw text from the model
//! into a solver), checks M ∧ s ∧ ¬a with [`reqs::Asker::ask`], and on a rejection
//! re-prompts with one of four feedback modes — none, a generic rejection, the violated
//! requirements, or the violated requirements plus the solver's counterexample — up to
//! a repair budget. Final answers are compared with what the requirements force under
//! the question's reference scenario ([`reqs::Asker::derive`]).

use llm::{Client, LlmError, Request, SchemaInfo, Template};
use logic::{Diagnostics, Op, Sort, Term};
use reqs::ask::{Derivation, Fact};
use reqs::audit::Witness;
use reqs::mutate::wilson;
use reqs::{Asker, Spec, Verdict};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use solver::{SolverConfig, SolverError};
use std::collections::BTreeMap;

/// What the verifier returns to the model after a rejected answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FeedbackMode {
    /// Baseline: the question is asked again, with no word about the rejection.
    None,
    /// Self-repair: "the verifier rejected your answer".
    Generic,
    /// The requirements the answer contradicts (or that concern what it over-claims).
    Requirements,
    /// The requirements plus the solver's counterexample state (full CEGR).
    Counterexample,
}

impl FeedbackMode {
    /// All modes, in report order.
    pub const ALL: [FeedbackMode; 4] = [
        FeedbackMode::None,
        FeedbackMode::Generic,
        FeedbackMode::Requirements,
        FeedbackMode::Counterexample,
    ];

    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            FeedbackMode::None => "none",
            FeedbackMode::Generic => "generic",
            FeedbackMode::Requirements => "requirements",
            FeedbackMode::Counterexample => "counterexample",
        }
    }

    /// The paper's name of the condition.
    pub fn label(self) -> &'static str {
        match self {
            FeedbackMode::None => "baseline (no feedback)",
            FeedbackMode::Generic => "self-repair (generic rejection)",
            FeedbackMode::Requirements => "requirement feedback only",
            FeedbackMode::Counterexample => "full CEGR (requirements + counterexample)",
        }
    }

    /// Parses a name as written by [`FeedbackMode::name`].
    pub fn parse(s: &str) -> Option<FeedbackMode> {
        FeedbackMode::ALL.into_iter().find(|m| m.name() == s.trim())
    }
}

/// A feedback mode's name that is not one.
#[derive(Debug, thiserror::Error)]
#[error("unknown feedback mode `{0}` (none, generic, requirements, counterexample)")]
pub struct UnknownMode(pub String);

/// A comma-separated list of feedback modes, each once, in the order given (empty
/// items left out).
pub fn parse_modes(list: &str) -> Result<Vec<FeedbackMode>, UnknownMode> {
    let mut modes = Vec::new();
    for m in list.split(',').filter(|m| !m.trim().is_empty()) {
        match FeedbackMode::parse(m) {
            Some(x) if !modes.contains(&x) => modes.push(x),
            Some(_) => {}
            None => return Err(UnknownMode(m.trim().to_string())),
        }
    }
    Ok(modes)
}

/// Which requirements a question is about (the paper's three query types).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum QuestionKind {
    /// One requirement decides the answer.
    Single,
    /// Several requirements together decide it.
    Multi,
    /// No requirement demands anything: the right answer is "nothing is required".
    None,
}

/// One question of a QA questions file.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QaQuestion {
    /// Its id.
    pub id: String,
    /// Single-, multi- or no-requirement.
    pub kind: QuestionKind,
    /// The question in words: all the model sees.
    pub text: String,
    /// The reference scenario (SMT-LIB over the schema).
    pub scenario: String,
    /// The expected answer (SMT-LIB over the schema; `true` for "nothing is required").
    pub answer: String,
    /// The expected verdict of the reference answer: `entailed` (default) or
    /// `scenario-impossible`.
    #[serde(default)]
    pub expected: Option<String>,
    /// The requirements the answer rests on, for readers (checked by the tests).
    #[serde(default)]
    pub requirements: Vec<String>,
    /// Variables the requirements must leave free under the scenario (no-requirement
    /// questions: what an over-eager answer would wrongly claim).
    #[serde(default)]
    pub free: Vec<String>,
}

impl QaQuestion {
    /// True when the reference scenario is expected to be impossible.
    pub fn expects_impossible(&self) -> bool {
        self.expected.as_deref() == Some("scenario-impossible")
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct QaFile {
    questions: Vec<QaQuestion>,
}

/// Reads a QA questions file (TOML with `[[questions]]`; see docs/qa.md).
pub fn load_questions(text: &str, name: &str) -> Result<Vec<QaQuestion>, Diagnostics> {
    read_toml::<QaFile>(text, name).map(|q| q.questions)
}

/// Reads a TOML file (`text`, named `name`) of the layout `T`; what does not fit is a
/// diagnostic located in the file.
pub(crate) fn read_toml<T: serde::de::DeserializeOwned>(
    text: &str,
    name: &str,
) -> Result<T, Diagnostics> {
    toml::from_str::<T>(text).map_err(|e| {
        let span = e
            .span()
            .map(|r| logic::Span::new(r.start, r.end))
            .unwrap_or_default();
        logic::SourceFile::new(name, text)
            .locate_all(&[logic::Diagnostic::error(span, e.message().to_string())])
    })
}

/// One condition `variable op value` proposed by the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Condition {
    /// A schema variable.
    pub variable: String,
    /// `=`, `!=`, `<`, `<=`, `>`, `>=`.
    pub op: String,
    /// A number, `true`, `false`, an enumeration value or a variable name.
    pub value: String,
}

impl Condition {
    /// `variable op value`, for feedback and reports.
    pub fn show(&self) -> String {
        format!("{} {} {}", self.variable, self.op, self.value)
    }
}

/// The model's structured answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Proposal {
    /// The scenario the question describes (JSON `given`).
    #[serde(rename = "given")]
    pub scenario: Vec<Condition>,
    /// The model's claim that the scenario cannot happen (JSON `impossible`).
    #[serde(default, rename = "impossible")]
    pub scenario_impossible: bool,
    /// What the requirements make mandatory in it (JSON `required`).
    #[serde(rename = "required")]
    pub answer: Vec<Condition>,
}

const OPS: [&str; 6] = ["=", "!=", "<", "<=", ">", ">="];

/// The JSON schema of a [`Proposal`] over this spec's variables: `{"given": [...],
/// "impossible": bool, "required": [...]}`, each item `{"variable", "op", "value"}`.
pub fn proposal_schema(spec: &Spec) -> Value {
    let names: Vec<&str> = spec.variables.iter().map(|v| &*v.name).collect();
    let cond = json!({
        "type": "object",
        "properties": {
            "variable": {"type": "string", "enum": names},
            "op": {"type": "string", "enum": OPS},
            "value": {"type": "string", "minLength": 1, "maxLength": 64}
        },
        "required": ["variable", "op", "value"],
        "additionalProperties": false
    });
    json!({
        "type": "object",
        // Keys in alphabetical order, which is the order a grammar-constrained server
        // makes the model write them in: the scenario first, the answer last.
        "properties": {
            "given": {"type": "array", "items": cond, "maxItems": 16},
            "impossible": {"type": "boolean"},
            "required": {"type": "array", "items": cond, "maxItems": 16}
        },
        "required": ["given", "impossible", "required"],
        "additionalProperties": false
    })
}

/// The spec's schema as plain data for prompts.
pub fn schema_info(spec: &Spec) -> SchemaInfo {
    crate::formalize::schema_info_with(
        spec,
        |r| {
            if r.is_integer() {
                r.to_integer().to_string()
            } else {
                logic::Value::Real(r.clone()).to_string()
            }
        },
        spec.domain.iter().filter(|d| !d.id.contains('.')),
    )
}

/// Writes a numeric, Boolean or symbolic value as SMT-LIB, or says why it is not one.
fn value_text(spec: &Spec, sort: &Sort, raw: &str) -> Result<String, String> {
    let v = raw.trim();
    let lower = v.to_ascii_lowercase();
    if lower == "true" || lower == "false" {
        return Ok(lower);
    }
    let (neg, body) = match v.strip_prefix('-') {
        Some(b) => (true, b.trim()),
        None => (false, v.strip_prefix('+').unwrap_or(v)),
    };
    let is_digits = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    let numeral = if let Some((a, b)) = body.split_once('/') {
        (is_digits(a) && is_digits(b) && !b.trim_start_matches('0').is_empty())
            .then(|| format!("(/ {a} {b})"))
    } else if let Some((a, b)) = body.split_once('.') {
        if is_digits(a) && is_digits(b) {
            if *sort == Sort::Int && b.chars().all(|c| c == '0') {
                Some(a.to_string())
            } else {
                Some(format!("{a}.{b}"))
            }
        } else {
            None
        }
    } else if is_digits(body) {
        Some(body.to_string())
    } else {
        None
    };
    if let Some(n) = numeral {
        return Ok(if neg { format!("(- {n})") } else { n });
    }
    let symbol = v
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && v.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let known = spec.variable(v).is_some()
        || spec
            .enums
            .iter()
            .any(|(_, vs)| vs.iter().any(|c| &**c == v));
    if symbol && known {
        return Ok(v.to_string());
    }
    Err(format!(
        "value `{v}` is not a number, true, false, an enumeration value or a variable of the schema"
    ))
}

/// Turns one condition into a term, through `logic::parse_untrusted` against the schema.
pub fn condition_term(spec: &Spec, c: &Condition) -> Result<Term, String> {
    let var = spec
        .variable(c.variable.trim())
        .ok_or_else(|| format!("`{}` is not a variable of the schema", c.variable))?;
    let op = c.op.trim();
    if !OPS.contains(&op) {
        return Err(format!("`{op}` is not one of = != < <= > >="));
    }
    let value = value_text(spec, &var.sort, &c.value)?;
    let atom = if op == "!=" {
        format!("(not (= {} {value}))", var.name)
    } else {
        format!("({op} {} {value})", var.name)
    };
    let text = format!("(assert {atom})");
    let u = logic::parse_untrusted("answer", &text, &spec.context, logic::Limits::default())
        .map_err(|d| {
            let first = d.0.first().map(|l| l.to_string()).unwrap_or_default();
            format!("`{}` is not well-typed: {first}", c.show())
        })?;
    match u.assertions.as_slice() {
        [(t, _)] if u.constants.is_empty() && u.definitions.is_empty() && u.enums.is_empty() => {
            Ok(t.clone())
        }
        _ => Err(format!("`{}` is not one condition", c.show())),
    }
}

fn conjunction(ts: Vec<Term>) -> Term {
    match ts.len() {
        0 => Term::Bool(true),
        1 => ts.into_iter().next().expect("one"),
        _ => Term::app(Op::And, ts),
    }
}

/// The verifier's label of one attempt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum Check {
    /// M ∧ s ∧ ¬a is unsat: the answer is entailed (accepted).
    Safe {
        /// A minimal set of requirements that justify it.
        because: Vec<String>,
    },
    /// M ∧ s ∧ ¬a is sat: a state consistent with M and s where the answer fails.
    Violation {
        /// That state.
        counterexample: Witness,
        /// Requirements the answer contradicts (a minimal core of M ∧ s ∧ a, per condition).
        violated: Vec<String>,
        /// Conditions of the answer no requirement demands (consistent but not entailed).
        unsupported: Vec<String>,
        /// Requirements that constrain the variables of the unsupported conditions.
        concerning: Vec<String>,
    },
    /// M ∧ s is unsat.
    ScenarioImpossible {
        /// A minimal set of requirements ruling the scenario out.
        because: Vec<String>,
        /// Whether the model said so (then the attempt is accepted).
        claimed: bool,
    },
    /// The model said the scenario is impossible, but it is not.
    ScenarioPossible {
        /// A state of M and the scenario.
        witness: Witness,
    },
    /// The answer could not be turned into terms.
    Unusable {
        /// Why.
        problem: String,
    },
    /// The solver gave no answer.
    Unknown {
        /// Why.
        #[serde(flatten)]
        reason: solver::Undecided,
    },
}

impl Check {
    /// True when the verifier accepts the attempt.
    pub fn accepted(&self) -> bool {
        matches!(
            self,
            Check::Safe { .. } | Check::ScenarioImpossible { claimed: true, .. }
        )
    }
}

/// One attempt at one question.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Attempt {
    /// 0 for the first attempt, then one per repair.
    pub attempt: usize,
    /// The model's proposal, when it was valid JSON of the right shape.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proposal: Option<Proposal>,
    /// The verifier's label.
    pub check: Check,
    /// The feedback sent after this attempt, if it was rejected and the budget allowed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub feedback: Option<String>,
}

/// A derived fact on one variable of the expected answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ForcedValue {
    /// The variable.
    pub variable: String,
    /// The value the requirements force under the reference scenario.
    pub value: String,
}

/// The final answer against the solver-derived answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Comparison {
    /// The model's scenario is equivalent to the reference scenario under M.
    pub scenario_equivalent: Option<bool>,
    /// M ∧ reference scenario ∧ final answer ⊨ expected answer.
    pub covers_expected: Option<bool>,
    /// What `derive` says the requirements force, on the expected answer's variables.
    pub derived: Vec<ForcedValue>,
    /// Derived facts the final answer states.
    pub stated: Vec<String>,
    /// Derived facts the final answer leaves out.
    pub missed: Vec<String>,
    /// Conditions of the final answer that contradict a derived fact.
    pub contradicting: Vec<String>,
    /// The reference scenario is impossible (nothing is derived).
    pub reference_impossible: bool,
}

/// One question under one feedback mode.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct QuestionRun {
    /// The question's id.
    pub id: String,
    /// Its kind.
    pub kind: QuestionKind,
    /// The feedback mode.
    pub mode: FeedbackMode,
    /// Every attempt, in order.
    pub attempts: Vec<Attempt>,
    /// The attempt that was accepted, if any.
    pub accepted_at: Option<usize>,
    /// The final answer against the derived one.
    pub comparison: Option<Comparison>,
}

/// `k` of `n`, with the rate and its Wilson 95% interval.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RateCi {
    /// Successes.
    pub k: usize,
    /// Trials.
    pub n: usize,
    /// k / n (0 when n is 0).
    pub rate: f64,
    /// Two-sided Wilson 95% interval.
    pub interval: (f64, f64),
}

impl RateCi {
    /// `k` of `n`.
    pub fn new(k: usize, n: usize) -> RateCi {
        RateCi {
            k,
            n,
            rate: if n == 0 { 0.0 } else { k as f64 / n as f64 },
            interval: wilson(k, n),
        }
    }

    /// `12/20 (60.0%, [38.7%, 78.1%])`.
    pub fn show(&self) -> String {
        format!(
            "{}/{} ({:.1}%, [{:.1}%, {:.1}%])",
            self.k,
            self.n,
            100.0 * self.rate,
            100.0 * self.interval.0,
            100.0 * self.interval.1
        )
    }
}

/// The metrics of one feedback mode (Fig. 4).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModeSummary {
    /// The mode.
    pub mode: FeedbackMode,
    /// Questions asked.
    pub questions: usize,
    /// Accepted on the first attempt (pass@1).
    pub first_attempt: RateCi,
    /// Accepted within the repair budget.
    pub final_accuracy: RateCi,
    /// Initially rejected questions accepted during repair.
    pub repair_success: RateCi,
    /// Questions accepted by attempt k, for k = 0..=max_repairs (cumulative accuracy).
    pub cumulative: Vec<usize>,
    /// Accepted questions whose final answer also covers the expected answer.
    pub complete: RateCi,
    /// Final accuracy per question kind.
    pub by_kind: BTreeMap<String, RateCi>,
}

/// The whole QA run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QaReport {
    /// The repair budget.
    pub max_repairs: usize,
    /// Per mode, in the order asked.
    pub modes: Vec<ModeSummary>,
    /// Every question under every mode.
    pub runs: Vec<QuestionRun>,
    /// Prompt templates used (`name@vN`).
    pub templates: Vec<String>,
}

/// Options of [`run`].
#[derive(Debug, Clone)]
pub struct QaOptions {
    /// Feedback modes to run (each over every question).
    pub modes: Vec<FeedbackMode>,
    /// Repairs after the first attempt (the paper: 5).
    pub max_repairs: usize,
    /// Sampling temperature (the paper: 0).
    pub temperature: f64,
    /// Token limit per answer.
    pub max_tokens: u32,
    /// Also compare final answers with `derive` (two extra checks and one derivation
    /// per question).
    pub compare: bool,
}

impl Default for QaOptions {
    fn default() -> Self {
        QaOptions {
            modes: FeedbackMode::ALL.to_vec(),
            max_repairs: 5,
            temperature: 0.0,
            max_tokens: 600,
            compare: true,
        }
    }
}

/// Why a QA run stopped.
#[derive(Debug, thiserror::Error)]
pub enum QaError {
    /// A question's reference scenario or answer does not parse.
    #[error("question {id}: {diagnostics}")]
    Question {
        /// The question.
        id: String,
        /// What is wrong.
        diagnostics: Diagnostics,
    },
    /// The LLM failed in a way a repair turn cannot fix (configuration, transport, ...).
    #[error("llm: {0}")]
    Llm(#[from] LlmError),
    /// The solver failed.
    #[error("solver: {0}")]
    Solver(#[from] SolverError),
}

const ANSWER_TEMPLATE: &str = include_str!("../../../prompts/qa-answer.txt");
const REPAIR_TEMPLATE: &str = include_str!("../../../prompts/qa-repair.txt");

fn template(name: &str, text: &str) -> Template {
    Template::parse(name, text).expect("built-in templates parse")
}

/// The requirements as prompt lines, `- id: text`.
pub(crate) fn requirement_lines(spec: &Spec) -> String {
    spec.requirements
        .iter()
        .map(|r| format!("- {}: {}\n", r.id, r.text))
        .collect()
}

/// The first prompt of a question.
pub fn question_prompt(spec: &Spec, question: &str) -> String {
    template("qa-answer", ANSWER_TEMPLATE)
        .render(&[
            ("schema", &schema_info(spec).render()),
            ("requirements", &requirement_lines(spec)),
            ("question", question),
        ])
        .expect("all variables given")
}

struct Verifier<'s> {
    spec: &'s Spec,
    asker: Asker<'s>,
}

impl Verifier<'_> {
    fn terms(&self, cs: &[Condition]) -> Result<Vec<Term>, String> {
        cs.iter().map(|c| condition_term(self.spec, c)).collect()
    }

    fn concerning(&self, vars: &[String]) -> Vec<String> {
        self.spec
            .formalized()
            .filter(|r| {
                r.formula
                    .as_ref()
                    .expect("formalized")
                    .free_vars()
                    .iter()
                    .any(|(n, _)| vars.iter().any(|v| **v == **n))
            })
            .map(|r| r.id.clone())
            .collect()
    }

    fn check(&mut self, p: &Proposal) -> Result<Check, SolverError> {
        let scenario = match self.terms(&p.scenario) {
            Ok(t) => conjunction(t),
            Err(problem) => return Ok(Check::Unusable { problem }),
        };
        let items = match self.terms(&p.answer) {
            Ok(t) => t,
            Err(problem) => return Ok(Check::Unusable { problem }),
        };
        let answer = conjunction(items.clone());
        let claim = if p.scenario_impossible {
            Term::Bool(false)
        } else {
            answer
        };
        Ok(match self.asker.ask(&scenario, &claim)? {
            Verdict::Entailed { because } => {
                if p.scenario_impossible {
                    // M ∧ s ⊨ false would be scenario-impossible; not reachable.
                    Check::ScenarioImpossible {
                        because,
                        claimed: true,
                    }
                } else {
                    Check::Safe { because }
                }
            }
            Verdict::ScenarioImpossible { because } => Check::ScenarioImpossible {
                because,
                claimed: p.scenario_impossible,
            },
            Verdict::NotEntailed {
                counterexample,
                contradicts,
            } => {
                if p.scenario_impossible {
                    return Ok(Check::ScenarioPossible {
                        witness: counterexample,
                    });
                }
                // Per condition: contradicted (with a core) or merely unsupported.
                let mut violated: Vec<String> = contradicts;
                let mut unsupported = Vec::new();
                let mut vars = Vec::new();
                if items.len() > 1 || violated.is_empty() {
                    for (c, t) in p.answer.iter().zip(&items) {
                        match self.asker.ask(&scenario, t)? {
                            Verdict::Entailed { .. } => {}
                            Verdict::NotEntailed { contradicts, .. } if !contradicts.is_empty() => {
                                for id in contradicts {
                                    if !violated.contains(&id) {
                                        violated.push(id);
                                    }
                                }
                            }
                            _ => {
                                unsupported.push(c.show());
                                vars.push(c.variable.trim().to_string());
                            }
                        }
                    }
                }
                // Requirement ids only (domain constraints are part of the schema).
                violated.retain(|id| self.spec.requirements.iter().any(|r| r.id == *id));
                let concerning = self.concerning(&vars);
                Check::Violation {
                    counterexample,
                    violated,
                    unsupported,
                    concerning,
                }
            }
            Verdict::Unknown { reason } => Check::Unknown { reason },
        })
    }

    fn compare(
        &mut self,
        q: &QaQuestion,
        reference: &Term,
        expected: &Term,
        derived: &Derivation,
        last: Option<&Proposal>,
    ) -> Result<Comparison, SolverError> {
        let mut cmp = Comparison {
            scenario_equivalent: None,
            covers_expected: None,
            derived: Vec::new(),
            stated: Vec::new(),
            missed: Vec::new(),
            contradicting: Vec::new(),
            reference_impossible: matches!(derived, Derivation::ScenarioImpossible { .. }),
        };
        let expected_vars: Vec<String> = expected
            .free_vars()
            .into_iter()
            .map(|(n, _)| n.to_string())
            .collect();
        if let Derivation::Facts { variables } = derived {
            for d in variables {
                if let Fact::Forced { value } = &d.fact {
                    if expected_vars.contains(&d.variable) {
                        cmp.derived.push(ForcedValue {
                            variable: d.variable.clone(),
                            value: value.clone(),
                        });
                    }
                }
            }
        }
        let Some(p) = last else { return Ok(cmp) };
        let (Ok(s), Ok(a)) = (self.terms(&p.scenario), self.terms(&p.answer)) else {
            return Ok(cmp);
        };
        let s = conjunction(s);
        let a = conjunction(a);
        let entails =
            |asker: &mut Asker, x: &Term, y: &Term| -> Result<Option<bool>, SolverError> {
                Ok(match asker.ask(x, y)? {
                    Verdict::Entailed { .. } => Some(true),
                    Verdict::NotEntailed { .. } => Some(false),
                    // The premise contradicts M: nothing meaningful follows from it.
                    Verdict::ScenarioImpossible { .. } => Some(false),
                    Verdict::Unknown { .. } => None,
                })
            };
        cmp.scenario_equivalent = if cmp.reference_impossible {
            // Equivalent under M exactly when the model's scenario is impossible too.
            match self.asker.ask(&s, &Term::Bool(true))? {
                Verdict::ScenarioImpossible { .. } => Some(true),
                Verdict::Unknown { .. } => None,
                _ => Some(false),
            }
        } else {
            let fwd = entails(&mut self.asker, reference, &s)?;
            let back = entails(&mut self.asker, &s, reference)?;
            match (fwd, back) {
                (Some(a), Some(b)) => Some(a && b),
                _ => None,
            }
        };
        if !q.expects_impossible() {
            let both = Term::app(Op::And, vec![reference.clone(), a]);
            cmp.covers_expected = entails(&mut self.asker, &both, expected)?;
        }
        for f in &cmp.derived {
            let fact = format!("{} = {}", f.variable, f.value);
            let on_var: Vec<&Condition> = p
                .answer
                .iter()
                .filter(|c| c.variable.trim() == f.variable)
                .collect();
            let norm = |s: &str| s.trim().to_ascii_lowercase();
            let states = on_var.iter().any(|c| {
                (c.op == "=" && norm(&c.value) == norm(&f.value))
                    || (c.op == "!="
                        && matches!(
                            (norm(&c.value).as_str(), f.value.as_str()),
                            ("true", "false") | ("false", "true")
                        ))
            });
            let contradicts = on_var.iter().any(|c| {
                (c.op == "=" && norm(&c.value) != norm(&f.value) && !is_var(self.spec, &c.value))
                    || (c.op == "!=" && norm(&c.value) == norm(&f.value))
            });
            if states {
                cmp.stated.push(fact);
            } else {
                cmp.missed.push(fact);
            }
            if contradicts {
                for c in on_var {
                    cmp.contradicting.push(c.show());
                }
            }
        }
        Ok(cmp)
    }
}

fn is_var(spec: &Spec, v: &str) -> bool {
    spec.variable(v.trim()).is_some()
}

fn show_witness(w: &Witness) -> String {
    w.iter()
        .map(|a| match &a.unit {
            Some(u) => format!("  {} = {} {u}\n", a.variable, a.value),
            None => format!("  {} = {}\n", a.variable, a.value),
        })
        .collect()
}

/// The feedback text for a rejected attempt under a mode (`None` for the baseline).
pub fn feedback(spec: &Spec, mode: FeedbackMode, check: &Check) -> Option<String> {
    let text_of = |id: &str| {
        spec.requirements
            .iter()
            .find(|r| r.id == id)
            .map(|r| format!("- {}: {}\n", r.id, r.text))
            .unwrap_or_else(|| format!("- {id}\n"))
    };
    let reqs = |ids: &[String]| ids.iter().map(|i| text_of(i)).collect::<String>();
    let rejected = "The verifier rejected your answer.";
    if mode == FeedbackMode::None {
        return None;
    }
    if let Check::Unusable { problem } = check {
        return Some(format!("Your answer could not be used: {problem}."));
    }
    if mode == FeedbackMode::Generic {
        return Some(rejected.to_string());
    }
    let with_state = mode == FeedbackMode::Counterexample;
    let mut out = String::from(rejected);
    out.push('\n');
    match check {
        Check::Violation {
            counterexample,
            violated,
            unsupported,
            concerning,
        } => {
            if !violated.is_empty() {
                out.push_str("Your answer contradicts these requirements:\n");
                out.push_str(&reqs(violated));
            }
            if !unsupported.is_empty() {
                out.push_str(
                    "Part of your answer is not demanded by any requirement in this scenario. \
                     The requirements about it are:\n",
                );
                out.push_str(&reqs(concerning));
            }
            if with_state {
                out.push_str(
                    "This state satisfies every requirement and your scenario, but not your answer:\n",
                );
                out.push_str(&show_witness(counterexample));
            }
        }
        Check::ScenarioImpossible { because, .. } => {
            out.push_str("No state satisfies your scenario together with these requirements:\n");
            out.push_str(&reqs(because));
            out.push_str(
                "Either the scenario is wrong or it is impossible (set impossible to true).\n",
            );
        }
        Check::ScenarioPossible { witness } => {
            out.push_str("The scenario is possible under the requirements.\n");
            if with_state {
                out.push_str(
                    "For example this state satisfies the requirements and your scenario:\n",
                );
                out.push_str(&show_witness(witness));
            }
        }
        Check::Unknown { reason } => {
            out.push_str(&format!("The solver could not decide ({reason}).\n"));
        }
        Check::Safe { .. } | Check::Unusable { .. } => {}
    }
    Some(out.trim_end().to_string())
}

struct Pending {
    q: usize,
    last: Option<(String, String)>,
}

/// Runs every question under every mode of `options`.
pub fn run(
    spec: &Spec,
    questions: &[QaQuestion],
    client: &Client,
    solver: &SolverConfig,
    options: &QaOptions,
) -> Result<QaReport, QaError> {
    // Reference terms first: a bad questions file is an error before any LLM call.
    let mut refs = Vec::new();
    for q in questions {
        let parse = |what: &str, t: &str| {
            spec.parse_formula(&format!("{}.{what}", q.id), t)
                .map_err(|diagnostics| QaError::Question {
                    id: q.id.clone(),
                    diagnostics,
                })
        };
        refs.push((parse("scenario", &q.scenario)?, parse("answer", &q.answer)?));
    }
    let mut v = Verifier {
        spec,
        asker: Asker::new(spec, solver)?,
    };
    let derived: Vec<Option<Derivation>> = if options.compare {
        refs.iter()
            .map(|(s, _)| v.asker.derive(s).map(Some))
            .collect::<Result<_, _>>()?
    } else {
        vec![None; questions.len()]
    };
    let schema = proposal_schema(spec);
    let repair = template("qa-repair", REPAIR_TEMPLATE);
    let mut runs = Vec::new();
    let mut summaries = Vec::new();
    for &mode in &options.modes {
        let mut state: Vec<QuestionRun> = questions
            .iter()
            .map(|q| QuestionRun {
                id: q.id.clone(),
                kind: q.kind,
                mode,
                attempts: Vec::new(),
                accepted_at: None,
                comparison: None,
            })
            .collect();
        let mut proposals: Vec<Option<Proposal>> = vec![None; questions.len()];
        let mut pending: Vec<Pending> = (0..questions.len())
            .map(|q| Pending { q, last: None })
            .collect();
        let stage = format!("qa.{}", mode.name());
        for attempt in 0..=options.max_repairs {
            if pending.is_empty() {
                break;
            }
            let reqs: Vec<Request> = pending
                .iter()
                .map(|p| {
                    let mut r = Request::new().user(question_prompt(spec, &questions[p.q].text));
                    if let Some((prev, fb)) = &p.last {
                        r = r.assistant(prev.clone()).user(
                            repair
                                .render(&[("feedback", fb)])
                                .expect("all variables given"),
                        );
                    }
                    r.temperature(options.temperature)
                        .max_tokens(options.max_tokens)
                        .schema("qa_answer", schema.clone())
                        .sample(attempt as u32)
                })
                .collect();
            let answers = client.run_all(&stage, &reqs);
            let mut next = Vec::new();
            for (p, answer) in pending.into_iter().zip(answers) {
                let (proposal, raw, check) = match answer {
                    Ok(done) => {
                        let raw = done.text().to_string();
                        let parsed = done
                            .json
                            .clone()
                            .ok_or_else(|| "the answer is not JSON".to_string())
                            .and_then(|j| {
                                serde_json::from_value::<Proposal>(j)
                                    .map_err(|e| format!("the JSON does not fit the schema: {e}"))
                            });
                        match parsed {
                            Ok(prop) => {
                                let check = v.check(&prop)?;
                                (Some(prop), raw, check)
                            }
                            Err(problem) => (None, raw, Check::Unusable { problem }),
                        }
                    }
                    Err(e) if e.is_answer_problem() => {
                        let problem = e.feedback().unwrap_or_else(|| e.to_string());
                        (None, String::new(), Check::Unusable { problem })
                    }
                    Err(e) => return Err(e.into()),
                };
                let run = &mut state[p.q];
                let accepted = check.accepted();
                if proposal.is_some() {
                    proposals[p.q] = proposal.clone();
                }
                let fb = if accepted || attempt == options.max_repairs {
                    None
                } else {
                    feedback(spec, mode, &check)
                };
                run.attempts.push(Attempt {
                    attempt,
                    proposal,
                    check,
                    feedback: fb.clone(),
                });
                if accepted {
                    run.accepted_at = Some(attempt);
                } else {
                    // The baseline asks the first prompt again (a new sample).
                    let last = fb.map(|f| (raw, f));
                    next.push(Pending { q: p.q, last });
                }
            }
            pending = next;
        }
        for (i, run) in state.iter_mut().enumerate() {
            if let Some(d) = &derived[i] {
                run.comparison = Some(v.compare(
                    &questions[i],
                    &refs[i].0,
                    &refs[i].1,
                    d,
                    proposals[i].as_ref(),
                )?);
            }
        }
        summaries.push(summarize(mode, &state, options.max_repairs));
        runs.extend(state);
    }
    Ok(QaReport {
        max_repairs: options.max_repairs,
        modes: summaries,
        runs,
        templates: vec![template("qa-answer", ANSWER_TEMPLATE).id(), repair.id()],
    })
}

fn summarize(mode: FeedbackMode, runs: &[QuestionRun], max_repairs: usize) -> ModeSummary {
    let n = runs.len();
    let first = runs.iter().filter(|r| r.accepted_at == Some(0)).count();
    let fin = runs.iter().filter(|r| r.accepted_at.is_some()).count();
    let cumulative = (0..=max_repairs)
        .map(|k| {
            runs.iter()
                .filter(|r| r.accepted_at.is_some_and(|a| a <= k))
                .count()
        })
        .collect();
    let complete = runs
        .iter()
        .filter(|r| {
            r.accepted_at.is_some()
                && r.comparison
                    .as_ref()
                    .is_some_and(|c| c.covers_expected.unwrap_or(c.reference_impossible))
        })
        .count();
    let mut by_kind = BTreeMap::new();
    for kind in [
        QuestionKind::Single,
        QuestionKind::Multi,
        QuestionKind::None,
    ] {
        let of: Vec<&QuestionRun> = runs.iter().filter(|r| r.kind == kind).collect();
        if !of.is_empty() {
            let k = of.iter().filter(|r| r.accepted_at.is_some()).count();
            let name = serde_json::to_value(kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            by_kind.insert(name, RateCi::new(k, of.len()));
        }
    }
    ModeSummary {
        mode,
        questions: n,
        first_attempt: RateCi::new(first, n),
        final_accuracy: RateCi::new(fin, n),
        repair_success: RateCi::new(fin - first, n - first),
        cumulative,
        complete: RateCi::new(complete, n),
        by_kind,
    }
}

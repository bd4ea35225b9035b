//! Drafting a typed schema from a requirement list (`vera schema draft`).
//!
//! The model proposes enumerations, variables (sort, unit, bounds from the document's
//! own numbers, role, the requirement ids each serves) and domain constraints, as JSON
//! checked against a JSON schema. The answer is read into a vera spec (the loader of
//! `reqs::spec` checks names, sorts and bounds; each domain formula goes through the
//! elaborator), and before any requirement is formalized the draft is checked:
//!
//! - by the solver: the domain constraints are satisfiable (a minimal conflict when
//!   not); no variable's range is empty; no variable is fixed to one value unless the
//!   document states one; no two variables are forced equal;
//! - by the requirement list: every variable serves a requirement whose text talks about
//!   it; every requirement is served by some variable; no domain constraint names a
//!   variable that is not declared;
//! - by name, unit and description: no quantity appears under two names.
//!
//! Requirements no variable serves and domain constraints that name undeclared symbols
//! are missing variables; a bounded repair round asks the model to propose them and
//! checks the result again. With [`DraftOptions::probe`], every requirement is then
//! formalized against the checked draft (`crate::formalize`); those whose answers need
//! a name the schema does not declare feed one more repair round that proposes the
//! variables, and are formalized again. An `unknown` solver answer is reported as undecided, never
//! as a pass.

use crate::formalize::{render_spec_annotated, OutRequirement};
use llm::{Client, LlmError, Request, Template};
use logic::source::{Diagnostics, SourceFile};
use logic::{Op, Sort, Term};
use num_rational::BigRational;
use reqs::audit::Session;
use reqs::spec::{Constraint, Spec};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use solver::{Outcome, Solver, SolverConfig, SolverError};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;

/// The JSON tag of the command's report.
pub const SCHEMA_TAG: &str = "vera.schema-draft.v1";

/// Token limit of a drafted schema: a few variables per requirement group, each a line
/// or two of JSON.
pub const DEFAULT_MAX_TOKENS: u32 = 8192;

/// Word-set similarity (Jaccard over content words of name and description) at which two
/// variables with the same sort and unit are flagged as one quantity under two names.
pub const DUPLICATE_THRESHOLD: f64 = 0.5;

/// Why no draft could be made.
#[derive(Debug, thiserror::Error)]
pub enum SchemaError {
    /// The requirement list cannot be read.
    #[error("{file}: {detail}")]
    Input {
        /// The file.
        file: String,
        /// What is wrong.
        detail: String,
    },
    /// The requirement list is JSON that does not parse or does not fit
    /// `vera.requirements.v1`.
    #[error("{file}:{line}:{column}: {detail}")]
    Json {
        /// The file.
        file: String,
        /// One-based line.
        line: usize,
        /// One-based column.
        column: usize,
        /// What is wrong.
        detail: String,
    },
    /// The requirement list is a TOML spec that does not load.
    #[error("{0}")]
    Spec(Diagnostics),
    /// The model gave no usable draft within the retry budget.
    #[error(
        "no valid schema draft after {answers} answers; the last was refused because: {reason}"
    )]
    NoDraft {
        /// Answers requested.
        answers: usize,
        /// Why the last answer was refused.
        reason: String,
    },
    /// The LLM layer failed (configuration, transport after retries, replay miss, ...).
    #[error(transparent)]
    Llm(#[from] LlmError),
    /// The solver failed.
    #[error(transparent)]
    Solver(#[from] SolverError),
    /// The formalization probe failed (not a requirement that did not formalize: the
    /// loop itself).
    #[error(transparent)]
    Formalize(#[from] crate::formalize::PipelineError),
}

// ------------------------------------------------------------------ input

/// One requirement of the list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Item {
    /// Its id.
    pub id: String,
    /// Its text.
    pub text: String,
}

/// The requirement list a schema is drafted for.
#[derive(Debug, Clone)]
pub struct RequirementList {
    /// The file it came from.
    pub file: String,
    /// A name for the spec (the file's stem, or the input spec's name).
    pub name: String,
    /// The requirements, in file order.
    pub requirements: Vec<Item>,
    /// What was not carried over from the input.
    pub notes: Vec<String>,
}

#[derive(Deserialize)]
struct JsonList {
    schema: Option<Value>,
    requirements: Option<Value>,
}

/// Reads a requirement list: `vera.requirements.v1` JSON (what `vera extract --format
/// json` writes) or a TOML spec (what `vera extract` writes, or any vera spec; its
/// schema and formulas are not carried over, and a note says so).
pub fn read_requirements(file: &str, bytes: &[u8]) -> Result<RequirementList, SchemaError> {
    let input = |detail: String| SchemaError::Input {
        file: file.to_string(),
        detail,
    };
    if let Some(at) = bytes.iter().position(|b| *b == 0) {
        return Err(input(format!(
            "a binary file (NUL byte at offset {at}), not a requirement list"
        )));
    }
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let good = &bytes[..e.valid_up_to()];
        let line = good.iter().filter(|b| **b == b'\n').count() + 1;
        let column = good.len() - good.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1) + 1;
        input(format!("line {line}, column {column}: not UTF-8 text"))
    })?;
    if text.trim().is_empty() {
        return Err(input(
            "the file is empty: no requirements to draft a schema for".into(),
        ));
    }
    let stem = std::path::Path::new(file).file_stem().map_or_else(
        || "schema".to_string(),
        |s| s.to_string_lossy().into_owned(),
    );
    let trimmed = text.trim_start();
    let mut list = if trimmed.starts_with('{') {
        read_json(file, text, stem)?
    } else {
        let spec = reqs::parse_spec(SourceFile::new(file, text)).map_err(SchemaError::Spec)?;
        let mut notes = Vec::new();
        if !spec.variables.is_empty() {
            notes.push(format!(
                "the input declares {} variable{}; the draft starts from the requirement texts alone (the input's schema is not carried over)",
                spec.variables.len(),
                if spec.variables.len() == 1 { "" } else { "s" }
            ));
        }
        let formulas = spec.formalized().count();
        if formulas > 0 {
            notes.push(format!(
                "{formulas} formula{} of the input {} not carried over: {} over the input's schema, not the draft's",
                if formulas == 1 { "" } else { "s" },
                if formulas == 1 { "is" } else { "are" },
                if formulas == 1 { "it is" } else { "they are" },
            ));
        }
        RequirementList {
            file: file.to_string(),
            name: spec.name.clone(),
            requirements: spec
                .requirements
                .iter()
                .map(|r| Item {
                    id: r.id.clone(),
                    text: r.text.clone(),
                })
                .collect(),
            notes,
        }
    };
    if list.requirements.is_empty() {
        return Err(input(
            "no requirements in the file: nothing to draft a schema for".into(),
        ));
    }
    if let Some(r) = list.requirements.iter().find(|r| r.text.trim().is_empty()) {
        list.notes.push(format!(
            "requirement {} has an empty text; nothing can be drafted for it",
            r.id
        ));
    }
    Ok(list)
}

fn read_json(file: &str, text: &str, stem: String) -> Result<RequirementList, SchemaError> {
    let located = |line: usize, column: usize, detail: String| SchemaError::Json {
        file: file.to_string(),
        line,
        column,
        detail,
    };
    let list: JsonList = serde_json::from_str(text).map_err(|e| {
        let msg = e.to_string();
        let msg = msg
            .rsplit_once(" at line ")
            .map_or(msg.as_str(), |(m, _)| m);
        located(
            e.line(),
            e.column(),
            format!("not a requirement list: {msg}"),
        )
    })?;
    let whole = |detail: String| located(1, 1, detail);
    match &list.schema {
        Some(Value::String(s)) if s == "vera.requirements.v1" => {}
        None => {}
        Some(other) => {
            return Err(whole(format!(
                "`schema` is {other}; expected \"vera.requirements.v1\" (the output of `vera extract --format json`)"
            )))
        }
    }
    let Some(Value::Array(items)) = &list.requirements else {
        return Err(whole(
            "no `requirements` array (expected vera.requirements.v1, the output of `vera extract --format json`)".into(),
        ));
    };
    let mut out: Vec<Item> = Vec::new();
    for (i, r) in items.iter().enumerate() {
        let field = |k: &str| r.get(k).and_then(Value::as_str).map(str::to_string);
        let (Some(id), Some(text)) = (field("id"), field("text")) else {
            return Err(whole(format!(
                "requirements[{i}] needs an `id` and a `text`, both strings"
            )));
        };
        if out.iter().any(|o| o.id == id) {
            return Err(whole(format!("requirements[{i}]: id `{id}` appears twice")));
        }
        out.push(Item { id, text });
    }
    Ok(RequirementList {
        file: file.to_string(),
        name: stem,
        requirements: out,
        notes: Vec::new(),
    })
}

// ------------------------------------------------------------------ the model's answer

/// An enumeration of the draft.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DraftEnum {
    /// Its name (a sort).
    pub name: String,
    /// Its values.
    pub values: Vec<String>,
}

/// A variable of the draft, as the model proposed it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DraftVariable {
    /// Its name.
    pub name: String,
    /// `Bool`, `Int`, `Real` or an enumeration.
    pub sort: String,
    /// Physical unit.
    #[serde(default)]
    pub unit: Option<String>,
    /// What it means.
    #[serde(default)]
    pub description: Option<String>,
    /// Inclusive lower bound the document gives.
    #[serde(default)]
    pub min: Option<Value>,
    /// Inclusive upper bound the document gives.
    #[serde(default)]
    pub max: Option<Value>,
    /// The document states a single value for it (a one-point range is then intended).
    #[serde(default)]
    pub fixed: bool,
    /// `input` or `output`.
    #[serde(default)]
    pub role: Option<String>,
    /// Ids of the requirements that talk about it.
    #[serde(default)]
    pub serves: Vec<String>,
}

/// A domain constraint of the draft.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DraftConstraint {
    /// Its id.
    pub id: String,
    /// The text it comes from.
    #[serde(default)]
    pub text: Option<String>,
    /// One SMT-LIB term.
    pub formula: String,
}

/// The model's answer: a draft schema.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DraftAnswer {
    /// Enumerations.
    #[serde(default)]
    pub enums: Vec<DraftEnum>,
    /// Variables.
    #[serde(default)]
    pub variables: Vec<DraftVariable>,
    /// Domain constraints.
    #[serde(default)]
    pub domain: Vec<DraftConstraint>,
}

/// The JSON schema of an answer (`min_variables`: 1 for a draft and for proposed
/// missing variables alike).
pub fn answer_schema() -> Value {
    let nullable = |t: &str| json!({"type": [t, "null"]});
    json!({
        "type": "object",
        "properties": {
            "enums": {"type": "array", "items": {"type": "object",
                "properties": {
                    "name": {"type": "string", "minLength": 1},
                    "values": {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1}
                },
                "required": ["name", "values"], "additionalProperties": false}},
            "variables": {"type": "array", "minItems": 1, "items": {"type": "object",
                "properties": {
                    "name": {"type": "string", "minLength": 1},
                    "sort": {"type": "string", "minLength": 1},
                    "unit": nullable("string"),
                    "description": {"type": "string"},
                    "min": nullable("number"),
                    "max": nullable("number"),
                    "fixed": {"type": "boolean"},
                    "role": {"type": "string", "enum": ["input", "output"]},
                    "serves": {"type": "array", "items": {"type": "string"}}
                },
                "required": ["name", "sort", "unit", "description", "min", "max", "fixed", "role", "serves"],
                "additionalProperties": false}},
            "domain": {"type": "array", "items": {"type": "object",
                "properties": {
                    "id": {"type": "string", "minLength": 1},
                    "text": {"type": "string"},
                    "formula": {"type": "string", "minLength": 1}
                },
                "required": ["id", "text", "formula"], "additionalProperties": false}}
        },
        "required": ["enums", "variables", "domain"],
        "additionalProperties": false
    })
}

/// The prompt templates (built in; see `prompts/`).
#[derive(Debug, Clone)]
pub struct Prompts {
    /// The requirement list → a draft.
    pub draft: Template,
    /// Missing variables → proposed variables.
    pub missing: Template,
    /// The draft so far and more requirements → the variables they add
    /// ([`DraftOptions::chunk`]).
    pub extend: Template,
}

impl Prompts {
    /// The templates shipped in `prompts/`, compiled in.
    pub fn builtin() -> Prompts {
        let t = |name: &str, text: &str| Template::parse(name, text).expect("built-in template");
        Prompts {
            draft: t(
                "schema-draft",
                include_str!("../../../prompts/schema-draft.txt"),
            ),
            missing: t(
                "schema-missing",
                include_str!("../../../prompts/schema-missing.txt"),
            ),
            extend: t(
                "schema-extend",
                include_str!("../../../prompts/schema-extend.txt"),
            ),
        }
    }
}

/// Options of [`draft_schema`].
#[derive(Debug, Clone)]
pub struct DraftOptions {
    /// Answers asked again after one that is not a valid draft (not JSON, wrong shape,
    /// bad names or sorts, a domain formula that does not type-check).
    pub retries: usize,
    /// Rounds that ask the model for missing variables.
    pub repairs: usize,
    /// Token limit per answer.
    pub max_tokens: u32,
    /// Formalize every requirement against the checked draft; those whose answers
    /// need a name the schema does not declare are missing variables, proposed in one
    /// more repair round (when `repairs` > 0) and formalized again.
    pub probe: bool,
    /// Repair turns of each formalization in the probe.
    pub probe_retries: usize,
    /// Requirements per request (0: the whole list in one request). A list longer than
    /// this is drafted in consecutive chunks: the first drafts a schema, each later one
    /// extends it (the schema so far in the prompt), so a model with a small context can
    /// draft for a long document.
    pub chunk: usize,
}

impl Default for DraftOptions {
    fn default() -> Self {
        DraftOptions {
            retries: 2,
            repairs: 1,
            max_tokens: DEFAULT_MAX_TOKENS,
            probe: false,
            probe_retries: 2,
            chunk: 0,
        }
    }
}

// ------------------------------------------------------------------ findings

/// A defect of the draft.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Finding {
    /// The domain constraints and bounds together allow no state; `constraints` is a
    /// minimal conflicting set (ids; `x.min`/`x.max` are bounds).
    UnsatisfiableDomain {
        /// The conflict.
        constraints: Vec<String>,
    },
    /// A variable's own bounds and constraints allow no value.
    EmptyRange {
        /// The variable.
        variable: String,
        /// The conflicting bounds and constraints.
        constraints: Vec<String>,
        /// True when the bounds were left out of the written schema (`min` > `max`,
        /// which a spec cannot hold).
        left_out: bool,
    },
    /// The domain allows one value only, and the document does not state one.
    SinglePoint {
        /// The variable.
        variable: String,
        /// Its only value.
        value: String,
    },
    /// Two variables equal in every state the domain allows.
    ForcedEqual {
        /// One variable.
        a: String,
        /// The other.
        b: String,
    },
    /// One quantity under two names: same sort and unit, similar name and description.
    DuplicateQuantity {
        /// One variable.
        a: String,
        /// The other.
        b: String,
        /// Their unit.
        unit: Option<String>,
        /// Jaccard similarity of their content words.
        similarity: f64,
        /// The words they share.
        shared: Vec<String>,
    },
    /// A variable no requirement needs.
    UnusedVariable {
        /// The variable.
        variable: String,
        /// Why.
        reason: String,
    },
    /// A variable names requirement ids that are not in the list.
    UnknownRequirement {
        /// The variable.
        variable: String,
        /// The ids.
        ids: Vec<String>,
    },
    /// A requirement no variable serves, or a domain constraint that names a variable
    /// the draft does not declare.
    MissingVariable {
        /// The requirement, when one has no variable.
        #[serde(skip_serializing_if = "Option::is_none")]
        requirement: Option<String>,
        /// The domain constraint, when one names undeclared symbols (it is left out of
        /// the written schema).
        #[serde(skip_serializing_if = "Option::is_none")]
        constraint: Option<String>,
        /// The undeclared symbols.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        symbols: Vec<String>,
    },
    /// A part of the model's answer that still had a problem after the repair turns,
    /// left out of the draft.
    Dropped {
        /// What was dropped (`variable x`, `domain constraint D2`, `min of x`, ...).
        item: String,
        /// The problem.
        reason: String,
    },
    /// The solver could not decide a check (never counted as a pass).
    Undecided {
        /// Which check.
        check: String,
        /// The solver's reason.
        #[serde(flatten)]
        reason: solver::Undecided,
    },
}

impl Finding {
    /// The kind, as in the JSON (`unsatisfiable-domain`, ...).
    pub fn kind(&self) -> &'static str {
        match self {
            Finding::UnsatisfiableDomain { .. } => "unsatisfiable-domain",
            Finding::EmptyRange { .. } => "empty-range",
            Finding::SinglePoint { .. } => "single-point",
            Finding::ForcedEqual { .. } => "forced-equal",
            Finding::DuplicateQuantity { .. } => "duplicate-quantity",
            Finding::UnusedVariable { .. } => "unused-variable",
            Finding::UnknownRequirement { .. } => "unknown-requirement",
            Finding::MissingVariable { .. } => "missing-variable",
            Finding::Dropped { .. } => "dropped",
            Finding::Undecided { .. } => "undecided",
        }
    }
}

/// What `vera schema draft` found, and how the draft was obtained.
#[derive(Debug, Clone, Default, Serialize)]
pub struct DraftReport {
    /// Requirements in the list.
    pub requirements: usize,
    /// The schema as drafted (after the repair rounds).
    pub draft: DraftAnswer,
    /// The defects, in the order the checks ran.
    pub findings: Vec<Finding>,
    /// Answers requested for the draft before any repair round, every chunk counted
    /// (1 = one request, accepted at once).
    pub attempts: usize,
    /// Requests the list was drafted in ([`DraftOptions::chunk`]; 1 = the whole list at
    /// once).
    pub chunks: usize,
    /// Why each refused answer was refused.
    pub refused: Vec<String>,
    /// Repair rounds run for missing variables.
    pub repair_rounds: usize,
    /// Variables the repair rounds added.
    pub proposed: Vec<String>,
    /// Solver queries.
    pub queries: usize,
    /// The prompt templates, `name@vN`.
    pub prompts: Vec<String>,
    /// What was not carried over from the input, and what was left out of the schema.
    pub notes: Vec<String>,
    /// What formalizing against the draft showed, when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub probe: Option<ProbeReport>,
}

/// A checked draft: the report and the spec it becomes.
#[derive(Debug, Clone)]
pub struct SchemaDraft {
    /// The report.
    pub report: DraftReport,
    /// The schema as a loaded spec (variables, enumerations, domain; no requirements).
    pub spec: Spec,
    /// The requirement list.
    pub list: RequirementList,
    /// Per variable, why bounds were left out.
    left_out: HashMap<String, String>,
}

// ------------------------------------------------------------------ assembling

/// A draft read into a spec.
struct Assembled {
    spec: Spec,
    /// Domain constraints that name undeclared symbols: id and the symbols.
    undeclared: Vec<(String, Vec<String>)>,
    /// Bounds left out (min > max), by variable: (min, max).
    inverted: HashMap<String, (BigRational, BigRational)>,
}

fn toml_str(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

fn number_text(r: &BigRational) -> String {
    if r.is_integer() {
        r.to_integer().to_string()
    } else {
        logic::Value::Real(r.clone()).to_string()
    }
}

/// A decimal number (`10`, `-0.5`, `1e-3`), exactly.
pub(crate) fn rational(v: &Value) -> Result<BigRational, String> {
    let s = match v {
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.trim().to_string(),
        other => return Err(format!("{other} is not a number")),
    };
    let bad = || format!("`{s}` is not a decimal number");
    let (mantissa, exp) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], s[i + 1..].parse::<i32>().map_err(|_| bad())?),
        None => (s.as_str(), 0),
    };
    let (neg, digits) = match mantissa.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, mantissa.strip_prefix('+').unwrap_or(mantissa)),
    };
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    if (int.is_empty() && frac.is_empty())
        || !int.chars().chain(frac.chars()).all(|c| c.is_ascii_digit())
        || exp.abs() > 30
    {
        return Err(bad());
    }
    let n: num_bigint::BigInt = format!("{int}{frac}").parse().map_err(|_| bad())?;
    let ten = num_bigint::BigInt::from(10);
    let scale = exp - frac.len() as i32;
    let mut r = BigRational::from_integer(n);
    if scale >= 0 {
        r *= BigRational::from_integer(num_traits::pow(ten, scale as usize));
    } else {
        r /= BigRational::from_integer(num_traits::pow(ten, (-scale) as usize));
    }
    Ok(if neg { -r } else { r })
}

const SORTS: &[&str] = &["Bool", "Int", "Real"];

/// The part of an answer a problem is in: what salvage drops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fault {
    /// The answer as a whole (nothing to drop).
    Whole,
    /// An enumeration.
    Enum(usize),
    /// A value of an enumeration.
    Value(usize, usize),
    /// A variable.
    Variable(usize),
    /// A variable's min (false) or max (true).
    Bound(usize, bool),
    /// A variable's role.
    Role(usize),
    /// A domain constraint.
    Domain(usize),
}

/// Checks the answer's shape beyond the JSON schema and reads it into a spec. The
/// problems returned go back to the model, each with the part it is in.
fn assemble(a: &DraftAnswer, name: &str) -> Result<Assembled, Vec<(Fault, String)>> {
    let mut problems: Vec<(Fault, String)> = Vec::new();
    let mut names: BTreeSet<&str> = BTreeSet::new();
    if a.variables.is_empty() {
        problems.push((Fault::Whole, "it lists no variables".to_string()));
    }
    check_enums(a, &mut names, &mut problems);
    let bounds = check_variables(a, &mut names, &mut problems);
    check_domain_ids(a, &mut problems);
    if !problems.is_empty() {
        return Err(problems);
    }
    let (o, inverted) = schema_toml(a, name, &bounds);
    let mut spec = reqs::parse_spec(SourceFile::new("draft", o)).map_err(|d| {
        d.0.iter()
            .filter(|l| l.severity == logic::source::Severity::Error)
            .map(|l| (Fault::Whole, l.message.clone()))
            .collect::<Vec<_>>()
    })?;
    let undeclared = read_domain(a, &mut spec, &mut problems);
    if !problems.is_empty() {
        return Err(problems);
    }
    Ok(Assembled {
        spec,
        undeclared,
        inverted,
    })
}

/// Checks the enumerations' names and values: plain symbols, unique in the schema.
fn check_enums<'a>(
    a: &'a DraftAnswer,
    names: &mut BTreeSet<&'a str>,
    problems: &mut Vec<(Fault, String)>,
) {
    for (ei, e) in a.enums.iter().enumerate() {
        if !logic::sexp::is_simple_symbol(&e.name) || SORTS.contains(&e.name.as_str()) {
            problems.push((Fault::Enum(ei), format!(
                "enumeration name `{}` is not a plain symbol (letters, digits and _, starting with a letter) or is a built-in sort",
                e.name
            )));
        }
        for (vi, v) in e.values.iter().enumerate() {
            if !logic::sexp::is_simple_symbol(v) {
                problems.push((
                    Fault::Value(ei, vi),
                    format!(
                        "value `{v}` of enumeration {} is not a plain symbol",
                        e.name
                    ),
                ));
            }
            if !names.insert(v) {
                problems.push((Fault::Value(ei, vi), format!(
                    "`{v}` is used twice (enumeration values are unique across all enumerations and differ from variable names)"
                )));
            }
        }
    }
}

/// Checks each variable's name, sort, bounds and role; gives back the bounds read.
#[allow(clippy::type_complexity)]
fn check_variables<'a>(
    a: &'a DraftAnswer,
    names: &mut BTreeSet<&'a str>,
    problems: &mut Vec<(Fault, String)>,
) -> Vec<(Option<BigRational>, Option<BigRational>)> {
    let mut bounds: Vec<(Option<BigRational>, Option<BigRational>)> = Vec::new();
    for (i, v) in a.variables.iter().enumerate() {
        if !logic::sexp::is_simple_symbol(&v.name) {
            problems.push((Fault::Variable(i), format!(
                "variable name `{}` is not a plain symbol (letters, digits and _, starting with a letter)",
                v.name
            )));
        }
        if !names.insert(&v.name) {
            problems.push((
                Fault::Variable(i),
                format!("`{}` is declared twice", v.name),
            ));
        }
        let numeric = matches!(v.sort.as_str(), "Int" | "Real");
        let known = numeric || v.sort == "Bool" || a.enums.iter().any(|e| e.name == v.sort);
        if !known {
            problems.push((
                Fault::Variable(i),
                format!(
                    "variable `{}` has sort `{}`: use Bool, Int, Real or one of the enumerations",
                    v.name, v.sort
                ),
            ));
        }
        let lo = variable_bound(v, i, known, &v.min, "min", problems);
        let hi = variable_bound(v, i, known, &v.max, "max", problems);
        bounds.push((lo, hi));
        if let Some(r) = &v.role {
            if r != "input" && r != "output" {
                problems.push((
                    Fault::Role(i),
                    format!("variable `{}` has role `{r}`: use input or output", v.name),
                ));
            }
        }
    }
    bounds
}

/// Reads one bound of a variable; a bound its sort cannot have is a problem, left out.
fn variable_bound(
    v: &DraftVariable,
    i: usize,
    known: bool,
    b: &Option<Value>,
    which: &str,
    problems: &mut Vec<(Fault, String)>,
) -> Option<BigRational> {
    let numeric = matches!(v.sort.as_str(), "Int" | "Real");
    let fault = Fault::Bound(i, which == "max");
    match b {
        None | Some(Value::Null) => None,
        Some(_) if !known => None,
        Some(x) if !numeric => {
            problems.push((
                fault,
                format!(
                "variable `{}` is {} and cannot have a {which} ({x}); bounds are for Int and Real",
                v.name, v.sort
            ),
            ));
            None
        }
        Some(x) => match rational(x) {
            Ok(r) if v.sort == "Int" && !r.is_integer() => {
                problems.push((
                    fault,
                    format!(
                        "variable `{}` is Int but its {which} {x} is not an integer",
                        v.name
                    ),
                ));
                None
            }
            Ok(r) => Some(r),
            Err(e) => {
                problems.push((fault, format!("{which} of `{}`: {e}", v.name)));
                None
            }
        },
    }
}

/// Checks the domain constraint ids: present, one line, unique, not a bound's id.
fn check_domain_ids(a: &DraftAnswer, problems: &mut Vec<(Fault, String)>) {
    let mut ids: BTreeSet<&str> = BTreeSet::new();
    for (i, d) in a.domain.iter().enumerate() {
        if d.id.trim().is_empty() || d.id.contains(['\n', '\r']) || !ids.insert(&d.id) {
            problems.push((
                Fault::Domain(i),
                format!(
                    "domain constraint id `{}` is empty, has a line break or is used twice",
                    d.id
                ),
            ));
        }
        if d.id.ends_with(".min") || d.id.ends_with(".max") {
            problems.push((
                Fault::Domain(i),
                format!(
                    "domain constraint id `{}` is reserved for variable bounds",
                    d.id
                ),
            ));
        }
    }
}

/// The schema as TOML for the spec loader, and the min > max bounds it leaves out.
#[allow(clippy::type_complexity)]
fn schema_toml(
    a: &DraftAnswer,
    name: &str,
    bounds: &[(Option<BigRational>, Option<BigRational>)],
) -> (String, HashMap<String, (BigRational, BigRational)>) {
    let mut inverted = HashMap::new();
    let mut o = format!("[spec]\nname = {}\n", toml_str(name));
    for e in &a.enums {
        let values: Vec<String> = e.values.iter().map(|v| toml_str(v)).collect();
        let _ = writeln!(
            o,
            "\n[[enums]]\nname = {}\nvalues = [{}]",
            toml_str(&e.name),
            values.join(", ")
        );
    }
    for (v, (lo, hi)) in a.variables.iter().zip(bounds) {
        let _ = writeln!(
            o,
            "\n[[variables]]\nname = {}\nsort = {}",
            toml_str(&v.name),
            toml_str(&v.sort)
        );
        if let Some(u) = v.unit.as_deref().filter(|u| !u.trim().is_empty()) {
            let _ = writeln!(o, "unit = {}", toml_str(u));
        }
        if let Some(d) = v.description.as_deref().filter(|d| !d.trim().is_empty()) {
            let _ = writeln!(o, "description = {}", toml_str(d));
        }
        match (lo, hi) {
            (Some(l), Some(h)) if l > h => {
                inverted.insert(v.name.clone(), (l.clone(), h.clone()));
            }
            _ => {
                if let Some(l) = lo {
                    let _ = writeln!(o, "min = {}", number_text(l));
                }
                if let Some(h) = hi {
                    let _ = writeln!(o, "max = {}", number_text(h));
                }
            }
        }
        if let Some(r) = &v.role {
            let _ = writeln!(o, "role = {}", toml_str(r));
        }
    }
    (o, inverted)
}

/// Adds the domain to `spec`; gives back the constraints that wait for missing variables.
fn read_domain(
    a: &DraftAnswer,
    spec: &mut Spec,
    problems: &mut Vec<(Fault, String)>,
) -> Vec<(String, Vec<String>)> {
    let mut undeclared = Vec::new();
    for (i, d) in a.domain.iter().enumerate() {
        match untrusted_formula(spec, &format!("domain {}", d.id), &d.formula) {
            Ok(t) => spec.domain.push(Constraint {
                id: d.id.clone(),
                text: d.text.clone().filter(|t| !t.trim().is_empty()),
                formula: t,
                line: 0,
            }),
            Err(diags) => {
                let symbols = undeclared_symbols(&diags);
                // Only a formula whose every error is an undeclared name waits for
                // missing variables; any other error (a character SMT-LIB does not
                // allow, a sort mismatch) makes it a problem of its own.
                let only_undeclared = diags
                    .0
                    .iter()
                    .filter(|l| l.severity == logic::source::Severity::Error)
                    .all(|l| l.message.starts_with("undeclared symbol"));
                if symbols.is_empty() || !only_undeclared {
                    problems.push((Fault::Domain(i), domain_problem(d, &diags)));
                } else {
                    undeclared.push((d.id.clone(), symbols));
                }
            }
        }
    }
    undeclared
}

/// The problem of a domain formula that does not read, for the model.
fn domain_problem(d: &DraftConstraint, diags: &logic::Diagnostics) -> String {
    // A character SMT-LIB does not allow is the problem: what the
    // reader made of the rest after it is not.
    let lexical: Vec<String> = diags
        .0
        .iter()
        .filter(|l| l.message.starts_with("unexpected character"))
        .map(|l| l.message.clone())
        .collect();
    let msgs: Vec<String> = if lexical.is_empty() {
        diags.0.iter().map(|l| l.message.clone()).collect()
    } else {
        lexical
    };
    format!(
        "domain constraint {} `{}`: {}",
        d.id,
        d.formula,
        msgs.join("; ")
    )
}

/// What salvage took out of an answer: the item and why.
type Dropped = Vec<(String, String)>;

/// Reads an answer that does not assemble by dropping the parts with problems (a
/// duplicate, a bad name or sort, a bound that cannot be, a domain formula that does not
/// type-check), as often as dropping makes new ones (a variable of a dropped
/// enumeration). `None` when a problem concerns the answer as a whole.
fn salvage(a: &DraftAnswer, name: &str) -> Option<(DraftAnswer, Assembled, Dropped)> {
    let mut cur = a.clone();
    let mut dropped: Dropped = Vec::new();
    for _ in 0..=a.enums.len() + a.variables.len() + a.domain.len() + 1 {
        let problems = match assemble(&cur, name) {
            Ok(asm) => return Some((cur, asm, dropped)),
            Err(p) => p,
        };
        if problems.iter().any(|(f, _)| *f == Fault::Whole) {
            return None;
        }
        let faults: Vec<Fault> = problems.iter().map(|(f, _)| *f).collect();
        for (f, why) in &problems {
            let item = match *f {
                Fault::Whole => unreachable!("refused above"),
                Fault::Enum(i) => format!("enumeration {}", cur.enums[i].name),
                Fault::Value(i, j) => format!(
                    "value {} of enumeration {}",
                    cur.enums[i].values[j], cur.enums[i].name
                ),
                Fault::Variable(i) => format!("variable {}", cur.variables[i].name),
                Fault::Bound(i, max) => format!(
                    "{} of {}",
                    if max { "max" } else { "min" },
                    cur.variables[i].name
                ),
                Fault::Role(i) => format!("role of {}", cur.variables[i].name),
                Fault::Domain(i) => format!("domain constraint {}", cur.domain[i].id),
            };
            match dropped.iter_mut().find(|(i, _)| *i == item) {
                Some((_, reasons)) => {
                    reasons.push_str("; ");
                    reasons.push_str(why);
                }
                None => dropped.push((item, why.clone())),
            }
        }
        let has = |f: Fault| faults.contains(&f);
        let mut next = DraftAnswer::default();
        for (i, e) in cur.enums.iter().enumerate() {
            if has(Fault::Enum(i)) {
                continue;
            }
            let values: Vec<String> = e
                .values
                .iter()
                .enumerate()
                .filter(|(j, _)| !has(Fault::Value(i, *j)))
                .map(|(_, v)| v.clone())
                .collect();
            if !values.is_empty() {
                next.enums.push(DraftEnum {
                    name: e.name.clone(),
                    values,
                });
            }
        }
        for (i, v) in cur.variables.iter().enumerate() {
            if has(Fault::Variable(i)) {
                continue;
            }
            let mut v = v.clone();
            if has(Fault::Bound(i, false)) {
                v.min = None;
            }
            if has(Fault::Bound(i, true)) {
                v.max = None;
            }
            if has(Fault::Role(i)) {
                v.role = None;
            }
            next.variables.push(v);
        }
        next.domain = cur
            .domain
            .iter()
            .enumerate()
            .filter(|(i, _)| !has(Fault::Domain(*i)))
            .map(|(_, d)| d.clone())
            .collect();
        cur = next;
    }
    None
}

/// A domain formula a model wrote, read as untrusted text (`logic::parse_untrusted`:
/// bounded size and depth, nothing but one Boolean term over the draft's schema; a
/// declaration or a second term is an error like any other).
fn untrusted_formula(spec: &Spec, what: &str, text: &str) -> Result<Term, logic::Diagnostics> {
    let wrapped = format!("(assert\n{text}\n)");
    let u = logic::parse_untrusted(what, &wrapped, &spec.context, logic::Limits::default())?;
    let one = u.constants.is_empty()
        && u.enums.is_empty()
        && u.definitions.is_empty()
        && u.assertions.len() == 1;
    if !one {
        let file = logic::SourceFile::new(what, wrapped);
        return Err(file.locate_all(&[logic::Diagnostic::error(
            logic::Span::new(0, 0),
            "a domain constraint is one Boolean term over the schema's variables (no declarations, no second term)",
        )]));
    }
    Ok(u.assertions.into_iter().next().expect("one").0)
}

/// The symbols the elaborator reports as undeclared.
fn undeclared_symbols(d: &Diagnostics) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for l in &d.0 {
        if let Some(rest) = l.message.split("undeclared symbol `").nth(1) {
            if let Some(s) = rest.split('`').next() {
                if !out.iter().any(|o| o == s) {
                    out.push(s.to_string());
                }
            }
        }
    }
    out
}

// ------------------------------------------------------------------ checks

/// The ids of the members behind `lits`.
fn ids_of(spec: &Spec, s: &Session, lits: &[Term]) -> Vec<String> {
    lits.iter()
        .filter_map(|l| s.lits.id_of(spec, l).map(str::to_string))
        .collect()
}

/// Runs the solver checks and the list checks on an assembled draft.
fn check(
    a: &DraftAnswer,
    asm: &Assembled,
    list: &RequirementList,
    config: &SolverConfig,
    queries: &mut usize,
) -> Result<Vec<Finding>, SolverError> {
    let spec = &asm.spec;
    let mut findings = Vec::new();
    let mut solver = Solver::start(config)?;
    let lits = reqs::audit::load_into(&mut solver, spec)?;
    let mut s = Session::new(&mut solver, lits);
    let all: Vec<Term> = s.lits.domain().to_vec();

    let empty = empty_ranges(&mut s, asm, &all, &mut findings)?;
    if let Some(m) = whole_domain(&mut s, spec, &all, &empty, &mut findings)? {
        let (fixed, models) = fixed_variables(&mut s, a, spec, &all, m, &mut findings)?;
        forced_equal(&mut s, spec, &all, &fixed, models, &mut findings)?;
    }
    *queries += s.queries;
    drop(s);

    findings.extend(duplicates(a));
    findings.extend(usage(a, spec, list));
    for (id, symbols) in &asm.undeclared {
        findings.push(Finding::MissingVariable {
            requirement: None,
            constraint: Some(id.clone()),
            symbols: symbols.clone(),
        });
    }
    Ok(findings)
}

/// Finds the numeric variables whose range is empty, with their conflicting constraints.
fn empty_ranges(
    s: &mut Session<'_>,
    asm: &Assembled,
    all: &[Term],
    findings: &mut Vec<Finding>,
) -> Result<BTreeMap<String, Vec<String>>, SolverError> {
    let spec = &asm.spec;
    let mut empty: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for v in &spec.variables {
        if !matches!(v.sort, Sort::Int | Sort::Real) {
            continue;
        }
        let own: Vec<Term> = spec
            .domain
            .iter()
            .zip(all)
            .filter(|(d, _)| {
                let fv = d.formula.free_vars();
                fv.len() == 1 && fv.iter().all(|(n, _)| *n == v.name)
            })
            .map(|(_, l)| l.clone())
            .collect();
        let mut extra = Vec::new();
        if let Some((lo, hi)) = asm.inverted.get(&*v.name) {
            let x = Term::Var(v.name.clone(), v.sort.clone());
            let c = |r: &BigRational| match v.sort {
                Sort::Int => Term::Int(r.to_integer()),
                _ => Term::Real(r.clone()),
            };
            extra.push(Term::app(Op::Ge, vec![x.clone(), c(lo)]));
            extra.push(Term::app(Op::Le, vec![x, c(hi)]));
        }
        if own.is_empty() && extra.is_empty() {
            continue;
        }
        match s.check(&own, &extra)? {
            Outcome::Unsat(core) => {
                let mut ids = if core.is_empty() {
                    vec![]
                } else {
                    let min = s.minimize(&[], core, &extra)?;
                    ids_of(spec, s, &min)
                };
                if let Some((lo, hi)) = asm.inverted.get(&*v.name) {
                    ids.insert(0, format!("{}.max = {}", v.name, number_text(hi)));
                    ids.insert(0, format!("{}.min = {}", v.name, number_text(lo)));
                }
                empty.insert(v.name.to_string(), ids.clone());
                findings.push(Finding::EmptyRange {
                    variable: v.name.to_string(),
                    constraints: ids,
                    left_out: asm.inverted.contains_key(&*v.name),
                });
            }
            Outcome::Sat(_) => {}
            Outcome::Unknown(r) => findings.push(Finding::Undecided {
                check: format!("range of {}", v.name),
                reason: r.clone().into(),
            }),
        }
    }
    Ok(empty)
}

/// A state the whole domain allows, or `None` with the conflict or the undecided check.
fn whole_domain(
    s: &mut Session<'_>,
    spec: &Spec,
    all: &[Term],
    empty: &BTreeMap<String, Vec<String>>,
    findings: &mut Vec<Finding>,
) -> Result<Option<logic::Model>, SolverError> {
    Ok(match s.check(all, &[])? {
        Outcome::Sat(m) => Some(m),
        Outcome::Unsat(core) => {
            let min = s.minimize(&[], core, &[])?;
            let ids = ids_of(spec, s, &min);
            // Already reported when the conflict is one variable's empty range.
            let explained = empty.values().any(|e| ids.iter().all(|i| e.contains(i)));
            if !explained {
                findings.push(Finding::UnsatisfiableDomain { constraints: ids });
            }
            None
        }
        Outcome::Unknown(r) => {
            findings.push(Finding::Undecided {
                check: "satisfiability of the domain".into(),
                reason: r.clone().into(),
            });
            None
        }
    })
}

/// Finds the variables the domain fixes to one value that the document does not state.
fn fixed_variables(
    s: &mut Session<'_>,
    a: &DraftAnswer,
    spec: &Spec,
    all: &[Term],
    m: logic::Model,
    findings: &mut Vec<Finding>,
) -> Result<(BTreeSet<String>, Vec<logic::Model>), SolverError> {
    let mut models = vec![m.clone()];
    let mut fixed: BTreeSet<String> = BTreeSet::new();
    for v in &spec.variables {
        let Some(val) = m.get(&v.name) else { continue };
        let x = Term::Var(v.name.clone(), v.sort.clone());
        let other = Term::app(Op::Distinct, vec![x, val.to_term()]);
        match s.check(all, &[other])? {
            Outcome::Unsat(_) => {
                fixed.insert(v.name.to_string());
                let stated = a.variables.iter().any(|d| d.name == *v.name && d.fixed);
                if !stated {
                    findings.push(Finding::SinglePoint {
                        variable: v.name.to_string(),
                        value: val.to_string(),
                    });
                }
            }
            Outcome::Sat(m2) => models.push(m2),
            Outcome::Unknown(r) => findings.push(Finding::Undecided {
                check: format!("whether the domain fixes {}", v.name),
                reason: r.clone().into(),
            }),
        }
    }
    Ok((fixed, models))
}

/// Finds the pairs of unfixed variables of one sort that the domain forces equal.
fn forced_equal(
    s: &mut Session<'_>,
    spec: &Spec,
    all: &[Term],
    fixed: &BTreeSet<String>,
    mut models: Vec<logic::Model>,
    findings: &mut Vec<Finding>,
) -> Result<(), SolverError> {
    // Only pairs that agree in every model found so far need a query.
    let vars: Vec<_> = spec
        .variables
        .iter()
        .filter(|v| !fixed.contains(&*v.name))
        .collect();
    for (i, x) in vars.iter().enumerate() {
        for y in &vars[i + 1..] {
            if x.sort != y.sort {
                continue;
            }
            let refuted = models
                .iter()
                .any(|m| match (m.get(&x.name), m.get(&y.name)) {
                    (Some(a), Some(b)) => a != b,
                    _ => false,
                });
            if refuted {
                continue;
            }
            let differ = Term::app(
                Op::Distinct,
                vec![
                    Term::Var(x.name.clone(), x.sort.clone()),
                    Term::Var(y.name.clone(), y.sort.clone()),
                ],
            );
            match s.check(all, &[differ])? {
                Outcome::Unsat(_) => findings.push(Finding::ForcedEqual {
                    a: x.name.to_string(),
                    b: y.name.to_string(),
                }),
                Outcome::Sat(m2) => models.push(m2),
                Outcome::Unknown(r) => findings.push(Finding::Undecided {
                    check: format!("whether {} and {} can differ", x.name, y.name),
                    reason: r.clone().into(),
                }),
            }
        }
    }
    Ok(())
}

/// Lower-case unit with `hr`/`hour` as `h` and `sec` as `s`, spaces dropped.
fn unit_key(u: Option<&str>) -> String {
    let u = u.unwrap_or("").to_lowercase().replace(' ', "");
    let mut out = String::new();
    let mut word = String::new();
    let flush = |w: &mut String, out: &mut String| {
        let norm = match w.as_str() {
            "hr" | "hrs" | "hour" | "hours" => "h",
            "sec" | "secs" | "second" | "seconds" => "s",
            "minute" | "minutes" | "mins" => "min",
            other => other,
        };
        out.push_str(norm);
        w.clear();
    };
    for c in u.chars() {
        if c.is_alphabetic() {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// Content words of a variable's name and description (stop words and words under 3
/// letters dropped, a plural `s` cut).
fn content_words(v: &DraftVariable) -> BTreeSet<String> {
    use crate::roundtrip::{name_words, words, STOPWORDS};
    name_words(&v.name)
        .into_iter()
        .chain(v.description.iter().flat_map(|d| words(d)))
        .filter(|w| w.chars().count() >= 3 && w.chars().all(char::is_alphabetic))
        .filter(|w| !STOPWORDS.contains(&w.as_str()))
        .map(|w| match w.strip_suffix('s') {
            Some(stem) if stem.len() >= 4 && !stem.ends_with('s') => stem.to_string(),
            _ => w,
        })
        .collect()
}

/// Pairs of variables with one sort and one unit whose names and descriptions share
/// most of their content words.
fn duplicates(a: &DraftAnswer) -> Vec<Finding> {
    let words: Vec<BTreeSet<String>> = a.variables.iter().map(content_words).collect();
    let mut out = Vec::new();
    for (i, x) in a.variables.iter().enumerate() {
        for (j, y) in a.variables.iter().enumerate().skip(i + 1) {
            if x.sort != y.sort || unit_key(x.unit.as_deref()) != unit_key(y.unit.as_deref()) {
                continue;
            }
            let shared: Vec<String> = words[i].intersection(&words[j]).cloned().collect();
            let union = words[i].union(&words[j]).count();
            if union == 0 {
                continue;
            }
            let similarity = shared.len() as f64 / union as f64;
            if similarity >= DUPLICATE_THRESHOLD {
                out.push(Finding::DuplicateQuantity {
                    a: x.name.clone(),
                    b: y.name.clone(),
                    unit: x.unit.clone().filter(|u| !u.trim().is_empty()),
                    similarity: (similarity * 1000.0).round() / 1000.0,
                    shared,
                });
            }
        }
    }
    out
}

/// Variables that serve no requirement (or none that talks about them), ids that are
/// not in the list, and requirements no variable serves.
fn usage(a: &DraftAnswer, spec: &Spec, list: &RequirementList) -> Vec<Finding> {
    let mut out = Vec::new();
    let known: HashMap<&str, &str> = list
        .requirements
        .iter()
        .map(|r| (r.id.as_str(), r.text.as_str()))
        .collect();
    for v in &a.variables {
        let unknown: Vec<String> = v
            .serves
            .iter()
            .filter(|id| !known.contains_key(id.as_str()))
            .cloned()
            .collect();
        let served: Vec<&str> = v
            .serves
            .iter()
            .filter(|id| known.contains_key(id.as_str()))
            .map(String::as_str)
            .collect();
        if !unknown.is_empty() {
            out.push(Finding::UnknownRequirement {
                variable: v.name.clone(),
                ids: unknown,
            });
        }
        let reason = if served.is_empty() {
            Some("it serves no requirement of the list".to_string())
        } else {
            let Some(var) = spec.variable(&v.name) else {
                continue;
            };
            let probe = mention_probe(spec, var);
            let talked = served.iter().any(|id| {
                crate::formalize::unmentioned_variables(spec, &probe, known[id]).is_empty()
            });
            (!talked).then(|| {
                format!(
                    "none of the requirements it claims to serve ({}) talks about it (by name, description, unit or enumeration value)",
                    served.join(", ")
                )
            })
        };
        if let Some(reason) = reason {
            out.push(Finding::UnusedVariable {
                variable: v.name.clone(),
                reason,
            });
        }
    }
    for r in &list.requirements {
        if !a.variables.iter().any(|v| v.serves.contains(&r.id)) {
            out.push(Finding::MissingVariable {
                requirement: Some(r.id.clone()),
                constraint: None,
                symbols: vec![],
            });
        }
    }
    out
}

/// A term over the variable alone for the lexical mention test: the variable itself, or
/// for an enumeration variable a comparison with each of its values (so that a text
/// naming a value talks about it).
fn mention_probe(spec: &Spec, v: &reqs::spec::Variable) -> Term {
    let x = Term::Var(v.name.clone(), v.sort.clone());
    if let Sort::Enum(e) = &v.sort {
        if let Some((_, values)) = spec.enums.iter().find(|(n, _)| n == e) {
            let eqs: Vec<Term> = values
                .iter()
                .map(|c| {
                    Term::app(
                        Op::Eq,
                        vec![
                            x.clone(),
                            logic::Value::Enum(e.clone(), c.clone()).to_term(),
                        ],
                    )
                })
                .collect();
            return match eqs.len() {
                1 => eqs.into_iter().next().expect("one"),
                _ => Term::app(Op::Or, eqs),
            };
        }
    }
    match v.sort {
        Sort::Bool => x,
        Sort::Int => Term::app(Op::Ge, vec![x, Term::Int(0.into())]),
        _ => Term::app(
            Op::Ge,
            vec![x, Term::Real(BigRational::from_integer(0.into()))],
        ),
    }
}

// ------------------------------------------------------------------ the loop

/// Asks for an answer until one assembles (up to `retries` more turns), returning the
/// answer, its assembly and nothing dropped. When the budget is spent and the latest
/// answer that was a JSON draft still has problems in some of its parts, those parts
/// are dropped ([`salvage`]) and listed; otherwise the last reason for refusing.
#[allow(clippy::too_many_arguments)]
fn ask(
    client: &Client,
    stage: &str,
    mut req: Request,
    retries: usize,
    refused: &mut Vec<String>,
    attempts: &mut usize,
    combine: &dyn Fn(DraftAnswer) -> DraftAnswer,
    name: &str,
) -> Result<Result<(DraftAnswer, Assembled, Dropped), String>, SchemaError> {
    let mut last = String::new();
    let mut latest: Option<DraftAnswer> = None;
    let mut shown_before: Option<String> = None;
    for _ in 0..=retries {
        *attempts += 1;
        let (shown, problem) = match client.complete(stage, &req) {
            Ok(c) => {
                let text = c.json_text();
                match serde_json::from_str::<DraftAnswer>(&text) {
                    Ok(answer) => {
                        let answer = combine(answer);
                        match assemble(&answer, name) {
                            Ok(asm) => return Ok(Ok((answer, asm, Vec::new()))),
                            Err(p) => {
                                latest = Some(answer);
                                let msgs: Vec<String> = p.into_iter().map(|(_, m)| m).collect();
                                (text, msgs.join("; "))
                            }
                        }
                    }
                    Err(e) => (text, format!("the answer is not a schema draft: {e}")),
                }
            }
            Err(e) if e.is_answer_problem() => {
                (String::new(), e.feedback().unwrap_or_else(|| e.to_string()))
            }
            Err(e) => return Err(e.into()),
        };
        refused.push(problem.clone());
        last = problem.clone();
        // A model that gives the same refused answer again will give it a third time:
        // stop asking (what can be saved of it is, below).
        if !shown.is_empty() && shown_before.as_deref() == Some(shown.as_str()) {
            break;
        }
        shown_before = Some(shown.clone());
        // The whole answer (the client bounds its size): a JSON draft cut in the middle
        // is copied back cut by a small model.
        req = req.assistant(shown).user(format!(
            "That answer is not a valid schema draft: {problem}\nAnswer again with the JSON object alone."
        ));
    }
    if let Some(answer) = latest {
        if let Some(saved) = salvage(&answer, name) {
            return Ok(Ok(saved));
        }
    }
    Ok(Err(last))
}

/// Requirements as prompt lines: `- id: text`.
fn listing(items: &[Item]) -> String {
    let mut o = String::new();
    for r in items {
        let _ = writeln!(o, "- {}: {}", r.id, r.text.replace('\n', " "));
    }
    o
}

/// The draft with a fresh id `D<n>` for every domain constraint whose id is a
/// requirement id of the list (a small model names constraints after the requirement
/// they come from, and the written spec would then hold one id twice), an id already
/// used by an earlier constraint, or an empty one. A requirement id that is replaced is
/// kept at the front of the constraint's text.
fn domain_ids(mut a: DraftAnswer, list: &RequirementList) -> DraftAnswer {
    let reqs: BTreeSet<&str> = list.requirements.iter().map(|r| r.id.as_str()).collect();
    let mut used: BTreeSet<String> = BTreeSet::new();
    let clashes = |id: &str, used: &BTreeSet<String>| {
        id.trim().is_empty() || reqs.contains(id) || used.contains(id)
    };
    // Ids that stay as they are are taken first, so a fresh id never collides.
    let keep: Vec<bool> = {
        let mut seen = BTreeSet::new();
        a.domain
            .iter()
            .map(|d| {
                let ok = !clashes(&d.id, &seen);
                seen.insert(d.id.clone());
                ok
            })
            .collect()
    };
    for (d, k) in a.domain.iter().zip(&keep) {
        if *k {
            used.insert(d.id.clone());
        }
    }
    let mut n = 1;
    for (d, k) in a.domain.iter_mut().zip(&keep) {
        if *k {
            continue;
        }
        while used.contains(&format!("D{n}")) || reqs.contains(format!("D{n}").as_str()) {
            n += 1;
        }
        let fresh = format!("D{n}");
        if reqs.contains(d.id.as_str()) {
            let from = format!("from {}", d.id);
            d.text = Some(match d.text.take().filter(|t| !t.trim().is_empty()) {
                Some(t) => format!("{from}: {t}"),
                None => from,
            });
        }
        used.insert(fresh.clone());
        d.id = fresh;
    }
    a
}

/// `base` extended with the answer for a later chunk of the list: new enumerations,
/// variables and domain constraints are added; a variable repeated with its sort
/// unchanged serves the new ids too (and gets the unit, description, bounds and role it
/// lacked); values of a repeated enumeration are added to it; a domain constraint
/// already there is not added twice, and one whose id is taken gets a fresh id. A
/// variable repeated with another sort is added as it is, and the assembly refuses it
/// as a name given twice.
fn extend_draft(base: &DraftAnswer, add: DraftAnswer) -> DraftAnswer {
    let mut m = base.clone();
    for e in add.enums {
        match m.enums.iter_mut().find(|x| x.name == e.name) {
            Some(x) => {
                for v in e.values {
                    if !x.values.contains(&v) {
                        x.values.push(v);
                    }
                }
            }
            None => m.enums.push(e),
        }
    }
    for v in add.variables {
        match m
            .variables
            .iter_mut()
            .find(|x| x.name == v.name && x.sort == v.sort)
        {
            Some(x) => {
                for id in v.serves {
                    if !x.serves.contains(&id) {
                        x.serves.push(id);
                    }
                }
                x.unit = x.unit.take().or(v.unit);
                x.description = x.description.take().or(v.description);
                x.min = x.min.take().or(v.min);
                x.max = x.max.take().or(v.max);
                x.role = x.role.take().or(v.role);
            }
            None => m.variables.push(v),
        }
    }
    for mut d in add.domain {
        if m.domain.iter().any(|x| x.formula == d.formula) {
            continue;
        }
        if m.domain.iter().any(|x| x.id == d.id) {
            let mut n = m.domain.len() + 1;
            while m.domain.iter().any(|x| x.id == format!("D{n}")) {
                n += 1;
            }
            d.id = format!("D{n}");
        }
        m.domain.push(d);
    }
    m
}

/// A merged draft after a repair round: the draft, its assembly, the variables added,
/// and what salvage dropped.
type Proposal = (DraftAnswer, Assembled, Vec<String>, Dropped);

/// Asks the model for the variables `gaps` describes; the proposal is merged into
/// `answer` and must assemble. `Ok(None)` (with a note) when no usable proposal came
/// within the retry budget.
#[allow(clippy::too_many_arguments)]
fn propose(
    client: &Client,
    prompts: &Prompts,
    gaps: &str,
    answer: &DraftAnswer,
    list: &RequirementList,
    options: &DraftOptions,
    refused: &mut Vec<String>,
    round: usize,
    notes: &mut Vec<String>,
) -> Result<Option<Proposal>, SchemaError> {
    let schema_json = serde_json::to_string_pretty(answer).unwrap_or_default();
    let user = prompts
        .missing
        .render(&[("gaps", gaps), ("schema", &schema_json)])?;
    let req = Request::new()
        .user(user)
        .temperature(0.0)
        .max_tokens(options.max_tokens)
        .schema("schema_missing", answer_schema());
    let base = answer.clone();
    let combine = move |add: DraftAnswer| {
        let mut merged = base.clone();
        merged.enums.extend(add.enums);
        merged.variables.extend(add.variables);
        merged.domain.extend(add.domain);
        domain_ids(merged, list)
    };
    let mut attempts = 0;
    match ask(
        client,
        "schema-missing",
        req,
        options.retries,
        refused,
        &mut attempts,
        &combine,
        &list.name,
    )? {
        Ok((merged, asm, lost)) => {
            let before: BTreeSet<&str> = answer.variables.iter().map(|v| v.name.as_str()).collect();
            let added = merged
                .variables
                .iter()
                .filter(|v| !before.contains(v.name.as_str()))
                .map(|v| v.name.clone())
                .collect();
            Ok(Some((merged, asm, added, lost)))
        }
        Err(reason) => {
            notes.push(format!(
                "repair round {round}: no usable proposal of missing variables ({reason}); the draft before it is kept"
            ));
            Ok(None)
        }
    }
}

/// What formalizing against the draft showed (`DraftOptions::probe`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ProbeReport {
    /// Requirements formalized against the first checked draft.
    pub formalized: usize,
    /// Requirements that did not formalize.
    pub failed: Vec<ProbeFailure>,
    /// Of the requirements that failed for a missing variable, those that formalize
    /// against the schema after the repair round (`None`: no round ran).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after_repair: Option<Vec<String>>,
    /// Solver queries of the formalization runs.
    pub queries: usize,
}

/// A requirement the probe could not formalize.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProbeFailure {
    /// The requirement.
    pub id: String,
    /// Names its answers used that the schema does not declare (empty: it failed for
    /// another reason, which the formalization report of `vera formalize` shows).
    pub undeclared: Vec<String>,
}

/// The names an error of the formalization loop says are not in the schema.
pub(crate) fn names_not_in_schema(error: &str) -> Vec<String> {
    const MARK: &str = "` is not in the schema";
    let mut out = Vec::new();
    let mut rest = error;
    while let Some(i) = rest.find(MARK) {
        if let Some(open) = rest[..i].rfind('`') {
            out.push(rest[open + 1..i].to_string());
        }
        rest = &rest[i + MARK.len()..];
    }
    out
}

fn left_out_of(asm: &Assembled) -> HashMap<String, String> {
    asm.inverted
        .iter()
        .map(|(name, (lo, hi))| {
            (
                name.clone(),
                format!(
                    "EMPTY RANGE: the draft gave min = {} and max = {}; the bounds are left out",
                    number_text(lo),
                    number_text(hi)
                ),
            )
        })
        .collect()
}

/// Records what salvage dropped from an answer as findings, with a note.
fn keep_dropped(
    lost: Dropped,
    into: &mut Vec<Finding>,
    notes: &mut Vec<String>,
    what: &str,
    answers: usize,
) {
    if lost.is_empty() {
        return;
    }
    notes.push(format!(
        "after {answers} answer{} {what} still had problems in {} part{}; {} left out (findings `dropped`)",
        if answers == 1 { "" } else { "s" },
        lost.len(),
        if lost.len() == 1 { "" } else { "s" },
        if lost.len() == 1 { "it is" } else { "they are" },
    ));
    into.extend(
        lost.into_iter()
            .map(|(item, reason)| Finding::Dropped { item, reason }),
    );
}

/// Drafts a schema for `list` with the model and checks it (see the module docs).
pub fn draft_schema(
    list: &RequirementList,
    client: &Client,
    config: &SolverConfig,
    options: &DraftOptions,
) -> Result<SchemaDraft, SchemaError> {
    let prompts = Prompts::builtin();
    let chunks: Vec<&[Item]> = match options.chunk {
        0 => vec![&list.requirements[..]],
        n => list.requirements.chunks(n).collect(),
    };
    let first = chunks.first().copied().unwrap_or(&[]);
    let mut refused = Vec::new();
    let mut attempts = 0;
    let (answer, asm, first_dropped) = match ask_draft(
        list,
        client,
        options,
        &prompts,
        first,
        &mut refused,
        &mut attempts,
    )? {
        Ok(x) => x,
        Err(reason) => {
            return Err(SchemaError::NoDraft {
                answers: attempts,
                reason,
            })
        }
    };
    let mut d = Drafting {
        list,
        client,
        config,
        options,
        prompts,
        answer,
        asm,
        refused,
        attempts,
        notes: list.notes.clone(),
        dropped: Vec::new(),
        findings: Vec::new(),
        queries: 0,
        rounds: 0,
        proposed: Vec::new(),
    };
    keep_dropped(
        first_dropped,
        &mut d.dropped,
        &mut d.notes,
        "the draft",
        d.attempts,
    );
    for chunk in chunks.iter().skip(1) {
        d.extend(chunk)?;
    }
    let first_attempts = d.attempts;
    d.findings = check(&d.answer, &d.asm, list, config, &mut d.queries)?;
    d.repair_missing()?;
    let probe = if options.probe { d.probe()? } else { None };
    d.note_undeclared_domain();
    Ok(d.finish(probe, first_attempts, chunks.len()))
}

/// Asks for the first draft over the first chunk: the schema later stages build on.
fn ask_draft(
    list: &RequirementList,
    client: &Client,
    options: &DraftOptions,
    prompts: &Prompts,
    first: &[Item],
    refused: &mut Vec<String>,
    attempts: &mut usize,
) -> Result<Result<(DraftAnswer, Assembled, Dropped), String>, SchemaError> {
    let user = prompts.draft.render(&[("requirements", &listing(first))])?;
    let req = Request::new()
        .user(user)
        .temperature(0.0)
        .max_tokens(options.max_tokens)
        .schema("schema_draft", answer_schema());
    ask(
        client,
        "schema-draft",
        req,
        options.retries,
        refused,
        attempts,
        &|a| domain_ids(a, list),
        &list.name,
    )
}

/// One drafting run after the first answer: the schema so far and what the later
/// stages (extending, checking, repairing, probing) have recorded about it.
struct Drafting<'a> {
    list: &'a RequirementList,
    client: &'a Client,
    config: &'a SolverConfig,
    options: &'a DraftOptions,
    prompts: Prompts,
    answer: DraftAnswer,
    asm: Assembled,
    refused: Vec<String>,
    attempts: usize,
    notes: Vec<String>,
    dropped: Vec<Finding>,
    findings: Vec<Finding>,
    queries: usize,
    rounds: usize,
    proposed: Vec<String>,
}

impl Drafting<'_> {
    /// Formalizes `ids` (all requirements when `None`) against the draft; returns the ids
    /// formalized, the failures, and the solver queries.
    fn run_probe(
        &self,
        ids: Option<Vec<String>>,
    ) -> Result<(Vec<String>, Vec<ProbeFailure>, usize), SchemaError> {
        let (answer, asm, list, client, config, options) = (
            &self.answer,
            &self.asm,
            self.list,
            self.client,
            self.config,
            self.options,
        );
        let tmp = SchemaDraft {
            report: DraftReport {
                requirements: list.requirements.len(),
                draft: answer.clone(),
                ..Default::default()
            },
            spec: asm.spec.clone(),
            list: list.clone(),
            left_out: left_out_of(asm),
        };
        let spec = reqs::parse_spec(SourceFile::new(
            format!("{} (draft)", list.file),
            tmp.spec_toml(),
        ))
        .map_err(SchemaError::Spec)?;
        let fo = crate::formalize::FormalizeOptions {
            max_retries: options.probe_retries,
            only: ids,
            decompose: false,
            // A probe looks for variables the schema lacks: a form can only name the
            // schema's own variables, so the probe asks for terms, whose undeclared names
            // are what it collects.
            forms: false,
            ..Default::default()
        };
        let report = crate::formalize::formalize(&spec, client, config, &fo)?;
        let mut ok = Vec::new();
        let mut failed = Vec::new();
        for f in &report.requirements {
            if f.formula.is_some() {
                ok.push(f.id.clone());
                continue;
            }
            let mut undeclared: Vec<String> = Vec::new();
            for a in &f.attempts {
                for n in a
                    .error
                    .as_deref()
                    .map(names_not_in_schema)
                    .unwrap_or_default()
                {
                    if !undeclared.contains(&n) {
                        undeclared.push(n);
                    }
                }
            }
            failed.push(ProbeFailure {
                id: f.id.clone(),
                undeclared,
            });
        }
        Ok((ok, failed, report.queries))
    }

    /// Extends the schema with a later chunk, so a model with a small context can draft it.
    fn extend(&mut self, chunk: &[Item]) -> Result<(), SchemaError> {
        let span = match (chunk.first(), chunk.last()) {
            (Some(a), Some(b)) => format!("requirements {} to {}", a.id, b.id),
            _ => return Ok(()),
        };
        // Compact, and without `serves`: the prompt of a small model is short.
        let mut shown = serde_json::to_value(&self.answer).unwrap_or_default();
        if let Some(vs) = shown.get_mut("variables").and_then(Value::as_array_mut) {
            for v in vs.iter_mut().filter_map(Value::as_object_mut) {
                v.remove("serves");
            }
        }
        let schema_json = shown.to_string();
        let user = self
            .prompts
            .extend
            .render(&[("schema", &schema_json), ("requirements", &listing(chunk))])?;
        let req = Request::new()
            .user(user)
            .temperature(0.0)
            .max_tokens(self.options.max_tokens)
            .schema("schema_extend", answer_schema());
        let base = self.answer.clone();
        let list = self.list;
        let combine = move |add: DraftAnswer| domain_ids(extend_draft(&base, add), list);
        let before = self.attempts;
        match ask(
            self.client,
            "schema-extend",
            req,
            self.options.retries,
            &mut self.refused,
            &mut self.attempts,
            &combine,
            &list.name,
        )? {
            Ok((merged, asm, lost)) => {
                let what = format!("the extension for {span}");
                let answers = self.attempts - before;
                keep_dropped(lost, &mut self.dropped, &mut self.notes, &what, answers);
                self.answer = merged;
                self.asm = asm;
            }
            Err(reason) => self.notes.push(format!(
                "no usable extension of the schema for {span} ({reason}); the draft before it is kept"
            )),
        }
        Ok(())
    }

    /// Runs the bounded repair rounds for the variables the checks found missing.
    fn repair_missing(&mut self) -> Result<(), SchemaError> {
        while self.rounds < self.options.repairs {
            let gaps = gaps_text(&self.findings, self.list, &self.answer);
            if gaps.is_empty() {
                break;
            }
            match self.propose_round(&gaps)? {
                Some(proposal) => self.accept(proposal)?,
                None => break,
            }
        }
        Ok(())
    }

    /// Asks for the variables `gaps` describes, as one more repair round.
    fn propose_round(&mut self, gaps: &str) -> Result<Option<Proposal>, SchemaError> {
        self.rounds += 1;
        propose(
            self.client,
            &self.prompts,
            gaps,
            &self.answer,
            self.list,
            self.options,
            &mut self.refused,
            self.rounds,
            &mut self.notes,
        )
    }

    /// Takes a repair proposal as the schema and checks it again.
    fn accept(&mut self, (merged, asm, added, lost): Proposal) -> Result<(), SchemaError> {
        let what = format!("the proposal of repair round {}", self.rounds);
        let answers = self.options.retries + 1;
        keep_dropped(lost, &mut self.dropped, &mut self.notes, &what, answers);
        self.proposed.extend(added);
        self.answer = merged;
        self.asm = asm;
        self.findings = check(
            &self.answer,
            &self.asm,
            self.list,
            self.config,
            &mut self.queries,
        )?;
        Ok(())
    }

    /// Formalizes the requirements against the draft to find the names it lacks.
    fn probe(&mut self) -> Result<Option<ProbeReport>, SchemaError> {
        let blocked = self.findings.iter().any(|f| {
            matches!(
                f,
                Finding::UnsatisfiableDomain { .. }
                    | Finding::EmptyRange { .. }
                    | Finding::Undecided { .. }
            )
        });
        if blocked {
            self.notes.push("formalization probe skipped: the domain allows no state, or the solver could not decide it; fix the draft first".into());
            return Ok(None);
        }
        let (ok, failed, q) = self.run_probe(None)?;
        let mut p = ProbeReport {
            formalized: ok.len(),
            failed,
            after_repair: None,
            queries: q,
        };
        let missing: Vec<(String, Vec<String>)> = p
            .failed
            .iter()
            .filter(|f| !f.undeclared.is_empty())
            .map(|f| (f.id.clone(), f.undeclared.clone()))
            .collect();
        let mut still = missing.clone();
        if !missing.is_empty() && self.options.repairs > 0 {
            if let Some(after) = self.repair_probed(&missing, &mut p)? {
                still = after;
            }
        }
        for (id, symbols) in still {
            self.findings.push(Finding::MissingVariable {
                requirement: Some(id),
                constraint: None,
                symbols,
            });
        }
        Ok(Some(p))
    }

    /// One repair round for the names the probe missed, then the probe again on those.
    #[allow(clippy::type_complexity)]
    fn repair_probed(
        &mut self,
        missing: &[(String, Vec<String>)],
        p: &mut ProbeReport,
    ) -> Result<Option<Vec<(String, Vec<String>)>>, SchemaError> {
        let mut gaps = String::new();
        for (id, undeclared) in missing {
            if let Some(r) = self.list.requirements.iter().find(|r| &r.id == id) {
                let _ = writeln!(
                    gaps,
                    "- requirement {}: \"{}\" (formalizing it needed {}, which the schema does not declare)",
                    id,
                    r.text.replace('\n', " "),
                    undeclared.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
                );
            }
        }
        let Some(proposal) = self.propose_round(&gaps)? else {
            return Ok(None);
        };
        self.accept(proposal)?;
        let ids: Vec<String> = missing.iter().map(|(id, _)| id.clone()).collect();
        let (ok2, failed2, q2) = self.run_probe(Some(ids))?;
        p.queries += q2;
        p.after_repair = Some(ok2);
        Ok(Some(
            failed2
                .into_iter()
                .filter(|f| !f.undeclared.is_empty())
                .map(|f| (f.id, f.undeclared))
                .collect(),
        ))
    }

    /// Notes the domain constraints left out for naming undeclared symbols.
    fn note_undeclared_domain(&mut self) {
        for (id, symbols) in &self.asm.undeclared {
            if let Some(d) = self.answer.domain.iter().find(|d| &d.id == id) {
                self.notes.push(format!(
                    "domain constraint {id} `{}` is left out of the schema: it names {}, which the schema does not declare",
                    d.formula,
                    symbols.join(", ")
                ));
            }
        }
    }

    /// The report and the spec the run ends with; the findings of salvage come first.
    fn finish(
        mut self,
        probe: Option<ProbeReport>,
        first_attempts: usize,
        chunks: usize,
    ) -> SchemaDraft {
        self.findings.splice(0..0, self.dropped);
        let mut used_prompts = vec![self.prompts.draft.id(), self.prompts.missing.id()];
        if chunks > 1 {
            used_prompts.push(self.prompts.extend.id());
        }
        if probe.is_some() {
            used_prompts.push(crate::formalize::Prompts::builtin().one.id());
        }
        SchemaDraft {
            report: DraftReport {
                requirements: self.list.requirements.len(),
                draft: self.answer,
                findings: self.findings,
                attempts: first_attempts,
                chunks,
                refused: self.refused,
                repair_rounds: self.rounds,
                proposed: self.proposed,
                queries: self.queries,
                prompts: used_prompts,
                notes: self.notes,
                probe,
            },
            left_out: left_out_of(&self.asm),
            spec: self.asm.spec,
            list: self.list.clone(),
        }
    }
}

/// The missing variables, as lines for the repair prompt; empty when none is missing.
fn gaps_text(findings: &[Finding], list: &RequirementList, a: &DraftAnswer) -> String {
    let mut o = String::new();
    for f in findings {
        if let Finding::MissingVariable {
            requirement,
            constraint,
            symbols,
        } = f
        {
            if let Some(id) = requirement {
                if let Some(r) = list.requirements.iter().find(|r| &r.id == id) {
                    let _ = writeln!(
                        o,
                        "- requirement {id}: \"{}\" (no variable of the schema serves it)",
                        r.text.replace('\n', " ")
                    );
                }
            }
            if let Some(id) = constraint {
                if let Some(d) = a.domain.iter().find(|d| &d.id == id) {
                    let _ = writeln!(
                        o,
                        "- domain constraint {id} `{}` names {}, which the schema does not declare",
                        d.formula,
                        symbols.join(", ")
                    );
                }
            }
        }
    }
    o
}

impl SchemaDraft {
    /// True when the solver could not decide some check.
    pub fn undecided(&self) -> bool {
        self.report
            .findings
            .iter()
            .any(|f| matches!(f, Finding::Undecided { .. }))
    }

    /// The schema as a vera spec (docs/spec-format.md): enumerations, variables with
    /// the requirement ids each serves as a comment, domain constraints, and every
    /// requirement of the list without a formula (each with the variables that serve
    /// it), ready for `vera formalize`.
    pub fn spec_toml(&self) -> String {
        let r = &self.report;
        let mut header = vec![
            format!(
                "Schema drafted by vera from {} ({} requirements).",
                self.list.file, r.requirements
            ),
            "Drafted by a language model and checked by the solver: review it before formalizing."
                .into(),
        ];
        if r.findings.is_empty() {
            header.push("The checks found nothing.".into());
        } else {
            header.push(format!(
                "{} finding{} (see the report of `vera schema draft`):",
                r.findings.len(),
                if r.findings.len() == 1 { "" } else { "s" }
            ));
            for f in &r.findings {
                header.push(format!("  {}", finding_line(f)));
            }
        }
        for n in &r.notes {
            header.push(format!("note: {n}"));
        }
        let mut var_notes: HashMap<String, Vec<String>> = HashMap::new();
        for v in &r.draft.variables {
            let mut notes = vec![format!(
                "serves: {}",
                if v.serves.is_empty() {
                    "(nothing)".to_string()
                } else {
                    v.serves.join(", ")
                }
            )];
            if v.fixed {
                notes.push("the document states a single value".into());
            }
            if r.proposed.contains(&v.name) {
                notes.push("proposed in a repair round for a missing variable".into());
            }
            if let Some(l) = self.left_out.get(&v.name) {
                notes.push(l.clone());
            }
            var_notes.insert(v.name.clone(), notes);
        }
        let reqs: Vec<OutRequirement> = self
            .list
            .requirements
            .iter()
            .map(|q| {
                let vars: Vec<&str> = r
                    .draft
                    .variables
                    .iter()
                    .filter(|v| v.serves.contains(&q.id))
                    .map(|v| v.name.as_str())
                    .collect();
                OutRequirement {
                    id: q.id.clone(),
                    text: q.text.clone(),
                    formula: None,
                    origin: reqs::spec::Origin::Hand,
                    timed: None,
                    notes: {
                        let mut notes = vec![if vars.is_empty() {
                            "MISSING VARIABLE: no variable of the schema serves this requirement"
                                .into()
                        } else {
                            format!("variables: {}", vars.join(", "))
                        }];
                        for f in &r.findings {
                            if let Finding::MissingVariable {
                                requirement: Some(id),
                                symbols,
                                ..
                            } = f
                            {
                                if *id == q.id && !symbols.is_empty() {
                                    notes.push(format!(
                                        "MISSING VARIABLE: formalizing it needed {}, which the schema does not declare",
                                        symbols.join(", ")
                                    ));
                                }
                            }
                        }
                        notes
                    },
                }
            })
            .collect();
        render_spec_annotated(&self.spec, &header, &var_notes, &reqs)
    }
}

/// One line for a finding (the spec's header comment; the binary renders its own).
pub fn finding_line(f: &Finding) -> String {
    match f {
        Finding::UnsatisfiableDomain { constraints } => format!(
            "unsatisfiable domain: {} allow no state together",
            constraints.join(", ")
        ),
        Finding::EmptyRange {
            variable,
            constraints,
            ..
        } => format!(
            "empty range: {variable} can take no value ({})",
            constraints.join(", ")
        ),
        Finding::SinglePoint { variable, value } => format!(
            "single point: the domain allows only {variable} = {value}, and the document states no single value"
        ),
        Finding::ForcedEqual { a, b } => {
            format!("forced equal: {a} = {b} in every state the domain allows")
        }
        Finding::DuplicateQuantity {
            a,
            b,
            unit,
            similarity,
            shared,
        } => format!(
            "duplicate quantity: {a} and {b} ({}) share {} (similarity {similarity:.2})",
            unit.as_deref().unwrap_or("no unit"),
            shared.join(", ")
        ),
        Finding::UnusedVariable { variable, reason } => {
            format!("unused variable: {variable}: {reason}")
        }
        Finding::UnknownRequirement { variable, ids } => format!(
            "unknown requirement: {variable} serves {}, not in the list",
            ids.join(", ")
        ),
        Finding::MissingVariable {
            requirement,
            constraint,
            symbols,
        } => match (requirement, constraint) {
            (Some(r), _) if !symbols.is_empty() => format!(
                "missing variable: formalizing requirement {r} needed {}, which the schema does not declare",
                symbols.join(", ")
            ),
            (Some(r), _) => format!("missing variable: no variable serves requirement {r}"),
            (None, Some(c)) => format!(
                "missing variable: domain constraint {c} names {}, not declared (left out)",
                symbols.join(", ")
            ),
            (None, None) => "missing variable".into(),
        },
        Finding::Dropped { item, reason } => {
            format!("dropped: {item} is left out of the draft: {reason}")
        }
        Finding::Undecided { check, reason } => {
            format!("undecided: {check} (solver: {reason})")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_are_read_exactly() {
        let r = |s: &str| rational(&Value::String(s.into())).unwrap();
        assert_eq!(r("10"), BigRational::from_integer(10.into()));
        assert_eq!(r("0.1"), BigRational::new(1.into(), 10.into()));
        assert_eq!(r("-2.5e1"), BigRational::from_integer((-25).into()));
        assert_eq!(r("1e-3"), BigRational::new(1.into(), 1000.into()));
        assert!(rational(&Value::String("ten".into())).is_err());
        assert!(rational(&Value::String("1e999".into())).is_err());
    }

    #[test]
    fn salvage_drops_each_broken_part_once_with_all_its_reasons() {
        let a: DraftAnswer = serde_json::from_value(serde_json::json!({
            "enums": [{"name": "Rate", "values": ["1", "2"]}, {"name": "Kvo", "values": ["1"]}],
            "variables": [
                {"name": "rate", "sort": "Real", "min": 1, "max": 10, "serves": ["R1"]},
                {"name": "level", "sort": "Rate", "serves": ["R1"]}
            ],
            "domain": [{"id": "D1", "formula": "rate min = 1"}]
        }))
        .unwrap();
        let (kept, asm, dropped) = salvage(&a, "t").unwrap();
        let items: Vec<&str> = dropped.iter().map(|(i, _)| i.as_str()).collect();
        // The enumerations lose every value and go; then `level` has no sort.
        assert_eq!(
            items,
            [
                "value 1 of enumeration Rate",
                "value 2 of enumeration Rate",
                "value 1 of enumeration Kvo",
                "variable level",
                "domain constraint D1"
            ]
        );
        assert_eq!(
            dropped[2].1,
            "value `1` of enumeration Kvo is not a plain symbol; `1` is used twice (enumeration values are unique across all enumerations and differ from variable names)"
        );
        assert!(kept.enums.is_empty());
        assert_eq!(kept.variables.len(), 1);
        assert_eq!(asm.spec.variables.len(), 1);
        // A problem of the whole answer is not salvaged.
        assert!(salvage(&DraftAnswer::default(), "t").is_none());
    }

    #[test]
    fn units_compare_after_normalizing() {
        assert_eq!(unit_key(Some("ml/hr")), unit_key(Some("mL/h")));
        assert_eq!(unit_key(Some("mL / hour")), unit_key(Some("ml/h")));
        assert_ne!(unit_key(Some("ml")), unit_key(Some("ml/h")));
        assert_eq!(unit_key(None), unit_key(Some(" ")));
    }
}

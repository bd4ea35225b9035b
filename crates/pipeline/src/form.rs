//! Requirement forms: what a language model fills in instead of writing SMT-LIB.
//!
//! A small model writing nested prefix terms from free text makes mistakes a person does
//! not see (a dropped conjunct, a flipped bound, a negated rule). A *form* asks for the
//! parts of a requirement one by one, every choice taken from the schema. Its shape is
//! the key that holds its condition: `{"always": C}`, `{"never": C}`,
//! `{"if": C, "then": C}` (with an optional `"otherwise": C`), `{"during": C, "then": C}`
//! (while, during, in a mode), or `{"cases": [{"if": C, "then": C}, ...]}`. A condition
//! is an atom `{"name": V, "op": R, "value": X}`, or atoms joined by `{"all": [...]}` or
//! `{"any": [...]}`. The name is one of the schema's variables; the op is one its sort
//! allows (`is` for a Boolean, `is` / `is not` for an enumeration, `=` `!=` `<` `<=` `>`
//! `>=` for a number); the value is `true`/`false`, one of the enumeration's values, or a
//! number in the variable's unit (an optional `"unit"` must be that unit), another
//! numeric variable, or arithmetic over them ([`Arith`]: `{"sum": [X, Y]}`, difference,
//! min, max, ratio; units checked). The key names sort in the order a person fills them in (`name`,
//! `op`, `unit`, `value`; `if`, `then`), because JSON objects here keep their keys
//! sorted and a server's grammar asks for them in that order.
//!
//! [`answer_schema`] writes these choices as a JSON schema that a server enforces while
//! it generates (llama.cpp's `response_format`, OpenAI's structured outputs, Anthropic's
//! tool input), so an answer that is not a form cannot come back; each shape is its own
//! sub-schema, so no field that does not apply can be filled. vera then builds the
//! formula deterministically ([`Form::smtlib`]); the formula goes through the same
//! parser, type checker and screening as a hand-written one. [`Form::from_json`] reads an
//! answer with every error located by its JSON path and worded as repair feedback (a
//! value not of the variable's enumeration, a unit that is not the variable's, a
//! fraction for an integer variable, a field the shape does not have).

use logic::Sort;
use num_bigint::BigInt;
use num_rational::BigRational;
use reqs::Spec;
use serde_json::{json, Map, Value};
use std::fmt::Write as _;

/// The shapes a form can take, each named by the key that holds its condition.
pub const SHAPES: &[&str] = &["always", "never", "if", "during", "cases"];

/// A filled form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Form {
    /// The condition holds in every state.
    Always(Cond),
    /// The condition holds in no state.
    Never(Cond),
    /// Whenever `condition` holds, `then` holds; otherwise `otherwise` (if given).
    If {
        /// `if` or `while` (the same formula; the word is kept for the read-back).
        word: Trigger,
        /// The condition.
        condition: Cond,
        /// What holds when it does.
        then: Cond,
        /// What holds when it does not.
        otherwise: Option<Cond>,
    },
    /// Several conditions, each with what holds then.
    Cases(Vec<(Cond, Cond)>),
}

/// The word that introduces a condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trigger {
    /// "if" / "when".
    If,
    /// "while" / "during".
    While,
}

/// A condition: one atom, or atoms joined by `all` (and) or `any` (or).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cond {
    /// One atom.
    Atom(Atom),
    /// Every atom holds.
    All(Vec<Atom>),
    /// At least one atom holds.
    Any(Vec<Atom>),
}

/// `variable relation value`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Atom {
    /// A variable of the schema.
    pub variable: String,
    /// How it relates to the value.
    pub relation: Relation,
    /// The value.
    pub value: Operand,
}

/// The relations an atom can state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relation {
    /// `is` (Booleans, enumerations).
    Is,
    /// `is not` (enumerations).
    IsNot,
    /// `=`.
    Eq,
    /// `!=`.
    Ne,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
}

impl Relation {
    /// The relation as a form writes it.
    pub fn word(self) -> &'static str {
        match self {
            Relation::Is => "is",
            Relation::IsNot => "is not",
            Relation::Eq => "=",
            Relation::Ne => "!=",
            Relation::Lt => "<",
            Relation::Le => "<=",
            Relation::Gt => ">",
            Relation::Ge => ">=",
        }
    }

    fn from_word(w: &str) -> Option<Relation> {
        Some(match w {
            "is" => Relation::Is,
            "is not" => Relation::IsNot,
            "=" | "==" => Relation::Eq,
            "!=" => Relation::Ne,
            "<" => Relation::Lt,
            "<=" => Relation::Le,
            ">" => Relation::Gt,
            ">=" => Relation::Ge,
            _ => return None,
        })
    }
}

/// The right-hand side of an atom.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Operand {
    /// `true` / `false`.
    Bool(bool),
    /// A value of the variable's enumeration.
    Enum(String),
    /// An exact number in the variable's unit.
    Number(BigRational),
    /// Another numeric variable.
    Variable(String),
    /// Arithmetic over numbers and numeric variables: `{"sum": [X, Y]}`, ...
    Arith(Arith, Box<Operand>, Box<Operand>),
}

/// The arithmetic a form can write on the right of a numeric atom, each as a one-key
/// object over a pair: `{"min": [{"sum": ["a", "b"]}, "c"]}` is min(a + b, c).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arith {
    /// `X + Y`.
    Sum,
    /// `X - Y`.
    Difference,
    /// The smaller of `X` and `Y`.
    Min,
    /// The larger of `X` and `Y`.
    Max,
    /// `X / Y` (a real quotient; not for integer variables).
    Ratio,
}

impl Arith {
    /// Every operation, in the order the prompt and the schema list them.
    pub const ALL: [Arith; 5] = [
        Arith::Sum,
        Arith::Difference,
        Arith::Min,
        Arith::Max,
        Arith::Ratio,
    ];

    /// The key a form writes it with.
    pub fn key(self) -> &'static str {
        match self {
            Arith::Sum => "sum",
            Arith::Difference => "difference",
            Arith::Min => "min",
            Arith::Max => "max",
            Arith::Ratio => "ratio",
        }
    }

    fn from_key(k: &str) -> Option<Arith> {
        Arith::ALL.into_iter().find(|a| a.key() == k)
    }
}

/// How deep arithmetic may nest in an answer (`min` of a `sum` is two levels).
const ARITH_DEPTH: usize = 3;

/// Why an answer is not a valid form: the text sent back to the model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct FormError {
    /// Where in the answer (`then.all[1].value`).
    pub path: String,
    /// What is wrong and what would be right.
    pub message: String,
}

fn err(path: &str, message: impl Into<String>) -> FormError {
    FormError {
        path: if path.is_empty() {
            "the answer".into()
        } else {
            format!("`{path}`")
        },
        message: message.into(),
    }
}

/// What kind of variable a name is, for forms.
enum Kind<'a> {
    Bool,
    Enum(&'a [logic::Symbol]),
    Int,
    Real,
}

fn kind<'a>(spec: &'a Spec, sort: &Sort) -> Option<Kind<'a>> {
    match sort {
        Sort::Bool => Some(Kind::Bool),
        Sort::Int => Some(Kind::Int),
        Sort::Real => Some(Kind::Real),
        Sort::Enum(e) => spec
            .enums
            .iter()
            .find(|(n, _)| n == e)
            .map(|(_, vs)| Kind::Enum(vs.as_slice())),
    }
}

fn numeric(sort: &Sort) -> bool {
    matches!(sort, Sort::Int | Sort::Real)
}

/// Whether two numeric variables may be compared: the same unit, or either without one
/// (a schema that gives no unit says nothing about it).
fn same_unit(a: &reqs::spec::Variable, b: &reqs::spec::Variable) -> bool {
    match (&a.unit, &b.unit) {
        (Some(x), Some(y)) => x == y,
        _ => true,
    }
}

/// Whether the schema declares any input: only then does the rule of [`demandable`]
/// (and the screening's "mentions no output") apply.
pub fn declares_inputs(spec: &Spec) -> bool {
    spec.variables
        .iter()
        .any(|v| v.role == Some(reqs::spec::Role::Input))
}

/// Whether a form may demand something of `name` (in `then` / `otherwise`): anything
/// but a declared input (the screening's rule: a requirement says what the system does).
pub fn demandable(spec: &Spec, name: &str) -> bool {
    spec.variables
        .iter()
        .find(|v| &*v.name == name)
        .is_none_or(|v| v.role != Some(reqs::spec::Role::Input))
}

/// The JSON schema of a form over `spec`'s variables: one sub-schema per shape, one per
/// variable for atoms. When the schema declares outputs, what a form demands (`then`,
/// `otherwise`) is over the variables [`demandable`] allows only.
pub fn answer_schema(spec: &Spec) -> Value {
    let all: Vec<&str> = spec.variables.iter().map(|v| &*v.name).collect();
    answer_schema_for(spec, &all, true)
}

/// [`answer_schema`] over the variables named in `names` only (those a requirement's
/// text talks about: a formula over any other would be screened out anyway), with
/// arithmetic when `arithmetic` is asked for and [`offers_arithmetic`] allows it.
pub fn answer_schema_for(spec: &Spec, names: &[&str], arithmetic: bool) -> Value {
    let chosen = |v: &&reqs::spec::Variable| names.contains(&&*v.name);
    let numeric_vars: Vec<&reqs::spec::Variable> = spec
        .variables
        .iter()
        .filter(chosen)
        .filter(|v| numeric(&v.sort))
        .collect();
    let arithmetic = arithmetic && offers_arithmetic(spec, names);
    let mut atoms = Vec::new();
    // The atoms a form may demand (`then`, `otherwise`): over outputs only.
    let mut effects = Vec::new();
    for v in spec.variables.iter().filter(chosen) {
        let Some(k) = kind(spec, &v.sort) else {
            continue;
        };
        let (relations, value): (Vec<&str>, Value) = match k {
            Kind::Bool => (vec!["is"], json!({"type": "boolean"})),
            Kind::Enum(values) => (
                vec!["is", "is not"],
                json!({"enum": values.iter().map(|s| s.to_string()).collect::<Vec<_>>()}),
            ),
            Kind::Int | Kind::Real => {
                let others: Vec<&str> = numeric_vars
                    .iter()
                    .filter(|o| o.name != v.name && same_unit(v, o))
                    .map(|o| &*o.name)
                    .collect();
                let number = if matches!(k, Kind::Int) {
                    json!({"type": "integer"})
                } else {
                    json!({"type": "number"})
                };
                let mut choices = vec![number];
                if !others.is_empty() {
                    choices.push(json!({ "enum": others }));
                }
                if arithmetic {
                    choices.push(json!({"$ref": "#/$defs/arith"}));
                }
                let value = if choices.len() == 1 {
                    choices.remove(0)
                } else {
                    json!({ "anyOf": choices })
                };
                (vec!["=", "!=", "<", "<=", ">", ">="], value)
            }
        };
        let mut props = Map::new();
        props.insert("name".into(), json!({"const": v.name.to_string()}));
        props.insert("op".into(), json!({"enum": relations}));
        props.insert("value".into(), value);
        if let (Some(u), true) = (&v.unit, numeric(&v.sort)) {
            props.insert("unit".into(), json!({"const": u}));
        }
        let atom = json!({
            "type": "object",
            "properties": props,
            "required": ["name", "op", "value"],
            "additionalProperties": false
        });
        if demandable(spec, &v.name) {
            effects.push(atom.clone());
        }
        atoms.push(atom);
    }
    let restricted = !effects.is_empty() && effects.len() < atoms.len();
    let condition = |atom_ref: &str| {
        let list = json!({"type": "array", "items": {"$ref": atom_ref}, "minItems": 1});
        json!({"anyOf": [
            {"$ref": atom_ref},
            {"type": "object", "properties": {"all": list}, "required": ["all"], "additionalProperties": false},
            {"type": "object", "properties": {"any": list}, "required": ["any"], "additionalProperties": false}
        ]})
    };
    let mut defs = Map::new();
    if arithmetic {
        arith_defs(&mut defs, &numeric_vars);
    }
    defs.insert("atom".into(), json!({"anyOf": atoms}));
    defs.insert("cond".into(), condition("#/$defs/atom"));
    // What a requirement demands (`then`, `otherwise`) is about the system's outputs
    // when the schema says which variables those are.
    let effect = if restricted {
        defs.insert("effect_atom".into(), json!({"anyOf": effects}));
        defs.insert("effect".into(), condition("#/$defs/effect_atom"));
        "#/$defs/effect"
    } else {
        "#/$defs/cond"
    };
    let shape = |keys: &[&str], optional: &[&str]| {
        let mut props = Map::new();
        for k in keys.iter().chain(optional) {
            let r = if matches!(*k, "then" | "otherwise") {
                effect
            } else {
                "#/$defs/cond"
            };
            props.insert((*k).into(), json!({ "$ref": r }));
        }
        json!({"type": "object", "properties": props, "required": keys, "additionalProperties": false})
    };
    json!({
        "$defs": defs,
        "anyOf": [
            shape(&["always"], &[]),
            shape(&["never"], &[]),
            shape(&["if", "then"], &["otherwise"]),
            shape(&["during", "then"], &[]),
            {
                "type": "object",
                "properties": {
                    "cases": {
                        "type": "array",
                        "minItems": 2,
                        "items": {
                            "type": "object",
                            "properties": {"if": {"$ref": "#/$defs/cond"}, "then": {"$ref": effect}},
                            "required": ["if", "then"],
                            "additionalProperties": false
                        }
                    }
                },
                "required": ["cases"],
                "additionalProperties": false
            }
        ]
    })
}

/// Whether a form over `names` can be offered arithmetic (when asked for with
/// `FormalizeOptions::arithmetic`): when two of them are numbers, so that one can be
/// compared with a sum, a difference, a min, a max or a ratio of others.
pub fn offers_arithmetic(spec: &Spec, names: &[&str]) -> bool {
    spec.variables
        .iter()
        .filter(|v| names.contains(&&*v.name) && numeric(&v.sort))
        .count()
        >= 2
}

/// The schema's definitions of arithmetic over `vars`, nested two levels (`arith` is an
/// operation over leaves or over `arith1`); units are checked when the answer is read.
fn arith_defs(defs: &mut Map<String, Value>, vars: &[&reqs::spec::Variable]) {
    let names: Vec<&str> = vars.iter().map(|v| &*v.name).collect();
    let ops = |term: &str| {
        let pair = json!({"type": "array", "items": {"$ref": term}, "minItems": 2, "maxItems": 2});
        let one = |a: Arith| json!({"type": "object", "properties": {a.key(): pair.clone()}, "required": [a.key()], "additionalProperties": false});
        json!({ "anyOf": Arith::ALL.into_iter().map(one).collect::<Vec<_>>() })
    };
    defs.insert(
        "leaf".into(),
        json!({"anyOf": [{"type": "number"}, {"enum": names}]}),
    );
    defs.insert("arith1".into(), ops("#/$defs/leaf"));
    defs.insert(
        "term".into(),
        json!({"anyOf": [{"$ref": "#/$defs/leaf"}, {"$ref": "#/$defs/arith1"}]}),
    );
    defs.insert("arith".into(), ops("#/$defs/term"));
}

/// An exact number from a JSON number (its shortest decimal form, so `8.5` is 17/2).
fn exact(n: &serde_json::Number) -> Option<BigRational> {
    crate::schema::rational(&Value::Number(n.clone())).ok()
}

impl Form {
    /// Reads a form from a model's JSON answer, checking every choice against `spec`.
    pub fn from_json(spec: &Spec, v: &Value) -> Result<Form, FormError> {
        let obj = v.as_object().ok_or_else(|| {
            err(
                "",
                format!(
                    "a form is a JSON object with one of the keys {}",
                    SHAPES.join(", ")
                ),
            )
        })?;
        let mut keys = SHAPES.iter().filter(|k| obj.contains_key(**k));
        if !SHAPES.iter().any(|k| obj.contains_key(*k)) && obj.contains_key("then") {
            return Err(err(
                "if",
                "missing: `then` needs the condition it follows, `if` (or `during`)",
            ));
        }
        let shape = *keys.next().ok_or_else(|| {
            err(
                "",
                format!(
                    "a form needs one of the keys {} (its shape)",
                    SHAPES.join(", ")
                ),
            )
        })?;
        if let Some(other) = keys.next() {
            return Err(err(
                other,
                format!("a form has one shape: `{shape}` or `{other}`, not both"),
            ));
        }
        let allowed: &[&str] = match shape {
            "always" => &["always"],
            "never" => &["never"],
            "if" => &["if", "then", "otherwise"],
            "during" => &["during", "then"],
            _ => &["cases"],
        };
        if let Some(extra) = obj.keys().find(|k| !allowed.contains(&k.as_str())) {
            return Err(err(
                extra,
                format!(
                    "a form with `{shape}` has no field `{extra}`; its fields are {}",
                    allowed.join(", ")
                ),
            ));
        }
        let cond = |key: &str| -> Result<Cond, FormError> {
            let c = obj
                .get(key)
                .ok_or_else(|| err(key, format!("missing: a form with `{shape}` needs `{key}`")))?;
            Cond::from_json(spec, c, key)
        };
        let form = match shape {
            "always" => Form::Always(cond("always")?),
            "never" => Form::Never(cond("never")?),
            "if" | "during" => Form::If {
                word: if shape == "if" {
                    Trigger::If
                } else {
                    Trigger::While
                },
                condition: cond(shape)?,
                then: cond("then")?,
                otherwise: match obj.get("otherwise") {
                    Some(c) => Some(Cond::from_json(spec, c, "otherwise")?),
                    None => None,
                },
            },
            _ => {
                let cases = obj
                    .get("cases")
                    .and_then(Value::as_array)
                    .ok_or_else(|| err("cases", "a list of {\"if\": ..., \"then\": ...}"))?;
                if cases.is_empty() {
                    return Err(err("cases", "the list is empty"));
                }
                let mut out = Vec::new();
                for (i, c) in cases.iter().enumerate() {
                    let path = format!("cases[{i}]");
                    let o = c
                        .as_object()
                        .ok_or_else(|| err(&path, "a case is {\"if\": ..., \"then\": ...}"))?;
                    if let Some(extra) = o.keys().find(|k| *k != "if" && *k != "then") {
                        return Err(err(
                            &format!("{path}.{extra}"),
                            "a case has only `if` and `then`",
                        ));
                    }
                    let get = |k: &str| {
                        o.get(k)
                            .ok_or_else(|| err(&format!("{path}.{k}"), "missing"))
                    };
                    out.push((
                        Cond::from_json(spec, get("if")?, &format!("{path}.if"))?,
                        Cond::from_json(spec, get("then")?, &format!("{path}.then"))?,
                    ));
                }
                Form::Cases(out)
            }
        };
        form.check_demands(spec)?;
        Ok(form)
    }

    /// Refuses a demand (`then`, `otherwise`) on a declared input: a requirement says
    /// what the system does, and an input is the environment's.
    fn check_demands(&self, spec: &Spec) -> Result<(), FormError> {
        let demands: Vec<(String, &Cond)> = match self {
            Form::Always(_) | Form::Never(_) => Vec::new(),
            Form::If {
                then, otherwise, ..
            } => {
                let mut d = vec![("then".to_string(), then)];
                if let Some(o) = otherwise {
                    d.push(("otherwise".to_string(), o));
                }
                d
            }
            Form::Cases(cases) => cases
                .iter()
                .enumerate()
                .map(|(i, (_, t))| (format!("cases[{i}].then"), t))
                .collect(),
        };
        for (path, c) in demands {
            if let Some(a) = c.atoms().iter().find(|a| !demandable(spec, &a.variable)) {
                let outputs: Vec<&str> = spec
                    .variables
                    .iter()
                    .filter(|v| demandable(spec, &v.name))
                    .map(|v| &*v.name)
                    .collect();
                return Err(err(
                    &path,
                    format!(
                        "`{}` is an input (the environment sets it), so a requirement cannot \
                         demand it; say what the system does with its outputs ({}), and put \
                         `{}` in the condition if the requirement depends on it",
                        a.variable,
                        outputs.join(", "),
                        a.variable
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The formula as SMT-LIB text over `spec` (parse it with the spec's context).
    pub fn smtlib(&self, spec: &Spec) -> String {
        let c = |c: &Cond| c.smtlib(spec);
        match self {
            Form::Always(x) => c(x),
            Form::Never(x) => format!("(not {})", c(x)),
            Form::If {
                condition,
                then,
                otherwise: None,
                ..
            } => format!("(=> {} {})", c(condition), c(then)),
            Form::If {
                condition,
                then,
                otherwise: Some(e),
                ..
            } => format!(
                "(and (=> {} {}) (=> (not {}) {}))",
                c(condition),
                c(then),
                c(condition),
                c(e)
            ),
            Form::Cases(cases) => {
                let parts: Vec<String> = cases
                    .iter()
                    .map(|(i, t)| format!("(=> {} {})", c(i), c(t)))
                    .collect();
                if parts.len() == 1 {
                    parts.into_iter().next().expect("one")
                } else {
                    format!("(and {})", parts.join(" "))
                }
            }
        }
    }

    /// The form as JSON, in the layout [`answer_schema`] describes.
    pub fn to_json(&self) -> Value {
        match self {
            Form::Always(c) => json!({"always": c.to_json()}),
            Form::Never(c) => json!({"never": c.to_json()}),
            Form::If {
                word,
                condition,
                then,
                otherwise,
            } => {
                let key = match word {
                    Trigger::If => "if",
                    Trigger::While => "during",
                };
                let mut o = Map::new();
                o.insert(key.into(), condition.to_json());
                o.insert("then".into(), then.to_json());
                if let Some(e) = otherwise {
                    o.insert("otherwise".into(), e.to_json());
                }
                Value::Object(o)
            }
            Form::Cases(cases) => json!({
                "cases": cases.iter().map(|(i, t)| json!({"if": i.to_json(), "then": t.to_json()})).collect::<Vec<_>>()
            }),
        }
    }
}

impl Cond {
    fn from_json(spec: &Spec, v: &Value, path: &str) -> Result<Cond, FormError> {
        let obj = v.as_object().ok_or_else(|| {
            err(
                path,
                "a condition is an atom {\"name\", \"op\", \"value\"}, {\"all\": [atoms]} or {\"any\": [atoms]}",
            )
        })?;
        for key in ["all", "any"] {
            if let Some(list) = obj.get(key) {
                if obj.len() > 1 {
                    return Err(err(
                        path,
                        format!("`{key}` stands alone: {{\"{key}\": [atoms]}}"),
                    ));
                }
                let items = list
                    .as_array()
                    .ok_or_else(|| err(&format!("{path}.{key}"), "a list of atoms"))?;
                if items.is_empty() {
                    return Err(err(&format!("{path}.{key}"), "the list is empty"));
                }
                let atoms = items
                    .iter()
                    .enumerate()
                    .map(|(i, a)| Atom::from_json(spec, a, &format!("{path}.{key}[{i}]")))
                    .collect::<Result<Vec<_>, _>>()?;
                return Ok(if key == "all" {
                    Cond::All(atoms)
                } else {
                    Cond::Any(atoms)
                });
            }
        }
        Atom::from_json(spec, v, path).map(Cond::Atom)
    }

    fn smtlib(&self, spec: &Spec) -> String {
        match self {
            Cond::Atom(a) => a.smtlib(spec),
            Cond::All(atoms) | Cond::Any(atoms) if atoms.len() == 1 => atoms[0].smtlib(spec),
            Cond::All(atoms) => format!(
                "(and {})",
                atoms
                    .iter()
                    .map(|a| a.smtlib(spec))
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
            Cond::Any(atoms) => format!(
                "(or {})",
                atoms
                    .iter()
                    .map(|a| a.smtlib(spec))
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
        }
    }

    fn to_json(&self) -> Value {
        match self {
            Cond::Atom(a) => a.to_json(),
            Cond::All(atoms) => json!({"all": atoms.iter().map(Atom::to_json).collect::<Vec<_>>()}),
            Cond::Any(atoms) => json!({"any": atoms.iter().map(Atom::to_json).collect::<Vec<_>>()}),
        }
    }

    /// The atoms of the condition.
    pub fn atoms(&self) -> &[Atom] {
        match self {
            Cond::Atom(a) => std::slice::from_ref(a),
            Cond::All(v) | Cond::Any(v) => v,
        }
    }
}

impl Atom {
    fn from_json(spec: &Spec, v: &Value, path: &str) -> Result<Atom, FormError> {
        let obj = v.as_object().ok_or_else(|| {
            err(
                path,
                "an atom is {\"name\": ..., \"op\": ..., \"value\": ...}",
            )
        })?;
        if let Some(extra) = obj
            .keys()
            .find(|k| !["name", "op", "value", "unit"].contains(&k.as_str()))
        {
            return Err(err(
                &format!("{path}.{extra}"),
                "an atom has only `name`, `op`, `value` (and `unit` for a number)",
            ));
        }
        let name = obj.get("name").and_then(Value::as_str).ok_or_else(|| {
            err(
                &format!("{path}.name"),
                "missing: name a variable of the schema",
            )
        })?;
        let var = spec
            .variables
            .iter()
            .find(|x| &*x.name == name)
            .ok_or_else(|| {
                err(
                    &format!("{path}.name"),
                    format!("`{name}` is not a variable of the schema"),
                )
            })?;
        let rel_text = obj
            .get("op")
            .and_then(Value::as_str)
            .ok_or_else(|| err(&format!("{path}.op"), "missing"))?;
        let relation = Relation::from_word(rel_text).ok_or_else(|| {
            err(
                &format!("{path}.op"),
                format!("`{rel_text}` is not a relation (op)"),
            )
        })?;
        let value = obj
            .get("value")
            .ok_or_else(|| err(&format!("{path}.value"), "missing"))?;
        let vpath = format!("{path}.value");
        let k = kind(spec, &var.sort).ok_or_else(|| {
            err(
                &format!("{path}.name"),
                format!("`{name}` has a sort a form cannot state"),
            )
        })?;
        if obj.contains_key("unit") && !numeric(&var.sort) {
            return Err(err(
                &format!("{path}.unit"),
                format!("`{name}` is not a number: it has no unit"),
            ));
        }
        let operand = match k {
            Kind::Bool => {
                if relation != Relation::Is {
                    return Err(err(
                        &format!("{path}.op"),
                        format!(
                            "`{name}` is true or false: the op is `is`, the value true or false"
                        ),
                    ));
                }
                Operand::Bool(value.as_bool().ok_or_else(|| {
                    err(&vpath, format!("`{name}` is true or false, not {value}"))
                })?)
            }
            Kind::Enum(values) => {
                if !matches!(relation, Relation::Is | Relation::IsNot) {
                    return Err(err(
                        &format!("{path}.op"),
                        format!("`{name}` takes `is` or `is not`"),
                    ));
                }
                let s = value.as_str().unwrap_or_default();
                if !values.iter().any(|x| &**x == s) {
                    let names: Vec<String> = values.iter().map(|x| x.to_string()).collect();
                    return Err(err(
                        &vpath,
                        format!(
                            "{value} is not a value of `{name}`; its values are {}",
                            names.join(", ")
                        ),
                    ));
                }
                Operand::Enum(s.to_string())
            }
            Kind::Int | Kind::Real => numeric_operand(
                spec,
                var,
                matches!(k, Kind::Int),
                relation,
                obj.get("unit"),
                value,
                path,
            )?,
        };
        Ok(Atom {
            variable: name.to_string(),
            relation,
            value: operand,
        })
    }

    fn smtlib(&self, spec: &Spec) -> String {
        let v = &self.variable;
        match (&self.value, self.relation) {
            (Operand::Bool(true), _) => v.clone(),
            (Operand::Bool(false), _) => format!("(not {v})"),
            (Operand::Enum(c), Relation::IsNot) => format!("(not (= {v} {c}))"),
            (Operand::Enum(c), _) => format!("(= {v} {c})"),
            (rhs, rel) => {
                let real = spec
                    .variables
                    .iter()
                    .find(|x| &*x.name == v.as_str())
                    .is_some_and(|x| x.sort == Sort::Real);
                let rhs = operand_smtlib(rhs, real);
                let op = match rel {
                    Relation::Eq | Relation::Is => "=",
                    Relation::Ne | Relation::IsNot => "distinct",
                    Relation::Lt => "<",
                    Relation::Le => "<=",
                    Relation::Gt => ">",
                    Relation::Ge => ">=",
                };
                format!("({op} {v} {rhs})")
            }
        }
    }

    fn to_json(&self) -> Value {
        json!({"name": self.variable, "op": self.relation.word(), "value": operand_json(&self.value)})
    }
}

/// The value of an atom over a number: a number in the variable's unit, another
/// numeric variable of the same unit, or arithmetic ([`arith_operand`]); `unit` is the
/// atom's optional `unit` field.
fn numeric_operand(
    spec: &Spec,
    var: &reqs::spec::Variable,
    int: bool,
    relation: Relation,
    unit: Option<&Value>,
    value: &Value,
    path: &str,
) -> Result<Operand, FormError> {
    let name = &*var.name;
    let vpath = format!("{path}.value");
    if matches!(relation, Relation::Is | Relation::IsNot) {
        return Err(err(
            &format!("{path}.op"),
            format!("`{name}` is a number: use =, !=, <, <=, > or >="),
        ));
    }
    if let Some(u) = unit {
        let want = var.unit.as_deref();
        if u.as_str() != want {
            return Err(err(
                &format!("{path}.unit"),
                match want {
                    Some(w) => {
                        format!("`{name}` is in {w}, not {u}: write the value in {w}")
                    }
                    None => format!("`{name}` has no unit: leave `unit` out"),
                },
            ));
        }
    }
    match value {
        Value::Number(n) => {
            let r = exact(n).ok_or_else(|| err(&vpath, "not a finite number"))?;
            if int && !r.is_integer() {
                return Err(err(
                    &vpath,
                    format!("`{name}` is an integer; {value} is not"),
                ));
            }
            Ok(Operand::Number(r))
        }
        Value::String(other) => {
            let o = spec
                .variables
                .iter()
                .find(|x| &*x.name == other.as_str())
                .ok_or_else(|| {
                    err(
                        &vpath,
                        format!("`{other}` is neither a number nor a variable of the schema"),
                    )
                })?;
            if !numeric(&o.sort) {
                return Err(err(
                    &vpath,
                    format!("`{other}` is not a number; compare `{name}` with a number or a numeric variable"),
                ));
            }
            if !same_unit(var, o) {
                let unit = var.unit.as_deref().unwrap_or("no unit");
                let theirs = o.unit.as_deref().unwrap_or("no unit");
                return Err(err(
                    &vpath,
                    format!(
                        "`{name}` is in {unit} and `{other}` in {theirs}: quantities of different units cannot be compared; compare `{name}` with a number in {unit} or a variable in {unit}"
                    ),
                ));
            }
            Ok(Operand::Variable(other.clone()))
        }
        Value::Object(_) => {
            let (operand, unit) =
                arith_operand(spec, int, value, &vpath, 0)?;
            if let (Some(want), Dim::Of(got)) = (&var.unit, &unit) {
                if norm_unit(want) != norm_unit(got) {
                    return Err(err(
                        &vpath,
                        format!(
                            "`{name}` is in {want} and this arithmetic gives {got}: write it so that it gives {want}"
                        ),
                    ));
                }
            }
            Ok(operand)
        }
        _ => Err(err(
            &vpath,
            format!("`{name}` is a number: the value is a number (in its unit), a numeric variable or arithmetic over them"),
        )),
    }
}

/// The unit of an arithmetic operand: a variable without a unit and a bare number fit
/// any unit.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Dim {
    Any,
    Of(String),
}

fn norm_unit(u: &str) -> String {
    u.chars().filter(|c| !c.is_whitespace()).collect()
}

/// Reads one operand of arithmetic (`int`: the compared variable is an integer): a
/// number, a numeric variable or a one-key object over a pair, with the unit it gives.
fn arith_operand(
    spec: &Spec,
    int: bool,
    v: &Value,
    path: &str,
    depth: usize,
) -> Result<(Operand, Dim), FormError> {
    match v {
        Value::Number(n) => {
            let r = exact(n).ok_or_else(|| err(path, "not a finite number"))?;
            if int && !r.is_integer() {
                return Err(err(
                    path,
                    format!("the compared variable is an integer; {v} is not"),
                ));
            }
            Ok((Operand::Number(r), Dim::Any))
        }
        Value::String(name) => {
            let o = spec.variable(name).ok_or_else(|| {
                err(
                    path,
                    format!("`{name}` is neither a number nor a variable of the schema"),
                )
            })?;
            if !numeric(&o.sort) {
                return Err(err(
                    path,
                    format!("`{name}` is not a number: arithmetic is over numbers and numeric variables"),
                ));
            }
            let dim = o.unit.as_ref().map_or(Dim::Any, |u| Dim::Of(u.clone()));
            Ok((Operand::Variable(name.clone()), dim))
        }
        Value::Object(o) => {
            let keys: Vec<&str> = Arith::ALL.iter().map(|a| a.key()).collect();
            let (key, pair) = match (o.len(), o.iter().next()) {
                (1, Some((k, p))) => (k, p),
                _ => {
                    return Err(err(
                        path,
                        format!(
                            "arithmetic is one key ({}) over a pair [X, Y]",
                            keys.join(", ")
                        ),
                    ))
                }
            };
            let op = Arith::from_key(key).ok_or_else(|| {
                err(
                    path,
                    format!(
                        "`{key}` is not arithmetic a form knows; use one of {}",
                        keys.join(", ")
                    ),
                )
            })?;
            if depth >= ARITH_DEPTH {
                return Err(err(
                    path,
                    format!("arithmetic nests at most {ARITH_DEPTH} levels deep"),
                ));
            }
            if op == Arith::Ratio && int {
                return Err(err(
                    path,
                    "the compared variable is an integer: a ratio is not (compare a real variable, or multiply out)",
                ));
            }
            let items = match pair.as_array() {
                Some(items) if items.len() == 2 => items,
                _ => return Err(err(path, format!("`{key}` takes a pair: [X, Y]"))),
            };
            let (a, da) =
                arith_operand(spec, int, &items[0], &format!("{path}.{key}[0]"), depth + 1)?;
            let (b, db) =
                arith_operand(spec, int, &items[1], &format!("{path}.{key}[1]"), depth + 1)?;
            let dim = match (op, da, db) {
                (Arith::Ratio, Dim::Of(x), Dim::Of(y)) => Dim::Of(format!("{x}/{y}")),
                (Arith::Ratio, da, _) if matches!(b, Operand::Number(_)) => da,
                (Arith::Ratio, _, _) => Dim::Any,
                (_, Dim::Of(x), Dim::Of(y)) if norm_unit(&x) != norm_unit(&y) => {
                    return Err(err(
                        path,
                        format!(
                            "`{key}` of a quantity in {x} and one in {y}: both must have one unit"
                        ),
                    ))
                }
                (_, Dim::Of(x), _) | (_, _, Dim::Of(x)) => Dim::Of(x),
                _ => Dim::Any,
            };
            Ok((Operand::Arith(op, Box::new(a), Box::new(b)), dim))
        }
        _ => Err(err(
            path,
            "a number, a numeric variable or arithmetic ({\"sum\": [X, Y]}, ...)",
        )),
    }
}

/// A numeric operand as SMT-LIB (`real`: numbers written as reals).
fn operand_smtlib(o: &Operand, real: bool) -> String {
    match o {
        Operand::Number(r) => number(r, real),
        Operand::Variable(v) => v.clone(),
        Operand::Arith(op, a, b) => {
            let (a, b) = (operand_smtlib(a, real), operand_smtlib(b, real));
            match op {
                Arith::Sum => format!("(+ {a} {b})"),
                Arith::Difference => format!("(- {a} {b})"),
                Arith::Ratio => format!("(/ {a} {b})"),
                Arith::Min => format!("(ite (<= {a} {b}) {a} {b})"),
                Arith::Max => format!("(ite (>= {a} {b}) {a} {b})"),
            }
        }
        Operand::Bool(b) => b.to_string(),
        Operand::Enum(c) => c.clone(),
    }
}

/// A numeric operand as a form writes it.
fn operand_json(o: &Operand) -> Value {
    match o {
        Operand::Bool(b) => json!(b),
        Operand::Enum(s) | Operand::Variable(s) => json!(s),
        Operand::Number(r) => {
            if r.is_integer() {
                json!(r.to_integer().to_string().parse::<i64>().unwrap_or(0))
            } else {
                json!(number(r, true).parse::<f64>().unwrap_or(f64::NAN))
            }
        }
        Operand::Arith(op, a, b) => json!({ op.key(): [operand_json(a), operand_json(b)] }),
    }
}

/// A number as SMT-LIB: an integer numeral, a decimal (`8.5`) or a division, negative
/// numbers as `(- n)`.
fn number(r: &BigRational, real: bool) -> String {
    let neg = r < &BigRational::from_integer(BigInt::from(0));
    let a = if neg { -r.clone() } else { r.clone() };
    let body = if a.is_integer() {
        let i = a.to_integer().to_string();
        if real {
            format!("{i}.0")
        } else {
            i
        }
    } else {
        logic::print::decimal(&a).unwrap_or_else(|| format!("(/ {}.0 {}.0)", a.numer(), a.denom()))
    };
    if neg {
        format!("(- {body})")
    } else {
        body
    }
}

/// The schema as a form prompt lists it: each variable with its sort, the relations and
/// values it takes, its unit and description.
pub fn schema_lines(spec: &Spec) -> String {
    let all: Vec<&str> = spec.variables.iter().map(|v| &*v.name).collect();
    schema_lines_for(spec, &all)
}

/// [`schema_lines`] of the variables named in `names` only.
pub fn schema_lines_for(spec: &Spec, names: &[&str]) -> String {
    let mut o = String::new();
    for v in spec.variables.iter().filter(|v| names.contains(&&*v.name)) {
        let Some(k) = kind(spec, &v.sort) else {
            continue;
        };
        let what = match k {
            Kind::Bool => "true or false".to_string(),
            Kind::Enum(values) => format!(
                "one of {}",
                values
                    .iter()
                    .map(|s| s.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Kind::Int => "an integer".to_string(),
            Kind::Real => "a number".to_string(),
        };
        let _ = write!(o, "- {}: {what}", v.name);
        if let Some(u) = &v.unit {
            let _ = write!(o, " in {u}");
        }
        match v.role {
            Some(reqs::spec::Role::Input) => o.push_str(", input"),
            Some(reqs::spec::Role::Output) => o.push_str(", output"),
            None => {}
        }
        match (&v.min, &v.max) {
            (Some(a), Some(b)) => {
                let _ = write!(o, ", from {} to {}", show(a), show(b));
            }
            (Some(a), None) => {
                let _ = write!(o, ", at least {}", show(a));
            }
            (None, Some(b)) => {
                let _ = write!(o, ", at most {}", show(b));
            }
            _ => {}
        }
        if let Some(d) = &v.description {
            let _ = write!(o, " ({d})");
        }
        o.push('\n');
    }
    o
}

fn show(r: &BigRational) -> String {
    if r.is_integer() {
        r.to_integer().to_string()
    } else {
        number(r, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use logic::SourceFile;

    fn spec() -> Spec {
        reqs::parse_spec(SourceFile::new(
            "t.toml",
            "[spec]\nname = \"t\"\n[[enums]]\nname = \"Mode\"\nvalues = [\"Stopped\", \"Basal\", \"KVO\"]\n\
             [[variables]]\nname = \"mode\"\nsort = \"Mode\"\n\
             [[variables]]\nname = \"rate\"\nsort = \"Real\"\nunit = \"mL/h\"\nmin = 0\nmax = 100\n\
             [[variables]]\nname = \"max_rate\"\nsort = \"Real\"\nunit = \"mL/h\"\n\
             [[variables]]\nname = \"count\"\nsort = \"Int\"\n\
             [[variables]]\nname = \"door_open\"\nsort = \"Bool\"\n\
             [[variables]]\nname = \"alarm\"\nsort = \"Bool\"\n",
        ))
        .unwrap()
    }

    fn form(v: Value) -> Result<String, String> {
        let s = spec();
        Form::from_json(&s, &v)
            .map(|f| f.smtlib(&s))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn every_shape_builds_its_formula() {
        let door = json!({"name": "door_open", "op": "is", "value": true});
        let stopped = json!({"name": "mode", "op": "is", "value": "Stopped"});
        assert_eq!(
            form(json!({"if": door, "then": stopped})).unwrap(),
            "(=> door_open (= mode Stopped))"
        );
        assert_eq!(
            form(json!({"during": stopped, "then": {"name": "rate", "op": "=", "value": 0}}))
                .unwrap(),
            "(=> (= mode Stopped) (= rate 0.0))"
        );
        assert_eq!(
            form(json!({"always": {"name": "rate", "op": "<=", "value": "max_rate"}})).unwrap(),
            "(<= rate max_rate)"
        );
        assert_eq!(
            form(json!({"never": {"all": [door, {"name": "alarm", "op": "is", "value": false}]}}))
                .unwrap(),
            "(not (and door_open (not alarm)))"
        );
        assert_eq!(
            form(json!({"if": door, "then": {"name": "alarm", "op": "is", "value": true}, "otherwise": {"any": [{"name": "mode", "op": "is not", "value": "KVO"}, {"name": "count", "op": ">", "value": -3}]}})).unwrap(),
            "(and (=> door_open alarm) (=> (not door_open) (or (not (= mode KVO)) (> count (- 3)))))"
        );
        assert_eq!(
            form(json!({"cases": [
                {"if": {"name": "rate", "op": ">", "value": 8.5}, "then": {"name": "alarm", "op": "is", "value": true}},
                {"if": {"name": "rate", "op": "<", "value": 0.25}, "then": {"name": "mode", "op": "is", "value": "KVO"}}
            ]})).unwrap(),
            "(and (=> (> rate 8.5) alarm) (=> (< rate 0.25) (= mode KVO)))"
        );
    }

    #[test]
    fn every_relation_and_operand() {
        for (rel, op) in [
            ("=", "="),
            ("!=", "distinct"),
            ("<", "<"),
            ("<=", "<="),
            (">", ">"),
            (">=", ">="),
        ] {
            assert_eq!(
                form(json!({"always": {"name": "count", "op": rel, "value": 7}})).unwrap(),
                format!("({op} count 7)")
            );
        }
        assert_eq!(
            form(json!({"always": {"name": "rate", "op": "<=", "value": 1, "unit": "mL/h"}}))
                .unwrap(),
            "(<= rate 1.0)"
        );
    }

    #[test]
    fn mistakes_are_located_and_explained() {
        let e =
            form(json!({"always": {"name": "mode", "op": "is", "value": "Running"}})).unwrap_err();
        assert!(
            e.contains("`always.value`") && e.contains("its values are Stopped, Basal, KVO"),
            "{e}"
        );
        let e = form(json!({"always": {"name": "rate", "op": "<", "value": 5, "unit": "L/h"}}))
            .unwrap_err();
        assert!(
            e.contains("`always.unit`") && e.contains("is in mL/h"),
            "{e}"
        );
        let e = form(json!({"always": {"name": "count", "op": "<", "value": 2.5}})).unwrap_err();
        assert!(e.contains("is an integer"), "{e}");
        let e =
            form(json!({"always": {"name": "door_open", "op": ">", "value": true}})).unwrap_err();
        assert!(e.contains("op is `is`"), "{e}");
        let e = form(json!({"always": {"name": "speed", "op": "<", "value": 1}})).unwrap_err();
        assert!(e.contains("`speed` is not a variable"), "{e}");
        // A field that does not apply to the shape.
        let e = form(json!({"always": {"name": "alarm", "op": "is", "value": true}, "then": {"name": "alarm", "op": "is", "value": true}})).unwrap_err();
        assert!(e.contains("has no field `then`"), "{e}");
        let e = form(json!({"then": {"name": "alarm", "op": "is", "value": true}})).unwrap_err();
        assert!(e.contains("`if`") && e.contains("missing"), "{e}");
        let e = form(json!({"maybe": {"name": "alarm", "op": "is", "value": true}})).unwrap_err();
        assert!(
            e.contains("needs one of the keys always, never, if, during, cases"),
            "{e}"
        );
        let e = form(json!({"always": {"name": "alarm", "op": "is", "value": true}, "never": {"name": "alarm", "op": "is", "value": false}})).unwrap_err();
        assert!(e.contains("one shape"), "{e}");
        let e = form(json!({"always": {"all": []}})).unwrap_err();
        assert!(e.contains("empty"), "{e}");
        let e = form(json!({"always": {"name": "rate", "op": "<", "value": "alarm"}})).unwrap_err();
        assert!(e.contains("`alarm` is not a number"), "{e}");
    }

    #[test]
    fn numbers_are_exact() {
        let exact_of = |v: Value| match v {
            Value::Number(n) => exact(&n).unwrap(),
            _ => unreachable!(),
        };
        assert_eq!(number(&exact_of(json!(8.5)), true), "8.5");
        assert_eq!(number(&exact_of(json!(0.1)), true), "0.1");
        assert_eq!(number(&exact_of(json!(-0.05)), true), "(- 0.05)");
        assert_eq!(number(&exact_of(json!(1e3)), false), "1000");
        assert_eq!(
            number(&BigRational::new(BigInt::from(1), BigInt::from(3)), true),
            "(/ 1.0 3.0)"
        );
    }

    #[test]
    fn a_form_survives_its_json() {
        let s = spec();
        let v = json!({"if": {"all": [{"name": "door_open", "op": "is", "value": true}, {"name": "rate", "op": ">=", "value": 2.5}]}, "then": {"name": "mode", "op": "is", "value": "Stopped"}});
        let f = Form::from_json(&s, &v).unwrap();
        assert_eq!(Form::from_json(&s, &f.to_json()).unwrap(), f);
    }

    #[test]
    fn the_schema_accepts_forms_and_refuses_misfits() {
        let s = spec();
        let schema = answer_schema(&s);
        let ok = json!({"if": {"name": "door_open", "op": "is", "value": true}, "then": {"all": [{"name": "mode", "op": "is", "value": "Stopped"}, {"name": "rate", "op": "=", "value": 0, "unit": "mL/h"}]}});
        llm::jsonschema::validate(&schema, &ok).unwrap();
        for bad in [
            json!({"always": {"name": "mode", "op": "is", "value": "Running"}}),
            json!({"then": {"name": "alarm", "op": "is", "value": true}}),
            json!({"if": {"name": "alarm", "op": "<", "value": true}, "then": {"name": "alarm", "op": "is", "value": true}}),
        ] {
            assert!(llm::jsonschema::validate(&schema, &bad).is_err(), "{bad}");
        }
    }

    /// The spec of [`spec`] with roles: `door_open` and `count` inputs, the rest outputs.
    fn spec_with_roles() -> Spec {
        reqs::parse_spec(SourceFile::new(
            "t.toml",
            "[spec]\nname = \"t\"\n[[enums]]\nname = \"Mode\"\nvalues = [\"Stopped\", \"Basal\"]\n\
             [[variables]]\nname = \"mode\"\nsort = \"Mode\"\nrole = \"output\"\n\
             [[variables]]\nname = \"rate\"\nsort = \"Real\"\nrole = \"output\"\n\
             [[variables]]\nname = \"count\"\nsort = \"Int\"\nrole = \"input\"\n\
             [[variables]]\nname = \"door_open\"\nsort = \"Bool\"\nrole = \"input\"\n",
        ))
        .unwrap()
    }

    #[test]
    fn demands_are_on_outputs_once_inputs_are_declared() {
        let s = spec_with_roles();
        let schema = answer_schema(&s);
        let ok = [
            json!({"if": {"name": "door_open", "op": "is", "value": true}, "then": {"name": "mode", "op": "is", "value": "Stopped"}}),
            json!({"during": {"all": [{"name": "door_open", "op": "is", "value": false}, {"name": "mode", "op": "is", "value": "Basal"}]}, "then": {"name": "rate", "op": ">", "value": "count"}}),
            // An invariant may mix inputs and outputs (the screening wants an output).
            json!({"never": {"all": [{"name": "door_open", "op": "is", "value": true}, {"name": "mode", "op": "is", "value": "Basal"}]}}),
            json!({"cases": [{"if": {"name": "count", "op": ">", "value": 3}, "then": {"name": "rate", "op": "=", "value": 0}}, {"if": {"name": "count", "op": "<=", "value": 3}, "then": {"name": "rate", "op": "=", "value": 1}}]}),
        ];
        for f in &ok {
            llm::jsonschema::validate(&schema, f).unwrap();
            Form::from_json(&s, f).unwrap();
        }
        let bad = [
            (
                json!({"if": {"name": "mode", "op": "is", "value": "Basal"}, "then": {"name": "door_open", "op": "is", "value": false}}),
                "`then`",
            ),
            (
                json!({"if": {"name": "door_open", "op": "is", "value": true}, "then": {"name": "mode", "op": "is", "value": "Stopped"}, "otherwise": {"all": [{"name": "mode", "op": "is", "value": "Basal"}, {"name": "count", "op": "=", "value": 0}]}}),
                "`otherwise`",
            ),
            (
                json!({"cases": [{"if": {"name": "mode", "op": "is", "value": "Basal"}, "then": {"name": "rate", "op": "=", "value": 1}}, {"if": {"name": "mode", "op": "is", "value": "Stopped"}, "then": {"name": "count", "op": "=", "value": 0}}]}),
                "`cases[1].then`",
            ),
        ];
        for (f, path) in &bad {
            assert!(llm::jsonschema::validate(&schema, f).is_err(), "{f}");
            let e = Form::from_json(&s, f).unwrap_err().to_string();
            assert!(e.starts_with(path), "{e}");
            assert!(
                e.contains("is an input") && e.contains("(mode, rate)"),
                "{e}"
            );
        }
        // Without declared inputs every variable may be demanded.
        let f = json!({"if": {"name": "mode", "op": "is", "value": "Basal"}, "then": {"name": "door_open", "op": "is", "value": false}});
        llm::jsonschema::validate(&answer_schema(&spec()), &f).unwrap();
        Form::from_json(&spec(), &f).unwrap();
        // The prompt's list says which is which.
        let lines = schema_lines(&s);
        assert!(
            lines.contains("- door_open: true or false, input\n"),
            "{lines}"
        );
        assert!(lines.contains("- rate: a number, output\n"), "{lines}");
    }

    #[test]
    fn arithmetic_builds_its_term_checks_units_and_survives_json() {
        let s = reqs::parse_spec(SourceFile::new(
            "a.toml",
            "[spec]\nname = \"a\"\n\
             [[variables]]\nname = \"flow\"\nsort = \"Real\"\nunit = \"ml/hr\"\n\
             [[variables]]\nname = \"basal\"\nsort = \"Real\"\nunit = \"ml/hr\"\n\
             [[variables]]\nname = \"bolus\"\nsort = \"Real\"\nunit = \"ml/hr\"\n\
             [[variables]]\nname = \"fmax\"\nsort = \"Real\"\nunit = \"ml/hr\"\n\
             [[variables]]\nname = \"volume\"\nsort = \"Real\"\nunit = \"ml\"\n\
             [[variables]]\nname = \"hours\"\nsort = \"Real\"\nunit = \"hr\"\n\
             [[variables]]\nname = \"count\"\nsort = \"Int\"\n\
             [[variables]]\nname = \"limit\"\nsort = \"Int\"\n",
        ))
        .unwrap();
        let schema = answer_schema(&s);
        let read = |value: Value| {
            let f = json!({"always": {"name": "flow", "op": "=", "value": value}});
            Form::from_json(&s, &f).map(|form| (form, f))
        };
        // Every operation, nested as the schema allows, and its SMT-LIB.
        for (value, term) in [
            (
                json!({"sum": ["basal", "bolus"]}),
                "(= flow (+ basal bolus))",
            ),
            (
                json!({"difference": ["basal", 0.5]}),
                "(= flow (- basal 0.5))",
            ),
            (
                json!({"max": ["basal", 1]}),
                "(= flow (ite (>= basal 1.0) basal 1.0))",
            ),
            (
                json!({"min": [{"sum": ["basal", "bolus"]}, "fmax"]}),
                "(= flow (ite (<= (+ basal bolus) fmax) (+ basal bolus) fmax))",
            ),
            (
                json!({"sum": [{"ratio": ["volume", "hours"]}, "basal"]}),
                "(= flow (+ (/ volume hours) basal))",
            ),
        ] {
            let (form, answer) = read(value.clone()).unwrap();
            assert_eq!(form.smtlib(&s), term);
            llm::jsonschema::validate(&schema, &answer).unwrap();
            assert_eq!(Form::from_json(&s, &form.to_json()).unwrap(), form);
        }
        // Units: a sum of different units, a ratio that gives the wrong one.
        let e = read(json!({"sum": ["basal", "volume"]}))
            .unwrap_err()
            .to_string();
        assert!(e.contains("ml/hr and one in ml"), "{e}");
        let e = read(json!({"ratio": ["hours", "volume"]}))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("is in ml/hr and this arithmetic gives hr/ml"),
            "{e}"
        );
        // A ratio over an integer variable, an unknown key, a pair that is not one, too deep.
        let int = |value: Value| {
            Form::from_json(
                &s,
                &json!({"always": {"name": "count", "op": "<=", "value": value}}),
            )
            .map(|f| f.smtlib(&s))
            .map_err(|e| e.to_string())
        };
        assert_eq!(
            int(json!({"sum": ["limit", 1]})).unwrap(),
            "(<= count (+ limit 1))"
        );
        assert!(int(json!({"ratio": ["limit", 2]}))
            .unwrap_err()
            .contains("integer"));
        assert!(int(json!({"sum": ["limit", 0.5]}))
            .unwrap_err()
            .contains("integer"));
        assert!(int(json!({"times": ["limit", 2]}))
            .unwrap_err()
            .contains("`times`"));
        assert!(int(json!({"sum": ["limit"]})).unwrap_err().contains("pair"));
        assert!(int(json!({"sum": ["limit", true]}))
            .unwrap_err()
            .contains("a numeric variable"));
        let deep = json!({"sum": [{"sum": [{"sum": [{"sum": [1, 2]}, 3]}, 4]}, 5]});
        assert!(int(deep).unwrap_err().contains("at most 3 levels"));
        // The schema offers arithmetic only with two numbers among the names.
        assert!(offers_arithmetic(&s, &["flow", "basal"]));
        assert!(!offers_arithmetic(&s, &["flow"]));
        let one = answer_schema_for(&s, &["flow"], true);
        let sum = json!({"always": {"name": "flow", "op": "=", "value": {"sum": [1, 2]}}});
        assert!(llm::jsonschema::validate(&one, &sum).is_err());
        llm::jsonschema::validate(&schema, &sum).unwrap();
        // Not asked for: the schema of earlier versions, without arithmetic.
        let all: Vec<&str> = s.variables.iter().map(|v| &*v.name).collect();
        let plain = answer_schema_for(&s, &all, false);
        assert!(llm::jsonschema::validate(&plain, &sum).is_err());
    }

    #[test]
    fn variables_of_different_units_are_not_compared() {
        let s = reqs::parse_spec(SourceFile::new(
            "u.toml",
            "[spec]\nname = \"u\"\n\
             [[variables]]\nname = \"rate\"\nsort = \"Real\"\nunit = \"ml/hr\"\n\
             [[variables]]\nname = \"max_rate\"\nsort = \"Real\"\nunit = \"ml/hr\"\n\
             [[variables]]\nname = \"volume\"\nsort = \"Real\"\nunit = \"ml\"\n\
             [[variables]]\nname = \"factor\"\nsort = \"Real\"\n",
        ))
        .unwrap();
        let schema = answer_schema(&s);
        let atom = |value: &str| json!({"always": {"name": "rate", "op": "<=", "value": value}});
        for ok in ["max_rate", "factor"] {
            llm::jsonschema::validate(&schema, &atom(ok)).unwrap();
            Form::from_json(&s, &atom(ok)).unwrap();
        }
        let bad = atom("volume");
        assert!(llm::jsonschema::validate(&schema, &bad).is_err());
        let e = Form::from_json(&s, &bad).unwrap_err().to_string();
        assert!(
            e.starts_with("`always.value`: `rate` is in ml/hr and `volume` in ml"),
            "{e}"
        );
    }
}

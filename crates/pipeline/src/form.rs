//! Requirement forms: what a language model fills in instead of writing SMT-LIB.
//!
//! A small model writing nested prefix terms from free text makes mistakes a person does
//! not see (a dropped conjunct, a flipped bound, a negated rule). A *form* asks for the
//! parts of a requirement one by one, every choice taken from the schema: its shape
//! (`always`, `never`, `if`, `while`, `if` with `else`, or a list of `cases`), and its
//! conditions as atoms `{variable, relation, value}` joined by `all` or `any`. The
//! variable is one of the schema's variables; the relation is one its sort allows
//! (`is` for a Boolean, `is` / `is not` for an enumeration, `=` `!=` `<` `<=` `>` `>=` for
//! a number); the value is `true`/`false`, one of the enumeration's values, or a number
//! in the variable's unit (or another numeric variable). [`answer_schema`] writes these
//! choices as a JSON schema that a server enforces while it generates
//! (llama.cpp's `response_format`, OpenAI's structured outputs, Anthropic's tool input),
//! so an answer that is not a form cannot come back; each shape is its own sub-schema,
//! so no field that does not apply can be filled.
//!
//! vera then builds the formula deterministically ([`Form::smtlib`]); the formula goes
//! through the same parser, type checker and screening as a hand-written one.
//! [`Form::from_json`] reads an answer with every error located by its JSON path and
//! worded as repair feedback (a value not of the variable's enumeration, a unit that is
//! not the variable's, a fraction for an integer variable, a field the shape does not
//! have).

use logic::Sort;
use num_bigint::BigInt;
use num_rational::BigRational;
use reqs::Spec;
use serde_json::{json, Map, Value};
use std::fmt::Write as _;

/// The shapes a form can take.
pub const SHAPES: &[&str] = &["always", "never", "if", "while", "cases"];

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
}

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

/// The JSON schema of a form over `spec`'s variables: one sub-schema per shape, one per
/// variable for atoms.
pub fn answer_schema(spec: &Spec) -> Value {
    let numeric_vars: Vec<&str> = spec
        .variables
        .iter()
        .filter(|v| numeric(&v.sort))
        .map(|v| &*v.name)
        .collect();
    let mut atoms = Vec::new();
    for v in &spec.variables {
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
                    .copied()
                    .filter(|n| *n != &*v.name)
                    .collect();
                let number = if matches!(k, Kind::Int) {
                    json!({"type": "integer"})
                } else {
                    json!({"type": "number"})
                };
                let value = if others.is_empty() {
                    number
                } else {
                    json!({"anyOf": [number, {"enum": others}]})
                };
                (vec!["=", "!=", "<", "<=", ">", ">="], value)
            }
        };
        let mut props = Map::new();
        props.insert("variable".into(), json!({"const": v.name.to_string()}));
        props.insert("relation".into(), json!({"enum": relations}));
        props.insert("value".into(), value);
        if let (Some(u), true) = (&v.unit, numeric(&v.sort)) {
            props.insert("unit".into(), json!({"const": u}));
        }
        atoms.push(json!({
            "type": "object",
            "properties": props,
            "required": ["variable", "relation", "value"],
            "additionalProperties": false
        }));
    }
    let atom = json!({"anyOf": atoms});
    let list = json!({"type": "array", "items": {"$ref": "#/$defs/atom"}, "minItems": 1});
    let cond = json!({"anyOf": [
        {"$ref": "#/$defs/atom"},
        {"type": "object", "properties": {"all": list}, "required": ["all"], "additionalProperties": false},
        {"type": "object", "properties": {"any": list}, "required": ["any"], "additionalProperties": false}
    ]});
    let shape = |name: &str, keys: &[&str], optional: &[&str]| {
        let mut props = Map::new();
        props.insert("shape".into(), json!({"const": name}));
        for k in keys.iter().chain(optional) {
            props.insert((*k).into(), json!({"$ref": "#/$defs/cond"}));
        }
        let mut required = vec!["shape"];
        required.extend_from_slice(keys);
        json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
    };
    json!({
        "$defs": {"atom": atom, "cond": cond},
        "anyOf": [
            shape("always", &["always"], &[]),
            shape("never", &["never"], &[]),
            shape("if", &["if", "then"], &["else"]),
            shape("while", &["while", "then"], &[]),
            {
                "type": "object",
                "properties": {
                    "shape": {"const": "cases"},
                    "cases": {
                        "type": "array",
                        "minItems": 2,
                        "items": {
                            "type": "object",
                            "properties": {"if": {"$ref": "#/$defs/cond"}, "then": {"$ref": "#/$defs/cond"}},
                            "required": ["if", "then"],
                            "additionalProperties": false
                        }
                    }
                },
                "required": ["shape", "cases"],
                "additionalProperties": false
            }
        ]
    })
}

/// An exact number from a JSON number (its shortest decimal form, so `8.5` is 17/2).
fn exact(n: &serde_json::Number) -> Option<BigRational> {
    if let Some(i) = n.as_i64() {
        return Some(BigRational::from_integer(BigInt::from(i)));
    }
    if let Some(u) = n.as_u64() {
        return Some(BigRational::from_integer(BigInt::from(u)));
    }
    let f = n.as_f64()?;
    if !f.is_finite() {
        return None;
    }
    decimal(&format!("{f}"))
}

/// A decimal numeral (`-12.25`, `1e3` as written by Rust's float printer) as a rational.
fn decimal(s: &str) -> Option<BigRational> {
    let (mantissa, exp) = match s.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i32>().ok()?),
        None => (s, 0),
    };
    let (neg, m) = match mantissa.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, mantissa),
    };
    let (int, frac) = m.split_once('.').unwrap_or((m, ""));
    let digits: BigInt = format!("{int}{frac}").parse().ok()?;
    let scale = exp - frac.len() as i32;
    let ten = BigInt::from(10);
    let mut r = BigRational::from_integer(digits);
    if scale >= 0 {
        r *= BigRational::from_integer(num_traits::pow(ten, scale as usize));
    } else {
        r /= BigRational::from_integer(num_traits::pow(ten, (-scale) as usize));
    }
    Some(if neg { -r } else { r })
}

impl Form {
    /// Reads a form from a model's JSON answer, checking every choice against `spec`.
    pub fn from_json(spec: &Spec, v: &Value) -> Result<Form, FormError> {
        let obj = v
            .as_object()
            .ok_or_else(|| err("", "a form is a JSON object with a `shape`"))?;
        let shape = obj.get("shape").and_then(Value::as_str).ok_or_else(|| {
            err(
                "shape",
                format!("missing; choose one of {}", SHAPES.join(", ")),
            )
        })?;
        let allowed: &[&str] = match shape {
            "always" => &["shape", "always"],
            "never" => &["shape", "never"],
            "if" => &["shape", "if", "then", "else"],
            "while" => &["shape", "while", "then"],
            "cases" => &["shape", "cases"],
            other => {
                return Err(err(
                    "shape",
                    format!(
                        "`{other}` is not a shape; choose one of {}",
                        SHAPES.join(", ")
                    ),
                ))
            }
        };
        if let Some(extra) = obj.keys().find(|k| !allowed.contains(&k.as_str())) {
            return Err(err(
                extra,
                format!(
                    "the shape `{shape}` has no field `{extra}`; its fields are {}",
                    allowed[1..].join(", ")
                ),
            ));
        }
        let cond = |key: &str| -> Result<Cond, FormError> {
            let c = obj
                .get(key)
                .ok_or_else(|| err(key, format!("missing: the shape `{shape}` needs `{key}`")))?;
            Cond::from_json(spec, c, key)
        };
        Ok(match shape {
            "always" => Form::Always(cond("always")?),
            "never" => Form::Never(cond("never")?),
            "if" | "while" => Form::If {
                word: if shape == "if" {
                    Trigger::If
                } else {
                    Trigger::While
                },
                condition: cond(shape)?,
                then: cond("then")?,
                otherwise: match obj.get("else") {
                    Some(c) => Some(Cond::from_json(spec, c, "else")?),
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
        })
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
            Form::Always(c) => json!({"shape": "always", "always": c.to_json()}),
            Form::Never(c) => json!({"shape": "never", "never": c.to_json()}),
            Form::If {
                word,
                condition,
                then,
                otherwise,
            } => {
                let key = match word {
                    Trigger::If => "if",
                    Trigger::While => "while",
                };
                let mut o = Map::new();
                o.insert("shape".into(), json!(key));
                o.insert(key.into(), condition.to_json());
                o.insert("then".into(), then.to_json());
                if let Some(e) = otherwise {
                    o.insert("else".into(), e.to_json());
                }
                Value::Object(o)
            }
            Form::Cases(cases) => json!({
                "shape": "cases",
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
                "a condition is an atom {\"variable\", \"relation\", \"value\"}, {\"all\": [atoms]} or {\"any\": [atoms]}",
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
                "an atom is {\"variable\": ..., \"relation\": ..., \"value\": ...}",
            )
        })?;
        if let Some(extra) = obj
            .keys()
            .find(|k| !["variable", "relation", "value", "unit"].contains(&k.as_str()))
        {
            return Err(err(
                &format!("{path}.{extra}"),
                "an atom has only `variable`, `relation`, `value` (and `unit` for a number)",
            ));
        }
        let name = obj.get("variable").and_then(Value::as_str).ok_or_else(|| {
            err(
                &format!("{path}.variable"),
                "missing: name a variable of the schema",
            )
        })?;
        let var = spec
            .variables
            .iter()
            .find(|x| &*x.name == name)
            .ok_or_else(|| {
                err(
                    &format!("{path}.variable"),
                    format!("`{name}` is not a variable of the schema"),
                )
            })?;
        let rel_text = obj
            .get("relation")
            .and_then(Value::as_str)
            .ok_or_else(|| err(&format!("{path}.relation"), "missing"))?;
        let relation = Relation::from_word(rel_text).ok_or_else(|| {
            err(
                &format!("{path}.relation"),
                format!("`{rel_text}` is not a relation"),
            )
        })?;
        let value = obj
            .get("value")
            .ok_or_else(|| err(&format!("{path}.value"), "missing"))?;
        let vpath = format!("{path}.value");
        let k = kind(spec, &var.sort).ok_or_else(|| {
            err(
                &format!("{path}.variable"),
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
                        &format!("{path}.relation"),
                        format!("`{name}` is true or false: the relation is `is`, the value true or false"),
                    ));
                }
                Operand::Bool(value.as_bool().ok_or_else(|| {
                    err(&vpath, format!("`{name}` is true or false, not {value}"))
                })?)
            }
            Kind::Enum(values) => {
                if !matches!(relation, Relation::Is | Relation::IsNot) {
                    return Err(err(
                        &format!("{path}.relation"),
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
            Kind::Int | Kind::Real => {
                if matches!(relation, Relation::Is | Relation::IsNot) {
                    return Err(err(
                        &format!("{path}.relation"),
                        format!("`{name}` is a number: use =, !=, <, <=, > or >="),
                    ));
                }
                if let Some(u) = obj.get("unit") {
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
                        if matches!(k, Kind::Int) && !r.is_integer() {
                            return Err(err(
                                &vpath,
                                format!("`{name}` is an integer; {value} is not"),
                            ));
                        }
                        Operand::Number(r)
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
                        Operand::Variable(other.clone())
                    }
                    _ => {
                        return Err(err(
                            &vpath,
                            format!("`{name}` is a number: the value is a number (in its unit) or a numeric variable"),
                        ))
                    }
                }
            }
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
                let rhs = match rhs {
                    Operand::Number(r) => number(r, real),
                    Operand::Variable(o) => o.clone(),
                    _ => unreachable!("Booleans and enumerations are handled above"),
                };
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
        let value = match &self.value {
            Operand::Bool(b) => json!(b),
            Operand::Enum(s) | Operand::Variable(s) => json!(s),
            Operand::Number(r) => {
                if r.is_integer() {
                    json!(r.to_integer().to_string().parse::<i64>().unwrap_or(0))
                } else {
                    json!(number(r, true).parse::<f64>().unwrap_or(f64::NAN))
                }
            }
        };
        json!({"variable": self.variable, "relation": self.relation.word(), "value": value})
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
        let mut d = a.denom().clone();
        let (mut twos, mut fives) = (0u32, 0u32);
        let two = BigInt::from(2);
        let five = BigInt::from(5);
        let zero = BigInt::from(0);
        while &d % &two == zero {
            d /= &two;
            twos += 1;
        }
        while &d % &five == zero {
            d /= &five;
            fives += 1;
        }
        if d == BigInt::from(1) {
            // A finite decimal.
            let digits = twos.max(fives) as usize;
            let scaled = (&a
                * BigRational::from_integer(num_traits::pow(BigInt::from(10), digits)))
            .to_integer()
            .to_string();
            let padded = format!("{scaled:0>width$}", width = digits + 1);
            let (i, f) = padded.split_at(padded.len() - digits);
            format!("{i}.{f}")
        } else {
            format!("(/ {}.0 {}.0)", a.numer(), a.denom())
        }
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
    let mut o = String::new();
    for v in &spec.variables {
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
        let door = json!({"variable": "door_open", "relation": "is", "value": true});
        let stopped = json!({"variable": "mode", "relation": "is", "value": "Stopped"});
        assert_eq!(
            form(json!({"shape": "if", "if": door, "then": stopped})).unwrap(),
            "(=> door_open (= mode Stopped))"
        );
        assert_eq!(
            form(json!({"shape": "while", "while": stopped, "then": {"variable": "rate", "relation": "=", "value": 0}})).unwrap(),
            "(=> (= mode Stopped) (= rate 0.0))"
        );
        assert_eq!(
            form(json!({"shape": "always", "always": {"variable": "rate", "relation": "<=", "value": "max_rate"}})).unwrap(),
            "(<= rate max_rate)"
        );
        assert_eq!(
            form(json!({"shape": "never", "never": {"all": [door, {"variable": "alarm", "relation": "is", "value": false}]}})).unwrap(),
            "(not (and door_open (not alarm)))"
        );
        assert_eq!(
            form(json!({"shape": "if", "if": door, "then": {"variable": "alarm", "relation": "is", "value": true}, "else": {"any": [{"variable": "mode", "relation": "is not", "value": "KVO"}, {"variable": "count", "relation": ">", "value": -3}]}})).unwrap(),
            "(and (=> door_open alarm) (=> (not door_open) (or (not (= mode KVO)) (> count (- 3)))))"
        );
        assert_eq!(
            form(json!({"shape": "cases", "cases": [
                {"if": {"variable": "rate", "relation": ">", "value": 8.5}, "then": {"variable": "alarm", "relation": "is", "value": true}},
                {"if": {"variable": "rate", "relation": "<", "value": 0.25}, "then": {"variable": "mode", "relation": "is", "value": "KVO"}}
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
                form(json!({"shape": "always", "always": {"variable": "count", "relation": rel, "value": 7}})).unwrap(),
                format!("({op} count 7)")
            );
        }
        assert_eq!(
            form(json!({"shape": "always", "always": {"variable": "rate", "relation": "<=", "value": 1, "unit": "mL/h"}})).unwrap(),
            "(<= rate 1.0)"
        );
    }

    #[test]
    fn mistakes_are_located_and_explained() {
        let e = form(json!({"shape": "always", "always": {"variable": "mode", "relation": "is", "value": "Running"}})).unwrap_err();
        assert!(
            e.contains("`always.value`") && e.contains("its values are Stopped, Basal, KVO"),
            "{e}"
        );
        let e = form(json!({"shape": "always", "always": {"variable": "rate", "relation": "<", "value": 5, "unit": "L/h"}})).unwrap_err();
        assert!(
            e.contains("`always.unit`") && e.contains("is in mL/h"),
            "{e}"
        );
        let e = form(json!({"shape": "always", "always": {"variable": "count", "relation": "<", "value": 2.5}})).unwrap_err();
        assert!(e.contains("is an integer"), "{e}");
        let e = form(json!({"shape": "always", "always": {"variable": "door_open", "relation": ">", "value": true}})).unwrap_err();
        assert!(e.contains("relation is `is`"), "{e}");
        let e = form(json!({"shape": "always", "always": {"variable": "speed", "relation": "<", "value": 1}})).unwrap_err();
        assert!(e.contains("`speed` is not a variable"), "{e}");
        // A field that does not apply to the shape.
        let e = form(json!({"shape": "always", "always": {"variable": "alarm", "relation": "is", "value": true}, "then": {"variable": "alarm", "relation": "is", "value": true}})).unwrap_err();
        assert!(e.contains("has no field `then`"), "{e}");
        let e = form(
            json!({"shape": "if", "then": {"variable": "alarm", "relation": "is", "value": true}}),
        )
        .unwrap_err();
        assert!(e.contains("`if`") && e.contains("missing"), "{e}");
        let e = form(json!({"shape": "maybe"})).unwrap_err();
        assert!(e.contains("not a shape"), "{e}");
        let e = form(json!({"shape": "always", "always": {"all": []}})).unwrap_err();
        assert!(e.contains("empty"), "{e}");
        let e = form(json!({"shape": "always", "always": {"variable": "rate", "relation": "<", "value": "alarm"}})).unwrap_err();
        assert!(e.contains("`alarm` is not a number"), "{e}");
    }

    #[test]
    fn numbers_are_exact() {
        assert_eq!(number(&decimal("8.5").unwrap(), true), "8.5");
        assert_eq!(number(&decimal("0.1").unwrap(), true), "0.1");
        assert_eq!(number(&decimal("-0.05").unwrap(), true), "(- 0.05)");
        assert_eq!(number(&decimal("1e3").unwrap(), false), "1000");
        assert_eq!(
            number(&BigRational::new(BigInt::from(1), BigInt::from(3)), true),
            "(/ 1.0 3.0)"
        );
    }

    #[test]
    fn a_form_survives_its_json() {
        let s = spec();
        let v = json!({"shape": "if", "if": {"all": [{"variable": "door_open", "relation": "is", "value": true}, {"variable": "rate", "relation": ">=", "value": 2.5}]}, "then": {"variable": "mode", "relation": "is", "value": "Stopped"}});
        let f = Form::from_json(&s, &v).unwrap();
        assert_eq!(Form::from_json(&s, &f.to_json()).unwrap(), f);
    }

    #[test]
    fn the_schema_accepts_forms_and_refuses_misfits() {
        let s = spec();
        let schema = answer_schema(&s);
        let ok = json!({"shape": "if", "if": {"variable": "door_open", "relation": "is", "value": true}, "then": {"all": [{"variable": "mode", "relation": "is", "value": "Stopped"}, {"variable": "rate", "relation": "=", "value": 0, "unit": "mL/h"}]}});
        llm::jsonschema::validate(&schema, &ok).unwrap();
        for bad in [
            json!({"shape": "always", "always": {"variable": "mode", "relation": "is", "value": "Running"}}),
            json!({"shape": "always", "then": {"variable": "alarm", "relation": "is", "value": true}}),
            json!({"shape": "if", "if": {"variable": "alarm", "relation": "<", "value": true}, "then": {"variable": "alarm", "relation": "is", "value": true}}),
        ] {
            assert!(llm::jsonschema::validate(&schema, &bad).is_err(), "{bad}");
        }
    }
}

//! FRET requirements: an array of requirements as FRET exports them, or a project
//! export (`{"requirements": [...], "variables": [...]}`). Each requirement's `reqid` is
//! its id, its `rationale` its text when present (else its `fulltext`), and `fulltext`
//! is kept as the FRETish sentence.

use crate::{one_line, Confidence, ExtractError, Extraction, Requirement, Source, Variable};
use serde_json::Value;

pub(crate) fn extract(file: &str, text: &str, x: &mut Extraction) -> Result<(), ExtractError> {
    let v: Value = serde_json::from_str(text).map_err(|e| ExtractError::Syntax {
        file: file.into(),
        line: e.line() as u32,
        column: e.column() as u32,
        message: format!("not valid JSON: {e}")
            .replace(&format!(" at line {} column {}", e.line(), e.column()), ""),
    })?;
    let shape = |m: &str| ExtractError::Shape {
        file: file.into(),
        message: m.into(),
    };
    let (reqs, vars) = match &v {
        Value::Array(a) => (a.as_slice(), &[][..]),
        Value::Object(o) => {
            let reqs = o
                .get("requirements")
                .or_else(|| o.get("docs"))
                .and_then(Value::as_array)
                .ok_or_else(|| shape("a FRET file is an array of requirements or an object with a \"requirements\" array"))?;
            let vars = o
                .get("variables")
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice);
            (reqs.as_slice(), vars)
        }
        _ => return Err(shape(
            "a FRET file is an array of requirements or an object with a \"requirements\" array",
        )),
    };
    for (i, r) in reqs.iter().enumerate() {
        let record = i as u32 + 1;
        let bad = |m: String| ExtractError::Record {
            file: file.into(),
            record,
            message: m,
        };
        let o = r
            .as_object()
            .ok_or_else(|| bad("a requirement is a JSON object".into()))?;
        let field = |k: &str| -> Result<Option<String>, ExtractError> {
            match o.get(k) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(bad(format!("\"{k}\" is not a string"))),
            }
        };
        let id = field("reqid")?.ok_or_else(|| bad("no \"reqid\"".into()))?;
        let fulltext = field("fulltext")?;
        let rationale = field("rationale")?;
        let Some(text) = rationale.clone().or_else(|| fulltext.clone()) else {
            return Err(bad(format!(
                "requirement {id} has neither \"rationale\" nor \"fulltext\""
            )));
        };
        x.requirements.push(Requirement {
            id: one_line(&id),
            text: one_line(&text),
            section: field("parent_reqid")?.map(|p| one_line(&p)),
            kind: None,
            confidence: Confidence::High,
            source: Source {
                file: file.into(),
                line: None,
                record: Some(record),
            },
            fretish: fulltext.map(|f| one_line(&f)),
            formalization: None,
        });
    }
    // Records without a variable name (FRET's model documents: a Simulink model's
    // declarations) are not variables; they are skipped and named in a note.
    let mut model_documents = Vec::new();
    for (i, v) in vars.iter().enumerate() {
        let Some(o) = v.as_object() else {
            return Err(ExtractError::Record {
                file: file.into(),
                record: i as u32 + 1,
                message: "a variable is a JSON object".into(),
            });
        };
        let s = |k: &str| {
            o.get(k)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        let Some(name) = s("variable_name").or_else(|| s("name")) else {
            model_documents.push((i + 1).to_string());
            continue;
        };
        x.variables.push(Variable {
            name,
            data_type: s("dataType"),
            role: s("idType"),
            description: s("description"),
        });
    }
    if !model_documents.is_empty() {
        x.notes.push(format!(
            "{} variable record(s) without a variable_name (model documents) are not read: \
             records {} of \"variables\"",
            model_documents.len(),
            model_documents.join(", ")
        ));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// FRETish import: a FRET export as a vera timed spec (docs/extract.md, the mapping in
// src/fretish.rs).

use crate::fretish::{self, Flags, Sentence, Smt, Sort, Sym, Timed};
use crate::timed_spec::{Doc, Lines, ReqOut, SpecOut, TimeOut, VarOut};
use std::collections::{BTreeMap, HashMap};

/// A problem at a position of a FRET export (1-based line and column, in characters, of
/// the JSON file; line 0 when the problem has no place in the file, e.g. a bad tick).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, thiserror::Error)]
#[error("{}", shown(self))]
pub struct FretError {
    /// The file name as given.
    pub file: String,
    /// Line.
    pub line: u32,
    /// Column.
    pub column: u32,
    /// The requirement (its `reqid`) the problem is in, if any.
    pub requirement: Option<String>,
    /// What is wrong.
    pub message: String,
}

fn shown(e: &FretError) -> String {
    let place = if e.line == 0 {
        format!("{}:", e.file)
    } else {
        format!("{}:{}:{}:", e.file, e.line, e.column)
    };
    match &e.requirement {
        Some(r) => format!("{place} {r}: {}", e.message),
        None => format!("{place} {}", e.message),
    }
}

/// How [`fret_to_spec`] reads an export.
#[derive(Debug, Clone, Copy, Default)]
pub struct FretOptions<'a> {
    /// How long one FRET time point is (`"1 s"` when `None`): the spec's tick.
    pub tick: Option<&'a str>,
    /// Import the requirements that can be imported and list the others in
    /// [`FretImport::refused`], instead of refusing the file.
    pub skip_refused: bool,
}

/// One requirement of the export, as read.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FretRead {
    /// Its id (renamed `id~2` when repeated).
    pub id: String,
    /// FRET's key of the sentence as vera parsed it (`scope,condition,timing`, e.g.
    /// `null,regular,within`), when it parsed.
    pub key: Option<String>,
    /// The key FRET recorded in the export (`semantics`), when there is one
    /// (`noTrigger`, an older name of a holding condition, is written `holding`).
    pub fret_key: Option<String>,
    /// Whether it is in the spec.
    pub imported: bool,
}

/// What [`fret_to_spec`] made of a FRET export.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FretImport {
    /// The spec in vera's timed TOML format (docs/timed.md).
    pub toml: String,
    /// How many requirements it has.
    pub requirements: usize,
    /// How many variables it declares.
    pub variables: usize,
    /// What a person should know about the reading.
    pub notes: Vec<String>,
    /// The requirements left out (with [`FretOptions::skip_refused`]), their problems.
    pub refused: Vec<FretError>,
    /// Every requirement of the export, in order.
    pub read: Vec<FretRead>,
}

/// Byte positions in the JSON text: each requirement object's start and its
/// `fulltext` string's content span.
#[derive(Debug, Clone, Default)]
struct Spans {
    reqs: Vec<(usize, Option<(usize, usize)>)>,
    docs: Vec<(usize, Option<(usize, usize)>)>,
}

#[derive(Clone, Copy, PartialEq)]
enum Role {
    Root,
    Reqs(bool),
    Req(bool),
    Other,
}

/// A lenient scan of JSON that serde_json has accepted already.
struct Scan<'a> {
    b: &'a [u8],
    i: usize,
    out: Spans,
}

impl Scan<'_> {
    fn ws(&mut self) {
        while self.i < self.b.len() && self.b[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    /// A string at `i` (the quote): its content span.
    fn string(&mut self) -> (usize, usize) {
        let s = self.i + 1;
        let mut j = s;
        while j < self.b.len() && self.b[j] != b'"' {
            j += if self.b[j] == b'\\' { 2 } else { 1 };
        }
        let e = j.min(self.b.len());
        self.i = (j + 1).min(self.b.len());
        (s, e)
    }

    fn value(&mut self, role: Role, depth: usize) {
        self.ws();
        if depth > 200 || self.i >= self.b.len() {
            self.i = self.b.len();
            return;
        }
        match self.b[self.i] {
            b'{' => {
                self.i += 1;
                loop {
                    self.ws();
                    if self.i >= self.b.len() || self.b[self.i] == b'}' {
                        self.i += 1;
                        return;
                    }
                    if self.b[self.i] == b',' {
                        self.i += 1;
                        continue;
                    }
                    let (ks, ke) = self.string();
                    let key = &self.b[ks..ke];
                    self.ws();
                    if self.i < self.b.len() && self.b[self.i] == b':' {
                        self.i += 1;
                    }
                    self.ws();
                    let child = match role {
                        Role::Root if key == b"requirements" => Role::Reqs(true),
                        Role::Root if key == b"docs" => Role::Reqs(false),
                        Role::Req(which)
                            if key == b"fulltext"
                                && self.i < self.b.len()
                                && self.b[self.i] == b'"' =>
                        {
                            let span = self.string();
                            let list = if which {
                                &mut self.out.reqs
                            } else {
                                &mut self.out.docs
                            };
                            if let Some(last) = list.last_mut() {
                                last.1 = Some(span);
                            }
                            continue;
                        }
                        _ => Role::Other,
                    };
                    self.value(child, depth + 1);
                }
            }
            b'[' => {
                self.i += 1;
                let elems = match role {
                    Role::Root => Role::Req(true),
                    Role::Reqs(w) => Role::Req(w),
                    _ => Role::Other,
                };
                loop {
                    self.ws();
                    if self.i >= self.b.len() || self.b[self.i] == b']' {
                        self.i += 1;
                        return;
                    }
                    if self.b[self.i] == b',' {
                        self.i += 1;
                        continue;
                    }
                    if let Role::Req(w) = elems {
                        let list = if w {
                            &mut self.out.reqs
                        } else {
                            &mut self.out.docs
                        };
                        list.push((self.i, None));
                        if self.b[self.i] != b'{' {
                            self.value(Role::Other, depth + 1);
                            continue;
                        }
                    }
                    self.value(elems, depth + 1);
                }
            }
            b'"' => {
                self.string();
            }
            _ => {
                while self.i < self.b.len() && !b",]} \t\r\n".contains(&self.b[self.i]) {
                    self.i += 1;
                }
            }
        }
    }
}

/// For each byte of the decoded string, the offset of the raw JSON text it comes from.
fn decoded_offsets(raw: &str, start: usize) -> Vec<usize> {
    let b = raw.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 1 < b.len() {
            let n = if b[i + 1] == b'u' {
                let hex = |k: usize| {
                    raw.get(k..k + 4)
                        .and_then(|h| u32::from_str_radix(h, 16).ok())
                };
                let mut cp = hex(i + 2).unwrap_or(0xFFFD);
                let mut len = 6;
                if (0xD800..0xDC00).contains(&cp) && raw.get(i + 6..i + 8) == Some("\\u") {
                    if let Some(lo) = hex(i + 8) {
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo.wrapping_sub(0xDC00) & 0x3FF);
                        len = 12;
                    }
                }
                let c = char::from_u32(cp).unwrap_or('\u{FFFD}');
                for _ in 0..c.len_utf8() {
                    out.push(start + i);
                }
                len
            } else {
                out.push(start + i);
                2
            };
            i += n;
        } else {
            out.push(start + i);
            i += 1;
        }
    }
    out.push(start + b.len());
    out
}

/// `"1 s"`, `"100 ms"`, `"2 min"`, `"1 h"`: the tick, normalized, or why not.
fn check_tick(s: &str) -> Result<String, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (n, unit) = (&t[..split], t[split..].trim());
    let number_ok = {
        let (i, f) = n.split_once('.').unwrap_or((n, "0"));
        !i.is_empty()
            && !f.is_empty()
            && i.bytes().chain(f.bytes()).all(|b| b.is_ascii_digit())
            && n.len() <= 18
    };
    let unit_ok = matches!(
        unit,
        "ms" | "msec"
            | "millisecond"
            | "milliseconds"
            | "s"
            | "sec"
            | "secs"
            | "second"
            | "seconds"
            | "min"
            | "mins"
            | "minute"
            | "minutes"
            | "h"
            | "hr"
            | "hour"
            | "hours"
    );
    if !number_ok || !unit_ok {
        return Err(format!(
            "the tick \"{s}\" is not a duration: write a number and a unit (ms, s, min, h), \
             e.g. \"100 ms\""
        ));
    }
    if n.bytes().all(|b| b == b'0' || b == b'.') {
        return Err(format!("the tick \"{s}\" is zero"));
    }
    Ok(format!("{n} {unit}"))
}

/// A glossary entry's sort from FRET's `dataType`.
fn sort_of(data_type: &str) -> Option<Sort> {
    let d = data_type.trim().to_ascii_lowercase();
    Some(match d.as_str() {
        "boolean" | "bool" => Sort::Bool,
        "integer" | "int" | "unsigned integer" => Sort::Int,
        "double" | "single" | "float" | "real" => Sort::Real,
        _ if (d.starts_with("int") || d.starts_with("uint"))
            && d.trim_start_matches('u')
                .trim_start_matches("int")
                .parse::<u32>()
                .is_ok() =>
        {
            Sort::Int
        }
        _ => return None,
    })
}

/// A literal assignment (`2.0`, `-1`, `true`): its text, if it is one.
fn literal(a: &str, sort: Sort) -> Option<String> {
    let a = a.trim();
    match sort {
        Sort::Bool => match a.to_ascii_lowercase().as_str() {
            "true" | "false" => Some(a.to_ascii_lowercase()),
            _ => None,
        },
        _ => {
            let (neg, digits) = match a.strip_prefix('-') {
                Some(d) => (true, d.trim()),
                None => (false, a),
            };
            let (i, f) = digits.split_once('.').unwrap_or((digits, "0"));
            let ok = !i.is_empty()
                && !f.is_empty()
                && i.bytes().chain(f.bytes()).all(|b| b.is_ascii_digit())
                && digits.len() <= 18;
            if !ok || (sort == Sort::Int && digits.contains('.')) {
                return None;
            }
            Some(format!("{}{digits}", if neg { "-" } else { "" }))
        }
    }
}

/// SMT-LIB's reserved words and operator names: not usable as variable names.
const RESERVED: &[&str] = &[
    "and", "or", "not", "xor", "ite", "distinct", "div", "mod", "abs", "let", "forall", "exists",
    "true", "false", "to_real", "to_int", "is_int", "as", "par", "_", "match",
];

/// The variables of a FRET export's glossary: what each name is (a variable of a sort,
/// a constant, a defined name, a mode), its role where the glossary says it, the names
/// without a data type, the records that cannot be read, and a note on records without
/// a name.
struct Glossary {
    syms: HashMap<String, Sym>,
    declared: HashMap<String, Option<&'static str>>,
    untyped: Vec<String>,
    errors: Vec<FretError>,
    note: Option<String>,
}

/// Reads the glossary records `vars` (`whole` makes an error about the whole file).
fn glossary(vars: &[Value], whole: &dyn Fn(String) -> FretError) -> Glossary {
    let mut errors = Vec::new();
    let mut syms: HashMap<String, Sym> = HashMap::new();
    let mut declared: HashMap<String, Option<&'static str>> = HashMap::new();
    let mut untyped = Vec::new();
    let mut skipped_records = 0;
    let mut modes: Vec<(String, String)> = Vec::new();
    for o in vars.iter().filter_map(Value::as_object) {
        let s = |k: &str| {
            o.get(k)
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|s| !s.is_empty())
        };
        let Some(name) = s("variable_name").or_else(|| s("name")) else {
            skipped_records += 1;
            continue;
        };
        let data_type = s("dataType").or_else(|| {
            o.get("dataType")
                .and_then(Value::as_array)
                .and_then(|a| a.iter().find_map(Value::as_str))
        });
        let id_type = s("idType").map(str::to_ascii_lowercase);
        let role = match id_type.as_deref() {
            Some("input") => Some("input"),
            Some("output") => Some("output"),
            _ => None,
        };
        if syms.contains_key(name) {
            continue;
        }
        if id_type.as_deref() == Some("mode") {
            if let Some(m) = s("modeRequirement") {
                modes.push((name.to_string(), m.to_string()));
                declared.insert(name.to_string(), None);
                continue;
            }
        }
        let Some(dt) = data_type else {
            declared.entry(name.to_string()).or_insert(role);
            if !untyped.iter().any(|u| u == name) {
                untyped.push(name.to_string());
            }
            continue;
        };
        let Some(sort) = sort_of(dt) else {
            errors.push(whole(format!(
                "variable {name}: data type \"{dt}\" is not imported (boolean, integer and \
                 double/single are)"
            )));
            continue;
        };
        untyped.retain(|u| u != name);
        declared.insert(name.to_string(), role);
        let assignment = s("assignment");
        let sym = match (id_type.as_deref(), assignment) {
            (Some("internal"), Some(a)) => match literal(a, sort) {
                Some(val) => Sym::Const(sort, val),
                None => Sym::Defined(a.to_string()),
            },
            _ => Sym::Var(sort),
        };
        syms.insert(name.to_string(), sym);
    }
    for (name, m) in &modes {
        match fretish::parse_expr(m) {
            Ok(e) => {
                syms.insert(name.clone(), Sym::Mode(Box::new(e)));
            }
            Err((_, msg)) => errors.push(whole(format!(
                "mode {name}: its modeRequirement \"{m}\" is not read: {msg}"
            ))),
        }
    }
    let note = (skipped_records > 0).then(|| {
        format!(
            "{skipped_records} variable record(s) without a variable_name (model documents) \
             are not read"
        )
    });
    Glossary {
        syms,
        declared,
        untyped,
        errors,
        note,
    }
}

/// Turns a FRET export (an array of requirements or `{"requirements": [...],
/// "variables": [...]}`) into a vera timed spec, reading each requirement's FRETish
/// `fulltext` (the mapping is documented in `src/fretish.rs`). Every problem of the file
/// is returned at once; with [`FretOptions::skip_refused`], a requirement vera cannot
/// import is listed in [`FretImport::refused`] and the others are imported.
pub fn fret_to_spec(
    file: &str,
    text: &str,
    opts: &FretOptions<'_>,
) -> Result<FretImport, Vec<FretError>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let place = Place {
        file,
        lines: Lines::new(text),
    };
    let whole = |message: String| place.whole(message);
    let tick = match check_tick(opts.tick.unwrap_or("1 s")) {
        Ok(t) => t,
        Err(m) => return Err(vec![whole(m)]),
    };
    let v: Value = serde_json::from_str(text).map_err(|e| {
        vec![FretError {
            file: file.into(),
            line: e.line() as u32,
            column: e.column() as u32,
            requirement: None,
            message: format!("not valid JSON: {e}")
                .replace(&format!(" at line {} column {}", e.line(), e.column()), ""),
        }]
    })?;
    let Some((reqs, vars, from_docs)) = records(&v) else {
        return Err(vec![whole(
            "a FRET file is an array of requirements or an object with a \"requirements\" array"
                .into(),
        )]);
    };
    let mut scan = Scan {
        b: text.as_bytes(),
        i: 0,
        out: Spans::default(),
    };
    scan.value(Role::Root, 0);
    let spans = if from_docs {
        scan.out.docs
    } else {
        scan.out.reqs
    };
    let mut notes = Vec::new();
    let mut g = glossary(vars, &whole);
    let mut file_errors = std::mem::take(&mut g.errors);
    notes.extend(g.note.take());
    let mut ones = read_requirements(reqs, &spans, text, &place, &mut file_errors, &mut notes);
    if !file_errors.is_empty() {
        return Err(file_errors);
    }
    let (inferred, inferred_names) = infer_sorts(&mut ones, &g);
    let mut lowered = Lowered::default();
    for one in &mut ones {
        lowered.add(one, &g.syms, &inferred, &place);
    }
    if !lowered.errors.is_empty() && !opts.skip_refused {
        return Err(lowered.errors);
    }
    lowered.notes(&inferred_names, &inferred, &g.untyped, &mut notes);
    let variables = variables_out(&lowered.used_vars, &g, &inferred);
    let stem = std::path::Path::new(file)
        .file_stem()
        .map_or_else(|| file.to_string(), |s| s.to_string_lossy().into_owned());
    let doc = Doc {
        spec: SpecOut { name: stem },
        time: TimeOut {
            tick: tick.clone(),
            semantics: None,
            durations: BTreeMap::new(),
        },
        variables,
        requirements: lowered.out_reqs,
    };
    let body =
        toml::to_string(&doc).map_err(|e| vec![whole(format!("cannot write the TOML: {e}"))])?;
    let shown_name: String = file
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let toml = format!(
        "# Imported from the FRET export {shown_name} (vera extract, FRETish import).\n\
         # FRET ignores time units: one FRET time point is one tick (tick = {tick}).\n\n{body}"
    );
    let (requirements, variables) = (doc.requirements.len(), doc.variables.len());
    Ok(FretImport {
        toml,
        requirements,
        variables,
        notes,
        refused: lowered.errors,
        read: lowered.read,
    })
}

/// The file being imported, to place errors in it.
struct Place<'a> {
    file: &'a str,
    lines: Lines<'a>,
}

impl Place<'_> {
    /// An error at byte `pos` of the file, about requirement `req` if given.
    fn at(&self, pos: usize, req: Option<&str>, message: String) -> FretError {
        let (line, column) = self.lines.at(pos);
        FretError {
            file: self.file.into(),
            line,
            column,
            requirement: req.map(str::to_string),
            message,
        }
    }

    /// An error about the whole file.
    fn whole(&self, message: String) -> FretError {
        FretError {
            file: self.file.into(),
            line: 0,
            column: 0,
            requirement: None,
            message,
        }
    }
}

/// The requirement records, the glossary records and whether the records are a model
/// document's `docs`; `None` when the file has neither shape.
fn records(v: &Value) -> Option<(&[Value], &[Value], bool)> {
    match v {
        Value::Array(a) => Some((a.as_slice(), &[][..], false)),
        Value::Object(o) => {
            let (r, docs) = match o.get("requirements").and_then(Value::as_array) {
                Some(r) => (r, false),
                None => (o.get("docs").and_then(Value::as_array)?, true),
            };
            let vars = o
                .get("variables")
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice);
            Some((r.as_slice(), vars, docs))
        }
        _ => None,
    }
}

/// One requirement of the export as read.
struct One {
    id: String,
    text: String,
    /// Where the fulltext's decoded bytes come from in the JSON text.
    map: Vec<usize>,
    record_at: usize,
    sentence: Option<Sentence>,
    errors: Vec<(usize, String)>,
    fret_key: Option<String>,
}

/// Reads every requirement record and parses its FRETish; records that cannot be read
/// go to `file_errors`, renamed duplicate ids to `notes`.
fn read_requirements(
    reqs: &[Value],
    spans: &[(usize, Option<(usize, usize)>)],
    text: &str,
    place: &Place,
    file_errors: &mut Vec<FretError>,
    notes: &mut Vec<String>,
) -> Vec<One> {
    let mut ones: Vec<One> = Vec::new();
    let mut seen: HashMap<String, u32> = HashMap::new();
    for (k, r) in reqs.iter().enumerate() {
        let (record_at, span) = spans.get(k).copied().unwrap_or((0, None));
        let Some(o) = r.as_object() else {
            file_errors.push(place.at(record_at, None, "a requirement is a JSON object".into()));
            continue;
        };
        let str_of = |k: &str| {
            o.get(k)
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|s| !s.is_empty())
        };
        // A key that is there with another type is said so, not taken for missing.
        let not_string = |k: &str| {
            o.get(k)
                .filter(|v| !v.is_string() && !v.is_null())
                .map(|v| format!("\"{k}\" is {v}, not a string"))
        };
        let Some(mut id) = str_of("reqid").map(crate::one_line) else {
            let msg =
                not_string("reqid").unwrap_or_else(|| "a requirement without a \"reqid\"".into());
            file_errors.push(place.at(record_at, None, msg));
            continue;
        };
        let n = seen.entry(id.clone()).or_insert(0);
        *n += 1;
        if *n > 1 {
            let new = format!("{id}~{n}");
            notes.push(format!("id {id} appears again; renamed {new}"));
            id = new;
        }
        let fret_key = o.get("semantics").and_then(Value::as_object).and_then(|s| {
            let scope = s.get("scope")?.get("type")?.as_str()?;
            let cond = s.get("condition")?.as_str()?;
            let timing = s.get("timing")?.as_str()?;
            let cond = if cond == "noTrigger" { "holding" } else { cond };
            Some(format!("{scope},{cond},{timing}"))
        });
        let full = o.get("fulltext").and_then(Value::as_str).unwrap_or("");
        let map = match span {
            Some((s, e)) => decoded_offsets(&text[s..e], s),
            None => vec![record_at; full.len() + 1],
        };
        let mut one = One {
            id,
            text: crate::one_line(full),
            map,
            record_at,
            sentence: None,
            errors: Vec::new(),
            fret_key,
        };
        if let Some(msg) = not_string("fulltext") {
            one.errors.push((usize::MAX, msg));
        } else if full.trim().is_empty() {
            one.errors
                .push((usize::MAX, "no \"fulltext\": nothing to import".into()));
        } else {
            match fretish::parse(full) {
                Ok(s) => one.sentence = Some(s),
                Err(e) => one.errors.push(e),
            }
        }
        ones.push(one);
    }
    ones
}

/// Checks the names against the glossary (when the export has one) and infers the
/// sorts of the others over the whole file; returns the inferred sorts and the sorted
/// names the glossary does not declare. Errors go to their requirement.
fn infer_sorts(ones: &mut [One], g: &Glossary) -> (HashMap<String, Sort>, Vec<String>) {
    let glossary = !g.declared.is_empty();
    let mut infer = fretish::Infer::default();
    for (k, one) in ones.iter_mut().enumerate() {
        let Some(s) = &one.sentence else { continue };
        let mut exprs: Vec<&fretish::Expr> = vec![&s.response];
        exprs.extend(s.scope.expr.as_ref());
        exprs.extend(s.cond.as_ref().map(|c| &c.expr));
        if let fretish::Timing::Until(e) | fretish::Timing::Before(e) = &s.timing {
            exprs.push(e);
        }
        if glossary {
            let mut ns = Vec::new();
            for e in &exprs {
                fretish::names(e, &mut ns);
            }
            for (n, off) in ns {
                if n != "FTP" && !g.declared.contains_key(&n) && !g.syms.contains_key(&n) {
                    one.errors.push((
                        off,
                        format!("undeclared variable {n} (the export's variables do not list it)"),
                    ));
                }
            }
        }
        infer.cur = k;
        for e in exprs {
            infer.walk_bool(e, &g.syms, 0);
        }
    }
    let (inferred, infer_errors) = infer.resolve();
    for (k, e) in infer_errors {
        if let Some(one) = ones.get_mut(k) {
            one.errors.push(e);
        }
    }
    let mut inferred_names: Vec<String> = inferred
        .keys()
        .filter(|n| !g.declared.contains_key(*n))
        .cloned()
        .collect();
    inferred_names.sort();
    (inferred, inferred_names)
}

/// The requirements mapped to timed requirements, with what the notes need.
#[derive(Default)]
struct Lowered {
    out_reqs: Vec<ReqOut<Timed>>,
    /// The variables used, in order of first use.
    used_vars: Vec<String>,
    /// The constants replaced by their values, in order of first use.
    consts: Vec<String>,
    /// The errors of the requirements not imported.
    errors: Vec<FretError>,
    read: Vec<FretRead>,
    /// Requirements whose obligation vera keeps to the end of its interval.
    scope_end: Vec<String>,
    /// Requirements with a `before` timing.
    before: Vec<String>,
    /// Requirements with a duration in time units.
    unit: Vec<String>,
}

impl Lowered {
    /// Maps one requirement (unless it has errors already) and records it as read,
    /// imported or not.
    fn add(
        &mut self,
        one: &mut One,
        syms: &HashMap<String, Sym>,
        inferred: &HashMap<String, Sort>,
        place: &Place,
    ) {
        let timed = match &one.sentence {
            Some(s) if one.errors.is_empty() => self.lower(s, &one.id, syms, inferred),
            _ => Ok(None),
        };
        let timed = match timed {
            Ok(t) => t,
            Err(es) => {
                one.errors.extend(es);
                None
            }
        };
        one.errors.sort();
        one.errors.dedup();
        for (off, m) in &one.errors {
            let pos = if *off == usize::MAX {
                one.record_at
            } else {
                one.map.get(*off).copied().unwrap_or(one.record_at)
            };
            self.errors.push(place.at(pos, Some(&one.id), m.clone()));
        }
        self.read.push(FretRead {
            id: one.id.clone(),
            key: one.sentence.as_ref().map(Sentence::key),
            fret_key: one.fret_key.clone(),
            imported: timed.is_some(),
        });
        if let Some(t) = timed {
            self.out_reqs.push(ReqOut {
                id: one.id.clone(),
                text: one.text.clone(),
                timed: t,
            });
        }
    }

    /// Lowers the sentence of requirement `id`, recording the names it uses and the
    /// flags it raises; the errors when it cannot be lowered.
    fn lower(
        &mut self,
        s: &Sentence,
        id: &str,
        syms: &HashMap<String, Sym>,
        inferred: &HashMap<String, Sort>,
    ) -> Result<Option<Timed>, Vec<(usize, String)>> {
        let mut smt = Smt {
            syms,
            inferred,
            consts_used: Vec::new(),
            vars_used: Vec::new(),
        };
        let mut flags = Flags::default();
        let t = fretish::lower(s, &mut smt, 0, &mut flags)?;
        let bad: Vec<String> = smt
            .vars_used
            .iter()
            .filter(|v| RESERVED.contains(&v.as_str()))
            .cloned()
            .collect();
        if !bad.is_empty() {
            return Err(vec![(
                0,
                format!(
                    "{} is not usable as an SMT-LIB variable name (reserved)",
                    bad.join(", ")
                ),
            )]);
        }
        for v in smt.vars_used {
            if !self.used_vars.contains(&v) {
                self.used_vars.push(v);
            }
        }
        for c in smt.consts_used {
            if !self.consts.contains(&c) {
                self.consts.push(c);
            }
        }
        for (raised, ids) in [
            (flags.scope_end, &mut self.scope_end),
            (flags.before, &mut self.before),
            (flags.unit, &mut self.unit),
        ] {
            if raised {
                ids.push(id.to_string());
            }
        }
        Ok(Some(t))
    }

    /// The notes on the import: inferred sorts, replaced constants, where vera's reading
    /// differs from FRET's, and what was not imported.
    fn notes(
        &self,
        inferred_names: &[String],
        inferred: &HashMap<String, Sort>,
        untyped: &[String],
        notes: &mut Vec<String>,
    ) {
        let used_vars = &self.used_vars;
        let used_inferred: Vec<String> = inferred_names
            .iter()
            .filter(|n| used_vars.contains(n) && !untyped.contains(n))
            .map(|n| format!("{n}: {}", inferred[n].name()))
            .collect();
        if !used_inferred.is_empty() {
            notes.push(format!(
                "sorts inferred from use (the export does not give them): {}",
                used_inferred.join(", ")
            ));
        }
        let used_untyped: Vec<String> = untyped
            .iter()
            .filter(|n| used_vars.contains(n))
            .map(|n| format!("{n}: {}", inferred.get(n).map_or("?", |s| s.name())))
            .collect();
        if !used_untyped.is_empty() {
            notes.push(format!(
                "variables listed without a data type, their sort inferred from use: {}",
                used_untyped.join(", ")
            ));
        }
        if !self.consts.is_empty() {
            notes.push(format!(
                "internal variables with a literal assignment replaced by their values: {}",
                self.consts.join(", ")
            ));
        }
        if !self.scope_end.is_empty() {
            notes.push(format!(
                "{}: in a mode or before-scope, FRET drops an obligation when its interval ends; \
                 vera keeps it to its end (stricter when the interval closes first)",
                self.scope_end.join(", ")
            ));
        }
        if !self.before.is_empty() {
            notes.push(format!(
                "{}: \"before C\" also fails in FRET when C holds at the trigger itself; vera looks \
                 for C after the trigger only",
                self.before.join(", ")
            ));
        }
        if !self.unit.is_empty() {
            notes.push(format!(
                "{}: FRET ignores time units; a duration of N (seconds, ...) is N time points, N \
                 ticks here",
                self.unit.join(", ")
            ));
        }
        if !self.errors.is_empty() {
            notes.push(format!(
                "{} requirement(s) not imported: {}",
                self.read.iter().filter(|r| !r.imported).count(),
                self.read
                    .iter()
                    .filter(|r| !r.imported)
                    .map(|r| r.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if self.out_reqs.is_empty() {
            notes.push("no requirement imported".into());
        }
    }
}

/// The spec's variables: each variable used, by name, with its declared or inferred
/// sort and its role from the glossary (defined names are left out).
fn variables_out(
    used_vars: &[String],
    g: &Glossary,
    inferred: &HashMap<String, Sort>,
) -> Vec<VarOut> {
    let mut variables: Vec<VarOut> = Vec::new();
    let mut sorted = used_vars.to_vec();
    sorted.sort();
    for v in sorted {
        let sort = match g.syms.get(&v) {
            Some(Sym::Var(s)) => *s,
            Some(Sym::Defined(_)) => continue,
            _ => match inferred.get(&v) {
                Some(s) => *s,
                None => continue,
            },
        };
        variables.push(VarOut {
            name: v.clone(),
            sort: sort.name(),
            role: g.declared.get(&v).copied().flatten(),
        });
    }
    variables
}

//! Loading requirement specs (TOML, and CSV requirement lists over a TOML schema).
//!
//! Loading reports every problem it finds at once, each located in the file; formulas
//! are checked by the term layer, and errors inside a formula point into the formula.

use logic::context::Context;
use logic::source::{Diagnostic, Diagnostics, Severity, SourceFile, Span};
use logic::{Op, Sort, Symbol, Term};
use num_rational::BigRational;
use num_traits::Zero;
use serde::Deserialize;
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use toml::Spanned;

/// A typed state variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variable {
    /// Its name, as used in formulas.
    pub name: Symbol,
    /// Its sort.
    pub sort: Sort,
    /// Physical unit, for reports.
    pub unit: Option<String>,
    /// What it means.
    pub description: Option<String>,
    /// Inclusive lower bound.
    pub min: Option<BigRational>,
    /// Inclusive upper bound.
    pub max: Option<BigRational>,
    /// Who chooses its value: the environment (an input) or the system (an output).
    /// `None` when the spec does not say.
    pub role: Option<Role>,
}

/// Who chooses a variable's value, for the realizability audit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Chosen by the environment: sensors, switches, settings, operator actions.
    Input,
    /// Chosen by the system: actuators, alarms, displays, derived states.
    Output,
}

/// A domain constraint: part of C, true in every state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Constraint {
    /// Its id (`D1`, or `rate.min` for a variable bound).
    pub id: String,
    /// Its text, if given.
    pub text: Option<String>,
    /// The formula.
    pub formula: Term,
    /// One-based line in the spec file (0 for generated bounds of variables without one).
    pub line: usize,
}

/// The shape of a requirement formula.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shape {
    /// `(=> trigger response)`.
    Conditional {
        /// When the requirement applies.
        trigger: Term,
        /// What it then demands.
        response: Term,
    },
    /// Anything else: must hold always.
    Invariant,
}

/// One requirement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requirement {
    /// Its id.
    pub id: String,
    /// Its text, as written by the user.
    pub text: String,
    /// Its formula, if formalized.
    pub formula: Option<Term>,
    /// The formula's shape.
    pub shape: Shape,
    /// One-based line in the spec file.
    pub line: usize,
    /// Who wrote the formula: a person (the default) or a language model
    /// (`origin = "model"`), and whether a person accepted it after review
    /// (`accepted = true`). A model's formula counts as reviewed only once accepted.
    pub origin: Origin,
    /// Its timed pattern, for a timed requirement (docs/timed.md); then `formula` is
    /// `None` and the plain audits do not see it.
    pub timed: Option<crate::timed::Pattern>,
    /// Its pattern of Hanfor's catalog, for a requirement of a spec read in dense time
    /// (docs/timed.md, "Dense time"); then `formula` and `timed` are `None`.
    pub dense: Option<crate::timed::dense::DensePattern>,
}

/// Who wrote a requirement's formula.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Origin {
    /// Written by a person.
    #[default]
    Hand,
    /// Proposed by a language model, not yet reviewed.
    Model,
    /// Proposed by a language model and accepted by a person.
    ModelAccepted,
}

impl Requirement {
    /// True when the formula was written or accepted by a person: only such formulas
    /// serve as worked examples for a language model.
    pub fn reviewed(&self) -> bool {
        self.formula.is_some() && self.origin != Origin::Model
    }

    /// The trigger (true for invariants).
    pub fn trigger(&self) -> Term {
        match &self.shape {
            Shape::Conditional { trigger, .. } => trigger.clone(),
            Shape::Invariant => Term::Bool(true),
        }
    }

    /// What violates the requirement once triggered: `not response` (or `not formula`).
    pub fn violation(&self) -> Option<Term> {
        match &self.shape {
            Shape::Conditional { response, .. } => Some(Term::not(response.clone())),
            Shape::Invariant => self.formula.clone().map(Term::not),
        }
    }

    /// True for conditional requirements.
    pub fn is_conditional(&self) -> bool {
        matches!(self.shape, Shape::Conditional { .. })
    }
}

/// Splits `(=> p q)` into trigger and response; `(=> a b c)` is `(=> (and a b) c)`.
pub fn shape_of(t: &Term) -> Shape {
    match t {
        Term::App(Op::Implies, args) if args.len() >= 2 => {
            let (response, premises) = args.split_last().expect("two or more");
            let trigger = if premises.len() == 1 {
                premises[0].clone()
            } else {
                Term::App(Op::And, premises.to_vec())
            };
            Shape::Conditional {
                trigger,
                response: response.clone(),
            }
        }
        Term::Named(inner, _) => shape_of(inner),
        _ => Shape::Invariant,
    }
}

/// A loaded, checked spec.
#[derive(Debug, Clone)]
pub struct Spec {
    /// Its name.
    pub name: String,
    /// The SMT-LIB logic its formulas live in.
    pub logic: String,
    /// Enumerations: name and values.
    pub enums: Vec<(Symbol, Vec<Symbol>)>,
    /// The schema's variables.
    pub variables: Vec<Variable>,
    /// Domain constraints C, including variable bounds.
    pub domain: Vec<Constraint>,
    /// Requirements, formalized or not, in file order.
    pub requirements: Vec<Requirement>,
    /// Declarations of the schema, for parsing more terms (scenarios, claims).
    pub context: Context,
    /// The time base, for a spec of timed requirements (a `[time]` table).
    pub time: Option<crate::timed::TimeBase>,
    /// Warnings found while loading.
    pub warnings: Diagnostics,
    /// The file it came from.
    pub source: SourceFile,
    /// People's reviews of findings (`[[reviews]]`): records for the people who read
    /// the audit, which the audits themselves do not use.
    pub reviews: Vec<Review>,
}

/// A person's review of a finding about a requirement (a `[[reviews]]` table), e.g. a
/// redundancy kept on purpose.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Review {
    /// The requirement's id.
    pub requirement: String,
    /// The finding reviewed: one of [`REVIEWABLE`].
    pub finding: String,
    /// Why it stays as it is.
    pub reason: String,
    /// Who reviewed it.
    pub reviewed_by: String,
    /// When (`YYYY-MM-DD`).
    pub date: String,
    /// One-based line of the table in the spec file.
    pub line: usize,
}

/// The findings a `[[reviews]]` table may name.
pub const REVIEWABLE: [&str; 3] = ["redundant", "vacuous", "not-violatable"];

impl Spec {
    /// The variable named `name`.
    pub fn variable(&self, name: &str) -> Option<&Variable> {
        self.variables.iter().find(|v| &*v.name == name)
    }

    /// Requirements that have a formula.
    pub fn formalized(&self) -> impl Iterator<Item = &Requirement> {
        self.requirements.iter().filter(|r| r.formula.is_some())
    }

    /// Parses a formula (a scenario or claim) against the schema.
    pub fn parse_formula(&self, what: &str, text: &str) -> Result<Term, Diagnostics> {
        logic::parse_formula(&SourceFile::new(what, text), &self.context)
    }
}

// ------------------------------------------------------------------ raw TOML

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSpec {
    spec: Option<RawHeader>,
    #[serde(default)]
    enums: Vec<RawEnum>,
    #[serde(default)]
    variables: Vec<RawVariable>,
    #[serde(default)]
    domain: Vec<RawItem>,
    #[serde(default)]
    requirements: Vec<RawRequirement>,
    time: Option<RawTime>,
    #[serde(default)]
    reviews: Vec<RawReview>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawReview {
    requirement: Spanned<String>,
    finding: Spanned<String>,
    reason: Spanned<String>,
    reviewed_by: Spanned<String>,
    date: Spanned<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTime {
    tick: Spanned<String>,
    horizon: Option<Spanned<String>>,
    semantics: Option<Spanned<String>>,
    #[serde(default)]
    durations: std::collections::BTreeMap<String, Spanned<String>>,
}

/// The `[requirements.timed]` table (docs/timed.md).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawTimed {
    scope_while: Option<Spanned<String>>,
    scope_after: Option<Spanned<String>>,
    scope_until: Option<Spanned<String>>,
    scope_before: Option<Spanned<String>>,
    #[serde(rename = "if")]
    if_: Option<Spanned<String>>,
    when: Option<Spanned<String>>,
    initially: Option<Spanned<bool>>,
    held_for: Option<Spanned<String>>,
    within_last: Option<Spanned<String>>,
    then: Option<Spanned<String>>,
    next: Option<Spanned<bool>>,
    within: Option<Spanned<String>>,
    #[serde(rename = "for")]
    for_: Option<Spanned<String>>,
    not_before: Option<Spanned<String>>,
    until: Option<Spanned<String>>,
    before: Option<Spanned<String>>,
    /// Dense time: a pattern of Hanfor's catalog, with its formulas and durations.
    pattern: Option<Spanned<String>>,
    scope_between: Option<Spanned<String>>,
    scope_and: Option<Spanned<String>>,
    #[serde(rename = "R")]
    r: Option<Spanned<String>>,
    #[serde(rename = "S")]
    s: Option<Spanned<String>>,
    #[serde(rename = "T")]
    t: Option<Spanned<String>>,
    #[serde(rename = "U")]
    u: Option<Spanned<String>>,
    c1: Option<Spanned<String>>,
    c2: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRequirement {
    id: Spanned<String>,
    text: Option<String>,
    formula: Option<Spanned<String>>,
    origin: Option<Spanned<String>>,
    accepted: Option<bool>,
    timed: Option<Spanned<RawTimed>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHeader {
    name: Option<String>,
    logic: Option<Spanned<String>>,
    /// Free text about the spec; not used by the audits.
    #[allow(dead_code)]
    description: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEnum {
    name: Spanned<String>,
    values: Vec<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawVariable {
    name: Spanned<String>,
    sort: Spanned<String>,
    unit: Option<String>,
    description: Option<String>,
    min: Option<Spanned<toml::Value>>,
    max: Option<Spanned<toml::Value>>,
    role: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawItem {
    id: Spanned<String>,
    text: Option<String>,
    formula: Option<Spanned<String>>,
}

/// Whether `s` is a calendar date written `YYYY-MM-DD`: a month 1-12 and a day that
/// month has in that year (February 29 in leap years only). The one date check of a
/// review's date and of an accepted exception's (the review page's writer).
pub fn is_calendar_date(s: &str) -> bool {
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    if b.len() != 10
        || b[4] != b'-'
        || b[7] != b'-'
        || !digits(0..4)
        || !digits(5..7)
        || !digits(8..10)
    {
        return false;
    }
    let num = |r: std::ops::Range<usize>| s[r].parse::<u32>().unwrap_or(0);
    let (y, m, d) = (num(0..4), num(5..7), num(8..10));
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d)
}

/// Why a spec could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read (missing, too large, not UTF-8 text, ...).
    #[error("{0}")]
    Read(#[from] safefile::SafeFileError),
    /// The file has problems, all listed.
    #[error("{0}")]
    Invalid(Diagnostics),
}

/// Reads and checks a TOML spec file.
pub fn load(path: &std::path::Path) -> Result<Spec, LoadError> {
    let text = safefile::read_text(path)?;
    parse_spec(SourceFile::new(path.display().to_string(), text)).map_err(LoadError::Invalid)
}

/// Checks a TOML spec held in memory.
pub fn parse_spec(file: SourceFile) -> Result<Spec, Diagnostics> {
    let raw: RawSpec = read_toml(
        &file,
        Some("see docs/spec-format.md for the fields of each table"),
    )?;
    Loader::new(&file).load(raw, None)
}

/// Reads the TOML text of `file`; what does not read (TOML syntax, or a table that does
/// not fit `T`) is one diagnostic located in the file, with `hint` when one is given.
pub(crate) fn read_toml<T: serde::de::DeserializeOwned>(
    file: &SourceFile,
    hint: Option<&str>,
) -> Result<T, Diagnostics> {
    toml::from_str(file.text()).map_err(|e| {
        let span = e
            .span()
            .map(|r| Span::new(r.start, r.end))
            .unwrap_or_default();
        let d = Diagnostic::error(span, e.message().to_string());
        file.locate_all(&[match hint {
            Some(h) => d.with_hint(h),
            None => d,
        }])
    })
}

/// Reads requirements from a CSV over the schema (enums, variables, domain) of a TOML
/// spec, finding the id, text and formula columns by the names in the header row (see
/// [`CsvColumns`]). The schema's own requirements are not used.
pub fn load_csv(
    csv_path: &std::path::Path,
    schema_path: &std::path::Path,
) -> Result<Spec, LoadError> {
    load_csv_with(csv_path, schema_path, &CsvColumns::default())
}

/// [`load_csv`] with some columns named explicitly.
pub fn load_csv_with(
    csv_path: &std::path::Path,
    schema_path: &std::path::Path,
    columns: &CsvColumns,
) -> Result<Spec, LoadError> {
    let schema_text = safefile::read_text(schema_path)?;
    let csv_text = safefile::read_text(csv_path)?;
    let schema_file = SourceFile::new(schema_path.display().to_string(), schema_text);
    let csv_file = SourceFile::new(csv_path.display().to_string(), csv_text);
    parse_csv_with(schema_file, &csv_file, columns).map_err(LoadError::Invalid)
}

/// Which header names hold what in a requirements CSV. A role left `None` is recognized
/// from the header row: see [`CSV_ID_NAMES`], [`CSV_TEXT_NAMES`], [`CSV_FORMULA_NAMES`]
/// and [`CSV_TYPE_NAMES`]. Parsed from `id=ReqID,text=Body,formula=SMT,type=Kind` (the
/// form of the command line's `--csv-columns`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CsvColumns {
    /// The column of requirement ids.
    pub id: Option<String>,
    /// The column of requirement texts.
    pub text: Option<String>,
    /// The column of SMT-LIB formulas.
    pub formula: Option<String>,
    /// The column that says what kind of row it is (rows saying `Heading`,
    /// `Information`, ... are skipped).
    pub kind: Option<String>,
}

impl std::str::FromStr for CsvColumns {
    type Err = String;

    fn from_str(s: &str) -> Result<CsvColumns, String> {
        let mut c = CsvColumns::default();
        for part in s.split(',').filter(|p| !p.trim().is_empty()) {
            let Some((role, column)) = part.split_once('=') else {
                return Err(format!(
                    "`{}` is not ROLE=COLUMN (roles: id, text, formula, type)",
                    part.trim()
                ));
            };
            let (role, column) = (role.trim().to_ascii_lowercase(), column.trim());
            if column.is_empty() {
                return Err(format!("`{}` names no column", part.trim()));
            }
            let slot = match role.as_str() {
                "id" => &mut c.id,
                "text" => &mut c.text,
                "formula" => &mut c.formula,
                "type" => &mut c.kind,
                other => {
                    return Err(format!(
                        "unknown role `{other}` (roles: id, text, formula, type)"
                    ))
                }
            };
            if slot.is_some() {
                return Err(format!("the {role} column is given twice"));
            }
            *slot = Some(column.to_string());
        }
        if c == CsvColumns::default() {
            return Err("give at least one ROLE=COLUMN, e.g. id=ReqID,text=Body".into());
        }
        Ok(c)
    }
}

/// Header names read as the id column, best first, compared in lower case with
/// everything but letters and digits removed (`Req ID`, `req_id` and `REQID` are one).
pub const CSV_ID_NAMES: &[&str] = &[
    "id",
    "reqid",
    "requirementid",
    "requirementidentifier",
    "identifier",
    "objectidentifier",
    "objectid",
    "key",
];
/// Header names read as the text column, best first (`Description` is Hanfor's,
/// `Object Text` DOORS').
pub const CSV_TEXT_NAMES: &[&str] = &[
    "text",
    "requirementtext",
    "reqtext",
    "objecttext",
    "description",
    "requirement",
    "requirementdescription",
    "statement",
];
/// Header names read as the formula column (SMT-LIB terms over the schema), best first.
/// Hanfor's `Formal Text` is its own pattern notation, not SMT-LIB, and is not read.
pub const CSV_FORMULA_NAMES: &[&str] = &[
    "formula",
    "smt",
    "smtlib",
    "smtlib2",
    "smt2",
    "smtformula",
    "smtlibformula",
];
/// Header names read as the row-type column, best first.
pub const CSV_TYPE_NAMES: &[&str] = &[
    "type",
    "objecttype",
    "requirementtype",
    "reqtype",
    "artifacttype",
    "kind",
];
/// Header names of a DOORS heading column: a row with a heading and no text is a
/// section heading, not a requirement.
const CSV_HEADING_NAMES: &[&str] = &["objectheading", "heading"];
/// Values of the type column that mark a row as not a requirement (normalized like
/// header names).
pub const CSV_SKIPPED_TYPES: &[&str] = &[
    "heading",
    "header",
    "title",
    "section",
    "chapter",
    "information",
    "info",
    "informative",
    "comment",
    "note",
    "caption",
];

/// Lower case, letters and digits only: how header names and type values are compared.
fn csv_norm(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// A header cell as shown in a message: trimmed, control characters as spaces.
fn csv_shown(s: &str) -> String {
    let s: String = s
        .trim()
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if s.chars().count() > 40 {
        format!("{}...", s.chars().take(37).collect::<String>())
    } else {
        s
    }
}

/// The flag that names columns, for hints.
const CSV_MAPPING_HINT: &str = "name the columns id, text and formula (Hanfor's ID,Description and DOORS' ID,Object Text are recognized too; see docs/spec-format.md), or say which they are: --csv-columns id=COLUMN,text=COLUMN[,formula=COLUMN]";

/// Where the id, text, formula, type and heading are in the rows of one CSV.
struct CsvLayout {
    id: usize,
    text: usize,
    formula: Option<usize>,
    kind: Option<usize>,
    heading: Option<usize>,
}

/// Finds one role's column: the mapped name if given (an error when no header has it),
/// else the first recognized name. Other recognized candidates are noted.
fn csv_column(
    headers: &csv::StringRecord,
    mapped: Option<&str>,
    names: &[&str],
    role: &str,
    notes: &mut Vec<String>,
) -> Result<Option<usize>, String> {
    if let Some(m) = mapped {
        let exact = headers
            .iter()
            .position(|h| h.trim().eq_ignore_ascii_case(m));
        let loose = || {
            let n = csv_norm(m);
            (!n.is_empty())
                .then(|| headers.iter().position(|h| csv_norm(h) == n))
                .flatten()
        };
        return exact.or_else(loose).map(Some).ok_or_else(|| {
            format!(
                "--csv-columns names `{}` as the {role} column",
                csv_shown(m)
            )
        });
    }
    let norms: Vec<String> = headers.iter().map(csv_norm).collect();
    let mut found: Vec<usize> = Vec::new();
    for name in names {
        found.extend(
            norms
                .iter()
                .enumerate()
                .filter(|(i, n)| n.as_str() == *name && !found.contains(i))
                .map(|(i, _)| i)
                .collect::<Vec<_>>(),
        );
    }
    if found.len() > 1 {
        let others: Vec<String> = found[1..]
            .iter()
            .map(|&i| format!("`{}`", csv_shown(&headers[i])))
            .collect();
        notes.push(format!(
            "the {role} is read from column `{}`; {} also looks like one (choose with --csv-columns {role}=COLUMN)",
            csv_shown(&headers[found[0]]),
            others.join(", ")
        ));
    }
    Ok(found.first().copied())
}

/// [`load_csv`] on text held in memory.
pub fn parse_csv(schema: SourceFile, csv_file: &SourceFile) -> Result<Spec, Diagnostics> {
    parse_csv_with(schema, csv_file, &CsvColumns::default())
}

/// [`load_csv_with`] on text held in memory.
pub fn parse_csv_with(
    schema: SourceFile,
    csv_file: &SourceFile,
    columns: &CsvColumns,
) -> Result<Spec, Diagnostics> {
    let mut raw: RawSpec = read_toml(&schema, None)?;
    raw.requirements.clear();
    let diags = quote_problems(csv_file.text());
    if !diags.is_empty() {
        // The reader would silently read past the broken quote; report it alone.
        return Err(csv_file.locate_all(&diags));
    }
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(csv_file.text().as_bytes());
    let mut layout: Option<(CsvLayout, csv::StringRecord)> = None;
    let mut read = CsvRead {
        csv_file,
        rows: Vec::new(),
        skipped: Vec::new(),
        headings: Vec::new(),
        first_skip: None,
        diags,
    };
    let text = csv_file.text().as_bytes();
    for rec in reader.records() {
        let rec = match rec {
            Ok(r) => r,
            Err(e) => {
                let off = e.position().map_or(0, |p| p.byte() as usize);
                read.diags.push(Diagnostic::error(
                    Span::new(off, off + 1),
                    format!("bad CSV row: {e}"),
                ));
                continue;
            }
        };
        // The reader reports a record's position before the previous row's line
        // terminator; the row itself starts after it.
        let mut off = rec.position().map_or(0, |p| p.byte() as usize);
        while off < text.len() && matches!(text[off], b'\r' | b'\n') {
            off += 1;
        }
        if rec.iter().all(|c| c.trim().is_empty()) {
            continue;
        }
        match &layout {
            Some((lay, headers)) => read.row(lay, headers, &rec, off),
            // The first row names the columns.
            None => {
                let lay = csv_layout(csv_file, columns, &rec, off, &mut read.diags)?;
                layout = Some((lay, rec));
            }
        }
    }
    if let Some((lay, headers)) = &layout {
        if let Some(note) = read.skipped_note(lay, headers) {
            read.diags.push(note);
        }
    }
    let shape = csv_file.locate_all(&read.diags);
    let loaded = Loader::new(&schema).load(raw, Some((csv_file, read.rows)));
    match loaded {
        Ok(mut spec) if !shape.has_errors() => {
            let rest = std::mem::take(&mut spec.warnings.0);
            spec.warnings.0 = shape.0.into_iter().chain(rest).collect();
            Ok(spec)
        }
        Ok(spec) => Err(Diagnostics(
            shape.0.into_iter().chain(spec.warnings.0).collect(),
        )),
        Err(more) => Err(Diagnostics(shape.0.into_iter().chain(more.0).collect())),
    }
}

/// The layout of a requirements CSV from its header row `rec` (at offset `off`): the
/// mapped or recognized columns of each role; notes on other candidates go to
/// `diags`, and a header that does not tell the ids and texts apart is an error.
fn csv_layout(
    csv_file: &SourceFile,
    columns: &CsvColumns,
    rec: &csv::StringRecord,
    off: usize,
    diags: &mut Vec<Diagnostic>,
) -> Result<CsvLayout, Diagnostics> {
    let mut notes = Vec::new();
    let header_line_end = csv_file.text()[off..]
        .find('\n')
        .map_or(csv_file.text().len(), |n| off + n);
    let span = Span::new(off, header_line_end.max(off + 1));
    let found = || {
        rec.iter()
            .take(20)
            .map(|h| format!("`{}`", csv_shown(h)))
            .collect::<Vec<_>>()
            .join(", ")
            + if rec.len() > 20 { ", ..." } else { "" }
    };
    let mut find = |mapped: &Option<String>, names: &[&str], role: &str| {
        csv_column(rec, mapped.as_deref(), names, role, &mut notes)
    };
    let resolved = (
        find(&columns.id, CSV_ID_NAMES, "id"),
        find(&columns.text, CSV_TEXT_NAMES, "text"),
        find(&columns.formula, CSV_FORMULA_NAMES, "formula"),
        find(&columns.kind, CSV_TYPE_NAMES, "type"),
        find(&None, CSV_HEADING_NAMES, "heading"),
    );
    let (id, txt, formula, kind, heading) = match resolved {
        (Ok(a), Ok(b), Ok(c), Ok(d), Ok(e)) => (a, b, c, d, e),
        (a, b, c, d, e) => {
            let why: Vec<String> = [a, b, c, d, e]
                .into_iter()
                .filter_map(Result::err)
                .collect();
            return Err(csv_file.locate_all(&[Diagnostic::error(
                span,
                format!("{}, but the header row has {}", why.join("; "), found()),
            )
            .with_hint(CSV_MAPPING_HINT)]));
        }
    };
    let (Some(id), Some(txt)) = (id, txt) else {
        let missing = match (id, txt) {
            (None, None) => "requirement ids and texts",
            (None, _) => "requirement ids",
            _ => "requirement texts",
        };
        return Err(csv_file.locate_all(&[Diagnostic::error(
            span,
            format!(
                "cannot tell which columns hold the {missing}: the first row should name the columns, and it has {}",
                found()
            ),
        )
        .with_hint(CSV_MAPPING_HINT)]));
    };
    let same = [("text", Some(txt)), ("formula", formula)]
        .into_iter()
        .find(|(_, c)| *c == Some(id))
        .map(|(role, _)| role);
    if let Some(role) = same {
        return Err(csv_file.locate_all(&[Diagnostic::error(
            span,
            format!(
                "the id and the {role} would both be read from column `{}`",
                csv_shown(&rec[id])
            ),
        )
        .with_hint(CSV_MAPPING_HINT)]));
    }
    if formula.is_none() && columns.formula.is_none() {
        if let Some(ft) = rec.iter().find(|h| csv_norm(h) == "formaltext") {
            notes.push(format!(
                "column `{}` is not read: formulas are SMT-LIB terms, and Hanfor's formal text is its own notation (if this column holds SMT-LIB, add --csv-columns formula=\"{}\")",
                csv_shown(ft),
                csv_shown(ft)
            ));
        }
    }
    for n in notes {
        diags.push(Diagnostic::note(span, n));
    }
    Ok(CsvLayout {
        id,
        text: txt,
        formula,
        kind,
        heading,
    })
}

/// What reading the rows of a requirements CSV collects: the requirement rows (offset
/// with id, text and formula), the rows skipped for their type (type value -> lines)
/// and as headings (lines), where the first skipped row is, and the problems.
struct CsvRead<'a> {
    csv_file: &'a SourceFile,
    rows: Vec<(usize, csv::StringRecord)>,
    skipped: Vec<(String, Vec<usize>)>,
    headings: Vec<usize>,
    first_skip: Option<usize>,
    diags: Vec<Diagnostic>,
}

impl CsvRead<'_> {
    /// Reads the row `rec` (at offset `off`) after the header row `headers`: a
    /// requirement, a row skipped for its type or as a heading, or a row too short.
    fn row(
        &mut self,
        lay: &CsvLayout,
        headers: &csv::StringRecord,
        rec: &csv::StringRecord,
        off: usize,
    ) {
        let csv_file = self.csv_file;
        let cell = |i: usize| rec.get(i).unwrap_or("").trim();
        let line = csv_file.line_col(off).0;
        if let Some(k) = lay.kind {
            let kind = csv_norm(cell(k));
            if CSV_SKIPPED_TYPES.contains(&kind.as_str()) {
                let shown = csv_shown(cell(k));
                match self.skipped.iter_mut().find(|(v, _)| *v == shown) {
                    Some((_, lines)) => lines.push(line),
                    None => self.skipped.push((shown, vec![line])),
                }
                self.first_skip.get_or_insert(off);
                return;
            }
        }
        if let Some(h) = lay.heading {
            if cell(lay.text).is_empty() && !cell(h).is_empty() {
                self.headings.push(line);
                self.first_skip.get_or_insert(off);
                return;
            }
        }
        let need = lay.id.max(lay.text);
        if rec.len() <= need {
            let name = if rec.len() <= lay.id {
                &headers[lay.id]
            } else {
                &headers[lay.text]
            };
            self.diags.push(
                Diagnostic::error(
                    Span::new(off, off + 1),
                    format!(
                        "this row has {} field(s), so no `{}` column",
                        rec.len(),
                        csv_shown(name)
                    ),
                )
                .with_hint(format!(
                    "the header row has {} columns; fill the missing cells (an empty cell needs its comma)",
                    headers.len()
                )),
            );
            return;
        }
        // Point at the id cell when it is not the first one.
        let id = cell(lay.id);
        let mut at = off;
        if lay.id > 0 && !id.is_empty() {
            let row_end = csv_file.text()[off..]
                .find('\n')
                .map_or(csv_file.text().len(), |n| off + n);
            if let Some(i) = csv_file.text()[off..row_end].find(id) {
                at = off + i;
            }
        }
        let formula = lay.formula.map_or("", cell);
        self.rows.push((
            at,
            csv::StringRecord::from(vec![id, cell(lay.text), formula]),
        ));
    }

    /// The note that lists the rows skipped as not requirements, when there are any.
    fn skipped_note(&self, lay: &CsvLayout, headers: &csv::StringRecord) -> Option<Diagnostic> {
        let at = self.first_skip?;
        let lines = |ls: &[usize]| {
            let mut s: Vec<String> = ls.iter().take(12).map(|l| l.to_string()).collect();
            if ls.len() > 12 {
                s.push(format!("... ({} in all)", ls.len()));
            }
            format!(
                "line{} {}",
                if ls.len() == 1 { "" } else { "s" },
                s.join(", ")
            )
        };
        let mut parts: Vec<String> = Vec::new();
        if let Some(k) = lay.kind {
            for (value, ls) in &self.skipped {
                parts.push(format!(
                    "{} row(s) whose `{}` is `{value}` ({})",
                    ls.len(),
                    csv_shown(&headers[k]),
                    lines(ls)
                ));
            }
        }
        if let Some(h) = lay.heading {
            if !self.headings.is_empty() {
                parts.push(format!(
                    "{} heading row(s) with an `{}` and no text ({})",
                    self.headings.len(),
                    csv_shown(&headers[h]),
                    lines(&self.headings)
                ));
            }
        }
        Some(
            Diagnostic::note(
                Span::new(at, at + 1),
                format!("skipped as not requirements: {}", parts.join("; ")),
            )
            .with_hint(
                "rows are skipped when their type says Heading, Information, Title, Comment, ... (see docs/spec-format.md)",
            ),
        )
    }
}

/// Quotes the CSV reader would accept silently but that swallow rows: a quoted field
/// still open at the end of the file, and a quoted field that runs over a line break into
/// what looks like the next row (a line starting with an id like the row's own, then a
/// comma).
fn quote_problems(text: &str) -> Vec<Diagnostic> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line_start = 0;
    let mut at_field_start = true;
    while i < b.len() {
        match b[i] {
            b'"' if at_field_start => {
                let open = i;
                // The row's id: the first field of this line.
                let row = &text[line_start..open];
                let id = row.split(',').next().unwrap_or("").trim();
                let prefix: String = id.chars().take_while(|c| c.is_ascii_alphabetic()).collect();
                i += 1;
                let mut closed = false;
                while i < b.len() {
                    if b[i] == b'"' {
                        if b.get(i + 1) == Some(&b'"') {
                            i += 2;
                            continue;
                        }
                        closed = true;
                        break;
                    }
                    if b[i] == b'\n' && !prefix.is_empty() {
                        let next = &text[i + 1..];
                        let first = next.split(',').next().unwrap_or("");
                        let looks_like_row = next.contains(',')
                            && !first.contains('\n')
                            && first.starts_with(&prefix)
                            && first.len() <= 40
                            && first.chars().any(|c| c.is_ascii_digit())
                            && first
                                .chars()
                                .all(|c| c.is_ascii_alphanumeric() || "-_.()".contains(c));
                        if looks_like_row {
                            out.push(
                                Diagnostic::error(
                                    Span::new(open, open + 1),
                                    format!(
                                        "this quote is not closed on its line, so the field swallows the row `{}` below",
                                        first.trim()
                                    ),
                                )
                                .with_hint("close the quote; a quote inside a quoted text is written twice (\"\")"),
                            );
                            return out;
                        }
                    }
                    i += 1;
                }
                if !closed {
                    out.push(
                        Diagnostic::error(
                            Span::new(open, open + 1),
                            "unterminated quote: this field runs to the end of the file",
                        )
                        .with_hint(
                            "close the quote; a quote inside a quoted text is written twice (\"\")",
                        ),
                    );
                    return out;
                }
                i += 1;
                at_field_start = false;
                continue;
            }
            b',' => at_field_start = true,
            b'\n' => {
                at_field_start = true;
                line_start = i + 1;
            }
            b'\r' => {}
            _ => at_field_start = false,
        }
        i += 1;
    }
    out
}

/// The first control character (line break, escape, ...) in `s`, if any.
fn control_char(s: &str) -> Option<char> {
    s.chars().find(|c| c.is_control())
}

/// An id with a control character: it could forge report lines or terminal escapes.
fn bad_id(span: Span, c: char) -> Diagnostic {
    Diagnostic::error(
        span,
        format!("an id may not contain control characters (found {c:?})"),
    )
    .with_hint("ids appear in reports and on terminals; use letters, digits and - _ .")
}

/// A problem with a well-sorted formula that the solver would not report.
struct FormulaProblem {
    error: bool,
    message: String,
    hint: &'static str,
}

impl FormulaProblem {
    fn diagnostic(&self, span: Span) -> Diagnostic {
        let d = if self.error {
            Diagnostic::error(span, self.message.clone())
        } else {
            Diagnostic::warning(span, self.message.clone())
        };
        d.with_hint(self.hint)
    }
}

/// Prepares an elaborated spec formula for the audits: `(! t :named n)` annotations are
/// dropped (the requirement's id names it; a name would be declared twice once the audit
/// negates the formula), a division by the literal zero is an error (SMT-LIB leaves its
/// value unspecified, so no model of it can be checked), and a division by a term that
/// can be zero is a warning.
fn settle_formula(t: Term) -> (Term, Vec<FormulaProblem>) {
    fn walk(t: Term, out: &mut Vec<FormulaProblem>) -> Term {
        match t {
            Term::Named(inner, _) => walk(*inner, out),
            Term::App(op, args) => {
                let args: Vec<Term> = args.into_iter().map(|a| walk(a, out)).collect();
                if matches!(op, Op::Div | Op::IntDiv | Op::Mod) && args.len() >= 2 {
                    for d in &args[1..] {
                        let zero = match d {
                            Term::Int(i) => i.is_zero(),
                            Term::Real(r) => r.is_zero(),
                            _ => false,
                        };
                        let printed = logic::print::term(&Term::App(op, args.clone()));
                        if zero {
                            out.push(FormulaProblem {
                                error: true,
                                message: format!("division by zero in `{printed}`"),
                                hint: "SMT-LIB leaves the value of a division by zero unspecified; rewrite the formula without it",
                            });
                        } else if !matches!(d, Term::Int(_) | Term::Real(_)) {
                            out.push(FormulaProblem {
                                error: false,
                                message: format!("`{printed}` divides by a term that may be zero"),
                                hint: "SMT-LIB leaves the value of a division by zero unspecified; guard it, e.g. (=> (not (= d 0)) ...)",
                            });
                        }
                    }
                }
                Term::App(op, args)
            }
            Term::Call(f, args, sort) => {
                Term::Call(f, args.into_iter().map(|a| walk(a, out)).collect(), sort)
            }
            Term::Let(bs, body) => Term::Let(
                bs.into_iter().map(|(n, v)| (n, walk(v, out))).collect(),
                Box::new(walk(*body, out)),
            ),
            other => other,
        }
    }
    let mut out = Vec::new();
    let t = walk(t, &mut out);
    (t, out)
}

// ------------------------------------------------------------------ checking

pub(crate) struct Loader<'a> {
    file: &'a SourceFile,
    pub(crate) diags: Vec<Diagnostic>,
    /// Diagnostics located in a second file (the CSV), already rendered.
    extra: Vec<logic::Located>,
}

fn sp<T>(s: &Spanned<T>) -> Span {
    let r = s.span();
    Span::new(r.start, r.end)
}

impl<'a> Loader<'a> {
    pub(crate) fn new(file: &'a SourceFile) -> Loader<'a> {
        Loader {
            file,
            diags: Vec::new(),
            extra: Vec::new(),
        }
    }

    fn line(&self, span: Span) -> usize {
        self.file.line_col(span.start).0
    }

    /// Where the text of a TOML string starts, when the raw form maps one-to-one to the value.
    fn string_offset(&self, s: &Spanned<String>) -> Option<usize> {
        let span = sp(s);
        let raw = self.file.slice(span);
        let (open, close) = if raw.starts_with("\"\"\"") || raw.starts_with("'''") {
            (3, 3)
        } else if raw.starts_with('"') || raw.starts_with('\'') {
            (1, 1)
        } else {
            return None;
        };
        if raw.len() < open + close {
            return None;
        }
        let mut start = span.start + open;
        let mut inner = &raw[open..raw.len() - close];
        if open == 3 {
            if let Some(rest) = inner.strip_prefix('\n') {
                inner = rest;
                start += 1;
            }
        }
        (inner == s.get_ref().as_str()).then_some(start)
    }

    /// Parses a formula written in the spec; errors point into the formula when possible.
    fn formula(&mut self, s: &Spanned<String>, ctx: &Context) -> Option<Term> {
        match logic::script::elaborate_formula(s.get_ref(), ctx) {
            Ok(t) => {
                let (t, problems) = settle_formula(t);
                let span = self
                    .string_offset(s)
                    .map_or(sp(s), |b| Span::new(b, b + s.get_ref().len()));
                let mut ok = true;
                for p in problems {
                    ok &= !p.error;
                    self.diags.push(p.diagnostic(span));
                }
                ok.then_some(t)
            }
            Err(ds) => {
                let base = self.string_offset(s);
                for d in ds {
                    let span = match base {
                        Some(b) => Span::new(b + d.span.start, b + d.span.end),
                        None => sp(s),
                    };
                    self.diags.push(Diagnostic { span, ..d });
                }
                None
            }
        }
    }

    fn number(&mut self, v: &Spanned<toml::Value>, what: &str) -> Option<BigRational> {
        let raw = self.file.slice(sp(v)).trim().replace('_', "");
        let parsed = match v.get_ref() {
            toml::Value::Integer(i) => Some(BigRational::from_integer((*i).into())),
            toml::Value::Float(_) => decimal_text(&raw),
            _ => None,
        };
        if parsed.is_none() {
            self.diags.push(
                Diagnostic::error(sp(v), format!("`{what}` must be a number"))
                    .with_hint("write e.g. min = 0 or max = 12.5"),
            );
        }
        parsed
    }

    fn load(
        mut self,
        raw: RawSpec,
        csv: Option<(&SourceFile, Vec<(usize, csv::StringRecord)>)>,
    ) -> Result<Spec, Diagnostics> {
        let mut ctx = Context::new();
        let enums = self.enums(&raw, &mut ctx);
        let (variables, bounds) = self.variables(&raw, &mut ctx, &enums);
        let logic_name = self.logic(&raw, &mut ctx, &variables, &enums);
        let mut ids: HashMap<String, Span> = HashMap::new();
        let domain = self.domain(&raw, &ctx, &mut ids, bounds);
        let time = raw.time.as_ref().and_then(|t| self.time_base(t));
        let mut requirements = self.requirements(&raw, &ctx, time.as_ref(), &mut ids);
        if let Some((csv_file, rows)) = csv {
            self.csv_requirements(csv_file, rows, &ctx, &ids, &mut requirements);
        }
        self.unused_variables(&raw, &ctx, &domain, &requirements);
        let reviews = self.reviews(&raw, &requirements);
        self.diags.sort_by_key(|d| d.span.start);
        let mut all = self.file.locate_all(&self.diags);
        all.0.extend(self.extra);
        if all.0.iter().any(|d| d.severity == Severity::Error) {
            return Err(all);
        }
        Ok(Spec {
            name: raw
                .spec
                .as_ref()
                .and_then(|h| h.name.clone())
                .unwrap_or_else(|| self.file.name().to_string()),
            logic: logic_name,
            enums,
            variables,
            domain,
            requirements,
            context: ctx,
            time,
            warnings: all,
            source: self.file.clone(),
            reviews,
        })
    }

    /// The `[[enums]]` tables, each declared in `ctx` with the values that are fine.
    fn enums(&mut self, raw: &RawSpec, ctx: &mut Context) -> Vec<(Symbol, Vec<Symbol>)> {
        let mut enums: Vec<(Symbol, Vec<Symbol>)> = Vec::new();
        for e in &raw.enums {
            let n = e.name.get_ref();
            if let Some(why) = ctx.check_new_name(n) {
                self.diags.push(Diagnostic::error(sp(&e.name), why));
                continue;
            }
            let mut values: Vec<Symbol> = Vec::new();
            for v in &e.values {
                let vn = v.get_ref();
                let clash = values.iter().any(|x| &**x == vn) || vn == n;
                if clash {
                    self.diags.push(Diagnostic::error(
                        sp(v),
                        format!("enum value `{vn}` is declared twice"),
                    ));
                } else if let Some(why) = ctx.check_new_name(vn) {
                    self.diags.push(Diagnostic::error(sp(v), why));
                } else if !logic::sexp::is_simple_symbol(vn) {
                    self.diags.push(
                        Diagnostic::error(sp(v), format!("`{vn}` is not a plain SMT-LIB symbol"))
                            .with_hint("use letters, digits and _ (not starting with a digit)"),
                    );
                } else {
                    values.push(Arc::from(vn.as_str()));
                }
            }
            // Declared with the values that are fine, so later formulas do not cascade.
            let ok = !values.is_empty();
            if !ok {
                self.diags.push(Diagnostic::error(
                    sp(&e.name),
                    format!("enum `{n}` has no values"),
                ));
            }
            if ok {
                ctx.declare_enum(Arc::from(n.as_str()), values.clone());
                enums.push((Arc::from(n.as_str()), values));
            }
        }
        enums
    }

    /// The `[[variables]]` tables, each declared in `ctx`, and the domain constraints
    /// their `min`/`max` make.
    fn variables(
        &mut self,
        raw: &RawSpec,
        ctx: &mut Context,
        enums: &[(Symbol, Vec<Symbol>)],
    ) -> (Vec<Variable>, Vec<Constraint>) {
        let mut variables = Vec::new();
        let mut bounds = Vec::new();
        for v in &raw.variables {
            let n = v.name.get_ref();
            let sort = match v.sort.get_ref().as_str() {
                "Bool" => Some(Sort::Bool),
                "Int" => Some(Sort::Int),
                "Real" => Some(Sort::Real),
                s if enums.iter().any(|(e, _)| &**e == s) => Some(Sort::Enum(Arc::from(s))),
                s => {
                    let known: Vec<String> = ["Bool", "Int", "Real"]
                        .iter()
                        .map(|x| x.to_string())
                        .chain(enums.iter().map(|(e, _)| e.to_string()))
                        .collect();
                    self.diags.push(
                        Diagnostic::error(
                            sp(&v.sort),
                            format!("unknown sort `{s}` for variable `{n}`"),
                        )
                        .with_hint(format!("known sorts: {}", known.join(", "))),
                    );
                    None
                }
            };
            if let Some(why) = ctx.check_new_name(n) {
                self.diags.push(Diagnostic::error(sp(&v.name), why));
                continue;
            }
            if !logic::sexp::is_simple_symbol(n) {
                self.diags.push(
                    Diagnostic::error(sp(&v.name), format!("`{n}` is not a plain SMT-LIB symbol"))
                        .with_hint("use letters, digits and _ (not starting with a digit)"),
                );
                continue;
            }
            let Some(sort) = sort else { continue };
            let min = v.min.as_ref().and_then(|m| self.number(m, "min"));
            let max = v.max.as_ref().and_then(|m| self.number(m, "max"));
            if (v.min.is_some() || v.max.is_some()) && !sort.is_numeric() {
                let at = v
                    .min
                    .as_ref()
                    .or(v.max.as_ref())
                    .map(sp)
                    .unwrap_or(sp(&v.name));
                self.diags.push(Diagnostic::error(
                    at,
                    format!("`{n}` has sort {sort}: only Int and Real variables take min/max"),
                ));
            }
            if let (Some(a), Some(b)) = (&min, &max) {
                if a > b {
                    self.diags.push(Diagnostic::error(
                        sp(v.min.as_ref().expect("min")),
                        format!("`{n}`: min {a} is greater than max {b}"),
                    ));
                }
            }
            let name: Symbol = Arc::from(n.as_str());
            ctx.declare_const(name.clone(), sort.clone());
            let var = Term::Var(name.clone(), sort.clone());
            let lit = |r: &BigRational| match sort {
                Sort::Int if r.is_integer() => Term::Int(r.to_integer()),
                _ => Term::Real(r.clone()),
            };
            let int_bound_ok = |r: &BigRational| sort != Sort::Int || r.is_integer();
            for (bound, op, suffix, raw_b) in
                [(&min, Op::Ge, "min", &v.min), (&max, Op::Le, "max", &v.max)]
            {
                if let (Some(b), Some(rb)) = (bound, raw_b) {
                    if !int_bound_ok(b) {
                        self.diags.push(Diagnostic::error(
                            sp(rb),
                            format!("`{n}` is an Int: its {suffix} must be a whole number"),
                        ));
                        continue;
                    }
                    if sort.is_numeric() {
                        bounds.push(Constraint {
                            id: format!("{n}.{suffix}"),
                            text: Some(format!(
                                "{n} {} {b}",
                                if op == Op::Ge { ">=" } else { "<=" }
                            )),
                            formula: Term::app(op, vec![var.clone(), lit(b)]),
                            line: self.line(sp(rb)),
                        });
                    }
                }
            }
            let role = match v.role.as_ref().map(|r| (r, r.get_ref().as_str())) {
                None => None,
                Some((_, "input")) => Some(Role::Input),
                Some((_, "output")) => Some(Role::Output),
                Some((r, other)) => {
                    self.diags.push(
                        Diagnostic::error(sp(r), format!("unknown role `{other}`"))
                            .with_hint("a role is \"input\" (chosen by the environment) or \"output\" (chosen by the system)"),
                    );
                    None
                }
            };
            variables.push(Variable {
                name,
                sort,
                unit: v.unit.clone(),
                description: v.description.clone(),
                min,
                max,
                role,
            });
        }
        (variables, bounds)
    }

    /// The spec's logic (given, or the smallest one its variables need), set in `ctx`.
    fn logic(
        &mut self,
        raw: &RawSpec,
        ctx: &mut Context,
        variables: &[Variable],
        enums: &[(Symbol, Vec<Symbol>)],
    ) -> String {
        let logic_name = match raw.spec.as_ref().and_then(|h| h.logic.as_ref()) {
            Some(l) => {
                let name = l.get_ref().clone();
                if !name.starts_with("QF_") && name != "ALL" {
                    self.diags.push(
                        Diagnostic::error(sp(l), format!("logic `{name}` is not quantifier-free"))
                            .with_hint("use a QF_ logic such as QF_LRA, or ALL"),
                    );
                }
                name
            }
            None => default_logic(variables, !enums.is_empty()),
        };
        ctx.set_logic(&logic_name);
        if !enums.is_empty() && !ctx.allows_datatypes() {
            let at = raw
                .spec
                .as_ref()
                .and_then(|h| h.logic.as_ref())
                .map(sp)
                .unwrap_or_default();
            self.diags.push(
                Diagnostic::error(
                    at,
                    format!("the spec declares enums but logic {logic_name} has no datatypes"),
                )
                .with_hint("add DT to the logic (e.g. QF_DTLRA) or use ALL"),
            );
        }
        logic_name
    }

    /// The `[[domain]]` constraints, after the variables' bounds.
    fn domain(
        &mut self,
        raw: &RawSpec,
        ctx: &Context,
        ids: &mut HashMap<String, Span>,
        bounds: Vec<Constraint>,
    ) -> Vec<Constraint> {
        let mut domain = bounds;
        for d in &raw.domain {
            self.id(&d.id, ids);
            match &d.formula {
                Some(f) => {
                    if let Some(t) = self.formula(f, ctx) {
                        domain.push(Constraint {
                            id: d.id.get_ref().clone(),
                            text: d.text.clone(),
                            formula: t,
                            line: self.line(sp(&d.id)),
                        });
                    }
                }
                None => self.diags.push(
                    Diagnostic::error(
                        sp(&d.id),
                        format!("domain constraint `{}` has no formula", d.id.get_ref()),
                    )
                    .with_hint("a domain constraint is only useful with a formula"),
                ),
            }
        }
        domain
    }

    /// The `[[requirements]]` tables: formulas, or timed patterns read against `time`.
    fn requirements(
        &mut self,
        raw: &RawSpec,
        ctx: &Context,
        time: Option<&crate::timed::TimeBase>,
        ids: &mut HashMap<String, Span>,
    ) -> Vec<Requirement> {
        let mut requirements = Vec::new();
        for r in &raw.requirements {
            self.id(&r.id, ids);
            let line = self.line(sp(&r.id));
            let origin = match r.origin.as_ref().map(|o| (o, o.get_ref().as_str())) {
                None | Some((_, "hand")) => Origin::Hand,
                Some((_, "model")) if r.accepted == Some(true) => Origin::ModelAccepted,
                Some((_, "model")) => Origin::Model,
                Some((o, other)) => {
                    self.diags.push(
                        Diagnostic::error(sp(o), format!("unknown origin `{other}`"))
                            .with_hint("origin is \"hand\" (the default) or \"model\""),
                    );
                    Origin::Hand
                }
            };
            if let Some(timed) = &r.timed {
                let dense_time =
                    time.is_some_and(|tb| tb.semantics == crate::timed::Semantics::Dense);
                let mut dense = None;
                let pattern = match (time, &raw.time) {
                    (Some(tb), _) if dense_time => {
                        dense = self.dense_pattern(timed, tb, ctx);
                        None
                    }
                    (Some(tb), _) => self.pattern(timed, tb, ctx),
                    (None, Some(_)) => None,
                    (None, None) => {
                        self.diags.push(
                            Diagnostic::error(
                                sp(timed),
                                format!(
                                    "requirement `{}` is timed, but the spec has no [time] table",
                                    r.id.get_ref()
                                ),
                            )
                            .with_hint("add [time] with tick = \"1 s\" (the length of one step)"),
                        );
                        None
                    }
                };
                if let Some(f) = &r.formula {
                    self.diags.push(
                        Diagnostic::error(
                            sp(f),
                            format!(
                                "requirement `{}` has both a formula and a timed pattern",
                                r.id.get_ref()
                            ),
                        )
                        .with_hint(
                            "keep one: a formula holds at every step; a timed pattern says when",
                        ),
                    );
                }
                if r.text.is_none() {
                    self.diags.push(Diagnostic::warning(
                        sp(&r.id),
                        format!("requirement `{}` has no text", r.id.get_ref()),
                    ));
                }
                requirements.push(Requirement {
                    id: r.id.get_ref().clone(),
                    text: r.text.clone().unwrap_or_default(),
                    formula: None,
                    shape: Shape::Invariant,
                    line,
                    origin,
                    timed: pattern,
                    dense,
                });
                continue;
            }
            let text = r.text.clone().unwrap_or_default();
            if r.text.is_none() {
                self.diags.push(Diagnostic::warning(
                    sp(&r.id),
                    format!("requirement `{}` has no text", r.id.get_ref()),
                ));
            }
            let formula = match &r.formula {
                Some(f) => self.formula(f, ctx),
                None => {
                    self.diags.push(
                        Diagnostic::warning(
                            sp(&r.id),
                            format!("requirement `{}` is not formalized", r.id.get_ref()),
                        )
                        .with_hint(
                            "it is listed as not formalized and takes no part in the audits",
                        ),
                    );
                    None
                }
            };
            let shape = formula.as_ref().map(shape_of).unwrap_or(Shape::Invariant);
            requirements.push(Requirement {
                id: r.id.get_ref().clone(),
                text,
                formula,
                shape,
                line,
                origin,
                timed: None,
                dense: None,
            });
        }
        requirements
    }

    /// The requirements of a CSV file (id, text, formula), after the spec's own.
    fn csv_requirements(
        &mut self,
        csv_file: &SourceFile,
        rows: Vec<(usize, csv::StringRecord)>,
        ctx: &Context,
        ids: &HashMap<String, Span>,
        requirements: &mut Vec<Requirement>,
    ) {
        let mut csv_diags = Vec::new();
        let mut seen: HashMap<String, usize> = HashMap::new();
        for (off, rec) in rows {
            let id = rec.get(0).unwrap_or("").trim().to_string();
            let text = rec.get(1).unwrap_or("").trim().to_string();
            let span = Span::new(off, off + id.len().max(1));
            let line = csv_file.line_col(off).0;
            if id.is_empty() {
                csv_diags.push(Diagnostic::error(span, "empty requirement id"));
                continue;
            }
            if let Some(bad) = control_char(&id) {
                csv_diags.push(bad_id(span, bad));
                continue;
            }
            if ids.contains_key(&id) || seen.contains_key(&id) {
                csv_diags.push(Diagnostic::error(span, format!("duplicate id `{id}`")));
                continue;
            }
            seen.insert(id.clone(), line);
            if text.is_empty() {
                csv_diags.push(Diagnostic::warning(
                    span,
                    format!("requirement `{id}` has no text"),
                ));
            }
            let formula_text = rec.get(2).map(str::trim).filter(|f| !f.is_empty());
            let formula = match formula_text {
                Some(f) => match logic::script::elaborate_formula(f, ctx) {
                    Ok(t) => {
                        let (t, problems) = settle_formula(t);
                        let mut ok = true;
                        for p in problems {
                            ok &= !p.error;
                            let d = p.diagnostic(span);
                            csv_diags.push(Diagnostic {
                                message: format!("{id}: {}", d.message),
                                ..d
                            });
                        }
                        ok.then_some(t)
                    }
                    Err(ds) => {
                        for d in ds {
                            csv_diags.push(Diagnostic {
                                span,
                                message: format!("{id}: {}", d.message),
                                ..d
                            });
                        }
                        None
                    }
                },
                None => {
                    csv_diags.push(Diagnostic::warning(
                        span,
                        format!("requirement `{id}` is not formalized"),
                    ));
                    None
                }
            };
            let shape = formula.as_ref().map(shape_of).unwrap_or(Shape::Invariant);
            requirements.push(Requirement {
                id,
                text,
                formula,
                shape,
                line,
                origin: Origin::Hand,
                timed: None,
                dense: None,
            });
        }
        self.extra.extend(csv_file.locate_all(&csv_diags).0);
    }

    /// Warnings for variables no formula uses (the schema may be shared between specs).
    fn unused_variables(
        &mut self,
        raw: &RawSpec,
        ctx: &Context,
        domain: &[Constraint],
        requirements: &[Requirement],
    ) {
        // Unused variables (a warning: the schema may be shared between specs). Not when
        // formulas failed to load: their variables would look unused.
        let failed = self.diags.iter().any(|d| d.severity == Severity::Error);
        let mut used: BTreeSet<Symbol> = BTreeSet::new();
        for t in domain
            .iter()
            .map(|d| &d.formula)
            .chain(requirements.iter().filter_map(|r| r.formula.as_ref()))
        {
            used.extend(t.free_vars().into_iter().map(|(n, _)| n));
        }
        for p in requirements.iter().filter_map(|r| r.timed.as_ref()) {
            for t in p.terms() {
                used.extend(t.free_vars().into_iter().map(|(n, _)| n));
            }
        }
        for p in requirements.iter().filter_map(|r| r.dense.as_ref()) {
            for t in p.terms() {
                used.extend(t.free_vars().into_iter().map(|(n, _)| n));
            }
        }
        for v in raw.variables.iter().filter(|_| !failed) {
            let n = v.name.get_ref();
            let bounded = v.min.is_some() || v.max.is_some();
            if !used.contains(n.as_str()) && !bounded && ctx.is_declared(n) {
                self.diags.push(Diagnostic::warning(
                    sp(&v.name),
                    format!("variable `{n}` is not used by any formula"),
                ));
            } else if !used.contains(n.as_str()) && bounded {
                self.diags.push(Diagnostic::warning(
                    sp(&v.name),
                    format!("variable `{n}` is only used by its own bounds"),
                ));
            }
        }
    }

    /// The `[[reviews]]` tables: findings a person reviewed and accepted.
    fn reviews(&mut self, raw: &RawSpec, requirements: &[Requirement]) -> Vec<Review> {
        let mut reviews = Vec::new();
        for r in &raw.reviews {
            let id = r.requirement.get_ref();
            if !requirements.iter().any(|q: &Requirement| &q.id == id) {
                self.diags.push(
                    Diagnostic::error(
                        sp(&r.requirement),
                        format!("no requirement `{id}` to review"),
                    )
                    .with_hint("`requirement` names the id of a [[requirements]] table"),
                );
            }
            let finding = r.finding.get_ref();
            if !REVIEWABLE.contains(&finding.as_str()) {
                self.diags.push(
                    Diagnostic::error(
                        sp(&r.finding),
                        format!("`{finding}` is not a finding that can be reviewed"),
                    )
                    .with_hint(format!("one of {}", REVIEWABLE.join(", "))),
                );
            }
            for f in [&r.reason, &r.reviewed_by] {
                if f.get_ref().trim().is_empty() {
                    self.diags.push(Diagnostic::error(
                        sp(f),
                        "empty: say why, and who reviewed it",
                    ));
                }
            }
            if !is_calendar_date(r.date.get_ref()) {
                self.diags.push(
                    Diagnostic::error(sp(&r.date), format!("`{}` is not a date", r.date.get_ref()))
                        .with_hint("write it YYYY-MM-DD"),
                );
            }
            reviews.push(Review {
                requirement: id.clone(),
                finding: finding.clone(),
                reason: r.reason.get_ref().clone(),
                reviewed_by: r.reviewed_by.get_ref().clone(),
                date: r.date.get_ref().clone(),
                line: self.line(sp(&r.requirement)),
            });
        }
        reviews
    }

    /// The `[time]` table: the tick, named durations and the horizon.
    fn time_base(&mut self, raw: &RawTime) -> Option<crate::timed::TimeBase> {
        let (tick_seconds, unit) = match crate::timed::parse_tick(raw.tick.get_ref()) {
            Ok(t) => t,
            Err(e) => {
                self.diags.push(Diagnostic::error(sp(&raw.tick), e));
                return None;
            }
        };
        let semantics = match raw.semantics.as_ref().map(|s| (s, s.get_ref().as_str())) {
            None | Some((_, "discrete")) => crate::timed::Semantics::Discrete,
            Some((_, "dense")) => crate::timed::Semantics::Dense,
            Some((s, other)) => {
                self.diags.push(
                    Diagnostic::error(sp(s), format!("unknown semantics `{other}`"))
                        .with_hint("semantics is \"discrete\" (steps of one tick, the default) or \"dense\" (real time, Hanfor's patterns)"),
                );
                crate::timed::Semantics::Discrete
            }
        };
        let mut tb = crate::timed::TimeBase {
            tick_seconds,
            tick_text: raw.tick.get_ref().trim().to_string(),
            unit,
            horizon: None,
            durations: Vec::new(),
            semantics,
        };
        let mut named = Vec::new();
        for (name, d) in &raw.durations {
            if !logic::sexp::is_simple_symbol(name) {
                self.diags.push(Diagnostic::error(
                    sp(d),
                    format!("duration name `{name}` is not a plain name (letters, digits, _)"),
                ));
                continue;
            }
            match tb.duration(d.get_ref()) {
                Ok(n) => named.push((name.clone(), n)),
                Err(e) => self
                    .diags
                    .push(Diagnostic::error(sp(d), format!("duration `{name}`: {e}"))),
            }
        }
        tb.durations = named;
        if let Some(h) = &raw.horizon {
            match tb.duration(h.get_ref()) {
                Ok(0) => self.diags.push(Diagnostic::error(
                    sp(h),
                    "the horizon must be at least one tick",
                )),
                Ok(n) => tb.horizon = Some(n),
                Err(e) => self
                    .diags
                    .push(Diagnostic::error(sp(h), format!("horizon: {e}"))),
            }
        }
        Some(tb)
    }

    /// A condition of a timed requirement: the formula `f`, when given, if it is Bool
    /// (else reported).
    fn condition(&mut self, f: &Option<Spanned<String>>, ctx: &Context) -> Option<Term> {
        let f = f.as_ref()?;
        match self.formula(f, ctx) {
            Some(term) if term.sort() == Sort::Bool => Some(term),
            Some(term) => {
                self.diags.push(Diagnostic::error(
                    sp(f),
                    format!("this formula has sort {}, not Bool", term.sort()),
                ));
                None
            }
            None => None,
        }
    }

    /// A duration of a timed requirement in ticks, when given (an unreadable one
    /// reported).
    fn duration(
        &mut self,
        d: &Option<Spanned<String>>,
        tb: &crate::timed::TimeBase,
    ) -> Option<u64> {
        let d = d.as_ref()?;
        match tb.duration(d.get_ref()) {
            Ok(n) => Some(n),
            Err(e) => {
                self.diags.push(Diagnostic::error(sp(d), e));
                None
            }
        }
    }

    /// True when at most one of `keys` (each with its span when given) is given; else
    /// reports that a timed requirement has at most one `what`.
    fn at_most_one(&mut self, what: &str, keys: &[(&str, Option<Span>)]) -> bool {
        let given: Vec<&(&str, Option<Span>)> = keys.iter().filter(|(_, s)| s.is_some()).collect();
        if given.len() > 1 {
            let names: Vec<String> = given.iter().map(|(k, _)| format!("`{k}`")).collect();
            self.diags.push(
                Diagnostic::error(
                    given[1].1.expect("given"),
                    format!(
                        "a timed requirement has at most one {what}: {} are given",
                        names.join(" and ")
                    ),
                )
                .with_hint("see docs/timed.md for the keys of [requirements.timed]"),
            );
            false
        } else {
            true
        }
    }

    /// True when the keys of a discrete timed requirement go together: no key of dense
    /// time, at most one scope, trigger, trigger duration and timing, and no key
    /// without the one it needs; else each problem is reported.
    fn discrete_keys_fit(&mut self, t: &RawTimed) -> bool {
        let mut ok = true;
        for (key, v) in [
            ("pattern", &t.pattern),
            ("scope_between", &t.scope_between),
            ("scope_and", &t.scope_and),
            ("R", &t.r),
            ("S", &t.s),
            ("T", &t.t),
            ("U", &t.u),
            ("c1", &t.c1),
            ("c2", &t.c2),
        ] {
            if let Some(v) = v {
                ok = false;
                self.diags.push(
                    Diagnostic::error(sp(v), format!("`{key}` is a key of dense time"))
                        .with_hint("Hanfor's patterns are read in dense time: add semantics = \"dense\" to [time]"),
                );
            }
        }
        let span_of = |s: &Option<Spanned<String>>| s.as_ref().map(sp);
        let span_b = |s: &Option<Spanned<bool>>| s.as_ref().map(sp);
        ok &= self.at_most_one(
            "scope",
            &[
                ("scope_while", span_of(&t.scope_while)),
                ("scope_after", span_of(&t.scope_after)),
                ("scope_before", span_of(&t.scope_before)),
            ],
        );
        ok &= self.at_most_one(
            "trigger",
            &[
                ("if", span_of(&t.if_)),
                ("when", span_of(&t.when)),
                ("initially", span_b(&t.initially)),
            ],
        );
        ok &= self.at_most_one(
            "trigger duration",
            &[
                ("held_for", span_of(&t.held_for)),
                ("within_last", span_of(&t.within_last)),
            ],
        );
        ok &= self.at_most_one(
            "timing",
            &[
                ("next", span_b(&t.next)),
                ("within", span_of(&t.within)),
                ("for", span_of(&t.for_)),
                ("not_before", span_of(&t.not_before)),
                ("until", span_of(&t.until)),
                ("before", span_of(&t.before)),
            ],
        );
        if let Some(u) = &t.scope_until {
            if t.scope_after.is_none() {
                ok = false;
                self.diags.push(
                    Diagnostic::error(sp(u), "`scope_until` needs `scope_after`")
                        .with_hint("for \"before Q\" write scope_before"),
                );
            }
        }
        if let Some(h) = t.held_for.as_ref().or(t.within_last.as_ref()) {
            if t.if_.is_none() {
                ok = false;
                self.diags.push(
                    Diagnostic::error(sp(h), "a trigger duration needs an `if` trigger")
                        .with_hint("write if = \"<condition>\" with held_for = \"<duration>\""),
                );
            }
        }
        for (key, b) in [("initially", &t.initially), ("next", &t.next)] {
            if let Some(b) = b {
                if !*b.get_ref() {
                    ok = false;
                    self.diags.push(Diagnostic::error(
                        sp(b),
                        format!("`{key} = false` means nothing: leave the key out"),
                    ));
                }
            }
        }
        ok
    }

    /// The timing of a discrete timed requirement (immediately when no timing key is
    /// given); `None` when its duration or condition cannot be read.
    fn discrete_timing(
        &mut self,
        t: &RawTimed,
        tb: &crate::timed::TimeBase,
        ctx: &Context,
    ) -> Option<crate::timed::Timing> {
        use crate::timed::Timing;
        if t.next.is_some() {
            Some(Timing::Next)
        } else if t.within.is_some() {
            self.duration(&t.within, tb).map(Timing::Within)
        } else if t.for_.is_some() {
            self.duration(&t.for_, tb).map(Timing::For)
        } else if t.not_before.is_some() {
            self.duration(&t.not_before, tb).map(Timing::NotBefore)
        } else if t.until.is_some() {
            self.condition(&t.until, ctx).map(Timing::Until)
        } else if t.before.is_some() {
            self.condition(&t.before, ctx).map(Timing::Before)
        } else {
            Some(Timing::Immediately)
        }
    }

    /// One `[requirements.timed]` table: every problem reported, located.
    pub(crate) fn pattern(
        &mut self,
        raw: &Spanned<RawTimed>,
        tb: &crate::timed::TimeBase,
        ctx: &Context,
    ) -> Option<crate::timed::Pattern> {
        use crate::timed::{Pattern, Scope, Trigger};
        let at = sp(raw);
        let t = raw.get_ref();
        let errors_before = self.error_count();
        let ok = self.discrete_keys_fit(t);
        let scope = if let Some(c) = self.condition(&t.scope_while, ctx) {
            Scope::While(c)
        } else if let Some(a) = self.condition(&t.scope_after, ctx) {
            match self.condition(&t.scope_until, ctx) {
                Some(u) => Scope::AfterUntil(a, u),
                None if t.scope_until.is_some() => return None,
                None => Scope::After(a),
            }
        } else if let Some(b) = self.condition(&t.scope_before, ctx) {
            Scope::Before(b)
        } else {
            Scope::Globally
        };
        let held = self.duration(&t.held_for, tb);
        let last = self.duration(&t.within_last, tb);
        let trigger = if let Some(c) = self.condition(&t.if_, ctx) {
            match (held, last) {
                (Some(d), _) => Trigger::HeldFor(c, d),
                (_, Some(d)) => Trigger::WithinLast(c, d),
                _ => Trigger::Level(c),
            }
        } else if let Some(c) = self.condition(&t.when, ctx) {
            Trigger::Edge(c)
        } else if t.initially.is_some() {
            Trigger::Initially
        } else {
            Trigger::Always
        };
        let response = match &t.then {
            Some(_) => self.condition(&t.then, ctx),
            None => {
                self.diags.push(
                    Diagnostic::error(at, "a timed requirement needs `then`: what it demands")
                        .with_hint("for \"never S\" write then = \"(not S)\""),
                );
                None
            }
        };
        let timing = self.discrete_timing(t, tb, ctx);
        if !ok || self.error_count() > errors_before {
            return None;
        }
        Some(Pattern {
            scope,
            trigger,
            response: response?,
            timing: timing?,
        })
    }

    /// One `[requirements.timed]` table of a spec in dense time: a pattern of Hanfor's
    /// catalog (`pattern`, the scope keys, `R` .. `U`, `c1`, `c2`), or the keys of a
    /// discrete pattern that has a counterpart in the catalog.
    pub(crate) fn dense_pattern(
        &mut self,
        raw: &Spanned<RawTimed>,
        tb: &crate::timed::TimeBase,
        ctx: &Context,
    ) -> Option<crate::timed::dense::DensePattern> {
        use crate::timed::dense::{DensePattern, Kind};
        let at = sp(raw);
        let t = raw.get_ref();
        let errors_before = self.error_count();
        let Some(name) = &t.pattern else {
            // The discrete keys, read as the pattern of the catalog they stand for.
            if let Some(w) = &t.scope_while {
                self.diags.push(
                    Diagnostic::error(sp(w), "`scope_while` has no counterpart in dense time")
                        .with_hint("Hanfor's scopes are before, after, between and after-until"),
                );
                return None;
            }
            if let Some(b) = t.scope_between.as_ref().or(t.scope_and.as_ref()) {
                self.diags.push(
                    Diagnostic::error(sp(b), "`scope_between` and `scope_and` go with `pattern`")
                        .with_hint("write pattern = \"<a pattern of Hanfor's catalog>\" with R, S, ... and c1, c2"),
                );
                return None;
            }
            let p = self.pattern(raw, tb, ctx)?;
            return self.dense_of_discrete(p, at);
        };
        let Some(kind) = Kind::from_name(name.get_ref()) else {
            let names: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
            self.diags.push(
                Diagnostic::error(sp(name), format!("unknown pattern `{}`", name.get_ref()))
                    .with_hint(format!(
                        "the patterns of Hanfor's catalog: {}",
                        names.join(", ")
                    )),
            );
            return None;
        };
        self.check_dense_keys(t);
        let scope = self.dense_scope(t, ctx);
        let slots = [("R", &t.r), ("S", &t.s), ("T", &t.t), ("U", &t.u)];
        let mut formulas = Vec::new();
        for (i, (key, v)) in slots.iter().enumerate() {
            if self.slot_fits(kind, key, i < kind.formulas(), v, at) {
                formulas.push(self.condition(v, ctx));
            }
        }
        let mut durations = Vec::new();
        for (i, (key, v)) in [("c1", &t.c1), ("c2", &t.c2)].iter().enumerate() {
            if self.slot_fits(kind, key, i < kind.durations(), v, at) {
                let d = v.as_ref().expect("given");
                match tb.duration(d.get_ref()) {
                    Ok(n) => durations.push(Some(n)),
                    Err(e) => {
                        self.diags.push(Diagnostic::error(sp(d), e));
                        durations.push(None);
                    }
                }
            }
        }
        if self.error_count() > errors_before {
            return None;
        }
        Some(DensePattern {
            kind,
            scope: scope?,
            formulas: formulas.into_iter().collect::<Option<Vec<_>>>()?,
            durations: durations.into_iter().collect::<Option<Vec<_>>>()?,
        })
    }

    /// Reports the keys that do not go with `pattern` in a dense-time table, a second
    /// scope, and scope keys without the one they need.
    fn check_dense_keys(&mut self, t: &RawTimed) {
        for (key, v) in [
            ("scope_while", &t.scope_while),
            ("if", &t.if_),
            ("when", &t.when),
            ("held_for", &t.held_for),
            ("within_last", &t.within_last),
            ("then", &t.then),
            ("within", &t.within),
            ("for", &t.for_),
            ("not_before", &t.not_before),
            ("until", &t.until),
            ("before", &t.before),
        ] {
            if let Some(v) = v {
                self.diags.push(
                    Diagnostic::error(sp(v), format!("`{key}` does not go with `pattern`"))
                        .with_hint(
                            "a pattern of the catalog takes the scope keys, R, S, T, U, c1 and c2",
                        ),
                );
            }
        }
        for (key, v) in [("initially", &t.initially), ("next", &t.next)] {
            if let Some(v) = v {
                self.diags.push(Diagnostic::error(
                    sp(v),
                    format!("`{key}` does not go with `pattern`"),
                ));
            }
        }
        let scopes = [
            ("scope_before", t.scope_before.as_ref()),
            ("scope_after", t.scope_after.as_ref()),
            ("scope_between", t.scope_between.as_ref()),
        ];
        let given: Vec<&(&str, Option<&Spanned<String>>)> =
            scopes.iter().filter(|(_, v)| v.is_some()).collect();
        if given.len() > 1 {
            self.diags.push(Diagnostic::error(
                sp(given[1].1.expect("given")),
                format!(
                    "a requirement has one scope: `{}` and `{}` are given",
                    given[0].0, given[1].0
                ),
            ));
        }
        if let Some(u) = &t.scope_until {
            if t.scope_after.is_none() {
                self.diags.push(Diagnostic::error(
                    sp(u),
                    "`scope_until` needs `scope_after`",
                ));
            }
        }
        if let Some(a) = &t.scope_and {
            if t.scope_between.is_none() {
                self.diags.push(Diagnostic::error(
                    sp(a),
                    "`scope_and` needs `scope_between`",
                ));
            }
        }
        if let Some(b) = &t.scope_between {
            if t.scope_and.is_none() {
                self.diags.push(
                    Diagnostic::error(sp(b), "`scope_between` needs `scope_and`")
                        .with_hint("\"between P and Q\": scope_between = P, scope_and = Q"),
                );
            }
        }
    }

    /// The scope of a dense-time pattern (globally when no scope key is given);
    /// `None` when a condition cannot be read.
    fn dense_scope(
        &mut self,
        t: &RawTimed,
        ctx: &Context,
    ) -> Option<crate::timed::dense::DenseScope<Term>> {
        use crate::timed::dense::DenseScope;
        if t.scope_before.is_some() {
            self.condition(&t.scope_before, ctx).map(DenseScope::Before)
        } else if t.scope_between.is_some() {
            match (
                self.condition(&t.scope_between, ctx),
                self.condition(&t.scope_and, ctx),
            ) {
                (Some(p), Some(q)) => Some(DenseScope::Between(p, q)),
                _ => None,
            }
        } else if t.scope_after.is_some() {
            match (self.condition(&t.scope_after, ctx), &t.scope_until) {
                (Some(p), None) => Some(DenseScope::After(p)),
                (Some(p), Some(_)) => self
                    .condition(&t.scope_until, ctx)
                    .map(|q| DenseScope::AfterUntil(p, q)),
                _ => None,
            }
        } else {
            Some(DenseScope::Globally)
        }
    }

    /// True when the formula or duration `key` of pattern `kind` is given and wanted
    /// (`wanted` when the pattern has it); a missing or unwanted one is reported.
    fn slot_fits(
        &mut self,
        kind: crate::timed::dense::Kind,
        key: &str,
        wanted: bool,
        v: &Option<Spanned<String>>,
        at: Span,
    ) -> bool {
        match (wanted, v) {
            (true, Some(_)) => return true,
            (true, None) => self.diags.push(
                Diagnostic::error(at, format!("pattern {} needs `{key}`", kind.name()))
                    .with_hint(format!("{}: {}", kind.name(), kind.sentence())),
            ),
            (false, Some(v)) => self.diags.push(
                Diagnostic::error(sp(v), format!("pattern {} has no `{key}`", kind.name()))
                    .with_hint(format!("{}: {}", kind.name(), kind.sentence())),
            ),
            (false, None) => {}
        }
        false
    }

    /// A discrete pattern as the pattern of Hanfor's catalog that says the same in dense
    /// time, when there is one.
    fn dense_of_discrete(
        &mut self,
        p: crate::timed::Pattern,
        at: Span,
    ) -> Option<crate::timed::dense::DensePattern> {
        use crate::timed::dense::{DensePattern, DenseScope, Kind};
        use crate::timed::{Scope, Timing, Trigger};
        let scope = match p.scope {
            Scope::Globally => DenseScope::Globally,
            Scope::Before(b) => DenseScope::Before(b),
            Scope::After(a) => DenseScope::After(a),
            Scope::AfterUntil(a, u) => DenseScope::AfterUntil(a, u),
            Scope::While(_) => return None,
        };
        let s = p.response;
        let (kind, formulas, durations) = match (p.trigger, p.timing) {
            (Trigger::Always, Timing::Immediately) => (Kind::Universality, vec![s], vec![]),
            (Trigger::Initially, Timing::Immediately) => (Kind::Initialization, vec![s], vec![]),
            (Trigger::Level(r), Timing::Immediately) => (Kind::Invariance, vec![r, s], vec![]),
            (Trigger::Level(r), Timing::Within(d)) => (Kind::ResponseDelay, vec![r, s], vec![d]),
            (Trigger::Edge(r), Timing::Within(d)) => (Kind::EdgeResponseDelay, vec![r, s], vec![d]),
            (Trigger::Level(r), Timing::For(d)) => (Kind::InvarianceBoundL2, vec![r, s], vec![d]),
            (Trigger::Edge(r), Timing::For(d)) => (Kind::EdgeResponseBoundL2, vec![r, s], vec![d]),
            (Trigger::HeldFor(r, d), Timing::Immediately) => {
                (Kind::ResponseBoundL1, vec![r, s], vec![d])
            }
            (Trigger::HeldFor(r, d1), Timing::For(d2)) => {
                (Kind::ResponseBoundL12, vec![r, s], vec![d1, d2])
            }
            (Trigger::HeldFor(r, d1), Timing::Within(d2)) => {
                (Kind::ResponseDelayBoundL1, vec![r, s], vec![d1, d2])
            }
            _ => {
                self.diags.push(
                    Diagnostic::error(
                        at,
                        "this combination of keys has no pattern in Hanfor's catalog, which dense time reads",
                    )
                    .with_hint(
                        "write the requirement as pattern = \"<name>\" with R, S, ... and c1, c2 (docs/timed.md), or use semantics = \"discrete\"",
                    ),
                );
                return None;
            }
        };
        Some(DensePattern {
            kind,
            scope,
            formulas,
            durations,
        })
    }

    fn error_count(&self) -> usize {
        self.diags
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count()
    }

    fn id(&mut self, id: &Spanned<String>, ids: &mut HashMap<String, Span>) {
        let s = id.get_ref();
        if s.trim().is_empty() {
            self.diags.push(Diagnostic::error(sp(id), "empty id"));
            return;
        }
        if let Some(bad) = control_char(s) {
            self.diags.push(bad_id(sp(id), bad));
            return;
        }
        if let Some(first) = ids.get(s) {
            let (l, _) = self.file.line_col(first.start);
            self.diags.push(
                Diagnostic::error(sp(id), format!("duplicate id `{s}`"))
                    .with_hint(format!("first used on line {l}")),
            );
        } else {
            ids.insert(s.clone(), sp(id));
        }
    }
}

fn default_logic(vars: &[Variable], enums: bool) -> String {
    let int = vars.iter().any(|v| v.sort == Sort::Int);
    let real = vars.iter().any(|v| v.sort == Sort::Real);
    let arith = match (int, real) {
        (true, true) => "LIRA",
        (true, false) => "LIA",
        _ => "LRA",
    };
    if enums {
        format!("QF_DT{arith}")
    } else {
        format!("QF_{arith}")
    }
}

/// The exact value of a decimal written in TOML (`12.5`, `-0.25`, `1e3`).
fn decimal_text(raw: &str) -> Option<BigRational> {
    let (neg, body) = match raw.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, raw.strip_prefix('+').unwrap_or(raw)),
    };
    let (mant, exp) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], body[i + 1..].parse::<i32>().ok()?),
        None => (body, 0),
    };
    if mant.is_empty() || !mant.bytes().all(|c| c.is_ascii_digit() || c == b'.') {
        return None;
    }
    let mut r = logic::elab::parse_decimal(mant);
    let ten = BigRational::from_integer(10.into());
    for _ in 0..exp.unsigned_abs() {
        if exp > 0 {
            r *= &ten;
        } else {
            r /= &ten;
        }
    }
    Some(if neg { -r } else { r })
}

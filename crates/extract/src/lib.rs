//! Requirement lists from the files teams keep requirements in: documents (plain text
//! extracted from a PDF, Markdown), FRET requirement JSON, Hanfor CSV and ReqIF 1.2.
//! Ultimate/Hanfor `.req` pattern files are turned into vera's timed spec format by
//! [`req_to_spec`] (the mapping is in the docs of `src/req.rs`), and FRET exports with
//! their FRETish sentences by [`fret_to_spec`] (the mapping is in the docs of
//! `src/fretish.rs`). [`import`] is `vera extract FILE`: which of these a file gets,
//! and the options that do not fit it refused.
//!
//! Extraction is deterministic: no language model is involved, and the same bytes give
//! the same list. Every [`Requirement`] keeps where it came from (file and line, or file
//! and record) and how sure the extractor is that it is one ([`Confidence`]).
//!
//! The crate takes bytes and returns data; reading files (bounded, through `safefile`)
//! and rendering are the binary's.

mod doc;
mod fret;
mod fretish;
mod hanfor;
mod import;
mod req;
mod reqif;
mod timed_spec;

pub use fret::{fret_to_spec, FretError, FretImport, FretOptions, FretRead};
pub use import::{check_options, import, ImportError, ImportOptions, Imported, Reading};
pub use req::{
    req_to_spec, req_to_spec_with, ExpectedResult, ReqError, ReqImport, ReqOptions, ReqSemantics,
};
use serde::Serialize;

/// How sure the extractor is that a piece of text is a requirement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    /// The source marks it as a requirement: a numbered paragraph under a section, an
    /// explicit id, a row of a requirements table, a record of a requirements tool.
    High,
    /// A "shall" sentence in prose that the source does not mark: a person should look.
    Candidate,
}

/// Where a requirement came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Source {
    /// The file name as given.
    pub file: String,
    /// The 1-based line its text starts on (documents, CSV rows, XML elements).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// The 1-based record number (FRET requirements, CSV rows, ReqIF SPEC-OBJECTs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record: Option<u32>,
}

/// One extracted requirement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Requirement {
    /// Its id: the source's own (`R-12`, a FRET `reqid`), or built from the section and
    /// paragraph number (`5.1(3)`), or `line-N` for a candidate.
    pub id: String,
    /// The requirement's text, on one line, with PDF debris removed.
    pub text: String,
    /// The section it sits in (`5.1 Basal Flow Rate`), where the source has sections.
    pub section: Option<String>,
    /// Its type or kind where the source gives one (Hanfor's type column, ReqIF's type).
    pub kind: Option<String>,
    /// How sure the extractor is that this is a requirement.
    pub confidence: Confidence,
    /// Where it came from.
    pub source: Source,
    /// FRET's structured-English text (`fulltext`), kept for later formalization.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fretish: Option<String>,
    /// A tool's own formalization (Hanfor's `Formal Text`), kept verbatim.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub formalization: Option<String>,
}

/// A variable a source declares (FRET's variable glossary).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Variable {
    /// Its name.
    pub name: String,
    /// Its data type as the source writes it (`boolean`, `integer`, `double`, ...).
    pub data_type: Option<String>,
    /// Its role as the source writes it (FRET's `idType`: `Input`, `Output`, `Mode`, ...).
    pub role: Option<String>,
    /// Its description, if any.
    pub description: Option<String>,
}

/// What a file gave.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Extraction {
    /// The file name as given.
    pub file: String,
    /// The format it was read as.
    pub format: Format,
    /// The requirements found, in source order.
    pub requirements: Vec<Requirement>,
    /// Variables the source declares (FRET), empty otherwise.
    pub variables: Vec<Variable>,
    /// What was skipped or repaired, for a person to check (removed paragraphs, renamed
    /// duplicate ids, page furniture dropped).
    pub notes: Vec<String>,
}

/// The schema tag of the JSON form of an extraction.
pub const SCHEMA_TAG: &str = "vera.requirements.v1";

/// The requirement counts of the JSON form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Requirements.
    pub requirements: usize,
    /// Marked in the source.
    pub high: usize,
    /// Candidates.
    pub candidate: usize,
}

/// `vera.requirements.v1` (docs/json.md).
#[derive(Serialize)]
struct Json<'a> {
    schema: &'static str,
    file: &'a str,
    format: Format,
    counts: Counts,
    requirements: &'a [Requirement],
    variables: &'a [Variable],
    notes: &'a [String],
}

impl Extraction {
    /// The number of requirements with [`Confidence::High`].
    pub fn high(&self) -> usize {
        self.requirements
            .iter()
            .filter(|r| r.confidence == Confidence::High)
            .count()
    }

    /// How many requirements, marked and candidates.
    pub fn counts(&self) -> Counts {
        let high = self.high();
        Counts {
            requirements: self.requirements.len(),
            high,
            candidate: self.requirements.len() - high,
        }
    }

    /// The JSON form, `vera.requirements.v1` (pretty-printed).
    pub fn to_json(&self) -> serde_json::Result<String> {
        serde_json::to_string_pretty(&Json {
            schema: SCHEMA_TAG,
            file: &self.file,
            format: self.format,
            counts: self.counts(),
            requirements: &self.requirements,
            variables: &self.variables,
            notes: &self.notes,
        })
    }
}

/// The formats [`extract`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// Plain text (also text extracted from a PDF).
    Text,
    /// Markdown.
    Markdown,
    /// FRET requirements JSON (an array of requirements or a project export).
    Fret,
    /// Hanfor CSV.
    Hanfor,
    /// ReqIF 1.2 XML.
    Reqif,
}

impl Format {
    /// Its name as `--from` spells it.
    pub fn name(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Markdown => "markdown",
            Format::Fret => "fret",
            Format::Hanfor => "hanfor",
            Format::Reqif => "reqif",
        }
    }

    /// The format of `file` guessed from its name and its first bytes: `.reqif`, or XML
    /// with a `REQ-IF` element; `.json`, or text that starts like JSON (`{`, `[{`, `[]`);
    /// `.csv`; `.md`/`.markdown`; otherwise plain text (a document may start with `[R-1]`).
    pub fn detect(file: &str, bytes: &[u8]) -> Format {
        let lower = file.to_ascii_lowercase();
        let head = String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]);
        let start = head.trim_start_matches('\u{feff}').trim_start();
        if lower.ends_with(".reqif") || (start.starts_with('<') && head.contains("REQ-IF")) {
            Format::Reqif
        } else if lower.ends_with(".json")
            || start.starts_with('{')
            || start
                .strip_prefix('[')
                .is_some_and(|r| r.trim_start().starts_with(['{', ']']))
        {
            Format::Fret
        } else if lower.ends_with(".csv") {
            Format::Hanfor
        } else if lower.ends_with(".md") || lower.ends_with(".markdown") {
            Format::Markdown
        } else {
            Format::Text
        }
    }
}

/// Why a file could not be read. Positions are 1-based.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ExtractError {
    /// Nothing but white space.
    #[error("{file}: the file is empty")]
    Empty {
        /// The file name.
        file: String,
    },
    /// A NUL byte: not a text file.
    #[error("{file}: a binary file (a NUL byte at offset {offset}), not text")]
    Binary {
        /// The file name.
        file: String,
        /// Byte offset of the first NUL byte.
        offset: usize,
    },
    /// Bytes that are not UTF-8.
    #[error("{file}:{line}:{column}: not UTF-8 (save the file as UTF-8)")]
    NotUtf8 {
        /// The file name.
        file: String,
        /// Line of the first bad byte.
        line: u32,
        /// Column (in bytes) of the first bad byte.
        column: u32,
    },
    /// A syntax or structure error at a position.
    #[error("{file}:{line}:{column}: {message}")]
    Syntax {
        /// The file name.
        file: String,
        /// Line.
        line: u32,
        /// Column.
        column: u32,
        /// What is wrong.
        message: String,
    },
    /// A record that does not have the expected shape.
    #[error("{file}: record {record}: {message}")]
    Record {
        /// The file name.
        file: String,
        /// 1-based record number.
        record: u32,
        /// What is wrong.
        message: String,
    },
    /// A file that is not of the format asked for, as a whole.
    #[error("{file}: {message}")]
    Shape {
        /// The file name.
        file: String,
        /// What is wrong.
        message: String,
    },
}

/// Reads the requirements of `bytes` (the content of `file`) as `format`, or as the
/// format [`Format::detect`] guesses when `format` is `None`.
pub fn extract(
    file: &str,
    bytes: &[u8],
    format: Option<Format>,
) -> Result<Extraction, ExtractError> {
    let format = format.unwrap_or_else(|| Format::detect(file, bytes));
    let text = text_of(file, bytes)?;
    let mut x = Extraction {
        file: file.to_string(),
        format,
        requirements: Vec::new(),
        variables: Vec::new(),
        notes: Vec::new(),
    };
    match format {
        Format::Text | Format::Markdown => doc::extract(file, text, &mut x),
        Format::Fret => fret::extract(file, text, &mut x)?,
        Format::Hanfor => hanfor::extract(file, text, &mut x)?,
        Format::Reqif => reqif::extract(file, text, &mut x)?,
    }
    dedup_ids(&mut x);
    Ok(x)
}

/// The text of `bytes`: refuses binary files, invalid UTF-8 (with its position) and
/// files with nothing but white space; drops a byte-order mark.
fn text_of<'a>(file: &str, bytes: &'a [u8]) -> Result<&'a str, ExtractError> {
    if let Some(offset) = bytes.iter().position(|&b| b == 0) {
        return Err(ExtractError::Binary {
            file: file.into(),
            offset,
        });
    }
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let good = &bytes[..e.valid_up_to()];
        let line = good.iter().filter(|&&b| b == b'\n').count() as u32 + 1;
        let start = good.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        ExtractError::NotUtf8 {
            file: file.into(),
            line,
            column: (good.len() - start) as u32 + 1,
        }
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return Err(ExtractError::Empty { file: file.into() });
    }
    Ok(text)
}

/// Makes ids unique: a second `R1` becomes `R1~2`, with a note.
fn dedup_ids(x: &mut Extraction) {
    let mut seen: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
    for r in &mut x.requirements {
        let n = seen.entry(r.id.clone()).or_insert(0);
        *n += 1;
        if *n > 1 {
            let new = format!("{}~{}", r.id, n);
            x.notes.push(format!(
                "id {} appears again at {}; renamed {new}",
                r.id,
                position(&r.source)
            ));
            r.id = new;
        }
    }
}

/// `line 12` or `record 3`.
pub fn position(s: &Source) -> String {
    match (s.line, s.record) {
        (Some(l), _) => format!("line {l}"),
        (None, Some(r)) => format!("record {r}"),
        (None, None) => "an unknown position".into(),
    }
}

/// `text` on one line: runs of white space become one space, ends trimmed.
pub(crate) fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `text` cut to `max` characters, with `...` when it was longer.
pub(crate) fn excerpt(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let cut: String = text.chars().take(max.saturating_sub(3)).collect();
    format!("{cut}...")
}

/// Line and column (1-based) of byte offset `pos` in `text`.
pub(crate) fn line_col(text: &str, pos: usize) -> (u32, u32) {
    let pos = pos.min(text.len());
    let before = &text[..pos];
    let line = before.matches('\n').count() as u32 + 1;
    let start = before.rfind('\n').map_or(0, |p| p + 1);
    (line, before[start..].chars().count() as u32 + 1)
}

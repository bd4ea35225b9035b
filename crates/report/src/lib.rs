//! vera's report layer.
//!
//! Every command returns a value that implements [`Report`]: it knows its JSON schema
//! tag, renders itself for a person, serializes itself as JSON, and says whether it
//! found something ([`Status`]). The binary decides the exit code from that status in
//! one place. Commands whose results are findings (audit, consistency, C proofs, SMT
//! checks) also describe them in the neutral [`Finding`] model, which the SARIF and
//! HTML renderings read; commands whose results are pass/fail cases (questions, QA,
//! consistency batches, C goals) describe them as [`Suite`]s, which the JUnit rendering
//! reads.
//!
//! The renderings live in [`sarif`] (SARIF 2.1.0 as a JSON value), [`junit`] (JUnit XML)
//! and [`html`] (one self-contained HTML5 page with inline style and SVG).
//!
//! *API Boundary*: this crate knows nothing of specs, solvers, BL or C. It depends on
//! serde only; the domain crates and the binary translate into its model.

use std::io;

/// How a command's run came out; decides the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Status {
    /// Every check came out as hoped (exit 0).
    Ok,
    /// At least one definite finding (exit 1).
    Findings,
    /// Bad input, a tool failure, or an answer that is not definite (exit 2).
    Error,
}

impl Status {
    /// The process exit code: 0, 1 or 2.
    pub const fn exit_code(self) -> u8 {
        match self {
            Status::Ok => 0,
            Status::Findings => 1,
            Status::Error => 2,
        }
    }

    /// The worse of two statuses (error over findings over ok).
    pub fn worst(self, other: Status) -> Status {
        self.max(other)
    }

    /// The status of a run that failed or left something undecided (`error`), else
    /// found something (`findings`), else neither.
    pub const fn of(error: bool, findings: bool) -> Status {
        match (error, findings) {
            (true, _) => Status::Error,
            (false, true) => Status::Findings,
            (false, false) => Status::Ok,
        }
    }
}

/// Output formats a report may be rendered in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// Text for a terminal.
    Human,
    /// The versioned JSON payload (`vera.<command>.v1`).
    Json,
    /// SARIF 2.1.0, for code-scanning tools.
    Sarif,
    /// JUnit XML, for CI test dashboards.
    Junit,
    /// A self-contained HTML page.
    Html,
    /// A CSV table (test tables).
    Csv,
}

impl Format {
    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Format::Human => "human",
            Format::Json => "json",
            Format::Sarif => "sarif",
            Format::Junit => "junit",
            Format::Html => "html",
            Format::Csv => "csv",
        }
    }
}

/// A command's result.
pub trait Report {
    /// The JSON schema tag, e.g. `vera.audit.v1`.
    fn schema(&self) -> &'static str;
    /// Whether the run found something, and so the exit code.
    fn status(&self) -> Status;
    /// Writes the text a person reads in a terminal.
    fn human(&self, w: &mut dyn io::Write) -> io::Result<()>;
    /// The JSON payload, pretty-printed with its fields in declaration order; its
    /// `schema` field is [`Report::schema`].
    fn json(&self) -> serde_json::Result<String>;
    /// The findings, for SARIF and HTML; `None` when the command has none to offer.
    fn findings(&self) -> Option<Findings> {
        None
    }
    /// The pass/fail cases, for JUnit; `None` when the command has none to offer.
    fn suites(&self) -> Option<Vec<Suite>> {
        None
    }
    /// The HTML page; `None` when the command offers none.
    fn page(&self) -> Option<html::Page> {
        None
    }
    /// A CSV table (RFC 4180, `\n` line ends); `None` when the command offers none.
    fn csv(&self) -> Option<String> {
        None
    }
    /// Remarks for standard error when the output is not the terminal text (which
    /// carries them itself), e.g. how many checks came from a cache.
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }
}

/// Where in a user's file something is.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Location {
    /// The file as the user named it.
    pub file: String,
    /// 1-based line, when known.
    pub line: Option<u32>,
    /// 1-based column, when known.
    pub column: Option<u32>,
    /// What is at this place (e.g. "R3 takes part in the conflict"), for related places.
    pub message: Option<String>,
}

impl Location {
    /// A place in `file` at `line` (if known).
    pub fn new(file: impl Into<String>, line: Option<u32>) -> Location {
        Location {
            file: file.into(),
            line,
            column: None,
            message: None,
        }
    }
    /// The same place with a message.
    pub fn with_message(mut self, m: impl Into<String>) -> Location {
        self.message = Some(m.into());
        self
    }
}

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// A defect (a conflict, a failed proof).
    Error,
    /// A likely defect (vacuity, redundancy).
    Warning,
    /// Worth a look (an undecided check is reported as an error, never a note).
    Note,
}

/// One kind of finding (a SARIF rule).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Rule {
    /// Stable id, e.g. `VERA-AUDIT-CONFLICT`.
    pub id: &'static str,
    /// Short name in CamelCase, e.g. `GlobalConflict`.
    pub name: &'static str,
    /// One sentence on what the finding means.
    pub short: &'static str,
    /// What to do about it.
    pub help: &'static str,
    /// The usual level of findings of this kind.
    pub level: Level,
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Finding {
    /// The [`Rule::id`] it belongs to.
    pub rule: &'static str,
    /// How serious it is.
    pub level: Level,
    /// What was found, one or a few sentences.
    pub message: String,
    /// Where it is (the requirement's line, the BL rule, the C function).
    pub location: Option<Location>,
    /// Other places involved (the rest of a conflict's core, a subsuming requirement).
    pub related: Vec<Location>,
}

/// The findings of one run, with the rules they refer to.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize)]
pub struct Findings {
    /// The command, e.g. `audit`.
    pub command: String,
    /// Every rule a finding may refer to (listed even when nothing was found).
    pub rules: Vec<Rule>,
    /// What was found.
    pub findings: Vec<Finding>,
    /// The files that were checked.
    pub files: Vec<String>,
}

/// A group of pass/fail cases (a JUnit test suite).
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct Suite {
    /// e.g. the questions file or the spec.
    pub name: String,
    /// The file the cases come from, when there is one.
    pub file: Option<String>,
    /// The cases.
    pub cases: Vec<Case>,
}

/// One pass/fail case (a JUnit test case).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Case {
    /// e.g. the question id.
    pub name: String,
    /// Groups cases, e.g. `vera.ask`.
    pub class: String,
    /// How it came out.
    pub outcome: Outcome,
    /// Time spent, when measured.
    pub seconds: Option<f64>,
    /// Extra text shown with the case (the answer, a counterexample).
    pub output: Option<String>,
}

/// How a case came out.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Outcome {
    /// As expected.
    Passed,
    /// A definite wrong answer.
    Failed {
        /// One line.
        message: String,
        /// The evidence.
        detail: String,
    },
    /// Could not be decided (unknown, a tool failure): never a pass.
    Error {
        /// One line.
        message: String,
        /// The evidence.
        detail: String,
    },
    /// Not run.
    Skipped {
        /// Why.
        message: String,
    },
}

pub mod html;
pub mod junit;
pub mod sarif;

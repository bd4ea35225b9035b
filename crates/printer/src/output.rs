//! The bytes a command writes: its report rendered in the format asked ([`render`]),
//! or, when it failed, the error report in that format ([`render_error`]: a
//! `vera.error.v1` payload, a SARIF log whose invocation failed, a JUnit suite with one
//! erroring case).

use report::{Format, Report};

/// Why a report cannot be rendered in the format asked.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// The command's report has no such rendering.
    #[error("`vera {command}` has no {format} output; it writes {offered}")]
    Unsupported {
        /// The command as typed, e.g. `c verify`.
        command: String,
        /// The format asked.
        format: &'static str,
        /// The formats the report offers, comma-separated.
        offered: String,
    },
    /// The text could not be written.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// The JSON could not be written.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

/// Renders the report of `vera COMMAND` in `format`; `tool_version` is the version a
/// SARIF log names.
pub fn render(
    command: &str,
    report: &dyn Report,
    format: Format,
    tool_version: &str,
) -> Result<Vec<u8>, RenderError> {
    let unsupported = || RenderError::Unsupported {
        command: command.to_string(),
        format: format.name(),
        offered: offered(report),
    };
    Ok(match format {
        Format::Human => {
            let mut b = Vec::new();
            report.human(&mut b)?;
            b
        }
        Format::Json => {
            let mut s = report.json()?;
            s.push('\n');
            s.into_bytes()
        }
        Format::Sarif => {
            let f = report.findings().ok_or_else(unsupported)?;
            let mut s = serde_json::to_string_pretty(&report::sarif::render(&f, tool_version))?;
            s.push('\n');
            s.into_bytes()
        }
        Format::Junit => {
            report::junit::render(&report.suites().ok_or_else(unsupported)?).into_bytes()
        }
        Format::Html => report::html::render(&report.page().ok_or_else(unsupported)?).into_bytes(),
        Format::Csv => report.csv().ok_or_else(unsupported)?.into_bytes(),
    })
}

/// The formats `report` offers, for the error message.
fn offered(report: &dyn Report) -> String {
    let mut v = vec!["human", "json"];
    if report.findings().is_some() {
        v.push("sarif");
    }
    if report.suites().is_some() {
        v.push("junit");
    }
    if report.page().is_some() {
        v.push("html");
    }
    if report.csv().is_some() {
        v.push("csv");
    }
    v.join(", ")
}

/// An error of a command as it is reported: on standard error as text, and with
/// `--format json` as a `vera.error.v1` payload (SARIF: a log whose invocation failed;
/// JUnit: a suite with one erroring case) where the report would have gone
/// ([`render_error`]).
#[derive(Debug)]
pub struct Failure {
    /// What went wrong, in one word (`input`, `syntax`, `flags`, `setup`, ...).
    pub kind: &'static str,
    /// The message.
    pub message: String,
    /// Every located problem (already shown on standard error where it was found).
    pub diagnostics: Vec<Diagnostic>,
    /// The message is already on standard error too.
    pub shown: bool,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

impl Failure {
    /// A failure of `kind` with `message` and `diagnostics`, not shown yet.
    pub fn new(kind: &'static str, message: String, diagnostics: Vec<Diagnostic>) -> Self {
        let shown = false;
        Failure {
            kind,
            message,
            diagnostics,
            shown,
        }
    }
}

/// A located problem of a failed command.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Diagnostic {
    /// The file, if known.
    pub file: Option<String>,
    /// The line (from 1), if known.
    pub line: Option<usize>,
    /// The column (from 1), if known.
    pub column: Option<usize>,
    /// What is wrong there.
    pub message: String,
}

impl Diagnostic {
    /// The errors of `d` (its warnings left out), each at its file, line and column.
    pub fn errors_of(d: &logic::Diagnostics) -> Vec<Diagnostic> {
        d.0.iter()
            .filter(|l| l.severity == logic::source::Severity::Error)
            .map(|l| Diagnostic {
                file: Some(l.file.clone()),
                line: Some(l.line),
                column: Some(l.col),
                message: l.message.clone(),
            })
            .collect()
    }

    /// The problems of a C input (parse or preprocessing), each at its file (the
    /// input's when the problem names none), line and column (none when not known).
    pub fn of_c(d: &acsl::Diagnostics) -> Vec<Diagnostic> {
        let file = d.file.as_ref().map(|p| p.display().to_string());
        (d.items.iter())
            .map(|i| Diagnostic {
                file: (i.file.as_ref().map(|p| p.display().to_string())).or_else(|| file.clone()),
                line: Some(i.line).filter(|l| *l > 0),
                column: Some(i.column).filter(|c| *c > 0),
                message: i.message.clone(),
            })
            .collect()
    }

    /// The messages Frama-C printed when it failed (none for other verifier errors),
    /// without a location.
    pub fn of_wp(e: &acsl::WpError) -> Vec<Diagnostic> {
        let messages = match e {
            acsl::WpError::FramaC { messages, .. } => messages.as_slice(),
            _ => &[],
        };
        (messages.iter())
            .map(|m| Diagnostic {
                file: None,
                line: None,
                column: None,
                message: m.clone(),
            })
            .collect()
    }
}

/// `vera.error.v1`.
#[derive(serde::Serialize)]
struct ErrorJson<'a> {
    schema: &'static str,
    command: &'a str,
    error: ErrorBody<'a>,
}

/// The `error` object of `vera.error.v1`.
#[derive(serde::Serialize)]
struct ErrorBody<'a> {
    kind: &'a str,
    message: &'a str,
    diagnostics: &'a [Diagnostic],
}

/// The error report of `vera COMMAND` in `format` (`kind` in one word, the message and
/// the located problems), or `None` for the formats that have none (the error is then
/// only on standard error).
pub fn render_error(
    command: &str,
    kind: &str,
    message: &str,
    diagnostics: &[Diagnostic],
    format: Format,
    tool_version: &str,
) -> Option<String> {
    match format {
        Format::Json => {
            let body = ErrorJson {
                schema: "vera.error.v1",
                command,
                error: ErrorBody {
                    kind,
                    message,
                    diagnostics,
                },
            };
            serde_json::to_string_pretty(&body).map(|s| s + "\n").ok()
        }
        Format::Sarif => {
            let problems: Vec<(Option<String>, Option<usize>, String)> = diagnostics
                .iter()
                .map(|d| (d.file.clone(), d.line, d.message.clone()))
                .collect();
            serde_json::to_string_pretty(&report::sarif::render_failure(
                message,
                &problems,
                tool_version,
            ))
            .map(|s| s + "\n")
            .ok()
        }
        Format::Junit => Some(report::junit::render(&[report::Suite {
            name: format!("vera {command}"),
            file: None,
            cases: vec![report::Case {
                name: format!("vera {command}"),
                class: "vera".into(),
                outcome: report::Outcome::Error {
                    message: message.to_string(),
                    detail: diagnostics
                        .iter()
                        .map(|d| d.message.clone())
                        .collect::<Vec<_>>()
                        .join("\n"),
                },
                seconds: None,
                output: None,
            }],
        }])),
        _ => None,
    }
}

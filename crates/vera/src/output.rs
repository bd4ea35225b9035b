//! The output side of every command: [`emit`] renders a command's report in the
//! chosen format and gives back its status (the exit code is taken from it in one
//! place, `cli::finish`), plus small text helpers shared by the subcommands.

/// Bad input, a solver failure, or an answer that is not definite (unknown): the code of
/// an error that is not a report (the rest come from [`report::Status::exit_code`]).
pub const EXIT_ERROR: u8 = report::Status::Error.exit_code();

pub use printer::text::{clean, excerpt, paint, Paint};
pub use printer::Rendered;

/// The report of a command whose result is text.
pub fn text(command: &'static str, text: String) -> Outcome {
    Ok(Box::new(printer::text_report(command, text)))
}

/// An error that was already shown to the user (diagnostics with file:line): `main`
/// prints nothing more and exits with [`EXIT_ERROR`].
#[derive(Debug)]
pub struct Reported;

impl std::fmt::Display for Reported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("reported above")
    }
}

impl std::error::Error for Reported {}

/// What a command gives back: its report, rendered by [`emit`].
pub type Outcome = anyhow::Result<Box<dyn report::Report>>;

/// Renders `report` in the chosen format to standard output or to `--output FILE`
/// (written atomically; an existing file needs `--force`), and returns its status.
/// A reader that closes standard output early (`vera ... | head`) is not an error.
pub fn emit(
    command: &str,
    report: &dyn report::Report,
    out: &crate::cli::OutputArgs,
) -> anyhow::Result<report::Status> {
    use report::Format as F;
    let format = out.format.into();
    let unsupported = || {
        anyhow::anyhow!(
            "`vera {command}` has no {} output; it writes {}",
            report::Format::name(format),
            offered(report)
        )
    };
    let bytes: Vec<u8> = match format {
        F::Human => {
            let mut b = Vec::new();
            report.human(&mut b)?;
            b
        }
        F::Json => {
            let mut s = report.json()?;
            s.push('\n');
            s.into_bytes()
        }
        F::Sarif => {
            let f = report.findings().ok_or_else(unsupported)?;
            let mut s = serde_json::to_string_pretty(&report::sarif::render(
                &f,
                env!("CARGO_PKG_VERSION"),
            ))?;
            s.push('\n');
            s.into_bytes()
        }
        F::Junit => report::junit::render(&report.suites().ok_or_else(unsupported)?).into_bytes(),
        F::Html => report::html::render(&report.page().ok_or_else(unsupported)?).into_bytes(),
        F::Csv => report.csv().ok_or_else(unsupported)?.into_bytes(),
    };
    if format != F::Human {
        for n in report.notes() {
            eprintln!("note: {n}");
        }
    }
    match out.file() {
        Some(path) => safefile::write_atomic(path, &bytes, crate::files::force())?,
        None => write_stdout(&bytes)?,
    }
    Ok(report.status())
}

/// An error of a command, reported in the command's format: on standard error as text,
/// and with `--format json` as a `vera.error.v1` payload (SARIF: a log whose invocation
/// failed; JUnit: a suite with one erroring case) where the report would have gone
/// (`-o FILE` or standard output).
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

/// Bad input (a file that cannot be read or used): a [`Failure`] of kind `input` with
/// the error's whole text.
pub fn input_error(e: anyhow::Error) -> anyhow::Error {
    if e.downcast_ref::<Failure>().is_some() || e.downcast_ref::<Reported>().is_some() {
        return e;
    }
    Failure {
        kind: "input",
        message: format!("{e:#}"),
        diagnostics: Vec::new(),
        shown: false,
    }
    .into()
}

/// A located problem of a [`Failure`].
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

/// `vera.error.v1`.
#[derive(serde::Serialize)]
struct ErrorJson<'a> {
    schema: &'static str,
    command: &'a str,
    error: ErrorBody<'a>,
}

#[derive(serde::Serialize)]
struct ErrorBody<'a> {
    kind: &'a str,
    message: &'a str,
    diagnostics: &'a [Diagnostic],
}

/// Reports the error `e` of `vera COMMAND` (see [`Failure`]); errors that are not a
/// `Failure` are of kind `error` (`input` when their text is already shown).
pub fn emit_error(command: &str, e: &anyhow::Error, out: &crate::cli::OutputArgs) {
    let reported = e.downcast_ref::<Reported>().is_some();
    let failure = e.downcast_ref::<Failure>();
    let (kind, message, diagnostics, shown) = match failure {
        Some(f) => (f.kind, f.message.clone(), f.diagnostics.clone(), f.shown),
        None if reported => (
            "input",
            "bad input: the errors are shown on standard error".to_string(),
            Vec::new(),
            true,
        ),
        // A file that cannot be read is bad input, whichever command met it.
        None if e.chain().any(|c| {
            c.downcast_ref::<std::io::Error>().is_some()
                || c.downcast_ref::<safefile::SafeFileError>().is_some()
        }) =>
        {
            ("input", format!("{e:#}"), Vec::new(), false)
        }
        None => ("error", format!("{e:#}"), Vec::new(), false),
    };
    // The located problems are shown where they are found (with their source lines);
    // here only the message, unless that is shown too.
    if !shown {
        eprintln!("error: {message}");
    }
    let bytes = match out.format {
        crate::cli::Format::Json => {
            let body = ErrorJson {
                schema: "vera.error.v1",
                command,
                error: ErrorBody {
                    kind,
                    message: &message,
                    diagnostics: &diagnostics,
                },
            };
            serde_json::to_string_pretty(&body).map(|s| s + "\n").ok()
        }
        crate::cli::Format::Sarif => {
            let problems: Vec<(Option<String>, Option<usize>, String)> = diagnostics
                .iter()
                .map(|d| (d.file.clone(), d.line, d.message.clone()))
                .collect();
            serde_json::to_string_pretty(&report::sarif::render_failure(
                &message,
                &problems,
                env!("CARGO_PKG_VERSION"),
            ))
            .map(|s| s + "\n")
            .ok()
        }
        crate::cli::Format::Junit => Some(report::junit::render(&[report::Suite {
            name: format!("vera {command}"),
            file: None,
            cases: vec![report::Case {
                name: format!("vera {command}"),
                class: "vera".into(),
                outcome: report::Outcome::Error {
                    message: message.clone(),
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
    };
    let Some(bytes) = bytes else { return };
    let written = match out.file() {
        // The same rules as a report: never over an input, an existing file only with
        // --force.
        Some(path) => safefile::write_atomic(path, bytes.as_bytes(), crate::files::force())
            .map_err(|e| e.to_string()),
        None => write_stdout(bytes.as_bytes()).map_err(|e| e.to_string()),
    };
    if let Err(w) = written {
        eprintln!("error: the error report could not be written: {w}");
    }
}

/// The formats `report` offers, for the error message.
fn offered(report: &dyn report::Report) -> String {
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

/// Writes to standard output; a closed pipe ends the output quietly.
pub fn write_stdout(bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut o = std::io::stdout().lock();
    match o.write_all(bytes).and_then(|()| o.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => r,
    }
}

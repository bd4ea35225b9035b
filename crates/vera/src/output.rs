//! The output side of every command: [`emit`] renders a command's report in the
//! chosen format and gives back its status (the exit code is taken from it in one
//! place, `cli::finish`), plus small text helpers shared by the subcommands.

/// Bad input, a solver failure, or an answer that is not definite (unknown): the code of
/// an error that is not a report (the rest come from [`report::Status::exit_code`]).
pub const EXIT_ERROR: u8 = report::Status::Error.exit_code();

/// Shortens text for one-line display.
pub fn excerpt(s: &str, max: usize) -> String {
    let one_line: String = clean(&s.split_whitespace().collect::<Vec<_>>().join(" "));
    if one_line.chars().count() <= max {
        one_line
    } else {
        format!(
            "{}...",
            one_line
                .chars()
                .take(max.saturating_sub(3))
                .collect::<String>()
        )
    }
}

/// `s` with every control character (escape, carriage return, line break, ...) and
/// every bidirectional-override character shown as a `\u{..}` escape, so text from a
/// user's file can neither send terminal escapes nor forge report lines.
pub fn clean(s: &str) -> String {
    let bad = |c: char| {
        c.is_control()
            || ('\u{202a}'..='\u{202e}').contains(&c)
            || ('\u{2066}'..='\u{2069}').contains(&c)
    };
    if !s.chars().any(bad) {
        return s.to_string();
    }
    s.chars()
        .map(|c| {
            if bad(c) {
                c.escape_unicode().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// What a painted word means; mapped to a terminal color.
#[derive(Debug, Clone, Copy)]
pub enum Paint {
    /// A good verdict (consistent, entailed).
    Good,
    /// A finding.
    Bad,
    /// Unknown or doubtful.
    Warn,
    /// An identifier.
    Id,
}

/// Colors `s` when standard output is a terminal and `NO_COLOR` is not set.
pub fn paint(p: Paint, s: &str) -> String {
    use std::io::IsTerminal;
    use std::sync::OnceLock;
    static COLOR: OnceLock<bool> = OnceLock::new();
    let on = *COLOR.get_or_init(|| {
        std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && std::io::stdout().is_terminal()
    });
    if !on {
        return s.to_string();
    }
    let code = match p {
        Paint::Good => "32",
        Paint::Bad => "31",
        Paint::Warn => "33",
        Paint::Id => "1",
    };
    format!("\x1b[{code}m{s}\x1b[0m")
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

/// A report whose terminal text is written when it is built, with a typed JSON payload
/// (which carries its own `schema` field) and, where the command has them, findings,
/// cases and a page.
pub struct Rendered<T: serde::Serialize> {
    /// The schema tag (the payload's `schema` field holds the same).
    pub schema: &'static str,
    /// How the run came out.
    pub status: report::Status,
    /// The terminal text.
    pub text: String,
    /// The JSON payload.
    pub payload: T,
    /// Findings for SARIF, if the command has them.
    pub findings: Option<report::Findings>,
    /// Cases for JUnit, if the command has them.
    pub suites: Option<Vec<report::Suite>>,
    /// The HTML page, if the command has one.
    pub page: Option<report::html::Page>,
    /// A CSV table, if the command has one.
    pub csv: Option<String>,
}

impl<T: serde::Serialize> Rendered<T> {
    /// A report with text and payload only.
    pub fn new(schema: &'static str, status: report::Status, text: String, payload: T) -> Self {
        Rendered {
            schema,
            status,
            text,
            payload,
            findings: None,
            suites: None,
            page: None,
            csv: None,
        }
    }
}

impl<T: serde::Serialize> report::Report for Rendered<T> {
    fn schema(&self) -> &'static str {
        self.schema
    }
    fn status(&self) -> report::Status {
        self.status
    }
    fn human(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        w.write_all(self.text.as_bytes())
    }
    fn json(&self) -> serde_json::Result<String> {
        serde_json::to_string_pretty(&self.payload)
    }
    fn findings(&self) -> Option<report::Findings> {
        self.findings.clone()
    }
    fn suites(&self) -> Option<Vec<report::Suite>> {
        self.suites.clone()
    }
    fn page(&self) -> Option<report::html::Page> {
        self.page.clone()
    }
    fn csv(&self) -> Option<String> {
        self.csv.clone()
    }
}

/// `vera.text.v1`: the payload of commands whose result is text (a formatted program, an
/// encoding, evaluated bindings, a ping).
#[derive(serde::Serialize)]
pub struct TextJson {
    /// `vera.text.v1`.
    pub schema: &'static str,
    /// The command.
    pub command: &'static str,
    /// The text it printed.
    pub text: String,
}

/// The report of a command whose result is text.
pub fn text(command: &'static str, text: String) -> Outcome {
    Ok(Box::new(Rendered::new(
        "vera.text.v1",
        report::Status::Ok,
        text.clone(),
        TextJson {
            schema: "vera.text.v1",
            command,
            text,
        },
    )))
}

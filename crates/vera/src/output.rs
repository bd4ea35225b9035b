//! The output side of every command: [`emit`] renders a command's report in the
//! chosen format and gives back its status (the exit code is taken from it in one
//! place, `cli::finish`), plus small text helpers shared by the subcommands.

/// Bad input, a solver failure, or an answer that is not definite (unknown): the code of
/// an error that is not a report (the rest come from [`report::Status::exit_code`]).
pub const EXIT_ERROR: u8 = report::Status::Error.exit_code();

pub use printer::text::clean;
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
    let format: report::Format = out.format.into();
    let bytes = printer::output::render(command, report, format, env!("CARGO_PKG_VERSION"))?;
    if format != report::Format::Human {
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

/// An error of a command, reported in the command's format ([`emit_error`]).
pub use printer::output::Failure;

/// Bad input (a file that cannot be read or used): a [`Failure`] of kind `input` with
/// the error's whole text.
pub fn input_error(e: anyhow::Error) -> anyhow::Error {
    if e.downcast_ref::<Failure>().is_some() || e.downcast_ref::<Reported>().is_some() {
        return e;
    }
    Failure::new("input", format!("{e:#}"), Vec::new()).into()
}

/// A located problem of a [`Failure`].
pub use printer::output::Diagnostic;

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
    let bytes = printer::output::render_error(
        command,
        kind,
        &message,
        &diagnostics,
        out.format.into(),
        env!("CARGO_PKG_VERSION"),
    );
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

/// Writes to standard output; a closed pipe ends the output quietly.
pub fn write_stdout(bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut o = std::io::stdout().lock();
    match o.write_all(bytes).and_then(|()| o.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => r,
    }
}

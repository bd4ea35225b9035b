//! The command line's side of file safety (the rules live in the `safefile` crate):
//! every path argument that is not an output is registered as an input before anything
//! runs, so no output (transcript, cassette, written spec, report) can replace it, and
//! `--force` is remembered for the writers that need it.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

/// Arguments that name files or folders vera writes (everything else that is a path is an
/// input).
const OUTPUT_ARGS: &[&str] = &[
    "out",
    "out_dir",
    "output",
    "proposals",
    "report",
    "transcript",
    "record",
    "cache_dir",
    "matrix",
];

static FORCE: AtomicBool = AtomicBool::new(false);

/// Registers every input path of a parsed command line (subcommands included).
pub fn register_inputs(m: &clap::ArgMatches) {
    for id in m.ids() {
        if OUTPUT_ARGS.contains(&id.as_str()) {
            continue;
        }
        if let Ok(Some(values)) = m.try_get_many::<PathBuf>(id.as_str()) {
            for v in values {
                safefile::register_input(v);
            }
        }
    }
    if let Some((_, sub)) = m.subcommand() {
        register_inputs(sub);
    }
}

/// Remembers `--force`.
pub fn set_force(force: bool) {
    FORCE.store(force, Ordering::Relaxed);
}

/// Whether `--force` was given: an existing output may be replaced (never an input).
pub fn force() -> bool {
    FORCE.load(Ordering::Relaxed)
}

/// Reads a document or a table (bounded, as an input): UTF-8 as it is, UTF-16 with a
/// byte-order mark decoded (with a note on standard error), UTF-16 without one refused
/// with a message that says how to convert it.
pub fn read_utf8(path: &std::path::Path) -> anyhow::Result<Vec<u8>> {
    let (bytes, encoding) = safefile::read_bytes_as_utf8(path)?;
    if let Some(e) = encoding {
        eprintln!(
            "note: {} is {e} text; read as such",
            crate::output::clean(&path.display().to_string())
        );
    }
    Ok(bytes)
}

static CSV_COLUMNS: OnceLock<Option<reqs::CsvColumns>> = OnceLock::new();

/// Remembers `--csv-columns` (how the columns of a requirements CSV are found) of a
/// parsed command line (subcommands included).
pub fn set_csv_columns(m: &clap::ArgMatches) {
    match m.try_get_one::<reqs::CsvColumns>("csv_columns") {
        Ok(Some(c)) => drop(CSV_COLUMNS.set(Some(c.clone()))),
        _ => m
            .subcommand()
            .into_iter()
            .for_each(|(_, m)| set_csv_columns(m)),
    }
}

/// The `--csv-columns` given, if any.
pub fn csv_columns() -> Option<&'static reqs::CsvColumns> {
    CSV_COLUMNS.get().and_then(Option::as_ref)
}

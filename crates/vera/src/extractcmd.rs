//! `vera extract FILE`: the requirement list of a document, a FRET JSON file, a Hanfor
//! CSV or a ReqIF file (the `extract` crate), as a vera TOML spec without formulas
//! (the default) or as JSON (`vera.requirements.v1`); or an Ultimate/Hanfor `.req` file
//! imported with its formulas as a timed TOML spec (`extract::req_to_spec`,
//! docs/timed.md); or a FRET export's FRETish sentences imported as a timed spec
//! (`--timed`, `extract::fret_to_spec`). Which one a file gets, and which options do
//! not fit it, is `extract::import`'s; here the file is read and the result shown.

use crate::cli::TextFormat;
use extract::{ImportError, Reading};

/// `vera extract FILE`
pub fn extract(a: &crate::cli::ExtractArgs) -> crate::output::Outcome {
    let name = a.file.display().to_string();
    let reading = Reading::resolve(a.from.asked(), &a.file);
    let options = extract::ImportOptions {
        timed: a.timed,
        skip_unsupported: a.skip_unsupported,
        tick: a.tick.as_deref(),
        semantics: match a.semantics {
            crate::cli::ReqTime::Dense => extract::ReqSemantics::Dense,
            crate::cli::ReqTime::Discrete => extract::ReqSemantics::Discrete,
        },
        json: a.format == TextFormat::Json,
    };
    extract::check_options(reading, &options).map_err(|e| not_imported(&name, e))?;
    let bytes = match reading {
        Reading::Req => safefile::read_text(&a.file)?.into_bytes(),
        Reading::List(_) => crate::files::read_utf8(&a.file)?,
    };
    let imported =
        extract::import(&name, bytes, reading, &options).map_err(|e| not_imported(&name, e))?;
    let (run, stderr) = printer::extract::imported(name, imported);
    eprintln!("{stderr}");
    Ok(run)
}

/// An import that failed. A `.req` file's or a FRET export's errors are listed all at
/// once on standard error, each with its place, then one line that says so (exit
/// status 2); the other errors are one message.
fn not_imported(name: &str, e: ImportError) -> anyhow::Error {
    if let ImportError::List(e) = e {
        return e.into();
    }
    match printer::extract::import_errors(name, &e) {
        Some(stderr) => {
            eprintln!("{stderr}");
            crate::output::Reported.into()
        }
        None => anyhow::anyhow!("{}", crate::output::clean(&e.to_string())),
    }
}

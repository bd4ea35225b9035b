//! `vera extract FILE`: the requirement list of a document, a FRET JSON file, a Hanfor
//! CSV or a ReqIF file (the `extract` crate), as a vera TOML spec without formulas
//! (the default) or as JSON (`vera.requirements.v1`); or an Ultimate/Hanfor `.req` file
//! imported with its formulas as a timed TOML spec (`extract::req_to_spec`,
//! docs/timed.md); or a FRET export's FRETish sentences imported as a timed spec
//! (`--timed`, `extract::fret_to_spec`). Which one a file gets, and which options do
//! not fit it, is `extract::import`'s; here the file is read and the result shown.

use crate::cli::TextFormat;
use extract::{ImportError, Imported, Reading};

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
    match imported {
        Imported::List(x) => {
            // What was dropped or repaired is said on standard error too (and kept in
            // the spec's comments and the JSON's notes): a person checks it there.
            notes(&x.notes);
            let run = printer::extract::ExtractRun { x };
            eprintln!("{}", crate::output::clean(&run.summary()));
            Ok(Box::new(run))
        }
        Imported::Req(import) => {
            notes(&import.notes);
            let run = printer::extract::ReqRun { file: name, import };
            eprintln!("{}", crate::output::clean(&run.summary()));
            Ok(Box::new(run))
        }
        Imported::Fret(import) => {
            // With --skip-unsupported, the requirements left out are listed as warnings
            // (and as comments in the spec).
            for e in &import.refused {
                eprintln!(
                    "warning: {} (not imported)",
                    printer::extract::comment(&e.to_string())
                );
            }
            notes(&import.notes);
            let run = printer::extract::FretRun { file: name, import };
            eprintln!("{}", crate::output::clean(&run.summary()));
            Ok(Box::new(run))
        }
    }
}

/// The notes of a reading, on standard error.
fn notes(notes: &[String]) {
    for n in notes {
        eprintln!("note: {}", printer::extract::comment(n));
    }
}

/// An import that failed. A `.req` file's or a FRET export's errors are listed all at
/// once on standard error, each with its place, then one line that says so (exit
/// status 2); the other errors are one message.
fn not_imported(name: &str, e: ImportError) -> anyhow::Error {
    if let ImportError::List(e) = e {
        return e.into();
    }
    let (errors, hint): (Vec<String>, &str) = match &e {
        ImportError::Req { errors, .. } => (errors.iter().map(|e| e.to_string()).collect(), ""),
        ImportError::Fret {
            errors, skippable, ..
        } => (
            errors.iter().map(|e| e.to_string()).collect(),
            if *skippable {
                " (--skip-unsupported imports the other requirements)"
            } else {
                ""
            },
        ),
        _ => return anyhow::anyhow!("{}", crate::output::clean(&e.to_string())),
    };
    for e in &errors {
        eprintln!("{}", crate::output::clean(e));
    }
    eprintln!(
        "error: {} cannot be imported: {} above{hint}",
        crate::output::clean(name),
        if errors.len() == 1 {
            "the error"
        } else {
            "the errors"
        }
    );
    crate::output::Reported.into()
}

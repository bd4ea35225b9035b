//! `vera extract FILE`: the requirement list of a document, a FRET JSON file, a Hanfor
//! CSV or a ReqIF file (the `extract` crate), as a vera TOML spec without formulas
//! (the default) or as JSON (`vera.requirements.v1`); or an Ultimate/Hanfor `.req` file
//! imported with its formulas as a timed TOML spec (`extract::req_to_spec`,
//! docs/timed.md); or a FRET export's FRETish sentences imported as a timed spec
//! (`--timed`, `extract::fret_to_spec`).

use crate::cli::{ExtractReading, TextFormat};

/// `vera extract FILE`
pub fn extract(a: &crate::cli::ExtractArgs) -> crate::output::Outcome {
    let name = a.file.display().to_string();
    let format = match a.from.reading(&a.file) {
        ExtractReading::Req => return import_req(a, name),
        ExtractReading::List(format) => format,
    };
    if a.timed || a.skip_unsupported || a.tick.is_some() {
        let bytes = crate::files::read_utf8(&a.file)?;
        let read_as = format.unwrap_or_else(|| extract::Format::detect(&name, &bytes));
        if read_as == extract::Format::Fret {
            return import_fret(a, name, bytes);
        }
        let how = match format {
            Some(f) => format!("it is read with --from {}", f.name()),
            None => format!(
                "its name does not end in .req (--from req reads it as one) and it is read as {}",
                read_as.name()
            ),
        };
        if a.timed || a.skip_unsupported {
            anyhow::bail!(
                "--timed (and --skip-unsupported) imports the FRETish sentences of a FRET export; {} is not read as \
                 one: {how}",
                crate::output::clean(&name)
            );
        }
        anyhow::bail!(
            "--tick sets the time step of a spec imported from an Ultimate .req file or a FRET \
             export; {} is not read as either: {how}",
            crate::output::clean(&name)
        );
    }
    let bytes = crate::files::read_utf8(&a.file)?;
    let x = extract::extract(&name, &bytes, format)?;
    // What was dropped or repaired is said on standard error too (and kept in the
    // spec's comments and the JSON's notes): a person checks it there.
    for n in &x.notes {
        eprintln!("note: {}", printer::extract::comment(n));
    }
    let run = printer::extract::ExtractRun { x };
    eprintln!("{}", crate::output::clean(&run.summary()));
    Ok(Box::new(run))
}

/// An import that failed: every error on standard error, then one line that says so
/// (with `hint` after it).
fn not_imported(name: &str, errors: &[impl std::fmt::Display], hint: &str) -> anyhow::Error {
    for e in errors {
        eprintln!("{}", crate::output::clean(&e.to_string()));
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

/// `vera extract FILE.req`: the timed spec of `req_to_spec`. Its notes go to standard
/// error (and into the spec as comments); its errors are listed all at once, each with
/// its place, and exit with status 2.
fn import_req(a: &crate::cli::ExtractArgs, name: String) -> crate::output::Outcome {
    if a.skip_unsupported {
        anyhow::bail!(
            "--skip-unsupported is for FRET exports; an Ultimate .req file is imported whole \
             or not at all"
        );
    }
    if a.format == TextFormat::Json {
        anyhow::bail!(
            "--format json is not available for an Ultimate .req file: it is imported as a \
             timed spec, written as TOML (docs/timed.md); leave out --format json"
        );
    }
    let text = safefile::read_text(&a.file)?;
    let options = extract::ReqOptions {
        tick: a.tick.as_deref(),
        semantics: match a.semantics {
            crate::cli::ReqTime::Dense => extract::ReqSemantics::Dense,
            crate::cli::ReqTime::Discrete => extract::ReqSemantics::Discrete,
        },
    };
    let import = match extract::req_to_spec_with(&name, &text, &options) {
        Ok(i) => i,
        Err(errors) => return Err(not_imported(&name, &errors, "")),
    };
    for n in &import.notes {
        eprintln!("note: {}", printer::extract::comment(n));
    }
    let run = printer::extract::ReqRun { file: name, import };
    eprintln!("{}", crate::output::clean(&run.summary()));
    Ok(Box::new(run))
}

/// `vera extract EXPORT.json --timed`: the timed spec of `fret_to_spec`. As for a `.req`
/// file, notes go to standard error and into the spec, and every error is listed at
/// once (exit status 2); with `--skip-unsupported`, the requirements that cannot be
/// imported are listed as warnings and as comments in the spec instead.
fn import_fret(
    a: &crate::cli::ExtractArgs,
    name: String,
    bytes: Vec<u8>,
) -> crate::output::Outcome {
    if a.format == TextFormat::Json {
        anyhow::bail!(
            "--format json is not available with --timed: a FRET export is then imported as \
             a timed spec, written as TOML (docs/timed.md); leave out --format json"
        );
    }
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let good = &e.as_bytes()[..e.utf8_error().valid_up_to()];
            let line = good.iter().filter(|&&b| b == b'\n').count() + 1;
            anyhow::bail!(
                "{}:{line}: not UTF-8 (save the file as UTF-8)",
                crate::output::clean(&name)
            );
        }
    };
    let options = extract::FretOptions {
        tick: a.tick.as_deref(),
        skip_refused: a.skip_unsupported,
    };
    let import = match extract::fret_to_spec(&name, &text, &options) {
        Ok(i) => i,
        Err(errors) => {
            let hint = if errors.iter().any(|e| e.requirement.is_some()) {
                " (--skip-unsupported imports the other requirements)"
            } else {
                ""
            };
            return Err(not_imported(&name, &errors, hint));
        }
    };
    for e in &import.refused {
        eprintln!(
            "warning: {} (not imported)",
            printer::extract::comment(&e.to_string())
        );
    }
    for n in &import.notes {
        eprintln!("note: {}", printer::extract::comment(n));
    }
    let run = printer::extract::FretRun { file: name, import };
    eprintln!("{}", crate::output::clean(&run.summary()));
    Ok(Box::new(run))
}

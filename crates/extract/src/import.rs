//! `vera extract FILE` as two calls: [`check_options`] refuses, before the file is
//! read, the options that cannot apply to how it is read, and [`import`] reads its bytes
//! as the requirement list, a `.req` import or a FRET export's timed spec. Which of
//! these a file gets is decided here ([`Reading::resolve`] from its name, then its first
//! bytes), so the command line only reads the bytes and shows the result.

use std::path::Path;

use crate::{
    extract, fret_to_spec, req_to_spec_with, ExtractError, Extraction, Format, FretError,
    FretImport, FretOptions, ReqError, ReqImport, ReqOptions, ReqSemantics,
};

/// How a file is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// The requirement list, in this format (`None`: detected from the name and first
    /// bytes).
    List(Option<Format>),
    /// The Ultimate/Hanfor `.req` import: a timed spec with formulas.
    Req,
}

impl Reading {
    /// How to read `file`: as `asked`, or when nothing is asked a `.req` import for a
    /// name that ends in `.req` (any case), else the list in the format detected later.
    pub fn resolve(asked: Option<Reading>, file: &Path) -> Reading {
        asked.unwrap_or_else(|| {
            if file
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("req"))
            {
                Reading::Req
            } else {
                Reading::List(None)
            }
        })
    }
}

/// What is asked of the import besides the reading.
#[derive(Debug, Clone, Copy, Default)]
pub struct ImportOptions<'a> {
    /// Import a FRET export's sentences as a timed spec instead of the list.
    pub timed: bool,
    /// With a FRET export (implies `timed`): leave out the requirements that cannot be
    /// imported instead of refusing the file.
    pub skip_unsupported: bool,
    /// The time step of a timed spec (with a FRET export, implies `timed`).
    pub tick: Option<&'a str>,
    /// How a `.req` file's spec reads time.
    pub semantics: ReqSemantics,
    /// The JSON list is asked for (a timed spec is TOML only).
    pub json: bool,
}

/// What a file was read as.
#[derive(Debug, Clone)]
pub enum Imported {
    /// The requirement list.
    List(Extraction),
    /// The timed spec of a `.req` file.
    Req(ReqImport),
    /// The timed spec of a FRET export.
    Fret(FretImport),
}

/// Why a file was not imported.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// `skip_unsupported` with a `.req` file.
    #[error(
        "--skip-unsupported is for FRET exports; an Ultimate .req file is imported whole \
         or not at all"
    )]
    SkipForReq,
    /// The JSON list asked of a `.req` file.
    #[error(
        "--format json is not available for an Ultimate .req file: it is imported as a \
         timed spec, written as TOML (docs/timed.md); leave out --format json"
    )]
    JsonForReq,
    /// The JSON list asked with a timed FRET import.
    #[error(
        "--format json is not available with --timed: a FRET export is then imported as \
         a timed spec, written as TOML (docs/timed.md); leave out --format json"
    )]
    JsonForTimed,
    /// A timed import (or a tick) asked of a file that is not read as a FRET export.
    #[error("{}", not_fret(self))]
    NotFret {
        /// The file name as given.
        file: String,
        /// The format asked for, if any.
        asked: Option<Format>,
        /// The format it is read as.
        read_as: Format,
        /// Whether `timed` or `skip_unsupported` was asked (otherwise only `tick`).
        timed: bool,
    },
    /// A FRET export for a timed import is not UTF-8.
    #[error("{file}:{line}: not UTF-8 (save the file as UTF-8)")]
    NotUtf8 {
        /// The file name as given.
        file: String,
        /// The line of the first bad byte.
        line: usize,
    },
    /// The requirement list could not be read.
    #[error(transparent)]
    List(#[from] ExtractError),
    /// The `.req` file cannot be imported: every error, each with its place.
    #[error("{file} cannot be imported: {} error(s)", errors.len())]
    Req {
        /// The file name as given.
        file: String,
        /// The errors.
        errors: Vec<ReqError>,
    },
    /// The FRET export cannot be imported: every error, each with its place.
    #[error("{file} cannot be imported: {} error(s)", errors.len())]
    Fret {
        /// The file name as given.
        file: String,
        /// The errors.
        errors: Vec<FretError>,
        /// Some are a requirement's own: `skip_unsupported` would import the others.
        skippable: bool,
    },
}

fn not_fret(e: &ImportError) -> String {
    let ImportError::NotFret {
        file,
        asked,
        read_as,
        timed,
    } = e
    else {
        return String::new();
    };
    let how = match asked {
        Some(f) => format!("it is read with --from {}", f.name()),
        None => format!(
            "its name does not end in .req (--from req reads it as one) and it is read as {}",
            read_as.name()
        ),
    };
    if *timed {
        format!(
            "--timed (and --skip-unsupported) imports the FRETish sentences of a FRET export; {file} is not read as \
             one: {how}"
        )
    } else {
        format!(
            "--tick sets the time step of a spec imported from an Ultimate .req file or a FRET \
             export; {file} is not read as either: {how}"
        )
    }
}

/// The refusals known before the file is read: a `.req` file is imported whole, as
/// TOML.
pub fn check_options(reading: Reading, opts: &ImportOptions<'_>) -> Result<(), ImportError> {
    if reading == Reading::Req {
        if opts.skip_unsupported {
            return Err(ImportError::SkipForReq);
        }
        if opts.json {
            return Err(ImportError::JsonForReq);
        }
    }
    Ok(())
}

/// Reads `bytes` (the content of `file`) as `reading` says ([`check_options`] first):
/// a `.req` file as a timed spec; with `timed`, `skip_unsupported` or a `tick`, a file
/// read as a FRET export as a timed spec (anything else is refused); otherwise the
/// requirement list.
pub fn import(
    file: &str,
    bytes: Vec<u8>,
    reading: Reading,
    opts: &ImportOptions<'_>,
) -> Result<Imported, ImportError> {
    check_options(reading, opts)?;
    let format = match reading {
        Reading::Req => {
            let text = utf8(file, bytes)?;
            let options = ReqOptions {
                tick: opts.tick,
                semantics: opts.semantics,
            };
            return req_to_spec_with(file, &text, &options)
                .map(Imported::Req)
                .map_err(|errors| ImportError::Req {
                    file: file.to_string(),
                    errors,
                });
        }
        Reading::List(format) => format,
    };
    if opts.timed || opts.skip_unsupported || opts.tick.is_some() {
        let read_as = format.unwrap_or_else(|| Format::detect(file, &bytes));
        if read_as != Format::Fret {
            return Err(ImportError::NotFret {
                file: file.to_string(),
                asked: format,
                read_as,
                timed: opts.timed || opts.skip_unsupported,
            });
        }
        if opts.json {
            return Err(ImportError::JsonForTimed);
        }
        let text = utf8(file, bytes)?;
        let options = FretOptions {
            tick: opts.tick,
            skip_refused: opts.skip_unsupported,
        };
        return fret_to_spec(file, &text, &options)
            .map(Imported::Fret)
            .map_err(|errors| ImportError::Fret {
                file: file.to_string(),
                skippable: errors.iter().any(|e| e.requirement.is_some()),
                errors,
            });
    }
    Ok(Imported::List(extract(file, &bytes, format)?))
}

/// The text of `bytes`, or where the first byte that is not UTF-8 is.
fn utf8(file: &str, bytes: Vec<u8>) -> Result<String, ImportError> {
    String::from_utf8(bytes).map_err(|e| {
        let good = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        ImportError::NotUtf8 {
            file: file.to_string(),
            line: good.iter().filter(|&&b| b == b'\n').count() + 1,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reading_follows_the_name_unless_asked() {
        let auto = |n: &str| Reading::resolve(None, Path::new(n));
        assert_eq!(auto("a.req"), Reading::Req);
        assert_eq!(auto("A.REQ"), Reading::Req);
        assert_eq!(auto("a.json"), Reading::List(None));
        assert_eq!(
            Reading::resolve(Some(Reading::List(Some(Format::Text))), Path::new("a.req")),
            Reading::List(Some(Format::Text))
        );
    }

    #[test]
    fn options_that_do_not_fit_are_refused() {
        let skip = ImportOptions {
            skip_unsupported: true,
            ..Default::default()
        };
        assert!(matches!(
            check_options(Reading::Req, &skip),
            Err(ImportError::SkipForReq)
        ));
        let tick = ImportOptions {
            tick: Some("1 s"),
            ..Default::default()
        };
        let e = import(
            "r.txt",
            b"R1: the pump shall stop.".to_vec(),
            Reading::List(None),
            &tick,
        )
        .unwrap_err();
        assert!(
            e.to_string().starts_with("--tick sets the time step"),
            "{e}"
        );
        assert!(e.to_string().ends_with("it is read as text"), "{e}");
        let timed = ImportOptions {
            timed: true,
            json: true,
            ..Default::default()
        };
        let e = import("r.json", b"[]".to_vec(), Reading::List(None), &timed).unwrap_err();
        assert!(matches!(e, ImportError::JsonForTimed), "{e}");
        let timed = ImportOptions {
            timed: true,
            ..Default::default()
        };
        let e = import("r.json", b"[\xff]".to_vec(), Reading::List(None), &timed).unwrap_err();
        assert_eq!(
            e.to_string(),
            "r.json:1: not UTF-8 (save the file as UTF-8)"
        );
    }
}

//! What a command may be given as a spec: files of another format named where a spec
//! is expected (an Ultimate `.req` file, a FRET export, a document), and the refusals
//! of a loaded spec a command cannot read in full (timed requirements it would leave
//! out, dense time, no formula to check).

use crate::Spec;
use std::path::{Path, PathBuf};

/// A file of another format that `vera extract` reads, given where a spec is expected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Foreign {
    /// An Ultimate/Hanfor requirements file (`.req`, or a file that reads like one).
    Req,
    /// A JSON file: a FRET export.
    Fret,
    /// A ReqIF file or a Markdown document.
    Document,
}

/// The foreign format `path`'s extension names (`.req`, `.json`, `.reqif`, `.md`,
/// `.markdown`, any case), if any.
pub fn foreign(path: &Path) -> Option<Foreign> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "req" => Some(Foreign::Req),
        "json" => Some(Foreign::Fret),
        "reqif" | "md" | "markdown" => Some(Foreign::Document),
        _ => None,
    }
}

/// Whether `path` reads like an Ultimate `.req` file: its first line that is not blank or
/// a comment declares a variable (`Input x is bool`) or a constant (`CONST c is 5`).
pub fn looks_like_req(path: &Path) -> bool {
    let Ok(text) = safefile::read_text(path) else {
        return false;
    };
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with("//") && !l.starts_with('#'))
        .is_some_and(|l| {
            let mut w = l.split_whitespace();
            matches!(w.next(), Some("Input" | "Output" | "Internal" | "CONST"))
                && w.next().is_some()
                && w.next() == Some("is")
        })
}

/// True when the file is a TOML spec with a `[time]` table or a timed requirement.
/// A file that does not load is not timed here: the plain path reports its problems
/// (the same parser, so the same messages).
pub fn is_timed_file(path: &Path) -> bool {
    let is_toml = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("toml"));
    is_toml
        && crate::load(path).is_ok_and(|s| {
            s.time.is_some()
                || s.requirements
                    .iter()
                    .any(|r| r.timed.is_some() || r.dense.is_some())
        })
}

/// Why a loaded spec cannot be used by a command.
#[derive(Debug, thiserror::Error)]
pub enum UseError {
    /// The spec has timed requirements the command would leave out (the first five).
    #[error(
        "{} has timed requirements ({}{}): only `vera audit` reads timed requirements so far, and this command would leave them out",
        .path.display(),
        .ids.join(", "),
        if .ids.len() == 5 { ", ..." } else { "" }
    )]
    TimedLeftOut {
        /// The spec file.
        path: PathBuf,
        /// The ids of its first (at most five) timed requirements.
        ids: Vec<String>,
    },
    /// The spec is read in dense time and the command reads discrete time only.
    #[error(
        "{} is read in dense time (semantics = \"dense\"): `vera {command}` reads discrete timed specs only so far; `vera audit` reads it",
        .path.display()
    )]
    Dense {
        /// The spec file.
        path: PathBuf,
        /// The command, e.g. `ask`.
        command: String,
    },
    /// The spec is read in dense time and formalization writes discrete patterns only.
    #[error(
        "{} is read in dense time (semantics = \"dense\"): `vera formalize` writes discrete timed patterns only so far",
        .path.display()
    )]
    DenseFormalize {
        /// The spec file.
        path: PathBuf,
    },
    /// No requirement has a formula.
    #[error(
        "nothing to check: {} has {requirements} requirement(s) and none with a formula{}",
        .path.display(),
        if *.requirements == 0 { "" } else { " (write formulas, or run `vera formalize`)" }
    )]
    NothingToCheck {
        /// The spec file.
        path: PathBuf,
        /// How many requirements it has.
        requirements: usize,
    },
}

/// Refuses a spec (read from `path`) with timed requirements, for the commands that
/// would silently leave them out.
pub fn refuse_timed(path: &Path, spec: &Spec) -> Result<(), UseError> {
    let ids: Vec<String> = spec
        .requirements
        .iter()
        .filter(|r| r.timed.is_some() || r.dense.is_some())
        .map(|r| r.id.clone())
        .take(5)
        .collect();
    if ids.is_empty() {
        return Ok(());
    }
    Err(UseError::TimedLeftOut {
        path: path.to_path_buf(),
        ids,
    })
}

/// Whether the spec is read in dense time (`[time] semantics = "dense"`).
pub fn is_dense(spec: &Spec) -> bool {
    spec.time
        .as_ref()
        .is_some_and(|t| t.semantics == crate::timed::Semantics::Dense)
}

/// Refuses a spec read in dense time for `vera COMMAND`, which reads discrete time only.
pub fn refuse_dense(path: &Path, spec: &Spec, command: &str) -> Result<(), UseError> {
    if is_dense(spec) {
        return Err(UseError::Dense {
            path: path.to_path_buf(),
            command: command.to_string(),
        });
    }
    Ok(())
}

/// Refuses a spec without a single formalized requirement (an empty file, a CSV with
/// only its header row): it has nothing to check, which is not "no findings".
pub fn require_formula(path: &Path, spec: &Spec) -> Result<(), UseError> {
    if spec.formalized().next().is_none() {
        return Err(UseError::NothingToCheck {
            path: path.to_path_buf(),
            requirements: spec.requirements.len(),
        });
    }
    Ok(())
}

/// Why a file given as a spec could not be read as one.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// A file of another format (`vera extract` reads it).
    #[error("{} is not a spec ({kind:?})", path.display())]
    Foreign {
        /// The file.
        path: PathBuf,
        /// What it is.
        kind: Foreign,
    },
    /// `--csv-columns` given for a TOML spec.
    #[error("--csv-columns is for CSV requirement files; {} is a spec already", .0.display())]
    CsvColumnsForSpec(PathBuf),
    /// A CSV of requirements without a schema.
    #[error("{}: a CSV of requirements needs --schema SPEC.toml for its variables", .0.display())]
    CsvNeedsSchema(PathBuf),
    /// `--schema` given for a TOML spec.
    #[error("--schema is for CSV requirement files; {} is a spec already", .0.display())]
    SchemaForSpec(PathBuf),
    /// The spec has errors (and perhaps warnings), all located.
    #[error("{} cannot be used: {} error(s) above", path.display(), .diagnostics.0.iter().filter(|l| l.severity == logic::source::Severity::Error).count())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// Every problem found.
        diagnostics: logic::Diagnostics,
    },
    /// The file could not be read.
    #[error("{0}")]
    Read(safefile::SafeFileError),
}

/// Reads the spec at `path`: a TOML spec, or a CSV of requirements over the TOML schema
/// `schema` (its columns named by `csv_columns`, else recognized from the header row).
/// A file of another format is refused as [`ReadError::Foreign`], also a `.req` file
/// under another name whose TOML errors would only confuse. The spec's warnings stay
/// in [`Spec::warnings`] for the caller to show.
pub fn read_spec(
    path: &Path,
    schema: Option<&Path>,
    csv_columns: Option<&crate::CsvColumns>,
) -> Result<Spec, ReadError> {
    if let Some(kind) = foreign(path) {
        let path = path.to_path_buf();
        return Err(ReadError::Foreign { path, kind });
    }
    let is_csv = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("csv"));
    let loaded = match (is_csv, schema) {
        (true, Some(s)) => crate::load_csv_with(path, s, &csv_columns.cloned().unwrap_or_default()),
        (false, _) if csv_columns.is_some() => {
            return Err(ReadError::CsvColumnsForSpec(path.to_path_buf()))
        }
        (true, None) => return Err(ReadError::CsvNeedsSchema(path.to_path_buf())),
        (false, Some(_)) => return Err(ReadError::SchemaForSpec(path.to_path_buf())),
        (false, None) => crate::load(path),
    };
    loaded.map_err(|e| match e {
        crate::LoadError::Invalid(_) if looks_like_req(path) => ReadError::Foreign {
            path: path.to_path_buf(),
            kind: Foreign::Req,
        },
        crate::LoadError::Invalid(diagnostics) => ReadError::Invalid {
            path: path.to_path_buf(),
            diagnostics,
        },
        crate::LoadError::Read(e) => ReadError::Read(e),
    })
}

/// How a command wants its spec loaded: which requirements it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Load {
    /// Formulas only: timed requirements are refused (the command would leave them out).
    Formulas,
    /// Formulas only, and at least one of them: a spec with nothing to check is refused
    /// rather than passed as having no findings.
    Checkable,
    /// Timed requirements accepted, in discrete and in dense time.
    Timed,
    /// Timed requirements in discrete time accepted, dense time refused: the command's
    /// name, for the message.
    Discrete(&'static str),
    /// A spec about to be formalized: dense time refused, and the warnings about
    /// formulas still to be written counted rather than listed ([`Pending`]).
    Formalize,
}

/// A spec read for a command, with the warnings its user should see.
#[derive(Debug)]
pub struct Loaded {
    /// The spec (all its warnings still in [`Spec::warnings`]).
    pub spec: Spec,
    /// The warnings to show: all of them, but for [`Load::Formalize`] those that only
    /// say the formalization is still to be done (counted in `pending` instead).
    pub warnings: logic::Diagnostics,
    /// For [`Load::Formalize`]: the warnings left out of `warnings`, counted (`None`
    /// when there are none).
    pub pending: Option<Pending>,
}

/// The warnings of a spec about to be formalized that only say the formalization is
/// still to be done (requirements without a formula, variables no formula uses yet).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pending {
    /// Requirements without a formula.
    pub unformalized: usize,
    /// Warnings about missing formulas, not listed.
    pub warnings: usize,
}

impl std::fmt::Display for Pending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} requirement(s) without a formula; {} warning(s) about missing formulas not shown",
            self.unformalized, self.warnings
        )
    }
}

/// Whether a warning only says that the formalization is still to be done.
fn is_pending(l: &logic::Located) -> bool {
    l.message.ends_with("is not formalized") || l.message.ends_with("is not used by any formula")
}

/// Reads the spec at `path` for a command that loads it as `how` says ([`read_spec`]),
/// with the warnings to show; whether the command can use it is [`Loaded::usable`]
/// (asked after the warnings are shown, so that they come first).
pub fn load(
    path: &Path,
    schema: Option<&Path>,
    csv_columns: Option<&crate::CsvColumns>,
    how: Load,
) -> Result<Loaded, ReadError> {
    let spec = read_spec(path, schema, csv_columns)?;
    if how != Load::Formalize {
        let warnings = spec.warnings.clone();
        return Ok(Loaded {
            spec,
            warnings,
            pending: None,
        });
    }
    let (pending, shown): (Vec<_>, Vec<_>) = spec.warnings.0.iter().cloned().partition(is_pending);
    let pending = (!pending.is_empty()).then(|| Pending {
        unformalized: spec
            .requirements
            .iter()
            .filter(|r| r.formula.is_none())
            .count(),
        warnings: pending.len(),
    });
    let warnings = logic::Diagnostics(shown);
    Ok(Loaded {
        spec,
        warnings,
        pending,
    })
}

impl Loaded {
    /// Refuses the spec (read from `path`) when a command that loads it as `how` says
    /// cannot read it in full.
    pub fn usable(&self, path: &Path, how: Load) -> Result<(), UseError> {
        let spec = &self.spec;
        match how {
            Load::Formulas => refuse_timed(path, spec),
            Load::Checkable => refuse_timed(path, spec).and_then(|()| require_formula(path, spec)),
            Load::Timed => Ok(()),
            Load::Discrete(command) => refuse_dense(path, spec, command),
            Load::Formalize if is_dense(spec) => {
                let path = path.to_path_buf();
                Err(UseError::DenseFormalize { path })
            }
            Load::Formalize => Ok(()),
        }
    }
}

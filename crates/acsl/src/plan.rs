//! How the C files a command line names are read: one self-contained file is verified
//! as written (through harnesses cut from its text); anything else — several files,
//! preprocessor flags, a compilation database, a file with `#include "..."` or `#if`
//! lines — is preprocessed as a program. This is the policy every `vera c` command
//! follows, kept here so that it is the same for all of them.

use crate::project::{normalize, CppFlags, FlagError, Preprocessor, Program, Unit};
use crate::{Diagnostics, WpConfig, WpError};
use std::path::{Path, PathBuf};

/// How the files are preprocessed, as a compiler or the build takes it.
#[derive(Debug, Clone, Default)]
pub struct CppOptions {
    /// `-I`, `-D` and `-U` flags, as compiler arguments.
    pub args: Vec<String>,
    /// A JSON compilation database (`compile_commands.json`).
    pub compile_commands: Option<PathBuf>,
}

impl CppOptions {
    /// True when no flag and no database was given.
    pub fn is_empty(&self) -> bool {
        self.args.is_empty() && self.compile_commands.is_none()
    }
}

/// Why the files of a command line could not be read as a program.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// A preprocessor flag or the compilation database is wrong.
    #[error(transparent)]
    Flags(#[from] FlagError),
    /// A named file does not exist.
    #[error("cannot read {}: no such file", .0.display())]
    Missing(PathBuf),
    /// Preprocessing or parsing failed; every problem is located.
    #[error("{0}")]
    Syntax(Diagnostics),
    /// An output the command plans would replace a file the preprocessor read.
    #[error(transparent)]
    Output(#[from] safefile::SafeFileError),
    /// The flags cannot be handed to Frama-C.
    #[error(transparent)]
    Wp(#[from] WpError),
}

/// The translation units: the files with the flags, or the entries of the compilation
/// database (with the flags added). A file named twice is one unit.
pub fn units(files: &[PathBuf], cpp: &CppOptions) -> Result<Vec<Unit>, FlagError> {
    let cwd = std::env::current_dir().unwrap_or_default();
    let extra = CppFlags::from_args(&cpp.args, &cwd, "the command line")?;
    match &cpp.compile_commands {
        Some(db) => {
            let mut units = crate::project::read_compile_commands(db, files)?;
            for u in &mut units {
                u.flags.args.extend(extra.args.iter().cloned());
            }
            Ok(units)
        }
        None => {
            let mut seen = std::collections::BTreeSet::new();
            Ok(files
                .iter()
                .filter(|f| seen.insert(normalize(&cwd.join(f))))
                .map(|f| Unit {
                    source: f.clone(),
                    directory: cwd.clone(),
                    flags: extra.clone(),
                })
                .collect())
        }
    }
}

/// Preprocesses and parses the program, and the preprocessor it used (for a
/// [`crate::workspace::Workspace`]). Every file the preprocessor opened is registered
/// as an input, so an output named after one is refused here, before Frama-C runs.
pub fn load_program(
    files: &[PathBuf],
    cpp: &CppOptions,
    frama_c: &Path,
) -> Result<(Program, Preprocessor), PlanError> {
    let units = units(files, cpp)?;
    if let Some(u) = units.iter().find(|u| !u.source.is_file()) {
        return Err(PlanError::Missing(u.source.clone()));
    }
    let pp = Preprocessor::for_frama_c(frama_c).map_err(PlanError::Syntax)?;
    let program = Program::load(&units, &pp);
    safefile::check_planned()?;
    Ok((program.map_err(PlanError::Syntax)?, pp))
}

/// One file with preprocessor flags, for the commands that work on one file's text
/// (`strength`, `synth`): its harnesses and mutants are compiled in temporary folders,
/// so Frama-C gets the flags through `-cpp-extra-args` (added to `cfg`) and both get the
/// file's own folder as an include folder. Returns the flags for the compiler; none
/// when there are none.
pub fn unit_flags(
    file: &Path,
    cpp: &CppOptions,
    cfg: &mut WpConfig,
) -> Result<Vec<String>, PlanError> {
    if cpp.is_empty() && !includes_local_header(file) {
        return Ok(Vec::new());
    }
    let mut units = units(&[file.to_path_buf()], cpp)?;
    let cwd = std::env::current_dir().unwrap_or_default();
    let dir = normalize(&cwd.join(file))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or(cwd);
    for u in &mut units {
        u.flags.args.insert(0, format!("-I{}", dir.display()));
    }
    // Frama-C and the compiler will read the headers it includes: preprocessed once
    // here, so that every one of them is known as an input (an error is Frama-C's to
    // report, on the file itself).
    if let Ok(pp) = Preprocessor::for_frama_c(&cfg.frama_c) {
        let _ = Program::load(&units, &pp);
        safefile::check_planned()?;
    }
    let flags = units
        .into_iter()
        .next()
        .map(|u| u.flags.args)
        .unwrap_or_default();
    cfg.extra_args.push(crate::wp::cpp_extra_args(&flags)?);
    Ok(flags)
}

/// True when the command line names one file and no preprocessing flags, and the file
/// needs no preprocessor: it is verified as it is, through harnesses cut from its text.
pub fn as_written(files: &[PathBuf], cpp: &CppOptions) -> bool {
    files.len() == 1
        && cpp.is_empty()
        && !includes_local_header(&files[0])
        && !has_conditionals(&files[0])
}

/// True when `file` has an `#if`, `#ifdef` or `#ifndef` line: only the preprocessor
/// knows which branch counts (an include guard, a `DEBUG` block), so the file is
/// preprocessed rather than read as written, where the items inside the blocks would
/// not be seen.
pub fn has_conditionals(file: &Path) -> bool {
    directives(file).any(|d| d.starts_with("if"))
}

/// True when `file` has an `#include "..."` line: its headers are found next to it or
/// not at all, so it must be preprocessed in place (a missing header is then an error
/// at its line, and a contract on a prototype in the header counts) rather than
/// verified through harnesses copied elsewhere. An unreadable file answers false and is
/// reported by the reader.
pub fn includes_local_header(file: &Path) -> bool {
    directives(file).any(|d| {
        d.strip_prefix("include")
            .is_some_and(|r| r.trim_start().starts_with('"'))
    })
}

/// The directive lines of `file`, each without its `#` and the spaces around it (none
/// for an unreadable file).
fn directives(file: &Path) -> impl Iterator<Item = String> {
    let text = std::fs::read(file)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    text.lines()
        .filter_map(|l| {
            l.trim_start()
                .strip_prefix('#')
                .map(|r| r.trim_start().to_string())
        })
        .collect::<Vec<_>>()
        .into_iter()
}

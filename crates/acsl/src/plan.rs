//! How the C files a command line names are read: one self-contained file is verified
//! as written (through harnesses cut from its text); anything else — several files,
//! preprocessor flags, a compilation database, a file with `#include "..."` or `#if`
//! lines — is preprocessed as a program. This is the policy every `vera c` command
//! follows, kept here so that it is the same for all of them: [`Input::read`] reads a
//! command line's files, [`verify`] and [`strength`] are `vera c verify` and
//! `vera c strength` (one file or a program), with a typed [`CheckError`].

use crate::project::{normalize, CppFlags, FlagError, Preprocessor, Program, Unit};
use crate::verify::VerifyReport;
use crate::workspace::Workspace;
use crate::{
    CFile, Diagnostics, StrengthError, StrengthOptions, StrengthReport, WpConfig, WpError,
};
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

/// Why a command on C files gave no result. Each variant is one way it fails, so a
/// caller can say which (the command line's error report names a kind for each).
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// A named file cannot be read (it does not exist, or is not readable).
    #[error("cannot read {}: {error}", path.display())]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// The file read as written does not parse; every problem is located.
    #[error("{0}")]
    Syntax(Diagnostics),
    /// The files could not be read as a program.
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// The verifier could not run, or rejected the input.
    #[error(transparent)]
    Wp(#[from] WpError),
    /// The strength of one file read as written could not be measured (whatever the
    /// reason, the verifier's included).
    #[error(transparent)]
    FileStrength(StrengthError),
    /// The strength of a program could not be measured, for a reason other than the
    /// verifier ([`CheckError::Wp`]).
    #[error(transparent)]
    Strength(StrengthError),
}

/// One C file read as written: it must exist and parse.
pub fn read_file(path: &Path) -> Result<CFile, CheckError> {
    if let Err(error) = std::fs::metadata(path) {
        return Err(CheckError::Unreadable {
            path: path.to_path_buf(),
            error,
        });
    }
    crate::parse_c(path).map_err(CheckError::Syntax)
}

/// The C input of a command line, read the way [`as_written`] decides.
pub enum Input {
    /// One self-contained file, parsed as written.
    File(CFile),
    /// A program, preprocessed and parsed, with the preprocessor it used.
    Program(Program, Preprocessor),
}

impl Input {
    /// Reads `files`: one self-contained file as written, anything else preprocessed
    /// as a program (with `frama_c`'s preprocessor).
    pub fn read(files: &[PathBuf], cpp: &CppOptions, frama_c: &Path) -> Result<Input, CheckError> {
        if as_written(files, cpp) {
            Ok(Input::File(read_file(&files[0])?))
        } else {
            let (program, pp) = load_program(files, cpp, frama_c)?;
            Ok(Input::Program(program, pp))
        }
    }

    /// The parsed text: the file, or the program's preprocessed text.
    pub fn file(&self) -> &CFile {
        match self {
            Input::File(f) => f,
            Input::Program(p, _) => &p.file,
        }
    }

    /// The program, when the input is one.
    pub fn program(&self) -> Option<&Program> {
        match self {
            Input::File(_) => None,
            Input::Program(p, _) => Some(p),
        }
    }
}

/// A result of a command on C files and the files it is about (one file as named, or
/// a program's files).
#[derive(Debug, Clone)]
pub struct Checked<R> {
    /// The files.
    pub files: Vec<PathBuf>,
    /// The result.
    pub report: R,
}

impl<R> Checked<R> {
    /// The files on one line, separated by spaces.
    pub fn shown(&self) -> String {
        let names: Vec<String> = self.files.iter().map(|f| f.display().to_string()).collect();
        names.join(" ")
    }
}

/// `vera c verify`: the files' ACSL annotations checked with Frama-C/WP — one file
/// through harnesses cut from its text, a program on its original files.
pub fn verify(
    files: &[PathBuf],
    cpp: &CppOptions,
    cfg: &WpConfig,
) -> Result<Checked<VerifyReport>, CheckError> {
    match Input::read(files, cpp, &cfg.frama_c)? {
        Input::File(file) => Ok(Checked {
            files: vec![files[0].clone()],
            report: crate::verify_file(&file, cfg)?,
        }),
        Input::Program(program, _) => {
            let report = crate::verify::verify_program(&program, cfg)?;
            Ok(Checked {
                files: report.files.clone(),
                report,
            })
        }
    }
}

/// `vera c strength`: the variant discrimination rate of the files' specifications —
/// for one file, of mutants of its text through harnesses; for a program, of mutants
/// written into its original files in a private copy ([`Workspace`]).
pub fn strength(
    files: &[PathBuf],
    cpp: &CppOptions,
    cfg: &WpConfig,
    opts: &StrengthOptions,
) -> Result<Checked<StrengthReport>, CheckError> {
    match Input::read(files, cpp, &cfg.frama_c)? {
        Input::File(file) => Ok(Checked {
            files: vec![files[0].clone()],
            report: crate::strength_file(&file, cfg, opts).map_err(CheckError::FileStrength)?,
        }),
        Input::Program(program, pp) => {
            let ws = Workspace::new(&program, &pp)?;
            let report = crate::strength_program(&ws, cfg, opts).map_err(|e| match e {
                StrengthError::Wp(e) => CheckError::Wp(e),
                e => CheckError::Strength(e),
            })?;
            Ok(Checked {
                files: program.sources(),
                report,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_read_as_written_or_refused_with_its_reason() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing.c");
        match read_file(&missing) {
            Err(e @ CheckError::Unreadable { .. }) => {
                assert!(e.to_string().starts_with("cannot read "), "{e}")
            }
            other => panic!("not refused as unreadable: {other:?}"),
        }
        let bad = dir.path().join("bad.c");
        std::fs::write(&bad, "int f(int x){return x\n").unwrap();
        assert!(matches!(read_file(&bad), Err(CheckError::Syntax(_))));
        let good = dir.path().join("good.c");
        std::fs::write(&good, "int f(int x){return x;}\n").unwrap();
        let files = vec![good.clone()];
        let input = Input::read(&files, &CppOptions::default(), Path::new("frama-c")).unwrap();
        assert!(input.program().is_none());
        assert_eq!(input.file().items.len(), 1);
        let checked = Checked {
            files: vec![good.clone(), bad.clone()],
            report: (),
        };
        assert_eq!(
            checked.shown(),
            format!("{} {}", good.display(), bad.display())
        );
    }
}

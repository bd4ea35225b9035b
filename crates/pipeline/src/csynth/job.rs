//! `vera c synth` as one call ([`run`]): which files are synthesized how (one file as
//! written, or a program when several files or `--out-dir` are given), where the
//! annotated copies and the report go (checked before the long synthesis: no input is
//! written, no existing file without `force`), the loop itself, the copies written,
//! and the recall against a reference file. The JSON report is rendered and written by
//! the caller (its shape is `printer`'s), at [`Synthesized::report_path`].

use std::path::{Path, PathBuf};

use acsl::plan::{CheckError, CppOptions, PlanError};
use acsl::{WpConfig, WpError};
use llm::Client;

use super::SynthReport;
use super::{recall, synthesize, synthesize_program, RecallReport, SynthError, SynthOptions};

/// What to synthesize, and where the results go.
#[derive(Debug, Clone, Default)]
pub struct SynthJob {
    /// The C file, or the files of a program (never modified; with a compilation
    /// database: the units to take from it, all when none is named).
    pub files: Vec<PathBuf>,
    /// How the files are preprocessed.
    pub cpp: CppOptions,
    /// The annotated copy of one file (default: FILE.synth.c next to it).
    pub out: Option<PathBuf>,
    /// The folder of a program's annotated copies (each at its path relative to the
    /// working directory); given, the files are one program even when there is one.
    pub out_dir: Option<PathBuf>,
    /// The JSON report (default: the output with extension .json, or
    /// DIR/vera-synth.json).
    pub report: Option<PathBuf>,
    /// A copy of the one file with hand-written ACSL: recall is measured against it.
    pub reference: Option<PathBuf>,
    /// The verifier.
    pub wp: WpConfig,
    /// The loop's options (`attempts` is at least 1; the compiler flags are the
    /// file's, set here).
    pub options: SynthOptions,
    /// An existing output may be replaced (never an input).
    pub force: bool,
}

/// What [`run`] tells its caller while it works.
#[derive(Debug, Clone, Copy)]
pub enum Note<'a> {
    /// The one file read as written has `#if` blocks: the functions inside them are
    /// not seen (synthesizing it as a program would see them).
    Conditionals(&'a Path),
    /// One step of the loop (progress).
    Step(&'a str),
}

/// A finished synthesis: the annotated copies are written; the report is the
/// caller's to write at `report_path`.
#[derive(Debug, Clone)]
pub struct Synthesized {
    /// The annotated copy (one file) or the folder of the copies (a program).
    pub output: PathBuf,
    /// Where the JSON report goes (checked as an output before the synthesis).
    pub report_path: PathBuf,
    /// The loop's report.
    pub report: SynthReport,
    /// Recall against the reference file, when one was given.
    pub recall: Option<RecallReport>,
    /// What was annotated into what: `FILE -> OUT`, or `FILES -> DIR/`.
    pub shown: String,
    /// Whether the loop strengthened (and so measured the VDR).
    pub strengthen: bool,
}

/// Why a synthesis gave no result; `E` is the error of the caller's model client.
#[derive(Debug, thiserror::Error)]
pub enum JobError<E> {
    /// Several files (or none) without a folder for their copies.
    #[error("several files are one program: give --out-dir DIR for the annotated copies")]
    NoOutDir,
    /// A reference file with a program.
    #[error("--reference compares one file; it is not available for a program yet")]
    ReferenceForProgram,
    /// A C file (the input or the reference) cannot be read or does not parse.
    #[error(transparent)]
    Read(CheckError),
    /// The files cannot be read as a program, or the file's flags cannot be used.
    #[error(transparent)]
    Plan(PlanError),
    /// The program's private copy could not be made.
    #[error(transparent)]
    Wp(WpError),
    /// An output is refused by the file rules, or could not be written.
    #[error(transparent)]
    File(safefile::SafeFileError),
    /// A copy would go into a folder that is an input.
    #[error("{}: is an input folder; choose another --out-dir", .0.display())]
    InputFolder(PathBuf),
    /// A folder of the copies cannot be created.
    #[error("cannot create the output folder {}: {error} (is a part of it a file, or not writable?)", path.display())]
    CreateFolder {
        /// The folder.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// The report would replace one of the annotated copies.
    #[error("{}: the report would replace one of the annotated copies; choose another --report", .0.display())]
    ReportOverCopy(PathBuf),
    /// The model client could not be made.
    #[error("{0}")]
    Client(E),
    /// The loop failed.
    #[error(transparent)]
    Synth(SynthError),
    /// The annotated text does not parse (a bug: only comments are added).
    #[error("the annotated output does not parse: {0}")]
    Unparsable(acsl::Diagnostics),
    /// Recall against the reference could not be measured.
    #[error("recall: {0}")]
    Recall(SynthError),
}

impl<E> From<safefile::SafeFileError> for JobError<E> {
    fn from(e: safefile::SafeFileError) -> Self {
        JobError::File(e)
    }
}

/// Synthesizes `job`: one file as written when one file and no folder are given,
/// otherwise a program into `job.out_dir`. `client` makes the model client once the
/// inputs are read and the outputs checked; `note` hears the warnings and steps.
pub fn run<E>(
    job: &SynthJob,
    client: impl FnOnce() -> Result<Client, E>,
    note: &mut dyn FnMut(Note<'_>),
) -> Result<Synthesized, JobError<E>> {
    if job.files.len() != 1 || job.out_dir.is_some() {
        return run_program(job, client, note);
    }
    let path = &job.files[0];
    let file = acsl::plan::read_file(path).map_err(JobError::Read)?;
    if acsl::plan::has_conditionals(path) {
        note(Note::Conditionals(path));
    }
    let out = job
        .out
        .clone()
        .unwrap_or_else(|| path.with_extension("synth.c"));
    let report_path = job
        .report
        .clone()
        .unwrap_or_else(|| out.with_extension("json"));
    // Checked before the (long) synthesis: never an input (by identity), never an
    // existing file without force.
    safefile::register_input(path);
    safefile::plan_output(&out, job.force)?;
    safefile::plan_output(&report_path, job.force)?;
    let reference = match &job.reference {
        Some(p) => Some(acsl::plan::read_file(p).map_err(JobError::Read)?),
        None => None,
    };
    let client = client().map_err(JobError::Client)?;
    let mut wp = job.wp.clone();
    let compiler_flags = acsl::plan::unit_flags(path, &job.cpp, &mut wp).map_err(JobError::Plan)?;
    let opts = options(job, compiler_flags);
    let outcome = synthesize(&file, &client, &wp, &opts, &mut |l| note(Note::Step(l)))
        .map_err(JobError::Synth)?;
    safefile::write_atomic(&out, outcome.text.as_bytes(), job.force)?;
    let recall = match reference {
        Some(r) => {
            let mut synthesized =
                acsl::parse_c(outcome.text.as_str()).map_err(JobError::Unparsable)?;
            synthesized.path = file.path.clone();
            Some(recall(&synthesized, &r, &wp).map_err(JobError::Recall)?)
        }
        None => None,
    };
    Ok(Synthesized {
        shown: format!("{} -> {}", path.display(), out.display()),
        output: out,
        report_path,
        report: outcome.report,
        recall,
        strengthen: opts.strengthen,
    })
}

/// The loop's options of `job`, with the compiler flags of its file.
fn options(job: &SynthJob, compiler_flags: Vec<String>) -> SynthOptions {
    SynthOptions {
        attempts: job.options.attempts.max(1),
        compiler_flags,
        ..job.options.clone()
    }
}

/// A program's points of interest across its files, clauses written into copies of
/// the sources and headers under `job.out_dir`.
fn run_program<E>(
    job: &SynthJob,
    client: impl FnOnce() -> Result<Client, E>,
    note: &mut dyn FnMut(Note<'_>),
) -> Result<Synthesized, JobError<E>> {
    let Some(dir) = &job.out_dir else {
        return Err(JobError::NoOutDir);
    };
    if job.reference.is_some() {
        return Err(JobError::ReferenceForProgram);
    }
    let wp = &job.wp;
    let (program, pp) =
        acsl::plan::load_program(&job.files, &job.cpp, &wp.frama_c).map_err(JobError::Plan)?;
    let ws = acsl::workspace::Workspace::new(&program, &pp).map_err(JobError::Wp)?;
    let client = client().map_err(JobError::Client)?;
    let cwd = std::env::current_dir().unwrap_or_default();
    let force = job.force;
    // Checked before the (long) synthesis: no input is ever written, no existing
    // file without force, every folder created.
    let outputs: Vec<(PathBuf, PathBuf)> = ws
        .originals()
        .keys()
        .map(|p| (p.clone(), acsl::workspace::copy_path(dir, p, &cwd)))
        .collect();
    for (orig, _) in &outputs {
        safefile::register_input(orig);
    }
    for (_, out) in &outputs {
        if let Some(parent) = out.parent() {
            if safefile::is_input(parent) {
                return Err(JobError::InputFolder(parent.to_path_buf()));
            }
            std::fs::create_dir_all(parent).map_err(|error| JobError::CreateFolder {
                path: parent.to_path_buf(),
                error,
            })?;
        }
        safefile::plan_output(out, force)?;
    }
    let report_path = job
        .report
        .clone()
        .unwrap_or_else(|| dir.join("vera-synth.json"));
    let absolute = |p: &Path| acsl::project::normalize(&cwd.join(p));
    if outputs
        .iter()
        .any(|(_, o)| absolute(o) == absolute(&report_path))
    {
        return Err(JobError::ReportOverCopy(report_path));
    }
    safefile::plan_output(&report_path, force)?;
    let opts = options(job, Vec::new());
    let outcome = synthesize_program(&ws, &client, wp, &opts, &mut |l| note(Note::Step(l)))
        .map_err(JobError::Synth)?;
    for (abs, text) in &outcome.files {
        let out = acsl::workspace::copy_path(dir, abs, &cwd);
        safefile::write_atomic(&out, text.as_bytes(), force)?;
    }
    let names: Vec<String> = program
        .sources()
        .iter()
        .map(|f| f.display().to_string())
        .collect();
    Ok(Synthesized {
        output: dir.clone(),
        report_path,
        report: outcome.report,
        recall: None,
        shown: format!("{} -> {}/", names.join(" "), dir.display()),
        strengthen: opts.strengthen,
    })
}

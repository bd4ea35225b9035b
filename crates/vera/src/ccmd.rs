//! `vera c segments|verify|strength|synth`: C files with ACSL specifications, checked
//! with Frama-C/WP through `acsl::plan` (how a command line's files are read and
//! checked) and synthesized through `pipeline::csynth::job`. Here: the options from the
//! command line, one call, and the typed errors as the `c` commands report them.

use crate::cli::WpArgs;
use pipeline::csynth;

use crate::output::Diagnostic as DiagnosticJson;

/// An error of a `c` command: on standard error, and as `vera.error.v1` with
/// `--format json` (`crate::output::emit_error`).
fn fail(kind: &'static str, message: String, diags: &[DiagnosticJson]) -> anyhow::Error {
    crate::output::Failure {
        kind,
        message,
        diagnostics: diags.to_vec(),
        shown: false,
    }
    .into()
}

/// Parse or preprocessing problems, every one located (shown on standard error as the
/// front end writes them).
fn diagnostics(d: acsl::Diagnostics) -> anyhow::Error {
    eprintln!("{d}");
    let items = DiagnosticJson::of_c(&d);
    let message = format!("{} problem(s) in the C input", items.len());
    crate::output::Failure {
        kind: "syntax",
        message,
        diagnostics: items,
        shown: true,
    }
    .into()
}

/// A verifier error.
fn wp_fail(e: acsl::WpError) -> anyhow::Error {
    let (kind, diags) = (e.kind(), DiagnosticJson::of_wp(&e));
    let message = format!("{:#}", anyhow::Error::from(e));
    fail(kind, message, &diags)
}

/// The command line's preprocessing flags, as `acsl::plan` takes them.
fn cpp(c: &crate::cli::CppArgs) -> acsl::plan::CppOptions {
    acsl::plan::CppOptions {
        args: c.args(),
        compile_commands: c.compile_commands.clone(),
    }
}

/// A planning error of `acsl::plan`, in the shape of the other `c` errors.
fn plan_fail(e: acsl::plan::PlanError) -> anyhow::Error {
    use acsl::plan::PlanError;
    match e {
        PlanError::Flags(e) => fail("flags", e.to_string(), &[]),
        PlanError::Missing(_) => fail("input", e.to_string(), &[]),
        PlanError::Syntax(d) => diagnostics(d),
        PlanError::Wp(e) => wp_fail(e),
        PlanError::Output(e) => e.into(),
    }
}

/// An error of `acsl::plan`'s reading and checking, in the shape of the other `c`
/// errors.
fn check_fail(e: acsl::plan::CheckError) -> anyhow::Error {
    use acsl::plan::CheckError;
    match e {
        CheckError::Unreadable { .. } => fail("input", e.to_string(), &[]),
        CheckError::Syntax(d) => diagnostics(d),
        CheckError::Plan(e) => plan_fail(e),
        CheckError::Wp(e) => wp_fail(e),
        CheckError::FileStrength(e) => e.into(),
        CheckError::Strength(e) => fail("strength", e.to_string(), &[]),
    }
}

/// `vera c segments FILE...`
pub fn segments(a: &crate::cli::CSegmentsArgs) -> crate::output::Outcome {
    let input =
        acsl::plan::Input::read(&a.files, &cpp(&a.cpp), &WpArgs::frama_c()).map_err(check_fail)?;
    Ok(Box::new(printer::c::segments_report(
        input.file(),
        input.program(),
    )))
}

/// `vera c verify FILE...`
pub fn verify(a: &crate::cli::CVerifyArgs) -> crate::output::Outcome {
    let checked = acsl::plan::verify(&a.files, &cpp(&a.cpp), &a.wp.config()).map_err(check_fail)?;
    Ok(Box::new(printer::c::verify_report(
        checked.shown(),
        checked.report,
    )))
}

/// `vera c strength FILE...`
pub fn strength(a: &crate::cli::CStrengthArgs) -> crate::output::Outcome {
    let options = acsl::StrengthOptions {
        max_mutants: a.max_mutants,
        ..Default::default()
    };
    let checked = acsl::plan::strength(&a.files, &cpp(&a.cpp), &a.wp.config(), &options)
        .map_err(check_fail)?;
    Ok(Box::new(printer::c::strength_report(
        checked.shown(),
        checked.report,
    )))
}

/// Options of `vera c synth`.
#[derive(Debug, clap::Args)]
pub struct SynthArgs {
    /// The C file, or the files of a program (they are never modified; with
    /// --compile-commands: the units to take from it, all when none is named).
    #[arg(required_unless_present = "compile_commands")]
    pub files: Vec<std::path::PathBuf>,
    /// The annotated copy to write (default: FILE.synth.c next to the input); one
    /// file only.
    #[arg(long, conflicts_with = "out_dir")]
    pub out: Option<std::path::PathBuf>,
    /// Treat the files as one program and write an annotated copy of each of its
    /// own files (sources and the headers they include) under DIR, at its path
    /// relative to the working directory. Needed for several files.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<std::path::PathBuf>,
    /// The JSON report to write (default: the output with extension .json, or
    /// DIR/vera-synth.json).
    #[arg(long)]
    pub report: Option<std::path::PathBuf>,
    /// Answers per point of interest: the first one and the repairs.
    #[arg(long, default_value_t = 3)]
    pub attempts: usize,
    /// Skip the VDR-guided strengthening (the VDR is then not measured).
    #[arg(long)]
    pub no_strengthen: bool,
    /// Strengthening rounds per segment.
    #[arg(long, default_value_t = 1)]
    pub refine_rounds: usize,
    /// At most this many mutants per segment.
    #[arg(long, default_value_t = 16)]
    pub max_mutants: usize,
    /// A copy of the file with hand-written ACSL: report recall against it.
    #[arg(long)]
    pub reference: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub cpp: crate::cli::CppArgs,
    #[command(flatten)]
    pub llm: crate::llmcmd::LlmArgs,
    #[command(flatten)]
    pub wp: WpArgs,
    #[command(flatten)]
    pub output: crate::cli::TextOutputArgs,
}

/// A synthesis that gave no result, in the shape of the other `c` errors (a failed
/// loop shown, with a hint when the live model did not answer).
fn synth_failed(a: &SynthArgs, e: csynth::job::JobError<anyhow::Error>) -> anyhow::Error {
    use csynth::job::JobError;
    match e {
        JobError::NoOutDir | JobError::ReferenceForProgram => fail("usage", e.to_string(), &[]),
        JobError::Read(e) => check_fail(e),
        JobError::Plan(e) => plan_fail(e),
        JobError::Wp(e) => wp_fail(e),
        JobError::File(e) => e.into(),
        JobError::Client(e) => {
            eprintln!("error: {e:#}");
            crate::output::Reported.into()
        }
        JobError::Synth(e) => {
            eprintln!("error: {e}");
            if a.llm.replay.is_none() && matches!(e, csynth::SynthError::Llm(_)) {
                eprintln!("hint: with the local model, is it running? `scripts/local-llm start`");
            }
            crate::output::Reported.into()
        }
        JobError::Recall(_) => {
            eprintln!("error: {e}");
            crate::output::Reported.into()
        }
        JobError::InputFolder(_)
        | JobError::CreateFolder { .. }
        | JobError::ReportOverCopy(_)
        | JobError::Unparsable(_) => anyhow::anyhow!("{e}"),
    }
}

/// `vera c synth FILE`, or `vera c synth FILE... --out-dir DIR`
pub fn synth(a: &SynthArgs) -> crate::output::Outcome {
    let job = csynth::job::SynthJob {
        files: a.files.clone(),
        cpp: cpp(&a.cpp),
        out: a.out.clone(),
        out_dir: a.out_dir.clone(),
        report: a.report.clone(),
        reference: a.reference.clone(),
        wp: a.wp.config(),
        options: csynth::SynthOptions {
            attempts: a.attempts,
            strengthen: !a.no_strengthen,
            refine_rounds: a.refine_rounds,
            max_mutants: Some(a.max_mutants),
            ..Default::default()
        },
        force: crate::files::force(),
    };
    let human = a.output.format == crate::cli::TextFormat::Human;
    let mut note = |n: csynth::job::Note<'_>| {
        match n {
        csynth::job::Note::Conditionals(path) => eprintln!(
            "warning: {} has #if/#ifdef blocks: functions inside them are not seen when one file is read as written; give --out-dir DIR to synthesize it as a preprocessed program",
            path.display()
        ),
        csynth::job::Note::Step(l) => {
            if human {
                eprintln!("{l}");
            }
        }
    }
    };
    let done =
        csynth::job::run(&job, || a.llm.client(), &mut note).map_err(|e| synth_failed(a, e))?;
    let (json, report) = printer::c::synth_json(&done.output, done.report, done.recall)?;
    safefile::write_atomic(&done.report_path, json.as_bytes(), job.force)?;
    Ok(Box::new(printer::c::synth_report(
        &done.shown,
        report,
        &done.report_path,
        done.strengthen,
    )?))
}

//! `vera c segments|verify|strength|synth`: C files with ACSL specifications, checked
//! with Frama-C/WP through `acsl::plan` (how a command line's files are read and
//! checked) and synthesized through `pipeline::csynth::job`. Here: the options from the
//! command line, one call, and the typed errors as the `c` commands report them.

use crate::cli::WpArgs;
use acsl::plan::{CheckError, PlanError};
use pipeline::csynth;

/// An error of a `c` command as `printer::c` reports it: the front end's located
/// problems on standard error first, then the failure (`crate::output::emit_error`).
fn failed((failure, stderr): printer::c::CFailure) -> anyhow::Error {
    if let Some(text) = stderr {
        eprintln!("{text}");
    }
    failure.into()
}

/// A planning error of `acsl::plan`, in the shape of the other `c` errors.
fn plan_fail(e: PlanError) -> anyhow::Error {
    match printer::c::plan_failure(e) {
        Ok(f) => failed(f),
        Err(PlanError::Output(e)) => e.into(),
        Err(e) => e.into(),
    }
}

/// An error of `acsl::plan`'s reading and checking, in the shape of the other `c`
/// errors.
fn check_fail(e: CheckError) -> anyhow::Error {
    match printer::c::check_failure(e) {
        Ok(f) => failed(f),
        Err(CheckError::FileStrength(e)) => e.into(),
        Err(CheckError::Plan(e)) => plan_fail(e),
        Err(e) => e.into(),
    }
}

/// The command line's preprocessing flags, as `acsl::plan` takes them.
fn cpp(c: &crate::cli::CppArgs) -> acsl::plan::CppOptions {
    acsl::plan::CppOptions {
        args: c.args(),
        compile_commands: c.compile_commands.clone(),
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

/// A synthesis that gave no result, in the shape of the other `c` errors (a failed
/// loop shown, with a hint when the live model did not answer).
fn synth_failed(
    a: &crate::cli::SynthArgs,
    e: csynth::job::JobError<anyhow::Error>,
) -> anyhow::Error {
    use csynth::job::JobError;
    match e {
        JobError::NoOutDir | JobError::ReferenceForProgram => {
            printer::output::Failure::new("usage", e.to_string(), Vec::new()).into()
        }
        JobError::Read(e) => check_fail(e),
        JobError::Plan(e) => plan_fail(e),
        JobError::Wp(e) => failed(printer::c::wp_failure(e)),
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
pub fn synth(a: &crate::cli::SynthArgs) -> crate::output::Outcome {
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

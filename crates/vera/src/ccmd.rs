//! `vera c segments|verify|strength`: C files with ACSL specifications, checked with
//! Frama-C/WP, through the `acsl` crate.

use crate::cli::WpArgs;
use anyhow::Result;
use std::path::Path;

fn parse(path: &Path) -> Result<Option<acsl::CFile>> {
    parse_as(path)
}

/// Parse one C file; a syntax error is shown and gives
/// `None`.
fn parse_as(path: &Path) -> Result<Option<acsl::CFile>> {
    if let Err(e) = std::fs::metadata(path) {
        return Err(fail(
            "input",
            format!("cannot read {}: {e}", path.display()),
            &[],
        ));
    }
    match acsl::parse_c(path) {
        Ok(f) => Ok(Some(f)),
        Err(d) => Err(diagnostics(d)),
    }
}

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
    let file = d.file.as_ref().map(|p| p.display().to_string());
    let items: Vec<DiagnosticJson> = d
        .items
        .iter()
        .map(|i| DiagnosticJson {
            file: i
                .file
                .as_ref()
                .map(|p| p.display().to_string())
                .or_else(|| file.clone()),
            line: Some(i.line).filter(|l| *l > 0),
            column: Some(i.column).filter(|c| *c > 0),
            message: i.message.clone(),
        })
        .collect();
    let n = items.len();
    crate::output::Failure {
        kind: "syntax",
        message: format!("{n} problem(s) in the C input"),
        diagnostics: items,
        shown: true,
    }
    .into()
}

/// A verifier error.
fn wp_fail(e: acsl::WpError) -> anyhow::Error {
    let kind = e.kind();
    let diags: Vec<DiagnosticJson> = match &e {
        acsl::WpError::FramaC { messages, .. } => messages
            .iter()
            .map(|m| DiagnosticJson {
                file: None,
                line: None,
                column: None,
                message: m.clone(),
            })
            .collect(),
        _ => Vec::new(),
    };
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

/// [`acsl::plan::load_program`], its errors shown.
fn load_program_with(
    files: &[std::path::PathBuf],
    c: &crate::cli::CppArgs,
    frama_c: &Path,
) -> Result<(acsl::Program, acsl::Preprocessor)> {
    acsl::plan::load_program(files, &cpp(c), frama_c).map_err(plan_fail)
}

/// The program the command line names, preprocessed and parsed.
fn load_program(
    files: &[std::path::PathBuf],
    c: &crate::cli::CppArgs,
    frama_c: &Path,
) -> Result<acsl::Program> {
    load_program_with(files, c, frama_c).map(|(p, _)| p)
}

/// True when the files are read as written (see [`acsl::plan::as_written`]).
fn single(files: &[std::path::PathBuf], c: &crate::cli::CppArgs) -> bool {
    acsl::plan::as_written(files, &cpp(c))
}

/// `vera c segments FILE...`
pub fn segments(a: &crate::cli::CSegmentsArgs) -> crate::output::Outcome {
    let program = if single(&a.files, &a.cpp) {
        None
    } else {
        let frama_c = crate::cli::WpArgs::frama_c();
        Some(load_program(&a.files, &a.cpp, &frama_c)?)
    };
    let file = match &program {
        Some(p) => p.file.clone(),
        None => match parse_as(&a.files[0])? {
            Some(f) => f,
            None => return Err(crate::output::Reported.into()),
        },
    };
    Ok(Box::new(printer::c::segments_report(
        &file,
        program.as_ref(),
    )))
}

/// `vera c verify FILE...`
pub fn verify(a: &crate::cli::CVerifyArgs) -> crate::output::Outcome {
    let cfg = a.wp.config();
    let (shown, report) = if single(&a.files, &a.cpp) {
        let path = a.files[0].as_path();
        if parse_as(path)?.is_none() {
            return Err(crate::output::Reported.into());
        }
        let report = acsl::verify(path, &cfg).map_err(wp_fail)?;
        (path.display().to_string(), report)
    } else {
        let program = load_program(&a.files, &a.cpp, &cfg.frama_c)?;
        let report = acsl::verify::verify_program(&program, &cfg).map_err(wp_fail)?;
        let names: Vec<String> = report
            .files
            .iter()
            .map(|f| f.display().to_string())
            .collect();
        (names.join(" "), report)
    };
    Ok(Box::new(printer::c::verify_report(shown, report)))
}

/// `vera c strength FILE...`
pub fn strength(a: &crate::cli::CStrengthArgs) -> crate::output::Outcome {
    let cfg = a.wp.config();
    let options = acsl::StrengthOptions {
        max_mutants: a.max_mutants,
        ..Default::default()
    };
    let (report, shown) = if single(&a.files, &a.cpp) {
        // One self-contained file: mutants of its text, through harnesses.
        let path = &a.files[0];
        if parse(path)?.is_none() {
            return Err(crate::output::Reported.into());
        }
        (
            acsl::strength(path, &cfg, &options)?,
            path.display().to_string(),
        )
    } else {
        // A program: mutants written into its original files in a private copy.
        let (program, pp) = load_program_with(&a.files, &a.cpp, &cfg.frama_c)?;
        let ws = acsl::workspace::Workspace::new(&program, &pp).map_err(wp_fail)?;
        let report = acsl::strength_program(&ws, &cfg, &options).map_err(|e| match e {
            acsl::StrengthError::Wp(e) => wp_fail(e),
            e => fail("strength", e.to_string(), &[]),
        })?;
        let names: Vec<String> = program
            .sources()
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        (report, names.join(" "))
    };
    Ok(Box::new(printer::c::strength_report(shown, report)))
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

/// The model client of `vera c synth`, its error shown.
fn synth_client(a: &SynthArgs) -> Result<llm::Client> {
    a.llm.client().map_err(|e| {
        eprintln!("error: {e:#}");
        crate::output::Reported.into()
    })
}

/// The synthesis options the command line gives.
fn synth_options(a: &SynthArgs, compiler_flags: Vec<String>) -> pipeline::csynth::SynthOptions {
    pipeline::csynth::SynthOptions {
        attempts: a.attempts.max(1),
        strengthen: !a.no_strengthen,
        refine_rounds: a.refine_rounds,
        max_mutants: Some(a.max_mutants),
        compiler_flags,
        ..Default::default()
    }
}

/// A synthesis that failed, shown (with a hint when the live model did not answer).
fn synth_failed(a: &SynthArgs, e: pipeline::csynth::SynthError) -> anyhow::Error {
    eprintln!("error: {e}");
    if a.llm.replay.is_none() && matches!(e, pipeline::csynth::SynthError::Llm(_)) {
        eprintln!("hint: with the local model, is it running? `scripts/local-llm start`");
    }
    crate::output::Reported.into()
}

/// `vera c synth FILE`, or `vera c synth FILE... --out-dir DIR`
pub fn synth(a: &SynthArgs) -> crate::output::Outcome {
    use pipeline::csynth;
    if a.files.len() != 1 || a.out_dir.is_some() {
        return synth_program(a);
    }
    let path = &a.files[0];
    let Some(file) = parse(path)? else {
        return Err(crate::output::Reported.into());
    };
    if acsl::plan::has_conditionals(path) {
        // Read as written, the file's `#if` blocks are opaque: say so rather than
        // skip their functions silently.
        eprintln!(
            "warning: {} has #if/#ifdef blocks: functions inside them are not seen when one file is read as written; give --out-dir DIR to synthesize it as a preprocessed program",
            path.display()
        );
    }
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| path.with_extension("synth.c"));
    let report_path = a
        .report
        .clone()
        .unwrap_or_else(|| out.with_extension("json"));
    // Checked before the (long) synthesis: never an input (by identity), never an
    // existing file without --force.
    safefile::register_input(path);
    safefile::plan_output(&out, crate::files::force())?;
    safefile::plan_output(&report_path, crate::files::force())?;
    let reference = match &a.reference {
        Some(p) => match parse(p)? {
            Some(f) => Some(f),
            None => return Err(crate::output::Reported.into()),
        },
        None => None,
    };
    let client = synth_client(a)?;
    let mut wp = a.wp.config();
    let compiler_flags = acsl::plan::unit_flags(path, &cpp(&a.cpp), &mut wp).map_err(plan_fail)?;
    let opts = synth_options(a, compiler_flags);
    let human = a.output.format == crate::cli::TextFormat::Human;
    let mut log = |l: &str| {
        if human {
            eprintln!("{l}");
        }
    };
    let outcome =
        csynth::synthesize(&file, &client, &wp, &opts, &mut log).map_err(|e| synth_failed(a, e))?;
    safefile::write_atomic(&out, outcome.text.as_bytes(), crate::files::force())?;
    let recall = match reference {
        Some(r) => {
            let mut synthesized = acsl::parse_c(outcome.text.as_str())
                .map_err(|d| anyhow::anyhow!("the annotated output does not parse: {d}"))?;
            synthesized.path = file.path.clone();
            match csynth::recall(&synthesized, &r, &wp) {
                Ok(rc) => Some(rc),
                Err(e) => {
                    eprintln!("error: recall: {e}");
                    return Err(crate::output::Reported.into());
                }
            }
        }
        None => None,
    };
    let (json, report) = printer::c::synth_json(&out, outcome.report, recall)?;
    safefile::write_atomic(&report_path, json.as_bytes(), crate::files::force())?;
    let shown = format!("{} -> {}", path.display(), out.display());
    Ok(Box::new(printer::c::synth_report(
        &shown,
        report,
        &report_path,
        opts.strengthen,
    )?))
}

/// `vera c synth FILE... --out-dir DIR`: the program's points of interest
/// across its files, clauses written into copies of the sources and headers.
fn synth_program(a: &SynthArgs) -> crate::output::Outcome {
    use pipeline::csynth;
    let json = a.output.format != crate::cli::TextFormat::Human;
    let Some(dir) = &a.out_dir else {
        return Err(fail(
            "usage",
            "several files are one program: give --out-dir DIR for the annotated copies".into(),
            &[],
        ));
    };
    if a.reference.is_some() {
        return Err(fail(
            "usage",
            "--reference compares one file; it is not available for a program yet".into(),
            &[],
        ));
    }
    let wp = a.wp.config();
    let (program, pp) = load_program_with(&a.files, &a.cpp, &wp.frama_c)?;
    let ws = acsl::workspace::Workspace::new(&program, &pp).map_err(wp_fail)?;
    let client = synth_client(a)?;
    let cwd = std::env::current_dir().unwrap_or_default();
    let force = crate::files::force();
    // Checked before the (long) synthesis: no input is ever written, no existing
    // file without --force, every folder created.
    let outputs: Vec<(std::path::PathBuf, std::path::PathBuf)> = ws
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
                anyhow::bail!(
                    "{}: is an input folder; choose another --out-dir",
                    parent.display()
                );
            }
            std::fs::create_dir_all(parent).map_err(|e| {
                anyhow::anyhow!(
                    "cannot create the output folder {}: {e} (is a part of it a file, or not writable?)",
                    parent.display()
                )
            })?;
        }
        safefile::plan_output(out, force)?;
    }
    let report_path = a
        .report
        .clone()
        .unwrap_or_else(|| dir.join("vera-synth.json"));
    let absolute = |p: &Path| acsl::project::normalize(&cwd.join(p));
    if outputs
        .iter()
        .any(|(_, o)| absolute(o) == absolute(&report_path))
    {
        anyhow::bail!(
            "{}: the report would replace one of the annotated copies; choose another --report",
            report_path.display()
        );
    }
    safefile::plan_output(&report_path, force)?;
    let opts = synth_options(a, Vec::new());
    let human = !json;
    let mut log = |l: &str| {
        if human {
            eprintln!("{l}");
        }
    };
    let outcome = csynth::synthesize_program(&ws, &client, &wp, &opts, &mut log)
        .map_err(|e| synth_failed(a, e))?;
    for (abs, text) in &outcome.files {
        let out = acsl::workspace::copy_path(dir, abs, &cwd);
        safefile::write_atomic(&out, text.as_bytes(), force)?;
    }
    let (json, report) = printer::c::synth_json(dir, outcome.report, None)?;
    safefile::write_atomic(&report_path, json.as_bytes(), force)?;
    let names: Vec<String> = program
        .sources()
        .iter()
        .map(|f| f.display().to_string())
        .collect();
    let shown = format!("{} -> {}/", names.join(" "), dir.display());
    Ok(Box::new(printer::c::synth_report(
        &shown,
        report,
        &report_path,
        !a.no_strengthen,
    )?))
}

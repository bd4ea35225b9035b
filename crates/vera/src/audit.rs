//! `vera audit` and `vera ask`: terminal and JSON reports for the requirement audits
//! and scenario questions of the `reqs` crate.

use anyhow::{Context as _, Result};
use reqs::input::{Load, ReadError};
use reqs::summary::summarize;
use reqs::{AuditOptions, Spec};
use std::path::Path;

/// Loads a TOML spec, or a CSV of requirements over a TOML schema, as `how` says
/// (`reqs::input::load`): its warnings and notes on standard error, then refused if
/// the command cannot read it in full (a command that reads formulas only would
/// silently leave timed requirements out).
pub fn load(path: &Path, schema: Option<&Path>, how: Load) -> Result<Spec> {
    let columns = crate::files::csv_columns();
    let loaded = reqs::input::load(path, schema, columns, how).map_err(read_failed)?;
    if !loaded.warnings.0.is_empty() {
        eprintln!("{}", loaded.warnings);
    }
    loaded.usable(path, how)?;
    if let Some(pending) = &loaded.pending {
        eprintln!("note: {pending}");
    }
    Ok(loaded.spec)
}

/// Whatever keeps a spec from being read is bad input.
fn read_failed(e: ReadError) -> anyhow::Error {
    crate::output::input_error(match e {
        ReadError::Foreign { path, kind } => {
            anyhow::anyhow!("{}", printer::audit::not_a_spec_hint(&path, kind))
        }
        // Printed as they are (warnings as `warning:`), then one line that says so.
        ReadError::Invalid {
            ref diagnostics, ..
        } => {
            eprintln!("{diagnostics}");
            crate::output::Failure {
                kind: "input",
                message: e.to_string(),
                diagnostics: crate::output::Diagnostic::errors_of(diagnostics),
                shown: false,
            }
            .into()
        }
        other => anyhow::anyhow!("{other}"),
    })
}

/// [`load`], every problem as bad input ([`crate::output::input_error`]).
pub fn load_or_report(path: &Path, schema: Option<&Path>, how: Load) -> Result<Spec> {
    load(path, schema, how).map_err(crate::output::input_error)
}

/// `vera audit` on a spec with a `[time]` table: the audits on traces.
fn audit_timed(a: &crate::cli::AuditArgs) -> crate::output::Outcome {
    use reqs::timed::request::{audit_timed_request, RequestError, TimedRequest};
    let solver = &a.solver;
    let spec = load_or_report(&a.spec, a.csv.schema.as_deref(), Load::Timed)?;
    let mut audit = AuditOptions::new(solver.config());
    audit.jobs = solver.jobs();
    audit.max_conflicts = a.all_conflicts.max(1);
    // Bars only for a person watching: elsewhere the audit is told of no observer,
    // and its loops skip the calls.
    use std::io::IsTerminal;
    let progress = if std::io::stderr().is_terminal() {
        let bar = std::sync::Arc::new(crate::progress::Bar::default());
        reqs::progress::Progress::to(bar)
    } else {
        reqs::progress::Progress::default()
    };
    let request = TimedRequest {
        audit,
        horizon: a.horizon.clone(),
        rt_horizon: a.rt_horizon.clone(),
        no_rt: a.no_rt,
        bmc_depth: a.depth,
        no_redundancy: a.no_redundancy,
        progress,
    };
    let file = a.spec.display().to_string();
    let start = std::time::Instant::now();
    let report = audit_timed_request(&spec, &file, &request).map_err(|e| match e {
        RequestError::Timed(_) | RequestError::Dense(_) => {
            anyhow::Error::new(e).context(format!("auditing {file}"))
        }
        other => other.into(),
    })?;
    drop(request); // the last owner of the bar: it is cleared before the report
    let (solver, seconds) = (solver.config().kind.to_string(), start.elapsed());
    let (witnesses, seconds) = (a.witnesses, seconds.as_secs_f64());
    Ok(printer::timed::TimedRun::of(
        file, spec, report, witnesses, solver, seconds,
    ))
}

/// `vera audit SPEC`
pub fn audit(a: &crate::cli::AuditArgs) -> crate::output::Outcome {
    if reqs::input::is_timed_file(&a.spec) {
        return audit_timed(a);
    }
    let (path, schema, solver) = (&a.spec, a.csv.schema.as_deref(), &a.solver);
    let (max_conflicts, witnesses) = (a.all_conflicts, a.witnesses);
    let cache = (!a.no_cache).then_some(a.cache_dir.as_path());
    let spec = load_or_report(path, schema, Load::Checkable)?;
    let mut options = AuditOptions::new(solver.config());
    options.jobs = solver.jobs();
    options.max_conflicts = max_conflicts.max(1);
    // A transcript records the queries of this run: nothing is taken from the cache.
    let cache = cache.filter(|_| solver.transcript.is_none());
    options.cache_dir = cache.map(Path::to_path_buf);
    let start = std::time::Instant::now();
    let report =
        reqs::audit(&spec, &options).with_context(|| format!("auditing {}", path.display()))?;
    let seconds = start.elapsed().as_secs_f64();
    if let (Some(dir), Some(e)) = (cache, &report.cache_error) {
        eprintln!(
            "warning: the audit cache in {} was not updated: {e}",
            dir.display()
        );
    }
    let summary = summarize(&spec, &report);
    Ok(Box::new(printer::audit::AuditRun {
        file: path.display().to_string(),
        spec,
        report,
        summary,
        witnesses,
        cached: cache.is_some(),
        solver: solver.config().kind.to_string(),
        seconds,
    }))
}

/// `vera ask SPEC ...`
pub fn ask(args: &crate::cli::AskArgs) -> crate::output::Outcome {
    if reqs::input::is_timed_file(&args.spec) {
        return crate::timed_ask::ask(args);
    }
    let spec = load_or_report(&args.spec, args.csv.schema.as_deref(), Load::Checkable)?;
    let mut asker = reqs::Asker::new(&spec, &args.solver.config())?;
    if args.derive {
        let scenario = asker.formula("--scenario", args.scenario.as_deref().unwrap_or("true"))?;
        let d = asker.derive(&scenario)?;
        let scenario = logic::print::term(&scenario);
        return Ok(Box::new(printer::ask::derive_report(scenario, d)));
    }
    let asked = asker.ask_all(&questions_of(args)?)?;
    let file = args.questions.as_ref().map(|q| q.display().to_string());
    let answers = asked.into_iter().map(Into::into).collect();
    Ok(Box::new(printer::ask::ask_report(answers, file)))
}

/// The questions of `vera ask`: the questions file, or the one `--claim`.
pub(crate) fn questions_of(args: &crate::cli::AskArgs) -> Result<Vec<reqs::Question>> {
    let given = (args.claim.as_deref(), args.scenario.as_deref());
    let questions = match reqs::ask::claim_question(given.0, given.1, args.questions.is_some())? {
        Some(q) => vec![q],
        None => {
            let q = args.questions.as_deref().expect("a questions file");
            reqs::ask::load_questions(&safefile::read_text(q)?, &q.display().to_string())
                .map_err(|d| anyhow::anyhow!("{d}"))?
        }
    };
    reqs::ask::check_questions(&questions)?;
    Ok(questions)
}

/// `vera mutate SPEC`
pub fn mutate(a: &crate::cli::MutateArgs) -> crate::output::Outcome {
    let (path, schema, solver) = (&a.spec, a.csv.schema.as_deref(), &a.solver);
    let spec = load_or_report(path, schema, Load::Formulas)?;
    let start = std::time::Instant::now();
    let report = reqs::mutate::analyze(&spec, &solver.config(), solver.jobs())?;
    let seconds = start.elapsed().as_secs_f64();
    Ok(Box::new(printer::mutate::mutate_report(
        &spec, report, seconds,
    )))
}

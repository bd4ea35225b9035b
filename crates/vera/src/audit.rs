//! `vera audit` and `vera ask`: terminal and JSON reports for the requirement audits
//! and scenario questions of the `reqs` crate.

use anyhow::{Context as _, Result};
use reqs::summary::summarize;
use reqs::{AuditOptions, Spec};
use std::path::Path;

/// Loads a TOML spec, or a CSV of requirements over a TOML schema. A spec with timed
/// requirements is refused: only `vera audit` reads them ([`load_spec_timed`]), and
/// another command would silently leave them out.
pub fn load_spec(path: &Path, schema: Option<&Path>) -> Result<Spec> {
    let spec = load_spec_with(path, schema, |_| true)?;
    reqs::input::refuse_timed(path, &spec)?;
    Ok(spec)
}

/// [`load_spec`] that accepts timed requirements.
pub fn load_spec_timed(path: &Path, schema: Option<&Path>) -> Result<Spec> {
    load_spec_with(path, schema, |_| true)
}

/// [`load_spec_timed`] for the commands that read discrete time only: a spec read in
/// dense time is refused rather than read as if its patterns were not there.
pub fn load_spec_discrete(path: &Path, schema: Option<&Path>, command: &str) -> Result<Spec> {
    let spec = load_spec_timed(path, schema)?;
    reqs::input::refuse_dense(path, &spec, command)?;
    Ok(spec)
}

/// [`load_spec`] for a spec about to be formalized: the warnings that only say the
/// formalization is still to be done (requirements without a formula, variables no
/// formula uses yet) are counted on one line instead of printed one by one.
pub fn load_spec_to_formalize(path: &Path, schema: Option<&Path>) -> Result<Spec> {
    let pending = |l: &logic::Located| {
        l.message.ends_with("is not formalized")
            || l.message.ends_with("is not used by any formula")
    };
    let spec = load_spec_with(path, schema, |l| !pending(l))?;
    if reqs::input::is_dense(&spec) {
        let path = path.to_path_buf();
        return Err(reqs::input::UseError::DenseFormalize { path }.into());
    }
    let n = spec.warnings.0.iter().filter(|l| pending(l)).count();
    if n > 0 {
        eprintln!(
            "note: {} requirement(s) without a formula; {n} warning(s) about missing formulas not shown",
            spec.requirements.iter().filter(|r| r.formula.is_none()).count()
        );
    }
    Ok(spec)
}

fn load_spec_with(
    path: &Path,
    schema: Option<&Path>,
    show: impl Fn(&logic::Located) -> bool,
) -> Result<Spec> {
    // Whatever keeps a spec from loading is bad input.
    read_spec(path, schema, show).map_err(crate::output::input_error)
}

fn read_spec(
    path: &Path,
    schema: Option<&Path>,
    show: impl Fn(&logic::Located) -> bool,
) -> Result<Spec> {
    use reqs::input::ReadError;
    let spec =
        reqs::input::read_spec(path, schema, crate::files::csv_columns()).map_err(|e| match e {
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
        })?;
    let shown = logic::Diagnostics(
        spec.warnings
            .0
            .iter()
            .filter(|l| show(l))
            .cloned()
            .collect(),
    );
    if !shown.0.is_empty() {
        eprintln!("{shown}");
    }
    Ok(spec)
}

/// [`load_spec`], its problems as bad input ([`crate::output::input_error`]).
pub fn load_or_report(path: &Path, schema: Option<&Path>) -> anyhow::Result<Spec> {
    load_spec(path, schema).map_err(crate::output::input_error)
}

/// `vera audit` on a spec with a `[time]` table: the audits on traces.
fn audit_timed(a: &crate::cli::AuditArgs) -> crate::output::Outcome {
    use reqs::timed::request::{audit_timed_request, RequestError, TimedRequest};
    let solver = &a.solver;
    let spec =
        load_spec_timed(&a.spec, a.csv.schema.as_deref()).map_err(crate::output::input_error)?;
    let mut audit = AuditOptions::new(solver.config());
    audit.jobs = solver.jobs();
    audit.max_conflicts = a.all_conflicts.max(1);
    let request = TimedRequest {
        audit,
        horizon: a.horizon.clone(),
        rt_horizon: a.rt_horizon.clone(),
        no_rt: a.no_rt,
        bmc_depth: a.depth,
        no_redundancy: a.no_redundancy,
    };
    let file = a.spec.display().to_string();
    let start = std::time::Instant::now();
    let report = audit_timed_request(&spec, &file, &request).map_err(|e| match e {
        RequestError::Timed(_) | RequestError::Dense(_) => {
            anyhow::Error::new(e).context(format!("auditing {file}"))
        }
        other => other.into(),
    })?;
    let (solver, seconds) = (solver.config().kind.to_string(), start.elapsed());
    let (witnesses, seconds) = (a.witnesses, seconds.as_secs_f64());
    Ok(printer::timed::TimedRun::of(
        file, spec, report, witnesses, solver, seconds,
    ))
}

/// [`load_or_report`] for the commands that check formulas: a spec without a single
/// formalized requirement (an empty file, a CSV with only its header row) is reported
/// as having nothing to check, never passed as "no findings".
pub fn load_checkable(path: &Path, schema: Option<&Path>) -> anyhow::Result<Spec> {
    let spec = load_or_report(path, schema)?;
    reqs::input::require_formula(path, &spec).map_err(|e| crate::output::input_error(e.into()))?;
    Ok(spec)
}

/// `vera audit SPEC`
pub fn audit(a: &crate::cli::AuditArgs) -> crate::output::Outcome {
    if reqs::input::is_timed_file(&a.spec) {
        return audit_timed(a);
    }
    let (path, schema, solver) = (&a.spec, a.csv.schema.as_deref(), &a.solver);
    let (max_conflicts, witnesses) = (a.all_conflicts, a.witnesses);
    let cache = (!a.no_cache).then_some(a.cache_dir.as_path());
    let spec = load_checkable(path, schema)?;
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
    let spec = load_checkable(&args.spec, args.csv.schema.as_deref())?;
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
    let spec = load_or_report(path, schema)?;
    let start = std::time::Instant::now();
    let report = reqs::mutate::analyze(&spec, &solver.config(), solver.jobs())?;
    let seconds = start.elapsed().as_secs_f64();
    Ok(Box::new(printer::mutate::mutate_report(
        &spec, report, seconds,
    )))
}

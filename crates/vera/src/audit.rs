//! `vera audit` and `vera ask`: terminal and JSON reports for the requirement audits
//! and scenario questions of the `reqs` crate.

use anyhow::{bail, Context as _, Result};
use reqs::ask::Verdict;
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
    if let Some(kind) = reqs::input::foreign(path) {
        bail!("{}", printer::audit::not_a_spec_hint(path, kind));
    }
    let is_csv = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("csv"));
    let spec = match (is_csv, schema) {
        (true, Some(s)) => {
            let columns = crate::files::csv_columns().cloned().unwrap_or_default();
            reqs::load_csv_with(path, s, &columns)
        }
        (false, _) if crate::files::csv_columns().is_some() => bail!(
            "--csv-columns is for CSV requirement files; {} is a spec already",
            path.display()
        ),
        (true, None) => bail!(
            "{}: a CSV of requirements needs --schema SPEC.toml for its variables",
            path.display()
        ),
        (false, Some(_)) => bail!(
            "--schema is for CSV requirement files; {} is a spec already",
            path.display()
        ),
        (false, None) => reqs::load(path),
    };
    let spec = match spec {
        // Printed as they are (warnings as `warning:`), then one line that says so.
        Err(reqs::LoadError::Invalid(d)) => {
            // A `.req` file under another name: say what it is rather than list TOML
            // errors from line 1 on.
            if reqs::input::looks_like_req(path) {
                let hint = printer::audit::not_a_spec_hint(path, reqs::input::Foreign::Req);
                bail!("{}", hint);
            }
            eprintln!("{d}");
            let errors: Vec<crate::output::Diagnostic> =
                d.0.iter()
                    .filter(|l| l.severity == logic::source::Severity::Error)
                    .map(|l| crate::output::Diagnostic {
                        file: Some(l.file.clone()),
                        line: Some(l.line),
                        column: Some(l.col),
                        message: l.message.clone(),
                    })
                    .collect();
            return Err(crate::output::Failure {
                kind: "input",
                message: format!(
                    "{} cannot be used: {} error(s) above",
                    path.display(),
                    errors.len()
                ),
                diagnostics: errors,
                shown: false,
            }
            .into());
        }
        other => other.map_err(|e| anyhow::anyhow!("{e}"))?,
    };
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
    let solver = &a.solver;
    let spec =
        load_spec_timed(&a.spec, a.csv.schema.as_deref()).map_err(crate::output::input_error)?;
    let tb = spec.time.clone().expect("timed spec");
    if spec
        .requirements
        .iter()
        .all(|r| r.timed.is_none() && r.dense.is_none() && r.formula.is_none())
    {
        bail!(
            "nothing to check: {} has no requirement with a formula or a timed pattern",
            a.spec.display()
        );
    }
    let steps = |what: &str, d: &Option<String>| -> Result<Option<usize>> {
        match d {
            None => Ok(None),
            Some(text) => match tb.duration(text) {
                Ok(0) => bail!("{what} must be at least one tick"),
                Ok(n) => Ok(Some(n as usize)),
                Err(e) => bail!("{what}: {e}"),
            },
        }
    };
    if tb.semantics == reqs::timed::Semantics::Dense {
        let mut options = reqs::timed::dense::audit::DenseOptions::new(solver.config());
        options.bmc_depth = a.depth;
        let start = std::time::Instant::now();
        let report = reqs::timed::dense::audit::audit_dense(&spec, &options)
            .with_context(|| format!("auditing {}", a.spec.display()))?;
        return Ok(Box::new(printer::dense::DenseRun {
            file: a.spec.display().to_string(),
            spec,
            report,
            witnesses: a.witnesses,
            solver: solver.config().kind.to_string(),
            seconds: start.elapsed().as_secs_f64(),
        }));
    }
    let mut audit = AuditOptions::new(solver.config());
    audit.jobs = solver.jobs();
    audit.max_conflicts = a.all_conflicts.max(1);
    let options = reqs::timed::audit::TimedOptions {
        audit,
        horizon: steps("--horizon", &a.horizon)?,
        rt_horizon: steps("--rt-horizon", &a.rt_horizon)?,
        no_rt: a.no_rt,
    };
    let start = std::time::Instant::now();
    let report = reqs::timed::audit::audit_timed(&spec, &options)
        .with_context(|| format!("auditing {}", a.spec.display()))?;
    Ok(Box::new(printer::timed::TimedRun {
        file: a.spec.display().to_string(),
        spec,
        report,
        witnesses: a.witnesses,
        solver: solver.config().kind.to_string(),
        seconds: start.elapsed().as_secs_f64(),
    }))
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
    let solver = &args.solver;
    let spec = load_checkable(&args.spec, args.csv.schema.as_deref())?;
    let parse = |what: &str, text: &str| {
        spec.parse_formula(what, text)
            .map_err(|d| anyhow::anyhow!("{d}"))
    };
    let mut asker = reqs::Asker::new(&spec, &solver.config())?;
    if args.derive {
        let scenario = parse("--scenario", args.scenario.as_deref().unwrap_or("true"))?;
        let d = asker.derive(&scenario)?;
        return Ok(Box::new(printer::ask::derive_report(
            logic::print::term(&scenario),
            d,
        )));
    }
    let questions = questions_of(args)?;
    let mut results = Vec::new();
    for q in &questions {
        let scenario = parse(
            &format!("{} scenario", q.id),
            q.scenario.as_deref().unwrap_or("true"),
        )?;
        let Some(claim_text) = &q.claim else {
            bail!("question {} has no claim", q.id)
        };
        let claim = parse(&format!("{} claim", q.id), claim_text)?;
        let verdict = asker.ask(&scenario, &claim)?;
        let view = if matches!(
            verdict,
            Verdict::Entailed { .. } | Verdict::NotEntailed { .. }
        ) {
            asker.roles_view(&scenario)?
        } else {
            None
        };
        results.push((q, scenario, claim, verdict, view));
    }
    let file = args.questions.as_ref().map(|q| q.display().to_string());
    let answers = results
        .into_iter()
        .map(
            |(q, scenario, claim, verdict, roles)| printer::ask::Answer {
                question: q.clone(),
                scenario: logic::print::term(&scenario),
                claim: logic::print::term(&claim),
                verdict,
                roles,
            },
        )
        .collect();
    Ok(Box::new(printer::ask::ask_report(answers, file)))
}

/// The questions of `vera ask`: the questions file, or the one `--claim`.
pub(crate) fn questions_of(args: &crate::cli::AskArgs) -> Result<Vec<reqs::Question>> {
    let questions = questions_as_given(args)?;
    reqs::ask::check_questions(&questions)?;
    Ok(questions)
}

fn questions_as_given(args: &crate::cli::AskArgs) -> Result<Vec<reqs::Question>> {
    Ok(match (&args.questions, &args.claim) {
        (Some(q), None) => {
            let text = safefile::read_text(q)?;
            reqs::ask::load_questions(&text, &q.display().to_string())
                .map_err(|d| anyhow::anyhow!("{d}"))?
        }
        (None, Some(c)) => vec![reqs::Question {
            id: "claim".into(),
            text: String::new(),
            scenario: args.scenario.clone(),
            claim: Some(c.clone()),
            expected: None,
        }],
        (Some(_), Some(_)) => bail!("give either --claim or --questions, not both"),
        (None, None) => bail!("nothing to ask: give --claim TERM, --questions FILE or --derive"),
    })
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

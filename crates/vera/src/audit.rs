//! `vera audit` and `vera ask`: terminal and JSON reports for the requirement audits
//! and scenario questions of the `reqs` crate.

use crate::output::{clean, excerpt, paint, Paint, Rendered};
use anyhow::{bail, Context as _, Result};
use report::Status;
use reqs::ask::{Derivation, Fact, Verdict};
use reqs::audit::{Consistency, Redundancy, Vacuity, Violatability, Witness};
use reqs::realize::Realizability;
use reqs::summary::{env_conflicts_of, summarize, vacuous_by_priority, Summary};
use reqs::{AuditOptions, Spec};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::Path;

/// Loads a TOML spec, or a CSV of requirements over a TOML schema. A spec with timed
/// requirements is refused: only `vera audit` reads them ([`load_spec_timed`]), and
/// another command would silently leave them out.
pub fn load_spec(path: &Path, schema: Option<&Path>) -> Result<Spec> {
    let spec = load_spec_with(path, schema, |_| true)?;
    let timed: Vec<&str> = spec
        .requirements
        .iter()
        .filter(|r| r.timed.is_some() || r.dense.is_some())
        .map(|r| r.id.as_str())
        .take(5)
        .collect();
    if !timed.is_empty() {
        bail!(
            "{} has timed requirements ({}{}): only `vera audit` reads timed requirements so far, and this command would leave them out",
            path.display(),
            timed.join(", "),
            if timed.len() == 5 { ", ..." } else { "" }
        );
    }
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
    if spec
        .time
        .as_ref()
        .is_some_and(|t| t.semantics == reqs::timed::Semantics::Dense)
    {
        bail!(
            "{} is read in dense time (semantics = \"dense\"): `vera {command}` reads discrete timed specs only so far; `vera audit` reads it",
            path.display()
        );
    }
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
    if spec
        .time
        .as_ref()
        .is_some_and(|t| t.semantics == reqs::timed::Semantics::Dense)
    {
        bail!(
            "{} is read in dense time (semantics = \"dense\"): `vera formalize` writes discrete timed patterns only so far",
            path.display()
        );
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
    if let Some(hint) = not_a_spec(path) {
        bail!("{}", hint);
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
            if looks_like_req(path) {
                bail!("{}", req_hint(path));
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

/// What to say of a file named like a source `vera extract` reads (an Ultimate `.req`
/// file, a FRET export, a ReqIF file, a Markdown document) given where a spec is
/// expected.
fn not_a_spec(path: &Path) -> Option<String> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    let shown = crate::output::clean(&path.display().to_string());
    let stem = path.with_extension("toml");
    let toml = crate::output::clean(&stem.display().to_string());
    match ext.as_str() {
        "req" => Some(req_hint(path)),
        "json" => Some(format!(
            "{shown} is not a vera spec (those are TOML): a FRET export is imported with `vera extract {shown} --timed -o {toml}` (its FRETish sentences as timed requirements) or listed with `vera extract {shown} -o {toml}`; then give {toml}"
        )),
        "reqif" | "md" | "markdown" => Some(format!(
            "{shown} is not a vera spec (those are TOML): `vera extract {shown} -o {toml}` lists its requirements as a spec to formalize; then give {toml}"
        )),
        _ => None,
    }
}

/// Whether `path` reads like an Ultimate `.req` file: its first line that is not blank or
/// a comment declares a variable (`Input x is bool`) or a constant (`CONST c is 5`).
fn looks_like_req(path: &Path) -> bool {
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

fn req_hint(path: &Path) -> String {
    let shown = crate::output::clean(&path.display().to_string());
    let toml = crate::output::clean(&path.with_extension("toml").display().to_string());
    let from = if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("req"))
    {
        ""
    } else {
        " --from req"
    };
    format!(
        "{shown} is an Ultimate/Hanfor requirements file (.req), not a vera spec: import it with `vera extract {shown}{from} -o {toml}` (a timed spec, docs/extract.md), then give {toml}"
    )
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
        return Ok(Box::new(crate::dense_report::DenseRun {
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
    Ok(Box::new(crate::timed_report::TimedRun {
        file: a.spec.display().to_string(),
        spec,
        report,
        witnesses: a.witnesses,
        solver: solver.config().kind.to_string(),
        seconds: start.elapsed().as_secs_f64(),
    }))
}

/// True when the file is a TOML spec with a `[time]` table or a timed requirement.
/// A file that does not load is not timed here: the plain path reports its problems
/// (the same parser, so the same messages).
fn is_timed(path: &Path) -> bool {
    let is_toml = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("toml"));
    is_toml
        && reqs::load(path).is_ok_and(|s| {
            s.time.is_some()
                || s.requirements
                    .iter()
                    .any(|r| r.timed.is_some() || r.dense.is_some())
        })
}

/// [`load_or_report`] for the commands that check formulas: a spec without a single
/// formalized requirement (an empty file, a CSV with only its header row) is reported
/// as having nothing to check, never passed as "no findings".
pub fn load_checkable(path: &Path, schema: Option<&Path>) -> anyhow::Result<Spec> {
    let spec = load_or_report(path, schema)?;
    if spec.formalized().next().is_none() {
        return Err(crate::output::input_error(anyhow::anyhow!(
            "nothing to check: {} has {} requirement(s) and none with a formula{}",
            path.display(),
            spec.requirements.len(),
            if spec.requirements.is_empty() {
                ""
            } else {
                " (write formulas, or run `vera formalize`)"
            }
        )));
    }
    Ok(spec)
}

/// `vera audit SPEC`
pub fn audit(a: &crate::cli::AuditArgs) -> crate::output::Outcome {
    if is_timed(&a.spec) {
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
    Ok(Box::new(crate::audit_report::AuditRun {
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

/// "note: R fixes v = x in every state ..." lines under a vacuity or redundancy finding
/// of `id` whose likely cause is a fixed variable.
fn cause_notes(lines: &mut Vec<String>, report: &reqs::AuditReport, finding: &str, id: &str) {
    for c in report
        .causes
        .iter()
        .filter(|c| c.finding == finding && c.of == id)
    {
        let f = &c.forced;
        lines.push(format!(
            "  note: {} fixes {} = {} in every state, which is the likely cause: check that {} means that (a conditional requirement written as an invariant makes every requirement about {} {})",
            f.requirement, f.variable, f.value, f.requirement, f.variable, finding
        ));
    }
}

/// What a conflict list stopped by its cap says about the conflicts not listed.
fn capped(cap: usize, listed_up_to: Option<usize>) -> String {
    match listed_up_to {
        Some(0) | None => format!(
            " (stopped at {cap}; there may be more, their number unknown: raise it with --all-conflicts N)"
        ),
        Some(k) => format!(
            " (stopped at {cap}, smallest first: every conflict of up to {k} requirement(s) is listed; there may be larger ones, their number unknown: raise it with --all-conflicts N)"
        ),
    }
}

/// `ids`, or what is known when the list is empty.
fn ids_or(v: &[String], empty: &str) -> String {
    if v.is_empty() {
        empty.to_string()
    } else {
        ids(v)
    }
}

/// The realizability section: conflicts the environment can force, each with its input
/// state and the decision it asks for.
fn human_realizability(o: &mut String, r: &Realizability, text_of: &dyn Fn(&str) -> String) {
    match r {
        Realizability::NotChecked { reason } => {
            let _ = writeln!(o, "realizability: not checked ({reason})");
        }
        Realizability::Realizable { .. } => {
            let _ = writeln!(
                o,
                "realizability: {} — for every input the domain allows, some outputs satisfy every requirement",
                paint(Paint::Good, "realizable")
            );
        }
        Realizability::Unknown { reason } => {
            let _ = writeln!(
                o,
                "realizability: {} ({reason})",
                paint(Paint::Warn, "unknown")
            );
        }
        Realizability::Unrealizable {
            conflicts,
            complete,
            incomplete,
        } => {
            let extent = match incomplete {
                _ if *complete => " (all of them)".to_string(),
                Some(reqs::Incomplete::Cap { cap, listed_up_to }) => capped(*cap, *listed_up_to),
                Some(reqs::Incomplete::Unknown { reason }) => format!(
                    " ({} — there may be more: {reason})",
                    paint(Paint::Warn, "incomplete")
                ),
                None => String::new(),
            };
            let _ = writeln!(
                o,
                "realizability: {} — {} conflict(s) the environment can force{extent}",
                paint(Paint::Bad, "unrealizable"),
                conflicts.len()
            );
            for (k, c) in conflicts.iter().enumerate() {
                let mut members = c.requirements.clone();
                members.extend(c.domain.iter().cloned());
                let _ = writeln!(o, "  conflict for some inputs {}: {}", k + 1, ids(&members));
                for id in &members {
                    let _ = writeln!(o, "    {id}: {}", text_of(id));
                }
                let _ = writeln!(o, "    inputs:");
                witness_table(o, &c.inputs, "      ");
                let _ = writeln!(o, "    decide: {}", clean(&c.question));
            }
        }
    }
}

fn witness_table(out: &mut String, w: &Witness, indent: &str) {
    let width = w
        .iter()
        .map(|a| a.variable.len())
        .max()
        .unwrap_or(0)
        .min(40);
    for a in w {
        let unit = a
            .unit
            .as_deref()
            .map(|u| format!(" {u}"))
            .unwrap_or_default();
        let _ = writeln!(out, "{indent}{:width$} = {}{}", a.variable, a.value, unit);
    }
}

fn ids(v: &[String]) -> String {
    v.join(", ")
}

/// The terminal report: summary first, then findings by requirement.
pub(crate) fn human_audit(
    file: &str,
    spec: &Spec,
    report: &reqs::AuditReport,
    s: &Summary,
    witnesses: bool,
    cached: bool,
) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "{} ({})", clean(&spec.name), clean(file));
    let _ = writeln!(
        o,
        "{} requirements ({} formalized) over {} variables, {} domain constraints",
        s.requirements, s.formalized, s.variables, s.domain_constraints
    );
    let text_of = |id: &str| {
        spec.requirements
            .iter()
            .find(|r| r.id == id)
            .map(|r| excerpt(&r.text, 90))
            .or_else(|| {
                spec.domain
                    .iter()
                    .find(|d| d.id == id)
                    .and_then(|d| d.text.as_deref().map(|t| excerpt(t, 90)))
            })
            .unwrap_or_default()
    };
    // Conflicts come before anything that reads like a verdict.
    let env_conflicts = matches!(report.realizability, Realizability::Unrealizable { .. });
    if env_conflicts {
        human_realizability(&mut o, &report.realizability, &text_of);
    }
    match &report.consistency {
        Consistency::Consistent if env_conflicts => {
            let _ = writeln!(
                o,
                "consistency: some state satisfies every requirement, but not for every input (the conflicts above)"
            );
        }
        Consistency::Consistent => {
            let _ = writeln!(o, "consistency: {}", paint(Paint::Good, "consistent"));
        }
        Consistency::DomainInconsistent { conflict } => {
            let _ = writeln!(
                o,
                "consistency: {} — the domain constraints alone clash: {}",
                paint(Paint::Bad, "inconsistent"),
                ids(conflict)
            );
            for id in conflict {
                let _ = writeln!(o, "  {id}: {}", text_of(id));
            }
            return o;
        }
        Consistency::Inconsistent {
            conflicts,
            complete,
            incomplete,
        } => {
            let extent = match incomplete {
                _ if *complete => " (all of them)".to_string(),
                Some(reqs::Incomplete::Cap { cap, listed_up_to }) if *cap > 1 => {
                    capped(*cap, *listed_up_to)
                }
                Some(reqs::Incomplete::Unknown { reason }) => format!(
                    " ({} — there may be more: {reason})",
                    paint(Paint::Warn, "incomplete")
                ),
                _ => String::new(),
            };
            let _ = writeln!(
                o,
                "consistency: {} — {} minimal conflict(s){extent}",
                paint(Paint::Bad, "inconsistent"),
                conflicts.len(),
            );
            for (k, c) in conflicts.iter().enumerate() {
                let _ = writeln!(o, "  conflict {}: {}", k + 1, ids(c));
                for id in c {
                    let _ = writeln!(o, "    {id}: {}", text_of(id));
                }
            }
            if matches!(incomplete, Some(reqs::Incomplete::Cap { cap: 1, .. })) {
                let _ = writeln!(o, "  (use --all-conflicts N to list more)");
            }
        }
        Consistency::Unknown { reason } => {
            let _ = writeln!(
                o,
                "consistency: {} ({reason})",
                paint(Paint::Warn, "unknown")
            );
        }
    }
    if !env_conflicts {
        human_realizability(&mut o, &report.realizability, &text_of);
    }
    if matches!(report.consistency, Consistency::Consistent) {
        let _ = writeln!(
            o,
            "findings: {} vacuous, {} redundant, {} implied by domain, {} conflict(s) for some inputs, {}{} unknown",
            s.vacuous, s.redundant, s.implied_by_domain, s.conflicts_for_some_inputs,
            if s.fixes_a_variable > 0 {
                format!("{} fix a variable, ", s.fixes_a_variable)
            } else {
                String::new()
            },
            s.unknown
        );
    } else {
        // Redundancy and vacuity under M did not run: no count of them.
        let _ = writeln!(
            o,
            "other findings: {} vacuous under the domain, {} implied by domain, {} unknown (redundancy and vacuity under the other requirements not checked, see below)",
            s.vacuous, s.implied_by_domain, s.unknown
        );
    }
    for a in &report.requirements {
        let req = spec
            .requirements
            .iter()
            .find(|r| r.id == a.id)
            .expect("audited requirements exist");
        let mut lines = Vec::new();
        match &a.vacuity_domain {
            Vacuity::Vacuous { because, .. } => lines.push(format!(
                "{}: the trigger can never hold under the domain constraints ({})",
                paint(Paint::Bad, "vacuous"),
                ids_or(because, "it contradicts itself, whatever the domain")
            )),
            Vacuity::Unknown { reason } => lines.push(format!(
                "{} vacuity under the domain: {reason}",
                paint(Paint::Warn, "unknown")
            )),
            _ => {}
        }
        match &a.vacuity_model {
            Vacuity::Vacuous { .. } if vacuous_by_priority(report, a) => {
                for (k, partners) in env_conflicts_of(report, &a.id) {
                    lines.push(format!(
                        "{}: whenever the environment makes its trigger hold, it clashes with {} (conflict for some inputs {k} above): decide which one takes priority",
                        paint(Paint::Bad, "conflict for some inputs"),
                        ids(&partners)
                    ));
                }
            }
            Vacuity::Vacuous {
                because,
                response_conflict: false,
            } => {
                lines.push(format!(
                    "{}: {} can never fire because of {}",
                    paint(Paint::Bad, "vacuous"),
                    a.id,
                    ids_or(because, "its own trigger, which cannot hold")
                ));
                cause_notes(&mut lines, report, "vacuous", &a.id);
            }
            Vacuity::Vacuous {
                because,
                response_conflict: true,
            } => {
                lines.push(format!(
                    "{}: {} can never fire: whenever its trigger holds, its response contradicts {}",
                    paint(Paint::Bad, "vacuous"),
                    a.id,
                    ids_or(because, "the trigger itself")
                ));
                cause_notes(&mut lines, report, "vacuous", &a.id);
            }
            Vacuity::Unknown { reason } => lines.push(format!(
                "{} vacuity under the other requirements: {reason}",
                paint(Paint::Warn, "unknown")
            )),
            _ => {}
        }
        match &a.violatability {
            Violatability::ImpliedByDomain { because } if because.is_empty() => lines.push(format!(
                "{}: no state breaks it: the formula holds in every state on its own, so it constrains nothing",
                paint(Paint::Bad, "implied by domain"),
            )),
            Violatability::ImpliedByDomain { because } => lines.push(format!(
                "{}: no state of the domain breaks it (already enforced by {})",
                paint(Paint::Bad, "implied by domain"),
                ids(because)
            )),
            Violatability::Unknown { reason } => lines.push(format!(
                "{} violatability: {reason}",
                paint(Paint::Warn, "unknown")
            )),
            Violatability::Violatable { .. } => {}
        }
        match &a.redundancy {
            Redundancy::Redundant { subsumed_by } if subsumed_by.is_empty() => lines.push(format!(
                "{}: the formula holds in every state on its own, so nothing else is needed to enforce it",
                paint(Paint::Bad, "redundant"),
            )),
            Redundancy::Redundant { subsumed_by } => {
                lines.push(format!(
                    "{}: already enforced by {}",
                    paint(Paint::Bad, "redundant"),
                    ids(subsumed_by)
                ));
                cause_notes(&mut lines, report, "redundant", &a.id);
            }
            Redundancy::Unknown { reason } => lines.push(format!(
                "{} redundancy: {reason}",
                paint(Paint::Warn, "unknown")
            )),
            _ => {}
        }
        for f in a.fixes.iter().filter(|f| f.kind.is_finding()) {
            lines.push(format!(
                "{}: its formula fixes {} = {}{} in every state, though {}: check the formula against the text (a condition written as an invariant fixes what it tests)",
                paint(Paint::Bad, "fixes a variable"),
                f.variable,
                f.value,
                f.unit.as_deref().map(|u| format!(" {u}")).unwrap_or_default(),
                f.kind.why()
            ));
            let hurt: Vec<&str> = report
                .causes
                .iter()
                .filter(|c| c.forced.requirement == a.id && c.forced.variable == f.variable)
                .map(|c| c.of.as_str())
                .collect();
            if !hurt.is_empty() {
                let mut hurt = hurt;
                hurt.sort_unstable();
                hurt.dedup();
                lines.push(format!(
                    "  it is the likely cause of the findings about {}",
                    hurt.join(", ")
                ));
            }
        }
        if a.fixes_unknown {
            lines.push(format!(
                "{} whether it fixes a variable in every state",
                paint(Paint::Warn, "unknown")
            ));
        }
        // A person's review of a finding (`[[reviews]]`) is shown under it; the finding
        // stays a finding.
        let found = [
            (
                "redundant",
                matches!(a.redundancy, Redundancy::Redundant { .. }),
            ),
            (
                "vacuous",
                matches!(a.vacuity_domain, Vacuity::Vacuous { .. })
                    || matches!(a.vacuity_model, Vacuity::Vacuous { .. }),
            ),
            (
                "not-violatable",
                matches!(a.violatability, Violatability::ImpliedByDomain { .. }),
            ),
        ];
        for r in spec.reviews.iter().filter(|r| r.requirement == a.id) {
            if found.iter().any(|(f, on)| *on && *f == r.finding) {
                lines.push(format!(
                    "  reviewed ({}) by {} on {}: {}",
                    r.finding,
                    crate::output::clean(&r.reviewed_by),
                    crate::output::clean(&r.date),
                    crate::output::clean(&r.reason)
                ));
            }
        }
        let show_witness = witnesses && matches!(a.violatability, Violatability::Violatable { .. });
        if lines.is_empty() && !show_witness {
            continue;
        }
        let _ = writeln!(
            o,
            "\n{} (line {}, {})",
            paint(Paint::Id, &a.id),
            a.line,
            a.kind
        );
        let _ = writeln!(o, "  \"{}\"", excerpt(&req.text, 100));
        for l in &lines {
            let _ = writeln!(o, "  {l}");
        }
        if let (true, Violatability::Violatable { witness }) = (show_witness, &a.violatability) {
            let _ = writeln!(o, "  violated in this state of the domain:");
            witness_table(&mut o, witness, "    ");
        }
    }
    if !report.not_formalized.is_empty() {
        let _ = writeln!(
            o,
            "\nnot formalized (not audited): {}",
            ids(&report.not_formalized)
        );
    }
    match report.consistency {
        Consistency::Consistent => {}
        Consistency::Unknown { .. } => {
            let _ = writeln!(
                o,
                "\nvacuity under the other requirements and redundancy are unknown: they need the consistency check, which had no answer"
            );
        }
        _ => {
            let _ = writeln!(
                o,
                "\nvacuity under the other requirements and redundancy are not checked while the requirements are inconsistent"
            );
        }
    }
    let in_env_conflict = |id: &str| match (&report.realizability, &report.consistency) {
        (Realizability::Unrealizable { conflicts, .. }, _) => conflicts
            .iter()
            .any(|c| c.requirements.iter().any(|r| r == id)),
        (_, Consistency::Inconsistent { conflicts, .. }) => {
            conflicts.iter().any(|c| c.iter().any(|r| r == id))
        }
        _ => false,
    };
    let ok = report
        .requirements
        .iter()
        .filter(|a| !a.has_findings() && !in_env_conflict(&a.id))
        .count();
    let reused = if cached {
        format!(
            "{} of {} checks reused from the cache, ",
            report.reused, report.checks
        )
    } else {
        String::new()
    };
    let _ = if matches!(report.consistency, Consistency::Consistent) {
        writeln!(
            o,
            "\n{ok} of {} formalized requirements have no findings ({reused}{} solver queries)",
            report.requirements.len(),
            report.queries
        )
    } else {
        writeln!(
            o,
            "\n{ok} of {} formalized requirements are in no conflict and have no finding among the checks that ran ({reused}{} solver queries)",
            report.requirements.len(),
            report.queries
        )
    };
    o
}

/// One answer of `vera.ask.v1`.
#[derive(Serialize)]
struct AnswerJson {
    id: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    text: String,
    scenario: String,
    claim: String,
    #[serde(flatten)]
    verdict: Verdict,
    #[serde(skip_serializing_if = "Option::is_none")]
    expected: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    matches_expected: Option<bool>,
    /// With roles: the inputs the scenario fixes and what each output may be.
    #[serde(skip_serializing_if = "Option::is_none")]
    roles: Option<reqs::ask::RolesView>,
}

/// `vera.ask.v1`.
#[derive(Serialize)]
struct AskJson {
    schema: &'static str,
    answers: Vec<AnswerJson>,
}

/// `vera.derive.v1`.
#[derive(Serialize)]
struct DeriveJson {
    schema: &'static str,
    scenario: String,
    result: Derivation,
}

/// `vera ask SPEC ...`
pub fn ask(args: &crate::cli::AskArgs) -> crate::output::Outcome {
    if is_timed(&args.spec) {
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
        let status = match &d {
            // A fact the solver could not decide is not a result: exit 2, like any unknown.
            Derivation::Facts { variables }
                if variables
                    .iter()
                    .any(|v| matches!(v.fact, reqs::ask::Fact::Unknown)) =>
            {
                Status::Error
            }
            Derivation::Facts { .. } => Status::Ok,
            Derivation::ScenarioImpossible { .. } => Status::Findings,
            Derivation::Unknown { .. } => Status::Error,
        };
        let text = human_derive(&d);
        return Ok(Box::new(Rendered::new(
            "vera.derive.v1",
            status,
            text,
            DeriveJson {
                schema: "vera.derive.v1",
                scenario: logic::print::term(&scenario),
                result: d,
            },
        )));
    }
    let questions = questions_of(args)?;
    let mut results = Vec::new();
    let mut worst = Status::Ok;
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
        let code = match &verdict {
            Verdict::Entailed { .. } => Status::Ok,
            Verdict::Unknown { .. } => Status::Error,
            _ => Status::Findings,
        };
        let mismatch = q.expected.as_deref().is_some_and(|e| e != verdict.name());
        worst = worst.worst(if mismatch { Status::Error } else { code });
        results.push((q, scenario, claim, verdict, view));
    }
    let mut o = String::new();
    let (mut agree, mut with_expectation) = (0, 0);
    for (q, _, _, v, view) in &results {
        let _ = write!(o, "{}: {}", paint(Paint::Id, &q.id), verdict_word(v));
        if let Some(e) = &q.expected {
            with_expectation += 1;
            if e == v.name() {
                agree += 1;
            } else {
                let _ = write!(o, " {}", paint(Paint::Bad, &format!("(expected {e})")));
            }
        }
        let _ = writeln!(o);
        if !q.text.is_empty() {
            let _ = writeln!(o, "  {}", excerpt(&q.text, 100));
        }
        o.push_str(&verdict_lines(v));
        if let Some(view) = view {
            human_roles(&mut o, view);
        }
    }
    if with_expectation > 0 {
        let _ = writeln!(
            o,
            "\n{agree} of {with_expectation} answers match the expected verdicts"
        );
    }
    let file = args.questions.as_ref().map(|q| q.display().to_string());
    let suite = report::Suite {
        name: file.clone().unwrap_or_else(|| "claim".into()),
        file,
        cases: results
            .iter()
            .map(|(q, _, _, v, _)| question_case("vera.ask", q, v))
            .collect(),
    };
    let answers = results
        .into_iter()
        .map(|(q, s, c, v, view)| AnswerJson {
            id: q.id.clone(),
            text: q.text.clone(),
            scenario: logic::print::term(&s),
            claim: logic::print::term(&c),
            expected: q.expected.clone(),
            matches_expected: q.expected.as_deref().map(|e| e == v.name()),
            verdict: v,
            roles: view,
        })
        .collect();
    let mut r = Rendered::new(
        "vera.ask.v1",
        worst,
        o,
        AskJson {
            schema: "vera.ask.v1",
            answers,
        },
    );
    r.suites = Some(vec![suite]);
    Ok(Box::new(r))
}

/// The lines under a verdict: its justification or counterexample.
fn verdict_lines(v: &Verdict) -> String {
    let mut o = String::new();
    match v {
        Verdict::Entailed { because } => {
            let _ = writeln!(o, "  justified by {}", ids(because));
        }
        Verdict::NotEntailed {
            counterexample,
            contradicts,
        } => {
            if contradicts.is_empty() {
                let _ = writeln!(o, "  the requirements allow a state where it fails:");
            } else {
                let _ = writeln!(
                    o,
                    "  the claim contradicts {}; a state the requirements allow:",
                    ids(contradicts)
                );
            }
            witness_table(&mut o, counterexample, "    ");
        }
        Verdict::ScenarioImpossible { because } => {
            let _ = writeln!(o, "  no state satisfies the scenario and {}", ids(because));
        }
        Verdict::Unknown { reason } => {
            let _ = writeln!(o, "  {reason}");
        }
    }
    o
}

/// A question as a pass/fail case: with an expected verdict it passes when the answer
/// matches; without one it passes when the claim is entailed. An unknown answer is an
/// error, never a pass.
/// The questions of `vera ask`: the questions file, or the one `--claim`.
pub(crate) fn questions_of(args: &crate::cli::AskArgs) -> Result<Vec<reqs::Question>> {
    let questions = questions_as_given(args)?;
    let mut problems = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for q in &questions {
        if !seen.insert(q.id.as_str()) {
            problems.push(format!("question id `{}` is used twice", q.id));
        }
        if let Some(e) = &q.expected {
            if !["entailed", "not-entailed", "scenario-impossible", "unknown"].contains(&e.as_str())
            {
                problems.push(format!(
                    "question {}: expected = \"{e}\" is not a verdict (entailed, not-entailed, scenario-impossible or unknown)",
                    q.id
                ));
            }
        }
    }
    if !problems.is_empty() {
        bail!("{}", problems.join("\n"));
    }
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

fn question_case(class: &str, q: &reqs::Question, v: &Verdict) -> report::Case {
    let undecided = match v {
        Verdict::Unknown { reason } => Some(reason.as_str()),
        _ => None,
    };
    answer_case(class, q, v.name(), undecided, verdict_lines(v))
}

/// A JUnit case for an answered question: passed when it matches `expected` (or, with
/// none, when entailed), an error when undecided.
pub(crate) fn answer_case(
    class: &str,
    q: &reqs::Question,
    verdict: &str,
    undecided: Option<&str>,
    detail: String,
) -> report::Case {
    let outcome = match (&q.expected, undecided) {
        (_, Some(reason)) => report::Outcome::Error {
            message: format!("not decided: {reason}"),
            detail,
        },
        (Some(e), None) if e == verdict => report::Outcome::Passed,
        (Some(e), None) => report::Outcome::Failed {
            message: format!("expected {e}, the requirements give {verdict}"),
            detail,
        },
        (None, None) if verdict == "entailed" => report::Outcome::Passed,
        (None, None) => report::Outcome::Failed {
            message: verdict.to_string(),
            detail,
        },
    };
    report::Case {
        name: q.id.clone(),
        class: class.to_string(),
        outcome,
        seconds: None,
        output: (!q.text.is_empty()).then(|| q.text.clone()),
    }
}

fn verdict_word(v: &Verdict) -> String {
    match v {
        Verdict::Entailed { .. } => paint(Paint::Good, "entailed"),
        Verdict::NotEntailed { .. } => paint(Paint::Bad, "not entailed"),
        Verdict::ScenarioImpossible { .. } => paint(Paint::Warn, "scenario impossible"),
        Verdict::Unknown { .. } => paint(Paint::Warn, "unknown"),
    }
}

/// The inputs a scenario fixes and what the requirements allow for each output.
fn human_roles(o: &mut String, view: &reqs::ask::RolesView) {
    let fixed: Vec<String> = view
        .fixed_inputs
        .iter()
        .map(|d| format!("{} ({})", d.variable, fact_words(d)))
        .collect();
    if view.fixes_all_inputs {
        let _ = writeln!(o, "  the scenario fixes every input: {}", fixed.join(", "));
    } else {
        let _ = writeln!(
            o,
            "  the scenario leaves inputs open: {} (the answer holds for every value of these that the requirements allow){}",
            view.free_inputs.join(", "),
            if fixed.is_empty() {
                String::new()
            } else {
                format!("; fixed: {}", fixed.join(", "))
            }
        );
    }
    if !view.outputs.is_empty() {
        let _ = writeln!(o, "  outputs the requirements allow:");
        let width = view
            .outputs
            .iter()
            .map(|d| d.variable.len())
            .max()
            .unwrap_or(0);
        for d in &view.outputs {
            let _ = writeln!(o, "    {:width$}  {}", d.variable, fact_words(d));
        }
    }
}

/// One derived fact in words.
fn fact_words(v: &reqs::ask::Derived) -> String {
    let unit = v
        .unit
        .as_deref()
        .map(|u| format!(" {u}"))
        .unwrap_or_default();
    match &v.fact {
        Fact::Forced { value } => format!("forced = {value}{unit}"),
        Fact::OneOf { values } => format!("one of {}", values.join(", ")),
        Fact::Bounded { at_least, at_most } => match (at_least, at_most) {
            (Some(l), Some(u)) => format!("between {l} and {u}{unit}"),
            (Some(l), None) => format!(">= {l}{unit}"),
            (None, Some(u)) => format!("<= {u}{unit}"),
            (None, None) => "free".into(),
        },
        Fact::Free => "free".into(),
        Fact::Unknown => "unknown".into(),
    }
}

fn human_derive(d: &Derivation) -> String {
    let mut o = String::new();
    match d {
        Derivation::Facts { variables } => {
            let width = variables
                .iter()
                .map(|v| v.variable.len())
                .max()
                .unwrap_or(0);
            for v in variables {
                let fact = fact_words(v);
                let _ = writeln!(o, "{:width$}  {fact}", v.variable);
            }
        }
        Derivation::ScenarioImpossible { because } => {
            let _ = writeln!(o, "scenario impossible: ruled out by {}", ids(because));
        }
        Derivation::Unknown { reason } => {
            let _ = writeln!(o, "unknown: {reason}");
        }
    }
    o
}

/// `vera mutate SPEC`
pub fn mutate(a: &crate::cli::MutateArgs) -> crate::output::Outcome {
    let (path, schema, solver) = (&a.spec, a.csv.schema.as_deref(), &a.solver);
    use reqs::mutate::Detection;
    let spec = load_or_report(path, schema)?;
    let start = std::time::Instant::now();
    let report = reqs::mutate::analyze(&spec, &solver.config(), solver.jobs())?;
    let seconds = start.elapsed().as_secs_f64();
    let unknown = report
        .mutants
        .iter()
        .any(|m| matches!(m.detection, Detection::Unknown { .. }));
    let undetected: Vec<&reqs::mutate::MutantResult> = report
        .mutants
        .iter()
        .filter(|m| m.detection == Detection::Equivalent)
        .collect();
    let status = if unknown {
        Status::Error
    } else if undetected.is_empty() {
        Status::Ok
    } else {
        Status::Findings
    };
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{} ({}): {} mutants of {} requirements in {seconds:.2} s",
        clean(&spec.name),
        clean(spec.source.name()),
        report.mutants.len(),
        spec.formalized().count()
    );
    let _ = writeln!(
        o,
        "\n{:<34} {:>7} {:>8} {:>7}  Wilson 95%",
        "category", "mutants", "detected", "rate"
    );
    for r in &report.rates {
        let _ = writeln!(
            o,
            "{:<34} {:>7} {:>8} {:>6.1}%  [{:.1}%, {:.1}%]",
            r.category,
            r.mutants,
            r.detected,
            100.0 * r.rate,
            100.0 * r.interval.0,
            100.0 * r.interval.1
        );
    }
    if !undetected.is_empty() {
        let _ = writeln!(
            o,
            "\nundetected (equivalent under the domain: the spec cannot tell them apart):"
        );
        for m in &undetected {
            let _ = writeln!(
                o,
                "  {}: {} — {}",
                m.mutant.requirement,
                m.mutant.category.name(),
                m.mutant.description
            );
        }
    }
    for m in report
        .mutants
        .iter()
        .filter(|m| matches!(m.detection, Detection::Unknown { .. }))
    {
        if let Detection::Unknown { reason } = &m.detection {
            let _ = writeln!(
                o,
                "  {}: unknown ({reason}) — {}",
                m.mutant.requirement, m.mutant.description
            );
        }
    }
    let page = mutation_page(&spec, &report, seconds);
    let mut r = Rendered::new(
        "vera.mutate.v1",
        status,
        o,
        MutateJson {
            schema: "vera.mutate.v1",
            spec: spec.name.clone(),
            seconds,
            rates: report.rates,
            mutants: report.mutants,
        },
    );
    r.page = Some(page);
    Ok(Box::new(r))
}

/// `vera.mutate.v1`.
#[derive(Serialize)]
struct MutateJson {
    schema: &'static str,
    spec: String,
    seconds: f64,
    rates: Vec<reqs::mutate::Rate>,
    mutants: Vec<reqs::mutate::MutantResult>,
}

/// The mutation page: detection per category as bars, undetected mutants listed.
fn mutation_page(
    spec: &Spec,
    report: &reqs::mutate::MutationReport,
    seconds: f64,
) -> report::html::Page {
    use report::html::{Bar, Block, Count, Page, Section, Tone};
    use reqs::mutate::Detection;
    let count =
        |f: &dyn Fn(&Detection) -> bool| report.mutants.iter().filter(|m| f(&m.detection)).count();
    let undetected = count(&|d| *d == Detection::Equivalent);
    let unknown = count(&|d| matches!(d, Detection::Unknown { .. }));
    let bars = report
        .rates
        .iter()
        .map(|r| Bar {
            label: format!(
                "{} ({} of {}, 95% {:.0}–{:.0}%)",
                r.category,
                r.detected,
                r.mutants,
                100.0 * r.interval.0,
                100.0 * r.interval.1
            ),
            value: r.detected as f64,
            max: r.mutants.max(1) as f64,
            tone: if r.detected == r.mutants {
                Tone::Good
            } else {
                Tone::Warn
            },
        })
        .collect();
    let rows: Vec<Vec<String>> = report
        .mutants
        .iter()
        .filter(|m| {
            matches!(
                m.detection,
                Detection::Equivalent | Detection::Unknown { .. }
            )
        })
        .map(|m| {
            vec![
                m.mutant.requirement.clone(),
                m.mutant.category.name().to_string(),
                m.mutant.description.clone(),
                match &m.detection {
                    Detection::Unknown { reason } => format!("unknown: {reason}"),
                    _ => "equivalent under the domain".into(),
                },
            ]
        })
        .collect();
    Page {
        title: format!("vera mutate: {}", spec.name),
        subtitle: Some(format!("{} · {seconds:.2} s", spec.source.name())),
        counts: vec![
            Count::neutral("mutants", report.mutants.len()),
            Count::findings("undetected", undetected, Tone::Warn),
            Count::findings("undecided", unknown, Tone::Bad),
        ],
        sections: vec![
            Section {
                heading: "Detection by category".into(),
                blocks: vec![Block::Bars {
                    caption: "Mutants the spec tells apart from the original".into(),
                    bars,
                }],
            },
            Section {
                heading: "Mutants not detected".into(),
                blocks: vec![if rows.is_empty() {
                    Block::Text("None: the spec tells every mutant from the original.".into())
                } else {
                    Block::Table {
                        headers: vec![
                            "requirement".into(),
                            "category".into(),
                            "mutant".into(),
                            "why".into(),
                        ],
                        rows,
                    }
                }],
            },
        ],
    }
}
